//! The force problem when every contact that does not slide sticks (Baraff §14.1: static
//! friction holds the slip acceleration at zero), with the sticking contacts' friction forces
//! eliminated so that Lemke's algorithm sees only the normal forces.
//!
//! In contact `i`'s frame its force on A is `f_N,i uᵢ + (0, tᵢ)`: `uᵢ = (1, −μ, 0)` when it
//! slides (dynamic friction against the slip, ch. 9–10), `(1, 0, 0)` otherwise, and `tᵢ` the
//! static friction force, unknown at the *held* contacts (not sliding, μ > 0). The rows are
//!
//! ```text
//!   a_N = A_NN f_N + A_NT t + b_N ≥ 0  ⟂  f_N ≥ 0
//!   a_T = A_TN f_N + A_TT t + b_T = 0
//! ```
//!
//! `A_TT` is a diagonal block of the symmetric PSD coupling `W`; with a small compliance `δ_t`
//! on its diagonal it is positive definite, so `t = −S⁻¹ (A_TN f_N + b_T)` with
//! `S = A_TT + δ_t I`, and
//!
//! ```text
//!   a_N = (A_NN − A_NT S⁻¹ A_TN) f_N + (b_N − A_NT S⁻¹ b_T)
//! ```
//!
//! is an LCP in `f_N` alone: one unknown a contact where §14.2.3's box model has seven, and,
//! when nothing slides, symmetric PSD (a Schur complement of `W`). A stack's redundant corner
//! contacts make the box model's LCP degenerate at every pivot, and at a few hundred unknowns
//! Lemke's tableau loses feasibility to rounding; this problem has none of those pivots.
//!
//! Its answer is a solution of the box model whenever every held contact's friction lies in
//! its cone, `|tᵢ| ≤ μ f_N,i` (then each is a static friction force below its bound with zero
//! slip acceleration, which is what (14-15) asks). A held contact whose friction leaves the
//! cone — it must slip, or it pushes nothing yet holds tangentially — is not answered here:
//! the caller poses the box model instead.

use nalgebra::{DMatrix, DVector};

use super::contact::ContactSystem;
use crate::math::{Mat3, Vec3};

/// The normal-force LCP of a contact system whose non-sliding contacts stick.
#[derive(Clone, Debug)]
pub(crate) struct StickingLcp {
    /// `A_NN − A_NT S⁻¹ A_TN + δ I`.
    pub(crate) matrix: DMatrix<f64>,
    /// `b_N − A_NT S⁻¹ b_T` (the LCP's `q`).
    pub(crate) vector: DVector<f64>,
    /// The normal compliance `δ` added to the diagonal.
    pub(crate) compliance: f64,
    /// The held contacts' friction `t` as a function of `f_N`.
    eliminated: EliminatedFriction,
    /// Each contact's force per unit `f_N` (contact frame).
    directions: Vec<Vec3>,
    frames: Vec<Mat3>,
}

/// The friction of the sticking contacts of a problem, eliminated from its LCP: `t = gain x +
/// offset` for the LCP's force unknowns `x`, plus internal forces (columns of `internal`, a
/// basis of the friction block's null space: they move nothing), shared as
/// [`share_friction`] does.
#[derive(Clone, Debug)]
pub(super) struct EliminatedFriction {
    gain: DMatrix<f64>,
    offset: DVector<f64>,
    internal: DMatrix<f64>,
    /// Each contact's first friction row in `t`, if its friction is eliminated.
    pub(super) held: Vec<Option<usize>>,
    /// Each contact's friction coefficient.
    friction: Vec<f64>,
}

impl EliminatedFriction {
    /// The friction rows `t_E` of the contacts in `held` eliminated from `a_E = W_EE t_E +
    /// a_x x + b_E = 0`: `t_E = −S⁺ (a_x x + b_E)`, `S = W_EE + δ_t I` ([`held_inverse`]), for
    /// force unknowns `x` (`a_x` has one column each). `None` when `W_EE` cannot be factored.
    pub(super) fn new(
        w_ee: DMatrix<f64>,
        delta_t: f64,
        a_x: &DMatrix<f64>,
        b_e: &DVector<f64>,
        held: Vec<Option<usize>>,
        friction: &[f64],
    ) -> Option<Self> {
        let (gain, offset, internal) = if w_ee.nrows() > 0 {
            let (s, internal) = held_inverse(w_ee, delta_t)?;
            (-(&s * a_x), -(&s * b_e), internal)
        } else {
            (
                DMatrix::zeros(0, a_x.ncols()),
                DVector::zeros(0),
                DMatrix::zeros(0, 0),
            )
        };
        Some(EliminatedFriction {
            gain,
            offset,
            internal,
            held,
            friction: friction.to_vec(),
        })
    }

    /// `t_E = gain x + offset`'s `gain`.
    pub(super) fn gain(&self) -> &DMatrix<f64> {
        &self.gain
    }

    /// `t_E = gain x + offset`'s `offset`.
    pub(super) fn offset(&self) -> &DVector<f64> {
        &self.offset
    }

    /// Whether any contact's friction is eliminated.
    pub(super) fn any(&self) -> bool {
        self.gain.nrows() > 0
    }

    /// The held contacts' friction for force unknowns `x` and normal forces `f_n` (see
    /// [`share_friction`]).
    pub(super) fn forces(&self, x: &DVector<f64>, f_n: &[f64]) -> DVector<f64> {
        let least = &self.gain * x + &self.offset;
        share_friction(least, &self.internal, &self.held, &self.friction, f_n)
    }

    /// The held contacts whose friction `t` leaves its cone, `|tᵢ| > μ f_N,i`, by more than
    /// `tolerance` relative to the largest normal force (a NaN, all held contacts idle and
    /// their friction 0/0, counts as outside).
    pub(super) fn outside_cones(
        &self,
        t: &DVector<f64>,
        f_n: &[f64],
        tolerance: f64,
    ) -> Vec<usize> {
        let largest = f_n.iter().map(|f| f.abs()).fold(0.0, f64::max);
        let slack = tolerance * largest;
        (0..self.held.len())
            .filter(|&i| {
                self.held[i].is_some_and(|r| {
                    let friction = t[r].hypot(t[r + 1]);
                    let bound = self.friction[i] * f_n[i] * (1.0 + tolerance) + slack;
                    matches!(
                        friction.partial_cmp(&bound),
                        Some(std::cmp::Ordering::Greater) | None
                    )
                })
            })
            .collect()
    }
}

/// `S⁺ = (A_TT + δ_t I)⁺` over the range of `A_TT`: the friction forces that hold the
/// sticking contacts with the least norm.
///
/// A flat region's corners hold fewer tangential freedoms than they have friction rows (four
/// corners of a face, eight rows, three freedoms), so `A_TT` is singular. A requirement
/// outside its range — the velocity-product and slip-correction terms of `b_T` are not exactly
/// a rigid motion's — no force can meet; inverting `A_TT + δ_t I` whole would answer it with
/// internal forces of order `1/δ_t` squeezing the corners against each other, which leave
/// every cone. Over the range only, the forces are the least that hold the contacts, and the
/// statically indeterminate internal forces are zero. Eigenvalues below `RANGE` of the
/// largest are taken as zero (rounding of a singular block).
fn held_inverse(a_tt: DMatrix<f64>, delta_t: f64) -> Option<(DMatrix<f64>, DMatrix<f64>)> {
    let eigen = a_tt.symmetric_eigen();
    let largest = eigen.eigenvalues.amax();
    if !largest.is_finite() {
        return None;
    }
    let kept = |l: f64| l > RANGE * largest;
    let inverse = eigen
        .eigenvalues
        .map(|l| if kept(l) { 1.0 / (l + delta_t) } else { 0.0 });
    let v = &eigen.eigenvectors;
    let null: Vec<usize> = (0..inverse.len())
        .filter(|&k| !kept(eigen.eigenvalues[k]))
        .collect();
    let internal = DMatrix::from_fn(v.nrows(), null.len(), |r, c| v[(r, null[c])]);
    Some((
        v * DMatrix::from_diagonal(&inverse) * v.transpose(),
        internal,
    ))
}

/// Eigenvalues of the friction block below this part of the largest are rounding.
const RANGE: f64 = 1e-6;

impl StickingLcp {
    /// The problem of `system`, with compliances `δ = normal · s` on the normal rows and
    /// `δ_t = tangent · s` on the friction rows, `s` the largest coupling entry. `None` when
    /// the friction block cannot be factored (non-finite input).
    pub(crate) fn new(
        system: &ContactSystem,
        normal: f64,
        tangent: f64,
        released: &[bool],
    ) -> Option<Self> {
        let n = system.n;
        let mut held = Vec::with_capacity(n);
        let mut directions = Vec::with_capacity(n);
        let mut rows = 0;
        for i in 0..n {
            let mu = system.friction[i];
            if mu > 0.0 && system.sliding[i] {
                directions.push(Vec3::new(1.0, -mu, 0.0));
                held.push(None);
            } else {
                directions.push(Vec3::x());
                if mu > 0.0 && !released.get(i).copied().unwrap_or(false) {
                    held.push(Some(rows));
                    rows += 2;
                } else {
                    held.push(None);
                }
            }
        }
        let mut a_nn = DMatrix::zeros(n, n);
        let mut a_nt = DMatrix::zeros(n, rows);
        let mut a_tn = DMatrix::zeros(rows, n);
        let mut a_tt = DMatrix::zeros(rows, rows);
        let mut scale = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                let w = system.block(i, j);
                scale = scale.max(w.amax());
                let column = w * directions[j];
                a_nn[(i, j)] = column.x;
                if let Some(r) = held[i] {
                    a_tn[(r, j)] = column.y;
                    a_tn[(r + 1, j)] = column.z;
                }
                if let Some(c) = held[j] {
                    a_nt[(i, c)] = w[(0, 1)];
                    a_nt[(i, c + 1)] = w[(0, 2)];
                    if let Some(r) = held[i] {
                        for (k, l) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                            a_tt[(r + k, c + l)] = w[(1 + k, 1 + l)];
                        }
                    }
                }
            }
        }
        if !scale.is_finite() {
            return None;
        }
        let delta = normal * scale;
        let delta_t = tangent * scale;
        let b_n = DVector::from_fn(n, |i, _| system.free[i].x);
        let mut b_t = DVector::zeros(rows);
        for (free, held) in system.free.iter().zip(&held) {
            if let Some(r) = *held {
                b_t[r] = free.y;
                b_t[r + 1] = free.z;
            }
        }
        let eliminated =
            EliminatedFriction::new(a_tt, delta_t, &a_tn, &b_t, held, &system.friction)?;
        let mut matrix = a_nn + &a_nt * eliminated.gain();
        for i in 0..n {
            matrix[(i, i)] += delta;
        }
        let vector = b_n + &a_nt * eliminated.offset();
        if !(matrix.iter().all(|v| v.is_finite()) && vector.iter().all(|v| v.is_finite())) {
            return None;
        }
        Some(StickingLcp {
            matrix,
            vector,
            compliance: delta,
            eliminated,
            directions,
            frames: system.frames.clone(),
        })
    }

    /// The held contacts that push nothing (`f_N` zero): released, they hold no friction.
    pub(crate) fn idle(&self, f_n: &DVector<f64>) -> Vec<bool> {
        let scale = f_n.amax();
        let held = &self.eliminated.held;
        (0..held.len())
            .map(|i| held[i].is_some() && f_n[i] <= 1e-12 * scale)
            .collect()
    }

    /// The static friction forces `t` for normal forces `f_n`: the least that hold the
    /// sticking contacts, with the internal forces (which move nothing) chosen to share the
    /// friction in proportion to each contact's bound `μ f_N`, so that a lightly loaded corner
    /// of a rocking box is not asked for as much as a loaded one (least `Σ |tᵢ|² / μ f_N,i`).
    fn friction_forces(&self, f_n: &DVector<f64>) -> DVector<f64> {
        self.eliminated.forces(f_n, f_n.as_slice())
    }

    /// The contact forces on A (world) for normal forces `f_n`.
    pub(crate) fn contact_forces(&self, f_n: &DVector<f64>) -> Vec<Vec3> {
        let t = self.friction_forces(f_n);
        (0..self.directions.len())
            .map(|i| {
                let mut local = self.directions[i] * f_n[i];
                if let Some(r) = self.eliminated.held[i] {
                    local.y += t[r];
                    local.z += t[r + 1];
                }
                self.frames[i] * local
            })
            .collect()
    }

    /// Whether every held contact's friction lies in its cone, `|tᵢ| ≤ μ f_N,i`, to
    /// `tolerance` relative to the largest normal force: the answer is then the box model's.
    pub(crate) fn within_cones(&self, f_n: &DVector<f64>, tolerance: f64) -> bool {
        let t = self.friction_forces(f_n);
        self.eliminated
            .outside_cones(&t, f_n.as_slice(), tolerance)
            .is_empty()
    }
}

/// The held contacts' friction `least` (the least-norm forces that hold them) plus the
/// internal forces (columns of `internal`; they move nothing) that share it in proportion to
/// each contact's bound `μ f_N`: least `Σ |tᵢ|² / μ f_N,i`. `held[i]` is contact `i`'s first
/// row in `t`.
fn share_friction(
    least: DVector<f64>,
    internal: &DMatrix<f64>,
    held: &[Option<usize>],
    friction: &[f64],
    f_n: &[f64],
) -> DVector<f64> {
    let k = internal.ncols();
    if k == 0 {
        return least;
    }
    let mut bound = DVector::zeros(least.len());
    for (i, held) in held.iter().enumerate() {
        if let Some(r) = *held {
            let b = friction[i] * f_n[i].max(0.0);
            bound[r] = b;
            bound[r + 1] = b;
        }
    }
    let floor = 1e-9 * bound.amax().max(f64::MIN_POSITIVE);
    let weight = bound.map(|b| 1.0 / (b + floor));
    // (Nᵀ W N) c = −Nᵀ W t_least.
    let weighted = DMatrix::from_fn(internal.nrows(), k, |r, c| weight[r] * internal[(r, c)]);
    let normal = internal.transpose() * &weighted;
    let rhs = -(weighted.transpose() * &least);
    match normal.cholesky() {
        Some(factor) => least + internal * factor.solve(&rhs),
        None => least,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::contact::{ContactBody, ContactPoint};
    use crate::lcp::lemke::{LemkeOptions, Outcome};
    use crate::math::{Mat3, Point};

    /// A unit cube of mass `m` resting on the ground on its four bottom corners, pushed
    /// sideways by `push` (N) through its centre.
    fn pushed_cube(m: f64, mu: f64, push: f64) -> ContactSystem {
        let g = 9.81;
        let inertia = m / 6.0; // m (1² + 1²) / 12
        let body = ContactBody {
            inverse_mass: 1.0 / m,
            inverse_inertia: Mat3::identity() / inertia,
            center_of_mass: Point::new(0.0, 0.0, 0.5),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            force: Vec3::new(push, 0.0, -m * g),
            torque: Vec3::zeros(),
        };
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        let points: Vec<ContactPoint> = corners
            .iter()
            .map(|&(x, y)| {
                ContactPoint::new(Some(0), None, Point::new(x, y, 0.0), Vec3::z()).with_friction(mu)
            })
            .collect();
        ContactSystem::new(&[body], &points, 1e-6).expect("a valid system")
    }

    /// The sticking problem of `system` (compliances 1e-9) and Lemke's solution of it.
    fn solved(system: &ContactSystem) -> (StickingLcp, DVector<f64>) {
        let lcp = StickingLcp::new(system, 1e-9, 1e-9, &[]).expect("factored");
        let outcome =
            crate::lcp::lemke::solve(&lcp.matrix, &lcp.vector, None, &LemkeOptions::default())
                .expect("a well-posed LCP");
        let Outcome::Solution(s) = outcome else {
            panic!("no solution: {outcome:?}")
        };
        (lcp, s.z)
    }

    #[test]
    fn a_pushed_cube_below_its_friction_bound_is_held_by_forces_summing_to_its_loads() {
        // Statics: the contact forces balance gravity m g and the push exactly, and the
        // friction needed, push / (m g) = 0.2, is inside μ = 0.5, so the sticking answer is
        // the box model's.
        let (m, push) = (2.0, 0.2 * 2.0 * 9.81);
        let (lcp, z) = solved(&pushed_cube(m, 0.5, push));
        assert!(lcp.within_cones(&z, 1e-9));
        let total: Vec3 = lcp.contact_forces(&z).iter().sum();
        // Compliance 1e-9 of the coupling scale: the balance holds to that order.
        assert!(
            (total - Vec3::new(-push, 0.0, m * 9.81)).norm() < 1e-6 * m * 9.81,
            "{total}"
        );
    }

    #[test]
    fn a_cube_pushed_past_its_friction_bound_is_not_answered_by_sticking() {
        // push / (m g) = 0.8 > μ = 0.5: static friction cannot hold it (Coulomb), so the
        // forces the sticking problem finds leave the cone.
        let (m, push) = (2.0, 0.8 * 2.0 * 9.81);
        let (lcp, z) = solved(&pushed_cube(m, 0.5, push));
        assert!(!lcp.within_cones(&z, 1e-9));
    }
}
