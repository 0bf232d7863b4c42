//! A PID controller on one joint coordinate.

use super::targets::{JointTarget, resolve_coordinate};
use crate::multibody::{Commands, Controller, Multibody, Observations, Tree};

/// A PID controller on one joint coordinate (Mirtich eq. 5.15), sampled with zero-order hold:
/// `Q = −k_p (q − q_des) − k_v (q̇ − q̇_des) − k_i Σ (q − q_des) Δt`, clamped to `±max_force`.
/// With `k_i = 0` it is the PD controller of §5.4.1, whose static error under a load `F` is
/// `F / k_p` (V23).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
