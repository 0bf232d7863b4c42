//! Surface materials: friction and restitution, and their checks.

use std::fmt;

/// Friction and restitution of a surface.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Material {
    /// Coulomb friction coefficient μ ≥ 0.
    pub friction: f64,
    /// Coefficient of restitution e ∈ [0, 1].
    pub restitution: f64,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            friction: 0.3,
            restitution: 0.5,
        }
    }
}

impl Material {
    /// The material of a contact between a body of this material and one of `other`, with no
    /// override: the mean of the two friction coefficients and of the two restitutions (the
    /// world's rule, docs/scene-format.md `[[pairs]]`; assemblies' solids use it too).
    pub(crate) fn mean(&self, other: &Material) -> Material {
        Material {
            friction: 0.5 * (self.friction + other.friction),
            restitution: 0.5 * (self.restitution + other.restitution),
        }
    }

    /// Checks that friction is finite and at least 0 and restitution lies in [0, 1].
    pub fn check(&self) -> Result<(), MaterialError> {
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(MaterialError {
                what: "friction (expected μ ≥ 0)",
                value: self.friction,
            });
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(MaterialError {
                what: "restitution (expected 0 ≤ e ≤ 1)",
                value: self.restitution,
            });
        }
        Ok(())
    }
}

/// A friction or restitution outside its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialError {
    /// Which coefficient, and its range.
    pub what: &'static str,
    /// The value given.
    pub value: f64,
}

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} is out of range", self.what, self.value)
    }
}

impl std::error::Error for MaterialError {}
