//! The penalty model (Baraff ch. 7) in whole worlds: `contact_model = "penalty"`, checked
//! against closed-form physics, and its bad input.

mod common;

use common::scenes::{errors, load, parse, shipped};
use impulse::World;
use impulse::math::Vec3;

fn world_of(text: &str) -> World {
    match parse(std::path::Path::new("penalty.toml"), text) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

#[test]
fn block_on_ramp_under_the_penalty_model_stops_where_theory_says_then_creeps() {
    // Mirtich V1 (scenes/penalty/block_on_ramp.toml, cm, as the constraint test): 548 cm/s down
    // a 30° ramp with μ = 0.9 decelerates at g(μ cos 30° − sin 30°) = 274.14 cm/s², stopping at
    // t = 1.99898 s after 547.72 cm; the issue asks for 0.5 %. The stop is taken where the
    // speed falls below 0.1 cm/s (0.4 ms early at that deceleration). Then the regularised
    // friction (viscous below the slip speed v_s = 1 % of √(2 g ε) = 0.03132 cm/s) lets it
    // creep at the speed where the viscous force balances the weight's pull,
    // v_s tan 30° / μ = 0.02009 cm/s (to 1e-3 over the last second; measured 1e-10). Measured
    // stop: 1.999 s, 547.775 cm.
    let mut world = load(&shipped("penalty/block_on_ramp.toml")).world;
    let id = world.body_id("block").expect("block");
    let down = Vec3::new(30f64.to_radians().cos(), 0.0, -30f64.to_radians().sin());
    let start = world.body(id).state().position;
    let mut stop = None;
    let mut at_4s = None;
    for k in 1..=5000 {
        world.advance_to(k as f64 * 1e-3).expect("runs");
        let state = world.body(id).state();
        if stop.is_none() && state.velocity.dot(&down) < 0.1 {
            stop = Some((world.time(), (state.position - start).dot(&down)));
        }
        if k == 4000 {
            at_4s = Some(state.position);
        }
    }
    let (t_stop, distance) = stop.expect("the block stops");
    let deceleration = 981.0 * (0.9 * 30f64.to_radians().cos() - 30f64.to_radians().sin());
    let (t_ideal, d_ideal) = (548.0 / deceleration, 548.0 * 548.0 / (2.0 * deceleration));
    assert!(
        (t_stop - t_ideal).abs() < 5e-3 * t_ideal,
        "stopped at {t_stop} s, theory {t_ideal}"
    );
    assert!(
        (distance - d_ideal).abs() < 5e-3 * d_ideal,
        "slid {distance} cm, theory {d_ideal}"
    );
    let creep = (world.body(id).state().position - at_4s.expect("sampled")).dot(&down);
    let slip_speed = 1e-2 * (2.0f64 * 981.0 * 0.005).sqrt();
    let expected = slip_speed * 30f64.to_radians().tan() / 0.9;
    assert!(
        (creep - expected).abs() < 1e-3 * expected,
        "crept {creep} cm/s, regularised friction says {expected}"
    );
    let counters = world.counters();
    let penalty = counters.penalty.expect("penalty counters");
    eprintln!(
        "ramp: stop {t_stop} s ({t_ideal}), {distance} cm ({d_ideal}), creep {creep} cm/s \
         ({expected}); {} steps, {} evaluations",
        penalty.steps, penalty.evaluations
    );
    assert!(penalty.steps > 0 && counters.constraint.is_none());
}

/// A 1 kg, 0.1 m cube of material `block` above a fixed floor (top face z = 0) set down half
/// the envelope above it, at `height` above that, turned by `tilt` degrees about x.
fn cube_on_floor(materials: &str, height: f64, tilt: f64) -> String {
    format!(
        r#"[world]
contact_model = "penalty"
collision_epsilon = 0.001
duration = 1

{materials}

[[bodies]]
name = "floor"
motion = "fixed"
material = "floor"
shape = {{ type = "box", size = [2, 2, 0.2] }}
position = [0, 0, -0.1]

[[bodies]]
name = "cube"
material = "block"
shape = {{ type = "box", size = [0.1, 0.1, 0.1] }}
mass = 1
position = [0, 0, {z}]
orientation = {{ axis = [1, 0, 0], angle = {tilt} }}
"#,
        z = 0.0505 + height + if tilt == 0.0 { 0.0 } else { 0.05 },
    )
}

#[test]
fn a_box_rests_on_a_floor_at_the_static_penetration_of_its_springs() {
    // A 1 kg cube on four corner springs of K = 1e5 N/m (both materials 2e5 N/m, in series):
    // at rest the springs carry its weight, Σ f_N = K Σ p = m g, so each corner sinks
    // p = m g / (4 K) = 24.525 µm (to 1e-4, measured 2e-11: by 1 s the damping has settled the
    // landing, its ζ ω₀ = 0.497 · √(4 K / m) ≈ 300 /s). Its velocity is then zero (3e-6 m/s): the net force,
    // weight less Σ f_N, is zero.
    let materials = "[materials.floor]\nfriction = 0.5\nrestitution = 0.3\npenalty_stiffness = 2e5\n\n\
                     [materials.block]\nfriction = 0.5\nrestitution = 0.3\npenalty_stiffness = 2e5";
    let mut world = world_of(&cube_on_floor(materials, 0.0, 0.0));
    let id = world.body_id("cube").expect("cube");
    world.advance_to(1.0).expect("runs");
    let s = world.body(id).state();
    let sink = -(s.position.z - 0.05);
    let expected = 9.81 / (4.0 * 1e5);
    assert!(
        (sink - expected).abs() < 1e-4 * expected,
        "sank {sink} m, m g / 4K = {expected}"
    );
    assert!(
        s.velocity.norm() < 3e-6,
        "still moving at {}",
        s.velocity.norm()
    );
    // The deepest penetration of the run is the landing's (the box falls through what is left
    // of the envelope after the impact's impulse, at most √(2 g ε), onto the springs), within
    // the envelope.
    let deepest = world.max_penetration();
    eprintln!(
        "rest: sink {sink:e} m, deepest {deepest:e} m, {:?}",
        world.counters().penalty
    );
    assert!(deepest >= sink && deepest < 1e-3, "deepest {deepest}");
}

#[test]
fn the_default_stiffness_sinks_a_resting_box_a_hundredth_of_the_envelope() {
    // No penalty keys: K = m_eff g / (0.01 ε) per corner, m_eff = m/4 for a cube's corner on
    // its face (1/m + (r × n)·I⁻¹(r × n) = 4/m), so the four corners sink g / ω₀² = 0.01 ε
    // = 10 µm under the weight (1 %).
    let materials = "[materials.floor]\nfriction = 0.5\nrestitution = 0.3\n\n\
                     [materials.block]\nfriction = 0.5\nrestitution = 0.3";
    let mut world = world_of(&cube_on_floor(materials, 0.0, 0.0));
    let id = world.body_id("cube").expect("cube");
    world.advance_to(1.0).expect("runs");
    let sink = -(world.body(id).state().position.z - 0.05);
    assert!((sink - 1e-5).abs() < 1e-7, "sank {sink} m");
}

#[test]
fn a_tumbling_drop_onto_the_floor_never_gains_energy() {
    // A cube tilted 30° dropped from 0.2 m: impacts by impulses (never adding energy),
    // persistent contacts by springs and dampers (the dampers only take energy out). The
    // world's energy (kinetic + gravitational) leaves out what the springs store, which a
    // held contact brings in at most at the rest speed (kinetic m g ε) and with its weight
    // (m g p_max): sampled every ms, the energy never rises above its lowest so far by more.
    let materials = "[materials.floor]\nfriction = 0.5\nrestitution = 0.5\n\n\
                     [materials.block]\nfriction = 0.5\nrestitution = 0.5";
    let mut world = world_of(&cube_on_floor(materials, 0.2, 30.0));
    let start = world.energy().total();
    let mut lowest = start;
    for k in 1..=1000 {
        world.advance_to(k as f64 * 1e-3).expect("runs");
        let now = world.energy().total();
        let allowed = 9.81 * (1e-3 + world.max_penetration());
        assert!(
            now <= lowest + allowed,
            "energy rose from {lowest} to {now} J at {} s",
            world.time()
        );
        lowest = lowest.min(now);
    }
    // It came to rest: the drop's 2 J (and then some) gone.
    assert!(lowest < start - 1.0, "{start} → {lowest}");
    let penalty = world.counters().penalty.expect("penalty counters");
    eprintln!(
        "drop: {} steps, {} evaluations, deepest {:e} m",
        penalty.steps,
        penalty.evaluations,
        world.max_penetration()
    );
}

#[test]
fn the_stack_of_five_stands_at_its_springs_static_penetrations() {
    // scenes/penalty/stack_of_five.toml: five 0.5 kg cubes, K = 1e5 N/m per corner (2e5 in
    // series). Layer i (from the bottom) carries 6 − i boxes' weight over four corners, so the
    // top's centre stands Σ_{i=1..5} (6 − i) m g / (4 K) = 15 · 4.905 / 4e5 = 184 µm below
    // its rigid height 0.45 m (to 1e-4 after 2 s, measured 1.4e-9) and does not move from then
    // to 4 s (1e-7 m).
    let mut world = load(&shipped("penalty/stack_of_five.toml")).world;
    let top = world.body_id("box 5").expect("top box");
    world.advance_to(2.0).expect("runs");
    let settled = world.body(top).state().position;
    let sink = 0.45 - settled.z;
    let expected = 15.0 * 0.5 * 9.81 / 4e5;
    eprintln!("stack: top sank {sink:e} m ({expected:e})");
    assert!(
        (sink - expected).abs() < 1e-4 * expected,
        "top sank {sink} m, expected {expected}"
    );
    world.advance_to(4.0).expect("runs");
    let moved = (world.body(top).state().position - settled).norm();
    assert!(moved < 1e-7, "top moved {moved} m from 2 s to 4 s");
}

#[test]
fn bad_penalty_keys_are_named_with_file_line_and_key() {
    // A non-positive stiffness or damping ratio, and a mistyped key, each an error at its key.
    let path = std::path::Path::new("bad.toml");
    let text = |key: &str, value: &str| {
        format!(
            "[world]\ncontact_model = \"penalty\"\n\n[materials.rubber]\nfriction = 0.5\nrestitution = 0.5\n{key} = {value}\n\n\
             [[bodies]]\nname = \"ball\"\nmaterial = \"rubber\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1\n"
        )
    };
    for (key, value, expected) in [
        (
            "penalty_stiffness",
            "0",
            "expected a positive stiffness (force per length, of each contact point), found 0",
        ),
        ("penalty_stiffness", "-3e4", "found -30000"),
        (
            "penalty_damping",
            "-0.5",
            "expected a positive damping ratio (1: critically damped), found -0.5",
        ),
        ("penalty_stifness", "1e5", "penalty_stifness"),
    ] {
        let found = errors(path, &text(key, value));
        assert_eq!(found.len(), 1, "{key} = {value}: {found:?}");
        let e = &found[0];
        assert_eq!(e.line, 7, "{e:?}");
        assert_eq!(e.path, path);
        assert_eq!(e.key, format!("materials.rubber.{key}"), "{e:?}");
        assert!(e.message.contains(expected), "{e:?}");
    }
    // An unknown contact model names the three there are.
    let found = errors(
        path,
        "[world]\ncontact_model = \"springs\"\n\n[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\nmass = 1\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].line, found[0].key.as_str()),
        (2, "world.contact_model")
    );
    assert!(found[0].message.contains("penalty"), "{:?}", found[0]);
}

#[test]
fn a_penalty_run_is_deterministic() {
    // The same scene twice: bit-identical states (the springs are resolved in contact order,
    // the materials looked up in ordered maps).
    let run = || {
        let materials = "[materials.floor]\nfriction = 0.5\nrestitution = 0.5\n\n\
                         [materials.block]\nfriction = 0.5\nrestitution = 0.5";
        let mut world = world_of(&cube_on_floor(materials, 0.05, 30.0));
        world.advance_to(0.3).expect("runs");
        let s = *world.body(world.body_id("cube").expect("cube")).state();
        (s, world.counters())
    };
    let (a, ca) = run();
    let (b, cb) = run();
    assert_eq!(a, b);
    assert_eq!(ca, cb);
}

#[test]
fn settings_refuse_a_non_positive_penalty_spring() {
    // The library's own check, for worlds built without a scene file.
    use impulse::world::PenaltyMaterial;
    for spring in [
        PenaltyMaterial {
            stiffness: Some(0.0),
            damping: None,
        },
        PenaltyMaterial {
            stiffness: None,
            damping: Some(f64::NAN),
        },
    ] {
        let mut settings = impulse::WorldSettings::default();
        settings.penalty_materials.insert("rubber".into(), spring);
        let error = settings.check().expect_err("refused");
        assert_eq!(error.setting, "penalty_materials", "{error}");
    }
}
