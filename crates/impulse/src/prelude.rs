//! The names most programs need, in one import: `use impulse::prelude::*;`.

pub use crate::dynamics::{
    BodyDesc, BodyId, BodyState, MassSpec, Material, MotionType, PlacedShape,
};
pub use crate::geometry::Shape;
pub use crate::math::{Point, Pose, Quat, Vec3, pose};
pub use crate::multibody::{JointDesc, JointKind, MultibodyDesc, MultibodyId};
pub use crate::scene::{Scene, load};
pub use crate::world::{
    Collider, ContactModel, Counters, EnergyBound, MicrocollisionClusters, SimulationError, Sleep,
    World, WorldSettings,
};
