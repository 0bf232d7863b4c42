//! `impulse`: run, check and inspect rigid-body scenes.

mod builtin;
mod check;
mod framing;
mod mass;
mod plot;
mod raster;
mod recording;
mod render;
mod run;
mod solids;
mod summary;
mod table;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Rigid-body dynamics after Mirtich's impulse-based simulation.
#[derive(Parser)]
#[command(name = "impulse", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene file and write summary.json and trajectory.csv.
    Run(run::RunArgs),
    /// Validate a scene file and list every problem (exit status 1 if there are errors).
    Check {
        /// The scene file (TOML).
        scene: PathBuf,
    },
    /// Mass properties of a closed mesh (OBJ or STL) by Mirtich's volume integrals.
    Mass(mass::MassArgs),
    /// Write a self-contained HTML page that plays back a run (and optionally serve it).
    View(view::ViewArgs),
    /// Draw a recorded run to PNG without a browser: one time, or a contact sheet of several.
    Render(render::RenderArgs),
    /// Plot energy, collision rates and body speeds of a recorded run (SVG and PNG).
    Plot(plot::PlotArgs),
    /// Run the pure impulse-based examples of Mirtich's Table 7.1 and compare with the thesis.
    Table(table::TableArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Check { scene } => check::check(&scene),
        Command::Mass(args) => mass::mass(&args),
        Command::View(args) => view::view(&args),
        Command::Render(args) => render::render(&args),
        Command::Plot(args) => plot::plot(&args),
        Command::Table(args) => table::table(&args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
