//! Free ("ballistic") flight of a rigid body between collisions.
//!
//! Translation is exact: under gravity and a constant force the centre of mass follows
//! `c(t) = c₀ + v₀ τ + ½ a τ²` (Mirtich App. A). Rotation follows Euler's equations with the
//! gyroscopic term, `I ω̇ = τ − ω × I ω` in the principal body frame (eq. A.3), together with the
//! quaternion kinematics `q̇ = ½ q ⊗ (0, ω)` (App. A.4), integrated by the adaptive
//! Dormand–Prince integrator and renormalised after every step. A body with equal principal
//! moments and no torque spins at constant angular velocity, which is used in closed form.
//!
//! A flight starts at a time and state (after a collision, or at the start of a run) and can be
//! sampled at any later time; sampling never changes the integrator's steps.

use crate::integrate::{AdaptiveRk, IntegrationError, OdeSystem, Tolerance};
use crate::math::{Quat, Vec3};

use super::BodyState;

/// Euler's equations plus quaternion kinematics; state `[q_w, q_x, q_y, q_z, ω_x, ω_y, ω_z]` with
/// ω in the principal body frame.
#[derive(Clone, Debug)]
pub struct EulerRotation {
    /// Principal moments of inertia.
    pub inertia: Vec3,
    /// Constant applied torque, world frame.
    pub torque: Vec3,
}

impl OdeSystem for EulerRotation {
    fn dimension(&self) -> usize {
        7
    }

    fn derivative(&self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let (qs, qx, qy, qz) = (y[0], y[1], y[2], y[3]);
        let w = Vec3::new(y[4], y[5], y[6]);
        // Quaternion kinematics with body-frame ω (Mirtich App. A.4).
        dydt[0] = 0.5 * (-qx * w.x - qy * w.y - qz * w.z);
        dydt[1] = 0.5 * (qs * w.x - qz * w.y + qy * w.z);
        dydt[2] = 0.5 * (qz * w.x + qs * w.y - qx * w.z);
        dydt[3] = 0.5 * (-qy * w.x + qx * w.y + qs * w.z);
        // Euler's equations (Mirtich eq. A.3): I ω̇ = τ_body − ω × I ω.
        let torque_body = if self.torque == Vec3::zeros() {
            Vec3::zeros()
        } else {
            let q = Quat::from_quaternion(nalgebra::Quaternion::new(qs, qx, qy, qz));
            q.inverse() * self.torque
        };
        let angular_momentum = self.inertia.component_mul(&w);
        let alpha = (torque_body - w.cross(&angular_momentum)).component_div(&self.inertia);
        dydt[4] = alpha.x;
        dydt[5] = alpha.y;
        dydt[6] = alpha.z;
    }

    fn project(&self, y: &mut [f64]) -> bool {
        let norm = (y[0] * y[0] + y[1] * y[1] + y[2] * y[2] + y[3] * y[3]).sqrt();
        if norm > 0.0 && norm != 1.0 {
            for q in &mut y[..4] {
                *q /= norm;
            }
            true
        } else {
            false
        }
    }
}

/// How the orientation evolves during a flight.
#[derive(Clone, Debug)]
enum Rotation {
    /// Equal principal moments and no torque: the world angular velocity is constant, so
    /// `q(t) = exp(ω τ) q₀` exactly.
    Uniform {
        orientation: Quat,
        angular_velocity: Vec3,
    },
    /// General case: Euler's equations, integrated.
    Integrated {
        system: EulerRotation,
        integrator: Box<AdaptiveRk>,
    },
}

/// The free flight of one body from a start time and state.
#[derive(Clone, Debug)]
pub struct FreeFlight {
    start_time: f64,
    start_position: Vec3,
    start_velocity: Vec3,
    acceleration: Vec3,
    rotation: Rotation,
}

impl FreeFlight {
    /// Starts a flight at time `t0` from `state`, for a body with principal moments `inertia`,
    /// under constant linear `acceleration` (gravity plus force over mass) and constant world
    /// `torque`.
    pub fn new(
        t0: f64,
        state: &BodyState,
        inertia: Vec3,
        acceleration: Vec3,
        torque: Vec3,
        tolerance: Tolerance,
    ) -> Result<Self, IntegrationError> {
        let spherical = inertia.x == inertia.y && inertia.y == inertia.z;
        let rotation = if spherical && torque == Vec3::zeros() {
            Rotation::Uniform {
                orientation: state.orientation,
                angular_velocity: state.angular_velocity,
            }
        } else {
            let system = EulerRotation { inertia, torque };
            let q = state.orientation.quaternion();
            let w_body = state.orientation.inverse() * state.angular_velocity;
            let y0 = [q.w, q.i, q.j, q.k, w_body.x, w_body.y, w_body.z];
            let integrator = AdaptiveRk::new(&system, t0, &y0, tolerance)?;
            Rotation::Integrated {
                system,
                integrator: Box::new(integrator),
            }
        };
        Ok(Self {
            start_time: t0,
            start_position: state.position,
            start_velocity: state.velocity,
            acceleration,
            rotation,
        })
    }

    /// Time the flight started.
    pub fn start_time(&self) -> f64 {
        self.start_time
    }

    /// The body's state at time `t ≥` the latest time sampled so far.
    pub fn state_at(&mut self, t: f64) -> Result<BodyState, IntegrationError> {
        let tau = t - self.start_time;
        let position =
            self.start_position + self.start_velocity * tau + 0.5 * self.acceleration * tau * tau;
        let velocity = self.start_velocity + self.acceleration * tau;
        let (orientation, angular_velocity) = match &mut self.rotation {
            Rotation::Uniform {
                orientation,
                angular_velocity,
            } => (
                Quat::from_scaled_axis(*angular_velocity * tau) * *orientation,
                *angular_velocity,
            ),
            Rotation::Integrated { system, integrator } => {
                integrator.advance_past(system, t)?;
                let mut y = [0.0; 7];
                integrator.state_at(t, &mut y);
                let q = Quat::from_quaternion(nalgebra::Quaternion::new(y[0], y[1], y[2], y[3]));
                let w_body = Vec3::new(y[4], y[5], y[6]);
                (q, q * w_body)
            }
        };
        Ok(BodyState {
            position,
            orientation,
            velocity,
            angular_velocity,
        })
    }

    /// Accepted and rejected integrator steps so far (zero for closed-form flights).
    pub fn step_counts(&self) -> (u64, u64) {
        match &self.rotation {
            Rotation::Uniform { .. } => (0, 0),
            Rotation::Integrated { integrator, .. } => integrator.step_counts(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(w: Vec3) -> BodyState {
        BodyState {
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: w,
        }
    }

    #[test]
    fn symmetric_spin_is_closed_form() {
        let w = Vec3::new(0.0, 0.0, 2.0);
        let mut flight = FreeFlight::new(
            0.0,
            &state(w),
            Vec3::repeat(1.0),
            Vec3::zeros(),
            Vec3::zeros(),
            Tolerance::default(),
        )
        .unwrap();
        let s = flight.state_at(1.0).unwrap();
        assert!((s.orientation.angle() - 2.0).abs() < 1e-15);
        assert_eq!(flight.step_counts(), (0, 0));
    }

    #[test]
    fn steady_spin_about_a_principal_axis_stays_put() {
        // Rotation about the largest axis is an exact steady solution of Euler's equations.
        let w = Vec3::new(0.0, 0.0, 3.0);
        let mut flight = FreeFlight::new(
            0.0,
            &state(w),
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::zeros(),
            Vec3::zeros(),
            Tolerance::default(),
        )
        .unwrap();
        let s = flight.state_at(10.0).unwrap();
        assert!((s.angular_velocity - w).norm() < 1e-12);
        let expected = Quat::from_scaled_axis(w * 10.0);
        assert!(s.orientation.angle_to(&expected) < 1e-9);
    }

    #[test]
    fn constant_torque_on_a_sphere_spins_it_up_uniformly() {
        // τ = I α for a body at rest with equal moments: ω(t) = τ t / I, angle = ½ τ t²/I.
        let torque = Vec3::new(0.0, 0.0, 0.5);
        let mut flight = FreeFlight::new(
            0.0,
            &state(Vec3::zeros()),
            Vec3::repeat(2.0),
            Vec3::zeros(),
            torque,
            Tolerance::default(),
        )
        .unwrap();
        let s = flight.state_at(4.0).unwrap();
        assert!((s.angular_velocity.z - 1.0).abs() < 1e-10);
        assert!((s.orientation.angle() - 2.0).abs() < 1e-9);
    }
}
