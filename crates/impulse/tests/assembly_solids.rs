//! Assemblies in one world with solids: jointed bodies carrying the engine's shapes collide
//! with free bodies of any shape and with a fixed floor through the narrow phase and the
//! collision response, the joints answering each impulse (the assembly's collision matrix).
//! Checked against closed forms, against the envelope, and against energy.

use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Quat, Vec3};

const G: f64 = 9.81;

fn settings() -> AssemblySettings {
    AssemblySettings::with_step(Vec3::new(0.0, 0.0, -G), 1e-3)
}

fn cuboid(size: [f64; 3]) -> Vec<PlacedShape> {
    vec![PlacedShape::new(Shape::Box {
        half_extents: Vec3::new(size[0], size[1], size[2]) / 2.0,
    })]
}

/// A uniform box body: inertia m(b² + c²)/12 … about its centre.
fn box_body(name: &str, m: f64, size: [f64; 3], position: Vec3) -> AssemblyBodyDesc {
    let [a, b, c] = size;
    let moments = Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0);
    AssemblyBodyDesc::new(name, m, moments, position)
}

fn solid(name: &str, body: usize, shapes: Vec<PlacedShape>) -> Solid {
    Solid {
        name: name.into(),
        body: Some(body),
        shapes,
        pose: Pose::identity(),
    }
}

fn floor() -> Solid {
    Solid {
        name: "floor".into(),
        body: None,
        shapes: vec![PlacedShape::new(Shape::HalfSpace)],
        pose: Pose::identity(),
    }
}

fn hinge(body: usize, anchor: Vec3, axis: Vec3) -> JointDesc {
    JointDesc {
        name: "hinge".into(),
        a: body,
        b: None,
        primitive: Primitive::Revolute { anchor, axis },
    }
}

/// A pendulum (ℓ = 1 m to the centre of a cube bob of side a = 0.1 m, m = 1 kg, turned so that
/// a corner points along +x: the corner is the bob's leading point, d = a√3/2 from its centre)
/// swings at ω₀ = 1 rad/s through the bottom into a free box of equal mass (0.1 × 0.1 × 0.4 m,
/// standing on a frictionless floor, its face 1 cm ahead of the corner), e = 1.
///
/// Closed form: the pendulum turns about its pivot with I_p = m a²/6 + m ℓ² (a cube's inertia
/// is isotropic, so the turned cube's is the same); the corner meets the face at the angle θ
/// with d cos θ + ℓ sin θ = gap + d, at ω² = ω₀² − 2 m g ℓ (1 − cos θ)/I_p. A horizontal
/// impulse P at the corner has the moment arm h = ℓ cos θ − d sin θ about the pivot and acts
/// Δz = ℓ − h above the box's centre, so the effective
/// inverse masses are h²/I_p and 1/M + Δz²/I_yy, and elastic, frictionless:
/// P = 2 ω h / (h²/I_p + 1/M + Δz²/I_yy). The box leaves at P/M (the floor, frictionless,
/// pushes only vertically), the pendulum turns on at ω − P h/I_p. With ε = 1e-5 the contact
/// is met 5e-6 m early (θ off by 5e-6 rad): 1e-4 relative covers it.
#[test]
fn a_pendulum_bob_kicks_a_free_box_as_the_closed_form_says() {
    let (m, a, l, omega0, gap) = (1.0, 0.1, 1.0, 1.0, 0.01);
    let big_m = 1.0;
    let size = [0.1, 0.1, 0.4];
    let h_box = 0.2; // the box's centre height, standing on the floor
    let pivot = Vec3::new(0.0, 0.0, h_box + l);
    let d = a * 3f64.sqrt() / 2.0;
    // Turn the cube's diagonal (1, 1, 1)/√3 onto +x.
    let turn = Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0).normalize(), &Vec3::x()).unwrap();
    let i_c = m * a * a / 6.0;
    let mut bob = AssemblyBodyDesc::new("bob", m, Vec3::repeat(i_c), Vec3::new(0.0, 0.0, h_box));
    bob.orientation = turn;
    bob.velocity = Vec3::new(omega0 * l, 0.0, 0.0);
    bob.angular_velocity = Vec3::new(0.0, -omega0, 0.0);
    let x_face = d + gap;
    let block = box_body(
        "block",
        big_m,
        size,
        Vec3::new(x_face + size[0] / 2.0, 0.0, h_box),
    );
    let assembly = Assembly::new(
        settings(),
        vec![bob, block],
        vec![hinge(0, pivot, Vec3::y())],
    )
    .unwrap();
    let cube = cuboid([a, a, a]);
    let contact = ContactSettings {
        restitution: 1.0,
        friction: 0.0,
        envelope: 1e-4,
    };
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![
            solid("bob", 0, cube),
            solid("block", 1, cuboid(size)),
            floor(),
        ],
        contact,
        &[],
        &[],
    )
    .unwrap();
    let e0 = sim.assembly.energy();
    // Step by step until the kick, to read the pendulum just after it.
    let mut k = 0;
    while !sim.hits.iter().any(|h| h.solids == (0, 1)) {
        k += 1;
        assert!(k < 100, "no kick in 0.1 s");
        sim.advance_to(k as f64 * 1e-3).unwrap();
    }
    let w_after = -sim.assembly.bodies()[0].angular_velocity().y;
    sim.advance_to(0.05).unwrap();
    let kicks: Vec<_> = sim.hits.iter().filter(|h| h.solids == (0, 1)).collect();
    assert_eq!(kicks.len(), 1, "one kick: {kicks:?}");
    // Closed form: θ from d cos θ + ℓ sin θ = d + gap (Newton), then ω, h, Δz, P.
    let mut theta = gap / l;
    for _ in 0..50 {
        let f = d * theta.cos() + l * theta.sin() - (d + gap);
        theta -= f / (-d * theta.sin() + l * theta.cos());
    }
    let i_p = i_c + m * l * l;
    let omega = (omega0 * omega0 - 2.0 * m * G * l * (1.0 - theta.cos()) / i_p).sqrt();
    let arm = l * theta.cos() - d * theta.sin();
    // The corner is at height pivot − arm; the box's centre at h_box = pivot − ℓ.
    let dz = l - arm;
    let i_yy = big_m * (size[0] * size[0] + size[2] * size[2]) / 12.0;
    let p = 2.0 * omega * arm / (arm * arm / i_p + 1.0 / big_m + dz * dz / i_yy);
    let got_p = -kicks[0].impulse.x; // on the bob (first solid); the box takes +P
    println!(
        "θ = {theta:.6}, P = {got_p:.9} (closed form {p:.9}), at t = {:.6}",
        kicks[0].time
    );
    assert!((got_p - p).abs() < 1e-4 * p, "impulse {got_p} vs {p}");
    let v_box = sim.assembly.bodies()[1].velocity().x;
    assert!(
        (v_box - p / big_m).abs() < 1e-4 * p / big_m,
        "box {v_box} vs {}",
        p / big_m
    );
    // The pendulum right after: ω' = ω − P h / I_p (the rest of the step's gravity changes
    // it by less than m g ℓ sin θ h / I_p ≈ 1e-4 rad/s, which the tolerance covers).
    let expected_w = omega - p * arm / i_p;
    println!(
        "box {v_box:.9} (closed form {:.9}), pendulum ω after {w_after:.9} (closed form {expected_w:.9})",
        p / big_m
    );
    assert!(
        (w_after - expected_w).abs() < 1e-4 * omega,
        "pendulum {w_after} vs {expected_w}"
    );
    // Energy: the kick is elastic and frictionless; only the box's microcollisions on the
    // floor change the total, and they keep it hovering within about an envelope of the
    // floor (boosted restitution, Mirtich §3.5): a rise below 2 M g ε (2e-3 J), and no loss
    // beyond rounding.
    let e1 = sim.assembly.energy();
    println!("energy {e0} → {e1}");
    assert!(
        e1 - e0 < 2.0 * big_m * G * contact.envelope && e1 - e0 > -1e-9,
        "energy {e0} → {e1}"
    );
}

/// A plank (1 × 0.1 × 0.05 m, 2 kg) hinged at one end 2.5 cm above the floor (its centre's
/// height) lies on the floor: over 2 s its free end rests there through its contacts — the
/// least distance between plank and floor stays within the envelope (ε = 1e-3 m), never
/// deeper than −ε (no sinking), and the energy rises by less than m g ε (hovering).
#[test]
fn a_hinged_plank_rests_on_the_floor_without_sinking() {
    let (m, size) = (2.0, [1.0, 0.1, 0.05]);
    let plank = box_body("plank", m, size, Vec3::new(0.5, 0.0, 0.025));
    let assembly = Assembly::new(
        settings(),
        vec![plank],
        vec![hinge(0, Vec3::new(0.0, 0.0, 0.025), Vec3::y())],
    )
    .unwrap();
    let contact = ContactSettings::default();
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![solid("plank", 0, cuboid(size)), floor()],
        contact,
        &[],
        &[],
    )
    .unwrap();
    let e0 = sim.assembly.energy();
    let (mut lowest, mut highest) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 1..=200 {
        sim.advance_to(k as f64 * 0.01).unwrap();
        let d = sim.least_distance();
        lowest = lowest.min(d);
        highest = highest.max(d);
    }
    let rise = sim.assembly.energy() - e0;
    println!(
        "distance in [{lowest:e}, {highest:e}] m over 2 s, {} contacts, energy rise {rise:e} J",
        sim.hits.len()
    );
    assert!(lowest > -contact.envelope, "sank to {lowest}");
    assert!(highest < contact.envelope, "rose to {highest}");
    assert!(rise < m * G * contact.envelope, "energy rose {rise}");
    assert!(
        sim.assembly.max_gap() < 1e-9,
        "joint gap {}",
        sim.assembly.max_gap()
    );
}

/// A ball (r = 0.05 m) at 50 m/s (no gravity) towards a fixed wall 5 mm thick: it moves 5 cm
/// a step, ten times the wall's thickness, and a check after each step alone would let it
/// pass. Conservative advancement finds the contact inside the step: the ball bounces
/// (e = 0.5, frictionless, head on: back at 25 m/s, to 1e-6) and never gets past the wall's
/// front face.
#[test]
fn a_fast_ball_does_not_tunnel_through_a_thin_wall() {
    let mut cube = AssemblyBodyDesc::new("ball", 1.0, Vec3::repeat(0.001), Vec3::zeros());
    cube.velocity = Vec3::new(50.0, 0.0, 0.0);
    let zero_g = AssemblySettings::with_step(Vec3::zeros(), 1e-3);
    let assembly = Assembly::new(zero_g, vec![cube], vec![]).unwrap();
    let wall = Solid {
        name: "wall".into(),
        body: None,
        shapes: cuboid([0.005, 1.0, 1.0]),
        pose: Pose::translation(1.0, 0.0, 0.0),
    };
    let contact = ContactSettings {
        restitution: 0.5,
        friction: 0.0,
        envelope: 1e-3,
    };
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![
            solid(
                "ball",
                0,
                vec![PlacedShape::new(Shape::Sphere { radius: 0.05 })],
            ),
            wall,
        ],
        contact,
        &[],
        &[],
    )
    .unwrap();
    let mut farthest = f64::NEG_INFINITY;
    for k in 1..=60 {
        sim.advance_to(k as f64 * 1e-3).unwrap();
        farthest = farthest.max(sim.assembly.bodies()[0].pose().translation.vector.x);
    }
    let v = sim.assembly.bodies()[0].velocity().x;
    println!("farthest centre x {farthest}, velocity after {v}");
    assert_eq!(sim.hits.len(), 1);
    assert!(
        farthest + 0.05 < 1.0 - 0.0025,
        "passed the wall's face: {farthest}"
    );
    assert!((v + 25.0).abs() < 1e-6 * 25.0, "rebound {v}");
}

/// Two links joined by a hinge, their boxes overlapping at the joint: joined bodies do not
/// collide by default, so the assembly builds and runs; including the pair makes it collide,
/// and the overlap (deeper than the envelope) is refused with both names. Excluding a free
/// box's pair with the floor lets it fall through.
#[test]
fn joined_bodies_are_excluded_and_pairs_can_be_included_or_excluded() {
    let build = |include: &[(usize, usize)]| {
        let a = box_body("a", 1.0, [0.5, 0.1, 0.1], Vec3::new(0.25, 0.0, 1.0));
        let b = box_body("b", 1.0, [0.5, 0.1, 0.1], Vec3::new(0.65, 0.0, 1.0));
        let joints = vec![
            hinge(0, Vec3::new(0.0, 0.0, 1.0), Vec3::y()),
            JointDesc {
                name: "knee".into(),
                a: 1,
                b: Some(0),
                primitive: Primitive::Revolute {
                    anchor: Vec3::new(0.45, 0.0, 1.0),
                    axis: Vec3::y(),
                },
            },
        ];
        let asm = Assembly::new(settings(), vec![a, b], joints).unwrap();
        AssemblyWithSolids::new(
            asm,
            vec![
                solid("a", 0, cuboid([0.5, 0.1, 0.1])),
                solid("b", 1, cuboid([0.5, 0.1, 0.1])),
            ],
            ContactSettings::default(),
            &[],
            include,
        )
    };
    let mut free = build(&[]).unwrap();
    assert!(free.pairs().is_empty());
    free.advance_to(0.1).unwrap();
    assert_eq!(build(&[(0, 1)]).unwrap().pairs(), &[(0, 1)]);

    // A ball sunk 1 cm into the floor (ε = 1 mm) is refused, naming both.
    let sunk = AssemblyBodyDesc::new("ball", 1.0, Vec3::repeat(0.004), Vec3::new(0.0, 0.0, 0.09));
    let asm = Assembly::new(settings(), vec![sunk], vec![]).unwrap();
    let ball = vec![PlacedShape::new(Shape::Sphere { radius: 0.1 })];
    let err = AssemblyWithSolids::new(
        asm,
        vec![solid("ball", 0, ball), floor()],
        ContactSettings::default(),
        &[],
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`ball` and `floor` start overlapping by 1"),
        "{err}"
    );

    let falling = box_body("box", 1.0, [0.1; 3], Vec3::new(0.0, 0.0, 0.1));
    let asm = Assembly::new(settings(), vec![falling], vec![]).unwrap();
    let mut sim = AssemblyWithSolids::new(
        asm,
        vec![solid("box", 0, cuboid([0.1; 3])), floor()],
        ContactSettings::default(),
        &[(0, 1)],
        &[],
    )
    .unwrap();
    sim.advance_to(0.5).unwrap();
    let z = sim.assembly.bodies()[0].pose().translation.vector.z;
    // Free fall: z = 0.1 − g t²/2 at t = 0.5 (RK4 exact for constant gravity).
    assert!((z - (0.1 - 0.5 * G * 0.25)).abs() < 1e-9, "z = {z}");
    assert!(sim.hits.is_empty());
}

/// The scene keys: shapes on bodies (mass properties from them, or given), `[[fixed]]`,
/// `[contact]`'s `envelope`, `exclude` and `include`; and bad input reported with line and key.
#[test]
fn solid_keys_are_read_and_checked_at_load() {
    use impulse::assembly::scene::parse;
    use std::path::Path;
    let base = r#"
[world]
[assembly]
[[bodies]]
name = "arm"
mass = 1
inertia = [0.001, 0.01, 0.01]
position = [0.2, 0, 0.5]
shape = { type = "box", size = [0.4, 0.05, 0.05] }
[[joints]]
type = "revolute"
body = "arm"
anchor = [0, 0, 0.5]
axis = [0, 1, 0]
[[bodies]]
name = "crate"
shape = { type = "box", size = [0.1, 0.2, 0.3] }
density = 500
position = [0.6, 0, 0.15]
[[fixed]]
name = "floor"
shape = { type = "halfspace" }
[contact]
envelope = 0.002
exclude = [["arm", "floor"]]
"#;
    let scene = parse(Path::new("s.toml"), base).unwrap();
    assert_eq!(scene.solids.len(), 3);
    assert_eq!(scene.envelope, 0.002);
    let crate_body = &scene.assembly.bodies()[1];
    // A uniform box of 0.1 × 0.2 × 0.3 m at 500 kg/m³: 3 kg, I_xx = m (0.2² + 0.3²)/12.
    assert!((crate_body.mass() - 3.0).abs() < 1e-12);
    assert!((crate_body.inertia()[(0, 0)] - 3.0 * 0.13 / 12.0).abs() < 1e-12);
    let world = scene.with_solids().unwrap();
    assert_eq!(world.pairs(), &[(0, 1), (1, 2)], "arm–floor excluded");

    let errors = |text: &str| match parse(Path::new("s.toml"), text) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    };
    let e = errors(&base.replace("name = \"floor\"", "name = \"floor\"\ncolour = 1"));
    assert!(e[0].key == "fixed[0].colour", "{e:?}");
    let e = errors(&base.replace("[\"arm\", \"floor\"]", "[\"arm\", \"flor\"]"));
    assert!(
        e[0].key.starts_with("contact.exclude")
            && e[0]
                .message
                .contains("no body with shapes or fixed solid named `flor`"),
        "{e:?}"
    );
    let e = errors(&base.replace(
        "shape = { type = \"box\", size = [0.1, 0.2, 0.3] }",
        "shape = { type = \"box\", size = [0.1, 0.2, 0.3], position = [0.1, 0, 0] }",
    ));
    assert!(
        e[0].key == "bodies[1]" && e[0].message.contains("centre of mass is at [0.1, 0, 0]"),
        "{e:?}"
    );
    let e = errors(&base.replace("position = [0.6, 0, 0.15]", "position = [0.6, 0, 0.1]"));
    assert!(
        e[0].key == "fixed[0]"
            && e[0]
                .message
                .contains("`crate` and `floor` start overlapping by 4.99"),
        "{e:?}"
    );
    let e = errors(&base.replace("density = 500", "density = 500\nmass = 2"));
    assert!(e[0].message.contains("either `mass` or `density`"), "{e:?}");
    let e = errors(&format!(
        "{base}[[balls]]\nname = \"b\"\nmass = 1\nradius = 0.1\nposition = [2, 0, 1]\n"
    ));
    assert!(
        e[0].key == "balls" && e[0].message.contains("cannot be mixed"),
        "{e:?}"
    );
    println!("{}", e[0]);
}

/// The shipped `box_kicker.toml`: over its first 1.2 s the slider kicks the first crate (which
/// moves on by more than 2 cm, tipping into the second), while the log, which nothing reaches
/// yet, stays where it lies, resting within the envelope of the floor (1 mm; the rebound's hop
/// is (¼)² ε), the joints held to 1e-9, and
/// the energy no higher than the work the motor did (the contacts only take energy, but for
/// the hops: m g ε per crate at most).
#[test]
fn the_shipped_box_kicker_kicks_the_first_crate_and_the_rest_stay() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes/assembly/box_kicker.toml");
    let scene = impulse::assembly::scene::load(&path).unwrap();
    let mut sim = scene.with_solids().unwrap();
    let e0 = sim.assembly.energy();
    let start: Vec<Vec3> = sim
        .assembly
        .bodies()
        .iter()
        .map(|b| b.pose().translation.vector)
        .collect();
    sim.advance_to(1.2).unwrap();
    let a = &sim.assembly;
    let at = |name: &str| a.body_index(name).unwrap();
    let moved = |name: &str| a.bodies()[at(name)].pose().translation.vector - start[at(name)];
    println!(
        "crate1 moved {:?}, crate2 {:?}, log {:?}; {} contacts",
        moved("crate1"),
        moved("crate2"),
        moved("log"),
        sim.hits.len()
    );
    assert!(moved("crate1").x > 0.02, "crate1 {:?}", moved("crate1"));
    let d = moved("log");
    assert!(d.x.abs() < 1e-6 && d.y.abs() < 1e-6, "log slid {d:?}");
    assert!(d.z > -1e-3 && d.z < 1e-3, "log height {d:?}");
    assert!(a.max_gap() < 1e-9, "gap {}", a.max_gap());
    let free_mass: f64 = ["crate1", "crate2", "log"]
        .iter()
        .map(|n| a.bodies()[at(n)].mass())
        .sum();
    let surplus = a.energy() - e0 - a.applied_work();
    assert!(surplus < free_mass * G * 1e-3, "energy surplus {surplus}");
}

/// A half-space on a body with its mass properties given is refused at the body's table.
#[test]
fn a_half_space_on_a_body_is_refused() {
    let text = r#"
[world]
[assembly]
[[bodies]]
name = "slab"
mass = 1
inertia = [1, 1, 1]
position = [0, 0, 1]
shape = { type = "halfspace" }
"#;
    let e = match impulse::assembly::scene::parse(std::path::Path::new("s.toml"), text) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    };
    assert!(
        e[0].key == "bodies[0]" && e[0].message.contains("a half-space can only be fixed"),
        "{e:?}"
    );
}

/// No energy gain over a closed run: a box-bob pendulum (released 60° from the bottom) swings
/// into a free box on a floor with friction (e = 0.5, μ = 0.3), 3 s. Nothing drives it, so the
/// total energy may rise only by the microcollisions' hops — at most M g ε for the box resting
/// and M g ε for the bob if it comes to rest on the box: 2 M g ε with ε = 1 mm — and it must
/// end below where it started (the kick and the sliding lose energy).
#[test]
fn a_closed_run_gains_no_energy() {
    let (m, a, l) = (1.0, 0.1, 0.5);
    let size = [0.1, 0.1, 0.2];
    let h_box = 0.1;
    let pivot = Vec3::new(0.0, 0.0, h_box + l);
    let angle = 60f64.to_radians();
    // The bob hangs at 60° on the −x side, at rest.
    let bob_at = pivot + Vec3::new(-l * angle.sin(), 0.0, -l * angle.cos());
    let mut bob = box_body("bob", m, [a, a, a], bob_at);
    bob.orientation = Quat::from_axis_angle(&Vec3::y_axis(), angle);
    let block = box_body("block", 1.0, size, Vec3::new(0.12, 0.0, h_box));
    let assembly = Assembly::new(
        settings(),
        vec![bob, block],
        vec![hinge(0, pivot, Vec3::y())],
    )
    .unwrap();
    let contact = ContactSettings {
        restitution: 0.5,
        friction: 0.3,
        envelope: 1e-3,
    };
    let mut sim = AssemblyWithSolids::new(
        assembly,
        vec![
            solid("bob", 0, cuboid([a, a, a])),
            solid("block", 1, cuboid(size)),
            floor(),
        ],
        contact,
        &[],
        &[],
    )
    .unwrap();
    let e0 = sim.assembly.energy();
    let mut highest = f64::NEG_INFINITY;
    for k in 1..=300 {
        sim.advance_to(k as f64 * 0.01).unwrap();
        highest = highest.max(sim.assembly.energy() - e0);
    }
    let kicks = sim.hits.iter().filter(|h| h.solids == (0, 1)).count();
    let end = sim.assembly.energy() - e0;
    println!("{kicks} bob–box contacts; highest rise {highest:e} J, at the end {end:e} J");
    assert!(kicks >= 1);
    assert!(highest < 2.0 * 1.0 * G * contact.envelope, "rose {highest}");
    assert!(end < 0.0, "ended {end}");
    assert!(sim.assembly.max_gap() < 1e-9);
}
