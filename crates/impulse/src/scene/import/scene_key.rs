//! `[[model]]` in scene files: a robot model from a URDF or MJCF file, placed in the scene.

use std::collections::HashMap;

use super::{Base, ModelOptions, read_model};
use crate::dynamics::Material;
use crate::math::{Quat, Vec3, pose};
use crate::scene::reader::{Severity, Table};
use crate::scene::{SceneReader, read_orientation};
use crate::world::World;

const MODEL_KEYS: &[&str] = &[
    "file",
    "name",
    "base",
    "position",
    "orientation",
    "friction",
    "restitution",
];

impl<'c, 's> SceneReader<'c, 's> {
    /// Reads every `[[model]]` table: loads the file (its problems are reported at its own
    /// lines), and adds its fixed body and multibody to `world`.
    pub(in crate::scene) fn read_models(
        &self,
        root: &Table<'c, 's>,
        world: &mut World,
        default_material: Material,
    ) {
        let Some(tables) = root.array_of_tables("model") else {
            return;
        };
        let mut names: HashMap<String, usize> = HashMap::new();
        for table in &tables {
            table.reject_unknown(MODEL_KEYS);
            let errors_before = self.ctx.error_count();
            let file = table
                .required(
                    "file",
                    "the path of a URDF or MJCF file, relative to the scene",
                )
                .and_then(|v| v.string().map(|s| (s.to_string(), v)));
            let base = match table
                .get("base")
                .and_then(|v| v.choice(&["fixed", "floating", "as_written"]))
            {
                Some("fixed") => Base::Fixed,
                Some("floating") => Base::Floating,
                _ => Base::AsWritten,
            };
            let position = table
                .get("position")
                .and_then(|v| v.vec3())
                .unwrap_or_default();
            let orientation = table
                .get("orientation")
                .and_then(|v| read_orientation(&v))
                .unwrap_or_else(Quat::identity);
            let mut material = default_material;
            if let Some(f) = table.get("friction").and_then(|v| v.non_negative()) {
                material.friction = f;
            }
            if let Some(e) = table.get("restitution").and_then(|v| v.number()) {
                if (0.0..=1.0).contains(&e) {
                    material.restitution = e;
                } else if let Some(v) = table.get("restitution") {
                    v.error(format!("expected a restitution from 0 to 1, found {e}"));
                }
            }
            let name = table
                .get("name")
                .and_then(|v| v.string().map(str::to_string));
            let Some((file, file_value)) = file else {
                continue;
            };
            if self.ctx.error_count() > errors_before {
                continue;
            }
            let path = self.base_dir.join(&file);
            let options = ModelOptions {
                base,
                placement: pose(position, orientation),
                name,
                material,
            };
            let model = match read_model(&path, &options) {
                Ok(model) => model,
                Err(diagnostics) => {
                    let errors = diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Error)
                        .count();
                    for d in diagnostics {
                        self.ctx.push(d);
                    }
                    file_value.error(format!(
                        "the model `{file}` cannot be used ({errors} error{} in it, listed with its lines)",
                        if errors == 1 { "" } else { "s" }
                    ));
                    continue;
                }
            };
            for d in &model.warnings {
                self.ctx.push(d.clone());
            }
            let (line, _) = self.ctx.location(table.span().start);
            if let Some(first) = names.get(&model.name) {
                table.error(format!(
                    "another model is already named `{}` (line {first}); give this one a `name`",
                    model.name
                ));
                continue;
            }
            names.insert(model.name.clone(), line);
            if let Some(g) = model.gravity
                && (g - world.settings().gravity).norm() > 1e-12 * g.norm().max(1.0)
            {
                file_value.warning(format!(
                    "the model asks for gravity {}, the scene has {}: the scene's [world] gravity applies",
                    show(&g),
                    show(&world.settings().gravity)
                ));
            }
            match model.add_to(world) {
                Ok(_) => {}
                Err(message) => table.error(message),
            }
        }
    }
}

fn show(v: &Vec3) -> String {
    format!("[{}, {}, {}]", v.x, v.y, v.z)
}
