//! Scene files: TOML descriptions of a world, read strictly and built into a [`World`].
//!
//! Every key is documented in `docs/scene-format.md`. Reading reports *every* problem in one pass
//! (see `reader`), each with file, line, column and key; a scene with any error is not built.

mod bodies;
mod checks;
mod controllers;
pub mod import;
mod materials;
mod multibody;
mod penalty;
pub(crate) mod reader;
mod run_guards;
mod run_options;
mod shapes;
mod values;
pub(crate) mod world_table;

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

pub use crate::world::ContactModel;
use crate::world::World;

use reader::{Context, Table};
mod units;
pub use reader::{Diagnostic, Severity};
pub use run_options::{MAX_FRAMES, RunOptions};
pub(crate) use shapes::read_shape_table;
pub use units::Units;
pub(crate) use values::read_orientation;
use world_table::{RunHeader, WORLD_KEYS, read_settings};

/// A scene read from a file and built into a world at time 0.
#[derive(Debug)]
pub struct Scene {
    /// Scene name (`world.name`, or the file's stem).
    pub name: String,
    /// The scene file.
    pub path: PathBuf,
    /// The world, ready to run.
    pub world: World,
    /// How long to simulate.
    pub duration: f64,
    /// Output frames per unit time.
    pub output_rate: f64,
    /// Problems that do not stop the scene from running.
    pub warnings: Vec<Diagnostic>,
    /// The system of units, as `[world] units` gives it or the gravity tells it (`None` when
    /// neither does).
    pub units: Option<Units>,
}

/// Why a scene could not be loaded.
#[derive(Debug)]
pub enum SceneError {
    /// The file could not be read.
    Io { path: PathBuf, message: String },
    /// The file has errors (and maybe warnings), all listed.
    Invalid(Vec<Diagnostic>),
}

impl SceneError {
    /// The diagnostics (empty for I/O errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Self::Io { .. } => &[],
            Self::Invalid(d) => d,
        }
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, message } => write!(f, "{}: {message}", path.display()),
            Self::Invalid(diagnostics) => {
                for (i, d) in diagnostics.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SceneError {}

/// Reads and builds the scene in `path`.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    parse(path, &read_text(path)?)
}

/// The text of the scene file at `path`, checked as a regular file of bounded size before it is
/// read (issue 42).
pub(crate) fn read_text(path: &Path) -> Result<String, SceneError> {
    crate::input_file::read_bounded_text(path, "the scene file", crate::MAX_INPUT_BYTES).map_err(
        |message| SceneError::Io {
            path: path.to_path_buf(),
            message,
        },
    )
}

/// Builds a scene from `text`, as if read from `path` (meshes are found relative to its
/// directory).
pub fn parse(path: &Path, text: &str) -> Result<Scene, SceneError> {
    let (mut scene, warnings) =
        read_document(path, text, |ctx, root| SceneReader::new(ctx).read(root))?;
    scene.warnings = warnings;
    Ok(scene)
}

/// Reads `text` (as if from `path`) with `read`, which records every problem it finds in the
/// context and goes on; what it builds stands only if none of them is an error, and comes with
/// the warnings. Scene files and assembly scene files are both read this way.
pub(crate) fn read_document<'s, T>(
    path: &Path,
    text: &'s str,
    read: impl for<'c> FnOnce(&'c Context<'s>, &Table<'c, 's>) -> Option<T>,
) -> Result<(T, Vec<Diagnostic>), SceneError> {
    let ctx = Context::new(path, text);
    let built = ctx.parse().and_then(|doc| {
        let root = Table::root(&ctx, &doc);
        read(&ctx, &root)
    });
    let errors = ctx.error_count();
    let diagnostics = ctx.into_diagnostics();
    match built {
        Some(built) if errors == 0 => Ok((built, diagnostics)),
        _ => Err(SceneError::Invalid(diagnostics)),
    }
}

const ROOT_KEYS: &[&str] = &[
    "world",
    "materials",
    "bodies",
    "pairs",
    "multibodies",
    "model",
];

struct SceneReader<'c, 's> {
    ctx: &'c Context<'s>,
    base_dir: PathBuf,
}

impl<'c, 's> SceneReader<'c, 's> {
    fn new(ctx: &'c Context<'s>) -> Self {
        let base_dir = ctx
            .path()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Self { ctx, base_dir }
    }

    fn read(&self, root: &Table<'c, 's>) -> Option<Scene> {
        root.reject_unknown(ROOT_KEYS);
        let RunHeader {
            world: world_table,
            name,
            duration,
            output_rate,
        } = RunHeader::read(self.ctx, root, WORLD_KEYS, "scene");
        let (mut settings, units) = read_settings(world_table.as_ref());

        let materials = self.read_materials(root);
        settings.penalty_materials = self.read_penalty_materials(root);
        if let Some(default) = materials.get("default") {
            settings.default_material = *default;
        }
        let bodies = self.read_bodies(root, &materials, settings.default_material);
        let pairs = root.array_of_tables("pairs").unwrap_or_default();

        let mut world = World::new(settings);
        let mut entries: Vec<(String, Range<usize>, String)> = Vec::new();
        for entry in bodies {
            let name = entry.desc.name.clone();
            match world.add_body(entry.desc) {
                Ok(_) => entries.push((name, entry.span, entry.key)),
                Err(e) => self.ctx.error(&entry.span, &entry.key, e.to_string()),
            }
        }
        for pair in &pairs {
            self.read_pair(pair, &mut world, &materials);
        }
        let default_material = world.settings().default_material;
        self.read_multibodies(root, &mut world, &materials, default_material);
        self.read_models(root, &mut world, default_material);
        self.warn_about_scale(&world, root);
        if self.ctx.error_count() == 0 {
            self.check_run(&world, root, duration, &entries);
        }
        if self.ctx.error_count() == 0 {
            self.check_overlaps(&world, &entries);
        }
        Some(Scene {
            name,
            path: self.ctx.path().to_path_buf(),
            world,
            duration,
            output_rate,
            warnings: Vec::new(),
            units,
        })
    }
}
