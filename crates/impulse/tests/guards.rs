//! Guards against runs that cost without bound or fail without naming the cause (issue 42):
//! each test is named after what went wrong, and failed on the code before its fix.

use std::path::Path;

use impulse::scene;
use impulse::world::SimulationError;

/// A scene read from text (meshes, if any, beside a made-up path).
fn load(text: &str) -> scene::Scene {
    scene::parse(Path::new("guards.toml"), text).unwrap_or_else(|e| panic!("{e}"))
}

/// A kinematic box 0.3 × 0.3 × 0.01 m spinning at `spin` rad/s about the vertical, and a ball
/// of radius 2 cm at rest 0.3 m from its axis, no gravity: the box's corners reach
/// √(0.15² + 0.15² + 0.005²) = 0.2122 m from the axis, so the two never come closer than
/// 0.3 − 0.02 − 0.2122 = 0.068 m.
fn spinning_beside_a_ball(spin: f64) -> scene::Scene {
    load(&format!(
        r#"
[world]
gravity = [0, 0, 0]
duration = 1.0
[[bodies]]
name = "platter"
motion = "kinematic"
shape = {{ type = "box", size = [0.3, 0.3, 0.01] }}
kinematic = {{ angular_velocity = [0, 0, {spin}] }}
[[bodies]]
name = "ball"
shape = {{ type = "sphere", radius = 0.02 }}
density = 7800
position = [0.3, 0, 0]
"#
    ))
}

#[test]
fn an_untouched_spinning_kinematic_body_costs_no_more_checks_than_a_still_one() {
    // Before the fix the pair was checked every gap/(reach ω): 50 checks at ω = 1 rad/s,
    // 21,410 at 1e4 and 2,140,930 at 1e6 over 1 s. The ball stays outside the ball the
    // platter turns in, so its checks now come once a box period (0.02 s) however fast it
    // spins: at most 50 + 1 over the second, at every speed.
    let mut checks = Vec::new();
    for spin in [1.0, 1e4, 1e6] {
        let mut scene = spinning_beside_a_ball(spin);
        scene.world.advance_to(1.0).unwrap();
        checks.push(scene.world.counters()["collision_checks"]);
    }
    assert!(
        checks.iter().all(|&c| c <= 51),
        "pair checks at ω = 1, 1e4, 1e6 rad/s: {checks:?}"
    );
}

#[test]
fn a_ball_landing_on_a_fast_spinning_platter_is_still_caught() {
    // The ball stays within the platter's ball (its centre 0.05 m from the axis): the sphere
    // bound gives nothing there, and the narrow phase's check times still catch the landing.
    // Dropped from 0.5 m under g = 9.81 it reaches the top face (z = 0.005 + 0.02) at
    // t = √(2 · 0.475 / 9.81) = 0.311 s, then is flung off by the spinning box.
    let mut scene = load(
        r#"
[world]
gravity = [0, 0, -9.81]
duration = 0.4
[[bodies]]
name = "platter"
motion = "kinematic"
shape = { type = "box", size = [0.3, 0.3, 0.01] }
kinematic = { angular_velocity = [0, 0, 100] }
[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.02 }
density = 7800
position = [0.05, 0, 0.5]
"#,
    );
    scene.world.advance_to(0.4).unwrap();
    assert!(scene.world.counters()["collisions"] + scene.world.counters()["microcollisions"] >= 1);
    let ball = scene.world.body(scene.world.body_id("ball").unwrap());
    // Caught within the envelope of the top face, not fallen through it (the ball never goes
    // below the face; it would be at z = 0.5 − ½ 9.81 · 0.4² = −0.285 m in free fall).
    assert!(
        ball.state().position.z > 0.02,
        "{:?}",
        ball.state().position
    );
}

#[test]
fn a_collision_too_stiff_to_integrate_stops_with_an_error_naming_the_bodies() {
    // The issue's cart: a 1e13 kg base and a 0.1 kg wheel landing on the ground. The wheel's
    // collision matrix spans 14 orders of magnitude (the base barely moves, the wheel turns
    // freely), so the sliding equations are stiff beyond an explicit integrator: each
    // collision ran into the 100,000-step cap and silently returned an unfinished impulse,
    // and the 0.2 s run took 37.6 million steps. It now stops at the first such collision,
    // naming the pair, the time and the stiffness.
    let mut scene = load(
        r#"
[world]
gravity = [0, 0, -9.81]
duration = 0.2
[materials.rubber]
friction = 0.9
restitution = 0.2
[[bodies]]
name = "ground"
motion = "fixed"
material = "rubber"
shape = { type = "halfspace" }
[[multibodies]]
name = "cart"
[[multibodies.links]]
name = "base"
material = "rubber"
shape = { type = "box", size = [0.3, 0.16, 0.04] }
mass = 1e13
position = [0, 0, 0.07]
[[multibodies.joints]]
type = "floating"
child = "base"
[[multibodies.links]]
name = "wheel"
material = "rubber"
shape = { type = "cylinder", radius = 0.05, height = 0.03, orientation = { axis = [1, 0, 0], angle = 90 } }
mass = 0.1
position = [0.12, 0.11, 0.0501]
[[multibodies.joints]]
type = "revolute"
parent = "base"
child = "wheel"
anchor = [0.12, 0.11, 0.0501]
axis = [0, 1, 0]
"#,
    );
    let error = scene.world.advance_to(0.2).unwrap_err();
    let SimulationError::StiffCollision {
        bodies,
        time,
        condition,
        ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(bodies, &("ground".to_string(), "cart/wheel".to_string()));
    // The wheel falls 0.1 mm: it lands after √(2 · 1e-4 / 9.81) = 4.5 ms, within the
    // envelope a little sooner.
    assert!(*time > 0.0 && *time < 4.6e-3, "{error}");
    assert!(*condition > 1e12, "{error}");
    let message = error.to_string();
    assert!(
        message.contains("too stiff") && message.contains("cart/wheel"),
        "{message}"
    );
}

#[test]
fn an_interrupt_stops_a_constraint_run_between_frames() {
    // The stack of ten under the constraint model: 10 s of held contact (6.8 s of wall time
    // in a release build, minutes in a debug one). Ctrl-C and SIGTERM were seen only between
    // output frames, so one frame for the whole run held the process to its end. Now the
    // flag stops the event loop between events and a group's flight between steps.
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/constraint/stack_of_ten.toml");
    let mut scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    scene.world.set_interrupt(&STOP);
    let setter = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        STOP.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let result = scene.world.advance_to(10.0);
    setter.join().unwrap();
    match result {
        Err(SimulationError::Interrupted { time }) => {
            assert!(time < 10.0, "stopped at t = {time}");
            // The world stays where its last whole advance left it.
            assert_eq!(scene.world.time(), 0.0);
        }
        other => panic!("expected an interruption, got {other:?}"),
    }
}

#[test]
fn the_convexity_check_by_edges_accepts_a_fine_sphere_and_refuses_a_dent() {
    // The hull's convexity is now checked edge by edge (O(E)) instead of every vertex against
    // every face (O(V·F): 87 s for 319k faces). It must still accept what is convex and, with
    // the volume test after it, refuse what is not. A geodesic sphere of 81,920 faces is one
    // convex piece whose hull is the mesh itself: the same volume (Mirtich's integrals of both,
    // to 1e-12). The same sphere with one vertex pushed 20 % towards the centre is refused
    // (its hull is larger by ~1.5e-5, over the 1e-6 allowed).
    use impulse::geometry::polyhedron::Polyhedron;
    use impulse::geometry::tessellate;
    let mesh = tessellate::geodesic_sphere(7);
    assert_eq!(mesh.faces.len(), 81_920);
    let volume = mesh.volume_integrals().t1;
    let solid = Polyhedron::from_convex_objects(mesh.clone(), Path::new("sphere.obj"))
        .unwrap_or_else(|e| panic!("{e}"));
    let hull_volume: f64 = solid.pieces().iter().map(|p| p.volume_integrals().t1).sum();
    assert!(
        (hull_volume / volume - 1.0).abs() < 1e-12,
        "{hull_volume} vs {volume}"
    );
    let mut dented = mesh;
    dented.vertices[100] = impulse::math::Point::from(dented.vertices[100].coords * 0.8);
    let error = Polyhedron::from_convex_objects(dented, Path::new("dented.obj")).unwrap_err();
    assert!(error.to_string().contains("is not convex"), "{error}");
}
