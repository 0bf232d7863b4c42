//! `[[bodies]]`: each body's shapes, mass properties, placement, motion and material, read into
//! a [`BodyDesc`]; a body may be placed relative to one defined above it.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use crate::dynamics::{
    BodyDesc, MassSpec, Material, MotionType, Oscillation, PlacedShape, PrescribedMotion,
};
use crate::math::{Point, Quat, Vec3, pose};

use super::SceneReader;
use super::reader::{Table, Value};
use super::values::{read_orientation, restitution};

const BODY_KEYS: &[&str] = &[
    "name",
    "shape",
    "shapes",
    "mass",
    "density",
    "center_of_mass",
    "inertia",
    "point_masses",
    "position",
    "orientation",
    "velocity",
    "angular_velocity",
    "motion",
    "kinematic",
    "material",
    "friction",
    "restitution",
    "force",
    "torque",
    "relative_to",
];
const KINEMATIC_KEYS: &[&str] = &["velocity", "angular_velocity", "oscillations"];
const OSCILLATION_KEYS: &[&str] = &["amplitude", "frequency", "phase"];

/// A body read from the file, with where it came from.
pub(super) struct BodyEntry {
    pub(super) desc: BodyDesc,
    pub(super) span: Range<usize>,
    pub(super) key: String,
}

impl<'c, 's> SceneReader<'c, 's> {
    pub(super) fn read_bodies(
        &self,
        root: &Table<'c, 's>,
        materials: &BTreeMap<String, Material>,
        default_material: Material,
    ) -> Vec<BodyEntry> {
        // A scene needs bodies, multibodies, models, or some of each.
        let others = root.has("multibodies") || root.has("model");
        let tables = if others {
            root.array_of_tables("bodies")
        } else {
            root.required("bodies", "an array of [[bodies]] tables")
                .and_then(|_| root.array_of_tables("bodies"))
        };
        let Some(tables) = tables else {
            return Vec::new();
        };
        if tables.is_empty() && !others {
            root.error("the scene has no bodies; add at least one [[bodies]] table");
        }
        let mut first_line: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::new();
        for table in &tables {
            let name_value = table.required("name", "a string");
            let name = name_value
                .as_ref()
                .and_then(|v| v.string())
                .map(str::to_string);
            if let (Some(name), Some(value)) = (&name, &name_value) {
                let (line, _) = self.ctx.location(value.span().start);
                if name.is_empty() {
                    value.error("a body's name must not be empty");
                } else if let Some(first) = first_line.get(name) {
                    value.error(format!(
                        "another body is already named `{name}` (line {first}); names must be unique"
                    ));
                } else {
                    first_line.insert(name.clone(), line);
                }
            }
            let desc = self.read_body(table, name.unwrap_or_default(), materials, default_material);
            // A pose given in another body's model frame (as placed at the start).
            let reference = table.get("relative_to").and_then(|v| {
                let name = v.string()?;
                let found = out.iter().find(|e: &&BodyEntry| e.desc.name == name);
                if found.is_none() {
                    v.error(format!(
                        "relative_to names `{name}`, which is not a body defined above this one (give the body it is placed on first)"
                    ));
                }
                found.map(|e| e.desc.pose)
            });
            if let Some(mut desc) = desc {
                if let Some(reference) = reference {
                    desc.pose = reference * desc.pose;
                }
                out.push(BodyEntry {
                    desc,
                    span: table.span(),
                    key: table.path().to_string(),
                });
            }
        }
        out
    }

    pub(super) fn read_body(
        &self,
        t: &Table<'c, 's>,
        name: String,
        materials: &BTreeMap<String, Material>,
        default_material: Material,
    ) -> Option<BodyDesc> {
        t.reject_unknown(BODY_KEYS);
        let errors_before = self.ctx.error_count();
        let motion_name = t
            .get("motion")
            .and_then(|v| v.choice(&["dynamic", "fixed", "kinematic"]))
            .unwrap_or("dynamic");
        let dynamic = motion_name == "dynamic";

        // Shapes: exactly one of `shape` and `shapes`.
        let shapes: Vec<PlacedShape> = match (t.get("shape"), t.get("shapes")) {
            (Some(_), Some(v)) => {
                v.error("give either `shape` (one shape) or `shapes` (a list), not both");
                Vec::new()
            }
            (Some(v), None) => self.read_placed_shape(&v).into_iter().collect(),
            (None, Some(v)) => {
                let items = v.array().unwrap_or_default();
                if items.is_empty() && v.is_array() {
                    v.error("expected at least one shape");
                }
                items
                    .iter()
                    .filter_map(|item| self.read_placed_shape(item))
                    .collect()
            }
            // Mass properties given directly: the shapes are only for collisions, and a
            // multibody link may have none.
            (None, None) if t.has("inertia") => Vec::new(),
            (None, None) => {
                t.error("missing key `shape` (a shape table such as { type = \"sphere\", radius = 1.0 }) or `shapes` (a list of them)");
                Vec::new()
            }
        };
        // A compound's mass properties are its shapes' sum: overlaps would count twice (unless
        // the mass properties are given, as an imported model's links are: then the shapes
        // only collide).
        if dynamic
            && !t.has("inertia")
            && self.ctx.error_count() == errors_before
            && let Some(v) = t.get("shapes")
            && let Some(o) = crate::collision::overlap::overlapping_shapes(&shapes)
        {
            v.error(format!(
                "shapes {} ({}) and {} ({}) overlap by {:.3e}: a body's mass properties are the sum of its shapes', so the overlap would count twice; place the shapes so that they touch without overlapping (see docs/scene-format.md, \"Compound bodies\")",
                o.first + 1,
                shapes[o.first].shape.kind(),
                o.second + 1,
                shapes[o.second].shape.kind(),
                o.depth
            ));
        }

        // Mass.
        let mass = match (t.get("mass"), t.get("density")) {
            (Some(_), Some(d)) => {
                d.error("give either `mass` or `density`, not both");
                None
            }
            (Some(m), None) => m.positive().map(MassSpec::Mass),
            (None, Some(d)) => d.positive().map(MassSpec::Density),
            (None, None) if dynamic => {
                t.error("missing `mass` or `density`: a dynamic body needs one (mass in scene units, or density in mass per unit volume)");
                None
            }
            (None, None) => Some(MassSpec::Density(1.0)),
        };
        let has_per_shape_density = shapes.iter().any(|s| s.density.is_some());
        if has_per_shape_density && matches!(mass, Some(MassSpec::Mass(_))) {
            t.error("per-shape `density` needs the body's `density`, not `mass`");
        }
        let mass = match (mass, t.get("inertia")) {
            (mass, None) => {
                if let Some(v) = t.get("center_of_mass") {
                    v.error("`center_of_mass` goes with `inertia` (mass properties given directly); without it they come from the shapes");
                }
                mass
            }
            (Some(MassSpec::Mass(m)), Some(v)) => {
                let center = t
                    .get("center_of_mass")
                    .map_or(Some(Vec3::zeros()), |c| c.vec3());
                read_inertia(&v)
                    .zip(center)
                    .map(|(inertia, c)| MassSpec::Explicit {
                        mass: m,
                        center_of_mass: Point::from(c),
                        inertia,
                    })
            }
            (_, Some(v)) => {
                if t.has("mass") || dynamic {
                    v.error("`inertia` needs the body's `mass` (not `density`)");
                } else {
                    v.error("`inertia` applies to dynamic bodies and links, with `mass`");
                }
                None
            }
        };
        if has_per_shape_density && matches!(mass, Some(MassSpec::Explicit { .. })) {
            t.error("per-shape `density` has no meaning when `inertia` gives the mass properties");
        }

        let mut point_masses = Vec::new();
        if let Some(list) = t.get("point_masses").and_then(|v| v.array()) {
            for item in list {
                let Some(pm) = item.table() else { continue };
                pm.reject_unknown(&["mass", "position"]);
                let m = pm
                    .required("mass", "a positive number")
                    .and_then(|v| v.positive());
                let p = pm.required("position", "[x, y, z]").and_then(|v| v.vec3());
                if let (Some(m), Some(p)) = (m, p) {
                    point_masses.push((m, Point::from(p)));
                }
            }
        }

        let position = t.get("position").and_then(|v| v.vec3()).unwrap_or_default();
        let orientation = t
            .get("orientation")
            .and_then(|v| read_orientation(&v))
            .unwrap_or_else(Quat::identity);
        let velocity = t.get("velocity").and_then(|v| v.vec3());
        let angular_velocity = t.get("angular_velocity").and_then(|v| v.vec3());
        let force = t.get("force").and_then(|v| v.vec3());
        let torque = t.get("torque").and_then(|v| v.vec3());
        if !dynamic {
            for key in ["velocity", "angular_velocity", "force", "torque"] {
                if let Some(v) = t.get(key) {
                    let hint = if motion_name == "fixed" && key.contains("velocity") {
                        "; to move it along a given path use motion = \"kinematic\" with a `kinematic` table"
                    } else {
                        ""
                    };
                    v.error(format!(
                        "a {motion_name} body is not moved by velocities or forces{hint}"
                    ));
                }
            }
        }

        let motion = match motion_name {
            "fixed" => MotionType::Fixed,
            "kinematic" => match t.get("kinematic") {
                Some(v) => MotionType::Kinematic(v.table().map(|k| read_kinematic(&k))?),
                None => {
                    t.error("missing key `kinematic`: a kinematic body needs its motion, e.g. kinematic = { angular_velocity = [0, 0, 3.3] }");
                    MotionType::Fixed
                }
            },
            _ => MotionType::Dynamic,
        };
        if motion_name != "kinematic"
            && let Some(v) = t.get("kinematic")
        {
            v.error("`kinematic` only applies to bodies with motion = \"kinematic\"");
        }

        // Material: named, then per-body overrides.
        let material_name = t.get("material").and_then(|v| {
            let name = v.string()?;
            if materials.contains_key(name) {
                Some(name.to_string())
            } else {
                let known: Vec<&str> = materials.keys().map(String::as_str).collect();
                v.error(if known.is_empty() {
                    format!("unknown material `{name}`: the scene defines no [materials]")
                } else {
                    format!("unknown material `{name}` (defined: {})", known.join(", "))
                });
                None
            }
        });
        let mut material = material_name
            .as_ref()
            .and_then(|n| materials.get(n).copied())
            .unwrap_or(default_material);
        if let Some(f) = t.get("friction").and_then(|v| v.non_negative()) {
            material.friction = f;
        }
        if let Some(e) = t.get("restitution").and_then(|v| restitution(&v)) {
            material.restitution = e;
        }

        let explicit = matches!(mass, Some(MassSpec::Explicit { .. }));
        if self.ctx.error_count() > errors_before || (shapes.is_empty() && !explicit) {
            return None;
        }
        Some(BodyDesc {
            name,
            shapes,
            point_masses,
            mass: mass?,
            pose: pose(position, orientation),
            velocity: velocity.unwrap_or_default(),
            angular_velocity: angular_velocity.unwrap_or_default(),
            motion,
            material,
            material_name,
            force: force.unwrap_or_default(),
            torque: torque.unwrap_or_default(),
        })
    }
}

/// An inertia tensor `[ixx, iyy, izz, ixy, ixz, iyz]` about the centre of mass (model axes), as
/// a solid can have it (positive principal moments obeying the triangle inequality).
pub(super) fn read_inertia(value: &Value<'_, '_>) -> Option<crate::math::Mat3> {
    let [xx, yy, zz, xy, xz, yz] = value.numbers::<6>()?;
    let inertia = crate::math::Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz);
    match crate::dynamics::check_inertia(&inertia) {
        Ok(()) => Some(inertia),
        Err(e) => {
            value.error(format!("expected [ixx, iyy, izz, ixy, ixz, iyz]: {e}"));
            None
        }
    }
}

pub(super) fn read_kinematic(t: &Table<'_, '_>) -> PrescribedMotion {
    t.reject_unknown(KINEMATIC_KEYS);
    let mut motion = PrescribedMotion::default();
    if let Some(v) = t.get("velocity").and_then(|v| v.vec3()) {
        motion.velocity = v;
    }
    if let Some(v) = t.get("angular_velocity").and_then(|v| v.vec3()) {
        motion.angular_velocity = v;
    }
    if let Some(list) = t.get("oscillations").and_then(|v| v.array()) {
        for item in list {
            let Some(o) = item.table() else { continue };
            o.reject_unknown(OSCILLATION_KEYS);
            let amplitude = o.required("amplitude", "[x, y, z]").and_then(|v| v.vec3());
            let frequency = o
                .required("frequency", "a positive number of cycles per unit time")
                .and_then(|v| v.positive());
            let phase = o.get("phase").and_then(|v| v.number()).unwrap_or(0.0);
            if let (Some(amplitude), Some(frequency)) = (amplitude, frequency) {
                motion.oscillations.push(Oscillation {
                    amplitude,
                    frequency,
                    phase: phase.to_radians(),
                });
            }
        }
    }
    if motion == PrescribedMotion::default() {
        t.error("the kinematic motion is empty; give `velocity`, `angular_velocity` or `oscillations`, or make the body fixed");
    }
    motion
}
