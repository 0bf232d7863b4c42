//! impulse against rapier on cases with a closed-form answer: how right, and how fast.
//!
//! `cargo bench -p impulse-bench --bench peers` prints one row per case and engine: the
//! quantity theory predicts, each engine's value and error, and the wall time of the run.
//!
//! - **Block on ramp** (Mirtich V1): a block launched down a 30° ramp at 548 cm/s with μ = 0.9
//!   stops after t = v₀/a = 1.99917 s and 547.77 cm (a = g (μ cos 30° − sin 30°)), and then
//!   stays (tan 30° < μ). Twice: the shipped scene's 10 × 10 × 4 cm block at ε = 0.005 cm,
//!   and a 10 cm cube at ε = 0.01 cm.
//! - **Slide to roll** (V19): a ball launched sliding without spin starts rolling at
//!   t = 2v₀/(7μg), at 5v₀/7.
//! - **Newton's cradle**: a striker hits a line of four touching balls, elastically and
//!   without gravity or friction. Momentum and energy are conserved only if the far ball
//!   leaves with the striker's speed and the others stop: the answer of a chain of two-body
//!   collisions (Mirtich's chain of balls, V27). A solver of simultaneous contacts spreads
//!   the impulse instead.
//!
//! Both engines run in the same units (cm, g, s) with the same friction and restitution; rapier
//! is told the length unit (100 per metre) and steps at 240 Hz with its default solver, a
//! common setting for accuracy, built with its `enhanced-determinism` feature so that its rows,
//! like impulse's, are the same on every run (without it the cradle's far ball left at 39–44
//! cm/s from one run to the next). impulse's runs are sampled every millisecond (sampling does
//! not change its motion); rapier's at each step.
//!
//! Measured (2026-11-25, one thread): the shipped ramp scene stops at 1.998 s after 548.05 cm
//! and stays (rapier 1.996 s, 547.61 cm); the cube creeps 2.77 cm in 2 s (rapier 0.001 cm;
//! docs/sources.md, "Creep of resting boxes"); the ball rolls from 0.4382 s (theory 0.4369,
//! rapier 0.4437) at 214.30 cm/s (theory 214.29, rapier 212.94 with 1 % slip left); the
//! cradle's far ball leaves at 100.000 cm/s and the others stop (rapier: 38.59 cm/s, the rest
//! up to 53.87 cm/s).

use std::time::Instant;

use impulse::dynamics::{BodyDesc, MassSpec};
use impulse::geometry::Shape;
use impulse::math::{Quat, Vec3, pose};
use impulse::{BodyId, Material, World, WorldSettings};
use rapier3d_f64::prelude::*;

const G: f64 = 981.0;
const RAPIER_DT: f64 = 1.0 / 240.0;
const SAMPLE: f64 = 1e-3;

/// rapier's vectors come from another nalgebra version than impulse's.
fn to_rapier(v: Vec3) -> Vector<f64> {
    vector![v.x, v.y, v.z]
}

fn from_rapier(v: &Vector<f64>) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

#[path = "common/rapier_world.rs"]
mod rapier_world;

/// A rapier world for a case: cm units, 240 Hz.
struct Rapier(rapier_world::RapierWorld);

impl Rapier {
    fn new(gravity: f64) -> Self {
        let parameters = IntegrationParameters {
            dt: RAPIER_DT,
            length_unit: 100.0,
            ..IntegrationParameters::default()
        };
        Self(rapier_world::RapierWorld::new(
            vector![0.0, 0.0, -gravity],
            parameters,
        ))
    }

    /// Adds a body with one collider; friction and restitution combine by average (the
    /// default), as impulse's materials do, so equal values on both sides give those values.
    fn add(&mut self, body: RigidBodyBuilder, collider: ColliderBuilder, material: Material) {
        let world = &mut self.0;
        let handle = world.bodies.insert(body.can_sleep(false));
        let collider = collider
            .friction(material.friction)
            .restitution(material.restitution);
        world
            .colliders
            .insert_with_parent(collider, handle, &mut world.bodies);
    }

    /// Runs until `end`, calling `sample(t, bodies)` after each step; returns the wall time.
    fn run(&mut self, end: f64, mut sample: impl FnMut(f64, &RigidBodySet)) -> f64 {
        let started = Instant::now();
        let steps = (end / RAPIER_DT).round() as usize;
        for k in 1..=steps {
            self.0.step();
            sample(k as f64 * RAPIER_DT, &self.0.bodies);
        }
        started.elapsed().as_secs_f64()
    }

    /// The `i`-th dynamic body inserted (the fixed ones come first in every case here).
    fn body(bodies: &RigidBodySet, i: usize) -> &RigidBody {
        bodies
            .iter()
            .filter(|(_, b)| b.is_dynamic())
            .nth(i)
            .map(|(_, b)| b)
            .expect("the case's dynamic body")
    }
}

/// Runs an impulse world until `end`, sampling every millisecond; returns the wall time.
fn run_impulse(world: &mut World, end: f64, mut sample: impl FnMut(f64, &World)) -> f64 {
    let started = Instant::now();
    let steps = (end / SAMPLE).round() as usize;
    for k in 1..=steps {
        let t = k as f64 * SAMPLE;
        world.advance_to(t).expect("the case runs");
        drop(world.take_events());
        sample(t, world);
    }
    started.elapsed().as_secs_f64()
}

/// One row of the comparison.
struct Row {
    case: &'static str,
    quantity: &'static str,
    theory: f64,
    impulse: f64,
    rapier: f64,
    impulse_wall: f64,
    rapier_wall: f64,
}

fn relative_error(value: f64, theory: f64) -> String {
    if theory == 0.0 {
        format!("{:+.2e} abs", value)
    } else {
        format!("{:+.2} %", 100.0 * (value - theory) / theory)
    }
}

/// Block on ramp (V1) for a block of `size` (cm) at envelope `epsilon`: stop time, distance,
/// and creep over the following 2 s.
fn block_on_ramp(case: &'static str, size: Vec3, epsilon: f64) -> Vec<Row> {
    let angle = 30f64.to_radians();
    let (v0, mu, e) = (548.0, 0.9, 0.3);
    let material = Material {
        friction: mu,
        restitution: e,
    };
    let a = G * (mu * angle.cos() - angle.sin());
    let (t_stop, distance) = (v0 / a, v0 * v0 / (2.0 * a));
    // The ramp's top face passes through the origin, sloping down along +x'; the block (of
    // density 1) sits on it at the top, half an envelope above.
    let down = Vec3::new(angle.cos(), 0.0, -angle.sin());
    let up_normal = Vec3::new(angle.sin(), 0.0, angle.cos());
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), angle);
    let ramp_centre = down * 400.0 - up_normal * 5.0;
    let start = up_normal * (0.5 * size.z + 0.5 * epsilon);
    let along = |p: Vec3| (p - start).dot(&down);
    let mass = size.x * size.y * size.z;
    let end = 5.0;

    let mut world = World::new(WorldSettings {
        gravity: Vec3::new(0.0, 0.0, -G),
        collision_epsilon: epsilon,
        ..WorldSettings::default()
    });
    let mut ramp = BodyDesc::new(
        "ramp",
        Shape::Box {
            half_extents: Vec3::new(450.0, 50.0, 5.0),
        },
    );
    ramp.motion = impulse::MotionType::Fixed;
    ramp.pose = pose(ramp_centre, tilt);
    ramp.material = material;
    world.add_body(ramp).expect("ramp");
    let mut block = BodyDesc::new(
        "block",
        Shape::Box {
            half_extents: size / 2.0,
        },
    );
    block.mass = MassSpec::Mass(mass);
    block.pose = pose(start, tilt);
    block.velocity = down * v0;
    block.material = material;
    let id = world.add_body(block).expect("block");
    let ours = measure_ramp(down, along, |sample| {
        run_impulse(&mut world, end, |t, w| {
            let s = w.body(id).state();
            sample(t, s.position, s.velocity);
        })
    });

    let mut rapier = Rapier::new(G);
    let ramp_rotation = vector![0.0, angle, 0.0];
    rapier.add(
        RigidBodyBuilder::fixed()
            .translation(to_rapier(ramp_centre))
            .rotation(ramp_rotation),
        ColliderBuilder::cuboid(450.0, 50.0, 5.0),
        material,
    );
    rapier.add(
        RigidBodyBuilder::dynamic()
            .translation(to_rapier(start))
            .rotation(ramp_rotation)
            .linvel(to_rapier(down * v0)),
        ColliderBuilder::cuboid(size.x / 2.0, size.y / 2.0, size.z / 2.0).mass(mass),
        material,
    );
    let theirs = measure_ramp(down, along, |sample| {
        rapier.run(end, |t, bodies| {
            let b = Rapier::body(bodies, 0);
            sample(t, from_rapier(b.translation()), from_rapier(b.linvel()));
        })
    });

    let row = |quantity, theory, pick: fn(&RampResult) -> f64| Row {
        case,
        quantity,
        theory,
        impulse: pick(&ours),
        rapier: pick(&theirs),
        impulse_wall: ours.wall,
        rapier_wall: theirs.wall,
    };
    vec![
        row("stop time (s)", t_stop, |r| r.stop_time),
        row("distance at 3 s (cm)", distance, |r| r.distance),
        row("creep 3 → 5 s (cm)", 0.0, |r| r.creep),
    ]
}

struct RampResult {
    stop_time: f64,
    distance: f64,
    creep: f64,
    wall: f64,
}

/// Runs a ramp case through `run(sample)` and reads: the first time the block's speed down the
/// slope falls below 1 cm/s (3.6 ms before the ideal stop at this deceleration; a resting
/// impulse-based block vibrates at less), the distance along the slope at 3 s, and how far it
/// moves from 3 s to 5 s.
fn measure_ramp(
    down: Vec3,
    along: impl Fn(Vec3) -> f64,
    run: impl FnOnce(&mut dyn FnMut(f64, Vec3, Vec3)) -> f64,
) -> RampResult {
    let (mut stop_time, mut at_three, mut at_five) = (f64::NAN, f64::NAN, f64::NAN);
    let wall = run(&mut |t, position, velocity| {
        if stop_time.is_nan() && velocity.dot(&down) < 1.0 {
            stop_time = t;
        }
        if at_three.is_nan() && t >= 3.0 - 1e-9 {
            at_three = along(position);
        }
        at_five = along(position);
    });
    RampResult {
        stop_time,
        distance: at_three,
        creep: at_five - at_three,
        wall,
    }
}

/// Slide to roll (V19): a 5 cm ball launched at 300 cm/s without spin on a table, μ = 0.2:
/// rolling from 2v₀/(7μg) = 0.4369 s at 5v₀/7.
fn slide_to_roll() -> Vec<Row> {
    let (radius, v0, mu) = (5.0, 300.0, 0.2);
    let material = Material {
        friction: mu,
        restitution: 0.0,
    };
    let (t_roll, v_roll) = (2.0 * v0 / (7.0 * mu * G), 5.0 * v0 / 7.0);
    let start = Vec3::new(0.0, 0.0, radius + 0.005);
    let end = 1.0;

    let mut world = World::new(WorldSettings {
        gravity: Vec3::new(0.0, 0.0, -G),
        collision_epsilon: 0.01,
        ..WorldSettings::default()
    });
    let mut table = BodyDesc::new("table", Shape::HalfSpace);
    table.motion = impulse::MotionType::Fixed;
    table.material = material;
    world.add_body(table).expect("table");
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius });
    ball.mass = MassSpec::Mass(1000.0);
    ball.pose = pose(start, Quat::identity());
    ball.velocity = Vec3::new(v0, 0.0, 0.0);
    ball.material = material;
    let id: BodyId = world.add_body(ball).expect("ball");
    let ours = measure_roll(|sample| {
        run_impulse(&mut world, end, |t, w| {
            sample(t, w.body(id).state().velocity)
        })
    });

    let mut rapier = Rapier::new(G);
    rapier.add(
        RigidBodyBuilder::fixed().translation(vector![0.0, 0.0, -50.0]),
        ColliderBuilder::cuboid(2000.0, 2000.0, 50.0),
        material,
    );
    rapier.add(
        RigidBodyBuilder::dynamic()
            .translation(to_rapier(start))
            .linvel(vector![v0, 0.0, 0.0]),
        ColliderBuilder::ball(radius).mass(1000.0),
        material,
    );
    let theirs = measure_roll(|sample| {
        rapier.run(end, |t, bodies| {
            sample(t, from_rapier(Rapier::body(bodies, 0).linvel()))
        })
    });
    let row = |quantity, theory, pick: fn(&(f64, f64, f64)) -> f64| Row {
        case: "slide to roll",
        quantity,
        theory,
        impulse: pick(&ours),
        rapier: pick(&theirs),
        impulse_wall: ours.2,
        rapier_wall: theirs.2,
    };
    vec![
        row("rolling from (s)", t_roll, |r| r.0),
        row("rolling speed at 1 s (cm/s)", v_roll, |r| r.1),
    ]
}

/// When the ball starts rolling, from its speed alone: where the least-squares line of its
/// sliding deceleration (fitted through every sample from 0.05 to 0.25 s) meets its final speed
/// (at the end). A rolling ball's speed stays constant whatever slip a contact model leaves
/// (rapier's ball keeps rolling with 1 % of v₀ of slip), so this reads both engines alike.
/// Fitting every sample matters for impulse: friction acts only at the microcollisions, so its
/// ball's speed is a staircase (flat while it hops in the envelope), and a line through two
/// samples read one of them on a step (measured +3.9 % against +0.5 % from the slip itself).
/// Returns that time, the final speed and the wall time.
fn measure_roll(run: impl FnOnce(&mut dyn FnMut(f64, Vec3)) -> f64) -> (f64, f64, f64) {
    let mut sliding = Vec::new();
    let mut last = f64::NAN;
    let wall = run(&mut |t, velocity| {
        if (0.05 - 1e-9..=0.25 + 1e-9).contains(&t) {
            sliding.push((t, velocity.x));
        }
        last = velocity.x;
    });
    let (slope, intercept) = least_squares_line(&sliding);
    ((last - intercept) / slope, last, wall)
}

/// The least-squares line `y = slope · t + intercept` through `(t, y)` samples.
fn least_squares_line(samples: &[(f64, f64)]) -> (f64, f64) {
    let n = samples.len() as f64;
    let mean_t = samples.iter().map(|s| s.0).sum::<f64>() / n;
    let mean_y = samples.iter().map(|s| s.1).sum::<f64>() / n;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for &(t, y) in samples {
        covariance += (t - mean_t) * (y - mean_y);
        variance += (t - mean_t) * (t - mean_t);
    }
    let slope = covariance / variance;
    (slope, mean_y - slope * mean_t)
}

/// Newton's cradle without gravity or friction: a striker at 100 cm/s hits four 2.54 cm steel
/// balls in a touching line (0.005 cm apart), elastically.
fn newtons_cradle() -> Vec<Row> {
    let (radius, v0) = (1.27, 100.0);
    let material = Material {
        friction: 0.0,
        restitution: 1.0,
    };
    let gap = 0.005;
    // Striker at x = −10, the line from x = 0 on.
    let centres: Vec<f64> = std::iter::once(-10.0)
        .chain((0..4).map(|k| k as f64 * (2.0 * radius + gap)))
        .collect();
    let end = 0.3;
    let mass = 7.8 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);

    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        collision_epsilon: 0.01,
        ..WorldSettings::default()
    });
    let ids: Vec<BodyId> = centres
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let mut ball = BodyDesc::new(format!("ball {i}"), Shape::Sphere { radius });
            ball.mass = MassSpec::Mass(mass);
            ball.pose = pose(Vec3::new(x, 0.0, 0.0), Quat::identity());
            if i == 0 {
                ball.velocity = Vec3::new(v0, 0.0, 0.0);
            }
            ball.material = material;
            world.add_body(ball).expect("ball")
        })
        .collect();
    let mut ours = vec![0.0; 5];
    let ours_wall = run_impulse(&mut world, end, |_, w| {
        for (v, id) in ours.iter_mut().zip(&ids) {
            *v = w.body(*id).state().velocity.x;
        }
    });

    let mut rapier = Rapier::new(0.0);
    for (i, &x) in centres.iter().enumerate() {
        let velocity = if i == 0 { v0 } else { 0.0 };
        rapier.add(
            RigidBodyBuilder::dynamic()
                .translation(vector![x, 0.0, 0.0])
                .linvel(vector![velocity, 0.0, 0.0]),
            ColliderBuilder::ball(radius).mass(mass),
            material,
        );
    }
    let mut theirs = vec![0.0; 5];
    let rapier_wall = rapier.run(end, |_, bodies| {
        for (i, v) in theirs.iter_mut().enumerate() {
            *v = Rapier::body(bodies, i).linvel().x;
        }
    });
    let largest_left = |v: &[f64]| v[..4].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    vec![
        Row {
            case: "Newton's cradle",
            quantity: "far ball's speed (cm/s)",
            theory: v0,
            impulse: ours[4],
            rapier: theirs[4],
            impulse_wall: ours_wall,
            rapier_wall,
        },
        Row {
            case: "Newton's cradle",
            quantity: "fastest of the rest (cm/s)",
            theory: 0.0,
            impulse: largest_left(&ours),
            rapier: largest_left(&theirs),
            impulse_wall: ours_wall,
            rapier_wall,
        },
    ]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let rows: Vec<Row> = [
        // The shipped scene's block (scenes/impulse/block_on_ramp.toml), and a cube at twice
        // its envelope, which creeps (docs/sources.md, "Creep of resting boxes").
        block_on_ramp("block on ramp", Vec3::new(10.0, 10.0, 4.0), 0.005),
        block_on_ramp("cube on ramp", Vec3::repeat(10.0), 0.01),
        slide_to_roll(),
        newtons_cradle(),
    ]
    .into_iter()
    .flatten()
    .collect();
    println!(
        "{:16} {:27} {:>10} {:>11} {:>12} {:>11} {:>12} {:>10} {:>10}",
        "case",
        "quantity",
        "theory",
        "impulse",
        "error",
        "rapier",
        "error",
        "impulse s",
        "rapier s"
    );
    for r in &rows {
        println!(
            "{:16} {:27} {:>10.4} {:>11.4} {:>12} {:>11.4} {:>12} {:>10.4} {:>10.4}",
            r.case,
            r.quantity,
            r.theory,
            r.impulse,
            relative_error(r.impulse, r.theory),
            r.rapier,
            relative_error(r.rapier, r.theory),
            r.impulse_wall,
            r.rapier_wall
        );
    }
    println!(
        "rapier 0.26 at {:.0} Hz, default solver (length unit 100 per metre); impulse sampled \
         every {} s. Wall times of the whole case, one thread.",
        1.0 / RAPIER_DT,
        SAMPLE
    );
}
