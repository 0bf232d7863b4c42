//! `impulse sweep SPEC.toml`: many runs of scenes or parameter variants on a process pool or a
//! Ray cluster. The sweep is the Python package's (`impulse.sweep`, which Ray needs anyway):
//! this command runs `python3 -m impulse sweep` with the same arguments.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Args, ValueEnum};

#[derive(Args)]
// The arguments' doc comments are their `--help` text, written for a terminal, not HTML.
#[allow(rustdoc::invalid_html_tags)]
#[command(after_help = "Example:
  impulse sweep my_sweep.toml --backend ray

The spec file (keys: base or scenes, grid, variants, duration, fps, backend, workers, retries,
address: the Ray cluster, else $RAY_ADDRESS, else a local one) is described in docs/python.md. Needs the Python package: pip install ./crates/impulse-py
(and pip install ray for --backend ray). $IMPULSE_PYTHON names the Python to use
[default: python3].")]
pub struct SweepArgs {
    /// The sweep's spec file (TOML).
    spec: PathBuf,
    /// Where the runs run: a local process pool, the Ray cluster `ray.init()` connects to, or
    /// one after the other in one process [default: the spec's `backend`, else local].
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Output directory for results.json and table.csv [default: out/sweep/<spec name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// Where a sweep's runs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    Local,
    Ray,
    Serial,
}

pub fn sweep(args: &SweepArgs) -> Result<ExitCode, String> {
    let python = std::env::var("IMPULSE_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = Command::new(&python)
        .args(["-c", "import impulse.sweep"])
        .output()
        .map_err(|e| {
            format!("`impulse sweep` runs Python ({python}), which could not start: {e}")
        })?;
    if !found.status.success() {
        return Err(format!(
            "`impulse sweep` needs the Python package `impulse` in {python}: \
             pip install ./crates/impulse-py ({})",
            String::from_utf8_lossy(&found.stderr)
                .lines()
                .last()
                .unwrap_or("import failed")
        ));
    }
    let mut command = Command::new(&python);
    command.args(["-m", "impulse", "sweep"]).arg(&args.spec);
    if let Some(backend) = args.backend {
        let name = match backend {
            Backend::Local => "local",
            Backend::Ray => "ray",
            Backend::Serial => "serial",
        };
        command.args(["--backend", name]);
    }
    if let Some(out) = &args.out {
        command.arg("--out").arg(out);
    }
    if args.quiet {
        command.arg("--quiet");
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    // Its own messages are on standard error already.
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
