//! Tests of the contact kinematics.
//!
//! The main oracle is finite differences along exact motions: two bodies move with constant
//! linear and angular accelerations (translation in closed form, rotation by RK4 in many small
//! steps, ~1e-16), the engine's own narrow phase (`collision::closest`, V-Clip, GJK and closed
//! forms: a separate algorithm) measures the distance and the contact point at t = 0, ±h, ±2h,
//! and fourth-order central differences of d and of the slip velocity s(t) = v_a(p_c(t)) −
//! v_b(p_c(t)) are compared with d, ḋ, J·acc + κ and the slip rows. Contacts at the corners of a
//! region (not the closest pair) are measured by a direct geometric formula along the same
//! motion instead. Closed forms and the degenerate cases follow.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};
use std::sync::Arc;

use nalgebra::{Quaternion, Translation3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::*;
use crate::collision::{NarrowStats, PairCache, closest, vclip};
use crate::dynamics::PlacedShape;
use crate::geometry::{ConvexPolyhedron, Shape};
use crate::math::Quat;

/// The tolerance of the feature classification (the manifold's envelope).
const EPSILON: f64 = 1e-6;

/// A body in a test: its collision model, its model frame's pose at t = 0, its centre of mass
/// (a point of the body, not the model origin) and constant accelerations.
#[derive(Clone)]
struct Body {
    model: CollisionModel,
    pose: Pose,
    com: Point,
    velocity: Vec3,
    spin: Vec3,
    acceleration: Vec3,
    angular_acceleration: Vec3,
}

impl Body {
    fn new(shape: Shape, pose: Pose) -> Self {
        let model = CollisionModel::from_shapes(&[PlacedShape {
            shape,
            pose: Pose::identity(),
            density: None,
        }]);
        Self {
            model,
            com: Point::from(pose.translation.vector),
            pose,
            velocity: Vec3::zeros(),
            spin: Vec3::zeros(),
            acceleration: Vec3::zeros(),
            angular_acceleration: Vec3::zeros(),
        }
    }

    /// Random velocities and accelerations (components in ±`speed`, ±`accel`) and a centre of
    /// mass up to `offset` from the model origin.
    fn moving(mut self, rng: &mut Pcg64, speed: f64, accel: f64, offset: f64) -> Self {
        if offset > 0.0 {
            self.com += random_vec(rng, offset);
        }
        self.velocity = random_vec(rng, speed);
        self.spin = random_vec(rng, speed);
        self.acceleration = random_vec(rng, accel);
        self.angular_acceleration = random_vec(rng, accel);
        self
    }

    fn shifted(mut self, by: Vec3) -> Self {
        self.pose = Translation3::from(by) * self.pose;
        self.com += by;
        self
    }

    fn accelerations(&self) -> Acceleration {
        Acceleration {
            linear: self.acceleration,
            angular: self.angular_acceleration,
        }
    }

    /// The model pose and the motion at time t.
    fn at(&self, t: f64) -> (Pose, RigidMotion) {
        let turn = rotation_after(&self.spin, &self.angular_acceleration, t);
        let com = self.com + self.velocity * t + self.acceleration * (0.5 * t * t);
        let pose = Pose::from_parts(Translation3::from(com.coords), turn)
            * Pose::translation(-self.com.x, -self.com.y, -self.com.z)
            * self.pose;
        let motion = RigidMotion {
            center_of_mass: com,
            velocity: self.velocity + self.acceleration * t,
            angular_velocity: self.spin + self.angular_acceleration * t,
        };
        (pose, motion)
    }

    fn side(&self, t: f64) -> (Pose, RigidMotion) {
        self.at(t)
    }
}

/// The rotation after time t (either sign) of a body turning at ω(τ) = ω₀ + α τ from the
/// identity: q̇ = ½ (0, ω) q by classical RK4 in 200 steps (error ~ (ω t/200)⁵ per step).
fn rotation_after(w0: &Vec3, alpha: &Vec3, t: f64) -> Quat {
    let steps = 200;
    let dt = t / steps as f64;
    let rate = |tau: f64, q: &Quaternion<f64>| Quaternion::from_imag(w0 + alpha * tau) * q * 0.5;
    let mut q = Quaternion::identity();
    for i in 0..steps {
        let tau = i as f64 * dt;
        let k1 = rate(tau, &q);
        let k2 = rate(tau + dt / 2.0, &(q + k1 * (dt / 2.0)));
        let k3 = rate(tau + dt / 2.0, &(q + k2 * (dt / 2.0)));
        let k4 = rate(tau + dt, &(q + k3 * dt));
        q += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6.0);
    }
    Quat::from_quaternion(q)
}

fn random_vec(rng: &mut Pcg64, scale: f64) -> Vec3 {
    Vec3::new(
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
    )
}

fn rotation(axis_angle: Vec3) -> Quat {
    Quat::from_scaled_axis(axis_angle)
}

fn cuboid(x: f64, y: f64, z: f64) -> Shape {
    Shape::Box {
        half_extents: Vec3::new(x, y, z),
    }
}

/// The narrow phase's closest points of the two bodies at these poses (a fresh cache).
fn narrow(a: &Body, pose_a: &Pose, b: &Body, pose_b: &Pose) -> Closest {
    closest(
        &a.model,
        pose_a,
        &b.model,
        pose_b,
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .expect("the pair can touch")
}

/// Moves `a` along the pair's normal so that the narrow phase measures `gap` between them.
fn place_at_gap(mut a: Body, b: &Body, gap: f64) -> Body {
    for _ in 0..3 {
        let c = narrow(&a, &a.pose, b, &b.pose);
        a = a.shifted(c.normal * (gap - c.distance));
    }
    a
}

/// The kinematics of the pair's contact at t = 0, at the narrow phase's closest points.
fn kinematics_at_closest(a: &Body, b: &Body) -> (Closest, Result<ContactKinematics, Degenerate>) {
    let (pose_a, motion_a) = a.side(0.0);
    let (pose_b, motion_b) = b.side(0.0);
    let c = narrow(a, &pose_a, b, &pose_b);
    let side_a = ContactSide::of_part(&a.model, &pose_a, c.parts.0, motion_a);
    let side_b = ContactSide::of_part(&b.model, &pose_b, c.parts.1, motion_b);
    let kin = contact_kinematics(&side_a, &side_b, &c.contact_point(), &c.normal, EPSILON);
    (c, kin)
}

/// Fourth-order central differences of samples at −2h, −h, 0, h, 2h: (f', f'').
fn differences<T>(f: &[T; 5], h: f64) -> (T, T)
where
    T: Copy + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<f64, Output = T>,
{
    let first = (f[0] - f[4] + (f[3] - f[1]) * 8.0) * (1.0 / (12.0 * h));
    let second = ((f[1] + f[3]) * 16.0 - f[0] - f[4] - f[2] * 30.0) * (1.0 / (12.0 * h * h));
    (first, second)
}

/// Largest errors seen by a family of checks (for the report of a failing test).
#[derive(Debug, Default)]
struct Errors {
    distance: f64,
    speed: f64,
    normal_row: f64,
    slip: f64,
    slip_row: f64,
    normal: f64,
}

/// The finite differences' step and the tolerances of the comparison, relative to
/// `1 + |terms|`: of d; of ḋ and s; of d̈; of ṡ.
#[derive(Clone, Copy)]
struct Tolerances {
    step: f64,
    distance: f64,
    speed: f64,
    acceleration: f64,
    slip_acceleration: f64,
    /// Of the settled normal against the narrow phase's.
    normal: f64,
}

/// For a narrow phase exact to rounding (closed forms, support functions, V-Clip, GJK against
/// a point or a segment core). At h = 1e-3 the stencil's truncation, h⁴ f⁽⁶⁾/90, is ~1e-9 of
/// the fastest pair (a ball 0.28 from a box's corner, relative speed 3.4) and its rounding,
/// 64/12 · 1e-16/h², 5e-10; the largest errors seen are 2.3e-9 (speeds) and 2.3e-9
/// (accelerations).
const EXACT: Tolerances = Tolerances {
    step: 1e-3,
    distance: 1e-12,
    speed: 2e-8,
    acceleration: 2e-8,
    slip_acceleration: 2e-8,
    normal: 1e-12,
};

/// For GJK against a curved core (an ellipsoid, a cylinder), which stops with distances within
/// ~3e-13 and points within ~1e-7: a longer step (4e-3) keeps the rounding down. Largest errors
/// seen: d 9.0e-13, ḋ and s 1.0e-7, d̈ 9.2e-8, ṡ 9.9e-6 (the points' error over the step); its
/// normal is within 5e-6 of the settled one (the distance is stationary in it).
const ITERATIVE: Tolerances = Tolerances {
    step: 4e-3,
    distance: 1e-11,
    speed: 1e-6,
    acceleration: 1e-6,
    slip_acceleration: 1e-4,
    normal: 2e-5,
};

/// Compares `kin` (at t = 0) with finite differences of `measure` (distance and contact point
/// at the poses of time t) along the bodies' exact motions.
fn compare_with_motion(
    name: &str,
    a: &Body,
    b: &Body,
    kin: &ContactKinematics,
    measure: &dyn Fn(&Pose, &Pose) -> (f64, Point),
    tolerances: Tolerances,
    errors: &mut Errors,
) {
    let h = tolerances.step;
    let times = [-2.0 * h, -h, 0.0, h, 2.0 * h];
    let mut distances = [0.0; 5];
    let mut slips = [Vec3::zeros(); 5];
    let mut point0 = Point::origin();
    for (i, &t) in times.iter().enumerate() {
        let (pose_a, motion_a) = a.at(t);
        let (pose_b, motion_b) = b.at(t);
        let (d, pc) = measure(&pose_a, &pose_b);
        distances[i] = d;
        slips[i] = motion_a.velocity_at(&pc.coords) - motion_b.velocity_at(&pc.coords);
        if i == 2 {
            point0 = pc;
        }
    }
    let (d_rate, d_accel) = differences(&distances, h);
    let (slip_rate, _) = differences(&slips, h);
    let (acc_a, acc_b) = (a.accelerations(), b.accelerations());
    let row = &kin.normal_row;
    let predicted = row.value(&acc_a, &acc_b);
    let scale = 1.0 + row.a.dot(&acc_a).abs() + row.b.dot(&acc_b).abs() + row.bias.abs();
    // Errors relative to `1 + |terms|`.
    let check = |what: &str, got: f64, want: f64, tolerance: f64, scale: f64, worst: &mut f64| {
        let error = (got - want).abs() / scale;
        *worst = worst.max(error);
        assert!(
            error <= tolerance,
            "{name}: {what} {got} against {want} measured (relative error {error:e} > {tolerance:e}); {kin:#?}"
        );
    };
    check(
        "distance",
        kin.distance,
        distances[2],
        tolerances.distance,
        1.0 + distances[2].abs(),
        &mut errors.distance,
    );
    let point_error = (kin.point - point0).norm();
    assert!(
        point_error <= 1e-6,
        "{name}: contact point {} against {point0} measured",
        kin.point
    );
    check(
        "ḋ",
        kin.normal_speed,
        d_rate,
        tolerances.speed,
        1.0 + d_rate.abs(),
        &mut errors.speed,
    );
    check(
        "d̈",
        predicted,
        d_accel,
        tolerances.acceleration,
        scale,
        &mut errors.normal_row,
    );
    for i in 0..2 {
        let t = kin.tangents[i];
        check(
            "slip",
            kin.slip[i],
            t.dot(&slips[2]),
            tolerances.speed,
            1.0 + slips[2].norm(),
            &mut errors.slip,
        );
        let srow = &kin.slip_rows[i];
        let sscale = 1.0 + srow.a.dot(&acc_a).abs() + srow.b.dot(&acc_b).abs() + srow.bias.abs();
        check(
            "slip rate",
            srow.value(&acc_a, &acc_b),
            t.dot(&slip_rate),
            tolerances.slip_acceleration,
            sscale,
            &mut errors.slip_row,
        );
    }
}

/// A family of random states of one pair kind, each checked against the narrow phase along
/// its motion. `make` builds the pair (a, b) from the random source.
fn narrow_family(
    name: &str,
    seed: u64,
    samples: usize,
    expected: (FeatureKind, FeatureKind),
    tolerances: Tolerances,
    make: impl Fn(&mut Pcg64) -> (Body, Body),
) -> Errors {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut errors = Errors::default();
    for sample in 0..samples {
        let (a, b) = make(&mut rng);
        let (c, kin) = kinematics_at_closest(&a, &b);
        let kin = kin.unwrap_or_else(|e| panic!("{name} #{sample}: {e} ({c:?})"));
        assert_eq!(kin.features, expected, "{name} #{sample}: {c:?}");
        let normal_error = (kin.normal - c.normal).norm();
        errors.normal = errors.normal.max(normal_error);
        assert!(
            normal_error < tolerances.normal,
            "{name} #{sample}: settled normal {} against the narrow phase's {}",
            kin.normal,
            c.normal
        );
        let measure = |pa: &Pose, pb: &Pose| {
            let c = narrow(&a, pa, &b, pb);
            (c.distance, c.contact_point())
        };
        compare_with_motion(
            &format!("{name} #{sample}"),
            &a,
            &b,
            &kin,
            &measure,
            tolerances,
            &mut errors,
        );
    }
    errors
}

/// A random rotation within `spread` (radians, per component) of `base`.
fn near(base: Vec3, spread: f64, rng: &mut Pcg64) -> Quat {
    rotation(base + random_vec(rng, spread))
}

/// A fixed ground (half-space z ≤ 0), tilted a little.
fn ground(rng: &mut Pcg64) -> Body {
    Body::new(Shape::HalfSpace, Pose::from_parts(Translation3::identity(), near(Vec3::zeros(), 0.1, rng)))
}

/// `a` above `b` along +z, then placed at a random gap in [0.01, 0.05] along the pair's normal.
fn above(a: Body, b: &Body, rng: &mut Pcg64) -> Body {
    let gap = rng.random_range(0.01..0.05);
    place_at_gap(a, b, gap)
}

fn at(shape: Shape, position: Vec3, orientation: Quat) -> Body {
    Body::new(shape, Pose::from_parts(Translation3::from(position), orientation))
}

/// Prints a family's largest relative errors (each comparison is asserted where it is made;
/// this is for `--nocapture` runs).
fn report(name: &str, errors: &Errors) {
    println!("{name}: {errors:?}");
}

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

/// The highest point of a body (its support along +z).
fn narrow_top(body: &Body) -> Vec3 {
    let part = &body.model.parts[0];
    let pose = body.pose * part.pose;
    (pose * part.convex.support(&(pose.rotation.inverse() * Vec3::z()))).coords
}

/// The lowest point of a body.
fn narrow_bottom(body: &Body) -> Vec3 {
    let part = &body.model.parts[0];
    let pose = body.pose * part.pose;
    (pose * part.convex.support(&(pose.rotation.inverse() * -Vec3::z()))).coords
}

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

/// The contact region of a pair, by `region_kinematics`, with each corner's kinematics.
fn corners(a: &Body, b: &Body) -> Vec<ContactKinematics> {
    let (pose_a, motion_a) = a.at(0.0);
    let (pose_b, motion_b) = b.at(0.0);
    let c = narrow(a, &pose_a, b, &pose_b);
    region_kinematics(&a.model, &pose_a, motion_a, &b.model, &pose_b, motion_b, &c, EPSILON)
        .into_iter()
        .map(|k| k.unwrap_or_else(|e| panic!("a corner failed: {e}")))
        .collect()
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

// ---------------------------------------------------------------------------------------------
// Closed forms.

/// The kinematics at the narrow phase's closest points, which must exist.
fn kinematics_of(a: &Body, b: &Body) -> ContactKinematics {
    let (c, kin) = kinematics_at_closest(a, b);
    kin.unwrap_or_else(|e| panic!("{e}: {c:?}"))
}

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

// ---------------------------------------------------------------------------------------------
// Degenerate contacts: a named outcome, never a division by zero.

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
