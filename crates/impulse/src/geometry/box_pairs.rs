//! Which axis-aligned boxes overlap, by a uniform grid: the candidate pairs of the mesh
//! self-intersection check.
//!
//! A sweep over boxes sorted along one axis (what the check used before) tests every pair
//! whose x-ranges overlap, which for a mesh whose triangles share x-ranges (a wall in the
//! y–z plane, a tube along x) is nearly every pair: O(n²). Here each box is entered in the
//! cells of a grid (cell edge: the boxes' mean largest extent) that it covers, and only boxes
//! sharing a cell are compared; a pair is taken in one cell only, the one holding the low
//! corner of the pair's overlap (Ericson, *Real-Time Collision Detection*, §7.1). A box
//! covering more than [`MAX_CELLS`] cells is compared with every box instead, so one huge
//! triangle cannot fill the grid.

use crate::math::Vec3;

/// Cells a box may cover before it is compared with every box instead.
const MAX_CELLS: i64 = 64;

/// Every pair of the closed `boxes` (low, high corners) that overlap, touching included, each
/// once as `(i, j)` with `i` before `j` in the order of the boxes' low x (then index), and
/// the pairs sorted.
pub(crate) fn overlapping_pairs(boxes: &[(Vec3, Vec3)]) -> Vec<(usize, usize)> {
    let Some(origin) = boxes.iter().map(|b| b.0).reduce(|a, b| a.inf(&b)) else {
        return Vec::new();
    };
    let mean_extent =
        boxes.iter().map(|(lo, hi)| (hi - lo).max()).sum::<f64>() / boxes.len() as f64;
    let cell = if mean_extent.is_finite() && mean_extent > 0.0 {
        mean_extent
    } else {
        1.0
    };
    // Cell indices saturate (`as` on a float): far-flung boxes share an end cell, still exact.
    let index = |p: &Vec3| ((p - origin) / cell).map(|c| c.floor() as i64);
    let before = |i: usize, j: usize| {
        boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j)) == std::cmp::Ordering::Less
    };
    let overlap = |i: usize, j: usize| {
        let ((lo_i, hi_i), (lo_j, hi_j)) = (boxes[i], boxes[j]);
        (0..3).all(|k| lo_j[k] <= hi_i[k] && lo_i[k] <= hi_j[k])
    };
    let ordered = |i: usize, j: usize| if before(i, j) { (i, j) } else { (j, i) };
    let mut entries: Vec<([i64; 3], usize)> = Vec::new();
    let mut large: Vec<usize> = Vec::new();
    for (i, (lo, hi)) in boxes.iter().enumerate() {
        let (a, b) = (index(lo), index(hi));
        let count = (0..3).fold(1i64, |n, k| n.saturating_mul(b[k].saturating_sub(a[k]) + 1));
        if count > MAX_CELLS {
            large.push(i);
            continue;
        }
        for x in a.x..=b.x {
            for y in a.y..=b.y {
                for z in a.z..=b.z {
                    entries.push(([x, y, z], i));
                }
            }
        }
    }
    entries.sort_unstable();
    let mut pairs = Vec::new();
    for run in entries.chunk_by(|p, q| p.0 == q.0) {
        let here = run[0].0;
        for (n, &(_, i)) in run.iter().enumerate() {
            for &(_, j) in &run[n + 1..] {
                if !overlap(i, j) {
                    continue;
                }
                let low = index(&boxes[i].0.sup(&boxes[j].0));
                if [low.x, low.y, low.z] == here {
                    pairs.push(ordered(i, j));
                }
            }
        }
    }
    let is_large = |j: usize| large.binary_search(&j).is_ok();
    for &i in &large {
        for j in 0..boxes.len() {
            if j != i && !(is_large(j) && j < i) && overlap(i, j) {
                pairs.push(ordered(i, j));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every overlapping pair by comparing all pairs: the independent answer.
    fn all_pairs(boxes: &[(Vec3, Vec3)]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let ((lo_i, hi_i), (lo_j, hi_j)) = (boxes[i], boxes[j]);
                if (0..3).all(|k| lo_j[k] <= hi_i[k] && lo_i[k] <= hi_j[k]) {
                    let first = boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j));
                    out.push(if first.is_lt() { (i, j) } else { (j, i) });
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Random boxes of mixed sizes (some huge, some flat, some touching exactly on a grid
    /// line): the grid finds exactly the pairs that comparing all pairs finds.
    #[test]
    fn the_grid_finds_the_pairs_all_pairs_find() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut unit = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for round in 0..20 {
            let count = 50 + 20 * round;
            let boxes: Vec<(Vec3, Vec3)> = (0..count)
                .map(|k| {
                    let lo = Vec3::new(unit(), unit(), unit()) * 10.0;
                    let size = match k % 7 {
                        0 => Vec3::new(8.0 * unit(), 8.0 * unit(), 8.0 * unit()),
                        1 => Vec3::new(unit(), 0.0, unit()),
                        2 => Vec3::new(0.5, 0.5, 0.5),
                        _ => Vec3::new(unit(), unit(), unit()) * 0.8,
                    };
                    // Round some corners to a coarse lattice so that boxes touch exactly.
                    let lo = if k % 3 == 0 {
                        lo.map(|c| (c * 2.0).round() / 2.0)
                    } else {
                        lo
                    };
                    (lo, lo + size)
                })
                .collect();
            assert_eq!(
                overlapping_pairs(&boxes),
                all_pairs(&boxes),
                "round {round}"
            );
        }
    }
}
