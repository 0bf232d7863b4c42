//! The contact layer: the contact problem of bodies touching at several points at once, the
//! solvers that answer it, and the impulses it gives each body.
//!
//! The event loop poses a [`ContactProblem`] from the pairs of a cluster in contact: its
//! bodies (inverse mass and inertia, current velocities; fixed and kinematic bodies with
//! none) and its contact points (point, collision frame with the normal, friction, the
//! velocity the contact is to leave with, a warm start). Each point's collision matrix blocks
//! `K_ij` follow from the bodies it joins (eq. 3.4). A [`ContactSolver`] answers the problem
//! with one impulse per point; [`ContactProblem::body_impulses`] turns those into each body's
//! impulses, which the event loop applies to the bodies (one new flight each).
//!
//! Which solver answers is chosen from `WorldSettings::contact_model` in one place, the event
//! loop's response phase. Today the impulse model's simultaneous microcollisions are answered
//! by projected Gauss–Seidel ([`gauss_seidel`]); an impulse LCP solved by Lemke's algorithm
//! (Baraff ch. 13) is a second implementation of the same trait, over the same problem.
//!
//! [`ContactProblem`]: crate::contact::ContactProblem
//! [`ContactSolver`]: crate::contact::ContactSolver
//! [`ContactProblem::body_impulses`]: crate::contact::ContactProblem::body_impulses
//! [`gauss_seidel`]: crate::contact::gauss_seidel

pub(crate) mod constraint;
pub(crate) mod gauss_seidel;
/// Contact kinematics for constraint-based contact: d, ḋ and d̈ = J·acc + κ, and the slip rows.
#[allow(dead_code)] // the constraint model settles contact points with it; its rows are not used yet
pub(crate) mod kinematics;
pub(crate) mod sticking_stop;
mod warm_start;

pub(crate) use warm_start::WarmStart;

use crate::math::{Mat3, Point, Vec3};

/// A body of a contact problem, in world coordinates. Fixed and kinematic bodies have zero inverse
/// mass and inertia (and their prescribed velocities).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContactBody {
    pub(crate) inverse_mass: f64,
    pub(crate) inverse_inertia: Mat3,
    pub(crate) center_of_mass: Point,
    pub(crate) velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
}

#[cfg(test)]
impl ContactBody {
    /// A fixed body at the origin (tests).
    pub(crate) fn fixed() -> Self {
        ContactBody {
            inverse_mass: 0.0,
            inverse_inertia: Mat3::zeros(),
            center_of_mass: Point::origin(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }
}

/// A contact point of a contact problem: the impulse acts on `bodies.0`, its opposite on `bodies.1`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContactPoint {
    pub(crate) bodies: (usize, usize),
    /// Contact point, world frame.
    pub(crate) point: Point,
    /// The collision frame: columns tangent, tangent, normal (from `bodies.1` to `bodies.0`).
    pub(crate) frame: Mat3,
    pub(crate) friction: f64,
    /// The velocity the contact is to leave with (collision frame): its normal part is the
    /// least speed to separate at, its tangential part what friction holds it to while it can.
    pub(crate) target: Vec3,
    /// Where the sweeps start from (collision frame): the impulse the contact took at the
    /// cluster's last solve, if that was recent (warm start: a resting pile takes much the same
    /// impulses hop after hop), else zero. It changes how fast the solve settles, not what it
    /// settles to.
    pub(crate) initial: Vec3,
}

/// The impulses found, in each contact's collision frame, and how the sweeps ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContactSolution {
    pub(crate) impulses: Vec<Vec3>,
    pub(crate) sweeps: u32,
    /// Whether the last sweep changed no body's velocity at its contacts by more than the
    /// tolerance.
    pub(crate) converged: bool,
}

/// What answers a contact problem: impulses, one per contact point in its collision frame,
/// that leave every point at least at its target normal speed under Coulomb friction. The
/// solver updates the bodies' velocities in the problem as it goes.
pub(crate) trait ContactSolver {
    /// Solves `problem` until no body's velocity at its contacts changes by more than
    /// `tolerance` (a speed) from one pass to the next, or the solver's own limit.
    fn solve(&mut self, problem: &mut ContactProblem, tolerance: f64) -> ContactSolution;
}

/// Projected Gauss–Seidel sweeps over the contact points, at most `max_sweeps` of them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProjectedGaussSeidel {
    pub(crate) max_sweeps: u32,
}

impl ContactSolver for ProjectedGaussSeidel {
    fn solve(&mut self, problem: &mut ContactProblem, tolerance: f64) -> ContactSolution {
        gauss_seidel::solve(
            &mut problem.bodies,
            &problem.points,
            tolerance,
            self.max_sweeps,
        )
    }
}

/// A contact problem: bodies, and the points at which they touch.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactProblem {
    pub(crate) bodies: Vec<ContactBody>,
    pub(crate) points: Vec<ContactPoint>,
}

impl ContactProblem {
    pub(crate) fn clear(&mut self) {
        self.bodies.clear();
        self.points.clear();
    }

    /// Each body's share of the solved `impulses` (one per point, in its collision frame),
    /// world frame, with the points they act at, appended to `taken[body]` (`taken` as long
    /// as the bodies): the impulse on the point's first body, its opposite on the second. A
    /// point that took no impulse gives none. Calls `record` with each point's index, its
    /// world-frame impulse and whether it took one.
    pub(crate) fn body_impulses(
        &self,
        impulses: &[Vec3],
        taken: &mut [Vec<(Vec3, Point)>],
        mut record: impl FnMut(usize, &Vec3, bool),
    ) {
        for (k, (point, local)) in self.points.iter().zip(impulses).enumerate() {
            let impulse = point.frame * local;
            let took = *local != Vec3::zeros();
            record(k, &impulse, took);
            if !took {
                continue;
            }
            taken[point.bodies.0].push((impulse, point.point));
            taken[point.bodies.1].push((-impulse, point.point));
        }
    }
}
