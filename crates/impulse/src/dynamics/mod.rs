//! Rigid bodies: their mass model, their state, and how they move between collisions.
//!
//! Frames. A body is described in its *model frame* — the coordinates its shapes are given in
//! (a mesh file's own axes). Its *body frame* has its origin at the centre of mass and its axes
//! along the principal axes of inertia, so the inertia tensor there is diagonal (Mirtich App. A.3).
//! The state is the body frame's world pose and the velocities of the centre of mass; the fixed
//! transform between body and model frames is kept to report and draw the model.

mod body;
mod desc;
mod free_flight;
mod material;
mod prescribed;

pub use body::RigidBody;
pub use desc::{BodyDesc, BodyError, MassSpec, MotionType, PlacedShape};
pub(crate) use desc::{body_mass_properties, check_inertia, check_shapes, underflow};
#[cfg(any(test, feature = "internals"))]
pub use free_flight::EulerRotation;
#[cfg(feature = "internals")]
pub use free_flight::FreeFlight;
#[cfg(not(feature = "internals"))]
pub(crate) use free_flight::FreeFlight;
pub use material::{Material, MaterialError};
pub use prescribed::{Oscillation, PrescribedMotion};

use crate::math::{Pose, Quat, Vec3, is_finite_vec, pose};

/// Index of a body in its world.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct BodyId(pub usize);

/// The instantaneous state of a rigid body (world frame).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BodyState {
    /// Position of the centre of mass.
    pub position: Vec3,
    /// Orientation of the body (principal) frame: maps body coordinates to world.
    pub orientation: Quat,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity.
    pub angular_velocity: Vec3,
}

impl BodyState {
    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        is_finite_vec(&self.position)
            && self.orientation.coords.iter().all(|c| c.is_finite())
            && is_finite_vec(&self.velocity)
            && is_finite_vec(&self.angular_velocity)
    }

    /// Pose of the body frame.
    pub fn pose(&self) -> Pose {
        pose(self.position, self.orientation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Shape;
    use crate::integrate::Tolerance;
    use crate::math::Point;

    #[test]
    fn off_centre_mesh_model_pose_round_trips() {
        // A box whose model origin is not its centre: the model pose reported back equals the
        // pose given.
        let mut desc = BodyDesc::new(
            "b",
            Shape::Box {
                half_extents: Vec3::new(1.0, 2.0, 3.0),
            },
        );
        desc.shapes[0].pose = pose(
            Vec3::new(0.5, 0.0, 0.0),
            Quat::from_euler_angles(0.1, 0.2, 0.3),
        );
        desc.pose = pose(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_euler_angles(-0.4, 0.5, 0.6),
        );
        let body = RigidBody::new(desc.clone(), 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        let model = body.model_pose();
        assert!((model.translation.vector - desc.pose.translation.vector).norm() < 1e-14);
        assert!(model.rotation.angle_to(&desc.pose.rotation) < 1e-14);
        // The centre of mass is where the box's centre was placed.
        let centre = desc.pose * Point::new(0.5, 0.0, 0.0);
        assert!((body.state().position - centre.coords).norm() < 1e-14);
    }

    #[test]
    fn point_mass_adds_to_the_total_and_shifts_the_centre() {
        let mut desc = BodyDesc::new("r", Shape::Sphere { radius: 1.0 });
        desc.mass = MassSpec::Mass(0.5);
        desc.point_masses.push((0.03, Point::new(1.0, 0.0, 0.0)));
        let body = RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap();
        assert!((body.mass() - 0.53).abs() < 1e-15);
        assert!((body.mass_properties().center_of_mass.x - 0.03 / 0.53).abs() < 1e-15);
    }

    #[test]
    fn invalid_descriptions_are_rejected() {
        let sphere = Shape::Sphere { radius: 1.0 };
        let mut desc = BodyDesc::new("x", sphere.clone());
        desc.mass = MassSpec::Mass(-1.0);
        assert!(RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).is_err());
        let desc = BodyDesc::new("ground", Shape::HalfSpace);
        assert_eq!(
            RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).unwrap_err(),
            BodyError::HalfSpaceNotFixed
        );
        let mut desc = BodyDesc::new("x", sphere);
        desc.material.restitution = 1.5;
        assert!(RigidBody::new(desc, 0.0, Vec3::zeros(), Tolerance::default()).is_err());
    }

    /// The overflow check at every sample (`kinetic_energy_is_finite`, a bound first) gives
    /// the answer of the energy itself, on either side of overflow: speeds and spins from 1 to
    /// 1e160 (½ m v² of a 1 kg body overflows near v = 1.9e154), about tilted axes of a box
    /// with three different moments.
    #[test]
    fn the_cheap_overflow_check_agrees_with_the_kinetic_energy_on_both_sides_of_overflow() {
        let shape = Shape::Box {
            half_extents: Vec3::new(0.5, 0.2, 0.1),
        };
        let mut body = RigidBody::new(
            BodyDesc::new("x", shape),
            0.0,
            Vec3::zeros(),
            Tolerance::default(),
        )
        .unwrap();
        let mut agreed = [0, 0];
        for exponent in (0..=160).step_by(2) {
            for scale in [1.0, 1.9, 3.7] {
                let size = scale * 10f64.powi(exponent);
                for (v, w) in [(size, 0.0), (0.0, size), (size, size)] {
                    let mut state = *body.state();
                    state.orientation = Quat::from_euler_angles(0.3, -1.1, 2.0);
                    state.velocity = Vec3::new(0.6, -0.8, 0.0) * v;
                    state.angular_velocity = Vec3::new(0.48, 0.6, 0.64) * w;
                    // The flight's own check may refuse the state; the body keeps it.
                    let _ = body.set_state(0.0, state);
                    let finite = body.kinetic_energy().is_finite();
                    assert_eq!(body.kinetic_energy_is_finite(), finite, "v {v:e}, ω {w:e}");
                    agreed[usize::from(finite)] += 1;
                }
            }
        }
        // Both answers were exercised.
        assert!(agreed[0] > 10 && agreed[1] > 10, "{agreed:?}");
    }

    #[test]
    fn kinematic_body_follows_its_motion_exactly() {
        let mut desc = BodyDesc::new(
            "platter",
            Shape::Cylinder {
                radius: 1.0,
                half_height: 0.05,
            },
        );
        desc.motion = MotionType::Kinematic(PrescribedMotion {
            angular_velocity: Vec3::new(0.0, 0.0, 3.3),
            ..Default::default()
        });
        let mut body =
            RigidBody::new(desc, 0.0, Vec3::new(0.0, 0.0, -9.81), Tolerance::default()).unwrap();
        body.advance_to(2.0).unwrap();
        assert!((body.state().orientation.angle() - (6.6 - std::f64::consts::TAU)).abs() < 1e-12);
        assert_eq!(body.state().position, Vec3::zeros());
        assert_eq!(body.kinetic_energy(), 0.0);
    }
}
