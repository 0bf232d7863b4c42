//! Sweep and prune with insertion-sort coherence (Baraff §5.3).
//!
//! Per axis, the boxes' minimum and maximum coordinates are kept in one sorted list. When boxes
//! move, each list is re-sorted by insertion sort, which costs O(n + s) for s swaps and is fast
//! because boxes move little between updates. Two boxes' overlap can only change when one's
//! endpoint passes the other's: a minimum moving below a maximum may start an overlap (then the
//! full three-axis test decides), a maximum moving below a minimum ends one.

use std::collections::{BTreeSet, HashMap};

use super::{BroadPhase, Changes, Pair, overlap, pair};
use crate::geometry::Aabb;

#[derive(Clone, Copy, Debug)]
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
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    /// Per box: index of its [min, max] endpoint in each axis list.
    positions: Vec<[[usize; 2]; 3]>,
    boxes: Vec<Option<Aabb>>,
    pending_removals: Vec<usize>,
    pairs: BTreeSet<Pair>,
    /// Pairs touched during the current update, with their state before it.
    touched: HashMap<Pair, bool>,
}

impl SweepAndPrune {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    fn set_state(&mut self, p: Pair, candidate: bool) {
        let before = self.pairs.contains(&p);
        self.touched.entry(p).or_insert(before);
        if candidate {
            self.pairs.insert(p);
        } else {
            self.pairs.remove(&p);
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

impl BroadPhase for SweepAndPrune {
    fn set(&mut self, id: usize, aabb: Aabb) {
        if id >= self.boxes.len() {
            self.boxes.resize(id + 1, None);
            self.positions.resize(id + 1, [[usize::MAX; 2]; 3]);
        }
        if self.boxes[id].is_none() {
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
        for axis in 0..3 {
            self.sort_axis(axis);
        }
        let mut changes = Changes::default();
        for (p, before) in self.touched.drain() {
            match (before, self.pairs.contains(&p)) {
                (false, true) => changes.added.push(p),
                (true, false) => changes.removed.push(p),
                _ => {}
            }
        }
        changes.added.sort_unstable();
        changes.removed.sort_unstable();
        changes
    }

    fn is_candidate(&self, p: Pair) -> bool {
        self.pairs.contains(&p)
    }

    fn candidates(&self) -> Vec<Pair> {
        self.pairs.iter().copied().collect()
    }

    fn overlapping_pairs(&self) -> Vec<Pair> {
        self.candidates()
    }
}
