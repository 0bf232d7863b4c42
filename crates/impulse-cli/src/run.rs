//! `impulse run SCENE`.

use std::fs::File;
use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use impulse::run::events::EventWriter;
use impulse::run::shapes::ShapesFile;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, run_scene};
use impulse::scene::{self, RunOptions, Scene, SceneError};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Args)]
// The arguments' doc comments are their `--help` text, written for a terminal, not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub struct RunArgs {
    /// The scene file (TOML).
    scene: PathBuf,
    /// Simulated time, overriding the scene's `world.duration`.
    #[arg(long)]
    duration: Option<f64>,
    /// Output directory [default: out/<scene file name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Output frames per unit of simulated time, overriding `world.output_rate`.
    #[arg(long)]
    fps: Option<f64>,
    /// No progress bar and no summary on standard output.
    #[arg(long)]
    quiet: bool,
}

fn positive(name: &str, value: Option<f64>) -> Result<Option<f64>, String> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            Err(format!("--{name} must be a positive number, got {v}"))
        }
        other => Ok(other),
    }
}

pub fn run(args: &RunArgs) -> Result<ExitCode, String> {
    let duration = positive("duration", args.duration)?;
    let fps = positive("fps", args.fps)?;
    let mut scene = match scene::load(&args.scene) {
        Ok(scene) => scene,
        Err(SceneError::Io { path, message }) => {
            return Err(format!("{}: {message}", path.display()));
        }
        Err(error) => {
            eprintln!("{error}");
            return Err(format!(
                "{} has errors; nothing was run (see `impulse check`)",
                args.scene.display()
            ));
        }
    };
    for warning in &scene.warnings {
        eprintln!("{warning}");
    }
    let options = RunOptions {
        duration: duration.unwrap_or(scene.duration),
        frame_rate: fps.unwrap_or(scene.output_rate),
    };
    options.check()?;
    let stem = args
        .scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(stem));
    std::fs::create_dir_all(&out)
        .map_err(|e| format!("cannot create output directory {}: {e}", out.display()))?;
    let trajectory_path = out.join("trajectory.csv");
    let summary_path = out.join("summary.json");
    let file = File::create(&trajectory_path)
        .map_err(|e| format!("cannot create {}: {e}", trajectory_path.display()))?;
    let io_error = |e: std::io::Error| format!("writing {}: {e}", trajectory_path.display());
    let mut trajectory = TrajectoryWriter::new(BufWriter::new(file)).map_err(io_error)?;
    let mut events = write_records(&out, &scene)?;

    let bar = if args.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(1000);
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {msg} (eta {eta})")
        {
            bar.set_style(style);
        }
        bar
    };
    let total = options.duration;
    let mut progress = |t: f64| {
        bar.set_position((t / total * 1000.0) as u64);
        bar.set_message(format!("t = {t:.3} / {total}"));
    };
    let mut records = Recorders {
        trajectory: &mut trajectory,
        events: &mut events,
    };
    let outcome = run_scene(&mut scene, &options, &mut records, &mut progress)
        .map_err(|e| format!("writing the run's records in {}: {e}", out.display()))?;
    bar.finish_and_clear();

    let summary = &outcome.summary;
    let json = serde_json::to_string_pretty(summary)
        .map_err(|e| format!("cannot format the summary: {e}"))?;
    std::fs::write(&summary_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;

    if !args.quiet {
        let energy = &summary.energy;
        let change = energy.r#final - energy.initial;
        let relative = if energy.initial != 0.0 {
            format!(", {} %", signed(100.0 * change / energy.initial.abs()))
        } else {
            String::new()
        };
        let dynamic = summary
            .bodies
            .iter()
            .filter(|b| b.motion == "dynamic")
            .count();
        println!("scene      {} ({})", summary.scene, args.scene.display());
        println!(
            "simulated  {} of {} time units in {:.3} s wall time",
            summary.sim_time, summary.duration, summary.wall_time_s
        );
        println!("bodies     {} ({dynamic} dynamic)", summary.bodies.len());
        println!(
            "energy     {} → {} (change {}{relative})",
            significant(energy.initial),
            significant(energy.r#final),
            signed(change),
        );
        let counters: Vec<String> = summary
            .counters
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("counters   {}", counters.join(", "));
        println!(
            "output     {} and {} (view with `impulse view {}`)",
            summary_path.display(),
            trajectory_path.display(),
            out.display()
        );
    }
    match outcome.error {
        None => Ok(ExitCode::SUCCESS),
        Some(error) => Err(format!(
            "{error}; the run stopped at t = {}, and the output up to then is in {}",
            summary.sim_time,
            out.display()
        )),
    }
}

/// Writes `shapes.json` and starts `events.csv` (see `impulse::run::shapes` and `impulse::run::events`).
fn write_records(out: &Path, scene: &Scene) -> Result<EventWriter<BufWriter<File>>, String> {
    let shapes_path = out.join("shapes.json");
    let shapes = ShapesFile::of_world(&scene.name, &scene.world);
    let json =
        serde_json::to_string(&shapes).map_err(|e| format!("cannot format the shapes: {e}"))?;
    std::fs::write(&shapes_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", shapes_path.display()))?;
    let events_path = out.join("events.csv");
    let file = File::create(&events_path)
        .map_err(|e| format!("cannot create {}: {e}", events_path.display()))?;
    EventWriter::new(BufWriter::new(file), &scene.world)
        .map_err(|e| format!("writing {}: {e}", events_path.display()))
}

/// `x` to seven significant digits, in plain notation where that is short and in scientific
/// notation otherwise (what a person reads in a summary; the exact values are in summary.json).
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = x.abs().log10().floor();
    if (-4.0..9.0).contains(&exponent) {
        let decimals = (6.0 - exponent).max(0.0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.6e}")
    }
}

/// [`significant`] with a plus sign on positive numbers (a change).
fn signed(x: f64) -> String {
    let digits = significant(x);
    if x > 0.0 {
        format!("+{digits}")
    } else {
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::{signed, significant};

    #[test]
    fn summaries_print_seven_significant_digits() {
        assert_eq!(significant(165505.38749999998), "165505.4");
        assert_eq!(significant(-105100.16368), "-105100.2");
        assert_eq!(significant(0.0012345678), "0.001234568");
        assert_eq!(significant(2.5), "2.500000");
        assert_eq!(significant(6.02e23), "6.020000e23");
        assert_eq!(significant(-3.3e-7), "-3.300000e-7");
        assert_eq!(significant(0.0), "0");
        assert_eq!(significant(f64::NAN), "NaN");
        assert_eq!(signed(1.5e-12), "+1.500000e-12");
        assert_eq!(signed(-63.49818), "-63.49818");
    }
}
