//! The flat-face shortcut of the narrow phase: when a flat face of one part (a cylinder's end
//! cap; a polyhedron's face against an ellipsoid or a cylinder) carries the closest points, the
//! gap to the face's plane is the exact distance, found without GJK.

use super::narrow::{Closest, Placed};
use super::model::Convex;
use crate::math::{Point, Vec3};

/// Most faces a polyhedron may have for the flat-face shortcut to scan them for a candidate:
/// beyond that the scan could cost more than the GJK query it replaces.
const FLAT_FACE_SCAN_LIMIT: usize = 64;

/// How far inside its face, relative to the coordinates' magnitude, a projected point must lie
/// for the flat-face shortcut to accept it: thousands of times the rounding of the transforms
/// and dot products involved (a few ulps), so rounding can only reject, never accept, a point
/// outside the face.
const FACE_TEST_SLACK: f64 = 1e-12;

/// A flat face of a part, in the part's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FlatFace {
    /// A polyhedron's face, by index.
    Polygon(u32),
    /// A cylinder's end cap: the disc at z = +half_height (`top`) or −half_height.
    Cap { top: bool },
}

/// The exact distance of two parts when a flat face of one of them carries the closest points
/// (a shortcut before GJK). Each part with flat faces (a cylinder; a polyhedron of few faces
/// against an ellipsoid or a cylinder) is tried as `F` with one candidate face, the other part
/// as `C`; `cached` is last time's
/// separating direction (from b towards a), which picks the face and the order of the tries.
/// `None` when no candidate qualifies: the caller runs GJK as before.
pub(super) fn flat_face_contact(a: &Placed, b: &Placed, cached: Option<&Vec3>) -> Option<Closest> {
    let on_a = candidate_face(a, b, cached.map(|d| -d).as_ref());
    let on_b = candidate_face(b, a, cached);
    // The face better aligned with the last separating direction first (equal scores without
    // a cache: a's first).
    let b_first = matches!((on_a, on_b), (Some((_, x)), Some((_, y))) if y > x);
    let tries = if b_first {
        [on_b.map(|(f, _)| (f, false)), on_a.map(|(f, _)| (f, true))]
    } else {
        [on_a.map(|(f, _)| (f, true)), on_b.map(|(f, _)| (f, false))]
    };
    for (face, flat_is_a) in tries.into_iter().flatten() {
        let (flat, other) = if flat_is_a { (a, b) } else { (b, a) };
        let Some((distance, on_other, on_flat, normal)) = touch_face(flat, face, other) else {
            continue;
        };
        // `normal` points from F to C; the result's points from b to a.
        return Some(if flat_is_a {
            Closest {
                distance,
                point_a: on_flat,
                point_b: on_other,
                normal: -normal,
                parts: (0, 0),
                features: None,
            }
        } else {
            Closest {
                distance,
                point_a: on_other,
                point_b: on_flat,
                normal,
                parts: (0, 0),
                features: None,
            }
        });
    }
    None
}

/// The face of `flat` to try against `other`, with a score for the order of tries (its
/// alignment with `towards_other`, F's side of the last separating direction; zero without
/// one). `None` when `flat` has no flat face worth trying.
fn candidate_face(
    flat: &Placed,
    other: &Placed,
    towards_other: Option<&Vec3>,
) -> Option<(FlatFace, f64)> {
    let local_direction = || towards_other.map(|d| flat.pose.rotation.inverse_transform_vector(d));
    match flat.convex {
        Convex::Cylinder { .. } => {
            // A point of C: if C lies beyond a cap's plane, so does this point, so its side
            // picks the only cap that can qualify.
            let inside_other = other.pose * other.convex.contained_point();
            let local = flat.pose.inverse_transform_point(&inside_other);
            let top = local.z >= 0.0;
            let score = local_direction().map_or(0.0, |d| if top { d.z } else { -d.z });
            Some((FlatFace::Cap { top }, score))
        }
        // Against a sphere or capsule (a point or segment core) GJK on a polyhedron ends
        // exactly in a few steps, cheaper than a face scan that often fails (a ball in a
        // tessellated dish); only a curved core makes GJK iterate to its tolerance.
        Convex::Polyhedron(poly)
            if poly.faces().len() <= FLAT_FACE_SCAN_LIMIT
                && matches!(
                    other.convex,
                    Convex::Ellipsoid { .. } | Convex::Cylinder { .. }
                ) =>
        {
            let faces = poly.faces().iter().enumerate();
            let best = match local_direction() {
                // The face whose normal is closest to the last separating direction: the very
                // face that carried the closest point last time, if one did.
                Some(d) => faces
                    .map(|(i, face)| (i, face.normal.dot(&d)))
                    .max_by(|x, y| x.1.total_cmp(&y.1)),
                // The face whose plane a point of C lies farthest beyond (for a wide, flat
                // box this is the top face even where the direction between the centres is
                // closer to a side face's normal).
                None => {
                    let inside_other = other.pose * other.convex.contained_point();
                    let local = flat.pose.inverse_transform_point(&inside_other);
                    faces
                        .map(|(i, face)| (i, face.normal.dot(&local.coords) - face.offset))
                        .max_by(|x, y| x.1.total_cmp(&y.1))
                        .map(|(i, _)| (i, 0.0))
                }
            };
            best.map(|(i, score)| (FlatFace::Polygon(i as u32), score))
        }
        _ => None,
    }
}

/// Tries `face` of `flat` (F) against `other` (C): with n the face's outward normal and
/// n·x = d its plane, p = support_C(−n) (margin included) and s = n·p − d, when s > 0 and
/// q = p − s n lies inside the face the parts are exactly s apart, closest at p and q.
/// Exact: F lies in the half-space n·x ≤ d, every point of C is at least s beyond it, and
/// q ∈ F is s from p ∈ C. (A polyhedron's plane is the exact hull face's, rounded once.) The
/// inside test errs only towards rejecting. Returns (s, p, q, n) in world coordinates.
fn touch_face(flat: &Placed, face: FlatFace, other: &Placed) -> Option<(f64, Point, Point, Vec3)> {
    let (local_normal, offset) = match (face, flat.convex) {
        (FlatFace::Polygon(f), Convex::Polyhedron(poly)) => {
            let face = poly.faces().get(f as usize)?;
            (face.normal, face.offset)
        }
        (FlatFace::Cap { top }, Convex::Cylinder { half_height, .. }) => {
            (if top { Vec3::z() } else { -Vec3::z() }, *half_height)
        }
        _ => return None,
    };
    let normal = flat.pose.rotation * local_normal;
    let deepest = other.full(&-normal);
    let local = flat.pose.inverse_transform_point(&deepest);
    let gap = local_normal.dot(&local.coords) - offset;
    // The magnitude of the coordinates the test's rounding scales with.
    let reach = deepest.coords.norm() + flat.pose.translation.vector.norm() + local.coords.norm();
    // NaN, or crossing the plane more than `shallow_overlap` allows: GJK and EPA decide. On
    // the plane to rounding is touching, and the face's normal is the contact's: GJK's and
    // EPA's directions at zero distance are noise (issue 41, item 2: a cylinder placed exactly
    // on a tilted box fell into it).
    if gap.is_nan()
        || (gap < -FACE_TEST_SLACK * reach
            && !shallow_overlap(flat, face, local_normal, &local, -gap))
    {
        return None;
    }
    let projected = local - local_normal * gap;
    let inside = match (face, flat.convex) {
        (FlatFace::Polygon(f), Convex::Polyhedron(poly)) => {
            // Edge-side test: each edge runs counter-clockwise seen from outside, so
            // n × edge points into the face; q must be inside every edge by the slack.
            poly.face_half_edges(f).all(|h| {
                let tail = poly.vertices()[poly.half_edges()[h as usize].origin as usize];
                let head = poly.vertices()[poly.head(h) as usize];
                let inward = local_normal.cross(&(head - tail));
                let slack = FACE_TEST_SLACK * (reach + tail.coords.norm());
                inward.dot(&(projected - tail)) > slack * inward.norm()
            })
        }
        (FlatFace::Cap { .. }, Convex::Cylinder { radius, .. }) => {
            // |q − centre| ≤ r, shrunk by the slack: the disc is centred on the axis.
            let limit = radius - FACE_TEST_SLACK * (reach + radius);
            limit > 0.0 && projected.x.powi(2) + projected.y.powi(2) < limit * limit
        }
        _ => false,
    };
    inside.then(|| (gap, deepest, deepest - normal * gap, normal))
}

/// Whether C's deepest point `local` (F's frame), `depth` below F's face with outward normal
/// `n`, overlaps F through that face alone: then moving C by `depth` along n is the least
/// translation that parts them, and n is the contact normal. With q the point's projection
/// on the face, m its distance inside the face's boundary, T F's thickness along n and L the
/// distance across n from q to F's point deepest along −n, this holds when m ≥ 10 depth and
/// T ≥ 4 depth (1 + L/m): in any direction u at angle φ from n, C overlaps F by at least
/// m sin φ + depth cos φ (the disc of radius m about q is in F), which is ≥ depth for
/// tan(φ/2) ≤ m / depth; within the remaining 2 atan(1/10) of −n, F's deepest point gives
/// at least 0.98 (T − depth) − 2 (depth/m) L ≥ depth. (Issue 41, item 2: a cylinder placed
/// 1e-9 m into a tilted box got EPA's direction, whose tolerance was larger than the depth.)
fn shallow_overlap(flat: &Placed, face: FlatFace, n: Vec3, local: &Point, depth: f64) -> bool {
    let projected = local + n * depth;
    let (margin, bottom) = match (face, flat.convex) {
        (FlatFace::Polygon(f), Convex::Polyhedron(poly)) => {
            let margin = poly
                .face_half_edges(f)
                .map(|h| {
                    let tail = poly.vertices()[poly.half_edges()[h as usize].origin as usize];
                    let head = poly.vertices()[poly.head(h) as usize];
                    let inward = n.cross(&(head - tail));
                    inward.dot(&(projected - tail)) / inward.norm()
                })
                .fold(f64::INFINITY, f64::min);
            let bottom = poly
                .vertices()
                .iter()
                .min_by(|x, y| n.dot(&x.coords).total_cmp(&n.dot(&y.coords)))
                .copied();
            (margin, bottom)
        }
        (
            FlatFace::Cap { .. },
            Convex::Cylinder {
                radius,
                half_height,
            },
        ) => {
            let across = (projected.x.powi(2) + projected.y.powi(2)).sqrt();
            (radius - across, Some(Point::from(-n * *half_height)))
        }
        _ => return false,
    };
    let Some(bottom) = bottom else {
        return false;
    };
    let thickness = n.dot(&(projected - bottom));
    let to_bottom = bottom - projected;
    let across = (to_bottom - n * n.dot(&to_bottom)).norm();
    margin >= 10.0 * depth && thickness >= 4.0 * depth * (1.0 + across / margin)
}
