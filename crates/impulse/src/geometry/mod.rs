//! Shapes, polyhedra, mesh files and mass properties.

mod box_pairs;
pub mod convex;
pub mod hull;
pub mod mass;
pub mod mesh;
pub mod mesh_io;
pub mod polyhedron;
pub mod shape;
mod shells;
pub mod tessellate;

pub use convex::{ConvexError, ConvexPolyhedron};
pub use mass::{MassProperties, VolumeIntegrals};
pub use mesh::{MeshDefect, PolygonMesh};
pub use mesh_io::{MeshFileError, read_mesh, read_solid_mesh};
pub use polyhedron::{DecompositionSettings, Polyhedron};
pub use shape::{Aabb, MIN_PROPORTION, Shape, ShapeError};
