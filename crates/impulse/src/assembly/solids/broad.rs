//! The broad phase of an assembly among solids: sweep and prune over axis-aligned boxes
//! around each solid, so that only pairs whose boxes overlap go to the narrow phase.
//!
//! Each solid is bounded by the sphere of its reach about its body's centre (a fixed solid's
//! about its frame; a half-space by everything), boxed and grown on every side by how far any
//! of its points can move over the span looked at (its speed bound times the span) and by half
//! the distance that matters, plus a hair (`SLACK`) for rounding. Two boxes apart along an axis
//! by more than their growths mean the solids' distance stays above that distance over the
//! whole span (the shapes lie inside the spheres, and a gap between the spheres' boxes along an
//! axis is a lower bound on the spheres' distance), so the narrow phase, asked, would have
//! found them apart: the pair is left out with the same outcome. The boxes are sorted by
//! their lower x (sweep and prune), and each is tested along y and z against the boxes still
//! open along x.

use crate::collision::Convex;
use crate::math::Vec3;

use super::super::Assembly;
use super::AssemblyWithSolids;

/// Extra growth of every box, in envelopes: rounding in the boxes cannot drop a pair that the
/// narrow phase would have kept.
const SLACK: f64 = 1e-6;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    low: Vec3,
    high: Vec3,
}

impl Bounds {
    fn overlaps_across(&self, other: &Bounds) -> bool {
        (1..3).all(|k| self.low[k] <= other.high[k] && other.low[k] <= self.high[k])
    }
}

impl AssemblyWithSolids {
    /// Which pairs may come within `distance` over the span from `from` (whose state is given)
    /// to `to` (the span's end state; `None`: the instant `from` alone): one flag per pair.
    pub(super) fn candidates(
        &self,
        from: &Assembly,
        to: Option<&Assembly>,
        span: f64,
        distance: f64,
    ) -> Vec<bool> {
        if !self.broad_phase {
            return vec![true; self.pairs.len()];
        }
        let grow = 0.5 * distance + SLACK * self.settings.envelope;
        let boxes: Vec<Bounds> = (0..self.solids.len())
            .map(|s| {
                let unbounded = self.models[s]
                    .parts
                    .iter()
                    .any(|p| matches!(p.convex, Convex::HalfSpace));
                if unbounded {
                    return Bounds {
                        low: Vec3::repeat(f64::NEG_INFINITY),
                        high: Vec3::repeat(f64::INFINITY),
                    };
                }
                let centre = self.pose_in(from, s).translation.vector;
                let motion = to.map_or(0.0, |to| self.speed_bound(s, from, to) * span);
                let r = Vec3::repeat(self.reach[s] + motion + grow);
                Bounds {
                    low: centre - r,
                    high: centre + r,
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..boxes.len()).collect();
        order.sort_by(|&i, &k| boxes[i].low.x.total_cmp(&boxes[k].low.x).then(i.cmp(&k)));
        let mut flags = vec![false; self.pairs.len()];
        let mut open: Vec<usize> = Vec::new();
        for &s in &order {
            open.retain(|&o| boxes[o].high.x >= boxes[s].low.x);
            for &o in &open {
                if boxes[s].overlaps_across(&boxes[o]) {
                    let p = self.pair_index[s.min(o) * self.solids.len() + s.max(o)];
                    if p != usize::MAX {
                        flags[p] = true;
                    }
                }
            }
            open.push(s);
        }
        flags
    }
}
