//! The passive hybrid scenes of Mirtich §7.2 (digest S13–S15), run from their scene files under
//! `scenes/hybrid/`: what the thesis says they do, checked as numbers. Units cm, g, s.

mod common;

use common::scenes::{shipped, world_without_warnings};
use impulse::World;
use impulse::scene;

fn load(name: &str) -> World {
    world_without_warnings(scene::load(&shipped(&format!("hybrid/{name}"))))
}

/// Heights of the bodies whose names start with `prefix`.
fn heights(world: &World, prefix: &str) -> Vec<f64> {
    world
        .bodies()
        .iter()
        .filter(|b| b.name().starts_with(prefix))
        .map(|b| b.state().position.z)
        .collect()
}

/// S13: the balls land on the see-saw, which tips towards the side each lands on, rocks as
/// they roll off and fall through the opening, and comes back level once they are gone.
#[test]
fn see_saw_tips_as_balls_land_and_lets_them_through() {
    let mut world = load("see_saw.toml");
    let epsilon = world.settings().collision_epsilon;
    let see_saw = world.multibody_id("see-saw").unwrap();
    // A positive hinge angle lowers the plank's +x end.
    let angle = |w: &World| w.multibody(see_saw).q()[0].to_degrees();
    let (mut lowest, mut highest) = (0.0f64, 0.0f64);
    let mut first_landing = None;
    let mut leaned = false;
    let mut t = 0.0;
    while t < 7.0 {
        t += 0.005;
        world.advance_to(t).unwrap();
        for event in world.take_events() {
            let names = [
                world.collider_name(event.colliders.0),
                world.collider_name(event.colliders.1),
            ];
            if first_landing.is_none() && names.iter().any(|n| n == "see-saw/plank") {
                first_landing = Some((event.time, event.point.x));
            }
        }
        if let Some((landed, x)) = first_landing
            && !leaned
            && t > landed + 0.05
        {
            leaned = true;
            // 50 ms after the first ball lands, the plank leans towards it by over 2°.
            assert!(
                angle(&world) * x.signum() > 2.0,
                "angle {} for a ball at x = {x}",
                angle(&world)
            );
        }
        lowest = lowest.min(angle(&world));
        highest = highest.max(angle(&world));
        if (t - 2.5).abs() < 1e-9 {
            // All eight balls have passed through the opening (the tray is at z ≈ 0, the
            // floor at −30): the see-saw does not trap them.
            let below = heights(&world, "ball")
                .iter()
                .filter(|&&z| z < -20.0)
                .count();
            assert_eq!(below, 8, "{:?}", heights(&world, "ball"));
        }
    }
    assert!(leaned, "no ball touched the see-saw");
    // It rocks: well over 20° at least one way (up to its 40° stops)...
    assert!(
        lowest.abs().max(highest) > 20.0,
        "swung {lowest}..{highest}"
    );
    assert!(
        lowest > -40.5 && highest < 40.5,
        "past its stops: {lowest}..{highest}"
    );
    // ... and its damped hinge brings it back level (its centre of mass hangs below the hinge).
    assert!(angle(&world).abs() < 0.5, "final angle {}", angle(&world));
    assert!(
        world.max_penetration() < epsilon,
        "{}",
        world.max_penetration()
    );
}

/// S14: each part type run on its own (the thesis tuned its doors so that, individually, A
/// glides over the first door, B falls through it and glides over the second, C falls through
/// both). The scene file's parts are replaced by the first part of one type, placed where the
/// first part starts (the foot of the upper track); where it lands on
/// the floor (z = 0) tells its bin: beyond the upper track's end (x > 90), beyond the lower
/// track's end (x < 15), or under door 2 (x between 25 and 60).
#[test]
fn part_sorter_sorts_each_type_by_weight() {
    for (name, bin) in [
        ("part A1", 90.0..f64::INFINITY),
        ("part B1", f64::NEG_INFINITY..15.0),
        ("part C1", 25.0..60.0),
    ] {
        // Every type starts where the first part does, nearest the door.
        let (x, deepest) = common::scenes::part_sorter_landing("impulse", name);
        assert!(
            bin.contains(&x),
            "{name} landed at x = {x} ({bin:?} expected)"
        );
        assert!(deepest < 0.01, "{name}: overlap {deepest} cm (ε = 0.01 cm)");
    }
}

/// S15: the undamped triple pendulum keeps its energy exactly between collisions (only its
/// collisions with the balls can take energy away, as the thesis says), swings its mallet into
/// the balls, and the whole scene never gains energy.
#[test]
fn triple_pendulum_loses_energy_only_in_collisions() {
    let mut world = load("triple_pendulum.toml");
    let pendulum = world.multibody_id("pendulum").unwrap();
    let energy = |w: &World| {
        let m = w.multibody(pendulum);
        m.kinetic_energy() + m.potential_energy()
    };
    let total = |w: &World| {
        let e = w.energy();
        e.kinetic + e.potential
    };
    // Energy scale: the pendulum's drop from its start to its lowest pose, about m g h.
    let scale = 7.0e6;
    let start_total = total(&world);
    let mut before = energy(&world);
    let mut mallet_hits = 0;
    let mut t = 0.0;
    while t < 2.0 {
        t += 0.01;
        world.advance_to(t).unwrap();
        let events = world.take_events();
        let touched = events.iter().any(|e| {
            [e.colliders.0, e.colliders.1]
                .iter()
                .any(|&c| world.collider_name(c).starts_with("pendulum/"))
        });
        mallet_hits += events
            .iter()
            .filter(|e| {
                let names = [
                    world.collider_name(e.colliders.0),
                    world.collider_name(e.colliders.1),
                ];
                names.iter().any(|n| n == "pendulum/mallet")
                    && names.iter().any(|n| n.starts_with("ball"))
            })
            .count();
        let now = energy(&world);
        if !touched {
            // Free swinging: the adaptive integrator's error (tolerance 1e-10 relative) only.
            assert!(
                (now - before).abs() < 1e-7 * scale,
                "t = {t}: {before} → {now}"
            );
        }
        before = now;
        // Collisions never add energy to the scene (Stronge's law); integration error aside.
        assert!(total(&world) < start_total + 1e-6 * scale, "t = {t}");
    }
    assert!(mallet_hits > 0, "the mallet never reached the balls");
    assert!(world.max_penetration() < world.settings().collision_epsilon);
}

/// S16 (controlled hybrid), the opening of the furniture arrangement: the table turns from
/// across the room onto the doorway's axis (its first goal: (2.5, 3.0) m, yaw 0) and heads for
/// the doorway, while the six chairs, steered by poses in the table's frame as observed,
/// gather around it, upright, colliding with the floor and one another through impulses. The
/// full 36 s run (the table through the doorway to its eighth goal, (9.0, 3.0) m at 90°, every
/// chair in place within 3 cm) takes minutes and is measured in the closing note.
#[test]
fn furniture_gathers_around_the_table_as_it_turns_to_the_doorway() {
    use impulse::math::{Quat, Vec3};
    let path = shipped("hybrid/furniture.toml");
    let mut world = match scene::load(&path) {
        Ok(scene) => scene.world,
        Err(e) => panic!("{e}"),
    };
    let epsilon = world.settings().collision_epsilon;
    world.advance_to(2.0).unwrap();
    let pose = |w: &World, name: &str| {
        let m = w.multibody(w.multibody_id(name).unwrap());
        m.link_model_pose(0)
    };
    let table = pose(&world, "table");
    let yaw = |q: &Quat| {
        let x = q * Vec3::x();
        x.y.atan2(x.x).to_degrees()
    };
    // On the doorway's axis and turned to it (the first goal reached: within 5 cm and 3°).
    // When its motion has subsided enough to leave for the second goal (x = 4.3 m) depends on
    // the legs' stick and slip, which is chaotic: changes of 1e-10 in collision integration
    // moved the table's x at 2 s between 2.49 and 3.13 m. So: at the first goal or past it.
    assert!((table.translation.vector.y - 3.0).abs() < 0.05, "{table:?}");
    assert!(
        yaw(&table.rotation).abs() < 3.0,
        "yaw {}",
        yaw(&table.rotation)
    );
    assert!(table.translation.vector.x > 2.45, "{table:?}");
    // Chairs (goals in the table's frame, as in the scene file) near their places, upright.
    let goals: [(f64, f64, f64); 6] = [
        (-0.4, -0.8, 90.0),
        (0.4, -0.8, 90.0),
        (-0.4, 0.8, -90.0),
        (0.4, 0.8, -90.0),
        (-1.2, 0.0, 0.0),
        (1.2, 0.0, 180.0),
    ];
    for (k, (x, y, turn)) in goals.iter().enumerate() {
        let chair = pose(&world, &format!("chair{}", k + 1));
        let goal = table * nalgebra::Point3::new(*x, *y, 0.0);
        let miss = (chair.translation.vector - goal.coords).xy().norm();
        // A chair trails its moving goal by about v k_v / k_p (0.18 s × the table's speed).
        assert!(miss < 0.3, "chair{} {miss} m from its place", k + 1);
        let up = chair.rotation * Vec3::z();
        assert!(up.z > 5f64.to_radians().cos(), "chair{} tilted", k + 1);
        let heading =
            yaw(&(table.rotation * Quat::from_axis_angle(&Vec3::z_axis(), turn.to_radians())));
        let off = (yaw(&chair.rotation) - heading + 540.0).rem_euclid(360.0) - 180.0;
        assert!(
            off.abs() < 10.0,
            "chair{} turned {off}° from its place",
            k + 1
        );
    }
    assert!(world.max_penetration() <= epsilon);
}

/// S18's rover on its own (`scenes/hybrid/rover.toml`): a 7-link multibody whose four wheels
/// touch the ground only through microcollisions, driven by velocity servos at 4 rad/s. Rolling
/// without slip it advances at ω R = 20 cm/s, straight; its rear shock absorbers each carry a
/// quarter of the chassis's weight, which fixes the chassis's pitch in closed form.
#[test]
fn rover_rolls_at_its_wheel_speed() {
    use impulse::math::Vec3;
    let mut world = load("rover.toml");
    let epsilon = world.settings().collision_epsilon;
    let rover = world.multibody_id("rover").unwrap();
    let chassis = world.multibody(rover).link_index("chassis").unwrap();
    let pose = |w: &World| w.multibody(rover).link_model_pose(chassis);
    // Nose-down pitch (radians): the chassis's x axis dipping below the horizontal.
    let pitch = |w: &World| {
        let x = pose(w).rotation * Vec3::x();
        (-x.z).asin()
    };
    world.advance_to(1.0).unwrap(); // spun up (the servos reach speed in a few hundredths)
    let start = pose(&world).translation.vector;
    let (mut pitch_sum, mut samples) = (0.0, 0);
    let mut t = 1.0;
    while t < 3.0 - 1e-9 {
        t += 0.01;
        world.advance_to(t).unwrap();
        pitch_sum += pitch(&world);
        samples += 1;
    }
    let end = pose(&world).translation.vector;
    // ω R = 4 rad/s × 5 cm (the scene's servo target and wheel radius): 40 cm in 2 s.
    let advance = end.x - start.x;
    // Measured 39.96 cm: the wheels hop within the envelope (microcollisions) and slip a
    // little when they land; 0.5 % allows for that.
    assert!((advance - 40.0).abs() < 0.2, "advanced {advance} cm in 2 s");
    assert!(
        (end.y - start.y).abs() < 0.01 * advance,
        "drifted {:?}",
        end - start
    );
    // Rear spring: q = rest + (m_chassis g / 4) / k = −0.5 + 490 500 / 1.7e6 cm; the rear of
    // the chassis rises by −q over the 24 cm wheelbase (the front axles are rigid).
    let q: f64 = -0.5 + 2000.0 * 981.0 / 4.0 / 1.7e6;
    let expected = (-q / 24.0).asin();
    let mean = pitch_sum / samples as f64;
    assert!(
        (mean - expected).abs() < 0.01 * expected, // measured 0.14 % off
        "pitch {mean} rad, expected {expected}"
    );
    assert!(world.max_penetration() < epsilon);
}

/// The scene file `creature_war.toml` with the multibody `name` (its links and its joints'
/// anchors, all given in world coordinates) moved by `(dx, dy)` cm across the table.
fn creature_war_with(moves: &[(&str, f64, f64)]) -> World {
    let path = shipped("hybrid/creature_war.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut doc: toml::Table = toml::from_str(&text).unwrap();
    let shift = |point: &mut toml::Value, dx: f64, dy: f64| {
        let xyz = point.as_array_mut().unwrap();
        for (value, d) in xyz.iter_mut().zip([dx, dy]) {
            let v = value
                .as_float()
                .or(value.as_integer().map(|i| i as f64))
                .unwrap();
            *value = toml::Value::Float(v + d);
        }
    };
    let mut applied = 0;
    for multibody in doc["multibodies"].as_array_mut().unwrap() {
        let name = multibody["name"].as_str().unwrap().to_string();
        for &(_, dx, dy) in moves.iter().filter(|m| m.0 == name) {
            for link in multibody["links"].as_array_mut().unwrap() {
                shift(&mut link["position"], dx, dy);
            }
            for joint in multibody["joints"].as_array_mut().unwrap() {
                if let Some(anchor) = joint.get_mut("anchor") {
                    shift(anchor, dx, dy);
                }
            }
            applied += 1;
        }
    }
    assert_eq!(applied, moves.len(), "no such multibody among {moves:?}");
    let text = toml::to_string(&doc).unwrap();
    match scene::parse(&path, &text) {
        Ok(scene) => scene.world,
        Err(e) => panic!("{e}"),
    }
}

/// Where the body (link 0) of a multibody is.
fn base(world: &World, name: &str) -> nalgebra::Vector3<f64> {
    let m = world.multibody(world.multibody_id(name).unwrap());
    m.link_model_pose(0).translation.vector
}

/// S18, the creature war, as shipped: the rover closes on its first prey while the other two
/// bugs, drawn to the centre by their potential field, walk towards it. The war is chaotic: every
/// contact of the bugs' feet and the rover's wheels moves the story, and whether and when the
/// first bug goes over the edge varies from run to run (9 s to 33 s, or not by 40 s, over runs
/// with gravity changed in its 9th significant digit). What held in each of eight such runs
/// (the shipped scene and seven variants) over the first 10 s is checked: the rover came within
/// its push distance (50 cm) of its prey at 2.75 s and within 16.0–18.2 cm by 10 s; the other
/// two bugs, 120 cm from the centre at the start, were at most 35 and 63 cm from it at 10 s.
/// The push itself is checked in the next test, on a start that does not depend on the chase.
#[test]
fn creature_war_rover_closes_on_its_prey_while_the_bugs_make_for_the_centre() {
    let mut world = load("creature_war.toml");
    let epsilon = world.settings().collision_epsilon;
    let from_centre = |x: nalgebra::Vector3<f64>| x.xy().norm();
    let start: Vec<f64> = ["bug2", "bug3"]
        .iter()
        .map(|b| from_centre(base(&world, b)))
        .collect();
    let apart = |w: &World| (base(w, "rover") - base(w, "bug1")).xy().norm();
    let (mut closest, mut within_push) = (f64::INFINITY, f64::NAN);
    while world.time() < 10.0 {
        world.advance_to(world.time() + 0.25).unwrap();
        closest = closest.min(apart(&world));
        if within_push.is_nan() && apart(&world) < 50.0 {
            within_push = world.time();
        }
    }
    assert!(
        within_push <= 3.5,
        "within 50 cm of its prey at {within_push} s"
    );
    assert!(
        closest < 25.0,
        "the rover came within {closest} cm of its prey"
    );
    for (name, r0) in ["bug1", "bug2", "bug3"]
        .iter()
        .zip([0.0, start[0], start[1]])
    {
        let x = base(&world, name);
        assert!(x.z > 0.0, "{name} fell: {x:?}");
        if r0 > 0.0 {
            assert!(
                from_centre(x) < 0.6 * r0,
                "{name} {} cm from the centre, {r0} at the start",
                from_centre(x)
            );
        }
    }
    assert!(world.max_penetration() < epsilon);
}

/// S18's push: the rover (moved 200 cm along x, to x = 100 facing +x) with its first prey
/// (moved to x = 150, half a metre from the edge) in front of it. It closes in, jacks up its rear
/// and pushes the bug over the edge, then backs away from the edge itself: Fig. 7.27's rules. In
/// each of eight runs (this one and seven with gravity changed in its 9th significant digit) the
/// bug fell at 3.0–4.25 s with the rover within 18–22 cm of it, and the rover stayed on the table.
#[test]
fn creature_war_rover_pushes_a_bug_before_it_off_the_edge_and_stays_on() {
    let mut world = creature_war_with(&[("rover", 200.0, 0.0), ("bug1", 90.0, -70.0)]);
    let epsilon = world.settings().collision_epsilon;
    let apart = |w: &World| (base(w, "rover") - base(w, "bug1")).xy().norm();
    // Fallen off the 400 × 400 cm table (top at z = 0) towards the floor 100 cm below.
    let fallen = |w: &World| base(w, "bug1").z < -50.0;
    let mut closest = f64::INFINITY;
    while !fallen(&world) && world.time() < 6.0 {
        world.advance_to(world.time() + 0.25).unwrap();
        closest = closest.min(apart(&world));
    }
    assert!(fallen(&world), "bug1 at {:?}", base(&world, "bug1"));
    assert!(
        closest < 30.0,
        "the rover came within {closest} cm of its prey"
    );
    let fell = world.time();
    while world.time() < fell + 2.0 {
        world.advance_to(world.time() + 0.25).unwrap();
        let rover = base(&world, "rover");
        assert!(rover.z > 0.0, "the rover went over too: {rover:?}");
    }
    assert!(world.max_penetration() < epsilon);
}
