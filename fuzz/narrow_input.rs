//! The narrow phase's fuzz input: bytes decoded into two shapes (sphere, box, cylinder,
//! capsule, ellipsoid, the convex hull of up to 15 points; a half-space for the second) and
//! two poses, and the checks every answer must pass. Shared by the `narrow` fuzz target and
//! `crates/impulse/tests/fuzz_corpus.rs`, which replays `corpus/narrow/`.
//!
//! Sizes run from 1e-3 to 1e3 and positions over ±20 (of that unit): the fuzzing is of the
//! geometry, not of overflow, which the scene checks refuse before a shape meets another.
//! Missing bytes read as zero, so every input decodes.

use std::sync::Arc;

use impulse::collision::{Closest, CollisionModel, NarrowStats, PairCache, closest};
use impulse::dynamics::PlacedShape;
use impulse::geometry::{ConvexPolyhedron, Shape};
use impulse::math::{Point, Pose, Quat, Vec3};

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A number in [0, 1] from two bytes.
    fn unit(&mut self) -> f64 {
        f64::from(u16::from_le_bytes([self.byte(), self.byte()])) / f64::from(u16::MAX)
    }

    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// A size from 1e-3 to 1e3, evenly in its logarithm.
    fn size(&mut self) -> f64 {
        10f64.powf(self.between(-3.0, 3.0))
    }

    fn shape(&mut self, half_space: bool) -> Option<Shape> {
        let shape = match self.byte() % 7 {
            0 => Shape::Sphere {
                radius: self.size(),
            },
            1 => Shape::Box {
                half_extents: Vec3::new(self.size(), self.size(), self.size()),
            },
            2 => Shape::Cylinder {
                radius: self.size(),
                half_height: self.size(),
            },
            3 => Shape::Capsule {
                radius: self.size(),
                half_height: self.size(),
            },
            4 => Shape::Ellipsoid {
                radii: Vec3::new(self.size(), self.size(), self.size()),
            },
            5 => {
                let count = 4 + usize::from(self.byte() % 12);
                let scale = self.size();
                let points: Vec<Point> = (0..count)
                    .map(|_| {
                        Point::new(
                            self.between(-scale, scale),
                            self.between(-scale, scale),
                            self.between(-scale, scale),
                        )
                    })
                    .collect();
                // Flat or degenerate point sets are refused by the hull: not a narrow-phase case.
                Shape::Convex(Arc::new(ConvexPolyhedron::hull_of(&points).ok()?))
            }
            _ if half_space => Shape::HalfSpace,
            _ => Shape::Sphere {
                radius: self.size(),
            },
        };
        shape.check().ok()?;
        Some(shape)
    }

    fn pose(&mut self) -> Pose {
        let translation = Vec3::new(
            self.between(-20.0, 20.0),
            self.between(-20.0, 20.0),
            self.between(-20.0, 20.0),
        );
        // A rotation vector (axis × angle) of up to π along each axis.
        let pi = std::f64::consts::PI;
        let rotation = Quat::from_scaled_axis(Vec3::new(
            self.between(-pi, pi),
            self.between(-pi, pi),
            self.between(-pi, pi),
        ));
        Pose::from_parts(translation.into(), rotation)
    }
}

/// An answer every narrow-phase query must give: finite distance and points, a unit normal.
fn check_answer(answer: &Closest, what: &str) {
    assert!(answer.distance.is_finite(), "{what}: distance {answer:?}");
    assert!(
        answer
            .point_a
            .coords
            .iter()
            .chain(answer.point_b.coords.iter())
            .all(|c| c.is_finite()),
        "{what}: points {answer:?}"
    );
    assert!(
        (answer.normal.norm() - 1.0).abs() < 1e-6,
        "{what}: normal {answer:?}"
    );
}

/// Decodes `data` and runs the narrow phase on it: from a new cache, then again from that
/// cache with the second shape moved, as the event loop does. Panics on a wrong answer.
pub fn run(data: &[u8]) {
    let mut bytes = Bytes(data);
    let (Some(shape_a), Some(shape_b)) = (bytes.shape(false), bytes.shape(true)) else {
        return;
    };
    let (pose_a, pose_b) = (bytes.pose(), bytes.pose());
    let moved = bytes.pose();
    let spheres = match (&shape_a, &shape_b) {
        (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) => Some(ra + rb),
        _ => None,
    };
    let a = CollisionModel::from_shapes(&[PlacedShape::new(shape_a)]);
    let b = CollisionModel::from_shapes(&[PlacedShape::new(shape_b)]);
    let mut cache = PairCache::default();
    let mut stats = NarrowStats::default();
    // Only a pair of unbounded shapes has no answer, and the first shape is bounded.
    let first = closest(&a, &pose_a, &b, &pose_b, &mut cache, &mut stats)
        .expect("a bounded shape against any shape has a closest pair");
    check_answer(&first, "first query");
    if let Some(radii) = spheres {
        // Two spheres: |c_a − c_b| − r_a − r_b, to rounding of the larger magnitude.
        let expected = (pose_a.translation.vector - pose_b.translation.vector).norm() - radii;
        let scale = 40.0 + radii;
        assert!(
            (first.distance - expected).abs() <= 1e-12 * scale,
            "two spheres: {} against {expected}",
            first.distance
        );
    }
    let pose_b = moved * pose_b;
    let again = closest(&a, &pose_a, &b, &pose_b, &mut cache, &mut stats)
        .expect("a bounded shape against any shape has a closest pair");
    check_answer(&again, "query from the cache");
}
