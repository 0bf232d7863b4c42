//! Triangle meshes of recorded shapes, for the renderer: curved primitives tessellated finely,
//! polyhedra triangulated face by face. Triangles wind counter-clockwise seen from outside.

use std::f64::consts::{FRAC_PI_2, TAU};

use impulse::geometry::{PolygonMesh, tessellate};
use impulse::math::{Point, Vec3};
use impulse::run::shapes::Geometry;

/// Triangles with a normal at each corner (smooth for curved surfaces, per face for flat ones).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Corner positions.
    pub positions: Vec<Vec3>,
    /// Unit normals, one per position.
    pub normals: Vec<Vec3>,
    /// Corner indices, counter-clockwise from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// Segments around the circle of cylinders and capsules.
const AROUND: usize = 64;
/// Rings from a capsule's pole to its equator.
const RINGS: usize = 16;
/// Refinement of the geodesic sphere for spheres and ellipsoids (5120 triangles).
const SPHERE_LEVEL: u32 = 4;

impl TriMesh {
    fn vertex(&mut self, p: Vec3, n: Vec3) -> u32 {
        self.positions.push(p);
        self.normals.push(n);
        (self.positions.len() - 1) as u32
    }

    /// Signed volume enclosed (positive when the triangles face outward).
    #[cfg(test)]
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|&[a, b, c]| {
                let p = |i: u32| self.positions[i as usize];
                p(a).dot(&p(b).cross(&p(c))) / 6.0
            })
            .sum()
    }
}

/// The mesh of a shape in its own frame, or `None` for the half-space.
pub fn tessellate(geometry: &Geometry) -> Option<TriMesh> {
    Some(match geometry {
        Geometry::Sphere { radius } => ellipsoid(Vec3::repeat(*radius)),
        Geometry::Ellipsoid { radii } => ellipsoid(Vec3::from(*radii)),
        Geometry::Box { size } => {
            let h = Vec3::from(*size) * 0.5;
            flat(&tessellate::box_mesh(Point::from(-h), Point::from(h)))
        }
        Geometry::Cylinder { radius, height } => cylinder(*radius, 0.5 * height),
        Geometry::Capsule { radius, length } => capsule(*radius, 0.5 * length),
        Geometry::Convex { vertices, faces } | Geometry::Mesh { vertices, faces } => {
            let points = vertices.iter().map(|v| Point::from(*v)).collect();
            flat(&PolygonMesh::new(points, faces.clone()))
        }
        Geometry::Halfspace => return None,
    })
}

/// A geodesic sphere stretched to the semi-axes; normals from the ellipsoid's gradient.
fn ellipsoid(radii: Vec3) -> TriMesh {
    let unit = tessellate::geodesic_sphere(SPHERE_LEVEL);
    TriMesh {
        positions: unit
            .vertices
            .iter()
            .map(|u| u.coords.component_mul(&radii))
            .collect(),
        normals: unit
            .vertices
            .iter()
            .map(|u| u.coords.component_div(&radii).normalize())
            .collect(),
        triangles: unit.faces.iter().map(|f| [f[0], f[1], f[2]]).collect(),
    }
}

/// Polygon faces split into triangles, each face with its own normal.
fn flat(mesh: &PolygonMesh) -> TriMesh {
    let mut out = TriMesh::default();
    for ([a, b, c], _) in mesh.triangles() {
        let p = [a, b, c].map(|i| mesh.vertices[i as usize].coords);
        let normal = (p[1] - p[0]).cross(&(p[2] - p[0]));
        if normal.norm() == 0.0 {
            continue;
        }
        let n = normal.normalize();
        let corners = p.map(|q| out.vertex(q, n));
        out.triangles.push(corners);
    }
    out
}

fn circle(k: usize) -> (f64, f64) {
    let angle = TAU * k as f64 / AROUND as f64;
    (angle.cos(), angle.sin())
}

/// A cylinder along z: a smooth side and two flat caps.
fn cylinder(radius: f64, half_height: f64) -> TriMesh {
    let mut out = TriMesh::default();
    let mut side = Vec::with_capacity(AROUND);
    for k in 0..AROUND {
        let (c, s) = circle(k);
        let n = Vec3::new(c, s, 0.0);
        let bottom = out.vertex(Vec3::new(radius * c, radius * s, -half_height), n);
        let top = out.vertex(Vec3::new(radius * c, radius * s, half_height), n);
        side.push([bottom, top]);
    }
    for k in 0..AROUND {
        let (a, b) = (side[k], side[(k + 1) % AROUND]);
        out.triangles.push([a[0], b[0], b[1]]);
        out.triangles.push([a[0], b[1], a[1]]);
    }
    for (z, n) in [(-half_height, -Vec3::z()), (half_height, Vec3::z())] {
        let centre = out.vertex(Vec3::new(0.0, 0.0, z), n);
        let rim: Vec<u32> = (0..AROUND)
            .map(|k| {
                let (c, s) = circle(k);
                out.vertex(Vec3::new(radius * c, radius * s, z), n)
            })
            .collect();
        for k in 0..AROUND {
            let (a, b) = (rim[k], rim[(k + 1) % AROUND]);
            // Counter-clockwise seen from outside: from below on the bottom cap.
            out.triangles.push(if z > 0.0 {
                [centre, a, b]
            } else {
                [centre, b, a]
            });
        }
    }
    out
}

/// A capsule along z: two hemispheres joined by a cylinder, as one smooth latitude–longitude
/// grid (the rings at the two equators bound the cylinder).
fn capsule(radius: f64, half_height: f64) -> TriMesh {
    let mut out = TriMesh::default();
    // Latitudes from the south pole to the north pole; each hemisphere keeps its own equator.
    let mut latitudes = Vec::new();
    for i in 0..=RINGS {
        latitudes.push((
            -FRAC_PI_2 + FRAC_PI_2 * i as f64 / RINGS as f64,
            -half_height,
        ));
    }
    for i in 0..=RINGS {
        latitudes.push((FRAC_PI_2 * i as f64 / RINGS as f64, half_height));
    }
    let rings: Vec<Vec<u32>> = latitudes
        .iter()
        .map(|&(lat, centre)| {
            (0..AROUND)
                .map(|k| {
                    let (c, s) = circle(k);
                    let n = Vec3::new(lat.cos() * c, lat.cos() * s, lat.sin());
                    out.vertex(n * radius + Vec3::new(0.0, 0.0, centre), n)
                })
                .collect()
        })
        .collect();
    for pair in rings.windows(2) {
        let (lower, upper) = (&pair[0], &pair[1]);
        for k in 0..AROUND {
            let m = (k + 1) % AROUND;
            out.triangles.push([lower[k], lower[m], upper[m]]);
            out.triangles.push([lower[k], upper[m], upper[k]]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn relative(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn tessellations_enclose_the_solids_volume_facing_outward() {
        // Exact volumes against the meshes' signed volumes: positive means every triangle faces
        // outward; the tolerance is the polygonal approximation's: (2π/64)²/6 ≈ 1.6e-3 for
        // circles of 64 segments, 0.9% for the inscribed level-4 geodesic sphere (whose
        // shortfall falls fourfold per level: 6e-4 at level 6, per `tessellate::geodesic_sphere`).
        let cases = [
            (Geometry::Sphere { radius: 2.0 }, 4.0 / 3.0 * PI * 8.0, 1e-2),
            (
                Geometry::Ellipsoid {
                    radii: [3.0, 2.0, 0.5],
                },
                4.0 / 3.0 * PI * 3.0,
                1e-2,
            ),
            (
                Geometry::Box {
                    size: [1.0, 2.0, 3.0],
                },
                6.0,
                1e-12,
            ),
            (
                Geometry::Cylinder {
                    radius: 0.5,
                    height: 4.0,
                },
                PI * 0.25 * 4.0,
                2e-3,
            ),
            (
                Geometry::Capsule {
                    radius: 0.5,
                    length: 2.0,
                },
                PI * 0.25 * 2.0 + 4.0 / 3.0 * PI * 0.125,
                5e-3,
            ),
        ];
        for (geometry, exact, tolerance) in cases {
            let mesh = tessellate(&geometry).unwrap();
            let v = mesh.volume();
            assert!(
                relative(v, exact) < tolerance,
                "{geometry:?}: {v} vs {exact}"
            );
            assert!(mesh.normals.iter().all(|n| (n.norm() - 1.0).abs() < 1e-12));
        }
        assert!(tessellate(&Geometry::Halfspace).is_none());
    }

    #[test]
    fn polygon_faces_are_triangulated_with_their_winding() {
        // The unit cube as six quadrilaterals: volume 1, twelve triangles.
        let cube = tessellate::box_mesh(Point::origin(), Point::new(1.0, 1.0, 1.0));
        let geometry = Geometry::Mesh {
            vertices: cube.vertices.iter().map(|p| [p.x, p.y, p.z]).collect(),
            faces: cube.faces.clone(),
        };
        let mesh = tessellate(&geometry).unwrap();
        assert_eq!(mesh.triangles.len(), 12);
        assert!((mesh.volume() - 1.0).abs() < 1e-12);
    }
}
