//! Near misses under the constraint and penalty models: a pair found within the envelope and
//! approaching at its closest points, whose closest points will pass each other instead of
//! meeting (issue 35, the part sorter).
//!
//! A collision needs the gap to close (Baraff §3.2: a contact with `ḋ < 0` at `d = 0`). Where a
//! face is one of the closest features the gap is the distance to its plane and closes at `ḋ`
//! while the other point stays over the face: the approach is real. Where neither closest
//! feature is a face — a box's edge gliding towards a parallel edge, a vertex towards an edge
//! or a vertex — each closest point can only slide along its edge, and the gap is the distance
//! between the two points in the directions left over. There it closes only if the relative
//! motion carries one point onto the other; otherwise `ḋ < 0` just says that the points draw
//! level before they part, and the gap bottoms out above zero. That is the part sorter's
//! stall: a part held 10⁻² ε above the upper track met the door's upstream edge, 2.5·10⁻⁵ cm
//! above the track, at a gap of 5·10⁻³ cm along a normal 16° off the direction it slides in,
//! and the collision along that normal stopped it dead (and every part behind it). Under the
//! impulse model the part hops within the envelope, meets the edge higher up and is thrown over
//! it; held, it would pass 7.5·10⁻⁵ cm over it.
//!
//! A near miss is not answered: the pair check sees the pair again as it comes closer (its
//! next check waits at most for half the gap to close), when the features that will meet — a
//! face and a point — decide.

use super::colliders::Participants;
use super::event_loop::EventLoop;
use crate::collision::Closest;
use crate::collision::Convex;
use crate::collision::broad::Pair;
use crate::collision::vclip::Feature;
use crate::contact::constraint::held::{Motion, Side};
use crate::math::{Point, Vec3};

/// How close (in envelopes) the closest points' straight paths must come to count as meeting:
/// the loop's own resolution of a gap (the least travel a pair's next check waits for).
const MEETING: f64 = 1e-3;

/// How high (in envelopes) above the surface a held body rests on an edge of another body may
/// lie and still be a seam in that surface: the same tolerance as a corner found again within
/// a held region (`groups::SAME_SURFACE`).
const SEAM: f64 = 0.1;

/// The cosine below which a held body's face is a side face, across the surface it is held
/// on rather than facing it.
const SIDE_FACE: f64 = 0.5;

/// The cosine above which a face of the other body faces the way a held body is held: its top
/// face, of which the edge met is a seam in the surface (8°).
const TOP_FACE: f64 = 0.99;

/// Two edge directions whose cross product is shorter than this (the sine of the angle between
/// them) are parallel: a line between them slides along both.
const PARALLEL: f64 = 1e-6;

impl EventLoop {
    /// Whether pair `p`, within the envelope and approaching at `contact`, is a near miss (see
    /// the module comment): neither closest feature is a face, and the closest points' relative
    /// straight path, with their sliding along their edges taken out, passes farther than
    /// [`MEETING`] envelopes from a meeting.
    pub(super) fn near_miss(&self, p: Pair, contact: &Closest, world: &Participants<'_>) -> bool {
        let Some((fa, fb)) = contact.features else {
            return false;
        };
        if self.over_seam(p, contact, (fa, fb), world) {
            return true;
        }
        // The directions each closest point can slide in (world frame).
        let mut slides: Vec<Vec3> = Vec::new();
        for (c, part, feature) in [(p.0, contact.parts.0, fa), (p.1, contact.parts.1, fb)] {
            let Some(part) = self.colliders.models[c].parts.get(part) else {
                return false;
            };
            let Convex::Polyhedron(poly) = &part.convex else {
                return false;
            };
            match feature {
                Feature::Face(_) => return false,
                Feature::Vertex(_) => {}
                Feature::Edge(h) => {
                    let pose = self.colliders.pose(c, world) * part.pose;
                    slides.push(pose.rotation * poly.direction(h));
                }
            }
        }
        // An orthonormal basis of the sliding directions; two edges that cross slide in the
        // whole plane normal to their common perpendicular, which is the normal: the gap
        // closes at `ḋ` there.
        let mut basis: Vec<Vec3> = Vec::new();
        for s in slides {
            let rest = basis.iter().fold(s, |r, b| r - b * b.dot(&r));
            if rest.norm() > PARALLEL {
                basis.push(rest.normalize());
            }
        }
        if basis.len() >= 2 {
            return false;
        }
        let across = |v: Vec3| basis.iter().fold(v, |r, b| r - b * b.dot(&r));
        // The relative position and velocity of the closest points, sliding taken out.
        let point = contact.contact_point();
        let r = across(contact.point_a - contact.point_b);
        let u = across(
            self.colliders.point_velocity(p.0, &point, world)
                - self.colliders.point_velocity(p.1, &point, world),
        );
        let speed = u.norm_squared();
        if speed == 0.0 {
            return false;
        }
        // Where the straight path r + u τ comes closest (τ ≥ 0: the pair approaches).
        let tau = (-r.dot(&u) / speed).max(0.0);
        let miss = (r + u * tau).norm();
        miss > MEETING * world.settings.collision_epsilon
    }

    /// Whether pair `p` is a held body meeting, sideways, the edge of a top face of the other
    /// body (see [`TOP_FACE`]) that lies no higher than [`SEAM`] envelopes above the surface
    /// the body is held on: a seam in that surface, which the body slides over (its held
    /// contacts carry it), not a step that stops it. Under the penalty model the springs let a
    /// body sink 10⁻² ε into the surface it rests on, so a flush neighbour answered by
    /// impulses (a multibody's door, 2.5·10⁻⁵ cm above the track in the part sorter) meets the
    /// body's front edges 1.25·10⁻⁴ cm above its bottom, head on; under the constraint model
    /// the body is held 10⁻² ε above, and such an edge passes under its bottom edge.
    fn over_seam(
        &self,
        p: Pair,
        contact: &Closest,
        features: (Feature, Feature),
        world: &Participants<'_>,
    ) -> bool {
        let epsilon = world.settings.collision_epsilon;
        let sides = [
            (p.0, (p.1, contact.parts.1, features.1), contact.point_b),
            (p.1, (p.0, contact.parts.0, features.0), contact.point_a),
        ];
        sides.into_iter().any(|(c, (other, part, edge), q)| {
            let Feature::Edge(h) = edge else {
                return false;
            };
            // The other part's faces on either side of its edge (world normals).
            let Some(part) = self.colliders.models[other].parts.get(part) else {
                return false;
            };
            let Convex::Polyhedron(poly) = &part.convex else {
                return false;
            };
            let pose = self.colliders.pose(other, world) * part.pose;
            let half = &poly.half_edges()[h as usize];
            let faces = [half.face, poly.half_edges()[half.twin as usize].face]
                .map(|f| pose.rotation * poly.faces()[f as usize].normal);
            let Some(held) = self.colliders.held_by(c) else {
                return false;
            };
            let Some(group) = world.groups.get(held.group) else {
                return false;
            };
            let motion = |s: Side| match s {
                Side::Member(k) => group
                    .model
                    .members
                    .get(k)
                    .map_or(Motion::FIXED, |m| self.motion(m.collider, world)),
                Side::Fixed => Motion::FIXED,
            };
            let me = Side::Member(held.member);
            group
                .model
                .contacts
                .iter()
                .filter(|h| h.a == me || h.b == me)
                .any(|h| {
                    let k = h.kinematics(&motion(h.a), &motion(h.b));
                    // The body's surface point and the direction away from what holds it.
                    let (surface, up): (Point, Vec3) = if h.a == me {
                        (k.point, k.normal)
                    } else {
                        (k.point - k.normal * k.gap, -k.normal)
                    };
                    // A seam: the body meets, sideways, the edge of a top face (one that faces
                    // the way the body is held, within TOP_FACE) no higher than SEAM.
                    contact.normal.dot(&up).abs() < SIDE_FACE
                        && faces.iter().any(|n| n.dot(&up) > TOP_FACE)
                        && (q - surface).dot(&up) <= SEAM * epsilon
                })
        })
    }
}
