//! Collision response in the impulse paradigm (Mirtich ch. 3): the collision matrix, frictional
//! collision integration with sticking and rays of constant sliding, and microcollisions.

pub mod cascade;
pub mod contact;
pub mod integration;
pub mod sticking;

pub use contact::{Microcollisions, ResponseKind, Settling, body_collision_matrix, respond};
pub(crate) use contact::drift_target;
pub use integration::RestitutionLaw;
#[cfg(any(test, feature = "internals"))]
pub use integration::{Options, Outcome, integrate, integrate_with};
