//! Brute-force enumeration of complementary bases: the oracle Lemke's algorithm is tested
//! against, and the way to list every basic solution of a small contact problem (to tell an
//! indeterminate configuration, Baraff §10.1, from a determinate one).
//!
//! For every index set `L ⊆ {1..n}` with `M_LL` regular, `z_L = −M_LL⁻¹ q_L` (the other `z`
//! zero) is a *basic* solution when `z ≥ 0` and `w = M z + q ≥ 0` (Baraff §8.2). Every
//! solution Lemke's algorithm returns is basic, so it is among these. For a P-matrix every
//! `M_LL` is regular and the list holds the unique solution; for a PSD matrix with a solution
//! the list is not empty (the chair on four legs has several). For other matrices a solution
//! whose bases are all singular is not listed, so an empty list is not a proof of
//! inconsistency there.

use super::lemke::{Basis, LcpError, finish};
use nalgebra::{DMatrix, DVector};

/// The largest problem enumerated (2ⁿ linear solves).
pub const MAX_ENUMERATED: usize = 16;

/// One basic solution.
#[derive(Clone, Debug, PartialEq)]
pub struct BasicSolution {
    /// Its index set `L`.
    pub basis: Basis,
    /// `z ≥ 0`.
    pub z: DVector<f64>,
    /// `w = M z + q ≥ 0`.
    pub w: DVector<f64>,
}

/// Every basic solution of `w = M z + q ≥ 0, z ≥ 0, wᵀz = 0`, each checked to `tolerance`
/// (relative, as [`check_solution`](super::check_solution); rounding-level negatives of `z` are
/// set to zero); solutions equal to within `tolerance` are listed once,
/// in the order of their index sets as binary numbers. A block `M_LL` is taken as singular when
/// its LU factorisation has a pivot below `1e-12` of the block's largest entry.
pub fn basic_solutions(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    tolerance: f64,
) -> Result<Vec<BasicSolution>, LcpError> {
    let n = q.len();
    if m.nrows() != n || m.ncols() != n {
        return Err(LcpError::Dimension {
            what: "M",
            found: m.nrows().max(m.ncols()),
            expected: n,
        });
    }
    if n > MAX_ENUMERATED {
        return Err(LcpError::TooLarge {
            n,
            max: MAX_ENUMERATED,
        });
    }
    for j in 0..n {
        for i in 0..n {
            if !m[(i, j)].is_finite() {
                return Err(LcpError::NonFinite {
                    what: "M",
                    row: i,
                    column: j,
                });
            }
        }
        if !q[j].is_finite() {
            return Err(LcpError::NonFinite {
                what: "q",
                row: j,
                column: 0,
            });
        }
    }
    let mut found: Vec<BasicSolution> = Vec::new();
    for mask in 0u32..(1u32 << n) {
        let set: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
        let Some((z, w)) = basic_point(m, q, &set).and_then(|z| finish(m, q, z, tolerance)) else {
            continue;
        };
        let scale = z.amax().max(1.0);
        if found
            .iter()
            .any(|s| (&s.z - &z).amax() <= tolerance * scale)
        {
            continue;
        }
        found.push(BasicSolution {
            basis: Basis::from_z_indices(n, &set),
            z,
            w,
        });
    }
    Ok(found)
}

/// `z_L = −M_LL⁻¹ q_L`, zero elsewhere; `None` if `M_LL` is singular (relative pivot
/// `< 1e-12`).
fn basic_point(m: &DMatrix<f64>, q: &DVector<f64>, set: &[usize]) -> Option<DVector<f64>> {
    let n = q.len();
    let k = set.len();
    let mut z = DVector::zeros(n);
    if k == 0 {
        return Some(z);
    }
    let block = DMatrix::from_fn(k, k, |a, b| m[(set[a], set[b])]);
    let scale = block.amax();
    if scale.is_nan() || scale <= 0.0 {
        return None;
    }
    let lu = block.full_piv_lu();
    let smallest = lu
        .u()
        .diagonal()
        .iter()
        .fold(f64::INFINITY, |a, v| a.min(v.abs()));
    if smallest <= 1e-12 * scale {
        return None;
    }
    let rhs = DVector::from_fn(k, |a, _| -q[set[a]]);
    let z_l = lu.solve(&rhs)?;
    for (a, &i) in set.iter().enumerate() {
        z[i] = z_l[a];
    }
    Some(z)
}
