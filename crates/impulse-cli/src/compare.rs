//! `impulse compare SCENE`: one scene under the impulse, switching, constraint and penalty
//! contact models, side by side — wall time, energy, deepest penetration, collisions,
//! integration steps and where each body ends — as a table, `compare.csv`, `compare.json`,
//! `energy.csv` and an energy plot of the four (`energy.svg`, `energy.png`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::scene;
use serde_json::{Value, json};

/// Arguments of `impulse compare`.
#[derive(Args)]
#[command(after_help = "Examples:
  impulse compare scenes/constraint/stack_of_five.toml --duration 2
  impulse compare scenes/impulse/block_on_ramp.toml --out out/ramp_models")]
pub struct CompareArgs {
    /// The scene file (TOML); its `contact_model` is replaced by each model in turn.
    scene: PathBuf,
    /// Simulated time (default: the scene's `duration`).
    #[arg(long)]
    duration: Option<f64>,
    /// Samples of the energy per unit of time (default: the scene's `output_rate`).
    #[arg(long)]
    fps: Option<f64>,
    /// Where to write the files (default: out/compare/SCENE).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The contact models compared, as `contact_model` names them.
const MODELS: [&str; 4] = ["impulse", "switching", "constraint", "penalty"];

/// One model's run.
struct ModelRun {
    model: &'static str,
    /// `completed`, or the error that stopped it.
    status: String,
    sim_time: f64,
    wall_time: f64,
    /// Total energy at the start and end, and its largest rise above the start.
    initial_energy: f64,
    final_energy: f64,
    largest_rise: f64,
    max_penetration: f64,
    collisions: u64,
    microcollisions: u64,
    /// Integration steps of the contact groups (constraint and penalty models).
    group_steps: u64,
    times: Vec<f64>,
    energy: Vec<f64>,
    /// Each dynamic body's final centre of mass.
    finals: Vec<(String, [f64; 3])>,
}

/// Runs the comparison.
pub fn compare(args: &CompareArgs) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(&args.scene)
        .map_err(|e| format!("cannot read {}: {e}", args.scene.display()))?;
    // The scene as given must load: its errors are reported once, in its own lines.
    let base = scene::parse(&args.scene, &text).map_err(|e| {
        format!(
            "{e}\n{} has errors; nothing was run (see `impulse check`)",
            args.scene.display()
        )
    })?;
    let duration = args.duration.unwrap_or(base.duration);
    let fps = args.fps.unwrap_or(base.output_rate);
    if !(duration.is_finite() && duration > 0.0) {
        return Err(format!("--duration {duration}: expected a positive time"));
    }
    if !(fps.is_finite() && fps > 0.0) || duration * fps > 1e6 {
        return Err(format!(
            "--fps {fps}: expected a positive rate giving at most 1e6 samples over {duration}"
        ));
    }
    let stem = args
        .scene
        .file_stem()
        .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out/compare").join(&stem));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut runs = Vec::new();
    for model in MODELS {
        eprintln!("{}: {model} …", args.scene.display());
        runs.push(run_model(&args.scene, &text, model, duration, fps)?);
    }
    print!("{}", table(&base.name, &runs));
    write(&out.join("compare.csv"), csv(&runs).as_bytes())?;
    let json = serde_json::to_string_pretty(&as_json(&base.name, &runs))
        .map_err(|e| format!("cannot write JSON: {e}"))?;
    write(&out.join("compare.json"), json.as_bytes())?;
    write(&out.join("energy.csv"), energy_csv(&runs).as_bytes())?;
    let series: Vec<(&str, &[f64], &[f64])> = runs
        .iter()
        .map(|r| (r.model, r.times.as_slice(), r.energy.as_slice()))
        .collect();
    crate::plot::energy_comparison(&out, &base.name, &series)?;
    println!(
        "wrote compare.csv, compare.json, energy.csv, energy.svg and energy.png in {}",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `text` with `contact_model = "MODEL"` in its `[world]` table (replacing one given there).
pub(crate) fn with_model(text: &str, model: &str) -> String {
    let setting = format!("contact_model = \"{model}\"");
    let mut out = String::with_capacity(text.len() + 32);
    let mut in_world = false;
    let mut done = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            in_world = trimmed.starts_with("[world]");
            out.push_str(line);
            out.push('\n');
            if in_world && !done {
                out.push_str(&setting);
                out.push('\n');
                done = true;
            }
            continue;
        }
        let key = trimmed.split('=').next().unwrap_or("").trim();
        if in_world && key == "contact_model" {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !done {
        out = format!("[world]\n{setting}\n{out}");
    }
    out
}

fn run_model(
    path: &Path,
    text: &str,
    model: &'static str,
    duration: f64,
    fps: f64,
) -> Result<ModelRun, String> {
    let mut scene = scene::parse(path, &with_model(text, model))
        .map_err(|e| format!("{} under the {model} model: {e}", path.display()))?;
    let world = &mut scene.world;
    let start = Instant::now();
    let initial = world.energy().total();
    let mut run = ModelRun {
        model,
        status: "completed".into(),
        sim_time: 0.0,
        wall_time: 0.0,
        initial_energy: initial,
        final_energy: initial,
        largest_rise: 0.0,
        max_penetration: 0.0,
        collisions: 0,
        microcollisions: 0,
        group_steps: 0,
        times: vec![0.0],
        energy: vec![initial],
        finals: Vec::new(),
    };
    let frames = (duration * fps).round().max(1.0) as usize;
    for k in 1..=frames {
        let t = duration * k as f64 / frames as f64;
        if let Err(e) = world.advance_to(t) {
            run.status = format!("error: {e}");
            break;
        }
        let e = world.energy().total();
        run.times.push(t);
        run.energy.push(e);
        run.largest_rise = run.largest_rise.max(e - initial);
    }
    run.wall_time = start.elapsed().as_secs_f64();
    run.sim_time = world.time();
    run.final_energy = world.energy().total();
    run.max_penetration = world.max_penetration();
    let counters = world.counters();
    run.collisions = counters.collisions;
    run.microcollisions = counters.microcollisions;
    run.group_steps =
        counters.constraint.map_or(0, |c| c.steps) + counters.penalty.map_or(0, |p| p.steps);
    run.finals = world
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| {
            let c = b.state().position;
            (b.name().to_string(), [c.x, c.y, c.z])
        })
        .collect();
    Ok(run)
}

fn table(name: &str, runs: &[ModelRun]) -> String {
    let mut s = format!("scene `{name}`, each contact model:\n");
    s += &format!(
        "{:<11} {:>9} {:>9} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10}  status\n",
        "model",
        "t (sim)",
        "wall (s)",
        "E drift",
        "E rise max",
        "penetration",
        "collisions",
        "micro",
        "steps"
    );
    for r in runs {
        s += &format!(
            "{:<11} {:>9.4} {:>9.3} {:>12.4e} {:>12.4e} {:>12.4e} {:>10} {:>10} {:>10}  {}\n",
            r.model,
            r.sim_time,
            r.wall_time,
            r.final_energy - r.initial_energy,
            r.largest_rise,
            r.max_penetration,
            r.collisions,
            r.microcollisions,
            r.group_steps,
            r.status
        );
    }
    // Where the bodies end, against the impulse model's.
    if let Some(reference) = runs.first() {
        for r in runs.iter().skip(1) {
            let apart = r
                .finals
                .iter()
                .zip(&reference.finals)
                .map(|((_, a), (_, b))| {
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
                })
                .fold(0.0, f64::max);
            s += &format!(
                "final positions, {} against impulse: {} bod{} {:.4e} apart at most\n",
                r.model,
                r.finals.len().min(reference.finals.len()),
                if r.finals.len() == 1 { "y" } else { "ies" },
                apart
            );
        }
    }
    s
}

fn csv(runs: &[ModelRun]) -> String {
    let mut s = String::from(
        "model,status,sim_time,wall_time_s,initial_energy,final_energy,largest_energy_rise,max_penetration,collisions,microcollisions,group_steps\n",
    );
    for r in runs {
        s += &format!(
            "{},\"{}\",{},{},{},{},{},{},{},{},{}\n",
            r.model,
            r.status.replace('"', "'"),
            r.sim_time,
            r.wall_time,
            r.initial_energy,
            r.final_energy,
            r.largest_rise,
            r.max_penetration,
            r.collisions,
            r.microcollisions,
            r.group_steps
        );
    }
    s
}

fn energy_csv(runs: &[ModelRun]) -> String {
    let mut s = String::from("t");
    for r in runs {
        s += &format!(",{}", r.model);
    }
    s.push('\n');
    let rows = runs.iter().map(|r| r.times.len()).max().unwrap_or(0);
    for k in 0..rows {
        let t = runs
            .iter()
            .find_map(|r| r.times.get(k))
            .copied()
            .unwrap_or(0.0);
        s += &format!("{t}");
        for r in runs {
            match r.energy.get(k) {
                Some(e) => s += &format!(",{e}"),
                None => s.push(','),
            }
        }
        s.push('\n');
    }
    s
}

fn as_json(name: &str, runs: &[ModelRun]) -> Value {
    json!({
        "scene": name,
        "models": runs.iter().map(|r| json!({
            "model": r.model,
            "status": r.status,
            "sim_time": r.sim_time,
            "wall_time_s": r.wall_time,
            "initial_energy": r.initial_energy,
            "final_energy": r.final_energy,
            "largest_energy_rise": r.largest_rise,
            "max_penetration": r.max_penetration,
            "collisions": r.collisions,
            "microcollisions": r.microcollisions,
            "group_steps": r.group_steps,
            "final_positions": r.finals.iter().map(|(n, p)| json!({"body": n, "position": p})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::with_model;

    #[test]
    fn the_model_replaces_the_one_given_in_world_only() {
        let text =
            "[world]\nname = \"a\"\ncontact_model = \"impulse\"\n\n[materials.x]\nfriction = 0.5\n";
        assert_eq!(
            with_model(text, "penalty"),
            "[world]\ncontact_model = \"penalty\"\nname = \"a\"\n\n[materials.x]\nfriction = 0.5\n"
        );
        assert_eq!(
            with_model("name = 1\n", "constraint"),
            "[world]\ncontact_model = \"constraint\"\nname = 1\n"
        );
    }
}
