//! `impulse check SCENE`.

use std::path::Path;
use std::process::ExitCode;

use impulse::scene::{self, SceneError};

/// Loads the scene and lists every problem; errors give exit status 1.
pub fn check(path: &Path) -> Result<ExitCode, String> {
    match scene::load(path) {
        Ok(scene) => {
            for warning in &scene.warnings {
                println!("{warning}");
            }
            let bodies = scene.world.bodies();
            let dynamic = bodies.iter().filter(|b| b.is_dynamic()).count();
            println!(
                "{}: ok — scene `{}`, {} bodies ({} dynamic), duration {}, {} warning{}",
                path.display(),
                scene.name,
                bodies.len(),
                dynamic,
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
