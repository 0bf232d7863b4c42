//! The shells of a closed mesh and how they nest.
//!
//! A solid with a cavity is bounded by two closed surfaces (shells): the outer one facing out,
//! the cavity's facing in, towards the cavity, so that the signed volumes add up to the
//! solid's (64 − 8 = 56 for a 4³ cube with a 2³ cavity). Each shell on its own can be closed
//! and consistently wound and still be wound the wrong way for its place: a cavity wound like
//! the outer surface makes the volume integrals count it as solid (64 + 8 = 72). So the shells
//! are checked against each other: a shell inside an odd number of others bounds a cavity and
//! must have negative volume, every other shell positive; and no shell may lie partly inside
//! and partly outside another (their surfaces cross), which also catches crossings that lie
//! exactly on edges, where testing edges against faces sees only touching.
//!
//! Whether a point lies inside a shell is its winding number, the solid angle the shell's
//! triangles subtend at the point over 4π (Van Oosterom & Strackee 1983 for each triangle):
//! ±1 inside, 0 outside. Points sampled on one shell (vertices, edge midpoints, triangle
//! centroids) are classified against another; samples on its surface (within 1e-9 of the
//! mesh's size), where the winding number is a fraction, say nothing: shells may touch.

use std::collections::HashMap;

use super::mesh::{MeshDefect, PolygonMesh};
use crate::math::Vec3;

/// The shells of a mesh: groups of faces joined through shared edges, each group's faces in
/// increasing order, groups ordered by their first face.
pub(crate) fn shells(mesh: &PolygonMesh) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..mesh.faces.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_face_of_edge: HashMap<(u32, u32), usize> = HashMap::new();
    for (face, loop_) in mesh.faces.iter().enumerate() {
        for k in 0..loop_.len() {
            let (a, b) = (loop_[k], loop_[(k + 1) % loop_.len()]);
            let key = (a.min(b), a.max(b));
            match first_face_of_edge.get(&key) {
                Some(&other) => {
                    let (x, y) = (root(&mut parent, face), root(&mut parent, other));
                    parent[x.max(y)] = x.min(y);
                }
                None => {
                    first_face_of_edge.insert(key, face);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of_root: HashMap<usize, usize> = HashMap::new();
    for face in 0..mesh.faces.len() {
        let r = root(&mut parent, face);
        let g = *group_of_root.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(face);
    }
    groups
}

/// One shell, ready for point queries.
struct Shell {
    /// Its faces (indices into the mesh).
    faces: Vec<usize>,
    /// Its triangles, as corner positions.
    triangles: Vec<[Vec3; 3]>,
    /// Points on it: vertices, edge midpoints, triangle centroids, each with the face it lies
    /// on.
    samples: Vec<(Vec3, usize)>,
    /// Bounding box.
    lo: Vec3,
    hi: Vec3,
    /// Signed volume (positive when wound outward).
    volume: f64,
}

impl Shell {
    fn new(mesh: &PolygonMesh, faces: Vec<usize>) -> Self {
        let at = |i: u32| mesh.vertices[i as usize].coords;
        let mut triangles = Vec::new();
        let mut samples = Vec::new();
        let mut volume = 0.0;
        for &face in &faces {
            let loop_ = &mesh.faces[face];
            for k in 0..loop_.len() {
                let (a, b) = (at(loop_[k]), at(loop_[(k + 1) % loop_.len()]));
                samples.push((a, face));
                samples.push(((a + b) * 0.5, face));
            }
            let single = PolygonMesh::new(mesh.vertices.clone(), vec![loop_.clone()]);
            for (t, _) in single.triangles() {
                let corners = t.map(at);
                // Divergence theorem over the triangle: (a · (b × c)) / 6.
                volume += corners[0].dot(&corners[1].cross(&corners[2])) / 6.0;
                samples.push(((corners[0] + corners[1] + corners[2]) / 3.0, face));
                triangles.push(corners);
            }
        }
        let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
        for t in &triangles {
            for c in t {
                lo = lo.inf(c);
                hi = hi.sup(c);
            }
        }
        Self {
            faces,
            triangles,
            samples,
            lo,
            hi,
            volume,
        }
    }

    /// The winding number of the shell about `p`: ±1 inside, 0 outside.
    fn winding(&self, p: &Vec3) -> f64 {
        let mut total = 0.0;
        for t in &self.triangles {
            let (a, b, c) = (t[0] - p, t[1] - p, t[2] - p);
            let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
            // Van Oosterom & Strackee: tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (a·c)|b|
            // + (b·c)|a|).
            let numerator = a.dot(&b.cross(&c));
            let denominator = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
            total += 2.0 * numerator.atan2(denominator);
        }
        total / (4.0 * std::f64::consts::PI)
    }

    fn may_hold(&self, p: &Vec3, tolerance: f64) -> bool {
        (0..3).all(|k| p[k] >= self.lo[k] - tolerance && p[k] <= self.hi[k] + tolerance)
    }

    /// Whether `p` lies on the shell, within `tolerance`: there the winding number is a
    /// fraction that rounding (the sign of a zero) can turn into 0 or 1.
    fn touches(&self, p: &Vec3, tolerance: f64) -> bool {
        self.triangles
            .iter()
            .any(|t| (closest_on_triangle(p, t) - p).norm() <= tolerance)
    }
}

/// The point of triangle `t` closest to `p` (Ericson, *Real-Time Collision Detection*,
/// §5.1.5).
fn closest_on_triangle(p: &Vec3, t: &[Vec3; 3]) -> Vec3 {
    let [a, b, c] = *t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denominator = 1.0 / (va + vb + vc);
    a + ab * (vb * denominator) + ac * (vc * denominator)
}

/// Where one shell's samples lie with respect to another shell.
#[derive(Default)]
struct Sides {
    /// A sample strictly inside, and its face.
    inside: Option<usize>,
    /// A sample strictly outside, and its face.
    outside: Option<usize>,
}

/// Sides of `inner`'s samples with respect to `outer`.
fn sides(inner: &Shell, outer: &Shell, tolerance: f64) -> Sides {
    let mut sides = Sides::default();
    for (p, face) in &inner.samples {
        if !outer.may_hold(p, tolerance) {
            sides.outside.get_or_insert(*face);
        } else if !outer.touches(p, tolerance) {
            // Off the surface the winding number is an integer to rounding; on it, a fraction.
            let w = outer.winding(p).abs();
            if (w - 1.0).abs() < 1e-6 {
                sides.inside.get_or_insert(*face);
            } else if w < 1e-6 {
                sides.outside.get_or_insert(*face);
            }
        }
        if sides.inside.is_some() && sides.outside.is_some() {
            break;
        }
    }
    sides
}

/// Checks that the mesh's shells (`groups` of faces, each closed and consistently wound) nest
/// as the boundary of a solid: none partly inside another; a shell inside an odd number of
/// others wound inward (negative volume), every other shell outward. With `nesting` false (the
/// objects of a mesh of convex pieces) no shell may lie inside another at all.
pub(crate) fn check_nesting(
    mesh: &PolygonMesh,
    groups: Vec<Vec<usize>>,
    nesting: bool,
) -> Result<(), MeshDefect> {
    if groups.len() < 2 {
        return Ok(());
    }
    let tolerance = 1e-9 * mesh.size();
    let shells: Vec<Shell> = groups.into_iter().map(|g| Shell::new(mesh, g)).collect();
    for (i, inner) in shells.iter().enumerate() {
        let mut containers = Vec::new();
        for (j, outer) in shells.iter().enumerate() {
            if i == j {
                continue;
            }
            let sides = sides(inner, outer, tolerance);
            match sides {
                Sides {
                    inside: Some(face),
                    outside: Some(_),
                } => {
                    return Err(MeshDefect::ShellsCross {
                        face,
                        other: outer.faces[0],
                    });
                }
                Sides {
                    inside: Some(face), ..
                } if !nesting => {
                    return Err(MeshDefect::ShellsCross {
                        face,
                        other: outer.faces[0],
                    });
                }
                Sides {
                    inside: Some(_), ..
                } => containers.push(j),
                // Every sample on the other's surface: the two coincide.
                Sides {
                    inside: None,
                    outside: None,
                } => {
                    return Err(MeshDefect::ShellsCross {
                        face: inner.faces[0],
                        other: outer.faces[0],
                    });
                }
                _ => {}
            }
        }
        let cavity = containers.len() % 2 == 1;
        if cavity != (inner.volume < 0.0) {
            return Err(MeshDefect::ShellOrientation {
                face: inner.faces[0],
                faces: inner.faces.len(),
                volume: inner.volume,
                inside: containers.first().map(|&j| shells[j].faces[0]),
            });
        }
    }
    Ok(())
}
