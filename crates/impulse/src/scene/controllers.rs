//! `[[multibodies.controllers]]`: a multibody's controllers in scene files, one reader per
//! `type`. Documented in `docs/scene-format.md`.
//!
//! Each reader checks its table and what it names (joints and links of its multibody, other
//! multibodies to steer by) and gives a [`ControllerDesc`]: the controller with every field
//! read, not yet bound to its multibody. [`ControllerDesc::into_controller`] is the one place a
//! description becomes a boxed controller.

use std::collections::HashMap;

use super::multibody::{JointInfo, to_internal};
use super::reader::{Table, Value};
use super::{SceneReader, read_orientation};
use crate::control::demo::{Bug, Hop, Rover};
use crate::control::{Arrival, JointPid, JointTarget, PoseGoal, PosePd};
use crate::dynamics::BodyDesc;
use crate::math::{Quat, Vec3};
use crate::multibody::{Controller, JointDesc, JointKind, MIN_CONTROLLER_PERIOD};

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

/// A controller as a scene describes it, one variant per `type`: the controller itself with
/// every field read, not yet bound to its multibody.
enum ControllerDesc {
    /// `"pd"`, `"pid"`.
    Joint(JointPid),
    /// `"pose_pd"`.
    Pose(PosePd),
    /// `"hop"` (a demo controller).
    Hop(Hop),
    /// `"rover"` (a demo controller).
    Rover(Rover),
    /// `"bug"` (a demo controller).
    Bug(Bug),
}

impl ControllerDesc {
    /// The controller, boxed for its multibody.
    fn into_controller(self) -> Box<dyn Controller> {
        match self {
            Self::Joint(c) => Box::new(c),
            Self::Pose(c) => Box::new(c),
            Self::Hop(c) => Box::new(c),
            Self::Rover(c) => Box::new(c),
            Self::Bug(c) => Box::new(c),
        }
    }
}

/// The multibody whose controllers are read: what its controllers may name, and the other
/// multibodies they have named so far.
struct Owner<'a, 'c, 's> {
    name: &'a str,
    links: &'a [BodyDesc],
    joints: &'a [JointDesc],
    info: &'a HashMap<String, JointInfo>,
    watches: &'a mut Watches<'c, 's>,
}

impl Owner<'_, '_, '_> {
    /// The joint of this multibody that `v` names, with what the reader learned about it;
    /// an unknown name is reported at `v`.
    fn joint<'v>(&self, v: &Value<'v, '_>) -> Option<(&'v str, &JointInfo)> {
        let name = v.string()?;
        match self.info.get(name) {
            Some(info) => Some((name, info)),
            None => {
                let known: Vec<&str> = self.joints.iter().map(|j| j.name.as_str()).collect();
                v.error(format!(
                    "no joint named `{name}` in multibody `{}` (joints: {})",
                    self.name,
                    known.join(", ")
                ));
                None
            }
        }
    }
}

/// Other multibodies named by controllers (to steer by or to watch), each with the value that
/// names it: checked once every multibody is read.
type Watches<'c, 's> = Vec<(String, Value<'c, 's>)>;

impl<'c, 's> SceneReader<'c, 's> {
    /// Reads a multibody's `[[controllers]]`; a controller with errors is reported and left
    /// out.
    pub(super) fn read_controllers(
        &self,
        table: &Table<'c, 's>,
        multibody: &str,
        links: &[BodyDesc],
        joints: &[JointDesc],
        info: &HashMap<String, JointInfo>,
        watches: &mut Watches<'c, 's>,
    ) -> Vec<Box<dyn Controller>> {
        let mut owner = Owner {
            name: multibody,
            links,
            joints,
            info,
            watches,
        };
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
            // Every kind has a rate; the creatures read theirs again with their own wording.
            let rate = t
                .required("rate", "updates per unit time (a positive number)")
                .and_then(update_rate);
            let desc = match kind {
                "pd" | "pid" => read_joint_pid(t, kind == "pid", rate, &owner),
                "pose_pd" => read_pose_pd(t, rate, &mut owner),
                "hop" => read_hop(t, rate, &mut owner),
                "rover" => read_rover(t, &mut owner),
                _ => read_bug(t, &mut owner), // "bug", the last of CONTROLLER_TYPES
            };
            out.extend(desc.map(ControllerDesc::into_controller));
        }
        out
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

/// A gain `key` (≥ 0); an optional one is 0 when absent.
fn gain(t: &Table<'_, '_>, key: &str, required: bool) -> Option<f64> {
    if required {
        t.required(key, "a gain ≥ 0").and_then(|v| v.non_negative())
    } else {
        Some(t.get(key).and_then(|v| v.non_negative()).unwrap_or(0.0))
    }
}

/// A force or torque limit `key` (> 0), unlimited when absent.
fn limit(t: &Table<'_, '_>, key: &str) -> f64 {
    t.get(key)
        .and_then(|v| v.positive())
        .unwrap_or(f64::INFINITY)
}

/// `"pd"` and `"pid"`: a joint coordinate's PD or PID controller.
fn read_joint_pid(
    t: &Table<'_, '_>,
    pid: bool,
    rate: Option<f64>,
    owner: &Owner,
) -> Option<ControllerDesc> {
    t.reject_unknown(JOINT_CONTROLLER_KEYS);
    let joint = t.required("joint", "a joint name").and_then(|v| {
        let (name, info) = owner.joint(&v)?;
        Some((name.to_string(), info.kind, v))
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
    let ki = if pid {
        gain(t, "ki", true)
    } else {
        if let Some(v) = t.get("ki") {
            v.error("a PD controller has no integral gain; use type = \"pid\"");
        }
        Some(0.0)
    };
    let kp = gain(t, "kp", true);
    let kv = gain(t, "kv", false);
    let target = t.get("target").and_then(|v| v.number()).unwrap_or(0.0);
    let target_velocity = t
        .get("target_velocity")
        .and_then(|v| v.number())
        .unwrap_or(0.0);
    let max_force = limit(t, "max_force");
    let (
        Some((name, joint_kind, value)),
        Some(coordinate),
        Some(ki),
        Some(kp),
        Some(kv),
        Some(rate),
    ) = (joint, coordinate, ki, kp, kv, rate)
    else {
        return None;
    };
    if !joint_kind.has_scalar_coordinates() {
        value.error(format!(
            "joint `{name}` is {joint_kind}; joint controllers drive revolute, prismatic, cylindrical, helical and planar joints"
        ));
        return None;
    }
    if coordinate >= joint_kind.nv() {
        value.error(format!(
            "joint `{name}` ({joint_kind}) has {} coordinate(s); `coordinate` = {coordinate} does not exist",
            joint_kind.nv()
        ));
        return None;
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
    Some(ControllerDesc::Joint(pid))
}

/// The link a pose controller or a hop drives (`link`) and the multibody whose frame its goals
/// are given in (`relative_to`, none for the world), with the controller's rate. Only when the
/// link and the rate are both read are the table's keys checked against `keys`.
fn read_steered_link<'a, 'c, 's>(
    t: &Table<'c, 's>,
    rate: Option<f64>,
    keys: &[&str],
    owner: &mut Owner<'a, 'c, 's>,
) -> Option<(&'a BodyDesc, Option<String>, f64)> {
    let links = owner.links;
    let link = t.required("link", "a link name").and_then(|v| {
        let name = v.string()?;
        match links.iter().find(|l| l.name == name) {
            Some(l) => Some(l),
            None => {
                v.error(format!(
                    "no link named `{name}` in multibody `{}`",
                    owner.name
                ));
                None
            }
        }
    });
    let relative_to = t
        .get("relative_to")
        .and_then(|v| watched(v, owner, "a controller cannot steer by its own multibody"));
    let (link, rate) = (link?, rate?);
    t.reject_unknown(keys);
    Some((link, relative_to, rate))
}

/// `"pose_pd"`: a PD controller on a link's pose, through a sequence of goals.
fn read_pose_pd<'c, 's>(
    t: &Table<'c, 's>,
    rate: Option<f64>,
    owner: &mut Owner<'_, 'c, 's>,
) -> Option<ControllerDesc> {
    let (link, relative_to, rate) = read_steered_link(t, rate, POSE_CONTROLLER_KEYS, owner)?;
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
            value.error("expected at least one goal { position = [x, y, z], orientation = … }");
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
        gain(t, "kp", true),
        gain(t, "kv", false),
        gain(t, "kp_angular", false),
        gain(t, "kv_angular", false),
    ];
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
        return None;
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
    controller.max_force = limit(t, "max_force");
    controller.max_torque = limit(t, "max_torque");
    Some(ControllerDesc::Pose(controller))
}

/// `"hop"`: the wine bottle's ballistic hop onto a landing point.
fn read_hop<'c, 's>(
    t: &Table<'c, 's>,
    rate: Option<f64>,
    owner: &mut Owner<'_, 'c, 's>,
) -> Option<ControllerDesc> {
    let (link, relative_to, rate) = read_steered_link(t, rate, HOP_KEYS, owner)?;
    let landing = t
        .required("landing", "[x, y, z]: where the centre of mass lands")
        .and_then(|v| v.vec3());
    let flight_time = t
        .required("flight_time", "the hop's time of flight (> 0)")
        .and_then(|v| v.positive());
    let reach = t.get("reach").and_then(|v| v.non_negative());
    let rest_speed = t.get("rest_speed").and_then(|v| v.non_negative());
    let (Some(landing), Some(flight_time)) = (landing, flight_time) else {
        return None;
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
    let (Some(kp), Some(kv)) = (gain(t, "kp", false), gain(t, "kv", false)) else {
        return None;
    };
    hop.pull = [kp, kv, limit(t, "max_force")];
    Some(ControllerDesc::Hop(hop))
}

/// What both creatures read first: the servo rate, the decision rate and the arena's
/// half-width.
struct CreatureTiming {
    rate: Option<f64>,
    decision_rate: Option<f64>,
    arena: Option<f64>,
}

impl CreatureTiming {
    fn read(t: &Table<'_, '_>) -> Self {
        let rate = t
            .required("rate", "servo updates per unit time (a positive number)")
            .and_then(update_rate);
        let decision_rate = optional(t, "decision_rate", 100.0, Value::positive);
        let arena = positive(t, "arena", "half-width of the square world (> 0)");
        Self {
            rate,
            decision_rate,
            arena,
        }
    }

    /// `(rate, decision rate, arena)`, if all three were read.
    fn values(self) -> Option<(f64, f64, f64)> {
        Some((self.rate?, self.decision_rate?, self.arena?))
    }
}

/// The kind of number a key takes: [`Value::positive`], [`Value::non_negative`] or
/// [`Value::number`].
type Number<'c, 's> = fn(&Value<'c, 's>) -> Option<f64>;

/// A required number `key`, of the kind `number` reads.
fn required<'c, 's>(
    t: &Table<'c, 's>,
    key: &str,
    expected: &str,
    number: Number<'c, 's>,
) -> Option<f64> {
    number(&t.required(key, expected)?)
}

/// A required number > 0.
fn positive(t: &Table<'_, '_>, key: &str, expected: &str) -> Option<f64> {
    required(t, key, expected, Value::positive)
}

/// An optional number `key`, of the kind `number` reads; `default` when absent (`None` when
/// given wrong).
fn optional<'c, 's>(
    t: &Table<'c, 's>,
    key: &str,
    default: f64,
    number: Number<'c, 's>,
) -> Option<f64> {
    match t.get(key) {
        Some(v) => number(&v),
        None => Some(default),
    }
}

/// A joint of the creature's multibody of one of the given kinds.
fn creature_joint(
    v: &Value<'_, '_>,
    kinds: &[JointKind],
    what: &str,
    owner: &Owner,
) -> Option<String> {
    let (name, info) = owner.joint(v)?;
    if kinds.contains(&info.kind) {
        Some(name.to_string())
    } else {
        v.error(format!("joint `{name}` is {}; expected {what}", info.kind));
        None
    }
}

/// A non-empty array of joints of the creature's multibody, of one of the given kinds.
fn creature_joints(
    t: &Table<'_, '_>,
    key: &str,
    kinds: &[JointKind],
    what: &str,
    owner: &Owner,
) -> Option<Vec<String>> {
    let value = t.required(key, &format!("an array of {what} names"))?;
    let items = value.array()?;
    if items.is_empty() {
        value.error(format!("expected at least one {what}"));
        return None;
    }
    let names: Vec<Option<String>> = items
        .iter()
        .map(|v| creature_joint(v, kinds, what, owner))
        .collect();
    names.into_iter().collect()
}

/// Another multibody a controller watches (steers by, hunts or flees), checked once every
/// multibody is read; `own` is the error for naming the controller's own multibody.
fn watched<'c, 's>(v: Value<'c, 's>, owner: &mut Owner<'_, 'c, 's>, own: &str) -> Option<String> {
    let name = v.string()?.to_string();
    if name == owner.name {
        v.error(own);
        return None;
    }
    owner.watches.push((name.clone(), v));
    Some(name)
}

/// What a creature is told when it names its own multibody to hunt or flee.
const CREATURE_WATCHES_ITSELF: &str = "a creature cannot watch its own multibody";

/// `"rover"`: the creature war's rover (a demo controller).
fn read_rover<'c, 's>(t: &Table<'c, 's>, owner: &mut Owner<'_, 'c, 's>) -> Option<ControllerDesc> {
    let timing = CreatureTiming::read(t);
    t.reject_unknown(ROVER_KEYS);
    let revolute = [JointKind::Revolute];
    let left = creature_joints(t, "left_wheels", &revolute, "revolute joint", owner);
    let right = creature_joints(t, "right_wheels", &revolute, "revolute joint", owner);
    let pistons = match t.get("pistons") {
        Some(_) => creature_joints(
            t,
            "pistons",
            &[JointKind::Prismatic],
            "prismatic joint",
            owner,
        ),
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
            let names: Vec<Option<String>> = items
                .into_iter()
                .map(|v| watched(v, owner, CREATURE_WATCHES_ITSELF))
                .collect();
            names.into_iter().collect::<Option<Vec<String>>>()
        });
    let wheel_radius = positive(t, "wheel_radius", "the wheels' radius (> 0)");
    let wheel_kv = required(
        t,
        "wheel_kv",
        "the wheel servos' gain (≥ 0)",
        Value::non_negative,
    );
    let speed = positive(t, "speed", "cruising ground speed (> 0)");
    let wheel_max_torque = optional(t, "wheel_max_torque", f64::INFINITY, Value::positive);
    let piston_kp = optional(t, "piston_kp", 0.0, Value::non_negative);
    let piston_kv = optional(t, "piston_kv", 0.0, Value::non_negative);
    let piston_max_force = optional(t, "piston_max_force", f64::INFINITY, Value::positive);
    let jack = optional(t, "jack", 0.0, Value::number);
    let push_distance = optional(t, "push_distance", 50.0, Value::positive);
    let prey_deceleration = optional(t, "prey_deceleration", 150.0, Value::positive);
    let reverse_speed = optional(t, "reverse_speed", 5.0, Value::positive);
    let (
        Some((rate, decision_rate, arena)),
        Some(left),
        Some(right),
        Some(pistons),
        Some(prey),
        Some(wheel_radius),
        Some(wheel_kv),
        Some(speed),
    ) = (
        timing.values(),
        left,
        right,
        pistons,
        prey,
        wheel_radius,
        wheel_kv,
        speed,
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
    Some(ControllerDesc::Rover(rover))
}

/// `"bug"`: one of the creature war's bugs (a demo controller).
fn read_bug<'c, 's>(t: &Table<'c, 's>, owner: &mut Owner<'_, 'c, 's>) -> Option<ControllerDesc> {
    let timing = CreatureTiming::read(t);
    t.reject_unknown(BUG_KEYS);
    let leg = |key: &str| {
        t.required(key, "a revolute joint name")
            .and_then(|v| creature_joint(&v, &[JointKind::Revolute], "a revolute joint", owner))
    };
    let (left, right) = (leg("left_leg"), leg("right_leg"));
    let leg_rate = positive(t, "leg_rate", "the legs' rate when walking straight (> 0)");
    let leg_kv = required(
        t,
        "leg_kv",
        "the leg servos' gain (≥ 0)",
        Value::non_negative,
    );
    let leg_max_torque = optional(t, "leg_max_torque", f64::INFINITY, Value::positive);
    let turn_gain = optional(t, "turn_gain", 1.0, Value::non_negative);
    let threat = t
        .get("threat")
        .and_then(|v| watched(v, owner, CREATURE_WATCHES_ITSELF));
    let threat_radius = optional(t, "threat_radius", 0.0, Value::non_negative);
    let repulsion = optional(t, "repulsion", 0.0, Value::non_negative);
    if let Some(v) = t.get("threat")
        && !t.has("threat_radius")
    {
        v.error("a `threat` needs a `threat_radius`: how near it must be to be fled");
    }
    let (
        Some((rate, decision_rate, arena)),
        Some(left),
        Some(right),
        Some(leg_rate),
        Some(leg_kv),
        Some(leg_max_torque),
        Some(turn_gain),
        Some(threat_radius),
        Some(repulsion),
    ) = (
        timing.values(),
        left,
        right,
        leg_rate,
        leg_kv,
        leg_max_torque,
        turn_gain,
        threat_radius,
        repulsion,
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
    Some(ControllerDesc::Bug(bug))
}
