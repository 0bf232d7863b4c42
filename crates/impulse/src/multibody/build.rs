//! Building a multibody from a description placed in the world: links as bodies at their
//! reference configuration, joints by anchor point and axis in world coordinates.
//!
//! At the *reference configuration* every link is where its description puts it and every joint
//! coordinate is zero (identity joint transforms). A joint's frame there has its origin at the
//! anchor and its z axis along the axis (x from `x_axis`, or a fixed completion of z). Then
//! `predecessor = P⁻¹ J` and `successor = C⁻¹ J`, where `P`, `C` are the parent's and the
//! child's link frames and `J` the joint frame, all at the reference configuration. A floating
//! joint's frames are the two link frames themselves, so its coordinates are the child's pose in
//! its parent's link frame (in the world for a root). Initial joint positions then move the
//! links away from the reference configuration.

use std::collections::HashMap;
use std::fmt;

use super::controller::Controller;
use super::joint::{JointKind, write_quaternion};
use super::tree::{Joint, Link, PassiveElements, Tree, TreeError};
use crate::dynamics::{BodyDesc, BodyError, MotionType, body_mass_properties};
use crate::math::{Mat3, Pose, Quat, Vec3, orthonormal_basis, pose};

/// What a joint's parent is.
pub const WORLD: &str = "world";

/// A joint, placed in the world at the reference configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDesc {
    /// Unique name in the multibody (scene files default it to the child's name).
    pub name: String,
    /// Kind.
    pub kind: JointKind,
    /// `"world"`, a link of this multibody, or a fixed body of the world.
    pub parent: String,
    /// The link this joint moves.
    pub child: String,
    /// Joint origin, world coordinates, reference configuration.
    pub anchor: Vec3,
    /// Joint axis (z of the joint frame), world coordinates; the plane normal of a planar joint.
    pub axis: Vec3,
    /// Optional x axis of the joint frame (planar joints: the direction of the first
    /// coordinate); must be perpendicular to `axis`.
    pub x_axis: Option<Vec3>,
    /// Initial coordinates: one per degree of freedom for scalar joints (radians, lengths); a
    /// quaternion `[w, x, y, z]` relative to the reference for spherical joints; ignored for
    /// floating joints (the link's pose is the initial pose) and fixed joints.
    pub initial_position: Vec<f64>,
    /// Initial velocity coordinates: one per degree of freedom for scalar joints; the relative
    /// angular velocity in the parent's reference axes for spherical joints; `[ω; v]` (angular
    /// velocity and centre-of-mass velocity relative to the parent, in its axes — the world for
    /// a root) for floating joints.
    pub initial_velocity: Vec<f64>,
    /// Springs, dampers and limits.
    pub passive: PassiveElements,
}

impl JointDesc {
    /// A joint with no initial motion and no passive elements.
    pub fn new(
        name: impl Into<String>,
        kind: JointKind,
        parent: impl Into<String>,
        child: impl Into<String>,
        anchor: Vec3,
        axis: Vec3,
    ) -> Self {
        Self {
            name: name.into(),
            kind,
            parent: parent.into(),
            child: child.into(),
            anchor,
            axis,
            x_axis: None,
            initial_position: Vec::new(),
            initial_velocity: Vec::new(),
            passive: PassiveElements::none(kind.nv()),
        }
    }
}

/// Everything needed to create a multibody.
#[derive(Clone, Debug)]
pub struct MultibodyDesc {
    /// Unique name.
    pub name: String,
    /// The links, as dynamic bodies placed at the reference configuration (their `velocity`,
    /// `angular_velocity` and `motion` are not used: joints move links).
    pub links: Vec<BodyDesc>,
    /// One joint per link.
    pub joints: Vec<JointDesc>,
    /// Controllers.
    pub controllers: Vec<Box<dyn Controller>>,
}

/// How a name refers to a body of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyLookup {
    /// No such body.
    Missing,
    /// A fixed body.
    Fixed,
    /// A body that moves (dynamic or kinematic).
    Moving,
}

/// Why a description cannot make a multibody.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// No links.
    NoLinks,
    /// Two links share a name.
    DuplicateLink(String),
    /// Two joints share a name.
    DuplicateJoint(String),
    /// A link named "world".
    ReservedName(String),
    /// A joint's child is not a link.
    MissingChild { joint: String, child: String },
    /// A joint's parent is neither the world, a link, nor a body.
    MissingParent { joint: String, parent: String },
    /// A joint's parent is a body that moves.
    MovingParent { joint: String, parent: String },
    /// A link is the child of no joint.
    NoJoint { link: String },
    /// A link is the child of two joints (a closed loop).
    TwoJoints { link: String, joints: [String; 2] },
    /// Joints form a cycle.
    Cycle { links: Vec<String> },
    /// A joint's own description is wrong.
    Joint { joint: String, message: String },
    /// A link's description is wrong.
    Link { link: String, error: BodyError },
    /// The tree is invalid.
    Tree(TreeError),
    /// A controller does not fit the multibody.
    Controller { index: usize, message: String },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoLinks => write!(f, "a multibody needs at least one link"),
            Self::DuplicateLink(n) => write!(f, "two links are named `{n}`; names must be unique"),
            Self::DuplicateJoint(n) => {
                write!(f, "two joints are named `{n}`; names must be unique")
            }
            Self::ReservedName(n) => write!(
                f,
                "a link cannot be named `{n}`: it means the inertial frame"
            ),
            Self::MissingChild { joint, child } => {
                write!(
                    f,
                    "joint `{joint}`: its child `{child}` is not a link of this multibody"
                )
            }
            Self::MissingParent { joint, parent } => write!(
                f,
                "joint `{joint}`: its parent `{parent}` is not \"world\", a link of this multibody, or a body"
            ),
            Self::MovingParent { joint, parent } => write!(
                f,
                "joint `{joint}`: its parent `{parent}` is a body that moves; a multibody can hang only from the world or a fixed body (make `{parent}` a link of the multibody instead)"
            ),
            Self::NoJoint { link } => write!(
                f,
                "link `{link}` is moved by no joint; give it one (type = \"floating\" for a free base)"
            ),
            Self::TwoJoints { link, joints } => write!(
                f,
                "link `{link}` is the child of two joints (`{}` and `{}`); a multibody is a tree, closed loops are not supported",
                joints[0], joints[1]
            ),
            Self::Cycle { links } => write!(
                f,
                "the joints form a cycle ({} → {}); a multibody must be a tree hanging from the world or a fixed body",
                links.join(" → "),
                links[0]
            ),
            Self::Joint { joint, message } => write!(f, "joint `{joint}`: {message}"),
            Self::Link { link, error } => write!(f, "link `{link}`: {error}"),
            Self::Tree(e) => e.fmt(f),
            Self::Controller { index, message } => write!(f, "controller {index}: {message}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The built tree with its initial state.
pub(crate) struct Built {
    pub tree: Tree,
    pub q: Vec<f64>,
    pub v: Vec<f64>,
}

/// Builds the tree and initial state. `lookup` tells what a non-link parent name is.
pub(crate) fn build(
    desc: &MultibodyDesc,
    lookup: &dyn Fn(&str) -> BodyLookup,
) -> Result<Built, BuildError> {
    if desc.links.is_empty() {
        return Err(BuildError::NoLinks);
    }
    let mut link_index = HashMap::new();
    for (i, link) in desc.links.iter().enumerate() {
        if link.name == WORLD {
            return Err(BuildError::ReservedName(link.name.clone()));
        }
        if link_index.insert(link.name.as_str(), i).is_some() {
            return Err(BuildError::DuplicateLink(link.name.clone()));
        }
    }
    // Each link's joint, and each joint's parent link (None: world or a fixed body).
    let mut joint_of: Vec<Option<usize>> = vec![None; desc.links.len()];
    let mut joint_names = HashMap::new();
    for (j, joint) in desc.joints.iter().enumerate() {
        if joint_names.insert(joint.name.as_str(), j).is_some() {
            return Err(BuildError::DuplicateJoint(joint.name.clone()));
        }
        let Some(&child) = link_index.get(joint.child.as_str()) else {
            return Err(BuildError::MissingChild {
                joint: joint.name.clone(),
                child: joint.child.clone(),
            });
        };
        if let Some(other) = joint_of[child] {
            return Err(BuildError::TwoJoints {
                link: joint.child.clone(),
                joints: [desc.joints[other].name.clone(), joint.name.clone()],
            });
        }
        joint_of[child] = Some(j);
        if joint.parent != WORLD && !link_index.contains_key(joint.parent.as_str()) {
            match lookup(&joint.parent) {
                BodyLookup::Fixed => {}
                BodyLookup::Missing => {
                    return Err(BuildError::MissingParent {
                        joint: joint.name.clone(),
                        parent: joint.parent.clone(),
                    });
                }
                BodyLookup::Moving => {
                    return Err(BuildError::MovingParent {
                        joint: joint.name.clone(),
                        parent: joint.parent.clone(),
                    });
                }
            }
        }
    }
    let parent_link = |i: usize| -> Option<usize> {
        let j = joint_of[i]?;
        link_index.get(desc.joints[j].parent.as_str()).copied()
    };
    for (i, j) in joint_of.iter().enumerate() {
        if j.is_none() {
            return Err(BuildError::NoJoint {
                link: desc.links[i].name.clone(),
            });
        }
    }
    // Order parents first (depth-first from the roots, in file order), detecting cycles.
    let mut order = Vec::with_capacity(desc.links.len());
    let mut placed = vec![false; desc.links.len()];
    for start in 0..desc.links.len() {
        // Walk up to the first placed ancestor or a root, then place the path top-down.
        let mut path = vec![start];
        let mut on_path = vec![false; desc.links.len()];
        on_path[start] = true;
        let mut i = start;
        while !placed[i] {
            match parent_link(i) {
                Some(p) if placed[p] => break,
                Some(p) if on_path[p] => {
                    let from = path.iter().position(|&x| x == p).unwrap_or(0);
                    let mut links: Vec<String> = path[from..]
                        .iter()
                        .map(|&x| desc.links[x].name.clone())
                        .collect();
                    links.reverse();
                    return Err(BuildError::Cycle { links });
                }
                Some(p) => {
                    on_path[p] = true;
                    path.push(p);
                    i = p;
                }
                None => break,
            }
        }
        for &x in path.iter().rev() {
            if !placed[x] {
                placed[x] = true;
                order.push(x);
            }
        }
    }
    let mut new_index = vec![0; desc.links.len()];
    for (k, &i) in order.iter().enumerate() {
        new_index[i] = k;
    }

    // Links with mass properties; reference link frames in the world.
    let mut links = Vec::with_capacity(order.len());
    let mut reference = Vec::with_capacity(order.len());
    for &i in &order {
        let body = &desc.links[i];
        let link_error = |error| BuildError::Link {
            link: body.name.clone(),
            error,
        };
        if !matches!(body.motion, MotionType::Dynamic) {
            return Err(BuildError::Link {
                link: body.name.clone(),
                error: BodyError::NonFinite {
                    what: "motion (a link is moved by its joint, so it must be dynamic)",
                },
            });
        }
        // A link with its mass properties given needs no shapes (it then never collides).
        let explicit = matches!(body.mass, crate::dynamics::MassSpec::Explicit { .. });
        if body.shapes.is_empty() && !explicit {
            return Err(link_error(BodyError::NoShapes));
        }
        crate::dynamics::check_shapes(&body.shapes).map_err(link_error)?;
        if body
            .shapes
            .iter()
            .any(|s| matches!(s.shape, crate::geometry::Shape::HalfSpace))
        {
            return Err(link_error(BodyError::HalfSpaceNotFixed));
        }
        let mass_properties = body_mass_properties(body).map_err(link_error)?;
        let (moments, axes) = mass_properties.principal();
        let scale = moments.max();
        let size = body
            .shapes
            .iter()
            .map(|p| p.shape.bounding_radius() + p.pose.translation.vector.norm())
            .fold(0.0, f64::max);
        if let Some(error) = crate::dynamics::underflow(mass_properties.mass, scale, size) {
            return Err(link_error(error));
        }
        if moments.min().is_nan() || moments.min() <= 1e-12 * scale {
            return Err(link_error(BodyError::ZeroInertia));
        }
        let body_to_model = pose(mass_properties.center_of_mass.coords, axes);
        reference.push(body.pose * body_to_model);
        let j = &desc.joints[joint_of[i].unwrap_or(0)];
        let parent = parent_link(i).map(|p| new_index[p]);
        let placeholder = Joint::new(j.name.clone(), j.kind, Pose::identity(), Pose::identity());
        let mut link = Link::new(
            body.name.clone(),
            parent,
            placeholder,
            mass_properties.mass,
            moments,
        );
        link.attached_to = (parent.is_none() && j.parent != WORLD).then(|| j.parent.clone());
        link.body_to_model = body_to_model;
        link.shapes = body.shapes.clone();
        link.material = body.material;
        link.material_name = body.material_name.clone();
        link.force = body.force;
        link.torque = body.torque;
        links.push(link);
    }

    // Joint frames.
    let mut initial = Vec::with_capacity(order.len());
    for (k, &i) in order.iter().enumerate() {
        let j = &desc.joints[joint_of[i].unwrap_or(0)];
        let joint_error = |message: String| BuildError::Joint {
            joint: j.name.clone(),
            message,
        };
        let parent_frame = links[k].parent.map_or(Pose::identity(), |p| reference[p]);
        let child_frame = reference[k];
        let (predecessor, successor) = match j.kind {
            JointKind::Floating => (Pose::identity(), Pose::identity()),
            _ => {
                let frame = joint_frame(j).map_err(joint_error)?;
                (
                    parent_frame.inverse() * frame,
                    child_frame.inverse() * frame,
                )
            }
        };
        let mut joint = Joint::new(j.name.clone(), j.kind, predecessor, successor);
        check_passive(j).map_err(joint_error)?;
        joint.passive = j.passive.clone();
        links[k].joint = joint;
        initial.push(initial_coordinates(j, &parent_frame, &child_frame).map_err(joint_error)?);
    }
    let tree = Tree::new(links).map_err(BuildError::Tree)?;
    let mut q = vec![0.0; tree.nq()];
    let mut v = vec![0.0; tree.nv()];
    for (k, (qi, vi)) in initial.into_iter().enumerate() {
        let joint = &tree.links()[k].joint;
        q[joint.q_index..joint.q_index + joint.nq()].copy_from_slice(&qi);
        v[joint.v_index..joint.v_index + joint.nv()].copy_from_slice(&vi);
    }
    tree.normalize(&mut q);
    Ok(Built { tree, q, v })
}

/// The joint frame in the world at the reference configuration.
fn joint_frame(j: &JointDesc) -> Result<Pose, String> {
    if !(j.anchor.iter().all(|c| c.is_finite())) {
        return Err("the anchor must be finite".into());
    }
    let rotation = match j.kind {
        JointKind::Spherical | JointKind::Fixed => Quat::identity(),
        _ => {
            let norm = j.axis.norm();
            if !(norm > 0.0 && norm.is_finite()) {
                return Err(format!("a {} joint needs a non-zero axis", j.kind));
            }
            let z = j.axis / norm;
            let x = match j.x_axis {
                Some(x) => {
                    let x = x - z * z.dot(&x);
                    if x.norm().is_nan() || x.norm() <= 1e-9 * j.x_axis.map_or(1.0, |a| a.norm()) {
                        return Err("x_axis must not be parallel to the axis".into());
                    }
                    x.normalize()
                }
                None => orthonormal_basis(&z).0,
            };
            let y = z.cross(&x);
            let m = Mat3::from_columns(&[x, y, z]);
            Quat::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(m))
        }
    };
    Ok(pose(j.anchor, rotation))
}

fn check_passive(j: &JointDesc) -> Result<(), String> {
    let p = &j.passive;
    let nv = j.kind.nv();
    let lengths = [
        p.stiffness.len(),
        p.rest.len(),
        p.damping.len(),
        p.limits.len(),
        p.limit_stiffness.len(),
        p.limit_damping.len(),
        p.armature.len(),
    ];
    if lengths.iter().any(|&l| l != nv) {
        return Err(format!(
            "springs, dampers and limits need one entry per degree of freedom ({nv})"
        ));
    }
    if !p.is_empty() && matches!(j.kind, JointKind::Floating) {
        return Err("a floating joint has no springs, dampers or limits".into());
    }
    if p.armature.iter().any(|&a| !(a >= 0.0 && a.is_finite())) {
        return Err("armature must be finite and ≥ 0".into());
    }
    if matches!(j.kind, JointKind::Floating) && p.armature.iter().any(|&a| a != 0.0) {
        return Err("a floating joint has no armature".into());
    }
    if matches!(j.kind, JointKind::Spherical) && p.armature.iter().any(|&a| a != p.armature[0]) {
        return Err("a spherical joint's armature is isotropic: one value".into());
    }
    let has_limits = p
        .limits
        .iter()
        .any(|&(lo, hi)| lo != f64::NEG_INFINITY || hi != f64::INFINITY);
    if matches!(j.kind, JointKind::Spherical) {
        if has_limits {
            return Err("position limits are not supported on a spherical joint".into());
        }
        // Only an isotropic spring about the reference orientation, τ = −k θ (θ the rotation
        // vector), is conservative in quaternion coordinates: its power is −k θ θ̇.
        if p.stiffness.iter().any(|&k| k != p.stiffness[0]) || p.rest.iter().any(|&r| r != 0.0) {
            return Err("a spherical joint's spring is isotropic: one stiffness, rest at the reference orientation".into());
        }
    }
    for k in 0..nv {
        let values = [
            p.stiffness[k],
            p.damping[k],
            p.limit_stiffness[k],
            p.limit_damping[k],
        ];
        if values.iter().any(|&x| !(x >= 0.0 && x.is_finite())) {
            return Err("stiffness and damping must be finite and ≥ 0".into());
        }
        if !p.rest[k].is_finite() {
            return Err("the spring rest position must be finite".into());
        }
        let (lo, hi) = p.limits[k];
        if lo.is_nan() || hi.is_nan() || lo >= hi {
            return Err(format!("limits [{lo}, {hi}] must have lower < upper"));
        }
    }
    Ok(())
}

/// Initial `(q, v)` of a joint.
fn initial_coordinates(
    j: &JointDesc,
    parent_frame: &Pose,
    child_frame: &Pose,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let (nq, nv) = (j.kind.nq(), j.kind.nv());
    let mut q = vec![0.0; nq];
    j.kind.neutral(&mut q);
    let mut v = vec![0.0; nv];
    let finite = |x: &[f64]| x.iter().all(|c| c.is_finite());
    if !finite(&j.initial_position) || !finite(&j.initial_velocity) {
        return Err("initial positions and velocities must be finite".into());
    }
    let count = |what: &str, given: usize, expected: usize| -> Result<(), String> {
        if given == 0 || given == expected {
            Ok(())
        } else {
            Err(format!(
                "{what} has {given} values; a {} joint takes {expected}",
                j.kind
            ))
        }
    };
    match j.kind {
        JointKind::Fixed => {
            count("initial position", j.initial_position.len(), 0)?;
            count("initial velocity", j.initial_velocity.len(), 0)?;
        }
        JointKind::Floating => {
            count("initial position", j.initial_position.len(), 0)?;
            count("initial velocity", j.initial_velocity.len(), 6)?;
            let relative = parent_frame.inverse() * child_frame;
            q[0..3].copy_from_slice(relative.translation.vector.as_slice());
            write_quaternion(&relative.rotation, &mut q[3..7]);
            if !j.initial_velocity.is_empty() {
                let w = Vec3::from_column_slice(&j.initial_velocity[0..3]);
                let lin = Vec3::from_column_slice(&j.initial_velocity[3..6]);
                let to_child = relative.rotation.inverse();
                v[0..3].copy_from_slice((to_child * w).as_slice());
                v[3..6].copy_from_slice((to_child * lin).as_slice());
            }
        }
        JointKind::Spherical => {
            count("initial position", j.initial_position.len(), 4)?;
            count("initial velocity", j.initial_velocity.len(), 3)?;
            let rotation = if j.initial_position.is_empty() {
                Quat::identity()
            } else {
                super::joint::quaternion(&j.initial_position)
            };
            write_quaternion(&rotation, &mut q);
            if !j.initial_velocity.is_empty() {
                let w = rotation.inverse() * Vec3::from_column_slice(&j.initial_velocity);
                v.copy_from_slice(w.as_slice());
            }
        }
        _ => {
            count("initial position", j.initial_position.len(), nq)?;
            count("initial velocity", j.initial_velocity.len(), nv)?;
            if !j.initial_position.is_empty() {
                q.copy_from_slice(&j.initial_position);
            }
            if !j.initial_velocity.is_empty() {
                v.copy_from_slice(&j.initial_velocity);
            }
        }
    }
    if let JointKind::Helical { pitch } = j.kind
        && !(pitch != 0.0 && pitch.is_finite())
    {
        return Err("a helical (screw) joint needs a finite, non-zero pitch; for pure rotation use a revolute joint".into());
    }
    Ok((q, v))
}
