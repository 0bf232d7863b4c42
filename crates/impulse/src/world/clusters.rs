//! Simultaneous clusters (`world.microcollision_clusters = "simultaneous"`): a microcollision
//! among resting free bodies answered together with every contact of the bodies it reaches;
//! and impacts (under any `microcollision_clusters`): a same-instant cascade of collisions
//! answered by one inelastic solve over the bodies it reached.
//! The cluster is gathered over the heap pairs found within two envelopes, posed as a contact
//! problem (each pair's contact region as points, `collision::manifold`, with a target velocity
//! each), solved by the contact layer ([`crate::contact`]), and each body's impulses applied
//! at once.

use super::colliders::Participants;
use super::event_loop::EventLoop;
use super::respond::free_floor;
use super::schedule::ALLOWANCE_DISTANCE;
use super::{CollisionEvent, ContactModel, MicrocollisionClusters, SimulationError, WorldSettings};
use crate::collision::broad::{FastMap, FastSet, Pair};
use crate::collision::manifold::{manifold, touching_face_normal};
use crate::collision::{Closest, Slack};
use crate::contact::sticking_stop;
use crate::contact::{
    ContactBody, ContactPoint, ContactProblem, ContactSolver, ProjectedGaussSeidel, WarmStart,
};
use crate::math::{Mat3, Point, Vec3, orthonormal_basis};
use crate::response::{ResponseKind, drift_target};

/// What a cluster solve answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ClusterKind {
    /// A microcollision among resting bodies: each contact leaves at its rebound speed.
    Resting,
    /// A same-instant cascade of collisions: every contact of the bodies it reached stopped
    /// inelastically at once, whatever its approach and however often its bodies were hit.
    Impact,
}

/// The state of simultaneous cluster solves.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Clusters {
    /// Scratch for the solves.
    #[serde(skip)]
    pub(super) scratch: ClusterScratch,
    /// Per pair, the instant a cluster solve last settled it and the solve's tolerance.
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) settled: FastMap<Pair, (f64, f64)>,
    /// Per pair, the impulses its contact points took at the last cluster solve (see
    /// [`WarmStart`]).
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) warm: FastMap<Pair, WarmStart>,
    /// The instant an impact solve was last refused: not tried again at it.
    #[serde(default)]
    pub(super) impact_failed: Option<f64>,
    /// When a cluster above `MAX_CLUSTER_CONTACTS` was last found not ready to be held: none
    /// that large is gathered again for a hop (see `may_hold_large`).
    #[serde(default)]
    pub(super) large_hold_failed: Option<f64>,
}

impl EventLoop {
    /// Answers the microcollision of pair `p` at `t` together with every contact within the
    /// envelope of the bodies it reaches, by one simultaneous solve (see [`crate::contact`]),
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
    pub(super) fn collide_cluster(
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
        let threshold_speed = settings.threshold_speed();
        if self.approach(p, &contact.contact_point(), &contact.normal, world) >= threshold_speed {
            return Ok(false);
        }
        self.solve_cluster(p, t, contact, ClusterKind::Resting, threshold_speed, world)
    }

    /// Answers a same-instant cascade that pair `p` at `t` belongs to by one simultaneous,
    /// perfectly inelastic solve over every contact within the envelope of the bodies it
    /// reaches (issue 40: an impact into bodies in contact). `approach` is the pair's normal
    /// approach speed. Returns false, having applied nothing, where the cluster cannot be
    /// posed (it reaches a multibody link or a sleeper) or its sweeps neither settle nor take
    /// kinetic energy out: the cascade then goes on one contact at a time, and this instant is
    /// not tried again.
    pub(super) fn collide_impact(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        approach: f64,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        if self.clusters.impact_failed == Some(t) {
            return Ok(false);
        }
        // The speed the solve's tolerance is a share of: the microcollision threshold, or
        // without gravity (no threshold: every approach collides) the approach that set the
        // cascade off. A wedged chain of balls in zero gravity, hit at one end, cascaded
        // until the guard stopped the run.
        let speed = if world.settings.gravity.norm() > 0.0 {
            world.settings.threshold_speed()
        } else {
            approach
        };
        let answered = self.solve_cluster(p, t, contact, ClusterKind::Impact, speed, world)?;
        if !answered {
            self.clusters.impact_failed = Some(t);
        }
        Ok(answered)
    }

    /// Gathers, poses, solves and applies the cluster of `kind` around pair `p` at `t`, to a
    /// tolerance that is a share of `speed`.
    fn solve_cluster(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        kind: ClusterKind,
        speed: f64,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        let threshold_speed = world.settings.threshold_speed();
        let mut scratch = std::mem::take(&mut self.clusters.scratch);
        let gathered = self.gather_cluster(p, contact, t, kind, &mut scratch, world);
        let posed = matches!(gathered, Ok(true))
            && self.pose_cluster(t, threshold_speed, kind, &mut scratch, world);
        let mut answered = false;
        // Paradigm switching: a cluster at rest that can carry its weight is held instead.
        if posed
            && kind == ClusterKind::Resting
            && world.settings.contact_model == ContactModel::Switching
        {
            answered = self.hold_cluster(p, t, &mut scratch, world)?;
        }
        // A single point is the thesis's single response; a resting cluster above the cap
        // was gathered only to be held.
        if posed
            && !answered
            && scratch.problem.points.len() >= 2
            && (kind == ClusterKind::Impact || scratch.contacts.len() <= MAX_CLUSTER_CONTACTS)
        {
            let mut solver = ProjectedGaussSeidel {
                max_sweeps: match kind {
                    ClusterKind::Resting => MAX_CLUSTER_SWEEPS,
                    ClusterKind::Impact => MAX_IMPACT_SWEEPS,
                },
            };
            // An impact's sweeps are judged by their energy (below), and a resting cluster's
            // rebounds are paid from a closed world's budget.
            let before = (kind == ClusterKind::Impact || world.energy_ceiling.is_some())
                .then(|| kinetic_energy(&scratch.problem.bodies));
            let solution = solver.solve(&mut scratch.problem, CLUSTER_TOLERANCE * speed);
            self.counters.cluster_sweeps += u64::from(solution.sweeps);
            let after = before.map(|_| kinetic_energy(&scratch.problem.bodies));
            // A solve that does not settle (sweeps that cycle, as Gauss–Seidel with friction
            // can) is not applied: the thesis's responses take the contacts one at a time.
            // An impact's sweeps that do not settle (a few contacts of a jammed pile trading a
            // millimetre a second in a cycle) are applied where they took kinetic energy out:
            // what approaches afterwards does so at the residual, answered as resting contact.
            let settled = solution.converged
                || (kind == ClusterKind::Impact
                    && before
                        .zip(after)
                        .is_some_and(|(before, after)| after <= before));
            // Nor is a resting cluster's solve whose rebounds would lift a closed world above
            // its starting energy: the single responses answer without the floor where the
            // budget cannot pay for it (`ReboundBudget`). A cluster whose contacts have all
            // come down to the surface (`free_floor`) is given its rebounds, if its bodies
            // stay within their rest ceilings (`free_floor_for`; an impact sets the ceilings of
            // the bodies it is the first response of to none).
            let in_band = (kind == ClusterKind::Resting && !scratch.paid).then(|| {
                scratch
                    .contacts
                    .iter()
                    .map(|(_, closest)| closest.distance)
                    .fold(f64::INFINITY, f64::min)
            });
            let paid = before.zip(after).is_none_or(|(before, after)| {
                let gain = after - before;
                let free =
                    self.free_floor_for(scratch.members.iter().copied(), in_band, gain, world);
                kind == ClusterKind::Impact
                    || free
                    || self.responses.rebound_budget.grant(gain, world)
            });
            if settled && paid {
                // What the sweeps leave is not a collision at this instant.
                let residual = SETTLED_RESIDUAL * CLUSTER_TOLERANCE * speed;
                for (q, _) in &scratch.contacts {
                    self.clusters.settled.insert(*q, (t, residual));
                }
                self.apply_cluster(p, t, kind, &solution.impulses, &mut scratch, world)?;
                answered = true;
            } else {
                self.counters.cluster_fallbacks += 1;
            }
        }
        self.clusters.scratch = scratch;
        gathered?;
        Ok(answered)
    }

    /// Gathers the cluster of pair `p` at `t` into `scratch`: its members (free bodies,
    /// expanded, and the fixed or kinematic bodies that bound it) and every piece pair within
    /// the envelope between them, in a deterministic order. False if the cluster cannot be
    /// answered at once (see [`EventLoop::collide_cluster`]).
    pub(super) fn gather_cluster(
        &mut self,
        p: Pair,
        contact: &Closest,
        t: f64,
        kind: ClusterKind,
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        let epsilon = world.settings.collision_epsilon;
        scratch.clear();
        scratch.seen.insert(p);
        for c in [p.0, p.1] {
            if !self.join_cluster(c, t, kind, scratch, world) {
                return Ok(false);
            }
        }
        self.piece_contacts(p, contact, &mut scratch.contacts, world);
        let mut next = 0;
        while next < scratch.members.len() {
            let c = scratch.members[next];
            next += 1;
            if !self.colliders.free_body(c, world) {
                continue;
            }
            let asleep = self.colliders.asleep(c, world);
            scratch.pairs.clear();
            // (In order: `PairSet` keeps them so.)
            scratch
                .pairs
                .extend(self.schedule.pairs_of[c].iter().copied());
            for k in 0..scratch.pairs.len() {
                let q = scratch.pairs[k];
                // Pairs found apart at their last check are left to it: a pair that may have
                // come within the envelope since would have been checked by now. A sleeper's
                // pairs with still colliders are not checked while it sleeps (out of the heap),
                // so an impact reaching it measures them all: a held ball's support.
                let near = asleep
                    || self
                        .checks
                        .instant_contacts
                        .get(&q)
                        .is_some_and(|(_, c)| c.distance < ALLOWANCE_DISTANCE * epsilon);
                if !near || !scratch.seen.insert(q) || !self.is_candidate(q) {
                    continue;
                }
                let Some(closest) = self.measure(q, t, world)? else {
                    continue;
                };
                let reach = match kind {
                    ClusterKind::Resting => CLUSTER_REACH,
                    // An impact stops the contacts it reaches, not those near them.
                    ClusterKind::Impact => 1.0,
                };
                if closest.distance >= reach * epsilon {
                    continue;
                }
                let other = if q.0 == c { q.1 } else { q.0 };
                if scratch.index(other).is_none()
                    && !self.join_cluster(other, t, kind, scratch, world)
                {
                    return Ok(false);
                }
                self.piece_contacts(q, &closest, &mut scratch.contacts, world);
                // (A cluster only to be held, under paradigm switching, has no cap: held, it
                // costs nothing more; see `hold_cluster`.)
                if kind == ClusterKind::Resting
                    && scratch.contacts.len() > MAX_CLUSTER_CONTACTS
                    && !self.may_hold_large(t, world)
                {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Poses the gathered cluster's problem in `scratch`: its bodies, and each piece pair's
    /// contact region as points (a box lying on a face is held at its four corners at once).
    /// False if a point approaches at collision speed (the thesis's single response is then
    /// due) or there is no point.
    pub(super) fn pose_cluster(
        &self,
        t: f64,
        threshold_speed: f64,
        kind: ClusterKind,
        scratch: &mut ClusterScratch,
        world: &Participants<'_>,
    ) -> bool {
        let settings = world.settings;
        let ClusterScratch {
            members,
            slot,
            contacts,
            problem,
            sources,
            paid,
            ..
        } = scratch;
        problem.bodies.extend(
            members
                .iter()
                .map(|&c| self.colliders.contact_body(c, world)),
        );
        let index = |c: usize| member_index(slot, c).unwrap_or(0);
        let hop = resting_hop(settings);
        for (k, (q, measured)) in contacts.iter().enumerate() {
            let part = |c: usize, i: usize| {
                let part = &self.colliders.models[c].parts[i];
                (&part.convex, self.colliders.pose(c, world) * part.pose)
            };
            let ((convex_a, pose_a), (convex_b, pose_b)) =
                (part(q.0, measured.parts.0), part(q.1, measured.parts.1));
            // Under paradigm switching, two polyhedra that touch take the normal of the face
            // between them (`touching_face_normal`): a held contact must push along it.
            let mut closest = *measured;
            if settings.contact_model == ContactModel::Switching
                && closest.distance.abs() < TOUCHING_DISTANCE * settings.collision_epsilon
                && let Some(normal) = touching_face_normal(convex_a, &pose_a, convex_b, &pose_b)
            {
                closest.normal = normal;
            }
            let closest = &closest;
            let material = world
                .materials
                .between(self.colliders.kind(q.0), self.colliders.kind(q.1));
            // As for a single microcollision (see `WorldSettings::rebound_speed`).
            let rebound = settings.rebound_speed(true, &closest.normal, closest.distance);
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
                if self.colliders.free_body(c, world) {
                    settings.gravity
                } else {
                    Vec3::zeros()
                }
            };
            let relative_gravity = frame.transpose() * (pull(q.0) - pull(q.1));
            let epsilon = settings.collision_epsilon;
            for point in manifold(convex_a, &pose_a, convex_b, &pose_b, closest, epsilon) {
                let approach = self.approach(*q, &point, &closest.normal, world);
                if approach >= threshold_speed && kind == ClusterKind::Resting {
                    return false;
                }
                let separation = if kind == ClusterKind::Impact {
                    if !touching {
                        continue;
                    }
                    // The cascade's own law: its contacts stop, inelastically (an
                    // overlapping one rising out of the overlap).
                    settings.rise_speed(&closest.normal, closest.distance)
                } else if touching && settings.rebound(true) == 0.0 {
                    // `microcollision_rebound = 0`, the thesis's pure reversal: each contact
                    // leaves as fast as it came. Restitution alone (below) let a resting
                    // cluster leave slower than it came each time and sink through the
                    // envelope (issue 41, item 3).
                    approach.max(0.0)
                } else if touching {
                    *paid |= !free_floor(closest.distance, epsilon);
                    rebound.max(material.restitution * approach.max(0.0))
                } else if hop > 0.0 {
                    -(closest.distance - 0.5 * settings.collision_epsilon) / (SETTLING_HOPS * hop)
                } else {
                    continue; // no hops: nothing holds a pair apart that is not touching
                };
                let initial = self
                    .clusters
                    .warm
                    .get(q)
                    .and_then(|warm| warm.impulse_at(&point, t, epsilon, hop))
                    .map_or(Vec3::zeros(), |impulse| frame.transpose() * impulse);
                problem.points.push(ContactPoint {
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
        !problem.points.is_empty()
    }

    /// Applies a cluster's solved impulses (each contact point's, in its collision frame):
    /// each body's at once (one new flight each), recorded per contact point, and every pair
    /// of the bodies moved checked again.
    pub(super) fn apply_cluster(
        &mut self,
        p: Pair,
        t: f64,
        kind: ClusterKind,
        impulses: &[Vec3],
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        match kind {
            ClusterKind::Resting => self.counters.cluster_solves += 1,
            ClusterKind::Impact => self.counters.impact_solves += 1,
        }
        for (q, _) in &scratch.contacts {
            let warm = self.clusters.warm.entry(*q).or_default();
            warm.time = t;
            warm.points.clear();
        }
        scratch.taken.resize_with(scratch.members.len(), Vec::new);
        let ClusterScratch {
            contacts,
            problem,
            sources,
            taken,
            ..
        } = scratch;
        problem.body_impulses(impulses, taken, |k, impulse, took| {
            let point = problem.points[k].point;
            let (q, closest) = &contacts[sources[k]];
            if let Some(warm) = self.clusters.warm.get_mut(q) {
                warm.points.push((point, *impulse));
            }
            if !took {
                return;
            }
            self.islands.touches.insert(*q, t);
            self.counters.microcollisions += 1;
            self.events.push(CollisionEvent {
                time: t,
                kind: ResponseKind::Simultaneous,
                colliders: (self.colliders.kind(q.0), self.colliders.kind(q.1)),
                point,
                normal: closest.normal,
                impulse: *impulse,
            });
        });
        self.respond_at(t);
        scratch.moved.clear();
        // Sleepers an impact reached (see `join_cluster`) wake with their whole island.
        let mut woken: Vec<usize> = scratch
            .members
            .iter()
            .zip(&scratch.taken)
            .filter(|(_, impulses)| !impulses.is_empty())
            .filter_map(|(&m, _)| self.islands.island_of[m])
            .collect();
        woken.sort_unstable();
        woken.dedup();
        for (&m, impulses) in scratch.members.iter().zip(&scratch.taken) {
            if impulses.is_empty() || !self.colliders.free_body(m, world) {
                continue;
            }
            self.colliders.apply_impulses(m, t, impulses, world)?;
            self.responses.hits_now[m] = 1;
            self.responses.hit_at[m] = t;
            self.renew_box(m, t, world)?;
            scratch.moved.push(m);
        }
        for island in woken {
            let members = self.wake_island(island, t, world)?;
            scratch.moved.extend(members);
        }
        self.recheck_moved(&scratch.moved, Some(p), t, world);
        Ok(())
    }

    /// How fast pair `(a, b)` approaches at `point` along `normal` (negative: separating).
    pub(super) fn approach(
        &self,
        (a, b): Pair,
        point: &Point,
        normal: &Vec3,
        world: &Participants<'_>,
    ) -> f64 {
        let u = self.colliders.point_velocity(a, point, world)
            - self.colliders.point_velocity(b, point, world);
        -u.dot(normal)
    }

    /// Pushes pair `q`'s piece pairs within the cluster's reach (`closest` the closest of them;
    /// both colliders sampled): the closest alone for two single-part colliders, else every
    /// piece pair the narrow phase finds that near (a cap lying on a tray rests on several).
    pub(super) fn piece_contacts(
        &mut self,
        q: Pair,
        closest: &Closest,
        out: &mut Vec<(Pair, Closest)>,
        world: &Participants<'_>,
    ) {
        let epsilon = world.settings.collision_epsilon;
        if self.colliders.models[q.0].parts.len() == 1
            && self.colliders.models[q.1].parts.len() == 1
        {
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

    /// Adds collider `c` to a cluster being gathered at `t`, sampled there; false if it cannot
    /// join one: a multibody link, a sleeper (except into an impact), or a body already hit at
    /// this instant.
    pub(super) fn join_cluster(
        &self,
        c: usize,
        t: f64,
        kind: ClusterKind,
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
    ) -> bool {
        // An impact reaches into sleepers (held bodies under paradigm switching, or asleep)
        // too, and wakes them (`apply_cluster`), as a single response would. Refused, the
        // cascade went on one contact at a time, and in a pit with sleep on it ran past the
        // guard (issue 40: 4 of 6 pits jittered by 1 µm stopped between 1.2 and 1.9 s).
        if self.colliders.body(c).is_none()
            || (self.colliders.asleep(c, world) && kind != ClusterKind::Impact)
            || (kind == ClusterKind::Resting
                && self.colliders.dynamic(c, world)
                && self.responses.hit_at[c] == t)
        {
            return false;
        }
        scratch.add(c);
        true
    }
}

/// Holding a cluster at rest: paradigm switching (Mirtich §8.1), impulse to constraint.
///
/// Under `contact_model = "switching"`, a resting cluster (a microcollision among free bodies,
/// gathered with every contact within the envelope of the bodies it reaches) is handed to
/// contact forces when two solves of its touching contacts say that is right:
///
/// 1. **At rest**: stopping every touching contact inelastically, with sticking friction,
///    leaves no point of any body moving faster than `HOLD_SPEED` microcollision threshold
///    speeds. What the impulse model's hops add (normal speeds within the envelope) is taken
///    out; rolling, sliding and spinning are not, so a rolling ball or a sliding box is not
///    held.
/// 2. **Able to carry its weight**: from rest, each free body given its free-flight
///    acceleration over a time `τ` (speeds of `CARRY_SPEEDS` threshold speeds), the contacts
///    stop every body again within their friction cones, to the same speed. That is Baraff's
///    force LCP (ch. 8–9) posed in impulses over `τ`: contact forces `f = p / τ` exist that
///    leave every body's acceleration zero (to `HOLD_SPEED / CARRY_SPEEDS` of its pull), so
///    zero velocity and zero acceleration are the constraint model's answer, and the bodies
///    stay where they are. A box on a slope steeper than its friction angle, a plank
///    overhanging its support or a body on one corner is not held.
///
/// Held bodies are put to sleep as one island ([`crate::RigidBody::fall_asleep`]: zero
/// velocities, out of gravity's pull, their pairs with fixed bodies and each other out of the
/// heap) whatever `world.sleep` says; an impulse on any of them hands the island back to the
/// impulse model (`wake_island`: each from rest, under gravity, and held again once at rest).
/// The test is made only for clusters of free bodies without applied torque whose supports do
/// not move (fixed bodies and stationary kinematic bodies): their loads stay constant while
/// held. A cluster reaching a sleeper is not gathered (its load would change), so a body
/// settling on a held pile wakes it, and the pile with the body on it is held again.
impl EventLoop {
    /// Whether a resting cluster above `MAX_CLUSTER_CONTACTS` may be gathered at `t`: only
    /// to be held, under paradigm switching, and not within a hop of the last one found not
    /// ready.
    fn may_hold_large(&self, t: f64, world: &Participants<'_>) -> bool {
        let settings = world.settings;
        if settings.contact_model != ContactModel::Switching {
            return false;
        }
        let hop = resting_hop(settings);
        self.clusters
            .large_hold_failed
            .is_none_or(|failed| t >= failed + hop)
    }

    /// Holds the gathered and posed resting cluster in `scratch` at `t` still, if it is at
    /// rest and able to carry its weight (see above); false, having changed nothing, if not.
    fn hold_cluster(
        &mut self,
        p: Pair,
        t: f64,
        scratch: &mut ClusterScratch,
        world: &mut Participants<'_>,
    ) -> Result<bool, SimulationError> {
        let held = self.may_hold(scratch, world);
        if !held {
            if scratch.contacts.len() > MAX_CLUSTER_CONTACTS {
                self.clusters.large_hold_failed = Some(t);
            }
            return Ok(false);
        }
        let island = scratch
            .members
            .iter()
            .copied()
            .filter(|&m| self.colliders.free_body(m, world))
            .min()
            .unwrap_or(p.0);
        let mut fell = Vec::new();
        for &m in &scratch.members {
            let Some(id) = self.colliders.body(m) else {
                continue;
            };
            if !world.bodies[id.0].is_dynamic() {
                continue;
            }
            self.islands.island_of[m] = Some(island);
            world.bodies[id.0].fall_asleep();
            self.renew_box(m, t, world)?;
            fell.push(m);
        }
        let epsilon = world.settings.collision_epsilon;
        for (q, closest) in &scratch.contacts {
            if closest.distance < epsilon {
                self.islands.touches.insert(*q, t);
            }
        }
        self.counters.holds += 1;
        self.recheck_moved(&fell, Some(p), t, world);
        Ok(true)
    }

    /// The two tests of [`EventLoop::hold_cluster`] on the cluster in `scratch`.
    fn may_hold(&mut self, scratch: &mut ClusterScratch, world: &Participants<'_>) -> bool {
        let settings = world.settings;
        let threshold_speed = settings.threshold_speed();
        let epsilon = settings.collision_epsilon;
        // Loads that stay constant while held: free bodies without applied torque, on
        // supports that do not move.
        let constant_loads = scratch.members.iter().all(|&m| {
            if self.colliders.free_body(m, world) {
                self.colliders.torque_free(m, world)
            } else {
                !self.colliders.moves(m, world) || self.colliders.stationary(m, world)
            }
        });
        if !constant_loads {
            return false;
        }
        let ClusterScratch {
            members,
            contacts,
            problem,
            sources,
            hold,
            ..
        } = scratch;
        // The touching contacts only, each to stop (no rebound, no drift target).
        hold.clear();
        hold.bodies.extend_from_slice(&problem.bodies);
        hold.points.extend(
            problem
                .points
                .iter()
                .zip(sources.iter())
                .filter(|&(_, &k)| contacts[k].1.distance < epsilon)
                .map(|(point, _)| ContactPoint {
                    target: Vec3::zeros(),
                    initial: Vec3::zeros(),
                    ..point.clone()
                }),
        );
        // A body held in an overlap would stay in it: while a contact is deeper than
        // `HELD_OVERLAP` envelopes, the microcollisions lift it out first (`rise_speed`).
        if hold.points.is_empty()
            || contacts
                .iter()
                .any(|(_, closest)| closest.distance < -HELD_OVERLAP * epsilon)
        {
            return false;
        }
        // A free body that touches nothing keeps its pull over τ in test 2 (below), which no
        // stop can take out: the cluster cannot carry it, and its stops need not be run. (The
        // 500-ball pit's whole-pile tests that failed had balls in mid-hop among their
        // members; a stop of its ~2 000 contacts takes 65–1 100 passes.)
        let tau = CARRY_SPEEDS * threshold_speed / settings.gravity.norm();
        let mut touched = vec![false; members.len()];
        for point in hold.points.iter() {
            touched[point.bodies.0] = true;
            touched[point.bodies.1] = true;
        }
        let adrift =
            members
                .iter()
                .zip(&problem.bodies)
                .zip(&touched)
                .any(|((&m, body), &touched)| {
                    !touched
                        && body.inverse_mass > 0.0
                        && self.colliders.body(m).is_some_and(|id| {
                            world.bodies[id.0].acceleration().norm() * tau
                                > HOLD_SPEED * threshold_speed
                        })
                });
        if adrift {
            return false;
        }
        let touching = hold.points.clone();
        // 1. At rest: one inelastic frictional stop of the touching contacts leaves nothing
        // moving.
        let mut passes = 0;
        let mut holds = self.stops_within_cones(members, hold, &mut passes, world, |_, _| {});
        if holds {
            // 2. Able to carry its weight: each body's pull over τ, from rest, stopped the
            // same way.
            hold.points.clone_from(&touching);
            hold.bodies.clone_from(&problem.bodies);
            holds = self.stops_within_cones(members, hold, &mut passes, world, |pull, body| {
                body.velocity = pull * tau;
                body.angular_velocity = Vec3::zeros();
            });
        }
        self.counters.cluster_sweeps += u64::from(passes);
        holds
    }

    /// Whether the bodies of `hold` (the cluster's `members`), their velocities set by
    /// `start` (given each free body's free-flight acceleration), are stopped by impulses at
    /// the touching points of `hold` that push and lie in their friction cones, leaving no
    /// point of any body faster than `HOLD_SPEED` threshold speeds. A first stop with friction
    /// weighted as normal impulses settles it where it converges and leaves a body moving or
    /// finds impulses in their cones (a witness). Otherwise the sticking stop's least-norm
    /// impulses ([`sticking_stop`], friction weighted by `CARRY_FRICTION_WEIGHT`) decide;
    /// they may pull at points of a redundant support (a corner away from the load): those
    /// are let go and the rest stopped again, as an active-set method does, for up to
    /// `CARRY_ROUNDS` rounds. Adds the conjugate-gradient passes to `passes`.
    fn stops_within_cones(
        &self,
        members: &[usize],
        hold: &mut ContactProblem,
        passes: &mut u32,
        world: &Participants<'_>,
        start: impl Fn(Vec3, &mut ContactBody),
    ) -> bool {
        let threshold_speed = world.settings.threshold_speed();
        let tolerance = HOLD_TOLERANCE * threshold_speed;
        let initial = hold.bodies.clone();
        let started = |bodies: &mut Vec<ContactBody>| {
            bodies.clone_from(&initial);
            for (&m, body) in members.iter().zip(bodies.iter_mut()) {
                if body.inverse_mass > 0.0 {
                    let pull = self
                        .colliders
                        .body(m)
                        .map_or(Vec3::zeros(), |id| world.bodies[id.0].acceleration());
                    start(pull, body);
                }
            }
        };
        let still = |bodies: &[ContactBody]| {
            members.iter().zip(bodies).all(|(&m, body)| {
                body.inverse_mass == 0.0
                    || body.velocity.norm() + self.colliders.reach[m] * body.angular_velocity.norm()
                        <= HOLD_SPEED * threshold_speed
            })
        };
        // A witness first: friction weighted as normal impulses conditions the stop far
        // better (the whole 500-ball pit: 65–1 100 passes, where `CARRY_FRICTION_WEIGHT` ran
        // out of 2 000). The bodies' velocities after a stop do not depend on the weight
        // (impulses that keep every contact at its target differ by a null vector of
        // `K = J M⁻¹ Jᵀ`, on which `Jᵀ P = 0`), so a body left moving fails the test
        // whatever the weight, and impulses that push and lie in their cones pass it whatever
        // found them. Otherwise the least-norm share below decides.
        started(&mut hold.bodies);
        let witness = sticking_stop::solve(
            &mut hold.bodies,
            &hold.points,
            1.0,
            tolerance,
            MAX_STOP_ITERATIONS,
        );
        *passes += witness.sweeps;
        if witness.converged {
            if !still(&hold.bodies) {
                return false;
            }
            if within_cones(&witness.impulses, &hold.points) {
                return true;
            }
        }
        for _ in 0..CARRY_ROUNDS {
            started(&mut hold.bodies);
            let stop = sticking_stop::solve(
                &mut hold.bodies,
                &hold.points,
                CARRY_FRICTION_WEIGHT,
                tolerance,
                MAX_STOP_ITERATIONS,
            );
            *passes += stop.sweeps;
            if !stop.converged || !still(&hold.bodies) {
                return false;
            }
            let slack = cone_slack(&stop.impulses);
            if stop.impulses.iter().all(|p| p.z >= -slack) {
                return within_cones(&stop.impulses, &hold.points);
            }
            let mut k = 0;
            hold.points.retain(|_| {
                k += 1;
                stop.impulses[k - 1].z >= -slack
            });
        }
        false
    }
}

/// How far outside its cone an impulse may lie and count as inside (rounding of the stop):
/// `CONE_SLACK` of the largest normal impulse.
fn cone_slack(impulses: &[Vec3]) -> f64 {
    CONE_SLACK * impulses.iter().map(|p| p.z).fold(0.0, f64::max)
}

/// Whether every one of `impulses` (in its point's collision frame) pushes and lies in its
/// friction cone.
fn within_cones(impulses: &[Vec3], points: &[ContactPoint]) -> bool {
    let slack = cone_slack(impulses);
    impulses
        .iter()
        .zip(points)
        .all(|(p, point)| p.z >= -slack && p.xy().norm() <= point.friction * p.z + slack)
}

/// How long a resting body's hop lasts: up and down again at the cluster rebound speed (none
/// without gravity).
fn resting_hop(settings: &WorldSettings) -> f64 {
    let gravity = settings.gravity.norm();
    if gravity > 0.0 {
        2.0 * settings.rebound(true) * settings.threshold_speed() / gravity
    } else {
        0.0
    }
}

/// The kinetic energy of a contact problem's bodies at their velocities.
fn kinetic_energy(bodies: &[crate::contact::ContactBody]) -> f64 {
    bodies
        .iter()
        .filter(|b| b.inverse_mass > 0.0)
        .map(|b| {
            let spin = b.inverse_inertia.try_inverse().map_or(0.0, |inertia| {
                b.angular_velocity.dot(&(inertia * b.angular_velocity))
            });
            0.5 * (b.velocity.norm_squared() / b.inverse_mass + spin)
        })
        .sum()
}

/// Storage a cluster solve keeps between instants (see [`EventLoop::collide_cluster`]).
#[derive(Default)]
pub(super) struct ClusterScratch {
    members: Vec<usize>,
    contacts: Vec<(Pair, Closest)>,
    seen: FastSet<Pair>,
    pairs: Vec<Pair>,
    problem: ContactProblem,
    /// The tests of whether the cluster may be held (see `EventLoop::hold_cluster`).
    hold: ContactProblem,
    /// Which of `contacts` each point of `problem` belongs to.
    sources: Vec<usize>,
    /// Per member, the impulses it takes.
    taken: Vec<Vec<(Vec3, Point)>>,
    moved: Vec<usize>,
    /// Per collider, its place in `members` (`NOT_A_MEMBER` if none): the members of a pile's
    /// cluster are many, and searching the list for each contact cost 5 % of a pit's time.
    slot: Vec<usize>,
    /// Whether a touching contact is above the surface (see `free_floor`): the cluster's
    /// rebounds are then paid from the rebound budget.
    paid: bool,
}

/// The `slot` of a collider that is not a member of the cluster.
const NOT_A_MEMBER: usize = usize::MAX;

/// Collider `c`'s place among a cluster's members, from the scratch's `slot`.
fn member_index(slot: &[usize], c: usize) -> Option<usize> {
    slot.get(c).copied().filter(|&i| i != NOT_A_MEMBER)
}

impl ClusterScratch {
    /// Member `c`'s place in `members`, if it is one.
    fn index(&self, c: usize) -> Option<usize> {
        member_index(&self.slot, c)
    }

    /// Makes collider `c` a member.
    fn add(&mut self, c: usize) {
        if self.slot.len() <= c {
            self.slot.resize(c + 1, NOT_A_MEMBER);
        }
        self.slot[c] = self.members.len();
        self.members.push(c);
    }

    fn clear(&mut self) {
        for &m in &self.members {
            self.slot[m] = NOT_A_MEMBER;
        }
        self.members.clear();
        self.contacts.clear();
        self.seen.clear();
        self.problem.clear();
        self.hold.clear();
        self.sources.clear();
        self.paid = false;
        for taken in &mut self.taken {
            taken.clear();
        }
    }
}

/// How far apart (in envelopes) two bodies may be and still enter a cluster solve: those in
/// the envelope rebound, those just beyond it are kept from approaching.
const CLUSTER_REACH: f64 = 2.0;
/// Over how many hops of a resting cluster a pair just beyond the envelope may close to the
/// middle of it (see `EventLoop::pose_cluster`). Measured on the dominos (instructions per
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
/// A cluster is held (see `EventLoop::hold_cluster`) when, its touching contacts stopped, no
/// point of a body moves faster than this share of the microcollision threshold speed.
const HOLD_SPEED: f64 = 1e-2;
/// The hold tests' stops end when no contact's velocity is farther than this share of the
/// threshold speed from its target.
const HOLD_TOLERANCE: f64 = 1e-4;
/// The deepest overlap, in envelopes, at which a cluster's contacts may be held (see
/// `EventLoop::may_hold`): a ball set 0.5 envelopes into the floor was held there, under the
/// rise out of the overlap that microcollisions give (`WorldSettings::rise_speed`).
const HELD_OVERLAP: f64 = 1e-2;
/// How little the hold tests ask of friction (see `sticking_stop::solve`): with friction
/// weighted as normal impulses, the least-norm share of a pyramid's load put half of it
/// into friction.
const CARRY_FRICTION_WEIGHT: f64 = 0.01;
/// Most conjugate-gradient passes of a hold test's stop.
const MAX_STOP_ITERATIONS: u32 = 2000;
/// Impulses within this share of the largest normal impulse of their friction cones count as
/// inside (rounding of the stop).
const CONE_SLACK: f64 = 1e-9;
/// Most rounds of letting go of pulling points in the test of whether a cluster can carry its
/// weight.
const CARRY_ROUNDS: usize = 8;
/// The speed each body's pull gives it, in threshold speeds, in the test of whether a cluster
/// can carry its weight: stopped to `HOLD_SPEED`, the acceleration left is below
/// `HOLD_SPEED / CARRY_SPEEDS` of the pull.
const CARRY_SPEEDS: f64 = 10.0;
/// Under paradigm switching, a pair of polyhedra whose closest distance is within this share of
/// the envelope of zero takes its normal from the faces between them (see
/// `touching_face_normal`).
const TOUCHING_DISTANCE: f64 = 1e-6;
/// Most sweeps of an impact's solve.
const MAX_IMPACT_SWEEPS: u32 = 200;
/// A contact a cluster solve settled approaches, at that instant, by at most this many times
/// the solve's tolerance (what the sweeps leave); answering that as a collision would set off
/// the cascade the solve replaces.
const SETTLED_RESIDUAL: f64 = 10.0;
