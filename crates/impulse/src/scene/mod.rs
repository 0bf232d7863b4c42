//! Scene files: TOML descriptions of a world, read strictly and built into a [`World`].
//!
//! Every key is documented in `docs/scene-format.md`. Reading reports *every* problem in one pass
//! (see `reader`), each with file, line, column and key; a scene with any error is not built.

mod controllers;
pub mod import;
mod multibody;
mod penalty;
pub(crate) mod reader;
mod run_options;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::dynamics::{
    BodyDesc, MassSpec, Material, MotionType, Oscillation, PlacedShape, PrescribedMotion,
};
use crate::geometry::{
    ConvexPolyhedron, DecompositionSettings, PolygonMesh, Polyhedron, Shape, read_mesh,
};
use crate::integrate::Tolerance;
use crate::math::{Point, Quat, Vec3, pose};
use crate::response::RestitutionLaw;
use crate::world::Collider;
pub use crate::world::ContactModel;
use crate::world::{BroadPhaseKind, EnergyBound, MicrocollisionClusters, World, WorldSettings};

use reader::{Context, Table, Value};
mod units;
pub use reader::{Diagnostic, Severity};
pub use run_options::{MAX_FRAMES, RunOptions};
pub use units::Units;

/// A scene read from a file and built into a world at time 0.
#[derive(Debug)]
pub struct Scene {
    /// Scene name (`world.name`, or the file's stem).
    pub name: String,
    /// The scene file.
    pub path: PathBuf,
    /// The world, ready to run.
    pub world: World,
    /// How long to simulate.
    pub duration: f64,
    /// Output frames per unit time.
    pub output_rate: f64,
    /// Problems that do not stop the scene from running.
    pub warnings: Vec<Diagnostic>,
    /// The system of units, as `[world] units` gives it or the gravity tells it (`None` when
    /// neither does).
    pub units: Option<Units>,
}

/// Why a scene could not be loaded.
#[derive(Debug)]
pub enum SceneError {
    /// The file could not be read.
    Io { path: PathBuf, message: String },
    /// The file has errors (and maybe warnings), all listed.
    Invalid(Vec<Diagnostic>),
}

impl SceneError {
    /// The diagnostics (empty for I/O errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Self::Io { .. } => &[],
            Self::Invalid(d) => d,
        }
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, message } => write!(f, "{}: {message}", path.display()),
            Self::Invalid(diagnostics) => {
                for (i, d) in diagnostics.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SceneError {}

/// Reads and builds the scene in `path`.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    // Checked as a regular file of bounded size before it is read (issue 42).
    let text = crate::input_file::read_bounded_text(path, "the scene file", crate::MAX_INPUT_BYTES)
        .map_err(|message| SceneError::Io {
            path: path.to_path_buf(),
            message,
        })?;
    parse(path, &text)
}

/// Builds a scene from `text`, as if read from `path` (meshes are found relative to its
/// directory).
pub fn parse(path: &Path, text: &str) -> Result<Scene, SceneError> {
    let ctx = Context::new(path, text);
    let scene = ctx.parse().and_then(|doc| {
        let root = Table::root(&ctx, &doc);
        SceneReader::new(&ctx).read(&root)
    });
    let errors = ctx.error_count();
    let diagnostics = ctx.into_diagnostics();
    match scene {
        Some(mut scene) if errors == 0 => {
            scene.warnings = diagnostics;
            Ok(scene)
        }
        _ => Err(SceneError::Invalid(diagnostics)),
    }
}

const ROOT_KEYS: &[&str] = &[
    "world",
    "materials",
    "bodies",
    "pairs",
    "multibodies",
    "model",
];
const WORLD_KEYS: &[&str] = &[
    "name",
    "gravity",
    "duration",
    "output_rate",
    "collision_epsilon",
    "contact_model",
    "restitution_law",
    "microcollisions",
    "microcollision_max_restitution",
    "microcollision_rebound",
    "microcollision_clusters",
    "max_penetration",
    "box_period",
    "broad_phase",
    "sleep",
    "sleep_time",
    "sleep_speed",
    "energy_bound",
    "integrator",
    "units",
];
const INTEGRATOR_KEYS: &[&str] = &[
    "relative_tolerance",
    "absolute_tolerance",
    "max_step",
    "min_step",
];
const MATERIAL_KEYS: &[&str] = &[
    "friction",
    "restitution",
    "penalty_stiffness",
    "penalty_damping",
];
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
const PLACEMENT_KEYS: &[&str] = &["type", "position", "orientation", "density"];
const KINEMATIC_KEYS: &[&str] = &["velocity", "angular_velocity", "oscillations"];
const OSCILLATION_KEYS: &[&str] = &["amplitude", "frequency", "phase"];
const PAIR_KEYS: &[&str] = &["bodies", "materials", "friction", "restitution"];

/// A body read from the file, with where it came from.
struct BodyEntry {
    desc: BodyDesc,
    span: Range<usize>,
    key: String,
}

struct SceneReader<'c, 's> {
    ctx: &'c Context<'s>,
    base_dir: PathBuf,
}

impl<'c, 's> SceneReader<'c, 's> {
    fn new(ctx: &'c Context<'s>) -> Self {
        let base_dir = ctx
            .path()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Self { ctx, base_dir }
    }

    fn read(&self, root: &Table<'c, 's>) -> Option<Scene> {
        root.reject_unknown(ROOT_KEYS);
        let world_table = root.table("world");
        if let Some(w) = &world_table {
            w.reject_unknown(WORLD_KEYS);
        }
        let get = |key: &str| world_table.as_ref().and_then(|w| w.get(key));
        let name = get("name")
            .and_then(|v| v.string().map(str::to_string))
            .unwrap_or_else(|| {
                self.ctx
                    .path()
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "scene".into())
            });
        let mut settings = WorldSettings::default();
        if let Some(g) = get("gravity").and_then(|v| v.vec3()) {
            settings.gravity = g;
        }
        let units = match get("units") {
            Some(v) => v.choice(&["SI", "cgs"]).map(|name| {
                let given = if name == "SI" { Units::Si } else { Units::Cgs };
                if let Some(by_gravity) = Units::from_gravity(&settings.gravity)
                    && by_gravity != given
                {
                    v.warning(format!(
                        "units = \"{}\", but the gravity ({} length/time²) is the standard one in {}",
                        given.name(),
                        settings.gravity.norm(),
                        by_gravity.name()
                    ));
                }
                given
            }),
            None => Units::from_gravity(&settings.gravity),
        };
        let duration = get("duration").and_then(|v| v.positive()).unwrap_or(1.0);
        let output_rate = get("output_rate")
            .and_then(|v| v.positive())
            .unwrap_or(60.0);
        let frames = RunOptions {
            duration,
            frame_rate: output_rate,
        };
        if let Err(message) = frames.check()
            && let Some(v) = get("output_rate").or_else(|| get("duration"))
        {
            v.error(message);
        }
        if let Some(eps) = get("collision_epsilon").and_then(|v| v.positive()) {
            settings.collision_epsilon = eps;
        }
        if let Some(model) =
            get("contact_model").and_then(|v| v.choice(&["impulse", "constraint", "penalty"]))
        {
            settings.contact_model = match model {
                "constraint" => ContactModel::Constraint,
                "penalty" => ContactModel::Penalty,
                _ => ContactModel::Impulse,
            };
        }
        if let Some(law) = get("restitution_law").and_then(|v| v.choice(&["stronge", "poisson"])) {
            settings.restitution_law = if law == "poisson" {
                RestitutionLaw::Poisson
            } else {
                RestitutionLaw::Stronge
            };
        }
        if let Some(on) = get("microcollisions").and_then(|v| v.boolean()) {
            settings.microcollisions = on;
        }
        if let Some(e) = get("microcollision_max_restitution").and_then(|v| v.number()) {
            if e >= 1.0 && e.is_finite() {
                settings.microcollision_max_restitution = e;
            } else if let Some(v) = get("microcollision_max_restitution") {
                v.error(format!(
                    "expected a restitution of at least 1 (the boost at the bottom of the envelope), found {e}"
                ));
            }
        }
        if let Some(rebound) = get("microcollision_rebound").and_then(|v| v.number()) {
            if (0.0..=1.0).contains(&rebound) {
                settings.microcollision_rebound = Some(rebound);
            } else if let Some(v) = get("microcollision_rebound") {
                v.error(format!(
                    "expected a fraction of the threshold speed from 0 to 1 (0: the thesis's pure reversal), found {rebound}"
                ));
            }
        }
        if let Some(depth) = get("max_penetration").and_then(|v| v.positive()) {
            settings.max_penetration = Some(depth);
        }
        if let Some(period) = get("box_period").and_then(|v| v.positive()) {
            settings.box_period = period;
        }
        if let Some(kind) = get("broad_phase").and_then(|v| v.choice(&["hash", "sweep_and_prune"]))
        {
            settings.broad_phase = if kind == "sweep_and_prune" {
                BroadPhaseKind::SweepAndPrune
            } else {
                BroadPhaseKind::HierarchicalHash
            };
        }
        if let Some(kind) =
            get("microcollision_clusters").and_then(|v| v.choice(&["sequential", "simultaneous"]))
        {
            settings.microcollision_clusters = if kind == "simultaneous" {
                MicrocollisionClusters::Simultaneous
            } else {
                MicrocollisionClusters::Sequential
            };
        }
        if let Some(rebound) = settings.microcollision_rebound
            && settings.microcollision_clusters == MicrocollisionClusters::Simultaneous
            && rebound > 0.0
            && rebound < crate::world::MIN_CLUSTER_REBOUND
            && let Some(v) = get("microcollision_rebound")
        {
            v.error(format!(
                "expected 0 (the thesis's pure reversal) or from 0.05 to 1 with simultaneous \
                 microcollision clusters (the default), found {rebound}: below 0.05 a resting \
                 cluster sinks through the envelope (see docs/sources.md); \
                 `microcollision_clusters = \"sequential\"` takes any value from 0 to 1"
            ));
            settings.microcollision_rebound = None;
        }
        if let Some(on) = get("sleep").and_then(|v| v.boolean()) {
            settings.sleep.enabled = on;
        }
        if let Some(time) = get("sleep_time").and_then(|v| v.positive()) {
            settings.sleep.time = time;
        }
        if let Some(speed) = get("sleep_speed").and_then(|v| v.positive()) {
            settings.sleep.speed = Some(speed);
        }
        if let Some(v) = get("energy_bound") {
            let bound = if v.is_string() {
                v.choice(&["auto", "off"]).map(|choice| match choice {
                    "off" => EnergyBound::Off,
                    _ => EnergyBound::Auto,
                })
            } else {
                v.non_negative().map(EnergyBound::Gain)
            };
            if let Some(bound) = bound {
                settings.energy_bound = bound;
            }
        }
        if let Some(integrator) = get("integrator").and_then(|v| v.table()) {
            settings.integrator = read_integrator(&integrator);
        }

        let materials = self.read_materials(root);
        settings.penalty_materials = self.read_penalty_materials(root);
        if let Some(default) = materials.get("default") {
            settings.default_material = *default;
        }
        let bodies = self.read_bodies(root, &materials, settings.default_material);
        let pairs = root.array_of_tables("pairs").unwrap_or_default();

        let mut world = World::new(settings);
        let mut entries: Vec<(String, Range<usize>, String)> = Vec::new();
        for entry in bodies {
            let name = entry.desc.name.clone();
            match world.add_body(entry.desc) {
                Ok(_) => entries.push((name, entry.span, entry.key)),
                Err(e) => self.ctx.error(&entry.span, &entry.key, e.to_string()),
            }
        }
        for pair in &pairs {
            self.read_pair(pair, &mut world, &materials);
        }
        let default_material = world.settings().default_material;
        self.read_multibodies(root, &mut world, &materials, default_material);
        self.read_models(root, &mut world, default_material);
        self.warn_about_scale(&world, root);
        if self.ctx.error_count() == 0 {
            self.check_overlaps(&world, &entries);
        }
        Some(Scene {
            name,
            path: self.ctx.path().to_path_buf(),
            world,
            duration,
            output_rate,
            warnings: Vec::new(),
            units,
        })
    }

    fn read_materials(&self, root: &Table<'c, 's>) -> BTreeMap<String, Material> {
        let mut materials = BTreeMap::new();
        let Some(table) = root.table("materials") else {
            return materials;
        };
        for (name, value) in table.entries() {
            let Some(t) = value.table() else { continue };
            t.reject_unknown(MATERIAL_KEYS);
            let mut material = Material::default();
            if let Some(friction) = t.required("friction", "a number ≥ 0") {
                material.friction = friction.non_negative().unwrap_or(material.friction);
            }
            if let Some(e) = t.required("restitution", "a number from 0 to 1") {
                material.restitution = restitution(&e).unwrap_or(material.restitution);
            }
            materials.insert(name.to_string(), material);
        }
        materials
    }

    fn read_bodies(
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

    fn read_body(
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

    /// A shape table with its optional placement (`position`, `orientation`, `density`).
    fn read_placed_shape(&self, value: &Value<'c, 's>) -> Option<PlacedShape> {
        let t = value.table()?;
        let kind = t.required("type", "a shape type")?.choice(&[
            "sphere",
            "box",
            "cylinder",
            "capsule",
            "ellipsoid",
            "convex",
            "mesh",
            "halfspace",
        ])?;
        let keys: &[&str] = match kind {
            "sphere" => &["radius"],
            "box" => &["size"],
            "cylinder" => &["radius", "height"],
            "capsule" => &["radius", "length"],
            "ellipsoid" => &["radii"],
            "convex" => &["points", "mesh", "scale"],
            "mesh" => &[
                "file",
                "scale",
                "pieces",
                "concavity",
                "resolution",
                "max_pieces",
            ],
            _ => &[],
        };
        let known: Vec<&str> = PLACEMENT_KEYS.iter().chain(keys).copied().collect();
        t.reject_unknown(&known);
        let position = t.get("position").and_then(|v| v.vec3()).unwrap_or_default();
        let orientation = t
            .get("orientation")
            .and_then(|v| read_orientation(&v))
            .unwrap_or_else(Quat::identity);
        let density = t.get("density").and_then(|v| v.positive());
        let positive = |key: &str, what: &str| t.required(key, what).and_then(|v| v.positive());
        let shape = match kind {
            "sphere" => Shape::Sphere {
                radius: positive("radius", "a positive number")?,
            },
            "box" => Shape::Box {
                half_extents: positive_vec3(&t.required("size", "[x, y, z] edge lengths")?)? / 2.0,
            },
            "cylinder" => {
                let radius = positive("radius", "a positive number");
                let height = positive("height", "a positive number (full height along z)");
                Shape::Cylinder {
                    radius: radius?,
                    half_height: height? / 2.0,
                }
            }
            "capsule" => {
                let radius = positive("radius", "a positive number");
                let length = t
                    .required("length", "a number ≥ 0 (distance between the cap centres)")
                    .and_then(|v| v.non_negative());
                Shape::Capsule {
                    radius: radius?,
                    half_height: length? / 2.0,
                }
            }
            "ellipsoid" => Shape::Ellipsoid {
                radii: positive_vec3(&t.required("radii", "[a, b, c] semi-axes")?)?,
            },
            "convex" => self.read_convex(&t)?,
            "mesh" => self.read_mesh_shape(&t)?,
            _ => Shape::HalfSpace,
        };
        if matches!(shape, Shape::HalfSpace) && density.is_some() {
            t.error("a half-space has no volume, so no density");
        }
        if let Err(error) = shape.check() {
            t.error(format!("this {}: {error}", shape.kind()));
            return None;
        }
        Some(PlacedShape {
            shape,
            pose: pose(position, orientation),
            density,
        })
    }

    fn read_scale(&self, t: &Table<'c, 's>) -> Option<Vec3> {
        let Some(v) = t.get("scale") else {
            return Some(Vec3::repeat(1.0));
        };
        if v.is_array() {
            positive_vec3(&v)
        } else {
            v.positive().map(Vec3::repeat)
        }
    }

    fn read_mesh_file(
        &self,
        value: &Value<'c, 's>,
        scale: &Vec3,
    ) -> Option<(PolygonMesh, PathBuf)> {
        let file = value.string()?;
        let path = self.base_dir.join(file);
        match read_mesh(&path) {
            Ok(mut mesh) => {
                mesh.map_vertices(|p| Point::from(p.coords.component_mul(scale)));
                Some((mesh, path))
            }
            Err(e) => {
                value.error(format!("cannot use mesh: {e}"));
                None
            }
        }
    }

    fn read_convex(&self, t: &Table<'c, 's>) -> Option<Shape> {
        let scale = self.read_scale(t)?;
        let hull = match (t.get("points"), t.get("mesh")) {
            (Some(points), None) => {
                let mut list = Vec::new();
                for item in points.array()? {
                    list.push(Point::from(item.vec3()?.component_mul(&scale)));
                }
                ConvexPolyhedron::from_points(&list).map_err(|e| points.error(e.to_string()))
            }
            (None, Some(mesh)) => {
                let (m, _) = self.read_mesh_file(&mesh, &scale)?;
                ConvexPolyhedron::hull_of(&m.vertices)
                    .map_err(|e| mesh.error(format!("the mesh's vertices: {e}")))
            }
            (Some(_), Some(v)) => {
                v.error("give either `points` or `mesh`, not both");
                return None;
            }
            (None, None) => {
                t.error("a convex shape needs `points` (a list of [x, y, z]) or `mesh` (a file whose vertices are hulled)");
                return None;
            }
        };
        hull.ok().map(|h| Shape::Convex(Arc::new(h)))
    }

    fn read_mesh_shape(&self, t: &Table<'c, 's>) -> Option<Shape> {
        let scale = self.read_scale(t);
        let pieces = t
            .get("pieces")
            .and_then(|v| v.choice(&["auto", "convex", "objects"]))
            .unwrap_or("auto");
        let mut settings = DecompositionSettings::default();
        if let Some(c) = t.get("concavity").and_then(|v| v.positive()) {
            settings.concavity = c;
        }
        if let Some(r) = t.get("resolution").and_then(|v| v.count()) {
            settings.resolution = r;
        }
        if let Some(m) = t.get("max_pieces").and_then(|v| v.count()) {
            settings.max_pieces = m;
        }
        let file = t.required("file", "a path to an .obj or .stl file")?;
        let (mesh, path) = self.read_mesh_file(&file, &scale?)?;
        let fail = |message: String| {
            file.error(message);
        };
        if pieces == "objects" {
            return match Polyhedron::from_convex_objects(mesh, &path) {
                Ok(p) => Some(Shape::Polyhedron(Arc::new(p))),
                Err(e) => {
                    fail(format!("cannot use mesh: {e}"));
                    None
                }
            };
        }
        if let Err(defect) = mesh.validate_solid() {
            let located = crate::geometry::MeshFileError::from_defect(&path, &mesh, &defect);
            fail(format!("cannot use mesh: {located}"));
            return None;
        }
        let hull = match ConvexPolyhedron::hull_of(&mesh.vertices) {
            Ok(h) => h,
            Err(e) => {
                fail(format!("cannot use mesh: {}: {e}", path.display()));
                return None;
            }
        };
        let hull_ratio = hull.volume_integrals().t1 / mesh.volume_integrals().t1;
        // The hull stands in for the mesh only when their volumes agree: a solid is never
        // larger than its hull, so a smaller hull means the mesh is not what it seems.
        if hull_ratio < 1.0 - 1e-6 {
            fail(format!(
                "cannot use mesh: {}: its volume integrals give more volume than its convex hull holds ({:.3}% more), so its faces do not bound one solid",
                path.display(),
                (1.0 / hull_ratio - 1.0) * 100.0
            ));
            return None;
        }
        let convex = hull_ratio <= 1.0 + 1e-6;
        match (pieces, convex) {
            (_, true) => Some(Shape::Convex(Arc::new(hull))),
            ("convex", false) => {
                fail(format!(
                    "pieces = \"convex\", but the mesh is not convex (its hull is {:.3}% larger); use pieces = \"auto\" or \"objects\"",
                    (hull_ratio - 1.0) * 100.0
                ));
                None
            }
            _ => match Polyhedron::decompose(mesh, &settings, &path) {
                Ok(p) => Some(Shape::Polyhedron(Arc::new(p))),
                Err(e) => {
                    fail(format!("cannot use mesh: {e}"));
                    None
                }
            },
        }
    }

    fn read_pair(
        &self,
        t: &Table<'c, 's>,
        world: &mut World,
        materials: &BTreeMap<String, Material>,
    ) {
        t.reject_unknown(PAIR_KEYS);
        let names = |key: &str| -> Option<(Value<'c, 's>, [String; 2])> {
            let v = t.get(key)?;
            let items = v.array()?;
            if items.len() != 2 {
                v.error(format!(
                    "expected a list of two names, found {} entries",
                    items.len()
                ));
                return None;
            }
            let a = items[0].string()?.to_string();
            let b = items[1].string()?.to_string();
            Some((v, [a, b]))
        };
        let friction = t.get("friction").and_then(|v| v.non_negative());
        let restitution_value = t.get("restitution").and_then(|v| restitution(&v));
        if !t.has("friction") && !t.has("restitution") {
            t.error("a pair override needs `friction`, `restitution` or both");
        }
        match (names("bodies"), names("materials")) {
            (Some((v, [a, b])), None) => {
                let ids: Vec<_> = [&a, &b]
                    .iter()
                    .map(|n| {
                        let id = world.body_id(n);
                        if id.is_none() {
                            v.error(format!("no body is named `{n}`"));
                        }
                        id
                    })
                    .collect();
                if let (Some(ia), Some(ib)) = (ids[0], ids[1]) {
                    let current = world.contact_material(ia, ib);
                    let pair = Material {
                        friction: friction.unwrap_or(current.friction),
                        restitution: restitution_value.unwrap_or(current.restitution),
                    };
                    if let Err(error) = world.set_pair_material(ia, ib, pair) {
                        t.error(error.to_string());
                    }
                }
            }
            (None, Some((v, [a, b]))) => {
                let mut ok = true;
                for n in [&a, &b] {
                    if !materials.contains_key(n) {
                        v.error(format!("no material is named `{n}`"));
                        ok = false;
                    }
                }
                if ok {
                    let base = |n: &str| materials[n];
                    let mean = Material {
                        friction: 0.5 * (base(&a).friction + base(&b).friction),
                        restitution: 0.5 * (base(&a).restitution + base(&b).restitution),
                    };
                    let pair = Material {
                        friction: friction.unwrap_or(mean.friction),
                        restitution: restitution_value.unwrap_or(mean.restitution),
                    };
                    if let Err(error) = world.set_material_pair(&a, &b, pair) {
                        t.error(error.to_string());
                    }
                }
            }
            (Some((v, _)), Some(_)) => {
                v.error("a pair names either `bodies` or `materials`, not both");
            }
            (None, None) => {
                if !t.has("bodies") && !t.has("materials") {
                    t.error("a pair override needs `bodies = [\"a\", \"b\"]` or `materials = [\"m\", \"n\"]`");
                }
            }
        }
    }

    /// Bodies that start interpenetrated: deeper than the collision envelope cannot be
    /// simulated (the contact normal and the impulses would be meaningless), so it is an error;
    /// a shallower overlap is resolved by the first collisions and gets a warning.
    fn check_overlaps(&self, world: &World, entries: &[(String, Range<usize>, String)]) {
        let epsilon = world.settings().collision_epsilon;
        // Located at a body of the pair (the second if both are bodies), else at the
        // multibodies table.
        let place = |a: Collider, b: Collider| {
            let body = match (a, b) {
                (_, Collider::Body(id)) | (Collider::Body(id), _) => Some(world.body(id).name()),
                _ => None,
            };
            body.and_then(|name| entries.iter().find(|(n, _, _)| n == name))
                .map(|(_, span, key)| (span.clone(), key.clone()))
                .unwrap_or((0..0, "multibodies".to_string()))
        };
        for overlap in world.interpenetrations() {
            let (a, b) = overlap.colliders;
            let (name_a, name_b) = (world.collider_name(a), world.collider_name(b));
            let depth = overlap.depth;
            if depth > epsilon {
                let (span, key) = place(a, b);
                self.ctx.error(
                    &span,
                    &key,
                    format!(
                        "`{name_a}` and `{name_b}` start interpenetrating by {depth:.3e}, deeper than the collision envelope ({epsilon}); move them apart"
                    ),
                );
            } else if depth > 0.01 * epsilon {
                let (span, key) = place(a, b);
                self.ctx.warning(
                    &span,
                    &key,
                    format!(
                        "`{name_a}` and `{name_b}` start interpenetrating by {depth:.3e} (within the collision envelope {epsilon}); the first collisions will push them apart"
                    ),
                );
            }
        }
    }

    /// Warns when the collision envelope is far from the thesis's guidance (2–3 orders of
    /// magnitude below object size, Mirtich §4).
    fn warn_about_scale(&self, world: &World, root: &Table<'c, 's>) {
        let Some(size) = world.smallest_dynamic_size() else {
            return;
        };
        let eps = world.settings().collision_epsilon;
        let span = root
            .table("world")
            .and_then(|w| w.get("collision_epsilon").map(|v| v.span()))
            .unwrap_or(0..0);
        if eps >= size {
            // Every body would count as touching whatever lies within its own size, and the
            // microcollision speed √(2 g ε) would exceed any motion (ε = 1e308 ran for ever).
            self.ctx.error(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {} is not smaller than the smallest body (size {}): \
                     aim for 2–3 orders of magnitude below body size",
                    crate::math::readable(eps),
                    crate::math::readable(size)
                ),
            );
        } else if eps > 0.05 * size {
            self.ctx.warning(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {eps} is large next to the smallest body (size {size:.4}); bodies will rest visibly apart. Aim for 2–3 orders of magnitude below body size"
                ),
            );
        } else if eps < 1e-5 * size {
            self.ctx.warning(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {eps} is tiny next to the smallest body (size {size:.4}): contacts will need very many collision checks. Aim for 2–3 orders of magnitude below body size"
                ),
            );
        }
    }
}

fn restitution(value: &Value<'_, '_>) -> Option<f64> {
    let e = value.number()?;
    if (0.0..=1.0).contains(&e) {
        Some(e)
    } else {
        value.error(format!(
            "expected a coefficient of restitution from 0 to 1, found {e}"
        ));
        None
    }
}

fn positive_vec3(value: &Value<'_, '_>) -> Option<Vec3> {
    let v = value.vec3()?;
    if v.iter().all(|&c| c > 0.0) {
        Some(v)
    } else {
        value.error(format!(
            "expected three positive numbers, found [{}, {}, {}]",
            v.x, v.y, v.z
        ));
        None
    }
}

/// An inertia tensor `[ixx, iyy, izz, ixy, ixz, iyz]` about the centre of mass (model axes), as
/// a solid can have it (positive principal moments obeying the triangle inequality).
fn read_inertia(value: &Value<'_, '_>) -> Option<crate::math::Mat3> {
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

/// `[w, x, y, z]` (unit quaternion) or `{ axis = [x, y, z], angle = degrees }`.
pub(crate) fn read_orientation(value: &Value<'_, '_>) -> Option<Quat> {
    // A list of rotations, applied in turn about the fixed axes: q = q_n ⋯ q_2 q_1.
    if let Some(items) = value.is_array().then(|| value.array()).flatten()
        && items.first().is_some_and(Value::is_table)
    {
        let mut total = Quat::identity();
        for item in &items {
            if !item.is_table() {
                item.error("expected a rotation { axis = [x, y, z], angle = degrees }, like the others in this list");
                return None;
            }
            total = read_orientation(item)? * total;
        }
        return Some(total);
    }
    if value.is_table() {
        let t = value.table()?;
        t.reject_unknown(&["axis", "angle"]);
        let axis = t.required("axis", "[x, y, z]").and_then(|v| {
            let a = v.vec3()?;
            if a.norm() > 0.0 {
                Some(a)
            } else {
                v.error("the rotation axis has zero length; give a non-zero direction");
                None
            }
        });
        let angle = t
            .required("angle", "an angle in degrees")
            .and_then(|v| v.number());
        return Some(Quat::from_axis_angle(
            &nalgebra::Unit::new_normalize(axis?),
            angle?.to_radians(),
        ));
    }
    if !value.is_array() {
        value.error("expected an orientation: a quaternion [w, x, y, z] or { axis = [x, y, z], angle = degrees }");
        return None;
    }
    if value.is_array() && value.array().is_some_and(|items| items.len() == 3) {
        value.error("three numbers look like Euler angles, which are ambiguous (about which axes, in which order?); write the rotation as { axis = [x, y, z], angle = degrees } (for example { axis = [0, 1, 0], angle = 30 } tilts 30° about y), or several applied in turn as [{ axis = [0, 0, 1], angle = 45 }, { axis = [1, 0, 0], angle = 30 }], or a quaternion [w, x, y, z]");
        return None;
    }
    let [w, x, y, z] = value.numbers::<4>()?;
    let q = nalgebra::Quaternion::new(w, x, y, z);
    let norm = q.norm();
    if (norm - 1.0).abs() > 1e-6 {
        value.error(format!(
            "the quaternion [w, x, y, z] has norm {norm:.6}; orientation quaternions must have unit length (or use {{ axis = [x, y, z], angle = degrees }})"
        ));
        return None;
    }
    Some(Quat::from_quaternion(q))
}

fn read_integrator(t: &Table<'_, '_>) -> Tolerance {
    t.reject_unknown(INTEGRATOR_KEYS);
    let mut tolerance = Tolerance::default();
    if let Some(v) = t.get("relative_tolerance").and_then(|v| v.positive()) {
        tolerance.relative = v;
    }
    if let Some(v) = t.get("absolute_tolerance").and_then(|v| v.positive()) {
        tolerance.absolute = v;
    }
    if let Some(v) = t.get("max_step").and_then(|v| v.positive()) {
        tolerance.max_step = v;
    }
    if let Some(v) = t.get("min_step").and_then(|v| v.positive()) {
        tolerance.min_step = v;
    }
    if tolerance.min_step >= tolerance.max_step {
        t.error(format!(
            "min_step ({}) must be smaller than max_step ({})",
            tolerance.min_step, tolerance.max_step
        ));
    }
    tolerance
}

fn read_kinematic(t: &Table<'_, '_>) -> PrescribedMotion {
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
