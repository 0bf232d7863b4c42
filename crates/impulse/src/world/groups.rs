//! Constraint groups in the event loop (`world.contact_model = "constraint"`, Baraff).
//!
//! Under the constraint model a pair found within the envelope and approaching is answered in
//! the respond phase by [`EventLoop::respond_constraint`]: the pair's contact region joins the
//! contacts of the groups its bodies are already held by, and one collision LCP over all of
//! them (`lcp::impulse::collide`: Newton's restitution at the approaching contacts, Coulomb
//! friction, never adding energy) answers the impact. Contacts the impulses leave slower than
//! the rest speed `√(2 g ε)` are *held* from then on: the bodies they join move as one
//! [`ContactGroup`], integrated with contact forces (see `contact::constraint`). A group's
//! members are colliders like any other to the rest of the loop: their motion is bounded by the
//! group's envelope, renewed at each box period and at the group's `Group` event, where a
//! contact that opened past the envelope is let go (and a member left without contacts flies
//! free again).
//!
//! Multibody links and kinematic bodies are not held: their contacts are answered by
//! impulses, as under the impulse model. So are pairs whose contact point has no closed form
//! here (a cylinder's rim or an ellipsoid against anything but a plane's flat region is answered
//! by impulses until the general kinematics of `contact::kinematics` poses them).

use super::colliders::Participants;
use super::event_loop::{Event, EventLoop};
use super::{CollisionEvent, SimulationError};
use crate::collision::Closest;
use crate::collision::broad::Pair;
use crate::contact::constraint::held::{HeldContact, Kinematics, Motion, Side};
use crate::contact::constraint::{
    ContactGroup, GroupCounters, Holding, Interruption, Member, MemberEnvelope, RayImpulse,
    iterative,
};
use crate::dynamics::{BodyState, MotionType, RigidBody};
use crate::integrate::IntegrationError;
use crate::lcp::contact::{
    ContactBody as LcpBody, ContactPoint as LcpPoint, ContactSystem, apply_impulses,
};
use crate::lcp::impulse::collide_or_frictionless;
use crate::lcp::lemke::LemkeOptions;
use crate::math::{Point, Vec3};
use crate::response::ResponseKind;

/// The gap held contacts are drawn to, in envelopes: touching to the eye, but not so close that
/// the narrow phase's closest features turn arbitrary (two faces flush within rounding have no
/// closest pair of features).
const HELD_GAP: f64 = 1e-2;

/// How much deeper than the held points (in envelopes) a corner within their region may lie
/// and still be the held surface found again: rounding and a tilt of the held face within the
/// envelope; deeper, it is another surface sinking through the region.
const SAME_SURFACE: f64 = 0.1;

/// Samples per integration step when bounding a group's members.
const ENVELOPE_SAMPLES: usize = 8;

/// The constraint groups of a world, in slots (a slot's index names its `Group` event).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Groups {
    slots: Vec<Option<ContactGroup>>,
    /// What the groups that have ended did (and the frictionless fallbacks of the collisions
    /// that form groups).
    ended: GroupCounters,
    /// Ray impulses the groups have reached, not yet taken as events.
    rays: Vec<RayImpulse>,
}

impl Groups {
    fn insert(&mut self, group: ContactGroup) -> usize {
        match self.slots.iter().position(Option::is_none) {
            Some(i) => {
                self.slots[i] = Some(group);
                i
            }
            None => {
                self.slots.push(Some(group));
                self.slots.len() - 1
            }
        }
    }

    fn take(&mut self, g: usize) -> Option<ContactGroup> {
        let mut group = self.slots.get_mut(g).and_then(Option::take)?;
        self.ended.add(&group.counters());
        self.rays.extend(group.take_rays());
        Some(group)
    }

    pub(crate) fn get(&self, g: usize) -> Option<&ContactGroup> {
        self.slots.get(g).and_then(Option::as_ref)
    }

    pub(crate) fn get_mut(&mut self, g: usize) -> Option<&mut ContactGroup> {
        self.slots.get_mut(g).and_then(Option::as_mut)
    }

    /// Every group's index.
    pub(crate) fn indices(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&g| self.slots[g].is_some())
            .collect()
    }

    /// Takes every group (the loop is rebuilt).
    pub(crate) fn drain(&mut self) -> Vec<ContactGroup> {
        let mut groups: Vec<ContactGroup> = self.slots.drain(..).flatten().collect();
        for g in &mut groups {
            self.ended.add(&g.counters());
            self.rays.extend(g.take_rays());
        }
        groups
    }

    /// Takes the ray impulses the groups have reached.
    pub(crate) fn take_rays(&mut self) -> Vec<RayImpulse> {
        std::mem::take(&mut self.rays)
    }

    /// What every group, ended or not, has done.
    pub(crate) fn counters(&self) -> GroupCounters {
        let mut sum = self.ended;
        for g in self.slots.iter().flatten() {
            sum.add(&g.counters());
        }
        sum
    }
}

/// How a collider's motion is bounded while a group holds it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct HeldMotion {
    pub(crate) group: usize,
    pub(crate) member: usize,
    pub(crate) envelope: MemberEnvelope,
    /// Until when the envelope holds.
    pub(crate) end: f64,
}

/// Group `group` could not be integrated: the error names its bodies.
fn group_error(
    group: &ContactGroup,
    bodies: &[RigidBody],
    error: IntegrationError,
) -> SimulationError {
    SimulationError::Group {
        bodies: group
            .model
            .members
            .iter()
            .map(|m| bodies[m.body.0].name().to_string())
            .collect(),
        error,
    }
}

/// Moves group `g` to `t` and writes its members' states into their bodies.
pub(crate) fn advance_group(
    world: &mut Participants<'_>,
    g: usize,
    t: f64,
) -> Result<(), SimulationError> {
    let Some(group) = world.groups.get_mut(g) else {
        return Ok(());
    };
    let states = group
        .advance_to(t)
        .map_err(|error| group_error(group, world.bodies, error))?;
    for (member, state) in group.model.members.iter().zip(states) {
        world.bodies[member.body.0].set_held_state(state);
    }
    let rays = group.take_rays();
    world.groups.rays.extend(rays);
    Ok(())
}

impl EventLoop {
    /// Records the ray impulses the groups have reached as `events.csv` rows (kind "ray"), in
    /// time order with the other events; done before the collider table changes.
    pub(super) fn record_rays(&mut self, groups: &mut Groups) {
        let rays = groups.take_rays();
        if rays.is_empty() {
            return;
        }
        for ray in rays {
            self.events.push(CollisionEvent {
                time: ray.time,
                kind: ResponseKind::Ray,
                colliders: (
                    self.colliders.kind(ray.pair.0),
                    self.colliders.kind(ray.pair.1),
                ),
                point: ray.point,
                normal: ray.normal,
                impulse: ray.impulse,
            });
        }
        self.events.sort_by(|a, b| a.time.total_cmp(&b.time));
    }

    /// How contacts are held under this world's settings: the integrator's tolerance; sliding
    /// above a thousandth of the rest speed; the drift correction at `√(g/ε)` (the rate at
    /// which gravity closes the envelope; at least one per box period); released past the
    /// envelope.
    pub(super) fn holding(world: &Participants<'_>) -> Holding {
        let settings = world.settings;
        let epsilon = settings.collision_epsilon;
        let gravity = settings.gravity.norm();
        Holding {
            tolerance: settings.integrator,
            sliding_speed: 1e-3 * Self::rest_speed(world),
            stiffness: (gravity / epsilon).sqrt().max(1.0 / settings.box_period),
            release_gap: epsilon,
            gap: HELD_GAP * epsilon,
            penalty: super::penalty::penalty_law(settings),
        }
    }

    /// The speed below which a contact left by a collision is held: the speed that lifts a
    /// body out of the envelope against gravity, `√(2 g ε)` (without gravity, crossing the
    /// envelope in a box period).
    pub(super) fn rest_speed(world: &Participants<'_>) -> f64 {
        let settings = world.settings;
        let epsilon = settings.collision_epsilon;
        (2.0 * settings.gravity.norm() * epsilon)
            .sqrt()
            .max(epsilon / settings.box_period)
    }

    /// Whether collider `c` can take part in a held contact: a free body or a fixed one.
    pub(super) fn holdable(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.colliders.body(c) {
            Some(id) => matches!(
                world.bodies[id.0].motion(),
                MotionType::Dynamic | MotionType::Fixed
            ),
            None => false,
        }
    }

    /// The constraint model's response to pair `p`, found within the envelope and approaching
    /// at `t` (see the module comment). Pairs it cannot hold get the impulse model's single
    /// response.
    pub(super) fn respond_constraint(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        if !self.holdable(p.0, world) || !self.holdable(p.1, world) {
            // Closest points that will pass each other are not a collision, nor is a seam in
            // the surface a body is held on (`super::near_miss`).
            if self.near_miss(p, contact, world) {
                return Ok(());
            }
            return self.collide(p, t, contact, world);
        }
        // The island: the pair's free bodies and every member of the groups they are in.
        let mut groups: Vec<usize> = [p.0, p.1]
            .iter()
            .filter_map(|&c| self.colliders.held_by(c).map(|h| h.group))
            .collect();
        groups.sort_unstable();
        groups.dedup();
        let mut members: Vec<usize> = Vec::new();
        let mut contacts: Vec<HeldContact> = Vec::new();
        for &g in &groups {
            let Some(group) = world.groups.get(g) else {
                continue;
            };
            let offset = members.len();
            members.extend(group.model.members.iter().map(|m| m.collider));
            contacts.extend(group.model.contacts.iter().map(|c| HeldContact {
                a: shift(c.a, offset),
                b: shift(c.b, offset),
                ..c.clone()
            }));
        }
        for c in [p.0, p.1] {
            if self.colliders.free_body(c, world) && !members.contains(&c) {
                members.push(c);
            }
        }
        let side = |c: usize| {
            members
                .iter()
                .position(|&m| m == c)
                .map_or(Side::Fixed, Side::Member)
        };
        let Some(new) = self.pair_contacts(p, contact, (side(p.0), side(p.1)), world) else {
            return self.collide(p, t, contact, world);
        };
        // Points the pair already holds, or that lie within the region its held points span
        // (the same face found again, its corners clipped a hair differently), are not added:
        // only a point outside it (a box tipping onto its other edge) is new.
        let motions: Vec<Motion> = members.iter().map(|&c| self.motion(c, world)).collect();
        let fixed = Motion::FIXED;
        let at = |s: Side| match s {
            Side::Member(k) => &motions[k],
            Side::Fixed => &fixed,
        };
        let held: Vec<Kinematics> = contacts
            .iter()
            .filter(|c| c.pair == p || c.pair == (p.1, p.0))
            .map(|c| c.kinematics(at(c.a), at(c.b)))
            .collect();
        let held_points: Vec<Point> = held.iter().map(|k| k.point).collect();
        let deepest_held = held.iter().map(|k| k.gap).fold(f64::INFINITY, f64::min);
        let epsilon = world.settings.collision_epsilon;
        // A corner farther apart than the release gap is not a contact: held, it would be let
        // go at the group's first step, and found again at the next check, for ever. A corner
        // within the held region is the same surface found again only if it lies no deeper
        // than the deepest held point (a rigid face held at its corners is held between them): a
        // compound body's other piece, or a non-convex part's lower face, can sink inside the
        // region's outline while the held points stay at their gap.
        let new: Vec<HeldContact> = new
            .into_iter()
            .filter(|c| {
                let k = c.kinematics(at(c.a), at(c.b));
                let held_already = within_region(&k.point, &k.normal, &held_points, epsilon)
                    && k.gap >= deepest_held - SAME_SURFACE * epsilon;
                k.gap <= epsilon && !held_already
            })
            .collect();
        let rest = Self::rest_speed(world);
        let approach = -contact.normal.dot(
            &(self
                .colliders
                .point_velocity(p.0, &contact.contact_point(), world)
                - self
                    .colliders
                    .point_velocity(p.1, &contact.contact_point(), world)),
        );
        if new.is_empty() && approach < rest && !groups.is_empty() {
            // A held pair checked again, resting: its forces answer it.
            return Ok(());
        }
        if new.is_empty() && contacts.is_empty() {
            // No corner within the release gap after all: an impulse answers the pair.
            return self.collide(p, t, contact, world);
        }
        let first_new = contacts.len();
        contacts.extend(new);
        // One collision solve over the island's contacts.
        let mut bodies: Vec<LcpBody> = members
            .iter()
            .zip(&motions)
            .map(|(&c, m)| self.lcp_body(c, m, world))
            .collect();
        let points: Vec<LcpPoint> = contacts
            .iter()
            .map(|c| c.lcp_point(&c.kinematics(at(c.a), at(c.b))))
            .collect();
        let system = ContactSystem::new(&bodies, &points, 1e-3 * rest).map_err(|_| {
            SimulationError::NonFinite {
                body: self.colliders.name(p.0, world),
                time: t,
            }
        })?;
        let options = LemkeOptions::default();
        // Under the penalty model a pair arriving slower than the rest speed is its springs' to
        // answer, with no impulse (`super::penalty::springs_answer`).
        let impulses = if super::penalty::springs_answer(world.settings, approach, rest) {
            vec![Vec3::zeros(); points.len()]
        } else if iterative::is_large(points.len()) {
            // A large island's collision by sweeps (see `contact::constraint::iterative`).
            let mut swept = bodies.clone();
            let found = iterative::collide(&system, &mut swept, &points, 1e-3 * rest);
            self.counters.collisions += 1;
            found
        } else {
            // Frictionless where Lemke cannot solve the frictional problem (as in a time step).
            let counted = &mut world.groups.ended.frictionless_fallbacks;
            let collision = collide_or_frictionless(&system, &options, counted).map_err(|_| {
                SimulationError::CollisionUnsolved {
                    bodies: members
                        .iter()
                        .map(|&c| self.colliders.name(c, world))
                        .collect(),
                    contacts: points.len(),
                    time: t,
                }
            })?;
            self.counters.collisions += 1;
            collision.impulses
        };
        apply_impulses(&mut bodies, &points, &impulses);
        self.respond_at(t);
        for (c, (point, impulse)) in contacts.iter().zip(points.iter().zip(&impulses)) {
            if *impulse != Vec3::zeros() {
                self.events.push(CollisionEvent {
                    time: t,
                    kind: ResponseKind::Collision,
                    colliders: (self.colliders.kind(c.pair.0), self.colliders.kind(c.pair.1)),
                    point: point.point,
                    normal: point.normal,
                    impulse: *impulse,
                });
            }
        }
        // New contacts left slower than the rest speed are held; the others separate.
        let after = system.velocities_after(&impulses);
        let keep: Vec<bool> = (0..contacts.len())
            .map(|i| i < first_new || after[i].x < rest)
            .collect();
        let contacts: Vec<HeldContact> = contacts
            .into_iter()
            .zip(keep)
            .filter_map(|(c, k)| k.then_some(c))
            .collect();
        // The island's old groups end; its bodies move on as new groups or free.
        for &g in &groups {
            world.groups.take(g);
            self.schedule.heap.remove(&Event::Group(g));
        }
        let moved = self.regroup(&members, &bodies, contacts, t, world)?;
        self.recheck_moved(&moved, Some(p), t, world);
        Ok(())
    }

    /// Forms the groups of `members` (collider indices; `bodies` their velocities after the
    /// collision) connected by `contacts`, frees the members no contact joins, and bounds the
    /// new groups' motion. Returns every member (their motion changed).
    fn regroup(
        &mut self,
        members: &[usize],
        bodies: &[LcpBody],
        contacts: Vec<HeldContact>,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<Vec<usize>, SimulationError> {
        let n = members.len();
        // Components by union–find over the contacts joining two members.
        let mut root: Vec<usize> = (0..n).collect();
        fn find(root: &mut [usize], k: usize) -> usize {
            let mut k = k;
            while root[k] != k {
                root[k] = root[root[k]];
                k = root[k];
            }
            k
        }
        let mut touched = vec![false; n];
        for c in &contacts {
            for s in [c.a, c.b] {
                if let Side::Member(k) = s {
                    touched[k] = true;
                }
            }
            if let (Side::Member(i), Side::Member(j)) = (c.a, c.b) {
                let (ri, rj) = (find(&mut root, i), find(&mut root, j));
                if ri != rj {
                    root[ri.max(rj)] = ri.min(rj);
                }
            }
        }
        let states: Vec<BodyState> = members
            .iter()
            .zip(bodies)
            .map(|(&c, b)| {
                let body = &world.bodies[self.body_index(c)];
                BodyState {
                    velocity: b.velocity,
                    angular_velocity: b.angular_velocity,
                    ..*body.state()
                }
            })
            .collect();
        // Free members: a new flight from their velocities after the collision.
        for k in 0..n {
            let c = members[k];
            self.colliders.set_held(c, None);
            let body = &mut world.bodies[self.body_index(c)];
            if touched[k] {
                body.hold();
                body.set_held_state(states[k]);
            } else {
                let result = if body.is_held() {
                    body.set_held_state(states[k]);
                    body.release(t)
                } else {
                    body.restart_with(t, states[k].velocity, states[k].angular_velocity)
                };
                result.map_err(|error| SimulationError::Integration {
                    body: body.name().to_string(),
                    error,
                })?;
                self.renew_box(c, t, world)?;
            }
        }
        let holding = Self::holding(world);
        let mut roots: Vec<usize> = (0..n)
            .filter(|&k| touched[k])
            .map(|k| find(&mut root, k))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        for r in roots {
            let ks: Vec<usize> = (0..n)
                .filter(|&k| touched[k] && find(&mut root, k) == r)
                .collect();
            let index = |k: usize| ks.iter().position(|&x| x == k);
            let group_contacts: Vec<HeldContact> = contacts
                .iter()
                .filter(|c| {
                    [c.a, c.b]
                        .iter()
                        .any(|s| matches!(s, Side::Member(k) if ks.contains(k)))
                })
                .map(|c| HeldContact {
                    a: reindex(c.a, &index),
                    b: reindex(c.b, &index),
                    ..c.clone()
                })
                .collect();
            let group_members: Vec<Member> =
                ks.iter().map(|&k| self.member(members[k], world)).collect();
            let group_states: Vec<BodyState> = ks.iter().map(|&k| states[k]).collect();
            let mut group =
                ContactGroup::new(group_members, &group_states, group_contacts, holding, t);
            group.interrupt = world.interrupt;
            let g = world.groups.insert(group);
            self.renew_group(g, t, world)?;
        }
        Ok(members.to_vec())
    }

    /// Bounds group `g`'s motion from `t` to the box period's end (or where its flight stops),
    /// gives its members their envelopes and boxes, and sets its `Group` event at the end.
    pub(super) fn renew_group(
        &mut self,
        g: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        advance_group(world, g, t)?;
        let until = self.schedule.period_end.max(t);
        let Some(group) = world.groups.get_mut(g) else {
            return Ok(());
        };
        let (end, envelopes) = group
            .motion_envelope(until, ENVELOPE_SAMPLES)
            .map_err(|error| group_error(group, world.bodies, error))?;
        let colliders: Vec<usize> = group.model.members.iter().map(|m| m.collider).collect();
        for (k, (&c, envelope)) in colliders.iter().zip(envelopes).enumerate() {
            self.colliders.set_held(
                c,
                Some(HeldMotion {
                    group: g,
                    member: k,
                    envelope,
                    end,
                }),
            );
        }
        for &c in &colliders {
            self.renew_box(c, t, world)?;
        }
        self.schedule.heap.set(Event::Group(g), end.max(t));
        Ok(())
    }

    /// Group `g`'s envelope ran out at `t` (its `Group` event): contacts that opened past the
    /// envelope are let go, its members regrouped by the contacts left (a member without any
    /// flies free), and every pair of its members checked again.
    pub(super) fn group_horizon(
        &mut self,
        g: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        advance_group(world, g, t)?;
        let Some(group) = world.groups.get(g) else {
            return Ok(());
        };
        let members: Vec<usize> = group.model.members.iter().map(|m| m.collider).collect();
        let moved = if group
            .interruption()
            .is_some_and(|Interruption::Released { time }| time <= t)
        {
            let held = group.contacts_held();
            let contacts: Vec<HeldContact> = group
                .model
                .contacts
                .iter()
                .zip(&held)
                .filter(|(_, held)| **held)
                .map(|(c, _)| c.clone())
                .collect();
            let bodies: Vec<LcpBody> = (0..members.len())
                .map(|k| {
                    let s = group.member_state(k);
                    LcpBody {
                        inverse_mass: 0.0,
                        inverse_inertia: crate::math::Mat3::zeros(),
                        center_of_mass: Point::from(s.position),
                        velocity: s.velocity,
                        angular_velocity: s.angular_velocity,
                        force: Vec3::zeros(),
                        torque: Vec3::zeros(),
                    }
                })
                .collect();
            world.groups.take(g);
            self.regroup(&members, &bodies, contacts, t, world)?
        } else {
            self.renew_group(g, t, world)?;
            members
        };
        self.recheck_moved(&moved, None, t, world);
        Ok(())
    }

    /// The index of collider `c`'s body (held contacts join bodies only).
    fn body_index(&self, c: usize) -> usize {
        self.colliders.body(c).map_or(0, |id| id.0)
    }

    /// Collider `c`'s motion now (a fixed body's is the world's).
    pub(super) fn motion(&self, c: usize, world: &Participants<'_>) -> Motion {
        let body = &world.bodies[self.body_index(c)];
        if !body.is_dynamic() {
            return Motion::FIXED;
        }
        let s = body.state();
        Motion {
            position: s.position,
            orientation: s.orientation,
            velocity: s.velocity,
            angular_velocity: s.angular_velocity,
        }
    }

    /// Free body `c` as a member of a group.
    pub(super) fn member(&self, c: usize, world: &Participants<'_>) -> Member {
        let id = self.colliders.body(c).unwrap_or(crate::dynamics::BodyId(0));
        let body = &world.bodies[id.0];
        Member {
            collider: c,
            body: id,
            inverse_mass: body.inverse_mass(),
            principal_inertia: body.principal_inertia(),
            force: world.settings.gravity * body.mass() + body.force(),
            torque: body.torque(),
        }
    }

    /// Collider `c` as a body of a collision problem, moving as `motion`.
    fn lcp_body(&self, c: usize, motion: &Motion, world: &Participants<'_>) -> LcpBody {
        let body = &world.bodies[self.body_index(c)];
        LcpBody {
            inverse_mass: body.inverse_mass(),
            inverse_inertia: body.inverse_inertia_world(),
            center_of_mass: Point::from(motion.position),
            velocity: motion.velocity,
            angular_velocity: motion.angular_velocity,
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
        }
    }
}

/// Whether `point` lies within `tolerance` of the region `held` spans across `normal` (the
/// convex hull of the held points projected onto the contact plane: a point, a segment or a
/// polygon).
fn within_region(point: &Point, normal: &Vec3, held: &[Point], tolerance: f64) -> bool {
    if held.is_empty() {
        return false;
    }
    let (t1, t2) = crate::math::orthonormal_basis(normal);
    let flat = |p: &Point| (p.coords.dot(&t1), p.coords.dot(&t2));
    let q = flat(point);
    let pts: Vec<(f64, f64)> = held.iter().map(flat).collect();
    // Distance from q to each segment between held points (and to each point): within the
    // tolerance of any, it is on the region's outline.
    let near = |a: (f64, f64), b: (f64, f64)| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let length = dx * dx + dy * dy;
        let s = if length > 0.0 {
            (((q.0 - a.0) * dx + (q.1 - a.1) * dy) / length).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (x, y) = (a.0 + s * dx - q.0, a.1 + s * dy - q.1);
        (x * x + y * y).sqrt() <= tolerance
    };
    for i in 0..pts.len() {
        for j in i..pts.len() {
            if near(pts[i], pts[j]) {
                return true;
            }
        }
    }
    // Inside a triangle of held points.
    let side = |a: (f64, f64), b: (f64, f64)| (b.0 - a.0) * (q.1 - a.1) - (b.1 - a.1) * (q.0 - a.0);
    for i in 0..pts.len() {
        for j in i + 1..pts.len() {
            for k in j + 1..pts.len() {
                let (s1, s2, s3) = (
                    side(pts[i], pts[j]),
                    side(pts[j], pts[k]),
                    side(pts[k], pts[i]),
                );
                if (s1 >= 0.0 && s2 >= 0.0 && s3 >= 0.0) || (s1 <= 0.0 && s2 <= 0.0 && s3 <= 0.0) {
                    return true;
                }
            }
        }
    }
    false
}

/// A side shifted into a larger member list.
fn shift(side: Side, offset: usize) -> Side {
    match side {
        Side::Member(k) => Side::Member(k + offset),
        Side::Fixed => Side::Fixed,
    }
}

/// A side renumbered into a group's own members.
fn reindex(side: Side, index: &dyn Fn(usize) -> Option<usize>) -> Side {
    match side {
        Side::Member(k) => index(k).map_or(Side::Fixed, Side::Member),
        Side::Fixed => Side::Fixed,
    }
}
