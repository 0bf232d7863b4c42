//! The penalty springs of a scene's materials: `penalty_stiffness` and `penalty_damping` in a
//! `[materials.NAME]` table (see docs/scene-format.md), used under
//! `contact_model = "penalty"`.

use std::collections::BTreeMap;

use super::SceneReader;
use super::reader::Table;
use crate::world::PenaltyMaterial;

impl<'c, 's> SceneReader<'c, 's> {
    /// Each material's penalty keys, for the materials that give any; a non-positive value is
    /// an error at its key.
    pub(super) fn read_penalty_materials(
        &self,
        root: &Table<'c, 's>,
    ) -> BTreeMap<String, PenaltyMaterial> {
        let mut springs = BTreeMap::new();
        let Some(table) = root.table("materials") else {
            return springs;
        };
        for (name, value) in table.entries() {
            let Some(t) = value.table() else { continue };
            let positive = |key: &str, expected: &str| {
                let v = t.get(key)?;
                let x = v.number()?;
                if x > 0.0 {
                    Some(x)
                } else {
                    v.error(format!("expected {expected}, found {x}"));
                    None
                }
            };
            let spring = PenaltyMaterial {
                stiffness: positive(
                    "penalty_stiffness",
                    "a positive stiffness (force per length, of each contact point)",
                ),
                damping: positive(
                    "penalty_damping",
                    "a positive damping ratio (1: critically damped)",
                ),
            };
            if spring != PenaltyMaterial::default() {
                springs.insert(name.to_string(), spring);
            }
        }
        springs
    }
}
