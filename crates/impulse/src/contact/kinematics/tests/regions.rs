//! The corners of contact regions (a face lying on a face), measured along the motion by a
//! direct geometric formula.

use super::*;

#[test]
fn ellipsoids_match_motion() {
    let ellipsoid = Shape::Ellipsoid {
        radii: Vec3::new(0.4, 0.25, 0.15),
    };
    let errors = narrow_family("ellipsoid on ground", 18, 24, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        let g = ground(rng);
        let a = at(ellipsoid.clone(), Vec3::new(0.0, 0.0, 1.0), near(Vec3::zeros(), 1.0, rng)).moving(rng, 1.0, 2.0, 0.05);
        (above(a, &g, rng), g)
    });
    report("ellipsoid on ground", &errors);
    let errors = narrow_family("ellipsoid on sphere", 19, 24, (FeatureKind::Curved, FeatureKind::Curved), ITERATIVE, |rng| {
        let b = at(Shape::Sphere { radius: 0.3 }, Vec3::zeros(), Quat::identity()).moving(rng, 1.0, 2.0, 0.05);
        let a = at(ellipsoid.clone(), random_vec(rng, 0.3) + Vec3::new(0.0, 0.0, 1.0), near(Vec3::zeros(), 1.0, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("ellipsoid on sphere", &errors);
    let errors = narrow_family("ellipsoid on box face", 20, 16, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        let b = at(cuboid(0.6, 0.6, 0.2), Vec3::zeros(), near(Vec3::zeros(), 0.1, rng)).moving(rng, 1.0, 2.0, 0.05);
        let a = at(ellipsoid.clone(), Vec3::new(0.05, 0.0, 1.0), near(Vec3::zeros(), 1.0, rng)).moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("ellipsoid on box face", &errors);
}

#[test]
fn convex_hull_on_ground_matches_motion() {
    let mut rng = Pcg64::seed_from_u64(21);
    // Points on a lumpy sphere: a hull with many faces and vertices of various degrees.
    let points: Vec<Point> = (0..20)
        .map(|_| {
            let d = random_vec(&mut rng, 1.0).normalize();
            Point::from(d.component_mul(&Vec3::new(0.4, 0.3, 0.25)))
        })
        .collect();
    let hull = Arc::new(ConvexPolyhedron::hull_of(&points).unwrap());
    let errors = narrow_family("hull on ground", 22, 24, (FeatureKind::Vertex, FeatureKind::Face), EXACT, |rng| {
        let g = ground(rng);
        loop {
            let turn = near(Vec3::zeros(), 2.0, rng);
            // The lowest vertex at least 1 cm below the next, so that it stays the lowest
            // over the stencil (a few milliradians of turning).
            let down = (g.pose.rotation * turn).inverse() * -Vec3::z();
            let mut heights: Vec<f64> = hull.vertices().iter().map(|v| v.coords.dot(&down)).collect();
            heights.sort_by(|x, y| y.total_cmp(x));
            if heights[0] - heights[1] < 0.01 {
                continue;
            }
            let a = at(Shape::Convex(hull.clone()), Vec3::new(0.0, 0.0, 1.0), turn).moving(rng, 1.0, 2.0, 0.05);
            return (above(a, &g, rng), g);
        }
    });
    report("hull on ground", &errors);
}

#[test]
fn cylinder_rim_across_a_box_edge_matches_motion() {
    let errors = narrow_family("cylinder rim on box edge", 23, 16, (FeatureKind::Rim, FeatureKind::Edge), ITERATIVE, |rng| {
        // The box's top edge runs along y; the cylinder, tilted about x, meets it with its
        // lowest rim point, whose tangent runs along x: across the edge.
        let b = at(cuboid(0.4, 0.4, 0.4), Vec3::zeros(), near(Vec3::new(0.0, FRAC_PI_4, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        let a = at(
            Shape::Cylinder { radius: 0.3, half_height: 0.2 },
            Vec3::new(0.02, 0.05, 1.0),
            near(Vec3::new(0.6, 0.0, 0.0), 0.1, rng),
        )
        .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("cylinder rim on box edge", &errors);
}

/// A vertex (or any material point) of `a`, own frame, against a face of `b` given by its
/// outward normal and offset in b's model frame: the distance and contact point at the poses.
fn point_on_plane(
    point: Point,
    normal: Vec3,
    offset: f64,
) -> impl Fn(&Pose, &Pose) -> (f64, Point) {
    move |pose_a: &Pose, pose_b: &Pose| {
        let p = pose_a * point;
        let n = pose_b.rotation * normal;
        let d = n.dot(&p.coords) - (offset + n.dot(&pose_b.translation.vector));
        (d, p - n * (d / 2.0))
    }
}

/// A box's vertex nearest `p` (own frame).
fn nearest_corner(half: Vec3, p: &Point) -> Point {
    Point::new(half.x.copysign(p.x), half.y.copysign(p.y), half.z.copysign(p.z))
}

#[test]
fn corners_of_a_box_lying_flat_on_the_ground_match_motion() {
    let mut rng = Pcg64::seed_from_u64(24);
    let mut errors = Errors::default();
    let half = Vec3::new(0.4, 0.3, 0.2);
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    for sample in 0..8 {
        let yaw = rotation(Vec3::new(0.0, 0.0, rng.random_range(-3.0..3.0)));
        let a = at(cuboid(half.x, half.y, half.z), Vec3::new(0.0, 0.0, half.z + 0.01), yaw)
            .moving(&mut rng, 1.0, 2.0, 0.05);
        let kins = corners(&a, &ground);
        assert_eq!(kins.len(), 4, "a box lying flat touches at its four corners");
        for kin in &kins {
            assert_eq!(kin.features, (FeatureKind::Vertex, FeatureKind::Face));
            let corner = nearest_corner(half, &(a.pose.inverse() * kin.points.0));
            let measure = point_on_plane(corner, Vec3::z(), 0.0);
            compare_with_motion(&format!("flat box corner #{sample}"), &a, &ground, kin, &measure, EXACT, &mut errors);
        }
    }
    report("flat box corners", &errors);
}

#[test]
fn corners_of_a_box_lying_on_a_moving_box_match_motion() {
    // Three regions: a small box inside the top face of a big one (its corners on that face),
    // a big box over a small one (the small one's corners under its face), and equal boxes
    // turned 45° (an octagon whose corners are crossings of the two boxes' edges). The
    // boxes' faces are parallel at t = 0 and turn apart as they move.
    let mut rng = Pcg64::seed_from_u64(25);
    let mut errors = Errors::default();
    let (small, big) = (Vec3::new(0.2, 0.15, 0.1), Vec3::new(0.5, 0.4, 0.2));
    let square = Vec3::new(0.3, 0.3, 0.15);
    for sample in 0..6 {
        let tilt = near(Vec3::zeros(), 0.3, &mut rng);
        let place = |lower: Vec3, upper: Vec3, yaw: f64, rng: &mut Pcg64| {
            let b = at(cuboid(lower.x, lower.y, lower.z), Vec3::zeros(), tilt).moving(rng, 1.0, 2.0, 0.05);
            let offset = tilt * Vec3::new(0.01, -0.02, lower.z + upper.z + 0.01);
            let a = at(cuboid(upper.x, upper.y, upper.z), offset, tilt * rotation(Vec3::new(0.0, 0.0, yaw)))
                .moving(rng, 1.0, 2.0, 0.05);
            (a, b)
        };
        let up = tilt * Vec3::z();
        // Small on big: a's corners on b's top face.
        let (a, b) = place(big, small, 0.3, &mut rng);
        let kins = corners(&a, &b);
        assert_eq!(kins.len(), 4);
        for kin in &kins {
            assert_eq!(kin.features, (FeatureKind::Vertex, FeatureKind::Face), "small on big #{sample}");
            let corner = nearest_corner(small, &(a.pose.inverse() * kin.points.0));
            let measure = point_on_plane(corner, Vec3::z(), big.z);
            compare_with_motion(&format!("small on big #{sample}"), &a, &b, kin, &measure, EXACT, &mut errors);
        }
        // Big on small: b's corners under a's bottom face.
        let (a, b) = place(small, big, 0.3, &mut rng);
        let kins = corners(&a, &b);
        assert_eq!(kins.len(), 4);
        for kin in &kins {
            assert_eq!(kin.features, (FeatureKind::Face, FeatureKind::Vertex), "big on small #{sample}");
            let corner = nearest_corner(small, &(b.pose.inverse() * kin.points.1));
            // b's corner against a's bottom face (outward −z, offset big.z), from b's side.
            let on_b = point_on_plane(corner, -Vec3::z(), big.z);
            let measure = move |pose_a: &Pose, pose_b: &Pose| on_b(pose_b, pose_a);
            compare_with_motion(&format!("big on small #{sample}"), &a, &b, kin, &measure, EXACT, &mut errors);
        }
        // Equal squares turned 45°: edge crossings.
        let (a, b) = place(square, square, FRAC_PI_4, &mut rng);
        let kins = corners(&a, &b);
        assert_eq!(kins.len(), 4);
        for kin in &kins {
            assert_eq!(kin.features, (FeatureKind::Edge, FeatureKind::Edge), "crossing #{sample}");
            assert!(kin.normal.dot(&up) > 1.0 - 1e-12);
            let edge_a = nearest_box_edge(square, &(a.pose.inverse() * kin.points.0));
            let edge_b = nearest_box_edge(square, &(b.pose.inverse() * kin.points.1));
            let normal0 = kin.normal;
            let measure = move |pose_a: &Pose, pose_b: &Pose| {
                let (qa, ea) = (pose_a * edge_a.0, pose_a.rotation * edge_a.1);
                let (qb, eb) = (pose_b * edge_b.0, pose_b.rotation * edge_b.1);
                // The closest points of the two lines.
                let w = qa - qb;
                let (aa, ab, bb, aw, bw) = (ea.dot(&ea), ea.dot(&eb), eb.dot(&eb), ea.dot(&w), eb.dot(&w));
                let det = aa * bb - ab * ab;
                let s = (ab * bw - bb * aw) / det;
                let u = (aa * bw - ab * aw) / det;
                let (pa, pb) = (qa + ea * s, qb + eb * u);
                let mut n = ea.cross(&eb).normalize();
                if n.dot(&normal0) < 0.0 {
                    n = -n;
                }
                (n.dot(&(pa - pb)), nalgebra::center(&pa, &pb))
            };
            compare_with_motion(&format!("crossing #{sample}"), &a, &b, kin, &measure, EXACT, &mut errors);
        }
    }
    report("box on box corners", &errors);
}

/// The edge of a box (half-extents `half`, own frame) nearest `p`: a point on it and its
/// direction.
fn nearest_box_edge(half: Vec3, p: &Point) -> (Point, Vec3) {
    // An edge runs along the axis on which p is farthest inside the box (relative to it).
    let inside = (0..3)
        .map(|i| (i, half[i] - p[i].abs()))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap()
        .0;
    let mut q = nearest_corner(half, p);
    q[inside] = 0.0;
    let mut e = Vec3::zeros();
    e[inside] = 1.0;
    (q, e)
}

#[test]
fn corners_of_a_cylinder_standing_on_its_cap_match_motion() {
    let mut rng = Pcg64::seed_from_u64(26);
    let mut errors = Errors::default();
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    for sample in 0..8 {
        let yaw = rotation(Vec3::new(0.0, 0.0, rng.random_range(-3.0..3.0)));
        let a = at(
            Shape::Cylinder { radius: 0.3, half_height: 0.2 },
            Vec3::new(0.0, 0.0, 0.21),
            yaw,
        )
        .moving(&mut rng, 1.0, 2.0, 0.05);
        let kins = corners(&a, &ground);
        assert_eq!(kins.len(), 4, "a standing cylinder touches at rim points");
        for kin in &kins {
            // Rim points are material points while the cap lies flat.
            assert_eq!(kin.features, (FeatureKind::Vertex, FeatureKind::Face));
            let rim_point = a.pose.inverse() * kin.points.0;
            assert!((rim_point.x.hypot(rim_point.y) - 0.3).abs() < 1e-12);
            let measure = point_on_plane(rim_point, Vec3::z(), 0.0);
            compare_with_motion(&format!("cylinder rim point #{sample}"), &a, &ground, kin, &measure, EXACT, &mut errors);
        }
    }
    report("standing cylinder", &errors);
}

#[test]
fn equal_boxes_stacked_flush_rest_corner_on_face() {
    // Each corner of the region is a corner of both boxes: vertex on vertex, which has no
    // normal, except that b's top face lies flat under it, so the vertex rests on that face.
    let mut rng = Pcg64::seed_from_u64(27);
    let mut errors = Errors::default();
    let half = Vec3::new(0.3, 0.2, 0.1);
    let b = at(cuboid(half.x, half.y, half.z), Vec3::zeros(), Quat::identity()).moving(&mut rng, 1.0, 2.0, 0.05);
    let a = at(cuboid(half.x, half.y, half.z), Vec3::new(0.0, 0.0, 2.0 * half.z + 0.01), Quat::identity())
        .moving(&mut rng, 1.0, 2.0, 0.05);
    let kins = corners(&a, &b);
    assert_eq!(kins.len(), 4);
    for kin in &kins {
        assert_eq!(kin.features, (FeatureKind::Vertex, FeatureKind::Face));
        let corner = nearest_corner(half, &(a.pose.inverse() * kin.points.0));
        let measure = point_on_plane(corner, Vec3::z(), half.z);
        compare_with_motion("stacked boxes", &a, &b, kin, &measure, EXACT, &mut errors);
    }
    report("stacked boxes", &errors);
}
