//! What a controller acts on, found by name when it is bound to its multibody: a joint's scalar
//! coordinate, a link, and the frame goals are given in.

use crate::math::{Pose, Vec3};
use crate::multibody::{Observations, Tree};

/// Where a joint controller acts: a joint by name and one of its scalar coordinates.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JointTarget {
    /// Joint name.
    pub joint: String,
    /// Which coordinate of a multi-coordinate joint (0 for one-coordinate joints).
    pub coordinate: usize,
}

/// Finds a joint's scalar coordinate by name: `(q index, v index)`.
pub fn resolve_coordinate(tree: &Tree, target: &JointTarget) -> Result<(usize, usize), String> {
    let Some(link) = tree.links().iter().find(|l| l.joint.name == target.joint) else {
        let names: Vec<&str> = tree.links().iter().map(|l| l.joint.name.as_str()).collect();
        return Err(format!(
            "no joint named `{}` (joints: {})",
            target.joint,
            names.join(", ")
        ));
    };
    let joint = &link.joint;
    if !joint.kind.has_scalar_coordinates() {
        return Err(format!(
            "joint `{}` is {}: a joint controller needs a joint with scalar coordinates (revolute, prismatic, cylindrical, helical, planar)",
            joint.name, joint.kind
        ));
    }
    if target.coordinate >= joint.nv() {
        return Err(format!(
            "joint `{}` ({}) has {} coordinate(s); coordinate {} does not exist",
            joint.name,
            joint.kind,
            joint.nv(),
            target.coordinate
        ));
    }
    Ok((
        joint.q_index + target.coordinate,
        joint.v_index + target.coordinate,
    ))
}

/// Finds a link by name: its index and its centre of mass in its model frame.
pub(crate) fn bind_link(tree: &Tree, link: &str) -> Result<(usize, Vec3), String> {
    match tree.links().iter().position(|l| l.name == link) {
        Some(i) => {
            let offset = tree.links()[i].body_to_model.inverse().translation.vector;
            Ok((i, offset))
        }
        None => Err(format!("no link named `{link}`")),
    }
}

/// The frame goals are given in: the world, or the last observation of another multibody
/// (`None` when it has not been observed yet).
pub(crate) fn goal_frame(
    relative_to: &Option<String>,
    others: &Observations,
    t: f64,
) -> Option<Pose> {
    match relative_to {
        None => Some(Pose::identity()),
        Some(name) => others.before(name, t).map(|o| o.pose),
    }
}
