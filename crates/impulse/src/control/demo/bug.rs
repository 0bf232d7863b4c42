//! The creature war's bugs (Mirtich §7.3).

use super::{decision_due, servo, velocity_indices};
use crate::math::Vec3;
use crate::multibody::{Commands, Controller, Multibody, Observations, Tree};

/// A bug's controller (§7.3): two legs turned by velocity servos, steered by turning them at
/// different rates towards a potential field's direction — drawn to the world's centre
/// (`−x / arena`, stronger farther out) and, within `threat_radius` of the rover, pushed
/// away from it (`repulsion · (1 − r / threat_radius)` along the line from the rover). A bug
/// whose body has fallen below z = 0 has left the world and stops.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bug {
    /// Left and right leg joints (revolute, positive rate walks forward).
    pub left_leg: String,
    pub right_leg: String,
    /// Leg rate when walking straight, servo gain and torque limit.
    pub leg_rate: f64,
    pub leg_kv: f64,
    pub leg_max_torque: f64,
    /// Leg rates are `leg_rate (1 ∓ turn_gain · bearing)` (bearing in radians, left/right),
    /// clamped to `[−leg_rate, 2 leg_rate]`.
    pub turn_gain: f64,
    /// The multibody to flee and how near it must be.
    pub threat: Option<String>,
    pub threat_radius: f64,
    pub repulsion: f64,
    /// Half-width of the world: the pull to the centre is `−x / arena`.
    pub arena: f64,
    /// Servo and decision periods.
    pub period: f64,
    pub decision_period: f64,
    targets: (f64, f64),
    next_decision: u64,
    indices: Option<(usize, usize)>,
}

impl Bug {
    /// A bug controller without a threat.
    pub fn new(
        left_leg: impl Into<String>,
        right_leg: impl Into<String>,
        leg_rate: f64,
        leg_kv: f64,
        arena: f64,
        rate: f64,
        decision_rate: f64,
    ) -> Self {
        Self {
            left_leg: left_leg.into(),
            right_leg: right_leg.into(),
            leg_rate,
            leg_kv,
            leg_max_torque: f64::INFINITY,
            turn_gain: 1.0,
            threat: None,
            threat_radius: 0.0,
            repulsion: 0.0,
            arena,
            period: 1.0 / rate,
            decision_period: 1.0 / decision_rate,
            targets: (leg_rate, leg_rate),
            next_decision: 0,
            indices: None,
        }
    }

    /// The direction the field draws a bug at `x` (horizontal, not normalised).
    pub fn field(&self, x: &Vec3, threat: Option<&Vec3>) -> Vec3 {
        let mut direction = Vec3::new(-x.x, -x.y, 0.0) / self.arena;
        if let Some(threat) = threat {
            let away = Vec3::new(x.x - threat.x, x.y - threat.y, 0.0);
            let r = away.norm();
            if r > 0.0 && r < self.threat_radius {
                direction += away * (self.repulsion * (1.0 - r / self.threat_radius) / r);
            }
        }
        direction
    }

    fn decide(&mut self, t: f64, multibody: &Multibody, others: &Observations) {
        let body = multibody.link_model_pose(0);
        let x = body.translation.vector;
        if x.z < 0.0 {
            self.targets = (0.0, 0.0);
            return;
        }
        let threat = self
            .threat
            .as_deref()
            .and_then(|name| others.before(name, t))
            .map(|o| o.pose.translation.vector);
        let direction = self.field(&x, threat.as_ref());
        let heading = body.rotation * Vec3::x();
        let bearing = if direction.norm() > 1e-9 {
            let (h, d) = (heading.xy(), direction.xy());
            (h.x * d.y - h.y * d.x).atan2(h.dot(&d))
        } else {
            0.0
        };
        let turn = self.turn_gain * bearing;
        let (lo, hi) = (-self.leg_rate, 2.0 * self.leg_rate);
        self.targets = (
            (self.leg_rate * (1.0 - turn)).clamp(lo, hi),
            (self.leg_rate * (1.0 + turn)).clamp(lo, hi),
        );
    }
}

impl Controller for Bug {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        let legs = velocity_indices(tree, &[self.left_leg.clone(), self.right_leg.clone()])?;
        self.indices = Some((legs[0], legs[1]));
        Ok(())
    }

    fn watches(&self) -> Vec<&str> {
        self.threat.iter().map(String::as_str).collect()
    }

    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    ) {
        let Some((left, right)) = self.indices else {
            return;
        };
        if decision_due(t, self.decision_period, &mut self.next_decision) {
            self.decide(t, multibody, others);
        }
        let v = multibody.v();
        commands.forces.joint[left] =
            servo(self.leg_kv, self.leg_max_torque, v[left], self.targets.0);
        commands.forces.joint[right] =
            servo(self.leg_kv, self.leg_max_torque, v[right], self.targets.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_field_pulls_to_the_centre_and_away_from_the_rover() {
        let bug = Bug {
            threat_radius: 100.0,
            repulsion: 3.0,
            ..Bug::new("l", "r", 6.0, 1.0, 200.0, 1000.0, 100.0)
        };
        // At (100, 0) with no threat: towards −x with strength 100/200.
        let d = bug.field(&Vec3::new(100.0, 0.0, 5.0), None);
        assert!((d - Vec3::new(-0.5, 0.0, 0.0)).norm() < 1e-15);
        // The rover 50 cm to the −x side: repelled along +x by 3 (1 − 50/100) = 1.5.
        let d = bug.field(
            &Vec3::new(100.0, 0.0, 5.0),
            Some(&Vec3::new(50.0, 0.0, 7.0)),
        );
        assert!((d - Vec3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
        // Beyond the threat radius the rover is ignored.
        let d = bug.field(
            &Vec3::new(100.0, 0.0, 5.0),
            Some(&Vec3::new(-50.0, 0.0, 7.0)),
        );
        assert!((d - Vec3::new(-0.5, 0.0, 0.0)).norm() < 1e-15);
    }
}
