//! The scene files of Mirtich's Table 7.1 (`scenes/impulse/`) and their meshes, built into the
//! program, so that an installed `impulse table` runs them without a checkout (issue 41,
//! item 7). They are written to a scratch directory when used.

use std::path::{Path, PathBuf};

/// Each file's path relative to the scene directory, and its text.
pub const TABLE_FILES: &[(&str, &str)] = &[
    (
        "dominos.toml",
        include_str!("../../../scenes/impulse/dominos.toml"),
    ),
    (
        "block_drop.toml",
        include_str!("../../../scenes/impulse/block_drop.toml"),
    ),
    (
        "block_on_ramp.toml",
        include_str!("../../../scenes/impulse/block_on_ramp.toml"),
    ),
    (
        "chain_of_balls.toml",
        include_str!("../../../scenes/impulse/chain_of_balls.toml"),
    ),
    (
        "balls_in_dish.toml",
        include_str!("../../../scenes/impulse/balls_in_dish.toml"),
    ),
    (
        "coins.toml",
        include_str!("../../../scenes/impulse/coins.toml"),
    ),
    (
        "pool_break.toml",
        include_str!("../../../scenes/impulse/pool_break.toml"),
    ),
    (
        "bowling.toml",
        include_str!("../../../scenes/impulse/bowling.toml"),
    ),
    (
        "ball_on_platter.toml",
        include_str!("../../../scenes/impulse/ball_on_platter.toml"),
    ),
    (
        "rattleback.toml",
        include_str!("../../../scenes/impulse/rattleback.toml"),
    ),
    (
        "part_feeder.toml",
        include_str!("../../../scenes/impulse/part_feeder.toml"),
    ),
    (
        "exploding_text.toml",
        include_str!("../../../scenes/impulse/exploding_text.toml"),
    ),
    (
        "meshes/bowling_pin.obj",
        include_str!("../../../scenes/impulse/meshes/bowling_pin.obj"),
    ),
    (
        "meshes/dish.obj",
        include_str!("../../../scenes/impulse/meshes/dish.obj"),
    ),
    (
        "meshes/insulator_cap.obj",
        include_str!("../../../scenes/impulse/meshes/insulator_cap.obj"),
    ),
    (
        "meshes/letter_a.obj",
        include_str!("../../../scenes/impulse/meshes/letter_a.obj"),
    ),
    (
        "meshes/letter_b.obj",
        include_str!("../../../scenes/impulse/meshes/letter_b.obj"),
    ),
    (
        "meshes/letter_d.obj",
        include_str!("../../../scenes/impulse/meshes/letter_d.obj"),
    ),
    (
        "meshes/letter_dot.obj",
        include_str!("../../../scenes/impulse/meshes/letter_dot.obj"),
    ),
    (
        "meshes/letter_e.obj",
        include_str!("../../../scenes/impulse/meshes/letter_e.obj"),
    ),
    (
        "meshes/letter_hyphen.obj",
        include_str!("../../../scenes/impulse/meshes/letter_hyphen.obj"),
    ),
    (
        "meshes/letter_i.obj",
        include_str!("../../../scenes/impulse/meshes/letter_i.obj"),
    ),
    (
        "meshes/letter_l.obj",
        include_str!("../../../scenes/impulse/meshes/letter_l.obj"),
    ),
    (
        "meshes/letter_m.obj",
        include_str!("../../../scenes/impulse/meshes/letter_m.obj"),
    ),
    (
        "meshes/letter_n.obj",
        include_str!("../../../scenes/impulse/meshes/letter_n.obj"),
    ),
    (
        "meshes/letter_o.obj",
        include_str!("../../../scenes/impulse/meshes/letter_o.obj"),
    ),
    (
        "meshes/letter_p.obj",
        include_str!("../../../scenes/impulse/meshes/letter_p.obj"),
    ),
    (
        "meshes/letter_s.obj",
        include_str!("../../../scenes/impulse/meshes/letter_s.obj"),
    ),
    (
        "meshes/letter_t.obj",
        include_str!("../../../scenes/impulse/meshes/letter_t.obj"),
    ),
    (
        "meshes/letter_u.obj",
        include_str!("../../../scenes/impulse/meshes/letter_u.obj"),
    ),
];

/// A directory holding the built-in Table 7.1 scenes, removed when dropped.
pub struct BuiltInScenes {
    dir: PathBuf,
}

impl BuiltInScenes {
    /// Writes the scenes and meshes to a fresh directory under the system's temporary one.
    pub fn write() -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("impulse-table-scenes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let scenes = Self { dir };
        for (name, text) in TABLE_FILES {
            let path = scenes.dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(scenes)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for BuiltInScenes {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::TABLE_FILES;
    use crate::table::THESIS_TABLE_7_1;

    /// Every Table 7.1 scene and every mesh of `scenes/impulse/meshes` is built in, so the
    /// built-in set cannot fall behind the directory.
    #[test]
    fn every_table_scene_and_mesh_is_built_in() {
        let names: Vec<&str> = TABLE_FILES.iter().map(|(n, _)| *n).collect();
        for (stem, ..) in THESIS_TABLE_7_1 {
            assert!(names.contains(&format!("{stem}.toml").as_str()), "{stem}");
        }
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/impulse/meshes");
        for entry in std::fs::read_dir(dir).unwrap() {
            let file = entry.unwrap().file_name().into_string().unwrap();
            if file.ends_with(".obj") || file.ends_with(".stl") {
                assert!(names.contains(&format!("meshes/{file}").as_str()), "{file}");
            }
        }
    }
}
