//! Assemblies among free balls: collisions resolved by the engine's collision law with the
//! assembly's collision matrix (the joints answer each impulse ideally), against closed forms.

mod common;

use common::assemblies::{joint, rod, slider_crank_with};
use impulse::assembly::balls::{AssemblyWithBalls, Ball, Striker};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, Primitive};
use impulse::math::Vec3;

fn settings() -> AssemblySettings {
    AssemblySettings::with_step(Vec3::new(0.0, 0.0, -9.81), 1e-3)
}

/// A pendulum (rod m = 1, L = 1, r = 0.05 hanging from a hinge about y at the origin, a
/// striker sphere at its end) hit head-on at the end by a ball (m = 0.2) at 2 m/s on a
/// frictionless table. Elastic and frictionless, the end of the rod behaves as a point mass
/// m_eff = I_O / L² (I_O = m(3r² + L²)/12 + m(L/2)² = 0.334375 kg m²): the ball rebounds at
/// v' = (m_b − m_eff)/(m_b + m_eff) v and the rod turns at ω = 2 m_b v / ((m_b + m_eff) L).
/// The contact normal is horizontal to rounding and the impulse's moment arm is exactly L, so
/// only the collision integration's tolerance (1e-8 |u₀|) and the projection's rounding
/// remain: 1e-7 relative.
#[test]
fn a_ball_hitting_a_pendulum_bounces_at_the_closed_form_speed() {
    let (m_rod, l, r) = (1.0, 1.0, 0.05);
    let pendulum = rod("rod", Vec3::zeros(), Vec3::new(0.0, 0.0, -l), m_rod, r);
    let hinge = joint(
        "hinge",
        0,
        None,
        Primitive::Revolute {
            anchor: Vec3::zeros(),
            axis: Vec3::y(),
        },
    );
    let assembly = Assembly::new(settings(), vec![pendulum], vec![hinge]).unwrap();
    // The rod's body x axis points down it; its end is L/2 from the centre.
    let striker = Striker {
        body: 0,
        offset: Vec3::new(l / 2.0, 0.0, 0.0),
        radius: 0.05,
    };
    let (m_b, v) = (0.2, 2.0);
    let mut ball = Ball::new("ball", m_b, 0.05, Vec3::new(-0.1005, 0.0, -l));
    ball.velocity = Vec3::new(v, 0.0, 0.0);
    ball.on_table = true;
    let mut sim = AssemblyWithBalls::new(assembly, vec![ball], vec![striker], 1.0, 0.0).unwrap();
    let e0 = sim.kinetic_energy();
    sim.advance_to(0.001).unwrap();
    assert_eq!(sim.hits.len(), 1, "one hit in the first step");
    let i_o = m_rod * (3.0 * r * r + l * l) / 12.0 + m_rod * (l / 2.0).powi(2);
    let m_eff = i_o / (l * l);
    let v_ball = (m_b - m_eff) / (m_b + m_eff) * v;
    let omega = 2.0 * m_b * v / ((m_b + m_eff) * l);
    let got_v = sim.balls[0].velocity.x;
    let got_w = sim.assembly.bodies()[0].angular_velocity().y;
    println!("ball {got_v} (closed form {v_ball}), rod ω {got_w} (closed form {omega})");
    assert!(
        (got_v - v_ball).abs() < 1e-7 * v,
        "ball {got_v} vs {v_ball}"
    );
    // The end moves +x when the rod turns negatively about y (ω × (−L z) = +x for ω = −ω y).
    assert!(
        (-got_w - omega).abs() < 1e-7 * omega,
        "rod ω {got_w} vs {omega}"
    );
    // Elastic: kinetic energy kept (the table and hinge do no work).
    let e1 = sim.kinetic_energy();
    assert!((e1 - e0).abs() < 1e-7 * e0, "KE {e0} → {e1}");
}

/// The slider crank of V6 (crank r = 0.1 in the x–y plane, rod 0.3, slider on the x axis),
/// driven from θ = 200° by 0.5 N m, with a striker on the slider kicking a ball (m = 0.1) at
/// rest on a frictionless table. A one-degree-of-freedom mechanism moves its slider like a point
/// of mass m_eff = 2T/ẋ² (T its kinetic energy, ẋ the slider's speed, just before the hit), so
/// an elastic frictionless kick sends the ball off at 2 m_eff ẋ / (m_b + m_eff). This checks
/// the assembly's impulse response (through J) against its energy (through the bodies'
/// velocities) — two independent routes — to 1e-7 relative (collision integration tolerance).
#[test]
fn a_slider_crank_kicks_a_ball_off_at_the_effective_mass_speed() {
    let assembly = slider_crank_with(settings(), 200f64.to_radians(), 0.5, 0.0);
    let striker = Striker {
        body: 2,
        offset: Vec3::new(0.05, 0.0, 0.0),
        radius: 0.02,
    };
    // The striker's face reaches x = 0.47 at the slider's outer dead centre; the ball's back
    // is at 0.46, so the hit comes before the dead centre, with the slider still moving.
    let m_b = 0.1;
    let mut ball = Ball::new("ball", m_b, 0.03, Vec3::new(0.49, 0.0, 0.0));
    ball.on_table = true;
    let mut sim = AssemblyWithBalls::new(assembly, vec![ball], vec![striker], 1.0, 0.0).unwrap();
    let h = sim.assembly.settings().step;
    let mut before = sim.clone();
    let mut k = 0;
    while sim.hits.is_empty() {
        k += 1;
        assert!(k < 20_000, "no hit in 20 s");
        before = sim.clone();
        sim.advance_to(k as f64 * h).unwrap();
    }
    // The same step without the hit: the state just before the impulse.
    before.assembly.advance_to(k as f64 * h).unwrap();
    let x_dot = before.assembly.bodies()[2].velocity().x;
    let t_mech = before.assembly.kinetic_energy();
    let m_eff = 2.0 * t_mech / (x_dot * x_dot);
    let expected = 2.0 * m_eff * x_dot / (m_b + m_eff);
    let got = sim.balls[0].velocity.x;
    println!(
        "hit at t = {}: slider {x_dot} m/s, m_eff {m_eff} kg, ball {got} m/s (closed form {expected})",
        sim.time()
    );
    assert!(x_dot > 0.1, "the slider should be moving out: {x_dot}");
    assert!(
        (got - expected).abs() < 1e-7 * expected,
        "{got} vs {expected}"
    );
    let (e_before, e_after) = (before.kinetic_energy(), sim.kinetic_energy());
    assert!(
        (e_after - e_before).abs() < 1e-7 * e_before,
        "KE {e_before} → {e_after}"
    );
    // The ball leaves and the mechanism keeps running; no second hit while it flies away.
    sim.advance_to(sim.time() + 0.2).unwrap();
    assert!(sim.balls[0].position.x > 0.49 + 0.2 * got * 0.99);
}

/// Bad balls and strikers are refused with a message.
#[test]
fn bad_balls_and_strikers_are_refused() {
    let body = AssemblyBodyDesc::new("b", 1.0, Vec3::new(1.0, 1.0, 1.0), Vec3::zeros());
    let hold = joint(
        "hold",
        0,
        None,
        Primitive::FixedPoint {
            point: Vec3::zeros(),
        },
    );
    let asm = Assembly::new(settings(), vec![body], vec![hold]).unwrap();
    let ball = Ball::new("b", 0.0, 0.1, Vec3::x());
    let err = AssemblyWithBalls::new(asm.clone(), vec![ball], vec![], 1.0, 0.0).unwrap_err();
    assert!(err.to_string().contains("positive mass"), "{err}");
    let striker = Striker {
        body: 3,
        offset: Vec3::zeros(),
        radius: 0.1,
    };
    let err = AssemblyWithBalls::new(asm.clone(), vec![], vec![striker], 1.0, 0.0).unwrap_err();
    assert!(err.to_string().contains("existing body"), "{err}");
    let err = AssemblyWithBalls::new(asm, vec![], vec![], 1.5, 0.0).unwrap_err();
    assert!(err.to_string().contains("restitution"), "{err}");
}
