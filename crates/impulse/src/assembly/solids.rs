//! An assembly in one world with solids: assembly bodies that carry shapes (the engine's
//! shapes, as ordinary bodies have) and fixed solids (a floor, walls) collide through the
//! engine's narrow phase (`collision::closest`: V-Clip, GJK/EPA, closest features) and its
//! collision response (`response::respond`: Mirtich's frictional impulse with restitution and
//! microcollisions, §3.3–3.5), with the assembly's collision matrix at the contact: the joints
//! answer each impulse ideally (an impulsive constraint solve, `Assembly::pair_collision_matrix`).
//! A free body of any shape is an assembly body that no joint holds.
//!
//! Contacts are found without tunnelling inside each fixed RK4 step, as the pistons' switches
//! are (`step::advance`): after a step, every pair apart at its start is advanced
//! conservatively (Mirtich §2.4) — it cannot come nearer than half the target distance before
//! the next sample, its approach bounded by the step's largest point speeds — and the first
//! time its distance falls to half the collision envelope is located to 1e-7 of the step
//! (regula falsi, Illinois);
//! the step is taken again up to the earliest such time, the contacts within the envelope that
//! approach are answered there, and the rest of the step follows. Bodies joined by a joint do
//! not collide with each other unless a pair is included (`AssemblyWithSolids::new`).

use crate::collision::manifold::manifold;
use crate::collision::{CollisionModel, NarrowStats, PairCache, closest};
use crate::dynamics::{Material, PlacedShape};
use crate::math::{Mat3, Point, Pose, Vec3, orthonormal_basis};
use crate::response::{Microcollisions, ResponseKind, RestitutionLaw, respond};

use super::materials::OwnMaterials;
use super::{Assembly, AssemblyError, step};

mod broad;
mod sleep;
mod together;

pub use sleep::SolidsSleep;

/// Sweeps over the contacts at one instant before the responses turn plainly inelastic (which
/// always converge); the world's cascades do the same (`docs/sources.md`, "Cascades").
const ELASTIC_SWEEPS: usize = 20;
/// How far from each part's extreme plane a manifold point may lie, in envelopes.
const MANIFOLD_TOLERANCE: f64 = 0.5;
/// Normal entries of the collision matrix below this fraction of the lighter body's inverse
/// mass are taken as a point the joints hold (zero but for rounding).
const RIGID: f64 = 1e-9;
/// Sweeps at one instant at most.
const MAX_SWEEPS: usize = 200;
/// How far below its start distance a pair that starts within ε/2 is next located, in ε.
const LEVEL_MARGIN: f64 = 1e-3;
/// Contact events located in one step at most.
const MAX_EVENTS: usize = 10_000;

/// Shapes fixed on an assembly body or in the world.
#[derive(Clone, Debug)]
pub struct Solid {
    /// Name (the body's, or the fixed solid's).
    pub name: String,
    /// The assembly body carrying the shapes, or `None` for a fixed solid.
    pub body: Option<usize>,
    /// The shapes, placed in the body frame (centre of mass) or, for a fixed solid, in the
    /// solid's own frame.
    pub shapes: Vec<PlacedShape>,
    /// A fixed solid's frame in the world (identity for a body's shapes).
    pub pose: Pose,
}

/// How the solids' contacts are answered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// Restitution (Stronge's law).
    pub restitution: f64,
    /// Coulomb friction.
    pub friction: f64,
    /// Collision envelope ε: solids closer than this are in contact; contacts are located when
    /// a pair's distance falls to ε/2 (as the world's time-of-impact steps aim, Mirtich §2.3).
    pub envelope: f64,
}

impl Default for ContactSettings {
    /// e = 0.9 and μ = 0 (as `[contact]` of a scene with balls), ε = 1e-3 (the world's).
    fn default() -> Self {
        Self {
            restitution: 0.9,
            friction: 0.0,
            envelope: 1e-3,
        }
    }
}

/// How the contacts of one instant are answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactSolver {
    /// Every contact touching a connected set of bodies (through joints or contacts) in one
    /// solve of all their impulses (compression with pyramid friction, Poisson restitution,
    /// microcollision rebound; `solids::together`); a lone contact pairwise.
    #[default]
    Simultaneous,
    /// Each contact alone, pair by pair in a fixed order, sweeping until none approaches
    /// (Mirtich's pairwise cascade).
    Sequential,
}

/// One contact answered.
#[derive(Clone, Debug, PartialEq)]
pub struct SolidHit {
    /// Time.
    pub time: f64,
    /// The two solids (indices into [`AssemblyWithSolids::solids`]); the impulse acts on the first.
    pub solids: (usize, usize),
    /// Contact point (world).
    pub point: Vec3,
    /// Normal, from the second solid to the first.
    pub normal: Vec3,
    /// Impulse on the first solid (world).
    pub impulse: Vec3,
    /// Whether it was a microcollision (a slow contact within the envelope, Mirtich §3.5).
    pub micro: bool,
}

/// An assembly whose bodies may carry shapes, among fixed solids, stepped with its contacts.
#[derive(Clone, Debug)]
pub struct AssemblyWithSolids {
    /// The mechanism and the free bodies.
    pub assembly: Assembly,
    solids: Vec<Solid>,
    models: Vec<CollisionModel>,
    /// Each solid's reach: the largest distance from its body's centre to its shapes.
    reach: Vec<f64>,
    /// The pairs that collide, in a fixed order.
    pairs: Vec<(usize, usize)>,
    caches: Vec<PairCache>,
    /// The distance at which each pair's next contact is located: ε/2, or for a pair that
    /// started nearer (a body resting on the floor) a hair below its start distance.
    levels: Vec<f64>,
    stats: NarrowStats,
    settings: ContactSettings,
    /// Every contact answered so far (a simultaneous solve records one hit per contact with
    /// its total impulse).
    pub hits: Vec<SolidHit>,
    /// How the contacts of one instant are answered.
    pub solver: ContactSolver,
    /// Whether pairs go through the broad phase (`solids::broad`: sweep and prune) before the
    /// narrow phase; off, every pair is queried every time (the same results, slower).
    pub broad_phase: bool,
    /// Each pair's index by its solids (`i * solids + k`, i < k; `usize::MAX`: no pair).
    pair_index: Vec<usize>,
    /// Narrow-phase queries made so far.
    narrow_queries: u64,
    /// Partial RK4 steps taken to locate contacts so far.
    trials: u64,
    /// When free bodies fall asleep (`solids::sleep`).
    pub sleep: SolidsSleep,
    /// Each body's sleep.
    sleepers: Vec<sleep::BodySleep>,
    /// Each solid's own material (without one, the settings' restitution and friction).
    materials: OwnMaterials,
}

impl AssemblyWithSolids {
    /// Puts the solids with the assembly. Every pair of solids collides except two on one body,
    /// two fixed ones, two on bodies a joint joins (unless the pair is in `include`) and the
    /// pairs in `exclude` (index pairs into `solids`). Pairs that start overlapping deeper than
    /// the envelope are refused.
    pub fn new(
        assembly: Assembly,
        solids: Vec<Solid>,
        settings: ContactSettings,
        exclude: &[(usize, usize)],
        include: &[(usize, usize)],
    ) -> Result<Self, AssemblyError> {
        let bad = |message: String| AssemblyError::Body {
            body: String::new(),
            message,
        };
        let ContactSettings {
            restitution,
            friction,
            envelope,
        } = settings;
        let valid = restitution.is_finite()
            && (0.0..=1.0).contains(&restitution)
            && friction.is_finite()
            && friction >= 0.0
            && envelope.is_finite()
            && envelope > 0.0;
        if !valid {
            return Err(bad(format!(
                "restitution must be in [0, 1], friction non-negative and the envelope positive, found {restitution}, {friction} and {envelope}"
            )));
        }
        for s in &solids {
            let body_ok = s.body.is_none_or(|b| b < assembly.bodies().len());
            if !body_ok || s.shapes.is_empty() {
                return Err(AssemblyError::Body {
                    body: s.name.clone(),
                    message: "a solid needs shapes and an existing body".into(),
                });
            }
            if s.body.is_some()
                && s.shapes
                    .iter()
                    .any(|p| matches!(p.shape, crate::geometry::Shape::HalfSpace))
            {
                return Err(AssemblyError::Body {
                    body: s.name.clone(),
                    message: "a half-space can only be fixed".into(),
                });
            }
        }
        let models: Vec<CollisionModel> = solids
            .iter()
            .map(|s| CollisionModel::from_shapes(&s.shapes))
            .collect();
        let reach = models
            .iter()
            .map(|m| m.reach_from(&Point::origin()))
            .collect();
        let joined = |a: usize, b: usize| {
            assembly
                .joints
                .iter()
                .any(|j| (j.a == a && j.b == Some(b)) || (j.a == b && j.b == Some(a)))
        };
        let listed = |list: &[(usize, usize)], i: usize, k: usize| {
            list.iter()
                .any(|&(x, y)| (x == i && y == k) || (x == k && y == i))
        };
        let mut pairs = Vec::new();
        for i in 0..solids.len() {
            for k in i + 1..solids.len() {
                let keep = match (solids[i].body, solids[k].body) {
                    (None, None) => false,
                    (Some(a), Some(b)) if a == b => false,
                    (Some(a), Some(b)) if joined(a, b) => listed(include, i, k),
                    _ => true,
                };
                if keep && !listed(exclude, i, k) {
                    pairs.push((i, k));
                }
            }
        }
        let count = solids.len();
        let caches = vec![PairCache::default(); pairs.len()];
        let levels = vec![0.5 * envelope; pairs.len()];
        let mut world = Self {
            assembly,
            solids,
            models,
            reach,
            pairs,
            caches,
            levels,
            stats: NarrowStats::default(),
            settings,
            hits: Vec::new(),
            solver: ContactSolver::default(),
            broad_phase: true,
            pair_index: Vec::new(),
            narrow_queries: 0,
            trials: 0,
            sleep: SolidsSleep::default(),
            sleepers: Vec::new(),
            materials: OwnMaterials::new("solid", count),
        };
        world.sleepers = world.initial_sleep();
        world.pair_index = vec![usize::MAX; count * count];
        for (p, &(i, k)) in world.pairs.iter().enumerate() {
            world.pair_index[i * count + k] = p;
        }
        for p in 0..world.pairs.len() {
            let asm = world.assembly.clone();
            let Some(c) = world.closest(&asm, p) else {
                continue;
            };
            if c.distance < -envelope {
                let (i, k) = world.pairs[p];
                return Err(AssemblyError::Overlap {
                    a: world.solids[i].name.clone(),
                    b: world.solids[k].name.clone(),
                    depth: -c.distance,
                });
            }
            world.levels[p] = world.levels[p].min(c.distance - LEVEL_MARGIN * envelope);
        }
        Ok(world)
    }

    /// The solids.
    pub fn solids(&self) -> &[Solid] {
        &self.solids
    }
    /// The colliding pairs (indices into [`Self::solids`]).
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }
    /// The contact settings.
    pub fn settings(&self) -> &ContactSettings {
        &self.settings
    }

    /// Gives solid `s` its own friction and restitution (without one, a solid has the
    /// settings' `friction` and `restitution`).
    pub fn set_material(&mut self, s: usize, material: Material) -> Result<(), AssemblyError> {
        let solids = &self.solids;
        self.materials.set(s, |s| solids[s].name.clone(), material)
    }

    /// Solid `s`'s friction and restitution: its own, or the settings'.
    pub fn material(&self, s: usize) -> Material {
        self.materials
            .get(s, self.settings.friction, self.settings.restitution)
    }

    /// The friction and restitution of a contact between solids `i` and `k`: the mean of
    /// theirs, as between two bodies of the world with no pair override
    /// (`Material::mean`). Two solids with no material of their own get the settings'
    /// values exactly (½(x + x) = x).
    pub fn contact_material(&self, i: usize, k: usize) -> Material {
        self.material(i).mean(&self.material(k))
    }
    /// Current time.
    pub fn time(&self) -> f64 {
        self.assembly.time()
    }

    /// Solid `s`'s frame in the world now.
    pub fn pose(&self, s: usize) -> Pose {
        self.pose_in(&self.assembly, s)
    }

    fn pose_in(&self, asm: &Assembly, s: usize) -> Pose {
        match self.solids[s].body {
            Some(b) => asm.bodies[b].pose(),
            None => self.solids[s].pose,
        }
    }

    /// The signed distance between the two solids of pair `p` now (negative: overlapping).
    pub fn distance(&mut self, p: usize) -> Option<f64> {
        let (i, k) = self.pairs[p];
        let (pose_i, pose_k) = (self.pose(i), self.pose(k));
        self.closest_at(p, &pose_i, &pose_k).map(|c| c.distance)
    }

    /// The least signed distance over every colliding pair now (infinity without pairs).
    pub fn least_distance(&mut self) -> f64 {
        (0..self.pairs.len())
            .filter_map(|p| self.distance(p))
            .fold(f64::INFINITY, f64::min)
    }

    /// Narrow-phase queries made so far (the broad phase spares the rest).
    pub fn narrow_queries(&self) -> u64 {
        self.narrow_queries
    }

    /// Partial RK4 steps taken so far to locate contacts (of the whole assembly, or of a
    /// pair's bodies alone).
    pub fn trial_steps(&self) -> u64 {
        self.trials
    }

    fn closest(&mut self, asm: &Assembly, p: usize) -> Option<crate::collision::Closest> {
        let (i, k) = self.pairs[p];
        let (pi, pk) = (self.pose_in(asm, i), self.pose_in(asm, k));
        self.closest_at(p, &pi, &pk)
    }

    /// Pair `p`'s closest points with its solids at `pi` and `pk`.
    fn closest_at(&mut self, p: usize, pi: &Pose, pk: &Pose) -> Option<crate::collision::Closest> {
        self.narrow_queries += 1;
        let (i, k) = self.pairs[p];
        closest(
            &self.models[i],
            pi,
            &self.models[k],
            pk,
            &mut self.caches[p],
            &mut self.stats,
        )
    }

    /// Steps on the assembly's grid to the last grid time at or before `t`, locating and
    /// answering the contacts inside each step.
    pub fn advance_to(&mut self, t: f64) -> Result<(), AssemblyError> {
        let sleep_time = self.sleep.time;
        if self.sleep.enabled && !(sleep_time.is_finite() && sleep_time > 0.0) {
            return Err(AssemblyError::Body {
                body: String::new(),
                message: format!("the sleep time must be positive, found {sleep_time}"),
            });
        }
        let h = self.assembly.settings().step;
        loop {
            let next = (self.assembly.steps() + 1) as f64 * h;
            if next > t + 1e-6 * h {
                return Ok(());
            }
            self.step_to(next)?;
        }
    }

    /// One grid step to `end`, cut at every contact found inside it.
    fn step_to(&mut self, end: f64) -> Result<(), AssemblyError> {
        let steps = self.assembly.steps;
        let h = end - self.assembly.time;
        for _ in 0..MAX_EVENTS {
            self.respond()?;
            if end - self.assembly.time <= 1e-12 * h {
                break;
            }
            let saved = self.assembly.clone();
            step::advance(&mut self.assembly, end)?;
            // A support that would stop being still in this step wakes its sleepers at the
            // step's start, and the step is taken again with them awake (`solids::sleep`).
            let losing = self.islands_losing_support(&self.assembly);
            if !losing.is_empty() {
                self.assembly = saved;
                self.wake_islands(&losing);
                continue;
            }
            match self.first_contact(&saved, end)? {
                None => break,
                Some(tc) => {
                    self.assembly = saved;
                    step::advance(&mut self.assembly, tc)?;
                }
            }
        }
        self.assembly.steps = steps + 1;
        self.respond()?;
        self.update_sleep();
        Ok(())
    }

    /// Pair `p`'s closest points in the state `from` advanced to `t` (a partial step, counted
    /// in `trials`): a partial step of the pair's bodies alone where each moves on its own
    /// ([`Assembly::moves_alone`]: the same state as the whole assembly's step gives them, so a
    /// field of n crates locates a contact at the cost of one pair, not of n bodies), else of
    /// the whole assembly.
    fn closest_after(
        &mut self,
        from: &Assembly,
        t: f64,
        p: usize,
    ) -> Result<Option<crate::collision::Closest>, AssemblyError> {
        self.trials += 1;
        let (i, k) = self.pairs[p];
        let bodies: Vec<usize> = [self.solids[i].body, self.solids[k].body]
            .into_iter()
            .flatten()
            .collect();
        let Some((mut alone, keep)) = from.alone(&bodies) else {
            let state = Self::trial(from, t)?;
            return Ok(self.closest(&state, p));
        };
        if t > alone.time {
            step::advance(&mut alone, t)?;
        }
        let pose = |s: usize| match self.solids[s].body.map(|b| keep.binary_search(&b)) {
            Some(Ok(index)) => alone.bodies[index].pose(),
            _ => self.solids[s].pose,
        };
        let (pi, pk) = (pose(i), pose(k));
        Ok(self.closest_at(p, &pi, &pk))
    }

    /// The state `from` advanced to time `t` (a partial step).
    fn trial(from: &Assembly, t: f64) -> Result<Assembly, AssemblyError> {
        let mut a = from.clone();
        if t > a.time {
            step::advance(&mut a, t)?;
        }
        Ok(a)
    }

    /// Bound on the speed of any point of solid `s` over the step from `a` to `b`: the larger
    /// end speed plus the change (the motion is smooth within a step), for the centre and for
    /// the turning at the solid's reach.
    fn speed_bound(&self, s: usize, a: &Assembly, b: &Assembly) -> f64 {
        let Some(body) = self.solids[s].body else {
            return 0.0;
        };
        let (x, y) = (&a.bodies[body], &b.bodies[body]);
        let (v0, v1) = (x.velocity(), y.velocity());
        let (w0, w1) = (x.angular_velocity(), y.angular_velocity());
        v0.norm().max(v1.norm())
            + (v1 - v0).norm()
            + (w0.norm().max(w1.norm()) + (w1 - w0).norm()) * self.reach[s]
    }

    /// The earliest time in the step from `saved` to `end` (whose end state is the current
    /// assembly) at which a pair comes to its level: ε/2 for a pair apart beyond it at the
    /// start (found by conservative advancement, so that no pair passes through another), or
    /// for a pair that started nearer and is above its level now, that level (located when
    /// the step ends below it).
    fn first_contact(&mut self, saved: &Assembly, end: f64) -> Result<Option<f64>, AssemblyError> {
        let target = 0.5 * self.settings.envelope;
        let t0 = saved.time;
        let end_state = self.assembly.clone();
        let mut first: Option<f64> = None;
        // The broad phase: a pair it leaves out is apart beyond ε/2 at the start by more than
        // its approach over the whole step can close (what the test below would find).
        let near = self.candidates(saved, Some(&end_state), end - t0, target);
        for (p, &close) in near.iter().enumerate() {
            // A pair of sleepers and fixed solids moves nowhere (its level is kept for when
            // it wakes).
            if self.dormant(p) {
                continue;
            }
            if !close {
                self.levels[p] = target;
                continue;
            }
            let Some(d0) = self.closest(saved, p).map(|c| c.distance) else {
                continue;
            };
            if d0 > target {
                self.levels[p] = target;
            }
            let level = self.levels[p];
            if d0 <= level {
                continue;
            }
            let limit = first.unwrap_or(end);
            let found = if d0 > target {
                let (i, k) = self.pairs[p];
                let speed =
                    self.speed_bound(i, saved, &end_state) + self.speed_bound(k, saved, &end_state);
                if d0 - speed * (limit - t0) > target {
                    continue;
                }
                // Conservative advancement: from a sample at distance d the pair cannot come
                // nearer than ε/4 before (d − ε/4)/speed, so no pair passes through another
                // between samples.
                let (mut before, mut d) = (t0, d0);
                let mut found = None;
                while before < limit {
                    let after = (before + (d - 0.5 * target) / speed).min(limit);
                    let now = if after == end {
                        self.closest(&end_state, p)
                    } else {
                        self.closest_after(saved, after, p)?
                    };
                    let Some(da) = now.map(|c| c.distance) else {
                        break;
                    };
                    if da <= target {
                        found = Some(self.locate(saved, p, (before, d), (after, da), target)?);
                        break;
                    }
                    (before, d) = (after, da);
                }
                found
            } else {
                // At the step's end the state is at hand.
                let now = if limit == end {
                    self.closest(&end_state, p)
                } else {
                    self.closest_after(saved, limit, p)?
                };
                match now {
                    Some(c) if c.distance <= level => {
                        Some(self.locate(saved, p, (t0, d0), (limit, c.distance), level)?)
                    }
                    _ => None,
                }
            };
            if let Some(tc) = found
                && first.is_none_or(|f| tc < f)
            {
                first = Some(tc);
            }
        }
        Ok(first)
    }

    /// A time in `(a, b]` at which pair `p`'s distance is at most `target`, within 1e-7 of
    /// the step of the latest time at which it is above it, given the distances at `a`
    /// (above) and `b` (not): the bracket is narrowed by the Illinois variant of regula
    /// falsi (a secant through the bracket's ends, the end kept twice running weighted by ½)
    /// rather than by halving, each trial point kept at least a quarter of the tolerance
    /// inside the bracket, so that a secant landing next to one end ends the search with the
    /// next trial. Each trial is a partial RK4 step (of the pair's bodies alone where they
    /// move on their own, see [`Self::closest_after`]): halving took
    /// ~23 of them per contact, this ~5 (`docs/sources.md`, "Assemblies in one world").
    fn locate(
        &mut self,
        saved: &Assembly,
        p: usize,
        (mut a, da): (f64, f64),
        (mut b, db): (f64, f64),
        target: f64,
    ) -> Result<f64, AssemblyError> {
        let tolerance = 1e-7 * self.assembly.settings().step;
        let (mut fa, mut fb) = (da - target, (db - target).min(0.0));
        // Which end the last trial replaced (+1: a, −1: b), and the bracket two trials ago.
        let mut side = 0;
        let mut widths = [f64::INFINITY; 2];
        while b - a > tolerance {
            let width = b - a;
            let margin = 0.25 * tolerance;
            let secant = b - fb * width / (fb - fa);
            // Halve when the secant is undefined or the bracket has not halved in two trials
            // (a safeguard regula falsi needs; Illinois rarely triggers it).
            let m = if !secant.is_finite() || width > 0.5 * widths[0] {
                0.5 * (a + b)
            } else {
                secant.clamp(a + margin, b - margin)
            };
            widths = [widths[1], width];
            match self.closest_after(saved, m, p)? {
                Some(c) if c.distance > target => {
                    (a, fa) = (m, c.distance - target);
                    if side == 1 {
                        fb *= 0.5;
                    }
                    side = 1;
                }
                found => {
                    let fm = found.map_or(0.0, |c| c.distance - target);
                    (b, fb) = (m, fm);
                    if side == -1 {
                        fa *= 0.5;
                    }
                    side = -1;
                }
            }
        }
        Ok(b)
    }

    /// Answers every pair within the envelope that approaches — together with every contact
    /// of its connected set of bodies (`ContactSolver::Simultaneous`), or pair by pair in a
    /// fixed order (`Sequential`) — sweeping until none does (Mirtich's cascade at one
    /// instant); after `ELASTIC_SWEEPS` sweeps the responses are plainly inelastic.
    fn respond(&mut self) -> Result<(), AssemblyError> {
        // A sleeper something touches wakes first (`solids::sleep`).
        self.wake_touched()?;
        // Impulses move nothing: the pairs the broad phase leaves out (beyond the envelope)
        // stay out over the sweeps, and so do pairs with nothing awake.
        let mut near = self.candidates(&self.assembly, None, 0.0, self.settings.envelope);
        for (p, flag) in near.iter_mut().enumerate() {
            *flag &= !self.dormant(p);
        }
        for sweep in 0..MAX_SWEEPS {
            let inelastic = sweep >= ELASTIC_SWEEPS;
            let mut any = false;
            match self.solver {
                ContactSolver::Simultaneous => any |= self.respond_together(&near, inelastic)?,
                ContactSolver::Sequential => {
                    for (p, &close) in near.iter().enumerate() {
                        if close {
                            any |= self.respond_pair(p, inelastic)?;
                        }
                    }
                }
            }
            if !any {
                return Ok(());
            }
        }
        let (i, k) = self.pairs[0];
        Err(AssemblyError::Contact {
            time: self.time(),
            a: self.solids[i].name.clone(),
            b: self.solids[k].name.clone(),
            message: format!("contacts still approach after {MAX_SWEEPS} sweeps at one instant"),
        })
    }

    /// Whether pair `p` at `distance` is in contact: within the envelope and at its level
    /// (where its contact was located, or below it after a step that ended there), up to the
    /// level's margin. The margin is widened by 1e-9 of itself so that a pair still at the
    /// distance its level was set from (`distance − margin`, rounded) counts.
    fn in_contact(&self, p: usize, distance: f64) -> bool {
        let envelope = self.settings.envelope;
        distance < envelope && distance <= self.levels[p] + LEVEL_MARGIN * envelope * (1.0 + 1e-9)
    }

    /// Answers pair `p` if it is within the envelope and its contact manifold
    /// (`collision::manifold`: a box lying on a face touches at its corners, not at one point)
    /// approaches; true if it did.
    fn respond_pair(&mut self, p: usize, inelastic: bool) -> Result<bool, AssemblyError> {
        let (i, k) = self.pairs[p];
        let (pose_i, pose_k) = (self.pose(i), self.pose(k));
        let Some(c) = self.closest_at(p, &pose_i, &pose_k) else {
            return Ok(false);
        };
        // Only a pair at its level (where its contact was located, or below it after a step
        // that ended there) is in contact: answering every approaching pair anywhere in the
        // envelope lifted each hop of a resting crate higher, until it hovered at ε.
        if !self.in_contact(p, c.distance) {
            return Ok(false);
        }
        let (part_i, part_k) = (
            &self.models[i].parts[c.parts.0],
            &self.models[k].parts[c.parts.1],
        );
        let points = manifold(
            &part_i.convex,
            &(pose_i * part_i.pose),
            &part_k.convex,
            &(pose_k * part_k.pose),
            &c,
            MANIFOLD_TOLERANCE * self.settings.envelope,
        );
        // The points that approach are answered by one impulse at their centroid: a box lying
        // flat on the floor is pushed through its face's centre, not tipped corner by corner
        // (answered one corner at a time, resting crates crept and rose above the envelope);
        // when the centroid does not approach, the fastest-approaching point is answered.
        let n = c.normal;
        let velocity = |body: Option<usize>, q: &Vec3| {
            body.map_or(Vec3::zeros(), |b| self.assembly.bodies[b].point_velocity(q))
        };
        let (a, b) = (self.solids[i].body, self.solids[k].body);
        let approach = |q: &Vec3| (velocity(a, q) - velocity(b, q)).dot(&n);
        let closing: Vec<(Vec3, f64)> = points
            .iter()
            .map(|q| (q.coords, approach(&q.coords)))
            .filter(|(_, u)| *u < 0.0)
            .collect();
        if closing.is_empty() {
            return Ok(false);
        }
        let centroid = closing.iter().map(|(q, _)| q).sum::<Vec3>() / closing.len() as f64;
        if self.respond_point(p, &c, &centroid, inelastic)? {
            return Ok(true);
        }
        let fastest = closing
            .iter()
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(q, _)| *q)
            .unwrap_or(centroid);
        self.respond_point(p, &c, &fastest, inelastic)
    }

    /// Answers pair `p` at `point` (normal and distance from `c`) if it approaches there.
    fn respond_point(
        &mut self,
        p: usize,
        c: &crate::collision::Closest,
        point: &Vec3,
        inelastic: bool,
    ) -> Result<bool, AssemblyError> {
        let s = self.settings;
        let (i, k) = self.pairs[p];
        let (a, b) = (self.solids[i].body, self.solids[k].body);
        let material = self.contact_material(i, k);
        let point = *point;
        let n = c.normal;
        let velocity = |body: Option<usize>| {
            body.map_or(Vec3::zeros(), |b| {
                self.assembly.bodies[b].point_velocity(&point)
            })
        };
        let u = velocity(a) - velocity(b);
        if u.dot(&n) >= 0.0 {
            return Ok(false);
        }
        let k_world = self.assembly.pair_collision_matrix(a, b, &point)?;
        // Collision frame: z along the normal (Mirtich §3.2).
        let (t1, t2) = orthonormal_basis(&n);
        let frame = Mat3::from_columns(&[t1, t2, n]);
        let k_local = frame.transpose() * k_world * frame;
        let u_local = frame.transpose() * u;
        // A point the joints hold along the normal (a plank's edge at its hinge) cannot
        // approach: its normal entry of K is rounding, and its "approach" too.
        let scale = [a, b]
            .iter()
            .flatten()
            .map(|&i| 1.0 / self.assembly.bodies[i].mass())
            .fold(0.0, f64::max);
        if k_local[(2, 2)] <= RIGID * scale {
            return Ok(false);
        }
        let g = self.assembly.settings().gravity;
        let micro = (g.norm() > 0.0 && !inelastic).then(|| {
            // As the world's (`world::respond`): threshold √(2gε), a rebound of ¼ the
            // threshold scaled by √cos of the normal's angle to gravity. Without the world's
            // boost towards e = 5 at the bottom of the envelope: contacts here are located at
            // their level (a body resting on the floor from the start sits at the bottom), and
            // a boost there pumped a hinged plank lying on the floor 2.5 cm up in 2 s.
            let threshold_speed = (2.0 * g.norm() * s.envelope).sqrt();
            let closing = (g.dot(&n) / g.norm()).abs();
            Microcollisions {
                threshold_speed,
                epsilon: s.envelope,
                max_restitution: material.restitution,
                rebound_speed: 0.25 * threshold_speed * closing.sqrt(),
                settling: None,
            }
        });
        let e = if inelastic { 0.0 } else { material.restitution };
        let (outcome, kind) = respond(
            &k_local,
            &u_local,
            material.friction,
            e,
            RestitutionLaw::Stronge,
            c.distance,
            micro.as_ref(),
        );
        if outcome.out_of_steps {
            return Err(AssemblyError::Contact {
                time: self.time(),
                a: self.solids[i].name.clone(),
                b: self.solids[k].name.clone(),
                message: "the collision integration ran out of steps (a stiff collision)".into(),
            });
        }
        let impulse = frame * outcome.impulse;
        self.assembly.apply_pair_impulse(a, b, &point, &impulse)?;
        self.hits.push(SolidHit {
            time: self.time(),
            solids: (i, k),
            point,
            normal: n,
            impulse,
            micro: kind != ResponseKind::Collision,
        });
        Ok(true)
    }
}

impl Assembly {
    /// Applies `impulse` at world point `point` to body `a` and its opposite to body `b`
    /// (`None`: the fixed world); the joints' impulsive reactions follow, as in
    /// [`Assembly::apply_impulse`].
    pub(crate) fn apply_pair_impulse(
        &mut self,
        a: Option<usize>,
        b: Option<usize>,
        point: &Vec3,
        impulse: &Vec3,
    ) -> Result<(), AssemblyError> {
        for (body, p) in [(a, *impulse), (b, -impulse)] {
            if let Some(body) = body {
                let s = &mut self.bodies[body].state;
                s.momentum += p;
                s.angular_momentum += (point - s.position).cross(&p);
            }
        }
        self.project_velocities()
    }

    /// The collision matrix of a contact at `point` between body `a` and body `b` (`None`: the
    /// fixed world): the change of the relative velocity `v_a − v_b` there per unit impulse
    /// `+p` on A and `−p` on B, joints answering. When a chain of joints links A and B this is
    /// not the sum of their own matrices, and only this is right.
    pub(crate) fn pair_collision_matrix(
        &self,
        a: Option<usize>,
        b: Option<usize>,
        point: &Vec3,
    ) -> Result<Mat3, AssemblyError> {
        // Bodies that move on their own are probed alone: the same velocities to the bit
        // (no joint answers them), without copying and projecting the whole assembly.
        let bodies: Vec<usize> = [a, b].into_iter().flatten().collect();
        match self.alone(&bodies) {
            Some((alone, keep)) => {
                let local = |x: Option<usize>| x.and_then(|x| keep.binary_search(&x).ok());
                alone.probe_collision_matrix(local(a), local(b), point)
            }
            None => self.probe_collision_matrix(a, b, point),
        }
    }

    /// [`Assembly::pair_collision_matrix`] by three unit impulses on copies of this assembly.
    pub(super) fn probe_collision_matrix(
        &self,
        a: Option<usize>,
        b: Option<usize>,
        point: &Vec3,
    ) -> Result<Mat3, AssemblyError> {
        let relative = |asm: &Assembly| {
            let v = |body: Option<usize>| {
                body.map_or(Vec3::zeros(), |i| asm.bodies[i].point_velocity(point))
            };
            v(a) - v(b)
        };
        let mut base = self.clone();
        base.project_velocities()?;
        let u0 = relative(&base);
        let mut k = Mat3::zeros();
        for axis in 0..3 {
            let mut probe = self.clone();
            probe.apply_pair_impulse(a, b, point, &Vec3::ith(axis, 1.0))?;
            k.set_column(axis, &(relative(&probe) - u0));
        }
        Ok((k + k.transpose()) * 0.5)
    }
}
