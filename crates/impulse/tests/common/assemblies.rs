//! Kalra assemblies for the tests: rods as uniform solid cylinders, joints by name, random
//! bodies for the no-work checks, the slider crank of kalra.md §6 V6, and the errors of a
//! refused assembly scene.

use std::path::Path;

use impulse::assembly::scene::parse;
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::math::{Quat, Vec3};
use impulse::scene::Diagnostic;
use rand::Rng;
use rand_pcg::Pcg64;

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

/// A point uniform in the cube [−1, 1)³.
pub fn in_cube(rng: &mut Pcg64) -> Vec3 {
    Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
}

/// A body of random mass (0.5 to 1.5), principal moments (0.1–0.15, 0.15–0.2, 0.2–0.25),
/// position (in the cube [−1, 1)³), orientation, velocity and angular velocity (each component
/// below 3).
pub fn random_pose_body(rng: &mut Pcg64, name: &str) -> AssemblyBodyDesc {
    let mut r = || in_cube(rng);
    let mut body = AssemblyBodyDesc::new(
        name,
        0.5 + r().x.abs(),
        Vec3::new(0.1, 0.15, 0.2) + 0.05 * r().abs(),
        r(),
    );
    body.orientation = Quat::from_scaled_axis(2.0 * r());
    body.velocity = 3.0 * r();
    body.angular_velocity = 3.0 * r();
    body
}

/// The no-work checks on an assembly `name` at its start (kalra.md §3.4: ideal forces `Jᵀλ`):
/// the constraint forces' power `Σ F·v + τ·ω` below 1e-9 of the scale of its terms
/// `Σ |F||v| + |τ||ω|` (which must be above 1e-3, or there is nothing to test), again after
/// 0.2 s of motion, and the work they did meanwhile below 1e-6 of the kinetic energy.
pub fn assert_no_work(asm: &mut Assembly, name: &str) {
    let (power, scale) = asm.constraint_power().unwrap();
    assert!(
        scale > 1e-3,
        "{name}: no constraint force to test ({scale})"
    );
    assert!(
        power.abs() <= 1e-9 * scale,
        "{name}: power {power} of {scale}"
    );
    asm.advance_to(0.2).unwrap();
    let (power, scale) = asm.constraint_power().unwrap();
    assert!(
        power.abs() <= 1e-9 * scale,
        "{name} at 0.2 s: power {power} of {scale}"
    );
    let work = asm.constraint_work();
    assert!(
        work.abs() <= 1e-6 * asm.kinetic_energy(),
        "{name}: work {work}"
    );
}

/// The file name the scene texts of [`scene_errors`] are read as.
pub const SCENE_FILE: &str = "test.toml";

/// The errors of the assembly scene `text` read as the file [`SCENE_FILE`] (none when it
/// loads).
pub fn scene_errors(text: &str) -> Vec<Diagnostic> {
    match parse(Path::new(SCENE_FILE), text) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    }
}

/// Asserts that the assembly scene `text` is refused and that its first error names
/// [`SCENE_FILE`], `key` and `line` and says `says`.
pub fn assert_first_error(text: &str, key: &str, line: usize, says: &str) {
    let e = scene_errors(text);
    assert!(
        !e.is_empty()
            && e[0].key == key
            && e[0].line == line
            && e[0].message.contains(says)
            && e[0].path.ends_with(SCENE_FILE),
        "expected `{key}` at line {line} saying `{says}`, found {e:?}"
    );
}
