//! A rigid body: its mass model, its state, and how it moves between collisions (free flight,
//! prescribed motion, holding still, sleep).

mod loads;

use crate::geometry::{MassProperties, Shape};
use crate::integrate::{IntegrationError, Tolerance};
use crate::math::{Mat3, Point, Pose, Quat, Vec3, is_finite_vec, pose};

use super::{
    BodyDesc, BodyError, BodyState, FreeFlight, Material, MotionType, PlacedShape,
    body_mass_properties, check_shapes,
};

/// A rigid body.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RigidBody {
    name: String,
    /// (Geometry: a checkpoint takes it from the scene, see `World::restore_state`.)
    #[serde(skip)]
    shapes: Vec<PlacedShape>,
    /// Mass properties in the model frame (zero mass for fixed/kinematic bodies made of a
    /// half-space).
    mass_properties: MassProperties,
    /// Principal moments (body frame).
    principal_inertia: Vec3,
    /// Maps body-frame coordinates to model coordinates.
    body_to_model: Pose,
    motion: MotionType,
    material: Material,
    material_name: Option<String>,
    force: Vec3,
    torque: Vec3,
    /// Time the body was created and the pose of its model frame then (prescribed motion is
    /// measured from these).
    start_time: f64,
    start_model_pose: Pose,
    /// State at the world's current time.
    state: BodyState,
    flight: Option<FreeFlight>,
    /// Linear acceleration in free flight (gravity plus force over mass).
    acceleration: Vec3,
    /// Error control of the rotational integration.
    tolerance: Tolerance,
    /// Integrator steps (accepted, rejected) of flights already ended by impulses.
    finished_steps: (u64, u64),
    /// Asleep: at rest, out of gravity's pull, until an impulse wakes it (see
    /// [`RigidBody::fall_asleep`]).
    asleep: bool,
    /// Held by a constraint group (constraint-based contact): its state is the group's, which
    /// moves it (see [`RigidBody::hold`]).
    held: bool,
}

impl RigidBody {
    /// Builds a body from its description, which gives its state at time `t0`, under `gravity`.
    pub fn new(
        desc: BodyDesc,
        t0: f64,
        gravity: Vec3,
        tolerance: Tolerance,
    ) -> Result<Self, BodyError> {
        if desc.shapes.is_empty() {
            return Err(BodyError::NoShapes);
        }
        check_shapes(&desc.shapes)?;
        let finite = |v: &Vec3| is_finite_vec(v);
        for (what, v) in [
            ("velocity", &desc.velocity),
            ("angular velocity", &desc.angular_velocity),
            ("force", &desc.force),
            ("torque", &desc.torque),
            ("position", &desc.pose.translation.vector),
        ] {
            if !finite(v) {
                return Err(BodyError::NonFinite { what });
            }
        }
        if let MotionType::Kinematic(motion) = &desc.motion
            && !motion.is_finite()
        {
            return Err(BodyError::NonFinite {
                what: "prescribed motion",
            });
        }
        desc.material.check().map_err(BodyError::BadMaterial)?;
        let has_half_space = desc
            .shapes
            .iter()
            .any(|s| matches!(s.shape, Shape::HalfSpace));
        let dynamic = matches!(desc.motion, MotionType::Dynamic);
        if has_half_space && dynamic {
            return Err(BodyError::HalfSpaceNotFixed);
        }
        let mass_properties = if has_half_space {
            MassProperties::zero()
        } else {
            body_mass_properties(&desc)?
        };
        let (principal_inertia, axes) = if has_half_space {
            (Vec3::zeros(), Quat::identity())
        } else {
            mass_properties.principal()
        };
        if dynamic {
            let scale = principal_inertia.max();
            let smallest = principal_inertia.min();
            let size = desc
                .shapes
                .iter()
                .map(|p| p.shape.bounding_radius() + p.pose.translation.vector.norm())
                .fold(0.0, f64::max);
            if let Some(error) = super::desc::underflow(mass_properties.mass, scale, size) {
                return Err(error);
            }
            if smallest.is_nan() || smallest <= 1e-12 * scale {
                return Err(BodyError::ZeroInertia);
            }
        }
        let body_to_model = pose(mass_properties.center_of_mass.coords, axes);
        let model_pose = desc.pose;
        let body_pose = model_pose * body_to_model;
        let mut body = Self {
            name: desc.name,
            shapes: desc.shapes,
            mass_properties,
            principal_inertia,
            body_to_model,
            motion: desc.motion,
            material: desc.material,
            material_name: desc.material_name,
            force: desc.force,
            torque: desc.torque,
            start_time: t0,
            start_model_pose: model_pose,
            state: BodyState {
                position: body_pose.translation.vector,
                orientation: body_pose.rotation,
                velocity: desc.velocity,
                angular_velocity: desc.angular_velocity,
            },
            flight: None,
            acceleration: Vec3::zeros(),
            tolerance,
            finished_steps: (0, 0),
            asleep: false,
            held: false,
        };
        if !body.kinetic_energy().is_finite() {
            return Err(BodyError::NonFinite {
                what: "kinetic energy (the velocities are too large)",
            });
        }
        match &body.motion {
            MotionType::Dynamic => {
                let acceleration = gravity + body.force / body.mass_properties.mass;
                body.acceleration = acceleration;
                body.flight = Some(
                    FreeFlight::new(
                        t0,
                        &body.state,
                        body.principal_inertia,
                        acceleration,
                        body.torque,
                        tolerance,
                    )
                    .map_err(BodyError::Integration)?,
                );
            }
            MotionType::Fixed => {
                body.state.velocity = Vec3::zeros();
                body.state.angular_velocity = Vec3::zeros();
            }
            MotionType::Kinematic(_) => body.state = body.prescribed_state(t0),
        }
        Ok(body)
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Shapes in the model frame.
    pub fn shapes(&self) -> &[PlacedShape] {
        &self.shapes
    }

    /// Takes the shapes of `built`, the same body built from the scene, which a checkpoint
    /// does not hold (see `World::restore_state`).
    pub(crate) fn adopt_shapes(&mut self, built: &RigidBody) {
        self.shapes = built.shapes.clone();
    }

    /// How the body moves.
    pub fn motion(&self) -> &MotionType {
        &self.motion
    }

    /// True for bodies that respond to forces (neither fixed nor kinematic).
    pub fn is_dynamic(&self) -> bool {
        matches!(self.motion, MotionType::Dynamic)
    }

    /// Surface material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Named material, if any.
    pub fn material_name(&self) -> Option<&str> {
        self.material_name.as_deref()
    }

    /// Mass (of shapes and point masses); for fixed and kinematic bodies this is the mass their
    /// shapes would have, though they act as infinitely massive.
    pub fn mass(&self) -> f64 {
        self.mass_properties.mass
    }

    /// `1/m` for dynamic bodies, 0 for fixed and kinematic ones.
    pub fn inverse_mass(&self) -> f64 {
        if self.is_dynamic() {
            1.0 / self.mass_properties.mass
        } else {
            0.0
        }
    }

    /// Mass properties in the model frame.
    pub fn mass_properties(&self) -> &MassProperties {
        &self.mass_properties
    }

    /// Principal moments of inertia (body frame).
    pub fn principal_inertia(&self) -> Vec3 {
        self.principal_inertia
    }

    /// The transform taking body-frame coordinates to model coordinates.
    pub fn body_to_model(&self) -> &Pose {
        &self.body_to_model
    }

    /// State at the world's current time.
    pub fn state(&self) -> &BodyState {
        &self.state
    }

    /// Pose of the model frame in the world (where the shapes are).
    pub fn model_pose(&self) -> Pose {
        self.state.pose() * self.body_to_model.inverse()
    }

    /// Constant applied force (world frame).
    pub fn force(&self) -> Vec3 {
        self.force
    }

    /// Kinetic energy `½ m v² + ½ ωᵀ I ω` (zero for fixed and kinematic bodies, whose motion is
    /// not part of the system's energy).
    pub fn kinetic_energy(&self) -> f64 {
        if !self.is_dynamic() {
            return 0.0;
        }
        let w_body = self.state.orientation.inverse() * self.state.angular_velocity;
        0.5 * self.mass_properties.mass * self.state.velocity.norm_squared()
            + 0.5 * w_body.dot(&self.principal_inertia.component_mul(&w_body))
    }

    /// Whether [`RigidBody::kinetic_energy`] is finite, for a body whose state is finite: the
    /// bound `½ m |v|² + ½ I_max |ω|²` (no rotation into the body frame) answers at once when
    /// it is far below overflow, and the energy itself is computed only when it is not. The
    /// same answer as `kinetic_energy().is_finite()`, at a fifth of its cost: it is asked at
    /// every sample of every body (`world::advance_body`).
    pub(crate) fn kinetic_energy_is_finite(&self) -> bool {
        if !self.is_dynamic() {
            return true;
        }
        let largest_moment = self.principal_inertia.max();
        let bound = 0.5 * self.mass_properties.mass * self.state.velocity.norm_squared()
            + 0.5 * largest_moment * self.state.angular_velocity.norm_squared();
        // The rotated ω's norm differs from |ω| by rounding only: a quarter of the largest
        // float leaves room for it.
        bound < 0.25 * f64::MAX || self.kinetic_energy().is_finite()
    }

    /// Gravitational potential energy `−m g · c` (zero for fixed and kinematic bodies).
    pub fn potential_energy(&self, gravity: &Vec3) -> f64 {
        if !self.is_dynamic() {
            return 0.0;
        }
        -self.mass_properties.mass * gravity.dot(&self.state.position)
    }

    /// Angular momentum about the centre of mass, world frame.
    pub fn angular_momentum(&self) -> Vec3 {
        let w_body = self.state.orientation.inverse() * self.state.angular_velocity;
        self.state.orientation * self.principal_inertia.component_mul(&w_body)
    }

    /// Integrator steps taken by all flights so far (accepted, rejected).
    pub fn integrator_steps(&self) -> (u64, u64) {
        let (a, r) = self.flight.as_ref().map_or((0, 0), |f| f.step_counts());
        (a + self.finished_steps.0, r + self.finished_steps.1)
    }

    /// Linear acceleration in free flight (gravity plus applied force over mass; zero for
    /// fixed and kinematic bodies, and while asleep).
    pub fn acceleration(&self) -> Vec3 {
        if self.asleep {
            Vec3::zeros()
        } else {
            self.acceleration
        }
    }

    /// Whether the body is asleep: held at rest where it fell asleep until an impulse wakes it.
    pub fn is_asleep(&self) -> bool {
        self.asleep
    }

    /// Puts a dynamic body to sleep: its velocities become zero and it stays where it is, out
    /// of gravity's pull, as if fixed, until [`RigidBody::wake`] or an impulse. The world does
    /// this to an island of bodies that has stayed still long enough (see `world::sleep`); its
    /// supports then carry it without the microcollisions that resting contact otherwise takes.
    pub(crate) fn fall_asleep(&mut self) {
        if !self.is_dynamic() || self.asleep {
            return;
        }
        self.end_flight();
        self.state.velocity = Vec3::zeros();
        self.state.angular_velocity = Vec3::zeros();
        self.asleep = true;
    }

    /// Whether a constraint group holds the body (its motion is the group's).
    pub fn is_held(&self) -> bool {
        self.held
    }

    /// Hands a dynamic body's motion to a constraint group: its free flight ends, and from now
    /// on the group sets its state ([`RigidBody::set_held_state`]) until it is released.
    pub(crate) fn hold(&mut self) {
        if !self.is_dynamic() || self.held {
            return;
        }
        self.end_flight();
        self.asleep = false;
        self.held = true;
    }

    /// The state the holding group moved the body to.
    pub(crate) fn set_held_state(&mut self, state: BodyState) {
        self.state = state;
    }

    /// Gives a free body new velocities at `t` (a collision solved for several bodies at once)
    /// and starts a new flight from them.
    pub(crate) fn restart_with(
        &mut self,
        t: f64,
        velocity: Vec3,
        angular_velocity: Vec3,
    ) -> Result<(), IntegrationError> {
        if !self.is_dynamic() {
            return Ok(());
        }
        self.state.velocity = velocity;
        self.state.angular_velocity = angular_velocity;
        self.asleep = false;
        self.start_flight(t)
    }

    /// Puts a free (dynamic, not held) body in `state` at `t`, awake, and starts a new flight
    /// from it (the caller's edit of the state, see [`crate::World::set_body_state`]).
    pub(crate) fn set_state(&mut self, t: f64, state: BodyState) -> Result<(), IntegrationError> {
        self.state = state;
        self.asleep = false;
        self.start_flight(t)
    }

    /// Lets a held body go at `t`: it starts a free flight from its present state.
    pub(crate) fn release(&mut self, t: f64) -> Result<(), IntegrationError> {
        if !self.held {
            return Ok(());
        }
        self.held = false;
        self.start_flight(t)
    }

    /// Wakes a sleeping body at time `t`: it starts a free flight from rest.
    pub(crate) fn wake(&mut self, t: f64) -> Result<(), IntegrationError> {
        if !self.asleep {
            return Ok(());
        }
        self.asleep = false;
        self.start_flight(t)
    }

    /// Ends the current flight, counting its steps; returns it (its storage may serve the
    /// next).
    fn end_flight(&mut self) -> Option<FreeFlight> {
        let flight = self.flight.take()?;
        let (accepted, rejected) = flight.step_counts();
        self.finished_steps.0 += accepted;
        self.finished_steps.1 += rejected;
        Some(flight)
    }

    /// Starts a flight at `t` from the present state, ending the current one (if any) and
    /// reusing its storage.
    fn start_flight(&mut self, t: f64) -> Result<(), IntegrationError> {
        let previous = self.end_flight();
        self.flight = Some(FreeFlight::reusing(
            previous,
            t,
            &self.state,
            self.principal_inertia,
            self.acceleration,
            self.torque,
            self.tolerance,
        )?);
        Ok(())
    }

    /// The applied torque (world frame).
    pub fn torque(&self) -> Vec3 {
        self.torque
    }

    /// Inverse inertia tensor in world coordinates (zero for fixed and kinematic bodies).
    pub fn inverse_inertia_world(&self) -> Mat3 {
        if !self.is_dynamic() {
            return Mat3::zeros();
        }
        let r = self.state.orientation.to_rotation_matrix().into_inner();
        let inverse = Mat3::from_diagonal(&self.principal_inertia.map(|i| 1.0 / i));
        r * inverse * r.transpose()
    }

    /// Velocity of the material point at world position `point`.
    pub fn point_velocity(&self, point: &Point) -> Vec3 {
        self.state.velocity
            + self
                .state
                .angular_velocity
                .cross(&(point - Point::from(self.state.position)))
    }

    /// The centre of mass, world frame.
    pub fn center_of_mass(&self) -> Point {
        Point::from(self.state.position)
    }

    /// Applies `impulse` at world `point` at the body's current time `t`: the centre of mass
    /// gains `p/m`, the angular velocity `I⁻¹ (r × p)`, and a new free flight starts from there
    /// (waking the body if it was asleep). No effect on fixed and kinematic bodies.
    pub(crate) fn apply_impulse(
        &mut self,
        t: f64,
        impulse: &Vec3,
        point: &Point,
    ) -> Result<(), IntegrationError> {
        self.apply_impulses(t, &[(*impulse, *point)])
    }

    /// Applies several impulses at once, each `(impulse, point)` in world coordinates, and
    /// starts one new flight from the velocities they leave (as [`RigidBody::apply_impulse`]
    /// does for one).
    pub(crate) fn apply_impulses(
        &mut self,
        t: f64,
        impulses: &[(Vec3, Point)],
    ) -> Result<(), IntegrationError> {
        if !self.is_dynamic() {
            return Ok(());
        }
        let inverse_inertia = self.inverse_inertia_world();
        for (impulse, point) in impulses {
            let r = point - Point::from(self.state.position);
            self.state.velocity += impulse / self.mass_properties.mass;
            self.state.angular_velocity += inverse_inertia * r.cross(impulse);
        }
        self.asleep = false;
        self.start_flight(t)
    }

    /// Moves the body to time `t` (not earlier than its current time).
    pub(crate) fn advance_to(&mut self, t: f64) -> Result<(), IntegrationError> {
        match &self.motion {
            MotionType::Dynamic => {
                if let Some(flight) = &mut self.flight {
                    self.state = flight.state_at(t)?;
                }
            }
            MotionType::Fixed => {}
            MotionType::Kinematic(_) => self.state = self.prescribed_state(t),
        }
        Ok(())
    }

    fn prescribed_state(&self, t: f64) -> BodyState {
        let MotionType::Kinematic(motion) = &self.motion else {
            return self.state;
        };
        let model = motion.model_pose(&self.start_model_pose, t - self.start_time);
        let body = model * self.body_to_model;
        let offset = body.translation.vector - model.translation.vector;
        BodyState {
            position: body.translation.vector,
            orientation: body.rotation,
            velocity: motion.origin_velocity(t - self.start_time)
                + motion.angular_velocity.cross(&offset),
            angular_velocity: motion.angular_velocity,
        }
    }
}
