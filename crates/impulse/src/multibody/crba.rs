//! The joint-space formulation, O(n²)–O(n³): the composite-rigid-body mass matrix `H`
//! (Featherstone RBDA Table 6.2), the bias forces `C` by recursive Newton–Euler inverse dynamics
//! (RBDA Table 5.1), and forward dynamics by solving `H v̇ = Q − C` densely (Mirtich eq. 5.1:
//! `q̈ = H⁻¹(Q − C q̇ − G + Jᵀ f)`).
//!
//! This is the independent oracle for the articulated-body algorithm: it shares only the joint
//! kinematics (transforms and motion subspaces, which are tested against finite differences),
//! and is also what the dense checks of the collision matrix use (`K = J H⁻¹ Jᵀ`).

use nalgebra::{DMatrix, DVector};

use super::spatial::SpatialVec;
use super::tree::{AppliedForces, Tree, Workspace};
use crate::math::Vec3;

impl Tree {
    /// The joint-space inertia matrix `H(q)` by the composite-rigid-body algorithm.
    pub fn mass_matrix(&self, q: &[f64], ws: &mut Workspace) -> DMatrix<f64> {
        self.positions(q, ws);
        let links = self.links();
        let n = links.len();
        let mut composite: Vec<_> = links.iter().map(|l| l.inertia).collect();
        for i in (0..n).rev() {
            if let Some(p) = links[i].parent {
                let add = ws.x_parent[i].inertia_to_a(&composite[i]);
                composite[p] += add;
            }
        }
        let mut h = DMatrix::zeros(self.nv(), self.nv());
        for i in 0..n {
            let ji = &links[i].joint;
            for a in 0..ji.nv() {
                // F = I^c_i S_i[a], carried up the tree as a force.
                let mut f: SpatialVec = composite[i] * ws.s[i][a];
                let row = ji.v_index + a;
                for b in 0..ji.nv() {
                    h[(row, ji.v_index + b)] = f.dot(&ws.s[i][b]);
                }
                h[(row, row)] += ji.passive.armature[a];
                let mut j = i;
                while let Some(p) = links[j].parent {
                    f = ws.x_parent[j].inverse_apply_force(&f);
                    j = p;
                    let jj = &links[j].joint;
                    for b in 0..jj.nv() {
                        let value = f.dot(&ws.s[j][b]);
                        h[(row, jj.v_index + b)] = value;
                        h[(jj.v_index + b, row)] = value;
                    }
                }
            }
        }
        h
    }

    /// Inverse dynamics by recursive Newton–Euler: the joint forces that produce accelerations
    /// `v_dot` at state `(q, v)` under gravity and applied wrenches.
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        v: &[f64],
        v_dot: &[f64],
        applied: &AppliedForces,
        gravity: &Vec3,
        ws: &mut Workspace,
    ) -> DVector<f64> {
        self.positions(q, ws);
        self.velocities(q, v, ws);
        let links = self.links();
        let n = links.len();
        let mut force = vec![SpatialVec::zeros(); n];
        for i in 0..n {
            let joint = &links[i].joint;
            let mut a = ws.bias_acceleration[i];
            if let Some(p) = links[i].parent {
                a += ws.x_parent[i].apply_motion(&ws.acceleration[p]);
            }
            for k in 0..joint.nv() {
                a += ws.s[i][k] * v_dot[joint.v_index + k];
            }
            ws.acceleration[i] = a;
            force[i] = links[i].inertia * a + self.isolated_bias_force(i, gravity, applied, ws);
        }
        let mut tau = DVector::zeros(self.nv());
        for i in (0..n).rev() {
            let joint = &links[i].joint;
            for k in 0..joint.nv() {
                tau[joint.v_index + k] = ws.s[i][k].dot(&force[i])
                    + joint.passive.armature[k] * v_dot[joint.v_index + k];
            }
            if let Some(p) = links[i].parent {
                let carried = ws.x_parent[i].inverse_apply_force(&force[i]);
                force[p] += carried;
            }
        }
        tau
    }

    /// Forward dynamics the dense way: `v̇ = H⁻¹ (Q − C)` with `C` the inverse dynamics at zero
    /// acceleration. `None` if `H` is not positive definite.
    pub fn forward_dynamics_dense(
        &self,
        q: &[f64],
        v: &[f64],
        tau: &[f64],
        applied: &AppliedForces,
        gravity: &Vec3,
        ws: &mut Workspace,
    ) -> Option<DVector<f64>> {
        let zero = vec![0.0; self.nv()];
        let bias = self.inverse_dynamics(q, v, &zero, applied, gravity, ws);
        let h = self.mass_matrix(q, ws);
        let rhs = DVector::from_column_slice(tau) - bias;
        h.cholesky().map(|c| c.solve(&rhs))
    }
}
