//! Articulated multibodies in reduced coordinates (Mirtich ch. 4–5; Featherstone, *Rigid Body
//! Dynamics Algorithms*, 2008).
//!
//! - [`spatial`]: 6-D motion and force vectors, Plücker transforms, spatial inertias.
//! - [`joint`]: joint kinds, their coordinates, transforms and motion subspaces.
//! - [`tree`]: links and joints in a tree, kinematics, passive elements, energy.
//! - [`aba`]: forward dynamics by the articulated-body algorithm, O(n).
//! - [`crba`]: the mass matrix and bias forces, solved densely (the independent oracle).
//! - [`impulse`]: the articulated collision matrix of a link and impulse propagation.
//! - [`controller`]: the seam through which a multibody runs its controllers (the laws are in
//!   [`crate::control`]), and what they observe of each other.
//! - [`build`]: multibodies from descriptions placed in the world.
//! - [`multibody`]: a multibody's state, integration, controllers and collision seams.

// The algorithms index several per-DOF arrays (S, U, D⁻¹, u) in step; index loops read like
// the equations.
#![allow(clippy::needless_range_loop)]

pub mod aba;
pub mod build;
pub mod controller;
pub mod crba;
mod envelope;
pub mod impulse;
pub mod joint;
#[allow(clippy::module_inception)]
pub mod multibody;
pub mod spatial;
pub mod tree;

pub use build::{BodyLookup, BuildError, JointDesc, MultibodyDesc, WORLD};
pub use controller::{Commands, Controller, Observation, Observations};
pub(crate) use envelope::EnvelopeBuilder;
pub use joint::JointKind;
pub use multibody::{
    LinkEnvelope, MIN_CONTROLLER_PERIOD, MotionEnvelope, Multibody, MultibodyError, MultibodyId,
    MultibodyOde,
};
pub use spatial::{SpatialMat, SpatialVec, Transform};
pub use tree::{AppliedForces, Joint, Link, PassiveElements, Tree, TreeError, Workspace};
