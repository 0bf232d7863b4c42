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
//! unbounded: they pair with every other body. After each refresh, islands of bodies that have
//! stayed still fall asleep (see [`super::sleep`]): pairs of which neither side can move leave
//! the heap, and an impulse on a sleeper wakes its island.
//!
//! What collides are *colliders*: rigid bodies and the links of multibodies (hybrid
//! simulation, Mirtich ch. 5). A link's motion is bounded by its multibody's
//! [`MotionEnvelope`], known ahead over an interval that ends at the box period's end or the
//! multibody's next controller update; a `Horizon` event at its end (or an impulse on any of
//! its links, which changes the whole tree's motion) renews the envelope, the links' boxes,
//! and the checks of every pair involving them. Its collision matrix is the articulated one
//! (§5.3.3) and the impulse propagates through the tree (§5.3.4). Links of one multibody do not
//! collide with each other, nor a root link with the fixed body it hangs from.

use super::sleep::{Member, Stillness, falling_asleep};
use super::{
    Collider, CollisionEvent, MaterialTable, MicrocollisionClusters, SimulationError, WorldSettings,
};
use crate::collision::broad::{
    BroadPhase, FastMap, FastSet, HierarchicalHash, Pair, SweepAndPrune, pair,
};
use crate::collision::heap::EventHeap;
use crate::collision::manifold::manifold;
use crate::collision::toi::{
    MotionBound, TravelBound, any_direction_between, ballistic_swept_box, energy_bound,
    next_check_delay, turning_bound,
};
use crate::collision::{
    Beyond, Closest, CollisionModel, NarrowStats, NearParts, PairCache, Slack, closest_parts,
    closest_parts_again,
};
use crate::dynamics::{BodyId, MotionType, RigidBody};
use crate::geometry::Aabb;
use crate::math::{Mat3, Point, Pose, Quat, Vec3, orthonormal_basis};
use crate::multibody::{MotionEnvelope, Multibody, MultibodyId, Observations};
use crate::response::{
    ClusterBody, ClusterContact, Microcollisions, ResponseKind, body_collision_matrix, respond,
    solve_cluster,
};

/// Which broad phase decides the candidate pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BroadPhaseKind {
    /// Mirtich's hierarchical spatial hash (§2.4): no bad cases; the default.
    #[default]
    HierarchicalHash,
    /// Sweep and prune (Baraff §5.3): faster on scattered bodies, quadratic on clustered ones.
    SweepAndPrune,
}

/// Heap events. At equal times box refreshes come first, then multibody horizons, then pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Event {
    BoxRefresh,
    /// The end of a multibody's motion envelope.
    Horizon(usize),
    Pair(usize, usize),
}

/// Counts of what the loop did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopCounters {
    /// Pair checks (narrow-phase queries between colliders).
    pub collision_checks: u64,
    /// Events taken from the heap.
    pub heap_events: u64,
    /// Pairs that became broad-phase candidates.
    pub broad_phase_pairs: u64,
    /// Box-period refreshes.
    pub box_refreshes: u64,
    /// Ordinary collisions.
    pub collisions: u64,
    /// Microcollisions (reversals, partial reversals and boosted collisions).
    pub microcollisions: u64,
    /// Of those, the boosted collisions: integrated like a collision, where a reversal is one
    /// linear solve.
    pub boosted_microcollisions: u64,
    /// Of those, the partial reversals (as much of the tangential velocity as friction allows).
    pub partial_reversals: u64,
    /// Integration steps of the collisions and boosted microcollisions (sliding is integrated;
    /// sticking, rays and reversals are closed form).
    pub collision_integration_steps: u64,
    /// Collisions and microcollisions in a cascade: a response at an instant when one of the
    /// two colliders had already been hit (an impulse elsewhere on a body made this contact
    /// approach). These get no boosted restitution.
    pub cascade_responses: u64,
    /// Responses of a wedge's slowly converging cascade that took the rest of its geometric
    /// series at once (see `Collisions::collide`).
    pub extrapolated_sweeps: u64,
    /// Simultaneous cluster solves (`MicrocollisionClusters::Simultaneous`), and their
    /// Gauss–Seidel sweeps in all.
    pub cluster_solves: u64,
    pub cluster_sweeps: u64,
    /// Cluster solves that did not settle within the sweeps allowed, answered one contact at
    /// a time instead.
    pub cluster_fallbacks: u64,
    /// Islands put to sleep, and sleeping islands woken by an impulse (see `world::sleep`).
    pub sleeps: u64,
    pub wakes: u64,
}

/// The collision-detection and response state of a world.
pub(crate) struct Collisions {
    started: bool,
    /// Every collider, by index: the bodies first, then each multibody's links.
    colliders: Vec<Collider>,
    /// Collider index of each multibody's links.
    link_colliders: Vec<Vec<usize>>,
    models: Vec<CollisionModel>,
    /// How far each collider's points reach from the point its motion is described about
    /// (centre of mass for dynamic bodies and links, model origin for kinematic ones).
    reach: Vec<f64>,
    /// How fast rotation about that point can move the collider's supporting planes, per unit
    /// angular speed (the core's reach for sphere-swept parts).
    spin_reach: Vec<f64>,
    /// Free bodies that are symmetric tops.
    symmetries: Vec<Option<Symmetry>>,
    /// Colliders with a half-space: paired with every other collider.
    unbounded: Vec<bool>,
    /// The fixed body each link hangs from, if any (they never collide).
    anchors: Vec<Option<usize>>,
    /// Each multibody's current motion envelope (for those with colliding links).
    envelopes: Vec<Option<MotionEnvelope>>,
    /// How far ahead each multibody's next envelope reaches, and when its links last took an
    /// impulse (see [`Renewal`]).
    envelope_spans: Vec<f64>,
    last_impulses: Vec<f64>,
    /// Per collider, when it last took an impulse (dynamic colliders only).
    hit_at: Vec<f64>,
    /// How many impulses it took at that instant.
    hits_now: Vec<u32>,
    /// Per pair in a settled sweep at the current instant: its normal impulses so far.
    sweeps: FastMap<Pair, Sweep>,
    broad: Box<dyn BroadPhase + Send + Sync>,
    heap: EventHeap<Event>,
    caches: FastMap<Pair, PairCache>,
    /// Each pair's closest contact when last measured, and the instant it was measured at.
    /// Within one instant positions do not change (impulses change velocities only), so a
    /// pair checked again in a cascade needs no new search (see `check_pair`).
    instant_contacts: FastMap<Pair, (f64, Closest)>,
    /// Pairs checked again at the current instant from their measured contact, whose next
    /// check is set once the instant's cascade is over (`finish_instant`).
    pending: Vec<Pair>,
    /// Scratch for `recheck_moved`'s pairs (kept: a pile rechecks at every impulse).
    recheck: Vec<Pair>,
    /// Scratch for simultaneous cluster solves.
    cluster: ClusterScratch,
    /// Per pair, the instant a cluster solve last settled it and the solve's tolerance.
    settled: FastMap<Pair, (f64, f64)>,
    /// Per pair, the impulses its contact points took at the last cluster solve (see
    /// [`WarmStart`]).
    warm: FastMap<Pair, WarmStart>,
    /// The pairs whose next check was set with allowances: per side, the body's motion the
    /// allowance is measured from (`None`: any impulse on that side calls for a new check).
    allowances: FastMap<Pair, [Option<Anchor>; 2]>,
    /// The heap pairs of each collider.
    pairs_of: Vec<FastSet<Pair>>,
    /// Per collider, where it has stayed since when (see `world::sleep`).
    stillness: Vec<Stillness>,
    /// Per pair, the last time its contact took an impulse: the edges of the islands.
    touches: FastMap<Pair, f64>,
    /// Per sleeping body, its island (the island's lowest collider index).
    islands: Vec<Option<usize>>,
    /// Start of the first box period, and the index of the current one: period k ends at
    /// `period_origin + (k + 1)·box_period`, computed afresh (never accumulated).
    period_origin: f64,
    period_index: u64,
    /// End of the current box period.
    period_end: f64,
    /// Responses at the current instant, to stop a cascade that would never end.
    instant: (f64, u64),
    /// Where the current stretch of events began and how many it has had: events that advance
    /// time by next to nothing mean motion too fast to resolve (see `STALL_SPAN`).
    stall: (f64, u64),
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
            colliders: Vec::new(),
            link_colliders: Vec::new(),
            models: Vec::new(),
            reach: Vec::new(),
            spin_reach: Vec::new(),
            symmetries: Vec::new(),
            unbounded: Vec::new(),
            anchors: Vec::new(),
            envelopes: Vec::new(),
            envelope_spans: Vec::new(),
            last_impulses: Vec::new(),
            hit_at: Vec::new(),
            hits_now: Vec::new(),
            sweeps: FastMap::default(),
            broad: Box::new(HierarchicalHash::new()),
            heap: EventHeap::new(),
            caches: FastMap::default(),
            instant_contacts: FastMap::default(),
            pending: Vec::new(),
            recheck: Vec::new(),
            cluster: ClusterScratch::default(),
            settled: FastMap::default(),
            warm: FastMap::default(),
            allowances: FastMap::default(),
            pairs_of: Vec::new(),
            stillness: Vec::new(),
            touches: FastMap::default(),
            islands: Vec::new(),
            period_origin: 0.0,
            period_index: 0,
            period_end: 0.0,
            instant: (f64::NAN, 0),
            // Finite, so that the first event starts a stretch (−∞ would give NaN bounds).
            stall: (f64::MIN, 0),
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

    /// Builds models, boxes and the heap at time `t` (bodies and multibodies already at `t`).
    pub fn start(&mut self, t: f64, world: &mut Participants<'_>) -> Result<(), SimulationError> {
        let table = ColliderTable::new(world.bodies, world.multibodies);
        self.colliders = table.colliders;
        self.link_colliders = table.link_colliders;
        self.models = table.models;
        self.reach = table.reach;
        self.spin_reach = table.spin_reach;
        self.symmetries = table.symmetries;
        self.anchors = table.anchors;
        // A multibody with nothing else to hit needs no motion envelopes: it flies on its own.
        for links in &mut self.link_colliders {
            let alone = (0..self.colliders.len())
                .all(|c| links.contains(&c) || links.iter().any(|&l| self.anchors[l] == Some(c)));
            if alone {
                links.clear();
            }
        }
        let n = self.colliders.len();
        self.unbounded = self
            .models
            .iter()
            .map(|m| !m.half_spaces.is_empty())
            .collect();
        self.broad = match world.settings.broad_phase {
            BroadPhaseKind::HierarchicalHash => Box::new(HierarchicalHash::new()),
            BroadPhaseKind::SweepAndPrune => Box::new(SweepAndPrune::new()),
        };
        self.heap = EventHeap::new();
        self.caches = FastMap::default();
        self.instant_contacts = FastMap::default();
        self.pending.clear();
        self.allowances = FastMap::default();
        self.pairs_of = vec![FastSet::default(); n];
        self.period_origin = t;
        self.period_index = 0;
        self.period_end = t + world.settings.box_period;
        self.envelopes = vec![None; world.multibodies.len()];
        self.envelope_spans = vec![world.settings.box_period; world.multibodies.len()];
        self.last_impulses = vec![f64::NEG_INFINITY; world.multibodies.len()];
        self.hit_at = vec![f64::NEG_INFINITY; n];
        self.hits_now = vec![0; n];
        // Islands are not kept across a rebuild (bodies were added): sleepers wake, at rest.
        self.touches = FastMap::default();
        self.islands = vec![None; n];
        for c in 0..n {
            if let Collider::Body(id) = self.colliders[c] {
                world.wake(id, t)?;
            }
        }
        self.stillness = (0..n).map(|c| self.still_from(c, t, world)).collect();
        for m in 0..world.multibodies.len() {
            self.renew_envelope(m, t, Renewal::Period, world)?;
        }
        for c in 0..n {
            if self.bounded(c) && !self.is_link(c) {
                let aabb = self.checked_swept_box(c, world, t, self.period_end)?;
                self.broad.set(c, aabb);
            }
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            self.schedule(p, t, world);
        }
        for c in 0..n {
            if self.unbounded[c] {
                for other in 0..n {
                    if other != c {
                        self.schedule(pair(c, other), t, world);
                    }
                }
            }
        }
        self.heap.set(Event::BoxRefresh, self.period_end);
        self.started = true;
        Ok(())
    }

    /// Time of the next event.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|(t, _)| t)
    }

    /// Processes the next event.
    pub fn process_next(&mut self, world: &mut Participants<'_>) -> Result<(), SimulationError> {
        let Some((t, event)) = self.heap.pop() else {
            return Ok(());
        };
        self.counters.heap_events += 1;
        // A million events within a trillionth of the time so far: a body spinning or falling
        // so fast that each check bounds the next one a few ulps later (a kinematic spin of
        // 1e300 rad/s, gravity 1e308) would go on for ever. Same-instant cascades are bounded
        // on their own (`collide`), and stay far below this.
        if t > self.stall.0 + STALL_SPAN * (1.0 + self.stall.0.abs()) {
            self.stall = (t, 0);
        } else {
            self.stall.1 += 1;
            if self.stall.1 > STALL_EVENTS * (1 + self.colliders.len() as u64)
                && let Event::Pair(a, b) = event
            {
                return Err(SimulationError::TooFast {
                    bodies: (world.name(self.colliders[a]), world.name(self.colliders[b])),
                    time: t,
                    events: self.stall.1,
                });
            }
        }
        match event {
            Event::BoxRefresh => self.refresh_boxes(t, world)?,
            Event::Horizon(m) => self.renew_multibody(m, t, world)?,
            Event::Pair(a, b) => {
                let p = (a, b);
                for c in [a, b] {
                    self.pairs_of[c].remove(&p);
                }
                self.check_pair(p, t, world)?;
            }
        }
        if !self.pending.is_empty() && self.heap.peek().is_none_or(|(next, _)| next > t) {
            self.finish_instant(t, world)?;
        }
        Ok(())
    }

    /// Ends a cascade at instant `t`: the pairs checked again from their measured contacts get
    /// a full check under their final motion, which sets their next check. Each was checked
    /// after its bodies' last impulse, so none approaches but by rounding (the new search's
    /// normal may differ in the last digits); one that does is answered as any other, and the
    /// instant goes on.
    fn finish_instant(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_unstable();
        pending.dedup();
        for p in pending {
            // (Not in the heap at this instant, which is over; any later entry is replaced.)
            self.heap.remove(&Event::Pair(p.0, p.1));
            let measured = self
                .instant_contacts
                .remove(&p)
                .and_then(|(at, contact)| (at == t).then_some(contact));
            for c in [p.0, p.1] {
                self.pairs_of[c].remove(&p);
            }
            self.check_pair_measured(p, t, measured, world)?;
        }
        Ok(())
    }

    fn is_link(&self, c: usize) -> bool {
        matches!(self.colliders[c], Collider::Link(..))
    }

    /// Whether collider `c` has a bounded part (goes into the broad phase).
    fn bounded(&self, c: usize) -> bool {
        !self.unbounded[c] && self.models[c].root().is_some()
    }

    /// Whether collider `c` can move.
    fn moves(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.colliders[c] {
            Collider::Body(id) => !matches!(world.bodies[id.0].motion(), MotionType::Fixed),
            Collider::Link(..) => true,
        }
    }

    /// Whether collider `c` is a kinematic body whose prescribed motion leaves it where it
    /// starts: it keeps nothing it touches awake, as a fixed body does not.
    fn stationary(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.colliders[c] {
            Collider::Body(id) => matches!(
                world.bodies[id.0].motion(),
                MotionType::Kinematic(motion) if motion.is_stationary()
            ),
            Collider::Link(..) => false,
        }
    }

    /// Whether collider `c` responds to impulses.
    fn dynamic(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.colliders[c] {
            Collider::Body(id) => world.bodies[id.0].is_dynamic(),
            Collider::Link(..) => true,
        }
    }

    /// Whether a pair may collide at all (see [`may_collide`]).
    fn eligible(&self, p: Pair, world: &Participants<'_>) -> bool {
        may_collide(
            (self.colliders[p.0], self.colliders[p.1]),
            (self.anchors[p.0], self.anchors[p.1]),
            (p.0, p.1),
            self.dynamic(p.0, world) || self.dynamic(p.1, world),
        )
    }

    fn schedule(&mut self, p: Pair, time: f64, world: &Participants<'_>) {
        if !self.eligible(p, world) {
            return;
        }
        // A check set here is one due now; only `check_pair` sets one with allowances.
        self.allowances.remove(&p);
        self.pairs_of[p.0].insert(p);
        self.pairs_of[p.1].insert(p);
        // Neither side can move until an impulse wakes one, which checks it again.
        if self.still(p.0, world) && self.still(p.1, world) {
            self.heap.remove(&Event::Pair(p.0, p.1));
            return;
        }
        self.heap.set(Event::Pair(p.0, p.1), time);
    }

    /// Whether collider `c` stays where it is until an impulse: fixed, or asleep.
    fn still(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.colliders[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                body.is_asleep() || matches!(body.motion(), MotionType::Fixed)
            }
            Collider::Link(..) => false,
        }
    }

    fn is_candidate(&self, p: Pair) -> bool {
        self.unbounded[p.0] || self.unbounded[p.1] || self.broad.is_candidate(p)
    }

    /// Renews collider `c`'s box in the broad phase (if it has a bounded part): swept from `t`
    /// to the period's end under its motion now.
    fn renew_box(
        &mut self,
        c: usize,
        t: f64,
        world: &Participants<'_>,
    ) -> Result<(), SimulationError> {
        if self.bounded(c) {
            let aabb = self.checked_swept_box(c, world, t, self.period_end)?;
            self.broad.set(c, aabb);
        }
        Ok(())
    }

    /// Box swept by collider `c` (sampled at time `from`) until `until`, which must be
    /// finite: a motion too large to bound stops the run.
    fn checked_swept_box(
        &self,
        c: usize,
        world: &Participants<'_>,
        from: f64,
        until: f64,
    ) -> Result<Aabb, SimulationError> {
        let aabb = self.swept_box(c, world, from, until);
        let finite = aabb
            .min
            .iter()
            .chain(aabb.max.iter())
            .all(|x| x.is_finite());
        if finite {
            Ok(aabb)
        } else {
            Err(SimulationError::NonFinite {
                body: world.name(self.colliders[c]),
                time: from,
            })
        }
    }

    /// Box swept by collider `c` (sampled at time `from`) until `until` (for a link: over its
    /// multibody's envelope).
    fn swept_box(&self, c: usize, world: &Participants<'_>, from: f64, until: f64) -> Aabb {
        let span = (until - from).max(0.0);
        let body = match self.colliders[c] {
            Collider::Body(id) => &world.bodies[id.0],
            Collider::Link(m, l) => {
                let grow = Vec3::repeat(self.reach[c]);
                return match &self.envelopes[m.0] {
                    Some(envelope) => Aabb {
                        min: Point::from(envelope.links[l].center_min - grow),
                        max: Point::from(envelope.links[l].center_max + grow),
                    },
                    None => Aabb {
                        min: Point::from(-Vec3::repeat(f64::INFINITY)),
                        max: Point::from(Vec3::repeat(f64::INFINITY)),
                    },
                };
            }
        };
        match body.motion() {
            MotionType::Fixed => self.models[c].aabb(&body.model_pose()).unwrap_or(Aabb {
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
                    self.reach[c],
                )
            }
            MotionType::Kinematic(motion) => {
                // The origin moves at most at its speed bound; the body turns about it.
                let origin = Point::from(body.model_pose().translation.vector);
                let travel = prescribed_speed(motion) * span;
                let grow = Vec3::repeat(travel + self.reach[c]);
                Aabb {
                    min: origin - grow,
                    max: origin + grow,
                }
            }
        }
    }

    /// How far collider `c`'s points can travel, its free flight's bound widened by
    /// `allowance` (see [`Collisions::within_allowance`]).
    fn motion_bound(&self, c: usize, world: &Participants<'_>, allowance: f64) -> MotionBound {
        let body = match self.colliders[c] {
            Collider::Body(id) => &world.bodies[id.0],
            Collider::Link(m, l) => {
                return match &self.envelopes[m.0] {
                    Some(envelope) => {
                        let link = &envelope.links[l];
                        MotionBound::Enveloped {
                            velocity_min: link.velocity_min,
                            velocity_max: link.velocity_max,
                            angular_speed: link.angular_speed,
                            reach: self.spin_reach[c],
                        }
                    }
                    None => MotionBound::Enveloped {
                        velocity_min: -Vec3::repeat(f64::INFINITY),
                        velocity_max: Vec3::repeat(f64::INFINITY),
                        angular_speed: f64::INFINITY,
                        reach: self.spin_reach[c],
                    },
                };
            }
        };
        match body.motion() {
            MotionType::Fixed => MotionBound::Fixed,
            MotionType::Kinematic(motion) => MotionBound::Prescribed {
                speed: prescribed_speed(motion),
                angular_velocity: motion.angular_velocity,
                reach: self.reach[c],
                spin_reach: self.spin_reach[c],
            },
            MotionType::Dynamic => {
                let s = body.state();
                let inertia = body.principal_inertia();
                let omega_body = s.orientation.inverse() * s.angular_velocity;
                let torque = body.torque().norm();
                let (angular_speed, angular_growth, turning, turning_velocity) = if torque == 0.0 {
                    let speed = free_angular_speed(body);
                    match self.symmetries[c] {
                        // With an allowance, impulses may raise the angular speed and so the
                        // turning rate: only eq. 2.13 is kept.
                        _ if allowance > 0.0 => (speed, 0.0, f64::INFINITY, s.angular_velocity),
                        // A symmetric top: only ω⊥ turns its supporting planes (a support point
                        // lies in the plane of the axis and the direction, so ω₃ â moves it
                        // along the plane). Euler's equations keep ω₃ and |ω⊥|, with
                        // |ω̇| = |I₃ − I₁|/I₁ |ω₃||ω⊥|, and the axis turns at |ω⊥|, so
                        // |d(ω⊥)/dt| ≤ |ω₃||ω⊥| (1 + |I₃ − I₁|/I₁). A millionth of the general
                        // bound stands for the integrator's drift from the exact motion.
                        Some(symmetry) => {
                            let axis = s.orientation * symmetry.axis;
                            let spin = s.angular_velocity.dot(&axis);
                            let across = s.angular_velocity - axis * spin;
                            let turning = spin.abs() * across.norm() * (1.0 + symmetry.ratio)
                                + 1e-6 * turning_bound(&inertia, speed);
                            (speed, 0.0, turning * (1.0 + 1e-9), across)
                        }
                        None => (
                            speed,
                            0.0,
                            turning_bound(&inertia, speed),
                            s.angular_velocity,
                        ),
                    }
                } else {
                    // |ω| ≤ |L| / I_min and |L| grows at most at |τ| (momentum bound, eq. 2.4).
                    let momentum = inertia.component_mul(&omega_body).norm();
                    (
                        momentum / inertia.min(),
                        torque / inertia.min(),
                        f64::INFINITY,
                        s.angular_velocity,
                    )
                };
                MotionBound::Ballistic {
                    velocity: s.velocity,
                    acceleration: body.acceleration(),
                    angular_speed,
                    angular_growth,
                    reach: self.spin_reach[c],
                    angular_velocity: turning_velocity,
                    turning,
                    allowance,
                }
            }
        }
    }

    /// Until when collider `c`'s motion bound holds: the end of its multibody's envelope.
    fn bound_valid_until(&self, c: usize) -> f64 {
        match self.colliders[c] {
            Collider::Body(_) => f64::INFINITY,
            Collider::Link(m, _) => self.envelopes[m.0]
                .as_ref()
                .map_or(f64::NEG_INFINITY, |e| e.end),
        }
    }

    fn refresh_boxes(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.counters.box_refreshes += 1;
        self.period_index += 1;
        self.period_end =
            self.period_origin + (self.period_index + 1) as f64 * world.settings.box_period;
        for c in 0..self.colliders.len() {
            if self.moves(c, world) && self.bounded(c) && !self.is_link(c) {
                world.sample(self.colliders[c], t)?;
                let aabb = self.checked_swept_box(c, world, t, self.period_end)?;
                self.broad.set(c, aabb);
            }
        }
        for m in 0..self.link_colliders.len() {
            self.renew_envelope(m, t, Renewal::Period, world)?;
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            if !self.heap.contains(&Event::Pair(p.0, p.1)) {
                self.schedule(p, t, world);
            }
        }
        if world.settings.sleep.enabled {
            self.settle(t, world)?;
        }
        self.heap.set(Event::BoxRefresh, self.period_end);
        Ok(())
    }

    /// Moves multibody `m` to `t`, bounds its links' motion until the period's end, its next
    /// controller update or the end of its span (which sets the next `Horizon`), and gives its
    /// links their new boxes. The broad phase is updated by the caller.
    fn renew_envelope(
        &mut self,
        m: usize,
        t: f64,
        cause: Renewal,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        if self.link_colliders[m].is_empty() {
            return Ok(());
        }
        let longest = world.settings.box_period;
        let span = &mut self.envelope_spans[m];
        match cause {
            Renewal::Period => {}
            Renewal::Expired => *span = (2.0 * *span).min(longest),
            Renewal::Impulse => {
                let since = t - self.last_impulses[m];
                self.last_impulses[m] = t;
                *span = (2.0 * since).clamp(1e-4 * longest, longest);
            }
        }
        let until = self.period_end.min(t + *span);
        world.advance_multibody(m, t)?;
        let multibody = &mut world.multibodies[m];
        let envelope =
            multibody
                .motion_envelope(until)
                .map_err(|error| SimulationError::Multibody {
                    multibody: multibody.name().to_string(),
                    error,
                })?;
        let end = envelope.end;
        self.envelopes[m] = Some(envelope);
        if end < self.period_end {
            // The span's end, a controller update or a failing integration before the
            // period's end.
            self.heap.set(Event::Horizon(m), end.max(t));
        } else {
            self.heap.remove(&Event::Horizon(m));
        }
        for k in 0..self.link_colliders[m].len() {
            let c = self.link_colliders[m][k];
            self.renew_box(c, t, world)?;
        }
        Ok(())
    }

    /// The motion of multibody `m` changed at `t` (a controller update, the end of its
    /// envelope, or an impulse): new envelope and boxes, and every heap pair of its links is
    /// checked again now.
    fn renew_multibody(
        &mut self,
        m: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.renew_envelope(m, t, Renewal::Expired, world)?;
        let links = self.link_colliders[m].clone();
        self.recheck_moved(&links, None, t, world);
        Ok(())
    }

    /// After `moved` colliders changed their motion at `t` (boxes already set): pairs new to
    /// the broad phase are scheduled, and every heap pair of the moved colliders but `except`
    /// is checked again now.
    fn recheck_moved(
        &mut self,
        moved: &[usize],
        except: Option<Pair>,
        t: f64,
        world: &Participants<'_>,
    ) {
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for q in changes.added {
            self.schedule(q, t, world);
        }
        let mut recheck = std::mem::take(&mut self.recheck);
        let this = &*self;
        recheck.extend(
            moved
                .iter()
                .flat_map(|&c| {
                    let now = this.free_motion(c, world);
                    this.pairs_of[c]
                        .iter()
                        .copied()
                        .filter(move |&q| !this.within_allowance(q, c, t, now.as_ref()))
                })
                .filter(|q| Some(*q) != except),
        );
        recheck.sort_unstable();
        recheck.dedup();
        for &q in &recheck {
            self.schedule(q, t, world);
        }
        recheck.clear();
        self.recheck = recheck;
    }

    fn check_pair(
        &mut self,
        p: Pair,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.check_pair_measured(p, t, None, world)
    }

    /// [`Collisions::check_pair`], given the pair's contact if it was measured at this instant
    /// already: two single-part colliders at the same positions have the same closest pair,
    /// which then needs no new search, only its check time under the motion now.
    fn check_pair_measured(
        &mut self,
        p: Pair,
        t: f64,
        measured: Option<Closest>,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.counters.collision_checks += 1;
        if !self.is_candidate(p) {
            return Ok(()); // hysteresis: it stays out of the heap
        }
        let (a, b) = p;
        let (ca, cb) = (self.colliders[a], self.colliders[b]);
        world.sample(ca, t)?;
        world.sample(cb, t)?;
        let epsilon = world.settings.collision_epsilon;
        // Checked already at this instant (a cascade: an impulse on one of the bodies since):
        // the same positions, the same contact. Its next check waits for the cascade's end.
        if let Some(&(measured, contact)) = self.instant_contacts.get(&p)
            && measured == t
        {
            if contact.distance < epsilon && self.approaching(p, &contact, t, world) {
                self.collide(p, t, &contact, world)?;
            }
            self.pending.push(p);
            self.pairs_of[a].insert(p);
            self.pairs_of[b].insert(p);
            return Ok(());
        }
        let slack = self.slack(a, b);
        let horizon = world.settings.box_period;
        let previous = self.instant_contacts.get(&p).map(|&(_, c)| c.distance);
        let mut allowances = [a, b].map(|c| self.allowance(c, previous, world));
        let mut soonest = SoonestCheck::new(
            self.motion_bounds(p, world, allowances),
            epsilon,
            slack,
            horizon,
        );
        let (pose_a, pose_b) = (world.model_pose(ca), world.model_pose(cb));
        let single = self.models[a].parts.len() == 1 && self.models[b].parts.len() == 1;
        let near = match measured {
            Some(contact) if single => {
                soonest.examined(&contact);
                NearParts {
                    pairs: vec![contact],
                    unexamined: None,
                }
            }
            _ => self.search(p, &mut soonest, world),
        };
        let Some(&contact) = near.pairs.first() else {
            return Ok(());
        };
        self.instant_contacts.insert(p, (t, contact));
        self.note_depth(p, &contact, t, world)?;
        if contact.distance < epsilon && self.approaching(p, &contact, t, world) {
            if !self.collide_cluster(p, t, &contact, world)? {
                self.collide(p, t, &contact, world)?;
            }
            // New motion, new check times: the piece pairs the search left out under the old
            // motion may be the soonest under the new.
            allowances = [0.0; 2];
            soonest = SoonestCheck::new(
                self.motion_bounds(p, world, allowances),
                epsilon,
                slack,
                horizon,
            );
            closest_parts_again(
                &self.models[a],
                &pose_a,
                &self.models[b],
                &pose_b,
                &mut soonest,
                &near,
                self.caches.entry(p).or_default(),
                &mut self.narrow,
            );
        }
        // The pair's next check: when it could first come within the allowed distance, and no
        // later than a link's motion bound holds.
        let delay = soonest.delay();
        let next = (t + delay)
            .min(self.bound_valid_until(a))
            .min(self.bound_valid_until(b))
            .max(t);
        self.schedule(p, next, world);
        if allowances != [0.0; 2] {
            let anchors = [(a, allowances[0]), (b, allowances[1])].map(|(c, allowance)| {
                (allowance > 0.0)
                    .then(|| self.anchor(c, t, allowance, world))
                    .flatten()
            });
            self.allowances.insert(p, anchors);
        }
        Ok(())
    }

    /// Records how deep a pair's contact overlaps, stopping the run if deeper than allowed.
    fn note_depth(
        &mut self,
        (a, b): Pair,
        contact: &Closest,
        t: f64,
        world: &Participants<'_>,
    ) -> Result<(), SimulationError> {
        let settings = world.settings;
        if contact.distance < 0.0 {
            let depth = -contact.distance;
            self.max_penetration = self.max_penetration.max(depth);
            if depth
                > settings
                    .max_penetration
                    .unwrap_or(settings.collision_epsilon)
            {
                return Err(SimulationError::Penetration {
                    bodies: (world.name(self.colliders[a]), world.name(self.colliders[b])),
                    depth,
                    time: t,
                });
            }
        }
        Ok(())
    }

    /// The allowance for collider `c`'s velocity changes in a pair's next check, given the
    /// pair's distance at its last check (see "Allowances" below): `ALLOWANCE` times the
    /// microcollision threshold speed for a free body without applied torque in a pair that
    /// was farther apart than `ALLOWANCE_DISTANCE` envelopes; zero otherwise, and zero when
    /// there is no gravity (no microcollisions).
    fn allowance(&self, c: usize, previous: Option<f64>, world: &Participants<'_>) -> f64 {
        let settings = world.settings;
        let far = previous.is_some_and(|d| d > ALLOWANCE_DISTANCE * settings.collision_epsilon);
        let free = match self.colliders[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                body.is_dynamic() && body.torque() == Vec3::zeros() && !body.is_asleep()
            }
            Collider::Link(..) => false,
        };
        if !(far && free && settings.microcollisions) {
            return 0.0;
        }
        ALLOWANCE * (2.0 * settings.gravity.norm() * settings.collision_epsilon).sqrt()
    }

    /// Collider `c`'s motion at `t`, which an allowance is measured from (`None` for a link:
    /// only free bodies get allowances).
    fn anchor(&self, c: usize, t: f64, allowance: f64, world: &Participants<'_>) -> Option<Anchor> {
        self.free_motion(c, world).map(|motion| Anchor {
            time: t,
            motion,
            allowance,
        })
    }

    /// Whether pair `q`'s next check still holds after an impulse on its collider `c` at `t`:
    /// it was set with an allowance for `c`, and `c`'s velocities have not left it.
    ///
    /// The check's travel bound charged every point of `c` with `(v₀ + a τ)·d̂ + r ω₀ + s` (eq.
    /// 2.13 plus the allowance `s`). After impulses, the free flight from now on moves them at
    /// most at `(v + a (τ − τ₁))·d̂ + r ω`, with `ω` the new energy bound; that is within the
    /// old bound while `|v − v₀ − a τ₁| + r (ω − ω₀) ≤ s`, and each impulse is tested so.
    /// `now` is `c`'s motion after the impulses ([`Collisions::free_motion`]).
    fn within_allowance(&self, q: Pair, c: usize, t: f64, now: Option<&FreeMotion>) -> bool {
        let (Some(anchors), Some(now)) = (self.allowances.get(&q), now) else {
            return false;
        };
        let Some(anchor) = anchors[usize::from(q.0 != c)] else {
            return false;
        };
        // The bound integrated the flight's acceleration: a body that fell asleep (or woke)
        // since has another, and its pairs are checked again.
        let then = &anchor.motion;
        if now.acceleration != then.acceleration {
            return false;
        }
        let expected = then.velocity + then.acceleration * (t - anchor.time);
        let linear = (now.velocity - expected).norm();
        let angular = (now.angular_speed - then.angular_speed).max(0.0);
        linear + self.spin_reach[c] * angular <= anchor.allowance
    }

    /// A free body's velocity, acceleration and angular-speed bound now (`None` for a link).
    fn free_motion(&self, c: usize, world: &Participants<'_>) -> Option<FreeMotion> {
        let Collider::Body(id) = self.colliders[c] else {
            return None;
        };
        let body = &world.bodies[id.0];
        Some(FreeMotion {
            velocity: body.state().velocity,
            acceleration: body.acceleration(),
            angular_speed: free_angular_speed(body),
        })
    }

    /// Whether the pair's contact points approach, by more than rounding: after a cascade of
    /// impulses at one instant a cluster's relative velocities are left at rounding level
    /// (~1e-16 of the bodies' speeds), and answering those would cycle forever. A pair a
    /// cluster solve settled at this instant approaches only by more than the solve's
    /// tolerance: what is left is the solve's residual, not a collision.
    fn approaching(&self, p: Pair, contact: &Closest, t: f64, world: &Participants<'_>) -> bool {
        let point = contact_point(contact);
        let (ua, ub) = (
            world.point_velocity(self.colliders[p.0], &point),
            world.point_velocity(self.colliders[p.1], &point),
        );
        let mut allowed = 1e-12 * (ua.norm() + ub.norm());
        if let Some(&(at, tolerance)) = self.settled.get(&p)
            && at == t
        {
            allowed = allowed.max(tolerance);
        }
        (ua - ub).dot(&contact.normal) < -allowed
    }

    /// How far beyond the closest pair of pieces to examine the piece pairs of two colliders:
    /// half the smaller one's reach (a collider with a half-space counts as unbounded; zero when
    /// both are). The pairs beyond share one bound along any direction, which is loose, so they
    /// should be far enough not to decide the next check.
    fn slack(&self, a: usize, b: usize) -> f64 {
        let reach = |c: usize| {
            if self.unbounded[c] {
                f64::INFINITY
            } else {
                self.reach[c]
            }
        };
        let smaller = reach(a).min(reach(b));
        if smaller.is_finite() {
            0.5 * smaller
        } else {
            0.0
        }
    }

    fn motion_bounds(
        &self,
        (a, b): Pair,
        world: &Participants<'_>,
        allowances: [f64; 2],
    ) -> (MotionBound, MotionBound) {
        (
            self.motion_bound(a, world, allowances[0]),
            self.motion_bound(b, world, allowances[1]),
        )
    }

    /// Applies the collision impulse between colliders `a` and `b` at time `t`.
    fn collide(
        &mut self,
        p: Pair,
        t: f64,
        contact: &crate::collision::Closest,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let (a, b) = p;
        let (ca, cb) = (self.colliders[a], self.colliders[b]);
        // Stop a cascade of responses that never ends at one instant.
        if self.respond_at(t) > 10_000 + 1_000 * self.colliders.len() as u64 {
            return Err(SimulationError::NoProgress {
                bodies: (world.name(ca), world.name(cb)),
                time: t,
            });
        }
        let settings = world.settings;
        let point = contact_point(contact);
        // Collision frame: z along the normal (from b to a), tangents completing it (§3.2).
        let (t1, t2) = orthonormal_basis(&contact.normal);
        let frame = Mat3::from_columns(&[t1, t2, contact.normal]);
        // K = K_a + K_b (eq. 5.2): each the rigid body's (eq. 3.4) or the link's (§5.3.3).
        let k_world = world.collision_matrix(ca, &point) + world.collision_matrix(cb, &point);
        let k = frame.transpose() * k_world * frame;
        let u = frame.transpose()
            * (world.point_velocity(ca, &point) - world.point_velocity(cb, &point));
        let material = world.materials.between(ca, cb);
        // Cascades at one instant (an impulse elsewhere on a body made this contact approach:
        // a ball wedged under a mallet, a domino on the table leaning on its neighbour, a ball
        // in a slot narrower than the envelope) are Gauss–Seidel sweeps towards a state where
        // no contact of the cluster approaches. Their responses get no boosted restitution: a
        // boost multiplies each contact's approach into the next one's, and round a wedge the
        // products grow without end. They keep the rebound, a fixed speed, so that a cluster
        // that can separate leaves on a flight instead of at rest, approaching again at once
        // (the triple pendulum's wedged ball was hit every 2 µs, then every few ns). Once
        // either body has been hit CASCADE_REBOUNDS times at this instant, the responses are
        // plain inelastic collisions, which cannot pump and always converge: where nothing
        // can separate (a ball between two fixed walls), reversals and rebounds would
        // ping-pong for ever. See docs/sources.md, "Cascades".
        let hits = |c: usize| {
            if self.hit_at[c] == t {
                self.hits_now[c]
            } else {
                0
            }
        };
        let cascade = hits(a) > 0 || hits(b) > 0;
        let settled = hits(a).max(hits(b)) >= CASCADE_REBOUNDS;
        let restitution = if settled { 0.0 } else { material.restitution };
        let gravity = settings.gravity.norm();
        let micro = (settings.microcollisions && gravity > 0.0 && !settled).then(|| {
            let threshold_speed = (2.0 * gravity * settings.collision_epsilon).sqrt();
            // The rebound stands in for gravity's pull over the flight to come, and gravity
            // brings a contact back only as far as it acts along the normal: a sideways contact
            // (two balls side by side) gets none.
            let closing = (settings.gravity.dot(&contact.normal) / gravity).abs();
            Microcollisions {
                threshold_speed,
                epsilon: settings.collision_epsilon,
                max_restitution: if cascade {
                    material.restitution
                } else {
                    settings.microcollision_max_restitution
                },
                rebound_speed: settings.rebound(false) * threshold_speed * closing.sqrt(),
            }
        });
        let (outcome, kind) = respond(
            &k,
            &u,
            material.friction,
            restitution,
            settings.restitution_law,
            contact.distance,
            micro.as_ref(),
        );
        if self.hit_at[a] == t || self.hit_at[b] == t {
            self.counters.cascade_responses += 1;
        }
        self.counters.collision_integration_steps += u64::from(outcome.steps);
        match kind {
            ResponseKind::Collision => self.counters.collisions += 1,
            ResponseKind::Reversal => self.counters.microcollisions += 1,
            ResponseKind::PartialReversal => {
                self.counters.microcollisions += 1;
                self.counters.partial_reversals += 1;
            }
            ResponseKind::Boosted => {
                self.counters.microcollisions += 1;
                self.counters.boosted_microcollisions += 1;
            }
            ResponseKind::Simultaneous => self.counters.microcollisions += 1,
        }
        // The settled sweep of a frictional wedge converges slowly: a ball sliding between a
        // dish and a mallet had each contact's friction drive it into the other, and the
        // responses of one pair shrank by only 0.5 % a round. Such a sweep is a linear
        // fixed-point iteration (sliding directions do not turn at these impulses) whose error
        // falls by a constant ratio ρ a round, so when a pair's normal impulses shrink by the
        // same ratio twice in a row, this response takes the rest of the geometric series at
        // once, 1/(1 − ρ) times its own (Aitken's Δ² extrapolation).
        let mut scale = 1.0;
        if settled {
            let (factor, sweep) = extrapolate(self.sweeps.get(&p).copied(), outcome.impulse.z);
            match sweep {
                Some(sweep) => {
                    self.sweeps.insert(p, sweep);
                }
                None => {
                    self.sweeps.remove(&p);
                    self.counters.extrapolated_sweeps += 1;
                }
            }
            scale = factor;
        }
        let impulse = frame * (outcome.impulse * scale);
        let mut woken = [a, b].map(|c| self.islands[c]);
        if woken[0] == woken[1] {
            woken[1] = None; // one island, woken once
        }
        world.apply_impulse(ca, t, &impulse, &point)?;
        world.apply_impulse(cb, t, &-impulse, &point)?;
        self.touches.insert(p, t);
        for c in [a, b] {
            if self.dynamic(c, world) {
                self.hits_now[c] = if self.hit_at[c] == t {
                    self.hits_now[c] + 1
                } else {
                    1
                };
                self.hit_at[c] = t;
            }
        }
        self.events.push(CollisionEvent {
            time: t,
            kind,
            colliders: (ca, cb),
            point,
            normal: contact.normal,
            impulse,
        });
        // New flights: new swept boxes for the rest of the period (for a link, its whole
        // multibody's), and every heap pair of the changed colliders checked again now.
        let mut changed: Vec<usize> = Vec::new();
        for c in [a, b] {
            match self.colliders[c] {
                Collider::Body(id) => {
                    if world.bodies[id.0].is_dynamic() {
                        self.renew_box(c, t, world)?;
                        changed.push(c);
                    }
                }
                Collider::Link(m, _) => {
                    self.renew_envelope(m.0, t, Renewal::Impulse, world)?;
                    changed.extend(self.link_colliders[m.0].iter().copied());
                }
            }
        }
        // An impulse on a sleeper wakes its whole island: what it held up must fall again.
        for island in woken.into_iter().flatten() {
            changed.extend(self.wake_island(island, t, world)?);
        }
        self.recheck_moved(&changed, Some(p), t, world);
        Ok(())
    }

    /// Answers the microcollision of pair `p` at `t` together with every contact within the
    /// envelope of the bodies it reaches, by one simultaneous solve (see `response::cluster`),
    /// under `MicrocollisionClusters::Simultaneous`. Returns false, having applied nothing,
    /// where the single response of the thesis applies instead: the pair approaches at
    /// collision speed, the cluster is the pair alone, it reaches a multibody link, a sleeper
    /// or a body already hit at this instant, one of its contacts approaches at collision
    /// speed, or it has more than `MAX_CLUSTER_CONTACTS` contacts.
    ///
    /// The cluster grows from the pair's free bodies over their heap pairs whose contact is
    /// within the envelope at `t`; fixed and kinematic bodies bound it. Each contact is to
    /// separate at least at its microcollision rebound speed (none for a sideways contact),
    /// and an approaching one at least at its material's restitution times its approach: the
    /// whole cluster leaves on one flight, where one contact at a time left its neighbours to
    /// be hit on their own schedules.
    fn collide_cluster(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        let settings = world.settings;
        let gravity = settings.gravity.norm();
        if settings.microcollision_clusters != MicrocollisionClusters::Simultaneous
            || !settings.microcollisions
            || gravity == 0.0
        {
            return Ok(false);
        }
        let threshold_speed = (2.0 * gravity * settings.collision_epsilon).sqrt();
        if self.approach(p, &contact_point(contact), &contact.normal, world) >= threshold_speed {
            return Ok(false);
        }
        let mut scratch = std::mem::take(&mut self.cluster);
        let gathered = self.gather_cluster(p, contact, t, &mut scratch, world);
        let posed = matches!(gathered, Ok(true))
            && self.pose_cluster(t, threshold_speed, &mut scratch, world);
        let mut answered = false;
        if posed {
            let solution = solve_cluster(
                &mut scratch.bodies,
                &scratch.problem,
                CLUSTER_TOLERANCE * threshold_speed,
                MAX_CLUSTER_SWEEPS,
            );
            self.counters.cluster_sweeps += u64::from(solution.sweeps);
            // A solve that does not settle (sweeps that cycle, as Gauss–Seidel with friction
            // can) is not applied: the thesis's responses take the contacts one at a time.
            if solution.converged {
                self.apply_cluster(
                    p,
                    t,
                    &solution.impulses,
                    &mut scratch,
                    world,
                    threshold_speed,
                )?;
                answered = true;
            } else {
                self.counters.cluster_fallbacks += 1;
            }
        }
        self.cluster = scratch;
        gathered?;
        Ok(answered)
    }

    /// Gathers the cluster of pair `p` at `t` into `scratch`: its members (free bodies,
    /// expanded, and the fixed or kinematic bodies that bound it) and every piece pair within
    /// the envelope between them, in a deterministic order. False if the cluster cannot be
    /// answered at once (see [`Collisions::collide_cluster`]).
    fn gather_cluster(
        &mut self,
        p: Pair,
        contact: &Closest,
        t: f64,
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        let epsilon = world.settings.collision_epsilon;
        scratch.clear();
        scratch.seen.insert(p);
        for c in [p.0, p.1] {
            if !self.join_cluster(c, t, &mut scratch.members, world) {
                return Ok(false);
            }
        }
        self.piece_contacts(p, contact, &mut scratch.contacts, world);
        let mut next = 0;
        while next < scratch.members.len() {
            let c = scratch.members[next];
            next += 1;
            if !self.free_body(c, world) {
                continue;
            }
            scratch.pairs.clear();
            scratch.pairs.extend(self.pairs_of[c].iter().copied());
            scratch.pairs.sort_unstable();
            for k in 0..scratch.pairs.len() {
                let q = scratch.pairs[k];
                // Pairs found apart at their last check are left to it: a pair that may have
                // come within the envelope since would have been checked by now.
                let near = self
                    .instant_contacts
                    .get(&q)
                    .is_some_and(|(_, c)| c.distance < ALLOWANCE_DISTANCE * epsilon);
                if !near || !scratch.seen.insert(q) || !self.is_candidate(q) {
                    continue;
                }
                let Some(closest) = self.measure(q, t, world)? else {
                    continue;
                };
                if closest.distance >= CLUSTER_REACH * epsilon {
                    continue;
                }
                let other = if q.0 == c { q.1 } else { q.0 };
                if !scratch.members.contains(&other)
                    && !self.join_cluster(other, t, &mut scratch.members, world)
                {
                    return Ok(false);
                }
                self.piece_contacts(q, &closest, &mut scratch.contacts, world);
                if scratch.contacts.len() > MAX_CLUSTER_CONTACTS {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Poses the gathered cluster's problem in `scratch`: its bodies, and each piece pair's
    /// contact region as points (a box lying on a face is held at its four corners at once).
    /// False if a point approaches at collision speed (the thesis's single response is then
    /// due) or the cluster is a single point.
    fn pose_cluster(
        &self,
        t: f64,
        threshold_speed: f64,
        scratch: &mut ClusterScratch,
        world: &Participants<'_>,
    ) -> bool {
        let settings = world.settings;
        let gravity = settings.gravity.norm();
        let ClusterScratch {
            members,
            contacts,
            bodies,
            problem,
            sources,
            ..
        } = scratch;
        bodies.extend(members.iter().map(|&c| {
            let Collider::Body(id) = self.colliders[c] else {
                unreachable!("links never join a cluster")
            };
            let body = &world.bodies[id.0];
            ClusterBody {
                inverse_mass: body.inverse_mass(),
                inverse_inertia: body.inverse_inertia_world(),
                center_of_mass: body.center_of_mass(),
                velocity: body.state().velocity,
                angular_velocity: body.state().angular_velocity,
            }
        }));
        let index = |c: usize| members.iter().position(|&m| m == c).unwrap_or(0);
        // How long a resting body's hop lasts: up and down again at the rebound speed.
        let hop = 2.0 * settings.rebound(true) * threshold_speed / gravity;
        for (k, (q, closest)) in contacts.iter().enumerate() {
            let material = world
                .materials
                .between(self.colliders[q.0], self.colliders[q.1]);
            // As for a single microcollision: gravity brings a contact back only as far as it
            // acts along the normal, so a sideways contact gets no rebound.
            let closing = (settings.gravity.dot(&closest.normal) / gravity).abs();
            let rebound = settings.rebound(true) * threshold_speed * closing.sqrt();
            // A pair just beyond the envelope may approach only as fast as would bring it to
            // the middle of the envelope over `SETTLING_HOPS` hops of a resting body: the
            // solve must not throw a body into a neighbour it is about to touch (a domino's
            // top into the next one, as its foot is lifted), nor hold two bodies apart for
            // ever that are settling onto each other (a box on a box: they hop together).
            let touching = closest.distance < settings.collision_epsilon;
            let (t1, t2) = orthonormal_basis(&closest.normal);
            let frame = Mat3::from_columns(&[t1, t2, closest.normal]);
            // Gravity pulls a free body on a fixed one along the contact plane too, for the
            // whole flight to the next microcollision. Leaving with the opposite tangential
            // velocity, times the flight's half length, brings a stuck contact back to where it
            // left (see `drift_target`).
            let pull = |c: usize| {
                if self.free_body(c, world) {
                    settings.gravity
                } else {
                    Vec3::zeros()
                }
            };
            let relative_gravity = frame.transpose() * (pull(q.0) - pull(q.1));
            let part = |c: usize, i: usize| {
                let part = &self.models[c].parts[i];
                (
                    &part.convex,
                    world.model_pose(self.colliders[c]) * part.pose,
                )
            };
            let ((convex_a, pose_a), (convex_b, pose_b)) =
                (part(q.0, closest.parts.0), part(q.1, closest.parts.1));
            let epsilon = settings.collision_epsilon;
            for point in manifold(convex_a, &pose_a, convex_b, &pose_b, closest, epsilon) {
                let approach = self.approach(*q, &point, &closest.normal, world);
                if approach >= threshold_speed {
                    return false;
                }
                let separation = if touching {
                    rebound.max(material.restitution * approach.max(0.0))
                } else if hop > 0.0 {
                    -(closest.distance - 0.5 * settings.collision_epsilon) / (SETTLING_HOPS * hop)
                } else {
                    continue; // no hops: nothing holds a pair apart that is not touching
                };
                let initial = self
                    .warm
                    .get(q)
                    .and_then(|warm| warm.impulse_at(&point, t, epsilon, hop))
                    .map_or(Vec3::zeros(), |impulse| frame.transpose() * impulse);
                problem.push(ClusterContact {
                    bodies: (index(q.0), index(q.1)),
                    point,
                    frame,
                    friction: material.friction,
                    target: drift_target(&relative_gravity, separation),
                    initial,
                });
                sources.push(k);
            }
        }
        problem.len() >= 2
    }

    /// Applies a cluster's solved impulses (each contact point's, in its collision frame):
    /// each body's at once (one new flight each), recorded per contact point, and every pair
    /// of the bodies moved checked again.
    fn apply_cluster(
        &mut self,
        p: Pair,
        t: f64,
        impulses: &[Vec3],
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
        threshold_speed: f64,
    ) -> Result<(), SimulationError> {
        self.counters.cluster_solves += 1;
        for (q, _) in &scratch.contacts {
            self.settled.insert(
                *q,
                (t, SETTLED_RESIDUAL * CLUSTER_TOLERANCE * threshold_speed),
            );
            let warm = self.warm.entry(*q).or_default();
            warm.time = t;
            warm.points.clear();
        }
        scratch.taken.resize_with(scratch.members.len(), Vec::new);
        for ((c, &k), p_local) in scratch.problem.iter().zip(&scratch.sources).zip(impulses) {
            let (q, closest) = &scratch.contacts[k];
            let impulse = c.frame * p_local;
            if let Some(warm) = self.warm.get_mut(q) {
                warm.points.push((c.point, impulse));
            }
            if *p_local == Vec3::zeros() {
                continue;
            }
            scratch.taken[c.bodies.0].push((impulse, c.point));
            scratch.taken[c.bodies.1].push((-impulse, c.point));
            self.touches.insert(*q, t);
            self.counters.microcollisions += 1;
            self.events.push(CollisionEvent {
                time: t,
                kind: ResponseKind::Simultaneous,
                colliders: (self.colliders[q.0], self.colliders[q.1]),
                point: c.point,
                normal: closest.normal,
                impulse,
            });
        }
        self.respond_at(t);
        scratch.moved.clear();
        for (&m, impulses) in scratch.members.iter().zip(&scratch.taken) {
            if impulses.is_empty() || !self.free_body(m, world) {
                continue;
            }
            let Collider::Body(id) = self.colliders[m] else {
                continue;
            };
            let body = &mut world.bodies[id.0];
            body.apply_impulses(t, impulses)
                .map_err(|error| SimulationError::Integration {
                    body: body.name().to_string(),
                    error,
                })?;
            self.hits_now[m] = 1;
            self.hit_at[m] = t;
            self.renew_box(m, t, world)?;
            scratch.moved.push(m);
        }
        self.recheck_moved(&scratch.moved, Some(p), t, world);
        Ok(())
    }

    /// How fast pair `(a, b)` approaches at `point` along `normal` (negative: separating).
    fn approach(
        &self,
        (a, b): Pair,
        point: &Point,
        normal: &Vec3,
        world: &Participants<'_>,
    ) -> f64 {
        let u = world.point_velocity(self.colliders[a], point)
            - world.point_velocity(self.colliders[b], point);
        -u.dot(normal)
    }

    /// Pushes pair `q`'s piece pairs within the cluster's reach (`closest` the closest of them;
    /// both colliders sampled): the closest alone for two single-part colliders, else every
    /// piece pair the narrow phase finds that near (a cap lying on a tray rests on several).
    fn piece_contacts(
        &mut self,
        q: Pair,
        closest: &Closest,
        out: &mut Vec<(Pair, Closest)>,
        world: &Participants<'_>,
    ) {
        let epsilon = world.settings.collision_epsilon;
        if self.models[q.0].parts.len() == 1 && self.models[q.1].parts.len() == 1 {
            out.push((q, *closest));
            return;
        }
        let near = self.search(q, &mut Slack(CLUSTER_REACH * epsilon), world);
        out.extend(
            near.pairs
                .iter()
                .filter(|c| c.distance < CLUSTER_REACH * epsilon)
                .map(|c| (q, *c)),
        );
    }

    /// The narrow phase's closest piece pairs of pair `q` where its colliders are now, and
    /// those `beyond` asks for, from the pair's cache.
    fn search<B: Beyond>(
        &mut self,
        q: Pair,
        beyond: &mut B,
        world: &Participants<'_>,
    ) -> NearParts {
        let (ca, cb) = (self.colliders[q.0], self.colliders[q.1]);
        closest_parts(
            &self.models[q.0],
            &world.model_pose(ca),
            &self.models[q.1],
            &world.model_pose(cb),
            beyond,
            self.caches.entry(q).or_default(),
            &mut self.narrow,
        )
    }

    /// Counts a response at instant `t` and returns how many that instant has had (a new
    /// instant forgets the last one's settled sweeps).
    fn respond_at(&mut self, t: f64) -> u64 {
        if self.instant.0 == t {
            self.instant.1 += 1;
        } else {
            self.instant = (t, 1);
            self.sweeps.clear();
        }
        self.instant.1
    }

    /// Adds collider `c` to a cluster being gathered at `t`, sampled there; false if it cannot
    /// join one: a multibody link, a sleeper, or a body already hit at this instant.
    fn join_cluster(
        &self,
        c: usize,
        t: f64,
        members: &mut Vec<usize>,
        world: &mut Participants<'_>,
    ) -> bool {
        let Collider::Body(id) = self.colliders[c] else {
            return false;
        };
        let body = &world.bodies[id.0];
        if body.is_asleep() || (body.is_dynamic() && self.hit_at[c] == t) {
            return false;
        }
        members.push(c);
        true
    }

    /// Whether collider `c` is a free (dynamic) rigid body.
    fn free_body(&self, c: usize, world: &Participants<'_>) -> bool {
        matches!(self.colliders[c], Collider::Body(id) if world.bodies[id.0].is_dynamic())
    }

    /// Pair `q`'s closest contact at `t`: the one measured at this instant, or a new search
    /// (both colliders sampled at `t`).
    fn measure(
        &mut self,
        q: Pair,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<Option<Closest>, SimulationError> {
        if let Some(&(measured, contact)) = self.instant_contacts.get(&q)
            && measured == t
        {
            return Ok(Some(contact));
        }
        self.counters.collision_checks += 1;
        world.sample(self.colliders[q.0], t)?;
        world.sample(self.colliders[q.1], t)?;
        let near = self.search(q, &mut Slack(0.0), world);
        let Some(&contact) = near.pairs.first() else {
            return Ok(None);
        };
        self.instant_contacts.insert(q, (t, contact));
        self.note_depth(q, &contact, t, world)?;
        Ok(Some(contact))
    }

    /// Speed of collider `c`'s fastest point: `|v| + r |ω|` (infinite for a link: links never
    /// sleep).
    fn speed(&self, c: usize, world: &Participants<'_>) -> f64 {
        match self.colliders[c] {
            Collider::Body(id) => {
                let s = world.bodies[id.0].state();
                s.velocity.norm() + self.reach[c] * s.angular_velocity.norm()
            }
            Collider::Link(..) => f64::INFINITY,
        }
    }

    /// Wakes every sleeper of `island` at `t` (at rest: each starts a free flight) and returns
    /// them, whose swept boxes are renewed and whose pairs are to be checked again.
    fn wake_island(
        &mut self,
        island: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<Vec<usize>, SimulationError> {
        let members: Vec<usize> = (0..self.colliders.len())
            .filter(|&c| self.islands[c] == Some(island))
            .collect();
        for &c in &members {
            self.islands[c] = None;
            self.stillness[c] = self.still_from(c, t, world);
            if let Collider::Body(id) = self.colliders[c] {
                world.wake(id, t)?;
            }
            self.renew_box(c, t, world)?;
        }
        self.counters.wakes += 1;
        Ok(members)
    }

    /// Collider `c` still from `t`, where it is now (a link's pose is not tracked: links never
    /// sleep).
    fn still_from(&self, c: usize, t: f64, world: &Participants<'_>) -> Stillness {
        match self.colliders[c] {
            Collider::Body(id) => {
                let s = world.bodies[id.0].state();
                Stillness::new(t, s.position, s.orientation)
            }
            Collider::Link(..) => Stillness::new(t, Vec3::zeros(), Quat::identity()),
        }
    }

    /// Puts to sleep, at a box refresh at `t`, every island whose bodies have all stayed still
    /// for the sleep time (see [`super::sleep`]).
    fn settle(&mut self, t: f64, world: &mut Participants<'_>) -> Result<(), SimulationError> {
        let settings = world.settings;
        let since = t - settings.sleep.time;
        let gravity = settings.gravity.norm();
        let epsilon = settings.collision_epsilon;
        let drift = settings.sleep.slow_speed(gravity, epsilon) * settings.sleep.time;
        let ceiling =
            settings
                .sleep
                .speed_ceiling(gravity, epsilon, settings.microcollision_max_restitution);
        let n = self.colliders.len();
        // Which colliders may sleep: free bodies, awake or asleep, without applied torque.
        let mut sleeper = vec![false; n];
        for (c, may) in sleeper.iter_mut().enumerate() {
            let Collider::Body(id) = self.colliders[c] else {
                continue;
            };
            let body = &world.bodies[id.0];
            if !body.is_dynamic() || body.torque() != Vec3::zeros() {
                continue;
            }
            *may = true;
            // (Sampled at `t` by the box refresh that calls this.)
            if !body.is_asleep() {
                let s = body.state();
                if self.speed(c, world) > ceiling {
                    self.stillness[c].restart(t, s.position, s.orientation);
                } else {
                    self.stillness[c].sample(
                        t,
                        s.position,
                        s.orientation,
                        self.reach[c],
                        drift,
                        settings.sleep.time,
                    );
                }
            }
        }
        self.touches.retain(|_, at| *at >= since);
        let members: Vec<Member> = (0..n)
            .map(|c| Member {
                may_sleep: sleeper[c],
                restless: !sleeper[c] && self.moves(c, world) && !self.stationary(c, world),
                still_since: self.stillness[c].since(),
                island: self.islands[c],
            })
            .collect();
        let mut fell = Vec::new();
        let mut islands = FastSet::default();
        for (c, island) in falling_asleep(&members, self.touches.keys().copied(), since) {
            islands.insert(island);
            self.islands[c] = Some(island);
            let Collider::Body(id) = self.colliders[c] else {
                continue;
            };
            if world.bodies[id.0].is_asleep() {
                continue;
            }
            world.bodies[id.0].fall_asleep();
            self.renew_box(c, t, world)?;
            fell.push(c);
        }
        if fell.is_empty() {
            return Ok(());
        }
        self.counters.sleeps += islands.len() as u64;
        self.recheck_moved(&fell, None, t, world);
        Ok(())
    }
}

/// Allowances. An impulse on a body changes its motion, so every pair of the body would be
/// checked again at once, under the new motion (the thesis's rule). A body resting on the
/// floor takes thousands of microcollisions a second, each changing its velocities by about
/// the microcollision threshold speed `√(2 g ε)`, and each would have its every neighbour
/// checked again: a coin lying among seven others had its seven far pairs checked with each
/// of its 25 000 microcollisions. So a pair farther apart than `ALLOWANCE_DISTANCE` envelopes
/// at its last check gets its next check under travel bounds widened by a speed `s` in every
/// direction (`ALLOWANCE` threshold speeds), and an impulse that leaves the body's velocities
/// within `s` of the motion the bound assumed leaves that check where it is
/// ([`Collisions::within_allowance`]). Near pairs keep the exact bounds, which the resting
/// contacts' scheduling relies on.
const ALLOWANCE: f64 = 4.0;
const ALLOWANCE_DISTANCE: f64 = 2.0;

/// The motion an allowance is measured from: a free body's motion at the time its pair's check
/// was set.
#[derive(Clone, Copy, Debug)]
struct Anchor {
    time: f64,
    motion: FreeMotion,
    allowance: f64,
}

/// A free body's velocity, acceleration and angular-speed bound, as an allowance compares them
/// with its anchor's.
#[derive(Clone, Copy, Debug)]
struct FreeMotion {
    velocity: Vec3,
    acceleration: Vec3,
    angular_speed: f64,
}

/// Bound on a torque-free body's angular speed over its flight: the energy bound (eq. 2.5),
/// with room for the integrator's energy error.
fn free_angular_speed(body: &RigidBody) -> f64 {
    let omega_body = body.state().orientation.inverse() * body.state().angular_velocity;
    energy_bound(&body.principal_inertia(), &omega_body) * (1.0 + 1e-9)
}

/// The stall guard: more than `STALL_EVENTS` heap events per collider while time advances by
/// less than `STALL_SPAN` of itself (plus one unit) is motion too fast to resolve.
pub(crate) const STALL_SPAN: f64 = 1e-12;
const STALL_EVENTS: u64 = 20_000;

/// Impulses a collider may take at one instant before its contacts' responses become plain
/// inelastic collisions, with no microcollision rebound (see `Collisions::collide`).
const CASCADE_REBOUNDS: u32 = 16;

/// The impulses a pair's contact points took at its last cluster solve (world frame, on the
/// pair's first collider), to start the next solve from: a resting pile takes much the same
/// impulses hop after hop, and its sweeps then settle sooner.
#[derive(Clone, Debug, Default)]
struct WarmStart {
    time: f64,
    points: Vec<(Point, Vec3)>,
}

impl WarmStart {
    /// The impulse last taken near `point`: at the stored point within `WARM_REACH` envelopes
    /// of it, if the solve was no more than `WARM_HOPS` hops before `t`.
    fn impulse_at(&self, point: &Point, t: f64, epsilon: f64, hop: f64) -> Option<Vec3> {
        if t - self.time > WARM_HOPS * hop {
            return None;
        }
        self.points
            .iter()
            .map(|(p, impulse)| ((p - point).norm_squared(), impulse))
            .filter(|(d2, _)| *d2 <= (WARM_REACH * epsilon).powi(2))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, impulse)| *impulse)
    }
}

const WARM_HOPS: f64 = 4.0;
const WARM_REACH: f64 = 10.0;

/// Storage a cluster solve keeps between instants (see [`Collisions::collide_cluster`]).
#[derive(Default)]
struct ClusterScratch {
    members: Vec<usize>,
    contacts: Vec<(Pair, Closest)>,
    seen: FastSet<Pair>,
    pairs: Vec<Pair>,
    bodies: Vec<ClusterBody>,
    problem: Vec<ClusterContact>,
    /// Which of `contacts` each point of `problem` belongs to.
    sources: Vec<usize>,
    /// Per member, the impulses it takes.
    taken: Vec<Vec<(Vec3, Point)>>,
    moved: Vec<usize>,
}

impl ClusterScratch {
    fn clear(&mut self) {
        self.members.clear();
        self.contacts.clear();
        self.seen.clear();
        self.bodies.clear();
        self.problem.clear();
        self.sources.clear();
        for taken in &mut self.taken {
            taken.clear();
        }
    }
}

/// The velocity a resting contact is to leave with (collision frame): separating at
/// `separation`, and against the pull of gravity along the contact plane so that it comes back
/// where it left. Relative to its support a body leaving with `u` is at `u τ + ½ a τ²` after
/// `τ` (`a` the relative gravity); with `u_z = s` it returns to the plane at `τ = 2 s / g_n`
/// (`g_n = −a_z`, pressing it on), and `u_t = −a_t s / g_n` brings its tangential drift back
/// to zero there. Friction supplies it while it can (`|a_t| / g_n = tan θ ≤ μ` on a slope of
/// angle θ: static friction's own condition). Nothing when gravity does not press the contact.
fn drift_target(relative_gravity: &Vec3, separation: f64) -> Vec3 {
    let pressing = -relative_gravity.z;
    if pressing > 0.0 {
        let back = -separation / pressing;
        Vec3::new(
            relative_gravity.x * back,
            relative_gravity.y * back,
            separation,
        )
    } else {
        Vec3::new(0.0, 0.0, separation)
    }
}

/// How far apart (in envelopes) two bodies may be and still enter a cluster solve: those in
/// the envelope rebound, those just beyond it are kept from approaching.
const CLUSTER_REACH: f64 = 2.0;
/// Over how many hops of a resting cluster a pair just beyond the envelope may close to the
/// middle of it (see `Collisions::pose_cluster`). Measured on the dominos (instructions per
/// run, mean of 16 perturbed launches): closing in 4 hops 424 M, 8 hops 422 M, 16 hops 346 M,
/// 64 hops 342 M, never 316 M (but two boxes that start a little apart then float apart).
const SETTLING_HOPS: f64 = 16.0;
/// Most contacts a simultaneous cluster solve takes; larger clusters are answered one contact
/// at a time.
const MAX_CLUSTER_CONTACTS: usize = 256;
/// A cluster solve stops when a sweep changes no body's velocity at its contacts by more than
/// this share of the microcollision threshold speed, or after `MAX_CLUSTER_SWEEPS` sweeps. A
/// resting contact's next hop starts from what is left, a hundredth of the threshold at most.
/// Measured (instructions per run, mean of 32 perturbed launches): dominos 310 M at 3e-3 and
/// 277 M at 1e-2; the V1 block creeps 0.00019 cm in 3 s at 1e-2 (ε_c = 1e-3 cm), and a dropped
/// box does not drift.
const CLUSTER_TOLERANCE: f64 = 1e-2;
const MAX_CLUSTER_SWEEPS: u32 = 1000;
/// A contact a cluster solve settled approaches, at that instant, by at most this many times
/// the solve's tolerance (what the sweeps leave); answering that as a collision would set off
/// the cascade the solve replaces.
const SETTLED_RESIDUAL: f64 = 10.0;

/// Largest factor by which a settled sweep's response is extrapolated (ρ ≤ 0.999).
const MAX_EXTRAPOLATION: f64 = 1000.0;

/// A pair's normal impulses in a settled sweep at one instant: the last, and its ratio to the
/// one before.
#[derive(Clone, Copy, Debug)]
struct Sweep {
    last: f64,
    ratio: f64,
}

/// Aitken's Δ² on a pair's sweep: given its sweep so far and its new response's normal impulse,
/// the factor to apply to that response and the sweep to keep (`None` once extrapolated: the
/// series is taken whole, and a later round starts afresh). When the ratio of successive
/// impulses repeats (to 0.1 %), the factor is the geometric tail `1/(1 − ρ)`, so that this
/// response stands for itself and every later one of the series.
fn extrapolate(sweep: Option<Sweep>, normal: f64) -> (f64, Option<Sweep>) {
    let Some(sweep) = sweep else {
        return (
            1.0,
            Some(Sweep {
                last: normal,
                ratio: f64::NAN,
            }),
        );
    };
    let ratio = normal / sweep.last;
    if ratio > 0.0 && ratio < 1.0 && (ratio - sweep.ratio).abs() < 1e-3 * ratio {
        ((1.0 / (1.0 - ratio)).min(MAX_EXTRAPOLATION), None)
    } else {
        (
            1.0,
            Some(Sweep {
                last: normal,
                ratio,
            }),
        )
    }
}

/// When a pair must be checked again, gathered piece pair by piece pair while the narrow
/// phase searches. The time-of-impact bound relies on convexity (Fig. 2.9), so every pair of
/// convex pieces within `slack` of the closest gets its own check time, along its own
/// separating direction; those farther share the direction-free bound's time for the least
/// gap among them.
///
/// A node of piece pairs whose spheres are `gap > ε/2` apart is not examined when the
/// direction-free bound's time for `gap` is no sooner than the soonest found, or than the
/// horizon: outside the envelope a piece pair's own time is at least that (its bound along its
/// direction is smaller, its distance larger), so leaving it out never brings a check later.
/// A cap lying on a tray has a dozen pieces within the slack of the closest, and the one
/// touching decides; two bowling pins apart and separating would otherwise have every piece
/// pair examined, for a check time of "never".
struct SoonestCheck {
    motion: (MotionBound, MotionBound),
    /// The pair's direction-free travel bound ([`any_direction_between`]).
    anywhere: TravelBound,
    epsilon: f64,
    slack: f64,
    /// The soonest check time of the piece pairs examined so far, at most the horizon.
    soonest: f64,
    /// The least gap of the nodes left out for lying beyond the slack.
    beyond_slack: f64,
}

impl SoonestCheck {
    /// A pair is checked again whenever either body is hit, and at least once per `horizon`
    /// (the box period) otherwise.
    fn new(motion: (MotionBound, MotionBound), epsilon: f64, slack: f64, horizon: f64) -> Self {
        Self {
            motion,
            anywhere: any_direction_between(&motion.0, &motion.1),
            epsilon,
            slack,
            soonest: horizon,
            beyond_slack: f64::INFINITY,
        }
    }

    /// The delay before the pair's next check.
    fn delay(&self) -> f64 {
        if self.beyond_slack.is_finite() {
            let beyond = next_check_delay(self.anywhere, self.beyond_slack, self.epsilon);
            self.soonest.min(beyond)
        } else {
            self.soonest
        }
    }
}

impl Beyond for SoonestCheck {
    fn examined(&mut self, pair: &Closest) {
        // Two bounds on the approach (eq. 2.13, and by the turning of the supporting planes);
        // the later time each allows is still safe.
        let (motion_a, motion_b) = self.motion;
        let direction = -pair.normal;
        let spinning = motion_a.along(&direction) + motion_b.along(&-direction);
        let by_spin = next_check_delay(spinning, pair.distance, self.epsilon);
        if by_spin >= self.soonest {
            return; // the later of the two times cannot be sooner
        }
        let turning =
            motion_a.along_by_turning(&direction) + motion_b.along_by_turning(&-direction);
        let safe = by_spin.max(next_check_delay(turning, pair.distance, self.epsilon));
        self.soonest = self.soonest.min(safe);
    }

    fn skip(&mut self, gap: f64, closest: f64) -> bool {
        if gap >= closest + self.slack {
            self.beyond_slack = self.beyond_slack.min(gap);
            return true;
        }
        gap > 0.5 * self.epsilon
            && next_check_delay(self.anywhere, gap, self.epsilon) >= self.soonest
    }
}

/// Every collider of a world and its collision geometry.
pub(crate) struct ColliderTable {
    /// The bodies first, then each multibody's links that have shapes.
    pub colliders: Vec<Collider>,
    /// Collider index of each multibody's links.
    pub link_colliders: Vec<Vec<usize>>,
    pub models: Vec<CollisionModel>,
    /// Reach from the centre of the collider's motion (centre of mass, or the model origin of
    /// fixed and kinematic bodies), and its spin reach.
    pub reach: Vec<f64>,
    pub spin_reach: Vec<f64>,
    /// The fixed body (collider index) a root link hangs from.
    pub anchors: Vec<Option<usize>>,
    /// Free bodies that are symmetric tops (see [`Symmetry`]).
    pub symmetries: Vec<Option<Symmetry>>,
}

/// A free body whose collision geometry is a solid of revolution about an axis through its
/// centre of mass, with inertia symmetric about that axis (moment `I₃` along it, `I₁` across).
/// Spin about the axis moves no supporting plane of it, and torque-free it keeps both its spin
/// `ω₃` and the size of the rest of its angular velocity, `|ω⊥|` (Euler's equations for a
/// symmetric top), so a rolling wheel or coin gets a turning bound of its wobble alone (see
/// `Collisions::motion_bound`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Symmetry {
    /// The axis, in the body (principal) frame.
    axis: Vec3,
    /// `|I₃ − I₁| / I₁`.
    ratio: f64,
}

impl Symmetry {
    /// The symmetry of a free body with this collision model, if it is a symmetric top.
    fn of(body: &RigidBody, model: &CollisionModel) -> Option<Self> {
        if !body.is_dynamic() {
            return None;
        }
        let (point, axis) = model.symmetry_axis()?;
        let mass = body.mass_properties();
        let offset = point - mass.center_of_mass;
        let size = model.reach_from(&mass.center_of_mass);
        if (offset - axis * offset.dot(&axis)).norm() > 1e-9 * size {
            return None; // the axis misses the centre of mass (point masses)
        }
        let inertia = mass.inertia;
        let along = axis.dot(&(inertia * axis));
        let across = 0.5 * (inertia.trace() - along);
        let top = Mat3::identity() * across + axis * axis.transpose() * (along - across);
        if (inertia - top).norm() > 1e-9 * inertia.trace() || across <= 0.0 {
            return None;
        }
        Some(Self {
            axis: body.body_to_model().rotation.inverse() * axis,
            ratio: (along - across).abs() / across,
        })
    }
}

impl ColliderTable {
    pub fn new(bodies: &[RigidBody], multibodies: &[Multibody]) -> Self {
        let mut table = Self {
            colliders: Vec::new(),
            link_colliders: Vec::new(),
            models: Vec::new(),
            reach: Vec::new(),
            spin_reach: Vec::new(),
            anchors: Vec::new(),
            symmetries: Vec::new(),
        };
        let push = |table: &mut Self, collider, model: CollisionModel, centre, anchor| {
            table.reach.push(model.reach_from(&centre));
            table.spin_reach.push(model.spin_reach_from(&centre));
            let symmetry = match collider {
                Collider::Body(id) => Symmetry::of(&bodies[id.0], &model),
                Collider::Link(..) => None,
            };
            table.symmetries.push(symmetry);
            table.models.push(model);
            table.colliders.push(collider);
            table.anchors.push(anchor);
        };
        for (i, body) in bodies.iter().enumerate() {
            let centre = match body.motion() {
                MotionType::Dynamic => body.mass_properties().center_of_mass,
                _ => Point::origin(),
            };
            let model = CollisionModel::from_shapes(body.shapes());
            push(&mut table, Collider::Body(BodyId(i)), model, centre, None);
        }
        for (m, multibody) in multibodies.iter().enumerate() {
            let mut indices = Vec::new();
            for (l, link) in multibody.tree().links().iter().enumerate() {
                if link.shapes.is_empty() {
                    continue;
                }
                let anchor = link
                    .attached_to
                    .as_ref()
                    .filter(|_| link.parent.is_none())
                    .and_then(|name| bodies.iter().position(|b| b.name() == name));
                indices.push(table.colliders.len());
                let model = CollisionModel::from_shapes(&link.shapes);
                let centre = Point::from(link.body_to_model.translation.vector);
                push(
                    &mut table,
                    Collider::Link(MultibodyId(m), l),
                    model,
                    centre,
                    anchor,
                );
            }
            table.link_colliders.push(indices);
        }
        table
    }
}

/// Whether two colliders (with their anchors and indices) may collide at all: something in
/// the pair responds to impulses, and it is not two links of one multibody nor a root link and
/// the fixed body it hangs from.
pub(crate) fn may_collide(
    colliders: (Collider, Collider),
    anchors: (Option<usize>, Option<usize>),
    indices: (usize, usize),
    something_dynamic: bool,
) -> bool {
    if !something_dynamic {
        return false;
    }
    if let (Collider::Link(m, _), Collider::Link(n, _)) = colliders
        && m == n
    {
        return false;
    }
    anchors.0 != Some(indices.1) && anchors.1 != Some(indices.0)
}

/// Why a multibody's envelope is renewed, which sets how far ahead the next one reaches. Each
/// impulse on a link discards the integration ahead, so a multibody under a train of
/// microcollisions is bounded only about twice as far ahead as its last impulse was ago; one
/// left alone doubles its span at each renewal, up to the box period.
#[derive(Clone, Copy, Debug)]
enum Renewal {
    /// A new box period: the span is kept.
    Period,
    /// The envelope ran out (its span, or a controller update): the span doubles.
    Expired,
    /// An impulse on one of its links: twice the time since the previous one.
    Impulse,
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

/// What the loop works on: the world's bodies and multibodies, its settings and contact
/// materials.
pub(crate) struct Participants<'a> {
    pub bodies: &'a mut [RigidBody],
    pub multibodies: &'a mut [Multibody],
    pub observations: &'a mut Observations,
    pub settings: &'a WorldSettings,
    pub materials: &'a MaterialTable<'a>,
}

impl Participants<'_> {
    /// Wakes body `id` at `t` if it is asleep.
    fn wake(&mut self, id: BodyId, t: f64) -> Result<(), SimulationError> {
        let body = &mut self.bodies[id.0];
        body.wake(t).map_err(|error| SimulationError::Integration {
            body: body.name().to_string(),
            error,
        })
    }

    /// Moves collider `c` (a body, or a link's whole multibody) to time `t`, checking its
    /// state stays finite.
    fn sample(&mut self, c: Collider, t: f64) -> Result<(), SimulationError> {
        match c {
            Collider::Body(id) => super::advance_body(&mut self.bodies[id.0], t),
            Collider::Link(m, _) => self.advance_multibody(m.0, t),
        }
    }

    fn advance_multibody(&mut self, m: usize, t: f64) -> Result<(), SimulationError> {
        let multibody = &mut self.multibodies[m];
        multibody
            .advance_observed(t, self.observations)
            .map_err(|error| SimulationError::Multibody {
                multibody: multibody.name().to_string(),
                error,
            })
    }

    /// Display name: the body's, or `multibody/link`.
    fn name(&self, c: Collider) -> String {
        match c {
            Collider::Body(id) => self.bodies[id.0].name().to_string(),
            Collider::Link(m, l) => {
                let multibody = &self.multibodies[m.0];
                format!("{}/{}", multibody.name(), multibody.tree().links()[l].name)
            }
        }
    }

    fn model_pose(&self, c: Collider) -> Pose {
        match c {
            Collider::Body(id) => self.bodies[id.0].model_pose(),
            Collider::Link(m, l) => self.multibodies[m.0].link_model_pose(l),
        }
    }

    fn point_velocity(&self, c: Collider, point: &Point) -> Vec3 {
        match c {
            Collider::Body(id) => self.bodies[id.0].point_velocity(point),
            Collider::Link(m, l) => self.multibodies[m.0].point_velocity(l, &point.coords),
        }
    }

    /// The collider's share of the collision matrix at `point`, world frame.
    fn collision_matrix(&self, c: Collider, point: &Point) -> Mat3 {
        match c {
            Collider::Body(id) => {
                let body = &self.bodies[id.0];
                body_collision_matrix(
                    body.inverse_mass(),
                    &body.inverse_inertia_world(),
                    &(point - body.center_of_mass()),
                )
            }
            Collider::Link(m, l) => self.multibodies[m.0].collision_matrix(l, &point.coords),
        }
    }

    fn apply_impulse(
        &mut self,
        c: Collider,
        t: f64,
        impulse: &Vec3,
        point: &Point,
    ) -> Result<(), SimulationError> {
        match c {
            Collider::Body(id) => {
                let body = &mut self.bodies[id.0];
                body.apply_impulse(t, impulse, point).map_err(|error| {
                    SimulationError::Integration {
                        body: body.name().to_string(),
                        error,
                    }
                })
            }
            Collider::Link(m, l) => {
                self.multibodies[m.0].apply_impulse(l, &point.coords, impulse);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyDesc, PlacedShape};
    use crate::geometry::Shape;
    use crate::integrate::Tolerance;
    use crate::math::Quat;

    fn symmetry(shapes: Vec<PlacedShape>, point_masses: Vec<(f64, Point)>) -> Option<Symmetry> {
        let mut desc = BodyDesc::new("body", Shape::Sphere { radius: 1.0 });
        desc.shapes = shapes;
        desc.point_masses = point_masses;
        let body = RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        Symmetry::of(&body, &CollisionModel::from_shapes(body.shapes()))
    }

    #[test]
    fn symmetric_tops_are_solids_of_revolution_with_symmetric_inertia() {
        let tilted = |shape: Shape| PlacedShape {
            shape,
            pose: Pose::from_parts(
                Vec3::new(0.3, -0.2, 0.1).into(),
                Quat::from_scaled_axis(Vec3::new(0.4, 0.2, -0.3)),
            ),
            density: None,
        };
        let cylinder = Shape::Cylinder {
            radius: 1.0,
            half_height: 0.1,
        };
        // A coin, placed anywhere: its axis, in the principal frame, and the moments' ratio
        // |I₃ − I₁| / I₁ with I₃ = m r²/2, I₁ = m (3 r² + h²)/12 (h = 0.2): 0.9868.
        let top = symmetry(vec![tilted(cylinder.clone())], Vec::new()).expect("a symmetric top");
        assert!((top.axis.norm() - 1.0).abs() < 1e-12);
        let (i3, i1) = (0.5, (3.0 + 0.04) / 12.0);
        assert!((top.ratio - (i3 - i1) / i1).abs() < 1e-9, "{}", top.ratio);
        // Ellipsoids of revolution are; a triaxial one, a sphere, a box are not.
        let ellipsoid = |radii: Vec3| symmetry(vec![tilted(Shape::Ellipsoid { radii })], vec![]);
        assert!(ellipsoid(Vec3::new(1.0, 2.0, 1.0)).is_some());
        assert!(ellipsoid(Vec3::new(1.0, 2.0, 3.0)).is_none());
        assert!(ellipsoid(Vec3::repeat(1.0)).is_none());
        let cube = Shape::Box {
            half_extents: Vec3::repeat(1.0),
        };
        assert!(symmetry(vec![tilted(cube)], Vec::new()).is_none());
        // A point mass off the axis moves the centre of mass off it; one on the axis keeps
        // the symmetry; two parts are not one solid of revolution.
        let coin = PlacedShape::new(cylinder);
        assert!(symmetry(vec![coin.clone()], vec![(0.5, Point::new(0.5, 0.0, 0.0))]).is_none());
        assert!(symmetry(vec![coin.clone()], vec![(0.5, Point::new(0.0, 0.0, 0.05))]).is_some());
        assert!(symmetry(vec![coin.clone(), coin], Vec::new()).is_none());
    }

    #[test]
    fn extrapolating_a_geometric_sweep_takes_its_whole_sum() {
        // Impulses 1, 0.9, 0.81, …: the third repeats the ratio 0.9 and stands for the rest,
        // 0.81 / (1 − 0.9) = 8.1, so the total is the series' sum 1 / (1 − 0.9) = 10.
        let (f1, s1) = extrapolate(None, 1.0);
        let (f2, s2) = extrapolate(s1, 0.9);
        let (f3, s3) = extrapolate(s2, 0.81);
        assert_eq!((f1, f2), (1.0, 1.0));
        assert!(s3.is_none());
        assert!((1.0 + 0.9 + 0.81 * f3 - 10.0).abs() < 1e-12);
        // Not geometric: no extrapolation.
        let (f, s) = extrapolate(
            Some(Sweep {
                last: 1.0,
                ratio: 0.5,
            }),
            0.9,
        );
        assert_eq!(f, 1.0);
        assert!(s.is_some());
        // Growing or sign-changing impulses are never extrapolated.
        assert_eq!(
            extrapolate(
                Some(Sweep {
                    last: 1.0,
                    ratio: 2.0
                }),
                2.0
            )
            .0,
            1.0
        );
        assert_eq!(
            extrapolate(
                Some(Sweep {
                    last: 1.0,
                    ratio: -0.5
                }),
                -0.5
            )
            .0,
            1.0
        );
    }

    #[test]
    fn an_extrapolated_two_contact_sweep_reaches_the_simultaneous_solution() {
        // A wedge: two contacts approaching at a, where an impulse at one drives the body into
        // the other at c per unit (c near 1 when friction feeds the wedge). The simultaneous
        // inelastic impulses solve λ₁ − c λ₂ = a₁, λ₂ − c λ₁ = a₂. Gauss–Seidel answers one
        // contact at a time and its impulses shrink by c² a round: ~4000 rounds to 1e-9 here.
        // With the extrapolation the sweep ends in a few rounds at the same impulses.
        let c: f64 = 0.995;
        let a = [0.3, 0.2];
        let exact = [
            (a[0] + c * a[1]) / (1.0 - c * c),
            (a[1] + c * a[0]) / (1.0 - c * c),
        ];
        let mut lambda = [0.0; 2];
        let mut sweeps = [None, None];
        let mut responses = 0;
        loop {
            let mut moved = false;
            for i in 0..2 {
                let j = 1 - i;
                let approach = a[i] - lambda[i] + c * lambda[j];
                if approach <= 1e-12 * exact[i] {
                    continue;
                }
                let (factor, sweep) = extrapolate(sweeps[i], approach);
                sweeps[i] = sweep;
                lambda[i] += approach * factor;
                responses += 1;
                moved = true;
            }
            if !moved || responses > 10_000 {
                break;
            }
        }
        assert!(responses < 20, "{responses} responses");
        for i in 0..2 {
            assert!(
                (lambda[i] - exact[i]).abs() < 1e-9 * exact[i],
                "{lambda:?} vs {exact:?}"
            );
        }
    }
}
