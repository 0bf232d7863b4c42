//! What the viewer page and the renderer agree on: where the scene is (the region the moving
//! bodies pass through during the run), and which colour each body gets.

use impulse::math::{Point, Vec3};
use impulse::run::shapes::{BodyRecord, Geometry, ShapeRecord};

use crate::recording::Recording;

/// A sphere around what moves in the run (or, if nothing does, what stands); half-spaces
/// excluded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Centre of the box around those bodies over the whole run.
    pub center: Vec3,
    /// Half the diagonal of that box (at least a small positive length).
    pub radius: f64,
}

/// Distance from the shape frame's origin to the farthest point of the shape (`None` for the
/// half-space).
pub fn shape_radius(geometry: &Geometry) -> Option<f64> {
    let farthest = |vertices: &[[f64; 3]]| {
        vertices
            .iter()
            .map(|v| Vec3::from(*v).norm())
            .fold(0.0, f64::max)
    };
    Some(match geometry {
        Geometry::Sphere { radius } => *radius,
        Geometry::Box { size } => 0.5 * Vec3::from(*size).norm(),
        Geometry::Cylinder { radius, height } => radius.hypot(0.5 * height),
        Geometry::Capsule { radius, length } => radius + 0.5 * length,
        Geometry::Ellipsoid { radii } => radii.iter().copied().fold(0.0, f64::max),
        Geometry::Convex { vertices, .. } | Geometry::Mesh { vertices, .. } => farthest(vertices),
        Geometry::Halfspace => return None,
    })
}

/// A sphere (model frame) around a body's bounded shapes, or `None` if it has none.
pub fn body_sphere(body: &BodyRecord) -> Option<(Point, f64)> {
    let spheres: Vec<(Vec3, f64)> = body
        .shapes
        .iter()
        .filter_map(|s: &ShapeRecord| Some((Vec3::from(s.position), shape_radius(&s.geometry)?)))
        .collect();
    if spheres.is_empty() {
        return None;
    }
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for (c, r) in &spheres {
        lo = lo.inf(&c.add_scalar(-r));
        hi = hi.sup(&c.add_scalar(*r));
    }
    let center = (lo + hi) * 0.5;
    let radius = spheres
        .iter()
        .map(|(c, r)| (c - center).norm() + r)
        .fold(0.0, f64::max);
    Some((Point::from(center), radius))
}

/// Farthest from the origin a drawable scene may reach: beyond it, camera arithmetic loses all
/// precision (and soon overflows).
const FARTHEST: f64 = 1e100;

/// The region the run's moving bounded bodies (dynamic and kinematic) occupy over every
/// recorded frame, or that of the fixed ones when nothing bounded moves. The fixed surroundings
/// are context: framing them too made seven dominos on a 60 cm table a speck in the picture.
/// The viewer page starts from this region, and `impulse render --frame run` draws it.
pub fn bounds(recording: &Recording) -> Result<Bounds, String> {
    let every_frame = |b: usize| {
        recording.tracks[b]
            .iter()
            .map(|s| impulse::math::pose(s.position, s.orientation))
            .collect::<Vec<_>>()
    };
    region(recording, every_frame)
}

/// The region the moving bounded bodies occupy at time `t` (the fixed ones when nothing
/// bounded moves): what `impulse render` frames by default, so that bodies that end up far
/// apart (the see-saw's marbles roll 7 m away) do not make every earlier picture a speck.
pub fn bounds_at(recording: &Recording, t: f64) -> Result<Bounds, String> {
    region(recording, |b| vec![recording.pose_at(b, t)])
}

/// The box around the bounded bodies at the poses `poses` gives for each body: the moving ones,
/// or the fixed ones when nothing bounded moves (only half-spaces: around the origin).
fn region(
    recording: &Recording,
    poses: impl Fn(usize) -> Vec<impulse::math::Pose>,
) -> Result<Bounds, String> {
    let (mut lo, mut hi) = swept_box(recording, &poses, |body| body.motion != "fixed");
    if lo.x == f64::INFINITY {
        (lo, hi) = swept_box(recording, &poses, |_| true);
    }
    if lo.x == f64::INFINITY {
        // Only half-spaces: look at the origin.
        return Ok(Bounds {
            center: Vec3::zeros(),
            radius: 1.0,
        });
    }
    let reach = lo.amax().max(hi.amax());
    if !reach.is_finite() || reach > FARTHEST {
        return Err(format!(
            "the bodies in {} reach {reach:e} length units from the origin: too far to draw",
            recording.dir.display()
        ));
    }
    let radius = 0.5 * (hi - lo).norm();
    Ok(Bounds {
        center: (lo + hi) * 0.5,
        radius: if radius > 0.0 { radius } else { 1.0 },
    })
}

/// Corners of the box around the bounded bodies that `include` picks, at the poses `poses`
/// gives for each (infinite and empty when there are none).
fn swept_box(
    recording: &Recording,
    poses: &impl Fn(usize) -> Vec<impulse::math::Pose>,
    include: impl Fn(&BodyRecord) -> bool,
) -> (Vec3, Vec3) {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for (b, body) in recording.shapes.bodies.iter().enumerate() {
        let Some((center, radius)) = body_sphere(body).filter(|_| include(body)) else {
            continue;
        };
        for pose in poses(b) {
            let c = pose * center;
            lo = lo.inf(&c.coords.add_scalar(-radius));
            hi = hi.sup(&c.coords.add_scalar(radius));
        }
    }
    (lo, hi)
}

/// The region around body `b` at time `t`: centred on it, three times its own size (so that
/// what it meets shows), for `impulse render --follow`.
pub fn around_body(recording: &Recording, b: usize, t: f64) -> Bounds {
    let pose = recording.pose_at(b, t);
    match body_sphere(&recording.shapes.bodies[b]) {
        Some((center, radius)) => Bounds {
            center: (pose * center).coords,
            radius: 3.0 * radius,
        },
        None => Bounds {
            center: pose.translation.vector,
            radius: 1.0,
        },
    }
}

/// Colours of moving bodies, in turn (Tableau 10, which stays distinguishable for most readers).
const PALETTE: [[u8; 3]; 8] = [
    [78, 121, 167],
    [242, 142, 43],
    [225, 87, 89],
    [118, 183, 178],
    [89, 161, 79],
    [237, 201, 72],
    [176, 122, 161],
    [156, 117, 95],
];

/// Grey for fixed bodies (the ground, walls).
const FIXED: [u8; 3] = [170, 170, 170];

/// The colour of each body: fixed bodies grey, the others from the palette in order.
pub fn body_colors(bodies: &[BodyRecord]) -> Vec<[u8; 3]> {
    let mut next = 0;
    bodies
        .iter()
        .map(|b| {
            if b.motion == "fixed" {
                FIXED
            } else {
                next += 1;
                PALETTE[(next - 1) % PALETTE.len()]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_radii_are_the_farthest_points() {
        // Hand-computed: a 2 × 4 × 4 box reaches √(1 + 4 + 4) = 3 from its centre; a cylinder of
        // radius 3 and height 8 reaches √(3² + 4²) = 5 at its rim.
        let b = Geometry::Box {
            size: [2.0, 4.0, 4.0],
        };
        assert_eq!(shape_radius(&b), Some(3.0));
        let c = Geometry::Cylinder {
            radius: 3.0,
            height: 8.0,
        };
        assert_eq!(shape_radius(&c), Some(5.0));
        assert_eq!(shape_radius(&Geometry::Halfspace), None);
    }
}
