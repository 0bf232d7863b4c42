//! `impulse contacts SCENE [--at T] [--json]`: the contact problem at one instant.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use impulse::scene;
use impulse::world::{Consistency, ContactReport};
use serde_json::{Value, json};

/// Arguments of `impulse contacts`.
#[derive(Args)]
#[command(after_help = "Examples:
  impulse contacts scenes/constraint/stack_of_five.toml --at 1
  impulse contacts scenes/constraint/box_on_slope.toml --at 0.5 --json > problem.json")]
pub struct ContactsArgs {
    /// The scene file (TOML).
    scene: PathBuf,
    /// Run the scene to this time (s) first; 0 poses the problem of its initial state.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    at: f64,
    /// Print the problem as JSON (contacts, matrix, vector, solution) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the scene to `--at` and prints its contact problem there.
pub fn contacts(args: &ContactsArgs) -> Result<ExitCode, String> {
    if !(args.at.is_finite() && args.at >= 0.0) {
        return Err(format!("--at {}: expected a time ≥ 0 (s)", args.at));
    }
    let mut loaded = scene::load(&args.scene).map_err(|e| e.to_string())?;
    let world = &mut loaded.world;
    world.advance_to(args.at).map_err(|e| {
        format!(
            "{}: the run stopped before t = {}: {e}",
            args.scene.display(),
            args.at
        )
    })?;
    let report = world
        .contact_report()
        .map_err(|e| format!("{}: {e}", args.scene.display()))?;
    if args.json {
        let text = serde_json::to_string_pretty(&as_json(&report))
            .map_err(|e| format!("cannot write JSON: {e}"))?;
        println!("{text}");
    } else {
        print!("{}", as_text(&report));
    }
    Ok(ExitCode::SUCCESS)
}

fn verdict(c: &Consistency) -> &'static str {
    match c {
        Consistency::Empty => "no contacts",
        Consistency::Consistent => "consistent: contact forces exist and give one motion",
        Consistency::Indeterminate => {
            "indeterminate: several solutions that move the bodies differently (Baraff §10.1)"
        }
        Consistency::Inconsistent => {
            "inconsistent: no contact forces exist; Lemke ended on a ray, the impulse direction \
             the constraint model applies (Baraff ch. 13)"
        }
        Consistency::Unsolved => "unsolved: Lemke's algorithm stopped without an answer",
    }
}

fn as_text(r: &ContactReport) -> String {
    let mut s = format!(
        "t = {} s: {} contact{}\n",
        r.time,
        r.contacts.len(),
        plural(r.contacts.len())
    );
    for (i, c) in r.contacts.iter().enumerate() {
        s += &format!(
            "  {i:>3}  {} on {}  at ({:.6}, {:.6}, {:.6})  normal ({:.4}, {:.4}, {:.4})  gap {:.3e} m  \
             ḋ {:.3e} m/s  slip {:.3e} m/s ({})  μ {}\n",
            c.a,
            c.b,
            c.point.x,
            c.point.y,
            c.point.z,
            c.normal.x,
            c.normal.y,
            c.normal.z,
            c.gap,
            c.normal_velocity,
            c.slip,
            if c.sliding { "sliding" } else { "sticking" },
            c.friction
        );
    }
    if r.contacts.is_empty() {
        return s;
    }
    s += &format!(
        "LCP w = M z + q (Baraff §14.2.3: box friction at sticking contacts, dynamic at sliding \
         ones): {} unknowns\n",
        r.vector.len()
    );
    if r.vector.len() <= 14 {
        for (i, name) in r.unknowns.iter().enumerate() {
            let row: Vec<String> = r
                .matrix
                .row(i)
                .iter()
                .map(|v| format!("{v:>10.4}"))
                .collect();
            s += &format!(
                "  {name:<16} [{}]  q {:>10.4}\n",
                row.join(" "),
                r.vector[i]
            );
        }
    } else {
        s += "  (too large to print: use --json)\n";
    }
    s += &format!("{} ({} pivots)\n", verdict(&r.consistency), r.pivots);
    if let Some(n) = r.solutions {
        s += &format!("{n} basic solution{} by enumeration\n", plural(n));
    }
    if let Some(forces) = &r.forces {
        for (i, f) in forces.iter().enumerate() {
            let c = &r.contacts[i];
            s += &format!(
                "  force {i:>3}: normal {:.6e} N, total ({:.6e}, {:.6e}, {:.6e}) N\n",
                f.dot(&c.normal),
                f.x,
                f.y,
                f.z
            );
        }
    }
    if let Some(ray) = &r.ray {
        for (i, f) in ray.iter().enumerate() {
            s += &format!("  ray {i:>3}: ({:.6e}, {:.6e}, {:.6e})\n", f.x, f.y, f.z);
        }
    }
    s
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn as_json(r: &ContactReport) -> Value {
    let v3 = |v: &impulse::math::Vec3| json!([v.x, v.y, v.z]);
    json!({
        "time": r.time,
        "contacts": r.contacts.iter().map(|c| json!({
            "a": c.a, "b": c.b,
            "point": [c.point.x, c.point.y, c.point.z],
            "normal": v3(&c.normal),
            "gap": c.gap,
            "normal_velocity": c.normal_velocity,
            "slip": c.slip,
            "sliding": c.sliding,
            "friction": c.friction,
        })).collect::<Vec<_>>(),
        "unknowns": r.unknowns,
        "matrix": (0..r.matrix.nrows()).map(|i| r.matrix.row(i).iter().copied().collect::<Vec<f64>>()).collect::<Vec<_>>(),
        "vector": r.vector.iter().copied().collect::<Vec<f64>>(),
        "consistency": match r.consistency {
            Consistency::Empty => "empty",
            Consistency::Consistent => "consistent",
            Consistency::Indeterminate => "indeterminate",
            Consistency::Inconsistent => "inconsistent",
            Consistency::Unsolved => "unsolved",
        },
        "pivots": r.pivots,
        "solutions": r.solutions,
        "forces": r.forces.as_ref().map(|f| f.iter().map(v3).collect::<Vec<_>>()),
        "ray": r.ray.as_ref().map(|f| f.iter().map(v3).collect::<Vec<_>>()),
    })
}
