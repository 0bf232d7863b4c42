//! The thesis's demonstration controllers (Mirtich §7.3), kept apart from the engine's control
//! laws: they script the behaviour of the example scenes rather than offer a general law.
//!
//! - The creature war (Figs. 7.23–7.27; digest S18): a wheeled [`Rover`] that hunts bugs and
//!   pushes them off the edge of the world, and [`Bug`]s that walk on two rotating legs, drawn
//!   to the middle of the world and away from the rover. Both drive their wheels or legs with
//!   velocity servos (`τ = −k_v (q̇ − q̇_des)`, clamped) updated at the controller's rate, and
//!   take their high-level decisions less often (the thesis: servos at 1–2 kHz, decisions at
//!   100 Hz). What they know of each other is what [`Observations`] shows: the other's base
//!   link as of its latest controller update.
//! - The furniture's wine bottle: a [`Hop`] that throws a resting free body onto a landing
//!   point (the table).
//!
//! [`Observations`]: crate::multibody::Observations

mod bug;
mod hop;
mod rover;

pub use bug::Bug;
pub use hop::Hop;
pub use rover::{Rover, RoverMode};

use crate::control::targets::{JointTarget, resolve_coordinate};
use crate::multibody::Tree;

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
}
