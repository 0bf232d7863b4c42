//! The linkage: links (rigid bodies with mass properties from the project's shapes) in a tree,
//! each moved by its joint, listed so that every parent comes before its children (Mirtich
//! Fig. 4.10 `numberLinks`; Featherstone's regular numbering).
//!
//! Frames. Each link's *link frame* is its body frame: origin at the centre of mass, axes along
//! the principal axes, so its spatial inertia is `[[diag(I), 0], [0, m 𝟙]]` (as Mirtich's link
//! frames F_i, Table 4.1). Joint `i` moves link `i` relative to its parent `λ(i)` (or to the
//! inertial frame for a root): the *predecessor* frame is fixed in the parent's link frame
//! (`predecessor`), the *successor* frame is fixed in the child's link frame (`successor`), and
//! the joint transform `J(q)` places successor in predecessor. So the child's pose in its
//! parent's link frame is `predecessor · J(q) · successor⁻¹`.

use nalgebra::DVector;

use super::joint::{JointKind, MAX_JOINT_DOFS};
use super::spatial::{
    SpatialMat, SpatialVec, Transform, body_inertia, cross_force, cross_motion, spatial,
};
use crate::dynamics::{Material, PlacedShape};
use crate::math::{Mat3, Pose, Vec3};

/// Springs, dampers and position limits acting on a joint's scalar coordinates (Mirtich §5.4:
/// passive elements lumped into the joint forces Q). Each vector has one entry per velocity
/// coordinate; for a spherical joint the "coordinate" is the rotation vector of `q`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassiveElements {
    /// Linear spring stiffness `k` per coordinate: `Q = −k (q − rest)`.
    pub stiffness: Vec<f64>,
    /// Spring rest position per coordinate.
    pub rest: Vec<f64>,
    /// Viscous damping `ρ` per coordinate: `Q = −ρ q̇`.
    pub damping: Vec<f64>,
    /// Position limits `(lower, upper)` per coordinate (infinite for none).
    pub limits: Vec<(f64, f64)>,
    /// Stiffness of the limit stops (one-sided penalty springs).
    pub limit_stiffness: Vec<f64>,
    /// Damping of the limit stops (acts only while the stop is pushed in, and never pulls).
    pub limit_damping: Vec<f64>,
    /// Armature per coordinate: the inertia of a rotor (or the mass of a slider) geared to the
    /// coordinate, felt only along it — added to the joint-space inertia's diagonal, `H_kk + a`
    /// (Featherstone RBDA §9.6 on motor inertia; MuJoCo's `armature`).
    pub armature: Vec<f64>,
}

impl PassiveElements {
    /// No springs, dampers or limits for a joint with `nv` coordinates.
    pub fn none(nv: usize) -> Self {
        Self {
            stiffness: vec![0.0; nv],
            rest: vec![0.0; nv],
            damping: vec![0.0; nv],
            limits: vec![(f64::NEG_INFINITY, f64::INFINITY); nv],
            limit_stiffness: vec![0.0; nv],
            limit_damping: vec![0.0; nv],
            armature: vec![0.0; nv],
        }
    }

    /// True when nothing acts.
    pub fn is_empty(&self) -> bool {
        self.stiffness.iter().all(|&k| k == 0.0)
            && self.damping.iter().all(|&c| c == 0.0)
            && self
                .limits
                .iter()
                .all(|&(lo, hi)| lo == f64::NEG_INFINITY && hi == f64::INFINITY)
    }
}

/// A joint: its kind, where it sits on its two links, and its passive elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// Name (unique in its multibody).
    pub name: String,
    /// Kind.
    pub kind: JointKind,
    /// Pose of the predecessor frame in the parent's link frame (in the world for a root).
    pub predecessor: Pose,
    /// Pose of the successor frame in the child's link frame.
    pub successor: Pose,
    /// Offset of this joint's coordinates in the multibody's `q`.
    pub q_index: usize,
    /// Offset of this joint's velocity coordinates in the multibody's `v`.
    pub v_index: usize,
    /// Springs, dampers and limits.
    pub passive: PassiveElements,
    /// `ᶜX_s`: from the successor frame to the child's link frame (constant).
    successor_x: Transform,
    /// `ˢX_λ`... : from the parent's link frame to the predecessor frame (constant).
    predecessor_x: Transform,
}

impl Joint {
    /// A joint of `kind` placed by `predecessor` and `successor`; indices are set by
    /// [`Tree::new`].
    pub fn new(
        name: impl Into<String>,
        kind: JointKind,
        predecessor: Pose,
        successor: Pose,
    ) -> Self {
        Self {
            name: name.into(),
            kind,
            predecessor,
            successor,
            q_index: 0,
            v_index: 0,
            passive: PassiveElements::none(kind.nv()),
            successor_x: Transform::from_pose(&successor.inverse()),
            predecessor_x: Transform::from_pose(&predecessor),
        }
    }

    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        self.kind.nq()
    }

    /// Number of velocity coordinates.
    pub fn nv(&self) -> usize {
        self.kind.nv()
    }

    /// `ⁱX_λ(q)`: from the parent's link frame (or the world) to the child's link frame.
    pub fn parent_to_child(&self, q: &[f64]) -> Transform {
        let joint = Transform::from_pose(&self.kind.transform(q));
        self.successor_x
            .compose(&joint)
            .compose(&self.predecessor_x)
    }

    /// The columns of the motion subspace in the child's link frame.
    pub fn motion_subspace(&self, q: &[f64], s: &mut [SpatialVec; MAX_JOINT_DOFS]) {
        let mut in_successor = [SpatialVec::zeros(); MAX_JOINT_DOFS];
        self.kind.motion_subspace(q, &mut in_successor);
        for k in 0..self.nv() {
            s[k] = self.successor_x.apply_motion(&in_successor[k]);
        }
    }

    /// `c_J = S̊ q̇` in the child's link frame (the transform to it is constant).
    pub fn bias_acceleration(&self, q: &[f64], v: &[f64]) -> SpatialVec {
        self.successor_x
            .apply_motion(&self.kind.bias_acceleration(q, v))
    }
}

/// One link of a multibody.
#[derive(Clone, Debug)]
pub struct Link {
    /// Name (unique in its multibody).
    pub name: String,
    /// Parent link, or `None` when the joint attaches it to the inertial frame.
    pub parent: Option<usize>,
    /// For a root attached to a fixed body rather than the world: that body's name.
    pub attached_to: Option<String>,
    /// The joint that moves this link.
    pub joint: Joint,
    /// Mass.
    pub mass: f64,
    /// Principal moments of inertia (link frame).
    pub principal_inertia: Vec3,
    /// Transform taking link-frame (body-frame) coordinates to the link's model coordinates.
    pub body_to_model: Pose,
    /// Shapes in the model frame.
    pub shapes: Vec<PlacedShape>,
    /// Surface material.
    pub material: Material,
    /// Named material, if any.
    pub material_name: Option<String>,
    /// Constant force at the centre of mass and torque, world frame.
    pub force: Vec3,
    /// Constant torque, world frame.
    pub torque: Vec3,
    /// Spatial inertia in the link frame.
    pub(crate) inertia: SpatialMat,
}

impl Link {
    /// A link with the given mass properties (link frame at the centre of mass, principal axes).
    pub fn new(
        name: impl Into<String>,
        parent: Option<usize>,
        joint: Joint,
        mass: f64,
        principal_inertia: Vec3,
    ) -> Self {
        Self {
            name: name.into(),
            parent,
            attached_to: None,
            joint,
            mass,
            principal_inertia,
            body_to_model: Pose::identity(),
            shapes: Vec::new(),
            material: Material::default(),
            material_name: None,
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
            inertia: body_inertia(mass, &Mat3::from_diagonal(&principal_inertia)),
        }
    }

    /// Largest distance from the centre of mass to any point of the link's shapes (`r_max` of
    /// Mirtich §5.2.2), from the shapes' bounding radii.
    pub fn bounding_radius(&self) -> f64 {
        let com = self.body_to_model.translation.vector;
        self.shapes
            .iter()
            .map(|s| (s.pose.translation.vector - com).norm() + s.shape.bounding_radius())
            .fold(0.0, f64::max)
    }
}

/// Why links cannot form a multibody.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeError {
    /// A parent index does not come before its child.
    BadOrder { link: String },
    /// A link's mass or inertia is not positive.
    NonPositiveInertia { link: String },
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadOrder { link } => write!(
                f,
                "link `{link}`: its parent must come before it (links are listed parents first)"
            ),
            Self::NonPositiveInertia { link } => write!(
                f,
                "link `{link}`: its mass and principal moments of inertia must all be positive"
            ),
        }
    }
}

impl std::error::Error for TreeError {}

/// A tree of links with its coordinate layout.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    links: Vec<Link>,
    children: Vec<Vec<usize>>,
    nq: usize,
    nv: usize,
}

/// Applied forces on a multibody: generalized joint forces and per-link world wrenches.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppliedForces {
    /// Joint forces/torques `Q`, one per velocity coordinate.
    pub joint: Vec<f64>,
    /// Force at each link's centre of mass, world frame.
    pub link_force: Vec<Vec3>,
    /// Torque on each link, world frame.
    pub link_torque: Vec<Vec3>,
}

impl AppliedForces {
    /// No forces, for a tree with `nv` velocity coordinates and `links` links.
    pub fn zero(nv: usize, links: usize) -> Self {
        Self {
            joint: vec![0.0; nv],
            link_force: vec![Vec3::zeros(); links],
            link_torque: vec![Vec3::zeros(); links],
        }
    }

    /// Sets every entry to zero.
    pub fn clear(&mut self) {
        self.joint.fill(0.0);
        self.link_force.fill(Vec3::zeros());
        self.link_torque.fill(Vec3::zeros());
    }

    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &AppliedForces) {
        for (a, b) in self.joint.iter_mut().zip(&other.joint) {
            *a += b;
        }
        for (a, b) in self.link_force.iter_mut().zip(&other.link_force) {
            *a += b;
        }
        for (a, b) in self.link_torque.iter_mut().zip(&other.link_torque) {
            *a += b;
        }
    }
}

/// Per-link scratch space for the recursive algorithms.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Workspace {
    /// `ⁱX_λ(i)`.
    pub x_parent: Vec<Transform>,
    /// `ⁱX_0`: from the world to link `i` (its translation is the centre of mass in world
    /// coordinates, its rotation the transpose of the link's orientation).
    pub x_world: Vec<Transform>,
    /// Motion subspace columns in link coordinates.
    pub s: Vec<[SpatialVec; MAX_JOINT_DOFS]>,
    /// Link spatial velocities (link coordinates).
    pub velocity: Vec<SpatialVec>,
    /// Velocity-product accelerations `c_i = c_J + v_i × v_J`.
    pub bias_acceleration: Vec<SpatialVec>,
    /// Link spatial accelerations (link coordinates).
    pub acceleration: Vec<SpatialVec>,
    /// Articulated inertias `I^A` (link coordinates).
    pub articulated_inertia: Vec<SpatialMat>,
    /// Articulated bias forces `p^A` (Mirtich's `Ẑ^A`, halves swapped).
    pub bias_force: Vec<SpatialVec>,
    /// `U = I^A S`.
    pub u: Vec<[SpatialVec; MAX_JOINT_DOFS]>,
    /// `D⁻¹ = (Sᵀ I^A S)⁻¹` in the leading `nv × nv` block.
    pub d_inv: Vec<SpatialMat>,
    /// `u = Q − Sᵀ p^A`.
    pub joint_bias: Vec<[f64; MAX_JOINT_DOFS]>,
}

impl Workspace {
    /// Scratch space for `n` links.
    pub fn new(n: usize) -> Self {
        let zero6 = [SpatialVec::zeros(); MAX_JOINT_DOFS];
        Self {
            x_parent: vec![Transform::identity(); n],
            x_world: vec![Transform::identity(); n],
            s: vec![zero6; n],
            velocity: vec![SpatialVec::zeros(); n],
            bias_acceleration: vec![SpatialVec::zeros(); n],
            acceleration: vec![SpatialVec::zeros(); n],
            articulated_inertia: vec![SpatialMat::zeros(); n],
            bias_force: vec![SpatialVec::zeros(); n],
            u: vec![zero6; n],
            d_inv: vec![SpatialMat::zeros(); n],
            joint_bias: vec![[0.0; MAX_JOINT_DOFS]; n],
        }
    }
}

impl Tree {
    /// A tree from links listed parents first; assigns coordinate offsets.
    pub fn new(mut links: Vec<Link>) -> Result<Self, TreeError> {
        let mut children = vec![Vec::new(); links.len()];
        let (mut nq, mut nv) = (0, 0);
        for (i, link) in links.iter_mut().enumerate() {
            if let Some(p) = link.parent {
                if p >= i {
                    return Err(TreeError::BadOrder {
                        link: link.name.clone(),
                    });
                }
                children[p].push(i);
            }
            let positive = link.mass > 0.0
                && link.mass.is_finite()
                && link
                    .principal_inertia
                    .iter()
                    .all(|&m| m > 0.0 && m.is_finite());
            if !positive {
                return Err(TreeError::NonPositiveInertia {
                    link: link.name.clone(),
                });
            }
            link.inertia = body_inertia(link.mass, &Mat3::from_diagonal(&link.principal_inertia));
            link.joint.q_index = nq;
            link.joint.v_index = nv;
            nq += link.joint.nq();
            nv += link.joint.nv();
        }
        Ok(Self {
            links,
            children,
            nq,
            nv,
        })
    }

    /// The links, parents first.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Mutable access to the links' passive elements and materials (not their structure).
    pub fn link_mut(&mut self, i: usize) -> &mut Link {
        &mut self.links[i]
    }

    /// Children of link `i`.
    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.nv
    }

    /// The zero configuration (every joint at its identity pose).
    pub fn neutral_q(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.nq];
        for link in &self.links {
            let j = &link.joint;
            j.kind.neutral(&mut q[j.q_index..j.q_index + j.nq()]);
        }
        q
    }

    /// Joint `i`'s slice of `q`.
    pub fn joint_q<'a>(&self, i: usize, q: &'a [f64]) -> &'a [f64] {
        let j = &self.links[i].joint;
        &q[j.q_index..j.q_index + j.nq()]
    }

    /// Joint `i`'s slice of `v`.
    pub fn joint_v<'a>(&self, i: usize, v: &'a [f64]) -> &'a [f64] {
        let j = &self.links[i].joint;
        &v[j.v_index..j.v_index + j.nv()]
    }

    /// `q̇` from `q` and `v` (quaternion blocks by their kinematics).
    pub fn position_derivative(&self, q: &[f64], v: &[f64], q_dot: &mut [f64]) {
        for link in &self.links {
            let j = &link.joint;
            let (qi, vi) = (j.q_index, j.v_index);
            j.kind.position_derivative(
                &q[qi..qi + j.nq()],
                &v[vi..vi + j.nv()],
                &mut q_dot[qi..qi + j.nq()],
            );
        }
    }

    /// Renormalises quaternion blocks; true if anything changed.
    pub fn normalize(&self, q: &mut [f64]) -> bool {
        let mut changed = false;
        for link in &self.links {
            let j = &link.joint;
            changed |= j.kind.normalize(&mut q[j.q_index..j.q_index + j.nq()]);
        }
        changed
    }

    /// Position pass: transforms `ⁱX_λ`, `ⁱX_0` and motion subspaces.
    pub fn positions(&self, q: &[f64], ws: &mut Workspace) {
        for (i, link) in self.links.iter().enumerate() {
            let qi = self.joint_q(i, q);
            let x = link.joint.parent_to_child(qi);
            ws.x_parent[i] = x;
            ws.x_world[i] = match link.parent {
                Some(p) => x.compose(&ws.x_world[p]),
                None => x,
            };
            link.joint.motion_subspace(qi, &mut ws.s[i]);
        }
    }

    /// Velocity pass (after [`Tree::positions`]): link velocities `v_i = ⁱX_λ v_λ + S_i q̇_i`
    /// and velocity-product accelerations `c_i = c_J + v_i × S_i q̇_i` (Featherstone RBDA
    /// eqs. 7.1–7.2; Mirtich eqs. 4.12–4.19 and his ĉ_i).
    pub fn velocities(&self, q: &[f64], v: &[f64], ws: &mut Workspace) {
        for (i, link) in self.links.iter().enumerate() {
            let vi = self.joint_v(i, v);
            let mut v_joint = SpatialVec::zeros();
            for (k, &rate) in vi.iter().enumerate() {
                v_joint += ws.s[i][k] * rate;
            }
            let inherited = match link.parent {
                Some(p) => ws.x_parent[i].apply_motion(&ws.velocity[p]),
                None => SpatialVec::zeros(),
            };
            ws.velocity[i] = inherited + v_joint;
            ws.bias_acceleration[i] = link.joint.bias_acceleration(self.joint_q(i, q), vi)
                + cross_motion(&ws.velocity[i], &v_joint);
        }
    }

    /// The force on link `i` from gravity and the applied wrench, in link coordinates
    /// (after [`Tree::positions`]): `[Rᵀ τ; Rᵀ (F + m g)]` (the link frame's origin is the
    /// centre of mass, so gravity has no moment about it).
    pub fn external_force(
        &self,
        i: usize,
        gravity: &Vec3,
        applied: &AppliedForces,
        ws: &Workspace,
    ) -> SpatialVec {
        let link = &self.links[i];
        let e = ws.x_world[i].rotation;
        let force = applied.link_force[i] + link.force + gravity * link.mass;
        let torque = applied.link_torque[i] + link.torque;
        spatial(&(e * torque), &(e * force))
    }

    /// The bias force of link `i` alone: `v ×* I v − f_ext` (Featherstone RBDA Table 7.1; the
    /// thesis's isolated z.a. force `Ẑ_i = [−m g; ω × I ω]`, halves swapped, plus applied
    /// wrenches).
    pub fn isolated_bias_force(
        &self,
        i: usize,
        gravity: &Vec3,
        applied: &AppliedForces,
        ws: &Workspace,
    ) -> SpatialVec {
        let link = &self.links[i];
        let v = ws.velocity[i];
        let momentum = link.inertia * v;
        cross_force(&v, &momentum) - self.external_force(i, gravity, applied, ws)
    }

    /// Generalized forces of the passive elements (springs, dampers, limit stops) at `(q, v)`,
    /// added into `tau`.
    pub fn add_passive_forces(&self, q: &[f64], v: &[f64], tau: &mut [f64]) {
        for (i, link) in self.links.iter().enumerate() {
            let joint = &link.joint;
            let p = &joint.passive;
            if p.is_empty() {
                continue;
            }
            let qi = self.joint_q(i, q);
            let vi = self.joint_v(i, v);
            let coordinates = scalar_coordinates(&joint.kind, qi);
            for k in 0..joint.nv() {
                let x = coordinates[k];
                let rate = vi[k];
                let mut f = -p.stiffness[k] * (x - p.rest[k]) - p.damping[k] * rate;
                let (lower, upper) = p.limits[k];
                if x < lower {
                    // A one-sided stop: pushes out, damps only inward motion, never pulls.
                    f += (p.limit_stiffness[k] * (lower - x) - p.limit_damping[k] * rate).max(0.0);
                } else if x > upper {
                    f -= (p.limit_stiffness[k] * (x - upper) + p.limit_damping[k] * rate).max(0.0);
                }
                tau[joint.v_index + k] += f;
            }
        }
    }

    /// Potential energy stored in the springs and limit stops.
    pub fn passive_energy(&self, q: &[f64]) -> f64 {
        let mut energy = 0.0;
        for (i, link) in self.links.iter().enumerate() {
            let joint = &link.joint;
            let p = &joint.passive;
            if p.is_empty() {
                continue;
            }
            let coordinates = scalar_coordinates(&joint.kind, self.joint_q(i, q));
            for k in 0..joint.nv() {
                let x = coordinates[k];
                energy += 0.5 * p.stiffness[k] * (x - p.rest[k]).powi(2);
                let (lower, upper) = p.limits[k];
                let depth = (lower - x).max(x - upper).max(0.0);
                energy += 0.5 * p.limit_stiffness[k] * depth * depth;
            }
        }
        energy
    }

    /// Kinetic energy of the joints' armatures, `½ Σ a_k v_k²`.
    pub fn armature_energy(&self, v: &[f64]) -> f64 {
        let mut energy = 0.0;
        for link in &self.links {
            let j = &link.joint;
            for (k, &a) in j.passive.armature.iter().enumerate() {
                energy += 0.5 * a * v[j.v_index + k] * v[j.v_index + k];
            }
        }
        energy
    }

    /// Kinetic energy `½ Σ vᵢᵀ Iᵢ vᵢ` of the links (after [`Tree::velocities`]; the armatures'
    /// share is [`Tree::armature_energy`]).
    pub fn kinetic_energy(&self, ws: &Workspace) -> f64 {
        self.links
            .iter()
            .zip(&ws.velocity)
            .map(|(link, v)| 0.5 * v.dot(&(link.inertia * v)))
            .sum()
    }

    /// Gravitational potential energy `−Σ m g · c` (after [`Tree::positions`]).
    pub fn gravitational_energy(&self, gravity: &Vec3, ws: &Workspace) -> f64 {
        self.links
            .iter()
            .zip(&ws.x_world)
            .map(|(link, x)| -link.mass * gravity.dot(&x.translation))
            .sum()
    }

    /// Total spatial momentum about the world origin, world coordinates `[L; P]` (after
    /// [`Tree::velocities`]).
    pub fn momentum(&self, ws: &Workspace) -> SpatialVec {
        self.links
            .iter()
            .enumerate()
            .map(|(i, link)| ws.x_world[i].inverse_apply_force(&(link.inertia * ws.velocity[i])))
            .sum()
    }

    /// Accelerations as a vector, for the dense oracle.
    pub fn zero_v(&self) -> DVector<f64> {
        DVector::zeros(self.nv)
    }
}

/// The scalar coordinates springs and limits act on: `q` itself for scalar joints, the
/// rotation vector for a spherical joint (the rest orientation is the identity).
fn scalar_coordinates(kind: &JointKind, q: &[f64]) -> [f64; MAX_JOINT_DOFS] {
    let mut out = [0.0; MAX_JOINT_DOFS];
    match kind {
        JointKind::Spherical => {
            let r = super::joint::quaternion(q).scaled_axis();
            out[..3].copy_from_slice(r.as_slice());
        }
        JointKind::Floating | JointKind::Fixed => {}
        _ => out[..q.len()].copy_from_slice(q),
    }
    out
}
