//! Monte-Carlo drop jobs: many drops of one part, on all cores, deterministic for any number of
//! threads and any split into shards.
//!
//! **Randomness.** Drop `i` draws everything random (its start orientation, which earlier
//! result it starts from, and last its spin axis) from a PCG generator seeded by a hash of
//! (seed, i) only. The spin axis is drawn after everything else, so a job without spin starts
//! every drop exactly as before spin existed.
//!
//! **Chains and rounds.** The thesis's protocol (§7.5.3) is sequential: the first 20 drops
//! start from uniformly random orientations, and every later drop starts resting on a face
//! drawn from the histogram of the drops before it, tilted by up to 1.5° about a random axis.
//! We keep its feedback but make it parallel:
//! - the drops are split into `chains` contiguous runs of indices (chain c holds drops
//!   ⌊cN/C⌋ … ⌊(c+1)N/C⌋ − 1); chains never see each other's results;
//! - within a chain, round 0 is the first `burn_in` drops (uniform orientations), and round
//!   r ≥ 1 holds drops burn_in·2^(r−1) … burn_in·2^r − 1 of the chain, each starting from
//!   the histogram of the chain's earlier *rounds* (frozen when the round starts). Every round
//!   is as large as all rounds before it, so a drop's histogram has at least half the drops
//!   the sequential protocol's would;
//! - the drops of one round run in parallel. Each depends only on (seed, index) and on
//!   results of earlier rounds, so the outcome is the same for any number of threads.
//!
//! **Shards.** Shard k of N runs the chains ⌊(k−1)C/N⌋ … ⌊kC/N⌋ − 1 and writes their drops; the
//! union of all N shards is exactly the single run's set of drops ([`DropResults::merge`]).
//! With the `uniform` protocol every drop is independent and each drop is its own chain.

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rayon::prelude::*;

use super::drop::{DropOutcome, DropPhysics, drop_part, resting_orientation};
use super::part::Part;
use crate::math::{Quat, Vec3};

/// How a drop's start orientation is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Mirtich's: uniform orientations for a burn-in, then poses drawn from the results so far
    /// (by rounds, see the module documentation) with a small random tilt.
    Bootstrap,
    /// Every drop from a uniformly random orientation.
    Uniform,
}

impl Protocol {
    /// The protocol's name in files and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Bootstrap => "bootstrap",
            Self::Uniform => "uniform",
        }
    }

    /// The protocol of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "bootstrap" => Some(Self::Bootstrap),
            "uniform" => Some(Self::Uniform),
            _ => None,
        }
    }
}

/// Everything that determines a job's drops.
#[derive(Clone, Debug, PartialEq)]
pub struct DropJob {
    /// Physics of each drop.
    pub physics: DropPhysics,
    /// How start orientations are chosen.
    pub protocol: Protocol,
    /// Drops of a chain that start from uniform orientations (the thesis's 20).
    pub burn_in: usize,
    /// Largest tilt of a drop started from a resting pose, in degrees (the thesis's 1.5°).
    pub tilt_degrees: f64,
    /// Independent chains of the bootstrap protocol (ignored by `uniform`).
    pub chains: usize,
    /// Number of drops.
    pub trials: usize,
    /// Seed of every drop's generator.
    pub seed: u64,
}

impl Default for DropJob {
    /// The thesis's protocol: 2000 drops, 20 of burn-in, 1.5° tilt, one chain.
    fn default() -> Self {
        Self {
            physics: DropPhysics::default(),
            protocol: Protocol::Bootstrap,
            burn_in: 20,
            tilt_degrees: 1.5,
            chains: 1,
            trials: 2000,
            seed: 1,
        }
    }
}

/// One shard of a job: `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// The whole job.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Parses `k/N` (1 ≤ k ≤ N).
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("a shard is written k/N with 1 ≤ k ≤ N (e.g. 2/8), got `{text}`");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Self { index: k, count: n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl DropJob {
    /// Checks the job's values, naming the first out of range.
    pub fn check(&self) -> Result<(), String> {
        self.physics.check()?;
        if self.trials == 0 {
            return Err("the number of trials must be positive".into());
        }
        if self.protocol == Protocol::Bootstrap {
            if self.burn_in == 0 {
                return Err("the burn-in must be at least 1 drop".into());
            }
            if self.chains == 0 || self.chains > self.trials {
                return Err(format!(
                    "the number of chains must be from 1 to the number of trials ({}), got {}",
                    self.trials, self.chains
                ));
            }
        }
        if !(self.tilt_degrees.is_finite() && (0.0..=180.0).contains(&self.tilt_degrees)) {
            return Err(format!(
                "the tilt must be from 0 to 180 degrees, got {}",
                self.tilt_degrees
            ));
        }
        Ok(())
    }

    /// Number of chains: each drop is its own chain under `uniform`.
    pub fn chain_count(&self) -> usize {
        match self.protocol {
            Protocol::Bootstrap => self.chains,
            Protocol::Uniform => self.trials,
        }
    }

    /// First drop index of chain `c` (c ≤ chain count; the chain count gives the number of
    /// drops).
    pub fn chain_start(&self, c: usize) -> usize {
        (c as u128 * self.trials as u128 / self.chain_count() as u128) as usize
    }

    /// The chains `[from, to)` of shard `shard`, or why the job cannot be split so.
    pub fn shard_chains(&self, shard: Shard) -> Result<(usize, usize), String> {
        let chains = self.chain_count();
        if shard.count > chains {
            return Err(format!(
                "the job has {chains} independent chain{} of drops, so it splits into at most \
                 {chains} shard{}; use --chains {} (or more) to split it into {}",
                if chains == 1 { "" } else { "s" },
                if chains == 1 { "" } else { "s" },
                shard.count,
                shard.count
            ));
        }
        let at = |k: usize| (k as u128 * chains as u128 / shard.count as u128) as usize;
        Ok((at(shard.index - 1), at(shard.index)))
    }

    /// Round of the drop at position `j` within its chain.
    fn round(&self, j: usize) -> usize {
        match self.protocol {
            Protocol::Uniform => 0,
            Protocol::Bootstrap => {
                if j < self.burn_in {
                    0
                } else {
                    // burn_in·2^(r−1) ≤ j < burn_in·2^r.
                    let mut r = 1;
                    while j >= self.burn_in << r.min(60) {
                        r += 1;
                    }
                    r
                }
            }
        }
    }
}

/// One drop's record.
#[derive(Clone, Debug, PartialEq)]
pub struct DropRecord {
    /// The drop's index in the job.
    pub index: usize,
    /// Orientation of the part's model frame at release.
    pub start: Quat,
    /// Angular velocity at release (world frame, rad/s): the job's spin about the drop's
    /// random axis; zero without spin.
    pub angular_velocity: Vec3,
    /// How it ended.
    pub outcome: DropOutcome,
}

/// The drops of a job's chains `[from, to)` (all of them for a whole run).
#[derive(Clone, Debug, PartialEq)]
pub struct DropResults {
    /// The job.
    pub job: DropJob,
    /// First chain covered.
    pub from: usize,
    /// One past the last chain covered.
    pub to: usize,
    /// The drops, by index.
    pub drops: Vec<DropRecord>,
}

/// The generator of drop `index`: seeded by a hash of (seed, index) only.
fn drop_rng(seed: u64, index: usize) -> Pcg64 {
    Pcg64::seed_from_u64(splitmix(
        seed ^ splitmix(index as u64 ^ 0x5eed_d00d_cafe_f00d),
    ))
}

/// SplitMix64's finaliser: a bijective 64-bit mix.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A rotation uniform over SO(3) (Shoemake's subgroup algorithm).
fn uniform_rotation(rng: &mut Pcg64) -> Quat {
    use std::f64::consts::TAU;
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let q = nalgebra::Quaternion::new(
        b * (TAU * u3).cos(),
        a * (TAU * u2).sin(),
        a * (TAU * u2).cos(),
        b * (TAU * u3).sin(),
    );
    Quat::new_normalize(q)
}

/// A unit vector uniform on the sphere.
fn uniform_direction(rng: &mut Pcg64) -> Vec3 {
    let z: f64 = 2.0 * rng.random::<f64>() - 1.0;
    let phi: f64 = std::f64::consts::TAU * rng.random::<f64>();
    let r = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(r * phi.cos(), r * phi.sin(), z)
}

/// The start orientation of a drop: uniform, or resting on a face drawn from `histogram`
/// (counts per hull face) with a random turn about the vertical and a tilt of up to
/// `tilt` radians about a random axis.
fn start_orientation(part: &Part, rng: &mut Pcg64, histogram: Option<&[usize]>, tilt: f64) -> Quat {
    let total: usize = histogram.map_or(0, |h| h.iter().sum());
    let Some(histogram) = histogram.filter(|_| total > 0) else {
        return uniform_rotation(rng);
    };
    let mut pick = rng.random_range(0..total);
    let mut face = 0;
    for (f, &count) in histogram.iter().enumerate() {
        if pick < count {
            face = f;
            break;
        }
        pick -= count;
    }
    let yaw = Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::TAU * rng.random::<f64>());
    let axis = uniform_direction(rng);
    let tilt = Quat::from_scaled_axis(axis * (tilt * rng.random::<f64>()));
    tilt * yaw * resting_orientation(part, face)
}

/// Runs the chains of `shard` of `job` on the current rayon pool; `progress` is called once
/// per finished drop (from any thread).
pub fn run_drops(
    part: &Part,
    job: &DropJob,
    shard: Shard,
    progress: &(dyn Fn() + Sync),
) -> Result<DropResults, String> {
    job.check()?;
    let (from, to) = job.shard_chains(shard)?;
    let faces = part.faces().len();
    let tilt = job.tilt_degrees.to_radians();
    // Per chain: its drop range and the histogram of its finished rounds.
    let chains: Vec<(usize, usize)> = (from..to)
        .map(|c| (job.chain_start(c), job.chain_start(c + 1)))
        .collect();
    let mut histograms = vec![vec![0usize; faces]; chains.len()];
    let mut drops: Vec<DropRecord> = Vec::new();
    let mut round = 0;
    loop {
        // This round's drops across the shard's chains: (chain, index).
        let tasks: Vec<(usize, usize)> = chains
            .iter()
            .enumerate()
            .flat_map(|(c, &(start, end))| {
                (start..end)
                    .filter(move |&i| job.round(i - start) == round)
                    .map(move |i| (c, i))
            })
            .collect();
        if tasks.is_empty() {
            break;
        }
        let records: Vec<(usize, DropRecord)> = tasks
            .par_iter()
            .map(|&(c, index)| {
                let mut rng = drop_rng(job.seed, index);
                let histogram = (round > 0).then(|| histograms[c].as_slice());
                let start = start_orientation(part, &mut rng, histogram, tilt);
                let spin_axis = uniform_direction(&mut rng);
                let outcome = drop_part(part, &job.physics, start, spin_axis);
                let angular_velocity = if job.physics.spin == 0.0 {
                    Vec3::zeros()
                } else {
                    spin_axis * job.physics.spin
                };
                progress();
                (
                    c,
                    DropRecord {
                        index,
                        start,
                        angular_velocity,
                        outcome,
                    },
                )
            })
            .collect();
        for (c, record) in records {
            if let DropOutcome::Rest { face, .. } = record.outcome {
                histograms[c][face] += 1;
            }
            drops.push(record);
        }
        round += 1;
    }
    drops.sort_by_key(|d| d.index);
    Ok(DropResults {
        job: job.clone(),
        from,
        to,
        drops,
    })
}

impl DropResults {
    /// Whether these results cover every chain of the job.
    pub fn is_complete(&self) -> bool {
        self.from == 0 && self.to == self.job.chain_count()
    }

    /// Joins results of shards of one job into the results of a single run of all of them, in
    /// any order. Refuses results of different jobs (parameters, seed) and overlapping or
    /// missing shards.
    pub fn merge(mut parts: Vec<DropResults>) -> Result<DropResults, String> {
        let Some(first) = parts.first() else {
            return Err("nothing to merge".into());
        };
        let job = first.job.clone();
        for (k, p) in parts.iter().enumerate() {
            if p.job != job {
                return Err(format!(
                    "partial result {} is from a different job than the first (its parameters \
                     or seed differ): {}",
                    k + 1,
                    describe_difference(&job, &p.job)
                ));
            }
        }
        parts.sort_by_key(|p| (p.from, p.to));
        let mut covered = 0;
        for p in &parts {
            if p.from < covered {
                return Err(format!(
                    "the partial results overlap: chains {}–{} are given twice",
                    p.from,
                    covered.min(p.to) - 1
                ));
            }
            if p.from > covered {
                return Err(format!(
                    "chains {}–{} of {} are missing (a shard was not given)",
                    covered,
                    p.from - 1,
                    job.chain_count()
                ));
            }
            covered = p.to;
        }
        if covered != job.chain_count() {
            return Err(format!(
                "chains {}–{} of {} are missing (a shard was not given)",
                covered,
                job.chain_count() - 1,
                job.chain_count()
            ));
        }
        let mut drops: Vec<DropRecord> = parts.into_iter().flat_map(|p| p.drops).collect();
        drops.sort_by_key(|d| d.index);
        Ok(DropResults {
            from: 0,
            to: job.chain_count(),
            job,
            drops,
        })
    }

    /// Counts per hull face (of `faces`) of the drops that came to rest, and the numbers of
    /// drops still moving at the time limit and of drops the engine stopped.
    pub fn counts(&self, faces: usize) -> (Vec<usize>, usize, usize) {
        let mut counts = vec![0; faces];
        let (mut moving, mut failed) = (0, 0);
        for d in &self.drops {
            match &d.outcome {
                DropOutcome::Rest { face, .. } if *face < faces => counts[*face] += 1,
                DropOutcome::Rest { .. } | DropOutcome::Failed(_) => failed += 1,
                DropOutcome::Moving => moving += 1,
            }
        }
        (counts, moving, failed)
    }
}

/// Names the first parameter in which two jobs differ.
fn describe_difference(a: &DropJob, b: &DropJob) -> String {
    if a.seed != b.seed {
        return format!("seed {} against {}", a.seed, b.seed);
    }
    if a.trials != b.trials {
        return format!("{} trials against {}", a.trials, b.trials);
    }
    if a.protocol != b.protocol {
        return format!(
            "protocol {} against {}",
            a.protocol.name(),
            b.protocol.name()
        );
    }
    if a.chains != b.chains {
        return format!("{} chains against {}", a.chains, b.chains);
    }
    if a.physics.spin != b.physics.spin {
        return format!(
            "spin {} rad/s against {} rad/s",
            a.physics.spin, b.physics.spin
        );
    }
    if a.physics != b.physics {
        return format!("drop physics {:?} against {:?}", a.physics, b.physics);
    }
    format!("{a:?} against {b:?}")
}
