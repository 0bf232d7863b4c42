//! Changes a caller makes to a world between advances (the Python package's `set_state`,
//! `apply_force`, `gravity`, `set_body_material`). Each one rebuilds the event loop at the next
//! [`World::advance_to`]: its heap times are bounds computed from the old motions, and held
//! contacts keep the material they were found with.

use super::{SettingsError, World, WorldSettings};
use crate::dynamics::{BodyId, BodyState, Material, MaterialError, RigidBody};
use crate::math::{Vec3, is_finite_vec};

impl World {
    /// Puts dynamic body `id` in `state` (centre of mass and principal frame, as
    /// [`crate::RigidBody::state`] gives them) at the current time, awake. The event loop is
    /// rebuilt at the next [`World::advance_to`], every pair checked again, and the energy bound
    /// measures from the new state: the energy the change adds is the caller's. Refused, and
    /// nothing changed, for a fixed or kinematic body, a body a constraint group holds, a state
    /// that is not finite or a quaternion that is not of unit length (within 1e-9).
    pub fn set_body_state(&mut self, id: BodyId, state: BodyState) -> Result<(), SettingsError> {
        const SETTING: &str = "body state";
        let body = self.dynamic_body(id, SETTING)?;
        if body.is_held() {
            return Err(refusal(
                SETTING,
                "a body no constraint group holds",
                format!("`{}`, held in resting contact", body.name()),
            ));
        }
        if !state.is_finite() {
            return Err(refusal(SETTING, "finite numbers", format!("{state:?}")));
        }
        let norm = state.orientation.quaternion().norm();
        if (norm - 1.0).abs() > 1e-9 {
            return Err(refusal(
                SETTING,
                "a unit quaternion",
                format!("a quaternion of length {norm}"),
            ));
        }
        let t = self.time;
        self.bodies[id.0].set_state(t, state).map_err(|error| {
            refusal(
                SETTING,
                "a state the integrator can start from",
                error.to_string(),
            )
        })?;
        self.motions_changed();
        Ok(())
    }
    /// Replaces dynamic body `id`'s applied force (acting at its centre of mass) and torque,
    /// world frame, from the current time on, held until changed (as a scene's `force` and
    /// `torque` keys are). The body flies from its present state under `g + F/m`; the energy
    /// bound measures from now (and a force makes the world driven: see
    /// [`super::EnergyBound`]). Refused, and nothing changed, for a fixed or kinematic body
    /// and for numbers that are not finite.
    pub fn set_applied_force(
        &mut self,
        id: BodyId,
        force: Vec3,
        torque: Vec3,
    ) -> Result<(), SettingsError> {
        const SETTING: &str = "applied force";
        self.dynamic_body(id, SETTING)?;
        if !(is_finite_vec(&force) && is_finite_vec(&torque)) {
            return Err(refusal(
                SETTING,
                "a finite force and torque",
                format!(
                    "force ({}, {}, {}), torque ({}, {}, {})",
                    force.x, force.y, force.z, torque.x, torque.y, torque.z
                ),
            ));
        }
        let (t, gravity) = (self.time, self.settings.gravity);
        let body = &mut self.bodies[id.0];
        body.set_loads(t, gravity, force, torque).map_err(|error| {
            refusal(
                SETTING,
                "a motion the integrator can start",
                error.to_string(),
            )
        })?;
        self.motions_changed();
        Ok(())
    }

    /// Changes the gravity from the current time on: every body and multibody flies on from
    /// its present state under the new one, sleepers wake (the loop's rebuild wakes them), and
    /// the energy bound and potential energy measure from now with it. Refused, and nothing
    /// changed, if the settings' checks refuse it (a vector that is not finite).
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<(), SettingsError> {
        WorldSettings {
            gravity,
            ..self.settings.clone()
        }
        .check()?;
        self.settings.gravity = gravity;
        let t = self.time;
        for body in &mut self.bodies {
            let (force, torque) = (body.force(), body.torque());
            body.set_loads(t, gravity, force, torque).map_err(|error| {
                refusal(
                    "gravity",
                    "motions the integrator can start",
                    format!("body `{}`: {error}", body.name()),
                )
            })?;
        }
        for multibody in &mut self.multibodies {
            multibody.set_gravity(gravity);
        }
        self.motions_changed();
        Ok(())
    }

    /// Replaces body `id`'s own surface material (the one a contact takes the mean of when no
    /// body-pair or material-pair override applies), from the next contact on. Refused, and
    /// nothing changed, for friction < 0 or restitution outside [0, 1].
    pub fn set_body_material(
        &mut self,
        id: BodyId,
        material: Material,
    ) -> Result<(), MaterialError> {
        material.check()?;
        self.bodies[id.0].set_material(material);
        self.collisions.invalidate();
        Ok(())
    }

    /// Body `id`, if it is dynamic (what `setting` can change); refused otherwise.
    fn dynamic_body(&self, id: BodyId, setting: &'static str) -> Result<&RigidBody, SettingsError> {
        let body = &self.bodies[id.0];
        if body.is_dynamic() {
            Ok(body)
        } else {
            Err(refusal(
                setting,
                "a dynamic body",
                format!("`{}`, which is fixed or kinematic", body.name()),
            ))
        }
    }

    /// After a caller changed motions: the event loop is rebuilt at the next advance and the
    /// energy bound measures from now.
    fn motions_changed(&mut self) {
        self.energy_rebase = true;
        self.collisions.invalidate();
    }
}

/// A change to `setting` refused: what it must be, and what it was.
fn refusal(setting: &'static str, expected: &'static str, found: String) -> SettingsError {
    SettingsError {
        setting,
        expected,
        found,
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

    /// A free sphere in zero gravity under a force applied at t = 0.5 moves from there by
    /// F t²/(2m) (closed form, to 1e-12 of the distance); a torque spins it up at τ/I. A
    /// fixed body's force is refused.
    #[test]
    fn an_applied_force_accelerates_at_f_over_m() {
        let mut world = World::new(WorldSettings {
            gravity: Vec3::zeros(),
            ..WorldSettings::default()
        });
        let ball = world
            .add_body(BodyDesc::new("ball", Shape::Sphere { radius: 0.5 }))
            .unwrap();
        world.advance_to(0.5).unwrap();
        let (m, i) = (
            world.body(ball).mass(),
            world.body(ball).principal_inertia().x,
        );
        let (force, torque) = (Vec3::new(2.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 0.3));
        world.set_applied_force(ball, force, torque).unwrap();
        world.advance_to(1.5).unwrap();
        let s = world.body(ball).state();
        let expected = force / (2.0 * m);
        assert!(
            (s.position - expected).norm() < 1e-12 * expected.norm(),
            "{:?}",
            s.position
        );
        assert!((s.angular_velocity.z - 0.3 / i).abs() < 1e-9 * (0.3 / i));
        let mut ground = BodyDesc::new("ground", Shape::HalfSpace);
        ground.motion = MotionType::Fixed;
        let ground = world.add_body(ground).unwrap();
        let error = world.set_applied_force(ground, force, torque).unwrap_err();
        assert!(error.to_string().contains("fixed or kinematic"), "{error}");
    }

    /// Gravity changed mid-fall: from t = 1 the ball falls under the new value from the state
    /// the old one left (z = z1 + v1 t − g' t²/2, to 1e-12).
    #[test]
    fn a_gravity_change_bends_the_fall_from_now() {
        let mut world = World::new(WorldSettings::default());
        let ball = world
            .add_body(BodyDesc::new("ball", Shape::Sphere { radius: 0.1 }))
            .unwrap();
        world.advance_to(1.0).unwrap();
        world.set_gravity(Vec3::new(0.0, 0.0, -1.62)).unwrap();
        world.advance_to(2.0).unwrap();
        let (z1, v1) = (-0.5 * 9.81, -9.81);
        let expected = z1 + v1 - 0.5 * 1.62;
        let z = world.body(ball).state().position.z;
        assert!((z - expected).abs() < 1e-12, "z = {z}, expected {expected}");
        assert!(world.set_gravity(Vec3::new(f64::NAN, 0.0, 0.0)).is_err());
        assert_eq!(world.settings().gravity, Vec3::new(0.0, 0.0, -1.62));
    }
}
