//! Multibodies for the tests: random trees and states (seeded, so every run is the same), box
//! links, and multibodies built on their own (no fixed bodies to hang from).

use impulse::dynamics::{BodyDesc, MassSpec};
use impulse::geometry::Shape;
use impulse::integrate::Tolerance;
use impulse::math::{Quat, Vec3, pose};
use impulse::multibody::{
    AppliedForces, BodyLookup, Joint, JointDesc, JointKind, Link, Multibody, MultibodyDesc, Tree,
};
use rand::Rng;
use rand_pcg::Pcg64;

use super::random::{random_pose, random_unit};

pub const KINDS: [JointKind; 8] = [
    JointKind::Revolute,
    JointKind::Prismatic,
    JointKind::Cylindrical,
    JointKind::Helical { pitch: 0.07 },
    JointKind::Spherical,
    JointKind::Planar,
    JointKind::Fixed,
    JointKind::Floating,
];

/// A random tree of `n` links; the root joint is `root` and the others are drawn from all
/// kinds (every kind appears in trees of 8 links or more).
pub fn random_tree(rng: &mut Pcg64, n: usize, root: JointKind) -> Tree {
    let mut links = Vec::new();
    for i in 0..n {
        let kind = if i == 0 {
            root
        } else {
            KINDS[(i - 1) % KINDS.len()]
        };
        let kind = if i > 0 && rng.random_bool(0.3) {
            KINDS[rng.random_range(0..KINDS.len())]
        } else {
            kind
        };
        let parent = if i == 0 {
            None
        } else {
            Some(rng.random_range(0..i))
        };
        let joint = Joint::new(
            format!("j{i}"),
            kind,
            random_pose(rng, 0.8),
            random_pose(rng, 0.5),
        );
        let mass = rng.random_range(0.3..3.0);
        let moments = Vec3::new(
            rng.random_range(0.01..0.3),
            rng.random_range(0.01..0.3),
            rng.random_range(0.01..0.3),
        );
        // Keep the triangle inequality of real bodies.
        let moments = Vec3::new(
            moments.x,
            moments.y,
            moments
                .z
                .clamp((moments.x - moments.y).abs() + 1e-3, moments.x + moments.y),
        );
        links.push(Link::new(format!("l{i}"), parent, joint, mass, moments));
    }
    Tree::new(links).unwrap()
}

/// A random valid state: random coordinates (unit quaternions), velocities, forces.
pub fn random_state(rng: &mut Pcg64, tree: &Tree) -> (Vec<f64>, Vec<f64>, Vec<f64>, AppliedForces) {
    let mut q = tree.neutral_q();
    for x in q.iter_mut() {
        *x += rng.random_range(-1.0..1.0);
    }
    tree.normalize(&mut q);
    let v: Vec<f64> = (0..tree.nv())
        .map(|_| rng.random_range(-2.0..2.0))
        .collect();
    let tau: Vec<f64> = (0..tree.nv())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let mut applied = AppliedForces::zero(tree.nv(), tree.links().len());
    for i in 0..tree.links().len() {
        applied.link_force[i] = random_unit(rng) * rng.random_range(0.0..2.0);
        applied.link_torque[i] = random_unit(rng) * rng.random_range(0.0..1.0);
    }
    (q, v, tau, applied)
}

/// A box link with these edge lengths and mass, centred at `centre` with this orientation
/// (model frame = box frame).
pub fn box_link(name: &str, size: Vec3, mass: f64, centre: Vec3, orientation: Quat) -> BodyDesc {
    let mut desc = BodyDesc::new(
        name,
        Shape::Box {
            half_extents: size / 2.0,
        },
    );
    desc.mass = MassSpec::Mass(mass);
    desc.pose = pose(centre, orientation);
    desc
}

/// A box link named "base" with these edge lengths and mass, centred at `centre`, and the
/// floating joint that hangs it from the world (its frame at the centre).
pub fn floating_base(size: Vec3, mass: f64, centre: Vec3) -> (BodyDesc, JointDesc) {
    (
        box_link("base", size, mass, centre, Quat::identity()),
        JointDesc::new(
            "base",
            JointKind::Floating,
            "world",
            "base",
            centre,
            Vec3::z(),
        ),
    )
}

/// The multibody `desc` describes, at t = 0 under `gravity`, with no fixed bodies to hang from.
pub fn build(desc: MultibodyDesc, gravity: Vec3) -> Multibody {
    let no_bodies = |_: &str| BodyLookup::Missing;
    Multibody::new(desc, 0.0, gravity, Tolerance::default(), &no_bodies).unwrap()
}
