//! `impulse table`: run the pure impulse-based examples of Mirtich's Table 7.1 and compare
//! their speed with the thesis's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::scene::{self, SceneError};
use serde_json::json;

#[derive(Args)]
pub struct TableArgs {
    /// Directory holding the example scenes (file names as listed by `--list`).
    #[arg(long, default_value = "scenes/impulse")]
    scenes: PathBuf,
    /// Also write the table to this directory as `table7_1.csv` and `table7_1.json`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// List the examples and the scene file each needs, then stop.
    #[arg(long)]
    list: bool,
    /// Run with sleep off, as the thesis did: resting bodies take microcollisions to the end.
    #[arg(long)]
    no_sleep: bool,
    /// Run each example this many times and report the median wall time (runs vary by 5–10 %
    /// on a busy machine); the repeats must agree exactly in their counters and end state.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
}

/// One row of Table 7.1 ("pure impulse-based" part): the scene file's stem in the scenes
/// directory, the thesis's name, simulated time (s) and computation time (s).
///
/// Source: Mirtich's thesis, Table 7.1 (§7.4), as given in the engineering digest
/// `mirtich.md`, validation case V14: an SGI Indigo II (200 MHz R4400), graphics off, average of
/// several runs. The hybrid rows (see-saw, part sorter, …) are not impulse-only scenes.
pub const THESIS_TABLE_7_1: [(&str, &str, f64, f64); 12] = [
    ("dominos", "dominos", 1.2, 3.7),
    ("block_drop", "block drop", 0.8, 0.4),
    ("block_on_ramp", "block on ramp", 5.0, 1.4),
    ("chain_of_balls", "chain of balls", 2.5, 3.0),
    ("balls_in_dish", "balls in dish", 5.8, 14.0),
    ("coins", "coins", 3.6, 16.7),
    ("pool_break", "pool break", 3.0, 27.0),
    ("bowling", "bowling", 5.0, 18.0),
    ("ball_on_platter", "ball on spinning platter", 40.0, 54.3),
    ("rattleback", "rattleback top", 10.0, 12.0),
    ("part_feeder", "part feeder chute", 5.0, 33.0),
    ("exploding_text", "exploding text", 4.0, 18.0),
];

/// The outcome of running one example.
struct Row {
    example: &'static str,
    file: String,
    sim_time: f64,
    wall_time: f64,
    thesis_sim_time: f64,
    thesis_time: f64,
    collisions: u64,
    microcollisions: u64,
    status: String,
}

impl Row {
    fn slowdown(&self) -> f64 {
        self.wall_time / self.sim_time
    }
    fn thesis_slowdown(&self) -> f64 {
        self.thesis_time / self.thesis_sim_time
    }
    /// How many times faster than the thesis, per unit of simulated time.
    fn speedup(&self) -> f64 {
        self.thesis_slowdown() / self.slowdown()
    }
}

/// The CSV header (also the columns of the JSON rows and of the printed table).
pub const COLUMNS: [&str; 11] = [
    "scene",
    "file",
    "sim_time_s",
    "wall_time_s",
    "slowdown",
    "thesis_time_s",
    "thesis_slowdown",
    "speedup",
    "collisions",
    "microcollisions",
    "status",
];

pub fn table(args: &TableArgs) -> Result<ExitCode, String> {
    if args.list {
        println!("example                   scene file                  sim (s)  thesis (s)");
        for (stem, name, sim, thesis) in THESIS_TABLE_7_1 {
            println!(
                "{name:<25} {:<27} {sim:>7}  {thesis:>10}",
                format!("{stem}.toml")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.scenes.is_dir() {
        return Err(format!(
            "scene directory {} does not exist (give it with --scenes)",
            args.scenes.display()
        ));
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create output directory {}: {e}", out.display()))?;
    }
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for (stem, name, sim, thesis) in THESIS_TABLE_7_1 {
        let path = args.scenes.join(format!("{stem}.toml"));
        if !path.is_file() {
            skipped.push(format!("{name}: no {}", path.display()));
            continue;
        }
        eprintln!("running {name} ({}) for {sim} s …", path.display());
        rows.push(run_repeated(
            &path,
            name,
            sim,
            thesis,
            !args.no_sleep,
            args.repeat,
        ));
    }
    if rows.is_empty() {
        return Err(format!(
            "none of the Table 7.1 scenes is in {} (see `impulse table --list`)",
            args.scenes.display()
        ));
    }
    print!("{}", format_table(&rows));
    for note in &skipped {
        println!("skipped {note}");
    }
    println!(
        "slowdown = wall / simulated time (one thread{}); speedup = thesis slowdown / ours. \
         Thesis: Mirtich 1996, Table 7.1, SGI Indigo II (200 MHz R4400). Sleep: {}.",
        if args.repeat > 1 {
            format!(", wall the median of {} runs", args.repeat)
        } else {
            String::new()
        },
        if args.no_sleep {
            "off (--no-sleep), as in the thesis"
        } else {
            "as each scene sets it (on by default)"
        }
    );
    if let Some(out) = &args.out {
        let csv_path = out.join("table7_1.csv");
        std::fs::write(&csv_path, format_csv(&rows))
            .map_err(|e| format!("cannot write {}: {e}", csv_path.display()))?;
        let json_path = out.join("table7_1.json");
        let text =
            serde_json::to_string_pretty(&to_json(&rows, &skipped, !args.no_sleep, args.repeat))
                .map_err(|e| format!("cannot format the table: {e}"))?;
        std::fs::write(&json_path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", json_path.display()))?;
        println!("written {} and {}", csv_path.display(), json_path.display());
    }
    let failed = rows.iter().filter(|r| r.status != "completed").count();
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("error: {failed} example(s) did not complete");
        ExitCode::FAILURE
    })
}

/// [`run_example`] `repeat` times: the median wall time, and an error status if the runs
/// disagree in anything but time (the same scene must give the same run).
fn run_repeated(
    path: &Path,
    name: &'static str,
    sim: f64,
    thesis: f64,
    sleep: bool,
    repeat: u32,
) -> Row {
    let (mut first, fingerprint) = run_example(path, name, sim, thesis, sleep);
    let mut walls = vec![first.wall_time];
    for _ in 1..repeat {
        let (again, again_fingerprint) = run_example(path, name, sim, thesis, sleep);
        walls.push(again.wall_time);
        if again_fingerprint != fingerprint && first.status == "completed" {
            first.status = "runs differ: the same scene gave two different runs".into();
        }
    }
    walls.sort_by(f64::total_cmp);
    first.wall_time = walls[walls.len() / 2];
    first
}

/// Loads and runs one scene for the thesis's simulated time, timing the simulation only (not
/// loading, and with no output written, like the thesis's runs with graphics off); with sleep
/// off if `sleep` is false. Also returns what the run must reproduce: its counters, end time
/// and the bodies' end states, as text.
fn run_example(
    path: &Path,
    name: &'static str,
    sim: f64,
    thesis: f64,
    sleep: bool,
) -> (Row, String) {
    let mut row = Row {
        example: name,
        file: path.display().to_string(),
        sim_time: 0.0,
        wall_time: 0.0,
        thesis_sim_time: sim,
        thesis_time: thesis,
        collisions: 0,
        microcollisions: 0,
        status: "completed".into(),
    };
    let mut scene = match scene::load(path) {
        Ok(scene) => scene,
        Err(SceneError::Io { message, .. }) => {
            row.status = format!("not loaded: {message}");
            return (row, String::new());
        }
        Err(error) => {
            eprintln!("{error}");
            row.status = "not loaded: the scene has errors (see `impulse check`)".into();
            return (row, String::new());
        }
    };
    if !sleep {
        let mut settings = scene.world.settings().sleep;
        settings.enabled = false;
        if let Err(error) = scene.world.set_sleep(settings) {
            row.status = format!("not run: {error}");
            return (row, String::new());
        }
    }
    let started = Instant::now();
    // In steps of 0.01 s, dropping the collision events the world keeps for recorders.
    let steps = (sim * 100.0).ceil().max(1.0) as u64;
    let mut result = Ok(());
    for k in 1..=steps {
        result = scene.world.advance_to((k as f64 * 0.01).min(sim));
        drop(scene.world.take_events());
        if result.is_err() {
            break;
        }
    }
    row.wall_time = started.elapsed().as_secs_f64();
    row.sim_time = scene.world.time();
    let counters = scene.world.counters();
    row.collisions = counters.get("collisions").copied().unwrap_or(0);
    row.microcollisions = counters.get("microcollisions").copied().unwrap_or(0);
    if let Err(error) = result {
        row.status = format!("error at t = {}: {error}", row.sim_time);
    }
    let states: Vec<_> = scene.world.bodies().iter().map(|b| *b.state()).collect();
    let fingerprint = format!("{counters:?} {} {states:?}", row.sim_time);
    (row, fingerprint)
}

fn format_table(rows: &[Row]) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:<25} {:>7} {:>9} {:>8} {:>9} {:>8} {:>8} {:>10} {:>15}  status",
        "scene",
        "sim (s)",
        "wall (s)",
        "slowdown",
        "thesis(s)",
        "thesis×",
        "speedup",
        "collisions",
        "microcollisions"
    );
    for r in rows {
        let _ = writeln!(
            text,
            "{:<25} {:>7} {:>9.3} {:>8.3} {:>9.1} {:>8.1} {:>8.1} {:>10} {:>15}  {}",
            r.example,
            r.sim_time,
            r.wall_time,
            r.slowdown(),
            r.thesis_time,
            r.thesis_slowdown(),
            r.speedup(),
            r.collisions,
            r.microcollisions,
            r.status
        );
    }
    text
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn format_csv(rows: &[Row]) -> String {
    let mut text = COLUMNS.join(",") + "\n";
    for r in rows {
        let _ = writeln!(
            text,
            "{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(r.example),
            csv_field(&r.file),
            r.sim_time,
            r.wall_time,
            r.slowdown(),
            r.thesis_time,
            r.thesis_slowdown(),
            r.speedup(),
            r.collisions,
            r.microcollisions,
            csv_field(&r.status)
        );
    }
    text
}

fn to_json(rows: &[Row], skipped: &[String], sleep: bool, runs: u32) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "scene": r.example,
                "file": r.file,
                "sim_time_s": r.sim_time,
                "wall_time_s": r.wall_time,
                "slowdown": r.slowdown(),
                "thesis_time_s": r.thesis_time,
                "thesis_slowdown": r.thesis_slowdown(),
                "speedup": r.speedup(),
                "collisions": r.collisions,
                "microcollisions": r.microcollisions,
                "status": r.status,
            })
        })
        .collect();
    json!({
        "source": "Mirtich 1996, Table 7.1 (SGI Indigo II, 200 MHz R4400)",
        "sleep": if sleep { "as each scene sets it" } else { "off" },
        "runs_per_example": runs,
        "rows": rows,
        "skipped": skipped,
    })
}
