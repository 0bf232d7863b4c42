//! A body's description: its shapes placed in the model frame, how its mass is given, how it
//! moves, and the checks and mass properties that turn a description into a body.

use std::fmt;

use crate::geometry::{MassProperties, Shape, ShapeError};
use crate::integrate::IntegrationError;
use crate::math::{Mat3, Point, Pose, Vec3};

use super::PrescribedMotion;
use super::{Material, MaterialError};

/// How a body moves.
#[derive(Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum MotionType {
    /// Moves under gravity, applied forces and (later) collisions.
    #[default]
    Dynamic,
    /// Never moves; infinitely massive.
    Fixed,
    /// Follows a prescribed motion; infinitely massive.
    Kinematic(PrescribedMotion),
}

/// A shape placed in a body's model frame.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedShape {
    /// The shape, in its own frame.
    pub shape: Shape,
    /// Pose of the shape's frame in the model frame.
    pub pose: Pose,
    /// Density of this shape, overriding the body's (only with a body `density`).
    pub density: Option<f64>,
}

impl PlacedShape {
    /// A shape at the model origin.
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            pose: Pose::identity(),
            density: None,
        }
    }
}

/// How a body's mass is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSpec {
    /// Uniform density of the shapes (each shape may override it).
    Density(f64),
    /// Total mass of the shapes, at uniform density.
    Mass(f64),
    /// Mass properties given directly (a robot model's `<inertial>`): the shapes only collide
    /// and add no mass, and a multibody link may then have no shapes at all.
    Explicit {
        /// Mass (> 0).
        mass: f64,
        /// Centre of mass, model coordinates.
        center_of_mass: Point,
        /// Inertia tensor about the centre of mass along the model axes (symmetric, positive
        /// definite).
        inertia: Mat3,
    },
}

/// Everything needed to create a body.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDesc {
    /// Unique name.
    pub name: String,
    /// Shapes in the model frame (at least one).
    pub shapes: Vec<PlacedShape>,
    /// Point masses `(mass, position in the model frame)`, added to the shapes' mass.
    pub point_masses: Vec<(f64, Point)>,
    /// Mass of the shapes; ignored for fixed and kinematic bodies.
    pub mass: MassSpec,
    /// Pose of the model frame in the world at time 0.
    pub pose: Pose,
    /// Velocity of the centre of mass at time 0.
    pub velocity: Vec3,
    /// Angular velocity at time 0.
    pub angular_velocity: Vec3,
    /// How the body moves.
    pub motion: MotionType,
    /// Surface material.
    pub material: Material,
    /// Named material this body uses, if any (for per-pair overrides).
    pub material_name: Option<String>,
    /// Constant force at the centre of mass, world frame.
    pub force: Vec3,
    /// Constant torque, world frame.
    pub torque: Vec3,
}

impl BodyDesc {
    /// A dynamic body of uniform density 1 made of one shape at the origin, at rest.
    pub fn new(name: impl Into<String>, shape: Shape) -> Self {
        Self {
            name: name.into(),
            shapes: vec![PlacedShape::new(shape)],
            point_masses: Vec::new(),
            mass: MassSpec::Density(1.0),
            pose: Pose::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            motion: MotionType::Dynamic,
            material: Material::default(),
            material_name: None,
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
        }
    }
}

/// Why a body description cannot make a body.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyError {
    /// No shapes.
    NoShapes,
    /// A number is NaN or infinite.
    NonFinite { what: &'static str },
    /// Mass or density not positive.
    NonPositiveMass { what: &'static str, value: f64 },
    /// A half-space on a body that can move.
    HalfSpaceNotFixed,
    /// A dynamic body that includes a half-space cannot have mass properties.
    ZeroInertia,
    /// The mass or the inertia is too small for `f64`: it underflowed to zero or to a
    /// subnormal number (a sphere of radius 1e-300 was called singular, issue 42).
    Underflow { mass: f64, inertia: f64 },
    /// An inertia tensor given directly that no solid has: a principal moment not positive, or
    /// larger than the sum of the other two.
    InertiaNotPhysical { moments: [f64; 3] },
    /// Friction or restitution outside its range.
    BadMaterial(MaterialError),
    /// The initial state cannot be integrated.
    Integration(IntegrationError),
    /// Shape `index` (in the body's list) has bad dimensions.
    Shape {
        index: usize,
        kind: &'static str,
        error: ShapeError,
    },
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoShapes => write!(f, "a body needs at least one shape"),
            Self::NonFinite { what } => write!(f, "{what} must be finite"),
            Self::NonPositiveMass { what, value } => {
                write!(
                    f,
                    "{what} must be positive, got {}",
                    crate::math::readable(*value)
                )
            }
            Self::HalfSpaceNotFixed => write!(
                f,
                "a half-space is unbounded, so only a fixed body may use one"
            ),
            Self::ZeroInertia => write!(
                f,
                "the body's inertia is singular (all its mass on a line); give it a solid shape"
            ),
            Self::Underflow { mass, inertia } => write!(
                f,
                "the body is too small for its mass properties to be represented (mass {}, \
                 largest principal moment {}: they underflow); give its shapes sizes and \
                 density of ordinary magnitude, or choose smaller units",
                crate::math::readable(*mass),
                crate::math::readable(*inertia)
            ),
            Self::InertiaNotPhysical { moments } => write!(
                f,
                "the inertia tensor's principal moments ({}, {}, {}) must be positive, and each \
                 at most the sum of the other two (the triangle inequality every solid obeys)",
                moments[0], moments[1], moments[2]
            ),
            Self::BadMaterial(error) => error.fmt(f),
            Self::Integration(e) => e.fmt(f),
            Self::Shape { index, kind, error } => write!(f, "shape {index} ({kind}): {error}"),
        }
    }
}

impl std::error::Error for BodyError {}

/// Checks that an inertia tensor (about the centre of mass) is one a solid can have: its
/// principal moments positive (beyond rounding: 1e-12 of the largest) and each at most the sum
/// of the other two (`I₁ + I₂ ≥ I₃`: the moments are sums of second moments `∫y² + z²`, …).
pub(crate) fn check_inertia(inertia: &Mat3) -> Result<(), BodyError> {
    let moments = nalgebra::SymmetricEigen::new(*inertia).eigenvalues;
    let largest = moments.amax();
    let positive = moments.iter().all(|&m| m > 1e-12 * largest) && largest.is_finite();
    let sum = moments.sum();
    let triangle = moments.iter().all(|&m| m <= (sum - m) * (1.0 + 1e-9));
    if positive && triangle {
        Ok(())
    } else {
        Err(BodyError::InertiaNotPhysical {
            moments: [moments[0], moments[1], moments[2]],
        })
    }
}

/// [`BodyError::Underflow`] if mass properties of `mass` and largest principal moment
/// `inertia`, for shapes reaching `size` from the model origin, were lost to underflow: a mass
/// of 0 or subnormal, a subnormal moment, or moments of 0 where `mass · size²` is itself below
/// the least normal number. (All-zero moments of an ordinary mass are a point or a line.)
pub(crate) fn underflow(mass: f64, inertia: f64, size: f64) -> Option<BodyError> {
    let subnormal = |x: f64| x.is_finite() && !x.is_normal();
    let lost = subnormal(mass)
        || (inertia != 0.0 && subnormal(inertia))
        || (inertia == 0.0 && mass * size * size < f64::MIN_POSITIVE);
    lost.then_some(BodyError::Underflow { mass, inertia })
}

/// Checks every shape's dimensions ([`Shape::check`]).
pub(crate) fn check_shapes(shapes: &[PlacedShape]) -> Result<(), BodyError> {
    for (index, placed) in shapes.iter().enumerate() {
        placed.shape.check().map_err(|error| BodyError::Shape {
            index,
            kind: placed.shape.kind(),
            error,
        })?;
    }
    Ok(())
}

/// Mass properties of a body's shapes and point masses, in its model frame.
pub(crate) fn body_mass_properties(desc: &BodyDesc) -> Result<MassProperties, BodyError> {
    let mut parts = Vec::with_capacity(desc.shapes.len() + desc.point_masses.len());
    match desc.mass {
        MassSpec::Density(density) => {
            if !(density.is_finite() && density > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "density",
                    value: density,
                });
            }
            for placed in &desc.shapes {
                let d = placed.density.unwrap_or(density);
                if !(d.is_finite() && d > 0.0) {
                    return Err(BodyError::NonPositiveMass {
                        what: "shape density",
                        value: d,
                    });
                }
                if let Some(mp) = placed.shape.mass_properties(d) {
                    parts.push(mp.transformed(&placed.pose));
                }
            }
        }
        MassSpec::Mass(mass) => {
            if !(mass.is_finite() && mass > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "mass",
                    value: mass,
                });
            }
            let unit: Vec<MassProperties> = desc
                .shapes
                .iter()
                .filter_map(|p| p.shape.mass_properties(1.0).map(|m| m.transformed(&p.pose)))
                .collect();
            let total = MassProperties::combine(&unit);
            parts.push(total.with_mass(mass));
        }
        MassSpec::Explicit {
            mass,
            center_of_mass,
            inertia,
        } => {
            if !(mass.is_finite() && mass > 0.0) {
                return Err(BodyError::NonPositiveMass {
                    what: "mass",
                    value: mass,
                });
            }
            let finite = center_of_mass.coords.iter().all(|c| c.is_finite())
                && inertia.iter().all(|c| c.is_finite());
            if !finite {
                return Err(BodyError::NonFinite {
                    what: "the centre of mass and the inertia tensor",
                });
            }
            let inertia = (inertia + inertia.transpose()) * 0.5;
            check_inertia(&inertia)?;
            parts.push(MassProperties {
                mass,
                center_of_mass,
                inertia,
                volume: 0.0,
            });
        }
    }
    for &(mass, position) in &desc.point_masses {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(BodyError::NonPositiveMass {
                what: "point mass",
                value: mass,
            });
        }
        parts.push(MassProperties::point_mass(mass, position));
    }
    let combined = MassProperties::combine(&parts);
    let finite = combined.mass.is_finite()
        && combined.center_of_mass.coords.iter().all(|c| c.is_finite())
        && combined.inertia.iter().all(|c| c.is_finite());
    if !finite {
        return Err(BodyError::NonFinite {
            what: "the inertia (mass × size², here too large: check the mass, density, \
                   point masses, sizes and shape offsets)",
        });
    }
    Ok(combined)
}
