//! A ballistic hop for a free body: Mirtich's wine bottle (§7.3).

use crate::control::pose::{across_gravity, clamp_norm};
use crate::control::targets::{bind_link, goal_frame};
use crate::math::Vec3;
use crate::multibody::{Commands, Controller, JointKind, Multibody, Observations, Tree};

/// A ballistic hop for a free body (Mirtich's wine bottle, §7.3): when the body has come to
/// rest farther than `reach` from its landing point, it is given, like a collision would, the
/// velocity of the parabola that reaches the landing point after `flight_time` under gravity,
/// `v = (x_land − x − ½ g T²) / T`, and the constant spin `θ / T` that turns it to the landing
/// frame's orientation on the way (θ the rotation vector between them; exact in flight for a
/// turn about a principal axis, as a lying bottle's is). The landing point is given in the
/// frame of another multibody's base link as last observed (the table), or in the world. It
/// waits for one flight before it may hop again. Within `reach` of the landing point a
/// horizontal pull, `k_p (x_land − x) − k_v v` across gravity and at most `max_force`, draws
/// it toward the middle.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hop {
    /// The free link: the base of its multibody, on a floating joint.
    pub link: String,
    /// Where its centre of mass should land.
    pub landing: Vec3,
    /// The multibody whose base link's frame `landing` is given in (world when `None`).
    pub relative_to: Option<String>,
    /// Time of flight `T`.
    pub flight_time: f64,
    /// Distance from the landing point that counts as arrived.
    pub reach: f64,
    /// Speed below which the body counts as at rest.
    pub rest_speed: f64,
    /// Gains `k_p`, `k_v` and force limit of the pull toward the landing point within `reach`.
    pub pull: [f64; 3],
    /// Time between updates.
    pub period: f64,
    /// Hops so far.
    pub hops: u32,
    /// No hop before this time (during a flight).
    not_before: f64,
    /// The link's index and the floating joint's first velocity index.
    bound: Option<(usize, usize)>,
}

impl Hop {
    /// A hop controller.
    pub fn new(
        link: impl Into<String>,
        landing: Vec3,
        relative_to: Option<String>,
        flight_time: f64,
        reach: f64,
        rest_speed: f64,
        rate: f64,
    ) -> Self {
        Self {
            link: link.into(),
            landing,
            relative_to,
            flight_time,
            reach,
            rest_speed,
            pull: [0.0, 0.0, 0.0],
            period: 1.0 / rate,
            hops: 0,
            not_before: f64::NEG_INFINITY,
            bound: None,
        }
    }
}

impl Controller for Hop {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        let (i, _) = bind_link(tree, &self.link)?;
        let joint = &tree.links()[i].joint;
        if tree.links()[i].parent.is_some() || !matches!(joint.kind, JointKind::Floating) {
            return Err(format!(
                "a hop needs a free body: link `{}` must be a base link on a floating joint",
                self.link
            ));
        }
        if !(self.flight_time > 0.0 && self.flight_time.is_finite()) {
            return Err(format!(
                "the flight time must be positive and finite, got {}",
                self.flight_time
            ));
        }
        self.bound = Some((i, joint.v_index));
        Ok(())
    }

    fn watches(&self) -> Vec<&str> {
        self.relative_to.iter().map(String::as_str).collect()
    }

    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    ) {
        commands.set_velocities.clear();
        let Some((i, v_index)) = self.bound else {
            return;
        };
        commands.forces.link_force[i] = Vec3::zeros();
        let Some(frame) = goal_frame(&self.relative_to, others, t) else {
            return;
        };
        let landing = (frame * nalgebra::Point3::from(self.landing)).coords;
        let centre = multibody.link_pose(i).translation.vector;
        let (v, w) = multibody.link_velocity(i);
        if (landing - centre).norm() <= self.reach {
            let [kp, kv, max_force] = self.pull;
            let force = across_gravity((landing - centre) * kp - v * kv, &multibody.gravity());
            commands.forces.link_force[i] = clamp_norm(force, max_force);
            return;
        }
        let resting = v.norm() <= self.rest_speed && w.norm() <= self.rest_speed;
        if t < self.not_before || !resting {
            return;
        }
        let flight = self.flight_time;
        let launch = (landing - centre - multibody.gravity() * (0.5 * flight * flight)) / flight;
        let model = multibody.link_model_pose(i).rotation;
        let spin = (frame.rotation * model.inverse()).scaled_axis() / flight;
        // The floating joint's velocity is (ω, v) in the link frame.
        let link_frame = multibody.link_pose(i).rotation.inverse();
        let (spin, launch) = (link_frame * spin, link_frame * launch);
        for k in 0..3 {
            commands.set_velocities.push((v_index + k, spin[k]));
            commands.set_velocities.push((v_index + 3 + k, launch[k]));
        }
        self.hops += 1;
        self.not_before = t + flight;
    }
}
