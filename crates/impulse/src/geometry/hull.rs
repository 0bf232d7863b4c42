//! Convex hulls of point sets in 3-D: quickhull with exact orientation predicates (and those
//! predicates, for other exact geometric tests).
//!
//! Every "which side of this face" decision uses Shewchuk's adaptive-precision `orient3d`
//! (`robust` crate), so the triangulation returned is exactly closed and (weakly) convex for
//! any input — coplanar, collinear, nearly degenerate or not. Floating-point distances only
//! choose *which* outside point to add next (the farthest), never whether the hull is right.
//! Coplanar triangles are left for the caller to merge into polygon faces.
//!
//! (We first used `parry3d-f64`'s hull here; on thin slivers from convex decomposition it
//! returned hulls with points 0.7 units outside a face, so the hull is now our own.)

use robust::{Coord3D, orient3d};

use crate::math::Point;

/// Why no hull was built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HullError {
    /// Fewer than four points.
    TooFewPoints,
    /// All points lie in one plane.
    Coplanar,
}

fn coord(p: &Point) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Exactly: `d` lies strictly outside the plane of the counter-clockwise (seen from outside)
/// triangle `a, b, c`.
pub(crate) fn above(a: &Point, b: &Point, c: &Point, d: &Point) -> bool {
    // `orient3d` is positive when d is below the plane in which a, b, c appear counter-clockwise.
    orient3d(coord(a), coord(b), coord(c), coord(d)) < 0.0
}

/// Exactly: `d` lies in the plane through `a`, `b`, `c`.
pub(crate) fn coplanar(a: &Point, b: &Point, c: &Point, d: &Point) -> bool {
    orient3d(coord(a), coord(b), coord(c), coord(d)) == 0.0
}

/// Exactly: `a`, `b`, `c` lie on one line (their projections on all three coordinate planes are
/// collinear).
pub(crate) fn collinear(a: &Point, b: &Point, c: &Point) -> bool {
    let projected = |i: usize, j: usize| {
        let c2 = |p: &Point| robust::Coord { x: p[i], y: p[j] };
        robust::orient2d(c2(a), c2(b), c2(c)) == 0.0
    };
    projected(0, 1) && projected(1, 2) && projected(2, 0)
}

#[derive(Clone, Debug)]
struct Face {
    /// Corners, counter-clockwise seen from outside.
    v: [u32; 3],
    /// `neighbour[i]` shares the edge `v[i] → v[i+1]`.
    neighbour: [usize; 3],
    /// Points strictly outside this face, not yet on the hull.
    outside: Vec<u32>,
    alive: bool,
}

/// The convex hull of `points` as triangles of indices into `points`, each counter-clockwise
/// seen from outside. Points inside the hull, or on it but not needed, are left out.
pub fn convex_hull(points: &[Point]) -> Result<Vec<[u32; 3]>, HullError> {
    if points.len() < 4 {
        return Err(HullError::TooFewPoints);
    }
    let p = |i: u32| &points[i as usize];
    let start = initial_tetrahedron(points)?;
    let mut faces: Vec<Face> = Vec::new();
    // Orient the tetrahedron so that each face is counter-clockwise from outside.
    let [a, b, c, d] = start;
    let (a, b) = if above(p(a), p(b), p(c), p(d)) {
        (b, a)
    } else {
        (a, b)
    };
    // Faces of the tetrahedron (a, b, c, d) with d below (a, b, c).
    let corners = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
    for v in corners {
        faces.push(Face {
            v,
            neighbour: [usize::MAX; 3],
            outside: Vec::new(),
            alive: true,
        });
    }
    link_all(&mut faces);
    // Assign every other point to one face it lies outside of.
    for i in 0..points.len() as u32 {
        if start.contains(&i) {
            continue;
        }
        if let Some(f) = (0..faces.len()).find(|&f| {
            let [x, y, z] = faces[f].v;
            above(p(x), p(y), p(z), p(i))
        }) {
            faces[f].outside.push(i);
        }
    }

    let mut pending: Vec<usize> = (0..faces.len()).collect();
    // Which faces the current eye sees, kept between eyes and cleared after each: a fresh
    // vector per eye cost O(faces) each, quadratic on a finely tessellated mesh (issue 42).
    let mut is_visible: Vec<bool> = Vec::new();
    while let Some(f) = pending.pop() {
        if !faces[f].alive || faces[f].outside.is_empty() {
            continue;
        }
        // The outside point farthest from this face's plane (floating point: a heuristic only).
        let [x, y, z] = faces[f].v;
        let normal = (p(y) - p(x)).cross(&(p(z) - p(x)));
        let eye = *faces[f]
            .outside
            .iter()
            .max_by(|&&i, &&j| {
                let di = normal.dot(&(p(i) - p(x)));
                let dj = normal.dot(&(p(j) - p(x)));
                di.total_cmp(&dj).then(j.cmp(&i))
            })
            .unwrap_or(&faces[f].outside[0]);

        // Faces visible from the eye: a connected region grown from f by exact tests.
        let mut visible = vec![f];
        is_visible.resize(faces.len(), false);
        is_visible[f] = true;
        let mut k = 0;
        while k < visible.len() {
            let g = visible[k];
            k += 1;
            for &n in &faces[g].neighbour {
                if !is_visible[n] {
                    let [x, y, z] = faces[n].v;
                    if above(p(x), p(y), p(z), p(eye)) {
                        is_visible[n] = true;
                        visible.push(n);
                    }
                }
            }
        }
        // Horizon: edges of visible faces whose neighbour is not visible, as directed in the
        // visible face. Each becomes a new face (edge start, edge end, eye).
        let mut horizon: Vec<(u32, u32, usize)> = Vec::new();
        for &g in &visible {
            for e in 0..3 {
                let n = faces[g].neighbour[e];
                if !is_visible[n] {
                    horizon.push((faces[g].v[e], faces[g].v[(e + 1) % 3], n));
                }
            }
        }
        let mut orphans: Vec<u32> = Vec::new();
        for &g in &visible {
            is_visible[g] = false;
            faces[g].alive = false;
            orphans.append(&mut faces[g].outside);
        }
        let first_new = faces.len();
        for &(from, to, beyond) in &horizon {
            let id = faces.len();
            faces.push(Face {
                v: [from, to, eye],
                neighbour: [beyond, usize::MAX, usize::MAX],
                outside: Vec::new(),
                alive: true,
            });
            // The old face across the horizon edge now borders the new face.
            let old = &mut faces[beyond];
            for e in 0..3 {
                if old.v[e] == to && old.v[(e + 1) % 3] == from {
                    old.neighbour[e] = id;
                }
            }
        }
        // Link the new faces around the eye: face (from, to, eye) meets the new face starting at
        // `to` across (to, eye), and the new face ending at `from` across (eye, from). The
        // horizon is a simple cycle, so each vertex starts and ends exactly one new face.
        let new_faces = first_new..faces.len();
        let starting_at: std::collections::HashMap<u32, usize> =
            new_faces.clone().map(|id| (faces[id].v[0], id)).collect();
        let ending_at: std::collections::HashMap<u32, usize> =
            new_faces.clone().map(|id| (faces[id].v[1], id)).collect();
        for id in new_faces {
            let [from, to, _] = faces[id].v;
            faces[id].neighbour[1] = starting_at[&to];
            faces[id].neighbour[2] = ending_at[&from];
        }
        // Hand the orphaned points to new faces they lie outside of (or drop them: inside).
        for i in orphans {
            if i == eye {
                continue;
            }
            if let Some(g) = (first_new..faces.len()).find(|&g| {
                let [x, y, z] = faces[g].v;
                above(p(x), p(y), p(z), p(i))
            }) {
                faces[g].outside.push(i);
            }
        }
        pending.extend(first_new..faces.len());
    }
    Ok(faces.iter().filter(|f| f.alive).map(|f| f.v).collect())
}

/// Sets every face's neighbours by matching opposite directed edges (for the starting
/// tetrahedron).
fn link_all(faces: &mut [Face]) {
    for f in 0..faces.len() {
        for e in 0..3 {
            let (a, b) = (faces[f].v[e], faces[f].v[(e + 1) % 3]);
            faces[f].neighbour[e] = (0..faces.len())
                .find(|&g| (0..3).any(|k| faces[g].v[k] == b && faces[g].v[(k + 1) % 3] == a))
                .unwrap_or(usize::MAX);
        }
    }
}

/// Four points spanning a tetrahedron, chosen far apart for good conditioning.
fn initial_tetrahedron(points: &[Point]) -> Result<[u32; 4], HullError> {
    let n = points.len() as u32;
    let p = |i: u32| &points[i as usize];
    // Extreme along x, then farthest from it, then farthest from their line, then farthest
    // from their plane (exact zero test).
    let a = (0..n)
        .min_by(|&i, &j| p(i).x.total_cmp(&p(j).x).then(i.cmp(&j)))
        .ok_or(HullError::TooFewPoints)?;
    let b = (0..n)
        .max_by(|&i, &j| {
            (p(i) - p(a))
                .norm_squared()
                .total_cmp(&(p(j) - p(a)).norm_squared())
                .then(j.cmp(&i))
        })
        .ok_or(HullError::TooFewPoints)?;
    let line = p(b) - p(a);
    let c = (0..n)
        .max_by(|&i, &j| {
            let di = line.cross(&(p(i) - p(a))).norm_squared();
            let dj = line.cross(&(p(j) - p(a))).norm_squared();
            di.total_cmp(&dj).then(j.cmp(&i))
        })
        .ok_or(HullError::TooFewPoints)?;
    let d = (0..n)
        .max_by(|&i, &j| {
            let di = orient3d(coord(p(a)), coord(p(b)), coord(p(c)), coord(p(i))).abs();
            let dj = orient3d(coord(p(a)), coord(p(b)), coord(p(c)), coord(p(j))).abs();
            di.total_cmp(&dj).then(j.cmp(&i))
        })
        .ok_or(HullError::TooFewPoints)?;
    if orient3d(coord(p(a)), coord(p(b)), coord(p(c)), coord(p(d))) == 0.0 {
        return Err(HullError::Coplanar);
    }
    Ok([a, b, c, d])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Every point is on or below every hull face, exactly; every edge has one twin.
    fn assert_valid_hull(points: &[Point], triangles: &[[u32; 3]]) {
        for t in triangles {
            let [a, b, c] = t.map(|i| &points[i as usize]);
            for q in points {
                assert!(!above(a, b, c, q), "a point lies outside a hull face");
            }
        }
        let mut edges = std::collections::HashSet::new();
        for t in triangles {
            for k in 0..3 {
                assert!(
                    edges.insert((t[k], t[(k + 1) % 3])),
                    "repeated directed edge"
                );
            }
        }
        for &(a, b) in &edges {
            assert!(edges.contains(&(b, a)), "edge without twin");
        }
    }

    #[test]
    fn random_clouds_give_exact_hulls() {
        let mut seed = 7;
        for n in [4, 5, 10, 50, 300] {
            let points: Vec<Point> = (0..n)
                .map(|_| Point::new(lcg(&mut seed), lcg(&mut seed), lcg(&mut seed)))
                .collect();
            let triangles = convex_hull(&points).unwrap();
            assert_valid_hull(&points, &triangles);
        }
    }

    #[test]
    fn degenerate_clouds_give_exact_hulls() {
        // A grid (coplanar and collinear everywhere), points on a sphere's great circles, and a
        // thin slab of nearly coplanar points.
        let mut grid = Vec::new();
        for i in 0..4 {
            for j in 0..4 {
                for k in 0..4 {
                    grid.push(Point::new(i as f64, j as f64, k as f64));
                }
            }
        }
        assert_valid_hull(&grid, &convex_hull(&grid).unwrap());
        let mut seed = 3;
        let slab: Vec<Point> = (0..200)
            .map(|_| Point::new(lcg(&mut seed), lcg(&mut seed), 1e-12 * lcg(&mut seed)))
            .collect();
        assert_valid_hull(&slab, &convex_hull(&slab).unwrap());
        let flat: Vec<Point> = (0..20)
            .map(|i| Point::new(i as f64, (i * i) as f64, 0.0))
            .collect();
        assert_eq!(convex_hull(&flat), Err(HullError::Coplanar));
    }
}
