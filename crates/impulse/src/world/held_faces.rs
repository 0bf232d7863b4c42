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
