//! Pairs of every kind of feature along exact motions, against the narrow phase.

use super::*;

#[test]
fn box_vertex_on_ground_matches_motion() {
    let errors = narrow_family(
        "box on ground",
        1,
        24,
        (FeatureKind::Vertex, FeatureKind::Face), EXACT,
        |rng| {
            let g = ground(rng);
            let a = at(cuboid(0.4, 0.3, 0.2), Vec3::new(0.1, -0.2, 1.0), near(Vec3::new(0.5, 0.3, 0.2), 0.1, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            (above(a, &g, rng), g)
        },
    );
    report("box on ground", &errors);
}

#[test]
fn box_vertex_on_moving_box_face_matches_motion() {
    let errors = narrow_family(
        "box vertex on box face",
        2,
        24,
        (FeatureKind::Vertex, FeatureKind::Face), EXACT,
        |rng| {
            let b = at(cuboid(0.6, 0.5, 0.2), Vec3::zeros(), near(Vec3::zeros(), 0.1, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            let a = at(cuboid(0.2, 0.15, 0.1), Vec3::new(0.05, 0.05, 0.6), near(Vec3::new(0.5, 0.3, 0.2), 0.1, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            (above(a, &b, rng), b)
        },
    );
    report("box vertex on box face", &errors);
}

#[test]
fn box_face_on_moving_box_vertex_matches_motion() {
    let errors = narrow_family(
        "box face on box vertex",
        3,
        24,
        (FeatureKind::Face, FeatureKind::Vertex), EXACT,
        |rng| {
            let b = at(cuboid(0.2, 0.15, 0.1), Vec3::zeros(), near(Vec3::new(0.5, 0.3, 0.2), 0.1, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            let a = at(cuboid(0.6, 0.5, 0.2), Vec3::new(0.05, -0.05, 0.6), near(Vec3::zeros(), 0.1, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            (above(a, &b, rng), b)
        },
    );
    report("box face on box vertex", &errors);
}

#[test]
fn crossed_box_edges_match_motion() {
    let errors = narrow_family(
        "box edge on box edge",
        4,
        24,
        (FeatureKind::Edge, FeatureKind::Edge), EXACT,
        |rng| {
            // a's lowest feature an edge along x, b's highest an edge along y.
            let b = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), near(Vec3::new(0.0, FRAC_PI_4, 0.0), 0.15, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            let a = at(cuboid(0.3, 0.2, 0.2), Vec3::new(0.02, -0.03, 1.0), near(Vec3::new(FRAC_PI_4, 0.0, 0.0), 0.15, rng))
                .moving(rng, 1.0, 2.0, 0.05);
            (above(a, &b, rng), b)
        },
    );
    report("box edge on box edge", &errors);
}

#[test]
fn sphere_on_ground_and_on_box_features_matches_motion() {
    let ball = |rng: &mut Pcg64, x: f64, y: f64| {
        at(Shape::Sphere { radius: 0.25 }, Vec3::new(x, y, 1.0), Quat::identity()).moving(rng, 1.0, 2.0, 0.05)
    };
    let errors = narrow_family("sphere on ground", 5, 16, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        let g = ground(rng);
        let a = ball(rng, 0.0, 0.0);
        (above(a, &g, rng), g)
    });
    report("sphere on ground", &errors);
    let errors = narrow_family("sphere on box face", 6, 16, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        let b = at(cuboid(0.5, 0.5, 0.2), Vec3::zeros(), near(Vec3::zeros(), 0.1, rng)).moving(rng, 1.0, 2.0, 0.05);
        let a = ball(rng, 0.1, -0.1);
        (above(a, &b, rng), b)
    });
    report("sphere on box face", &errors);
    let errors = narrow_family("sphere on box edge", 7, 16, (FeatureKind::Curved, FeatureKind::Edge), EXACT, |rng| {
        // The box's top is an edge along x.
        let b = at(cuboid(0.4, 0.3, 0.3), Vec3::zeros(), near(Vec3::new(FRAC_PI_4, 0.0, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        let a = ball(rng, 0.1, 0.0);
        (above(a, &b, rng), b)
    });
    report("sphere on box edge", &errors);
    let errors = narrow_family("sphere on box vertex", 8, 16, (FeatureKind::Curved, FeatureKind::Vertex), EXACT, |rng| {
        // The box's top is its corner (1, 1, 1): turned onto the z axis.
        let corner_up = Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0), &Vec3::z()).unwrap();
        let b = at(cuboid(0.3, 0.3, 0.3), Vec3::zeros(), near(Vec3::zeros(), 0.1, rng) * corner_up)
            .moving(rng, 1.0, 2.0, 0.05);
        let a = ball(rng, 0.0, 0.0);
        (above(a, &b, rng), b)
    });
    report("sphere on box vertex", &errors);
}

#[test]
fn two_spheres_match_motion() {
    let errors = narrow_family("sphere on sphere", 9, 24, (FeatureKind::Curved, FeatureKind::Curved), EXACT, |rng| {
        let b = at(Shape::Sphere { radius: 0.4 }, Vec3::zeros(), Quat::identity()).moving(rng, 1.0, 2.0, 0.05);
        let a = at(Shape::Sphere { radius: 0.25 }, random_vec(rng, 0.3) + Vec3::new(0.0, 0.0, 1.0), Quat::identity())
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("sphere on sphere", &errors);
}

#[test]
fn capsules_match_motion() {
    let capsule = Shape::Capsule {
        radius: 0.15,
        half_height: 0.3,
    };
    let errors = narrow_family("capsule end on ground", 10, 16, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        let g = ground(rng);
        let a = at(capsule.clone(), Vec3::new(0.0, 0.0, 1.0), near(Vec3::new(0.7, 0.0, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &g, rng), g)
    });
    report("capsule end on ground", &errors);
    let errors = narrow_family("capsule side on ground", 11, 16, (FeatureKind::Curved, FeatureKind::Face), EXACT, |rng| {
        // Lying nearly flat: one end sphere is the lowest.
        let g = ground(rng);
        let a = at(capsule.clone(), Vec3::new(0.0, 0.0, 1.0), near(Vec3::new(FRAC_PI_2 - 0.2, 0.0, 0.0), 0.05, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &g, rng), g)
    });
    report("capsule side on ground", &errors);
    let errors = narrow_family("sphere on capsule side", 12, 16, (FeatureKind::Curved, FeatureKind::Side), EXACT, |rng| {
        let b = at(capsule.clone(), Vec3::zeros(), near(Vec3::new(0.0, FRAC_PI_2, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        let a = at(Shape::Sphere { radius: 0.2 }, Vec3::new(0.1, 0.05, 1.0), Quat::identity()).moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("sphere on capsule side", &errors);
    let errors = narrow_family("capsule crossed on capsule", 13, 24, (FeatureKind::Side, FeatureKind::Side), EXACT, |rng| {
        let b = at(capsule.clone(), Vec3::zeros(), near(Vec3::new(0.0, FRAC_PI_2, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        let a = at(capsule.clone(), Vec3::new(0.05, -0.05, 1.0), near(Vec3::new(FRAC_PI_2, 0.0, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("capsule crossed on capsule", &errors);
}

#[test]
fn cylinders_match_motion() {
    let cylinder = Shape::Cylinder {
        radius: 0.3,
        half_height: 0.2,
    };
    let errors = narrow_family("cylinder rim on ground", 14, 16, (FeatureKind::Rim, FeatureKind::Face), EXACT, |rng| {
        let g = ground(rng);
        let a = at(cylinder.clone(), Vec3::new(0.0, 0.0, 1.0), near(Vec3::new(0.5, 0.0, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &g, rng), g)
    });
    report("cylinder rim on ground", &errors);
    let errors = narrow_family("cylinder side on ground", 15, 16, (FeatureKind::Rim, FeatureKind::Face), EXACT, |rng| {
        // On its side, tilted a little: one rim's lowest point touches.
        let g = ground(rng);
        let a = at(cylinder.clone(), Vec3::new(0.0, 0.0, 1.0), near(Vec3::new(FRAC_PI_2 - 0.1, 0.0, 0.0), 0.03, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        (above(a, &g, rng), g)
    });
    report("cylinder side on ground", &errors);
    let errors = narrow_family("sphere on cylinder side", 16, 16, (FeatureKind::Curved, FeatureKind::Side), ITERATIVE, |rng| {
        let b = at(cylinder.clone(), Vec3::zeros(), near(Vec3::new(0.0, FRAC_PI_2, 0.0), 0.1, rng))
            .moving(rng, 1.0, 2.0, 0.05);
        let a = at(Shape::Sphere { radius: 0.2 }, Vec3::new(0.05, 0.05, 1.0), Quat::identity()).moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("sphere on cylinder side", &errors);
    let errors = narrow_family("cylinder rim on cylinder rim", 17, 16, (FeatureKind::Rim, FeatureKind::Rim), ITERATIVE, |rng| {
        // a tilted about x (its lowest rim point's tangent along x), b about y (its highest
        // rim point's tangent along y): the rims cross.
        let b = at(cylinder.clone(), Vec3::zeros(), near(Vec3::new(0.0, 0.5, 0.0), 0.1, rng)).moving(rng, 1.0, 2.0, 0.05);
        let top_b = narrow_top(&b);
        let a = at(cylinder.clone(), Vec3::zeros(), near(Vec3::new(0.6, 0.0, 0.0), 0.1, rng));
        let bottom_a = narrow_bottom(&a);
        let a = a.shifted(top_b - bottom_a + Vec3::new(0.0, 0.0, 0.5)).moving(rng, 1.0, 2.0, 0.05);
        (above(a, &b, rng), b)
    });
    report("cylinder rim on cylinder rim", &errors);
}


#[test]
fn ends_of_a_cylinder_and_a_capsule_lying_on_their_sides_match_motion() {
    // A line contact: the region's corners are the ends of the touching line, each a rim of
    // the cylinder (a circle, curved along it) or an end ball of the capsule. Measured
    // directly: a circle of centre c and unit axis k reaches down to c_z − r √(1 − k_z²), a
    // ball to c_z − r.
    let mut rng = Pcg64::seed_from_u64(28);
    let mut errors = Errors::default();
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let (r, h) = (0.2, 0.35);
    for sample in 0..6 {
        let lying = rotation(Vec3::new(0.0, 0.0, rng.random_range(-3.0..3.0))) * rotation(Vec3::new(FRAC_PI_2, 0.0, 0.0));
        for capsule in [false, true] {
            let shape = if capsule {
                Shape::Capsule { radius: r, half_height: h }
            } else {
                Shape::Cylinder { radius: r, half_height: h }
            };
            let a = at(shape, Vec3::new(0.0, 0.0, r + 0.01), lying).moving(&mut rng, 1.0, 2.0, 0.05);
            let kins = corners(&a, &ground);
            assert_eq!(kins.len(), 2, "two ends touch");
            for kin in &kins {
                let expected = if capsule { FeatureKind::Curved } else { FeatureKind::Rim };
                assert_eq!(kin.features, (expected, FeatureKind::Face));
                // Which end: the sign of the touching point's axial coordinate.
                let end = (a.pose.inverse() * kin.points.0).z.signum() * h;
                let measure = move |pose_a: &Pose, _: &Pose| {
                    let centre = pose_a * Point::new(0.0, 0.0, end);
                    let axis = pose_a.rotation * Vec3::z();
                    let down = if capsule {
                        -Vec3::z() * r
                    } else {
                        let across = -Vec3::z() + axis * axis.z;
                        across.normalize() * r
                    };
                    let lowest = centre + down;
                    let d = lowest.z;
                    (d, lowest - Vec3::z() * (d / 2.0))
                };
                let name = format!("{} on its side #{sample}", if capsule { "capsule" } else { "cylinder" });
                compare_with_motion(&name, &a, &ground, kin, &measure, EXACT, &mut errors);
            }
        }
    }
    report("lying cylinder and capsule", &errors);
}

#[test]
fn overlapping_contacts_match_motion() {
    // Overlapping, max_n g(n) is minus the penetration depth and the rows hold as they are
    // (μ = d < 0 in the bordered matrix). Against the ground the narrow phase is exact there.
    let sink = |a: Body, g: &Body, rng: &mut Pcg64| {
        let gap = -rng.random_range(0.005..0.03);
        place_at_gap(a, g, gap)
    };
    let shapes = [
        ("ball", Shape::Sphere { radius: 0.25 }, FeatureKind::Curved, Vec3::zeros()),
        (
            "ellipsoid",
            Shape::Ellipsoid { radii: Vec3::new(0.4, 0.25, 0.15) },
            FeatureKind::Curved,
            Vec3::new(0.3, -0.2, 0.1),
        ),
        ("box", cuboid(0.4, 0.3, 0.2), FeatureKind::Vertex, Vec3::new(0.5, 0.3, 0.2)),
        (
            "cylinder",
            Shape::Cylinder { radius: 0.3, half_height: 0.2 },
            FeatureKind::Rim,
            Vec3::new(0.5, 0.0, 0.0),
        ),
    ];
    for (k, (name, shape, kind, turn)) in shapes.into_iter().enumerate() {
        let family = format!("{name} sunk into the ground");
        let errors = narrow_family(&family, 40 + k as u64, 12, (kind, FeatureKind::Face), EXACT, |rng| {
            let g = ground(rng);
            let a = at(shape.clone(), Vec3::new(0.0, 0.0, 1.0), near(turn, 0.1, rng)).moving(rng, 1.0, 2.0, 0.05);
            (sink(a, &g, rng), g)
        });
        report(&family, &errors);
    }
}

#[test]
fn a_ball_rolling_near_a_faces_edge_is_still_on_the_face() {
    // With the engine's default envelope (1 mm) as the tolerance, a ball rolling on a fixed
    // box's top face half a millimetre from its edge is on the face (κ = 0, its normal force
    // mg), not on the edge, which would give it κ = v²/(r + d) across the edge, as though it
    // were already rolling over it.
    let r = 0.1;
    let b = at(cuboid(0.5, 0.5, 0.2), Vec3::zeros(), Quat::identity());
    let mut ball = at(Shape::Sphere { radius: r }, Vec3::new(0.4995, 0.0, 0.2 + r), Quat::identity());
    ball.spin = Vec3::new(0.0, 20.0, 0.0);
    ball.velocity = ball.spin.cross(&Vec3::z()) * r;
    let (pose_a, motion_a) = ball.at(0.0);
    let (pose_b, motion_b) = b.at(0.0);
    let c = narrow(&ball, &pose_a, &b, &pose_b);
    let side_a = ContactSide::of_part(&ball.model, &pose_a, 0, motion_a);
    let side_b = ContactSide::of_part(&b.model, &pose_b, 0, motion_b);
    let kin = contact_kinematics(&side_a, &side_b, &c.contact_point(), &c.normal, 1e-3).unwrap();
    assert_eq!(kin.features, (FeatureKind::Curved, FeatureKind::Face));
    assert!(kin.normal_row.bias.abs() < 1e-13, "κ = {}", kin.normal_row.bias);
    // Exactly over the edge it is on the edge.
    let mut over = ball.clone();
    over.pose = Pose::translation(0.5, 0.0, 0.2 + r);
    over.com = Point::new(0.5, 0.0, 0.2 + r);
    let (pose_a, motion_a) = over.at(0.0);
    let c = narrow(&over, &pose_a, &b, &pose_b);
    let side_a = ContactSide::of_part(&over.model, &pose_a, 0, motion_a);
    let kin = contact_kinematics(&side_a, &side_b, &c.contact_point(), &c.normal, 1e-3).unwrap();
    assert_eq!(kin.features, (FeatureKind::Curved, FeatureKind::Edge));
    let v = ball.velocity.norm();
    assert!((kin.normal_row.bias - v * v / r).abs() < 1e-12 * v * v / r, "κ = {}", kin.normal_row.bias);
}

#[test]
fn a_sliding_ball_starts_rolling_at_the_closed_form_time() {
    // The slide-to-roll case, with the rows as the constraint model will use them: at
    // every derivative evaluation one LCP row a = A f + b for the normal force, the force's
    // direction n − μ ŝ fixed by dynamic friction (Baraff eq. 9-6):
    //   A = J_n · M⁻¹w,  b = J_n·acc_free + κ,  f = max(0, −b/A),
    // M⁻¹w the accelerations a unit force along n − μŝ at p_c gives. RK4 steps; the slip's
    // rate from its row, ṡ = J_t·acc + κ_t, finds where it reaches zero (while the ball slides
    // its motion is quadratic and its slip linear in t, so both are exact): t = 2v₀/(7μg).
    // With κ replaced by the ball's lowest material point's centripetal term r|ω_t|² (up,
    // towards the centre), the normal force m(g − r|ω_t|²) falls as the ball spins up, and is
    // gone once r|ω_t|² > g (here at ω = 9.9 rad/s, short of rolling's 14.3): without
    // friction it would not roll, and the row, asking too little force, lets it sink through
    // the floor.
    let (r, m, mu, g, v0) = (0.1, 2.0, 0.3, 9.81, 2.0);
    let inertia = 0.4 * m * r * r;
    let ground = Body::new(Shape::HalfSpace, Pose::identity());
    let ball = Body::new(Shape::Sphere { radius: r }, Pose::identity());
    let rest = RigidMotion::at_rest(Point::origin());
    let side_b = ContactSide::of_part(&ground.model, &Pose::identity(), 0, rest);
    // State: centre, velocity, angular velocity (a ball's orientation does not change its
    // contact). Returns the state's rate and the slip's (along the first tangent, here x).
    let derivative = |y: &[Vec3; 3], material: bool| -> ([Vec3; 3], f64, f64) {
        let motion = RigidMotion {
            center_of_mass: Point::from(y[0]),
            velocity: y[1],
            angular_velocity: y[2],
        };
        let pose = Pose::translation(y[0].x, y[0].y, y[0].z);
        let side_a = ContactSide::of_part(&ball.model, &pose, 0, motion);
        let point = Point::from(y[0] - Vec3::z() * r);
        let kin = contact_kinematics(&side_a, &side_b, &point, &Vec3::z(), 1e-9).unwrap();
        let s = kin.tangents[0] * kin.slip[0] + kin.tangents[1] * kin.slip[1];
        let direction = kin.normal - s.normalize() * mu;
        let arm = kin.point - motion.center_of_mass;
        let per_force = Acceleration {
            linear: direction / m,
            angular: arm.cross(&direction) / inertia,
        };
        let free = Acceleration {
            linear: Vec3::new(0.0, 0.0, -g),
            angular: Vec3::zeros(),
        };
        let row = &kin.normal_row;
        let kappa = if material {
            let w = motion.angular_velocity;
            kin.normal.dot(&w.cross(&w.cross(&(kin.points.0 - motion.center_of_mass))))
        } else {
            row.bias
        };
        let f = (-(row.a.dot(&free) + kappa) / row.a.dot(&per_force)).max(0.0);
        let acceleration = Acceleration {
            linear: free.linear + per_force.linear * f,
            angular: per_force.angular * f,
        };
        let slip_rate = kin.slip_rows[0].value(&acceleration, &Acceleration::default());
        ([y[1], acceleration.linear, acceleration.angular], kin.slip[0], slip_rate)
    };
    // When it starts rolling (if it does within 0.5 s), and how far its centre sank.
    let roll = |material: bool| {
        let mut y = [Vec3::new(0.0, 0.0, r), Vec3::new(v0, 0.0, 0.0), Vec3::zeros()];
        let (dt, mut t, mut sunk) = (1e-3, 0.0, 0.0_f64);
        while t < 0.5 {
            let add = |y: &[Vec3; 3], k: &[Vec3; 3], h: f64| [y[0] + k[0] * h, y[1] + k[1] * h, y[2] + k[2] * h];
            let (k1, slip, slip_rate) = derivative(&y, material);
            if slip + slip_rate * dt <= 0.0 {
                return (Some(t - slip / slip_rate), sunk);
            }
            let k2 = derivative(&add(&y, &k1, dt / 2.0), material).0;
            let k3 = derivative(&add(&y, &k2, dt / 2.0), material).0;
            let k4 = derivative(&add(&y, &k3, dt), material).0;
            y = std::array::from_fn(|i| y[i] + (k1[i] + k2[i] * 2.0 + k3[i] * 2.0 + k4[i]) * (dt / 6.0));
            t += dt;
            sunk = sunk.max(r - y[0].z);
        }
        (None, sunk)
    };
    let expected = 2.0 * v0 / (7.0 * mu * g);
    let (t, sunk) = roll(false);
    let t = t.expect("it rolls");
    assert!((t - expected).abs() < 1e-9 * expected, "rolls at {t} s, closed form {expected} s");
    assert!(sunk.abs() < 1e-12, "the ball left the ground by {sunk}");
    // Material-point rows: the ball sinks through the floor (0.65 m by 0.5 s) instead.
    let (_, sunk) = roll(true);
    assert!(sunk > 0.5, "material-point rows: sank {sunk}");
}
