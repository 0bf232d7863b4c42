//! Robot and mechanism models from URDF and MJCF files.
//!
//! Both readers (`urdf`, `mjcf`) turn their file into one intermediate description, a
//! `ModelTree`: bodies in a tree, each with its pose in its parent's frame, the joint that
//! moves it (expressed in its own frame, as both formats do), its inertial and its collision
//! geometry. `assemble` then places that tree in the world at its reference configuration
//! (every joint coordinate zero) and writes the engine's own descriptions — a
//! [`MultibodyDesc`] whose links carry their mass properties directly
//! ([`MassSpec::Explicit`]), and fixed [`BodyDesc`]s for what is welded to the world — so an
//! imported model goes through the same validation and build as a scene's `[[multibodies]]`.
//!
//! Choices (also in `docs/sources.md`):
//! - A body welded to its parent (URDF `fixed` joint, MJCF body without joints) is merged into
//!   the parent: its inertial is added by the parallel-axis theorem and its geometry moves
//!   with it, as Pinocchio and MuJoCo (`fusestatic`) do. The dynamics are the same; the
//!   welded body's name is not a link of its own.
//! - A root welded to the world (URDF with `base = "fixed"`, MJCF bodies without a free
//!   joint at the top) becomes part of the ground: its geometry, and the MJCF world's, make
//!   one fixed body named `MODEL/ROOT`, from which the model's moving links hang.
//! - Collision meshes collide as their convex hull (as in MuJoCo); COLLADA (`.dae`) files are
//!   not read: such geometry is left out with a warning (inertials are unaffected).
//!
//! Every problem is a [`Diagnostic`] naming the model file, line, column and element.

mod assemble;
use assemble::assemble;
mod coordinates;
mod export;
mod mjcf;
mod scene_key;
mod urdf;
mod xml;

use std::path::{Path, PathBuf};

pub use coordinates::{JointCoordinates, ModelDynamics};

use super::reader::{Diagnostic, Severity};
use crate::control::JointPid;
use crate::dynamics::{BodyDesc, MassSpec, Material, MotionType, PlacedShape};
use crate::geometry::{ConvexPolyhedron, MassProperties, Shape, read_mesh};
use crate::math::{Mat3, Point, Pose, Quat, Vec3, pose};
use crate::multibody::{JointDesc, JointKind, MultibodyDesc, PassiveElements, WORLD};

/// How a model's root is attached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// As the file says: URDF roots are welded to the world; MJCF top-level bodies keep their
    /// joints (a `freejoint` floats, no joint welds).
    #[default]
    AsWritten,
    /// The root is welded to the world (a free joint at the top is dropped).
    Fixed,
    /// The root floats: a floating joint to the world (top-level bodies without a joint get
    /// one).
    Floating,
}

/// Options for reading a model.
#[derive(Clone, Debug)]
pub struct ModelOptions {
    /// How the root is attached.
    pub base: Base,
    /// Where the model's own world frame is placed in the scene.
    pub placement: Pose,
    /// Name of the multibody (default: the file's robot or model name).
    pub name: Option<String>,
    /// Material of the collision geometry.
    pub material: Material,
}

impl Default for ModelOptions {
    fn default() -> Self {
        Self {
            base: Base::AsWritten,
            placement: Pose::identity(),
            name: None,
            material: Material::default(),
        }
    }
}

/// A model read from a file and placed in the world, ready to add.
#[derive(Clone, Debug)]
pub struct Model {
    /// The multibody's name.
    pub name: String,
    /// The model file.
    pub path: PathBuf,
    /// The moving parts (`None` when everything is welded to the world).
    pub multibody: Option<MultibodyDesc>,
    /// What is welded to the world: at most one fixed body, `NAME/ROOT`.
    pub fixed_bodies: Vec<BodyDesc>,
    /// Gravity the file asks for (MJCF `<option gravity>`); URDF has none.
    pub gravity: Option<Vec3>,
    /// Problems that do not stop the model from loading.
    pub warnings: Vec<Diagnostic>,
    /// Where each shape came from, for writing the model as a scene file.
    sources: Sources,
    /// Position actuators, as PD controllers (for writing them out).
    servos: Vec<Servo>,
    /// Floating joints whose model coordinates measure from their origin (URDF `floating`).
    from_origin: Vec<String>,
}

/// Where the shapes of each link and fixed body came from (parallel to their `shapes`).
#[derive(Clone, Debug, Default)]
struct Sources {
    links: Vec<Vec<ShapeSource>>,
    fixed: Vec<Vec<ShapeSource>>,
}

/// A shape written out as a primitive, or the convex hull of a mesh file.
#[derive(Clone, Debug)]
enum ShapeSource {
    Primitive,
    Mesh { file: PathBuf, scale: Vec3 },
}

/// A position or velocity servo on a joint (MJCF `<position>`, `<velocity>`), held by a PD
/// controller updated every `period`.
#[derive(Clone, Debug)]
struct Servo {
    joint: String,
    kp: f64,
    kv: f64,
    max_force: f64,
    rate: f64,
}

impl Model {
    /// Adds the model to `world`: its fixed body (if any), then its multibody. Errors name
    /// what failed.
    pub fn add_to(
        &self,
        world: &mut crate::world::World,
    ) -> Result<Option<crate::multibody::MultibodyId>, String> {
        for body in &self.fixed_bodies {
            world
                .add_body(body.clone())
                .map_err(|e| format!("model `{}`: {e}", self.name))?;
        }
        let Some(desc) = &self.multibody else {
            return Ok(None);
        };
        let id = world
            .add_multibody(desc.clone())
            .map_err(|e| format!("model `{}`: {e}", self.name))?;
        // Joint limits get the scene's automatic stops: stiff and critically damped.
        let limited: Vec<&str> = desc
            .joints
            .iter()
            .filter(|j| {
                j.passive
                    .limits
                    .iter()
                    .any(|&(lo, hi)| lo.is_finite() || hi.is_finite())
            })
            .map(|j| j.name.as_str())
            .collect();
        super::multibody::set_automatic_stops(world, id, &limited);
        Ok(Some(id))
    }

    /// The model as a scene file (`impulse import`): `[world]` with the model's gravity, its
    /// fixed body, and one `[[multibodies]]` with every link's mass properties, shapes (mesh
    /// files referred to relative to `scene_path`'s directory) and joints. Loading it gives the
    /// same multibody.
    pub fn to_scene(&self, scene_path: &Path) -> String {
        export::write_scene(self, scene_path)
    }
}

/// Reads a URDF (`.urdf`) or MJCF (`.xml`, `.mjcf`) file and places it in the world.
pub fn read_model(path: &Path, options: &ModelOptions) -> Result<Model, Vec<Diagnostic>> {
    let mut diag = Diagnostics::new(path);
    let text = match crate::input_file::read_bounded_text(
        path,
        "the model file",
        crate::MAX_INPUT_BYTES,
    ) {
        Ok(t) => t,
        Err(e) => {
            diag.error(&Loc::file(), e);
            return Err(diag.into_list());
        }
    };
    let tree = match ModelFormat::of(path, &text) {
        ModelFormat::Urdf => urdf::parse(path, &text, &mut diag),
        ModelFormat::Mjcf => mjcf::parse(path, &text, &mut diag),
        ModelFormat::Unknown(root) => {
            diag.error(
                &Loc::file(),
                format!(
                    "not a robot model: expected a URDF file (root element <robot>) or an MJCF file (root element <mujoco>){}",
                    root.map_or(String::new(), |r| format!(", found <{r}>"))
                ),
            );
            None
        }
    };
    let model = tree.and_then(|tree| assemble(tree, path, options, &mut diag));
    match model {
        Some(mut model) if diag.errors == 0 => {
            model.warnings = diag.into_list();
            Ok(model)
        }
        _ => Err(diag.into_list()),
    }
}

enum ModelFormat {
    Urdf,
    Mjcf,
    Unknown(Option<String>),
}

impl ModelFormat {
    /// By the root element (the extension is only a hint people get wrong).
    fn of(path: &Path, text: &str) -> Self {
        match roxmltree::Document::parse(text) {
            Ok(doc) => match doc.root_element().tag_name().name() {
                "robot" => Self::Urdf,
                "mujoco" => Self::Mjcf,
                other => Self::Unknown(Some(other.to_string())),
            },
            // Let the reader report the syntax error at its line.
            Err(_) => match path.extension().and_then(|e| e.to_str()) {
                Some("urdf") => Self::Urdf,
                _ => Self::Mjcf,
            },
        }
    }
}

/// Where something is in a model file: line and column (1-based) and the element.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Loc {
    pub line: usize,
    pub column: usize,
    pub element: String,
}

impl Loc {
    /// The file as a whole.
    fn file() -> Self {
        Self {
            line: 1,
            column: 1,
            element: String::new(),
        }
    }

    /// The position of `node`, named by its tag and `name` attribute.
    pub fn of(node: &roxmltree::Node<'_, '_>) -> Self {
        let pos = node.document().text_pos_at(node.range().start);
        let tag = node.tag_name().name();
        let element = match node.attribute("name") {
            Some(name) => format!("<{tag} name=\"{name}\">"),
            None => format!("<{tag}>"),
        };
        Self {
            line: pos.row as usize,
            column: pos.col as usize,
            element,
        }
    }

    /// The position of attribute `name` of `node` (the element's if it has no such attribute).
    pub fn attribute(node: &roxmltree::Node<'_, '_>, name: &str) -> Self {
        let mut loc = Self::of(node);
        if let Some(a) = node.attributes().find(|a| a.name() == name) {
            let pos = node.document().text_pos_at(a.range().start);
            loc.line = pos.row as usize;
            loc.column = pos.col as usize;
            loc.element = format!("{} {name}", loc.element);
        }
        loc
    }
}

/// Diagnostics of one model file.
pub(crate) struct Diagnostics {
    path: PathBuf,
    list: Vec<Diagnostic>,
    errors: usize,
}

impl Diagnostics {
    fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            list: Vec::new(),
            errors: 0,
        }
    }

    fn report(&mut self, severity: Severity, loc: &Loc, message: String) {
        if severity == Severity::Error {
            self.errors += 1;
        }
        self.list.push(Diagnostic {
            severity,
            path: self.path.clone(),
            line: loc.line,
            column: loc.column,
            key: loc.element.clone(),
            message,
        });
    }

    pub fn error(&mut self, loc: &Loc, message: impl Into<String>) {
        self.report(Severity::Error, loc, message.into());
    }

    pub fn warning(&mut self, loc: &Loc, message: impl Into<String>) {
        self.report(Severity::Warning, loc, message.into());
    }

    pub fn error_count(&self) -> usize {
        self.errors
    }

    fn into_list(mut self) -> Vec<Diagnostic> {
        self.list.sort_by_key(|d| (d.line, d.column, d.severity));
        self.list.dedup();
        self.list
    }
}

/// Mass properties given in a body's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Inertial {
    pub mass: f64,
    /// Centre of mass, body frame.
    pub center: Vec3,
    /// Inertia about the centre of mass, body axes.
    pub inertia: Mat3,
}

impl Inertial {
    fn mass_properties(&self) -> MassProperties {
        MassProperties {
            mass: self.mass,
            center_of_mass: Point::from(self.center),
            inertia: self.inertia,
            volume: 0.0,
        }
    }
}

/// Collision geometry as the file gives it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GeomShape {
    Sphere {
        radius: f64,
    },
    Box {
        half_extents: Vec3,
    },
    Cylinder {
        radius: f64,
        half_height: f64,
    },
    Capsule {
        radius: f64,
        half_height: f64,
    },
    Ellipsoid {
        radii: Vec3,
    },
    /// The half-space below the frame's xy plane (MJCF `plane`).
    Plane,
    /// A mesh file (OBJ or STL), scaled; collides as its convex hull.
    Mesh {
        file: PathBuf,
        scale: Vec3,
    },
}

/// One collision geometry in a body's frame.
#[derive(Clone, Debug)]
pub(crate) struct Geom {
    pub shape: GeomShape,
    pub pose: Pose,
    pub loc: Loc,
}

/// A joint, in the frame of the body it moves.
#[derive(Clone, Debug)]
pub(crate) struct ModelJoint {
    pub name: String,
    pub kind: JointKind,
    /// Axis (revolute, prismatic; plane normal of a planar joint), body frame.
    pub axis: Vec3,
    /// In-plane x direction of a planar joint, body frame.
    pub x_axis: Option<Vec3>,
    /// Joint origin, body frame.
    pub anchor: Vec3,
    /// Position limits (radians or lengths).
    pub limits: Option<(f64, f64)>,
    pub damping: f64,
    pub stiffness: f64,
    /// Spring rest position (MJCF `springref`).
    pub rest: f64,
    pub armature: f64,
    /// A floating joint whose coordinates measure from its origin (URDF `floating`: zero is
    /// the child's pose in the file) rather than from the world (MJCF `free`).
    pub from_origin: bool,
}

impl ModelJoint {
    pub fn new(name: impl Into<String>, kind: JointKind) -> Self {
        Self {
            name: name.into(),
            kind,
            axis: Vec3::z(),
            x_axis: None,
            anchor: Vec3::zeros(),
            limits: None,
            damping: 0.0,
            stiffness: 0.0,
            rest: 0.0,
            armature: 0.0,
            from_origin: false,
        }
    }
}

/// One body of a model tree.
#[derive(Clone, Debug)]
pub(crate) struct ModelBody {
    pub name: String,
    /// Parent body (`None`: the model's world).
    pub parent: Option<usize>,
    /// Pose of this body's frame in its parent's frame (the model's world for a root).
    pub pose: Pose,
    /// The joint that moves it (`None`: welded to its parent).
    pub joint: Option<ModelJoint>,
    /// Mass properties (`None`: massless).
    pub inertial: Option<Inertial>,
    pub geoms: Vec<Geom>,
    pub loc: Loc,
}

/// An actuator that maps onto a joint servo.
#[derive(Clone, Debug)]
pub(crate) struct Actuator {
    pub joint: String,
    pub kp: f64,
    pub kv: f64,
    pub max_force: f64,
    pub loc: Loc,
}

/// A model file's kinematic tree, before it is placed in the world.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModelTree {
    pub name: String,
    /// Bodies, every parent before its children.
    pub bodies: Vec<ModelBody>,
    /// Geometry fixed to the model's world (MJCF `<worldbody>` geoms).
    pub world_geoms: Vec<Geom>,
    pub gravity: Option<Vec3>,
    /// The file's time step (MJCF `<option timestep>`): servos update at its rate.
    pub timestep: Option<f64>,
    pub actuators: Vec<Actuator>,
    /// The URDF convention: the root is welded unless `base = "floating"`.
    pub urdf: bool,
}

/// Default time step of MJCF files (MuJoCo's `timestep`), and so the servo rate of models
/// that do not give one.
const DEFAULT_TIMESTEP: f64 = 0.002;

/// The convex hull of a mesh file's vertices, scaled.
pub(crate) fn mesh_hull(file: &Path, scale: &Vec3) -> Result<ConvexPolyhedron, String> {
    let mesh = read_mesh(file).map_err(|e| format!("cannot use the mesh: {e}"))?;
    let points: Vec<Point> = mesh
        .vertices
        .iter()
        .map(|p| Point::from(p.coords.component_mul(scale)))
        .collect();
    ConvexPolyhedron::hull_of(&points)
        .map_err(|e| format!("cannot use the mesh {}: its vertices: {e}", file.display()))
}

/// Mass properties of one geometry at `density` (MJCF bodies without an `<inertial>`), in the
/// geometry's body frame. Meshes use the closed mesh itself (Mirtich's volume integrals).
pub(crate) fn geom_mass(geom: &Geom, density: f64) -> Result<Option<MassProperties>, String> {
    let shape = match &geom.shape {
        GeomShape::Sphere { radius } => Shape::Sphere { radius: *radius },
        GeomShape::Box { half_extents } => Shape::Box {
            half_extents: *half_extents,
        },
        GeomShape::Cylinder {
            radius,
            half_height,
        } => Shape::Cylinder {
            radius: *radius,
            half_height: *half_height,
        },
        GeomShape::Capsule {
            radius,
            half_height,
        } => Shape::Capsule {
            radius: *radius,
            half_height: *half_height,
        },
        GeomShape::Ellipsoid { radii } => Shape::Ellipsoid { radii: *radii },
        GeomShape::Plane => return Ok(None),
        GeomShape::Mesh { file, scale } => {
            let mut mesh = read_mesh(file).map_err(|e| format!("cannot use the mesh: {e}"))?;
            mesh.map_vertices(|p| Point::from(p.coords.component_mul(scale)));
            if let Err(defect) = mesh.validate_solid() {
                let located = crate::geometry::MeshFileError::from_defect(file, &mesh, &defect);
                return Err(format!(
                    "cannot derive mass from the mesh ({located}); give the body an <inertial>"
                ));
            }
            let mp = mesh.volume_integrals().mass_properties(density);
            return Ok(Some(mp.transformed(&geom.pose)));
        }
    };
    shape
        .check()
        .map_err(|e| format!("this {}: {e}", shape.kind()))?;
    Ok(shape
        .mass_properties(density)
        .map(|mp| mp.transformed(&geom.pose)))
}

/// A rotation from roll, pitch, yaw about fixed x, y, z axes: `R = Rz(yaw) Ry(pitch) Rx(roll)`
/// (URDF `rpy`).
pub(crate) fn rpy(roll: f64, pitch: f64, yaw: f64) -> Quat {
    Quat::from_axis_angle(&Vec3::z_axis(), yaw)
        * Quat::from_axis_angle(&Vec3::y_axis(), pitch)
        * Quat::from_axis_angle(&Vec3::x_axis(), roll)
}

/// A pose from a position and rotation.
pub(crate) fn placed(position: Vec3, rotation: Quat) -> Pose {
    pose(position, rotation)
}

/// An inertia tensor from its six components.
pub(crate) fn inertia_tensor(xx: f64, yy: f64, zz: f64, xy: f64, xz: f64, yz: f64) -> Mat3 {
    Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz)
}

/// Checks an inertial: positive mass, finite, physical tensor. Reports at `loc`.
pub(crate) fn check_inertial(inertial: &Inertial, loc: &Loc, diag: &mut Diagnostics) -> bool {
    if !(inertial.mass > 0.0 && inertial.mass.is_finite()) {
        diag.error(
            loc,
            format!(
                "the mass must be positive, found {} (a body without mass has no <inertial>)",
                inertial.mass
            ),
        );
        return false;
    }
    if let Err(e) = crate::dynamics::check_inertia(&inertial.inertia) {
        diag.error(loc, e.to_string());
        return false;
    }
    true
}
