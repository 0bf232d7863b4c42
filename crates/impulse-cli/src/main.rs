//! `impulse`: run, check and inspect rigid-body scenes.

mod assembly;
mod assembly_bench;
mod builtin;
mod check;
mod checkpoint;
mod compare;
mod contacts;
mod framing;
mod mass;
mod model;
mod new;
mod plot;
mod poses;
mod raster;
mod recording;
mod render;
mod run;
mod serve;
mod soak;
mod solids;
mod summary;
mod sweep;
mod table;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Rigid-body dynamics after Mirtich's impulse-based simulation.
#[derive(Parser)]
#[command(name = "impulse", version, about, long_about = None, after_help = "Examples:
  impulse new my_scene.toml              write a starter scene to edit
  impulse check my_scene.toml            list every problem in it
  impulse run my_scene.toml              simulate it into out/my_scene/
  impulse view out/my_scene              a page that plays the run back
  impulse COMMAND --help                 each command's options, with examples")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene file and write summary.json and trajectory.csv.
    Run(run::RunArgs),
    /// Validate a scene file and list every problem (exit status 1 if there are errors).
    #[command(after_help = "Example:
  impulse check scenes/impulse/dominos.toml")]
    Check {
        /// The scene file (TOML).
        scene: PathBuf,
    },
    /// Run one scene under the impulse, switching, constraint and penalty contact models and
    /// compare them: wall time, energy, penetration, collisions, final positions, an energy plot.
    Compare(compare::CompareArgs),
    /// The contact problem at one instant: contacts, Baraff's LCP, Lemke's answer, and whether
    /// it is consistent, inconsistent or indeterminate.
    Contacts(contacts::ContactsArgs),
    /// Mass properties of a closed mesh (OBJ or STL) by Mirtich's volume integrals.
    Mass(mass::MassArgs),
    /// Write a self-contained HTML page that plays back a run (and optionally serve it).
    View(view::ViewArgs),
    /// Draw a recorded run to PNG without a browser: one time, or a contact sheet of several.
    Render(render::RenderArgs),
    /// Plot energy, collision rates and body speeds of a recorded run (SVG and PNG).
    Plot(plot::PlotArgs),
    /// Pose statistics of a dropped part: quasi-static, perturbed quasi-static and dynamic
    /// estimates of how often it rests on each face (`poses merge` joins shards).
    Poses(Box<poses::PosesArgs>),
    /// Run many scenes or parameter variants on a process pool or a Ray cluster (through the
    /// Python package).
    Sweep(sweep::SweepArgs),
    /// Run the pure impulse-based examples of Mirtich's Table 7.1 and compare with the thesis.
    Table(table::TableArgs),
    /// Long runs (60 s simulated each) of the Table 7.1 and hybrid scenes: energy never above
    /// its start, no penetration beyond the envelope, memory flat.
    Soak(soak::SoakArgs),
    /// Time Kalra's three mechanisms against the paper's table, and a step's cost against the
    /// length of a chain.
    AssemblyBench(assembly_bench::AssemblyBenchArgs),
    /// Write a robot model (URDF or MJCF) as a scene file.
    Import(model::ImportArgs),
    /// A model's forward dynamics and mass matrix at given states, as JSON (for checking
    /// against MuJoCo and Pinocchio).
    #[command(hide = true)]
    Dynamics(model::DynamicsArgs),
    /// Write a starter scene to edit (a box dropped on the ground, a block on a ramp, a
    /// pendulum).
    New(new::NewArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Check { scene } => check::check(&scene),
        Command::Contacts(args) => contacts::contacts(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Mass(args) => mass::mass(&args),
        Command::View(args) => view::view(&args),
        Command::Render(args) => render::render(&args),
        Command::Plot(args) => plot::plot(&args),
        Command::Poses(args) => poses::poses(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Table(args) => table::table(&args),
        Command::Soak(args) => soak::soak(&args),
        Command::AssemblyBench(args) => assembly_bench::assembly_bench(&args),
        Command::Import(args) => model::import(&args),
        Command::Dynamics(args) => model::dynamics(&args),
        Command::New(args) => new::new(&args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
