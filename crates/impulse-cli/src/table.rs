//! `impulse table`: run the pure impulse-based examples of Mirtich's Table 7.1 and compare
//! their speed with the thesis's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::MicrocollisionClusters;
use impulse::scene::{self, SceneError};
use serde_json::json;

#[derive(Args)]
#[command(after_help = "Examples:
  impulse table
  impulse table --list
  impulse table --repeat 3 --ensemble 6 --out bench/")]
pub struct TableArgs {
    /// Directory holding the example scenes (file names as listed by `--list`) [default:
    /// `scenes/impulse` if there is one here, else the copies built into impulse].
    #[arg(long)]
    scenes: Option<PathBuf>,
    /// Also write the table to this directory as `table7_1.csv` and `table7_1.json`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// List the examples and the scene file each needs, then stop.
    #[arg(long)]
    list: bool,
    /// Run with sleep off, as the thesis did: resting bodies take microcollisions to the end.
    #[arg(long)]
    no_sleep: bool,
    /// Answer resting contact one contact at a time, as the thesis did
    /// (`microcollision_clusters = "sequential"` in every scene) instead of in simultaneous
    /// clusters.
    #[arg(long)]
    sequential: bool,
    /// Run each example this many times and report the median wall time (runs vary by 5–10 %
    /// on a busy machine); the repeats must agree exactly in their counters and end state.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Also run N − 1 variants of each scene, its gravity scaled by 1 + k·10⁻⁹ (k = 1 … N − 1),
    /// and report the mean over all N. Contact-rich scenes are chaotic: any change moves the
    /// one trajectory (when a pile comes to rest, how many microcollisions it takes) by up to
    /// ±20 %, and the mean over variants is the fair measure of speed.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..=1000)
    )]
    ensemble: u32,
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

/// Where a checkout keeps the Table 7.1 scenes, relative to its root.
const CHECKOUT_SCENES: &str = "scenes/impulse";

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
    /// With `--ensemble`: each variant's wall time, collisions and microcollisions (the row's
    /// own figures are their means).
    variants: Vec<(f64, u64, u64)>,
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
    // The scenes of a checkout, the ones given, or (an installed program, run anywhere) the
    // copies built in.
    let built_in;
    let scenes: &Path = match &args.scenes {
        Some(dir) if !dir.is_dir() => {
            return Err(format!(
                "scene directory {} does not exist (give it with --scenes)",
                dir.display()
            ));
        }
        Some(dir) => dir,
        None if Path::new(CHECKOUT_SCENES).is_dir() => Path::new(CHECKOUT_SCENES),
        None => {
            built_in = crate::builtin::BuiltInScenes::write()?;
            eprintln!(
                "no {CHECKOUT_SCENES} here: running the Table 7.1 scenes built into impulse \
                 (--scenes DIR runs others)"
            );
            built_in.path()
        }
    };
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create output directory {}: {e}", out.display()))?;
    }
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for (stem, name, sim, thesis) in THESIS_TABLE_7_1 {
        let path = scenes.join(format!("{stem}.toml"));
        if !path.is_file() {
            skipped.push(format!("{name}: no {}", path.display()));
            continue;
        }
        eprintln!("running {name} ({}) for {sim} s …", path.display());
        let run = Run {
            path: &path,
            name,
            sim,
            thesis,
            sleep: !args.no_sleep,
            sequential: args.sequential,
        };
        rows.push(run_ensemble(&run, args.repeat, args.ensemble));
    }
    if rows.is_empty() {
        return Err(format!(
            "none of the Table 7.1 scenes is in {} (see `impulse table --list`)",
            scenes.display()
        ));
    }
    print!("{}", format_table(&rows));
    for note in &skipped {
        println!("skipped {note}");
    }
    println!(
        "slowdown = wall / simulated time (one thread{}{}); speedup = thesis slowdown / ours. \
         Thesis: Mirtich 1996, Table 7.1, SGI Indigo II (200 MHz R4400). Sleep: {}. Resting \
         contact: {}.",
        if args.repeat > 1 {
            format!(", wall the median of {} runs", args.repeat)
        } else {
            String::new()
        },
        if args.ensemble > 1 {
            format!(
                "; wall and counts the mean over each scene and {} variants, gravity scaled by \
                 1 + k·1e-9",
                args.ensemble - 1
            )
        } else {
            String::new()
        },
        if args.no_sleep {
            "off (--no-sleep), as in the thesis"
        } else {
            "as each scene sets it (on by default)"
        },
        if args.sequential {
            "one contact at a time (--sequential), as in the thesis"
        } else {
            "as each scene sets it (simultaneous clusters by default)"
        }
    );
    if let Some(out) = &args.out {
        let csv_path = out.join("table7_1.csv");
        std::fs::write(&csv_path, format_csv(&rows))
            .map_err(|e| format!("cannot write {}: {e}", csv_path.display()))?;
        let json_path = out.join("table7_1.json");
        let text = serde_json::to_string_pretty(&to_json(&rows, &skipped, args))
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

/// One example: its scene file, the thesis's name and times, whether sleep is on and whether
/// resting contact is answered one contact at a time.
struct Run<'a> {
    path: &'a Path,
    name: &'static str,
    sim: f64,
    thesis: f64,
    sleep: bool,
    sequential: bool,
}

/// [`run_repeated`] for the scene and `ensemble − 1` variants of it (see [`vary_gravity`]): the
/// mean wall time and counts, and the first variant's error status if any failed.
fn run_ensemble(run: &Run, repeat: u32, ensemble: u32) -> Row {
    let mut row = run_repeated(run, repeat, 0);
    if ensemble == 1 {
        return row;
    }
    let mut variants = vec![(row.wall_time, row.collisions, row.microcollisions)];
    for k in 1..ensemble {
        let variant = run_repeated(run, repeat, k);
        if variant.status != "completed" && row.status == "completed" {
            row.status = format!("variant {k}: {}", variant.status);
        }
        variants.push((
            variant.wall_time,
            variant.collisions,
            variant.microcollisions,
        ));
    }
    let n = variants.len() as f64;
    row.wall_time = variants.iter().map(|v| v.0).sum::<f64>() / n;
    let mean = |count: fn(&(f64, u64, u64)) -> u64| {
        (variants.iter().map(|v| count(v) as f64).sum::<f64>() / n).round() as u64
    };
    row.collisions = mean(|v| v.1);
    row.microcollisions = mean(|v| v.2);
    row.variants = variants;
    row
}

/// [`run_example`] `repeat` times: the median wall time, and an error status if the runs
/// disagree in anything but time (the same scene must give the same run).
fn run_repeated(run: &Run, repeat: u32, variant: u32) -> Row {
    let (mut first, fingerprint) = run_example(run, variant);
    let mut walls = vec![first.wall_time];
    for _ in 1..repeat {
        let (again, again_fingerprint) = run_example(run, variant);
        walls.push(again.wall_time);
        if again_fingerprint != fingerprint && first.status == "completed" {
            first.status = "runs differ: the same scene gave two different runs".into();
        }
    }
    walls.sort_by(f64::total_cmp);
    first.wall_time = walls[walls.len() / 2];
    first
}

/// The scene text with the gravity of its `[world]` table scaled by `1 + k·10⁻⁹`: the same
/// scene to every physical purpose, whose chaotic contacts take another course. The line is
/// rewritten as `gravity = [x, y, z]`; everything else is kept as it was.
fn vary_gravity(text: &str, k: u32) -> Result<String, String> {
    let factor = 1.0 + f64::from(k) * 1e-9;
    let mut in_world = false;
    let mut found = false;
    let mut varied = String::with_capacity(text.len() + 32);
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("").trim();
        if code.starts_with('[') {
            in_world = code == "[world]";
        } else if in_world
            && !found
            && let Some(value) = code
                .strip_prefix("gravity")
                .and_then(|rest| rest.trim_start().strip_prefix('='))
        {
            let components = value
                .trim()
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .map(|v| {
                    v.split(',')
                        .map(|c| c.trim().parse::<f64>())
                        .collect::<Result<Vec<_>, _>>()
                });
            let Some(Ok(g)) = components.filter(|c| c.as_ref().is_ok_and(|c| c.len() == 3)) else {
                return Err(format!(
                    "cannot vary `gravity = {}`: expected three plain numbers",
                    value.trim()
                ));
            };
            let [x, y, z] = [g[0] * factor, g[1] * factor, g[2] * factor];
            varied.push_str(&format!("gravity = [{x:?}, {y:?}, {z:?}]\n"));
            found = true;
            continue;
        }
        varied.push_str(line);
    }
    if found {
        Ok(varied)
    } else {
        Err("no `gravity = [x, y, z]` in its [world] table to vary".into())
    }
}

/// Loads and runs one scene for the thesis's simulated time, timing the simulation only (not
/// loading, and with no output written, like the thesis's runs with graphics off); with sleep
/// off if `sleep` is false; variant `k > 0` with its gravity varied (see [`vary_gravity`]).
/// Also returns what the run must reproduce: its counters, end time and the bodies' end
/// states, as text.
fn run_example(run: &Run, variant: u32) -> (Row, String) {
    let &Run {
        path,
        name,
        sim,
        thesis,
        sleep,
        sequential,
    } = run;
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
        variants: Vec::new(),
    };
    let loaded = if variant == 0 {
        scene::load(path)
    } else {
        let varied = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| vary_gravity(&text, variant));
        match varied {
            Ok(text) => scene::parse(path, &text),
            Err(message) => {
                row.status = format!("variant {variant} not made: {message}");
                return (row, String::new());
            }
        }
    };
    let mut scene = match loaded {
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
    if sequential {
        scene
            .world
            .set_microcollision_clusters(MicrocollisionClusters::Sequential);
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
    row.collisions = counters.collisions;
    row.microcollisions = counters.microcollisions;
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

fn to_json(rows: &[Row], skipped: &[String], args: &TableArgs) -> serde_json::Value {
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
                "variants": r.variants.iter().map(|(wall, collisions, microcollisions)| json!({
                    "wall_time_s": wall,
                    "collisions": collisions,
                    "microcollisions": microcollisions,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "source": "Mirtich 1996, Table 7.1 (SGI Indigo II, 200 MHz R4400)",
        "sleep": if args.no_sleep { "off" } else { "as each scene sets it" },
        "microcollision_clusters": if args.sequential { "sequential" } else { "as each scene sets it" },
        "runs_per_example": args.repeat,
        "ensemble": args.ensemble,
        "rows": rows,
        "skipped": skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varying_gravity_scales_the_world_table_gravity_only() {
        let text = "# g\n[world]\nname = \"x\"\ngravity = [0, 0.5, -981] # cm/s²\n\n\
                    [[bodies]]\ngravity = [1, 2, 3]\n";
        let varied = vary_gravity(text, 2).unwrap();
        let lines: Vec<&str> = varied.lines().collect();
        // Everything but the world's gravity line is kept, the bodies' key included.
        assert_eq!(lines.len(), 7);
        for i in [0, 1, 2, 4, 5, 6] {
            assert_eq!(lines[i], text.lines().nth(i).unwrap());
        }
        // Each component scaled by 1 + 2·10⁻⁹, to rounding.
        let g: Vec<f64> = lines[3]
            .strip_prefix("gravity = [")
            .and_then(|v| v.strip_suffix(']'))
            .unwrap()
            .split(", ")
            .map(|c| c.parse().unwrap())
            .collect();
        assert_eq!(g[0], 0.0);
        for (varied, original) in [(g[1], 0.5), (g[2], -981.0)] {
            let scale = varied / original - 1.0;
            assert!((scale - 2e-9).abs() < 1e-15, "{varied} from {original}");
        }
    }

    #[test]
    fn a_scene_whose_gravity_cannot_be_varied_says_why() {
        let none = vary_gravity(
            "[world]\nname = \"x\"\n[[bodies]]\ngravity = [0, 0, 1]\n",
            1,
        );
        assert!(none.unwrap_err().contains("no `gravity = [x, y, z]`"));
        let odd = vary_gravity("[world]\ngravity = [0, -981]\n", 1);
        assert!(odd.unwrap_err().contains("expected three plain numbers"));
        let underscored = vary_gravity("[world]\ngravity = [0, 0, -9_81]\n", 1);
        assert!(underscored.is_err());
    }
}
