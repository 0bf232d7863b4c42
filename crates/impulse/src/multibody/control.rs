//! Controllers (Mirtich §5.4): sampled control laws that read a multibody's state at their own
//! rate and hold their output until the next update (zero-order hold).
//!
//! A controller is called at `t = start + k · period` (computed, never accumulated), with the
//! multibody's state at that instant; what it writes into its [`Commands`] — joint forces,
//! link forces and torques, or new joint velocities — replaces its previous output. The
//! multibody restarts its integration at every update, so the held forces are exactly
//! piecewise constant. Passive elements (springs, dampers, limit stops) are not controllers:
//! they act continuously inside the integrator.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use super::tree::AppliedForces;
use super::{Multibody, Tree};
use crate::math::{Pose, Quat, Vec3};

/// How a multibody looked at one of its controller updates: its base (first) link's model
/// pose, centre-of-mass velocity and angular velocity, world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// When it was taken (−∞ for the state the multibody was added with).
    pub time: f64,
    /// Pose of the base link's model frame.
    pub pose: Pose,
    /// Velocity of the base link's centre of mass.
    pub velocity: Vec3,
    /// Angular velocity of the base link.
    pub angular_velocity: Vec3,
}

/// What controllers can see of other multibodies, like sampled sensors: every multibody is
/// observed when it is added and at each of its controller updates, and a controller updating
/// at `t` reads the latest observation taken strictly before `t`. Reading only the past makes
/// the result independent of the order in which multibodies reach `t` (one period of delay
/// between controllers of the same rate, as between real sampled controllers).
#[derive(Clone, Debug, Default)]
pub struct Observations {
    records: BTreeMap<String, VecDeque<Observation>>,
}

/// Observations kept per multibody: enough for any reader still behind the latest.
const OBSERVATIONS_KEPT: usize = 32;

impl Observations {
    /// Records `multibody`'s base link at `time`.
    pub fn publish(&mut self, multibody: &Multibody, time: f64) {
        if multibody.tree().links().is_empty() {
            return;
        }
        let (velocity, angular_velocity) = multibody.link_velocity(0);
        let record = Observation {
            time,
            pose: multibody.link_model_pose(0),
            velocity,
            angular_velocity,
        };
        let records = self
            .records
            .entry(multibody.name().to_string())
            .or_default();
        if records.back().is_some_and(|r| r.time == time) {
            records.pop_back();
        }
        records.push_back(record);
        if records.len() > OBSERVATIONS_KEPT {
            records.pop_front();
        }
    }

    /// The latest observation of `multibody` taken before `t`.
    pub fn before(&self, multibody: &str, t: f64) -> Option<&Observation> {
        self.records
            .get(multibody)?
            .iter()
            .rev()
            .find(|r| r.time < t)
    }
}

/// What a controller outputs, held until its next update.
#[derive(Clone, Debug, PartialEq)]
pub struct Commands {
    /// Joint forces and link wrenches.
    pub forces: AppliedForces,
    /// Joint velocities to set now (velocity index, value), like Mirtich's bottle that
    /// "writes its velocity directly" (§7.3). Applied once, at the update.
    pub set_velocities: Vec<(usize, f64)>,
}

impl Commands {
    /// No output for a tree with `nv` coordinates and `links` links.
    pub fn new(nv: usize, links: usize) -> Self {
        Self {
            forces: AppliedForces::zero(nv, links),
            set_velocities: Vec::new(),
        }
    }
}

/// Cloning boxed controllers (implemented for every `Controller + Clone`).
pub trait ControllerClone {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Controller>;
}

impl<T: Controller + Clone + 'static> ControllerClone for T {
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Controller> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A sampled controller of one multibody. Implementors also derive `Clone` (worlds can be
/// cloned).
pub trait Controller: fmt::Debug + Send + ControllerClone {
    /// Time between updates.
    fn period(&self) -> f64;

    /// Checks the controller against the multibody it drives (joints it names exist, and so
    /// on). Called once when the multibody is built.
    fn bind(&mut self, tree: &Tree) -> Result<(), String>;

    /// Computes the output at time `t` from the multibody's state and what it sees of the
    /// others. `commands` holds the previous output; overwrite what you drive.
    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    );

    /// The other multibodies this controller watches (checked when the scene is built).
    fn watches(&self) -> Vec<&str> {
        Vec::new()
    }
}

/// Where a joint controller acts: a joint by name and one of its scalar coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct JointTarget {
    /// Joint name.
    pub joint: String,
    /// Which coordinate of a multi-coordinate joint (0 for one-coordinate joints).
    pub coordinate: usize,
}

/// A PID controller on one joint coordinate (Mirtich eq. 5.15), sampled with zero-order hold:
/// `Q = −k_p (q − q_des) − k_v (q̇ − q̇_des) − k_i Σ (q − q_des) Δt`, clamped to `±max_force`.
/// With `k_i = 0` it is the PD controller of §5.4.1, whose static error under a load `F` is
/// `F / k_p` (V23).
#[derive(Clone, Debug, PartialEq)]
pub struct JointPid {
    /// The controlled coordinate.
    pub target: JointTarget,
    /// Proportional gain `k_p`.
    pub kp: f64,
    /// Derivative gain `k_v`.
    pub kv: f64,
    /// Integral gain `k_i`.
    pub ki: f64,
    /// Desired position `q_des`.
    pub position: f64,
    /// Desired velocity `q̇_des`.
    pub velocity: f64,
    /// Largest force or torque magnitude the actuator gives.
    pub max_force: f64,
    /// Time between updates.
    pub period: f64,
    /// Accumulated error `Σ (q − q_des) Δt`.
    pub integral: f64,
    /// Resolved `(q index, v index)`.
    indices: Option<(usize, usize)>,
}

impl JointPid {
    /// A PD controller (no integral term, no force limit).
    pub fn pd(joint: impl Into<String>, kp: f64, kv: f64, position: f64, rate: f64) -> Self {
        Self {
            target: JointTarget {
                joint: joint.into(),
                coordinate: 0,
            },
            kp,
            kv,
            ki: 0.0,
            position,
            velocity: 0.0,
            max_force: f64::INFINITY,
            period: 1.0 / rate,
            integral: 0.0,
            indices: None,
        }
    }
}

/// Finds a joint's scalar coordinate by name: `(q index, v index)`.
pub fn resolve_coordinate(tree: &Tree, target: &JointTarget) -> Result<(usize, usize), String> {
    let Some(link) = tree.links().iter().find(|l| l.joint.name == target.joint) else {
        let names: Vec<&str> = tree.links().iter().map(|l| l.joint.name.as_str()).collect();
        return Err(format!(
            "no joint named `{}` (joints: {})",
            target.joint,
            names.join(", ")
        ));
    };
    let joint = &link.joint;
    if !joint.kind.has_scalar_coordinates() {
        return Err(format!(
            "joint `{}` is {}: a joint controller needs a joint with scalar coordinates (revolute, prismatic, cylindrical, helical, planar)",
            joint.name, joint.kind
        ));
    }
    if target.coordinate >= joint.nv() {
        return Err(format!(
            "joint `{}` ({}) has {} coordinate(s); coordinate {} does not exist",
            joint.name,
            joint.kind,
            joint.nv(),
            target.coordinate
        ));
    }
    Ok((
        joint.q_index + target.coordinate,
        joint.v_index + target.coordinate,
    ))
}

impl Controller for JointPid {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        self.indices = Some(resolve_coordinate(tree, &self.target)?);
        Ok(())
    }

    fn update(
        &mut self,
        _t: f64,
        multibody: &Multibody,
        _: &Observations,
        commands: &mut Commands,
    ) {
        let Some((qi, vi)) = self.indices else { return };
        let error = multibody.q()[qi] - self.position;
        let rate_error = multibody.v()[vi] - self.velocity;
        if self.ki != 0.0 {
            self.integral += error * self.period;
        }
        let force = -self.kp * error - self.kv * rate_error - self.ki * self.integral;
        commands.forces.joint[vi] = force.clamp(-self.max_force, self.max_force);
    }
}

/// A goal pose of a [`PosePd`]: where the link's model frame should be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseGoal {
    /// Position of the model frame's origin.
    pub position: Vec3,
    /// Orientation of the model frame.
    pub orientation: Quat,
}

/// When a [`PosePd`] moves on to its next goal: within `distance` and `angle` (radians) of the
/// current one, moving slower than `speed` and turning slower than `angular_speed`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub distance: f64,
    pub angle: f64,
    pub speed: f64,
    pub angular_speed: f64,
}

/// A PD controller on a link's pose, for free bodies (one-link floating multibodies) and
/// free-floating bases: a force at the centre of mass `k_p (x_des − x) − k_v v` and a torque
/// `k_p,ω θ − k_v,ω ω`, where `θ` is the rotation vector taking the link's orientation to the
/// desired one (world frame), each clamped to its actuator's limit. Like Mirtich's furniture
/// controllers (§7.3): the goals form a sequence, the next taken once the current is reached
/// and the motion has subsided; goals may be given in the frame of another multibody's base
/// link as last observed (chairs placed about a moving table); the vertical (along gravity)
/// part of the force may be left out, for a body that should slide rather than fly; and the
/// orientation law keeps the body upright.
#[derive(Clone, Debug, PartialEq)]
pub struct PosePd {
    /// Link name.
    pub link: String,
    /// Goals, in order (at least one); the last is held.
    pub goals: Vec<PoseGoal>,
    /// When to move on to the next goal.
    pub arrival: Arrival,
    /// The multibody whose base link's frame the goals are given in (world when `None`).
    pub relative_to: Option<String>,
    /// Leave out the force along gravity.
    pub horizontal_only: bool,
    /// Position gain.
    pub kp: f64,
    /// Velocity gain.
    pub kv: f64,
    /// Orientation gain.
    pub kp_angular: f64,
    /// Angular velocity gain.
    pub kv_angular: f64,
    /// Largest force magnitude.
    pub max_force: f64,
    /// Largest torque magnitude.
    pub max_torque: f64,
    /// Time between updates.
    pub period: f64,
    /// The goal being pursued.
    pub current: usize,
    /// The link's index, and the offset of its centre of mass in its model frame.
    bound: Option<(usize, Vec3)>,
}

impl PosePd {
    /// A pose controller holding `link` at one goal pose of its model frame, unlimited.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: impl Into<String>,
        position: Vec3,
        orientation: Quat,
        kp: f64,
        kv: f64,
        kp_angular: f64,
        kv_angular: f64,
        rate: f64,
    ) -> Self {
        Self {
            link: link.into(),
            goals: vec![PoseGoal {
                position,
                orientation,
            }],
            arrival: Arrival {
                distance: 0.0,
                angle: 0.0,
                speed: 0.0,
                angular_speed: 0.0,
            },
            relative_to: None,
            horizontal_only: false,
            kp,
            kv,
            kp_angular,
            kv_angular,
            max_force: f64::INFINITY,
            max_torque: f64::INFINITY,
            period: 1.0 / rate,
            current: 0,
            bound: None,
        }
    }
}

/// The force and torque of a pose PD law: `k_p (x_des − x) − k_v v` and
/// `k_p,ω θ − k_v,ω ω` with `θ` the rotation vector of `q_des q⁻¹` (world frame).
#[allow(clippy::too_many_arguments)]
pub fn pose_pd_wrench(
    position: &Vec3,
    orientation: &Quat,
    velocity: &Vec3,
    angular_velocity: &Vec3,
    target_position: &Vec3,
    target_orientation: &Quat,
    gains: [f64; 4],
) -> (Vec3, Vec3) {
    let [kp, kv, kp_angular, kv_angular] = gains;
    let force = (target_position - position) * kp - velocity * kv;
    let error = (target_orientation * orientation.inverse()).scaled_axis();
    let torque = error * kp_angular - angular_velocity * kv_angular;
    (force, torque)
}

/// `force` without its component along `gravity` (unchanged without gravity).
fn across_gravity(force: Vec3, gravity: &Vec3) -> Vec3 {
    match gravity.try_normalize(0.0) {
        Some(down) => force - down * force.dot(&down),
        None => force,
    }
}

/// `v` shortened to at most `limit`.
fn clamp_norm(v: Vec3, limit: f64) -> Vec3 {
    let n = v.norm();
    if n > limit { v * (limit / n) } else { v }
}

/// Finds a link by name: its index and its centre of mass in its model frame.
fn bind_link(tree: &Tree, link: &str) -> Result<(usize, Vec3), String> {
    match tree.links().iter().position(|l| l.name == link) {
        Some(i) => {
            let offset = tree.links()[i].body_to_model.inverse().translation.vector;
            Ok((i, offset))
        }
        None => Err(format!("no link named `{link}`")),
    }
}

/// The frame goals are given in: the world, or the last observation of another multibody
/// (`None` when it has not been observed yet).
fn goal_frame(relative_to: &Option<String>, others: &Observations, t: f64) -> Option<Pose> {
    match relative_to {
        None => Some(Pose::identity()),
        Some(name) => others.before(name, t).map(|o| o.pose),
    }
}

impl Controller for PosePd {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        if self.goals.is_empty() {
            return Err("a pose controller needs at least one goal".into());
        }
        self.bound = Some(bind_link(tree, &self.link)?);
        Ok(())
    }

    fn watches(&self) -> Vec<&str> {
        self.relative_to.iter().map(String::as_str).collect()
    }

    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    ) {
        let Some((i, com_offset)) = self.bound else {
            return;
        };
        let Some(frame) = goal_frame(&self.relative_to, others, t) else {
            return; // nothing to steer by yet: hold the previous output
        };
        let model = multibody.link_model_pose(i);
        let (v, w) = multibody.link_velocity(i);
        let target = |goal: &PoseGoal| {
            let orientation = frame.rotation * goal.orientation;
            // The law drives the centre of mass; the goal names the model frame's origin.
            let position = frame * nalgebra::Point3::from(goal.position);
            (position.coords + orientation * com_offset, orientation)
        };
        // Move on while the current goal is reached and the motion has subsided.
        let position = model * nalgebra::Point3::from(com_offset);
        while self.current + 1 < self.goals.len() {
            let (x, q) = target(&self.goals[self.current]);
            let a = &self.arrival;
            let reached = (x - position.coords).norm() <= a.distance
                && (q * model.rotation.inverse()).angle() <= a.angle
                && v.norm() <= a.speed
                && w.norm() <= a.angular_speed;
            if !reached {
                break;
            }
            self.current += 1;
        }
        let (x, q) = target(&self.goals[self.current]);
        let (mut force, torque) = pose_pd_wrench(
            &position.coords,
            &model.rotation,
            &v,
            &w,
            &x,
            &q,
            [self.kp, self.kv, self.kp_angular, self.kv_angular],
        );
        if self.horizontal_only {
            force = across_gravity(force, &multibody.gravity());
        }
        commands.forces.link_force[i] = clamp_norm(force, self.max_force);
        commands.forces.link_torque[i] = clamp_norm(torque, self.max_torque);
    }
}

/// A ballistic hop for a free body (Mirtich's wine bottle, §7.3): when the body has come to
/// rest farther than `reach` from its landing point, it is given, like a collision would, the
/// velocity of the parabola that reaches the landing point after `flight_time` under gravity,
/// `v = (x_land − x − ½ g T²) / T`, and the constant spin `θ / T` that turns it to the landing
/// frame's orientation on the way (θ the rotation vector between them; exact in flight for a
/// turn about a principal axis, as a lying bottle's is). The landing point is given in the
/// frame of another multibody's base link as last observed (the table), or in the world. It
/// waits for one flight before it may hop again. Within `reach` of the landing point a
/// horizontal pull, `k_p (x_land − x) − k_v v` across gravity and at most `max_force`, draws
/// it toward the middle.
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    /// The free link: the base of its multibody, on a floating joint.
    pub link: String,
    /// Where its centre of mass should land.
    pub landing: Vec3,
    /// The multibody whose base link's frame `landing` is given in (world when `None`).
    pub relative_to: Option<String>,
    /// Time of flight `T`.
    pub flight_time: f64,
    /// Distance from the landing point that counts as arrived.
    pub reach: f64,
    /// Speed below which the body counts as at rest.
    pub rest_speed: f64,
    /// Gains `k_p`, `k_v` and force limit of the pull toward the landing point within `reach`.
    pub pull: [f64; 3],
    /// Time between updates.
    pub period: f64,
    /// Hops so far.
    pub hops: u32,
    /// No hop before this time (during a flight).
    not_before: f64,
    /// The link's index and the floating joint's first velocity index.
    bound: Option<(usize, usize)>,
}

impl Hop {
    /// A hop controller.
    pub fn new(
        link: impl Into<String>,
        landing: Vec3,
        relative_to: Option<String>,
        flight_time: f64,
        reach: f64,
        rest_speed: f64,
        rate: f64,
    ) -> Self {
        Self {
            link: link.into(),
            landing,
            relative_to,
            flight_time,
            reach,
            rest_speed,
            pull: [0.0, 0.0, 0.0],
            period: 1.0 / rate,
            hops: 0,
            not_before: f64::NEG_INFINITY,
            bound: None,
        }
    }
}

impl Controller for Hop {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        let (i, _) = bind_link(tree, &self.link)?;
        let joint = &tree.links()[i].joint;
        if tree.links()[i].parent.is_some() || !matches!(joint.kind, super::JointKind::Floating) {
            return Err(format!(
                "a hop needs a free body: link `{}` must be a base link on a floating joint",
                self.link
            ));
        }
        if !(self.flight_time > 0.0 && self.flight_time.is_finite()) {
            return Err(format!(
                "the flight time must be positive and finite, got {}",
                self.flight_time
            ));
        }
        self.bound = Some((i, joint.v_index));
        Ok(())
    }

    fn watches(&self) -> Vec<&str> {
        self.relative_to.iter().map(String::as_str).collect()
    }

    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    ) {
        commands.set_velocities.clear();
        let Some((i, v_index)) = self.bound else {
            return;
        };
        commands.forces.link_force[i] = Vec3::zeros();
        let Some(frame) = goal_frame(&self.relative_to, others, t) else {
            return;
        };
        let landing = (frame * nalgebra::Point3::from(self.landing)).coords;
        let centre = multibody.link_pose(i).translation.vector;
        let (v, w) = multibody.link_velocity(i);
        if (landing - centre).norm() <= self.reach {
            let [kp, kv, max_force] = self.pull;
            let force = across_gravity((landing - centre) * kp - v * kv, &multibody.gravity());
            commands.forces.link_force[i] = clamp_norm(force, max_force);
            return;
        }
        let resting = v.norm() <= self.rest_speed && w.norm() <= self.rest_speed;
        if t < self.not_before || !resting {
            return;
        }
        let flight = self.flight_time;
        let launch = (landing - centre - multibody.gravity() * (0.5 * flight * flight)) / flight;
        let model = multibody.link_model_pose(i).rotation;
        let spin = (frame.rotation * model.inverse()).scaled_axis() / flight;
        // The floating joint's velocity is (ω, v) in the link frame.
        let link_frame = multibody.link_pose(i).rotation.inverse();
        let (spin, launch) = (link_frame * spin, link_frame * launch);
        for k in 0..3 {
            commands.set_velocities.push((v_index + k, spin[k]));
            commands.set_velocities.push((v_index + 3 + k, launch[k]));
        }
        self.hops += 1;
        self.not_before = t + flight;
    }
}
