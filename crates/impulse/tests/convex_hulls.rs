//! Convex hulls on adversarial point clouds: the structure must always be a valid convex
//! polyhedron whose volume equals the exact hull's.

use impulse::geometry::hull::convex_hull;
use impulse::geometry::{ConvexPolyhedron, VolumeIntegrals};
use impulse::math::{Point, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn check(points: &[Point], what: &str) {
    let hull = match ConvexPolyhedron::hull_of(points) {
        Ok(h) => h,
        Err(e) => panic!("{what}: {e}"),
    };
    let scale = points
        .iter()
        .map(|p| p.coords.norm())
        .fold(0.0, f64::max)
        .max(1e-300);
    // Euler's formula and twins (checked on construction) — and every input point inside.
    assert_eq!(
        hull.vertices().len() as i64 - hull.edge_count() as i64 + hull.faces().len() as i64,
        2,
        "{what}"
    );
    for face in hull.faces() {
        for p in points {
            assert!(
                face.normal.dot(&p.coords) <= face.offset + 1e-8 * scale,
                "{what}: a point is outside a face"
            );
        }
    }
    // Each face is a convex polygon: every corner lies on the outer side of the chord joining its
    // neighbours (faces merge only exactly coplanar triangles, so only rounding in this check's
    // own arithmetic may show).
    for f in 0..hull.faces().len() as u32 {
        let loop_: Vec<Vec3> = hull
            .face_vertices(f)
            .map(|v| hull.vertices()[v as usize].coords)
            .collect();
        let n = loop_.len();
        assert!(n >= 3, "{what}");
        let normal = hull.faces()[f as usize].normal;
        for k in 0..n {
            let (a, b, c) = (loop_[k], loop_[(k + 1) % n], loop_[(k + 2) % n]);
            let outward = (b - a).cross(&(c - b)).dot(&normal) / (c - a).norm();
            assert!(
                outward >= -1e-12 * scale,
                "{what}: face {f} is not convex (a corner is {outward:e} inside its chord)"
            );
        }
    }
    // Merging exactly coplanar triangles and dropping exactly collinear points does not move the
    // surface: the volume equals the exact triangulation's up to rounding.
    let triangles = convex_hull(points).unwrap();
    let exact = VolumeIntegrals::of_polyhedron(points, triangles.iter().map(|t| &t[..])).t1;
    let merged = hull.volume_integrals().t1;
    assert!(
        (merged - exact).abs() <= 1e-12 * scale.powi(3),
        "{what}: volume {merged} vs exact hull {exact}"
    );
}

#[test]
fn random_and_degenerate_clouds() {
    let mut rng = Pcg64::seed_from_u64(11);
    for trial in 0..2000 {
        let n = rng.random_range(4..200);
        let kind = trial % 5;
        let points: Vec<Point> = match kind {
            // Uniform in a box.
            0 => (0..n)
                .map(|_| {
                    Point::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    )
                })
                .collect(),
            // On a sphere, snapped to a coarse lattice: many exactly coplanar facets.
            1 => (0..n)
                .map(|_| {
                    let v = Vec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    )
                    .normalize()
                        * 4.0;
                    Point::new(v.x.round(), v.y.round(), v.z.round())
                })
                .collect(),
            // A thin slab: nearly coplanar.
            2 => (0..n)
                .map(|_| {
                    Point::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(0.0..1e-4),
                    )
                })
                .collect(),
            // Points along a few lines (collinear runs) plus a few others.
            3 => (0..n)
                .map(|i| {
                    let t = rng.random_range(0.0..1.0);
                    match i % 4 {
                        0 => Point::new(t, 0.0, 0.0),
                        1 => Point::new(0.0, t, 0.0),
                        2 => Point::new(0.0, 0.0, t),
                        _ => Point::new(t, 1.0 - t, rng.random_range(0.0..1.0)),
                    }
                })
                .collect(),
            // Clusters of nearly coincident points.
            _ => (0..n)
                .map(|i| {
                    let corner = [
                        (0.0, 0.0, 0.0),
                        (1.0, 0.0, 0.0),
                        (0.0, 1.0, 0.0),
                        (0.0, 0.0, 1.0),
                    ][i % 4];
                    Point::new(
                        corner.0 + rng.random_range(-1e-7..1e-7),
                        corner.1 + rng.random_range(-1e-7..1e-7),
                        corner.2 + rng.random_range(-1e-7..1e-7),
                    )
                })
                .collect(),
        };
        if impulse::geometry::hull::convex_hull(&points).is_err() {
            continue; // all coplanar: rejected, which is right
        }
        check(&points, &format!("trial {trial} (kind {kind}, {n} points)"));
    }
}

#[test]
fn pieces_of_an_automatic_decomposition() {
    // Thin wall slices from V-HACD of the insulator cap once broke parry's hull and then our
    // coplanar merge; every piece must now be a valid convex polyhedron.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../meshes/insulator_cap.obj");
    let mesh = impulse::geometry::read_solid_mesh(&path).unwrap();
    let solid = impulse::geometry::Polyhedron::decompose(
        mesh.clone(),
        &impulse::geometry::DecompositionSettings::default(),
        &path,
    )
    .unwrap();
    assert!(solid.pieces().len() > 4, "a cup needs several pieces");
    let inside = |p: &Point, tolerance: f64| {
        solid.pieces().iter().any(|piece| {
            piece
                .faces()
                .iter()
                .all(|f| f.normal.dot(&p.coords) <= f.offset + tolerance)
        })
    };
    // The cavity stays open (a ball could go inside the cup) ...
    assert!(!inside(&Point::new(0.0, 0.0, 0.8), 0.0));
    // ... and the pieces cover the cup: every surface vertex is in some piece, to within a voxel
    // (size 2.4 cm / resolution 64).
    let voxel = 2.4 / 64.0;
    for v in &mesh.vertices {
        assert!(inside(v, voxel), "vertex {v} is not covered");
    }
}
