//! The `impulse` program as a user runs it.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn run_writes_summary_and_trajectory() {
    let out = scratch("run_writes");
    let result = impulse(&[
        "run",
        "scenes/free/tossed_parts.toml",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["scene"], "tossed parts");
    assert_eq!(summary["status"], "completed");
    assert_eq!(summary["sim_time"], 1.0);
    assert!(summary["wall_time_s"].as_f64().unwrap() >= 0.0);
    let energy = &summary["energy"];
    // Free flight under gravity conserves kinetic + potential energy.
    let (initial, last) = (
        energy["initial"].as_f64().unwrap(),
        energy["final"].as_f64().unwrap(),
    );
    assert!(
        ((last - initial) / initial).abs() < 1e-9,
        "{initial} → {last}"
    );
    assert!(summary["counters"].is_object());
    let bodies = summary["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 9);
    for key in [
        "name",
        "position",
        "orientation",
        "velocity",
        "angular_velocity",
    ] {
        assert!(
            bodies.iter().all(|b| !b[key].is_null()),
            "every body has {key}"
        );
    }
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = trajectory.lines();
    assert_eq!(
        lines.next(),
        Some("t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,asleep")
    );
    // 101 frames (100 per second for 1 s, both ends) × 9 bodies.
    assert_eq!(lines.clone().count(), 101 * 9);
    // Tossed parts in flight: none asleep.
    assert!(lines.all(|l| l.split(',').count() == 16 && l.ends_with(",0")));
}

#[test]
fn the_same_scene_gives_identical_bytes() {
    let a = scratch("determinism_a");
    let b = scratch("determinism_b");
    for out in [&a, &b] {
        let result = impulse(&[
            "run",
            "scenes/free/dzhanibekov.toml",
            "--duration",
            "5",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(result.status.success(), "{}", text(&result.stderr));
    }
    let first = std::fs::read(a.join("trajectory.csv")).unwrap();
    let second = std::fs::read(b.join("trajectory.csv")).unwrap();
    assert!(first.len() > 10_000);
    assert!(
        first == second,
        "trajectories differ between identical runs"
    );
}

#[test]
fn duration_and_fps_override_the_scene() {
    let out = scratch("overrides");
    let result = impulse(&[
        "run",
        "scenes/free/kinematic.toml",
        "--duration",
        "0.5",
        "--fps",
        "10",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(result.status.success());
    let stdout = text(&result.stdout);
    assert!(stdout.contains("prescribed motion"), "{stdout}");
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert_eq!(trajectory.lines().count(), 1 + 6 * 4);
    assert!(trajectory.lines().last().unwrap().starts_with("0.5,"));
    let bad = impulse(&["run", "scenes/free/kinematic.toml", "--fps", "0"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("--fps must be a positive number"));
    // Regression: an output rate of 1e308 overflowed the frame list's allocation (a panic);
    // a run may write at most 1e7 frames.
    let bad = impulse(&["run", "scenes/free/kinematic.toml", "--fps", "1e9"]);
    assert_eq!(bad.status.code(), Some(1));
    let message = text(&bad.stderr);
    assert!(
        message.contains("would write") && message.contains("at most 1e7"),
        "{message}"
    );
}

#[test]
fn a_failing_run_keeps_its_output_and_names_the_body() {
    let out = scratch("runaway");
    let result = impulse(&[
        "run",
        "crates/impulse-cli/tests/data/runaway.toml",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = text(&result.stderr);
    assert!(
        stderr.contains("body `runaway`") && stderr.contains("t = "),
        "{stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "error");
    assert!(summary["error"].as_str().unwrap().contains("runaway"));
    // x = 1e308 t overflows before t = 1.8 (f64 max ≈ 1.797e308; the box swept over the next
    // box period overflows a little earlier): the last good frame is at 1.7 and the error names
    // a time after it.
    assert_eq!(summary["sim_time"].as_f64(), Some(1.7));
    let named: f64 = stderr
        .split("finite at t = ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {stderr}"));
    assert!(named > 1.7 && named <= 1.8, "{stderr}");
    let frames = std::fs::read_to_string(out.join("trajectory.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(frames > 1, "frames before the failure are kept");
    assert_eq!(
        summary["counters"]["output_frames"].as_u64(),
        Some(frames as u64)
    );
}

#[test]
fn check_lists_every_problem() {
    let good = impulse(&["check", "scenes/free/tossed_parts.toml"]);
    assert!(good.status.success());
    assert!(text(&good.stdout).contains("ok"));
    let dir = scratch("check_bad");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("bad.toml");
    std::fs::write(
        &scene,
        "[world]\nduraton = 2\n\n[[bodies]]\nname = \"x\"\nshape = { type = \"sphere\", radius = -1 }\nmass = 1\n",
    )
    .unwrap();
    let bad = impulse(&["check", scene.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let stdout = text(&bad.stdout);
    assert!(
        stdout.contains("bad.toml:2:1: error: `world.duraton`: unknown key"),
        "{stdout}"
    );
    assert!(stdout.contains("did you mean `duration`?"), "{stdout}");
    assert!(
        stdout.contains("bad.toml:6:37: error: `bodies[0].shape.radius`"),
        "{stdout}"
    );
    assert!(stdout.contains("2 errors found"), "{stdout}");
    let missing = impulse(&["check", "no/such/scene.toml"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("cannot read the scene file"));
}

#[test]
fn every_shipped_scene_checks_clean() {
    let mut scenes = Vec::new();
    let mut stack = vec![repo().join("scenes")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                scenes.push(path);
            }
        }
    }
    assert!(scenes.len() >= 3);
    for scene in scenes {
        let result = impulse(&["check", scene.to_str().unwrap()]);
        assert!(
            result.status.success(),
            "{}: {}",
            scene.display(),
            text(&result.stdout)
        );
        assert!(
            !text(&result.stdout).contains(": warning:"),
            "{}",
            text(&result.stdout)
        );
    }
}

#[test]
fn mass_reports_table_6_1_integrals() {
    // Mirtich Table 6.1: the tetrahedron's ten integrals, exactly.
    let result = impulse(&["mass", "meshes/tetrahedron.obj", "--integrals", "--json"]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let report: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let expected = [
        ("T1", 10.0),
        ("Tx", 12.5),
        ("Ty", 10.0),
        ("Tz", 7.5),
        ("Tx²", 25.0),
        ("Ty²", 16.0),
        ("Tz²", 9.0),
        ("Txy", 10.0),
        ("Tyz", 6.0),
        ("Tzx", 7.5),
    ];
    for (name, value) in expected {
        let got = report["integrals"][name].as_f64().unwrap();
        assert!((got - value).abs() <= 1e-12 * value, "{name} = {got}");
    }
    // Derived in the digest (V8): centre of mass (1.25, 1, 0.75).
    let com: Vec<f64> = report["center_of_mass"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (got, expected) in com.iter().zip([1.25, 1.0, 0.75]) {
        assert!((got - expected).abs() < 1e-12, "centre of mass {com:?}");
    }
    let density = impulse(&["mass", "meshes/cube20.obj", "--density", "2", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&density.stdout).unwrap();
    assert_eq!(report["mass"], 16000.0);
    // Human-readable output names the principal moments.
    let human = impulse(&["mass", "meshes/l_bracket.obj"]);
    assert!(human.status.success());
    assert!(text(&human.stdout).contains("principal moments"));
}

#[test]
fn mass_rejects_broken_meshes_with_located_errors() {
    let cases = [
        ("open.obj", "the mesh is open"),
        ("inverted.obj", "wound clockwise"),
        ("flipped_face.obj", "windings disagree"),
        ("self_intersecting.obj", "intersects itself"),
        ("flat.obj", "no volume"),
    ];
    for (file, expected) in cases {
        let path = format!("crates/impulse-cli/tests/data/{file}");
        let result = impulse(&["mass", &path]);
        assert_eq!(result.status.code(), Some(1), "{file}");
        let stderr = text(&result.stderr);
        assert!(
            stderr.contains(file) && stderr.contains(expected),
            "{stderr}"
        );
    }
    let missing = impulse(&["mass", "no_such.stl"]);
    assert_eq!(missing.status.code(), Some(1));
    let negative = impulse(&["mass", "meshes/cube20.obj", "--density=-1"]);
    assert_eq!(negative.status.code(), Some(1));
}

/// A scratch scene directory `dir` holding one shipped Table 7.1 scene, `file`.
fn table_scenes(dir: &str, file: &str) -> PathBuf {
    let scenes = scratch(dir);
    std::fs::create_dir_all(&scenes).unwrap();
    std::fs::copy(repo().join("scenes/impulse").join(file), scenes.join(file)).unwrap();
    scenes
}

/// `impulse table` on a directory holding one small Table 7.1 scene: it runs it, skips the
/// others with a note, and prints and writes the comparison with the thesis's columns.
#[test]
fn table_compares_one_scene_with_the_thesis() {
    let scenes = table_scenes("table_scenes", "chain_of_balls.toml");
    let (stdout, json, out) = run_table(&scenes, "table_out", &[]);
    let header = stdout.lines().next().unwrap();
    for column in [
        "scene",
        "sim (s)",
        "wall (s)",
        "slowdown",
        "thesis(s)",
        "speedup",
        "collisions",
        "microcollisions",
    ] {
        assert!(header.contains(column), "no `{column}` in {header:?}");
    }
    let row = stdout
        .lines()
        .find(|l| l.starts_with("chain of balls"))
        .unwrap_or_else(|| panic!("no row in {stdout}"));
    // Table 7.1: 2.5 s simulated, 3.0 s of computation.
    assert!(row.contains(" 2.5 ") && row.contains(" 3.0 "), "{row}");
    assert!(row.ends_with("completed"), "{row}");
    assert!(stdout.contains("skipped dominos"), "{stdout}");

    let csv = std::fs::read_to_string(out.join("table7_1.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "scene,file,sim_time_s,wall_time_s,slowdown,thesis_time_s,thesis_slowdown,speedup,\
             collisions,microcollisions,status"
        )
    );
    let fields: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(fields.len(), 11, "{fields:?}");
    assert_eq!(fields[0], "chain of balls");
    assert_eq!(fields[2], "2.5");
    assert_eq!(fields[5], "3");
    // thesis slowdown 3.0 / 2.5
    assert!((fields[6].parse::<f64>().unwrap() - 1.2).abs() < 1e-12);
    let collisions: u64 = fields[8].parse().unwrap();
    assert!(collisions > 0, "the striker hits the chain");
    assert_eq!(fields[10], "completed");
    assert_eq!(json["rows"].as_array().unwrap().len(), 1);
    assert_eq!(json["rows"][0]["thesis_time_s"], 3.0);
}

/// Runs `impulse table` on `scenes` with the `extra` arguments, writing to the scratch
/// directory `out` + the number of extra arguments; returns its standard output, its JSON and
/// that directory.
fn run_table(scenes: &Path, out: &str, extra: &[&str]) -> (String, serde_json::Value, PathBuf) {
    let out = scratch(&format!("{out}{}", extra.len()));
    let mut args = vec![
        "table",
        "--scenes",
        scenes.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let result = impulse(&args);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("table7_1.json")).unwrap()).unwrap();
    (text(&result.stdout), json, out)
}

/// `impulse table --no-sleep` runs the scenes as the thesis did: the block on the ramp, which
/// sleeps 0.5 s after it stops at 2 s, then takes microcollisions to the end of the 5 s run
/// (measured: 2868 with sleep, 5832 without), and the JSON says which it was.
#[test]
fn table_without_sleep_simulates_resting_contact_to_the_end() {
    let scenes = table_scenes("table_sleep_scenes", "block_on_ramp.toml");
    let run = |extra: &[&str]| {
        let (_, json, _) = run_table(&scenes, "table_sleep_out", extra);
        (
            json["rows"][0]["microcollisions"].as_u64().unwrap(),
            json["sleep"].as_str().unwrap().to_string(),
        )
    };
    let (asleep, with_sleep) = run(&[]);
    let (awake, without_sleep) = run(&["--no-sleep"]);
    assert_eq!(with_sleep, "as each scene sets it");
    assert_eq!(without_sleep, "off");
    assert!(
        awake > 3 * asleep / 2,
        "{awake} without sleep, {asleep} with"
    );
}

/// `impulse table --sequential` answers resting contact one contact at a time, as the thesis
/// did: the sliding block on the ramp then takes collisions (integrated, measured 722) where in
/// simultaneous clusters, held at its four corners at once, it takes none; and the JSON says
/// which it was.
#[test]
fn table_sequential_answers_resting_contact_one_contact_at_a_time() {
    let scenes = table_scenes("table_sequential_scenes", "block_on_ramp.toml");
    let run = |extra: &[&str]| {
        let (_, json, _) = run_table(&scenes, "table_sequential_out", extra);
        (
            json["rows"][0]["collisions"].as_u64().unwrap(),
            json["microcollision_clusters"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    let (in_clusters, default) = run(&[]);
    let (one_at_a_time, sequential) = run(&["--sequential"]);
    assert_eq!(default, "as each scene sets it");
    assert_eq!(sequential, "sequential");
    assert!(
        in_clusters < 10 && one_at_a_time > 100,
        "{in_clusters} collisions in clusters, {one_at_a_time} one at a time"
    );
}

/// `impulse table --repeat 3` runs each example three times, reports the median wall time,
/// and the three runs agree exactly (a run that differed would be marked in the status).
#[test]
fn table_repeats_each_example_and_checks_the_runs_agree() {
    let scenes = table_scenes("table_repeat_scenes", "chain_of_balls.toml");
    let (stdout, json, _) = run_table(&scenes, "table_repeat_out", &["--repeat", "3"]);
    assert!(stdout.contains("the median of 3 runs"), "{stdout}");
    assert_eq!(json["runs_per_example"], 3);
    assert_eq!(json["rows"][0]["status"], "completed");
    let zero = impulse(&["table", "--repeat", "0"]);
    assert_eq!(zero.status.code(), Some(2), "clap refuses it");
    assert!(text(&zero.stderr).contains("--repeat"));
}

/// `impulse table --ensemble 3` runs the scene and two variants with gravity scaled by
/// 1 + k·10⁻⁹, lists each in the JSON and reports their mean; the first variant is the scene
/// itself, the run without `--ensemble` to the count.
#[test]
fn table_ensemble_reports_the_mean_over_variants_of_the_scene() {
    let scenes = table_scenes("table_ensemble_scenes", "chain_of_balls.toml");
    let (_, single, _) = run_table(&scenes, "table_ensemble_out", &[]);
    let (stdout, json, _) = run_table(&scenes, "table_ensemble_out", &["--ensemble", "3"]);
    assert!(
        stdout.contains("the mean over each scene and 2 variants"),
        "{stdout}"
    );
    assert_eq!(json["ensemble"], 3);
    let row = &json["rows"][0];
    assert_eq!(row["status"], "completed");
    let variants = row["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    let count = |v: &serde_json::Value, key: &str| v[key].as_u64().unwrap();
    let row0 = &single["rows"][0];
    for key in ["collisions", "microcollisions"] {
        assert_eq!(count(&variants[0], key), count(row0, key), "{key}");
        let mean = variants.iter().map(|v| count(v, key) as f64).sum::<f64>() / 3.0;
        assert_eq!(count(row, key), mean.round() as u64, "{key}");
    }
    let walls: Vec<f64> = variants
        .iter()
        .map(|v| v["wall_time_s"].as_f64().unwrap())
        .collect();
    let mean_wall = walls.iter().sum::<f64>() / 3.0;
    assert!((row["wall_time_s"].as_f64().unwrap() - mean_wall).abs() <= 1e-12 * mean_wall);
    assert_eq!(single["rows"][0]["variants"].as_array().unwrap().len(), 0);
}

/// A missing scene directory is a clear error, not a panic.
#[test]
fn table_without_scene_directory_is_an_error() {
    let result = impulse(&["table", "--scenes", "no/such/dir"]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = text(&result.stderr);
    assert!(
        stderr.contains("no/such/dir") && stderr.contains("does not exist"),
        "{stderr}"
    );
}

/// An installed `impulse`, run outside a checkout, still has the Table 7.1 scenes (issue 41,
/// item 7: it looked for `scenes/impulse` in the current directory and found nothing): it runs
/// the copies built into it, all twelve to completion, and leaves no scratch files behind.
#[test]
fn the_table_runs_outside_a_checkout_from_the_built_in_scenes() {
    let elsewhere = scratch("table_elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args(["table", "--out", "table"])
        .current_dir(&elsewhere)
        .output()
        .expect("the impulse binary runs");
    let stderr = text(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(stderr.contains("built into impulse"), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(elsewhere.join("table/table7_1.json")).unwrap(),
    )
    .unwrap();
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 12, "{json}");
    for row in rows {
        assert_eq!(row["status"], "completed", "{row}");
    }
    let file = rows[0]["file"].as_str().unwrap();
    assert!(
        !Path::new(file).exists(),
        "the built-in scenes were left in {file}"
    );
}

/// Issue 41, item 9: the run summary said "time units", gave energies without units, dumped
/// two dozen counters on one line, gave the energy change in % of a total whose potential part
/// has an arbitrary zero (the see-saw's −199 %) even where controllers drive the bodies,
/// counted multibody links as bodies (so `check` and `run` disagreed) and named two of the four
/// files it wrote. Now: a few lines, seconds and the scene's energy unit, the same census as
/// `check`, every file, and the counters only with --verbose.
#[test]
fn the_run_summary_is_short_with_units_and_names_every_file() {
    let out = scratch("summary_see_saw");
    let result = impulse(&[
        "run",
        "scenes/hybrid/see_saw.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(stdout.lines().count() <= 8, "{stdout}");
    let census = "10 bodies (8 dynamic, 2 fixed) and 1 multibody of 1 link";
    for expected in [
        "simulated 7 s of 7 s",
        census,
        "116 collisions",
        " erg → ",
        "(dissipated: collisions, friction, dampers)",
        "summary.json, trajectory.csv (701 frames), shapes.json, events.csv (6065 events)",
    ] {
        assert!(stdout.contains(expected), "no `{expected}` in:\n{stdout}");
    }
    for unwanted in ["%", "time units", "collision_checks"] {
        assert!(!stdout.contains(unwanted), "`{unwanted}` in:\n{stdout}");
    }
    let check = impulse(&["check", "scenes/hybrid/see_saw.toml"]);
    assert!(
        text(&check.stdout).contains(census),
        "{}",
        text(&check.stdout)
    );
    // A driven scene in SI: joules, and why the energy is not conserved; every counter with
    // --verbose.
    let out = scratch("summary_pd_arm");
    let result = impulse(&[
        "run",
        "scenes/multibody/pd_arm.toml",
        "--out",
        out.to_str().unwrap(),
        "--verbose",
    ]);
    let stdout = text(&result.stdout);
    assert!(
        stdout.contains(" J → ")
            && stdout.contains("not conserved: driven by controllers or forces of `arm`")
            && !stdout.contains('%'),
        "{stdout}"
    );
    assert!(stdout.contains("collision_checks"), "{stdout}");
}

/// Issue 41, item 10: the creature war wrote a 110 MB events.csv (546 067 rows, 534 662 of
/// them microcollisions) and a 126 MB view.html. `run --events collisions` keeps the
/// collisions only, `--events none` writes no events file; `view` puts at most --max-events
/// events in the page: every collision and an even share of the microcollisions.
#[test]
fn run_and_view_keep_a_long_runs_event_records_small() {
    let rows = |dir: &Path| -> Vec<String> {
        std::fs::read_to_string(dir.join("events.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(str::to_string)
            .collect()
    };
    let all = scratch("events_all");
    let result = impulse(&[
        "run",
        "scenes/impulse/block_drop.toml",
        "--out",
        all.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let every = rows(&all);
    let collisions = every.iter().filter(|r| r.contains(",collision,")).count();
    assert!(
        collisions > 10 && every.len() > 10 * collisions,
        "{collisions} of {}",
        every.len()
    );

    let only = scratch("events_collisions");
    let result = impulse(&[
        "run",
        "scenes/impulse/block_drop.toml",
        "--out",
        only.to_str().unwrap(),
        "--events",
        "collisions",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let kept = rows(&only);
    let expected: Vec<&String> = every.iter().filter(|r| r.contains(",collision,")).collect();
    assert_eq!(kept.iter().collect::<Vec<_>>(), expected);
    assert!(
        text(&result.stdout).contains(&format!("events.csv ({collisions} collisions)")),
        "{}",
        text(&result.stdout)
    );

    let none = scratch("events_none");
    let result = impulse(&[
        "run",
        "scenes/impulse/block_drop.toml",
        "--out",
        none.to_str().unwrap(),
        "--events",
        "none",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    assert!(!none.join("events.csv").exists());
    assert!(!text(&result.stdout).contains("events.csv"));
    // The trajectory is the same whatever is recorded of the events.
    let trajectory = |dir: &Path| std::fs::read(dir.join("trajectory.csv")).unwrap();
    assert!(trajectory(&all) == trajectory(&only) && trajectory(&all) == trajectory(&none));

    // The page: at most 100 events, all the collisions among them.
    let view = impulse(&["view", all.to_str().unwrap(), "--max-events", "100"]);
    assert!(view.status.success(), "{}", text(&view.stderr));
    let page = std::fs::read_to_string(all.join("view.html")).unwrap();
    let shown_collisions = page.matches("\"kind\":\"collision\"").count();
    let shown_micro = page.matches("\"kind\":\"microcollision\"").count();
    assert_eq!(shown_collisions, collisions);
    assert!(shown_collisions + shown_micro <= 100 && shown_micro > 0);
    let note = format!("of {} events: all {collisions} collisions", every.len());
    assert!(text(&view.stdout).contains(&note), "{}", text(&view.stdout));
    assert!(page.contains(&note));
}

/// Issue 41, item 11: running again into a directory left the previous run's view.html,
/// sheet.png and plots/ beside the new data. A run now removes what impulse derived from a
/// run there (and says so), and leaves other files alone.
#[test]
fn a_new_run_removes_the_previous_runs_pictures_and_page() {
    let out = scratch("rerun");
    let dir = out.to_str().unwrap();
    let run = || {
        impulse(&[
            "run",
            "scenes/impulse/block_drop.toml",
            "--out",
            dir,
            "--quiet",
        ])
    };
    assert!(run().status.success());
    for command in [
        vec!["view", dir],
        vec![
            "render", dir, "--sheet", "2", "--width", "64", "--height", "48",
        ],
        vec!["render", dir, "--width", "64", "--height", "48"],
        vec!["plot", dir],
    ] {
        let result = impulse(&command);
        assert!(
            result.status.success(),
            "{command:?}: {}",
            text(&result.stderr)
        );
    }
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    for file in ["view.html", "sheet.png", "frame.png", "plots/energy.png"] {
        assert!(out.join(file).exists(), "{file}");
    }
    let again = run();
    assert!(again.status.success());
    for file in ["view.html", "sheet.png", "frame.png", "plots"] {
        assert!(
            !out.join(file).exists(),
            "{file} was left from the earlier run"
        );
    }
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    let stderr = text(&again.stderr);
    assert!(
        stderr.contains("view.html, frame.png, sheet.png, plots/"),
        "{stderr}"
    );
}

/// Issue 41, item 13: a new user had to start a scene from nothing. `impulse new` writes a
/// starter scene from a template; each checks clean (no warnings) and runs; an existing file
/// is not overwritten without --force, and an unknown template names the others.
#[test]
fn new_writes_starter_scenes_that_check_clean_and_run() {
    let dir = scratch("new_scenes");
    std::fs::create_dir_all(&dir).unwrap();
    let list = impulse(&["new", "--list"]);
    let listed = text(&list.stdout);
    for template in ["drop", "ramp", "pendulum"] {
        assert!(listed.contains(template), "{listed}");
        let file = dir.join(format!("{template}.toml"));
        let file = file.to_str().unwrap();
        let written = impulse(&["new", file, "--template", template]);
        assert!(written.status.success(), "{}", text(&written.stderr));
        let check = impulse(&["check", file]);
        let report = text(&check.stdout);
        assert!(
            check.status.success() && report.contains(", 0 warnings"),
            "{template}: {report}"
        );
        let out = dir.join(format!("{template}_run"));
        let run = impulse(&["run", file, "--out", out.to_str().unwrap(), "--quiet"]);
        assert!(run.status.success(), "{template}: {}", text(&run.stderr));
    }
    let again = impulse(&["new", dir.join("drop.toml").to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
    let unknown = impulse(&[
        "new",
        dir.join("x.toml").to_str().unwrap(),
        "--template",
        "bridge",
    ]);
    assert!(
        text(&unknown.stderr).contains("no template `bridge` (there are: drop, ramp, pendulum)"),
        "{}",
        text(&unknown.stderr)
    );
}

/// Issue 41, item 13: every command's --help ends with examples.
#[test]
fn every_commands_help_shows_an_example() {
    for command in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["check", "--help"],
        vec!["mass", "--help"],
        vec!["view", "--help"],
        vec!["render", "--help"],
        vec!["plot", "--help"],
        vec!["table", "--help"],
        vec!["new", "--help"],
    ] {
        let help = impulse(&command);
        let shown = text(&help.stdout);
        assert!(
            help.status.success() && shown.contains("Example") && shown.contains("  impulse "),
            "{command:?}:\n{shown}"
        );
    }
}

#[test]
fn a_run_stopped_by_sigterm_keeps_its_frames_and_summary_and_can_be_viewed() {
    // Stopped by Ctrl-C or SIGTERM, `impulse run` left a 0-byte trajectory and no summary, and
    // `view`, `render` and `plot` refused the directory (issue 42).
    let out = scratch("sigterm");
    let mut child = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args([
            "run",
            "scenes/free/tossed_parts.toml",
            "--duration",
            "100000",
            "--fps",
            "10",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(repo())
        .spawn()
        .unwrap();
    // Wait until it has written frames (the buffered trajectory reaches the disk), then stop it.
    let trajectory = out.join("trajectory.csv");
    let started = std::time::Instant::now();
    while std::fs::metadata(&trajectory).map_or(0, |m| m.len()) < 100_000 {
        assert!(
            started.elapsed().as_secs() < 60,
            "no frames written in 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "interrupted");
    let sim_time = summary["sim_time"].as_f64().unwrap();
    assert!(sim_time > 0.0 && sim_time < 100000.0, "{sim_time}");
    // The trajectory ends with whole frames, the last at the time the summary gives.
    let text = std::fs::read_to_string(&trajectory).unwrap();
    assert!(text.ends_with('\n'));
    let last = text
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .unwrap();
    assert_eq!(last.parse::<f64>().unwrap(), sim_time);
    let frames = text
        .lines()
        .filter(|l| l.split(',').next() == Some(last))
        .count();
    assert_eq!(frames, summary["bodies"].as_array().unwrap().len());
    for command in ["render", "plot", "view"] {
        let result = impulse(&[command, out.to_str().unwrap()]);
        assert!(
            result.status.success(),
            "{command}: {}",
            self::text(&result.stderr)
        );
    }
}

/// Issue 42's soak figure: `impulse soak` runs each scene, judges a closed scene's energy
/// against its start and leaves a driven one unjudged (the engine's `World::is_closed`: the
/// ball on platter's platter is kinematic), and exits 0 when every scene passes. The dominos
/// stand inside the envelope; before the rebound budget (issue 42) they rose 278 erg above
/// their start by 0.05 s, and now 0 (docs/sources.md, "Checkpoints and the soak"). The part
/// sorter rose 288 erg within 2 ms (sampled 1000 times a second) before the free floor was
/// held to each body's rest ceiling, and now 0. Both were within the engine's automatic
/// bound, which the soak used to judge by; it now allows rounding only, 2e-8 of the start's
/// kinetic + |potential| energy (0.64 erg for the part sorter).
#[test]
fn the_soak_judges_closed_scenes_and_leaves_driven_ones() {
    let result = impulse(&[
        "soak",
        "--duration",
        "0.2",
        "--rate",
        "1000",
        "scenes/impulse/dominos.toml",
        "scenes/hybrid/part_sorter.toml",
        "scenes/impulse/ball_on_platter.toml",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    let row = |scene: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.starts_with(scene))
            .unwrap_or_else(|| panic!("no row for {scene} in:\n{stdout}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // Columns: scene, sim s, wall s, E start, max rise, at s, tolerance, …, verdict.
    let dominos = row("scenes/impulse/dominos.toml");
    assert_eq!(dominos[1], "0.2", "{dominos:?}");
    let rise_within_tolerance = |row: &[String]| {
        let number = |i: usize| row[i].parse::<f64>().expect("a number");
        number(4) <= number(6)
    };
    // Measured 2.9e-11 erg (rounding) against 3.3e-3.
    assert!(
        rise_within_tolerance(&dominos),
        "the dominos rose: {dominos:?}"
    );
    assert_ne!(dominos[6], "driven", "{dominos:?}");
    assert_eq!(
        dominos.last().map(String::as_str),
        Some("ok"),
        "{dominos:?}"
    );
    let sorter = row("scenes/hybrid/part_sorter.toml");
    // Measured 0 (was 288 at 2 ms).
    assert!(
        rise_within_tolerance(&sorter),
        "the part sorter rose: {sorter:?}"
    );
    let tolerance: f64 = sorter[6].parse().expect("a tolerance");
    // 2e-8 × the start's kinetic + |potential| energy, 3.187e7 erg (all potential).
    assert!((tolerance - 0.637).abs() < 0.01, "{sorter:?}");
    assert_eq!(sorter.last().map(String::as_str), Some("ok"), "{sorter:?}");
    let platter = row("scenes/impulse/ball_on_platter.toml");
    assert_eq!(platter[6], "driven", "{platter:?}");
}
