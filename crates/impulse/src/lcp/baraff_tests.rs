//! Baraff's validation cases that are pure mathematics (digest `baraff.md` §2): built from
//! rigid bodies and point contacts with [`ContactSystem`], solved by Lemke, and checked
//! against closed forms, the thesis's numbers, the enumeration oracle, and the bodies'
//! Newton–Euler equations (computed here independently of the contact system).
//!
//! Left to the world-level integration (they need the event loop, the integrator or collision
//! detection): V3 (collision-time prediction), V7 and the V6 penalty follow-up (penalty
//! springs), V9 (Lötstedt's fixed-point iteration, a method not implemented here), V12 (the QP
//! approximation, not implemented), V13 (projected Jacobi, not implemented), V14–V16 (curved
//! surfaces, collision detection, penalty convergence).

use super::contact::{ContactBody, ContactPoint, ContactSystem, apply_impulses, body_wrenches};
use super::enumerate::basic_solutions;
use super::impulse::{collide, ray_impulse};
use super::lemke::{
    Basis, LemkeOptions, Outcome, Ray, Solution, Start, check_ray, check_solution, solve,
};
use crate::math::{Mat3, Point, Vec3};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

pub(super) const G: f64 = 9.81;

pub(super) fn options() -> LemkeOptions {
    LemkeOptions::default()
}

pub(super) fn solution(outcome: Outcome) -> Solution {
    match outcome {
        Outcome::Solution(s) => s,
        other => panic!("expected a solution, got {other:?}"),
    }
}

/// A box of mass `m` and half-extents `h`, axis-aligned, at rest at `center`, under gravity.
pub(super) fn resting_box(m: f64, h: Vec3, center: Point) -> ContactBody {
    let inertia = Vec3::new(
        h.y * h.y + h.z * h.z,
        h.x * h.x + h.z * h.z,
        h.x * h.x + h.y * h.y,
    ) * (m / 3.0);
    ContactBody {
        inverse_mass: 1.0 / m,
        inverse_inertia: Mat3::from_diagonal(&inertia.map(|i| 1.0 / i)),
        center_of_mass: center,
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
        force: Vec3::new(0.0, 0.0, -m * G),
        torque: Vec3::zeros(),
    }
}

/// The four bottom corners of an axis-aligned box as contacts of body `a` on `b` (normal +z).
fn bottom_corners(a: usize, b: Option<usize>, center: Point, h: Vec3) -> Vec<ContactPoint> {
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(sx, sy)| {
            let p = center + Vec3::new(sx * h.x, sy * h.y, -h.z);
            ContactPoint::new(Some(a), b, p, Vec3::z())
        })
        .collect()
}

/// Body accelerations (linear, angular) under contact forces, from Newton–Euler directly.
pub(super) fn body_accelerations(
    bodies: &[ContactBody],
    contacts: &[ContactPoint],
    forces: &[Vec3],
) -> Vec<(Vec3, Vec3)> {
    body_wrenches(bodies, contacts, forces)
        .into_iter()
        .zip(bodies)
        .map(|((f, t), b)| {
            (
                (f + b.force) * b.inverse_mass,
                b.inverse_inertia * (t + b.torque),
            )
        })
        .collect()
}

/// V4 (a): the chair on four legs. A 4 × 4 PSD matrix of rank 3; every solution carries the
/// weight (Σ f_N = m g to 1e-12 relative), leaves the box unaccelerated (1e-12 g) and has
/// a_N = 0; the leg forces are not unique (several basic solutions), a_N is (Cottle).
#[test]
fn chair_on_four_legs_is_degenerate_but_determinate() {
    let (m, h, c) = (2.0, Vec3::new(0.5, 0.3, 0.2), Point::new(0.0, 0.0, 0.2));
    let bodies = [resting_box(m, h, c)];
    let contacts = bottom_corners(0, None, c, h);
    let system = ContactSystem::new(&bodies, &contacts, 1e-9).unwrap();
    let lcp = system.frictionless();
    // Rank 3: one singular value vanishes.
    let sv = lcp.matrix.clone().singular_values();
    let mut sv: Vec<f64> = sv.iter().copied().collect();
    sv.sort_by(f64::total_cmp);
    assert!(sv[0] < 1e-12 * sv[3] && sv[1] > 1e-3 * sv[3], "{sv:?}");
    // The free normal accelerations are −g.
    for i in 0..4 {
        assert!((lcp.vector[i] + G).abs() < 1e-12);
    }
    let oracle = basic_solutions(&lcp.matrix, &lcp.vector, 1e-9).unwrap();
    assert!(
        oracle.len() >= 2,
        "leg forces are not unique: {}",
        oracle.len()
    );
    let cold = solution(lcp.solve(None, &options()).unwrap());
    let mut answers = vec![cold.clone()];
    for o in &oracle {
        let warm = solution(lcp.solve(Some(&o.basis), &options()).unwrap());
        assert_eq!(warm.start, Start::Warm);
        answers.push(warm);
    }
    for s in &answers {
        let forces = lcp.contact_forces(&s.z);
        let total: f64 = lcp.normal_forces(&s.z).iter().sum();
        assert!((total - m * G).abs() < 1e-12 * m * G, "Σ f_N = {total}");
        let (a, alpha) = body_accelerations(&bodies, &contacts, &forces)[0];
        assert!(
            a.norm() < 1e-12 * G && alpha.norm() < 1e-11 * G,
            "{a} {alpha}"
        );
        assert!(s.w.amax() < 1e-12 * G, "a_N = {}", s.w);
    }
}

/// V4 (a) and (c): a chair pushed sideways by a force turning slowly about the vertical, and
/// then tipped by a growing torque until two legs lift. Warm-started from the last basis at
/// every step: a_N equals the cold solve's to 1e-9 g at every step (the accelerations are
/// unique even where the leg forces are not); the basis is kept for most steps and rejected
/// where a leg lifts off.
#[test]
fn chair_warm_starts_track_the_cold_accelerations_through_lift_off() {
    let (m, h, c) = (2.0, Vec3::new(0.5, 0.3, 0.2), Point::new(0.0, 0.0, 0.2));
    let contacts = bottom_corners(0, None, c, h);
    let mut basis: Option<Basis> = None;
    let (mut kept, mut rejected) = (0, 0);
    let mut lifted_at = None;
    for step in 0..400 {
        let mut body = resting_box(m, h, c);
        let turn = step as f64 * 0.01;
        // A sideways push at the top face (frictionless: the box slides), plus, from step
        // 200, a torque about x growing past the one that tips the box (m g h_y).
        let push = Vec3::new(turn.cos(), turn.sin(), 0.0) * (0.2 * m * G);
        body.force += push;
        body.torque += Vec3::new(0.0, 0.0, 2.0 * h.z).cross(&push);
        if step >= 200 {
            body.torque.x += (step - 200) as f64 / 100.0 * 1.5 * m * G * h.y;
        }
        let bodies = [body];
        let lcp = ContactSystem::new(&bodies, &contacts, 1e-9)
            .unwrap()
            .frictionless();
        let warm = solution(lcp.solve(basis.as_ref(), &options()).unwrap());
        let cold = solution(lcp.solve(None, &options()).unwrap());
        assert!(
            (&warm.w - &cold.w).amax() < 1e-9 * G,
            "step {step}: a_N {} vs {}",
            warm.w,
            cold.w
        );
        let acc_w = body_accelerations(&bodies, &contacts, &lcp.contact_forces(&warm.z))[0];
        let acc_c = body_accelerations(&bodies, &contacts, &lcp.contact_forces(&cold.z))[0];
        assert!((acc_w.0 - acc_c.0).norm() < 1e-9 * G && (acc_w.1 - acc_c.1).norm() < 1e-8 * G);
        match warm.start {
            Start::Warm => kept += 1,
            Start::WarmRejected => rejected += 1,
            Start::Cold => {}
        }
        if lifted_at.is_none() && warm.w.amax() > 1e-9 * G {
            lifted_at = Some(step);
        }
        basis = Some(warm.basis);
    }
    let lifted_at = lifted_at.expect("two legs lift off");
    // Tipping needs the torque to exceed m g h_y minus what the push adds: after step 200.
    assert!(lifted_at > 200, "lifted at step {lifted_at}");
    assert!(
        kept >= 350,
        "warm start kept {kept} of 399 steps ({rejected} rejected)"
    );
    assert!(rejected >= 1);
}

/// Rank-deficient and redundant: eight contacts under one box (corners and edge midpoints),
/// an 8 × 8 matrix of rank 3, solved without cycling; the weight is carried.
#[test]
fn eight_coplanar_contacts_under_one_box() {
    let (m, h, c) = (3.0, Vec3::new(0.4, 0.4, 0.1), Point::new(0.2, -0.1, 0.1));
    let bodies = [resting_box(m, h, c)];
    let mut contacts = bottom_corners(0, None, c, h);
    for &(sx, sy) in &[(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)] {
        let p = c + Vec3::new(sx * h.x, sy * h.y, -h.z);
        contacts.push(ContactPoint::new(Some(0), None, p, Vec3::z()));
    }
    let lcp = ContactSystem::new(&bodies, &contacts, 1e-9)
        .unwrap()
        .frictionless();
    let s = solution(lcp.solve(None, &options()).unwrap());
    let total: f64 = lcp.normal_forces(&s.z).iter().sum();
    assert!((total - m * G).abs() < 1e-12 * m * G);
    assert!(s.pivots <= 8, "{} pivots", s.pivots);
}

/// A stack of boxes, each on four corners of the one below: Σ f_N at each interface carries
/// the weight above it (1e-12 relative) and nothing accelerates (1e-11 g).
#[test]
fn stack_of_boxes_rests() {
    let h = Vec3::new(0.5, 0.5, 0.5);
    let n_boxes = 6;
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    for k in 0..n_boxes {
        // A slight offset so the stack is not perfectly symmetric.
        let c = Point::new(0.05 * k as f64, -0.03 * k as f64, 0.5 + k as f64);
        bodies.push(resting_box(1.0 + k as f64, h, c));
        let below = if k == 0 { None } else { Some(k - 1) };
        // Corners of the upper box's bottom face that lie over the lower box.
        contacts.extend(bottom_corners(k, below, c, h));
    }
    let lcp = ContactSystem::new(&bodies, &contacts, 1e-9)
        .unwrap()
        .frictionless();
    let s = solution(lcp.solve(None, &options()).unwrap());
    let f = lcp.normal_forces(&s.z);
    for k in 0..n_boxes {
        let above: f64 = (k..n_boxes).map(|j| (1.0 + j as f64) * G).sum();
        let carried: f64 = f[4 * k..4 * k + 4].iter().sum();
        assert!((carried - above).abs() < 1e-12 * above, "interface {k}");
    }
    for (a, alpha) in body_accelerations(&bodies, &contacts, &lcp.contact_forces(&s.z)) {
        assert!(a.norm() < 1e-11 * G && alpha.norm() < 1e-10 * G);
    }
}

/// V1: a particle on a fixed sphere (the normal turns at ṅ = ṗ/R, which gives the v²/R term).
/// At the top the normal force is m(g − v²/R) when v² < gR and zero (the particle leaves)
/// when v² > gR, to 1e-12; released near the top and integrated (RK4) with the LCP deciding
/// contact, it leaves at cos φ = ⅔ cos φ₀ (energy), to 1e-4.
#[test]
fn particle_leaves_the_sphere_at_two_thirds() {
    let (r, m) = (2.0, 0.5);
    let particle = |phi: f64, speed: f64| {
        let n = Vec3::new(phi.sin(), 0.0, phi.cos());
        let t = Vec3::new(phi.cos(), 0.0, -phi.sin());
        let body = ContactBody {
            inverse_mass: 1.0 / m,
            inverse_inertia: Mat3::zeros(),
            center_of_mass: Point::from(n * r),
            velocity: t * speed,
            angular_velocity: Vec3::zeros(),
            force: Vec3::new(0.0, 0.0, -m * G),
            torque: Vec3::zeros(),
        };
        let mut contact = ContactPoint::new(Some(0), None, Point::from(n * r), n);
        contact.normal_rate = Some(t * speed / r);
        (body, contact)
    };
    let normal_force = |phi: f64, speed: f64| {
        let (body, contact) = particle(phi, speed);
        let lcp = ContactSystem::new(&[body], &[contact], 1e-9)
            .unwrap()
            .frictionless();
        solution(lcp.solve(None, &options()).unwrap()).z[0]
    };
    for v in [0.0, 1.0, 3.0, 4.0] {
        let expected = (m * (G - v * v / r)).max(0.0);
        assert!(
            (normal_force(0.0, v) - expected).abs() < 1e-12 * m * G,
            "v = {v}"
        );
    }
    // Slide from φ₀ at rest; while in contact φ̈ = g sin φ / R.
    let phi0: f64 = 0.05;
    let (mut phi, mut omega) = (phi0, 0.0);
    let dt = 2e-5;
    let f = |p: f64| G * p.sin() / r;
    while normal_force(phi, omega * r) > 0.0 {
        let (k1p, k1w) = (omega, f(phi));
        let (k2p, k2w) = (omega + 0.5 * dt * k1w, f(phi + 0.5 * dt * k1p));
        let (k3p, k3w) = (omega + 0.5 * dt * k2w, f(phi + 0.5 * dt * k2p));
        let (k4p, k4w) = (omega + dt * k3w, f(phi + dt * k3p));
        phi += dt / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
        omega += dt / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    }
    let expected = 2.0 / 3.0 * phi0.cos();
    assert!(
        (phi.cos() - expected).abs() < 1e-4,
        "{} vs {expected}",
        phi.cos()
    );
}

/// V2: a ball dropping on the ground at (v_x, v_y, −u): the frictionless collision impulse is
/// j = (1 + e) m u (eq. 2-20 with |∇C| = 1), tangential velocity unchanged, ΔE =
/// −½ m u² (1 − e²); with friction, sticking when the cone allows (j_t = (2m/7) v_t for a
/// solid ball) and sliding at |j_t| = μ j_N against the slip otherwise. Tolerance 1e-12.
#[test]
fn ball_collision_impulses_match_the_closed_forms() {
    let (m, radius) = (0.7, 0.1);
    let mut rng = Pcg64::seed_from_u64(2);
    for _ in 0..50 {
        let u = rng.random_range(0.1..5.0);
        let vt = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            0.0,
        );
        let e = rng.random_range(0.0..1.0);
        let mu = rng.random_range(0.0..1.5);
        let inertia = 0.4 * m * radius * radius;
        let c = Point::new(0.0, 0.0, radius);
        let ball = ContactBody {
            inverse_mass: 1.0 / m,
            inverse_inertia: Mat3::identity() / inertia,
            center_of_mass: c,
            velocity: vt - Vec3::z() * u,
            angular_velocity: Vec3::zeros(),
            force: Vec3::new(0.0, 0.0, -m * G),
            torque: Vec3::zeros(),
        };
        let contact = ContactPoint::new(Some(0), None, Point::origin(), Vec3::z())
            .with_restitution(e)
            .with_friction(mu);
        let system = ContactSystem::new(
            std::slice::from_ref(&ball),
            std::slice::from_ref(&contact),
            1e-9,
        )
        .unwrap();
        let frictionless = collide(&system, false, None, &options()).unwrap();
        let p = frictionless.impulses[0];
        assert!((p.z - (1.0 + e) * m * u).abs() < 1e-12 * m * u);
        assert!(p.xy().norm() < 1e-12 * m * u);
        assert!(
            (frictionless.energy_change + 0.5 * m * u * u * (1.0 - e * e)).abs()
                < 1e-12 * m * u * u
        );
        assert_eq!(frictionless.restitution_scale, 1.0);
        // With friction (one contact: the box frame has t̂_x along the slip, so it is exact).
        let frictional = collide(&system, true, None, &options()).unwrap();
        let p = frictional.impulses[0];
        assert!((p.z - (1.0 + e) * m * u).abs() < 1e-12 * m * u);
        let stick = vt * (-2.0 * m / 7.0);
        let expected = if stick.norm() <= mu * p.z {
            stick
        } else {
            -vt.normalize() * mu * p.z
        };
        assert!((p.xy() - expected.xy()).norm() < 1e-10 * m * u.max(vt.norm()));
        assert!(frictional.energy_change <= 0.0);
    }
}

/// The rod of Baraff Figs. 10.1–10.3: length 2 (tip 1 from the centre), I = m/16, θ = 72°,
/// tip on a fixed base (n̂ = +y), sliding in −x so dynamic friction on the rod is +μ f_N x̂.
fn rod(
    theta: f64,
    omega: f64,
    tip_slip: f64,
    g: f64,
    mu: f64,
    inertia: f64,
) -> (ContactBody, ContactPoint) {
    let m = 1.0;
    let r = Vec3::new(-theta.cos(), -theta.sin(), 0.0);
    let w = Vec3::new(0.0, 0.0, -omega);
    let velocity = Vec3::new(tip_slip, 0.0, 0.0) - w.cross(&r);
    let body = ContactBody {
        inverse_mass: 1.0 / m,
        inverse_inertia: Mat3::identity() / inertia,
        center_of_mass: Point::from(-r),
        velocity,
        angular_velocity: w,
        force: Vec3::new(0.0, -m * g, 0.0),
        torque: Vec3::zeros(),
    };
    let contact = ContactPoint::new(Some(0), None, Point::origin(), Vec3::y()).with_friction(mu);
    (body, contact)
}

fn baraff_theta() -> f64 {
    72f64.to_radians()
}

/// μ with 16 (cos²θ − μ cos θ sin θ) = −2 (Fig. 10.1): 0.750245…
fn baraff_mu() -> f64 {
    let t = baraff_theta();
    (t.cos().powi(2) + 0.125) / (t.cos() * t.sin())
}

/// V5: the indeterminate rod. With |ω|² sin θ − g = 1 the LCP is a_N = −f_N/m + 1 (10-11);
/// both f_N = 0 and f_N = m are valid (the oracle lists exactly these), with a_N = 1 and 0;
/// a cold Lemke run returns f_N = 0 (q ≥ 0), a warm start keeps whichever branch its basis
/// names (§13.3). The branch f_N = m is checked on the rod's own Newton–Euler equations:
/// the tip does not accelerate along n̂. Also the coefficients B = 1 + 16 cos²θ = 2.527864,
/// C = −16 sin θ cos θ = −4.702282, E = 1 + 16 sin²θ = 15.472136, BE − C² = 17 (digest).
#[test]
fn indeterminate_rod_has_both_branches() {
    let (theta, mu, g) = (baraff_theta(), baraff_mu(), 1.0);
    assert!((mu - 0.750245).abs() < 1e-6);
    let omega = ((1.0 + g) / theta.sin()).sqrt();
    let (body, contact) = rod(theta, omega, -1.0, g, mu, 1.0 / 16.0);
    let bodies = [body];
    let contacts = [contact];
    let system = ContactSystem::new(&bodies, &contacts, 1e-9).unwrap();
    assert!(system.is_sliding(0));
    let lcp = system.sliding_friction();
    assert!(
        (lcp.matrix[(0, 0)] + 1.0).abs() < 1e-12,
        "A = {}",
        lcp.matrix
    );
    assert!((lcp.vector[0] - 1.0).abs() < 1e-12, "b = {}", lcp.vector);
    // The 2-D coefficients, from the frictionless and static problems at the same instant.
    let b = system.frictionless().matrix[(0, 0)];
    assert!((b - (1.0 + 16.0 * theta.cos().powi(2))).abs() < 1e-12);
    assert!((b - 2.527864).abs() < 1e-6);
    let boxed = ContactSystem::new(&bodies, &contacts, 1e9)
        .unwrap()
        .static_friction();
    // t̂_x is along the free tangential acceleration here; B, C, E up to that sign.
    let (bb, cc, ee) = (
        boxed.matrix[(0, 0)],
        boxed.matrix[(0, 1)],
        boxed.matrix[(1, 1)],
    );
    assert!((bb - 2.527864).abs() < 1e-6 && (cc.abs() - 4.702282).abs() < 1e-6);
    assert!((ee - 15.472136).abs() < 1e-6 && (bb * ee - cc * cc - 17.0).abs() < 1e-9);
    let oracle = basic_solutions(&lcp.matrix, &lcp.vector, 1e-9).unwrap();
    let mut found: Vec<f64> = oracle.iter().map(|s| s.z[0]).collect();
    found.sort_by(f64::total_cmp);
    assert_eq!(found.len(), 2);
    assert!(found[0].abs() < 1e-12 && (found[1] - 1.0).abs() < 1e-12);
    let cold = solution(lcp.solve(None, &options()).unwrap());
    assert_eq!(cold.z[0], 0.0);
    assert!((cold.w[0] - 1.0).abs() < 1e-12);
    let kept = solution(
        lcp.solve(Some(&Basis::from_z_indices(1, &[0])), &options())
            .unwrap(),
    );
    assert_eq!(kept.start, Start::Warm);
    assert!((kept.z[0] - 1.0).abs() < 1e-12 && kept.w[0].abs() < 1e-12);
    // Newton–Euler on the rod: with f_N = m the tip's normal acceleration vanishes.
    let force = lcp.contact_forces(&kept.z)[0];
    assert!((force - Vec3::new(mu, 1.0, 0.0)).norm() < 1e-12);
    let (a, alpha) = body_accelerations(&bodies, &contacts, &[force])[0];
    let r = contacts[0].point - bodies[0].center_of_mass;
    let w = bodies[0].angular_velocity;
    let tip = a + alpha.cross(&r) + w.cross(&w.cross(&r));
    assert!(tip.y.abs() < 1e-12, "tip a_N = {}", tip.y);
}

/// Next-capabilities §1.4: the Painlevé predicate for a uniform rod (J = m h²/3) sliding on
/// one end: A = 1/m + h² cos²θ/J − μ h² sin θ cos θ/J, negative (inconsistent or
/// indeterminate) iff μ > (t² + 4)/(3t), t = tan θ, least μ* = 4/3 at θ = atan 2; for
/// J = m h² (Drake's rod2d) μ* = 3 at 45°. Checked on the sliding-friction LCP to 1e-12.
#[test]
fn painleve_predicate_for_uniform_rods() {
    let h = 1.0;
    for (inertia, theta, mu_star) in [
        (h * h / 3.0, 2f64.atan(), 4.0 / 3.0),
        (
            h * h / 3.0,
            1.0,
            (1f64.tan().powi(2) + 4.0) / (3.0 * 1f64.tan()),
        ),
        (h * h, 45f64.to_radians(), 3.0),
    ] {
        for mu in [mu_star - 0.01, mu_star, mu_star + 0.01] {
            let (body, contact) = rod(theta, 0.0, -1.0, 1.0, mu, inertia);
            let lcp = ContactSystem::new(&[body], &[contact], 1e-9)
                .unwrap()
                .sliding_friction();
            let a = lcp.matrix[(0, 0)];
            let expected = 1.0 + (theta.cos().powi(2) - mu * theta.sin() * theta.cos()) / inertia;
            assert!((a - expected).abs() < 1e-12);
            if mu == mu_star {
                assert!(a.abs() < 1e-12);
            } else {
                assert_eq!(a < 0.0, mu > mu_star);
            }
        }
    }
}

/// V6: the inconsistent rod (ω = 0, g = 1): a_N = −f_N/m − g (10-13) has no solution (the
/// oracle finds none) and Lemke ends on the ray zʰ = 1, z₀ʰ = 1, A zʰ = −1 (digest). The ray's
/// impulse α(n̂ + μ x̂) stops the sliding tip at α = 1/(C + μE) (Δ slip per unit −(C + μE),
/// Δ v_N per unit B + μC = −1), leaving the tip approaching the base at −α; a frictional
/// collision (e = 0) then stops it (v = 0 at the tip, energy not added), and the static
/// friction problem afterwards has a solution (consistent): f_N > 0, a_N = 0, |f_x| ≤ μ f_N.
#[test]
fn inconsistent_rod_ray_gives_the_impulse_and_then_a_consistent_force() {
    let (theta, mu, g) = (baraff_theta(), baraff_mu(), 1.0);
    let (body, contact) = rod(theta, 0.0, -1.0, g, mu, 1.0 / 16.0);
    let mut bodies = vec![body];
    let contacts = vec![contact];
    let system = ContactSystem::new(&bodies, &contacts, 1e-9).unwrap();
    let lcp = system.sliding_friction();
    assert!((lcp.matrix[(0, 0)] + 1.0).abs() < 1e-12 && (lcp.vector[0] + 1.0).abs() < 1e-12);
    assert!(
        basic_solutions(&lcp.matrix, &lcp.vector, 1e-9)
            .unwrap()
            .is_empty()
    );
    let Outcome::Ray(ray) = lcp.solve(None, &options()).unwrap() else {
        panic!("the inconsistent rod must end on a ray");
    };
    check_ray(&lcp.matrix, &ray.direction, 1e-12).unwrap();
    assert_eq!(ray.direction[0], 1.0);
    assert!((ray.direction_z0 - 1.0).abs() < 1e-12 && (ray.response[0] + 1.0).abs() < 1e-12);
    let impulse = ray_impulse(&system, &lcp, &ray).expect("the tip slows down");
    let (c, e) = (
        -16.0 * theta.sin() * theta.cos(),
        1.0 + 16.0 * theta.sin().powi(2),
    );
    let alpha = 1.0 / (c + mu * e);
    assert!(
        (impulse.scale - alpha).abs() < 1e-12,
        "{} vs {alpha}",
        impulse.scale
    );
    assert_eq!(impulse.stopped, 0);
    assert!((impulse.normal_velocities[0] + alpha).abs() < 1e-12);
    apply_impulses(&mut bodies, &contacts, &impulse.impulses);
    let tip = bodies[0].point_velocity(&contacts[0].point);
    assert!(
        tip.x.abs() < 1e-12 && (tip.y + alpha).abs() < 1e-12,
        "tip {tip}"
    );
    // The collision the ray leaves.
    let system = ContactSystem::new(&bodies, &contacts, 1e-9).unwrap();
    assert!(!system.is_sliding(0));
    let hit = collide(&system, true, None, &options()).unwrap();
    assert!(hit.energy_change <= 0.0);
    apply_impulses(&mut bodies, &contacts, &hit.impulses);
    let tip = bodies[0].point_velocity(&contacts[0].point);
    assert!(tip.norm() < 1e-12, "tip after the collision {tip}");
    // Now static: the force problem is consistent.
    let system = ContactSystem::new(&bodies, &contacts, 1e-9).unwrap();
    let lcp = system.static_friction();
    let s = solution(lcp.solve(None, &options()).unwrap());
    let f = system.frame(0).transpose() * lcp.contact_forces(&s.z)[0];
    let a = system.accelerations(&lcp.contact_forces(&s.z))[0];
    assert!(f.x > 0.0 && a.x.abs() < 1e-12 && f.y.abs() <= mu * f.x * (1.0 + 1e-12));
}

/// Regression (issue 35, a 3-2-1 pyramid of cubes under constraint contact): a ray Lemke read
/// off rounding, whose direction barely touches the one sliding contact (a slip rate of 1e-12
/// per unit) but pushes hard at another, was scaled by that rate's reciprocal: a group's
/// members reached 1e12 m/s and the event loop stalled on their envelopes. A ray's impulse
/// stops a slide and takes energy out (each contact does the work `Pᵢ·(sᵢ + sᵢ⁺)/2 ≤ 0`);
/// one that adds energy is refused (`None`: the caller answers by a collision solve), and
/// the true ray of the inconsistent rod (V6) still gives its impulse, which takes energy out.
#[test]
fn a_ray_whose_impulse_would_add_energy_is_refused() {
    let (theta, mu) = (baraff_theta(), baraff_mu());
    let (body, tip) = rod(theta, 0.0, -1.0, 1.0, mu, 1.0 / 16.0);
    // A second body: a unit ball resting on the ground on a frictionless contact.
    let ball = ContactBody {
        inverse_mass: 1.0,
        inverse_inertia: Mat3::identity() * 2.5,
        center_of_mass: Point::new(5.0, 1.0, 0.0),
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
        force: Vec3::new(0.0, -1.0, 0.0),
        torque: Vec3::zeros(),
    };
    let under = ContactPoint::new(Some(1), None, Point::new(5.0, 0.0, 0.0), Vec3::y());
    let bodies = vec![body, ball];
    let system = ContactSystem::new(&bodies, &[tip.clone(), under], 1e-9).unwrap();
    let lcp = system.sliding_friction();
    let fake = Ray {
        z: DVector::zeros(2),
        z0: 1.0,
        direction: DVector::from_vec(vec![1e-12, 1.0]),
        direction_z0: 1.0,
        response: DVector::zeros(2),
        pivots: 0,
        start: Start::Cold,
    };
    // Without the check: α = 1 / (1e-12 (C + μE)) ≈ 7e10, the ball thrown at 7e10 m/s.
    let unit = lcp.contact_forces(&fake.direction);
    let rate = system.velocities_after(&unit)[0].y - system.velocities()[0].y;
    assert!(
        rate.abs() < 1e-10,
        "the fake ray barely touches the slip: {rate}"
    );
    assert_eq!(ray_impulse(&system, &lcp, &fake), None);
    // The inconsistent rod's own ray: its impulse is given, and it takes energy out.
    let alone = ContactSystem::new(&bodies[..1], &[tip], 1e-9).unwrap();
    let lcp = alone.sliding_friction();
    let Outcome::Ray(ray) = lcp.solve(None, &options()).unwrap() else {
        panic!("the inconsistent rod must end on a ray");
    };
    let impulse = ray_impulse(&alone, &lcp, &ray).expect("the tip slows down");
    assert!(alone.kinetic_energy_change(&impulse.impulses) < 0.0);
}

/// V8 (digest, derived LCP): Baraff's subset-sum gadget (Figs. 11.1–11.3). Rods with masses
/// aᵢ (each f = 0 or aᵢ), a base of mass M = 100 pushed by μS, side rods E₁, E₂ of mass 1:
/// the LCP has a solution iff a subset of {aᵢ} sums to S (oracle), and Lemke always returns
/// something valid: a checked solution, or a ray meeting eq. 13-1 (every contact here slides,
/// so any support is at a dynamic contact, Thm. 5).
#[test]
fn subset_sum_gadget_outcomes_are_valid() {
    let (mu, m_e, m_b) = (0.75, 1.0, 100.0);
    for (set, target, satisfiable) in [
        (vec![3.0, 5.0, 7.0], 8.0, true),
        (vec![3.0, 5.0, 7.0], 4.0, false),
        (vec![3.0, 5.0, 7.0], 15.0, true),
        (vec![2.0, 4.0, 6.0], 5.0, false),
        (vec![1.0, 2.0, 3.0, 4.0], 6.0, true),
    ] {
        let k = set.len();
        let n = k + 2;
        let mut m = DMatrix::zeros(n, n);
        let mut q = DVector::zeros(n);
        for (i, a) in set.iter().enumerate() {
            m[(i, i)] = -1.0 / a;
            q[i] = 1.0;
        }
        // x_B'' = (μS − μΣf + f_E1 − f_E2)/M; a_E1 = −f_E1/m_E + x_B''; a_E2 = −f_E2/m_E − x_B''.
        let (e1, e2) = (k, k + 1);
        for (row, sign) in [(e1, 1.0), (e2, -1.0)] {
            for i in 0..k {
                m[(row, i)] = -sign * mu / m_b;
            }
            m[(row, e1)] += sign / m_b;
            m[(row, e2)] -= sign / m_b;
            q[row] = sign * mu * target / m_b;
        }
        m[(e1, e1)] -= 1.0 / m_e;
        m[(e2, e2)] -= 1.0 / m_e;
        let oracle = basic_solutions(&m, &q, 1e-9).unwrap();
        assert_eq!(!oracle.is_empty(), satisfiable, "{set:?}, S = {target}");
        match solve(&m, &q, None, &options()).unwrap() {
            Outcome::Solution(s) => {
                check_solution(&m, &q, &s.z, 1e-9).unwrap();
            }
            Outcome::Ray(r) => check_ray(&m, &r.direction, 1e-9).unwrap(),
            other => panic!("{other:?}"),
        }
    }
}

/// V10: Baraff's Thm. 4 — every 2-D one-contact static-friction problem (a_N = B f_N + C f_x +
/// F, a_x = C f_N + E f_x + G, B, E > 0, BE > C²) has a solution. The oracle is the theorem's
/// own case analysis (f = 0 if F ≥ 0; interior a_N = a_x = 0 inside the cone; either edge
/// f_x = ±μ f_N with a_N = 0 and f_x a_x ≤ 0): at least one case holds on 2000 random
/// problems. Lemke on the box-friction LCP solves every one (no ray), and its answer meets
/// eq. 14-2 checked directly (to 1e-9 relative).
#[test]
fn static_friction_theorem_4_oracle_and_lemke() {
    let mut rng = Pcg64::seed_from_u64(4);
    for trial in 0..2000 {
        let b: f64 = rng.random_range(0.1..5.0);
        let e: f64 = rng.random_range(0.1..5.0);
        let c = rng.random_range(-0.999..0.999) * (b * e).sqrt();
        let f = rng.random_range(-3.0..3.0);
        let g = rng.random_range(-10.0..10.0);
        let mu = rng.random_range(0.05..2.0);
        let a_n = |fn_: f64, fx: f64| b * fn_ + c * fx + f;
        let a_x = |fn_: f64, fx: f64| c * fn_ + e * fx + g;
        // Thm. 4's cases.
        let mut cases = 0;
        if f >= 0.0 {
            cases += 1;
        }
        let det = b * e - c * c;
        let (fn_i, fx_i) = ((-f * e + c * g) / det, (-g * b + c * f) / det);
        if fn_i >= 0.0 && fx_i.abs() <= mu * fn_i {
            cases += 1;
        }
        for sigma in [-1.0, 1.0] {
            let denominator = b + c * sigma * mu;
            if denominator != 0.0 {
                let fn_e = -f / denominator;
                if fn_e >= 0.0 && sigma * mu * fn_e * a_x(fn_e, sigma * mu * fn_e) <= 0.0 {
                    cases += 1;
                }
            }
        }
        assert!(cases >= 1, "trial {trial}: Thm. 4 fails?");
        // Lemke on the LCP of the box model (y decoupled: the problem is 2-D).
        let w = Mat3::new(b, c, 0.0, c, e, 0.0, 0.0, 0.0, 1.0);
        let system = ContactSystem::from_parts(
            vec![w],
            vec![Vec3::new(f, g, 0.0)],
            vec![Vec3::zeros()],
            vec![mu],
            vec![false],
        );
        let lcp = system.static_friction();
        let outcome = lcp.solve(None, &options()).unwrap();
        let Outcome::Solution(s) = outcome else {
            panic!("trial {trial}: Lemke did not solve B {b} C {c} E {e} F {f} G {g} μ {mu}");
        };
        let force = lcp.contact_forces(&s.z)[0];
        let (fn_, fx) = (force.x, force.y);
        let (an, ax) = (a_n(fn_, fx), a_x(fn_, fx));
        let scale = (b + c.abs() + e) * (fn_.abs() + fx.abs()) + f.abs() + g.abs();
        let tol = 1e-9 * scale;
        assert!(fn_ >= -tol && an >= -tol && (fn_ * an).abs() <= tol * scale);
        assert!(fx.abs() <= mu * fn_ + tol);
        let sticking = ax.abs() <= tol;
        let slipping = (fx.abs() - mu * fn_).abs() <= tol && fx * ax <= tol * scale;
        assert!(
            sticking || slipping,
            "trial {trial}: f = ({fn_}, {fx}), a = ({an}, {ax})"
        );
    }
}

/// V10 (digest, derived): with the rod's coefficients (B, C, E of V5, F = 1, μ = 0.75) and
/// G = −8 the static problem has three separate solutions: f = 0; the edge f_x = μ f_N with
/// f_N = F/−(B + μC) = 1.00115; and the interior f_N = 1.3027, f_x = 0.9130 — the solution
/// set is disconnected (Baraff §14.1: "not a convex program"). The enumeration of the
/// box-friction LCP lists all three (to 1e-4, the digest's digits; exact values from the
/// closed forms to 1e-9).
#[test]
fn static_friction_solutions_are_disconnected() {
    let theta = baraff_theta();
    let b = 1.0 + 16.0 * theta.cos().powi(2);
    let c = -16.0 * theta.sin() * theta.cos();
    let e = 1.0 + 16.0 * theta.sin().powi(2);
    let (f, g, mu) = (1.0, -8.0, 0.75);
    let system = ContactSystem::from_parts(
        vec![Mat3::new(b, c, 0.0, c, e, 0.0, 0.0, 0.0, 1.0)],
        vec![Vec3::new(f, g, 0.0)],
        vec![Vec3::zeros()],
        vec![mu],
        vec![false],
    );
    let lcp = system.static_friction();
    let forces: Vec<Vec3> = basic_solutions(&lcp.matrix, &lcp.vector, 1e-9)
        .unwrap()
        .iter()
        .map(|s| lcp.contact_forces(&s.z)[0])
        .collect();
    let edge = f / -(b + mu * c);
    let det = b * e - c * c;
    let interior = ((-f * e + c * g) / det, (-g * b + c * f) / det);
    for (fn_, fx, digest) in [
        (0.0, 0.0, (0.0, 0.0)),
        (edge, mu * edge, (1.0012, 0.75 * 1.0012)),
        (interior.0, interior.1, (1.3027, 0.9130)),
    ] {
        assert!((fn_ - digest.0).abs() < 1e-4 && (fx - digest.1).abs() < 1e-4);
        assert!(
            forces
                .iter()
                .any(|p| (p.x - fn_).abs() < 1e-9 && (p.y - fx).abs() < 1e-9),
            "({fn_}, {fx}) not among {forces:?}"
        );
    }
}
