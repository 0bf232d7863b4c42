//! Space curves a body point can be held on (kalra.md §2.2 i, eq. 16–17): a helix, a polyline
//! and a natural cubic spline through given points, each a parametric curve `r(u)` with its
//! first and second derivatives and the closest point to a given point.
//!
//! Curves are stored in the frame of the body that carries them (B, or the world). A point held
//! on a curve keeps a parameter `u` (the closest point found at the end of the last step), from
//! which every evaluation starts a few Newton steps: the closest point is continuous in the
//! state, and a curve that comes near itself is never jumped across.

use crate::math::Vec3;

use super::spline;

/// A parametric curve `r(u)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Curve {
    /// `r(u) = c + R (cos u e₁ + sin u e₂) + h u d`, `e₂ = d × e₁`: radius R, rise h per radian
    /// (negative for a left-handed helix).
    Helix {
        center: Vec3,
        axis: Vec3,
        start: Vec3,
        radius: f64,
        rise: f64,
    },
    /// Straight segments through `points`; segment i is `u ∈ [i, i + 1]`. The first and last
    /// segments continue as straight lines beyond the ends.
    Polyline { points: Vec<Vec3> },
    /// The natural cubic spline through `points` at chord-length knots `knots` (`r''` zero at
    /// the ends), with `second` its second derivatives at the knots. It continues as straight
    /// lines beyond the ends (the natural end conditions make that C²).
    Spline {
        points: Vec<Vec3>,
        knots: Vec<f64>,
        second: Vec<Vec3>,
    },
}

/// Newton steps at most for a closest point.
const NEWTON: usize = 24;

impl Curve {
    /// A helix about `axis` (unit) through `center`, radius `radius`, rising `rise` per radian,
    /// with `r(0)` on the ray from the axis in unit direction `start` (perpendicular to `axis`).
    pub fn helix(center: Vec3, axis: Vec3, start: Vec3, radius: f64, rise: f64) -> Self {
        Self::Helix {
            center,
            axis,
            start,
            radius,
            rise,
        }
    }

    /// The natural cubic spline through `points` (at least two, no two consecutive equal).
    pub fn spline(points: Vec<Vec3>) -> Self {
        let n = points.len();
        let mut knots = vec![0.0; n];
        for i in 1..n {
            knots[i] = knots[i - 1] + (points[i] - points[i - 1]).norm();
        }
        let second = spline::natural_second(&knots, &points, Vec3::zeros());
        Self::Spline {
            points,
            knots,
            second,
        }
    }

    /// `(r, r', r'')` at parameter u.
    pub fn eval(&self, u: f64) -> (Vec3, Vec3, Vec3) {
        match self {
            Self::Helix {
                center,
                axis,
                start,
                radius,
                rise,
            } => {
                let e2 = axis.cross(start);
                let (s, c) = u.sin_cos();
                let radial = start * c + e2 * s;
                let tangent = -start * s + e2 * c;
                (
                    center + radial * *radius + axis * (*rise * u),
                    tangent * *radius + axis * *rise,
                    -radial * *radius,
                )
            }
            Self::Polyline { points } => {
                let i = Self::segment_of(u, points.len());
                let d = points[i + 1] - points[i];
                (points[i] + d * (u - i as f64), d, Vec3::zeros())
            }
            Self::Spline {
                points,
                knots,
                second,
            } => spline::natural_at(knots, points, second, u, Vec3::zeros()),
        }
    }

    /// The polyline segment that parameter u lies on (ends extended).
    fn segment_of(u: f64, points: usize) -> usize {
        let last = points - 2;
        if u <= 0.0 {
            0
        } else {
            (u.floor() as usize).min(last)
        }
    }

    /// Which piece of the curve u is on: a polyline's segment (the others are smooth: 0).
    pub fn piece(&self, u: f64) -> usize {
        match self {
            Self::Polyline { points } => Self::segment_of(u, points.len()),
            _ => 0,
        }
    }

    /// The point of the curve closest to `x`, found from `near` (the last parameter): its
    /// parameter and `(r, r', r'')` there. On a polyline it is the foot on the line of `near`'s
    /// segment (beyond the segment's ends too: the segment changes only when a step ends, see
    /// `Template::settle`); on a helix or spline the root of `(r(u) − x)·r'(u) = 0` by Newton's
    /// method.
    pub fn closest(&self, x: &Vec3, near: f64) -> (f64, Vec3, Vec3, Vec3) {
        let u = match self {
            Self::Polyline { points } => {
                let i = Self::segment_of(near, points.len());
                let d = points[i + 1] - points[i];
                let s = d.dot(&(x - points[i])) / d.norm_squared();
                return (i as f64 + s, points[i] + d * s, d, Vec3::zeros());
            }
            Self::Helix {
                center,
                axis,
                start,
                ..
            } => {
                // The angle about the axis on the turn nearest `near`, then Newton (the closest
                // point sits a little off that angle where the pitch is steep).
                let rel = x - center;
                let raw = axis.cross(start).dot(&rel).atan2(start.dot(&rel));
                let tau = std::f64::consts::TAU;
                self.newton(x, raw + tau * ((near - raw) / tau).round())
            }
            Self::Spline { .. } => self.newton(x, near),
        };
        let (r, r1, r2) = self.eval(u);
        (u, r, r1, r2)
    }

    fn newton(&self, x: &Vec3, start: f64) -> f64 {
        let mut u = start;
        for _ in 0..NEWTON {
            let (r, r1, r2) = self.eval(u);
            let e = r - x;
            let slope = r1.norm_squared() + e.dot(&r2);
            if slope <= 0.0 {
                break;
            }
            let du = -e.dot(&r1) / slope;
            u += du;
            if du.abs() * r1.norm() <= 1e-15 * (1.0 + x.norm()) {
                break;
            }
        }
        u
    }

    /// The parameter of the point nearest `x` over the whole curve (at build time, with no
    /// earlier parameter to start from): the nearest polyline segment; for a spline the nearest
    /// of 32 samples per segment, refined by Newton.
    pub fn nearest(&self, x: &Vec3) -> f64 {
        match self {
            Self::Helix { .. } => self.closest(x, 0.0).0,
            Self::Polyline { points } => {
                let mut best = (f64::INFINITY, 0.0);
                for i in 0..points.len() - 1 {
                    let d = points[i + 1] - points[i];
                    let s = (d.dot(&(x - points[i])) / d.norm_squared()).clamp(0.0, 1.0);
                    let gap = (points[i] + d * s - x).norm();
                    if gap < best.0 {
                        best = (gap, i as f64 + s);
                    }
                }
                best.1
            }
            Self::Spline { knots, .. } => {
                let mut best = (f64::INFINITY, 0.0);
                for w in knots.windows(2) {
                    for k in 0..=32 {
                        let u = w[0] + (w[1] - w[0]) * k as f64 / 32.0;
                        let gap = (self.eval(u).0 - x).norm();
                        if gap < best.0 {
                            best = (gap, u);
                        }
                    }
                }
                self.newton(x, best.1)
            }
        }
    }

    /// The curve moved into another frame: points by `point`, directions by `direction`.
    pub fn mapped(&self, point: impl Fn(&Vec3) -> Vec3, direction: impl Fn(&Vec3) -> Vec3) -> Self {
        match self {
            Self::Helix {
                center,
                axis,
                start,
                radius,
                rise,
            } => Self::Helix {
                center: point(center),
                axis: direction(axis),
                start: direction(start),
                radius: *radius,
                rise: *rise,
            },
            Self::Polyline { points } => Self::Polyline {
                points: points.iter().map(&point).collect(),
            },
            Self::Spline { points, .. } => Self::spline(points.iter().map(&point).collect()),
        }
    }
}

/// Why `points` cannot make a polyline or spline, if they cannot: fewer than two, not finite,
/// or two consecutive ones equal (a segment of no length has no direction). For a polyline also
/// a kink of 90° or more (the point would be sent back or stopped dead at the corner).
pub(crate) fn check_points(points: &[Vec3], polyline: bool) -> Result<(), String> {
    if points.len() < 2 {
        return Err(format!(
            "`points` needs at least 2 points, found {}",
            points.len()
        ));
    }
    if let Some(i) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(format!(
            "`points[{i}]` must be finite, found {:?}",
            points[i]
        ));
    }
    let scale = points.iter().fold(1.0_f64, |m, p| m.max(p.norm()));
    for i in 1..points.len() {
        if (points[i] - points[i - 1]).norm() <= 1e-12 * scale {
            return Err(format!(
                "`points[{}]` repeats `points[{i}]`; consecutive points must differ",
                i - 1
            ));
        }
    }
    if polyline {
        for i in 1..points.len() - 1 {
            let (d0, d1) = (points[i] - points[i - 1], points[i + 1] - points[i]);
            if d0.dot(&d1) <= 1e-12 * d0.norm() * d1.norm() {
                return Err(format!(
                    "the polyline turns by {:.1}° at `points[{i}]`; corners must turn by less than 90°",
                    d0.angle(&d1).to_degrees()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wavy() -> Curve {
        Curve::spline(vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.5, 0.2),
            Vec3::new(1.7, -0.3, 0.9),
            Vec3::new(3.0, 0.1, 0.4),
            Vec3::new(3.5, 1.0, -0.2),
        ])
    }

    /// The spline passes through its points, is C² across the knots (values from both sides
    /// agree to 1e-12), has r'' = 0 at its ends (the natural conditions), and its r' and r''
    /// are the central differences of r (to the differences' own error, 1e-7).
    #[test]
    fn natural_spline_interpolates_and_is_c2() {
        let c = wavy();
        let Curve::Spline { points, knots, .. } = &c else {
            unreachable!()
        };
        for (p, &k) in points.iter().zip(knots) {
            assert!((c.eval(k).0 - p).norm() < 1e-12);
        }
        for &k in &knots[1..knots.len() - 1] {
            let (below, above) = (c.eval(k - 1e-13), c.eval(k + 1e-13));
            assert!((below.1 - above.1).norm() < 1e-10, "r' jumps at {k}");
            assert!((below.2 - above.2).norm() < 1e-10, "r'' jumps at {k}");
        }
        assert!(c.eval(knots[0]).2.norm() < 1e-12);
        assert!(c.eval(*knots.last().unwrap()).2.norm() < 1e-12);
        let h = 1e-5;
        for u in [0.3, 1.4, 2.2, 3.9, -0.5, 5.0] {
            let (r0, r1, r2) = c.eval(u);
            let (rp, rm) = (c.eval(u + h).0, c.eval(u - h).0);
            assert!(((rp - rm) / (2.0 * h) - r1).norm() < 1e-7, "r' at {u}");
            assert!(
                ((rp - 2.0 * r0 + rm) / (h * h) - r2).norm() < 1e-4,
                "r'' at {u}"
            );
        }
    }

    /// The helix's derivatives against its closed form, and the closest point: a point moved
    /// off the helix along a normal comes back to the same parameter, on the turn nearest the
    /// hint.
    #[test]
    fn helix_closest_point_is_along_the_normal() {
        let c = Curve::helix(Vec3::zeros(), Vec3::z(), Vec3::x(), 0.5, 0.2);
        for u in [0.3, 4.0, 13.0, -7.5] {
            let (r, r1, r2) = c.eval(u);
            let expect = Vec3::new(0.5 * u.cos(), 0.5 * u.sin(), 0.2 * u);
            assert!((r - expect).norm() < 1e-14);
            assert!((r1 - Vec3::new(-0.5 * u.sin(), 0.5 * u.cos(), 0.2)).norm() < 1e-14);
            assert!((r2 - Vec3::new(-0.5 * u.cos(), -0.5 * u.sin(), 0.0)).norm() < 1e-14);
            // Off along the binormal-ish direction r' × z (perpendicular to r').
            let n = r1.cross(&Vec3::new(0.1, 0.3, 1.0)).normalize();
            let x = r + n * 1e-3;
            assert!((c.closest(&x, u + 0.5).0 - u).abs() < 1e-12, "u = {u}");
        }
    }

    #[test]
    fn bad_points_are_named() {
        let p = |x: f64, y: f64| Vec3::new(x, y, 0.0);
        assert!(
            check_points(&[p(0.0, 0.0)], false)
                .unwrap_err()
                .contains("at least 2")
        );
        let e = check_points(&[p(0.0, 0.0), p(1.0, 0.0), p(1.0, 0.0)], false).unwrap_err();
        assert!(e.contains("points[1]") && e.contains("repeats"), "{e}");
        let e = check_points(&[p(0.0, 0.0), p(1.0, 0.0), p(0.5, 0.2)], true).unwrap_err();
        assert!(e.contains("turns by") && e.contains("points[1]"), "{e}");
        assert!(check_points(&[p(0.0, 0.0), p(1.0, 0.0), p(2.0, 0.5)], true).is_ok());
        assert!(check_points(&[p(0.0, 0.0), p(1.0, 0.0), p(0.5, 0.2)], false).is_ok());
    }
}
