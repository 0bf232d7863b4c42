//! A ball rolling on the floor kept ±3.7 cm/s of slip for ever (issue 40): the thesis's
//! microcollision reverses the whole relative velocity, so whatever slip a contact has when
//! it comes to rest is flipped at every hop and never damped. A microcollision now leaves the
//! slip that averages zero over the hop after it (`response::contact`, `settled_slip`;
//! docs/sources.md, "Slip at rest"). Each test states where its expected value comes from.

use std::path::Path;

use impulse::World;

/// A 0.05 m ball (density 1000) on a fixed floor, friction 0.5, restitution 0, sleep off,
/// 0.5 mm above the floor with the given velocity and spin about y, under `model`, with
/// gravity `gravity`.
fn ball(model: &str, gravity: [f64; 3], velocity: f64, spin: f64) -> World {
    let text = format!(
        "[world]\nname = \"rolling\"\ncontact_model = \"{model}\"\nsleep = false\n\
         duration = 10.0\ngravity = {gravity:?}\n\
         [materials.wood]\nfriction = 0.5\nrestitution = 0.0\n\n\
         [[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"halfspace\" }}\n\n\
         [[bodies]]\nname = \"ball\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"sphere\", radius = 0.05 }}\ndensity = 1000.0\n\
         position = [0.0, 0.0, 0.0505]\nvelocity = [{velocity:?}, 0.0, 0.0]\n\
         angular_velocity = [0.0, {spin:?}, 0.0]\n"
    );
    match impulse::scene::parse(Path::new("rolling.toml"), &text) {
        Ok(parsed) => parsed.world,
        Err(e) => panic!("the rolling scene: {e}"),
    }
}

/// The ball's position along x, speed along x and slip: the velocity of its lowest point,
/// `v + ω × (−R ẑ)`, along x.
fn rolling(world: &World) -> (f64, f64, f64) {
    let ball = &world.bodies()[1];
    let state = ball.state();
    let slip = state.velocity.x - 0.05 * state.angular_velocity.y;
    (state.position.x, state.velocity.x, slip)
}

/// Samples the ball every millisecond from `from` to `to`: (times, positions, speeds, slips).
fn samples(world: &mut World, from: f64, to: f64) -> Vec<(f64, f64, f64, f64)> {
    let n = ((to - from) / 1e-3).round() as usize;
    (0..=n)
        .map(|k| {
            let t = from + k as f64 * 1e-3;
            if let Err(e) = world.advance_to(t) {
                panic!("stopped at t = {}: {e}", world.time());
            }
            let (x, v, slip) = rolling(world);
            (t, x, v, slip)
        })
        .collect()
}

#[test]
fn a_sliding_ball_rolls_on_without_slip() {
    // Thrown along the floor at 1 m/s without spin, μ = 0.5: friction brings it to rolling at
    // t = 2 v₀ / (7 μ g) = 0.058 s, at 5/7 of v₀ (angular momentum about the contact line;
    // closed form). From then on its slip, sampled every millisecond (every phase of the
    // ~14 ms hops), stays below 1e-4 m/s (the figure; before, ±3.7e-2).
    for model in ["impulse", "switching"] {
        let mut world = ball(model, [0.0, 0.0, -9.81], 1.0, 0.0);
        let run = samples(&mut world, 0.1, 1.0);
        let worst = run.iter().map(|s| s.3.abs()).fold(0.0, f64::max);
        assert!(worst < 1e-4, "{model}: slip up to {worst} m/s");
        for &(t, _, v, _) in &run {
            // 0.2 %: while it slides, its collisions act midway across the gap, up to ε/2
            // below its surface, so friction's lever differs from the radius by up to 1 %
            // (measured under the impulse model: 0.7146 against 0.7143; 0.7150 when the
            // rolling hops acted there too).
            assert!(
                (v - 5.0 / 7.0).abs() < 2e-3 * 5.0 / 7.0,
                "{model} at {t}: {v} m/s"
            );
        }
    }
}

#[test]
fn a_ball_rolls_down_a_slope_at_five_sevenths_of_g_sin_theta() {
    // A 10° slope (gravity tilted), the ball let go at rest: rolling without slip needs
    // μ ≥ (2/7) tan θ = 0.05 < 0.5, and it then runs x = (5/14) g sin θ t² (closed form). In
    // a hop the slip grows by g sin θ over the flight, so the reversal's mean slip is what is
    // asked of it: zero, to 1e-4 m/s over 1 s of millisecond samples. Under the thesis's
    // reversal, the slip the ball had when it first came to rest stays, flipped each hop.
    let theta = 10f64.to_radians();
    let gravity = [9.81 * theta.sin(), 0.0, -9.81 * theta.cos()];
    for model in ["impulse", "switching"] {
        let mut world = ball(model, gravity, 0.0, 0.0);
        let run = samples(&mut world, 0.5, 1.5);
        let mean = run.iter().map(|s| s.3).sum::<f64>() / run.len() as f64;
        assert!(mean.abs() < 1e-4, "{model}: mean slip {mean} m/s");
        let acceleration = 5.0 / 7.0 * 9.81 * theta.sin();
        let (t, x, _, _) = run[run.len() - 1];
        let expected = 0.5 * acceleration * t * t;
        assert!(
            (x - expected).abs() < 0.01 * expected,
            "{model}: x = {x} m at {t} s, closed form {expected}"
        );
    }
}

#[test]
fn a_ball_rolling_down_a_slope_never_gains_energy() {
    // The ball of the test above, let go at rest on the 10° slope, under the impulse model
    // (a closed world: nothing drives it, Stronge's law). Rolling without slip does no work,
    // so kinetic plus potential energy may not rise above the start's by more than the
    // integration's rounding (`ENERGY_TOLERANCE` of the energies' size: the engine's own
    // measure of "no gain"). Its microcollisions used to act midway across the gap, up to ε/2
    // below the ball's surface: friction spun the ball on a lever R + δ and did work there at
    // each hop, and the energy rose 8.5e-4 J in 1.5 s (3e-3 of the start's 0.255 J).
    let theta = 10f64.to_radians();
    let gravity = [9.81 * theta.sin(), 0.0, -9.81 * theta.cos()];
    let mut world = ball("impulse", gravity, 0.0, 0.0);
    let start = world.energy().total();
    for k in 1..=1500 {
        let t = f64::from(k) * 1e-3;
        if let Err(e) = world.advance_to(t) {
            panic!("stopped at t = {}: {e}", world.time());
        }
        let energy = world.energy();
        let rounding = impulse::world::ENERGY_TOLERANCE
            * (energy.kinetic + energy.potential.abs() + start.abs());
        assert!(
            energy.total() - start <= rounding,
            "at {t} s the energy is {} J above the start's {start}",
            energy.total() - start
        );
    }
    // It did roll: 0.5 (5/7) g sin θ t² = 1.37 m down the slope by 1.5 s (closed form, 1 %).
    let (x, _, _) = rolling(&world);
    let expected = 0.5 * 5.0 / 7.0 * 9.81 * theta.sin() * 1.5 * 1.5;
    assert!(
        (x - expected).abs() < 0.01 * expected,
        "x = {x} m, closed form {expected}"
    );
}
