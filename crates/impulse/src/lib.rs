//! # impulse
//!
//! A rigid-body dynamics engine after Mirtich's *Impulse-based Dynamic Simulation of Rigid Body
//! Systems* (1996): exact mass properties, free motion between collisions, collisions and
//! resting contact by trains of frictional impulses, articulated multibodies, and scenes read
//! from TOML files.
//!
//! ```
//! use impulse::prelude::*;
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
//! The public modules, from the bottom: [`math`]; [`geometry`] (shapes, meshes, mass
//! properties); [`dynamics`] (body descriptions and bodies); [`multibody`] (articulated
//! multibodies) and [`control`] (their controllers); [`world`] (the world and its settings,
//! the simulation loop behind [`World::advance_to`]); [`scene`] (files → worlds); [`run`]
//! (running a world and what a run writes); [`poses`] (pose statistics of dropped parts);
//! [`prelude`] (the names most programs need). Collision detection, collision response, the
//! contact layer and the integrator are implementation modules. See `docs/ARCHITECTURE.md`
//! for how one step flows through them.

pub mod assembly;
pub mod control;
pub mod dynamics;
pub mod geometry;
mod input_file;
pub mod math;
pub mod multibody;
pub mod poses;
pub mod prelude;
pub mod run;
pub mod scene;
pub mod world;

/// The engine's implementation modules: crate-private, and public only with the `internals`
/// feature, which this crate's own integration tests and the benchmark crate turn on to test
/// and time the pieces directly. Nothing in them is a stable interface.
macro_rules! internal_modules {
    ($($(#[$doc:meta])* $name:ident;)*) => {
        $(
            $(#[$doc])*
            #[cfg(feature = "internals")]
            pub mod $name;
            $(#[$doc])*
            #[cfg(not(feature = "internals"))]
            pub(crate) mod $name;
        )*
    };
}

internal_modules! {
    /// Collision detection: closest features, broad phases, time-of-impact bounds, the heap.
    collision;
    /// The contact layer: contact problems and their solvers.
    contact;
    /// The adaptive Dormand–Prince integrator.
    integrate;
    /// Frictional collision response and microcollisions (impulse paradigm).
    response;
}

pub use input_file::MAX_INPUT_BYTES;
pub use integrate::{IntegrationError, Tolerance};
pub use response::{ResponseKind, RestitutionLaw};

/// The README's Rust examples, compiled and run as documentation tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

pub use dynamics::{BodyDesc, BodyId, BodyState, Material, MaterialError, MotionType, RigidBody};
pub use world::{EnergyBound, MicrocollisionClusters, SettingsError, Sleep, World, WorldSettings};

/// Linear complementarity for constraint-based contact: Lemke's algorithm, its oracle, Baraff's
/// contact problems. (Implementation detail like the modules above; until the constraint model
/// calls it, only the tests and benchmarks do.)
#[cfg(feature = "internals")]
pub mod lcp;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod lcp;
