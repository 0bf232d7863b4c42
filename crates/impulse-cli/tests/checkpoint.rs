//! `impulse run --checkpoint-every T` and `impulse run --resume FILE` (issue 42): a resumed
//! run continues from the world state the checkpoint saved (format version 7), simulating
//! only what comes after it, and its outputs are byte-identical to a run never stopped; a
//! checkpoint of another format version, of another scene, truncated or corrupt is refused
//! with a clear error.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{impulse, repo, scratch, succeeds, text};
use impulse::run::checkpoint::Checkpoint;

const FILES: [&str; 3] = ["trajectory.csv", "events.csv", "shapes.json"];

/// `summary.json` without its wall time, the one figure a resumed run may not repeat.
fn summary_without_wall_time(dir: &Path) -> String {
    let summary = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    summary
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"wall_time_s\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts that the run in `b` wrote the very bytes of the run in `a`.
fn assert_same_outputs(a: &Path, b: &Path, what: &str) {
    for file in FILES {
        let (x, y) = (std::fs::read(a.join(file)), std::fs::read(b.join(file)));
        assert!(
            x.as_ref().ok() == y.as_ref().ok(),
            "{what}: {file} differs from the uninterrupted run's ({} against {} bytes)",
            x.map_or(0, |x| x.len()),
            y.map_or(0, |y| y.len())
        );
    }
    assert_eq!(
        summary_without_wall_time(a),
        summary_without_wall_time(b),
        "{what}: summary.json differs (wall time aside)"
    );
}

/// Runs `scene` for `duration` into `out`, with `extra` arguments, and asserts it succeeded.
fn run_into(scene: &str, duration: &str, out: &Path, extra: &[&str]) {
    let out = out.to_str().expect("a UTF-8 path");
    let args = [
        "run",
        scene,
        "--duration",
        duration,
        "--quiet",
        "--out",
        out,
    ];
    succeeds(&[&args[..], extra].concat());
}

/// Runs `scene` for `duration` uninterrupted, then with a checkpoint every `every`; spoils
/// what the second run wrote after its last checkpoint (its last trajectory row cut off, a
/// junk row after the events, its summary gone), resumes it, and checks every output is the
/// uninterrupted run's, byte for byte. Returns the checkpoint resumed from.
fn round_trip(name: &str, scene: &str, duration: &str, every: &str, extra: &[&str]) -> Checkpoint {
    let whole = scratch(&format!("checkpoint_{name}_whole"));
    let parts = scratch(&format!("checkpoint_{name}_parts"));
    run_into(scene, duration, &whole, extra);
    let checkpointing = [&["--checkpoint-every", every], extra].concat();
    run_into(scene, duration, &parts, &checkpointing);
    // Checkpointing itself changes nothing of the run.
    assert_same_outputs(&whole, &parts, &format!("{name} with checkpoints"));

    let file = parts.join("checkpoint.bin");
    let checkpoint = Checkpoint::from_bytes(&std::fs::read(&file).expect("checkpoint.bin"))
        .expect("the checkpoint reads back");
    assert!(checkpoint.time > 0.0 && checkpoint.time < duration.parse::<f64>().unwrap());

    let trajectory = std::fs::read(parts.join("trajectory.csv")).unwrap();
    let cut = trajectory[..trajectory.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    assert!(
        cut as u64 > checkpoint.trajectory_bytes,
        "the cut row is after the checkpoint"
    );
    std::fs::write(parts.join("trajectory.csv"), &trajectory[..cut]).unwrap();
    if parts.join("events.csv").is_file() {
        let mut events = std::fs::read(parts.join("events.csv")).unwrap();
        events.extend_from_slice(b"9,junk,a,b,0,0,0,0,0,0,0,0,0\n");
        std::fs::write(parts.join("events.csv"), events).unwrap();
    }
    std::fs::remove_file(parts.join("summary.json")).unwrap();

    let resumed = impulse(&["run", "--resume", file.to_str().unwrap()]);
    assert!(
        resumed.status.success(),
        "{name}: the resume failed: {}",
        text(&resumed.stderr)
    );
    assert_same_outputs(&whole, &parts, &format!("{name} resumed"));

    // No replay: the resumed process simulated exactly the heap events the uninterrupted run
    // took after the checkpoint's frame (its total less the count the checkpoint recorded),
    // where a replay from t = 0 would count them all.
    let total = heap_events(&whole);
    let at_checkpoint = checkpoint
        .state
        .counters
        .iter()
        .find(|(k, _)| k == "heap_events")
        .map(|(_, v)| *v)
        .expect("the checkpoint records heap_events");
    assert!(
        at_checkpoint > 0 && at_checkpoint < total,
        "{name}: {at_checkpoint} of {total}"
    );
    let stderr = text(&resumed.stderr);
    let simulated: u64 = stderr
        .split(" heap events simulated after it")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{name}: no count of heap events in: {stderr}"));
    assert_eq!(
        simulated,
        total - at_checkpoint,
        "{name}: heap events the resumed run simulated"
    );
    checkpoint
}

/// The `heap_events` counter of the run in `dir`.
fn heap_events(dir: &Path) -> u64 {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
            .expect("summary.json parses");
    summary["counters"]["heap_events"]
        .as_u64()
        .expect("summary.json has counters.heap_events")
}

#[test]
fn resumed_dominos_are_byte_identical_to_an_uninterrupted_run() {
    let checkpoint = round_trip("dominos", "scenes/impulse/dominos.toml", "0.5", "0.2", &[]);
    // The last multiple of 0.2 before the end: frame 40 at the scene's 100 frames per second
    // (`output_rate = 100`).
    assert_eq!(checkpoint.time, 0.4);
    assert_eq!(checkpoint.frame, 40);
}

#[test]
fn resumed_part_sorter_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "part_sorter",
        "scenes/hybrid/part_sorter.toml",
        "0.5",
        "0.2",
        &[],
    );
}

#[test]
fn resumed_part_sorter_keeping_collisions_only_is_byte_identical() {
    round_trip(
        "part_sorter_collisions",
        "scenes/hybrid/part_sorter.toml",
        "0.5",
        "0.2",
        &["--events", "collisions"],
    );
}

#[test]
fn resumed_creature_war_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "creature_war",
        "scenes/hybrid/creature_war.toml",
        "0.2",
        "0.1",
        &[],
    );
}

#[test]
fn resumed_constraint_stack_of_five_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "stack_of_five",
        "scenes/constraint/stack_of_five.toml",
        "0.3",
        "0.1",
        &[],
    );
}

#[test]
fn resumed_penalty_stack_of_five_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "penalty_stack_of_five",
        "scenes/penalty/stack_of_five.toml",
        "0.3",
        "0.1",
        &[],
    );
}

#[test]
fn resumed_penalty_block_on_ramp_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "penalty_block_on_ramp",
        "scenes/penalty/block_on_ramp.toml",
        "0.5",
        "0.2",
        &[],
    );
}

#[test]
fn resumed_rover_hunting_with_its_controllers_is_byte_identical() {
    // Controllers with modes, decisions and kill counts (their state is saved whole).
    round_trip("rover", "scenes/hybrid/rover.toml", "1.0", "0.4", &[]);
}

#[test]
fn resumed_triple_pendulum_hybrid_is_byte_identical_to_an_uninterrupted_run() {
    round_trip(
        "triple_pendulum",
        "scenes/hybrid/triple_pendulum.toml",
        "0.5",
        "0.2",
        &[],
    );
}

#[cfg(unix)]
#[test]
fn a_run_interrupted_by_sigint_resumes_byte_identical() {
    let scene = "scenes/hybrid/creature_war.toml";
    let whole = scratch("checkpoint_sigint_whole");
    let parts = scratch("checkpoint_sigint_parts");
    run_into(scene, "0.3", &whole, &[]);
    // A checkpoint interval longer than the run: the only checkpoint is the interruption's.
    let child = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args([
            "run",
            scene,
            "--duration",
            "0.3",
            "--quiet",
            "--checkpoint-every",
            "100",
        ])
        .args(["--out", parts.to_str().unwrap()])
        .current_dir(repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("impulse starts");
    // The signal once the run has begun writing (its handler is set before trajectory.csv is
    // created): the run has 0.3 s of simulation ahead of it then, about half a second of wall
    // time in a release build, so it is interrupted mid-run however loaded the machine is.
    // Regression: the signal used to stop the world within the stretch between two frames,
    // where no checkpoint can be taken, and the run ended without one; a checkpointing run
    // now finishes the frame being computed and checkpoints it. (This test slept 1.5 s
    // instead, and failed whenever the signal came within a stretch.)
    let started = std::time::Instant::now();
    while !parts.join("trajectory.csv").exists() && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let ended = child.wait_with_output().expect("impulse ends");
    if ended.status.success() {
        // The run ended before the signal (a fast machine): nothing to resume.
        return;
    }
    assert_eq!(
        ended.status.code(),
        Some(130),
        "the interrupted run's exit code"
    );
    let summary = std::fs::read_to_string(parts.join("summary.json")).unwrap();
    assert!(summary.contains("\"interrupted\""), "{summary}");
    let file = parts.join("checkpoint.bin");
    succeeds(&["run", "--resume", file.to_str().unwrap(), "--quiet"]);
    assert_same_outputs(
        &whole,
        &parts,
        "creature war interrupted by SIGINT, resumed",
    );
}

/// A dominos run with a checkpoint; returns its output directory.
fn dominos_checkpoint(name: &str, scene: &str) -> std::path::PathBuf {
    let out = scratch(name);
    run_into(scene, "0.3", &out, &["--checkpoint-every", "0.1"]);
    out
}

/// Resumes `file`, expecting a refusal (exit status 1, no panic) whose message has `expected`.
fn assert_refused(file: &Path, expected: &str) {
    let out = impulse(&["run", "--resume", file.to_str().unwrap(), "--quiet"]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "refused with status 1: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains(expected),
        "expected `{expected}` in: {stderr}"
    );
}

#[test]
fn a_checkpoint_of_another_format_version_is_refused() {
    let out = dominos_checkpoint("checkpoint_version", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    // The version is the little-endian u32 after the 8 magic bytes.
    bytes[8..12].copy_from_slice(&8u32.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    assert_refused(
        &file,
        "checkpoint format version 8, but this impulse reads version 7",
    );
    // Version 1 saved no world state (a resume replayed the run): refused as older.
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    assert_refused(
        &file,
        "checkpoint format version 1, made by an older version of impulse",
    );
}

#[test]
fn a_checkpoint_of_a_changed_scene_is_refused() {
    let dir = scratch("checkpoint_scene");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("dominos.toml");
    std::fs::copy(repo().join("scenes/impulse/dominos.toml"), &scene).unwrap();
    let out = dominos_checkpoint("checkpoint_scene_out", scene.to_str().unwrap());
    // One more comment line: the same physics, but not the scene text the run had.
    let mut text_now = std::fs::read_to_string(&scene).unwrap();
    text_now.push_str("# edited\n");
    std::fs::write(&scene, text_now).unwrap();
    assert_refused(
        &out.join("checkpoint.bin"),
        "has changed since this checkpoint was written",
    );
}

#[test]
fn a_truncated_checkpoint_is_refused() {
    let out = dominos_checkpoint("checkpoint_truncated", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    assert_refused(&file, "truncated checkpoint");
    std::fs::write(&file, &bytes[..5]).unwrap();
    assert_refused(&file, "not an impulse checkpoint");
}

#[test]
fn a_corrupt_checkpoint_is_refused() {
    let out = dominos_checkpoint("checkpoint_corrupt", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    assert_refused(&file, "corrupt checkpoint");
}

#[test]
fn a_checkpoint_whose_record_disagrees_with_its_state_is_refused_and_the_outputs_kept() {
    let out = dominos_checkpoint("checkpoint_state", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let mut checkpoint = Checkpoint::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
    // One ulp of one body's height: a well-formed checkpoint of a state the run never had.
    let z = &mut checkpoint.state.bodies[1].0[2];
    *z = f64::from_bits(z.to_bits() + 1);
    std::fs::write(&file, checkpoint.to_bytes()).unwrap();
    let trajectory = std::fs::read(out.join("trajectory.csv")).unwrap();
    assert_refused(&file, "is not the one it recorded");
    assert_eq!(
        std::fs::read(out.join("trajectory.csv")).unwrap(),
        trajectory,
        "a refused resume leaves the outputs as they were"
    );
}

#[test]
fn a_checkpoint_whose_state_does_not_decode_is_refused_and_the_outputs_kept() {
    let out = dominos_checkpoint("checkpoint_bad_state", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let mut checkpoint = Checkpoint::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
    // A well-formed checkpoint (its hash is recomputed) whose world state is cut short.
    let half = checkpoint.world.len() / 2;
    checkpoint.world.truncate(half);
    std::fs::write(&file, checkpoint.to_bytes()).unwrap();
    let trajectory = std::fs::read(out.join("trajectory.csv")).unwrap();
    assert_refused(&file, "the world's state does not decode");
    assert_eq!(
        std::fs::read(out.join("trajectory.csv")).unwrap(),
        trajectory,
        "a refused resume leaves the outputs as they were"
    );
}

#[test]
fn a_checkpoint_of_another_scene_with_the_same_text_hash_is_refused_by_its_state() {
    // The dominos' state read into the part sorter's world (its scene path swapped, its
    // text hash forged): the bodies differ, and the restore says so.
    let out = dominos_checkpoint("checkpoint_other_world", "scenes/impulse/dominos.toml");
    let file = out.join("checkpoint.bin");
    let mut checkpoint = Checkpoint::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
    let other = repo().join("scenes/hybrid/part_sorter.toml");
    checkpoint.scene_path = other.canonicalize().unwrap().display().to_string();
    checkpoint.scene_hash = impulse::run::checkpoint::fnv1a64(&std::fs::read(&other).unwrap());
    std::fs::write(&file, checkpoint.to_bytes()).unwrap();
    assert_refused(&file, "the checkpoint's state does not fit its scene");
}
