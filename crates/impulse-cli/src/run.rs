//! `impulse run SCENE`.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use impulse::run::events::EventWriter;
use impulse::run::shapes::ShapesFile;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, run_scene_until};
use impulse::scene::{self, RunOptions, Scene, SceneError};
use indicatif::{ProgressBar, ProgressStyle};

use crate::summary::{Census, RunReport, counters, drivers};

#[derive(Args)]
// The arguments' doc comments are their `--help` text, written for a terminal, not HTML.
#[allow(rustdoc::invalid_html_tags)]
#[command(after_help = "Examples:
  impulse run scenes/free/dzhanibekov.toml
  impulse run scenes/hybrid/creature_war.toml --duration 10 --events collisions
  impulse run my_scene.toml --out runs/first --fps 120 --verbose")]
pub struct RunArgs {
    /// The scene file (TOML).
    scene: PathBuf,
    /// Simulated time, overriding the scene's `world.duration`.
    #[arg(long)]
    duration: Option<f64>,
    /// Output directory [default: out/<scene file name>]. What an earlier run left there and
    /// no longer matches (view.html, pictures, plots) is removed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Output frames per unit of simulated time, overriding `world.output_rate`.
    #[arg(long)]
    fps: Option<f64>,
    /// Which collision events to write to events.csv: every collision and microcollision
    /// (`all`), the collisions only (`collisions`: microcollisions, the trains of small impulses
    /// of resting and rolling contact, are most of a long run's rows), or no file (`none`).
    #[arg(long, value_enum, default_value_t = Events::All)]
    events: Events,
    /// No progress bar and no summary on standard output.
    #[arg(long, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print every counter of the run (they are always in summary.json).
    #[arg(long, short)]
    verbose: bool,
}

/// Which events `impulse run` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Events {
    /// Every collision and microcollision.
    All,
    /// Collisions only.
    Collisions,
    /// None: no events.csv.
    None,
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
    if crate::assembly::is_assembly(&args.scene) {
        return crate::assembly::run(&args.scene, duration, fps, args.out.clone(), args.quiet);
    }
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
    let removed = remove_stale_outputs(&out, args.events == Events::None)?;
    if !removed.is_empty() {
        eprintln!(
            "removed from {} what an earlier run left there: {}",
            out.display(),
            removed.join(", ")
        );
    }
    // Ctrl-C or SIGTERM ends the run after the frame being computed, with the records and
    // summary written (issue 42); a second one ends the process at once.
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
    let trajectory_path = out.join("trajectory.csv");
    let summary_path = out.join("summary.json");
    let file = File::create(&trajectory_path)
        .map_err(|e| format!("cannot create {}: {e}", trajectory_path.display()))?;
    let io_error = |e: std::io::Error| format!("writing {}: {e}", trajectory_path.display());
    let mut trajectory = TrajectoryWriter::new(BufWriter::new(file)).map_err(io_error)?;
    let (mut events, events_written) = write_records(&out, &scene, args.events)?;

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
    // Ctrl-C and SIGTERM also stop a long stretch between two frames (issue 42).
    scene.world.set_interrupt(&STOP);
    let outcome = run_scene_until(&mut scene, &options, &mut records, &mut progress, &STOP)
        .map_err(|e| format!("writing the run's records in {}: {e}", out.display()))?;
    bar.finish_and_clear();

    let summary = &outcome.summary;
    let json = serde_json::to_string_pretty(summary)
        .map_err(|e| format!("cannot format the summary: {e}"))?;
    std::fs::write(&summary_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;

    if !args.quiet {
        let frames = summary.counters.get("output_frames").copied().unwrap_or(0);
        let mut files = vec![
            "summary.json".to_string(),
            format!("trajectory.csv ({frames} frames)"),
            "shapes.json".to_string(),
        ];
        let rows = events_written.get();
        match args.events {
            Events::All => files.push(format!("events.csv ({rows} events)")),
            Events::Collisions => files.push(format!("events.csv ({rows} collisions)")),
            Events::None => {}
        }
        let report = RunReport {
            summary,
            scene_file: &args.scene.display().to_string(),
            census: Census::of(&scene.world),
            units: scene.units,
            drivers: drivers(&scene.world),
            files,
            out_dir: &out.display().to_string(),
        };
        println!("{report}");
        if args.verbose {
            print!("{}", counters(summary));
        }
    }
    if summary.status == "interrupted" {
        eprintln!(
            "interrupted: the run stopped at t = {}, and the output up to then is in {}",
            summary.sim_time,
            out.display()
        );
        // The shell's code for a process ended by SIGINT.
        return Ok(ExitCode::from(130));
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

/// Set by the Ctrl-C / SIGTERM handler: stop after the current frame.
static STOP: AtomicBool = AtomicBool::new(false);

/// The files other commands derive from a run (`view`, `render`, `plot`), relative to its
/// directory: left from an earlier run they would show that run beside this one's data.
const DERIVED: [&str; 10] = [
    "view.html",
    "frame.png",
    "sheet.png",
    "plots/energy.svg",
    "plots/energy.png",
    "plots/energy.csv",
    "plots/collisions.svg",
    "plots/collisions.png",
    "plots/speed.svg",
    "plots/speed.png",
];

/// Removes the derived files an earlier run left in `out` (and its `events.csv` when this run
/// writes none), and `plots/` if that empties it; returns what was removed, as shown to the
/// user. Files impulse does not write are left alone (issue 41, item 11).
fn remove_stale_outputs(out: &Path, no_events: bool) -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    let stale = DERIVED
        .iter()
        .copied()
        .chain(no_events.then_some("events.csv"));
    for name in stale {
        let path = out.join(name);
        if path.is_file() {
            std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove the stale {}: {e}", path.display()))?;
            removed.push(name.to_string());
        }
    }
    let plots = out.join("plots");
    if plots.is_dir() && std::fs::read_dir(&plots).is_ok_and(|mut d| d.next().is_none()) {
        let _ = std::fs::remove_dir(&plots);
    }
    // One line for the plots.
    let plot_files = removed.iter().filter(|n| n.starts_with("plots/")).count();
    removed.retain(|n| !n.starts_with("plots/"));
    if plot_files > 0 {
        removed.push("plots/".to_string());
    }
    Ok(removed)
}

/// The events file's writer: the header, then the rows of the kinds kept, counting them.
pub struct EventFilter {
    out: Box<dyn Write>,
    keep_microcollisions: bool,
    line: Vec<u8>,
    header_written: bool,
    rows: Rc<Cell<u64>>,
}

impl Write for EventFilter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &byte in bytes {
            self.line.push(byte);
            if byte == b'\n' {
                let keep = if !self.header_written {
                    self.header_written = true;
                    true
                } else {
                    // Rows are `t,kind,…`: the kind is the second field.
                    let micro = self.line.split(|&b| b == b',').nth(1) == Some(b"microcollision");
                    if !micro || self.keep_microcollisions {
                        self.rows.set(self.rows.get() + 1);
                        true
                    } else {
                        false
                    }
                };
                if keep {
                    self.out.write_all(&self.line)?;
                }
                self.line.clear();
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes `shapes.json` and starts `events.csv` (see `impulse::run::shapes` and `impulse::run::events`), keeping the events
/// `which` asks for; also returns the count of event rows written.
fn write_records(
    out: &Path,
    scene: &Scene,
    which: Events,
) -> Result<(EventWriter<EventFilter>, Rc<Cell<u64>>), String> {
    let shapes_path = out.join("shapes.json");
    let shapes = ShapesFile::of_world(&scene.name, &scene.world);
    let json =
        serde_json::to_string(&shapes).map_err(|e| format!("cannot format the shapes: {e}"))?;
    std::fs::write(&shapes_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", shapes_path.display()))?;
    let events_path = out.join("events.csv");
    let sink: Box<dyn Write> = match which {
        Events::None => Box::new(std::io::sink()),
        Events::All | Events::Collisions => {
            let file = File::create(&events_path)
                .map_err(|e| format!("cannot create {}: {e}", events_path.display()))?;
            Box::new(BufWriter::new(file))
        }
    };
    let rows = Rc::new(Cell::new(0));
    let filter = EventFilter {
        out: sink,
        keep_microcollisions: which == Events::All,
        line: Vec::new(),
        header_written: false,
        rows: rows.clone(),
    };
    let writer = EventWriter::new(filter, &scene.world)
        .map_err(|e| format!("writing {}: {e}", events_path.display()))?;
    Ok((writer, rows))
}
