//! # impulse
//!
//! A rigid-body dynamics engine after Mirtich's *Impulse-based Dynamic Simulation of Rigid Body
//! Systems* (1996): exact mass properties, free motion between collisions, and scenes read from
//! TOML files.
//!
//! ```
//! use impulse::{BodyDesc, World, WorldSettings};
//! use impulse::geometry::Shape;
//! use impulse::math::Vec3;
//!
//! let mut world = World::new(WorldSettings::default());
//! let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.1 });
//! ball.velocity = Vec3::new(3.0, 0.0, 4.0);
//! let id = world.add_body(ball).unwrap();
//! world.advance_to(0.5).unwrap();
//! let state = world.body(id).state();
//! assert!((state.position.z - (4.0 * 0.5 - 0.5 * 9.81 * 0.25)).abs() < 1e-12);
//! ```
//!
//! Layers, from the bottom: [`math`] and [`integrate`]; [`geometry`] (shapes, meshes, mass
//! properties); [`dynamics`] (bodies and their free motion); [`collision`] (closest features,
//! broad phases, time-of-impact bounds, the heap); [`response`] (frictional collisions and
//! microcollisions); [`world`] (the simulation loop); [`scene`] (files → worlds); [`run`],
//! [`output`] and [`record`] (running and recording). See `docs/ARCHITECTURE.md` for how one
//! step flows through them.

pub mod collision;
pub mod dynamics;
pub mod geometry;
pub mod integrate;
pub mod math;
pub mod multibody;
pub mod output;
pub mod record;
pub mod response;
pub mod run;
pub mod scene;
pub mod world;

/// The README's Rust examples, compiled and run as documentation tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

pub use dynamics::{BodyDesc, BodyId, BodyState, Material, MaterialError, MotionType, RigidBody};
pub use world::{EnergyBound, MicrocollisionClusters, SettingsError, Sleep, World, WorldSettings};
