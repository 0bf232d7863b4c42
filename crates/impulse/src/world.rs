//! The world: bodies, gravity, materials, and the advance of time.
//!
//! [`World::advance_to`] is the simulation loop. Today, with no collisions yet, every body flies
//! freely and independently to the requested time; the collision heap of Mirtich §2.3 will slot
//! in here, processing its events in time order up to the requested time. Because bodies are
//! sampled from their flights (see [`crate::dynamics::FreeFlight`]), *where* `advance_to` stops —
//! an output frame, a user's call — never changes the motion.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::dynamics::{BodyDesc, BodyError, BodyId, Material, RigidBody};
use crate::integrate::{IntegrationError, Tolerance};
use crate::math::Vec3;
use crate::multibody::{
    BodyLookup, BuildError, Multibody, MultibodyDesc, MultibodyError, MultibodyId,
};

/// World-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravitational acceleration.
    pub gravity: Vec3,
    /// Collision envelope ε_c: bodies closer than this are in contact (Mirtich §2.3).
    pub collision_epsilon: f64,
    /// Error control of the rotational integration.
    pub integrator: Tolerance,
    /// Material of bodies that name none.
    pub default_material: Material,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            collision_epsilon: 1e-3,
            integrator: Tolerance::default(),
            default_material: Material::default(),
        }
    }
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
                "cannot advance to t = {requested}: the world is already at t = {now}"
            ),
            Self::Multibody { multibody, error } => write!(f, "multibody `{multibody}`, {error}"),
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
#[derive(Clone, Debug)]
pub struct World {
    settings: WorldSettings,
    time: f64,
    bodies: Vec<RigidBody>,
    names: HashMap<String, BodyId>,
    /// Friction and restitution for particular pairs of bodies (ordered ids).
    pair_materials: BTreeMap<(BodyId, BodyId), Material>,
    /// Friction and restitution for pairs of named materials (ordered names).
    material_pairs: BTreeMap<(String, String), Material>,
    /// Articulated multibodies (advanced after the free bodies; see `advance_multibodies`).
    multibodies: Vec<Multibody>,
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
            multibodies: Vec::new(),
        }
    }

    /// Settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
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
        self.multibodies.push(multibody);
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
    pub fn multibody_mut(&mut self, id: MultibodyId) -> &mut Multibody {
        &mut self.multibodies[id.0]
    }

    /// The multibody with this name.
    pub fn multibody_id(&self, name: &str) -> Option<MultibodyId> {
        self.multibodies
            .iter()
            .position(|m| m.name() == name)
            .map(MultibodyId)
    }

    /// Moves every multibody to time `t`; each runs its own controllers on the way. This is the
    /// multibody hook of the simulation loop: with collisions, call it up to each event time.
    pub fn advance_multibodies(&mut self, t: f64) -> Result<(), SimulationError> {
        for multibody in &mut self.multibodies {
            multibody
                .advance_to(t)
                .map_err(|error| SimulationError::Multibody {
                    multibody: multibody.name().to_string(),
                    error,
                })?;
        }
        Ok(())
    }

    /// Sets the material of contacts between two particular bodies.
    pub fn set_pair_material(&mut self, a: BodyId, b: BodyId, material: Material) {
        self.pair_materials.insert((a.min(b), a.max(b)), material);
    }

    /// Sets the material of contacts between bodies of two named materials.
    pub fn set_material_pair(&mut self, a: &str, b: &str, material: Material) {
        let key = if a <= b { (a, b) } else { (b, a) };
        self.material_pairs
            .insert((key.0.to_string(), key.1.to_string()), material);
    }

    /// Friction and restitution of a contact between two bodies: a per-body-pair override if
    /// there is one, else a per-material-pair override, else the mean of the two bodies' values.
    pub fn contact_material(&self, a: BodyId, b: BodyId) -> Material {
        if let Some(m) = self.pair_materials.get(&(a.min(b), a.max(b))) {
            return *m;
        }
        let (ba, bb) = (self.body(a), self.body(b));
        if let (Some(na), Some(nb)) = (ba.material_name(), bb.material_name()) {
            let key = if na <= nb { (na, nb) } else { (nb, na) };
            if let Some(m) = self
                .material_pairs
                .get(&(key.0.to_string(), key.1.to_string()))
            {
                return *m;
            }
        }
        let (ma, mb) = (ba.material(), bb.material());
        Material {
            friction: 0.5 * (ma.friction + mb.friction),
            restitution: 0.5 * (ma.restitution + mb.restitution),
        }
    }

    /// Advances every body to time `t`.
    pub fn advance_to(&mut self, t: f64) -> Result<(), SimulationError> {
        if t < self.time {
            return Err(SimulationError::TimeReversal {
                now: self.time,
                requested: t,
            });
        }
        for body in &mut self.bodies {
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
        }
        self.advance_multibodies(t)?;
        self.time = t;
        Ok(())
    }

    /// Energy of the dynamic bodies.
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
        let mut counters = BTreeMap::from([
            ("integrator_steps", accepted),
            ("integrator_rejected_steps", rejected),
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
