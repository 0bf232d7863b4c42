//! Free motion against closed-form mechanics and conservation laws.

use impulse::dynamics::{BodyDesc, MassSpec};
use impulse::geometry::Shape;
use impulse::math::{Quat, Vec3, pose};
use impulse::{World, WorldSettings};

fn world(gravity: Vec3) -> World {
    World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    })
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn projectile_follows_the_parabola() {
    // c(t) = c0 + v0 t + ½ (g + F/m) t², exactly (Mirtich App. A); sampled at many times through
    // the public API, including a constant force and an off-centre model origin.
    let g = Vec3::new(0.0, 0.0, -9.81);
    let mut w = world(g);
    let mut desc = BodyDesc::new(
        "stone",
        Shape::Box {
            half_extents: Vec3::new(0.1, 0.2, 0.3),
        },
    );
    desc.mass = MassSpec::Mass(2.0);
    desc.shapes[0].pose = pose(Vec3::new(0.3, 0.0, 0.0), Quat::identity());
    desc.pose = pose(
        Vec3::new(1.0, -2.0, 5.0),
        Quat::from_euler_angles(0.2, 0.1, -0.3),
    );
    desc.velocity = Vec3::new(3.0, 1.0, 12.0);
    desc.force = Vec3::new(0.5, 0.0, 0.0);
    let c0 = (desc.pose * impulse::math::Point::new(0.3, 0.0, 0.0)).coords;
    let id = w.add_body(desc).unwrap();
    let a = g + Vec3::new(0.25, 0.0, 0.0);
    for k in 1..=300 {
        let t = k as f64 * 0.01;
        w.advance_to(t).unwrap();
        let s = w.body(id).state();
        let expected = c0 + Vec3::new(3.0, 1.0, 12.0) * t + 0.5 * a * t * t;
        let expected_v = Vec3::new(3.0, 1.0, 12.0) + a * t;
        assert!(
            (s.position - expected).norm() <= 1e-12 * expected.norm(),
            "t={t}"
        );
        assert!((s.velocity - expected_v).norm() <= 1e-12 * expected_v.norm());
    }
}

fn asymmetric_body(w: &mut World, omega: Vec3) -> impulse::BodyId {
    // Box with distinct principal moments, spinning freely.
    let mut desc = BodyDesc::new(
        "tumbler",
        Shape::Box {
            half_extents: Vec3::new(0.5, 1.0, 1.5),
        },
    );
    desc.mass = MassSpec::Mass(3.0);
    desc.pose = pose(Vec3::zeros(), Quat::from_euler_angles(0.3, -0.2, 0.9));
    desc.angular_velocity = omega;
    w.add_body(desc).unwrap()
}

#[test]
fn torque_free_body_conserves_angular_momentum_and_energy() {
    // No torque: world angular momentum L and kinetic energy are invariants of Euler's equations.
    // Over 100 s of tumbling they must hold to 1e-9 relative.
    let mut w = world(Vec3::zeros());
    let id = asymmetric_body(&mut w, Vec3::new(1.3, -2.1, 0.7));
    let l0 = w.body(id).angular_momentum();
    let e0 = w.body(id).kinetic_energy();
    let mut worst_l: f64 = 0.0;
    let mut worst_e: f64 = 0.0;
    for k in 1..=1000 {
        w.advance_to(k as f64 * 0.1).unwrap();
        let body = w.body(id);
        worst_l = worst_l.max((body.angular_momentum() - l0).norm() / l0.norm());
        worst_e = worst_e.max(rel(body.kinetic_energy(), e0));
    }
    assert!(worst_l < 1e-9, "angular momentum drifted by {worst_l:e}");
    assert!(worst_e < 1e-9, "kinetic energy drifted by {worst_e:e}");
}

#[test]
fn symmetric_top_precesses_at_the_closed_form_rate() {
    // Torque-free axisymmetric body (I1 = I2 ≠ I3): in the body frame ω circles the symmetry axis
    // at Ω = (I3 − I1)/I1 · ω3, with ω3 constant (e.g. Goldstein §5.6).
    let mut w = world(Vec3::zeros());
    let (radius, half_height) = (0.4, 1.2);
    let mut desc = BodyDesc::new(
        "top",
        Shape::Cylinder {
            radius,
            half_height,
        },
    );
    desc.mass = MassSpec::Mass(1.0);
    let omega_body = Vec3::new(0.6, 0.0, 5.0);
    desc.angular_velocity = omega_body;
    let id = w.add_body(desc).unwrap();
    let inertia = w.body(id).principal_inertia();
    let (i1, i3) = (inertia.x, inertia.z);
    let rate = (i3 - i1) / i1 * omega_body.z;
    for k in 1..=200 {
        let t = k as f64 * 0.05;
        w.advance_to(t).unwrap();
        let s = w.body(id).state();
        let wb = s.orientation.inverse() * s.angular_velocity;
        let expected = Vec3::new(0.6 * (rate * t).cos(), 0.6 * (rate * t).sin(), omega_body.z);
        assert!((wb - expected).norm() < 1e-8, "t={t}: {wb} vs {expected}");
    }
}

/// Largest angle (radians) the body axis `axis` makes with its starting world direction.
fn max_axis_excursion(omega_body_axis: usize) -> f64 {
    let mut w = world(Vec3::zeros());
    let mut omega = Vec3::repeat(0.01);
    omega[omega_body_axis] = 4.0;
    let mut desc = BodyDesc::new(
        "handle",
        Shape::Box {
            half_extents: Vec3::new(0.5, 1.0, 1.5),
        },
    );
    desc.mass = MassSpec::Mass(1.0);
    desc.angular_velocity = omega;
    let id = w.add_body(desc).unwrap();
    let mut axis = Vec3::zeros();
    axis[omega_body_axis] = 1.0;
    let start = w.body(id).state().orientation * axis;
    let mut worst: f64 = 0.0;
    for k in 1..=600 {
        w.advance_to(k as f64 * 0.05).unwrap();
        let now = w.body(id).state().orientation * axis;
        worst = worst.max(now.angle(&start));
    }
    worst
}

#[test]
fn intermediate_axis_flips_and_the_others_are_stable() {
    // Dzhanibekov effect: a box with half-extents (0.5, 1, 1.5) has I_z < I_y < I_x... principal
    // moments m(b²+c²)/3 give I_x = 3.25m/3, I_y = 2.5m/3, I_z = 1.25m/3, so y is intermediate.
    // Spun about y with a 0.25% perturbation, its y axis turns over (≈π); spun about x or z it
    // stays within a few degrees.
    let flip = max_axis_excursion(1);
    assert!(
        flip > 3.0,
        "intermediate axis should flip, max excursion {flip}"
    );
    for axis in [0, 2] {
        let excursion = max_axis_excursion(axis);
        assert!(
            excursion < 0.05,
            "axis {axis} should be stable, max excursion {excursion}"
        );
    }
}

#[test]
fn sampling_times_do_not_change_the_motion() {
    // The same flight sampled at 1 Hz and at 997 Hz arrives at bit-identical states.
    let run = |samples: u32| {
        let mut w = world(Vec3::new(0.0, 0.0, -9.81));
        let id = asymmetric_body(&mut w, Vec3::new(1.3, -2.1, 0.7));
        for k in 1..=samples {
            w.advance_to(10.0 * k as f64 / samples as f64).unwrap();
        }
        *w.body(id).state()
    };
    let coarse = run(10);
    let fine = run(9970);
    assert_eq!(coarse, fine);
}

#[test]
fn overflowing_spin_is_rejected_when_the_body_is_added() {
    // ω × Iω overflows already at t = 0: the body must be refused, naming it.
    let mut w = world(Vec3::zeros());
    let mut desc = BodyDesc::new(
        "tumbler",
        Shape::Box {
            half_extents: Vec3::new(0.5, 1.0, 1.5),
        },
    );
    desc.angular_velocity = Vec3::new(1e160, 1e159, 0.0);
    let error = w.add_body(desc).unwrap_err();
    assert!(error.to_string().contains("tumbler"), "{error}");
}

#[test]
fn bad_shape_dimensions_are_refused_when_the_body_is_added() {
    // Built through the API, not a scene file: a negative radius and a box too thin for its
    // corners to span a volume (it panicked in the collision model) are errors naming the body.
    for (shape, expected) in [
        (Shape::Sphere { radius: -1.0 }, "radius must be a positive"),
        (
            Shape::Box {
                half_extents: Vec3::new(5e-13, 15.0, 0.5),
            },
            "thinner than 1e-6",
        ),
    ] {
        let mut w = world(Vec3::new(0.0, 0.0, -9.81));
        let error = w.add_body(BodyDesc::new("sliver", shape)).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("sliver") && message.contains(expected),
            "{message}"
        );
        assert!(w.bodies().is_empty());
    }
}

#[test]
fn unintegrable_spin_stops_the_run_with_an_error_naming_the_body() {
    // A spin of 1e20 rad/s needs steps below 1e-21 s, under what f64 time can resolve: the
    // integrator must give up with an error naming the body, never loop or emit NaN.
    let mut w = world(Vec3::zeros());
    asymmetric_body(&mut w, Vec3::new(1e20, 1e19, 0.0));
    let error = w.advance_to(1.0).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("tumbler") && message.contains("step size"),
        "{message}"
    );
    assert_eq!(w.time(), 0.0, "the clock stays at the last good time");
}

#[test]
fn settings_out_of_range_stop_the_run_before_it_starts() {
    // Built through the API, not a scene file (whose reader refuses these at the key): each
    // setting out of its range is an error naming it, before any time passes. A negative
    // envelope used to run silently; one of 1e308 ran for ever.
    type Spoil = fn(&mut WorldSettings);
    let cases: [(Spoil, &str); 8] = [
        (|s| s.collision_epsilon = -1e-3, "collision_epsilon"),
        (|s| s.collision_epsilon = 1e308, "collision_epsilon"),
        (|s| s.gravity.z = f64::NAN, "gravity"),
        (|s| s.integrator.relative = 0.0, "integrator"),
        (|s| s.default_material.restitution = 1.5, "default_material"),
        (
            |s| s.microcollision_max_restitution = 0.5,
            "microcollision_max_restitution",
        ),
        (|s| s.box_period = f64::INFINITY, "box_period"),
        (|s| s.sleep.time = -1.0, "sleep.time"),
    ];
    for (spoil, setting) in cases {
        let mut settings = WorldSettings::default();
        spoil(&mut settings);
        let mut w = World::new(settings);
        // A 10 cm ball: the envelope of 1e308 is larger than it.
        let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.05 });
        ball.velocity = Vec3::new(1.0, 0.0, 0.0);
        w.add_body(ball).unwrap();
        let message = w.advance_to(0.1).unwrap_err().to_string();
        assert!(message.contains(&format!("`{setting}`")), "{message}");
        assert_eq!(w.time(), 0.0, "no time passes: {message}");
    }
}

#[test]
fn out_of_range_materials_and_sleep_are_refused_and_change_nothing() {
    // Pair overrides and sleep settings are set after the world is built; the checks are
    // those of bodies' materials (μ ≥ 0, 0 ≤ e ≤ 1) and of the settings.
    let mut w = world(Vec3::new(0.0, 0.0, -9.81));
    let a = w
        .add_body(BodyDesc::new("a", Shape::Sphere { radius: 0.1 }))
        .unwrap();
    let mut desc = BodyDesc::new("b", Shape::Sphere { radius: 0.1 });
    desc.pose = pose(Vec3::new(1.0, 0.0, 0.0), Quat::identity());
    let b = w.add_body(desc).unwrap();
    let before = w.contact_material(a, b);
    let sticky = impulse::Material {
        friction: -0.2,
        restitution: 0.5,
    };
    let error = w.set_pair_material(a, b, sticky).unwrap_err();
    assert!(error.to_string().contains("friction"), "{error}");
    let bouncy = impulse::Material {
        friction: 0.2,
        restitution: f64::NAN,
    };
    let error = w.set_material_pair("rubber", "steel", bouncy).unwrap_err();
    assert!(error.to_string().contains("restitution"), "{error}");
    assert_eq!(w.contact_material(a, b), before);
    let mut sleep = w.settings().sleep;
    sleep.speed = Some(0.0);
    let error = w.set_sleep(sleep).unwrap_err();
    assert!(error.to_string().contains("sleep.speed"), "{error}");
    assert_eq!(w.settings().sleep, impulse::Sleep::default());
}

/// A 2 kg block pushed by a constant 3 N force in free space, under an energy bound.
fn pushed_block(bound: impulse::EnergyBound) -> World {
    let mut w = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        energy_bound: bound,
        ..WorldSettings::default()
    });
    let mut desc = BodyDesc::new(
        "pushed",
        Shape::Box {
            half_extents: Vec3::new(0.1, 0.1, 0.1),
        },
    );
    desc.mass = MassSpec::Mass(2.0);
    desc.force = Vec3::new(3.0, 0.0, 0.0);
    w.add_body(desc).unwrap();
    w
}

#[test]
fn an_energy_rise_beyond_the_bound_stops_the_run_naming_the_body() {
    // The force does work F·x = F²t²/(2m), so a rise of 10 J is passed at
    // t* = √(2 m · 10)/F = 2.108 s: the first 0.01 s frame after it stops the run.
    let mut w = pushed_block(impulse::EnergyBound::Gain(10.0));
    let crossing = (2.0f64 * 2.0 * 10.0).sqrt() / 3.0;
    let mut stopped = None;
    for k in 1..=400 {
        if let Err(error) = w.advance_to(k as f64 * 0.01) {
            stopped = Some((k as f64 * 0.01, error.to_string()));
            break;
        }
    }
    let (t, message) = stopped.expect("the rise passes 10 J at 2.108 s");
    assert!(t >= crossing && t < crossing + 0.01, "stopped at {t}");
    assert!(
        message.contains("`pushed`") && message.contains("energy_bound"),
        "{message}"
    );
    // The same push under the automatic bound: a force drives the world, so it is not checked.
    let mut w = pushed_block(impulse::EnergyBound::Auto);
    w.advance_to(4.0).unwrap();
    assert!(
        w.energy().kinetic > 30.0,
        "(3 N · 4 s)² / (2 · 2 kg) = 36 J"
    );
}
