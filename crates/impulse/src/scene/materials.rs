//! `[materials]` (friction and restitution by name) and `[[pairs]]` (overrides for a pair of
//! bodies or of materials).

use std::collections::BTreeMap;

use crate::dynamics::Material;
use crate::world::World;

use super::SceneReader;
use super::reader::{Table, Value};
use super::values::restitution;

const MATERIAL_KEYS: &[&str] = &[
    "friction",
    "restitution",
    "penalty_stiffness",
    "penalty_damping",
];
const PAIR_KEYS: &[&str] = &["bodies", "materials", "friction", "restitution"];

impl<'c, 's> SceneReader<'c, 's> {
    pub(super) fn read_materials(&self, root: &Table<'c, 's>) -> BTreeMap<String, Material> {
        let mut materials = BTreeMap::new();
        let Some(table) = root.table("materials") else {
            return materials;
        };
        for (name, value) in table.entries() {
            let Some(t) = value.table() else { continue };
            t.reject_unknown(MATERIAL_KEYS);
            let mut material = Material::default();
            if let Some(friction) = t.required("friction", "a number ≥ 0") {
                material.friction = friction.non_negative().unwrap_or(material.friction);
            }
            if let Some(e) = t.required("restitution", "a number from 0 to 1") {
                material.restitution = restitution(&e).unwrap_or(material.restitution);
            }
            materials.insert(name.to_string(), material);
        }
        materials
    }

    pub(super) fn read_pair(
        &self,
        t: &Table<'c, 's>,
        world: &mut World,
        materials: &BTreeMap<String, Material>,
    ) {
        t.reject_unknown(PAIR_KEYS);
        let names = |key: &str| -> Option<(Value<'c, 's>, [String; 2])> {
            let v = t.get(key)?;
            let items = v.array()?;
            if items.len() != 2 {
                v.error(format!(
                    "expected a list of two names, found {} entries",
                    items.len()
                ));
                return None;
            }
            let a = items[0].string()?.to_string();
            let b = items[1].string()?.to_string();
            Some((v, [a, b]))
        };
        let friction = t.get("friction").and_then(|v| v.non_negative());
        let restitution_value = t.get("restitution").and_then(|v| restitution(&v));
        if !t.has("friction") && !t.has("restitution") {
            t.error("a pair override needs `friction`, `restitution` or both");
        }
        match (names("bodies"), names("materials")) {
            (Some((v, [a, b])), None) => {
                let ids: Vec<_> = [&a, &b]
                    .iter()
                    .map(|n| {
                        let id = world.body_id(n);
                        if id.is_none() {
                            v.error(format!("no body is named `{n}`"));
                        }
                        id
                    })
                    .collect();
                if let (Some(ia), Some(ib)) = (ids[0], ids[1]) {
                    let current = world.contact_material(ia, ib);
                    let pair = Material {
                        friction: friction.unwrap_or(current.friction),
                        restitution: restitution_value.unwrap_or(current.restitution),
                    };
                    if let Err(error) = world.set_pair_material(ia, ib, pair) {
                        t.error(error.to_string());
                    }
                }
            }
            (None, Some((v, [a, b]))) => {
                let mut ok = true;
                for n in [&a, &b] {
                    if !materials.contains_key(n) {
                        v.error(format!("no material is named `{n}`"));
                        ok = false;
                    }
                }
                if ok {
                    let base = |n: &str| materials[n];
                    let mean = Material {
                        friction: 0.5 * (base(&a).friction + base(&b).friction),
                        restitution: 0.5 * (base(&a).restitution + base(&b).restitution),
                    };
                    let pair = Material {
                        friction: friction.unwrap_or(mean.friction),
                        restitution: restitution_value.unwrap_or(mean.restitution),
                    };
                    if let Err(error) = world.set_material_pair(&a, &b, pair) {
                        t.error(error.to_string());
                    }
                }
            }
            (Some((v, _)), Some(_)) => {
                v.error("a pair names either `bodies` or `materials`, not both");
            }
            (None, None) => {
                if !t.has("bodies") && !t.has("materials") {
                    t.error("a pair override needs `bodies = [\"a\", \"b\"]` or `materials = [\"m\", \"n\"]`");
                }
            }
        }
    }
}
