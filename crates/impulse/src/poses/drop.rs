//! One dynamic drop (Mirtich §7.5.3): the part is released above a flat table and simulated by
//! the engine until it sleeps; the hull face it rests on is its pose.
//!
//! The drop world has two bodies: the table, a fixed half-space `z ≤ 0`, and the part. The part
//! collides through its convex hull — exact against a plane, which touches a solid only at its
//! hull — and carries its own mass properties (a hollow cap's centre of mass, a button's point
//! masses) as six point masses m/6 at c ± dₖ eₖ along its principal axes eₖ, with
//! dₖ² = 3σₖ/m and σₖ = (I₁ + I₂ + I₃)/2 − Iₖ its principal second moments: an equimomental
//! system with the same mass, centre of mass and inertia tensor. The hull itself is given a
//! density that makes its mass 10⁻¹² of the part's.

use std::sync::Arc;

use crate::Material;
use crate::dynamics::{BodyDesc, BodyId, MassSpec, MotionType, PlacedShape};
use crate::geometry::Shape;
use crate::math::{Pose, Quat, Vec3};
use crate::world::{SimulationError, Sleep, World, WorldSettings};

use super::part::Part;

/// The physical settings of a drop.
#[derive(Clone, Debug, PartialEq)]
pub struct DropPhysics {
    /// Gravitational acceleration (length units of the part per s²).
    pub gravity: f64,
    /// Height of the part's lowest point above the table at release.
    pub height: f64,
    /// Horizontal speed at release (along +x), as the part leaves the upper belt.
    pub speed: f64,
    /// Angular speed at release, rad/s, about an axis drawn at random for each drop (uniform
    /// on the sphere, from the drop's own random numbers). The thesis's protocol (§7.5.3)
    /// gives none: a part carried off a belt resting on it leaves without spin, so 0.
    pub spin: f64,
    /// Coulomb friction between part and table.
    pub friction: f64,
    /// Restitution between part and table.
    pub restitution: f64,
    /// Collision envelope ε_c as a fraction of the part's size.
    pub envelope: f64,
    /// How long the part must stay still to count as at rest (the world's sleep time).
    pub rest_time: f64,
    /// Longest a drop is simulated; a part still moving then is reported as not at rest.
    pub time_limit: f64,
}

impl Default for DropPhysics {
    /// The thesis's protocol (§7.5.3) in cm-g-s units: 12.0 cm drop, 5.0 cm/s exit speed,
    /// no spin, μ = e = 0.3.
    fn default() -> Self {
        Self {
            gravity: 981.0,
            height: 12.0,
            speed: 5.0,
            spin: 0.0,
            friction: 0.3,
            restitution: 0.3,
            envelope: 5e-3,
            rest_time: 0.25,
            time_limit: 20.0,
        }
    }
}

impl DropPhysics {
    /// Checks every value's range, naming the first that is out of it.
    pub fn check(&self) -> Result<(), String> {
        let fail = |name: &str, expected: &str, value: f64| {
            Err(format!(
                "{name} must be {expected}, got {}",
                crate::math::readable(value)
            ))
        };
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(self.gravity) {
            return fail("gravity", "a positive acceleration", self.gravity);
        }
        if !(self.height.is_finite() && self.height >= 0.0) {
            return fail("the drop height", "at least 0", self.height);
        }
        if !self.speed.is_finite() {
            return fail("the exit speed", "finite", self.speed);
        }
        if !(self.spin.is_finite() && self.spin >= 0.0) {
            return fail(
                "the spin",
                "an angular speed of at least 0 rad/s",
                self.spin,
            );
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return fail("friction", "at least 0", self.friction);
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return fail("restitution", "between 0 and 1", self.restitution);
        }
        if !(self.envelope > 0.0 && self.envelope <= 0.1) {
            return fail(
                "the envelope",
                "a fraction of the part's size in (0, 0.1]",
                self.envelope,
            );
        }
        if !positive(self.rest_time) {
            return fail("the rest time", "a positive time", self.rest_time);
        }
        if !(positive(self.time_limit) && self.time_limit > self.rest_time) {
            return fail(
                "the time limit",
                "a time longer than the rest time",
                self.time_limit,
            );
        }
        Ok(())
    }
}

/// How one drop ended.
#[derive(Clone, Debug, PartialEq)]
pub enum DropOutcome {
    /// The part came to rest on hull face `face` at simulated time `time`, in this orientation
    /// of its model frame.
    Rest {
        face: usize,
        time: f64,
        orientation: Quat,
    },
    /// The part was still moving at the time limit.
    Moving,
    /// The engine stopped the drop with an error.
    Failed(String),
}

/// The body that stands for the part in a drop world (see the module documentation), with its
/// model frame at `pose`, spinning at `physics.spin` about the unit vector `spin_axis`.
fn part_body(part: &Part, physics: &DropPhysics, pose: Pose, spin_axis: Vec3) -> BodyDesc {
    let mass = part.mass_properties();
    let (moments, axes) = mass.principal();
    let trace_half = 0.5 * (moments.x + moments.y + moments.z);
    let c = mass.center_of_mass;
    let mut point_masses = Vec::with_capacity(6);
    for k in 0..3 {
        let sigma = (trace_half - moments[k]).max(0.0);
        let d = (3.0 * sigma / mass.mass).sqrt();
        let axis = axes * Vec3::ith(k, 1.0);
        point_masses.push((mass.mass / 6.0, c + axis * d));
        point_masses.push((mass.mass / 6.0, c - axis * d));
    }
    let hull = part.hull().clone();
    let hull_volume = hull.volume_integrals().t1;
    let mut placed = PlacedShape::new(Shape::Convex(Arc::new(hull)));
    placed.density = Some(1e-12 * mass.mass / hull_volume);
    BodyDesc {
        name: part.name().to_string(),
        shapes: vec![placed],
        point_masses,
        mass: MassSpec::Density(1.0),
        pose,
        velocity: Vec3::new(physics.speed, 0.0, 0.0),
        angular_velocity: if physics.spin == 0.0 {
            Vec3::zeros()
        } else {
            spin_axis * physics.spin
        },
        motion: MotionType::Dynamic,
        material: Material {
            friction: physics.friction,
            restitution: physics.restitution,
        },
        material_name: None,
        force: Vec3::zeros(),
        torque: Vec3::zeros(),
    }
}

/// The world of one drop at release: the table and the part (its body id).
pub(crate) fn drop_world(
    part: &Part,
    physics: &DropPhysics,
    orientation: Quat,
    spin_axis: Vec3,
) -> Result<(World, BodyId), String> {
    let size = part.size();
    let mut world = World::new(WorldSettings {
        gravity: Vec3::new(0.0, 0.0, -physics.gravity),
        collision_epsilon: physics.envelope * size,
        sleep: Sleep {
            enabled: true,
            time: physics.rest_time,
            speed: None,
        },
        ..WorldSettings::default()
    });
    let material = Material {
        friction: physics.friction,
        restitution: physics.restitution,
    };
    let mut table = BodyDesc::new("table", Shape::HalfSpace);
    table.motion = MotionType::Fixed;
    table.material = material;
    // Model frame placed so that the centre of mass is over the origin and the lowest hull
    // vertex at the drop height (plus half an envelope, so it starts clear of the table).
    let lowest = part
        .hull()
        .vertices()
        .iter()
        .map(|v| (orientation * v).z)
        .fold(f64::INFINITY, f64::min);
    let c = orientation * part.center_of_mass();
    let start = Vec3::new(
        -c.x,
        -c.y,
        physics.height - lowest + 0.5 * physics.envelope * size,
    );
    let pose = Pose::from_parts(start.into(), orientation);
    let table = world.add_body(table).map_err(|e| e.to_string())?;
    let id = world
        .add_body(part_body(part, physics, pose, spin_axis))
        .map_err(|e| e.to_string())?;
    world
        .set_pair_material(table, id, material)
        .map_err(|e| e.to_string())?;
    Ok((world, id))
}

/// Drops `part` released in `orientation` (of its model frame) with its lowest point
/// `physics.height` above the table, spinning at `physics.spin` about the unit vector
/// `spin_axis` (world frame; ignored without spin), and reports where it rests.
pub fn drop_part(
    part: &Part,
    physics: &DropPhysics,
    orientation: Quat,
    spin_axis: Vec3,
) -> DropOutcome {
    let result = (|| -> Result<Option<(usize, f64, Quat)>, String> {
        let (mut world, id) = drop_world(part, physics, orientation, spin_axis)?;
        // Checked every 20 ms of simulated time; where advance_to stops never changes the motion.
        let check = 0.02;
        let mut k = 1;
        loop {
            let t = (k as f64 * check).min(physics.time_limit);
            world
                .advance_to(t)
                .map_err(|e: SimulationError| e.to_string())?;
            let body = world.body(id);
            if body.is_asleep() {
                let orientation = body.model_pose().rotation;
                let down = orientation.inverse() * Vec3::new(0.0, 0.0, -1.0);
                return Ok(Some((part.face_towards(&down), t, orientation)));
            }
            if t >= physics.time_limit {
                return Ok(None);
            }
            k += 1;
        }
    })();
    match result {
        Ok(Some((face, time, orientation))) => DropOutcome::Rest {
            face,
            time,
            orientation,
        },
        Ok(None) => DropOutcome::Moving,
        Err(message) => DropOutcome::Failed(message),
    }
}

/// The orientation (of the model frame) in which `part` rests on hull face `face` with no turn
/// about the vertical: the rotation taking the face's outward normal to −z by the shortest arc.
pub fn resting_orientation(part: &Part, face: usize) -> Quat {
    let n = part.faces()[face].normal;
    Quat::rotation_between(&n, &-Vec3::z()).unwrap_or_else(|| {
        // n = +z: half a turn about x.
        Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::PI)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::tessellate::box_mesh;
    use crate::math::{Mat3, Point};

    /// A 1 × 2 × 3 cm box of density 1: three distinct principal moments, so a spin about a
    /// general axis precesses and only the angular momentum stays fixed.
    fn box_part() -> Part {
        let mesh = box_mesh(Point::new(-0.5, -1.0, -1.5), Point::new(0.5, 1.0, 1.5));
        let mass = mesh.volume_integrals().mass_properties(1.0);
        Part::new("box".into(), "test".into(), mesh, mass).expect("a box is a part")
    }

    #[test]
    fn a_part_released_with_spin_carries_it_through_its_fall() {
        // Released 12 cm up spinning at 40 rad/s about a general axis, the part is in free flight
        // until t = √(2h/g) = 0.156 s. Expected values from the part's own mass properties
        // (not the drop body's equimomental point masses): at release ω = 40·axis and
        // L = R I Rᵀ ω with I the box's inertia tensor; in flight L is constant (no torque
        // about the centre of mass) and the centre of mass falls ½ g t² (Mirtich T§2.3.3).
        let part = box_part();
        let physics = DropPhysics {
            spin: 40.0,
            ..DropPhysics::default()
        };
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        let orientation = Quat::from_scaled_axis(Vec3::new(0.3, 0.7, -0.2));
        let (mut world, id) = drop_world(&part, &physics, orientation, axis).expect("world");
        let body = world.body(id);
        assert!((body.state().angular_velocity - axis * 40.0).norm() < 1e-12);
        let r: Mat3 = orientation.to_rotation_matrix().into_inner();
        let inertia = r * part.mass_properties().inertia * r.transpose();
        let expected = inertia * (axis * 40.0);
        let released = body.angular_momentum();
        // The hull carries 1e-12 of the mass: the point masses give the part's inertia.
        assert!(
            (released - expected).norm() < 1e-9 * expected.norm(),
            "{released} against {expected}"
        );
        let z0 = body.state().position.z;
        let t = 0.1;
        world.advance_to(t).expect("free flight");
        let body = world.body(id);
        let later = body.angular_momentum();
        assert!(
            (later - expected).norm() < 1e-6 * expected.norm(),
            "{later} against {expected}"
        );
        // The spin really turned the part (4 rad about a precessing axis in 0.1 s).
        let turned = body.model_pose().rotation.angle_to(&orientation);
        assert!(turned > 1.0, "{turned}");
        let fall = z0 - body.state().position.z;
        assert!((fall - 0.5 * 981.0 * t * t).abs() < 1e-6, "{fall}");
    }

    #[test]
    fn without_spin_the_release_is_at_rest_in_rotation() {
        // spin = 0 (the thesis's protocol): the axis is ignored and ω is exactly zero (+0.0),
        // so drops without spin run exactly as before spin existed.
        let part = box_part();
        let physics = DropPhysics::default();
        let (world, id) = drop_world(
            &part,
            &physics,
            Quat::identity(),
            Vec3::new(-0.6, -0.8, 0.0),
        )
        .expect("world");
        let w = world.body(id).state().angular_velocity;
        assert!(w.iter().all(|c| c.to_bits() == 0), "{w}");
        assert!(physics.check().is_ok());
        let bad = DropPhysics {
            spin: -1.0,
            ..DropPhysics::default()
        };
        assert!(bad.check().unwrap_err().contains("spin"));
    }
}
