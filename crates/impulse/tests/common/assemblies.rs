//! Kalra assemblies for the tests: rods as uniform solid cylinders, and joints by name.

use impulse::assembly::{AssemblyBodyDesc, JointDesc, Primitive};
use impulse::math::{Quat, Vec3};

/// A uniform solid cylinder of mass `m` and radius `r` from `from` to `to`; its body x axis
/// runs along it (inertia m r²/2 about the axis, m (3r² + l²)/12 across).
pub fn rod(name: &str, from: Vec3, to: Vec3, m: f64, r: f64) -> AssemblyBodyDesc {
    let axis = to - from;
    let l = axis.norm();
    let across = m * (3.0 * r * r + l * l) / 12.0;
    let mut body = AssemblyBodyDesc::new(
        name,
        m,
        Vec3::new(m * r * r / 2.0, across, across),
        (from + to) / 2.0,
    );
    body.orientation = Quat::rotation_between(&Vec3::x(), &axis).unwrap_or_else(Quat::identity);
    body
}

/// Joint `name` between bodies `a` and `b` (`None`: the world).
pub fn joint(name: &str, a: usize, b: Option<usize>, primitive: Primitive) -> JointDesc {
    JointDesc {
        name: name.into(),
        a,
        b,
        primitive,
    }
}
