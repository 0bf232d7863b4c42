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

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::geometry::Aabb;

/// A fast, deterministic hasher for small integer keys (FxHash's rotate-multiply combining with
/// a Murmur3 finaliser). Deterministic hashing also makes map iteration order reproducible run
/// to run.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.hash = (self.hash.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn write_i32(&mut self, value: i32) {
        self.write_u64(value as u32 as u64);
    }

    fn write_i64(&mut self, value: i64) {
        self.write_u64(value as u64);
    }

    fn finish(&self) -> u64 {
        // Murmur3's 64-bit finaliser: spreads grid coordinates over all bits (hashbrown picks
        // buckets from the high bits, which rotate-multiply alone leaves clustered).
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A hash map with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

/// `serde(serialize_with)` for hash maps and sets in a world's saved state: written in key
/// order, so that the bytes depend on the contents only (a map read back holds the same
/// entries in another internal order; nothing in the engine depends on that order).
pub(crate) mod sorted {
    use std::collections::{HashMap, HashSet};

    use serde::{Serialize, Serializer};

    /// A map, by key.
    pub(crate) fn map<K: Ord + Serialize, V: Serialize, H, S: Serializer>(
        map: &HashMap<K, V, H>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&K, &V)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        serializer.collect_map(entries)
    }

    /// A set, in order.
    pub(crate) fn set<K: Ord + Serialize, H, S: Serializer>(
        set: &HashSet<K, H>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut keys: Vec<&K> = set.iter().collect();
        keys.sort_unstable();
        serializer.collect_seq(keys)
    }
}

/// Candidate-state changes logged during an update, reduced to net changes: a pair's first log
/// entry tells its state before, its last the state after.
fn net_changes(log: &mut Vec<(Pair, bool)>) -> Changes {
    log.sort_by_key(|(p, _)| *p);
    let mut changes = Changes::default();
    let mut i = 0;
    while i < log.len() {
        let p = log[i].0;
        let before = !log[i].1;
        let mut j = i;
        while j + 1 < log.len() && log[j + 1].0 == p {
            j += 1;
        }
        let after = log[j].1;
        match (before, after) {
            (false, true) => changes.added.push(p),
            (true, false) => changes.removed.push(p),
            _ => {}
        }
        i = j + 1;
    }
    log.clear();
    changes
}

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

/// A broad phase over boxes identified by small integers. (`remove`, `candidates` and
/// `overlapping_pairs` serve the tests and benchmarks.)
#[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
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

/// One of the broad phases, by value: the world keeps its own as this, so that a checkpoint
/// can save it (a boxed trait object could not be read back).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum AnyBroadPhase {
    /// [`HierarchicalHash`].
    Hash(HierarchicalHash),
    /// [`SweepAndPrune`].
    SweepAndPrune(SweepAndPrune),
}

impl AnyBroadPhase {
    fn inner(&self) -> &dyn BroadPhase {
        match self {
            Self::Hash(b) => b,
            Self::SweepAndPrune(b) => b,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn BroadPhase {
        match self {
            Self::Hash(b) => b,
            Self::SweepAndPrune(b) => b,
        }
    }
}

impl BroadPhase for AnyBroadPhase {
    fn set(&mut self, id: usize, aabb: Aabb) {
        self.inner_mut().set(id, aabb);
    }
    fn remove(&mut self, id: usize) {
        self.inner_mut().remove(id);
    }
    fn update(&mut self) -> Changes {
        self.inner_mut().update()
    }
    fn is_candidate(&self, pair: Pair) -> bool {
        self.inner().is_candidate(pair)
    }
    fn candidates(&self) -> Vec<Pair> {
        self.inner().candidates()
    }
    fn overlapping_pairs(&self) -> Vec<Pair> {
        self.inner().overlapping_pairs()
    }
}

#[cfg(any(test, feature = "internals"))]
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
