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

use common::scenes::{parse, shipped};
use impulse::World;

/// A world from scene text (`scene.toml` for its messages).
fn world_of(text: &str) -> World {
    match parse(std::path::Path::new("scene.toml"), text) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

/// The shipped part sorter with `contact_model` set to `model`.
fn part_sorter(model: &str) -> World {
    let path = shipped("hybrid/part_sorter.toml");
    let text = std::fs::read_to_string(&path).expect("the shipped scene");
    let text = text.replacen(
        "[world]\n",
        &format!("[world]\ncontact_model = \"{model}\"\n"),
        1,
    );
    match parse(&path, &text) {
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

[[bodies]]
name = "ledge"
motion = "fixed"
shape = {{ type = "box", size = [30, 8, 1] }}
position = [-15, 0, -0.5]
friction = 0
restitution = 0

[[bodies]]
name = "part"
shape = {{ type = "box", size = [4, 4, 2] }}
mass = 8
position = [{x0}, 0, 1.001]
velocity = [{speed}, 0, 0]
friction = 0
restitution = 0
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
fn a_held_part_glides_over_a_flush_seam_onto_a_kinematic_plate() {
    // Past the ledge's end, 0.13 cm on, a plate (a kinematic body at rest, answered by
    // impulses as a multibody link is) whose top face is flush with the ledge's, z = 0, as
    // door 1's is with the upper track within 2.5e-5 cm. The part, held 1e-4 cm (10⁻² ε)
    // above the ledge, slides frictionless at 20 cm/s from x = −6: its front reaches the seam
    // at 0.2 s, its centre is over the plate by 0.36 s. Nothing along x acts on it (the plate's
    // impulses are along its face normal, z, and frictionless), so at 0.5 s it moves at
    // 20 cm/s to 1e-6 and has travelled 10 cm to 1e-4 cm. On main the collision with the plate's
    // upstream edge, along the normal between the part's bottom edge and the plate's top edge
    // (nearly −x), stopped it at the seam.
    let plate = r#"
[[bodies]]
name = "plate"
motion = "kinematic"
kinematic = { velocity = [0, 0, 0] }
shape = { type = "box", size = [10, 8, 0.5] }
position = [5.13, 0, -0.25]
friction = 0
restitution = 0
"#;
    for model in ["constraint", "penalty"] {
        let mut world = world_of(&ledge_scene(model, -6.0, 20.0, plate));
        let id = world.body_id("part").expect("the part");
        world.advance_to(0.5).expect("runs");
        let s = world.body(id).state();
        assert!(
            (s.velocity.x - 20.0).abs() < 2e-5,
            "{model}: vx = {} at 0.5 s",
            s.velocity.x
        );
        assert!(
            (s.position.x - 4.0).abs() < 1e-4,
            "{model}: x = {} at 0.5 s",
            s.position.x
        );
    }
}
