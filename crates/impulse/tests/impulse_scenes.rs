//! The pure impulse-based example scenes of Mirtich's Table 7.1 (`scenes/impulse/`), run from
//! their files and checked against the behaviour the thesis reports (digest §3 and V13, V18,
//! V27, V29, V30) and against closed-form mechanics where it applies.
//!
//! Units are the scenes' own: centimetres, grams and seconds (g = 981 cm/s²). Durations are
//! shortened (with `World::advance_to`) where the property is settled early, to keep the whole
//! file fast.

mod common;

use std::f64::consts::PI;
use std::path::PathBuf;

use common::scenes::{self, shipped};
use impulse::run::events::EventWriter;
use impulse::run::trajectory::TrajectoryWriter;
use impulse::run::{Recorders, run_scene};
use impulse::scene::{RunOptions, Scene};
use impulse::world::Collider;
use impulse::{BodyId, World};

const G: f64 = 981.0;

fn scene_path(name: &str) -> PathBuf {
    shipped(&format!("impulse/{name}"))
}

fn load(name: &str) -> Scene {
    scenes::load(&scene_path(name))
}

fn id(world: &World, name: &str) -> BodyId {
    let index = world
        .bodies()
        .iter()
        .position(|b| b.name() == name)
        .unwrap_or_else(|| panic!("no body `{name}`"));
    BodyId(index)
}

/// Every scene in `scenes/impulse/` loads without errors or warnings.
#[test]
fn every_impulse_scene_loads_without_warnings() {
    let dir = scene_path("");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let scene = scenes::load(&path);
            assert!(
                scene.warnings.is_empty(),
                "{}: {:?}",
                path.display(),
                scene.warnings
            );
            names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    // The six first examples and the five of this set, at least.
    for expected in [
        "dominos",
        "block_drop",
        "block_on_ramp",
        "chain_of_balls",
        "balls_in_dish",
        "pool_break",
        "coins",
        "bowling",
        "ball_on_platter",
        "rattleback",
        "part_feeder",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected}.toml missing"
        );
    }
}

/// Digest V1 from the scene file itself (`block_on_ramp.toml`): the block stops where and when
/// theory says, g(μ cos 30° − sin 30°) = 274.114 cm/s² from 548 cm/s, after 1.99917 s and
/// 547.77 cm, and stays on the ramp, flat. Regression: the scene once had a 10 cm cube, which
/// (μ = 0.9 within 10 % of tipping a cube) tumbled at 0.6 s and fell off the ramp's end, while
/// the V1 test (tests/impulse_contact.rs, its own flat block) passed.
#[test]
fn the_block_on_ramp_scene_stops_where_theory_says_instead_of_tumbling_off() {
    let mut scene = load("block_on_ramp.toml");
    let world = &mut scene.world;
    let block = id(world, "block");
    let tilt = nalgebra::UnitQuaternion::from_axis_angle(&nalgebra::Vector3::y_axis(), PI / 6.0);
    let down = tilt * nalgebra::Vector3::x();
    let along = |w: &World| w.body(block).state().position.dot(&down);
    let start = along(world);
    let mut stop = None;
    // Watched to 2.1 s, past the end of the 2 % window (2.039 s). Over nine launches with
    // gravity changed in its 9th significant digit the block reached 1 cm/s at 1.992–2.002 s;
    // watched only to 2.0 s, as once, the later ones looked as if it never stopped.
    for k in 1..=2100 {
        world.advance_to(k as f64 * 1e-3).unwrap();
        let speed = world.body(block).state().velocity.dot(&down);
        if stop.is_none() && speed < 1.0 {
            // 1 cm/s is reached 0.0036 s before the ideal stop.
            stop = Some((world.time(), along(world) - start));
        }
    }
    let (t_stop, distance) = stop.expect("the block stops");
    assert!(
        (t_stop - 1.99917).abs() < 0.02 * 1.99917,
        "stopped at {t_stop} s"
    );
    assert!(
        (distance - 547.77).abs() < 0.01 * 547.77,
        "stopped after {distance} cm"
    );
    let at_stop = along(world);
    world.advance_to(5.0).unwrap();
    // One contact at a time, resting contact creeps ∝ √ε_c while the block is awake
    // (docs/sources.md, "Creep of resting boxes": 0.63 cm over these 3 s at ε_c = 0.001 cm with
    // sleep off), 0.225 cm at this scene's ε_c = 0.005 cm before it fell asleep. Held at its four
    // corners at once, each left where it was (the default), it does not creep: measured
    // 0.00017 cm. The issue (V1) allows 0.5 cm.
    let creep = along(world) - at_stop;
    assert!(creep.abs() < 0.5, "crept {creep} cm");
    assert!(world.body(block).is_asleep(), "the block is asleep");
    // Still flat on the ramp: its normal is the ramp's, to a degree.
    let normal = world.body(block).state().orientation * nalgebra::Vector3::z();
    assert!(
        normal.dot(&(tilt * nalgebra::Vector3::z())) > 1f64.to_radians().cos(),
        "the block turned over: its top faces {normal:?}"
    );
    assert!(world.max_penetration() <= world.settings().collision_epsilon);
    // The sliding block is held at its four corners by simultaneous solves (the default), and
    // the counters report them and their sweeps: measured 717 solves of 4.4 sweeps, none
    // falling back to one contact at a time.
    let counters = world.counters();
    let sweeps = counters["cluster_sweeps"] as f64 / counters["cluster_solves"] as f64;
    assert!(
        counters["cluster_solves"] > 100 && (1.0..50.0).contains(&sweeps),
        "{} cluster solves, {sweeps} sweeps each",
        counters["cluster_solves"]
    );
}

/// Tilt of a body's z axis from the vertical, degrees.
fn tilt_degrees(world: &World, body: BodyId) -> f64 {
    let up = world.body(body).state().orientation * nalgebra::Vector3::z();
    up.z.clamp(-1.0, 1.0).acos().to_degrees()
}

/// Digest S1 (thesis Fig. 7.1): the dominos fall one after another and come to rest leaning
/// on each other, the last one flat on the table. A row of equal dominos of thickness t and
/// spacing s, each leaning on the next with its top front edge against the next one's back
/// face, all tilted by the same θ about their front bottom edges, closes only where
/// s cos θ = t: θ = acos(0.75 / 3) = 75.52°.
#[test]
fn dominos_fall_in_sequence_and_lean_at_the_closed_form_angle() {
    let mut scene = load("dominos.toml");
    let world = &mut scene.world;
    let dominos: Vec<BodyId> = (1..=7).map(|k| id(world, &format!("domino {k}"))).collect();
    let mut fell = [f64::NAN; 7];
    let mut all_asleep = f64::NAN;
    for k in 1..=150 {
        world.advance_to(k as f64 * 0.01).unwrap();
        for (i, &d) in dominos.iter().enumerate() {
            if fell[i].is_nan() && tilt_degrees(world, d) > 45.0 {
                fell[i] = world.time();
            }
        }
        if all_asleep.is_nan() && dominos.iter().all(|&d| world.body(d).is_asleep()) {
            all_asleep = world.time();
        }
    }
    // Once the last has landed, the row settles and falls asleep the sleep time (0.5 s, the
    // default) after its last domino has become still. When that is depends on the row's last
    // microcollisions, which are chaotic: over ten launches whose speed differs in the 7th
    // significant digit the row slept 0.53–0.73 s after the last domino passed 45° (about 0.57 s;
    // it lies still from about 0.6 s), so the bound allows the sleep time plus 0.3 s of settling.
    // (This bound once was 0.6 s, fitted to one launch. The regression it caught, a domino's sleep
    // clock restarting at 0.84 s because its stillness was anchored at a pose taken mid-fall, so
    // that the row slept at 1.34 s, is within the spread and is tested where it lives, in
    // world::sleep.)
    assert!(
        all_asleep >= fell[6] + 0.5 && all_asleep <= fell[6] + 0.8,
        "the last domino fell at {} s, the row slept at {all_asleep} s",
        fell[6]
    );
    // In order, every one down by 1.2 s (the last passes 45° at about 0.57 s).
    for i in 0..7 {
        assert!(fell[i].is_finite(), "domino {} still standing", i + 1);
        if i > 0 {
            assert!(fell[i] > fell[i - 1], "fell at {fell:?} s");
        }
    }
    let lean = (0.75f64 / 3.0).acos().to_degrees();
    for (i, &d) in dominos.iter().take(4).enumerate() {
        // Measured 75.25–75.40° (one contact at a time, 75.6–75.7°): the envelope ε_c = 0.01 cm
        // opens each contact slightly, by 0.2° per ε_c of gap at the top (ε_c / (s sin θ)).
        let tilt = tilt_degrees(world, d);
        assert!(
            (tilt - lean).abs() < 0.5,
            "domino {} at {tilt}°, expected {lean}°",
            i + 1
        );
    }
    // The last lies flat: tilted 90° (measured 89.9°), its centre half a thickness up.
    let last = dominos[6];
    assert!((tilt_degrees(world, last) - 90.0).abs() < 0.5);
    let height = world.body(last).state().position.z;
    assert!(
        (height - 0.375).abs() < 0.02,
        "last domino's centre at {height} cm"
    );
    assert!(world.max_penetration() <= world.settings().collision_epsilon);
}

/// Digest S2 (thesis Fig. 7.2): two blocks dropped onto a table bounce and come to rest as a
/// stack, level, each within the envelope of what it stands on: the lower block's centre at its
/// half height 2.5 cm, the upper's at 5 + 2 = 7 cm, up to ε_c = 0.01 cm (twice for the upper).
#[test]
fn block_drop_comes_to_rest_as_a_level_stack() {
    let mut scene = load("block_drop.toml");
    let world = &mut scene.world;
    let (lower, upper) = (id(world, "lower block"), id(world, "upper block"));
    world.advance_to(0.6).unwrap();
    let earlier = [lower, upper].map(|block| world.body(block).state().position);
    world.advance_to(0.8).unwrap();
    let epsilon = world.settings().collision_epsilon;
    let (at_lower, at_upper) = (
        world.body(lower).state().position,
        world.body(upper).state().position,
    );
    // Each block rests on microcollisions: hit anywhere within the envelope ε_c, a reversal
    // sends it back up at up to the threshold speed √(2 g ε_c), which rises ε_c more. So each
    // of the two contacts in series is open by at most 2 ε_c. Measured 2.505 and 7.014 cm
    // (7.020 since the symmetric blocks' flights are in closed form: the upper frozen by sleep
    // 1.5 ε_c above the lower), tilts ≤ 0.02°, each moved ≤ 0.02 cm over the last 0.2 s.
    assert!(
        at_lower.z > 2.5 && at_lower.z < 2.5 + 2.0 * epsilon,
        "{at_lower:?}"
    );
    assert!(
        at_upper.z > 7.0 && at_upper.z < 7.0 + 4.0 * epsilon,
        "{at_upper:?}"
    );
    // At rest means the vibration of microcollisions: speeds below the threshold √(2 g ε_c) =
    // 4.43 cm/s (eq. 3.18; measured ±1 cm/s, random in direction), and no drift: each block
    // moves less than 1 % of its size over the last 0.2 s.
    let threshold = (2.0 * 981.0 * epsilon).sqrt();
    for (block, before) in [lower, upper].into_iter().zip(earlier) {
        assert!(tilt_degrees(world, block) < 0.2);
        let state = world.body(block).state();
        assert!(state.velocity.norm() < threshold, "{:?}", state.velocity);
        let moved = (state.position - before).norm();
        assert!(moved < 0.08, "moved {moved} cm in 0.2 s");
    }
    // The upper block stands on the lower one: its centre over the lower's 10 × 10 cm top.
    let offset = at_upper - at_lower;
    assert!(offset.x.abs() < 4.0 && offset.y.abs() < 4.0, "{offset:?}");
    assert!(world.max_penetration() <= epsilon);
}

/// The whole trajectory of a scene run for `duration`, as `trajectory.csv` would hold it.
fn trajectory_bytes(name: &str, duration: f64) -> Vec<u8> {
    let mut scene = load(name);
    let mut bytes = Vec::new();
    let mut writer = TrajectoryWriter::new(&mut bytes).unwrap();
    let mut events = EventWriter::new(std::io::sink(), &scene.world).unwrap();
    let options = RunOptions {
        duration,
        frame_rate: scene.output_rate,
    };
    let mut records = Recorders {
        trajectory: &mut writer,
        events: &mut events,
    };
    let outcome = run_scene(&mut scene, &options, &mut records, &mut |_| {}).unwrap();
    assert!(outcome.error.is_none(), "{name}: {:?}", outcome.error);
    bytes
}

/// Collision-heavy scenes give byte-identical trajectories when run twice: the simulation has
/// no hidden dependence on addresses, hashing order or timing.
#[test]
fn collision_heavy_runs_are_deterministic() {
    // The whole pool break (the rack takes hundreds of collisions), and the dominos while
    // they topple into each other (0.5 s: the first four have fallen).
    for (name, duration) in [("pool_break.toml", 3.0), ("dominos.toml", 0.5)] {
        let first = trajectory_bytes(name, duration);
        let second = trajectory_bytes(name, duration);
        assert!(first.len() > 10_000, "{name}: only {} bytes", first.len());
        assert!(first == second, "{name}: two runs differ");
    }
}

/// Digest V27 (thesis §7.1, Fig. 7.4; 1994 paper "marbles"): the striker hits a line of four
/// balls and the far ball rolls away while the others stay almost at rest.
#[test]
fn chain_of_balls_passes_the_striker_speed_to_the_far_ball() {
    let mut scene = load("chain_of_balls.toml");
    let world = &mut scene.world;
    let striker = id(world, "striker");
    let chain: Vec<BodyId> = (1..=4).map(|k| id(world, &format!("ball {k}"))).collect();
    let far = chain[3];
    let mass = world.body(striker).mass();
    let mut before = None;
    let mut far_peak: f64 = 0.0;
    for k in 1..=500 {
        world.advance_to(k as f64 * 1e-3).unwrap();
        let v = world.body(striker).state().velocity.x;
        // The striker meets ball 1 after 10 − 2R = 7.46 cm at 50 cm/s: at 0.149 s. Its
        // speed just before the impact:
        if k == 140 {
            before = Some(v);
        }
        far_peak = far_peak.max(world.body(far).state().velocity.x);
    }
    let v0 = before.expect("the striker moves before the impact");
    // The striker rolls at 50 cm/s with nothing to slow it (no rolling resistance).
    assert!((v0 - 50.0).abs() < 0.01 * 50.0, "striker at {v0} cm/s");
    // Each central collision with e = 0.99 passes on (1 + e)/2 = 99.5 % of the speed, so the
    // far ball leaves with about 0.995⁴ = 98 % of the striker's, less what the striker's spin
    // rubs off on ball 1 (measured 96.7 %). Required: 95 %.
    assert!(far_peak >= 0.95 * v0, "far ball left at {far_peak} cm/s");
    // 0.5 s after the start the far ball is well away (it left at ~0.14 s); the others are
    // nearly at rest. They are not exactly at rest: the striker's rolling spin is not passed
    // on by the collisions, and friction turns it back into forward motion of the striker,
    // which then nudges the chain. That momentum is at most the (2/7)·m·v0 that friction can
    // make from the spin of a ball rolling at v0 (V27, derived), 14.3 cm/s of one ball.
    let speeds: Vec<f64> = [striker, chain[0], chain[1], chain[2]]
        .iter()
        .map(|&b| world.body(b).state().velocity.norm())
        .collect();
    for (i, s) in speeds.iter().enumerate() {
        // Each below that bound (measured: at most 5.7 cm/s, 11 % of the striker's speed,
        // against the far ball's 97 %).
        assert!(
            *s < 2.0 / 7.0 * v0,
            "ball {i} (0 = striker) moves at {s} cm/s"
        );
    }
    let momentum: f64 = [striker, chain[0], chain[1], chain[2]]
        .iter()
        .map(|&b| world.body(b).state().velocity.x * mass)
        .sum();
    assert!(
        momentum <= 2.0 / 7.0 * mass * v0 * 1.05,
        "the left-behind balls carry {} cm/s of one ball",
        momentum / mass
    );
    // The far ball, launched sliding without spin, now rolls at 5/7 of its launch speed (V19).
    let v_far = world.body(far).state().velocity.x;
    assert!(
        (v_far - 5.0 / 7.0 * far_peak).abs() < 0.01 * far_peak,
        "far ball rolls at {v_far} cm/s after leaving at {far_peak}"
    );
    assert!(world.max_penetration() <= 0.01);
}

/// Digest V30 (thesis §7.1, Fig. 7.12): spun the same way, the skewed rattleback (inertia axes
/// turned from its shape's) reverses its spin; the balanced one keeps spinning as started.
#[test]
fn rattleback_reverses_and_balanced_ellipsoid_does_not() {
    let mut scene = load("rattleback.toml");
    let world = &mut scene.world;
    let skewed = id(world, "skewed");
    let balanced = id(world, "balanced");
    let spin = |w: &World, b: BodyId| w.body(b).state().angular_velocity.z;
    let w0 = spin(world, skewed);
    assert_eq!(w0, -10.0, "both start spinning clockwise at 10 rad/s");
    assert_eq!(spin(world, balanced), w0);
    let mut reversed_at = None;
    let mut balanced_range = (w0, w0);
    for k in 1..=80 {
        let t = k as f64 * 0.05;
        world.advance_to(t).unwrap();
        let (s, b) = (spin(world, skewed), spin(world, balanced));
        if reversed_at.is_none() && s > 0.0 {
            reversed_at = Some(t);
        }
        balanced_range = (balanced_range.0.min(b), balanced_range.1.max(b));
    }
    // Measured: the skewed one passes through zero near 2.9 s and spins at +5.5 rad/s at 4 s.
    // The thesis says only "quickly"; require the reversal within 4 s, and a real one: at
    // least a quarter of the initial rate the other way.
    let t_rev = reversed_at.expect("the skewed rattleback reverses within 4 s");
    let w_end = spin(world, skewed);
    assert!(
        w_end > 0.25 * w0.abs(),
        "reversed at {t_rev} s but spins at {w_end} rad/s at 4 s"
    );
    // The balanced ellipsoid never changes direction, and hardly changes rate: rolling on
    // its own symmetry axis it has no coupling between rocking and spin (within 2 %).
    assert!(
        balanced_range.1 < 0.0 && (balanced_range.0 - w0).abs() < 0.02 * w0.abs(),
        "balanced spin ranged over {balanced_range:?} rad/s"
    );
    assert!((balanced_range.1 - w0).abs() < 0.02 * w0.abs());
}

/// Digest V29 (thesis §7.1, Fig. 7.11): a ball rolling on a platter turning at Ω has its centre
/// circling at (2/7)Ω in the platter's sense, at constant speed (nonholonomic rolling of a
/// uniform ball). The scene starts the ball at (14, 0) moving at 6·(2/7)Ω along +y, so the
/// ideal circle has radius 6 cm about (8, 0).
#[test]
fn ball_on_spinning_platter_circles_at_two_sevenths_of_the_platter_rate() {
    let mut scene = load("ball_on_platter.toml");
    let world = &mut scene.world;
    let ball = id(world, "ball");
    let omega = 2.0 * PI;
    let rate = 2.0 / 7.0 * omega;
    let speed0 = 6.0 * rate;
    let mut turned = 0.0;
    let direction = |w: &World| {
        let v = w.body(ball).state().velocity;
        v.y.atan2(v.x)
    };
    let mut previous = direction(world);
    // Three orbits of 3.5 s.
    let duration = 10.5;
    for k in 1..=1050 {
        world.advance_to(k as f64 * 0.01).unwrap();
        let a = direction(world);
        turned += (a - previous + PI).rem_euclid(2.0 * PI) - PI;
        previous = a;
        let state = world.body(ball).state();
        let speed = state.velocity.xy().norm();
        // Constant speed (no rolling resistance): within 1 %; measured 0.2 %.
        assert!((speed - speed0).abs() < 0.01 * speed0, "speed {speed}");
        // On the ideal circle: within 2 % of its radius; measured 0.5 %.
        let from_centre = (state.position.xy() - nalgebra::Vector2::new(8.0, 0.0)).norm();
        assert!(
            (from_centre - 6.0).abs() < 0.02 * 6.0,
            "{from_centre} cm off"
        );
    }
    // The velocity turned at (2/7)Ω: within 0.5 %; measured 0.07 % low.
    let measured = turned / duration;
    assert!(
        (measured - rate).abs() < 0.005 * rate,
        "orbit rate {measured} rad/s, expected {rate}"
    );
}

/// Pool break (digest V13/S7): until a ball first meets a cushion, the only horizontal
/// impulses on the balls from outside are the bed's (friction), so the change of the balls'
/// total momentum equals the sum of the bed's impulses — whatever happens in the rack. Before
/// the impact the cue ball decelerates at μg while it slides (V19).
#[test]
fn pool_break_conserves_momentum_between_balls() {
    let mut scene = load("pool_break.toml");
    let world = &mut scene.world;
    let bed = id(world, "bed");
    let cushions = id(world, "cushions");
    let cue = id(world, "cue ball");
    let total_momentum = |w: &World| {
        w.bodies()
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| b.state().velocity * b.mass())
            .sum::<impulse::math::Vec3>()
    };
    let p0 = total_momentum(world);
    let m = world.body(cue).mass();
    assert_eq!(p0.x, 700.0 * m);
    let mut bed_impulse = impulse::math::Vec3::zeros();
    let mut rack_hit = None;
    let mut cue_before = (0.0, 700.0);
    let mut checked = 0;
    'run: for k in 1..=3000 {
        let t = k as f64 * 1e-4;
        world.advance_to(t).unwrap();
        for event in world.take_events() {
            let (a, b) = event.colliders;
            let involves = |id: BodyId| a == Collider::Body(id) || b == Collider::Body(id);
            if involves(cushions) {
                break 'run;
            }
            if involves(bed) {
                // The impulse acts on the first collider; the bed may be either.
                let on_ball = if a == Collider::Body(bed) {
                    -event.impulse
                } else {
                    event.impulse
                };
                bed_impulse += on_ball;
            } else if rack_hit.is_none() {
                rack_hit = Some(event.time);
            }
        }
        let p = total_momentum(world);
        let error = (p - p0 - bed_impulse).xy().norm();
        // Exact up to rounding: 1e-9 of the cue ball's momentum.
        assert!(
            error < 1e-9 * p0.x,
            "t = {t}: momentum off by {error} g·cm/s"
        );
        checked += 1;
        if rack_hit.is_none() {
            cue_before = (t, world.body(cue).state().velocity.x);
        }
    }
    let t_hit = rack_hit.expect("the cue ball reaches the rack");
    // Sliding without spin, friction μ = 0.2 decelerates the cue ball at μg (until it would
    // roll, at t = 2v0/(7μg) = 1.02 s, long after the break). Within 0.5 %: landing on the bed
    // from ε_c/2 above it adds a transient of about 1 cm/s in the first milliseconds.
    let (t, v) = cue_before;
    let expected = 700.0 - 0.2 * G * t;
    assert!(
        (v - expected).abs() < 5e-3 * 700.0,
        "t = {t}: cue ball at {v}, expected {expected}"
    );
    // Distance from the head spot to the apex ball, less one diameter: 121.285 cm, covered
    // at 700 − 196.2 t (s = 700 t − 98.1 t²) in 0.1786 s.
    assert!((t_hit - 0.1786).abs() < 0.002, "rack hit at {t_hit} s");
    // The balls spread well beyond the break before any reaches a cushion.
    assert!(
        checked > 1000,
        "a cushion was hit after only {checked} steps"
    );
}

/// Bowling (digest V18/S8, V19): the ball slides on the oiled lane until friction has made it
/// roll, at t = 2|s₀|/(7μg) for the initial slip s₀ = v₀ − ω₀ × R ẑ... of the contact point;
/// the slip keeps its direction, so the ball then moves at v₀ − (2/7)s₀ — with the sideways
/// component that makes the hook.
#[test]
fn bowling_ball_hooks_into_rolling_as_theory_says() {
    let mut scene = load("bowling.toml");
    let world = &mut scene.world;
    let ball = id(world, "ball");
    let state = *world.body(ball).state();
    let radius = 10.8;
    let mu = 0.1;
    let contact = impulse::math::Vec3::new(0.0, 0.0, -radius);
    let slip0 = state.velocity + state.angular_velocity.cross(&contact);
    let t_roll = 2.0 * slip0.norm() / (7.0 * mu * G);
    // The scene's numbers: |s₀| = |(27.92 + 129.6, 799.51)| = 814.9 cm/s, so 2.3733 s.
    assert!((t_roll - 2.3733).abs() < 1e-3, "t_roll = {t_roll}");
    // The slip falls linearly at (7/2)μg along its first direction (V19), so it is below 1 %
    // of |s₀| from t_roll − 0.01·|s₀|/(3.5μg) on. Step through in 1 ms and find when.
    let threshold = 0.01 * slip0.norm();
    let expected = t_roll - threshold / (3.5 * mu * G);
    let mut below = None;
    for k in 2000..2600 {
        let t = k as f64 * 1e-3;
        world.advance_to(t).unwrap();
        let s = world.body(ball).state();
        let slip = s.velocity + s.angular_velocity.cross(&contact);
        if slip.xy().norm() < threshold {
            below = Some(t);
            break;
        }
    }
    let t_below = below.expect("the ball rolls before the pins");
    // Within 2 % (V19's tolerance); measured 0.4 % early.
    assert!(
        (t_below - expected).abs() < 0.02 * expected,
        "rolling from {t_below} s, expected {expected}"
    );
    world.advance_to(t_roll + 0.1).unwrap();
    let s = world.body(ball).state();
    let rolling = state.velocity - 2.0 / 7.0 * slip0;
    let v = s.velocity.xy();
    // Within 0.5 % of the rolling velocity's magnitude, in each component.
    assert!(
        (v - rolling.xy()).norm() < 0.005 * rolling.norm(),
        "rolling at {v:?}, expected {:?}",
        rolling.xy()
    );
    assert!(rolling.x < 0.0, "the hook: the ball now moves left");
}

/// Coins (digest V31/S6): the rolled coins roll without slipping at constant speed until they
/// meet the others (no rolling resistance in the contact model).
#[test]
fn rolled_coins_keep_rolling_until_they_meet() {
    let mut scene = load("coins.toml");
    let world = &mut scene.world;
    world.advance_to(0.1).unwrap();
    for k in 1..=4 {
        let coin = id(world, &format!("rolled coin {k}"));
        let s = world.body(coin).state();
        // 30 cm/s, within 1 %.
        assert!(
            (s.velocity.norm() - 30.0).abs() < 0.3,
            "rolled coin {k} at {} cm/s",
            s.velocity.norm()
        );
        // Rolling: the contact point (r = 1.213 cm below the centre) does not slip.
        let contact = impulse::math::Vec3::new(0.0, 0.0, -1.213);
        let slip = s.velocity + s.angular_velocity.cross(&contact);
        assert!(slip.xy().norm() < 0.3, "rolled coin {k} slips at {slip:?}");
        // Vertically it only vibrates in the envelope (ε = 0.005 cm): slower than the
        // microcollision threshold √(2 g ε) = 3.13 cm/s.
        assert!(
            slip.z.abs() < (2.0f64 * 981.0 * 0.005).sqrt(),
            "rolled coin {k} bounces at {slip:?}"
        );
    }
}

/// Regression (found by `impulse soak`, 29 Nov 2026): the pool break stopped at t = 24.61 s,
/// "`cushions` and `ball 2` interpenetrate by 1.0001e-2" (ε_c = 0.01 cm). Ball 2 lay against
/// the left cushion, spinning at 10.8 rad/s about the vertical and rolling into the cushion at
/// 0.020 cm/s. Every 4.5 ms its hop on the bed was answered by a cluster solve that took the
/// cushion contact in, and the solve left a contact alone whose normal velocity was within its
/// tolerance (0.044 cm/s) of its target (0.019 cm/s, restitution times the approach; no
/// rebound sideways), so the ball kept approaching, and the cushion pair's own checks at those
/// instants counted what was left as the solve's residual. Now an approaching contact is
/// always brought to its target (`contact::gauss_seidel::contact_impulse`).
#[test]
fn the_pool_break_runs_past_a_ball_creeping_into_a_cushion() {
    let mut world = scenes::load(&shipped("impulse/pool_break.toml")).world;
    let epsilon = world.settings().collision_epsilon;
    if let Err(e) = world.advance_to(30.0) {
        panic!("stopped at t = {}: {e}", world.time());
    }
    // Deeper than half the envelope would be a contact let approach again.
    assert!(
        world.max_penetration() < 0.5 * epsilon,
        "deepest {}",
        world.max_penetration()
    );
}
