//! Kalra assemblies for the tests: rods as uniform solid cylinders, joints by name, and the
//! slider crank of kalra.md §6 V6.

use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
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

/// The slider crank of V6 (crank r = 0.1 about z at the origin, rod l = 0.3, slider on the x
/// axis), started at crank angle `theta0` at rest, driven by `torque` against friction `c ω`.
/// Bodies: 0 the crank (a wheel), 1 the rod, 2 the slider.
pub fn slider_crank_with(settings: AssemblySettings, theta0: f64, torque: f64, c: f64) -> Assembly {
    let (r, l) = (0.1, 0.3);
    let pin = Vec3::new(r * theta0.cos(), r * theta0.sin(), 0.0);
    let x = pin.x + (l * l - pin.y * pin.y).sqrt();
    let slider_at = Vec3::new(x, 0.0, 0.0);
    // The crank is a wheel (m = 2, radius 0.15) about its centre, the pin on its rim's inside.
    let mut crank =
        AssemblyBodyDesc::new("wheel", 2.0, Vec3::new(0.011, 0.011, 0.0225), Vec3::zeros());
    crank.torque = Vec3::new(0.0, 0.0, torque);
    crank.angular_damping = c;
    let conrod = rod("rod", pin, slider_at, 0.5, 0.01);
    let slider = AssemblyBodyDesc::new("slider", 0.5, Vec3::new(1e-3, 1e-3, 1e-3), slider_at);
    let joints = vec![
        joint(
            "shaft",
            0,
            None,
            Primitive::Revolute {
                anchor: Vec3::zeros(),
                axis: Vec3::z(),
            },
        ),
        joint(
            "crank_pin",
            1,
            Some(0),
            Primitive::Revolute {
                anchor: pin,
                axis: Vec3::z(),
            },
        ),
        joint(
            "wrist_pin",
            2,
            Some(1),
            Primitive::Revolute {
                anchor: slider_at,
                axis: Vec3::z(),
            },
        ),
        joint(
            "guide",
            2,
            None,
            Primitive::Prismatic {
                anchor: slider_at,
                axis: Vec3::x(),
            },
        ),
    ];
    Assembly::new(settings, vec![crank, conrod, slider], joints).unwrap()
}
