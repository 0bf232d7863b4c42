//! The pair check: both colliders sampled at the event's time, the closest pieces from the
//! narrow phase (from the pair's cache), the depth held to `max_penetration`, a response if
//! the pair is within the envelope and approaching, and the pair's next check from the
//! time-of-impact bound ([`SoonestCheck`]).

use super::SimulationError;
use super::colliders::Participants;
use super::event_loop::EventLoop;
use crate::collision::bounds::SoonestCheck;
use crate::collision::broad::{FastMap, Pair};
use crate::collision::toi::MotionBound;
use crate::collision::{
    Beyond, Closest, NarrowStats, NearParts, PairCache, Slack, closest_parts, closest_parts_again,
};

/// The narrow phase's state between checks.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct PairChecks {
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) caches: FastMap<Pair, PairCache>,
    /// Each pair's closest contact when last measured, and the instant it was measured at.
    /// Within one instant positions do not change (impulses change velocities only), so a
    /// pair checked again in a cascade needs no new search (see `check_pair`).
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) instant_contacts: FastMap<Pair, (f64, Closest)>,
    /// Pairs checked again at the current instant from their measured contact, whose next
    /// check is set once the instant's cascade is over (`finish_instant`).
    pub(super) pending: Vec<Pair>,
    pub(super) narrow: NarrowStats,
}

impl EventLoop {
    /// Checks pair `p` at `t` (its heap event): see the module comment.
    pub(super) fn check_pair(
        &mut self,
        p: Pair,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.check_pair_measured(p, t, None, world)
    }

    /// [`EventLoop::check_pair`], given the pair's contact if it was measured at this instant
    /// already: two single-part colliders at the same positions have the same closest pair,
    /// which then needs no new search, only its check time under the motion now.
    pub(super) fn check_pair_measured(
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
        self.colliders.sample(a, t, world)?;
        self.colliders.sample(b, t, world)?;
        let epsilon = world.settings.collision_epsilon;
        // Checked already at this instant (a cascade: an impulse on one of the bodies since):
        // the same positions, the same contact. Its next check waits for the cascade's end.
        if let Some(&(measured, contact)) = self.checks.instant_contacts.get(&p)
            && measured == t
        {
            if contact.distance < epsilon && self.approaching(p, &contact, t, world) {
                self.collide(p, t, &contact, world)?;
            }
            self.checks.pending.push(p);
            self.schedule.pairs_of[a].insert(p);
            self.schedule.pairs_of[b].insert(p);
            return Ok(());
        }
        let slack = self.slack(a, b);
        let horizon = world.settings.box_period;
        let previous = self
            .checks
            .instant_contacts
            .get(&p)
            .map(|&(_, c)| c.distance);
        let mut allowances = [a, b].map(|c| self.allowance(c, previous, world));
        let rising = world.settings.rises_out_of_overlaps();
        let mut soonest = SoonestCheck::new(
            self.motion_bounds(p, world, allowances),
            epsilon,
            slack,
            horizon,
        )
        .rising_out_of_overlaps(rising);
        let (pose_a, pose_b) = (self.colliders.pose(a, world), self.colliders.pose(b, world));
        let single =
            self.colliders.models[a].parts.len() == 1 && self.colliders.models[b].parts.len() == 1;
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
        self.checks.instant_contacts.insert(p, (t, contact));
        self.note_depth(p, &contact, t, world)?;
        if contact.distance < epsilon && self.approaching(p, &contact, t, world) {
            self.respond(p, t, &contact, world)?;
            // New motion, new check times: the piece pairs the search left out under the old
            // motion may be the soonest under the new.
            allowances = [0.0; 2];
            soonest = SoonestCheck::new(
                self.motion_bounds(p, world, allowances),
                epsilon,
                slack,
                horizon,
            )
            .rising_out_of_overlaps(rising);
            closest_parts_again(
                &self.colliders.models[a],
                &pose_a,
                &self.colliders.models[b],
                &pose_b,
                &mut soonest,
                &near,
                self.checks.caches.entry(p).or_default(),
                &mut self.checks.narrow,
            );
        }
        // A turning kinematic body's spin leaves it in a ball (see `spin_sphere`).
        let sphere = self.spin_sphere_delay(p, soonest.motion(), epsilon, world);
        let delay = soonest.delay().max(sphere.min(horizon));
        self.reschedule(p, t, delay, allowances, world);
        Ok(())
    }

    /// Records how deep a pair's contact overlaps, stopping the run if deeper than allowed.
    pub(super) fn note_depth(
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
                    bodies: (self.colliders.name(a, world), self.colliders.name(b, world)),
                    depth,
                    time: t,
                });
            }
        }
        Ok(())
    }

    /// Whether the pair's contact points approach, by more than rounding: after a cascade of
    /// impulses at one instant a cluster's relative velocities are left at rounding level
    /// (~1e-16 of the bodies' speeds), and answering those would cycle forever. A pair a
    /// cluster solve settled at this instant approaches only by more than the solve's
    /// tolerance: what is left is the solve's residual, not a collision.
    pub(super) fn approaching(
        &self,
        p: Pair,
        contact: &Closest,
        t: f64,
        world: &Participants<'_>,
    ) -> bool {
        let point = contact.contact_point();
        let (ua, ub) = (
            self.colliders.point_velocity(p.0, &point, world),
            self.colliders.point_velocity(p.1, &point, world),
        );
        let mut allowed = 1e-12 * (ua.norm() + ub.norm());
        if let Some(&(at, tolerance)) = self.clusters.settled.get(&p)
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
    pub(super) fn slack(&self, a: usize, b: usize) -> f64 {
        let reach = |c: usize| {
            if self.colliders.unbounded[c] {
                f64::INFINITY
            } else {
                self.colliders.reach[c]
            }
        };
        let smaller = reach(a).min(reach(b));
        if smaller.is_finite() {
            0.5 * smaller
        } else {
            0.0
        }
    }

    pub(super) fn motion_bounds(
        &self,
        (a, b): Pair,
        world: &Participants<'_>,
        allowances: [f64; 2],
    ) -> (MotionBound, MotionBound) {
        (
            self.colliders.motion_bound(a, allowances[0], world),
            self.colliders.motion_bound(b, allowances[1], world),
        )
    }

    /// The narrow phase's closest piece pairs of pair `q` where its colliders are now, and
    /// those `beyond` asks for, from the pair's cache.
    pub(super) fn search<B: Beyond>(
        &mut self,
        q: Pair,
        beyond: &mut B,
        world: &Participants<'_>,
    ) -> NearParts {
        closest_parts(
            &self.colliders.models[q.0],
            &self.colliders.pose(q.0, world),
            &self.colliders.models[q.1],
            &self.colliders.pose(q.1, world),
            beyond,
            self.checks.caches.entry(q).or_default(),
            &mut self.checks.narrow,
        )
    }

    /// Pair `q`'s closest contact at `t`: the one measured at this instant, or a new search
    /// (both colliders sampled at `t`).
    pub(super) fn measure(
        &mut self,
        q: Pair,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<Option<Closest>, SimulationError> {
        if let Some(&(measured, contact)) = self.checks.instant_contacts.get(&q)
            && measured == t
        {
            return Ok(Some(contact));
        }
        self.counters.collision_checks += 1;
        self.colliders.sample(q.0, t, world)?;
        self.colliders.sample(q.1, t, world)?;
        let near = self.search(q, &mut Slack(0.0), world);
        let Some(&contact) = near.pairs.first() else {
            return Ok(None);
        };
        self.checks.instant_contacts.insert(q, (t, contact));
        self.note_depth(q, &contact, t, world)?;
        Ok(Some(contact))
    }
}
