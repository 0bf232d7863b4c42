//! Contact through trains of collisions (Mirtich ch. 3, §3.5): sliding, rolling and resting
//! bodies checked against closed-form mechanics, and conservation laws of the collision loop.
//!
//! Units are centimetres, grams and seconds (g = 981 cm/s²), as in the thesis.

mod common;

use common::worlds::{
    G_CGS as G, body, cgs_world_under, cube, ground, kinetic_energy, momentum, tilted_ground,
};
use impulse::dynamics::{BodyDesc, MassSpec, Material};
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};
use impulse::world::ContactModel;
use impulse::{BodyId, MicrocollisionClusters, Sleep, World, WorldSettings};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn world(epsilon: f64) -> World {
    world_with(epsilon, WorldSettings::default().microcollision_clusters)
}

/// A world without sleep whose resting contacts are answered one at a time (the thesis) or in
/// clusters.
fn world_with(epsilon: f64, clusters: MicrocollisionClusters) -> World {
    cgs_world_under(ContactModel::Impulse, epsilon, clusters, false)
}

const BOTH: [MicrocollisionClusters; 2] = [
    MicrocollisionClusters::Sequential,
    MicrocollisionClusters::Simultaneous,
];

/// These tests measure impulse-based contact itself, resting contact included: no sleep,
/// which would end it (sleep has its own tests, `tests/sleep.rs`).
fn awake() -> Sleep {
    Sleep {
        enabled: false,
        ..Sleep::default()
    }
}

/// Digest V1 (thesis Figs. 3.14–3.15): a block launched down a 30° ramp at 548 cm/s with
/// μ = 0.9 decelerates at g(μ cos 30° − sin 30°) = 274.114 cm/s², stopping after
/// 548/274.114 = 1.99917 s and 548²/(2·274.114) = 547.77 cm, and static friction holds it
/// (tan 30° < μ).
/// What the V1 block does: when it slowed below 1 cm/s and how far it had gone, how far it
/// crept in the 3 s after the ideal stop (1.999 s), and the deepest penetration.
struct RampRun {
    t_stop: f64,
    distance: f64,
    creep: f64,
    max_penetration: f64,
}

/// The thesis gives no block size or envelope: a 10 × 10 × 4 cm block of 1 kg, launched
/// from just above the ramp.
fn block_on_ramp(epsilon: f64, clusters: MicrocollisionClusters) -> RampRun {
    let material = Material {
        friction: 0.9,
        restitution: 0.3,
    };
    let mut world = world_with(epsilon, clusters);
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), 30f64.to_radians());
    tilted_ground(&mut world, tilt, material);
    let (down, normal) = (tilt * Vec3::x(), tilt * Vec3::z());
    let half_height = 2.0;
    let mut block = BodyDesc::new(
        "block",
        Shape::Box {
            half_extents: Vec3::new(5.0, 5.0, half_height),
        },
    );
    block.mass = MassSpec::Mass(1000.0);
    block.material = material;
    block.pose = Pose::from_parts((normal * (half_height + 0.5 * epsilon)).into(), tilt);
    block.velocity = down * 548.0;
    let id = world.add_body(block).unwrap();

    let along = |world: &World| world.body(id).state().position.dot(&down);
    let mut stop = None;
    for k in 1..=2000 {
        world.advance_to(k as f64 * 1e-3).unwrap();
        let speed = world.body(id).state().velocity.dot(&down);
        if stop.is_none() && speed < 1.0 {
            // 1 cm/s is reached 0.0036 s before the ideal stop.
            stop = Some((world.time(), along(&world)));
        }
    }
    let (t_stop, distance) = stop.expect("the block stops");
    let creep_start = along(&world);
    world.advance_to(5.0).unwrap();
    RampRun {
        t_stop,
        distance,
        creep: along(&world) - creep_start,
        max_penetration: world.max_penetration(),
    }
}

#[test]
fn v1_block_on_ramp_stops_where_theory_says() {
    // One contact at a time (the thesis), ε = 1e-4 cm, 1e-5 of the block's size: the creep
    // after the stop scales as √ε (see `v1_creep_scales_as_the_root_of_the_envelope`), and this
    // ε keeps it under 0.5 cm. In clusters the block is held at its four corners at once and
    // leaves each one stuck, back where it left (see docs/sources.md, "Simultaneous
    // microcollisions"), so it stays put at a ten times coarser envelope too.
    for (clusters, epsilon, creep) in [
        (MicrocollisionClusters::Sequential, 1e-4, 0.5),
        (MicrocollisionClusters::Simultaneous, 1e-4, 0.01),
        (MicrocollisionClusters::Simultaneous, 1e-3, 0.01),
    ] {
        let run = block_on_ramp(epsilon, clusters);
        let case = format!("{clusters:?} at ε = {epsilon}");
        assert!(
            (run.t_stop - 1.99917).abs() < 0.02 * 1.99917,
            "{case}: stopped at {} s",
            run.t_stop
        );
        assert!(
            (run.distance - 547.77).abs() < 0.01 * 547.77,
            "{case}: stopped after {} cm",
            run.distance
        );
        // The thesis reports "slight creep" (Fig. 3.15); the issue allows 0.5 cm over the 3 s
        // after the stop. Measured one at a time: 0.20 cm (0.39 cm before partial reversals:
        // a corner's full reversal often falls outside the friction cone; docs/sources.md,
        // Known limitations); in clusters 3e-5 cm at 1e-4 and 2e-4 cm at 1e-3.
        assert!(run.creep.abs() < creep, "{case}: crept {} cm", run.creep);
        assert!(run.max_penetration <= epsilon, "{case}");
    }
}

/// The creep of a block held on a slope by microcollisions one at a time comes from gravity's
/// pull along the slope during each microcollision's flight, which lasts ∝ √ε (the bounce
/// speed is √(2 g ε)): creep ∝ √ε. Ten times the envelope, √10 = 3.16 times the creep
/// (measured 0.63 cm against 0.20 cm, ratio 3.18).
#[test]
fn v1_creep_scales_as_the_root_of_the_envelope() {
    let sequential = MicrocollisionClusters::Sequential;
    let (fine, coarse) = (
        block_on_ramp(1e-4, sequential),
        block_on_ramp(1e-3, sequential),
    );
    let ratio = coarse.creep / fine.creep;
    assert!(
        (ratio - 10f64.sqrt()).abs() < 0.2 * 10f64.sqrt(),
        "creep {} cm at 1e-3 and {} cm at 1e-4: ratio {ratio}",
        coarse.creep,
        fine.creep
    );
    // Both stop where theory says all the same.
    assert!((coarse.distance - 547.77).abs() < 0.01 * 547.77);
}

#[test]
fn v19_sliding_ball_starts_rolling_on_time() {
    let material = Material {
        friction: 0.05,
        restitution: 0.5,
    };
    // A bowling ball: radius 10.9 cm, 7 kg; ε = 1e-3 cm.
    let radius = 10.9;
    let mut world = world(1e-3);
    ground(&mut world, material);
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius });
    ball.mass = MassSpec::Mass(7000.0);
    ball.material = material;
    ball.pose = Pose::translation(0.0, 0.0, radius + 5e-4);
    ball.velocity = Vec3::new(700.0, 0.0, 0.0);
    let id = world.add_body(ball).unwrap();

    let mut rolling = None;
    for k in 1..=4600 {
        let t = k as f64 * 1e-3;
        world.advance_to(t).unwrap();
        let state = world.body(id).state();
        // Slip of the contact point: v − ωR along x (rolling forward spins about +y).
        let slip = state.velocity.x - state.angular_velocity.y * radius;
        if slip < 0.002 * 700.0 {
            rolling = Some((t, state.velocity.x, state.position.x));
            break;
        }
    }
    let (t, v, x) = rolling.expect("the ball starts rolling");
    // Slip falls linearly at 3.5μg, so it is below 0.2 % of v₀ 0.008 s before the ideal onset.
    assert!((t - 4.0775).abs() < 0.02 * 4.0775, "rolling from {t} s");
    assert!((v - 500.0).abs() < 0.01 * 500.0, "rolling at {v} cm/s");
    assert!((x - 2446.5).abs() < 0.01 * 2446.5, "after {x} cm");
    // Rolling continues at that speed (no rolling resistance in the model).
    world.advance_to(5.5).unwrap();
    let v_later = world.body(id).state().velocity.x;
    assert!(
        (v_later - 500.0).abs() < 0.01 * 500.0,
        "then {v_later} cm/s"
    );
}

/// A 10 cm cube of 1 kg dropped from 4 cm above the ground, tilted so that it lands on a
/// corner or an edge, watched for 10 s after the first second: its horizontal drift, its
/// lowest and highest centre height, and the world's counters and deepest penetration.
struct RestingRun {
    drift: f64,
    lowest: f64,
    highest: f64,
    max_penetration: f64,
    collisions: u64,
    microcollisions: u64,
}

fn drop_box(epsilon: f64, tilt: Quat, clusters: MicrocollisionClusters) -> RestingRun {
    let material = Material {
        friction: 0.5,
        restitution: 0.5,
    };
    let mut world = world_with(epsilon, clusters);
    ground(&mut world, material);
    let mut cube = body(
        "cube",
        cube(5.0),
        1000.0,
        Pose::from_parts(Vec3::new(0.0, 0.0, 9.0).into(), tilt),
    );
    cube.material = material;
    let id = world.add_body(cube).unwrap();
    world.advance_to(1.0).unwrap();
    let settled = world.body(id).state().position;
    let mut lowest = f64::INFINITY;
    let mut highest = f64::NEG_INFINITY;
    for k in 1..=1000 {
        world.advance_to(1.0 + k as f64 * 1e-2).unwrap();
        let z = world.body(id).state().position.z;
        lowest = lowest.min(z);
        highest = highest.max(z);
    }
    RestingRun {
        drift: (world.body(id).state().position - settled).xy().norm(),
        lowest,
        highest,
        max_penetration: world.max_penetration(),
        collisions: world.counters()["collisions"],
        microcollisions: world.counters()["microcollisions"],
    }
}

/// A box dropped on the ground bounces, settles, and then rests: never deeper into the ground
/// than the envelope, and drifting less than 0.1 % of its size over 10 s (the bound),
/// from four different landings. One contact at a time the drift is a random walk of
/// microcollisions that grows with ε (measured over eight landings at ε = 1e-3 cm:
/// 0.009–0.017 cm, at 1e-4 cm: 0.0008–0.0033 cm), so the envelope is then 1e-4 cm, 1e-5 of the
/// box's size.
#[test]
fn dropped_box_comes_to_rest_and_stays() {
    for clusters in BOTH {
        // One at a time the box is held by one corner at a time, whose friction leaves it a
        // random walk (measured 0.0014–0.0037 cm at 1e-4 cm); in clusters by its four corners,
        // stuck (measured below 1e-15 cm at a ten times coarser envelope).
        let epsilon = match clusters {
            MicrocollisionClusters::Sequential => 1e-4,
            MicrocollisionClusters::Simultaneous => 1e-3,
        };
        for (about_x, about_y) in [(0.05, 0.0), (0.03, 0.02), (0.08, 0.0), (0.1, 0.02)] {
            let tilt = Quat::from_axis_angle(&Vec3::x_axis(), about_x)
                * Quat::from_axis_angle(&Vec3::y_axis(), about_y);
            let run = drop_box(epsilon, tilt, clusters);
            let landing = format!("{clusters:?}, tilted {about_x}, {about_y} rad");
            assert!(run.collisions >= 3, "{landing}: it bounces");
            assert!(
                run.drift < 1e-3 * 10.0,
                "{landing}: drifted {} cm",
                run.drift
            );
            // Flat on its face, within the envelope of the ground.
            assert!(
                run.lowest > 5.0 - epsilon && run.highest < 5.0 + 2.0 * epsilon,
                "{landing}: height {}..{}",
                run.lowest,
                run.highest
            );
            assert!(run.max_penetration <= epsilon, "{landing}");
            assert!(run.microcollisions > run.collisions, "{landing}");
        }
    }
}

/// A ball let go at rest `gap` above the ground: how many microcollisions it takes in
/// `seconds`, and the lowest and highest gap between ball and ground seen at 1 ms samples.
fn resting_ball(epsilon: f64, rebound: f64, gap: f64, seconds: f64) -> (u64, f64, f64) {
    let material = Material {
        friction: 0.5,
        restitution: 0.5,
    };
    let mut world = World::new(WorldSettings {
        contact_model: ContactModel::Impulse,
        gravity: Vec3::new(0.0, 0.0, -G),
        collision_epsilon: epsilon,
        microcollision_rebound: Some(rebound),
        sleep: awake(),
        ..WorldSettings::default()
    });
    ground(&mut world, material);
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 1.0 });
    ball.mass = MassSpec::Mass(10.0);
    ball.material = material;
    ball.pose = Pose::translation(0.0, 0.0, 1.0 + gap);
    let id = world.add_body(ball).unwrap();
    let (mut lowest, mut highest) = (f64::INFINITY, f64::NEG_INFINITY);
    let samples = (seconds * 1000.0).round() as u32;
    for k in 1..=samples {
        world.advance_to(k as f64 * 1e-3).unwrap();
        let gap = world.body(id).state().position.z - 1.0;
        lowest = lowest.min(gap);
        highest = highest.max(gap);
    }
    // A ball straight above its contact, let go at rest, approaches along the normal: the
    // reversal's impulse is purely normal, inside every friction cone, so no microcollision
    // is boosted (integrated).
    assert_eq!(world.counters()["boosted_microcollisions"], 0);
    (world.counters()["microcollisions"], lowest, highest)
}

/// A microcollision leaves a resting contact separating at no less than the rebound speed
/// v = f √(2 g ε), so a ball resting on the ground flies for 2v/g between microcollisions and
/// rises f² ε above where it was hit. ε = 0.01 cm, f = ½: v = 2.2147 cm/s, a flight of
/// 4.5152 ms, 221.5 microcollisions a second, a rise of ε/4. The ball starts at rest ε/100
/// above the ground, inside the envelope, so it meets its first microcollision much slower
/// than v (at most √(2 g ε/100) = 0.44 cm/s). The thesis's pure reversal (f = 0) keeps that approach
/// speed, whatever it was, and the ball is hit ever more often (a rattleback at rest: 1.3e5
/// a second).
#[test]
fn microcollisions_rebound_a_resting_ball_at_the_ballistic_rate() {
    let epsilon = 0.01;
    let v = 0.5 * (2.0 * G * epsilon).sqrt();
    let expected = G / (2.0 * v);
    let (count, lowest, highest) = resting_ball(epsilon, 0.5, 0.01 * epsilon, 2.0);
    // ±1 % covers the first microcollision and the count's ±1 at the ends.
    assert!(
        (count as f64 / 2.0 - expected).abs() < 0.01 * expected,
        "{count} microcollisions in 2 s, expected {expected} a second"
    );
    // Never through the ground; the rise of ε/4 from a hit between 0 and ε/100 (sampled
    // every 1 ms, within 0.012 ε of the apex).
    assert!(
        lowest > 0.0 && highest > 0.24 * epsilon && highest < 0.27 * epsilon,
        "gap {lowest}..{highest}"
    );
    // Without the rebound the first approach speed (< v/5) stays: more than five times as
    // many microcollisions.
    let (pure, _, _) = resting_ball(epsilon, 0.0, 0.01 * epsilon, 0.05);
    assert!(
        pure as f64 > 5.0 * expected * 0.05,
        "pure reversal: {pure} in 0.05 s"
    );
}

/// Total linear momentum, angular momentum about the origin, and kinetic energy of the
/// dynamic bodies.
fn totals(world: &World) -> (Vec3, Vec3, f64) {
    let (linear, angular) = momentum(world);
    (linear, angular, kinetic_energy(world))
}

/// Collisions between free bodies conserve linear and angular momentum and never add kinetic
/// energy (Stronge's law, Theorem 11). Spheres and cubes of random size, density, friction and
/// restitution are thrown together with random spins; their inertia is isotropic, so free
/// flight keeps every momentum exactly and any change would be the collisions'.
#[test]
fn collisions_conserve_momentum_and_never_gain_energy() {
    let mut rng = Pcg64::seed_from_u64(7);
    let mut collisions = 0;
    for _ in 0..20 {
        let mut world = World::new(WorldSettings {
            contact_model: ContactModel::Impulse,
            gravity: Vec3::zeros(),
            collision_epsilon: 1e-3,
            sleep: awake(),
            ..WorldSettings::default()
        });
        for i in 0..8 {
            let size = rng.random_range(0.3..1.0);
            let shape = if rng.random_bool(0.5) {
                Shape::Sphere { radius: size }
            } else {
                Shape::Box {
                    half_extents: Vec3::repeat(size),
                }
            };
            let mut body = BodyDesc::new(format!("b{i}"), shape);
            body.mass = MassSpec::Density(rng.random_range(0.5..5.0));
            body.material = Material {
                friction: rng.random_range(0.0..1.0),
                // Above 0.2: lower values let clusters collapse inelastically (ever more
                // frequent collisions), which only makes the test slow.
                restitution: rng.random_range(0.2..1.0),
            };
            // On a ring of radius 4 (no overlaps), aimed roughly at the middle.
            let angle = i as f64 * std::f64::consts::TAU / 8.0;
            let position = Vec3::new(angle.cos(), angle.sin(), 0.0) * 4.0
                + Vec3::from_fn(|_, _| rng.random_range(-0.3..0.3));
            body.pose = Pose::from_parts(
                position.into(),
                Quat::from_scaled_axis(Vec3::from_fn(|_, _| rng.random_range(-3.0..3.0))),
            );
            body.velocity = -position * rng.random_range(0.5..2.0)
                + Vec3::from_fn(|_, _| rng.random_range(-1.0..1.0));
            body.angular_velocity = Vec3::from_fn(|_, _| rng.random_range(-5.0..5.0));
            world.add_body(body).unwrap();
        }
        let (p0, l0, e0) = totals(&world);
        let mut energy = e0;
        for k in 1..=20 {
            world.advance_to(k as f64 * 0.1).unwrap();
            let (p, l, e) = totals(&world);
            // Rounding only: momenta are sums of terms as large as these scales.
            let p_scale: f64 = world
                .bodies()
                .iter()
                .map(|b| b.mass() * b.state().velocity.norm())
                .sum();
            assert!(
                (p - p0).norm() < 1e-12 * p_scale.max(p0.norm()),
                "{p} vs {p0}"
            );
            let l_scale: f64 = world
                .bodies()
                .iter()
                .map(|b| {
                    b.mass() * b.state().position.norm() * b.state().velocity.norm()
                        + b.angular_momentum().norm()
                })
                .sum();
            assert!((l - l0).norm() < 1e-12 * l_scale, "{l} vs {l0}");
            assert!(
                e <= energy * (1.0 + 1e-12),
                "energy rose from {energy} to {e}"
            );
            energy = e;
        }
        collisions += world.counters()["collisions"];
        assert!(world.max_penetration() <= 1e-3);
    }
    assert!(collisions > 100, "only {collisions} collisions");
}

/// Output frames sample the motion and never change it: the same drop recorded at 30 and at
/// 997 frames per second ends in bit-identical states, after bounces and resting contact.
#[test]
fn output_rate_does_not_perturb_the_event_schedule() {
    let run = |frames: u32| {
        let mut world = world(1e-3);
        ground(&mut world, Material::default());
        let mut ball = BodyDesc::new(
            "ball",
            Shape::Box {
                half_extents: Vec3::new(3.0, 2.0, 1.0),
            },
        );
        ball.pose = Pose::from_parts(
            Vec3::new(0.0, 0.0, 10.0).into(),
            Quat::from_scaled_axis(Vec3::new(0.3, 0.2, 0.1)),
        );
        ball.velocity = Vec3::new(20.0, 0.0, 0.0);
        ball.angular_velocity = Vec3::new(0.0, 3.0, 1.0);
        world.add_body(ball).unwrap();
        for k in 1..=frames {
            world.advance_to(2.0 * k as f64 / frames as f64).unwrap();
        }
        let state = *world.body(BodyId(1)).state();
        (state, world.counters()["collisions"])
    };
    let (coarse, collisions) = run(60);
    let (fine, _) = run(1994);
    assert!(collisions > 0);
    assert_eq!(coarse, fine);
}

/// Regression (found by mutating `scenes/free/kinematic.toml`): a kinematic platter spinning at
/// 1e300 rad/s under a falling ball bounded each collision check a few ulps after the last,
/// and `advance_to` never returned. Events that stop advancing time now end the run with an
/// error naming the pair; the same scene at a sane spin runs.
#[test]
fn motion_too_fast_to_resolve_stops_the_run_naming_the_pair() {
    let scene = |spin: &str| {
        format!(
            "[world]\ngravity = [0, 0, -9.81]\n\
             [[bodies]]\nname = \"platter\"\nmotion = \"kinematic\"\n\
             shape = {{ type = \"cylinder\", radius = 0.15, height = 0.01 }}\n\
             kinematic = {{ angular_velocity = [{spin}, 0, 3.5] }}\n\
             [[bodies]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.02 }}\n\
             density = 7800\nposition = [0.05, 0, 0.1]\n"
        )
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spin.toml");
    let mut sane = impulse::scene::parse(&path, &scene("0")).expect("a valid scene");
    sane.world
        .advance_to(0.5)
        .expect("a platter spinning at 3.5 rad/s is simulated");
    let mut absurd = impulse::scene::parse(&path, &scene("1e300")).expect("a valid scene");
    let error = absurd.world.advance_to(0.5).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`platter` and `ball` move too fast"),
        "{message}"
    );
}

/// Newton's cradle without gravity or friction: a striker at 100 cm/s hits a line of four
/// equal balls 0.005 cm apart (inside the envelope), elastically. Each contact is a two-body
/// collision, resolved one after another at the same instant; between equal masses with e = 1
/// each exchanges the velocities, so the far ball leaves with exactly the striker's speed and
/// the others stop (momentum and energy conserved). A solver of simultaneous contacts spreads
/// the impulse over the line instead (rapier 0.26: far ball 39–44 cm/s, `cargo bench -p
/// impulse-bench --bench peers`).
#[test]
fn an_elastic_cradle_passes_the_whole_impulse_to_the_far_ball() {
    let (radius, v0, gap) = (1.27, 100.0, 0.005);
    let mut world = World::new(WorldSettings {
        contact_model: ContactModel::Impulse,
        gravity: Vec3::zeros(),
        collision_epsilon: 0.01,
        ..WorldSettings::default()
    });
    let material = Material {
        friction: 0.0,
        restitution: 1.0,
    };
    let centres = std::iter::once(-10.0).chain((0..4).map(|k| k as f64 * (2.0 * radius + gap)));
    let balls: Vec<BodyId> = centres
        .enumerate()
        .map(|(i, x)| {
            let mut ball = BodyDesc::new(format!("ball {i}"), Shape::Sphere { radius });
            ball.mass = MassSpec::Mass(66.0);
            ball.pose = Pose::from_parts(Vec3::new(x, 0.0, 0.0).into(), Quat::identity());
            if i == 0 {
                ball.velocity = Vec3::new(v0, 0.0, 0.0);
            }
            ball.material = material;
            world.add_body(ball).unwrap()
        })
        .collect();
    // The striker covers 10 − 2R − gap = 7.455 cm in 0.0746 s; run to 0.3 s.
    world.advance_to(0.3).unwrap();
    let velocity = |i: usize| world.body(balls[i]).state().velocity;
    // Rounding only: each exchange is exact up to a few ulps of 100 cm/s.
    assert!(
        (velocity(4).x - v0).abs() < 1e-9,
        "far ball at {:?}",
        velocity(4)
    );
    for i in 0..4 {
        assert!(velocity(i).norm() < 1e-9, "ball {i} at {:?}", velocity(i));
    }
    let events = world.take_events();
    assert_eq!(events.len(), 4, "one collision per contact: {events:#?}");
}
