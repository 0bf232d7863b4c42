//! MJCF (MuJoCo's model format), the subset that maps onto this engine: nested `<body>`s with
//! `<inertial>` or geometry-derived mass, one `hinge`, `slide`, `ball` or `free` joint per
//! body (with `damping`, `stiffness`, `springref`, `armature`, `range`), `<geom>`s (sphere,
//! capsule, cylinder, box, ellipsoid, plane, mesh), `<default>` classes, `<compiler angle
//! eulerseq meshdir>`, `<option gravity timestep>`, and `<position>`/`<velocity>` actuators
//! as PD servos. Everything else is reported by element and line.
//!
//! Conventions of the format: quaternions are `w x y z`; angles are degrees unless
//! `<compiler angle="radian">`; `euler` follows `eulerseq` (lowercase letters turn about the
//! moving axes, uppercase about the fixed ones); a joint's `pos` and `axis` are in its body's
//! frame; `size` gives half-lengths; geoms weigh `density` (default 1000) times their volume
//! unless they give `mass`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use roxmltree::Node;

use super::xml::elements;
use super::{
    Diagnostics, Geom, Inertial, Loc, ModelBody, ModelJoint, ModelTree, check_inertial,
    inertia_tensor, placed,
};
use crate::geometry::MassProperties;
use crate::math::{Mat3, Pose, Quat, Vec3};
use crate::multibody::JointKind;

/// Default class attributes: class → element tag → attribute → (value, where it was set).
type Classes = HashMap<String, HashMap<String, HashMap<String, (String, Loc)>>>;

const MAIN: &str = "main";

struct Compiler {
    degrees: bool,
    eulerseq: [u8; 3],
    meshdir: PathBuf,
    /// `inertiafromgeom`: `Some(true)` always, `Some(false)` never, `None` when no inertial.
    inertia_from_geom: Option<bool>,
    autolimits: bool,
}

struct Reader<'d> {
    diag: &'d mut Diagnostics,
    classes: Classes,
    compiler: Compiler,
    meshes: HashMap<String, (PathBuf, Vec3)>,
    bodies: Vec<ModelBody>,
    world_geoms: Vec<Geom>,
    names: HashMap<String, usize>,
}

/// An element with its default class resolved (the class's attributes copied: model files
/// are small).
struct El<'a, 'i> {
    node: Node<'a, 'i>,
    defaults: Option<HashMap<String, (String, Loc)>>,
}

impl El<'_, '_> {
    fn get(&self, name: &str) -> Option<(String, Loc)> {
        if let Some(v) = self.node.attribute(name) {
            return Some((v.to_string(), Loc::attribute(&self.node, name)));
        }
        self.defaults.as_ref().and_then(|d| d.get(name)).cloned()
    }

    fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn text(&self, name: &str) -> Option<String> {
        self.get(name).map(|(v, _)| v)
    }

    fn numbers(&self, name: &str, diag: &mut Diagnostics) -> Option<Vec<f64>> {
        let (text, loc) = self.get(name)?;
        let mut out = Vec::new();
        for word in text.split_whitespace() {
            match word.parse::<f64>() {
                Ok(x) if x.is_finite() => out.push(x),
                _ => {
                    diag.error(&loc, format!("expected numbers, found `{word}`"));
                    return None;
                }
            }
        }
        Some(out)
    }

    fn fixed<const N: usize>(&self, name: &str, diag: &mut Diagnostics) -> Option<[f64; N]> {
        let values = self.numbers(name, diag)?;
        match <[f64; N]>::try_from(values.as_slice()) {
            Ok(a) => Some(a),
            Err(_) => {
                let loc = self.loc_of(name);
                diag.error(
                    &loc,
                    format!("expected {N} numbers, found {}", values.len()),
                );
                None
            }
        }
    }

    fn vec3(&self, name: &str, diag: &mut Diagnostics) -> Option<Vec3> {
        self.fixed::<3>(name, diag)
            .map(|[x, y, z]| Vec3::new(x, y, z))
    }

    fn number(&self, name: &str, diag: &mut Diagnostics) -> Option<f64> {
        self.fixed::<1>(name, diag).map(|[x]| x)
    }

    fn loc_of(&self, name: &str) -> Loc {
        self.get(name)
            .map_or_else(|| Loc::of(&self.node), |(_, l)| l)
    }

    fn loc(&self) -> Loc {
        Loc::of(&self.node)
    }
}

/// Reads an MJCF file into a model tree.
pub(crate) fn parse(path: &Path, text: &str, diag: &mut Diagnostics) -> Option<ModelTree> {
    let doc = super::xml::parse(text, diag)?;
    let root = doc.root_element();
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let name = root
        .attribute("model")
        .map(str::to_string)
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "model".into())
        });
    let mut reader = Reader {
        diag,
        classes: Classes::new(),
        compiler: Compiler {
            degrees: true,
            eulerseq: *b"xyz",
            meshdir: dir.clone(),
            inertia_from_geom: None,
            autolimits: true,
        },
        meshes: HashMap::new(),
        bodies: Vec::new(),
        world_geoms: Vec::new(),
        names: HashMap::new(),
    };
    let mut tree = ModelTree {
        name,
        ..ModelTree::default()
    };
    // Compiler settings and defaults first: they apply to the whole file wherever they are.
    for node in elements(root) {
        match node.tag_name().name() {
            "compiler" => reader.compiler(node, &dir),
            "default" => reader.defaults(node, None),
            _ => {}
        }
    }
    reader.classes.entry(MAIN.to_string()).or_default();
    for node in elements(root) {
        match node.tag_name().name() {
            "compiler" | "default" => {}
            "option" => {
                let el = El {
                    node,
                    defaults: None,
                };
                if el.has("gravity") {
                    tree.gravity = el.vec3("gravity", reader.diag);
                } else {
                    tree.gravity = Some(Vec3::new(0.0, 0.0, -9.81));
                }
                if el.has("timestep") {
                    tree.timestep = el.number("timestep", reader.diag).filter(|&t| t > 0.0);
                }
                for flag in elements(node) {
                    if flag.tag_name().name() != "flag" {
                        reader.diag.warning(
                            &Loc::of(&flag),
                            format!("<{}> in <option> is not read", flag.tag_name().name()),
                        );
                    }
                }
            }
            "asset" => reader.assets(node),
            "worldbody" => reader.worldbody(node),
            "actuator" => tree.actuators = reader.actuators(node),
            // Rendering, sizes of MuJoCo's own buffers, and sensors: not physics.
            "visual" | "statistic" | "size" | "sensor" | "keyframe" | "custom" => {}
            other => reader.diag.warning(
                &Loc::of(&node),
                format!("<{other}> is not supported and is ignored (see docs/scene-format.md, [[model]])"),
            ),
        }
    }
    if tree.gravity.is_none() {
        tree.gravity = Some(Vec3::new(0.0, 0.0, -9.81));
    }
    if reader.diag.error_count() > 0 {
        return None;
    }
    tree.bodies = reader.bodies;
    tree.world_geoms = reader.world_geoms;
    Some(tree)
}

impl Reader<'_> {
    fn compiler(&mut self, node: Node<'_, '_>, dir: &Path) {
        let el = El {
            node,
            defaults: None,
        };
        for attribute in node.attributes() {
            let name = attribute.name();
            let value = attribute.value();
            let loc = Loc::attribute(&node, name);
            match name {
                "angle" => match value {
                    "degree" => self.compiler.degrees = true,
                    "radian" => self.compiler.degrees = false,
                    _ => self
                        .diag
                        .error(&loc, "expected angle=\"degree\" or \"radian\""),
                },
                "eulerseq" => {
                    let bytes = value.as_bytes();
                    if bytes.len() == 3 && bytes.iter().all(|b| b"xyzXYZ".contains(b)) {
                        self.compiler.eulerseq = [bytes[0], bytes[1], bytes[2]];
                    } else {
                        self.diag
                            .error(&loc, "expected three of x, y, z, X, Y, Z (e.g. \"xyz\")");
                    }
                }
                "meshdir" => self.compiler.meshdir = dir.join(value),
                "assetdir" => self.compiler.meshdir = dir.join(value),
                "inertiafromgeom" => {
                    self.compiler.inertia_from_geom = match value {
                        "true" => Some(true),
                        "false" => Some(false),
                        _ => None,
                    }
                }
                "autolimits" => self.compiler.autolimits = value == "true",
                "coordinate" if value == "global" => self.diag.error(
                    &loc,
                    "coordinate=\"global\" (obsolete in MuJoCo) is not supported: give poses relative to the parent",
                ),
                "coordinate" => {}
                "boundmass" | "boundinertia" | "balanceinertia" | "settotalmass" => {
                    self.diag.warning(
                        &loc,
                        format!("`{name}` is not supported: mass properties are taken as given"),
                    )
                }
                _ => {}
            }
        }
        let _ = el;
    }

    /// A `<default>` element (class `main` at the top) and its nested classes.
    fn defaults(&mut self, node: Node<'_, '_>, parent: Option<&str>) {
        let class = match (node.attribute("class"), parent) {
            (Some(c), _) => c.to_string(),
            (None, None) => MAIN.to_string(),
            (None, Some(_)) => {
                self.diag
                    .error(&Loc::of(&node), "a nested <default> needs a `class`");
                return;
            }
        };
        let mut table = parent
            .and_then(|p| self.classes.get(p).cloned())
            .unwrap_or_default();
        let mut nested = Vec::new();
        for element in elements(node) {
            let tag = element.tag_name().name();
            if tag == "default" {
                nested.push(element);
                continue;
            }
            let entry = table.entry(tag.to_string()).or_default();
            for a in element.attributes() {
                entry.insert(
                    a.name().to_string(),
                    (a.value().to_string(), Loc::attribute(&element, a.name())),
                );
            }
        }
        self.classes.insert(class.clone(), table);
        for element in nested {
            self.defaults(element, Some(&class));
        }
    }

    fn element<'a, 'i>(&self, node: Node<'a, 'i>, class: &str) -> El<'a, 'i> {
        let class = node.attribute("class").unwrap_or(class);
        let tag = node.tag_name().name();
        let tag = if tag == "freejoint" { "joint" } else { tag };
        El {
            node,
            defaults: self.classes.get(class).and_then(|c| c.get(tag)).cloned(),
        }
    }

    fn angle(&self, x: f64) -> f64 {
        if self.compiler.degrees {
            x.to_radians()
        } else {
            x
        }
    }

    fn assets(&mut self, node: Node<'_, '_>) {
        for element in elements(node) {
            if element.tag_name().name() != "mesh" {
                continue;
            }
            let el = self.element(element, MAIN);
            let Some(file) = el.text("file") else {
                self.diag.warning(
                    &el.loc(),
                    "a <mesh> without `file` (vertices given inline) is not supported",
                );
                continue;
            };
            let name = el.text("name").unwrap_or_else(|| {
                Path::new(&file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            let scale = if el.has("scale") {
                match el.vec3("scale", self.diag) {
                    Some(s) if s.iter().all(|&x| x > 0.0) => s,
                    Some(_) => {
                        self.diag
                            .error(&el.loc_of("scale"), "scale factors must be positive");
                        continue;
                    }
                    None => continue,
                }
            } else {
                Vec3::repeat(1.0)
            };
            let loc = el.loc_of("file");
            let resolved =
                super::urdf::resolve_mesh(&file, &self.compiler.meshdir, &loc, self.diag);
            if let Some(path) = resolved {
                self.meshes.insert(name, (path, scale));
            }
        }
    }

    fn worldbody(&mut self, node: Node<'_, '_>) {
        for element in elements(node) {
            match element.tag_name().name() {
                "body" => self.body(element, None, MAIN),
                "geom" => {
                    if let Some(geom) = self
                        .geom(element, MAIN)
                        .and_then(|(g, _)| g.filter_collider())
                    {
                        self.world_geoms.push(geom);
                    }
                }
                "site" | "camera" | "light" => {}
                other => self.diag.warning(
                    &Loc::of(&element),
                    format!("<{other}> in <worldbody> is not supported and is ignored"),
                ),
            }
        }
    }

    /// An orientation from whichever of `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis` is
    /// given (identity if none).
    fn orientation(&mut self, el: &El<'_, '_>) -> Option<Quat> {
        let given: Vec<&str> = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
            .into_iter()
            .filter(|k| el.node.attribute(*k).is_some())
            .collect();
        if given.len() > 1 {
            self.diag.error(
                &el.loc(),
                format!("give one orientation, found {}", given.join(" and ")),
            );
            return None;
        }
        // Only the element's own attributes (orientations are not inherited from defaults,
        // except a geom's or site's own, which MuJoCo allows; they are rare and read here too).
        let key = given.first().copied().or_else(|| {
            ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
                .into_iter()
                .find(|k| el.has(k))
        });
        let Some(key) = key else {
            return Some(Quat::identity());
        };
        let loc = el.loc_of(key);
        let q = match key {
            "quat" => {
                let [w, x, y, z] = el.fixed::<4>("quat", self.diag)?;
                let q = nalgebra::Quaternion::new(w, x, y, z);
                if q.norm() == 0.0 {
                    self.diag.error(&loc, "the quaternion is zero");
                    return None;
                }
                Quat::from_quaternion(q)
            }
            "axisangle" => {
                let [x, y, z, a] = el.fixed::<4>("axisangle", self.diag)?;
                let axis = Vec3::new(x, y, z);
                if axis.norm() == 0.0 {
                    self.diag.error(&loc, "the axis has zero length");
                    return None;
                }
                Quat::from_axis_angle(&nalgebra::Unit::new_normalize(axis), self.angle(a))
            }
            "euler" => {
                let angles = el.fixed::<3>("euler", self.diag)?;
                let mut q = Quat::identity();
                for (k, &c) in self.compiler.eulerseq.iter().enumerate() {
                    let axis = match c.to_ascii_lowercase() {
                        b'x' => Vec3::x_axis(),
                        b'y' => Vec3::y_axis(),
                        _ => Vec3::z_axis(),
                    };
                    let r = Quat::from_axis_angle(&axis, self.angle(angles[k]));
                    // Lowercase: about the moving (rotated) axes; uppercase: the fixed ones.
                    q = if c.is_ascii_lowercase() { q * r } else { r * q };
                }
                q
            }
            "xyaxes" => {
                let v = el.fixed::<6>("xyaxes", self.diag)?;
                let x = Vec3::new(v[0], v[1], v[2]);
                let y = Vec3::new(v[3], v[4], v[5]);
                let x = x.try_normalize(1e-12);
                let y = x.and_then(|x| (y - x * x.dot(&y)).try_normalize(1e-12));
                let (Some(x), Some(y)) = (x, y) else {
                    self.diag
                        .error(&loc, "the x and y axes must be non-zero and not parallel");
                    return None;
                };
                let m = Mat3::from_columns(&[x, y, x.cross(&y)]);
                Quat::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(m))
            }
            _ => {
                let z = el.vec3("zaxis", self.diag)?;
                let Some(z) = z.try_normalize(1e-12) else {
                    self.diag.error(&loc, "the z axis has zero length");
                    return None;
                };
                // The shortest rotation taking z to the given direction (MuJoCo's rule).
                Quat::rotation_between(&Vec3::z(), &z)
                    .unwrap_or_else(|| Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::PI))
            }
        };
        Some(q)
    }

    fn frame(&mut self, el: &El<'_, '_>) -> Option<Pose> {
        let pos = if el.node.attribute("pos").is_some() || el.has("pos") {
            el.vec3("pos", self.diag)?
        } else {
            Vec3::zeros()
        };
        Some(placed(pos, self.orientation(el)?))
    }

    fn body(&mut self, node: Node<'_, '_>, parent: Option<usize>, class: &str) {
        let class = node.attribute("childclass").unwrap_or(class).to_string();
        let loc = Loc::of(&node);
        let index = self.bodies.len();
        let name = node
            .attribute("name")
            .map(str::to_string)
            .unwrap_or_else(|| format!("body{index}"));
        if let Some(&first) = self.names.get(&name) {
            self.diag.error(
                &loc,
                format!("another body is already named `{name}` (line {first})"),
            );
            return;
        }
        self.names.insert(name.clone(), loc.line);
        let el = El {
            node,
            defaults: None,
        };
        let pose = self.frame(&el).unwrap_or_else(Pose::identity);
        let mut joints = Vec::new();
        let mut geoms = Vec::new();
        let mut geom_masses = Vec::new();
        let mut inertial = None;
        let mut children = Vec::new();
        for element in elements(node) {
            match element.tag_name().name() {
                "joint" | "freejoint" => {
                    if let Some(j) = self.joint(element, &class, &name, joints.len()) {
                        joints.push(j);
                    }
                }
                "geom" => {
                    if let Some((geom, mass)) = self.geom(element, &class) {
                        if let Some(m) = mass {
                            geom_masses.push(m);
                        }
                        if let Some(g) = geom.filter_collider() {
                            geoms.push(g);
                        }
                    }
                }
                "inertial" => inertial = self.inertial(element),
                "body" => children.push(element),
                "site" | "camera" | "light" => {}
                other => self.diag.warning(
                    &Loc::of(&element),
                    format!("<{other}> in a body is not supported and is ignored"),
                ),
            }
        }
        let from_geoms = match self.compiler.inertia_from_geom {
            Some(true) => true,
            Some(false) => false,
            None => inertial.is_none(),
        };
        if from_geoms {
            let combined = MassProperties::combine(&geom_masses);
            inertial = (combined.mass > 0.0).then_some(Inertial {
                mass: combined.mass,
                center: combined.center_of_mass.coords,
                inertia: combined.inertia,
            });
        }
        let joint = match joints.len() {
            0 | 1 => joints.pop(),
            _ => {
                let names: Vec<&str> = joints.iter().map(|j| j.name.as_str()).collect();
                self.diag.error(
                    &loc,
                    format!(
                        "body `{name}` has {} joints ({}): this engine moves each link by one joint (hinge, slide, ball or free); split the body into a chain of bodies with one joint each",
                        joints.len(),
                        names.join(", ")
                    ),
                );
                None
            }
        };
        self.bodies.push(ModelBody {
            name,
            parent,
            pose,
            joint,
            inertial,
            geoms,
            loc,
        });
        for child in children {
            self.body(child, Some(index), &class);
        }
    }

    fn inertial(&mut self, node: Node<'_, '_>) -> Option<Inertial> {
        let el = El {
            node,
            defaults: None,
        };
        if el.has("fullinertia")
            && let Some(key) = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
                .into_iter()
                .find(|k| el.has(k))
        {
            // As MuJoCo: a full tensor is already in body axes.
            self.diag.error(
                &el.loc_of(key),
                "an <inertial> with `fullinertia` takes no orientation: give the tensor in body axes, or `diaginertia` with an orientation",
            );
            return None;
        }
        let frame = self.frame(&el)?;
        let Some(mass) = el.number("mass", self.diag) else {
            if !el.has("mass") {
                self.diag.error(
                    &el.loc(),
                    "an <inertial> needs `mass` (and `diaginertia` or `fullinertia`)",
                );
            }
            return None;
        };
        let tensor = match (el.has("diaginertia"), el.has("fullinertia")) {
            (true, false) => {
                let d = el.vec3("diaginertia", self.diag)?;
                Mat3::from_diagonal(&d)
            }
            (false, true) => {
                let [xx, yy, zz, xy, xz, yz] = el.fixed::<6>("fullinertia", self.diag)?;
                inertia_tensor(xx, yy, zz, xy, xz, yz)
            }
            (true, true) => {
                self.diag
                    .error(&el.loc(), "give `diaginertia` or `fullinertia`, not both");
                return None;
            }
            (false, false) => {
                self.diag.error(
                    &el.loc(),
                    "an <inertial> needs `diaginertia` or `fullinertia`",
                );
                return None;
            }
        };
        let r = frame.rotation.to_rotation_matrix().into_inner();
        let inertial = Inertial {
            mass,
            center: frame.translation.vector,
            inertia: r * tensor * r.transpose(),
        };
        check_inertial(&inertial, &el.loc(), self.diag).then_some(inertial)
    }

    fn joint(
        &mut self,
        node: Node<'_, '_>,
        class: &str,
        body: &str,
        index: usize,
    ) -> Option<ModelJoint> {
        let el = self.element(node, class);
        let free_element = node.tag_name().name() == "freejoint";
        let type_name = if free_element {
            "free".to_string()
        } else {
            el.text("type").unwrap_or_else(|| "hinge".into())
        };
        let kind = match type_name.as_str() {
            "hinge" => JointKind::Revolute,
            "slide" => JointKind::Prismatic,
            "ball" => JointKind::Spherical,
            "free" => JointKind::Floating,
            other => {
                self.diag.error(
                    &el.loc_of("type"),
                    format!("unknown joint type `{other}`: expected hinge, slide, ball or free"),
                );
                return None;
            }
        };
        let name = el.text("name").unwrap_or_else(|| {
            if index == 0 {
                body.to_string()
            } else {
                format!("{body}_{index}")
            }
        });
        let mut joint = ModelJoint::new(name.clone(), kind);
        if kind == JointKind::Floating {
            return Some(joint);
        }
        if el.has("pos") {
            joint.anchor = el.vec3("pos", self.diag)?;
        }
        if matches!(kind, JointKind::Revolute | JointKind::Prismatic) {
            let axis = if el.has("axis") {
                el.vec3("axis", self.diag)?
            } else {
                Vec3::z()
            };
            let Some(axis) = axis.try_normalize(1e-12) else {
                self.diag
                    .error(&el.loc_of("axis"), "the axis has zero length");
                return None;
            };
            joint.axis = axis;
        }
        let angular = kind == JointKind::Revolute;
        let scalar = |reader: &mut Self, key: &str| -> Option<f64> {
            if el.has(key) {
                el.number(key, reader.diag)
            } else {
                Some(0.0)
            }
        };
        let non_negative = |reader: &mut Self, key: &str| -> f64 {
            let x = scalar(reader, key).unwrap_or(0.0);
            if x < 0.0 {
                reader
                    .diag
                    .error(&el.loc_of(key), format!("`{key}` must be ≥ 0, found {x}"));
            }
            x.max(0.0)
        };
        joint.damping = non_negative(self, "damping");
        joint.stiffness = non_negative(self, "stiffness");
        joint.armature = non_negative(self, "armature");
        let springref = scalar(self, "springref").unwrap_or(0.0);
        joint.rest = if angular {
            self.angle(springref)
        } else {
            springref
        };
        if kind == JointKind::Spherical && springref != 0.0 {
            self.diag.warning(
                &el.loc_of("springref"),
                "a ball joint's spring rests at the reference orientation; `springref` is left out",
            );
        }
        for key in ["frictionloss", "ref"] {
            if let Some(x) = scalar(self, key)
                && x != 0.0
            {
                let why = if key == "ref" {
                    "the reference position is where the body is drawn (coordinate 0 here)"
                } else {
                    "dry joint friction is not supported"
                };
                self.diag.warning(
                    &el.loc_of(key),
                    format!("joint `{name}`: `{key}` is left out ({why})"),
                );
            }
        }
        let limited = match el.text("limited").as_deref() {
            Some("true") => true,
            Some("false") => false,
            _ => self.compiler.autolimits && el.has("range"),
        };
        if limited {
            match el.fixed::<2>("range", self.diag) {
                Some([lo, hi]) if kind == JointKind::Spherical => {
                    let _ = (lo, hi);
                    self.diag.warning(
                        &el.loc_of("range"),
                        format!(
                            "joint `{name}`: a ball joint's range is not supported and is left out"
                        ),
                    );
                }
                Some([lo, hi]) if lo < hi => {
                    joint.limits = Some(if angular {
                        (self.angle(lo), self.angle(hi))
                    } else {
                        (lo, hi)
                    });
                }
                Some([lo, hi]) => self.diag.error(
                    &el.loc_of("range"),
                    format!("joint `{name}`: the range [{lo}, {hi}] must have lower < upper"),
                ),
                None => {
                    if !el.has("range") {
                        self.diag.error(
                            &el.loc_of("limited"),
                            format!("joint `{name}` is limited but gives no `range`"),
                        );
                    }
                }
            }
        }
        Some(joint)
    }
}

mod geom;
