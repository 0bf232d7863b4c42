//! The held contacts of a touching pair under the constraint and penalty models: its contact
//! region's corners, each settled on the two surfaces and held as a point on a plane or between
//! two sphere-swept cores (see `contact::constraint::held`).

use super::colliders::Participants;
use super::event_loop::EventLoop;
use crate::collision::Closest;
use crate::collision::Convex;
use crate::collision::broad::Pair;
use crate::collision::manifold::manifold;
use crate::contact::constraint::held::{Geometry, HeldContact, Motion, Side};
use crate::contact::kinematics::{ContactSide, FeatureKind, RigidMotion, contact_kinematics};
use crate::math::Point;

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
                // its own (two flat regions face to face, which touch all over), the region's
                // corner on each surface along the piece pair's normal.
                let (n, pa, pb, (fa, fb)) =
                    match contact_kinematics(&a, &b, &corner, &piece.normal, epsilon) {
                        Ok(k) => (k.normal, k.points.0.coords, k.points.1.coords, k.features),
                        Err(_) => (
                            piece.normal,
                            corner.coords + piece.normal * (0.5 * piece.distance),
                            corner.coords - piece.normal * (0.5 * piece.distance),
                            (FeatureKind::Face, FeatureKind::Face),
                        ),
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
                });
            }
        }
        (!held.is_empty()).then_some(held)
    }
}
