//! The non-convex scenes of Mirtich's Table 7.1 (§7.1), run from the shipped scene files:
//! balls in a dish of 241 convex pieces (V28/S5), exploding text (S12) and the part feeder
//! chute of insulator caps (S11). Units: cm, g, s.

mod common;

use common::scenes::{self, shipped};
use impulse::math::Vec3;
use impulse::scene::Scene;

fn load(name: &str) -> Scene {
    scenes::load(&shipped(&format!("impulse/{name}")))
}

/// Runs the scene to `until` in 0.01 s steps, checking after each that no pair went deeper
/// into each other than `bound`.
fn run(scene: &mut Scene, until: f64, bound: f64) {
    let steps = (until / 0.01).round() as usize;
    for k in 1..=steps {
        let t = k as f64 * 0.01;
        scene
            .world
            .advance_to(t)
            .unwrap_or_else(|e| panic!("{} at t = {t}: {e}", scene.name));
        let depth = scene.world.max_penetration();
        assert!(
            depth <= bound,
            "{}: penetration {depth} at t = {t}",
            scene.name
        );
    }
}

fn position(scene: &Scene, name: &str) -> Vec3 {
    let id = scene
        .world
        .body_id(name)
        .unwrap_or_else(|| panic!("no body {name}"));
    scene.world.body(id).state().position
}

#[test]
fn balls_in_dish_settle_into_a_hexagonal_cluster() {
    // Digest V28: seven balls dropped into a shallow dish settle, after 5.8 s, into one ball
    // at the centre and six around it, each touching the centre ball and its two neighbours
    // (12 ball-ball contacts), all held by microcollisions.
    let mut scene = load("balls_in_dish.toml");
    let epsilon = scene.world.settings().collision_epsilon;
    // The scene sets no max_penetration: the world's bound is ε_c.
    let duration = scene.duration;
    run(&mut scene, duration, epsilon);
    let r = 1.0; // the scene's ball radius
    let balls: Vec<Vec3> = (1..=7)
        .map(|i| position(&scene, &format!("ball {i}")))
        .collect();
    // Touching: centres 2r apart, to within the collision envelope ε_c (contacts are held
    // anywhere inside it) plus ε_c for each ball's microcollision bounce (it leaves below
    // √(2 g ε_c), eq. 3.18, which rises less than ε_c). Balls of the ring that do not touch
    // are 2r√3 = 3.46 cm apart.
    let touching = |a: &Vec3, b: &Vec3| ((a - b).norm() - 2.0 * r).abs() <= 3.0 * epsilon;
    // The centre ball: nearest the dish's axis, and within half a radius of it. The dish is
    // symmetric about its axis, so the least-energy cluster is centred, but the bottom of a
    // 25 cm sphere is nearly flat and at 5.8 s the cluster is still rolling slowly there
    // (0.27 cm off the axis in our runs).
    let horizontal = |p: &Vec3| p.x.hypot(p.y);
    let centre = (0..7)
        .min_by(|&i, &j| horizontal(&balls[i]).total_cmp(&horizontal(&balls[j])))
        .expect("seven balls");
    assert!(
        horizontal(&balls[centre]) < 0.5 * r,
        "centre ball {} off the axis: {:?}",
        centre + 1,
        balls[centre]
    );
    let ring: Vec<usize> = (0..7).filter(|&i| i != centre).collect();
    for &i in &ring {
        assert!(
            touching(&balls[i], &balls[centre]),
            "ball {} is {} from the centre ball",
            i + 1,
            (balls[i] - balls[centre]).norm()
        );
        let neighbours = ring
            .iter()
            .filter(|&&j| j != i && touching(&balls[i], &balls[j]))
            .count();
        assert_eq!(
            neighbours,
            2,
            "ball {} touches {neighbours} ring balls",
            i + 1
        );
    }
    // Settled: each ball's kinetic energy is at most that of a microcollision bounce, whose
    // speed is below the threshold √(2 g ε_c) (eq. 3.18): ½ m v² < m g ε_c, so 7 m g ε_c in
    // all (≈ 360 erg, against ≈ 3.8e5 erg released by the drop).
    let id = scene.world.body_id("ball 1").expect("ball 1");
    let m = scene.world.body(id).mass_properties().mass;
    let g = scene.world.settings().gravity.norm();
    let kinetic = scene.world.energy().kinetic;
    assert!(
        kinetic < 7.0 * m * g * epsilon,
        "kinetic energy {kinetic} after {} s",
        scene.duration
    );
}

#[test]
fn exploding_text_flies_apart_in_its_box() {
    // Digest S12: the 26 letters of "impulse-based simulation" get outward random velocities
    // with gravity off and fly apart inside a closed box, colliding with each other and the
    // walls. The run must reach its end (4 s) with no error and no pair deeper than ε_c.
    let mut scene = load("exploding_text.toml");
    let epsilon = scene.world.settings().collision_epsilon;
    let letters: Vec<String> = scene
        .world
        .bodies()
        .iter()
        .map(|b| b.name().to_string())
        .filter(|n| n != "box")
        .collect();
    assert_eq!(letters.len(), 26, "22 letters, a hyphen and 3 i-dots");
    let spread = |scene: &Scene| {
        letters
            .iter()
            .map(|n| position(scene, n).norm())
            .sum::<f64>()
            / letters.len() as f64
    };
    let before = spread(&scene);
    let energy_before = scene.world.energy().kinetic;
    let duration = scene.duration;
    run(&mut scene, duration, epsilon);
    // Flown apart: the text spans ±29 cm by ±9 cm about the origin (mean distance of the
    // letters' frames from it ≈ 15 cm); after 4 s at 30–100 cm/s they fill the 80 cm box.
    let after = spread(&scene);
    assert!(
        after > 1.5 * before,
        "mean distance from the middle {before} -> {after}"
    );
    // Still inside the box (inner half-size 40 cm): nothing passed through a wall.
    for n in &letters {
        let p = position(&scene, n);
        assert!(p.abs().max() < 40.0, "{n} left the box: {p:?}");
    }
    // Collisions (e = 0.6) never gain energy (no gravity, so kinetic energy is all of it).
    let energy_after = scene.world.energy().kinetic;
    assert!(
        energy_after <= energy_before,
        "{energy_before} -> {energy_after}"
    );
    assert!(scene.world.counters()["collisions"] > 26);
}

#[test]
fn part_feeder_caps_pass_the_chute_and_land_below() {
    // Digest S11: six insulator caps dropped into an inclined tray slide down it, pass the
    // narrow opening at its lower end, and land on the flat surface below.
    let mut scene = load("part_feeder.toml");
    let epsilon = scene.world.settings().collision_epsilon;
    let duration = scene.duration;
    run(&mut scene, duration, epsilon);
    // The tray's lower edge is 15 cm down the 25° slope from its frame at x = 0:
    // x = 15 cos 25° = 13.6 cm. A cap on the ground has its frame (the middle of its open end)
    // less than its flange radius, 1.5 cm, above it, whichever way it lies.
    let edge = 15.0 * 25f64.to_radians().cos();
    for k in 1..=6 {
        let p = position(&scene, &format!("cap {k}"));
        assert!(p.x > edge, "cap {k} did not leave the tray: {p:?}");
        assert!(p.z < 1.5 + epsilon, "cap {k} is not on the ground: {p:?}");
    }
}
