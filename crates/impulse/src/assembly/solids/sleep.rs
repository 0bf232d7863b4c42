//! Sleep for the free bodies of an assembly among solids (issue 36), after the world's
//! (`world::sleep`): resting contact by impulses never ends — a crate on the floor takes a
//! microcollision every few steps, each located by partial steps of the whole assembly — so a
//! free body that has stayed still long enough, with everything it touched, is held at rest
//! until something touches it.
//!
//! - **May sleep**: a body no joint and no load holds, without an applied torque, carrying
//!   shapes (the mechanism's bodies never sleep, but may support sleepers).
//! - **Still**: sampled at the end of every grid step (never at output times, so sampling
//!   cannot change the run): every point of the body has stayed within ε of where it was when
//!   it became still (its centre's displacement plus its turn times its reach), and none moves
//!   faster than the microcollision threshold √(2gε) (2ε per `time` without gravity): resting
//!   contact by microcollisions is a vibration within the envelope below that speed (a crate
//!   dropped 1 cm still hops 0.6 mm at 0.1 m/s after 1 s, its reversals keeping the energy),
//!   so the body sleeps where its hops leave it, within ε. The drift allowance is tighter
//!   than the world's (¼ √(2gε) × `time`, 17.5 mm at ε = 1 mm, would let a crate sliding at
//!   3 cm/s fall asleep). A body that moves on becomes still anew where it is (one anchor,
//!   where the world keeps several).
//! - **Islands**: bodies joined by contacts answered within the last `time` (a fixed solid
//!   joins nothing). An island sleeps whole when every member may sleep and has been still for
//!   `time`: momenta zero, and a held force `−m g` in place of its own (torque zero), so that
//!   RK4 keeps it exactly where it is; its pairs with fixed solids and other sleepers leave the
//!   broad and narrow phases.
//! - **Supports**: a body that may not sleep (a mechanism's) joins no island; it supports the
//!   islands whose bodies it touched within `time`, and an island sleeps only when its
//!   supports too have been still for `time` (the same test, with the support's reach). While
//!   an island sleeps, each support carries the mean force and torque its contacts with each
//!   sleeper gave it over `time`, scaled so that each sleeper's contacts bear its weight along
//!   gravity, with what they give across it taken back (statics; the unscaled mean is off by
//!   the sleeper's momentum change over the window), and the pairs of sleepers with their
//!   supports leave both phases.
//! - **Waking**: a pair of a sleeper and an awake body (not one of its supports) in contact at
//!   an instant wakes the sleeper's island, from rest, before the contacts are answered; a
//!   support that is no longer still wakes the islands it supports, and their loads leave it;
//!   the still clocks restart. A step is checked before it is kept: if a support would not be
//!   still at its end, the step is taken again from its start with the islands it supports
//!   awake (so a support set moving fast, a seesaw struck at its other end, meets its sleepers
//!   as awake bodies within that step instead of travelling into them until the step's end);
//!   the grid step's end checks again for what an impulse at that instant set moving.

use crate::math::{Quat, Vec3};

use super::super::{Assembly, AssemblyError};
use super::AssemblyWithSolids;

/// When the free bodies of an assembly among solids fall asleep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolidsSleep {
    /// Whether free bodies fall asleep at all.
    pub enabled: bool,
    /// How long an island must stay still (s).
    pub time: f64,
}

impl Default for SolidsSleep {
    /// On, after 0.5 s still (the world's defaults).
    fn default() -> Self {
        Self {
            enabled: true,
            time: 0.5,
        }
    }
}

/// One body's sleep.
#[derive(Clone, Debug)]
pub(super) struct BodySleep {
    /// Whether it may sleep at all.
    may: bool,
    /// Where it became still, and when.
    anchor: (Vec3, Quat),
    since: f64,
    /// Its island's number while asleep.
    island: Option<usize>,
    /// Its own force and torque, held while it sleeps.
    loads: (Vec3, Vec3),
    /// The largest distance from its centre to its shapes.
    reach: f64,
    /// While asleep: the bodies that may not sleep (a mechanism's) its island rests on.
    supports: Vec<usize>,
    /// While asleep: the force and torque (about the support's centre) its contacts with each
    /// support gave that support on average over the sleep time before it slept, which the
    /// support goes on carrying.
    carried: Vec<(usize, Vec3, Vec3)>,
    /// While it carries sleepers: its own force and torque, without theirs.
    own: Option<(Vec3, Vec3)>,
}

/// A free body's contacts with one support over the sleep time (`update_sleep`).
#[derive(Clone)]
struct Carried {
    support: usize,
    /// The mean force on the support and its torque about the support's centre.
    force: Vec3,
    torque: Vec3,
    /// The impulses' parts along gravity: how much of the body's weight the support bore
    /// (times |g|).
    lift: f64,
}

impl AssemblyWithSolids {
    /// Each body's sleep at the start (awake, still from now).
    pub(super) fn initial_sleep(&self) -> Vec<BodySleep> {
        let asm = &self.assembly;
        (0..asm.bodies.len())
            .map(|b| {
                let joined = asm.joints.iter().any(|j| j.a == b || j.b == Some(b));
                let loaded = asm.loads.iter().any(|l| {
                    let (x, y) = l.bodies();
                    x == b || y == Some(b)
                });
                let body = &asm.bodies[b];
                let reach = (0..self.solids.len())
                    .filter(|&s| self.solids[s].body == Some(b))
                    .map(|s| self.reach[s])
                    .fold(f64::NEG_INFINITY, f64::max);
                BodySleep {
                    may: !joined
                        && !loaded
                        && body.desc.torque == Vec3::zeros()
                        && reach.is_finite(),
                    anchor: (body.state.position, body.state.orientation),
                    since: asm.time(),
                    island: None,
                    loads: (body.desc.force, body.desc.torque),
                    reach: reach.max(0.0),
                    supports: Vec::new(),
                    carried: Vec::new(),
                    own: None,
                }
            })
            .collect()
    }

    /// Whether body `b` is asleep.
    pub fn is_asleep(&self, b: usize) -> bool {
        self.sleepers.get(b).is_some_and(|s| s.island.is_some())
    }

    /// Whether body `b` is asleep on body `support` (one of its island's supports).
    fn rests_on(&self, b: usize, support: usize) -> bool {
        self.sleepers
            .get(b)
            .is_some_and(|s| s.island.is_some() && s.supports.contains(&support))
    }

    /// Whether pair `p` has nothing awake on either side (fixed solids and sleepers), or is a
    /// sleeper and a support its island rests on (still, or the sleeper would have woken):
    /// it leaves the broad and narrow phases.
    pub(super) fn dormant(&self, p: usize) -> bool {
        let (i, k) = self.pairs[p];
        let (a, b) = (self.solids[i].body, self.solids[k].body);
        let quiet = |x: Option<usize>| x.is_none_or(|b| self.is_asleep(b));
        if quiet(a) && quiet(b) {
            return true;
        }
        match (a, b) {
            (Some(a), Some(b)) => self.rests_on(a, b) || self.rests_on(b, a),
            _ => false,
        }
    }

    /// The fastest a still body's points may move: the microcollision threshold √(2gε), or
    /// 2ε per sleep time without gravity.
    fn still_ceiling(&self) -> f64 {
        let g = self.assembly.settings().gravity.norm();
        let envelope = self.settings.envelope;
        if g > 0.0 {
            (2.0 * g * envelope).sqrt()
        } else {
            2.0 * envelope / self.sleep.time
        }
    }

    /// Whether awake body `b` is still in `asm` against where it became still: every point
    /// within ε of where it was then (its centre's displacement plus its turn times its reach)
    /// and none faster than [`Self::still_ceiling`].
    fn keeps_still(&self, b: usize, asm: &Assembly) -> bool {
        let sleeper = &self.sleepers[b];
        let body = &asm.bodies[b];
        let (p, q) = (body.state.position, body.state.orientation);
        let turn = (q * sleeper.anchor.1.inverse()).angle();
        let moved = (p - sleeper.anchor.0).norm() + turn * sleeper.reach;
        let fastest = body.velocity().norm() + body.angular_velocity().norm() * sleeper.reach;
        !(moved > self.settings.envelope || fastest > self.still_ceiling())
    }

    /// Inside a step, before it is kept (`end` the state it reached): the sleeping islands
    /// with a support that is no longer still in `end`. Woken at the step's start instead of
    /// its end, their contacts with the support are back in both phases for the step taken
    /// again, so a support moving fast cannot carry its points into them unanswered.
    pub(super) fn islands_losing_support(&self, end: &Assembly) -> Vec<usize> {
        if !self.sleep.enabled {
            return Vec::new();
        }
        self.sleepers
            .iter()
            .filter(|s| s.island.is_some() && s.supports.iter().any(|&m| !self.keeps_still(m, end)))
            .filter_map(|s| s.island)
            .collect()
    }

    /// At the end of a grid step: samples stillness, wakes the islands whose supports have
    /// moved, and puts islands that have been still for the sleep time, on supports still as
    /// long, to sleep.
    pub(super) fn update_sleep(&mut self) {
        if !self.sleep.enabled {
            return;
        }
        let now = self.assembly.time();
        // Every awake body's stillness: a free body's own, a mechanism body's as a support.
        for b in 0..self.sleepers.len() {
            if self.sleepers[b].island.is_some() || self.keeps_still(b, &self.assembly) {
                continue;
            }
            let state = &self.assembly.bodies[b].state;
            self.sleepers[b].anchor = (state.position, state.orientation);
            self.sleepers[b].since = now;
        }
        let time = self.sleep.time;
        let settled = |s: &BodySleep| now - s.since >= time;
        // A sleeping island whose support is no longer still wakes, from rest.
        let moving: Vec<usize> = self
            .sleepers
            .iter()
            .filter(|s| {
                s.island.is_some() && s.supports.iter().any(|&m| !settled(&self.sleepers[m]))
            })
            .filter_map(|s| s.island)
            .collect();
        if !moving.is_empty() {
            self.wake_islands(&moving);
        }
        // Islands: bodies that may sleep joined by contacts answered within the sleep time;
        // a body that may not (a mechanism's) joins none, but supports those it touched.
        let n = self.sleepers.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut touched = Vec::new();
        // Each body's contact impulses over the sleep time.
        let mut pushed = vec![Vec3::zeros(); n];
        for hit in self.hits.iter().rev() {
            if hit.time < now - self.sleep.time {
                break;
            }
            let (a, b) = (
                self.solids[hit.solids.0].body,
                self.solids[hit.solids.1].body,
            );
            if let Some(a) = a {
                pushed[a] += hit.impulse;
            }
            if let Some(b) = b {
                pushed[b] -= hit.impulse;
            }
            if let (Some(a), Some(b)) = (a, b) {
                // The impulse acts on the first solid's body, its opposite on the second's.
                match (self.sleepers[a].may, self.sleepers[b].may) {
                    (true, true) => {
                        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                        parent[ra.max(rb)] = ra.min(rb);
                    }
                    (true, false) => touched.push((a, b, -hit.impulse, hit.point)),
                    (false, true) => touched.push((b, a, hit.impulse, hit.point)),
                    (false, false) => {}
                }
            }
        }
        let mut ready = vec![true; n];
        let mut awake = vec![false; n];
        for b in 0..n {
            let r = root(&mut parent, b);
            let s = &self.sleepers[b];
            if s.island.is_none() {
                awake[r] = true;
                if !s.may || !settled(s) {
                    ready[r] = false;
                }
            }
        }
        let mut supports: Vec<Vec<usize>> = vec![Vec::new(); n];
        let gravity = self.assembly.settings.gravity;
        // Each free body's contacts with each support: the mean force and torque over the
        // sleep time, and how much of its weight they bore.
        let mut carried: Vec<Vec<Carried>> = vec![Vec::new(); n];
        for &(free, support, impulse, point) in &touched {
            let r = root(&mut parent, free);
            if !settled(&self.sleepers[support]) {
                ready[r] = false;
            }
            if !supports[r].contains(&support) {
                supports[r].push(support);
            }
            let centre = self.assembly.bodies[support].state.position;
            let (force, torque) = (impulse / time, (point - centre).cross(&impulse) / time);
            let lift = impulse.dot(&gravity).max(0.0);
            match carried[free].iter_mut().find(|c| c.support == support) {
                Some(c) => {
                    (c.force, c.torque) = (c.force + force, c.torque + torque);
                    c.lift += lift;
                }
                None => carried[free].push(Carried {
                    support,
                    force,
                    torque,
                    lift,
                }),
            }
        }
        // At rest its contacts carry its weight: their impulses over the time sum to
        // −m g × time but for its momentum's change over the time (up to 2 m √(2gε), 3.6 % of
        // the ball's weight in the V of tests/assembly_ball_in_v.rs), so what it carries is
        // scaled to make their sum along gravity its weight. Across gravity they should sum
        // to nothing: what is left there (the same change of momentum, so a force through the
        // body's centre of mass) is taken back from each support in proportion to the weight
        // it bore. For a ball, whose contact forces all pass through its centre, what its only
        // support then carries is statics exactly: m g through the centre.
        let down = gravity.try_normalize(0.0).unwrap_or_else(Vec3::zeros);
        let mut loaded = Vec::new();
        for b in 0..n {
            let r = root(&mut parent, b);
            if ready[r] && awake[r] && self.sleepers[b].island.is_none() {
                let weight = self.assembly.bodies[b].desc.mass * gravity.norm_squared() * time;
                let measured = -pushed[b].dot(&gravity);
                if weight > 0.0 && measured > 0.0 {
                    let k = weight / measured;
                    // What its contacts, scaled, still give it across gravity.
                    let across = (pushed[b] - down * pushed[b].dot(&down)) * k;
                    for c in &mut carried[b] {
                        let extra = across * (c.lift / measured) / time;
                        let lever = self.assembly.bodies[b].state.position
                            - self.assembly.bodies[c.support].state.position;
                        c.force = c.force * k + extra;
                        c.torque = c.torque * k + lever.cross(&extra);
                    }
                }
                loaded.extend(carried[b].iter().map(|c| c.support));
                self.sleepers[b].carried = carried[b]
                    .iter()
                    .map(|c| (c.support, c.force, c.torque))
                    .collect();
                let body = &mut self.assembly.bodies[b];
                let hold = -body.desc.mass * self.assembly.settings.gravity;
                body.state.momentum = Vec3::zeros();
                body.state.angular_momentum = Vec3::zeros();
                self.sleepers[b].loads = (body.desc.force, body.desc.torque);
                body.desc.force = hold;
                body.desc.torque = Vec3::zeros();
                self.sleepers[b].island = Some(r);
                self.sleepers[b].supports = supports[r].clone();
            }
        }
        self.carry(&loaded);
    }

    /// Sets the loads of the given supports: each its own force and torque plus what the
    /// sleepers resting on it carry (exactly its own when none does).
    fn carry(&mut self, supports: &[usize]) {
        for &m in supports {
            let (mut force, mut torque) = (Vec3::zeros(), Vec3::zeros());
            let mut any = false;
            for s in &self.sleepers {
                for &(to, f, t) in &s.carried {
                    if to == m {
                        (force, torque, any) = (force + f, torque + t, true);
                    }
                }
            }
            let desc = &mut self.assembly.bodies[m].desc;
            let own = match self.sleepers[m].own {
                Some(own) => own,
                None => (desc.force, desc.torque),
            };
            if any {
                self.sleepers[m].own = Some(own);
                (desc.force, desc.torque) = (own.0 + force, own.1 + torque);
            } else {
                self.sleepers[m].own = None;
                (desc.force, desc.torque) = own;
            }
        }
    }

    /// Wakes every sleeper of the given islands, from rest: its own loads back, its still
    /// clock restarted where it is.
    pub(super) fn wake_islands(&mut self, islands: &[usize]) {
        let now = self.assembly.time();
        let mut unloaded = Vec::new();
        for (b, s) in self.sleepers.iter_mut().enumerate() {
            if s.island.is_some_and(|r| islands.contains(&r)) {
                let body = &mut self.assembly.bodies[b];
                (body.desc.force, body.desc.torque) = s.loads;
                s.island = None;
                s.supports.clear();
                unloaded.extend(s.carried.drain(..).map(|c| c.0));
                s.anchor = (body.state.position, body.state.orientation);
                s.since = now;
            }
        }
        self.carry(&unloaded);
    }

    /// Before the contacts of an instant are answered: a sleeper in contact with an awake body
    /// (other than a support its island rests on) wakes with its island. True if any woke.
    pub(super) fn wake_touched(&mut self) -> Result<bool, AssemblyError> {
        if !self.sleepers.iter().any(|s| s.island.is_some()) {
            return Ok(false);
        }
        let near = self.candidates(&self.assembly, None, 0.0, self.settings.envelope);
        let mut islands = Vec::new();
        for (p, &close) in near.iter().enumerate() {
            if !close || self.dormant(p) {
                continue;
            }
            let (i, k) = self.pairs[p];
            let (a, b) = (self.solids[i].body, self.solids[k].body);
            let (Some(a), Some(b)) = (a, b) else {
                continue;
            };
            let sleeper = match (self.is_asleep(a), self.is_asleep(b)) {
                (true, false) => a,
                (false, true) => b,
                _ => continue,
            };
            let asm = self.assembly.clone();
            if let Some(c) = self.closest(&asm, p)
                && self.in_contact(p, c.distance)
                && let Some(island) = self.sleepers[sleeper].island
            {
                islands.push(island);
            }
        }
        if islands.is_empty() {
            return Ok(false);
        }
        self.wake_islands(&islands);
        Ok(true)
    }
}
