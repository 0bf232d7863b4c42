//! The shapes a body can be made of, each in its own coordinates ("shape frame").
//!
//! Curved primitives are exact (spheres are spheres, not tessellations); polyhedra carry their
//! adjacency; a non-convex polyhedron is a union of convex pieces; the half-space is the ground.

use std::f64::consts::PI;
use std::sync::Arc;

use super::convex::ConvexPolyhedron;
use super::mass::MassProperties;
use super::polyhedron::Polyhedron;
use crate::math::{Mat3, Point, Pose, Vec3, readable};

/// A solid in its own frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A ball centred at the origin.
    Sphere { radius: f64 },
    /// A box centred at the origin, edges along the axes.
    Box { half_extents: Vec3 },
    /// A circular cylinder centred at the origin, axis along z.
    Cylinder { radius: f64, half_height: f64 },
    /// A cylinder with hemispherical caps; the segment between the cap centres runs along z from
    /// `-half_height` to `+half_height`.
    Capsule { radius: f64, half_height: f64 },
    /// An ellipsoid centred at the origin with semi-axes along x, y, z.
    Ellipsoid { radii: Vec3 },
    /// A convex polyhedron.
    Convex(Arc<ConvexPolyhedron>),
    /// A non-convex polyhedron: a closed surface and the convex pieces that make it up.
    Polyhedron(Arc<Polyhedron>),
    /// The solid half-space `z ≤ 0` (the ground); only fixed bodies may use it.
    HalfSpace,
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Point,
    /// Largest corner.
    pub max: Point,
}

impl Aabb {
    /// The box around a set of points.
    pub fn around(points: impl IntoIterator<Item = Point>) -> Self {
        let mut min = Point::from(Vec3::repeat(f64::INFINITY));
        let mut max = Point::from(Vec3::repeat(f64::NEG_INFINITY));
        for p in points {
            min = min.inf(&p);
            max = max.sup(&p);
        }
        Self { min, max }
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.inf(&other.min),
            max: self.max.sup(&other.max),
        }
    }
}

/// The thinnest a primitive may be, as a fraction of its largest dimension. Below it a box's
/// corners no longer span a volume the convex hull can resolve (1e-9 of its size), and contact
/// normals on the thin sides are ill-conditioned. A sheet of paper is 3e-4 of a page.
pub const MIN_PROPORTION: f64 = 1e-6;

/// Why a shape cannot be simulated as given.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeError {
    /// A dimension is not a positive finite number (a capsule's length may be zero).
    Dimension {
        /// Which dimension ("radius", "half-extent x", ...).
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// The shape is thinner than [`MIN_PROPORTION`] of its largest dimension.
    TooThin {
        /// The smallest and largest dimensions (edge lengths, diameters).
        thinnest: f64,
        largest: f64,
    },
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Dimension { what, value } => {
                write!(
                    f,
                    "its {what} must be a positive finite number, got {}",
                    crate::math::readable(*value)
                )
            }
            Self::TooThin { thinnest, largest } => write!(
                f,
                "it is {} thick and {} across: a shape thinner than {MIN_PROPORTION:e} of its \
                 size cannot be simulated reliably (make it thicker)",
                readable(*thinnest),
                readable(*largest)
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

impl Shape {
    /// Checks that a primitive's dimensions are positive and finite and that it is not
    /// thinner than [`MIN_PROPORTION`] of its size. Polyhedra are checked when built, and a
    /// half-space has no dimensions.
    pub fn check(&self) -> Result<(), ShapeError> {
        let positive = |what: &'static str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(())
            } else {
                Err(ShapeError::Dimension { what, value })
            }
        };
        // Extents along three axes (edge lengths or diameters).
        let extents = match self {
            Self::Sphere { radius } => {
                positive("radius", *radius)?;
                return Ok(());
            }
            Self::Box { half_extents: h } => {
                positive("half-extent x", h.x)?;
                positive("half-extent y", h.y)?;
                positive("half-extent z", h.z)?;
                2.0 * h
            }
            Self::Cylinder {
                radius,
                half_height,
            } => {
                positive("radius", *radius)?;
                positive("half-height", *half_height)?;
                Vec3::new(2.0 * radius, 2.0 * radius, 2.0 * half_height)
            }
            Self::Capsule {
                radius,
                half_height,
            } => {
                positive("radius", *radius)?;
                if !(half_height.is_finite() && *half_height >= 0.0) {
                    return Err(ShapeError::Dimension {
                        what: "half-length",
                        value: *half_height,
                    });
                }
                Vec3::new(2.0 * radius, 2.0 * radius, 2.0 * (radius + half_height))
            }
            Self::Ellipsoid { radii } => {
                positive("semi-axis x", radii.x)?;
                positive("semi-axis y", radii.y)?;
                positive("semi-axis z", radii.z)?;
                2.0 * radii
            }
            Self::Convex(_) | Self::Polyhedron(_) | Self::HalfSpace => return Ok(()),
        };
        let (thinnest, largest) = (extents.min(), extents.max());
        if thinnest < MIN_PROPORTION * largest {
            return Err(ShapeError::TooThin { thinnest, largest });
        }
        Ok(())
    }

    /// A short lower-case name of the kind of shape ("sphere", "box", ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Sphere { .. } => "sphere",
            Self::Box { .. } => "box",
            Self::Cylinder { .. } => "cylinder",
            Self::Capsule { .. } => "capsule",
            Self::Ellipsoid { .. } => "ellipsoid",
            Self::Convex(_) => "convex",
            Self::Polyhedron(_) => "mesh",
            Self::HalfSpace => "halfspace",
        }
    }

    /// Volume, or `None` for the unbounded half-space.
    pub fn volume(&self) -> Option<f64> {
        Some(match self {
            Self::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
            Self::Box { half_extents: h } => 8.0 * h.x * h.y * h.z,
            Self::Cylinder {
                radius,
                half_height,
            } => PI * radius * radius * 2.0 * half_height,
            Self::Capsule {
                radius,
                half_height,
            } => PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius),
            Self::Ellipsoid { radii: r } => 4.0 / 3.0 * PI * r.x * r.y * r.z,
            Self::Convex(c) => c.volume_integrals().t1,
            Self::Polyhedron(p) => p.mesh().volume_integrals().t1,
            Self::HalfSpace => return None,
        })
    }

    /// Mass properties at uniform `density`, in the shape frame; `None` for the half-space.
    ///
    /// Curved primitives use closed forms; polyhedra use Mirtich's volume integrals.
    pub fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        let centred = |mass: f64, diagonal: Vec3, volume: f64| MassProperties {
            mass,
            center_of_mass: Point::origin(),
            inertia: Mat3::from_diagonal(&diagonal),
            volume,
        };
        let volume = self.volume()?;
        let m = density * volume;
        Some(match self {
            Self::Sphere { radius } => centred(m, Vec3::repeat(0.4 * m * radius * radius), volume),
            Self::Box { half_extents: h } => {
                // m (b² + c²) / 12 with full edges b = 2h_y, c = 2h_z.
                let (x2, y2, z2) = (h.x * h.x, h.y * h.y, h.z * h.z);
                centred(m, Vec3::new(y2 + z2, z2 + x2, x2 + y2) * (m / 3.0), volume)
            }
            Self::Cylinder {
                radius,
                half_height,
            } => {
                let r2 = radius * radius;
                let length = 2.0 * half_height;
                let transverse = m * (3.0 * r2 + length * length) / 12.0;
                centred(m, Vec3::new(transverse, transverse, 0.5 * m * r2), volume)
            }
            Self::Capsule {
                radius,
                half_height,
            } => capsule_mass_properties(density, *radius, *half_height),
            Self::Ellipsoid { radii: r } => {
                let (a2, b2, c2) = (r.x * r.x, r.y * r.y, r.z * r.z);
                centred(m, Vec3::new(b2 + c2, c2 + a2, a2 + b2) * (m / 5.0), volume)
            }
            Self::Convex(c) => c.volume_integrals().mass_properties(density),
            Self::Polyhedron(p) => p.mesh().volume_integrals().mass_properties(density),
            Self::HalfSpace => unreachable!("volume() returned None above"),
        })
    }

    /// Largest distance from the shape-frame origin to any point of the shape (infinite for the
    /// half-space).
    pub fn bounding_radius(&self) -> f64 {
        match self {
            Self::Sphere { radius } => *radius,
            Self::Box { half_extents } => half_extents.norm(),
            Self::Cylinder {
                radius,
                half_height,
            } => radius.hypot(*half_height),
            Self::Capsule {
                radius,
                half_height,
            } => radius + half_height,
            Self::Ellipsoid { radii } => radii.max(),
            Self::Convex(c) => max_norm(c.vertices()),
            Self::Polyhedron(p) => max_norm(&p.mesh().vertices),
            Self::HalfSpace => f64::INFINITY,
        }
    }

    /// The point of the shape farthest along `direction` (shape frame); `None` for the
    /// half-space.
    pub fn support(&self, direction: &Vec3) -> Option<Point> {
        let d = direction;
        Some(match self {
            Self::Sphere { radius } => Point::from(unit_or_z(d) * *radius),
            Self::Box { half_extents: h } => {
                Point::new(h.x.copysign(d.x), h.y.copysign(d.y), h.z.copysign(d.z))
            }
            Self::Cylinder {
                radius,
                half_height,
            } => {
                let radial = Vec3::new(d.x, d.y, 0.0);
                let rim = if radial.norm() > 0.0 {
                    radial.normalize() * *radius
                } else {
                    Vec3::zeros()
                };
                Point::new(rim.x, rim.y, half_height.copysign(d.z))
            }
            Self::Capsule {
                radius,
                half_height,
            } => Point::new(0.0, 0.0, half_height.copysign(d.z)) + unit_or_z(d) * *radius,
            Self::Ellipsoid { radii: r } => {
                // Maximiser of d·x on x²/a² + ... = 1 is x = R² d / |R d|.
                let scaled = d.component_mul(r);
                let length = scaled.norm();
                if length == 0.0 {
                    Point::new(0.0, 0.0, r.z)
                } else {
                    Point::from(r.component_mul(&scaled) / length)
                }
            }
            Self::Convex(c) => c.support(d),
            Self::Polyhedron(p) => p
                .pieces()
                .iter()
                .map(|piece| piece.support(d))
                .max_by(|a, b| a.coords.dot(d).total_cmp(&b.coords.dot(d)))?,
            Self::HalfSpace => return None,
        })
    }

    /// Axis-aligned bounding box of the shape placed by `pose` (`None` for the half-space).
    pub fn aabb(&self, pose: &Pose) -> Option<Aabb> {
        if matches!(self, Self::HalfSpace) {
            return None;
        }
        // Support points along ±world axes, mapped into the shape frame and back.
        let mut min = Point::origin();
        let mut max = Point::origin();
        for axis in 0..3 {
            let mut world_axis = Vec3::zeros();
            world_axis[axis] = 1.0;
            let local = pose.rotation.inverse() * world_axis;
            let high = pose * self.support(&local)?;
            let low = pose * self.support(&-local)?;
            max[axis] = high[axis];
            min[axis] = low[axis];
        }
        Some(Aabb { min, max })
    }
}

fn unit_or_z(d: &Vec3) -> Vec3 {
    let length = d.norm();
    if length > 0.0 { d / length } else { Vec3::z() }
}

fn max_norm(points: &[Point]) -> f64 {
    points.iter().map(|p| p.coords.norm()).fold(0.0, f64::max)
}

/// Capsule: a cylinder of length `2h` plus two hemispheres of radius `r`.
///
/// A hemisphere of mass `m_h` has its centre of mass `3r/8` from its flat face and inertia
/// `2/5 m_h r²` about any axis through the centre of that face; move it to its centre of mass, then
/// out to the capsule's centre, `h + 3r/8` away.
fn capsule_mass_properties(density: f64, r: f64, h: f64) -> MassProperties {
    let r2 = r * r;
    let cylinder_mass = density * PI * r2 * 2.0 * h;
    let hemisphere_mass = density * 2.0 / 3.0 * PI * r2 * r;
    let mass = cylinder_mass + 2.0 * hemisphere_mass;
    let cylinder_axial = 0.5 * cylinder_mass * r2;
    let cylinder_transverse = cylinder_mass * (3.0 * r2 + 4.0 * h * h) / 12.0;
    let hemisphere_about_face = 0.4 * hemisphere_mass * r2;
    let offset = 3.0 * r / 8.0;
    let hemisphere_about_com = hemisphere_about_face - hemisphere_mass * offset * offset;
    let distance = h + offset;
    let transverse =
        cylinder_transverse + 2.0 * (hemisphere_about_com + hemisphere_mass * distance * distance);
    let axial = cylinder_axial + 2.0 * hemisphere_about_face;
    MassProperties {
        mass,
        center_of_mass: Point::origin(),
        inertia: Mat3::from_diagonal(&Vec3::new(transverse, transverse, axial)),
        volume: mass / density,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::tessellate;

    /// Closed forms against Mirtich's integrals over a fine tessellation of the same solid: two
    /// independent computations of the same quantity.
    fn compare_with_tessellation(shape: &Shape, points: Vec<Point>, tolerance: f64) {
        let exact = shape.mass_properties(2.5).unwrap();
        let hull = ConvexPolyhedron::hull_of(&points).unwrap();
        let approx = hull.volume_integrals().mass_properties(2.5);
        let rel = |a: f64, b: f64| ((a - b) / b).abs();
        assert!(
            rel(approx.mass, exact.mass) < tolerance,
            "{}: mass {} vs {}",
            shape.kind(),
            approx.mass,
            exact.mass
        );
        for i in 0..3 {
            assert!(
                rel(approx.inertia[(i, i)], exact.inertia[(i, i)]) < tolerance,
                "{}: I[{i}] {} vs {}",
                shape.kind(),
                approx.inertia[(i, i)],
                exact.inertia[(i, i)]
            );
        }
        assert!(approx.center_of_mass.coords.norm() < 1e-9);
    }

    #[test]
    fn sphere_closed_form_matches_geodesic_tessellation() {
        // Level-6 geodesic sphere (20480 faces) inscribed in the unit sphere: volume error 6e-4.
        let points = tessellate::geodesic_sphere(6).vertices;
        compare_with_tessellation(&Shape::Sphere { radius: 1.0 }, points, 2e-3);
    }

    #[test]
    fn ellipsoid_closed_form_matches_scaled_tessellation() {
        let radii = Vec3::new(3.0, 1.5, 0.7);
        let points = tessellate::geodesic_sphere(6)
            .vertices
            .iter()
            .map(|p| Point::from(p.coords.component_mul(&radii)))
            .collect();
        compare_with_tessellation(&Shape::Ellipsoid { radii }, points, 2e-3);
    }

    #[test]
    fn cylinder_closed_form_matches_prism() {
        let (radius, half_height) = (0.8, 1.7);
        let n = 4000;
        let mut points = Vec::new();
        for k in 0..n {
            let a = k as f64 * std::f64::consts::TAU / n as f64;
            for z in [-half_height, half_height] {
                points.push(Point::new(radius * a.cos(), radius * a.sin(), z));
            }
        }
        let shape = Shape::Cylinder {
            radius,
            half_height,
        };
        compare_with_tessellation(&shape, points, 1e-5);
    }

    #[test]
    fn capsule_closed_form_matches_hull_of_sampled_surface() {
        // Caps sampled on a latitude-longitude grid whose last ring is the exact equator, so the
        // hull's side is a fine prism: tessellation error ~ (π/n)² ≈ 1e-4.
        let (radius, half_height): (f64, f64) = (0.6, 1.1);
        let (rings, around) = (60, 360);
        let mut points = Vec::new();
        for i in 0..=rings {
            let polar = i as f64 / rings as f64 * std::f64::consts::FRAC_PI_2;
            for k in 0..around {
                let azimuth = k as f64 / around as f64 * std::f64::consts::TAU;
                let (x, y) = (
                    radius * polar.sin() * azimuth.cos(),
                    radius * polar.sin() * azimuth.sin(),
                );
                let z = half_height + radius * polar.cos();
                points.push(Point::new(x, y, z));
                points.push(Point::new(x, y, -z));
                if i == 0 {
                    break; // the pole
                }
            }
        }
        let shape = Shape::Capsule {
            radius,
            half_height,
        };
        compare_with_tessellation(&shape, points, 1e-3);
    }

    #[test]
    fn box_closed_form_matches_polyhedron_exactly() {
        let h = Vec3::new(0.5, 1.5, 2.0);
        let points = (0..8)
            .map(|i| {
                Point::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect();
        compare_with_tessellation(&Shape::Box { half_extents: h }, points, 1e-13);
    }

    #[test]
    fn supports_and_boxes() {
        let e = Shape::Ellipsoid {
            radii: Vec3::new(2.0, 1.0, 0.5),
        };
        assert!((e.support(&Vec3::x()).unwrap() - Point::new(2.0, 0.0, 0.0)).norm() < 1e-15);
        let rotated = Pose::rotation(Vec3::z() * std::f64::consts::FRAC_PI_2);
        let aabb = e.aabb(&rotated).unwrap();
        // The long axis now lies along y.
        assert!((aabb.max - Point::new(1.0, 2.0, 0.5)).norm() < 1e-12);
        assert!((aabb.min + Point::new(1.0, 2.0, 0.5).coords).coords.norm() < 1e-12);
        assert!(Shape::HalfSpace.aabb(&Pose::identity()).is_none());
        let c = Shape::Capsule {
            radius: 1.0,
            half_height: 2.0,
        };
        assert_eq!(c.bounding_radius(), 3.0);
        assert_eq!(c.support(&Vec3::z()).unwrap(), Point::new(0.0, 0.0, 3.0));
    }
}
