//! The creature war's rover (Mirtich Figs. 7.26–7.27).

use super::{coordinates, decision_due, servo, velocity_indices};
use crate::math::Vec3;
use crate::multibody::{Commands, Controller, Multibody, Observations, Tree};

/// The rover's modes (Fig. 7.26).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
