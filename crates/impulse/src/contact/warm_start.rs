//! Warm starts: the impulses a pair's contact points took at its last solve.

use crate::math::{Point, Vec3};

/// The impulses a pair's contact points took at its last cluster solve (world frame, on the
/// pair's first collider), to start the next solve from: a resting pile takes much the same
/// impulses hop after hop, and its sweeps then settle sooner.
#[derive(Clone, Debug, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct WarmStart {
    pub(crate) time: f64,
    pub(crate) points: Vec<(Point, Vec3)>,
}

impl WarmStart {
    /// The impulse last taken near `point`: at the stored point within `WARM_REACH` envelopes
    /// of it, if the solve was no more than `WARM_HOPS` hops before `t`.
    pub(crate) fn impulse_at(&self, point: &Point, t: f64, epsilon: f64, hop: f64) -> Option<Vec3> {
        if t - self.time > WARM_HOPS * hop {
            return None;
        }
        self.points
            .iter()
            .map(|(p, impulse)| ((p - point).norm_squared(), impulse))
            .filter(|(d2, _)| *d2 <= (WARM_REACH * epsilon).powi(2))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, impulse)| *impulse)
    }
}

const WARM_HOPS: f64 = 4.0;
const WARM_REACH: f64 = 10.0;
