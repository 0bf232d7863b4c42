//! Changes a caller makes to a world between advances (the Python package's `set_state`).

use super::{SettingsError, World};
use crate::dynamics::{BodyId, BodyState};

impl World {
    /// Puts dynamic body `id` in `state` (centre of mass and principal frame, as
    /// [`crate::RigidBody::state`] gives them) at the current time, awake. The event loop is
    /// rebuilt at the next [`World::advance_to`], every pair checked again, and the energy bound
    /// measures from the new state: the energy the change adds is the caller's. Refused, and
    /// nothing changed, for a fixed or kinematic body, a body a constraint group holds, a state
    /// that is not finite or a quaternion that is not of unit length (within 1e-9).
    pub fn set_body_state(&mut self, id: BodyId, state: BodyState) -> Result<(), SettingsError> {
        let body = &self.bodies[id.0];
        let refuse = |expected: &'static str, found: String| {
            Err(SettingsError {
                setting: "body state",
                expected,
                found,
            })
        };
        if !body.is_dynamic() {
            return refuse(
                "a dynamic body",
                format!("`{}`, which is fixed or kinematic", body.name()),
            );
        }
        if body.is_held() {
            return refuse(
                "a body no constraint group holds",
                format!("`{}`, held in resting contact", body.name()),
            );
        }
        if !state.is_finite() {
            return refuse("finite numbers", format!("{state:?}"));
        }
        let norm = state.orientation.quaternion().norm();
        if (norm - 1.0).abs() > 1e-9 {
            return refuse(
                "a unit quaternion",
                format!("a quaternion of length {norm}"),
            );
        }
        let t = self.time;
        self.bodies[id.0]
            .set_state(t, state)
            .map_err(|error| SettingsError {
                setting: "body state",
                expected: "a state the integrator can start from",
                found: error.to_string(),
            })?;
        self.energy_rebase = true;
        self.collisions.invalidate();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// A ball put at a new height with a new velocity flies from there: after 0.5 s its height
    /// is the closed form z0 + v t − g t²/2 (to 1e-12, the integrator's rounding).
    #[test]
    fn a_set_state_starts_a_new_flight() {
        let mut world = World::new(WorldSettings::default());
        let id = world
            .add_body(BodyDesc::new("ball", Shape::Sphere { radius: 0.1 }))
            .unwrap();
        world.advance_to(0.25).unwrap();
        let mut state = *world.body(id).state();
        state.position = Vec3::new(1.0, 2.0, 10.0);
        state.velocity = Vec3::new(0.0, 0.0, 3.0);
        world.set_body_state(id, state).unwrap();
        assert_eq!(world.body(id).state().position, state.position);
        world.advance_to(0.75).unwrap();
        let z = world.body(id).state().position.z;
        let expected = 10.0 + 3.0 * 0.5 - 0.5 * 9.81 * 0.25;
        assert!((z - expected).abs() < 1e-12, "z = {z}, expected {expected}");
    }

    /// A fixed body and a non-unit quaternion are refused and change nothing.
    #[test]
    fn bad_states_are_refused() {
        let mut world = World::new(WorldSettings::default());
        let mut ground = BodyDesc::new("ground", Shape::HalfSpace);
        ground.motion = MotionType::Fixed;
        let ground = world.add_body(ground).unwrap();
        let ball = world
            .add_body(BodyDesc::new("ball", Shape::Sphere { radius: 0.1 }))
            .unwrap();
        let state = *world.body(ground).state();
        let error = world.set_body_state(ground, state).unwrap_err();
        assert!(error.to_string().contains("fixed or kinematic"), "{error}");
        let mut state = *world.body(ball).state();
        let before = state;
        state.orientation = Quat::new_unchecked(nalgebra::Quaternion::new(2.0, 0.0, 0.0, 0.0));
        let error = world.set_body_state(ball, state).unwrap_err();
        assert!(error.to_string().contains("unit quaternion"), "{error}");
        assert_eq!(*world.body(ball).state(), before);
    }
}
