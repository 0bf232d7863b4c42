//! An assembly among free balls from the command line (issue 36, "one world", first step): the
//! slider crank of `scenes/assembly/kicker.toml` kicks balls, and the run can be looked at.

mod common;

use common::*;

/// `impulse run` on the kicker writes the balls' rows after the mechanism's, a `shapes.json`
/// (boxes for the assembly bodies, spheres for the balls and the striker) that `impulse view`
/// and `impulse plot` read, and a summary that counts the hits. The striker reaches into the
/// first ball's place, so the balls must have been hit and set moving along +x; the mechanism
/// keeps its joints (gap < 1e-9). The run is deterministic (same bytes twice).
#[test]
fn kicker_runs_kicks_balls_and_can_be_viewed() {
    let mut trajectories = Vec::new();
    for k in 0..2 {
        let out = scratch(&format!("assembly_kicker_{k}"));
        let summary = run_summary("scenes/assembly/kicker.toml", "2", &out);
        assert_eq!(summary["status"], "ok", "{summary}");
        assert_eq!(summary["balls"], 3);
        assert!(summary["hits"].as_u64().unwrap() >= 2, "{summary}");
        assert!(summary["balls_kinetic_energy_final"].as_f64().unwrap() > 0.01);
        assert!(summary["max_joint_gap"].as_f64().unwrap() < 1e-9);
        let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
        // 60 frames a second for 2 s plus the start, 3 bodies and 3 balls each, and a header.
        assert_eq!(csv.lines().count(), 1 + 121 * 6);
        let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
        assert_eq!(last[1], "ball3");
        assert!(
            last[2].parse::<f64>().unwrap() > 1.0,
            "ball3 should be kicked along +x"
        );
        trajectories.push(csv);
        if k == 0 {
            let shapes = std::fs::read_to_string(out.join("shapes.json")).unwrap();
            assert!(shapes.contains("\"box\"") && shapes.contains("\"sphere\""));
            let view = impulse(&["view", out.to_str().unwrap()]);
            assert!(view.status.success(), "{}", text(&view.stderr));
            assert!(out.join("view.html").exists());
            let plot = impulse(&["plot", out.to_str().unwrap()]);
            assert!(plot.status.success(), "{}", text(&plot.stderr));
        }
    }
    assert_eq!(trajectories[0], trajectories[1]);
}
