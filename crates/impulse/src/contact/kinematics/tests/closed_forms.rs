//! Closed forms.

use super::*;

#[test]
fn a_ball_rolling_on_the_ground_has_no_velocity_product_term() {
    // Rolling: the contact point's material velocity v + ω × (−r ẑ) is zero. Taking the
    // contact point as a material point of the ball would give κ = n·(ω × (ω × (−r ẑ))) =
    // r|ω_t|² (that point does accelerate upwards, towards the centre, as it swings round),
    // and a rolling ball's normal force m(g − r|ω_t|²); the contact point moves over the ball
    // instead, and
    // κ = 0: d̈ = v̇_z, the normal force is mg. Likewise ṡ = v̇ + ω̇ × (−r ẑ), no κ_t.
    let r = 0.25;
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let mut rng = Pcg64::seed_from_u64(30);
    for _ in 0..8 {
        let mut ball = at(Shape::Sphere { radius: r }, Vec3::new(0.0, 0.0, r), Quat::identity());
        ball.spin = random_vec(&mut rng, 5.0);
        ball.velocity = ball.spin.cross(&Vec3::z()) * r;
        let kin = kinematics_of(&ball, &ground);
        let tangential = ball.spin - Vec3::z() * ball.spin.z;
        let material = r * tangential.norm_squared();
        assert!(material > 0.1, "the material-point error would be visible: {material}");
        assert!(kin.normal_row.bias.abs() < 1e-14, "κ = {}", kin.normal_row.bias);
        assert!((kin.normal_row.a.linear - Vec3::z()).norm() < 1e-15);
        assert!(kin.normal_row.a.angular.norm() < 1e-15);
        assert!(kin.slip.iter().all(|s| s.abs() < 1e-15), "{:?}", kin.slip);
        for row in &kin.slip_rows {
            assert!(row.bias.abs() < 1e-14, "κ_t = {}", row.bias);
        }
        assert!(kin.normal_speed.abs() < 1e-15);
        // The contact point moves with the ball's centre.
        assert!((kin.point_rate - ball.velocity).norm() < 1e-14);
    }
}

#[test]
fn two_balls_have_the_closed_form_relative_acceleration() {
    // d = |Δc| − r_a − r_b, so d̈ = n·Δa + |Δv_⊥|²/|Δc| exactly, at any separation.
    let mut rng = Pcg64::seed_from_u64(31);
    for _ in 0..16 {
        let b = Body::new(Shape::Sphere { radius: 0.4 }, Pose::translation(0.1, -0.2, 0.3)).moving(&mut rng, 2.0, 2.0, 0.0);
        let centre = Vec3::new(0.1, -0.2, 0.3) + random_vec(&mut rng, 1.0).normalize() * rng.random_range(0.66..1.0);
        let a = Body::new(Shape::Sphere { radius: 0.25 }, Pose::from_parts(Translation3::from(centre), Quat::identity()))
            .moving(&mut rng, 2.0, 2.0, 0.0);
        let kin = kinematics_of(&a, &b);
        let apart = a.com - b.com;
        let n = apart.normalize();
        let dv = a.velocity - b.velocity;
        let across = dv - n * n.dot(&dv);
        let expected = across.norm_squared() / apart.norm();
        assert!((kin.normal.dot(&n) - 1.0).abs() < 1e-15);
        assert!((kin.normal_row.bias - expected).abs() < 1e-13 * (1.0 + expected), "{} vs {expected}", kin.normal_row.bias);
        assert!(kin.normal_row.a.angular.norm() < 1e-14 && kin.normal_row.b.angular.norm() < 1e-14);
        assert!((kin.distance - (apart.norm() - 0.65)).abs() < 1e-15);
    }
}

#[test]
fn a_box_resting_on_the_ground_without_turning_has_no_velocity_product_term() {
    // Every corner is a material point moving without rotation over a fixed plane: d̈ = v̇_z
    // + (ω̇ × r)_z exactly, κ = 0, however the box slides.
    let mut rng = Pcg64::seed_from_u64(32);
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    for _ in 0..4 {
        let mut a = at(cuboid(0.4, 0.3, 0.2), Vec3::new(0.0, 0.0, 0.2), rotation(Vec3::new(0.0, 0.0, 0.7)))
            .moving(&mut rng, 2.0, 2.0, 0.05);
        a.spin = Vec3::zeros();
        a.velocity.z = 0.0;
        for kin in corners(&a, &ground) {
            assert_eq!(kin.normal_row.bias, 0.0);
            assert_eq!(kin.normal_speed, 0.0);
            for row in &kin.slip_rows {
                assert_eq!(row.bias, 0.0);
            }
        }
    }
}

#[test]
fn a_top_spinning_on_its_point() {
    // A top (a twelve-sided pyramid on its apex) leaning at 0.4 rad, spinning at 40 rad/s about
    // its axis and precessing at 2 rad/s: its point is a material point on a fixed floor, so
    // κ = ẑ · ω × (ω × r) = ẑ·((ω·r) ω − |ω|² r), r from the centre of mass to the point, and
    // J = (ẑ, r × ẑ).
    let sides = 12;
    let mut points: Vec<Point> = (0..sides)
        .map(|k| {
            let angle = k as f64 * std::f64::consts::TAU / sides as f64;
            Point::new(0.2 * angle.cos(), 0.2 * angle.sin(), 0.3)
        })
        .collect();
    points.push(Point::origin());
    let cone = Arc::new(ConvexPolyhedron::hull_of(&points).unwrap());
    let lean = rotation(Vec3::new(0.4, 0.0, 0.0));
    let mut top = at(Shape::Convex(cone), Vec3::new(0.0, 0.0, 1e-3), lean);
    let axis = lean * Vec3::z();
    top.com = top.pose * Point::new(0.0, 0.0, 0.22);
    top.spin = axis * 40.0 + Vec3::z() * 2.0;
    top.velocity = top.spin.cross(&(Point::new(0.0, 0.0, 1e-3) - top.com));
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let kin = kinematics_of(&top, &ground);
    assert_eq!(kin.features, (FeatureKind::Vertex, FeatureKind::Face));
    let r = kin.points.0 - top.com;
    let w = top.spin;
    let expected = Vec3::z().dot(&(w * w.dot(&r) - r * w.norm_squared()));
    assert!((kin.normal_row.bias - expected).abs() < 1e-12 * expected.abs(), "{} vs {expected}", kin.normal_row.bias);
    assert!((kin.normal_row.a.angular - r.cross(&Vec3::z())).norm() < 1e-15);
    assert!(kin.normal_speed.abs() < 1e-13, "the point does not move: {}", kin.normal_speed);
}

#[test]
fn an_ellipsoid_at_its_pole_has_baraffs_curvature_and_rocking_term() {
    // Baraff V14 (§6.7, eq. 6-36): against a plane the curvature Jacobian J = f₁₁f₂₂ − f₁₂² is
    // the Gaussian curvature, c²/(a²b²) at the pole of semi-axes (a, b, c) (principal
    // curvatures c/a² and c/b²). Rocking at ω, its centre's height above the floor is the
    // support function along the vertical, √(a² sin²θ + c² cos²θ) ≈ c + (a² − c²)θ²/2c for a
    // turn θ about y, so d̈ = v̇_z − (a² − c²) ω_y²/c; in general
    // κ = c (ω_x² + ω_y²) − (a² ω_y² + b² ω_x²)/c.
    let (a, b, c) = (0.5, 0.3, 0.2);
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let mut rng = Pcg64::seed_from_u64(33);
    for _ in 0..8 {
        let mut body = at(Shape::Ellipsoid { radii: Vec3::new(a, b, c) }, Vec3::new(0.0, 0.0, c + 1e-3), Quat::identity());
        body.spin = random_vec(&mut rng, 3.0);
        body.velocity = random_vec(&mut rng, 1.0);
        let kin = kinematics_of(&body, &ground);
        let j = kin.relative_curvature.expect("smooth on flat");
        assert!((j - c * c / (a * a * b * b)).abs() < 1e-12 * j, "J = {j}");
        let w = body.spin;
        let expected = c * (w.x * w.x + w.y * w.y) - (a * a * w.y * w.y + b * b * w.x * w.x) / c;
        assert!((kin.normal_row.bias - expected).abs() < 1e-12 * (1.0 + expected.abs()), "{} vs {expected}", kin.normal_row.bias);
    }
    // Two balls: J = (1/r_a + 1/r_b)², the sum of the curvatures.
    let ball_b = Body::new(Shape::Sphere { radius: 0.4 }, Pose::identity());
    let ball_a = Body::new(Shape::Sphere { radius: 0.25 }, Pose::translation(0.0, 0.0, 0.7));
    let j = kinematics_of(&ball_a, &ball_b).relative_curvature.unwrap();
    assert!((j - (1.0 / 0.25 + 1.0 / 0.4_f64).powi(2)).abs() < 1e-12 * j);
    // Sharp features have none.
    let boxed = at(cuboid(0.3, 0.3, 0.3), Vec3::new(0.0, 0.0, 1.0), rotation(Vec3::new(0.5, 0.3, 0.0)));
    assert_eq!(kinematics_of(&place_at_gap(boxed, &ground, 0.01), &ground).relative_curvature, None);
}
