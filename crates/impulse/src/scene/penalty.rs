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
            let spring = PenaltyMaterial {
                stiffness: t.get("penalty_stiffness").and_then(|v| v.positive()),
                damping: t.get("penalty_damping").and_then(|v| v.positive()),
            };
            if spring != PenaltyMaterial::default() {
                springs.insert(name.to_string(), spring);
            }
        }
        springs
    }
}
