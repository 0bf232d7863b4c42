//! The world: bodies, gravity, materials, and the advance of time.
//!
//! [`World::advance_to`] is the simulation loop: it takes the collision heap's events in time
//! order up to the requested time, one phase after another (the event loop, `event_loop.rs`,
//! and one file per phase beside it), then samples every body there. Between events bodies fly
//! freely, and each is sampled from its flight, so *where* `advance_to` stops — an output
//! frame, a user's call — never changes the motion.

mod boxes;
mod clusters;
mod colliders;
mod contact_report;
mod counters;
mod edit;
mod energy;
mod envelopes;
mod error;
mod event_loop;
mod groups;
mod held_faces;
mod islands;
mod materials;
mod near_miss;
mod pair_check;
mod pair_contacts;
mod penalty;
mod respond;
mod schedule;
mod settings;
mod sleep;
mod spin_sphere;
mod state;

use std::collections::{BTreeMap, HashMap};

use colliders::{Colliders, Participants, may_collide};
pub use contact_report::{Consistency, ContactReport, ReportedContact};
pub use counters::{ConstraintCounters, Counters, MultibodyCounters, PenaltyCounters};
pub use energy::{ENERGY_TOLERANCE, Energy};
pub use error::{AddBodyError, AddMultibodyError, SimulationError};
use event_loop::EventLoop;
pub(crate) use materials::MaterialTable;
pub use penalty::PenaltyMaterial;
pub use settings::{
    BroadPhaseKind, ContactModel, EnergyBound, MIN_CLUSTER_REBOUND, MicrocollisionClusters,
    SettingsError, WorldSettings,
};
pub use sleep::Sleep;

use crate::collision::{NarrowStats, PairCache, closest};
use crate::dynamics::{BodyDesc, BodyId, Material, MaterialError, RigidBody};
use crate::math::{Point, Vec3};
use crate::multibody::{BodyLookup, Multibody, MultibodyDesc, MultibodyId, Observations};
use crate::response::ResponseKind;

/// Something that collides: a rigid body, or a link of a multibody.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Collider {
    /// A rigid body.
    Body(BodyId),
    /// Link `.1` (index in its tree) of a multibody.
    Link(MultibodyId, usize),
}

/// One collision impulse, as recorded for viewers and analysis.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CollisionEvent {
    /// When.
    pub time: f64,
    /// Ordinary collision or microcollision.
    pub kind: ResponseKind,
    /// The two colliders (the impulse acts on the first, its opposite on the second).
    pub colliders: (Collider, Collider),
    /// Contact point (midway between the closest points), world frame.
    pub point: Point,
    /// Contact normal, from the second body towards the first.
    pub normal: Vec3,
    /// Impulse on the first body, world frame.
    pub impulse: Vec3,
}

/// Two colliders found overlapping.
#[derive(Clone, Debug, PartialEq)]
pub struct Interpenetration {
    /// The two colliders.
    pub colliders: (Collider, Collider),
    /// How deep.
    pub depth: f64,
}

/// A rigid-body world.
///
/// Its serde form is a checkpoint's state, without the geometry: read it back with
/// [`World::restore_state`] into a world of the same scene.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct World {
    settings: WorldSettings,
    time: f64,
    bodies: Vec<RigidBody>,
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    names: HashMap<String, BodyId>,
    /// Friction and restitution for particular pairs of bodies (ordered ids).
    pair_materials: BTreeMap<(BodyId, BodyId), Material>,
    /// Friction and restitution for pairs of named materials (ordered names).
    material_pairs: BTreeMap<(String, String), Material>,
    /// Collision detection and response state.
    collisions: EventLoop,
    /// Constraint groups: free bodies in persistent contact moved together by contact forces
    /// (`contact_model = "constraint"`).
    groups: groups::Groups,
    /// Articulated multibodies (advanced after the free bodies; see `advance_multibodies`).
    multibodies: Vec<Multibody>,
    /// What the multibodies' controllers see of each other.
    observations: Observations,
    /// Total energy when the loop (re)started, and the rise allowed above it (`None`: not
    /// checked). See [`EnergyBound`].
    energy_start: f64,
    energy_allowance: Option<f64>,
    /// Measure the energy afresh at the next advance (the caller changed a state).
    energy_rebase: bool,
    /// Set from outside to stop [`World::advance_to`] between events and group steps.
    #[serde(skip)]
    interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    /// [`World::prepare`] has placed everything at the start time since the loop was last
    /// (re)built; the next advance does not do it again.
    prepared: bool,
}

impl World {
    /// An empty world at time 0.
    pub fn new(settings: WorldSettings) -> Self {
        Self {
            settings,
            time: 0.0,
            bodies: Vec::new(),
            names: HashMap::new(),
            pair_materials: BTreeMap::new(),
            material_pairs: BTreeMap::new(),
            collisions: EventLoop::new(),
            multibodies: Vec::new(),
            observations: Observations::default(),
            energy_start: 0.0,
            energy_allowance: None,
            energy_rebase: false,
            interrupt: None,
            prepared: false,
            groups: groups::Groups::default(),
        }
    }

    /// Settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Changes how the microcollisions of resting bodies are answered, from the next one on.
    pub fn set_microcollision_clusters(&mut self, clusters: MicrocollisionClusters) {
        self.settings.microcollision_clusters = clusters;
    }

    /// Changes when bodies fall asleep. Turning sleep off wakes every sleeper (at rest).
    /// Settings out of range are refused and change nothing.
    pub fn set_sleep(&mut self, sleep: Sleep) -> Result<(), SettingsError> {
        WorldSettings {
            sleep,
            ..self.settings.clone()
        }
        .check()?;
        let waking = self.settings.sleep.enabled && !sleep.enabled;
        self.settings.sleep = sleep;
        if waking {
            // The loop is rebuilt at the next advance, and a rebuild wakes every sleeper.
            self.invalidate();
        }
        Ok(())
    }

    /// Current time.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Adds a body whose description gives its state at the current time.
    pub fn add_body(&mut self, desc: BodyDesc) -> Result<BodyId, AddBodyError> {
        if self.names.contains_key(&desc.name) {
            return Err(AddBodyError::DuplicateName(desc.name));
        }
        let name = desc.name.clone();
        let body = RigidBody::new(
            desc,
            self.time,
            self.settings.gravity,
            self.settings.integrator,
        )
        .map_err(|error| AddBodyError::Body {
            name: name.clone(),
            error,
        })?;
        let id = BodyId(self.bodies.len());
        self.bodies.push(body);
        self.names.insert(name, id);
        self.invalidate();
        Ok(id)
    }

    /// All bodies, indexed by [`BodyId`].
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    /// One body.
    pub fn body(&self, id: BodyId) -> &RigidBody {
        &self.bodies[id.0]
    }

    /// The body with this name.
    pub fn body_id(&self, name: &str) -> Option<BodyId> {
        self.names.get(name).copied()
    }

    /// Adds a multibody whose description gives its state at the current time. Its root
    /// joints may hang from the world or from fixed bodies of this world.
    pub fn add_multibody(&mut self, desc: MultibodyDesc) -> Result<MultibodyId, AddMultibodyError> {
        if self.multibodies.iter().any(|m| m.name() == desc.name) {
            return Err(AddMultibodyError::DuplicateName(desc.name));
        }
        let name = desc.name.clone();
        let lookup = |body: &str| match self.body_id(body) {
            None => BodyLookup::Missing,
            Some(id) if matches!(self.body(id).motion(), crate::MotionType::Fixed) => {
                BodyLookup::Fixed
            }
            Some(_) => BodyLookup::Moving,
        };
        let multibody = Multibody::new(
            desc,
            self.time,
            self.settings.gravity,
            self.settings.integrator,
            &lookup,
        )
        .map_err(|error| AddMultibodyError::Build { name, error })?;
        self.observations.publish(&multibody, f64::NEG_INFINITY);
        self.multibodies.push(multibody);
        self.invalidate();
        Ok(MultibodyId(self.multibodies.len() - 1))
    }

    /// All multibodies, indexed by [`MultibodyId`].
    pub fn multibodies(&self) -> &[Multibody] {
        &self.multibodies
    }

    /// One multibody.
    pub fn multibody(&self, id: MultibodyId) -> &Multibody {
        &self.multibodies[id.0]
    }

    /// One multibody, to change it while the world is being built (the event loop is
    /// rebuilt at the next advance).
    pub(crate) fn multibody_mut(&mut self, id: MultibodyId) -> &mut Multibody {
        self.energy_rebase = true;
        self.invalidate();
        &mut self.multibodies[id.0]
    }

    /// Replaces multibody `id`'s joint velocities at the current time. The event loop learns of
    /// it (it is rebuilt at the next [`World::advance_to`], every pair checked again), and the
    /// energy bound measures from the new state: the energy the change adds is the caller's.
    /// `v` must have one entry per velocity coordinate, each finite.
    pub fn set_multibody_velocities(
        &mut self,
        id: MultibodyId,
        v: &[f64],
    ) -> Result<(), SettingsError> {
        let multibody = &self.multibodies[id.0];
        if v.len() != multibody.v().len() || !v.iter().all(|x| x.is_finite()) {
            return Err(SettingsError {
                setting: "multibody velocities",
                expected: "one finite value per velocity coordinate",
                found: format!("{} values for {} coordinates", v.len(), multibody.v().len()),
            });
        }
        self.multibody_mut(id).set_velocities(v);
        Ok(())
    }

    /// The multibody with this name.
    pub fn multibody_id(&self, name: &str) -> Option<MultibodyId> {
        self.multibodies
            .iter()
            .position(|m| m.name() == name)
            .map(MultibodyId)
    }

    /// Moves every multibody to time `t`; each runs its own controllers on the way. They move
    /// together from one controller update to the next, so that a controller updating at `t_k`
    /// finds every other multibody observed at all its updates before `t_k`.
    fn advance_multibodies(&mut self, t: f64) -> Result<(), SimulationError> {
        loop {
            let next = self
                .multibodies
                .iter()
                .map(Multibody::next_controller_time)
                .fold(t, f64::min);
            for multibody in &mut self.multibodies {
                multibody
                    .advance_observed(next, &mut self.observations)
                    .map_err(|error| SimulationError::Multibody {
                        multibody: multibody.name().to_string(),
                        error,
                    })?;
            }
            if next >= t {
                return Ok(());
            }
        }
    }

    /// Sets the material of contacts between two particular bodies (refused, and nothing
    /// changed, if its friction or restitution is out of range).
    pub fn set_pair_material(
        &mut self,
        a: BodyId,
        b: BodyId,
        material: Material,
    ) -> Result<(), MaterialError> {
        material.check()?;
        self.pair_materials.insert((a.min(b), a.max(b)), material);
        // Held contacts keep their material: the loop is rebuilt at the next advance.
        self.collisions.invalidate();
        Ok(())
    }

    /// Sets the material of contacts between bodies of two named materials (refused, and
    /// nothing changed, if its friction or restitution is out of range).
    pub fn set_material_pair(
        &mut self,
        a: &str,
        b: &str,
        material: Material,
    ) -> Result<(), MaterialError> {
        material.check()?;
        let key = if a <= b { (a, b) } else { (b, a) };
        self.material_pairs
            .insert((key.0.to_string(), key.1.to_string()), material);
        // Held contacts keep their material: the loop is rebuilt at the next advance.
        self.collisions.invalidate();
        Ok(())
    }

    /// Friction and restitution of a contact between two bodies: a per-body-pair override if
    /// there is one, else a per-material-pair override, else the mean of the two bodies' values.
    pub fn contact_material(&self, a: BodyId, b: BodyId) -> Material {
        self.material_table()
            .between(Collider::Body(a), Collider::Body(b))
    }

    fn material_table(&self) -> MaterialTable<'_> {
        MaterialTable::new(
            &self.bodies,
            &self.multibodies,
            &self.pair_materials,
            &self.material_pairs,
        )
    }

    /// Display name of a collider: the body's name, or `multibody/link`.
    pub fn collider_name(&self, c: Collider) -> String {
        colliders::collider_name(c, &self.bodies, &self.multibodies)
    }

    /// Checks the settings and places every body and multibody at the world's time (kinematic
    /// paths, controllers' first commands) without processing any collision: the state the
    /// scene gave, which a run records as its first frame before the events at that time
    /// (issue 41, item 4). [`World::advance_to`] does this itself when it was not called.
    pub fn prepare(&mut self) -> Result<(), SimulationError> {
        if !self.collisions.started() && !self.prepared {
            self.place_at_start()?;
            self.prepared = true;
        }
        Ok(())
    }

    fn place_at_start(&mut self) -> Result<(), SimulationError> {
        self.check_settings().map_err(SimulationError::Settings)?;
        for body in &mut self.bodies {
            advance_body(body, self.time)?;
        }
        self.advance_multibodies(self.time)?;
        self.energy_rebase = true;
        Ok(())
    }

    /// Forgets the event loop (bodies or states changed): rebuilt, and everything placed at
    /// the time again, at the next advance.
    fn invalidate(&mut self) {
        self.collisions.invalidate();
        self.prepared = false;
    }

    /// A flag that, once set (by a Ctrl-C or SIGTERM handler), makes [`World::advance_to`]
    /// stop between events and between a contact group's integration steps with
    /// [`SimulationError::Interrupted`]: a long stretch between two output frames (a long
    /// group flight, a storm of microcollisions) no longer holds the run.
    pub fn set_interrupt(&mut self, flag: &'static std::sync::atomic::AtomicBool) {
        self.interrupt = Some(flag);
    }

    /// Advances the world to time `t`: processes every collision event up to `t` in time order,
    /// then moves every body to `t`.
    pub fn advance_to(&mut self, t: f64) -> Result<(), SimulationError> {
        if !t.is_finite() || t < self.time {
            return Err(SimulationError::TimeReversal {
                now: self.time,
                requested: t,
            });
        }
        if !self.collisions.started() && !std::mem::take(&mut self.prepared) {
            self.place_at_start()?;
        }
        if self.energy_rebase {
            self.energy_start = self.energy().total();
            self.energy_allowance = self.energy_allowance();
            self.energy_rebase = false;
        }
        let energy_ceiling = self.is_closed().then_some(self.energy_start);
        let table = MaterialTable::new(
            &self.bodies,
            &self.multibodies,
            &self.pair_materials,
            &self.material_pairs,
        );
        let mut world = Participants {
            bodies: &mut self.bodies,
            multibodies: &mut self.multibodies,
            observations: &mut self.observations,
            settings: &self.settings,
            materials: &table,
            groups: &mut self.groups,
            interrupt: self.interrupt,
            energy_ceiling,
        };
        if !self.collisions.started() {
            self.collisions.start(self.time, &mut world)?;
        }
        while let Some(next) = self.collisions.next_time() {
            if next > t {
                break;
            }
            self.collisions
                .process_next(&mut world)
                .map_err(SimulationError::interrupted_or)?;
        }
        // Held bodies move with their groups; the others by their own flights.
        for g in world.groups.indices() {
            groups::advance_group(&mut world, g, t).map_err(SimulationError::interrupted_or)?;
        }
        for body in &mut self.bodies {
            advance_body(body, t)?;
        }
        self.advance_multibodies(t)?;
        self.time = t;
        self.check_energy()
    }

    /// The size (twice the bounding radius) of the smallest shape of a dynamic body, if any.
    pub fn smallest_dynamic_size(&self) -> Option<f64> {
        let smallest = self
            .bodies
            .iter()
            .filter(|b| b.is_dynamic())
            .flat_map(|b| b.shapes().iter().map(|s| s.shape.bounding_radius()))
            .filter(|r| r.is_finite())
            .fold(f64::INFINITY, f64::min);
        smallest.is_finite().then_some(2.0 * smallest)
    }

    /// [`WorldSettings::check`], and a collision envelope smaller than the smallest dynamic
    /// body: one as large would make every body touch whatever lies within its own size, and
    /// the microcollision speed √(2 g ε) exceed any motion (ε = 1e308 ran for ever).
    fn check_settings(&self) -> Result<(), SettingsError> {
        self.settings.check()?;
        let epsilon = self.settings.collision_epsilon;
        match self.smallest_dynamic_size() {
            Some(size) if epsilon >= size => Err(SettingsError {
                setting: "collision_epsilon",
                expected: "an envelope smaller than the smallest body (aim for 2–3 orders of magnitude below body size)",
                found: format!(
                    "{} next to a body of size {}",
                    crate::math::readable(epsilon),
                    crate::math::readable(size)
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Collision impulses applied since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<CollisionEvent> {
        self.collisions.record_rays(&mut self.groups);
        std::mem::take(&mut self.collisions.events)
    }

    /// Deepest interpenetration seen so far.
    pub fn max_penetration(&self) -> f64 {
        // Under the penalty model the springs' own overlap too (Baraff ch. 7).
        self.collisions
            .max_penetration
            .max(self.groups.counters().deepest)
    }

    /// Pairs of colliders (bodies and multibody links) that overlap now, with their depths:
    /// the pairs that could collide (at least one responds to impulses; not two links of one
    /// multibody, nor a root link and the body it hangs from).
    pub fn interpenetrations(&self) -> Vec<Interpenetration> {
        let table = Colliders::new(&self.bodies, &self.multibodies);
        let poses: Vec<crate::math::Pose> = (0..table.len())
            .map(|c| colliders::collider_pose(table.kind(c), &self.bodies, &self.multibodies))
            .collect();
        let dynamic: Vec<bool> = (0..table.len())
            .map(|c| colliders::collider_is_dynamic(table.kind(c), &self.bodies))
            .collect();
        let boxes: Vec<Option<crate::geometry::Aabb>> = table
            .models
            .iter()
            .zip(&poses)
            .map(|(m, pose)| {
                if m.half_spaces.is_empty() {
                    m.aabb(pose)
                } else {
                    None
                }
            })
            .collect();
        let n = table.len();
        let mut found = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let eligible = may_collide(
                    (table.kind(i), table.kind(j)),
                    (table.hung_from[i], table.hung_from[j]),
                    (i, j),
                    dynamic[i] || dynamic[j],
                );
                if !eligible {
                    continue;
                }
                if let (Some(x), Some(y)) = (&boxes[i], &boxes[j])
                    && !crate::collision::broad::overlap(x, y)
                {
                    continue;
                }
                let contact = closest(
                    &table.models[i],
                    &poses[i],
                    &table.models[j],
                    &poses[j],
                    &mut PairCache::default(),
                    &mut NarrowStats::default(),
                );
                if let Some(c) = contact
                    && c.distance < 0.0
                {
                    found.push(Interpenetration {
                        colliders: (table.kind(i), table.kind(j)),
                        depth: -c.distance,
                    });
                }
            }
        }
        found
    }

    /// Event and work counters.
    pub fn counters(&self) -> Counters {
        let (accepted, rejected) = self
            .bodies
            .iter()
            .map(|b| b.integrator_steps())
            .fold((0, 0), |(a, r), (x, y)| (a + x, r + y));
        let n = &self.collisions.checks.narrow;
        let multibody = (!self.multibodies.is_empty()).then(|| {
            let sum = |k: fn((u64, u64, u64, u64)) -> u64| -> u64 {
                self.multibodies.iter().map(|m| k(m.counters())).sum()
            };
            MultibodyCounters {
                integrator_steps: sum(|c| c.0),
                integrator_rejected_steps: sum(|c| c.1),
                controller_updates: sum(|c| c.2),
                impulses: sum(|c| c.3),
            }
        });
        Counters {
            integrator_steps: accepted,
            integrator_rejected_steps: rejected,
            narrow_part_queries: n.part_queries,
            vclip_fallbacks: n.vclip_fallbacks,
            flat_face_contacts: n.flat_face_contacts,
            curved_contacts: n.curved_contacts,
            multibody,
            constraint: (self.settings.contact_model == ContactModel::Constraint).then(|| {
                let g = self.groups.counters();
                ConstraintCounters {
                    solves: g.solves,
                    warm_solves: g.warm_solves,
                    steps: g.steps,
                    basis_restarts: g.basis_restarts,
                    ray_impulses: g.ray_impulses,
                    time_steps: g.time_steps,
                    frictionless_fallbacks: g.frictionless_fallbacks,
                }
            }),
            penalty: (self.settings.contact_model == ContactModel::Penalty).then(|| {
                let g = self.groups.counters();
                PenaltyCounters {
                    evaluations: g.solves,
                    steps: g.steps,
                    frictionless_fallbacks: g.frictionless_fallbacks,
                }
            }),
            ..self.collisions.counters
        }
    }
}

/// Moves a body to time `t`, checking that its state stays finite.
pub(crate) fn advance_body(body: &mut RigidBody, t: f64) -> Result<(), SimulationError> {
    body.advance_to(t)
        .map_err(|error| SimulationError::Integration {
            body: body.name().to_string(),
            error,
        })?;
    if !body.state().is_finite() || !body.kinetic_energy_is_finite() {
        return Err(SimulationError::NonFinite {
            body: body.name().to_string(),
            time: t,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Shape;
    use crate::math::{Quat, pose};
    use crate::response::RestitutionLaw;

    /// Two 3 kg balls in a closed world (gravity 9.81, ε = 1e-3, e_max = 5).
    fn closed_world() -> World {
        let mut w = World::new(WorldSettings::default());
        for (name, x) in [("a", 0.0), ("b", 1.0)] {
            let mut ball = BodyDesc::new(name, Shape::Sphere { radius: 0.1 });
            ball.mass = crate::dynamics::MassSpec::Mass(3.0);
            ball.pose = pose(Vec3::new(x, 0.0, 1.0), Quat::identity());
            w.add_body(ball).unwrap();
        }
        w
    }

    #[test]
    fn contact_materials_are_body_pair_then_material_pair_overrides_then_the_mean() {
        // Four balls: rubber (μ 0.9, e 0.8), steel (0.2, 0.6), wood (0.5, 0.4), and one with no
        // named material (0.3, 0.2). Overrides: rubber–steel by material, wood–plain by body.
        let mut w = World::new(WorldSettings::default());
        let mut ids = Vec::new();
        for (i, (name, friction, restitution)) in [
            (Some("rubber"), 0.9, 0.8),
            (Some("steel"), 0.2, 0.6),
            (Some("wood"), 0.5, 0.4),
            (None, 0.3, 0.2),
        ]
        .into_iter()
        .enumerate()
        {
            let mut ball = BodyDesc::new(format!("ball {i}"), Shape::Sphere { radius: 0.1 });
            ball.pose = pose(Vec3::new(i as f64, 0.0, 1.0), Quat::identity());
            ball.material = Material {
                friction,
                restitution,
            };
            ball.material_name = name.map(str::to_string);
            ids.push(w.add_body(ball).unwrap());
        }
        let by_material = Material {
            friction: 0.7,
            restitution: 0.1,
        };
        let by_body = Material {
            friction: 1.1,
            restitution: 0.0,
        };
        w.set_material_pair("steel", "rubber", by_material).unwrap();
        w.set_material_pair("steel", "glass", by_body).unwrap();
        w.set_pair_material(ids[3], ids[2], by_body).unwrap();
        let between = |a: usize, b: usize| w.contact_material(ids[a], ids[b]);
        assert_eq!(between(0, 1), by_material);
        assert_eq!(between(1, 0), by_material);
        assert_eq!(between(2, 3), by_body);
        // No override: the means, (0.9 + 0.5)/2 and (0.8 + 0.4)/2; the unnamed body's likewise.
        let mean = between(0, 2);
        assert!((mean.friction - 0.7).abs() < 1e-15 && (mean.restitution - 0.6).abs() < 1e-15);
        let mean = between(1, 3);
        assert!((mean.friction - 0.25).abs() < 1e-15 && (mean.restitution - 0.4).abs() < 1e-15);
        // A material named by an override of another pair (steel–glass) gets no override here.
        let mean = between(1, 2);
        assert!((mean.friction - 0.35).abs() < 1e-15 && (mean.restitution - 0.5).abs() < 1e-15);
    }

    #[test]
    fn automatic_energy_bound_is_what_microcollisions_can_give_in_closed_worlds_only() {
        // Ten times ½ m v² for all 6 kg at the fastest microcollision throw,
        // v = e_max √(2 g ε) = 5 √(2 · 9.81 · 1e-3) (Mirtich eq. 3.18 with the boost).
        let mut w = closed_world();
        w.advance_to(0.0).unwrap();
        let throw = 5.0 * (2.0f64 * 9.81 * 1e-3).sqrt();
        let expected = 10.0 * 0.5 * 6.0 * throw * throw;
        let allowance = w.energy_allowance().unwrap();
        assert!(
            (allowance - expected).abs() < 1e-12 * expected,
            "{allowance}"
        );
        // Open worlds are not checked: a kinematic body, a force, Poisson's law.
        let mut kinematic = closed_world();
        let mut paddle = BodyDesc::new("paddle", Shape::Sphere { radius: 0.1 });
        paddle.motion = crate::MotionType::Kinematic(crate::dynamics::PrescribedMotion {
            velocity: Vec3::new(1.0, 0.0, 0.0),
            angular_velocity: Vec3::zeros(),
            oscillations: Vec::new(),
        });
        paddle.pose = pose(Vec3::new(5.0, 0.0, 1.0), Quat::identity());
        kinematic.add_body(paddle).unwrap();
        assert_eq!(kinematic.energy_allowance(), None);
        let mut pushed = World::new(WorldSettings::default());
        let mut ball = BodyDesc::new("pushed", Shape::Sphere { radius: 0.1 });
        ball.force = Vec3::new(1.0, 0.0, 0.0);
        pushed.add_body(ball).unwrap();
        assert_eq!(pushed.energy_allowance(), None);
        let poisson = World::new(WorldSettings {
            restitution_law: RestitutionLaw::Poisson,
            ..WorldSettings::default()
        });
        assert_eq!(poisson.energy_allowance(), None);
        // Explicit bounds hold whatever drives the world; `Off` checks nothing.
        let explicit = World::new(WorldSettings {
            energy_bound: EnergyBound::Gain(2.0),
            restitution_law: RestitutionLaw::Poisson,
            ..WorldSettings::default()
        });
        assert_eq!(explicit.energy_allowance(), Some(2.0));
        let off = World::new(WorldSettings {
            energy_bound: EnergyBound::Off,
            ..WorldSettings::default()
        });
        assert_eq!(off.energy_allowance(), None);
    }
}
