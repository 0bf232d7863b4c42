//! Time-of-impact bounds are conservative: sampling the true motion never finds contact before
//! the bound.

mod common;

use std::sync::Arc;

use common::random::{in_unit_cube, random_hull};
use impulse::collision::toi::{
    MotionBound, TravelBound, approach_allowed, energy_bound, time_of_impact, turning_bound,
};
use impulse::collision::{CollisionModel, NarrowStats, PairCache, closest};
use impulse::dynamics::{BodyDesc, FreeFlight, MassSpec, MotionType};
use impulse::geometry::Shape;
use impulse::integrate::Tolerance;
use impulse::math::{Pose, Quat, Vec3};
use impulse::{BodyId, BodyState, World, WorldSettings};
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
        _ => Shape::Convex(Arc::new(random_hull(rng, 4..30, in_unit_cube))),
    }
}

fn random_vec(rng: &mut Pcg64, scale: f64) -> Vec3 {
    Vec3::new(
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
        rng.random_range(-scale..scale),
    )
}

/// The thesis's ballistic motion bound of a body in state `s`.
fn bound(
    body: &impulse::RigidBody,
    s: &BodyState,
    gravity: &Vec3,
    model: &CollisionModel,
) -> MotionBound {
    if !body.is_dynamic() {
        return MotionBound::Fixed;
    }
    let omega_body = s.orientation.inverse() * s.angular_velocity;
    let angular_speed = energy_bound(&body.principal_inertia(), &omega_body);
    MotionBound::Ballistic {
        velocity: s.velocity,
        acceleration: *gravity,
        angular_speed,
        angular_growth: 0.0,
        reach: model.reach_from(&body.mass_properties().center_of_mass),
        angular_velocity: s.angular_velocity,
        turning: turning_bound(&body.principal_inertia(), angular_speed),
        allowance: 0.0,
    }
}

/// Where the model frame is when the body frame is at `s`.
fn model_pose(body: &impulse::RigidBody, s: &BodyState) -> Pose {
    s.pose() * body.body_to_model().inverse()
}

/// A body's free flight from its initial state (fixed bodies stay put).
struct Flight {
    flight: Option<FreeFlight>,
    fixed: BodyState,
}

impl Flight {
    fn new(body: &impulse::RigidBody, gravity: &Vec3) -> Self {
        let flight = body.is_dynamic().then(|| {
            FreeFlight::new(
                0.0,
                body.state(),
                body.principal_inertia(),
                *gravity,
                Vec3::zeros(),
                Tolerance::default(),
            )
            .unwrap()
        });
        Self {
            flight,
            fixed: *body.state(),
        }
    }

    fn at(&mut self, t: f64) -> BodyState {
        match &mut self.flight {
            Some(f) => f.state_at(t).unwrap(),
            None => self.fixed,
        }
    }
}

fn distance(models: &[CollisionModel; 2], poses: [Pose; 2]) -> impulse::collision::Closest {
    closest(
        &models[0],
        &poses[0],
        &models[1],
        &poses[1],
        &mut PairCache::default(),
        &mut NarrowStats::default(),
    )
    .unwrap()
}

#[test]
fn random_ballistic_pairs_never_touch_before_the_bound() {
    let (finite, _) = sample_random_pairs(MotionBound::along);
    assert!(finite > 150, "{finite} pairs with a finite bound");
}

#[test]
fn random_ballistic_pairs_never_touch_before_the_turning_bound() {
    // The bound from the turning of the supporting planes (|d̂ × ω₀| + ω̇_max τ) is the later of
    // the two in many of these pairs, and it too must hold along the integrated free motion.
    let (finite, later) = sample_random_pairs(MotionBound::along_by_turning);
    assert!(finite > 150, "{finite} pairs with a finite bound");
    assert!(
        later > 30,
        "the turning bound was the later one in only {later} pairs"
    );
}

#[test]
fn turning_bound_holds_along_torque_free_rotation() {
    // |dω/dt| along an integrated torque-free tumble never exceeds the bound (finite
    // differences of the world angular velocity, sampled densely over several periods).
    let mut rng = Pcg64::seed_from_u64(7);
    for _ in 0..20 {
        // A box's principal moments (up to mass/12): (b² + c², c² + a², a² + b²).
        let sides = Vec3::new(
            rng.random_range(0.1..2.0),
            rng.random_range(0.1..2.0),
            rng.random_range(0.1..2.0),
        )
        .map(|x| x * x);
        let inertia = Vec3::new(sides.y + sides.z, sides.z + sides.x, sides.x + sides.y);
        let state = BodyState {
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: random_vec(&mut rng, 5.0),
        };
        let omega_body = state.angular_velocity;
        let bound = turning_bound(&inertia, energy_bound(&inertia, &omega_body));
        let mut flight = FreeFlight::new(
            0.0,
            &state,
            inertia,
            Vec3::zeros(),
            Vec3::zeros(),
            Tolerance::default(),
        )
        .unwrap();
        let dt = 1e-4;
        let mut previous = flight.state_at(0.0).unwrap().angular_velocity;
        let mut largest: f64 = 0.0;
        for k in 1..20_000 {
            let omega = flight.state_at(k as f64 * dt).unwrap().angular_velocity;
            largest = largest.max((omega - previous).norm() / dt);
            previous = omega;
        }
        assert!(largest <= bound * (1.0 + 1e-3), "{largest} > {bound}");
    }
}

/// Runs 300 random pairs of bodies heading for each other and checks that sampling their free
/// flights up to the time of impact `travel` gives never finds them touching. Returns how many
/// pairs had a finite bound, and in how many this bound's time was later than eq. 2.13's.
fn sample_random_pairs(travel: fn(&MotionBound, &Vec3) -> TravelBound) -> (usize, usize) {
    let mut later = 0;
    let mut rng = Pcg64::seed_from_u64(99);
    let gravity = Vec3::new(0.0, 0.0, -9.81);
    let mut finite = 0;
    for trial in 0..300 {
        let mut world = World::new(WorldSettings {
            gravity,
            ..WorldSettings::default()
        });
        let mut ids = Vec::new();
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
            ids.push(world.add_body(desc).unwrap());
        }
        let bodies = [world.body(ids[0]), world.body(ids[1])];
        let models = [
            CollisionModel::from_shapes(bodies[0].shapes()),
            CollisionModel::from_shapes(bodies[1].shapes()),
        ];
        let mut flights = [
            Flight::new(bodies[0], &gravity),
            Flight::new(bodies[1], &gravity),
        ];
        let start = [*bodies[0].state(), *bodies[1].state()];
        let now = distance(
            &models,
            [
                model_pose(bodies[0], &start[0]),
                model_pose(bodies[1], &start[1]),
            ],
        );
        if now.distance <= 1e-6 {
            continue;
        }
        // d̂ points from body 1 to body 2: the normal (from b to a) reversed.
        let d_hat = -now.normal;
        let bounds = [
            bound(bodies[0], &start[0], &gravity, &models[0]),
            bound(bodies[1], &start[1], &gravity, &models[1]),
        ];
        let total = travel(&bounds[0], &d_hat) + travel(&bounds[1], &-d_hat);
        let tau = time_of_impact(total, now.distance);
        if !tau.is_finite() {
            continue;
        }
        finite += 1;
        let thesis = bounds[0].along(&d_hat) + bounds[1].along(&-d_hat);
        if tau > time_of_impact(thesis, now.distance) {
            later += 1;
        }
        // Dense sampling of the free motion up to the bound: still apart.
        for k in 1..=200 {
            let t = tau * k as f64 / 200.0;
            let states = [flights[0].at(t), flights[1].at(t)];
            let d = distance(
                &models,
                [
                    model_pose(bodies[0], &states[0]),
                    model_pose(bodies[1], &states[1]),
                ],
            )
            .distance;
            assert!(
                d > -1e-9,
                "trial {trial}: contact at t = {t} before the bound {tau} (d = {d})"
            );
        }
    }
    (finite, later)
}

/// Mirtich §2.1's pathological case without gravity: a fixed wall 1 mm thick whose faces are
/// x = ±0.0005, and a sphere of radius 5 mm and 10 g 1 m before it, flying at it at 900 m/s
/// (and at `sideways` along y). Returns the world, the wall and the bullet.
fn bullet_and_wall(sideways: f64) -> (World, BodyId, BodyId) {
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
    bullet.velocity = Vec3::new(900.0, sideways, 0.0);
    let bullet_id = world.add_body(bullet).unwrap();
    (world, wall_id, bullet_id)
}

#[test]
fn a_bullet_does_not_pass_through_a_thin_wall() {
    // Mirtich §2.1's pathological case: a small, fast sphere and a 1 mm wall. Stepping by the
    // bound and re-checking (one-sided root finding) must stop inside the collision envelope,
    // never beyond the wall — and, with the bound aimed at the envelope, in one step.
    let (world, wall_id, bullet_id) = bullet_and_wall(0.3);
    let (wb, bb) = (world.body(wall_id), world.body(bullet_id));
    let models = [
        CollisionModel::from_shapes(bb.shapes()),
        CollisionModel::from_shapes(wb.shapes()),
    ];
    let zero = Vec3::zeros();
    let mut flight = Flight::new(bb, &zero);
    let wall_pose = wb.model_pose();
    let epsilon = 1e-4;
    let mut t = 0.0;
    let mut steps = 0;
    loop {
        let s = flight.at(t);
        let c = distance(&models, [model_pose(bb, &s), wall_pose]);
        assert!(c.distance > 0.0, "the bullet went into the wall");
        if c.distance < epsilon {
            // Contact is found within the envelope of the wall's face: x = −0.0055 − d.
            assert!(
                s.position.x < -0.0055 && s.position.x > -0.0055 - epsilon,
                "x = {}",
                s.position.x
            );
            break;
        }
        let total = bound(bb, &s, &zero, &models[0]).along(&-c.normal)
            + MotionBound::Fixed.along(&c.normal);
        t += time_of_impact(total, approach_allowed(c.distance, epsilon));
        steps += 1;
        assert!(steps < 100, "one-sided root finding must converge");
    }
    // The exact bound (pure translation) lands at d = ε/2 after a single step.
    assert_eq!(steps, 1);
}

#[test]
fn the_world_stops_the_bullet_at_the_wall() {
    // The same bullet through the simulation loop: one collision, at the wall, never through it;
    // it leaves at e·900 = 450 m/s (central, frictionless in effect: no tangential slip at this
    // incidence changes the normal restitution).
    let (mut world, _, bullet_id) = bullet_and_wall(0.0);
    for k in 1..=100 {
        world.advance_to(k as f64 * 2e-5).unwrap();
        assert!(
            world.body(bullet_id).state().position.x < -0.0055,
            "through the wall at step {k}"
        );
    }
    assert_eq!(world.counters()["collisions"], 1);
    assert!(
        world.counters()["collision_checks"] <= 4,
        "{:?}",
        world.counters()
    );
    let v = world.body(bullet_id).state().velocity.x;
    assert!((v + 450.0).abs() < 1e-9, "rebound speed {v}");
}
