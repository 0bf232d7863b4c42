//! The collider table: every body and multibody link that can collide, by index, with its
//! collision geometry, and the one place that asks which of the two a collider is.
//!
//! The event loop works on collider indices only. Whatever it needs of a collider — where it
//! is, how fast a point of it moves, its share of a collision matrix, an impulse applied to
//! it, the box it sweeps and the bound on its motion — it asks the table, which answers for a
//! free, fixed or kinematic body from the body and its flight, and for a link from its
//! multibody (the articulated collision matrix of §5.3.3, impulse propagation through the
//! tree of §5.3.4, the motion envelope that bounds it).

use super::groups::{Groups, HeldMotion, advance_group};
use super::{Collider, MaterialTable, SimulationError, WorldSettings};
use crate::collision::CollisionModel;
use crate::collision::bounds::{Symmetry, body_motion_bound, body_swept_box, free_angular_speed};
use crate::collision::model::Convex;
use crate::collision::toi::MotionBound;
use crate::contact::ContactBody;
use crate::dynamics::{BodyId, BodyState, MotionType, RigidBody};
use crate::geometry::Aabb;
use crate::math::{Mat3, Point, Pose, Vec3};
use crate::multibody::{MotionEnvelope, Multibody, MultibodyId, Observations};
use crate::response::body_collision_matrix;

/// What the loop works on: the world's bodies and multibodies, its settings and contact
/// materials.
pub(crate) struct Participants<'a> {
    pub bodies: &'a mut [RigidBody],
    pub multibodies: &'a mut [Multibody],
    pub observations: &'a mut Observations,
    pub settings: &'a WorldSettings,
    pub materials: &'a MaterialTable<'a>,
    /// Constraint groups (constraint-based contact), which move the bodies they hold.
    pub groups: &'a mut Groups,
    /// Set from outside to stop the run between events (`World::set_interrupt`).
    pub interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    /// In a closed world, its energy at the (re)start, which microcollisions may not lift it
    /// above (see [`super::energy::ReboundBudget`]); `None` in a driven world.
    pub energy_ceiling: Option<f64>,
}

impl Participants<'_> {
    /// Moves multibody `m` (with its controllers) to `t`.
    #[inline]
    pub(super) fn advance_multibody(&mut self, m: usize, t: f64) -> Result<(), SimulationError> {
        let multibody = &mut self.multibodies[m];
        multibody
            .advance_observed(t, self.observations)
            .map_err(|error| SimulationError::Multibody {
                multibody: multibody.name().to_string(),
                error,
            })
    }
}

/// Every collider of a world and its collision geometry.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Colliders {
    /// The bodies first, then each multibody's links that have shapes.
    kinds: Vec<Collider>,
    /// Collider index of each multibody's links (none for a multibody with nothing else to
    /// hit, once [`Colliders::leave_out_lone_multibodies`] has run).
    pub(super) link_colliders: Vec<Vec<usize>>,
    /// (Geometry: a checkpoint takes it from the scene, see `World::restore_state`.)
    #[serde(skip)]
    pub(super) models: Vec<CollisionModel>,
    /// Reach from the centre of the collider's motion (centre of mass, or the model origin of
    /// fixed and kinematic bodies), and how fast rotation about that point can move its
    /// supporting planes per unit angular speed (the core's reach for sphere-swept parts).
    pub(super) reach: Vec<f64>,
    pub(super) spin_reach: Vec<f64>,
    /// That centre, in the model frame (see [`Colliders::centre`]).
    centres: Vec<Point>,
    /// The fixed body (collider index) a root link hangs from: they never collide.
    pub(super) hung_from: Vec<Option<usize>>,
    /// Free bodies that are symmetric tops (see [`Symmetry`]).
    symmetries: Vec<Option<Symmetry>>,
    /// Colliders with a half-space: paired with every other collider.
    pub(super) unbounded: Vec<bool>,
    /// Each multibody's current motion envelope (for those with colliding links), which
    /// bounds its links' motion.
    pub(super) envelopes: Vec<Option<MotionEnvelope>>,
    /// Per collider, the constraint group holding it and the bound on its motion there
    /// (constraint-based contact).
    held: Vec<Option<HeldMotion>>,
}

impl Colliders {
    /// The colliders of these bodies and multibodies.
    #[inline]
    pub(crate) fn new(bodies: &[RigidBody], multibodies: &[Multibody]) -> Self {
        let mut table = Self {
            kinds: Vec::new(),
            link_colliders: Vec::new(),
            models: Vec::new(),
            reach: Vec::new(),
            spin_reach: Vec::new(),
            centres: Vec::new(),
            hung_from: Vec::new(),
            symmetries: Vec::new(),
            unbounded: Vec::new(),
            envelopes: vec![None; multibodies.len()],
            held: Vec::new(),
        };
        let push = |table: &mut Self, collider, model: CollisionModel, centre, anchor| {
            table.reach.push(model.reach_from(&centre));
            table.spin_reach.push(model.spin_reach_from(&centre));
            table.centres.push(centre);
            let symmetry = match collider {
                Collider::Body(id) => Symmetry::of(&bodies[id.0], &model),
                Collider::Link(..) => None,
            };
            table.symmetries.push(symmetry);
            table.unbounded.push(!model.half_spaces.is_empty());
            table.models.push(model);
            table.kinds.push(collider);
            table.hung_from.push(anchor);
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
                indices.push(table.kinds.len());
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
        table.held = vec![None; table.kinds.len()];
        table
    }

    /// The group holding collider `c`, and the bound on its motion there.
    #[inline]
    pub(super) fn held_by(&self, c: usize) -> Option<HeldMotion> {
        self.held[c]
    }

    /// Sets (or clears) the group holding collider `c`.
    #[inline]
    pub(super) fn set_held(&mut self, c: usize, held: Option<HeldMotion>) {
        self.held[c] = held;
    }

    /// A multibody with nothing else to hit needs no motion envelopes: it flies on its own.
    #[inline]
    pub(super) fn leave_out_lone_multibodies(&mut self) {
        let n = self.kinds.len();
        for links in &mut self.link_colliders {
            let alone = (0..n)
                .all(|c| links.contains(&c) || links.iter().any(|&l| self.hung_from[l] == Some(c)));
            if alone {
                links.clear();
            }
        }
    }

    /// How many colliders.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// What collider `c` is.
    #[inline]
    pub(crate) fn kind(&self, c: usize) -> Collider {
        self.kinds[c]
    }

    /// The rigid body collider `c` is, if it is one.
    #[inline]
    pub(super) fn body(&self, c: usize) -> Option<BodyId> {
        match self.kinds[c] {
            Collider::Body(id) => Some(id),
            Collider::Link(..) => None,
        }
    }

    /// The multibody whose link collider `c` is, if it is one.
    #[inline]
    pub(super) fn multibody(&self, c: usize) -> Option<usize> {
        match self.kinds[c] {
            Collider::Body(_) => None,
            Collider::Link(m, _) => Some(m.0),
        }
    }

    /// Wakes collider `c` at `t` if it is a sleeping body (at rest: it starts a free flight).
    #[inline]
    pub(super) fn wake(
        &self,
        c: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let Collider::Body(id) = self.kinds[c] else {
            return Ok(());
        };
        let body = &mut world.bodies[id.0];
        body.wake(t).map_err(|error| SimulationError::Integration {
            body: body.name().to_string(),
            error,
        })
    }

    /// Whether two colliders may collide at all (see [`may_collide`]).
    #[inline]
    pub(super) fn eligible(&self, (a, b): (usize, usize), world: &Participants<'_>) -> bool {
        may_collide(
            (self.kinds[a], self.kinds[b]),
            (self.hung_from[a], self.hung_from[b]),
            (a, b),
            self.dynamic(a, world) || self.dynamic(b, world),
        )
    }

    #[inline]
    pub(super) fn is_link(&self, c: usize) -> bool {
        matches!(self.kinds[c], Collider::Link(..))
    }

    /// Whether collider `c` has a bounded part (goes into the broad phase).
    #[inline]
    pub(super) fn bounded(&self, c: usize) -> bool {
        !self.unbounded[c] && self.models[c].root().is_some()
    }

    /// Whether collider `c` can move.
    #[inline]
    pub(super) fn moves(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.kinds[c] {
            Collider::Body(id) => !matches!(world.bodies[id.0].motion(), MotionType::Fixed),
            Collider::Link(..) => true,
        }
    }

    /// Whether collider `c` is a kinematic body whose prescribed motion leaves it where it
    /// starts: it keeps nothing it touches awake, as a fixed body does not.
    #[inline]
    pub(super) fn stationary(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.kinds[c] {
            Collider::Body(id) => matches!(
                world.bodies[id.0].motion(),
                MotionType::Kinematic(motion) if motion.is_stationary()
            ),
            Collider::Link(..) => false,
        }
    }

    /// Whether collider `c` responds to impulses.
    #[inline]
    pub(super) fn dynamic(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.kinds[c] {
            Collider::Body(id) => world.bodies[id.0].is_dynamic(),
            Collider::Link(..) => true,
        }
    }

    /// Whether collider `c` is a free (dynamic) rigid body.
    #[inline]
    pub(super) fn free_body(&self, c: usize, world: &Participants<'_>) -> bool {
        matches!(self.kinds[c], Collider::Body(id) if world.bodies[id.0].is_dynamic())
    }

    /// Kinetic plus gravitational potential energy and mass of collider `c` if it is a free
    /// body (`None` for a fixed, kinematic or link collider).
    pub(super) fn free_energy(&self, c: usize, world: &Participants<'_>) -> Option<(f64, f64)> {
        match self.kinds[c] {
            Collider::Body(id) if world.bodies[id.0].is_dynamic() => {
                let body = &world.bodies[id.0];
                Some((
                    body.kinetic_energy() + body.potential_energy(&world.settings.gravity),
                    body.mass(),
                ))
            }
            _ => None,
        }
    }

    /// Whether collider `c` stays where it is until an impulse: fixed, or asleep.
    #[inline]
    pub(super) fn still(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.kinds[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                body.is_asleep() || matches!(body.motion(), MotionType::Fixed)
            }
            Collider::Link(..) => false,
        }
    }

    /// The acceleration of collider `c`'s centre in free flight, where the table knows it: a
    /// free body's (gravity and applied force over mass; zero asleep), zero for a fixed body
    /// or a kinematic one that stays where it starts; `None` for other kinematic bodies and for
    /// links.
    pub(super) fn flight_acceleration(&self, c: usize, world: &Participants<'_>) -> Option<Vec3> {
        match self.kinds[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                match body.motion() {
                    MotionType::Kinematic(motion) if !motion.is_stationary() => None,
                    _ => Some(body.acceleration()),
                }
            }
            Collider::Link(..) => None,
        }
    }

    /// Whether part `part` of collider `c` is curved where it touches (a sphere, capsule,
    /// ellipsoid or cylinder), so that it can roll: a polyhedron pivots on its corners.
    pub(super) fn curved(&self, c: usize, part: usize) -> bool {
        matches!(
            self.models[c].parts.get(part).map(|p| &p.convex),
            Some(
                Convex::Sphere { .. }
                    | Convex::Capsule { .. }
                    | Convex::Ellipsoid { .. }
                    | Convex::Cylinder { .. }
            )
        )
    }

    /// Whether collider `c` is asleep.
    #[inline]
    pub(super) fn asleep(&self, c: usize, world: &Participants<'_>) -> bool {
        matches!(self.kinds[c], Collider::Body(id) if world.bodies[id.0].is_asleep())
    }

    /// Whether collider `c` is a free body without applied torque, awake: its motion between
    /// impulses is a torque-free flight, which allowances and sleep rely on.
    #[inline]
    pub(super) fn torque_free(&self, c: usize, world: &Participants<'_>) -> bool {
        match self.kinds[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                body.is_dynamic() && body.torque() == Vec3::zeros() && self.held[c].is_none()
            }
            Collider::Link(..) => false,
        }
    }

    /// Display name: the body's, or `multibody/link`.
    #[inline]
    pub(super) fn name(&self, c: usize, world: &Participants<'_>) -> String {
        collider_name(self.kinds[c], world.bodies, world.multibodies)
    }

    /// Moves collider `c` (a body, or a link's whole multibody) to time `t`, checking its
    /// state stays finite.
    #[inline]
    pub(super) fn sample(
        &self,
        c: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        match (self.kinds[c], self.held[c]) {
            (Collider::Body(_), Some(held)) => advance_group(world, held.group, t),
            (Collider::Body(id), None) => super::advance_body(&mut world.bodies[id.0], t),
            (Collider::Link(m, _), _) => world.advance_multibody(m.0, t),
        }
    }

    /// Pose of collider `c`'s model frame (the frame its shapes are given in).
    #[inline]
    pub(super) fn pose(&self, c: usize, world: &Participants<'_>) -> Pose {
        collider_pose(self.kinds[c], world.bodies, world.multibodies)
    }

    /// Where collider `c`'s centre of motion is (world frame): every point of it lies within
    /// `reach[c]` of this point.
    #[inline]
    pub(super) fn centre(&self, c: usize, world: &Participants<'_>) -> Point {
        self.pose(c, world) * self.centres[c]
    }

    /// Velocity of the point of collider `c` at `point`.
    #[inline]
    pub(super) fn point_velocity(&self, c: usize, point: &Point, world: &Participants<'_>) -> Vec3 {
        match self.kinds[c] {
            Collider::Body(id) => world.bodies[id.0].point_velocity(point),
            Collider::Link(m, l) => world.multibodies[m.0].point_velocity(l, &point.coords),
        }
    }

    /// Collider `c`'s share of the collision matrix at `point`, world frame: the rigid body's
    /// (eq. 3.4) or the link's articulated one (§5.3.3).
    #[inline]
    pub(super) fn collision_matrix(
        &self,
        c: usize,
        point: &Point,
        world: &Participants<'_>,
    ) -> Mat3 {
        match self.kinds[c] {
            Collider::Body(id) => {
                let body = &world.bodies[id.0];
                body_collision_matrix(
                    body.inverse_mass(),
                    &body.inverse_inertia_world(),
                    &(point - body.center_of_mass()),
                )
            }
            Collider::Link(m, l) => world.multibodies[m.0].collision_matrix(l, &point.coords),
        }
    }

    /// Applies `impulse` at `point` to collider `c` at `t`: a body's flight restarts, a link's
    /// multibody propagates it through the tree (§5.3.4).
    #[inline]
    pub(super) fn apply_impulse(
        &self,
        c: usize,
        t: f64,
        impulse: &Vec3,
        point: &Point,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        if let Some(held) = self.held[c] {
            return self.apply_held_impulses(c, held, &[(*impulse, *point)], world);
        }
        match self.kinds[c] {
            Collider::Body(id) => {
                let body = &mut world.bodies[id.0];
                body.apply_impulse(t, impulse, point).map_err(|error| {
                    SimulationError::Integration {
                        body: body.name().to_string(),
                        error,
                    }
                })
            }
            Collider::Link(m, l) => {
                world.multibodies[m.0].apply_impulse(l, &point.coords, impulse);
                Ok(())
            }
        }
    }

    /// Applies several impulses (with the points they act at) to free body `c` at once, at
    /// `t`: one new flight. Links never take part in a simultaneous solve.
    #[inline]
    pub(super) fn apply_impulses(
        &self,
        c: usize,
        t: f64,
        impulses: &[(Vec3, Point)],
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        if let Some(held) = self.held[c] {
            return self.apply_held_impulses(c, held, impulses, world);
        }
        let Collider::Body(id) = self.kinds[c] else {
            unreachable!("links never join a simultaneous solve")
        };
        let body = &mut world.bodies[id.0];
        body.apply_impulses(t, impulses)
            .map_err(|error| SimulationError::Integration {
                body: body.name().to_string(),
                error,
            })
    }

    /// Applies impulses to held collider `c` (sampled at the group's time): its velocities in
    /// the group change, and the group's flight restarts.
    fn apply_held_impulses(
        &self,
        c: usize,
        held: HeldMotion,
        impulses: &[(Vec3, Point)],
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let Collider::Body(id) = self.kinds[c] else {
            return Ok(());
        };
        let body = &world.bodies[id.0];
        let inverse_inertia = body.inverse_inertia_world();
        let mut velocity = body.state().velocity;
        let mut angular = body.state().angular_velocity;
        for (impulse, point) in impulses {
            let r = point - body.center_of_mass();
            velocity += impulse * body.inverse_mass();
            angular += inverse_inertia * r.cross(impulse);
        }
        // The group stops the held contacts the impulse left approaching: every member's
        // velocities may change.
        let changed: Vec<(BodyId, BodyState)> = match world.groups.get_mut(held.group) {
            Some(group) => {
                let states = group.set_member_velocity(held.member, velocity, angular);
                group
                    .model
                    .members
                    .iter()
                    .map(|m| m.body)
                    .zip(states)
                    .collect()
            }
            None => {
                let mut state = *world.bodies[id.0].state();
                state.velocity = velocity;
                state.angular_velocity = angular;
                vec![(id, state)]
            }
        };
        for (body, s) in changed {
            let mut state = *world.bodies[body.0].state();
            state.velocity = s.velocity;
            state.angular_velocity = s.angular_velocity;
            world.bodies[body.0].set_held_state(state);
        }
        Ok(())
    }

    /// Free body `c` as a body of a contact problem (links never join one).
    #[inline]
    pub(super) fn contact_body(&self, c: usize, world: &Participants<'_>) -> ContactBody {
        let Collider::Body(id) = self.kinds[c] else {
            unreachable!("links never join a simultaneous solve")
        };
        let body = &world.bodies[id.0];
        ContactBody {
            inverse_mass: body.inverse_mass(),
            inverse_inertia: body.inverse_inertia_world(),
            center_of_mass: body.center_of_mass(),
            velocity: body.state().velocity,
            angular_velocity: body.state().angular_velocity,
        }
    }

    /// Box swept by collider `c` (sampled at time `from`) until `until`, which must be
    /// finite: a motion too large to bound stops the run. A link's box covers its
    /// multibody's envelope.
    #[inline]
    pub(super) fn swept_box(
        &self,
        c: usize,
        from: f64,
        until: f64,
        world: &Participants<'_>,
    ) -> Result<Aabb, SimulationError> {
        let span = (until - from).max(0.0);
        let aabb = match self.kinds[c] {
            Collider::Body(_) if self.held[c].is_some() => {
                let grow = Vec3::repeat(self.reach[c]);
                let envelope = self.held[c].map(|h| h.envelope);
                match envelope {
                    Some(e) => Aabb {
                        min: Point::from(e.center_min - grow),
                        max: Point::from(e.center_max + grow),
                    },
                    None => unreachable!("matched as held"),
                }
            }
            Collider::Body(id) => {
                body_swept_box(&world.bodies[id.0], &self.models[c], self.reach[c], span)
            }
            Collider::Link(m, l) => {
                let grow = Vec3::repeat(self.reach[c]);
                match &self.envelopes[m.0] {
                    Some(envelope) => Aabb {
                        min: Point::from(envelope.links[l].center_min - grow),
                        max: Point::from(envelope.links[l].center_max + grow),
                    },
                    None => Aabb {
                        min: Point::from(-Vec3::repeat(f64::INFINITY)),
                        max: Point::from(Vec3::repeat(f64::INFINITY)),
                    },
                }
            }
        };
        let finite = aabb
            .min
            .iter()
            .chain(aabb.max.iter())
            .all(|x| x.is_finite());
        if finite {
            Ok(aabb)
        } else {
            Err(SimulationError::NonFinite {
                body: self.name(c, world),
                time: from,
            })
        }
    }

    /// How far collider `c`'s points can travel: a body's bound by its motion type (a free
    /// flight's widened by `allowance`, see the schedule's allowances), a link's from its
    /// multibody's envelope (the k-formula of Fig. 5.4 over the velocity box).
    #[inline]
    pub(super) fn motion_bound(
        &self,
        c: usize,
        allowance: f64,
        world: &Participants<'_>,
    ) -> MotionBound {
        if let Some(held) = self.held[c] {
            let e = held.envelope;
            return MotionBound::Enveloped {
                velocity_min: e.velocity_min,
                velocity_max: e.velocity_max,
                angular_speed: e.angular_speed,
                reach: self.spin_reach[c],
            };
        }
        match self.kinds[c] {
            Collider::Body(id) => body_motion_bound(
                &world.bodies[id.0],
                self.symmetries[c],
                self.reach[c],
                self.spin_reach[c],
                allowance,
            ),
            Collider::Link(m, l) => match &self.envelopes[m.0] {
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
            },
        }
    }

    /// Until when collider `c`'s motion bound holds: for ever for a body (until an impulse),
    /// the end of its multibody's envelope for a link.
    #[inline]
    pub(super) fn bound_valid_until(&self, c: usize) -> f64 {
        match self.kinds[c] {
            Collider::Body(_) => self.held[c].map_or(f64::INFINITY, |h| h.end),
            Collider::Link(m, _) => self.envelopes[m.0]
                .as_ref()
                .map_or(f64::NEG_INFINITY, |e| e.end),
        }
    }

    /// A free body's velocity, acceleration and angular-speed bound now (`None` for a link).
    #[inline]
    pub(super) fn free_motion(&self, c: usize, world: &Participants<'_>) -> Option<FreeMotion> {
        let Collider::Body(id) = self.kinds[c] else {
            return None;
        };
        if self.held[c].is_some() {
            return None;
        }
        let body = &world.bodies[id.0];
        Some(FreeMotion {
            velocity: body.state().velocity,
            acceleration: body.acceleration(),
            angular_speed: free_angular_speed(body),
        })
    }

    /// Speed of collider `c`'s fastest point: `|v| + r |ω|` (infinite for a link: links never
    /// sleep).
    #[inline]
    pub(super) fn speed(&self, c: usize, world: &Participants<'_>) -> f64 {
        match self.kinds[c] {
            Collider::Body(id) => {
                let s = world.bodies[id.0].state();
                s.velocity.norm() + self.reach[c] * s.angular_velocity.norm()
            }
            Collider::Link(..) => f64::INFINITY,
        }
    }
}

/// A free body's velocity, acceleration and angular-speed bound, as an allowance compares them
/// with the motion its pair's check assumed.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct FreeMotion {
    pub velocity: Vec3,
    pub acceleration: Vec3,
    pub angular_speed: f64,
}

/// Whether two colliders (with the fixed bodies they hang from and their indices) may collide
/// at all: something in the pair responds to impulses, and it is not two links of one
/// multibody nor a root link and the fixed body it hangs from.
pub(crate) fn may_collide(
    colliders: (Collider, Collider),
    hung_from: (Option<usize>, Option<usize>),
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
    hung_from.0 != Some(indices.1) && hung_from.1 != Some(indices.0)
}

/// Display name of a collider: the body's name, or `multibody/link`.
pub(crate) fn collider_name(
    c: Collider,
    bodies: &[RigidBody],
    multibodies: &[Multibody],
) -> String {
    match c {
        Collider::Body(id) => bodies[id.0].name().to_string(),
        Collider::Link(m, l) => {
            let multibody = &multibodies[m.0];
            format!("{}/{}", multibody.name(), multibody.tree().links()[l].name)
        }
    }
}

/// Pose of a collider's model frame.
pub(crate) fn collider_pose(c: Collider, bodies: &[RigidBody], multibodies: &[Multibody]) -> Pose {
    match c {
        Collider::Body(id) => bodies[id.0].model_pose(),
        Collider::Link(m, l) => multibodies[m.0].link_model_pose(l),
    }
}

/// Whether a collider responds to impulses.
pub(crate) fn collider_is_dynamic(c: Collider, bodies: &[RigidBody]) -> bool {
    match c {
        Collider::Body(id) => bodies[id.0].is_dynamic(),
        Collider::Link(..) => true,
    }
}
