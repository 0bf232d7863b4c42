//! Prescribed (kinematic) motion: a body whose pose is a given function of time — a spinning
//! platter, a vibrating feeder bowl, the thesis's "cycler" (Mirtich §2.5). Such a body is moved,
//! never pushed: in collisions it acts as infinitely massive.

use std::f64::consts::TAU;

use crate::math::{Pose, Quat, Vec3, pose};

/// A sinusoidal translation `A sin(2π f t + φ)`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Oscillation {
    /// Displacement amplitude (a vector: the direction and size of the swing).
    pub amplitude: Vec3,
    /// Frequency in cycles per unit time.
    pub frequency: f64,
    /// Phase in radians.
    pub phase: f64,
}

/// The motion of the body's model frame: its origin starts at the scene position and moves with
/// constant `velocity` plus a sum of `oscillations` about it; its orientation turns at constant
/// world `angular_velocity` about the (moving) origin.
///
/// Two oscillations of equal amplitude along x and y, a quarter period apart, make the thesis's
/// cycler (a circular translation without rotation).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PrescribedMotion {
    /// Constant linear velocity of the model origin.
    pub velocity: Vec3,
    /// Constant angular velocity (world frame) about the model origin.
    pub angular_velocity: Vec3,
    /// Sinusoidal translations added to the origin's position.
    pub oscillations: Vec<Oscillation>,
}

impl PrescribedMotion {
    /// True when the motion leaves the body where it starts: no velocity, no spin, and every
    /// oscillation without amplitude or frequency. Such a body is as still as a fixed one.
    pub fn is_stationary(&self) -> bool {
        self.velocity == Vec3::zeros()
            && self.angular_velocity == Vec3::zeros()
            && self
                .oscillations
                .iter()
                .all(|o| o.amplitude == Vec3::zeros() || o.frequency == 0.0)
    }

    /// True when every number is finite.
    pub fn is_finite(&self) -> bool {
        let finite = |v: &Vec3| v.iter().all(|c| c.is_finite());
        finite(&self.velocity)
            && finite(&self.angular_velocity)
            && self
                .oscillations
                .iter()
                .all(|o| finite(&o.amplitude) && o.frequency.is_finite() && o.phase.is_finite())
    }

    /// Pose of the model frame at time `t`, given its pose at time 0 (the oscillations are
    /// measured from their value at time 0, so `model_pose(0) == start`).
    pub fn model_pose(&self, start: &Pose, t: f64) -> Pose {
        let mut position = start.translation.vector + self.velocity * t;
        for o in &self.oscillations {
            position += o.amplitude * ((TAU * o.frequency * t + o.phase).sin() - o.phase.sin());
        }
        let orientation = Quat::from_scaled_axis(self.angular_velocity * t) * start.rotation;
        pose(position, orientation)
    }

    /// Upper bound on the speed of the model origin at any time: the sum of absolute
    /// components, which bounds the Euclidean norm and cannot overflow for finite vectors.
    pub fn speed_bound(&self) -> f64 {
        self.velocity.abs().sum()
            + self
                .oscillations
                .iter()
                .map(|o| o.amplitude.abs().sum() * TAU * o.frequency)
                .sum::<f64>()
    }

    /// Velocity of the model origin at time `t`.
    pub fn origin_velocity(&self, t: f64) -> Vec3 {
        let mut velocity = self.velocity;
        for o in &self.oscillations {
            let omega = TAU * o.frequency;
            velocity += o.amplitude * omega * (omega * t + o.phase).cos();
        }
        velocity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn velocity_is_the_derivative_of_position() {
        let motion = PrescribedMotion {
            velocity: Vec3::new(0.3, 0.0, 0.0),
            angular_velocity: Vec3::new(0.0, 0.0, 2.0),
            oscillations: vec![Oscillation {
                amplitude: Vec3::new(0.0, 0.1, 0.05),
                frequency: 3.0,
                phase: 0.4,
            }],
        };
        let start = pose(Vec3::new(1.0, 2.0, 3.0), Quat::identity());
        assert!(
            (motion.model_pose(&start, 0.0).translation.vector - Vec3::new(1.0, 2.0, 3.0)).norm()
                < 1e-15
        );
        for t in [0.0, 0.37, 1.9] {
            let h = 1e-6;
            let numeric = (motion.model_pose(&start, t + h).translation.vector
                - motion.model_pose(&start, t - h).translation.vector)
                / (2.0 * h);
            assert!((numeric - motion.origin_velocity(t)).norm() < 1e-8);
        }
    }

    #[test]
    fn cycler_moves_on_a_circle_without_turning() {
        // x = r cos Ωt, y = r sin Ωt about the centre (Mirtich §2.5), here from phases ±90°.
        let (r, f) = (0.5, 2.0);
        let motion = PrescribedMotion {
            oscillations: vec![
                Oscillation {
                    amplitude: Vec3::new(r, 0.0, 0.0),
                    frequency: f,
                    phase: std::f64::consts::FRAC_PI_2,
                },
                Oscillation {
                    amplitude: Vec3::new(0.0, r, 0.0),
                    frequency: f,
                    phase: 0.0,
                },
            ],
            ..Default::default()
        };
        // Start at the circle's rightmost point; the centre is then at (-r, 0) relative to it.
        let start = pose(Vec3::zeros(), Quat::identity());
        for t in [0.1, 0.33, 0.8] {
            let p = motion.model_pose(&start, t).translation.vector;
            let from_centre = p - Vec3::new(-r, 0.0, 0.0);
            assert!((from_centre.norm() - r).abs() < 1e-14);
            assert!((motion.origin_velocity(t).norm() - r * TAU * f).abs() < 1e-12);
        }
    }
}
