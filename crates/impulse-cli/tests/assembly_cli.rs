//! `impulse run` and `impulse check` on assembly scenes, as a user runs them.

mod common;

use common::*;

/// The bead on its hoop runs from the command line: the summary reports the energy conserved
/// (the hoop does no work: balance below 1e-9 J of a 0 J start) and the joint held (< 1e-9 m),
/// and a second run writes the same bytes (runs are deterministic).
#[test]
fn run_an_assembly_scene_twice_gives_the_same_bytes() {
    let mut trajectories = Vec::new();
    for k in 0..2 {
        let out = scratch(&format!("assembly_bead_{k}"));
        let summary = run_summary("scenes/assembly/bead.toml", "1", &out);
        assert_eq!(summary["status"], "ok");
        assert_eq!(summary["rows"], 2);
        assert!(
            summary["energy_balance"].as_f64().unwrap().abs() < 1e-9,
            "{summary}"
        );
        assert!(
            summary["max_joint_gap"].as_f64().unwrap() < 1e-9,
            "{summary}"
        );
        assert!((summary["sim_time"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
        // 60 frames a second for 1 s, plus the start: 61 rows for the one body, and a header.
        assert_eq!(csv.lines().count(), 62);
        trajectories.push(csv);
    }
    assert_eq!(trajectories[0], trajectories[1]);
}

/// A scene with a joint on a missing body is refused by `check` and `run`, naming the line
/// and key.
#[test]
fn bad_assembly_scene_is_refused_with_line_and_key() {
    let dir = scratch("assembly_bad");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("bad.toml");
    std::fs::write(
        &scene,
        "[assembly]\n[[bodies]]\nname = \"a\"\nmass = 1\ninertia = [1, 1, 1]\nposition = [0, 0, 0]\n[[joints]]\ntype = \"spherical\"\nbody = \"b\"\nanchor = [0, 0, 0]\n",
    )
    .unwrap();
    let check = impulse(&["check", scene.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(1));
    let stdout = text(&check.stdout);
    assert!(
        stdout.contains("bad.toml:9:8: error: `joints[0].body`: no body named `b`"),
        "{stdout}"
    );
    let run = impulse(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("nothing was run"),
        "{}",
        text(&run.stderr)
    );
}
