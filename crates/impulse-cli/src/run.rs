//! `impulse run SCENE`.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use impulse::run::checkpoint::{Checkpoint, Checkpointing, WorldRecord};
use impulse::run::events::{EventKind, EventWriter};
use impulse::run::shapes::ShapesFile;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, run_checkpointed};
use impulse::scene::{self, RunOptions, Scene, SceneError};
use impulse::world::Energy;
use indicatif::{ProgressBar, ProgressStyle};

use crate::summary::{Census, RunReport, counters, drivers};

#[derive(Args)]
// The arguments' doc comments are their `--help` text, written for a terminal, not HTML.
#[allow(rustdoc::invalid_html_tags)]
#[command(after_help = "Examples:
  impulse run scenes/free/dzhanibekov.toml
  impulse run scenes/hybrid/creature_war.toml --duration 10 --events collisions
  impulse run my_scene.toml --out runs/first --fps 120 --verbose
  impulse run scenes/hybrid/rover.toml --checkpoint-every 1
  impulse run --resume out/rover/checkpoint.bin")]
pub struct RunArgs {
    /// The scene file (TOML).
    #[arg(required_unless_present = "resume")]
    scene: Option<PathBuf>,
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
    /// Write `checkpoint.bin` into the output directory at the first frame past every multiple
    /// of this simulated time, and when the run is interrupted (Ctrl-C, SIGTERM: the run then
    /// ends at the frame being computed, a second Ctrl-C at once); `--resume` continues from
    /// it.
    #[arg(long, value_name = "T")]
    checkpoint_every: Option<f64>,
    /// Continue the run a checkpoint was taken from, in the checkpoint's directory, with the
    /// options that run had: its outputs end byte-identical to a run never stopped.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scene", "duration", "out", "fps", "events", "checkpoint_every"])]
    resume: Option<PathBuf>,
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
    let mut duration = positive("duration", args.duration)?;
    let mut fps = positive("fps", args.fps)?;
    let mut every = positive("checkpoint-every", args.checkpoint_every)?;
    let mut events_kind = args.events;
    let mut out_dir = args.out.clone();
    let resume = match &args.resume {
        Some(file) => Some(crate::checkpoint::read(file)?),
        None => None,
    };
    let scene_path = match (&resume, &args.resume, &args.scene) {
        (Some(checkpoint), Some(file), _) => {
            duration = Some(checkpoint.duration);
            fps = Some(checkpoint.frame_rate);
            every = checkpoint.every;
            events_kind = match checkpoint.events.as_str() {
                "collisions" => Events::Collisions,
                "none" => Events::None,
                _ => Events::All,
            };
            out_dir = Some(match file.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                _ => PathBuf::from("."),
            });
            crate::checkpoint::scene_of(checkpoint, file)?
        }
        (_, _, Some(scene)) => scene.clone(),
        _ => return Err("give a scene file, or --resume CHECKPOINT".into()),
    };
    if crate::assembly::is_assembly(&scene_path) {
        if every.is_some() {
            return Err(format!(
                "{}: --checkpoint-every is not available for assembly scenes (only for worlds \
                 of bodies and multibodies)",
                scene_path.display()
            ));
        }
        return crate::assembly::run(&scene_path, duration, fps, out_dir, args.quiet);
    }
    let mut scene = match scene::load(&scene_path) {
        Ok(scene) => scene,
        Err(SceneError::Io { path, message }) => {
            return Err(format!("{}: {message}", path.display()));
        }
        Err(error) => {
            eprintln!("{error}");
            return Err(format!(
                "{} has errors; nothing was run (see `impulse check`)",
                scene_path.display()
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
    // Ctrl-C and SIGTERM also stop a long stretch between two frames (issue 42); set before
    // a restore, which hands the flag to the restored world. Not with checkpoints: a world
    // stopped within a stretch is between frames, where no checkpoint can be taken, so a
    // checkpointing run ends at the frame being computed and checkpoints there (a second
    // Ctrl-C still ends it at once).
    if every.is_none() {
        scene.world.set_interrupt(&STOP);
    }
    if let Some(checkpoint) = &resume {
        // The run's own name for its scene file, as its summary gives it.
        scene.path = PathBuf::from(&checkpoint.scene_file);
        // The world at the checkpoint, before any output file is touched.
        crate::checkpoint::restore(checkpoint, &mut scene.world)?;
    }
    let stem = scene_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    let out = out_dir.unwrap_or_else(|| PathBuf::from("out").join(stem));
    std::fs::create_dir_all(&out)
        .map_err(|e| format!("cannot create output directory {}: {e}", out.display()))?;
    let removed = remove_stale_outputs(&out, events_kind == Events::None)?;
    let checkpoint_path = out.join(crate::checkpoint::CHECKPOINT_FILE);
    if resume.is_none() && checkpoint_path.is_file() {
        // An earlier run's checkpoint would resume that run over this one's records.
        std::fs::remove_file(&checkpoint_path)
            .map_err(|e| format!("cannot remove the stale {}: {e}", checkpoint_path.display()))?;
    }
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
    let io_error = |e: std::io::Error| format!("writing {}: {e}", trajectory_path.display());
    let mut trajectory = match &resume {
        Some(checkpoint) => TrajectoryWriter::resume(
            crate::checkpoint::reopen(&trajectory_path, checkpoint.trajectory_bytes)?,
            checkpoint.trajectory_frames,
        ),
        None => {
            let file = File::create(&trajectory_path)
                .map_err(|e| format!("cannot create {}: {e}", trajectory_path.display()))?;
            TrajectoryWriter::new(BufWriter::new(file)).map_err(io_error)?
        }
    };
    let (mut events, events_written) = write_records(&out, &scene, events_kind, resume.as_ref())?;

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
    // Checkpoints: what the run saves at each, and what a resumed run checks after its replay.
    let events_path = out.join("events.csv");
    let scene_hash = crate::checkpoint::scene_hash(&scene_path)?;
    let scene_abs =
        std::fs::canonicalize(&scene_path).map_err(|e| format!("{}: {e}", scene_path.display()))?;
    let mut save = |k: usize, world: &impulse::World, counts: (u64, u64), energy: Energy| {
        let bytes = |path: &Path| std::fs::metadata(path).map(|m| m.len());
        let state = world.save_state().map_err(std::io::Error::other)?;
        let checkpoint = Checkpoint {
            scene_file: scene.path.display().to_string(),
            scene_path: scene_abs.display().to_string(),
            scene_hash,
            duration: options.duration,
            frame_rate: options.frame_rate,
            events: events_name(events_kind).to_string(),
            every,
            frame: k as u64,
            time: world.time(),
            trajectory_bytes: bytes(&trajectory_path)?,
            trajectory_frames: k as u64 + 1,
            events_bytes: if events_kind == Events::None {
                0
            } else {
                bytes(&events_path)?
            },
            event_rows: events_written.get(),
            event_counts: counts,
            initial_energy: [energy.kinetic, energy.potential],
            world: state,
            state: WorldRecord::of(world),
        };
        crate::checkpoint::save(&out, &checkpoint)
    };
    let mut resumed = |_: &impulse::World| match &resume {
        Some(checkpoint) => {
            let mut files = vec![(trajectory_path.clone(), checkpoint.trajectory_bytes)];
            if events_kind != Events::None {
                files.push((events_path.clone(), checkpoint.events_bytes));
            }
            crate::checkpoint::resumed(&files)
        }
        None => Ok(()),
    };
    let mut checkpoints = Checkpointing {
        resume_after: resume.as_ref().map(|c| c.frame as usize),
        initial_energy: resume.as_ref().map(|c| Energy {
            kinetic: c.initial_energy[0],
            potential: c.initial_energy[1],
        }),
        every,
        resumed: &mut resumed,
        save: &mut save,
    };
    let file_name = scene.path.display().to_string();
    let outcome = run_checkpointed(
        &scene.name,
        &file_name,
        &mut scene.world,
        &options,
        &mut records,
        &mut progress,
        &STOP,
        &mut checkpoints,
    )
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
        match events_kind {
            Events::All => files.push(format!("events.csv ({rows} events)")),
            Events::Collisions => files.push(format!("events.csv ({rows} collisions)")),
            Events::None => {}
        }
        let report = RunReport {
            summary,
            scene_file: &scene_path.display().to_string(),
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
    if let (Some(checkpoint), false) = (&resume, args.quiet) {
        eprintln!(
            "resumed at t = {} (frame {}) from the checkpoint's saved state: {} heap events \
             simulated after it",
            checkpoint.time, checkpoint.frame, outcome.heap_events_run
        );
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

/// The events file's writer: the header, then the rows (of the kinds the `EventWriter` keeps),
/// counting them.
pub struct EventFilter {
    out: Box<dyn Write>,
    header_written: bool,
    rows: Rc<Cell<u64>>,
}

impl Write for EventFilter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // Names are written without line breaks (control characters are refused in scenes), so
        // every line break ends a line; the first ends the header.
        let mut lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        if !self.header_written && lines > 0 {
            self.header_written = true;
            lines -= 1;
        }
        self.rows.set(self.rows.get() + lines);
        self.out.write_all(bytes)?;
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
    resume: Option<&Checkpoint>,
) -> Result<(EventWriter<EventFilter>, Rc<Cell<u64>>), String> {
    let shapes_path = out.join("shapes.json");
    let shapes = ShapesFile::of_world(&scene.name, &scene.world);
    let json =
        serde_json::to_string(&shapes).map_err(|e| format!("cannot format the shapes: {e}"))?;
    std::fs::write(&shapes_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", shapes_path.display()))?;
    let events_path = out.join("events.csv");
    let sink: Box<dyn Write> = match (which, resume) {
        (Events::None, _) => Box::new(std::io::sink()),
        (_, Some(checkpoint)) => Box::new(crate::checkpoint::reopen(
            &events_path,
            checkpoint.events_bytes,
        )?),
        (Events::All | Events::Collisions, None) => {
            let file = File::create(&events_path)
                .map_err(|e| format!("cannot create {}: {e}", events_path.display()))?;
            Box::new(BufWriter::new(file))
        }
    };
    let rows = Rc::new(Cell::new(resume.map_or(0, |c| c.event_rows)));
    let filter = EventFilter {
        out: sink,
        header_written: resume.is_some(),
        rows: rows.clone(),
    };
    let writer = match resume {
        Some(checkpoint) => EventWriter::resume(filter, &scene.world, checkpoint.event_counts),
        None => EventWriter::new(filter, &scene.world)
            .map_err(|e| format!("writing {}: {e}", events_path.display()))?,
    };
    let writer = writer.keeping(match which {
        Events::All => &[
            EventKind::Collision,
            EventKind::Microcollision,
            EventKind::Ray,
        ],
        Events::Collisions => &[EventKind::Collision, EventKind::Ray],
        Events::None => &[],
    });
    Ok((writer, rows))
}

/// The name of an events choice in a checkpoint.
fn events_name(events: Events) -> &'static str {
    match events {
        Events::All => "all",
        Events::Collisions => "collisions",
        Events::None => "none",
    }
}
