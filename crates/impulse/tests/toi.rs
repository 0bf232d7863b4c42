//! Time-of-impact bounds are conservative: sampling the true motion never finds contact before
//! the bound.

use std::sync::Arc;

use impulse::collision::toi::{MotionBound, approach_allowed, energy_bound, time_of_impact};
use impulse::collision::{CollisionModel, NarrowStats, PairCache, closest};
use impulse::dynamics::{BodyDesc, MassSpec, MotionType};
use impulse::geometry::{ConvexPolyhedron, Shape};
use impulse::math::{Point, Pose, Quat, Vec3};
use impulse::{BodyId, World, WorldSettings};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn random_shape(rng: &mut Pcg64) -> Shape {
    match rng.random_range(0..5) {
        0 => Shape::Sphere {
            radius: rng.random_range(0.2..1.0),
        },
        1 => Shape::Box {
            half_extents: Vec3::new(
                rng.random_range(0.1..1.0),
                rng.random_range(0.1..1.0),
                rng.random_range(0.1..1.0),
            ),
        },
        2 => Shape::Ellipsoid {
            radii: Vec3::new(
                rng.random_range(0.2..1.0),
                rng.random_range(0.2..1.0),
                rng.random_range(0.2..1.0),
            ),
        },
        3 => Shape::Capsule {
            radius: rng.random_range(0.1..0.5),
            half_height: rng.random_range(0.1..1.0),
        },
        _ => loop {
            let points: Vec<Point> = (0..rng.random_range(4..30))
                .map(|_| {
                    Point::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    )
                })
                .collect();
            if let Ok(p) = ConvexPolyhedron::from_points(&points) {
                break Shape::Convex(Arc::new(p));
            }
        },
    }
}

fn random_vec(rng: &mut Pcg64, scale: f64) -> Vec3 {
    Vec3::new(
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
    )
}

/// The thesis's ballistic motion bound of a body at the world's current time.
fn bound(world: &World, id: BodyId, model: &CollisionModel) -> MotionBound {
    let body = world.body(id);
    if !body.is_dynamic() {
        return MotionBound::Fixed;
    }
    let s = body.state();
    let omega_body = s.orientation.inverse() * s.angular_velocity;
    MotionBound::Ballistic {
        velocity: s.velocity,
        acceleration: world.settings().gravity,
        angular_speed: energy_bound(&body.principal_inertia(), &omega_body),
        angular_growth: 0.0,
        reach: model.reach_from(&body.mass_properties().center_of_mass),
    }
}

fn distance_now(world: &World, ids: [BodyId; 2], models: &[CollisionModel; 2]) -> f64 {
    let [a, b] = ids;
    closest(
        &models[0],
        &world.body(a).model_pose(),
        &models[1],
        &world.body(b).model_pose(),
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .unwrap()
    .distance
}

#[test]
fn random_ballistic_pairs_never_touch_before_the_bound() {
    let mut rng = Pcg64::seed_from_u64(99);
    let mut finite = 0;
    for trial in 0..300 {
        let mut world = World::new(WorldSettings {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            ..WorldSettings::default()
        });
        let mut ids = Vec::new();
        let mut models = Vec::new();
        for k in 0..2 {
            let shape = random_shape(&mut rng);
            let mut desc = BodyDesc::new(format!("b{k}"), shape.clone());
            desc.mass = MassSpec::Density(rng.random_range(0.5..5.0));
            desc.pose = Pose::from_parts(
                (random_vec(&mut rng, 1.0) + Vec3::new(4.0 * k as f64, 0.0, 0.0)).into(),
                Quat::from_scaled_axis(random_vec(&mut rng, 3.0)),
            );
            // Head towards each other, spinning.
            desc.velocity =
                random_vec(&mut rng, 3.0) + Vec3::new(if k == 0 { 2.0 } else { -2.0 }, 0.0, 0.0);
            desc.angular_velocity = random_vec(&mut rng, 8.0);
            if trial % 7 == 0 && k == 1 {
                desc.motion = MotionType::Fixed;
                desc.velocity = Vec3::zeros();
                desc.angular_velocity = Vec3::zeros();
            }
            models.push(CollisionModel::from_shapes(&desc.shapes));
            ids.push(world.add_body(desc).unwrap());
        }
        let ids = [ids[0], ids[1]];
        let models = [models[0].clone(), models[1].clone()];
        let closest_now = closest(
            &models[0],
            &world.body(ids[0]).model_pose(),
            &models[1],
            &world.body(ids[1]).model_pose(),
            &mut PairCache::default(),
            &mut NarrowStats::default(),
        )
        .unwrap();
        if closest_now.distance <= 1e-6 {
            continue;
        }
        // d̂ points from body 1 to body 2: the normal (from b to a) reversed.
        let d_hat = -closest_now.normal;
        let total = bound(&world, ids[0], &models[0]).along(&d_hat)
            + bound(&world, ids[1], &models[1]).along(&-d_hat);
        let tau = time_of_impact(total, closest_now.distance);
        if !tau.is_finite() {
            continue;
        }
        finite += 1;
        // Dense sampling up to the bound: still apart.
        for k in 1..=200 {
            let t = tau * k as f64 / 200.0;
            world.advance_to(t).unwrap();
            let d = distance_now(&world, ids, &models);
            assert!(
                d > -1e-9,
                "trial {trial}: contact at t = {t} before the bound {tau} (d = {d})"
            );
        }
    }
    assert!(finite > 150, "{finite} pairs with a finite bound");
}

#[test]
fn a_bullet_does_not_pass_through_a_thin_wall() {
    // Mirtich §2.1's pathological case: a small, fast sphere and a 1 mm wall. Stepping by the
    // bound and re-checking (one-sided root finding) must stop inside the collision envelope,
    // never beyond the wall — nor, with the bound aimed at the envelope, touching it.
    let mut world = World::new(WorldSettings {
        gravity: Vec3::zeros(),
        ..WorldSettings::default()
    });
    let mut wall = BodyDesc::new(
        "wall",
        Shape::Box {
            half_extents: Vec3::new(0.0005, 1.0, 1.0),
        },
    );
    wall.motion = MotionType::Fixed;
    let wall_id = world.add_body(wall).unwrap();
    let mut bullet = BodyDesc::new("bullet", Shape::Sphere { radius: 0.005 });
    bullet.mass = MassSpec::Mass(0.01);
    bullet.pose = Pose::translation(-1.0, 0.0, 0.0);
    bullet.velocity = Vec3::new(900.0, 0.3, 0.0);
    let bullet_id = world.add_body(bullet).unwrap();
    let models = [
        CollisionModel::from_shapes(world.body(bullet_id).shapes()),
        CollisionModel::from_shapes(world.body(wall_id).shapes()),
    ];
    let epsilon = 1e-4;
    let mut t = 0.0;
    let mut steps = 0;
    loop {
        let d = distance_now(&world, [bullet_id, wall_id], &models);
        assert!(d > 0.0, "the bullet went into the wall");
        if d < epsilon {
            break;
        }
        let c = closest(
            &models[0],
            &world.body(bullet_id).model_pose(),
            &models[1],
            &world.body(wall_id).model_pose(),
            &mut PairCache::default(),
            &mut NarrowStats::default(),
        )
        .unwrap();
        let d_hat = -c.normal;
        let total =
            bound(&world, bullet_id, &models[0]).along(&d_hat) + MotionBound::Fixed.along(&-d_hat);
        t += time_of_impact(total, approach_allowed(d, epsilon));
        world.advance_to(t).unwrap();
        steps += 1;
        assert!(steps < 100, "one-sided root finding must converge");
    }
    // Contact is found within the envelope of the wall's face: x = −0.0005 − 0.005 − d with
    // 0 < d < ε; the exact bound (pure translation) lands at d = ε/2 after a single step.
    let x = world.body(bullet_id).state().position.x;
    assert!(x < -0.0055 && x > -0.0055 - epsilon, "stopped at x = {x}");
    assert_eq!(steps, 1);
}
