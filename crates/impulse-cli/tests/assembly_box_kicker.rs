//! An assembly in one world with solids from the command line (issue 36): the slider crank of
//! `scenes/assembly/box_kicker.toml`, its links shaped, kicks crates along a floor, and the run
//! can be viewed and rendered.

mod common;

use common::*;

/// `impulse run` on the box kicker writes the fixed floor's rows after the bodies', a
/// `shapes.json` with the bodies' own shapes (a cylinder for the wheel, a capsule for the rod,
/// boxes) and the floor's half-space, and a summary that counts the solids, pairs and
/// contacts; the first crate is kicked along +x by 1.2 s, the log (untouched) sleeps;
/// `impulse view` and `impulse render`
/// read the run; the run is deterministic (same bytes twice).
#[test]
fn box_kicker_runs_kicks_a_crate_and_can_be_viewed() {
    let mut trajectories = Vec::new();
    for k in 0..2 {
        let out = scratch(&format!("assembly_box_kicker_{k}"));
        let summary = run_summary("scenes/assembly/box_kicker.toml", "1.2", &out);
        assert_eq!(summary["status"], "ok", "{summary}");
        assert_eq!(summary["solids"], 7);
        assert_eq!(summary["colliding_pairs"], 19);
        assert!(summary["contacts"].as_u64().unwrap() > 10, "{summary}");
        assert!(summary["max_joint_gap"].as_f64().unwrap() < 1e-9);
        let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
        // 60 frames a second for 1.2 s plus the start, 6 bodies and the floor, and a header.
        assert_eq!(csv.lines().count(), 1 + 73 * 7);
        let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
        assert_eq!(last[1], "floor");
        let crate1 = csv
            .lines()
            .rev()
            .find(|l| l.split(',').nth(1) == Some("crate1"))
            .unwrap();
        let x: f64 = crate1.split(',').nth(2).unwrap().parse().unwrap();
        assert!(x > 0.51, "crate1 should be kicked along +x from 0.49: {x}");
        // The log lies still from the start and nothing reaches it: asleep by 1.2 s (sleep
        // time 0.5 s), the trajectory's last column.
        let log = csv
            .lines()
            .rev()
            .find(|l| l.split(',').nth(1) == Some("log"))
            .unwrap();
        assert_eq!(log.split(',').next_back(), Some("1"), "{log}");
        trajectories.push(csv);
        if k == 0 {
            let shapes = std::fs::read_to_string(out.join("shapes.json")).unwrap();
            for kind in ["\"halfspace\"", "\"cylinder\"", "\"capsule\"", "\"box\""] {
                assert!(shapes.contains(kind), "{kind} missing");
            }
            let view = impulse(&["view", out.to_str().unwrap()]);
            assert!(view.status.success(), "{}", text(&view.stderr));
            let render = impulse(&["render", out.to_str().unwrap(), "--time", "1"]);
            assert!(render.status.success(), "{}", text(&render.stderr));
            assert!(out.join("frame.png").exists());
        }
    }
    assert_eq!(trajectories[0], trajectories[1]);
}
