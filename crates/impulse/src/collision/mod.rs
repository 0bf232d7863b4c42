//! Collision detection: closest features between convex polyhedra (V-Clip), distances for curved
//! shapes (GJK/EPA), per-body collision models and the narrow phase; broad phases, time-of-impact
//! bounds and the collision heap (Mirtich ch. 2).

pub mod bounds;
pub mod gjk;
pub mod heap;
pub mod manifold;
pub mod model;
pub mod narrow;
mod flat_face;
pub mod overlap;
pub mod toi;
pub mod vclip;

#[cfg(any(test, feature = "internals"))]
pub use model::Part;
pub use model::{CollisionModel, Convex};
pub use narrow::{
    Beyond, Closest, NarrowStats, NearParts, PairCache, Slack, closest, closest_parts,
    closest_parts_again,
};
pub mod broad;
pub mod cylinders;
