//! The energy bound: a world's kinetic and potential energy, the rise above the start's that
//! [`EnergyBound`] allows, and the check that stops a run pumping energy.

use super::colliders::Participants;
use super::{EnergyBound, SimulationError, World, WorldSettings};
use crate::dynamics::RigidBody;
use crate::math::Vec3;
use crate::multibody::Multibody;
use crate::response::RestitutionLaw;

/// A rise of the total energy below this fraction of the energies' size (kinetic plus
/// |potential| now, plus |total| at the start) is the integration's error, not a gain: it is
/// allowed on top of any `energy_bound`, so that `energy_bound = 0` means "no gain" and holds
/// in free fall.
pub const ENERGY_TOLERANCE: f64 = 1e-9;

/// Kinetic and gravitational potential energy of the dynamic bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Energy {
    /// Translational plus rotational kinetic energy.
    pub kinetic: f64,
    /// Gravitational potential energy, zero at the world origin.
    pub potential: f64,
}

impl Energy {
    /// Kinetic plus potential.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }
}

impl World {
    /// Energy of the dynamic bodies and multibodies.
    pub fn energy(&self) -> Energy {
        energy_of(&self.bodies, &self.multibodies, &self.settings.gravity)
    }

    /// Whether nothing drives the world: no kinematic body, no applied force or torque on a
    /// dynamic body, no driven multibody (controllers, motors), and Stronge's restitution law
    /// (Poisson's can gain energy with friction). A closed world's energy can only fall, and
    /// the rebound budget holds its microcollisions to that.
    pub fn is_closed(&self) -> bool {
        is_closed(&self.bodies, &self.multibodies, &self.settings)
    }

    /// The rise of total energy allowed above the start's ([`EnergyBound`]), from the state at
    /// the (re)start.
    pub(super) fn energy_allowance(&self) -> Option<f64> {
        match self.settings.energy_bound {
            EnergyBound::Off => None,
            EnergyBound::Gain(gain) => Some(gain),
            EnergyBound::Auto => {
                if !self.is_closed() {
                    return None;
                }
                let settings = &self.settings;
                let throw = if settings.microcollisions {
                    settings.microcollision_max_restitution
                        * (2.0 * settings.gravity.norm() * settings.collision_epsilon).sqrt()
                } else {
                    0.0
                };
                let mass = self
                    .bodies
                    .iter()
                    .filter(|b| b.is_dynamic())
                    .map(RigidBody::mass)
                    .sum::<f64>()
                    + self
                        .multibodies
                        .iter()
                        .flat_map(|m| m.tree().links().iter().map(|l| l.mass))
                        .sum::<f64>();
                let energy = self.energy();
                let floor = 1e-6 * (energy.kinetic + energy.potential.abs());
                Some((10.0 * 0.5 * mass * throw * throw).max(floor))
            }
        }
    }

    /// Stops the run if its energy has risen more than allowed.
    pub(super) fn check_energy(&self) -> Result<(), SimulationError> {
        let Some(allowed) = self.energy_allowance else {
            return Ok(());
        };
        let energy = self.energy();
        let gain = energy.total() - self.energy_start;
        // The integration's own error is no gain: `energy_bound = 0` tripped on 3.5e-18 J
        // (the sum's rounding) and, a tumbling box in free fall, on 3.6e-12 J of 60 J after
        // 0.21 s (its rotation integrated to the flight's tolerance; 5e-12 of the energies'
        // size over 100 s). See [`ENERGY_TOLERANCE`].
        let rounding =
            ENERGY_TOLERANCE * (energy.kinetic + energy.potential.abs() + self.energy_start.abs());
        if gain <= allowed + rounding {
            return Ok(());
        }
        let bodies = self
            .bodies
            .iter()
            .map(|b| (b.kinetic_energy(), b.name().to_string()));
        let links = self.multibodies.iter().flat_map(|m| {
            let name = m.name();
            m.link_kinetic_energies()
                .into_iter()
                .map(move |(link, e)| (e, format!("{name}/{link}")))
        });
        let fastest = bodies
            .chain(links)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, name)| name)
            .unwrap_or_default();
        Err(SimulationError::EnergyGain {
            gain,
            allowed,
            time: self.time,
            fastest,
        })
    }
}

/// Kinetic and potential energy of `bodies` and `multibodies` under `gravity`.
pub(super) fn energy_of(bodies: &[RigidBody], multibodies: &[Multibody], gravity: &Vec3) -> Energy {
    Energy {
        kinetic: bodies.iter().map(|b| b.kinetic_energy()).sum::<f64>()
            + multibodies.iter().map(|m| m.kinetic_energy()).sum::<f64>(),
        potential: bodies
            .iter()
            .map(|b| b.potential_energy(gravity))
            .sum::<f64>()
            + multibodies
                .iter()
                .map(|m| m.potential_energy())
                .sum::<f64>(),
    }
}

/// Whether nothing drives a world of `bodies` and `multibodies`: no kinematic body, no
/// applied force or torque, no driven multibody, and Stronge's law (Poisson's may gain energy
/// with friction). Its total energy can then only fall, but for what microcollisions add.
pub(super) fn is_closed(
    bodies: &[RigidBody],
    multibodies: &[Multibody],
    settings: &WorldSettings,
) -> bool {
    let driven_body = |b: &RigidBody| {
        matches!(b.motion(), crate::MotionType::Kinematic(_))
            || (b.is_dynamic() && (b.force() != Vec3::zeros() || b.torque() != Vec3::zeros()))
    };
    !(bodies.iter().any(driven_body)
        || multibodies.iter().any(Multibody::is_driven)
        || settings.restitution_law != RestitutionLaw::Stronge)
}

/// What the microcollision floor may still add to a closed world's energy: what its contacts
/// have taken out since the start, so that its total energy never rises above the start's.
///
/// The floor (a microcollision leaving at least its rebound speed, and the thesis's boosted
/// restitution, Mirtich §3.5) keeps resting bodies hopping within the envelope. Each hop adds
/// a little kinetic energy, which the contacts' restitution and friction take out again. A
/// body set down at rest inside the envelope has lost nothing yet, so before this budget its
/// first hops lifted it above where it started: a closed world's energy rose (Table 7.1's
/// dominos by 0.18 %, the rattleback by 0.38 %; docs/sources.md, "Checkpoints and the soak").
/// Now a response whose floor would add more than the budget holds is answered without it.
///
/// `estimate` is a lower bound on the budget, lowered by every gain granted and measured
/// afresh (a sum over the world's bodies) only when it does not cover a gain with
/// `BUDGET_MARGIN` to spare. Every grant is therefore the exact rule's, and the estimate need
/// not be saved in a checkpoint: a resumed run measures it at its first request.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ReboundBudget {
    estimate: f64,
}

/// The part of the start's energy kept out of the budget, and by which the estimate must exceed
/// a gain to grant it unmeasured: more than the integration's error between two measurements
/// (see [`ENERGY_TOLERANCE`]).
const BUDGET_MARGIN: f64 = 1e-8;

impl ReboundBudget {
    /// Whether a response may add `gain` to the kinetic energy of `world`, which must not
    /// rise above its [`Participants::energy_ceiling`] (none: not closed, no budget); a gain
    /// granted is taken from the budget.
    pub(super) fn grant(&mut self, gain: f64, world: &Participants<'_>) -> bool {
        let Some(start) = world.energy_ceiling else {
            return true;
        };
        if gain <= 0.0 {
            return true;
        }
        let margin = BUDGET_MARGIN * start.abs();
        if gain + margin > self.estimate {
            let now = energy_of(world.bodies, world.multibodies, &world.settings.gravity).total();
            self.estimate = start - now - margin;
        }
        let granted = gain <= self.estimate;
        if granted {
            self.estimate -= gain;
        }
        granted
    }
}
