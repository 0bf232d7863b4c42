//! A material per ball and per striker in an assembly among free balls (issue 36): each
//! `[[balls]]` and `[[strikers]]` table may carry its own `restitution` and `friction`, and a
//! collision takes the mean of its two sides' values (`Material::mean`, the world's rule and
//! the solids mode's). Checked against closed-form bounce heights, and the keys at load.

use std::path::Path as FilePath;

use impulse::assembly::scene::parse;
use impulse::scene::Diagnostic;

const G: f64 = 9.81;

/// Two posts (m = 1), each held at its centre by a spherical joint and carrying a striker
/// sphere (r = 0.1) there, one of restitution 0.5; a ball (m = 0.2, r = 0.1) above each, its
/// lowest point 1 m above the striker's top. `lively` has restitution 0.9 and friction 0.4,
/// `plain` none of its own (`[contact]`'s 0.3 and 0); the second striker none either.
const SCENE: &str = r#"
[world]
gravity = [0, 0, -9.81]

[assembly]
step = 0.0001

[contact]
restitution = 0.3

[[bodies]]
name = "post_a"
mass = 1
inertia = [0.004, 0.004, 0.004]
position = [0, 0, 0]

[[bodies]]
name = "post_b"
mass = 1
inertia = [0.004, 0.004, 0.004]
position = [1, 0, 0]

[[joints]]
name = "pin_a"
type = "spherical"
body = "post_a"
anchor = [0, 0, 0]

[[joints]]
name = "pin_b"
type = "spherical"
body = "post_b"
anchor = [1, 0, 0]

[[strikers]]
body = "post_a"
center = [0, 0, 0]
radius = 0.1
restitution = 0.5

[[strikers]]
body = "post_b"
center = [1, 0, 0]
radius = 0.1

[[balls]]
name = "lively"
mass = 0.2
radius = 0.1
position = [0, 0, 1.2]
restitution = 0.9
friction = 0.4

[[balls]]
name = "plain"
mass = 0.2
radius = 0.1
position = [1, 0, 1.2]
"#;

fn errors(text: &str) -> Vec<Diagnostic> {
    match parse(FilePath::new("test.toml"), text) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    }
}

/// The balls fall 1 m onto the strikers. Each post is pinned at the striker's centre, so a
/// central impact on its top turns nothing: the ball rebounds as from a fixed sphere, at
/// −e times its approach, with e the mean of the ball's and the striker's restitution —
/// (0.9 + 0.5)/2 = 0.7 for `lively`, (0.3 + 0.3)/2 = 0.3 for `plain` (neither has its own).
/// Collisions are found after each step, the ball then sunk δ ≤ v h (h = 1e-4 s, v = 4.43
/// m/s: 0.44 mm) into the striker, so from the hit's state the apex gap above the striker is
/// e²(h₀ + δ) − δ exactly (ballistic flight): asserted to 1e-6 m (the collision integration
/// settles to 1e-8 of the approach; measured 6e-15 m), and within v h of the ideal e² h₀ =
/// 0.49 and 0.09 m (measured: sunk 0.34 mm, apexes 0.489827 and 0.089692 m). Friction
/// (`lively`'s contact has (0.4 + 0)/2 = 0.2) does nothing in a central impact; the keys and
/// the accessors are checked.
#[test]
fn balls_and_strikers_of_their_own_materials_bounce_to_their_closed_form_heights() {
    let scene = parse(FilePath::new("m.toml"), SCENE).unwrap();
    let mut sim = scene.with_balls().unwrap();
    let (lively, plain) = (sim.ball_material(0), sim.ball_material(1));
    assert_eq!((lively.restitution, lively.friction), (0.9, 0.4));
    assert_eq!((plain.restitution, plain.friction), (0.3, 0.0));
    let (a, b) = (sim.striker_material(0), sim.striker_material(1));
    assert_eq!((a.restitution, a.friction), (0.5, 0.0));
    assert_eq!((b.restitution, b.friction), (0.3, 0.0));
    let h0 = 1.0;
    let v_bound = (2.0 * G * h0).sqrt() * 1e-4;
    let mut apex = [f64::NAN; 2];
    let mut step = 0;
    while apex.iter().any(|a| a.is_nan()) && step < 20_000 {
        step += 1;
        let before = sim.hits.len();
        sim.advance_to(step as f64 * 1e-4).unwrap();
        for hit in &sim.hits[before..] {
            let ball = &sim.balls[hit.ball];
            let e = [0.7, 0.3][hit.ball];
            // The ball's state just after the hit: its height and rising speed.
            let top = 0.1 + 0.1;
            let depth = top - ball.position.z;
            let v_after = ball.velocity.z;
            let v_before = v_after - hit.impulse.z / ball.mass;
            assert!(
                (v_after + e * v_before).abs() < 1e-7 * v_before.abs(),
                "ball {}: {v_after} after {v_before}",
                hit.ball
            );
            let gap = -depth + v_after * v_after / (2.0 * G);
            let exact = e * e * (h0 + depth) - depth;
            println!(
                "ball {}: sunk {depth:e}, apex gap {gap} (exact {exact}, ideal {})",
                hit.ball,
                e * e * h0
            );
            assert!((gap - exact).abs() < 1e-6, "{gap} vs {exact}");
            assert!(
                (gap - e * e * h0).abs() < v_bound,
                "{gap} vs {}",
                e * e * h0
            );
            assert!(depth >= 0.0 && depth < v_bound, "sunk {depth}");
            apex[hit.ball] = gap;
        }
    }
    assert!(apex.iter().all(|a| a.is_finite()), "both bounced: {apex:?}");
}

/// The keys are checked at load, at the key and line: a restitution outside [0, 1] on a ball,
/// a negative friction on a striker, a non-finite restitution on a striker, an unknown key.
#[test]
fn ball_and_striker_material_keys_are_checked_at_load() {
    let first = |text: &str, key: &str, line: usize, says: &str| {
        let e = errors(text);
        assert!(
            !e.is_empty()
                && e[0].key == key
                && e[0].line == line
                && e[0].message.contains(says)
                && e[0].path.ends_with("test.toml"),
            "expected `{key}` at line {line} saying `{says}`, found {e:?}"
        );
    };
    first(
        &SCENE.replace("restitution = 0.9", "restitution = 1.5"),
        "balls[0].restitution",
        51,
        "in [0, 1]",
    );
    first(
        &SCENE.replace("friction = 0.4", "friction = -0.4"),
        "balls[0].friction",
        52,
        "≥ 0",
    );
    first(
        &SCENE.replace("restitution = 0.5", "restitution = nan"),
        "strikers[0].restitution",
        39,
        "finite",
    );
    first(
        &SCENE.replace(
            "radius = 0.1\n\n[[balls]]",
            "radius = 0.1\nfriction = -1\n\n[[balls]]",
        ),
        "strikers[1].friction",
        45,
        "≥ 0",
    );
}
