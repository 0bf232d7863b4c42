//! A model's dynamics in the model file's own coordinates — the ones MuJoCo uses for `qpos`,
//! `qvel`, `qacc` and `mj_fullM` — for checking this engine against MuJoCo and Pinocchio
//! (`impulse dynamics`).
//!
//! The engine's coordinates differ only for ball and free joints, because a link's frame here
//! is its centre-of-mass principal frame (Mirtich's link frames, `multibody::tree`) and a
//! spherical joint's frame is aligned with the world at the reference configuration:
//!
//! | joint | model coordinates (MuJoCo) | engine coordinates |
//! |---|---|---|
//! | hinge, slide (URDF revolute, continuous, prismatic) | angle or distance | the same |
//! | ball | quaternion `w x y z` of the child body frame relative to its reference orientation; angular velocity in the child body frame | quaternion of the joint's successor frame; angular velocity in it |
//! | free (URDF floating) | position of the body frame's origin and its quaternion `w x y z` in the world for a root; inside a tree (URDF only), relative to the joint's origin (the child's reference pose in its parent, as Pinocchio); velocity `[ẋ (those axes); ω (body axes)]` | pose of the link (centre-of-mass principal) frame in the parent's link frame; velocity `[ω; v]`, both in link axes, `v` the centre's velocity relative to the parent |
//! | planar (URDF) | `[x, y, θ]`, rates `[ẋ, ẏ, θ̇]` in the joint frame | the same |
//!
//! With `R` the child body frame's rotation in the ball joint's successor frame,
//! `q_model = R⁻¹ q R` and `ω_model = R⁻¹ ω`. For a free joint, with `(R_c, c)` the link frame
//! in the body frame, `e = −R_cᵀ c` the body origin in link coordinates, `(R_p, t_p)` the
//! parent's link frame in the frame the coordinates are measured in, and `R` the link's
//! rotation in the parent's link frame:
//!
//! `ẋ = R_p R (v + ω × e)`, `ω_model = R_c ω`, and by differentiating,
//! `ẍ = R_p R (ω × (v + ω × e) + v̇ + ω̇ × e)`, `ω̇_model = R_c ω̇`.
//!
//! Velocities map linearly, `qvel = A v`, so forces map by power (`τ_engine = Aᵀ τ_model`) and
//! the mass matrix as a quadratic form (`M = A⁻ᵀ H A⁻¹`).

use nalgebra::{DMatrix, DVector};

use super::Model;
use crate::math::{Mat3, Pose, Quat, Vec3, cross_matrix};
use crate::multibody::build::{BodyLookup, build};
use crate::multibody::joint::quaternion;
use crate::multibody::{AppliedForces, JointKind, Tree, Workspace};

/// Where one joint's coordinates are in the model's `qpos` and `qvel`.
#[derive(Clone, Debug, PartialEq)]
pub struct JointCoordinates {
    /// The joint's name in the file.
    pub name: String,
    /// `revolute`, `prismatic`, `spherical`, `floating` or `planar`.
    pub kind: &'static str,
    /// First index in `qpos`.
    pub qpos: usize,
    /// Number of position coordinates.
    pub nq: usize,
    /// First index in `qvel` (the degree of freedom).
    pub dof: usize,
    /// Number of velocity coordinates.
    pub nv: usize,
}

/// How one joint's engine coordinates map to the model's.
#[derive(Clone, Debug)]
enum Map {
    Same,
    /// `R`: the child body frame's rotation in the successor frame.
    Ball {
        r: Quat,
    },
    /// The parent's link frame in the frame the coordinates are measured in (the world for a
    /// root), and the child's link frame in its body frame.
    Free {
        parent: Pose,
        child: Pose,
    },
}

/// Forward dynamics and the mass matrix of a model in its file's coordinates.
pub struct ModelDynamics {
    tree: Tree,
    maps: Vec<Map>,
    joints: Vec<JointCoordinates>,
    gravity: Vec3,
    ws: Workspace,
}

impl ModelDynamics {
    /// Builds the model's multibody (as a scene would, with joint limits left out: MuJoCo's
    /// are constraints, this engine's are stops, and neither acts inside the range). Gravity
    /// is the model's (MJCF `<option>`), else `[0, 0, −9.81]`, unless given.
    pub fn new(model: &Model, gravity: Option<Vec3>) -> Result<Self, String> {
        let desc = model
            .multibody
            .as_ref()
            .ok_or_else(|| format!("model `{}` has no moving parts", model.name))?;
        let lookup = |name: &str| {
            if model.fixed_bodies.iter().any(|b| b.name == name) {
                BodyLookup::Fixed
            } else {
                BodyLookup::Missing
            }
        };
        let built = build(desc, &lookup).map_err(|e| e.to_string())?;
        let (mut tree, reference) = (built.tree, built.q);
        let n = tree.links().len();
        for i in 0..n {
            let p = &mut tree.link_mut(i).joint.passive;
            p.limits.fill((f64::NEG_INFINITY, f64::INFINITY));
        }
        let mut maps = Vec::with_capacity(n);
        let mut joints = Vec::with_capacity(n);
        for link in tree.links() {
            let j = &link.joint;
            let map = match j.kind {
                JointKind::Spherical => Map::Ball {
                    r: (j.successor.inverse() * link.body_to_model.inverse()).rotation,
                },
                // An MJCF free joint's coordinates are in the world (its parent's link frame
                // for a floating joint inside the tree); a URDF floating joint measures from
                // its origin, the child's reference pose in its parent (as Pinocchio does):
                // the parent's link frame seen from there is `B_c T₀⁻¹`, with `T₀` the
                // joint's reference coordinates.
                JointKind::Floating => Map::Free {
                    parent: match (model.from_origin.contains(&j.name), link.parent) {
                        (false, None) => Pose::identity(),
                        (false, Some(p)) => tree.links()[p].body_to_model,
                        (true, _) => {
                            let qi = j.q_index;
                            let t0 = Pose::from_parts(
                                nalgebra::Translation3::new(
                                    reference[qi],
                                    reference[qi + 1],
                                    reference[qi + 2],
                                ),
                                quaternion(&reference[qi + 3..qi + 7]),
                            );
                            link.body_to_model * t0.inverse()
                        }
                    },
                    child: link.body_to_model,
                },
                _ => Map::Same,
            };
            maps.push(map);
            if j.nv() > 0 {
                joints.push(JointCoordinates {
                    name: j.name.clone(),
                    kind: j.kind.name(),
                    qpos: j.q_index,
                    nq: j.nq(),
                    dof: j.v_index,
                    nv: j.nv(),
                });
            }
        }
        Ok(Self {
            ws: Workspace::new(n),
            tree,
            maps,
            joints,
            gravity: gravity
                .or(model.gravity)
                .unwrap_or(Vec3::new(0.0, 0.0, -9.81)),
        })
    }

    /// The joints with degrees of freedom, in coordinate order.
    pub fn joints(&self) -> &[JointCoordinates] {
        &self.joints
    }

    /// Length of `qpos`.
    pub fn nq(&self) -> usize {
        self.tree.nq()
    }

    /// Length of `qvel` (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.tree.nv()
    }

    /// Gravity used.
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    fn check(&self, qpos: &[f64], qvel: &[f64], tau: Option<&[f64]>) -> Result<(), String> {
        let (nq, nv) = (self.nq(), self.nv());
        if qpos.len() != nq || qvel.len() != nv || tau.is_some_and(|t| t.len() != nv) {
            return Err(format!(
                "expected qpos of length {nq} and qvel (and tau) of length {nv}, found {}, {}{}",
                qpos.len(),
                qvel.len(),
                tau.map_or(String::new(), |t| format!(", {}", t.len()))
            ));
        }
        if !qpos
            .iter()
            .chain(qvel)
            .chain(tau.unwrap_or(&[]))
            .all(|x| x.is_finite())
        {
            return Err("the state must be finite".into());
        }
        Ok(())
    }

    /// The engine's `(q, v)` for the model's `(qpos, qvel)`.
    fn to_engine(&self, qpos: &[f64], qvel: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut q = qpos.to_vec();
        let mut v = qvel.to_vec();
        for (link, map) in self.tree.links().iter().zip(&self.maps) {
            let (qi, vi) = (link.joint.q_index, link.joint.v_index);
            match map {
                Map::Same => {}
                Map::Ball { r } => {
                    let qm = quaternion(&qpos[qi..qi + 4]);
                    write_quat(&(r * qm * r.inverse()), &mut q[qi..qi + 4]);
                    let w = r * Vec3::from_column_slice(&qvel[vi..vi + 3]);
                    v[vi..vi + 3].copy_from_slice(w.as_slice());
                }
                Map::Free { parent, child } => {
                    let x = Vec3::from_column_slice(&qpos[qi..qi + 3]);
                    let rt = quaternion(&qpos[qi + 3..qi + 7]);
                    let e = -(child.rotation.inverse() * child.translation.vector);
                    let r = parent.rotation.inverse() * rt * child.rotation;
                    let t = parent.rotation.inverse() * (x - parent.translation.vector) - r * e;
                    q[qi..qi + 3].copy_from_slice(t.as_slice());
                    write_quat(&r, &mut q[qi + 3..qi + 7]);
                    let x_dot = Vec3::from_column_slice(&qvel[vi..vi + 3]);
                    let w =
                        child.rotation.inverse() * Vec3::from_column_slice(&qvel[vi + 3..vi + 6]);
                    let u = (parent.rotation * r).inverse() * x_dot - w.cross(&e);
                    v[vi..vi + 3].copy_from_slice(w.as_slice());
                    v[vi + 3..vi + 6].copy_from_slice(u.as_slice());
                }
            }
        }
        (q, v)
    }

    /// `A` (engine velocities → model velocities) and `A⁻¹` at `q`, as dense matrices.
    fn velocity_maps(&self, q: &[f64]) -> (DMatrix<f64>, DMatrix<f64>) {
        let nv = self.nv();
        let mut a = DMatrix::identity(nv, nv);
        let mut a_inv = DMatrix::identity(nv, nv);
        for (link, map) in self.tree.links().iter().zip(&self.maps) {
            let vi = link.joint.v_index;
            let qi = link.joint.q_index;
            match map {
                Map::Same => {}
                Map::Ball { r } => {
                    // ω_model = R⁻¹ ω.
                    let m = rotation(r);
                    a.view_mut((vi, vi), (3, 3)).copy_from(&m.transpose());
                    a_inv.view_mut((vi, vi), (3, 3)).copy_from(&m);
                }
                Map::Free { parent, child } => {
                    let r = quaternion(&q[qi + 3..qi + 7]);
                    let e = -(child.rotation.inverse() * child.translation.vector);
                    let prr = rotation(&(parent.rotation * r));
                    let rc = rotation(&child.rotation);
                    let ex = cross_matrix(&e);
                    // [ẋ; ω_m] = [[−R_p R [e]×, R_p R], [R_c, 0]] [ω; v].
                    a.view_mut((vi, vi), (3, 3)).copy_from(&(-prr * ex));
                    a.view_mut((vi, vi + 3), (3, 3)).copy_from(&prr);
                    a.view_mut((vi + 3, vi), (3, 3)).copy_from(&rc);
                    a.view_mut((vi + 3, vi + 3), (3, 3)).fill(0.0);
                    // [ω; v] = [[0, R_cᵀ], [(R_p R)ᵀ, [e]× R_cᵀ]] [ẋ; ω_m].
                    a_inv.view_mut((vi, vi), (3, 3)).fill(0.0);
                    a_inv
                        .view_mut((vi, vi + 3), (3, 3))
                        .copy_from(&rc.transpose());
                    a_inv
                        .view_mut((vi + 3, vi), (3, 3))
                        .copy_from(&prr.transpose());
                    a_inv
                        .view_mut((vi + 3, vi + 3), (3, 3))
                        .copy_from(&(ex * rc.transpose()));
                }
            }
        }
        (a, a_inv)
    }

    /// Joint accelerations `qacc` (model coordinates) at `(qpos, qvel)` under the generalized
    /// forces `tau` (MuJoCo's `qfrc_applied`), gravity, joint springs and dampers, by the
    /// articulated-body algorithm.
    pub fn forward_dynamics(
        &mut self,
        qpos: &[f64],
        qvel: &[f64],
        tau: &[f64],
    ) -> Result<Vec<f64>, String> {
        self.check(qpos, qvel, Some(tau))?;
        let (q, v) = self.to_engine(qpos, qvel);
        let (a, _) = self.velocity_maps(&q);
        let mut forces: Vec<f64> = (a.transpose() * DVector::from_column_slice(tau))
            .iter()
            .copied()
            .collect();
        self.tree.add_passive_forces(&q, &v, &mut forces);
        let applied = AppliedForces::zero(self.nv(), self.tree.links().len());
        let mut v_dot = vec![0.0; self.nv()];
        self.tree.forward_dynamics(
            &q,
            &v,
            &forces,
            &applied,
            &self.gravity,
            &mut self.ws,
            &mut v_dot,
        );
        Ok(self.to_model_acceleration(&q, &v, &v_dot))
    }

    /// The engine's `v̇` as the model's `qacc`.
    fn to_model_acceleration(&self, q: &[f64], v: &[f64], v_dot: &[f64]) -> Vec<f64> {
        let mut qacc = v_dot.to_vec();
        for (link, map) in self.tree.links().iter().zip(&self.maps) {
            let (qi, vi) = (link.joint.q_index, link.joint.v_index);
            match map {
                Map::Same => {}
                Map::Ball { r } => {
                    let w_dot = r.inverse() * Vec3::from_column_slice(&v_dot[vi..vi + 3]);
                    qacc[vi..vi + 3].copy_from_slice(w_dot.as_slice());
                }
                Map::Free { parent, child } => {
                    let r = quaternion(&q[qi + 3..qi + 7]);
                    let e = -(child.rotation.inverse() * child.translation.vector);
                    let w = Vec3::from_column_slice(&v[vi..vi + 3]);
                    let u = Vec3::from_column_slice(&v[vi + 3..vi + 6]);
                    let w_dot = Vec3::from_column_slice(&v_dot[vi..vi + 3]);
                    let u_dot = Vec3::from_column_slice(&v_dot[vi + 3..vi + 6]);
                    // ẍ = R_p R (ω × (v + ω × e) + v̇ + ω̇ × e).
                    let x_ddot = parent.rotation
                        * (r * (w.cross(&(u + w.cross(&e))) + u_dot + w_dot.cross(&e)));
                    qacc[vi..vi + 3].copy_from_slice(x_ddot.as_slice());
                    let wm = child.rotation * w_dot;
                    qacc[vi + 3..vi + 6].copy_from_slice(wm.as_slice());
                }
            }
        }
        qacc
    }

    /// The joint-space mass matrix at `qpos` in model coordinates (MuJoCo's `mj_fullM`),
    /// row-major, armature included.
    pub fn mass_matrix(&mut self, qpos: &[f64]) -> Result<Vec<f64>, String> {
        let zeros = vec![0.0; self.nv()];
        self.check(qpos, &zeros, None)?;
        let (q, _) = self.to_engine(qpos, &zeros);
        let h = self.tree.mass_matrix(&q, &mut self.ws);
        let (_, a_inv) = self.velocity_maps(&q);
        let m = a_inv.transpose() * h * &a_inv;
        let nv = self.nv();
        let mut out = Vec::with_capacity(nv * nv);
        for i in 0..nv {
            for j in 0..nv {
                out.push(m[(i, j)]);
            }
        }
        Ok(out)
    }

    /// Forward dynamics in the engine's own coordinates, for timing the articulated-body
    /// algorithm alone: `v̇` for `(q, v)` converted once.
    pub fn time_forward_dynamics(
        &mut self,
        qpos: &[f64],
        qvel: &[f64],
        tau: &[f64],
        calls: usize,
    ) -> Result<std::time::Duration, String> {
        self.check(qpos, qvel, Some(tau))?;
        let (q, v) = self.to_engine(qpos, qvel);
        let applied = AppliedForces::zero(self.nv(), self.tree.links().len());
        let mut v_dot = vec![0.0; self.nv()];
        let mut forces = vec![0.0; self.nv()];
        let start = std::time::Instant::now();
        for _ in 0..calls {
            forces.copy_from_slice(tau);
            self.tree.add_passive_forces(&q, &v, &mut forces);
            self.tree.forward_dynamics(
                &q,
                &v,
                &forces,
                &applied,
                &self.gravity,
                &mut self.ws,
                &mut v_dot,
            );
            std::hint::black_box(&v_dot);
        }
        Ok(start.elapsed())
    }
}

fn rotation(q: &Quat) -> Mat3 {
    q.to_rotation_matrix().into_inner()
}

fn write_quat(q: &Quat, out: &mut [f64]) {
    crate::multibody::joint::write_quaternion(q, out);
}
