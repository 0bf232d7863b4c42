//! A free ball asleep on a freely moving support (issue 36): a seesaw — a plank on a revolute
//! joint to the world, free to turn — balanced with a ball resting on one end. The ball falls
//! asleep on it while it stays still, the hinge carrying both; a second ball thrown onto the
//! other end turns the plank up under the sleeper, which must wake within that step (not at
//! its end, by which time the plank would have risen into it) and be thrown up as an awake ball
//! would be.

use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};

use std::f64::consts::PI;

const G: f64 = 9.81;
const EPS: f64 = 1e-3;
const STEP: f64 = 1e-3;
/// Restitution of every contact (frictionless).
const E: f64 = 0.5;
/// The plank: mass, half-length, half-width, half-thickness; its centre of mass hangs `KEEL`
/// below the pivot (the centre of its slab), so that it rights itself.
const M_PLANK: f64 = 2.0;
const HALF_LENGTH: f64 = 0.5;
const HALF_WIDTH: f64 = 0.1;
const T: f64 = 0.01;
const KEEL: f64 = 0.1;
/// The cradle at x = −A: two walls (half-length `WALL`, half-thickness `WALL_T`) rising from
/// the slab's top at `ALPHA` to the horizontal on either side, a V that holds the sleeper
/// (a ball on a flat plank would roll off it: the plank tilts under it, it rolls downhill).
const ALPHA: f64 = PI / 6.0;
const WALL: f64 = 0.05;
const WALL_T: f64 = 0.005;
/// The sleeper (mass, radius) rests in the cradle at x = −A; the thrown ball lands at x = +A.
const M_SLEEPER: f64 = 0.5;
const M_THROWN: f64 = 0.3;
const R: f64 = 0.05;
const A: f64 = 0.4;
/// Angular damping of the plank (N m s): its hinge's friction, about 0.85 of critical.
const DAMPING: f64 = 1.0;
/// The thrown ball starts `LIFT` above its landing height, rising at `THROW`.
const LIFT: f64 = 0.102;
const THROW: f64 = 9.0;

/// The plank's centre of mass, x: under the pivot but for the offset that balances the sleeper
/// (M x = m A).
fn plank_offset() -> f64 {
    M_SLEEPER * A / M_PLANK
}

/// The plank's moment of inertia about the hinge (y through the origin): a uniform slab's about
/// its centre of mass plus M times the centre's squared distance from the axis.
fn plank_inertia_about_hinge() -> f64 {
    let own = M_PLANK / 12.0 * (4.0 * HALF_LENGTH * HALF_LENGTH + 4.0 * T * T);
    own + M_PLANK * (plank_offset().powi(2) + KEEL * KEEL)
}

/// The seesaw: the plank (body 0) hinged about y at the origin, its slab centred there; the
/// sleeper (body 1) at rest on its top at x = −A, ε/2 above it; with `thrown`, a third ball
/// (body 2) above x = +A, `LIFT` above its landing height, rising at `THROW`.
fn seesaw(thrown: bool) -> AssemblyWithSolids {
    let x_p = plank_offset();
    let slab_moments = Vec3::new(
        4.0 * HALF_WIDTH * HALF_WIDTH + 4.0 * T * T,
        4.0 * HALF_LENGTH * HALF_LENGTH + 4.0 * T * T,
        4.0 * HALF_LENGTH * HALF_LENGTH + 4.0 * HALF_WIDTH * HALF_WIDTH,
    ) * (M_PLANK / 12.0);
    let mut plank =
        AssemblyBodyDesc::new("plank", M_PLANK, slab_moments, Vec3::new(x_p, 0.0, -KEEL));
    plank.angular_damping = DAMPING;
    let ball = |name: &str, m: f64, at: Vec3| {
        AssemblyBodyDesc::new(name, m, Vec3::repeat(0.4 * m * R * R), at)
    };
    let (s, c) = ALPHA.sin_cos();
    // In the cradle, ε/2 from each wall.
    let rest = T + (R + 0.5 * EPS) / c;
    let mut bodies = vec![plank, ball("sleeper", M_SLEEPER, Vec3::new(-A, 0.0, rest))];
    if thrown {
        let landing = T + R + 0.5 * EPS;
        let mut b = ball("thrown", M_THROWN, Vec3::new(A, 0.0, landing + LIFT));
        b.velocity = Vec3::new(0.0, 0.0, THROW);
        bodies.push(b);
    }
    let hinge = JointDesc {
        name: "hinge".into(),
        a: 0,
        b: None,
        primitive: Primitive::Revolute {
            anchor: Vec3::zeros(),
            axis: Vec3::y(),
        },
    };
    let assembly = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), STEP),
        bodies.clone(),
        vec![hinge],
    )
    .unwrap();
    let sphere = || vec![PlacedShape::new(Shape::Sphere { radius: R })];
    // In the body frame, from the centre of mass: the slab centred on the pivot, and the
    // cradle's walls, each rising from the line x = −A on the slab's top to `side`.
    let from_centre = Vec3::new(-x_p, 0.0, KEEL);
    let placed = |half_extents: Vec3, centre: Vec3, turn: f64| PlacedShape {
        pose: Pose::from_parts(
            (from_centre + centre).into(),
            Quat::from_axis_angle(&Vec3::y_axis(), turn),
        ),
        ..PlacedShape::new(Shape::Box { half_extents })
    };
    let wall = |side: f64| {
        let normal = Vec3::new(-side * s, 0.0, c);
        let centre = Vec3::new(-A, 0.0, T) + Vec3::new(side * c, 0.0, s) * WALL - normal * WALL_T;
        placed(Vec3::new(WALL, HALF_WIDTH, WALL_T), centre, -side * ALPHA)
    };
    // The slab and the two walls are solids of their own on the plank, so that the sleeper
    // touches each wall as a pair (one solid's parts give only their closest contact).
    let on_plank = |name: &str, shape: PlacedShape| Solid {
        name: name.into(),
        body: Some(0),
        shapes: vec![shape],
        pose: Pose::identity(),
    };
    let mut solids = vec![
        on_plank(
            "slab",
            placed(Vec3::new(HALF_LENGTH, HALF_WIDTH, T), Vec3::zeros(), 0.0),
        ),
        on_plank("left wall", wall(-1.0)),
        on_plank("right wall", wall(1.0)),
    ];
    for (b, body) in bodies.iter().enumerate().skip(1) {
        solids.push(Solid {
            name: body.name.clone(),
            body: Some(b),
            shapes: sphere(),
            pose: Pose::identity(),
        });
    }
    AssemblyWithSolids::new(
        assembly,
        solids,
        ContactSettings {
            restitution: E,
            friction: 0.0,
            envelope: EPS,
        },
        &[],
        &[],
    )
    .unwrap()
}

/// The plank's turn about y from level (rad).
fn plank_angle(sim: &AssemblyWithSolids) -> f64 {
    let along = sim.assembly.bodies()[0].pose().rotation * Vec3::x();
    (-along.z).atan2(along.x)
}

/// The ball at rest on the balanced seesaw's end falls asleep (sleep time 0.5 s) while the
/// plank, righted by its keel and damped at the hinge, stays still: asleep by 1.5 s, and from
/// then to 3 s no impulse, its pose kept to the bit, its gap to the plank within [0, ε]. The
/// plank goes on carrying it: Newton for the plank (the hinge's force, its weight and what it
/// carries make M a, a from its centre's velocities by central differences) puts the carried
/// load at the sleeper's weight m g downwards and nothing across it (statics) — each asserted
/// to 1e-6 of m g, measured 1.0e-9 N both (the differences' error; across it was 3.4e-3 N
/// while the load was the mean of its contacts over the sleep time scaled along gravity only,
/// off by the sleeper's momentum change over that time). The plank stays level (balanced:
/// M x_p = m A) within ε over its half-length (measured 2.2e-4 rad; 7.7e-4 with the sideways
/// load). Asleep at 0.5 s after 116 impulses (measured; it woke once and slept at 1.28 s with
/// the sideways load).
#[test]
fn a_ball_at_rest_on_a_balanced_seesaw_falls_asleep_and_the_hinge_carries_it() {
    let mut sim = seesaw(false);
    sim.advance_to(1.5).unwrap();
    assert!(sim.is_asleep(SLEEPER_BODY), "asleep by 1.5 s");
    assert!(!sim.is_asleep(0), "the plank never sleeps");
    let (hits, pose) = (sim.hits.len(), sim.assembly.bodies()[1].pose());
    // The hinge's force and the plank's centre velocity at every step.
    let mut samples = Vec::new();
    let mut worst_angle = 0.0_f64;
    for step in 1501..=3000 {
        sim.advance_to(step as f64 * STEP).unwrap();
        let hinge = sim.assembly.joint_reactions().unwrap()[0].0;
        samples.push((hinge, sim.assembly.bodies()[0].velocity()));
        worst_angle = worst_angle.max(plank_angle(&sim).abs());
    }
    // Newton for the plank: hinge + weight + what it carries = M a, a by central differences
    // (smooth while nothing strikes it: O(h²) of its jerk).
    let (mut worst_vertical, mut worst_across) = (0.0_f64, 0.0_f64);
    for k in 1..samples.len() - 1 {
        let a = (samples[k + 1].1 - samples[k - 1].1) / (2.0 * STEP);
        let carried = M_PLANK * a - samples[k].0 + Vec3::z() * (M_PLANK * G);
        worst_vertical = worst_vertical.max((carried.z + M_SLEEPER * G).abs());
        worst_across = worst_across.max(carried.xy().norm());
    }
    let gap = sleeper_gap(&mut sim);
    println!(
        "asleep after {hits} impulses; the plank carries the sleeper's weight to \
         {worst_vertical:e} N, {worst_across:e} N across it; plank at most {worst_angle:e} rad \
         from level, gap {gap:e}"
    );
    assert_eq!(sim.hits.len(), hits, "no impulse while asleep");
    assert_eq!(sim.assembly.bodies()[1].pose(), pose, "held where it slept");
    assert!((0.0..=EPS).contains(&gap), "gap {gap}");
    let weight = M_SLEEPER * G;
    assert!(
        worst_vertical < 1e-6 * weight,
        "carried off by {worst_vertical}"
    );
    assert!(
        worst_across < 1e-6 * weight,
        "carried across {worst_across}"
    );
    assert!(
        worst_angle * HALF_LENGTH < EPS,
        "plank tilted {worst_angle}"
    );
}

/// The plank's solids (slab, walls) and the sleeper's.
const PLANK_SOLIDS: [usize; 3] = [0, 1, 2];
const SLEEPER: usize = 3;
/// The sleeper's body.
const SLEEPER_BODY: usize = 1;
const THROWN: usize = 4;

/// The sleeper's least gap to the plank's solids now.
fn sleeper_gap(sim: &mut AssemblyWithSolids) -> f64 {
    let pairs: Vec<usize> = (0..sim.pairs().len())
        .filter(|&p| {
            let (i, k) = sim.pairs()[p];
            k == SLEEPER && PLANK_SOLIDS.contains(&i)
        })
        .collect();
    pairs
        .into_iter()
        .filter_map(|p| sim.distance(p))
        .fold(f64::INFINITY, f64::min)
}

/// A ball (m = 0.3) thrown up from 0.102 m above the seesaw's other end at 9 m/s lands on it
/// at x = +A, 0.1 of the way into a step. The sleeper is asleep until then. The landing is a
/// lone frictionless impact on a hinged plank: P₁ = (1 + e) v / (1/m + A²/I) (I the plank's
/// moment about the hinge; v = √(9² + 2 g (0.102 − ε/2)), where the contact is located), which
/// turns the plank at ω' = P₁ A / I and lifts the cradle at A ω' ≈ 2.6 m/s — 2.6 mm a step, more
/// than the sleeper's gap to its walls. The sleeper must wake within that step, at the instant
/// of the landing, and be struck by the walls as an awake ball resting in the cradle would be:
/// at once by each wall it slept at the answering distance (ε/2) from, else by the nearer wall
/// once the rising plank has closed that gap, no later than (ε/2) / |u| after the landing.
/// Poisson's restitution on the walls that strike it together, P₂ = (1 + e) W⁻¹(−u), with u
/// the walls' approach along their normals m_k at their contact points c_k (the plank turning
/// at ω' about the hinge, the ball at rest) and W_jk = m_j·m_k/m + g_j g_k/I, g_k = ŷ·(c_k ×
/// m_k), the Delassus matrix of the ball and the hinged plank. Asserted: the landing's impulse
/// to 1e-6 of P₁ and the walls' impulses to 1e-4 of P₂ (the plank's turn changes under gravity
/// and its damper in the microseconds before a strike; its contact points are the recorded
/// ones), and the sleeper's gap to the plank never below 0 over the next 0.05 s (no
/// penetration: its contacts answered as they close). Measured: P₁ to 1e-8; the sleeper, asleep
/// since 0.5 s 0.53ε from the nearer wall, struck by it 8.7 µs after the landing, P₂ to 9e-7;
/// least gap 0.72 mm. (Before its load was made statics exactly it slept at 1.28 s at ε/2 from
/// both walls and was struck by both at the landing's instant, each to 2e-7.) Before the wake
/// was moved into the step the sleeper woke only at the end of the landing's step: it was
/// struck 0.92 ms late, the plank 1.67 mm into it (least gap −1.67 mm), its impulses 0.5 % off
/// the closed form of a ball struck where it rests.
#[test]
fn a_support_that_moves_wakes_its_sleeper_within_the_step_not_at_its_end() {
    let mut sim = seesaw(true);
    let i_p = plank_inertia_about_hinge();
    let mut landing = None;
    let mut least = f64::INFINITY;
    let mut step = 0;
    // At the start of the landing's step: the time, the thrown ball's vertical velocity and
    // the plank's angular velocity about y.
    let mut start = (0.0, 0.0, 0.0);
    while step < 2500 {
        step += 1;
        let before = sim.hits.len();
        let asleep = sim.is_asleep(SLEEPER_BODY);
        let bodies = sim.assembly.bodies();
        let state = (
            sim.time(),
            bodies[2].velocity().z,
            bodies[0].angular_velocity().y,
        );
        sim.advance_to(step as f64 * STEP).unwrap();
        if landing.is_none()
            && let Some(hit) = sim.hits[before..].iter().find(|h| h.solids == (0, THROWN))
        {
            assert!(asleep, "the sleeper sleeps until the landing");
            landing = Some(hit.clone());
            start = state;
        }
        if let Some(l) = &landing {
            let after = sim.time() - l.time;
            least = least.min(sleeper_gap(&mut sim));
            if after > 0.05 {
                break;
            }
        }
    }
    let landing = landing.expect("the thrown ball lands");
    // The landing: the ball falling ballistically since the step's start, the plank turning
    // at its sway then (gravity's and the damper's torques change it by under 1e-5 rad/s in a
    // step), along the slab's normal n at the contact point c.
    let (t0, v0, sway) = start;
    let (n, c1) = (-landing.normal, landing.point);
    let g1 = c1.cross(&n).y;
    let ball = Vec3::z() * (v0 - G * (landing.time - t0));
    let approach = (ball - (Vec3::y() * sway).cross(&c1)).dot(&n);
    let p1 = (1.0 + E) * -approach / (1.0 / M_THROWN + g1 * g1 / i_p);
    // The ideal fall, for comparison: √(9² + 2 g 0.102) onto a level plank at rest.
    let ideal =
        (1.0 + E) * (THROW * THROW + 2.0 * G * LIFT).sqrt() / (1.0 / M_THROWN + A * A / i_p);
    let omega = sway - p1 * g1 / i_p;
    // The sleeper's first impulses: the walls that strike it at the first instant it is struck
    // after the landing (the impulse of a hit acts on the wall). Both, if it slept with both
    // gaps at the distance contacts are answered at; else the nearer, once the rising plank
    // has closed its gap to that distance.
    let first = sim
        .hits
        .iter()
        .find(|h| h.solids.1 == SLEEPER && h.time >= landing.time)
        .expect("the sleeper is struck")
        .time;
    let struck: Vec<_> = [1, 2]
        .iter()
        .filter_map(|&wall| {
            sim.hits
                .iter()
                .find(|h| h.solids == (wall, SLEEPER) && (h.time - first).abs() < 1e-12)
        })
        .collect();
    let k_n = struck.len();
    // Along m_k (into the sleeper), at c_k.
    let m: Vec<Vec3> = struck.iter().map(|h| -h.normal).collect();
    let c: Vec<Vec3> = struck.iter().map(|h| h.point).collect();
    let g: Vec<f64> = (0..k_n).map(|k| c[k].cross(&m[k]).y).collect();
    let w = |j: usize, k: usize| m[j].dot(&m[k]) / M_SLEEPER + g[j] * g[k] / i_p;
    // The ball at rest minus the plank's point velocity ω' ŷ × c_k, along m_k (the plank's
    // turn changes by under 1e-5 rad/s in a step under gravity and the damper).
    let u: Vec<f64> = (0..k_n)
        .map(|k| -(Vec3::y() * omega).cross(&c[k]).dot(&m[k]))
        .collect();
    let p2: Vec<f64> = if k_n == 2 {
        let det = w(0, 0) * w(1, 1) - w(0, 1) * w(1, 0);
        vec![
            (1.0 + E) * -(w(1, 1) * u[0] - w(0, 1) * u[1]) / det,
            (1.0 + E) * -(w(0, 0) * u[1] - w(1, 0) * u[0]) / det,
        ]
    } else {
        vec![(1.0 + E) * -u[0] / w(0, 0)]
    };
    let measured: Vec<f64> = (0..k_n).map(|k| -struck[k].impulse.dot(&m[k])).collect();
    println!(
        "landing at {:.6} s (plank swaying at {sway:e} rad/s): P₁ {:.9} (closed form {p1:.9}, \
         level and still {ideal:.9}); sleeper struck at {first:.9} s by {k_n} wall(s): P₂ \
         {measured:?} (closed form {p2:?}); least gap after {least:e} m",
        landing.time, -landing.impulse.z,
    );
    assert!(
        (-landing.impulse.dot(&n) - p1).abs() < 1e-6 * p1,
        "landing impulse {:?} vs {p1}",
        landing.impulse
    );
    // Awake from the landing's instant: struck no later than the nearer wall, approaching at
    // |u|, takes to close the gap a sleeper can keep (within ε, struck at ε/2).
    let fastest = u.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    assert!(
        k_n >= 1 && first - landing.time <= 0.5 * EPS / fastest,
        "the sleeper struck at {first} after the landing at {}",
        landing.time
    );
    for (k, hit) in struck.iter().enumerate() {
        let along = -hit.impulse.dot(&m[k]);
        assert!(
            (along - p2[k]).abs() < 1e-4 * p2[k] && (-hit.impulse - m[k] * along).norm() < 1e-9,
            "wall {k}: impulse {:?} vs {} along {:?}",
            hit.impulse,
            p2[k],
            m[k]
        );
    }
    assert!(least >= 0.0, "the plank rose {least} into the sleeper");
}
