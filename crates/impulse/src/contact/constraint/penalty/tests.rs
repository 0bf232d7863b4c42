//! The penalty force law on groups of its own, against closed forms: the clamped oscillator's
//! restitution, a bounce, Baraff's rods of §12.1–12.2 (V6, V7 of the digest).

use super::super::held::HeldContact;
use super::super::tests::on_plane;
use super::super::*;
use super::*;
use crate::math::{Quat, Vec3};

fn law(slip_speed: f64) -> PenaltyLaw {
    PenaltyLaw {
        frequency: 1e3,
        slip_speed,
        onset: 0.0,
    }
}

fn holding(slip_speed: f64) -> Holding {
    Holding {
        tolerance: Tolerance::default(),
        sliding_speed: 1e-4,
        stiffness: 100.0,
        release_gap: 1.0,
        gap: 0.0,
        penalty: Some(law(slip_speed)),
    }
}

fn spring(stiffness: f64, damping_ratio: f64) -> Spring {
    Spring {
        stiffness: Some(stiffness),
        damping_ratio,
        k: 0.0,
        c: 0.0,
    }
}

#[test]
fn clamped_restitution_matches_a_direct_integration_and_inverts() {
    // p̈ = −(p + 2ζ ṗ) while that force is positive, from p = 0, ṗ = 1: RK4 at h = 1e-5
    // (error ~1e-12) integrated until the force vanishes; the exit speed is the restitution.
    // The closed forms (under-, critically and overdamped) agree to 1e-6. At ζ = 1 it is
    // e^{−2} = 0.1353 (where the unclamped law gives 0); damping_ratio_for inverts to 1e-9.
    for zeta in [0.05, 0.2, 0.5, 0.9, 1.0, 1.5, 2.0] {
        // The contact force p + 2ζ ṗ (the acceleration is its opposite).
        let force = |p: f64, v: f64| p + 2.0 * zeta * v;
        let f = |p: f64, v: f64| -force(p, v);
        let (mut p, mut v, h) = (0.0f64, 1.0f64, 1e-5);
        let exit = loop {
            let (k1p, k1v) = (v, f(p, v));
            let (k2p, k2v) = (v + 0.5 * h * k1v, f(p + 0.5 * h * k1p, v + 0.5 * h * k1v));
            let (k3p, k3v) = (v + 0.5 * h * k2v, f(p + 0.5 * h * k2p, v + 0.5 * h * k2v));
            let (k4p, k4v) = (v + h * k3v, f(p + h * k3p, v + h * k3v));
            let (np, nv) = (
                p + h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p),
                v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
            );
            if force(np, nv) <= 0.0 {
                // The force reached zero in this step: the exit speed, interpolated.
                let (f0, f1) = (force(p, v), force(np, nv));
                let s = f0 / (f0 - f1);
                break -(v + s * (nv - v));
            }
            (p, v) = (np, nv);
        };
        let closed = clamped_restitution(zeta);
        assert!((exit - closed).abs() < 1e-6, "ζ {zeta}: {exit} vs {closed}");
        let e = clamped_restitution(zeta);
        assert!((damping_ratio_for(e) - zeta).abs() < 1e-9);
    }
    assert!((clamped_restitution(1.0) - (-2.0f64).exp()).abs() < 1e-15);
    assert_eq!(damping_ratio_for(1.0), 0.0);
    assert_eq!(damping_ratio_for(0.0), MAX_DAMPING_RATIO);
}

/// A ball of mass `m`, radius `r` at height `r` moving at `v` with no gravity.
fn ball(m: f64, r: f64, v: Vec3) -> (Member, BodyState) {
    (
        Member {
            collider: 0,
            body: crate::dynamics::BodyId(0),
            inverse_mass: 1.0 / m,
            principal_inertia: Vec3::repeat(0.4 * m * r * r),
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
        },
        BodyState {
            position: Vec3::new(0.0, 0.0, r),
            orientation: Quat::identity(),
            velocity: v,
            angular_velocity: Vec3::zeros(),
        },
    )
}

/// Runs a ball bouncing straight down at 1 m/s on a spring of stiffness `k`, damping from
/// restitution `e`; returns its rebound speed, deepest penetration and the group's steps.
fn bounce(k: f64, e: f64) -> (f64, f64, u64) {
    let (m, r) = (2.0, 0.1);
    let (member, start) = ball(m, r, Vec3::new(0.0, 0.0, -1.0));
    let contact = on_plane(Vec3::zeros(), r, Vec3::z(), 0.3, spring(k, damping_ratio_for(e)));
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding(1e-3), 0.0);
    // Contact lasts about π √(m/k); run for ten times that.
    let end = 10.0 * std::f64::consts::PI * (m / k).sqrt();
    let states = group.advance_to(end).expect("integrates");
    let counters = group.counters();
    (states[0].velocity.z, counters.deepest, counters.steps)
}

#[test]
fn a_ball_bounces_with_its_materials_restitution_and_steps_grow_as_the_square_root_of_k() {
    // Point contact with m_eff = m (through the centre): the clamped spring–damper's closed
    // form says the ball leaves at e v₀ (to the integrator's accuracy, 1e-6 here), after
    // sinking at most v₀ √(m/K) (the undamped bound). Steps over a fixed number of contact
    // durations do not depend on K; over a fixed time they grow as √K (Baraff V16): the same
    // 10 contact durations take the same steps (±20 %) at K = 1e4 and 1e6.
    for e in [0.2, 0.5, 0.9] {
        let (k, m) = (1e5, 2.0);
        let (rebound, deepest, _) = bounce(k, e);
        assert!((rebound - e).abs() < 1e-6, "e {e}: rebound {rebound}");
        assert!(deepest > 0.0 && deepest < (m / k).sqrt(), "sank {deepest}");
    }
    let (_, deep_soft, soft) = bounce(1e4, 0.5);
    let (_, deep_stiff, stiff) = bounce(1e6, 0.5);
    // Penetration ∝ 1/√K: a factor 10 here (5 %).
    assert!((deep_soft / deep_stiff - 10.0).abs() < 0.5, "{deep_soft} / {deep_stiff}");
    let ratio = stiff as f64 / soft as f64;
    assert!((0.8..1.25).contains(&ratio), "steps {soft} at K=1e4, {stiff} at 1e6");
}

/// Baraff's rod (Figs. 10.1–10.3; digest V5/V6): m = 1, length 2, I = m/16, at θ = 72° to the
/// base, its tip at the origin on the fixed base y = 0 (n̂ = +y), gravity −g ŷ, turning at ω
/// about −ẑ, the tip sliding at `slip` along x̂, sunk `depth` into the base.
fn rod(omega: f64, slip: f64, g: f64, depth: f64) -> (Member, BodyState) {
    let theta = 72f64.to_radians();
    let r = Vec3::new(-theta.cos(), -theta.sin(), 0.0);
    let w = Vec3::new(0.0, 0.0, -omega);
    (
        Member {
            collider: 0,
            body: crate::dynamics::BodyId(0),
            inverse_mass: 1.0,
            principal_inertia: Vec3::repeat(1.0 / 16.0),
            force: Vec3::new(0.0, -g, 0.0),
            torque: Vec3::zeros(),
        },
        BodyState {
            position: -r - Vec3::y() * depth,
            orientation: Quat::from_axis_angle(&Vec3::z_axis(), theta),
            velocity: Vec3::new(slip, 0.0, 0.0) - w.cross(&r),
            angular_velocity: w,
        },
    )
}

fn baraff_mu() -> f64 {
    let t = 72f64.to_radians();
    (t.cos().powi(2) + 0.125) / (t.cos() * t.sin())
}

/// The rod's tip (body frame (−1, 0, 0)) as a contact on the base.
fn tip(k: f64, zeta: f64) -> HeldContact {
    on_plane(Vec3::new(-1.0, 0.0, 0.0), 0.0, Vec3::y(), baraff_mu(), spring(k, zeta))
}

#[test]
fn indeterminate_rod_takes_the_branch_its_initial_penetration_names() {
    // Baraff §12.2 (digest V7): the V5 rod (ω² sin θ − g = 1, g = 1) has a_N = −f_N/m + 1,
    // both f_N = 0 and f_N = m valid. With a spring K the initial penetration picks:
    // - d₁ = 0: no force, the tip lifts off at a_N = 1: gap t²/2 (1 % at t = 1e-3 s; the
    //   rod's turning adds O(ω³ t³)).
    // - d₁ = m/K: the force is m (f_N = K d₁, ḋ = 0 at the start), a_N = 0: the tip stays in,
    //   its penetration d₁ within 10 % for 2 ms at K = 1e6 (the branch is unstable,
    //   p̈ = K p + c ṗ − 1 about d₁ — Baraff's positive feedback — so it holds for a
    //   time of order ln(K)/√K while the rod's turning drifts the equilibrium).
    let g = 1.0;
    let omega = ((1.0 + g) / 72f64.to_radians().sin()).sqrt();
    let k = 1e6;
    let zeta = 0.2;
    for (depth, name) in [(0.0, "lifts off"), (1.0 / k, "stays in")] {
        let (member, start) = rod(omega, -1.0, g, depth);
        let mut group =
            ContactGroup::new(vec![member], &[start], vec![tip(k, zeta)], holding(1e-6), 0.0);
        let horizon = if depth == 0.0 { 1e-3 } else { 2e-3 };
        for i in 1..=20 {
            let t = horizon * i as f64 / 20.0;
            group.advance_to(t).expect("integrates");
            let gap = group.contact_kinematics()[0].gap;
            if depth == 0.0 {
                assert!(gap > 0.0, "{name}: gap {gap} at {t}");
                if i == 20 {
                    let expected = 0.5 * t * t;
                    assert!((gap - expected).abs() < 1e-2 * expected, "{name}: {gap} vs {expected}");
                }
            } else {
                assert!((gap + depth).abs() < 0.1 * depth, "{name}: gap {gap} at {t}");
            }
        }
    }
}

#[test]
fn inconsistent_rod_is_stopped_by_the_springs_as_by_the_ray_impulse_in_the_limit() {
    // Baraff §12.1 (digest V6): the rod with ω = 0 sliding at −1 has a_N = −f_N/m − g (no
    // valid force). On a spring K (damping ratio ζ, c = 2ζ √(K m_eff), m_eff = 1/B) the
    // penetration obeys p̈ = K p + c ṗ + g (fixed coefficients while Δt is short), and the
    // slip −1 is stopped once ∫f_N = α = 1/(C + μE) (the ray impulse of
    // lcp::baraff_tests::inconsistent_rod_ray_gives_the_impulse_and_then_a_consistent_force).
    // That linear model gives the stop time Δt(K) and the penetration at the stop; measured
    // within 2 %. As K grows Δt → 0 and the rod's velocity at the stop converges to the rigid
    // prediction v₀ + α(μ, 1)/m, ω₀ + I⁻¹ r × α(μ, 1): the error falls with Δt (gravity's
    // g Δt).
    let theta = 72f64.to_radians();
    let (mu, g, zeta) = (baraff_mu(), 1.0, 0.2);
    let (b, c, e) = (
        1.0 + 16.0 * theta.cos().powi(2),
        -16.0 * theta.sin() * theta.cos(),
        1.0 + 16.0 * theta.sin().powi(2),
    );
    // The slip's stop is taken where it passes −1 % (below that, as the springs also answer
    // the collision the ray leaves, the slip lingers at a few thousandths at K = 1e4): the
    // impulse that far is β = 0.99 α.
    let threshold = -1e-2;
    let alpha = (1.0 + threshold) / (c + mu * e);
    let r = Vec3::new(-theta.cos(), -theta.sin(), 0.0);
    let impulse = Vec3::new(mu, 1.0, 0.0) * alpha;
    let (rigid_v, rigid_w) = (
        Vec3::new(-1.0, 0.0, 0.0) + impulse,
        r.cross(&impulse) * 16.0,
    );
    let mut errors = Vec::new();
    let mut stops = Vec::new();
    let mut depths = Vec::new();
    for k in [1e4, 1e6, 1e8] {
        let damping = 2.0 * zeta * (k / b).sqrt();
        // p = −g/K + A e^{r₁t} + B e^{r₂t}, p(0) = ṗ(0) = 0; J(t) = K ∫p + c p.
        let disc = (damping * damping + 4.0 * k).sqrt();
        let (r1, r2) = (0.5 * (damping + disc), 0.5 * (damping - disc));
        let a1 = -r2 * g / (k * (r1 - r2));
        let a2 = r1 * g / (k * (r1 - r2));
        let p = |t: f64| -g / k + a1 * (r1 * t).exp() + a2 * (r2 * t).exp();
        let integral = |t: f64| {
            -g * t / k + a1 * ((r1 * t).exp() - 1.0) / r1 + a2 * ((r2 * t).exp() - 1.0) / r2
        };
        let impulse_at = |t: f64| k * integral(t) + damping * p(t);
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if impulse_at(mid) < alpha { lo = mid } else { hi = mid }
        }
        let predicted = 0.5 * (lo + hi);
        let (member, start) = rod(0.0, -1.0, g, 0.0);
        let mut group =
            ContactGroup::new(vec![member], &[start], vec![tip(k, zeta)], holding(1e-4), 0.0);
        // Sample finely around the predicted stop (the friction is viscous below 1e-4).
        let samples = 4000;
        let mut stop = None;
        let mut previous = (0.0, -1.0, start);
        for i in 1..=samples {
            let t = 2.0 * predicted * i as f64 / samples as f64;
            let s = group.advance_to(t).expect("integrates")[0];
            let tip_velocity = s.velocity + s.angular_velocity.cross(&r);
            if tip_velocity.x > threshold {
                let f = (threshold - previous.1) / (tip_velocity.x - previous.1);
                let at = previous.0 + f * (t - previous.0);
                let v = previous.2.velocity + (s.velocity - previous.2.velocity) * f;
                let w = previous.2.angular_velocity
                    + (s.angular_velocity - previous.2.angular_velocity) * f;
                stop = Some((at, v, w, -group.contact_kinematics()[0].gap));
                break;
            }
            previous = (t, tip_velocity.x, s);
        }
        let (at, v, w, depth) = stop.expect("the springs stop the slip");
        assert!((at - predicted).abs() < 2e-2 * predicted, "K {k}: stop {at} vs {predicted}");
        assert!((depth - p(predicted)).abs() < 2e-2 * p(predicted) + 1e-3 * depth, "K {k}: depth {depth} vs {}", p(predicted));
        errors.push((v - rigid_v).norm() + (w - rigid_w).norm());
        stops.push(at);
        depths.push(depth);
        eprintln!("K {k:e}: stop {at:e} s (linear {predicted:e}), depth {depth:e}, velocity error {:e}, steps {}", errors.last().unwrap(), group.counters().steps);
    }
    for i in 1..errors.len() {
        assert!(stops[i] < 0.2 * stops[i - 1] && depths[i] < 0.2 * depths[i - 1]);
        assert!(errors[i] < 0.3 * errors[i - 1], "errors {errors:?}");
    }
    assert!(errors[2] < 1e-2 * rigid_v.norm(), "errors {errors:?}");
}

#[test]
fn the_damping_onset_barely_changes_a_bounce() {
    // The world grows the damping over the static sag (there 1e-5 m at ε = 1 mm) so that the
    // force is continuous where a contact starts to push: a landing corner of the part
    // sorter (8 g, ε = 0.01 cm, 3.3 cm/s) stalled the integration at its onset with the plain
    // law (step-size underflow at gap 1.5e-12 cm). A ball landing at 1 m/s (K = 1e5 N/m,
    // m = 2 kg) sinks 4.5 mm, 450 onsets: its rebound keeps e = 0.5 to 1 %.
    let (m, r, k, e) = (2.0, 0.1, 1e5, 0.5);
    let (member, start) = ball(m, r, Vec3::new(0.0, 0.0, -1.0));
    let contact = on_plane(Vec3::zeros(), r, Vec3::z(), 0.3, spring(k, damping_ratio_for(e)));
    let mut holding = holding(1e-3);
    holding.penalty = Some(PenaltyLaw {
        onset: 1e-5,
        ..law(1e-3)
    });
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding, 0.0);
    let end = 10.0 * std::f64::consts::PI * (m / k).sqrt();
    let rebound = group.advance_to(end).expect("integrates")[0].velocity.z;
    assert!((rebound - e).abs() < 1e-2 * e, "rebound {rebound}");
}

#[test]
fn a_contact_sunk_past_the_envelope_is_let_go() {
    // Sunk 2 release gaps (a point that slid off the face it was held on reads such a
    // penetration): the group stops its flight there, as for a contact that opened.
    let (member, mut start) = ball(1.0, 0.1, Vec3::zeros());
    start.position.z -= 2e-3;
    let contact = on_plane(Vec3::zeros(), 0.1, Vec3::z(), 0.3, spring(1e5, 0.5));
    let mut holding = holding(1e-3);
    holding.release_gap = 1e-3;
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding, 0.0);
    let (end, _) = group.motion_envelope(0.01, 4).expect("integrates");
    assert!(end < 1e-3, "flight ran to {end}");
    assert!(matches!(
        group.interruption(),
        Some(Interruption::Released { .. })
    ));
}
