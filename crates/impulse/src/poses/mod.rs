//! Pose statistics of dropped parts (Mirtich §7.5): in what fraction of drops onto a flat table
//! does a part come to rest on each face of its convex hull?

mod drop;
mod file;
mod job;
mod part;
mod perturbed;
mod quasi_static;
mod stats;

pub use drop::{DropOutcome, DropPhysics, drop_part, resting_orientation};
pub use file::{FORMAT_VERSION, PartIdentity, digest, results_from_json, results_to_json};
pub use job::{DropJob, DropRecord, DropResults, Protocol, Shard, run_drops};
pub use part::{HullFace, Part, PartError};
pub use perturbed::perturbed_probabilities;
pub use quasi_static::QuasiStatic;
pub use stats::{
    error_percentage, normal_cdf, normal_quantile, trial_count, wilson_interval, worst_half_width,
};
