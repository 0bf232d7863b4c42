//! A multibody in a world: its tree, its state at the world's time, its integration, its
//! controllers, and the queries and impulses that collision handling needs.
//!
//! Motion between events works like a rigid body's free flight: the state `(q, v)` is
//! integrated by the adaptive Dormand–Prince integrator ([`MultibodyOde`]) and *sampled* at the
//! times the world asks for, through the step's interpolant, so sampling never changes the
//! motion. A controller update or an impulse ends the current flight and starts a new one from
//! the state at that instant.
//!
//! Collision detection needs to know how links will move before they get there (Mirtich
//! §5.2 bounds link motion with padded quadratic extrapolation, checked after each step and
//! backed up on violation). Here the flight is instead integrated *ahead* of the world's time,
//! keeping every step's continuous output: [`Multibody::motion_envelope`] bounds each link's
//! position, velocity and angular speed over a coming interval from that known motion, and
//! sampling inside it later gives exactly the same states as integrating on demand. Only an
//! impulse or a controller update changes the motion, and both end the flight.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;

use super::build::{BodyLookup, BuildError, MultibodyDesc, build};
use super::controller::{Commands, Controller, Observations};
use super::envelope::{ENVELOPE_SAMPLES, EnvelopeBuilder};
pub use super::envelope::{LinkEnvelope, MotionEnvelope};
use super::impulse::pseudo_inverse;
use super::spatial::{SpatialVec, angular, linear};
use super::tree::{AppliedForces, Tree, Workspace};
use crate::integrate::{AdaptiveRk, IntegrationError, OdeSystem, StepInterpolant, Tolerance};
use crate::math::{Mat3, Pose, Quat, Vec3, pose};

/// Index of a multibody in its world.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct MultibodyId(pub usize);

/// The equations of motion of a multibody as an ODE: state `[q; v]`, `q̇` from the joint
/// kinematics, `v̇` from the articulated-body algorithm with passive elements and held forces.
pub struct MultibodyOde<'a> {
    tree: &'a Tree,
    applied: &'a AppliedForces,
    gravity: Vec3,
    scratch: RefCell<(Workspace, Vec<f64>)>,
}

impl<'a> MultibodyOde<'a> {
    /// The ODE of `tree` under `gravity` and the constant `applied` forces.
    pub fn new(tree: &'a Tree, applied: &'a AppliedForces, gravity: Vec3) -> Self {
        Self {
            tree,
            applied,
            gravity,
            scratch: RefCell::new((Workspace::new(tree.links().len()), vec![0.0; tree.nv()])),
        }
    }
}

impl OdeSystem for MultibodyOde<'_> {
    fn dimension(&self) -> usize {
        self.tree.nq() + self.tree.nv()
    }

    fn derivative(&self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let nq = self.tree.nq();
        let (q, v) = y.split_at(nq);
        let (q_dot, v_dot) = dydt.split_at_mut(nq);
        self.tree.position_derivative(q, v, q_dot);
        let mut scratch = self.scratch.borrow_mut();
        let (ws, tau) = &mut *scratch;
        tau.copy_from_slice(&self.applied.joint);
        self.tree.add_passive_forces(q, v, tau);
        self.tree
            .forward_dynamics(q, v, tau, self.applied, &self.gravity, ws, v_dot);
    }

    fn project(&self, y: &mut [f64]) -> bool {
        self.tree.normalize(&mut y[..self.tree.nq()])
    }
}

/// Why a multibody cannot go on.
#[derive(Clone, Debug, PartialEq)]
pub enum MultibodyError {
    /// A joint's state (or the accelerations it drives) became NaN or infinite.
    NonFinite { joint: String, time: f64 },
    /// The integrator could not continue; `joint` is the joint moving fastest then.
    Integration {
        joint: String,
        error: IntegrationError,
    },
}

impl fmt::Display for MultibodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { joint, time } => write!(
                f,
                "joint `{joint}`: its state stopped being finite at t = {time}"
            ),
            Self::Integration { joint, error } => write!(f, "joint `{joint}`: {error}"),
        }
    }
}

impl std::error::Error for MultibodyError {}

/// A controller with its schedule and held output.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Scheduled {
    /// (A checkpoint saves its state, see [`super::controller::saved`].)
    #[serde(with = "super::controller::saved")]
    controller: Box<dyn Controller>,
    /// Time of update 0.
    start: f64,
    /// Updates done so far.
    updates: u64,
    commands: Commands,
}

impl Scheduled {
    fn next_time(&self) -> f64 {
        self.start + self.updates as f64 * self.controller.period()
    }
}

/// An articulated multibody in reduced coordinates.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Multibody {
    name: String,
    /// (Links and their geometry: a checkpoint takes them from the scene, see
    /// `World::restore_state`.)
    #[serde(skip)]
    tree: Tree,
    gravity: Vec3,
    tolerance: Tolerance,
    time: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    /// Current integration, started from the state at the last impulse or controller update,
    /// possibly ahead of `time`.
    flight: Option<Box<AdaptiveRk>>,
    /// The flight's steps that end after `time`, oldest first.
    segments: VecDeque<StepInterpolant>,
    controllers: Vec<Scheduled>,
    /// Sum of the controllers' held outputs.
    held: AppliedForces,
    /// Kinematics, accelerations and articulated inertias at the current state.
    current: Workspace,
    current_v_dot: Vec<f64>,
    steps: (u64, u64),
    /// Step size the last flight had reached, tried first by the next one.
    resume_step: f64,
    controller_updates: u64,
    impulses: u64,
}

/// Shortest controller period: a million updates per unit time (a megahertz with time in
/// seconds, far above any real servo loop). Each update ends an integration step, so a rate of
/// 1e308 stepped 1e-308 at a time for ever.
pub const MIN_CONTROLLER_PERIOD: f64 = 1e-6;

impl Multibody {
    /// Builds a multibody whose description gives its state at time `t0`; `lookup` says what
    /// a joint parent that is not a link names (fixed bodies may carry a multibody).
    pub fn new(
        mut desc: MultibodyDesc,
        t0: f64,
        gravity: Vec3,
        tolerance: Tolerance,
        lookup: &dyn Fn(&str) -> BodyLookup,
    ) -> Result<Self, BuildError> {
        let built = build(&desc, lookup)?;
        let mut controllers = Vec::new();
        for (index, mut controller) in desc.controllers.drain(..).enumerate() {
            let period = controller.period();
            if !(period > 0.0 && period.is_finite()) {
                return Err(BuildError::Controller {
                    index,
                    message: format!("its period must be positive and finite, got {period}"),
                });
            }
            if period < MIN_CONTROLLER_PERIOD {
                return Err(BuildError::Controller {
                    index,
                    message: format!(
                        "it updates {} times per unit time; at most {} are allowed (a period \
                         of at least {MIN_CONTROLLER_PERIOD:e}: each update is a step of the \
                         simulation)",
                        crate::math::readable(1.0 / period),
                        crate::math::readable(1.0 / MIN_CONTROLLER_PERIOD)
                    ),
                });
            }
            controller
                .bind(&built.tree)
                .map_err(|message| BuildError::Controller { index, message })?;
            controllers.push(Scheduled {
                controller,
                start: t0,
                updates: 0,
                commands: Commands::new(built.tree.nv(), built.tree.links().len()),
            });
        }
        let n = built.tree.links().len();
        let nv = built.tree.nv();
        let mut mb = Self {
            name: desc.name,
            gravity,
            tolerance,
            time: t0,
            q: built.q,
            v: built.v,
            flight: None,
            segments: VecDeque::new(),
            controllers,
            held: AppliedForces::zero(nv, n),
            current: Workspace::new(n),
            current_v_dot: vec![0.0; nv],
            steps: (0, 0),
            resume_step: 0.0,
            controller_updates: 0,
            impulses: 0,
            tree: built.tree,
        };
        mb.refresh();
        if let Some(joint) = mb.non_finite_joint() {
            return Err(BuildError::Joint {
                joint,
                message: "the initial state is not finite (velocities too large?)".into(),
            });
        }
        Ok(mb)
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tree of links and joints.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Takes what a checkpoint does not hold from `built`, the same multibody built from the
    /// scene: the tree (links, joints, shapes), and its controllers, given their saved state
    /// (see `World::restore_state`).
    pub(crate) fn adopt_scene_parts(&mut self, built: &Multibody) -> Result<(), String> {
        if built.controllers.len() != self.controllers.len() {
            return Err(format!(
                "multibody `{}` has {} controllers in the scene, {} in the checkpoint",
                self.name,
                built.controllers.len(),
                self.controllers.len()
            ));
        }
        self.tree = built.tree.clone();
        for (saved, scene) in self.controllers.iter_mut().zip(&built.controllers) {
            let bytes = saved.controller.save_state()?;
            let mut controller = scene.controller.clone();
            controller.load_state(&bytes).map_err(|e| {
                format!(
                    "multibody `{}`: a controller of the checkpoint is not the scene's ({e})",
                    self.name
                )
            })?;
            saved.controller = controller;
        }
        Ok(())
    }

    /// Mutable access to the tree (to change passive elements between runs).
    pub fn tree_mut(&mut self) -> &mut Tree {
        self.end_flight();
        &mut self.tree
    }

    /// Time of the current state.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Joint positions at the current time.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// Joint velocities at the current time.
    pub fn v(&self) -> &[f64] {
        &self.v
    }

    /// Joint accelerations at the current time.
    pub fn v_dot(&self) -> &[f64] {
        &self.current_v_dot
    }

    /// Gravity acting on the multibody.
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// Changes the gravity from the current time on (the next advance integrates from the
    /// current state under it; see [`crate::World::set_gravity`]).
    pub(crate) fn set_gravity(&mut self, gravity: Vec3) {
        self.gravity = gravity;
        self.restart();
    }

    /// The link index of a link name.
    pub fn link_index(&self, name: &str) -> Option<usize> {
        self.tree.links().iter().position(|l| l.name == name)
    }

    /// The link index whose joint has this name.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.tree.links().iter().position(|l| l.joint.name == name)
    }

    /// Pose of link `i`'s link frame (centre of mass, principal axes) in the world.
    pub fn link_pose(&self, i: usize) -> Pose {
        let x = &self.current.x_world[i];
        let r = nalgebra::Rotation3::from_matrix_unchecked(x.rotation.transpose());
        pose(x.translation, Quat::from_rotation_matrix(&r))
    }

    /// Pose of link `i`'s model frame (where its shapes are) in the world.
    pub fn link_model_pose(&self, i: usize) -> Pose {
        self.link_pose(i) * self.tree.links()[i].body_to_model.inverse()
    }

    /// Velocity of link `i`'s centre of mass and its angular velocity, world frame.
    pub fn link_velocity(&self, i: usize) -> (Vec3, Vec3) {
        let e = self.current.x_world[i].rotation;
        let v = &self.current.velocity[i];
        (e.tr_mul(&linear(v)), e.tr_mul(&angular(v)))
    }

    /// Acceleration of link `i`'s centre of mass and its angular acceleration, world frame
    /// (for swept volumes, Mirtich §5.2.1). The spatial acceleration's linear part is the
    /// acceleration of the body-fixed point at the origin *as a field*; the centre's classical
    /// acceleration adds `ω × v`.
    pub fn link_acceleration(&self, i: usize) -> (Vec3, Vec3) {
        let e = self.current.x_world[i].rotation;
        let v = &self.current.velocity[i];
        let a = &self.current.acceleration[i];
        let classical = linear(a) + angular(v).cross(&linear(v));
        (e.tr_mul(&classical), e.tr_mul(&angular(a)))
    }

    /// Velocity of the material point of link `i` at world point `point`.
    pub fn point_velocity(&self, i: usize, point: &Vec3) -> Vec3 {
        let (v, w) = self.link_velocity(i);
        v + w.cross(&(point - self.current.x_world[i].translation))
    }

    /// The collision matrix `K_i` of link `i` at world point `point`, in world coordinates
    /// (Mirtich §5.3.3). Symmetric positive semi-definite; may be singular.
    pub fn collision_matrix(&self, i: usize, point: &Vec3) -> Mat3 {
        self.tree.collision_matrix(i, point, &self.current)
    }

    /// The collision matrix in a contact frame whose axes (world coordinates) are the columns
    /// of `frame` (orthonormal): `Fᵀ K F`.
    pub fn collision_matrix_in_frame(&self, i: usize, point: &Vec3, frame: &Mat3) -> Mat3 {
        frame.transpose() * self.collision_matrix(i, point) * frame
    }

    /// The impulse (world frame) that changes the velocity of the point by `delta_u`, of
    /// minimum norm when `K` is singular (Mirtich §5.3.4, SVD pseudo-inverse).
    pub fn impulse_for_velocity_change(&self, i: usize, point: &Vec3, delta_u: &Vec3) -> Vec3 {
        pseudo_inverse(&self.collision_matrix(i, point)) * delta_u
    }

    /// Applies the world impulse `impulse` at the world point `point` of link `i` at the
    /// current time: every joint velocity changes (Mirtich Fig. 5.10 `propagateImpulse`), and
    /// the integration restarts from the new state.
    pub fn apply_impulse(&mut self, i: usize, point: &Vec3, impulse: &Vec3) {
        let (spatial_impulse, _) = self.tree.point_impulse(i, point, impulse, &self.current);
        self.apply_spatial_impulse(i, &spatial_impulse);
    }

    /// Applies a spatial impulse `[n; f]` about link `i`'s centre of mass, link coordinates.
    pub fn apply_spatial_impulse(&mut self, i: usize, impulse: &SpatialVec) {
        let mut dv = vec![0.0; self.tree.nv()];
        self.tree
            .impulse_response(i, impulse, &self.current, &mut dv);
        for (v, d) in self.v.iter_mut().zip(&dv) {
            *v += d;
        }
        self.impulses += 1;
        self.restart();
    }

    /// Replaces the joint velocities (e.g. after an external collision solver) and restarts the
    /// integration.
    pub fn set_velocities(&mut self, v: &[f64]) {
        self.v.copy_from_slice(v);
        self.restart();
    }

    /// Ends the current flight: the next advance integrates from the current state. Call after
    /// changing the state from outside.
    pub fn restart(&mut self) {
        self.end_flight();
        self.refresh();
    }

    /// Drops the current flight, keeping its step counts.
    fn end_flight(&mut self) {
        self.segments.clear();
        if let Some(flight) = self.flight.take() {
            self.resume_step = flight.step_size();
            let (a, r) = flight.step_counts();
            self.steps.0 += a;
            self.steps.1 += r;
        }
    }

    /// Kinetic energy.
    pub fn kinetic_energy(&self) -> f64 {
        self.tree.kinetic_energy(&self.current) + self.tree.armature_energy(&self.v)
    }

    /// Each link's kinetic energy, by name.
    pub fn link_kinetic_energies(&self) -> Vec<(&str, f64)> {
        self.tree
            .links()
            .iter()
            .zip(&self.current.velocity)
            .map(|(link, v)| (link.name.as_str(), 0.5 * v.dot(&(link.inertia * v))))
            .collect()
    }

    /// Whether anything but gravity, springs, dampers and contacts drives it: controllers, or
    /// a constant force or torque on a link.
    pub fn is_driven(&self) -> bool {
        !self.controllers.is_empty()
            || self
                .tree
                .links()
                .iter()
                .any(|l| l.force != Vec3::zeros() || l.torque != Vec3::zeros())
    }

    /// Potential energy: gravity (zero at the world origin) plus springs and limit stops.
    pub fn potential_energy(&self) -> f64 {
        self.tree.gravitational_energy(&self.gravity, &self.current)
            + self.tree.passive_energy(&self.q)
    }

    /// Linear momentum and angular momentum about the world origin, world frame.
    pub fn momentum(&self) -> (Vec3, Vec3) {
        let h = self.tree.momentum(&self.current);
        (linear(&h), angular(&h))
    }

    /// Integrator steps (accepted, rejected), controller updates and impulses so far.
    pub fn counters(&self) -> (u64, u64, u64, u64) {
        let (mut a, mut r) = self.steps;
        if let Some(f) = &self.flight {
            let (fa, fr) = f.step_counts();
            a += fa;
            r += fr;
        }
        (a, r, self.controller_updates, self.impulses)
    }

    /// Moves the multibody to time `t ≥ time()`, running the controllers whose updates fall on
    /// the way (an update exactly at `t` runs too), on their own: controllers that watch other
    /// multibodies see nothing. See [`Multibody::advance_observed`].
    pub fn advance_to(&mut self, t: f64) -> Result<(), MultibodyError> {
        self.advance_observed(t, &mut Observations::default())
    }

    /// Moves the multibody to time `t ≥ time()`, running the controllers whose updates fall on
    /// the way with what they see of the other multibodies, and recording this one in
    /// `observations` at each update.
    pub fn advance_observed(
        &mut self,
        t: f64,
        observations: &mut Observations,
    ) -> Result<(), MultibodyError> {
        loop {
            self.run_due_controllers(observations);
            let next_update = self
                .controllers
                .iter()
                .map(Scheduled::next_time)
                .fold(f64::INFINITY, f64::min);
            let target = next_update.min(t);
            if target > self.time {
                self.integrate_to(target)?;
            }
            if next_update > t {
                return Ok(());
            }
        }
    }

    /// Names of the other multibodies its controllers watch.
    pub fn watched(&self) -> Vec<String> {
        self.controllers
            .iter()
            .flat_map(|c| c.controller.watches())
            .map(str::to_string)
            .collect()
    }

    /// Whether it has controllers (and so is observed by others' controllers).
    pub fn has_controllers(&self) -> bool {
        !self.controllers.is_empty()
    }

    /// Time of the next controller update (infinite without controllers).
    pub fn next_controller_time(&self) -> f64 {
        self.controllers
            .iter()
            .map(Scheduled::next_time)
            .fold(f64::INFINITY, f64::min)
    }

    /// Bounds on each link's motion from now until `until` or the next controller update,
    /// whichever is first, assuming no impulse in between: the flight is integrated ahead and
    /// its continuous output sampled (`ENVELOPE_SAMPLES` per step, each bound widened by the
    /// largest change between neighbouring samples). If the integration fails on the way,
    /// the envelope ends there (the failure is reported when the multibody gets there); if it
    /// fails before getting past now, the failure is the result.
    pub fn motion_envelope(&mut self, until: f64) -> Result<MotionEnvelope, MultibodyError> {
        let mut end = until.min(self.next_controller_time()).max(self.time);
        if let Err(error) = self.extend_flight(end) {
            end = self
                .segments
                .back()
                .map_or(self.time, StepInterpolant::end)
                .clamp(self.time, end);
            if end <= self.time {
                return Err(self.integration_error(error));
            }
        }
        let n = self.tree.links().len();
        let mut bounds = EnvelopeBuilder::new(n);
        let mut workspace = Workspace::new(n);
        let mut y = vec![0.0; self.tree.nq() + self.tree.nv()];
        let nq = self.tree.nq();
        let sample = |y: &mut [f64], ws: &mut Workspace, bounds: &mut EnvelopeBuilder| {
            let (q, v) = y.split_at_mut(nq);
            self.tree.normalize(q);
            self.tree.positions(q, ws);
            self.tree.velocities(q, v, ws);
            bounds.add(ws);
        };
        let nq_nv = self.q.iter().chain(&self.v).copied();
        for (slot, value) in y.iter_mut().zip(nq_nv) {
            *slot = value;
        }
        sample(&mut y, &mut workspace, &mut bounds);
        for step in &self.segments {
            let (lo, hi) = (step.start().max(self.time), step.end().min(end));
            if hi <= lo {
                continue;
            }
            for k in 1..=ENVELOPE_SAMPLES {
                let t = lo + (hi - lo) * k as f64 / ENVELOPE_SAMPLES as f64;
                step.state_at(t, &mut y);
                sample(&mut y, &mut workspace, &mut bounds);
            }
        }
        Ok(MotionEnvelope {
            start: self.time,
            end,
            links: bounds.finish(),
        })
    }

    /// Runs every controller due at the current time, then restarts the flight if any ran.
    fn run_due_controllers(&mut self, observations: &mut Observations) {
        if self.controllers.is_empty() {
            return;
        }
        let mut controllers = std::mem::take(&mut self.controllers);
        let mut ran = false;
        for c in controllers.iter_mut() {
            while c.next_time() <= self.time {
                c.controller
                    .update(self.time, self, observations, &mut c.commands);
                c.updates += 1;
                self.controller_updates += 1;
                ran = true;
            }
        }
        if ran {
            self.held.clear();
            for c in controllers.iter_mut() {
                self.held.add(&c.commands.forces);
                for (index, value) in c.commands.set_velocities.drain(..) {
                    if index < self.v.len() {
                        self.v[index] = value;
                    }
                }
            }
            self.controllers = controllers;
            self.restart();
            observations.publish(self, self.time);
        } else {
            self.controllers = controllers;
        }
    }

    /// Integrates the current flight (starting one if needed) until it covers `t`, keeping each
    /// step's continuous output. The current state is not touched.
    fn extend_flight(&mut self, t: f64) -> Result<(), IntegrationError> {
        let system = MultibodyOde::new(&self.tree, &self.held, self.gravity);
        if self.flight.is_none() {
            let mut y0 = self.q.clone();
            y0.extend_from_slice(&self.v);
            let mut flight = AdaptiveRk::new(&system, self.time, &y0, self.tolerance)?;
            flight.suggest_step(self.resume_step);
            self.flight = Some(Box::new(flight));
        }
        let Some(flight) = self.flight.as_mut() else {
            unreachable!("the flight was just started")
        };
        while flight.time() < t {
            // Every step is held until the multibody passes it (a controller update or a
            // collision check can need the motion anywhere in between): bound them, or a stiff
            // arm fills memory (1.3 GB, then an abort with nothing written: issue 42).
            if self.segments.len() >= MAX_HELD_STEPS {
                return Err(IntegrationError::TooManySteps {
                    from: self.time,
                    time: flight.time(),
                    steps: self.segments.len(),
                });
            }
            flight.step(&system)?;
            if let Some(step) = flight.last_step() {
                self.segments.push_back(step);
            }
        }
        Ok(())
    }

    /// The flight's state at `t` (covered by the flight, not before `time`) into `y`.
    fn flight_state(&mut self, t: f64, y: &mut [f64]) {
        while self.segments.front().is_some_and(|s| s.end() < t) {
            self.segments.pop_front();
        }
        match (self.segments.front(), &mut self.flight) {
            (Some(step), _) => step.state_at(t, y),
            (None, Some(flight)) => flight.state_at(t, y),
            (None, None) => {
                let nq = self.tree.nq();
                y[..nq].copy_from_slice(&self.q);
                y[nq..].copy_from_slice(&self.v);
            }
        }
    }

    fn integrate_to(&mut self, t: f64) -> Result<(), MultibodyError> {
        if let Err(error) = self.extend_flight(t) {
            if let Some(flight) = &self.flight {
                let state = flight.state().to_vec();
                let nq = self.tree.nq();
                self.q.copy_from_slice(&state[..nq]);
                self.v.copy_from_slice(&state[nq..]);
            }
            self.end_flight();
            return Err(self.integration_error(error));
        }
        let mut y = vec![0.0; self.tree.nq() + self.tree.nv()];
        self.flight_state(t, &mut y);
        let nq = self.tree.nq();
        self.q.copy_from_slice(&y[..nq]);
        self.v.copy_from_slice(&y[nq..]);
        self.tree.normalize(&mut self.q);
        self.time = t;
        if let Some(joint) = self.non_finite_joint() {
            return Err(MultibodyError::NonFinite { joint, time: t });
        }
        self.refresh();
        if !self.current_v_dot.iter().all(|a| a.is_finite()) {
            let joint = self
                .non_finite_joint()
                .unwrap_or_else(|| self.fastest_joint());
            return Err(MultibodyError::NonFinite { joint, time: t });
        }
        Ok(())
    }

    /// Kinematics, accelerations and articulated inertias at the current state.
    fn refresh(&mut self) {
        let mut tau = self.held.joint.clone();
        self.tree.add_passive_forces(&self.q, &self.v, &mut tau);
        self.tree.forward_dynamics(
            &self.q,
            &self.v,
            &tau,
            &self.held,
            &self.gravity,
            &mut self.current,
            &mut self.current_v_dot,
        );
    }

    /// The first joint whose coordinates, velocities or accelerations are not finite.
    fn non_finite_joint(&self) -> Option<String> {
        self.tree.links().iter().find_map(|link| {
            let j = &link.joint;
            let finite = self.q[j.q_index..j.q_index + j.nq()]
                .iter()
                .chain(&self.v[j.v_index..j.v_index + j.nv()])
                .chain(&self.current_v_dot[j.v_index..j.v_index + j.nv()])
                .all(|x| x.is_finite());
            (!finite).then(|| j.name.clone())
        })
    }

    /// The joint with the largest velocity (the likely culprit of a failed integration).
    fn fastest_joint(&self) -> String {
        self.tree
            .links()
            .iter()
            .map(|link| {
                let j = &link.joint;
                let speed = self.v[j.v_index..j.v_index + j.nv()]
                    .iter()
                    .map(|x| {
                        if x.is_finite() {
                            x.abs()
                        } else {
                            f64::INFINITY
                        }
                    })
                    .fold(0.0, f64::max);
                (speed, j.name.clone())
            })
            .fold(
                (-1.0, String::new()),
                |best, x| if x.0 > best.0 { x } else { best },
            )
            .1
    }

    fn integration_error(&self, error: IntegrationError) -> MultibodyError {
        let joint = self
            .non_finite_joint()
            .unwrap_or_else(|| self.fastest_joint());
        match error {
            IntegrationError::NonFinite { time } => MultibodyError::NonFinite { joint, time },
            other => MultibodyError::Integration {
                joint,
                error: other,
            },
        }
    }
}

/// The most integration steps a flight holds at once (see `Multibody::extend_flight`): about
/// 50 MB for a three-joint arm, far more than a smooth motion needs between two updates.
const MAX_HELD_STEPS: usize = 100_000;
