//! Known-answer LCPs (`next-capabilities.md` §1.3: Drake's `unrevised_lemke_solver_test.cc` and
//! `moby_lcp_solver_test.cc`, the LCP handbook problems they cite, Siconos's data files,
//! DART's 1-D case, QuantEcon's regression #768), bad input, and warm starts.
//!
//! Every solution returned is also checked by `check_solution` against `M` and `q`, and every
//! ray by `check_ray` (Baraff eq. 13-1); the expected values come from the cited suites, or
//! from the enumeration oracle where a suite gives none.

use super::*;
use crate::lcp::enumerate::basic_solutions;

fn matrix(rows: &[&[f64]]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), rows.len(), |i, j| rows[i][j])
}

fn vector(v: &[f64]) -> DVector<f64> {
    DVector::from_column_slice(v)
}

fn solved(m: &DMatrix<f64>, q: &DVector<f64>) -> Solution {
    match solve(m, q, None, &LemkeOptions::default()) {
        Ok(Outcome::Solution(s)) => {
            // Independent check of the answer against the problem itself.
            check_solution(m, q, &s.z, 1e-9).expect("solution checks");
            s
        }
        other => panic!("expected a solution, got {other:?}"),
    }
}

fn rayed(m: &DMatrix<f64>, q: &DVector<f64>) -> Ray {
    match solve(m, q, None, &LemkeOptions::default()) {
        Ok(Outcome::Ray(r)) => {
            check_ray(m, &r.direction, 1e-9).expect("ray conditions (13-1) hold");
            r
        }
        other => panic!("expected a ray, got {other:?}"),
    }
}

fn assert_close(a: &DVector<f64>, b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for i in 0..b.len() {
        assert!(
            (a[i] - b[i]).abs() <= tol * b[i].abs().max(1.0),
            "component {i}: {} vs {}",
            a[i],
            b[i]
        );
    }
}

/// Drake `testCottle` = LCP handbook problem 10.2.3: z = (0, 1, 3).
#[test]
fn cottle_handbook_problem_3() {
    let m = matrix(&[&[0.0, -1.0, 2.0], &[2.0, 0.0, -2.0], &[-1.0, 1.0, 0.0]]);
    let q = vector(&[-3.0, 6.0, -1.0]);
    assert_close(&solved(&m, &q).z, &[0.0, 1.0, 3.0], 1e-12);
}

/// Drake `testCycling`: a degenerate problem that cycles without an anti-cycling rule;
/// z = (1/3, 1/3, 1/3).
#[test]
fn drake_cycling_problem() {
    let m = matrix(&[&[1.0, 2.0, 0.0], &[0.0, 1.0, 2.0], &[2.0, 0.0, 1.0]]);
    let q = vector(&[-1.0, -1.0, -1.0]);
    let s = solved(&m, &q);
    assert_close(&s.z, &[1.0 / 3.0; 3], 1e-12);
}

/// Drake `testTrivial`: M = diag(1..9), q = −1 gives zᵢ = 1/i; with M[0][8] = 10 the first
/// component drops to 0 (w₀ = 10/9 − 1 > 0).
#[test]
fn drake_trivial_problems() {
    let mut m = DMatrix::from_diagonal(&DVector::from_fn(9, |i, _| (i + 1) as f64));
    let q = DVector::from_element(9, -1.0);
    let expected: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
    assert_close(&solved(&m, &q).z, &expected, 1e-12);
    m[(0, 8)] = 10.0;
    let mut expected = expected;
    expected[0] = 0.0;
    let s = solved(&m, &q);
    assert_close(&s.z, &expected, 1e-12);
    assert!((s.w[0] - 1.0 / 9.0).abs() < 1e-12);
}

/// Drake Problem1 = LCP handbook 10.2.1 (Murty's family: 1 on the diagonal, 2 above, q = −1):
/// the unique solution is the last unit vector.
#[test]
fn murty_upper_triangular_16() {
    let n = 16;
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    let q = DVector::from_element(n, -1.0);
    let mut expected = vec![0.0; n];
    expected[n - 1] = 1.0;
    assert_close(&solved(&m, &q).z, &expected, 1e-12);
}

/// Siconos `lcp_exp_murty` and `lcp_exp_murty2` (1 on the diagonal, 2 below): a P-matrix, so
/// the solution is unique; the expected value is the enumeration oracle's (for the first,
/// z = e₁ by hand: w₁ = z₁ − 1 = 0, the rest positive).
#[test]
fn siconos_murty_lower_triangular() {
    let n = 6;
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 2.0,
        std::cmp::Ordering::Less => 0.0,
    });
    let q = DVector::from_element(n, -1.0);
    assert_close(&solved(&m, &q).z, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
    let q2 = vector(&[-126.0, -124.0, -120.0, -112.0, -96.0, -64.0]);
    let oracle = basic_solutions(&m, &q2, 1e-9).unwrap();
    assert_eq!(oracle.len(), 1, "a P-matrix has one solution");
    let s = solved(&m, &q2);
    assert!((&s.z - &oracle[0].z).amax() <= 1e-9 * oracle[0].z.amax());
}

/// Drake Problem2 = Siconos `lcp_CPS_1`: M = [[1,1],[1,1]], q = (−1,−1); every z ≥ 0 with
/// z₁ + z₂ = 1 solves it (Cottle–Pang–Stone Remark 4.1.14).
#[test]
fn singular_psd_2x2_has_a_line_of_solutions() {
    let m = matrix(&[&[1.0, 1.0], &[1.0, 1.0]]);
    let q = vector(&[-1.0, -1.0]);
    let s = solved(&m, &q);
    assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-12);
    assert!(s.w.amax() < 1e-12);
}

/// Siconos `lcp_CPS_5`: M = [[1,−1],[−1,1]], q = (1,−1): w₁ + w₂ = 0 forces both to zero,
/// so the solutions are z = (t, 1 + t), t ≥ 0.
#[test]
fn siconos_cps_5() {
    let m = matrix(&[&[1.0, -1.0], &[-1.0, 1.0]]);
    let q = vector(&[1.0, -1.0]);
    let s = solved(&m, &q);
    assert!((s.z[1] - s.z[0] - 1.0).abs() < 1e-12);
}

/// Siconos `lcp_deudeu`: M = [[2,1],[1,2]], q = (−5,−6): z = (4/3, 7/3), w = 0.
#[test]
fn siconos_deudeu() {
    let m = matrix(&[&[2.0, 1.0], &[1.0, 2.0]]);
    let q = vector(&[-5.0, -6.0]);
    assert_close(&solved(&m, &q).z, &[4.0 / 3.0, 7.0 / 3.0], 1e-12);
}

/// Siconos `lcp_CPS_2` (the transpose of handbook 10.2.3): the oracle's solution.
#[test]
fn siconos_cps_2() {
    let m = matrix(&[&[0.0, 2.0, -1.0], &[-1.0, 0.0, 1.0], &[2.0, -2.0, 0.0]]);
    let q = vector(&[-3.0, 6.0, -1.0]);
    let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
    assert!(!oracle.is_empty());
    let s = solved(&m, &q);
    assert!(
        oracle.iter().any(|o| (&o.z - &s.z).amax() < 1e-9),
        "Lemke's solution is one of the enumerated basic solutions"
    );
}

/// Drake Problem6 = handbook 10.2.9 with parameter λ: z = ((λ+16)/13, (λ+16)/13,
/// 2(23−λ)/13, (1286−9λ)/13) for λ ∈ [0, 23], and (3, 3, 0, 83) for λ = 100.
#[test]
fn handbook_problem_6_family() {
    let m = matrix(&[
        &[11.0, 0.0, 10.0, -1.0],
        &[0.0, 11.0, 10.0, -1.0],
        &[10.0, 10.0, 21.0, -1.0],
        &[1.0, 1.0, 1.0, 0.0],
    ]);
    for lambda in [0.0, 5.0, 10.0, 17.5, 23.0] {
        let q = vector(&[50.0, 50.0, lambda, -6.0]);
        let a = (lambda + 16.0) / 13.0;
        let expected = [
            a,
            a,
            2.0 * (23.0 - lambda) / 13.0,
            (1286.0 - 9.0 * lambda) / 13.0,
        ];
        assert_close(&solved(&m, &q).z, &expected, 1e-10);
    }
    let q = vector(&[50.0, 50.0, 100.0, -6.0]);
    assert_close(&solved(&m, &q).z, &[3.0, 3.0, 0.0, 83.0], 1e-10);
}

/// Siconos `lcp_CPS_4` (the same matrix with the last row and column negated, q₃ = 10): its
/// last row reads w₄ = −(z₁ + z₂ + z₃) − 6 < 0, so no solution exists and Lemke must end on a
/// ray; the oracle agrees (no basic solution).
#[test]
fn siconos_cps_4_is_infeasible_and_ends_on_a_ray() {
    let m = matrix(&[
        &[11.0, 0.0, 10.0, 1.0],
        &[0.0, 11.0, 10.0, 1.0],
        &[10.0, 10.0, 21.0, 1.0],
        &[-1.0, -1.0, -1.0, 0.0],
    ]);
    let q = vector(&[50.0, 50.0, 10.0, -6.0]);
    assert!(basic_solutions(&m, &q, 1e-9).unwrap().is_empty());
    rayed(&m, &q);
}

/// Drake Problem4 = handbook 10.2.4 (a bimatrix game, M = [[0, A],[Bᵀ, 0]], q = −1): Lemke
/// with covering vector 1 is expected to fail there (Drake asserts failure) although the LCP
/// has the solution (1/90, 2/45, 1/90, 2/45). We end on a ray that satisfies (13-1), and
/// the oracle confirms the solution exists.
#[test]
fn bimatrix_game_ends_on_a_valid_ray() {
    let m = matrix(&[
        &[0.0, 0.0, 10.0, 20.0],
        &[0.0, 0.0, 30.0, 15.0],
        &[10.0, 20.0, 0.0, 0.0],
        &[30.0, 15.0, 0.0, 0.0],
    ]);
    let q = DVector::from_element(4, -1.0);
    let expected = [1.0 / 90.0, 2.0 / 45.0, 1.0 / 90.0, 2.0 / 45.0];
    let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
    assert!(
        oracle
            .iter()
            .any(|o| (0..4).all(|i| (o.z[i] - expected[i]).abs() < 1e-12))
    );
    rayed(&m, &q);
}

/// Drake `testFailure`: M = [−1], q = [−1] has no solution; the ray is zʰ = 1 with
/// M zʰ = −1 ≤ 0.
#[test]
fn one_dimensional_failure_is_a_ray() {
    let r = rayed(&matrix(&[&[-1.0]]), &vector(&[-1.0]));
    assert_eq!(r.direction[0], 1.0);
    assert_eq!(r.response[0], -1.0);
}

/// DART #802/#803: M = [1], q = [−9.8] must give z = 9.8 (and q ≥ 0 gives z = 0).
#[test]
fn one_dimensional_cases() {
    let s = solved(&matrix(&[&[1.0]]), &vector(&[-9.8]));
    assert!((s.z[0] - 9.8).abs() < 1e-14);
    let s = solved(&matrix(&[&[1.0]]), &vector(&[9.8]));
    assert_eq!(s.z[0], 0.0);
    assert_eq!(s.pivots, 0);
    // The empty problem.
    let s = solved(&DMatrix::zeros(0, 0), &DVector::zeros(0));
    assert!(s.z.is_empty());
}

/// QuantEcon.py #768: n = 10, `np.random.RandomState(0)`, A ~ N(0,1), M = AᵀA + I,
/// q ~ N(0,1) (data generated with numpy 2.4). QuantEcon returned z₉ = −0.40; the unique
/// solution (M is PD) has z = (0, 0.00678811, 0.21519076, 0, 0.00566765, 0, 0,
/// 0.22242982, 0, 0) (numpy brute force, 8 digits), and our oracle agrees to 1e-9.
#[test]
fn quantecon_768_regression() {
    #[rustfmt::skip]
    let rows: [[f64; 10]; 10] = [
        [15.079620520683928, -0.7588375341688077, 2.4892310992071276, 6.226877812941374, -3.634213375433848, -0.5858875984734764, 2.3027516046735923, -1.9620819402001883, -0.27051001805957076, -4.033565431226998],
        [-0.7588375341688077, 8.463181245701474, 5.066411145833949, -3.116005603934799, 5.222009698030128, 2.6182567328090456, 6.401406923270508, 0.7663931099517257, 2.7923236812471917, 1.3599005389882441],
        [2.4892310992071276, 5.066411145833949, 9.46446055841348, 0.16213559994202908, 6.401976351363778, -0.9934524725205766, 4.002392106912802, -3.7623327078666695, 4.794452417374814, 2.4351972180025294],
        [6.226877812941374, -3.116005603934799, 0.16213559994202908, 23.528902603672122, -0.4587145665122164, -3.4232508573165776, -0.5937038688190743, 0.4891593602556318, 0.7568301882041792, -1.0485889437081701],
        [-3.634213375433848, 5.222009698030128, 6.401976351363778, -0.4587145665122164, 12.7534063506294, -2.0947259890142393, 3.8684201784689938, -1.4038234804581067, 2.565731896321015, 5.69097960558504],
        [-0.5858875984734764, 2.6182567328090456, -0.9934524725205766, -3.4232508573165776, -2.0947259890142393, 9.305446603032413, 3.766717152618356, 1.459842059035009, -3.0116027875425826, -0.708860638299879],
        [2.3027516046735923, 6.401406923270508, 4.002392106912802, -0.5937038688190743, 3.8684201784689938, 3.766717152618356, 12.030035887283656, -0.3772369253500747, 2.432511001772941, 0.16532236629713887],
        [-1.9620819402001883, 0.7663931099517257, -3.7623327078666695, 0.4891593602556318, -1.4038234804581067, 1.459842059035009, -0.3772369253500747, 7.012675232475296, -2.0681215562426516, -0.2808607290811541],
        [-0.27051001805957076, 2.7923236812471917, 4.794452417374814, 0.7568301882041792, 2.565731896321015, -3.0116027875425826, 2.432511001772941, -2.0681215562426516, 8.698003639552848, 1.490288996659641],
        [-4.033565431226998, 1.3599005389882441, 2.4351972180025294, -1.0485889437081701, 5.69097960558504, -0.708860638299879, 0.16532236629713887, -0.2808607290811541, 1.490288996659641, 5.604629152265849],
    ];
    let m = DMatrix::from_fn(10, 10, |i, j| rows[i][j]);
    let q = vector(&[
        1.8831506970562544,
        -1.3477590611424464,
        -1.2704849984857336,
        0.9693967081580112,
        -1.17312340511416,
        1.9436211856492926,
        -0.41361898075974735,
        -0.7474548114407578,
        1.9229420264803847,
        1.4805147914344243,
    ]);
    let s = solved(&m, &q);
    let numpy = [
        0.0, 0.00678811, 0.21519076, 0.0, 0.00566765, 0.0, 0.0, 0.22242982, 0.0, 0.0,
    ];
    for (i, expected) in numpy.iter().enumerate() {
        assert!((s.z[i] - expected).abs() < 1e-8, "z[{i}] = {}", s.z[i]);
    }
    let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
    assert_eq!(oracle.len(), 1);
    assert!((&s.z - &oracle[0].z).amax() < 1e-9);
}

#[test]
fn non_finite_and_mis_sized_input_is_refused_by_name() {
    let mut m = DMatrix::identity(3, 3);
    let q = DVector::from_element(3, -1.0);
    let o = LemkeOptions::default();
    m[(1, 2)] = f64::NAN;
    assert_eq!(
        solve(&m, &q, None, &o),
        Err(LcpError::NonFinite {
            what: "M",
            row: 1,
            column: 2
        })
    );
    let m = DMatrix::identity(3, 3);
    let mut bad_q = q.clone();
    bad_q[2] = f64::INFINITY;
    assert_eq!(
        solve(&m, &bad_q, None, &o),
        Err(LcpError::NonFinite {
            what: "q",
            row: 2,
            column: 0
        })
    );
    assert!(matches!(
        solve(&m, &DVector::zeros(2), None, &o),
        Err(LcpError::Dimension { what: "q", .. })
    ));
    assert!(matches!(
        solve(&DMatrix::zeros(3, 2), &q, None, &o),
        Err(LcpError::Dimension { .. })
    ));
    let bad_cover = LemkeOptions {
        covering: Some(DVector::from_vec(vec![1.0, 0.0, 1.0])),
        ..LemkeOptions::default()
    };
    assert_eq!(
        solve(&m, &q, None, &bad_cover),
        Err(LcpError::CoveringNotPositive { index: 1 })
    );
    assert!(matches!(
        solve(&m, &q, Some(&Basis::all_w(2)), &o),
        Err(LcpError::Dimension {
            what: "warm-start basis",
            ..
        })
    ));
    // Huge but finite entries are scaled, not refused.
    let big = DMatrix::identity(2, 2) * 1e300;
    let s = solved(&big, &vector(&[-1e300, 1.0]));
    assert!((s.z[0] - 1.0).abs() < 1e-12);
}

/// A warm start from the last basis is one linear solve and gives the same solution; a basis
/// that no longer fits is rejected and a cold run finds the answer.
#[test]
fn warm_start_reuses_a_feasible_basis_and_rejects_a_stale_one() {
    let m = matrix(&[&[2.0, 1.0], &[1.0, 2.0]]);
    let q = vector(&[-5.0, -6.0]);
    let cold = solved(&m, &q);
    assert_eq!(cold.start, Start::Cold);
    let warm = match solve(&m, &q, Some(&cold.basis), &LemkeOptions::default()).unwrap() {
        Outcome::Solution(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(warm.start, Start::Warm);
    assert_eq!(warm.pivots, 0);
    assert!((&warm.z - &cold.z).amax() < 1e-14);
    // q₁ turns positive: z = (2.5, 0) with w₂ = 2.5 − ... the old basis {1,2} gives z₂ < 0.
    let q = vector(&[-5.0, 6.0]);
    let s = match solve(&m, &q, Some(&cold.basis), &LemkeOptions::default()).unwrap() {
        Outcome::Solution(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(s.start, Start::WarmRejected);
    assert_close(&s.z, &[2.5, 0.0], 1e-14);
    assert!((s.w[1] - 8.5).abs() < 1e-14);
}

#[test]
fn pivot_limit_is_reported() {
    // Murty's lower-triangular family needs 2ⁿ − 1 pivots for q = −(2ⁿ⁺¹ − 2ᵏ) (lcp_exp_murty2).
    let n = 6;
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 2.0,
        std::cmp::Ordering::Less => 0.0,
    });
    let q = vector(&[-126.0, -124.0, -120.0, -112.0, -96.0, -64.0]);
    let full = solved(&m, &q);
    let limited = LemkeOptions {
        max_pivots: Some(full.pivots - 1),
        ..LemkeOptions::default()
    };
    assert_eq!(
        solve(&m, &q, None, &limited).unwrap(),
        Outcome::PivotLimit {
            pivots: full.pivots - 1
        }
    );
}
