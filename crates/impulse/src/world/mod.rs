//! The world: bodies, gravity, materials, and the advance of time.
//!
//! [`World::advance_to`] is the simulation loop: it processes the collision heap's events in
//! time order up to the requested time (see `collisions`), then samples every body there.
//! Between events bodies fly freely, and each is sampled from its flight (see
//! [`crate::dynamics::FreeFlight`]), so *where* `advance_to` stops — an output frame, a user's
//! call — never changes the motion.

mod collisions;
mod sleep;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

pub use collisions::{BroadPhaseKind, LoopCounters};
use collisions::{ColliderTable, Collisions, Participants, may_collide};
pub use sleep::Sleep;

use crate::collision::{NarrowStats, PairCache, closest};
use crate::dynamics::{BodyDesc, BodyError, BodyId, Material, MaterialError, RigidBody};
use crate::integrate::{IntegrationError, Tolerance};
use crate::math::{Point, Vec3};
use crate::multibody::{
    BodyLookup, BuildError, Multibody, MultibodyDesc, MultibodyError, MultibodyId, Observations,
};
use crate::response::{ResponseKind, RestitutionLaw};

/// Which contact paradigm resolves contacts between bodies.
///
/// The seam for the constraint-based model (Baraff): `advance_to` dispatches on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactModel {
    /// Mirtich's impulse-based contact: every contact is a train of collisions (ch. 3).
    #[default]
    Impulse,
}

/// How the microcollisions of bodies resting on each other (a pile, a stack, a row of fallen
/// dominos) are answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MicrocollisionClusters {
    /// The thesis: one contact at a time; an impulse that makes a neighbouring contact
    /// approach sets off a same-instant cascade of further responses.
    Sequential,
    /// All contacts within the envelope of the bodies a microcollision reaches are answered
    /// together by one simultaneous solve (`response::cluster`). The default, as in
    /// [`WorldSettings::default`] and scene files.
    #[default]
    Simultaneous,
}

/// World-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravitational acceleration.
    pub gravity: Vec3,
    /// Collision envelope ε_c: bodies closer than this are in contact (Mirtich §2.3).
    pub collision_epsilon: f64,
    /// Contact paradigm.
    pub contact_model: ContactModel,
    /// Error control of the rotational integration.
    pub integrator: Tolerance,
    /// Material of bodies that name none.
    pub default_material: Material,
    /// How collisions end (Stronge's energetic law by default).
    pub restitution_law: RestitutionLaw,
    /// Whether slow contacts within the envelope are microcollisions (Mirtich §3.5).
    pub microcollisions: bool,
    /// Restitution a microcollision reaches at the bottom of the envelope (the thesis's 5).
    pub microcollision_max_restitution: f64,
    /// Least separating normal speed a microcollision (reversal or boosted, or a contact of a
    /// simultaneous cluster) leaves, as a fraction of the threshold speed √(2 g ε) scaled by
    /// √(cos) of the angle between normal and gravity (0: the thesis's pure reversal). `None`:
    /// ¼ for a contact answered alone, ½ in a simultaneous cluster ([`WorldSettings::rebound`]).
    pub microcollision_rebound: Option<f64>,
    /// How the microcollisions of bodies resting on each other are answered.
    pub microcollision_clusters: MicrocollisionClusters,
    /// Interval at which swept boxes are recomputed for the broad phase.
    pub box_period: f64,
    /// Broad phase.
    pub broad_phase: BroadPhaseKind,
    /// Deepest interpenetration tolerated before the run stops with an error (`None`: the
    /// collision envelope).
    pub max_penetration: Option<f64>,
    /// When islands of slow bodies fall asleep.
    pub sleep: Sleep,
    /// How far the total energy may rise before the run stops with an error.
    pub energy_bound: EnergyBound,
}

/// How far a run's total energy (kinetic, gravitational and spring energy of the dynamic bodies
/// and multibodies) may rise above its value at the start before the run stops with
/// [`SimulationError::EnergyGain`]: the check that turns a run pumping energy into a loud
/// failure instead of a silently wrong answer. Checked at the end of every
/// [`World::advance_to`], so it reads the state and never changes the motion.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum EnergyBound {
    /// In a closed world — no kinematic bodies, no applied forces or torques, no controllers,
    /// and Stronge's law (Poisson's may gain energy with friction) — nothing but microcollisions
    /// can add energy: each throws a contact off at up to `e_max √(2 g ε)` (§3.5). The rise
    /// may be at most ten times the kinetic energy of every dynamic body (and link) moving at
    /// that speed, and at least a millionth of the start's kinetic plus absolute potential
    /// energy (rounding, integration error). Open worlds are not checked.
    #[default]
    Auto,
    /// Never checked.
    Off,
    /// At most this rise, whatever drives the world (in energy units).
    Gain(f64),
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            collision_epsilon: 1e-3,
            contact_model: ContactModel::Impulse,
            integrator: Tolerance::default(),
            default_material: Material::default(),
            restitution_law: RestitutionLaw::Stronge,
            microcollisions: true,
            microcollision_max_restitution: 5.0,
            microcollision_rebound: None,
            microcollision_clusters: MicrocollisionClusters::Simultaneous,
            box_period: 0.02,
            broad_phase: BroadPhaseKind::HierarchicalHash,
            max_penetration: None,
            sleep: Sleep::default(),
            energy_bound: EnergyBound::Auto,
        }
    }
}

impl WorldSettings {
    /// The microcollision rebound in effect for one contact answered alone (`cluster` false)
    /// or for the contacts of a simultaneous cluster: the one set, else ¼ alone and ½ in a
    /// cluster. One contact at a time, a rebound of ½ had a ball wedged under the triple
    /// pendulum's mallet grind and a resting box creep twice as far; a cluster hops as one,
    /// held by friction at all its contacts, and a higher hop means fewer of them (vibration
    /// amplitude (rebound)² ε: ε/16 and ε/4). See docs/sources.md.
    pub fn rebound(&self, cluster: bool) -> f64 {
        self.microcollision_rebound
            .unwrap_or(if cluster { 0.5 } else { 0.25 })
    }

    /// Checks every setting against its valid range (the same ranges the scene reader
    /// enforces), naming the first that is out of it. Envelope against body size is checked
    /// when the bodies are known, as the run starts ([`World::advance_to`]).
    pub fn check(&self) -> Result<(), SettingsError> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        let fail = |setting: &'static str, expected: &'static str, found: String| {
            Err(SettingsError {
                setting,
                expected,
                found,
            })
        };
        if !self.gravity.iter().all(|g| g.is_finite()) {
            return fail("gravity", "a finite vector", format!("{:?}", self.gravity));
        }
        if !positive(self.collision_epsilon) {
            return fail(
                "collision_epsilon",
                "a positive finite length",
                self.collision_epsilon.to_string(),
            );
        }
        let tolerance = &self.integrator;
        if !(positive(tolerance.relative) && positive(tolerance.absolute)) {
            return fail(
                "integrator",
                "positive finite relative and absolute tolerances",
                format!("{} and {}", tolerance.relative, tolerance.absolute),
            );
        }
        if !(tolerance.max_step > 0.0
            && tolerance.min_step.is_finite()
            && (0.0..tolerance.max_step).contains(&tolerance.min_step))
        {
            return fail(
                "integrator",
                "0 ≤ min_step < max_step, max_step positive",
                format!(
                    "min_step {} and max_step {}",
                    tolerance.min_step, tolerance.max_step
                ),
            );
        }
        if let Err(error) = self.default_material.check() {
            return fail("default_material", error.what, error.value.to_string());
        }
        let boost = self.microcollision_max_restitution;
        if !(boost.is_finite() && boost >= 1.0) {
            return fail(
                "microcollision_max_restitution",
                "a restitution of at least 1 (the boost at the bottom of the envelope)",
                boost.to_string(),
            );
        }
        if let Some(rebound) = self.microcollision_rebound
            && !(0.0..=1.0).contains(&rebound)
        {
            return fail(
                "microcollision_rebound",
                "a fraction of the threshold speed from 0 to 1",
                rebound.to_string(),
            );
        }
        if !positive(self.box_period) {
            return fail(
                "box_period",
                "a positive finite time",
                self.box_period.to_string(),
            );
        }
        if let Some(depth) = self.max_penetration
            && !positive(depth)
        {
            return fail(
                "max_penetration",
                "a positive finite depth",
                depth.to_string(),
            );
        }
        if let EnergyBound::Gain(gain) = self.energy_bound
            && !(gain.is_finite() && gain >= 0.0)
        {
            return fail(
                "energy_bound",
                "a finite energy rise of at least 0",
                gain.to_string(),
            );
        }
        if !positive(self.sleep.time) {
            return fail(
                "sleep.time",
                "a positive finite time",
                self.sleep.time.to_string(),
            );
        }
        if let Some(speed) = self.sleep.speed
            && !positive(speed)
        {
            return fail("sleep.speed", "a positive finite speed", speed.to_string());
        }
        Ok(())
    }
}

/// A world setting out of its valid range.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsError {
    /// The setting (a field of [`WorldSettings`]).
    pub setting: &'static str,
    /// What it must be.
    pub expected: &'static str,
    /// What it was.
    pub found: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "world setting `{}`: expected {}, found {}",
            self.setting, self.expected, self.found
        )
    }
}

impl std::error::Error for SettingsError {}

/// Something that collides: a rigid body, or a link of a multibody.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Collider {
    /// A rigid body.
    Body(BodyId),
    /// Link `.1` (index in its tree) of a multibody.
    Link(MultibodyId, usize),
}

/// One collision impulse, as recorded for viewers and analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// Kinetic and gravitational potential energy of the dynamic bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Energy {
    /// Translational plus rotational kinetic energy.
    pub kinetic: f64,
    /// Gravitational potential energy, zero at the world origin.
    pub potential: f64,
}

impl Energy {
    /// Kinetic plus potential.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }
}

/// A simulation that cannot continue.
#[derive(Clone, Debug, PartialEq)]
pub enum SimulationError {
    /// A body's state became NaN or infinite.
    NonFinite { body: String, time: f64 },
    /// A body's rotation could not be integrated.
    Integration {
        body: String,
        error: IntegrationError,
    },
    /// `advance_to` was asked to go back in time.
    TimeReversal { now: f64, requested: f64 },
    /// Two bodies overlap deeper than allowed.
    Penetration {
        bodies: (String, String),
        depth: f64,
        time: f64,
    },
    /// Collisions at one instant keep triggering each other without end.
    NoProgress { bodies: (String, String), time: f64 },
    /// Bodies move too fast for their collision checks to advance time.
    TooFast {
        bodies: (String, String),
        time: f64,
        events: u64,
    },
    /// The total energy rose above its value at the start by more than
    /// [`WorldSettings::energy_bound`] allows.
    EnergyGain {
        /// The rise.
        gain: f64,
        /// The rise allowed.
        allowed: f64,
        time: f64,
        /// The body or link with the most kinetic energy then.
        fastest: String,
    },
    /// A setting is out of its range, or the collision envelope is not smaller than the
    /// smallest dynamic body (checked as the run starts).
    Settings(SettingsError),
    /// A multibody could not go on (names the joint and the time).
    Multibody {
        multibody: String,
        error: MultibodyError,
    },
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { body, time } => write!(
                f,
                "body `{body}`: its state stopped being finite at t = {time}"
            ),
            Self::Integration { body, error } => write!(f, "body `{body}`: {error}"),
            Self::TimeReversal { now, requested } => write!(
                f,
                "cannot advance to t = {requested}: the world is at t = {now}, and time must move forward to a finite value"
            ),
            Self::Penetration {
                bodies,
                depth,
                time,
            } => write!(
                f,
                "bodies `{}` and `{}` interpenetrate by {depth:e} at t = {time}, more than allowed",
                bodies.0, bodies.1
            ),
            Self::Settings(error) => error.fmt(f),
            Self::EnergyGain {
                gain,
                allowed,
                time,
                fastest,
            } => write!(
                f,
                "the total energy rose by {} above its value at the start (at most {} allowed, \
                 see `energy_bound`) at t = {time}; `{fastest}` has the most kinetic energy",
                crate::math::readable(*gain),
                crate::math::readable(*allowed)
            ),
            Self::Multibody { multibody, error } => write!(f, "multibody `{multibody}`, {error}"),
            Self::NoProgress { bodies, time } => write!(
                f,
                "collisions between `{}` and `{}` keep setting off others at t = {time} without end (a resting stack too tall for impulse-based contact?)",
                bodies.0, bodies.1
            ),
            Self::TooFast {
                bodies,
                time,
                events,
            } => write!(
                f,
                "`{}` and `{}` move too fast to simulate at t = {time}: {events} collision \
                 checks advanced time by less than {:e} of itself (is a speed, spin \
                 or gravity far too large?)",
                bodies.0,
                bodies.1,
                collisions::STALL_SPAN
            ),
        }
    }
}

impl std::error::Error for SimulationError {}

/// Why a body could not be added.
#[derive(Clone, Debug, PartialEq)]
pub enum AddBodyError {
    /// Another body has the same name.
    DuplicateName(String),
    /// The description is invalid.
    Body { name: String, error: BodyError },
}

impl fmt::Display for AddBodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName(name) => write!(f, "a body named `{name}` already exists"),
            Self::Body { name, error } => write!(f, "body `{name}`: {error}"),
        }
    }
}

impl std::error::Error for AddBodyError {}

/// Why a multibody could not be added.
#[derive(Clone, Debug, PartialEq)]
pub enum AddMultibodyError {
    /// Another multibody has the same name.
    DuplicateName(String),
    /// The description is invalid.
    Build { name: String, error: BuildError },
}

impl fmt::Display for AddMultibodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName(name) => write!(f, "a multibody named `{name}` already exists"),
            Self::Build { name, error } => write!(f, "multibody `{name}`: {error}"),
        }
    }
}

impl std::error::Error for AddMultibodyError {}

/// A rigid-body world.
#[derive(Debug)]
pub struct World {
    settings: WorldSettings,
    time: f64,
    bodies: Vec<RigidBody>,
    names: HashMap<String, BodyId>,
    /// Friction and restitution for particular pairs of bodies (ordered ids).
    pair_materials: BTreeMap<(BodyId, BodyId), Material>,
    /// Friction and restitution for pairs of named materials (ordered names).
    material_pairs: BTreeMap<(String, String), Material>,
    /// Collision detection and response state.
    collisions: Collisions,
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
            collisions: Collisions::new(),
            multibodies: Vec::new(),
            observations: Observations::default(),
            energy_start: 0.0,
            energy_allowance: None,
            energy_rebase: false,
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
            self.collisions.invalidate();
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
        self.collisions.invalidate();
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
        self.collisions.invalidate();
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

    /// One multibody, to apply impulses or change its state (see [`Multibody::restart`]).
    /// The energy a change adds is the caller's doing: the energy bound measures from the state
    /// at the next [`World::advance_to`].
    pub fn multibody_mut(&mut self, id: MultibodyId) -> &mut Multibody {
        self.energy_rebase = true;
        &mut self.multibodies[id.0]
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
        match c {
            Collider::Body(id) => self.bodies[id.0].name().to_string(),
            Collider::Link(m, l) => {
                let multibody = &self.multibodies[m.0];
                format!("{}/{}", multibody.name(), multibody.tree().links()[l].name)
            }
        }
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
        if !self.collisions.started() {
            self.check_settings().map_err(SimulationError::Settings)?;
            for body in &mut self.bodies {
                advance_body(body, self.time)?;
            }
            self.advance_multibodies(self.time)?;
            self.energy_rebase = true;
        }
        if self.energy_rebase {
            self.energy_start = self.energy().total();
            self.energy_allowance = self.energy_allowance();
            self.energy_rebase = false;
        }
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
        };
        if !self.collisions.started() {
            self.collisions.start(self.time, &mut world)?;
        }
        while let Some(next) = self.collisions.next_time() {
            if next > t {
                break;
            }
            self.collisions.process_next(&mut world)?;
        }
        for body in &mut self.bodies {
            advance_body(body, t)?;
        }
        self.advance_multibodies(t)?;
        self.time = t;
        self.check_energy()
    }

    /// The rise of total energy allowed above the start's ([`EnergyBound`]), from the state at
    /// the (re)start.
    fn energy_allowance(&self) -> Option<f64> {
        match self.settings.energy_bound {
            EnergyBound::Off => None,
            EnergyBound::Gain(gain) => Some(gain),
            EnergyBound::Auto => {
                let driven_body = |b: &RigidBody| {
                    matches!(b.motion(), crate::MotionType::Kinematic(_))
                        || (b.is_dynamic()
                            && (b.force() != Vec3::zeros() || b.torque() != Vec3::zeros()))
                };
                let open = self.bodies.iter().any(driven_body)
                    || self.multibodies.iter().any(Multibody::is_driven)
                    || self.settings.restitution_law != RestitutionLaw::Stronge;
                if open {
                    return None;
                }
                let settings = &self.settings;
                let throw = if settings.microcollisions {
                    settings.microcollision_max_restitution
                        * (2.0 * settings.gravity.norm() * settings.collision_epsilon).sqrt()
                } else {
                    0.0
                };
                let mass = self
                    .bodies
                    .iter()
                    .filter(|b| b.is_dynamic())
                    .map(RigidBody::mass)
                    .sum::<f64>()
                    + self
                        .multibodies
                        .iter()
                        .flat_map(|m| m.tree().links().iter().map(|l| l.mass))
                        .sum::<f64>();
                let energy = self.energy();
                let floor = 1e-6 * (energy.kinetic + energy.potential.abs());
                Some((10.0 * 0.5 * mass * throw * throw).max(floor))
            }
        }
    }

    /// Stops the run if its energy has risen more than allowed.
    fn check_energy(&self) -> Result<(), SimulationError> {
        let Some(allowed) = self.energy_allowance else {
            return Ok(());
        };
        let gain = self.energy().total() - self.energy_start;
        if gain <= allowed {
            return Ok(());
        }
        let bodies = self
            .bodies
            .iter()
            .map(|b| (b.kinetic_energy(), b.name().to_string()));
        let links = self.multibodies.iter().flat_map(|m| {
            let name = m.name();
            m.link_kinetic_energies()
                .into_iter()
                .map(move |(link, e)| (e, format!("{name}/{link}")))
        });
        let fastest = bodies
            .chain(links)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, name)| name)
            .unwrap_or_default();
        Err(SimulationError::EnergyGain {
            gain,
            allowed,
            time: self.time,
            fastest,
        })
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
        std::mem::take(&mut self.collisions.events)
    }

    /// Deepest interpenetration seen so far.
    pub fn max_penetration(&self) -> f64 {
        self.collisions.max_penetration
    }

    /// Pairs of colliders (bodies and multibody links) that overlap now, with their depths:
    /// the pairs that could collide (at least one responds to impulses; not two links of one
    /// multibody, nor a root link and the body it hangs from).
    pub fn interpenetrations(&self) -> Vec<Interpenetration> {
        let table = ColliderTable::new(&self.bodies, &self.multibodies);
        let poses: Vec<crate::math::Pose> = table
            .colliders
            .iter()
            .map(|&c| match c {
                Collider::Body(id) => self.bodies[id.0].model_pose(),
                Collider::Link(m, l) => self.multibodies[m.0].link_model_pose(l),
            })
            .collect();
        let dynamic: Vec<bool> = table
            .colliders
            .iter()
            .map(|&c| match c {
                Collider::Body(id) => self.bodies[id.0].is_dynamic(),
                Collider::Link(..) => true,
            })
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
        let n = table.colliders.len();
        let mut found = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let eligible = may_collide(
                    (table.colliders[i], table.colliders[j]),
                    (table.anchors[i], table.anchors[j]),
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
                        colliders: (table.colliders[i], table.colliders[j]),
                        depth: -c.distance,
                    });
                }
            }
        }
        found
    }

    /// Energy of the dynamic bodies and multibodies.
    pub fn energy(&self) -> Energy {
        let gravity = self.settings.gravity;
        let multibodies = &self.multibodies;
        Energy {
            kinetic: self.bodies.iter().map(|b| b.kinetic_energy()).sum::<f64>()
                + multibodies.iter().map(|m| m.kinetic_energy()).sum::<f64>(),
            potential: self
                .bodies
                .iter()
                .map(|b| b.potential_energy(&gravity))
                .sum::<f64>()
                + multibodies
                    .iter()
                    .map(|m| m.potential_energy())
                    .sum::<f64>(),
        }
    }

    /// Event and work counters, by name.
    pub fn counters(&self) -> BTreeMap<&'static str, u64> {
        let (accepted, rejected) = self
            .bodies
            .iter()
            .map(|b| b.integrator_steps())
            .fold((0, 0), |(a, r), (x, y)| (a + x, r + y));
        let c = &self.collisions.counters;
        let n = &self.collisions.narrow;
        let mut counters = BTreeMap::from([
            ("integrator_steps", accepted),
            ("integrator_rejected_steps", rejected),
            ("collision_checks", c.collision_checks),
            ("heap_events", c.heap_events),
            ("broad_phase_pairs", c.broad_phase_pairs),
            ("box_refreshes", c.box_refreshes),
            ("collisions", c.collisions),
            ("microcollisions", c.microcollisions),
            ("boosted_microcollisions", c.boosted_microcollisions),
            ("partial_reversals", c.partial_reversals),
            ("collision_integration_steps", c.collision_integration_steps),
            ("cascade_responses", c.cascade_responses),
            ("extrapolated_sweeps", c.extrapolated_sweeps),
            ("cluster_solves", c.cluster_solves),
            ("cluster_sweeps", c.cluster_sweeps),
            ("cluster_fallbacks", c.cluster_fallbacks),
            ("sleeps", c.sleeps),
            ("wakes", c.wakes),
            ("narrow_part_queries", n.part_queries),
            ("vclip_fallbacks", n.vclip_fallbacks),
            ("flat_face_contacts", n.flat_face_contacts),
            ("curved_contacts", n.curved_contacts),
        ]);
        if !self.multibodies.is_empty() {
            let sum = |k: fn((u64, u64, u64, u64)) -> u64| -> u64 {
                self.multibodies.iter().map(|m| k(m.counters())).sum()
            };
            counters.insert("multibody_integrator_steps", sum(|c| c.0));
            counters.insert("multibody_integrator_rejected_steps", sum(|c| c.1));
            counters.insert("controller_updates", sum(|c| c.2));
            counters.insert("multibody_impulses", sum(|c| c.3));
        }
        counters
    }
}

/// Moves a body to time `t`, checking that its state stays finite.
pub(crate) fn advance_body(body: &mut RigidBody, t: f64) -> Result<(), SimulationError> {
    body.advance_to(t)
        .map_err(|error| SimulationError::Integration {
            body: body.name().to_string(),
            error,
        })?;
    if !body.state().is_finite() || !body.kinetic_energy().is_finite() {
        return Err(SimulationError::NonFinite {
            body: body.name().to_string(),
            time: t,
        });
    }
    Ok(())
}

/// Contact materials, looked up without touching the bodies (so the loop can move them).
///
/// Material names are resolved to indices once, when the table is built: a lookup at each
/// collision compares no strings and allocates nothing.
pub(crate) struct MaterialTable<'a> {
    /// Each body's material, and the index of its material's name among those that appear in
    /// a material-pair override (`None`: no override names it).
    bodies: Vec<(Material, Option<usize>)>,
    /// Per multibody, per link.
    links: Vec<Vec<(Material, Option<usize>)>>,
    pair_materials: &'a BTreeMap<(BodyId, BodyId), Material>,
    /// The material-pair overrides, by name index, `names × names` (both orders filled).
    material_pairs: Vec<Option<Material>>,
    names: usize,
}

impl<'a> MaterialTable<'a> {
    fn new(
        bodies: &[RigidBody],
        multibodies: &[Multibody],
        pair_materials: &'a BTreeMap<(BodyId, BodyId), Material>,
        material_pairs: &BTreeMap<(String, String), Material>,
    ) -> Self {
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (a, b) in material_pairs.keys() {
            for name in [a, b] {
                let next = index.len();
                index.entry(name.as_str()).or_insert(next);
            }
        }
        let names = index.len();
        let mut pairs = vec![None; names * names];
        for ((a, b), material) in material_pairs {
            let (i, j) = (index[a.as_str()], index[b.as_str()]);
            pairs[i * names + j] = Some(*material);
            pairs[j * names + i] = Some(*material);
        }
        let named = |name: Option<&str>| name.and_then(|n| index.get(n).copied());
        Self {
            bodies: bodies
                .iter()
                .map(|b| (b.material(), named(b.material_name())))
                .collect(),
            links: multibodies
                .iter()
                .map(|m| {
                    m.tree()
                        .links()
                        .iter()
                        .map(|l| (l.material, named(l.material_name.as_deref())))
                        .collect()
                })
                .collect(),
            pair_materials,
            material_pairs: pairs,
            names,
        }
    }

    fn of(&self, c: Collider) -> &(Material, Option<usize>) {
        match c {
            Collider::Body(id) => &self.bodies[id.0],
            Collider::Link(m, l) => &self.links[m.0][l],
        }
    }

    /// A per-body-pair override, else a per-material-pair override, else the mean.
    pub(crate) fn between(&self, a: Collider, b: Collider) -> Material {
        if let (Collider::Body(a), Collider::Body(b)) = (a, b)
            && let Some(m) = self.pair_materials.get(&(a.min(b), a.max(b)))
        {
            return *m;
        }
        let (ma, na) = self.of(a);
        let (mb, nb) = self.of(b);
        if let (Some(i), Some(j)) = (na, nb)
            && let Some(m) = self.material_pairs[i * self.names + j]
        {
            return m;
        }
        Material {
            friction: 0.5 * (ma.friction + mb.friction),
            restitution: 0.5 * (ma.restitution + mb.restitution),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Shape;
    use crate::math::{Quat, pose};

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
