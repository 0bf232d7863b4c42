//! `impulse poses` as a user runs it: tables and files, determinism over threads and shards
//! (identical bytes), and every kind of bad input refused with a clear message.

mod common;

use common::*;
use std::path::Path;

/// The standard output of a command that must succeed.
fn ok(args: &[&str]) -> String {
    text(&succeeds(args).stdout)
}

/// Runs a command that must fail with exit status 1 and an error containing every `needle`.
fn refused(args: &[&str], needles: &[&str]) {
    let result = impulse(args);
    let stderr = text(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: `{needle}` not in {stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (face, quasi-static) pairs from a poses.csv, sorted by face normal so parts read from
/// different files compare.
fn quasi_static_column(csv: &str) -> Vec<([i64; 3], f64)> {
    let mut rows: Vec<([i64; 3], f64)> = csv
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            let n = [8, 9, 10].map(|k| (cells[k].parse::<f64>().unwrap() * 1e6).round() as i64);
            (n, cells[2].parse().unwrap())
        })
        .collect();
    rows.sort_by_key(|a| a.0);
    rows
}

#[test]
fn quasi_static_table_of_the_1x2x3_box_from_a_mesh_and_from_a_scene() {
    let out = scratch("poses_qs_box");
    let stdout = ok(&[
        "poses",
        "meshes/parts/box_1x2x3.obj",
        "--method",
        "quasi-static",
        "--no-pictures",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stdout.contains("6 hull faces, 6 stable"), "{stdout}");
    let csv = String::from_utf8(read(&out.join("poses.csv"))).unwrap();
    let column = quasi_static_column(&csv);
    // Digest V16, per face: 0.32251 (normal along the 1 cm side), 0.12136, 0.05613.
    for (n, p) in &column {
        let expected = if n[0] != 0 {
            0.32251
        } else if n[1] != 0 {
            0.12136
        } else {
            0.05613
        };
        assert!((p - expected).abs() < 1e-5, "{n:?}: {p}");
    }
    // The same box as a scene body.
    let scene_out = scratch("poses_qs_box_scene");
    ok(&[
        "poses",
        "crates/impulse-cli/tests/data/poses/box_part.toml",
        "--method",
        "quasi-static",
        "--no-pictures",
        "--out",
        scene_out.to_str().unwrap(),
    ]);
    let scene =
        quasi_static_column(&String::from_utf8(read(&scene_out.join("poses.csv"))).unwrap());
    assert_eq!(scene.len(), column.len());
    for (a, b) in scene.iter().zip(&column) {
        assert_eq!(a.0, b.0);
        assert!((a.1 - b.1).abs() < 1e-12);
    }
}

#[test]
fn all_methods_with_measurements_write_the_table_files_and_pictures() {
    let out = scratch("poses_all");
    let stdout = ok(&[
        "poses",
        "crates/impulse-cli/tests/data/poses/box_part.toml",
        "--method",
        "all",
        "--trials",
        "40",
        "--measured",
        "crates/impulse-cli/tests/data/poses/box_measured.csv",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    for needle in [
        "quasi-static",
        "perturbed",
        "dynamic",
        "40 drops",
        "measured (1000 physical trials)",
        "error (7.2)",
    ] {
        assert!(stdout.contains(needle), "`{needle}` not in {stdout}");
    }
    // Quasi-static error against the invented counts 640/240/120 by eq. 7.2, with the V16
    // pair probabilities 0.645022, 0.242727, 0.112251:
    // 100 (0.64·0.005022 + 0.24·0.002727 + 0.12·0.007749) = 0.4798.
    let json: serde_json::Value = serde_json::from_slice(&read(&out.join("poses.json"))).unwrap();
    let qs_error = json["errors"][0]["error_percent"].as_f64().unwrap();
    assert_eq!(json["errors"][0]["method"], "quasi-static");
    assert!((qs_error - 0.4798).abs() < 1e-4, "{qs_error}");
    assert_eq!(json["drops"]["at_rest"], 40);
    for picture in ["poses.png", "methods.png"] {
        let bytes = read(&out.join(picture));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{picture}");
    }
    assert!(out.join("drops.json").exists());
}

#[test]
fn trials_from_confidence_and_half_width() {
    // Eq. 7.3 corrected: 90 % and ±0.05 need 271 drops.
    let out = scratch("poses_trials");
    let stdout = ok(&[
        "poses",
        "meshes/parts/cube.obj",
        "--confidence",
        "0.9",
        "--half-width",
        "0.05",
        "--protocol",
        "uniform",
        "--no-pictures",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stdout.contains("271 drops"), "{stdout}");
    assert!(stdout.contains("90% intervals"), "{stdout}");
}

#[test]
fn same_bytes_for_1_2_and_4_threads_and_for_3_shards_merged() {
    // Without spin, and with 25 rad/s about each drop's random axis (`--spin`).
    for spin in ["0", "25"] {
        same_bytes(spin);
    }
}

fn same_bytes(spin: &str) {
    let base = [
        "poses",
        "meshes/parts/box_1x2x3.obj",
        "--trials",
        "60",
        "--chains",
        "3",
        "--burn-in",
        "5",
        "--seed",
        "5",
        "--no-pictures",
        "--quiet",
        "--spin",
        spin,
    ];
    let run = |name: &str, extra: &[&str]| {
        let out = scratch(name);
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        ok(&args);
        out
    };
    let one = run(&format!("poses_threads_1_{spin}"), &["--threads", "1"]);
    let drops = read(&one.join("drops.json"));
    let table = read(&one.join("poses.csv"));
    for threads in ["2", "4"] {
        let other = run(
            &format!("poses_threads_{threads}_{spin}"),
            &["--threads", threads],
        );
        assert!(
            read(&other.join("drops.json")) == drops,
            "{threads} threads"
        );
        assert!(read(&other.join("poses.csv")) == table, "{threads} threads");
    }
    let shards = scratch(&format!("poses_shards_{spin}"));
    for k in ["3/3", "1/3", "2/3"] {
        let mut args = base.to_vec();
        args.extend_from_slice(&["--shard", k, "--out", shards.to_str().unwrap()]);
        let stdout = ok(&args);
        assert!(stdout.contains("partial result"), "{stdout}");
    }
    let merged = scratch(&format!("poses_merged_{spin}"));
    let files: Vec<String> = [2, 3, 1]
        .map(|k| {
            shards
                .join(format!("drops-{k}-of-3.json"))
                .display()
                .to_string()
        })
        .to_vec();
    let mut args = vec!["poses", "merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend_from_slice(&["--no-pictures", "--out", merged.to_str().unwrap()]);
    let stdout = ok(&args);
    assert_eq!(stdout.contains("spin 25 rad/s"), spin != "0", "{stdout}");
    assert!(
        read(&merged.join("drops.json")) == drops,
        "merged drops.json"
    );
    assert!(read(&merged.join("poses.csv")) == table, "merged poses.csv");

    // Merging refuses a missing shard, a doubled one, and shards of another seed.
    refused(
        &["poses", "merge", &files[0], &files[1]],
        &["missing", "shard"],
    );
    refused(
        &["poses", "merge", &files[0], &files[1], &files[2], &files[0]],
        &["overlap"],
    );
    let other = scratch(&format!("poses_other_seed_{spin}"));
    let mut args = base.to_vec();
    args[9] = "6";
    args.extend_from_slice(&["--shard", "1/3", "--out", other.to_str().unwrap()]);
    ok(&args);
    let foreign = other.join("drops-1-of-3.json").display().to_string();
    refused(
        &["poses", "merge", &foreign, &files[0], &files[1]],
        &["different job", "seed 6"],
    );
    // A shard of another part, of another drop height, of another spin.
    let foreign_shard = |name: &str, change: &dyn Fn(&mut Vec<&str>)| {
        let dir = scratch(&format!("{name}_{spin}"));
        let mut args = base.to_vec();
        change(&mut args);
        args.extend_from_slice(&["--shard", "1/3", "--out", dir.to_str().unwrap()]);
        ok(&args);
        dir.join("drops-1-of-3.json").display().to_string()
    };
    let cube = foreign_shard("poses_other_part", &|a| a[1] = "meshes/parts/cube.obj");
    refused(
        &["poses", "merge", &files[1], &cube, &files[2]],
        &["different part", "cube"],
    );
    let lower = foreign_shard("poses_other_height", &|a| a.extend(["--height", "10"]));
    refused(
        &["poses", "merge", &lower, &files[1], &files[2]],
        &["different job", "drop physics"],
    );
    let other_spin = if spin == "0" { "7" } else { "0" };
    let spun = foreign_shard("poses_other_spin", &|a| a[13] = other_spin);
    refused(
        &["poses", "merge", &spun, &files[1], &files[2]],
        &[
            "different job",
            &format!("spin {other_spin} rad/s against {spin} rad/s"),
        ],
    );
    // Not a results file at all.
    refused(
        &["poses", "merge", "meshes/parts/cube.obj"],
        &["cube.obj", "not a results file"],
    );
}

#[test]
fn drops_that_do_not_come_to_rest_are_counted_and_reported() {
    // A time limit shorter than the fall (12 cm takes 0.156 s) plus the rest time.
    let out = scratch("poses_moving");
    let stdout = ok(&[
        "poses",
        "meshes/parts/cube.obj",
        "--trials",
        "4",
        "--rest-time",
        "0.05",
        "--time-limit",
        "0.1",
        "--no-pictures",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("0 at rest, 4 still moving after 0.1 s"),
        "{stdout}"
    );
    let json: serde_json::Value = serde_json::from_slice(&read(&out.join("poses.json"))).unwrap();
    assert_eq!(json["drops"]["moving"], 4);
}

#[test]
fn bad_parts_are_refused_with_the_file_and_the_reason() {
    let data = "crates/impulse-cli/tests/data";
    for (file, needles) in [
        ("open.obj", vec!["open.obj", "open"]),
        ("inverted.obj", vec!["inverted.obj", "inside out"]),
        ("flat.obj", vec!["flat.obj"]),
        (
            "poses/weighted_outside.toml",
            vec![
                "weighted_outside.toml",
                "lopsided",
                "centre of mass lies outside",
            ],
        ),
    ] {
        let path = format!("{data}/{file}");
        refused(&["poses", &path, "--method", "quasi-static"], &needles);
    }
    refused(
        &["poses", "meshes/parts/missing.obj"],
        &["missing.obj", "cannot read"],
    );
    refused(
        &["poses", "meshes/parts/cube.obj", "--body", "x"],
        &["--body", "mesh"],
    );
}

#[test]
fn bad_numbers_and_shard_specs_are_refused() {
    let part = "meshes/parts/cube.obj";
    for (extra, needles) in [
        (vec!["--trials", "0"], vec!["--trials", "positive"]),
        (vec!["--trials=-5"], vec!["--trials", "positive"]),
        (
            vec!["--confidence", "1.5"],
            vec!["--confidence", "between 0 and 1"],
        ),
        (
            vec!["--confidence", "0"],
            vec!["--confidence", "between 0 and 1"],
        ),
        (vec!["--half-width", "0"], vec!["--half-width"]),
        (vec!["--shard", "0/3"], vec!["k/N", "0/3"]),
        (vec!["--shard", "4/3"], vec!["k/N", "4/3"]),
        (vec!["--shard", "two/3"], vec!["k/N"]),
        (vec!["--shard", "3"], vec!["k/N"]),
        (
            vec!["--shard", "2/3"],
            vec!["1 independent chain", "--chains 3"],
        ),
        (
            vec!["--protocol", "sequential"],
            vec!["--protocol", "bootstrap or uniform"],
        ),
        (vec!["--restitution", "1.5"], vec!["restitution"]),
        (vec!["--height=-1"], vec!["drop height"]),
        (vec!["--spin=-1"], vec!["spin", "at least 0 rad/s"]),
        (vec!["--spin", "inf"], vec!["spin"]),
        (vec!["--chains", "0"], vec!["chains"]),
        (vec!["--cone", "95"], vec!["--cone"]),
    ] {
        let mut args = vec!["poses", part];
        args.extend(extra.iter().copied());
        refused(&args, &needles);
    }
    // Measured counts: a line that is not FACES,COUNT, and a face the hull does not have.
    let dir = scratch("poses_bad_measured");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "faces,count\n1,10\n2;20\n").unwrap();
    refused(
        &[
            "poses",
            part,
            "--method",
            "quasi-static",
            "--measured",
            bad.to_str().unwrap(),
        ],
        &["bad.csv:3", "FACES,COUNT"],
    );
    std::fs::write(&bad, "9,10\n").unwrap();
    refused(
        &[
            "poses",
            part,
            "--method",
            "quasi-static",
            "--measured",
            bad.to_str().unwrap(),
        ],
        &["bad.csv:1", "face 9 does not exist"],
    );
}

#[test]
fn alike_faces_group_into_one_pose() {
    // The thick coin (32-sided prism, thickness = diameter): with --group its 32 sides are one
    // pose and its two caps another; quasi-statically the sides hold h/√(h² + d²) = 1/√2 of
    // the sphere for a cylinder, 0.7082 for the prism (within 1e-2 of the cylinder).
    let out = scratch("poses_group");
    ok(&[
        "poses",
        "meshes/parts/coin_thick.obj",
        "--method",
        "quasi-static",
        "--group",
        "--no-pictures",
        "--out",
        out.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_slice(&read(&out.join("poses.json"))).unwrap();
    let poses = json["poses"].as_array().unwrap();
    assert_eq!(poses.len(), 2);
    assert_eq!(poses[0]["faces"].as_array().unwrap().len(), 32);
    assert_eq!(poses[1]["faces"].as_array().unwrap().len(), 2);
    let sides = poses[0]["quasi_static"].as_f64().unwrap();
    assert!((sides - 0.5f64.sqrt()).abs() < 1e-2, "{sides}");
    let caps = poses[1]["quasi_static"].as_f64().unwrap();
    assert!((sides + caps - 1.0).abs() < 1e-12);
}
