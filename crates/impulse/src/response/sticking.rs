//! Sticking and rays of constant sliding direction (Mirtich §3.4).
//!
//! Write the collision matrix as `K = [[a, f, e], [f, b, d], [e, d, c]]` (eq. 3.15). While the
//! contact slides in direction θ the tangential velocity changes at
//! `u'_t = μ M (−cos θ, −sin θ)ᵀ + s` per unit normal impulse (eq. 3.16), with `M = [[a, f], [f,
//! b]]` and `s = (e, d)`. Friction can hold the contact stuck iff
//! `(K⁻¹₁₃)² + (K⁻¹₂₃)² ≤ μ² (K⁻¹₃₃)²` (Theorem 9), equivalently iff that ellipse encircles the
//! origin (Lemma 4, Theorem 13). If it cannot, sliding resumes along the unique *diverging* ray
//! (Theorems 14–16): a direction θ where `u'_t` is parallel to `(cos θ, sin θ)` and points away
//! from the origin.

use crate::math::{Mat3, Vec3};

/// The impulse, per unit normal impulse, that keeps a stuck contact stuck: `d = (d_t, 1)` with
/// `K d` along the normal, i.e. `M d_t = −s` in the blocks of eq. 3.15. For an invertible K this
/// is `K⁻¹ e_z / K⁻¹₃₃` (the thesis's eq. 3.6, by the Schur complement); written with `M` alone
/// it also holds when K is singular — a multibody link that cannot move along a tangent (a
/// pendulum's bob sideways) has a zero row and column there, and `M⁺`, the least-norm
/// solution, applies no impulse along it.
pub fn sticking_direction(k: &Mat3) -> Vec3 {
    let d_t = tangential_solve(k, k[(0, 2)], k[(1, 2)]);
    Vec3::new(-d_t.0, -d_t.1, 1.0)
}

/// The tangential impulse that changes the tangential velocity by `−u_t` with no normal
/// impulse, and the normal velocity change it brings: `(p_x, p_y, Δu_z)` with
/// `M p_t = −u_t`, `Δu_z = s · p_t`. Used when a contact is declared stuck at a tangential
/// speed just above zero, so that the impulse stays consistent with the velocity.
pub fn stick_correction(k: &Mat3, u_t: (f64, f64)) -> Vec3 {
    let p_t = tangential_solve(k, -u_t.0, -u_t.1);
    Vec3::new(p_t.0, p_t.1, k[(0, 2)] * p_t.0 + k[(1, 2)] * p_t.1)
}

/// The largest share `λ ∈ [0, 1]` of a tangential impulse `d` that can be added to the
/// collision's impulse so far, tangential `p_t` and normal `p_z`, without taking it out of the
/// friction cone `|p_t| ≤ μ p_z`, or farther out than it already is. Every impulse of a sliding
/// or stuck contact lies in the cone, so their sum does too; the stick correction, a purely
/// tangential impulse, must keep to what is left of it. Where K barely moves the contact along
/// a tangent, removing even a tiny velocity along it takes a huge tangential impulse: friction
/// cannot supply it, and the contact keeps that velocity.
pub fn cone_share(p_t: (f64, f64), p_z: f64, d: (f64, f64), mu: f64) -> f64 {
    // |p_t + λ d|² ≤ r², a quadratic a λ² + b λ + c ≤ 0 with c ≤ 0 at λ = 0.
    let length_squared = p_t.0 * p_t.0 + p_t.1 * p_t.1;
    let radius_squared = (mu * p_z.max(0.0)).powi(2).max(length_squared);
    let a = d.0 * d.0 + d.1 * d.1;
    let b = 2.0 * (p_t.0 * d.0 + p_t.1 * d.1);
    let c = length_squared - radius_squared;
    if a + b + c <= 0.0 {
        return 1.0;
    }
    // The positive root, written without cancellation (c ≤ 0, so the discriminant ≥ b²).
    let root = (b * b - 4.0 * a * c).sqrt();
    let share = if b > 0.0 {
        -2.0 * c / (b + root)
    } else {
        (root - b) / (2.0 * a)
    };
    share.clamp(0.0, 1.0)
}

/// `M⁺ r` for the tangential block `M` of K: its inverse, or for rank one (`M = λ v vᵀ`,
/// `λ` its trace) `M / λ²`, or zero. M is symmetric positive semi-definite.
fn tangential_solve(k: &Mat3, r0: f64, r1: f64) -> (f64, f64) {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (det, trace) = (a * b - f * f, a + b);
    let (m00, m01, m11) = if det > 1e-12 * trace * trace {
        (b / det, -f / det, a / det)
    } else if trace > 0.0 {
        let scale = 1.0 / (trace * trace);
        (a * scale, f * scale, b * scale)
    } else {
        (0.0, 0.0, 0.0)
    };
    (m00 * r0 + m01 * r1, m01 * r0 + m11 * r1)
}

#[cfg(any(test, feature = "internals"))]
/// Whether friction `mu` can keep a stuck contact stuck (Mirtich Theorem 9,
/// `(K⁻¹₁₃)² + (K⁻¹₂₃)² ≤ μ² (K⁻¹₃₃)²`): the tangential impulse sticking needs per unit normal
/// impulse lies in the friction cone, `|d_t| ≤ μ` with `d` from [`sticking_direction`].
pub fn sticking_is_stable(k: &Mat3, mu: f64) -> bool {
    let d = sticking_direction(k);
    d.x * d.x + d.y * d.y <= mu * mu
}

#[cfg(any(test, feature = "internals"))]
/// The ellipse of tangential accelerations encircles the origin (Mirtich Lemma 4):
/// `(b² + f²) e² + (a² + f²) d² − 2 (a + b) f d e < μ² |M|²`.
pub fn ellipse_encircles_origin(k: &Mat3, mu: f64) -> bool {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (e, d) = (k[(0, 2)], k[(1, 2)]);
    let det_m = a * b - f * f;
    (b * b + f * f) * e * e + (a * a + f * f) * d * d - 2.0 * (a + b) * f * d * e
        < mu * mu * det_m * det_m
}

/// The sliding vector `ξ(θ) = (−μ cos θ, −μ sin θ, 1)` (Mirtich Definition 2): the rate of
/// change of the impulse per unit normal impulse while sliding in direction θ.
pub fn sliding_vector(mu: f64, theta: f64) -> Vec3 {
    Vec3::new(-mu * theta.cos(), -mu * theta.sin(), 1.0)
}

/// `(û × u')(θ)` of Theorem 14 (zero on a ray of constant sliding direction).
fn cross(k: &Mat3, mu: f64, theta: f64) -> f64 {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (e, d) = (k[(0, 2)], k[(1, 2)]);
    let (c, s) = (theta.cos(), theta.sin());
    (a - b) * mu * c * s + f * mu * (s * s - c * c) + d * c - e * s
}

/// `d(û × u')/dθ` at the direction `(c, s) = (cos θ, sin θ)`. Where it is negative, directions
/// near a ray turn towards it: the ray attracts them (at a rate `|slope| / |u_t|` per unit normal
/// impulse, ever faster as the contact slows).
pub fn cross_slope(k: &Mat3, mu: f64, c: f64, s: f64) -> f64 {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (e, d) = (k[(0, 2)], k[(1, 2)]);
    (a - b) * mu * (c * c - s * s) + 4.0 * f * mu * s * c - d * s - e * c
}

/// The ray of constant sliding direction nearest to θ, by Newton's method on the cross
/// condition from θ, if it converges to one within `reach` radians (not wrapped).
pub fn nearest_ray(k: &Mat3, mu: f64, theta: f64, reach: f64) -> Option<f64> {
    let mut ray = theta;
    let mut step = f64::INFINITY;
    for _ in 0..8 {
        let slope = cross_slope(k, mu, ray.cos(), ray.sin());
        if slope == 0.0 || !slope.is_finite() {
            return None;
        }
        step = cross(k, mu, ray) / slope;
        ray -= step;
        if !ray.is_finite() || (ray - theta).abs() > reach {
            return None;
        }
        if step.abs() < 1e-15 {
            break;
        }
    }
    (step.abs() <= 1e-12).then_some(ray)
}

/// `(û · u')(θ)` of Theorem 14 (positive on a diverging ray).
pub fn ray_divergence(k: &Mat3, mu: f64, theta: f64) -> f64 {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (e, d) = (k[(0, 2)], k[(1, 2)]);
    let (c, s) = (theta.cos(), theta.sin());
    -a * mu * c * c - b * mu * s * s - 2.0 * f * mu * c * s + d * s + e * c
}

/// The directions θ ∈ (−π, π] of all rays of constant sliding direction (at most four,
/// Corollary 2). With `t = tan(θ/2)` the condition of Theorem 14 becomes the quartic
/// `(−fμ − d) t⁴ − 2((a−b)μ + e) t³ + 6fμ t² + 2((a−b)μ − e) t + (d − fμ) = 0`; a vanishing
/// leading coefficient adds the root θ = π.
pub fn rays(k: &Mat3, mu: f64) -> Vec<f64> {
    let (a, b, f) = (k[(0, 0)], k[(1, 1)], k[(0, 1)]);
    let (e, d) = (k[(0, 2)], k[(1, 2)]);
    let coefficients = [
        d - f * mu,
        2.0 * ((a - b) * mu - e),
        6.0 * f * mu,
        -2.0 * ((a - b) * mu + e),
        -f * mu - d,
    ];
    let scale = coefficients.iter().map(|c| c.abs()).fold(0.0, f64::max);
    let mut thetas = Vec::new();
    if scale == 0.0 {
        return thetas;
    }
    for t in real_polynomial_roots(&coefficients) {
        thetas.push(polish(k, mu, 2.0 * t.atan()));
    }
    if coefficients[4].abs() <= 1e-14 * scale
        && cross(k, mu, std::f64::consts::PI).abs() <= 1e-12 * scale
    {
        thetas.push(std::f64::consts::PI);
    }
    thetas.sort_by(f64::total_cmp);
    thetas.dedup_by(|x, y| (*x - *y).abs() < 1e-9);
    thetas
}

/// The diverging ray when sticking is unstable (Theorem 16: exactly one exists), else `None`.
pub fn diverging_ray(k: &Mat3, mu: f64) -> Option<f64> {
    let candidates: Vec<f64> = rays(k, mu)
        .into_iter()
        .filter(|&theta| ray_divergence(k, mu, theta) > 0.0)
        .collect();
    match candidates.as_slice() {
        [] => None,
        [theta] => Some(*theta),
        // Ties from rounding: the most strongly diverging one.
        many => many
            .iter()
            .copied()
            .max_by(|x, y| ray_divergence(k, mu, *x).total_cmp(&ray_divergence(k, mu, *y))),
    }
}

/// Newton's method on the cross condition in θ, from a root of the quartic, wrapped to
/// (−π, π].
fn polish(k: &Mat3, mu: f64, theta: f64) -> f64 {
    let theta = nearest_ray(k, mu, theta, f64::INFINITY).unwrap_or(theta);
    let wrapped = theta.rem_euclid(std::f64::consts::TAU);
    if wrapped > std::f64::consts::PI {
        wrapped - std::f64::consts::TAU
    } else {
        wrapped
    }
}

/// Real roots of `Σ cᵢ tⁱ` (coefficients from the constant term up) as the real eigenvalues of
/// the companion matrix, dropping negligible leading coefficients.
fn real_polynomial_roots(coefficients: &[f64]) -> Vec<f64> {
    let scale = coefficients.iter().map(|c| c.abs()).fold(0.0, f64::max);
    let mut degree = coefficients.len() - 1;
    while degree > 0 && coefficients[degree].abs() <= 1e-14 * scale {
        degree -= 1;
    }
    if degree == 0 {
        return Vec::new();
    }
    let lead = coefficients[degree];
    let mut companion = nalgebra::DMatrix::<f64>::zeros(degree, degree);
    for i in 1..degree {
        companion[(i, i - 1)] = 1.0;
    }
    for i in 0..degree {
        companion[(i, degree - 1)] = -coefficients[i] / lead;
    }
    companion
        .complex_eigenvalues()
        .iter()
        .filter(|z| z.im.abs() <= 1e-7 * (1.0 + z.re.abs()))
        .map(|z| z.re)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cone_share_keeps_the_impulse_in_the_cone() {
        // p_t = (3, 0), p_z = 5, μ = 1: the cone's radius is 5. Closed forms:
        // d = (1, 0): |(4, 0)| = 4 ≤ 5, all of it; d = (4, 0): |(3 + 4λ, 0)| = 5 at λ = ½;
        // d = (0, 8): 9 + 64 λ² = 25 at λ = ½; d = (−20, 0): |3 − 20λ| ≤ 5 up to λ = 0.4.
        for (d, share) in [
            ((1.0, 0.0), 1.0),
            ((4.0, 0.0), 0.5),
            ((0.0, 8.0), 0.5),
            ((-20.0, 0.0), 0.4),
        ] {
            let got = cone_share((3.0, 0.0), 5.0, d, 1.0);
            assert!((got - share).abs() < 1e-15, "{d:?}: {got} against {share}");
        }
        // Already outside by rounding (|p_t| = 6 > 5): nothing that goes farther out, all of
        // what comes back in, and no farther out than it is (|(6 − 20λ, 0)| ≤ 6 to λ = 0.6).
        assert_eq!(cone_share((6.0, 0.0), 5.0, (1.0, 0.0), 1.0), 0.0);
        assert_eq!(cone_share((6.0, 0.0), 5.0, (0.0, 1.0), 1.0), 0.0);
        assert_eq!(cone_share((6.0, 0.0), 5.0, (-1.0, 0.0), 1.0), 1.0);
        assert!((cone_share((6.0, 0.0), 5.0, (-20.0, 0.0), 1.0) - 0.6).abs() < 1e-15);
        // Nothing to add, or no normal impulse yet and no friction.
        assert_eq!(cone_share((3.0, 0.0), 5.0, (0.0, 0.0), 1.0), 1.0);
        assert_eq!(cone_share((0.0, 0.0), 0.0, (1.0, 0.0), 0.0), 0.0);
    }

    /// Mirtich Fig. 3.3: μ = 0.2, K = [[8, −2, 1], [−2, 3, −1], [1, −1, 5]].
    fn figure_3_3() -> Mat3 {
        Mat3::new(8.0, -2.0, 1.0, -2.0, 3.0, -1.0, 1.0, -1.0, 5.0)
    }

    #[test]
    fn figure_3_3_rays_match_v2() {
        // Digest V2: sticking unstable; rays at 147.001° (converging) and −71.113° (diverging).
        let k = figure_3_3();
        let mu = 0.2;
        assert!(!sticking_is_stable(&k, mu));
        assert!(!ellipse_encircles_origin(&k, mu));
        let rays: Vec<f64> = rays(&k, mu).iter().map(|t| t.to_degrees()).collect();
        assert_eq!(rays.len(), 2, "{rays:?}");
        assert!(
            (rays[0] - -71.113).abs() < 0.01 && (rays[1] - 147.001).abs() < 0.01,
            "{rays:?}"
        );
        let diverging = diverging_ray(&k, mu).unwrap().to_degrees();
        assert!((diverging - -71.113).abs() < 0.01);
        // Digest: û·u' = +0.3201 on the diverging ray, −3.0521 on the converging one.
        assert!((ray_divergence(&k, mu, diverging.to_radians()) - 0.3201).abs() < 1e-4);
        assert!((ray_divergence(&k, mu, rays[1].to_radians()) + 3.0521).abs() < 1e-4);
    }

    #[test]
    fn nearest_ray_finds_the_v2_rays_and_the_slope_says_which_attract() {
        let (k, mu) = (figure_3_3(), 0.2);
        // The slope against a central difference of the cross condition.
        for degrees in [-170.0, -71.0, 0.0, 33.0, 147.0] {
            let theta: f64 = f64::to_radians(degrees);
            let h = 1e-6;
            let numeric = (cross(&k, mu, theta + h) - cross(&k, mu, theta - h)) / (2.0 * h);
            let slope = cross_slope(&k, mu, theta.cos(), theta.sin());
            assert!(
                (slope - numeric).abs() < 1e-8,
                "{degrees}°: {slope} vs {numeric}"
            );
        }
        // Digest V2: rays at 147.001° and −71.113°, found from half a degree away.
        let converging = nearest_ray(&k, mu, 147.5_f64.to_radians(), 0.01).unwrap();
        let diverging = nearest_ray(&k, mu, (-71.6_f64).to_radians(), 0.01).unwrap();
        assert!((converging.to_degrees() - 147.001).abs() < 1e-3);
        assert!((diverging.to_degrees() + 71.113).abs() < 1e-3);
        assert!(cross(&k, mu, converging).abs() < 1e-14);
        // Not within reach of 30° from the diverging ray.
        assert!(nearest_ray(&k, mu, (-40.0_f64).to_radians(), 0.01).is_none());
        // Sticking is unstable here. The diverging ray attracts nearby sliding directions
        // (slope −1.570: the deviation falls as the speed to the power 4.9 while the contact
        // speeds up along it); the converging one repels them (slope +2.521: the deviation
        // grows as the speed to the power −0.83 while the contact slows), so that a slowing
        // contact swings round and leaves along the diverging ray.
        let slope = |ray: f64| cross_slope(&k, mu, ray.cos(), ray.sin());
        assert!(
            (slope(diverging) + 1.570).abs() < 1e-3,
            "{}",
            slope(diverging)
        );
        assert!(
            (slope(converging) - 2.521).abs() < 1e-3,
            "{}",
            slope(converging)
        );
    }

    #[test]
    fn rod_diverging_ray_is_180_degrees() {
        // Digest V5(a): K = [[2.5, 0, −1.5], [0, 4, 0], [−1.5, 0, 2.5]], μ = 0.5: unstable,
        // diverging ray at 180°, found through the vanishing leading coefficient.
        let k = Mat3::new(2.5, 0.0, -1.5, 0.0, 4.0, 0.0, -1.5, 0.0, 2.5);
        assert!(!sticking_is_stable(&k, 0.5));
        let theta = diverging_ray(&k, 0.5).unwrap();
        assert!((theta.abs() - std::f64::consts::PI).abs() < 1e-9, "{theta}");
    }
}
