//! A material per solid (issue 36): each assembly body with shapes, and each fixed solid, may
//! carry its own restitution and friction; a contact takes the mean of its two solids' values,
//! the world's rule for two bodies with no pair override (`Material::mean`). Checked against
//! the closed-form bounce heights, and the keys at load.

mod common;

use std::path::Path as FilePath;

use common::assemblies::assert_first_error;
use impulse::assembly::scene::parse;
use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings};
use impulse::dynamics::{Material, PlacedShape};
use impulse::geometry::Shape;
use impulse::math::{Pose, Vec3};

const G: f64 = 9.81;

/// Each ball's highest gap above the floor after its first bounce: from the first sample at
/// which it rises (ballistic from then on), gap + v²/2g (exact for a free flight, which RK4
/// integrates exactly), taken before its second bounce.
fn apex_after_bounce(sim: &mut AssemblyWithSolids, radius: f64, until: f64) -> Vec<f64> {
    let n = sim.assembly.bodies().len();
    let mut apex = vec![f64::NAN; n];
    let mut step = 0;
    while apex.iter().any(|a| a.is_nan()) && sim.time() < until {
        step += 1;
        sim.advance_to(step as f64 * 1e-3).unwrap();
        for (b, a) in apex.iter_mut().enumerate() {
            let body = &sim.assembly.bodies()[b];
            let v = body.velocity().z;
            let gap = body.pose().translation.vector.z - radius;
            if a.is_nan() && v > 0.0 && gap > 0.01 {
                *a = gap + v * v / (2.0 * G);
            }
        }
    }
    apex
}

/// Two balls (m = 1, r = 0.1, frictionless, far apart) dropped from rest with their lowest
/// points h₀ = 1 m above a floor of restitution 0.7: one of restitution 0.9, the other 0.5,
/// so the contacts' restitutions are the means e = 0.8 and 0.6 (a third ball with no material
/// of its own takes `ContactSettings`' 0.3, so e = 0.5). A contact is located where the gap is
/// ε/2 (ε = 1e-3), at the speed v = √(2g(h₀ − ε/2)), and a frictionless central impact leaves
/// at e v: the apex gap is ε/2 + e²(h₀ − ε/2) = 0.640180, 0.360320 and 0.250375 m (1e-6 m; 4e-11
/// measured: the contact is located in time to 1e-7 of a step).
#[test]
fn balls_of_different_restitution_bounce_to_their_closed_form_heights() {
    let (m, r, h0, eps) = (1.0, 0.1, 1.0, 1e-3);
    let ball = |name: &str, x: f64| {
        AssemblyBodyDesc::new(
            name,
            m,
            Vec3::repeat(0.4 * m * r * r),
            Vec3::new(x, 0.0, r + h0),
        )
    };
    let assembly = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3),
        vec![ball("lively", 0.0), ball("dull", 1.0), ball("plain", 2.0)],
        vec![],
    )
    .unwrap();
    let sphere = || vec![PlacedShape::new(Shape::Sphere { radius: r })];
    let solid = |name: &str, body: usize| Solid {
        name: name.into(),
        body: Some(body),
        shapes: sphere(),
        pose: Pose::identity(),
    };
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![
            solid("lively", 0),
            solid("dull", 1),
            solid("plain", 2),
            Solid {
                name: "floor".into(),
                body: None,
                shapes: vec![PlacedShape::new(Shape::HalfSpace)],
                pose: Pose::identity(),
            },
        ],
        ContactSettings {
            restitution: 0.3,
            friction: 0.0,
            envelope: eps,
        },
        &[],
        &[],
    )
    .unwrap();
    let material = |e: f64| Material {
        friction: 0.0,
        restitution: e,
    };
    sim.set_material(0, material(0.9)).unwrap();
    sim.set_material(1, material(0.5)).unwrap();
    sim.set_material(3, material(0.7)).unwrap();
    assert_eq!(sim.contact_material(0, 3).restitution, 0.8);
    assert_eq!(sim.contact_material(2, 3).restitution, 0.5);
    // A material out of range is refused, naming the solid.
    let e = sim.set_material(1, material(1.5)).unwrap_err().to_string();
    assert!(e.contains("dull") && e.contains("restitution"), "{e}");
    let apex = apex_after_bounce(&mut sim, r, 2.0);
    for (b, e) in [0.8, 0.6, 0.5].into_iter().enumerate() {
        let expect = eps / 2.0 + e * e * (h0 - eps / 2.0);
        assert!(
            (apex[b] - expect).abs() < 1e-6,
            "ball {b}: apex {} vs {expect}",
            apex[b]
        );
    }
}

const SCENE: &str = r#"
[world]
gravity = [0, 0, -9.81]
[assembly]
[contact]
restitution = 0.3
[[bodies]]
name = "lively"
mass = 1
position = [0, 0, 1.1]
shape = { type = "sphere", radius = 0.1 }
restitution = 0.9
[[bodies]]
name = "dull"
mass = 1
position = [1, 0, 1.1]
shape = { type = "sphere", radius = 0.1 }
restitution = 0.5
friction = 0.2
[[fixed]]
name = "floor"
shape = { type = "halfspace" }
restitution = 0.7
"#;

/// The scene keys: `restitution` and `friction` on `[[bodies]]` with shapes and on `[[fixed]]`
/// build solids with those materials (one given alone takes `[contact]`'s other value), and the
/// balls bounce to the heights of the test above (friction does nothing in a central impact);
/// a restitution outside [0, 1], a negative friction, and either key on a body without shapes
/// are reported at the key and line.
#[test]
fn solid_material_keys_are_checked_at_load() {
    let scene = parse(FilePath::new("m.toml"), SCENE).unwrap();
    let mut sim = scene.with_solids().unwrap();
    let (lively, dull, floor) = (sim.material(0), sim.material(1), sim.material(2));
    assert_eq!((lively.restitution, lively.friction), (0.9, 0.0));
    assert_eq!((dull.restitution, dull.friction), (0.5, 0.2));
    assert_eq!((floor.restitution, floor.friction), (0.7, 0.0));
    assert_eq!(sim.contact_material(1, 2).friction, 0.1);
    let apex = apex_after_bounce(&mut sim, 0.1, 2.0);
    for (b, e) in [0.8, 0.6].into_iter().enumerate() {
        let expect = 5e-4 + e * e * (1.0 - 5e-4);
        assert!((apex[b] - expect).abs() < 1e-6, "ball {b}: {apex:?}");
    }
    assert_first_error(
        &SCENE.replace("restitution = 0.9", "restitution = 1.5"),
        "bodies[0].restitution",
        12,
        "in [0, 1]",
    );
    assert_first_error(
        &SCENE.replace("friction = 0.2", "friction = -0.2"),
        "bodies[1].friction",
        19,
        "≥ 0",
    );
    assert_first_error(
        &SCENE.replace("restitution = 0.7", "restitution = nan"),
        "fixed[0].restitution",
        23,
        "finite",
    );
    let bare = SCENE.replace(
        "shape = { type = \"sphere\", radius = 0.1 }\nrestitution = 0.9",
        "inertia = [0.004, 0.004, 0.004]\nrestitution = 0.9",
    );
    assert_first_error(
        &bare,
        "bodies[0].restitution",
        12,
        "give the body a `shape`",
    );
}

/// Two contacts of one body answered together with different materials: a bar (m = 1,
/// I = m a²/3 about its centre across it, ends a = 0.5 from the centre carrying spheres of
/// r = 0.05) falls flat at v = 2 m/s, without gravity, onto two fixed pads of restitution
/// e₁ = 0.5 (under x = −a) and e₂ = 0.7 (under x = +a), frictionless. The simultaneous solve
/// (compression, then Poisson restitution e_k P_k at each contact): compression stops both
/// ends with P = m v/2 each, restitution adds e₁P and e₂P, so the bar leaves at
/// (e₁ + e₂) v/2 = 1.2 m/s turning at ω_y = −(e₂ − e₁) P a/I = −3(e₂ − e₁) v/(2a) = −1.2 rad/s
/// (both ends then separate: −a end at 0.6, +a end at 1.8 m/s, so no fix-up), to 1e-9.
#[test]
fn two_contacts_with_different_materials_rebound_as_poisson_says() {
    let (m, a, r, v) = (1.0, 0.5, 0.05, 2.0);
    let i = m * a * a / 3.0;
    let mut bar = AssemblyBodyDesc::new("bar", m, Vec3::new(0.01, i, i), Vec3::new(0.0, 0.0, 0.5));
    bar.velocity = Vec3::new(0.0, 0.0, -v);
    let assembly = Assembly::new(
        AssemblySettings::with_step(Vec3::zeros(), 1e-3),
        vec![bar],
        vec![],
    )
    .unwrap();
    let end = |x: f64| PlacedShape {
        pose: Pose::translation(x, 0.0, 0.0),
        ..PlacedShape::new(Shape::Sphere { radius: r })
    };
    let pad = |name: &str, x: f64| Solid {
        name: name.into(),
        body: None,
        shapes: vec![PlacedShape::new(Shape::Box {
            half_extents: Vec3::repeat(0.1),
        })],
        pose: Pose::translation(x, 0.0, 0.3),
    };
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![
            Solid {
                name: "bar".into(),
                body: Some(0),
                shapes: vec![end(-a), end(a)],
                pose: Pose::identity(),
            },
            pad("left", -a),
            pad("right", a),
        ],
        ContactSettings {
            restitution: 1.0,
            friction: 0.0,
            envelope: 1e-3,
        },
        &[],
        &[],
    )
    .unwrap();
    // The bar's own material is the settings' e = 1: the pads' 0 and 0.4 make means 0.5, 0.7.
    let pad_material = |e: f64| Material {
        friction: 0.0,
        restitution: e,
    };
    sim.set_material(1, pad_material(0.0)).unwrap();
    sim.set_material(2, pad_material(0.4)).unwrap();
    sim.advance_to(0.1).unwrap();
    let bar = &sim.assembly.bodies()[0];
    let (e1, e2) = (0.5, 0.7);
    let expect_v = (e1 + e2) * v / 2.0;
    let expect_w = -3.0 * (e2 - e1) * v / (2.0 * a);
    assert!(
        (bar.velocity() - Vec3::new(0.0, 0.0, expect_v)).norm() < 1e-9,
        "{:?}",
        bar.velocity()
    );
    assert!(
        (bar.angular_velocity() - Vec3::new(0.0, expect_w, 0.0)).norm() < 1e-9,
        "{:?}",
        bar.angular_velocity()
    );
}
