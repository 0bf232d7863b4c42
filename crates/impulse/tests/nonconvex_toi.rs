//! Time of impact for bodies of several convex pieces (Mirtich §2.2.2, §2.3).
//!
//! The bound of Fig. 2.9 — the bodies cannot touch before their points have covered the
//! distance `d` along the closest direction — relies on the separating plane between two
//! *convex* bodies. A non-convex body's other pieces lie on every side, so each piece pair needs
//! its own bound.

use std::sync::Arc;

use impulse::collision::{CollisionModel, NarrowStats, PairCache, Slack, closest, closest_parts};
use impulse::dynamics::{MassSpec, PlacedShape};
use impulse::geometry::{ConvexPolyhedron, Shape};
use impulse::math::{Point, Pose, Quat, Vec3};
use impulse::{BodyDesc, MotionType, World, WorldSettings};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[test]
fn a_ball_falls_past_a_near_wall_onto_the_floor_of_the_same_body() {
    // Bug: the next check of a pair was timed by the bound along the direction of its closest
    // pair of pieces only. A ball falling beside a wall whose floor is part of the same fixed
    // body is closest to the wall, sideways, where it is not moving: the bound said "never",
    // the floor was never checked, and the ball fell into it (a Penetration error, or through).
    let mut world = World::new(WorldSettings::default());
    let mut trough = BodyDesc::new(
        "trough",
        Shape::Box {
            half_extents: Vec3::new(1.0, 1.0, 0.05),
        },
    );
    trough.motion = MotionType::Fixed;
    // The floor: top face at z = 0. The wall: its face at x = 0.1, 5 mm from the ball.
    trough.shapes[0].pose = Pose::translation(0.0, 0.0, -0.05);
    trough.shapes.push(PlacedShape {
        shape: Shape::Box {
            half_extents: Vec3::new(0.05, 1.0, 1.0),
        },
        pose: Pose::translation(0.15, 0.0, 1.0),
        density: None,
    });
    world.add_body(trough).unwrap();
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.095 });
    ball.mass = MassSpec::Mass(1.0);
    ball.pose = Pose::translation(0.0, 0.0, 0.6);
    let id = world.add_body(ball).unwrap();
    for k in 1..=100 {
        world.advance_to(k as f64 * 0.01).unwrap();
    }
    // It landed (falling 0.5 m takes 0.32 s) and rests on the floor within the envelope.
    let z = world.body(id).state().position.z;
    assert!((0.095..0.095 + 1e-3).contains(&z), "ball at z = {z}");
    assert!(world.max_penetration() <= 1e-3);
    assert!(world.counters()["collisions"] >= 1);
}

/// A convex polyhedron whose vertices are far from its own origin (as the pieces of a mesh,
/// which all share the mesh's frame).
fn offset_polyhedron(rng: &mut Pcg64) -> ConvexPolyhedron {
    let offset = Vec3::new(
        rng.random_range(-2.0..2.0),
        rng.random_range(-2.0..2.0),
        rng.random_range(-2.0..2.0),
    );
    loop {
        let points: Vec<Point> = (0..rng.random_range(4..20))
            .map(|_| {
                Point::from(
                    offset
                        + Vec3::new(
                            rng.random_range(-0.4..0.4),
                            rng.random_range(-0.4..0.4),
                            rng.random_range(-0.4..0.4),
                        ),
                )
            })
            .collect();
        if let Ok(p) = ConvexPolyhedron::from_points(&points) {
            return p;
        }
    }
}

fn random_pose(rng: &mut Pcg64, spread: f64) -> Pose {
    let axis = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    Pose::from_parts(
        Vec3::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        )
        .into(),
        Quat::from_scaled_axis(axis.normalize() * rng.random_range(0.0..3.0)),
    )
}

#[test]
fn near_piece_pairs_hold_every_pair_within_the_slack() {
    // Against trying every pair of pieces: the walk must examine every pair within `slack` of
    // the closest, report the closest first, and bound the distance of every pair it skipped.
    let mut rng = Pcg64::seed_from_u64(5);
    let random_body = |rng: &mut Pcg64| -> Vec<PlacedShape> {
        (0..rng.random_range(1..10))
            .map(|i| {
                if i % 2 == 0 {
                    PlacedShape::new(Shape::Convex(Arc::new(offset_polyhedron(rng))))
                } else {
                    PlacedShape {
                        shape: Shape::Sphere {
                            radius: rng.random_range(0.1..0.4),
                        },
                        pose: random_pose(rng, 2.0),
                        density: None,
                    }
                }
            })
            .collect()
    };
    let mut skipped = 0;
    for trial in 0..200 {
        let (parts_a, mut parts_b) = (random_body(&mut rng), random_body(&mut rng));
        if trial % 3 == 0 {
            // A floor in the second body: its pairs come from walking the first body's tree
            // against the plane.
            parts_b.push(PlacedShape {
                shape: Shape::HalfSpace,
                pose: random_pose(&mut rng, 0.5) * Pose::translation(0.0, 0.0, -3.0),
                density: None,
            });
        }
        let (ma, mb) = (
            CollisionModel::from_shapes(&parts_a),
            CollisionModel::from_shapes(&parts_b),
        );
        let pose_a = random_pose(&mut rng, 1.0);
        let pose_b = random_pose(&mut rng, 8.0);
        let slack = rng.random_range(0.0..2.0);
        let near = closest_parts(
            &ma,
            &pose_a,
            &mb,
            &pose_b,
            &mut Slack(slack),
            &mut PairCache::default(),
            &mut NarrowStats::default(),
        );
        let mut all = Vec::new();
        for (ia, pa) in parts_a.iter().enumerate() {
            for (ib, pb) in parts_b.iter().enumerate() {
                let d = closest(
                    &CollisionModel::from_shapes(std::slice::from_ref(pa)),
                    &pose_a,
                    &CollisionModel::from_shapes(std::slice::from_ref(pb)),
                    &pose_b,
                    &mut PairCache::default(),
                    &mut NarrowStats::default(),
                )
                .expect("bounded parts")
                .distance;
                all.push(((ia, ib), d));
            }
        }
        let best = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let first = near.pairs[0].distance;
        assert!(
            (first - best).abs() < 1e-9,
            "trial {trial}: {first} vs {best}"
        );
        for &(parts, d) in &all {
            match near.pairs.iter().find(|c| c.parts == parts) {
                Some(c) => assert!((c.distance - d).abs() < 1e-9, "trial {trial}"),
                None => {
                    skipped += 1;
                    assert!(
                        d >= best + slack - 1e-9,
                        "trial {trial}: skipped a near pair"
                    );
                    let bound = near.unexamined.expect("a skipped pair is unexamined");
                    assert!(bound <= d + 1e-9, "trial {trial}: bound {bound} > {d}");
                }
            }
        }
    }
    // The test must exercise skipping.
    assert!(skipped > 100, "only {skipped} pairs skipped");
}
