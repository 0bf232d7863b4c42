//! A PD controller on a link's pose, with a sequence of goals.

use super::targets::{bind_link, goal_frame};
use crate::math::{Quat, Vec3};
use crate::multibody::{Commands, Controller, Multibody, Observations, Tree};

/// A goal pose of a [`PosePd`]: where the link's model frame should be.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PoseGoal {
    /// Position of the model frame's origin.
    pub position: Vec3,
    /// Orientation of the model frame.
    pub orientation: Quat,
}

/// When a [`PosePd`] moves on to its next goal: within `distance` and `angle` (radians) of the
/// current one, moving slower than `speed` and turning slower than `angular_speed`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
pub(crate) fn across_gravity(force: Vec3, gravity: &Vec3) -> Vec3 {
    match gravity.try_normalize(0.0) {
        Some(down) => force - down * force.dot(&down),
        None => force,
    }
}

/// `v` shortened to at most `limit`.
pub(crate) fn clamp_norm(v: Vec3, limit: f64) -> Vec3 {
    let n = v.norm();
    if n > limit { v * (limit / n) } else { v }
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
