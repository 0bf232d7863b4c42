//! Contacts of one instant answered together, from the command line (issue 36): the hinged bar
//! of `scenes/assembly/bar_strikes_two.toml` strikes two balls at once, and its `[contact]`
//! `solver` key chooses the simultaneous answer (the scene's) or the sequential one.

mod common;

use common::*;

/// The scene's numbers: the bar (1 kg, 0.02 × 1 m in the plane of the swing) turning at ω about
/// the hinge at z = 1, the balls' masses and arms (their centres' depths below the hinge), e.
const OMEGA: f64 = 2.0;
const MASSES: [f64; 2] = [1.0, 2.0];
const ARMS: [f64; 2] = [0.45, 0.85];
const E: f64 = 0.8;

/// The bar's inertia about the hinge: m (a² + c²)/12 + m (c/2)² (parallel axes), and about its
/// centre.
fn bar_inertia() -> (f64, f64) {
    let (a, c) = (0.02, 1.0);
    let central = (a * a + c * c) / 12.0;
    (central + 0.25 * c * c, central)
}

/// Each body's last row of `trajectory.csv`, and its first: [x, y, z, …, wz] (the columns after
/// `t,body`).
fn rows(csv: &str, body: &str) -> (Vec<f64>, Vec<f64>) {
    let parse = |l: &str| -> Vec<f64> {
        l.split(',')
            .skip(2)
            .take(13)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let mine = || csv.lines().filter(|l| l.split(',').nth(1) == Some(body));
    (
        parse(mine().next().unwrap()),
        parse(mine().next_back().unwrap()),
    )
}

/// Angular momentum about the hinge's axis (y through (0, 0, 1)) of rows `[x, y, z, q…, v…,
/// w…]`: Σ ((c − pivot) × m v)·ŷ + I_c ω_y (the bar's spin about its centre; the balls do not
/// spin).
fn hinge_momentum(rows: &[(f64, f64, &Vec<f64>)]) -> f64 {
    rows.iter()
        .map(|&(m, i_c, r)| {
            let (dx, dz) = (r[0], r[2] - 1.0);
            let (vx, vz) = (r[7], r[9]);
            m * (dz * vx - dx * vz) + i_c * r[11]
        })
        .sum()
}

/// Runs the scene (its text changed by `edit`) and returns the bar's ω_y and the balls' v_x at
/// the end (2 s: nothing touches after the strike), after checking the hinge's angular
/// momentum is kept (1e-9 relative) and the run's contacts (two, at one instant).
fn run(name: &str, edit: impl Fn(String) -> String) -> (f64, [f64; 2]) {
    let out = scratch(name);
    std::fs::create_dir_all(&out).unwrap();
    let text =
        std::fs::read_to_string(repo().join("scenes/assembly/bar_strikes_two.toml")).unwrap();
    let scene = out.join("bar_strikes_two.toml");
    std::fs::write(&scene, edit(text)).unwrap();
    let summary = run_summary(scene.to_str().unwrap(), "2", &out.join("run"));
    assert_eq!(summary["status"], "ok", "{summary}");
    assert_eq!(summary["contacts"], 2, "{summary}");
    assert!(summary["max_joint_gap"].as_f64().unwrap() < 1e-9);
    let csv = std::fs::read_to_string(out.join("run/trajectory.csv")).unwrap();
    let (bar, b1, b2) = (rows(&csv, "bar"), rows(&csv, "ball1"), rows(&csv, "ball2"));
    let (_, i_c) = bar_inertia();
    let l0 = hinge_momentum(&[(1.0, i_c, &bar.0), (1.0, 0.0, &b1.0), (2.0, 0.0, &b2.0)]);
    let l1 = hinge_momentum(&[(1.0, i_c, &bar.1), (1.0, 0.0, &b1.1), (2.0, 0.0, &b2.1)]);
    println!(
        "{name}: hinge momentum {l0} → {l1}; bar ω_y {}, balls {} {}",
        bar.1[11], b1.1[7], b2.1[7]
    );
    assert!((l1 - l0).abs() < 1e-9 * l0.abs(), "{l0} → {l1}");
    // The bar turns about y: ω = (0, −ω, 0) at the start.
    assert!((l0 + bar_inertia().0 * OMEGA).abs() < 1e-12, "{l0}");
    (bar.1[11], [b1.1[7], b2.1[7]])
}

/// `solver = "simultaneous"` (the shipped scene): both contacts and the hinge's reaction in
/// one solve, ω' = I_p ω / (I_p + Σ M_k r_k²) (every contact ends compression at rest relative
/// to the bar), Poisson's e: the balls leave at (1 + e) ω' r_k and the bar turns at
/// (1 + e) ω' − e ω the other way (the angular momentum about the hinge kept). With
/// `solver = "sequential"`, ball 1 is struck alone first: P₁ = (1 + e) ω r₁ / (r₁²/I_p + 1/M₁),
/// the bar slows to ω₁ = ω − P₁ r₁ / I_p, and strikes ball 2 alone: P₂ = (1 + e) ω₁ r₂ /
/// (r₂²/I_p + 1/M₂), ω₂ = ω₁ − P₂ r₂ / I_p (the bar then turns back, and ball 1, faster, is
/// not struck again: two contacts). Tolerance 1e-7 relative: the contact instant is located
/// to 1e-10 s (the bar turns 2e-10 rad), the solve exact to Lemke's 1e-9.
#[test]
fn a_bar_strikes_two_balls_at_once_from_the_command_line() {
    let (i_p, _) = bar_inertia();
    let close = |got: f64, want: f64, what: &str| {
        assert!(
            (got - want).abs() < 1e-7 * want.abs(),
            "{what}: {got} vs {want}"
        );
    };
    let (bar, balls) = run("bar_strikes_two", |t| t);
    let spread: f64 = (0..2).map(|k| MASSES[k] * ARMS[k] * ARMS[k]).sum();
    let w1 = i_p * OMEGA / (i_p + spread);
    for k in 0..2 {
        close(balls[k], (1.0 + E) * w1 * ARMS[k], "ball together");
    }
    // ω_y = −ω⁺ with ω⁺ = (1 + e) ω' − e ω.
    close(bar, E * OMEGA - (1.0 + E) * w1, "bar together");
    // The default is the same as the scene's explicit key, to the bit.
    let (bar_default, balls_default) = run("bar_strikes_two_default", |t| {
        t.replace("solver = \"simultaneous\"\n", "")
    });
    assert_eq!((bar_default, balls_default), (bar, balls));

    let (bar, balls) = run("bar_strikes_two_sequential", |t| {
        t.replace("solver = \"simultaneous\"", "solver = \"sequential\"")
    });
    let p1 = (1.0 + E) * OMEGA * ARMS[0] / (ARMS[0] * ARMS[0] / i_p + 1.0 / MASSES[0]);
    let w_1 = OMEGA - p1 * ARMS[0] / i_p;
    let p2 = (1.0 + E) * w_1 * ARMS[1] / (ARMS[1] * ARMS[1] / i_p + 1.0 / MASSES[1]);
    let w_2 = w_1 - p2 * ARMS[1] / i_p;
    close(balls[0], p1 / MASSES[0], "ball 1 pair by pair");
    close(balls[1], p2 / MASSES[1], "ball 2 pair by pair");
    close(bar, -w_2, "bar pair by pair");
}
