//! Impulses on multibodies: the articulated collision matrix (Mirtich §5.3.3) and impulse
//! propagation (§5.3.4) against the rigid-body formula (V20), closed forms for grounded chains,
//! the dense operational-space form `K = J H⁻¹ Jᵀ` (eq. 5.2), and conservation laws (V22).

mod common;

use common::multibodies::{self, box_link, floating_base, random_state, random_tree};
use common::random::random_unit;
use impulse::dynamics::BodyDesc;
use impulse::math::{Mat3, Quat, Vec3, cross_matrix};
use impulse::multibody::impulse::{collision_rank, pseudo_inverse};
use impulse::multibody::spatial::{angular, linear};
use impulse::multibody::{JointDesc, JointKind, Multibody, MultibodyDesc, Tree, Workspace};
use nalgebra::DMatrix;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn build(links: Vec<BodyDesc>, joints: Vec<JointDesc>) -> Multibody {
    let desc = MultibodyDesc {
        name: "mb".into(),
        links,
        joints,
        controllers: vec![],
    };
    multibodies::build(desc, Vec3::zeros())
}

/// V20: a single floating link's collision matrix is the rigid-body K = 𝟙/m − r̃ I⁻¹ r̃
/// (Mirtich eq. 3.4), to machine precision, for random contact points and orientations.
#[test]
fn free_link_collision_matrix_is_the_rigid_body_k() {
    let mut rng = Pcg64::seed_from_u64(20);
    let mut worst: f64 = 0.0;
    for _ in 0..50 {
        let orientation =
            Quat::from_scaled_axis(random_unit(&mut rng) * rng.random_range(0.0..3.0));
        let centre = random_unit(&mut rng) * 2.0;
        let size = Vec3::new(
            rng.random_range(0.1..1.0),
            rng.random_range(0.1..1.0),
            rng.random_range(0.1..1.0),
        );
        let link = box_link(
            "body",
            size,
            rng.random_range(0.5..5.0),
            centre,
            orientation,
        );
        let mb = build(
            vec![link],
            vec![JointDesc::new(
                "free",
                JointKind::Floating,
                "world",
                "body",
                Vec3::zeros(),
                Vec3::z(),
            )],
        );
        let l = &mb.tree().links()[0];
        let pose = mb.link_pose(0);
        let r_world = pose.rotation.to_rotation_matrix().into_inner();
        let inertia_world =
            r_world * Mat3::from_diagonal(&l.principal_inertia) * r_world.transpose();
        let point = centre + random_unit(&mut rng) * rng.random_range(0.0..1.0);
        let r = point - pose.translation.vector;
        let rigid = Mat3::identity() / l.mass
            - cross_matrix(&r) * inertia_world.try_inverse().unwrap() * cross_matrix(&r);
        let k = mb.collision_matrix(0, &point);
        let relative = (k - rigid).norm() / rigid.norm();
        worst = worst.max(relative);
        assert!(relative < 1e-13, "relative difference {relative:e}");
    }
    println!("V20 free link: worst relative difference {worst:e}");
}

/// V20: a grounded one-link pendulum (pivot axis z) has K = (z × ρ)(z × ρ)ᵀ / I_pivot for a
/// contact at ρ from the pivot: rank 1.
#[test]
fn grounded_pendulum_collision_matrix_has_rank_one() {
    let pivot = Vec3::new(0.1, -0.2, 0.3);
    let rod = box_link(
        "rod",
        Vec3::new(0.6, 0.05, 0.05),
        1.7,
        pivot + Vec3::new(0.3, 0.0, 0.0),
        Quat::identity(),
    );
    let mut joint = JointDesc::new(
        "hinge",
        JointKind::Revolute,
        "world",
        "rod",
        pivot,
        Vec3::z(),
    );
    joint.initial_position = vec![0.4];
    let mb = build(vec![rod], vec![joint]);
    let l = &mb.tree().links()[0];
    let com = mb.link_pose(0).translation.vector;
    // I about the pivot axis: I_zz about the COM plus m d².
    let i_pivot = l.principal_inertia.z + l.mass * (com - pivot).norm_squared();
    let point = mb.link_model_pose(0) * nalgebra::Point3::new(0.25, 0.025, 0.02);
    let rho = point.coords - pivot;
    let t = Vec3::z().cross(&rho);
    let expected = t * t.transpose() / i_pivot;
    let k = mb.collision_matrix(0, &point.coords);
    let relative = (k - expected).norm() / expected.norm();
    println!(
        "grounded pendulum K: relative difference {relative:e}, rank {}",
        collision_rank(&k)
    );
    assert!(relative < 1e-13);
    assert_eq!(collision_rank(&k), 1);
}

/// Fig. 5.12: a planar 2-link chain (two parallel revolute joints) gives a rank-2 K, and the
/// SVD pseudo-inverse gives the minimum-norm impulse, which lies in the plane of motion and
/// achieves the in-plane part of any requested velocity change.
#[test]
fn planar_two_link_chain_has_rank_two() {
    let a = box_link(
        "upper",
        Vec3::new(0.5, 0.05, 0.05),
        1.0,
        Vec3::new(0.25, 0.0, 0.0),
        Quat::identity(),
    );
    let b = box_link(
        "lower",
        Vec3::new(0.4, 0.05, 0.05),
        0.8,
        Vec3::new(0.7, 0.0, 0.0),
        Quat::identity(),
    );
    let mut j1 = JointDesc::new(
        "shoulder",
        JointKind::Revolute,
        "world",
        "upper",
        Vec3::zeros(),
        Vec3::z(),
    );
    j1.initial_position = vec![0.3];
    let mut j2 = JointDesc::new(
        "elbow",
        JointKind::Revolute,
        "upper",
        "lower",
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::z(),
    );
    j2.initial_position = vec![0.8];
    let mb = build(vec![a, b], vec![j1, j2]);
    let tip = mb.link_model_pose(1) * nalgebra::Point3::new(0.2, 0.0, 0.0);
    let k = mb.collision_matrix(1, &tip.coords);
    assert_eq!(collision_rank(&k), 2, "K = {k}");
    let du = Vec3::new(0.3, -0.7, 0.5);
    let p = mb.impulse_for_velocity_change(1, &tip.coords, &du);
    assert!(
        p.z.abs() < 1e-12 * p.norm(),
        "impulse {p:?} leaves the plane"
    );
    let achieved = k * p;
    assert!(
        (achieved - Vec3::new(du.x, du.y, 0.0)).norm() < 1e-12,
        "{achieved:?}"
    );
    assert!((pseudo_inverse(&k) * k * pseudo_inverse(&k) - pseudo_inverse(&k)).norm() < 1e-9);
}

/// World velocity of a material point of link `k` for joint velocities `v` (the point
/// Jacobian applied to `v`).
fn point_velocity(
    tree: &Tree,
    q: &[f64],
    v: &[f64],
    k: usize,
    point: &Vec3,
    ws: &mut Workspace,
) -> Vec3 {
    tree.positions(q, ws);
    tree.velocities(q, v, ws);
    let x = &ws.x_world[k];
    let rho = x.rotation * (point - x.translation);
    let vel = &ws.velocity[k];
    x.rotation.tr_mul(&(linear(vel) + angular(vel).cross(&rho)))
}

/// On random trees mixing every joint kind, the O(depth) collision matrix equals the dense
/// `J H⁻¹ Jᵀ` (Mirtich eq. 5.2, Khatib's inverse operational-space inertia), and the O(n)
/// impulse propagation equals `Δv = H⁻¹ Jᵀ p`.
#[test]
fn collision_matrix_and_propagation_match_the_dense_form() {
    let mut rng = Pcg64::seed_from_u64(522);
    let mut worst_k: f64 = 0.0;
    let mut worst_dv: f64 = 0.0;
    for trial in 0..60 {
        let n = 1 + trial % 25;
        let root = if trial % 2 == 0 {
            JointKind::Floating
        } else {
            JointKind::Revolute
        };
        let tree = random_tree(&mut rng, n, root);
        if tree.nv() == 0 {
            continue;
        }
        let (q, _, _, _) = random_state(&mut rng, &tree);
        let mut ws = Workspace::new(n);
        let h = tree.mass_matrix(&q, &mut ws);
        let h_inv = h.clone().cholesky().unwrap().inverse();
        let k = rng.random_range(0..n);
        tree.positions(&q, &mut ws);
        let point = ws.x_world[k].translation + random_unit(&mut rng) * 0.4;
        // J: 3 × nv, column j = point velocity for v = e_j.
        let mut jac = DMatrix::zeros(3, tree.nv());
        let mut e = vec![0.0; tree.nv()];
        for j in 0..tree.nv() {
            e.fill(0.0);
            e[j] = 1.0;
            let u = point_velocity(&tree, &q, &e, k, &point, &mut ws);
            jac.set_column(j, &nalgebra::DVector::from_column_slice(u.as_slice()));
        }
        let dense = &jac * &h_inv * jac.transpose();
        tree.positions(&q, &mut ws);
        tree.articulated_inertias(&mut ws);
        let kmat = tree.collision_matrix(k, &point, &ws);
        let scale = dense.norm().max(1e-300);
        let diff = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| (kmat[(r, c)] - dense[(r, c)]).powi(2))
            .sum::<f64>()
            .sqrt()
            / scale;
        worst_k = worst_k.max(diff);
        assert!(diff < 1e-10, "trial {trial}: K differs by {diff:e}");
        // Propagation of a random impulse.
        let p = random_unit(&mut rng) * 1.3;
        let (spatial_impulse, _) = tree.point_impulse(k, &point, &p, &ws);
        let mut dv = vec![0.0; tree.nv()];
        tree.impulse_response(k, &spatial_impulse, &ws, &mut dv);
        let expected =
            &h_inv * jac.transpose() * nalgebra::DVector::from_column_slice(p.as_slice());
        let err = dv
            .iter()
            .zip(expected.iter())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / expected.amax().max(1e-300);
        worst_dv = worst_dv.max(err);
        assert!(err < 1e-10, "trial {trial}: Δv differs by {err:e}");
    }
    println!("K vs J H⁻¹ Jᵀ: worst {worst_k:e}; Δv vs H⁻¹ Jᵀ p: worst {worst_dv:e}");
}

fn floating_chain(offset: Vec3, seed: u64) -> Multibody {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (base_link, mut base) = floating_base(Vec3::new(0.4, 0.3, 0.2), 3.0, offset);
    let mut links = vec![base_link];
    base.initial_velocity = (0..6).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut joints = vec![base];
    let kinds = [
        JointKind::Revolute,
        JointKind::Spherical,
        JointKind::Prismatic,
        JointKind::Planar,
    ];
    for (i, kind) in kinds.iter().enumerate() {
        let name = format!("l{i}");
        let parent = if i == 0 {
            "base".to_string()
        } else {
            format!("l{}", i - 1)
        };
        let centre = offset + Vec3::new(0.3 * (i as f64 + 1.0), 0.05 * i as f64, 0.0);
        links.push(box_link(
            &name,
            Vec3::new(0.25, 0.1, 0.1),
            0.7,
            centre,
            Quat::identity(),
        ));
        let mut j = JointDesc::new(
            format!("j{i}"),
            *kind,
            parent,
            name,
            centre - Vec3::new(0.15, 0.0, 0.0),
            random_unit(&mut rng),
        );
        j.initial_velocity = (0..kind.nv())
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        joints.push(j);
    }
    build(links, joints)
}

/// V22: an impulse p at point r on an isolated floating multibody changes its linear momentum
/// by exactly p and its angular momentum about the origin by r × p; an equal and opposite pair
/// on two multibodies conserves both totals; the kinetic energy changes by
/// W = ½ (u_f + u_0)ᵀ K⁻¹ (u_f − u_0) (Mirtich Theorem 11 with K = K₁ + K₂).
#[test]
fn impulses_conserve_momentum_and_do_the_predicted_work() {
    let mut a = floating_chain(Vec3::zeros(), 1);
    let mut b = floating_chain(Vec3::new(1.4, 0.2, -0.1), 2);
    let (ka, kb) = (4, 1);
    // A contact point between a's last link and b's first child link.
    let point = 0.5 * (a.link_pose(ka).translation.vector + b.link_pose(kb).translation.vector);
    let p = Vec3::new(0.8, -1.1, 0.45);

    let (pa0, la0) = a.momentum();
    let (pb0, lb0) = b.momentum();
    let u0 = a.point_velocity(ka, &point) - b.point_velocity(kb, &point);
    let k = a.collision_matrix(ka, &point) + b.collision_matrix(kb, &point);
    let energy0 = a.kinetic_energy() + b.kinetic_energy();

    a.apply_impulse(ka, &point, &p);
    let (pa1, la1) = a.momentum();
    assert!(
        (pa1 - pa0 - p).norm() < 1e-13 * p.norm(),
        "Δp = {:?}",
        pa1 - pa0
    );
    assert!((la1 - la0 - point.cross(&p)).norm() < 1e-13 * point.cross(&p).norm().max(1.0));
    b.apply_impulse(kb, &point, &(-p));
    let (pb1, lb1) = b.momentum();
    let total_p = (pa1 + pb1) - (pa0 + pb0);
    let total_l = (la1 + lb1) - (la0 + lb0);
    println!(
        "V22: total momentum change {:e}, angular {:e}",
        total_p.norm(),
        total_l.norm()
    );
    assert!(total_p.norm() < 1e-13 && total_l.norm() < 1e-13);

    let uf = a.point_velocity(ka, &point) - b.point_velocity(kb, &point);
    // Δu = K p, and the work W = ½ (u_f + u_0)ᵀ K⁻¹ Δu = ½ (u_f + u_0)ᵀ p.
    assert!((uf - u0 - k * p).norm() < 1e-12 * (k * p).norm());
    let work = 0.5 * (uf + u0).dot(&(k.try_inverse().unwrap() * (uf - u0)));
    let delta_energy = a.kinetic_energy() + b.kinetic_energy() - energy0;
    println!("V22: ΔE = {delta_energy}, W = {work}");
    assert!((delta_energy - work).abs() < 1e-12 * work.abs().max(1e-3));
}
