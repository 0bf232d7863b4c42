//! The contacts of one instant answered together (issue 36): all contacts touching a connected
//! set of bodies — through joints or contacts — in one solve of their impulses, the joints'
//! impulsive reactions included (`ContactSolver::Simultaneous`), against closed forms, against
//! the pairwise answer where the two must agree, and against energy.

use impulse::assembly::solids::{AssemblyWithSolids, ContactSettings, ContactSolver, Solid};
use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::dynamics::PlacedShape;
use impulse::geometry::Shape;
use impulse::math::{Pose, Vec3};

const EPSILON: f64 = 1e-4;

fn zero_g() -> AssemblySettings {
    AssemblySettings::with_step(Vec3::zeros(), 1e-3)
}

fn solid(name: &str, body: usize, shape: Shape) -> Solid {
    Solid {
        name: name.into(),
        body: Some(body),
        shapes: vec![PlacedShape::new(shape)],
        pose: Pose::identity(),
    }
}

fn ball_body(name: &str, m: f64, r: f64, at: Vec3, v: Vec3) -> AssemblyBodyDesc {
    let mut b = AssemblyBodyDesc::new(name, m, Vec3::repeat(0.4 * m * r * r), at);
    b.velocity = v;
    b
}

fn contact(e: f64, mu: f64) -> ContactSettings {
    ContactSettings {
        restitution: e,
        friction: mu,
        envelope: EPSILON,
    }
}

/// The hinged bar of the tests below: 1 m long (0.02 × 0.2 × 1 m box, 1 kg), hanging from a
/// hinge about y at `PIVOT`, turning at ω = 2 rad/s so that its +x face sweeps forward.
const PIVOT: [f64; 3] = [0.0, 0.0, 1.0];
const OMEGA: f64 = 2.0;
const BAR: [f64; 3] = [0.02, 0.2, 1.0];
/// The angle at which the bar meets both balls.
const THETA: f64 = 0.01;

/// The bar's inertia about its hinge: m (a² + c²)/12 + m (c/2)² (parallel axes).
fn bar_inertia_about_pivot() -> f64 {
    let [a, _, c] = BAR;
    (a * a + c * c) / 12.0 + 0.25 * c * c
}

/// A hinged bar turning at ω strikes two balls (radii 0.05 m) at arms r₁, r₂ from the pivot at
/// the same instant: each ball is placed so that its distance to the bar's face is ε/2 when the
/// bar has turned by θ = 0.01 rad. `velocities`: the balls' velocities along y (parallel to the
/// face, so that the instant stays the same). Returns the run and the balls' arms and masses.
fn bar_and_two_balls(
    e: f64,
    mu: f64,
    solver: ContactSolver,
    velocities: [f64; 2],
) -> (AssemblyWithSolids, [f64; 2], [f64; 2]) {
    let pivot = Vec3::from(PIVOT);
    let (arms, masses, radius) = ([0.45, 0.85], [1.0, 2.0], 0.05);
    let mut bar = AssemblyBodyDesc::new(
        "bar",
        1.0,
        Vec3::new(
            (BAR[1] * BAR[1] + BAR[2] * BAR[2]) / 12.0,
            (BAR[0] * BAR[0] + BAR[2] * BAR[2]) / 12.0,
            (BAR[0] * BAR[0] + BAR[1] * BAR[1]) / 12.0,
        ),
        pivot - Vec3::new(0.0, 0.0, 0.5),
    );
    // ω = (0, −2, 0): a point below the pivot moves along +x.
    bar.angular_velocity = Vec3::new(0.0, -OMEGA, 0.0);
    bar.velocity = Vec3::new(OMEGA * 0.5, 0.0, 0.0);
    // At angle θ the bar points along (sin θ, 0, −cos θ); its +x face's normal is
    // (cos θ, 0, sin θ).
    let axis = Vec3::new(THETA.sin(), 0.0, -THETA.cos());
    let normal = Vec3::new(THETA.cos(), 0.0, THETA.sin());
    let mut bodies = vec![bar];
    for k in 0..2 {
        let centre = pivot + axis * arms[k] + normal * (0.5 * BAR[0] + radius + 0.5 * EPSILON);
        bodies.push(ball_body(
            &format!("ball{k}"),
            masses[k],
            radius,
            centre,
            Vec3::new(0.0, velocities[k], 0.0),
        ));
    }
    let hinge = JointDesc {
        name: "hinge".into(),
        a: 0,
        b: None,
        primitive: Primitive::Revolute {
            anchor: pivot,
            axis: Vec3::y(),
        },
    };
    let assembly = Assembly::new(zero_g(), bodies, vec![hinge]).unwrap();
    let half = Vec3::from(BAR) / 2.0;
    let solids = vec![
        solid("bar", 0, Shape::Box { half_extents: half }),
        solid("ball0", 1, Shape::Sphere { radius }),
        solid("ball1", 2, Shape::Sphere { radius }),
    ];
    let mut sim = AssemblyWithSolids::new(assembly, solids, contact(e, mu), &[], &[]).unwrap();
    sim.solver = solver;
    (sim, arms, masses)
}

/// Angular momentum about the hinge's axis (y through the pivot): Σ ((c − pivot) × p + L)·ŷ.
fn hinge_momentum(sim: &AssemblyWithSolids) -> f64 {
    let pivot = Vec3::from(PIVOT);
    sim.assembly
        .bodies()
        .iter()
        .map(|b| {
            let c = b.pose().translation.vector;
            ((c - pivot).cross(&(b.velocity() * b.mass())) + b.angular_momentum()).y
        })
        .sum()
}

/// e = 0 and e = 1: the bar strikes both balls at once. The impulses are along the face's
/// normal at arms rₖ, the hinge's reaction acts at the pivot, so the angular momentum about
/// the hinge is kept: I_p ω = I_p ω⁺ + Σ Mₖ rₖ Vₖ. Inelastic, every contact ends at rest
/// relative to the bar (Vₖ = ω' rₖ): ω' = I_p ω / (I_p + Σ Mₖ rₖ²), Pₖ = Mₖ rₖ ω'. Poisson's
/// e = 1 doubles each impulse: Vₖ = 2ω' rₖ, ω⁺ = 2ω' − ω, and the energy is kept
/// (½ I_p (2ω' − ω)² + ½ Σ Mₖ (2ω' rₖ)² = ½ I_p ω² with the line above). (At e = 0 the bar
/// goes on pushing the balls, which move straight while it turns: later, small impulses;
/// only the strike's are checked.) Tolerances: the contact instant is bisected to 1e-10 s
/// (the bar turns by 2e-10 rad), the solve is exact to Lemke's 1e-9: 1e-7 relative.
#[test]
fn a_hinged_bar_strikes_two_balls_at_once_as_the_closed_form_says() {
    for e in [0.0, 1.0] {
        let (mut sim, arms, masses) =
            bar_and_two_balls(e, 0.0, ContactSolver::Simultaneous, [0.0; 2]);
        let (e0, l0) = (sim.assembly.kinetic_energy(), hinge_momentum(&sim));
        // Step by step to the strike, to read the bodies just after it.
        let mut k = 0;
        while sim.hits.is_empty() {
            k += 1;
            assert!(k < 20, "no strike in 20 ms");
            sim.advance_to(k as f64 * 1e-3).unwrap();
        }
        let i_p = bar_inertia_about_pivot();
        let spread: f64 = (0..2).map(|k| masses[k] * arms[k] * arms[k]).sum();
        let w1 = i_p * OMEGA / (i_p + spread);
        let first = sim.hits[0].time;
        let hits: Vec<_> = sim.hits.iter().filter(|h| h.time == first).collect();
        println!("e = {e}: {hits:?}");
        assert_eq!(hits.len(), 2, "both balls struck at one instant");
        for k in 0..2 {
            let hit = hits.iter().find(|h| h.solids == (0, k + 1)).unwrap();
            let p = (1.0 + e) * masses[k] * arms[k] * w1;
            let got = hit.impulse.norm();
            assert!((got - p).abs() < 1e-7 * p, "ball {k}: impulse {got} vs {p}");
        }
        // The angular momentum about the hinge's axis is kept by every contact impulse.
        let l1 = hinge_momentum(&sim);
        assert!(
            (l1 - l0).abs() < 1e-9 * l0.abs(),
            "hinge momentum {l0} → {l1}"
        );
        if e == 1.0 {
            // The bodies separate at once (nothing follows the strike in the step).
            for (k, arm) in arms.iter().enumerate() {
                let v = sim.assembly.bodies()[k + 1].velocity().norm();
                let expected = 2.0 * w1 * arm;
                assert!(
                    (v - expected).abs() < 1e-7 * expected,
                    "ball {k}: {v} vs {expected}"
                );
            }
            let w = -sim.assembly.bodies()[0].angular_velocity().y;
            let expected = 2.0 * w1 - OMEGA;
            assert!(
                (w - expected).abs() < 1e-7 * OMEGA,
                "bar ω {w} vs {expected}"
            );
            let e1 = sim.assembly.kinetic_energy();
            println!("energy {e0} → {e1}");
            assert!((e1 - e0).abs() < 1e-9 * e0, "energy {e0} → {e1}");
        }
    }
}

/// The same strike answered pair by pair (`Sequential`) is different, in the known way: the
/// first ball's impulse is the lone elastic collision's, P₁ = 2ωr₁ / (r₁²/I_p + 1/M₁), larger
/// than its share of the simultaneous one (the second ball is not yet felt); the energy is kept
/// either way.
#[test]
fn the_same_strike_answered_pair_by_pair_differs_in_the_known_way() {
    let (mut seq, arms, masses) = bar_and_two_balls(1.0, 0.0, ContactSolver::Sequential, [0.0; 2]);
    let e0 = seq.assembly.kinetic_energy();
    seq.advance_to(0.01).unwrap();
    let i_p = bar_inertia_about_pivot();
    let first = seq.hits.iter().find(|h| h.solids == (0, 1)).unwrap();
    let p1 = 2.0 * OMEGA * arms[0] / (arms[0] * arms[0] / i_p + 1.0 / masses[0]);
    let got = first.impulse.norm();
    assert!(
        (got - p1).abs() < 1e-7 * p1,
        "pairwise first impulse {got} vs {p1}"
    );
    let spread: f64 = (0..2).map(|k| masses[k] * arms[k] * arms[k]).sum();
    let together = 2.0 * masses[0] * arms[0] * i_p * OMEGA / (i_p + spread);
    println!("ball 0: pairwise {got}, together {together}");
    assert!(got > 1.1 * together);
    let e1 = seq.assembly.kinetic_energy();
    assert!((e1 - e0).abs() < 1e-9 * e0, "energy {e0} → {e1}");
}

/// Friction on both contacts (μ = 0.5, e = 0.8): the balls slide along the face (1 and −0.5
/// m/s along y) as the bar strikes them. No energy is added (the compression's
/// ΔE = −λμP_N − ½PᵀWP ≤ 0 and the restitution is held to what keeps the sum ≤ 0): the
/// energy falls; the impulses along y exert no moment about the hinge's axis, so the angular
/// momentum about it is kept; each impulse lies in the friction cone.
#[test]
fn a_frictional_strike_on_two_balls_adds_no_energy() {
    let (mut sim, _, _) = bar_and_two_balls(0.8, 0.5, ContactSolver::Simultaneous, [1.0, -0.5]);
    let (e0, l0) = (sim.assembly.kinetic_energy(), hinge_momentum(&sim));
    sim.advance_to(0.01).unwrap();
    let (e1, l1) = (sim.assembly.kinetic_energy(), hinge_momentum(&sim));
    println!("energy {e0} → {e1}, hinge momentum {l0} → {l1}");
    assert!(e1 < e0 - 1e-3, "energy {e0} → {e1}");
    assert!(
        (l1 - l0).abs() < 1e-9 * l0.abs(),
        "hinge momentum {l0} → {l1}"
    );
    let hits: Vec<_> = sim.hits.iter().filter(|h| h.solids.0 == 0).collect();
    assert_eq!(hits.len(), 2);
    for h in hits {
        let pn = h.impulse.dot(&h.normal);
        let pt = (h.impulse - h.normal * pn).norm();
        assert!(
            pt > 0.0 && pt <= 0.5 * pn * (1.0 + 1e-9),
            "cone: {pt} vs {pn}"
        );
    }
}

/// Three equal balls (r = 0.05 m, 1 kg) in a line along x, the first at 1 m/s towards the
/// other two, which touch (ε/4 apart). Answered together (Poisson, e = 1): the compression
/// P = (2/3, 1/3) v solves [[2, −1], [−1, 2]] P = (v, 0), doubled: the balls leave at
/// (−1/3, 2/3, 2/3) v — momentum v and energy ½v² kept. Answered pair by pair (Newton's
/// cradle as it is usually drawn): (0, 0, v). Both to 1e-9.
#[test]
fn a_line_of_three_balls_together_and_pair_by_pair() {
    let run = |solver: ContactSolver| {
        let r = 0.05;
        let bodies = vec![
            ball_body("a", 1.0, r, Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0)),
            ball_body("b", 1.0, r, Vec3::new(0.11, 0.0, 0.0), Vec3::zeros()),
            ball_body(
                "c",
                1.0,
                r,
                Vec3::new(0.21 + 0.25 * EPSILON, 0.0, 0.0),
                Vec3::zeros(),
            ),
        ];
        let asm = Assembly::new(zero_g(), bodies, vec![]).unwrap();
        let solids = (0..3)
            .map(|k| solid(["a", "b", "c"][k], k, Shape::Sphere { radius: r }))
            .collect();
        let mut sim = AssemblyWithSolids::new(asm, solids, contact(1.0, 0.0), &[], &[]).unwrap();
        sim.solver = solver;
        sim.advance_to(0.02).unwrap();
        let v: Vec<f64> = sim
            .assembly
            .bodies()
            .iter()
            .map(|b| b.velocity().x)
            .collect();
        println!("{solver:?}: {v:?}, {} hits", sim.hits.len());
        v
    };
    let together = run(ContactSolver::Simultaneous);
    for (got, want) in together.iter().zip([-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        assert!((got - want).abs() < 1e-9, "together {together:?}");
    }
    let pairwise = run(ContactSolver::Sequential);
    for (got, want) in pairwise.iter().zip([0.0, 0.0, 1.0]) {
        assert!((got - want).abs() < 1e-9, "pair by pair {pairwise:?}");
    }
}

/// Where the two must agree: ball A (1 m/s) strikes ball B head on while B touches a fixed
/// floor (ε/4 below it; no gravity): the floor's contact is in the group but takes nothing
/// (an impulse through B's centre does not move its lowest point along the floor's normal,
/// and without a normal impulse friction has none), so the simultaneous answer is the lone
/// pair's: e = 0.5, μ = 0.3, equal masses — A at (1 − e)/2 = 0.25 m/s, B at 0.75 m/s (to
/// 1e-9), and the same from the pairwise response.
#[test]
fn a_single_effective_contact_agrees_with_the_pairwise_answer() {
    let run = |solver: ContactSolver| {
        let r = 0.05;
        let bodies = vec![
            ball_body("a", 1.0, r, Vec3::new(-0.11, 0.0, 0.0), Vec3::x()),
            ball_body("b", 1.0, r, Vec3::zeros(), Vec3::zeros()),
        ];
        let asm = Assembly::new(zero_g(), bodies, vec![]).unwrap();
        let floor = Solid {
            name: "floor".into(),
            body: None,
            shapes: vec![PlacedShape::new(Shape::HalfSpace)],
            pose: Pose::translation(0.0, 0.0, -r - 0.25 * EPSILON),
        };
        let solids = vec![
            solid("a", 0, Shape::Sphere { radius: r }),
            solid("b", 1, Shape::Sphere { radius: r }),
            floor,
        ];
        let mut sim = AssemblyWithSolids::new(asm, solids, contact(0.5, 0.3), &[], &[]).unwrap();
        sim.solver = solver;
        sim.advance_to(0.02).unwrap();
        let v: Vec<Vec3> = sim.assembly.bodies().iter().map(|b| b.velocity()).collect();
        println!("{solver:?}: {v:?}");
        v
    };
    let together = run(ContactSolver::Simultaneous);
    let pairwise = run(ContactSolver::Sequential);
    for (v, want) in together.iter().zip([0.25, 0.75]) {
        assert!(
            (v - Vec3::new(want, 0.0, 0.0)).norm() < 1e-9,
            "{together:?}"
        );
    }
    for (a, b) in together.iter().zip(&pairwise) {
        assert!((a - b).norm() < 1e-9, "{together:?} vs {pairwise:?}");
    }
}
