//! Changes a caller makes to a body's loads and surface between advances (through
//! [`crate::World`], which also rebuilds its event loop; see `world/edit.rs`).

use super::RigidBody;
use crate::dynamics::Material;
use crate::integrate::IntegrationError;
use crate::math::Vec3;

impl RigidBody {
    /// Replaces the applied force (at the centre of mass) and torque, world frame, and the
    /// gravity the body falls under, from time `t` (the body's current time) on. A body in
    /// free flight starts a new flight at `t` from its present state with the new
    /// acceleration `g + F/m`; a sleeping or held body takes it when it next flies. No effect
    /// on fixed and kinematic bodies, which move as if infinitely massive.
    pub(crate) fn set_loads(
        &mut self,
        t: f64,
        gravity: Vec3,
        force: Vec3,
        torque: Vec3,
    ) -> Result<(), IntegrationError> {
        if !self.is_dynamic() {
            return Ok(());
        }
        self.force = force;
        self.torque = torque;
        self.acceleration = gravity + force / self.mass_properties.mass;
        if self.flight.is_some() {
            self.start_flight(t)?;
        }
        Ok(())
    }

    /// Replaces the body's own surface material (what a contact takes the mean of, when no
    /// pair override applies).
    pub(crate) fn set_material(&mut self, material: Material) {
        self.material = material;
    }
}
