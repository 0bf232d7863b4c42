//! The natural cubic spline through values at increasing knots, for any value that can be
//! added and scaled (a number, a point): the second derivatives at the knots from the
//! tridiagonal system, and value, first and second derivative at any parameter. Beyond the end
//! knots the spline continues as straight lines along its end tangents; the natural end
//! conditions (second derivative zero at the ends) make that C².
//!
//! Used by the curves through points (`curve`, chord-length knots) and by the time tables of
//! drivers and trajectories (`profile`, `path`, knots the given times).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// What a spline can interpolate.
pub trait Knot:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
    + Neg<Output = Self>
{
}

impl<T> Knot for T where
    T: Copy
        + Add<Output = T>
        + Sub<Output = T>
        + Mul<f64, Output = T>
        + Div<f64, Output = T>
        + Neg<Output = T>
{
}

/// The second derivatives M at the knots of the natural cubic spline through `points` at
/// `knots` (at least two, strictly increasing), `zero` the zero value.
pub(crate) fn natural_second<T: Knot>(knots: &[f64], points: &[T], zero: T) -> Vec<T> {
    let n = points.len();
    // Natural cubic spline (M₀ = M_{n−1} = 0):
    // h_{i−1} M_{i−1} + 2 (h_{i−1} + h_i) M_i + h_i M_{i+1}
    //   = 6 ((P_{i+1} − P_i)/h_i − (P_i − P_{i−1})/h_{i−1}), solved by the Thomas algorithm
    // (the system is strictly diagonally dominant).
    let mut second = vec![zero; n];
    if n > 2 {
        let h: Vec<f64> = (0..n - 1).map(|i| knots[i + 1] - knots[i]).collect();
        let m = n - 2;
        let mut diag = vec![0.0; m];
        let mut rhs = vec![zero; m];
        let mut upper = vec![0.0; m];
        for k in 0..m {
            let i = k + 1;
            diag[k] = 2.0 * (h[i - 1] + h[i]);
            upper[k] = h[i];
            rhs[k] =
                ((points[i + 1] - points[i]) / h[i] - (points[i] - points[i - 1]) / h[i - 1]) * 6.0;
        }
        for k in 1..m {
            let w = h[k] / diag[k - 1];
            diag[k] -= w * upper[k - 1];
            rhs[k] = rhs[k] - rhs[k - 1] * w;
        }
        second[m] = rhs[m - 1] / diag[m - 1];
        for k in (0..m - 1).rev() {
            second[k + 1] = (rhs[k] - second[k + 2] * upper[k]) / diag[k];
        }
    }
    second
}

/// `(r, r', r'')` at parameter u of the spline through `points` at `knots` with second
/// derivatives `second` (from [`natural_second`]); straight on beyond the ends.
pub(crate) fn natural_at<T: Knot>(
    knots: &[f64],
    points: &[T],
    second: &[T],
    u: f64,
    zero: T,
) -> (T, T, T) {
    let n = points.len();
    let (first, last) = (knots[0], knots[n - 1]);
    if u < first || u > last {
        // Straight on from the nearer end, along its tangent.
        let end = if u < first { first } else { last };
        let (r, r1, _) = natural_at(knots, points, second, end, zero);
        return (r + r1 * (u - end), r1, zero);
    }
    // The segment [knots[i], knots[i + 1]] holding u (the last one for u = last).
    let i = knots.partition_point(|&k| k <= u).clamp(1, n - 1) - 1;
    let h = knots[i + 1] - knots[i];
    let (a, b) = (knots[i + 1] - u, u - knots[i]);
    let (m0, m1) = (second[i], second[i + 1]);
    let c0 = points[i] / h - m0 * (h / 6.0);
    let c1 = points[i + 1] / h - m1 * (h / 6.0);
    (
        m0 * (a * a * a / (6.0 * h)) + m1 * (b * b * b / (6.0 * h)) + c0 * a + c1 * b,
        -m0 * (a * a / (2.0 * h)) + m1 * (b * b / (2.0 * h)) - c0 + c1,
        m0 * (a / h) + m1 * (b / h),
    )
}
