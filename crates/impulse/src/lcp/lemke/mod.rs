//! Lemke's complementary pivoting algorithm (Baraff §13.2 and App. B; Cottle, Pang & Stone
//! §4.4), with a lexicographic ratio test, a warm start from a complementary basis (Baraff
//! §8.2, §13.3), and every answer checked before it is returned.
//!
//! The problem is `w = M z + q`, `w ≥ 0`, `z ≥ 0`, `wᵀz = 0`. Lemke adds an artificial variable
//! `z₀` with a covering vector `d > 0` (all ones unless given): `w = M z + q + d z₀`. Starting
//! from the basis of all `w` with `z₀` just large enough that `w ≥ 0`, each pivot brings in the
//! complement of the variable that just left, and a ratio test picks which basic variable
//! leaves, keeping every basic variable non-negative. The run ends when `z₀` leaves (a
//! solution), or when the entering variable can grow without bound (a *secondary ray*).
//!
//! - **Degeneracy.** Ratio ties are normal in contact problems: a box on four coplanar corners
//!   has a rank-3 matrix, and bases with zero-valued variables recur. Ties are broken by the
//!   lexicographic rule (each row of `[x | B⁻¹]` divided by its pivot-column entry, least
//!   lexicographically), which is the classical proof that no basis repeats, so the algorithm
//!   cannot cycle. When the artificial variable is among the tied rows it leaves at once
//!   (Cottle, Pang & Stone p. 280): choosing another row can end on a spurious ray. And once
//!   `z₀` has fallen to zero (to rounding) while still basic, the point is already a
//!   solution and the run stops there. Without this, frictional impulse problems with many
//!   contacts ended on rays that started at `z₀ ≈ 1e-15` (about 1 % of random ones).
//! - **Basis.** The inverse of the basis matrix is kept explicitly, updated by a rank-one
//!   change per pivot (`O(n²)`), and formed afresh from the basis columns every `max(64, n)`
//!   pivots so rounding does not pile up. The answer is computed again from its final basis by one LU
//!   solve and checked against `M` and `q` themselves.
//! - **Scaling.** The problem is first scaled symmetrically, `M̃ = D M D`, `q̃ = D q / s`, with
//!   `Dᵢ = 1/√(largest |entry| in row or column i)` and `s = ‖D q‖∞`, so that tolerances do not
//!   depend on units (contact problems mix heavy and light bodies). Complementarity is
//!   unchanged by this scaling.
//! - **Rays.** On a secondary ray the run has found `zʰ ≥ 0`, `zʰ ≠ 0`, with
//!   `(M zʰ)ᵢ = −dᵢ z₀ʰ ≤ 0` wherever `zʰᵢ > 0` (Baraff eq. 13-1, from Murty's conditions
//!   (B-3)–(B-5)). For a contact problem with dynamic friction this is a valid contact impulse
//!   direction (Baraff Thm. 5); it is returned, never discarded.

use nalgebra::{DMatrix, DVector};

use tableau::Tableau;

/// Entries of a pivot column below this (relative to the column's largest entry, and to 1,
/// on the scaled problem) count as zero in the ratio test. With 10 n ε (Drake's choice)
/// frictional problems with jams pivoted on entries of 1e-12 that are zero in exact
/// arithmetic, and returned "solutions" with impulses of 1e10 that passed the check only
/// because the check is relative to ‖z‖.
const PIVOT_TOLERANCE: f64 = 1e-9;

/// How a solve started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// The warm-start basis gave a solution by one linear solve (Baraff §8.2).
    Warm,
    /// No warm-start basis was given; Lemke ran from the start (or `q ≥ 0` gave `z = 0`).
    Cold,
    /// A warm-start basis was given but was singular or infeasible; Lemke ran from the start.
    WarmRejected,
}

/// A complementary basis: for every index `i`, whether `zᵢ` (rather than `wᵢ`) is basic.
/// This is Baraff's index set `L` (§8.2): `z_L = −M_LL⁻¹ q_L`, the other `z` are zero.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Basis {
    z_basic: Vec<bool>,
}

impl Basis {
    /// The basis with every `w` basic (`L = ∅`, `z = 0`).
    pub fn all_w(n: usize) -> Self {
        Basis {
            z_basic: vec![false; n],
        }
    }

    /// The basis whose index set `L` is `indices` (out-of-range indices are ignored).
    pub fn from_z_indices(n: usize, indices: &[usize]) -> Self {
        let mut z_basic = vec![false; n];
        for &i in indices {
            if i < n {
                z_basic[i] = true;
            }
        }
        Basis { z_basic }
    }

    /// The size of the problem it belongs to.
    pub fn len(&self) -> usize {
        self.z_basic.len()
    }

    /// True for the basis of an empty problem.
    pub fn is_empty(&self) -> bool {
        self.z_basic.is_empty()
    }

    /// Whether `zᵢ` is basic.
    pub fn is_z_basic(&self, i: usize) -> bool {
        self.z_basic.get(i).copied().unwrap_or(false)
    }

    /// The index set `L`, ascending.
    pub fn z_indices(&self) -> Vec<usize> {
        (0..self.z_basic.len())
            .filter(|&i| self.z_basic[i])
            .collect()
    }
}

/// A solution of the LCP.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// `z ≥ 0` (the contact forces or impulses).
    pub z: DVector<f64>,
    /// `w = M z + q ≥ 0`, computed from `M` and `q` themselves (so it may show rounding of a
    /// few ulps below zero).
    pub w: DVector<f64>,
    /// The complementary basis the solution was read from: pass it back as the next solve's
    /// warm start.
    pub basis: Basis,
    /// Pivots taken (0 for a warm start or for `q ≥ 0`).
    pub pivots: usize,
    /// How the solve started.
    pub start: Start,
    /// The `δ` of a regularised solve ([`solve_regularized`]), 0 for a plain one.
    pub regularization: f64,
}

/// A secondary ray: where Lemke's algorithm stopped without a solution (Baraff §13.2, App. B).
///
/// Along the ray `z(λ) = z + λ zʰ`, `z₀(λ) = z₀ + λ z₀ʰ`, `w(λ) = M z(λ) + q + d z₀(λ)` stays
/// non-negative and complementary for all `λ ≥ 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ray {
    /// The basic point where the ray starts (`zᵏ` of eq. B-3).
    pub z: DVector<f64>,
    /// The artificial variable there (`z₀ᵏ > 0`).
    pub z0: f64,
    /// The ray's direction `zʰ ≥ 0`, scaled so its largest component is 1. Read as contact
    /// impulses, it satisfies Baraff eq. 13-1: `zʰᵢ > 0 ⇒ (M zʰ)ᵢ ≤ 0`.
    pub direction: DVector<f64>,
    /// The artificial variable's direction `z₀ʰ ≥ 0`, in the same scale.
    pub direction_z0: f64,
    /// `M zʰ`: for a contact impulse problem, the change of normal velocity per unit of the
    /// impulse `zʰ` (equal to `−dᵢ z₀ʰ ≤ 0` wherever `zʰᵢ > 0`).
    pub response: DVector<f64>,
    /// Pivots taken.
    pub pivots: usize,
    /// How the solve started.
    pub start: Start,
}

/// What a solve found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A solution, checked against the problem.
    Solution(Solution),
    /// A secondary ray (no solution found; for PSD `M`, none exists).
    Ray(Ray),
    /// The pivot limit was reached.
    PivotLimit {
        /// Pivots taken.
        pivots: usize,
    },
    /// Numerical breakdown: a basis became singular, or the answer read from the final basis
    /// failed its check against `M` and `q`.
    Singular {
        /// Pivots taken.
        pivots: usize,
    },
}

impl Outcome {
    /// The solution, if one was found.
    pub fn solution(&self) -> Option<&Solution> {
        match self {
            Outcome::Solution(s) => Some(s),
            _ => None,
        }
    }

    /// The ray, if the run ended on one.
    pub fn ray(&self) -> Option<&Ray> {
        match self {
            Outcome::Ray(r) => Some(r),
            _ => None,
        }
    }
}

/// Bad input: named, never a panic.
#[derive(Clone, Debug, PartialEq)]
pub enum LcpError {
    /// `M` is not square or `q` (or the covering vector, or the warm basis) does not match it.
    Dimension {
        /// What is mis-sized.
        what: &'static str,
        /// Its size.
        found: usize,
        /// The size expected.
        expected: usize,
    },
    /// An entry of `M`, `q` or the covering vector is NaN or infinite.
    NonFinite {
        /// `"M"`, `"q"` or `"covering vector"`.
        what: &'static str,
        /// Row of the entry.
        row: usize,
        /// Column of the entry (0 for vectors).
        column: usize,
    },
    /// The covering vector has an entry that is not positive.
    CoveringNotPositive {
        /// Index of the entry.
        index: usize,
    },
    /// Brute-force enumeration asked for a problem too large for it.
    TooLarge {
        /// The problem size.
        n: usize,
        /// The largest size enumerated.
        max: usize,
    },
}

impl std::fmt::Display for LcpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LcpError::Dimension {
                what,
                found,
                expected,
            } => write!(f, "LCP: {what} has size {found}, expected {expected}"),
            LcpError::NonFinite { what, row, column } => {
                write!(f, "LCP: {what}[{row}, {column}] is not finite")
            }
            LcpError::CoveringNotPositive { index } => {
                write!(f, "LCP: covering vector entry {index} is not positive")
            }
            LcpError::TooLarge { n, max } => {
                write!(f, "LCP: enumeration of {n} variables (at most {max})")
            }
        }
    }
}

impl std::error::Error for LcpError {}

/// Settings of a Lemke run. The defaults need no tuning.
#[derive(Clone, Debug, PartialEq)]
pub struct LemkeOptions {
    /// The covering vector `d > 0` (all ones when `None`, as in Baraff App. B).
    pub covering: Option<DVector<f64>>,
    /// The pivot limit (when `None`: `max(1000, 50 n)`; the expected count is about `n`).
    pub max_pivots: Option<usize>,
    /// Pivots between fresh factorisations of the basis (when `None`: `max(64, n)`; a
    /// factorisation costs about as much as `n` pivots).
    pub refactor_every: Option<usize>,
    /// Relative accuracy a solution must meet: `z ≥ −tol ‖z‖∞`, `wᵢ ≥ −tol sᵢ` and
    /// `min(zᵢ/‖z‖∞, wᵢ/sᵢ) ≤ tol`, with `sᵢ = |qᵢ| + Σⱼ |Mᵢⱼ| ‖z‖∞` the size of what
    /// makes up `wᵢ`.
    pub tolerance: f64,
}

impl Default for LemkeOptions {
    fn default() -> Self {
        LemkeOptions {
            covering: None,
            max_pivots: None,
            refactor_every: None,
            tolerance: 1e-9,
        }
    }
}

/// Solves the LCP `w = M z + q ≥ 0, z ≥ 0, wᵀz = 0`, first from the warm-start basis if one is
/// given (one linear solve, kept if it gives a checked solution), else by Lemke's algorithm.
pub fn solve(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    warm: Option<&Basis>,
    options: &LemkeOptions,
) -> Result<Outcome, LcpError> {
    let problem = Scaled::new(m, q, options)?;
    let mut start = Start::Cold;
    if let Some(basis) = warm {
        if basis.len() != problem.n {
            return Err(LcpError::Dimension {
                what: "warm-start basis",
                found: basis.len(),
                expected: problem.n,
            });
        }
        if let Some((z, w)) = problem.basic_solution(m, q, basis, options.tolerance) {
            return Ok(Outcome::Solution(Solution {
                z,
                w,
                basis: basis.clone(),
                pivots: 0,
                start: Start::Warm,
                regularization: 0.0,
            }));
        }
        start = Start::WarmRejected;
    }
    Ok(problem.lemke(m, q, options, start))
}

/// [`solve`], and if that ends without a solution, Lemke again on `M + δ I` for
/// `δ = 10⁻¹², 10⁻¹⁰, 10⁻⁸, 10⁻⁶` times the largest `|Mᵢⱼ|` (Drake's regularised retry). The
/// shift changes `w` by exactly `δ z`, so an answer is kept only if `δ ‖z‖∞ ≤ tolerance ‖q‖∞`
/// and it passes [`check_solution`] on the unshifted problem.
///
/// With friction an LCP can be copositive without being copositive-plus, and Lemke's
/// algorithm may then stop on a ray although a solution exists: for instance on a *jam*, a
/// set of impulses squeezing a body between contacts whose friction cones face each other,
/// which moves nothing (`M zʰ = 0`). `M + δ I` is strictly copositive, which Lemke always
/// solves; a problem with no solution gives answers that grow as `1/δ` and fail the check,
/// and the plain outcome is returned.
pub fn solve_regularized(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    warm: Option<&Basis>,
    options: &LemkeOptions,
) -> Result<Outcome, LcpError> {
    let plain = solve(m, q, warm, options)?;
    if matches!(plain, Outcome::Solution(_)) {
        return Ok(plain);
    }
    let scale = m.amax();
    if scale.is_nan() || scale <= 0.0 {
        return Ok(plain);
    }
    let mut pivots = match &plain {
        Outcome::Ray(r) => r.pivots,
        Outcome::PivotLimit { pivots } | Outcome::Singular { pivots } => *pivots,
        Outcome::Solution(s) => s.pivots,
    };
    for exponent in [-12, -10, -8, -6] {
        let relative = 10f64.powi(exponent);
        let delta = relative * scale;
        let shifted = m + DMatrix::identity(m.nrows(), m.ncols()) * delta;
        let outcome = solve(&shifted, q, None, options)?;
        if let Outcome::Solution(s) = outcome {
            pivots += s.pivots;
            // The shift changes w by exactly δ z: small against q, or not a solution of the
            // problem asked (answers growing as 1/δ mean there is none).
            if delta * s.z.amax() > options.tolerance * q.amax() {
                continue;
            }
            if let Ok(w) = check_solution(m, q, &s.z, options.tolerance) {
                return Ok(Outcome::Solution(Solution {
                    z: s.z,
                    w,
                    basis: s.basis,
                    pivots,
                    start: s.start,
                    regularization: delta,
                }));
            }
        }
    }
    Ok(plain)
}

/// The `z` a complementary basis stands for at `(M, q)`, unchecked: `z_L = −M_LL⁻¹ q_L` over the
/// basic `z`, the rest zero (the forces of one contact mode, which vary smoothly with `M` and
/// `q`: a caller holding the basis through an integration step checks the answer at the step's
/// end with [`check_solution`]). `None` when `M_LL` is singular or the sizes differ.
pub fn basis_solution(m: &DMatrix<f64>, q: &DVector<f64>, basis: &Basis) -> Option<DVector<f64>> {
    let n = q.len();
    if basis.len() != n || m.nrows() != n || m.ncols() != n {
        return None;
    }
    let set = basis.z_indices();
    let mut z = DVector::zeros(n);
    if !set.is_empty() {
        let k = set.len();
        let block = DMatrix::from_fn(k, k, |a, b| m[(set[a], set[b])]);
        let rhs = DVector::from_fn(k, |a, _| -q[set[a]]);
        let z_l = block.lu().solve(&rhs)?;
        for (a, &i) in set.iter().enumerate() {
            z[i] = z_l[a];
        }
    }
    z.iter().all(|v| v.is_finite()).then_some(z)
}

/// Checks a candidate solution against the problem itself: `z ≥ 0`, `w = M z + q ≥ 0` and
/// complementarity, each to `tolerance` relative to the sizes involved (see
/// [`LemkeOptions::tolerance`]). Returns `w`.
pub fn check_solution(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    z: &DVector<f64>,
    tolerance: f64,
) -> Result<DVector<f64>, String> {
    let n = q.len();
    if m.nrows() != n || m.ncols() != n || z.len() != n {
        return Err("sizes differ".into());
    }
    if !z.iter().all(|v| v.is_finite()) {
        return Err("z is not finite".into());
    }
    let z_scale = z.amax().max(f64::MIN_POSITIVE);
    let w = m * z + q;
    let rows = row_sums(m);
    for i in 0..n {
        // Rounding in wᵢ is relative to |qᵢ| and to row i of M times the size of z (an
        // error in z is relative to all of z, not to each component).
        let w_scale = (q[i].abs() + rows[i] * z_scale).max(f64::MIN_POSITIVE);
        if z[i] < -tolerance * z_scale {
            return Err(format!("z[{i}] = {:e} < 0", z[i]));
        }
        if w[i] < -tolerance * w_scale {
            return Err(format!("w[{i}] = {:e} < 0", w[i]));
        }
        if z[i] > tolerance * z_scale && w[i] > tolerance * w_scale {
            return Err(format!(
                "z[{i}] = {:e} and w[{i}] = {:e} both positive",
                z[i], w[i]
            ));
        }
    }
    Ok(w)
}

/// Checks Baraff's ray conditions (eq. 13-1) for a direction `zʰ`: `zʰ ≥ 0`, `zʰ ≠ 0`, and
/// `(M zʰ)ᵢ ≤ 0` wherever `zʰᵢ > 0`, to `tolerance` relative to the sizes involved.
pub fn check_ray(m: &DMatrix<f64>, direction: &DVector<f64>, tolerance: f64) -> Result<(), String> {
    let n = direction.len();
    if m.nrows() != n || m.ncols() != n {
        return Err("sizes differ".into());
    }
    let scale = direction.amax();
    if scale.is_nan() || scale <= 0.0 || !direction.iter().all(|v| v.is_finite()) {
        return Err("direction is zero or not finite".into());
    }
    let response = m * direction;
    let rows = row_sums(m);
    for i in 0..n {
        if direction[i] < -tolerance * scale {
            return Err(format!("direction[{i}] = {:e} < 0", direction[i]));
        }
        // Rounding in (M zʰ)ᵢ is relative to row i of M times the size of zʰ.
        if direction[i] > tolerance * scale
            && response[i] > tolerance * (rows[i] * scale).max(f64::MIN_POSITIVE)
        {
            return Err(format!(
                "direction[{i}] = {:e} > 0 but (M zʰ)[{i}] = {:e} > 0",
                direction[i], response[i]
            ));
        }
    }
    Ok(())
}

/// `Σⱼ |Mᵢⱼ|` for every row (one pass in storage order).
fn row_sums(m: &DMatrix<f64>) -> Vec<f64> {
    let mut sums = vec![0.0; m.nrows()];
    for column in m.column_iter() {
        for (sum, v) in sums.iter_mut().zip(column.iter()) {
            *sum += v.abs();
        }
    }
    sums
}

/// The problem scaled for pivoting: `M̃ = D M D`, `q̃ = D q / s`, `d̃ = D d`; the original `z`
/// is `s D z̃` and the original `z₀` is `s z̃₀`.
struct Scaled {
    n: usize,
    /// `M̃`, formed only for a Lemke run (a warm start scales just its block).
    m: DMatrix<f64>,
    q: DVector<f64>,
    d: DVector<f64>,
    /// The diagonal of `D`.
    row_scale: DVector<f64>,
    /// `s`.
    q_scale: f64,
}

impl Scaled {
    fn new(m: &DMatrix<f64>, q: &DVector<f64>, options: &LemkeOptions) -> Result<Self, LcpError> {
        let n = m.nrows();
        if m.ncols() != n {
            return Err(LcpError::Dimension {
                what: "M (columns)",
                found: m.ncols(),
                expected: n,
            });
        }
        if q.len() != n {
            return Err(LcpError::Dimension {
                what: "q",
                found: q.len(),
                expected: n,
            });
        }
        if let Some(k) = m.iter().position(|v| !v.is_finite()) {
            return Err(LcpError::NonFinite {
                what: "M",
                row: k % n,
                column: k / n,
            });
        }
        if let Some(i) = (0..n).find(|&i| !q[i].is_finite()) {
            return Err(LcpError::NonFinite {
                what: "q",
                row: i,
                column: 0,
            });
        }
        let covering = match &options.covering {
            Some(d) => {
                if d.len() != n {
                    return Err(LcpError::Dimension {
                        what: "covering vector",
                        found: d.len(),
                        expected: n,
                    });
                }
                if let Some(i) = (0..n).find(|&i| !d[i].is_finite()) {
                    return Err(LcpError::NonFinite {
                        what: "covering vector",
                        row: i,
                        column: 0,
                    });
                }
                if let Some(i) = (0..n).find(|&i| d[i] <= 0.0) {
                    return Err(LcpError::CoveringNotPositive { index: i });
                }
                d.clone()
            }
            None => DVector::from_element(n, 1.0),
        };
        // Dᵢ = 1/√rᵢ with rᵢ the largest |entry| of row or column i, so |M̃ᵢⱼ| ≤ 1 (one pass
        // in storage order).
        let mut largest = vec![0.0f64; n];
        for (j, column) in m.column_iter().enumerate() {
            for (i, v) in column.iter().enumerate() {
                let v = v.abs();
                largest[i] = largest[i].max(v);
                largest[j] = largest[j].max(v);
            }
        }
        let row_scale = DVector::from_fn(n, |i, _| {
            if largest[i] > 0.0 {
                1.0 / largest[i].sqrt()
            } else {
                1.0
            }
        });
        let dq = q.component_mul(&row_scale);
        let q_scale = dq.amax();
        let q_scale = if q_scale > 0.0 { q_scale } else { 1.0 };
        Ok(Scaled {
            n,
            m: DMatrix::zeros(0, 0),
            q: dq / q_scale,
            d: covering.component_mul(&row_scale),
            row_scale,
            q_scale,
        })
    }

    /// The pivoting tolerance: entries of a pivot column below it (relative to the column's
    /// largest) are zero, and ratios within it are ties.
    fn zero(&self) -> f64 {
        (10.0 * self.n as f64 * f64::EPSILON).max(1e-13)
    }

    /// The solution read from a complementary basis: `z_L = −M_LL⁻¹ q_L` (solved on the scaled
    /// problem), checked against the original problem. `None` if singular or not a solution.
    fn basic_solution(
        &self,
        m: &DMatrix<f64>,
        q: &DVector<f64>,
        basis: &Basis,
        tolerance: f64,
    ) -> Option<(DVector<f64>, DVector<f64>)> {
        let set = basis.z_indices();
        let k = set.len();
        let mut z = DVector::zeros(self.n);
        if k > 0 {
            let d = &self.row_scale;
            let block = DMatrix::from_fn(k, k, |a, b| d[set[a]] * m[(set[a], set[b])] * d[set[b]]);
            let rhs = DVector::from_fn(k, |a, _| -self.q[set[a]]);
            let z_l = block.lu().solve(&rhs)?;
            for (a, &i) in set.iter().enumerate() {
                z[i] = z_l[a] * self.row_scale[i] * self.q_scale;
            }
        }
        finish(m, q, z, tolerance)
    }

    /// Lemke's algorithm from the all-`w` basis.
    fn lemke(
        mut self,
        m: &DMatrix<f64>,
        q: &DVector<f64>,
        options: &LemkeOptions,
        start: Start,
    ) -> Outcome {
        let n = self.n;
        if self.q.iter().all(|&v| v >= 0.0) {
            // q ≥ 0: z = 0 is a solution with no pivot.
            return Outcome::Solution(Solution {
                z: DVector::zeros(n),
                w: q.clone(),
                basis: Basis::all_w(n),
                pivots: 0,
                start,
                regularization: 0.0,
            });
        }
        let d = &self.row_scale;
        self.m = DMatrix::from_fn(n, n, |i, j| d[i] * m[(i, j)] * d[j]);
        let max_pivots = options.max_pivots.unwrap_or((50 * n).max(1000));
        let refactor_every = options.refactor_every.unwrap_or(n.max(64)).max(1);
        let mut t = Tableau::new(&self);
        // First pivot: z₀ enters at the row needing the largest z₀, least lexicographically
        // among ties ((q̃ᵢ, eᵢ)/d̃ᵢ least: the tied row of highest index).
        let zero = self.zero();
        let ratio = |i: usize| self.q[i] / self.d[i];
        let least = (0..n).map(ratio).fold(f64::INFINITY, f64::min);
        let tie = zero * least.abs().max(1.0);
        let first = (0..n)
            .filter(|&i| ratio(i) <= least + tie)
            .max()
            .unwrap_or(0);
        let column = t.column(t.z0());
        t.pivot(first, t.z0(), &column);
        let mut pivots = 1;
        let mut entering = t.z(first);
        loop {
            if pivots >= max_pivots {
                return Outcome::PivotLimit { pivots };
            }
            // z₀ at zero (to rounding) while basic: the point is a solution already (the
            // pair left out of the basis is zero too).
            if t.row_of[t.z0()].is_some_and(|r| t.x[r] <= 1e-11 * t.x.amax().max(1.0)) {
                return self.solution(m, q, &t, pivots, start, options.tolerance);
            }
            let column = t.column(entering);
            let Some(row) = t.leaving_row(&column, zero) else {
                return self.ray(m, &t, entering, &column, pivots, start);
            };
            let leaving = t.basic[row];
            t.pivot(row, entering, &column);
            pivots += 1;
            if leaving == t.z0() {
                return self.solution(m, q, &t, pivots, start, options.tolerance);
            }
            if pivots % refactor_every == 0 && !t.refactor(&self) {
                return Outcome::Singular { pivots };
            }
            entering = t.complement(leaving);
        }
    }

    /// Reads the solution off the final basis: afresh by one LU solve on its index set `L`
    /// when `z₀` has left (the basis is complementary), else (z₀ at zero but still basic)
    /// from the basic values themselves.
    fn solution(
        &self,
        m: &DMatrix<f64>,
        q: &DVector<f64>,
        t: &Tableau,
        pivots: usize,
        start: Start,
        tolerance: f64,
    ) -> Outcome {
        let n = self.n;
        let z_basic: Vec<usize> = (0..n).filter(|&i| t.row_of[t.z(i)].is_some()).collect();
        let basis = Basis::from_z_indices(n, &z_basic);
        let found = self.basic_solution(m, q, &basis, tolerance).or_else(|| {
            let mut z = DVector::zeros(n);
            for &i in &z_basic {
                if let Some(r) = t.row_of[t.z(i)] {
                    z[i] = t.x[r] * self.row_scale[i] * self.q_scale;
                }
            }
            finish(m, q, z, tolerance)
        });
        match found {
            Some((z, w)) => Outcome::Solution(Solution {
                z,
                w,
                basis,
                pivots,
                start,
                regularization: 0.0,
            }),
            None => Outcome::Singular { pivots },
        }
    }

    /// The secondary ray at which the run stopped: the entering variable grows by 1 and each
    /// basic variable by `−āᵢ ≥ 0`.
    fn ray(
        &self,
        m: &DMatrix<f64>,
        t: &Tableau,
        entering: usize,
        column: &DVector<f64>,
        pivots: usize,
        start: Start,
    ) -> Outcome {
        let n = self.n;
        let mut z = DVector::zeros(n);
        let mut z0 = 0.0;
        let mut direction = DVector::zeros(n);
        let mut direction_z0 = 0.0;
        for (row, &var) in t.basic.iter().enumerate() {
            let value = t.x[row].max(0.0);
            let growth = (-column[row]).max(0.0);
            if var == t.z0() {
                z0 = value * self.q_scale;
                direction_z0 = growth;
            } else if var >= n {
                let i = var - n;
                z[i] = value * self.row_scale[i] * self.q_scale;
                direction[i] = growth * self.row_scale[i];
            }
        }
        if entering == t.z0() {
            direction_z0 = 1.0;
        } else if entering >= n {
            direction[entering - n] = self.row_scale[entering - n];
        }
        let largest = direction.amax();
        if largest.is_nan() || largest <= 0.0 || !largest.is_finite() {
            return Outcome::Singular { pivots };
        }
        direction /= largest;
        direction_z0 /= largest;
        let response = m * &direction;
        Outcome::Ray(Ray {
            z,
            z0,
            direction,
            direction_z0,
            response,
            pivots,
            start,
        })
    }
}

/// Clamps rounding-level negatives of `z` to zero and checks the result; returns `(z, w)`.
pub(super) fn finish(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    mut z: DVector<f64>,
    tolerance: f64,
) -> Option<(DVector<f64>, DVector<f64>)> {
    if !z.iter().all(|v| v.is_finite()) {
        return None;
    }
    let scale = z.amax();
    for v in z.iter_mut() {
        if *v < 0.0 && *v >= -tolerance * scale {
            *v = 0.0;
        }
    }
    let w = check_solution(m, q, &z, tolerance).ok()?;
    Some((z, w))
}

mod tableau;

#[cfg(test)]
mod tests;
