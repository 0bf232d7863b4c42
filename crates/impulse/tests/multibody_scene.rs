//! Multibody scene files: a valid scene loads and runs end to end; bad input (cycles, missing
//! links, bodies and joints, non-positive inertia, a zero-pitch screw, misplaced keys) gets
//! located errors at load, never a panic; a diverging multibody stops the run with an error
//! naming the multibody, the joint and the time.

mod common;

use std::path::Path;

use common::scenes::{self, shipped};
use impulse::scene::{self, Diagnostic};
use impulse::world::SimulationError;

fn parse(text: &str) -> Result<scene::Scene, Vec<Diagnostic>> {
    scenes::parse(Path::new("mb.toml"), text)
}

fn errors(text: &str) -> Vec<Diagnostic> {
    scenes::errors(Path::new("mb.toml"), text)
}

/// Exactly one error, at this line and key, whose message contains `needle`.
fn single_error(text: &str, line: usize, key: &str, needle: &str) {
    let errors = errors(text);
    assert_eq!(errors.len(), 1, "expected one error, got {errors:#?}");
    let e = &errors[0];
    assert_eq!((e.line, e.key.as_str()), (line, key), "wrong place: {e}");
    assert!(
        e.message.contains(needle),
        "message `{}` lacks `{needle}`",
        e.message
    );
}

const TWO_LINKS: &str = r#"[[multibodies]]
name = "arm"
[[multibodies.links]]
name = "a"
shape = { type = "box", size = [0.4, 0.05, 0.05] }
mass = 1.0
position = [0.2, 0, 0]
[[multibodies.links]]
name = "b"
shape = { type = "box", size = [0.4, 0.05, 0.05] }
mass = 1.0
position = [0.6, 0, 0]
"#;

const JOINT_A: &str = "[[multibodies.joints]]\ntype = \"revolute\"\nchild = \"a\"\nanchor = [0, 0, 0]\naxis = [0, 1, 0]\n";

#[test]
fn a_valid_multibody_scene_loads_and_runs() {
    let text = format!(
        "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"a\"\nchild = \"b\"\nanchor = [0.4, 0, 0]\naxis = [0, 1, 0]\ninitial_position = 10\n[[multibodies.controllers]]\ntype = \"pd\"\njoint = \"b\"\ntarget = 20\nkp = 50\nkv = 5\nrate = 500\n"
    );
    let mut scene = parse(&text).expect("valid scene");
    let mb = &scene.world.multibodies()[0];
    assert_eq!(mb.tree().links().len(), 2);
    // 10° written in the file is stored in radians.
    assert!((mb.q()[1] - 10f64.to_radians()).abs() < 1e-15);
    scene.world.advance_to(0.5).unwrap();
    assert!(scene.world.energy().total().is_finite());
}

#[test]
fn a_cycle_of_joints_is_an_error() {
    let text = format!(
        "{TWO_LINKS}[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"b\"\nchild = \"a\"\naxis = [0, 1, 0]\n[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"a\"\nchild = \"b\"\naxis = [0, 1, 0]\n"
    );
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].message.contains("cycle"), "{}", errors[0]);
    assert!(
        errors[0].message.contains("a → b") || errors[0].message.contains("b → a"),
        "{}",
        errors[0]
    );
    assert_eq!(
        (errors[0].line, errors[0].key.as_str()),
        (1, "multibodies[0]")
    );
}

#[test]
fn missing_links_bodies_and_joints_are_located() {
    // A joint whose child is not a link.
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"a\"\nchild = \"c\"\naxis = [0, 1, 0]\n"
        ),
        21,
        "multibodies[0].joints[1].child",
        "no link named `c`",
    );
    // A joint whose parent is nothing.
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"ceiling\"\nchild = \"b\"\naxis = [0, 1, 0]\n"
        ),
        20,
        "multibodies[0].joints[1].parent",
        "no link or body named `ceiling`",
    );
    // A link without a joint.
    let e = errors(&format!("{TWO_LINKS}{JOINT_A}"));
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].message.contains("link `b` has no joint"), "{}", e[0]);
    // A controller on a missing joint.
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"fixed\"\nparent = \"a\"\nchild = \"b\"\n[[multibodies.controllers]]\ntype = \"pd\"\njoint = \"elbow\"\nkp = 1\nrate = 100\n"
        ),
        24,
        "multibodies[0].controllers[0].joint",
        "no joint named `elbow`",
    );
}

#[test]
fn zero_or_negative_inertia_is_an_error() {
    let text = TWO_LINKS.replacen("mass = 1.0", "mass = 0", 1);
    single_error(
        &format!(
            "{text}{JOINT_A}[[multibodies.joints]]\ntype = \"fixed\"\nparent = \"a\"\nchild = \"b\"\n"
        ),
        6,
        "multibodies[0].links[0].mass",
        "expected a positive number",
    );
    let text = TWO_LINKS.replacen("mass = 1.0", "mass = -2.5", 1);
    single_error(
        &format!(
            "{text}{JOINT_A}[[multibodies.joints]]\ntype = \"fixed\"\nparent = \"a\"\nchild = \"b\"\n"
        ),
        6,
        "multibodies[0].links[0].mass",
        "expected a positive number",
    );
}

#[test]
fn a_zero_pitch_screw_is_refused() {
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"screw\"\nparent = \"a\"\nchild = \"b\"\naxis = [1, 0, 0]\npitch = 0\n"
        ),
        23,
        "multibodies[0].joints[1].pitch",
        "use type = \"revolute\"",
    );
}

#[test]
fn misplaced_keys_are_rejected_with_suggestions() {
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"revolute\"\nparent = \"a\"\nchild = \"b\"\naxis = [0, 1, 0]\nstifness = 3\n"
        ),
        23,
        "multibodies[0].joints[1].stifness",
        "did you mean `stiffness`?",
    );
    // A link is moved by its joint, not given a velocity.
    let text = TWO_LINKS.replacen(
        "position = [0.6, 0, 0]",
        "position = [0.6, 0, 0]\nvelocity = [1, 0, 0]",
        1,
    );
    single_error(
        &format!(
            "{text}{JOINT_A}[[multibodies.joints]]\ntype = \"fixed\"\nparent = \"a\"\nchild = \"b\"\n"
        ),
        13,
        "multibodies[0].links[1].velocity",
        "moved by its joint",
    );
    // An axis on a spherical joint means nothing.
    single_error(
        &format!(
            "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"spherical\"\nparent = \"a\"\nchild = \"b\"\naxis = [0, 1, 0]\n"
        ),
        22,
        "multibodies[0].joints[1].axis",
        "unknown key `axis`",
    );
}

#[test]
fn a_diverging_multibody_stops_the_run_naming_the_joint_and_time() {
    // An absurdly stiff PD sampled at 10 Hz is unstable: the state grows without bound.
    let text = format!(
        "{TWO_LINKS}{JOINT_A}[[multibodies.joints]]\ntype = \"fixed\"\nparent = \"a\"\nchild = \"b\"\n[[multibodies.controllers]]\ntype = \"pd\"\njoint = \"a\"\ntarget = 30\nkp = 1e6\nrate = 10\n"
    );
    let mut scene = parse(&text).expect("valid scene");
    let error = scene
        .world
        .advance_to(1000.0)
        .expect_err("the run must stop");
    let SimulationError::Multibody {
        multibody,
        ref error,
    } = error
    else {
        panic!("unexpected error {error}");
    };
    assert_eq!(multibody, "arm");
    let message = format!("multibody `{multibody}`, {error}");
    assert!(
        message.contains("joint `a`") && message.contains("t = "),
        "{message}"
    );
    println!("{message}");
}

/// Every prefix and many one-character mutations of a multibody scene parse without panicking.
#[test]
fn mangled_multibody_scenes_never_panic() {
    let path = shipped("multibody/pd_arm.toml");
    let base = std::fs::read_to_string(&path).unwrap();
    let replacements = ["0", "-", "\"", "]", "x", "1e400", "", "[", "="];
    let mut runs = 0;
    for (k, (i, c)) in base.char_indices().enumerate().step_by(3) {
        let replacement = replacements[k % replacements.len()];
        let mutated = format!("{}{}{}", &base[..i], replacement, &base[i + c.len_utf8()..]);
        let _ = scene::parse(&path, &mutated);
        let _ = scene::parse(&path, &base[..i]);
        runs += 2;
    }
    assert!(runs > 500);
}

/// The shipped multibody scenes load without errors or warnings.
#[test]
fn shipped_multibody_scenes_load() {
    let dir = shipped("multibody");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let scene = scenes::load(&path);
            assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
            count += 1;
        }
    }
    assert!(count >= 3);
}

/// The same multibody scene gives the same trajectory bytes (controllers, limits and springs
/// included), and sampling it at different frame rates does not change the motion.
#[test]
fn multibody_runs_are_deterministic() {
    use impulse::run::events::EventWriter;
    use impulse::run::trajectory::TrajectoryWriter;
    use impulse::run::{Recorders, run_scene};
    use impulse::scene::RunOptions;
    let path = shipped("multibody/pd_arm.toml");
    let run = |rate: f64| {
        let mut scene = scene::load(&path).unwrap();
        let mut writer = TrajectoryWriter::new(std::io::sink()).unwrap();
        let mut events = EventWriter::new(std::io::sink(), &scene.world).unwrap();
        let options = RunOptions {
            duration: 1.0,
            frame_rate: rate,
        };
        let mut records = Recorders {
            trajectory: &mut writer,
            events: &mut events,
        };
        let outcome = run_scene(&mut scene, &options, &mut records, &mut |_| {}).unwrap();
        assert!(outcome.error.is_none());
        // The final frame's rows, as written to trajectory.csv.
        let mut bytes = Vec::new();
        TrajectoryWriter::new(&mut bytes)
            .unwrap()
            .write_frame(&scene.world)
            .unwrap();
        bytes
    };
    let last_first = run(50.0);
    let last_second = run(50.0);
    assert_eq!(last_first, last_second, "same scene, same bytes");
    let last_fine = run(200.0);
    assert_eq!(
        last_first, last_fine,
        "the frame rate does not change the motion"
    );
}

/// A small creature war: a two-wheeled cart on a floating joint hunting one bug.
const CREATURES: &str = r#"[world]
gravity = [0, 0, -981]
[[bodies]]
name = "ground"
motion = "fixed"
shape = { type = "halfspace" }
[[multibodies]]
name = "cart"
[[multibodies.links]]
name = "chassis"
shape = { type = "box", size = [20, 10, 4] }
mass = 1000
position = [0, 0, 6]
[[multibodies.joints]]
type = "floating"
child = "chassis"
[[multibodies.links]]
name = "left"
shape = { type = "sphere", radius = 5 }
mass = 100
position = [5, 8, 5.005]
[[multibodies.joints]]
type = "revolute"
parent = "chassis"
child = "left"
axis = [0, 1, 0]
[[multibodies.links]]
name = "right"
shape = { type = "sphere", radius = 5 }
mass = 100
position = [5, -8, 5.005]
[[multibodies.joints]]
type = "prismatic"
parent = "chassis"
child = "right"
axis = [0, 0, 1]
[[multibodies.controllers]]
type = "rover"
rate = 1000
left_wheels = ["left"]
right_wheels = ["left"]
wheel_radius = 5
wheel_kv = 1e5
speed = 20
prey = ["bug"]
arena = 100
[[multibodies]]
name = "bug"
[[multibodies.links]]
name = "body"
shape = { type = "ellipsoid", radii = [4, 3, 2] }
mass = 50
position = [50, 0, 2.005]
[[multibodies.joints]]
type = "floating"
child = "body"
[[multibodies.links]]
name = "leg"
shape = { type = "sphere", radius = 1 }
mass = 5
position = [50, 4, 1.005]
[[multibodies.joints]]
type = "revolute"
parent = "body"
child = "leg"
axis = [0, 1, 0]
[[multibodies.controllers]]
type = "bug"
rate = 1000
left_leg = "leg"
right_leg = "leg"
leg_rate = 5
leg_kv = 1e3
threat = "cart"
threat_radius = 30
arena = 100
"#;

/// Line (1-based) of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn creature_controllers_load_run_and_are_checked() {
    // The valid scene loads and runs.
    let mut scene = parse(CREATURES).expect("valid creature scene");
    scene.world.advance_to(0.2).unwrap();
    let key = "multibodies[0].controllers[0]";
    // A wheel that is not a joint of the rover.
    let text = CREATURES.replacen("right_wheels = [\"left\"]", "right_wheels = [\"rihgt\"]", 1);
    single_error(
        &text,
        line_of(&text, "rihgt"),
        &format!("{key}.right_wheels[0]"),
        "no joint named `rihgt` in multibody `cart`",
    );
    // A wheel on a prismatic joint.
    let text = CREATURES.replacen("right_wheels = [\"left\"]", "right_wheels = [\"right\"]", 1);
    single_error(
        &text,
        line_of(&text, "right_wheels"),
        &format!("{key}.right_wheels[0]"),
        "joint `right` is prismatic; expected revolute joint",
    );
    // Prey that does not exist.
    let text = CREATURES.replacen("prey = [\"bug\"]", "prey = [\"bug\", \"moth\"]", 1);
    single_error(
        &text,
        line_of(&text, "moth"),
        &format!("{key}.prey[1]"),
        "no multibody named `moth`",
    );
    // No prey at all.
    let text = CREATURES.replacen("prey = [\"bug\"]", "prey = []", 1);
    single_error(
        &text,
        line_of(&text, "prey = []"),
        &format!("{key}.prey"),
        "at least one",
    );
    // A threat without its radius.
    let text = CREATURES.replacen("threat_radius = 30\n", "", 1);
    single_error(
        &text,
        line_of(&text, "threat = "),
        "multibodies[1].controllers[0].threat",
        "`threat_radius`",
    );
    // A misspelt key, and a missing required one.
    let text = CREATURES.replacen("wheel_kv = 1e5", "wheel_kv = 1e5\nwheel_gain = 2", 1);
    single_error(
        &text,
        line_of(&text, "wheel_gain"),
        &format!("{key}.wheel_gain"),
        "unknown key `wheel_gain`",
    );
    let text = CREATURES.replacen("arena = 100\n", "", 1);
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].message.contains("arena"), "{}", errors[0]);
    // Mangled creature scenes never panic.
    let replacements = ["0", "-", "\"", "]", "x", "", "[", "="];
    for (k, (i, c)) in CREATURES.char_indices().enumerate() {
        let replacement = replacements[k % replacements.len()];
        let mutated = format!(
            "{}{}{}",
            &CREATURES[..i],
            replacement,
            &CREATURES[i + c.len_utf8()..]
        );
        let _ = parse(&mutated);
    }
}

#[test]
fn velocities_set_through_the_world_start_the_motion_and_bad_ones_are_refused() {
    // One 1 kg rod (0.4 × 0.05 × 0.05 m) on a revolute about y at its end, hanging along +x
    // in zero gravity: set spinning at 2 rad/s it keeps ½ I ω² with I = m (l² + h²)/12 +
    // m (l/2)² about the hinge (the rod's own inertia about y plus the parallel axis).
    let text = format!("[world]\ngravity = [0, 0, 0]\n{TWO_LINKS}{JOINT_A}")
        .replace("[[multibodies.links]]\nname = \"b\"\nshape = { type = \"box\", size = [0.4, 0.05, 0.05] }\nmass = 1.0\nposition = [0.6, 0, 0]\n", "");
    let mut scene = parse(&text).expect("valid scene");
    let id = scene.world.multibody_id("arm").expect("the arm");
    let refused = scene.world.set_multibody_velocities(id, &[1.0, 2.0]);
    assert!(refused.is_err(), "two velocities for one joint");
    assert!(
        scene
            .world
            .set_multibody_velocities(id, &[f64::NAN])
            .is_err()
    );
    scene.world.set_multibody_velocities(id, &[2.0]).unwrap();
    scene.world.advance_to(0.5).unwrap();
    let inertia = (0.4f64.powi(2) + 0.05f64.powi(2)) / 12.0 + 0.2f64.powi(2);
    let expected = 0.5 * inertia * 4.0;
    let kinetic = scene.world.energy().kinetic;
    assert!(
        (kinetic - expected).abs() < 1e-9 * expected,
        "{kinetic} vs {expected}"
    );
    // Turned by ω t about the hinge (integrated at the default tolerance).
    let q = scene.world.multibodies()[id.0].q()[0];
    assert!((q - 1.0).abs() < 1e-6, "{q}");
}
