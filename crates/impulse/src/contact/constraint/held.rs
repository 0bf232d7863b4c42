//! A held contact: a contact point of a constraint group tracked in the bodies' own frames, and
//! its kinematics at any state of the group (Baraff ch. 6).
//!
//! Two kinds cover the shapes whose contact point is known in closed form:
//!
//! - **On a plane**: a point of A — a vertex (a material point), or the centre of a sphere-swept
//!   core (a ball's centre, a point of a capsule's segment) with the sweep radius — against a
//!   plane of B (a face of a polyhedron or box, the ground). With `c` the core point, `x` a
//!   point of the plane and `n` its normal (turning with B): `d = n·(c − x) − r`, and the
//!   geometric contact point `p = c − r n` moves at `ṗ = ċ − r ṅ` (for a rolling ball, its
//!   centre's velocity: the bottom of the ball is not a material point, eq. 6-33).
//! - **Between cores**: two sphere-swept cores (ball on ball, ball on capsule): the normal runs
//!   along the line between the core points, `d = |c_A − c_B| − r_A − r_B`, `ṅ` the line's turning
//!   rate, and the contact point `p = c_B + r_B n` moves at `ċ_B + r_B ṅ`.
//!
//! Both give the contact LCP's inputs — point, normal, `ṅ`, `ṗ_c` — from which `lcp::contact`
//! forms `a_N = n·ṡ + ṅ·s` (eq. 6-33), exact for these shapes; the gap `d` and its rate `ḋ`
//! drive the drift correction.

use crate::math::{Point, Quat, Vec3};

/// One side of a held contact: a member of the group (its index), or a fixed body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) enum Side {
    Member(usize),
    Fixed,
}

/// Where a held contact touches, in each side's body frame (the world frame for a fixed side).
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) enum Geometry {
    /// A point of A (`core_a`, swept by `radius_a`) on a plane of B through `plane_b` with
    /// outward normal `normal_b` (towards A).
    OnPlane {
        core_a: Vec3,
        radius_a: f64,
        plane_b: Vec3,
        normal_b: Vec3,
    },
    /// Two sphere-swept core points.
    Cores {
        core_a: Vec3,
        radius_a: f64,
        core_b: Vec3,
        radius_b: f64,
    },
}

/// A contact point a constraint group holds: the colliders it joins (the normal points from
/// `pair.1` towards `pair.0`), which side each is, and where it touches.
#[derive(Clone, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct HeldContact {
    pub(crate) pair: (usize, usize),
    pub(crate) a: Side,
    pub(crate) b: Side,
    pub(crate) geometry: Geometry,
    pub(crate) friction: f64,
    pub(crate) restitution: f64,
    /// Whether the contact slides (dynamic friction) or sticks (static friction): part of the
    /// group's state, changed only between integration steps (see `ContactGroup::update_modes`).
    pub(crate) sliding: bool,
    /// While it slides: the direction of its slip at the start of the current step, which its
    /// dynamic friction opposes through the step (zero when it sticks).
    pub(crate) slip_direction: Vec3,
    /// The spring–damper under the penalty model.
    pub(crate) spring: super::penalty::Spring,
    /// Where an `OnPlane` contact's plane is a face of a polyhedron: the face's outline as
    /// half-planes `m · p ≤ h` (`m` the unit outward normal of an edge within the face's plane,
    /// in B's body frame); for A's point held across an edge of B, the strip along that edge
    /// (`world::held_faces::edge_strip`). Empty for an unbounded plane (a half-space, a pair
    /// of cores).
    pub(crate) face: Vec<(Vec3, f64)>,
}

/// A body's motion at one instant: centre of mass, orientation, velocity, angular velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Motion {
    pub(crate) position: Vec3,
    pub(crate) orientation: Quat,
    pub(crate) velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
}

impl Motion {
    /// A fixed body: the world frame, at rest.
    pub(crate) const FIXED: Motion = Motion {
        position: Vec3::new(0.0, 0.0, 0.0),
        orientation: Quat::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
        velocity: Vec3::new(0.0, 0.0, 0.0),
        angular_velocity: Vec3::new(0.0, 0.0, 0.0),
    };

    /// The world position of the body-frame point `local`.
    pub(crate) fn point(&self, local: &Vec3) -> Vec3 {
        self.position + self.orientation * local
    }

    /// The velocity of the material point at world position `p`.
    pub(crate) fn point_velocity(&self, p: &Vec3) -> Vec3 {
        self.velocity + self.angular_velocity.cross(&(p - self.position))
    }

    /// A body-frame point for the world position `p`.
    pub(crate) fn local(&self, p: &Vec3) -> Vec3 {
        self.orientation.inverse() * (p - self.position)
    }

    /// A body-frame direction for the world direction `v`.
    pub(crate) fn local_direction(&self, v: &Vec3) -> Vec3 {
        self.orientation.inverse() * v
    }
}

/// A held contact's kinematics at one state of its bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Kinematics {
    /// The contact point (on A's surface) and the unit normal from B towards A.
    pub(crate) point: Point,
    pub(crate) normal: Vec3,
    /// `ṅ`.
    pub(crate) normal_rate: Vec3,
    /// `ṗ_c`, the velocity of the geometric contact point (`None`: A's material point, a
    /// vertex).
    pub(crate) point_velocity: Option<Vec3>,
    /// The gap `d` (negative: overlapping) and its rate `ḋ`.
    pub(crate) gap: f64,
    pub(crate) gap_rate: f64,
    /// A unit tangent that turns smoothly with the bodies (the first axis of a sticking
    /// contact's friction box: a frame that swung with the free acceleration would make the
    /// box, and the forces, jump between evaluations).
    pub(crate) tangent: Vec3,
}

impl HeldContact {
    /// Whether A's point has slid off B's face by more than `margin` across its outline (a part
    /// sliding off the end of a track): the plane holds it no longer.
    pub(crate) fn off_face(&self, a: &Motion, b: &Motion, margin: f64) -> bool {
        let Geometry::OnPlane { core_a, .. } = self.geometry else {
            return false;
        };
        let p = b.local(&a.point(&core_a));
        self.face.iter().any(|(m, h)| m.dot(&p) > h + margin)
    }

    /// The tangential slip at the contact: the velocity of A's material point there relative
    /// to B's, less its normal part.
    pub(crate) fn slip(&self, a: &Motion, b: &Motion) -> Vec3 {
        let k = self.kinematics(a, b);
        let p = k.point.coords;
        let s = a.point_velocity(&p) - b.point_velocity(&p);
        s - k.normal * k.normal.dot(&s)
    }

    /// The contact at kinematics `k` as a point of the contact LCP (its members as LCP body
    /// indices, a fixed side as none), with no drift or slip correction.
    pub(crate) fn lcp_point(&self, k: &Kinematics) -> crate::lcp::contact::ContactPoint {
        let index = |s: Side| match s {
            Side::Member(i) => Some(i),
            Side::Fixed => None,
        };
        let mut point =
            crate::lcp::contact::ContactPoint::new(index(self.a), index(self.b), k.point, k.normal)
                .with_friction(self.friction)
                .with_restitution(self.restitution);
        point.normal_rate = Some(k.normal_rate);
        point.point_velocity = k.point_velocity;
        point
    }

    /// The contact's kinematics with A and B moving as `a` and `b`.
    pub(crate) fn kinematics(&self, a: &Motion, b: &Motion) -> Kinematics {
        match self.geometry {
            Geometry::OnPlane {
                core_a,
                radius_a,
                plane_b,
                normal_b,
            } => {
                let core = a.point(&core_a);
                let plane = b.point(&plane_b);
                let normal = b.orientation * normal_b;
                let normal_rate = b.angular_velocity.cross(&normal);
                let offset = core - plane;
                let core_velocity = a.point_velocity(&core);
                let plane_velocity = b.point_velocity(&plane);
                Kinematics {
                    point: Point::from(core - normal * radius_a),
                    normal,
                    normal_rate,
                    point_velocity: (radius_a > 0.0)
                        .then(|| core_velocity - normal_rate * radius_a),
                    gap: normal.dot(&offset) - radius_a,
                    gap_rate: normal_rate.dot(&offset)
                        + normal.dot(&(core_velocity - plane_velocity)),
                    // A tangent of the plane fixed in B.
                    tangent: b.orientation * crate::math::orthonormal_basis(&normal_b).0,
                }
            }
            Geometry::Cores {
                core_a,
                radius_a,
                core_b,
                radius_b,
            } => {
                let (ca, cb) = (a.point(&core_a), b.point(&core_b));
                let line = ca - cb;
                let length = line.norm();
                let normal = line / length;
                let (va, vb) = (a.point_velocity(&ca), b.point_velocity(&cb));
                let relative = va - vb;
                let gap_rate = normal.dot(&relative);
                let normal_rate = (relative - normal * gap_rate) / length;
                Kinematics {
                    point: Point::from(cb + normal * radius_b),
                    normal,
                    normal_rate,
                    point_velocity: Some(vb + normal_rate * radius_b),
                    gap: length - radius_a - radius_b,
                    gap_rate,
                    tangent: crate::math::orthonormal_basis(&normal).0,
                }
            }
        }
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// Moves a body rigidly with constant v and ω over `h` (exact for a constant ω).
    fn moved(m: &Motion, h: f64) -> Motion {
        Motion {
            position: m.position + m.velocity * h,
            orientation: Quat::from_scaled_axis(m.angular_velocity * h) * m.orientation,
            ..*m
        }
    }

    fn motion(position: Vec3, axis: Vec3, v: Vec3, w: Vec3) -> Motion {
        Motion {
            position,
            orientation: Quat::from_scaled_axis(axis),
            velocity: v,
            angular_velocity: w,
        }
    }

    #[test]
    fn gap_rate_and_normal_rate_match_finite_differences() {
        // Central differences of d and n along rigid motions with constant v, ω (exact
        // positions): ḋ and ṅ to 1e-7 relative (h = 1e-5, error O(h²)).
        let a = motion(
            Vec3::new(0.1, -0.2, 0.5),
            Vec3::new(0.3, -0.1, 0.2),
            Vec3::new(0.4, 0.1, -0.3),
            Vec3::new(1.0, -2.0, 0.5),
        );
        let b = motion(
            Vec3::new(-0.2, 0.1, 0.0),
            Vec3::new(-0.2, 0.4, 0.1),
            Vec3::new(-0.1, 0.2, 0.1),
            Vec3::new(0.3, 0.7, -1.1),
        );
        let contacts = [
            HeldContact {
                pair: (0, 1),
                a: Side::Member(0),
                b: Side::Member(1),
                geometry: Geometry::OnPlane {
                    core_a: Vec3::new(0.05, -0.1, -0.2),
                    radius_a: 0.07,
                    plane_b: Vec3::new(0.0, 0.1, 0.3),
                    normal_b: Vec3::new(0.2, -0.3, 1.0).normalize(),
                },
                friction: 0.5,
                restitution: 0.0,
                sliding: false,
                slip_direction: Vec3::zeros(),
                spring: Default::default(),
                face: Vec::new(),
            },
            HeldContact {
                pair: (0, 1),
                a: Side::Member(0),
                b: Side::Member(1),
                geometry: Geometry::Cores {
                    core_a: Vec3::new(0.05, -0.1, -0.2),
                    radius_a: 0.07,
                    core_b: Vec3::new(0.1, 0.2, 0.3),
                    radius_b: 0.11,
                },
                friction: 0.5,
                restitution: 0.0,
                sliding: false,
                slip_direction: Vec3::zeros(),
                spring: Default::default(),
                face: Vec::new(),
            },
        ];
        let h = 1e-5;
        for contact in &contacts {
            let k = contact.kinematics(&a, &b);
            let plus = contact.kinematics(&moved(&a, h), &moved(&b, h));
            let minus = contact.kinematics(&moved(&a, -h), &moved(&b, -h));
            let gap_rate = (plus.gap - minus.gap) / (2.0 * h);
            let normal_rate = (plus.normal - minus.normal) / (2.0 * h);
            assert!(
                (gap_rate - k.gap_rate).abs() < 1e-7 * k.gap_rate.abs().max(1.0),
                "{gap_rate} vs {}",
                k.gap_rate
            );
            assert!(
                (normal_rate - k.normal_rate).norm() < 1e-7 * k.normal_rate.norm().max(1.0),
                "{normal_rate:?} vs {:?}",
                k.normal_rate
            );
            if let Some(pc) = k.point_velocity {
                let pc_fd = (plus.point.coords - minus.point.coords) / (2.0 * h);
                assert!((pc_fd - pc).norm() < 1e-7 * pc.norm().max(1.0), "{pc_fd:?} vs {pc:?}");
            }
        }
    }

    #[test]
    fn a_ball_resting_on_the_ground_touches_at_its_bottom() {
        // Ball of radius 0.1 at height 0.1 on the ground (fixed plane z = 0): gap 0, contact
        // point at the origin, normal +z; rolling at ω = v/r along x keeps ḋ = 0 and the contact
        // point moves with the centre.
        let ball = motion(
            Vec3::new(0.0, 0.0, 0.1),
            Vec3::zeros(),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
        );
        let contact = HeldContact {
            pair: (0, 1),
            a: Side::Member(0),
            b: Side::Fixed,
            geometry: Geometry::OnPlane {
                core_a: Vec3::zeros(),
                radius_a: 0.1,
                plane_b: Vec3::zeros(),
                normal_b: Vec3::z(),
            },
            friction: 0.3,
            restitution: 0.0,
            sliding: false,
            slip_direction: Vec3::zeros(),
            spring: Default::default(),
            face: Vec::new(),
        };
        let k = contact.kinematics(&ball, &Motion::FIXED);
        assert!(k.gap.abs() < 1e-15 && k.gap_rate.abs() < 1e-15);
        assert!((k.point.coords - Vec3::zeros()).norm() < 1e-15);
        assert_eq!(k.point_velocity, Some(Vec3::new(1.0, 0.0, 0.0)));
    }
}
