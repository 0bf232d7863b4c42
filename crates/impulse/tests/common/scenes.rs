//! Scene files for the tests: the shipped scenes, loading and parsing with the errors kept,
//! and a refused scene's diagnostics.

use std::path::{Path, PathBuf};

use impulse::World;
use impulse::scene::{self, Diagnostic, Scene, SceneError, Severity};

/// The shipped scene file `relative` under the repository's `scenes/` (e.g.
/// `"hybrid/bicycle.toml"`; `"impulse/"` for the folder).
pub fn shipped(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(relative)
}

/// The shipped part sorter (`hybrid/part_sorter.toml`) under `model` with only part `name`
/// on it, started where part A1 starts (nearest the first door).
pub fn part_sorter_with_one_part(model: &str, name: &str) -> World {
    let path = shipped("hybrid/part_sorter.toml");
    let text = std::fs::read_to_string(&path).expect("the shipped scene");
    let text = with_contact_model(&text, model);
    let first_part = text.find("[[bodies]]\nname = \"part").expect("parts");
    let (machine, parts) = text.split_at(first_part);
    let table = |name: &str| {
        parts
            .split("[[bodies]]")
            .find(|table| table.contains(&format!("name = \"{name}\"")))
            .expect("the part's table")
    };
    let position = |table: &str| -> String {
        table
            .lines()
            .find(|l| l.starts_with("position"))
            .expect("a position")
            .to_string()
    };
    let part = table(name).replace(&position(table(name)), &position(table("part A1")));
    match parse(&path, &format!("{machine}[[bodies]]{part}")) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

/// Where part `name`, alone on the sorter under `model` and started where part A1 starts
/// (nearest the first door), first comes down to the floor (its centre below 3 cm: a 4 × 4 × 2
/// block touching the floor has it 1 to 2.8 cm up), and the run's deepest overlap.
pub fn part_sorter_landing(model: &str, name: &str) -> (f64, f64) {
    let mut world = part_sorter_with_one_part(model, name);
    let id = world.body_id(name).expect("the part");
    let mut t = 0.0;
    while t < 4.0 {
        t += 0.01;
        if let Err(e) = world.advance_to(t) {
            panic!("{model}, {name}: {e}");
        }
        let p = world.body(id).state().position;
        if p.z < 3.0 {
            return (p.x, world.max_penetration());
        }
    }
    panic!(
        "{model}: {name} did not reach the floor: {}",
        world.body(id).state().position
    );
}

/// The shipped scene `relative` with `world.contact_model` set to `model` (the same bodies
/// under another contact paradigm).
pub fn shipped_under(relative: &str, model: &str) -> World {
    let path = shipped(relative);
    let text = std::fs::read_to_string(&path).expect("the shipped scene");
    let text = with_contact_model(&text, model);
    match parse(&path, &text) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

/// Scene `text` with `world.contact_model` set to `model`: a `contact_model` line the scene
/// has (the Table 7.1 scenes name `"impulse"`) is replaced, else one is added under `[world]`.
pub fn with_contact_model(text: &str, model: &str) -> String {
    let setting = format!("contact_model = \"{model}\"");
    match text
        .lines()
        .find(|line| line.starts_with("contact_model ="))
    {
        Some(line) => text.replacen(line, &setting, 1),
        None => text.replacen("[world]\n", &format!("[world]\n{setting}\n"), 1),
    }
}

/// Loads a scene file, panicking with its path and its errors.
pub fn load(path: &Path) -> Scene {
    scene::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The world of a scene read without warnings (panics with its errors or warnings).
pub fn world_without_warnings(read: Result<Scene, SceneError>) -> World {
    match read {
        Ok(scene) => {
            assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
            scene.world
        }
        Err(e) => panic!("{e}"),
    }
}

/// Parses `text` as the file at `path`: the scene, or its errors (warnings left out).
pub fn parse(path: &Path, text: &str) -> Result<Scene, Vec<Diagnostic>> {
    scene::parse(path, text).map_err(|e| {
        e.diagnostics()
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect()
    })
}

/// `text` read as the file at `path`, panicking with its errors.
pub fn parsed(path: &Path, text: &str) -> Scene {
    scene::parse(path, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The diagnostics of `text` read as the file at `path`, one a line, when it is refused
/// (panics if it loads or fails otherwise).
pub fn refused(path: &Path, text: &str) -> String {
    match scene::parse(path, text) {
        Ok(_) => panic!("the scene loaded"),
        Err(SceneError::Invalid(diagnostics)) => diagnostics
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => panic!("{e}"),
    }
}

/// The errors of `text` parsed as the file at `path` (none when it loads).
pub fn errors(path: &Path, text: &str) -> Vec<Diagnostic> {
    parse(path, text).err().unwrap_or_default()
}
