//! Checkpoints of a run (`impulse run --checkpoint-every T`, `impulse run --resume FILE`).
//!
//! A checkpoint names a point of a run — an output frame — and everything needed to continue
//! from it with outputs byte-identical to a run never stopped: the scene (its file and a hash
//! of its text), the run's options, the frame and its time, how far each output file had got
//! (bytes, frames, event rows), the energy at the run's start (for the summary), the world's
//! whole state at that frame ([`World::save_state`]: bodies and their flights, multibodies
//! and their integrations and controllers, the event heap, broad phase, closest-feature
//! caches, contact groups, warm starts, sleep), and a [`WorldRecord`] of that state.
//!
//! **How the state is restored** (format version 7). Resuming builds the world from the scene
//! (whose text must hash as it did), which lends the geometry the state does not hold, and
//! reads the saved state into it ([`World::restore_state`]): the run continues from the
//! checkpoint's frame at once, without simulating anything again. The restored world's
//! record must equal the saved one bit for bit (a check of the restore itself).
//!
//! Version 1 (before the state was saved: a resume replayed the run from the start) is
//! refused with a message saying so; such a run is run again.
//!
//! The file: the 8-byte magic `IMPCKPT\0`, the format version (`u32`, little-endian), the
//! payload's length (`u64`) and its FNV-1a 64 hash (`u64`), then the payload, [`Checkpoint`]
//! in `postcard`'s encoding (floats as their IEEE bits: they read back exactly).

use serde::{Deserialize, Serialize};

use crate::world::{Energy, World};

/// The checkpoint format this build reads and writes (3: held contacts keep their face's
/// outline; 4: the contact groups count their frictionless fallbacks; 5: a group keeps the
/// times of the ray answers it has not reached, counted once reached; 6: held clusters of the
/// switching model; 7: each free body's rest ceiling for the free floor).
pub const CHECKPOINT_VERSION: u32 = 7;

/// The first bytes of every checkpoint file.
const MAGIC: &[u8; 8] = b"IMPCKPT\0";

/// Magic, version, payload length, payload hash.
const HEADER_BYTES: usize = 8 + 4 + 8 + 8;

/// A point of a run to continue from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The scene file as the run named it (`summary.json` repeats it).
    pub scene_file: String,
    /// The scene file's absolute path when the run started.
    pub scene_path: String,
    /// FNV-1a 64 hash of the scene file's text.
    pub scene_hash: u64,
    /// The run's duration and output frame rate.
    pub duration: f64,
    /// Output frames per unit of simulated time.
    pub frame_rate: f64,
    /// Which events the run writes (`all`, `collisions`, `none`).
    pub events: String,
    /// Simulated time between checkpoints (`None`: this one was written on an interruption).
    pub every: Option<f64>,
    /// Index of the frame in the run's frame list ([`super::frame_times`]).
    pub frame: u64,
    /// The frame's time.
    pub time: f64,
    /// Bytes of `trajectory.csv` written up to and including the frame.
    pub trajectory_bytes: u64,
    /// Frames in `trajectory.csv`.
    pub trajectory_frames: u64,
    /// Bytes of `events.csv` written (0 without one).
    pub events_bytes: u64,
    /// Event rows in `events.csv`.
    pub event_rows: u64,
    /// Events the run has taken from the world: (collisions, microcollisions).
    pub event_counts: (u64, u64),
    /// The energy (kinetic, potential) when the run started, which its summary reports.
    pub initial_energy: [f64; 2],
    /// The world at the frame, whole ([`World::save_state`]).
    pub world: Vec<u8>,
    /// A record of the world at the frame: the restored world's must be the same.
    pub state: WorldRecord,
}

/// A world's state at one time, as exact bits: what a restored world must reproduce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldRecord {
    /// Simulated time.
    pub time: f64,
    /// Per body: centre of mass, orientation (w, i, j, k), velocity, angular velocity, and
    /// whether it is asleep.
    pub bodies: Vec<([f64; 13], bool)>,
    /// Per multibody: joint coordinates and velocities.
    pub multibodies: Vec<(Vec<f64>, Vec<f64>)>,
    /// Every counter of the run so far.
    pub counters: Vec<(String, u64)>,
    /// Kinetic and potential energy.
    pub energy: [f64; 2],
    /// Deepest interpenetration so far.
    pub max_penetration: f64,
}

impl WorldRecord {
    /// The record of `world` now.
    pub fn of(world: &World) -> Self {
        let bodies = world
            .bodies()
            .iter()
            .map(|b| {
                let s = b.state();
                let (p, q, v, w) = (
                    s.position,
                    s.orientation.quaternion(),
                    s.velocity,
                    s.angular_velocity,
                );
                (
                    [
                        p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
                    ],
                    b.is_asleep(),
                )
            })
            .collect();
        let energy = world.energy();
        Self {
            time: world.time(),
            bodies,
            multibodies: world
                .multibodies()
                .iter()
                .map(|m| (m.q().to_vec(), m.v().to_vec()))
                .collect(),
            counters: world
                .counters()
                .entries()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            energy: [energy.kinetic, energy.potential],
            max_penetration: world.max_penetration(),
        }
    }

    /// Whether two records agree bit for bit (`==` would call `NaN` unequal to itself and
    /// `-0.0` equal to `0.0`).
    pub fn same_bits(&self, other: &Self) -> bool {
        match (postcard::to_stdvec(self), postcard::to_stdvec(other)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    /// What differs first between the record and `replayed` (a restored world's), in words.
    pub fn first_difference(&self, replayed: &Self) -> String {
        if self.time.to_bits() != replayed.time.to_bits() {
            return format!("time {} against {}", self.time, replayed.time);
        }
        if self.bodies.len() != replayed.bodies.len() {
            return format!(
                "{} bodies against {}",
                self.bodies.len(),
                replayed.bodies.len()
            );
        }
        for (i, (a, b)) in self.bodies.iter().zip(&replayed.bodies).enumerate() {
            let bits = |s: &([f64; 13], bool)| (s.0.map(f64::to_bits), s.1);
            if bits(a) != bits(b) {
                return format!("the state of body {i} ({:?} against {:?})", a.0, b.0);
            }
        }
        for (i, (a, b)) in self
            .multibodies
            .iter()
            .zip(&replayed.multibodies)
            .enumerate()
        {
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            if bits(&a.0) != bits(&b.0) || bits(&a.1) != bits(&b.1) {
                return format!("the state of multibody {i}");
            }
        }
        if self.counters != replayed.counters {
            return "the run's counters".to_string();
        }
        "the energy or the deepest penetration".to_string()
    }
}

/// Why a checkpoint file cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckpointError {
    /// Not a checkpoint file (it does not start with the magic bytes).
    NotACheckpoint,
    /// Written by a build with another checkpoint format.
    Version {
        /// The file's format version.
        found: u32,
    },
    /// Shorter than its header says.
    Truncated {
        /// Bytes the header announces (header included).
        expected: u64,
        /// Bytes the file has.
        found: u64,
    },
    /// The payload does not match its hash, or does not decode.
    Corrupt(String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotACheckpoint => write!(
                f,
                "not an impulse checkpoint (it does not start with the bytes `IMPCKPT`)"
            ),
            Self::Version { found } if *found < CHECKPOINT_VERSION => write!(
                f,
                "checkpoint format version {found}, made by an older version of impulse \
                 ({}); this impulse reads version {CHECKPOINT_VERSION} only: rerun the scene, \
                 or resume it with the impulse that wrote it",
                match found {
                    1 => "which did not save the simulation state",
                    2 => "whose held contacts had no face outline",
                    _ => "whose contact groups did not count frictionless fallbacks",
                }
            ),
            Self::Version { found } => write!(
                f,
                "checkpoint format version {found}, but this impulse reads version \
                 {CHECKPOINT_VERSION} only: resume it with the impulse that wrote it, or run \
                 the scene again"
            ),
            Self::Truncated { expected, found } => write!(
                f,
                "truncated checkpoint: {found} bytes where its header announces {expected}"
            ),
            Self::Corrupt(why) => write!(f, "corrupt checkpoint: {why}"),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// FNV-1a, 64 bits (Fowler, Noll and Vo): a fast hash that tells one scene text or payload from
/// another; not a defence against someone forging a file.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

impl Checkpoint {
    /// The checkpoint file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Encoding into memory fails only for types serde cannot describe; these are plain.
        let payload = postcard::to_stdvec(self).unwrap_or_default();
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Reads a checkpoint file's bytes, refusing another format version, a truncated file and
    /// a corrupt one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CheckpointError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(CheckpointError::NotACheckpoint);
        }
        let header_truncated = CheckpointError::Truncated {
            expected: HEADER_BYTES as u64,
            found: bytes.len() as u64,
        };
        let word = |at: usize, n: usize| bytes.get(at..at + n);
        let version = word(8, 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or(header_truncated.clone())?;
        if version != CHECKPOINT_VERSION {
            return Err(CheckpointError::Version { found: version });
        }
        let length = word(12, 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or(header_truncated.clone())?;
        let hash = word(20, 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or(header_truncated)?;
        let payload = &bytes[HEADER_BYTES..];
        let expected = (HEADER_BYTES as u64).saturating_add(length);
        if (payload.len() as u64) < length {
            return Err(CheckpointError::Truncated {
                expected,
                found: bytes.len() as u64,
            });
        }
        if payload.len() as u64 > length {
            return Err(CheckpointError::Corrupt(format!(
                "{} bytes after the {expected} its header announces",
                bytes.len() as u64 - expected
            )));
        }
        if fnv1a64(payload) != hash {
            return Err(CheckpointError::Corrupt(
                "its content does not match the hash in its header".to_string(),
            ));
        }
        postcard::from_bytes(payload).map_err(|e| CheckpointError::Corrupt(e.to_string()))
    }
}

/// Checkpointing of one run: where it resumes, and when and how it saves.
pub struct Checkpointing<'a> {
    /// A resumed run: the world given is already at this frame (its state restored from the
    /// checkpoint), and the run continues after it; `None` for a fresh run.
    pub resume_after: Option<usize>,
    /// A resumed run's energy at its start (the world's own, at the checkpoint, is not).
    pub initial_energy: Option<Energy>,
    /// Save at the first frame at or past each multiple of this simulated time, and when
    /// interrupted (`None`: never).
    pub every: Option<f64>,
    /// Called once, before a resumed run continues, with the world at the resume frame.
    pub resumed: &'a mut dyn FnMut(&World) -> std::io::Result<()>,
    /// Saves a checkpoint at frame `k`, given the events writer's counts (collisions,
    /// microcollisions) and the energy at the run's start; the records are flushed first.
    pub save: &'a mut SaveCheckpoint<'a>,
}

/// What saves a checkpoint: frame index, the world, the events writer's counts, the energy
/// at the run's start.
pub type SaveCheckpoint<'a> =
    dyn FnMut(usize, &World, (u64, u64), Energy) -> std::io::Result<()> + 'a;

impl Checkpointing<'_> {
    /// Whether frame `k` at `t` (after frame `k − 1` at `previous`) is a checkpoint.
    pub(super) fn due(&self, previous: f64, t: f64) -> bool {
        self.every
            .is_some_and(|every| (t / every).floor() > (previous / every).floor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            scene_file: "scenes/a.toml".into(),
            scene_path: "/abs/scenes/a.toml".into(),
            scene_hash: fnv1a64(b"[world]\n"),
            duration: 1.0,
            frame_rate: 60.0,
            events: "all".into(),
            every: Some(0.25),
            frame: 15,
            time: 0.25,
            trajectory_bytes: 1234,
            trajectory_frames: 16,
            events_bytes: 99,
            event_rows: 2,
            event_counts: (2, 5),
            initial_energy: [1.5, -0.0],
            world: vec![1, 2, 3],
            state: WorldRecord {
                time: 0.25,
                // Values whose bits a decimal round trip could lose: a subnormal, −0, 0.1.
                bodies: vec![(
                    [
                        5e-324, -0.0, 0.1, 1.0, 0.0, 0.0, 0.0, 1e300, 0.0, 0.0, 0.0, 0.0, 0.0,
                    ],
                    true,
                )],
                multibodies: vec![(vec![std::f64::consts::PI], vec![-1e-310])],
                counters: vec![("collisions".into(), 7)],
                energy: [0.5, -3.25],
                max_penetration: 0.0,
            },
        }
    }

    #[test]
    fn a_checkpoint_reads_back_bit_for_bit() {
        let checkpoint = sample();
        let back = Checkpoint::from_bytes(&checkpoint.to_bytes()).unwrap();
        assert!(back.state.same_bits(&checkpoint.state));
        assert_eq!(back.state.bodies[0].0[1].to_bits(), (-0.0f64).to_bits());
        assert_eq!(back.state.bodies[0].0[0].to_bits(), 5e-324f64.to_bits());
        assert_eq!(back, checkpoint);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_refused_without_a_panic() {
        let bytes = sample().to_bytes();
        for n in 0..bytes.len() {
            assert!(Checkpoint::from_bytes(&bytes[..n]).is_err(), "{n} bytes");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5a;
            assert!(Checkpoint::from_bytes(&bad).is_err(), "byte {i} flipped");
        }
    }

    #[test]
    fn another_version_is_named() {
        let mut bytes = sample().to_bytes();
        let other = CHECKPOINT_VERSION + 1;
        bytes[8..12].copy_from_slice(&other.to_le_bytes());
        assert_eq!(
            Checkpoint::from_bytes(&bytes),
            Err(CheckpointError::Version { found: other })
        );
    }

    #[test]
    fn fnv1a64_matches_the_published_vectors() {
        // Test vectors of the FNV reference (Noll's fnv test suite): "" and "a".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
