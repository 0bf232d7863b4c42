//! Lemke's algorithm against brute-force enumeration of complementary bases on random LCPs of
//! size 1–8 (issue 35, "Evidence required"):
//!
//! - PSD matrices `J Jᵀ` (often rank-deficient) with a solution built in: always solved, never
//!   a ray (Baraff §13.2), with the one `w` every solution shares (Cottle; Baraff §8.1);
//! - P-matrices of three kinds: the solution is unique, and Lemke's equals the enumerated one
//!   to 1e-9;
//! - degenerate problems (small integers, duplicated rows, solutions with `zᵢ = wᵢ = 0`):
//!   solved without cycling, well inside the pivot limit;
//! - general matrices: a checked solution (one of the enumerated ones) or a ray satisfying
//!   Baraff eq. 13-1, and a ray whenever the oracle finds no solution.
//!
//! Tolerances: solutions are checked to 1e-9 relative to the terms forming `w`; equality with
//! the oracle to 1e-9 relative to the largest component.

use super::enumerate::{BasicSolution, basic_solutions};
use super::lemke::{LemkeOptions, Outcome, Solution, check_ray, check_solution, solve};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const TRIALS: usize = 400;

fn lemke(m: &DMatrix<f64>, q: &DVector<f64>) -> Outcome {
    solve(m, q, None, &LemkeOptions::default()).expect("finite input")
}

fn close(a: &DVector<f64>, b: &DVector<f64>) -> bool {
    let scale = a.amax().max(b.amax()).max(1e-300);
    (a - b).amax() <= 1e-9 * scale.max(1.0)
}

fn among(s: &Solution, oracle: &[BasicSolution]) -> bool {
    oracle.iter().any(|o| close(&o.z, &s.z))
}

/// A random complementary pair (z*, w*): each index has z* > 0, or w* > 0, or (a quarter of
/// the time) both zero, which makes the problem degenerate.
fn complementary_pair(rng: &mut Pcg64, n: usize, integers: bool) -> (DVector<f64>, DVector<f64>) {
    let mut z = DVector::zeros(n);
    let mut w = DVector::zeros(n);
    for i in 0..n {
        let value = if integers {
            rng.random_range(1..4) as f64
        } else {
            rng.random_range(0.1..2.0)
        };
        match rng.random_range(0..4) {
            0 | 1 => z[i] = value,
            2 => w[i] = value,
            _ => {}
        }
    }
    (z, w)
}

fn psd(rng: &mut Pcg64, n: usize, integers: bool) -> DMatrix<f64> {
    let rank = rng.random_range(1..=n);
    let j = DMatrix::from_fn(n, rank, |_, _| {
        if integers {
            rng.random_range(-2..=2) as f64
        } else {
            rng.random_range(-1.0..1.0)
        }
    });
    &j * j.transpose()
}

#[test]
fn psd_problems_are_always_solved_with_the_unique_w() {
    let mut rng = Pcg64::seed_from_u64(35);
    for trial in 0..TRIALS {
        let n = 1 + trial % 8;
        let integers = trial % 2 == 0;
        let m = psd(&mut rng, n, integers);
        let (z_star, w_star) = complementary_pair(&mut rng, n, integers);
        let q = &w_star - &m * &z_star;
        let Outcome::Solution(s) = lemke(&m, &q) else {
            panic!(
                "trial {trial}: PSD problem with a solution not solved: {:?} {m} {q}",
                lemke(&m, &q)
            );
        };
        check_solution(&m, &q, &s.z, 1e-9).expect("checked");
        // Every solution of a PSD LCP has the same w (Baraff §8.1).
        assert!(
            close(&s.w, &w_star),
            "trial {trial}: w {} vs {}",
            s.w,
            w_star
        );
        let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
        assert!(
            !oracle.is_empty(),
            "trial {trial}: a PSD LCP with a solution has a basic one"
        );
        assert!(
            among(&s, &oracle),
            "trial {trial}: Lemke's solution is basic"
        );
        for o in &oracle {
            assert!(close(&o.w, &w_star), "trial {trial}: all solutions share w");
        }
        assert!(s.pivots <= 4 * n + 2, "trial {trial}: {} pivots", s.pivots);
    }
}

/// P-matrices: S + K (S positive definite, K skew: positive definite, not symmetric); a
/// permuted triangular matrix with positive diagonal and large off-diagonal entries (all
/// principal minors are products of diagonal entries; not positive definite); and a row
/// diagonally dominant matrix with positive diagonal.
fn p_matrix(rng: &mut Pcg64, n: usize, kind: usize) -> DMatrix<f64> {
    match kind {
        0 => {
            let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
            let k = DMatrix::from_fn(n, n, |_, _| rng.random_range(-2.0..2.0));
            &a * a.transpose() + DMatrix::identity(n, n) * 0.1 + (&k - k.transpose())
        }
        1 => {
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, rng.random_range(0..=i));
            }
            let t = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
                std::cmp::Ordering::Equal => rng.random_range(0.2..2.0),
                std::cmp::Ordering::Greater => rng.random_range(-3.0..3.0),
                std::cmp::Ordering::Less => 0.0,
            });
            DMatrix::from_fn(n, n, |i, j| t[(perm[i], perm[j])])
        }
        _ => {
            let mut m: DMatrix<f64> = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
            for i in 0..n {
                let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
                m[(i, i)] = off + rng.random_range(0.1..1.0);
            }
            m
        }
    }
}

#[test]
fn p_matrix_problems_have_the_unique_enumerated_solution() {
    let mut rng = Pcg64::seed_from_u64(36);
    for trial in 0..TRIALS {
        let n = 1 + trial % 8;
        let m = p_matrix(&mut rng, n, trial % 3);
        let q = DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0));
        let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
        assert_eq!(
            oracle.len(),
            1,
            "trial {trial}: a P-matrix LCP has one solution"
        );
        let Outcome::Solution(s) = lemke(&m, &q) else {
            panic!("trial {trial}: P-matrix problem not solved");
        };
        assert!(
            close(&s.z, &oracle[0].z),
            "trial {trial}: {} vs {}",
            s.z,
            oracle[0].z
        );
    }
}

/// Degenerate problems that make an unguarded ratio test cycle: integer PSD matrices with
/// duplicated rows (two contacts measuring the same motion, as coplanar corners do) and
/// right-hand sides with many ties. Solved, checked, and in few pivots.
#[test]
fn degenerate_problems_are_solved_without_cycling() {
    let mut rng = Pcg64::seed_from_u64(37);
    for trial in 0..TRIALS {
        let n = 2 + trial % 7;
        let rank = rng.random_range(1..=(n / 2).max(1));
        let base = DMatrix::from_fn(rank, 3, |_, _| rng.random_range(-1..=1) as f64);
        // Rows of J repeat rows of the base (duplicated constraints).
        let j = DMatrix::from_fn(n, 3, |i, c| base[(i % rank, c)]);
        let m = &j * j.transpose();
        let (z_star, w_star) = complementary_pair(&mut rng, n, true);
        let q = &w_star - &m * &z_star;
        let Outcome::Solution(s) = lemke(&m, &q) else {
            panic!("trial {trial}: degenerate PSD problem not solved");
        };
        assert!(close(&s.w, &w_star));
        assert!(s.pivots <= 4 * n + 2, "trial {trial}: {} pivots", s.pivots);
    }
    // A fully degenerate one: q = 0 except one entry, M all ones (rank 1).
    for n in 2..=8 {
        let m = DMatrix::from_element(n, n, 1.0);
        let mut q = DVector::zeros(n);
        q[n - 1] = -1.0;
        let Outcome::Solution(s) = lemke(&m, &q) else {
            panic!("all-ones problem not solved");
        };
        assert!((s.z.sum() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn general_problems_end_in_a_checked_solution_or_a_valid_ray() {
    let mut rng = Pcg64::seed_from_u64(38);
    let (mut solutions, mut rays, mut rays_with_solutions) = (0, 0, 0);
    for trial in 0..TRIALS {
        let n = 1 + trial % 8;
        let m = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        let q = DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0));
        let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
        match lemke(&m, &q) {
            Outcome::Solution(s) => {
                check_solution(&m, &q, &s.z, 1e-9).expect("checked");
                assert!(
                    among(&s, &oracle),
                    "trial {trial}: Lemke's solution is basic"
                );
                solutions += 1;
            }
            Outcome::Ray(r) => {
                check_ray(&m, &r.direction, 1e-9).expect("ray conditions (13-1)");
                // The ray's own conditions (B-3): w along it stays non-negative.
                assert!(r.z0 > 0.0 && r.direction_z0 >= 0.0);
                rays += 1;
                if !oracle.is_empty() {
                    rays_with_solutions += 1;
                }
            }
            other => panic!("trial {trial}: {other:?}"),
        }
        if oracle.is_empty() {
            assert!(matches!(lemke(&m, &q), Outcome::Ray(_)));
        }
    }
    // Both outcomes occur on these problems (seed 38: printed for the record).
    eprintln!(
        "general LCPs: {solutions} solved, {rays} rays ({rays_with_solutions} with a solution Lemke missed)"
    );
    assert!(solutions > 0 && rays > 0);
}

/// Warm starts on PSD problems: after a small change of q, the previous basis, when it still
/// fits, gives the same w as a cold solve (w is unique for PSD), to 1e-9.
#[test]
fn warm_starts_give_the_cold_w_on_psd_problems() {
    let mut rng = Pcg64::seed_from_u64(39);
    let (mut warm, mut rejected) = (0, 0);
    for trial in 0..TRIALS {
        let n = 1 + trial % 8;
        let m = psd(&mut rng, n, trial % 2 == 0);
        let (z_star, w_star) = complementary_pair(&mut rng, n, false);
        let q = &w_star - &m * &z_star;
        let Outcome::Solution(first) = lemke(&m, &q) else {
            panic!("not solved");
        };
        // A nearby problem with a solution: move the built-in solution a little.
        let dz = DVector::from_fn(n, |i, _| {
            if z_star[i] > 0.0 {
                rng.random_range(-0.05..0.05)
            } else {
                0.0
            }
        });
        let dw = DVector::from_fn(n, |i, _| {
            if w_star[i] > 0.0 {
                rng.random_range(-0.05..0.05)
            } else {
                0.0
            }
        });
        let w2 = &w_star + dw;
        let q2 = &w2 - &m * (&z_star + dz);
        let options = LemkeOptions::default();
        let Outcome::Solution(again) = solve(&m, &q2, Some(&first.basis), &options).unwrap() else {
            panic!("not solved");
        };
        let Outcome::Solution(cold) = lemke(&m, &q2) else {
            panic!("not solved");
        };
        assert!(close(&again.w, &cold.w), "trial {trial}");
        assert!(close(&again.w, &w2), "trial {trial}");
        match again.start {
            super::lemke::Start::Warm => warm += 1,
            _ => rejected += 1,
        }
    }
    eprintln!("warm starts: {warm} kept, {rejected} rejected");
    assert!(warm > TRIALS / 2);
}
