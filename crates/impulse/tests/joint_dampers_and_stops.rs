//! Joint dampers and limit stops against their closed forms (issue 41, item 14: both worked
//! when tried, neither had a test).

mod common;

use std::path::Path;

use common::scenes;

/// A one-link multibody on a joint of the world, written as a scene.
fn world_with(link_shape: &str, mass: f64, joint: &str, gravity: [f64; 3]) -> impulse::World {
    let text = format!(
        "[world]\ngravity = [{}, {}, {}]\n\
         [[multibodies]]\nname = \"m\"\n\
         [[multibodies.links]]\nname = \"link\"\nshape = {link_shape}\nmass = {mass:?}\n\
         [[multibodies.joints]]\nchild = \"link\"\n{joint}\n",
        gravity[0], gravity[1], gravity[2]
    );
    scenes::parsed(Path::new("joints.toml"), &text).world
}

/// The joint's coordinate and rate at `t`.
fn state_at(world: &mut impulse::World, t: f64) -> (f64, f64) {
    world.advance_to(t).unwrap();
    let id = world.multibody_id("m").unwrap();
    let mb = world.multibody(id);
    (mb.q()[0], mb.v()[0])
}

/// A 2 kg block sliding at 1.5 m/s on a horizontal prismatic joint with a damper ρ = 3 N s/m
/// (gravity across the axis does no work): m v̇ = −ρ v, so v = v₀ e^{−ρt/m} and
/// q = v₀ (m/ρ) (1 − e^{−ρt/m}). Tolerance 1e-9 (the integrator's relative tolerance is 1e-10;
/// it was seen to match to 4e-12).
#[test]
fn a_prismatic_damper_slows_a_slider_exponentially() {
    let (m, rho, v0) = (2.0, 3.0, 1.5);
    let mut world = world_with(
        "{ type = \"box\", size = [0.1, 0.1, 0.1] }",
        m,
        &format!(
            "type = \"prismatic\"\naxis = [1, 0, 0]\ndamping = {rho:?}\ninitial_velocity = {v0:?}"
        ),
        [0.0, 0.0, -9.81],
    );
    for t in [0.25, 0.5, 1.0, 2.0, 4.0] {
        let (q, v) = state_at(&mut world, t);
        let decay = (-rho * t / m).exp();
        let (q_exact, v_exact) = (v0 * m / rho * (1.0 - decay), v0 * decay);
        assert!(
            (v - v_exact).abs() < 1e-9,
            "t = {t}: v = {v}, exact {v_exact}"
        );
        assert!(
            (q - q_exact).abs() < 1e-9,
            "t = {t}: q = {q}, exact {q_exact}"
        );
    }
}

/// A box 0.3 × 0.1 × 0.1 m of 2 kg spinning at 5 rad/s about a vertical revolute axis through
/// its centre, damper ρ = 0.01 N m s/rad: I ω̇ = −ρ ω with I = m (a² + b²)/12 = 0.01667 kg m²
/// about z, so ω = ω₀ e^{−ρt/I} and the angle is ω₀ (I/ρ) (1 − e^{−ρt/I}), in radians (the
/// joint reports radians). Tolerance 1e-9.
#[test]
fn a_revolute_damper_slows_a_spinning_link_exponentially() {
    let (m, rho, w0) = (2.0, 0.01, 5.0);
    let inertia = m * (0.3f64.powi(2) + 0.1f64.powi(2)) / 12.0;
    let mut world = world_with(
        "{ type = \"box\", size = [0.3, 0.1, 0.1] }",
        m,
        &format!(
            "type = \"revolute\"\naxis = [0, 0, 1]\ndamping = {rho:?}\ninitial_velocity = {w0:?}"
        ),
        [0.0, 0.0, -9.81],
    );
    for t in [0.5, 1.0, 3.0] {
        let (q, v) = state_at(&mut world, t);
        let decay = (-rho * t / inertia).exp();
        let (q_exact, v_exact) = (w0 * inertia / rho * (1.0 - decay), w0 * decay);
        assert!(
            (v - v_exact).abs() < 1e-9,
            "t = {t}: ω = {v}, exact {v_exact}"
        );
        assert!(
            (q - q_exact).abs() < 1e-9,
            "t = {t}: angle = {q}, exact {q_exact}"
        );
    }
}

/// A 2 kg block on a vertical prismatic joint falls 0.1 m onto its lower limit (0). The
/// automatic stop is a critically damped spring of natural frequency 100 cycles per unit time,
/// ω = 2π · 100 s⁻¹, at the joint's inertia m: k = m ω², c = 2 m ω (docs/scene-format.md).
/// Pressed by x below the limit, ẍ + 2ω ẋ + ω² x = g with x(0) = 0, ẋ(0) = v = √(2 g h), so
/// x(t) = (g/ω²)(1 − (1 + ωt) e^{−ωt}) + v t e^{−ωt}, deepest at t* = v / (v ω − g):
/// 0.8267 mm (the "0.34 mm" was another fall). Afterwards the block settles at the
/// static deflection g/ω² = 0.0248 mm. The run is sampled every 2 µs around the deepest point,
/// which brackets it to 2e-10 m (ẍ ≈ 320 m/s² there); tolerance 1e-9 m.
#[test]
fn a_limit_stop_catches_a_falling_slider_within_its_closed_form_overshoot() {
    let (m, g, h) = (2.0, 9.81, 0.1);
    let omega = std::f64::consts::TAU * 100.0;
    let mut world = world_with(
        "{ type = \"box\", size = [0.1, 0.1, 0.1] }",
        m,
        &format!(
            "type = \"prismatic\"\naxis = [0, 0, 1]\nlimits = [0, 1]\ninitial_position = {h:?}"
        ),
        [0.0, 0.0, -g],
    );
    let v = (2.0 * g * h).sqrt();
    let t_impact = (2.0 * h / g).sqrt();
    let t_star = v / (v * omega - g);
    let x = |t: f64| {
        let decay = (-omega * t).exp();
        g / (omega * omega) * (1.0 - (1.0 + omega * t) * decay) + v * t * decay
    };
    let deepest_exact = x(t_star);
    assert!((deepest_exact - 0.8267e-3).abs() < 1e-7, "{deepest_exact}");
    let mut deepest: f64 = 0.0;
    let mut t = 0.0;
    while t < t_impact + 3.0 * t_star {
        t += if t < t_impact - 1e-3 { 1e-3 } else { 2e-6 };
        let (q, _) = state_at(&mut world, t);
        deepest = deepest.max(-q);
    }
    assert!(
        (deepest - deepest_exact).abs() < 1e-9,
        "deepest {deepest} m below the stop, closed form {deepest_exact}"
    );
    // Critically damped: no bounce off the stop, and it settles at the static deflection.
    let (q, rate) = state_at(&mut world, 1.0);
    assert!((q + g / (omega * omega)).abs() < 1e-9, "{q}");
    assert!(rate.abs() < 1e-9, "{rate}");
}
