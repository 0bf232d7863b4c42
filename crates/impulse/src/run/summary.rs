//! `summary.json`: how a run ended — status, times, energy, counters and every body's and
//! multibody's final state.

use serde::Serialize;

use super::{array3, motion_name};
use crate::world::{Energy, World};

/// Energy at the start and end of a run.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct EnergySummary {
    /// Kinetic + gravitational potential energy at the start.
    pub initial: f64,
    /// Kinetic + gravitational potential energy at the end.
    pub r#final: f64,
    /// Kinetic part at the start.
    pub initial_kinetic: f64,
    /// Kinetic part at the end.
    pub final_kinetic: f64,
}

impl EnergySummary {
    /// From the energies at the start and end.
    pub fn new(initial: Energy, last: Energy) -> Self {
        Self {
            initial: initial.total(),
            r#final: last.total(),
            initial_kinetic: initial.kinetic,
            final_kinetic: last.kinetic,
        }
    }
}

/// One body's final state in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct BodySummary {
    /// Name.
    pub name: String,
    /// "dynamic", "fixed", "kinematic", or "link" (of a multibody).
    pub motion: &'static str,
    /// Position of the model frame's origin.
    pub position: [f64; 3],
    /// Orientation of the model frame, (w, x, y, z).
    pub orientation: [f64; 4],
    /// Velocity of the centre of mass.
    pub velocity: [f64; 3],
    /// Angular velocity.
    pub angular_velocity: [f64; 3],
    /// Position of the centre of mass.
    pub center_of_mass: [f64; 3],
    /// Mass.
    pub mass: f64,
}

/// The contents of `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Scene name.
    pub scene: String,
    /// Scene file.
    pub scene_file: String,
    /// "completed"; "error" if a simulation error stopped the run (`error` says which);
    /// "interrupted" if it was stopped from outside (Ctrl-C, SIGTERM). The records hold every
    /// frame computed up to `sim_time` either way.
    pub status: &'static str,
    /// The error that stopped the run, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Simulated time reached.
    pub sim_time: f64,
    /// Simulated time requested.
    pub duration: f64,
    /// Wall-clock seconds the run took.
    pub wall_time_s: f64,
    /// Energy bookkeeping.
    pub energy: EnergySummary,
    /// Event and work counters.
    pub counters: std::collections::BTreeMap<String, u64>,
    /// Deepest interpenetration of any two bodies seen during the run.
    pub max_penetration: f64,
    /// Final state of every body (multibody links included, as `multibody/link`).
    pub bodies: Vec<BodySummary>,
    /// Final joint coordinates of every multibody (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub multibodies: Vec<MultibodySummary>,
}

/// One joint's final coordinates in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct JointSummary {
    /// Joint name.
    pub name: String,
    /// Joint kind.
    pub kind: &'static str,
    /// Position coordinates (radians and lengths; quaternions as w, x, y, z).
    pub position: Vec<f64>,
    /// Velocity coordinates.
    pub velocity: Vec<f64>,
}

/// One multibody's final state in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct MultibodySummary {
    /// Name.
    pub name: String,
    /// Kinetic energy.
    pub kinetic_energy: f64,
    /// Its joints, parents first.
    pub joints: Vec<JointSummary>,
}

/// Final joint states of every multibody.
pub fn multibody_summaries(world: &World) -> Vec<MultibodySummary> {
    world
        .multibodies()
        .iter()
        .map(|mb| MultibodySummary {
            name: mb.name().to_string(),
            kinetic_energy: mb.kinetic_energy(),
            joints: mb
                .tree()
                .links()
                .iter()
                .enumerate()
                .map(|(i, link)| JointSummary {
                    name: link.joint.name.clone(),
                    kind: link.joint.kind.name(),
                    position: mb.tree().joint_q(i, mb.q()).to_vec(),
                    velocity: mb.tree().joint_v(i, mb.v()).to_vec(),
                })
                .collect(),
        })
        .collect()
}

/// Final states of every body.
pub fn body_summaries(world: &World) -> Vec<BodySummary> {
    world
        .bodies()
        .iter()
        .map(|body| {
            let model = body.model_pose();
            let q = model.rotation.quaternion();
            let s = body.state();
            BodySummary {
                name: body.name().to_string(),
                motion: motion_name(body.motion()),
                position: array3(&model.translation.vector),
                orientation: [q.w, q.i, q.j, q.k],
                velocity: array3(&s.velocity),
                angular_velocity: array3(&s.angular_velocity),
                center_of_mass: array3(&s.position),
                mass: body.mass(),
            }
        })
        .chain(world.multibodies().iter().flat_map(|mb| {
            mb.tree().links().iter().enumerate().map(move |(i, link)| {
                let model = mb.link_model_pose(i);
                let q = model.rotation.quaternion();
                let (velocity, angular_velocity) = mb.link_velocity(i);
                BodySummary {
                    name: format!("{}/{}", mb.name(), link.name),
                    motion: "link",
                    position: array3(&model.translation.vector),
                    orientation: [q.w, q.i, q.j, q.k],
                    velocity: array3(&velocity),
                    angular_velocity: array3(&angular_velocity),
                    center_of_mass: array3(&mb.link_pose(i).translation.vector),
                    mass: link.mass,
                }
            })
        }))
        .collect()
}
