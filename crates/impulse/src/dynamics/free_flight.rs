//! Free ("ballistic") flight of a rigid body between collisions.
//!
//! Translation is exact: under gravity and a constant force the centre of mass follows
//! `c(t) = c₀ + v₀ τ + ½ a τ²` (Mirtich App. A). Rotation follows Euler's equations with the
//! gyroscopic term, `I ω̇ = τ − ω × I ω` in the principal body frame (eq. A.3), together with the
//! quaternion kinematics `q̇ = ½ q ⊗ (0, ω)` (App. A.4), integrated by the adaptive
//! Dormand–Prince integrator and renormalised after every step.
//!
//! A torque-free body with two equal principal moments (a symmetric top: a coin, a square-based
//! box, a cylinder; with three equal, a sphere or a cube) moves in closed form instead. With
//! `I_⊥` the equal moments, `e_s` the symmetry axis and `ω_s` the (constant) spin about it, the
//! body turns about the fixed angular momentum `L` at `Ω = L / I_⊥` while it spins about its own
//! axis at `ψ̇ = ω_s (1 − I_s / I_⊥)` (Goldstein, *Classical Mechanics*, §5.6):
//!
//! `R(τ) = exp(τ [Ω]ₓ) R₀ exp(τ ψ̇ [e_s]ₓ)`, `ω(τ) = Ω + ψ̇ R(τ) e_s` (world frame).
//!
//! Differentiating, `Ṙ = [Ω]ₓ R + ψ̇ R [e_s]ₓ`, so the world angular velocity is `Ω + ψ̇ R e_s`; in
//! the body frame that is `L_b / I_⊥ + ψ̇ e_s = (ω₁, ω₂, ω_s)`, the initial ω, and it keeps `R Iᵇ Rᵀ ω
//! = L` fixed. Exact to rounding, where integrating Euler's equations errs by its tolerance.
//!
//! A flight starts at a time and state (after a collision, or at the start of a run) and can be
//! sampled at any later time; sampling never changes the integrator's steps.

use crate::integrate::{AdaptiveRk, IntegrationError, OdeSystem, Tolerance};
use crate::math::{Quat, Vec3};

use super::BodyState;

/// Euler's equations plus quaternion kinematics; state `[q_w, q_x, q_y, q_z, ω_x, ω_y, ω_z]` with
/// ω in the principal body frame.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Rotation {
    /// A torque-free symmetric top, in closed form (see the module comment):
    /// `q(τ) = exp(Ω τ) q₀ exp(ψ̇ e_s τ)`. With three equal moments `ψ̇ = 0` and `Ω = ω`.
    Precessing {
        orientation: Quat,
        /// `Ω = L / I_⊥`, world frame.
        precession: Vec3,
        /// `ψ̇ e_s`, body frame (zero for three equal moments).
        spin: Vec3,
    },
    /// General case: Euler's equations, integrated.
    Integrated {
        system: EulerRotation,
        integrator: Box<AdaptiveRk>,
    },
}

/// Principal moments that differ by at most this fraction of the largest count as equal: the
/// closed form's error from treating them so, about this fraction of the turned angle, is far
/// below the integrator's tolerance (1e-10), and it lets a mesh whose moments came out of an
/// eigen-decomposition a few ulps apart move in closed form too.
const EQUAL_MOMENTS: f64 = 1e-12;

/// The symmetry axis (0, 1 or 2) and the equal moment `I_⊥` when two principal moments are
/// equal: the two closest, if they are. With three equal, any axis serves (`ψ̇ = 0`).
fn symmetry_axis(inertia: &Vec3) -> Option<(usize, f64)> {
    let largest = inertia.max();
    [(2, 0, 1), (0, 1, 2), (1, 0, 2)]
        .into_iter()
        .map(|(axis, i, j)| (axis, inertia[i], inertia[j]))
        .filter(|(_, a, b)| (a - b).abs() <= EQUAL_MOMENTS * largest)
        .min_by(|x, y| (x.1 - x.2).abs().total_cmp(&(y.1 - y.2).abs()))
        .map(|(axis, a, b)| (axis, if a == b { a } else { 0.5 * (a + b) }))
}

/// The free flight of one body from a start time and state.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
        Self::reusing(None, t0, state, inertia, acceleration, torque, tolerance)
    }

    /// [`FreeFlight::new`], in the integrator storage of `previous` (a finished flight) when
    /// there is one: a body in resting contact starts a new flight at every impulse, and
    /// allocating an integrator for each was a few percent of a pile's wall time. The new
    /// flight is the same as a fresh one.
    pub fn reusing(
        previous: Option<Self>,
        t0: f64,
        state: &BodyState,
        inertia: Vec3,
        acceleration: Vec3,
        torque: Vec3,
        tolerance: Tolerance,
    ) -> Result<Self, IntegrationError> {
        let storage = previous.and_then(|flight| match flight.rotation {
            Rotation::Integrated { integrator, .. } => Some(integrator),
            Rotation::Precessing { .. } => None,
        });
        let top = symmetry_axis(&inertia).filter(|_| torque == Vec3::zeros());
        let rotation = if let Some((axis, equal_moment)) = top {
            let w_body = state.orientation.inverse() * state.angular_velocity;
            let spin_rate = w_body[axis] * (1.0 - inertia[axis] / equal_moment);
            let mut spin = Vec3::zeros();
            spin[axis] = spin_rate;
            // Ω = L / I_⊥ = ω − ψ̇ R₀ e_s (in the body frame: (ω₁, ω₂, ω_s I_s / I_⊥)).
            let precession = if spin_rate == 0.0 {
                state.angular_velocity
            } else {
                state.angular_velocity - state.orientation * spin
            };
            Rotation::Precessing {
                orientation: state.orientation,
                precession,
                spin,
            }
        } else {
            let system = EulerRotation { inertia, torque };
            let q = state.orientation.quaternion();
            let w_body = state.orientation.inverse() * state.angular_velocity;
            let y0 = [q.w, q.i, q.j, q.k, w_body.x, w_body.y, w_body.z];
            let integrator = match storage {
                Some(mut integrator) => {
                    integrator.restart(&system, t0, &y0, tolerance)?;
                    integrator
                }
                None => Box::new(AdaptiveRk::new(&system, t0, &y0, tolerance)?),
            };
            Rotation::Integrated { system, integrator }
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
    #[cfg(any(test, feature = "internals"))]
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
            Rotation::Precessing {
                orientation,
                precession,
                spin,
            } => {
                let turned = Quat::from_scaled_axis(*precession * tau) * *orientation;
                if *spin == Vec3::zeros() {
                    (turned, *precession)
                } else {
                    let q = turned * Quat::from_scaled_axis(*spin * tau);
                    (q, *precession + q * *spin)
                }
            }
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
            Rotation::Precessing { .. } => (0, 0),
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

    /// A symmetric top's flight: moments `inertia`, a tilted start, a generic spin.
    fn top(inertia: Vec3) -> (BodyState, FreeFlight) {
        let start = BodyState {
            position: Vec3::zeros(),
            orientation: Quat::from_scaled_axis(Vec3::new(0.3, -0.7, 0.4)),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::new(1.7, -0.6, 2.3),
        };
        let flight = FreeFlight::new(
            0.0,
            &start,
            inertia,
            Vec3::zeros(),
            Vec3::zeros(),
            Tolerance::default(),
        )
        .unwrap();
        (start, flight)
    }

    #[test]
    fn a_restarted_flight_is_the_same_as_a_fresh_one() {
        // The restart only reuses storage: from the same start, the same steps, bit for bit.
        // An asymmetric body (integrated) restarted as another asymmetric one and as a top.
        let start = BodyState {
            position: Vec3::new(1.0, 2.0, 3.0),
            orientation: Quat::from_scaled_axis(Vec3::new(-0.2, 0.5, 0.1)),
            velocity: Vec3::new(0.5, 0.0, -1.0),
            angular_velocity: Vec3::new(-0.4, 2.1, 0.9),
        };
        let gravity = Vec3::new(0.0, 0.0, -9.81);
        for inertia in [Vec3::new(0.7, 0.3, 1.1), Vec3::new(0.5, 0.5, 0.2)] {
            let (_, mut used) = top(Vec3::new(0.4, 0.9, 1.3));
            used.state_at(3.0).unwrap();
            assert!(used.step_counts().0 > 0, "the old flight was integrated");
            let tolerance = Tolerance::default();
            let mut fresh =
                FreeFlight::new(2.0, &start, inertia, gravity, Vec3::zeros(), tolerance).unwrap();
            let mut restarted = FreeFlight::reusing(
                Some(used),
                2.0,
                &start,
                inertia,
                gravity,
                Vec3::zeros(),
                tolerance,
            )
            .unwrap();
            for k in 0..=10 {
                let t = 2.0 + 0.3 * k as f64;
                assert_eq!(fresh.state_at(t).unwrap(), restarted.state_at(t).unwrap());
            }
            assert_eq!(fresh.step_counts(), restarted.step_counts());
        }
    }

    /// The three kinds of symmetric top, one per symmetry axis (prolate and oblate).
    const TOPS: [[f64; 3]; 3] = [[0.5, 0.5, 0.2], [0.3, 0.8, 0.8], [1.1, 0.4, 1.1]];

    #[test]
    fn symmetric_top_in_closed_form_matches_integrated_euler_equations() {
        // The second algorithm for the same motion: Euler's equations integrated with the
        // tolerance tightened to 1e-13 (its error over 10 s stays below 1e-9).
        for inertia in TOPS.map(Vec3::from) {
            let (start, mut flight) = top(inertia);
            assert_eq!(flight.step_counts(), (0, 0), "{inertia}: closed form");
            let system = EulerRotation {
                inertia,
                torque: Vec3::zeros(),
            };
            let q = start.orientation.quaternion();
            let w = start.orientation.inverse() * start.angular_velocity;
            let tight = Tolerance {
                relative: 1e-13,
                absolute: 1e-15,
                ..Tolerance::default()
            };
            let y0 = [q.w, q.i, q.j, q.k, w.x, w.y, w.z];
            let mut reference = AdaptiveRk::new(&system, 0.0, &y0, tight).unwrap();
            for k in 1..=20 {
                let t = 0.5 * k as f64;
                let s = flight.state_at(t).unwrap();
                reference.advance_past(&system, t).unwrap();
                let mut y = [0.0; 7];
                reference.state_at(t, &mut y);
                let q = Quat::from_quaternion(nalgebra::Quaternion::new(y[0], y[1], y[2], y[3]));
                let w = q * Vec3::new(y[4], y[5], y[6]);
                let angle = s.orientation.angle_to(&q);
                let spin = (s.angular_velocity - w).norm();
                assert!(
                    angle < 1e-9,
                    "{inertia} t={t}: orientations {angle:e} apart"
                );
                assert!(
                    spin < 1e-9,
                    "{inertia} t={t}: angular velocities {spin:e} apart"
                );
            }
        }
    }

    #[test]
    fn symmetric_top_keeps_its_angular_momentum_and_energy_to_rounding() {
        // L = R I Rᵀ ω and ½ ωᵀ L are constants of torque-free motion; the closed form holds
        // them to rounding at any time, where an integration drifts by its tolerance.
        for inertia in TOPS.map(Vec3::from) {
            let (start, mut flight) = top(inertia);
            let momentum = |s: &BodyState| {
                let w_body = s.orientation.inverse() * s.angular_velocity;
                s.orientation * inertia.component_mul(&w_body)
            };
            let l0 = momentum(&start);
            let e0 = 0.5 * start.angular_velocity.dot(&l0);
            for t in [1.0, 10.0, 1e3, 1e4] {
                let s = flight.state_at(t).unwrap();
                let l = momentum(&s);
                let e = 0.5 * s.angular_velocity.dot(&l);
                assert!(
                    (l - l0).norm() < 1e-12 * l0.norm(),
                    "{inertia} t={t}: L {l} vs {l0}"
                );
                assert!(
                    (e - e0).abs() < 1e-12 * e0,
                    "{inertia} t={t}: energy {e} vs {e0}"
                );
            }
        }
    }

    #[test]
    fn symmetry_axis_cones_about_the_angular_momentum_at_l_over_the_equal_moment() {
        // Torque-free, the symmetry axis sweeps a cone about L at |L| / I_⊥ (Goldstein §5.6):
        // its angle to L never changes, and it is back where it started after 2π I_⊥ / |L|.
        for (inertia, axis) in TOPS.map(Vec3::from).into_iter().zip([2, 0, 1]) {
            let (start, mut flight) = top(inertia);
            let w_body = start.orientation.inverse() * start.angular_velocity;
            let l = start.orientation * inertia.component_mul(&w_body);
            let equal = inertia[(axis + 1) % 3];
            let period = std::f64::consts::TAU * equal / l.norm();
            let symmetry = |s: &BodyState| s.orientation * Vec3::ith(axis, 1.0);
            let cone = symmetry(&start).angle(&l);
            for k in 1..=8 {
                let s = flight.state_at(period * k as f64 / 8.0).unwrap();
                let angle = symmetry(&s).angle(&l);
                assert!(
                    (angle - cone).abs() < 1e-12,
                    "{inertia} k={k}: {angle} vs {cone}"
                );
            }
            let back = (symmetry(&flight.state_at(period).unwrap()) - symmetry(&start)).norm();
            assert!(
                back < 1e-12,
                "{inertia}: axis {back:e} from its start after a period"
            );
        }
    }

    #[test]
    fn moments_equal_to_rounding_count_as_a_symmetric_top() {
        assert_eq!(symmetry_axis(&Vec3::new(2.0, 2.0, 1.0)), Some((2, 2.0)));
        assert_eq!(symmetry_axis(&Vec3::new(1.0, 3.0, 3.0)), Some((0, 3.0)));
        let near = 2.0 * (1.0 + 4.0 * f64::EPSILON);
        assert_eq!(
            symmetry_axis(&Vec3::new(near, 1.0, 2.0)).map(|s| s.0),
            Some(1)
        );
        assert_eq!(symmetry_axis(&Vec3::new(1.0, 2.0, 3.0)), None);
        assert_eq!(symmetry_axis(&Vec3::new(1.0, 1.0 + 1e-9, 3.0)), None);
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
