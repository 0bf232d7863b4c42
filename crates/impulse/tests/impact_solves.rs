//! Impacts into bodies in contact (issue 40): a same-instant cascade of collisions is answered
//! by one simultaneous, perfectly inelastic solve over the bodies it reached
//! (`world::clusters`, `ClusterKind::Impact`), not one contact at a time until a guard stops
//! the run.

use std::path::Path;

use impulse::World;

/// Ball radius (m) and the pit's half width (m): peer scene a of `shared/peer-scenes.md`.
const RADIUS: f64 = 0.05;
const PIT_HALF: f64 = 0.5;

/// The first `n` balls of peer scene a (a 1 m pit, 9 × 9 balls a layer at a pitch of 0.105 m,
/// odd and even layers shifted by ±(0.02, 0.01) m), density 1000, friction 0.5, restitution 0,
/// every other key at its default.
fn ball_pit(n: usize) -> World {
    jittered_ball_pit(n, None, None)
}

/// [`ball_pit`] with each ball's x and y moved by up to `jitter.1` (m) either way, uniformly at
/// random from the PCG seed `jitter.0`, under contact model `model` (the default if none).
fn jittered_ball_pit(n: usize, jitter: Option<(u64, f64)>, model: Option<&str>) -> World {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(jitter.map_or(0, |j| j.0));
    let size = jitter.map_or(0.0, |j| j.1);
    let mut text = String::from("[world]\nname = \"pit\"\n");
    if let Some(model) = model {
        text.push_str(&format!("contact_model = \"{model}\"\n"));
    }
    text.push_str(
        "duration = 5.0\n\n[materials.pile]\nfriction = 0.5\n\
         restitution = 0.0\n\n[[bodies]]\nname = \"ground\"\nmotion = \"fixed\"\n\
         material = \"pile\"\nshape = { type = \"halfspace\" }\n",
    );
    let (t, h) = (0.1, 3.0);
    let c = PIT_HALF + t / 2.0;
    let (long, short) = (2.0 * (PIT_HALF + t), 2.0 * PIT_HALF);
    let walls = [
        ([c, 0.0, h / 2.0], [t, long, h]),
        ([-c, 0.0, h / 2.0], [t, long, h]),
        ([0.0, c, h / 2.0], [short, t, h]),
        ([0.0, -c, h / 2.0], [short, t, h]),
    ];
    for (i, (centre, size)) in walls.iter().enumerate() {
        text.push_str(&format!(
            "\n[[bodies]]\nname = \"wall {i}\"\nmotion = \"fixed\"\nmaterial = \"pile\"\n\
             shape = {{ type = \"box\", size = {size:?} }}\nposition = {centre:?}\n"
        ));
    }
    for b in 0..n {
        let (k, i, j) = (b / 81, (b % 81) / 9, b % 9);
        let s = if k % 2 == 1 { 1.0 } else { -1.0 };
        let mut centre = [
            -0.42 + 0.105 * i as f64 + 0.02 * s,
            -0.42 + 0.105 * j as f64 + 0.01 * s,
            0.1 + 0.105 * k as f64,
        ];
        if size > 0.0 {
            centre[0] += rng.random_range(-size..size);
            centre[1] += rng.random_range(-size..size);
        }
        text.push_str(&format!(
            "\n[[bodies]]\nname = \"b{b}\"\nmaterial = \"pile\"\n\
             shape = {{ type = \"sphere\", radius = {RADIUS:?} }}\ndensity = 1000.0\n\
             position = {centre:?}\n"
        ));
    }
    match impulse::scene::parse(Path::new("pit.toml"), &text) {
        Ok(parsed) => parsed.world,
        Err(e) => panic!("the pit scene: {e}"),
    }
}

/// Kinetic plus gravitational potential energy of the world's bodies (J).
fn energy(world: &World) -> f64 {
    let g = world.settings().gravity;
    world
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| b.kinetic_energy() - b.mass() * g.dot(&b.center_of_mass().coords))
        .sum()
}

/// Advances the pit to `until` in steps of 0.01 s, panicking with the time if it stops, and
/// returns the highest energy seen at those steps.
fn run_pit(world: &mut World, until: f64) -> f64 {
    let mut highest = energy(world);
    let steps = (until / 0.01).round() as usize;
    for k in 1..=steps {
        if let Err(e) = world.advance_to(0.01 * k as f64) {
            panic!("the pit stopped at t = {}: {e}", world.time());
        }
        highest = highest.max(energy(world));
    }
    highest
}

/// Every ball still in the pit and above the ground, and no overlap deeper than the collision
/// envelope (1e-3 m, the engine's default; deeper stops a run).
fn assert_every_ball_inside(world: &World) {
    let epsilon = world.settings().collision_epsilon;
    for body in world.bodies().iter().filter(|b| b.is_dynamic()) {
        let p = body.state().position;
        assert!(
            p.x.abs() < PIT_HALF && p.y.abs() < PIT_HALF && p.z > RADIUS - epsilon,
            "{} left the pit: {p:?}",
            body.name()
        );
    }
    let deepest = world.max_penetration();
    assert!(deepest <= epsilon, "deepest overlap {deepest} m");
}

#[test]
fn a_ball_pit_runs_on_where_a_same_instant_cascade_stopped_it() {
    // Before impacts were solved together, this pit of 200 balls stopped at t = 0.2195 s
    // ("collisions between `b14` and `b86` keep setting off others ... without end"): the
    // second layer landing on the first set off more than the guard's 10 000 + 1 000 N
    // one-at-a-time responses at one instant.
    let mut world = ball_pit(200);
    let start = energy(&world);
    let highest = run_pit(&mut world, 1.0);
    let counters = world.counters();
    assert!(
        counters.impact_solves > 0,
        "the landing's cascades answered by impact solves: {counters:?}"
    );
    // Restitution 0 and a pile coming to rest: the energy can only fall. A margin of one
    // microcollision rebound per ball would be m g ε each (0.5 kg · 9.81 · 1e-3 m ≈ 5 mJ);
    // none is needed.
    assert!(
        highest <= start,
        "energy rose above its start: {highest} J > {start} J"
    );
    assert!(
        energy(&world) < start - 1.0,
        "the pile fell and lost energy"
    );
    assert_every_ball_inside(&world);
}

#[test]
fn an_impact_reaching_sleeping_balls_wakes_them_instead_of_going_on_one_contact_at_a_time() {
    // Regression (issue 40). Peer scene a, 500 balls, sleep on (the default), each ball moved
    // by at most 1 µm (seed 2). An impact solve that reached a sleeping ball was refused under
    // the impulse model, and the cascade went on one contact at a time until the guard
    // stopped the run: "collisions between `b24` and `b105` keep setting off others at
    // t = 0.9752 ... without end". (4 of 6 such jittered pits stopped between 1.2 and 1.9 s;
    // the unjittered one ran its 5 s.) Now the impact wakes the sleepers and takes them in.
    // Under the impulse model by name: under switching (now the default) impacts already took
    // sleepers in.
    let mut world = jittered_ball_pit(500, Some((2, 1e-6)), Some("impulse"));
    let start = energy(&world);
    let highest = run_pit(&mut world, 1.1);
    assert!(world.counters().impact_solves > 0);
    // Restitution 0: the energy never rises above its start (as in the test above).
    assert!(highest <= start, "energy rose: {highest} J > {start} J");
    assert_every_ball_inside(&world);
}
