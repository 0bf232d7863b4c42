//! The creature war's rover controller (Mirtich Fig. 7.27) decision by decision: a still rover
//! and a prey placed where each rule should fire, the wheel and piston commands checked
//! against the rule's formula. (The whole war, with physics, is in `hybrid_scenes`.)

mod common;

use common::multibodies::build;
use impulse::control::demo::{Rover, RoverMode};
use impulse::dynamics::{BodyDesc, MassSpec};
use impulse::geometry::Shape;
use impulse::math::{Quat, Vec3, pose};
use impulse::multibody::{
    Commands, Controller, JointDesc, JointKind, Multibody, MultibodyDesc, Observations,
};

const GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -981.0);
/// Wheel radius, servo gain, cruising speed, jack position and piston gain of the test rover.
const RADIUS: f64 = 5.0;
const KV: f64 = 1e3;
const VMAX: f64 = 40.0;
const JACK: f64 = -1.5;
const PISTON_KP: f64 = 1e4;

fn link(name: &str, shape: Shape, centre: Vec3) -> BodyDesc {
    let mut desc = BodyDesc::new(name, shape);
    desc.mass = MassSpec::Mass(100.0);
    desc.pose = pose(centre, Quat::identity());
    desc
}

/// A chassis at the origin facing +x, a wheel on each side, a rear piston; all at rest.
fn rover() -> Multibody {
    let wheel = Shape::Sphere { radius: RADIUS };
    let links = vec![
        link(
            "chassis",
            Shape::Box {
                half_extents: Vec3::new(15.0, 8.0, 2.0),
            },
            Vec3::new(0.0, 0.0, 7.0),
        ),
        link("left", wheel.clone(), Vec3::new(0.0, 11.0, 5.0)),
        link("right", wheel, Vec3::new(0.0, -11.0, 5.0)),
        link(
            "piston",
            Shape::Box {
                half_extents: Vec3::repeat(1.0),
            },
            Vec3::new(-12.0, 0.0, 5.0),
        ),
    ];
    let y = Vec3::y();
    let joints = vec![
        JointDesc::new(
            "chassis",
            JointKind::Floating,
            "world",
            "chassis",
            Vec3::zeros(),
            y,
        ),
        JointDesc::new(
            "left",
            JointKind::Revolute,
            "chassis",
            "left",
            Vec3::new(0.0, 11.0, 5.0),
            y,
        ),
        JointDesc::new(
            "right",
            JointKind::Revolute,
            "chassis",
            "right",
            Vec3::new(0.0, -11.0, 5.0),
            y,
        ),
        JointDesc::new(
            "piston",
            JointKind::Prismatic,
            "chassis",
            "piston",
            Vec3::new(-12.0, 0.0, 5.0),
            Vec3::z(),
        ),
    ];
    build(
        MultibodyDesc {
            name: "rover".into(),
            links,
            joints,
            controllers: Vec::new(),
        },
        GRAVITY,
    )
}

/// A one-link prey at `x`.
fn prey(x: Vec3) -> Multibody {
    build(
        MultibodyDesc {
            name: "bug".into(),
            links: vec![link("body", Shape::Sphere { radius: 4.0 }, x)],
            joints: vec![JointDesc::new(
                "body",
                JointKind::Floating,
                "world",
                "body",
                Vec3::zeros(),
                Vec3::z(),
            )],
            controllers: Vec::new(),
        },
        GRAVITY,
    )
}

/// The controller, bound to the test rover.
fn controller(rover: &Multibody) -> Rover {
    let mut c = Rover::new(
        vec!["left".into()],
        vec!["right".into()],
        RADIUS,
        KV,
        VMAX,
        vec!["bug".into()],
        200.0,
        1000.0,
        100.0,
    );
    c.pistons = vec!["piston".into()];
    c.piston_kp = PISTON_KP;
    c.jack = JACK;
    c.bind(rover.tree()).unwrap();
    c
}

/// Runs one servo update at `t` > 0 with the prey last seen at `x` (observed at t = 0); returns
/// the left and right wheel torques and the piston force.
fn step(c: &mut Rover, rover: &Multibody, x: Vec3, t: f64) -> (f64, f64, f64) {
    let mut seen = Observations::default();
    seen.publish(&prey(x), 0.0);
    let tree = rover.tree();
    let mut commands = Commands::new(tree.nv(), tree.links().len());
    c.update(t, rover, &seen, &mut commands);
    let v = |name: &str| tree.links()[rover.joint_index(name).unwrap()].joint.v_index;
    let joint = &commands.forces.joint;
    (joint[v("left")], joint[v("right")], joint[v("piston")])
}

/// At rest, a wheel servo's torque is `k_v` times its target rate (ground speed / radius).
fn torque(ground_speed: f64) -> f64 {
    KV * ground_speed / RADIUS
}

#[test]
fn rover_follows_the_rules_of_fig_7_27() {
    let rover = rover();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);

    // Prey dead ahead, 100 away (bearing 0, spin 0): forward at v_max on both sides.
    let mut c = controller(&rover);
    let (l, r, p) = step(&mut c, &rover, Vec3::new(100.0, 0.0, 7.0), 0.001);
    assert!(close(l, torque(VMAX)) && close(r, torque(VMAX)), "{l} {r}");
    assert_eq!((c.mode, p), (RoverMode::Forward, 0.0));

    // Prey 30° to the left: forward, steering with ΔV = v_max · 0.04 · 30 = 1.2 v_max.
    let mut c = controller(&rover);
    let left30 = Vec3::new(
        100.0 * 30f64.to_radians().cos(),
        100.0 * 30f64.to_radians().sin(),
        7.0,
    );
    let (l, r, _) = step(&mut c, &rover, left30, 0.001);
    let dv = VMAX * 0.04 * 30.0;
    assert!(
        close(l, torque(VMAX - dv)) && close(r, torque(VMAX + dv)),
        "{l} {r}"
    );
    assert_eq!(c.mode, RoverMode::Forward);

    // Prey at 90° to the left: |bearing| > 60 turns forward into spin, which at the next
    // decision (10 ms later) turns on the spot, v_R = −v_L = v_max · 0.04 · 90.
    let mut c = controller(&rover);
    let side = Vec3::new(0.0, 100.0, 7.0);
    step(&mut c, &rover, side, 0.001);
    assert_eq!(c.mode, RoverMode::Spin);
    // Between decisions the wheel targets are held.
    step(&mut c, &rover, side, 0.006);
    let (l, r, _) = step(&mut c, &rover, side, 0.011);
    let spin = VMAX * 0.04 * 90.0;
    assert!(close(l, -torque(spin)) && close(r, torque(spin)), "{l} {r}");

    // Prey 30 ahead: within push range (50) and bearing (25°): jack the rear (piston PD to
    // `jack`: −k_p (0 − jack) at rest) and push.
    let mut c = controller(&rover);
    let (_, _, p) = step(&mut c, &rover, Vec3::new(30.0, 0.0, 7.0), 0.001);
    assert_eq!(c.mode, RoverMode::Push);
    assert!(close(p, -PISTON_KP * (0.0 - JACK)), "{p}");
    // Pushing, the prey seen beyond the edge (|x| > 200): back off at twice v_max.
    step(&mut c, &rover, Vec3::new(210.0, 0.0, 7.0), 0.011);
    assert_eq!(c.mode, RoverMode::Reverse);
    let (l, r, _) = step(&mut c, &rover, Vec3::new(210.0, 0.0, 7.0), 0.021);
    assert!(
        close(l, -torque(2.0 * VMAX)) && close(r, -torque(2.0 * VMAX)),
        "{l} {r}"
    );
    // Still jacked while reversing.
    let (_, _, p) = step(&mut c, &rover, Vec3::new(210.0, 0.0, 7.0), 0.031);
    assert!(close(p, -PISTON_KP * (0.0 - JACK)), "{p}");

    // Prey below the table (z < 0): the only prey has fallen, so the war is over: stop.
    let mut c = controller(&rover);
    let (l, r, p) = step(&mut c, &rover, Vec3::new(100.0, 0.0, -50.0), 0.001);
    assert_eq!(c.mode, RoverMode::Done);
    assert_eq!((l, r, p), (0.0, 0.0, 0.0));

    // The prey well below the chassis's horizon (elevation −24.7° < −20°): reverse.
    let mut c = controller(&rover);
    step(&mut c, &rover, Vec3::new(15.0, 0.0, 0.1), 0.001);
    assert_eq!(c.mode, RoverMode::Reverse);
}
