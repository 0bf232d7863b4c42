//! The narrow phase: closest points between two bodies' collision models.
//!
//! Each pair of convex parts goes to the cheapest exact method: a half-space against anything by
//! its support function; two polyhedra by V-Clip (warm-started from the cached features);
//! everything else by GJK between the parts' cores with their margins added back (exact for
//! sphere and capsule pairs, converged to a tight tolerance for ellipsoids and cylinders). An
//! overlapping pair gets its penetration depth from EPA. A body pair's result is the closest of
//! its part pairs, found by walking both bounding-sphere trees and skipping pairs whose spheres
//! are already farther apart than the best distance so far.

use super::broad::FastMap;
use super::gjk::{GjkResult, GjkSettings, Support, epa, gjk};
use super::model::{CollisionModel, Convex, NodeContent, Part};
use super::vclip::{self, Feature};
use crate::math::{Point, Pose, Vec3};

/// The closest points of two bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Closest {
    /// Signed distance: positive apart, negative overlapping (minus the penetration depth).
    pub distance: f64,
    /// Closest (or deepest) point of body a, world frame.
    pub point_a: Point,
    /// Closest (or deepest) point of body b, world frame.
    pub point_b: Point,
    /// Unit contact normal pointing from body b towards body a (Mirtich's collision frame +z,
    /// §3.2: from body 2 to body 1).
    pub normal: Vec3,
    /// The part of each body the points lie on.
    pub parts: (usize, usize),
    /// The closest features, for two polyhedral parts.
    pub features: Option<(Feature, Feature)>,
}

/// Per-body-pair memory of the last query, for coherence.
#[derive(Clone, Debug, Default)]
pub struct PairCache {
    parts: FastMap<(usize, usize), PartCache>,
    /// The closest pair of parts last time: examined first, so that the walk over the
    /// bounding-sphere trees can skip the most from the start.
    closest: Option<(usize, usize)>,
}

#[derive(Clone, Copy, Debug)]
enum PartCache {
    Features((Feature, Feature)),
    Direction(Vec3),
}

/// Work done by narrow-phase queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NarrowStats {
    /// Convex part pairs examined.
    pub part_queries: u64,
    /// V-Clip walks that did not settle and fell back to exhaustive search.
    pub vclip_fallbacks: u64,
}

/// Closest points of two bodies whose model frames are at `pose_a` and `pose_b`. `None` when
/// they have no pair of parts that can touch (two half-spaces).
pub fn closest(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    cache: &mut PairCache,
    stats: &mut NarrowStats,
) -> Option<Closest> {
    closest_parts(a, pose_a, b, pose_b, 0.0, cache, stats)
        .pairs
        .first()
        .copied()
}

/// The part pairs of two bodies near their closest pair, for bounding the time of impact of
/// non-convex bodies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearParts {
    /// Closest points of every part pair examined, closest first: at least every pair within
    /// `slack` of the closest.
    pub pairs: Vec<Closest>,
    /// A lower bound on the distance of every part pair *not* examined (`None` when every
    /// pair was examined). At least the closest distance plus `slack`.
    pub unexamined: Option<f64>,
}

/// Closest points of every pair of parts of two bodies that could lie within `slack` of the
/// closest pair (the first of [`NearParts::pairs`]), skipping pairs whose bounding spheres are
/// farther apart. Mirtich eq. 2.1 takes the distance of non-convex bodies as the least over
/// pairs of convex pieces; the time-of-impact bound, which relies on convexity (Fig. 2.9), must
/// hold for every piece pair, so the pairs near the closest are returned too.
pub fn closest_parts(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    slack: f64,
    cache: &mut PairCache,
    stats: &mut NarrowStats,
) -> NearParts {
    let mut found: Vec<Closest> = Vec::new();
    let mut best = f64::INFINITY;
    let mut unexamined: Option<f64> = None;
    let consider = |ia: usize,
                    ib: usize,
                    found: &mut Vec<Closest>,
                    best: &mut f64,
                    cache: &mut PairCache,
                    stats: &mut NarrowStats| {
        // One hash lookup when the pair is known: the slot is updated in place.
        let slot = cache.parts.get_mut(&(ia, ib));
        let previous = slot.as_deref().copied();
        let (result, memory) =
            part_pair(&a.parts[ia], pose_a, &b.parts[ib], pose_b, previous, stats);
        match (memory, slot) {
            (Some(memory), Some(slot)) => *slot = memory,
            (Some(memory), None) => {
                cache.parts.insert((ia, ib), memory);
            }
            (None, _) => {}
        }
        if let Some(mut pair) = result {
            pair.parts = (ia, ib);
            *best = best.min(pair.distance);
            found.push(pair);
        }
    };
    // Half-spaces against every bounded part of the other body.
    for &h in &a.half_spaces {
        for ib in 0..b.parts.len() {
            if !b.half_spaces.contains(&ib) {
                consider(h, ib, &mut found, &mut best, cache, stats);
            }
        }
    }
    for &h in &b.half_spaces {
        for ia in 0..a.parts.len() {
            if !a.half_spaces.contains(&ia) {
                consider(ia, h, &mut found, &mut best, cache, stats);
            }
        }
    }
    // Bounded parts, by the bounding-sphere trees: last time's closest pair first, then the
    // nearer child of each node before the farther, so that `best` falls early.
    if let (Some(root_a), Some(root_b)) = (a.root(), b.root()) {
        let gap = |na: usize, nb: usize| {
            let (node_a, node_b) = (&a.tree[na], &b.tree[nb]);
            ((pose_a * node_a.centre) - (pose_b * node_b.centre)).norm()
                - node_a.radius
                - node_b.radius
        };
        let seed = cache.closest.filter(|&(ia, ib)| {
            ia < a.parts.len()
                && ib < b.parts.len()
                && !a.half_spaces.contains(&ia)
                && !b.half_spaces.contains(&ib)
        });
        if let Some((ia, ib)) = seed {
            consider(ia, ib, &mut found, &mut best, cache, stats);
        }
        let mut stack = vec![(root_a, root_b, gap(root_a, root_b))];
        while let Some((na, nb, node_gap)) = stack.pop() {
            if node_gap >= best + slack {
                unexamined = Some(unexamined.map_or(node_gap, |u| u.min(node_gap)));
                continue;
            }
            let children = match (a.tree[na].content, b.tree[nb].content) {
                (NodeContent::Leaf(ia), NodeContent::Leaf(ib)) => {
                    if seed != Some((ia, ib)) {
                        consider(ia, ib, &mut found, &mut best, cache, stats);
                    }
                    continue;
                }
                (NodeContent::Children(l, r), NodeContent::Leaf(_)) => [(l, nb), (r, nb)],
                (NodeContent::Leaf(_), NodeContent::Children(l, r)) => [(na, l), (na, r)],
                (NodeContent::Children(al, ar), NodeContent::Children(bl, br)) => {
                    if a.tree[na].radius >= b.tree[nb].radius {
                        [(al, nb), (ar, nb)]
                    } else {
                        [(na, bl), (na, br)]
                    }
                }
            };
            let [(xa, xb), (ya, yb)] = children;
            let (gx, gy) = (gap(xa, xb), gap(ya, yb));
            // The stack pops the last pushed: push the farther child first.
            if gx <= gy {
                stack.push((ya, yb, gy));
                stack.push((xa, xb, gx));
            } else {
                stack.push((xa, xb, gx));
                stack.push((ya, yb, gy));
            }
        }
    }
    // Closest first; among equals, the first found (a stable sort).
    found.sort_by(|x, y| x.distance.total_cmp(&y.distance));
    cache.closest = found.first().map(|c| c.parts);
    NearParts {
        pairs: found,
        unexamined,
    }
}

/// A placed convex part's support functions in world coordinates.
struct Placed<'a> {
    convex: &'a Convex,
    pose: Pose,
}

impl Placed<'_> {
    fn core(&self, direction: &Vec3) -> Point {
        self.pose
            * self
                .convex
                .core_support(&(self.pose.rotation.inverse() * direction))
    }

    fn full(&self, direction: &Vec3) -> Point {
        self.pose
            * self
                .convex
                .support(&(self.pose.rotation.inverse() * direction))
    }
}

struct Core<'a, 'b>(&'a Placed<'b>);
struct Full<'a, 'b>(&'a Placed<'b>);

impl Support for Core<'_, '_> {
    fn support(&self, direction: &Vec3) -> Point {
        self.0.core(direction)
    }
}

impl Support for Full<'_, '_> {
    fn support(&self, direction: &Vec3) -> Point {
        self.0.full(direction)
    }
}

/// Closest points of two parts, and what to remember for next time.
fn part_pair(
    a: &Part,
    pose_a: &Pose,
    b: &Part,
    pose_b: &Pose,
    previous: Option<PartCache>,
    stats: &mut NarrowStats,
) -> (Option<Closest>, Option<PartCache>) {
    stats.part_queries += 1;
    let pa = Placed {
        convex: &a.convex,
        pose: pose_a * a.pose,
    };
    let pb = Placed {
        convex: &b.convex,
        pose: pose_b * b.pose,
    };
    match (&a.convex, &b.convex) {
        (Convex::HalfSpace, Convex::HalfSpace) => (None, None),
        (_, Convex::HalfSpace) => (Some(against_half_space(&pa, &pb, false)), None),
        (Convex::HalfSpace, _) => (Some(against_half_space(&pb, &pa, true)), None),
        (Convex::Polyhedron(poly_a), Convex::Polyhedron(poly_b)) => {
            let start = match previous {
                Some(PartCache::Features(f)) => Some(f),
                _ => None,
            };
            let (result, fell_back) =
                vclip::closest_features_or_search(poly_a, &pa.pose, poly_b, &pb.pose, start);
            stats.vclip_fallbacks += u64::from(fell_back);
            let memory = Some(PartCache::Features(result.features()));
            match result {
                vclip::Proximity::Separated {
                    distance,
                    point_a,
                    point_b,
                    features,
                } => {
                    let normal = if distance > 1e-12 * scale(&pa, &pb) {
                        (point_a - point_b) / distance
                    } else {
                        feature_normal(poly_a, &pa.pose, poly_b, &pb.pose, features)
                    };
                    (
                        Some(Closest {
                            distance,
                            point_a,
                            point_b,
                            normal,
                            parts: (0, 0),
                            features: Some(features),
                        }),
                        memory,
                    )
                }
                vclip::Proximity::Penetrating { features } => {
                    let mut found = penetration(&pa, &pb);
                    found.features = Some(features);
                    (Some(found), memory)
                }
            }
        }
        _ => {
            let direction = match previous {
                Some(PartCache::Direction(d)) => d,
                _ => pa.pose.translation.vector - pb.pose.translation.vector,
            };
            let settings = GjkSettings::default();
            let margins = a.convex.margin() + b.convex.margin();
            match gjk(&Core(&pa), &Core(&pb), &direction, &settings) {
                GjkResult::Separated {
                    distance,
                    point_a,
                    point_b,
                    direction,
                } => (
                    Some(Closest {
                        distance: distance - margins,
                        point_a: point_a - direction * a.convex.margin(),
                        point_b: point_b + direction * b.convex.margin(),
                        normal: direction,
                        parts: (0, 0),
                        features: None,
                    }),
                    Some(PartCache::Direction(direction)),
                ),
                GjkResult::Intersecting(_) => (Some(penetration(&pa, &pb)), None),
            }
        }
    }
}

fn scale(a: &Placed, b: &Placed) -> f64 {
    let r = |p: &Placed| {
        let radius = p.convex.bounding_radius();
        if radius.is_finite() { radius } else { 1.0 }
    };
    r(a) + r(b) + a.pose.translation.vector.norm() + b.pose.translation.vector.norm()
}

/// A bounded part against a half-space (`plane`'s z ≤ 0): the part's support along the
/// plane's inward normal is its deepest point. `swapped` when the half-space is body a.
fn against_half_space(part: &Placed, plane: &Placed, swapped: bool) -> Closest {
    let n = plane.pose.rotation * Vec3::z();
    let offset = n.dot(&plane.pose.translation.vector);
    let deepest = part.full(&-n);
    let distance = n.dot(&deepest.coords) - offset;
    let on_plane = deepest - n * distance;
    if swapped {
        Closest {
            distance,
            point_a: on_plane,
            point_b: deepest,
            normal: -n,
            parts: (0, 0),
            features: None,
        }
    } else {
        Closest {
            distance,
            point_a: deepest,
            point_b: on_plane,
            normal: n,
            parts: (0, 0),
            features: None,
        }
    }
}

/// Penetration depth, direction and deepest points of two overlapping parts (EPA).
fn penetration(a: &Placed, b: &Placed) -> Closest {
    let full_a = Full(a);
    let full_b = Full(b);
    let direction = a.pose.translation.vector - b.pose.translation.vector;
    let overlap = match gjk(&full_a, &full_b, &direction, &GjkSettings::default()) {
        GjkResult::Intersecting(simplex) => {
            epa(&full_a, &full_b, &simplex, 1e-10 * scale(a, b), 128)
        }
        GjkResult::Separated {
            distance,
            point_a,
            point_b,
            direction,
        } => {
            // Touching to within GJK's tolerance: report contact at zero depth.
            return Closest {
                distance,
                point_a,
                point_b,
                normal: direction,
                parts: (0, 0),
                features: None,
            };
        }
    };
    Closest {
        distance: -overlap.depth,
        point_a: overlap.point_a,
        point_b: overlap.point_b,
        normal: overlap.direction,
        parts: (0, 0),
        features: None,
    }
}

/// A contact normal from the closest features of touching polyhedra (from b towards a).
fn feature_normal(
    a: &crate::geometry::ConvexPolyhedron,
    pose_a: &Pose,
    b: &crate::geometry::ConvexPolyhedron,
    pose_b: &Pose,
    features: (Feature, Feature),
) -> Vec3 {
    let towards_a = (pose_a.translation.vector - pose_b.translation.vector)
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::z);
    let edge = |poly: &crate::geometry::ConvexPolyhedron, pose: &Pose, h: u32| {
        let t = poly.vertices()[poly.half_edges()[h as usize].origin as usize];
        let hd = poly.vertices()[poly.head(h) as usize];
        pose.rotation * (hd - t)
    };
    let n = match features {
        (_, Feature::Face(f)) => pose_b.rotation * b.faces()[f as usize].normal,
        (Feature::Face(f), _) => -(pose_a.rotation * a.faces()[f as usize].normal),
        (Feature::Edge(e1), Feature::Edge(e2)) => {
            let n = edge(a, pose_a, e1).cross(&edge(b, pose_b, e2));
            let n = n.try_normalize(0.0).unwrap_or(towards_a);
            if n.dot(&towards_a) < 0.0 { -n } else { n }
        }
        _ => towards_a,
    };
    n.try_normalize(0.0).unwrap_or(towards_a)
}
