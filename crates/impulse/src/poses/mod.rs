//! Pose statistics of dropped parts (Mirtich §7.5): in what fraction of drops onto a flat table
//! does a part come to rest on each face of its convex hull?
//!
//! - [`Part`]: the part's surface, convex hull ([`HullFace`]s) and mass properties;
//! - [`QuasiStatic`]: solid angles from the centre of mass (eq. 7.1), unstable faces toppled;
//! - [`perturbed_probabilities`]: each resting pose shaken within a cone (derived in
//!   `docs/poses.md`);
//! - [`drop_part`], [`run_drops`]: dynamic drops simulated by the engine, many at a time on
//!   rayon, the same for any number of threads and any split into [`Shard`]s, merged by
//!   [`DropResults::merge`] and written by [`results_to_json`];
//! - [`error_percentage`] (eq. 7.2), [`trial_count`] (eq. 7.3 corrected), [`wilson_interval`].
//!
//! ```
//! use impulse::geometry::tessellate::box_mesh;
//! use impulse::math::Point;
//! use impulse::poses::{Part, QuasiStatic};
//!
//! let mesh = box_mesh(Point::new(-1.0, -1.0, -1.0), Point::new(1.0, 1.0, 1.0));
//! let mass = mesh.volume_integrals().mass_properties(1.0);
//! let cube = Part::new("cube".into(), "example".into(), mesh, mass).unwrap();
//! let qs = QuasiStatic::of(&cube);
//! assert!(qs.probability.iter().all(|p| (p - 1.0 / 6.0).abs() < 1e-12));
//! ```

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
