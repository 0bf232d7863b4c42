//! The assembly scene's `[contact]` keys for solids (issue 36): `solver`, `broad_phase`,
//! `sleep` and `sleep_time` are read from the file and take effect — the same scene answered
//! together or pair by pair gives the closed forms of `assembly_contacts_together.rs`, a
//! dropped crate sleeps or keeps taking contacts — and bad values are reported with file, line
//! and key.

mod common;

use std::path::Path;

use common::assemblies::{SCENE_FILE, scene_errors};
use impulse::assembly::scene::{AssemblyScene, parse};
use impulse::assembly::solids::ContactSolver;

/// Three equal balls (r = 0.05 m, 1 kg: mass properties from the sphere) in a line along x
/// without gravity, the first at 1 m/s towards the other two, which touch (ε/4 apart, ε =
/// 1e-4); e = 1. `extra`: more `[contact]` lines.
fn three_balls(extra: &str) -> String {
    format!(
        r#"
[world]
gravity = [0, 0, 0]
duration = 0.02
[assembly]
step = 0.001
[[bodies]]
name = "a"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 1
position = [0, 0, 0]
velocity = [1, 0, 0]
[[bodies]]
name = "b"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 1
position = [0.11, 0, 0]
[[bodies]]
name = "c"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 1
position = [0.210025, 0, 0]
[contact]
restitution = 1
envelope = 1e-4
{extra}
"#
    )
}

fn scene(text: &str) -> AssemblyScene {
    parse(Path::new("s.toml"), text).unwrap()
}

/// The balls' velocities along x after 0.02 s, and the narrow-phase queries made.
fn run(text: &str) -> (Vec<f64>, u64) {
    let s = scene(text);
    let mut sim = s.with_solids().unwrap();
    sim.advance_to(s.duration).unwrap();
    let v = sim
        .assembly
        .bodies()
        .iter()
        .map(|b| b.velocity().x)
        .collect();
    (v, sim.narrow_queries())
}

/// `solver`: by default the three balls are answered together — the compression
/// P = (2/3, 1/3) v of [[2, −1], [−1, 2]] P = (v, 0), doubled by Poisson's e = 1, leaves them at
/// (−1/3, 2/3, 2/3) v — and with `solver = "sequential"` pair by pair, as Newton's cradle is
/// drawn: (0, 0, v). Both to 1e-9 (the closed forms of `assembly_contacts_together.rs`).
/// `broad_phase = "none"` gives the same velocities, bit for bit (the sweep and prune only
/// spares queries of pairs beyond the envelope), with more narrow-phase queries.
#[test]
fn the_solver_and_broad_phase_keys_take_effect() {
    let default = scene(&three_balls(""));
    assert_eq!(default.solver, ContactSolver::Simultaneous);
    assert!(default.broad_phase);
    let (together, queries) = run(&three_balls(""));
    println!("together {together:?}, {queries} queries");
    for (got, want) in together.iter().zip([-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        assert!((got - want).abs() < 1e-9, "together {together:?}");
    }
    let explicit = run(&three_balls("solver = \"simultaneous\""));
    assert_eq!(explicit.0, together);

    let text = three_balls("solver = \"sequential\"");
    assert_eq!(scene(&text).solver, ContactSolver::Sequential);
    let (pairwise, _) = run(&text);
    println!("pair by pair {pairwise:?}");
    for (got, want) in pairwise.iter().zip([0.0, 0.0, 1.0]) {
        assert!((got - want).abs() < 1e-9, "pair by pair {pairwise:?}");
    }

    let text = three_balls("broad_phase = \"none\"");
    assert!(!scene(&text).broad_phase);
    let (all_pairs, all_queries) = run(&text);
    println!("no broad phase: {all_queries} queries");
    assert_eq!(all_pairs, together);
    assert!(all_queries > queries, "{all_queries} vs {queries}");
    let (swept, _) = run(&three_balls("broad_phase = \"sweep_and_prune\""));
    assert_eq!(swept, together);
}

/// A crate (0.1 m cube, 1 kg) dropped 1 cm onto a frictionless floor, e = 0.5 (the crate of
/// `assembly_sleep.rs`). `extra`: more `[contact]` lines.
fn dropped_crate(extra: &str) -> String {
    format!(
        r#"
[world]
duration = 3
[assembly]
step = 0.001
[[bodies]]
name = "crate"
shape = {{ type = "box", size = [0.1, 0.1, 0.1] }}
mass = 1
position = [0, 0, 0.06]
[[fixed]]
name = "floor"
shape = {{ type = "halfspace" }}
[contact]
restitution = 0.5
{extra}
"#
    )
}

/// `sleep`: by default the dropped crate, still for the sleep time (0.5 s), sleeps by 1.5 s and
/// takes not one contact more to 3 s; with `sleep = false` it takes microcollisions all along
/// (68 from 1.5 s to 3 s measured in `assembly_sleep.rs`; asserted: more than 30). `sleep_time
/// = 2`: it cannot have been still for 2 s by 1.5 s, so it is awake then, and asleep by 3 s.
#[test]
fn the_sleep_keys_take_effect() {
    let contacts = |extra: &str| {
        let s = scene(&dropped_crate(extra));
        let mut sim = s.with_solids().unwrap();
        sim.advance_to(1.5).unwrap();
        let (asleep, before) = (sim.is_asleep(0), sim.hits.len());
        sim.advance_to(3.0).unwrap();
        (asleep, sim.hits.len() - before, sim.is_asleep(0))
    };
    let (asleep, later, _) = contacts("");
    assert!(asleep, "asleep by 1.5 s by default");
    assert_eq!(later, 0, "no contact while asleep");
    let (asleep, later, _) = contacts("sleep = true");
    assert!(asleep && later == 0);
    let (asleep, later, at_end) = contacts("sleep = false");
    println!("sleep = false: {later} contacts from 1.5 s to 3 s");
    assert!(!asleep && !at_end && later > 30, "{later} contacts");
    let s = scene(&dropped_crate("sleep_time = 2"));
    assert_eq!(s.sleep.time, 2.0);
    let (asleep, _, at_end) = contacts("sleep_time = 2");
    assert!(!asleep, "still for less than 2 s at 1.5 s");
    assert!(at_end, "asleep by 3 s");
}

/// Each bad value is reported at its key, with its line and what was expected; unknown keys
/// are refused; and the keys in a scene without solids (balls only) are refused, saying why.
#[test]
fn bad_contact_keys_are_reported_with_line_and_key() {
    let base = dropped_crate("");
    // The `[contact]` table's lines: the key added after `restitution` is on the next one.
    let line = base
        .lines()
        .position(|l| l.starts_with("restitution"))
        .unwrap()
        + 2;
    for (extra, key, expected) in [
        (
            "solver = \"together\"",
            "contact.solver",
            "expected one of \"simultaneous\", \"sequential\", found \"together\"",
        ),
        ("solver = 1", "contact.solver", "a string"),
        (
            "broad_phase = \"hash\"",
            "contact.broad_phase",
            "expected one of \"sweep_and_prune\", \"none\", found \"hash\"",
        ),
        ("broad_phase = true", "contact.broad_phase", "a string"),
        ("sleep = \"yes\"", "contact.sleep", "true or false"),
        (
            "sleep_time = 0",
            "contact.sleep_time",
            "expected a positive number, found 0",
        ),
        (
            "sleep_time = -1",
            "contact.sleep_time",
            "expected a positive number",
        ),
        ("sleep_time = \"long\"", "contact.sleep_time", "number"),
        ("sleep_speed = 0.1", "contact.sleep_speed", "unknown key"),
    ] {
        let e = scene_errors(&dropped_crate(extra));
        println!("{extra}: {e:?}");
        assert_eq!(e.len(), 1, "{extra}: {e:?}");
        assert_eq!(e[0].key, key, "{extra}");
        assert_eq!(e[0].line, line, "{extra}");
        assert_eq!(e[0].path, Path::new(SCENE_FILE));
        assert!(e[0].message.contains(expected), "{extra}: {}", e[0].message);
    }
    // Balls only: the keys apply to nothing.
    let balls = r#"
[world]
[assembly]
[[bodies]]
name = "arm"
mass = 1
inertia = [0.001, 0.01, 0.01]
position = [0.2, 0, 0.5]
[[balls]]
name = "b"
mass = 1
radius = 0.1
position = [2, 0, 1]
[contact]
sleep = false
"#;
    let e = scene_errors(balls);
    println!("{e:?}");
    let line = balls.lines().position(|l| l == "sleep = false").unwrap() + 1;
    assert!(
        e.len() == 1
            && e[0].key == "contact.sleep"
            && e[0].line == line
            && e[0]
                .message
                .contains("applies to bodies with shapes and [[fixed]] solids"),
        "{e:?}"
    );
}
