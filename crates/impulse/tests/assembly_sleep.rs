//! Sleep for the free bodies of an assembly among solids (issue 36): a free body at rest on the
//! floor falls asleep — no more microcollisions, held exactly where it is — and wakes when an
//! awake body touches it, answering that contact as an awake body would.

use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Vec3};

const G: f64 = 9.81;

/// A crate (0.1 m cube, 1 kg) on a frictionless floor, dropped from 1 cm, and, if `ball_speed`
/// is given, a ball (r = 0.05 m, 1 kg) on the floor 1 m away sliding towards it at that speed
/// (its centre at the crate's centre height).
fn crate_and_ball(ball_speed: Option<f64>, e: f64) -> AssemblyWithSolids {
    let mut bodies = vec![AssemblyBodyDesc::new(
        "crate",
        1.0,
        Vec3::repeat(0.01 / 6.0),
        Vec3::new(0.0, 0.0, 0.06),
    )];
    let mut solids = vec![Solid {
        name: "crate".into(),
        body: Some(0),
        shapes: vec![PlacedShape::new(Shape::Box {
            half_extents: Vec3::repeat(0.05),
        })],
        pose: Pose::identity(),
    }];
    if let Some(v) = ball_speed {
        let mut ball =
            AssemblyBodyDesc::new("ball", 1.0, Vec3::repeat(0.001), Vec3::new(-1.0, 0.0, 0.05));
        ball.velocity = Vec3::new(v, 0.0, 0.0);
        bodies.push(ball);
        solids.push(Solid {
            name: "ball".into(),
            body: Some(1),
            shapes: vec![PlacedShape::new(Shape::Sphere { radius: 0.05 })],
            pose: Pose::identity(),
        });
    }
    solids.push(Solid {
        name: "floor".into(),
        body: None,
        shapes: vec![PlacedShape::new(Shape::HalfSpace)],
        pose: Pose::identity(),
    });
    let settings = AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3);
    let asm = Assembly::new(settings, bodies, vec![]).unwrap();
    let contact = ContactSettings {
        restitution: e,
        friction: 0.0,
        envelope: 1e-3,
    };
    AssemblyWithSolids::new(asm, solids, contact, &[], &[]).unwrap()
}

/// Dropped 1 cm, the crate bounces, settles into microcollisions and falls asleep once it has
/// stayed still for the sleep time (0.5 s): asleep by 1.5 s, and from then to 3 s not one
/// contact more and its pose unchanged to the bit, resting within the envelope of the floor
/// (its bottom between 0 and ε: it sleeps where its microcollisions' hops left it). Without
/// sleep it takes microcollisions all along (68 over those 1.5 s measured; asserted: more than
/// 30).
#[test]
fn a_crate_at_rest_falls_asleep_and_stays_put() {
    let mut sim = crate_and_ball(None, 0.5);
    sim.advance_to(1.5).unwrap();
    assert!(sim.is_asleep(0), "asleep by 1.5 s");
    let (hits, pose) = (sim.hits.len(), sim.assembly.bodies()[0].pose());
    sim.advance_to(3.0).unwrap();
    assert_eq!(sim.hits.len(), hits, "no contact while asleep");
    assert_eq!(
        sim.assembly.bodies()[0].pose(),
        pose,
        "held where it fell asleep"
    );
    let bottom = pose.translation.vector.z - 0.05;
    assert!(
        bottom > 0.0 && bottom < 1e-3,
        "resting in the envelope: {bottom}"
    );

    let mut awake = crate_and_ball(None, 0.5);
    awake.sleep.enabled = false;
    awake.advance_to(1.5).unwrap();
    let before = awake.hits.len();
    awake.advance_to(3.0).unwrap();
    println!(
        "asleep after {hits} contacts; without sleep {} contacts from 1.5 s to 3 s",
        awake.hits.len() - before
    );
    assert!(awake.hits.len() - before > 30);
}

/// A ball sliding at 0.5 m/s along the frictionless floor reaches the sleeping crate at about
/// 1.8 s: the crate wakes and the contact is answered as between awake bodies. Closed form
/// (frictionless, e = 0.5, m = M = 1 kg): the impulse acts along x at the ball's centre
/// height, `d` above the crate's centre (the crate sleeps where its hops left it, within the
/// envelope), so P = (1 + e) v / (1/m + 1/M + d²/I) with the crate's I = M a²/6, the crate
/// leaves at P/M and the ball at v − P/m (the floor, frictionless, pushes only vertically).
/// Both to 1e-6 relative (the ball's hops move its centre by ~1e-4 m, the contact point with
/// it: read from the contact).
#[test]
fn a_sleeping_crate_wakes_when_a_ball_reaches_it() {
    let mut sim = crate_and_ball(Some(0.5), 0.5);
    sim.advance_to(1.5).unwrap();
    assert!(sim.is_asleep(0), "the crate sleeps before the ball arrives");
    assert!(!sim.is_asleep(1), "the sliding ball does not sleep");
    let resting = sim.assembly.bodies()[0].pose().translation.vector.z;
    sim.advance_to(2.5).unwrap();
    assert!(!sim.is_asleep(0), "woken");
    let kick = sim.hits.iter().find(|h| h.solids == (0, 1)).unwrap();
    let (crate_v, ball_v) = (
        sim.assembly.bodies()[0].velocity().x,
        sim.assembly.bodies()[1].velocity().x,
    );
    let d = kick.point.z - resting;
    let p = 1.5 * 0.5 / (2.0 + d * d / (0.01 / 6.0));
    println!(
        "kicked at {:.4} s, {d:e} m above the crate's centre: crate {crate_v}, ball {ball_v} (closed form {p}, {})",
        kick.time,
        0.5 - p
    );
    assert!((crate_v - p).abs() < 1e-6 * p, "crate {crate_v} vs {p}");
    assert!(
        (ball_v - (0.5 - p)).abs() < 1e-6 * p,
        "ball {ball_v} vs {}",
        0.5 - p
    );
}

/// A sleep time that is not positive is refused by name when the run starts.
#[test]
fn a_bad_sleep_time_is_refused() {
    for bad in [0.0, -1.0, f64::NAN] {
        let mut sim = crate_and_ball(None, 0.5);
        sim.sleep.time = bad;
        let err = sim.advance_to(0.1).unwrap_err().to_string();
        assert!(err.contains("the sleep time must be positive"), "{err}");
    }
    let mut off = crate_and_ball(None, 0.5);
    off.sleep.enabled = false;
    off.sleep.time = f64::NAN;
    off.advance_to(0.1).unwrap();
}
