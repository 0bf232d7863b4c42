//! The face a held contact's plane belongs to, so that a group lets the contact go when its
//! point slides off the face (issue 35, the part sorter: a part held on the upper track's top
//! face slid on past the track's end, and over door 1's opening, on the face's plane).

use crate::collision::Convex;
use crate::contact::constraint::held::Motion;
use crate::contact::kinematics::ContactSide;
use crate::math::Vec3;

/// A face normal within this angle (its cosine's distance from 1) of a contact's normal is the
/// face the contact's plane lies in.
const SAME_NORMAL: f64 = 1e-6;

/// The outline of the face of `side`'s part whose outward normal is `normal` (world) and whose
/// plane lies nearest `point` (world), as half-planes `m · p ≤ h` in the frame of the body
/// moving as `frame` (`m` the unit outward normal of an edge within the face's plane). Empty
/// where the part has no such face (a half-space is unbounded; spheres and capsules have no
/// faces).
pub(super) fn face_outline(
    side: &ContactSide<'_>,
    normal: &Vec3,
    point: &Vec3,
    frame: &Motion,
) -> Vec<(Vec3, f64)> {
    let Convex::Polyhedron(poly) = side.convex else {
        return Vec::new();
    };
    let n = side.pose.inverse_transform_vector(normal);
    let p = side.pose.inverse_transform_point(&(*point).into()).coords;
    let Some(f) = (0..poly.faces().len())
        .filter(|&f| 1.0 - poly.faces()[f].normal.dot(&n) < SAME_NORMAL)
        .min_by(|&f, &g| {
            let off = |f: usize| {
                let face = &poly.faces()[f];
                (face.normal.dot(&p) - face.offset).abs()
            };
            off(f).total_cmp(&off(g))
        })
    else {
        return Vec::new();
    };
    // The face's corners and normal in the body's frame.
    let corners: Vec<Vec3> = poly
        .face_vertices(f as u32)
        .map(|v| {
            let world = side.pose.transform_point(&poly.vertices()[v as usize]);
            frame.local(&world.coords)
        })
        .collect();
    let face_normal = frame.local_direction(&side.pose.transform_vector(&poly.faces()[f].normal));
    let centre = corners.iter().sum::<Vec3>() / corners.len() as f64;
    let mut sides = Vec::with_capacity(corners.len());
    for (i, c) in corners.iter().enumerate() {
        let next = corners[(i + 1) % corners.len()];
        let along = next - c;
        let mut m = along.cross(&face_normal);
        if m.norm() == 0.0 {
            continue;
        }
        m = m.normalize();
        if m.dot(&(centre - c)) > 0.0 {
            m = -m;
        }
        sides.push((m, m.dot(c)));
    }
    sides
}

/// How far an edge may lean out of the contact's tangent plane (its direction's cosine against
/// the normal) and still be the edge a crossing is held across.
const IN_PLANE: f64 = 1e-3;

/// The strip along the edge of `side`'s part that passes nearest `point` (world) across
/// `normal` (world), as half-planes `m · p ≤ h` in the frame of the body moving as `frame`: the
/// edge's line on either side (`m` across it, within the tangent plane) and its two ends. A
/// point of the other part held across this edge (an edge crossing an edge) is on the edge no
/// longer once it lies outside, and the group lets it go (the margin, the envelope, makes it a
/// strip 2ε wide). Empty where the part has no edge there (not a polyhedron).
///
/// Without it such a hold had no outline at all (issue 35, the part sorter): a part sliding
/// along the lower track with its bottom edge across the track's side edge left one fixed
/// point of the track's edge behind at every pair check, held on the plane of the part's
/// edge long after the edge had passed — 63 to 111 contacts on one part, growing.
pub(super) fn edge_strip(
    side: &ContactSide<'_>,
    normal: &Vec3,
    point: &Vec3,
    frame: &Motion,
) -> Vec<(Vec3, f64)> {
    let Convex::Polyhedron(poly) = side.convex else {
        return Vec::new();
    };
    let n = side.pose.inverse_transform_vector(normal);
    let p = side.pose.inverse_transform_point(&(*point).into()).coords;
    // The edge (a half-edge's tail and head) nearest the point, among those lying in the
    // tangent plane.
    let distance = |h: usize| {
        let (tail, head) = (
            poly.vertices()[poly.half_edges()[h].origin as usize].coords,
            poly.vertices()[poly.head(h as u32) as usize].coords,
        );
        let along = head - tail;
        let s = ((p - tail).dot(&along) / along.norm_squared()).clamp(0.0, 1.0);
        (tail + along * s - p).norm()
    };
    let Some(h) = (0..poly.half_edges().len())
        .filter(|&h| poly.direction(h as u32).dot(&n).abs() < IN_PLANE)
        .min_by(|&g, &h| distance(g).total_cmp(&distance(h)))
    else {
        return Vec::new();
    };
    let to_frame = |v: &Vec3| frame.local(&side.pose.transform_point(&(*v).into()).coords);
    let tail = to_frame(&poly.vertices()[poly.half_edges()[h].origin as usize].coords);
    let head = to_frame(&poly.vertices()[poly.head(h as u32) as usize].coords);
    let along = head - tail;
    let face_normal = frame.local_direction(normal);
    let across = along.cross(&face_normal);
    if along.norm() == 0.0 || across.norm() == 0.0 {
        return Vec::new();
    }
    let (e, m) = (along.normalize(), across.normalize());
    vec![
        (m, m.dot(&tail)),
        (-m, -m.dot(&tail)),
        (e, e.dot(&head)),
        (-e, -e.dot(&tail)),
    ]
}
