//! Scalar functions of time that drive a joint: a driven angle θ(t) or slide s(t) (issue 36's
//! drivers). Each gives its value with the first and second derivatives, which the driver's row
//! needs at the acceleration level (`rows::driven_angle`, `rows::drive`).

use crate::math::Vec3;

use super::path::polynomial;
use super::spline;

/// A prescribed scalar function of time with its first two derivatives.
#[derive(Clone, Debug, PartialEq)]
pub enum Profile {
    /// `Σ a_k t^k` (the coefficients a₀, a₁, …; at least one).
    Polynomial(Vec<f64>),
    /// `offset + amplitude · sin(2π frequency · t + phase)`, frequency in cycles per unit
    /// time, phase in radians.
    Harmonic {
        offset: f64,
        amplitude: f64,
        frequency: f64,
        phase: f64,
    },
    /// The natural cubic spline through given (time, value) points: C² (continuous value,
    /// rate and acceleration), straight on beyond the first and last times.
    Table(TimeTable),
}

/// Values at times with the natural cubic spline through them — numbers (`TimeTable`, a
/// driver's or load's profile) or points (`TimeTable<Vec3>`, alias [`PathTable`]: a
/// trajectory); build it with [`TimeTable::new`].
///
/// [`PathTable`]: super::PathTable
#[derive(Clone, Debug, PartialEq)]
pub struct TimeTable<T = f64> {
    times: Vec<f64>,
    values: Vec<T>,
    second: Vec<T>,
}

/// What a table can hold: a number or a point.
pub trait TableValue: spline::Knot + std::fmt::Debug {
    /// What one is called in messages ("value", "point"); the table's key is its plural.
    const NAME: &'static str;
    /// Zero.
    fn zero() -> Self;
    /// Whether every coordinate is finite.
    fn finite(&self) -> bool;
}

impl TableValue for f64 {
    const NAME: &'static str = "value";
    fn zero() -> Self {
        0.0
    }
    fn finite(&self) -> bool {
        self.is_finite()
    }
}

impl TableValue for Vec3 {
    const NAME: &'static str = "point";
    fn zero() -> Self {
        Vec3::zeros()
    }
    fn finite(&self) -> bool {
        self.iter().all(|x| x.is_finite())
    }
}

impl<T: TableValue> TimeTable<T> {
    /// The spline through `values` at `times`: at least two points, every number finite, the
    /// times strictly increasing, one value per time.
    pub fn new(times: Vec<f64>, values: Vec<T>) -> Result<Self, String> {
        check_times(&times)?;
        let name = T::NAME;
        if values.len() != times.len() {
            return Err(format!(
                "`{name}s` has {} entries for {} `times`; give one {name} per time",
                values.len(),
                times.len()
            ));
        }
        if let Some(i) = values.iter().position(|v| !v.finite()) {
            return Err(format!(
                "`{name}s[{i}]` must be finite, found {:?}",
                values[i]
            ));
        }
        let second = spline::natural_second(&times, &values, T::zero());
        Ok(Self {
            times,
            values,
            second,
        })
    }

    /// The table's times.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// The table's values (numbers or points), one per time.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// `(value, rate, acceleration)` at time t: the spline's, straight on beyond the ends.
    pub(crate) fn at(&self, t: f64) -> (T, T, T) {
        spline::natural_at(&self.times, &self.values, &self.second, t, T::zero())
    }
}

/// Why `times` cannot be a table's times, if they cannot: fewer than two, not finite, or not
/// strictly increasing.
pub(crate) fn check_times(times: &[f64]) -> Result<(), String> {
    if times.len() < 2 {
        return Err(format!(
            "`times` needs at least 2 points, found {}",
            times.len()
        ));
    }
    if let Some(i) = times.iter().position(|t| !t.is_finite()) {
        return Err(format!("`times[{i}]` must be finite, found {}", times[i]));
    }
    if let Some(i) = (1..times.len()).find(|&i| times[i] <= times[i - 1]) {
        return Err(format!(
            "`times` must increase strictly: `times[{i}]` = {} is not after `times[{}]` = {}",
            times[i],
            i - 1,
            times[i - 1]
        ));
    }
    Ok(())
}

/// Value, rate and acceleration of `offset + amplitude · sin(2π f t + phase)`.
pub(crate) fn harmonic(
    offset: f64,
    amplitude: f64,
    frequency: f64,
    phase: f64,
    t: f64,
) -> (f64, f64, f64) {
    let w = std::f64::consts::TAU * frequency;
    let (s, c) = (w * t + phase).sin_cos();
    (
        offset + amplitude * s,
        amplitude * w * c,
        -amplitude * w * w * s,
    )
}

impl Profile {
    /// `(value, rate, acceleration)` at time t.
    pub fn at(&self, t: f64) -> (f64, f64, f64) {
        match self {
            Self::Polynomial(c) => polynomial(c, t, 0.0),
            Self::Harmonic {
                offset,
                amplitude,
                frequency,
                phase,
            } => harmonic(*offset, *amplitude, *frequency, *phase, t),
            Self::Table(table) => table.at(t),
        }
    }

    /// Why the profile cannot be used, if it cannot; `key` names it in messages.
    pub(crate) fn check(&self, key: &str) -> Result<(), String> {
        match self {
            Self::Polynomial(c) => {
                if c.is_empty() || !c.iter().all(|a| a.is_finite()) {
                    return Err(format!("`{key}` needs at least one finite coefficient"));
                }
            }
            Self::Harmonic {
                offset,
                amplitude,
                frequency,
                phase,
            } => {
                if ![offset, amplitude, phase].iter().all(|x| x.is_finite()) {
                    return Err(format!(
                        "`{key}`: a harmonic's offset, amplitude and phase must be finite"
                    ));
                }
                if !(frequency.is_finite() && *frequency >= 0.0) {
                    return Err(format!(
                        "`{key}`: a harmonic's frequency must be finite and not negative, found {frequency}"
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

    /// The harmonic's derivatives against central differences of its value (h = 1e-4: the
    /// differences' error is about h² times the third derivative, 1e-8 relative here).
    #[test]
    fn harmonic_derivatives_are_those_of_its_value() {
        let p = Profile::Harmonic {
            offset: 0.3,
            amplitude: 1.7,
            frequency: 0.8,
            phase: -0.4,
        };
        let h = 1e-4;
        for k in 0..20 {
            let t = 0.137 * k as f64;
            let (v, r, a) = p.at(t);
            let (vp, vm) = (p.at(t + h).0, p.at(t - h).0);
            let (rp, rm) = (p.at(t + h).1, p.at(t - h).1);
            // Closed form: x = 0.3 + 1.7 sin(2π 0.8 t − 0.4).
            let x = 0.3 + 1.7 * (std::f64::consts::TAU * 0.8 * t - 0.4).sin();
            assert!((v - x).abs() < 1e-15, "value {v} vs {x}");
            assert!((r - (vp - vm) / (2.0 * h)).abs() < 1e-6, "rate at {t}");
            assert!(
                (a - (rp - rm) / (2.0 * h)).abs() < 1e-5,
                "acceleration at {t}"
            );
        }
    }

    /// A table through samples of sin t at 21 equal steps over [0, π] (whose second derivative
    /// is zero at both ends, as the natural spline's is): the spline passes through the samples
    /// (1e-15), and its value, rate and acceleration follow sin, cos, −sin on a grid of 1001
    /// instants. A cubic spline's errors are of order h⁴, h³ and h² times the fourth
    /// derivative (h = π/20; Hall and Meyer's bounds for matching end conditions,
    /// 5/384 h⁴ = 7.9e-6, (1/24 + √3/216) h³ = 1.9e-4, 3/8 h² = 9.3e-3); an independent
    /// script's natural spline gives 1.59e-6, 3.11e-5 and 2.06e-3 here, so the bounds are
    /// 2e-6, 4e-5 and 2.5e-3. Beyond the ends the table goes straight on.
    #[test]
    fn table_reproduces_a_sampled_curve_and_its_derivatives() {
        let n = 21;
        let step = std::f64::consts::PI / (n - 1) as f64;
        let times: Vec<f64> = (0..n).map(|i| i as f64 * step).collect();
        let values: Vec<f64> = times.iter().map(|t| t.sin()).collect();
        let p = Profile::Table(TimeTable::new(times.clone(), values.clone()).unwrap());
        for (t, v) in times.iter().zip(&values) {
            assert!((p.at(*t).0 - v).abs() < 1e-15);
        }
        let (mut ev, mut er, mut ea) = (0.0_f64, 0.0_f64, 0.0_f64);
        for k in 0..=1000 {
            let t = std::f64::consts::PI * k as f64 / 1000.0;
            let (v, r, a) = p.at(t);
            ev = ev.max((v - t.sin()).abs());
            er = er.max((r - t.cos()).abs());
            ea = ea.max((a + t.sin()).abs());
        }
        assert!(ev < 2e-6, "value off by {ev}");
        assert!(er < 4e-5, "rate off by {er}");
        assert!(ea < 2.5e-3, "acceleration off by {ea}");
        // Straight on beyond the end: the end's value plus its rate times the overshoot.
        let (v_end, r_end, _) = p.at(std::f64::consts::PI);
        let (v, r, a) = p.at(std::f64::consts::PI + 0.5);
        assert!((v - (v_end + 0.5 * r_end)).abs() < 1e-15 && r == r_end && a == 0.0);
    }

    /// Bad tables are named: too few points, a non-finite time or value, times out of order or
    /// repeated, a value count that does not match; and a negative frequency.
    #[test]
    fn bad_tables_and_harmonics_are_refused() {
        let e = TimeTable::new(vec![0.0], vec![1.0]).unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
        let e = TimeTable::new(vec![0.0, f64::NAN], vec![1.0, 2.0]).unwrap_err();
        assert!(e.contains("`times[1]` must be finite"), "{e}");
        let e = TimeTable::new(vec![0.0, 2.0, 1.0], vec![1.0, 2.0, 3.0]).unwrap_err();
        assert!(
            e.contains("`times[2]` = 1 is not after `times[1]` = 2"),
            "{e}"
        );
        let e = TimeTable::new(vec![0.0, 1.0, 1.0], vec![1.0, 2.0, 3.0]).unwrap_err();
        assert!(e.contains("increase strictly"), "{e}");
        let e = TimeTable::new(vec![0.0, 1.0], vec![1.0]).unwrap_err();
        assert!(e.contains("one value per time"), "{e}");
        let e = TimeTable::new(vec![0.0, 1.0], vec![1.0, f64::INFINITY]).unwrap_err();
        assert!(e.contains("`values[1]` must be finite"), "{e}");
        let bad = Profile::Harmonic {
            offset: 0.0,
            amplitude: 1.0,
            frequency: -1.0,
            phase: 0.0,
        };
        assert!(bad.check("angle").unwrap_err().contains("frequency"));
    }
}
