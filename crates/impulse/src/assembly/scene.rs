//! Assembly scene files: a `[world]` (name, gravity, duration, output rate), an `[assembly]`
//! table (step and drift control), `[[bodies]]` with their mass properties given directly, and
//! `[[joints]]`, one primitive each. Read strictly with the scene reader: every problem is
//! reported with file, line, column and key, and a joint the initial pose violates is reported
//! at its own table with the gap. Every key is in `docs/scene-format.md`, "Assembly scenes".

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path as FilePath, PathBuf};

use crate::dynamics::{Material, PlacedShape};
use crate::math::{Mat3, Quat, Vec3};
use crate::scene::reader::{Context, Table, Value};
use crate::scene::world_table::RunHeader;
use crate::scene::{Diagnostic, SceneError, read_document, read_orientation};

use super::balls::{AssemblyWithBalls, Ball, Striker};
use super::solids::{AssemblyWithSolids, ContactSettings, ContactSolver, Solid, SolidsSleep};
use super::{
    Assembly, AssemblyBodyDesc, AssemblyError, AssemblySettings, Handedness, JointDesc, LoadDesc,
    LoadKind, Path, Primitive,
};
use keys::{body_ref, direction, ends, non_negative_or, positive, string, vec3, vec3_or};

mod keys;
mod profiles;
mod run_keys;
mod solids;

/// An assembly scene, built and ready to run.
#[derive(Debug)]
pub struct AssemblyScene {
    /// `world.name`, or the file's stem.
    pub name: String,
    /// The scene file.
    pub path: PathBuf,
    /// The assembly at time 0.
    pub assembly: Assembly,
    /// How long to simulate.
    pub duration: f64,
    /// Output frames per unit time.
    pub output_rate: f64,
    /// Problems that do not stop the scene from running.
    pub warnings: Vec<Diagnostic>,
    /// Free balls (`[[balls]]`), and spheres on assembly bodies that hit them (`[[strikers]]`):
    /// when either is given, the scene runs as [`AssemblyWithBalls`].
    pub balls: Vec<Ball>,
    /// Spheres fixed on assembly bodies.
    pub strikers: Vec<Striker>,
    /// Each ball's own `restitution` and `friction` (`None`: `[contact]`'s), in the order of
    /// `balls`.
    pub ball_materials: Vec<Option<Material>>,
    /// Each striker's own `restitution` and `friction`, in the order of `strikers`.
    pub striker_materials: Vec<Option<Material>>,
    /// `contact.restitution` (default 0.9).
    pub restitution: f64,
    /// `contact.friction` (default 0).
    pub friction: f64,
    /// Shapes on assembly bodies (`shape`, `shapes`) and fixed solids (`[[fixed]]`): when any
    /// is given, the scene runs as [`AssemblyWithSolids`].
    pub solids: Vec<Solid>,
    /// `contact.envelope` (default 1e-3).
    pub envelope: f64,
    /// `contact.exclude`: pairs of solids (indices into `solids`) that do not collide.
    pub exclude: Vec<(usize, usize)>,
    /// `contact.include`: pairs of joined bodies' solids that collide.
    pub include: Vec<(usize, usize)>,
    /// `contact.solver`: how the contacts of one instant are answered (default simultaneous).
    pub solver: ContactSolver,
    /// `contact.broad_phase`: sweep and prune (`true`, the default) or none.
    pub broad_phase: bool,
    /// `contact.sleep` and `contact.sleep_time`: when free bodies among solids sleep.
    pub sleep: SolidsSleep,
    /// Each solid's own `restitution` and `friction` (`None`: `[contact]`'s), in the order of
    /// `solids`.
    pub materials: Vec<Option<Material>>,
}

impl AssemblyScene {
    /// The assembly with the balls and strikers, for scenes that have them.
    pub fn with_balls(&self) -> Result<AssemblyWithBalls, AssemblyError> {
        AssemblyWithBalls::new(
            self.assembly.clone(),
            self.balls.clone(),
            self.strikers.clone(),
            self.restitution,
            self.friction,
        )
        .and_then(|mut world| {
            for (b, m) in self.ball_materials.iter().enumerate() {
                if let Some(m) = m {
                    world.set_ball_material(b, *m)?;
                }
            }
            for (s, m) in self.striker_materials.iter().enumerate() {
                if let Some(m) = m {
                    world.set_striker_material(s, *m)?;
                }
            }
            Ok(world)
        })
    }

    /// The assembly with its solids, for scenes that have them.
    pub fn with_solids(&self) -> Result<AssemblyWithSolids, AssemblyError> {
        AssemblyWithSolids::new(
            self.assembly.clone(),
            self.solids.clone(),
            ContactSettings {
                restitution: self.restitution,
                friction: self.friction,
                envelope: self.envelope,
            },
            &self.exclude,
            &self.include,
        )
        .and_then(|mut world| {
            world.solver = self.solver;
            world.broad_phase = self.broad_phase;
            world.sleep = self.sleep;
            for (s, m) in self.materials.iter().enumerate() {
                if let Some(m) = m {
                    world.set_material(s, *m)?;
                }
            }
            Ok(world)
        })
    }
}

const ROOT_KEYS: &[&str] = &[
    "world", "assembly", "bodies", "joints", "loads", "balls", "strikers", "contact", "fixed",
];
const BALL_KEYS: &[&str] = &[
    "name",
    "mass",
    "radius",
    "position",
    "velocity",
    "angular_velocity",
    "on_table",
    "restitution",
    "friction",
];
const WORLD_KEYS: &[&str] = &["name", "gravity", "duration", "output_rate"];
const ASSEMBLY_KEYS: &[&str] = &[
    "step",
    "projection",
    "baumgarte_frequency",
    "baumgarte_damping_ratio",
    "tolerance",
    "assemble",
];
const BODY_KEYS: &[&str] = &[
    "name",
    "mass",
    "inertia",
    "position",
    "orientation",
    "velocity",
    "angular_velocity",
    "force",
    "torque",
    "linear_damping",
    "angular_damping",
    "shape",
    "shapes",
    "density",
    "restitution",
    "friction",
];
const JOINT_TYPES: &[&str] = &[
    "spherical",
    "point_to_point",
    "fixed_point",
    "revolute",
    "cylindrical",
    "prismatic",
    "planar",
    "screw",
    "point_on_line",
    "point_on_circle",
    "point_on_plane",
    "point_on_sphere",
    "point_on_path",
    "alignment",
    "point_on_helix",
    "point_on_polyline",
    "point_on_spline",
    "point_on_cylinder",
    "angle_driver",
    "slide_driver",
];

/// Whether `text` is an assembly scene (it has an `[assembly]` table), so that `impulse run`
/// and `impulse check` know which reader to use.
pub fn is_assembly_scene(text: &str) -> bool {
    toml::de::DeTable::parse(text).is_ok_and(|t| t.get_ref().contains_key("assembly"))
}

/// Reads and builds the assembly scene in `path`.
pub fn load(path: &FilePath) -> Result<AssemblyScene, SceneError> {
    parse(path, &crate::scene::read_text(path)?)
}

/// Builds an assembly scene from `text`, as if read from `path`.
pub fn parse(path: &FilePath, text: &str) -> Result<AssemblyScene, SceneError> {
    let (mut scene, warnings) = read_document(path, text, read)?;
    scene.warnings = warnings;
    Ok(scene)
}

fn read(ctx: &Context, root: &Table) -> Option<AssemblyScene> {
    root.reject_unknown(ROOT_KEYS);
    let header = RunHeader::read(ctx, root, WORLD_KEYS, "assembly");
    let gravity = header
        .get("gravity")
        .and_then(|v| v.vec3())
        .unwrap_or(Vec3::new(0.0, 0.0, -9.81));
    let RunHeader {
        name,
        duration,
        output_rate,
        ..
    } = header;

    let mut settings = AssemblySettings::with_step(gravity, 1e-3);
    if let Some(a) = root.table("assembly") {
        a.reject_unknown(ASSEMBLY_KEYS);
        if let Some(step) = a.get("step").and_then(|v| v.positive()) {
            settings.step = step;
        }
        if let Some(on) = a.get("projection").and_then(|v| v.boolean()) {
            settings.projection = on;
        }
        if let Some(f) = a.get("baumgarte_frequency").and_then(|v| v.non_negative()) {
            settings.baumgarte.frequency = f;
        }
        if let Some(z) = a
            .get("baumgarte_damping_ratio")
            .and_then(|v| v.non_negative())
        {
            settings.baumgarte.damping_ratio = z;
        }
        if let Some(t) = a.get("tolerance").and_then(|v| v.positive()) {
            settings.tolerance = t;
        }
        if let Some(on) = a.get("assemble").and_then(|v| v.boolean()) {
            settings.assemble = on;
        }
    }

    let mut bodies = Vec::new();
    let mut body_spans = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut body_shapes = Vec::new();
    let mut body_materials = Vec::new();
    for t in root.array_of_tables("bodies").unwrap_or_default() {
        if let Some((body, shapes)) = read_body(ctx, &t) {
            body_materials.push(solids::read_material(&t, !shapes.is_empty()));
            body_shapes.push(shapes);
            if index.contains_key(&body.name) {
                if let Some(v) = t.get("name") {
                    v.error(format!(
                        "a second body named `{}`; names must be unique",
                        body.name
                    ));
                }
            } else {
                index.insert(body.name.clone(), bodies.len());
            }
            bodies.push(body);
            body_spans.push((t.span(), t.path().to_string()));
        }
    }
    if bodies.is_empty() && ctx.error_count() == 0 {
        root.error("an assembly scene needs at least one [[bodies]] table");
    }

    let (joints, joint_spans) = read_each(root, "joints", |t, i| read_joint(t, i, &index));
    let (loads, load_spans) = read_each(root, "loads", |t, i| read_load(t, i, &index));
    let mut balls = Vec::new();
    let mut ball_own = Vec::new();
    for t in root.array_of_tables("balls").unwrap_or_default() {
        t.reject_unknown(BALL_KEYS);
        let own = solids::read_material(&t, true);
        let name = string(&t, "name", "a string");
        let mass = positive(&t, "mass", "a positive mass");
        let radius = positive(&t, "radius", "a positive length");
        let position = vec3(&t, "position", "[x, y, z]");
        let vec = |key: &str| vec3_or(&t, key, Vec3::zeros());
        let on_table = keys::boolean_or(&t, "on_table", false);
        if let Some(n) = &name
            && (index.contains_key(n) || balls.iter().any(|b: &Ball| &b.name == n))
            && let Some(v) = t.get("name")
        {
            v.error(format!(
                "a second body or ball named `{n}`; names must be unique"
            ));
        }
        if let (Some(name), Some(mass), Some(radius), Some(position)) =
            (name, mass, radius, position)
        {
            let mut ball = Ball::new(name, mass, radius, position);
            if let (Some(v), Some(w), Some(on)) =
                (vec("velocity"), vec("angular_velocity"), on_table)
            {
                ball.velocity = v;
                ball.angular_velocity = w;
                ball.on_table = on;
                balls.push(ball);
                ball_own.push(own);
            }
        }
    }
    let mut strikers = Vec::new();
    let mut striker_centers = Vec::new();
    let mut striker_own = Vec::new();
    for t in root.array_of_tables("strikers").unwrap_or_default() {
        t.reject_unknown(&["body", "center", "radius", "restitution", "friction"]);
        let own = solids::read_material(&t, true);
        let body = t
            .required("body", "the name of the assembly body carrying it")
            .and_then(|v| body_ref(&index, "body", v))
            .flatten();
        let center = vec3(&t, "center", "the sphere's centre [x, y, z] at the start");
        let radius = positive(&t, "radius", "a positive length");
        if let (Some(body), Some(center), Some(radius)) = (body, center, radius) {
            strikers.push(Striker {
                body,
                offset: Vec3::zeros(),
                radius,
            });
            striker_centers.push(center);
            striker_own.push(own);
        }
    }
    // Solids: each body's shapes (in body order), then the fixed ones.
    let mut solids: Vec<Solid> = Vec::new();
    let mut solid_spans = Vec::new();
    let mut own_materials = Vec::new();
    for (b, shapes) in body_shapes.iter().enumerate() {
        if !shapes.is_empty() {
            own_materials.push(body_materials[b]);
            solids.push(Solid {
                name: bodies[b].name.clone(),
                body: Some(b),
                shapes: shapes.clone(),
                pose: crate::math::Pose::identity(),
            });
            solid_spans.push(body_spans[b].clone());
        }
    }
    for (i, t) in root
        .array_of_tables("fixed")
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        if let Some((name, shapes, pose)) = solids::read_fixed(ctx, t, i) {
            own_materials.push(solids::read_material(t, true));
            if index.contains_key(&name) || solids.iter().any(|s| s.name == name) {
                t.error(format!(
                    "a second body or solid named `{name}`; names must be unique"
                ));
            }
            solids.push(Solid {
                name,
                body: None,
                shapes,
                pose,
            });
            solid_spans.push((t.span(), t.path().to_string()));
        }
    }
    let solid_index: HashMap<String, usize> = solids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    if !solids.is_empty()
        && let Some(t) = root.get("balls").or_else(|| root.get("strikers"))
    {
        t.error("[[balls]] and [[strikers]] cannot be mixed with bodies that have shapes or [[fixed]] solids: give a ball as a body with a sphere `shape`, a striker as a sphere in its body's `shapes`");
    }
    let (mut exclude, mut include) = (Vec::new(), Vec::new());
    let mut envelope = 1e-3;
    let (mut restitution, mut friction) = (0.9, 0.0);
    let mut run = run_keys::RunKeys::default();
    if let Some(c) = root.table("contact") {
        let mut known = vec!["restitution", "friction", "envelope", "exclude", "include"];
        known.extend(run_keys::KEYS);
        c.reject_unknown(&known);
        run = run_keys::read(&c, !solids.is_empty());
        if let Some(e) = c.get("envelope").and_then(|v| v.positive()) {
            envelope = e;
        }
        for (key, list) in [("exclude", &mut exclude), ("include", &mut include)] {
            if let Some(v) = c.get(key)
                && let Some(pairs) = solids::read_pairs(&v, &solid_index)
            {
                *list = pairs;
            }
        }
        if let Some(v) = c.get("restitution") {
            match v.number() {
                Some(e) if (0.0..=1.0).contains(&e) => restitution = e,
                Some(e) => v.error(format!("restitution must be in [0, 1], found {e}")),
                None => {}
            }
        }
        if let Some(mu) = c.get("friction").and_then(|v| v.non_negative()) {
            friction = mu;
        }
    }
    if ctx.error_count() > 0 {
        return None;
    }
    // A solid's own value, or `[contact]`'s where it gave only one of the two.
    let own_or_contact = |own: &[Option<solids::OwnMaterial>]| -> Vec<Option<Material>> {
        own.iter()
            .map(|m| match *m {
                Some((None, None)) | None => None,
                Some((e, mu)) => Some(Material {
                    restitution: e.unwrap_or(restitution),
                    friction: mu.unwrap_or(friction),
                }),
            })
            .collect()
    };
    let materials = own_or_contact(&own_materials);
    let ball_materials = own_or_contact(&ball_own);
    let striker_materials = own_or_contact(&striker_own);
    // A striker's centre, given in the world, is fixed in its body's frame.
    for (s, c) in strikers.iter_mut().zip(&striker_centers) {
        let b = &bodies[s.body];
        s.offset = b.orientation.inverse() * (c - b.position);
    }
    let joint_at = |name: &str| joints.iter().position(|j: &JointDesc| j.name == name);
    let built = Assembly::new(settings, bodies.clone(), joints.clone()).and_then(|mut a| {
        for l in loads.clone() {
            a.add_load(l)?;
        }
        Ok(a)
    });
    // Solids that start overlapping deeper than the envelope are reported at the second one.
    if let Ok(assembly) = &built
        && !solids.is_empty()
    {
        let world = AssemblyWithSolids::new(
            assembly.clone(),
            solids.clone(),
            ContactSettings {
                restitution,
                friction,
                envelope,
            },
            &exclude,
            &include,
        );
        if let Err(e) = world {
            let span = match &e {
                AssemblyError::Overlap { b: name, .. } | AssemblyError::Body { body: name, .. } => {
                    solid_index.get(name).map(|&s| solid_spans[s].clone())
                }
                _ => None,
            }
            .unwrap_or((root.span(), String::new()));
            ctx.error(&span.0, &span.1, e.to_string());
            return None;
        }
    }
    match built {
        Ok(assembly) => Some(AssemblyScene {
            name,
            path: ctx.path().to_path_buf(),
            assembly,
            duration,
            output_rate,
            warnings: Vec::new(),
            balls,
            strikers,
            ball_materials,
            striker_materials,
            restitution,
            friction,
            solids,
            envelope,
            exclude,
            include,
            solver: run.solver,
            broad_phase: run.broad_phase,
            sleep: run.sleep,
            materials,
        }),
        Err(e) => {
            let (span, key) = match &e {
                AssemblyError::Joint { joint, .. } | AssemblyError::Violated { joint, .. } => {
                    joint_at(joint).map(|j| joint_spans[j].clone())
                }
                AssemblyError::Body { body, .. } => bodies
                    .iter()
                    .position(|b| &b.name == body)
                    .map(|b| body_spans[b].clone()),
                AssemblyError::Load { load, .. } => loads
                    .iter()
                    .position(|l| &l.name == load)
                    .map(|l| load_spans[l].clone()),
                _ => None,
            }
            .unwrap_or((root.span(), String::new()));
            ctx.error(&span, &key, e.to_string());
            None
        }
    }
}

/// Every table of the array `key` read by `read` (given the table and its index), with the
/// span and path of each one read, for errors found when the assembly is built.
fn read_each<T>(
    root: &Table,
    key: &str,
    read: impl Fn(&Table, usize) -> Option<T>,
) -> (Vec<T>, Vec<(Range<usize>, String)>) {
    let mut items = Vec::new();
    let mut spans = Vec::new();
    for (i, t) in root
        .array_of_tables(key)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        if let Some(item) = read(t, i) {
            items.push(item);
            spans.push((t.span(), t.path().to_string()));
        }
    }
    (items, spans)
}

fn read_body(ctx: &Context, t: &Table) -> Option<(AssemblyBodyDesc, Vec<PlacedShape>)> {
    t.reject_unknown(BODY_KEYS);
    let name = string(t, "name", "a string");
    let shapes = solids::read_shapes(ctx, t)?;
    // Without `inertia`, a body with shapes takes its mass properties from them.
    let from_shapes =
        (!shapes.is_empty() && !t.has("inertia")).then(|| solids::shape_mass(t, &shapes));
    let (mass, inertia) = match from_shapes {
        Some(m) => (m.map(|m| m.0), m.map(|m| m.1)),
        None => {
            if let Some(v) = t.get("density") {
                v.error("`density` goes with shapes whose mass properties are computed (no `inertia`); give `mass`");
            }
            let mass = positive(t, "mass", "a positive mass");
            let inertia = t
                .required(
                    "inertia",
                    "principal moments [Ixx, Iyy, Izz] or a 3×3 tensor about the centre of mass (or a `shape` to compute them from)",
                )
                .and_then(|v| read_inertia(&v));
            (mass, inertia)
        }
    };
    let position = vec3(t, "position", "the centre of mass [x, y, z]");
    let vec = |key: &str| vec3_or(t, key, Vec3::zeros());
    let orientation = match t.get("orientation") {
        Some(v) => read_orientation(&v),
        None => Some(Quat::identity()),
    };
    let damping = |key: &str| non_negative_or(t, key, 0.0);
    let desc = AssemblyBodyDesc {
        name: name?,
        mass: mass?,
        inertia: inertia?,
        position: position?,
        orientation: orientation?,
        velocity: vec("velocity")?,
        angular_velocity: vec("angular_velocity")?,
        force: vec("force")?,
        torque: vec("torque")?,
        linear_damping: damping("linear_damping")?,
        angular_damping: damping("angular_damping")?,
    };
    Some((desc, shapes))
}

fn read_inertia(v: &Value) -> Option<Mat3> {
    let items = v.array()?;
    let inertia = if items.first().is_some_and(Value::is_array) {
        if items.len() != 3 {
            v.error("expected a 3×3 tensor: three rows of three numbers");
            return None;
        }
        let rows: Vec<Vec3> = items.iter().filter_map(Value::vec3).collect();
        if rows.len() != 3 {
            return None;
        }
        Mat3::from_rows(&[
            rows[0].transpose(),
            rows[1].transpose(),
            rows[2].transpose(),
        ])
    } else {
        Mat3::from_diagonal(&v.vec3()?)
    };
    let symmetric = (inertia - inertia.transpose()).abs().max() <= 1e-12 * inertia.abs().max();
    let eigen = nalgebra::SymmetricEigen::new(inertia).eigenvalues;
    if !symmetric || eigen.min() <= 0.0 {
        v.error("the inertia must be symmetric and positive definite (every principal moment > 0)");
        return None;
    }
    let (a, b, c) = (eigen[0], eigen[1], eigen[2]);
    if a > b + c + 1e-12 * (a + b + c)
        || b > a + c + 1e-12 * (a + b + c)
        || c > a + b + 1e-12 * (a + b + c)
    {
        v.error(format!(
            "principal moments {a}, {b}, {c} break the triangle inequality no rigid body can"
        ));
        return None;
    }
    Some(inertia)
}

fn read_joint(t: &Table, i: usize, bodies: &HashMap<String, usize>) -> Option<JointDesc> {
    let kind = t
        .required("type", "a joint type")
        .and_then(|v| v.choice(JOINT_TYPES));
    let specific: &[&str] = match kind.unwrap_or("") {
        "spherical" => &["anchor"],
        "point_to_point" => &["point_a", "point_b"],
        "fixed_point" => &["point"],
        "revolute" | "cylindrical" | "prismatic" => &["anchor", "axis"],
        "planar" => &["anchor", "normal"],
        "screw" => &["anchor", "axis", "lead", "handedness"],
        "point_on_line" => &["point", "origin", "direction"],
        "point_on_circle" => &["point", "center", "normal", "radius"],
        "point_on_plane" => &["point", "origin", "normal"],
        "point_on_sphere" => &["point", "center", "radius"],
        "point_on_path" => &["point", "path"],
        "alignment" => &["axis"],
        "point_on_helix" => &["point", "center", "axis", "radius", "lead", "handedness"],
        "point_on_polyline" | "point_on_spline" => &["point", "points"],
        "point_on_cylinder" => &["point", "origin", "axis", "radius"],
        "angle_driver" => &["axis", "angle"],
        "slide_driver" => &["anchor", "axis", "position"],
        _ => &[],
    };
    if kind.is_some() {
        keys::reject_unknown(t, specific);
    }
    let name = keys::name_or(t, format!("joint{i}"));
    let (a, b) = ends(t, bodies);
    let length = |key: &str| positive(t, key, "a positive length");
    let primitive = match kind? {
        "spherical" => Primitive::Spherical {
            anchor: vec3(t, "anchor", "the joint centre [x, y, z]")?,
        },
        "point_to_point" => Primitive::PointToPoint {
            point_a: vec3(t, "point_a", "A's point [x, y, z]")?,
            point_b: vec3(t, "point_b", "B's point [x, y, z]")?,
        },
        "fixed_point" => Primitive::FixedPoint {
            point: vec3(t, "point", "the point [x, y, z]")?,
        },
        "revolute" => Primitive::Revolute {
            anchor: vec3(t, "anchor", "a point on the axis [x, y, z]")?,
            axis: direction(t, "axis")?,
        },
        "cylindrical" => Primitive::Cylindrical {
            anchor: vec3(t, "anchor", "a point on the axis [x, y, z]")?,
            axis: direction(t, "axis")?,
        },
        "prismatic" => Primitive::Prismatic {
            anchor: vec3(t, "anchor", "a point on the axis [x, y, z]")?,
            axis: direction(t, "axis")?,
        },
        "planar" => Primitive::Planar {
            anchor: vec3(t, "anchor", "a point of the plane [x, y, z]")?,
            normal: direction(t, "normal")?,
        },
        "screw" => {
            let (handedness, lead) = (handedness(t), lead(t));
            Primitive::Screw {
                anchor: vec3(t, "anchor", "a point on the axis [x, y, z]")?,
                axis: direction(t, "axis")?,
                lead: lead?,
                handedness: handedness?,
            }
        }
        "point_on_line" => {
            let point = vec3(t, "point", "A's point [x, y, z]")?;
            Primitive::PointOnLine {
                point,
                origin: vec3_or(t, "origin", point)?,
                direction: direction(t, "direction")?,
            }
        }
        "point_on_circle" => Primitive::PointOnCircle {
            point: vec3(t, "point", "A's point [x, y, z]")?,
            center: vec3(t, "center", "the circle's centre [x, y, z]")?,
            normal: direction(t, "normal")?,
            radius: length("radius")?,
        },
        "point_on_plane" => {
            let point = vec3(t, "point", "A's point [x, y, z]")?;
            Primitive::PointOnPlane {
                point,
                origin: vec3_or(t, "origin", point)?,
                normal: direction(t, "normal")?,
            }
        }
        "point_on_sphere" => Primitive::PointOnSphere {
            point: vec3(t, "point", "A's point [x, y, z]")?,
            center: vec3(t, "center", "the sphere's centre [x, y, z]")?,
            radius: length("radius")?,
        },
        "point_on_path" => Primitive::PointOnPath {
            point: vec3(t, "point", "A's point [x, y, z]")?,
            path: t
                .required("path", "a path table")
                .and_then(|v| v.table())
                .and_then(|p| read_path(&p))?,
        },
        "alignment" => Primitive::Alignment {
            axis: direction(t, "axis")?,
        },
        "point_on_helix" => {
            let (handedness, lead) = (handedness(t), lead(t));
            let point = vec3(t, "point", "A's point [x, y, z]")?;
            let center = vec3(t, "center", "a point on the helix's axis [x, y, z]")?;
            let axis = direction(t, "axis")?;
            let radius = length("radius")?;
            let rel = point - center;
            let d = axis.normalize();
            if (rel - d * d.dot(&rel)).norm() <= 1e-12 * (1.0 + rel.norm()) {
                if let Some(v) = t.get("point") {
                    v.error("the point lies on the helix's axis: the helix passes through the point's angle about the axis, which it does not have");
                }
                return None;
            }
            Primitive::PointOnHelix {
                point,
                center,
                axis,
                radius,
                lead: lead?,
                handedness: handedness?,
            }
        }
        "point_on_polyline" | "point_on_spline" => {
            let polyline = kind == Some("point_on_polyline");
            let point = vec3(t, "point", "A's point [x, y, z]");
            let points = t
                .required("points", "the curve's points [[x, y, z], …] (at least 2)")
                .and_then(|v| {
                    let items = v.array()?;
                    let points: Vec<Vec3> = items.iter().filter_map(Value::vec3).collect();
                    if points.len() != items.len() {
                        return None;
                    }
                    match super::curve::check_points(&points, polyline) {
                        Ok(()) => Some(points),
                        Err(message) => {
                            v.error(message);
                            None
                        }
                    }
                });
            let (point, points) = (point?, points?);
            if polyline {
                Primitive::PointOnPolyline { point, points }
            } else {
                Primitive::PointOnSpline { point, points }
            }
        }
        "point_on_cylinder" => {
            let point = vec3(t, "point", "A's point [x, y, z]")?;
            Primitive::PointOnCylinder {
                point,
                origin: vec3(t, "origin", "a point on the cylinder's axis [x, y, z]")?,
                axis: direction(t, "axis")?,
                radius: length("radius")?,
            }
        }
        "slide_driver" => Primitive::SlideDriver {
            anchor: vec3(t, "anchor", "a point on the axis [x, y, z]")?,
            axis: direction(t, "axis")?,
            position: profiles::read_profile(
                t,
                "position",
                "[a₀, a₁, …] as lengths: s(t) = a₀ + a₁ t + a₂ t² + …",
            )?,
        },
        "angle_driver" => Primitive::AngleDriver {
            axis: direction(t, "axis")?,
            angle: profiles::read_profile(
                t,
                "angle",
                "[a₀, a₁, …] in radians: θ(t) = a₀ + a₁ t + a₂ t² + …",
            )?,
        },
        _ => return None,
    };
    if b.is_some_and(|b| b.is_some()) && primitive.needs_world() {
        if let Some(v) = t.get("to") {
            v.error(format!(
                "a {} joint holds its body to the world; leave out `to` (or write \"world\")",
                primitive.name()
            ));
        }
        return None;
    }
    Some(JointDesc {
        name: name?,
        a: a?,
        b: b?,
        primitive,
    })
}

/// A polynomial's coefficients `[c₀, c₁, …]` under `key` (at least one).
fn coefficients(t: &Table, key: &str, what: &str) -> Option<Vec<f64>> {
    let v = t.required(key, what)?;
    let items = v.array()?;
    let c: Vec<f64> = items.iter().filter_map(Value::number).collect();
    if c.len() != items.len() {
        return None;
    }
    if c.is_empty() {
        v.error(format!("give at least one coefficient: {what}"));
        return None;
    }
    Some(c)
}

fn read_load(t: &Table, i: usize, bodies: &HashMap<String, usize>) -> Option<LoadDesc> {
    let kind = t
        .required("type", "\"spring\", \"torque\" or \"piston\"")
        .and_then(|v| v.choice(&["spring", "torque", "piston"]));
    let specific: &[&str] = match kind.unwrap_or("") {
        "spring" => &["point_a", "point_b", "stiffness", "damping", "rest_length"],
        "torque" => &["axis", "torque"],
        "piston" => &["point", "top", "bottom", "force"],
        _ => &[],
    };
    if kind.is_some() {
        keys::reject_unknown(t, specific);
    }
    let name = keys::name_or(t, format!("load{i}"));
    let (a, b) = ends(t, bodies);
    let non_negative = |key: &str, default: Option<f64>| match t.get(key) {
        Some(v) => v.non_negative(),
        None => default.or_else(|| {
            t.required(key, "a non-negative number");
            None
        }),
    };
    let kind = match kind? {
        "spring" => {
            let point_a = vec3(t, "point_a", "A's point [x, y, z]");
            let point_b = vec3(t, "point_b", "B's point [x, y, z]");
            let stiffness = non_negative("stiffness", None);
            let damping = non_negative("damping", Some(0.0));
            let (point_a, point_b) = (point_a?, point_b?);
            let rest_length = non_negative("rest_length", Some((point_a - point_b).norm()));
            LoadKind::Spring {
                point_a,
                point_b,
                stiffness: stiffness?,
                damping: damping?,
                rest_length: rest_length?,
            }
        }
        "piston" => {
            let point = vec3(t, "point", "the piston's point (wrist pin) [x, y, z]");
            let top = vec3(t, "top", "the top of the stroke [x, y, z]");
            let bottom = vec3(t, "bottom", "the bottom of the stroke [x, y, z]");
            let force = non_negative("force", None);
            let (top, bottom) = (top?, bottom?);
            if (top - bottom).norm() <= 1e-12 * (1.0 + top.norm()) {
                if let Some(v) = t.get("bottom") {
                    v.error("`top` and `bottom` are the same point: the stroke has no length");
                }
                return None;
            }
            LoadKind::Piston {
                point: point?,
                top,
                bottom,
                force: force?,
            }
        }
        _ => {
            let axis = direction(t, "axis");
            let torque = profiles::read_profile(
                t,
                "torque",
                "[c₀, c₁, …]: τ(t) = c₀ + c₁ t + c₂ t² + … about the axis",
            );
            LoadKind::Torque {
                axis: axis?,
                torque: torque?,
            }
        }
    };
    Some(LoadDesc {
        name: name?,
        a: a?,
        b: b?,
        kind,
    })
}

/// A screw's or helix's `handedness`.
fn handedness(t: &Table) -> Option<Handedness> {
    t.required("handedness", "\"right\" or \"left\"")
        .and_then(|v| v.choice(&["right", "left"]))
        .map(|h| {
            if h == "right" {
                Handedness::Right
            } else {
                Handedness::Left
            }
        })
}

/// A screw's or helix's `lead`: the advance per full turn.
fn lead(t: &Table) -> Option<f64> {
    t.required("lead", "the advance per turn (a positive length)")
        .and_then(|v| {
            let x = v.number()?;
            if x.is_finite() && x > 0.0 {
                Some(x)
            } else {
                v.error(format!(
                    "the lead is the advance per full turn and must be a positive length, found {x}"
                ));
                None
            }
        })
}

fn read_path(t: &Table) -> Option<Path> {
    let kind = t
        .required(
            "type",
            "\"polynomial\", \"circle\", \"harmonic\" or \"table\"",
        )
        .and_then(|v| v.choice(&["polynomial", "circle", "harmonic", "table"]))?;
    if kind == "harmonic" || kind == "table" {
        return profiles::read_path(t, kind);
    }
    let path = if kind == "polynomial" {
        t.reject_unknown(&["type", "coefficients"]);
        let v = t.required(
            "coefficients",
            "[[x, y, z], …]: r(t) = c₀ + c₁ t + c₂ t² + …",
        )?;
        let items = v.array()?;
        let coefficients: Vec<Vec3> = items.iter().filter_map(Value::vec3).collect();
        if coefficients.len() != items.len() {
            return None;
        }
        if coefficients.is_empty() {
            v.error("give at least one coefficient (the start point)");
            return None;
        }
        Path::Polynomial { coefficients }
    } else {
        t.reject_unknown(&["type", "center", "radius", "normal", "start", "angle"]);
        let center = vec3(t, "center", "[x, y, z]");
        let radius = positive(t, "radius", "a positive length");
        let normal = vec3(t, "normal", "[x, y, z]");
        let start = vec3(t, "start", "[x, y, z], the direction of angle 0");
        let angle = profiles::read_profile(
            t,
            "angle",
            "[a₀, a₁, …] in radians: φ(t) = a₀ + a₁ t + a₂ t² + …",
        );
        let (normal, start) = (normal?, start?);
        let n = normal.norm();
        let s = start - normal * start.dot(&normal) / (n * n).max(f64::MIN_POSITIVE);
        if n < 1e-12 || s.norm() < 1e-12 {
            t.error("the circle's normal must be non-zero and its start direction not along it");
            return None;
        }
        Path::Circle {
            center: center?,
            radius: radius?,
            normal: normal / n,
            start: s.normalize(),
            angle: angle?,
        }
    };
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<Diagnostic> {
        match parse(FilePath::new("test.toml"), text) {
            Ok(_) => Vec::new(),
            Err(e) => e.diagnostics().to_vec(),
        }
    }

    const PENDULUM: &str = r#"
[world]
gravity = [0, -9.81, 0]
[assembly]
step = 0.001
[[bodies]]
name = "rod"
mass = 1
inertia = [0.00125, 0.0839583, 0.0839583]
position = [0.5, 0, 0]
[[joints]]
type = "revolute"
body = "rod"
anchor = [0, 0, 0]
axis = [0, 0, 1]
"#;

    #[test]
    fn a_pendulum_reads_and_runs() {
        assert!(is_assembly_scene(PENDULUM));
        let scene = parse(FilePath::new("p.toml"), PENDULUM).unwrap();
        assert_eq!(scene.assembly.row_count(), 5);
        assert_eq!(scene.name, "p");
    }

    /// Bad input names the line and key: a missing body, a zero axis, a bad lead, an unknown
    /// key, and a pose that violates its joint (with the gap).
    #[test]
    fn bad_joints_are_reported_with_line_and_key() {
        let missing = PENDULUM.replace("body = \"rod\"", "body = \"rdo\"");
        let e = errors(&missing);
        assert!(e[0].key == "joints[0].body" && e[0].line == 13, "{e:?}");
        assert!(e[0].message.contains("no body named `rdo`"), "{e:?}");
        let zero = PENDULUM.replace("axis = [0, 0, 1]", "axis = [0, 0, 0]");
        let e = errors(&zero);
        assert!(
            e[0].key == "joints[0].axis" && e[0].message.contains("zero"),
            "{e:?}"
        );
        let typo = PENDULUM.replace("axis = [0, 0, 1]", "axis = [0, 0, 1]\naxes = 1");
        let e = errors(&typo);
        assert!(
            e[0].key == "joints[0].axes" && e[0].message.contains("axis"),
            "{e:?}"
        );
        let screw = PENDULUM.replace(
            "type = \"revolute\"",
            "type = \"screw\"\nlead = -0.1\nhandedness = \"right\"",
        );
        let e = errors(&screw);
        assert!(
            e[0].key == "joints[0].lead" && e[0].message.contains("positive"),
            "{e:?}"
        );
        let off = PENDULUM
            .replace("type = \"revolute\"", "type = \"point_to_point\"")
            .replace("anchor = [0, 0, 0]", "point_a = [0, 0, 0]")
            .replace("axis = [0, 0, 1]", "point_b = [0, 0.01, 0]");
        let e = errors(&off);
        assert!(
            e[0].key == "joints[0]" && e[0].message.contains("violates"),
            "{e:?}"
        );
        assert!(e[0].message.contains("1e-2"), "{e:?}");
    }

    /// The curves', driver's and loads' keys are checked at load with the key named: a zero
    /// helix radius or lead, a point on the helix axis, fewer than two points, a repeated point,
    /// a sharp polyline corner, an empty driver polynomial, a negative stiffness, a piston of no
    /// stroke, a load naming no body; and good ones build.
    #[test]
    fn curve_driver_and_load_keys_are_checked() {
        let bead = r#"
[world]
[assembly]
[[bodies]]
name = "bead"
mass = 1
inertia = [1, 1, 1]
position = [1, 0, 0]
"#;
        let helix = |radius: &str, lead: &str, point: &str| {
            format!(
                "{bead}[[joints]]\ntype = \"point_on_helix\"\nbody = \"bead\"\npoint = {point}\ncenter = [0, 0, 0]\naxis = [0, 0, 1]\nradius = {radius}\nlead = {lead}\nhandedness = \"right\"\n"
            )
        };
        assert!(errors(&helix("1", "0.5", "[1, 0, 0]")).is_empty());
        let e = errors(&helix("0", "0.5", "[1, 0, 0]"));
        assert!(e[0].key == "joints[0].radius", "{e:?}");
        let e = errors(&helix("1", "0", "[1, 0, 0]"));
        assert!(
            e[0].key == "joints[0].lead" && e[0].message.contains("positive"),
            "{e:?}"
        );
        let e = errors(&helix("1", "0.5", "[0, 0, 1]"));
        assert!(
            e[0].key == "joints[0].point" && e[0].message.contains("axis"),
            "{e:?}"
        );
        let curve = |kind: &str, points: &str| {
            format!(
                "{bead}[[joints]]\ntype = \"{kind}\"\nbody = \"bead\"\npoint = [1, 0, 0]\npoints = {points}\n"
            )
        };
        assert!(
            errors(&curve(
                "point_on_spline",
                "[[0, 0, 0], [1, 0, 0], [2, 1, 0]]"
            ))
            .is_empty()
        );
        let e = errors(&curve("point_on_spline", "[[1, 0, 0]]"));
        assert!(
            e[0].key == "joints[0].points" && e[0].message.contains("at least 2"),
            "{e:?}"
        );
        let e = errors(&curve(
            "point_on_polyline",
            "[[0, 0, 0], [1, 0, 0], [1, 0, 0]]",
        ));
        assert!(
            e[0].key == "joints[0].points" && e[0].message.contains("repeats"),
            "{e:?}"
        );
        let e = errors(&curve(
            "point_on_polyline",
            "[[0, 0, 0], [1, 0, 0], [0, 1, 0]]",
        ));
        assert!(e[0].message.contains("turns by 135.0°"), "{e:?}");
        let driver = format!(
            "{bead}[[joints]]\ntype = \"angle_driver\"\nbody = \"bead\"\naxis = [0, 0, 1]\nangle = []\n"
        );
        let e = errors(&driver);
        assert!(e[0].key == "joints[0].angle", "{e:?}");
        let slide = format!(
            "{bead}[[joints]]\ntype = \"slide_driver\"\nbody = \"bead\"\nanchor = [0, 0, 0]\naxis = [0, 0, 0]\nposition = [0, 1]\n"
        );
        let e = errors(&slide);
        assert!(e[0].key == "joints[0].axis", "{e:?}");
        assert!(e[0].message.contains("zero direction"), "{e:?}");
        let load = |text: &str| format!("{bead}[[loads]]\n{text}\n");
        assert!(
            errors(&load(
                "type = \"spring\"\nbody = \"bead\"\npoint_a = [1, 0, 0]\npoint_b = [0, 0, 0]\nstiffness = 3"
            ))
            .is_empty()
        );
        let e = errors(&load(
            "type = \"spring\"\nbody = \"bead\"\npoint_a = [1, 0, 0]\npoint_b = [0, 0, 0]\nstiffness = -3",
        ));
        assert!(e[0].key == "loads[0].stiffness", "{e:?}");
        let e = errors(&load(
            "type = \"piston\"\nbody = \"bead\"\npoint = [1, 0, 0]\ntop = [1, 0, 0]\nbottom = [1, 0, 0]\nforce = 3",
        ));
        assert!(
            e[0].key == "loads[0].bottom" && e[0].message.contains("no length"),
            "{e:?}"
        );
        let e = errors(&load(
            "type = \"torque\"\nbody = \"bed\"\naxis = [0, 0, 1]\ntorque = [1]",
        ));
        assert!(
            e[0].key == "loads[0].body" && e[0].message.contains("no body named `bed`"),
            "{e:?}"
        );
    }
}
