//! The statistics of pose estimates: the error metric of eq. 7.2, the number of trials of eq. 7.3
//! (corrected), confidence intervals, and the normal quantile they need.

use std::f64::consts::{FRAC_2_SQRT_PI, SQRT_2};

/// Mirtich's error percentage (eq. 7.2): e = 100 Σᵢ pᵢ |aᵢ − pᵢ|, the predictions `predicted`
/// (aᵢ) weighted by the measured frequencies `measured` (pᵢ), both as fractions. Poses missing
/// from the shorter list count as probability 0.
pub fn error_percentage(predicted: &[f64], measured: &[f64]) -> f64 {
    let n = predicted.len().max(measured.len());
    let at = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0);
    100.0
        * (0..n)
            .map(|i| at(measured, i) * (at(predicted, i) - at(measured, i)).abs())
            .sum::<f64>()
}

/// Number of trials that pins every pose's probability within ±`half_width` with confidence
/// `confidence` (eq. 7.3 with its missing square restored, docs/sources.md):
/// n = ⌈(Φ⁻¹(1 − α/2) / (2δ))²⌉, α = 1 − confidence — the worst case p(1 − p) ≤ ¼ of the
/// normal approximation. 90 % and ±0.05 give 271; 95 % and ±0.05 give 385.
pub fn trial_count(confidence: f64, half_width: f64) -> Result<usize, String> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(format!(
            "the confidence must lie strictly between 0 and 1, got {confidence}"
        ));
    }
    if !(half_width > 0.0 && half_width < 0.5) {
        return Err(format!(
            "the half-width must lie strictly between 0 and 0.5, got {half_width}"
        ));
    }
    let z = normal_quantile(0.5 + 0.5 * confidence);
    let n = (z / (2.0 * half_width)).powi(2);
    if n > 1e12 {
        return Err(format!(
            "confidence {confidence} with half-width {half_width} needs {n:.3e} trials"
        ));
    }
    Ok(n.ceil() as usize)
}

/// The worst-case half-width of eq. 7.3 after `n` trials: δ = Φ⁻¹(1 − α/2) / (2√n).
pub fn worst_half_width(confidence: f64, n: usize) -> f64 {
    normal_quantile(0.5 + 0.5 * confidence) / (2.0 * (n as f64).sqrt())
}

/// Wilson's score interval for a binomial proportion: `count` successes in `n` trials at
/// confidence `confidence`. Unlike p ± z√(p(1−p)/n) it stays inside [0, 1] and is not empty
/// for poses seen 0 or n times. No trials, or a confidence outside (0, 1), give [0, 1].
pub fn wilson_interval(count: usize, n: usize, confidence: f64) -> (f64, f64) {
    if n == 0 || !(confidence > 0.0 && confidence < 1.0) {
        return (0.0, 1.0);
    }
    let z = normal_quantile(0.5 + 0.5 * confidence);
    let (k, n) = (count as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The standard normal distribution function Φ(z).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / SQRT_2)
}

/// Φ⁻¹(p) for 0 < p < 1: bisection to bracket, then Newton steps on Φ, to full precision.
/// NaN for p outside (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (-40.0_f64, 40.0_f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut z = 0.5 * (lo + hi);
    for _ in 0..3 {
        let density = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        if density == 0.0 {
            break;
        }
        z -= (normal_cdf(z) - p) / density;
    }
    z
}

/// The complementary error function: the Taylor series of erf for |x| < 3, Lentz's continued
/// fraction of erfc beyond (both to about 1e-15 relative).
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 3.0 {
        // erf x = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)).
        let (mut term, mut sum) = (x, x);
        let x2 = x * x;
        for n in 1..200 {
            term *= -x2 / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        return 1.0 - FRAC_2_SQRT_PI * sum;
    }
    // erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))).
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..300 {
        let a = n as f64 / 2.0;
        d = x + a * d;
        d = if d == 0.0 { tiny } else { d };
        c = x + a / c;
        c = if c == 0.0 { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (std::f64::consts::PI.sqrt() * f)
}
