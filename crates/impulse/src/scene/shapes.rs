//! Shape tables: spheres, boxes, cylinders, capsules, ellipsoids, half-spaces, convex hulls of
//! points or of a mesh's vertices, and meshes (convex, decomposed, or given as convex objects),
//! each with its placement in the body's model frame.

use std::path::PathBuf;
use std::sync::Arc;

use crate::dynamics::PlacedShape;
use crate::geometry::{
    ConvexPolyhedron, DecompositionSettings, PolygonMesh, Polyhedron, Shape, read_mesh,
};
use crate::math::{Point, Quat, Vec3, pose};

use super::SceneReader;
use super::reader::{Table, Value};
use super::values::read_orientation;

const PLACEMENT_KEYS: &[&str] = &["type", "position", "orientation", "density"];

impl<'c, 's> SceneReader<'c, 's> {
    /// A shape table with its optional placement (`position`, `orientation`, `density`).
    pub(super) fn read_placed_shape(&self, value: &Value<'c, 's>) -> Option<PlacedShape> {
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

    pub(super) fn read_scale(&self, t: &Table<'c, 's>) -> Option<Vec3> {
        let Some(v) = t.get("scale") else {
            return Some(Vec3::repeat(1.0));
        };
        if v.is_array() {
            positive_vec3(&v)
        } else {
            v.positive().map(Vec3::repeat)
        }
    }

    pub(super) fn read_mesh_file(
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

    pub(super) fn read_convex(&self, t: &Table<'c, 's>) -> Option<Shape> {
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

    pub(super) fn read_mesh_shape(&self, t: &Table<'c, 's>) -> Option<Shape> {
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

/// A shape table read as an ordinary body's `shape` (or an item of its `shapes`), for the
/// assembly scene reader: the same keys, checks and mesh paths (relative to the scene file).
pub(crate) fn read_shape_table<'c, 's>(
    ctx: &'c super::reader::Context<'s>,
    value: &Value<'c, 's>,
) -> Option<PlacedShape> {
    SceneReader::new(ctx).read_placed_shape(value)
}
