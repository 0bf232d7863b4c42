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
pub(crate) mod iterative;
mod ode;
pub(crate) mod penalty;
mod time_step;

use std::cell::RefCell;
use std::collections::VecDeque;

use held::{HeldContact, Motion, Side};
use ode::{Mode, group_ode};

use crate::dynamics::{BodyId, BodyState};
use crate::integrate::{AdaptiveRk, IntegrationError, OdeSystem, StepInterpolant, Tolerance};
use crate::lcp::contact::{
    ContactBody as LcpBody, ContactLcp, ContactPoint as LcpPoint, ContactSystem, body_wrenches,
};
use crate::lcp::impulse::{collide, collide_or_frictionless, ray_impulse};
use crate::lcp::lemke::{Basis, LemkeOptions, Outcome, Start, basis_solution, check_solution};
use crate::lcp::sticking::StickingLcp;
use crate::math::{Mat3, Point, Vec3};

/// State variables per member: centre (3), orientation quaternion (4), velocity (3), angular
/// velocity (3).
const PER_MEMBER: usize = 13;

/// Rate at which a sticking contact's residual slip decays (1/s): the box model of static
/// friction holds the slip's *acceleration* at zero, so without it a slip below the sliding
/// threshold would stay for ever.
const SLIP_RATE: f64 = 200.0;

/// Compliance of held contacts, relative to the largest entry of the force LCP's matrix: the
/// problem solved is `(M + δ I) z + q`, contacts that give `δ` of acceleration per unit force.
/// A flat region's contact points are redundant (four coplanar corners hold three degrees of
/// freedom; their tangent rows, three of eight), so the rigid `M` is singular, its solutions
/// are not unique, and the bases Lemke ends on are near-singular: the forces one gives swing
/// with rounding, and its validity with them. `M + δ I` has one solution, read from a basis
/// of condition below `1/δ`. What it changes is `δ f` of acceleration: 1e-7 of the problem's
/// scale, which the drift correction holds at a gap change of `δ f / ω²` (for a stack's 5 N,
/// under a nanometre).
const COMPLIANCE: f64 = 1e-7;

/// The accuracy Lemke's answers are checked to (relative, as [`LemkeOptions::tolerance`]): the
/// bases of a flat region's redundant contacts are conditioned no better than `1/δ`, so their
/// answers carry that much of the rounding.
const LEMKE_TOLERANCE: f64 = 1e-7;

/// The friction forces' compliance, relative to the normal one: the same. A sticking contact
/// creeps at `δ β / SLIP_RATE` under a tangential load `β` (a 0.5 kg box on a slope at half
/// its friction angle: 2e-8 m/s). A hundredth of it put the box model's friction pivots at
/// Lemke's pivot tolerance, and a six-box stack's LCP could not be solved.
const TANGENT_COMPLIANCE: f64 = 1.0;

/// Where the compliance carries the answer: a solution whose `δ f` exceeds this part of the
/// free accelerations `q` exists only because of the compliance (a configuration with no rigid
/// forces: Lemke would end on a ray, ch. 13), and is answered as inconsistent.
const INCONSISTENT: f64 = 1e-3;

/// A free body of a group, with what its motion needs (its state is the group's).
#[derive(Clone, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
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
#[derive(serde::Serialize, serde::Deserialize)]
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
    /// Under the penalty model: spring–dampers instead of the LCP (see [`penalty`]).
    pub(crate) penalty: Option<penalty::PenaltyLaw>,
}

/// What a group's integration met that the event loop must act on.
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) enum Interruption {
    /// Contact `index` opened past the release gap at `time`: the flight ends there.
    Released { time: f64 },
}

/// Counts of what groups did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct GroupCounters {
    /// LCP solves (one per derivative evaluation), and of those the warm starts kept.
    pub(crate) solves: u64,
    pub(crate) warm_solves: u64,
    /// Integrator steps and restarts at a change of basis.
    pub(crate) steps: u64,
    pub(crate) basis_restarts: u64,
    /// Configurations with no valid contact forces answered by a ray's impulse (ch. 13); not
    /// those whose ray gave none (`ray_impulse` refused it), answered by the collision solve
    /// alone.
    pub(crate) ray_impulses: u64,
    /// Velocity-level time steps taken where the contact mode chattered (`time_step`).
    pub(crate) time_steps: u64,
    /// Collision solves answered without friction because Lemke could not solve the
    /// frictional problem (`collide_or_frictionless`): in time steps, in stopping a new
    /// group's approaches, and (counted by the world's groups) in the collisions that form
    /// groups.
    pub(crate) frictionless_fallbacks: u64,
    /// Under the penalty model: the deepest penetration at a step's end.
    pub(crate) deepest: f64,
}

impl GroupCounters {
    /// Adds another group's counts.
    pub(crate) fn add(&mut self, other: &GroupCounters) {
        self.solves += other.solves;
        self.warm_solves += other.warm_solves;
        self.steps += other.steps;
        self.basis_restarts += other.basis_restarts;
        self.ray_impulses += other.ray_impulses;
        self.time_steps += other.time_steps;
        self.frictionless_fallbacks += other.frictionless_fallbacks;
        self.deepest = self.deepest.max(other.deepest);
    }
}

/// Bounds on one member's motion over an interval (as a multibody link's).
pub(crate) use crate::multibody::LinkEnvelope as MemberEnvelope;
use crate::multibody::EnvelopeBuilder;

/// What a group moves: its members and held contacts, and how they are held.
#[derive(Clone, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct GroupModel {
    pub(crate) members: Vec<Member>,
    pub(crate) contacts: Vec<HeldContact>,
    pub(crate) holding: Holding,
}

/// A constraint group: members, held contacts, and the flight that moves them.
#[derive(Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
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
    warm: RefCell<Option<Mode>>,
    /// Whether the flight holds that basis through its steps (see `start_flight`).
    hold_basis: bool,
    /// What the group did (the solves are counted by the equations of motion, which see the
    /// group only through a shared reference).
    counters: RefCell<GroupCounters>,
    /// Ray impulses applied while integrating ahead, for `events.csv`: taken by the event loop
    /// when it reaches them ([`ContactGroup::take_rays`]), dropped with the flight past the
    /// group's time when it restarts.
    rays: Vec<RayImpulse>,
    /// The times of the ray answers applied while integrating ahead, counted in
    /// `ray_impulses` once reached (as their rows are) and dropped with them.
    ray_answers: Vec<f64>,
    /// Set from outside to stop a long flight between its steps (`World::set_interrupt`).
    #[serde(skip)]
    pub(crate) interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    /// A large group's time steps (see [`iterative`]): the time and state of the last one,
    /// possibly ahead of `time` (`None`: from the group's time and state).
    #[serde(default)]
    stepped: Option<(f64, Vec<f64>)>,
    /// A large group's impulse at each held contact in its last time step (the next one's warm
    /// start).
    #[serde(default)]
    step_impulses: Vec<Vec3>,
    /// The flight's restarts counted since a time (see [`ContactGroup::chatters`]).
    #[serde(default)]
    restarts: (f64, u32),
    /// Whether the group is moved by time steps because its mode chattered.
    #[serde(default)]
    swept: bool,
}

/// A ray's impulse at one held contact (Baraff ch. 13: a configuration with no valid contact
/// forces), as `events.csv` records it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct RayImpulse {
    pub(crate) time: f64,
    /// The contact's pair of colliders (the impulse acts on the first).
    pub(crate) pair: (usize, usize),
    pub(crate) point: Point,
    /// From the second collider towards the first.
    pub(crate) normal: Vec3,
    /// On the first collider.
    pub(crate) impulse: Vec3,
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
        // Each contact starts sliding or sticking as its slip is now.
        let mut contacts = contacts;
        let at = motions(&state, members.len());
        for c in &mut contacts {
            let slip = c.slip(&side_motion(&at, c.a), &side_motion(&at, c.b));
            c.sliding = slip.norm() > holding.sliding_speed;
            c.slip_direction = if c.sliding {
                slip.normalize()
            } else {
                Vec3::zeros()
            };
        }
        let mut model = GroupModel {
            members,
            contacts,
            holding,
        };
        if let Some(law) = &holding.penalty {
            penalty::resolve_springs(&mut model, &state, law);
        }
        Self {
            model,
            time: t,
            state,
            flight: None,
            segments: VecDeque::new(),
            interruption: None,
            warm: RefCell::new(None),
            hold_basis: false,
            counters: RefCell::new(GroupCounters::default()),
            rays: Vec::new(),
            ray_answers: Vec::new(),
            interrupt: None,
            stepped: None,
            step_impulses: Vec::new(),
            restarts: (0.0, 0),
            swept: false,
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
        self.stepped = None;
        self.segments.clear();
        self.interruption = None;
        let now = self.time;
        self.rays.retain(|r| r.time <= now);
        self.ray_answers.retain(|&t| t <= now);
    }

    /// The ray impulses the group has applied up to its time, oldest first; each ray's answer
    /// is counted here, once it is reached (its impulses are `events.csv` rows).
    pub(crate) fn take_rays(&mut self) -> Vec<RayImpulse> {
        let now = self.time;
        let answered = self.ray_answers.iter().take_while(|&&t| t <= now).count();
        self.ray_answers.drain(..answered);
        self.counters.borrow_mut().ray_impulses += answered as u64;
        let reached = self.rays.iter().take_while(|r| r.time <= now).count();
        self.rays.drain(..reached).collect()
    }

    /// Changes member `k`'s velocities at the group's time (an impulse from outside), stops
    /// every held contact that leaves approaching (see [`ContactGroup::stop_approaches`]), and
    /// restarts the flight. Returns every member's state after it.
    pub(crate) fn set_member_velocity(
        &mut self,
        k: usize,
        velocity: Vec3,
        angular: Vec3,
    ) -> Vec<BodyState> {
        let base = PER_MEMBER * k;
        self.state[base + 7..base + 10].copy_from_slice(velocity.as_slice());
        self.state[base + 10..base + 13].copy_from_slice(angular.as_slice());
        self.stop_approaches();
        update_modes(
            &mut self.model.contacts,
            &motions(&self.state, self.model.members.len()),
            self.model.holding.sliding_speed,
        );
        self.restart();
        (0..self.model.members.len())
            .map(|k| state_of(&self.state, k))
            .collect()
    }

    /// One perfectly inelastic, frictional collision solve over the held contacts at the
    /// group's state (Baraff ch. 3's loop: a contact the state leaves approaching is a
    /// collision, answered by impulses before forces take over). Without it an impulse from
    /// outside (a link striking a held part) left held contacts approaching, and the drift
    /// correction, critically damped at ω, turned an approach `v` round only after sinking
    /// about `v / (e ω)` into the envelope (docs/sources.md, "Why held contacts sink").
    fn stop_approaches(&mut self) {
        if self.model.holding.penalty.is_some() {
            // Under the penalty model the springs answer a held contact's approach.
            return;
        }
        let ode = group_ode(&self.model, &self.warm, &self.counters, false);
        let (mut bodies, mut points) = ode.problem(&self.state);
        if points.is_empty() {
            return;
        }
        for point in &mut points {
            point.restitution = 0.0;
        }
        let Ok(system) = ContactSystem::new(&bodies, &points, self.model.holding.sliding_speed)
        else {
            return;
        };
        if iterative::is_large(points.len()) {
            let start = vec![Vec3::zeros(); points.len()];
            let stops = vec![0.0; points.len()];
            let sliding = self.model.holding.sliding_speed;
            let found = iterative::impulses(&mut bodies, &points, &start, &stops, sliding);
            if found.iter().all(|p| *p == Vec3::zeros()) {
                return;
            }
            self.set_velocities(&bodies);
            return;
        }
        let mut fallbacks = 0;
        let collision = collide_or_frictionless(&system, &LemkeOptions::default(), &mut fallbacks);
        self.counters.borrow_mut().frictionless_fallbacks += fallbacks;
        let Ok(collision) = collision else {
            return;
        };
        if collision.impulses.iter().all(|p| *p == Vec3::zeros()) {
            return;
        }
        crate::lcp::contact::apply_impulses(&mut bodies, &points, &collision.impulses);
        self.set_velocities(&bodies);
    }

    /// Sets the members' velocities at the group's time to `bodies'`.
    fn set_velocities(&mut self, bodies: &[LcpBody]) {
        for (k, body) in bodies.iter().enumerate() {
            let base = PER_MEMBER * k;
            self.state[base + 7..base + 10].copy_from_slice(body.velocity.as_slice());
            self.state[base + 10..base + 13].copy_from_slice(body.angular_velocity.as_slice());
        }
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
        let members = self.model.members.len();
        let mut builder = EnvelopeBuilder::new(members);
        let add = |builder: &mut EnvelopeBuilder, y: &[f64]| {
            for k in 0..members {
                let s = state_of(y, k);
                builder.sample(k, s.position, s.velocity, s.angular_velocity.norm());
            }
        };
        add(&mut builder, &self.state);
        let mut y = vec![0.0; self.state.len()];
        for step in &self.segments {
            let (lo, hi) = (step.start().max(self.time), step.end().min(end));
            if hi <= lo {
                continue;
            }
            for k in 1..=samples {
                let t = lo + (hi - lo) * k as f64 / samples as f64;
                step.state_at(t, &mut y);
                add(&mut builder, &y);
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
    #[cfg(test)]
    pub(crate) fn contact_kinematics(&self) -> Vec<held::Kinematics> {
        let motions = motions(&self.state, self.model.members.len());
        self.model.contacts
            .iter()
            .map(|c| c.kinematics(&side_motion(&motions, c.a), &side_motion(&motions, c.b)))
            .collect()
    }

    /// Whether each held contact is still held at the group's time: open no wider than the
    /// release gap and on its face (within the release gap of its outline).
    pub(crate) fn contacts_held(&self) -> Vec<bool> {
        let motions = motions(&self.state, self.model.members.len());
        let release = self.model.holding.release_gap;
        self.model.contacts
            .iter()
            .map(|c| {
                let (a, b) = (side_motion(&motions, c.a), side_motion(&motions, c.b));
                c.kinematics(&a, &b).gap <= release && !c.off_face(&a, &b, release)
            })
            .collect()
    }

    /// The contact problem at the group's time: its bodies and points, as the LCP sees them.
    #[cfg(test)]
    pub(crate) fn contact_problem(&self) -> (Vec<LcpBody>, Vec<LcpPoint>) {
        let ode = group_ode(&self.model, &self.warm, &self.counters, false);
        ode.problem(&self.state)
    }

    /// Integrates the flight (starting one from the group's state if needed) until it covers
    /// `t` or meets an interruption, keeping each step's continuous output.
    ///
    /// Each step holds the contact mode it starts with — each contact sliding or sticking, and
    /// the LCP's basis (which forces push, which friction bounds are reached) — so that the
    /// forces are smooth in the state over the step and cost one linear solve an evaluation.
    /// The step's end checks the mode: if the basis no longer gives valid forces there
    /// ([`BASIS_TOLERANCE`]), the mode changed within the step, which is tried again at half
    /// the size until the change is located ([`LOCATE_HALVINGS`]); there the flight restarts
    /// with Lemke's new basis (an acceleration discontinuity, Baraff §8.2).
    fn extend(&mut self, t: f64) -> Result<(), IntegrationError> {
        if self.model.holding.penalty.is_none()
            && (self.swept || iterative::is_large(self.model.contacts.len()))
        {
            return self.extend_by_time_steps(t);
        }
        if self.flight.is_none() {
            let (time, state) = (self.time, self.state.clone());
            let flight = self.start_flight(time, &state)?;
            self.flight = Some(Box::new(flight));
        }
        // Halvings spent locating a change of mode, and the time it was seen by.
        let mut halvings = 0;
        let mut changed_by = f64::INFINITY;
        // Inconsistencies answered without the flight getting past them.
        let mut unanswered = (f64::NEG_INFINITY, 0);
        while self.interruption.is_none() {
            let Some(flight) = self.flight.as_ref() else {
                unreachable!("a flight was just started")
            };
            if flight.time() >= t {
                break;
            }
            if self
                .interrupt
                .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
            {
                return Err(IntegrationError::Interrupted {
                    time: flight.time(),
                });
            }
            if self.segments.len() >= MAX_HELD_STEPS {
                // Every step is held until the event loop passes it: bound them (a stiff
                // group would fill memory).
                return Err(IntegrationError::TooManySteps {
                    from: self.time,
                    time: flight.time(),
                    steps: self.segments.len(),
                });
            }
            let start_time = flight.time();
            let start_state = flight.state().to_vec();
            let basis_before = self.warm.borrow().clone();
            let (stepped, trouble) = {
                let ode = group_ode(&self.model, &self.warm, &self.counters, self.hold_basis);
                let Some(flight) = self.flight.as_mut() else {
                    unreachable!("a flight was just started")
                };
                (flight.step(&ode), ode.trouble.into_inner())
            };
            match stepped {
                Err(IntegrationError::StepSizeUnderflow { .. })
                    if self.model.holding.penalty.is_none() =>
                {
                    // No step of any size holds one contact mode here (it chatters): one
                    // velocity-level time step carries the group past (see `time_step`).
                    self.step_through(start_time, start_state)?;
                    halvings = 0;
                    changed_by = f64::INFINITY;
                    continue;
                }
                stepped => stepped?,
            }
            self.counters.borrow_mut().steps += 1;
            if trouble.is_some() {
                // No valid contact forces somewhere in the step (a Lemke ray, ch. 13): the
                // step is dropped, and the configuration at its start answered by impulses.
                // Answered again and again at one time, it is not an inconsistency the
                // impulses resolve but a contact problem Lemke cannot solve.
                unanswered = if unanswered.0 == start_time {
                    (start_time, unanswered.1 + 1)
                } else {
                    (start_time, 1)
                };
                if unanswered.1 > MAX_REPEATED_ANSWERS {
                    // Lemke finds no forces here however the configuration is answered (a
                    // pile's redundant contacts): a velocity-level time step, whose impulse
                    // problem always has a solution, carries the group past.
                    self.step_through(start_time, start_state)?;
                    unanswered = (f64::NEG_INFINITY, 0);
                    continue;
                }
                self.answer_inconsistency(start_time, start_state)?;
                continue;
            }
            let Some(flight) = self.flight.as_mut() else {
                unreachable!("a flight was just started")
            };
            let end_time = flight.time();
            let mut end_state = flight.state().to_vec();
            normalize(&mut end_state);
            let holds = if self.hold_basis {
                group_ode(&self.model, &self.warm, &self.counters, true).basis_holds(&end_state)
            } else {
                // Lemke at every evaluation: a new basis is a change of mode.
                *self.warm.borrow() == basis_before
            } && (self.model.holding.penalty.is_some()
                || !slip_reversed(
                    &self.model.contacts,
                    &motions(&end_state, self.model.members.len()),
                ));
            let taken = end_time - start_time;
            if !holds && self.hold_basis && halvings < LOCATE_HALVINGS {
                // The mode changed within the step: again from its start, half as far.
                halvings += 1;
                changed_by = end_time;
                let ode = group_ode(&self.model, &self.warm, &self.counters, true);
                let mut again =
                    AdaptiveRk::new(&ode, start_time, &start_state, self.model.holding.tolerance)?;
                again.suggest_step(0.5 * taken);
                self.flight = Some(Box::new(again));
                continue;
            }
            if let Some(step) = flight.last_step() {
                self.segments.push_back(step);
            }
            let h = flight.step_size();
            if holds && halvings > 0 && end_time < changed_by {
                // Locating a change: the step held, so the change lies between here and where
                // it was seen; past the last halving, the step that crosses it is taken.
                flight.suggest_step(changed_by - end_time);
            } else {
                halvings = 0;
            }
            let motions = motions(&end_state, self.model.members.len());
            let released = self.releases(&motions);
            if self.model.holding.penalty.is_some() {
                let mut counters = self.counters.borrow_mut();
                counters.deepest = counters.deepest.max(penalty::deepest(&self.model, &end_state));
            }
            let modes_changed = self.model.holding.penalty.is_none()
                && update_modes(
                &mut self.model.contacts,
                &motions,
                self.model.holding.sliding_speed,
            );
            // Friction against a held slip direction changed with its renewal: the next step's
            // first stage is evaluated again (else it carries the old direction, and the error
            // control shrinks the step to the jump between it and the second).
            let renewed = self.model.contacts.iter().any(|c| {
                c.sliding
                    && holds_direction(
                        c.slip(&side_motion(&motions, c.a), &side_motion(&motions, c.b))
                            .norm(),
                        self.model.holding.sliding_speed,
                    )
            });
            if renewed && !released && !modes_changed && holds {
                let ode = group_ode(&self.model, &self.warm, &self.counters, self.hold_basis);
                if let Some(flight) = self.flight.as_mut() {
                    flight.refresh_derivative(&ode)?;
                }
            }
            if released {
                self.interruption = Some(Interruption::Released { time: end_time });
            } else if modes_changed || !holds {
                if self.chatters(end_time) {
                    // The mode changes faster than time steps would go: time steps from here.
                    self.flight = None;
                    self.stepped = Some((end_time, end_state));
                    return self.extend_by_time_steps(t);
                }
                // A new mode from here: Lemke at the step's end (warm-started from the old
                // basis), and the flight starts afresh.
                self.counters.borrow_mut().basis_restarts += 1;
                let mut restarted = self.start_flight(end_time, &end_state)?;
                restarted.suggest_step(h);
                self.flight = Some(Box::new(restarted));
            }
        }
        Ok(())
    }

    /// Counts a restart of the flight at `t`, and says whether the group's mode chatters: its
    /// last [`CHATTER_RESTARTS`] restarts came sooner, on average, than time steps would go
    /// ([`time_step::TIME_STEP`]). A group that chatters is moved by time steps from then on
    /// (`swept`), as a large one is.
    fn chatters(&mut self, t: f64) -> bool {
        let (from, count) = self.restarts;
        if count == 0 {
            self.restarts = (t, 1);
        } else if count + 1 < CHATTER_RESTARTS {
            self.restarts = (from, count + 1);
        } else {
            self.swept = t - from < f64::from(CHATTER_RESTARTS) * time_step::TIME_STEP;
            self.restarts = (t, 1);
        }
        self.swept
    }

    /// A large group's [`ContactGroup::extend`]: time steps of [`time_step::TIME_STEP`] with
    /// impulses from projected Gauss–Seidel ([`iterative`]) until they cover `t` or a contact
    /// opens past the release gap. Each step's output is the straight line between its ends.
    fn extend_by_time_steps(&mut self, t: f64) -> Result<(), IntegrationError> {
        let h = time_step::TIME_STEP;
        let members = self.model.members.len();
        while self.interruption.is_none() {
            let (start, y) = match self.stepped.take() {
                Some(last) => last,
                None => (self.time, self.state.clone()),
            };
            if start >= t {
                self.stepped = Some((start, y));
                break;
            }
            if self
                .interrupt
                .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
            {
                self.stepped = Some((start, y));
                return Err(IntegrationError::Interrupted { time: start });
            }
            if self.segments.len() >= MAX_HELD_STEPS {
                return Err(IntegrationError::TooManySteps {
                    from: self.time,
                    time: start,
                    steps: self.segments.len(),
                });
            }
            let problem = group_ode(&self.model, &self.warm, &self.counters, false).problem(&y);
            let solver = time_step::StepImpulses::Sweeps {
                last: &mut self.step_impulses,
            };
            let mut next = time_step::time_step(&self.model, problem, &y, h, start, solver)?;
            normalize(&mut next);
            self.counters.borrow_mut().time_steps += 1;
            let end = start + h;
            self.segments
                .push_back(StepInterpolant::linear(start, end, &y, &next));
            if self.releases(&motions(&next, members)) {
                self.interruption = Some(Interruption::Released { time: end });
            }
            self.stepped = Some((end, next));
        }
        Ok(())
    }

    /// Whether a contact has opened past the release gap (or, under the penalty model, sunk too
    /// deep, or slid off its face by the release gap) with the members moving as `motions`.
    fn releases(&self, motions: &[Motion]) -> bool {
        self.model.contacts.iter().any(|c| {
            let (a, b) = (side_motion(motions, c.a), side_motion(motions, c.b));
            let k = c.kinematics(&a, &b);
            k.gap > self.model.holding.release_gap
                || penalty::too_deep(&self.model.holding, k.gap)
                || c.off_face(&a, &b, self.model.holding.release_gap)
        })
    }

    /// Carries the group over one velocity-level time step from `(t, y)`, where the flight
    /// could take no step (its contact mode chattering), and starts the flight afresh at the
    /// step's end, from Lemke's basis there found cold.
    fn step_through(&mut self, t: f64, y: Vec<f64>) -> Result<(), IntegrationError> {
        let h = time_step::TIME_STEP;
        let problem = group_ode(&self.model, &self.warm, &self.counters, false).problem(&y);
        let mut fallbacks = 0;
        let solver = time_step::StepImpulses::Lemke {
            fallbacks: &mut fallbacks,
        };
        let mut next = time_step::time_step(&self.model, problem, &y, h, t, solver)?;
        self.counters.borrow_mut().frictionless_fallbacks += fallbacks;
        normalize(&mut next);
        self.counters.borrow_mut().time_steps += 1;
        while self.segments.back().is_some_and(|s| s.end() > t) {
            self.segments.pop_back();
        }
        let end = t + h;
        self.segments
            .push_back(StepInterpolant::linear(t, end, &y, &next));
        let motions = motions(&next, self.model.members.len());
        if self.releases(&motions) {
            self.interruption = Some(Interruption::Released { time: end });
        }
        update_modes(
            &mut self.model.contacts,
            &motions,
            self.model.holding.sliding_speed,
        );
        *self.warm.borrow_mut() = None;
        let flight = self.start_flight(end, &next)?;
        self.flight = Some(Box::new(flight));
        Ok(())
    }

    /// A flight from `(t, y)` in the contact mode there: Lemke's basis at `y` (warm-started
    /// from the last), held by the flight's evaluations.
    ///
    /// A basis whose own answer fails [`BASIS_TOLERANCE`] at `y` (its matrix too near singular
    /// for the rounding of one solve to agree with another's) is not held: the flight then asks
    /// Lemke at every evaluation and restarts at every change of basis.
    fn start_flight(&mut self, t: f64, y: &[f64]) -> Result<AdaptiveRk, IntegrationError> {
        let mut dydt = vec![0.0; y.len()];
        group_ode(&self.model, &self.warm, &self.counters, false).derivative(t, y, &mut dydt);
        self.hold_basis = group_ode(&self.model, &self.warm, &self.counters, true).basis_holds(y);
        let ode = group_ode(&self.model, &self.warm, &self.counters, self.hold_basis);
        AdaptiveRk::new(&ode, t, y, self.model.holding.tolerance)
    }

    /// Answers an inconsistent configuration at `(t, y)` (the start of a step whose forces
    /// could not be found): the ray's impulse (Baraff ch. 13: it stops a sliding contact), then
    /// a collision solve of every contact left approaching; the flight restarts from there.
    fn answer_inconsistency(&mut self, t: f64, mut y: Vec<f64>) -> Result<(), IntegrationError> {
        let ode = group_ode(&self.model, &self.warm, &self.counters, false);
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
            let contacts = self.model.contacts.iter().zip(&points);
            for ((contact, point), p) in contacts.zip(&impulse.impulses) {
                if *p != Vec3::zeros() {
                    self.rays.push(RayImpulse {
                        time: t,
                        pair: contact.pair,
                        point: point.point,
                        normal: point.normal,
                        impulse: *p,
                    });
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
        if applied {
            // Counted once the group's time reaches it (`take_rays`): a restart before then
            // drops it with its rows.
            self.ray_answers.push(t);
        }
        // The impulses changed the slips: each contact's mode follows (a collision solve leaves
        // the contacts it stopped sticking).
        update_modes(
            &mut self.model.contacts,
            &motions(&y, self.model.members.len()),
            self.model.holding.sliding_speed,
        );
        // The flight restarts at t from the answered state (its steps after t are dropped).
        while self.segments.back().is_some_and(|s| s.end() > t) {
            self.segments.pop_back();
        }
        let flight = self.start_flight(t, &y)?;
        if t <= self.time {
            self.state = y;
        }
        self.flight = Some(Box::new(flight));
        Ok(())
    }
}

/// How far a frozen basis's forces may leave the LCP's conditions before the step that held it
/// is said to have crossed a change of mode (relative, as [`LemkeOptions::tolerance`]): a
/// millionth of the forces' size, which a resting contact's drift does not reach in a step.
const BASIS_TOLERANCE: f64 = 1e-4;

/// Steps a group's flight may hold ahead of the event loop (as a multibody's).
const MAX_HELD_STEPS: usize = 100_000;

/// Times an inconsistency at one instant is answered by impulses before the group gives up.
const MAX_REPEATED_ANSWERS: usize = 16;

/// A group whose flight restarts this many times in less than as many time steps chatters
/// (see `ContactGroup::chatters`).
const CHATTER_RESTARTS: u32 = 100;

/// Halvings of a step that crossed a change of mode, to locate it (to 1/4096 of the step).
const LOCATE_HALVINGS: usize = 12;

/// Changes contacts between sliding and sticking after a step (Baraff's contact modes change
/// between steps, so the force law is smooth within each): a sliding contact whose slip fell
/// below the sliding speed sticks; a sticking contact whose slip grew past twice it (static
/// friction could not hold it: the slip correction keeps a held contact's slip near zero)
/// slides. The band between the two keeps a contact at the threshold from switching at every
/// step. Returns whether any contact changed.
///
/// A sliding contact whose slip exceeds [`LIVE_SLIP`] times the sliding speed has its dynamic
/// friction oppose its slip at each evaluation (Baraff ch. 9: the force law is smooth in the
/// state while the slip is not zero), so a slip that turns is no change of mode. A slower one
/// holds the direction it started the step with (its direction turns at `a⊥/|s|`, fast near
/// the threshold, and the error control would follow it): the direction is renewed after
/// every step (with the flight's next first stage, see `extend`), and a turn of more than
/// [`SLIP_TURN`] is a change of mode (the flight restarts). Either way, a slip that reversed
/// against the step's start direction passed through zero: the contact sticks.
fn update_modes(contacts: &mut [HeldContact], motions: &[Motion], sliding_speed: f64) -> bool {
    let mut changed = false;
    for c in contacts {
        let slip = c.slip(&side_motion(motions, c.a), &side_motion(motions, c.b));
        let speed = slip.norm();
        let sliding = if c.sliding {
            speed >= sliding_speed && slip.dot(&c.slip_direction) > 0.0
        } else {
            speed > 2.0 * sliding_speed
        };
        let direction = if sliding {
            slip / speed
        } else {
            Vec3::zeros()
        };
        changed |= sliding != c.sliding
            || (sliding
                && holds_direction(speed, sliding_speed)
                && (direction - c.slip_direction).norm() > SLIP_TURN);
        c.sliding = sliding;
        c.slip_direction = direction;
    }
    changed
}

/// How far (in radians, near enough) a held slip direction may turn in a step before the
/// flight restarts with the new direction.
const SLIP_TURN: f64 = 1e-3;

/// Above this many times the sliding speed, a sliding contact's friction opposes its slip of
/// the instant; at or below, the direction of the step's start (see `update_modes`). The part
/// feeder's caps slide on each other at 10–70 times it, their slips turning at up to 2500
/// rad/s: held, each renewal was a jump the error control answered with steps of 1e-7 s.
/// Contacts coming to rest pass through the band below, where a live direction turns fastest.
const LIVE_SLIP: f64 = 4.0;

/// Whether a sliding contact slipping at `speed` holds its step's start direction (else its
/// friction opposes the slip of the instant): see [`LIVE_SLIP`].
pub(super) fn holds_direction(speed: f64, sliding_speed: f64) -> bool {
    speed <= LIVE_SLIP * sliding_speed
}

/// Whether a sliding contact's slip reversed against the direction it had at the step's start:
/// it passed through zero within the step.
fn slip_reversed(contacts: &[HeldContact], motions: &[Motion]) -> bool {
    contacts.iter().any(|c| {
        c.sliding
            && c.slip(&side_motion(motions, c.a), &side_motion(motions, c.b))
                .dot(&c.slip_direction)
                <= 0.0
    })
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

#[cfg(test)]
mod tests;
