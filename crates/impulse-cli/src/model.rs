//! `impulse import` (a URDF or MJCF model as a scene file) and the diagnostic
//! `impulse dynamics` (a model's forward dynamics and mass matrix at given states, as JSON).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use impulse::scene::import::{Base, Model, ModelDynamics, ModelOptions, read_model};
use impulse::scene::{self, Severity};
use serde_json::{Value, json};

/// How the model's root is attached.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BaseArg {
    /// As the file says (URDF: welded to the world; MJCF: as its top-level joints say).
    AsWritten,
    /// Welded to the world.
    Fixed,
    /// A floating base.
    Floating,
}

impl BaseArg {
    fn base(self) -> Base {
        match self {
            Self::AsWritten => Base::AsWritten,
            Self::Fixed => Base::Fixed,
            Self::Floating => Base::Floating,
        }
    }
}

#[derive(Args)]
pub struct ImportArgs {
    /// The model: a URDF (.urdf) or MJCF (.xml) file.
    file: PathBuf,
    /// The scene file to write.
    #[arg(long)]
    to: PathBuf,
    /// How the root is attached.
    #[arg(long, value_enum, default_value = "as-written")]
    base: BaseArg,
}

#[derive(Args)]
pub struct DynamicsArgs {
    /// The model: a URDF (.urdf) or MJCF (.xml) file.
    model: PathBuf,
    /// JSON: {"gravity": [x, y, z] (optional), "states": [{"qpos": [...], "qvel": [...],
    /// "tau": [...]}, ...]} in the model's (MuJoCo's) coordinates.
    #[arg(long)]
    states: PathBuf,
    /// How the root is attached.
    #[arg(long, value_enum, default_value = "as-written")]
    base: BaseArg,
    /// Also time the articulated-body algorithm: this many calls per state.
    #[arg(long)]
    bench: Option<usize>,
}

fn load(path: &Path, base: BaseArg) -> Result<Model, String> {
    let options = ModelOptions {
        base: base.base(),
        ..ModelOptions::default()
    };
    match read_model(path, &options) {
        Ok(model) => {
            for w in &model.warnings {
                eprintln!("{w}");
            }
            Ok(model)
        }
        Err(diagnostics) => {
            for d in &diagnostics {
                eprintln!("{d}");
            }
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            Err(format!(
                "{}: {errors} error{} found",
                path.display(),
                if errors == 1 { "" } else { "s" }
            ))
        }
    }
}

/// Writes the model as a scene file, then loads that scene to check it.
pub fn import(args: &ImportArgs) -> Result<ExitCode, String> {
    let model = load(&args.file, args.base)?;
    let text = model.to_scene(&args.to);
    std::fs::write(&args.to, text)
        .map_err(|e| format!("cannot write {}: {e}", args.to.display()))?;
    let scene = scene::load(&args.to).map_err(|e| {
        format!(
            "the written scene {} does not load (a bug; please report it):\n{e}",
            args.to.display()
        )
    })?;
    let links = model.multibody.as_ref().map_or(0, |m| m.links.len());
    let dofs: usize = scene
        .world
        .multibodies()
        .iter()
        .map(|m| m.tree().nv())
        .sum();
    println!(
        "{}: wrote model `{}` ({links} links, {dofs} degrees of freedom, {} fixed bod{}) to {}",
        args.file.display(),
        model.name,
        model.fixed_bodies.len(),
        if model.fixed_bodies.len() == 1 {
            "y"
        } else {
            "ies"
        },
        args.to.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn numbers(value: &Value, key: &str, index: usize) -> Result<Vec<f64>, String> {
    match value.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|x| {
                x.as_f64()
                    .ok_or_else(|| format!("states[{index}].{key}: expected numbers"))
            })
            .collect(),
        Some(_) => Err(format!(
            "states[{index}].{key}: expected an array of numbers"
        )),
    }
}

/// Forward dynamics and mass matrices of a model at the given states, printed as JSON.
pub fn dynamics(args: &DynamicsArgs) -> Result<ExitCode, String> {
    let model = load(&args.model, args.base)?;
    let text = std::fs::read_to_string(&args.states)
        .map_err(|e| format!("cannot read {}: {e}", args.states.display()))?;
    let input: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.states.display()))?;
    let gravity = match input.get("gravity") {
        None => None,
        Some(g) => {
            let v = numbers(&json!({ "g": g }), "g", 0)?;
            if v.len() != 3 {
                return Err("gravity: expected [x, y, z]".into());
            }
            Some(impulse::math::Vec3::new(v[0], v[1], v[2]))
        }
    };
    let mut dynamics = ModelDynamics::new(&model, gravity)?;
    let states = input
        .get("states")
        .and_then(Value::as_array)
        .ok_or("expected \"states\": an array of {qpos, qvel, tau}")?;
    let nv = dynamics.nv();
    let mut results = Vec::with_capacity(states.len());
    let mut timings = Vec::new();
    for (i, state) in states.iter().enumerate() {
        let qpos = numbers(state, "qpos", i)?;
        let mut qvel = numbers(state, "qvel", i)?;
        let mut tau = numbers(state, "tau", i)?;
        if qvel.is_empty() {
            qvel = vec![0.0; nv];
        }
        if tau.is_empty() {
            tau = vec![0.0; nv];
        }
        let qacc = dynamics
            .forward_dynamics(&qpos, &qvel, &tau)
            .map_err(|e| format!("states[{i}]: {e}"))?;
        let m = dynamics
            .mass_matrix(&qpos)
            .map_err(|e| format!("states[{i}]: {e}"))?;
        let rows: Vec<&[f64]> = m.chunks(nv.max(1)).collect();
        results.push(json!({ "qacc": qacc, "mass_matrix": rows }));
        if let Some(calls) = args.bench {
            let elapsed = dynamics.time_forward_dynamics(&qpos, &qvel, &tau, calls.max(1))?;
            timings.push(elapsed.as_secs_f64() / calls.max(1) as f64);
        }
    }
    let joints: Vec<Value> = dynamics
        .joints()
        .iter()
        .map(|j| {
            json!({
                "name": j.name, "kind": j.kind, "qpos": j.qpos, "nq": j.nq,
                "dof": j.dof, "nv": j.nv
            })
        })
        .collect();
    let g = dynamics.gravity();
    let mut report = json!({
        "model": model.name,
        "nq": dynamics.nq(),
        "nv": nv,
        "gravity": [g.x, g.y, g.z],
        "joints": joints,
        "results": results,
    });
    if !timings.is_empty() {
        timings.sort_by(f64::total_cmp);
        report["bench"] = json!({
            "calls_per_state": args.bench,
            "states": timings.len(),
            "median_seconds_per_call": timings[timings.len() / 2],
            "min_seconds_per_call": timings[0],
        });
    }
    let text = serde_json::to_string(&report).map_err(|e| format!("cannot format JSON: {e}"))?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
