//! Narrow phase: every pair of shape kinds against closed forms, independent numerics, or a
//! second algorithm.

mod common;

use std::sync::Arc;

use common::random::{in_unit_cube, pose_in_cube, random_hull};
use impulse::collision::gjk::{GjkResult, GjkSettings, gjk};
use impulse::collision::vclip::{Proximity, closest_features};
use impulse::collision::{Closest, CollisionModel, Convex, NarrowStats, PairCache, closest};
use impulse::dynamics::PlacedShape;
use impulse::geometry::{ConvexPolyhedron, Shape};
use impulse::math::{Point, Pose, Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn model(shape: Shape) -> CollisionModel {
    CollisionModel::from_shapes(&[PlacedShape::new(shape)])
}

fn distance(a: &CollisionModel, pose_a: &Pose, b: &CollisionModel, pose_b: &Pose) -> f64 {
    closest(
        a,
        pose_a,
        b,
        pose_b,
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .expect("bounded shapes")
    .distance
}

#[test]
fn gjk_agrees_with_vclip_on_polyhedra() {
    // Two independent algorithms for the same distance.
    let mut rng = Pcg64::seed_from_u64(17);
    let mut compared = 0;
    for _ in 0..2000 {
        let a = random_polyhedron(&mut rng);
        let b = random_polyhedron(&mut rng);
        let pose_a = pose_in_cube(&mut rng, 1.0);
        let pose_b = pose_in_cube(&mut rng, 4.0);
        let Ok(Proximity::Separated { distance, .. }) =
            closest_features(&a, &pose_a, &b, &pose_b, None, 10_000)
        else {
            continue;
        };
        let support_a = |d: &Vec3| pose_a * a.support(&(pose_a.rotation.inverse() * d));
        let support_b = |d: &Vec3| pose_b * b.support(&(pose_b.rotation.inverse() * d));
        let GjkResult::Separated { distance: g, .. } =
            gjk(&support_a, &support_b, &Vec3::x(), &GjkSettings::default())
        else {
            panic!("GJK says intersecting where V-Clip found distance {distance}");
        };
        assert!(
            (g - distance).abs() <= 1e-9 * distance + 1e-12,
            "GJK {g} vs V-Clip {distance}"
        );
        compared += 1;
    }
    assert!(compared > 1500);
}

#[test]
fn spheres_and_half_spaces_in_closed_form() {
    let ball = |r: f64| model(Shape::Sphere { radius: r });
    let at = |x: f64, y: f64, z: f64| Pose::translation(x, y, z);
    // |c_a − c_b| − r_a − r_b.
    let d = distance(
        &ball(1.0),
        &at(0.0, 0.0, 0.0),
        &ball(2.0),
        &at(3.0, 4.0, 0.0),
    );
    assert!((d - 2.0).abs() < 1e-14, "{d}");
    // Overlap: −(r_a + r_b − |c_a − c_b|).
    let d = distance(
        &ball(1.0),
        &at(0.0, 0.0, 0.0),
        &ball(2.0),
        &at(0.0, 2.5, 0.0),
    );
    assert!((d + 0.5).abs() < 1e-12, "{d}");
    // A ball over the ground (z ≤ 0), and a tilted ground.
    let ground = model(Shape::HalfSpace);
    let d = distance(&ball(0.5), &at(1.0, 2.0, 3.0), &ground, &Pose::identity());
    assert!((d - 2.5).abs() < 1e-14);
    let tilted = Pose::rotation(Vec3::x() * 0.3);
    let d = distance(&ball(0.5), &at(0.0, 1.0, 2.0), &ground, &tilted);
    let n = tilted.rotation * Vec3::z();
    assert!((d - (n.dot(&Vec3::new(0.0, 1.0, 2.0)) - 0.5)).abs() < 1e-14);
    // Ground as body a: the normal points from b (the ball) towards a (down).
    let c = closest(
        &ground,
        &Pose::identity(),
        &ball(0.5),
        &at(0.0, 0.0, 1.0),
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .unwrap();
    assert!((c.distance - 0.5).abs() < 1e-15 && (c.normal + Vec3::z()).norm() < 1e-15);
}

#[test]
fn sphere_against_box_in_closed_form() {
    // Distance from a point to an axis-aligned box: the norm of the per-axis excess.
    let mut rng = Pcg64::seed_from_u64(3);
    let h = Vec3::new(0.5, 1.0, 1.5);
    let cube = model(Shape::Box { half_extents: h });
    let ball = model(Shape::Sphere { radius: 0.25 });
    for _ in 0..500 {
        let c = Vec3::new(
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
        );
        let excess = Vec3::new(
            (c.x.abs() - h.x).max(0.0),
            (c.y.abs() - h.y).max(0.0),
            (c.z.abs() - h.z).max(0.0),
        );
        if excess.norm() < 0.3 {
            continue;
        }
        let d = distance(
            &ball,
            &Pose::translation(c.x, c.y, c.z),
            &cube,
            &Pose::identity(),
        );
        assert!(
            (d - (excess.norm() - 0.25)).abs() < 1e-12,
            "{d} vs {}",
            excess.norm() - 0.25
        );
    }
}

/// Distance from a point to an ellipsoid by the Lagrange condition (Eberly, "Distance from a
/// point to an ellipse, an ellipsoid, or a hyperellipsoid"): the closest point is
/// x_i = e_i² y_i / (t + e_i²) where t > 0 solves Σ (e_i y_i / (t + e_i²))² = 1 (bisection).
fn point_ellipsoid_distance(y: &Vec3, e: &Vec3) -> f64 {
    let f = |t: f64| {
        (0..3)
            .map(|i| (e[i] * y[i] / (t + e[i] * e[i])).powi(2))
            .sum::<f64>()
            - 1.0
    };
    let (mut lo, mut hi) = (0.0, y.norm() * e.max() + 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    let x = Vec3::new(
        e.x * e.x * y.x / (t + e.x * e.x),
        e.y * e.y * y.y / (t + e.y * e.y),
        e.z * e.z * y.z / (t + e.z * e.z),
    );
    (x - y).norm()
}

#[test]
fn ellipsoid_distance_matches_the_lagrange_solution() {
    let mut rng = Pcg64::seed_from_u64(5);
    let radii = Vec3::new(2.0, 1.0, 0.5);
    let ellipsoid = model(Shape::Ellipsoid { radii });
    let ball = model(Shape::Sphere { radius: 0.1 });
    for _ in 0..300 {
        let pose = pose_in_cube(&mut rng, 0.5);
        let c = Vec3::new(
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
        );
        let local = pose.inverse() * Point::from(c);
        let inside = (local.coords.component_div(&radii)).norm() < 1.0;
        if inside {
            continue;
        }
        let expected = point_ellipsoid_distance(&local.coords, &radii) - 0.1;
        if expected < 0.05 {
            continue;
        }
        let d = distance(&ball, &Pose::translation(c.x, c.y, c.z), &ellipsoid, &pose);
        // GJK converges (not terminates) on curved shapes: 1e-7 relative.
        assert!(
            (d - expected).abs() < 1e-7 * expected.max(1.0),
            "{d} vs {expected}"
        );
    }
}

#[test]
fn cylinder_distance_matches_closed_forms() {
    let mut rng = Pcg64::seed_from_u64(7);
    let (radius, half_height) = (0.6, 1.1);
    let cylinder = model(Shape::Cylinder {
        radius,
        half_height,
    });
    let ball = model(Shape::Sphere { radius: 0.05 });
    for _ in 0..300 {
        let pose = pose_in_cube(&mut rng, 0.5);
        let c = Vec3::new(
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
        );
        let local = pose.inverse() * Point::from(c);
        // Point to cylinder: radial and axial excesses combine like a box in (r, z).
        let radial = (local.x.hypot(local.y) - radius).max(0.0);
        let axial = (local.z.abs() - half_height).max(0.0);
        let expected = radial.hypot(axial) - 0.05;
        if expected < 0.05 {
            continue;
        }
        let d = distance(&ball, &Pose::translation(c.x, c.y, c.z), &cylinder, &pose);
        assert!(
            (d - expected).abs() < 1e-7 * expected.max(1.0),
            "{d} vs {expected}"
        );
    }
    // Two parallel cylinders side by side: centre distance minus radii.
    let d = distance(
        &cylinder,
        &Pose::identity(),
        &cylinder,
        &Pose::translation(2.0, 0.5, 0.3),
    );
    assert!((d - (2.0f64.hypot(0.5) - 1.2)).abs() < 1e-9, "{d}");
    // End to end along the axis: the gap between the caps.
    let d = distance(
        &cylinder,
        &Pose::identity(),
        &cylinder,
        &Pose::translation(0.1, 0.0, 2.7),
    );
    assert!((d - 0.5).abs() < 1e-9, "{d}");
}

#[test]
fn cylinders_against_dense_sampling() {
    // Crossed cylinders in random poses: the distance is bracketed by the sampled surface
    // distance (an upper bound that converges as the sampling refines).
    let mut rng = Pcg64::seed_from_u64(9);
    let (r, h) = (0.4, 0.8);
    let cylinder = model(Shape::Cylinder {
        radius: r,
        half_height: h,
    });
    let samples = |pose: &Pose| -> Vec<Point> {
        let mut out = Vec::new();
        for i in 0..120 {
            let a = i as f64 / 120.0 * std::f64::consts::TAU;
            for j in 0..=40 {
                let z = -h + 2.0 * h * j as f64 / 40.0;
                out.push(pose * Point::new(r * a.cos(), r * a.sin(), z));
            }
            for k in 1..20 {
                let rr = r * k as f64 / 20.0;
                for z in [-h, h] {
                    out.push(pose * Point::new(rr * a.cos(), rr * a.sin(), z));
                }
            }
        }
        out
    };
    for _ in 0..10 {
        let pose_a = pose_in_cube(&mut rng, 0.2);
        let mut pose_b = pose_in_cube(&mut rng, 0.2);
        pose_b.translation.vector += Vec3::new(2.5, 0.0, 0.0);
        let d = distance(&cylinder, &pose_a, &cylinder, &pose_b);
        let (sa, sb) = (samples(&pose_a), samples(&pose_b));
        let sampled = sa
            .iter()
            .flat_map(|p| sb.iter().map(move |q| (p - q).norm()))
            .fold(f64::INFINITY, f64::min);
        // Sample spacing ≈ 2πr/120 ≈ 0.021: the sampled distance exceeds the true one by at
        // most about half a spacing on each surface.
        assert!(
            d <= sampled + 1e-9 && sampled - d < 0.03,
            "{d} vs sampled {sampled}"
        );
    }
}

#[test]
fn capsules_in_closed_form() {
    let capsule = model(Shape::Capsule {
        radius: 0.3,
        half_height: 1.0,
    });
    // Parallel, side by side: centre-line distance minus radii.
    let d = distance(
        &capsule,
        &Pose::identity(),
        &capsule,
        &Pose::translation(1.5, 0.0, 0.4),
    );
    assert!((d - 0.9).abs() < 1e-14, "{d}");
    // End to end: cap to cap.
    let d = distance(
        &capsule,
        &Pose::identity(),
        &capsule,
        &Pose::translation(0.0, 0.0, 3.0),
    );
    assert!((d - 0.4).abs() < 1e-14, "{d}");
    // Crossed at right angles, one above the other: segment distance 1.2 minus radii.
    let crossed = Pose::from_parts(
        Vec3::new(0.0, 0.0, 0.0).into(),
        Quat::from_scaled_axis(Vec3::x() * std::f64::consts::FRAC_PI_2),
    );
    let mut above = crossed;
    above.translation.vector = Vec3::new(1.2, 0.0, 0.0);
    let d = distance(&capsule, &Pose::identity(), &capsule, &above);
    assert!((d - 0.6).abs() < 1e-14, "{d}");
}

#[test]
fn penetration_depths() {
    // Overlapping boxes, axis-aligned: depth is the smallest overlap along the axes.
    let cube = model(Shape::Box {
        half_extents: Vec3::repeat(1.0),
    });
    let c = closest(
        &cube,
        &Pose::identity(),
        &cube,
        &Pose::translation(1.8, 0.5, 0.3),
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .unwrap();
    assert!((c.distance + 0.2).abs() < 1e-9, "{c:?}");
    assert!(
        (c.normal + Vec3::x()).norm() < 1e-9,
        "separate a along −x: {c:?}"
    );
    // A ball sunk into the ground.
    let ground = model(Shape::HalfSpace);
    let ball = model(Shape::Sphere { radius: 1.0 });
    let d = distance(
        &ball,
        &Pose::translation(0.0, 0.0, 0.7),
        &ground,
        &Pose::identity(),
    );
    assert!((d + 0.3).abs() < 1e-15);
    // An ellipsoid overlapping a box face: depth by EPA against the closed form (the
    // ellipsoid's lowest point below the face).
    let ellipsoid = model(Shape::Ellipsoid {
        radii: Vec3::new(2.0, 1.0, 0.5),
    });
    let d = distance(
        &ellipsoid,
        &Pose::translation(0.0, 0.0, 1.3),
        &cube,
        &Pose::identity(),
    );
    assert!((d + 0.2).abs() < 1e-6, "{d}");
}

#[test]
fn non_convex_bodies_take_the_closest_piece_pair() {
    // Random bodies of many parts: the tree walk must find the same distance as trying every
    // part pair.
    let mut rng = Pcg64::seed_from_u64(21);
    let random_body = |rng: &mut Pcg64| {
        let parts: Vec<PlacedShape> = (0..rng.random_range(2..12))
            .map(|i| {
                let shape = match i % 3 {
                    0 => Shape::Sphere {
                        radius: rng.random_range(0.1..0.4),
                    },
                    1 => Shape::Box {
                        half_extents: Vec3::new(
                            rng.random_range(0.1..0.4),
                            rng.random_range(0.1..0.4),
                            rng.random_range(0.1..0.4),
                        ),
                    },
                    _ => Shape::Convex(Arc::new(random_polyhedron(rng))),
                };
                PlacedShape {
                    shape,
                    pose: pose_in_cube(rng, 2.0),
                    density: None,
                }
            })
            .collect();
        parts
    };
    for _ in 0..100 {
        let parts_a = random_body(&mut rng);
        let parts_b = random_body(&mut rng);
        let (ma, mb) = (
            CollisionModel::from_shapes(&parts_a),
            CollisionModel::from_shapes(&parts_b),
        );
        let pose_a = pose_in_cube(&mut rng, 1.0);
        let pose_b = pose_in_cube(&mut rng, 6.0);
        let tree = distance(&ma, &pose_a, &mb, &pose_b);
        let brute = parts_a
            .iter()
            .flat_map(|pa| {
                parts_b.iter().map(move |pb| {
                    distance(
                        &CollisionModel::from_shapes(std::slice::from_ref(pa)),
                        &pose_a,
                        &CollisionModel::from_shapes(std::slice::from_ref(pb)),
                        &pose_b,
                    )
                })
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            (tree - brute).abs() < 1e-12,
            "tree {tree} vs all pairs {brute}"
        );
    }
}

/// Regression: a ball straight above a box's edge line (x = 1 of the cube [−1, 1]³, at
/// y = 0.3), 0.25 above its top face. GJK's simplex then holds the origin exactly on an edge
/// of a triangle; its subalgorithm took the zero weight for "outside", fell back to a lone
/// vertex, and the distance came out 0.61. Closed form: 1.5 − 1 − 0.25 = 0.25.
#[test]
fn ball_above_a_box_edge_line_gets_its_height() {
    let cube = model(Shape::Box {
        half_extents: Vec3::new(1.0, 1.0, 1.0),
    });
    let ball = model(Shape::Sphere { radius: 0.25 });
    for (x, y) in [(1.0, 0.3), (-1.0, 0.3), (0.3, 1.0), (1.0, 1.0), (0.0, 0.0)] {
        let d = distance(
            &ball,
            &Pose::translation(x, y, 1.5),
            &cube,
            &Pose::identity(),
        );
        assert!((d - 0.25).abs() < 1e-12, "ball at ({x}, {y}, 1.5): {d}");
        let d = distance(
            &cube,
            &Pose::identity(),
            &ball,
            &Pose::translation(x, y, 1.5),
        );
        assert!(
            (d - 0.25).abs() < 1e-12,
            "ball at ({x}, {y}, 1.5), swapped: {d}"
        );
    }
}

// The flat-face shortcut: a bounded part over a polyhedron face or a cylinder's end cap is
// settled exactly (distance to the face's plane) when its lowest point projects into the face.

/// The narrow phase's GJK path for one pair of parts, called directly: GJK between the cores
/// with the margins added back, as `narrow::part_pair` does when the shortcut does not apply.
/// A placed part's core support point along the world direction `d`.
fn core_support(convex: &Convex, pose: &Pose, d: &Vec3) -> Point {
    pose * convex.core_support(&(pose.rotation.inverse() * d))
}

/// Returns (distance, point_a, point_b, normal from b towards a).
fn gjk_closest(a: &Convex, pose_a: &Pose, b: &Convex, pose_b: &Pose) -> (f64, Point, Point, Vec3) {
    let core_a = |d: &Vec3| core_support(a, pose_a, d);
    let core_b = |d: &Vec3| core_support(b, pose_b, d);
    let initial = pose_a.translation.vector - pose_b.translation.vector;
    match gjk(&core_a, &core_b, &initial, &GjkSettings::default()) {
        GjkResult::Separated {
            distance,
            point_a,
            point_b,
            direction,
        } => (
            distance - a.margin() - b.margin(),
            point_a - direction * a.margin(),
            point_b + direction * b.margin(),
            direction,
        ),
        GjkResult::Intersecting(_) => panic!("separated parts reported intersecting"),
    }
}

/// The narrow phase's answer and whether the flat-face shortcut gave it.
fn narrow_query(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    cache: &mut PairCache,
) -> (Closest, bool) {
    let mut stats = NarrowStats::default();
    let found = closest(a, pose_a, b, pose_b, cache, &mut stats).expect("bounded shapes");
    (found, stats.flat_face_contacts == 1)
}

/// A flat face of a random box or cylinder, own frame: the part, the face's outward normal, a
/// point of the face's plane (up to 30 % beyond the face in each direction) and how far inside
/// the face that point is (negative: outside).
fn random_flat_face(rng: &mut Pcg64) -> (Shape, Vec3, Point, f64) {
    let side = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
    if rng.random_bool(0.5) {
        let h = Vec3::new(
            rng.random_range(0.3..2.0),
            rng.random_range(0.3..2.0),
            rng.random_range(0.3..2.0),
        );
        let axis = rng.random_range(0..3);
        let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut point = Point::origin();
        point[axis] = side * h[axis];
        point[i] = rng.random_range(-1.3..1.3) * h[i];
        point[j] = rng.random_range(-1.3..1.3) * h[j];
        let mut normal = Vec3::zeros();
        normal[axis] = side;
        let inside = (h[i] - point[i].abs()).min(h[j] - point[j].abs());
        (Shape::Box { half_extents: h }, normal, point, inside)
    } else {
        let (radius, half_height) = (rng.random_range(0.5..2.0), rng.random_range(0.05..1.0));
        let rho = radius * 1.3 * rng.random_range(0.0f64..1.0).sqrt();
        let angle = rng.random_range(0.0..std::f64::consts::TAU);
        let point = Point::new(rho * angle.cos(), rho * angle.sin(), side * half_height);
        (
            Shape::Cylinder {
                radius,
                half_height,
            },
            Vec3::z() * side,
            point,
            radius - rho,
        )
    }
}

fn random_curved(rng: &mut Pcg64) -> Shape {
    match rng.random_range(0..4) {
        0 => Shape::Ellipsoid {
            radii: Vec3::new(
                rng.random_range(0.2..2.0),
                rng.random_range(0.2..2.0),
                rng.random_range(0.2..2.0),
            ),
        },
        1 => Shape::Cylinder {
            radius: rng.random_range(0.1..1.5),
            half_height: rng.random_range(0.02..1.0),
        },
        2 => Shape::Capsule {
            radius: rng.random_range(0.05..0.5),
            half_height: rng.random_range(0.1..1.0),
        },
        _ => Shape::Sphere {
            radius: rng.random_range(0.05..1.0),
        },
    }
}

/// Pose of `convex` (own rotation `rotation` relative to the flat part) such that its lowest
/// point along −`normal` lies `gap` beyond `point`, all in the flat part's frame.
fn place_over(convex: &Convex, rotation: Quat, normal: &Vec3, point: &Point, gap: f64) -> Pose {
    let lowest = rotation * convex.support(&(rotation.inverse() * -normal)).coords;
    Pose::from_parts((point + normal * gap - lowest).into(), rotation)
}

/// GJK's relative tolerance (`GjkSettings::default().relative_tolerance`): it stops when the
/// Frank–Wolfe gap |v|² − v·w falls below τ|v|², v being the core-to-core vector.
const GJK_TOLERANCE: f64 = 1e-12;

#[test]
fn flat_face_shortcut_agrees_with_gjk() {
    // Curved parts over box faces and cylinder caps, either body first, at gaps from 1e-9 to 3
    // and with the lowest point projecting up to 30 % beyond the face: the placement makes the
    // true distance known (the gap) whenever the lowest point projects into the face.
    let mut rng = Pcg64::seed_from_u64(31);
    let (mut eligible_poses, mut accepted_inside, mut compared_far) = (0, 0, 0);
    for _ in 0..6000 {
        let (flat_shape, normal, point, inside) = random_flat_face(&mut rng);
        let curved_shape = random_curved(&mut rng);
        let curved_has_flat_face = matches!(curved_shape, Shape::Cylinder { .. });
        // A ball or capsule over a polyhedron is left to GJK, exact there (a point or
        // segment core against a polytope).
        let left_to_gjk = matches!(flat_shape, Shape::Box { .. })
            && matches!(curved_shape, Shape::Sphere { .. } | Shape::Capsule { .. });
        let smooth = matches!(curved_shape, Shape::Ellipsoid { .. } | Shape::Sphere { .. });
        let (flat, curved) = (model(flat_shape), model(curved_shape));
        let gap = 10f64.powf(rng.random_range(-9.0..0.5));
        let rotation = pose_in_cube(&mut rng, 1.0).rotation;
        let flat_pose = pose_in_cube(&mut rng, 3.0);
        let curved_pose =
            flat_pose * place_over(&curved.parts[0].convex, rotation, &normal, &point, gap);
        let flat_is_a = rng.random_bool(0.5);
        let (ma, pa, mb, pb) = if flat_is_a {
            (&flat, flat_pose, &curved, curved_pose)
        } else {
            (&curved, curved_pose, &flat, flat_pose)
        };
        let (found, shortcut) = narrow_query(ma, &pa, mb, &pb, &mut PairCache::default());
        let (convex_a, convex_b) = (&ma.parts[0].convex, &mb.parts[0].convex);
        let (d, point_a, point_b, n) = gjk_closest(convex_a, &pa, convex_b, &pb);
        // Rounding: a few hundred ulps of the coordinates (poses within 3√3, parts 2√3 across).
        let rounding = 1e-14 * (1.0 + flat_pose.translation.vector.norm());
        if inside > 0.0 && !left_to_gjk {
            eligible_poses += 1;
        }
        assert!(!(shortcut && left_to_gjk));
        if !shortcut {
            continue;
        }
        if !curved_has_flat_face {
            // Never accept a lowest point projecting outside the face.
            assert!(inside > 0.0, "accepted a point {inside} outside the face");
        }
        if inside > 0.0 {
            accepted_inside += 1;
            // Exact: the constructed distance and closest points, to rounding.
            let (on_flat, on_curved) = (flat_pose * point, flat_pose * (point + normal * gap));
            let towards_curved = flat_pose.rotation * normal;
            let (want_a, want_b, want_normal) = if flat_is_a {
                (on_flat, on_curved, -towards_curved)
            } else {
                (on_curved, on_flat, towards_curved)
            };
            assert!(
                (found.distance - gap).abs() <= rounding,
                "distance {} vs constructed gap {gap}",
                found.distance
            );
            // Points by the support function along a rounded direction: a cylinder's rim
            // point turns by about ε/sin α for an axis α off the normal, so 1e-12 of the
            // coordinates holds for α above about 0.02°, as in these random poses.
            assert!(
                (found.point_a - want_a).norm() <= 100.0 * rounding
                    && (found.point_b - want_b).norm() <= 100.0 * rounding,
                "points {:?} {:?} vs {want_a:?} {want_b:?}",
                found.point_a,
                found.point_b
            );
            assert!((found.normal - want_normal).norm() <= 1e-15);
        }
        // GJK's points are points of the parts, so its distance bounds the true one from
        // above: the exact distance can only be smaller, up to rounding.
        assert!(
            found.distance <= d + rounding,
            "shortcut {} above GJK {d}",
            found.distance
        );
        // Where GJK stops by its tolerance τ its distance is within τ|v| of the true one
        // (|v| = distance + margins, the core distance), |v − v*|² ≤ |v|² − |v*|² ≤ 2τ|v|²
        // puts its direction within 2√(2τ) of the normal, and its point of C lies in the cap
        // of C within τ|v| of C's lowest plane: at most √(2Rτ|v|) from the true point for a
        // surface whose radii of curvature are at most R (an ellipsoid's a_max²/a_min ≤ 20
        // here), plus the direction's error over the margin and for F's point. Near touching
        // GJK stops instead by its guards against rounding (its distance was measured off by
        // 5e-9 |v| at gaps of 1e-4 and by 0.8 |v| at 1e-9, its points by up to 1e-4), so it
        // is held to its tolerance only at gaps above 1e-2; the constructed answer above is
        // the reference there.
        let v = d + convex_a.margin() + convex_b.margin();
        if gap > 1e-2 {
            compared_far += 1;
            assert!(
                (found.distance - d).abs() <= 1e-9 * v,
                "shortcut {} vs GJK {d}",
                found.distance
            );
            let direction_error = 2.0 * (2.0 * GJK_TOLERANCE).sqrt();
            assert!((found.normal - n).norm() <= direction_error);
            if smooth {
                let cap = (2.0 * 20.0 * GJK_TOLERANCE * v).sqrt() + direction_error * v;
                assert!(
                    (found.point_a - point_a).norm() <= cap
                        && (found.point_b - point_b).norm() <= cap,
                    "points {:?} {:?} vs GJK {point_a:?} {point_b:?}",
                    found.point_a,
                    found.point_b
                );
            }
        }
    }
    // Most eligible poses with the lowest point over the face are settled by the shortcut.
    assert!(
        accepted_inside * 100 >= eligible_poses * 95,
        "{accepted_inside} of {eligible_poses}"
    );
    assert!(compared_far > 500, "{compared_far}");
}

#[test]
fn ellipsoid_over_a_box_face_in_closed_form() {
    // The rattleback on its table: semi-axes (10, 2, 1.5) over the top face z = 0 of a
    // 60 × 80 × 2 box. Upright at centre height h the distance is h − c; tilted by θ about its
    // long axis the lowest point is √(b² sin²θ + c² cos²θ) below the centre (the support
    // function of the tilted ellipse in the y-z plane).
    let table = model(Shape::Box {
        half_extents: Vec3::new(30.0, 40.0, 1.0),
    });
    let table_pose = Pose::translation(0.0, 0.0, -1.0);
    let (b, c) = (2.0, 1.5);
    let rattleback = model(Shape::Ellipsoid {
        radii: Vec3::new(10.0, b, c),
    });
    for &gap in &[1e-9, 1e-6, 0.02, 3.0] {
        for &tilt in &[0.0f64, 0.01, 0.3] {
            let depth = (b * b * tilt.sin().powi(2) + c * c * tilt.cos().powi(2)).sqrt();
            let height = depth + gap;
            let pose = Pose::from_parts(
                Vec3::new(3.0, -15.0, height).into(),
                Quat::from_scaled_axis(Vec3::x() * tilt),
            );
            let expected = height - depth;
            for rattleback_first in [true, false] {
                let (found, shortcut) = if rattleback_first {
                    narrow_query(
                        &rattleback,
                        &pose,
                        &table,
                        &table_pose,
                        &mut PairCache::default(),
                    )
                } else {
                    narrow_query(
                        &table,
                        &table_pose,
                        &rattleback,
                        &pose,
                        &mut PairCache::default(),
                    )
                };
                assert!(shortcut);
                // Exact to rounding: a few ulps of the coordinates (about 15).
                assert!(
                    (found.distance - expected).abs() <= 8.0 * f64::EPSILON * 16.0,
                    "height {height} tilt {tilt}: {} vs {expected}",
                    found.distance
                );
                let (on_ellipsoid, on_table, up) = if rattleback_first {
                    (found.point_a, found.point_b, found.normal)
                } else {
                    (found.point_b, found.point_a, -found.normal)
                };
                assert_eq!(up, Vec3::z());
                assert!(on_table.z.abs() <= 1e-15 && (on_ellipsoid.z - expected).abs() < 1e-13);
                assert!((on_ellipsoid.xy() - on_table.xy()).norm() == 0.0);
                // Tilted about x, the lowest point moves along y only.
                assert!((on_ellipsoid.x - 3.0).abs() < 1e-13);
                if tilt == 0.0 {
                    // Upright: the lowest point is exactly c below the centre, the
                    // subtraction h − c is exact (Sterbenz), and so is the answer.
                    assert_eq!(found.distance, height - c);
                }
            }
        }
    }
}

#[test]
fn coins_on_a_plate_and_on_each_other_in_closed_form() {
    // A coin (cylinder r, half-thickness t) tilted by θ over a plate's top cap: its lowest
    // point is r sin θ + t cos θ below its centre. One pair cache throughout, as in a run.
    let (r, t) = (1.213, 0.0875);
    let coin = model(Shape::Cylinder {
        radius: r,
        half_height: t,
    });
    let plate = model(Shape::Cylinder {
        radius: 15.0,
        half_height: 0.5,
    });
    let plate_pose = Pose::translation(0.0, 0.0, -0.5);
    let mut cache = PairCache::default();
    for &tilt in &[0.05, 0.4, 1.2] {
        for &height in &[1e-7, 0.003, 0.5] {
            let depth = r * f64::sin(tilt) + t * f64::cos(tilt);
            let pose = Pose::from_parts(
                Vec3::new(4.0, 2.0, height + depth).into(),
                Quat::from_scaled_axis(Vec3::y() * tilt),
            );
            let (found, shortcut) = narrow_query(&plate, &plate_pose, &coin, &pose, &mut cache);
            assert!(shortcut);
            assert!(
                (found.distance - height).abs() <= 8.0 * f64::EPSILON * 8.0,
                "{} vs {height}",
                found.distance
            );
            // The plate is body a: the normal points from the coin down to the plate.
            assert_eq!(found.normal, -Vec3::z());
            assert!(found.point_a.z.abs() <= 1e-15);
            // The lowest rim point, on the side the coin tilts towards (+x goes down turning
            // by +θ about y).
            let rim = pose * Point::new(r, 0.0, -t);
            assert!((found.point_b - rim).norm() < 1e-13, "{:?}", found.point_b);
        }
    }
    // Coin on coin, both orders: both have caps, so both roles are tried; the contact is the
    // tilted upper coin's rim over the lower one's upward cap (its top cap, or its bottom cap
    // when it lies upside down).
    let lower_flipped = Pose::rotation(Vec3::x() * std::f64::consts::PI);
    for lower_pose in [Pose::identity(), lower_flipped] {
        let tilt = 0.2;
        let gap = 0.001;
        let depth = r * f64::sin(tilt) + t * f64::cos(tilt);
        let upper = Pose::from_parts(
            Vec3::new(0.3, 0.5, t + gap + depth).into(),
            Quat::from_scaled_axis(Vec3::x() * tilt),
        );
        for upper_first in [true, false] {
            let (found, shortcut) = if upper_first {
                narrow_query(&coin, &upper, &coin, &lower_pose, &mut PairCache::default())
            } else {
                narrow_query(&coin, &lower_pose, &coin, &upper, &mut PairCache::default())
            };
            assert!(shortcut);
            assert!((found.distance - gap).abs() < 1e-15, "{}", found.distance);
            let up = if upper_first { Vec3::z() } else { -Vec3::z() };
            assert!((found.normal - up).norm() < 1e-15, "{:?}", found.normal);
        }
    }
}

#[test]
fn rocking_coins_touching_at_curved_features_agree_with_gjk() {
    // Two quarters 1e-4 to 0.03 cm apart in random tilts, the upper one rocking between
    // queries, one pair cache throughout, as in a run. Where the contact is rim on rim or rim
    // on side, `collision::cylinders` answers from the cache (Newton's method, certified by
    // the duality gap); every answer must match GJK's on the same pair.
    let (r, t) = (1.213, 0.0875);
    let shape = Shape::Cylinder {
        radius: r,
        half_height: t,
    };
    let coin = model(shape.clone());
    let convex = Convex::Cylinder {
        radius: r,
        half_height: t,
    };
    let mut rng = Pcg64::seed_from_u64(31);
    let (mut queries, mut curved) = (0, 0);
    for _ in 0..40 {
        let lower = pose_in_cube(&mut rng, 0.1);
        let mut upper = pose_in_cube(&mut rng, 0.1);
        let direction = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        upper.translation.vector = direction.normalize() * 3.0;
        // Move the upper coin to `gap` from the lower along the line of closest approach.
        let (d, _, _, n) = gjk_closest(&convex, &upper, &convex, &lower);
        let gap = 10f64.powf(rng.random_range(-4.0..-1.5));
        upper.translation.vector -= n * (d - gap);
        let mut cache = PairCache::default();
        let axis = Vec3::new(
            rng.random_range(-1.0..1.0),
            1.0,
            rng.random_range(-1.0..1.0),
        );
        for k in 0..20 {
            // Rim points move by at most a fifth of the gap: the coins stay apart.
            let amplitude = 0.2 * gap / r;
            let rock =
                Quat::from_scaled_axis(axis.normalize() * (k as f64 * 0.7).sin() * amplitude);
            let pose = Pose::from_parts(upper.translation, rock * upper.rotation);
            let (expected, _, _, normal) = gjk_closest(&convex, &pose, &convex, &lower);
            let mut stats = NarrowStats::default();
            let found = closest(&coin, &pose, &coin, &lower, &mut cache, &mut stats).unwrap();
            queries += 1;
            curved += stats.curved_contacts;
            // GJK stops within 1e-12 of the distance (relative), but its weights on a side's
            // straight line carry rounding: it came out 2.6e-13 cm short of a certified answer
            // here, so 1e-12 cm more.
            let error = (found.distance - expected).abs();
            assert!(
                error < 1e-11 * expected + 1e-12,
                "{} vs {expected}",
                found.distance
            );
            assert!(
                found.normal.angle(&normal) < 1e-5,
                "normal {:?}",
                found.normal
            );
            assert!(((found.point_a - found.point_b).norm() - found.distance).abs() < 1e-13);
            // Optimality without GJK: the points lie on the coins, and the planes through them
            // square to the normal support the coins (nothing of either crosses its plane by
            // more than rounding), so no two points of the coins are closer.
            for (point, pose) in [(found.point_a, &pose), (found.point_b, &lower)] {
                let local = pose.inverse_transform_point(&point);
                assert!(local.z.abs() <= t * (1.0 + 1e-12), "{local:?} off the coin");
                assert!(
                    local.x.hypot(local.y) <= r * (1.0 + 1e-12),
                    "{local:?} off the coin"
                );
            }
            let n = found.normal;
            let beyond_a = n.dot(&(found.point_a - core_support(&convex, &pose, &-n)));
            let beyond_b = n.dot(&(core_support(&convex, &lower, &n) - found.point_b));
            assert!(beyond_a.max(beyond_b) < 1e-13, "{beyond_a:e} {beyond_b:e}");
        }
    }
    // Most random tilts touch rim to rim or rim to side (the rest: a cap, by the flat-face
    // shortcut); after each pair's first query the cache lets the curved solver answer.
    assert!(
        curved * 2 > queries,
        "{curved} of {queries} queries by the curved solver"
    );
}

#[test]
fn flat_face_shortcut_rejects_points_beyond_the_face() {
    // A round ellipsoid (a ball, but with an ellipsoid's curved core, so the shortcut is tried;
    // its lowest point is exactly below its centre) whose lowest point is δ beside the top
    // face's edge x = 1 of the cube [−1, 1]³: rejected however small δ, accepted once it is
    // inside by more than the test's slack (about 1e-12 of the coordinates). Rejected poses
    // go to GJK, which finds the edge.
    // (Not δ = 0: with the ball's centre exactly over the edge GJK itself goes wrong, its
    // triangle step dropping to a vertex when the origin projects exactly onto an edge.)
    let cube = model(Shape::Box {
        half_extents: Vec3::repeat(1.0),
    });
    let ball = model(Shape::Ellipsoid {
        radii: Vec3::repeat(0.25),
    });
    for &delta in &[1e-2, 1e-6, 1e-9, 1e-12, 1e-15] {
        for (offset, accept) in [(delta, false), (-delta, delta >= 1e-9)] {
            let pose = Pose::translation(1.0 + offset, 0.3, 1.5);
            let (found, shortcut) = narrow_query(
                &ball,
                &pose,
                &cube,
                &Pose::identity(),
                &mut PairCache::default(),
            );
            assert_eq!(shortcut, accept, "offset {offset}");
            // Beside the face: to the edge line x = 1, z = 1 (the centre is 0.5 above the
            // face's plane), minus the radius; GJK on the curved core to its tolerance.
            let expected = offset.max(0.0).hypot(0.5) - 0.25;
            assert!((found.distance - expected).abs() < 1e-11, "{found:?}");
        }
    }
    // An ellipsoid hanging over the edge: its centre is over the face, but tilted about y its
    // lowest point lies beyond x = 1. Not settled by the face; GJK gives the distance to the
    // edge, larger than the lowest point's height over the face's plane.
    let ellipsoid = model(Shape::Ellipsoid {
        radii: Vec3::new(2.0, 0.5, 0.3),
    });
    let convex = &ellipsoid.parts[0].convex;
    let rotation = Quat::from_scaled_axis(Vec3::y() * 0.4);
    let lowest = rotation * convex.support(&(rotation.inverse() * -Vec3::z())).coords;
    assert!(
        lowest.x > 0.3,
        "tilted so that its lowest point is well off-centre"
    );
    let pose = Pose::from_parts(
        Vec3::new(1.2 - lowest.x, 0.0, 1.0 + 0.1 - lowest.z).into(),
        rotation,
    );
    assert!(
        pose.translation.vector.x < 1.0,
        "the centre is over the face"
    );
    for ellipsoid_first in [true, false] {
        let (found, shortcut) = if ellipsoid_first {
            narrow_query(
                &ellipsoid,
                &pose,
                &cube,
                &Pose::identity(),
                &mut PairCache::default(),
            )
        } else {
            narrow_query(
                &cube,
                &Pose::identity(),
                &ellipsoid,
                &pose,
                &mut PairCache::default(),
            )
        };
        assert!(!shortcut);
        let (d, ..) = if ellipsoid_first {
            gjk_closest(convex, &pose, &cube.parts[0].convex, &Pose::identity())
        } else {
            gjk_closest(&cube.parts[0].convex, &Pose::identity(), convex, &pose)
        };
        assert_eq!(found.distance, d);
        assert!(d > 0.1 + 1e-3, "{d}");
    }
}

#[test]
fn flat_face_shortcut_follows_the_cached_direction() {
    // A round ellipsoid rolling over a box's top face, queried again and again with one pair
    // cache: the first query picks the face by its centre, later ones by the cached normal; each
    // agrees with a fresh query. Past the edge it falls back to GJK, whose direction then
    // brings the shortcut back once the ball is over the face again.
    let cube = model(Shape::Box {
        half_extents: Vec3::new(2.0, 1.0, 0.5),
    });
    let ball = model(Shape::Ellipsoid {
        radii: Vec3::repeat(0.3),
    });
    let mut cache = PairCache::default();
    let mut stats = NarrowStats::default();
    // Never exactly over the edge x = 2 (see the δ = 0 remark there).
    let xs = (0..60)
        .map(|i| -1.55 + 0.1 * f64::from(i))
        .chain((0..60).map(|i| 4.35 - 0.1 * f64::from(i)));
    for x in xs {
        let pose = Pose::translation(x, 0.2, 0.5 + 0.3 + 0.01);
        let before = stats.flat_face_contacts;
        let cached = closest(
            &ball,
            &pose,
            &cube,
            &Pose::identity(),
            &mut cache,
            &mut stats,
        )
        .expect("bounded");
        let fresh = closest(
            &ball,
            &pose,
            &cube,
            &Pose::identity(),
            &mut PairCache::default(),
            &mut NarrowStats::default(),
        )
        .expect("bounded");
        let over_face = x.abs() < 2.0 - 1e-9;
        assert_eq!(stats.flat_face_contacts > before, over_face, "x = {x}");
        assert!((cached.distance - fresh.distance).abs() < 1e-12, "x = {x}");
        if over_face {
            assert!((cached.distance - 0.01).abs() < 1e-15);
        }
    }
}

#[test]
fn flat_face_shortcut_skips_polyhedra_with_many_faces() {
    // An ellipsoid over a polyhedron of many faces (points on a sphere): no face scan, GJK as
    // before.
    let mut rng = Pcg64::seed_from_u64(41);
    let points: Vec<Point> = (0..200)
        .map(|_| {
            let v = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            Point::from(v.normalize())
        })
        .collect();
    let round = ConvexPolyhedron::from_points(&points).expect("a hull");
    assert!(round.faces().len() > 64);
    let gem = model(Shape::Convex(Arc::new(round)));
    let egg = model(Shape::Ellipsoid {
        radii: Vec3::new(0.3, 0.2, 0.1),
    });
    let (found, shortcut) = narrow_query(
        &egg,
        &Pose::translation(0.1, 0.2, 2.0),
        &gem,
        &Pose::identity(),
        &mut PairCache::default(),
    );
    assert!(!shortcut && found.distance > 0.7);
}

/// Two balls are measured in closed form (the line of centres); GJK on their point cores is a
/// second algorithm for the same distance, points and normal.
#[test]
fn ball_pairs_in_closed_form_agree_with_gjk() {
    let mut rng = Pcg64::seed_from_u64(23);
    for _ in 0..500 {
        let (ra, rb) = (rng.random_range(0.1..2.0), rng.random_range(0.1..2.0));
        let (pose_a, pose_b) = (pose_in_cube(&mut rng, 3.0), pose_in_cube(&mut rng, 3.0));
        let apart = (pose_a.translation.vector - pose_b.translation.vector).norm();
        if apart < ra + rb + 1e-3 {
            continue; // GJK's cores answer only separated pairs
        }
        let (a, b) = (
            model(Shape::Sphere { radius: ra }),
            model(Shape::Sphere { radius: rb }),
        );
        let (found, _) = narrow_query(&a, &pose_a, &b, &pose_b, &mut PairCache::default());
        let (distance, point_a, point_b, normal) = gjk_closest(
            &Convex::Sphere { radius: ra },
            &pose_a,
            &Convex::Sphere { radius: rb },
            &pose_b,
        );
        assert!((found.distance - distance).abs() < 1e-9, "{found:?}");
        assert!((found.point_a - point_a).norm() < 1e-9, "{found:?}");
        assert!((found.point_b - point_b).norm() < 1e-9, "{found:?}");
        assert!((found.normal - normal).norm() < 1e-9, "{found:?}");
        // Closest points on the surfaces, a's towards b.
        let on_a = (found.point_a - Point::from(pose_a.translation.vector)).norm();
        assert!((on_a - ra).abs() < 1e-12 * (1.0 + apart));
    }
}

/// A random convex polyhedron: the hull of 4–60 points in the cube [−1, 1]³.
fn random_polyhedron(rng: &mut Pcg64) -> ConvexPolyhedron {
    random_hull(rng, 4..60, in_unit_cube)
}
