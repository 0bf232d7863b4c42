//! Forward dynamics by the articulated-body algorithm, O(n) (Featherstone RBDA Table 7.1;
//! Mirtich §4.4–§4.6, Fig. 4.14 `treeFwdDynamics`).
//!
//! Three passes over the tree:
//! 1. outward: link velocities `v_i`, velocity-product accelerations `c_i`, and each link's own
//!    inertia `I^A_i = I_i` and bias force `p^A_i = v_i ×* I_i v_i − f_i^ext` (gravity enters
//!    here as a force `m g` on every link, so accelerations are true accelerations);
//! 2. inward: `U = I^A S`, `D = Sᵀ U`, `u = Q − Sᵀ p^A`, then each link hands its parent
//!    `I^a = I^A − U D⁻¹ Uᵀ` and `p^a = p^A + I^a c + U D⁻¹ u` (Mirtich eq. 4.34 with the
//!    corrected cached term `Q − ŝ'(Ẑ^A + Î^A ĉ)`, erratum §6.13 of the digest: here
//!    `u − Uᵀ c` folds into the forward pass);
//! 3. outward: `a'_i = ⁱX_λ a_λ + c_i`, `q̈_i = D⁻¹ (u − Uᵀ a'_i)`, `a_i = a'_i + S q̈_i`
//!    (Mirtich eq. 4.32).
//!
//! A floating base is simply a 6-DOF joint to the inertial frame: `S = 𝟙`, so
//! `q̈ = (I^A)⁻¹ (−p^A)` — the thesis's bootstrap `â_1 = −(Î^A_1)⁻¹ Ẑ^A_1` (§4.6).

use super::joint::MAX_JOINT_DOFS;
use super::spatial::SpatialMat;
use super::tree::{AppliedForces, Tree, Workspace};
use crate::math::Vec3;

impl Tree {
    /// Articulated inertias and the joint factors `U`, `D⁻¹` (after [`Tree::positions`]); they
    /// depend on the configuration only. Used by forward dynamics and by impulse response.
    pub fn articulated_inertias(&self, ws: &mut Workspace) {
        for (i, link) in self.links().iter().enumerate() {
            ws.articulated_inertia[i] = link.inertia;
        }
        for i in (0..self.links().len()).rev() {
            let reduced = self.factor_joint(i, ws);
            if let Some(p) = self.links()[i].parent {
                let add = ws.x_parent[i].inertia_to_a(&reduced);
                ws.articulated_inertia[p] += add;
            }
        }
    }

    /// Computes `U_i`, `D_i⁻¹` from `I^A_i` and returns `I^a_i = I^A_i − U D⁻¹ Uᵀ`.
    fn factor_joint(&self, i: usize, ws: &mut Workspace) -> SpatialMat {
        let nv = self.links()[i].joint.nv();
        // D = Sᵀ I^A S + diag(armature): a rotor geared to the coordinate adds inertia along it
        // only (Featherstone RBDA §9.6).
        let armature = &self.links()[i].joint.passive.armature;
        let ia = ws.articulated_inertia[i];
        match nv {
            0 => ia,
            1 => {
                let u = ia * ws.s[i][0];
                let d = ws.s[i][0].dot(&u) + armature[0];
                let d_inv = 1.0 / d;
                ws.u[i][0] = u;
                ws.d_inv[i][(0, 0)] = d_inv;
                ia - u * u.transpose() * d_inv
            }
            _ => {
                // D is nv × nv; pad the unused diagonal with ones to invert it as a 6 × 6.
                let mut d = SpatialMat::identity();
                for k in 0..nv {
                    ws.u[i][k] = ia * ws.s[i][k];
                }
                for j in 0..nv {
                    for k in 0..nv {
                        d[(j, k)] = ws.s[i][j].dot(&ws.u[i][k]);
                    }
                    d[(j, j)] += armature[j];
                }
                let d_inv = d
                    .cholesky()
                    .map(|c| c.inverse())
                    .unwrap_or_else(|| SpatialMat::from_element(f64::NAN));
                ws.d_inv[i] = d_inv;
                let mut reduced = ia;
                for j in 0..nv {
                    for k in 0..nv {
                        reduced -= ws.u[i][j] * ws.u[i][k].transpose() * d_inv[(j, k)];
                    }
                }
                reduced
            }
        }
    }

    /// Forward dynamics: joint accelerations `v̇` for state `(q, v)`, joint forces `tau`
    /// (passive forces not included: add them to `tau` first), applied link wrenches and
    /// gravity. Leaves link velocities and accelerations in `ws`.
    #[allow(clippy::too_many_arguments)]
    pub fn forward_dynamics(
        &self,
        q: &[f64],
        v: &[f64],
        tau: &[f64],
        applied: &AppliedForces,
        gravity: &Vec3,
        ws: &mut Workspace,
        v_dot: &mut [f64],
    ) {
        let links = self.links();
        // Pass 1: kinematics and isolated inertias/bias forces.
        self.positions(q, ws);
        self.velocities(q, v, ws);
        for (i, link) in links.iter().enumerate() {
            ws.articulated_inertia[i] = link.inertia;
            ws.bias_force[i] = self.isolated_bias_force(i, gravity, applied, ws);
        }
        // Pass 2: articulated inertias and bias forces, leaves to root.
        for i in (0..links.len()).rev() {
            let joint = &links[i].joint;
            let nv = joint.nv();
            let reduced = self.factor_joint(i, ws);
            let mut u = [0.0; MAX_JOINT_DOFS];
            for k in 0..nv {
                u[k] = tau[joint.v_index + k] - ws.s[i][k].dot(&ws.bias_force[i]);
            }
            ws.joint_bias[i] = u;
            if let Some(p) = links[i].parent {
                let mut bias = ws.bias_force[i] + reduced * ws.bias_acceleration[i];
                for j in 0..nv {
                    let mut d_inv_u = 0.0;
                    for (k, uk) in u.iter().enumerate().take(nv) {
                        d_inv_u += ws.d_inv[i][(j, k)] * uk;
                    }
                    bias += ws.u[i][j] * d_inv_u;
                }
                let add_inertia = ws.x_parent[i].inertia_to_a(&reduced);
                let add_bias = ws.x_parent[i].inverse_apply_force(&bias);
                ws.articulated_inertia[p] += add_inertia;
                ws.bias_force[p] += add_bias;
            }
        }
        // Pass 3: accelerations, root to leaves.
        for i in 0..links.len() {
            let joint = &links[i].joint;
            let nv = joint.nv();
            let mut a = ws.bias_acceleration[i];
            if let Some(p) = links[i].parent {
                a += ws.x_parent[i].apply_motion(&ws.acceleration[p]);
            }
            let mut rhs = [0.0; MAX_JOINT_DOFS];
            for k in 0..nv {
                rhs[k] = ws.joint_bias[i][k] - ws.u[i][k].dot(&a);
            }
            for j in 0..nv {
                let mut qdd = 0.0;
                for (k, r) in rhs.iter().enumerate().take(nv) {
                    qdd += ws.d_inv[i][(j, k)] * r;
                }
                v_dot[joint.v_index + j] = qdd;
                a += ws.s[i][j] * qdd;
            }
            ws.acceleration[i] = a;
        }
    }
}
