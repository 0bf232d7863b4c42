//! A pair's check time from the sphere a turning prescribed body stays in.
//!
//! A kinematic body's spin enters the time-of-impact bound as `spin_reach |ω|` (eq. 2.13): its
//! supporting planes may sweep towards the other body that fast, and a pair beside a body
//! spinning at ω was checked about ω times as often, though nothing came nearer. Spin alone
//! never carries a point farther from the body's centre of motion than its reach `R`, so the
//! body stays in the ball of radius `R` about its origin, which moves at most at the motion's
//! speed bound. The pair cannot touch before the other body's own ball (its reach `r` about
//! its centre `c`) meets that one: the gap `|o − c| − R − r` closes at most at the origin's
//! speed plus the other body's travel bound along the line, whatever the spin. The later of
//! this time and the narrow phase's is still a bound, so the pair's next check takes it.

use super::colliders::Participants;
use super::event_loop::EventLoop;
use crate::collision::broad::Pair;
use crate::collision::toi::{MotionBound, TravelBound, next_check_delay};

impl EventLoop {
    /// The delay before pair `p` could come within the envelope, from the balls its colliders
    /// stay in, when one of them is a turning prescribed body; 0 otherwise (no bound) or when
    /// the balls overlap.
    pub(super) fn spin_sphere_delay(
        &self,
        (a, b): Pair,
        motion: (MotionBound, MotionBound),
        epsilon: f64,
        world: &Participants<'_>,
    ) -> f64 {
        let turning = |m: &MotionBound| {
            matches!(m, MotionBound::Prescribed { angular_velocity, .. }
                if *angular_velocity != crate::math::Vec3::zeros())
        };
        if !(turning(&motion.0) || turning(&motion.1))
            || self.colliders.unbounded[a]
            || self.colliders.unbounded[b]
        {
            return 0.0;
        }
        let (ca, cb) = (
            self.colliders.centre(a, world),
            self.colliders.centre(b, world),
        );
        let between = cb - ca;
        let distance = between.norm();
        let gap = distance - self.colliders.reach[a] - self.colliders.reach[b];
        // (Also a NaN gap: no bound.)
        if gap.is_nan() || gap <= 0.5 * epsilon {
            return 0.0;
        }
        let towards_b = between / distance;
        // A prescribed body's ball moves with its origin; any other body's centre is one of
        // its points, bounded as they all are.
        let travel = |m: &MotionBound, direction| match *m {
            MotionBound::Prescribed { speed, .. } => TravelBound { a: 0.0, b: speed },
            _ => m.along(&direction),
        };
        let closing = travel(&motion.0, towards_b) + travel(&motion.1, -towards_b);
        next_check_delay(closing, gap, epsilon)
    }
}
