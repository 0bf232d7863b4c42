//! Points held on curves and surfaces beyond the paper's line and plane (issue 36): a helix, a
//! polyline, a natural cubic spline and a cylinder, each against a closed form, with the
//! constraint forces doing no work and the joints held.

mod common;

use common::assemblies::{assert_no_work, in_cube, joint, random_pose_body};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, Handedness, Primitive};
use impulse::math::Vec3;
use rand::SeedableRng;
use rand_pcg::Pcg64;

const G: f64 = 9.81;

fn settings() -> AssemblySettings {
    AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3)
}

/// A bead of mass 1 (its point at the centre of mass, so its turning is its own business).
fn bead(at: Vec3) -> AssemblyBodyDesc {
    AssemblyBodyDesc::new("bead", 1.0, Vec3::new(1e-4, 1e-4, 1e-4), at)
}

/// A frictionless bead on a helix (radius R, rise h per radian) falls along it at
/// s̈ = g sin α, tan α = h/R, the lead angle: the reduced one-degree-of-freedom dynamics. After
/// 2 s from rest: s = ½ g sin α t², drop s sin α, turn s cos α / R (downwards the turn is
/// negative for a right-handed helix, positive for a left-handed one); position to 1e-9 m.
/// The reaction is m(a − g) with a = s̈ T + κ v² N (κ = R/(R² + h²), N towards the axis), to
/// 1e-7 N; the forces do no work (power < 1e-9 of its terms, energy kept to 1e-9 J), and the
/// bead stays on the helix (gap < 1e-12 m).
#[test]
fn bead_on_a_helix_slides_at_g_sin_lead_angle() {
    let (r, lead) = (0.5, 0.8);
    let h = lead / std::f64::consts::TAU;
    let alpha = (h / r).atan();
    for (handedness, sign) in [(Handedness::Right, -1.0), (Handedness::Left, 1.0)] {
        let helix = Primitive::PointOnHelix {
            point: Vec3::new(r, 0.0, 0.0),
            center: Vec3::new(0.0, 0.0, 0.0),
            axis: Vec3::z(),
            radius: r,
            lead,
            handedness,
        };
        let mut asm = Assembly::new(
            settings(),
            vec![bead(Vec3::new(r, 0.0, 0.0))],
            vec![joint("helix", 0, None, helix)],
        )
        .unwrap();
        assert_eq!(asm.row_count(), 2);
        let e0 = asm.energy();
        let mut turn = 0.0_f64;
        let mut last = 0.0_f64;
        for k in 1..=2000 {
            asm.advance_to(k as f64 * 1e-3).unwrap();
            let p = asm.bodies()[0].pose().translation.vector;
            let angle = p.y.atan2(p.x);
            turn += (angle - last + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                - std::f64::consts::PI;
            last = angle;
        }
        let t = asm.time();
        let s = 0.5 * G * alpha.sin() * t * t;
        let p = asm.bodies()[0].pose().translation.vector;
        let expect_turn = sign * s * alpha.cos() / r;
        let expect = Vec3::new(
            r * expect_turn.cos(),
            r * expect_turn.sin(),
            -s * alpha.sin(),
        );
        assert!(
            (p - expect).norm() < 1e-9,
            "{handedness:?}: at {p:?}, expected {expect:?}"
        );
        assert!(
            (turn - expect_turn).abs() < 1e-9,
            "turn {turn} vs {expect_turn}"
        );
        // The reaction m(a − g): tangent T along the motion, N towards the axis.
        let v = G * alpha.sin() * t;
        let radial = Vec3::new(expect_turn.cos(), expect_turn.sin(), 0.0);
        let across = Vec3::z().cross(&radial);
        let tangent = (across * (sign * alpha.cos()) - Vec3::z() * alpha.sin()).normalize();
        let kappa = r / (r * r + h * h);
        let a = tangent * (G * alpha.sin()) - radial * (kappa * v * v);
        let (force, _) = asm.joint_reactions().unwrap()[0];
        let expect_force = a - Vec3::new(0.0, 0.0, -G);
        assert!(
            (force - expect_force).norm() < 1e-7,
            "{handedness:?}: reaction {force:?}, expected {expect_force:?}"
        );
        let (power, scale) = asm.constraint_power().unwrap();
        assert!(power.abs() < 1e-9 * scale, "power {power} of {scale}");
        assert!((asm.energy() - e0).abs() < 1e-9, "ΔE {}", asm.energy() - e0);
        assert!(asm.max_gap() < 1e-12, "gap {}", asm.max_gap());
    }
}

/// A bead on a vertical cylinder (radius R), started along it horizontally at v₀: the cylinder
/// takes only the radial pull, so the bead circles at v₀ (angle v₀t/R) while falling freely
/// (z = −½gt²), pressed on by m v₀²/R towards the axis. Position to 1e-9 m and reaction to
/// 1e-7 N after 1 s; no work; gap < 1e-12.
#[test]
fn bead_on_a_cylinder_circles_while_falling_freely() {
    let (r, v0) = (0.4, 1.5);
    let mut b = bead(Vec3::new(r, 0.0, 0.0));
    b.velocity = Vec3::new(0.0, v0, 0.0);
    let cylinder = Primitive::PointOnCylinder {
        point: Vec3::new(r, 0.0, 0.0),
        origin: Vec3::new(0.0, 0.0, 3.0),
        axis: Vec3::new(0.0, 0.0, -2.0),
        radius: r,
    };
    let mut asm =
        Assembly::new(settings(), vec![b], vec![joint("wall", 0, None, cylinder)]).unwrap();
    assert_eq!(asm.row_count(), 1);
    let e0 = asm.energy();
    asm.advance_to(1.0).unwrap();
    let t = asm.time();
    let angle = v0 * t / r;
    let expect = Vec3::new(r * angle.cos(), r * angle.sin(), -0.5 * G * t * t);
    let p = asm.bodies()[0].pose().translation.vector;
    assert!((p - expect).norm() < 1e-9, "at {p:?}, expected {expect:?}");
    let (force, _) = asm.joint_reactions().unwrap()[0];
    let inward = -Vec3::new(angle.cos(), angle.sin(), 0.0) * (v0 * v0 / r);
    assert!((force - inward).norm() < 1e-7, "reaction {force:?}");
    let (power, scale) = asm.constraint_power().unwrap();
    assert!(power.abs() < 1e-9 * scale, "power {power} of {scale}");
    assert!((asm.energy() - e0).abs() < 1e-9);
    assert!(asm.max_gap() < 1e-12, "gap {}", asm.max_gap());
}

/// A bead coasting (no gravity) at 1 m/s along a polyline whose second segment turns 30°:
/// at the corner it keeps only the speed along the new segment, cos 30° = 0.8660254 m/s (a
/// perfectly inelastic kink), and is then exactly where that motion puts it (1e-12 m); the
/// constraint did the work −½ m v² sin² 30° = −0.125 J (1e-12), so energy balances.
#[test]
fn bead_through_a_polyline_corner_keeps_the_speed_along_the_new_segment() {
    let turn = 30f64.to_radians();
    let corner = Vec3::new(1.0, 0.0, 0.0);
    let d2 = Vec3::new(turn.cos(), turn.sin(), 0.0);
    let points = vec![
        Vec3::zeros(),
        corner,
        corner + d2,
        corner + d2 * 2.0 + Vec3::new(0.0, 0.5, 0.0),
    ];
    // The corner is reached at 0.7997 s, inside a step.
    let start = Vec3::new(0.2003, 0.0, 0.0);
    let mut b = bead(start);
    b.velocity = Vec3::x();
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![b],
        vec![joint(
            "wire",
            0,
            None,
            Primitive::PointOnPolyline {
                point: start,
                points,
            },
        )],
    )
    .unwrap();
    asm.advance_to(0.5).unwrap();
    assert!((asm.bodies()[0].velocity() - Vec3::x()).norm() < 1e-12);
    asm.advance_to(1.5).unwrap();
    let v = asm.bodies()[0].velocity();
    assert!((v - d2 * turn.cos()).norm() < 1e-12, "velocity {v:?}");
    let p = asm.bodies()[0].pose().translation.vector;
    let expect = corner + d2 * (turn.cos() * (1.5 - 0.7997));
    assert!((p - expect).norm() < 1e-12, "at {p:?}, expected {expect:?}");
    let lost = -0.5 * turn.sin().powi(2);
    assert!(
        (asm.constraint_work() - lost).abs() < 1e-12,
        "work {}",
        asm.constraint_work()
    );
    assert!((asm.kinetic_energy() - 0.5 - lost).abs() < 1e-12);
}

/// A bead on a wavy natural spline under gravity, from rest, run for 1.5 s at step `step`:
/// the largest relative error of its speed against √(2g(z₀ − z)) over 150 frames, the largest
/// x it reached, and its largest joint gap.
fn spline_run(step: f64) -> (f64, f64, f64) {
    let points = vec![
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(0.5, 0.1, 0.4),
        Vec3::new(1.0, -0.1, 0.1),
        Vec3::new(1.6, 0.0, 0.3),
        Vec3::new(2.2, 0.3, 0.0),
        Vec3::new(2.8, 0.2, 0.8),
    ];
    let start = points[0];
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), step),
        vec![bead(start)],
        vec![joint(
            "track",
            0,
            None,
            Primitive::PointOnSpline {
                point: start,
                points,
            },
        )],
    )
    .unwrap();
    let mut furthest = 0.0_f64;
    let mut worst = 0.0_f64;
    for k in 1..=150 {
        asm.advance_to(0.01 * k as f64).unwrap();
        let body = &asm.bodies()[0];
        let z = body.pose().translation.vector.z;
        let expect = (2.0 * G * (start.z - z)).sqrt();
        worst = worst.max((body.velocity().norm() - expect).abs() / (1.0 + expect));
        furthest = furthest.max(body.pose().translation.vector.x);
    }
    (worst, furthest, asm.max_gap())
}

/// A bead on a wavy natural spline keeps its energy (the constraint does no work): its speed at
/// every frame is √(2g(z₀ − z)) to 2e-5 relative at 1 ms steps (measured 1.6e-5; the track
/// bends sharply for speeds of 4 m/s), and the error is the integrator's: halving the step
/// divides it by more than 16 (RK4's fourth order; measured 27). The bead runs over the knots
/// (past x = 2.2) and stays on the spline (gap < 1e-12).
#[test]
fn bead_on_a_spline_keeps_its_energy() {
    let (coarse, furthest, gap) = spline_run(1e-3);
    let (fine, _, _) = spline_run(5e-4);
    println!("spline bead: speed error {coarse:e} at 1 ms, {fine:e} at 0.5 ms");
    assert!(coarse < 2e-5, "speed error {coarse}");
    assert!(
        coarse / fine > 16.0,
        "not fourth order: {coarse} then {fine}"
    );
    assert!(
        furthest > 2.2,
        "the bead should pass the low knots ({furthest})"
    );
    assert!(gap < 1e-12, "gap {gap}");
}

/// The no-work property for the new curves and the cylinder, as `assembly::constraint_forces_do_no_work`
/// checks it for the others: random poses and velocities, between two moving bodies (the curve
/// carried by B) and against the world, power below 1e-9 of its terms at the start and after
/// 0.2 s, work over the run below 1e-6 of the kinetic energy, and the joint gap below 1e-12.
#[test]
fn curves_and_cylinders_do_no_work() {
    let mut rng = Pcg64::seed_from_u64(3636);
    for trial in 0..6 {
        let mut r = || in_cube(&mut rng);
        let (p, axis, c, q1, q2) = (r(), r().normalize(), r(), r(), r());
        let rel = p - c;
        let radius = (rel - axis * axis.dot(&rel)).norm();
        let primitives = vec![
            Primitive::PointOnHelix {
                point: p,
                center: c,
                axis,
                radius,
                lead: 0.4,
                handedness: Handedness::Right,
            },
            Primitive::PointOnCylinder {
                point: p,
                origin: c,
                axis,
                radius,
            },
            // p on the middle of a polyline's second segment.
            Primitive::PointOnPolyline {
                point: p,
                points: vec![q1 - (q2 - p) * 0.3, p - (q2 - p), q2],
            },
            Primitive::PointOnSpline {
                point: p,
                points: vec![q1, p + (q1 - q2) * 0.2, p, q2, q2 + axis],
            },
        ];
        for primitive in primitives {
            let name = primitive.name();
            // A polyline's kink angle may be random; skip shapes the checks refuse.
            for to_world in [false, true] {
                let mut rng2 = Pcg64::seed_from_u64(trial);
                let bodies = vec![
                    random_pose_body(&mut rng2, "a"),
                    random_pose_body(&mut rng2, "b"),
                ];
                let b = if to_world { None } else { Some(1) };
                let mut asm = match Assembly::new(
                    settings(),
                    bodies,
                    vec![joint(name, 0, b, primitive.clone())],
                ) {
                    Ok(a) => a,
                    Err(e) if name == "point_on_polyline" && e.to_string().contains("turns") => {
                        continue;
                    }
                    Err(e) => panic!("{name}: {e}"),
                };
                assert_no_work(&mut asm, name);
                assert!(asm.max_gap() < 1e-12, "{name}: gap {}", asm.max_gap());
            }
        }
    }
}

/// Degenerate curves are refused with the key and what was wrong: a zero radius, a zero lead,
/// fewer than two points, a repeated point, a point on the helix's axis.
#[test]
fn degenerate_curves_are_refused() {
    let build = |primitive: Primitive| {
        Assembly::new(
            settings(),
            vec![bead(Vec3::new(1.0, 0.0, 0.0))],
            vec![joint("j", 0, None, primitive)],
        )
        .unwrap_err()
        .to_string()
    };
    let helix = |radius: f64, lead: f64, point: Vec3| Primitive::PointOnHelix {
        point,
        center: Vec3::zeros(),
        axis: Vec3::z(),
        radius,
        lead,
        handedness: Handedness::Right,
    };
    let e = build(helix(0.0, 1.0, Vec3::x()));
    assert!(e.contains("`radius`") && e.contains("positive"), "{e}");
    let e = build(helix(1.0, 0.0, Vec3::x()));
    assert!(e.contains("`lead`") && e.contains("point_on_circle"), "{e}");
    let e = build(helix(1.0, 1.0, Vec3::z()));
    assert!(e.contains("axis"), "{e}");
    let e = build(Primitive::PointOnSpline {
        point: Vec3::x(),
        points: vec![Vec3::x()],
    });
    assert!(e.contains("at least 2"), "{e}");
    let e = build(Primitive::PointOnPolyline {
        point: Vec3::x(),
        points: vec![Vec3::zeros(), Vec3::x(), Vec3::x()],
    });
    assert!(e.contains("repeats"), "{e}");
    let e = build(Primitive::PointOnCylinder {
        point: Vec3::x(),
        origin: Vec3::zeros(),
        axis: Vec3::zeros(),
        radius: 1.0,
    });
    assert!(e.contains("`axis`") && e.contains("zero"), "{e}");
}
