//! The part whose resting poses are estimated: its surface, its convex hull (the only part of it
//! a flat table can touch) and its mass properties.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::geometry::{
    ConvexPolyhedron, MassProperties, MeshFileError, PolygonMesh, Shape, read_solid_mesh,
};
use crate::math::{Point, Vec3};

/// One face of the part's convex hull, in the part's model frame (hull faces that lie in one
/// plane up to rounding are one face).
#[derive(Clone, Debug, PartialEq)]
pub struct HullFace {
    /// Unit outward normal.
    pub normal: Vec3,
    /// Distance from the centre of mass to the face's plane (positive: the centre of mass is
    /// inside the hull).
    pub height: f64,
    /// Area of the face.
    pub area: f64,
    /// Corners, counter-clockwise seen from outside.
    pub corners: Vec<Point>,
    /// Index of the hull face across each edge (edge k runs from corner k to corner k + 1).
    pub neighbours: Vec<usize>,
}

/// A rigid part: a closed surface, its convex hull and its mass properties.
#[derive(Clone, Debug)]
pub struct Part {
    name: String,
    mesh: PolygonMesh,
    hull: ConvexPolyhedron,
    mass: MassProperties,
    faces: Vec<HullFace>,
}

/// Why a part cannot be analysed.
#[derive(Clone, Debug, PartialEq)]
pub enum PartError {
    /// The mesh file is unreadable, open, inverted or degenerate (the mesh reader's own error,
    /// with file, line and face).
    Mesh(MeshFileError),
    /// The scene file could not be loaded (the scene reader's diagnostics).
    SceneFile(String),
    /// The scene does not hold a usable body.
    Scene { path: PathBuf, message: String },
    /// The convex hull could not be built.
    Hull { source: String, message: String },
    /// The centre of mass is not strictly inside the hull (face `face`, 1-based, is at
    /// `height` from it): a part cannot rest on such a face, nor on any other.
    CenterOfMassOutside {
        source: String,
        face: usize,
        height: f64,
    },
}

impl fmt::Display for PartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mesh(error) => error.fmt(f),
            Self::SceneFile(message) => f.write_str(message),
            Self::Scene { path, message } => write!(f, "{}: {message}", path.display()),
            Self::Hull { source, message } => {
                write!(f, "{source}: the part's convex hull: {message}")
            }
            Self::CenterOfMassOutside {
                source,
                face,
                height,
            } => write!(
                f,
                "{source}: the centre of mass lies outside the part's convex hull (hull face {face} \
                 has it {} on its outer side); a solid's centre of mass is always inside its \
                 hull, so check the point masses and densities",
                crate::math::readable(-height)
            ),
        }
    }
}

impl std::error::Error for PartError {}

impl Part {
    /// A part of uniform density read from an OBJ or STL file. The mesh must bound a solid:
    /// closed, consistently oriented outwards, with volume (see
    /// [`PolygonMesh::validate_solid`]).
    pub fn from_mesh_file(path: &Path) -> Result<Self, PartError> {
        let mesh = read_solid_mesh(path).map_err(PartError::Mesh)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "part".into());
        let mass = mesh.volume_integrals().mass_properties(1.0);
        Self::new(name, path.display().to_string(), mesh, mass)
    }

    /// A part made of a body of a scene file: the body named `body`, or the scene's only
    /// dynamic body. Its shapes must be polyhedral (boxes, convex polyhedra, meshes); its mass
    /// properties (densities, point masses) are the body's own.
    pub fn from_scene(path: &Path, body: Option<&str>) -> Result<Self, PartError> {
        let scene_error = |message: String| PartError::Scene {
            path: path.to_path_buf(),
            message,
        };
        let scene = crate::scene::load(path).map_err(|e| PartError::SceneFile(e.to_string()))?;
        let bodies = scene.world.bodies();
        let chosen = match body {
            Some(name) => bodies.iter().find(|b| b.name() == name).ok_or_else(|| {
                scene_error(format!(
                    "no body named `{name}` (bodies: {})",
                    bodies
                        .iter()
                        .map(|b| b.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
            None => {
                let dynamic: Vec<_> = bodies.iter().filter(|b| b.is_dynamic()).collect();
                match dynamic.as_slice() {
                    [one] => *one,
                    _ => {
                        return Err(scene_error(format!(
                            "the scene has {} dynamic bodies; name the part with --body",
                            dynamic.len()
                        )));
                    }
                }
            }
        };
        if !chosen.is_dynamic() {
            return Err(scene_error(format!(
                "body `{}` is not dynamic: a part must be free to fall",
                chosen.name()
            )));
        }
        let mut mesh = PolygonMesh::default();
        for (index, placed) in chosen.shapes().iter().enumerate() {
            let part = match &placed.shape {
                Shape::Box { half_extents } => crate::geometry::tessellate::box_mesh(
                    Point::from(-half_extents),
                    Point::from(*half_extents),
                ),
                Shape::Convex(c) => c.to_mesh(),
                Shape::Polyhedron(p) => p.mesh().clone(),
                other => {
                    return Err(scene_error(format!(
                        "body `{}`, shape {} is a {}: pose statistics need a polyhedral part \
                         (box, convex or mesh shapes)",
                        chosen.name(),
                        index + 1,
                        other.kind()
                    )));
                }
            };
            let offset = mesh.vertices.len() as u32;
            mesh.vertices
                .extend(part.vertices.iter().map(|v| placed.pose * v));
            mesh.faces.extend(
                part.faces
                    .into_iter()
                    .map(|f| f.into_iter().map(|i| i + offset).collect()),
            );
        }
        let mesh = PolygonMesh::new(mesh.vertices, mesh.faces);
        let source = format!("{} (body `{}`)", path.display(), chosen.name());
        Self::new(
            chosen.name().to_string(),
            source,
            mesh,
            *chosen.mass_properties(),
        )
    }

    /// A part with this surface and these mass properties (model frame); `source` names it in
    /// errors.
    pub fn new(
        name: String,
        source: String,
        mesh: PolygonMesh,
        mass: MassProperties,
    ) -> Result<Self, PartError> {
        let hull = ConvexPolyhedron::hull_of(&mesh.vertices).map_err(|e| PartError::Hull {
            source: source.clone(),
            message: e.to_string(),
        })?;
        let c = mass.center_of_mass;
        let size = 2.0 * hull.bounding_radius().max(f64::MIN_POSITIVE);
        let group = coplanar_groups(&hull);
        let groups = group.iter().max().map_or(0, |g| g + 1);
        let mut faces = Vec::with_capacity(groups);
        for g in 0..groups {
            let members: Vec<usize> = (0..group.len()).filter(|&f| group[f] == g).collect();
            // The group's outline: its half-edges whose twins lie in other groups, chained.
            let half_edges = hull.half_edges();
            let boundary: Vec<u32> = members
                .iter()
                .flat_map(|&f| hull.face_half_edges(f as u32))
                .filter(|&h| {
                    group[half_edges[half_edges[h as usize].twin as usize].face as usize] != g
                })
                .collect();
            let Some(&first) = boundary.first() else {
                return Err(PartError::Hull {
                    source,
                    message: "a face of the hull has no outline".into(),
                });
            };
            let mut corners = Vec::with_capacity(boundary.len());
            let mut neighbours = Vec::with_capacity(boundary.len());
            let mut h = first;
            for _ in 0..boundary.len() {
                corners.push(hull.vertices()[half_edges[h as usize].origin as usize]);
                neighbours
                    .push(group[half_edges[half_edges[h as usize].twin as usize].face as usize]);
                let head = hull.head(h);
                match boundary
                    .iter()
                    .find(|&&b| half_edges[b as usize].origin == head)
                {
                    Some(&next) => h = next,
                    None => break,
                }
            }
            // The plane of the group's largest member.
            let largest = members
                .iter()
                .copied()
                .max_by(|&a, &b| {
                    let area = |f: usize| {
                        let p: Vec<Point> = hull
                            .face_vertices(f as u32)
                            .map(|v| hull.vertices()[v as usize])
                            .collect();
                        polygon_area(&p, &hull.faces()[f].normal)
                    };
                    area(a).total_cmp(&area(b))
                })
                .unwrap_or(members[0]);
            let plane = &hull.faces()[largest];
            let height = plane.offset - plane.normal.dot(&c.coords);
            if height <= 1e-9 * size {
                return Err(PartError::CenterOfMassOutside {
                    source,
                    face: g + 1,
                    height,
                });
            }
            let area = polygon_area(&corners, &plane.normal);
            faces.push(HullFace {
                normal: plane.normal,
                height,
                area,
                corners,
                neighbours,
            });
        }
        Ok(Self {
            name,
            mesh,
            hull,
            mass,
            faces,
        })
    }

    /// The part's name (file stem or body name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The part's surface in its model frame.
    pub fn mesh(&self) -> &PolygonMesh {
        &self.mesh
    }

    /// The convex hull in the model frame.
    pub fn hull(&self) -> &ConvexPolyhedron {
        &self.hull
    }

    /// Mass properties in the model frame (for a mesh file, at density 1).
    pub fn mass_properties(&self) -> &MassProperties {
        &self.mass
    }

    /// The centre of mass in the model frame.
    pub fn center_of_mass(&self) -> Point {
        self.mass.center_of_mass
    }

    /// The hull's faces, in the hull's order (face numbers in outputs are 1-based indices
    /// into this list).
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// Diameter of the hull's bounding sphere about the model origin (a length scale).
    pub fn size(&self) -> f64 {
        let c = self.center_of_mass();
        2.0 * self
            .hull
            .vertices()
            .iter()
            .map(|v| (v - c).norm())
            .fold(0.0, f64::max)
    }

    /// The hull face a body rests on when gravity points along `down` (model frame): the face
    /// whose outward normal is closest to `down`.
    pub fn face_towards(&self, down: &Vec3) -> usize {
        let mut best = 0;
        let mut best_dot = f64::NEG_INFINITY;
        for (k, face) in self.faces.iter().enumerate() {
            let d = face.normal.dot(down);
            if d > best_dot {
                best = k;
                best_dot = d;
            }
        }
        best
    }
}

/// Groups of adjacent hull faces that lie in one plane up to rounding (a trapezoid whose
/// corners were computed with sines and cosines is not exactly planar, so the exact hull splits
/// it into two triangles; it is one face to rest on). Returns each face's group, numbered in
/// order of first appearance.
fn coplanar_groups(hull: &ConvexPolyhedron) -> Vec<usize> {
    let n = hull.faces().len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for h in hull.half_edges() {
        let (a, b) = (
            h.face as usize,
            hull.half_edges()[h.twin as usize].face as usize,
        );
        let (na, nb) = (hull.faces()[a].normal, hull.faces()[b].normal);
        if na.dot(&nb) > 0.0 && na.cross(&nb).norm() < 1e-9 {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut number = vec![usize::MAX; n];
    let mut next = 0;
    (0..n)
        .map(|f| {
            let r = root(&mut parent, f);
            if number[r] == usize::MAX {
                number[r] = next;
                next += 1;
            }
            number[r]
        })
        .collect()
}

/// Area of a planar convex polygon with unit normal `normal` (fan of triangles).
fn polygon_area(corners: &[Point], normal: &Vec3) -> f64 {
    let mut twice = 0.0;
    for k in 1..corners.len() - 1 {
        twice += normal.dot(&(corners[k] - corners[0]).cross(&(corners[k + 1] - corners[0])));
    }
    0.5 * twice
}
