//! The results file of a drop job (`drops.json`): the part's identity, every job parameter and
//! every drop, written so that a file read back and written again gives the same bytes (numbers
//! in their shortest exact form, keys sorted). Shards write the same format for their chains.
//!
//! Spin at release is written only when the job has some (the job's `spin`, each drop's
//! `angular_velocity`), so a job without spin writes the same bytes as before spin existed;
//! a file without them reads as a job without spin.

use serde_json::{Map, Value, json};

use super::drop::{DropOutcome, DropPhysics};
use super::job::{DropJob, DropRecord, DropResults, Protocol};
use super::part::Part;
use crate::math::{Quat, Vec3};

/// The format version written in every results file.
pub const FORMAT_VERSION: u64 = 1;

/// What identifies the part a results file was computed for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartIdentity {
    /// The part's name.
    pub name: String,
    /// Where it was read from (a mesh or scene file, as given).
    pub source: String,
    /// The scene body, for a part taken from a scene.
    pub body: Option<String>,
    /// A hash of the part's hull, centre of mass and inertia (hexadecimal).
    pub digest: String,
}

impl PartIdentity {
    /// The identity of `part`, read from `source` (and `body`).
    pub fn of(part: &Part, source: &str, body: Option<&str>) -> Self {
        Self {
            name: part.name().to_string(),
            source: source.to_string(),
            body: body.map(str::to_string),
            digest: digest(part),
        }
    }
}

/// FNV-1a over the bits of the hull's vertices, the centre of mass and the inertia tensor.
pub fn digest(part: &Part) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: f64| {
        for byte in (x + 0.0).to_bits().to_le_bytes() {
            hash ^= byte as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for v in part.hull().vertices() {
        v.coords.iter().for_each(|&c| eat(c));
    }
    let mass = part.mass_properties();
    eat(mass.mass);
    mass.center_of_mass.coords.iter().for_each(|&c| eat(c));
    mass.inertia.iter().for_each(|&c| eat(c));
    format!("{hash:016x}")
}

fn quat_json(q: &Quat) -> Value {
    json!([q.w, q.i, q.j, q.k])
}

/// The results file's JSON text (with a final newline).
pub fn results_to_json(part: &PartIdentity, results: &DropResults) -> String {
    let job = &results.job;
    let p = &job.physics;
    let drops: Vec<Value> = results
        .drops
        .iter()
        .map(|d| {
            let mut m = Map::new();
            m.insert("index".into(), json!(d.index));
            m.insert("start".into(), quat_json(&d.start));
            if p.spin != 0.0 {
                let w = &d.angular_velocity;
                m.insert("angular_velocity".into(), json!([w.x, w.y, w.z]));
            }
            match &d.outcome {
                DropOutcome::Rest {
                    face,
                    time,
                    orientation,
                } => {
                    m.insert("end".into(), json!("rest"));
                    m.insert("face".into(), json!(face + 1));
                    m.insert("time".into(), json!(time));
                    m.insert("orientation".into(), quat_json(orientation));
                }
                DropOutcome::Moving => {
                    m.insert("end".into(), json!("moving"));
                }
                DropOutcome::Failed(message) => {
                    m.insert("end".into(), json!("failed"));
                    m.insert("error".into(), json!(message));
                }
            }
            Value::Object(m)
        })
        .collect();
    let mut value = json!({
        "format_version": FORMAT_VERSION,
        "part": {
            "name": part.name,
            "source": part.source,
            "body": part.body,
            "digest": part.digest,
        },
        "job": {
            "protocol": job.protocol.name(),
            "trials": job.trials,
            "seed": job.seed,
            "burn_in": job.burn_in,
            "tilt_degrees": job.tilt_degrees,
            "chains": job.chains,
            "gravity": p.gravity,
            "height": p.height,
            "speed": p.speed,
            "friction": p.friction,
            "restitution": p.restitution,
            "envelope": p.envelope,
            "rest_time": p.rest_time,
            "time_limit": p.time_limit,
        },
        "chains": { "from": results.from, "to": results.to, "of": job.chain_count() },
        "drops": drops,
    });
    if p.spin != 0.0 {
        value["job"]["spin"] = json!(p.spin);
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a results file's text (`name` labels errors).
pub fn results_from_json(name: &str, text: &str) -> Result<(PartIdentity, DropResults), String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("{name}:{}: not a results file: {e}", e.line()))?;
    let bad = |what: &str| format!("{name}: not a drop-results file: {what}");
    let version = value["format_version"].as_u64();
    if version != Some(FORMAT_VERSION) {
        return Err(bad(&format!(
            "format_version is {:?}, expected {FORMAT_VERSION}",
            value["format_version"]
        )));
    }
    let string = |v: &Value, key: &str| {
        v[key]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("`{key}` must be a string")))
    };
    let number = |v: &Value, key: &str| {
        v[key]
            .as_f64()
            .ok_or_else(|| bad(&format!("`{key}` must be a number")))
    };
    let count = |v: &Value, key: &str| {
        v[key]
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| bad(&format!("`{key}` must be a whole number")))
    };
    let part = &value["part"];
    let identity = PartIdentity {
        name: string(part, "name")?,
        source: string(part, "source")?,
        body: part["body"].as_str().map(str::to_string),
        digest: string(part, "digest")?,
    };
    let j = &value["job"];
    let protocol_name = string(j, "protocol")?;
    let protocol = Protocol::from_name(&protocol_name)
        .ok_or_else(|| bad(&format!("unknown protocol `{protocol_name}`")))?;
    let job = DropJob {
        physics: DropPhysics {
            gravity: number(j, "gravity")?,
            height: number(j, "height")?,
            speed: number(j, "speed")?,
            spin: match &j["spin"] {
                Value::Null => 0.0,
                _ => number(j, "spin")?,
            },
            friction: number(j, "friction")?,
            restitution: number(j, "restitution")?,
            envelope: number(j, "envelope")?,
            rest_time: number(j, "rest_time")?,
            time_limit: number(j, "time_limit")?,
        },
        protocol,
        burn_in: count(j, "burn_in")?,
        tilt_degrees: number(j, "tilt_degrees")?,
        chains: count(j, "chains")?,
        trials: count(j, "trials")?,
        seed: j["seed"]
            .as_u64()
            .ok_or_else(|| bad("`seed` must be a whole number"))?,
    };
    job.check().map_err(|e| bad(&e))?;
    let chains = &value["chains"];
    let (from, to) = (count(chains, "from")?, count(chains, "to")?);
    if count(chains, "of")? != job.chain_count() || from >= to || to > job.chain_count() {
        return Err(bad("`chains` does not fit the job"));
    }
    let quat = |v: &Value, key: &str| -> Result<Quat, String> {
        let a = v[key]
            .as_array()
            .filter(|a| a.len() == 4)
            .ok_or_else(|| bad(&format!("`{key}` must be a quaternion [w, x, y, z]")))?;
        let c: Vec<f64> = a.iter().filter_map(Value::as_f64).collect();
        if c.len() != 4 {
            return Err(bad(&format!("`{key}` must hold four numbers")));
        }
        Ok(Quat::new_unchecked(nalgebra::Quaternion::new(
            c[0], c[1], c[2], c[3],
        )))
    };
    let list = value["drops"]
        .as_array()
        .ok_or_else(|| bad("`drops` must be a list"))?;
    let mut drops = Vec::with_capacity(list.len());
    for d in list {
        let outcome = match d["end"].as_str() {
            Some("rest") => {
                let face = count(d, "face")?;
                if face == 0 {
                    return Err(bad("face numbers start at 1"));
                }
                DropOutcome::Rest {
                    face: face - 1,
                    time: number(d, "time")?,
                    orientation: quat(d, "orientation")?,
                }
            }
            Some("moving") => DropOutcome::Moving,
            Some("failed") => DropOutcome::Failed(string(d, "error")?),
            _ => return Err(bad("a drop's `end` must be rest, moving or failed")),
        };
        let angular_velocity = match &d["angular_velocity"] {
            Value::Null if job.physics.spin == 0.0 => Vec3::zeros(),
            Value::Null => {
                return Err(bad(
                    "a drop of a job with spin must record its `angular_velocity`",
                ));
            }
            v => {
                let c: Vec<f64> = v
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_f64).collect())
                    .unwrap_or_default();
                if c.len() != 3 {
                    return Err(bad("a drop's `angular_velocity` must be three numbers"));
                }
                Vec3::new(c[0], c[1], c[2])
            }
        };
        drops.push(DropRecord {
            index: count(d, "index")?,
            start: quat(d, "start")?,
            angular_velocity,
            outcome,
        });
    }
    Ok((
        identity,
        DropResults {
            job,
            from,
            to,
            drops,
        },
    ))
}
