//! Polyhedral approximations of curved solids, for tests, benchmarks and pictures (the simulator
//! itself treats curved shapes exactly).

use std::collections::HashMap;

use super::convex::ConvexPolyhedron;
use super::mesh::PolygonMesh;
use crate::math::{Point, Vec3};

/// The geodesic sphere of Mirtich Table 6.2, inscribed in the unit sphere: level 1 is the
/// icosahedron (12 vertices, 20 faces); each further level splits every triangle in four by
/// projecting its edge midpoints onto the sphere (level 6: 10242 vertices, 20480 faces).
///
/// # Panics
/// If `level` is 0.
pub fn geodesic_sphere(level: u32) -> PolygonMesh {
    assert!(
        level >= 1,
        "geodesic sphere levels start at 1 (the icosahedron)"
    );
    let phi = (1.0 + 5.0_f64.sqrt()) / 2.0;
    let mut points = Vec::with_capacity(12);
    for a in [-1.0, 1.0] {
        for b in [-phi, phi] {
            points.push(Point::from(Vec3::new(0.0, a, b).normalize()));
            points.push(Point::from(Vec3::new(a, b, 0.0).normalize()));
            points.push(Point::from(Vec3::new(b, 0.0, a).normalize()));
        }
    }
    let icosahedron = match ConvexPolyhedron::hull_of(&points) {
        Ok(hull) => hull,
        Err(e) => unreachable!("the icosahedron is a valid hull: {e}"),
    };
    let mut mesh = icosahedron.to_mesh();
    for _ in 1..level {
        mesh = subdivide(&mesh);
    }
    mesh
}

/// An axis-aligned box from `min` to `max` as a mesh of six quadrilaterals, wound
/// counter-clockwise seen from outside.
pub fn box_mesh(min: Point, max: Point) -> PolygonMesh {
    let corner = |i: usize| {
        Point::new(
            if i & 1 == 0 { min.x } else { max.x },
            if i & 2 == 0 { min.y } else { max.y },
            if i & 4 == 0 { min.z } else { max.z },
        )
    };
    // Corners indexed by bits (x, y, z); faces listed with outward windings.
    let faces = vec![
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![1, 3, 7, 5],
        vec![0, 4, 6, 2],
    ];
    PolygonMesh::new((0..8).map(corner).collect(), faces)
}

/// Splits each triangle into four, projecting the new edge midpoints onto the unit sphere.
fn subdivide(mesh: &PolygonMesh) -> PolygonMesh {
    let mut vertices = mesh.vertices.clone();
    let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
    let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Point>| {
        let key = (a.min(b), a.max(b));
        *midpoints.entry(key).or_insert_with(|| {
            let m = (vertices[a as usize].coords + vertices[b as usize].coords).normalize();
            vertices.push(Point::from(m));
            (vertices.len() - 1) as u32
        })
    };
    let mut faces = Vec::with_capacity(mesh.faces.len() * 4);
    for face in &mesh.faces {
        let [a, b, c] = [face[0], face[1], face[2]];
        let ab = midpoint(a, b, &mut vertices);
        let bc = midpoint(b, c, &mut vertices);
        let ca = midpoint(c, a, &mut vertices);
        faces.extend([
            vec![a, ab, ca],
            vec![ab, b, bc],
            vec![ca, bc, c],
            vec![ab, bc, ca],
        ]);
    }
    PolygonMesh::new(vertices, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_mesh_is_a_valid_solid() {
        let mesh = box_mesh(Point::new(-1.0, 0.0, 2.0), Point::new(1.0, 3.0, 2.5));
        assert_eq!(mesh.validate_solid(), Ok(()));
        assert!((mesh.volume_integrals().t1 - 3.0).abs() < 1e-14);
    }

    #[test]
    fn counts_follow_four_to_one_refinement() {
        for (level, v, f) in [(1, 12, 20), (2, 42, 80), (3, 162, 320)] {
            let mesh = geodesic_sphere(level);
            assert_eq!((mesh.vertices.len(), mesh.faces.len()), (v, f));
            assert_eq!(mesh.validate_solid(), Ok(()));
        }
    }
}
