//! Runs that would eat the machine stop with an error naming the cause, and keep their output
//! (issue 42).

mod common;

use common::scenes::{self, shipped};
use impulse::run::events::EventWriter;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, run_scene};
use impulse::scene::RunOptions;

#[test]
fn a_stiff_pd_arm_stops_naming_multibody_joint_and_time_instead_of_filling_memory() {
    // The shipped PD arm with its shoulder turned coaxial with the turntable: the two revolutes
    // fight, and every integration step until the next 1 ms controller update was kept, growing
    // to 1.3 GB before the process aborted with empty outputs.
    let path = shipped("multibody/pd_arm.toml");
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "axis = [0, -1, 0]                # positive angles lift the arm",
        "axis = [0, 0, 1]",
        1,
    );
    assert!(
        text.contains("axis = [0, 0, 1]\ndamping"),
        "the shoulder was turned"
    );
    let mut scene = scenes::parse(&path, &text).unwrap_or_else(|e| panic!("{e:?}"));
    let mut trajectory = TrajectoryWriter::new(Vec::new()).unwrap();
    let mut events = EventWriter::new(Vec::new(), &scene.world).unwrap();
    let options = RunOptions {
        duration: 4.0,
        frame_rate: 100.0,
    };
    let mut records = Recorders {
        trajectory: &mut trajectory,
        events: &mut events,
    };
    let outcome = run_scene(&mut scene, &options, &mut records, &mut |_| {}).unwrap();
    let error = outcome.error.expect("the run stops").to_string();
    assert!(
        error.starts_with("multibody `arm`, joint `")
            && error.contains("integration steps from t = ")
            && error.contains("too stiff or unstable"),
        "{error}"
    );
    assert_eq!(outcome.summary.status, "error");
    // What was computed is kept: at least the initial frame.
    assert!(trajectory.frames() >= 1);
}
