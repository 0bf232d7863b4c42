//! The perturbed quasi-static estimate (Mirtich §7.5.2, Fig. 7.30): a part that comes to rest
//! on a stable face is shaken, and tips to another face if the shaking tilts its gravity ray out
//! of the face. The thesis defers the formulas to [MZG+96]; ours are derived in
//! `docs/poses.md`:
//!
//! - resting on stable face s, the body-frame gravity direction is s's outward normal a;
//! - a disturbance tilts it to a direction uniform over the spherical cap of half-angle θ (20°
//!   by default) about a;
//! - a tilted direction that falls in face k's radial projection P_k (the directions whose
//!   gravity ray leaves the hull through face k) sends the part to k, and on to k's
//!   quasi-static sink;
//! - so the share of s's probability that moves to sink(k) is area(cap ∩ P_k) / area(cap),
//!   with area(cap) = 2π(1 − cos θ).
//!
//! area(cap ∩ P) is exact: in polar coordinates (ρ, φ) about a, P is bounded by its edges'
//! great circles, and an edge whose great circle passes at distance h from a is met by the ray
//! of azimuth ψ (from the circle's nearest point) at tan ρ = tan h / cos ψ. Summing, edge by
//! edge, ∫ (1 − cos min(ρ, θ)) dφ over the edge's signed sweep of azimuth gives the area; where
//! ρ < θ (|ψ| < ψ*, cos ψ* = tan h / tan θ) the integrand has the antiderivative
//! ψ − asin(cos h sin ψ).

use std::f64::consts::PI;

use super::part::Part;
use super::quasi_static::QuasiStatic;
use crate::math::Vec3;

/// The perturbed quasi-static probabilities for a cone of half-angle `cone` (radians), from the
/// quasi-static analysis `qs` of `part`.
pub fn perturbed_probabilities(part: &Part, qs: &QuasiStatic, cone: f64) -> Vec<f64> {
    let c = part.center_of_mass();
    let regions: Vec<Vec<Vec3>> = part
        .faces()
        .iter()
        .map(|f| f.corners.iter().map(|p| (p - c).normalize()).collect())
        .collect();
    let cap = 2.0 * PI * (1.0 - cone.cos());
    let mut probability = vec![0.0; qs.probability.len()];
    for (s, &mass) in qs.probability.iter().enumerate() {
        if mass == 0.0 {
            continue;
        }
        let a = part.faces()[s].normal;
        let shares: Vec<f64> = regions
            .iter()
            .map(|region| cap_polygon_area(&a, cone, region).max(0.0) / cap)
            .collect();
        // The shares sum to 1 up to rounding; normalise so no probability is made or lost.
        let total: f64 = shares.iter().sum();
        for (k, share) in shares.iter().enumerate() {
            probability[qs.sink[k]] += mass * share / total;
        }
    }
    probability
}

/// Area of the intersection of the spherical cap of centre `a` (unit) and half-angle `theta`
/// (0 < θ < π/2) with the convex spherical polygon whose corners `corners` (unit vectors) run
/// counter-clockwise seen from outside the sphere.
pub(crate) fn cap_polygon_area(a: &Vec3, theta: f64, corners: &[Vec3]) -> f64 {
    // A tangent frame at a with e1 × e2 = a: azimuth grows counter-clockwise seen from outside.
    let helper = if a.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let e1 = helper.cross(a).normalize();
    let e2 = a.cross(&e1);
    let azimuth = |x: &Vec3| x.dot(&e2).atan2(x.dot(&e1));
    let count = corners.len();
    let mut area = 0.0;
    for k in 0..count {
        let (u, v) = (&corners[k], &corners[(k + 1) % count]);
        let pole = u.cross(v);
        let pole_norm = pole.norm();
        if pole_norm == 0.0 {
            continue;
        }
        let m = pole / pole_norm;
        let sin_h = a.dot(&m).abs().min(1.0);
        if sin_h < 1e-14 {
            // The edge's great circle passes through a: its triangle with a has no area, and
            // the other edges' sweeps add up to the polygon's angle at a.
            continue;
        }
        let sweep = wrap(azimuth(v) - azimuth(u));
        area += (1.0 - theta.cos()) * sweep;
        let h = sin_h.asin();
        if h >= theta {
            continue;
        }
        // The part of the sweep where the edge comes within θ of a.
        let foot = a - m * a.dot(&m);
        let psi_u = wrap(azimuth(u) - azimuth(&foot));
        let (lo, hi) = if sweep >= 0.0 {
            (psi_u, psi_u + sweep)
        } else {
            (psi_u + sweep, psi_u)
        };
        let psi_star = (h.tan() / theta.tan()).clamp(-1.0, 1.0).acos();
        let cos_h = h.cos();
        let g = |psi: f64| theta.cos() * psi - (cos_h * psi.sin()).clamp(-1.0, 1.0).asin();
        let mut inside = 0.0;
        for centre in [-2.0 * PI, 0.0, 2.0 * PI] {
            let from = lo.max(centre - psi_star);
            let to = hi.min(centre + psi_star);
            if to > from {
                inside += g(to - centre) - g(from - centre);
            }
        }
        area += sweep.signum() * inside;
    }
    area
}

/// An angle wrapped into (−π, π].
fn wrap(angle: f64) -> f64 {
    let mut a = angle % (2.0 * PI);
    if a > PI {
        a -= 2.0 * PI;
    } else if a <= -PI {
        a += 2.0 * PI;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the cap sampled on a fine polar grid about its centre.
    fn sampled(a: &Vec3, theta: f64, corners: &[Vec3]) -> f64 {
        let e1 = (if a.x.abs() < 0.9 {
            Vec3::x()
        } else {
            Vec3::y()
        })
        .cross(a)
        .normalize();
        let e2 = a.cross(&e1);
        let inside = |d: &Vec3| {
            (0..corners.len())
                .all(|k| corners[k].cross(&corners[(k + 1) % corners.len()]).dot(d) >= 0.0)
        };
        let (nr, nphi) = (600, 1200);
        let (dr, dphi) = (theta / nr as f64, 2.0 * PI / nphi as f64);
        let mut area = 0.0;
        for i in 0..nr {
            let r = (i as f64 + 0.5) * dr;
            for j in 0..nphi {
                let phi = (j as f64 + 0.5) * dphi;
                let d = *a * r.cos() + (e1 * phi.cos() + e2 * phi.sin()) * r.sin();
                if inside(&d) {
                    area += r.sin() * dr * dphi;
                }
            }
        }
        area
    }

    #[test]
    fn cap_and_polygon_area_matches_sampling() {
        let theta = 20f64.to_radians();
        let a = Vec3::new(0.1, -0.2, 1.0).normalize();
        let square = |cx: f64, cy: f64, s: f64| {
            // Counter-clockwise seen from outside (from +z).
            [(-s, -s), (s, -s), (s, s), (-s, s)]
                .map(|(x, y)| Vec3::new(cx + x, cy + y, 1.0).normalize())
                .to_vec()
        };
        for (name, polygon) in [
            ("holds the cap", square(0.0, 0.0, 1.0)),
            ("holds the centre", square(0.2, -0.1, 0.2)),
            ("beside the centre", square(0.45, -0.2, 0.2)),
            ("far away", square(2.0, 2.0, 0.3)),
            (
                "a triangle across",
                vec![
                    Vec3::new(-0.5, -0.6, 1.0).normalize(),
                    Vec3::new(0.6, -0.1, 1.0).normalize(),
                    Vec3::new(-0.2, 0.5, 1.0).normalize(),
                ],
            ),
        ] {
            let exact = cap_polygon_area(&a, theta, &polygon);
            let brute = sampled(&a, theta, &polygon);
            assert!((exact - brute).abs() < 2e-5, "{name}: {exact} vs {brute}");
        }
        // A polygon holding the whole cap: the cap's area 2π(1 − cos θ), to rounding.
        let whole = cap_polygon_area(&a, theta, &square(0.0, 0.0, 1.0));
        assert!((whole - 2.0 * PI * (1.0 - theta.cos())).abs() < 1e-14);
    }
}
