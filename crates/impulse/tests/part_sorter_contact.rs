//! Issue 35: the part sorter (scenes/hybrid/part_sorter.toml) under `contact_model =
//! "constraint"` and `"penalty"`. Under both, part A1 stopped dead at door 1's upstream edge at
//! 0.24 s, and every part behind it piled into it (constraint: A1 and B1 interpenetrated at
//! 0.81 s; penalty: B1 sank into the upper track's end face at 1.42 s). Two causes, each
//! reproduced here in isolation:
//!
//! - *A near miss answered as a collision.* A part held 10⁻² ε above the track met the door's
//!   upstream edge (2.5e-5 cm above the track, a multibody link, answered by impulses) at a
//!   gap of 5e-3 cm along the normal between the part's bottom edge and the door's top edge,
//!   16° off the direction it slid in. The collision along that normal stopped it; held, it
//!   would have passed 7.5e-5 cm over the edge (`world::near_miss`).
//! - *A held contact on a face's plane outlived the face.* A part held on the track's top face
//!   slid on along the face's plane past the face's end — over the door's gap and off the end
//!   of the track — so no part ever loaded a door (`world::held_faces`).
//!
//! Units: cm, g, s (g = 981 cm/s²), ε = 0.01 cm.

mod common;

use common::scenes::{parse, shipped_under};
use impulse::World;

/// A world from scene text (`scene.toml` for its messages).
fn world_of(text: &str) -> World {
    match parse(std::path::Path::new("scene.toml"), text) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

/// A 4 × 4 × 2 cm part of 8 g sliding frictionless along +x at `speed` on a fixed ledge whose
/// top face is z = 0 from x = −30 to 0, set down 1e-3 cm above it with its centre at x = `x0`;
/// `beyond` is the rest of the scene (what lies past the ledge's end).
fn ledge_scene(model: &str, x0: f64, speed: f64, beyond: &str) -> String {
    format!(
        r#"
[world]
contact_model = "{model}"
gravity = [0, 0, -981]
duration = 1.0
collision_epsilon = 0.01

[materials.slick]
friction = 0
restitution = 0

[[bodies]]
name = "ledge"
motion = "fixed"
shape = {{ type = "box", size = [30, 8, 1] }}
position = [-15, 0, -0.5]
material = "slick"

[[bodies]]
name = "part"
shape = {{ type = "box", size = [4, 4, 2] }}
mass = 8
position = [{x0}, 0, 1.001]
velocity = [{speed}, 0, 0]
material = "slick"
{beyond}
"#
    )
}

#[test]
fn a_held_part_sliding_off_the_end_of_a_ledge_falls() {
    // The part slides at 100 cm/s from x = −14: its front reaches the ledge's end at 0.12 s,
    // its centre at 0.14 s, its back at 0.16 s. From then at the latest nothing holds it: at
    // 0.4 s it has fallen at least ½ g (0.4 − 0.16)² = 28.25 cm below the 1.0 cm it slid at
    // (tipping over the edge before that only lowers it further), so its centre is below
    // z = −27.25. Its x velocity stays 100 cm/s to 1e-3: nothing frictionless pushes along x
    // but the edge while it tips, briefly. On main the held contacts kept it on the ledge's
    // plane: z = 1.0001 at 0.4 s, sliding on air.
    for model in ["constraint", "penalty"] {
        let mut world = world_of(&ledge_scene(model, -14.0, 100.0, ""));
        let id = world.body_id("part").expect("the part");
        world.advance_to(0.4).expect("runs");
        let s = world.body(id).state();
        assert!(
            s.position.z < 1.0 - 0.5 * 981.0 * 0.24f64.powi(2),
            "{model}: the part is at z = {} at 0.4 s",
            s.position.z
        );
        assert!(
            (s.velocity.x - 100.0).abs() < 0.1,
            "{model}: vx = {}",
            s.velocity.x
        );
    }
}

#[test]
fn a_held_part_glides_over_a_flush_seam_onto_a_door() {
    // Past the ledge's end, 0.13 cm on, a door as in the part sorter: a 10 × 8 × 0.5 cm plate of
    // 20 g, a one-link multibody (answered by impulses under every model) hinged at its
    // upstream top edge, flush with the ledge's top face z = 0, held shut against its stop by
    // door 1's preloaded spring (186000 g·cm²/s² per rad, rest −60°): it holds an 8 g part
    // anywhere on it (moment at most 8 · 981 · 10 = 78 480 against 194 780 − 98 100 of its
    // own). The part, held 1e-4 cm (10⁻² ε) above the ledge (penalty: 1e-4 cm into it),
    // slides frictionless at 20 cm/s from x = −6: its front reaches the seam at 0.2 s, its
    // centre is over the door by 0.31 s. Nothing frictionless acts along x but the door's
    // top face, which the spring's push tilts up 4.4e-4 rad past its stop: the part climbs it
    // (g sin θ over its 0.2 s on the door takes 0.09 cm/s, the face's tilted normal about as
    // much). So at 0.5 s it moves at 20 cm/s within 0.5 cm/s (measured: 19.84 constraint,
    // 19.76 penalty) and has travelled 10 cm within 0.1 cm (x = 3.97 and 3.95). On main the collision with the door's upstream edge, along the normal between
    // the part's bottom edge and the door's top edge (nearly −x), stopped it at the seam
    // (measured under constraint: x = −2.80, vx = −3.41 cm/s at 0.5 s, bounced back).
    let door = r#"
[[multibodies]]
name = "door"
[[multibodies.links]]
name = "plate"
shape = { type = "box", size = [10, 8, 0.5] }
mass = 20
position = [5.13, 0, -0.25]
material = "slick"
[[multibodies.joints]]
name = "hinge"
type = "revolute"
parent = "ledge"
child = "plate"
anchor = [0.13, 0, 0]
axis = [0, 1, 0]
stiffness = 186000
rest = -60
damping = 10000
limits = [0, 80]
"#;
    for model in ["constraint", "penalty"] {
        let mut world = world_of(&ledge_scene(model, -6.0, 20.0, door));
        let id = world.body_id("part").expect("the part");
        world.advance_to(0.5).expect("runs");
        let s = world.body(id).state();
        assert!(
            (s.velocity.x - 20.0).abs() < 0.5,
            "{model}: vx = {} at 0.5 s",
            s.velocity.x
        );
        assert!(
            (s.position.x - 4.0).abs() < 0.1,
            "{model}: x = {} at 0.5 s",
            s.position.x
        );
    }
}

/// The bin a part ends in (its centre, end of the run): past the upper track's end (x > 96.6,
/// type A's), past the lower track's end (x < 7.7, type B's), or on the floor between them,
/// under door 2 (type C's). `None`: not on the floor (z above 2.1 cm: a part at rest on the
/// floor has its centre at 1 or 2 cm).
fn bin(world: &World, part: &str) -> Option<char> {
    let id = world.body_id(part).expect("a part");
    let p = world.body(id).state().position;
    if p.z > 2.1 {
        return None;
    }
    Some(if p.x > 96.6 {
        'A'
    } else if p.x < 7.7 {
        'B'
    } else {
        'C'
    })
}

const PARTS: [&str; 6] = [
    "part A1", "part B1", "part C1", "part A2", "part B2", "part C2",
];

/// Runs the part sorter under `model` to its shipped end (4 s), checking at every 0.01 s that
/// no pair overlaps deeper than the envelope (the run stops with an error if one does) and
/// that the energy never rises above the start's (under the impulse model; under the others
/// by no more than the engine's own allowance for microcollisions' throws, `energy_bound =
/// "auto"`: ten times the kinetic energy of every dynamic body and link at
/// `microcollision_max_restitution` × √(2 g ε) = 22.1 cm/s, 356 g in all: 8.73e5 erg, 2.7 %
/// of the start's 3.19e7). Returns each part's bin, the deepest overlap of the run, and part
/// C1's speed at every 0.01 s (index i: t = 0.01 i).
fn sorted(model: &str) -> (Vec<Option<char>>, f64, Vec<f64>) {
    let mut world = shipped_under("hybrid/part_sorter.toml", model);
    let energy = world.energy();
    let start = energy.total();
    // The impulse model's rebound budget holds a closed world to its start, but for its
    // margin (1e-8 of the start's energy) and rounding.
    let allowance = if model == "impulse" {
        2e-8 * (energy.kinetic + energy.potential.abs())
    } else {
        10.0 * 0.5 * 356.0 * (5.0f64 * (2.0 * 981.0 * 0.01f64).sqrt()).powi(2)
    };
    let mut highest = start;
    let c1 = world.body_id("part C1").expect("C1");
    let mut c1_speeds = vec![0.0];
    for i in 1..=400 {
        let t = f64::from(i) * 0.01;
        if let Err(e) = world.advance_to(t) {
            panic!("{model}: {e}");
        }
        world.take_events();
        highest = highest.max(world.energy().total());
        c1_speeds.push(world.body(c1).state().velocity.norm());
    }
    assert!(
        world.max_penetration() <= 0.01,
        "{model}: overlapped {}",
        world.max_penetration()
    );
    assert!(
        highest - start <= allowance,
        "{model}: energy rose {} above the start's {start}",
        highest - start
    );
    eprintln!("{model}: energy rose at most {} erg", highest - start);
    (
        PARTS.iter().map(|p| bin(&world, p)).collect(),
        world.max_penetration(),
        c1_speeds,
    )
}

#[test]
fn the_part_sorter_runs_to_its_end_under_constraint_contact() {
    // On main it stopped at 0.81 s (A1 and B1 interpenetrating by the envelope). Now it runs
    // 4 s and every part ends on the floor. The impulse model's run sorts A1 A, B1 B, C1 B,
    // A2 A, B2 A (it skims over door 1, as the scene's notes say the later parts do), C2 A;
    // the constraint model's puts A1, B1, A2 and B2 in the same bins. Two of the parts' bins
    // turn on how they meet a door's edge, and changes to the contacts far below the test's
    // tolerances have flipped them both ways (docs/sources.md, the part sorter):
    // - C1 drops through door 1 onto the lower track at 1.5 s, slides down it alone at the
    //   closed form's g (sin 15° − μ cos 15°) = 981 (0.25882 − 0.15 · 0.96593) = 111.85
    //   cm/s² and meets door 2's upstream edge at 2.2 s at about 85 cm/s: there it either
    //   opens the door and falls into C or skims over it into B (the scene's notes: parts
    //   that arrive fast skim a door);
    // - C2, which starts highest, meets door 1 at about 190 cm/s at 1.8 s: it either opens
    //   the door (onto the lower track, and into C) or skims over it into A. It went to A
    //   when the parts were set down within the free band of their track, and again when
    //   the free floor was held to each body's rest ceiling (the constraint model's went to
    //   C both times).
    // So C1 and C2 are asserted to end in one of their two bins, and C1's slide is asserted
    // against the closed form. The impulse model's energy never rises above its start but
    // for the budget's margin and rounding (world/respond.rs, `free_floor_for`: the floor in
    // the band was free for parts caught above it, 288 erg within 2 ms).
    let (impulse, _, _) = sorted("impulse");
    let named = |bins: &[Option<char>]| -> Vec<String> {
        PARTS
            .iter()
            .zip(bins)
            .map(|(p, b)| format!("{p}: {b:?}"))
            .collect()
    };
    let robust = |bins: &[Option<char>]| [bins[0], bins[1], bins[3], bins[4]];
    let expected = [Some('A'), Some('B'), Some('A'), Some('A')];
    let (constraint, deepest, c1_speeds) = sorted("constraint");
    for bins in [&impulse, &constraint] {
        assert_eq!(robust(bins), expected, "{:?}", named(bins));
        assert!(matches!(bins[2], Some('B' | 'C')), "{:?}", named(bins));
        assert!(matches!(bins[5], Some('A' | 'C')), "{:?}", named(bins));
    }
    // C1's slide on the lower track, 1.7 s to 2.0 s (it lands at 1.5 s, has settled on a face
    // by 1.7 s, and nears door 2 after 2.0 s): the mean acceleration is the closed form's to
    // 1 % (measured 111.7 and 111.3 cm/s² in runs that ended in B and in C).
    let slide = (c1_speeds[200] - c1_speeds[170]) / 0.3;
    let closed_form = 981.0 * (15f64.to_radians().sin() - 0.15 * 15f64.to_radians().cos());
    assert!(
        (slide - closed_form).abs() <= 0.01 * closed_form,
        "C1 slid at {slide} cm/s², closed form {closed_form}"
    );
    // Held contacts stay near their held gap (ε/100): deepest measured 1.1e-3 cm (0.11 ε);
    // 9.7e-3 cm before the collision solve after a door's impulse.
    assert!(deepest <= 2e-3, "deepest overlap {deepest} cm");
}

#[test]
fn the_part_sorter_runs_to_its_end_under_penalty_contact() {
    // The first 1.5 s (the whole 4 s costs 89 s of CPU in a release build, past a test's
    // budget; run from the CLI it sorts A1 A, B1 B, C1 B, A2 A, B2 A, C2 C, as the constraint
    // model does: docs/sources.md). On main A1 stalled at door 1's upstream edge from 0.24 s
    // until B1 knocked it on at 0.79 s (x = 56.47 cm, 61 cm at 1.0 s), and B1 stalled there
    // in turn. Now A1 glides over the door (it holds A's weight) and off the upper track's end
    // (x = 96.6) before 1.0 s — sliding from rest at g (sin 15° − 0.15 cos 15°) = 111.8 cm/s²
    // covers the 45 cm from its start to the end in 0.90 s (measured x = 97.0 at 0.9 s, 106.8
    // at 1.0 s) — and is down by the floor (z < 10 cm; measured 3.3) at 1.5 s; B1 opens door 1
    // and drops through it towards the lower track (below z = 45 cm at 1.5 s; measured 41.0).
    // The energy never rises above the start's by more than the engine's allowance for
    // microcollisions (as in `sorted`). The deepest overlap counts the springs' own: a held
    // contact is let go once it sinks past the envelope, found at the end of the integration
    // step that crosses it, so up to 1.1 ε (measured 1.022 ε; see docs/sources.md for a held
    // edge whose reading goes to 1.8 ε later in the run).
    let mut world = shipped_under("hybrid/part_sorter.toml", "penalty");
    let start = world.energy().total();
    let allowance = 10.0 * 0.5 * 356.0 * (5.0f64 * (2.0 * 981.0 * 0.01f64).sqrt()).powi(2);
    let mut highest = start;
    let a1 = world.body_id("part A1").expect("A1");
    let b1 = world.body_id("part B1").expect("B1");
    for i in 1..=150 {
        let t = f64::from(i) * 0.01;
        if let Err(e) = world.advance_to(t) {
            panic!("penalty: {e}");
        }
        world.take_events();
        highest = highest.max(world.energy().total());
        if i == 100 {
            let x = world.body(a1).state().position.x;
            assert!(x > 96.6, "A1 at x = {x} at 1.0 s");
        }
    }
    assert!(
        world.max_penetration() <= 0.011,
        "overlapped {}",
        world.max_penetration()
    );
    assert!(
        highest - start <= allowance,
        "energy rose {} above the start's {start}",
        highest - start
    );
    let a1_z = world.body(a1).state().position.z;
    assert!(a1_z < 10.0, "A1 at z = {a1_z} at 1.5 s");
    let b1_z = world.body(b1).state().position.z;
    assert!(b1_z < 45.0, "B1 at z = {b1_z} at 1.5 s");
}

#[test]
fn a_part_sliding_across_a_ledges_side_edge_stays_flat_and_straight() {
    // A 4 × 4 × 2 cm part of 8 g overhanging the side edge (y = 4) of a 30 × 8 cm ledge by a
    // quarter of its width (centre at y = 3, over the ledge), launched along +x at 100 cm/s
    // with μ = 0.15, under constraint contact. Its bottom face holds it flat on the ledge's
    // top face and nothing pushes it sideways, so at 0.2 s (before its front reaches the
    // ledge's end at 0.24 s): y = 3 to 1e-4 cm, its centre at the held height 1 + ε/100 =
    // 1.0001 to 1e-3 cm, and vx = 100 − μ g t = 70.57 cm/s to 0.05 (Coulomb, the whole weight
    // on the ledge).
    //
    // Regression (issue 35, the part sorter under the live slip direction): the crossing of
    // the part's front bottom edge with the ledge's side edge was held as a fixed point of the
    // ledge's edge on the plane of the part's edge, with no outline: each pair check left
    // one behind (63 to 111 on one part in the part sorter, whose flights restarted with
    // every new one), holding the part's plane where its edge had passed. Here they tilted
    // and pushed the part: y = 2.986, z = 1.00254 at 0.2 s. Such a point is now let go once
    // it is off the edge's strip (`world::held_faces::edge_strip`).
    let text = r#"
[world]
contact_model = "constraint"
gravity = [0, 0, -981]
duration = 0.4
collision_epsilon = 0.01

[materials.rough]
friction = 0.15
restitution = 0

[[bodies]]
name = "ledge"
motion = "fixed"
shape = { type = "box", size = [30, 8, 1] }
position = [-15, 0, -0.5]
material = "rough"

[[bodies]]
name = "part"
shape = { type = "box", size = [4, 4, 2] }
mass = 8
position = [-26, 3, 1.001]
velocity = [100, 0, 0]
material = "rough"
"#;
    let mut world = world_of(text);
    let id = world.body_id("part").expect("the part");
    world.advance_to(0.2).expect("runs");
    let s = world.body(id).state();
    assert!((s.position.y - 3.0).abs() < 1e-4, "y = {}", s.position.y);
    assert!((s.position.z - 1.0001).abs() < 1e-3, "z = {}", s.position.z);
    let coulomb = 100.0 - 0.15 * 981.0 * 0.2;
    assert!(
        (s.velocity.x - coulomb).abs() < 0.05,
        "vx = {} against {coulomb}",
        s.velocity.x
    );
}

#[test]
fn each_type_alone_reaches_its_own_bin_under_constraint_contact() {
    // The sorter's design (the scene's notes, and the impulse model's
    // `hybrid_scenes::part_sorter_sorts_each_type_by_weight`): one part at a time from the foot
    // of the track, the light A (8 g) glides over door 1 and off the upper track's end (it lands
    // past x = 90 cm); B (30 g) opens door 1 (its moment on the door 142 000 g·cm²/s² against
    // the spring's hold of 100 000), drops onto the lower track and glides over door 2 (hold
    // 305 000) to its end (lands before x = 15 cm); C (120 g, 569 000) opens both and lands
    // between (25 to 60 cm). Under constraint contact each part is held on the tracks and
    // loads the doors by forces, not by microcollisions: the same bins (measured: A lands at
    // x = 127.4 cm, B at −14.8, C at 38.0), with no overlap deeper than a fifth of the envelope
    // (measured none).
    for (name, bin) in [
        ("part A1", 90.0..f64::INFINITY),
        ("part B1", f64::NEG_INFINITY..15.0),
        ("part C1", 25.0..60.0),
    ] {
        let (x, deepest) = common::scenes::part_sorter_landing("constraint", name);
        eprintln!("{name} lands at x = {x} (deepest overlap {deepest} cm)");
        assert!(
            bin.contains(&x),
            "{name} landed at x = {x} ({bin:?} expected)"
        );
        assert!(deepest < 0.2 * 0.01, "{name}: overlap {deepest} cm");
    }
}

#[test]
fn each_type_alone_reaches_its_own_bin_under_penalty_contact() {
    // As under constraint contact (above), with the contacts held by springs: the same bins.
    // The springs let a held contact sink to the gap where they carry its load, deeper at a
    // door's impulse (measured: A lands at x = 127.4 cm, B at −14.9, C at 36.0; deepest
    // overlaps 0.15, 0.59 and 0.21 ε). B's 0.59 ε is its landing on the lower track at
    // 0.922 s: it drops through door 1 and lands upside down, turning flat at about 9.5
    // rad/s; the pair is held as springs (its closest points approach slower than the rest
    // speed) while the far corners still close at about 18.5 cm/s, and a spring stops an
    // approach v within v / ω₀ = 18.5 / 3132 = 0.0059 cm (ω₀ = √(g / (ε/100)); the
    // `springs_answer` rule of world/penalty.rs). The bound is 0.7 ε: inside the envelope,
    // which a held contact may not pass.
    for (name, bin) in [
        ("part A1", 90.0..f64::INFINITY),
        ("part B1", f64::NEG_INFINITY..15.0),
        ("part C1", 25.0..60.0),
    ] {
        let (x, deepest) = common::scenes::part_sorter_landing("penalty", name);
        eprintln!("{name} lands at x = {x} (deepest overlap {deepest} cm)");
        assert!(
            bin.contains(&x),
            "{name} landed at x = {x} ({bin:?} expected)"
        );
        assert!(deepest < 0.7 * 0.01, "{name}: overlap {deepest} cm");
    }
}
