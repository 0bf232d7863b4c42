//! Collision response in the impulse paradigm (Mirtich ch. 3): the collision matrix, frictional
//! collision integration with sticking and rays of constant sliding, and microcollisions.

pub mod cluster;
pub mod contact;
pub mod integration;
pub mod sticking;

pub use cluster::{ClusterBody, ClusterContact, ClusterSolution, solve_cluster};
pub use contact::{Microcollisions, ResponseKind, body_collision_matrix, respond};
pub use integration::{Options, Outcome, RestitutionLaw, integrate, integrate_with};
