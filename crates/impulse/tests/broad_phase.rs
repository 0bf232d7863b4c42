//! Broad phases against brute force on random moving scenes.

use std::collections::BTreeSet;

use impulse::collision::broad::{BroadPhase, HierarchicalHash, SweepAndPrune, brute_force};
use impulse::geometry::Aabb;
use impulse::math::{Point, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

struct Mover {
    centre: Vec3,
    velocity: Vec3,
    half: Vec3,
    alive: bool,
}

fn boxes(movers: &[Mover]) -> Vec<Option<Aabb>> {
    movers
        .iter()
        .map(|m| {
            m.alive.then(|| Aabb {
                min: Point::from(m.centre - m.half),
                max: Point::from(m.centre + m.half),
            })
        })
        .collect()
}

fn exercise(broad: &mut dyn BroadPhase, seed: u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    // 300 boxes of sizes spanning two orders of magnitude in a 40-unit room; some clustered
    // on a "floor" (many equal z extents, SAP's bad case).
    let mut movers: Vec<Mover> = (0..300)
        .map(|i| {
            let size = 10f64.powf(rng.random_range(-1.0..1.0));
            let floor = i % 3 == 0;
            Mover {
                centre: Vec3::new(
                    rng.random_range(-20.0..20.0),
                    rng.random_range(-20.0..20.0),
                    if floor {
                        size / 2.0
                    } else {
                        rng.random_range(-20.0..20.0)
                    },
                ),
                velocity: Vec3::new(
                    rng.random_range(-0.3..0.3),
                    rng.random_range(-0.3..0.3),
                    if floor {
                        0.0
                    } else {
                        rng.random_range(-0.3..0.3)
                    },
                ),
                half: Vec3::new(size, size * rng.random_range(0.3..1.0), size) / 2.0,
                alive: true,
            }
        })
        .collect();
    let mut tracked: BTreeSet<(usize, usize)> = BTreeSet::new();
    for frame in 0..1000 {
        for (id, m) in movers.iter_mut().enumerate() {
            // Occasionally a body leaves or comes back.
            if rng.random_range(0.0..1.0) < 0.002 {
                m.alive = !m.alive;
                if !m.alive {
                    broad.remove(id);
                    continue;
                }
            }
            if !m.alive {
                continue;
            }
            m.centre += m.velocity;
            for k in 0..3 {
                if m.centre[k].abs() > 20.0 {
                    m.velocity[k] = -m.velocity[k];
                }
            }
            broad.set(
                id,
                Aabb {
                    min: Point::from(m.centre - m.half),
                    max: Point::from(m.centre + m.half),
                },
            );
        }
        let changes = broad.update();
        for p in &changes.added {
            assert!(tracked.insert(*p), "frame {frame}: {p:?} added twice");
        }
        for p in &changes.removed {
            assert!(
                tracked.remove(p),
                "frame {frame}: {p:?} removed but not present"
            );
        }
        let candidates: BTreeSet<_> = broad.candidates().into_iter().collect();
        assert_eq!(
            tracked, candidates,
            "frame {frame}: change stream disagrees"
        );
        let expected = brute_force(&boxes(&movers));
        assert_eq!(broad.overlapping_pairs(), expected, "frame {frame}");
        assert!(expected.iter().all(|p| broad.is_candidate(*p)));
    }
}

#[test]
fn sweep_and_prune_matches_brute_force() {
    exercise(&mut SweepAndPrune::new(), 1);
}

#[test]
fn hierarchical_hash_matches_brute_force() {
    exercise(&mut HierarchicalHash::new(), 1);
}

#[test]
fn hash_candidates_are_close_pairs_by_definition() {
    // Definition 1 (Mirtich §2.4): close iff sharing a cell at the coarser of the two levels,
    // with level ℓ the smallest with 2^ℓ ≥ the box's largest side.
    let mut rng = Pcg64::seed_from_u64(8);
    let mut hash = HierarchicalHash::new();
    let boxes: Vec<Aabb> = (0..200)
        .map(|_| {
            let c = Vec3::new(
                rng.random_range(-10.0..10.0),
                rng.random_range(-10.0..10.0),
                rng.random_range(-10.0..10.0),
            );
            let h = Vec3::repeat(10f64.powf(rng.random_range(-1.0..0.5)));
            Aabb {
                min: Point::from(c - h),
                max: Point::from(c + h),
            }
        })
        .collect();
    for (id, b) in boxes.iter().enumerate() {
        hash.set(id, *b);
    }
    hash.update();
    let level = |b: &Aabb| (b.max - b.min).max().log2().ceil() as i32;
    let cells = |b: &Aabb, l: i32| {
        let s = 2f64.powi(l);
        let lo = [0, 1, 2].map(|k| (b.min[k] / s).floor() as i64);
        let hi = [0, 1, 2].map(|k| (b.max[k] / s).floor() as i64);
        (lo, hi)
    };
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            let l = level(&boxes[i]).max(level(&boxes[j]));
            let (alo, ahi) = cells(&boxes[i], l);
            let (blo, bhi) = cells(&boxes[j], l);
            let share = (0..3).all(|k| alo[k] <= bhi[k] && blo[k] <= ahi[k]);
            assert_eq!(hash.is_candidate((i, j)), share, "pair ({i}, {j})");
        }
    }
}
