//! A contact problem posed as an LCP, and how to read contact forces (or impulses) off its
//! solution.

use nalgebra::{DMatrix, DVector};

use super::{Basis, LcpError, LemkeOptions, Outcome, solve, solve_regularized};
use crate::math::{Mat3, Vec3};

/// The unknowns of one contact.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Unknowns {
    /// One unknown `f_N`; the force on A is `f_N · force` (contact frame). `dynamic`: it
    /// carries dynamic friction.
    Normal { force: Vec3, dynamic: bool },
    /// Seven unknowns: f_N, β_x⁺, β_x⁻, λ_x, β_y⁺, β_y⁻, λ_y.
    Box,
}

/// A contact problem as an LCP `w = M z + q` (`matrix`, `vector`), and how to read contact
/// forces (or impulses) off its solution.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactLcp {
    /// `M`. For forces its normal rows read `a_N = A f + b`: Baraff's `A`; `q` is his `−b`.
    pub matrix: DMatrix<f64>,
    /// `q`: the normal accelerations (or velocity targets) with no contact force.
    pub vector: DVector<f64>,
    pub(super) layout: Vec<Unknowns>,
    pub(super) first: Vec<usize>,
    pub(super) frames: Vec<Mat3>,
}

impl ContactLcp {
    /// Solves it by Lemke's algorithm, warm-started from `warm` if given.
    pub fn solve(&self, warm: Option<&Basis>, options: &LemkeOptions) -> Result<Outcome, LcpError> {
        solve(&self.matrix, &self.vector, warm, options)
    }

    /// Solves it by [`solve_regularized`]: Lemke, and on failure Lemke on `M + δ I` (for jams:
    /// friction cones facing each other).
    pub fn solve_regularized(
        &self,
        warm: Option<&Basis>,
        options: &LemkeOptions,
    ) -> Result<Outcome, LcpError> {
        solve_regularized(&self.matrix, &self.vector, warm, options)
    }

    /// The number of contacts.
    pub fn contacts(&self) -> usize {
        self.layout.len()
    }

    /// The index of contact `i`'s normal unknown `f_N` in `z`.
    pub fn normal_index(&self, i: usize) -> usize {
        self.first[i]
    }

    /// Whether contact `i` carries dynamic friction in this problem.
    pub fn is_dynamic(&self, i: usize) -> bool {
        matches!(self.layout[i], Unknowns::Normal { dynamic: true, .. })
    }

    /// The contact forces (or impulses) on A that `z` stands for, world.
    pub fn contact_forces(&self, z: &DVector<f64>) -> Vec<Vec3> {
        (0..self.layout.len())
            .map(|i| self.frames[i] * self.local_force(i, z))
            .collect()
    }

    /// The normal force magnitudes `f_N` in `z`.
    pub fn normal_forces(&self, z: &DVector<f64>) -> Vec<f64> {
        self.first.iter().map(|&k| z[k]).collect()
    }

    /// Contact `i`'s force in its frame (f_N, f_x, f_y).
    fn local_force(&self, i: usize, z: &DVector<f64>) -> Vec3 {
        let k = self.first[i];
        match &self.layout[i] {
            Unknowns::Normal { force, .. } => force * z[k],
            Unknowns::Box => Vec3::new(z[k], z[k + 1] - z[k + 2], z[k + 4] - z[k + 5]),
        }
    }
}
