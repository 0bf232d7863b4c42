//! The energy bound: a world's kinetic and potential energy, the rise above the start's that
//! [`EnergyBound`] allows, and the check that stops a run pumping energy.

use super::{EnergyBound, SimulationError, World};
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
        let gravity = self.settings.gravity;
        let multibodies = &self.multibodies;
        Energy {
            kinetic: self.bodies.iter().map(|b| b.kinetic_energy()).sum::<f64>()
                + multibodies.iter().map(|m| m.kinetic_energy()).sum::<f64>(),
            potential: self
                .bodies
                .iter()
                .map(|b| b.potential_energy(&gravity))
                .sum::<f64>()
                + multibodies
                    .iter()
                    .map(|m| m.potential_energy())
                    .sum::<f64>(),
        }
    }

    /// The rise of total energy allowed above the start's ([`EnergyBound`]), from the state at
    /// the (re)start.
    pub(super) fn energy_allowance(&self) -> Option<f64> {
        match self.settings.energy_bound {
            EnergyBound::Off => None,
            EnergyBound::Gain(gain) => Some(gain),
            EnergyBound::Auto => {
                let driven_body = |b: &RigidBody| {
                    matches!(b.motion(), crate::MotionType::Kinematic(_))
                        || (b.is_dynamic()
                            && (b.force() != Vec3::zeros() || b.torque() != Vec3::zeros()))
                };
                let open = self.bodies.iter().any(driven_body)
                    || self.multibodies.iter().any(Multibody::is_driven)
                    || self.settings.restitution_law != RestitutionLaw::Stronge;
                if open {
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
