//! The hierarchical spatial hash with coherence (Mirtich §2.4, Fig. 2.12).
//!
//! Space is tiled at levels whose cells have side 2^ℓ. A box of largest side `s` belongs to the
//! level ℓ with 2^ℓ ∈ [s, 2s) — the thesis's α = ½, β = 1 — where it covers at most 2×2×2 cells
//! (eq. 2.7–2.8). Two boxes are *close* when they share a cell at the coarser of their two
//! levels (Definition 1); overlapping boxes are always close.
//!
//! In the coherence variant each box is stored in its cells at its own level and at every
//! coarser level in use. A counter per pair holds how many cells they share at the pair's
//! level; when a box moves, only the cells it enters or leaves are touched, and a counter going
//! 0 → 1 or 1 → 0 makes the pair a candidate or not.

use std::collections::BTreeMap;

use super::{BroadPhase, Changes, FastMap, Pair, net_changes, overlap, pair};
use crate::geometry::Aabb;

type Cell = (i32, [i64; 3]);

#[derive(Clone, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    aabb: Aabb,
    level: i32,
    /// Cell ranges (inclusive) at each level where the box is stored, from its own level up.
    ranges: Vec<(i32, [i64; 3], [i64; 3])>,
}

/// Mirtich's hierarchical spatial hash.
#[derive(Clone, Debug, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct HierarchicalHash {
    entries: Vec<Option<Entry>>,
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    buckets: FastMap<Cell, Vec<u32>>,
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    counters: FastMap<Pair, u32>,
    /// How many boxes sit at each level.
    levels: BTreeMap<i32, usize>,
    /// Coarsest level boxes are stored up to (never lowered).
    top: i32,
    pending: Vec<(usize, Option<Aabb>)>,
    /// Candidate-state changes during the current update.
    log: Vec<(Pair, bool)>,
    /// Emptied buckets' storage, for the next new bucket: a moving box leaves and enters
    /// cells at every impulse, and allocating a bucket each time was ~10 % of the broad phase.
    spare_buckets: Vec<Vec<u32>>,
    /// Bucket visits, a measure of work.
    visits: u64,
}

/// The level of a box: the smallest ℓ with 2^ℓ ≥ its largest side (at least −60, for tiny or
/// point boxes). Every finite box thus covers at most two cells per axis at its level. Boxes
/// must be finite (the world checks).
fn level_of(aabb: &Aabb) -> i32 {
    let size = (aabb.max - aabb.min).max();
    if size.is_nan() || size <= 0.0 {
        return -60;
    }
    // From the binary exponent: size = m·2^e with m in [1, 2); exact powers need no rounding up.
    let bits = size.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let mantissa = bits & ((1u64 << 52) - 1);
    let level = if mantissa == 0 {
        exponent
    } else {
        exponent + 1
    };
    level.clamp(-60, 1024)
}

/// 2^-level, exactly.
fn inverse_cell_size(level: i32) -> f64 {
    if level < 1023 {
        // A normal power of two: build it from its exponent bits.
        f64::from_bits(((1023 - i64::from(level)) as u64) << 52)
    } else {
        2f64.powi(-level)
    }
}

fn cell_range(aabb: &Aabb, level: i32) -> ([i64; 3], [i64; 3]) {
    // Multiplying by an exact power of two is exact, so this is floor(x / 2^level).
    let scale = inverse_cell_size(level);
    let lo = [0, 1, 2].map(|k| floor_to_i64(aabb.min[k] * scale));
    let hi = [0, 1, 2].map(|k| floor_to_i64(aabb.max[k] * scale));
    (lo, hi)
}

/// `x.floor() as i64`, without the library call `floor` is on the baseline x86-64 target
/// (a box's move computes six per level stored: 2 % of the block on the ramp's instructions).
/// The cast truncates towards zero and saturates; one down where that rounded up.
fn floor_to_i64(x: f64) -> i64 {
    let truncated = x as i64;
    if (truncated as f64) > x {
        truncated.saturating_sub(1)
    } else {
        truncated
    }
}

fn cells(level: i32, lo: [i64; 3], hi: [i64; 3]) -> impl Iterator<Item = Cell> {
    (lo[0]..=hi[0]).flat_map(move |x| {
        (lo[1]..=hi[1]).flat_map(move |y| (lo[2]..=hi[2]).map(move |z| (level, [x, y, z])))
    })
}

fn within(c: &[i64; 3], lo: &[i64; 3], hi: &[i64; 3]) -> bool {
    (0..3).all(|k| lo[k] <= c[k] && c[k] <= hi[k])
}

impl HierarchicalHash {
    /// An empty hash.
    pub fn new() -> Self {
        Self {
            top: i32::MIN,
            ..Self::default()
        }
    }

    #[cfg(any(test, feature = "internals"))]
    /// Bucket visits so far (work done).
    pub fn bucket_visits(&self) -> u64 {
        self.visits
    }

    /// Puts `id` into `cell`, counting shared cells with boxes there at the pair's level.
    fn enter(&mut self, id: usize, level: i32, cell: Cell) {
        self.visits += 1;
        let Self {
            buckets,
            entries,
            counters,
            log,
            spare_buckets,
            ..
        } = self;
        let bucket = buckets
            .entry(cell)
            .or_insert_with(|| spare_buckets.pop().unwrap_or_default());
        for &other in bucket.iter() {
            let Some(other_level) = entries[other as usize].as_ref().map(|e| e.level) else {
                continue;
            };
            if cell.0 == level.max(other_level) {
                let p = pair(id, other as usize);
                let count = counters.entry(p).or_insert(0);
                if *count == 0 {
                    log.push((p, true));
                }
                *count += 1;
            }
        }
        bucket.push(id as u32);
    }

    /// Takes `id` out of `cell`, uncounting shared cells at the pair's level.
    fn leave(&mut self, id: usize, level: i32, cell: Cell) {
        self.visits += 1;
        let Self {
            buckets,
            entries,
            counters,
            log,
            ..
        } = self;
        let Some(bucket) = buckets.get_mut(&cell) else {
            return;
        };
        bucket.retain(|&b| b != id as u32);
        for &other in bucket.iter() {
            let Some(other_level) = entries[other as usize].as_ref().map(|e| e.level) else {
                continue;
            };
            if cell.0 == level.max(other_level) {
                let p = pair(id, other as usize);
                if let Some(count) = counters.get_mut(&p) {
                    *count -= 1;
                    if *count == 0 {
                        counters.remove(&p);
                        log.push((p, false));
                    }
                }
            }
        }
        if bucket.is_empty()
            && let Some(spare) = buckets.remove(&cell)
        {
            self.spare_buckets.push(spare);
        }
    }

    fn insert_all(&mut self, id: usize, aabb: Aabb) {
        let level = level_of(&aabb);
        let mut ranges = Vec::new();
        for l in level..=self.top.max(level) {
            let (lo, hi) = cell_range(&aabb, l);
            ranges.push((l, lo, hi));
        }
        self.entries[id] = Some(Entry {
            aabb,
            level,
            ranges: Vec::new(),
        });
        *self.levels.entry(level).or_insert(0) += 1;
        for &(l, lo, hi) in &ranges {
            for cell in cells(l, lo, hi) {
                self.enter(id, level, cell);
            }
        }
        if let Some(entry) = self.entries[id].as_mut() {
            entry.ranges = ranges;
        }
    }

    fn remove_all(&mut self, id: usize) {
        let Some(entry) = self.entries[id].take() else {
            return;
        };
        for &(l, lo, hi) in &entry.ranges {
            for cell in cells(l, lo, hi) {
                self.leave(id, entry.level, cell);
            }
        }
        if let Some(count) = self.levels.get_mut(&entry.level) {
            *count -= 1;
            if *count == 0 {
                self.levels.remove(&entry.level);
            }
        }
    }

    /// Moves box `id` to `aabb`, touching only the cells it enters and leaves.
    fn move_box(&mut self, id: usize, aabb: Aabb) {
        let level = level_of(&aabb);
        let reinsert = match &self.entries[id] {
            None => true,
            Some(entry) => {
                let stored_top = entry.ranges.last().map_or(level, |r| r.0);
                level != entry.level || stored_top < self.top
            }
        };
        if reinsert {
            self.remove_all(id);
            self.insert_all(id, aabb);
            return;
        }
        // The box's own entry is out of the table while its cells change; no cell visited
        // here holds it, so nothing looks it up.
        let Some(mut entry) = self.entries[id].take() else {
            return;
        };
        for range in entry.ranges.iter_mut() {
            let (l, old_lo, old_hi) = *range;
            let (lo, hi) = cell_range(&aabb, l);
            if (lo, hi) == (old_lo, old_hi) {
                continue;
            }
            for cell in cells(l, old_lo, old_hi) {
                if !within(&cell.1, &lo, &hi) {
                    self.leave(id, level, cell);
                }
            }
            for cell in cells(l, lo, hi) {
                if !within(&cell.1, &old_lo, &old_hi) {
                    self.enter(id, level, cell);
                }
            }
            *range = (l, lo, hi);
        }
        entry.aabb = aabb;
        self.entries[id] = Some(entry);
    }
}

impl BroadPhase for HierarchicalHash {
    fn set(&mut self, id: usize, aabb: Aabb) {
        self.pending.push((id, Some(aabb)));
    }

    fn remove(&mut self, id: usize) {
        self.pending.push((id, None));
    }

    fn update(&mut self) -> Changes {
        let mut pending = std::mem::take(&mut self.pending);
        // A coarser level than any so far: every box must also be stored there.
        let new_top = pending
            .iter()
            .filter_map(|(_, a)| a.as_ref().map(level_of))
            .max()
            .unwrap_or(i32::MIN);
        if new_top > self.top {
            self.top = new_top;
            let ids: Vec<usize> = (0..self.entries.len())
                .filter(|&i| self.entries[i].is_some())
                .collect();
            for id in ids {
                if let Some(aabb) = self.entries[id].as_ref().map(|e| e.aabb) {
                    self.remove_all(id);
                    self.insert_all(id, aabb);
                }
            }
        }
        for (id, aabb) in pending.drain(..) {
            if id >= self.entries.len() {
                self.entries.resize(id + 1, None);
            }
            match aabb {
                Some(aabb) => self.move_box(id, aabb),
                None => self.remove_all(id),
            }
        }
        self.pending = pending;
        net_changes(&mut self.log)
    }

    fn is_candidate(&self, p: Pair) -> bool {
        self.counters.get(&p).is_some_and(|&c| c > 0)
    }

    fn candidates(&self) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = self.counters.keys().copied().collect();
        pairs.sort_unstable();
        pairs
    }

    fn overlapping_pairs(&self) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = self
            .counters
            .keys()
            .filter(|p| match (&self.entries[p.0], &self.entries[p.1]) {
                (Some(a), Some(b)) => overlap(&a.aabb, &b.aabb),
                _ => false,
            })
            .copied()
            .collect();
        pairs.sort_unstable();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_to_i64_is_the_library_floor_cast() {
        // The second algorithm is `f64::floor` then the saturating cast: equal everywhere,
        // including integers, both signs of zero, values just off integers, beyond 2^53 (all
        // integers), beyond i64's range, infinities and NaN.
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.0f64.powi(53) + 2.0,
            -(2.0f64.powi(60)),
            1e19,
            -1e19,
            -(2.0f64.powi(63)),
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        for k in -2000..=2000 {
            let x = f64::from(k) * 0.37;
            values.extend([x, x.next_up(), x.next_down(), f64::from(k)]);
            values.extend([f64::from(k).next_up(), f64::from(k).next_down()]);
        }
        for x in values {
            assert_eq!(floor_to_i64(x), x.floor() as i64, "x = {x:e}");
        }
    }
}
