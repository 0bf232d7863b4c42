//! The constraint forces: `(J M⁻¹ Jᵀ) λ = rhs`, solved by an LDLᵀ factorisation in skyline
//! (profile) storage that drops dependent rows as it meets them.
//!
//! `K = J M⁻¹ Jᵀ` is symmetric positive semi-definite. A row whose pivot falls to rounding
//! level is a linear combination of the rows before it (a redundant closed loop, or an
//! alignment written twice); it gets `λ = 0` and the others solve the rest, so redundancy never
//! fails and the accelerations (which are unique) come out right (kalra.md §5.3: a
//! rank-revealing solve). Whether the dropped rows were *consistent* is then read off the
//! residual `K λ − rhs`: an over-constrained, inconsistent assembly is reported with it
//! rather than silently least-squared (the paper's NAG solve, kalra.md §3.3).
//!
//! Rows touch at most two bodies, so `K` is as sparse as the joints' graph: in skyline storage
//! row i keeps only columns from the first row sharing a body with it. Joints listed along a
//! chain give a band, and the factorisation costs O(n) in the chain's length.

use crate::math::{Mat3, Vec3};

use super::rows::Row;

/// A pivot below this fraction of its diagonal entry marks a dependent row.
const DEPENDENT_PIVOT: f64 = 1e-9;

/// One body's inverse mass and world inverse inertia.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InverseMass {
    pub mass: f64,
    pub inertia: Mat3,
}

/// The multipliers of one solve.
#[derive(Clone, Debug, Default)]
pub(crate) struct Solution {
    /// One multiplier per row.
    pub lambda: Vec<f64>,
    /// The rows found dependent on earlier ones (λ = 0).
    pub dependent: Vec<usize>,
    /// Largest `|K λ − rhs|` over the rows.
    pub residual: f64,
}

/// `K` in skyline storage: row i holds columns `first[i] ..= i`.
struct Skyline {
    first: Vec<usize>,
    start: Vec<usize>,
    data: Vec<f64>,
}

impl Skyline {
    fn at(&self, i: usize, j: usize) -> f64 {
        if j < self.first[i] {
            0.0
        } else {
            self.data[self.start[i] + j - self.first[i]]
        }
    }
}

/// `J_i M⁻¹ J_lᵀ` (the tests' dense K).
#[cfg(test)]
fn coupling(a: &Row, b: &Row, inverse: &[InverseMass]) -> f64 {
    let mut sum = 0.0;
    for x in &a.blocks {
        for y in b.blocks.iter().filter(|y| y.body == x.body) {
            let m = &inverse[x.body];
            sum += m.mass * x.linear.dot(&y.linear) + x.angular.dot(&(m.inertia * y.angular));
        }
    }
    sum
}

fn assemble(rows: &[Row], inverse: &[InverseMass]) -> Skyline {
    let n = rows.len();
    // The first row touching each body, then each row's first column.
    let mut first_of_body = vec![usize::MAX; inverse.len()];
    let mut first = vec![0; n];
    for (i, row) in rows.iter().enumerate() {
        first[i] = i;
        for b in &row.blocks {
            if first_of_body[b.body] == usize::MAX {
                first_of_body[b.body] = i;
            }
            first[i] = first[i].min(first_of_body[b.body]);
        }
    }
    let mut start = Vec::with_capacity(n);
    let mut len = 0;
    for (i, &f) in first.iter().enumerate() {
        start.push(len);
        len += i - f + 1;
    }
    let mut data = vec![0.0; len];
    // Only rows sharing a body couple: per body, every pair of the rows touching it.
    let mut on_body: Vec<Vec<(usize, Vec3, Vec3)>> = vec![Vec::new(); inverse.len()];
    for (i, row) in rows.iter().enumerate() {
        for x in &row.blocks {
            let m = &inverse[x.body];
            // M⁻¹ Jᵀ for this block.
            on_body[x.body].push((i, x.linear * m.mass, m.inertia * x.angular));
        }
    }
    for (i, row) in rows.iter().enumerate() {
        for x in &row.blocks {
            for (j, linear, angular) in on_body[x.body].iter().take_while(|(j, ..)| *j <= i) {
                data[start[i] + j - first[i]] += x.linear.dot(linear) + x.angular.dot(angular);
            }
        }
    }
    Skyline { first, start, data }
}

/// Solves `K λ = rhs` for the rows at their bodies' inverse masses.
pub(crate) fn solve(rows: &[Row], inverse: &[InverseMass], rhs: &[f64]) -> Solution {
    let n = rows.len();
    let k = assemble(rows, inverse);
    // LDLᵀ in place on a copy: L below the diagonal (unit diagonal implied), D on it.
    let mut f = Skyline {
        first: k.first.clone(),
        start: k.start.clone(),
        data: k.data.clone(),
    };
    let mut d = vec![0.0; n];
    let mut dependent = Vec::new();
    let mut is_dependent = vec![false; n];
    for i in 0..n {
        let fi = f.first[i];
        let (done, rest) = f.data.split_at_mut(f.start[i]);
        let row_i = &mut rest[..=(i - fi)];
        for j in fi..i {
            let c = j - fi;
            if is_dependent[j] {
                row_i[c] = 0.0;
                continue;
            }
            let fj = f.first[j];
            let from = fi.max(fj);
            let row_j = &done[f.start[j]..f.start[j] + (j - fj)];
            let dot: f64 = row_i[from - fi..c]
                .iter()
                .zip(&row_j[from - fj..])
                .zip(&d[from..j])
                .map(|((a, b), dm)| a * b * dm)
                .sum();
            row_i[c] = (row_i[c] - dot) / d[j];
        }
        let kii = k.at(i, i);
        let pivot = kii
            - row_i[..i - fi]
                .iter()
                .zip(&d[fi..i])
                .map(|(l, dm)| l * l * dm)
                .sum::<f64>();
        if pivot.is_nan() || pivot <= DEPENDENT_PIVOT * kii {
            is_dependent[i] = true;
            dependent.push(i);
            d[i] = 0.0;
        } else {
            d[i] = pivot;
        }
    }
    // Forward (L z = rhs), diagonal, backward (Lᵀ λ = y); dependent rows stay at zero.
    let row = |i: usize| &f.data[f.start[i]..f.start[i] + (i - f.first[i])];
    let mut x = rhs.to_vec();
    for i in 0..n {
        let fi = f.first[i];
        let s: f64 = row(i).iter().zip(&x[fi..i]).map(|(l, xm)| l * xm).sum();
        x[i] -= s;
    }
    for i in 0..n {
        x[i] = if is_dependent[i] { 0.0 } else { x[i] / d[i] };
    }
    for i in (0..n).rev() {
        let xi = x[i];
        let fi = f.first[i];
        for (xm, l) in x[fi..i].iter_mut().zip(row(i)) {
            *xm -= l * xi;
        }
    }
    // Residual with the original K (symmetric: each stored entry acts twice off the diagonal).
    let mut r: Vec<f64> = rhs.iter().map(|v| -v).collect();
    for i in 0..n {
        for j in k.first[i]..=i {
            let kij = k.at(i, j);
            r[i] += kij * x[j];
            if j != i {
                r[j] += kij * x[i];
            }
        }
    }
    let residual = r.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    Solution {
        lambda: x,
        dependent,
        residual,
    }
}

/// Each body's generalised constraint force `Σ Jᵀλ`: (force, torque about its centre).
pub(crate) fn body_forces(rows: &[Row], lambda: &[f64], bodies: usize) -> Vec<(Vec3, Vec3)> {
    let mut out = vec![(Vec3::zeros(), Vec3::zeros()); bodies];
    for (row, l) in rows.iter().zip(lambda) {
        for b in &row.blocks {
            out[b.body].0 += b.linear * *l;
            out[b.body].1 += b.angular * *l;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::rows::Block;

    fn row(blocks: &[(usize, [f64; 3], [f64; 3])]) -> Row {
        Row {
            blocks: blocks
                .iter()
                .map(|(b, l, a)| Block {
                    body: *b,
                    linear: Vec3::from(*l),
                    angular: Vec3::from(*a),
                })
                .collect(),
            phi: 0.0,
            phi_t: 0.0,
            bias: 0.0,
        }
    }

    fn bodies() -> Vec<InverseMass> {
        vec![
            InverseMass {
                mass: 0.5,
                inertia: Mat3::from_diagonal(&Vec3::new(2.0, 3.0, 4.0)),
            },
            InverseMass {
                mass: 0.25,
                inertia: Mat3::from_diagonal(&Vec3::new(1.0, 5.0, 2.0)),
            },
        ]
    }

    /// Against a dense solve of the same K (nalgebra's LU), for independent rows.
    #[test]
    fn independent_rows_match_a_dense_solve() {
        let rows = vec![
            row(&[(0, [1.0, 0.0, 0.0], [0.0, 0.2, 0.0])]),
            row(&[
                (0, [0.0, 1.0, 0.0], [0.1, 0.0, 0.3]),
                (1, [0.0, -1.0, 0.0], [0.0, 0.0, 0.5]),
            ]),
            row(&[(1, [0.3, 0.0, 1.0], [0.0, -0.4, 0.0])]),
            row(&[
                (0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
                (1, [0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
            ]),
        ];
        let inv = bodies();
        let rhs = [1.0, -2.0, 0.5, 3.0];
        let s = solve(&rows, &inv, &rhs);
        let k = nalgebra::DMatrix::from_fn(4, 4, |i, j| coupling(&rows[i], &rows[j], &inv));
        let exact = k
            .lu()
            .solve(&nalgebra::DVector::from_column_slice(&rhs))
            .unwrap();
        for i in 0..4 {
            assert!((s.lambda[i] - exact[i]).abs() < 1e-12, "{i}");
        }
        assert!(s.dependent.is_empty());
        assert!(s.residual < 1e-12);
    }

    /// A row repeated (scaled) is dropped: with a consistent right side the residual is at
    /// rounding level; with an inconsistent one it is the inconsistency itself.
    #[test]
    fn dependent_rows_are_dropped_and_inconsistency_reported() {
        let base = row(&[(0, [1.0, 0.0, 0.0], [0.0, 0.2, 0.0])]);
        let mut twice = base.clone();
        for b in &mut twice.blocks {
            b.linear *= 2.0;
            b.angular *= 2.0;
        }
        let rows = vec![base, twice];
        let inv = bodies();
        let consistent = solve(&rows, &inv, &[1.0, 2.0]);
        assert_eq!(consistent.dependent, vec![1]);
        assert!(consistent.residual < 1e-12);
        // K₁₁ = 0.5 + 0.04·3 = 0.62, so λ = 1/0.62.
        assert!((consistent.lambda[0] - 1.0 / 0.62).abs() < 1e-12);
        let inconsistent = solve(&rows, &inv, &[1.0, 3.0]);
        // Row 2 asks for 3 where row 1 gives 2·1 = 2: residual 1.
        assert!((inconsistent.residual - 1.0).abs() < 1e-12);
    }
}
