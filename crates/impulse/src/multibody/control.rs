//! Controllers (Mirtich §5.4): sampled control laws that read a multibody's state at their own
//! rate and hold their output until the next update (zero-order hold).
//!
//! A controller is called at `t = start + k · period` (computed, never accumulated), with the
//! multibody's state at that instant; what it writes into its [`Commands`] — joint forces,
//! link forces and torques, or new joint velocities — replaces its previous output. The
//! multibody restarts its integration at every update, so the held forces are exactly
//! piecewise constant. Passive elements (springs, dampers, limit stops) are not controllers:
//! they act continuously inside the integrator.

use std::fmt;

use super::tree::AppliedForces;
use super::{Multibody, Tree};
use crate::math::{Quat, Vec3};

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

    /// Computes the output at time `t` from the multibody's state. `commands` holds the
    /// previous output; overwrite what you drive.
    fn update(&mut self, t: f64, multibody: &Multibody, commands: &mut Commands);
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

    fn update(&mut self, _t: f64, multibody: &Multibody, commands: &mut Commands) {
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

/// A PD controller on a link's pose, for free bodies (one-link floating multibodies) and
/// free-floating bases: a force at the centre of mass `k_p (x_des − x) − k_v v` and a torque
/// `k_p,ω θ − k_v,ω ω`, where `θ` is the rotation vector taking the link's orientation to the
/// desired one (world frame). Like Mirtich's furniture controllers (§7.3).
#[derive(Clone, Debug, PartialEq)]
pub struct PosePd {
    /// Link name.
    pub link: String,
    /// Desired centre-of-mass position (world).
    pub position: Vec3,
    /// Desired orientation of the link's model frame (world).
    pub orientation: Quat,
    /// Position gain.
    pub kp: f64,
    /// Velocity gain.
    pub kv: f64,
    /// Orientation gain.
    pub kp_angular: f64,
    /// Angular velocity gain.
    pub kv_angular: f64,
    /// Time between updates.
    pub period: f64,
    index: Option<usize>,
}

impl PosePd {
    /// A pose controller for `link`.
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
            position,
            orientation,
            kp,
            kv,
            kp_angular,
            kv_angular,
            period: 1.0 / rate,
            index: None,
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

impl Controller for PosePd {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        match tree.links().iter().position(|l| l.name == self.link) {
            Some(i) => {
                self.index = Some(i);
                Ok(())
            }
            None => Err(format!("no link named `{}`", self.link)),
        }
    }

    fn update(&mut self, _t: f64, multibody: &Multibody, commands: &mut Commands) {
        let Some(i) = self.index else { return };
        let pose = multibody.link_pose(i);
        let model = multibody.link_model_pose(i);
        let (v, w) = multibody.link_velocity(i);
        let (force, torque) = pose_pd_wrench(
            &pose.translation.vector,
            &model.rotation,
            &v,
            &w,
            &self.position,
            &self.orientation,
            [self.kp, self.kv, self.kp_angular, self.kv_angular],
        );
        commands.forces.link_force[i] = force;
        commands.forces.link_torque[i] = torque;
    }
}
