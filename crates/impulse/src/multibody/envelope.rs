//! Motion envelopes: bounds on each link's centre, velocity and angular speed over an interval,
//! built from sampled states and widened by the largest change between neighbouring samples.

use super::spatial::{angular, linear};
use super::tree::Workspace;
use crate::math::Vec3;

/// Bounds on one link's motion over an interval (world frame).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkEnvelope {
    /// Corners of the box holding the centre of mass.
    pub center_min: Vec3,
    pub center_max: Vec3,
    /// Per-axis bounds on the centre of mass's velocity.
    pub velocity_min: Vec3,
    pub velocity_max: Vec3,
    /// Bound on the angular speed.
    pub angular_speed: f64,
}

/// Bounds on every link's motion from `start` to `end`, if nothing (an impulse) interrupts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MotionEnvelope {
    /// Start of the interval (the multibody's time when the envelope was made).
    pub start: f64,
    /// End of the interval: the requested time, the next controller update, or where the
    /// integration could not go on, whichever comes first.
    pub end: f64,
    /// Per link.
    pub links: Vec<LinkEnvelope>,
}

/// Samples per integration step when bounding link motion.
pub(crate) const ENVELOPE_SAMPLES: usize = 8;

/// Accumulates sampled states of several bodies (a multibody's links, a constraint group's
/// members) into [`LinkEnvelope`]s, each widened by the largest change between neighbouring
/// samples (what the motion between samples may add).
pub(crate) struct EnvelopeBuilder {
    links: Vec<LinkEnvelope>,
    /// Largest change between consecutive samples: centre, velocity (per axis), angular speed.
    jumps: Vec<(Vec3, Vec3, f64)>,
    last: Vec<Option<(Vec3, Vec3, f64)>>,
}

impl EnvelopeBuilder {
    pub(crate) fn new(n: usize) -> Self {
        let empty = LinkEnvelope {
            center_min: Vec3::repeat(f64::INFINITY),
            center_max: Vec3::repeat(f64::NEG_INFINITY),
            velocity_min: Vec3::repeat(f64::INFINITY),
            velocity_max: Vec3::repeat(f64::NEG_INFINITY),
            angular_speed: 0.0,
        };
        Self {
            links: vec![empty; n],
            jumps: vec![(Vec3::zeros(), Vec3::zeros(), 0.0); n],
            last: vec![None; n],
        }
    }

    pub(super) fn add(&mut self, ws: &Workspace) {
        for i in 0..self.links.len() {
            let e = ws.x_world[i].rotation;
            let center = ws.x_world[i].translation;
            let velocity = e.tr_mul(&linear(&ws.velocity[i]));
            let spin = angular(&ws.velocity[i]).norm();
            self.sample(i, center, velocity, spin);
        }
    }

    /// Adds body `i`'s centre, centre velocity and angular speed at one sample.
    pub(crate) fn sample(&mut self, i: usize, center: Vec3, velocity: Vec3, spin: f64) {
        let link = &mut self.links[i];
        link.center_min = link.center_min.inf(&center);
        link.center_max = link.center_max.sup(&center);
        link.velocity_min = link.velocity_min.inf(&velocity);
        link.velocity_max = link.velocity_max.sup(&velocity);
        link.angular_speed = link.angular_speed.max(spin);
        if let Some((c, v, w)) = self.last[i] {
            let jump = &mut self.jumps[i];
            jump.0 = jump.0.sup(&(center - c).abs());
            jump.1 = jump.1.sup(&(velocity - v).abs());
            jump.2 = jump.2.max((spin - w).abs());
        }
        self.last[i] = Some((center, velocity, spin));
    }

    pub(crate) fn finish(self) -> Vec<LinkEnvelope> {
        self.links
            .into_iter()
            .zip(self.jumps)
            .map(|(link, (dc, dv, dw))| LinkEnvelope {
                center_min: link.center_min - dc,
                center_max: link.center_max + dc,
                velocity_min: link.velocity_min - dv,
                velocity_max: link.velocity_max + dv,
                angular_speed: link.angular_speed + dw,
            })
            .collect()
    }
}
