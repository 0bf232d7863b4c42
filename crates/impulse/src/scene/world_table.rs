//! The `[world]` table: the run's name, duration and output rate (shared with assembly scenes),
//! and the world's settings.

use crate::integrate::Tolerance;
use crate::response::RestitutionLaw;
use crate::world::{
    BroadPhaseKind, ContactModel, EnergyBound, MicrocollisionClusters, WorldSettings,
};

use super::reader::{Context, Table, Value};
use super::{RunOptions, Units};

pub(super) const WORLD_KEYS: &[&str] = &[
    "name",
    "gravity",
    "duration",
    "output_rate",
    "collision_epsilon",
    "contact_model",
    "restitution_law",
    "microcollisions",
    "microcollision_max_restitution",
    "microcollision_rebound",
    "microcollision_clusters",
    "max_penetration",
    "box_period",
    "broad_phase",
    "sleep",
    "sleep_time",
    "sleep_speed",
    "energy_bound",
    "integrator",
    "units",
];
const INTEGRATOR_KEYS: &[&str] = &[
    "relative_tolerance",
    "absolute_tolerance",
    "max_step",
    "min_step",
];

pub(super) fn read_integrator(t: &Table<'_, '_>) -> Tolerance {
    t.reject_unknown(INTEGRATOR_KEYS);
    let mut tolerance = Tolerance::default();
    if let Some(v) = t.get("relative_tolerance").and_then(|v| v.positive()) {
        tolerance.relative = v;
    }
    if let Some(v) = t.get("absolute_tolerance").and_then(|v| v.positive()) {
        tolerance.absolute = v;
    }
    if let Some(v) = t.get("max_step").and_then(|v| v.positive()) {
        tolerance.max_step = v;
    }
    if let Some(v) = t.get("min_step").and_then(|v| v.positive()) {
        tolerance.min_step = v;
    }
    if tolerance.min_step >= tolerance.max_step {
        t.error(format!(
            "min_step ({}) must be smaller than max_step ({})",
            tolerance.min_step, tolerance.max_step
        ));
    }
    tolerance
}

/// What every scene file's `[world]` table says about the run: its name, and how long and how
/// often it is recorded (checked against [`super::MAX_FRAMES`]).
pub(crate) struct RunHeader<'c, 's> {
    /// The `[world]` table, if the file has one.
    pub(crate) world: Option<Table<'c, 's>>,
    pub(crate) name: String,
    pub(crate) duration: f64,
    pub(crate) output_rate: f64,
}

impl<'c, 's> RunHeader<'c, 's> {
    /// Reads `[world]`, refusing keys outside `keys`; an unnamed run takes the file's stem, or
    /// `default_name`.
    pub(crate) fn read(
        ctx: &Context<'s>,
        root: &Table<'c, 's>,
        keys: &[&str],
        default_name: &str,
    ) -> Self {
        let world_table = root.table("world");
        if let Some(w) = &world_table {
            w.reject_unknown(keys);
        }
        let get = |key: &str| world_table.as_ref().and_then(|w| w.get(key));
        let name = get("name")
            .and_then(|v| v.string().map(str::to_string))
            .unwrap_or_else(|| {
                ctx.path()
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| default_name.into())
            });
        let duration = get("duration").and_then(|v| v.positive()).unwrap_or(1.0);
        let output_rate = get("output_rate")
            .and_then(|v| v.positive())
            .unwrap_or(60.0);
        let frames = RunOptions {
            duration,
            frame_rate: output_rate,
        };
        if let Err(message) = frames.check()
            && let Some(v) = get("output_rate").or_else(|| get("duration"))
        {
            v.error(message);
        }
        Self {
            world: world_table,
            name,
            duration,
            output_rate,
        }
    }

    /// The value of `key` in `[world]`, if given.
    pub(crate) fn get(&self, key: &str) -> Option<Value<'c, 's>> {
        self.world.as_ref().and_then(|w| w.get(key))
    }
}

/// The world's settings and the scene's system of units from `[world]`.
pub(super) fn read_settings(world_table: Option<&Table<'_, '_>>) -> (WorldSettings, Option<Units>) {
    let get = |key: &str| world_table.and_then(|w| w.get(key));
    let mut settings = WorldSettings::default();
    if let Some(g) = get("gravity").and_then(|v| v.vec3()) {
        settings.gravity = g;
    }
    let units = match get("units") {
        Some(v) => v.choice(&["SI", "cgs"]).map(|name| {
            let given = if name == "SI" { Units::Si } else { Units::Cgs };
            if let Some(by_gravity) = Units::from_gravity(&settings.gravity)
                && by_gravity != given
            {
                v.warning(format!(
                    "units = \"{}\", but the gravity ({} length/time²) is the standard one in {}",
                    given.name(),
                    settings.gravity.norm(),
                    by_gravity.name()
                ));
            }
            given
        }),
        None => Units::from_gravity(&settings.gravity),
    };
    if let Some(eps) = get("collision_epsilon").and_then(|v| v.positive()) {
        settings.collision_epsilon = eps;
    }
    if let Some(model) = get("contact_model")
        .and_then(|v| v.choice(&["impulse", "constraint", "penalty", "switching"]))
    {
        settings.contact_model = match model {
            "constraint" => ContactModel::Constraint,
            "penalty" => ContactModel::Penalty,
            "switching" => ContactModel::Switching,
            _ => ContactModel::Impulse,
        };
    }
    if let Some(law) = get("restitution_law").and_then(|v| v.choice(&["stronge", "poisson"])) {
        settings.restitution_law = if law == "poisson" {
            RestitutionLaw::Poisson
        } else {
            RestitutionLaw::Stronge
        };
    }
    if let Some(on) = get("microcollisions").and_then(|v| v.boolean()) {
        settings.microcollisions = on;
    }
    if let Some(e) = get("microcollision_max_restitution").and_then(|v| v.number()) {
        if e >= 1.0 && e.is_finite() {
            settings.microcollision_max_restitution = e;
        } else if let Some(v) = get("microcollision_max_restitution") {
            v.error(format!(
                "expected a restitution of at least 1 (the boost at the bottom of the envelope), found {e}"
            ));
        }
    }
    if let Some(rebound) = get("microcollision_rebound").and_then(|v| v.number()) {
        if (0.0..=1.0).contains(&rebound) {
            settings.microcollision_rebound = Some(rebound);
        } else if let Some(v) = get("microcollision_rebound") {
            v.error(format!(
                "expected a fraction of the threshold speed from 0 to 1 (0: the thesis's pure reversal), found {rebound}"
            ));
        }
    }
    if let Some(depth) = get("max_penetration").and_then(|v| v.positive()) {
        settings.max_penetration = Some(depth);
    }
    if let Some(period) = get("box_period").and_then(|v| v.positive()) {
        settings.box_period = period;
    }
    if let Some(kind) = get("broad_phase").and_then(|v| v.choice(&["hash", "sweep_and_prune"])) {
        settings.broad_phase = if kind == "sweep_and_prune" {
            BroadPhaseKind::SweepAndPrune
        } else {
            BroadPhaseKind::HierarchicalHash
        };
    }
    if let Some(kind) =
        get("microcollision_clusters").and_then(|v| v.choice(&["sequential", "simultaneous"]))
    {
        settings.microcollision_clusters = if kind == "simultaneous" {
            MicrocollisionClusters::Simultaneous
        } else {
            MicrocollisionClusters::Sequential
        };
    }
    if let Some(rebound) = settings.microcollision_rebound
        && settings.microcollision_clusters == MicrocollisionClusters::Simultaneous
        && rebound > 0.0
        && rebound < crate::world::MIN_CLUSTER_REBOUND
        && let Some(v) = get("microcollision_rebound")
    {
        v.error(format!(
            "expected 0 (the thesis's pure reversal) or from 0.05 to 1 with simultaneous \
             microcollision clusters (the default), found {rebound}: below 0.05 a resting \
             cluster sinks through the envelope (see docs/sources.md); \
             `microcollision_clusters = \"sequential\"` takes any value from 0 to 1"
        ));
        settings.microcollision_rebound = None;
    }
    if let Some(on) = get("sleep").and_then(|v| v.boolean()) {
        settings.sleep.enabled = on;
    }
    if let Some(time) = get("sleep_time").and_then(|v| v.positive()) {
        settings.sleep.time = time;
    }
    if let Some(speed) = get("sleep_speed").and_then(|v| v.positive()) {
        settings.sleep.speed = Some(speed);
    }
    if let Some(v) = get("energy_bound") {
        let bound = if v.is_string() {
            v.choice(&["auto", "off"]).map(|choice| match choice {
                "off" => EnergyBound::Off,
                _ => EnergyBound::Auto,
            })
        } else {
            v.non_negative().map(EnergyBound::Gain)
        };
        if let Some(bound) = bound {
            settings.energy_bound = bound;
        }
    }
    if let Some(integrator) = get("integrator").and_then(|v| v.table()) {
        settings.integrator = read_integrator(&integrator);
    }
    (settings, units)
}
