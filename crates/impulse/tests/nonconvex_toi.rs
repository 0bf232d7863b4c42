//! Time of impact for bodies of several convex pieces (Mirtich §2.2.2, §2.3).
//!
//! The bound of Fig. 2.9 — the bodies cannot touch before their points have covered the
//! distance `d` along the closest direction — relies on the separating plane between two
//! *convex* bodies. A non-convex body's other pieces lie on every side, so each piece pair needs
//! its own bound.

mod common;

use std::sync::Arc;

use common::random::{pose_in_cube, random_hull};
use impulse::collision::{
    CollisionModel, NarrowStats, NearParts, PairCache, Slack, closest, closest_parts,
    closest_parts_again,
};
use impulse::dynamics::{MassSpec, PlacedShape};
use impulse::geometry::{ConvexPolyhedron, Shape};
use impulse::math::{Point, Pose, Vec3};
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

#[test]
fn a_fast_ball_beside_a_wall_is_checked_against_the_post_just_below() {
    // The narrow phase leaves out piece pairs whose direction-free time of impact is no
    // sooner than the soonest check found (`SoonestCheck`). Here the closest piece, a wall
    // 5 mm to the side, would let the pair wait a whole box period (0.02 s); the top of a
    // post 5 cm below (its bounding sphere 2.4 cm away, within the slack of the closest),
    // approached at 3 m/s, must still be examined and bound the check, or the ball is 1 cm
    // into it before the next one. (Leaving out every such pair fails this test.)
    let mut world = World::new(WorldSettings::default());
    let mut wall = BodyDesc::new(
        "wall and post",
        Shape::Box {
            half_extents: Vec3::new(0.05, 1.0, 1.0),
        },
    );
    wall.motion = MotionType::Fixed;
    wall.shapes[0].pose = Pose::translation(0.15, 0.0, 0.0);
    // The post's top: 4 × 4 cm, 4 mm thick, its face at z = 0.
    wall.shapes.push(PlacedShape {
        shape: Shape::Box {
            half_extents: Vec3::new(0.02, 0.02, 0.002),
        },
        pose: Pose::translation(0.0, 0.0, -0.002),
        density: None,
    });
    world.add_body(wall).unwrap();
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.095 });
    ball.mass = MassSpec::Mass(1.0);
    ball.pose = Pose::translation(0.0, 0.0, 0.095 + 0.05);
    ball.velocity = Vec3::new(0.0, 0.0, -3.0);
    let id = world.add_body(ball).unwrap();
    world.advance_to(0.02).unwrap();
    assert!(world.max_penetration() <= 1e-3);
    assert_eq!(world.counters()["collisions"], 1);
    // It bounced off the post (restitution 0.5 by default).
    assert!(world.body(id).state().velocity.z > 0.0);
}

/// A convex polyhedron whose vertices are far from its own origin (as the pieces of a mesh,
/// which all share the mesh's frame).
fn offset_polyhedron(rng: &mut Pcg64) -> ConvexPolyhedron {
    let offset = Vec3::new(
        rng.random_range(-2.0..2.0),
        rng.random_range(-2.0..2.0),
        rng.random_range(-2.0..2.0),
    );
    random_hull(rng, 4..20, |rng| {
        Point::from(
            offset
                + Vec3::new(
                    rng.random_range(-0.4..0.4),
                    rng.random_range(-0.4..0.4),
                    rng.random_range(-0.4..0.4),
                ),
        )
    })
}

/// A body of one to nine pieces: polyhedra off the origin and balls.
fn random_body(rng: &mut Pcg64) -> Vec<PlacedShape> {
    (0..rng.random_range(1..10))
        .map(|i| {
            if i % 2 == 0 {
                PlacedShape::new(Shape::Convex(Arc::new(offset_polyhedron(rng))))
            } else {
                PlacedShape {
                    shape: Shape::Sphere {
                        radius: rng.random_range(0.1..0.4),
                    },
                    pose: pose_in_cube(rng, 2.0),
                    density: None,
                }
            }
        })
        .collect()
}

#[test]
fn a_repeated_query_reuses_the_pairs_measured_and_finds_what_a_fresh_one_finds() {
    // After a collision the pair is searched again at the same poses for the new motion's
    // check time (`closest_parts_again`). It must report the same pairs, distances and bound on
    // the unexamined as a fresh search with the new `Beyond` from the same pair memory, while
    // measuring only the pairs the first search left out.
    let mut rng = Pcg64::seed_from_u64(23);
    let (mut reused, mut measured_fresh) = (0, 0);
    for trial in 0..200 {
        let (ma, mb) = (
            CollisionModel::from_shapes(&random_body(&mut rng)),
            CollisionModel::from_shapes(&random_body(&mut rng)),
        );
        let pose_a = pose_in_cube(&mut rng, 1.0);
        let pose_b = pose_in_cube(&mut rng, 8.0);
        let (first_slack, second_slack) = (rng.random_range(0.0..2.0), rng.random_range(0.0..2.0));
        let mut cache = PairCache::default();
        let mut stats = NarrowStats::default();
        let first = closest_parts(
            &ma,
            &pose_a,
            &mb,
            &pose_b,
            &mut Slack(first_slack),
            &mut cache,
            &mut stats,
        );
        // The fresh search starts from the same memory (last time's closest pair first).
        let mut fresh_cache = cache.clone();
        let mut again_stats = NarrowStats::default();
        let again = closest_parts_again(
            &ma,
            &pose_a,
            &mb,
            &pose_b,
            &mut Slack(second_slack),
            &first,
            &mut cache,
            &mut again_stats,
        );
        let mut fresh_stats = NarrowStats::default();
        let fresh = closest_parts(
            &ma,
            &pose_a,
            &mb,
            &pose_b,
            &mut Slack(second_slack),
            &mut fresh_cache,
            &mut fresh_stats,
        );
        // The same pairs, the closest first (a ball's pair reused from the first search
        // ran GJK from another start: it agrees to GJK's tolerance, as in
        // `near_piece_pairs_hold_every_pair_within_the_slack`).
        let sorted = |near: &NearParts| {
            let mut pairs: Vec<_> = near.pairs.iter().map(|c| (c.parts, c.distance)).collect();
            pairs.sort_by_key(|p| p.0);
            pairs
        };
        let (got, want) = (sorted(&again), sorted(&fresh));
        assert_eq!(got.len(), want.len(), "trial {trial}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.0, w.0, "trial {trial}");
            assert!((g.1 - w.1).abs() < 1e-9, "trial {trial}: {g:?} vs {w:?}");
        }
        assert!((again.pairs[0].distance - fresh.pairs[0].distance).abs() < 1e-9);
        match (again.unexamined, fresh.unexamined) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "trial {trial}"),
            (g, w) => assert_eq!(g.is_some(), w.is_some(), "trial {trial}"),
        }
        // Only the pairs the first search left out were measured again.
        let left_out = want
            .iter()
            .filter(|w| !first.pairs.iter().any(|c| c.parts == w.0))
            .count() as u64;
        assert_eq!(again_stats.part_queries, left_out, "trial {trial}");
        reused += fresh_stats.part_queries - again_stats.part_queries;
        measured_fresh += fresh_stats.part_queries;
    }
    // The test must exercise reuse.
    assert!(
        reused * 2 > measured_fresh,
        "{reused} of {measured_fresh} reused"
    );
}

#[test]
fn near_piece_pairs_hold_every_pair_within_the_slack() {
    // Against trying every pair of pieces: the walk must examine every pair within `slack` of
    // the closest, report the closest first, and bound the distance of every pair it skipped.
    let mut rng = Pcg64::seed_from_u64(5);
    let mut skipped = 0;
    for trial in 0..200 {
        let (parts_a, mut parts_b) = (random_body(&mut rng), random_body(&mut rng));
        if trial % 3 == 0 {
            // A floor in the second body: its pairs come from walking the first body's tree
            // against the plane.
            parts_b.push(PlacedShape {
                shape: Shape::HalfSpace,
                pose: pose_in_cube(&mut rng, 0.5) * Pose::translation(0.0, 0.0, -3.0),
                density: None,
            });
        }
        let (ma, mb) = (
            CollisionModel::from_shapes(&parts_a),
            CollisionModel::from_shapes(&parts_b),
        );
        let pose_a = pose_in_cube(&mut rng, 1.0);
        let pose_b = pose_in_cube(&mut rng, 8.0);
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

#[test]
fn random_multi_piece_bodies_tumbling_into_a_comb_never_sink_into_it() {
    // The whole loop against tunnelling, with the narrow phase leaving out the piece pairs
    // that cannot bring a check forward (`SoonestCheck`): bodies of several random convex
    // pieces, thrown spinning into a fixed comb of teeth on a floor, never go deeper than the
    // envelope (a deeper overlap stops the run with a Penetration error).
    let mut rng = Pcg64::seed_from_u64(17);
    let epsilon = 1e-3;
    let mut collisions = 0;
    for trial in 0..12 {
        let mut world = World::new(WorldSettings {
            collision_epsilon: epsilon,
            ..WorldSettings::default()
        });
        let mut comb = BodyDesc::new(
            "comb",
            Shape::Box {
                half_extents: Vec3::new(2.0, 2.0, 0.05),
            },
        );
        comb.motion = MotionType::Fixed;
        comb.shapes[0].pose = Pose::translation(0.0, 0.0, -0.05);
        for tooth in 0..7 {
            comb.shapes.push(PlacedShape {
                shape: Shape::Box {
                    half_extents: Vec3::new(0.03, 2.0, 0.15),
                },
                pose: Pose::translation(-0.9 + 0.3 * tooth as f64, 0.0, 0.15),
                density: None,
            });
        }
        world.add_body(comb).unwrap();
        for k in 0..3 {
            let shapes: Vec<PlacedShape> = (0..rng.random_range(2..6))
                .map(|i| {
                    if i % 3 == 2 {
                        PlacedShape {
                            shape: Shape::Sphere {
                                radius: rng.random_range(0.03..0.08),
                            },
                            pose: pose_in_cube(&mut rng, 0.08),
                            density: None,
                        }
                    } else {
                        PlacedShape {
                            shape: Shape::Box {
                                half_extents: Vec3::new(
                                    rng.random_range(0.02..0.1),
                                    rng.random_range(0.02..0.1),
                                    rng.random_range(0.02..0.1),
                                ),
                            },
                            pose: pose_in_cube(&mut rng, 0.08),
                            density: None,
                        }
                    }
                })
                .collect();
            let mut body = BodyDesc::new(format!("body {k}"), shapes[0].shape.clone());
            body.shapes = shapes;
            body.mass = MassSpec::Density(1000.0);
            body.pose = Pose::from_parts(
                Vec3::new(-0.6 + 0.6 * k as f64, 0.0, 0.6 + 0.1 * k as f64).into(),
                pose_in_cube(&mut rng, 0.01).rotation,
            );
            body.velocity = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-0.3..0.3),
                rng.random_range(-2.0..0.0),
            );
            body.angular_velocity = Vec3::new(
                rng.random_range(-15.0..15.0),
                rng.random_range(-15.0..15.0),
                rng.random_range(-15.0..15.0),
            );
            world.add_body(body).unwrap();
        }
        for step in 1..=100 {
            if let Err(error) = world.advance_to(step as f64 * 0.01) {
                panic!("trial {trial}: {error}");
            }
        }
        assert!(
            world.max_penetration() <= epsilon,
            "trial {trial}: {}",
            world.max_penetration()
        );
        collisions += world.counters()["collisions"];
    }
    assert!(collisions > 50, "only {collisions} collisions");
}
