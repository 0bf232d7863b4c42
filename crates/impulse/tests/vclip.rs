//! V-Clip closest features against an independent brute-force search over all feature pairs.

mod common;

use common::random::rotation;
use impulse::collision::vclip::{
    Feature, Proximity, Unsettled, closest_features, closest_features_or_search, exhaustive_search,
};
use impulse::geometry::ConvexPolyhedron;
use impulse::math::{Point, Pose, Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const MAX_ITERATIONS: usize = 10_000;

/// A convex polyhedron's geometry in the world: vertices, faces (loops) with planes, edges.
struct World {
    vertices: Vec<Point>,
    faces: Vec<(Vec<Point>, Vec3, f64)>,
    edges: Vec<(Point, Point)>,
}

fn placed(poly: &ConvexPolyhedron, pose: &Pose) -> World {
    let vertices: Vec<Point> = poly.vertices().iter().map(|v| pose * v).collect();
    let faces = (0..poly.faces().len() as u32)
        .map(|f| {
            let loop_: Vec<Point> = poly
                .face_vertices(f)
                .map(|v| vertices[v as usize])
                .collect();
            let normal = pose.rotation * poly.faces()[f as usize].normal;
            let offset = normal.dot(&loop_[0].coords);
            (loop_, normal, offset)
        })
        .collect();
    let edges = poly
        .half_edges()
        .iter()
        .enumerate()
        .filter(|(h, e)| (*h as u32) < e.twin)
        .map(|(h, e)| {
            (
                vertices[e.origin as usize],
                vertices[poly.head(h as u32) as usize],
            )
        })
        .collect();
    World {
        vertices,
        faces,
        edges,
    }
}

/// Independent segment–segment distance: minimise over a fine parameter search refined by the
/// analytic interior solution (kept separate from the library's routine on purpose).
fn segment_distance(a0: &Point, a1: &Point, b0: &Point, b1: &Point) -> f64 {
    let point_segment = |p: &Point, s0: &Point, s1: &Point| {
        let u = s1 - s0;
        let t = ((p - s0).dot(&u) / u.norm_squared()).clamp(0.0, 1.0);
        (p - (s0 + u * t)).norm()
    };
    // Endpoint-to-segment candidates cover every case but the interior–interior one.
    let mut best = point_segment(a0, b0, b1)
        .min(point_segment(a1, b0, b1))
        .min(point_segment(b0, a0, a1))
        .min(point_segment(b1, a0, a1));
    let (u, v, w) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, b, c, d, e) = (u.dot(&u), u.dot(&v), v.dot(&v), u.dot(&w), v.dot(&w));
    let det = a * c - b * b;
    if det > 1e-14 * a * c {
        let s = (b * e - c * d) / det;
        let t = (a * e - b * d) / det;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(((a0 + u * s) - (b0 + v * t)).norm());
        }
    }
    best
}

fn point_polygon_distance(p: &Point, polygon: &[Point], normal: &Vec3, offset: f64) -> f64 {
    let n = polygon.len();
    let inside = (0..n).all(|k| {
        let (a, b) = (polygon[k], polygon[(k + 1) % n]);
        (p - a).dot(&normal.cross(&(b - a))) >= 0.0
    });
    if inside {
        return (normal.dot(&p.coords) - offset).abs();
    }
    (0..n)
        .map(|k| segment_distance(p, p, &polygon[k], &polygon[(k + 1) % n]))
        .fold(f64::INFINITY, f64::min)
}

/// Distance between the boundaries: the minimum over vertex–face pairs both ways and edge–edge
/// pairs (for disjoint convex polyhedra, the distance between the solids).
fn brute_force_distance(a: &World, b: &World) -> f64 {
    let mut best = f64::INFINITY;
    for (x, y) in [(a, b), (b, a)] {
        for v in &x.vertices {
            for (loop_, n, d) in &y.faces {
                best = best.min(point_polygon_distance(v, loop_, n, *d));
            }
        }
    }
    for (a0, a1) in &a.edges {
        for (b0, b1) in &b.edges {
            best = best.min(segment_distance(a0, a1, b0, b1));
        }
    }
    best
}

/// Independent intersection test: a vertex of one strictly inside the other, or an edge of one
/// strictly crossing a face of the other.
fn intersect(a: &World, b: &World, tolerance: f64) -> bool {
    for (x, y) in [(a, b), (b, a)] {
        let inside = |p: &Point| {
            y.faces
                .iter()
                .all(|(_, n, d)| n.dot(&p.coords) - d < -tolerance)
        };
        if x.vertices.iter().any(inside) {
            return true;
        }
        for (p, q) in &x.edges {
            for (loop_, n, d) in &y.faces {
                let (sp, sq) = (n.dot(&p.coords) - d, n.dot(&q.coords) - d);
                if (sp < -tolerance && sq > tolerance) || (sp > tolerance && sq < -tolerance) {
                    let hit = p + (q - p) * (sp / (sp - sq));
                    let k = loop_.len();
                    let within = (0..k).all(|i| {
                        let (s, e) = (loop_[i], loop_[(i + 1) % k]);
                        (hit - s).dot(&n.cross(&(e - s))) > tolerance * (e - s).norm()
                    });
                    if within {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Signed distance from a point to a convex polyhedron's surface approximated by its planes:
/// zero (to rounding) for a point on the surface.
fn surface_offset(world: &World, p: &Point) -> f64 {
    world
        .faces
        .iter()
        .map(|(_, n, d)| n.dot(&p.coords) - d)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Random convex polyhedra of several families: points on a random ellipsoid (most become
/// vertices, 4–200), random boxes (parallel faces) and prisms over random polygons (parallel
/// caps and parallel side edges).
fn random_polyhedron(rng: &mut Pcg64) -> ConvexPolyhedron {
    loop {
        let family = rng.random_range(0..4);
        let points: Vec<Point> = match family {
            0 | 1 => {
                let n = if family == 0 {
                    rng.random_range(4..30)
                } else {
                    rng.random_range(30..201)
                };
                let radii = Vec3::new(
                    rng.random_range(0.3..2.0),
                    rng.random_range(0.3..2.0),
                    rng.random_range(0.3..2.0),
                );
                (0..n)
                    .map(|_| {
                        let d = Vec3::new(
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                        )
                        .normalize();
                        Point::from(d.component_mul(&radii))
                    })
                    .collect()
            }
            2 => {
                let h = Vec3::new(
                    rng.random_range(0.1..1.5),
                    rng.random_range(0.1..1.5),
                    rng.random_range(0.1..1.5),
                );
                (0..8)
                    .map(|i| {
                        Point::new(
                            if i & 1 == 0 { -h.x } else { h.x },
                            if i & 2 == 0 { -h.y } else { h.y },
                            if i & 4 == 0 { -h.z } else { h.z },
                        )
                    })
                    .collect()
            }
            _ => {
                let k = rng.random_range(3..24);
                let height = rng.random_range(0.1..2.0);
                let mut angles: Vec<f64> = (0..k)
                    .map(|_| rng.random_range(0.0..std::f64::consts::TAU))
                    .collect();
                angles.sort_by(f64::total_cmp);
                let r = rng.random_range(0.3..1.5);
                angles
                    .iter()
                    .flat_map(|a| {
                        [
                            Point::new(r * a.cos(), r * a.sin(), 0.0),
                            Point::new(r * a.cos(), r * a.sin(), height),
                        ]
                    })
                    .collect()
            }
        };
        if let Ok(poly) = ConvexPolyhedron::from_points(&points) {
            return poly;
        }
    }
}

fn size(poly: &ConvexPolyhedron) -> f64 {
    poly.vertices()
        .iter()
        .map(|v| v.coords.norm())
        .fold(0.0, f64::max)
}

/// Rotation taking unit vector `from` to unit vector `to`.
fn rotation_between(from: &Vec3, to: &Vec3) -> Quat {
    Quat::rotation_between(from, to).unwrap_or_else(|| {
        // Opposite vectors: half a turn about any perpendicular axis.
        let axis = if from.x.abs() < 0.9 {
            from.cross(&Vec3::x())
        } else {
            from.cross(&Vec3::y())
        };
        Quat::from_scaled_axis(axis.normalize() * std::f64::consts::PI)
    })
}

/// Poses for a pair in one of five configurations: random separated, touching, face-parallel,
/// edge-parallel, penetrating.
fn configure(
    rng: &mut Pcg64,
    kind: usize,
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
) -> (Pose, Pose) {
    let scale = size(a) + size(b);
    let pose_a = Pose::from_parts(
        Vec3::new(
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
        )
        .into(),
        rotation(rng),
    );
    let direction = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize();
    let mut pose_b = Pose::from_parts(
        (pose_a.translation.vector + direction * scale * rng.random_range(1.0..2.0)).into(),
        rotation(rng),
    );
    match kind {
        // Random, separated.
        0 => {}
        // Touching, or penetrating by a little: slide b along the closest direction.
        1 | 4 => {
            let wa = placed(a, &pose_a);
            let wb = placed(b, &pose_b);
            if let Ok(Proximity::Separated {
                distance,
                point_a,
                point_b,
                ..
            }) = closest_features(a, &pose_a, b, &pose_b, None, MAX_ITERATIONS)
            {
                let n = (point_b - point_a) / distance;
                let extra = if kind == 4 { 0.05 * scale } else { 0.0 };
                pose_b.translation.vector -= n * (distance + extra);
                let _ = (wa, wb);
            }
        }
        // Face-parallel: a face of b faces a face of a, just above it.
        2 => {
            let fa = rng.random_range(0..a.faces().len());
            let fb = rng.random_range(0..b.faces().len());
            let na = pose_a.rotation * a.faces()[fa].normal;
            let rotation = rotation_between(&b.faces()[fb].normal, &-na);
            let twist = Quat::from_scaled_axis(na * rng.random_range(0.0..std::f64::consts::TAU));
            let orientation = twist * rotation;
            let centroid = |poly: &ConvexPolyhedron, f: usize| {
                let loop_: Vec<Vec3> = poly
                    .face_vertices(f as u32)
                    .map(|v| poly.vertices()[v as usize].coords)
                    .collect();
                loop_.iter().sum::<Vec3>() / loop_.len() as f64
            };
            let target =
                pose_a * Point::from(centroid(a, fa)) + na * rng.random_range(1e-6..0.2) * scale;
            let offset = orientation * centroid(b, fb);
            pose_b = Pose::from_parts((target.coords - offset).into(), orientation);
        }
        // Edge-parallel: an edge of b parallel to an edge of a, beside it.
        _ => {
            let ha = 2 * rng.random_range(0..a.edge_count()) as u32;
            let hb = 2 * rng.random_range(0..b.edge_count()) as u32;
            let ha = ha.min(a.half_edges()[ha as usize].twin);
            let dir = |poly: &ConvexPolyhedron, h: u32| {
                (poly.vertices()[poly.head(h) as usize]
                    - poly.vertices()[poly.half_edges()[h as usize].origin as usize])
                    .normalize()
            };
            let ua = pose_a.rotation * dir(a, ha);
            let ub = dir(b, hb);
            let orientation = rotation_between(&ub, &ua);
            let left = a.half_edges()[ha as usize].face;
            let right = a.half_edges()[a.half_edges()[ha as usize].twin as usize].face;
            let outward = (pose_a.rotation
                * (a.faces()[left as usize].normal + a.faces()[right as usize].normal))
                .normalize();
            let mid_a = pose_a
                * Point::from(
                    (a.vertices()[a.half_edges()[ha as usize].origin as usize].coords
                        + a.vertices()[a.head(ha) as usize].coords)
                        / 2.0,
                );
            let mid_b = orientation
                * ((b.vertices()[b.half_edges()[hb as usize].origin as usize].coords
                    + b.vertices()[b.head(hb) as usize].coords)
                    / 2.0);
            let target = mid_a + outward * rng.random_range(1e-6..0.3) * scale;
            pose_b = Pose::from_parts((target.coords - mid_b).into(), orientation);
        }
    }
    (pose_a, pose_b)
}

#[test]
fn ten_thousand_random_pairs_match_brute_force() {
    let mut rng = Pcg64::seed_from_u64(2024);
    let mut counts = [0usize; 5];
    let mut separated = 0;
    let mut penetrating = 0;
    let mut fallbacks = [0usize; 5];
    // Pairs pushed 5% past contact usually, though not always, overlap.
    let mut pushed_and_intersecting = 0;
    for trial in 0..10_000 {
        let a = random_polyhedron(&mut rng);
        let b = random_polyhedron(&mut rng);
        let kind = trial % 5;
        counts[kind] += 1;
        let (pose_a, pose_b) = configure(&mut rng, kind, &a, &b);
        let (wa, wb) = (placed(&a, &pose_a), placed(&b, &pose_b));
        let scale = size(&a) + size(&b);
        let (result, fell_back) = closest_features_or_search(&a, &pose_a, &b, &pose_b, None);
        fallbacks[kind] += usize::from(fell_back);
        let truly_intersecting = intersect(&wa, &wb, 1e-9 * scale);
        let what = format!(
            "trial {trial} (kind {kind}, {} and {} vertices)",
            a.vertices().len(),
            b.vertices().len()
        );
        match result {
            Proximity::Separated {
                distance,
                point_a,
                point_b,
                ..
            } => {
                assert!(
                    !truly_intersecting,
                    "{what}: intersecting pair reported separated"
                );
                let expected = brute_force_distance(&wa, &wb);
                assert!(
                    (distance - expected).abs() <= 1e-9 * expected + 1e-12 * scale,
                    "{what}: distance {distance} vs brute force {expected}"
                );
                // The closest points are on the surfaces and realise the distance.
                assert!((distance - (point_a - point_b).norm()).abs() <= 1e-12 * scale);
                assert!(
                    surface_offset(&wa, &point_a).abs() <= 1e-10 * scale,
                    "{what}"
                );
                assert!(
                    surface_offset(&wb, &point_b).abs() <= 1e-10 * scale,
                    "{what}"
                );
                separated += 1;
            }
            Proximity::Penetrating { .. } => {
                // Either truly intersecting, or touching to within rounding.
                if !truly_intersecting {
                    let d = brute_force_distance(&wa, &wb);
                    assert!(
                        d <= 1e-9 * scale,
                        "{what}: separated pair (d = {d}) reported penetrating"
                    );
                }
                penetrating += 1;
            }
        }
        if kind == 4 && truly_intersecting {
            pushed_and_intersecting += 1;
        }
        // Warm start: a slightly moved pair, from the previous features, agrees with a cold
        // query.
        let nudge = Pose::from_parts(
            Vec3::new(1e-3, -2e-3, 1.5e-3).into(),
            Quat::from_scaled_axis(Vec3::new(0.01, 0.02, -0.01)),
        );
        let moved_b = nudge * pose_b;
        let (warm, warm_fell_back) =
            closest_features_or_search(&a, &pose_a, &b, &moved_b, Some(result.features()));
        let (cold, cold_fell_back) = closest_features_or_search(&a, &pose_a, &b, &moved_b, None);
        fallbacks[kind] += usize::from(warm_fell_back) + usize::from(cold_fell_back);
        match (warm, cold) {
            (
                Proximity::Separated { distance: dw, .. },
                Proximity::Separated { distance: dc, .. },
            ) => assert!(
                (dw - dc).abs() <= 1e-9 * dc + 1e-12 * scale,
                "{what}: warm {dw} cold {dc}"
            ),
            (Proximity::Penetrating { .. }, Proximity::Penetrating { .. }) => {}
            (w, c) => {
                // Only a touching pair may come out either way.
                let d = brute_force_distance(&wa, &placed(&b, &moved_b));
                assert!(d <= 1e-9 * scale, "{what}: warm {w:?} vs cold {c:?}");
            }
        }
    }
    assert_eq!(counts, [2000; 5]);
    // V-Clip settles on its own except on pairs touching exactly (distance 0 to rounding), where
    // a few walks meet ties decided by rounding and fall back to the exhaustive search (66 of
    // 6000 such queries when this test was written; 62 since a vertex on a face's plane to
    // rounding counts as on it, issue 41 item 2).
    eprintln!("{separated} separated, {penetrating} penetrating; fallbacks by kind {fallbacks:?}");
    assert_eq!(
        [fallbacks[0], fallbacks[2], fallbacks[3], fallbacks[4]],
        [0; 4]
    );
    assert!(fallbacks[1] <= 200, "{fallbacks:?}");
    assert!(pushed_and_intersecting > 1800, "{pushed_and_intersecting}");
    assert!(
        separated > 6000 && penetrating > 2000,
        "{separated} separated, {penetrating} penetrating"
    );
}

#[test]
fn iteration_limit_is_reported_not_looped() {
    // A bound of one step cannot settle a cold start between distant polyhedra: the query must
    // return the error, never loop; the fallback search then gives the same answer as V-Clip
    // with a normal bound.
    let mut rng = Pcg64::seed_from_u64(5);
    let a = random_polyhedron(&mut rng);
    let b = random_polyhedron(&mut rng);
    let pose_b = Pose::translation(10.0, 0.0, 0.0);
    let result = closest_features(&a, &Pose::identity(), &b, &pose_b, None, 1);
    assert_eq!(result, Err(Unsettled::IterationLimit { iterations: 1 }));
    let settled =
        closest_features(&a, &Pose::identity(), &b, &pose_b, None, MAX_ITERATIONS).unwrap();
    let searched = exhaustive_search(&a, &Pose::identity(), &b, &pose_b);
    match (settled, searched) {
        (Proximity::Separated { distance: d1, .. }, Proximity::Separated { distance: d2, .. }) => {
            assert!((d1 - d2).abs() < 1e-12 * d2, "{d1} vs {d2}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn cube_above_cube_face_to_face() {
    // Two unit cubes, one 0.5 above the other: distance 0.5, closest features on the facing
    // faces (closed form).
    let cube = ConvexPolyhedron::from_points(
        &(0..8)
            .map(|i| {
                Point::new(
                    (i & 1) as f64 - 0.5,
                    ((i >> 1) & 1) as f64 - 0.5,
                    ((i >> 2) & 1) as f64 - 0.5,
                )
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let above = Pose::translation(0.2, -0.1, 1.5);
    let result = closest_features(&cube, &Pose::identity(), &cube, &above, None, 100).unwrap();
    let Proximity::Separated {
        distance,
        point_a,
        point_b,
        features,
    } = result
    else {
        panic!("{result:?}")
    };
    assert!((distance - 0.5).abs() < 1e-15);
    assert!((point_a.z - 0.5).abs() < 1e-15 && (point_b.z - 1.0).abs() < 1e-15);
    // Some face or edge of each lies in the facing planes.
    assert!(!matches!(features, (Feature::Face(_), Feature::Face(_))));
}
