//! Narrow phase: every pair of shape kinds against closed forms, independent numerics, or a
//! second algorithm.

use std::sync::Arc;

use impulse::collision::gjk::{GjkResult, GjkSettings, gjk};
use impulse::collision::vclip::{Proximity, closest_features};
use impulse::collision::{CollisionModel, NarrowStats, PairCache, closest};
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

fn random_pose(rng: &mut Pcg64, spread: f64) -> Pose {
    let axis = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    Pose::from_parts(
        Vec3::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        )
        .into(),
        Quat::from_scaled_axis(axis.normalize() * rng.random_range(0.0..3.0)),
    )
}

fn random_polyhedron(rng: &mut Pcg64) -> ConvexPolyhedron {
    loop {
        let n = rng.random_range(4..60);
        let points: Vec<Point> = (0..n)
            .map(|_| {
                Point::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
            })
            .collect();
        if let Ok(p) = ConvexPolyhedron::from_points(&points) {
            return p;
        }
    }
}

#[test]
fn gjk_agrees_with_vclip_on_polyhedra() {
    // Two independent algorithms for the same distance.
    let mut rng = Pcg64::seed_from_u64(17);
    let mut compared = 0;
    for _ in 0..2000 {
        let a = random_polyhedron(&mut rng);
        let b = random_polyhedron(&mut rng);
        let pose_a = random_pose(&mut rng, 1.0);
        let pose_b = random_pose(&mut rng, 4.0);
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
        let pose = random_pose(&mut rng, 0.5);
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
        let pose = random_pose(&mut rng, 0.5);
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
        let pose_a = random_pose(&mut rng, 0.2);
        let mut pose_b = random_pose(&mut rng, 0.2);
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
                    pose: random_pose(rng, 2.0),
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
        let pose_a = random_pose(&mut rng, 1.0);
        let pose_b = random_pose(&mut rng, 6.0);
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
