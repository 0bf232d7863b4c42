//! Seeded random draws for property tests: directions, rotations, poses and convex hulls. The
//! order of the draws is part of each function: a test seeded the same draws the same cases.

use std::ops::Range;

use impulse::geometry::ConvexPolyhedron;
use impulse::math::{Point, Pose, Quat, Vec3, pose};
use rand::Rng;
use rand_pcg::Pcg64;

/// A unit vector, from a point drawn in the cube [−1, 1]³ and kept when 0.1 < |v| < 1.
pub fn random_unit(rng: &mut Pcg64) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.norm() > 0.1 && v.norm() < 1.0 {
            return v.normalize();
        }
    }
}

/// A pose at most `reach` from the origin, turned by up to 3 rad about a random axis.
pub fn random_pose(rng: &mut Pcg64, reach: f64) -> Pose {
    let axis = random_unit(rng);
    let angle = rng.random_range(-3.0..3.0);
    pose(
        random_unit(rng) * rng.random_range(0.0..reach),
        Quat::from_scaled_axis(axis * angle),
    )
}

/// A rotation by up to π about an axis drawn in the cube [−1, 1]³.
pub fn rotation(rng: &mut Pcg64) -> Quat {
    let axis = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    Quat::from_scaled_axis(axis.normalize() * rng.random_range(0.0..std::f64::consts::PI))
}

/// A pose whose origin is in the cube [−spread, spread]³, turned by up to 3 rad about an axis
/// drawn in the cube [−1, 1]³.
pub fn pose_in_cube(rng: &mut Pcg64, spread: f64) -> Pose {
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

/// A point in the cube [−1, 1]³.
pub fn in_unit_cube(rng: &mut Pcg64) -> Point {
    Point::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
}

/// The convex hull of a number of points in `counts`, each drawn by `point`; drawn again until
/// the points span a solid.
pub fn random_hull(
    rng: &mut Pcg64,
    counts: Range<i32>,
    mut point: impl FnMut(&mut Pcg64) -> Point,
) -> ConvexPolyhedron {
    loop {
        let n = rng.random_range(counts.clone());
        let points: Vec<Point> = (0..n).map(|_| point(rng)).collect();
        if let Ok(hull) = ConvexPolyhedron::from_points(&points) {
            return hull;
        }
    }
}
