//! Sleep (`world/islands.rs`, "Sleep" in ARCHITECTURE.md): islands of bodies that have stayed still fall asleep,
//! and an impulse on any sleeper wakes its whole island. Checked against closed-form motion
//! and against the same runs with sleep off.
//!
//! Units: centimetres, grams, seconds (g = 981 cm/s²), ε_c = 0.01 cm unless stated; the
//! microcollision threshold speed is then √(2 g ε_c) = 4.43 cm/s and a body counts as still
//! below a mean speed of a quarter of that, 1.11 cm/s.

mod common;

use common::worlds::{self, G_CGS as G, body, cgs_world_under, ground};
use impulse::dynamics::{MassSpec, PrescribedMotion};
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};
use impulse::world::ContactModel;
use impulse::{
    BodyDesc, BodyId, Material, MicrocollisionClusters, MotionType, World, WorldSettings,
};

const EPSILON: f64 = 0.01;

fn world(sleep: bool) -> World {
    world_in(sleep, WorldSettings::default().microcollision_clusters)
}

/// A world whose resting contacts are answered one at a time or in clusters, under the impulse
/// model: sleep is what ends its resting contact (under paradigm switching, the default, a
/// resting cluster is held first; `tests/switching.rs`).
fn world_in(sleep: bool, clusters: MicrocollisionClusters) -> World {
    cgs_world_under(ContactModel::Impulse, EPSILON, clusters, sleep)
}

fn threshold_speed() -> f64 {
    (2.0 * G * EPSILON).sqrt()
}

const MATERIAL: Material = Material {
    friction: 0.5,
    restitution: 0.3,
};

/// A 10 cm cube of 1 g/cm³ whose bottom is `bottom` cm up (plus ε_c/2), at `x`.
fn cube(world: &mut World, name: &str, x: f64, bottom: f64) -> BodyId {
    let mut cube = body(
        name,
        worlds::cube(5.0),
        1000.0,
        Pose::translation(x, 0.0, bottom + 5.0 + 0.5 * EPSILON),
    );
    cube.material = MATERIAL;
    world.add_body(cube).unwrap()
}

/// A kinematic box of these half extents, centred at `centre`, moving along x at `speed`.
fn moving_box(world: &mut World, name: &str, half_extents: Vec3, centre: Vec3, speed: f64) {
    let mut slab = BodyDesc::new(name, Shape::Box { half_extents });
    slab.motion = MotionType::Kinematic(PrescribedMotion {
        velocity: Vec3::new(speed, 0.0, 0.0),
        angular_velocity: Vec3::zeros(),
        oscillations: Vec::new(),
    });
    slab.material = MATERIAL;
    slab.pose = Pose::translation(centre.x, centre.y, centre.z);
    world.add_body(slab).unwrap();
}

/// A ball of radius 2 cm on the ground, rolling along x at `speed` without slipping.
fn rolling_ball(world: &mut World, speed: f64) -> BodyId {
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 2.0 });
    ball.mass = MassSpec::Mass(50.0);
    ball.material = MATERIAL;
    ball.pose = Pose::translation(0.0, 0.0, 2.0 + 0.5 * EPSILON);
    ball.velocity = Vec3::new(speed, 0.0, 0.0);
    ball.angular_velocity = Vec3::new(0.0, speed / 2.0, 0.0);
    world.add_body(ball).unwrap()
}

fn x(world: &World, id: BodyId) -> f64 {
    world.body(id).state().position.x
}

/// A stack of two cubes settles and falls asleep after the sleep time: every microcollision
/// stops (none between 1.5 s and 3 s), the stack stays where it was, and nothing penetrates.
#[test]
fn a_resting_stack_falls_asleep_and_its_microcollisions_stop() {
    let mut world = world(true);
    ground(&mut world, MATERIAL);
    let bottom = cube(&mut world, "bottom", 0.0, 0.0);
    let top = cube(&mut world, "top", 0.0, 10.0 + EPSILON);
    world.advance_to(1.5).unwrap();
    assert!(world.body(bottom).is_asleep() && world.body(top).is_asleep());
    let before = world.counters();
    let pose = world.body(top).state().position;
    world.advance_to(3.0).unwrap();
    let after = world.counters();
    assert_eq!(before["microcollisions"], after["microcollisions"]);
    assert_eq!(before["collision_checks"], after["collision_checks"]);
    assert_eq!(after["sleeps"], 1, "one island");
    // At rest where it fell asleep: exactly (a sleeper does not move).
    assert_eq!(world.body(top).state().position, pose);
    assert_eq!(world.body(top).state().velocity, Vec3::zeros());
    assert!(world.max_penetration() <= EPSILON);
    // The stack is where it was put, to within the envelope: it did not sink or drift.
    let z = world.body(top).state().position.z;
    assert!(
        (z - (15.0 + 1.5 * EPSILON)).abs() < 2.0 * EPSILON,
        "top at z = {z}"
    );
}

/// A kinematic pusher reaches the bottom cube of a sleeping stack and pushes it along x at
/// 20 cm/s. The impulse wakes the whole island: the top cube rides on the bottom one (friction
/// 0.5 carries it) instead of floating where it slept. The same run with sleep off gives the same
/// motion to within a few envelopes' vibration.
#[test]
fn an_impulse_on_a_sleeper_wakes_its_whole_island() {
    let run = |sleep: bool| {
        let mut world = world(sleep);
        ground(&mut world, MATERIAL);
        let bottom = cube(&mut world, "bottom", 0.0, 0.0);
        let top = cube(&mut world, "top", 0.0, 10.0 + EPSILON);
        // A 4 cm slab at the bottom cube's mid-height, 30 cm away, arriving at t = 1.5 s.
        moving_box(
            &mut world,
            "pusher",
            Vec3::new(2.0, 8.0, 2.0),
            Vec3::new(-37.0, 0.0, 5.0),
            20.0,
        );
        world.advance_to(1.4).unwrap();
        let asleep = world.body(bottom).is_asleep() && world.body(top).is_asleep();
        world.advance_to(2.5).unwrap();
        let awake = !world.body(bottom).is_asleep() && !world.body(top).is_asleep();
        assert!(world.max_penetration() <= EPSILON);
        (
            asleep,
            awake,
            x(&world, bottom),
            x(&world, top),
            world.counters()["wakes"],
        )
    };
    let (asleep, awake, bottom, top, wakes) = run(true);
    assert!(asleep, "the stack falls asleep before the push");
    assert!(awake && wakes >= 1, "the push wakes both cubes");
    // Pushed for 1 s at 20 cm/s: the bottom cube's centre is 20 cm on (the pusher's face
    // starts 30 cm from the cube's at t = 0 and meets it at 1.5 s).
    assert!((bottom - 20.0).abs() < 0.5, "bottom cube at x = {bottom}");
    // The top cube slips while friction brings it up to speed (the struck cube leaves at up to
    // (1 + e) 20 cm/s): measured 1.19 cm behind, 1.06 cm with sleep off. Left asleep it would
    // be 20 cm behind, floating.
    assert!(
        (top - bottom).abs() < 2.0,
        "top cube at x = {top}, left behind"
    );
    let (_, _, bottom_awake, top_awake, _) = run(false);
    assert!(
        (bottom - bottom_awake).abs() < 0.1,
        "{bottom} vs {bottom_awake}"
    );
    assert!((top - top_awake).abs() < 0.25, "{top} vs {top_awake}");
}

/// A body carried by a moving kinematic body never falls asleep, however slowly it moves: a
/// cube on a conveyor creeping at 0.5 cm/s (below the still speed) is carried 1.5 cm in 3 s
/// (friction holds it: it moves with the belt). Asleep, it would stay behind.
#[test]
fn a_body_carried_by_a_kinematic_body_stays_awake() {
    let mut world = world(true);
    moving_box(
        &mut world,
        "belt",
        Vec3::new(100.0, 20.0, 1.0),
        Vec3::new(0.0, 0.0, -1.0),
        0.5,
    );
    let mut box_on_belt = body(
        "box",
        worlds::cube(5.0),
        1000.0,
        Pose::translation(0.0, 0.0, 5.0 + 0.5 * EPSILON),
    );
    box_on_belt.material = MATERIAL;
    box_on_belt.velocity = Vec3::new(0.5, 0.0, 0.0);
    let id = world.add_body(box_on_belt).unwrap();
    world.advance_to(3.0).unwrap();
    assert_eq!(world.counters()["sleeps"], 0);
    assert!(!world.body(id).is_asleep());
    let carried = x(&world, id);
    assert!((carried - 1.5).abs() < 0.05, "carried to x = {carried}");
}

/// A kinematic body whose prescribed motion leaves it in place (no velocity, no spin, an
/// oscillation of zero amplitude) is as still as a fixed one: a cube resting on it falls asleep
/// as it does on a fixed slab, and takes no microcollision afterwards. Regression: any
/// kinematic body kept what it touched awake, so the cube was hit for ever.
#[test]
fn a_body_on_a_stationary_kinematic_body_falls_asleep() {
    use impulse::dynamics::Oscillation;
    let slab = |world: &mut World, motion: MotionType| {
        let mut slab = BodyDesc::new(
            "slab",
            Shape::Box {
                half_extents: Vec3::new(100.0, 20.0, 1.0),
            },
        );
        slab.motion = motion;
        slab.material = MATERIAL;
        slab.pose = Pose::translation(0.0, 0.0, -1.0);
        world.add_body(slab).unwrap();
    };
    let mut asleep_at = Vec::new();
    for motion in [
        MotionType::Fixed,
        MotionType::Kinematic(PrescribedMotion {
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            oscillations: vec![Oscillation {
                amplitude: Vec3::zeros(),
                frequency: 10.0,
                phase: 0.0,
            }],
        }),
    ] {
        let mut world = world(true);
        slab(&mut world, motion);
        let cube = cube(&mut world, "cube", 0.0, 0.0);
        let mut first = f64::NAN;
        for k in 1..=150 {
            world.advance_to(k as f64 * 0.01).unwrap();
            if first.is_nan() && world.body(cube).is_asleep() {
                first = world.time();
            }
        }
        let hits = world.counters()["microcollisions"];
        world.advance_to(3.0).unwrap();
        assert!(world.body(cube).is_asleep());
        assert_eq!(
            world.counters()["microcollisions"],
            hits,
            "hit while asleep"
        );
        asleep_at.push(first);
    }
    // Asleep after the sleep time (0.5 s) and within a second; on the kinematic slab exactly
    // when on the fixed one (the same contacts, the same motion).
    assert!(asleep_at[0] >= 0.5 && asleep_at[0] < 1.0, "{asleep_at:?}");
    assert_eq!(asleep_at[0], asleep_at[1]);
}

/// The still speed is a threshold: a ball rolling without slipping at the threshold speed
/// √(2 g ε_c) = 4.43 cm/s (four times the still speed) keeps rolling for 2 s, covering v t
/// (no rolling resistance: to 1 %), and never sleeps; one rolling at a tenth of it (0.44 cm/s,
/// below the still speed) falls asleep within the sleep time and a few box periods.
#[test]
fn a_slowly_rolling_ball_sleeps_only_below_the_still_speed() {
    let v = threshold_speed();
    let mut world = world(true);
    ground(&mut world, MATERIAL);
    let ball = rolling_ball(&mut world, v);
    world.advance_to(2.0).unwrap();
    assert_eq!(world.counters()["sleeps"], 0);
    let rolled = x(&world, ball);
    assert!(
        (rolled - 2.0 * v).abs() < 0.01 * 2.0 * v,
        "rolled {rolled} cm"
    );

    let mut world = self::world(true);
    ground(&mut world, MATERIAL);
    let ball = rolling_ball(&mut world, 0.1 * v);
    world.advance_to(0.6).unwrap();
    assert!(world.body(ball).is_asleep());
    assert_eq!(world.counters()["sleeps"], 1);
}

/// Sleep is decided at box refreshes, never at output frames: sampling a settling stack at
/// 60 or at 1994 frames gives bit-identical states, sleeps included.
#[test]
fn output_rate_does_not_perturb_sleep() {
    let run = |frames: u32| {
        let mut world = world(true);
        ground(&mut world, MATERIAL);
        cube(&mut world, "bottom", 0.0, 0.0);
        let mut top = BodyDesc::new(
            "top",
            Shape::Box {
                half_extents: Vec3::new(4.0, 3.0, 2.0),
            },
        );
        top.material = MATERIAL;
        top.pose = Pose::from_parts(
            Vec3::new(1.0, 0.0, 20.0).into(),
            Quat::from_scaled_axis(Vec3::new(0.2, 0.1, 0.0)),
        );
        let top = world.add_body(top).unwrap();
        for k in 1..=frames {
            world.advance_to(2.0 * k as f64 / frames as f64).unwrap();
        }
        (*world.body(top).state(), world.counters())
    };
    let (coarse, counters) = run(60);
    let (fine, fine_counters) = run(1994);
    assert!(counters["sleeps"] >= 1, "{counters:?}");
    assert_eq!(coarse, fine);
    assert_eq!(counters["sleeps"], fine_counters["sleeps"]);
}

/// Adding a body to a world whose bodies sleep rebuilds the collision loop, which wakes every
/// sleeper at rest: a ball dropped from 20 cm onto a sleeping cube then lands on it (rather
/// than passing through a body the new loop knew nothing asleep about), nothing penetrates, and
/// the cube and ball settle and sleep again.
#[test]
fn adding_a_body_wakes_the_sleepers_and_they_settle_again() {
    let mut world = world(true);
    ground(&mut world, MATERIAL);
    let cube = cube(&mut world, "cube", 0.0, 0.0);
    world.advance_to(1.0).unwrap();
    assert!(world.body(cube).is_asleep());
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 2.0 });
    ball.material = MATERIAL;
    ball.pose = Pose::translation(0.0, 0.0, 30.0);
    let ball = world.add_body(ball).unwrap();
    world.advance_to(1.01).unwrap();
    assert!(!world.body(cube).is_asleep(), "the rebuild wakes the cube");
    world.advance_to(4.0).unwrap();
    assert!(world.max_penetration() <= EPSILON);
    // The ball rests on the cube's top (10 cm up, plus its radius, within the envelopes).
    let z = world.body(ball).state().position.z;
    assert!((z - 12.0).abs() < 3.0 * EPSILON, "ball at z = {z}");
    assert!(world.body(ball).is_asleep() && world.body(cube).is_asleep());
}

/// The issue's resting-contact check with sleep on, at this file's envelope (ε_c = 0.01 cm, a
/// thousandth of the cube): a 10 cm cube dropped tilted from 5 cm bounces, comes to rest and
/// sleeps, and from 2 s to 10 s moves not at all (the bound is the issue's 0.1 % of its size).
/// With sleep off (`run(false)`) it random-walks on its corners' microcollisions: measured
/// 0.047 cm, five times that bound (the issue's check is met without sleep only at ε_c = 1e-5 of the size,
/// `impulse_contact::dropped_box_comes_to_rest_and_stays`).
#[test]
fn a_dropped_cube_sleeps_and_stops_drifting() {
    let run = |sleep: bool| {
        let mut world = world(sleep);
        ground(&mut world, MATERIAL);
        let mut cube = body(
            "cube",
            worlds::cube(5.0),
            1000.0,
            Pose::from_parts(
                Vec3::new(0.0, 0.0, 12.0).into(),
                Quat::from_scaled_axis(Vec3::new(0.2, 0.1, 0.0)),
            ),
        );
        cube.material = MATERIAL;
        let id = world.add_body(cube).unwrap();
        world.advance_to(2.0).unwrap();
        let at_rest = world.body(id).state().position;
        world.advance_to(10.0).unwrap();
        assert!(world.max_penetration() <= EPSILON);
        (
            (world.body(id).state().position - at_rest).norm(),
            world.body(id).is_asleep(),
        )
    };
    let (drift, asleep) = run(true);
    assert!(asleep);
    assert!(drift < 0.01, "drifted {drift} cm asleep");
}

/// A multibody's link wakes a sleeper it strikes. SI units. A ball (5 cm, 0.5 kg) rests on the
/// ground beside the lower end of a hanging 1 m rod; the rod is set swinging away from it at
/// 3 rad/s, so it comes back and strikes the ball half a swing later (~0.85 s), long after the
/// ball has fallen asleep. The ball leaves as it does with sleep off: measured 1.6149 m/s against
/// 1.6091 m/s along x at 1.2 s (the awake ball vibrates in its envelope at up to √(2 g ε_c) =
/// 0.044 m/s, which also sets the difference of their vertical speeds there, as each bounces
/// along the ground).
#[test]
fn a_link_striking_a_sleeper_wakes_it() {
    let text = |sleep: bool| {
        format!(
            r#"
[world]
contact_model = "impulse"
gravity = [0, 0, -9.81]
collision_epsilon = 1e-4
sleep = {sleep}

[[bodies]]
name = "ground"
motion = "fixed"
shape = {{ type = "halfspace" }}
position = [0, 0, -1.03]

[[bodies]]
name = "ball"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 0.5
position = [0.0605, 0, -0.97995]

[[multibodies]]
name = "pendulum"
[[multibodies.links]]
name = "rod"
shape = {{ type = "box", size = [0.02, 0.1, 1.0] }}
mass = 1.5
position = [0, 0, -0.5]
[[multibodies.joints]]
type = "revolute"
child = "rod"
anchor = [0, 0, 0]
axis = [0, 1, 0]
initial_velocity = 3.0
"#
        )
    };
    let run = |sleep: bool| {
        let mut world = impulse::scene::parse(std::path::Path::new("sleep.toml"), &text(sleep))
            .unwrap_or_else(|e| panic!("{e}"))
            .world;
        let ball = world.body_id("ball").unwrap();
        world.advance_to(0.7).unwrap();
        let asleep = world.body(ball).is_asleep();
        world.advance_to(1.2).unwrap();
        assert!(world.max_penetration() <= 1e-4);
        (asleep, world.body(ball).state().velocity)
    };
    let (asleep, hit) = run(true);
    assert!(asleep, "the ball sleeps before the rod comes back");
    assert!(hit.x > 1.0, "the ball was not struck: {hit:?}");
    let (awake, hit_awake) = run(false);
    assert!(!awake);
    assert!(
        (hit.x - hit_awake.x).abs() < 0.01 * hit_awake.x,
        "{hit:?} asleep when struck, {hit_awake:?} awake"
    );
}

/// A stack of five 10 cm cubes, each set 3 mm along x from the one below and ε_c above it.
/// Mirtich found two stacked books fine, three slow, and four or more grinding to a halt
/// (§3.5; digest §5.1): impulses must travel up and down the stack. Here the stack settles and
/// sleeps whole (one contact at a time, measured: all asleep at 0.55 s, the sleep time after it
/// came to rest), no microcollision after that, nothing deeper than the envelope, every cube
/// resting within the envelopes below it (its centre between 5 + 10i and 5 + 10i + (i + 1) ε_c;
/// measured at most 0.018 above the lower bound; in clusters each interface may open to
/// 2 ε_c, measured at most 0.020 per interface) and within 0.1 cm sideways of where it was
/// placed (measured 0.025). With sleep off (the thesis) the same stack runs 2 s of resting
/// contact at a steady rate of impulses (measured 48 476 in all one at a time, 8 600 in
/// clusters; the bound is twice the first), without penetrating, its cubes creeping sideways
/// by less than 0.3 cm (measured 0.091).
///
/// The sideways creep is chaotic: over 12 stacks offset 0.30–0.41 cm per cube, the worst cube
/// moved 0.031 cm on average and 0.056 at most with sleep, 0.127 and 0.207 without, one contact
/// at a time; in clusters 0.058 and 0.108 with sleep, 0.142 and 0.229 without (free bodies
/// resting on each other lift relative to each other, so the hops grow up the stack: see
/// docs/sources.md, "Simultaneous microcollisions"). The bounds are about twice those largest
/// values, so that a change which only reshuffles the chaos does not fail the test and a
/// systematic creep does.
#[test]
fn a_stack_of_five_cubes_settles_and_sleeps_where_the_thesis_ground_to_a_halt() {
    for clusters in [
        MicrocollisionClusters::Sequential,
        MicrocollisionClusters::Simultaneous,
    ] {
        let stack = |sleep: bool| {
            let mut world = world_in(sleep, clusters);
            ground(&mut world, MATERIAL);
            let cubes: Vec<(BodyId, f64)> = (0..5)
                .map(|i| {
                    let (x, bottom) = (0.3 * f64::from(i), f64::from(i) * (10.0 + EPSILON));
                    (cube(&mut world, &format!("cube {i}"), x, bottom), x)
                })
                .collect();
            (world, cubes)
        };
        // A resting body hops (rebound)² ε_c above where it touches: ε_c/16 one contact at a
        // time, ε_c/4 in clusters. In clusters a body on another free body is held up to 2 ε_c
        // above it (a pair just beyond the envelope is only let close slowly, see
        // docs/sources.md), so each interface may open twice as far.
        let simultaneous = clusters == MicrocollisionClusters::Simultaneous;
        let rebound = world(true).settings().rebound(simultaneous);
        let interface =
            if simultaneous { 2.0 } else { 1.0 } * EPSILON + rebound * rebound * EPSILON;
        let settled = |world: &World, cubes: &[(BodyId, f64)], sideways: f64| {
            assert!(world.max_penetration() <= EPSILON, "{clusters:?}");
            for (i, &(id, x)) in cubes.iter().enumerate() {
                let p = world.body(id).state().position;
                let above = p.z - (5.0 + 10.0 * i as f64);
                let highest = (i + 1) as f64 * interface;
                assert!(
                    (-1e-3..=highest).contains(&above),
                    "{clusters:?}: cube {i} at z = {}",
                    p.z
                );
                let moved = (p.x - x).hypot(p.y);
                assert!(
                    moved < sideways,
                    "{clusters:?}: cube {i} moved {moved} sideways"
                );
            }
        };
        let (mut world, cubes) = stack(true);
        world.advance_to(1.0).unwrap();
        assert!(
            cubes.iter().all(|&(id, _)| world.body(id).is_asleep()),
            "{clusters:?}"
        );
        let before = world.counters();
        world.advance_to(2.0).unwrap();
        let after = world.counters();
        assert_eq!(after["sleeps"], 1, "{clusters:?}: one island");
        assert_eq!(before["microcollisions"], after["microcollisions"]);
        settled(&world, &cubes, if simultaneous { 0.2 } else { 0.1 });

        let (mut world, cubes) = stack(false);
        world.advance_to(2.0).unwrap();
        let counters = world.counters();
        let impulses = counters["collisions"] + counters["microcollisions"];
        assert!(impulses < 100_000, "{clusters:?}: {impulses} impulses");
        settled(&world, &cubes, if simultaneous { 0.45 } else { 0.3 });
    }
}
