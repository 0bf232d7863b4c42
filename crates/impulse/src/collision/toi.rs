//! Conservative time-of-impact bounds (Mirtich §2.3).
//!
//! Two convex bodies at distance `d` along unit direction `d̂` (from body 1's closest point to
//! body 2's) cannot touch until the points of body 1 have travelled, along `d̂`, and those of
//! body 2 along `−d̂`, a total of `d`: each body's motion type bounds that travel by
//! `D(τ) ≤ A τ² + B τ` (eq. 2.13), and the smallest positive root of `(A₁+A₂) τ² + (B₁+B₂) τ = d`
//! is a lower bound on the time of impact. Checking again at that time and repeating is
//! one-sided root finding: it never steps past a collision, however fast or grazing.
//!
//! For a body in ballistic flight (eqs. 2.2–2.3) `A = ½ a·d̂` and `B = v·d̂ + r_max ω_max`, with
//! `r_max` the body's reach from its centre of mass and `ω_max` a bound on its angular speed
//! over the flight. Torque-free rotation keeps the kinetic energy `E = ½ Σ I_i ω_i²`, so
//! `|ω| ≤ √(2E / I_min)` (eq. 2.5, tighter than the momentum bound eq. 2.4).
//!
//! Two refinements of `r_max`, both still bounds: what must be bounded is how fast the body's
//! supporting plane normal to `d̂` advances, and rotation moves it at `(ω × y)·d̂` with `y` the
//! support point. For sphere-swept parts (spheres, capsules) only the core's reach counts, so a
//! rolling ball is not scheduled as if its surface points flew at `r ω` (see
//! [`crate::collision::CollisionModel::spin_reach_from`]). For a prescribed constant angular
//! velocity, `(ω × y)·d̂ = y·(d̂ × ω) ≤ r_max |d̂ × ω|`: a platter spinning about the contact
//! normal does not approach what lies on it.
//!
//! The argument needs one separating direction, so it holds for a pair of convex parts. When
//! either body has several parts, other part pairs approach along other directions: each piece
//! pair near the closest ([`crate::collision::closest_parts`]) gets the bound along its own
//! direction, and the pieces farther than those share the direction-free bound
//! ([`MotionBound::any_direction`]).

use crate::geometry::Aabb;
use crate::math::{Point, Vec3};

/// Coefficients of the travel bound `D(τ) ≤ a τ² + b τ` (Mirtich eq. 2.13).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TravelBound {
    /// Quadratic coefficient (half an acceleration).
    pub a: f64,
    /// Linear coefficient (a speed).
    pub b: f64,
}

impl std::ops::Add for TravelBound {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            a: self.a + other.a,
            b: self.b + other.b,
        }
    }
}

/// How far a body's points can move, by its motion type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MotionBound {
    /// Does not move.
    Fixed,
    /// Free flight: centre-of-mass velocity `velocity` now, constant `acceleration`, angular
    /// speed at most `angular_speed` now and growing at most at `angular_growth` (from an
    /// applied torque), points at most `reach` from the centre of mass.
    Ballistic {
        velocity: Vec3,
        acceleration: Vec3,
        angular_speed: f64,
        angular_growth: f64,
        reach: f64,
        /// The world angular velocity that turns the body's supporting planes now (all of it,
        /// or for a symmetric top its part across the axis), and a bound on how fast that can
        /// change over the flight (infinite when unknown): see [`MotionBound::along_by_turning`].
        angular_velocity: Vec3,
        turning: f64,
        /// A speed added to the bound in every direction, so that it still holds after
        /// impulses change the body's velocities by less (zero for the bound of the motion
        /// as it is). See the event loop's schedule (`world/schedule.rs`), "Allowances".
        allowance: f64,
    },
    /// Motion known ahead (a multibody's link over its envelope): per-axis bounds on the centre
    /// of mass's velocity, a bound on the angular speed, and the spin reach.
    Enveloped {
        velocity_min: Vec3,
        velocity_max: Vec3,
        angular_speed: f64,
        reach: f64,
    },
    /// Prescribed motion: the reference point moves at most at `speed`, the body turns at the
    /// constant `angular_velocity` about it, its points are at most `reach` from it, and its
    /// supporting planes move at most at `spin_reach |ω|` by the rotation.
    Prescribed {
        speed: f64,
        angular_velocity: Vec3,
        reach: f64,
        spin_reach: f64,
    },
}

impl MotionBound {
    /// Bound on the travel of any point of the body along unit `direction` (eq. 2.13).
    pub fn along(&self, direction: &Vec3) -> TravelBound {
        match *self {
            Self::Fixed => TravelBound::default(),
            Self::Ballistic {
                velocity,
                acceleration,
                angular_speed,
                angular_growth,
                reach,
                allowance,
                ..
            } => TravelBound {
                // u·d̂ ≤ (v + a τ)·d̂ + r (ω_max + ω̇_max τ); integrate over τ (eqs. 2.2–2.3).
                a: 0.5 * (acceleration.dot(direction) + reach * angular_growth),
                b: velocity.dot(direction) + reach * angular_speed + allowance,
            },
            Self::Enveloped {
                velocity_min,
                velocity_max,
                angular_speed,
                reach,
            } => TravelBound {
                // The largest velocity component along d̂ any axis bounds allow (Mirtich
                // Fig. 5.4's `k`), plus the spin's share.
                a: 0.0,
                b: (0..3)
                    .map(|i| {
                        if direction[i] < 0.0 {
                            velocity_min[i] * direction[i]
                        } else {
                            velocity_max[i] * direction[i]
                        }
                    })
                    .sum::<f64>()
                    + reach * angular_speed,
            },
            Self::Prescribed {
                speed,
                angular_velocity,
                reach,
                spin_reach,
            } => TravelBound {
                a: 0.0,
                b: speed
                    + (spin_reach * angular_velocity.norm())
                        .min(reach * direction.cross(&angular_velocity).norm()),
            },
        }
    }

    /// A second bound on the travel along unit `direction`, from how the rotation turns the
    /// supporting plane rather than from the angular speed: a point `y` from the centre of mass
    /// moves along d̂ at `(ω × y)·d̂ = y·(d̂ × ω) ≤ r |d̂ × ω|`, and the world angular velocity
    /// changes at most at `turning`, so the rotation's share is `r (|d̂ × ω₀| + turning τ)`.
    /// A rattleback spinning about the vertical rocks its lowest point slowly, where eq. 2.13
    /// charges it `r |ω|`. Eq. 2.13 is better over long flights (`turning τ` grows without
    /// limit), this one over short ones; each is a bound, so the later time of impact of the
    /// two is one too. Other motions give [`MotionBound::along`].
    pub fn along_by_turning(&self, direction: &Vec3) -> TravelBound {
        match *self {
            Self::Ballistic {
                velocity,
                acceleration,
                reach,
                angular_velocity,
                turning,
                allowance,
                ..
            } if turning.is_finite() => TravelBound {
                a: 0.5 * (acceleration.dot(direction) + reach * turning),
                b: velocity.dot(direction)
                    + reach * direction.cross(&angular_velocity).norm()
                    + allowance,
            },
            _ => self.along(direction),
        }
    }

    /// Bound on the travel of any point of the body in any direction: for bodies made of
    /// several convex parts, whose part pairs separate along different directions.
    pub fn any_direction(&self) -> TravelBound {
        match *self {
            Self::Fixed => TravelBound::default(),
            Self::Ballistic {
                velocity,
                acceleration,
                angular_speed,
                angular_growth,
                reach,
                allowance,
                ..
            } => TravelBound {
                a: 0.5 * (acceleration.norm() + reach * angular_growth),
                b: velocity.norm() + reach * angular_speed + allowance,
            },
            Self::Enveloped {
                velocity_min,
                velocity_max,
                angular_speed,
                reach,
            } => TravelBound {
                a: 0.0,
                b: velocity_min.abs().sup(&velocity_max.abs()).norm() + reach * angular_speed,
            },
            Self::Prescribed {
                speed,
                angular_velocity,
                spin_reach,
                ..
            } => TravelBound {
                a: 0.0,
                b: speed + spin_reach * angular_velocity.norm(),
            },
        }
    }
}

/// Bound on how far two bodies' points can travel towards each other along any one direction,
/// for the pieces of non-convex bodies whose separating directions were not examined: along
/// unit d̂ the pair's travel is `along_a(d̂) + along_b(−d̂)`, in which two free flights'
/// velocities and accelerations enter as differences, so gravity, common to both, cancels.
pub fn any_direction_between(a: &MotionBound, b: &MotionBound) -> TravelBound {
    match (a, b) {
        (
            MotionBound::Ballistic {
                velocity: va,
                acceleration: aa,
                angular_speed: wa,
                angular_growth: ga,
                reach: ra,
                allowance: sa,
                ..
            },
            MotionBound::Ballistic {
                velocity: vb,
                acceleration: ab,
                angular_speed: wb,
                angular_growth: gb,
                reach: rb,
                allowance: sb,
                ..
            },
        ) => TravelBound {
            a: 0.5 * ((aa - ab).norm() + ra * ga + rb * gb),
            b: (va - vb).norm() + ra * wa + rb * wb + sa + sb,
        },
        _ => a.any_direction() + b.any_direction(),
    }
}

/// Energy bound on the angular speed of torque-free rotation (Mirtich eq. 2.5):
/// `√(Σ I_i ω_i² / I_min)`, with `ω` in the principal frame.
pub fn energy_bound(inertia: &Vec3, omega_body: &Vec3) -> f64 {
    let twice_energy: f64 = (0..3)
        .map(|i| inertia[i] * omega_body[i] * omega_body[i])
        .sum();
    (twice_energy / inertia.min()).sqrt()
}

/// Bound on the rate of change of the angular velocity of torque-free rotation whose angular
/// speed stays at most `angular_speed`. Euler's equations give `ω̇₁ = (I₂ − I₃)/I₁ ω₂ω₃` and
/// cyclically, so `|ω̇| ≤ c √(ω₂²ω₃² + ω₃²ω₁² + ω₁²ω₂²) ≤ c |ω|² / √3` with
/// `c = maxᵢ |I_j − I_k| / Iᵢ` (the sum of pairwise products of the squares is at most a third
/// of `|ω|⁴`). In the world frame `dω/dt = R ω̇_body`, of the same length. Zero for a body with
/// equal moments, whose angular velocity is constant.
pub fn turning_bound(inertia: &Vec3, angular_speed: f64) -> f64 {
    let c = (0..3)
        .map(|i| (inertia[(i + 1) % 3] - inertia[(i + 2) % 3]).abs() / inertia[i])
        .fold(0.0, f64::max);
    c * angular_speed * angular_speed / 3f64.sqrt()
}

#[cfg(any(test, feature = "internals"))]
/// Momentum bound on the angular speed (Mirtich eq. 2.4): `|I ω| / I_min`.
pub fn momentum_bound(inertia: &Vec3, omega_body: &Vec3) -> f64 {
    inertia.component_mul(omega_body).norm() / inertia.min()
}

/// The smallest τ > 0 with `a τ² + b τ = d` (`d > 0`), or infinity if the bound never reaches
/// `d`. Written `2d / (b + √(b² + 4ad))`, which has no cancellation for any sign of `a`.
pub fn time_of_impact(bound: TravelBound, d: f64) -> f64 {
    if d <= 0.0 {
        return 0.0;
    }
    let TravelBound { a, b } = bound;
    let discriminant = b * b + 4.0 * a * d;
    if discriminant < 0.0 {
        return f64::INFINITY;
    }
    let denominator = b + discriminant.sqrt();
    if denominator <= 0.0 {
        f64::INFINITY
    } else {
        2.0 * d / denominator
    }
}

/// How close to let a pair at distance `d` come before checking it again, given the collision
/// envelope `epsilon`: the thesis waits until contact could occur (distance 0); we wait until
/// the distance could fall to `max(d − ε/2, d/2)`. A tight bound (pure translation) then lands
/// inside the envelope instead of exactly at contact, where rounding would put the bodies a
/// hair inside each other, and a separating pair inside the envelope still gets a positive step.
pub fn approach_allowed(d: f64, epsilon: f64) -> f64 {
    (d - 0.5 * epsilon).max(0.5 * d)
}

/// Delay before a pair at distance `d` (negative: overlapping) is checked again, given the
/// bound on its approach and the collision envelope `epsilon`.
///
/// Outside the envelope's inner half the pair may approach by [`approach_allowed`]. Inside it
/// (just after a collision, typically), halving the distance again and again would walk a
/// bouncing body down into the other: a reversing microcollision returns it at the speed it
/// came with, so each bounce would happen lower than the last. Instead the pair is checked when
/// the bound could bring it back to its present distance — for a separating pair, the return
/// time `−b/a` of the bound's parabola, exactly the flight time when the bound is exact (a
/// ball on the ground). Only when the bound cannot tell separation (b ≥ 0) does the pair get a
/// small step of approach, `max(d/2, ε/1000)`.
///
/// A separating pair is never checked sooner than the same pair at rest could fall a quarter
/// of its distance, `√(max(d/4, ε/1000) / a)` (half the small step a pair at rest gets), and
/// in that time it approaches less than that. Otherwise a pair separating only by rounding
/// (b ≈ −10⁻¹⁴, a body resting in contact) would return after a time that does not advance
/// the clock, and be checked forever at one instant; and a body whose bounce was all but
/// stopped (a ball wedged between a dish and its neighbours, whose microcollisions cancel each
/// other's normal velocity) would bounce ever smaller and more often, thousands of times a
/// second. A real bounce, faster than `√(a d)/2`, keeps its exact return time. (A fall of d/2
/// works as well for the dish; the quarter is a choice, the thesis has no such rule.)
pub fn next_check_delay(bound: TravelBound, d: f64, epsilon: f64) -> f64 {
    if d > 0.5 * epsilon {
        return time_of_impact(bound, approach_allowed(d, epsilon));
    }
    let TravelBound { a, b } = bound;
    if b < 0.0 {
        // Separating now: back at this distance after −b/a, or never if it keeps receding.
        return if a > 0.0 {
            (-b / a).max(((0.25 * d).max(1e-3 * epsilon) / a).sqrt())
        } else {
            f64::INFINITY
        };
    }
    time_of_impact(bound, (0.5 * d).max(1e-3 * epsilon))
}

/// [`next_check_delay`] for contact answered by impulses: a pair that overlaps (d < 0) and
/// separates fast enough to leave the overlap is checked when the bound could bring it back to
/// contact, the later root of `a τ² + b τ = d`, not back at the depth it left from, where
/// every hop of a body rising out of an overlap (`WorldSettings::rise_speed`) would end again.
/// (Penalty contact, whose springs act while overlapping, keeps the plain rule.)
pub fn next_check_delay_rising(bound: TravelBound, d: f64, epsilon: f64) -> f64 {
    let TravelBound { a, b } = bound;
    let leaves_overlap = b * b + 4.0 * a * d;
    if d < 0.0 && b < 0.0 && a > 0.0 && leaves_overlap >= 0.0 {
        let back = (-b + leaves_overlap.sqrt()) / (2.0 * a);
        return back.max((1e-3 * epsilon / a).sqrt());
    }
    next_check_delay(bound, d, epsilon)
}

/// The box swept by a body in ballistic flight from `t0` to `t1` (Mirtich Fig. 2.13): its centre
/// of mass follows `c + v τ + ½ a τ²`, so per axis the extremes are at the ends or at the apex;
/// the box of those centres grows by the body's `reach`.
pub fn ballistic_swept_box(c: &Point, v: &Vec3, a: &Vec3, span: f64, reach: f64) -> Aabb {
    let mut min = Point::origin();
    let mut max = Point::origin();
    for k in 0..3 {
        let at = |tau: f64| c[k] + v[k] * tau + 0.5 * a[k] * tau * tau;
        let mut lo = at(0.0).min(at(span));
        let mut hi = at(0.0).max(at(span));
        if a[k] != 0.0 {
            let apex = -v[k] / a[k];
            if apex > 0.0 && apex < span {
                lo = lo.min(at(apex));
                hi = hi.max(at(apex));
            }
        }
        min[k] = lo - reach;
        max[k] = hi + reach;
    }
    Aabb { min, max }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angular_speed_bounds_match_v10() {
        // Digest V10: I = diag(1, 2, 3), ω = (1, 1, 1): momentum √14 = 3.741657, energy
        // √6 = 2.449490, ratio in [√(1/3), 1].
        let inertia = Vec3::new(1.0, 2.0, 3.0);
        let omega = Vec3::new(1.0, 1.0, 1.0);
        assert!((momentum_bound(&inertia, &omega) - 14f64.sqrt()).abs() < 1e-15);
        assert!((energy_bound(&inertia, &omega) - 6f64.sqrt()).abs() < 1e-15);
        // I = diag(2, 3, 4), ω = (0, 0, 5): momentum 10, energy √50 = 7.0710678.
        let inertia = Vec3::new(2.0, 3.0, 4.0);
        let omega = Vec3::new(0.0, 0.0, 5.0);
        assert!((momentum_bound(&inertia, &omega) - 10.0).abs() < 1e-14);
        assert!((energy_bound(&inertia, &omega) - 50f64.sqrt()).abs() < 1e-14);
    }

    #[test]
    fn two_balls_toi_matches_v11() {
        // Digest V11: centres 10 apart, radii 1 (d = 8); ball 1 at v = (2, 0, 0), ω = 3 (sphere:
        // bound = |ω|); ball 2 at rest. B = 2 + 1·3 = 5, gravity cancels: TOI = 8/5 = 1.6.
        let d_hat = Vec3::x();
        let gravity = Vec3::new(0.0, 0.0, -9.81);
        let ball1 = MotionBound::Ballistic {
            velocity: Vec3::new(2.0, 0.0, 0.0),
            acceleration: gravity,
            angular_speed: 3.0,
            angular_growth: 0.0,
            reach: 1.0,
            angular_velocity: Vec3::zeros(),
            turning: f64::INFINITY,
            allowance: 0.0,
        };
        let ball2 = MotionBound::Ballistic {
            velocity: Vec3::zeros(),
            acceleration: gravity,
            angular_speed: 0.0,
            angular_growth: 0.0,
            reach: 1.0,
            angular_velocity: Vec3::zeros(),
            turning: f64::INFINITY,
            allowance: 0.0,
        };
        let total = ball1.along(&d_hat) + ball2.along(&-d_hat);
        assert!((time_of_impact(total, 8.0) - 1.6).abs() < 1e-15);
    }

    #[test]
    fn toi_formula_covers_every_sign() {
        // a > 0: always finite; the root of a τ² + b τ = d.
        let t = time_of_impact(TravelBound { a: 2.0, b: -1.0 }, 3.0);
        assert!((2.0 * t * t - t - 3.0).abs() < 1e-14 && t > 0.0);
        // a = 0, b > 0: d / b. a = 0, b ≤ 0: never.
        assert_eq!(time_of_impact(TravelBound { a: 0.0, b: 4.0 }, 2.0), 0.5);
        assert_eq!(
            time_of_impact(TravelBound { a: 0.0, b: -1.0 }, 2.0),
            f64::INFINITY
        );
        // a < 0 with b large enough: the first root; too small: never.
        let t = time_of_impact(TravelBound { a: -1.0, b: 4.0 }, 3.0);
        assert!((t - 1.0).abs() < 1e-14);
        assert_eq!(
            time_of_impact(TravelBound { a: -1.0, b: 1.0 }, 3.0),
            f64::INFINITY
        );
    }

    #[test]
    fn a_pair_separating_by_rounding_still_waits() {
        // Bug: a ball resting in a dish, 0.0025 cm from it (ε = 0.005 cm) and separating at
        // −2.5e-14 cm/s (rounding) under a = 489 cm/s² (g/2 along the normal), got the return
        // time −b/a = 5e-17 s, which does not advance t ≈ 1.2 s: checked forever at one
        // instant. It waits as long as the pair at rest takes to fall d/4, √(0.000625 / 489).
        let rounding = TravelBound {
            a: 489.0,
            b: -2.5e-14,
        };
        let expected = (0.000625f64 / 489.0).sqrt();
        let delay = next_check_delay(rounding, 0.0025, 0.005);
        assert!((delay - expected).abs() < 1e-12 * expected, "{delay}");
        // A real bounce keeps its exact return time −b/a: a ball leaving the ground at 1 cm/s
        // under g = 981 cm/s² (a = g/2) is back after 2 v / g, longer than √(0.00025 / 490.5).
        let bounce = TravelBound { a: 490.5, b: -1.0 };
        assert_eq!(next_check_delay(bounce, 0.001, 0.005), 1.0 / 490.5);
    }

    #[test]
    fn a_pair_rising_out_of_an_overlap_is_met_at_contact() {
        // A ball 0.5 mm into the ground leaving at 0.1 m/s under g = 9.81 m/s² (a = g/2):
        // its height is z(τ) = −5e-4 + 0.1 τ − 4.905 τ², back at 0 on the way down at
        // τ = (0.1 + √(0.01 − 4 · 4.905 · 5e-4)) / 9.81 (the later root), not back at its
        // depth after 2 v / g.
        let rising = TravelBound { a: 4.905, b: -0.1 };
        let expected = (0.1 + (0.01f64 - 4.0 * 4.905 * 5e-4).sqrt()) / 9.81;
        let delay = next_check_delay_rising(rising, -5e-4, 1e-3);
        assert!((delay - expected).abs() < 1e-14, "{delay} against {expected}");
        assert!(delay < 0.2 / 9.81);
        // Too slow to leave the overlap (peak 0.05² / 19.62 = 0.13 mm < 0.5 mm): back at its
        // depth.
        let slow = TravelBound { a: 4.905, b: -0.05 };
        assert_eq!(next_check_delay_rising(slow, -5e-4, 1e-3), 0.05 / 4.905);
        // The plain rule (penalty contact): back at its depth.
        assert_eq!(next_check_delay(rising, -5e-4, 1e-3), 0.1 / 4.905);
    }

    #[test]
    fn swept_box_holds_the_parabola() {
        let c = Point::new(0.0, 0.0, 1.0);
        let v = Vec3::new(1.0, 0.0, 4.0);
        let a = Vec3::new(0.0, 0.0, -9.81);
        let aabb = ballistic_swept_box(&c, &v, &a, 1.0, 0.1);
        // Apex at τ = 4/9.81: z = 1 + 16/19.62.
        assert!((aabb.max.z - (1.0 + 16.0 / 19.62 + 0.1)).abs() < 1e-14);
        assert!((aabb.min.z - (1.0 + 4.0 - 4.905 - 0.1)).abs() < 1e-14);
        assert!((aabb.max.x - 1.1).abs() < 1e-15 && (aabb.min.x + 0.1).abs() < 1e-15);
    }
}
