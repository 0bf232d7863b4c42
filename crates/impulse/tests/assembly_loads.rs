//! Drivers and passive loads on assemblies (issue 36): a spring-damper between two bodies'
//! points, a torque prescribed in time, and a joint angle driven along θ(t) — each against its
//! closed form.

mod common;

use common::assemblies::joint;
use impulse::assembly::{
    Assembly, AssemblyBodyDesc, AssemblySettings, LoadDesc, LoadKind, Primitive, Profile,
};
use impulse::math::{Quat, Vec3};

const G: f64 = 9.81;

/// `body` alone on a frictionless prismatic guide (joint `guide`) along `axis` through its
/// centre, without gravity, in 1 ms steps.
fn on_guide(body: AssemblyBodyDesc, guide: &str, axis: Vec3) -> Assembly {
    let anchor = body.position;
    Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![body],
        vec![joint(guide, 0, None, Primitive::Prismatic { anchor, axis })],
    )
    .unwrap()
}

fn spring(a: usize, b: Option<usize>, pa: Vec3, pb: Vec3, k: f64, c: f64, l0: f64) -> LoadDesc {
    LoadDesc {
        name: "spring".into(),
        a,
        b,
        kind: LoadKind::Spring {
            point_a: pa,
            point_b: pb,
            stiffness: k,
            damping: c,
            rest_length: l0,
        },
    }
}

/// A block of mass m = 2 on a prismatic guide along x, tied to the origin by a spring
/// (k = 50, rest length 1) and pulled out to x = 1.2: x = 1 + 0.2 cos ωt with ω = √(k/m) =
/// 5 rad/s. Position at every millisecond for 5 s to 1e-9 m; the period between downward
/// crossings of the rest point, 2π√(m/k) = 1.2566371 s, to 1e-8 s; energy balances (the spring's
/// energy is the work it did, 1e-9 J).
#[test]
fn spring_mass_oscillates_with_period_2pi_sqrt_m_over_k() {
    let (m, k): (f64, f64) = (2.0, 50.0);
    let omega = (k / m).sqrt();
    let start = Vec3::new(1.2, 0.0, 0.0);
    let block = AssemblyBodyDesc::new("block", m, Vec3::new(0.1, 0.1, 0.1), start);
    let mut asm = on_guide(block, "guide", Vec3::x());
    asm.add_load(spring(0, None, start, Vec3::zeros(), k, 0.0, 1.0))
        .unwrap();
    let e0 = asm.energy();
    let mut crossings = Vec::new();
    let mut worst = 0.0_f64;
    let mut last = 0.2_f64;
    for step in 1..=5000 {
        asm.advance_to(step as f64 * 1e-3).unwrap();
        let t = asm.time();
        let b = &asm.bodies()[0];
        let x = b.pose().translation.vector.x - 1.0;
        worst = worst.max((x - 0.2 * (omega * t).cos()).abs());
        if last > 0.0 && x <= 0.0 {
            // One Newton step back to the crossing (the motion is nearly straight there).
            crossings.push(t - x / b.velocity().x);
        }
        last = x;
    }
    assert!(worst < 1e-9, "off the closed form by {worst}");
    let period = std::f64::consts::TAU * (m / k).sqrt();
    assert!(crossings.len() >= 3);
    for w in crossings.windows(2) {
        assert!(
            (w[1] - w[0] - period).abs() < 1e-8,
            "period {} vs {period}",
            w[1] - w[0]
        );
    }
    let balance = asm.energy() - e0 - asm.applied_work() - asm.constraint_work();
    assert!(balance.abs() < 1e-9, "balance {balance}");
}

/// The same block with a damper c = 2 (ζ = c / 2√(km) = 0.1): x − 1 = 0.2 e^{−ζωt} (cos ω_d t +
/// ζ/√(1 − ζ²) sin ω_d t), ω_d = ω√(1 − ζ²), to 1e-9 m over 3 s; the damper's work is the
/// energy lost (balance to 1e-9 J).
#[test]
fn damped_spring_decays_as_the_closed_form() {
    let (m, k, c): (f64, f64, f64) = (2.0, 50.0, 2.0);
    let omega = (k / m).sqrt();
    let zeta = c / (2.0 * (k * m).sqrt());
    let wd = omega * (1.0 - zeta * zeta).sqrt();
    let start = Vec3::new(1.2, 0.0, 0.0);
    let block = AssemblyBodyDesc::new("block", m, Vec3::new(0.1, 0.1, 0.1), start);
    let mut asm = on_guide(block, "guide", Vec3::x());
    asm.add_load(spring(0, None, start, Vec3::zeros(), k, c, 1.0))
        .unwrap();
    let e0 = asm.energy();
    let mut worst = 0.0_f64;
    for step in 1..=300 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let x = asm.bodies()[0].pose().translation.vector.x - 1.0;
        let expect = 0.2
            * (-zeta * omega * t).exp()
            * ((wd * t).cos() + zeta / (1.0 - zeta * zeta).sqrt() * (wd * t).sin());
        worst = worst.max((x - expect).abs());
    }
    assert!(worst < 1e-9, "off the closed form by {worst}");
    // Kinetic plus spring energy decays about as e^{−2ζωt} = e^{−3} (to 0.05 of the start).
    let x = asm.bodies()[0].pose().translation.vector.x - 1.0;
    let left = asm.kinetic_energy() + 0.5 * k * x * x;
    assert!(
        left < 0.1 * 0.5 * k * 0.04,
        "the damper should take most of it ({left})"
    );
    let balance = asm.energy() - e0 - asm.applied_work() - asm.constraint_work();
    assert!(balance.abs() < 1e-9, "balance {balance}");
}

/// Two free bodies (m₁ = 1, m₂ = 3) tied by a spring (k = 12, rest 1) between points off their
/// centres, stretched along the line of the points, at rest: the stretch oscillates at
/// ω = √(k/μ), μ = m₁m₂/(m₁ + m₂) = 0.75 (4 rad/s), the centre of mass stays put (1e-12 m) and
/// no body turns (the force passes through both centres' line; ω < 1e-12).
#[test]
fn spring_between_two_bodies_oscillates_about_their_centre_of_mass() {
    let (m1, m2, k): (f64, f64, f64) = (1.0, 3.0, 12.0);
    let mu = m1 * m2 / (m1 + m2);
    let omega = (k / mu).sqrt();
    // Centres at x = 0 and 1.9, points 0.25 inside each: stretch 1.4 − 1 = 0.4.
    let a = AssemblyBodyDesc::new("a", m1, Vec3::new(0.1, 0.2, 0.3), Vec3::zeros());
    let b = AssemblyBodyDesc::new("b", m2, Vec3::new(0.3, 0.2, 0.1), Vec3::new(1.9, 0.0, 0.0));
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![a, b],
        Vec::new(),
    )
    .unwrap();
    asm.add_load(spring(
        0,
        Some(1),
        Vec3::new(0.25, 0.0, 0.0),
        Vec3::new(1.65, 0.0, 0.0),
        k,
        0.0,
        1.0,
    ))
    .unwrap();
    let mut worst = 0.0_f64;
    for step in 1..=200 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let (xa, xb) = (
            asm.bodies()[0].pose().translation.vector,
            asm.bodies()[1].pose().translation.vector,
        );
        let stretch = (xb.x - xa.x - 0.5) - 1.0;
        worst = worst.max((stretch - 0.4 * (omega * t).cos()).abs());
        let centre = (xa * m1 + xb * m2) / (m1 + m2);
        assert!((centre - Vec3::new(1.9 * 0.75, 0.0, 0.0)).norm() < 1e-12);
        for body in asm.bodies() {
            assert!(body.angular_velocity().norm() < 1e-12);
        }
    }
    assert!(worst < 1e-9, "off the closed form by {worst}");
}

/// A body hinged at its centre about z, driven by τ(t) = 0.5 + 0.3t about z from the world:
/// θ = (0.25 t² + 0.05 t³)/I_zz (I_zz = 0.2) after 2 s, to 1e-9 rad. The same torque between two
/// free bodies turns them opposite ways with their total angular momentum zero (1e-12).
#[test]
fn prescribed_torque_turns_a_hinged_body_as_integrated() {
    let izz = 0.2;
    let wheel = AssemblyBodyDesc::new("wheel", 1.0, Vec3::new(0.1, 0.15, izz), Vec3::zeros());
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3),
        vec![wheel],
        vec![joint(
            "axle",
            0,
            None,
            Primitive::Revolute {
                anchor: Vec3::zeros(),
                axis: Vec3::z(),
            },
        )],
    )
    .unwrap();
    let torque = |a, b| LoadDesc {
        name: "motor".into(),
        a,
        b,
        kind: LoadKind::Torque {
            axis: Vec3::new(0.0, 0.0, 2.0),
            torque: Profile::Polynomial(vec![0.5, 0.3]),
        },
    };
    asm.add_load(torque(0, None)).unwrap();
    asm.advance_to(2.0).unwrap();
    let t: f64 = 2.0;
    let x = asm.bodies()[0].pose().rotation * Vec3::x();
    let expect = (0.25 * t * t + 0.05 * t.powi(3)) / izz;
    let angle = x.y.atan2(x.x);
    let diff = (angle - expect + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
        - std::f64::consts::PI;
    assert!(diff.abs() < 1e-9, "angle {angle} vs {expect} (mod 2π)");
    let rate = asm.bodies()[0].angular_velocity().z;
    assert!((rate - (0.5 * t + 0.15 * t * t) / izz).abs() < 1e-9);

    let a = AssemblyBodyDesc::new("a", 1.0, Vec3::new(0.1, 0.15, 0.2), Vec3::zeros());
    let mut b = AssemblyBodyDesc::new("b", 2.0, Vec3::new(0.3, 0.3, 0.3), Vec3::x());
    b.orientation = Quat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.5));
    let mut pair = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![a, b],
        Vec::new(),
    )
    .unwrap();
    pair.add_load(torque(0, Some(1))).unwrap();
    pair.advance_to(1.0).unwrap();
    let total = pair.bodies()[0].angular_momentum() + pair.bodies()[1].angular_momentum();
    assert!(total.norm() < 1e-12, "total angular momentum {total:?}");
    // B's angular momentum is −∫τ dt along its (turning) axis: |L_b| = 0.5 + 0.15 = 0.65.
    assert!((pair.bodies()[1].angular_momentum().norm() - 0.65).abs() < 1e-12);
}

/// A rod (m = 1, L = 1, r = 0.05) hinged at one end about z, gravity along −y, driven by an
/// angle driver θ(t) = t²: it follows θ(t) (1e-9 rad), and the driver's torque is
/// I_p θ̈ + m g (L/2) cos θ with I_p = m(3r² + L²)/12 + m(L/2)² = 0.3339583 (1e-7 N·m), and the
/// constraints' work is the rise of energy (the hinge does none; 1e-6 relative).
#[test]
fn driven_revolute_follows_its_angle_with_the_torque_it_needs() {
    let (m, l, r) = (1.0, 1.0, 0.05);
    let across = m * (3.0 * r * r + l * l) / 12.0;
    let rod = AssemblyBodyDesc::new(
        "rod",
        m,
        Vec3::new(m * r * r / 2.0, across, across),
        Vec3::new(0.5, 0.0, 0.0),
    );
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, -G, 0.0), 1e-3),
        vec![rod],
        vec![
            joint(
                "hinge",
                0,
                None,
                Primitive::Revolute {
                    anchor: Vec3::zeros(),
                    axis: Vec3::z(),
                },
            ),
            joint(
                "motor",
                0,
                None,
                Primitive::AngleDriver {
                    axis: Vec3::z(),
                    angle: Profile::Polynomial(vec![0.0, 0.0, 1.0]),
                },
            ),
        ],
    )
    .unwrap();
    let e0 = asm.energy();
    let ip = across + m * (l / 2.0).powi(2);
    let mut worst_angle = 0.0_f64;
    let mut worst_torque = 0.0_f64;
    for step in 1..=150 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let x = asm.bodies()[0].pose().rotation * Vec3::x();
        let theta = t * t;
        let diff = (x.y.atan2(x.x) - theta + std::f64::consts::PI)
            .rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        worst_angle = worst_angle.max(diff.abs());
        let (_, torque) = asm.joint_reactions().unwrap()[1];
        let expect = ip * 2.0 + m * G * (l / 2.0) * theta.cos();
        worst_torque = worst_torque.max((torque - Vec3::z() * expect).norm());
    }
    assert!(worst_angle < 1e-9, "angle off by {worst_angle}");
    assert!(worst_torque < 1e-7, "torque off by {worst_torque}");
    let rise = asm.energy() - e0;
    assert!(
        (asm.constraint_work() - rise).abs() < 1e-6 * rise.abs(),
        "work {} vs rise {rise}",
        asm.constraint_work()
    );
}

/// A slide driver: a block (m = 2) on a guide along x, tied to the origin by a spring (k = 50,
/// rest length 1), starts at x₀ = 1.2 and is driven along s(t) = 0.5 t² + 0.2 t³. It follows
/// x₀ + s(t) (1e-10 m), and the driver's force along the guide is what Newton's law asks for a
/// prescribed motion, m s̈ + k (x − 1) with s̈ = 1 + 1.2 t (1e-9 N), with nothing across it
/// (the guide takes that); the driver's work is the energy it put in (the rise of kinetic
/// energy minus the spring's work, 1e-6 relative).
#[test]
fn slide_driver_pushes_with_m_x_ddot_plus_the_load() {
    let (m, k) = (2.0, 50.0);
    let start = Vec3::new(1.2, 0.0, 0.0);
    let block = AssemblyBodyDesc::new("block", m, Vec3::new(0.1, 0.1, 0.1), start);
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![block],
        vec![
            joint(
                "guide",
                0,
                None,
                Primitive::Prismatic {
                    anchor: start,
                    axis: Vec3::x(),
                },
            ),
            joint(
                "drive",
                0,
                None,
                Primitive::SlideDriver {
                    anchor: start,
                    axis: Vec3::x(),
                    position: Profile::Polynomial(vec![0.0, 0.0, 0.5, 0.2]),
                },
            ),
        ],
    )
    .unwrap();
    asm.add_load(spring(0, None, start, Vec3::zeros(), k, 0.0, 1.0))
        .unwrap();
    let e0 = asm.energy();
    let mut worst_x = 0.0_f64;
    let mut worst_force = 0.0_f64;
    for step in 1..=200 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let x = asm.bodies()[0].pose().translation.vector.x;
        worst_x = worst_x.max((x - (1.2 + 0.5 * t * t + 0.2 * t.powi(3))).abs());
        let (force, _) = asm.joint_reactions().unwrap()[1];
        let expect = m * (1.0 + 1.2 * t) + k * (x - 1.0);
        worst_force = worst_force.max((force - Vec3::x() * expect).norm());
    }
    assert!(worst_x < 1e-10, "position off by {worst_x}");
    assert!(worst_force < 1e-9, "force off by {worst_force}");
    let put_in = asm.energy() - e0 - asm.applied_work();
    assert!(
        (asm.constraint_work() - put_in).abs() < 1e-6 * put_in.abs(),
        "work {} vs {put_in}",
        asm.constraint_work()
    );
}

/// Kalra's piston force with its switches located as events. A block (m = 1) on a vertical
/// guide, held by a spring (k = 40) about z = 0, is a piston in a cylinder from z = −0.1
/// (bottom) to 0.1 (top) with F_max = 20: while it moves down it is pushed down by
/// F_max (z + 0.1)/0.2, while it moves up by nothing. From rest at the top the motion is
/// piecewise harmonic: firing, z̈ = −140 z − 10 (ω₂ = √140, about −1/14) for half a period
/// down; idle, z̈ = −40 z (ω₁ = √40) for half a period up; and so on, each half starting at rest
/// where the last ended. Followed for 3 s (seven switches), to 1e-8 m at every millisecond;
/// the energy balances (1e-8 J).
#[test]
fn piston_force_switches_at_the_top_and_bottom_as_events() {
    let (m, k, f, stroke): (f64, f64, f64, f64) = (1.0, 40.0, 20.0, 0.2);
    let top = Vec3::new(0.0, 0.0, 0.1);
    let block = AssemblyBodyDesc::new("piston", m, Vec3::new(0.1, 0.1, 0.1), top);
    let mut asm = on_guide(block, "cylinder", Vec3::z());
    asm.add_load(spring(0, None, top, Vec3::new(0.0, 0.0, -1.0), k, 0.0, 1.0))
        .unwrap();
    asm.add_load(LoadDesc {
        name: "fire".into(),
        a: 0,
        b: None,
        kind: LoadKind::Piston {
            point: top,
            top,
            bottom: -top,
            force: f,
        },
    })
    .unwrap();
    let e0 = asm.energy();
    // The closed form: (start time, start height, firing) of each half period.
    let (w1, w2) = ((k / m).sqrt(), ((k + f / stroke) / m).sqrt());
    let centre = -(f / stroke) * 0.1 / (k + f / stroke);
    let mut halves = vec![(0.0, 0.1, true)];
    while halves.last().unwrap().0 < 3.0 {
        let &(t, z, firing) = halves.last().unwrap();
        halves.push(if firing {
            (t + std::f64::consts::PI / w2, 2.0 * centre - z, false)
        } else {
            (t + std::f64::consts::PI / w1, -z, true)
        });
    }
    let at = |t: f64| {
        let &(t0, z0, firing) = halves.iter().rev().find(|h| h.0 <= t).unwrap();
        if firing {
            centre + (z0 - centre) * (w2 * (t - t0)).cos()
        } else {
            z0 * (w1 * (t - t0)).cos()
        }
    };
    let mut worst = 0.0_f64;
    for step in 1..=3000 {
        asm.advance_to(step as f64 * 1e-3).unwrap();
        let z = asm.bodies()[0].pose().translation.vector.z;
        worst = worst.max((z - at(asm.time())).abs());
    }
    println!("piston: largest error {worst:e} m");
    assert!(halves.len() > 7, "{} switches", halves.len() - 1);
    assert!(worst < 1e-8, "off the closed form by {worst}");
    assert_eq!(asm.steps(), 3000);
    let balance = asm.energy() - e0 - asm.applied_work() - asm.constraint_work();
    assert!(balance.abs() < 1e-8, "balance {balance}");
}
