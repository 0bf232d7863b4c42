//! §14.2.3's box model at the contacts that may slip, with every other non-sliding contact
//! sticking and its friction eliminated as in [`super::sticking`].
//!
//! When the sticking problem's friction leaves the cone at a few contacts of a pile, posing
//! the box model over the whole pile costs seven unknowns a contact (a 36-contact pyramid of
//! six cubes: 252), and Lemke's work grows as the cube of that. Only the contacts whose
//! friction left the cone need the box's unknowns: the others stick (`a_T = 0`), and their
//! friction is eliminated exactly as the sticking problem does. With `E` the friction rows of
//! the sticking contacts and `R` every other force component,
//!
//! ```text
//!   a_E = W_EE t_E + W_ER F_R + b_E = 0   ⇒   t_E = −S⁺ (W_ER F_R + b_E),   S = W_EE + δ_t I
//!   a_R = (W_RR − W_RE S⁺ W_ER) F_R + (b_R − W_RE S⁺ b_E)
//! ```
//!
//! and the box model is posed over the coupling `a_R` (one unknown at a sticking contact,
//! seven at a boxed one). Its answer is the box model's whenever the sticking contacts'
//! friction lies in their cones; a contact whose friction leaves its cone joins the boxed
//! ones (even pushing nothing: released, it would hold no friction at all), and the problem
//! is solved again. The boxed set only grows within one evaluation, so the rounds end, at
//! worst at the whole box model.

use nalgebra::{DMatrix, DVector};

use super::contact::{ContactLcp, ContactSystem};
use super::sticking::EliminatedFriction;
use crate::math::{Mat3, Vec3};

/// The partly boxed problem: an LCP over the sticking contacts' normal forces and the boxed
/// contacts' box unknowns, and the sticking contacts' friction as a function of its answer.
#[derive(Clone, Debug)]
pub(crate) struct MixedLcp {
    /// The LCP (without compliance on its diagonal: the caller's).
    pub(crate) lcp: ContactLcp,
    /// The sticking contacts' friction `t_E` as a function of `F`, every contact's force in
    /// its frame (3 a contact).
    eliminated: EliminatedFriction,
    frames: Vec<Mat3>,
}

impl MixedLcp {
    /// The problem of `system` with the box model's unknowns at the contacts in `boxed`, and
    /// the other non-sliding contacts with friction sticking, with tangential compliance
    /// `δ_t = tangent · s` (`s` the largest coupling entry). `None` for non-finite input.
    pub(crate) fn new(system: &ContactSystem, tangent: f64, boxed: &[bool]) -> Option<Self> {
        let n = system.n;
        let mut held = Vec::with_capacity(n);
        let mut rows = 0;
        let contacts = system.friction.iter().zip(&system.sliding).zip(boxed);
        for ((&mu, &sliding), &is_boxed) in contacts {
            if mu > 0.0 && !sliding && !is_boxed {
                held.push(Some(rows));
                rows += 2;
            } else {
                held.push(None);
            }
        }
        // The whole coupling, 3 rows and columns a contact, and the eliminated rows' places
        // (`e_rows`).
        let size = 3 * n;
        let w = DMatrix::from_fn(size, size, |r, c| {
            system.block(r / 3, c / 3)[(r % 3, c % 3)]
        });
        let scale = w.amax();
        if !scale.is_finite() {
            return None;
        }
        let mut e_rows = Vec::with_capacity(rows);
        for (i, h) in held.iter().enumerate() {
            if h.is_some() {
                e_rows.extend([3 * i + 1, 3 * i + 2]);
            }
        }
        let b = DVector::from_fn(size, |r, _| system.free[r / 3][r % 3]);
        let (w_ee, w_e, w_ce, b_e) = if rows > 0 {
            let w_ee = DMatrix::from_fn(rows, rows, |r, c| w[(e_rows[r], e_rows[c])]);
            // W_E· with the eliminated columns left out (t_E is not part of F).
            let mut w_e = DMatrix::from_fn(rows, size, |r, c| w[(e_rows[r], c)]);
            let mut w_ce = DMatrix::from_fn(size, rows, |r, c| w[(r, e_rows[c])]);
            for &c in &e_rows {
                w_e.column_mut(c).fill(0.0);
                w_ce.row_mut(c).fill(0.0);
            }
            let b_e = DVector::from_fn(rows, |r, _| b[e_rows[r]]);
            (w_ee, w_e, w_ce, b_e)
        } else {
            (
                DMatrix::zeros(0, 0),
                DMatrix::zeros(0, size),
                DMatrix::zeros(size, 0),
                DVector::zeros(0),
            )
        };
        let eliminated =
            EliminatedFriction::new(w_ee, tangent * scale, &w_e, &b_e, held, &system.friction)?;
        let (coupling, free) = if eliminated.any() {
            (
                &w + &w_ce * eliminated.gain(),
                &b + &w_ce * eliminated.offset(),
            )
        } else {
            (w, b)
        };
        let mut blocks = vec![Mat3::zeros(); n * n];
        for i in 0..n {
            for j in 0..n {
                blocks[i * n + j] = coupling.fixed_view::<3, 3>(3 * i, 3 * j).into_owned();
            }
        }
        let free: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new(free[3 * i], free[3 * i + 1], free[3 * i + 2]))
            .collect();
        let lcp = system.with_coupling(blocks, free).partly_boxed(boxed);
        if !(lcp.matrix.iter().all(|v| v.is_finite()) && lcp.vector.iter().all(|v| v.is_finite())) {
            return None;
        }
        Some(MixedLcp {
            lcp,
            eliminated,
            frames: system.frames.clone(),
        })
    }

    /// Each contact's force in its frame for the LCP's answer `z`, the sticking contacts'
    /// friction included, and that friction `t_E` (empty when no contact sticks).
    fn local_forces(&self, z: &DVector<f64>) -> (Vec<Vec3>, DVector<f64>) {
        let mut local: Vec<Vec3> = self
            .lcp
            .contact_forces(z)
            .iter()
            .zip(&self.frames)
            .map(|(f, frame)| frame.transpose() * f)
            .collect();
        if !self.eliminated.any() {
            return (local, DVector::zeros(0));
        }
        let flat = DVector::from_iterator(
            3 * local.len(),
            local.iter().flat_map(|f| f.iter().copied()),
        );
        let f_n: Vec<f64> = local.iter().map(|f| f.x).collect();
        let t = self.eliminated.forces(&flat, &f_n);
        for (f, held) in local.iter_mut().zip(&self.eliminated.held) {
            if let Some(r) = *held {
                f.y = t[r];
                f.z = t[r + 1];
            }
        }
        (local, t)
    }

    /// The contact forces on A (world) for the LCP's answer `z`.
    pub(crate) fn contact_forces(&self, z: &DVector<f64>) -> Vec<Vec3> {
        self.local_forces(z)
            .0
            .iter()
            .zip(&self.frames)
            .map(|(f, frame)| frame * f)
            .collect()
    }

    /// The sticking contacts whose friction leaves its cone, `|tᵢ| > μ f_N,i`, by more than
    /// `tolerance` relative to the largest normal force.
    pub(crate) fn outside_cones(&self, z: &DVector<f64>, tolerance: f64) -> Vec<usize> {
        let (local, t) = self.local_forces(z);
        let f_n: Vec<f64> = local.iter().map(|f| f.x).collect();
        self.eliminated.outside_cones(&t, &f_n, tolerance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::contact::{ContactBody, ContactPoint};
    use crate::lcp::lemke::{LemkeOptions, Outcome, solve};
    use crate::lcp::sticking::StickingLcp;
    use crate::math::Point;

    /// A unit cube of mass `m` resting on its four bottom corners, pushed sideways by `push`
    /// (N) through its centre (as `sticking`'s tests).
    fn pushed_cube(m: f64, mu: f64, push: f64) -> ContactSystem {
        let body = ContactBody {
            inverse_mass: 1.0 / m,
            inverse_inertia: Mat3::identity() * 6.0 / m,
            center_of_mass: Point::new(0.0, 0.0, 0.5),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            force: Vec3::new(push, 0.0, -m * 9.81),
            torque: Vec3::zeros(),
        };
        let points: Vec<ContactPoint> = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
            .iter()
            .map(|&(x, y)| {
                ContactPoint::new(Some(0), None, Point::new(x, y, 0.0), Vec3::z()).with_friction(mu)
            })
            .collect();
        ContactSystem::new(&[body], &points, 1e-6).expect("a valid system")
    }

    fn solved(lcp: &DMatrix<f64>, q: &DVector<f64>) -> DVector<f64> {
        // The answer's check as loose as the contact groups' (`LEMKE_TOLERANCE`).
        let options = LemkeOptions {
            tolerance: 1e-7,
            ..LemkeOptions::default()
        };
        match solve(lcp, q, None, &options) {
            Ok(Outcome::Solution(s)) => s.z,
            other => panic!("no solution: {other:?}"),
        }
    }

    #[test]
    fn with_nothing_boxed_it_is_the_sticking_problem() {
        // E = every friction row: the same elimination as `StickingLcp`, so the same forces.
        // Four coplanar corners make the normal problem singular but for its compliance δ
        // (1e-9 of the coupling scale here), so rounding in the two orders of elimination is
        // amplified by about 1/δ: 1e-16 / 1e-9 ≈ 1e-7 relative. Measured: 2.7e-8 N in 3.9 N.
        let system = pushed_cube(2.0, 0.5, 0.2 * 2.0 * 9.81);
        let none = [false; 4];
        let mut mixed = MixedLcp::new(&system, 1e-9, &none).expect("finite");
        let sticking = StickingLcp::new(&system, 1e-9, 1e-9, &none).expect("finite");
        for i in 0..4 {
            mixed.lcp.matrix[(i, i)] += sticking.compliance;
        }
        let a = mixed.contact_forces(&solved(&mixed.lcp.matrix, &mixed.lcp.vector));
        let b = sticking.contact_forces(&solved(&sticking.matrix, &sticking.vector));
        for (fa, fb) in a.iter().zip(&b) {
            assert!((fa - fb).norm() < 1e-6 * 2.0 * 9.81, "{fa} vs {fb}");
        }
    }

    #[test]
    fn boxed_contacts_answer_the_box_model_where_the_cube_must_slide() {
        // push / (m g) = 0.8 > μ = 0.5: the cube cannot stick. Every contact boxed is the box
        // model itself; Coulomb then gives friction μ m g against the push. Sticking, the
        // corners would need 0.8 m g of friction in all against at most μ m g = 0.5 m g, so at
        // least one corner's friction leaves its cone.
        let (m, mu, push) = (2.0, 0.5, 0.8 * 2.0 * 9.81);
        let system = pushed_cube(m, mu, push);
        let none = [false; 4];
        let sticking = MixedLcp::new(&system, 1e-9, &none).expect("finite");
        let z = solved(&sticking.lcp.matrix, &sticking.lcp.vector);
        assert!(!sticking.outside_cones(&z, 1e-9).is_empty());
        let all = [true; 4];
        let mut boxed = MixedLcp::new(&system, 1e-9, &all).expect("finite");
        assert_eq!(boxed.lcp.matrix.nrows(), 28);
        let delta = 1e-9 * boxed.lcp.matrix.amax();
        for i in 0..28 {
            boxed.lcp.matrix[(i, i)] += delta;
        }
        let z = solved(&boxed.lcp.matrix, &boxed.lcp.vector);
        let total: Vec3 = boxed.contact_forces(&z).iter().sum();
        // Statics normal to the floor, and friction at its bound μ m g against the push.
        assert!((total.z - m * 9.81).abs() < 1e-6 * m * 9.81, "{total}");
        assert!((total.x + mu * m * 9.81).abs() < 1e-6 * m * 9.81, "{total}");
        assert!(boxed.outside_cones(&z, 1e-9).is_empty());
    }
}
