//! What collision detection sees of a body: convex parts in the body's model frame.
//!
//! Every shape becomes one or more convex parts: curved primitives stay exact (a sphere is a
//! point with a margin, a capsule a segment with a margin, ellipsoids and cylinders keep their
//! support functions), boxes become polyhedra (for closest-feature tracking), a non-convex mesh
//! contributes its convex pieces, and a half-space stays a plane. A body with several parts keeps
//! a tree of bounding spheres over them so that distance queries visit few piece pairs
//! (Mirtich eq. 2.1: the distance between non-convex bodies is the least over pairs of pieces).

use std::sync::Arc;

use crate::dynamics::PlacedShape;
use crate::geometry::{Aabb, ConvexPolyhedron, Shape};
use crate::math::{Point, Pose, Vec3};

/// A convex solid in its own frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Convex {
    /// A ball: the origin with a margin.
    Sphere { radius: f64 },
    /// A capsule: the segment from `-half_height` to `half_height` along z, with a margin.
    Capsule { radius: f64, half_height: f64 },
    /// A convex polyhedron.
    Polyhedron(Arc<ConvexPolyhedron>),
    /// An ellipsoid with semi-axes along x, y, z.
    Ellipsoid { radii: Vec3 },
    /// A cylinder about z.
    Cylinder { radius: f64, half_height: f64 },
    /// The half-space z ≤ 0.
    HalfSpace,
}

impl Convex {
    /// The part's "core" support point (without margin) along `direction`, own frame.
    pub fn core_support(&self, direction: &Vec3) -> Point {
        match self {
            Self::Sphere { .. } => Point::origin(),
            Self::Capsule { half_height, .. } => {
                Point::new(0.0, 0.0, half_height.copysign(direction.z))
            }
            Self::Polyhedron(p) => p.support(direction),
            Self::Ellipsoid { radii } => {
                let scaled = direction.component_mul(radii);
                let length = scaled.norm();
                if length == 0.0 {
                    Point::new(0.0, 0.0, radii.z)
                } else {
                    Point::from(radii.component_mul(&scaled) / length)
                }
            }
            Self::Cylinder {
                radius,
                half_height,
            } => {
                let radial = Vec3::new(direction.x, direction.y, 0.0);
                let rim = radial
                    .try_normalize(0.0)
                    .map_or(Vec3::zeros(), |r| r * *radius);
                Point::new(rim.x, rim.y, half_height.copysign(direction.z))
            }
            Self::HalfSpace => Point::origin(),
        }
    }

    /// The margin around the core (sphere and capsule radii; zero otherwise).
    pub fn margin(&self) -> f64 {
        match self {
            Self::Sphere { radius } | Self::Capsule { radius, .. } => *radius,
            _ => 0.0,
        }
    }

    /// The full support point along `direction`, own frame.
    pub fn support(&self, direction: &Vec3) -> Point {
        let core = self.core_support(direction);
        let margin = self.margin();
        if margin > 0.0 {
            core + direction.try_normalize(0.0).unwrap_or_else(Vec3::z) * margin
        } else {
            core
        }
    }

    /// A point of the solid, own frame: the centre of a primitive (a point of the boundary
    /// plane for a half-space), a vertex of a polyhedron (whose frame origin, shared by a
    /// decomposed mesh's pieces, may lie outside it).
    pub fn contained_point(&self) -> Point {
        match self {
            Self::Polyhedron(p) => p.vertices().first().copied().unwrap_or_else(Point::origin),
            _ => Point::origin(),
        }
    }

    /// Radius of the smallest origin-centred ball holding the part (infinite for a half-space).
    pub fn bounding_radius(&self) -> f64 {
        match self {
            Self::Sphere { radius } => *radius,
            Self::Capsule {
                radius,
                half_height,
            } => radius + half_height,
            Self::Polyhedron(p) => p.bounding_radius(),
            Self::Ellipsoid { radii } => radii.max(),
            Self::Cylinder {
                radius,
                half_height,
            } => radius.hypot(*half_height),
            Self::HalfSpace => f64::INFINITY,
        }
    }

    /// A ball holding the part, in its own frame: about the origin for the primitives, about
    /// the middle of the vertices' bounding box for a polyhedron (the pieces of a decomposed
    /// mesh all share the mesh's frame, so balls about the origin would all be alike and the
    /// bounding-sphere tree could skip none of them).
    pub fn bounding_sphere(&self) -> (Point, f64) {
        match self {
            Self::Polyhedron(p) => {
                let bounds = Aabb::around(p.vertices().iter().copied());
                let centre = nalgebra::center(&bounds.min, &bounds.max);
                let radius = p
                    .vertices()
                    .iter()
                    .map(|v| (v - centre).norm())
                    .fold(0.0, f64::max);
                (centre, radius)
            }
            other => (Point::origin(), other.bounding_radius()),
        }
    }

    /// Bound on how fast rotation about `point` (own frame) can move the part's supporting
    /// planes, per unit angular speed. A support plane with normal `n̂` moves at
    /// `(ω × (y − point))·n̂ ≤ |ω| |(y − point) × n̂|` with `y` the support point. For a
    /// sphere-swept part `y` is a core point plus `r n̂`, so only the core's reach counts: a
    /// ball spinning about its centre moves no support plane at all. Otherwise the full reach.
    pub fn spin_reach_from(&self, point: &Point) -> f64 {
        match self {
            Self::Sphere { .. } => point.coords.norm(),
            Self::Capsule { half_height, .. } => [*half_height, -half_height]
                .iter()
                .map(|z| (Point::new(0.0, 0.0, *z) - point).norm())
                .fold(0.0, f64::max),
            other => other.reach_from(point),
        }
    }

    /// The farthest distance of the part from `point` (own frame), a bound for ω × r speeds.
    pub fn reach_from(&self, point: &Point) -> f64 {
        match self {
            Self::Polyhedron(p) => p
                .vertices()
                .iter()
                .map(|v| (v - point).norm())
                .fold(0.0, f64::max),
            other => point.coords.norm() + other.bounding_radius(),
        }
    }
}

/// A convex part placed in the body's model frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The solid.
    pub convex: Convex,
    /// Its pose in the model frame.
    pub pose: Pose,
}

impl Part {
    /// World-frame bounding box of the part when the model frame is at `model_pose` (`None`
    /// for a half-space).
    pub fn aabb(&self, model_pose: &Pose) -> Option<Aabb> {
        if matches!(self.convex, Convex::HalfSpace) {
            return None;
        }
        let pose = model_pose * self.pose;
        let mut min = Point::origin();
        let mut max = Point::origin();
        for axis in 0..3 {
            let mut world_axis = Vec3::zeros();
            world_axis[axis] = 1.0;
            let local = pose.rotation.inverse() * world_axis;
            max[axis] = (pose * self.convex.support(&local))[axis];
            min[axis] = (pose * self.convex.support(&-local))[axis];
        }
        Some(Aabb { min, max })
    }
}

/// A node of the bounding-sphere tree over a body's bounded parts (model frame).
#[derive(Clone, Debug, PartialEq)]
pub struct SphereNode {
    /// Centre of the bounding sphere.
    pub centre: Point,
    /// Its radius.
    pub radius: f64,
    /// Either a leaf (a part index) or two children (node indices).
    pub content: NodeContent,
}

/// What a [`SphereNode`] holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeContent {
    /// One part.
    Leaf(usize),
    /// Two child nodes.
    Children(usize, usize),
}

/// A body's collision geometry.
#[derive(Clone, Debug, PartialEq)]
pub struct CollisionModel {
    /// All convex parts (half-spaces included).
    pub parts: Vec<Part>,
    /// Bounding-sphere tree over the bounded parts; the root is the last node. Empty when the
    /// body has no bounded part.
    pub tree: Vec<SphereNode>,
    /// Indices of the half-space parts.
    pub half_spaces: Vec<usize>,
}

impl CollisionModel {
    /// The parts of a body's shapes.
    pub fn from_shapes(shapes: &[PlacedShape]) -> Self {
        let mut parts = Vec::new();
        for placed in shapes {
            let pose = placed.pose;
            let mut push = |convex: Convex, local: Pose| {
                parts.push(Part {
                    convex,
                    pose: pose * local,
                })
            };
            match &placed.shape {
                Shape::Sphere { radius } => {
                    push(Convex::Sphere { radius: *radius }, Pose::identity())
                }
                Shape::Capsule {
                    radius,
                    half_height,
                } => push(
                    Convex::Capsule {
                        radius: *radius,
                        half_height: *half_height,
                    },
                    Pose::identity(),
                ),
                Shape::Box { half_extents: h } => {
                    let corners: Vec<Point> = (0..8)
                        .map(|i| {
                            Point::new(
                                if i & 1 == 0 { -h.x } else { h.x },
                                if i & 2 == 0 { -h.y } else { h.y },
                                if i & 4 == 0 { -h.z } else { h.z },
                            )
                        })
                        .collect();
                    match ConvexPolyhedron::from_points(&corners) {
                        Ok(poly) => push(Convex::Polyhedron(Arc::new(poly)), Pose::identity()),
                        Err(e) => unreachable!("a box with positive extents is a polyhedron: {e}"),
                    }
                }
                Shape::Cylinder {
                    radius,
                    half_height,
                } => push(
                    Convex::Cylinder {
                        radius: *radius,
                        half_height: *half_height,
                    },
                    Pose::identity(),
                ),
                Shape::Ellipsoid { radii } => {
                    push(Convex::Ellipsoid { radii: *radii }, Pose::identity())
                }
                Shape::Convex(poly) => push(Convex::Polyhedron(poly.clone()), Pose::identity()),
                Shape::Polyhedron(solid) => {
                    for piece in solid.pieces() {
                        push(
                            Convex::Polyhedron(Arc::new(piece.clone())),
                            Pose::identity(),
                        );
                    }
                }
                Shape::HalfSpace => push(Convex::HalfSpace, Pose::identity()),
            }
        }
        let half_spaces = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.convex, Convex::HalfSpace))
            .map(|(i, _)| i)
            .collect();
        let bounded: Vec<usize> = (0..parts.len())
            .filter(|&i| !matches!(parts[i].convex, Convex::HalfSpace))
            .collect();
        let mut tree = Vec::new();
        if !bounded.is_empty() {
            build_tree(&parts, bounded, &mut tree);
        }
        Self {
            parts,
            tree,
            half_spaces,
        }
    }

    /// The root of the bounding-sphere tree, if the body has bounded parts.
    pub fn root(&self) -> Option<usize> {
        self.tree.len().checked_sub(1)
    }

    /// Largest distance from `point` (model frame) to any point of the body's bounded parts.
    pub fn reach_from(&self, point: &Point) -> f64 {
        self.parts
            .iter()
            .filter(|p| !matches!(p.convex, Convex::HalfSpace))
            .map(|p| p.convex.reach_from(&(p.pose.inverse() * point)))
            .fold(0.0, f64::max)
    }

    /// Bound on the speed of the parts' supporting planes per unit angular speed about `point`
    /// (model frame); see [`Convex::spin_reach_from`].
    pub fn spin_reach_from(&self, point: &Point) -> f64 {
        self.parts
            .iter()
            .filter(|p| !matches!(p.convex, Convex::HalfSpace))
            .map(|p| p.convex.spin_reach_from(&(p.pose.inverse() * point)))
            .fold(0.0, f64::max)
    }

    /// The axis about which the model is a solid of revolution, as a point on it and a unit
    /// direction (model frame): a single cylinder or capsule (its own z axis), or an ellipsoid
    /// with exactly two equal semi-axes (the third). `None` for anything else, spheres included
    /// (symmetric about every axis, and spun for free already: their spin reach is zero).
    pub fn symmetry_axis(&self) -> Option<(Point, Vec3)> {
        let [part] = self.parts.as_slice() else {
            return None;
        };
        let local = match part.convex {
            Convex::Cylinder { .. } | Convex::Capsule { .. } => Vec3::z(),
            Convex::Ellipsoid { radii } => {
                let (x, y, z) = (radii.x, radii.y, radii.z);
                if x == y && y != z {
                    Vec3::z()
                } else if y == z && z != x {
                    Vec3::x()
                } else if z == x && x != y {
                    Vec3::y()
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        Some((
            Point::from(part.pose.translation.vector),
            part.pose.rotation * local,
        ))
    }

    #[cfg(any(test, feature = "internals"))]
    /// Number of bounded (not half-space) parts.
    pub fn bounded_parts(&self) -> usize {
        self.parts.len() - self.half_spaces.len()
    }

    /// World-frame bounding box of the bounded parts at `model_pose` (`None` if there are
    /// none).
    pub fn aabb(&self, model_pose: &Pose) -> Option<Aabb> {
        self.parts
            .iter()
            .filter_map(|p| p.aabb(model_pose))
            .reduce(|a, b| a.union(&b))
    }
}

/// Builds the subtree over `parts[indices]` top-down (split at the median along the widest
/// spread of part centres); returns its node index.
fn build_tree(parts: &[Part], mut indices: Vec<usize>, tree: &mut Vec<SphereNode>) -> usize {
    let sphere_of = |i: usize| {
        let part = &parts[i];
        let (centre, radius) = part.convex.bounding_sphere();
        (part.pose * centre, radius)
    };
    if indices.len() == 1 {
        let (centre, radius) = sphere_of(indices[0]);
        tree.push(SphereNode {
            centre,
            radius,
            content: NodeContent::Leaf(indices[0]),
        });
        return tree.len() - 1;
    }
    let centres: Vec<Point> = indices.iter().map(|&i| sphere_of(i).0).collect();
    let bounds = Aabb::around(centres.iter().copied());
    let axis = (bounds.max - bounds.min).iamax();
    indices.sort_by(|&i, &j| {
        sphere_of(i).0[axis]
            .total_cmp(&sphere_of(j).0[axis])
            .then(i.cmp(&j))
    });
    let right = indices.split_off(indices.len() / 2);
    let left_node = build_tree(parts, indices, tree);
    let right_node = build_tree(parts, right, tree);
    let (a, b) = (&tree[left_node], &tree[right_node]);
    // Smallest sphere holding both child spheres.
    let d = (b.centre - a.centre).norm();
    let (centre, radius) = if d + b.radius <= a.radius {
        (a.centre, a.radius)
    } else if d + a.radius <= b.radius {
        (b.centre, b.radius)
    } else {
        let radius = 0.5 * (d + a.radius + b.radius);
        let centre = a.centre + (b.centre - a.centre) * ((radius - a.radius) / d);
        (centre, radius)
    };
    tree.push(SphereNode {
        centre,
        radius,
        content: NodeContent::Children(left_node, right_node),
    });
    tree.len() - 1
}
