//! The event loop of impulse-based simulation (Mirtich §2.3–2.4, §3.2): one event at a time.
//!
//! Every pair of colliders that could meet soon has an entry in the collision heap, timed at
//! a conservative lower bound on when it could next come within the collision envelope. An
//! event is taken in phases, each in its own file:
//!
//! 1. **pop** ([`EventLoop::process_next`]): the earliest event, guarded against time that
//!    stops advancing;
//! 2. **box refresh** ([`super::boxes`]) at each box period: every moving collider's swept box
//!    into the broad phase, new candidate pairs into the heap, then **sleep**
//!    ([`super::islands`]) for islands of bodies that have stayed still;
//! 3. **horizon** ([`super::envelopes`]): a multibody's motion envelope ran out and is renewed;
//! 4. **pair check** ([`super::pair_check`]): both colliders sampled at the event's time, the
//!    narrow phase's closest pieces, the depth guarded;
//! 5. **respond** ([`super::respond`]), if the pair is within the envelope and approaching:
//!    by the contact model — a simultaneous cluster solve ([`super::clusters`], the contact
//!    layer of [`crate::contact`]) or a single frictional collision or microcollision;
//! 6. **propagate** ([`super::boxes`]): the colliders whose motion changed get new boxes, and
//!    their other pairs are checked again now (unless an allowance covers them);
//! 7. **reschedule** ([`super::schedule`]): the pair's next check from the time-of-impact bound.
//!
//! Colliders are asked everything through the collider table ([`super::colliders`]), which
//! alone knows whether one is a body or a multibody link.

use super::clusters::Clusters;
use super::colliders::{Colliders, Participants};
use super::envelopes::{Envelopes, Renewal};
use super::islands::Islands;
use super::pair_check::PairChecks;
use super::respond::Responses;
use super::schedule::{PairSet, Schedule};
use super::{BroadPhaseKind, CollisionEvent, Counters, SimulationError};
use crate::collision::broad::{
    AnyBroadPhase, BroadPhase, FastMap, HierarchicalHash, SweepAndPrune, pair,
};
use crate::collision::heap::EventHeap;

/// Heap events. At equal times box refreshes come first, then multibody horizons, then pairs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub(super) enum Event {
    BoxRefresh,
    /// The end of a multibody's motion envelope.
    Horizon(usize),
    /// The end of a constraint group's motion envelope.
    Group(usize),
    Pair(usize, usize),
}

/// The collision-detection and response state of a world, by phase.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct EventLoop {
    started: bool,
    /// Every collider and its geometry.
    pub(super) colliders: Colliders,
    /// The heap, each collider's heap pairs, allowances and box periods.
    pub(super) schedule: Schedule,
    pub(super) broad: AnyBroadPhase,
    /// The narrow phase's per-pair caches and same-instant contacts.
    pub(super) checks: PairChecks,
    /// Who was hit at the current instant, and wedges being extrapolated.
    pub(super) responses: Responses,
    /// Simultaneous cluster solves: scratch, settled pairs, warm starts.
    pub(super) clusters: Clusters,
    /// Stillness, contacts and islands, for sleep.
    pub(super) islands: Islands,
    /// How far ahead each multibody's envelope reaches.
    pub(super) envelopes: Envelopes,
    /// What the loop did (the integrators' and the narrow phase's counts are filled in by
    /// `World::counters`).
    pub(super) counters: Counters,
    pub(super) max_penetration: f64,
    pub(super) events: Vec<CollisionEvent>,
}

impl std::fmt::Debug for EventLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLoop")
            .field("started", &self.started)
            .field("heap_entries", &self.schedule.heap.len())
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl EventLoop {
    pub(super) fn new() -> Self {
        Self {
            started: false,
            colliders: Colliders::new(&[], &[]),
            schedule: Schedule::new(),
            broad: AnyBroadPhase::Hash(HierarchicalHash::new()),
            checks: PairChecks::default(),
            responses: Responses::new(),
            clusters: Clusters::default(),
            islands: Islands::default(),
            envelopes: Envelopes::default(),
            counters: Counters::default(),
            max_penetration: 0.0,
            events: Vec::new(),
        }
    }
}

/// The stall guard: more than `STALL_EVENTS` heap events per collider while time advances by
/// less than `STALL_SPAN` of itself (plus one unit) is motion too fast to resolve.
pub(crate) const STALL_SPAN: f64 = 1e-12;
const STALL_EVENTS: u64 = 20_000;

impl EventLoop {
    /// Forget everything (bodies were added); rebuilt at the next advance.
    pub(super) fn invalidate(&mut self) {
        self.started = false;
    }

    pub(super) fn started(&self) -> bool {
        self.started
    }

    /// Builds the collider table, boxes and the heap at time `t` (bodies and multibodies
    /// already at `t`).
    pub(super) fn start(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        // Groups are not kept across a rebuild (bodies were added): their bodies fly free,
        // and are held again when their contacts are found.
        for group in world.groups.drain() {
            for member in &group.model.members {
                let body = &mut world.bodies[member.body.0];
                body.release(t)
                    .map_err(|error| SimulationError::Integration {
                        body: body.name().to_string(),
                        error,
                    })?;
            }
        }
        self.record_rays(world.groups);
        self.colliders = Colliders::new(world.bodies, world.multibodies);
        self.colliders.leave_out_lone_multibodies();
        let n = self.colliders.len();
        self.broad = match world.settings.broad_phase {
            BroadPhaseKind::HierarchicalHash => AnyBroadPhase::Hash(HierarchicalHash::new()),
            BroadPhaseKind::SweepAndPrune => AnyBroadPhase::SweepAndPrune(SweepAndPrune::new()),
        };
        self.schedule.heap = EventHeap::new();
        self.checks.caches = FastMap::default();
        self.checks.instant_contacts = FastMap::default();
        self.checks.pending.clear();
        self.schedule.allowances = FastMap::default();
        self.schedule.pairs_of = vec![PairSet::default(); n];
        self.schedule.period_origin = t;
        self.schedule.period_index = 0;
        self.schedule.period_end = t + world.settings.box_period;
        self.envelopes.spans = vec![world.settings.box_period; world.multibodies.len()];
        self.envelopes.last_impulses = vec![f64::NEG_INFINITY; world.multibodies.len()];
        self.responses.hit_at = vec![f64::NEG_INFINITY; n];
        self.responses.hits_now = vec![0; n];
        self.responses.rest_ceilings = vec![None; n];
        // Islands are not kept across a rebuild (bodies were added): sleepers wake, at rest.
        self.islands.touches = FastMap::default();
        self.islands.island_of = vec![None; n];
        for c in 0..n {
            self.colliders.wake(c, t, world)?;
        }
        self.islands.stillness = (0..n).map(|c| self.still_from(c, t, world)).collect();
        for m in 0..world.multibodies.len() {
            self.renew_envelope(m, t, Renewal::Period, world)?;
        }
        for c in 0..n {
            if self.colliders.bounded(c) && !self.colliders.is_link(c) {
                let aabb = self
                    .colliders
                    .swept_box(c, t, self.schedule.period_end, world)?;
                self.broad.set(c, aabb);
            }
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            self.schedule_check(p, t, world);
        }
        for c in 0..n {
            if self.colliders.unbounded[c] {
                for other in 0..n {
                    if other != c {
                        self.schedule_check(pair(c, other), t, world);
                    }
                }
            }
        }
        self.schedule
            .heap
            .set(Event::BoxRefresh, self.schedule.period_end);
        self.started = true;
        Ok(())
    }

    /// Time of the next event.
    pub(super) fn next_time(&self) -> Option<f64> {
        self.schedule.heap.peek().map(|(t, _)| t)
    }

    /// Processes the next event.
    pub(super) fn process_next(
        &mut self,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        // Stopped from outside: before the event is taken, so that nothing is lost.
        if world
            .interrupt
            .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
            && let Some(t) = self.next_time()
        {
            return Err(SimulationError::Interrupted { time: t });
        }
        let Some((t, event)) = self.schedule.heap.pop() else {
            return Ok(());
        };
        self.counters.heap_events += 1;
        // A million events within a trillionth of the time so far: a body spinning or falling
        // so fast that each check bounds the next one a few ulps later (a kinematic spin of
        // 1e300 rad/s, gravity 1e308) would go on for ever. Same-instant cascades are bounded
        // on their own (`collide`), and stay far below this.
        if t > self.schedule.stall.0 + STALL_SPAN * (1.0 + self.schedule.stall.0.abs()) {
            self.schedule.stall = (t, 0);
        } else {
            self.schedule.stall.1 += 1;
            if self.schedule.stall.1 > STALL_EVENTS * (1 + self.colliders.len() as u64)
                && let Event::Pair(a, b) = event
            {
                return Err(SimulationError::TooFast {
                    bodies: (self.colliders.name(a, world), self.colliders.name(b, world)),
                    time: t,
                    events: self.schedule.stall.1,
                });
            }
        }
        match event {
            Event::BoxRefresh => self.refresh_boxes(t, world)?,
            Event::Horizon(m) => self.renew_multibody(m, t, world)?,
            Event::Group(g) => self.group_horizon(g, t, world)?,
            Event::Pair(a, b) => {
                let p = (a, b);
                for c in [a, b] {
                    self.schedule.pairs_of[c].remove(&p);
                }
                self.check_pair(p, t, world)?;
            }
        }
        if !self.checks.pending.is_empty()
            && self.schedule.heap.peek().is_none_or(|(next, _)| next > t)
        {
            self.finish_instant(t, world)?;
        }
        Ok(())
    }

    /// Ends a cascade at instant `t`: the pairs checked again from their measured contacts get
    /// a full check under their final motion, which sets their next check. Each was checked
    /// after its bodies' last impulse, so none approaches but by rounding (the new search's
    /// normal may differ in the last digits); one that does is answered as any other, and the
    /// instant goes on.
    pub(super) fn finish_instant(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let mut pending = std::mem::take(&mut self.checks.pending);
        pending.sort_unstable();
        pending.dedup();
        for p in pending {
            // (Not in the heap at this instant, which is over; any later entry is replaced.)
            self.schedule.heap.remove(&Event::Pair(p.0, p.1));
            let measured = self
                .checks
                .instant_contacts
                .remove(&p)
                .and_then(|(at, contact)| (at == t).then_some(contact));
            for c in [p.0, p.1] {
                self.schedule.pairs_of[c].remove(&p);
            }
            self.check_pair_measured(p, t, measured, world)?;
        }
        Ok(())
    }
}
