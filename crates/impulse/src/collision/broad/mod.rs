//! Broad phases: which pairs of bodies are near enough to check.
//!
//! Each body has an axis-aligned box (for moving bodies, the box swept over the coming interval,
//! Mirtich §2.4). A broad phase keeps the set of *candidate* pairs up to date as boxes change and
//! reports pairs that start or stop being candidates. Two implementations share the
//! [`BroadPhase`] interface:
//!
//! - [`SweepAndPrune`] (Baraff §5.3): sorted box endpoints on three axes, re-sorted by insertion
//!   sort; a swap of two boxes' endpoints is the only way their overlap can change. Candidates
//!   are exactly the overlapping boxes.
//! - [`HierarchicalHash`] (Mirtich §2.4): boxes hashed into grids of cells whose sizes go in
//!   powers of two, each box at the level whose cell size matches it; counters of shared cells
//!   say which pairs are close. Candidates are the close pairs, a superset of the overlapping
//!   ones; [`BroadPhase::overlapping_pairs`] filters them.

mod hash;
mod sap;

pub use hash::HierarchicalHash;
pub use sap::SweepAndPrune;

use crate::geometry::Aabb;

/// An unordered pair of box ids, smaller first.
pub type Pair = (usize, usize);

/// Orders a pair.
pub fn pair(a: usize, b: usize) -> Pair {
    (a.min(b), a.max(b))
}

/// Candidate pairs that appeared and disappeared in an update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Pairs that became candidates.
    pub added: Vec<Pair>,
    /// Pairs that stopped being candidates.
    pub removed: Vec<Pair>,
}

/// Closed boxes overlap (touching counts).
pub fn overlap(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k])
}

/// A broad phase over boxes identified by small integers.
pub trait BroadPhase {
    /// Sets (inserting if new) the box of `id`. Takes effect at the next [`update`](Self::update).
    fn set(&mut self, id: usize, aabb: Aabb);
    /// Removes `id` and all its pairs. Takes effect at the next update.
    fn remove(&mut self, id: usize);
    /// Brings the candidate pairs up to date with the boxes set since the last update.
    fn update(&mut self) -> Changes;
    /// Whether `pair` is a candidate (as of the last update).
    fn is_candidate(&self, pair: Pair) -> bool;
    /// The candidate pairs, sorted.
    fn candidates(&self) -> Vec<Pair>;
    /// The pairs whose boxes overlap, sorted (as of the last update).
    fn overlapping_pairs(&self) -> Vec<Pair>;
}

/// Every overlapping pair by testing all of them: the reference the others must match.
pub fn brute_force(boxes: &[Option<Aabb>]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for i in 0..boxes.len() {
        let Some(a) = &boxes[i] else { continue };
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            if let Some(b) = b
                && overlap(a, b)
            {
                pairs.push((i, j));
            }
        }
    }
    pairs
}
