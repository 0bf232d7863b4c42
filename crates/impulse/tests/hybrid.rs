//! Hybrid simulation (Mirtich ch. 5): multibody links collide with free bodies, fixed bodies and
//! the links of other multibodies through the same collision impulses, the multibody taking the
//! impulse through its articulated collision matrix (§5.3.3) and propagating it (§5.3.4).
//!
//! Each case is checked against something independent: closed-form impact mechanics, the same
//! scene with the link replaced by a free rigid body, or conservation laws. SI units.

mod common;

use std::path::Path;

use common::scenes::world_without_warnings;
use common::worlds::{kinetic_energy, momentum};
use impulse::World;
use impulse::scene;

fn world(text: &str) -> World {
    world_without_warnings(scene::parse(Path::new("hybrid.toml"), text))
}

/// A ball thrown off-centre at a box, with friction; the box either a free body or the single
/// floating link of a multibody. No gravity.
fn ball_and_box(box_as_link: bool) -> String {
    let target = if box_as_link {
        r#"
[[multibodies]]
name = "floater"
[[multibodies.links]]
name = "box"
shape = { type = "box", size = [0.2, 0.3, 0.4] }
mass = 2.0
position = [0, 0, 0]
friction = 0.4
restitution = 0.7
[[multibodies.joints]]
type = "floating"
child = "box"
"#
    } else {
        r#"
[[bodies]]
name = "box"
shape = { type = "box", size = [0.2, 0.3, 0.4] }
mass = 2.0
position = [0, 0, 0]
friction = 0.4
restitution = 0.7
"#
    };
    format!(
        r#"
[world]
gravity = [0, 0, 0]
collision_epsilon = 1e-5

[[bodies]]
name = "ball"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 1.0
position = [-0.4, 0.07, 0.11]
velocity = [3.0, 0.4, -0.2]
angular_velocity = [0, 5, 10]
friction = 0.4
restitution = 0.7
{target}"#
    )
}

/// An off-centre frictional impact on a floating link: the ball's and the multibody's momenta
/// add up to what they were (the collision's impulses are equal and opposite at one point),
/// and the outcome equals the same impact on a free rigid body (V20: a lone floating link's
/// collision matrix is the rigid body's K), which is simulated by a different code path.
#[test]
fn a_ball_hitting_a_floating_link_moves_it_as_if_it_were_a_free_body() {
    let mut hybrid = world(&ball_and_box(true));
    let mut rigid = world(&ball_and_box(false));
    hybrid.advance_to(0.3).unwrap();
    rigid.advance_to(0.3).unwrap();
    let events = hybrid.take_events();
    assert_eq!(events.len(), 1, "one collision: {events:?}");
    assert_eq!(rigid.take_events().len(), 1);

    // Conservation across the impact, compared just before and just after it (in flight the
    // link's momentum carries the integrator's 1e-11 error): rounding only.
    let at_impact = events[0].time;
    let mut fresh = world(&ball_and_box(true));
    fresh.advance_to(at_impact * (1.0 - 1e-12)).unwrap();
    let before = momentum(&fresh);
    let energy_before = kinetic_energy(&fresh);
    fresh.advance_to(at_impact).unwrap();
    assert_eq!(fresh.take_events().len(), 1);
    let after = momentum(&fresh);
    let scale = 3.0; // |p| ~ the ball's 3 kg m/s, lever arms ~0.1 m
    assert!(
        (after.0 - before.0).norm() < 1e-13 * scale,
        "{before:?} {after:?}"
    );
    assert!(
        (after.1 - before.1).norm() < 1e-13 * scale,
        "{before:?} {after:?}"
    );
    assert!(kinetic_energy(&fresh) < energy_before);

    // Same outcome as the rigid-body collision. Both bodies' flights are integrated to 1e-10
    // relative, so agreement to 1e-7 of the speeds involved is the integrators', not physics'.
    let ball = |w: &World| w.body(w.body_id("ball").unwrap()).state().velocity;
    let link = hybrid.multibody(hybrid.multibody_id("floater").unwrap());
    let (link_v, link_w) = link.link_velocity(0);
    let free = rigid.body(rigid.body_id("box").unwrap()).state();
    assert!(
        (ball(&hybrid) - ball(&rigid)).norm() < 1e-7 * scale,
        "{} vs {}",
        ball(&hybrid),
        ball(&rigid)
    );
    assert!(
        (link_v - free.velocity).norm() < 1e-7 * scale,
        "{link_v} vs {}",
        free.velocity
    );
    assert!(
        (link_w - free.angular_velocity).norm() < 1e-6 * scale,
        "{link_w} vs {}",
        free.angular_velocity
    );
    // The ball did hit off-centre: the box spins.
    assert!(link_w.norm() > 0.5, "{link_w}");
}

/// A frictionless ball strikes a hanging pendulum at rest, a distance `d` below its pivot.
/// Angular momentum about the pivot and Newton's/Stronge's law (no friction: they agree) give
/// `ω' = m d v (1 + e) / (I + m d²)` and `v' = v (m d² − e I) / (I + m d²)`, with `I` the
/// pendulum's moment of inertia about the pivot.
#[test]
fn a_ball_striking_a_pendulum_leaves_it_swinging_as_closed_form_says() {
    let (m, v, e, d) = (0.5, 2.0, 0.6, 0.8);
    let text = format!(
        r#"
[world]
gravity = [0, 0, 0]
collision_epsilon = 1e-5

[[bodies]]
name = "ball"
shape = {{ type = "sphere", radius = 0.05 }}
mass = {m}
position = [-0.3, 0, {z}]
velocity = [{v}, 0, 0]
friction = 0
restitution = {e}

[[multibodies]]
name = "pendulum"
[[multibodies.links]]
name = "rod"
shape = {{ type = "box", size = [0.02, 0.1, 1.0] }}
mass = 1.5
position = [0, 0, -0.5]
friction = 0
restitution = {e}
[[multibodies.joints]]
type = "revolute"
child = "rod"
anchor = [0, 0, 0]
axis = [0, 1, 0]
"#,
        z = -d
    );
    let mut world = world(&text);
    world.advance_to(0.2).unwrap();
    assert_eq!(world.take_events().len(), 1);
    // Box inertia about its centre (y axis): M (a² + c²) / 12, plus M r² to the pivot.
    let inertia = 1.5 * (0.02f64.powi(2) + 1.0) / 12.0 + 1.5 * 0.25;
    let omega_expected = m * d * v * (1.0 + e) / (inertia + m * d * d);
    let v_expected = v * (m * d * d - e * inertia) / (inertia + m * d * d);
    let pendulum = world.multibody(world.multibody_id("pendulum").unwrap());
    // A positive angle about +y swings the rod's lower end towards −x: R_y(θ)(0, 0, −1) =
    // (−sin θ, 0, −cos θ). The ball pushes it towards +x.
    let omega = -pendulum.v()[0];
    let ball = world.body(world.body_id("ball").unwrap()).state().velocity;
    assert!(
        (omega - omega_expected).abs() < 1e-9 * omega_expected,
        "ω {omega} vs {omega_expected}"
    );
    assert!(
        (ball.x - v_expected).abs() < 1e-9 * v,
        "v {} vs {v_expected}",
        ball.x
    );
    assert!(ball.yz().norm() < 1e-12);
}

/// Two equal pendulums, side by side; one swings into the other at the bottom of its arc
/// (towards +x: a negative rate about +y).
/// Elastic and frictionless: kinetic energy is kept to rounding (Stronge's law, e = 1), and
/// as for equal balls on strings the striker stops and the other takes its whole swing,
/// exactly so for a head-on hit (here tilted by the 1e-4 rad the striker turns before the
/// hit, so to 1e-3).
#[test]
fn two_pendulums_exchange_their_swing_through_link_link_collision() {
    let pendulum = |name: &str, x: f64, rate: f64| {
        format!(
            r#"
[[multibodies]]
name = "{name}"
[[multibodies.links]]
name = "bob"
shape = {{ type = "sphere", radius = 0.05 }}
mass = 1.0
position = [{x}, 0, -1.0]
friction = 0
restitution = 1
[[multibodies.joints]]
type = "revolute"
child = "bob"
anchor = [{x}, 0, 0]
axis = [0, 1, 0]
initial_velocity = {rate}
"#
        )
    };
    let text = format!(
        "[world]\ngravity = [0, 0, 0]\ncollision_epsilon = 1e-5\n{}{}",
        pendulum("striker", 0.0, -1.0),
        pendulum("struck", 0.1001, 0.0)
    );
    let mut world = world(&text);
    let energy = kinetic_energy(&world);
    world.advance_to(0.05).unwrap();
    let events = world.take_events();
    assert_eq!(events.len(), 1, "{events:#?}");
    let energy_after = kinetic_energy(&world);
    eprintln!(
        "{events:#?} {:?} {:?}",
        world.multibodies()[0].v(),
        world.multibodies()[1].v()
    );
    assert!(
        (energy_after - energy).abs() < 1e-12 * energy,
        "{energy} → {energy_after}"
    );
    let rate = |name: &str| world.multibody(world.multibody_id(name).unwrap()).v()[0];
    assert!(rate("striker").abs() < 1e-3, "striker {}", rate("striker"));
    assert!(
        (rate("struck") + 1.0).abs() < 1e-3,
        "struck {}",
        rate("struck")
    );
}

/// A box on a floating joint dropped on the ground bounces, comes to rest on its face through
/// microcollisions, and stays there: the same resting contact as a free box, through links.
/// As for the free box (`impulse_contact::dropped_box_comes_to_rest_and_stays`) the drift is a
/// random walk of microcollisions growing as √ε: at ε = 1e-3 of the box's size it measured
/// 0.9e-4 m in 2 s with the thesis's pure reversal and 1.6e-4 m with the rebound (longer
/// flights), at 1e-4 of its size 1.2e-5 m.
#[test]
fn a_floating_link_dropped_on_the_ground_comes_to_rest() {
    let epsilon = 1e-5;
    let text = format!(
        r#"
[world]
gravity = [0, 0, -9.81]
collision_epsilon = {epsilon}

[[bodies]]
name = "ground"
motion = "fixed"
shape = {{ type = "halfspace" }}
friction = 0.5
restitution = 0.5

[[multibodies]]
name = "crate"
[[multibodies.links]]
name = "box"
shape = {{ type = "box", size = [0.1, 0.1, 0.1] }}
mass = 1.0
position = [0, 0, 0.2]
orientation = {{ axis = [1, 1, 0], angle = 20 }}
friction = 0.5
restitution = 0.5
[[multibodies.joints]]
type = "floating"
child = "box"
"#
    );
    let mut world = world(&text);
    world.advance_to(2.0).unwrap();
    let crate_id = world.multibody_id("crate").unwrap();
    let centre = |w: &World| w.multibody(crate_id).link_pose(0).translation.vector;
    let settled = centre(&world);
    world.advance_to(4.0).unwrap();
    let end = centre(&world);
    // Resting on a face: the centre is half the size above the ground, vibrating within
    // about the envelope (microcollisions rebound at half the threshold speed; measured
    // 0.65–1.3 ε above, as the free box of `impulse_contact` allows up to 2 ε).
    assert!(
        end.z > 0.05 && end.z < 0.05 + 2.0 * epsilon,
        "height {}",
        end.z
    );
    // No drift over two more seconds beyond 0.1% of the box's size.
    assert!(
        (end - settled).norm() < 1e-4,
        "drift {}",
        (end - settled).norm()
    );
    assert!(
        world.max_penetration() < epsilon,
        "{}",
        world.max_penetration()
    );
    let (v, _) = world.multibody(crate_id).link_velocity(0);
    // At rest up to the microcollision bounces, v ~ √(2 g ε) at most.
    assert!(
        v.norm() < (2.0 * 9.81 * epsilon).sqrt(),
        "speed {}",
        v.norm()
    );
}

/// Regression: `shapes.json` listed only the bodies while `trajectory.csv` also has a row per
/// link, so `impulse view` and `render` refused every hybrid run. Links now follow the bodies
/// in both, named `multibody/link`, with their shapes and mass.
#[test]
fn the_shapes_file_lists_links_in_trajectory_order() {
    use impulse::run::shapes::ShapesFile;
    use impulse::run::trajectory::TrajectoryWriter;
    let world = world(&ball_and_box(true));
    let shapes = ShapesFile::of_world("hybrid", &world);
    let mut rows = Vec::new();
    TrajectoryWriter::new(&mut rows)
        .unwrap()
        .write_frame(&world)
        .unwrap();
    let rows = String::from_utf8(rows).unwrap();
    let trajectory_names: Vec<&str> = rows
        .lines()
        .filter_map(|l| l.split(',').nth(1))
        .filter(|name| *name != "body")
        .collect();
    let shape_names: Vec<&str> = shapes.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(shape_names, trajectory_names);
    assert_eq!(shape_names, ["ball", "floater/box"]);
    let link = &shapes.bodies[1];
    assert_eq!((link.mass, link.shapes.len()), (2.0, 1));
    // A 0.2 × 0.3 × 0.4 box of 2 kg: I_xx = m (b² + c²) / 12.
    assert!((link.inertia[0][0] - 2.0 * (0.09 + 0.16) / 12.0).abs() < 1e-12);
}
