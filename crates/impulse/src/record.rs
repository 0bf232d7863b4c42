//! What a run records for looking at it afterwards: every body's shapes (`shapes.json`) and the
//! collision events (`events.csv`), next to `trajectory.csv` (see [`crate::output`]).
//!
//! `shapes.json` places each shape in its body's *model frame*, the frame whose world pose each
//! trajectory row gives, so shapes plus trajectory determine everything there is to draw. It also
//! carries each body's mass properties and the world's gravity, so energies can be recomputed
//! from the trajectory. Its `format_version` changes whenever a reader of the old version could
//! misread the new one.
//!
//! `events.csv` has one row per collision or microcollision (Mirtich §3, §4): time, kind, the
//! two bodies, the contact point, the contact normal and the impulse, following the thesis's
//! collision-frame convention: the normal points from `body_b` toward `body_a`, and the impulse
//! is the one `body_b` delivers to `body_a` (`body_b` receives its negative).

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use crate::dynamics::{MotionType, PlacedShape};
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Vec3};
use crate::multibody::MultibodyId;
use crate::response::ResponseKind;
use crate::world::{Collider, CollisionEvent, World};

/// The version of `shapes.json` this library writes and reads.
pub const SHAPES_FORMAT_VERSION: u32 = 1;

/// The events file's header.
pub const EVENTS_HEADER: &str = "t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jx,jy,jz";

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

fn motion_name(motion: &MotionType) -> &'static str {
    match motion {
        MotionType::Dynamic => "dynamic",
        MotionType::Fixed => "fixed",
        MotionType::Kinematic(_) => "kinematic",
    }
}

fn array3(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Whether an event is a collision or a microcollision (Mirtich §4.2: one of the trains of
/// small impulses that model resting and rolling contact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A collision.
    Collision,
    /// A microcollision.
    Microcollision,
}

impl EventKind {
    /// The kind of a response: reversals, boosted collisions and the contacts of a simultaneous
    /// cluster solve are microcollisions.
    pub fn of(kind: ResponseKind) -> Self {
        match kind {
            ResponseKind::Collision => Self::Collision,
            ResponseKind::Reversal
            | ResponseKind::PartialReversal
            | ResponseKind::Boosted
            | ResponseKind::Simultaneous => Self::Microcollision,
        }
    }

    /// The name written in `events.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Collision => "collision",
            Self::Microcollision => "microcollision",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "collision" => Some(Self::Collision),
            "microcollision" => Some(Self::Microcollision),
            _ => None,
        }
    }
}

/// Writes collision events as CSV rows under [`EVENTS_HEADER`].
pub struct EventWriter<W: Write> {
    out: W,
    /// CSV-ready names of the bodies, and of each multibody's links (`multibody/link`).
    names: Vec<String>,
    link_names: Vec<Vec<String>>,
    collisions: u64,
    microcollisions: u64,
}

impl<W: Write> EventWriter<W> {
    /// Starts an events file for the bodies of `world`, writing the header.
    pub fn new(mut out: W, world: &World) -> io::Result<Self> {
        writeln!(out, "{EVENTS_HEADER}")?;
        Ok(Self {
            out,
            names: world
                .bodies()
                .iter()
                .map(|b| crate::output::csv_field(b.name()))
                .collect(),
            link_names: world
                .multibodies()
                .iter()
                .enumerate()
                .map(|(m, mb)| {
                    (0..mb.tree().links().len())
                        .map(|l| {
                            crate::output::csv_field(
                                &world.collider_name(Collider::Link(MultibodyId(m), l)),
                            )
                        })
                        .collect()
                })
                .collect(),
            collisions: 0,
            microcollisions: 0,
        })
    }

    /// Writes one event. Numbers are written in the shortest form that reads back exactly.
    pub fn write(&mut self, event: &CollisionEvent) -> io::Result<()> {
        let name = |c: Collider| {
            let found = match c {
                Collider::Body(id) => self.names.get(id.0),
                Collider::Link(m, l) => self.link_names.get(m.0).and_then(|links| links.get(l)),
            };
            found.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("collision event names {c:?}, which the world did not have"),
                )
            })
        };
        let (a, b) = (name(event.colliders.0)?, name(event.colliders.1)?);
        let kind = EventKind::of(event.kind);
        let mut number = ryu::Buffer::new();
        let mut line = String::with_capacity(256);
        line.push_str(number.format(event.time));
        for field in [kind.name(), a.as_str(), b.as_str()] {
            line.push(',');
            line.push_str(field);
        }
        for v in [&event.point.coords, &event.normal, &event.impulse] {
            for value in [v.x, v.y, v.z] {
                line.push(',');
                line.push_str(number.format(value));
            }
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())?;
        match kind {
            EventKind::Collision => self.collisions += 1,
            EventKind::Microcollision => self.microcollisions += 1,
        }
        Ok(())
    }

    /// Events written so far: (collisions, microcollisions).
    pub fn counts(&self) -> (u64, u64) {
        (self.collisions, self.microcollisions)
    }

    /// Flushes buffered rows to the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BodyDesc;
    use crate::dynamics::BodyId;
    use crate::dynamics::MassSpec;
    use crate::math::Point;

    fn two_body_world() -> World {
        let mut world = World::new(Default::default());
        let mut ground = BodyDesc::new("ground", Shape::HalfSpace);
        ground.motion = MotionType::Fixed;
        world.add_body(ground).unwrap();
        let mut part = BodyDesc::new(
            "part, \"A\"",
            Shape::Box {
                half_extents: Vec3::new(0.5, 1.0, 1.5),
            },
        );
        part.mass = MassSpec::Mass(6.0);
        part.shapes[0].pose = crate::math::pose(Vec3::new(1.0, 2.0, 3.0), Default::default());
        world.add_body(part).unwrap();
        world
    }

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

    #[test]
    fn events_are_written_under_the_header() {
        let world = two_body_world();
        let mut out = Vec::new();
        let mut writer = EventWriter::new(&mut out, &world).unwrap();
        writer
            .write(&CollisionEvent {
                time: 0.25,
                kind: ResponseKind::Reversal,
                colliders: (Collider::Body(BodyId(1)), Collider::Body(BodyId(0))),
                point: Point::new(0.5, 0.0, 0.0),
                normal: Vec3::z(),
                impulse: Vec3::new(0.1, 0.0, 2.0),
            })
            .unwrap();
        assert_eq!(writer.counts(), (0, 1));
        let bad = CollisionEvent {
            time: 0.3,
            kind: ResponseKind::Collision,
            colliders: (Collider::Body(BodyId(7)), Collider::Body(BodyId(0))),
            point: Point::origin(),
            normal: Vec3::z(),
            impulse: Vec3::zeros(),
        };
        assert!(writer.write(&bad).is_err());
        drop(writer);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "{EVENTS_HEADER}\n0.25,microcollision,\"part, \"\"A\"\"\",ground,0.5,0.0,0.0,0.0,0.0,1.0,0.1,0.0,2.0\n"
            )
        );
    }
}
