//! URDF (the ROS robot description format): `<link>`s with `<inertial>` and `<collision>`
//! geometry, `<joint>`s between them.
//!
//! Conventions of the format: a joint's `<origin>` places the child link's frame in the
//! parent link's frame, and the joint's own frame *is* the child's frame, so its `<axis>` is in
//! child coordinates; `rpy` are roll, pitch, yaw about the fixed x, y, z axes
//! (`R = Rz(yaw) Ry(pitch) Rx(roll)`); an `<inertial>`'s `<inertia>` is about the centre of mass
//! along the axes of the inertial's own `<origin>`; a link without `<inertial>` is massless.
//! Angles are radians. `<visual>` is not physics and is not read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use roxmltree::Node;

use super::xml::{child, elements, number, numbers, positive, required, vec3};
use super::{
    Diagnostics, Geom, GeomShape, Inertial, Loc, ModelBody, ModelJoint, ModelTree, check_inertial,
    inertia_tensor, placed, rpy,
};
use crate::math::{Pose, Vec3};
use crate::multibody::JointKind;

/// Reads a URDF file into a model tree (root welded; the caller applies `base`).
pub(crate) fn parse(path: &Path, text: &str, diag: &mut Diagnostics) -> Option<ModelTree> {
    let doc = super::xml::parse(text, diag)?;
    let robot = doc.root_element();
    let dir = path.parent().unwrap_or(Path::new(""));
    let name = robot
        .attribute("name")
        .map(str::to_string)
        .unwrap_or_else(|| stem(path));

    // Links.
    let mut links: Vec<ModelBody> = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    let mut joint_nodes = Vec::new();
    let mut warned = std::collections::HashSet::new();
    for node in elements(robot) {
        match node.tag_name().name() {
            "link" => {
                let Some(link_name) = required(node, "name", "the link's name", diag) else {
                    continue;
                };
                if link_index.contains_key(link_name) {
                    diag.error(
                        &Loc::of(&node),
                        format!("another link is already named `{link_name}`; names must be unique"),
                    );
                    continue;
                }
                let body = read_link(node, link_name, dir, diag);
                link_index.insert(link_name.to_string(), links.len());
                links.push(body);
            }
            "joint" => joint_nodes.push(node),
            "material" => {}
            "transmission" => diag.warning(
                &Loc::of(&node),
                "<transmission> is not supported: its actuator is left out (the joint moves freely)",
            ),
            other => {
                if warned.insert(other.to_string()) {
                    diag.warning(
                        &Loc::of(&node),
                        format!("<{other}> is not part of URDF's physics and is ignored"),
                    );
                }
            }
        }
    }
    if links.is_empty() {
        diag.error(&Loc::of(&robot), "the robot has no <link>");
        return None;
    }

    // Joints: each gives its child a parent, a pose and (unless fixed) a joint.
    let mut parent_of: Vec<Option<usize>> = vec![None; links.len()];
    let mut joint_of: Vec<Option<String>> = vec![None; links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    let mut joint_names = HashMap::new();
    for node in joint_nodes {
        let Some((child_index, parent_index, joint)) =
            read_joint(node, &link_index, &mut joint_names, diag)
        else {
            continue;
        };
        if let Some(other) = &joint_of[child_index] {
            diag.error(
                &Loc::of(&node),
                format!(
                    "link `{}` is already the child of joint `{other}`; a URDF robot is a tree (closed loops are not supported)",
                    links[child_index].name
                ),
            );
            continue;
        }
        joint_of[child_index] = Some(joint.0.clone());
        parent_of[child_index] = Some(parent_index);
        children[parent_index].push(child_index);
        links[child_index].pose = joint.1;
        links[child_index].joint = joint.2;
    }
    if diag.error_count() > 0 {
        return None;
    }

    // The root: the one link that is no joint's child.
    let roots: Vec<usize> = (0..links.len())
        .filter(|&i| parent_of[i].is_none())
        .collect();
    let root = match roots.as_slice() {
        [root] => *root,
        [] => {
            let cycle = find_cycle(&parent_of, &links);
            diag.error(
                &Loc::of(&robot),
                format!(
                    "the joints form a cycle ({cycle}): every link is some joint's child, so there is no root; a URDF robot is a tree"
                ),
            );
            return None;
        }
        many => {
            let names: Vec<&str> = many.iter().map(|&i| links[i].name.as_str()).collect();
            diag.error(
                &links[many[1]].loc,
                format!(
                    "the robot has {} root links ({}): every link but one must be the child of a joint",
                    many.len(),
                    names.join(", ")
                ),
            );
            return None;
        }
    };
    // Depth-first from the root, children in file order (Pinocchio's order).
    let mut order = Vec::with_capacity(links.len());
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    if order.len() < links.len() {
        let reached: std::collections::HashSet<usize> = order.iter().copied().collect();
        let lost = (0..links.len()).find(|i| !reached.contains(i)).unwrap_or(0);
        let cycle = find_cycle(&parent_of, &links);
        diag.error(
            &links[lost].loc,
            format!(
                "link `{}` cannot be reached from the root `{}`: the joints form a cycle ({cycle})",
                links[lost].name, links[root].name
            ),
        );
        return None;
    }
    let mut new_index = vec![0; links.len()];
    for (k, &i) in order.iter().enumerate() {
        new_index[i] = k;
    }
    let mut bodies = Vec::with_capacity(links.len());
    for &i in &order {
        let mut body = links[i].clone();
        body.parent = parent_of[i].map(|p| new_index[p]);
        bodies.push(body);
    }
    Some(ModelTree {
        name,
        bodies,
        urdf: true,
        ..ModelTree::default()
    })
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "robot".into())
}

/// A cycle among the parent links, as `a → b → … → a`.
fn find_cycle(parent_of: &[Option<usize>], links: &[ModelBody]) -> String {
    for start in 0..parent_of.len() {
        let mut seen = vec![start];
        let mut i = start;
        while let Some(p) = parent_of[i] {
            if let Some(k) = seen.iter().position(|&x| x == p) {
                let mut names: Vec<&str> =
                    seen[k..].iter().map(|&x| links[x].name.as_str()).collect();
                names.push(links[p].name.as_str());
                return names.join(" → ");
            }
            seen.push(p);
            i = p;
        }
    }
    String::from("?")
}

/// An `<origin xyz rpy>` (identity if absent).
fn origin(node: Node<'_, '_>, diag: &mut Diagnostics) -> Pose {
    let Some(o) = child(node, "origin") else {
        return Pose::identity();
    };
    let xyz = vec3(o, "xyz", diag).unwrap_or_default();
    let r = vec3(o, "rpy", diag).unwrap_or_default();
    placed(xyz, rpy(r.x, r.y, r.z))
}

fn read_link(node: Node<'_, '_>, name: &str, dir: &Path, diag: &mut Diagnostics) -> ModelBody {
    let mut body = ModelBody {
        name: name.to_string(),
        parent: None,
        pose: Pose::identity(),
        joint: None,
        inertial: None,
        geoms: Vec::new(),
        loc: Loc::of(&node),
    };
    let mut inertials = 0;
    for element in elements(node) {
        match element.tag_name().name() {
            "inertial" => {
                inertials += 1;
                if inertials > 1 {
                    diag.error(&Loc::of(&element), "a link has at most one <inertial>");
                    continue;
                }
                body.inertial = read_inertial(element, diag);
            }
            "collision" => {
                let pose = origin(element, diag);
                if let Some(shape) = child(element, "geometry").and_then(|g| geometry(g, dir, diag))
                {
                    body.geoms.push(Geom {
                        shape,
                        pose,
                        loc: Loc::of(&element),
                    });
                } else if child(element, "geometry").is_none() {
                    diag.error(&Loc::of(&element), "a <collision> needs a <geometry>");
                }
            }
            "visual" => {}
            other => diag.warning(
                &Loc::of(&element),
                format!("<{other}> in a link is not read"),
            ),
        }
    }
    body
}

fn read_inertial(node: Node<'_, '_>, diag: &mut Diagnostics) -> Option<super::Inertial> {
    let frame = origin(node, diag);
    let loc = Loc::of(&node);
    let Some(mass_node) = child(node, "mass") else {
        diag.error(&loc, "an <inertial> needs a <mass value=\"…\"/>");
        return None;
    };
    let mass = number(mass_node, "value", diag).or_else(|| {
        if mass_node.attribute("value").is_none() {
            diag.error(&Loc::of(&mass_node), "missing attribute `value` (the mass)");
        }
        None
    })?;
    let Some(inertia) = child(node, "inertia") else {
        diag.error(
            &loc,
            "an <inertial> needs an <inertia ixx=… ixy=… ixz=… iyy=… iyz=… izz=…/>",
        );
        return None;
    };
    let mut component = |key: &str| -> Option<f64> {
        match inertia.attribute(key) {
            Some(_) => number(inertia, key, diag),
            None => {
                diag.error(&Loc::of(&inertia), format!("missing attribute `{key}`"));
                None
            }
        }
    };
    let values = [
        component("ixx"),
        component("iyy"),
        component("izz"),
        component("ixy"),
        component("ixz"),
        component("iyz"),
    ];
    let [Some(xx), Some(yy), Some(zz), Some(xy), Some(xz), Some(yz)] = values else {
        return None;
    };
    let r = frame.rotation.to_rotation_matrix().into_inner();
    let tensor = r * inertia_tensor(xx, yy, zz, xy, xz, yz) * r.transpose();
    let inertial = Inertial {
        mass,
        center: frame.translation.vector,
        inertia: tensor,
    };
    check_inertial(&inertial, &Loc::of(&inertia), diag).then_some(inertial)
}

fn geometry(node: Node<'_, '_>, dir: &Path, diag: &mut Diagnostics) -> Option<GeomShape> {
    let shapes: Vec<Node> = elements(node).collect();
    let [shape] = shapes.as_slice() else {
        diag.error(
            &Loc::of(&node),
            format!(
                "a <geometry> holds exactly one of <box>, <cylinder>, <sphere>, <mesh>; found {}",
                shapes.len()
            ),
        );
        return None;
    };
    let shape = *shape;
    let loc = Loc::of(&shape);
    match shape.tag_name().name() {
        "box" => {
            let size = vec3(shape, "size", diag).or_else(|| {
                required(shape, "size", "three edge lengths", diag);
                None
            })?;
            if size.iter().any(|&s| s <= 0.0) {
                diag.error(
                    &Loc::attribute(&shape, "size"),
                    "edge lengths must be positive",
                );
                return None;
            }
            Some(GeomShape::Box {
                half_extents: size / 2.0,
            })
        }
        // A capsule is not in the URDF specification, but common (ROS 2, Drake, MuJoCo read
        // it): `length` between the cap centres, along z. A cylinder's is its full height.
        kind @ ("cylinder" | "capsule") => {
            required(shape, "radius", "a positive number", diag);
            required(shape, "length", "a positive number", diag);
            let radius = positive(shape, "radius", diag)?;
            let half_height = positive(shape, "length", diag)? / 2.0;
            Some(if kind == "cylinder" {
                GeomShape::Cylinder {
                    radius,
                    half_height,
                }
            } else {
                GeomShape::Capsule {
                    radius,
                    half_height,
                }
            })
        }
        "sphere" => {
            required(shape, "radius", "a positive number", diag);
            let radius = positive(shape, "radius", diag)?;
            Some(GeomShape::Sphere { radius })
        }
        "mesh" => {
            let filename = required(shape, "filename", "the mesh file", diag)?;
            let scale = match numbers(shape, "scale", diag) {
                None => Vec3::repeat(1.0),
                Some(v) if v.len() == 3 && v.iter().all(|&s| s > 0.0) => {
                    Vec3::new(v[0], v[1], v[2])
                }
                Some(v) if v.len() == 1 && v[0] > 0.0 => Vec3::repeat(v[0]),
                Some(_) => {
                    diag.error(
                        &Loc::attribute(&shape, "scale"),
                        "expected three positive scale factors",
                    );
                    return None;
                }
            };
            let file = resolve_mesh(filename, dir, &Loc::attribute(&shape, "filename"), diag)?;
            Some(GeomShape::Mesh { file, scale })
        }
        other => {
            diag.error(
                &loc,
                format!(
                    "unknown geometry <{other}>: expected <box>, <cylinder>, <sphere> or <mesh>"
                ),
            );
            None
        }
    }
}

/// Finds a mesh file: `package://NAME/rest` in a folder `NAME` beside the URDF or above it,
/// `file://` paths as they are, other paths relative to the URDF's folder. COLLADA files are
/// not read (a warning; the geometry is left out).
pub(crate) fn resolve_mesh(
    filename: &str,
    dir: &Path,
    loc: &Loc,
    diag: &mut Diagnostics,
) -> Option<PathBuf> {
    let lower = filename.to_ascii_lowercase();
    if lower.ends_with(".dae") {
        diag.warning(
            loc,
            format!(
                "`{filename}`: COLLADA (.dae) meshes are not read, so this collision geometry is left out (convert it to OBJ or STL to keep it; the link's inertial is unaffected)"
            ),
        );
        return None;
    }
    if !(lower.ends_with(".obj") || lower.ends_with(".stl")) {
        diag.error(
            loc,
            format!("`{filename}`: mesh files must be OBJ (.obj) or STL (.stl)"),
        );
        return None;
    }
    let candidates: Vec<PathBuf> = if let Some(rest) = filename.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        let mut list = Vec::new();
        for ancestor in dir.ancestors() {
            if ancestor.file_name().is_some_and(|n| n == package) {
                list.push(ancestor.join(inner));
            }
            list.push(ancestor.join(package).join(inner));
        }
        list.push(dir.join(inner));
        list
    } else if let Some(absolute) = filename.strip_prefix("file://") {
        vec![PathBuf::from(absolute)]
    } else {
        vec![dir.join(filename)]
    };
    match candidates.iter().find(|p| p.is_file()) {
        Some(p) => Some(p.clone()),
        None => {
            diag.error(
                loc,
                format!(
                    "mesh file `{filename}` not found (looked for {})",
                    candidates[0].display()
                ),
            );
            None
        }
    }
}

type JointParts = (String, Pose, Option<ModelJoint>);

/// A `<joint>`: (child index, parent index, (name, child pose in parent, joint or `None` if
/// fixed)).
fn read_joint(
    node: Node<'_, '_>,
    link_index: &HashMap<String, usize>,
    names: &mut HashMap<String, usize>,
    diag: &mut Diagnostics,
) -> Option<(usize, usize, JointParts)> {
    let loc = Loc::of(&node);
    let name = required(node, "name", "the joint's name", diag)?.to_string();
    if names.insert(name.clone(), loc.line).is_some() {
        diag.error(&loc, format!("another joint is already named `{name}`"));
        return None;
    }
    let kind_name = required(
        node,
        "type",
        "revolute, continuous, prismatic, fixed, floating or planar",
        diag,
    )?;
    let kind = match kind_name {
        "revolute" | "continuous" => JointKind::Revolute,
        "prismatic" => JointKind::Prismatic,
        "fixed" => JointKind::Fixed,
        "floating" => JointKind::Floating,
        "planar" => JointKind::Planar,
        other => {
            diag.error(
                &Loc::attribute(&node, "type"),
                format!(
                    "unknown joint type `{other}`: expected revolute, continuous, prismatic, fixed, floating or planar"
                ),
            );
            return None;
        }
    };
    let link = |tag: &str, diag: &mut Diagnostics| -> Option<usize> {
        let Some(element) = child(node, tag) else {
            diag.error(&loc, format!("a joint needs a <{tag} link=\"…\"/>"));
            return None;
        };
        let link_name = required(element, "link", "a link name", diag)?;
        match link_index.get(link_name) {
            Some(&i) => Some(i),
            None => {
                diag.error(
                    &Loc::attribute(&element, "link"),
                    format!("joint `{name}`: no link named `{link_name}`"),
                );
                None
            }
        }
    };
    let parent = link("parent", diag);
    let child_link = link("child", diag);
    let (parent, child_link) = (parent?, child_link?);
    if parent == child_link {
        diag.error(&loc, "a joint cannot connect a link to itself");
        return None;
    }
    let pose = origin(node, diag);
    for element in elements(node) {
        match element.tag_name().name() {
            "origin" | "parent" | "child" | "axis" | "limit" | "dynamics" => {}
            "safety_controller" | "calibration" => {}
            "mimic" => diag.warning(
                &Loc::of(&element),
                format!(
                    "<mimic> is not supported: joint `{name}` moves on its own instead of following `{}`",
                    element.attribute("joint").unwrap_or("?")
                ),
            ),
            other => diag.warning(
                &Loc::of(&element),
                format!("<{other}> in a joint is not read"),
            ),
        }
    }
    if kind == JointKind::Fixed {
        return Some((child_link, parent, (name, pose, None)));
    }
    let mut joint = ModelJoint::new(name.clone(), kind);
    joint.from_origin = kind == JointKind::Floating;
    // The axis (default x), in the joint frame = the child's frame.
    if kind != JointKind::Floating {
        let axis = match child(node, "axis") {
            Some(a) => vec3(a, "xyz", diag).unwrap_or(Vec3::x()),
            None => Vec3::x(),
        };
        if axis.norm() <= 1e-12 {
            diag.error(&loc, format!("joint `{name}`: the axis has zero length"));
            return None;
        }
        joint.axis = axis.normalize();
        if kind == JointKind::Planar {
            // The plane's first direction: the joint frame's x (y if x is the normal).
            let x = Vec3::x() - joint.axis * joint.axis.x;
            joint.x_axis = Some(if x.norm() > 1e-6 {
                x
            } else {
                Vec3::y() - joint.axis * joint.axis.y
            });
        }
    }
    if let Some(d) = child(node, "dynamics") {
        if d.attribute("damping").is_some() {
            let c = number(d, "damping", diag).unwrap_or(0.0);
            if c < 0.0 {
                diag.error(&Loc::attribute(&d, "damping"), "damping must be ≥ 0");
            }
            joint.damping = c.max(0.0);
        }
        if let Some(f) = number(d, "friction", diag)
            && f != 0.0
        {
            diag.warning(
                &Loc::attribute(&d, "friction"),
                format!("joint `{name}`: Coulomb joint friction is not supported and is left out"),
            );
        }
    }
    let limit = child(node, "limit");
    match (kind_name, limit) {
        ("revolute" | "prismatic", Some(l)) => {
            let lower = if l.attribute("lower").is_some() {
                number(l, "lower", diag)
            } else {
                Some(0.0)
            };
            let upper = if l.attribute("upper").is_some() {
                number(l, "upper", diag)
            } else {
                Some(0.0)
            };
            if let (Some(lower), Some(upper)) = (lower, upper) {
                if lower < upper {
                    joint.limits = Some((lower, upper));
                } else if lower == upper {
                    diag.warning(
                        &Loc::of(&l),
                        format!(
                            "joint `{name}`: lower = upper = {lower} leaves no range; the limits are left out"
                        ),
                    );
                } else {
                    diag.error(
                        &Loc::of(&l),
                        format!("joint `{name}`: lower limit {lower} is above the upper {upper}"),
                    );
                }
            }
        }
        ("revolute" | "prismatic", None) => diag.warning(
            &loc,
            format!(
                "joint `{name}`: a {kind_name} joint should have a <limit>; it moves without limits"
            ),
        ),
        _ => {}
    }
    Some((child_link, parent, (name, pose, Some(joint))))
}
