//! Constraint-based contact (Baraff): a *group* of free bodies in persistent contact, moved
//! together by the adaptive integrator with the contact forces of an LCP at every derivative
//! evaluation.
//!
//! A group holds its members (free bodies: their states live in the group's ODE state while
//! held) and its held contacts (see [`held`]). The state derivative (Baraff's loop, Fig. 3.1,
//! with the gyroscopic term the thesis's eq. 3-1 leaves out) poses the contact problem at the
//! state — Baraff ch. 8–10 and 14 through `lcp::contact`: dynamic friction `−μ f_N ŝ` where a
//! contact slides, the box model of static friction where it does not — and solves it by
//! Lemke's algorithm warm-started from the last evaluation's basis (§13.3, so a resting pile
//! costs one linear solve an evaluation). Two corrections keep the contacts where they should
//! be against integration drift: the normal rows hold `d̈ = −2ω ḋ − ω² (d − d*)` (critically
//! damped to a held gap `d*` a hundredth of the envelope, so a stack's layers stand at their
//! touching heights to the eye, yet never so flush that the narrow phase's closest features turn
//! arbitrary) and a sticking contact's residual slip decays at `SLIP_RATE`.
//!
//! The group integrates *ahead*, as a multibody does (hybrid simulation, Mirtich ch. 5), keeping
//! every step's continuous output; the event loop bounds its members' motion from that output
//! ([`ContactGroup::motion_envelope`]) and samples it. After every accepted step the group
//! watches what the force law cannot: a contact whose gap opens past the envelope is released
//! (the flight ends there, so the event loop can let its bodies go), a change of LCP basis
//! restarts the integration (an acceleration discontinuity, §8.2), and a configuration with no
//! valid forces (Lemke ends on a ray, ch. 13: the inconsistent rod) is answered at the start of
//! its step by the ray's impulse and a collision solve, then integrated on.

pub(crate) mod held;

use std::cell::RefCell;
use std::collections::VecDeque;

use held::{HeldContact, Kinematics, Motion, Side};

use crate::dynamics::{BodyId, BodyState};
use crate::integrate::{AdaptiveRk, IntegrationError, OdeSystem, StepInterpolant, Tolerance};
use crate::lcp::contact::{
    ContactBody as LcpBody, ContactPoint as LcpPoint, ContactSystem, body_wrenches,
};
use crate::lcp::impulse::{collide, ray_impulse};
use crate::lcp::lemke::{Basis, LemkeOptions, Outcome};
use crate::math::{Mat3, Vec3};

/// State variables per member: centre (3), orientation quaternion (4), velocity (3), angular
/// velocity (3).
const PER_MEMBER: usize = 13;

/// Rate at which a sticking contact's residual slip decays (1/s): the box model of static
/// friction holds the slip's *acceleration* at zero, so without it a slip below the sliding
/// threshold would stay for ever.
const SLIP_RATE: f64 = 200.0;

/// Compliance added to a contact-force LCP that Lemke cannot solve as posed, relative to its
/// largest entry: `M + δ I` for each `δ` in turn until one solves (see
/// [`compliant_solution`]).
const COMPLIANCE: [f64; 4] = [1e-10, 1e-8, 1e-6, 1e-4];

/// Lemke on `M + δ I`, the LCP of contacts that give a little (`δ` a compliance, force per unit
/// acceleration): strictly copositive, so Lemke always ends on a solution, and its basis is never
/// singular. The forces it gives differ from a rigid solution's by `δ f` in acceleration (1e-10 of
/// the problem's scale first).
fn compliant_solution(
    m: &nalgebra::DMatrix<f64>,
    q: &nalgebra::DVector<f64>,
    options: &LemkeOptions,
) -> Option<crate::lcp::lemke::Solution> {
    let scale = m.amax();
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    COMPLIANCE.iter().find_map(|relative| {
        let shifted = m + nalgebra::DMatrix::identity(m.nrows(), m.ncols()) * (relative * scale);
        match crate::lcp::lemke::solve(&shifted, q, None, options) {
            Ok(Outcome::Solution(s)) => Some(s),
            _ => None,
        }
    })
}

/// A free body of a group, with what its motion needs (its state is the group's).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    pub(crate) collider: usize,
    pub(crate) body: BodyId,
    pub(crate) inverse_mass: f64,
    /// Principal moments (body frame).
    pub(crate) principal_inertia: Vec3,
    /// Gravity and the applied force, and the applied torque (world).
    pub(crate) force: Vec3,
    pub(crate) torque: Vec3,
}

/// How a group's contacts are held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Holding {
    /// Error control of the group's integration.
    pub(crate) tolerance: Tolerance,
    /// A contact slides when its slip exceeds this speed.
    pub(crate) sliding_speed: f64,
    /// Natural frequency ω of the drift correction of the normal rows (rad/s).
    pub(crate) stiffness: f64,
    /// A contact whose gap opens past this (the collision envelope) is released.
    pub(crate) release_gap: f64,
    /// The gap the drift correction draws a contact to.
    pub(crate) gap: f64,
}

/// What a group's integration met that the event loop must act on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Interruption {
    /// Contact `index` opened past the release gap at `time`: the flight ends there.
    Released { time: f64 },
}

/// Counts of what groups did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GroupCounters {
    /// LCP solves (one per derivative evaluation), and of those the warm starts kept.
    pub(crate) solves: u64,
    pub(crate) warm_solves: u64,
    /// Integrator steps and restarts at a change of basis.
    pub(crate) steps: u64,
    pub(crate) basis_restarts: u64,
    /// Configurations with no valid contact forces answered by a ray's impulse (ch. 13).
    pub(crate) ray_impulses: u64,
}

impl GroupCounters {
    /// Adds another group's counts.
    pub(crate) fn add(&mut self, other: &GroupCounters) {
        self.solves += other.solves;
        self.warm_solves += other.warm_solves;
        self.steps += other.steps;
        self.basis_restarts += other.basis_restarts;
        self.ray_impulses += other.ray_impulses;
    }
}

/// Bounds on one member's motion over an interval (as a multibody link's).
pub(crate) use crate::multibody::LinkEnvelope as MemberEnvelope;

/// What a group moves: its members and held contacts, and how they are held.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GroupModel {
    pub(crate) members: Vec<Member>,
    pub(crate) contacts: Vec<HeldContact>,
    pub(crate) holding: Holding,
}

/// A constraint group: members, held contacts, and the flight that moves them.
#[derive(Debug)]
pub(crate) struct ContactGroup {
    pub(crate) model: GroupModel,
    /// Time and state the group was last sampled at.
    time: f64,
    state: Vec<f64>,
    /// The flight from the last restart, possibly ahead of `time`, and its steps that end
    /// after `time`.
    flight: Option<Box<AdaptiveRk>>,
    segments: VecDeque<StepInterpolant>,
    /// Where the flight stops: a release (set when found while integrating ahead).
    interruption: Option<Interruption>,
    /// Lemke's last basis, the next solve's warm start.
    warm: RefCell<Option<Basis>>,
    /// What the group did (the solves are counted by the equations of motion, which see the
    /// group only through a shared reference).
    counters: RefCell<GroupCounters>,
    /// Ray impulses applied while integrating ahead, for `events.csv`: (time, member-side
    /// contact index, impulse on A) — taken by the event loop when it reaches them.
    pub(crate) rays: Vec<(f64, usize, Vec3)>,
}

impl ContactGroup {
    /// A group of `members` whose states at `t` are `states`, holding `contacts`.
    pub(crate) fn new(
        members: Vec<Member>,
        states: &[BodyState],
        contacts: Vec<HeldContact>,
        holding: Holding,
        t: f64,
    ) -> Self {
        let mut state = Vec::with_capacity(PER_MEMBER * members.len());
        for s in states {
            push_state(&mut state, s);
        }
        Self {
            model: GroupModel {
                members,
                contacts,
                holding,
            },
            time: t,
            state,
            flight: None,
            segments: VecDeque::new(),
            interruption: None,
            warm: RefCell::new(None),
            counters: RefCell::new(GroupCounters::default()),
            rays: Vec::new(),
        }
    }

    /// Member `k`'s state at the group's time.
    pub(crate) fn member_state(&self, k: usize) -> BodyState {
        state_of(&self.state, k)
    }

    /// What the group has done so far.
    pub(crate) fn counters(&self) -> GroupCounters {
        *self.counters.borrow()
    }

    /// Where the flight stops, if it met an interruption.
    pub(crate) fn interruption(&self) -> Option<Interruption> {
        self.interruption
    }

    /// Ends the flight: the next integration starts from the state at the group's time (after
    /// a change from outside: an impulse, a new member or contact).
    pub(crate) fn restart(&mut self) {
        self.flight = None;
        self.segments.clear();
        self.interruption = None;
    }

    /// Changes member `k`'s velocities at the group's time (an impulse from outside), and
    /// restarts the flight.
    pub(crate) fn set_member_velocity(&mut self, k: usize, velocity: Vec3, angular: Vec3) {
        let base = PER_MEMBER * k;
        self.state[base + 7..base + 10].copy_from_slice(velocity.as_slice());
        self.state[base + 10..base + 13].copy_from_slice(angular.as_slice());
        self.restart();
    }

    /// Integrates ahead until `until` (or an interruption before it), and bounds each member's
    /// motion from the group's time to there (`samples` per step, each bound widened by the
    /// largest change between neighbours). Returns the envelope's end and the bounds.
    pub(crate) fn motion_envelope(
        &mut self,
        until: f64,
        samples: usize,
    ) -> Result<(f64, Vec<MemberEnvelope>), IntegrationError> {
        self.extend(until)?;
        let end = match self.interruption {
            Some(Interruption::Released { time }) => time.min(until),
            None => until,
        }
        .max(self.time);
        let mut builder = EnvelopeBuilder::new(self.model.members.len());
        builder.add(&self.state);
        let mut y = vec![0.0; self.state.len()];
        for step in &self.segments {
            let (lo, hi) = (step.start().max(self.time), step.end().min(end));
            if hi <= lo {
                continue;
            }
            for k in 1..=samples {
                let t = lo + (hi - lo) * k as f64 / samples as f64;
                step.state_at(t, &mut y);
                builder.add(&y);
            }
        }
        Ok((end, builder.finish()))
    }

    /// Moves the group to `t` (within its flight: not past an interruption) and returns each
    /// member's state there.
    pub(crate) fn advance_to(&mut self, t: f64) -> Result<Vec<BodyState>, IntegrationError> {
        if t > self.time {
            self.extend(t)?;
            while self.segments.front().is_some_and(|s| s.end() < t) {
                self.segments.pop_front();
            }
            let mut y = vec![0.0; self.state.len()];
            match (self.segments.front(), &mut self.flight) {
                (Some(step), _) => step.state_at(t, &mut y),
                (None, Some(flight)) => flight.state_at(t, &mut y),
                (None, None) => y.copy_from_slice(&self.state),
            }
            normalize(&mut y);
            self.state = y;
            self.time = t;
        }
        Ok((0..self.model.members.len())
            .map(|k| state_of(&self.state, k))
            .collect())
    }

    /// Each held contact's kinematics at the group's time.
    pub(crate) fn contact_kinematics(&self) -> Vec<Kinematics> {
        let motions = motions(&self.state, self.model.members.len());
        self.model.contacts
            .iter()
            .map(|c| c.kinematics(&side_motion(&motions, c.a), &side_motion(&motions, c.b)))
            .collect()
    }

    /// The contact problem at the group's time: its bodies and points, as the LCP sees them.
    #[cfg(test)]
    pub(crate) fn contact_problem(&self) -> (Vec<LcpBody>, Vec<LcpPoint>) {
        let ode = GroupOde {
            model: &self.model,
            warm: &self.warm,
            counters: &self.counters,
            trouble: RefCell::new(None),
        };
        ode.problem(&self.state)
    }

    /// Integrates the flight (starting one from the group's state if needed) until it covers
    /// `t` or meets an interruption, keeping each step's continuous output.
    fn extend(&mut self, t: f64) -> Result<(), IntegrationError> {
        if self.flight.is_none() {
            let ode = GroupOde {
                model: &self.model,
                warm: &self.warm,
                counters: &self.counters,
                trouble: RefCell::new(None),
            };
            let flight = AdaptiveRk::new(&ode, self.time, &self.state, self.model.holding.tolerance)?;
            self.flight = Some(Box::new(flight));
        }
        while self.interruption.is_none() {
            let Some(flight) = self.flight.as_ref() else {
                unreachable!("a flight was just started")
            };
            if flight.time() >= t {
                break;
            }
            let start_time = flight.time();
            let start_state = flight.state().to_vec();
            let basis_before = self.warm.borrow().clone();
            let trouble = {
                let ode = GroupOde {
                    model: &self.model,
                    warm: &self.warm,
                    counters: &self.counters,
                    trouble: RefCell::new(None),
                };
                let Some(flight) = self.flight.as_mut() else {
                    unreachable!("a flight was just started")
                };
                flight.step(&ode)?;
                self.counters.borrow_mut().steps += 1;
                ode.trouble.into_inner()
            };
            if trouble.is_some() {
                // No valid contact forces somewhere in the step (a Lemke ray, ch. 13): the
                // step is dropped, and the configuration at its start answered by impulses.
                self.answer_inconsistency(start_time, start_state)?;
                continue;
            }
            let Some(flight) = self.flight.as_mut() else {
                unreachable!("a flight was just started")
            };
            let end_time = flight.time();
            let mut end_state = flight.state().to_vec();
            if let Some(step) = flight.last_step() {
                self.segments.push_back(step);
            }
            normalize(&mut end_state);
            let motions = motions(&end_state, self.model.members.len());
            let released = self.model.contacts.iter().any(|c| {
                let k = c.kinematics(&side_motion(&motions, c.a), &side_motion(&motions, c.b));
                k.gap > self.model.holding.release_gap
            });
            if released {
                self.interruption = Some(Interruption::Released { time: end_time });
            } else if *self.warm.borrow() != basis_before && basis_before.is_some() {
                // A new LCP basis: the accelerations may jump; start afresh from here.
                self.counters.borrow_mut().basis_restarts += 1;
                let ode = GroupOde {
                    model: &self.model,
                    warm: &self.warm,
                    counters: &self.counters,
                    trouble: RefCell::new(None),
                };
                let h = flight.step_size();
                let mut restarted =
                    AdaptiveRk::new(&ode, end_time, &end_state, self.model.holding.tolerance)?;
                restarted.suggest_step(h);
                self.flight = Some(Box::new(restarted));
            }
        }
        Ok(())
    }

    /// Answers an inconsistent configuration at `(t, y)` (the start of a step whose forces
    /// could not be found): the ray's impulse (Baraff ch. 13: it stops a sliding contact), then
    /// a collision solve of every contact left approaching; the flight restarts from there.
    fn answer_inconsistency(&mut self, t: f64, mut y: Vec<f64>) -> Result<(), IntegrationError> {
        let ode = GroupOde {
            model: &self.model,
            warm: &self.warm,
            counters: &self.counters,
            trouble: RefCell::new(None),
        };
        let (mut bodies, points) = ode.problem(&y);
        let options = LemkeOptions::default();
        let system = ContactSystem::new(&bodies, &points, self.model.holding.sliding_speed)
            .map_err(|_| IntegrationError::NonFinite { time: t })?;
        let lcp = system.static_friction();
        let mut applied = false;
        if let Ok(Outcome::Ray(ray)) = lcp.solve(None, &options)
            && let Some(impulse) = ray_impulse(&system, &lcp, &ray)
        {
            crate::lcp::contact::apply_impulses(&mut bodies, &points, &impulse.impulses);
            for (i, p) in impulse.impulses.iter().enumerate() {
                if *p != Vec3::zeros() {
                    self.rays.push((t, i, *p));
                }
            }
            applied = true;
        }
        // What the ray leaves approaching is a collision (perfectly inelastic at the contacts
        // the group holds).
        let after = ContactSystem::new(&bodies, &points, self.model.holding.sliding_speed)
            .map_err(|_| IntegrationError::NonFinite { time: t })?;
        if let Ok(collision) = collide(&after, true, None, &options) {
            crate::lcp::contact::apply_impulses(&mut bodies, &points, &collision.impulses);
        }
        if !applied {
            // Not a ray after all (the trouble was a pivot limit or a singular basis): the
            // collision solve above is all there is; the warm start is dropped.
            *self.warm.borrow_mut() = None;
        }
        for (k, body) in bodies.iter().enumerate() {
            let base = PER_MEMBER * k;
            y[base + 7..base + 10].copy_from_slice(body.velocity.as_slice());
            y[base + 10..base + 13].copy_from_slice(body.angular_velocity.as_slice());
        }
        self.counters.borrow_mut().ray_impulses += 1;
        // The flight restarts at t from the answered state (its steps after t are dropped).
        while self.segments.back().is_some_and(|s| s.end() > t) {
            self.segments.pop_back();
        }
        let ode = GroupOde {
            model: &self.model,
            warm: &self.warm,
            counters: &self.counters,
            trouble: RefCell::new(None),
        };
        let flight = AdaptiveRk::new(&ode, t, &y, self.model.holding.tolerance)?;
        if t <= self.time {
            self.state = y;
        }
        self.flight = Some(Box::new(flight));
        Ok(())
    }
}

/// The group's equations of motion, with the contact forces of the LCP at each evaluation.
struct GroupOde<'a> {
    model: &'a GroupModel,
    warm: &'a RefCell<Option<Basis>>,
    counters: &'a RefCell<GroupCounters>,
    /// Set when an evaluation found no valid forces.
    trouble: RefCell<Option<f64>>,
}

impl GroupOde<'_> {
    /// The contact problem at state `y`: the members as LCP bodies (fixed sides are `None`),
    /// and each held contact as a point with its drift correction.
    fn problem(&self, y: &[f64]) -> (Vec<LcpBody>, Vec<LcpPoint>) {
        let group = self.model;
        let motions = motions(y, group.members.len());
        let bodies: Vec<LcpBody> = group
            .members
            .iter()
            .zip(&motions)
            .map(|(m, s)| LcpBody {
                inverse_mass: m.inverse_mass,
                inverse_inertia: world_inverse_inertia(&m.principal_inertia, s),
                center_of_mass: s.position.into(),
                velocity: s.velocity,
                angular_velocity: s.angular_velocity,
                force: m.force,
                torque: m.torque,
            })
            .collect();
        let omega = group.holding.stiffness;
        let points = group
            .contacts
            .iter()
            .map(|c| {
                let k = c.kinematics(&side_motion(&motions, c.a), &side_motion(&motions, c.b));
                let index = |side: Side| match side {
                    Side::Member(i) => Some(i),
                    Side::Fixed => None,
                };
                let mut point = LcpPoint::new(index(c.a), index(c.b), k.point, k.normal)
                    .with_friction(c.friction)
                    .with_restitution(c.restitution);
                point.normal_rate = Some(k.normal_rate);
                point.point_velocity = k.point_velocity;
                // d̈ = −2ω ḋ − ω² (d − d*) while the contact pushes: critically damped to the
                // held gap d*.
                point.bias = 2.0 * omega * k.gap_rate + omega * omega * (k.gap - group.holding.gap);
                point.slip_damping = SLIP_RATE;
                point
            })
            .collect();
        (bodies, points)
    }

    /// The contact forces (on each point's A, world) at state `y`.
    fn contact_forces(&self, bodies: &[LcpBody], points: &[LcpPoint], t: f64) -> Vec<Vec3> {
        let zero = || vec![Vec3::zeros(); points.len()];
        if points.is_empty() {
            return zero();
        }
        let Ok(system) = ContactSystem::new(bodies, points, self.model.holding.sliding_speed)
        else {
            *self.trouble.borrow_mut() = Some(t);
            return zero();
        };
        let lcp = system.static_friction();
        let options = LemkeOptions::default();
        let warm = self.warm.borrow().clone();
        let outcome = match lcp.solve(warm.as_ref(), &options) {
            Ok(Outcome::Solution(s)) => {
                let mut counters = self.counters.borrow_mut();
                counters.solves += 1;
                if s.start == crate::lcp::lemke::Start::Warm {
                    counters.warm_solves += 1;
                }
                Some(s)
            }
            // A jam (friction cones facing each other) may stop Lemke on a ray although forces
            // exist, and the redundant rows of flat contact regions (four coplanar corners, the
            // box model's tangent rows at each) may leave its basis singular: the forces of a
            // slightly compliant contact, M + δI, answer both (see `COMPLIANCE`).
            _ => {
                self.counters.borrow_mut().solves += 1;
                compliant_solution(&lcp.matrix, &lcp.vector, &options)
            }
        };
        match outcome {
            Some(solution) => {
                *self.warm.borrow_mut() = Some(solution.basis.clone());
                lcp.contact_forces(&solution.z)
            }
            None => {
                *self.trouble.borrow_mut() = Some(t);
                zero()
            }
        }
    }
}

impl OdeSystem for GroupOde<'_> {
    fn dimension(&self) -> usize {
        PER_MEMBER * self.model.members.len()
    }

    fn derivative(&self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let mut y = y.to_vec();
        normalize(&mut y);
        let (bodies, points) = self.problem(&y);
        let forces = self.contact_forces(&bodies, &points, t);
        let wrenches = body_wrenches(&bodies, &points, &forces);
        for (k, (member, (body, (force, torque)))) in self
            .model
            .members
            .iter()
            .zip(bodies.iter().zip(wrenches))
            .enumerate()
        {
            let s = state_of(&y, k);
            let base = PER_MEMBER * k;
            let w = s.angular_velocity;
            // I ω in the world frame, for the gyroscopic term.
            let w_body = s.orientation.inverse() * w;
            let momentum = s.orientation * member.principal_inertia.component_mul(&w_body);
            let acceleration = (member.force + force) * member.inverse_mass;
            let angular =
                body.inverse_inertia * (member.torque + torque - w.cross(&momentum));
            let q = s.orientation.quaternion();
            let omega_q = nalgebra::Quaternion::from_imag(w) * q * 0.5;
            dydt[base..base + 3].copy_from_slice(s.velocity.as_slice());
            dydt[base + 3] = omega_q.w;
            dydt[base + 4] = omega_q.i;
            dydt[base + 5] = omega_q.j;
            dydt[base + 6] = omega_q.k;
            dydt[base + 7..base + 10].copy_from_slice(acceleration.as_slice());
            dydt[base + 10..base + 13].copy_from_slice(angular.as_slice());
        }
    }

    fn project(&self, y: &mut [f64]) -> bool {
        normalize(y);
        true
    }
}

/// Appends a body's state to a group state vector.
fn push_state(y: &mut Vec<f64>, s: &BodyState) {
    let q = s.orientation.quaternion();
    y.extend_from_slice(s.position.as_slice());
    y.extend_from_slice(&[q.w, q.i, q.j, q.k]);
    y.extend_from_slice(s.velocity.as_slice());
    y.extend_from_slice(s.angular_velocity.as_slice());
}

/// Member `k`'s state in a group state vector.
fn state_of(y: &[f64], k: usize) -> BodyState {
    let b = PER_MEMBER * k;
    let q = nalgebra::Quaternion::new(y[b + 3], y[b + 4], y[b + 5], y[b + 6]);
    BodyState {
        position: Vec3::new(y[b], y[b + 1], y[b + 2]),
        orientation: crate::math::Quat::from_quaternion(q),
        velocity: Vec3::new(y[b + 7], y[b + 8], y[b + 9]),
        angular_velocity: Vec3::new(y[b + 10], y[b + 11], y[b + 12]),
    }
}

fn motions(y: &[f64], members: usize) -> Vec<Motion> {
    (0..members)
        .map(|k| {
            let s = state_of(y, k);
            Motion {
                position: s.position,
                orientation: s.orientation,
                velocity: s.velocity,
                angular_velocity: s.angular_velocity,
            }
        })
        .collect()
}

fn side_motion(motions: &[Motion], side: Side) -> Motion {
    match side {
        Side::Member(k) => motions[k],
        Side::Fixed => Motion::FIXED,
    }
}

/// Renormalises every member's quaternion in a group state vector.
fn normalize(y: &mut [f64]) {
    for chunk in y.chunks_exact_mut(PER_MEMBER) {
        let norm = (chunk[3] * chunk[3]
            + chunk[4] * chunk[4]
            + chunk[5] * chunk[5]
            + chunk[6] * chunk[6])
            .sqrt();
        if norm > 0.0 && norm.is_finite() {
            for x in &mut chunk[3..7] {
                *x /= norm;
            }
        }
    }
}

/// The world inverse inertia tensor `R diag(1/I) Rᵀ`.
fn world_inverse_inertia(principal: &Vec3, s: &Motion) -> Mat3 {
    let r = s.orientation.to_rotation_matrix().into_inner();
    r * Mat3::from_diagonal(&principal.map(|i| 1.0 / i)) * r.transpose()
}

/// Per-member motion bounds gathered from sampled states.
struct EnvelopeBuilder {
    envelopes: Vec<MemberEnvelope>,
    last: Vec<Option<(Vec3, Vec3, f64)>>,
    widen: Vec<(Vec3, Vec3, f64)>,
}

impl EnvelopeBuilder {
    fn new(members: usize) -> Self {
        let empty = MemberEnvelope {
            center_min: Vec3::repeat(f64::INFINITY),
            center_max: Vec3::repeat(f64::NEG_INFINITY),
            velocity_min: Vec3::repeat(f64::INFINITY),
            velocity_max: Vec3::repeat(f64::NEG_INFINITY),
            angular_speed: 0.0,
        };
        Self {
            envelopes: vec![empty; members],
            last: vec![None; members],
            widen: vec![(Vec3::zeros(), Vec3::zeros(), 0.0); members],
        }
    }

    fn add(&mut self, y: &[f64]) {
        for k in 0..self.envelopes.len() {
            let s = state_of(y, k);
            let w = s.angular_velocity.norm();
            let e = &mut self.envelopes[k];
            e.center_min = e.center_min.inf(&s.position);
            e.center_max = e.center_max.sup(&s.position);
            e.velocity_min = e.velocity_min.inf(&s.velocity);
            e.velocity_max = e.velocity_max.sup(&s.velocity);
            e.angular_speed = e.angular_speed.max(w);
            if let Some((p, v, last_w)) = self.last[k] {
                let grow = &mut self.widen[k];
                grow.0 = grow.0.sup(&(s.position - p).abs());
                grow.1 = grow.1.sup(&(s.velocity - v).abs());
                grow.2 = grow.2.max((w - last_w).abs());
            }
            self.last[k] = Some((s.position, s.velocity, w));
        }
    }

    /// The bounds, each widened by the largest change between neighbouring samples (what the
    /// motion between samples may add).
    fn finish(self) -> Vec<MemberEnvelope> {
        self.envelopes
            .into_iter()
            .zip(self.widen)
            .map(|(mut e, (dp, dv, dw))| {
                e.center_min -= dp;
                e.center_max += dp;
                e.velocity_min -= dv;
                e.velocity_max += dv;
                e.angular_speed += dw;
                e
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
