//! Bounds on how a rigid body's points move over its free flight, for the time-of-impact
//! checks and swept boxes of the event loop: the ballistic bound of a free body (eq. 2.13,
//! with the refinements of [`super::toi`]), the turning bound of a symmetric top, the bound of
//! a body in prescribed motion, and the soonest check time of a pair gathered while the
//! narrow phase walks its piece pairs.

use super::CollisionModel;
use super::narrow::{Beyond, Closest};
use super::toi::{
    MotionBound, TravelBound, any_direction_between, ballistic_swept_box, energy_bound,
    next_check_delay, next_check_delay_rising, turning_bound,
};
use crate::dynamics::{MotionType, RigidBody};
use crate::geometry::Aabb;
use crate::math::{Mat3, Point, Vec3};

/// How far a rigid body's points can travel from now on (sampled now): its motion type's
/// bound, a free flight's widened by `allowance` in every direction (see the event loop's
/// allowances). `reach` and `spin_reach` are the collider's reach and spin reach about the
/// centre of its motion; `symmetry` is the body's, if it is a symmetric top.
#[inline]
pub(crate) fn body_motion_bound(
    body: &RigidBody,
    symmetry: Option<Symmetry>,
    reach: f64,
    spin_reach: f64,
    allowance: f64,
) -> MotionBound {
    match body.motion() {
        MotionType::Fixed => MotionBound::Fixed,
        MotionType::Kinematic(motion) => MotionBound::Prescribed {
            speed: motion.speed_bound(),
            angular_velocity: motion.angular_velocity,
            reach,
            spin_reach,
        },
        MotionType::Dynamic => {
            let s = body.state();
            let inertia = body.principal_inertia();
            let omega_body = s.orientation.inverse() * s.angular_velocity;
            let torque = body.torque().norm();
            let (angular_speed, angular_growth, turning, turning_velocity) = if torque == 0.0 {
                let speed = free_angular_speed(body);
                match symmetry {
                    // With an allowance, impulses may raise the angular speed and so the
                    // turning rate: only eq. 2.13 is kept.
                    _ if allowance > 0.0 => (speed, 0.0, f64::INFINITY, s.angular_velocity),
                    // A symmetric top: only ω⊥ turns its supporting planes (a support point
                    // lies in the plane of the axis and the direction, so ω₃ â moves it
                    // along the plane). Euler's equations keep ω₃ and |ω⊥|, with
                    // |ω̇| = |I₃ − I₁|/I₁ |ω₃||ω⊥|, and the axis turns at |ω⊥|, so
                    // |d(ω⊥)/dt| ≤ |ω₃||ω⊥| (1 + |I₃ − I₁|/I₁). A millionth of the general
                    // bound stands for the integrator's drift from the exact motion.
                    Some(symmetry) => {
                        let axis = s.orientation * symmetry.axis;
                        let spin = s.angular_velocity.dot(&axis);
                        let across = s.angular_velocity - axis * spin;
                        let turning = spin.abs() * across.norm() * (1.0 + symmetry.ratio)
                            + 1e-6 * turning_bound(&inertia, speed);
                        (speed, 0.0, turning * (1.0 + 1e-9), across)
                    }
                    None => (
                        speed,
                        0.0,
                        turning_bound(&inertia, speed),
                        s.angular_velocity,
                    ),
                }
            } else {
                // |ω| ≤ |L| / I_min and |L| grows at most at |τ| (momentum bound, eq. 2.4).
                let momentum = inertia.component_mul(&omega_body).norm();
                (
                    momentum / inertia.min(),
                    torque / inertia.min(),
                    f64::INFINITY,
                    s.angular_velocity,
                )
            };
            MotionBound::Ballistic {
                velocity: s.velocity,
                acceleration: body.acceleration(),
                angular_speed,
                angular_growth,
                reach: spin_reach,
                angular_velocity: turning_velocity,
                turning,
                allowance,
            }
        }
    }
}

/// Box swept by a rigid body (sampled now) over the next `span`: its model's box if fixed, the
/// ballistic box of a free flight (Fig. 2.13), and for prescribed motion the box its origin's
/// speed bound can reach, grown by its reach.
#[inline]
pub(crate) fn body_swept_box(
    body: &RigidBody,
    model: &CollisionModel,
    reach: f64,
    span: f64,
) -> Aabb {
    match body.motion() {
        MotionType::Fixed => model.aabb(&body.model_pose()).unwrap_or(Aabb {
            min: Point::origin(),
            max: Point::origin(),
        }),
        MotionType::Dynamic => {
            let s = body.state();
            ballistic_swept_box(
                &Point::from(s.position),
                &s.velocity,
                &body.acceleration(),
                span,
                reach,
            )
        }
        MotionType::Kinematic(motion) => {
            // The origin moves at most at its speed bound; the body turns about it.
            let origin = Point::from(body.model_pose().translation.vector);
            let travel = motion.speed_bound() * span;
            let grow = Vec3::repeat(travel + reach);
            Aabb {
                min: origin - grow,
                max: origin + grow,
            }
        }
    }
}

/// Bound on a torque-free body's angular speed over its flight: the energy bound (eq. 2.5),
/// with room for the integrator's energy error.
pub(crate) fn free_angular_speed(body: &RigidBody) -> f64 {
    let omega_body = body.state().orientation.inverse() * body.state().angular_velocity;
    energy_bound(&body.principal_inertia(), &omega_body) * (1.0 + 1e-9)
}

/// A free body whose collision geometry is a solid of revolution about an axis through its
/// centre of mass, with inertia symmetric about that axis (moment `I₃` along it, `I₁` across).
/// Spin about the axis moves no supporting plane of it, and torque-free it keeps both its spin
/// `ω₃` and the size of the rest of its angular velocity, `|ω⊥|` (Euler's equations for a
/// symmetric top), so a rolling wheel or coin gets a turning bound of its wobble alone (see
/// `body_motion_bound`).
#[derive(Clone, Copy, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Symmetry {
    /// The axis, in the body (principal) frame.
    axis: Vec3,
    /// `|I₃ − I₁| / I₁`.
    ratio: f64,
}

impl Symmetry {
    /// The symmetry of a free body with this collision model, if it is a symmetric top.
    pub(crate) fn of(body: &RigidBody, model: &CollisionModel) -> Option<Self> {
        if !body.is_dynamic() {
            return None;
        }
        let (point, axis) = model.symmetry_axis()?;
        let mass = body.mass_properties();
        let offset = point - mass.center_of_mass;
        let size = model.reach_from(&mass.center_of_mass);
        if (offset - axis * offset.dot(&axis)).norm() > 1e-9 * size {
            return None; // the axis misses the centre of mass (point masses)
        }
        let inertia = mass.inertia;
        let along = axis.dot(&(inertia * axis));
        let across = 0.5 * (inertia.trace() - along);
        let top = Mat3::identity() * across + axis * axis.transpose() * (along - across);
        if (inertia - top).norm() > 1e-9 * inertia.trace() || across <= 0.0 {
            return None;
        }
        Some(Self {
            axis: body.body_to_model().rotation.inverse() * axis,
            ratio: (along - across).abs() / across,
        })
    }
}

/// When a pair must be checked again, gathered piece pair by piece pair while the narrow
/// phase searches. The time-of-impact bound relies on convexity (Fig. 2.9), so every pair of
/// convex pieces within `slack` of the closest gets its own check time, along its own
/// separating direction; those farther share the direction-free bound's time for the least
/// gap among them.
///
/// A node of piece pairs whose spheres are `gap > ε/2` apart is not examined when the
/// direction-free bound's time for `gap` is no sooner than the soonest found, or than the
/// horizon: outside the envelope a piece pair's own time is at least that (its bound along its
/// direction is smaller, its distance larger), so leaving it out never brings a check later.
/// A cap lying on a tray has a dozen pieces within the slack of the closest, and the one
/// touching decides; two bowling pins apart and separating would otherwise have every piece
/// pair examined, for a check time of "never".
pub(crate) struct SoonestCheck {
    motion: (MotionBound, MotionBound),
    /// The pair's direction-free travel bound ([`any_direction_between`]).
    anywhere: TravelBound,
    epsilon: f64,
    slack: f64,
    /// The soonest check time of the piece pairs examined so far, at most the horizon.
    soonest: f64,
    /// The least gap of the nodes left out for lying beyond the slack.
    beyond_slack: f64,
    /// Whether an overlapping pair leaving the overlap is next checked at contact
    /// ([`next_check_delay_rising`]: contact answered by impulses) or back at its depth.
    rising: bool,
}

impl SoonestCheck {
    /// A pair is checked again whenever either body is hit, and at least once per `horizon`
    /// (the box period) otherwise.
    pub(crate) fn new(
        motion: (MotionBound, MotionBound),
        epsilon: f64,
        slack: f64,
        horizon: f64,
    ) -> Self {
        Self {
            motion,
            anywhere: any_direction_between(&motion.0, &motion.1),
            epsilon,
            slack,
            soonest: horizon,
            beyond_slack: f64::INFINITY,
            rising: false,
        }
    }

    /// Checks overlapping pairs that leave the overlap at contact (see `rising`).
    pub(crate) fn rising_out_of_overlaps(mut self, rising: bool) -> Self {
        self.rising = rising;
        self
    }

    /// The delay for a pair `d` apart under `bound`, by the rule in effect.
    fn delay_at(&self, bound: TravelBound, d: f64) -> f64 {
        if self.rising {
            next_check_delay_rising(bound, d, self.epsilon)
        } else {
            next_check_delay(bound, d, self.epsilon)
        }
    }

    /// The two colliders' motion bounds.
    pub(crate) fn motion(&self) -> (MotionBound, MotionBound) {
        self.motion
    }

    /// The delay before the pair's next check.
    pub(crate) fn delay(&self) -> f64 {
        if self.beyond_slack.is_finite() {
            let beyond = next_check_delay(self.anywhere, self.beyond_slack, self.epsilon);
            self.soonest.min(beyond)
        } else {
            self.soonest
        }
    }
}

impl Beyond for SoonestCheck {
    fn examined(&mut self, pair: &Closest) {
        // Two bounds on the approach (eq. 2.13, and by the turning of the supporting planes);
        // the later time each allows is still safe.
        let (motion_a, motion_b) = self.motion;
        let direction = -pair.normal;
        let spinning = motion_a.along(&direction) + motion_b.along(&-direction);
        let by_spin = self.delay_at(spinning, pair.distance);
        if by_spin >= self.soonest {
            return; // the later of the two times cannot be sooner
        }
        let turning =
            motion_a.along_by_turning(&direction) + motion_b.along_by_turning(&-direction);
        let safe = by_spin.max(self.delay_at(turning, pair.distance));
        self.soonest = self.soonest.min(safe);
    }

    // Out of line: inlined into the node walk of `narrow::search_parts`, its loop-invariant
    // parts were hoisted out of the walk and reloaded after every piece pair examined
    // (callgrind, part feeder: 19 instructions per pair, 0.3 % of `impulse table`'s).
    #[inline(never)]
    fn skip(&mut self, gap: f64, closest: f64) -> bool {
        if gap >= closest + self.slack {
            self.beyond_slack = self.beyond_slack.min(gap);
            return true;
        }
        gap > 0.5 * self.epsilon
            && next_check_delay(self.anywhere, gap, self.epsilon) >= self.soonest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyDesc, PlacedShape};
    use crate::geometry::Shape;
    use crate::integrate::Tolerance;
    use crate::math::{Pose, Quat};

    fn symmetry(shapes: Vec<PlacedShape>, point_masses: Vec<(f64, Point)>) -> Option<Symmetry> {
        let mut desc = BodyDesc::new("body", Shape::Sphere { radius: 1.0 });
        desc.shapes = shapes;
        desc.point_masses = point_masses;
        let body = RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        Symmetry::of(&body, &CollisionModel::from_shapes(body.shapes()))
    }

    #[test]
    fn symmetric_tops_are_solids_of_revolution_with_symmetric_inertia() {
        let tilted = |shape: Shape| PlacedShape {
            shape,
            pose: Pose::from_parts(
                Vec3::new(0.3, -0.2, 0.1).into(),
                Quat::from_scaled_axis(Vec3::new(0.4, 0.2, -0.3)),
            ),
            density: None,
        };
        let cylinder = Shape::Cylinder {
            radius: 1.0,
            half_height: 0.1,
        };
        // A coin, placed anywhere: its axis, in the principal frame, and the moments' ratio
        // |I₃ − I₁| / I₁ with I₃ = m r²/2, I₁ = m (3 r² + h²)/12 (h = 0.2): 0.9868.
        let top = symmetry(vec![tilted(cylinder.clone())], Vec::new()).expect("a symmetric top");
        assert!((top.axis.norm() - 1.0).abs() < 1e-12);
        let (i3, i1) = (0.5, (3.0 + 0.04) / 12.0);
        assert!((top.ratio - (i3 - i1) / i1).abs() < 1e-9, "{}", top.ratio);
        // Ellipsoids of revolution are; a triaxial one, a sphere, a box are not.
        let ellipsoid = |radii: Vec3| symmetry(vec![tilted(Shape::Ellipsoid { radii })], vec![]);
        assert!(ellipsoid(Vec3::new(1.0, 2.0, 1.0)).is_some());
        assert!(ellipsoid(Vec3::new(1.0, 2.0, 3.0)).is_none());
        assert!(ellipsoid(Vec3::repeat(1.0)).is_none());
        let cube = Shape::Box {
            half_extents: Vec3::repeat(1.0),
        };
        assert!(symmetry(vec![tilted(cube)], Vec::new()).is_none());
        // A point mass off the axis moves the centre of mass off it; one on the axis keeps
        // the symmetry; two parts are not one solid of revolution.
        let coin = PlacedShape::new(cylinder);
        assert!(symmetry(vec![coin.clone()], vec![(0.5, Point::new(0.5, 0.0, 0.0))]).is_none());
        assert!(symmetry(vec![coin.clone()], vec![(0.5, Point::new(0.0, 0.0, 0.05))]).is_some());
        assert!(symmetry(vec![coin.clone(), coin], Vec::new()).is_none());
    }
}
