//! Large groups: impulses by projected Gauss–Seidel (Baraff App. C) instead of Lemke's
//! algorithm, and motion by velocity-level time steps instead of the force flight.
//!
//! Lemke's algorithm pivots on a dense tableau: its cost grows as the cube of the contacts
//! (`cargo bench -p impulse-bench --bench constraint`, "Lemke per solve"), and a flight asks it
//! at every change of contact mode. A pile of more than a few bodies changes mode all the time:
//! its landing slides and sticks contact by contact, and the 3-2-1 pyramid of boxes (28–44 held
//! contacts) took a minute of CPU for its first 0.12 s, in steps of microseconds; the 20-box
//! pyramid never left its landing (docs/sources.md, "Large groups"). Above
//! [`ITERATIVE_CONTACTS`] held contacts a group is therefore moved by the time steps of
//! `time_step` (Stewart & Trinkle; Anitescu & Potra) — the free motion over a step, then
//! perfectly inelastic frictional impulses at the contacts that touch, then positions from the
//! new velocities — with the impulses from projected Gauss–Seidel sweeps over the contacts
//! (`contact::gauss_seidel`: Coulomb's cone exact), each warm-started from the contact's last
//! impulse, so a resting pile settles in a few sweeps a step. Its collisions (an impact into
//! the group, a body joining it) are solved by the same sweeps. A smaller group whose flight
//! restarts faster than time steps would go (`ContactGroup::chatters`) takes time steps too.

use super::*;
use crate::contact::{ContactBody, ContactPoint, gauss_seidel};

/// Above this many held contacts a group is moved by time steps with impulses from projected
/// Gauss–Seidel (see the module comment). The stack of ten boxes (40 contacts) stays below it:
/// its flight holds the top to 6e-8 m over 5 s, where the sweeps' time steps (tried at 24)
/// left it rocking at 0.5 mm/s and rising 23 µm in 9 s — sweeps settle a tall column slowly.
/// The 20-box pyramid (about 100 contacts) is above it.
pub(crate) const ITERATIVE_CONTACTS: usize = 48;

/// Whether a group (or an island solved at a collision) of `contacts` held contacts is solved
/// by sweeps.
pub(crate) fn is_large(contacts: usize) -> bool {
    contacts > ITERATIVE_CONTACTS
}

/// The sweeps end when none changes a body's velocity at its contacts by more than this share
/// of the sliding speed: a contact that sticks creeps at most that (a thousandth of the sliding
/// speed, 1.4e-7 m/s at the default envelope: 1.4 µm in 10 s).
const SWEEP_TOLERANCE: f64 = 1e-3;

/// Most sweeps of one solve. A solve that does not settle within them is applied as it stands
/// (each contact's last impulse satisfies its own conditions at the velocities it saw).
const MAX_SWEEPS: u32 = 1000;

/// Impulses at `points` (on each point's A, world) that leave every point separating at least
/// at its target normal speed (`targets`, one per point) under Coulomb friction, found by
/// sweeps from `initial` (the warm start, world); `bodies`' velocities are updated.
pub(crate) fn impulses(
    bodies: &mut [LcpBody],
    points: &[LcpPoint],
    initial: &[Vec3],
    targets: &[f64],
    sliding_speed: f64,
) -> Vec<Vec3> {
    // The fixed side of a point (`None`) is one body of no inverse mass after the members.
    let fixed = bodies.len();
    let mut swept: Vec<ContactBody> = bodies
        .iter()
        .map(|b| ContactBody {
            inverse_mass: b.inverse_mass,
            inverse_inertia: b.inverse_inertia,
            center_of_mass: b.center_of_mass,
            velocity: b.velocity,
            angular_velocity: b.angular_velocity,
        })
        .collect();
    swept.push(ContactBody {
        inverse_mass: 0.0,
        inverse_inertia: Mat3::zeros(),
        center_of_mass: Point::origin(),
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
    });
    let contacts: Vec<ContactPoint> = points
        .iter()
        .zip(initial.iter().zip(targets))
        .map(|(p, (start, target))| {
            let (t1, t2) = crate::math::orthonormal_basis(&p.normal);
            let frame = Mat3::from_columns(&[t1, t2, p.normal]);
            ContactPoint {
                bodies: (p.a.unwrap_or(fixed), p.b.unwrap_or(fixed)),
                point: p.point,
                frame,
                friction: p.friction,
                target: Vec3::new(0.0, 0.0, *target),
                initial: frame.transpose() * start,
            }
        })
        .collect();
    let solution = gauss_seidel::solve(
        &mut swept,
        &contacts,
        SWEEP_TOLERANCE * sliding_speed,
        MAX_SWEEPS,
    );
    for (body, after) in bodies.iter_mut().zip(&swept) {
        body.velocity = after.velocity;
        body.angular_velocity = after.angular_velocity;
    }
    contacts
        .iter()
        .zip(&solution.impulses)
        .map(|(c, p)| c.frame * p)
        .collect()
}

/// Collision impulses at every point of `system` (built from `bodies` and `points`) by sweeps:
/// Newton's restitution per contact (target `e v_N⁻` where it approaches), perfectly inelastic
/// where that would add energy (several contacts with restitution can, Baraff §9.4; with none
/// the impulses take energy out). `bodies`' velocities are updated.
pub(crate) fn collide(
    system: &ContactSystem,
    bodies: &mut [LcpBody],
    points: &[LcpPoint],
    sliding_speed: f64,
) -> Vec<Vec3> {
    let start = vec![Vec3::zeros(); points.len()];
    let before = system.velocities();
    let newton: Vec<f64> = points
        .iter()
        .zip(before.iter())
        .map(|(p, v)| p.restitution * (-v.x).max(0.0))
        .collect();
    let mut trial = bodies.to_vec();
    let found = impulses(&mut trial, points, &start, &newton, sliding_speed);
    let gains = system.kinetic_energy_change(&found)
        > 1e-12 * crate::lcp::impulse::work_terms(system, &found);
    if newton.iter().all(|&v| v == 0.0) || !gains {
        bodies.clone_from_slice(&trial);
        return found;
    }
    impulses(bodies, points, &start, &vec![0.0; points.len()], sliding_speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three unit cubes of unit mass stacked on the ground, each face held at its four corners
    /// (twelve contacts, every interface a chair on four legs), tumbling down onto each other.
    fn stack() -> (Vec<LcpBody>, Vec<LcpPoint>) {
        let mut bodies = Vec::new();
        let mut points = Vec::new();
        for i in 0..3 {
            let z = i as f64;
            bodies.push(LcpBody {
                inverse_mass: 1.0,
                // I = m (a² + a²)/12 = 1/6 for a = 1.
                inverse_inertia: Mat3::identity() * 6.0,
                center_of_mass: Point::new(0.0, 0.0, z + 0.5),
                velocity: Vec3::new(0.1 * z, -0.05, -0.3 - 0.2 * z),
                angular_velocity: Vec3::new(0.2, -0.1 * z, 0.05),
                force: Vec3::zeros(),
                torque: Vec3::zeros(),
            });
            for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                points.push(LcpPoint::new(
                    Some(i),
                    i.checked_sub(1),
                    Point::new(x, y, z),
                    Vec3::z(),
                ));
            }
        }
        (bodies, points)
    }

    /// Frictionless, the velocities after a perfectly inelastic collision are unique (the
    /// problem's matrix is symmetric positive semi-definite: `M z` is the same at every
    /// solution) though the impulses at redundant corners are not: the sweeps' velocities are
    /// Lemke's, to the sweeps' tolerance.
    #[test]
    fn frictionless_sweeps_reach_lemkes_velocities() {
        let (bodies, points) = stack();
        let system = ContactSystem::new(&bodies, &points, 1e-4).expect("a valid problem");
        let exact = crate::lcp::impulse::collide(&system, false, None, &LemkeOptions::default())
            .expect("Lemke solves it");
        let mut by_lemke = bodies.clone();
        crate::lcp::contact::apply_impulses(&mut by_lemke, &points, &exact.impulses);
        let mut swept = bodies.clone();
        let found = collide(&system, &mut swept, &points, 1e-4);
        // The sweeps stop at 1e-3 of the sliding speed (1e-7 m/s) at the contacts; a body's
        // velocity is within a few of that.
        for (k, (a, b)) in swept.iter().zip(&by_lemke).enumerate() {
            assert!((a.velocity - b.velocity).norm() < 1e-6, "body {k}: {a:?} against {b:?}");
            assert!(
                (a.angular_velocity - b.angular_velocity).norm() < 1e-5,
                "body {k}: {a:?} against {b:?}"
            );
        }
        // Every contact is left not approaching, and the impulses push.
        let after = system.velocities_after(&found);
        for (i, (v, p)) in after.iter().zip(&found).enumerate() {
            assert!(v.x > -1e-6, "contact {i} still approaches at {}", v.x);
            assert!(p.z >= 0.0, "contact {i} pulls");
        }
    }

    /// With friction and restitution the sweeps' collision never adds energy, and leaves no
    /// contact approaching.
    #[test]
    fn a_frictional_collision_by_sweeps_adds_no_energy() {
        let (bodies, mut points) = stack();
        for p in &mut points {
            p.friction = 0.5;
            p.restitution = 0.3;
        }
        let system = ContactSystem::new(&bodies, &points, 1e-4).expect("a valid problem");
        let mut swept = bodies.clone();
        let found = collide(&system, &mut swept, &points, 1e-4);
        let change = system.kinetic_energy_change(&found);
        assert!(change <= 1e-12 * crate::lcp::impulse::work_terms(&system, &found), "gained {change} J");
        assert!(change < 0.0, "the collision takes energy out");
        for (i, v) in system.velocities_after(&found).iter().enumerate() {
            assert!(v.x > -1e-6, "contact {i} still approaches at {}", v.x);
        }
        for (i, p) in found.iter().enumerate() {
            let tangential = (p - Vec3::z() * p.z).norm();
            assert!(tangential <= 0.5 * p.z * (1.0 + 1e-9), "contact {i} outside its cone");
        }
    }
}
