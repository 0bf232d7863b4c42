//! Impulses on multibodies: the articulated-body collision matrix of a link (Mirtich §5.3.3,
//! Fig. 5.9 `compMultibodyKi`) and the propagation of a collision impulse through the whole
//! tree (§5.3.4, Fig. 5.10 `propagateImpulse`).
//!
//! Over an infinitesimal collision only the impulse matters: velocities, gravity and joint
//! forces drop out, and the ABA equations become linear in the impulse (§5.3.2). With the
//! articulated inertias `I^A` and joint factors `U = I^A S`, `D⁻¹` of the current
//! configuration (the same as forward dynamics uses):
//!
//! - the colliding link `k` has articulated z.a. impulse `Y_k = −p̂` (eq. 5.7; Lemma 8);
//! - up the path to the root, `Y_λ = ⁱX_λᵀ (Y_i − U D⁻¹ Sᵀ Y_i)` (eq. 5.8); off the path `Y = 0`
//!   (Lemma 9);
//! - down the tree, `Δq̇_i = D⁻¹ (−Sᵀ Y_i − Uᵀ ⁱX_λ Δv_λ)` and `Δv_i = ⁱX_λ Δv_λ + S Δq̇_i`
//!   (eqs. 5.9–5.10), from `Δv_0 = 0` (erratum 16: the thesis writes `â_0 ← 0`).
//!
//! For a floating base this gives `Δv_1 = −(I^A_1)⁻¹ Y_1` as in the thesis.
//!
//! Mirtich's eq. 5.11 for mapping the contact impulse to a spatial impulse is inconsistent with
//! his own text (erratum 15). Derived here: an impulse `p` at the point `ρ` (link coordinates,
//! from the centre of mass) is the spatial impulse `[ρ × p; p]` about the link origin, and the
//! point's velocity change is `Δv_O + Δω × ρ`. Tested by V20 (a single free link gives the
//! rigid-body `K = 𝟙/m − ρ̃ I⁻¹ ρ̃`).

use super::joint::MAX_JOINT_DOFS;
use super::spatial::{SpatialVec, angular, linear, spatial};
use super::tree::{Tree, Workspace};
use crate::math::{Mat3, Vec3};

impl Tree {
    /// The spatial velocity change of link `k` (link coordinates) under a spatial impulse `p̂`
    /// on link `k` (link coordinates), O(depth). Needs [`Tree::positions`] and
    /// [`Tree::articulated_inertias`] (or forward dynamics) in `ws` for the current `q`.
    pub fn link_impulse_response(
        &self,
        k: usize,
        impulse: &SpatialVec,
        ws: &Workspace,
    ) -> SpatialVec {
        let links = self.links();
        // Path from k up to its root, and the z.a. impulses along it.
        let mut path = Vec::with_capacity(16);
        let mut y = Vec::with_capacity(16);
        let mut i = k;
        let mut yi = -impulse;
        loop {
            path.push(i);
            y.push(yi);
            let Some(p) = links[i].parent else { break };
            yi = ws.x_parent[i].inverse_apply_force(&self.reduce_impulse(i, &yi, ws));
            i = p;
        }
        // Down the path.
        let mut dv = SpatialVec::zeros();
        for (&i, yi) in path.iter().zip(&y).rev() {
            let inherited = if links[i].parent.is_some() {
                ws.x_parent[i].apply_motion(&dv)
            } else {
                SpatialVec::zeros()
            };
            dv = inherited + self.joint_velocity_jump(i, yi, &inherited, ws, None);
        }
        dv
    }

    /// Joint velocity changes of the whole tree under a spatial impulse `p̂` on link `k` (link
    /// coordinates), O(n): writes `Δv` into `dv`. Needs the same workspace as
    /// [`Tree::link_impulse_response`].
    pub fn impulse_response(&self, k: usize, impulse: &SpatialVec, ws: &Workspace, dv: &mut [f64]) {
        let links = self.links();
        let n = links.len();
        let mut y = vec![SpatialVec::zeros(); n];
        let mut i = k;
        y[k] = -impulse;
        while let Some(p) = links[i].parent {
            y[p] = ws.x_parent[i].inverse_apply_force(&self.reduce_impulse(i, &y[i], ws));
            i = p;
        }
        let mut link_dv = vec![SpatialVec::zeros(); n];
        for i in 0..n {
            let inherited = match links[i].parent {
                Some(p) => ws.x_parent[i].apply_motion(&link_dv[p]),
                None => SpatialVec::zeros(),
            };
            let v_index = links[i].joint.v_index;
            let nv = links[i].joint.nv();
            link_dv[i] = inherited
                + self.joint_velocity_jump(
                    i,
                    &y[i],
                    &inherited,
                    ws,
                    Some(&mut dv[v_index..v_index + nv]),
                );
        }
    }

    /// `Y − U D⁻¹ Sᵀ Y`: the part of an articulated z.a. impulse the joint passes on.
    fn reduce_impulse(&self, i: usize, y: &SpatialVec, ws: &Workspace) -> SpatialVec {
        let nv = self.links()[i].joint.nv();
        let mut st_y = [0.0; MAX_JOINT_DOFS];
        for (k, value) in st_y.iter_mut().enumerate().take(nv) {
            *value = ws.s[i][k].dot(y);
        }
        let mut out = *y;
        for j in 0..nv {
            let mut d_inv_st_y = 0.0;
            for (k, value) in st_y.iter().enumerate().take(nv) {
                d_inv_st_y += ws.d_inv[i][(j, k)] * value;
            }
            out -= ws.u[i][j] * d_inv_st_y;
        }
        out
    }

    /// `S Δq̇` for joint `i` with `Δq̇ = D⁻¹ (−Sᵀ Y − Uᵀ Δa')` (Mirtich eq. 5.9); also writes
    /// `Δq̇` if asked.
    fn joint_velocity_jump(
        &self,
        i: usize,
        y: &SpatialVec,
        inherited: &SpatialVec,
        ws: &Workspace,
        out: Option<&mut [f64]>,
    ) -> SpatialVec {
        let nv = self.links()[i].joint.nv();
        let mut rhs = [0.0; MAX_JOINT_DOFS];
        for (k, value) in rhs.iter_mut().enumerate().take(nv) {
            *value = -ws.s[i][k].dot(y) - ws.u[i][k].dot(inherited);
        }
        let mut jump = SpatialVec::zeros();
        let mut dq = [0.0; MAX_JOINT_DOFS];
        for j in 0..nv {
            for (k, value) in rhs.iter().enumerate().take(nv) {
                dq[j] += ws.d_inv[i][(j, k)] * value;
            }
            jump += ws.s[i][j] * dq[j];
        }
        if let Some(out) = out {
            out.copy_from_slice(&dq[..nv]);
        }
        jump
    }

    /// The spatial impulse about link `k`'s origin (link coordinates) of a world impulse
    /// `impulse` applied at the world point `point`, and the point in link coordinates.
    pub fn point_impulse(
        &self,
        k: usize,
        point: &Vec3,
        impulse: &Vec3,
        ws: &Workspace,
    ) -> (SpatialVec, Vec3) {
        let x = &ws.x_world[k];
        let rho = x.rotation * (point - x.translation);
        let p = x.rotation * impulse;
        (spatial(&rho.cross(&p), &p), rho)
    }

    /// The collision matrix `K_k` of link `k` at the world point `point`, in world
    /// coordinates: the change of the point's velocity per unit impulse there, `Δu = K p`
    /// (Mirtich eqs. 5.2, 5.13–5.14). Three test impulses through the articulated inertias,
    /// O(depth). Symmetric positive semi-definite; singular when joints or the ground take
    /// some directions (e.g. rank 1 for a grounded one-link pendulum).
    pub fn collision_matrix(&self, k: usize, point: &Vec3, ws: &Workspace) -> Mat3 {
        let e = ws.x_world[k].rotation;
        let mut k_world = Mat3::zeros();
        for axis in 0..3 {
            let mut unit = Vec3::zeros();
            unit[axis] = 1.0;
            let (impulse, rho) = self.point_impulse(k, point, &unit, ws);
            let dv = self.link_impulse_response(k, &impulse, ws);
            let du = linear(&dv) + angular(&dv).cross(&rho);
            k_world.set_column(axis, &e.tr_mul(&du));
        }
        // Symmetrise away rounding (K is symmetric in exact arithmetic).
        (k_world + k_world.transpose()) * 0.5
    }
}

/// The pseudo-inverse of a symmetric positive semi-definite 3×3 `K` by SVD (Mirtich §5.3.4,
/// Fig. 5.12): for a requested velocity change `Δu` it gives the minimum-norm impulse, with no
/// component in `K`'s null space. Singular values below `1e-12 × σ_max` count as zero.
pub fn pseudo_inverse(k: &Mat3) -> Mat3 {
    let svd = k.svd(true, true);
    let sigma_max = svd.singular_values.max();
    let threshold = 1e-12 * sigma_max;
    svd.pseudo_inverse(threshold)
        .unwrap_or_else(|_| Mat3::zeros())
}

/// The rank of a collision matrix (singular values above `1e-9 × σ_max`).
pub fn collision_rank(k: &Mat3) -> usize {
    let s = k.svd(false, false).singular_values;
    let max = s.max();
    s.iter().filter(|&&x| x > 1e-9 * max).count()
}
