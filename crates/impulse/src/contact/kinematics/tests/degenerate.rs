//! Degenerate contacts: a named outcome, never a division by zero.

use super::*;

/// The outcome at the narrow phase's closest points.
fn outcome(a: &Body, b: &Body) -> Result<ContactKinematics, Degenerate> {
    kinematics_at_closest(a, b).1
}

#[test]
fn vertex_on_vertex_and_vertex_on_edge_have_no_normal() {
    // Cubes with a corner up (b) and down (a).
    let corner_up = Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0), &Vec3::z()).unwrap();
    let corner_down = Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0), &-Vec3::z()).unwrap();
    let b = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), corner_up);
    let a = at(cuboid(0.25, 0.25, 0.25), Vec3::new(0.0, 0.0, 1.0), corner_down);
    // (At zero gap V-Clip names a face of one cube and gives its normal: the other's corner
    // then rests on that face's plane, a valid constraint. Any gap makes the normal unique.)
    for gap in [1e-6, 1e-4] {
        let a = place_at_gap(a.clone(), &b, gap);
        let (c, kin) = kinematics_at_closest(&a, &b);
        assert_eq!(kin.err(), Some(Degenerate::NoNormal), "vertex on vertex at {gap}: {c:?}");
    }
    // A corner over an edge (the box below turned 45° about x: its top an edge along x).
    let edge_up = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    let a = place_at_gap(at(cuboid(0.25, 0.25, 0.25), Vec3::new(0.05, 0.0, 1.0), corner_down), &edge_up, 1e-4);
    let (c, kin) = kinematics_at_closest(&a, &edge_up);
    assert!(matches!(c.features, Some((vclip::Feature::Vertex(_), vclip::Feature::Edge(_)))), "{c:?}");
    assert_eq!(kin.err(), Some(Degenerate::NoNormal), "vertex on edge");
}

#[test]
fn a_normal_that_is_not_the_features_is_refused() {
    // Two edges that nearly cross: touching, V-Clip's normal is their cross product's, which
    // for nearly parallel edges points anywhere; the feature of b along it is another edge,
    // whose line is nowhere near the point. Not rows for a contact elsewhere.
    let b = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    let a = at(cuboid(0.2, 0.3, 0.25), Vec3::new(0.05, 0.0, 1.0), Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0), &-Vec3::z()).unwrap());
    let a = place_at_gap(a, &b, 0.0);
    let (_, kin) = kinematics_at_closest(&a, &b);
    assert_eq!(kin.err(), Some(Degenerate::Unsettled));
}

#[test]
fn parallel_edges_have_no_normal() {
    // Both boxes turned 45° about x: a's bottom and b's top are edges along x. (At zero gap
    // V-Clip, since its ties were settled for contacts exactly at the start, names a face of one
    // box and gives its normal: the other's edge then rests on that face's plane, a valid
    // constraint, as for two corners. Any gap leaves the edges, and no normal.)
    let b = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    let a = at(cuboid(0.2, 0.3, 0.25), Vec3::new(0.05, 0.0, 1.0), rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    for gap in [1e-6, 1e-3] {
        let a = place_at_gap(a.clone(), &b, gap);
        assert_eq!(outcome(&a, &b).err(), Some(Degenerate::NoNormal), "parallel edges at {gap}");
    }
}

#[test]
fn a_rim_along_an_edge_has_no_normal() {
    // A cylinder tilted about x touches a box's top edge (along x) with the rim point whose
    // tangent runs along x. The rim is straight to first order along the edge and sharp
    // across it, and so is the edge: nothing fixes the normal's turn about x. Posed directly
    // (normal between the cap's and the side's, which is in the edge's normal cone), since a
    // narrow phase may as well report the cap or the side there.
    let (r, h, tilt) = (0.3, 0.2, 0.6);
    let b = at(cuboid(0.4, 0.4, 0.4), Vec3::zeros(), rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    let edge_point = Point::new(0.05, 0.0, 0.4 * 2f64.sqrt());
    let turn = rotation(Vec3::new(tilt, 0.0, 0.0));
    // The rim point (0, −r, −h) faces down between the cap (−z) and the side (−y).
    let outward = (turn * Vec3::new(0.0, -1.0, -1.0)).normalize();
    let n = -outward;
    assert!(n.z > (FRAC_PI_4).cos(), "in the edge's normal cone");
    let gap = 1e-4;
    let centre = edge_point + n * gap - turn * Vec3::new(0.0, -r, -h);
    let a = at(Shape::Cylinder { radius: r, half_height: h }, centre.coords, turn);
    let (pose_a, motion_a) = a.at(0.0);
    let (pose_b, motion_b) = b.at(0.0);
    let side_a = ContactSide::of_part(&a.model, &pose_a, 0, motion_a);
    let side_b = ContactSide::of_part(&b.model, &pose_b, 0, motion_b);
    let point = edge_point + n * (gap / 2.0);
    assert_eq!(contact_kinematics(&side_a, &side_b, &point, &n, EPSILON).err(), Some(Degenerate::NoNormal));
    // Turned a quarter about z, the same rim crosses the edge: a contact with rows.
    let across = rotation(Vec3::new(0.0, 0.0, FRAC_PI_2));
    let b = at(cuboid(0.4, 0.4, 0.4), Vec3::zeros(), across * rotation(Vec3::new(FRAC_PI_4, 0.0, 0.0)));
    let (pose_b, motion_b) = b.at(0.0);
    let side_b = ContactSide::of_part(&b.model, &pose_b, 0, motion_b);
    let edge_point = Point::new(0.0, 0.0, 0.4 * 2f64.sqrt());
    let n = Vec3::z();
    // The same rim point (0, −r, −h) is the cylinder's lowest: −z lies between its cap's and
    // its side's normals.
    let centre = edge_point + n * gap - turn * Vec3::new(0.0, -r, -h);
    let a = at(Shape::Cylinder { radius: r, half_height: h }, centre.coords, turn);
    let (pose_a, motion_a) = a.at(0.0);
    let side_a = ContactSide::of_part(&a.model, &pose_a, 0, motion_a);
    let kin = contact_kinematics(&side_a, &side_b, &(edge_point + n * (gap / 2.0)), &n, EPSILON).unwrap();
    assert_eq!(kin.features, (FeatureKind::Rim, FeatureKind::Edge));
    assert!((kin.distance - gap).abs() < 1e-12);
}

#[test]
fn a_flat_ellipsoid_reports_zero_curvature() {
    // At its pole an ellipsoid's radii of curvature are a²/c and b²/c: a millionth as thin
    // (the thinnest shape the engine accepts) still has rows, with J = c²/(a²b²) = 1e-12; a
    // hundred-millionth is beyond: zero curvature (Baraff §6.7's zeroeth-order impact).
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let flat = |c: f64| {
        let mut e = at(Shape::Ellipsoid { radii: Vec3::new(1.0, 1.0, c) }, Vec3::new(0.0, 0.0, c + 1e-3), Quat::identity());
        e.spin = Vec3::new(0.1, 0.2, 0.3);
        e
    };
    let thin = kinematics_of(&flat(1e-6), &ground);
    let j = thin.relative_curvature.unwrap();
    assert!((j - 1e-12).abs() < 1e-24, "{j}");
    assert!(thin.normal_row.bias.is_finite());
    assert_eq!(outcome(&flat(1e-8), &ground).err(), Some(Degenerate::ZeroCurvature));
}

#[test]
fn a_face_or_a_side_lying_on_a_face_is_a_region() {
    // At a point inside the contact region (not a corner of it) a face or a side lies on the
    // plane: its corners must be posed instead.
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let boxed = at(cuboid(0.4, 0.3, 0.2), Vec3::new(0.0, 0.0, 0.2), Quat::identity());
    let (pose, motion) = boxed.at(0.0);
    let side_a = ContactSide::of_part(&boxed.model, &pose, 0, motion);
    let side_b = ContactSide::of_part(&ground.model, &Pose::identity(), 0, RigidMotion::at_rest(Point::origin()));
    let middle = Point::new(0.05, -0.05, 0.0);
    assert_eq!(contact_kinematics(&side_a, &side_b, &middle, &Vec3::z(), EPSILON).err(), Some(Degenerate::Region));
    let capsule = at(Shape::Capsule { radius: 0.1, half_height: 0.3 }, Vec3::new(0.0, 0.0, 0.1), rotation(Vec3::new(FRAC_PI_2, 0.0, 0.0)));
    let (pose, motion) = capsule.at(0.0);
    let side_a = ContactSide::of_part(&capsule.model, &pose, 0, motion);
    assert_eq!(
        contact_kinematics(&side_a, &side_b, &Point::new(0.0, 0.1, 0.0), &Vec3::z(), EPSILON).err(),
        Some(Degenerate::Region)
    );
    // Its region's corners are the two end balls.
    for kin in corners(&capsule, &ground) {
        assert_eq!(kin.features, (FeatureKind::Curved, FeatureKind::Face));
        assert!(kin.distance.abs() < 1e-15);
    }
}

#[test]
fn non_finite_input_is_refused() {
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let mut ball = at(Shape::Sphere { radius: 0.25 }, Vec3::new(0.0, 0.0, 0.26), Quat::identity());
    ball.velocity = Vec3::new(f64::NAN, 0.0, 0.0);
    assert_eq!(outcome(&ball, &ground).err(), Some(Degenerate::NotFinite));
    ball.velocity = Vec3::zeros();
    let (pose, motion) = ball.at(0.0);
    let side_a = ContactSide::of_part(&ball.model, &pose, 0, motion);
    let side_b = ContactSide::of_part(&ground.model, &Pose::identity(), 0, RigidMotion::at_rest(Point::origin()));
    let point = Point::new(0.0, 0.0, 0.005);
    assert_eq!(contact_kinematics(&side_a, &side_b, &point, &Vec3::zeros(), EPSILON).err(), Some(Degenerate::NotFinite));
    assert!(contact_kinematics(&side_a, &side_b, &point, &Vec3::z(), EPSILON).is_ok());
}
