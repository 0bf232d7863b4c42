//! The quasi-static estimate (Mirtich §7.5.2): a part dropped with its orientation uniform over
//! SO(3) first touches the table with the hull face its gravity ray meets, then rolls, without
//! bouncing, to a face it can rest on.
//!
//! - **Landing face.** Seen from the centre of mass c, the hull faces tile the unit sphere of
//!   directions: the direction d belongs to the face the ray c + t d leaves the hull through. A
//!   uniform orientation makes the body-frame gravity direction uniform on the sphere, so the
//!   chance of landing on face F is F's solid angle over 4π. For a triangle the solid angle is
//!   the spherical excess β₀ + β₁ + β₂ − π of its radial projection (eq. 7.1); polygon faces
//!   are fans of triangles. We evaluate each triangle's excess by Van Oosterom and Strackee's
//!   formula tan(Ω/2) = |a·(b×c)| / (abc + (a·b)c + (b·c)a + (c·a)b), which equals the
//!   angle sum but stays accurate for slivers (the tests check one against the other).
//! - **Toppling.** A face is stable when the foot of the centre of mass on its plane lies in
//!   the face. Otherwise the part tips about the face's boundary point nearest that foot: across
//!   that edge to the neighbouring face, or, when the nearest point is a corner, across whichever
//!   of the corner's two edges the foot lies farthest beyond. Each step lowers the centre of
//!   mass, so following the steps from any face ends at a stable face (its *sink*), whose
//!   probability collects the face's.

use super::part::{HullFace, Part};
use crate::math::{Point, Vec3};

/// The quasi-static analysis of a part: per hull face its solid angle, its sink and the
/// probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct QuasiStatic {
    /// Fraction of the sphere of directions each face covers (eq. 7.1; sums to 1).
    pub landing: Vec<f64>,
    /// The stable face each face ends on (itself when stable).
    pub sink: Vec<usize>,
    /// Resting probability of each face: landing fractions collected at the sinks.
    pub probability: Vec<f64>,
}

impl QuasiStatic {
    /// Analyses `part`.
    pub fn of(part: &Part) -> Self {
        let c = part.center_of_mass();
        let landing: Vec<f64> = part
            .faces()
            .iter()
            .map(|f| face_solid_angle(&c, f) / (4.0 * std::f64::consts::PI))
            .collect();
        let step: Vec<Option<usize>> = part.faces().iter().map(|f| topple(&c, f)).collect();
        let sink: Vec<usize> = (0..step.len()).map(|i| follow(part, &step, i)).collect();
        let mut probability = vec![0.0; landing.len()];
        for (i, &s) in sink.iter().enumerate() {
            probability[s] += landing[i];
        }
        Self {
            landing,
            sink,
            probability,
        }
    }

    /// Whether face `f` is stable.
    pub fn is_stable(&self, f: usize) -> bool {
        self.sink[f] == f
    }
}

/// Follows toppling steps from face `i` to a stable face. Each step lowers the centre of mass
/// (a strictly smaller face height), so no face repeats; should rounding ever make one repeat,
/// the lowest face of the loop is taken.
fn follow(part: &Part, step: &[Option<usize>], i: usize) -> usize {
    let mut seen = vec![i];
    let mut current = i;
    while let Some(next) = step[current] {
        if seen.contains(&next) {
            return seen
                .into_iter()
                .min_by(|&a, &b| part.faces()[a].height.total_cmp(&part.faces()[b].height))
                .unwrap_or(i);
        }
        seen.push(next);
        current = next;
    }
    current
}

/// Solid angle of a hull face seen from `c`: the sum over a fan of triangles.
pub(crate) fn face_solid_angle(c: &Point, face: &HullFace) -> f64 {
    let p = &face.corners;
    (1..p.len() - 1)
        .map(|k| triangle_solid_angle(&(p[0] - c), &(p[k] - c), &(p[k + 1] - c)))
        .sum()
}

/// Solid angle of the triangle with corners `a`, `b`, `c` (relative to the eye), Van Oosterom
/// and Strackee (1983): the spherical excess of eq. 7.1 in a form accurate for slivers.
pub(crate) fn triangle_solid_angle(a: &Vec3, b: &Vec3, c: &Vec3) -> f64 {
    let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
    let numerator = a.dot(&b.cross(c)).abs();
    let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * numerator.atan2(denominator)
}

/// Where a part resting on `face` tips to: `None` if the foot of the centre of mass `c` lies
/// in the face (within rounding), else the neighbour across the edge it tips over.
fn topple(c: &Point, face: &HullFace) -> Option<usize> {
    let n = face.normal;
    let foot = c + n * face.height;
    let corners = &face.corners;
    let count = corners.len();
    let scale = corners
        .iter()
        .map(|p| (p - foot).norm())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    // Signed distance of the foot beyond each edge (positive: outside).
    let beyond: Vec<f64> = (0..count)
        .map(|k| {
            let (p, q) = (corners[k], corners[(k + 1) % count]);
            let outward = (q - p).cross(&n).normalize();
            outward.dot(&(foot - p))
        })
        .collect();
    if beyond.iter().all(|&d| d <= 1e-12 * scale) {
        return None;
    }
    // The nearest boundary point: on an edge's interior, or at a corner.
    let mut best_edge = 0;
    let mut best_distance = f64::INFINITY;
    for k in 0..count {
        let (p, q) = (corners[k], corners[(k + 1) % count]);
        let along = (q - p).dot(&(foot - p)) / (q - p).norm_squared();
        let nearest = p + (q - p) * along.clamp(0.0, 1.0);
        let distance = (foot - nearest).norm();
        // Ties (the nearest point is a corner shared by two edges): the edge the foot lies
        // farther beyond.
        if distance < best_distance - 1e-12 * scale
            || (distance <= best_distance + 1e-12 * scale && beyond[k] > beyond[best_edge])
        {
            best_edge = k;
            best_distance = distance;
        }
    }
    Some(face.neighbours[best_edge])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 7.1 as printed: the spherical excess β₀ + β₁ + β₂ − π from the interior angles of
    /// the projected triangle (each the angle between the planes through the eye and its sides).
    fn excess(a: &Vec3, b: &Vec3, c: &Vec3) -> f64 {
        let angle = |p: &Vec3, q: &Vec3, r: &Vec3| {
            // Interior angle at p between the great circles p→q and p→r.
            let (n1, n2) = (p.cross(q), p.cross(r));
            n1.angle(&n2)
        };
        angle(a, b, c) + angle(b, c, a) + angle(c, a, b) - std::f64::consts::PI
    }

    #[test]
    fn solid_angle_equals_the_spherical_excess_of_eq_7_1() {
        // A deterministic spread of triangles, from fat to sliver-like.
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let centre = Vec3::new(next(), next(), 2.0 + next());
            let corner = |s: f64, n: &mut dyn FnMut() -> f64| centre + Vec3::new(n(), n(), n()) * s;
            let (a, b, c) = (
                corner(0.8, &mut next),
                corner(0.8, &mut next),
                corner(0.8, &mut next),
            );
            let omega = triangle_solid_angle(&a, &b, &c);
            assert!((omega - excess(&a, &b, &c)).abs() < 1e-9, "{omega}");
        }
        // The octant: a quarter of a hemisphere, π/2.
        let octant = triangle_solid_angle(&Vec3::x(), &Vec3::y(), &Vec3::z());
        assert!((octant - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    }
}
