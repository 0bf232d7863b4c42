//! Sweep and prune with insertion-sort coherence (Baraff §5.3).
//!
//! Per axis, the boxes' minimum and maximum coordinates are kept in one sorted list. When boxes
//! move, each list is re-sorted by insertion sort, which costs O(n + s) for s swaps and is fast
//! because boxes move little between updates. Two boxes' overlap can only change when one's
//! endpoint passes the other's: a minimum moving below a maximum may start an overlap (then the
//! full three-axis test decides), a maximum moving below a minimum ends one.

use super::{BroadPhase, Changes, FastSet, Pair, net_changes, overlap, pair};
use crate::geometry::Aabb;

#[derive(Clone, Copy, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
struct Endpoint {
    value: f64,
    id: u32,
    is_max: bool,
}

impl Endpoint {
    /// Sort order: by value, minimums before maximums at equal values (touching boxes overlap).
    fn before(&self, other: &Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max && other.is_max)
    }
}

/// Three-axis sweep and prune.
#[derive(Clone, Debug, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    /// Per box: index of its [min, max] endpoint in each axis list.
    positions: Vec<[[usize; 2]; 3]>,
    boxes: Vec<Option<Aabb>>,
    pending_removals: Vec<usize>,
    /// Boxes inserted since the last update.
    inserted: usize,
    #[serde(serialize_with = "crate::collision::broad::sorted::set")]
    pairs: FastSet<Pair>,
    /// Candidate-state changes during the current update.
    log: Vec<(Pair, bool)>,
}

impl SweepAndPrune {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    fn set_state(&mut self, p: Pair, candidate: bool) {
        let changed = if candidate {
            self.pairs.insert(p)
        } else {
            self.pairs.remove(&p)
        };
        if changed {
            self.log.push((p, candidate));
        }
    }

    /// Insertion sort of one axis, reporting overlap changes at swaps.
    fn sort_axis(&mut self, axis: usize) {
        for i in 1..self.axes[axis].len() {
            let mut j = i;
            while j > 0 && self.axes[axis][j].before(&self.axes[axis][j - 1]) {
                let (moving, passed) = (self.axes[axis][j], self.axes[axis][j - 1]);
                if moving.id != passed.id {
                    let p = pair(moving.id as usize, passed.id as usize);
                    if !moving.is_max && passed.is_max {
                        // A minimum passes below a maximum: the boxes may now overlap.
                        if let (Some(a), Some(b)) = (&self.boxes[p.0], &self.boxes[p.1])
                            && overlap(a, b)
                        {
                            self.set_state(p, true);
                        }
                    } else if moving.is_max && !passed.is_max {
                        // A maximum passes below a minimum: they no longer overlap.
                        self.set_state(p, false);
                    }
                }
                self.axes[axis].swap(j, j - 1);
                self.positions[moving.id as usize][axis][usize::from(moving.is_max)] = j - 1;
                self.positions[passed.id as usize][axis][usize::from(passed.is_max)] = j;
                j -= 1;
            }
        }
    }
}

impl SweepAndPrune {
    /// Sorts every axis from scratch (O(n log n)) and recomputes the overlapping pairs with a
    /// sweep along x.
    fn rebuild(&mut self) {
        for axis in 0..3 {
            let list = &mut self.axes[axis];
            list.sort_by(|a, b| {
                a.value
                    .total_cmp(&b.value)
                    .then(a.is_max.cmp(&b.is_max))
                    .then(a.id.cmp(&b.id))
            });
            for (k, e) in list.iter().enumerate() {
                self.positions[e.id as usize][axis][usize::from(e.is_max)] = k;
            }
        }
        let mut found: Vec<Pair> = Vec::new();
        let mut active: Vec<u32> = Vec::new();
        for e in &self.axes[0] {
            if e.is_max {
                active.retain(|&id| id != e.id);
                continue;
            }
            for &other in &active {
                let p = pair(e.id as usize, other as usize);
                if let (Some(a), Some(b)) = (&self.boxes[p.0], &self.boxes[p.1])
                    && overlap(a, b)
                {
                    found.push(p);
                }
            }
            active.push(e.id);
        }
        let old: Vec<Pair> = self.pairs.iter().copied().collect();
        let new: FastSet<Pair> = found.into_iter().collect();
        for p in old {
            if !new.contains(&p) {
                self.set_state(p, false);
            }
        }
        for p in new {
            self.set_state(p, true);
        }
    }
}

impl BroadPhase for SweepAndPrune {
    fn set(&mut self, id: usize, aabb: Aabb) {
        if id >= self.boxes.len() {
            self.boxes.resize(id + 1, None);
            self.positions.resize(id + 1, [[usize::MAX; 2]; 3]);
        }
        if self.boxes[id].is_none() {
            self.inserted += 1;
            // Enter from +∞ so that the sort sees every endpoint the box passes.
            for axis in 0..3 {
                for is_max in [false, true] {
                    self.positions[id][axis][usize::from(is_max)] = self.axes[axis].len();
                    self.axes[axis].push(Endpoint {
                        value: f64::INFINITY,
                        id: id as u32,
                        is_max,
                    });
                }
            }
        }
        self.boxes[id] = Some(aabb);
        for axis in 0..3 {
            let [lo, hi] = self.positions[id][axis];
            self.axes[axis][lo].value = aabb.min[axis];
            self.axes[axis][hi].value = aabb.max[axis];
        }
    }

    fn remove(&mut self, id: usize) {
        self.pending_removals.push(id);
    }

    fn update(&mut self) -> Changes {
        for id in std::mem::take(&mut self.pending_removals) {
            if !self.boxes.get(id).is_some_and(Option::is_some) {
                continue;
            }
            self.boxes[id] = None;
            for axis in 0..3 {
                self.axes[axis].retain(|e| e.id != id as u32);
                for (k, e) in self.axes[axis].iter().enumerate() {
                    self.positions[e.id as usize][axis][usize::from(e.is_max)] = k;
                }
            }
            let gone: Vec<Pair> = self
                .pairs
                .iter()
                .filter(|p| p.0 == id || p.1 == id)
                .copied()
                .collect();
            for p in gone {
                self.set_state(p, false);
            }
        }
        // Insertion sort is O(n²) when many boxes arrive at once (loading a scene): then sort
        // from scratch and find the overlaps with one sweep instead.
        let live = self.boxes.iter().filter(|b| b.is_some()).count();
        if self.inserted > 64 && 8 * self.inserted > live {
            self.rebuild();
        } else {
            for axis in 0..3 {
                self.sort_axis(axis);
            }
        }
        self.inserted = 0;
        net_changes(&mut self.log)
    }

    fn is_candidate(&self, p: Pair) -> bool {
        self.pairs.contains(&p)
    }

    fn candidates(&self) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = self.pairs.iter().copied().collect();
        pairs.sort_unstable();
        pairs
    }

    fn overlapping_pairs(&self) -> Vec<Pair> {
        self.candidates()
    }
}
