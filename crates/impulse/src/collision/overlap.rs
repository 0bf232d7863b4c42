//! Whether the shapes of one body overlap each other.
//!
//! A compound body's mass properties are the sum of its shapes' (closed forms and Mirtich's
//! volume integrals, each exact): that is the union's only when the shapes do not overlap.
//! The union of overlapping primitives (a cylinder through a cylinder, a ball in a box) has no
//! closed form in general, so overlapping shapes are refused rather than weighed twice where
//! they meet (issue 41, item 5a; see docs/sources.md, "Compound bodies"). Shapes may touch.

use super::gjk::{GjkResult, GjkSettings, Support, epa, gjk};
use super::CollisionModel;
use super::model::Part;
use crate::dynamics::PlacedShape;
use crate::geometry::Shape;
use crate::math::{Point, Vec3};

/// Two shapes of a body that overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeOverlap {
    /// Indices of the two shapes in the body's list (`first < second`).
    pub first: usize,
    pub second: usize,
    /// How deep they overlap (length).
    pub depth: f64,
}

/// The first pair of `shapes` (in list order) that overlap by more than rounding: 1e-9 of the
/// larger shape's reach from the model origin. Half-spaces are skipped (they have no mass).
/// Overlaps are measured between the shapes' convex pieces, so a mesh decomposed by V-HACD,
/// whose pieces may stand a little proud of its surface, can be reported as overlapping a
/// shape it only touches.
pub fn overlapping_shapes(shapes: &[PlacedShape]) -> Option<ShapeOverlap> {
    if shapes.len() < 2 {
        return None;
    }
    // Each bounded shape's pieces and its reach from the model origin.
    let models: Vec<Option<(CollisionModel, f64)>> = shapes
        .iter()
        .map(|s| {
            (!matches!(s.shape, Shape::HalfSpace)).then(|| {
                let model = CollisionModel::from_shapes(std::slice::from_ref(s));
                let reach = model
                    .parts
                    .iter()
                    .map(|p| p.pose.translation.vector.norm() + p.convex.bounding_radius())
                    .fold(0.0, f64::max);
                (model, reach)
            })
        })
        .collect();
    for (first, a) in models.iter().enumerate() {
        let Some((a, reach_a)) = a else { continue };
        for (second, b) in models.iter().enumerate().skip(first + 1) {
            let Some((b, reach_b)) = b else { continue };
            let tolerance = 1e-9 * reach_a.max(*reach_b);
            let depth = a
                .parts
                .iter()
                .flat_map(|pa| {
                    b.parts
                        .iter()
                        .map(move |pb| overlap_depth(pa, pb, tolerance))
                })
                .fold(0.0, f64::max);
            if depth > tolerance {
                return Some(ShapeOverlap {
                    first,
                    second,
                    depth,
                });
            }
        }
    }
    None
}

/// How deep two convex parts overlap (zero when apart or touching). GJK on their support
/// functions, then EPA: unlike the closest-feature walk, which may settle on a vertex lying on
/// an edge of the other part, GJK sees the origin inside the Minkowski difference of any two
/// parts sharing volume, however their features line up (two boxes with coincident edges).
fn overlap_depth(a: &Part, b: &Part, tolerance: f64) -> f64 {
    let (sa, sb) = (Placed(a), Placed(b));
    let start = a.pose.translation.vector - b.pose.translation.vector;
    match gjk(&sa, &sb, &start, &GjkSettings::default()) {
        GjkResult::Separated { .. } => 0.0,
        GjkResult::Intersecting(simplex) => epa(&sa, &sb, &simplex, 0.1 * tolerance, 128).depth,
    }
}

/// A part's support function in its body's model frame.
struct Placed<'a>(&'a Part);

impl Support for Placed<'_> {
    fn support(&self, direction: &Vec3) -> Point {
        let pose = &self.0.pose;
        pose * self
            .0
            .convex
            .support(&(pose.rotation.inverse() * direction))
    }
}
