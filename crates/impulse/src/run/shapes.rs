//! `shapes.json`: every body's shapes and mass properties, for looking at a run afterwards.
//!
//! It places each shape in its body's *model frame*, the frame whose world pose each
//! trajectory row gives, so shapes plus trajectory determine everything there is to draw. It also
//! carries each body's mass properties and the world's gravity, so energies can be recomputed
//! from the trajectory. Its `format_version` changes whenever a reader of the old version could
//! misread the new one.

use serde::{Deserialize, Serialize};

use super::{array3, motion_name};
use crate::dynamics::PlacedShape;
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Vec3};
use crate::world::World;

/// The version of `shapes.json` this library writes and reads.
pub const SHAPES_FORMAT_VERSION: u32 = 1;

/// The contents of `shapes.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapesFile {
    /// [`SHAPES_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Scene name.
    pub scene: String,
    /// Gravitational acceleration.
    pub gravity: [f64; 3],
    /// Every body, in the order of the trajectory's rows.
    pub bodies: Vec<BodyRecord>,
}

/// One body: how it moves, its mass properties and its shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyRecord {
    /// Name (as in the trajectory's `body` column).
    pub name: String,
    /// "dynamic", "fixed" or "kinematic".
    pub motion: String,
    /// Mass (for fixed and kinematic bodies, the mass their shapes would have).
    pub mass: f64,
    /// Centre of mass in the model frame.
    pub center_of_mass: [f64; 3],
    /// Inertia tensor about the centre of mass, along the model axes (rows).
    pub inertia: [[f64; 3]; 3],
    /// Shapes, placed in the model frame.
    pub shapes: Vec<ShapeRecord>,
}

/// A shape and its pose in its body's model frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeRecord {
    /// The solid, in its own frame.
    #[serde(flatten)]
    pub geometry: Geometry,
    /// Position of the shape's frame in the model frame.
    pub position: [f64; 3],
    /// Orientation of the shape's frame in the model frame, (w, x, y, z).
    pub orientation: [f64; 4],
}

/// A solid in its own frame, with the scene file's names and parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Geometry {
    /// Ball centred at the origin.
    Sphere { radius: f64 },
    /// Box centred at the origin with these edge lengths.
    Box { size: [f64; 3] },
    /// Cylinder centred at the origin, axis along z, of this total height.
    Cylinder { radius: f64, height: f64 },
    /// Cylinder with hemispherical caps along z; `length` is the distance between cap centres.
    Capsule { radius: f64, length: f64 },
    /// Ellipsoid with these semi-axes along x, y, z.
    Ellipsoid { radii: [f64; 3] },
    /// Convex polyhedron: vertices, and faces as vertex loops counter-clockwise from outside.
    Convex {
        vertices: Vec<[f64; 3]>,
        faces: Vec<Vec<u32>>,
    },
    /// Closed polyhedral solid (possibly non-convex): its surface, as for `Convex` (faces are
    /// planar polygons, not necessarily convex).
    Mesh {
        vertices: Vec<[f64; 3]>,
        faces: Vec<Vec<u32>>,
    },
    /// The solid half-space z ≤ 0 of the shape frame.
    Halfspace,
}

impl ShapesFile {
    /// Records every body of `world`.
    pub fn of_world(scene: &str, world: &World) -> Self {
        let g = world.settings().gravity;
        Self {
            format_version: SHAPES_FORMAT_VERSION,
            scene: scene.to_string(),
            gravity: [g.x, g.y, g.z],
            bodies: world
                .bodies()
                .iter()
                .map(|body| {
                    let mp = body.mass_properties();
                    let i = &mp.inertia;
                    BodyRecord {
                        name: body.name().to_string(),
                        motion: motion_name(body.motion()).to_string(),
                        mass: mp.mass,
                        center_of_mass: array3(&mp.center_of_mass.coords),
                        inertia: [0, 1, 2].map(|r| [i[(r, 0)], i[(r, 1)], i[(r, 2)]]),
                        shapes: body.shapes().iter().map(ShapeRecord::of).collect(),
                    }
                })
                .chain(world.multibodies().iter().flat_map(|multibody| {
                    // Links follow the bodies, as in `trajectory.csv`: dynamic, named
                    // `multibody/link`, mass properties in the link's model frame.
                    multibody.tree().links().iter().map(move |link| {
                        let frame = &link.body_to_model;
                        let rotation = frame.rotation.to_rotation_matrix();
                        let i = rotation.matrix()
                            * Mat3::from_diagonal(&link.principal_inertia)
                            * rotation.matrix().transpose();
                        BodyRecord {
                            name: format!("{}/{}", multibody.name(), link.name),
                            motion: "dynamic".to_string(),
                            mass: link.mass,
                            center_of_mass: array3(&frame.translation.vector),
                            inertia: [0, 1, 2].map(|r| [i[(r, 0)], i[(r, 1)], i[(r, 2)]]),
                            shapes: link.shapes.iter().map(ShapeRecord::of).collect(),
                        }
                    })
                }))
                .collect(),
        }
    }
}

impl ShapeRecord {
    /// Records a placed shape.
    pub fn of(placed: &PlacedShape) -> Self {
        let q = placed.pose.rotation.quaternion();
        Self {
            geometry: Geometry::of(&placed.shape),
            position: array3(&placed.pose.translation.vector),
            orientation: [q.w, q.i, q.j, q.k],
        }
    }

    /// The shape's pose in the model frame (the orientation is normalised).
    pub fn pose(&self) -> Pose {
        let [w, x, y, z] = self.orientation;
        crate::math::pose(
            Vec3::from(self.position),
            crate::math::Quat::from_quaternion(nalgebra::Quaternion::new(w, x, y, z)),
        )
    }
}

impl Geometry {
    /// The record of a shape.
    pub fn of(shape: &Shape) -> Self {
        let mesh = |m: &crate::geometry::PolygonMesh| {
            (
                m.vertices.iter().map(|p| array3(&p.coords)).collect(),
                m.faces.clone(),
            )
        };
        match shape {
            Shape::Sphere { radius } => Self::Sphere { radius: *radius },
            Shape::Box { half_extents } => Self::Box {
                size: array3(&(half_extents * 2.0)),
            },
            Shape::Cylinder {
                radius,
                half_height,
            } => Self::Cylinder {
                radius: *radius,
                height: 2.0 * half_height,
            },
            Shape::Capsule {
                radius,
                half_height,
            } => Self::Capsule {
                radius: *radius,
                length: 2.0 * half_height,
            },
            Shape::Ellipsoid { radii } => Self::Ellipsoid {
                radii: array3(radii),
            },
            Shape::Convex(c) => {
                let (vertices, faces) = mesh(&c.to_mesh());
                Self::Convex { vertices, faces }
            }
            Shape::Polyhedron(p) => {
                let (vertices, faces) = mesh(p.mesh());
                Self::Mesh { vertices, faces }
            }
            Shape::HalfSpace => Self::Halfspace,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Point;
    use crate::run::tests::two_body_world;

    #[test]
    fn shapes_round_trip_through_json() {
        let world = two_body_world();
        let record = ShapesFile::of_world("test", &world);
        let json = serde_json::to_string(&record).unwrap();
        assert!(json.starts_with(r#"{"format_version":1,"#), "{json}");
        assert!(json.contains(r#""type":"halfspace""#), "{json}");
        // A 1 × 2 × 3 box is recorded by its edge lengths, as in the scene file.
        assert!(
            json.contains(r#""type":"box","size":[1.0,2.0,3.0]"#),
            "{json}"
        );
        let back: ShapesFile = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        let part = &back.bodies[1];
        // Box of mass 6 with edges 1, 2, 3: I_xx = m (2² + 3²) / 12 = 6.5; its centre is where the
        // shape is placed.
        assert!((part.inertia[0][0] - 6.5).abs() < 1e-12);
        assert_eq!(part.center_of_mass, [1.0, 2.0, 3.0]);
        assert_eq!(
            part.shapes[0].pose().translation.vector,
            Vec3::new(1.0, 2.0, 3.0)
        );
    }

    #[test]
    fn convex_shapes_record_their_faces() {
        let points = [
            Point::new(0.0, 0.0, 0.0),
            Point::new(1.0, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
            Point::new(0.0, 0.0, 1.0),
        ];
        let tetrahedron = crate::geometry::ConvexPolyhedron::hull_of(&points).unwrap();
        match Geometry::of(&Shape::Convex(std::sync::Arc::new(tetrahedron))) {
            Geometry::Convex { vertices, faces } => {
                assert_eq!(vertices.len(), 4);
                assert_eq!(faces.len(), 4);
                assert!(faces.iter().all(|f| f.len() == 3));
            }
            other => panic!("expected a convex record, got {other:?}"),
        }
    }
}
