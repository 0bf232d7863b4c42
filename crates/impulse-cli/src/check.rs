//! `impulse check SCENE`.

use std::path::Path;
use std::process::ExitCode;

use impulse::scene::{self, SceneError};

use crate::summary::Census;

/// Loads the scene and lists every problem; errors give exit status 1.
pub fn check(path: &Path) -> Result<ExitCode, String> {
    if crate::assembly::is_assembly(path) {
        return crate::assembly::check(path);
    }
    match scene::load(path) {
        Ok(scene) => {
            for warning in &scene.warnings {
                println!("{warning}");
            }
            // In the words `impulse run` uses for the same scene.
            println!(
                "{}: ok — scene `{}`: {}, duration {} s, {} warning{}",
                path.display(),
                scene.name,
                Census::of(&scene.world),
                scene.duration,
                scene.warnings.len(),
                if scene.warnings.len() == 1 { "" } else { "s" }
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(SceneError::Io { path, message }) => Err(format!("{}: {message}", path.display())),
        Err(SceneError::Invalid(diagnostics)) => {
            for d in &diagnostics {
                println!("{d}");
            }
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == scene::Severity::Error)
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
