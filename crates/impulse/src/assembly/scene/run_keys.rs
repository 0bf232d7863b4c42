//! The `[contact]` keys that choose how the solids' contacts are answered (issue 36):
//! `solver`, `broad_phase`, `sleep` and `sleep_time`, with the names and meaning of the world
//! scene's `microcollision_clusters` values, `broad_phase`, `sleep` and `sleep_time`.

use crate::scene::reader::Table;

use super::super::solids::{ContactSolver, SolidsSleep};

/// The `[contact]` keys read here.
pub(super) const KEYS: [&str; 4] = ["solver", "broad_phase", "sleep", "sleep_time"];

/// How the solids' contacts are answered and when their free bodies sleep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RunKeys {
    /// `solver`: `"simultaneous"` (default) or `"sequential"`.
    pub(super) solver: ContactSolver,
    /// `broad_phase`: `"sweep_and_prune"` (default, `true`) or `"none"` (every pair tested).
    pub(super) broad_phase: bool,
    /// `sleep` (default true) and `sleep_time` (default 0.5, positive).
    pub(super) sleep: SolidsSleep,
}

impl Default for RunKeys {
    /// The API's defaults (`AssemblyWithSolids::new`).
    fn default() -> Self {
        Self {
            solver: ContactSolver::default(),
            broad_phase: true,
            sleep: SolidsSleep::default(),
        }
    }
}

/// The keys of `[contact]` `c` (the defaults for those absent); each bad value is reported at
/// its key. `has_solids`: whether the scene has bodies with shapes or fixed solids — the keys
/// mean nothing without them, and a scene that gives one anyway is told so.
pub(super) fn read(c: &Table, has_solids: bool) -> RunKeys {
    let mut keys = RunKeys::default();
    if !has_solids {
        for key in KEYS {
            if let Some(v) = c.get(key) {
                v.error(format!(
                    "`{key}` applies to bodies with shapes and [[fixed]] solids, and this scene has none"
                ));
            }
        }
        return keys;
    }
    if let Some(s) = c
        .get("solver")
        .and_then(|v| v.choice(&["simultaneous", "sequential"]))
    {
        keys.solver = match s {
            "sequential" => ContactSolver::Sequential,
            _ => ContactSolver::Simultaneous,
        };
    }
    if let Some(s) = c
        .get("broad_phase")
        .and_then(|v| v.choice(&["sweep_and_prune", "none"]))
    {
        keys.broad_phase = s == "sweep_and_prune";
    }
    if let Some(b) = c.get("sleep").and_then(|v| v.boolean()) {
        keys.sleep.enabled = b;
    }
    if let Some(t) = c.get("sleep_time").and_then(|v| v.positive()) {
        keys.sleep.time = t;
    }
    keys
}
