//! The seam between a multibody and its controllers (Mirtich §5.4): what a multibody asks of a
//! controller ([`Controller`]), what a controller gives back ([`Commands`]), and what it may
//! see of the other multibodies ([`Observations`]).
//!
//! The multibody owns the schedule: a controller is called at `t = start + k · period`
//! (computed, never accumulated), with the multibody's state at that instant; what it writes
//! into its [`Commands`] — joint forces, link forces and torques, or new joint velocities —
//! replaces its previous output and is held until the next update (zero-order hold). The
//! multibody restarts its integration at every update, so the held forces are exactly
//! piecewise constant. Passive elements (springs, dampers, limit stops) are not controllers:
//! they act continuously inside the integrator.
//!
//! The control laws themselves live in the `control` layer, which builds on this seam; this
//! module knows none of them.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use super::tree::AppliedForces;
use super::{Multibody, Tree};
use crate::math::{Pose, Vec3};

/// How a multibody looked at one of its controller updates: its base (first) link's model
/// pose, centre-of-mass velocity and angular velocity, world frame.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Observation {
    /// When it was taken (−∞ for the state the multibody was added with).
    pub time: f64,
    /// Pose of the base link's model frame.
    pub pose: Pose,
    /// Velocity of the base link's centre of mass.
    pub velocity: Vec3,
    /// Angular velocity of the base link.
    pub angular_velocity: Vec3,
}

/// What controllers can see of other multibodies, like sampled sensors: every multibody is
/// observed when it is added and at each of its controller updates, and a controller updating
/// at `t` reads the latest observation taken strictly before `t`. Reading only the past makes
/// the result independent of the order in which multibodies reach `t` (one period of delay
/// between controllers of the same rate, as between real sampled controllers).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Observations {
    records: BTreeMap<String, VecDeque<Observation>>,
}

/// Observations kept per multibody: enough for any reader still behind the latest.
const OBSERVATIONS_KEPT: usize = 32;

impl Observations {
    /// Records `multibody`'s base link at `time`.
    pub fn publish(&mut self, multibody: &Multibody, time: f64) {
        if multibody.tree().links().is_empty() {
            return;
        }
        let (velocity, angular_velocity) = multibody.link_velocity(0);
        let record = Observation {
            time,
            pose: multibody.link_model_pose(0),
            velocity,
            angular_velocity,
        };
        let records = self
            .records
            .entry(multibody.name().to_string())
            .or_default();
        if records.back().is_some_and(|r| r.time == time) {
            records.pop_back();
        }
        records.push_back(record);
        if records.len() > OBSERVATIONS_KEPT {
            records.pop_front();
        }
    }

    /// The latest observation of `multibody` taken before `t`.
    pub fn before(&self, multibody: &str, t: f64) -> Option<&Observation> {
        self.records
            .get(multibody)?
            .iter()
            .rev()
            .find(|r| r.time < t)
    }
}

/// What a controller outputs, held until its next update.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Commands {
    /// Joint forces and link wrenches.
    pub forces: AppliedForces,
    /// Joint velocities to set now (velocity index, value), like Mirtich's bottle that
    /// "writes its velocity directly" (§7.3). Applied once, at the update.
    pub set_velocities: Vec<(usize, f64)>,
}

impl Commands {
    /// No output for a tree with `nv` coordinates and `links` links.
    pub fn new(nv: usize, links: usize) -> Self {
        Self {
            forces: AppliedForces::zero(nv, links),
            set_velocities: Vec::new(),
        }
    }
}

/// Cloning boxed controllers (implemented for every `Controller + Clone`).
pub trait ControllerClone {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Controller>;
}

impl<T: Controller + Clone + 'static> ControllerClone for T {
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Controller> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Saving and restoring a controller whole, for checkpoints (implemented for every
/// `Controller` that derives serde's `Serialize` and `Deserialize`): what it was configured
/// with and what it has learnt since (integrals, modes, decisions), as `postcard` bytes.
pub trait ControllerState {
    /// The controller's bytes.
    fn save_state(&self) -> Result<Vec<u8>, String>;
    /// Becomes the controller `bytes` were saved from (a controller of the same type).
    fn load_state(&mut self, bytes: &[u8]) -> Result<(), String>;
}

impl<T: Controller + serde::Serialize + serde::de::DeserializeOwned> ControllerState for T {
    fn save_state(&self) -> Result<Vec<u8>, String> {
        postcard::to_stdvec(self).map_err(|e| e.to_string())
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        *self = postcard::from_bytes(bytes).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// A controller read back from a checkpoint: its bytes only, until the world it belongs to
/// gives them to the controller of the same scene (`World::restore_state`), which knows its
/// type. It never runs.
#[derive(Clone, Debug)]
pub(crate) struct Saved(pub(crate) Vec<u8>);

impl ControllerState for Saved {
    fn save_state(&self) -> Result<Vec<u8>, String> {
        Ok(self.0.clone())
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0 = bytes.to_vec();
        Ok(())
    }
}

impl Controller for Saved {
    fn period(&self) -> f64 {
        f64::NAN
    }

    fn bind(&mut self, _tree: &Tree) -> Result<(), String> {
        Err("a controller read from a checkpoint without its scene".to_string())
    }

    fn update(&mut self, _: f64, _: &Multibody, _: &Observations, _: &mut Commands) {}
}

/// `serde(with)` for a multibody's boxed controllers: saved as their bytes
/// ([`ControllerState`]), read back as [`Saved`].
pub(crate) mod saved {
    use super::{Controller, Saved};

    // `serde(with)` hands the field itself: a `&Box`.
    #[allow(clippy::borrowed_box)]
    pub(crate) fn serialize<S: serde::Serializer>(
        controller: &Box<dyn Controller>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let bytes = controller
            .save_state()
            .map_err(<S::Error as serde::ser::Error>::custom)?;
        serializer.serialize_bytes(&bytes)
    }

    pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Box<dyn Controller>, D::Error> {
        let bytes: Vec<u8> = serde::Deserialize::deserialize(deserializer)?;
        Ok(Box::new(Saved(bytes)))
    }
}

/// A sampled controller of one multibody. Implementors also derive `Clone` (worlds can be
/// cloned) and serde's `Serialize` and `Deserialize` (checkpoints save them, see
/// [`ControllerState`]).
pub trait Controller: fmt::Debug + Send + ControllerClone + ControllerState {
    /// Time between updates.
    fn period(&self) -> f64;

    /// Checks the controller against the multibody it drives (joints it names exist, and so
    /// on). Called once when the multibody is built.
    fn bind(&mut self, tree: &Tree) -> Result<(), String>;

    /// Computes the output at time `t` from the multibody's state and what it sees of the
    /// others. `commands` holds the previous output; overwrite what you drive.
    fn update(
        &mut self,
        t: f64,
        multibody: &Multibody,
        others: &Observations,
        commands: &mut Commands,
    );

    /// The other multibodies this controller watches (checked when the scene is built).
    fn watches(&self) -> Vec<&str> {
        Vec::new()
    }
}
