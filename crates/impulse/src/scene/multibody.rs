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
use crate::math::{Quat, Vec3};
use crate::multibody::{
    Arrival, Bug, Controller, Hop, JointDesc, JointKind, JointPid, JointTarget,
    MIN_CONTROLLER_PERIOD, MultibodyDesc, PassiveElements, PoseGoal, PosePd, Rover, WORLD,
};
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
];
const CONTROLLER_TYPES: &[&str] = &["pd", "pid", "pose_pd", "hop", "rover", "bug"];
const ROVER_KEYS: &[&str] = &[
    "type",
    "rate",
    "decision_rate",
    "left_wheels",
    "right_wheels",
    "wheel_radius",
    "wheel_kv",
    "wheel_max_torque",
    "speed",
    "pistons",
    "piston_kp",
    "piston_kv",
    "piston_max_force",
    "jack",
    "prey",
    "arena",
    "push_distance",
    "prey_deceleration",
    "reverse_speed",
];
const BUG_KEYS: &[&str] = &[
    "type",
    "rate",
    "decision_rate",
    "left_leg",
    "right_leg",
    "leg_rate",
    "leg_kv",
    "leg_max_torque",
    "turn_gain",
    "threat",
    "threat_radius",
    "repulsion",
    "arena",
];
const JOINT_CONTROLLER_KEYS: &[&str] = &[
    "type",
    "joint",
    "coordinate",
    "kp",
    "kv",
    "ki",
    "target",
    "target_velocity",
    "max_force",
    "rate",
];
const POSE_CONTROLLER_KEYS: &[&str] = &[
    "type",
    "link",
    "target_position",
    "target_orientation",
    "goals",
    "relative_to",
    "goal_distance",
    "goal_angle",
    "goal_speed",
    "goal_angular_speed",
    "horizontal_only",
    "kp",
    "kv",
    "kp_angular",
    "kv_angular",
    "max_force",
    "max_torque",
    "rate",
];
const HOP_KEYS: &[&str] = &[
    "type",
    "link",
    "landing",
    "relative_to",
    "flight_time",
    "reach",
    "rest_speed",
    "kp",
    "kv",
    "max_force",
    "rate",
];

/// Natural frequency (per unit time) and damping ratio of limit stops whose stiffness is not
/// given: stiff, critically damped stops scaled by the joint's effective inertia at the start.
const LIMIT_FREQUENCY: f64 = 100.0;

/// What the reader learned about one joint, to check controllers against.
struct JointInfo {
    kind: JointKind,
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
fn to_internal(kind: &JointKind, k: usize, value: f64) -> f64 {
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

/// A controller's update rate: positive, and at most `1 / MIN_CONTROLLER_PERIOD` (the limit
/// [`crate::multibody::Multibody::new`] enforces, reported here at the key).
fn update_rate(value: Value<'_, '_>) -> Option<f64> {
    let rate = value.positive()?;
    if 1.0 / rate < MIN_CONTROLLER_PERIOD {
        value.error(format!(
            "expected at most {} updates per unit time (each update is a step of the \
             simulation), found {}",
            crate::math::readable(1.0 / MIN_CONTROLLER_PERIOD),
            crate::math::readable(rate)
        ));
        return None;
    }
    Some(rate)
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

    fn read_controllers(
        &self,
        table: &Table<'c, 's>,
        multibody: &str,
        links: &[BodyDesc],
        joints: &[JointDesc],
        info: &HashMap<String, JointInfo>,
        watches: &mut Vec<(String, Value<'c, 's>)>,
    ) -> Vec<Box<dyn Controller>> {
        let mut out: Vec<Box<dyn Controller>> = Vec::new();
        let Some(tables) = table.array_of_tables("controllers") else {
            return out;
        };
        for t in &tables {
            let Some(kind) = t
                .required(
                    "type",
                    "\"pd\", \"pid\", \"pose_pd\", \"hop\", \"rover\" or \"bug\"",
                )
                .and_then(|v| v.choice(CONTROLLER_TYPES))
            else {
                continue;
            };
            let rate = t
                .required("rate", "updates per unit time (a positive number)")
                .and_then(update_rate);
            let gain = |key: &str, required: bool| -> Option<f64> {
                if required {
                    t.required(key, "a gain ≥ 0").and_then(|v| v.non_negative())
                } else {
                    Some(t.get(key).and_then(|v| v.non_negative()).unwrap_or(0.0))
                }
            };
            if kind == "rover" || kind == "bug" {
                if let Some(c) = self.read_creature(t, kind, multibody, joints, info, watches) {
                    out.push(c);
                }
                continue;
            }
            if kind == "pose_pd" || kind == "hop" {
                let link = t.required("link", "a link name").and_then(|v| {
                    let name = v.string()?;
                    match links.iter().find(|l| l.name == name) {
                        Some(l) => Some(l),
                        None => {
                            v.error(format!("no link named `{name}` in multibody `{multibody}`"));
                            None
                        }
                    }
                });
                let relative_to = t.get("relative_to").and_then(|v| {
                    let name = v.string()?.to_string();
                    if name == multibody {
                        v.error("a controller cannot steer by its own multibody");
                        return None;
                    }
                    watches.push((name.clone(), v));
                    Some(name)
                });
                let (Some(link), Some(rate)) = (link, rate) else {
                    continue;
                };
                if kind == "hop" {
                    t.reject_unknown(HOP_KEYS);
                    let landing = t
                        .required("landing", "[x, y, z]: where the centre of mass lands")
                        .and_then(|v| v.vec3());
                    let flight_time = t
                        .required("flight_time", "the hop's time of flight (> 0)")
                        .and_then(|v| v.positive());
                    let reach = t.get("reach").and_then(|v| v.non_negative());
                    let rest_speed = t.get("rest_speed").and_then(|v| v.non_negative());
                    let (Some(landing), Some(flight_time)) = (landing, flight_time) else {
                        continue;
                    };
                    let mut hop = Hop::new(
                        link.name.clone(),
                        landing,
                        relative_to,
                        flight_time,
                        reach.unwrap_or(0.0),
                        rest_speed.unwrap_or(0.0),
                        rate,
                    );
                    let (Some(kp), Some(kv)) = (gain("kp", false), gain("kv", false)) else {
                        continue;
                    };
                    let max_force = t
                        .get("max_force")
                        .and_then(|v| v.positive())
                        .unwrap_or(f64::INFINITY);
                    hop.pull = [kp, kv, max_force];
                    out.push(Box::new(hop));
                    continue;
                }
                t.reject_unknown(POSE_CONTROLLER_KEYS);
                let single = t.get("target_position").and_then(|v| v.vec3());
                let single_orientation = t
                    .get("target_orientation")
                    .and_then(|v| read_orientation(&v));
                let mut goals = Vec::new();
                if let Some(value) = t.get("goals") {
                    if t.has("target_position") || t.has("target_orientation") {
                        value.error("give either `goals` or `target_position`/`target_orientation`, not both");
                    }
                    let tables = t.array_of_tables("goals").unwrap_or_default();
                    if tables.is_empty() {
                        value.error(
                            "expected at least one goal { position = [x, y, z], orientation = … }",
                        );
                    }
                    for goal in &tables {
                        goal.reject_unknown(&["position", "orientation"]);
                        let position = goal
                            .required("position", "[x, y, z]")
                            .and_then(|v| v.vec3());
                        let orientation = match goal.get("orientation") {
                            Some(v) => read_orientation(&v),
                            None => Some(Quat::identity()),
                        };
                        if let (Some(position), Some(orientation)) = (position, orientation) {
                            goals.push(PoseGoal {
                                position,
                                orientation,
                            });
                        }
                    }
                } else {
                    // One goal; by default the link's starting pose (in the world).
                    goals.push(PoseGoal {
                        position: single.unwrap_or(link.pose.translation.vector),
                        orientation: single_orientation.unwrap_or(link.pose.rotation),
                    });
                }
                let gains = [
                    gain("kp", true),
                    gain("kv", false),
                    gain("kp_angular", false),
                    gain("kv_angular", false),
                ];
                let limit = |key: &str| {
                    t.get(key)
                        .and_then(|v| v.positive())
                        .unwrap_or(f64::INFINITY)
                };
                let tolerance = |key: &str| t.get(key).and_then(|v| v.non_negative());
                let arrival = Arrival {
                    distance: tolerance("goal_distance").unwrap_or(0.0),
                    angle: tolerance("goal_angle").unwrap_or(0.0).to_radians(),
                    speed: tolerance("goal_speed").unwrap_or(0.0),
                    angular_speed: tolerance("goal_angular_speed").unwrap_or(0.0),
                };
                let horizontal_only = t
                    .get("horizontal_only")
                    .and_then(|v| v.boolean())
                    .unwrap_or(false);
                let [Some(kp), Some(kv), Some(kpa), Some(kva)] = gains else {
                    continue;
                };
                let mut controller = PosePd::new(
                    link.name.clone(),
                    Vec3::zeros(),
                    Quat::identity(),
                    kp,
                    kv,
                    kpa,
                    kva,
                    rate,
                );
                controller.goals = goals;
                controller.arrival = arrival;
                controller.relative_to = relative_to;
                controller.horizontal_only = horizontal_only;
                controller.max_force = limit("max_force");
                controller.max_torque = limit("max_torque");
                out.push(Box::new(controller));
                continue;
            }
            t.reject_unknown(JOINT_CONTROLLER_KEYS);
            let joint = t.required("joint", "a joint name").and_then(|v| {
                let name = v.string()?;
                match info.get(name) {
                    Some(i) => Some((name.to_string(), i.kind, v)),
                    None => {
                        let known: Vec<&str> = joints.iter().map(|j| j.name.as_str()).collect();
                        v.error(format!(
                            "no joint named `{name}` in multibody `{multibody}` (joints: {})",
                            known.join(", ")
                        ));
                        None
                    }
                }
            });
            let coordinate = match t.get("coordinate") {
                Some(v) => v.number().and_then(|c| {
                    if c >= 0.0 && c.fract() == 0.0 && c < 6.0 {
                        Some(c as usize)
                    } else {
                        v.error(format!("expected a coordinate index 0, 1, …, found {c}"));
                        None
                    }
                }),
                None => Some(0),
            };
            let ki = if kind == "pid" {
                gain("ki", true)
            } else {
                if let Some(v) = t.get("ki") {
                    v.error("a PD controller has no integral gain; use type = \"pid\"");
                }
                Some(0.0)
            };
            let kp = gain("kp", true);
            let kv = gain("kv", false);
            let target = t.get("target").and_then(|v| v.number()).unwrap_or(0.0);
            let target_velocity = t
                .get("target_velocity")
                .and_then(|v| v.number())
                .unwrap_or(0.0);
            let max_force = t
                .get("max_force")
                .and_then(|v| v.positive())
                .unwrap_or(f64::INFINITY);
            let (
                Some((name, joint_kind, value)),
                Some(coordinate),
                Some(ki),
                Some(kp),
                Some(kv),
                Some(rate),
            ) = (joint, coordinate, ki, kp, kv, rate)
            else {
                continue;
            };
            if !joint_kind.has_scalar_coordinates() {
                value.error(format!(
                    "joint `{name}` is {joint_kind}; joint controllers drive revolute, prismatic, cylindrical, helical and planar joints"
                ));
                continue;
            }
            if coordinate >= joint_kind.nv() {
                value.error(format!(
                    "joint `{name}` ({joint_kind}) has {} coordinate(s); `coordinate` = {coordinate} does not exist",
                    joint_kind.nv()
                ));
                continue;
            }
            let mut pid = JointPid::pd(
                name,
                kp,
                kv,
                to_internal(&joint_kind, coordinate, target),
                rate,
            );
            pid.target = JointTarget {
                joint: pid.target.joint.clone(),
                coordinate,
            };
            pid.ki = ki;
            pid.velocity = target_velocity;
            pid.max_force = max_force;
            out.push(Box::new(pid));
        }
        out
    }
}

impl<'c, 's> SceneReader<'c, 's> {
    /// The creature war's controllers (`"rover"`, `"bug"`; `multibody::creatures`).
    fn read_creature(
        &self,
        t: &Table<'c, 's>,
        kind: &str,
        multibody: &str,
        joints: &[JointDesc],
        info: &HashMap<String, JointInfo>,
        watches: &mut Vec<(String, Value<'c, 's>)>,
    ) -> Option<Box<dyn Controller>> {
        // A joint of this multibody of one of the given kinds.
        let joint = |v: &Value<'c, 's>, kinds: &[JointKind], what: &str| -> Option<String> {
            let name = v.string()?;
            match info.get(name) {
                Some(i) if kinds.contains(&i.kind) => Some(name.to_string()),
                Some(i) => {
                    v.error(format!("joint `{name}` is {}; expected {what}", i.kind));
                    None
                }
                None => {
                    let known: Vec<&str> = joints.iter().map(|j| j.name.as_str()).collect();
                    v.error(format!(
                        "no joint named `{name}` in multibody `{multibody}` (joints: {})",
                        known.join(", ")
                    ));
                    None
                }
            }
        };
        let revolute = [JointKind::Revolute];
        let joint_list = |key: &str, kinds: &[JointKind], what: &str| -> Option<Vec<String>> {
            let value = t.required(key, &format!("an array of {what} names"))?;
            let items = value.array()?;
            if items.is_empty() {
                value.error(format!("expected at least one {what}"));
                return None;
            }
            let names: Vec<Option<String>> = items.iter().map(|v| joint(v, kinds, what)).collect();
            names.into_iter().collect()
        };
        let positive = |key: &str, expected: &str| t.required(key, expected)?.positive();
        let optional_positive = |key: &str, default: f64| match t.get(key) {
            Some(v) => v.positive(),
            None => Some(default),
        };
        let optional_non_negative = |key: &str, default: f64| match t.get(key) {
            Some(v) => v.non_negative(),
            None => Some(default),
        };
        let mut watched = |v: Value<'c, 's>| -> Option<String> {
            let name = v.string()?.to_string();
            if name == multibody {
                v.error("a creature cannot watch its own multibody");
                return None;
            }
            watches.push((name.clone(), v));
            Some(name)
        };
        let rate = t
            .required("rate", "servo updates per unit time (a positive number)")
            .and_then(update_rate);
        let decision_rate = optional_positive("decision_rate", 100.0);
        let arena = positive("arena", "half-width of the square world (> 0)");
        if kind == "rover" {
            t.reject_unknown(ROVER_KEYS);
            let left = joint_list("left_wheels", &revolute, "revolute joint");
            let right = joint_list("right_wheels", &revolute, "revolute joint");
            let pistons = match t.get("pistons") {
                Some(_) => joint_list("pistons", &[JointKind::Prismatic], "prismatic joint"),
                None => Some(Vec::new()),
            };
            let prey = t
                .required("prey", "an array of multibody names")
                .and_then(|v| {
                    let items = v.array()?;
                    if items.is_empty() {
                        v.error("expected at least one multibody to hunt");
                        return None;
                    }
                    let names: Vec<Option<String>> = items.into_iter().map(&mut watched).collect();
                    names.into_iter().collect::<Option<Vec<String>>>()
                });
            let wheel_radius = positive("wheel_radius", "the wheels' radius (> 0)");
            let wheel_kv = t
                .required("wheel_kv", "the wheel servos' gain (≥ 0)")
                .and_then(|v| v.non_negative());
            let speed = positive("speed", "cruising ground speed (> 0)");
            let wheel_max_torque = optional_positive("wheel_max_torque", f64::INFINITY);
            let piston_kp = optional_non_negative("piston_kp", 0.0);
            let piston_kv = optional_non_negative("piston_kv", 0.0);
            let piston_max_force = optional_positive("piston_max_force", f64::INFINITY);
            let jack = match t.get("jack") {
                Some(v) => v.number(),
                None => Some(0.0),
            };
            let push_distance = optional_positive("push_distance", 50.0);
            let prey_deceleration = optional_positive("prey_deceleration", 150.0);
            let reverse_speed = optional_positive("reverse_speed", 5.0);
            let (
                Some(left),
                Some(right),
                Some(pistons),
                Some(prey),
                Some(wheel_radius),
                Some(wheel_kv),
                Some(speed),
                Some(arena),
                Some(rate),
                Some(decision_rate),
            ) = (
                left,
                right,
                pistons,
                prey,
                wheel_radius,
                wheel_kv,
                speed,
                arena,
                rate,
                decision_rate,
            )
            else {
                return None;
            };
            let (
                Some(wheel_max_torque),
                Some(piston_kp),
                Some(piston_kv),
                Some(piston_max_force),
                Some(jack),
                Some(push_distance),
                Some(prey_deceleration),
                Some(reverse_speed),
            ) = (
                wheel_max_torque,
                piston_kp,
                piston_kv,
                piston_max_force,
                jack,
                push_distance,
                prey_deceleration,
                reverse_speed,
            )
            else {
                return None;
            };
            let mut rover = Rover::new(
                left,
                right,
                wheel_radius,
                wheel_kv,
                speed,
                prey,
                arena,
                rate,
                decision_rate,
            );
            rover.wheel_max_torque = wheel_max_torque;
            rover.pistons = pistons;
            rover.piston_kp = piston_kp;
            rover.piston_kv = piston_kv;
            rover.piston_max_force = piston_max_force;
            rover.jack = jack;
            rover.push_distance = push_distance;
            rover.prey_deceleration = prey_deceleration;
            rover.reverse_speed = reverse_speed;
            return Some(Box::new(rover));
        }
        t.reject_unknown(BUG_KEYS);
        let leg = |key: &str| {
            t.required(key, "a revolute joint name")
                .and_then(|v| joint(&v, &revolute, "a revolute joint"))
        };
        let (left, right) = (leg("left_leg"), leg("right_leg"));
        let leg_rate = positive("leg_rate", "the legs' rate when walking straight (> 0)");
        let leg_kv = t
            .required("leg_kv", "the leg servos' gain (≥ 0)")
            .and_then(|v| v.non_negative());
        let leg_max_torque = optional_positive("leg_max_torque", f64::INFINITY);
        let turn_gain = optional_non_negative("turn_gain", 1.0);
        let threat = t.get("threat").and_then(&mut watched);
        let threat_radius = optional_non_negative("threat_radius", 0.0);
        let repulsion = optional_non_negative("repulsion", 0.0);
        if let Some(v) = t.get("threat")
            && !t.has("threat_radius")
        {
            v.error("a `threat` needs a `threat_radius`: how near it must be to be fled");
        }
        let (
            Some(left),
            Some(right),
            Some(leg_rate),
            Some(leg_kv),
            Some(leg_max_torque),
            Some(turn_gain),
            Some(threat_radius),
            Some(repulsion),
            Some(arena),
            Some(rate),
            Some(decision_rate),
        ) = (
            left,
            right,
            leg_rate,
            leg_kv,
            leg_max_torque,
            turn_gain,
            threat_radius,
            repulsion,
            arena,
            rate,
            decision_rate,
        )
        else {
            return None;
        };
        let mut bug = Bug::new(left, right, leg_rate, leg_kv, arena, rate, decision_rate);
        bug.leg_max_torque = leg_max_torque;
        bug.turn_gain = turn_gain;
        bug.threat = threat;
        bug.threat_radius = threat_radius;
        bug.repulsion = repulsion;
        Some(Box::new(bug))
    }
}

/// Gives limit stops without a stiffness a stiff, critically damped one: natural frequency
/// `LIMIT_FREQUENCY` with the joint's effective inertia `H_jj` at the start (`k = H_jj ω²`,
/// `c = 2 H_jj ω`).
fn set_automatic_stops(world: &mut World, id: crate::multibody::MultibodyId, joints: &[&str]) {
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
