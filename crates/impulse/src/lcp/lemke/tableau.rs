//! Lemke's pivoting tableau: the basis inverse kept explicitly and refactored periodically.

use nalgebra::{DMatrix, DVector};

use super::{PIVOT_TOLERANCE, Scaled};

/// The pivoting state: the basic variable of each row, the inverse of the basis matrix and
/// the basic values, for the system `I w − M̃ z − d̃ z₀ = q̃`. Variables are numbered
/// `wᵢ = i`, `zᵢ = n + i`, `z₀ = 2n`.
pub(super) struct Tableau<'a> {
    pub(super) problem: &'a Scaled,
    pub(super) basic: Vec<usize>,
    pub(super) row_of: Vec<Option<usize>>,
    pub(super) b_inv: DMatrix<f64>,
    pub(super) x: DVector<f64>,
}

impl<'a> Tableau<'a> {
    pub(super) fn new(problem: &'a Scaled) -> Self {
        let n = problem.n;
        let mut row_of = vec![None; 2 * n + 1];
        for (i, r) in row_of.iter_mut().enumerate().take(n) {
            *r = Some(i);
        }
        Tableau {
            problem,
            basic: (0..n).collect(),
            row_of,
            b_inv: DMatrix::identity(n, n),
            x: problem.q.clone(),
        }
    }

    pub(super) fn n(&self) -> usize {
        self.problem.n
    }

    pub(super) fn z(&self, i: usize) -> usize {
        self.n() + i
    }

    pub(super) fn z0(&self) -> usize {
        2 * self.n()
    }

    pub(super) fn complement(&self, var: usize) -> usize {
        let n = self.n();
        if var < n { var + n } else { var - n }
    }

    /// A variable's column in the original system, in the current basis: `B⁻¹ a`.
    pub(super) fn column(&self, var: usize) -> DVector<f64> {
        let n = self.n();
        if var < n {
            self.b_inv.column(var).clone_owned()
        } else if var < 2 * n {
            -(&self.b_inv * self.problem.m.column(var - n))
        } else {
            -(&self.b_inv * &self.problem.d)
        }
    }

    /// The variable's column in the original system, `a`.
    pub(super) fn original_column(&self, var: usize) -> DVector<f64> {
        let n = self.n();
        if var < n {
            let mut e = DVector::zeros(n);
            e[var] = 1.0;
            e
        } else if var < 2 * n {
            -self.problem.m.column(var - n).clone_owned()
        } else {
            -self.problem.d.clone()
        }
    }

    /// The lexicographic minimum-ratio test: the row that leaves when the variable whose
    /// column (in the current basis) is `column` enters, or `None` if nothing blocks it (a
    /// ray). The artificial variable's row wins any tie on the ratio.
    pub(super) fn leaving_row(&self, column: &DVector<f64>, zero: f64) -> Option<usize> {
        let n = self.n();
        let threshold = PIVOT_TOLERANCE * column.amax().max(1.0);
        let candidates: Vec<usize> = (0..n).filter(|&i| column[i] > threshold).collect();
        if candidates.is_empty() {
            return None;
        }
        let ratio = |i: usize| self.x[i].max(0.0) / column[i];
        let least = candidates
            .iter()
            .map(|&i| ratio(i))
            .fold(f64::INFINITY, f64::min);
        let tie = zero * least.max(1.0);
        let mut tied: Vec<usize> = candidates
            .into_iter()
            .filter(|&i| ratio(i) <= least + tie)
            .collect();
        if let Some(row) = self.row_of[self.z0()]
            && tied.contains(&row)
        {
            return Some(row);
        }
        // Lexicographic: compare the rows of B⁻¹ divided by the pivot entries, column by
        // column, keeping the least, until one row is left.
        for j in 0..n {
            if tied.len() == 1 {
                break;
            }
            let entry = |i: usize| self.b_inv[(i, j)] / column[i];
            let least = tied.iter().map(|&i| entry(i)).fold(f64::INFINITY, f64::min);
            let scale = tied
                .iter()
                .map(|&i| entry(i).abs())
                .fold(0.0f64, f64::max)
                .max(f64::MIN_POSITIVE);
            tied.retain(|&i| entry(i) <= least + zero * scale);
        }
        tied.first().copied()
    }

    /// Pivots `entering` into row `r` (its column in the current basis is `column`).
    pub(super) fn pivot(&mut self, r: usize, entering: usize, column: &DVector<f64>) {
        let p = column[r];
        // B⁻¹ ← B⁻¹ − (ā − e_r)(B⁻¹[r,:] / ā_r): row r divided by the pivot, the others
        // reduced by it. The same for the basic values.
        let row: DVector<f64> = self.b_inv.row(r).transpose() / p;
        let mut u = column.clone();
        u[r] -= 1.0;
        self.b_inv.ger(-1.0, &u, &row, 1.0);
        let x_r = self.x[r] / p;
        self.x.axpy(-x_r, &u, 1.0);
        self.x[r] = x_r;
        let leaving = self.basic[r];
        self.row_of[leaving] = None;
        self.row_of[entering] = Some(r);
        self.basic[r] = entering;
    }

    /// Forms `B⁻¹` afresh from the basis columns. False if the basis is singular.
    pub(super) fn refactor(&mut self, problem: &Scaled) -> bool {
        let n = self.n();
        let mut b = DMatrix::zeros(n, n);
        for (r, &var) in self.basic.iter().enumerate() {
            b.set_column(r, &self.original_column(var));
        }
        match b.try_inverse() {
            Some(inverse) if inverse.iter().all(|v| v.is_finite()) => {
                self.x = &inverse * &problem.q;
                self.b_inv = inverse;
                true
            }
            _ => false,
        }
    }
}
