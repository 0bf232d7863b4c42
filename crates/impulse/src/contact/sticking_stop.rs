//! The sticking stop: every contact of a problem brought to its target velocity at once, as
//! if it held fast — pulling as well as pushing, and with friction that never slips. The
//! bodies' velocities are projected, in the metric of their masses, onto the motions that
//! keep every contact at its target; the impulses that do it are the solution of
//!
//! ```text
//!   K P = target − u⁰,      K_ij the collision-matrix blocks of the contacts (eq. 3.4)
//! ```
//!
//! `K = J M⁻¹ Jᵀ` is symmetric positive semi-definite, singular where contacts hold a body
//! redundantly (a box's four corners); the right-hand side lies in its range, and conjugate
//! gradients started from zero stay there, converging to the least-norm impulses. The answer
//! is exact (no projection onto cones), so the caller reads from it what a unilateral,
//! frictional solve cannot tell quickly: whether any motion survives the stop (a rolling ball
//! rolls on), and whether the impulses push and lie in their friction cones (a cluster at
//! rest, or able to carry its weight).
//! Projected Gauss–Seidel ([`super::gauss_seidel`]) needs sweeps in proportion to a stack's
//! height squared to carry a load down it; conjugate gradients need about the height.

use super::gauss_seidel::Row;
use super::{ContactBody, ContactPoint, ContactSolution};
use crate::math::Vec3;

/// Solves the sticking stop of `contacts` between `bodies` (see the module comment) by
/// conjugate gradients, updating the bodies' velocities. Of the impulses that stop them, the
/// least in `Σ P_z² + |P_t|² / w²` (`w` the `friction_weight`): a small weight asks friction
/// for what normal impulses cannot give, not for a share of what they can. Ends when no contact's velocity
/// differs from its target by more than `tolerance` (a speed; converged), or after
/// `max_iterations`.
pub(crate) fn solve(
    bodies: &mut [ContactBody],
    contacts: &[ContactPoint],
    friction_weight: f64,
    tolerance: f64,
    max_iterations: u32,
) -> ContactSolution {
    let table: Vec<Row> = contacts.iter().map(|c| Row::new(c, bodies)).collect();
    let n = contacts.len();
    // The scaling `D` of each contact's impulse: `P = D y`, the least-norm `y` sought.
    let scale = Vec3::new(friction_weight, friction_weight, 1.0);
    // Conjugate gradients on `D K D y = D (target − u⁰)`, `P = D y`: the residual `r`
    // (scaled; `error` unscaled, the contact's velocity from its target), the search direction
    // `d` and `D K D d`.
    let mut error: Vec<Vec3> = table
        .iter()
        .zip(contacts)
        .map(|(row, contact)| contact.target - row.velocity(bodies))
        .collect();
    let mut residual: Vec<Vec3> = error.iter().map(|e| e.component_mul(&scale)).collect();
    let mut scaled = vec![Vec3::zeros(); n];
    let mut direction = residual.clone();
    let mut product = vec![Vec3::zeros(); n];
    // Velocity changes of the bodies, for K.
    let mut change: Vec<ContactBody> = bodies
        .iter()
        .map(|b| ContactBody {
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            ..b.clone()
        })
        .collect();
    let dot = |a: &[Vec3], b: &[Vec3]| a.iter().zip(b).map(|(x, y)| x.dot(y)).sum::<f64>();
    let largest = |r: &[Vec3]| r.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let mut rr = dot(&residual, &residual);
    let mut iterations = 0;
    let mut converged = largest(&error) <= tolerance;
    while !converged && iterations < max_iterations {
        iterations += 1;
        for body in &mut change {
            body.velocity = Vec3::zeros();
            body.angular_velocity = Vec3::zeros();
        }
        for (row, d) in table.iter().zip(&direction) {
            row.apply(&mut change, &d.component_mul(&scale));
        }
        for (row, kd) in table.iter().zip(&mut product) {
            *kd = row.velocity(&change) - row.still;
        }
        let curvature = direction
            .iter()
            .zip(&product)
            .map(|(d, kd)| d.component_mul(&scale).dot(kd))
            .sum::<f64>();
        if curvature <= 0.0 || !curvature.is_finite() {
            break; // nothing left to reduce along this direction (rounding)
        }
        let step = rr / curvature;
        for k in 0..n {
            scaled[k] += direction[k] * step;
            error[k] -= product[k] * step;
            residual[k] = error[k].component_mul(&scale);
        }
        let next = dot(&residual, &residual);
        converged = largest(&error) <= tolerance;
        let ratio = next / rr;
        rr = next;
        for (d, r) in direction.iter_mut().zip(&residual) {
            *d = *r + *d * ratio;
        }
    }
    let impulses: Vec<Vec3> = scaled.iter().map(|y| y.component_mul(&scale)).collect();
    for (row, impulse) in table.iter().zip(&impulses) {
        row.apply(bodies, impulse);
    }
    ContactSolution {
        impulses,
        sweeps: iterations,
        converged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Mat3, Point, orthonormal_basis};

    fn cube(z: f64, mass: f64, side: f64, velocity: Vec3) -> ContactBody {
        let inertia = mass * side * side / 6.0;
        ContactBody {
            inverse_mass: 1.0 / mass,
            inverse_inertia: Mat3::identity() / inertia,
            center_of_mass: Point::new(0.0, 0.0, z),
            velocity,
            angular_velocity: Vec3::zeros(),
        }
    }

    /// A stack of `n` unit cubes (mass 1) on fixed ground, body 0, each face pair touching at
    /// the four corners, every cube moving at `velocity`.
    fn stack(n: usize, velocity: Vec3) -> (Vec<ContactBody>, Vec<ContactPoint>) {
        let mut bodies = vec![ContactBody::fixed()];
        let mut points = Vec::new();
        let up = Vec3::z();
        let (t1, t2) = orthonormal_basis(&up);
        let frame = Mat3::from_columns(&[t1, t2, up]);
        for k in 1..=n {
            bodies.push(cube(k as f64 - 0.5, 1.0, 1.0, velocity));
            for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                points.push(ContactPoint {
                    bodies: (k, k - 1),
                    point: Point::new(x, y, k as f64 - 1.0),
                    frame,
                    friction: 0.5,
                    target: Vec3::zeros(),
                    initial: Vec3::zeros(),
                });
            }
        }
        (bodies, points)
    }

    #[test]
    fn a_falling_stack_stops_with_each_interface_carrying_the_cubes_above() {
        // Ten unit cubes falling at 1: stopped, interface k (from the ground, k = 0) carries
        // the momentum of the 10 − k cubes above it, in four equal corners (the least-norm
        // share, by symmetry): 0.25 (10 − k) a corner, no friction. Closed form: momentum.
        let (mut bodies, points) = stack(10, -Vec3::z());
        let solution = solve(&mut bodies, &points, 1.0, 1e-12, 200);
        assert!(solution.converged, "{} iterations", solution.sweeps);
        for (i, impulse) in solution.impulses.iter().enumerate() {
            let expected = 0.25 * (10 - i / 4) as f64;
            assert!((impulse.z - expected).abs() < 1e-9, "{i}: {impulse}");
            assert!(impulse.xy().norm() < 1e-9, "{i}: {impulse}");
        }
        for body in &bodies[1..] {
            assert!(body.velocity.norm() < 1e-10 && body.angular_velocity.norm() < 1e-10);
        }
        // Conjugate gradients take far fewer passes than Gauss–Seidel sweeps for the same
        // stop (measured: 10 against hundreds).
        let (mut again, points) = stack(10, -Vec3::z());
        let sweeps = super::super::gauss_seidel::solve(&mut again, &points, 1e-9, 10_000);
        assert!(solution.sweeps * 10 < sweeps.sweeps, "{} {}", solution.sweeps, sweeps.sweeps);
    }

    #[test]
    fn a_sliding_stack_is_stopped_by_friction_whatever_its_weight() {
        // Three unit cubes sliding along x at 2 and falling at 1, held sticking: all stop.
        // Momentum (closed form): interface k carries the cubes above it, 3 − k of them, so
        // its four corners' impulses sum to (−2, 0, 1) × (3 − k) in the world on the cube
        // above — the slide taken by friction whatever friction's weight in the least norm.
        for weight in [1.0, 0.01] {
            let (mut bodies, points) = stack(3, Vec3::new(2.0, 0.0, -1.0));
            let solution = solve(&mut bodies, &points, weight, 1e-12, 500);
            assert!(solution.converged, "weight {weight}");
            assert!(bodies[1..].iter().all(|b| b.velocity.norm() < 1e-9));
            for k in 0..3 {
                let sum: Vec3 = (4 * k..4 * k + 4)
                    .map(|i| points[i].frame * solution.impulses[i])
                    .sum();
                let expected = Vec3::new(-2.0, 0.0, 1.0) * (3 - k) as f64;
                assert!((sum - expected).norm() < 1e-6, "{weight} {k}: {sum}");
            }
        }
    }

    #[test]
    fn the_motion_a_stop_leaves_does_not_depend_on_the_friction_weight() {
        // A cube on the ground at two corners only (free to roll about the line through them)
        // with a cube on it at four (redundant): the stop leaves a rolling motion. Every
        // impulse set that keeps the contacts at their targets differs from another by a null
        // vector of K = J M⁻¹ Jᵀ, on which Jᵀ P = 0 (Pᵀ K P = |M^-½ Jᵀ P|²), so the bodies'
        // velocities are the same whatever the weight; the hold tests rely on it
        // (`world::clusters`, the witness).
        let moving = [Vec3::new(0.3, -0.2, -1.0), Vec3::new(-0.1, 0.4, -0.5)];
        let run = |weight: f64| {
            let (mut bodies, mut points) = stack(2, Vec3::zeros());
            points.drain(2..4); // the ground holds cube 1 at (−½, −½) and (½, −½) only
            for (body, v) in bodies[1..].iter_mut().zip(moving) {
                body.velocity = v;
                body.angular_velocity = Vec3::new(0.7, -0.3, 0.2);
            }
            let solution = solve(&mut bodies, &points, weight, 1e-13, 1000);
            assert!(solution.converged, "weight {weight}: {} passes", solution.sweeps);
            bodies
        };
        let (one, small) = (run(1.0), run(0.01));
        // Something moves: the roll about the line y = −½ of the ground contacts.
        assert!(one[1].angular_velocity.x.abs() > 1e-3, "{}", one[1].angular_velocity);
        for (a, b) in one.iter().zip(&small) {
            assert!((a.velocity - b.velocity).norm() < 1e-9, "{} {}", a.velocity, b.velocity);
            assert!(
                (a.angular_velocity - b.angular_velocity).norm() < 1e-9,
                "{} {}",
                a.angular_velocity,
                b.angular_velocity
            );
        }
    }
}
