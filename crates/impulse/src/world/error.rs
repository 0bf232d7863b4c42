//! Why a world could not be built or could not go on.

use std::fmt;

use super::SettingsError;
use crate::dynamics::BodyError;
use crate::integrate::IntegrationError;
use crate::multibody::{BuildError, MultibodyError};

/// A simulation that cannot continue.
#[derive(Clone, Debug, PartialEq)]
pub enum SimulationError {
    /// A body's state became NaN or infinite.
    NonFinite { body: String, time: f64 },
    /// A body's rotation could not be integrated.
    Integration {
        body: String,
        error: IntegrationError,
    },
    /// Bodies held together by contact forces (a constraint group) could not be integrated.
    Group {
        /// The group's bodies.
        bodies: Vec<String>,
        error: IntegrationError,
    },
    /// A collision's simultaneous impulse problem (the contact models' collision solve) had no
    /// solution Lemke's algorithm could find.
    CollisionUnsolved {
        /// The colliding island's bodies.
        bodies: Vec<String>,
        /// Its contacts.
        contacts: usize,
        time: f64,
    },
    /// `advance_to` was asked to go back in time.
    TimeReversal { now: f64, requested: f64 },
    /// Two bodies overlap deeper than allowed.
    Penetration {
        bodies: (String, String),
        depth: f64,
        time: f64,
    },
    /// Collisions at one instant keep triggering each other without end: bodies wedged
    /// within the collision envelope that no simultaneous solve could stop (one reaching a
    /// multibody link is answered a contact at a time).
    NoProgress {
        bodies: (String, String),
        time: f64,
        /// The responses at that instant.
        responses: u64,
        /// The collision envelope, `world.collision_epsilon`.
        epsilon: f64,
    },
    /// Bodies move too fast for their collision checks to advance time.
    TooFast {
        bodies: (String, String),
        time: f64,
        events: u64,
    },
    /// The total energy rose above its value at the start by more than
    /// [`WorldSettings::energy_bound`](super::WorldSettings::energy_bound) allows.
    EnergyGain {
        /// The rise.
        gain: f64,
        /// The rise allowed.
        allowed: f64,
        time: f64,
        /// The body or link with the most kinetic energy then.
        fastest: String,
    },
    /// A collision's integration ran out of steps before the collision ended (a stiff
    /// collision matrix: masses or inertias of very different sizes meeting at one contact).
    StiffCollision {
        bodies: (String, String),
        time: f64,
        /// The integration steps taken.
        steps: u64,
        /// The collision matrix's largest singular value over its smallest.
        condition: f64,
    },
    /// Stopped from outside ([`World::set_interrupt`](super::World::set_interrupt)) at `time`,
    /// between two events or two steps of a contact group's flight.
    Interrupted { time: f64 },
    /// A setting is out of its range, or the collision envelope is not smaller than the
    /// smallest dynamic body (checked as the run starts).
    Settings(SettingsError),
    /// A multibody could not go on (names the joint and the time).
    Multibody {
        multibody: String,
        error: MultibodyError,
    },
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { body, time } => write!(
                f,
                "body `{body}`: its state stopped being finite at t = {time}"
            ),
            Self::Integration { body, error } => write!(f, "body `{body}`: {error}"),
            Self::Group { bodies, error } => {
                let shown: Vec<String> = bodies.iter().take(4).map(|b| format!("`{b}`")).collect();
                let more = match bodies.len().saturating_sub(4) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                write!(
                    f,
                    "bodies {}{more}, held together by contact forces: {error}",
                    shown.join(", ")
                )
            }
            Self::CollisionUnsolved {
                bodies,
                contacts,
                time,
            } => {
                let shown: Vec<String> = bodies.iter().take(4).map(|b| format!("`{b}`")).collect();
                let more = match bodies.len().saturating_sub(4) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                write!(
                    f,
                    "bodies {}{more}: no impulses found for their collision at t = {time}: \
                     Lemke's algorithm could not solve the frictional impulse problem of its \
                     {contacts} contacts (degenerate or jammed)",
                    shown.join(", ")
                )
            }
            Self::TimeReversal { now, requested } => write!(
                f,
                "cannot advance to t = {requested}: the world is at t = {now}, and time must move forward to a finite value"
            ),
            Self::Penetration {
                bodies,
                depth,
                time,
            } => write!(
                f,
                "bodies `{}` and `{}` interpenetrate by {depth:e} at t = {time}, more than allowed",
                bodies.0, bodies.1
            ),
            Self::Settings(error) => error.fmt(f),
            Self::EnergyGain {
                gain,
                allowed,
                time,
                fastest,
            } => write!(
                f,
                "the total energy rose by {} above its value at the start (at most {} allowed, \
                 see `energy_bound`) at t = {time}; `{fastest}` has the most kinetic energy",
                crate::math::readable(*gain),
                crate::math::readable(*allowed)
            ),
            Self::Multibody { multibody, error } => write!(f, "multibody `{multibody}`, {error}"),
            Self::Interrupted { time } => write!(f, "interrupted at t = {time}"),
            Self::StiffCollision {
                bodies,
                time,
                steps,
                condition,
            } => write!(
                f,
                "the collision between `{}` and `{}` at t = {time} did not end in {steps} \
                 integration steps: its collision matrix is too stiff (largest over smallest \
                 singular value {}; bodies or links of very different masses or inertias \
                 meeting at one contact?)",
                bodies.0,
                bodies.1,
                crate::math::readable(*condition)
            ),
            Self::NoProgress {
                bodies,
                time,
                responses,
                epsilon,
            } => write!(
                f,
                "collisions between `{}` and `{}` at t = {time} keep setting off others \
                 without end ({responses} responses at that instant): bodies wedged within the \
                 collision envelope of each other, which no simultaneous solve could stop (one \
                 that reaches a multibody link is answered a contact at a time); set them \
                 further apart than the envelope, or make world.collision_epsilon (now {}) \
                 smaller than their gaps",
                bodies.0,
                bodies.1,
                crate::math::readable(*epsilon)
            ),
            Self::TooFast {
                bodies,
                time,
                events,
            } => write!(
                f,
                "`{}` and `{}` move too fast to simulate at t = {time}: {events} collision \
                 checks advanced time by less than {:e} of itself (is a speed, spin \
                 or gravity far too large?)",
                bodies.0,
                bodies.1,
                super::event_loop::STALL_SPAN
            ),
        }
    }
}

impl SimulationError {
    /// [`SimulationError::Interrupted`] for a body's or group's integration stopped from
    /// outside (wherever its error was wrapped); any other error as it is.
    pub(crate) fn interrupted_or(self) -> Self {
        match self {
            Self::Integration {
                error: IntegrationError::Interrupted { time },
                ..
            }
            | Self::Group {
                error: IntegrationError::Interrupted { time },
                ..
            } => Self::Interrupted { time },
            other => other,
        }
    }
}

impl std::error::Error for SimulationError {}

/// Why a body could not be added.
#[derive(Clone, Debug, PartialEq)]
pub enum AddBodyError {
    /// Another body has the same name.
    DuplicateName(String),
    /// The description is invalid.
    Body { name: String, error: BodyError },
}

impl fmt::Display for AddBodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName(name) => write!(f, "a body named `{name}` already exists"),
            Self::Body { name, error } => write!(f, "body `{name}`: {error}"),
        }
    }
}

impl std::error::Error for AddBodyError {}

/// Why a multibody could not be added.
#[derive(Clone, Debug, PartialEq)]
pub enum AddMultibodyError {
    /// Another multibody has the same name.
    DuplicateName(String),
    /// The description is invalid.
    Build { name: String, error: BuildError },
}

impl fmt::Display for AddMultibodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName(name) => write!(f, "a multibody named `{name}` already exists"),
            Self::Build { name, error } => write!(f, "multibody `{name}`: {error}"),
        }
    }
}

impl std::error::Error for AddMultibodyError {}
