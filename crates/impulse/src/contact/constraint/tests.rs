//! A constraint group on its own, against closed forms: resting, sliding to a stop on a ramp,
//! sticking below the friction angle, a ball sliding into rolling, a stack.

use super::held::{Geometry, HeldContact, Side};
use super::*;
use crate::math::{Quat, Vec3};

const G: f64 = 9.81;

fn holding() -> Holding {
    Holding {
        tolerance: Tolerance::default(),
        sliding_speed: 1e-4,
        stiffness: 100.0,
        release_gap: 1e-3,
        gap: 0.0,
        penalty: None,
    }
}

fn box_member(m: f64, size: Vec3, gravity: Vec3) -> Member {
    let (x, y, z) = (size.x, size.y, size.z);
    Member {
        collider: 0,
        body: BodyId(0),
        inverse_mass: 1.0 / m,
        principal_inertia: Vec3::new(y * y + z * z, x * x + z * z, x * x + y * y) * (m / 12.0),
        force: gravity * m,
        torque: Vec3::zeros(),
    }
}

fn state(position: Vec3, orientation: Quat, velocity: Vec3, angular: Vec3) -> BodyState {
    BodyState {
        position,
        orientation,
        velocity,
        angular_velocity: angular,
    }
}

/// The bottom corners of a box (half extents `h`, body frame) as held contacts of member `k`
/// on the fixed plane through `plane` with normal `n` (world).
fn corners_on_plane(k: usize, h: Vec3, plane: Vec3, n: Vec3, mu: f64) -> Vec<HeldContact> {
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .into_iter()
        .map(|(sx, sy)| HeldContact {
            pair: (k, 99),
            a: Side::Member(k),
            b: Side::Fixed,
            geometry: Geometry::OnPlane {
                core_a: Vec3::new(sx * h.x, sy * h.y, -h.z),
                radius_a: 0.0,
                plane_b: plane,
                normal_b: n,
            },
            friction: mu,
            restitution: 0.0,
            sliding: false,
            slip_direction: crate::math::Vec3::zeros(),
            spring: Default::default(),
            face: Vec::new(),
        })
        .collect()
}

/// Member 0: mass `m`, principal moments `inertia`, under gravity.
fn heavy_member(m: f64, inertia: Vec3) -> Member {
    Member {
        collider: 0,
        body: BodyId(0),
        inverse_mass: 1.0 / m,
        principal_inertia: inertia,
        force: Vec3::new(0.0, 0.0, -G) * m,
        torque: Vec3::zeros(),
    }
}

/// A point of member 0 (body frame `core`, swept by `radius`) on the fixed plane through the
/// origin with normal `n` (the penalty tests' too).
pub(super) fn on_plane(core: Vec3, radius: f64, n: Vec3, mu: f64, spring: penalty::Spring) -> HeldContact {
    HeldContact {
        pair: (0, 99),
        a: Side::Member(0),
        b: Side::Fixed,
        geometry: Geometry::OnPlane {
            core_a: core,
            radius_a: radius,
            plane_b: Vec3::zeros(),
            normal_b: n,
        },
        friction: mu,
        restitution: 0.0,
        sliding: false,
        slip_direction: Vec3::zeros(),
        spring,
        face: Vec::new(),
    }
}

/// Member 0's point `core` held on the ground z = 0.
fn on_ground(core: Vec3, radius: f64, mu: f64) -> HeldContact {
    on_plane(core, radius, Vec3::z(), mu, Default::default())
}

#[test]
fn a_box_resting_on_the_ground_stays_and_its_normal_forces_carry_its_weight() {
    // The chair on four legs (Baraff §8.1) in motion: 2 kg, 0.2 m cube at rest on z = 0 for
    // 2 s. Its centre moves less than 1e-10 m (the integrator's absolute tolerance is 1e-12 a
    // step), and the four normal forces at the start sum to m g (1e-9 relative): the LCP's
    // acceleration is unique although the forces are not.
    let m = 2.0;
    let h = Vec3::repeat(0.1);
    let gravity = Vec3::new(0.0, 0.0, -G);
    let start = state(Vec3::new(0.0, 0.0, 0.1), Quat::identity(), Vec3::zeros(), Vec3::zeros());
    let mut group = ContactGroup::new(
        vec![box_member(m, h * 2.0, gravity)],
        &[start],
        corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), 0.5),
        holding(),
        0.0,
    );
    let (bodies, points) = group.contact_problem();
    let system = ContactSystem::new(&bodies, &points, 1e-4).unwrap();
    let lcp = system.static_friction();
    let Ok(Outcome::Solution(solution)) = lcp.solve(None, &LemkeOptions::default()) else {
        panic!("no forces for a box at rest");
    };
    let total: f64 = lcp.normal_forces(&solution.z).iter().sum();
    assert!((total - m * G).abs() < 1e-9 * m * G, "{total} vs {}", m * G);
    let end = group.advance_to(2.0).unwrap();
    assert!((end[0].position - start.position).norm() < 1e-10, "{:?}", end[0].position);
    assert!(end[0].velocity.norm() < 1e-10);
}

/// A box sliding down (or up) a fixed ramp of angle `theta` (about y), at `speed` along the
/// ramp's downhill direction, with friction `mu`: its centre's position along the downhill
/// direction over time.
fn ramp_group(theta: f64, speed: f64, mu: f64) -> (ContactGroup, Vec3) {
    let m = 1.0;
    let size = Vec3::new(0.2, 0.2, 0.1);
    let gravity = Vec3::new(0.0, 0.0, -G);
    let tilt = Quat::from_scaled_axis(Vec3::y() * theta);
    let normal = tilt * Vec3::z();
    let downhill = tilt * Vec3::x();
    // Downhill is +x tilted down: the ramp's surface through the origin.
    let downhill = if downhill.z > 0.0 { -downhill } else { downhill };
    let centre = normal * (size.z / 2.0);
    let start = state(centre, tilt, downhill * speed, Vec3::zeros());
    let group = ContactGroup::new(
        vec![box_member(m, size, gravity)],
        &[start],
        corners_on_plane(0, size / 2.0, Vec3::zeros(), normal, mu),
        holding(),
        0.0,
    );
    (group, downhill)
}

#[test]
fn a_block_sliding_down_a_ramp_stops_when_theory_says_and_stays() {
    // Mirtich's V1 under constraint-based contact: a block on a 20° ramp with μ = 0.5 at
    // 1 m/s downhill decelerates at g (μ cos θ − sin θ) and stops at t = v₀ / (g (μ cos θ −
    // sin θ)) = 0.80 s (within 0.5 %), after v₀² / (2 g (μ cos θ − sin θ)) along the ramp; then it
    // stays (less than 1e-6 m over the next 2 s).
    let (theta, v0, mu) = (20f64.to_radians(), 1.0, 0.5);
    let deceleration = G * (mu * theta.cos() - theta.sin());
    let stop = v0 / deceleration;
    let (mut group, downhill) = ramp_group(theta, v0, mu);
    let start = group.member_state(0).position;
    // Find the stop: the first sample whose downhill speed is below the sliding threshold
    // (1e-4 m/s), where dynamic friction ends and static friction takes over.
    let mut t = 0.0;
    let mut stopped_at = None;
    while t < 2.0 * stop {
        t += 1e-3;
        let s = group.advance_to(t).unwrap()[0];
        if stopped_at.is_none() && s.velocity.dot(&downhill) < 1e-4 {
            stopped_at = Some(t);
        }
    }
    let stopped_at = stopped_at.expect("the block stops");
    assert!(
        (stopped_at - stop).abs() < 5e-3 * stop,
        "stopped at {stopped_at} s, theory {stop} s"
    );
    let travelled = (group.member_state(0).position - start).dot(&downhill);
    let expected = v0 * v0 / (2.0 * deceleration);
    assert!(
        (travelled - expected).abs() < 5e-3 * expected,
        "{travelled} m vs {expected} m"
    );
    let rest = group.member_state(0).position;
    let later = group.advance_to(t + 2.0).unwrap()[0].position;
    assert!((later - rest).norm() < 1e-6, "crept {} m", (later - rest).norm());
}

#[test]
fn a_box_at_rest_on_a_slope_below_the_friction_angle_stays() {
    // 25° slope, μ = 0.6 > tan 25° = 0.466: static friction holds it; its centre moves less
    // than 1e-6 m in 10 s (issue 35's bound).
    let (mut group, _) = ramp_group(25f64.to_radians(), 0.0, 0.6);
    let start = group.member_state(0).position;
    let end = group.advance_to(10.0).unwrap()[0].position;
    assert!((end - start).norm() < 1e-6, "moved {} m", (end - start).norm());
}

#[test]
fn a_ball_sliding_on_the_ground_starts_rolling_at_two_sevenths() {
    // A solid ball (r = 0.1 m, 1 kg) launched sliding at v₀ = 2 m/s with no spin, μ = 0.2:
    // friction μ m g slows it and spins it up until v = r ω at t = 2 v₀ / (7 μ g) (within 1 %),
    // then it rolls at 5 v₀ / 7 (1e-3 relative), its slip decaying below 1e-4 m/s.
    let (r, m, v0, mu) = (0.1, 1.0, 2.0, 0.2);
    let member = heavy_member(m, Vec3::repeat(0.4 * m * r * r));
    let contact = on_ground(Vec3::zeros(), r, mu);
    let start = state(Vec3::new(0.0, 0.0, r), Quat::identity(), Vec3::x() * v0, Vec3::zeros());
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding(), 0.0);
    let roll = 2.0 * v0 / (7.0 * mu * G);
    let slip = |s: &BodyState| s.velocity.x - r * s.angular_velocity.y;
    let mut t = 0.0;
    let mut rolling_at = None;
    while t < 2.0 * roll {
        t += 1e-3;
        let s = group.advance_to(t).unwrap()[0];
        if rolling_at.is_none() && slip(&s) < 1e-3 {
            rolling_at = Some(t);
        }
    }
    let rolling_at = rolling_at.expect("the ball rolls");
    assert!((rolling_at - roll).abs() < 1e-2 * roll, "{rolling_at} vs {roll}");
    let s = group.advance_to(2.0 * roll + 0.5).unwrap()[0];
    assert!((s.velocity.x - 5.0 * v0 / 7.0).abs() < 1e-3 * v0, "{}", s.velocity.x);
    assert!(slip(&s).abs() < 1e-4, "slip {}", slip(&s));
    assert!((s.position.z - r).abs() < 1e-9, "height {}", s.position.z);
}

#[test]
fn a_stack_of_three_boxes_rests_and_each_layer_carries_the_weight_above() {
    // Three 1 kg, 0.2 m cubes stacked on the ground: each interface's normal forces sum to the
    // weight above it (1e-9 relative), and over 3 s the top moves less than 1e-9 m.
    let h = Vec3::repeat(0.1);
    let gravity = Vec3::new(0.0, 0.0, -G);
    let members: Vec<Member> = (0..3)
        .map(|k| Member {
            collider: k,
            ..box_member(1.0, h * 2.0, gravity)
        })
        .collect();
    let states: Vec<BodyState> = (0..3)
        .map(|k| {
            state(
                Vec3::new(0.0, 0.0, 0.1 + 0.2 * k as f64),
                Quat::identity(),
                Vec3::zeros(),
                Vec3::zeros(),
            )
        })
        .collect();
    let mut contacts = corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), 0.5);
    for k in 1..3 {
        for mut c in corners_on_plane(k, h, Vec3::new(0.0, 0.0, 0.1), Vec3::z(), 0.5) {
            c.b = Side::Member(k - 1);
            c.pair = (k, k - 1);
            contacts.push(c);
        }
    }
    let mut group = ContactGroup::new(members, &states, contacts, holding(), 0.0);
    let (bodies, points) = group.contact_problem();
    let system = ContactSystem::new(&bodies, &points, 1e-4).unwrap();
    let lcp = system.static_friction();
    let Ok(Outcome::Solution(solution)) = lcp.solve(None, &LemkeOptions::default()) else {
        panic!("no forces for a stack at rest");
    };
    let normal = lcp.normal_forces(&solution.z);
    for layer in 0..3 {
        let carried: f64 = normal[4 * layer..4 * layer + 4].iter().sum();
        let weight = (3 - layer) as f64 * G;
        assert!((carried - weight).abs() < 1e-9 * weight, "layer {layer}: {carried}");
    }
    let top = states[2].position;
    let end = group.advance_to(3.0).unwrap()[2].position;
    // The contacts' compliance (δ = 1e-7 of the LCP's scale, `COMPLIANCE`) lets each layer
    // settle by δ f / ω², under a nanometre here; beyond that the stack does not move.
    assert!((end - top).norm() < 1e-8, "top moved {} m", (end - top).norm());
}


#[test]
fn the_inconsistent_rod_held_sliding_is_stopped_by_a_ray_impulse_recorded_for_the_events() {
    // Baraff's inconsistent rod (thesis Fig. 10.3, §10.2; digest V6) held in contact from the
    // start: length 2, mass 1, I = m/16 across, θ = 72° from the floor, μ = 0.750245, its tip
    // sliding away from under it at 1 m/s. No normal force keeps the tip out of the floor
    // (a_N = f_N·(1 + 16 cos²θ − 16 μ sinθ cosθ) − g with a negative coefficient), so the
    // first step meets a Lemke ray, answered at t = 0 by the ray's impulse (ch. 13). The
    // recorded impulse pushes the tip up and opposes the slip within the friction cone (1e-9
    // relative), the tip stops sliding (its slip 1 ms later is below 1e-6 m/s, from 1 m/s), and
    // the answer takes energy out, never in.
    let (m, mu) = (1.0, 0.750_245_100_408_926_3);
    let theta = 72f64.to_radians();
    let member = heavy_member(m, Vec3::new(m / 16.0, m / 16.0, 1e-6));
    let contact = on_ground(Vec3::new(0.0, 0.0, -1.0), 0.0, mu);
    // The axis (cos θ, 0, sin θ): a turn of 90° − θ about y; the tip at the origin.
    let tilt = Quat::from_scaled_axis(Vec3::y() * (std::f64::consts::FRAC_PI_2 - theta));
    let centre = tilt * Vec3::z();
    let start = state(centre, tilt, -Vec3::x(), Vec3::zeros());
    let energy = |s: &BodyState| {
        let w = s.orientation.inverse() * s.angular_velocity;
        0.5 * m * s.velocity.norm_squared()
            + 0.5 * (m / 16.0) * (w.x * w.x + w.y * w.y)
            + m * G * s.position.z
    };
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding(), 0.0);
    let after = group.advance_to(1e-3).unwrap()[0];
    let rays = group.take_rays();
    assert_eq!(rays.len(), 1, "{rays:?}");
    let ray = rays[0];
    assert_eq!((ray.time, ray.pair), (0.0, (0, 99)));
    let (normal, tangential) = (ray.impulse.z, Vec3::new(ray.impulse.x, ray.impulse.y, 0.0));
    assert!(normal > 0.0, "{:?}", ray.impulse);
    assert!(tangential.x > 0.0 && tangential.norm() <= mu * normal * (1.0 + 1e-9));
    assert_eq!(group.counters().ray_impulses, 1);
    let tip_velocity = |s: &BodyState| {
        s.velocity + s.angular_velocity.cross(&(s.orientation * Vec3::new(0.0, 0.0, -1.0)))
    };
    let slip = tip_velocity(&after);
    assert!(slip.x.abs() < 1e-6, "tip slip {:?}", slip);
    assert!(energy(&after) <= energy(&start), "{} > {}", energy(&after), energy(&start));
    // Taken once: the events see each ray one time.
    assert!(group.take_rays().is_empty());
}

#[test]
fn a_ray_answered_ahead_of_the_group_and_dropped_by_a_restart_is_not_counted() {
    // Regression: `ray_impulses` was counted when a flight integrating ahead of the group's
    // time answered a ray, and a restart before the group reached it dropped the ray's
    // `events.csv` rows but kept the count, so the summary could report answers that no row
    // shows and no motion kept. Baraff's rod (length 2, mass 1, I = m/16 across,
    // μ = 0.750245; digest V5/V6) held by its tip, sliding at 1 m/s and turning towards the
    // floor at Ω = √(g / sin 82°): its normal row a_N = A f_N + b has A = 1 + 16 cos θ
    // (cos θ − μ sin θ) < 0 (Painlevé's range, 58.7°–84.5°) and b = Ω² sin θ − g, positive
    // above 82°. Set at θ = 82.2°, the tip needs no force until θ passes 82° (after
    // 0.2° / Ω = 1.1 ms of free turning), where Lemke ends on a ray (ch. 13).
    let (m, mu) = (1.0, 0.750_245_100_408_926_3);
    let omega = (G / 82f64.to_radians().sin()).sqrt();
    let theta = 82.2f64.to_radians();
    let member = heavy_member(m, Vec3::new(m / 16.0, m / 16.0, 1e-6));
    let contact = on_ground(Vec3::new(0.0, 0.0, -1.0), 0.0, mu);
    let tilt = Quat::from_scaled_axis(Vec3::y() * (std::f64::consts::FRAC_PI_2 - theta));
    // The tip at the origin moving at (−1, 0, 0): the centre's velocity less ω × r_tip.
    let velocity = Vec3::new(-1.0 + omega * theta.sin(), 0.0, -omega * theta.cos());
    let start = state(tilt * Vec3::z(), tilt, velocity, Vec3::y() * omega);
    let mut group = ContactGroup::new(
        vec![member.clone()],
        &[start],
        vec![contact.clone()],
        holding(),
        0.0,
    );
    // The flight integrates ahead of the group's time (still 0) and answers the ray there.
    group.extend(3e-3).unwrap();
    assert_eq!(group.ray_answers.len(), 1, "the flight met the ray");
    let ahead = group.ray_answers[0];
    // After 82° is passed (1.1 ms), a little later: the tip lifted off while b > 0, and the
    // drift correction's pull on that gap (`ω² (d − d*) + 2 ω ḋ` in b) is a force the tip can
    // do without for a while (measured 1.235 ms).
    assert!((1.1e-3..1.3e-3).contains(&ahead), "ray at {ahead} s");
    // Not reached: neither rows nor a count yet.
    assert!(group.take_rays().is_empty());
    assert_eq!(group.counters().ray_impulses, 0);
    // An impulse from outside at the group's time (here one that changes nothing) restarts
    // the flight: the answer is dropped with its rows, and with its count.
    group.set_member_velocity(0, start.velocity, start.angular_velocity);
    assert!(group.take_rays().is_empty());
    assert_eq!(group.counters().ray_impulses, 0);
    // Reached (a group from the same start, advanced past it), the ray is one answer with its
    // rows at its time. (The restarted group above keeps the contact mode and Lemke basis its
    // dropped flight ended with, and with the indeterminate tip's pushing branch it meets no
    // ray by 3 ms: noted in docs/sources.md, "Ray answers counted when reached".)
    let mut group = ContactGroup::new(vec![member], &[start], vec![contact], holding(), 0.0);
    group.advance_to(3e-3).unwrap();
    let rays = group.take_rays();
    assert!(!rays.is_empty() && rays.iter().all(|r| r.time == ahead), "{rays:?}");
    assert_eq!(group.counters().ray_impulses, 1);
}

/// One velocity-level time step (`time_step`) of member 0 from `start`, holding `contacts`, with
/// Lemke's impulses.
fn one_time_step(member: Member, start: BodyState, contacts: Vec<HeldContact>, h: f64) -> BodyState {
    let solver = time_step::StepImpulses::Lemke { fallbacks: &mut 0 };
    time_step_by(member, start, contacts, h, solver)
}

/// The same with impulses from projected Gauss–Seidel, as a large group takes it (`iterative`).
fn one_swept_time_step(member: Member, start: BodyState, contacts: Vec<HeldContact>, h: f64) -> BodyState {
    let solver = time_step::StepImpulses::Sweeps { last: &mut Vec::new() };
    time_step_by(member, start, contacts, h, solver)
}

fn time_step_by(
    member: Member,
    start: BodyState,
    contacts: Vec<HeldContact>,
    h: f64,
    solver: time_step::StepImpulses<'_>,
) -> BodyState {
    let group = ContactGroup::new(vec![member], &[start], contacts, holding(), 0.0);
    let problem = group_ode(&group.model, &group.warm, &group.counters, false).problem(&group.state);
    let next = time_step::time_step(&group.model, problem, &group.state, h, 0.0, solver).expect("a step");
    state_of(&next, 0)
}

#[test]
fn a_time_step_of_a_box_at_rest_on_the_ground_leaves_it_at_rest() {
    // Stewart–Trinkle's step: gravity's h g of approach at the four corners is stopped by the
    // inelastic contact impulses (their sum m g h), so velocity and position stay zero and put
    // (1e-12 m/s and m: rounding of a 4-contact LCP).
    let m = 2.0;
    let h = Vec3::repeat(0.1);
    let start = state(Vec3::new(0.0, 0.0, 0.1), Quat::identity(), Vec3::zeros(), Vec3::zeros());
    let member = box_member(m, h * 2.0, Vec3::new(0.0, 0.0, -G));
    let after = one_time_step(member, start, corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), 0.5), 1e-4);
    assert!(after.velocity.norm() < 1e-12, "{}", after.velocity);
    assert!(after.angular_velocity.norm() < 1e-11, "{}", after.angular_velocity);
    assert!((after.position - start.position).norm() < 1e-12);
}

#[test]
fn a_time_step_of_a_sliding_box_takes_coulombs_impulse_off_its_speed() {
    // A box sliding at 1 m/s along x on the ground, μ = 0.5: over h the friction impulse is
    // μ m g h, so v' = 1 − μ g h (exact for a velocity-level step whose friction reaches its
    // bound; 1e-12 m/s), with no vertical motion, and x moves by h v'.
    let (m, mu, step) = (2.0, 0.5, 1e-4);
    let h = Vec3::repeat(0.1);
    let start = state(
        Vec3::new(0.0, 0.0, 0.1),
        Quat::identity(),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::zeros(),
    );
    let member = box_member(m, h * 2.0, Vec3::new(0.0, 0.0, -G));
    let after = one_time_step(member, start, corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), mu), step);
    let expected = 1.0 - mu * G * step;
    assert!((after.velocity.x - expected).abs() < 1e-12, "{} vs {expected}", after.velocity.x);
    assert!(after.velocity.z.abs() < 1e-12 && after.velocity.y.abs() < 1e-12);
    assert!((after.position.x - step * after.velocity.x).abs() < 1e-15);
}

#[test]
fn a_time_step_with_its_contact_open_is_free_flight() {
    // A ball 0.5 m above the ground (its contact open far past the release gap) falls freely:
    // v' = v + g h, x' = x + h v' (symplectic Euler; exact to rounding, 1e-15).
    let step = 1e-4;
    let start = state(
        Vec3::new(0.0, 0.0, 0.6),
        Quat::identity(),
        Vec3::new(0.3, 0.0, -1.0),
        Vec3::new(0.0, 2.0, 0.0),
    );
    let member = heavy_member(1.0, Vec3::repeat(0.004));
    let after = one_time_step(member, start, vec![on_ground(Vec3::zeros(), 0.1, 0.5)], step);
    let v = Vec3::new(0.3, 0.0, -1.0 - G * step);
    assert!((after.velocity - v).norm() < 1e-15);
    assert!((after.position - (start.position + v * step)).norm() < 1e-15);
    assert!((after.angular_velocity - start.angular_velocity).norm() < 1e-15);
}

#[test]
fn a_swept_time_step_of_a_box_at_rest_or_sliding_matches_the_exact_impulses() {
    // The time step of a large group (`iterative`): its impulses from projected Gauss–Seidel
    // must give what Lemke's give on the box above, to the sweeps' tolerance (1e-3 of the
    // sliding speed, 1e-7 m/s here): at rest it stays (velocity under 1e-6 m/s, position
    // under 1e-10 m after 1e-4 s); sliding at 1 m/s, μ = 0.5, it loses μ g h (Coulomb's
    // impulse at its bound, which the sweeps' exact cone reaches).
    let (m, mu, step) = (2.0, 0.5, 1e-4);
    let h = Vec3::repeat(0.1);
    let member = box_member(m, h * 2.0, Vec3::new(0.0, 0.0, -G));
    let at_rest = state(Vec3::new(0.0, 0.0, 0.1), Quat::identity(), Vec3::zeros(), Vec3::zeros());
    let corners = || corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), mu);
    let after = one_swept_time_step(member.clone(), at_rest, corners(), step);
    assert!(after.velocity.norm() < 1e-6, "{}", after.velocity);
    assert!(after.angular_velocity.norm() < 1e-5, "{}", after.angular_velocity);
    assert!((after.position - at_rest.position).norm() < 1e-10);
    let sliding = state(
        Vec3::new(0.0, 0.0, 0.1),
        Quat::identity(),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::zeros(),
    );
    let after = one_swept_time_step(member.clone(), sliding, corners(), step);
    let exact = one_time_step(member, sliding, corners(), step);
    let expected = 1.0 - mu * G * step;
    assert!((after.velocity.x - expected).abs() < 1e-6, "{} vs {expected}", after.velocity.x);
    assert!((after.velocity - exact.velocity).norm() < 1e-6);
    assert!(after.velocity.z.abs() < 1e-6 && after.velocity.y.abs() < 1e-6);
}

#[test]
fn a_group_whose_flight_restarts_faster_than_time_steps_is_swept() {
    // `chatters`: 100 restarts within 100 time steps (1e-2 s) and the group is moved by time
    // steps from then on; 100 restarts spread over more than that, and it keeps its flight.
    let h = Vec3::repeat(0.1);
    let member = box_member(2.0, h * 2.0, Vec3::new(0.0, 0.0, -G));
    let start = state(Vec3::new(0.0, 0.0, 0.1), Quat::identity(), Vec3::zeros(), Vec3::zeros());
    let corners = corners_on_plane(0, h, Vec3::zeros(), Vec3::z(), 0.5);
    let mut slow = ContactGroup::new(vec![member.clone()], &[start], corners.clone(), holding(), 0.0);
    // A restart every 1.1 time steps: a window of 100 restarts spans 99 × 1.1e-4 = 1.09e-2 s,
    // more than 100 time steps. Every half time step: 4.95e-3 s, fewer.
    let step = time_step::TIME_STEP;
    for k in 0..300 {
        assert!(!slow.chatters(1.1 * step * f64::from(k)), "restart {k}");
    }
    let mut fast = ContactGroup::new(vec![member], &[start], corners, holding(), 0.0);
    let swept_at = (0..300).find(|&k| fast.chatters(0.5 * step * f64::from(k)));
    assert_eq!(swept_at, Some(99), "the hundredth restart");
}
