//! Articulated multibodies in reduced coordinates (Mirtich ch. 4–5; Featherstone, *Rigid Body
//! Dynamics Algorithms*, 2008).
//!
//! - [`spatial`]: 6-D motion and force vectors, Plücker transforms, spatial inertias.
//! - [`joint`]: joint kinds, their coordinates, transforms and motion subspaces.
//! - [`tree`]: links and joints in a tree, kinematics, passive elements, energy.
//! - [`aba`]: forward dynamics by the articulated-body algorithm, O(n).
//! - [`crba`]: the mass matrix and bias forces, solved densely (the independent oracle).

pub mod aba;
pub mod crba;
pub mod joint;
pub mod spatial;
pub mod tree;

pub use joint::JointKind;
pub use spatial::{SpatialMat, SpatialVec, Transform};
pub use tree::{AppliedForces, Joint, Link, PassiveElements, Tree, TreeError, Workspace};
