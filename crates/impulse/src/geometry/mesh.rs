//! Polygon meshes bounding solids, and the checks that make them trustworthy.
//!
//! A mesh that feeds mass properties or collision must bound a solid: closed (every edge shared by
//! exactly two faces), consistently oriented (each shared edge traversed once in each direction),
//! outward (positive signed volume), with planar, non-degenerate faces, and not crossing itself.
//! [`PolygonMesh::validate_solid`] checks all of these and names the offending face.

use std::collections::HashMap;
use std::fmt;

use super::mass::{VolumeIntegrals, newell_normal};
use crate::math::{Point, Vec3};

/// A polygon mesh: shared vertices and faces as index loops, wound counter-clockwise seen from
/// outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonMesh {
    /// Vertex positions.
    pub vertices: Vec<Point>,
    /// Faces as loops of vertex indices.
    pub faces: Vec<Vec<u32>>,
    /// Named groups of consecutive faces (OBJ `o`/`g` statements); empty when the file has none.
    pub objects: Vec<MeshObject>,
    /// Where each face came from in its file (for error messages), parallel to `faces`.
    pub face_sources: Vec<FaceSource>,
}

/// A named run of faces in a mesh file.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshObject {
    /// The object's name in the file.
    pub name: String,
    /// Indices of its faces in [`PolygonMesh::faces`].
    pub faces: std::ops::Range<usize>,
}

/// Where a face was read from: its 1-based number among the file's faces and, for text formats,
/// its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaceSource {
    /// 1-based face (facet) number in the file.
    pub number: usize,
    /// 1-based line number, for text formats.
    pub line: Option<usize>,
}

/// What is wrong with a mesh that should bound a solid.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshDefect {
    /// The mesh has no faces.
    Empty,
    /// A vertex coordinate is NaN or infinite.
    NonFiniteVertex { vertex: usize },
    /// A face refers to a vertex that does not exist.
    IndexOutOfRange { face: usize, index: u32 },
    /// A face has fewer than three distinct vertices or zero area.
    DegenerateFace { face: usize },
    /// A polygon face is not flat.
    NonPlanarFace { face: usize, deviation: f64 },
    /// An edge belongs to only one face: the surface has a hole.
    OpenEdge { face: usize, a: u32, b: u32 },
    /// An edge belongs to more than two faces.
    NonManifoldEdge {
        face: usize,
        a: u32,
        b: u32,
        count: usize,
    },
    /// Two faces traverse their shared edge in the same direction: windings disagree.
    InconsistentOrientation {
        face: usize,
        other: usize,
        a: u32,
        b: u32,
    },
    /// The faces are wound clockwise seen from outside (the signed volume is negative).
    Inverted { volume: f64 },
    /// The mesh encloses no volume.
    ZeroVolume { volume: f64 },
    /// Two faces that share no vertex cross each other.
    SelfIntersection { face: usize, other: usize },
    /// A shell (a closed surface of its own: the faces joined to `face` through edges, `faces`
    /// of them) is wound the wrong way for its place: a shell inside another (`inside`: a face
    /// of it) bounds a cavity and must face inward (negative `volume`), any other outward.
    ShellOrientation {
        face: usize,
        faces: usize,
        volume: f64,
        inside: Option<usize>,
    },
    /// Two shells (or two objects) overlap: the shell of `face` lies partly inside the shell of
    /// `other` (for objects: at all inside), so their surfaces cross.
    ShellsCross { face: usize, other: usize },
}

impl MeshDefect {
    /// The face the defect is about (index into the mesh's faces), if any.
    pub fn face(&self) -> Option<usize> {
        match *self {
            Self::IndexOutOfRange { face, .. }
            | Self::DegenerateFace { face }
            | Self::NonPlanarFace { face, .. }
            | Self::OpenEdge { face, .. }
            | Self::NonManifoldEdge { face, .. }
            | Self::InconsistentOrientation { face, .. }
            | Self::SelfIntersection { face, .. }
            | Self::ShellOrientation { face, .. }
            | Self::ShellsCross { face, .. } => Some(face),
            _ => None,
        }
    }
}

impl MeshDefect {
    /// Describes the defect, numbering faces with `face_number` (index → number shown to the
    /// user). The face the defect is *about* is left for the caller to name.
    pub fn describe(&self, face_number: impl Fn(usize) -> usize) -> String {
        // Vertex numbers are shown 1-based, as in OBJ files.
        match *self {
            Self::Empty => "the mesh has no faces".into(),
            Self::NonFiniteVertex { vertex } => {
                format!("vertex {} has a NaN or infinite coordinate", vertex + 1)
            }
            Self::IndexOutOfRange { index, .. } => {
                format!("refers to vertex {}, which does not exist", index + 1)
            }
            Self::DegenerateFace { .. } => {
                "is degenerate (fewer than 3 distinct vertices, or zero area)".into()
            }
            Self::NonPlanarFace { deviation, .. } => format!(
                "is not planar (a vertex lies {deviation:e} off the face's plane); split it into triangles"
            ),
            Self::OpenEdge { a, b, .. } => format!(
                "has an edge (vertices {} and {}) that no other face shares: the mesh is open, not a closed solid",
                a + 1,
                b + 1
            ),
            Self::NonManifoldEdge { a, b, count, .. } => format!(
                "has an edge (vertices {} and {}) shared by {count} faces; a solid's edge joins exactly 2",
                a + 1,
                b + 1
            ),
            Self::InconsistentOrientation { other, a, b, .. } => format!(
                "and face {} both run along the edge from vertex {} to {} in the same direction: their windings disagree (faces must all be counter-clockwise seen from outside)",
                face_number(other),
                a + 1,
                b + 1
            ),
            Self::Inverted { volume } => format!(
                "encloses a negative volume ({volume:.6e}): its faces are wound clockwise seen from outside (inside out); reverse every face"
            ),
            Self::ZeroVolume { volume } => {
                format!("encloses no volume ({volume:.3e}): it is flat or collapsed")
            }
            Self::SelfIntersection { other, .. } => format!(
                "crosses face {}: the surface intersects itself",
                face_number(other)
            ),
            Self::ShellOrientation {
                faces,
                volume,
                inside: Some(outer),
                ..
            } => format!(
                "is on a closed shell of {faces} faces that lies inside the shell of face {}, so it bounds a cavity and must face inward (wound clockwise seen from outside the solid), but it faces outward (its volume is {volume:+.6e}, counted as solid); reverse the faces of this shell",
                face_number(outer)
            ),
            Self::ShellOrientation {
                faces,
                volume,
                inside: None,
                ..
            } => format!(
                "is on a closed shell of {faces} faces that lies inside no other shell, so it must face outward, but it is wound inward (its volume is {volume:+.6e}); reverse the faces of this shell"
            ),
            Self::ShellsCross { other, .. } => format!(
                "is on a closed shell that lies partly inside the shell of face {}: the two overlap and their surfaces cross (each part must be a separate solid, or one the cavity of the other)",
                face_number(other)
            ),
        }
    }
}

impl fmt::Display for MeshDefect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(face) = self.face() {
            write!(f, "face {} ", face + 1)?;
        }
        f.write_str(&self.describe(|i| i + 1))
    }
}

impl PolygonMesh {
    /// A mesh from vertices and faces, with no file information.
    pub fn new(vertices: Vec<Point>, faces: Vec<Vec<u32>>) -> Self {
        let face_sources = (1..=faces.len())
            .map(|number| FaceSource { number, line: None })
            .collect();
        Self {
            vertices,
            faces,
            objects: Vec::new(),
            face_sources,
        }
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.faces.len()
    }

    /// Diagonal of the axis-aligned bounding box (a length scale for tolerances).
    pub fn size(&self) -> f64 {
        let mut lo = Vec3::repeat(f64::INFINITY);
        let mut hi = Vec3::repeat(f64::NEG_INFINITY);
        for v in &self.vertices {
            lo = lo.inf(&v.coords);
            hi = hi.sup(&v.coords);
        }
        if self.vertices.is_empty() {
            0.0
        } else {
            (hi - lo).norm()
        }
    }

    /// Mirtich's ten volume integrals over the solid the mesh bounds.
    pub fn volume_integrals(&self) -> VolumeIntegrals {
        VolumeIntegrals::of_polyhedron(&self.vertices, self.faces.iter().map(|f| f.as_slice()))
    }

    /// Applies `f` to every vertex.
    pub fn map_vertices(&mut self, f: impl Fn(Point) -> Point) {
        for v in &mut self.vertices {
            *v = f(*v);
        }
    }

    /// The sub-mesh of one object: its faces and only the vertices they use.
    pub fn object_mesh(&self, object: &MeshObject) -> PolygonMesh {
        let mut remap: HashMap<u32, u32> = HashMap::new();
        let mut vertices = Vec::new();
        let mut faces = Vec::new();
        for face in &self.faces[object.faces.clone()] {
            let loop_ = face
                .iter()
                .map(|&i| {
                    *remap.entry(i).or_insert_with(|| {
                        vertices.push(self.vertices[i as usize]);
                        (vertices.len() - 1) as u32
                    })
                })
                .collect();
            faces.push(loop_);
        }
        PolygonMesh {
            vertices,
            faces,
            objects: Vec::new(),
            face_sources: self.face_sources[object.faces.clone()].to_vec(),
        }
    }

    /// Triangles of the faces: fans for convex polygons, ear clipping for concave ones. Each
    /// triangle records the index of the face it came from.
    pub fn triangles(&self) -> Vec<([u32; 3], usize)> {
        let mut out = Vec::with_capacity(self.faces.len());
        for (index, face) in self.faces.iter().enumerate() {
            if face.len() == 3 {
                out.push(([face[0], face[1], face[2]], index));
                continue;
            }
            for triangle in triangulate_polygon(&self.vertices, face) {
                out.push((triangle, index));
            }
        }
        out
    }

    /// Checks that the mesh bounds a solid (see the module documentation). Returns the first
    /// defect found, in the order: indices, degenerate faces, planarity, edges, orientation,
    /// volume, self-intersection.
    pub fn validate_solid(&self) -> Result<(), MeshDefect> {
        if self.faces.is_empty() {
            return Err(MeshDefect::Empty);
        }
        if let Some(vertex) = self
            .vertices
            .iter()
            .position(|v| !v.coords.iter().all(|c| c.is_finite()))
        {
            return Err(MeshDefect::NonFiniteVertex { vertex });
        }
        let size = self.size();
        for (face, loop_) in self.faces.iter().enumerate() {
            if let Some(&index) = loop_.iter().find(|&&i| i as usize >= self.vertices.len()) {
                return Err(MeshDefect::IndexOutOfRange { face, index });
            }
            let mut distinct = loop_.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() < 3 || distinct.len() != loop_.len() {
                return Err(MeshDefect::DegenerateFace { face });
            }
            let Some(normal) = newell_normal(&self.vertices, loop_) else {
                return Err(MeshDefect::DegenerateFace { face });
            };
            let area = polygon_area(&self.vertices, loop_, &normal);
            if area <= 1e-14 * size * size {
                return Err(MeshDefect::DegenerateFace { face });
            }
            if loop_.len() > 3 {
                let origin = self.vertices[loop_[0] as usize].coords;
                let deviation = loop_
                    .iter()
                    .map(|&i| {
                        normal
                            .dot(&(self.vertices[i as usize].coords - origin))
                            .abs()
                    })
                    .fold(0.0, f64::max);
                if deviation > 1e-7 * size {
                    return Err(MeshDefect::NonPlanarFace { face, deviation });
                }
            }
        }
        self.check_edges()?;
        let volume = self.volume_integrals().t1;
        let scale = size * size * size;
        if volume.abs() <= 1e-10 * scale {
            return Err(MeshDefect::ZeroVolume { volume });
        }
        if volume < 0.0 {
            return Err(MeshDefect::Inverted { volume });
        }
        self.check_self_intersection()?;
        // Shells nest as a solid's boundary: cavities inward, the others outward (issue 41,
        // item 1: a cavity wound outward was counted as solid).
        super::shells::check_nesting(self, super::shells::shells(self), true)
    }

    /// Checks that the mesh bounds a solid, or — for a mesh of several objects (OBJ `o`/`g`),
    /// which may touch and so share edges — that every object bounds a solid on its own and no
    /// two cross. Either way the volume integrals of the whole mesh are those of the solid.
    /// On failure returns the defect and, for one object's defect, the object's index (its face
    /// numbers then refer to [`PolygonMesh::object_mesh`] of that object).
    pub fn validate_solids(&self) -> Result<(), (MeshDefect, Option<usize>)> {
        let whole = self.validate_solid();
        if whole.is_ok() || self.objects.is_empty() {
            return whole.map_err(|d| (d, None));
        }
        for (index, object) in self.objects.iter().enumerate() {
            if let Err(defect) = self.object_mesh(object).validate_solid() {
                return Err((defect, Some(index)));
            }
        }
        self.check_self_intersection().map_err(|d| (d, None))?;
        // Objects may touch, not overlap: their volumes are added.
        let objects = self
            .objects
            .iter()
            .map(|o| o.faces.clone().collect())
            .collect();
        super::shells::check_nesting(self, objects, false).map_err(|d| (d, None))
    }

    /// Every directed edge must appear exactly once, and its reverse exactly once.
    fn check_edges(&self) -> Result<(), MeshDefect> {
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        for (face, loop_) in self.faces.iter().enumerate() {
            for k in 0..loop_.len() {
                let (a, b) = (loop_[k], loop_[(k + 1) % loop_.len()]);
                if let Some(&other) = directed.get(&(a, b)) {
                    // Same direction twice: either a winding flip or more than two faces.
                    let count = self.undirected_count(a, b);
                    if count > 2 {
                        return Err(MeshDefect::NonManifoldEdge { face, a, b, count });
                    }
                    return Err(MeshDefect::InconsistentOrientation {
                        face: other,
                        other: face,
                        a,
                        b,
                    });
                }
                directed.insert((a, b), face);
            }
        }
        // Deterministic order: report the lowest face with an unmatched edge.
        let mut first: Option<(usize, u32, u32)> = None;
        for (&(a, b), &face) in &directed {
            if !directed.contains_key(&(b, a)) && first.is_none_or(|(f, _, _)| face < f) {
                first = Some((face, a, b));
            }
        }
        if let Some((face, a, b)) = first {
            let count = self.undirected_count(a, b);
            if count > 2 {
                return Err(MeshDefect::NonManifoldEdge { face, a, b, count });
            }
            return Err(MeshDefect::OpenEdge { face, a, b });
        }
        Ok(())
    }

    fn undirected_count(&self, a: u32, b: u32) -> usize {
        self.faces
            .iter()
            .map(|loop_| {
                (0..loop_.len())
                    .filter(|&k| {
                        let (p, q) = (loop_[k], loop_[(k + 1) % loop_.len()]);
                        (p, q) == (a, b) || (p, q) == (b, a)
                    })
                    .count()
            })
            .sum()
    }

    /// Looks for pairs of triangles that share no vertex and cross (an edge of one passes
    /// through the interior of the other's face). Only triangles whose bounding boxes overlap
    /// are compared, found by a grid (`box_pairs`): near-linear whatever the mesh's shape.
    fn check_self_intersection(&self) -> Result<(), MeshDefect> {
        let triangles = self.triangles();
        let corners = |t: &[u32; 3]| t.map(|i| self.vertices[i as usize].coords);
        // Which sides of each triangle are edges of its face rather than diagonals of its
        // triangulation: a crossing on a diagonal is inside the face (issue 41, item 5b: two
        // cubes offset by (0.5, 0.5, 0.5) cross at their faces' centres, on the diagonals).
        let boundary = |(t, face): &([u32; 3], usize)| {
            let loop_ = &self.faces[*face];
            let n = loop_.len();
            let consecutive = |a: u32, b: u32| {
                (0..n).any(|k| {
                    let (p, q) = (loop_[k], loop_[(k + 1) % n]);
                    (p, q) == (a, b) || (p, q) == (b, a)
                })
            };
            [0, 1, 2].map(|k| consecutive(t[k], t[(k + 1) % 3]))
        };
        let boxes: Vec<(Vec3, Vec3)> = triangles
            .iter()
            .map(|(t, _)| {
                let [a, b, c] = corners(t);
                (a.inf(&b).inf(&c), a.sup(&b).sup(&c))
            })
            .collect();
        let tolerance = 1e-9 * self.size();
        let mut found: Option<(usize, usize)> = None;
        for (i, j) in super::box_pairs::overlapping_pairs(&boxes) {
            let (ti, fi) = &triangles[i];
            let (tj, fj) = &triangles[j];
            if fi == fj || ti.iter().any(|v| tj.contains(v)) {
                continue;
            }
            if triangles_cross(
                (&corners(ti), boundary(&triangles[i])),
                (&corners(tj), boundary(&triangles[j])),
                tolerance,
            ) {
                let pair = ((*fi).min(*fj), (*fi).max(*fj));
                if found.is_none_or(|f| pair < f) {
                    found = Some(pair);
                }
            }
        }
        match found {
            Some((face, other)) => Err(MeshDefect::SelfIntersection { face, other }),
            None => Ok(()),
        }
    }
}

/// Area of a planar polygon with unit normal `normal`.
fn polygon_area(vertices: &[Point], face: &[u32], normal: &Vec3) -> f64 {
    let origin = vertices[face[0] as usize].coords;
    let mut twice = Vec3::zeros();
    for k in 1..face.len() - 1 {
        let a = vertices[face[k] as usize].coords - origin;
        let b = vertices[face[k + 1] as usize].coords - origin;
        twice += a.cross(&b);
    }
    0.5 * twice.dot(normal)
}

/// Triangulates a planar polygon: a fan when it is convex, ear clipping otherwise.
fn triangulate_polygon(vertices: &[Point], face: &[u32]) -> Vec<[u32; 3]> {
    let Some(normal) = newell_normal(vertices, face) else {
        return Vec::new();
    };
    let n = face.len();
    let point = |k: usize| vertices[face[k % n] as usize].coords;
    let turn = |a: Vec3, b: Vec3, c: Vec3| (b - a).cross(&(c - b)).dot(&normal);
    let convex = (0..n).all(|k| turn(point(k), point(k + 1), point(k + 2)) >= 0.0);
    if convex {
        return (1..n - 1)
            .map(|k| [face[0], face[k], face[k + 1]])
            .collect();
    }
    // Ear clipping on the remaining loop.
    let mut remaining: Vec<u32> = face.to_vec();
    let mut out = Vec::with_capacity(n - 2);
    let at = |i: u32| vertices[i as usize].coords;
    while remaining.len() > 3 {
        let m = remaining.len();
        let mut clipped = false;
        for k in 0..m {
            let (ia, ib, ic) = (
                remaining[(k + m - 1) % m],
                remaining[k],
                remaining[(k + 1) % m],
            );
            let (a, b, c) = (at(ia), at(ib), at(ic));
            if turn(a, b, c) <= 0.0 {
                continue;
            }
            let inside = remaining.iter().any(|&other| {
                if other == ia || other == ib || other == ic {
                    return false;
                }
                let p = at(other);
                turn(a, b, p) >= 0.0 && turn(b, c, p) >= 0.0 && turn(c, a, p) >= 0.0
            });
            if !inside {
                out.push([ia, ib, ic]);
                remaining.remove(k);
                clipped = true;
                break;
            }
        }
        if !clipped {
            // Not a simple polygon; fall back to a fan so that every face still yields triangles.
            let first = remaining[0];
            for k in 1..remaining.len() - 1 {
                out.push([first, remaining[k], remaining[k + 1]]);
            }
            return out;
        }
    }
    out.push([remaining[0], remaining[1], remaining[2]]);
    out
}

/// A triangle of a face: its corners, and which of its sides (corner k to k + 1) are edges of
/// the face (the others are diagonals of the face's triangulation).
type FaceTriangle<'a> = (&'a [Vec3; 3], [bool; 3]);

/// True if a side of either triangle passes through the interior of the other's face
/// (strictly, by more than `tolerance`, from the face's edges; a point on a diagonal is inside).
fn triangles_cross(a: FaceTriangle<'_>, b: FaceTriangle<'_>, tolerance: f64) -> bool {
    let (ta, tb) = (a.0, b.0);
    (0..3).any(|k| segment_crosses_triangle(ta[k], ta[(k + 1) % 3], b, tolerance))
        || (0..3).any(|k| segment_crosses_triangle(tb[k], tb[(k + 1) % 3], a, tolerance))
}

fn segment_crosses_triangle(
    p: Vec3,
    q: Vec3,
    (t, edges): FaceTriangle<'_>,
    tolerance: f64,
) -> bool {
    let normal = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let length = normal.norm();
    if length == 0.0 {
        return false;
    }
    let normal = normal / length;
    let dp = normal.dot(&(p - t[0]));
    let dq = normal.dot(&(q - t[0]));
    // Strictly on opposite sides of the plane.
    if !((dp > tolerance && dq < -tolerance) || (dp < -tolerance && dq > tolerance)) {
        return false;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    // Strictly inside the face: by more than the tolerance from each of its edges, and not
    // beyond a diagonal by more than the tolerance.
    (0..3).all(|k| {
        let edge = t[(k + 1) % 3] - t[k];
        let inward = normal.cross(&edge).normalize();
        let depth = inward.dot(&(x - t[k]));
        if edges[k] {
            depth > tolerance
        } else {
            depth >= -tolerance
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_cube() -> PolygonMesh {
        crate::geometry::tessellate::box_mesh(Point::origin(), Point::new(1.0, 1.0, 1.0))
    }

    #[test]
    fn cube_is_a_valid_solid() {
        assert_eq!(unit_cube().validate_solid(), Ok(()));
        assert!((unit_cube().volume_integrals().t1 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn missing_face_is_open() {
        let mut mesh = unit_cube();
        mesh.faces.pop();
        assert!(matches!(
            mesh.validate_solid(),
            Err(MeshDefect::OpenEdge { .. })
        ));
    }

    #[test]
    fn one_flipped_face_is_inconsistent() {
        let mut mesh = unit_cube();
        mesh.faces[2].reverse();
        assert!(matches!(
            mesh.validate_solid(),
            Err(MeshDefect::InconsistentOrientation { .. })
        ));
    }

    #[test]
    fn all_faces_flipped_is_inverted() {
        let mut mesh = unit_cube();
        for f in &mut mesh.faces {
            f.reverse();
        }
        assert!(matches!(
            mesh.validate_solid(),
            Err(MeshDefect::Inverted { .. })
        ));
    }

    #[test]
    fn flat_box_has_zero_volume() {
        let mut mesh = unit_cube();
        mesh.map_vertices(|p| Point::new(p.x, p.y, 0.0));
        assert!(mesh.validate_solid().is_err());
    }

    #[test]
    fn two_interpenetrating_cubes_self_intersect() {
        let a = unit_cube();
        let mut b = unit_cube();
        b.map_vertices(|p| Point::new(p.x + 0.5, p.y + 0.3, p.z + 0.2));
        let offset = a.vertices.len() as u32;
        let mut mesh = a.clone();
        mesh.vertices.extend(b.vertices);
        mesh.faces.extend(
            b.faces
                .iter()
                .map(|f| f.iter().map(|i| i + offset).collect()),
        );
        mesh.face_sources = (1..=mesh.faces.len())
            .map(|number| FaceSource { number, line: None })
            .collect();
        assert!(matches!(
            mesh.validate_solid(),
            Err(MeshDefect::SelfIntersection { .. })
        ));
    }

    #[test]
    fn two_separate_cubes_are_fine() {
        let a = unit_cube();
        let mut b = unit_cube();
        b.map_vertices(|p| Point::new(p.x + 2.0, p.y, p.z));
        let offset = a.vertices.len() as u32;
        let mut mesh = a.clone();
        mesh.vertices.extend(b.vertices);
        mesh.faces.extend(
            b.faces
                .iter()
                .map(|f| f.iter().map(|i| i + offset).collect()),
        );
        assert_eq!(mesh.validate_solid(), Ok(()));
        assert!((mesh.volume_integrals().t1 - 2.0).abs() < 1e-14);
    }

    #[test]
    fn concave_polygon_is_ear_clipped() {
        // An L-shaped hexagon in the z = 0 plane.
        let v: Vec<Point> = [[0., 0.], [2., 0.], [2., 1.], [1., 1.], [1., 2.], [0., 2.]]
            .iter()
            .map(|p| Point::new(p[0], p[1], 0.0))
            .collect();
        let face: Vec<u32> = (0..6).collect();
        let triangles = triangulate_polygon(&v, &face);
        assert_eq!(triangles.len(), 4);
        let area: f64 = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| v[i as usize].coords);
                0.5 * (b - a).cross(&(c - a)).z
            })
            .sum();
        assert!((area - 3.0).abs() < 1e-14, "L shape has area 3, got {area}");
    }
}
