//! `impulse run` and `impulse check` on assembly scenes (files with an `[assembly]` table):
//! bodies joined by Kalra primitives, run on their own integrator without collisions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use impulse::assembly::Assembly;
use impulse::assembly::scene::{self, AssemblyScene};
use impulse::run::trajectory::TRAJECTORY_HEADER;
use impulse::scene::{SceneError, Severity};

/// Whether the file at `path` is an assembly scene (unreadable files are left to the ordinary
/// reader, which reports them).
pub fn is_assembly(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| scene::is_assembly_scene(&text))
}

fn load(path: &Path) -> Result<Result<AssemblyScene, Vec<impulse::scene::Diagnostic>>, String> {
    match scene::load(path) {
        Ok(s) => Ok(Ok(s)),
        Err(SceneError::Io { path, message }) => Err(format!("{}: {message}", path.display())),
        Err(SceneError::Invalid(d)) => Ok(Err(d)),
    }
}

/// `impulse check` on an assembly scene.
pub fn check(path: &Path) -> Result<ExitCode, String> {
    match load(path)? {
        Ok(s) => {
            for w in &s.warnings {
                println!("{w}");
            }
            let a = &s.assembly;
            println!(
                "{}: ok — assembly `{}`: {} bodies, {} joints ({} rows), duration {} s",
                path.display(),
                s.name,
                a.bodies().len(),
                a.joint_names().len(),
                a.row_count(),
                s.duration
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(diagnostics) => {
            for d in &diagnostics {
                println!("{d}");
            }
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            println!(
                "{}: {errors} error{} found",
                path.display(),
                if errors == 1 { "" } else { "s" }
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// One trajectory row per body, in the ordinary `trajectory.csv` columns.
fn write_frame(out: &mut String, a: &Assembly) {
    for b in a.bodies() {
        let pose = b.pose();
        let p = pose.translation.vector;
        let q = pose.rotation.quaternion();
        let (v, w) = (b.velocity(), b.angular_velocity());
        let _ = write!(out, "{},{}", a.time(), b.name());
        for x in [
            p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
        ] {
            let _ = write!(out, ",{x}");
        }
        out.push_str(",0\n");
    }
}

/// `impulse run` on an assembly scene: `trajectory.csv` and `summary.json` in `out`.
pub fn run(
    path: &Path,
    duration: Option<f64>,
    fps: Option<f64>,
    out: Option<PathBuf>,
    quiet: bool,
) -> Result<ExitCode, String> {
    let mut s = match load(path)? {
        Ok(s) => s,
        Err(diagnostics) => {
            for d in &diagnostics {
                eprintln!("{d}");
            }
            return Err(format!(
                "{} has errors; nothing was run (see `impulse check`)",
                path.display()
            ));
        }
    };
    for w in &s.warnings {
        eprintln!("{w}");
    }
    let duration = duration.unwrap_or(s.duration);
    let rate = fps.unwrap_or(s.output_rate);
    let frames = (duration * rate).ceil();
    if frames > impulse::scene::MAX_FRAMES {
        return Err(format!(
            "{frames} frames is too many (at most {})",
            impulse::scene::MAX_FRAMES
        ));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(stem));
    std::fs::create_dir_all(&out)
        .map_err(|e| format!("cannot create output directory {}: {e}", out.display()))?;
    let a = &mut s.assembly;
    let e0 = a.energy();
    let mut csv = format!("{TRAJECTORY_HEADER}\n");
    write_frame(&mut csv, a);
    let start = Instant::now();
    let mut error = None;
    let frames = frames as u64;
    for k in 1..=frames {
        // Frames land on the step grid nearest their times (the assembly steps on a fixed
        // grid; frames never change the steps it takes).
        let h = a.settings().step;
        let t = if k == frames {
            duration
        } else {
            k as f64 / rate
        };
        let t = (t / h).round() * h;
        if let Err(e) = a.advance_to(t) {
            error = Some(e);
            break;
        }
        write_frame(&mut csv, a);
    }
    let wall = start.elapsed().as_secs_f64();
    let trajectory = out.join("trajectory.csv");
    std::fs::write(&trajectory, csv)
        .map_err(|e| format!("cannot write {}: {e}", trajectory.display()))?;
    let gaps: serde_json::Map<String, serde_json::Value> = a
        .joint_names()
        .into_iter()
        .zip(a.joint_gaps())
        .map(|(n, g)| (n.to_string(), g.into()))
        .collect();
    let summary = serde_json::json!({
        "scene": s.name,
        "kind": "assembly",
        "status": if error.is_some() { "error" } else { "ok" },
        "error": error.as_ref().map(|e| e.to_string()),
        "sim_time": a.time(),
        "wall_time_s": wall,
        "steps": a.steps(),
        "bodies": a.bodies().len(),
        "ode_count": a.ode_count(),
        "rows": a.row_count(),
        "redundant_rows": a.redundant_rows().ok(),
        "energy_initial": e0,
        "energy_final": a.energy(),
        "applied_work": a.applied_work(),
        "constraint_work": a.constraint_work(),
        "energy_balance": a.energy() - e0 - a.applied_work() - a.constraint_work(),
        "max_joint_gap": a.max_gap(),
        "joint_gaps": gaps,
    });
    let summary_path = out.join("summary.json");
    let json = serde_json::to_string_pretty(&summary)
        .map_err(|e| format!("cannot format the summary: {e}"))?;
    std::fs::write(&summary_path, json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", summary_path.display()))?;
    if !quiet {
        println!(
            "assembly `{}`: {} bodies, {} rows ({} redundant), {} s simulated in {:.3} s ({} steps)",
            s.name,
            a.bodies().len(),
            a.row_count(),
            a.redundant_rows().unwrap_or(0),
            a.time(),
            wall,
            a.steps()
        );
        println!(
            "energy {:.6} → {:.6} J, applied work {:.6} J, constraint work {:.3e} J, largest joint gap {:.3e}",
            e0,
            a.energy(),
            a.applied_work(),
            a.constraint_work(),
            a.max_gap()
        );
        println!("wrote summary.json, trajectory.csv in {}", out.display());
    }
    match error {
        None => Ok(ExitCode::SUCCESS),
        Some(e) => Err(format!(
            "{e}; the run stopped at t = {}, and the output up to then is in {}",
            a.time(),
            out.display()
        )),
    }
}
