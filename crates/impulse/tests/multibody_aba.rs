//! The articulated-body algorithm against the dense joint-space oracle (composite-rigid-body
//! mass matrix + Newton–Euler bias forces, solved by Cholesky), on random trees mixing every
//! joint kind, with fixed and floating bases (Mirtich V21; Featherstone RBDA ch. 6–7).

mod common;

use common::multibodies::{KINDS, random_state, random_tree};
use impulse::math::Vec3;
use impulse::multibody::{JointKind, Workspace};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

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
