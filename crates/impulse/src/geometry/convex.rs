//! Convex polyhedra with full vertex/edge/face adjacency (a half-edge structure), as the
//! closest-feature algorithms need them (Mirtich §2.2: features and their Voronoi regions).
//!
//! A polyhedron is built from a point cloud: the exact hull triangulation comes from
//! [`super::hull`], then hull triangles lying in one plane are merged into a single polygon face
//! and points that are not corners (inside a face, or in the middle of an edge) are dropped, so
//! every face, edge and vertex is a true feature of the solid.

use std::collections::HashMap;
use std::fmt;

use super::hull::{HullError, collinear, convex_hull, coplanar};
use super::mass::VolumeIntegrals;
use super::mesh::PolygonMesh;
use crate::math::{Point, Vec3};

/// One side of an edge: runs from `origin` to the origin of `next`, with `face` on its left
/// (seen from outside), so each face's half-edges circle it counter-clockwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfEdge {
    /// Vertex the half-edge starts at.
    pub origin: u32,
    /// The opposite half-edge of the same edge (on the neighbouring face).
    pub twin: u32,
    /// The next half-edge around the same face.
    pub next: u32,
    /// The face on the left.
    pub face: u32,
}

/// A polygon face with its supporting plane `normal · x = offset` (unit outward normal).
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// One of the face's half-edges.
    pub half_edge: u32,
    /// Unit outward normal.
    pub normal: Vec3,
    /// Plane offset: `normal · x = offset` on the face.
    pub offset: f64,
}

/// A convex polyhedron: vertices, faces and half-edges with adjacency.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolyhedron {
    vertices: Vec<Point>,
    half_edges: Vec<HalfEdge>,
    faces: Vec<Face>,
    /// One outgoing half-edge per vertex.
    vertex_half_edge: Vec<u32>,
    /// Unit direction of each half-edge, tail to head (the Voronoi planes are built from
    /// these at every closest-feature step; computed once here).
    directions: Vec<Vec3>,
    /// Largest distance of a vertex from the frame's origin.
    bounding_radius: f64,
}

/// Why a point set does not define a usable convex polyhedron.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvexError {
    /// Fewer than four points.
    TooFewPoints { count: usize },
    /// A coordinate is NaN or infinite.
    NonFinitePoint { index: usize },
    /// Two input points are at the same position.
    DuplicatePoint { first: usize, second: usize },
    /// All points lie in one plane (or on one line): the hull has no volume.
    Flat,
    /// The hull computation failed on this input.
    HullFailed { reason: String },
}

impl fmt::Display for ConvexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooFewPoints { count } => write!(
                f,
                "a convex polyhedron needs at least 4 points not in one plane; got {count}"
            ),
            Self::NonFinitePoint { index } => {
                write!(f, "point {} has a NaN or infinite coordinate", index + 1)
            }
            Self::DuplicatePoint { first, second } => write!(
                f,
                "points {} and {} are at the same position",
                first + 1,
                second + 1
            ),
            Self::Flat => write!(
                f,
                "the points all lie in one plane, so their convex hull has no volume"
            ),
            Self::HullFailed { reason } => {
                write!(f, "the convex hull could not be built: {reason}")
            }
        }
    }
}

impl std::error::Error for ConvexError {}

impl ConvexPolyhedron {
    /// The convex hull of `points`, rejecting duplicate points (use
    /// [`ConvexPolyhedron::hull_of`] to merge them instead).
    pub fn from_points(points: &[Point]) -> Result<Self, ConvexError> {
        let mut seen: HashMap<[u64; 3], usize> = HashMap::new();
        for (index, p) in points.iter().enumerate() {
            if !p.coords.iter().all(|c| c.is_finite()) {
                return Err(ConvexError::NonFinitePoint { index });
            }
            let key = [p.x, p.y, p.z].map(|c| (c + 0.0).to_bits());
            if let Some(&first) = seen.get(&key) {
                return Err(ConvexError::DuplicatePoint {
                    first,
                    second: index,
                });
            }
            seen.insert(key, index);
        }
        Self::hull_of(points)
    }

    /// The convex hull of `points` (coincident points are merged).
    pub fn hull_of(points: &[Point]) -> Result<Self, ConvexError> {
        if let Some(index) = points
            .iter()
            .position(|p| !p.coords.iter().all(|c| c.is_finite()))
        {
            return Err(ConvexError::NonFinitePoint { index });
        }
        let mut distinct: Vec<Point> = Vec::with_capacity(points.len());
        let mut seen = std::collections::HashSet::new();
        for p in points {
            if seen.insert([p.x, p.y, p.z].map(|c| (c + 0.0).to_bits())) {
                distinct.push(*p);
            }
        }
        if distinct.len() < 4 {
            return Err(ConvexError::TooFewPoints {
                count: distinct.len(),
            });
        }
        let scale = diameter_bound(&distinct);
        if !spans_volume(&distinct, 1e-9 * scale) {
            return Err(ConvexError::Flat);
        }
        let triangles = convex_hull(&distinct).map_err(|e| match e {
            HullError::TooFewPoints => ConvexError::TooFewPoints {
                count: distinct.len(),
            },
            HullError::Coplanar => ConvexError::Flat,
        })?;
        let polyhedron = merge_coplanar(&distinct, &triangles)?;
        polyhedron.check(1e-7 * scale)?;
        Ok(polyhedron)
    }

    /// Vertex positions.
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// Faces.
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }

    /// Half-edges (two per edge).
    pub fn half_edges(&self) -> &[HalfEdge] {
        &self.half_edges
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.half_edges.len() / 2
    }

    /// One outgoing half-edge of vertex `v`.
    pub fn vertex_half_edge(&self, v: u32) -> u32 {
        self.vertex_half_edge[v as usize]
    }

    /// Unit direction of half-edge `h`, from its tail to its head.
    pub fn direction(&self, h: u32) -> Vec3 {
        self.directions[h as usize]
    }

    /// Radius of the smallest origin-centred sphere holding every vertex.
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// The vertex a half-edge ends at.
    pub fn head(&self, h: u32) -> u32 {
        self.half_edges[self.half_edges[h as usize].next as usize].origin
    }

    /// The half-edges around face `f`, counter-clockwise from outside.
    pub fn face_half_edges(&self, f: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.faces[f as usize].half_edge;
        let mut current = Some(start);
        std::iter::from_fn(move || {
            let h = current?;
            let next = self.half_edges[h as usize].next;
            current = (next != start).then_some(next);
            Some(h)
        })
    }

    /// The vertex loop of face `f`, counter-clockwise from outside.
    pub fn face_vertices(&self, f: u32) -> impl Iterator<Item = u32> + '_ {
        self.face_half_edges(f)
            .map(|h| self.half_edges[h as usize].origin)
    }

    /// The outgoing half-edges of vertex `v`, in order around it.
    pub fn vertex_half_edges(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.vertex_half_edge[v as usize];
        let mut current = Some(start);
        std::iter::from_fn(move || {
            let h = current?;
            // The twin ends at v; its next leaves v.
            let next = self.half_edges[self.half_edges[h as usize].twin as usize].next;
            current = (next != start).then_some(next);
            Some(h)
        })
    }

    /// The faces as vertex loops (a polygon mesh view, e.g. for mass properties).
    pub fn to_mesh(&self) -> PolygonMesh {
        let faces = (0..self.faces.len() as u32)
            .map(|f| self.face_vertices(f).collect())
            .collect();
        PolygonMesh::new(self.vertices.clone(), faces)
    }

    /// Mirtich's volume integrals of the solid.
    pub fn volume_integrals(&self) -> VolumeIntegrals {
        let loops: Vec<Vec<u32>> = (0..self.faces.len() as u32)
            .map(|f| self.face_vertices(f).collect())
            .collect();
        VolumeIntegrals::of_polyhedron(&self.vertices, loops.iter().map(|l| l.as_slice()))
    }

    /// The vertex farthest along `direction` (the support point).
    pub fn support(&self, direction: &Vec3) -> Point {
        let mut best = self.vertices[0];
        let mut best_dot = best.coords.dot(direction);
        for v in &self.vertices[1..] {
            let d = v.coords.dot(direction);
            if d > best_dot {
                best = *v;
                best_dot = d;
            }
        }
        best
    }

    /// Checks the structure: Euler's formula, closed twins, convexity within `tolerance`.
    fn check(&self, tolerance: f64) -> Result<(), ConvexError> {
        let v = self.vertices.len() as i64;
        let e = self.edge_count() as i64;
        let f = self.faces.len() as i64;
        if v - e + f != 2 {
            return Err(ConvexError::HullFailed {
                reason: format!("V − E + F = {v} − {e} + {f} ≠ 2"),
            });
        }
        // Convex within tolerance at every edge: each face's own corners and, across each of
        // its edges, the next corner of the neighbouring face lie below its plane. The faces
        // come from an exact hull (closed, embedded, checked by Euler above), and a closed
        // embedded surface convex at every edge bounds a convex solid (Tietze), so this local
        // test stands for testing every vertex against every face, O(E) instead of O(V·F)
        // (a 319,200-triangle sphere: issue 42).
        let above = |face: &Face, v: u32| {
            face.normal.dot(&self.vertices[v as usize].coords) > face.offset + tolerance
        };
        for (f, face) in self.faces.iter().enumerate() {
            for h in self.face_half_edges(f as u32) {
                let edge = &self.half_edges[h as usize];
                let across = self.half_edges[edge.twin as usize].next;
                if above(face, edge.origin) || above(face, self.head(across)) {
                    return Err(ConvexError::HullFailed {
                        reason: "the merged hull is not convex within tolerance".into(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The unit normal of triangle `a, b, c`, accurate even for thin slivers: the edge vectors and
/// their cross product are formed in double-double arithmetic (error-free differences and
/// fused-multiply-add products), so the only rounding is the final one.
fn accurate_normal(a: &Point, b: &Point, c: &Point) -> Vec3 {
    // Double-double numbers (hi, lo) with hi + lo exact.
    fn two_diff(x: f64, y: f64) -> (f64, f64) {
        let s = x - y;
        let v = s - x;
        (s, (x - (s - v)) - (y + v))
    }
    fn mul(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
        let p = x.0 * y.0;
        let e = x.0.mul_add(y.0, -p);
        let e = e + (x.0 * y.1 + x.1 * y.0);
        let hi = p + e;
        (hi, e - (hi - p))
    }
    fn sub(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
        let (s, e) = two_diff(x.0, y.0);
        let e = e + (x.1 - y.1);
        let hi = s + e;
        (hi, e - (hi - s))
    }
    let u = [0, 1, 2].map(|i| two_diff(b[i], a[i]));
    let v = [0, 1, 2].map(|i| two_diff(c[i], a[i]));
    let component = |i: usize, j: usize| {
        let n = sub(mul(u[i], v[j]), mul(u[j], v[i]));
        n.0 + n.1
    };
    let n = Vec3::new(component(1, 2), component(2, 0), component(0, 1));
    let length = n.norm();
    if length > 0.0 && length.is_finite() {
        n / length
    } else {
        Vec3::z()
    }
}

/// An upper bound on the diameter of a point set (the bounding-box diagonal).
fn diameter_bound(points: &[Point]) -> f64 {
    let mut lo = points[0].coords;
    let mut hi = points[0].coords;
    for p in points {
        lo = lo.inf(&p.coords);
        hi = hi.sup(&p.coords);
    }
    (hi - lo).norm()
}

/// True when the points are not all within `tolerance` of one plane.
fn spans_volume(points: &[Point], tolerance: f64) -> bool {
    let a = points[0];
    let Some(b) = points
        .iter()
        .max_by(|p, q| (**p - a).norm().total_cmp(&(**q - a).norm()))
    else {
        return false;
    };
    let axis = b - a;
    if axis.norm() <= tolerance {
        return false;
    }
    let axis = axis.normalize();
    let off_line = |p: &Point| {
        let d = p - a;
        (d - axis * d.dot(&axis)).norm()
    };
    let Some(c) = points
        .iter()
        .max_by(|p, q| off_line(p).total_cmp(&off_line(q)))
    else {
        return false;
    };
    if off_line(c) <= tolerance {
        return false;
    }
    let normal = axis.cross(&(c - a)).normalize();
    points
        .iter()
        .any(|p| normal.dot(&(p - a)).abs() > tolerance)
}

/// Merges hull triangles lying in one plane into polygon faces, drops non-corner points and
/// builds the half-edge structure.
fn merge_coplanar(
    points: &[Point],
    triangles: &[[u32; 3]],
) -> Result<ConvexPolyhedron, ConvexError> {
    let fail = |reason: &str| ConvexError::HullFailed {
        reason: reason.to_string(),
    };
    // Directed edge → triangle, to find neighbours.
    let mut edge_triangle: HashMap<(u32, u32), usize> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            edge_triangle.insert((tri[k], tri[(k + 1) % 3]), t);
        }
    }
    // Region growing: a triangle joins a region when its corners lie exactly on the plane of the
    // region's seed triangle (exact `orient3d`). The regions are then exactly the polytope's faces:
    // exactly planar and exactly convex. Seeds are taken largest first; triangles with exactly
    // collinear corners seed nothing and are absorbed by a neighbour below.
    let area = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| points[i as usize].coords);
        (b - a).cross(&(c - a)).norm()
    };
    let mut seeds: Vec<usize> = (0..triangles.len()).collect();
    seeds.sort_by(|&i, &j| {
        area(&triangles[j])
            .total_cmp(&area(&triangles[i]))
            .then(i.cmp(&j))
    });
    let mut region = vec![usize::MAX; triangles.len()];
    let mut regions: Vec<(Vec3, Vec<usize>)> = Vec::new();
    for seed in seeds {
        let [a, b, c] = triangles[seed].map(|i| points[i as usize]);
        if region[seed] != usize::MAX || collinear(&a, &b, &c) {
            continue;
        }
        let normal = accurate_normal(&a, &b, &c);
        let id = regions.len();
        let mut members = vec![seed];
        region[seed] = id;
        let mut stack = vec![seed];
        while let Some(t) = stack.pop() {
            let tri = triangles[t];
            for k in 0..3 {
                let Some(&n) = edge_triangle.get(&(tri[(k + 1) % 3], tri[k])) else {
                    continue;
                };
                if region[n] != usize::MAX {
                    continue;
                }
                let on_plane = triangles[n]
                    .iter()
                    .all(|&v| coplanar(&a, &b, &c, &points[v as usize]));
                if on_plane {
                    region[n] = id;
                    members.push(n);
                    stack.push(n);
                }
            }
        }
        regions.push((normal, members));
    }
    // Zero-area sliver triangles (collinear corners) start no region; they join a neighbouring
    // region, whose plane their corners lie on (two share an edge with it, the third is on the
    // same line).
    loop {
        let mut changed = false;
        for t in 0..triangles.len() {
            if region[t] != usize::MAX {
                continue;
            }
            let tri = triangles[t];
            let neighbour = (0..3).find_map(|k| {
                let n = *edge_triangle.get(&(tri[(k + 1) % 3], tri[k]))?;
                (region[n] != usize::MAX).then_some(region[n])
            });
            if let Some(id) = neighbour {
                region[t] = id;
                regions[id].1.push(t);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    if region.contains(&usize::MAX) {
        return Err(fail("the hull has no face with area"));
    }

    // Boundary loop of each region: its directed edges whose twin lies in another region.
    let mut loops: Vec<Vec<u32>> = Vec::with_capacity(regions.len());
    for (id, (_, members)) in regions.iter().enumerate() {
        let mut successor: HashMap<u32, u32> = HashMap::new();
        for &t in members {
            let tri = triangles[t];
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let twin_region = edge_triangle.get(&(b, a)).map(|&n| region[n]);
                if twin_region != Some(id) && successor.insert(a, b).is_some() {
                    return Err(fail("a merged face has a pinched boundary"));
                }
            }
        }
        let Some(&start) = successor.keys().min() else {
            return Err(fail("a merged face has no boundary"));
        };
        let mut loop_ = vec![start];
        let mut current = successor[&start];
        while current != start {
            if loop_.len() > successor.len() {
                return Err(fail("a merged face boundary does not close"));
            }
            loop_.push(current);
            current = *successor
                .get(&current)
                .ok_or_else(|| fail("a merged face boundary does not close"))?;
        }
        if loop_.len() != successor.len() {
            return Err(fail("a merged face has more than one boundary"));
        }
        loops.push(loop_);
    }

    // A corner of a convex polyhedron lies on at least three faces and makes a real turn in the
    // boundary of each face it is on. Points on fewer faces, or exactly on the line through their
    // neighbours, lie in the middle of an edge: they are dropped from every loop at once, so the
    // two faces along that edge stay consistent.
    let mut face_count = vec![0u32; points.len()];
    let mut turns = vec![false; points.len()];
    for loop_ in &loops {
        let n = loop_.len();
        for k in 0..n {
            let (u, v, w) = (loop_[(k + n - 1) % n], loop_[k], loop_[(k + 1) % n]);
            face_count[v as usize] += 1;
            if !collinear(
                &points[u as usize],
                &points[v as usize],
                &points[w as usize],
            ) {
                turns[v as usize] = true;
            }
        }
    }
    let corner = |v: u32| face_count[v as usize] >= 3 && turns[v as usize];
    let mut new_index = vec![u32::MAX; points.len()];
    let mut vertices = Vec::new();
    for v in 0..points.len() as u32 {
        if corner(v) {
            new_index[v as usize] = vertices.len() as u32;
            vertices.push(points[v as usize]);
        }
    }
    let loops: Vec<Vec<u32>> = loops
        .iter()
        .map(|l| {
            l.iter()
                .filter(|&&v| corner(v))
                .map(|&v| new_index[v as usize])
                .collect()
        })
        .collect();
    if loops.iter().any(|l| l.len() < 3) {
        return Err(fail("a merged face collapsed to fewer than 3 corners"));
    }

    // Half-edges.
    let mut half_edges = Vec::new();
    let mut faces = Vec::with_capacity(loops.len());
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for (f, (loop_, (normal, _))) in loops.iter().zip(&regions).enumerate() {
        let normal = *normal;
        let first = half_edges.len() as u32;
        let n = loop_.len() as u32;
        for k in 0..n {
            let origin = loop_[k as usize];
            let head = loop_[((k + 1) % n) as usize];
            if directed.insert((origin, head), first + k).is_some() {
                return Err(fail("two faces share a directed edge"));
            }
            half_edges.push(HalfEdge {
                origin,
                twin: u32::MAX,
                next: first + (k + 1) % n,
                face: f as u32,
            });
        }
        let offset = loop_
            .iter()
            .map(|&v| normal.dot(&vertices[v as usize].coords))
            .fold(f64::NEG_INFINITY, f64::max);
        faces.push(Face {
            half_edge: first,
            normal,
            offset,
        });
    }
    for h in 0..half_edges.len() {
        let origin = half_edges[h].origin;
        let head = half_edges[half_edges[h].next as usize].origin;
        half_edges[h].twin = *directed
            .get(&(head, origin))
            .ok_or_else(|| fail("an edge has no twin: the hull is not closed"))?;
    }
    let mut vertex_half_edge = vec![u32::MAX; vertices.len()];
    for (h, half_edge) in half_edges.iter().enumerate() {
        let slot = &mut vertex_half_edge[half_edge.origin as usize];
        if *slot == u32::MAX {
            *slot = h as u32;
        }
    }
    if vertex_half_edge.contains(&u32::MAX) {
        return Err(fail("a vertex has no edge"));
    }
    let directions = half_edges
        .iter()
        .map(|e| {
            let head = half_edges[e.next as usize].origin;
            (vertices[head as usize] - vertices[e.origin as usize]).normalize()
        })
        .collect();
    let bounding_radius = vertices.iter().map(|v| v.coords.norm()).fold(0.0, f64::max);
    Ok(ConvexPolyhedron {
        vertices,
        half_edges,
        faces,
        vertex_half_edge,
        directions,
        bounding_radius,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_points(extra: &[[f64; 3]]) -> Vec<Point> {
        let mut points: Vec<Point> = (0..8)
            .map(|i| {
                Point::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -2.0 } else { 2.0 },
                    if i & 4 == 0 { -3.0 } else { 3.0 },
                )
            })
            .collect();
        points.extend(extra.iter().map(|p| Point::new(p[0], p[1], p[2])));
        points
    }

    #[test]
    fn box_hull_has_six_quad_faces() {
        // Extra points: face centre, edge midpoint and an interior point, none a corner.
        let hull = ConvexPolyhedron::from_points(&box_points(&[
            [0., 0., 3.],
            [1., 0., 3.],
            [0.1, 0.2, 0.3],
        ]))
        .unwrap();
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.edge_count(), 12);
        assert_eq!(hull.faces().len(), 6);
        for f in 0..6 {
            assert_eq!(hull.face_vertices(f).count(), 4);
        }
        let t = hull.volume_integrals();
        assert!((t.t1 - 48.0).abs() < 1e-12, "volume {}", t.t1);
    }

    #[test]
    fn grid_of_points_hulls_to_a_box() {
        // Every point of a 5×5×5 grid: massive coplanarity and collinearity on the hull.
        let mut points = Vec::new();
        for i in 0..5 {
            for j in 0..5 {
                for k in 0..5 {
                    points.push(Point::new(i as f64, j as f64 * 0.5, k as f64 * 2.0));
                }
            }
        }
        let hull = ConvexPolyhedron::from_points(&points).unwrap();
        assert_eq!(
            (hull.vertices().len(), hull.edge_count(), hull.faces().len()),
            (8, 12, 6)
        );
        assert!((hull.volume_integrals().t1 - 4.0 * 2.0 * 8.0).abs() < 1e-12);
    }

    #[test]
    fn adjacency_is_consistent() {
        let hull = ConvexPolyhedron::from_points(&box_points(&[])).unwrap();
        for (h, e) in hull.half_edges().iter().enumerate() {
            let twin = hull.half_edges()[e.twin as usize];
            assert_eq!(twin.twin as usize, h);
            assert_eq!(hull.head(e.twin), e.origin);
            assert_ne!(twin.face, e.face);
        }
        for v in 0..8 {
            // Each box corner has three edges.
            assert_eq!(hull.vertex_half_edges(v).count(), 3);
            assert!(
                hull.vertex_half_edges(v)
                    .all(|h| hull.half_edges()[h as usize].origin == v)
            );
        }
        for face in hull.faces() {
            assert!((face.normal.norm() - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn degenerate_inputs_are_rejected() {
        let p = |x: f64, y: f64, z: f64| Point::new(x, y, z);
        assert_eq!(
            ConvexPolyhedron::from_points(&[p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.)]),
            Err(ConvexError::TooFewPoints { count: 3 })
        );
        assert_eq!(
            ConvexPolyhedron::from_points(&[
                p(0., 0., 0.),
                p(1., 0., 0.),
                p(0., 1., 0.),
                p(1., 1., 0.)
            ]),
            Err(ConvexError::Flat)
        );
        assert_eq!(
            ConvexPolyhedron::from_points(&[
                p(0., 0., 0.),
                p(1., 0., 0.),
                p(0., 1., 0.),
                p(0., 0., 1.),
                p(1., 0., 0.)
            ]),
            Err(ConvexError::DuplicatePoint {
                first: 1,
                second: 4
            })
        );
        assert!(matches!(
            ConvexPolyhedron::from_points(&[
                p(0., 0., 0.),
                p(f64::NAN, 0., 0.),
                p(0., 1., 0.),
                p(0., 0., 1.)
            ]),
            Err(ConvexError::NonFinitePoint { index: 1 })
        ));
    }
}
