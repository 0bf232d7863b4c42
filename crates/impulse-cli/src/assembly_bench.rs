//! `impulse assembly-bench`: the three mechanisms of Kalra's Table (chain 30 s, slider 30 s,
//! crank 100 s simulated) timed against the paper's run times on an HP 730, and the cost of a
//! step against the number of bodies in a long chain.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::assembly::scene;
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::math::{Quat, Vec3};

/// Arguments of `impulse assembly-bench`.
#[derive(Args)]
pub struct AssemblyBenchArgs {
    /// Folder holding chain.toml, slider.toml and crank.toml.
    #[arg(long, default_value = "scenes/assembly")]
    scenes: PathBuf,
}

/// The paper's mechanisms: scene file, simulated seconds and the paper's run time (s).
const PAPER: [(&str, f64, f64); 3] = [
    ("chain", 30.0, 166.7),
    ("slider", 30.0, 63.6),
    ("crank", 100.0, 234.6),
];

/// A chain of `n` rods (m = 1, L = 0.2) joined by spherical joints, its first end fixed in
/// space, hanging sideways so it swings.
fn chain(n: usize) -> Result<Assembly, String> {
    let l = 0.2;
    let mut bodies = Vec::with_capacity(n);
    let mut joints = Vec::with_capacity(n);
    for i in 0..n {
        let from = Vec3::new(i as f64 * l, 0.0, 0.0);
        let to = from + Vec3::new(l, 0.0, 0.0);
        let across = (3.0 * 1e-4 + l * l) / 12.0;
        let mut b = AssemblyBodyDesc::new(
            format!("link{i}"),
            1.0,
            Vec3::new(0.5e-4, across, across),
            (from + to) / 2.0,
        );
        b.orientation = Quat::identity();
        bodies.push(b);
        let primitive = if i == 0 {
            Primitive::FixedPoint { point: from }
        } else {
            Primitive::Spherical { anchor: from }
        };
        joints.push(JointDesc {
            name: format!("joint{i}"),
            a: i,
            b: if i == 0 { None } else { Some(i - 1) },
            primitive,
        });
    }
    Assembly::new(AssemblySettings::default(), bodies, joints).map_err(|e| e.to_string())
}

/// Runs the benchmark and prints its two tables.
pub fn assembly_bench(args: &AssemblyBenchArgs) -> Result<ExitCode, String> {
    println!("Kalra's mechanisms (simulated time as in the paper's table)");
    println!(
        "{:<8} {:>10} {:>8} {:>10} {:>12} {:>12} {:>10}",
        "scene", "simulated", "steps", "wall (s)", "µs/step", "paper (s)", "speed-up"
    );
    for (name, duration, paper) in PAPER {
        let path = args.scenes.join(format!("{name}.toml"));
        let mut s = scene::load(&path).map_err(|e| format!("{}: {e:?}", path.display()))?;
        let start = Instant::now();
        s.assembly
            .advance_to(duration)
            .map_err(|e| format!("{name}: {e}"))?;
        let wall = start.elapsed().as_secs_f64();
        let steps = s.assembly.steps();
        println!(
            "{name:<8} {duration:>10} {steps:>8} {wall:>10.3} {:>12.2} {paper:>12} {:>9.0}×",
            wall / steps as f64 * 1e6,
            paper / wall
        );
    }
    println!();
    println!("A chain of n rods on spherical joints: cost of one RK4 step (1 s simulated)");
    println!(
        "{:>6} {:>8} {:>12} {:>16}",
        "bodies", "rows", "µs/step", "µs/step/body"
    );
    for n in [5, 10, 20, 40, 80, 160] {
        let mut a = chain(n)?;
        let start = Instant::now();
        a.advance_to(1.0).map_err(|e| format!("chain {n}: {e}"))?;
        let per_step = start.elapsed().as_secs_f64() / a.steps() as f64 * 1e6;
        println!(
            "{n:>6} {:>8} {per_step:>12.2} {:>16.3}",
            a.row_count(),
            per_step / n as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}
