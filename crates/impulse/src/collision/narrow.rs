//! The narrow phase: closest points between two bodies' collision models.
//!
//! Each pair of convex parts goes to the cheapest exact method: a half-space against anything by
//! its support function; two polyhedra by V-Clip (warm-started from the cached features);
//! everything else by GJK between the parts' cores with their margins added back (exact for
//! sphere and capsule pairs, converged to a tight tolerance for ellipsoids and cylinders). Before
//! GJK, a pair in which one part has a flat face (a cylinder's end cap; a polyhedron's face
//! when the other part is an ellipsoid or a cylinder, whose curved core makes GJK iterate)
//! tries a shortcut that is exact where it applies: when the other part's point deepest towards
//! the face lies beyond the face's plane and projects inside the face, the gap to the plane is
//! the distance (the flat part lies behind its plane), as for a body resting on a table. Two
//! cylinders touching at curved features (rim or side) are settled by Newton's method along the
//! rim from the last query's direction, when the duality gap certifies it (`cylinders`). An
//! overlapping pair gets its penetration depth from EPA. A body pair's result is the closest of
//! its part pairs, found by walking both bounding-sphere trees and skipping pairs whose spheres
//! are already farther apart than the best distance so far.

use super::broad::FastMap;
use super::cylinders::{PlacedCylinder, curved_contact};
use super::flat_face::flat_face_contact;
use super::gjk::{GjkResult, GjkSettings, Support, epa, gjk};
use super::model::{CollisionModel, Convex, NodeContent, Part};
use super::vclip::{self, Feature};
use crate::math::{Point, Pose, Vec3};

/// The closest points of two bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
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

impl Closest {
    /// Where a collision acts: midway between the closest points (which are up to ε apart
    /// along the normal). Both bodies take their impulse at this one point, so a tangential
    /// impulse exerts no net torque on the pair and angular momentum is conserved exactly; the
    /// collision matrix and the relative velocity are taken there too. (The thesis leaves the
    /// choice open.)
    pub fn contact_point(&self) -> Point {
        Point::from((self.point_a.coords + self.point_b.coords) / 2.0)
    }
}

/// Per-body-pair memory of the last query, for coherence.
#[derive(Clone, Debug, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct PairCache {
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    parts: FastMap<(usize, usize), PartCache>,
    /// The closest pair of parts last time: examined first, so that the walk over the
    /// bounding-sphere trees can skip the most from the start.
    closest: Option<(usize, usize)>,
}

#[derive(Clone, Copy, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
enum PartCache {
    Features((Feature, Feature)),
    Direction(Vec3),
}

/// Work done by narrow-phase queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct NarrowStats {
    /// Convex part pairs examined.
    pub part_queries: u64,
    /// V-Clip walks that did not settle and fell back to exhaustive search.
    pub vclip_fallbacks: u64,
    /// Part pairs settled exactly by a flat face (a polygon face or a cylinder's cap) without
    /// GJK.
    pub flat_face_contacts: u64,
    /// Cylinder pairs settled at their curved features (rim or side) by Newton's method,
    /// certified to GJK's tolerance, without GJK.
    pub curved_contacts: u64,
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
    closest_parts(a, pose_a, b, pose_b, &mut Slack(0.0), cache, stats)
        .pairs
        .first()
        .copied()
}

/// The part pairs of two bodies near their closest pair, for bounding the time of impact of
/// non-convex bodies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearParts {
    /// Closest points of every part pair examined, the closest first and the others in the
    /// order examined: at least every pair within `slack` of the closest.
    pub pairs: Vec<Closest>,
    /// A lower bound on the distance of every part pair *not* examined (`None` when every
    /// pair was examined). At least the closest distance plus `slack`.
    pub unexamined: Option<f64>,
}

/// Which part pairs besides the closest [`closest_parts`] examines. Pairs whose bounding
/// spheres are nearer than the closest distance found so far are always examined (one of them
/// may be the closest); the others only when [`Beyond::skip`] says so.
pub trait Beyond {
    /// Told of every examined pair.
    fn examined(&mut self, pair: &Closest);
    /// True when the part pairs under two bounding spheres `gap` apart need not be examined,
    /// `closest` being the least distance found so far (`gap ≥ closest`).
    fn skip(&mut self, gap: f64, closest: f64) -> bool;
}

/// Examine every pair that could lie within this distance of the closest.
#[derive(Clone, Copy, Debug)]
pub struct Slack(pub f64);

impl Beyond for Slack {
    fn examined(&mut self, _pair: &Closest) {}
    fn skip(&mut self, gap: f64, closest: f64) -> bool {
        gap >= closest + self.0
    }
}

/// Closest points of the closest pair of parts of two bodies (the first of
/// [`NearParts::pairs`]) and of the other pairs `beyond` asks for, skipping the rest by their
/// bounding spheres (of the other body's tree against a half-space: the sphere's height above
/// the plane). Mirtich eq. 2.1 takes the distance of non-convex bodies as the least over pairs
/// of convex pieces; the time-of-impact bound, which relies on convexity (Fig. 2.9), must hold
/// for every piece pair, so pairs near the closest are returned too.
pub fn closest_parts<B: Beyond>(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    beyond: &mut B,
    cache: &mut PairCache,
    stats: &mut NarrowStats,
) -> NearParts {
    search_parts(a, pose_a, b, pose_b, beyond, &[], cache, stats)
}

/// [`closest_parts`] again at the same poses for another `beyond` (after a collision changed
/// the bodies' velocities, and with them which pairs a time-of-impact bound needs), reusing
/// the pairs the first query measured: only the pairs it left out are measured now.
#[allow(clippy::too_many_arguments)]
pub fn closest_parts_again<B: Beyond>(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    beyond: &mut B,
    first: &NearParts,
    cache: &mut PairCache,
    stats: &mut NarrowStats,
) -> NearParts {
    let mut known = KNOWN_PAIRS.take();
    known.clear();
    known.extend_from_slice(&first.pairs);
    known.sort_unstable_by_key(|c| c.parts);
    let near = search_parts(a, pose_a, b, pose_b, beyond, &known, cache, stats);
    KNOWN_PAIRS.set(known);
    near
}

/// The walk of [`closest_parts`]; `known` holds pairs already measured at these poses, sorted
/// by their parts.
#[allow(clippy::too_many_arguments)]
fn search_parts<B: Beyond>(
    a: &CollisionModel,
    pose_a: &Pose,
    b: &CollisionModel,
    pose_b: &Pose,
    beyond: &mut B,
    known: &[Closest],
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
                    beyond: &mut B,
                    cache: &mut PairCache,
                    stats: &mut NarrowStats| {
        if let Ok(k) = known.binary_search_by_key(&(ia, ib), |c| c.parts) {
            let pair = known[k];
            *best = best.min(pair.distance);
            beyond.examined(&pair);
            found.push(pair);
            return;
        }
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
            beyond.examined(&pair);
            found.push(pair);
        }
    };
    // The walks' stacks and placed node centres, kept between searches.
    let mut scratch = SEARCH_SCRATCH.take();
    // Each half-space against the other body's tree, nearest spheres first.
    let heights = &mut scratch.heights;
    for (h, tree_of_a) in a
        .half_spaces
        .iter()
        .map(|&h| (h, false))
        .chain(b.half_spaces.iter().map(|&h| (h, true)))
    {
        let (plane_model, plane_pose, other, other_pose) = if tree_of_a {
            (b, pose_b, a, pose_a)
        } else {
            (a, pose_a, b, pose_b)
        };
        let Some(root) = other.root() else { continue };
        let plane = plane_pose * plane_model.parts[h].pose;
        let normal = plane.rotation * Vec3::z();
        let offset = normal.dot(&plane.translation.vector);
        let height = |n: usize| {
            let node = &other.tree[n];
            normal.dot(&(other_pose * node.centre).coords) - offset - node.radius
        };
        heights.clear();
        heights.push((root, height(root)));
        while let Some((n, gap)) = heights.pop() {
            if gap >= best && beyond.skip(gap, best) {
                unexamined = Some(unexamined.map_or(gap, |u| u.min(gap)));
                continue;
            }
            match other.tree[n].content {
                NodeContent::Leaf(part) => {
                    let (ia, ib) = if tree_of_a { (part, h) } else { (h, part) };
                    consider(ia, ib, &mut found, &mut best, beyond, cache, stats);
                }
                NodeContent::Children(l, r) => {
                    let (gl, gr) = (height(l), height(r));
                    // The stack pops the last pushed: push the farther child first.
                    if gl <= gr {
                        heights.push((r, gr));
                        heights.push((l, gl));
                    } else {
                        heights.push((l, gl));
                        heights.push((r, gr));
                    }
                }
            }
        }
    }
    // Bounded parts, by the bounding-sphere trees: last time's closest pair first, then the
    // nearer child of each node before the farther, so that `best` falls early.
    if let (Some(root_a), Some(root_b)) = (a.root(), b.root()) {
        // Each node's centre is placed in the world once, when the walk first reaches it: the
        // walk measures ~200 node pairs between two caps of 25 pieces (100 nodes), but only a
        // few of a 241-piece dish's 481 nodes against a ball.
        let centres = &mut scratch.centres;
        centres.begin(a.tree.len() + b.tree.len());
        let offset_b = a.tree.len();
        let mut gap = |na: usize, nb: usize| {
            let centre_a = centres.place(na, || pose_a * a.tree[na].centre);
            let centre_b = centres.place(offset_b + nb, || pose_b * b.tree[nb].centre);
            (centre_a - centre_b).norm() - a.tree[na].radius - b.tree[nb].radius
        };
        let seed = cache.closest.filter(|&(ia, ib)| {
            ia < a.parts.len()
                && ib < b.parts.len()
                && !a.half_spaces.contains(&ia)
                && !b.half_spaces.contains(&ib)
        });
        if let Some((ia, ib)) = seed {
            consider(ia, ib, &mut found, &mut best, beyond, cache, stats);
        }
        let stack = &mut scratch.node_pairs;
        stack.clear();
        stack.push((root_a, root_b, gap(root_a, root_b)));
        while let Some((na, nb, node_gap)) = stack.pop() {
            if node_gap >= best && beyond.skip(node_gap, best) {
                unexamined = Some(unexamined.map_or(node_gap, |u| u.min(node_gap)));
                continue;
            }
            let children = match (a.tree[na].content, b.tree[nb].content) {
                (NodeContent::Leaf(ia), NodeContent::Leaf(ib)) => {
                    if seed != Some((ia, ib)) {
                        consider(ia, ib, &mut found, &mut best, beyond, cache, stats);
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
    SEARCH_SCRATCH.set(scratch);
    // Closest first (among equals, the first found), the others in the order examined:
    // only the closest is read in order, and sorting them all cost 4 % of a scene of
    // many-piece bodies.
    let closest = (1..found.len()).fold(0, |best, i| {
        if found[i].distance.total_cmp(&found[best].distance).is_lt() {
            i
        } else {
            best
        }
    });
    if closest > 0 {
        found[..=closest].rotate_right(1);
    }
    cache.closest = found.first().map(|c| c.parts);
    NearParts {
        pairs: found,
        unexamined,
    }
}

thread_local! {
    /// [`search_parts`]'s buffers, kept between searches (allocating them was ~3 % of a scene
    /// of many-piece bodies).
    static SEARCH_SCRATCH: std::cell::Cell<SearchScratch> = const {
        std::cell::Cell::new(SearchScratch {
            heights: Vec::new(),
            node_pairs: Vec::new(),
            centres: PlacedCentres { search: 0, slots: Vec::new() },
        })
    };
    /// `closest_parts_again`'s pairs measured already, sorted by parts.
    static KNOWN_PAIRS: std::cell::Cell<Vec<Closest>> = const { std::cell::Cell::new(Vec::new()) };
}

/// [`search_parts`]'s buffers: the stacks of its walks, a half-space's against a tree (node,
/// height) and two trees' (node of a, node of b, gap), and the tree walk's world node centres.
#[derive(Default)]
struct SearchScratch {
    heights: Vec<(usize, f64)>,
    node_pairs: Vec<(usize, usize, f64)>,
    centres: PlacedCentres,
}

/// Node centres placed in the world during one search, each slot marked with the search that
/// placed it, so that starting a search clears nothing.
#[derive(Default)]
struct PlacedCentres {
    search: u32,
    slots: Vec<(u32, Point)>,
}

impl PlacedCentres {
    /// Starts a search over `nodes` nodes: every slot is stale.
    fn begin(&mut self, nodes: usize) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.slots.iter_mut().for_each(|slot| slot.0 = 0);
            self.search = 1;
        }
        if self.slots.len() < nodes {
            self.slots.resize(nodes, (0, Point::origin()));
        }
    }

    /// Slot `i`'s centre, placed by `place` if this search has not placed it yet.
    fn place(&mut self, i: usize, place: impl FnOnce() -> Point) -> Point {
        let slot = &mut self.slots[i];
        if slot.0 != self.search {
            *slot = (self.search, place());
        }
        slot.1
    }
}

/// A placed convex part's support functions in world coordinates.
pub(super) struct Placed<'a> {
    pub(super) convex: &'a Convex,
    pub(super) pose: Pose,
}

impl Placed<'_> {
    pub(super) fn core(&self, direction: &Vec3) -> Point {
        self.pose
            * self
                .convex
                .core_support(&(self.pose.rotation.inverse() * direction))
    }

    pub(super) fn full(&self, direction: &Vec3) -> Point {
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
        (Convex::Sphere { radius: ra }, Convex::Sphere { radius: rb }) => {
            (Some(between_balls(&pa, *ra, &pb, *rb)), None)
        }
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
            let cached = match previous {
                Some(PartCache::Direction(d)) => Some(d),
                _ => None,
            };
            // Pairs with a cylinder, or a polyhedron and an ellipsoid: the others cannot take
            // the flat-face shortcut (see `candidate_face`), and skip it at no cost.
            let flat_face_candidate = matches!(
                (&a.convex, &b.convex),
                (Convex::Cylinder { .. }, _)
                    | (_, Convex::Cylinder { .. })
                    | (Convex::Polyhedron(_), Convex::Ellipsoid { .. })
                    | (Convex::Ellipsoid { .. }, Convex::Polyhedron(_))
            );
            if flat_face_candidate && let Some(found) = flat_face_contact(&pa, &pb, cached.as_ref())
            {
                stats.flat_face_contacts += 1;
                return (Some(found), Some(PartCache::Direction(found.normal)));
            }
            let settings = GjkSettings::default();
            if let (
                Convex::Cylinder {
                    radius: ra,
                    half_height: ha,
                },
                Convex::Cylinder {
                    radius: rb,
                    half_height: hb,
                },
                Some(cached),
            ) = (&a.convex, &b.convex, cached.as_ref())
                && let Some((distance, point_a, point_b, normal)) = curved_contact(
                    &PlacedCylinder::new(&pa.pose, *ra, *ha),
                    &PlacedCylinder::new(&pb.pose, *rb, *hb),
                    cached,
                    settings.relative_tolerance,
                )
            {
                stats.curved_contacts += 1;
                let found = Closest {
                    distance,
                    point_a,
                    point_b,
                    normal,
                    parts: (0, 0),
                    features: None,
                };
                return (Some(found), Some(PartCache::Direction(normal)));
            }
            let direction =
                cached.unwrap_or_else(|| pa.pose.translation.vector - pb.pose.translation.vector);
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

/// The size of two placed parts and their distance from the origin: what "near zero" means
/// for their distance. (Always inlined: with one codegen unit the compiler left it out of
/// line in `part_pair`, half a million calls a part feeder run, 0.5 % of its instructions.)
#[inline(always)]
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

/// Two balls, in closed form: `|c_a − c_b| − r_a − r_b` apart (negative: overlapping by as
/// much), closest (or deepest) on the line of centres. Concentric balls, where that line is
/// undefined, take +z.
fn between_balls(a: &Placed, radius_a: f64, b: &Placed, radius_b: f64) -> Closest {
    let (centre_a, centre_b) = (a.pose.translation.vector, b.pose.translation.vector);
    let apart = centre_a - centre_b;
    let length = apart.norm();
    let normal = if length > 0.0 {
        apart / length
    } else {
        Vec3::z()
    };
    Closest {
        distance: length - radius_a - radius_b,
        point_a: Point::from(centre_a - normal * radius_a),
        point_b: Point::from(centre_b + normal * radius_b),
        normal,
        parts: (0, 0),
        features: None,
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
