//! Collision response in the impulse paradigm (Mirtich ch. 3): the collision matrix, frictional
//! collision integration with sticking and rays of constant sliding, and microcollisions.

pub mod integration;
pub mod sticking;

pub use integration::{Outcome, RestitutionLaw, integrate};
