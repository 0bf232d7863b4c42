//! Drivers and prescribed trajectories that are not polynomials (issue 36): a harmonic
//! `offset + amplitude·sin(2π f t + phase)` and a table of (time, value) points through which a
//! natural cubic spline passes, for a driven joint angle, a driven slide and a body point's
//! trajectory — each against its closed form, and their scene keys checked at load.

mod common;

use std::f64::consts::{PI, TAU};
use std::path::Path as FilePath;

use common::assemblies::{assert_first_error, joint, scene_errors};
use impulse::assembly::scene::parse;
use impulse::assembly::{
    Assembly, AssemblyBodyDesc, AssemblySettings, LoadDesc, LoadKind, Path, Primitive, Profile,
    TimeTable,
};
use impulse::math::Vec3;

const G: f64 = 9.81;

/// A body's centre on a harmonic trajectory, each coordinate its own swing:
/// r(t) = (1 + 0.3 sin(π t), 0.5 + 0.2 sin(2π t + π/2), 0.1 sin(π t / 2)), under gravity
/// −9.81 ŷ, started at rest (the start's velocity is projected onto ṙ(0)). Every 10 ms over
/// 4 s: the centre is at r(t) (1e-9 m), moves at the closed form's derivative ṙ(t)
/// (1e-9 m/s), accelerates at r̈(t) (1e-8 m/s²), and the trajectory's force is m r̈ − m g
/// (1e-8 N; as V8 with a circle).
#[test]
fn a_point_on_a_harmonic_trajectory_follows_r_and_its_derivatives() {
    let m = 2.0;
    let (offset, amplitude) = (Vec3::new(1.0, 0.5, 0.0), Vec3::new(0.3, 0.2, 0.1));
    let (frequency, phase) = (Vec3::new(0.5, 1.0, 0.25), Vec3::new(0.0, PI / 2.0, 0.0));
    // The closed form, coordinate by coordinate.
    let closed = |t: f64| {
        let (mut r, mut v, mut a) = (Vec3::zeros(), Vec3::zeros(), Vec3::zeros());
        for i in 0..3 {
            let w = TAU * frequency[i];
            let arg = w * t + phase[i];
            r[i] = offset[i] + amplitude[i] * arg.sin();
            v[i] = amplitude[i] * w * arg.cos();
            a[i] = -amplitude[i] * w * w * arg.sin();
        }
        (r, v, a)
    };
    let start = closed(0.0).0;
    let body = AssemblyBodyDesc::new("carrier", m, Vec3::new(0.01, 0.02, 0.03), start);
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, -G, 0.0), 1e-3),
        vec![body],
        vec![joint(
            "track",
            0,
            None,
            Primitive::PointOnPath {
                point: start,
                path: Path::Harmonic {
                    offset,
                    amplitude,
                    frequency,
                    phase,
                },
            },
        )],
    )
    .unwrap();
    let (mut worst_r, mut worst_v, mut worst_a, mut worst_f) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for step in 0..=400 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let (r, v, a) = closed(t);
        let body = &asm.bodies()[0];
        worst_r = worst_r.max((body.pose().translation.vector - r).norm());
        worst_v = worst_v.max((body.velocity() - v).norm());
        worst_a = worst_a.max((asm.accelerations().unwrap()[0].0 - a).norm());
        let (force, _) = asm.joint_reactions().unwrap()[0];
        worst_f = worst_f.max((force - (a - Vec3::new(0.0, -G, 0.0)) * m).norm());
    }
    assert!(worst_r < 1e-9, "position off by {worst_r}");
    assert!(worst_v < 1e-9, "velocity off by {worst_v}");
    assert!(worst_a < 1e-8, "acceleration off by {worst_a}");
    assert!(worst_f < 1e-8, "force off by {worst_f}");
}

/// A revolute rod (m = 1, L = 1, r = 0.05, hinged at one end about z, gravity −9.81 ŷ, lying
/// along x at θ = 0) driven harmonically: θ(t) = 0.8 sin(2π·0.5 t). It starts at rest and its
/// velocity is projected onto θ̇(0) = 0.8π. Every 10 ms over 3 s: θ is the closed form
/// (1e-9 rad), ω_z is θ̇ = 0.8π cos πt (1e-9 rad/s), and the driver's torque is what the rod
/// needs, I_p θ̈ + m g (L/2) cos θ with I_p = m(3r² + L²)/12 + m(L/2)² and θ̈ = −0.8π² sin πt
/// (1e-7 N·m, as the polynomial driver's test).
#[test]
fn a_revolute_driven_harmonically_follows_the_angle_with_the_torque_it_needs() {
    let (m, l, r) = (1.0, 1.0, 0.05);
    let across = m * (3.0 * r * r + l * l) / 12.0;
    let rod = AssemblyBodyDesc::new(
        "rod",
        m,
        Vec3::new(m * r * r / 2.0, across, across),
        Vec3::new(0.5, 0.0, 0.0),
    );
    let (amp, f) = (0.8, 0.5);
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
                    angle: Profile::Harmonic {
                        offset: 0.0,
                        amplitude: amp,
                        frequency: f,
                        phase: 0.0,
                    },
                },
            ),
        ],
    )
    .unwrap();
    let ip = across + m * (l / 2.0).powi(2);
    let w = TAU * f;
    let (mut worst_angle, mut worst_rate, mut worst_torque) = (0.0_f64, 0.0_f64, 0.0_f64);
    for step in 0..=300 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let (theta, rate, accel) = (
            amp * (w * t).sin(),
            amp * w * (w * t).cos(),
            -amp * w * w * (w * t).sin(),
        );
        let x = asm.bodies()[0].pose().rotation * Vec3::x();
        worst_angle = worst_angle.max((x.y.atan2(x.x) - theta).abs());
        worst_rate = worst_rate.max((asm.bodies()[0].angular_velocity() - Vec3::z() * rate).norm());
        let (_, torque) = asm.joint_reactions().unwrap()[1];
        let expect = ip * accel + m * G * (l / 2.0) * theta.cos();
        worst_torque = worst_torque.max((torque - Vec3::z() * expect).norm());
    }
    assert!(worst_angle < 1e-9, "angle off by {worst_angle}");
    assert!(worst_rate < 1e-9, "rate off by {worst_rate}");
    assert!(worst_torque < 1e-7, "torque off by {worst_torque}");
}

/// A slide driven by a table: a block (m = 2) on a guide along x, no gravity, driven through
/// 21 samples of s(t) = sin t at equal steps over [0, π] (a curve whose second derivative is
/// zero at both ends, as the natural spline's). Every 10 ms over [0, π]: the block follows the
/// sampled curve sin t (2e-6 m), its velocity is cos t (4e-5 m/s) and the driver's force is
/// m s̈ = −m sin t (2·2.5e-3 N) — the spline's own errors, of order h⁴, h³ and h² with
/// h = π/20 (1.59e-6, 3.10e-5 and 2.00e-3 at these instants, computed from the spline by an
/// independent script; `profile`'s unit test checks them on a fine grid) — and it follows the
/// spline itself to 1e-10 m.
#[test]
fn a_table_driver_reproduces_a_sampled_curve_and_its_derivatives() {
    let m = 2.0;
    let start = Vec3::new(0.3, 0.0, 0.0);
    let times: Vec<f64> = (0..21).map(|i| i as f64 * PI / 20.0).collect();
    let values: Vec<f64> = times.iter().map(|t| t.sin()).collect();
    let table = Profile::Table(TimeTable::new(times, values).unwrap());
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
                    position: table.clone(),
                },
            ),
        ],
    )
    .unwrap();
    let (mut worst_x, mut worst_v, mut worst_f, mut worst_spline) =
        (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for step in 0..=314 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let body = &asm.bodies()[0];
        let s = body.pose().translation.vector.x - start.x;
        worst_x = worst_x.max((s - t.sin()).abs());
        worst_spline = worst_spline.max((s - table.at(t).0).abs());
        worst_v = worst_v.max((body.velocity() - Vec3::x() * t.cos()).norm());
        let (force, _) = asm.joint_reactions().unwrap()[1];
        worst_f = worst_f.max((force - Vec3::x() * (-m * t.sin())).norm());
    }
    assert!(worst_spline < 1e-10, "off the spline by {worst_spline}");
    assert!(worst_x < 2e-6, "position off by {worst_x}");
    assert!(worst_v < 4e-5, "velocity off by {worst_v}");
    assert!(worst_f < 2.0 * 2.5e-3, "force off by {worst_f}");
}

/// A harmonic torque load: a wheel (I = 0.2 about its axle z, no gravity) turned by
/// τ = 0.5 sin(2π·0.5 t) from rest: θ̈ = (τ₀/I) sin ωt, so θ̇ = τ₀/(Iω) (1 − cos ωt) and
/// θ = τ₀/(Iω) (t − sin(ωt)/ω) (ω = π). Every 10 ms over 2 s: angle and rate to 1e-9.
#[test]
fn a_harmonic_torque_turns_a_wheel_as_the_closed_form_says() {
    let (izz, tau0, f) = (0.2, 0.5, 0.5);
    let w = TAU * f;
    let wheel = AssemblyBodyDesc::new("wheel", 1.0, Vec3::new(0.1, 0.1, izz), Vec3::zeros());
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
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
    asm.add_load(LoadDesc {
        name: "motor".into(),
        a: 0,
        b: None,
        kind: LoadKind::Torque {
            axis: Vec3::z(),
            torque: Profile::Harmonic {
                offset: 0.0,
                amplitude: tau0,
                frequency: f,
                phase: 0.0,
            },
        },
    })
    .unwrap();
    let (mut worst_angle, mut worst_rate) = (0.0_f64, 0.0_f64);
    for step in 1..=200 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let theta = tau0 / (izz * w) * (t - (w * t).sin() / w);
        let rate = tau0 / (izz * w) * (1.0 - (w * t).cos());
        let x = asm.bodies()[0].pose().rotation * Vec3::x();
        let diff = (x.y.atan2(x.x) - theta + PI).rem_euclid(TAU) - PI;
        worst_angle = worst_angle.max(diff.abs());
        worst_rate = worst_rate.max((asm.bodies()[0].angular_velocity().z - rate).abs());
    }
    assert!(worst_angle < 1e-9, "angle off by {worst_angle}");
    assert!(worst_rate < 1e-9, "rate off by {worst_rate}");
}

/// A point swinging along an arc: a circle path (centre origin, R = 0.8, normal z, angle 0
/// along x) travelled at a harmonic angle φ = 0.5 sin(2π·0.5 t), gravity −9.81 ŷ, m = 1.5.
/// Closed form: r = R (cos φ, sin φ, 0), ṙ = R φ̇ t̂, r̈ = R (φ̈ t̂ − φ̇² r̂) with t̂ = (−sin φ,
/// cos φ, 0), r̂ = (cos φ, sin φ, 0); the path's force is m r̈ − m g. Every 10 ms over 3 s:
/// position 1e-9 m, velocity 1e-9 m/s, force 1e-8 N.
#[test]
fn a_point_swings_along_a_circle_at_a_harmonic_angle() {
    let (m, r, amp, f) = (1.5, 0.8, 0.5, 0.5);
    let w = TAU * f;
    let start = Vec3::new(r, 0.0, 0.0);
    let body = AssemblyBodyDesc::new("bob", m, Vec3::new(0.01, 0.01, 0.01), start);
    let mut asm = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, -G, 0.0), 1e-3),
        vec![body],
        vec![joint(
            "arc",
            0,
            None,
            Primitive::PointOnPath {
                point: start,
                path: Path::Circle {
                    center: Vec3::zeros(),
                    radius: r,
                    normal: Vec3::z(),
                    start: Vec3::x(),
                    angle: Profile::Harmonic {
                        offset: 0.0,
                        amplitude: amp,
                        frequency: f,
                        phase: 0.0,
                    },
                },
            },
        )],
    )
    .unwrap();
    let (mut worst_r, mut worst_v, mut worst_f) = (0.0_f64, 0.0_f64, 0.0_f64);
    for step in 0..=300 {
        asm.advance_to(step as f64 * 1e-2).unwrap();
        let t = asm.time();
        let (phi, rate, accel) = (
            amp * (w * t).sin(),
            amp * w * (w * t).cos(),
            -amp * w * w * (w * t).sin(),
        );
        let radial = Vec3::new(phi.cos(), phi.sin(), 0.0);
        let tangent = Vec3::new(-phi.sin(), phi.cos(), 0.0);
        let a = (tangent * accel - radial * rate * rate) * r;
        let body = &asm.bodies()[0];
        worst_r = worst_r.max((body.pose().translation.vector - radial * r).norm());
        worst_v = worst_v.max((body.velocity() - tangent * (r * rate)).norm());
        let (force, _) = asm.joint_reactions().unwrap()[0];
        worst_f = worst_f.max((force - (a - Vec3::new(0.0, -G, 0.0)) * m).norm());
    }
    assert!(worst_r < 1e-9, "position off by {worst_r}");
    assert!(worst_v < 1e-9, "velocity off by {worst_v}");
    assert!(worst_f < 1e-8, "force off by {worst_f}");
}

// ---- scene keys ----

const ROD: &str = r#"
[world]
gravity = [0, -9.81, 0]
[assembly]
[[bodies]]
name = "rod"
mass = 1
inertia = [0.00125, 0.0839583, 0.0839583]
position = [0.5, 0, 0]
[[joints]]
type = "revolute"
body = "rod"
anchor = [0, 0, 0]
axis = [0, 0, 1]
[[joints]]
type = "angle_driver"
body = "rod"
axis = [0, 0, 1]
"#;

/// A driver's `angle` (and `position`) as a harmonic or a table builds from the scene file and
/// runs; every bad value is reported at its key and line: a missing amplitude, a negative
/// frequency, an unknown key, an unknown type, times out of order or repeated, a non-finite
/// time, too few points, values that do not match the times, a slide's table with a
/// non-finite value, a torque load's table with repeated times, and a harmonic that does not
/// start at zero (the initial pose violates the driver, with the gap).
#[test]
fn driver_profile_keys_are_checked_at_load() {
    let with = |angle: &str| format!("{ROD}angle = {angle}\n");
    // Line 19 holds `angle` (ROD starts with a newline).
    let good = parse(
        FilePath::new("d.toml"),
        &with("{ type = \"harmonic\", amplitude = 0.5, frequency = 2 }"),
    )
    .unwrap();
    let mut asm = good.assembly;
    asm.advance_to(0.25).unwrap();
    // θ(0.25) = 0.5 sin(2π·2·0.25) = 0.5 sin π = 0 (to the projection's rounding).
    let x = asm.bodies()[0].pose().rotation * Vec3::x();
    assert!(x.y.atan2(x.x).abs() < 1e-9, "{x:?}");
    assert!(
        scene_errors(&with(
            "{ type = \"table\", times = [0, 1, 2], values = [0, 0.5, 0.2] }"
        ))
        .is_empty()
    );
    assert_first_error(
        &with("{ type = \"harmonic\", frequency = 2 }"),
        "joints[1].angle.amplitude",
        19,
        "missing key `amplitude`",
    );
    assert_first_error(
        &with("{ type = \"harmonic\", amplitude = 1, frequency = -2 }"),
        "joints[1].angle.frequency",
        19,
        "a number ≥ 0",
    );
    assert_first_error(
        &with("{ type = \"harmonic\", amplitude = 1, frequency = 2, phse = 1 }"),
        "joints[1].angle.phse",
        19,
        "phase",
    );
    assert_first_error(
        &with("{ type = \"sine\", amplitude = 1, frequency = 2 }"),
        "joints[1].angle.type",
        19,
        "harmonic",
    );
    assert_first_error(
        &with("{ type = \"table\", times = [0, 2, 1], values = [0, 1, 2] }"),
        "joints[1].angle.times",
        19,
        "`times[2]` = 1 is not after `times[1]` = 2",
    );
    assert_first_error(
        &with("{ type = \"table\", times = [0, 1, 1], values = [0, 1, 2] }"),
        "joints[1].angle.times",
        19,
        "increase strictly",
    );
    assert_first_error(
        &with("{ type = \"table\", times = [0, nan], values = [0, 1] }"),
        "joints[1].angle.times[1]",
        19,
        "finite",
    );
    assert_first_error(
        &with("{ type = \"table\", times = [0], values = [0] }"),
        "joints[1].angle.times",
        19,
        "at least 2",
    );
    assert_first_error(
        &with("{ type = \"table\", times = [0, 1, 2], values = [0, 1] }"),
        "joints[1].angle.values",
        19,
        "one value per time",
    );
    assert_first_error(
        &with("{ type = \"harmonic\", amplitude = 0.5, frequency = 2, phase = 1 }"),
        "joints[1]",
        15,
        "violates it by",
    );
    let slide = r#"
[world]
[assembly]
[[bodies]]
name = "block"
mass = 1
inertia = [0.1, 0.1, 0.1]
position = [0, 0, 0]
[[joints]]
type = "prismatic"
body = "block"
anchor = [0, 0, 0]
axis = [1, 0, 0]
[[joints]]
type = "slide_driver"
body = "block"
anchor = [0, 0, 0]
axis = [1, 0, 0]
position = { type = "table", times = [0, 1], values = [0, inf] }
"#;
    assert_first_error(slide, "joints[1].position.values[1]", 19, "finite");
    assert!(scene_errors(&slide.replace("inf", "1")).is_empty());
    // A torque load's `torque` takes the same forms.
    let torque = |value: &str| {
        format!(
            "{}[[loads]]\ntype = \"torque\"\nbody = \"block\"\naxis = [0, 0, 1]\ntorque = {value}\n",
            slide.replace("inf", "1")
        )
    };
    assert!(
        scene_errors(&torque(
            "{ type = \"harmonic\", amplitude = 2, frequency = 1 }"
        ))
        .is_empty()
    );
    assert_first_error(
        &torque("{ type = \"table\", times = [0, 0], values = [1, 2] }"),
        "loads[0].torque.times",
        24,
        "increase strictly",
    );
}

/// A `path` of type harmonic or table builds and its body follows it; bad values are reported
/// at their key and line: a negative frequency, a missing offset, times out of order, points
/// that do not match the times, a path that does not start at the point, and a circle path's
/// `angle` (a harmonic builds; an empty polynomial, which the reader once dropped silently
/// with its joint, and a table short of values are refused).
#[test]
fn path_profile_keys_are_checked_at_load() {
    let scene = |path: &str| {
        format!(
            r#"
[world]
gravity = [0, 0, 0]
[assembly]
[[bodies]]
name = "carrier"
mass = 1
inertia = [0.01, 0.01, 0.01]
position = [1, 0, 0]
[[joints]]
type = "point_on_path"
body = "carrier"
point = [1, 0, 0]
path = {path}
"#
        )
    };
    // A table through (0, [1,0,0]), (1, [2,0,0]), (2, [3,0,0]): the spline is the line
    // x = 1 + t (its second differences vanish), so at t = 1.5 the carrier is at x = 2.5.
    let mut table = parse(
        FilePath::new("p.toml"),
        &scene(
            "{ type = \"table\", times = [0, 1, 2], points = [[1, 0, 0], [2, 0, 0], [3, 0, 0]] }",
        ),
    )
    .unwrap()
    .assembly;
    table.advance_to(1.5).unwrap();
    let x = table.bodies()[0].pose().translation.vector;
    assert!((x - Vec3::new(2.5, 0.0, 0.0)).norm() < 1e-12, "{x:?}");
    assert!(
        scene_errors(&scene(
            "{ type = \"harmonic\", offset = [1, 0, 0], amplitude = [0.1, 0.2, 0], frequency = [1, 1, 0] }"
        ))
        .is_empty()
    );
    assert_first_error(
        &scene(
            "{ type = \"harmonic\", offset = [1, 0, 0], amplitude = [0.1, 0.2, 0], frequency = [1, -1, 0] }",
        ),
        "joints[0].path.frequency",
        14,
        "must not be negative",
    );
    assert_first_error(
        &scene("{ type = \"harmonic\", amplitude = [0.1, 0.2, 0], frequency = [1, 1, 0] }"),
        "joints[0].path.offset",
        14,
        "missing key `offset`",
    );
    assert_first_error(
        &scene("{ type = \"table\", times = [1, 0], points = [[1, 0, 0], [2, 0, 0]] }"),
        "joints[0].path.times",
        14,
        "increase strictly",
    );
    assert_first_error(
        &scene("{ type = \"table\", times = [0, 1, 2], points = [[1, 0, 0], [2, 0, 0]] }"),
        "joints[0].path.points",
        14,
        "one point per time",
    );
    assert_first_error(
        &scene(
            "{ type = \"harmonic\", offset = [1, 0, 0], amplitude = [0.1, 0, 0], frequency = [1, 1, 0], phase = [1, 0, 0] }",
        ),
        "joints[0]",
        10,
        "violates it by",
    );
    // A circle's `angle` takes the driver's forms; an empty polynomial is refused at the key.
    let circle = |angle: &str| {
        scene(&format!(
            "{{ type = \"circle\", center = [0, 0, 0], radius = 1, normal = [0, 0, 1], start = [1, 0, 0], angle = {angle} }}"
        ))
    };
    assert!(
        scene_errors(&circle(
            "{ type = \"harmonic\", amplitude = 0.3, frequency = 1 }"
        ))
        .is_empty()
    );
    assert_first_error(
        &circle("[]"),
        "joints[0].path.angle",
        14,
        "at least one coefficient",
    );
    assert_first_error(
        &circle("{ type = \"table\", times = [0, 1], values = [0] }"),
        "joints[0].path.angle.values",
        14,
        "one value per time",
    );
}
