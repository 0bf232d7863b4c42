//! A rapier world with everything `PhysicsPipeline::step` needs, for the benchmarks that run
//! rapier as a peer (included with `#[path]` by those only, so the others build without it).

use rapier3d_f64::prelude::*;

pub struct RapierWorld {
    pipeline: PhysicsPipeline,
    pub parameters: IntegrationParameters,
    islands: IslandManager,
    broad_phase: DefaultBroadPhase,
    narrow_phase: NarrowPhase,
    pub bodies: RigidBodySet,
    pub colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    pub multibody_joints: MultibodyJointSet,
    ccd: CCDSolver,
    gravity: Vector<f64>,
}

impl RapierWorld {
    /// An empty world under `gravity`, stepping with `parameters`.
    pub fn new(gravity: Vector<f64>, parameters: IntegrationParameters) -> Self {
        Self {
            pipeline: PhysicsPipeline::new(),
            parameters,
            islands: IslandManager::new(),
            broad_phase: DefaultBroadPhase::new(),
            narrow_phase: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            colliders: ColliderSet::new(),
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            ccd: CCDSolver::new(),
            gravity,
        }
    }

    /// One step of `parameters.dt`.
    pub fn step(&mut self) {
        self.pipeline.step(
            &self.gravity,
            &self.parameters,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.ccd,
            None,
            &(),
            &(),
        );
    }
}
