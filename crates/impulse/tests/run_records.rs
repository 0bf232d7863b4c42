//! What a run writes when it starts in contact, fails at its start, or is stopped: the first
//! frame is the state the scene gave (issue 41, item 4), and nothing computed is lost (issue 42).

use std::sync::atomic::AtomicBool;

use impulse::dynamics::MassSpec;
use impulse::geometry::Shape;
use impulse::math::{Pose, Vec3};
use impulse::run::events::EventWriter;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, RunOutcome, run_until};
use impulse::scene::RunOptions;
use impulse::{BodyDesc, EnergyBound, MotionType, World, WorldSettings};

/// Runs `world` for `duration` at 10 frames a unit of time: the outcome and the trajectory's
/// rows (header left out), each split into fields.
fn record(world: &mut World, duration: f64, stop: &AtomicBool) -> (RunOutcome, Vec<Vec<String>>) {
    let mut trajectory = TrajectoryWriter::new(Vec::new()).unwrap();
    let mut events = EventWriter::new(Vec::new(), world).unwrap();
    let options = RunOptions {
        duration,
        frame_rate: 10.0,
    };
    let mut records = Recorders {
        trajectory: &mut trajectory,
        events: &mut events,
    };
    let outcome = run_until(
        "test",
        "test.toml",
        world,
        &options,
        &mut records,
        &mut |_| {},
        stop,
    )
    .unwrap();
    let rows = trajectory_rows(trajectory);
    (outcome, rows)
}

fn trajectory_rows(trajectory: TrajectoryWriter<Vec<u8>>) -> Vec<Vec<String>> {
    let text = String::from_utf8(trajectory.into_inner()).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

/// A fixed table (top at z = 0) and a 0.1 m cube resting exactly on it, moving down at 1 cm/s
/// and sideways at 0.5 m/s: in contact from the start, so microcollisions at t = 0 change its
/// velocity before the first frame.
fn cube_on_table() -> World {
    let mut world = World::new(WorldSettings::default());
    let mut table = BodyDesc::new(
        "table",
        Shape::Box {
            half_extents: Vec3::new(2.0, 2.0, 0.5),
        },
    );
    table.motion = MotionType::Fixed;
    table.pose = Pose::translation(0.0, 0.0, -0.5);
    world.add_body(table).unwrap();
    let mut cube = BodyDesc::new(
        "cube",
        Shape::Box {
            half_extents: Vec3::new(0.05, 0.05, 0.05),
        },
    );
    cube.pose = Pose::translation(0.0, 0.0, 0.05);
    cube.velocity = Vec3::new(0.5, 0.0, -0.01);
    world.add_body(cube).unwrap();
    world
}

#[test]
fn the_first_trajectory_row_is_the_initial_state_of_a_body_starting_in_contact() {
    let mut world = cube_on_table();
    let (outcome, rows) = record(&mut world, 0.3, &never());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let first = rows.iter().find(|r| r[1] == "cube").unwrap();
    // t, body, x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz, asleep: exactly the scene's
    // numbers (the trajectory writes shortest round-trip decimals). Before the fix the row
    // held the state after the t = 0 microcollisions: vz = +0.0x, vx slowed by friction.
    let given = [
        "0.0", "cube", "0.0", "0.0", "0.05", "1.0", "0.0", "0.0", "0.0", "0.5", "0.0", "-0.01",
        "0.0", "0.0", "0.0", "0",
    ];
    assert_eq!(first, &given);
    // The contact was answered at t = 0 (the events are the proof the row is before them), and
    // the frame count is unchanged: 0, 0.1, 0.2, 0.3.
    assert!(outcome.summary.counters["microcollisions"] > 0);
    let times: Vec<&str> = rows
        .iter()
        .filter(|r| r[1] == "cube")
        .map(|r| r[0].as_str())
        .collect();
    assert_eq!(times, ["0.0", "0.1", "0.2", "0.3"]);
    assert_eq!(outcome.summary.counters["output_frames"], 4);
}

#[test]
fn a_run_failing_at_t_0_still_records_its_initial_state() {
    // The cube starts 5 cm deep in the table: the run stops at t = 0 (before, with an empty
    // trajectory).
    let mut world = cube_on_table();
    let mut deep = BodyDesc::new(
        "sunk",
        Shape::Box {
            half_extents: Vec3::new(0.05, 0.05, 0.05),
        },
    );
    deep.pose = Pose::translation(1.0, 0.0, 0.0);
    world.add_body(deep).unwrap();
    let (outcome, rows) = record(&mut world, 1.0, &never());
    assert!(outcome.error.is_some());
    assert_eq!(outcome.summary.status, "error");
    assert_eq!(outcome.summary.sim_time, 0.0);
    let sunk: Vec<_> = rows.iter().filter(|r| r[1] == "sunk").collect();
    assert_eq!(sunk.len(), 1, "{rows:?}");
    assert_eq!(&sunk[0][..5], ["0.0", "sunk", "1.0", "0.0", "0.0"]);
}

#[test]
fn a_run_stopped_by_energy_bound_writes_its_last_frame() {
    // A 1 kg ball pushed by 1 N in weightlessness gains t²/2 J; allowed 1 J, it trips at the
    // first frame past √2 s, t = 1.5 s (frames every 0.1 s). Before, the records ended at 1.4 s
    // and the state the summary gives for 1.5 s was in no frame.
    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        energy_bound: EnergyBound::Gain(1.0),
        ..WorldSettings::default()
    });
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.1 });
    ball.mass = MassSpec::Mass(1.0);
    ball.force = Vec3::new(1.0, 0.0, 0.0);
    world.add_body(ball).unwrap();
    let (outcome, rows) = record(&mut world, 3.0, &never());
    assert_eq!(outcome.summary.status, "error");
    assert_eq!(outcome.summary.sim_time, 1.5);
    let last = rows.last().unwrap();
    assert_eq!(last[0], "1.5");
    // x = t²/2 = 1.125 m, v = 1.5 m/s (integrator tolerance).
    let x: f64 = last[2].parse().unwrap();
    let v: f64 = last[9].parse().unwrap();
    assert!(
        (x - 1.125).abs() < 1e-9 && (v - 1.5).abs() < 1e-9,
        "{last:?}"
    );
    assert_eq!(outcome.summary.counters["output_frames"], 16);
}

#[test]
fn an_interrupted_run_ends_at_a_whole_frame_and_says_so() {
    let mut world = cube_on_table();
    let stop = AtomicBool::new(true);
    let (outcome, rows) = record(&mut world, 1.0, &stop);
    // Stopped after the first frame it computed (t = 0).
    assert_eq!(outcome.summary.status, "interrupted");
    assert!(outcome.error.is_none());
    assert_eq!(outcome.summary.sim_time, 0.0);
    assert_eq!(rows.len(), 2);
}
