//! The event loop of impulse-based simulation (Mirtich §2.3–2.4, §3.2).
//!
//! Every pair of bodies that could meet soon has an entry in the collision heap, timed at a
//! conservative lower bound on when it could next come within the collision envelope. The loop
//! takes the earliest entry, samples the two bodies at that time, measures their distance, and —
//! if they are within the envelope and approaching — applies a frictional collision impulse
//! (or a microcollision near rest). Either way it gives the pair a new time from the
//! time-of-impact bound. An impulse ends the two bodies' free flights: their swept boxes are
//! recomputed and every heap pair involving them is checked again at once.
//!
//! Which pairs are in the heap is decided by the broad phase on boxes swept over *box periods*:
//! at each period boundary every moving body's box over the coming period is recomputed, new
//! candidate pairs enter the heap, and pairs that stopped being candidates leave it when they
//! next come up (the thesis's hysteresis, Fig. 2.15). Bodies with a half-space (the ground) are
//! unbounded: they pair with every other body.

use super::{CollisionEvent, SimulationError, WorldSettings};
use crate::collision::broad::{
    BroadPhase, FastMap, FastSet, HierarchicalHash, Pair, SweepAndPrune, pair,
};
use crate::collision::heap::EventHeap;
use crate::collision::toi::{MotionBound, ballistic_swept_box, energy_bound, next_check_delay};
use crate::collision::{CollisionModel, NarrowStats, PairCache, closest};
use crate::dynamics::{BodyId, Material, MotionType, RigidBody};
use crate::geometry::Aabb;
use crate::math::{Mat3, Point, Vec3, orthonormal_basis};
use crate::response::{Microcollisions, ResponseKind, body_collision_matrix, respond};

/// Which broad phase decides the candidate pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BroadPhaseKind {
    /// Mirtich's hierarchical spatial hash (§2.4): no bad cases; the default.
    #[default]
    HierarchicalHash,
    /// Sweep and prune (Baraff §5.3): faster on scattered bodies, quadratic on clustered ones.
    SweepAndPrune,
}

/// Heap events. At equal times, box refreshes come first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Event {
    BoxRefresh,
    Pair(usize, usize),
}

/// Counts of what the loop did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopCounters {
    /// Pair checks (narrow-phase queries between bodies).
    pub collision_checks: u64,
    /// Events taken from the heap.
    pub heap_events: u64,
    /// Pairs that became broad-phase candidates.
    pub broad_phase_pairs: u64,
    /// Box-period refreshes.
    pub box_refreshes: u64,
    /// Ordinary collisions.
    pub collisions: u64,
    /// Microcollisions (reversals and boosted collisions).
    pub microcollisions: u64,
}

/// The collision-detection and response state of a world.
pub(crate) struct Collisions {
    started: bool,
    models: Vec<CollisionModel>,
    /// How far each body's points reach from the point its motion is described about (centre
    /// of mass for dynamic bodies, model origin for kinematic ones).
    reach: Vec<f64>,
    /// How fast rotation about that point can move the body's supporting planes, per unit
    /// angular speed (the core's reach for sphere-swept parts).
    spin_reach: Vec<f64>,
    /// Bodies with a half-space: paired with every other body.
    unbounded: Vec<bool>,
    broad: Box<dyn BroadPhase + Send + Sync>,
    heap: EventHeap<Event>,
    caches: FastMap<Pair, PairCache>,
    /// The heap pairs of each body.
    pairs_of: Vec<FastSet<Pair>>,
    /// Start of the first box period, and the index of the current one: period k ends at
    /// `period_origin + (k + 1)·box_period`, computed afresh (never accumulated).
    period_origin: f64,
    period_index: u64,
    /// End of the current box period.
    period_end: f64,
    /// Responses at the current instant, to stop a cascade that would never end.
    instant: (f64, u64),
    pub counters: LoopCounters,
    pub narrow: NarrowStats,
    pub max_penetration: f64,
    pub events: Vec<CollisionEvent>,
}

impl std::fmt::Debug for Collisions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collisions")
            .field("started", &self.started)
            .field("heap_entries", &self.heap.len())
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Collisions {
    pub fn new() -> Self {
        Self {
            started: false,
            models: Vec::new(),
            reach: Vec::new(),
            spin_reach: Vec::new(),
            unbounded: Vec::new(),
            broad: Box::new(HierarchicalHash::new()),
            heap: EventHeap::new(),
            caches: FastMap::default(),
            pairs_of: Vec::new(),
            period_origin: 0.0,
            period_index: 0,
            period_end: 0.0,
            instant: (f64::NAN, 0),
            counters: LoopCounters::default(),
            narrow: NarrowStats::default(),
            max_penetration: 0.0,
            events: Vec::new(),
        }
    }

    /// Forget everything (bodies were added); rebuilt at the next advance.
    pub fn invalidate(&mut self) {
        self.started = false;
    }

    pub fn started(&self) -> bool {
        self.started
    }

    /// Builds models, boxes and the heap at time `t` (bodies already sampled at `t`).
    pub fn start(
        &mut self,
        t: f64,
        bodies: &[RigidBody],
        settings: &WorldSettings,
    ) -> Result<(), SimulationError> {
        self.models = bodies
            .iter()
            .map(|b| CollisionModel::from_shapes(b.shapes()))
            .collect();
        let centre = |b: &RigidBody| match b.motion() {
            MotionType::Dynamic => b.mass_properties().center_of_mass,
            _ => Point::origin(),
        };
        self.reach = bodies
            .iter()
            .zip(&self.models)
            .map(|(b, m)| m.reach_from(&centre(b)))
            .collect();
        self.spin_reach = bodies
            .iter()
            .zip(&self.models)
            .map(|(b, m)| m.spin_reach_from(&centre(b)))
            .collect();
        self.unbounded = self
            .models
            .iter()
            .map(|m| !m.half_spaces.is_empty())
            .collect();
        self.broad = match settings.broad_phase {
            BroadPhaseKind::HierarchicalHash => Box::new(HierarchicalHash::new()),
            BroadPhaseKind::SweepAndPrune => Box::new(SweepAndPrune::new()),
        };
        self.heap = EventHeap::new();
        self.caches = FastMap::default();
        self.pairs_of = vec![FastSet::default(); bodies.len()];
        self.period_origin = t;
        self.period_index = 0;
        let period_end = t + settings.box_period;
        for i in 0..bodies.len() {
            if !self.unbounded[i] && self.models[i].root().is_some() {
                let aabb = self.checked_swept_box(i, bodies, t, period_end)?;
                self.broad.set(i, aabb);
            }
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            self.schedule(p, t, bodies);
        }
        for i in 0..bodies.len() {
            if self.unbounded[i] {
                for j in 0..bodies.len() {
                    if j != i {
                        self.schedule(pair(i, j), t, bodies);
                    }
                }
            }
        }
        self.period_end = period_end;
        self.heap.set(Event::BoxRefresh, period_end);
        self.started = true;
        Ok(())
    }

    /// Time of the next event.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|(t, _)| t)
    }

    /// Processes the next event.
    pub fn process_next(&mut self, world: &mut Bodies<'_>) -> Result<(), SimulationError> {
        let Some((t, event)) = self.heap.pop() else {
            return Ok(());
        };
        self.counters.heap_events += 1;
        match event {
            Event::BoxRefresh => self.refresh_boxes(t, world),
            Event::Pair(a, b) => {
                let p = (a, b);
                for body in [a, b] {
                    self.pairs_of[body].remove(&p);
                }
                self.check_pair(p, t, world)
            }
        }
    }

    fn eligible(bodies: &[RigidBody], p: Pair) -> bool {
        bodies[p.0].is_dynamic() || bodies[p.1].is_dynamic()
    }

    fn schedule(&mut self, p: Pair, time: f64, bodies: &[RigidBody]) {
        if !Self::eligible(bodies, p) {
            return;
        }
        self.heap.set(Event::Pair(p.0, p.1), time);
        self.pairs_of[p.0].insert(p);
        self.pairs_of[p.1].insert(p);
    }

    fn is_candidate(&self, p: Pair) -> bool {
        self.unbounded[p.0] || self.unbounded[p.1] || self.broad.is_candidate(p)
    }

    /// Box swept by body `i` (sampled at time `from`) until `until`, which must be finite: a
    /// motion too large to bound stops the run.
    fn checked_swept_box(
        &self,
        i: usize,
        bodies: &[RigidBody],
        from: f64,
        until: f64,
    ) -> Result<Aabb, SimulationError> {
        let aabb = self.swept_box(i, bodies, from, until);
        let finite = aabb
            .min
            .iter()
            .chain(aabb.max.iter())
            .all(|c| c.is_finite());
        if finite {
            Ok(aabb)
        } else {
            Err(SimulationError::NonFinite {
                body: bodies[i].name().to_string(),
                time: from,
            })
        }
    }

    /// Box swept by body `i` (sampled at time `from`) until `until`.
    fn swept_box(&self, i: usize, bodies: &[RigidBody], from: f64, until: f64) -> Aabb {
        let body = &bodies[i];
        let span = (until - from).max(0.0);
        match body.motion() {
            MotionType::Fixed => self.models[i].aabb(&body.model_pose()).unwrap_or(Aabb {
                min: Point::origin(),
                max: Point::origin(),
            }),
            MotionType::Dynamic => {
                let s = body.state();
                ballistic_swept_box(
                    &Point::from(s.position),
                    &s.velocity,
                    &body.acceleration(),
                    span,
                    self.reach[i],
                )
            }
            MotionType::Kinematic(motion) => {
                // The origin moves at most at its speed bound; the body turns about it.
                let origin = Point::from(body.model_pose().translation.vector);
                let travel = prescribed_speed(motion) * span;
                let grow = Vec3::repeat(travel + self.reach[i]);
                Aabb {
                    min: origin - grow,
                    max: origin + grow,
                }
            }
        }
    }

    fn motion_bound(&self, i: usize, bodies: &[RigidBody]) -> MotionBound {
        let body = &bodies[i];
        match body.motion() {
            MotionType::Fixed => MotionBound::Fixed,
            MotionType::Kinematic(motion) => MotionBound::Prescribed {
                speed: prescribed_speed(motion),
                angular_velocity: motion.angular_velocity,
                reach: self.reach[i],
                spin_reach: self.spin_reach[i],
            },
            MotionType::Dynamic => {
                let s = body.state();
                let inertia = body.principal_inertia();
                let omega_body = s.orientation.inverse() * s.angular_velocity;
                let torque = body.torque().norm();
                let (angular_speed, angular_growth) = if torque == 0.0 {
                    // Energy bound (eq. 2.5), with room for the integrator's energy error.
                    (energy_bound(&inertia, &omega_body) * (1.0 + 1e-9), 0.0)
                } else {
                    // |ω| ≤ |L| / I_min and |L| grows at most at |τ| (momentum bound, eq. 2.4).
                    let momentum = inertia.component_mul(&omega_body).norm();
                    (momentum / inertia.min(), torque / inertia.min())
                };
                MotionBound::Ballistic {
                    velocity: s.velocity,
                    acceleration: body.acceleration(),
                    angular_speed,
                    angular_growth,
                    reach: self.spin_reach[i],
                }
            }
        }
    }

    /// Whether every part pair of `p` separates along the closest pair's direction: true for
    /// two single convex parts, and for anything against a lone half-space (whose normal is the
    /// direction for all). Otherwise the time-of-impact bound must hold in every direction.
    fn one_separating_direction(&self, p: Pair) -> bool {
        let (a, b) = (&self.models[p.0], &self.models[p.1]);
        let lone_half_space = |m: &CollisionModel| m.parts.len() == 1 && m.half_spaces.len() == 1;
        (a.parts.len() == 1 && b.parts.len() == 1) || lone_half_space(a) || lone_half_space(b)
    }

    fn refresh_boxes(&mut self, t: f64, world: &mut Bodies<'_>) -> Result<(), SimulationError> {
        self.counters.box_refreshes += 1;
        self.period_index += 1;
        let period_end =
            self.period_origin + (self.period_index + 1) as f64 * world.settings.box_period;
        for i in 0..world.bodies.len() {
            let moving = !matches!(world.bodies[i].motion(), MotionType::Fixed);
            if moving && !self.unbounded[i] && self.models[i].root().is_some() {
                world.sample(i, t)?;
                let aabb = self.checked_swept_box(i, world.bodies, t, period_end)?;
                self.broad.set(i, aabb);
            }
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            if !self.heap.contains(&Event::Pair(p.0, p.1)) {
                self.schedule(p, t, world.bodies);
            }
        }
        self.period_end = period_end;
        self.heap.set(Event::BoxRefresh, period_end);
        Ok(())
    }

    fn check_pair(
        &mut self,
        p: Pair,
        t: f64,
        world: &mut Bodies<'_>,
    ) -> Result<(), SimulationError> {
        self.counters.collision_checks += 1;
        if !self.is_candidate(p) {
            return Ok(()); // hysteresis: it stays out of the heap
        }
        let (a, b) = p;
        world.sample(a, t)?;
        world.sample(b, t)?;
        let cache = self.caches.entry(p).or_default();
        let Some(contact) = closest(
            &self.models[a],
            &world.bodies[a].model_pose(),
            &self.models[b],
            &world.bodies[b].model_pose(),
            cache,
            &mut self.narrow,
        ) else {
            return Ok(());
        };
        let settings = world.settings;
        let epsilon = settings.collision_epsilon;
        if contact.distance < 0.0 {
            let depth = -contact.distance;
            self.max_penetration = self.max_penetration.max(depth);
            if depth > settings.max_penetration.unwrap_or(epsilon) {
                return Err(SimulationError::Penetration {
                    bodies: (
                        world.bodies[a].name().to_string(),
                        world.bodies[b].name().to_string(),
                    ),
                    depth,
                    time: t,
                });
            }
        }
        if contact.distance < epsilon {
            let point = contact_point(&contact);
            let (ua, ub) = (
                world.bodies[a].point_velocity(&point),
                world.bodies[b].point_velocity(&point),
            );
            // Approaching, by more than rounding: after a cascade of impulses at one instant
            // a cluster's relative velocities are left at rounding level (~1e-16 of the bodies'
            // speeds), and answering those would cycle forever.
            let rounding = 1e-12 * (ua.norm() + ub.norm());
            if (ua - ub).dot(&contact.normal) < -rounding {
                self.collide(p, t, &contact, world)?;
            }
        }
        // The pair's next check: when it could first come within the allowed distance.
        let direction = -contact.normal;
        let (motion_a, motion_b) = (
            self.motion_bound(a, world.bodies),
            self.motion_bound(b, world.bodies),
        );
        let bound = if self.one_separating_direction(p) {
            motion_a.along(&direction) + motion_b.along(&-direction)
        } else {
            motion_a.any_direction() + motion_b.any_direction()
        };
        let next = t + next_check_delay(bound, contact.distance, epsilon);
        self.schedule(p, next, world.bodies);
        Ok(())
    }

    /// Applies the collision impulse between `a` and `b` at time `t`.
    fn collide(
        &mut self,
        p: Pair,
        t: f64,
        contact: &crate::collision::Closest,
        world: &mut Bodies<'_>,
    ) -> Result<(), SimulationError> {
        let (a, b) = p;
        // Stop a cascade of responses that never ends at one instant.
        if self.instant.0 == t {
            self.instant.1 += 1;
        } else {
            self.instant = (t, 1);
        }
        if self.instant.1 > 10_000 + 1_000 * world.bodies.len() as u64 {
            return Err(SimulationError::NoProgress {
                bodies: (
                    world.bodies[a].name().to_string(),
                    world.bodies[b].name().to_string(),
                ),
                time: t,
            });
        }
        let settings = world.settings;
        let (body_a, body_b) = (&world.bodies[a], &world.bodies[b]);
        let point = contact_point(contact);
        let ra = point - body_a.center_of_mass();
        let rb = point - body_b.center_of_mass();
        // Collision frame: z along the normal (from b to a), tangents completing it (§3.2).
        let (t1, t2) = orthonormal_basis(&contact.normal);
        let frame = Mat3::from_columns(&[t1, t2, contact.normal]);
        let k_world =
            body_collision_matrix(body_a.inverse_mass(), &body_a.inverse_inertia_world(), &ra)
                + body_collision_matrix(
                    body_b.inverse_mass(),
                    &body_b.inverse_inertia_world(),
                    &rb,
                );
        let k = frame.transpose() * k_world * frame;
        let u = frame.transpose() * (body_a.point_velocity(&point) - body_b.point_velocity(&point));
        let material = (world.material)(BodyId(a), BodyId(b));
        let gravity = settings.gravity.norm();
        let micro = (settings.microcollisions && gravity > 0.0).then(|| Microcollisions {
            threshold_speed: (2.0 * gravity * settings.collision_epsilon).sqrt(),
            epsilon: settings.collision_epsilon,
            max_restitution: settings.microcollision_max_restitution,
        });
        let (outcome, kind) = respond(
            &k,
            &u,
            material.friction,
            material.restitution,
            settings.restitution_law,
            contact.distance,
            micro.as_ref(),
        );
        match kind {
            ResponseKind::Collision => self.counters.collisions += 1,
            ResponseKind::Reversal | ResponseKind::Boosted => self.counters.microcollisions += 1,
        }
        let impulse = frame * outcome.impulse;
        world.apply_impulse(a, t, &impulse, &point)?;
        world.apply_impulse(b, t, &-impulse, &point)?;
        self.events.push(CollisionEvent {
            time: t,
            kind,
            bodies: (BodyId(a), BodyId(b)),
            point,
            normal: contact.normal,
            impulse,
        });
        // New flights: new swept boxes for the rest of the period, and every heap pair of either
        // body checked again now.
        for body in [a, b] {
            if world.bodies[body].is_dynamic()
                && !self.unbounded[body]
                && self.models[body].root().is_some()
            {
                let aabb = self.checked_swept_box(body, world.bodies, t, self.period_end)?;
                self.broad.set(body, aabb);
            }
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for q in changes.added {
            self.schedule(q, t, world.bodies);
        }
        let mut recheck: Vec<Pair> = self.pairs_of[a]
            .iter()
            .chain(self.pairs_of[b].iter())
            .copied()
            .filter(|q| *q != p)
            .collect();
        recheck.sort_unstable();
        recheck.dedup();
        for q in recheck {
            self.schedule(q, t, world.bodies);
        }
        Ok(())
    }
}

/// Where a collision acts: midway between the closest points (which are up to ε apart along
/// the normal). Both bodies take their impulse at this one point, so a tangential impulse
/// exerts no net torque on the pair and angular momentum is conserved exactly; the collision
/// matrix and the relative velocity are taken there too. (The thesis leaves the choice open.)
fn contact_point(contact: &crate::collision::Closest) -> Point {
    Point::from((contact.point_a.coords + contact.point_b.coords) / 2.0)
}

/// Upper bound on the speed of a prescribed motion's reference point. Uses the sum of absolute
/// components, which bounds the Euclidean norm and cannot overflow for finite vectors.
fn prescribed_speed(motion: &crate::dynamics::PrescribedMotion) -> f64 {
    motion.velocity.abs().sum()
        + motion
            .oscillations
            .iter()
            .map(|o| o.amplitude.abs().sum() * std::f64::consts::TAU * o.frequency)
            .sum::<f64>()
}

/// What the loop needs of the world: its bodies, settings and contact materials.
pub(crate) struct Bodies<'a> {
    pub bodies: &'a mut [RigidBody],
    pub settings: &'a WorldSettings,
    pub material: &'a dyn Fn(BodyId, BodyId) -> Material,
}

impl Bodies<'_> {
    /// Moves body `i` to time `t`, checking its state stays finite.
    fn sample(&mut self, i: usize, t: f64) -> Result<(), SimulationError> {
        super::advance_body(&mut self.bodies[i], t)
    }

    fn apply_impulse(
        &mut self,
        i: usize,
        t: f64,
        impulse: &Vec3,
        point: &Point,
    ) -> Result<(), SimulationError> {
        let body = &mut self.bodies[i];
        body.apply_impulse(t, impulse, point)
            .map_err(|error| SimulationError::Integration {
                body: body.name().to_string(),
                error,
            })
    }
}
