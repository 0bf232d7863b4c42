//! Multibody motion against closed forms and conservation laws: the simple pendulum's period,
//! the thesis's single-pendulum acceleration (V21), energy conservation of a passive triple
//! pendulum and of random trees with springs, momentum of a floating base, Euler's equations for
//! a floating single body, and PD/PID controllers (V23).

mod common;

use common::multibodies::{box_link, build, floating_base};
use impulse::control::JointPid;
use impulse::math::{Pose, Quat, Vec3, pose};
use impulse::multibody::{
    AppliedForces, Joint, JointDesc, JointKind, Link, Multibody, MultibodyDesc, Tree, Workspace,
};
use impulse::world::WorldSettings;

/// V21: a uniform rod (m = 1, COM 0.5 from the pivot, I_c = 1/12), g = 9.81, θ = 30° from the
/// downward vertical, at rest: q̈ = −m g d sin θ / (I_c + m d²) = −7.3575 rad/s² (digest V21).
#[test]
fn single_pendulum_acceleration_matches_v21() {
    // Joint axis z at the origin; the rod hangs along −y (gravity −y) at q = 0.
    let joint = Joint::new(
        "pivot",
        JointKind::Revolute,
        Pose::identity(),
        pose(Vec3::new(0.0, 0.5, 0.0), Quat::identity()),
    );
    let link = Link::new(
        "rod",
        None,
        joint,
        1.0,
        Vec3::new(1.0 / 12.0, 1e-4, 1.0 / 12.0),
    );
    let tree = Tree::new(vec![link]).unwrap();
    let mut ws = Workspace::new(1);
    let mut qdd = [0.0];
    let applied = AppliedForces::zero(1, 1);
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    tree.forward_dynamics(
        &[30f64.to_radians()],
        &[0.0],
        &[0.0],
        &applied,
        &gravity,
        &mut ws,
        &mut qdd,
    );
    // The digest's value; the identity itself is exact to rounding.
    assert!((qdd[0] - (-7.3575)).abs() < 1e-12, "q̈ = {}", qdd[0]);
}

/// A simple (physical) pendulum's small-angle period equals 2π√(I_pivot / (m g d)) within
/// 0.1 % (closed form; 0.5° amplitude makes the finite-amplitude correction θ₀²/16 ≈ 5e-6).
#[test]
fn pendulum_small_angle_period() {
    let (length, width, mass, g) = (0.8, 0.05, 1.3, 9.81);
    let rod = box_link(
        "rod",
        Vec3::new(width, width, length),
        mass,
        Vec3::new(0.0, 0.0, -length / 2.0),
        Quat::identity(),
    );
    let mut joint = JointDesc::new(
        "pivot",
        JointKind::Revolute,
        "world",
        "rod",
        Vec3::zeros(),
        Vec3::y(),
    );
    let amplitude = 0.5f64.to_radians();
    joint.initial_position = vec![amplitude];
    let mut mb = build(
        MultibodyDesc {
            name: "pendulum".into(),
            links: vec![rod],
            joints: vec![joint],
            controllers: vec![],
        },
        Vec3::new(0.0, 0.0, -g),
    );
    let d = length / 2.0;
    let i_pivot = mass * (length * length + width * width) / 12.0 + mass * d * d;
    let expected = std::f64::consts::TAU * (i_pivot / (mass * g * d)).sqrt();
    // Downward zero crossings of the angle, by linear interpolation between 1 ms samples.
    let dt = 1e-3;
    let mut crossings = Vec::new();
    let mut previous = mb.q()[0];
    for k in 1..=8000 {
        let t = k as f64 * dt;
        mb.advance_to(t).unwrap();
        let angle = mb.q()[0];
        if previous > 0.0 && angle <= 0.0 {
            crossings.push(t - dt + dt * previous / (previous - angle));
        }
        previous = angle;
    }
    assert!(crossings.len() >= 4, "{crossings:?}");
    let periods = crossings.len() - 1;
    let measured = (crossings[periods] - crossings[0]) / periods as f64;
    let error = (measured - expected).abs() / expected;
    println!("pendulum period {measured} s, closed form {expected} s, relative error {error:e}");
    assert!(error < 1e-3, "period {measured} vs {expected}");
}

fn triple_pendulum() -> Multibody {
    // Three rods hanging from a pivot, released horizontal-ish (high potential energy), no
    // damping (the thesis's S15 pendulum is undamped).
    let lengths = [0.5, 0.4, 0.3];
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let mut top = 0.0;
    for (i, &l) in lengths.iter().enumerate() {
        let name = format!("rod{i}");
        links.push(box_link(
            &name,
            Vec3::new(0.03, 0.03, l),
            1.0 + 0.3 * i as f64,
            Vec3::new(0.0, 0.0, top - l / 2.0),
            Quat::identity(),
        ));
        let parent = if i == 0 {
            "world".to_string()
        } else {
            format!("rod{}", i - 1)
        };
        let mut j = JointDesc::new(
            format!("j{i}"),
            JointKind::Revolute,
            parent,
            name,
            Vec3::new(0.0, 0.0, top),
            Vec3::y(),
        );
        j.initial_position = vec![[80f64, 30.0, -50.0][i].to_radians()];
        j.initial_velocity = vec![[0.5, -1.0, 2.0][i]];
        joints.push(j);
        top -= l;
    }
    build(
        MultibodyDesc {
            name: "triple".into(),
            links,
            joints,
            controllers: vec![],
        },
        Vec3::new(0.0, 0.0, -9.81),
    )
}

/// The passive triple pendulum conserves energy to 1e-6 relative over 10 s (relative to the
/// largest kinetic energy reached, the energy it trades back and forth).
#[test]
fn triple_pendulum_conserves_energy() {
    let mut mb = triple_pendulum();
    let e0 = mb.kinetic_energy() + mb.potential_energy();
    let mut worst: f64 = 0.0;
    let mut max_kinetic: f64 = 0.0;
    for k in 1..=1000 {
        mb.advance_to(k as f64 * 0.01).unwrap();
        max_kinetic = max_kinetic.max(mb.kinetic_energy());
        worst = worst.max((mb.kinetic_energy() + mb.potential_energy() - e0).abs());
    }
    let relative = worst / max_kinetic;
    println!(
        "triple pendulum: energy drift {worst:e} J over 10 s, relative {relative:e}, {:?} steps",
        mb.counters()
    );
    assert!(relative < 1e-6, "relative drift {relative:e}");
}

/// A random tree mixing every joint kind, floating base, springs (no dampers), zero gravity:
/// energy, linear momentum and angular momentum are all conserved (springs are internal forces).
#[test]
fn floating_tree_conserves_momentum_and_energy() {
    let kinds = [
        JointKind::Revolute,
        JointKind::Prismatic,
        JointKind::Cylindrical,
        JointKind::Helical { pitch: 0.05 },
        JointKind::Spherical,
        JointKind::Planar,
        JointKind::Fixed,
    ];
    let (base_link, mut base) = floating_base(Vec3::new(0.3, 0.2, 0.1), 2.0, Vec3::zeros());
    let mut links = vec![base_link];
    base.initial_velocity = vec![0.3, -0.2, 0.5, 0.1, 0.2, -0.3];
    let mut joints = vec![base];
    for (i, kind) in kinds.iter().enumerate() {
        let name = format!("l{i}");
        let parent = if i < 3 {
            "base".to_string()
        } else {
            format!("l{}", i - 2)
        };
        let centre = Vec3::new(
            0.2 * (i as f64 + 1.0),
            0.1 * (i % 3) as f64,
            -0.05 * i as f64,
        );
        links.push(box_link(
            &name,
            Vec3::new(0.1, 0.15, 0.2),
            0.5 + 0.1 * i as f64,
            centre,
            Quat::identity(),
        ));
        let axis = Vec3::new(0.3, 1.0 - 0.1 * i as f64, 0.2 * i as f64);
        let mut j = JointDesc::new(
            format!("j{i}"),
            *kind,
            parent,
            name,
            centre - Vec3::new(0.05, 0.0, 0.0),
            axis,
        );
        let nv = kind.nv();
        j.initial_velocity = (0..nv).map(|k| 0.5 - 0.3 * k as f64).collect();
        if kind.has_scalar_coordinates() || *kind == JointKind::Spherical {
            // A spherical joint's spring is isotropic about the reference orientation.
            let rest = if *kind == JointKind::Spherical {
                0.0
            } else {
                0.1
            };
            j.passive.stiffness = vec![3.0; nv];
            j.passive.rest = vec![rest; nv];
        }
        joints.push(j);
    }
    let mut mb = build(
        MultibodyDesc {
            name: "tree".into(),
            links,
            joints,
            controllers: vec![],
        },
        Vec3::zeros(),
    );
    let e0 = mb.kinetic_energy() + mb.potential_energy();
    let (p0, l0) = mb.momentum();
    let mut worst_e: f64 = 0.0;
    let mut worst_p: f64 = 0.0;
    let mut worst_l: f64 = 0.0;
    for k in 1..=200 {
        mb.advance_to(k as f64 * 0.01).unwrap();
        let (p, l) = mb.momentum();
        worst_e = worst_e.max((mb.kinetic_energy() + mb.potential_energy() - e0).abs() / e0);
        worst_p = worst_p.max((p - p0).norm() / p0.norm());
        worst_l = worst_l.max((l - l0).norm() / l0.norm());
    }
    println!(
        "floating tree, 2 s: energy {worst_e:e}, linear momentum {worst_p:e}, angular momentum {worst_l:e} (relative)"
    );
    assert!(worst_e < 1e-7 && worst_p < 1e-8 && worst_l < 1e-8);
}

/// A floating single body is a rigid body: its ABA acceleration is Euler's equations
/// (α = −I⁻¹(ω × I ω), a = g) exactly, and its motion matches the rigid body's free flight.
#[test]
fn floating_single_body_obeys_eulers_equations() {
    let mut link = box_link(
        "block",
        Vec3::new(0.1, 0.3, 0.5),
        2.0,
        Vec3::new(1.0, 2.0, 3.0),
        Quat::identity(),
    );
    link.pose = pose(
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_euler_angles(0.3, -0.4, 0.9),
    );
    let w0 = Vec3::new(1.5, -2.0, 0.7);
    let v0 = Vec3::new(0.2, 0.1, 3.0);
    let mut joint = JointDesc::new(
        "free",
        JointKind::Floating,
        "world",
        "block",
        Vec3::zeros(),
        Vec3::z(),
    );
    joint.initial_velocity = vec![w0.x, w0.y, w0.z, v0.x, v0.y, v0.z];
    let gravity = Vec3::new(0.0, 0.0, -9.81);
    let mut mb = build(
        MultibodyDesc {
            name: "free".into(),
            links: vec![link.clone()],
            joints: vec![joint],
            controllers: vec![],
        },
        gravity,
    );
    // Acceleration at t = 0 in the body frame: v̇ = [α; a_O − ω × v] for body coordinates.
    let moments = mb.tree().links()[0].principal_inertia;
    let r = mb.link_pose(0).rotation;
    let w_body = r.inverse() * w0;
    let alpha = -(w_body.cross(&moments.component_mul(&w_body))).component_div(&moments);
    let v_dot = mb.v_dot();
    let alpha_abk = Vec3::new(v_dot[0], v_dot[1], v_dot[2]);
    assert!(
        (alpha_abk - alpha).norm() < 1e-12 * alpha.norm(),
        "{alpha_abk:?} vs {alpha:?}"
    );
    let (a, _) = mb.link_acceleration(0);
    assert!(
        (a - gravity).norm() < 1e-12 * gravity.norm(),
        "COM acceleration {a:?}"
    );
    // Against the rigid body's free flight (Euler's equations + closed-form translation).
    let mut world = impulse::World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    });
    let mut body = link;
    body.velocity = v0;
    body.angular_velocity = w0;
    let id = world.add_body(body).unwrap();
    for k in 1..=50 {
        let t = k as f64 * 0.1;
        mb.advance_to(t).unwrap();
        world.advance_to(t).unwrap();
        let s = world.body(id).state();
        let p = mb.link_pose(0);
        assert!((p.translation.vector - s.position).norm() < 1e-8, "t = {t}");
        assert!(
            p.rotation.angle_to(&s.orientation) < 1e-8,
            "t = {t}: {}",
            p.rotation.angle_to(&s.orientation)
        );
    }
}

fn slider(kp: f64, kv: f64, ki: f64) -> (Multibody, f64) {
    // A 2 kg block on a vertical prismatic joint (axis +z), gravity −z, held by a joint
    // controller at 1 kHz with target 0.
    let mass = 2.0;
    let block = box_link(
        "block",
        Vec3::new(0.1, 0.1, 0.1),
        mass,
        Vec3::zeros(),
        Quat::identity(),
    );
    let joint = JointDesc::new(
        "slide",
        JointKind::Prismatic,
        "world",
        "block",
        Vec3::zeros(),
        Vec3::z(),
    );
    let mut pid = JointPid::pd("slide", kp, kv, 0.0, 1000.0);
    pid.ki = ki;
    let mb = build(
        MultibodyDesc {
            name: "slider".into(),
            links: vec![block],
            joints: vec![joint],
            controllers: vec![Box::new(pid)],
        },
        Vec3::new(0.0, 0.0, -9.81),
    );
    (mb, mass * 9.81)
}

/// V23: a PD-controlled prismatic joint holding a weight settles at q_des − m g / k_p (the
/// thesis's static error m g / k_p, §5.4.1), and a PID with k_i > 0 removes it.
#[test]
fn pd_static_error_and_pid_convergence() {
    let (kp, kv) = (400.0, 40.0);
    let (mut pd, weight) = slider(kp, kv, 0.0);
    pd.advance_to(5.0).unwrap();
    let expected = -weight / kp;
    let error = (pd.q()[0] - expected).abs() / expected.abs();
    println!(
        "PD: q = {} m, −mg/k_p = {expected} m (relative error {error:e})",
        pd.q()[0]
    );
    assert!(error < 1e-9, "q = {}, expected {expected}", pd.q()[0]);
    assert_eq!(
        pd.counters().2,
        5001,
        "a 1 kHz controller updates 5001 times in [0, 5]"
    );

    let (mut pid, _) = slider(kp, kv, 1000.0);
    pid.advance_to(20.0).unwrap();
    println!("PID: q = {} m after 20 s", pid.q()[0]);
    assert!(pid.q()[0].abs() < 1e-6 * weight / kp, "q = {}", pid.q()[0]);
}
