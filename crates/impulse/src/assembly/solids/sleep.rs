//! Sleep for the free bodies of an assembly among solids (issue 36), after the world's
//! (`world::sleep`): resting contact by impulses never ends — a crate on the floor takes a
//! microcollision every few steps, each located by partial steps of the whole assembly — so a
//! free body that has stayed still long enough, with everything it touched, is held at rest
//! until something touches it.
//!
//! - **May sleep**: a body no joint and no load holds, without an applied torque, carrying
//!   shapes (the mechanism's bodies never sleep).
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
//! - **Waking**: a pair of a sleeper and an awake body in contact at an instant wakes the
//!   sleeper's island, from rest, before the contacts are answered; the still clocks restart.

use crate::math::{Quat, Vec3};

use super::super::AssemblyError;
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
                }
            })
            .collect()
    }

    /// Whether body `b` is asleep.
    pub fn is_asleep(&self, b: usize) -> bool {
        self.sleepers.get(b).is_some_and(|s| s.island.is_some())
    }

    /// Whether pair `p` has nothing awake on either side (fixed solids and sleepers): it
    /// leaves the broad and narrow phases.
    pub(super) fn dormant(&self, p: usize) -> bool {
        let (i, k) = self.pairs[p];
        let quiet = |s: usize| self.solids[s].body.is_none_or(|b| self.is_asleep(b));
        quiet(i) && quiet(k)
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

    /// At the end of a grid step: samples stillness, and puts islands that have been still
    /// for the sleep time to sleep.
    pub(super) fn update_sleep(&mut self) {
        if !self.sleep.enabled {
            return;
        }
        let now = self.assembly.time();
        let drift = self.settings.envelope;
        let ceiling = self.still_ceiling();
        for (b, sleeper) in self.sleepers.iter_mut().enumerate() {
            if !sleeper.may || sleeper.island.is_some() {
                continue;
            }
            let body = &self.assembly.bodies[b];
            let (p, q) = (body.state.position, body.state.orientation);
            let turn = (q * sleeper.anchor.1.inverse()).angle();
            let moved = (p - sleeper.anchor.0).norm() + turn * sleeper.reach;
            let fastest = body.velocity().norm() + body.angular_velocity().norm() * sleeper.reach;
            if moved > drift || fastest > ceiling {
                sleeper.anchor = (p, q);
                sleeper.since = now;
            }
        }
        // Islands: bodies joined by contacts answered within the sleep time.
        let n = self.sleepers.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for hit in self.hits.iter().rev() {
            if hit.time < now - self.sleep.time {
                break;
            }
            let (a, b) = (
                self.solids[hit.solids.0].body,
                self.solids[hit.solids.1].body,
            );
            if let (Some(a), Some(b)) = (a, b) {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        let mut ready = vec![true; n];
        let mut awake = vec![false; n];
        for b in 0..n {
            let r = root(&mut parent, b);
            let s = &self.sleepers[b];
            if s.island.is_none() {
                awake[r] = true;
                if !s.may || now - s.since < self.sleep.time {
                    ready[r] = false;
                }
            }
        }
        for b in 0..n {
            let r = root(&mut parent, b);
            if ready[r] && awake[r] && self.sleepers[b].island.is_none() {
                let body = &mut self.assembly.bodies[b];
                let hold = -body.desc.mass * self.assembly.settings.gravity;
                body.state.momentum = Vec3::zeros();
                body.state.angular_momentum = Vec3::zeros();
                self.sleepers[b].loads = (body.desc.force, body.desc.torque);
                body.desc.force = hold;
                body.desc.torque = Vec3::zeros();
                self.sleepers[b].island = Some(r);
            }
        }
    }

    /// Before the contacts of an instant are answered: a sleeper in contact with an awake body
    /// wakes with its island. True if any woke.
    pub(super) fn wake_touched(&mut self) -> Result<bool, AssemblyError> {
        if !self.sleepers.iter().any(|s| s.island.is_some()) {
            return Ok(false);
        }
        let near = self.candidates(&self.assembly, None, 0.0, self.settings.envelope);
        let mut islands = Vec::new();
        for (p, &close) in near.iter().enumerate() {
            if !close {
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
        let now = self.assembly.time();
        for (b, s) in self.sleepers.iter_mut().enumerate() {
            if s.island.is_some_and(|r| islands.contains(&r)) {
                let body = &mut self.assembly.bodies[b];
                (body.desc.force, body.desc.torque) = s.loads;
                s.island = None;
                s.anchor = (body.state.position, body.state.orientation);
                s.since = now;
            }
        }
        Ok(true)
    }
}
