//! Bad scene input: every class of mistake gets a located, explanatory error — never a panic.

mod common;

use std::path::{Path, PathBuf};

use common::scenes::{self, shipped};
use impulse::scene::{self, Diagnostic};

/// Directory of the test mesh fixtures (shared with the CLI's tests).
fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../impulse-cli/tests/data")
}

/// Parses `text` as if it were `data/scene.toml` and returns its errors.
fn errors(text: &str) -> Vec<Diagnostic> {
    scenes::errors(&data_dir().join("scene.toml"), text)
}

/// The single error of `text`, checked for its line, column and key.
fn single_error(text: &str, line: usize, column: usize, key: &str) -> Diagnostic {
    let errors = errors(text);
    assert_eq!(errors.len(), 1, "expected one error, got {errors:#?}");
    let e = errors.into_iter().next().unwrap();
    assert_eq!(
        (e.line, e.column, e.key.as_str()),
        (line, column, key),
        "wrong location: {e}"
    );
    assert!(e.to_string().contains("scene.toml:"), "{e}");
    e
}

const BALL: &str =
    "[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\ndensity = 1000\n";

#[test]
fn a_valid_scene_has_no_errors() {
    assert!(errors(BALL).is_empty());
}

#[test]
fn unknown_key_is_named_with_a_suggestion() {
    let e = single_error(&format!("{BALL}densty = 3\n"), 5, 1, "bodies[0].densty");
    assert!(e.message.contains("unknown key `densty`"), "{e}");
    assert!(e.message.contains("did you mean `density`?"), "{e}");
    let e = single_error(
        "[world]\ngravty = [0, 0, -9.81]\n[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\nmass = 1\n",
        2,
        1,
        "world.gravty",
    );
    assert!(e.message.contains("did you mean `gravity`?"), "{e}");
    // Unknown keys inside a shape table too.
    let e = single_error(
        "[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1, radiuss = 2 }\nmass = 1\n",
        3,
        40,
        "bodies[0].shape.radiuss",
    );
    assert!(e.message.contains("unknown key"), "{e}");
}

#[test]
fn wrong_types_say_what_was_expected() {
    let e = single_error(
        "[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = \"big\" }\nmass = 1\n",
        3,
        37,
        "bodies[0].shape.radius",
    );
    assert!(
        e.message.contains("expected a number, found a string"),
        "{e}"
    );
    let e = single_error(
        &format!("{BALL}position = [1, 2]\n"),
        5,
        12,
        "bodies[0].position",
    );
    assert!(
        e.message
            .contains("expected an array of 3 numbers, found 2 elements"),
        "{e}"
    );
    let e = single_error(
        &format!("{BALL}motion = \"floating\"\n"),
        5,
        10,
        "bodies[0].motion",
    );
    assert!(
        e.message.contains("\"dynamic\", \"fixed\", \"kinematic\""),
        "{e}"
    );
}

#[test]
fn missing_mesh_file_is_named() {
    let e = single_error(
        "[[bodies]]\nname = \"part\"\nshape = { type = \"mesh\", file = \"no_such.obj\" }\nmass = 1\n",
        3,
        33,
        "bodies[0].shape.file",
    );
    assert!(e.message.contains("no_such.obj"), "{e}");
    assert!(e.message.contains("cannot read"), "{e}");
}

#[test]
fn non_positive_mass_and_density_are_rejected() {
    let e = single_error(
        "[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\nmass = 0\n",
        4,
        8,
        "bodies[0].mass",
    );
    assert!(
        e.message.contains("expected a positive number, found 0"),
        "{e}"
    );
    let e = single_error(
        "[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\ndensity = -2.5\n",
        4,
        11,
        "bodies[0].density",
    );
    assert!(e.message.contains("found -2.5"), "{e}");
    let e = single_error(
        "[[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\n",
        1,
        1,
        "bodies[0]",
    );
    assert!(e.message.contains("missing `mass` or `density`"), "{e}");
}

#[test]
fn non_finite_numbers_are_rejected() {
    let e = single_error(
        &format!("{BALL}velocity = [0, nan, 0]\n"),
        5,
        16,
        "bodies[0].velocity[1]",
    );
    assert!(e.message.contains("finite"), "{e}");
    let e = single_error(
        &format!("[world]\nduration = inf\n{BALL}"),
        2,
        12,
        "world.duration",
    );
    assert!(e.message.contains("finite"), "{e}");
}

#[test]
fn zero_length_rotation_axis_is_rejected() {
    let e = single_error(
        &format!("{BALL}orientation = {{ axis = [0, 0, 0], angle = 30 }}\n"),
        5,
        24,
        "bodies[0].orientation.axis",
    );
    assert!(e.message.contains("zero length"), "{e}");
    let e = single_error(
        &format!("{BALL}orientation = [1, 0, 0, 1]\n"),
        5,
        15,
        "bodies[0].orientation",
    );
    assert!(e.message.contains("unit length"), "{e}");
}

fn mesh_error(file: &str) -> Diagnostic {
    single_error(
        &format!(
            "[[bodies]]\nname = \"part\"\nshape = {{ type = \"mesh\", file = \"{file}\" }}\nmass = 1\n"
        ),
        3,
        33,
        "bodies[0].shape.file",
    )
}

#[test]
fn open_mesh_is_located_at_its_face() {
    let e = mesh_error("open.obj");
    assert!(e.message.contains("open.obj:"), "{e}");
    assert!(e.message.contains("face 1"), "{e}");
    assert!(e.message.contains("the mesh is open"), "{e}");
}

#[test]
fn inverted_mesh_is_reported() {
    let e = mesh_error("inverted.obj");
    assert!(e.message.contains("wound clockwise"), "{e}");
}

#[test]
fn inconsistently_wound_face_is_located() {
    let e = mesh_error("flipped_face.obj");
    assert!(e.message.contains("windings disagree"), "{e}");
    assert!(e.message.contains("flipped_face.obj:"), "{e}");
}

#[test]
fn self_intersecting_mesh_is_reported() {
    let e = mesh_error("self_intersecting.obj");
    assert!(e.message.contains("intersects itself"), "{e}");
}

#[test]
fn zero_volume_mesh_is_reported() {
    let e = mesh_error("flat.obj");
    assert!(e.message.contains("no volume"), "{e}");
}

#[test]
fn syntax_error_is_located() {
    let errors = errors("[[bodies]]\nname = \"b\nmass = 1\n");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].line, 2);
    assert!(
        errors[0].message.starts_with("invalid TOML"),
        "{}",
        errors[0]
    );
}

#[test]
fn all_problems_are_listed_in_one_pass() {
    let text = "[world]\nduration = -1\n\n[[bodies]]\nname = \"a\"\nshape = { type = \"box\", size = [1, 0, 1] }\nmass = 1\n\n[[bodies]]\nname = \"a\"\nshape = { type = \"sphere\", radius = 1 }\ndensity = 1\nfriction = -0.1\nrestitution = 2\n";
    let errors = errors(text);
    let keys: Vec<&str> = errors.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        vec![
            "world.duration",
            "bodies[0].shape.size",
            "bodies[1].name",
            "bodies[1].friction",
            "bodies[1].restitution"
        ],
        "{errors:#?}"
    );
    assert!(errors[2].message.contains("already named `a` (line 5)"));
}

#[test]
fn semantic_errors_name_the_body() {
    // A half-space on a dynamic body, a fixed body given a velocity, an unknown material, an
    // empty kinematic motion, and a pair naming a missing body.
    let cases = [
        (
            "[[bodies]]\nname = \"g\"\nshape = { type = \"halfspace\" }\nmass = 1\n",
            "only a fixed body",
        ),
        (
            "[[bodies]]\nname = \"g\"\nmotion = \"fixed\"\nshape = { type = \"halfspace\" }\nvelocity = [1, 0, 0]\n",
            "not moved by velocities",
        ),
        (
            &format!("{BALL}material = \"rubber\"\n") as &str,
            "unknown material `rubber`",
        ),
        (
            "[[bodies]]\nname = \"p\"\nmotion = \"kinematic\"\nshape = { type = \"box\", size = [1, 1, 1] }\nkinematic = {}\n",
            "kinematic motion is empty",
        ),
        (
            &format!("{BALL}[[pairs]]\nbodies = [\"ball\", \"bat\"]\nfriction = 0.5\n") as &str,
            "no body is named `bat`",
        ),
    ];
    for (text, expected) in cases {
        let errors = errors(text);
        assert_eq!(errors.len(), 1, "{text}: {errors:#?}");
        assert!(errors[0].message.contains(expected), "{}", errors[0]);
    }
}

#[test]
fn no_input_makes_the_reader_panic() {
    // Deterministic mutations of a full scene: truncations, deletions and replacements at
    // every position must give errors (or a valid scene), never a panic.
    let base = std::fs::read_to_string(shipped("free/tossed_parts.toml")).unwrap();
    // Mesh-free so that the sweep stays fast.
    let base: String = base
        .split("[[bodies]]")
        .filter(|chunk| !chunk.contains("type = \"mesh\""))
        .collect::<Vec<_>>()
        .join("[[bodies]]");
    let replacements = [
        "", "0", "-1", "\"", "[", "{", "}", "]", "=", "\n", "nan", "x", "1e309", ",",
    ];
    let chars: Vec<(usize, char)> = base.char_indices().collect();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/free/mutated.toml");
    let mut runs = 0;
    for (k, &(i, c)) in chars.iter().enumerate().step_by(3) {
        let replacement = replacements[k % replacements.len()];
        let mutated = format!("{}{}{}", &base[..i], replacement, &base[i + c.len_utf8()..]);
        let _ = scene::parse(&path, &mutated);
        let _ = scene::parse(&path, &base[..i]);
        runs += 2;
    }
    assert!(runs > 1000);
}

#[test]
fn examples_in_the_scene_format_document_are_valid() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert!(!blocks.is_empty());
    for block in blocks {
        // Assembly scenes (an `[assembly]` table) have their own reader.
        if impulse::assembly::scene::is_assembly_scene(block) {
            let result = impulse::assembly::scene::parse(&doc_path, block);
            assert!(
                result.is_ok(),
                "example does not load:\n{block}\n{}",
                result.unwrap_err()
            );
            continue;
        }
        let result = scene::parse(&doc_path, block);
        assert!(
            result.is_ok(),
            "example does not load:\n{block}\n{}",
            result.unwrap_err()
        );
    }
}

/// Two balls of radius 0.1 whose centres are `gap` apart along x.
fn two_balls(gap: f64) -> String {
    format!(
        "[world]\ncollision_epsilon = 0.001\n{BALL}[[bodies]]\nname = \"other\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\ndensity = 1000\nposition = [{gap}, 0, 0]\n"
    )
}

#[test]
fn bodies_starting_deeper_than_the_envelope_are_an_error() {
    // Overlap 0.2 − 0.19 = 0.01, ten times ε.
    let e = single_error(&two_balls(0.19), 7, 1, "bodies[1]");
    assert!(
        e.message
            .contains("`ball` and `other` start interpenetrating by 1.000e-2"),
        "{e}"
    );
    // Overlap 0.0005 < ε: a warning only, the scene loads.
    let path = data_dir().join("scene.toml");
    let scene = scene::parse(&path, &two_balls(0.1995)).expect("a shallow overlap loads");
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.message.contains("within the collision envelope")),
        "{:#?}",
        scene.warnings
    );
    // Exactly touching: nothing to say.
    let scene = scene::parse(&path, &two_balls(0.2)).expect("touching bodies load");
    assert!(scene.warnings.is_empty(), "{:#?}", scene.warnings);
}

#[test]
fn contact_settings_are_read_and_checked() {
    use impulse::response::RestitutionLaw;
    use impulse::world::BroadPhaseKind;
    let path = data_dir().join("scene.toml");
    let text = format!(
        "[world]\nrestitution_law = \"poisson\"\nmicrocollisions = false\nmicrocollision_max_restitution = 3\nmicrocollision_rebound = 0.25\nmax_penetration = 0.002\nbox_period = 0.05\nbroad_phase = \"sweep_and_prune\"\ncontact_model = \"impulse\"\n{BALL}"
    );
    let scene = scene::parse(&path, &text).expect("valid settings");
    let settings = scene.world.settings();
    assert_eq!(settings.restitution_law, RestitutionLaw::Poisson);
    assert!(!settings.microcollisions);
    assert_eq!(settings.microcollision_max_restitution, 3.0);
    assert_eq!(settings.microcollision_rebound, Some(0.25));
    assert_eq!(settings.max_penetration, Some(0.002));
    assert_eq!(settings.box_period, 0.05);
    assert_eq!(settings.broad_phase, BroadPhaseKind::SweepAndPrune);
    let e = single_error(
        &format!("[world]\nrestitution_law = \"newton\"\n{BALL}"),
        2,
        19,
        "world.restitution_law",
    );
    assert!(e.message.contains("\"stronge\""), "{e}");
    let e = single_error(
        &format!("[world]\nmicrocollision_max_restitution = 0.5\n{BALL}"),
        2,
        34,
        "world.microcollision_max_restitution",
    );
    assert!(e.message.contains("at least 1"), "{e}");
    let e = single_error(
        &format!("[world]\nmicrocollision_rebound = 2\n{BALL}"),
        2,
        26,
        "world.microcollision_rebound",
    );
    assert!(e.message.contains("from 0 to 1"), "{e}");
    single_error(
        &format!("[world]\ncontact_model = \"lcp\"\n{BALL}"),
        2,
        17,
        "world.contact_model",
    );
}

#[test]
fn sleep_settings_are_read_and_checked() {
    let path = data_dir().join("scene.toml");
    let scene = scene::parse(&path, BALL).expect("valid scene");
    let sleep = scene.world.settings().sleep;
    assert!(sleep.enabled, "sleep is on by default");
    assert_eq!((sleep.time, sleep.speed), (0.5, None));
    let text = format!("[world]\nsleep = false\nsleep_time = 0.25\nsleep_speed = 0.3\n{BALL}");
    let sleep = scene::parse(&path, &text)
        .expect("valid settings")
        .world
        .settings()
        .sleep;
    assert!(!sleep.enabled);
    assert_eq!((sleep.time, sleep.speed), (0.25, Some(0.3)));
    let e = single_error(
        &format!("[world]\nsleep_time = -1\n{BALL}"),
        2,
        14,
        "world.sleep_time",
    );
    assert!(e.message.contains("positive"), "{e}");
    single_error(
        &format!("[world]\nsleep_speed = 0\n{BALL}"),
        2,
        15,
        "world.sleep_speed",
    );
    single_error(
        &format!("[world]\nsleep = \"yes\"\n{BALL}"),
        2,
        9,
        "world.sleep",
    );
}

/// Regression (found by mutating `scenes/hybrid/see_saw.toml`): a box 1e-12 thick and 30 long
/// reached the collision model, whose convex hull found no volume in its corners, and the
/// loader panicked. Primitives thinner than `MIN_PROPORTION` (1e-6) of their size are errors.
#[test]
fn a_box_too_thin_to_have_a_volume_is_an_error_not_a_panic() {
    let body = |shape: &str| format!("[[bodies]]\nname = \"b\"\nshape = {shape}\nmass = 1\n");
    let e = single_error(
        &body("{ type = \"box\", size = [1e-12, 30, 1] }"),
        3,
        9,
        "bodies[0].shape",
    );
    assert!(e.message.contains("1e-12 thick and 30 across"), "{e}");
    for thin in [
        "{ type = \"cylinder\", radius = 30, height = 1e-12 }",
        "{ type = \"ellipsoid\", radii = [30, 1, 1e-9] }",
        "{ type = \"capsule\", radius = 1e-9, length = 30 }",
    ] {
        let e = single_error(&body(thin), 3, 9, "bodies[0].shape");
        assert!(e.message.contains("thinner than 1e-6"), "{e}");
    }
    // As thin as 1e-5 of the size (a sheet 0.3 mm thick and 30 m long) is accepted, and so is
    // a multibody link's thin box.
    assert!(errors(&body("{ type = \"box\", size = [3e-4, 30, 1] }")).is_empty());
    let link = "[[multibodies]]\nname = \"m\"\n[[multibodies.links]]\nname = \"plank\"\n\
                shape = { type = \"box\", size = [SIZE, 30, 1] }\nmass = 1\n\
                [[multibodies.joints]]\nname = \"j\"\ntype = \"revolute\"\nparent = \"world\"\n\
                child = \"plank\"\naxis = [0, 1, 0]\n";
    assert!(errors(&link.replace("SIZE", "0.1")).is_empty());
    let e = single_error(
        &link.replace("SIZE", "1e-12"),
        5,
        9,
        "multibodies[0].links[0].shape",
    );
    assert!(e.message.contains("thinner than 1e-6"), "{e}");
}

/// Regressions found by mutating the shipped scenes: a 1e308 output rate panicked allocating
/// the frame list, and a 1e308 mass or density, or a shape 1e308 from its link's origin, made
/// an infinite inertia whose principal axes never converged (`impulse check` hung).
#[test]
fn overflowing_numbers_are_errors_not_hangs_or_panics() {
    let world = "[world]\nduration = 0.8\noutput_rate = 1e308\n";
    let e = single_error(&format!("{world}{BALL}"), 3, 15, "world.output_rate");
    assert!(e.message.contains("at most 1e7"), "{e}");
    for (text, key) in [
        (
            BALL.replace("density = 1000", "density = 1e308")
                .replace("radius = 0.1", "radius = 100"),
            "bodies[0]",
        ),
        (
            BALL.replace("density = 1000", "mass = 1e308")
                .replace("radius = 0.1", "radius = 100"),
            "bodies[0]",
        ),
        (
            "[[bodies]]\nname = \"pair\"\nshapes = [\n  { type = \"sphere\", radius = 0.1 },\n  \
             { type = \"sphere\", radius = 0.1, position = [0, 1e300, 0] },\n]\ndensity = 1\n"
                .to_string(),
            "bodies[0]",
        ),
    ] {
        let errors = errors(&text);
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].key, key, "{}", errors[0]);
        assert!(errors[0].message.contains("the inertia"), "{}", errors[0]);
    }
}

/// Regression (found by mutating `scenes/hybrid/triple_pendulum.toml`): a collision envelope of
/// 1e308 made every pair touch and the run went on for ever. An envelope not smaller than the
/// smallest body is an error; one a tenth of it is only warned about.
#[test]
fn an_envelope_as_large_as_a_body_is_an_error() {
    let e = single_error(
        &format!("[world]\ncollision_epsilon = 1e308\n{BALL}"),
        2,
        21,
        "world.collision_epsilon",
    );
    assert!(
        e.message
            .contains("not smaller than the smallest body (size 0.2)"),
        "{e}"
    );
    assert!(errors(&format!("[world]\ncollision_epsilon = 0.02\n{BALL}")).is_empty());
}

#[test]
fn energy_bound_is_a_rise_auto_or_off() {
    for good in ["\"auto\"", "\"off\"", "0", "2.5e4"] {
        let text = format!("[world]\nenergy_bound = {good}\n{BALL}");
        assert!(errors(&text).is_empty(), "{good}: {:#?}", errors(&text));
    }
    let e = single_error(
        &format!("[world]\nenergy_bound = -1\n{BALL}"),
        2,
        16,
        "world.energy_bound",
    );
    assert!(e.message.contains("-1"), "{e}");
    let e = single_error(
        &format!("[world]\nenergy_bound = \"sometimes\"\n{BALL}"),
        2,
        16,
        "world.energy_bound",
    );
    assert!(e.message.contains("\"auto\""), "{e}");
}
