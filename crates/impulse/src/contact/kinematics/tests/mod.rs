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

/// The kinematics at the narrow phase's closest points, which must exist.
fn kinematics_of(a: &Body, b: &Body) -> ContactKinematics {
    let (c, kin) = kinematics_at_closest(a, b);
    kin.unwrap_or_else(|e| panic!("{e}: {c:?}"))
}

mod closed_forms;
mod degenerate;
mod motion;
mod regions;
