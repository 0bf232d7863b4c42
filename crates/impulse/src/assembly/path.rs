//! Prescribed trajectories r(t) for a body point to follow (kalra.md §2.2 k, eq. 20–21).

use crate::math::Vec3;

use super::profile::{Profile, TimeTable, harmonic};

/// A curve in space parametrised by time.
#[derive(Clone, Debug, PartialEq)]
pub enum Path {
    /// `r(t) = Σ_k c_k t^k` (c₀ the start, c₁ the start velocity, 2c₂ the acceleration, …).
    Polynomial {
        /// The coefficients c₀, c₁, … (at least one).
        coefficients: Vec<Vec3>,
    },
    /// A circle travelled at a prescribed angle: `r = c + R (cos φ e₁ + sin φ e₂)`, with
    /// `e₂ = n × e₁` and `φ(t)` (radians) a polynomial, a harmonic (a swing along an arc) or a
    /// table.
    Circle {
        /// Centre c.
        center: Vec3,
        /// Radius R.
        radius: f64,
        /// Unit normal n (the angle turns positively about it).
        normal: Vec3,
        /// Unit direction e₁ of angle 0, perpendicular to n.
        start: Vec3,
        /// The angle φ(t).
        angle: Profile,
    },
    /// Each coordinate harmonic: `r_i = offset_i + amplitude_i sin(2π frequency_i t + phase_i)`
    /// (frequencies in cycles per unit time, phases in radians).
    Harmonic {
        offset: Vec3,
        amplitude: Vec3,
        frequency: Vec3,
        phase: Vec3,
    },
    /// The natural cubic spline through given (time, point) pairs, each coordinate C²,
    /// straight on beyond the first and last times.
    Table(PathTable),
}

/// Points at times with the natural cubic spline through them, each coordinate's; build it
/// with [`TimeTable::new`].
pub type PathTable = TimeTable<Vec3>;

/// Value, first and second derivative of `Σ c_k t^k`.
pub(crate) fn polynomial<T>(coefficients: &[T], t: f64, zero: T) -> (T, T, T)
where
    T: Copy + std::ops::Add<Output = T> + std::ops::Mul<f64, Output = T>,
{
    let (mut r, mut r1, mut r2) = (zero, zero, zero);
    // Horner's rule for the value and both derivatives at once.
    for c in coefficients.iter().rev() {
        r2 = r2 * t + r1 * 2.0;
        r1 = r1 * t + r;
        r = r * t + *c;
    }
    (r, r1, r2)
}

impl Path {
    /// `(r, ṙ, r̈)` at time t.
    pub fn at(&self, t: f64) -> (Vec3, Vec3, Vec3) {
        match self {
            Self::Polynomial { coefficients } => polynomial(coefficients, t, Vec3::zeros()),
            Self::Circle {
                center,
                radius,
                normal,
                start,
                angle,
            } => {
                let (phi, phi1, phi2) = angle.at(t);
                let e2 = normal.cross(start);
                let radial = start * phi.cos() + e2 * phi.sin();
                let tangent = -start * phi.sin() + e2 * phi.cos();
                (
                    center + radial * *radius,
                    tangent * (*radius * phi1),
                    tangent * (*radius * phi2) - radial * (*radius * phi1 * phi1),
                )
            }
            Self::Harmonic {
                offset,
                amplitude,
                frequency,
                phase,
            } => {
                let (mut r, mut v, mut a) = (Vec3::zeros(), Vec3::zeros(), Vec3::zeros());
                for i in 0..3 {
                    (r[i], v[i], a[i]) =
                        harmonic(offset[i], amplitude[i], frequency[i], phase[i], t);
                }
                (r, v, a)
            }
            Self::Table(table) => table.at(t),
        }
    }

    /// Why the path cannot be used, if it cannot.
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Self::Polynomial { coefficients } => {
                if coefficients.is_empty() {
                    return Err("a polynomial path needs at least one coefficient".into());
                }
                if !coefficients.iter().all(|c| c.iter().all(|x| x.is_finite())) {
                    return Err("a polynomial path's coefficients must be finite".into());
                }
            }
            Self::Circle {
                center,
                radius,
                normal,
                start,
                angle,
            } => {
                if !(radius.is_finite() && *radius > 0.0) {
                    return Err(format!(
                        "a circle's radius must be positive, found {radius}"
                    ));
                }
                angle.check("angle")?;
                if !center.iter().all(|x| x.is_finite()) {
                    return Err("a circle's centre must be finite".into());
                }
                if (normal.norm() - 1.0).abs() > 1e-9
                    || (start.norm() - 1.0).abs() > 1e-9
                    || normal.dot(start).abs() > 1e-9
                {
                    return Err(
                        "a circle's normal and start must be perpendicular unit vectors".into(),
                    );
                }
            }
            Self::Harmonic {
                offset,
                amplitude,
                frequency,
                phase,
            } => {
                let finite = |v: &Vec3| v.iter().all(|x| x.is_finite());
                if !(finite(offset) && finite(amplitude) && finite(phase)) {
                    return Err(
                        "a harmonic path's offset, amplitude and phase must be finite".into(),
                    );
                }
                if !frequency.iter().all(|f| f.is_finite() && *f >= 0.0) {
                    return Err(format!(
                        "a harmonic path's frequencies must be finite and not negative, found {frequency:?}"
                    ));
                }
            }
            // Checked when it was built.
            Self::Table(_) => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kalra.md §6 V8: r = (cos φ, sin φ, 0), φ = ½t²; at t = 2 s, r̈ = (0.75529, −4.05334, 0).
    #[test]
    fn circle_path_acceleration_matches_v8() {
        let path = Path::Circle {
            center: Vec3::zeros(),
            radius: 1.0,
            normal: Vec3::z(),
            start: Vec3::x(),
            angle: Profile::Polynomial(vec![0.0, 0.0, 0.5]),
        };
        let (r, v, a) = path.at(2.0);
        assert!((r - Vec3::new(2f64.cos(), 2f64.sin(), 0.0)).norm() < 1e-15);
        // ṙ = φ̇ (−sin φ, cos φ) with φ̇ = t = 2.
        assert!((v - 2.0 * Vec3::new(-(2f64.sin()), 2f64.cos(), 0.0)).norm() < 1e-14);
        assert!((a - Vec3::new(0.75529, -4.05334, 0.0)).norm() < 1e-5);
    }

    /// Horner's derivatives against the closed forms of r = (1 + 2t + 3t², −t³, 0).
    #[test]
    fn polynomial_derivatives() {
        let path = Path::Polynomial {
            coefficients: vec![
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(3.0, 0.0, 0.0),
                Vec3::new(0.0, -1.0, 0.0),
            ],
        };
        let t = 1.5;
        let (r, v, a) = path.at(t);
        assert!((r - Vec3::new(1.0 + 2.0 * t + 3.0 * t * t, -t * t * t, 0.0)).norm() < 1e-14);
        assert!((v - Vec3::new(2.0 + 6.0 * t, -3.0 * t * t, 0.0)).norm() < 1e-14);
        assert!((a - Vec3::new(6.0, -6.0 * t, 0.0)).norm() < 1e-14);
    }
}
