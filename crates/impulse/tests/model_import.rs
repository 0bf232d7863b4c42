//! Robot models from URDF and MJCF files (`scene::import`): the same mechanism read from both
//! formats has the same dynamics, the closed-form pendulum, the scene written by
//! `impulse import` gives back the same multibody, `[[model]]` in scenes, and bad input —
//! every problem named by file, line and element, never a panic. (MuJoCo and Pinocchio check
//! the dynamics themselves in tests/python/test_model_dynamics.py.)

use std::path::{Path, PathBuf};

use impulse::math::Vec3;
use impulse::multibody::{AppliedForces, Workspace};
use impulse::scene::import::{Base, Model, ModelDynamics, ModelOptions, read_model};
use impulse::scene::{self, Diagnostic, Severity};
use impulse::world::{World, WorldSettings};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn load(file: &str, base: Base) -> Model {
    let options = ModelOptions {
        base,
        ..ModelOptions::default()
    };
    match read_model(&models().join(file), &options) {
        Ok(m) => m,
        Err(d) => panic!("{file}: {d:#?}"),
    }
}

/// Random states in model coordinates: angles in ±π, unit quaternions, rates and forces.
fn random_states(dynamics: &ModelDynamics, rng: &mut Pcg64, count: usize) -> Vec<[Vec<f64>; 3]> {
    (0..count)
        .map(|_| {
            let mut qpos: Vec<f64> = (0..dynamics.nq())
                .map(|_| rng.random_range(-3.1..3.1))
                .collect();
            for j in dynamics.joints() {
                let quaternion = match j.kind {
                    "floating" => Some(j.qpos + 3),
                    "spherical" => Some(j.qpos),
                    _ => None,
                };
                if let Some(i) = quaternion {
                    let norm = qpos[i..i + 4].iter().map(|x| x * x).sum::<f64>().sqrt();
                    qpos[i..i + 4].iter_mut().for_each(|x| *x /= norm);
                }
            }
            let qvel = (0..dynamics.nv())
                .map(|_| rng.random_range(-2.0..2.0))
                .collect();
            let tau = (0..dynamics.nv())
                .map(|_| rng.random_range(-5.0..5.0))
                .collect();
            [qpos, qvel, tau]
        })
        .collect()
}

fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

fn relative(a: &[f64], b: &[f64]) -> f64 {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    max_abs(&d) / max_abs(b).max(1e-300)
}

/// The same mechanism from its URDF and its MJCF file (both written by models/generate.py,
/// each in its own conventions: rpy against quaternions, rotated inertia tensors against
/// tensors in body axes, full sizes against half sizes) gives the same joints in the same
/// order and the same accelerations and mass matrices at 100 random states, to 1e-12 relative
/// (only rounding differs: the files' numbers are the same mechanism written two ways).
#[test]
fn urdf_and_mjcf_give_identical_dynamics() {
    let mut rng = Pcg64::seed_from_u64(39);
    for (name, base) in [
        ("pendulum", Base::AsWritten),
        ("double_pendulum", Base::AsWritten),
        ("arm", Base::AsWritten),
        ("humanoid", Base::Floating),
    ] {
        let urdf = load(&format!("{name}.urdf"), base);
        let mjcf = load(&format!("{name}.xml"), Base::AsWritten);
        let mut a = ModelDynamics::new(&urdf, None).unwrap();
        let mut b = ModelDynamics::new(&mjcf, None).unwrap();
        assert_eq!(a.joints(), b.joints(), "{name}: joints");
        let mut worst: f64 = 0.0;
        for [qpos, qvel, tau] in random_states(&a, &mut rng, 100) {
            let qa = a.forward_dynamics(&qpos, &qvel, &tau).unwrap();
            let qb = b.forward_dynamics(&qpos, &qvel, &tau).unwrap();
            let ma = a.mass_matrix(&qpos).unwrap();
            let mb = b.mass_matrix(&qpos).unwrap();
            worst = worst.max(relative(&qa, &qb)).max(relative(&ma, &mb));
        }
        assert!(worst < 1e-12, "{name}: URDF and MJCF differ by {worst:e}");
    }
}

/// Mirtich V21: a uniform rod (m = 1, L = 1) about its end, at rest 30° from hanging:
/// q̈ = −m g d sin θ / (I_c + m d²) = −7.3575 rad/s² (d = 0.5, I_c = 1/12), and H = 1/3.
#[test]
fn pendulum_matches_the_closed_form() {
    for file in ["pendulum.urdf", "pendulum.xml"] {
        let model = load(file, Base::AsWritten);
        let mut d = ModelDynamics::new(&model, None).unwrap();
        let qacc = d
            .forward_dynamics(&[30f64.to_radians()], &[0.0], &[0.0])
            .unwrap();
        assert!((qacc[0] + 7.3575).abs() < 1e-12, "{file}: {qacc:?}");
        let h = d.mass_matrix(&[0.3]).unwrap();
        assert!((h[0] - 1.0 / 3.0).abs() < 1e-15, "{file}: {h:?}");
    }
}

/// A floating humanoid at rest in zero gravity with no forces does not accelerate; under
/// gravity alone every link falls together: the free joint's ẍ is g and nothing turns (the
/// model-coordinate map of the free joint, checked against the obvious answer).
#[test]
fn a_free_falling_model_falls_at_g() {
    let model = load("humanoid.xml", Base::AsWritten);
    let g = Vec3::new(0.3, -0.2, -9.81);
    let mut d = ModelDynamics::new(&model, Some(g)).unwrap();
    let mut rng = Pcg64::seed_from_u64(7);
    let [mut qpos, _, _] = random_states(&d, &mut rng, 1).remove(0);
    let free = d
        .joints()
        .iter()
        .find(|j| j.kind == "floating")
        .unwrap()
        .clone();
    qpos[free.qpos..free.qpos + 3].copy_from_slice(&[1.0, -2.0, 3.0]);
    let zeros = vec![0.0; d.nv()];
    let qacc = d.forward_dynamics(&qpos, &zeros, &zeros).unwrap();
    for (k, gk) in g.iter().enumerate() {
        assert!((qacc[free.dof + k] - gk).abs() < 1e-12, "{qacc:?}");
    }
    assert!(max_abs(&qacc[free.dof + 3..]) < 1e-12, "{qacc:?}");
}

/// The written scene (`impulse import`) loads to the same multibody: same links, masses,
/// principal inertias, link frames, joint frames and passive elements (angles went through
/// degrees: 1e-12), and the same dynamics.
#[test]
fn the_written_scene_gives_the_same_multibody() {
    for (file, base) in [
        ("arm.urdf", Base::AsWritten),
        ("humanoid.urdf", Base::Floating),
        ("quadruped.xml", Base::AsWritten),
    ] {
        let model = load(file, base);
        let mut world = World::new(WorldSettings::default());
        let id = model.add_to(&mut world).unwrap().unwrap();
        let scene_path = std::env::temp_dir().join(format!("impulse_import_{file}.toml"));
        let text = model.to_scene(&scene_path);
        let scene =
            scene::parse(&scene_path, &text).unwrap_or_else(|e| panic!("{file}:\n{e}\n{text}"));
        let original = world.multibody(id).tree();
        let written = scene.world.multibodies()[0].tree();
        assert_eq!(original.links().len(), written.links().len());
        for (a, b) in original.links().iter().zip(written.links()) {
            assert_eq!(a.name, b.name);
            assert_eq!(a.parent, b.parent);
            assert!((a.mass - b.mass).abs() <= 1e-15 * a.mass, "{}", a.name);
            assert!(
                (a.principal_inertia - b.principal_inertia).norm() < 1e-13,
                "{}",
                a.name
            );
            assert!(
                (a.body_to_model.to_homogeneous() - b.body_to_model.to_homogeneous()).norm()
                    < 1e-12
            );
            let (ja, jb) = (&a.joint, &b.joint);
            assert_eq!((&ja.name, ja.kind), (&jb.name, jb.kind));
            assert!(
                (ja.predecessor.to_homogeneous() - jb.predecessor.to_homogeneous()).norm() < 1e-12
            );
            assert!((ja.successor.to_homogeneous() - jb.successor.to_homogeneous()).norm() < 1e-12);
            assert_eq!(ja.passive.damping, jb.passive.damping);
            assert_eq!(ja.passive.armature, jb.passive.armature);
            assert_eq!(ja.passive.stiffness, jb.passive.stiffness);
            for (la, lb) in ja.passive.limits.iter().zip(&jb.passive.limits) {
                let close = |x: f64, y: f64| x == y || (x - y).abs() < 1e-12;
                assert!(close(la.0, lb.0) && close(la.1, lb.1), "{la:?} {lb:?}");
            }
            assert!(a.shapes.len() == b.shapes.len(), "{}: shapes", a.name);
        }
        // Dynamics at the starting state.
        let (mb_a, mb_b) = (world.multibody(id), &scene.world.multibodies()[0]);
        assert_eq!(mb_a.q(), mb_b.q());
        let g = WorldSettings::default().gravity;
        let applied = AppliedForces::zero(original.nv(), original.links().len());
        let tau: Vec<f64> = (0..original.nv()).map(|k| (k as f64).sin()).collect();
        let mut ws = Workspace::new(original.links().len());
        let (mut qa, mut qb) = (vec![0.0; original.nv()], vec![0.0; original.nv()]);
        original.forward_dynamics(mb_a.q(), mb_a.v(), &tau, &applied, &g, &mut ws, &mut qa);
        written.forward_dynamics(mb_b.q(), mb_b.v(), &tau, &applied, &g, &mut ws, &mut qb);
        assert!(relative(&qa, &qb) < 1e-12, "{file}: {qa:?} vs {qb:?}");
        assert_eq!(
            world.multibody(id).has_controllers(),
            scene.world.multibodies()[0].has_controllers()
        );
    }
}

/// A scene's `[[model]]` stands the robot among free bodies: it is placed by `position` and
/// `orientation`, its root welded to a fixed body `MODEL/ROOT` that holds the base geometry,
/// and ABA agrees with the dense mass-matrix solve on it (armature included: the quadruped).
#[test]
fn a_scene_places_models_among_bodies() {
    let dir = models();
    let text = r#"
[world]
gravity = [0, 0, -9.81]

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "halfspace" }

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [3, 0, 1]

[[model]]
file = "arm.urdf"
position = [0, 0, 1.0]
orientation = { axis = [0, 0, 1], angle = 90 }

[[model]]
file = "quadruped.xml"
name = "dog"
position = [-3, 0, 1.0]
"#;
    let scene = scene::parse(&dir.join("scene.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    let world = &scene.world;
    // The quadruped's MJCF asks for the scene's gravity: no warning; its floor plane is part
    // of the ground body `dog/world`.
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert!(world.body_id("arm/base_link").is_some());
    assert!(world.body_id("dog/world").is_some());
    let arm = world.multibody(world.multibody_id("arm").unwrap());
    // The shoulder joint sits 0.1 above the base, which stands at z = 1.
    let shoulder = &arm.tree().links()[0];
    let anchor = shoulder.joint.predecessor.translation.vector;
    assert!(
        (anchor - Vec3::new(0.0, 0.0, 1.1)).norm() < 1e-12,
        "{anchor:?}"
    );
    assert_eq!(shoulder.attached_to.as_deref(), Some("arm/base_link"));
    let dog = world.multibody(world.multibody_id("dog").unwrap());
    assert!(dog.has_controllers(), "the knee servos");
    let tree = dog.tree();
    let mut rng = Pcg64::seed_from_u64(3);
    let (q, v) = (dog.q().to_vec(), dog.v().to_vec());
    let q: Vec<f64> = q.iter().map(|x| x + rng.random_range(-0.2..0.2)).collect();
    let mut q = q;
    tree.normalize(&mut q);
    let tau: Vec<f64> = (0..tree.nv())
        .map(|_| rng.random_range(-3.0..3.0))
        .collect();
    let applied = AppliedForces::zero(tree.nv(), tree.links().len());
    let g = Vec3::new(0.0, 0.0, -9.81);
    let mut ws = Workspace::new(tree.links().len());
    let mut aba = vec![0.0; tree.nv()];
    tree.forward_dynamics(&q, &v, &tau, &applied, &g, &mut ws, &mut aba);
    let dense = tree
        .forward_dynamics_dense(&q, &v, &tau, &applied, &g, &mut ws)
        .unwrap();
    assert!(relative(&aba, dense.as_slice()) < 1e-12);
    assert!(
        tree.links()
            .iter()
            .any(|l| l.joint.passive.armature.iter().any(|&a| a > 0.0))
    );
}

/// MJCF details: `<default>` classes and `childclass` (the quadruped's knees take the class
/// "leg"'s damping 0.25), position servos (kp 40), and geom-derived mass: a body with only a
/// sphere geom of radius 0.1 weighs 1000 · 4/3 π 0.1³ with inertia 2/5 m r².
#[test]
fn mjcf_defaults_servos_and_geometry_mass() {
    let model = load("quadruped.xml", Base::AsWritten);
    let desc = model.multibody.as_ref().unwrap();
    let knee = desc.joints.iter().find(|j| j.name == "fl_knee").unwrap();
    assert_eq!(knee.passive.damping, vec![0.25]);
    assert_eq!(knee.passive.armature, vec![0.02]);
    let hip = desc.joints.iter().find(|j| j.name == "fl_hip").unwrap();
    assert_eq!(hip.passive.damping, vec![0.3; 3]);
    assert_eq!(desc.controllers.len(), 4, "a position servo per knee");
    let text = model.to_scene(Path::new("dog.toml"));
    assert_eq!(text.matches("kp = 40").count(), 4, "{text}");

    let dir = std::env::temp_dir().join("impulse_mjcf_mass");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ball.xml");
    std::fs::write(
        &path,
        r#"<mujoco><worldbody><body name="ball" pos="0 0 1"><freejoint/>
        <geom type="sphere" size="0.1" pos="0.2 0 0"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let model = read_model(&path, &ModelOptions::default()).unwrap();
    let link = &model.multibody.as_ref().unwrap().links[0];
    let impulse::dynamics::MassSpec::Explicit {
        mass,
        center_of_mass,
        inertia,
    } = link.mass
    else {
        panic!("explicit mass expected");
    };
    let expected = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-3;
    assert!((mass - expected).abs() < 1e-12 * expected);
    assert!((center_of_mass.coords - Vec3::new(0.2, 0.0, 0.0)).norm() < 1e-15);
    assert!((inertia[(0, 0)] - 0.4 * expected * 0.01).abs() < 1e-12 * expected);
}

// ---------------------------------------------------------------------------------------------
// Bad input

/// Writes `text` as `name` in a fresh folder and reads it.
fn read(name: &str, text: &str) -> Result<Model, Vec<Diagnostic>> {
    let dir = std::env::temp_dir()
        .join("impulse_model_import")
        .join(name.replace('.', "_"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    read_model(&path, &ModelOptions::default())
}

/// The one error whose message contains `needle`, checked for file, line and element.
fn expect_error(name: &str, text: &str, needle: &str, line: usize, element: &str) {
    let diagnostics = match read(name, text) {
        Ok(_) => panic!("{name}: expected an error containing `{needle}`"),
        Err(d) => d,
    };
    let found = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && d.message.contains(needle))
        .unwrap_or_else(|| panic!("{name}: no error with `{needle}` in {diagnostics:#?}"));
    assert!(found.path.ends_with(name), "{found}");
    assert_eq!(found.line, line, "{found}");
    assert!(found.key.contains(element), "{found}");
    // And as a user reads it: `file:line:column: error: `element`: message`.
    let shown = found.to_string();
    assert!(shown.contains(&format!("{name}:{line}:")), "{shown}");
}

fn expect_warning(name: &str, text: &str, needle: &str, line: usize) {
    let model = read(name, text).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
    let found = model
        .warnings
        .iter()
        .find(|d| d.message.contains(needle))
        .unwrap_or_else(|| {
            panic!(
                "{name}: no warning with `{needle}` in {:#?}",
                model.warnings
            )
        });
    assert_eq!(found.severity, Severity::Warning);
    assert_eq!(found.line, line, "{found}");
}

const LINK: &str = r#"<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>"#;

fn urdf(body: &str) -> String {
    format!("<robot name=\"r\">\n<link name=\"base\"/>\n{body}\n</robot>\n")
}

fn link(name: &str) -> String {
    format!("<link name=\"{name}\">{LINK}</link>")
}

fn joint(name: &str, parent: &str, child: &str) -> String {
    format!(
        "<joint name=\"{name}\" type=\"continuous\"><parent link=\"{parent}\"/><child link=\"{child}\"/><axis xyz=\"0 0 1\"/></joint>"
    )
}

#[test]
fn malformed_xml_is_located() {
    expect_error(
        "broken.urdf",
        "<robot name=\"r\">\n<link name=\"a\">\n</robot>\n",
        "malformed XML",
        3,
        "",
    );
    expect_error(
        "broken.xml",
        "<mujoco>\n<worldbody>\n<body name=\"a\" pos=\"0 0\n",
        "malformed XML",
        3,
        "",
    );
    expect_error(
        "other.xml",
        "<sdf version=\"1.6\"/>\n",
        "not a robot model",
        1,
        "",
    );
}

#[test]
fn urdf_tree_errors_are_located() {
    // A joint whose parent link does not exist (line 4).
    let text = urdf(&format!("{}\n{}", link("a"), joint("j", "nowhere", "a")));
    expect_error(
        "parent.urdf",
        &text,
        "no link named `nowhere`",
        4,
        "<parent>",
    );
    // A cycle: base → a → b → a (b is a's parent and child). Line 6 holds the second joint to a.
    let text = urdf(&format!(
        "{}\n{}\n{}\n{}\n{}",
        link("a"),
        link("b"),
        joint("j1", "base", "a"),
        joint("j2", "a", "b"),
        joint("j3", "b", "a")
    ));
    expect_error(
        "cycle.urdf",
        &text,
        "already the child of joint `j1`",
        7,
        "<joint name=\"j3\">",
    );
    // A pure cycle with no root at all.
    let text = format!(
        "<robot name=\"r\">\n{}\n{}\n{}\n{}\n</robot>\n",
        link("a"),
        link("b"),
        joint("j1", "a", "b"),
        joint("j2", "b", "a")
    );
    expect_error(
        "loop.urdf",
        &text,
        "the joints form a cycle",
        1,
        "<robot name=\"r\">",
    );
    // Two roots.
    let text = urdf(&link("a"));
    expect_error("roots.urdf", &text, "2 root links", 3, "<link name=\"a\">");
    // A link moved by a joint with no inertial.
    let text = urdf(&format!("<link name=\"a\"/>\n{}", joint("j", "base", "a")));
    expect_error(
        "massless.urdf",
        &text,
        "has no mass",
        3,
        "<link name=\"a\">",
    );
}

#[test]
fn bad_inertias_are_located() {
    let with = |inertia: &str| {
        urdf(&format!(
            "<link name=\"a\"><inertial><mass value=\"1\"/>\n{inertia}\n</inertial></link>\n{}",
            joint("j", "base", "a")
        ))
    };
    expect_error(
        "zero.urdf",
        &with(r#"<inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/>"#),
        "must be positive",
        4,
        "<inertia>",
    );
    // Not positive definite: a negative principal moment.
    expect_error(
        "indefinite.urdf",
        &with(r#"<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0.3" ixz="0" iyz="0"/>"#),
        "principal moments",
        4,
        "<inertia>",
    );
    // Positive but impossible: 0.5 > 0.1 + 0.1 (the triangle inequality).
    expect_error(
        "triangle.urdf",
        &with(r#"<inertia ixx="0.1" iyy="0.1" izz="0.5" ixy="0" ixz="0" iyz="0"/>"#),
        "triangle inequality",
        4,
        "<inertia>",
    );
    expect_error(
        "mass.urdf",
        &urdf(&format!(
            "<link name=\"a\"><inertial>\n<mass value=\"-2\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\n</inertial></link>\n{}",
            joint("j", "base", "a")
        )),
        "mass must be positive",
        4,
        "<inertia>",
    );
    expect_error(
        "zero_mass.xml",
        "<mujoco><worldbody>\n<body name=\"a\"><joint/>\n<inertial mass=\"0\" diaginertia=\"1 1 1\"/>\n</body></worldbody></mujoco>\n",
        "mass must be positive",
        3,
        "<inertial>",
    );
}

#[test]
fn meshes_missing_or_unreadable() {
    let geometry = |file: &str| {
        urdf(&format!(
            "<link name=\"a\">{LINK}<collision><geometry>\n<mesh filename=\"{file}\"/>\n</geometry></collision></link>\n{}",
            joint("j", "base", "a")
        ))
    };
    expect_error(
        "mesh.urdf",
        &geometry("missing.stl"),
        "not found",
        4,
        "filename",
    );
    expect_error(
        "ply.urdf",
        &geometry("part.ply"),
        "OBJ (.obj) or STL",
        4,
        "filename",
    );
    // COLLADA: left out with a warning; the link keeps its inertial.
    expect_warning(
        "dae.urdf",
        &geometry("package://robot/meshes/part.dae"),
        "COLLADA",
        4,
    );
    expect_error(
        "mesh.xml",
        "<mujoco><asset>\n<mesh name=\"m\" file=\"gone.obj\"/>\n</asset></mujoco>\n",
        "not found",
        2,
        "file",
    );
}

#[test]
fn unsupported_elements_are_reported() {
    let text = urdf(&format!(
        "{}\n{}\n<joint name=\"m\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n<mimic joint=\"j\"/><limit lower=\"-1\" upper=\"1\"/></joint>\n<transmission name=\"t\"/>",
        link("a"),
        link("b") + "\n" + &joint("j", "base", "a")
    ));
    expect_warning("mimic.urdf", &text, "<mimic> is not supported", 7);
    expect_warning("mimic.urdf", &text, "<transmission> is not supported", 8);
    // Joint friction.
    let text = urdf(&format!(
        "{}\n<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/>\n<dynamics damping=\"0.1\" friction=\"2\"/></joint>",
        link("a")
    ));
    expect_warning("friction.urdf", &text, "Coulomb joint friction", 5);
    // MJCF: two joints on one body (an error), a tendon and a motor (warnings).
    expect_error(
        "two.xml",
        "<mujoco><worldbody>\n<body name=\"a\"><joint name=\"x\"/><joint name=\"y\"/>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>\n",
        "has 2 joints (x, y)",
        2,
        "<body name=\"a\">",
    );
    expect_error(
        "type.xml",
        "<mujoco><worldbody><body name=\"a\">\n<joint type=\"hinge2\"/>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>\n",
        "unknown joint type",
        2,
        "type",
    );
    expect_error(
        "rotated.xml",
        "<mujoco><worldbody><body name=\"a\"><joint/>\n<inertial mass=\"1\" fullinertia=\"1 1 1 0 0 0\" euler=\"0 0 1\"/></body></worldbody></mujoco>\n",
        "takes no orientation",
        2,
        "euler",
    );
    let text = "<mujoco><worldbody><body name=\"a\"><joint name=\"h\"/>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody>\n<tendon/>\n<actuator>\n<motor joint=\"h\"/>\n</actuator></mujoco>\n";
    expect_warning("tendon.xml", text, "<tendon> is not supported", 3);
    expect_warning("tendon.xml", text, "torque input has no counterpart", 5);
}

/// No input makes the reader panic: every prefix of a valid model file (cut every 7 bytes)
/// and every single-byte corruption at 200 places is either read or refused with errors.
#[test]
fn damaged_files_never_panic() {
    for file in ["arm.urdf", "quadruped.xml"] {
        let text = std::fs::read_to_string(models().join(file)).unwrap();
        let name = format!("cut_{file}");
        for end in (0..text.len()).step_by(7) {
            if text.is_char_boundary(end) {
                let _ = read(&name, &text[..end]);
            }
        }
        let mut rng = Pcg64::seed_from_u64(5);
        let bytes = text.as_bytes();
        for _ in 0..200 {
            let mut damaged = bytes.to_vec();
            let at = rng.random_range(0..damaged.len());
            damaged[at] = b"<>\"= -0.e9x/"[rng.random_range(0..12)];
            if let Ok(s) = String::from_utf8(damaged)
                && let Err(d) = read(&name, &s)
            {
                assert!(d.iter().any(|x| x.severity == Severity::Error));
            }
        }
    }
}

/// A scene whose model file has errors lists them at the model file's lines, after the
/// scene's own error at `file`; unknown `[[model]]` keys are rejected.
#[test]
fn model_errors_surface_through_the_scene() {
    let dir = std::env::temp_dir().join("impulse_model_scene");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.urdf"),
        urdf(&format!("{}\n{}", link("a"), joint("j", "nowhere", "a"))),
    )
    .unwrap();
    let text = "[[model]]\nfile = \"bad.urdf\"\nbase = \"fixd\"\ncolour = 1\n";
    let error = scene::parse(&dir.join("s.toml"), text).unwrap_err();
    let d = error.diagnostics();
    assert!(
        d.iter()
            .any(|x| x.path.ends_with("s.toml") && x.line == 3 && x.message.contains("fixed")),
        "{d:#?}"
    );
    assert!(
        d.iter()
            .any(|x| x.path.ends_with("s.toml") && x.line == 4 && x.message.contains("colour")),
        "{d:#?}"
    );
    let text = "[[model]]\nfile = \"bad.urdf\"\n";
    let error = scene::parse(&dir.join("s.toml"), text).unwrap_err();
    let d = error.diagnostics();
    assert!(d[0].path.ends_with("s.toml") && d[0].line == 2, "{d:#?}");
    assert!(
        d.iter()
            .any(|x| x.path.ends_with("bad.urdf") && x.line == 4 && x.message.contains("nowhere")),
        "{d:#?}"
    );
    let text = "[[model]]\nfile = \"absent.urdf\"\n";
    let error = scene::parse(&dir.join("s.toml"), text).unwrap_err();
    assert!(
        error.to_string().contains("cannot read the model file"),
        "{error}"
    );
}

/// The shipped scene `scenes/models/humanoid_drop.toml` runs the MJCF humanoid through the
/// world: before its feet reach the floor (0.56 m below them) its centre of mass falls freely,
/// `½ g t²` — 0.1962 m at t = 0.2 s — and does not move sideways, whatever its limbs do (their
/// dampers and stops are internal forces). Checked to 1e-7 m (the integrator's tolerance).
#[test]
fn the_dropped_humanoid_falls_freely_until_it_lands() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/models/humanoid_drop.toml");
    let mut scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let center = |world: &World| {
        let mb = &world.multibodies()[0];
        let mut sum = Vec3::zeros();
        let mut mass = 0.0;
        for (i, link) in mb.tree().links().iter().enumerate() {
            sum += mb.link_pose(i).translation.vector * link.mass;
            mass += link.mass;
        }
        sum / mass
    };
    let start = center(&scene.world);
    scene.world.advance_to(0.2).unwrap();
    let drop = start - center(&scene.world);
    let expected = 0.5 * 9.81 * 0.04;
    assert!(
        (drop.z - expected).abs() < 1e-7,
        "fell {} m, expected {expected}",
        drop.z
    );
    assert!(drop.x.abs() < 1e-7 && drop.y.abs() < 1e-7, "{drop:?}");
}
