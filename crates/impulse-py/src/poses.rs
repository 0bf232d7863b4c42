//! `impulse.poses(part, ...)` and `impulse.merge_poses(texts)`: the dynamic method of
//! `impulse poses` (Monte-Carlo drops, Mirtich §7.5), whole or one shard, and the merge of
//! shards — the command line's `drops.json` text, byte for byte.

use std::path::Path;

use impulse::poses::{
    DropJob, DropPhysics, DropResults, Part, PartIdentity, Protocol, QuasiStatic, Shard,
    perturbed_probabilities, results_from_json, results_to_json, run_drops,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::ImpulseError;

/// The part in a mesh file, or the body of a scene file (`.toml`), as `impulse poses` loads it.
fn load_part(path: &str, body: Option<&str>) -> PyResult<Part> {
    let file = Path::new(path);
    let is_scene = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let part = if is_scene {
        Part::from_scene(file, body)
    } else if body.is_some() {
        return Err(PyValueError::new_err(format!(
            "body names a body of a scene file, but {path} is a mesh"
        )));
    } else {
        Part::from_mesh_file(file)
    };
    part.map_err(|e| ImpulseError::new_err(e.to_string()))
}

/// Drops `part` (a closed mesh, lengths in cm for the default protocol, or a scene file with
/// `body`) onto a table `trials` times, as `impulse poses PART --method dynamic` does, and
/// returns the text of its `drops.json`. With `shard="k/N"` only that shard's chains run and
/// the text is its partial result (`drops-k-of-N.json`) for `merge_poses`; a job splits into at
/// most `chains` shards. The result does not depend on `threads` (0: all cores) or on the
/// split. The GIL is released while the drops run.
#[pyfunction]
#[pyo3(signature = (
    part, *, body = None, trials = 2000, seed = 1, chains = 1, shard = None,
    protocol = "bootstrap", burn_in = 20, tilt = 1.5, height = 12.0, speed = 5.0,
    spin = 0.0, gravity = 981.0, friction = 0.3, restitution = 0.3, envelope = 5e-3, rest_time = 0.25,
    time_limit = 20.0, threads = 0
))]
#[allow(clippy::too_many_arguments)]
pub fn poses(
    py: Python<'_>,
    part: &str,
    body: Option<&str>,
    trials: usize,
    seed: u64,
    chains: usize,
    shard: Option<&str>,
    protocol: &str,
    burn_in: usize,
    tilt: f64,
    height: f64,
    speed: f64,
    spin: f64,
    gravity: f64,
    friction: f64,
    restitution: f64,
    envelope: f64,
    rest_time: f64,
    time_limit: f64,
    threads: usize,
) -> PyResult<String> {
    if trials == 0 {
        return Err(PyValueError::new_err(
            "trials must be a positive number of drops, got 0",
        ));
    }
    let protocol = Protocol::from_name(protocol).ok_or_else(|| {
        PyValueError::new_err(format!(
            "protocol must be bootstrap or uniform, got `{protocol}`"
        ))
    })?;
    let job = DropJob {
        physics: DropPhysics {
            gravity,
            height,
            speed,
            spin,
            friction,
            restitution,
            envelope,
            rest_time,
            time_limit,
        },
        protocol,
        burn_in,
        tilt_degrees: tilt,
        chains,
        trials,
        seed,
    };
    job.check()
        .map_err(|e| PyValueError::new_err(format!("bad drop protocol: {e}")))?;
    let shard = shard
        .map(Shard::parse)
        .transpose()
        .map_err(PyValueError::new_err)?
        .unwrap_or(Shard::WHOLE);
    job.shard_chains(shard).map_err(PyValueError::new_err)?;
    let loaded = load_part(part, body)?;
    let identity = PartIdentity::of(&loaded, part, body);
    let pool = rayon_pool(threads)?;
    let results = py
        .detach(|| pool.install(|| run_drops(&loaded, &job, shard, &|| {})))
        .map_err(ImpulseError::new_err)?;
    Ok(results_to_json(&identity, &results))
}

fn rayon_pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ImpulseError::new_err(format!("cannot start {threads} threads: {e}")))
}

/// Joins the partial results (the texts `poses(..., shard=...)` returned) of every shard of
/// one job, in any order, into the text of the whole job's `drops.json` — the same bytes as
/// the job run in one piece (`impulse poses merge`). Raises `ImpulseError` for shards of
/// different parts or jobs, or a missing or repeated shard.
#[pyfunction]
pub fn merge_poses(texts: Vec<String>) -> PyResult<String> {
    let mut identity: Option<PartIdentity> = None;
    let mut parts: Vec<DropResults> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let name = format!("shard result {}", i + 1);
        let (id, results) = results_from_json(&name, text).map_err(ImpulseError::new_err)?;
        if let Some(first) = &identity
            && *first != id
        {
            return Err(ImpulseError::new_err(format!(
                "{name}: a result for a different part ({} from {}, digest {}) than the first's \
                 ({} from {}, digest {})",
                id.name, id.source, id.digest, first.name, first.source, first.digest
            )));
        }
        identity = Some(id);
        parts.push(results);
    }
    let identity = identity.ok_or_else(|| ImpulseError::new_err("nothing to merge"))?;
    let merged = DropResults::merge(parts).map_err(ImpulseError::new_err)?;
    Ok(results_to_json(&identity, &merged))
}

/// The quasi-static probabilities of each hull face (solid angles from the centre of mass,
/// unstable faces toppled, eq. 7.1) and the perturbed ones (each resting pose shaken within a
/// `cone`-degree cone): `{"quasi_static": [...], "perturbed": [...], "faces": n}`.
#[pyfunction]
#[pyo3(signature = (part, *, body = None, cone = 20.0))]
pub fn pose_probabilities<'py>(
    py: Python<'py>,
    part: &str,
    body: Option<&str>,
    cone: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if !(cone > 0.0 && cone < 90.0) {
        return Err(PyValueError::new_err(format!(
            "cone must be an angle between 0 and 90 degrees, got {cone}"
        )));
    }
    let loaded = load_part(part, body)?;
    let qs = QuasiStatic::of(&loaded);
    let perturbed = perturbed_probabilities(&loaded, &qs, cone);
    let dict = PyDict::new(py);
    dict.set_item("faces", loaded.faces().len())?;
    dict.set_item("quasi_static", qs.probability.clone())?;
    dict.set_item("perturbed", perturbed)?;
    Ok(dict)
}
