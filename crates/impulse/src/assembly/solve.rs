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

/// `K` in skyline storage: row i holds columns `first[i] ..= i` at `data[start[i]..]`.
#[derive(Default)]
struct Skyline {
    first: Vec<usize>,
    start: Vec<usize>,
    data: Vec<f64>,
}

impl Skyline {
    /// Row i's stored entries, columns `first[i] ..= i`.
    fn row(&self, i: usize) -> &[f64] {
        &self.data[self.start[i]..=self.start[i] + i - self.first[i]]
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

/// One block of `M⁻¹ Jᵀ`: the row it belongs to and its linear and angular parts.
type Scaled = (usize, Vec3, Vec3);

/// The buffers of a solve, kept from one solve to the next: an assembly is solved six times a
/// step, and for a few dozen rows fresh buffers each time cost a fifth of the solve.
#[derive(Default)]
struct Workspace {
    k: Skyline,
    /// The first row touching each body.
    first_of_body: Vec<usize>,
    /// Each body's blocks of `M⁻¹ Jᵀ` are `scaled[offset[b]..offset[b + 1]]`, in row order.
    offset: Vec<usize>,
    next: Vec<usize>,
    scaled: Vec<Scaled>,
    /// The LDLᵀ factors: L in K's skyline (unit diagonal implied), D beside it.
    factor: Vec<f64>,
    d: Vec<f64>,
    is_dependent: Vec<bool>,
    residual: Vec<f64>,
}

thread_local! {
    static WORKSPACE: std::cell::RefCell<Workspace> = std::cell::RefCell::default();
}

/// Fills `k` with `K = J M⁻¹ Jᵀ` for the rows.
fn assemble(w: &mut Workspace, rows: &[Row], inverse: &[InverseMass]) {
    let bodies = inverse.len();
    let k = &mut w.k;
    // The first row touching each body, then each row's first column.
    w.first_of_body.clear();
    w.first_of_body.resize(bodies, usize::MAX);
    k.first.clear();
    w.offset.clear();
    w.offset.resize(bodies + 1, 0);
    for (i, row) in rows.iter().enumerate() {
        let mut first = i;
        for b in &row.blocks {
            if w.first_of_body[b.body] == usize::MAX {
                w.first_of_body[b.body] = i;
            }
            first = first.min(w.first_of_body[b.body]);
            w.offset[b.body + 1] += 1;
        }
        k.first.push(first);
    }
    k.start.clear();
    let mut len = 0;
    for (i, &f) in k.first.iter().enumerate() {
        k.start.push(len);
        len += i - f + 1;
    }
    k.data.clear();
    k.data.resize(len, 0.0);
    // Only rows sharing a body couple: per body, every pair of the rows touching it.
    for b in 0..bodies {
        w.offset[b + 1] += w.offset[b];
    }
    w.scaled.clear();
    w.scaled
        .resize(w.offset[bodies], (0, Vec3::zeros(), Vec3::zeros()));
    w.next.clear();
    w.next.extend_from_slice(&w.offset);
    for (i, row) in rows.iter().enumerate() {
        for x in &row.blocks {
            let m = &inverse[x.body];
            w.scaled[w.next[x.body]] = (i, x.linear * m.mass, m.inertia * x.angular);
            w.next[x.body] += 1;
        }
    }
    for (i, row) in rows.iter().enumerate() {
        let fi = k.first[i];
        let entries = &mut k.data[k.start[i]..=k.start[i] + i - fi];
        for x in &row.blocks {
            let on_body = &w.scaled[w.offset[x.body]..w.offset[x.body + 1]];
            for (j, linear, angular) in on_body.iter().take_while(|(j, ..)| *j <= i) {
                entries[j - fi] += x.linear.dot(linear) + x.angular.dot(angular);
            }
        }
    }
}

/// Solves `K λ = rhs` for the rows at their bodies' inverse masses. The residual is computed
/// when rows were dropped (with every row independent the factorisation is exact up to
/// rounding, and the residual is reported as 0).
pub(crate) fn solve(rows: &[Row], inverse: &[InverseMass], rhs: &[f64]) -> Solution {
    WORKSPACE.with_borrow_mut(|w| solve_in(w, rows, inverse, rhs))
}

fn solve_in(w: &mut Workspace, rows: &[Row], inverse: &[InverseMass], rhs: &[f64]) -> Solution {
    let n = rows.len();
    assemble(w, rows, inverse);
    let Workspace {
        k,
        factor: f,
        d,
        is_dependent,
        ..
    } = w;
    let (first, start) = (&k.first, &k.start);
    // LDLᵀ in place on a copy of K.
    f.clear();
    f.extend_from_slice(&k.data);
    d.clear();
    d.resize(n, 0.0);
    is_dependent.clear();
    is_dependent.resize(n, false);
    let mut dependent = Vec::new();
    for i in 0..n {
        let fi = first[i];
        let (done, rest) = f.split_at_mut(start[i]);
        let row_i = &mut rest[..=(i - fi)];
        for j in fi..i {
            let c = j - fi;
            if is_dependent[j] {
                row_i[c] = 0.0;
                continue;
            }
            let fj = first[j];
            let from = fi.max(fj);
            let row_j = &done[start[j] + (from - fj)..start[j] + (j - fj)];
            let dot: f64 = row_i[from - fi..c]
                .iter()
                .zip(row_j)
                .zip(&d[from..j])
                .map(|((a, b), dm)| a * b * dm)
                .sum();
            row_i[c] = (row_i[c] - dot) / d[j];
        }
        let kii = k.data[start[i] + i - fi];
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
    let row = |i: usize| &f[start[i]..start[i] + (i - first[i])];
    let mut x = rhs.to_vec();
    for i in 0..n {
        let fi = first[i];
        let s: f64 = row(i).iter().zip(&x[fi..i]).map(|(l, xm)| l * xm).sum();
        x[i] -= s;
    }
    for i in 0..n {
        x[i] = if is_dependent[i] { 0.0 } else { x[i] / d[i] };
    }
    for i in (0..n).rev() {
        let xi = x[i];
        let fi = first[i];
        for (xm, l) in x[fi..i].iter_mut().zip(row(i)) {
            *xm -= l * xi;
        }
    }
    let residual = if dependent.is_empty() {
        0.0
    } else {
        residual(k, &x, rhs, &mut w.residual)
    };
    Solution {
        lambda: x,
        dependent,
        residual,
    }
}

/// Largest `|K x − rhs|` (K symmetric: each stored entry off the diagonal acts twice).
fn residual(k: &Skyline, x: &[f64], rhs: &[f64], r: &mut Vec<f64>) -> f64 {
    r.clear();
    r.extend(rhs.iter().map(|v| -v));
    for i in 0..rhs.len() {
        let fi = k.first[i];
        // Row i's own sum, then its entries' mirror images on the earlier rows.
        let (entries, kii) = k.row(i).split_at(i - fi);
        let mut ri = r[i];
        for (kij, xj) in entries.iter().zip(&x[fi..i]) {
            ri += kij * xj;
        }
        r[i] = ri + kii[0] * x[i];
        for (rj, kij) in r[fi..i].iter_mut().zip(entries) {
            *rj += kij * x[i];
        }
    }
    r.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
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
