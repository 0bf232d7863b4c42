//! Contact manifolds: where two convex parts within the envelope touch, as a few points.
//!
//! The narrow phase finds one pair of closest points (Mirtich eq. 2.1). A box lying on a face
//! touches along the whole face, though, and one point cannot hold it: an impulse there tips
//! it onto another corner. Answering a resting contact at once at every corner (see
//! `contact::gauss_seidel`) needs the touching region, which this module gives as the corners of a
//! convex polygon in the contact plane:
//!
//! 1. each part's *support set* facing the other — its points within `tolerance` of its
//!    extreme plane along the contact normal: a polyhedron's vertices there, a cylinder's cap
//!    (as points on its rim) or side line, a capsule's side line, a single point otherwise;
//! 2. both sets projected onto the contact plane and hulled (a point, a segment or a polygon);
//! 3. the two clipped against each other (Sutherland–Hodgman for two polygons, a segment
//!    clipped by a polygon's edges, the overlap of two parallel segments); a half-space's set is
//!    its whole plane, which clips nothing;
//! 4. the corners lifted back to the plane midway between the closest points.
//!
//! Where the region is a single point, or the clipping leaves nothing, the manifold is the
//! narrow phase's own contact point.

use crate::collision::{Closest, Convex};
use crate::math::{Point, Pose, Vec3, orthonormal_basis};

/// Most points a manifold keeps (a cylinder's cap is sampled with as many).
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// The points where two convex parts, placed in the world at `pose_a` and `pose_b`, touch:
/// `closest` is their closest contact (normal from b towards a), `tolerance` how far from each
/// part's extreme plane along the normal a point may lie and still count as touching.
pub fn manifold(
    a: &Convex,
    pose_a: &Pose,
    b: &Convex,
    pose_b: &Pose,
    closest: &Closest,
    tolerance: f64,
) -> Vec<Point> {
    let n = closest.normal;
    let middle = nalgebra::center(&closest.point_a, &closest.point_b);
    let (t1, t2) = orthonormal_basis(&n);
    let flat = |p: &Point| [p.coords.dot(&t1), p.coords.dot(&t2)];
    let height = middle.coords.dot(&n);
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch {
            on_a,
            on_b,
            hull_a,
            hull_b,
            region,
            spare,
        } = scratch;
        let bounded_a = support_set(a, pose_a, &-n, tolerance, &flat, on_a);
        let bounded_b = support_set(b, pose_b, &n, tolerance, &flat, on_b);
        region.clear();
        match (bounded_a, bounded_b) {
            (true, true) => {
                hull(on_a, hull_a);
                hull(on_b, hull_b);
                clip(hull_a, hull_b, region, spare);
            }
            (true, false) => hull(on_a, region),
            (false, true) => hull(on_b, region),
            (false, false) => {}
        }
        if region.len() < 2 {
            return vec![middle];
        }
        let count = region.len();
        let kept = count.min(MAX_MANIFOLD_POINTS);
        // At most `MAX_MANIFOLD_POINTS` of the region's corners, spread round it.
        (0..kept)
            .map(|k| {
                let [x, y] = region[k * count / kept];
                Point::from(t1 * x + t2 * y + n * height)
            })
            .collect()
    })
}

/// The contact normal (from b towards a) of two polyhedra that touch, where the narrow
/// phase's normal — the direction between closest points a rounding error apart — means
/// nothing (two cubes set down exactly on each other gave one 27° off the vertical): of the
/// faces of both, the one whose plane separates the two best (the separating-axis test over
/// face normals). `None` unless both parts are polyhedra.
pub fn touching_face_normal(a: &Convex, pose_a: &Pose, b: &Convex, pose_b: &Pose) -> Option<Vec3> {
    let (Convex::Polyhedron(pa), Convex::Polyhedron(pb)) = (a, b) else {
        return None;
    };
    // Separation along `n` (outward from the first part): how far the second part's nearest
    // vertex lies beyond the first part's farthest.
    let separation = |n: &Vec3, near: &[Point], pose_near: &Pose, far: &[Point], pose_far: &Pose| {
        let top = near
            .iter()
            .map(|v| (pose_near * v).coords.dot(n))
            .fold(f64::NEG_INFINITY, f64::max);
        let bottom = far
            .iter()
            .map(|v| (pose_far * v).coords.dot(n))
            .fold(f64::INFINITY, f64::min);
        bottom - top
    };
    let mut best: Option<(f64, Vec3)> = None;
    for face in pa.faces() {
        let n = pose_a.rotation * face.normal;
        let s = separation(&n, pa.vertices(), pose_a, pb.vertices(), pose_b);
        if best.is_none_or(|(top, _)| s > top) {
            best = Some((s, -n));
        }
    }
    for face in pb.faces() {
        let n = pose_b.rotation * face.normal;
        let s = separation(&n, pb.vertices(), pose_b, pa.vertices(), pose_a);
        if best.is_none_or(|(top, _)| s > top) {
            best = Some((s, n));
        }
    }
    best.map(|(_, n)| n)
}

/// Storage the manifold reuses from call to call (one per thread): it is asked for every
/// contact of every cluster solve.
#[derive(Default)]
struct Scratch {
    on_a: Vec<[f64; 2]>,
    on_b: Vec<[f64; 2]>,
    hull_a: Vec<[f64; 2]>,
    hull_b: Vec<[f64; 2]>,
    region: Vec<[f64; 2]>,
    spare: Vec<[f64; 2]>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// A part's points within `tolerance` of its extreme plane along the unit `direction`, placed
/// in the world and then projected by `flat` into `out`; false (and nothing) for a half-space,
/// whose support set is its whole boundary plane.
fn support_set(
    convex: &Convex,
    pose: &Pose,
    direction: &Vec3,
    tolerance: f64,
    flat: &impl Fn(&Point) -> [f64; 2],
    out: &mut Vec<[f64; 2]>,
) -> bool {
    out.clear();
    let d = pose.rotation.inverse() * direction;
    let mut push = |local: Point| out.push(flat(&(pose * local)));
    match convex {
        Convex::HalfSpace => return false,
        Convex::Sphere { .. } | Convex::Ellipsoid { .. } => push(convex.support(&d)),
        Convex::Polyhedron(p) => {
            let top = p
                .vertices()
                .iter()
                .map(|v| v.coords.dot(&d))
                .fold(f64::NEG_INFINITY, f64::max);
            for v in p.vertices() {
                if v.coords.dot(&d) >= top - tolerance {
                    push(*v);
                }
            }
        }
        Convex::Capsule {
            radius,
            half_height,
        } => {
            let margin = d * *radius;
            if 2.0 * half_height * d.z.abs() <= tolerance {
                for z in [-half_height, *half_height] {
                    push(Point::new(0.0, 0.0, z) + margin);
                }
            } else {
                push(convex.support(&d));
            }
        }
        Convex::Cylinder {
            radius,
            half_height,
        } => cylinder_support(*radius, *half_height, &d, tolerance, &mut push),
    }
    true
}

/// A cylinder's points (about z, own frame) within `tolerance` of its extreme plane along the
/// unit `d`: a cap lying flat within it as `MAX_MANIFOLD_POINTS` points round its rim, else the
/// rim's extreme point on each cap that reaches within it (one point, or the side's line). The
/// rim is curved: the rest of an arc within the tolerance does not touch, and points on it
/// would hold a rolling coin back.
fn cylinder_support(
    radius: f64,
    half_height: f64,
    d: &Vec3,
    tolerance: f64,
    push: &mut impl FnMut(Point),
) {
    let radial = d.x.hypot(d.y);
    let top = half_height * d.z.abs() + radius * radial;
    let facing = if radial > 0.0 { d.y.atan2(d.x) } else { 0.0 };
    let rim = |angle: f64, z: f64| Point::new(radius * angle.cos(), radius * angle.sin(), z);
    for z in [half_height, -half_height] {
        // The rim point at angle β from the facing direction reaches z d_z + r ρ cos β.
        if z * d.z + radius * radial < top - tolerance {
            continue; // this cap stays beyond the tolerance
        }
        if z * d.z - radius * radial >= top - tolerance {
            let n = MAX_MANIFOLD_POINTS;
            for k in 0..n {
                push(rim(std::f64::consts::TAU * k as f64 / n as f64, z));
            }
        } else {
            push(rim(facing, z));
        }
    }
}

/// The convex hull of 2-D points into `out`, counter-clockwise (Andrew's monotone chain): one
/// point, a segment's two ends, or a polygon's corners. Sorts `points` in place.
fn hull(points: &mut Vec<[f64; 2]>, out: &mut Vec<[f64; 2]>) {
    out.clear();
    points.sort_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])));
    let scale = points
        .iter()
        .map(|p| p[0].abs().max(p[1].abs()))
        .fold(0.0, f64::max);
    let tiny = 1e-12 * scale.max(f64::MIN_POSITIVE);
    points.dedup_by(|p, q| (p[0] - q[0]).abs() <= tiny && (p[1] - q[1]).abs() <= tiny);
    if points.len() < 3 {
        out.extend_from_slice(points);
        return;
    }
    let cross = |o: &[f64; 2], a: &[f64; 2], b: &[f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let add = |out: &mut Vec<[f64; 2]>, start: usize, p: &[f64; 2]| {
        while out.len() >= start + 2
            && cross(&out[out.len() - 2], &out[out.len() - 1], p) <= tiny * scale
        {
            out.pop();
        }
        out.push(*p);
    };
    for p in points.iter() {
        add(out, 0, p);
    }
    out.pop(); // the last point starts the upper chain
    let start = out.len();
    for p in points.iter().rev() {
        add(out, start, p);
    }
    out.pop(); // the first point started the lower chain
}

/// The intersection of two convex regions from [`hull`] (points, segments or polygons) into
/// `out`; `spare` is working storage.
fn clip(a: &[[f64; 2]], b: &[[f64; 2]], out: &mut Vec<[f64; 2]>, spare: &mut Vec<[f64; 2]>) {
    out.clear();
    match (a.len(), b.len()) {
        (0, _) | (_, 0) | (1, _) | (_, 1) => {}
        (2, 2) => overlap(a, b, out),
        (2, _) => clip_polygon(a, b, false, out, spare),
        (_, 2) => clip_polygon(b, a, false, out, spare),
        _ => clip_polygon(a, b, true, out, spare),
    }
}

/// `subject` (a segment, or a polygon when `closed`) clipped by the convex polygon `by` into
/// `kept` (Sutherland–Hodgman: kept on the inner side of each of its edges in turn).
fn clip_polygon(
    subject: &[[f64; 2]],
    by: &[[f64; 2]],
    closed: bool,
    kept: &mut Vec<[f64; 2]>,
    input: &mut Vec<[f64; 2]>,
) {
    kept.clear();
    kept.extend_from_slice(subject);
    for i in 0..by.len() {
        let (p, q) = (by[i], by[(i + 1) % by.len()]);
        let side = |x: &[f64; 2]| (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0]);
        std::mem::swap(kept, input);
        kept.clear();
        let edges = if closed {
            input.len()
        } else {
            input.len().saturating_sub(1)
        };
        if input.len() == 1 {
            if side(&input[0]) >= 0.0 {
                kept.push(input[0]);
            }
            continue;
        }
        for k in 0..edges {
            let (s, e) = (input[k], input[(k + 1) % input.len()]);
            let (ds, de) = (side(&s), side(&e));
            if ds >= 0.0 {
                kept.push(s);
            }
            if (ds >= 0.0) != (de >= 0.0) {
                let t = ds / (ds - de);
                kept.push([s[0] + t * (e[0] - s[0]), s[1] + t * (e[1] - s[1])]);
            }
            if !closed && k + 1 == edges && de >= 0.0 {
                kept.push(e);
            }
        }
        if kept.is_empty() {
            break;
        }
    }
}

/// The overlap of two segments that lie along one line (to rounding relative to their
/// length) into `out`; nothing for crossing segments, whose one common point is the narrow
/// phase's.
fn overlap(a: &[[f64; 2]], b: &[[f64; 2]], out: &mut Vec<[f64; 2]>) {
    let axis = [a[1][0] - a[0][0], a[1][1] - a[0][1]];
    let length2 = axis[0] * axis[0] + axis[1] * axis[1];
    let length = length2.sqrt();
    let across = |p: &[f64; 2]| ((p[0] - a[0][0]) * axis[1] - (p[1] - a[0][1]) * axis[0]) / length;
    if across(&b[0]).abs() > 1e-6 * length || across(&b[1]).abs() > 1e-6 * length {
        return;
    }
    let along = |p: &[f64; 2]| ((p[0] - a[0][0]) * axis[0] + (p[1] - a[0][1]) * axis[1]) / length2;
    let (s0, s1) = (along(&b[0]), along(&b[1]));
    let (lo, hi) = (s0.min(s1).max(0.0), s0.max(s1).min(1.0));
    if lo <= hi {
        let at = |s: f64| [a[0][0] + s * axis[0], a[0][1] + s * axis[1]];
        out.extend([at(lo), at(hi)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::CollisionModel;
    use crate::dynamics::PlacedShape;
    use crate::geometry::Shape;
    use crate::math::Quat;

    /// A box of these half extents, as the collision model makes it.
    fn cuboid(h: Vec3) -> Convex {
        let shape = PlacedShape::new(Shape::Box { half_extents: h });
        CollisionModel::from_shapes(&[shape]).parts[0]
            .convex
            .clone()
    }

    /// The closest contact of a part resting on the ground plane z = 0 (normal +z from the
    /// ground b to the part a) at its lowest point.
    fn on_ground(lowest: Point) -> Closest {
        above(lowest, Point::new(lowest.x, lowest.y, 0.0))
    }

    /// A contact with `point_a` of part a straight above `point_b` of part b.
    fn above(point_a: Point, point_b: Point) -> Closest {
        Closest {
            distance: point_a.z - point_b.z,
            point_a,
            point_b,
            normal: Vec3::z(),
            parts: (0, 0),
            features: None,
        }
    }

    fn sorted(mut points: Vec<Point>) -> Vec<[f64; 3]> {
        let mut out: Vec<[f64; 3]> = points.drain(..).map(|p| [p.x, p.y, p.z]).collect();
        out.sort_by(|p, q| p.partial_cmp(q).unwrap());
        out
    }

    #[test]
    fn a_box_lying_on_the_ground_touches_at_its_four_bottom_corners() {
        let a = cuboid(Vec3::new(1.0, 2.0, 0.5));
        let pose_a = Pose::translation(0.0, 0.0, 0.5005);
        let closest = on_ground(Point::new(1.0, 2.0, 0.0005));
        let points = manifold(
            &a,
            &pose_a,
            &Convex::HalfSpace,
            &Pose::identity(),
            &closest,
            0.001,
        );
        let expected: Vec<[f64; 3]> = [(-1.0, -2.0), (-1.0, 2.0), (1.0, -2.0), (1.0, 2.0)]
            .iter()
            .map(|&(x, y)| [x, y, 0.00025])
            .collect();
        let found = sorted(points);
        assert_eq!(found.len(), 4);
        for (f, e) in found.iter().zip(&expected) {
            assert!(
                (0..3).all(|k| (f[k] - e[k]).abs() < 1e-12),
                "{f:?} vs {e:?}"
            );
        }
    }

    #[test]
    fn a_box_on_a_larger_box_is_clipped_to_the_overlap_of_their_faces() {
        // A 2×2 box on a 2×2 box shifted by (1, 0.5) and turned 0°: the overlap is the
        // rectangle [0, 1] × [−0.5, 1] (closed form).
        let a = cuboid(Vec3::new(1.0, 1.0, 0.5));
        let b = cuboid(Vec3::new(1.0, 1.0, 0.5));
        let pose_a = Pose::translation(1.0, 0.5, 1.0001);
        let pose_b = Pose::translation(0.0, 0.0, 0.0);
        let closest = above(Point::new(0.5, 0.5, 0.5001), Point::new(0.5, 0.5, 0.5));
        let found = sorted(manifold(&a, &pose_a, &b, &pose_b, &closest, 0.001));
        let expected = [[0.0, -0.5], [0.0, 1.0], [1.0, -0.5], [1.0, 1.0]];
        assert_eq!(found.len(), 4, "{found:?}");
        for (f, e) in found.iter().zip(&expected) {
            assert!((f[0] - e[0]).abs() < 1e-12 && (f[1] - e[1]).abs() < 1e-12);
            assert!((f[2] - 0.50005).abs() < 1e-12);
        }
    }

    #[test]
    fn a_box_resting_on_an_edge_touches_at_the_edge_ends_and_a_tilted_one_at_a_corner() {
        let a = cuboid(Vec3::new(1.0, 1.0, 1.0));
        // Turned 45° about y: the edge along y at the bottom, at height √2 − 1 below the centre.
        let pose = Pose::from_parts(
            nalgebra::Translation3::new(0.0, 0.0, 2f64.sqrt()),
            Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_4),
        );
        let closest = on_ground(Point::new(0.0, 1.0, 0.0));
        let found = sorted(manifold(
            &a,
            &pose,
            &Convex::HalfSpace,
            &Pose::identity(),
            &closest,
            0.001,
        ));
        assert_eq!(found.len(), 2);
        assert!((found[0][1] + 1.0).abs() < 1e-12 && (found[1][1] - 1.0).abs() < 1e-12);
        // Tilted about x too: one corner lowest by far, the single closest point.
        let tilted = Pose::from_parts(
            pose.translation,
            Quat::from_axis_angle(&Vec3::x_axis(), 0.2) * pose.rotation,
        );
        let closest = on_ground(Point::new(0.3, -0.7, 0.0));
        let points = manifold(
            &a,
            &tilted,
            &Convex::HalfSpace,
            &Pose::identity(),
            &closest,
            0.001,
        );
        assert_eq!(points, vec![Point::new(0.3, -0.7, 0.0)]);
    }

    #[test]
    fn a_coin_lying_on_a_box_touches_round_its_rim_and_a_rolling_one_at_one_point() {
        let coin = Convex::Cylinder {
            radius: 1.0,
            half_height: 0.1,
        };
        let table = cuboid(Vec3::new(5.0, 5.0, 1.0));
        let pose_table = Pose::translation(0.0, 0.0, -1.0);
        let pose_coin = Pose::translation(0.5, 0.0, 0.1002);
        let closest = above(Point::new(0.5, 0.0, 0.0002), Point::new(0.5, 0.0, 0.0));
        let points = manifold(&coin, &pose_coin, &table, &pose_table, &closest, 0.001);
        assert_eq!(points.len(), MAX_MANIFOLD_POINTS);
        for p in &points {
            let r = (p.x - 0.5).hypot(p.y);
            assert!((r - 1.0).abs() < 1e-12 && (p.z - 1e-4).abs() < 1e-12, "{p}");
        }
        // Upright (axis along x), rolling: the rim touches at one point.
        let upright = Pose::from_parts(
            nalgebra::Translation3::new(0.0, 0.0, 1.0002),
            Quat::from_axis_angle(&Vec3::y_axis(), std::f64::consts::FRAC_PI_2),
        );
        let closest = above(Point::new(0.0, 0.0, 0.0002), Point::origin());
        let points = manifold(&coin, &upright, &table, &pose_table, &closest, 0.001);
        // The side line: the bottom of the rim on both caps.
        assert_eq!(points.len(), 2, "{points:?}");
        for p in &points {
            assert!(p.y.abs() < 1e-12 && (p.x.abs() - 0.1).abs() < 1e-12, "{p}");
        }
    }

    #[test]
    fn clipping_agrees_with_sampling_the_two_regions() {
        // Two random convex polygons: every sampled point inside both lies inside the clipped
        // polygon, and every corner of the clipped polygon lies inside both (to rounding).
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let inside = |poly: &[[f64; 2]], x: &[f64; 2], slack: f64| {
            (0..poly.len()).all(|i| {
                let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
                (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0]) >= -slack
            })
        };
        for _ in 0..200 {
            let mut random_polygon = |centre: f64| {
                let mut points: Vec<[f64; 2]> = (0..8)
                    .map(|_| {
                        [
                            centre + rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                        ]
                    })
                    .collect();
                let mut corners = Vec::new();
                hull(&mut points, &mut corners);
                corners
            };
            let (a, b) = (random_polygon(0.0), random_polygon(0.7));
            let (mut both, mut spare) = (Vec::new(), Vec::new());
            clip(&a, &b, &mut both, &mut spare);
            for corner in &both {
                assert!(inside(&a, corner, 1e-12) && inside(&b, corner, 1e-12));
            }
            for _ in 0..200 {
                let x = [rng.random_range(-1.0..1.7), rng.random_range(-1.0..1.0)];
                if inside(&a, &x, 0.0) && inside(&b, &x, 0.0) {
                    assert!(both.len() >= 3 && inside(&both, &x, 1e-12));
                }
            }
        }
    }
}
