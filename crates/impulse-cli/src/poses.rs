//! `impulse poses PART`: in what fraction of drops onto a flat table does a part come to rest on
//! each face of its hull — by the quasi-static, perturbed quasi-static and dynamic methods of
//! Mirtich §7.5 — and `impulse poses merge FILES…`, which joins the shards of one job.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use impulse::math::{Pose, Quat, Vec3};
use impulse::poses::{
    DropJob, DropOutcome, DropPhysics, DropResults, Part, PartIdentity, Protocol, QuasiStatic,
    Shard, digest, error_percentage, perturbed_probabilities, resting_orientation,
    results_from_json, results_to_json, run_drops, trial_count, wilson_interval, worst_half_width,
};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use serde_json::{Value, json};

use crate::framing::Bounds;
use crate::raster::{Canvas, Image, Paint, Vertex};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PosesArgs {
    #[command(subcommand)]
    merge: Option<PosesCommand>,
    #[command(flatten)]
    run: RunPoses,
}

#[derive(Subcommand)]
enum PosesCommand {
    /// Join the partial results of the shards of one job (`--shard k/N`) into the result of a
    /// single run, bit for bit, and write its table and pictures.
    Merge(MergeArgs),
}

/// Which estimate to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Method {
    /// Solid angles from the centre of mass, unstable faces toppled (eq. 7.1).
    QuasiStatic,
    /// Quasi-static, then each stable face shaken within a cone (--cone).
    Perturbed,
    /// Monte-Carlo drops simulated by the engine.
    Dynamic,
    /// All three side by side.
    All,
}

#[derive(Args)]
struct Common {
    /// Confidence level of the intervals, and of --half-width.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Physical test counts to compare with (lines `FACES,COUNT`, FACES one hull face number or
    /// several joined by `+`); adds the error of eq. 7.2 for each method.
    #[arg(long, value_name = "FILE")]
    measured: Option<PathBuf>,
    /// Output directory (default: `out/poses/<part name>`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write no pictures (poses.png, methods.png).
    #[arg(long)]
    no_pictures: bool,
    /// One row (and picture) per class of alike faces — same distance from the centre of mass,
    /// area, solid angle and outline, such as the sides of a coin — with their probabilities
    /// summed.
    #[arg(long)]
    group: bool,
    /// Half-angle of the perturbed quasi-static cone, degrees (the thesis's 20°).
    #[arg(long, default_value_t = 20.0, value_name = "DEG")]
    cone: f64,
}

#[derive(Args)]
struct MergeArgs {
    /// The partial results (`drops-K-of-N.json`) of every shard of one job, in any order.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct RunPoses {
    /// The part: an OBJ or STL mesh (a closed solid, lengths in cm for the default protocol), or
    /// a scene file (.toml) with --body.
    part: Option<PathBuf>,
    /// The body of a scene file that is the part (default: the scene's only dynamic body).
    #[arg(long)]
    body: Option<String>,
    /// Which estimate.
    #[arg(long, value_enum, default_value_t = Method::Dynamic)]
    method: Method,
    /// Number of drops (default 2000, the thesis's, unless --half-width gives it).
    #[arg(long, conflicts_with = "half_width")]
    trials: Option<i64>,
    /// Pin every pose's probability within ± this at --confidence: the number of drops is
    /// eq. 7.3's (z/2δ)².
    #[arg(long, value_name = "DELTA")]
    half_width: Option<f64>,
    /// Seed of the drops' random numbers.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (default: all cores). The result does not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Run only shard K of N (`K/N`) and write its partial result for `impulse poses merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Independent chains of the bootstrap protocol (a job splits into at most this many shards).
    #[arg(long, default_value_t = 1)]
    chains: usize,
    /// How drops start: `bootstrap` (the thesis's: uniform for a burn-in, then from the results
    /// so far with a small tilt) or `uniform` (every drop from a random orientation).
    #[arg(long, default_value = "bootstrap")]
    protocol: String,
    /// Drops of a chain started from uniformly random orientations.
    #[arg(long, default_value_t = 20)]
    burn_in: usize,
    /// Largest tilt of a drop started from a resting pose, degrees.
    #[arg(long, default_value_t = 1.5, value_name = "DEG")]
    tilt: f64,
    /// Height of the part's lowest point above the table at release.
    #[arg(long, default_value_t = 12.0)]
    height: f64,
    /// Horizontal speed at release.
    #[arg(long, default_value_t = 5.0)]
    speed: f64,
    /// Angular speed at release, rad/s, about a random axis for each drop (uniform on the
    /// sphere, drawn from the drop's own random numbers). 0, the thesis's: a part leaving a
    /// belt it rested on does not spin.
    #[arg(long, default_value_t = 0.0, value_name = "RAD/S")]
    spin: f64,
    /// Gravitational acceleration (981: cm/s²).
    #[arg(long, default_value_t = 981.0)]
    gravity: f64,
    /// Friction between part and table.
    #[arg(long, default_value_t = 0.3)]
    friction: f64,
    /// Restitution between part and table.
    #[arg(long, default_value_t = 0.3)]
    restitution: f64,
    /// Collision envelope as a fraction of the part's size (0.005: 0.01 cm for a 2 cm part).
    #[arg(long, default_value_t = 5e-3)]
    envelope: f64,
    /// How long the part must stay still to be at rest, s.
    #[arg(long, default_value_t = 0.25)]
    rest_time: f64,
    /// Longest a drop is simulated, s; a part still moving then is counted and reported.
    #[arg(long, default_value_t = 20.0)]
    time_limit: f64,
    /// Print no progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    common: Common,
}

pub fn poses(args: &PosesArgs) -> Result<ExitCode, String> {
    match &args.merge {
        Some(PosesCommand::Merge(merge)) => merge_shards(merge),
        None => run(&args.run),
    }
}

/// Loads the part from a mesh or a scene file.
fn load_part(path: &Path, body: Option<&str>) -> Result<Part, String> {
    let is_scene = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if is_scene {
        Part::from_scene(path, body).map_err(|e| e.to_string())
    } else if body.is_some() {
        Err(format!(
            "--body names a body of a scene file, but {} is a mesh",
            path.display()
        ))
    } else {
        Part::from_mesh_file(path).map_err(|e| e.to_string())
    }
}

fn check_common(common: &Common) -> Result<(), String> {
    if !(common.confidence > 0.0 && common.confidence < 1.0) {
        return Err(format!(
            "--confidence must lie strictly between 0 and 1, got {}",
            common.confidence
        ));
    }
    if !(common.cone > 0.0 && common.cone < 90.0) {
        return Err(format!(
            "--cone must be an angle between 0 and 90 degrees, got {}",
            common.cone
        ));
    }
    Ok(())
}

fn run(args: &RunPoses) -> Result<ExitCode, String> {
    let Some(path) = &args.part else {
        return Err("give the part (a mesh or scene file), or `merge FILES…`".into());
    };
    check_common(&args.common)?;
    let trials = match (args.trials, args.half_width) {
        (Some(n), _) if n <= 0 => {
            return Err(format!(
                "--trials must be a positive number of drops, got {n}"
            ));
        }
        (Some(n), _) => n as usize,
        (None, Some(delta)) => {
            trial_count(args.common.confidence, delta).map_err(|e| format!("--half-width: {e}"))?
        }
        (None, None) => 2000,
    };
    let protocol = Protocol::from_name(&args.protocol).ok_or_else(|| {
        format!(
            "--protocol must be bootstrap or uniform, got `{}`",
            args.protocol
        )
    })?;
    let job = DropJob {
        physics: DropPhysics {
            gravity: args.gravity,
            height: args.height,
            speed: args.speed,
            spin: args.spin,
            friction: args.friction,
            restitution: args.restitution,
            envelope: args.envelope,
            rest_time: args.rest_time,
            time_limit: args.time_limit,
        },
        protocol,
        burn_in: args.burn_in,
        tilt_degrees: args.tilt,
        chains: args.chains,
        trials,
        seed: args.seed,
    };
    let dynamic = matches!(args.method, Method::Dynamic | Method::All);
    if dynamic {
        job.check().map_err(|e| format!("bad drop protocol: {e}"))?;
    }
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    if shard.is_some() && !dynamic {
        return Err("--shard splits the dynamic method's drops; use --method dynamic".into());
    }
    if let Some(shard) = shard {
        job.shard_chains(shard)?;
    }
    let part = load_part(path, args.body.as_deref())?;
    let source = path.display().to_string();
    let identity = PartIdentity::of(&part, &source, args.body.as_deref());
    let out = args
        .common
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out/poses").join(part.name()));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;

    let mut results = None;
    let mut timing = None;
    if dynamic {
        let shard = shard.unwrap_or(Shard::WHOLE);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build()
            .map_err(|e| format!("cannot start {} threads: {e}", args.threads))?;
        let (from, to) = job.shard_chains(shard)?;
        let drops_here = (job.chain_start(to) - job.chain_start(from)) as u64;
        let bar = progress_bar(args.quiet, drops_here);
        let started = Instant::now();
        let done = run_drops_in(&pool, &part, &job, shard, &bar)?;
        bar.finish_and_clear();
        timing = Some((started.elapsed().as_secs_f64(), pool.current_num_threads()));
        if shard != Shard::WHOLE {
            let file = out.join(format!("drops-{}-of-{}.json", shard.index, shard.count));
            write(&file, results_to_json(&identity, &done).as_bytes())?;
            let (wall, threads) = timing.unwrap_or_default();
            println!(
                "shard {shard}: {} drops of {} in {wall:.2} s on {threads} thread{}; partial result in {}",
                done.drops.len(),
                job.trials,
                if threads == 1 { "" } else { "s" },
                file.display()
            );
            println!("join the shards with: impulse poses merge FILES…");
            return Ok(ExitCode::SUCCESS);
        }
        write(
            &out.join("drops.json"),
            results_to_json(&identity, &done).as_bytes(),
        )?;
        results = Some(done);
    }
    let methods = match args.method {
        Method::All => vec![Method::QuasiStatic, Method::Perturbed, Method::Dynamic],
        m => vec![m],
    };
    report(
        &part,
        &identity,
        &methods,
        results.as_ref(),
        timing,
        &args.common,
        &out,
    )
}

fn progress_bar(quiet: bool, len: u64) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} drops (eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

fn run_drops_in(
    pool: &rayon::ThreadPool,
    part: &Part,
    job: &DropJob,
    shard: Shard,
    bar: &ProgressBar,
) -> Result<DropResults, String> {
    pool.install(|| run_drops(part, job, shard, &|| bar.inc(1)))
}

fn merge_shards(args: &MergeArgs) -> Result<ExitCode, String> {
    check_common(&args.common)?;
    let mut parts = Vec::new();
    let mut identity: Option<PartIdentity> = None;
    for file in &args.files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
        let (id, results) = results_from_json(&file.display().to_string(), &text)?;
        if let Some(first) = &identity
            && *first != id
        {
            return Err(format!(
                "{}: a result for a different part ({} from {}, digest {}) than the first file's \
                 ({} from {}, digest {})",
                file.display(),
                id.name,
                id.source,
                id.digest,
                first.name,
                first.source,
                first.digest
            ));
        }
        identity = Some(id);
        parts.push(results);
    }
    let identity = identity.ok_or("nothing to merge")?;
    let merged = DropResults::merge(parts)?;
    let part = load_part(Path::new(&identity.source), identity.body.as_deref())
        .map_err(|e| format!("the shards' part cannot be loaded again: {e}"))?;
    if digest(&part) != identity.digest {
        return Err(format!(
            "{} has changed since the shards ran (its digest is {}, the shards' {})",
            identity.source,
            digest(&part),
            identity.digest
        ));
    }
    let out = args
        .common
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out/poses").join(part.name()));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    write(
        &out.join("drops.json"),
        results_to_json(&identity, &merged).as_bytes(),
    )?;
    report(
        &part,
        &identity,
        &[Method::Dynamic],
        Some(&merged),
        None,
        &args.common,
        &out,
    )
}

/// One row of the table: a hull face some method rests the part on.
struct Row {
    /// The pose's hull faces (one, or a class of alike faces with --group); the first is shown.
    faces: Vec<usize>,
    face: usize,
    quasi_static: Option<f64>,
    perturbed: Option<f64>,
    dynamic: Option<(usize, f64, (f64, f64))>,
}

/// A measured pose: a set of hull faces and its count.
struct Measured {
    faces: Vec<usize>,
    count: usize,
}

fn read_measured(path: &Path, faces: usize) -> Result<Vec<Measured>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut out: Vec<Measured> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.eq_ignore_ascii_case("faces,count") {
            continue;
        }
        let at = |what: String| format!("{}:{}: {what}", path.display(), n + 1);
        let (list, count) = line
            .split_once(',')
            .ok_or_else(|| at("expected `FACES,COUNT` (e.g. `3,120` or `4+5,36`)".into()))?;
        let count: usize = count.trim().parse().map_err(|_| {
            at(format!(
                "the count `{}` is not a whole number",
                count.trim()
            ))
        })?;
        let mut set = Vec::new();
        for f in list.split('+') {
            let face: usize = f
                .trim()
                .parse()
                .map_err(|_| at(format!("the face `{}` is not a hull face number", f.trim())))?;
            if face == 0 || face > faces {
                return Err(at(format!(
                    "face {face} does not exist: the part's hull has faces 1 to {faces}"
                )));
            }
            if out.iter().any(|m| m.faces.contains(&(face - 1))) || set.contains(&(face - 1)) {
                return Err(at(format!("face {face} is listed twice")));
            }
            set.push(face - 1);
        }
        out.push(Measured { faces: set, count });
    }
    if out.iter().map(|m| m.count).sum::<usize>() == 0 {
        return Err(format!(
            "{}: no measured counts (lines `FACES,COUNT`)",
            path.display()
        ));
    }
    Ok(out)
}

fn report(
    part: &Part,
    identity: &PartIdentity,
    methods: &[Method],
    results: Option<&DropResults>,
    timing: Option<(f64, usize)>,
    common: &Common,
    out: &Path,
) -> Result<ExitCode, String> {
    let faces = part.faces().len();
    let qs = QuasiStatic::of(part);
    let pqs = perturbed_probabilities(part, &qs, common.cone.to_radians());
    let has = |m: Method| methods.contains(&m);
    let counts = results.map(|r| r.counts(faces));
    let rested: usize = counts.as_ref().map_or(0, |(c, _, _)| c.iter().sum());
    let confidence = common.confidence;
    let classes = if common.group {
        pose_classes(part, &qs)
    } else {
        (0..faces).collect()
    };
    let class_count = classes.iter().max().map_or(0, |c| c + 1);
    let mut rows: Vec<Row> = (0..class_count)
        .map(|class| {
            let members: Vec<usize> = (0..faces).filter(|&f| classes[f] == class).collect();
            let sum = |p: &[f64]| members.iter().map(|&f| p[f]).sum::<f64>();
            Row {
                face: members[0],
                quasi_static: has(Method::QuasiStatic).then(|| sum(&qs.probability)),
                perturbed: has(Method::Perturbed).then(|| sum(&pqs)),
                dynamic: counts.as_ref().map(|(c, _, _)| {
                    let k: usize = members.iter().map(|&f| c[f]).sum();
                    let p = if rested > 0 {
                        k as f64 / rested as f64
                    } else {
                        0.0
                    };
                    (k, p, wilson_interval(k, rested, confidence))
                }),
                faces: members,
            }
        })
        .filter(|r| {
            r.quasi_static.unwrap_or(0.0) > 0.0
                || r.perturbed.unwrap_or(0.0) > 0.0
                || r.dynamic.is_some_and(|d| d.0 > 0)
        })
        .collect();
    let key = |r: &Row| {
        r.dynamic
            .map(|d| d.1)
            .or(r.perturbed)
            .or(r.quasi_static)
            .unwrap_or(0.0)
    };
    rows.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.face.cmp(&b.face)));
    let measured = common
        .measured
        .as_deref()
        .map(|p| read_measured(p, faces))
        .transpose()?;

    // Text.
    let mut text = String::new();
    let stable = (0..faces).filter(|&f| qs.is_stable(f)).count();
    text += &format!(
        "part: {} ({}), {} hull faces, {} stable quasi-statically\n",
        identity.name, identity.source, faces, stable
    );
    if let (Some(r), Some((_, moving, failed))) = (results, &counts) {
        let j = &r.job;
        text += &format!(
            "dynamic: {} drops ({} protocol{}, seed {}, {} chain{}), {rested} at rest, {moving} still moving after {} s, {failed} stopped by the engine\n",
            j.trials,
            j.protocol.name(),
            if j.physics.spin == 0.0 {
                String::new()
            } else {
                format!(", spin {} rad/s", j.physics.spin)
            },
            j.seed,
            j.chain_count(),
            if j.chain_count() == 1 { "" } else { "s" },
            j.physics.time_limit
        );
        if rested > 0 {
            text += &format!(
                "{:.0}% intervals (Wilson); eq. 7.3's worst-case half-width for {rested} drops: ±{:.4}\n",
                100.0 * confidence,
                worst_half_width(confidence, rested)
            );
        }
        if let Some(DropOutcome::Failed(message)) = r
            .drops
            .iter()
            .map(|d| &d.outcome)
            .find(|o| matches!(o, DropOutcome::Failed(_)))
        {
            text += &format!("first engine error: {message}\n");
        }
        if let Some((wall, threads)) = timing {
            text += &format!(
                "time: {wall:.2} s on {threads} thread{} ({:.2} ms a drop)\n",
                if threads == 1 { "" } else { "s" },
                1e3 * wall * threads as f64 / j.trials as f64
            );
        }
    }
    text += "\n";
    let mut header = format!("{:>4} {:>10}", "pose", "face");
    if has(Method::QuasiStatic) {
        header += &format!(" {:>12}", "quasi-static");
    }
    if has(Method::Perturbed) {
        header += &format!(" {:>10}", "perturbed");
    }
    if results.is_some() {
        header += &format!(
            " {:>8} {:>6} {:>15}",
            "dynamic",
            "count",
            format!("{:.0}% interval", 100.0 * confidence)
        );
    }
    text += &header;
    text += "\n";
    for (k, r) in rows.iter().enumerate() {
        let mut line = format!("{:>4} {:>10}", k + 1, face_list(&r.faces, true));
        if let Some(p) = r.quasi_static {
            line += &format!(" {p:>12.4}");
        }
        if let Some(p) = r.perturbed {
            line += &format!(" {p:>10.4}");
        }
        if let Some((count, p, (lo, hi))) = r.dynamic {
            line += &format!(" {p:>8.4} {count:>6} {:>15}", format!("{lo:.4}–{hi:.4}"));
        }
        text += &line;
        text += "\n";
    }

    // Comparison with measurements (eq. 7.2).
    let mut errors = Vec::new();
    let mut measured_json = Vec::new();
    if let Some(measured) = &measured {
        let total: usize = measured.iter().map(|m| m.count).sum();
        let freq: Vec<f64> = measured
            .iter()
            .map(|m| m.count as f64 / total as f64)
            .collect();
        let sum_over =
            |m: &Measured, p: &dyn Fn(usize) -> f64| m.faces.iter().map(|&f| p(f)).sum::<f64>();
        let dyn_p = |f: usize| {
            counts.as_ref().map_or(0.0, |(c, _, _)| {
                if rested > 0 {
                    c[f] as f64 / rested as f64
                } else {
                    0.0
                }
            })
        };
        let mut predicted: Vec<(&str, Vec<f64>)> = Vec::new();
        if has(Method::QuasiStatic) {
            predicted.push((
                "quasi-static",
                measured
                    .iter()
                    .map(|m| sum_over(m, &|f| qs.probability[f]))
                    .collect(),
            ));
        }
        if has(Method::Perturbed) {
            predicted.push((
                "perturbed",
                measured.iter().map(|m| sum_over(m, &|f| pqs[f])).collect(),
            ));
        }
        if results.is_some() {
            predicted.push((
                "dynamic",
                measured.iter().map(|m| sum_over(m, &dyn_p)).collect(),
            ));
        }
        text += &format!("\nmeasured ({total} physical trials):\n");
        let mut head = format!("{:>14} {:>9}", "faces", "measured");
        for (name, _) in &predicted {
            head += &format!(" {name:>12}");
        }
        text += &head;
        text += "\n";
        for (i, m) in measured.iter().enumerate() {
            let names: Vec<String> = m.faces.iter().map(|f| (f + 1).to_string()).collect();
            let mut line = format!("{:>14} {:>9.4}", names.join("+"), freq[i]);
            for (_, p) in &predicted {
                line += &format!(" {:>12.4}", p[i]);
            }
            text += &line;
            text += "\n";
            measured_json.push(json!({
                "faces": m.faces.iter().map(|f| f + 1).collect::<Vec<_>>(),
                "count": m.count,
                "frequency": freq[i],
            }));
        }
        let mut line = format!("{:>14} {:>9}", "error (7.2)", "");
        for (name, p) in &predicted {
            let e = error_percentage(p, &freq);
            line += &format!(" {e:>12.2}");
            errors.push((name.to_string(), e, p.clone()));
        }
        text += &line;
        text += "\n";
    }
    print!("{text}");

    // CSV and JSON.
    let mut csv = String::from(
        "pose,face,quasi_static,perturbed,dynamic,count,interval_low,interval_high,nx,ny,nz,qw,qx,qy,qz,faces\n",
    );
    let mut poses_json = Vec::new();
    let opt = |x: Option<f64>| x.map_or(String::new(), number);
    for (k, r) in rows.iter().enumerate() {
        let n = part.faces()[r.face].normal;
        let q = resting_orientation(part, r.face);
        let (count, p, lo, hi) = match r.dynamic {
            Some((c, p, (lo, hi))) => (c.to_string(), number(p), number(lo), number(hi)),
            None => Default::default(),
        };
        csv += &format!(
            "{},{},{},{},{p},{count},{lo},{hi},{},{},{},{},{},{},{},{}\n",
            k + 1,
            r.face + 1,
            opt(r.quasi_static),
            opt(r.perturbed),
            number(n.x),
            number(n.y),
            number(n.z),
            number(q.w),
            number(q.i),
            number(q.j),
            number(q.k),
            face_list(&r.faces, false)
        );
        poses_json.push(json!({
            "pose": k + 1,
            "face": r.face + 1,
            "faces": r.faces.iter().map(|f| f + 1).collect::<Vec<_>>(),
            "normal": [n.x, n.y, n.z],
            "orientation": [q.w, q.i, q.j, q.k],
            "quasi_static": r.quasi_static,
            "perturbed": r.perturbed,
            "dynamic": r.dynamic.map(|d| d.1),
            "count": r.dynamic.map(|d| d.0),
            "interval": r.dynamic.map(|d| [d.2.0, d.2.1]),
        }));
    }
    let mut drops_json = match (results, &counts) {
        (Some(r), Some((_, moving, failed))) => json!({
            "trials": r.job.trials,
            "at_rest": rested,
            "moving": moving,
            "failed": failed,
            "protocol": r.job.protocol.name(),
            "seed": r.job.seed,
            "chains": r.job.chain_count(),
        }),
        _ => Value::Null,
    };
    if let Some(r) = results.filter(|r| r.job.physics.spin != 0.0) {
        // Written only with spin, so that tables of jobs without it keep their bytes.
        drops_json["spin"] = json!(r.job.physics.spin);
    }
    let table = json!({
        "part": { "name": identity.name, "source": identity.source, "digest": identity.digest, "hull_faces": faces },
        "confidence": confidence,
        "cone_degrees": common.cone,
        "drops": drops_json,
        "poses": poses_json,
        "measured": measured_json,
        "errors": errors.iter().map(|(n, e, _)| json!({"method": n, "error_percent": e})).collect::<Vec<_>>(),
    });
    write(&out.join("poses.csv"), csv.as_bytes())?;
    let mut json_text = serde_json::to_string_pretty(&table).map_err(|e| e.to_string())?;
    json_text.push('\n');
    write(&out.join("poses.json"), json_text.as_bytes())?;
    if !common.no_pictures {
        let labels: Vec<(usize, String)> = rows
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let faces = if r.faces.len() == 1 {
                    format!("face {}", r.face + 1)
                } else {
                    format!("{} faces", r.faces.len())
                };
                (
                    r.face,
                    format!("pose {} ({faces}): p = {:.3}", k + 1, key(r)),
                )
            })
            .collect();
        pose_sheet(part, &labels)?.save(&out.join("poses.png"))?;
        let (names, series) = match &measured {
            // Against measurements: one group of bars per measured pose.
            Some(measured) => {
                let total: usize = measured.iter().map(|m| m.count).sum();
                let mut series: Vec<(String, Vec<f64>)> = errors
                    .iter()
                    .map(|(name, _, p)| (name.clone(), p.clone()))
                    .collect();
                series.push((
                    "measured".into(),
                    measured
                        .iter()
                        .map(|m| m.count as f64 / total as f64)
                        .collect(),
                ));
                let names = measured
                    .iter()
                    .map(|m| {
                        let faces: Vec<String> =
                            m.faces.iter().map(|f| (f + 1).to_string()).collect();
                        faces.join("+")
                    })
                    .collect::<Vec<_>>();
                (names, series)
            }
            None => {
                let mut series: Vec<(String, Vec<f64>)> = Vec::new();
                if has(Method::QuasiStatic) {
                    series.push((
                        "quasi-static".into(),
                        rows.iter().map(|r| r.quasi_static.unwrap_or(0.0)).collect(),
                    ));
                }
                if has(Method::Perturbed) {
                    series.push((
                        "perturbed".into(),
                        rows.iter().map(|r| r.perturbed.unwrap_or(0.0)).collect(),
                    ));
                }
                if results.is_some() {
                    series.push((
                        "dynamic".into(),
                        rows.iter()
                            .map(|r| r.dynamic.map_or(0.0, |d| d.1))
                            .collect(),
                    ));
                }
                let names = rows.iter().map(|r| (r.face + 1).to_string()).collect();
                (names, series)
            }
        };
        bar_chart(&names, &series, &out.join("methods.png"))?;
    }
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Hull face numbers joined by `+` (`short`: at most three, then how many more).
fn face_list(faces: &[usize], short: bool) -> String {
    let names: Vec<String> = faces.iter().map(|f| (f + 1).to_string()).collect();
    if short && names.len() > 3 {
        format!("{}+{} more", names[0], names.len() - 1)
    } else {
        names.join("+")
    }
}

/// Classes of alike hull faces: the same distance from the centre of mass, area, solid angle
/// and outline seen from the foot of the centre of mass (corner distances, sorted), to 1e-7 of
/// the part's size. Symmetric faces (a coin's sides, a cube's faces) fall into one class.
fn pose_classes(part: &Part, qs: &QuasiStatic) -> Vec<usize> {
    let size = part.size();
    let c = part.center_of_mass();
    let q = |x: f64| (x * 1e7).round() as i64;
    let mut keys: Vec<Vec<i64>> = Vec::new();
    let mut classes = Vec::with_capacity(part.faces().len());
    for (f, face) in part.faces().iter().enumerate() {
        let foot = c + face.normal * face.height;
        let mut outline: Vec<i64> = face
            .corners
            .iter()
            .map(|p| q((p - foot).norm() / size))
            .collect();
        outline.sort_unstable();
        let mut key = vec![
            q(face.height / size),
            q(face.area / (size * size)),
            q(qs.landing[f]),
            outline.len() as i64,
        ];
        key.extend(outline);
        let class = match keys.iter().position(|k| *k == key) {
            Some(class) => class,
            None => {
                keys.push(key);
                keys.len() - 1
            }
        };
        classes.push(class);
    }
    classes
}

/// Shortest round-trip form of a number.
fn number(x: f64) -> String {
    let mut buffer = ryu::Buffer::new();
    buffer.format(x + 0.0).to_string()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

const TILE: u32 = 240;

/// A contact sheet of the part resting on each pose's (first) face on a table, labelled with
/// `text`, four to a row (at most 16 poses).
fn pose_sheet(part: &Part, poses: &[(usize, String)]) -> Result<Image, String> {
    let shown = &poses[..poses.len().min(16)];
    let columns = (shown.len() as u32).clamp(1, 4);
    let rows = (shown.len() as u32).div_ceil(columns).max(1);
    let gap = 4;
    let mut sheet = Image::filled(
        columns * TILE + (columns - 1) * gap,
        rows * TILE + (rows - 1) * gap,
        [16, 18, 21],
    );
    let triangles = part.mesh().triangles();
    for (k, (face, text)) in shown.iter().enumerate() {
        let face = *face;
        let q = resting_orientation(part, face);
        let pose = place_on_table(part, q);
        let radius = 0.5 * part.size();
        let centre = pose * part.center_of_mass();
        let bounds = Bounds {
            center: centre.coords,
            radius,
        };
        let view = crate::render::View {
            azimuth: -60.0,
            elevation: 25.0,
            zoom: 1.0,
        };
        let camera = crate::render::camera(&bounds, view, TILE, TILE);
        let mut canvas = Canvas::new(TILE, TILE, 2, camera, [0.16, 0.18, 0.22]);
        // The table: a square under the part.
        let s = 3.0 * radius;
        let (cx, cy) = (centre.x, centre.y);
        let corner = |x: f64, y: f64| Vertex {
            position: Vec3::new(cx + x, cy + y, 0.0),
            normal: Vec3::z(),
        };
        let table = Paint::Checker {
            light: [0.55, 0.55, 0.58],
            dark: [0.45, 0.45, 0.48],
            cell: radius / 2.0,
            origin: Vec3::zeros(),
            u: Vec3::x(),
            v: Vec3::y(),
        };
        canvas.triangle([corner(-s, -s), corner(s, -s), corner(s, s)], &table);
        canvas.triangle([corner(-s, -s), corner(s, s), corner(-s, s)], &table);
        let paint = Paint::Solid([0.85, 0.45, 0.12]);
        let mesh = part.mesh();
        for (t, _) in &triangles {
            let p = t.map(|i| (pose * mesh.vertices[i as usize]).coords);
            let normal = (p[1] - p[0]).cross(&(p[2] - p[0]));
            if normal.norm() == 0.0 {
                continue;
            }
            let normal = normal.normalize();
            canvas.triangle(p.map(|position| Vertex { position, normal }), &paint);
        }
        let mut tile = canvas.finish();
        label(&mut tile, text)?;
        let (col, row) = (k as u32 % columns, k as u32 / columns);
        sheet.paste(&tile, col * (TILE + gap), row * (TILE + gap));
    }
    Ok(sheet)
}

/// The pose of the part's model frame resting in orientation `q` on the table z = 0.
fn place_on_table(part: &Part, q: Quat) -> Pose {
    let lowest = part
        .hull()
        .vertices()
        .iter()
        .map(|v| (q * v).z)
        .fold(f64::INFINITY, f64::min);
    Pose::from_parts(Vec3::new(0.0, 0.0, -lowest).into(), q)
}

fn label(image: &mut Image, text: &str) -> Result<(), String> {
    crate::plot::register_font()?;
    let (w, h) = (image.width, image.height);
    let root = BitMapBackend::with_buffer(&mut image.rgb, (w, h)).into_drawing_area();
    let style = ("sans-serif", 16)
        .into_font()
        .color(&RGBColor(235, 235, 235));
    root.draw_text(text, &style, (8, 6))
        .map_err(|e| format!("cannot draw a label: {e}"))?;
    root.present()
        .map_err(|e| format!("cannot draw a label: {e}"))?;
    Ok(())
}

/// Grouped bars: per pose (hull face), one bar per method.
fn bar_chart(names: &[String], series: &[(String, Vec<f64>)], path: &Path) -> Result<(), String> {
    crate::plot::register_font()?;
    let size = (900u32, 480u32);
    let mut image = Image::filled(size.0, size.1, [255, 255, 255]);
    {
        let area = BitMapBackend::with_buffer(&mut image.rgb, size).into_drawing_area();
        let n = names.len().max(1);
        let top = series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0, f64::max)
            .max(0.05)
            * 1.1;
        let err = |e: &dyn std::fmt::Display| format!("cannot draw the bar chart: {e}");
        let mut chart = ChartBuilder::on(&area)
            .caption("resting poses by method", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..n as f64, 0.0..top)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("hull face(s)")
            .y_desc("probability")
            .x_labels(n.min(30) * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 1e-6 && i < names.len() {
                    names[i].clone()
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(|e| err(&e))?;
        let colours = [
            RGBColor(90, 120, 200),
            RGBColor(80, 170, 110),
            RGBColor(230, 120, 40),
            RGBColor(60, 60, 60),
        ];
        let m = series.len().max(1) as f64;
        let width = 0.8 / m;
        for (s, (name, values)) in series.iter().enumerate() {
            let colour = colours[s % colours.len()];
            chart
                .draw_series(values.iter().enumerate().map(|(i, &v)| {
                    let x0 = i as f64 + 0.1 + width * s as f64;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.9, v)], colour.filled())
                }))
                .map_err(|e| err(&e))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        area.present().map_err(|e| err(&e))?;
    }
    image.save(path)
}
