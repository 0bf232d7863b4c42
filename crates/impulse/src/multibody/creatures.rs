//! The creature war's controllers (Mirtich §7.3, Figs. 7.23–7.27; digest S18): a wheeled rover
//! that hunts bugs and pushes them off the edge of the world, and bugs that walk on two
//! rotating legs, drawn to the middle of the world and away from the rover.
//!
//! Both drive their wheels or legs with velocity servos (`τ = −k_v (q̇ − q̇_des)`, clamped)
//! updated at the controller's rate, and take their high-level decisions less often (the
//! thesis: servos at 1–2 kHz, decisions at 100 Hz). What they know of each other is what
//! [`Observations`] shows: the other's base link as of its latest controller update.

use super::control::{Commands, Controller, JointTarget, Observations, resolve_coordinate};
use super::{Multibody, Tree};
use crate::math::Vec3;

/// A velocity servo on one joint coordinate: `τ = −k_v (q̇ − q̇_des)`, clamped to ±`max`.
fn servo(kv: f64, max: f64, rate: f64, target: f64) -> f64 {
    (-kv * (rate - target)).clamp(-max, max)
}

/// Resolves joint names to their `(q index, v index)`.
fn coordinates(tree: &Tree, joints: &[String]) -> Result<Vec<(usize, usize)>, String> {
    joints
        .iter()
        .map(|joint| {
            resolve_coordinate(
                tree,
                &JointTarget {
                    joint: joint.clone(),
                    coordinate: 0,
                },
            )
        })
        .collect()
}

/// Resolves joint names to their velocity indices.
fn velocity_indices(tree: &Tree, joints: &[String]) -> Result<Vec<usize>, String> {
    Ok(coordinates(tree, joints)?
        .into_iter()
        .map(|(_, v)| v)
        .collect())
}

/// Whether a decision falls due at `t`: decisions are taken at `k · period` (computed, never
/// accumulated), at the first update at or after each.
fn decision_due(t: f64, period: f64, next: &mut u64) -> bool {
    // Updates land on multiples of the servo period, so compare with a relative margin.
    if t + 1e-9 * period < *next as f64 * period {
        return false;
    }
    *next = (t / period + 1e-9).floor() as u64 + 1;
    true
}

/// The rover's modes (Fig. 7.26).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoverMode {
    /// Drive at the prey, steering by its bearing.
    Forward,
    /// Turn on the spot towards the prey.
    Spin,
    /// Rear jacked up, pushing the prey towards the edge.
    Push,
    /// Back away.
    Reverse,
    /// Stop, choose the next prey, lower the rear.
    Pick,
    /// Every prey has fallen off: stop.
    Done,
}

/// The rover's controller (Fig. 7.27): wheel-velocity servos, rear pistons on PD servos
/// that jack the rear up while pushing, and the state machine that hunts each prey in turn.
/// Angles in the rules are degrees, as in the thesis's code; lengths and speeds in the
/// scene's units (the thesis's constants are in cm).
#[derive(Clone, Debug, PartialEq)]
pub struct Rover {
    /// Left and right wheel joints (revolute, positive rate rolls forward).
    pub left_wheels: Vec<String>,
    pub right_wheels: Vec<String>,
    /// Wheel radius: wheel rates are ground speeds over it.
    pub wheel_radius: f64,
    /// Wheel servo gain and torque limit.
    pub wheel_kv: f64,
    pub wheel_max_torque: f64,
    /// Cruising ground speed `v_max`.
    pub speed: f64,
    /// Rear piston joints (prismatic), their PD gains and force limit, and the position they
    /// are driven to while pushing. Released (springs only) otherwise.
    pub pistons: Vec<String>,
    pub piston_kp: f64,
    pub piston_kv: f64,
    pub piston_max_force: f64,
    pub jack: f64,
    /// The multibodies to hunt, in order.
    pub prey: Vec<String>,
    /// Half-width of the square world `|x|, |y| ≤ arena`.
    pub arena: f64,
    /// Range at which the rover jacks up and pushes (thesis: 50).
    pub push_distance: f64,
    /// Deceleration of a pushed prey once let go: it is predicted to slide on by
    /// `|v|² / (2 a)` (thesis: `|v|²/300`, a = 150).
    pub prey_deceleration: f64,
    /// Reversing speed (along the chassis's −x) at which backing off counts as done
    /// (thesis: 5).
    pub reverse_speed: f64,
    /// Servo and decision periods.
    pub period: f64,
    pub decision_period: f64,
    /// Current mode and prey.
    pub mode: RoverMode,
    pub current: usize,
    /// Prey pushed off the world so far.
    pub kills: u32,
    jacked: bool,
    /// Wheel rate targets (left, right).
    targets: (f64, f64),
    next_decision: u64,
    indices: Option<RoverIndices>,
}

#[derive(Clone, Debug, PartialEq)]
struct RoverIndices {
    left: Vec<usize>,
    right: Vec<usize>,
    pistons: Vec<(usize, usize)>,
}

impl Rover {
    /// A rover controller with the thesis's constants for the rules and the given hardware.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left_wheels: Vec<String>,
        right_wheels: Vec<String>,
        wheel_radius: f64,
        wheel_kv: f64,
        speed: f64,
        prey: Vec<String>,
        arena: f64,
        rate: f64,
        decision_rate: f64,
    ) -> Self {
        Self {
            left_wheels,
            right_wheels,
            wheel_radius,
            wheel_kv,
            wheel_max_torque: f64::INFINITY,
            speed,
            pistons: Vec::new(),
            piston_kp: 0.0,
            piston_kv: 0.0,
            piston_max_force: f64::INFINITY,
            jack: 0.0,
            prey,
            arena,
            push_distance: 50.0,
            prey_deceleration: 150.0,
            reverse_speed: 5.0,
            period: 1.0 / rate,
            decision_period: 1.0 / decision_rate,
            mode: RoverMode::Forward,
            current: 0,
            kills: 0,
            jacked: false,
            targets: (0.0, 0.0),
            next_decision: 0,
            indices: None,
        }
    }

    /// One decision of the state machine (Fig. 7.27), setting the wheel speeds.
    fn decide(&mut self, t: f64, multibody: &Multibody, others: &Observations) {
        let chassis = multibody.link_model_pose(0);
        let (velocity, angular_velocity) = multibody.link_velocity(0);
        let dead = |name: &str| {
            others
                .before(name, t)
                .is_some_and(|o| o.pose.translation.z < 0.0)
        };
        // A prey never observed yet counts as alive (it is observed from t = 0 on).
        if self.mode != RoverMode::Done && self.prey.iter().all(|p| dead(p)) {
            self.mode = RoverMode::Done;
        }
        if self.mode == RoverMode::Done || self.prey.is_empty() {
            self.jacked = false;
            self.targets = (0.0, 0.0);
            return;
        }
        let name = self.prey[self.current].clone();
        let Some(prey) = others.before(&name, t) else {
            return; // not observed yet: hold
        };
        let p = prey.pose.translation.vector;
        let offset = p - chassis.translation.vector;
        let goal = chassis.rotation.inverse() * offset.normalize();
        let bearing = goal.y.atan2(goal.x).to_degrees();
        let inc = 90.0 - goal.z.clamp(-1.0, 1.0).acos().to_degrees();
        let spin = angular_velocity.z; // yaw rate
        let distance = offset.xy().norm();
        let vmax = self.speed;
        let steer = vmax * (0.04 * bearing - 0.15 * spin);
        let forward = (vmax - steer, vmax + steer);
        let is_dead = dead(&name);
        let (left, right) = match self.mode {
            RoverMode::Forward => {
                if is_dead {
                    self.mode = RoverMode::Pick;
                } else if inc < -20.0 {
                    self.mode = RoverMode::Reverse;
                } else if bearing.abs() > 60.0 {
                    self.mode = RoverMode::Spin;
                } else if distance < self.push_distance && bearing.abs() < 25.0 {
                    self.jacked = true;
                    self.mode = RoverMode::Push;
                }
                forward
            }
            RoverMode::Spin => {
                if inc < -20.0 {
                    self.mode = RoverMode::Reverse;
                } else if bearing.abs() < 20.0 {
                    self.mode = RoverMode::Forward;
                }
                (-steer, steer)
            }
            RoverMode::Push => {
                // Where the prey would come to rest if let go now.
                let speed = prey.velocity.norm();
                let slide = if speed > 0.0 {
                    prey.velocity * (speed / (2.0 * self.prey_deceleration))
                } else {
                    Vec3::zeros()
                };
                let predicted = p + slide;
                let over = predicted.x.abs() > self.arena || predicted.y.abs() > self.arena;
                if over || bearing.abs() > 25.0 || inc < -20.0 {
                    self.mode = RoverMode::Reverse;
                }
                forward
            }
            RoverMode::Reverse => {
                // Backed off once reversing and level again. A prey that has fallen off
                // lies below the edge, so its elevation stays low: then speed alone will do.
                let backing = (chassis.rotation.inverse() * velocity).x;
                if backing < -self.reverse_speed && (inc > -10.0 || is_dead) {
                    self.mode = RoverMode::Pick;
                }
                (-2.0 * vmax, -2.0 * vmax)
            }
            RoverMode::Pick => {
                if is_dead {
                    self.kills += 1;
                    let n = self.prey.len();
                    if let Some(next) = (1..=n)
                        .map(|k| (self.current + k) % n)
                        .find(|&i| !dead(&self.prey[i]))
                    {
                        self.current = next;
                    }
                }
                self.jacked = false;
                self.mode = RoverMode::Forward;
                (0.0, 0.0)
            }
            RoverMode::Done => (0.0, 0.0),
        };
        self.targets = (left / self.wheel_radius, right / self.wheel_radius);
    }
}

impl Controller for Rover {
    fn period(&self) -> f64 {
        self.period
    }

    fn bind(&mut self, tree: &Tree) -> Result<(), String> {
        let pistons = coordinates(tree, &self.pistons)?;
        self.indices = Some(RoverIndices {
            left: velocity_indices(tree, &self.left_wheels)?,
            right: velocity_indices(tree, &self.right_wheels)?,
            pistons,
        });
        Ok(())
    }

    fn watches(&self) -> Vec<&str> {
        self.prey.iter().map(String::as_str).collect()
    }

    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    ) {
        if self.indices.is_none() {
            return;
        }
        if decision_due(t, self.decision_period, &mut self.next_decision) {
            self.decide(t, multibody, others);
        }
        let Some(indices) = &self.indices else { return };
        let (v, q) = (multibody.v(), multibody.q());
        for (wheels, target) in [
            (&indices.left, self.targets.0),
            (&indices.right, self.targets.1),
        ] {
            for &i in wheels {
                commands.forces.joint[i] =
                    servo(self.wheel_kv, self.wheel_max_torque, v[i], target);
            }
        }
        for &(qi, vi) in &indices.pistons {
            commands.forces.joint[vi] = if self.jacked {
                (-self.piston_kp * (q[qi] - self.jack) - self.piston_kv * v[vi])
                    .clamp(-self.piston_max_force, self.piston_max_force)
            } else {
                0.0
            };
        }
    }
}

/// A bug's controller (§7.3): two legs turned by velocity servos, steered by turning them at
/// different rates towards a potential field's direction — drawn to the world's centre
/// (`−x / arena`, stronger farther out) and, within `threat_radius` of the rover, pushed
/// away from it (`repulsion · (1 − r / threat_radius)` along the line from the rover). A bug
/// whose body has fallen below z = 0 has left the world and stops.
#[derive(Clone, Debug, PartialEq)]
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
    fn decisions_fall_on_their_own_period() {
        // Servo updates every 1 ms, decisions every 10 ms: due at 0, 10, 20 ms only.
        let mut next = 0;
        let due: Vec<usize> = (0..35)
            .filter(|&k| decision_due(k as f64 * 1e-3, 1e-2, &mut next))
            .collect();
        assert_eq!(due, vec![0, 10, 20, 30]);
    }

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
