//! The articulated-body algorithm against the dense joint-space oracle (composite-rigid-body
//! mass matrix + Newton–Euler bias forces, solved by Cholesky), on random trees mixing every
//! joint kind, with fixed and floating bases (Mirtich V21; Featherstone RBDA ch. 6–7).

use impulse::math::{Pose, Quat, Vec3, pose};
use impulse::multibody::{AppliedForces, Joint, JointKind, Link, Tree, Workspace};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn random_unit(rng: &mut Pcg64) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.norm() > 0.1 && v.norm() < 1.0 {
            return v.normalize();
        }
    }
}

fn random_pose(rng: &mut Pcg64, reach: f64) -> Pose {
    let axis = random_unit(rng);
    let angle = rng.random_range(-3.0..3.0);
    pose(
        random_unit(rng) * rng.random_range(0.0..reach),
        Quat::from_scaled_axis(axis * angle),
    )
}

const KINDS: [JointKind; 8] = [
    JointKind::Revolute,
    JointKind::Prismatic,
    JointKind::Cylindrical,
    JointKind::Helical { pitch: 0.07 },
    JointKind::Spherical,
    JointKind::Planar,
    JointKind::Fixed,
    JointKind::Floating,
];

/// A random tree of `n` links; the root joint is `root` and the others are drawn from all
/// kinds (every kind appears in trees of 8 links or more).
fn random_tree(rng: &mut Pcg64, n: usize, root: JointKind) -> Tree {
    let mut links = Vec::new();
    for i in 0..n {
        let kind = if i == 0 {
            root
        } else {
            KINDS[(i - 1) % KINDS.len()]
        };
        let kind = if i > 0 && rng.random_bool(0.3) {
            KINDS[rng.random_range(0..KINDS.len())]
        } else {
            kind
        };
        let parent = if i == 0 {
            None
        } else {
            Some(rng.random_range(0..i))
        };
        let joint = Joint::new(
            format!("j{i}"),
            kind,
            random_pose(rng, 0.8),
            random_pose(rng, 0.5),
        );
        let mass = rng.random_range(0.3..3.0);
        let moments = Vec3::new(
            rng.random_range(0.01..0.3),
            rng.random_range(0.01..0.3),
            rng.random_range(0.01..0.3),
        );
        // Keep the triangle inequality of real bodies.
        let moments = Vec3::new(
            moments.x,
            moments.y,
            moments
                .z
                .clamp((moments.x - moments.y).abs() + 1e-3, moments.x + moments.y),
        );
        links.push(Link::new(format!("l{i}"), parent, joint, mass, moments));
    }
    Tree::new(links).unwrap()
}

/// A random valid state: random coordinates (unit quaternions), velocities, forces.
fn random_state(rng: &mut Pcg64, tree: &Tree) -> (Vec<f64>, Vec<f64>, Vec<f64>, AppliedForces) {
    let mut q = tree.neutral_q();
    for x in q.iter_mut() {
        *x += rng.random_range(-1.0..1.0);
    }
    tree.normalize(&mut q);
    let v: Vec<f64> = (0..tree.nv())
        .map(|_| rng.random_range(-2.0..2.0))
        .collect();
    let tau: Vec<f64> = (0..tree.nv())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let mut applied = AppliedForces::zero(tree.nv(), tree.links().len());
    for i in 0..tree.links().len() {
        applied.link_force[i] = random_unit(rng) * rng.random_range(0.0..2.0);
        applied.link_torque[i] = random_unit(rng) * rng.random_range(0.0..1.0);
    }
    (q, v, tau, applied)
}

fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// ABA and the dense solve agree to 1e-9 relative on random trees of 1–30 links, every joint
/// kind, fixed (revolute root) and floating bases.
#[test]
fn aba_matches_the_mass_matrix_solution_on_random_trees() {
    let mut rng = Pcg64::seed_from_u64(0x5eed_0005);
    let gravity = Vec3::new(0.3, -0.2, -9.81);
    let mut worst: f64 = 0.0;
    let mut kinds_seen = std::collections::BTreeSet::new();
    for trial in 0..120 {
        let n = 1 + trial % 30;
        let root = match trial % 3 {
            0 => JointKind::Floating,
            1 => JointKind::Revolute,
            _ => KINDS[rng.random_range(0..KINDS.len())],
        };
        let tree = random_tree(&mut rng, n, root);
        for l in tree.links() {
            kinds_seen.insert(l.joint.kind.name());
        }
        if tree.nv() == 0 {
            continue;
        }
        let (q, v, tau, applied) = random_state(&mut rng, &tree);
        let mut ws = Workspace::new(n);
        let mut aba = vec![0.0; tree.nv()];
        tree.forward_dynamics(&q, &v, &tau, &applied, &gravity, &mut ws, &mut aba);
        let dense = tree
            .forward_dynamics_dense(&q, &v, &tau, &applied, &gravity, &mut ws)
            .expect("H is positive definite for positive link inertias");
        let error: Vec<f64> = aba.iter().zip(dense.iter()).map(|(a, b)| a - b).collect();
        let relative = max_abs(&error) / max_abs(dense.as_slice()).max(1e-300);
        worst = worst.max(relative);
        assert!(
            relative < 1e-9,
            "trial {trial} ({n} links, root {root}): relative error {relative:e}"
        );
    }
    assert_eq!(
        kinds_seen.len(),
        KINDS.len(),
        "every joint kind was exercised"
    );
    println!("ABA vs CRBA: worst relative difference {worst:e}");
}

/// Inverse dynamics of the ABA's accelerations gives back the joint forces (the two
/// algorithms are consistent as maps, not only at one point).
#[test]
fn inverse_dynamics_recovers_the_joint_forces() {
    let mut rng = Pcg64::seed_from_u64(77);
    let gravity = Vec3::new(0.0, 0.0, -9.81);
    for n in [1, 5, 17, 30] {
        let tree = random_tree(&mut rng, n, JointKind::Floating);
        let (q, v, tau, applied) = random_state(&mut rng, &tree);
        let mut ws = Workspace::new(n);
        let mut v_dot = vec![0.0; tree.nv()];
        tree.forward_dynamics(&q, &v, &tau, &applied, &gravity, &mut ws, &mut v_dot);
        let back = tree.inverse_dynamics(&q, &v, &v_dot, &applied, &gravity, &mut ws);
        let error: Vec<f64> = back.iter().zip(&tau).map(|(a, b)| a - b).collect();
        assert!(
            max_abs(&error) < 1e-9 * max_abs(&tau).max(1.0),
            "{n} links: {error:?}"
        );
    }
}
