//! Rigid bodies: their mass model, their state, and how they move between collisions.
//!
//! Frames. A body is described in its *model frame* — the coordinates its shapes are given in
//! (a mesh file's own axes). Its *body frame* has its origin at the centre of mass and its axes
//! along the principal axes of inertia, so the inertia tensor there is diagonal (Mirtich App. A.3).
//! The state is the body frame's world pose and the velocities of the centre of mass; the fixed
//! transform between body and model frames is kept to report and draw the model.

mod free_flight;
mod loads;
mod prescribed;

#[cfg(any(test, feature = "internals"))]
pub use free_flight::EulerRotation;
#[cfg(feature = "internals")]
pub use free_flight::FreeFlight;
#[cfg(not(feature = "internals"))]
pub(crate) use free_flight::FreeFlight;
pub use prescribed::{Oscillation, PrescribedMotion};

use std::fmt;

use crate::geometry::{MassProperties, Shape, ShapeError};
use crate::integrate::{IntegrationError, Tolerance};
use crate::math::{Mat3, Point, Pose, Quat, Vec3, is_finite_vec, pose};

/// Index of a body in its world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BodyId(pub usize);

/// The instantaneous state of a rigid body (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Position of the centre of mass.
    pub position: Vec3,
    /// Orientation of the body (principal) frame: maps body coordinates to world.
    pub orientation: Quat,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity.
    pub angular_velocity: Vec3,
}

impl BodyState {
    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        is_finite_vec(&self.position)
            && self.orientation.coords.iter().all(|c| c.is_finite())
            && is_finite_vec(&self.velocity)
            && is_finite_vec(&self.angular_velocity)
    }

    /// Pose of the body frame.
    pub fn pose(&self) -> Pose {
        pose(self.position, self.orientation)
    }
}

/// How a body moves.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum MotionType {
    /// Moves under gravity, applied forces and (later) collisions.
    #[default]
    Dynamic,
    /// Never moves; infinitely massive.
    Fixed,
    /// Follows a prescribed motion; infinitely massive.
    Kinematic(PrescribedMotion),
}

/// A shape placed in a body's model frame.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedShape {
    /// The shape, in its own frame.
    pub shape: Shape,
    /// Pose of the shape's frame in the model frame.
    pub pose: Pose,
    /// Density of this shape, overriding the body's (only with a body `density`).
    pub density: Option<f64>,
}

impl PlacedShape {
    /// A shape at the model origin.
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            pose: Pose::identity(),
            density: None,
        }
    }
}

/// How a body's mass is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSpec {
    /// Uniform density of the shapes (each shape may override it).
    Density(f64),
    /// Total mass of the shapes, at uniform density.
    Mass(f64),
    /// Mass properties given directly (a robot model's `<inertial>`): the shapes only collide
    /// and add no mass, and a multibody link may then have no shapes at all.
    Explicit {
        /// Mass (> 0).
        mass: f64,
        /// Centre of mass, model coordinates.
        center_of_mass: Point,
        /// Inertia tensor about the centre of mass along the model axes (symmetric, positive
        /// definite).
        inertia: Mat3,
    },
}

/// Friction and restitution of a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Coulomb friction coefficient μ ≥ 0.
    pub friction: f64,
    /// Coefficient of restitution e ∈ [0, 1].
    pub restitution: f64,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            friction: 0.3,
            restitution: 0.5,
        }
    }
}

impl Material {
    /// Checks that friction is finite and at least 0 and restitution lies in [0, 1].
    pub fn check(&self) -> Result<(), MaterialError> {
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(MaterialError {
                what: "friction (expected μ ≥ 0)",
                value: self.friction,
            });
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(MaterialError {
                what: "restitution (expected 0 ≤ e ≤ 1)",
                value: self.restitution,
            });
        }
        Ok(())
    }
}

/// A friction or restitution outside its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialError {
    /// Which coefficient, and its range.
    pub what: &'static str,
    /// The value given.
    pub value: f64,
}

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} is out of range", self.what, self.value)
    }
}

impl std::error::Error for MaterialError {}

/// Everything needed to create a body.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDesc {
    /// Unique name.
    pub name: String,
    /// Shapes in the model frame (at least one).
    pub shapes: Vec<PlacedShape>,
    /// Point masses `(mass, position in the model frame)`, added to the shapes' mass.
    pub point_masses: Vec<(f64, Point)>,
    /// Mass of the shapes; ignored for fixed and kinematic bodies.
    pub mass: MassSpec,
    /// Pose of the model frame in the world at time 0.
    pub pose: Pose,
    /// Velocity of the centre of mass at time 0.
    pub velocity: Vec3,
    /// Angular velocity at time 0.
    pub angular_velocity: Vec3,
    /// How the body moves.
    pub motion: MotionType,
    /// Surface material.
    pub material: Material,
    /// Named material this body uses, if any (for per-pair overrides).
    pub material_name: Option<String>,
    /// Constant force at the centre of mass, world frame.
    pub force: Vec3,
    /// Constant torque, world frame.
    pub torque: Vec3,
}

impl BodyDesc {
    /// A dynamic body of uniform density 1 made of one shape at the origin, at rest.
    pub fn new(name: impl Into<String>, shape: Shape) -> Self {
        Self {
            name: name.into(),
            shapes: vec![PlacedShape::new(shape)],
            point_masses: Vec::new(),
            mass: MassSpec::Density(1.0),
            pose: Pose::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            motion: MotionType::Dynamic,
            material: Material::default(),
            material_name: None,
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
        }
    }
}

/// Why a body description cannot make a body.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyError {
    /// No shapes.
    NoShapes,
    /// A number is NaN or infinite.
    NonFinite { what: &'static str },
    /// Mass or density not positive.
    NonPositiveMass { what: &'static str, value: f64 },
    /// A half-space on a body that can move.
    HalfSpaceNotFixed,
    /// A dynamic body that includes a half-space cannot have mass properties.
    ZeroInertia,
    /// An inertia tensor given directly that no solid has: a principal moment not positive, or
    /// larger than the sum of the other two.
    InertiaNotPhysical { moments: [f64; 3] },
    /// Friction or restitution outside its range.
    BadMaterial(MaterialError),
    /// The initial state cannot be integrated.
    Integration(IntegrationError),
    /// Shape `index` (in the body's list) has bad dimensions.
    Shape {
        index: usize,
        kind: &'static str,
        error: ShapeError,
    },
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoShapes => write!(f, "a body needs at least one shape"),
            Self::NonFinite { what } => write!(f, "{what} must be finite"),
            Self::NonPositiveMass { what, value } => {
                write!(f, "{what} must be positive, got {value}")
            }
            Self::HalfSpaceNotFixed => write!(
                f,
                "a half-space is unbounded, so only a fixed body may use one"
            ),
            Self::ZeroInertia => write!(
                f,
                "the body's inertia is singular (all its mass on a line); give it a solid shape"
            ),
            Self::InertiaNotPhysical { moments } => write!(
                f,
                "the inertia tensor's principal moments ({}, {}, {}) must be positive, and each \
                 at most the sum of the other two (the triangle inequality every solid obeys)",
                moments[0], moments[1], moments[2]
            ),
            Self::BadMaterial(error) => error.fmt(f),
            Self::Integration(e) => e.fmt(f),
            Self::Shape { index, kind, error } => write!(f, "shape {index} ({kind}): {error}"),
        }
    }
}

impl std::error::Error for BodyError {}

/// Checks that an inertia tensor (about the centre of mass) is one a solid can have: its
/// principal moments positive (beyond rounding: 1e-12 of the largest) and each at most the sum
/// of the other two (`I₁ + I₂ ≥ I₃`: the moments are sums of second moments `∫y² + z²`, …).
pub(crate) fn check_inertia(inertia: &Mat3) -> Result<(), BodyError> {
    let moments = nalgebra::SymmetricEigen::new(*inertia).eigenvalues;
    let largest = moments.amax();
    let positive = moments.iter().all(|&m| m > 1e-12 * largest) && largest.is_finite();
    let sum = moments.sum();
    let triangle = moments.iter().all(|&m| m <= (sum - m) * (1.0 + 1e-9));
    if positive && triangle {
        Ok(())
    } else {
        Err(BodyError::InertiaNotPhysical {
            moments: [moments[0], moments[1], moments[2]],
        })
    }
}

/// Checks every shape's dimensions ([`Shape::check`]).
pub(crate) fn check_shapes(shapes: &[PlacedShape]) -> Result<(), BodyError> {
    for (index, placed) in shapes.iter().enumerate() {
        placed.shape.check().map_err(|error| BodyError::Shape {
            index,
            kind: placed.shape.kind(),
            error,
        })?;
    }
    Ok(())
}

/// A rigid body.
#[derive(Clone, Debug)]
pub struct RigidBody {
    name: String,
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

/// Mass properties of a body's shapes and point masses, in its model frame.
pub(crate) fn body_mass_properties(desc: &BodyDesc) -> Result<MassProperties, BodyError> {
    let mut parts = Vec::with_capacity(desc.shapes.len() + desc.point_masses.len());
    match desc.mass {
        MassSpec::Density(density) => {
            if !(density.is_finite() && density > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "density",
                    value: density,
                });
            }
            for placed in &desc.shapes {
                let d = placed.density.unwrap_or(density);
                if !(d.is_finite() && d > 0.0) {
                    return Err(BodyError::NonPositiveMass {
                        what: "shape density",
                        value: d,
                    });
                }
                if let Some(mp) = placed.shape.mass_properties(d) {
                    parts.push(mp.transformed(&placed.pose));
                }
            }
        }
        MassSpec::Mass(mass) => {
            if !(mass.is_finite() && mass > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "mass",
                    value: mass,
                });
            }
            let unit: Vec<MassProperties> = desc
                .shapes
                .iter()
                .filter_map(|p| p.shape.mass_properties(1.0).map(|m| m.transformed(&p.pose)))
                .collect();
            let total = MassProperties::combine(&unit);
            parts.push(total.with_mass(mass));
        }
        MassSpec::Explicit {
            mass,
            center_of_mass,
            inertia,
        } => {
            if !(mass.is_finite() && mass > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "mass",
                    value: mass,
                });
            }
            let finite = center_of_mass.coords.iter().all(|c| c.is_finite())
                && inertia.iter().all(|c| c.is_finite());
            if !finite {
                return Err(BodyError::NonFinite {
                    what: "the centre of mass and the inertia tensor",
                });
            }
            let inertia = (inertia + inertia.transpose()) * 0.5;
            check_inertia(&inertia)?;
            parts.push(MassProperties {
                mass,
                center_of_mass,
                inertia,
                volume: 0.0,
            });
        }
    }
    for &(mass, position) in &desc.point_masses {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(BodyError::NonPositiveMass {
                what: "point mass",
                value: mass,
            });
        }
        parts.push(MassProperties::point_mass(mass, position));
    }
    let combined = MassProperties::combine(&parts);
    let finite = combined.mass.is_finite()
        && combined.center_of_mass.coords.iter().all(|c| c.is_finite())
        && combined.inertia.iter().all(|c| c.is_finite());
    if !finite {
        return Err(BodyError::NonFinite {
            what: "the inertia (mass × size², here too large: check the mass, density, \
                   point masses, sizes and shape offsets)",
        });
    }
    Ok(combined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_centre_mesh_model_pose_round_trips() {
        // A box whose model origin is not its centre: the model pose reported back equals the
        // pose given.
        let mut desc = BodyDesc::new(
            "b",
            Shape::Box {
                half_extents: Vec3::new(1.0, 2.0, 3.0),
            },
        );
        desc.shapes[0].pose = pose(
            Vec3::new(0.5, 0.0, 0.0),
            Quat::from_euler_angles(0.1, 0.2, 0.3),
        );
        desc.pose = pose(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_euler_angles(-0.4, 0.5, 0.6),
        );
        let body = RigidBody::new(desc.clone(), 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        let model = body.model_pose();
        assert!((model.translation.vector - desc.pose.translation.vector).norm() < 1e-14);
        assert!(model.rotation.angle_to(&desc.pose.rotation) < 1e-14);
        // The centre of mass is where the box's centre was placed.
        let centre = desc.pose * Point::new(0.5, 0.0, 0.0);
        assert!((body.state().position - centre.coords).norm() < 1e-14);
    }

    #[test]
    fn point_mass_adds_to_the_total_and_shifts_the_centre() {
        let mut desc = BodyDesc::new("r", Shape::Sphere { radius: 1.0 });
        desc.mass = MassSpec::Mass(0.5);
        desc.point_masses.push((0.03, Point::new(1.0, 0.0, 0.0)));
        let body = RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        assert!((body.mass() - 0.53).abs() < 1e-15);
        assert!((body.mass_properties().center_of_mass.x - 0.03 / 0.53).abs() < 1e-15);
    }

    #[test]
    fn invalid_descriptions_are_rejected() {
        let sphere = Shape::Sphere { radius: 1.0 };
        let mut desc = BodyDesc::new("x", sphere.clone());
        desc.mass = MassSpec::Mass(-1.0);
        assert!(RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).is_err());
        let desc = BodyDesc::new("ground", Shape::HalfSpace);
        assert_eq!(
            RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap_err(),
            BodyError::HalfSpaceNotFixed
        );
        let mut desc = BodyDesc::new("x", sphere);
        desc.material.restitution = 1.5;
        assert!(RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).is_err());
    }

    #[test]
    fn kinematic_body_follows_its_motion_exactly() {
        let mut desc = BodyDesc::new(
            "platter",
            Shape::Cylinder {
                radius: 1.0,
                half_height: 0.05,
            },
        );
        desc.motion = MotionType::Kinematic(PrescribedMotion {
            angular_velocity: Vec3::new(0.0, 0.0, 3.3),
            ..Default::default()
        });
        let mut body =
            RigidBody::new(desc, 0.0, Vec3::new(0.0, 0.0, -9.81), Tolerance::default()).unwrap();
        body.advance_to(2.0).unwrap();
        assert!((body.state().orientation.angle() - (6.6 - std::f64::consts::TAU)).abs() < 1e-12);
        assert_eq!(body.state().position, Vec3::zeros());
        assert_eq!(body.kinetic_energy(), 0.0);
    }
}
