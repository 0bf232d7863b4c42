//! The collision heap (Mirtich §2.3): a priority queue of timed events whose times can change.
//!
//! Each pair of bodies near enough to collide has one entry, keyed by a lower bound on its time
//! of impact; the simulation advances to the earliest entry, checks that pair, and gives it a
//! new time. Other events (controller updates, box refreshes) share the queue. Entries are found
//! by key through an index, so changing a time costs O(log n). Ties are broken by the key, so
//! the order of events is deterministic.

use super::broad::FastMap;
use std::hash::Hash;

/// A binary min-heap of `(time, key)` with one entry per key.
///
/// Each key holds a slot while it has an entry; the slot records where the entry sits in the
/// heap, so that moving entries while sifting costs no hashing (only `set` of a new key and
/// `remove` touch the key → slot map).
#[derive(Clone, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "K: serde::Serialize + Ord + Eq + Hash",
    deserialize = "K: serde::Deserialize<'de> + Eq + Hash"
))]
pub struct EventHeap<K> {
    /// `(time, key, slot)`, in heap order.
    entries: Vec<(f64, K, u32)>,
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    slot_of: FastMap<K, u32>,
    /// Position in `entries` of each slot's entry.
    position: Vec<usize>,
    /// Slots free for new keys.
    free: Vec<u32>,
}

impl<K> Default for EventHeap<K> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            slot_of: FastMap::default(),
            position: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<K: Copy + Ord + Hash> EventHeap<K> {
    /// An empty heap.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(any(test, feature = "internals"))]
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `key` has an entry.
    pub fn contains(&self, key: &K) -> bool {
        self.slot_of.contains_key(key)
    }

    #[cfg(any(test, feature = "internals"))]
    /// The time of `key`'s entry.
    pub fn time_of(&self, key: &K) -> Option<f64> {
        self.slot_of
            .get(key)
            .map(|&s| self.entries[self.position[s as usize]].0)
    }

    /// The earliest entry.
    pub fn peek(&self) -> Option<(f64, K)> {
        self.entries.first().map(|&(t, k, _)| (t, k))
    }

    /// Inserts `key` at `time`, or moves its entry there.
    pub fn set(&mut self, key: K, time: f64) {
        match self.slot_of.get(&key) {
            Some(&slot) => {
                let i = self.position[slot as usize];
                let old = self.entries[i].0;
                self.entries[i].0 = time;
                if Self::less(&self.entries[i], &(old, key, slot)) {
                    self.sift_up(i);
                } else {
                    self.sift_down(i);
                }
            }
            None => {
                let slot = self.free.pop().unwrap_or_else(|| {
                    self.position.push(0);
                    (self.position.len() - 1) as u32
                });
                self.slot_of.insert(key, slot);
                let i = self.entries.len();
                self.entries.push((time, key, slot));
                self.position[slot as usize] = i;
                self.sift_up(i);
            }
        }
    }

    /// Removes and returns the earliest entry.
    pub fn pop(&mut self) -> Option<(f64, K)> {
        let (time, key, _) = *self.entries.first()?;
        self.remove(&key);
        Some((time, key))
    }

    /// Removes `key`'s entry, returning its time.
    pub fn remove(&mut self, key: &K) -> Option<f64> {
        let slot = self.slot_of.remove(key)?;
        self.free.push(slot);
        let i = self.position[slot as usize];
        let time = self.entries[i].0;
        let last = self.entries.len() - 1;
        if i != last {
            self.swap(i, last);
        }
        self.entries.pop();
        if i < self.entries.len() {
            self.sift_down(i);
            self.sift_up(i);
        }
        Some(time)
    }

    #[cfg(any(test, feature = "internals"))]
    /// All keys, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(_, k, _)| k)
    }

    /// Earlier time first, ties by key: the order of events is deterministic.
    fn less(a: &(f64, K, u32), b: &(f64, K, u32)) -> bool {
        a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.entries.swap(i, j);
        self.position[self.entries[i].2 as usize] = i;
        self.position[self.entries[j].2 as usize] = j;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if Self::less(&self.entries[i], &self.entries[parent]) {
                self.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut smallest = i;
            if l < self.entries.len() && Self::less(&self.entries[l], &self.entries[smallest]) {
                smallest = l;
            }
            if r < self.entries.len() && Self::less(&self.entries[r], &self.entries[smallest]) {
                smallest = r;
            }
            if smallest == i {
                break;
            }
            self.swap(i, smallest);
            i = smallest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn matches_a_sorted_reference_under_random_operations() {
        // A linear-congruential sequence drives sets, removals and pops; a BTreeMap of key →
        // time is the reference.
        let mut heap = EventHeap::new();
        let mut reference: BTreeMap<u32, f64> = BTreeMap::new();
        let mut state: u64 = 12345;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for _ in 0..20_000 {
            let op = next() % 10;
            let key = next() % 200;
            match op {
                0..=5 => {
                    let time = (next() % 1000) as f64 / 7.0;
                    heap.set(key, time);
                    reference.insert(key, time);
                }
                6 | 7 => {
                    assert_eq!(heap.remove(&key), reference.remove(&key));
                }
                _ => {
                    let expected = reference
                        .iter()
                        .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(b.0)))
                        .map(|(k, t)| (*t, *k));
                    assert_eq!(heap.pop(), expected);
                    if let Some((_, k)) = expected {
                        reference.remove(&k);
                    }
                }
            }
            assert_eq!(heap.len(), reference.len());
        }
    }
}
