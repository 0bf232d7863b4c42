//! A ball at rest between two bodies of an assembly (issue 36): a V of two plates, each hinged
//! to the world along the V's bottom edge and held at its angle by an angle driver, with a free
//! ball dropped into it. It comes to rest where the contact geometry puts it, stays there with
//! no penetration beyond the envelope, and the forces balance as statics says.

use std::f64::consts::PI;

use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, Solid};
use impulse::assembly::{
    Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive, Profile, TimeTable,
};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};

const G: f64 = 9.81;
/// The walls' angle to the horizontal.
const ALPHA: f64 = PI / 6.0;
/// Ball radius and mass; plate length, half-thickness and mass.
const R: f64 = 0.1;
const M_BALL: f64 = 1.0;
const L: f64 = 0.5;
const T: f64 = 0.01;
const M_PLATE: f64 = 2.0;
const EPS: f64 = 1e-3;

/// The V: plate 0 rises to −x, plate 1 to +x, their top faces the planes through the y axis at
/// ALPHA to the horizontal; each hinged about y at the origin and driven to stay at its angle.
/// Body 2 is the ball, `lift` above its resting height, at rest.
fn ball_in_v(lift: f64) -> AssemblyWithSolids {
    ball_in_v_opening(lift, None)
}

/// As [`ball_in_v`]; with `opening` = (start, duration, δ), each plate's driver holds it until
/// `start`, then turns it down by δ over `duration` (a cosine ramp, sampled every 20 ms for the
/// drivers' spline table, so the V opens to walls at α − δ), and holds it there to 10 s.
fn ball_in_v_opening(lift: f64, opening: Option<(f64, f64, f64)>) -> AssemblyWithSolids {
    let (s, c) = ALPHA.sin_cos();
    let plate = |side: f64| {
        // Its top face's inward normal (−side sin α, 0, cos α); the centre half a length up
        // the wall and a half-thickness below its face.
        let normal = Vec3::new(-side * s, 0.0, c);
        let centre = Vec3::new(side * c, 0.0, s) * (L / 2.0) - normal * T;
        let moments = Vec3::new(
            0.4 * 0.4 + 4.0 * T * T,
            L * L + 4.0 * T * T,
            L * L + 0.4 * 0.4,
        ) * (M_PLATE / 12.0);
        let mut body = AssemblyBodyDesc::new(
            if side < 0.0 { "left" } else { "right" },
            M_PLATE,
            moments,
            centre,
        );
        body.orientation = Quat::from_axis_angle(&Vec3::y_axis(), -side * ALPHA);
        body
    };
    let rest = R / c;
    let ball = AssemblyBodyDesc::new(
        "ball",
        M_BALL,
        Vec3::repeat(0.4 * M_BALL * R * R),
        Vec3::new(0.0, 0.0, rest + lift),
    );
    let mut joints = Vec::new();
    // The left plate (rising to −x) turns down about −y, the right one about +y.
    let held = |side: f64| match opening {
        None => Profile::Polynomial(vec![0.0]),
        Some((start, duration, delta)) => {
            let times: Vec<f64> = (0..=500).map(|k| k as f64 * 0.02).collect();
            let values = times
                .iter()
                .map(|&t| {
                    let f = ((t - start) / duration).clamp(0.0, 1.0);
                    side * delta * 0.5 * (1.0 - (PI * f).cos())
                })
                .collect();
            Profile::Table(TimeTable::new(times, values).unwrap())
        }
    };
    for (b, name, side) in [(0, "left", -1.0), (1, "right", 1.0)] {
        joints.push(JointDesc {
            name: format!("{name} hinge"),
            a: b,
            b: None,
            primitive: Primitive::Revolute {
                anchor: Vec3::zeros(),
                axis: Vec3::y(),
            },
        });
        joints.push(JointDesc {
            name: format!("{name} holder"),
            a: b,
            b: None,
            primitive: Primitive::AngleDriver {
                axis: Vec3::y(),
                angle: held(side),
            },
        });
    }
    let assembly = Assembly::new(
        AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3),
        vec![plate(-1.0), plate(1.0), ball],
        joints,
    )
    .unwrap();
    let slab = || {
        vec![PlacedShape::new(Shape::Box {
            half_extents: Vec3::new(L / 2.0, 0.2, T),
        })]
    };
    let solid = |name: &str, body: usize, shapes: Vec<PlacedShape>| Solid {
        name: name.into(),
        body: Some(body),
        shapes,
        pose: Pose::identity(),
    };
    AssemblyWithSolids::new(
        assembly,
        vec![
            solid("left", 0, slab()),
            solid("right", 1, slab()),
            solid(
                "ball",
                2,
                vec![PlacedShape::new(Shape::Sphere { radius: R })],
            ),
        ],
        ContactSettings {
            restitution: 0.5,
            friction: 0.0,
            envelope: EPS,
        },
        // The plates meet (and overlap) below the V's edge: they do not collide.
        &[(0, 1)],
        &[],
    )
    .unwrap()
}

/// Dropped 2 cm into the V (α = 30°, R = 0.1, frictionless, e = 0.5), the ball comes to rest at
/// the closed-form position: its centre R from both walls, so on the V's axis at height
/// R / cos α = 0.115470 m. Over the last two of 4 s, sampled every step: |x| ≤ 1e-9 (the V is
/// symmetric), its height within [R/cos α − ε, R/cos α + ε/cos α] (its gap to each wall within
/// [−ε, ε]: no penetration beyond the envelope; measured: between 0.50ε and 0.56ε, where its
/// contacts are located and answered), and its speed below the microcollision threshold
/// √(2gε) = 0.14 m/s (measured 0.038 m/s).
///
/// Statics: each wall pushes along its normal with N = m g / (2 cos α) = 5.6638 N at the point
/// R tan α = 0.057735 m up the wall from the edge. Every contact impulse on a plate over those
/// two seconds is along its wall's normal (1e-9 of its size) at a point R tan α up the wall
/// (to ε), and their sum per wall, over the time, is N to 1 % (the ball's momentum between the
/// window's ends, at most 2 m √(2gε) over 2 s, is 1.2 % of N at worst; measured 0.27 %, 520
/// impulses, within the 0.38 % its measured largest speed allows). The
/// driver holding each plate gives, between impulses, the torque the plate's weight needs,
/// M g (L/2 cos α + T sin α) about the hinge (1e-9 N·m), and each hinge the plate's weight
/// M g upwards (1e-9 N), the ball's share coming through the joints as the impulses'
/// reactions. Sleep is off: the impulses of resting contact are what this measures.
#[test]
fn a_ball_comes_to_rest_in_a_v_of_two_hinged_plates_where_statics_puts_it() {
    let mut sim = ball_in_v(0.02);
    sim.sleep.enabled = false;
    let (s, c) = ALPHA.sin_cos();
    let rest = R / c;
    let normals = [Vec3::new(s, 0.0, c), Vec3::new(-s, 0.0, c)];
    let mut worst_x = 0.0_f64;
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut fastest = 0.0_f64;
    let mut worst_torque = 0.0_f64;
    let mut worst_hinge = 0.0_f64;
    let hold = M_PLATE * G * (L / 2.0 * c + T * s);
    let first_hit = |sim: &AssemblyWithSolids| sim.hits.len();
    let mut from = 0;
    for step in 1..=4000 {
        sim.advance_to(step as f64 * 1e-3).unwrap();
        if step == 2000 {
            from = first_hit(&sim);
        }
        if step <= 2000 {
            continue;
        }
        let ball = &sim.assembly.bodies()[2];
        let centre = ball.pose().translation.vector;
        worst_x = worst_x.max(centre.x.abs()).max(centre.y.abs());
        for n in &normals {
            let gap = centre.dot(n) - R;
            low = low.min(gap);
            high = high.max(gap);
        }
        fastest = fastest.max(ball.velocity().norm());
        let reactions = sim.assembly.joint_reactions().unwrap();
        // Plate 0 (rising to −x) turns down about −y, plate 1 about +y.
        for (j, sign) in [(1, -1.0), (3, 1.0)] {
            worst_torque = worst_torque.max((reactions[j].1.y + sign * hold).abs());
        }
        // Each hinge carries its plate's weight (the driver's is a pure torque).
        for j in [0, 2] {
            worst_hinge = worst_hinge.max((reactions[j].0 - Vec3::z() * (M_PLATE * G)).norm());
        }
    }
    let centre = sim.assembly.bodies()[2].pose().translation.vector;
    assert!(worst_x < 1e-9, "off the axis by {worst_x}");
    assert!(
        low >= -EPS && high <= EPS,
        "gaps to the walls in [{low}, {high}] (centre {centre:?}, rest height {rest})"
    );
    assert!(
        fastest < (2.0 * G * EPS).sqrt(),
        "still moving at {fastest}"
    );
    assert!(worst_torque < 1e-9, "holding torque off by {worst_torque}");
    assert!(worst_hinge < 1e-9, "hinge force off by {worst_hinge}");
    // The impulses on each plate over the last 2 s.
    let n_closed = M_BALL * G / (2.0 * c);
    let along = R * s / c;
    let mut sums = [Vec3::zeros(); 2];
    for hit in &sim.hits[from..] {
        let (plate, _) = hit.solids;
        assert!(plate < 2, "{hit:?}");
        // On the plate: −P along the wall's inward normal.
        let n = normals[plate];
        let p = hit.impulse;
        assert!(
            (p + n * p.norm()).norm() < 1e-9 * p.norm(),
            "impulse {p:?} not along the normal {n:?}"
        );
        // The contact point's distance up the wall from the edge.
        let up = Vec3::new(if plate == 0 { -c } else { c }, 0.0, s);
        assert!(
            (hit.point.dot(&up) - along).abs() < EPS,
            "contact at {:?}, {} up the wall, not {along}",
            hit.point,
            hit.point.dot(&up)
        );
        sums[plate] += p;
    }
    for (plate, sum) in sums.iter().enumerate() {
        let force = sum.norm() / 2.0;
        assert!(
            (force - n_closed).abs() < 1e-2 * n_closed,
            "plate {plate}: mean force {force} vs {n_closed}"
        );
    }
}

/// The ball's gaps to the two walls when they stand at `alpha` to the horizontal.
fn gaps(sim: &AssemblyWithSolids, alpha: f64) -> [f64; 2] {
    let (s, c) = alpha.sin_cos();
    let centre = sim.assembly.bodies()[2].pose().translation.vector;
    [Vec3::new(s, 0.0, c), Vec3::new(-s, 0.0, c)].map(|n| centre.dot(&n) - R)
}

/// With sleep on (the default), the ball dropped into the V falls asleep on the plates, which
/// their drivers hold still: a mechanism body that has stayed still for the sleep time supports
/// a sleeper as a fixed solid would. Asleep by 2 s (after 136 impulses, measured), it takes no
/// impulse from 2 to 4 s where awake it takes 520 (measured: the resting contact of the test
/// above; asserted: more than 400), keeps its pose to the bit, and rests where statics puts it,
/// as above: on the V's axis (|x| ≤ 1e-9) with its gap to each wall in [−ε, ε] (measured
/// 0.53ε).
#[test]
fn a_ball_at_rest_in_a_held_v_falls_asleep_and_its_impulses_stop() {
    let mut sim = ball_in_v(0.02);
    sim.advance_to(2.0).unwrap();
    assert!(sim.is_asleep(2), "the ball sleeps by 2 s");
    assert!(!sim.is_asleep(0) && !sim.is_asleep(1), "plates never sleep");
    let (hits, pose) = (sim.hits.len(), sim.assembly.bodies()[2].pose());
    sim.advance_to(4.0).unwrap();
    assert_eq!(sim.hits.len(), hits, "no impulse while asleep");
    assert_eq!(sim.assembly.bodies()[2].pose(), pose, "held where it slept");
    let centre = pose.translation.vector;
    assert!(centre.x.abs() < 1e-9 && centre.y.abs() < 1e-9, "{centre:?}");
    for gap in gaps(&sim, ALPHA) {
        assert!((-EPS..=EPS).contains(&gap), "gap {gap}");
    }
    // The plates go on carrying the sleeping ball (the mean of its contacts over the sleep
    // time before it slept, scaled so that they bear its weight): each hinge its plate's
    // weight and the wall's push N = m g / (2 cos α) along the wall's normal (1e-9 of N;
    // measured 1.1e-15), each driver the torque M g (L/2 cos α + T sin α) + N R tan α about
    // the hinge, to N ε (the contacts located to ε up the wall; measured 1.6e-3 N·m, 0.29 N ε).
    let (s, c) = ALPHA.sin_cos();
    let n_closed = M_BALL * G / (2.0 * c);
    let hold = M_PLATE * G * (L / 2.0 * c + T * s) + n_closed * R * s / c;
    let reactions = sim.assembly.joint_reactions().unwrap();
    let normals = [Vec3::new(s, 0.0, c), Vec3::new(-s, 0.0, c)];
    let mut worst = (0.0_f64, 0.0_f64);
    for (plate, hinge, driver, sign) in [(0, 0, 1, -1.0), (1, 2, 3, 1.0)] {
        let push = reactions[hinge].0 - Vec3::z() * (M_PLATE * G) - normals[plate] * n_closed;
        worst.0 = worst.0.max(push.norm() / n_closed);
        worst.1 = worst.1.max((reactions[driver].1.y + sign * hold).abs());
    }
    println!(
        "carried: hinge off by {:e} of N, driver by {:e} N·m",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9, "hinge off by {} of N", worst.0);
    assert!(worst.1 < n_closed * EPS, "driver off by {} N·m", worst.1);

    let mut awake = ball_in_v(0.02);
    awake.sleep.enabled = false;
    awake.advance_to(2.0).unwrap();
    let before = awake.hits.len();
    awake.advance_to(4.0).unwrap();
    let awake_hits = awake.hits.len() - before;
    println!(
        "asleep after {hits} impulses, gaps {:?}; awake: {awake_hits} impulses from 2 s to 4 s",
        gaps(&sim, ALPHA)
    );
    assert!(awake_hits > 400, "{awake_hits}");
}

/// The ball asleep in the held V wakes when the plates move: from 2.5 s their drivers open the
/// V by δ = 0.1 rad over 0.5 s. The ball is asleep just before, awake by 2.55 s (the plates
/// have turned 2.4 mrad, their points up to 1.4 mm: beyond ε), follows the walls down without
/// sinking into either beyond ε, and falls asleep again where statics puts it in the wider V:
/// on the axis at height R / cos(α − δ) = 0.109699 m, its gap to each wall (now at α − δ) in
/// [−ε, ε]. Measured: woken at 2.543 s (the plates' points then 1.0 mm from where they slept:
/// the support's stillness, ε, is what wakes it), least gap to a wall from 2.49 s to 6 s 0.50ε,
/// asleep again at 3.476 s (0.5 s after the plates stop) at height 0.110307 m (gap 0.56ε).
#[test]
fn a_sleeping_ball_wakes_when_the_v_opens_and_sleeps_again_lower() {
    let delta = 0.1;
    let mut sim = ball_in_v_opening(0.02, Some((2.5, 0.5, delta)));
    sim.advance_to(2.49).unwrap();
    assert!(sim.is_asleep(2), "asleep before the plates move");
    let mut woken = None;
    let mut least = f64::INFINITY;
    let mut asleep_again = None;
    for step in 2491..=6000 {
        let t = step as f64 * 1e-3;
        sim.advance_to(t).unwrap();
        if woken.is_none() && !sim.is_asleep(2) {
            woken = Some(t);
        }
        if woken.is_some() && asleep_again.is_none() && sim.is_asleep(2) {
            asleep_again = Some(t);
        }
        for gap in gaps(&sim, wall_angle(&sim)) {
            least = least.min(gap);
        }
    }
    let centre = sim.assembly.bodies()[2].pose().translation.vector;
    println!(
        "woken at {woken:?}, asleep again at {asleep_again:?}, least gap {least}, rest {centre:?}, closed form {}",
        R / (ALPHA - delta).cos()
    );
    let woken = woken.expect("the ball wakes");
    assert!(woken <= 2.55, "woken at {woken}");
    assert!(least >= -EPS, "sank {least} into a wall");
    assert!(asleep_again.is_some_and(|t| t < 4.0), "asleep again");
    assert!(sim.is_asleep(2));
    assert!(centre.x.abs() < 1e-9 && centre.y.abs() < 1e-9, "{centre:?}");
    for gap in gaps(&sim, ALPHA - delta) {
        assert!((-EPS..=EPS).contains(&gap), "gap {gap}");
    }
}

/// The left wall's angle to the horizontal now (both turn alike).
fn wall_angle(sim: &AssemblyWithSolids) -> f64 {
    // The left plate's long axis (its x) points down the wall towards +x.
    let down = sim.assembly.bodies()[0].pose().rotation * Vec3::x();
    (-down.z).atan2(down.x)
}
