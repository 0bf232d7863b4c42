//! `impulse assembly-bench`: the three mechanisms of Kalra's Table (chain 30 s, slider 30 s,
//! crank 100 s simulated) timed against the paper's run times on an HP 730, the cost of a
//! step against the number of bodies in a long chain, and an assembly among solids
//! (`box_kicker.toml`, and a field of resting crates) with and without the broad phase.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use impulse::assembly::scene;
use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, ContactSolver, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};

/// Arguments of `impulse assembly-bench`.
#[derive(Args)]
pub struct AssemblyBenchArgs {
    /// Folder holding chain.toml, slider.toml, crank.toml and box_kicker.toml.
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
    println!();
    solids_table(args)?;
    Ok(ExitCode::SUCCESS)
}

/// `n` crates (0.1 m cubes, 1 kg) dropped 1 cm onto a floor on a square grid 0.3 m apart,
/// a crank-less assembly of free bodies: n pairs with the floor and n(n − 1)/2 between crates,
/// almost all far apart.
fn crate_field(n: usize) -> Result<AssemblyWithSolids, String> {
    let side = (n as f64).sqrt().ceil() as usize;
    let mut bodies = Vec::with_capacity(n);
    let mut solids = Vec::with_capacity(n + 1);
    let cube = Shape::Box {
        half_extents: Vec3::repeat(0.05),
    };
    for i in 0..n {
        let at = Vec3::new((i % side) as f64 * 0.3, (i / side) as f64 * 0.3, 0.06);
        bodies.push(AssemblyBodyDesc::new(
            format!("crate{i}"),
            1.0,
            Vec3::repeat(0.01 / 6.0),
            at,
        ));
        solids.push(Solid {
            name: format!("crate{i}"),
            body: Some(i),
            shapes: vec![PlacedShape::new(cube.clone())],
            pose: Pose::identity(),
        });
    }
    solids.push(Solid {
        name: "floor".into(),
        body: None,
        shapes: vec![PlacedShape::new(Shape::HalfSpace)],
        pose: Pose::identity(),
    });
    let settings = AssemblySettings::with_step(Vec3::new(0.0, 0.0, -9.81), 1e-3);
    let asm = Assembly::new(settings, bodies, vec![]).map_err(|e| e.to_string())?;
    AssemblyWithSolids::new(asm, solids, ContactSettings::default(), &[], &[])
        .map_err(|e| e.to_string())
}

/// Times `sim` to `duration` and prints one row.
fn solids_row(label: &str, mut sim: AssemblyWithSolids, duration: f64) -> Result<(), String> {
    let start = Instant::now();
    sim.advance_to(duration)
        .map_err(|e| format!("{label}: {e}"))?;
    let wall = start.elapsed().as_secs_f64();
    println!(
        "{label:<34} {:>6} {:>9} {:>10} {:>10} {wall:>9.3}",
        sim.pairs().len(),
        sim.hits.len(),
        sim.trial_steps(),
        sim.narrow_queries(),
    );
    Ok(())
}

/// The assembly among solids: the shipped box kicker (2.5 s) with its contacts answered
/// together or pair by pair, with and without the broad phase, and fields of crates dropped
/// onto a floor (1 s) with and without it.
fn solids_table(args: &AssemblyBenchArgs) -> Result<(), String> {
    println!(
        "Assemblies among solids: contacts, partial steps to locate them, narrow-phase queries"
    );
    println!(
        "{:<34} {:>6} {:>9} {:>10} {:>10} {:>9}",
        "run", "pairs", "contacts", "trials", "queries", "wall (s)"
    );
    let path = args.scenes.join("box_kicker.toml");
    let s = scene::load(&path).map_err(|e| format!("{}: {e:?}", path.display()))?;
    for (label, solver, broad) in [
        (
            "box_kicker 2.5 s, together",
            ContactSolver::Simultaneous,
            true,
        ),
        (
            "box_kicker 2.5 s, together, no broad",
            ContactSolver::Simultaneous,
            false,
        ),
        (
            "box_kicker 2.5 s, pair by pair",
            ContactSolver::Sequential,
            true,
        ),
    ] {
        let mut sim = s.with_solids().map_err(|e| e.to_string())?;
        sim.solver = solver;
        sim.broad_phase = broad;
        solids_row(label, sim, s.duration)?;
    }
    // Without the broad phase every pair is queried (n² of them): above 64 crates, timed with
    // it only.
    for n in [16, 64, 128, 256] {
        let modes: &[bool] = if n > 64 { &[true] } else { &[true, false] };
        for &broad in modes {
            let mut sim = crate_field(n)?;
            sim.broad_phase = broad;
            let label = format!("{n} crates 1 s{}", if broad { "" } else { ", no broad" });
            solids_row(&label, sim, 1.0)?;
        }
    }
    Ok(())
}
