//! Paradigm switching (issue 40; Mirtich §8.1): under `contact_model = "switching"` a resting
//! cluster that its microcollisions have brought to rest, and whose contacts can carry its
//! weight, is held still by contact forces until an impulse hands it back
//! (`world::clusters`, "Holding a cluster at rest"). Each test states where its expected value
//! comes from; sleep is off throughout (but in the test of the defaults), so nothing here is
//! held by the sleep heuristic.

use std::path::Path;

use impulse::World;

/// A world from scene text (SI units), with `contact_model = "switching"` and sleep off, and
/// every body of material `wood` (friction `mu`, restitution 0).
fn switching(name: &str, world_keys: &str, mu: f64, bodies: &str) -> World {
    scene(name, "switching", world_keys, mu, bodies)
}

/// The same under contact model `model`.
fn scene(name: &str, model: &str, world_keys: &str, mu: f64, bodies: &str) -> World {
    let text = scene_text(name, model, world_keys, mu, bodies);
    match impulse::scene::parse(Path::new(&format!("{name}.toml")), &text) {
        Ok(parsed) => parsed.world,
        Err(e) => panic!("the scene `{name}`: {e}"),
    }
}

/// The scene text of [`scene`].
fn scene_text(name: &str, model: &str, world_keys: &str, mu: f64, bodies: &str) -> String {
    format!(
        "[world]\nname = \"{name}\"\ncontact_model = \"{model}\"\nsleep = false\n\
         duration = 10.0\n{world_keys}\n[materials.wood]\nfriction = {mu:?}\n\
         restitution = 0.0\n\n\
         [[bodies]]\nname = \"ground\"\nmotion = \"fixed\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"halfspace\" }}\n{bodies}"
    )
}

/// A 0.1 m wooden cube (density 1000) named `name` centred at `centre`, with extra keys.
fn cube(name: &str, centre: [f64; 3], extra: &str) -> String {
    format!(
        "\n[[bodies]]\nname = \"{name}\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\ndensity = 1000.0\n\
         position = {centre:?}\n{extra}"
    )
}

fn position(world: &World, name: &str) -> [f64; 3] {
    match world.bodies().iter().find(|b| b.name() == name) {
        Some(body) => body.state().position.into(),
        None => panic!("no body `{name}`"),
    }
}

fn speed(world: &World, name: &str) -> f64 {
    match world.bodies().iter().find(|b| b.name() == name) {
        Some(body) => body.state().velocity.norm() + 0.0866 * body.state().angular_velocity.norm(),
        None => panic!("no body `{name}`"),
    }
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The world key that makes the floor a slope of `theta` (radians) falling along +x: gravity
/// 9.81 tilted by `theta` from the floor's normal.
fn slope(theta: f64) -> String {
    format!(
        "gravity = [{:?}, 0.0, {:?}]\n",
        9.81 * theta.sin(),
        -9.81 * theta.cos()
    )
}

fn advance(world: &mut World, t: f64) {
    if let Err(e) = world.advance_to(t) {
        panic!("stopped at t = {}: {e}", world.time());
    }
}

#[test]
fn a_stack_of_ten_cubes_stands_still_for_10_s() {
    // Peer scene h: ten 0.1 m cubes stacked exactly touching. Issue 40 asks for the top to
    // move less than 1e-5 m over 10 s; under impulses alone it rose 14.6 mm (one envelope a
    // layer) and moved 20 mm.
    let bodies: String = (0..10)
        .map(|k| cube(&format!("c{k}"), [0.0, 0.0, 0.05 + 0.1 * k as f64], ""))
        .collect();
    let mut world = switching("stack", "", 0.5, &bodies);
    let start = position(&world, "c9");
    let energy_start = world.energy().total();
    for k in 1..=100 {
        advance(&mut world, 0.1 * k as f64);
        assert!(
            world.energy().total() <= energy_start,
            "energy rose at {}",
            world.time()
        );
    }
    let moved = distance(position(&world, "c9"), start);
    assert!(moved < 1e-5, "the top moved {moved} m");
    let counters = world.counters();
    assert!(counters.holds >= 1, "{counters:?}");
    assert_eq!(counters.sleeps, 0, "held by contact forces, not by sleep");
}

#[test]
fn the_default_contact_model_is_switching_and_holds_the_stack_of_ten() {
    // Issue 40: paradigm switching is the default. Peer scene h written with no
    // `contact_model` and every other key at its default (sleep on): the stack is held by
    // contact forces (`holds`), not left to impulses, whose top rose 14.6 mm and moved 20 mm
    // (docs/sources.md, "Piles against rapier"). Top moving less than 1e-5 m over 10 s.
    let mut text = String::from(
        "[world]\nname = \"stack\"\nduration = 10.0\n\n[materials.wood]\nfriction = 0.5\n\
         restitution = 0.0\n\n[[bodies]]\nname = \"ground\"\nmotion = \"fixed\"\n\
         material = \"wood\"\nshape = { type = \"halfspace\" }\n",
    );
    for k in 0..10 {
        text.push_str(&cube(
            &format!("c{k}"),
            [0.0, 0.0, 0.05 + 0.1 * k as f64],
            "",
        ));
    }
    let mut world = match impulse::scene::parse(Path::new("stack.toml"), &text) {
        Ok(parsed) => parsed.world,
        Err(e) => panic!("the stack: {e}"),
    };
    assert_eq!(
        world.settings().contact_model,
        impulse::world::ContactModel::Switching
    );
    let start = position(&world, "c9");
    advance(&mut world, 10.0);
    let moved = distance(position(&world, "c9"), start);
    assert!(moved < 1e-5, "the top moved {moved} m");
    assert!(world.counters().holds >= 1, "{:?}", world.counters());
}

#[test]
fn stacks_of_ten_5_cm_and_8_cm_cubes_stand_still_for_10_s() {
    // Issue 40: ten 5 cm cubes and ten 8 cm cubes, exactly touching; under impulses alone they
    // stopped on the cascade guard at t = 0.03 s and 0.45 s. Top moving less than 1e-5 m.
    for side in [0.05, 0.08] {
        let bodies: String = (0..10)
            .map(|k| {
                format!(
                    "\n[[bodies]]\nname = \"c{k}\"\nmaterial = \"wood\"\n\
                     shape = {{ type = \"box\", size = [{side:?}, {side:?}, {side:?}] }}\n\
                     density = 1000.0\nposition = [0.0, 0.0, {:?}]\n",
                    side / 2.0 + side * k as f64
                )
            })
            .collect();
        let mut world = switching("small stack", "", 0.5, &bodies);
        let start = position(&world, "c9");
        advance(&mut world, 10.0);
        let moved = distance(position(&world, "c9"), start);
        assert!(moved < 1e-5, "{side} m cubes: the top moved {moved} m");
        assert!(world.counters().holds >= 1);
    }
}

#[test]
fn a_cube_at_rest_on_the_floor_keeps_its_speed_under_1e3_with_sleep_off() {
    // Issue 40: a cube at rest on the floor, sleep off, keeps its speed under 1e-3 m/s (under
    // impulses it swings between 0 and 7 cm/s at each hop). Set down 0.5 mm above the floor.
    let mut world = switching("cube", "", 0.5, &cube("cube", [0.0, 0.0, 0.0505], ""));
    let mut fastest: f64 = 0.0;
    for k in 1..=500 {
        advance(&mut world, 0.01 * k as f64);
        if world.time() > 0.05 {
            fastest = fastest.max(speed(&world, "cube"));
        }
    }
    assert!(fastest < 1e-3, "fastest point {fastest} m/s after landing");
    // Resting where it landed: on the floor, within the envelope (1 mm).
    let z = position(&world, "cube")[2];
    assert!((0.05..0.051).contains(&z), "z = {z}");
}

#[test]
fn a_cube_on_a_slope_steeper_than_its_friction_angle_slides_at_the_closed_form_rate() {
    // Gravity tilted 25° from the floor's normal (a 25° slope), μ = 0.3 < tan 25° = 0.466:
    // no static friction holds it, so it must not be held; sliding from rest, it travels
    // ½ g (sin θ − μ cos θ) t² (= 0.2587 m at t = 0.5 s, g = 9.81).
    let theta = 25f64.to_radians();
    let (g, mu) = (9.81, 0.3);
    let keys = slope(theta);
    let mut world = switching("slope", &keys, mu, &cube("cube", [0.0, 0.0, 0.05], ""));
    let start = position(&world, "cube");
    advance(&mut world, 0.5);
    let travelled = position(&world, "cube")[0] - start[0];
    let expected = 0.5 * g * (theta.sin() - mu * theta.cos()) * 0.25;
    // Never held, it slides exactly as under impulses alone; that sliding runs 9 % past the
    // closed form (0.2014 m: friction impulses at a box's corners, noted in the issue's
    // closing note), so the bound is 10 %.
    assert!(
        (travelled - expected).abs() < 0.1 * expected,
        "travelled {travelled} m, closed form {expected} m"
    );
    let mut impulse_only = scene(
        "slope",
        "impulse",
        &keys,
        mu,
        &cube("cube", [0.0, 0.0, 0.05], ""),
    );
    advance(&mut impulse_only, 0.5);
    assert_eq!(position(&impulse_only, "cube")[0] - start[0], travelled);
    assert_eq!(world.counters().holds, 0, "a sliding cube is never held");
}

#[test]
fn a_stack_on_a_frictionless_slope_is_never_held_and_slides_as_one_at_g_sin_theta() {
    // Issue 40, "Bad input": zero friction on a slope makes the pile unsolvable as a resting
    // one. Three cubes stacked on a 20° slope with μ = 0 have no contact forces that hold
    // them, so they must not be held (counted: `holds` stays 0), nor stall: from rest, each
    // slides down the slope ½ g sin θ t² (1.6776 m at t = 1 s, g = 9.81) and the stack stays
    // together (no friction anywhere: every cube has the same acceleration along the slope).
    let theta = 20f64.to_radians();
    let keys = slope(theta);
    let cubes: String = (0..3)
        .map(|k| {
            let z = 0.05 + 0.1 * k as f64 + 1e-5 * (k + 1) as f64;
            cube(&format!("cube {k}"), [0.0, 0.0, z], "")
        })
        .collect();
    let mut world = switching("frictionless stack", &keys, 0.0, &cubes);
    let names = ["cube 0", "cube 1", "cube 2"];
    let start = names.map(|name| position(&world, name));
    advance(&mut world, 1.0);
    let expected = 0.5 * 9.81 * theta.sin();
    for (name, start) in names.iter().zip(start) {
        let end = position(&world, name);
        let travelled = end[0] - start[0];
        // Measured 1.67749–1.67784 m (the hops' rounding of the slide); a 0.1 % bound.
        assert!(
            (travelled - expected).abs() < 1e-3 * expected,
            "{name} travelled {travelled} m, closed form {expected} m"
        );
        // Still stacked: at its height above the slope within the envelope (1e-3 m;
        // measured 0.09–0.30 mm higher, the hops).
        assert!((end[2] - start[2]).abs() < 1e-3, "{name} at {end:?}");
    }
    assert_eq!(
        world.counters().holds,
        0,
        "a frictionless stack is never held"
    );
}

#[test]
fn a_cube_on_a_slope_within_its_friction_angle_is_held_and_does_not_creep() {
    // A 15° slope, μ = 0.5 > tan 15° = 0.268: static friction holds the cube (the carry test's
    // own condition), so it is held and stays put. Under impulses alone a resting box creeps
    // down a slope however strong the friction (docs/sources.md, "Creep of resting boxes").
    let theta = 15f64.to_radians();
    let keys = slope(theta);
    let mut world = switching("gentle", &keys, 0.5, &cube("cube", [0.0, 0.0, 0.0505], ""));
    advance(&mut world, 0.1);
    let landed = position(&world, "cube");
    advance(&mut world, 5.0);
    let crept = distance(position(&world, "cube"), landed);
    assert!(crept < 1e-6, "crept {crept} m over 4.9 s");
    assert!(world.counters().holds >= 1);
}

#[test]
fn a_rolling_ball_is_not_held_and_rolls_on() {
    // A 0.05 m ball rolling without slip at 0.5 m/s: rolling is motion the normal stop leaves
    // (it is not a hop), so the ball is never held, and with no rolling resistance it keeps
    // its speed: 0.5 m in 1 s (closed form), to 1 %.
    let ball = "\n[[bodies]]\nname = \"ball\"\nmaterial = \"wood\"\n\
                shape = { type = \"sphere\", radius = 0.05 }\ndensity = 1000.0\n\
                position = [0.0, 0.0, 0.0505]\nvelocity = [0.5, 0.0, 0.0]\n\
                angular_velocity = [0.0, 10.0, 0.0]\n";
    let mut world = switching("rolling", "", 0.5, ball);
    advance(&mut world, 1.0);
    let x = position(&world, "ball")[0];
    assert!((x - 0.5).abs() < 0.005, "x = {x}");
    assert_eq!(world.counters().holds, 0);
}

#[test]
fn a_plank_overhanging_its_support_is_not_held_and_tips_off() {
    // A 0.4 m plank on a fixed block whose edge is at x = 0, its centre of mass 0.05 m beyond
    // the edge: no contact forces on the block's top hold it (the carry test fails), so it
    // tips over the edge (resting on it, the centre would stay at 0.21 m; tipped off and
    // leaning on the block's side, it is below 0.18 m).
    let bodies = "\n[[bodies]]\nname = \"block\"\nmotion = \"fixed\"\nmaterial = \"wood\"\n\
                  shape = { type = \"box\", size = [0.4, 0.4, 0.2] }\n\
                  position = [-0.2, 0.0, 0.1]\n\
                  \n[[bodies]]\nname = \"plank\"\nmaterial = \"wood\"\n\
                  shape = { type = \"box\", size = [0.4, 0.1, 0.02] }\ndensity = 500.0\n\
                  position = [0.05, 0.0, 0.2105]\n";
    let mut world = switching("plank", "", 0.5, bodies);
    advance(&mut world, 1.5);
    let z = position(&world, "plank")[2];
    assert!(z < 0.18, "the plank's centre at z = {z}");
}

#[test]
fn a_held_stack_is_handed_back_to_impulses_when_a_ball_hits_it() {
    // Three cubes held still; a 1 kg steel ball thrown at the top cube at 3 m/s. The hit
    // wakes the held island (constraint to impulse, Mirtich §8.1): the top cube is knocked
    // off (moves more than its own size), and the energy never rises above its start.
    let mut bodies: String = (0..3)
        .map(|k| cube(&format!("c{k}"), [0.0, 0.0, 0.05 + 0.1 * k as f64], ""))
        .collect();
    bodies.push_str(
        "\n[[bodies]]\nname = \"ball\"\nmaterial = \"wood\"\n\
         shape = { type = \"sphere\", radius = 0.03 }\nmass = 1.0\n\
         position = [-0.6, 0.0, 0.25]\nvelocity = [3.0, 0.0, 1.0]\n",
    );
    let mut world = switching("knock", "", 0.5, &bodies);
    let energy_start = world.energy().total();
    advance(&mut world, 0.1);
    assert!(world.counters().holds >= 1, "held before the hit");
    let before = position(&world, "c2");
    for k in 11..=150 {
        advance(&mut world, 0.01 * k as f64);
        let e = world.energy().total();
        assert!(
            e <= energy_start + 1e-9,
            "energy {e} > {energy_start} at {}",
            world.time()
        );
    }
    assert!(world.counters().wakes >= 1, "{:?}", world.counters());
    let moved = distance(position(&world, "c2"), before);
    assert!(moved > 0.1, "the top cube moved {moved} m");
}

/// Peer scene g: a pyramid of 210 cubes, base 20, 1 mm apart sideways, layers exactly
/// touching (`shared/peer-scenes.md`), friction 0.5.
fn pyramid() -> World {
    let mut bodies = String::new();
    let mut n = 0;
    for k in 0..20 {
        let row = 20 - k;
        for j in 0..row {
            n += 1;
            let x = (j as f64 - (row as f64 - 1.0) / 2.0) * 0.101;
            bodies.push_str(&cube(&format!("c{n}"), [x, 0.0, 0.05 + 0.1 * k as f64], ""));
        }
    }
    switching("pyramid", "", 0.5, &bodies)
}

#[test]
fn the_peer_pyramid_stands_within_1_mm_for_5_s_and_reruns_bit_for_bit() {
    // Issue 40: after 5 s every cube within 1 mm of its start (under impulses alone the top
    // rose 16.7 mm and a flank moved 17 mm). Held once its landing is stopped; the same
    // scene twice gives the same bits.
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut world = pyramid();
        let start: Vec<[f64; 3]> = world
            .bodies()
            .iter()
            .map(|b| b.state().position.into())
            .collect();
        advance(&mut world, 5.0);
        for (body, from) in world.bodies().iter().zip(&start) {
            let moved = distance(body.state().position.into(), *from);
            assert!(moved < 1e-3, "{} moved {moved} m", body.name());
        }
        assert!(world.counters().holds >= 1);
        runs.push(
            world
                .bodies()
                .iter()
                .map(|b| b.state().position)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(runs[0], runs[1]);
}
