//! `impulse import` and `impulse dynamics` as a user runs them.

mod common;

use common::*;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = common::scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `impulse import` writes a scene that `impulse check` accepts and that refers to the
/// model's mesh by a path relative to the scene.
#[test]
fn import_writes_a_scene_that_checks() {
    let dir = scratch("import_arm");
    let scene = dir.join("arm.toml");
    let result = impulse(&["import", "models/arm.urdf", "--to", scene.to_str().unwrap()]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    assert!(
        text(&result.stdout).contains("7 links, 7 degrees of freedom"),
        "{}",
        text(&result.stdout)
    );
    let written = std::fs::read_to_string(&scene).unwrap();
    assert!(written.contains("inertia = ["), "{written}");
    assert!(written.contains("flange.obj"), "{written}");
    let check = impulse(&["check", scene.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stdout));
}

/// `impulse dynamics` prints the pendulum's closed-form acceleration (Mirtich V21:
/// −7.3575 rad/s² at 30°) and mass matrix (1/3) as JSON.
#[test]
fn dynamics_prints_accelerations_and_mass_matrices() {
    let dir = scratch("dynamics_pendulum");
    let states = dir.join("states.json");
    std::fs::write(
        &states,
        r#"{"states": [{"qpos": [0.5235987755982988], "qvel": [0], "tau": [0]}]}"#,
    )
    .unwrap();
    let result = impulse(&[
        "dynamics",
        "models/pendulum.xml",
        "--states",
        states.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let out: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let qacc = out["results"][0]["qacc"][0].as_f64().unwrap();
    let m = out["results"][0]["mass_matrix"][0][0].as_f64().unwrap();
    assert!((qacc + 7.3575).abs() < 1e-12, "{out}");
    assert!((m - 1.0 / 3.0).abs() < 1e-15, "{out}");
    assert_eq!(out["joints"][0]["name"], "hinge");
}

/// A bad model file: exit status 1, every problem on stderr with file and line.
#[test]
fn import_reports_bad_models_by_line() {
    let dir = scratch("import_bad");
    let model = dir.join("bad.urdf");
    std::fs::write(
        &model,
        "<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"revolute\">\n<parent link=\"ghost\"/><child link=\"a\"/></joint>\n</robot>\n",
    )
    .unwrap();
    let result = impulse(&[
        "import",
        model.to_str().unwrap(),
        "--to",
        dir.join("s.toml").to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let err = text(&result.stderr);
    assert!(
        err.contains("bad.urdf:4:") && err.contains("no link named `ghost`"),
        "{err}"
    );
}
