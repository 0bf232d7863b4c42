//! # impulse
//!
//! A rigid-body dynamics engine after Mirtich's *Impulse-based Dynamic Simulation of Rigid Body
//! Systems* (1996): exact mass properties, free motion between collisions, and scenes read from
//! TOML files.
//!
//! See `docs/ARCHITECTURE.md` for how one simulation step flows through the modules.

pub mod dynamics;
pub mod geometry;
pub mod integrate;
pub mod math;
pub mod world;

pub use dynamics::{BodyDesc, BodyId, BodyState, Material, MotionType, RigidBody};
pub use world::{World, WorldSettings};
