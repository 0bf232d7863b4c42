//! Contact materials: which friction and restitution a contact between two colliders gets.

use std::collections::BTreeMap;

use super::Collider;
use crate::dynamics::{BodyId, Material, RigidBody};
use crate::multibody::Multibody;

/// Contact materials, looked up without touching the bodies (so the loop can move them).
///
/// Material names are resolved to indices once, when the table is built: a lookup at each
/// collision compares no strings and allocates nothing.
pub(crate) struct MaterialTable<'a> {
    /// Each body's material, and the index of its material's name among those that appear in
    /// a material-pair override (`None`: no override names it).
    bodies: Vec<(Material, Option<usize>)>,
    /// Per multibody, per link.
    links: Vec<Vec<(Material, Option<usize>)>>,
    pair_materials: &'a BTreeMap<(BodyId, BodyId), Material>,
    /// The material-pair overrides, by name index, `names × names` (both orders filled).
    material_pairs: Vec<Option<Material>>,
    names: usize,
}

impl<'a> MaterialTable<'a> {
    pub(super) fn new(
        bodies: &[RigidBody],
        multibodies: &[Multibody],
        pair_materials: &'a BTreeMap<(BodyId, BodyId), Material>,
        material_pairs: &BTreeMap<(String, String), Material>,
    ) -> Self {
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (a, b) in material_pairs.keys() {
            for name in [a, b] {
                let next = index.len();
                index.entry(name.as_str()).or_insert(next);
            }
        }
        let names = index.len();
        let mut pairs = vec![None; names * names];
        for ((a, b), material) in material_pairs {
            let (i, j) = (index[a.as_str()], index[b.as_str()]);
            pairs[i * names + j] = Some(*material);
            pairs[j * names + i] = Some(*material);
        }
        let named = |name: Option<&str>| name.and_then(|n| index.get(n).copied());
        Self {
            bodies: bodies
                .iter()
                .map(|b| (b.material(), named(b.material_name())))
                .collect(),
            links: multibodies
                .iter()
                .map(|m| {
                    m.tree()
                        .links()
                        .iter()
                        .map(|l| (l.material, named(l.material_name.as_deref())))
                        .collect()
                })
                .collect(),
            pair_materials,
            material_pairs: pairs,
            names,
        }
    }

    fn of(&self, c: Collider) -> &(Material, Option<usize>) {
        match c {
            Collider::Body(id) => &self.bodies[id.0],
            Collider::Link(m, l) => &self.links[m.0][l],
        }
    }

    /// A per-body-pair override, else a per-material-pair override, else the mean.
    pub(crate) fn between(&self, a: Collider, b: Collider) -> Material {
        if let (Collider::Body(a), Collider::Body(b)) = (a, b)
            && let Some(m) = self.pair_materials.get(&(a.min(b), a.max(b)))
        {
            return *m;
        }
        let (ma, na) = self.of(a);
        let (mb, nb) = self.of(b);
        if let (Some(i), Some(j)) = (na, nb)
            && let Some(m) = self.material_pairs[i * self.names + j]
        {
            return m;
        }
        ma.mean(mb)
    }
}
