//! Writing scenes by hand (issue 41, item 13): a pose given in another body's frame (a box on
//! a tilted ramp took hand trigonometry), rotations written as a sequence of axis-angle turns,
//! and an error that points to them when three numbers look like Euler angles.

mod common;

use std::path::Path;

use common::scenes;
use impulse::math::{Quat, Vec3};
use impulse::scene;

/// The scene's errors, as messages (none when it loads).
fn errors(text: &str) -> Vec<String> {
    let errors = scenes::errors(Path::new("authoring.toml"), text);
    errors.iter().map(ToString::to_string).collect()
}

const RAMP: &str = "[[bodies]]\nname = \"ramp\"\nmotion = \"fixed\"\n\
    shape = { type = \"box\", size = [2, 0.5, 0.1] }\nposition = [0.3, -0.2, 0.5]\n\
    orientation = { axis = [0, 1, 0], angle = 20 }\n";

/// `relative_to = "ramp"`: the block's position and orientation are in the ramp's model frame,
/// so its pose is the ramp's composed with the one written: position p_ramp + R_ramp p,
/// orientation R_ramp R (to 1e-15, rounding).
#[test]
fn a_body_placed_relative_to_a_tilted_ramp_sits_on_its_face() {
    let text = format!(
        "{RAMP}[[bodies]]\nname = \"block\"\nshape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\n\
         density = 500\nrelative_to = \"ramp\"\nposition = [-0.8, 0, 0.1]\n\
         orientation = {{ axis = [0, 0, 1], angle = 90 }}\n"
    );
    let scene = scene::parse(Path::new("authoring.toml"), &text).expect("loads");
    let world = &scene.world;
    let block = world.body(world.body_id("block").unwrap()).model_pose();
    let ramp_rotation = Quat::from_axis_angle(&Vec3::y_axis(), 20f64.to_radians());
    let expected_position = Vec3::new(0.3, -0.2, 0.5) + ramp_rotation * Vec3::new(-0.8, 0.0, 0.1);
    let expected_rotation =
        ramp_rotation * Quat::from_axis_angle(&Vec3::z_axis(), 90f64.to_radians());
    assert!((block.translation.vector - expected_position).norm() < 1e-15);
    assert!(block.rotation.angle_to(&expected_rotation) < 1e-15);
    // Touching the ramp's top face: the block's centre is 0.05 + 0.05 above it, along the
    // face's normal.
    let normal = ramp_rotation * Vec3::z();
    let height = normal.dot(&(block.translation.vector - Vec3::new(0.3, -0.2, 0.5)));
    assert!((height - 0.1).abs() < 1e-15, "{height}");
}

#[test]
fn relative_to_must_name_a_body_given_above() {
    let below = format!(
        "[[bodies]]\nname = \"block\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1\n\
         relative_to = \"ramp\"\n{RAMP}"
    );
    let found = errors(&below);
    assert!(
        found.len() == 1
            && found[0].contains("relative_to names `ramp`, which is not a body defined above"),
        "{found:?}"
    );
    let link = "[[multibodies]]\nname = \"m\"\n[[multibodies.links]]\nname = \"l\"\n\
        shape = { type = \"sphere\", radius = 0.1 }\nmass = 1\nrelative_to = \"x\"\n\
        [[multibodies.joints]]\ntype = \"floating\"\nchild = \"l\"\n";
    let found = errors(link);
    assert!(
        found.iter().any(|e| e.contains("takes no `relative_to`")),
        "{found:?}"
    );
}

/// Three numbers for an orientation are refused with the ways to write it (they were "expected
/// an array of 4 numbers"); a list of axis-angle turns is applied in order about the fixed
/// axes: 90° about z then 90° about x takes the model's x axis to y, then to z.
#[test]
fn orientations_are_axis_angle_turns_in_order_not_euler_angles() {
    let body = |orientation: &str| {
        format!(
            "[[bodies]]\nname = \"b\"\nshape = {{ type = \"box\", size = [1, 2, 3] }}\nmass = 1\n\
             orientation = {orientation}\n"
        )
    };
    let found = errors(&body("[0, 30, 0]"));
    assert!(
        found.len() == 1
            && found[0].contains("Euler angles")
            && found[0].contains("{ axis = [x, y, z], angle = degrees }"),
        "{found:?}"
    );
    let text = body("[{ axis = [0, 0, 1], angle = 90 }, { axis = [1, 0, 0], angle = 90 }]");
    let scene = scene::parse(Path::new("authoring.toml"), &text).expect("loads");
    let world = &scene.world;
    let rotation = world
        .body(world.body_id("b").unwrap())
        .model_pose()
        .rotation;
    assert!((rotation * Vec3::x() - Vec3::z()).norm() < 1e-15);
    assert!((rotation * Vec3::y() - (-Vec3::x())).norm() < 1e-15);
    let found = errors(&body("[{ axis = [0, 0, 1], angle = 90 }, [1, 0, 0, 0]]"));
    assert!(
        found.len() == 1 && found[0].contains("like the others in this list"),
        "{found:?}"
    );
}
