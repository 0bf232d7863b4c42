//! Closest points of two cylinders touching at curved features, without GJK.
//!
//! Two coins resting on each other tilted touch rim to rim (two circles) or rim to side (a
//! circle and the lateral surface). GJK converges only linearly on such curved pairs: in the
//! coins scene it took 34 iterations a query, a quarter of the run. Here the contact is found
//! as the minimum over the angle θ along the rim of a closed-form distance to the other
//! feature, by Newton's method started from the last query's direction (coherence: the angle
//! moves little between checks), which converges quadratically.
//!
//! A local minimum need not be the closest pair, so the answer is accepted only with the
//! certificate that ends GJK: with `v = p_a − p_b` (both points on the solids) and
//! `w = s_A(−v) − s_B(v)` the support point of `A − B` along `−v`, the duality gap
//! `|v|² − v·w` bounds how far `|v|` can exceed the true distance (by `gap / |v|`). Under GJK's
//! relative tolerance (or, at tiny distances, the rounding of the coordinates) the answer is as
//! exact as GJK's; otherwise the caller runs GJK.

use super::model::Convex;
use crate::math::{Point, Pose, Vec3};

/// A cylinder placed in the world: its pose, and from it the centre, unit axis and radial unit
/// vectors in world coordinates; radius, half-height.
#[derive(Clone, Copy, Debug)]
pub struct PlacedCylinder {
    pose: Pose,
    centre: Point,
    axis: Vec3,
    radial: (Vec3, Vec3),
    radius: f64,
    half_height: f64,
}

impl PlacedCylinder {
    /// The cylinder of `radius` and `half_height` about the local z axis, placed at `pose`.
    pub fn new(pose: &Pose, radius: f64, half_height: f64) -> Self {
        Self {
            pose: *pose,
            centre: pose * Point::origin(),
            axis: pose.rotation * Vec3::z(),
            radial: (pose.rotation * Vec3::x(), pose.rotation * Vec3::y()),
            radius,
            half_height,
        }
    }

    /// The point farthest along `direction`: the narrow phase's own support function, in the
    /// cylinder's frame, where the rim's radial direction is exactly square to the axis (in
    /// world coordinates, `d − a (d·a)` for `d` nearly along the axis is rounding noise, and its
    /// "rim point" lay off the solid).
    fn support(&self, direction: &Vec3) -> Point {
        let shape = Convex::Cylinder {
            radius: self.radius,
            half_height: self.half_height,
        };
        self.pose * shape.core_support(&(self.pose.rotation.inverse() * direction))
    }

    /// Which feature carries the point farthest along `direction`, if a curved one: a rim when
    /// the direction leans on the axis, the side when it is square to it within `side_lean`
    /// (the cosine of its angle to the axis). `None` along the axis, where a cap carries it
    /// (the flat-face shortcut's case).
    fn feature(&self, direction: &Vec3, side_lean: f64) -> Option<Curved> {
        let length = direction.norm();
        let axial = direction.dot(&self.axis) / length;
        if !axial.is_finite() || axial.abs() >= 1.0 - 1e-9 {
            None
        } else if axial.abs() <= side_lean {
            Some(Curved::Side)
        } else {
            Some(Curved::Rim { top: axial > 0.0 })
        }
    }

    /// The rim circle on the `top` (or bottom) cap.
    fn rim(&self, top: bool) -> Circle {
        Circle {
            centre: self.centre
                + self.axis
                    * if top {
                        self.half_height
                    } else {
                        -self.half_height
                    },
            axis: self.axis,
            radial: self.radial,
            radius: self.radius,
        }
    }
}

/// How far (the cosine of the angle to the axis) a direction may lean on a cylinder's axis and
/// still be taken as the side's normal, on the first try and on the second. The side's normal
/// is square to the axis; the last query's direction is off by the motion since, and a rim
/// touching at a slant leans far more. If the first guess of the features is not certified and
/// the second differs, it is tried too.
const SIDE_LEANS: [f64; 2] = [1e-3, 0.1];

/// Newton steps allowed; a warm start converges in 3–4.
const NEWTON_STEPS: usize = 16;

/// Longest step along the rim (radians) one Newton iteration may take.
const MAX_TURN: f64 = 0.25;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Curved {
    Rim { top: bool },
    Side,
}

/// A circle: centre, unit axis, radial unit vectors spanning its plane, radius.
#[derive(Clone, Copy, Debug)]
struct Circle {
    centre: Point,
    axis: Vec3,
    radial: (Vec3, Vec3),
    radius: f64,
}

impl Circle {
    /// The point at angle θ and its first and second derivatives in θ.
    fn at(&self, theta: f64) -> (Point, Vec3, Vec3) {
        let (sin, cos) = theta.sin_cos();
        let out = (self.radial.0 * cos + self.radial.1 * sin) * self.radius;
        let along = (self.radial.1 * cos - self.radial.0 * sin) * self.radius;
        (self.centre + out, along, -out)
    }

    /// The angle of the circle's point in the direction of `direction` across the axis.
    fn angle_towards(&self, direction: &Vec3) -> f64 {
        direction
            .dot(&self.radial.1)
            .atan2(direction.dot(&self.radial.0))
    }
}

/// What the rim point is measured against: another rim, or a side (an infinite cylinder, whose
/// axis passes through `centre`; the finite side's extent is checked afterwards).
#[derive(Clone, Copy, Debug)]
enum Target {
    Rim(Circle),
    Side {
        centre: Point,
        axis: Vec3,
        radius: f64,
    },
}

impl Target {
    /// The function Newton's method minimises over the rim, and its first two derivatives
    /// along it, at the point `p` with derivatives `dp`, `ddp` in θ. For a rim, the squared
    /// distance to the circle, `h² + (ρ − r)²` with `h` the height over its plane and `ρ` the
    /// distance from its axis; for a side, `ρ²`.
    fn objective(&self, p: &Point, dp: &Vec3, ddp: &Vec3) -> (f64, f64) {
        let (centre, axis, circle_radius) = match self {
            Self::Rim(circle) => (circle.centre, circle.axis, Some(circle.radius)),
            Self::Side { centre, axis, .. } => (*centre, *axis, None),
        };
        let q = p - centre;
        let across = |x: &Vec3| x - axis * x.dot(&axis);
        let (q_across, dp_across, ddp_across) = (across(&q), across(dp), across(ddp));
        // (ρ²)' and (ρ²)'' / 2.
        let rho_rho1 = q_across.dot(&dp_across);
        let rho_rho2 = dp_across.norm_squared() + q_across.dot(&ddp_across);
        match circle_radius {
            None => (2.0 * rho_rho1, 2.0 * rho_rho2),
            Some(r) => {
                // f = |q|² − 2 r ρ + r²: f' = 2 q·p' − 2 r ρ'/1, with ρ' = (ρ²)'/(2ρ).
                let rho = q_across.norm();
                let rho1 = rho_rho1 / rho;
                let rho2 = (rho_rho2 - rho1 * rho1) / rho;
                let first = 2.0 * q.dot(dp) - 2.0 * r * rho1;
                let second = 2.0 * (dp.norm_squared() + q.dot(ddp)) - 2.0 * r * rho2;
                (first, second)
            }
        }
    }

    /// The target's point closest to `p`, if it lies on the solid (a side's foot within its
    /// height `half_height` of the centre).
    fn closest_to(&self, p: &Point, half_height: f64) -> Option<Point> {
        match self {
            Self::Rim(circle) => {
                let q = p - circle.centre;
                let across = q - circle.axis * q.dot(&circle.axis);
                let out = across.try_normalize(0.0)?;
                Some(circle.centre + out * circle.radius)
            }
            Self::Side {
                centre,
                axis,
                radius,
            } => {
                let q = p - centre;
                let height = q.dot(axis);
                let across = q - axis * height;
                let out = across.try_normalize(0.0)?;
                (height.abs() <= half_height).then(|| centre + axis * height + out * *radius)
            }
        }
    }
}

/// The closest points of cylinders `a` and `b` when curved features carry them: `(distance,
/// point_a, point_b, normal)` with the normal from b towards a. `cached` is the last query's
/// direction from b towards a; `tolerance` is GJK's relative tolerance on the duality gap.
/// `None` when the features are flat (a cap), both sides, or the answer cannot be certified.
pub fn curved_contact(
    a: &PlacedCylinder,
    b: &PlacedCylinder,
    cached: &Vec3,
    tolerance: f64,
) -> Option<(f64, Point, Point, Vec3)> {
    let mut tried = None;
    for lean in SIDE_LEANS {
        let features = (a.feature(&-cached, lean)?, b.feature(cached, lean)?);
        if tried != Some(features) {
            tried = Some(features);
            if let Some(found) = certified(a, b, features, cached, tolerance) {
                return Some(found);
            }
        }
    }
    None
}

/// [`curved_contact`] for one guess of the features.
fn certified(
    a: &PlacedCylinder,
    b: &PlacedCylinder,
    (feature_a, feature_b): (Curved, Curved),
    cached: &Vec3,
    tolerance: f64,
) -> Option<(f64, Point, Point, Vec3)> {
    let (point_a, point_b) = match (feature_a, feature_b) {
        (Curved::Rim { top }, _) => rim_against(&a.rim(top), b, feature_b, &-cached)?,
        (Curved::Side, Curved::Rim { top }) => {
            let (on_rim, on_side) = rim_against(&b.rim(top), a, feature_a, cached)?;
            (on_side, on_rim)
        }
        (Curved::Side, Curved::Side) => return None,
    };
    let v = point_a - point_b;
    let length_squared = v.norm_squared();
    if length_squared <= 0.0 || !length_squared.is_finite() {
        return None;
    }
    // GJK's stopping test at (p_a, p_b): the duality gap `|v|² − v·w`, as its two parts (each
    // ≥ 0 but for rounding), under the relative tolerance or the rounding. The gap's rounding:
    // v carries that of the points' coordinates, δv ~ ε·reach, which the parts multiply by how
    // far each point lies from its support point (along a side's straight line, a support
    // point at the rim can be the whole height away, where v is all but square to the line).
    let distance = length_squared.sqrt();
    let (from_a, from_b) = (point_a - a.support(&-v), b.support(&v) - point_b);
    let gap = v.dot(&from_a) + v.dot(&from_b);
    let reach = point_a.coords.norm() + point_b.coords.norm();
    let rounding = 8.0 * f64::EPSILON * reach * (distance + from_a.norm() + from_b.norm());
    // And at most half of |v|²: the supports then prove the solids apart by at least |v|/2
    // (overlapping, the gap exceeds |v|²), which rounding alone must not be taken to do.
    if !(gap <= tolerance * length_squared + rounding && gap < 0.5 * length_squared) {
        return None;
    }
    Some((distance, point_a, point_b, v / distance))
}

/// The point of `rim` closest to `other`'s `feature` (its rim or side), by Newton's method from
/// the rim point towards `towards`, and the matching point of `other`.
fn rim_against(
    rim: &Circle,
    other: &PlacedCylinder,
    feature: Curved,
    towards: &Vec3,
) -> Option<(Point, Point)> {
    let target = match feature {
        Curved::Rim { top } => Target::Rim(other.rim(top)),
        Curved::Side => Target::Side {
            centre: other.centre,
            axis: other.axis,
            radius: other.radius,
        },
    };
    let mut theta = rim.angle_towards(towards);
    let mut converged = false;
    for _ in 0..NEWTON_STEPS {
        let (p, dp, ddp) = rim.at(theta);
        let (first, second) = target.objective(&p, &dp, &ddp);
        // Newton's step where the function curves up and the step is short; elsewhere (a start
        // far off, where the distance along the rim curves down) a bounded step downhill.
        let newton = first / second;
        let step = if second > 0.0 && newton.abs() <= MAX_TURN {
            newton
        } else {
            MAX_TURN.copysign(first)
        };
        if !step.is_finite() {
            return None;
        }
        theta -= step;
        if step.abs() <= 1e-15 * (1.0 + theta.abs()) {
            converged = true;
            break;
        }
    }
    if !converged {
        return None;
    }
    let (on_rim, _, _) = rim.at(theta);
    let on_other = target.closest_to(&on_rim, other.half_height)?;
    Some((on_rim, on_other))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::gjk::{GjkResult, GjkSettings, gjk};
    use crate::math::Quat;

    /// A US quarter (radius 1.213 cm, 0.175 cm thick) at `position`, turned by `tilt`.
    fn coin(position: Vec3, tilt: Vec3) -> PlacedCylinder {
        let pose = Pose::from_parts(position.into(), Quat::from_scaled_axis(tilt));
        PlacedCylinder::new(&pose, 1.213, 0.0875)
    }

    /// GJK between the same two cylinders, the oracle: distance and normal (from b to a).
    fn by_gjk(a: &PlacedCylinder, b: &PlacedCylinder) -> Option<(f64, Vec3)> {
        match gjk(
            &|d: &Vec3| a.support(d),
            &|d: &Vec3| b.support(d),
            &(a.centre - b.centre),
            &GjkSettings::default(),
        ) {
            GjkResult::Separated {
                distance,
                direction,
                ..
            } => Some((distance, direction)),
            GjkResult::Intersecting(_) => None,
        }
    }

    /// Coin a (turned by `tilt_a`) moved along the line of closest approach to within `gap` of
    /// coin b (turned by `tilt_b`), starting from `position`.
    fn coins_at_gap(position: Vec3, tilt_a: Vec3, tilt_b: Vec3, gap: f64) -> [PlacedCylinder; 2] {
        let b = coin(Vec3::zeros(), tilt_b);
        let (distance, normal) = by_gjk(&coin(position, tilt_a), &b).unwrap();
        [coin(position - normal * (distance - gap), tilt_a), b]
    }

    /// Rim on rim (two configurations) and rim on side, the features the scene's coins touch at.
    const PAIRS: [([f64; 3], [f64; 3], [f64; 3]); 3] = [
        ([2.5, 0.0, 0.0], [0.0, 0.6, 0.0], [0.0, -0.6, 0.0]),
        ([0.3, 2.2, 0.4], [0.5, 0.1, 0.0], [-0.6, 0.0, 0.3]),
        ([2.4, 0.3, 0.1], [0.1, 0.6, 0.0], [0.0, -0.5, 0.2]),
    ];

    #[test]
    fn curved_features_match_gjk_at_every_gap() {
        for (position, tilt_a, tilt_b) in PAIRS.map(|(p, a, b)| (p.into(), a.into(), b.into())) {
            for gap in [0.3, 1e-2, 1e-3, 1e-4] {
                let [a, b] = coins_at_gap(position, tilt_a, tilt_b, gap);
                let (distance, normal) = by_gjk(&a, &b).unwrap();
                // Both ways round (the side is on b in the third pair, then on a), starting
                // 0.05 rad off the normal, as after some motion since the last check.
                let off = Vec3::new(0.03, -0.04, 0.0);
                for (x, y, sign) in [(&a, &b, 1.0), (&b, &a, -1.0)] {
                    let start = (normal * sign + off).normalize();
                    let (d, pa, pb, n) = curved_contact(x, y, &start, 1e-12)
                        .unwrap_or_else(|| panic!("{position} gap {gap}: not certified"));
                    // GJK's answer is within its 1e-12 relative gap of the true distance, and
                    // so is this one, or within the rounding of coordinates of a few
                    // centimetres (1e-13 cm, some 500 ulps at 2.5 cm) at the smallest gaps.
                    let error = (d - distance).abs();
                    assert!(error < 1e-11 * distance + 1e-13, "{d} vs {distance}");
                    let angle = n.angle(&(normal * sign));
                    assert!(
                        angle < 1e-5,
                        "{position} gap {gap}: normals {angle:e} apart"
                    );
                    assert!(((pa - pb).norm() - d).abs() < 1e-14);
                    // The points lie on the solids' surfaces: on a rim or side, radius away
                    // from the axis, or at a cap's height.
                    for (p, c) in [(pa, x), (pb, y)] {
                        let q = p - c.centre;
                        let height = q.dot(&c.axis);
                        let rho = (q - c.axis * height).norm();
                        assert!((rho - c.radius).abs() < 1e-12, "off the curved surface");
                        assert!(height.abs() <= c.half_height * (1.0 + 1e-12));
                    }
                }
            }
        }
    }

    #[test]
    fn a_direction_pointing_at_a_cap_or_two_sides_is_left_to_the_other_methods() {
        // A coin lying flat on another: the caps carry the contact (the flat-face shortcut).
        let lower = coin(Vec3::zeros(), Vec3::zeros());
        let upper = coin(Vec3::new(0.5, 0.0, 0.18), Vec3::zeros());
        assert!(curved_contact(&upper, &lower, &Vec3::z(), 1e-12).is_none());
        // Two coins standing side by side, axes parallel: side on side.
        let stand = Vec3::new(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
        let left = coin(Vec3::zeros(), stand);
        let right = coin(Vec3::new(2.5, 0.0, 0.0), stand);
        assert!(curved_contact(&right, &left, &Vec3::x(), 1e-12).is_none());
    }

    #[test]
    fn an_uncertified_answer_is_refused() {
        // Overlapping coins: no pair of surface points passes the duality-gap test.
        let [a, b] = coins_at_gap(
            PAIRS[0].0.into(),
            PAIRS[0].1.into(),
            PAIRS[0].2.into(),
            1e-3,
        );
        let (_, normal) = by_gjk(&a, &b).unwrap();
        let sunk = coin(a.centre.coords - normal * 0.01, PAIRS[0].1.into());
        assert!(
            by_gjk(&sunk, &b).is_none(),
            "the test's coins should overlap"
        );
        assert!(curved_contact(&sunk, &b, &normal, 1e-12).is_none());
        // A rim over a cap, the normal 0.005 rad off the cap's axis: the rim-to-rim minimum
        // Newton's method finds is 0.001 cm farther than the rim's point from the cap, and the
        // certificate refuses it (the flat-face shortcut settles this pair).
        let upper = coin(Vec3::new(1.5, 0.0, 1.3), Vec3::zeros());
        let tilted = coin(Vec3::zeros(), Vec3::new(0.0, 1.5, 0.0));
        let (distance, normal) = by_gjk(&upper, &tilted).unwrap();
        assert!((distance - 0.2845).abs() < 1e-4, "{distance}");
        assert!(normal.angle(&tilted.axis) < 0.01);
        assert!(curved_contact(&upper, &tilted, &normal, 1e-12).is_none());
    }
}
