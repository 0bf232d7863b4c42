//! `[[multibodies]]`: articulated multibodies in scene files — links, joints (with springs,
//! dampers and limits) and controllers. Documented in `docs/scene-format.md`.
//!
//! Links are read exactly like bodies (shapes, mass, placement at the reference configuration);
//! joints are placed by an anchor point and an axis in world coordinates. Angles (initial
//! positions, spring rest positions, limits, targets) are in degrees like every angle in scene
//! files; rates, stiffnesses and gains are per radian.

use std::collections::{BTreeMap, HashMap};
use std::f64::consts::TAU;

use super::reader::{Table, Value};
use super::{SceneReader, read_orientation};
use crate::dynamics::{BodyDesc, Material, MotionType};
use crate::math::Vec3;
use crate::multibody::{JointDesc, JointKind, MultibodyDesc, PassiveElements, WORLD};
use crate::world::World;

const MULTIBODY_KEYS: &[&str] = &["name", "links", "joints", "controllers"];
const JOINT_COMMON: &[&str] = &["name", "type", "parent", "child"];
const JOINT_TYPES: &[&str] = &[
    "revolute",
    "prismatic",
    "cylindrical",
    "helical",
    "screw",
    "spherical",
    "planar",
    "fixed",
    "floating",
];
const SCALAR_JOINT_KEYS: &[&str] = &[
    "anchor",
    "axis",
    "initial_position",
    "initial_velocity",
    "stiffness",
    "rest",
    "damping",
    "limits",
    "limit_stiffness",
    "limit_damping",
    "armature",
];
/// Natural frequency (per unit time) and damping ratio of limit stops whose stiffness is not
/// given: stiff, critically damped stops scaled by the joint's effective inertia at the start.
const LIMIT_FREQUENCY: f64 = 100.0;

/// What the reader learned about one joint, to check controllers against.
pub(super) struct JointInfo {
    pub(super) kind: JointKind,
    /// Limits whose stop stiffness (and damping) is to be derived after building.
    auto_stop: bool,
}

fn kind_from_name(name: &str, t: &Table<'_, '_>) -> Option<JointKind> {
    Some(match name {
        "revolute" => JointKind::Revolute,
        "prismatic" => JointKind::Prismatic,
        "cylindrical" => JointKind::Cylindrical,
        "helical" | "screw" => {
            let pitch = t
                .required("pitch", "a non-zero length advanced per turn")
                .and_then(|v| {
                    let p = v.number()?;
                    if p == 0.0 {
                        v.error(
                            "a screw with zero pitch is a revolute joint: use type = \"revolute\"",
                        );
                        None
                    } else {
                        Some(p)
                    }
                })?;
            JointKind::Helical { pitch: pitch / TAU }
        }
        "spherical" => JointKind::Spherical,
        "planar" => JointKind::Planar,
        "fixed" => JointKind::Fixed,
        _ => JointKind::Floating,
    })
}

/// Degrees → radians for the angular coordinates of a joint kind.
pub(super) fn to_internal(kind: &JointKind, k: usize, value: f64) -> f64 {
    if kind.is_angular_dof(k) {
        value.to_radians()
    } else {
        value
    }
}

/// A number (for one coordinate) or an array of `n` numbers.
fn per_coordinate(value: &Value<'_, '_>, n: usize) -> Option<Vec<f64>> {
    if value.is_array() {
        let items = value.array()?;
        if items.len() != n {
            value.error(format!(
                "expected {n} value{} (one per coordinate), found {}",
                if n == 1 { "" } else { "s" },
                items.len()
            ));
            return None;
        }
        items.iter().map(|i| i.number()).collect()
    } else if n == 1 {
        value.number().map(|v| vec![v])
    } else {
        value.error(format!(
            "expected an array of {n} numbers, one per coordinate"
        ));
        None
    }
}

fn non_negative_all(value: &Value<'_, '_>, values: Vec<f64>) -> Option<Vec<f64>> {
    if values.iter().all(|&v| v >= 0.0) {
        Some(values)
    } else {
        value.error("expected numbers ≥ 0");
        None
    }
}

impl<'c, 's> SceneReader<'c, 's> {
    /// Reads every `[[multibodies]]` table and adds the multibodies to `world` (whose bodies are
    /// already in, so joints can hang from fixed bodies).
    pub(super) fn read_multibodies(
        &self,
        root: &Table<'c, 's>,
        world: &mut World,
        materials: &BTreeMap<String, Material>,
        default_material: Material,
    ) {
        let Some(tables) = root.array_of_tables("multibodies") else {
            return;
        };
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut watches: Vec<(String, Value<'c, 's>)> = Vec::new();
        let mut controlled: std::collections::HashSet<String> = Default::default();
        for table in &tables {
            table.reject_unknown(MULTIBODY_KEYS);
            let errors_before = self.ctx.error_count();
            let name = table
                .required("name", "a string")
                .and_then(|v| {
                    let n = v.string()?.to_string();
                    let (line, _) = self.ctx.location(v.span().start);
                    if n.is_empty() {
                        v.error("a multibody's name must not be empty");
                    } else if let Some(first) = names.get(&n) {
                        v.error(format!(
                            "another multibody is already named `{n}` (line {first}); names must be unique"
                        ));
                    } else {
                        names.insert(n.clone(), line);
                    }
                    Some(n)
                })
                .unwrap_or_default();
            let (links, link_names) = self.read_links(table, materials, default_material);
            let (joints, info) = self.read_joints(table, &links, &link_names, world);
            let controllers =
                self.read_controllers(table, &name, &links, &joints, &info, &mut watches);
            // Written with controllers (even ones with errors, reported already): watchable.
            if !controllers.is_empty() || table.has("controllers") {
                controlled.insert(name.clone());
            }
            if self.ctx.error_count() > errors_before {
                continue;
            }
            let desc = MultibodyDesc {
                name: name.clone(),
                links,
                joints,
                controllers,
            };
            let joint_names: Vec<String> = desc.joints.iter().map(|j| j.name.clone()).collect();
            match world.add_multibody(desc) {
                Ok(id) => {
                    let stops: Vec<&str> = joint_names
                        .iter()
                        .filter(|n| info.get(n.as_str()).is_some_and(|i| i.auto_stop))
                        .map(String::as_str)
                        .collect();
                    set_automatic_stops(world, id, &stops);
                }
                Err(e) => self.ctx.error(&table.span(), table.path(), e.to_string()),
            }
        }
        // A controller steers by another multibody as observed at that one's controller
        // updates: it must exist and have controllers.
        for (name, value) in &watches {
            if !names.contains_key(name) {
                let known: Vec<&str> = names.keys().map(String::as_str).collect();
                value.error(format!(
                    "no multibody named `{name}` (multibodies: {})",
                    known.join(", ")
                ));
            } else if !controlled.contains(name) {
                value.error(format!(
                    "multibody `{name}` has no controllers: a multibody is observed at its controller updates, so only a controlled one can be steered by"
                ));
            }
        }
    }

    fn read_links(
        &self,
        table: &Table<'c, 's>,
        materials: &BTreeMap<String, Material>,
        default_material: Material,
    ) -> (Vec<BodyDesc>, Vec<String>) {
        let Some(tables) = table
            .required("links", "an array of [[multibodies.links]] tables")
            .and_then(|_| table.array_of_tables("links"))
        else {
            return (Vec::new(), Vec::new());
        };
        if tables.is_empty() {
            table.error("a multibody needs at least one link");
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::new();
        // Every link name, including links with errors, so joints naming them do not cascade.
        let mut all_names = Vec::new();
        for t in &tables {
            let name = t.required("name", "a string").and_then(|v| {
                let n = v.string()?.to_string();
                let (line, _) = self.ctx.location(v.span().start);
                if n.is_empty() {
                    v.error("a link's name must not be empty");
                } else if n == WORLD {
                    v.error("a link cannot be named \"world\": that name means the inertial frame");
                } else if let Some(first) = seen.get(&n) {
                    v.error(format!(
                        "another link of this multibody is already named `{n}` (line {first})"
                    ));
                } else {
                    seen.insert(n.clone(), line);
                }
                all_names.push(n.clone());
                Some(n)
            });
            if let Some(v) = t.get("relative_to") {
                v.error("a link is placed in world coordinates at the reference configuration, so it takes no `relative_to`");
            }
            for key in ["motion", "kinematic", "velocity", "angular_velocity"] {
                if let Some(v) = t.get(key) {
                    v.error(format!(
                        "a link is moved by its joint, so it takes no `{key}`; give initial motion on the joint (`initial_velocity`, or `velocity` and `angular_velocity` for a floating joint)"
                    ));
                }
            }
            let errors_before = self.ctx.error_count();
            let desc = self.read_body(t, name.unwrap_or_default(), materials, default_material);
            if let Some(mut desc) = desc
                && self.ctx.error_count() == errors_before
            {
                desc.motion = MotionType::Dynamic;
                out.push(desc);
            }
        }
        (out, all_names)
    }

    fn read_joints(
        &self,
        table: &Table<'c, 's>,
        links: &[BodyDesc],
        all_links: &[String],
        world: &World,
    ) -> (Vec<JointDesc>, HashMap<String, JointInfo>) {
        let errors_before = self.ctx.error_count();
        let mut joints = Vec::new();
        let mut info = HashMap::new();
        let Some(tables) = table
            .required(
                "joints",
                "an array of [[multibodies.joints]] tables, one per link",
            )
            .and_then(|_| table.array_of_tables("joints"))
        else {
            return (joints, info);
        };
        let link_names: Vec<&str> = all_links.iter().map(String::as_str).collect();
        let mut children: HashMap<String, String> = HashMap::new();
        for t in &tables {
            let Some(kind_name) = t
                .required("type", "a joint type")
                .and_then(|v| v.choice(JOINT_TYPES))
            else {
                continue;
            };
            let extra: &[&str] = match kind_name {
                "helical" | "screw" => &["pitch"],
                "floating" => &["velocity", "angular_velocity"],
                "spherical" => &[
                    "anchor",
                    "initial_position",
                    "angular_velocity",
                    "stiffness",
                    "damping",
                    "armature",
                ],
                "fixed" => &["anchor"],
                _ => &[],
            };
            let scalar = !matches!(kind_name, "spherical" | "fixed" | "floating");
            let mut known: Vec<&str> = JOINT_COMMON.iter().chain(extra).copied().collect();
            if scalar {
                known.extend(SCALAR_JOINT_KEYS);
            }
            if kind_name == "planar" {
                known.push("x_axis");
            }
            t.reject_unknown(&known);
            let Some(kind) = kind_from_name(kind_name, t) else {
                continue;
            };
            // Child and parent.
            let child_value = t.required("child", "the name of the link this joint moves");
            let child = child_value.as_ref().and_then(|v| {
                let c = v.string()?;
                if !link_names.contains(&c) {
                    v.error(format!(
                        "no link named `{c}` in this multibody (links: {})",
                        link_names.join(", ")
                    ));
                    return None;
                }
                if let Some(other) = children.get(c) {
                    v.error(format!(
                        "link `{c}` already has a joint (`{other}`); each link has exactly one joint to its parent (closed loops are not supported)"
                    ));
                    return None;
                }
                Some(c.to_string())
            });
            let name = t
                .get("name")
                .and_then(|v| v.string().map(str::to_string))
                .or_else(|| child.clone())
                .unwrap_or_default();
            if let Some(c) = &child {
                children.insert(c.clone(), name.clone());
            }
            let parent = match t.get("parent") {
                None => WORLD.to_string(),
                Some(v) => match v.string() {
                    Some(p) if p == WORLD || link_names.contains(&p) => p.to_string(),
                    Some(p) => match world.body_id(p) {
                        Some(id) if matches!(world.body(id).motion(), MotionType::Fixed) => {
                            p.to_string()
                        }
                        Some(_) => {
                            v.error(format!(
                                "body `{p}` moves; a multibody can hang only from \"world\", a fixed body, or one of its own links"
                            ));
                            String::new()
                        }
                        None => {
                            v.error(format!(
                                "no link or body named `{p}` (give \"world\", a fixed body, or a link of this multibody: {})",
                                link_names.join(", ")
                            ));
                            String::new()
                        }
                    },
                    None => String::new(),
                },
            };
            if child.as_deref() == Some(parent.as_str()) {
                t.error("a joint cannot connect a link to itself");
            }
            let child_link = child
                .as_ref()
                .and_then(|c| links.iter().find(|l| &l.name == c));
            let default_anchor = child_link.map_or(Vec3::zeros(), |l| l.pose.translation.vector);
            let anchor = t
                .get("anchor")
                .and_then(|v| v.vec3())
                .unwrap_or(default_anchor);
            let needs_axis = !matches!(
                kind,
                JointKind::Spherical | JointKind::Fixed | JointKind::Floating
            );
            let axis = if needs_axis {
                t.required("axis", "a direction [x, y, z]")
                    .and_then(|v| {
                        let a = v.vec3()?;
                        if a.norm() > 0.0 {
                            Some(a)
                        } else {
                            v.error("the axis has zero length; give a non-zero direction");
                            None
                        }
                    })
                    .unwrap_or_else(Vec3::z)
            } else {
                Vec3::z()
            };
            let mut joint = JointDesc::new(
                name.clone(),
                kind,
                parent,
                child.unwrap_or_default(),
                anchor,
                axis,
            );
            joint.x_axis = t.get("x_axis").and_then(|v| {
                let x = v.vec3()?;
                let perpendicular = x - axis.normalize() * axis.normalize().dot(&x);
                if perpendicular.norm() <= 1e-9 * x.norm() {
                    v.error("x_axis must not be parallel to the axis");
                    None
                } else {
                    Some(x)
                }
            });
            let nv = kind.nv();
            let auto_stop = self.read_joint_motion(t, &kind, &mut joint);
            if auto_stop && !scalar {
                // Unreachable: only scalar joints take limits.
                joint.passive = PassiveElements::none(nv);
            }
            info.insert(name, JointInfo { kind, auto_stop });
            joints.push(joint);
        }
        // A link without a joint, unless a joint with errors may have been meant for it.
        let joints_ok = self.ctx.error_count() == errors_before;
        for link in links.iter().filter(|_| joints_ok) {
            if !children.contains_key(&link.name) {
                table.error(format!(
                    "link `{}` has no joint: add a [[multibodies.joints]] table with child = \"{}\" (type = \"floating\" for a free base)",
                    link.name, link.name
                ));
            }
        }
        (joints, info)
    }

    /// Initial state and passive elements of a joint; returns whether limit stops need their
    /// automatic stiffness.
    fn read_joint_motion(
        &self,
        t: &Table<'c, 's>,
        kind: &JointKind,
        joint: &mut JointDesc,
    ) -> bool {
        let nv = kind.nv();
        match kind {
            JointKind::Floating => {
                let v = t.get("velocity").and_then(|v| v.vec3()).unwrap_or_default();
                let w = t
                    .get("angular_velocity")
                    .and_then(|v| v.vec3())
                    .unwrap_or_default();
                joint.initial_velocity = vec![w.x, w.y, w.z, v.x, v.y, v.z];
                false
            }
            JointKind::Fixed => false,
            JointKind::Spherical => {
                if let Some(q) = t.get("initial_position").and_then(|v| read_orientation(&v)) {
                    let q = q.quaternion();
                    joint.initial_position = vec![q.w, q.i, q.j, q.k];
                }
                if let Some(w) = t.get("angular_velocity").and_then(|v| v.vec3()) {
                    joint.initial_velocity = w.as_slice().to_vec();
                }
                if let Some(k) = t.get("stiffness").and_then(|v| v.non_negative()) {
                    joint.passive.stiffness = vec![k; 3];
                }
                if let Some(c) = t.get("damping").and_then(|v| v.non_negative()) {
                    joint.passive.damping = vec![c; 3];
                }
                if let Some(a) = t.get("armature").and_then(|v| v.non_negative()) {
                    joint.passive.armature = vec![a; 3];
                }
                false
            }
            _ => {
                let convert = |values: Vec<f64>| -> Vec<f64> {
                    values
                        .into_iter()
                        .enumerate()
                        .map(|(k, x)| to_internal(kind, k, x))
                        .collect()
                };
                if let Some(q) = t
                    .get("initial_position")
                    .and_then(|v| per_coordinate(&v, nv))
                {
                    joint.initial_position = convert(q);
                }
                if let Some(v) = t
                    .get("initial_velocity")
                    .and_then(|v| per_coordinate(&v, nv))
                {
                    joint.initial_velocity = v;
                }
                if let Some(v) = t.get("stiffness")
                    && let Some(k) = per_coordinate(&v, nv).and_then(|k| non_negative_all(&v, k))
                {
                    joint.passive.stiffness = k;
                }
                if let Some(r) = t.get("rest").and_then(|v| per_coordinate(&v, nv)) {
                    joint.passive.rest = convert(r);
                }
                if let Some(v) = t.get("damping")
                    && let Some(c) = per_coordinate(&v, nv).and_then(|c| non_negative_all(&v, c))
                {
                    joint.passive.damping = c;
                }
                if let Some(v) = t.get("armature")
                    && let Some(a) = per_coordinate(&v, nv).and_then(|a| non_negative_all(&v, a))
                {
                    joint.passive.armature = a;
                }
                let Some(limits_value) = t.get("limits") else {
                    for key in ["limit_stiffness", "limit_damping"] {
                        if let Some(v) = t.get(key) {
                            v.error("only meaningful with `limits`");
                        }
                    }
                    return false;
                };
                let pairs: Option<Vec<[f64; 2]>> = if nv == 1 {
                    limits_value.numbers::<2>().map(|p| vec![p])
                } else {
                    limits_value.array().and_then(|items| {
                        if items.len() != nv {
                            limits_value.error(format!(
                                "expected {nv} [lower, upper] pairs, one per coordinate"
                            ));
                            return None;
                        }
                        items.iter().map(|i| i.numbers::<2>()).collect()
                    })
                };
                let Some(pairs) = pairs else { return false };
                for (k, [lo, hi]) in pairs.into_iter().enumerate() {
                    if lo >= hi {
                        limits_value.error(format!(
                            "limits must be [lower, upper] with lower < upper, found [{lo}, {hi}]"
                        ));
                    }
                    joint.passive.limits[k] = (to_internal(kind, k, lo), to_internal(kind, k, hi));
                }
                let stiffness = t.get("limit_stiffness").and_then(|v| v.positive());
                let damping = t.get("limit_damping").and_then(|v| v.non_negative());
                if let Some(k) = stiffness {
                    joint.passive.limit_stiffness = vec![k; nv];
                    // Without a damping, a given stiffness makes an elastic stop.
                    joint.passive.limit_damping = vec![damping.unwrap_or(0.0); nv];
                    false
                } else {
                    if let Some(v) = t.get("limit_damping") {
                        v.error("give `limit_stiffness` too, or neither (for an automatic stiff, critically damped stop)");
                    }
                    true
                }
            }
        }
    }
}

/// Gives limit stops without a stiffness a stiff, critically damped one: natural frequency
/// `LIMIT_FREQUENCY` with the joint's effective inertia `H_jj` at the start (`k = H_jj ω²`,
/// `c = 2 H_jj ω`).
pub(crate) fn set_automatic_stops(
    world: &mut World,
    id: crate::multibody::MultibodyId,
    joints: &[&str],
) {
    if joints.is_empty() {
        return;
    }
    let mb = world.multibody_mut(id);
    let q = mb.q().to_vec();
    let mut ws = crate::multibody::Workspace::new(mb.tree().links().len());
    let h = mb.tree().mass_matrix(&q, &mut ws);
    let omega = TAU * LIMIT_FREQUENCY;
    let tree = mb.tree_mut();
    for i in 0..tree.links().len() {
        let link = tree.link_mut(i);
        if !joints.contains(&link.joint.name.as_str()) {
            continue;
        }
        let v_index = link.joint.v_index;
        for k in 0..link.joint.nv() {
            let inertia = h[(v_index + k, v_index + k)];
            link.joint.passive.limit_stiffness[k] = inertia * omega * omega;
            link.joint.passive.limit_damping[k] = 2.0 * inertia * omega;
        }
    }
    mb.restart();
}
