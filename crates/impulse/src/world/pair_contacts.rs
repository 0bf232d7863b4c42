//! The held contacts of a touching pair under the constraint and penalty models: its contact
//! region's corners, each settled on the two surfaces and held as a point on a plane or between
//! two sphere-swept cores (see `contact::constraint::held`).

use super::colliders::Participants;
use super::event_loop::EventLoop;
use super::held_faces::{edge_strip, face_outline};
use crate::collision::Closest;
use crate::collision::Convex;
use crate::collision::broad::Pair;
use crate::collision::manifold::manifold;
use crate::contact::constraint::held::{Geometry, HeldContact, Motion, Side};
use crate::contact::kinematics::{ContactSide, FeatureKind, RigidMotion, contact_kinematics};
use crate::math::{Point, Vec3};

impl EventLoop {
    /// The held contacts of pair `p` (sides `sides`) touching at `closest`: each piece pair's
    /// contact region corners (`collision::manifold`), each settled on the two surfaces by the
    /// contact kinematics (`contact::kinematics`: the corner's own points and normal, not the
    /// region's plane), as a point of one part on a plane of the other (the part touching with a
    /// face gives the plane), or between two sphere-swept cores. `None` where a corner has no
    /// closed-form contact point here (a cylinder's rim or side, an ellipsoid, a degenerate
    /// contact): impulses answer those.
    pub(super) fn pair_contacts(
        &mut self,
        p: Pair,
        closest: &Closest,
        sides: (Side, Side),
        world: &Participants<'_>,
    ) -> Option<Vec<HeldContact>> {
        let mut pieces = Vec::new();
        self.piece_contacts(p, closest, &mut pieces, world);
        let material = world
            .materials
            .between(self.colliders.kind(p.0), self.colliders.kind(p.1));
        let epsilon = world.settings.collision_epsilon;
        let (ma, mb) = (self.motion(p.0, world), self.motion(p.1, world));
        let rigid = |m: &Motion| RigidMotion {
            center_of_mass: Point::from(m.position),
            velocity: m.velocity,
            angular_velocity: m.angular_velocity,
        };
        let (pose_a, pose_b) = (
            self.colliders.pose(p.0, world),
            self.colliders.pose(p.1, world),
        );
        let (model_a, model_b) = (&self.colliders.models[p.0], &self.colliders.models[p.1]);
        let spring = self.pair_spring(p, material.restitution, world);
        let mut held = Vec::new();
        for (_, piece) in pieces {
            let a = ContactSide::of_part(model_a, &pose_a, piece.parts.0, rigid(&ma));
            let b = ContactSide::of_part(model_b, &pose_b, piece.parts.1, rigid(&mb));
            let radius = |c: &Convex| match c {
                Convex::Sphere { radius } | Convex::Capsule { radius, .. } => Some(*radius),
                Convex::Polyhedron(_) | Convex::HalfSpace => Some(0.0),
                Convex::Ellipsoid { .. } | Convex::Cylinder { .. } => None,
            };
            let (Some(ra), Some(rb)) = (radius(a.convex), radius(b.convex)) else {
                return None;
            };
            for corner in manifold(a.convex, &a.pose, b.convex, &b.pose, &piece, epsilon) {
                // The corner settled on both surfaces; where the kinematics finds no normal of
                // its own (two flat regions face to face, which touch all over), the corner on
                // each part's own facing face (`flat_corner`). An edge crossing an edge where
                // two faces lie face to face is held on those faces too (`flat_crossing`), and
                // still let go where it leaves the edge.
                let kinematics = contact_kinematics(&a, &b, &corner, &piece.normal, epsilon);
                // Each part's facing face, found only where it may be wanted.
                let faces = match &kinematics {
                    Ok(k) if k.features != (FeatureKind::Edge, FeatureKind::Edge) => None,
                    _ => facing_faces(&a, &b, &corner, &piece.normal),
                };
                let (n, pa, pb, (fa, fb)) = match kinematics {
                    Ok(k) if flat_crossing(faces.as_ref(), k.features) => {
                        let (n, pa, pb) =
                            flat_corner(faces, &corner, &piece.normal, piece.distance);
                        (n, pa, pb, k.features)
                    }
                    Ok(k) => (k.normal, k.points.0.coords, k.points.1.coords, k.features),
                    Err(_) => {
                        let (n, pa, pb) =
                            flat_corner(faces, &corner, &piece.normal, piece.distance);
                        (n, pa, pb, (FeatureKind::Face, FeatureKind::Face))
                    }
                };
                let flat = |f: FeatureKind| matches!(f, FeatureKind::Face);
                let (swapped, geometry) = if ra > 0.0 && rb > 0.0 {
                    // Two sphere-swept cores: the normal runs between them.
                    (
                        false,
                        Geometry::Cores {
                            core_a: ma.local(&(pa + n * ra)),
                            radius_a: ra,
                            core_b: mb.local(&(pb - n * rb)),
                            radius_b: rb,
                        },
                    )
                } else if flat(fa) && !flat(fb) {
                    // B's point on A's face: the plane turns with A.
                    (
                        true,
                        Geometry::OnPlane {
                            core_a: mb.local(&(pb - n * rb)),
                            radius_a: rb,
                            plane_b: ma.local(&pa),
                            normal_b: ma.local_direction(&-n),
                        },
                    )
                } else {
                    // A's point on B's face (or an edge crossing an edge, the normal taken as
                    // B's while they touch).
                    (
                        false,
                        Geometry::OnPlane {
                            core_a: ma.local(&(pa + n * ra)),
                            radius_a: ra,
                            plane_b: mb.local(&pb),
                            normal_b: mb.local_direction(&n),
                        },
                    )
                };
                // The face the plane lies in, to let the contact go where it slides off.
                let face = match geometry {
                    Geometry::Cores { .. } => Vec::new(),
                    _ if swapped => face_outline(&a, &-n, &pa, &ma),
                    _ if flat(fb) => face_outline(&b, &n, &pb, &mb),
                    _ if matches!(fb, FeatureKind::Edge) => edge_strip(&b, &n, &pb, &mb),
                    _ => Vec::new(),
                };
                let (pair, a_side, b_side) = if swapped {
                    ((p.1, p.0), sides.1, sides.0)
                } else {
                    (p, sides.0, sides.1)
                };
                held.push(HeldContact {
                    pair,
                    a: a_side,
                    b: b_side,
                    geometry,
                    friction: material.friction,
                    restitution: material.restitution,
                    sliding: false,
                    slip_direction: crate::math::Vec3::zeros(),
                    spring,
                    face,
                });
            }
        }
        (!held.is_empty()).then_some(held)
    }
}

/// A corner of two flat regions face to face (where the contact kinematics finds no normal of
/// its own): the corner settled on each part's own facing face, along the piece pair's normal
/// `n` (from B towards A), and B's face normal. The two faces need not be parallel: a support
/// set takes every vertex within the envelope of the extreme plane, so a face tilted against
/// the other by up to an envelope across its width counts as flat, and its corners lie at gaps
/// anywhere from the closest distance to the envelope. Each corner keeps its own gap; a corner
/// placed at the pair's closest distance would hold a tilted body on a plane below its face.
/// Parts without faces (none reach here today) keep the closest distance, split evenly.
/// `faces`: each part's facing face at `corner` ([`facing_faces`]).
fn flat_corner(
    faces: Option<FacingFaces>,
    corner: &Point,
    n: &Vec3,
    distance: f64,
) -> (Vec3, Vec3, Vec3) {
    match faces {
        Some(((pa, _), (pb, normal_b))) => (normal_b, pa.coords, pb.coords),
        None => (
            *n,
            corner.coords + n * (0.5 * distance),
            corner.coords - n * (0.5 * distance),
        ),
    }
}

/// Whether `corner`, which the contact kinematics finds as an edge crossing an edge
/// (`features`), is where the outlines of two faces lying face to face cross (their outward
/// normals opposed to within [`FLAT_CROSSING`]). Its edge–edge normal `e_A × e_B` is then no
/// face's: when the faces are `θ` apart it tilts from them by about `θ` over the sine of the
/// edges' angle (the upper block landing in the block drop: 3.8e-3 rad from faces 1e-3 apart).
/// Held as a plane of B at that normal, the contact's gap drifts by the tilt times the slip
/// since capture, and a body settling flat on its face came to rest tilted to satisfy it
/// (1.7e-6 rad over 8 cm). Such a corner is held on the faces themselves, as the region's
/// other corners are, and let go where it leaves the edge (`edge_strip`), as before: a part
/// sliding with its edge across another's would otherwise keep every crossing it passed.
fn flat_crossing(faces: Option<&FacingFaces>, features: (FeatureKind, FeatureKind)) -> bool {
    if features != (FeatureKind::Edge, FeatureKind::Edge) {
        return false;
    }
    match faces {
        Some(((_, normal_a), (_, normal_b))) => -normal_a.dot(normal_b) >= FLAT_CROSSING.cos(),
        None => false,
    }
}

/// The angle (rad) within which two faces' normals count as opposed, face to face, at an edge
/// crossing: a face is in a region's support set while tilted by up to an envelope across its
/// width (for the block drop's 8 cm block, 1.25e-3 rad); this takes a margin over any such
/// tilt and stays far below the angles of a true edge-on-edge contact.
const FLAT_CROSSING: f64 = 0.01;

/// A's and B's faces turned to each other through a corner: each face's crossing point and
/// outward normal ([`facing_face`]).
type FacingFaces = ((Point, Vec3), (Point, Vec3));

/// Each part's face turned to the other through `corner` along the normal `n` (from B towards
/// A); `None` where either part has no faces.
fn facing_faces(a: &ContactSide, b: &ContactSide, corner: &Point, n: &Vec3) -> Option<FacingFaces> {
    Some((facing_face(a, corner, &-n)?, facing_face(b, corner, n)?))
}

/// Where the line through `corner` along `toward` (the direction from the part to the other)
/// leaves the part through a face turned towards the other, and that face's outward normal
/// (world): the least `s` at which `corner + s·toward` meets a face plane `f·x = h` with
/// `f·toward > 0`. `None` for a part without faces.
fn facing_face(side: &ContactSide, corner: &Point, toward: &Vec3) -> Option<(Point, Vec3)> {
    let c = side.pose.inverse_transform_point(corner).coords;
    let u = side.pose.inverse_transform_vector(toward);
    let planes: Vec<(Vec3, f64)> = match side.convex {
        Convex::Polyhedron(p) => p.faces().iter().map(|f| (f.normal, f.offset)).collect(),
        Convex::HalfSpace => vec![(Vec3::z(), 0.0)],
        _ => return None,
    };
    let (s, normal) = planes
        .into_iter()
        .filter(|(f, _)| f.dot(&u) > FACING)
        .map(|(f, h)| ((h - f.dot(&c)) / f.dot(&u), f))
        .min_by(|x, y| x.0.total_cmp(&y.0))?;
    let point = Point::from(c + u * s);
    Some((
        side.pose.transform_point(&point),
        side.pose.transform_vector(&normal),
    ))
}

/// How far a face must turn towards the other part (cosine against the normal) to be crossed
/// by the line along it: faces at grazing angles would put the crossing far away.
const FACING: f64 = 0.5;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::geometry::convex::ConvexPolyhedron;
    use crate::math::{Pose, Quat};

    fn cube(half: f64) -> Convex {
        let mut points = Vec::new();
        for i in 0..8 {
            let sign = |bit: usize| if i & bit == 0 { -half } else { half };
            points.push(Point::new(sign(1), sign(2), sign(4)));
        }
        Convex::Polyhedron(Arc::new(
            ConvexPolyhedron::hull_of(&points).expect("a cube"),
        ))
    }

    fn side(convex: &Convex, pose: Pose) -> ContactSide<'_> {
        ContactSide {
            convex,
            pose,
            motion: RigidMotion::at_rest(Point::from(pose.translation.vector)),
        }
    }

    #[test]
    fn a_corner_of_two_flat_faces_keeps_its_own_gap_where_the_faces_are_not_parallel() {
        // Regression (the block drop under constraint contact): corners of two flat regions
        // face to face used to be put at the pair's closest distance, so a face tilted within
        // the envelope was held on a plane below itself. A unit cube A tilted θ = 0.005 about
        // y over a fixed unit cube B whose top is z = 0, its low edge (x = +0.5) 1e-4 above.
        // A's bottom face is z = 1e-4 + (0.5 − x) tan θ over B (to first order in the
        // rotation: exactly the plane through its low edge with slope tan θ), so at a corner
        // at x = −0.3 the gap is 1e-4 + 0.8 tan θ, to 1e-12; and the normal returned is B's
        // face's, +z.
        let theta: f64 = 0.005;
        let (a, b) = (cube(0.5), cube(0.5));
        let turn = Quat::from_axis_angle(&Vec3::y_axis(), theta);
        // A's bottom-face edge x = +0.5 (local) is the low one: place its centre so that edge
        // sits at z = 1e-4.
        let low_edge = turn * Vec3::new(0.5, 0.0, -0.5);
        let centre = Vec3::new(0.0, 0.0, 1e-4) - Vec3::new(0.0, 0.0, low_edge.z);
        let side_a = side(&a, Pose::from_parts(centre.into(), turn));
        let side_b = side(&b, Pose::translation(0.0, 0.0, -0.5));
        let x = -0.3;
        let corner = Point::new(x, 0.1, 2e-4);
        let (n, pa, pb) = flat_corner(
            facing_faces(&side_a, &side_b, &corner, &Vec3::z()),
            &corner,
            &Vec3::z(),
            1e-4,
        );
        // A's face through its low edge: z = 1e-4 + (x_edge − x) tan θ, the low edge at
        // x_edge = centre.x + low_edge.x.
        let x_edge = centre.x + low_edge.x;
        let expected = 1e-4 + (x_edge - x) * theta.tan();
        assert!((n - Vec3::z()).norm() < 1e-15, "normal {n}");
        assert!((pb.z - 0.0).abs() < 1e-15, "B's point at z = {}", pb.z);
        assert!(
            (pa.z - expected).abs() < 1e-12,
            "gap {} against {expected}",
            pa.z
        );
        assert!(
            (pa.x - x).abs() < 1e-15 && (pb.x - x).abs() < 1e-15,
            "moved along the normal only"
        );
    }
}
