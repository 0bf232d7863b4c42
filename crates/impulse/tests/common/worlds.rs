//! Worlds and bodies for the tests: a world in the thesis's units, a fixed ground, bodies of a
//! given mass, and the momentum and energy of everything that moves.

use impulse::dynamics::{BodyDesc, BodyId, MassSpec, Material, MotionType};
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};
use impulse::world::ContactModel;
use impulse::{MicrocollisionClusters, Sleep, World, WorldSettings};

/// Gravitational acceleration in cm/s².
pub const G_CGS: f64 = 981.0;

/// A world in centimetres, grams and seconds (gravity 981 cm/s² down z) with this collision
/// envelope, resting contacts answered one at a time or in clusters, and sleep on or off.
pub fn cgs_world(collision_epsilon: f64, clusters: MicrocollisionClusters, sleep: bool) -> World {
    cgs_world_under(
        WorldSettings::default().contact_model,
        collision_epsilon,
        clusters,
        sleep,
    )
}

/// [`cgs_world`] under contact model `model`.
pub fn cgs_world_under(
    model: ContactModel,
    collision_epsilon: f64,
    clusters: MicrocollisionClusters,
    sleep: bool,
) -> World {
    World::new(WorldSettings {
        contact_model: model,
        gravity: Vec3::new(0.0, 0.0, -G_CGS),
        collision_epsilon,
        microcollision_clusters: clusters,
        sleep: Sleep {
            enabled: sleep,
            ..Sleep::default()
        },
        ..WorldSettings::default()
    })
}

/// Adds a fixed half-space named "ground" whose surface is the plane z = 0, normal up.
pub fn ground(world: &mut World, material: Material) -> BodyId {
    tilted_ground(world, Quat::identity(), material)
}

/// Adds a fixed half-space named "ground" whose surface passes through the origin with outward
/// normal `orientation · z`.
pub fn tilted_ground(world: &mut World, orientation: Quat, material: Material) -> BodyId {
    let mut ground = BodyDesc::new("ground", Shape::HalfSpace);
    ground.motion = MotionType::Fixed;
    ground.pose = Pose::from_parts(Default::default(), orientation);
    ground.material = material;
    world.add_body(ground).unwrap()
}

/// A dynamic body of this shape and mass at `pose`, at rest, of the default material.
pub fn body(name: &str, shape: Shape, mass: f64, pose: Pose) -> BodyDesc {
    let mut desc = BodyDesc::new(name, shape);
    desc.mass = MassSpec::Mass(mass);
    desc.pose = pose;
    desc
}

/// A cube of this half edge length.
pub fn cube(half_edge: f64) -> Shape {
    Shape::Box {
        half_extents: Vec3::repeat(half_edge),
    }
}

/// Linear momentum and angular momentum about the origin of everything that moves: dynamic
/// bodies and multibodies.
pub fn momentum(world: &World) -> (Vec3, Vec3) {
    let (mut linear, mut angular) = (Vec3::zeros(), Vec3::zeros());
    for body in world.bodies().iter().filter(|b| b.is_dynamic()) {
        let p = body.mass() * body.state().velocity;
        linear += p;
        angular += body.center_of_mass().coords.cross(&p) + body.angular_momentum();
    }
    for multibody in world.multibodies() {
        let (p, l) = multibody.momentum();
        linear += p;
        angular += l;
    }
    (linear, angular)
}

/// Kinetic energy of the bodies and multibodies.
pub fn kinetic_energy(world: &World) -> f64 {
    world
        .bodies()
        .iter()
        .map(|b| b.kinetic_energy())
        .sum::<f64>()
        + world
            .multibodies()
            .iter()
            .map(|m| m.kinetic_energy())
            .sum::<f64>()
}
