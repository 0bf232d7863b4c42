//! Closest features between two convex polyhedra: the V-Clip algorithm.
//!
//! Lin–Canny (Mirtich §2.2) walks from a pair of features (vertices, edges, faces) to
//! neighbouring features until the closest points of the pair lie in each other's Voronoi
//! regions (Theorem 2): then they are the globally closest points. Warm-started from the last
//! pair, it runs in near-constant time when the bodies move little between queries. V-Clip
//! (Mirtich, "V-Clip: fast and robust polyhedral collision detection", 1998) is its robust
//! successor: it decides each step by clipping edges against Voronoi regions and looking at the
//! sign of the distance's derivative at the clip points, which never needs a distance between
//! features to decrease strictly, handles parallel and coplanar features, and detects
//! penetration (an edge crossing a face, or a vertex inside) instead of cycling.
//!
//! Voronoi regions, in a polyhedron's own frame (`u` the unit direction of an edge from tail `t`
//! to head `h`, `n` a face's unit outward normal):
//! - vertex `v`: for each edge `v → w`, the half-space `(p − v)·(v − w) ≥ 0`;
//! - edge: `(p − t)·u ≥ 0` (else the tail), `(h − p)·u ≥ 0` (else the head), and for each of its
//!   two faces, `(p − t)·(u_f × n_f) ≥ 0` where `u_f` is the edge's direction around that face
//!   (else that face);
//! - face: `(p − t)·(n × u) ≥ 0` for each boundary edge `t → h` (else that edge), and above the
//!   face's plane.

mod steps;

use crate::geometry::ConvexPolyhedron;
use steps::{edge_edge, edge_face, swap, vertex_edge, vertex_face, vertex_vertex};
use crate::math::{Point, Pose, Vec3};

/// A feature of a convex polyhedron. Edges are named by their half-edge with the smaller index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Feature {
    /// A vertex index.
    Vertex(u32),
    /// An edge, by the smaller index of its two half-edges.
    Edge(u32),
    /// A face index.
    Face(u32),
}

/// The outcome of a closest-feature query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Proximity {
    /// The polyhedra are disjoint (or touching).
    Separated {
        /// Distance between them.
        distance: f64,
        /// Closest point on the first polyhedron, world frame.
        point_a: Point,
        /// Closest point on the second polyhedron, world frame.
        point_b: Point,
        /// The closest features.
        features: (Feature, Feature),
    },
    /// The polyhedra interpenetrate; the features witness it (a vertex inside a face's body, or
    /// an edge crossing a face).
    Penetrating {
        /// The witnessing features.
        features: (Feature, Feature),
    },
}

impl Proximity {
    /// The feature pair to warm-start the next query from.
    pub fn features(&self) -> (Feature, Feature) {
        match *self {
            Self::Separated { features, .. } | Self::Penetrating { features } => features,
        }
    }
}

/// V-Clip did not settle: it revisited a feature pair (a tie decided by rounding, which only
/// happens when the polyhedra touch to within rounding) or hit its iteration bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsettled {
    /// A feature pair came round again after this many steps.
    Cycle { iterations: usize },
    /// The iteration bound was hit.
    IterationLimit { iterations: usize },
}

/// A plane `normal · p = offset`; "inside" a Voronoi region means `normal · p − offset ≥ 0`.
#[derive(Clone, Copy, Debug)]
struct Plane {
    normal: Vec3,
    offset: f64,
}

impl Plane {
    fn through(point: &Point, normal: Vec3) -> Self {
        Self {
            offset: normal.dot(&point.coords),
            normal,
        }
    }

    fn signed(&self, p: &Point) -> f64 {
        self.normal.dot(&p.coords) - self.offset
    }
}

/// One polyhedron in a query, with the transform from its frame to the other's.
struct Side<'a> {
    poly: &'a ConvexPolyhedron,
    to_other: Pose,
}

impl Side<'_> {
    fn vertex(&self, v: u32) -> Point {
        self.poly.vertices()[v as usize]
    }

    fn tail(&self, h: u32) -> u32 {
        self.poly.half_edges()[h as usize].origin
    }

    fn head(&self, h: u32) -> u32 {
        self.poly.head(h)
    }

    fn twin(&self, h: u32) -> u32 {
        self.poly.half_edges()[h as usize].twin
    }

    fn edge(&self, h: u32) -> Feature {
        Feature::Edge(h.min(self.twin(h)))
    }

    /// Unit direction of half-edge `h`.
    fn direction(&self, h: u32) -> Vec3 {
        self.poly.direction(h)
    }

    fn face_plane(&self, f: u32) -> Plane {
        let face = &self.poly.faces()[f as usize];
        Plane {
            normal: face.normal,
            offset: face.offset,
        }
    }

    /// Voronoi planes of vertex `v`, with the neighbouring edge across each.
    fn vertex_planes(&self, v: u32) -> impl Iterator<Item = (Plane, Feature)> + '_ {
        let p = self.vertex(v);
        self.poly.vertex_half_edges(v).map(move |h| {
            let outward = -self.direction(h);
            (Plane::through(&p, outward), self.edge(h))
        })
    }

    /// The two end planes of edge `h` (neighbours: its tail and head vertices).
    fn edge_vertex_planes(&self, h: u32) -> [(Plane, Feature); 2] {
        let (t, hd) = (self.tail(h), self.head(h));
        let u = self.direction(h);
        [
            (Plane::through(&self.vertex(t), u), Feature::Vertex(t)),
            (Plane::through(&self.vertex(hd), -u), Feature::Vertex(hd)),
        ]
    }

    /// The two side planes of edge `h` (neighbours: its two faces).
    fn edge_face_planes(&self, h: u32) -> [(Plane, Feature); 2] {
        let t = self.vertex(self.tail(h));
        let u = self.direction(h);
        let left = self.poly.half_edges()[h as usize].face;
        let right = self.poly.half_edges()[self.twin(h) as usize].face;
        let n_left = self.poly.faces()[left as usize].normal;
        let n_right = self.poly.faces()[right as usize].normal;
        [
            (Plane::through(&t, u.cross(&n_left)), Feature::Face(left)),
            (Plane::through(&t, n_right.cross(&u)), Feature::Face(right)),
        ]
    }

    /// The side planes of face `f` (neighbours: its boundary edges).
    fn face_side_planes(&self, f: u32) -> impl Iterator<Item = (Plane, Feature)> + '_ {
        let n = self.poly.faces()[f as usize].normal;
        self.poly.face_half_edges(f).map(move |h| {
            let t = self.vertex(self.tail(h));
            (
                Plane::through(&t, n.cross(&self.direction(h))),
                self.edge(h),
            )
        })
    }

    /// The endpoints of edge `h`, in the *other* polyhedron's frame.
    fn edge_in_other(&self, h: u32) -> (Point, Point) {
        (
            self.to_other * self.vertex(self.tail(h)),
            self.to_other * self.vertex(self.head(h)),
        )
    }
}

/// Result of clipping a segment `t + λ (h − t)`, λ ∈ [0, 1], against a Voronoi region.
#[derive(Clone, Copy, Debug)]
enum Clip {
    /// Part `[lo, hi]` lies inside; `lo`/`hi` were cut by the planes of the given neighbours.
    Inside {
        lo: f64,
        hi: f64,
        lo_neighbour: Option<Feature>,
        hi_neighbour: Option<Feature>,
    },
    /// No part lies inside; the neighbour(s) across the excluding plane(s).
    Excluded {
        lo_neighbour: Option<Feature>,
        hi_neighbour: Option<Feature>,
    },
}

impl Clip {
    /// Clipping starts from the whole segment.
    fn whole() -> Self {
        Self::Inside {
            lo: 0.0,
            hi: 1.0,
            lo_neighbour: None,
            hi_neighbour: None,
        }
    }

    /// Clips further against `planes` (a no-op once excluded).
    fn against(
        self,
        t: &Point,
        h: &Point,
        planes: impl IntoIterator<Item = (Plane, Feature)>,
    ) -> Self {
        let Self::Inside {
            mut lo,
            mut hi,
            mut lo_neighbour,
            mut hi_neighbour,
        } = self
        else {
            return self;
        };
        for (plane, neighbour) in planes {
            let dt = plane.signed(t);
            let dh = plane.signed(h);
            if dt < 0.0 && dh < 0.0 {
                return Self::Excluded {
                    lo_neighbour: Some(neighbour),
                    hi_neighbour: Some(neighbour),
                };
            }
            if dt < 0.0 {
                let lambda = dt / (dt - dh);
                if lambda > lo {
                    lo = lambda;
                    lo_neighbour = Some(neighbour);
                    if lo > hi {
                        return Self::Excluded {
                            lo_neighbour,
                            hi_neighbour,
                        };
                    }
                }
            } else if dh < 0.0 {
                let lambda = dt / (dt - dh);
                if lambda < hi {
                    hi = lambda;
                    hi_neighbour = Some(neighbour);
                    if hi < lo {
                        return Self::Excluded {
                            lo_neighbour,
                            hi_neighbour,
                        };
                    }
                }
            }
        }
        Self::Inside {
            lo,
            hi,
            lo_neighbour,
            hi_neighbour,
        }
    }
}

/// One step of the walk: keep going from a new pair, stop, or report penetration. Features are
/// given as (the first side's, the second side's) of the handler that produced the step.
enum Step {
    Continue(Feature, Feature),
    Done,
    Penetration,
}

/// A feature as the distance derivative sees it: a point, a line (point and unit direction) or
/// a plane.
enum Target {
    Point(Point),
    Line(Point, Vec3),
    Plane(Plane),
}

/// Sign (as a value) of the derivative along `u` of the distance from `p` to `target`.
///
/// A derivative within rounding of zero counts as zero: the distance is stationary there, both
/// features are equally close, and the walk must stop rather than let noise decide — otherwise
/// the two states on either side of a Voronoi plane can hand a parallel configuration back and
/// forth for ever.
fn derivative(target: &Target, p: &Point, u: &Vec3) -> f64 {
    let (value, magnitude) = match target {
        Target::Point(q) => {
            let d = p - q;
            (
                u.dot(&d),
                u.norm() * (d.norm() + p.coords.norm().max(q.coords.norm())),
            )
        }
        Target::Line(q, dir) => {
            let d = p - q;
            let perpendicular = d - dir * d.dot(dir);
            (
                u.dot(&perpendicular),
                u.norm() * (perpendicular.norm() + p.coords.norm().max(q.coords.norm())),
            )
        }
        Target::Plane(plane) => {
            let s = plane.signed(p);
            let slope = u.dot(&plane.normal);
            (if s >= 0.0 { slope } else { -slope }, u.norm())
        }
    };
    if value.abs() <= ROUNDING * magnitude {
        0.0
    } else {
        value
    }
}

/// Relative size of rounding noise in the derivative tests.
const ROUNDING: f64 = 1e-12;

/// How far from a face's plane rounding may put a point that lies on it: the signed distance
/// `n·p − offset` is computed from coordinates of size `|p|` and `|offset|`.
fn plane_rounding(plane: &Plane, p: &Point) -> f64 {
    ROUNDING * (p.coords.norm() + plane.offset.abs())
}

/// The rate at which moving along `u` approaches (negative) or leaves (positive) a plane from
/// above it, zero within rounding ([`derivative`] for a point on or above the plane).
fn slope_to_plane(plane: &Plane, u: &Vec3) -> f64 {
    let slope = u.dot(&plane.normal);
    if slope.abs() <= ROUNDING * u.norm() {
        0.0
    } else {
        slope
    }
}

/// Clips the edge `t–h` (in the frame of feature `x`) against the planes of `x`'s Voronoi region
/// made by `planes`, starting from `clip`, and decides whether `x` must move to a neighbour:
/// if the edge misses the region, across the plane most violated by the edge's point closest to
/// `x` (where the closest point lies); otherwise across a clipped end where the distance to `x`
/// decreases outward.
fn clip_and_check<I: IntoIterator<Item = (Plane, Feature)>>(
    clip: Clip,
    t: &Point,
    h: &Point,
    planes: impl Fn() -> I,
    x: &Target,
) -> (Clip, Option<Feature>) {
    let clip = clip.against(t, h, planes());
    match clip {
        Clip::Excluded {
            lo_neighbour,
            hi_neighbour,
        } => {
            let q = closest_on_segment(x, t, h);
            let across = most_violated(&q, planes().into_iter());
            (clip, across.or(lo_neighbour).or(hi_neighbour))
        }
        Clip::Inside {
            lo,
            hi,
            lo_neighbour,
            hi_neighbour,
        } => {
            let u = h - t;
            if let Some(n) = lo_neighbour
                && derivative(x, &(t + u * lo), &u) > 0.0
            {
                return (clip, Some(n));
            }
            if let Some(n) = hi_neighbour
                && derivative(x, &(t + u * hi), &u) < 0.0
            {
                return (clip, Some(n));
            }
            (clip, None)
        }
    }
}

/// The point of segment `t–h` closest to a target point or line.
fn closest_on_segment(x: &Target, t: &Point, h: &Point) -> Point {
    let u = h - t;
    let s = match x {
        Target::Point(q) => (q - t).dot(&u) / u.norm_squared(),
        Target::Line(q, dir) => {
            // Minimise |t + s u − (q + r dir)| over s (r free): project out `dir`.
            let w = u - dir * u.dot(dir);
            let r0 = (t - q) - dir * (t - q).dot(dir);
            let denominator = w.norm_squared();
            if denominator > 0.0 {
                -r0.dot(&w) / denominator
            } else {
                0.5
            }
        }
        Target::Plane(plane) => {
            if plane.signed(t).abs() <= plane.signed(h).abs() {
                0.0
            } else {
                1.0
            }
        }
    };
    t + u * s.clamp(0.0, 1.0)
}

/// Finds the closest features of polyhedra `a` (placed by `pose_a`) and `b` (placed by
/// `pose_b`), starting from `start` (the previous result's features, for coherence) or from
/// their first vertices. Reports a revisited feature pair, or `max_iterations` steps without
/// settling, as [`Unsettled`]; [`closest_features_or_search`] then searches exhaustively.
// Out of line: inlined into the narrow phase's `part_pair` (one codegen unit), the walk cost
// the part feeder 0.6 % more instructions (callgrind).
#[inline(never)]
pub fn closest_features(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    start: Option<(Feature, Feature)>,
    max_iterations: usize,
) -> Result<Proximity, Unsettled> {
    let a_to_b = pose_b.inverse() * pose_a;
    let side_a = Side {
        poly: a,
        to_other: a_to_b,
    };
    let side_b = Side {
        poly: b,
        to_other: a_to_b.inverse(),
    };
    let (mut fa, mut fb) = start.unwrap_or((Feature::Vertex(0), Feature::Vertex(0)));
    if !valid(a, fa) || !valid(b, fb) {
        (fa, fb) = (Feature::Vertex(0), Feature::Vertex(0));
    }
    // Recent states, to notice a cycle: exact arithmetic never revisits a pair.
    let mut history = [(Feature::Vertex(u32::MAX), Feature::Vertex(u32::MAX)); 16];
    for iteration in 0..max_iterations {
        if history.contains(&(fa, fb)) {
            return Err(Unsettled::Cycle {
                iterations: iteration,
            });
        }
        history[iteration % history.len()] = (fa, fb);
        // Each handler takes (its first feature's side, …); swapped calls swap the result.
        let step = match (fa, fb) {
            (Feature::Vertex(v), Feature::Vertex(w)) => vertex_vertex(&side_a, v, &side_b, w),
            (Feature::Vertex(v), Feature::Edge(e)) => vertex_edge(&side_a, v, &side_b, e),
            (Feature::Edge(e), Feature::Vertex(v)) => swap(vertex_edge(&side_b, v, &side_a, e)),
            (Feature::Vertex(v), Feature::Face(f)) => vertex_face(&side_a, v, &side_b, f),
            (Feature::Face(f), Feature::Vertex(v)) => swap(vertex_face(&side_b, v, &side_a, f)),
            (Feature::Edge(e1), Feature::Edge(e2)) => edge_edge(&side_a, e1, &side_b, e2),
            (Feature::Edge(e), Feature::Face(f)) => edge_face(&side_a, e, &side_b, f),
            (Feature::Face(f), Feature::Edge(e)) => swap(edge_face(&side_b, e, &side_a, f)),
            (Feature::Face(f), Feature::Face(_)) => {
                // Never a resting state; step one face down to a vertex.
                let v = side_a.tail(a.faces()[f as usize].half_edge);
                Step::Continue(Feature::Vertex(v), fb)
            }
        };
        match step {
            Step::Continue(na, nb) => (fa, fb) = (na, nb),
            Step::Penetration => {
                return Ok(Proximity::Penetrating { features: (fa, fb) });
            }
            Step::Done => {
                let (pa, pb) = closest_points(&side_a, fa, &side_b, fb);
                let point_a = pose_a * pa;
                let point_b = pose_b * pb;
                return Ok(Proximity::Separated {
                    distance: (point_a - point_b).norm(),
                    point_a,
                    point_b,
                    features: (fa, fb),
                });
            }
        }
    }
    Err(Unsettled::IterationLimit {
        iterations: max_iterations,
    })
}

/// [`closest_features`], falling back to [`exhaustive_search`] when V-Clip does not settle.
/// Returns the answer and whether the fallback was needed.
pub fn closest_features_or_search(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    start: Option<(Feature, Feature)>,
) -> (Proximity, bool) {
    let bound = 4 * (a.vertices().len() + b.vertices().len()) + 64;
    match closest_features(a, pose_a, b, pose_b, start, bound) {
        Ok(result) => (result, false),
        Err(_) => (exhaustive_search(a, pose_a, b, pose_b), true),
    }
}

/// Closest features by trying every pair: vertex–face both ways and edge–edge; penetration when
/// a vertex of one lies inside the other or an edge of one crosses a face of the other.
/// O(V·F + E²): a fallback, and an independent check.
pub fn exhaustive_search(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
) -> Proximity {
    let a_to_b = pose_b.inverse() * pose_a;
    let side_a = Side {
        poly: a,
        to_other: a_to_b,
    };
    let side_b = Side {
        poly: b,
        to_other: a_to_b.inverse(),
    };
    // Penetration witnesses first (features named as (a's, b's)).
    for (p, q, swapped) in [(&side_a, &side_b, false), (&side_b, &side_a, true)] {
        let order = |x: Feature, y: Feature| if swapped { (y, x) } else { (x, y) };
        for v in 0..p.poly.vertices().len() as u32 {
            let v_in_q = p.to_other * p.vertex(v);
            let inside =
                (0..q.poly.faces().len() as u32).all(|f| q.face_plane(f).signed(&v_in_q) < 0.0);
            if inside {
                return Proximity::Penetrating {
                    features: order(Feature::Vertex(v), Feature::Face(0)),
                };
            }
        }
        for h in 0..p.poly.half_edges().len() as u32 {
            if h > p.twin(h) {
                continue;
            }
            let (t, hd) = p.edge_in_other(h);
            for f in 0..q.poly.faces().len() as u32 {
                let plane = q.face_plane(f);
                let (dt, dh) = (plane.signed(&t), plane.signed(&hd));
                if (dt < 0.0) == (dh < 0.0) || dt == 0.0 || dh == 0.0 {
                    continue;
                }
                let crossing = t + (hd - t) * (dt / (dt - dh));
                if q.face_side_planes(f)
                    .all(|(side, _)| side.signed(&crossing) > 0.0)
                {
                    return Proximity::Penetrating {
                        features: order(Feature::Edge(h), Feature::Face(f)),
                    };
                }
            }
        }
    }
    // Separated: the closest pair among vertex–face (both ways) and edge–edge, as world points
    // in (a, b) order.
    let mut best: Option<(f64, Point, Point, Feature, Feature)> = None;
    let mut consider = |pa: Point, pb: Point, fa: Feature, fb: Feature| {
        let d = (pa - pb).norm();
        if best.as_ref().is_none_or(|b| d < b.0) {
            best = Some((d, pa, pb, fa, fb));
        }
    };
    for (p, pose_p, q, pose_q, swapped) in [
        (&side_a, pose_a, &side_b, pose_b, false),
        (&side_b, pose_b, &side_a, pose_a, true),
    ] {
        for v in 0..p.poly.vertices().len() as u32 {
            let v_in_q = p.to_other * p.vertex(v);
            for f in 0..q.poly.faces().len() as u32 {
                // Vertices beside the face are covered by the edge–edge pairs.
                if q.face_side_planes(f)
                    .any(|(side, _)| side.signed(&v_in_q) < 0.0)
                {
                    continue;
                }
                let on_face = pose_q * closest_on_feature(q, Feature::Face(f), &v_in_q);
                let vertex = pose_p * p.vertex(v);
                if swapped {
                    consider(on_face, vertex, Feature::Face(f), Feature::Vertex(v));
                } else {
                    consider(vertex, on_face, Feature::Vertex(v), Feature::Face(f));
                }
            }
        }
    }
    for h1 in 0..a.half_edges().len() as u32 {
        if h1 > side_a.twin(h1) {
            continue;
        }
        let (a0, a1) = (
            side_a.vertex(side_a.tail(h1)),
            side_a.vertex(side_a.head(h1)),
        );
        for h2 in 0..b.half_edges().len() as u32 {
            if h2 > side_b.twin(h2) {
                continue;
            }
            let (b0, b1) = side_b.edge_in_other(h2);
            let (s, t, _) = segment_segment(&a0, &a1, &b0, &b1);
            consider(
                pose_a * (a0 + (a1 - a0) * s),
                pose_a * (b0 + (b1 - b0) * t),
                Feature::Edge(h1),
                Feature::Edge(h2),
            );
        }
    }
    let Some((distance, point_a, point_b, fa, fb)) = best else {
        unreachable!("convex polyhedra have edges")
    };
    Proximity::Separated {
        distance,
        point_a,
        point_b,
        features: (fa, fb),
    }
}

fn valid(poly: &ConvexPolyhedron, feature: Feature) -> bool {
    match feature {
        Feature::Vertex(v) => (v as usize) < poly.vertices().len(),
        Feature::Edge(h) => (h as usize) < poly.half_edges().len(),
        Feature::Face(f) => (f as usize) < poly.faces().len(),
    }
}

/// Most violated plane (smallest signed distance below zero), if any.
fn most_violated(p: &Point, planes: impl Iterator<Item = (Plane, Feature)>) -> Option<Feature> {
    let mut worst: Option<(f64, Feature)> = None;
    for (plane, neighbour) in planes {
        let s = plane.signed(p);
        if s < 0.0 && worst.is_none_or(|(w, _)| s < w) {
            worst = Some((s, neighbour));
        }
    }
    worst.map(|(_, n)| n)
}

/// Closest points between segments `a0–a1` and `b0–b1`: parameters `(s, t)` in [0, 1] and the
/// distance (Ericson, *Real-Time Collision Detection*, §5.1.9).
pub(crate) fn segment_segment(a0: &Point, a1: &Point, b0: &Point, b1: &Point) -> (f64, f64, f64) {
    let d1 = a1 - a0;
    let d2 = b1 - b0;
    let r = a0 - b0;
    let a = d1.dot(&d1);
    let e = d2.dot(&d2);
    let f = d2.dot(&r);
    let (s, t);
    if a <= f64::MIN_POSITIVE && e <= f64::MIN_POSITIVE {
        (s, t) = (0.0, 0.0);
    } else if a <= f64::MIN_POSITIVE {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(&r);
        if e <= f64::MIN_POSITIVE {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(&d2);
            let denominator = a * e - b * b;
            let mut s0 = if denominator > 0.0 {
                ((b * f - c * e) / denominator).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t) = (s0, t0);
        }
    }
    let distance = ((a0 + d1 * s) - (b0 + d2 * t)).norm();
    (s, t, distance)
}

/// Closest points of a settled feature pair, each in its own polyhedron's frame.
fn closest_points(a: &Side, fa: Feature, b: &Side, fb: Feature) -> (Point, Point) {
    // Express both features in a's frame, find the closest points there, map b's back.
    let b_to_a = &a.to_other.inverse();
    match (fa, fb) {
        (Feature::Face(_), Feature::Face(_)) => unreachable!("V-Clip never settles on two faces"),
        (Feature::Face(_), _) | (Feature::Edge(_), Feature::Vertex(_)) => {
            let (pb, pa) = closest_points(b, fb, a, fa);
            (pa, pb)
        }
        (Feature::Vertex(v), _) => {
            let p = a.vertex(v);
            let p_in_b = a.to_other * p;
            (p, closest_on_feature(b, fb, &p_in_b))
        }
        (Feature::Edge(e1), Feature::Edge(e2)) => {
            let (a0, a1) = (a.vertex(a.tail(e1)), a.vertex(a.head(e1)));
            let (b0, b1) = (b.vertex(b.tail(e2)), b.vertex(b.head(e2)));
            let (b0a, b1a) = (b_to_a * b0, b_to_a * b1);
            let (s, t, _) = segment_segment(&a0, &a1, &b0a, &b1a);
            (a0 + (a1 - a0) * s, b0 + (b1 - b0) * t)
        }
        (Feature::Edge(e), Feature::Face(f)) => {
            // Parallel edge over a face: the middle of the part over the face.
            let (t, h) = a.edge_in_other(e);
            let clip = Clip::whole().against(&t, &h, b.face_side_planes(f));
            let lambda = match clip {
                Clip::Inside { lo, hi, .. } => 0.5 * (lo + hi),
                Clip::Excluded { .. } => 0.5,
            };
            let on_edge = t + (h - t) * lambda;
            let plane = b.face_plane(f);
            let on_face = on_edge - plane.normal * plane.signed(&on_edge);
            let (ta, ha) = (a.vertex(a.tail(e)), a.vertex(a.head(e)));
            (ta + (ha - ta) * lambda, on_face)
        }
    }
}

/// The point of feature `f` (of `side`, own frame) closest to `p` (same frame).
fn closest_on_feature(side: &Side, f: Feature, p: &Point) -> Point {
    match f {
        Feature::Vertex(v) => side.vertex(v),
        Feature::Edge(e) => {
            let t = side.vertex(side.tail(e));
            let h = side.vertex(side.head(e));
            let u = h - t;
            let s = ((p - t).dot(&u) / u.norm_squared()).clamp(0.0, 1.0);
            t + u * s
        }
        Feature::Face(f) => {
            let plane = side.face_plane(f);
            p - plane.normal * plane.signed(p)
        }
    }
}
