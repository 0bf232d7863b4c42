//! `impulse soak`: long runs of the Table 7.1 scenes and the hybrid scenes (issue 42's soak
//! figure): energy never above its start, no penetration beyond the collision envelope, and
//! memory that stays flat.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::World;
use impulse::scene::{self, SceneError};

use crate::table::THESIS_TABLE_7_1;

#[derive(Args)]
#[command(after_help = "Examples:
  impulse soak
  impulse soak --duration 10 scenes/hybrid/rover.toml")]
pub struct SoakArgs {
    /// Scene files to soak [default: the Table 7.1 scenes in scenes/impulse and every scene
    /// in scenes/hybrid].
    scenes: Vec<PathBuf>,
    /// Simulated time per scene.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Samples per unit of simulated time (energy and penetration are read at each).
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
}

/// Resident memory of this process from `/proc/self/status`, in kB: (VmRSS, VmHWM). Zeros
/// where there is no such file.
fn memory_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The energy rise tolerated in a closed world: none but rounding. The rebound budget holds a
/// closed world's energy to its start's less a margin of 1e-8 of it (`ReboundBudget`,
/// `world/energy.rs`), and the integration's error is below `ENERGY_TOLERANCE` (1e-9) of the
/// energies' size: twice that margin of the start's kinetic plus |potential| energy. (A body
/// set down within ε/16 of its support hops above its start by up to
/// `m g (|d| + (1/16 + ½²) ε)`, which the soak reports as a rise; no shipped scene has one.)
fn tolerance(world: &World) -> f64 {
    let e = world.energy();
    2e-8 * (e.kinetic + e.potential.abs())
}

/// One scene's soak.
struct Soak {
    name: String,
    status: String,
    sim_time: f64,
    wall: f64,
    driven: bool,
    energy_start: f64,
    max_rise: f64,
    /// When the largest rise was sampled.
    rise_at: f64,
    tolerance: f64,
    depth: f64,
    envelope: f64,
    /// VmRSS after loading, after the first simulated second, the largest seen, at the end.
    rss: [u64; 4],
}

impl Soak {
    fn energy_ok(&self) -> bool {
        self.driven || self.max_rise <= self.tolerance
    }
    fn depth_ok(&self) -> bool {
        self.depth <= self.envelope
    }
    /// Flat: the end's resident memory within 1 MB of the first second's.
    fn memory_ok(&self) -> bool {
        self.rss[3] <= self.rss[1] + 1024
    }
}

fn soak_one(path: &Path, duration: f64, rate: f64) -> Result<Soak, String> {
    let mut scene = match scene::load(path) {
        Ok(scene) => scene,
        Err(SceneError::Io { path, message }) => {
            return Err(format!("{}: {message}", path.display()));
        }
        Err(SceneError::Invalid(diagnostics)) => {
            for d in &diagnostics {
                eprintln!("{d}");
            }
            return Err(format!("{} has errors", path.display()));
        }
    };
    let world = &mut scene.world;
    let started = Instant::now();
    let rss_loaded = memory_kb().0;
    let mut status = "completed".to_string();
    if let Err(e) = world.prepare() {
        status = format!("error: {e}");
    }
    let energy_start = world.energy().total();
    let mut soak = Soak {
        name: path.display().to_string(),
        status,
        sim_time: 0.0,
        wall: 0.0,
        driven: !world.is_closed(),
        energy_start,
        max_rise: 0.0,
        rise_at: 0.0,
        tolerance: tolerance(world),
        depth: 0.0,
        envelope: world.settings().collision_epsilon,
        rss: [rss_loaded, rss_loaded, rss_loaded, rss_loaded],
    };
    let samples = (duration * rate).round() as u64;
    for k in 1..=samples {
        if soak.status != "completed" {
            break;
        }
        let t = k as f64 / rate;
        let advanced = world.advance_to(t);
        world.take_events();
        if let Err(e) = advanced {
            soak.status = format!("error: {e}");
        }
        soak.sim_time = world.time();
        let rise = world.energy().total() - energy_start;
        if rise > soak.max_rise {
            soak.max_rise = rise;
            soak.rise_at = t;
        }
        if k % rate.round().max(1.0) as u64 == 0 {
            let rss = memory_kb().0;
            if t <= 1.0 {
                soak.rss[1] = rss;
            }
            soak.rss[2] = soak.rss[2].max(rss);
        }
    }
    soak.depth = world.max_penetration();
    soak.rss[3] = memory_kb().0;
    soak.rss[2] = soak.rss[2].max(soak.rss[3]);
    soak.wall = started.elapsed().as_secs_f64();
    Ok(soak)
}

/// The default scenes: Table 7.1's, then the hybrid ones.
fn default_scenes() -> Result<Vec<PathBuf>, String> {
    let mut scenes: Vec<PathBuf> = THESIS_TABLE_7_1
        .iter()
        .map(|(stem, ..)| Path::new("scenes/impulse").join(format!("{stem}.toml")))
        .collect();
    let hybrid = Path::new("scenes/hybrid");
    let mut more: Vec<PathBuf> = std::fs::read_dir(hybrid)
        .map_err(|e| format!("cannot list {} (run in a checkout): {e}", hybrid.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    more.sort();
    scenes.extend(more);
    Ok(scenes)
}

pub fn soak(args: &SoakArgs) -> Result<ExitCode, String> {
    for (name, value) in [("duration", args.duration), ("rate", args.rate)] {
        if !(value.is_finite() && value > 0.0) {
            return Err(format!("--{name} must be a positive number, got {value}"));
        }
    }
    let scenes = if args.scenes.is_empty() {
        default_scenes()?
    } else {
        args.scenes.clone()
    };
    println!(
        "soak: {} s simulated per scene, energy and penetration sampled {} times per second",
        args.duration, args.rate
    );
    println!(
        "energy: the largest rise of kinetic + potential energy above the start's (at s: when it \
         was sampled), against rounding, 2e-8 of the start's kinetic + |potential| (closed \
         scenes; driven scenes take energy in and are not judged)"
    );
    println!(
        "depth: the deepest interpenetration, against the collision envelope; memory: VmRSS in \
         MB after loading, at t = 1 s, largest, at the end (flat: end within 1 MB of t = 1 s)"
    );
    println!(
        "{:<38} {:>6} {:>8}  {:>11} {:>10} {:>7} {:>10}  {:>9} {:>9}  {:>7} {:>7} {:>7} {:>7}  verdict",
        "scene",
        "sim s",
        "wall s",
        "E start",
        "max rise",
        "at s",
        "tolerance",
        "depth",
        "envelope",
        "rss0",
        "rss1s",
        "rssmax",
        "rssend"
    );
    let mut failed = 0;
    for path in &scenes {
        let soak = match soak_one(path, args.duration, args.rate) {
            Ok(soak) => soak,
            Err(e) => {
                println!("{:<38} could not run: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let mut faults = Vec::new();
        if soak.status != "completed" {
            faults.push(soak.status.clone());
        }
        if !soak.energy_ok() {
            faults.push("energy above its start".to_string());
        }
        if !soak.depth_ok() {
            faults.push("penetration beyond the envelope".to_string());
        }
        if !soak.memory_ok() {
            faults.push("memory grew".to_string());
        }
        let verdict = if faults.is_empty() {
            "ok".to_string()
        } else {
            failed += 1;
            format!("FAIL: {}", faults.join("; "))
        };
        let mb = |kb: u64| kb as f64 / 1024.0;
        let tolerance = if soak.driven {
            "driven".to_string()
        } else {
            format!("{:.3e}", soak.tolerance)
        };
        println!(
            "{:<38} {:>6.1} {:>8.2}  {:>11.4e} {:>10.3e} {:>7.3} {:>10}  {:>9.2e} {:>9.2e}  {:>7.1} {:>7.1} {:>7.1} {:>7.1}  {verdict}",
            soak.name,
            soak.sim_time,
            soak.wall,
            soak.energy_start,
            soak.max_rise,
            soak.rise_at,
            tolerance,
            soak.depth,
            soak.envelope,
            mb(soak.rss[0]),
            mb(soak.rss[1]),
            mb(soak.rss[2]),
            mb(soak.rss[3]),
        );
    }
    let (_, hwm) = memory_kb();
    println!(
        "peak resident memory of the whole soak (VmHWM): {:.1} MB",
        hwm as f64 / 1024.0
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
