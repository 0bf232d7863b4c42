//! `impulse run` and `impulse check` on assembly scenes (files with an `[assembly]` table):
//! bodies joined by Kalra primitives, run on their own integrator without collisions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use impulse::assembly::balls::{AssemblyWithBalls, Ball};
use impulse::assembly::scene::{self, AssemblyScene};
use impulse::assembly::solids::AssemblyWithSolids;
use impulse::assembly::{Assembly, AssemblyError};
use impulse::math::{Mat3, Vec3, principal_axes};
use impulse::run::shapes::{BodyRecord, Geometry, SHAPES_FORMAT_VERSION, ShapeRecord, ShapesFile};
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

/// An assembly run alone, with free balls, or with solids.
enum Runner {
    Alone(Assembly),
    Balls(Box<AssemblyWithBalls>),
    Solids(Box<AssemblyWithSolids>),
}

impl Runner {
    fn assembly(&self) -> &Assembly {
        match self {
            Self::Alone(a) => a,
            Self::Balls(w) => &w.assembly,
            Self::Solids(w) => &w.assembly,
        }
    }
    fn balls(&self) -> &[Ball] {
        match self {
            Self::Alone(_) | Self::Solids(_) => &[],
            Self::Balls(w) => &w.balls,
        }
    }
    fn advance_to(&mut self, t: f64) -> Result<(), AssemblyError> {
        match self {
            Self::Alone(a) => a.advance_to(t),
            Self::Balls(w) => w.advance_to(t),
            Self::Solids(w) => w.advance_to(t),
        }
    }
}

/// The uniform box with mass `m` and principal moments `moments`: edges
/// `a_x = √(6(I_y + I_z − I_x)/m)` and so on (each kept to at least 1% of the longest, so a
/// slender rod still shows).
fn equivalent_box(m: f64, moments: &Vec3) -> [f64; 3] {
    let (x, y, z) = (moments.x, moments.y, moments.z);
    let edges = [y + z - x, x + z - y, x + y - z].map(|d| (6.0 * d.max(0.0) / m).sqrt());
    let longest = edges.iter().fold(0.0_f64, |a, &b| a.max(b));
    edges.map(|e| e.max(0.01 * longest))
}

/// `shapes.json` for an assembly run, so that `impulse view`, `render` and `plot` can show it:
/// each assembly body with shapes drawn as them, and one without as the uniform box of its mass
/// and inertia along its principal axes, with its strikers as spheres; each ball a sphere; the
/// fixed solids last.
fn shapes_file(name: &str, s: &AssemblyScene) -> ShapesFile {
    let a = &s.assembly;
    let g = a.settings().gravity;
    let rows = |i: &Mat3| [0, 1, 2].map(|r| [i[(r, 0)], i[(r, 1)], i[(r, 2)]]);
    let mut bodies: Vec<BodyRecord> = a
        .bodies()
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let (moments, axes) = principal_axes(&b.inertia());
            let q = axes.quaternion();
            let mut shapes = match s.solids.iter().find(|solid| solid.body == Some(k)) {
                Some(solid) => solid.shapes.iter().map(ShapeRecord::of).collect(),
                None => vec![ShapeRecord {
                    geometry: Geometry::Box {
                        size: equivalent_box(b.mass(), &moments),
                    },
                    position: [0.0; 3],
                    orientation: [q.w, q.i, q.j, q.k],
                }],
            };
            for st in s.strikers.iter().filter(|st| st.body == k) {
                shapes.push(ShapeRecord {
                    geometry: Geometry::Sphere { radius: st.radius },
                    position: [st.offset.x, st.offset.y, st.offset.z],
                    orientation: [1.0, 0.0, 0.0, 0.0],
                });
            }
            BodyRecord {
                name: b.name().to_string(),
                motion: "dynamic".into(),
                mass: b.mass(),
                center_of_mass: [0.0; 3],
                inertia: rows(&b.inertia()),
                shapes,
            }
        })
        .collect();
    for ball in &s.balls {
        let i = 0.4 * ball.mass * ball.radius * ball.radius;
        bodies.push(BodyRecord {
            name: ball.name.clone(),
            motion: "dynamic".into(),
            mass: ball.mass,
            center_of_mass: [0.0; 3],
            inertia: rows(&(Mat3::identity() * i)),
            shapes: vec![ShapeRecord {
                geometry: Geometry::Sphere {
                    radius: ball.radius,
                },
                position: [0.0; 3],
                orientation: [1.0, 0.0, 0.0, 0.0],
            }],
        });
    }
    for solid in s.solids.iter().filter(|solid| solid.body.is_none()) {
        bodies.push(BodyRecord {
            name: solid.name.clone(),
            motion: "fixed".into(),
            mass: 0.0,
            center_of_mass: [0.0; 3],
            inertia: [[0.0; 3]; 3],
            shapes: solid.shapes.iter().map(ShapeRecord::of).collect(),
        });
    }
    ShapesFile {
        format_version: SHAPES_FORMAT_VERSION,
        scene: name.to_string(),
        gravity: [g.x, g.y, g.z],
        bodies,
    }
}

/// One trajectory row per ball (identity orientation: a ball's turning is not tracked, only its
/// angular velocity).
fn write_balls(out: &mut String, t: f64, balls: &[Ball]) {
    for b in balls {
        let (p, v, w) = (b.position, b.velocity, b.angular_velocity);
        let _ = write!(out, "{t},{}", b.name);
        for x in [
            p.x, p.y, p.z, 1.0, 0.0, 0.0, 0.0, v.x, v.y, v.z, w.x, w.y, w.z,
        ] {
            let _ = write!(out, ",{x}");
        }
        out.push_str(",0\n");
    }
}

/// One trajectory row per fixed solid (its constant pose, at rest).
fn write_fixed(out: &mut String, t: f64, runner: &Runner) {
    let Runner::Solids(w) = runner else {
        return;
    };
    for (i, solid) in w.solids().iter().enumerate() {
        if solid.body.is_some() {
            continue;
        }
        let pose = w.pose(i);
        let p = pose.translation.vector;
        let q = pose.rotation.quaternion();
        let _ = write!(out, "{t},{}", solid.name);
        for x in [p.x, p.y, p.z, q.w, q.i, q.j, q.k] {
            let _ = write!(out, ",{x}");
        }
        out.push_str(",0,0,0,0,0,0,0\n");
    }
}

/// One trajectory row per body, in the ordinary `trajectory.csv` columns (`asleep` 1 for a
/// free body asleep among solids).
fn write_frame(out: &mut String, runner: &Runner) {
    let a = runner.assembly();
    for (i, b) in a.bodies().iter().enumerate() {
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
        let asleep = matches!(runner, Runner::Solids(w) if w.is_asleep(i));
        out.push_str(if asleep { ",1\n" } else { ",0\n" });
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
    let s = match load(path)? {
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
    let shapes = shapes_file(&s.name, &s);
    let mut runner = if !s.solids.is_empty() {
        Runner::Solids(Box::new(
            s.with_solids()
                .map_err(|e| format!("{}: {e}", path.display()))?,
        ))
    } else if s.balls.is_empty() && s.strikers.is_empty() {
        Runner::Alone(s.assembly.clone())
    } else {
        Runner::Balls(Box::new(
            s.with_balls()
                .map_err(|e| format!("{}: {e}", path.display()))?,
        ))
    };
    let e0 = runner.assembly().energy();
    let balls_e0: f64 = runner.balls().iter().map(Ball::kinetic_energy).sum();
    let mut csv = format!("{TRAJECTORY_HEADER}\n");
    write_frame(&mut csv, &runner);
    write_balls(&mut csv, 0.0, runner.balls());
    write_fixed(&mut csv, 0.0, &runner);
    let start = Instant::now();
    let mut error = None;
    let frames = frames as u64;
    for k in 1..=frames {
        // Frames land on the step grid nearest their times (the assembly steps on a fixed
        // grid; frames never change the steps it takes).
        let h = runner.assembly().settings().step;
        let t = if k == frames {
            duration
        } else {
            k as f64 / rate
        };
        let t = (t / h).round() * h;
        if let Err(e) = runner.advance_to(t) {
            error = Some(e);
            break;
        }
        write_frame(&mut csv, &runner);
        write_balls(&mut csv, runner.assembly().time(), runner.balls());
        write_fixed(&mut csv, runner.assembly().time(), &runner);
    }
    let a = runner.assembly();
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
    let shapes_path = out.join("shapes.json");
    let shapes_json = serde_json::to_string_pretty(&shapes)
        .map_err(|e| format!("cannot format the shapes: {e}"))?;
    std::fs::write(&shapes_path, shapes_json + "\n")
        .map_err(|e| format!("cannot write {}: {e}", shapes_path.display()))?;
    let mut summary = serde_json::json!({
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
    if let Runner::Balls(w) = &runner {
        summary["balls"] = w.balls.len().into();
        summary["hits"] = w.hits.len().into();
        summary["balls_kinetic_energy_initial"] = balls_e0.into();
        summary["balls_kinetic_energy_final"] =
            w.balls.iter().map(Ball::kinetic_energy).sum::<f64>().into();
    }
    if let Runner::Solids(w) = &runner {
        summary["solids"] = w.solids().len().into();
        summary["colliding_pairs"] = w.pairs().len().into();
        summary["contacts"] = w.hits.len().into();
        summary["microcollisions"] = w.hits.iter().filter(|h| h.micro).count().into();
    }
    // The requested duration (the run's readers compare it with `sim_time`).
    summary["duration"] = duration.into();
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
        if let Runner::Solids(w) = &runner {
            println!(
                "{} solids, {} colliding pairs, {} contacts answered ({} microcollisions)",
                w.solids().len(),
                w.pairs().len(),
                w.hits.len(),
                w.hits.iter().filter(|h| h.micro).count()
            );
        }
        if let Runner::Balls(w) = &runner {
            println!(
                "{} balls, {} hits; balls' kinetic energy {:.6} → {:.6} J",
                w.balls.len(),
                w.hits.len(),
                balls_e0,
                w.balls.iter().map(Ball::kinetic_energy).sum::<f64>()
            );
        }
        println!(
            "wrote summary.json, trajectory.csv, shapes.json in {}",
            out.display()
        );
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
