//! World-wide settings: the contact model, the microcollision options, the envelope, the
//! broad phase, sleep and the energy bound, with the ranges each must lie in.

use std::fmt;

use super::Sleep;
use crate::dynamics::Material;
use crate::integrate::Tolerance;
use crate::math::Vec3;
use crate::response::RestitutionLaw;

/// Which contact paradigm resolves contacts between bodies.
///
/// Read where a contact is answered (the event loop's respond phase).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ContactModel {
    /// Mirtich's impulse-based contact: every contact is a train of collisions (ch. 3).
    Impulse,
    /// Baraff's constraint-based contact: collisions by simultaneous impulses, contacts that
    /// persist held by contact forces from an LCP at every derivative evaluation (ch. 8–14).
    /// Contacts with multibody links and kinematic bodies are still answered by impulses.
    Constraint,
    /// The penalty method (Baraff ch. 7): collisions as under [`ContactModel::Constraint`],
    /// contacts that persist held by a spring–damper each (see [`super::PenaltyMaterial`]).
    Penalty,
    /// Paradigm switching (Mirtich §8.1), its first piece: contact as under
    /// [`ContactModel::Impulse`], except that a cluster of resting bodies whose microcollisions
    /// have brought it to rest, and whose contacts can carry its weight (static Coulomb
    /// friction), is handed to contact forces: it is held still, as the force LCP's solution
    /// of zero acceleration says it stays, until an impulse on any of its bodies hands it
    /// back. See `world::clusters`, "Holding a cluster at rest". The default: it answers
    /// everything the impulse model does as that model does, and a pile or stack that has
    /// come to rest stands where it came to rest.
    #[default]
    Switching,
}

/// How the microcollisions of bodies resting on each other (a pile, a stack, a row of fallen
/// dominos) are answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MicrocollisionClusters {
    /// The thesis: one contact at a time; an impulse that makes a neighbouring contact
    /// approach sets off a same-instant cascade of further responses.
    Sequential,
    /// All contacts within the envelope of the bodies a microcollision reaches are answered
    /// together by one simultaneous solve (`contact::gauss_seidel`). The default, as in
    /// [`WorldSettings::default`] and scene files.
    #[default]
    Simultaneous,
}

/// World-wide settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Penalty springs by material name, under [`ContactModel::Penalty`] (a material missing
    /// here gets the defaults).
    pub penalty_materials: std::collections::BTreeMap<String, super::PenaltyMaterial>,
}

/// How far a run's total energy (kinetic, gravitational and spring energy of the dynamic bodies
/// and multibodies) may rise above its value at the start before the run stops with
/// [`SimulationError::EnergyGain`](super::SimulationError::EnergyGain): the check that turns a run pumping energy into a loud
/// failure instead of a silently wrong answer. Checked at the end of every
/// [`World::advance_to`](super::World::advance_to), so it reads the state and never changes the motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
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
            contact_model: ContactModel::default(),
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
            penalty_materials: std::collections::BTreeMap::new(),
        }
    }
}

/// The least positive `microcollision_rebound` simultaneous clusters take. Below it a cluster
/// leaves at restitution × its approach until that falls to the tiny floor, and resting bodies
/// sank through the envelope: a 0.1 m box on a table (sleep off) at 0.001 and 0.01, V1's block
/// on its ramp at 0.001 and 0.01; both held at 0.02 and above, and at 0 (the pure reversal,
/// see `EventLoop::pose_cluster`). Issue 41, item 3; docs/sources.md.
pub const MIN_CLUSTER_REBOUND: f64 = 0.05;

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

    /// The least speed a microcollision leaves a contact with normal `normal` (from the
    /// second body to the first) separating at, `distance` apart (negative: overlapping).
    /// Gravity brings a contact back only as far as it acts along the normal, so a sideways
    /// contact (two balls side by side) gets no rebound; an overlapping one leaves fast enough
    /// to rise out of the overlap as well (see [`WorldSettings::rise_speed`]).
    pub(crate) fn rebound_speed(&self, cluster: bool, normal: &Vec3, distance: f64) -> f64 {
        let gravity = self.gravity.norm();
        if gravity == 0.0 {
            return 0.0;
        }
        let speed = self.rebound(cluster)
            * self.threshold_speed()
            * (self.gravity.dot(normal).abs() / gravity).sqrt();
        if distance < 0.0 {
            // (`rise_speed` is zero where overlaps do not rise out; `hypot` then gives `speed`.)
            speed.hypot(self.rise_speed(normal, distance))
        } else {
            speed
        }
    }

    /// The speed that takes a contact `distance` < 0 apart out of the overlap against
    /// gravity's pull along its normal, `√(2 g_n |d|)` (zero when not overlapping). A pure
    /// reversal, or an inelastic stop, starts each hop where the last one ended, and the
    /// bottom ball of a deep pile, driven down by its load between hops, sank a micrometre a
    /// hop until it passed the allowed overlap (the 500-ball pit's `b63` at 0.97 s;
    /// docs/sources.md, "Rising out of an overlap").
    ///
    /// Only where contact is answered by impulses ([`WorldSettings::rises_out_of_overlaps`]):
    /// under the penalty model an overlap is a spring's stretch, which its force answers.
    pub(crate) fn rise_speed(&self, normal: &Vec3, distance: f64) -> f64 {
        if !self.rises_out_of_overlaps() {
            return 0.0;
        }
        (-2.0 * self.gravity.dot(normal).abs() * distance.min(0.0)).sqrt()
    }

    /// Whether an overlapping contact rises out of the overlap (see
    /// [`WorldSettings::rise_speed`]): under the contact models that answer contact by
    /// impulses, `impulse` and `switching`.
    pub(crate) fn rises_out_of_overlaps(&self) -> bool {
        matches!(
            self.contact_model,
            ContactModel::Impulse | ContactModel::Switching
        )
    }

    /// Whether a microcollision leaves the slip that averages zero over the hop after it
    /// rather than the thesis's reversed slip (`response::contact`, `settled_slip`): under
    /// the contact models that answer contact by impulses, `impulse` and `switching`.
    pub(crate) fn settles_slip(&self) -> bool {
        matches!(
            self.contact_model,
            ContactModel::Impulse | ContactModel::Switching
        )
    }

    /// The microcollision threshold speed `√(2 g ε)` (Mirtich §3.5): a contact approaching
    /// slower is resting, answered by microcollisions.
    pub(crate) fn threshold_speed(&self) -> f64 {
        (2.0 * self.gravity.norm() * self.collision_epsilon).sqrt()
    }

    /// Checks every setting against its valid range (the same ranges the scene reader
    /// enforces), naming the first that is out of it. Envelope against body size is checked
    /// when the bodies are known, as the run starts ([`World::advance_to`](super::World::advance_to)).
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
        if let Some(rebound) = self.microcollision_rebound
            && self.microcollision_clusters == MicrocollisionClusters::Simultaneous
            && rebound > 0.0
            && rebound < MIN_CLUSTER_REBOUND
        {
            return fail(
                "microcollision_rebound",
                "0 (the pure reversal) or from 0.05 to 1 in simultaneous clusters (below 0.05 a \
                 resting cluster sinks through the envelope; `microcollision_clusters = \
                 \"sequential\"` takes any value)",
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
        // A body's box is swept over the period: its fall ½ g T² must be a number, or the
        // first body boxed was blamed for a state that "stopped being finite" (issue 42).
        if !(0.5 * self.gravity.norm() * self.box_period * self.box_period).is_finite() {
            return fail(
                "box_period",
                "a time over which a fall under gravity (½ g T²) is finite",
                format!("{:e}", self.box_period),
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
        for spring in self.penalty_materials.values() {
            let bad = |x: Option<f64>| x.is_some_and(|x| !positive(x));
            if bad(spring.stiffness) || bad(spring.damping) {
                return fail(
                    "penalty_materials",
                    "a positive finite stiffness and damping ratio",
                    format!("{spring:?}"),
                );
            }
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

/// Which broad phase decides the candidate pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BroadPhaseKind {
    /// Mirtich's hierarchical spatial hash (§2.4): no bad cases; the default.
    #[default]
    HierarchicalHash,
    /// Sweep and prune (Baraff §5.3): faster on scattered bodies, quadratic on clustered ones.
    SweepAndPrune,
}
