//! A material per ball and per striker in an assembly among free balls (issue 36): each
//! `[[balls]]` and `[[strikers]]` table may carry its own `restitution` and `friction`, and a
//! collision takes the mean of its two sides' values (`Material::mean`, the world's rule and
//! the solids mode's). Checked against closed-form bounce heights, oblique impacts that slide
//! or stick, and the keys at load.

mod common;

use std::path::Path as FilePath;

use common::assemblies::assert_first_error;
use impulse::assembly::balls::{AssemblyWithBalls, Hit};
use impulse::assembly::scene::parse;
use impulse::math::Vec3;

const G: f64 = 9.81;
/// The balls' and strikers' radius; the balls' mass.
const R: f64 = 0.1;
const M_BALL: f64 = 0.2;
/// The step (s).
const STEP: f64 = 1e-4;

/// The scene's header: gravity, the step, and `[contact]`'s restitution 0.3 (friction 0) for
/// a ball or striker without its own.
const HEADER: &str = r#"
[world]
gravity = [0, 0, -9.81]

[assembly]
step = 0.0001

[contact]
restitution = 0.3
"#;

/// How a post is held at its centre `(x, 0, 0)`.
#[derive(Clone, Copy)]
enum Hold {
    /// By a spherical joint: it may turn about its centre.
    Pinned,
    /// By a revolute joint about y and an angle driver holding its angle at 0: fixed.
    Fixed,
}

/// One post and the ball that falls on it: post `post` (m = 1, I = 0.004) at `(x, 0, 0)`, held
/// there by `hold`, carrying a striker sphere (r = R) at its centre with the keys
/// `striker_keys`; ball `ball` (m = M_BALL, r = R) at rest at `ball_at` with the keys
/// `ball_keys`.
fn post_and_ball(
    post: &str,
    x: f64,
    hold: Hold,
    striker_keys: &str,
    ball: &str,
    ball_at: Vec3,
    ball_keys: &str,
) -> String {
    let joints = match hold {
        Hold::Pinned => {
            format!("type = \"spherical\"\nbody = \"{post}\"\nanchor = [{x}, 0, 0]\n")
        }
        Hold::Fixed => format!(
            "type = \"revolute\"\nbody = \"{post}\"\nanchor = [{x}, 0, 0]\naxis = [0, 1, 0]\n\n\
             [[joints]]\ntype = \"angle_driver\"\nbody = \"{post}\"\naxis = [0, 1, 0]\nangle = [0]\n"
        ),
    };
    format!(
        r#"
[[bodies]]
name = "{post}"
mass = 1
inertia = [0.004, 0.004, 0.004]
position = [{x}, 0, 0]

[[joints]]
{joints}
[[strikers]]
body = "{post}"
center = [{x}, 0, 0]
radius = {R}
{striker_keys}
[[balls]]
name = "{ball}"
mass = {M_BALL}
radius = {R}
position = [{}, {}, {}]
{ball_keys}"#,
        ball_at.x, ball_at.y, ball_at.z
    )
}

/// Two posts, each pinned at its centre, with a ball above each, its lowest point 1 m above
/// the striker's top. The first striker has restitution 0.5; ball `lively` has restitution 0.9
/// and friction 0.4, `plain` none of its own (`[contact]`'s 0.3 and 0); the second striker none
/// either.
fn drops() -> String {
    let top = 2.0 * R + 1.0;
    HEADER.to_string()
        + &post_and_ball(
            "post_a",
            0.0,
            Hold::Pinned,
            "restitution = 0.5\n",
            "lively",
            Vec3::new(0.0, 0.0, top),
            "restitution = 0.9\nfriction = 0.4\n",
        )
        + &post_and_ball(
            "post_b",
            1.0,
            Hold::Pinned,
            "",
            "plain",
            Vec3::new(1.0, 0.0, top),
            "",
        )
}

/// Steps `sim` one grid step at a time until `count` hits have happened (at most `until`
/// seconds), handing each new hit to `each`.
fn run_until_hits(
    sim: &mut AssemblyWithBalls,
    count: usize,
    until: f64,
    mut each: impl FnMut(&AssemblyWithBalls, &Hit),
) {
    let mut step = 0;
    while sim.hits.len() < count && sim.time() < until {
        step += 1;
        let before = sim.hits.len();
        sim.advance_to(step as f64 * STEP).unwrap();
        for hit in &sim.hits[before..] {
            each(sim, hit);
        }
    }
    assert!(
        sim.hits.len() >= count,
        "{} hits by {until} s",
        sim.hits.len()
    );
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
    let scene = parse(FilePath::new("m.toml"), &drops()).unwrap();
    let mut sim = scene.with_balls().unwrap();
    let (lively, plain) = (sim.ball_material(0), sim.ball_material(1));
    assert_eq!((lively.restitution, lively.friction), (0.9, 0.4));
    assert_eq!((plain.restitution, plain.friction), (0.3, 0.0));
    let (a, b) = (sim.striker_material(0), sim.striker_material(1));
    assert_eq!((a.restitution, a.friction), (0.5, 0.0));
    assert_eq!((b.restitution, b.friction), (0.3, 0.0));
    let h0 = 1.0;
    let v_bound = (2.0 * G * h0).sqrt() * STEP;
    let mut apex = [f64::NAN; 2];
    run_until_hits(&mut sim, 2, 2.0, |sim, hit| {
        let ball = &sim.balls[hit.ball];
        let e = [0.7, 0.3][hit.ball];
        // The ball's state just after the hit: its height and rising speed.
        let top = R + R;
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
    });
    assert!(apex.iter().all(|a| a.is_finite()), "both bounced: {apex:?}");
}

/// Two balls fall 0.5 m from rest onto fixed strikers (each post held by a revolute joint and
/// an angle driver at 0), their centres R = 0.1 m to the side of the strikers', so that they
/// strike at 30° from the normal: sin θ = R / 2R at first touch (the hit, found after the
/// step, is taken in the normal n through the centres at that instant). Restitution is the
/// mean of ball and striker, (0.6 + 0.4)/2 = 0.5 for both, and friction the mean too:
///
/// - `slider` (μ 0.1) on a striker of μ 0: μ = 0.05. A non-spinning solid ball (I = 2/5 m R²)
///   meeting a fixed surface has the collision matrix 1/m along n and 7/(2m) across it (no
///   coupling), so its slip keeps its direction, and it slides throughout when μ (1 + e) |u_n|
///   < (2/7) |u_t| (0.075 |u| against 0.143 |u| here). Coulomb then gives the normal impulse
///   (1 + e) m |u_n| (Stronge's law and Newton's agree without coupling) and the tangential
///   impulse μ times it, against the slip: the centre's tangential velocity falls by
///   μ (1 + e) |u_n| (Routh's sliding impact).
/// - `sticker` (μ 0.9) on a striker of μ 0.5: μ = 0.7, far above (2/7) |u_t| / ((1 + e) |u_n|)
///   = 0.11. The slip stops during compression and stays stopped (no coupling), so the ball
///   leaves rolling on the contact: its centre keeps 5/7 of its tangential velocity and its
///   contact point's tangential velocity is zero.
///
/// Asserted to 1e-7 of the approach speed (the collision integration holds each step to 1e-8
/// of it): the normal and tangential impulses, the tangential velocities, and that the posts
/// do not move (1e-12 m/s). Measured: sin θ = 0.500167 (the hit found 0.34 mm deep), normal
/// impulses and tangential velocities off by 2e-16 N s and 7e-16 m/s; the slider still slips
/// at 0.85 m/s after, the sticker at 5e-16 m/s.
#[test]
fn oblique_impacts_slide_or_stick_with_the_mean_friction_of_ball_and_striker() {
    let (side, fall) = (R, 0.5);
    let above = (4.0 * R * R - side * side).sqrt() + fall;
    let text = HEADER.to_string()
        + &post_and_ball(
            "slide_post",
            0.0,
            Hold::Fixed,
            "restitution = 0.4\nfriction = 0\n",
            "slider",
            Vec3::new(side, 0.0, above),
            "restitution = 0.6\nfriction = 0.1\n",
        )
        + &post_and_ball(
            "stick_post",
            1.0,
            Hold::Fixed,
            "restitution = 0.4\nfriction = 0.5\n",
            "sticker",
            Vec3::new(1.0 + side, 0.0, above),
            "restitution = 0.6\nfriction = 0.9\n",
        );
    let scene = parse(FilePath::new("oblique.toml"), &text).unwrap();
    let mut sim = scene.with_balls().unwrap();
    // Each side's own; the impacts below take the means, μ = 0.05 and 0.7, e = 0.5.
    for (b, ball, striker) in [(0, 0.1, 0.0), (1, 0.9, 0.5)] {
        let (x, y) = (sim.ball_material(b), sim.striker_material(b));
        assert_eq!((x.friction, x.restitution), (ball, 0.6));
        assert_eq!((y.friction, y.restitution), (striker, 0.4));
    }
    let e = 0.5;
    let mut seen = [false; 2];
    run_until_hits(&mut sim, 2, 1.0, |sim, hit| {
        let b = hit.ball;
        assert_eq!(hit.striker, Some(b));
        seen[b] = true;
        let ball = &sim.balls[b];
        let centre = sim.striker_center(b);
        let n = (ball.position - centre).normalize();
        let p = hit.impulse;
        // The ball before the hit: falling, not spinning.
        let v_before = ball.velocity - p / M_BALL;
        let u_n = v_before.dot(&n);
        let u_t = v_before - n * u_n;
        let speed = v_before.norm();
        let t = u_t / u_t.norm();
        let p_n = p.dot(&n);
        let p_t = p - n * p_n;
        // Routh: the normal impulse of a frictionless-coupled impact.
        let normal_exact = (1.0 + e) * M_BALL * -u_n;
        // The ball's contact point after: its centre's velocity plus ω × (−R n).
        let v_after = ball.velocity;
        let contact = v_after + ball.angular_velocity.cross(&(-n * R));
        let slip_after = contact - n * contact.dot(&n);
        println!(
            "ball {b}: sin θ {:.6}, u_n {u_n:.6}, |u_t| {:.6}, P_n {p_n:.9} (exact {normal_exact:.9}), \
             |P_t| {:.9}, tangential velocity after {:.9}, slip after {:e}",
            u_t.norm() / speed,
            u_t.norm(),
            p_t.norm(),
            v_after.dot(&t),
            slip_after.norm()
        );
        assert!(
            (p_n - normal_exact).abs() < 1e-7 * M_BALL * speed,
            "normal impulse {p_n} vs {normal_exact}"
        );
        let exact = if b == 0 {
            u_t.norm() - 0.05 * (1.0 + e) * -u_n
        } else {
            5.0 / 7.0 * u_t.norm()
        };
        println!(
            "ball {b}: normal impulse off by {:e} N s, tangential velocity by {:e} m/s",
            p_n - normal_exact,
            v_after.dot(&t) - exact
        );
        if b == 0 {
            // Sliding throughout: P_t = μ P_n against the slip; Δv_t = μ (1 + e) |u_n|.
            let mu = 0.05;
            assert!(mu * (1.0 + e) * -u_n < 2.0 / 7.0 * u_t.norm(), "slides");
            assert!(
                (p_t + t * (mu * normal_exact)).norm() < 1e-7 * M_BALL * speed,
                "tangential impulse {p_t:?} vs {}",
                mu * normal_exact
            );
            assert!(
                (v_after.dot(&t) - exact).abs() < 1e-7 * speed,
                "tangential velocity {} vs {exact}",
                v_after.dot(&t)
            );
            assert!(slip_after.norm() > 0.1 * speed, "still slipping");
        } else {
            // Rolling on the contact after: the centre keeps 5/7 of its tangential velocity.
            assert!(
                (v_after.dot(&t) - exact).abs() < 1e-7 * speed,
                "tangential velocity {} vs {exact}",
                v_after.dot(&t)
            );
            assert!(slip_after.norm() < 1e-7 * speed, "slip {slip_after:?}");
        }
        // The posts are fixed: the impulse moves neither.
        for post in sim.assembly.bodies() {
            assert!(post.velocity().norm() < 1e-12 && post.angular_velocity().norm() < 1e-12);
        }
    });
    assert_eq!(seen, [true, true]);
}

/// The line of `text` (from 1) that reads `line` exactly.
fn line_of(text: &str, line: &str) -> usize {
    text.lines().position(|l| l == line).expect("the line") + 1
}

/// The keys are checked at load, at the key and line: a restitution outside [0, 1] on a ball,
/// a negative friction on a ball and on a striker, a non-finite restitution on a striker.
#[test]
fn ball_and_striker_material_keys_are_checked_at_load() {
    let scene = drops();
    let with = |from: &str, to: &str| scene.replacen(from, to, 1);
    assert_first_error(
        &with("restitution = 0.9", "restitution = 1.5"),
        "balls[0].restitution",
        line_of(&scene, "restitution = 0.9"),
        "in [0, 1]",
    );
    assert_first_error(
        &with("friction = 0.4", "friction = -0.4"),
        "balls[0].friction",
        line_of(&scene, "friction = 0.4"),
        "≥ 0",
    );
    assert_first_error(
        &with("restitution = 0.5", "restitution = nan"),
        "strikers[0].restitution",
        line_of(&scene, "restitution = 0.5"),
        "finite",
    );
    // The second striker's table ends at its radius.
    let second = scene
        .rfind("radius = 0.1\n\n[[balls]]")
        .expect("the second striker");
    let mut text = scene.clone();
    text.insert_str(second + "radius = 0.1\n".len(), "friction = -1\n");
    let line = text[..second].lines().count() + 2;
    assert_first_error(&text, "strikers[1].friction", line, "≥ 0");
}
