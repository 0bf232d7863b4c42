//! `impulse new FILE`: a starter scene to edit, from one of a few templates (issue 41, item 13).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// The templates: name, what it shows, and the scene.
pub const TEMPLATES: [(&str, &str, &str); 3] = [
    (
        "drop",
        "a box tossed onto the ground (bodies, materials, initial motion)",
        include_str!("../templates/drop.toml"),
    ),
    (
        "ramp",
        "a block sliding down a tilted ramp (a body placed relative to another)",
        include_str!("../templates/ramp.toml"),
    ),
    (
        "pendulum",
        "a damped double pendulum (a multibody: links, joints, a limit)",
        include_str!("../templates/pendulum.toml"),
    ),
];

#[derive(Args)]
#[command(after_help = "Examples:
  impulse new my_scene.toml
  impulse new slide.toml --template ramp && impulse run slide.toml
  impulse new --list")]
pub struct NewArgs {
    /// The scene file to write.
    #[arg(required_unless_present = "list")]
    file: Option<PathBuf>,
    /// Which starter scene (see --list).
    #[arg(long, default_value = "drop")]
    template: String,
    /// List the templates and stop.
    #[arg(long)]
    list: bool,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
}

pub fn new(args: &NewArgs) -> Result<ExitCode, String> {
    if args.list {
        for (name, what, _) in TEMPLATES {
            println!("{name:<10} {what}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(file) = &args.file else {
        return Err("give the scene file to write".into());
    };
    let Some((name, _, text)) = TEMPLATES.iter().find(|(n, ..)| *n == args.template) else {
        let names: Vec<&str> = TEMPLATES.iter().map(|(n, ..)| *n).collect();
        return Err(format!(
            "no template `{}` (there are: {})",
            args.template,
            names.join(", ")
        ));
    };
    if file.exists() && !args.force {
        return Err(format!(
            "{} exists; give another name, or --force to overwrite it",
            file.display()
        ));
    }
    std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!(
        "wrote {} (template {name}); edit it, then `impulse check {0}` and `impulse run {0}`",
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}
