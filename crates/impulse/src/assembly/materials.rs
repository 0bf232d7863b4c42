//! Each solid's, ball's or striker's own friction and restitution (issue 36): set one at a
//! time, checked, and read back as its own or the common values. One list serves the solids of
//! `AssemblyWithSolids` and two (balls, strikers) `AssemblyWithBalls`; a contact takes the mean
//! of its two sides' (`Material::mean`).

use crate::dynamics::Material;

use super::AssemblyError;

/// The own materials of a list of things of one kind (solids, balls or strikers).
#[derive(Clone, Debug)]
pub(crate) struct OwnMaterials {
    /// What the things are, for messages ("solid", "ball", "striker").
    kind: &'static str,
    /// Each thing's own material (`None`: the common one).
    own: Vec<Option<Material>>,
}

impl OwnMaterials {
    /// `count` things of `kind`, none with a material of its own.
    pub(crate) fn new(kind: &'static str, count: usize) -> Self {
        Self {
            kind,
            own: vec![None; count],
        }
    }

    /// Gives thing `i` its own `material` after checking it (friction finite and ≥ 0,
    /// restitution in [0, 1]); an error names the thing by `name(i)`, or says there is no
    /// thing `i`.
    pub(crate) fn set(
        &mut self,
        i: usize,
        name: impl FnOnce(usize) -> String,
        material: Material,
    ) -> Result<(), AssemblyError> {
        let count = self.own.len();
        let Some(slot) = self.own.get_mut(i) else {
            return Err(AssemblyError::Body {
                body: String::new(),
                message: format!("no {} {i} (there are {count})", self.kind),
            });
        };
        material.check().map_err(|e| AssemblyError::Body {
            body: name(i),
            message: e.to_string(),
        })?;
        *slot = Some(material);
        Ok(())
    }

    /// Thing `i`'s material: its own, or the common `friction` and `restitution`.
    pub(crate) fn get(&self, i: usize, friction: f64, restitution: f64) -> Material {
        self.own[i].unwrap_or(Material {
            friction,
            restitution,
        })
    }
}
