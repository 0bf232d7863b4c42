//! Controllers on free bodies, written as scene files (Mirtich §5.4, §7.3): the pose PD's
//! static sag, goal sequences, goals in another body's frame (controllers observing each
//! other), the bottle's ballistic hop, determinism whatever the output rate, and bad input.

mod common;

use std::path::Path;

use common::scenes::{self, shipped};
use impulse::math::{Quat, Vec3};
use impulse::scene::{self, Diagnostic};

fn parse(text: &str) -> Result<scene::Scene, Vec<Diagnostic>> {
    scenes::parse(Path::new("controllers.toml"), text)
}

/// A free body: a one-link multibody on a floating joint.
fn free_box(name: &str, position: [f64; 3], mass: f64) -> String {
    format!(
        "[[multibodies]]\nname = \"{name}\"\n[[multibodies.links]]\nname = \"{name}\"\nshape = {{ type = \"box\", size = [0.6, 0.4, 0.3] }}\nmass = {mass}\nposition = [{}, {}, {}]\n[[multibodies.joints]]\ntype = \"floating\"\nchild = \"{name}\"\n",
        position[0], position[1], position[2]
    )
}

/// Position of the first link's centre and its model frame's orientation.
fn pose_of(scene: &scene::Scene, name: &str) -> (Vec3, Quat) {
    let world = &scene.world;
    let id = world.multibody_id(name).expect("multibody");
    let mb = world.multibody(id);
    (
        mb.link_pose(0).translation.vector,
        mb.link_model_pose(0).rotation,
    )
}

/// The shipped controlled box: a 10 kg box held by a pose PD (k_p = 400 N/m) against gravity
/// settles m g / k_p = 0.24525 m below its target (the PD's static error, V23 for a free
/// body), turned by its 90° target about z.
#[test]
fn a_pose_pd_holds_a_free_box_with_the_static_sag_m_g_over_kp() {
    let path = shipped("multibody/controlled_box.toml");
    let mut scene = scene::load(&path).unwrap();
    scene.world.advance_to(5.0).unwrap();
    let (x, q) = pose_of(&scene, "crate");
    let sag = 10.0 * 9.81 / 400.0;
    // Damping ratio 0.95 at 6.3 rad/s: after 5 s the transient is below 1e-12.
    assert!((x - Vec3::new(1.0, 0.5, 1.0 - sag)).norm() < 1e-6, "{x}");
    let target = Quat::from_axis_angle(&Vec3::z_axis(), 90f64.to_radians());
    assert!(q.angle_to(&target) < 1e-6, "{}", q.angle_to(&target));
}

/// The bottle's hop (§7.3) in closed form: a free body at rest is given, at its first update,
/// the velocity of the parabola that reaches the landing point after the flight time, so it is
/// there at t = 0.5 s, to the integrator's tolerance. It does not hop while within `reach`.
#[test]
fn a_hop_lands_on_its_mark_in_the_flight_time() {
    let text = format!(
        "[world]\ngravity = [0, 0, -9.81]\n{}[[multibodies.controllers]]\ntype = \"hop\"\nlink = \"bottle\"\nlanding = [1.5, -0.5, 0.8]\nflight_time = 0.5\nreach = 0.01\nrest_speed = 0.01\nrate = 20\n",
        free_box("bottle", [0.0, 0.0, 0.0], 1.0)
    );
    let mut scene = parse(&text).unwrap();
    scene.world.advance_to(0.5).unwrap();
    let (x, _) = pose_of(&scene, "bottle");
    assert!(
        (x - Vec3::new(1.5, -0.5, 0.8)).norm() < 1e-6,
        "landed at {x}"
    );
    // Launch velocity (x_land − x − ½ g T²) / T = (3, −1, 1.6 + 2.4525); at landing the
    // vertical velocity has lost g T.
    let id = scene.world.multibody_id("bottle").unwrap();
    let (v, w) = scene.world.multibody(id).link_velocity(0);
    let expected = Vec3::new(3.0, -1.0, (0.8 + 0.5 * 9.81 * 0.25) / 0.5 - 9.81 * 0.5);
    assert!((v - expected).norm() < 1e-6, "{v} vs {expected}");
    assert!(w.norm() < 1e-12);
}

/// A leader steps through three goals (zero gravity, nothing to collide with), and a follower
/// holds a pose given in the leader's frame. At the end both sit at their goals.
const LEADER_AND_FOLLOWER: &str = r#"
[[multibodies.controllers]]
type = "pose_pd"
link = "leader"
rate = 50
kp = 100
kv = 60
kp_angular = 10
kv_angular = 4
max_force = 40
goal_distance = 0.01
goal_angle = 1
goal_speed = 0.01
goal_angular_speed = 0.01
goals = [
  { position = [1, 0, 0] },
  { position = [1, 1, 0], orientation = { axis = [0, 0, 1], angle = 90 } },
  { position = [0, 1, 0.5], orientation = { axis = [0, 0, 1], angle = 180 } },
]
"#;

const FOLLOWER_CONTROLLER: &str = r#"
[[multibodies.controllers]]
type = "pose_pd"
link = "follower"
relative_to = "leader"
rate = 50
kp = 100
kv = 60
kp_angular = 10
kv_angular = 4
goals = [{ position = [0, -2, 0], orientation = { axis = [0, 0, 1], angle = 30 } }]
"#;

fn leader_and_follower() -> String {
    format!(
        "[world]\ngravity = [0, 0, 0]\n{}{LEADER_AND_FOLLOWER}{}{FOLLOWER_CONTROLLER}",
        free_box("leader", [0.0, 0.0, 0.0], 10.0),
        free_box("follower", [3.0, 0.0, 0.0], 10.0)
    )
}

#[test]
fn a_goal_sequence_is_followed_and_a_follower_keeps_its_place() {
    let mut scene = parse(&leader_and_follower()).unwrap();
    scene.world.advance_to(20.0).unwrap();
    let (x, q) = pose_of(&scene, "leader");
    // The last goal, held (no load: no static error).
    let last = Quat::from_axis_angle(&Vec3::z_axis(), 180f64.to_radians());
    assert!(
        (x - Vec3::new(0.0, 1.0, 0.5)).norm() < 1e-6,
        "leader at {x}"
    );
    assert!(q.angle_to(&last) < 1e-6);
    // The follower at leader · (0, −2, 0), turned 30° from the leader: (0, 3, 0.5), 210°.
    let (y, r) = pose_of(&scene, "follower");
    let turned = Quat::from_axis_angle(&Vec3::z_axis(), 210f64.to_radians());
    assert!(
        (y - Vec3::new(0.0, 3.0, 0.5)).norm() < 1e-6,
        "follower at {y}"
    );
    assert!(r.angle_to(&turned) < 1e-6);
}

/// The follower reads the leader as observed before its own update, so the result does not
/// depend on how the run is cut into steps (output frames): one step or a thousand give the
/// same bits.
#[test]
fn observing_controllers_are_deterministic_whatever_the_output_rate() {
    let run = |steps: usize| {
        let mut scene = parse(&leader_and_follower()).unwrap();
        for k in 1..=steps {
            scene
                .world
                .advance_to(3.0 * k as f64 / steps as f64)
                .unwrap();
        }
        let (x, q) = pose_of(&scene, "follower");
        (x, q.coords)
    };
    let once = run(1);
    assert_eq!(once, run(1000));
    assert_eq!(once, run(7));
}

fn errors(text: &str) -> Vec<Diagnostic> {
    scenes::errors(Path::new("controllers.toml"), text)
}

fn has_error(text: &str, key: &str, needle: &str) {
    let errors = errors(text);
    assert!(
        errors
            .iter()
            .any(|e| e.key == key && e.message.contains(needle)),
        "no error at `{key}` containing `{needle}`: {errors:#?}"
    );
}

#[test]
fn bad_controller_input_is_located() {
    // Steering by a multibody that does not exist.
    let text = format!(
        "{}{}",
        free_box("follower", [0.0, 0.0, 0.0], 1.0),
        FOLLOWER_CONTROLLER
    );
    has_error(
        &text,
        "multibodies[0].controllers[0].relative_to",
        "no multibody named `leader`",
    );
    // … or one without controllers (it is never observed).
    let text = format!(
        "{}{}{}",
        free_box("leader", [0.0, 0.0, 0.0], 1.0),
        free_box("follower", [3.0, 0.0, 0.0], 1.0),
        FOLLOWER_CONTROLLER
    );
    has_error(
        &text,
        "multibodies[1].controllers[0].relative_to",
        "has no controllers",
    );
    // Goals and a single target together.
    let text = format!(
        "{}[[multibodies.controllers]]\ntype = \"pose_pd\"\nlink = \"a\"\nrate = 10\nkp = 1\ntarget_position = [0, 0, 1]\ngoals = [{{ position = [1, 0, 0] }}]\n",
        free_box("a", [0.0, 0.0, 0.0], 1.0)
    );
    has_error(&text, "multibodies[0].controllers[0].goals", "not both");
    // A hop without a flight time, and a misspelt key.
    let text = format!(
        "{}[[multibodies.controllers]]\ntype = \"hop\"\nlink = \"a\"\nrate = 10\nlanding = [0, 0, 1]\nrech = 0.1\n",
        free_box("a", [0.0, 0.0, 0.0], 1.0)
    );
    has_error(
        &text,
        "multibodies[0].controllers[0].flight_time",
        "missing",
    );
    has_error(&text, "multibodies[0].controllers[0].rech", "");
}

/// A hop needs a free body: on a hinged link it is refused when the multibody is built.
#[test]
fn a_hop_on_a_hinged_link_is_refused() {
    let text = "[[multibodies]]\nname = \"arm\"\n[[multibodies.links]]\nname = \"a\"\nshape = { type = \"box\", size = [0.4, 0.05, 0.05] }\nmass = 1.0\n[[multibodies.joints]]\ntype = \"revolute\"\nchild = \"a\"\naxis = [0, 1, 0]\n[[multibodies.controllers]]\ntype = \"hop\"\nlink = \"a\"\nrate = 10\nlanding = [0, 0, 1]\nflight_time = 0.5\n";
    let errors = errors(text);
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("a hop needs a free body")),
        "{errors:#?}"
    );
}

/// Regression (found by mutating `scenes/multibody/pd_arm.toml`): a controller at 1e308 updates
/// per unit time stepped the multibody 1e-308 at a time, and the run never ended. Controllers
/// may update at most a million times per unit time; a thousand is fine.
#[test]
fn a_controller_updating_absurdly_often_is_refused() {
    let arm = |rate: &str| {
        format!(
            "[[multibodies]]\nname = \"arm\"\n[[multibodies.links]]\nname = \"a\"\n\
             shape = {{ type = \"box\", size = [0.4, 0.05, 0.05] }}\nmass = 1.0\n\
             [[multibodies.joints]]\nname = \"hinge\"\ntype = \"revolute\"\nchild = \"a\"\n\
             axis = [0, 1, 0]\n[[multibodies.controllers]]\ntype = \"pd\"\njoint = \"hinge\"\n\
             target = 45\nkp = 10\nkv = 1\nrate = {rate}\n"
        )
    };
    assert!(
        errors(&arm("1000")).is_empty(),
        "{:#?}",
        errors(&arm("1000"))
    );
    // Located at the `rate` key (line 18 of the text), not only at the multibody.
    let text = arm("1e308");
    has_error(
        &text,
        "multibodies[0].controllers[0].rate",
        "expected at most 1e6 updates per unit time",
    );
    let errors = errors(&text);
    assert!(errors.iter().any(|e| e.line == 18), "{errors:#?}");
}
