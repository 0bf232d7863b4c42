//! Constraint-based contact (Baraff, issue 35), printed, not asserted:
//! `cargo bench -p impulse-bench --bench constraint`.
//!
//! 1. **Lemke per solve** on the contact LCPs of a stack of k unit cubes, four corner contacts
//!    per interface (4 … 200 contacts; every interface is a chair on four legs, so every
//!    problem is degenerate), frictionless (ch. 8) and with every interface sliding (ch. 9–10).
//!    *cold*: Lemke from the start; *warm*: the next instant's problem (gravity 1e-6 stronger)
//!    from the last solution's basis, one linear solve (§8.2, §13.3). The same for a wall of
//!    cubes three high in running bond, 16 … 196 contacts (its height fixed as it widens). Then
//!    the exponent of a
//!    least-squares fit `t ∝ n^p` over 16 … 200 contacts. Beside the frictionless rows, projected
//!    Gauss–Seidel (Baraff App. C) on the same problems, sparse rows, from zero: the sweeps and
//!    time it needs to 1e-6 and 1e-9 of ‖q‖ (Lemke's answers are exact to rounding).
//! 2. **Whole runs**, 5 s simulated: a stack of 10 cubes (`scenes/constraint/stack_of_ten.toml`)
//!    and a 20-cube pyramid (rows of 6, 5, 4, 3, 2, each cube on two below, half overlapping),
//!    under `contact_model = "impulse"`, `"constraint"` and `"penalty"`, and rapier (240 Hz,
//!    default solver) on the same cubes: wall time, how far the top cube ended from where it
//!    started, and the energy change. A run still short of 5 s after 30 s of wall time is
//!    stopped (through the world's interrupt flag, between events) and says so.
//!
//! Times are wall clock on whatever else the machine runs: repeat for steadier figures.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use impulse::World;
use impulse::lcp::{Basis, ContactBody, ContactLcp, ContactPoint, ContactSystem, LemkeOptions};
use impulse::lcp::{Outcome, Start};
use impulse::math::{Mat3, Point, Vec3};
use impulse_bench::piles::exponent;
use rapier3d_f64::prelude::*;

#[path = "common/rapier_world.rs"]
mod rapier_world;

const G: f64 = 9.81;

/// A whole run that has not reached 5 s after this long is stopped and reported as such.
const WALL_LIMIT: Duration = Duration::from_secs(30);

/// A unit cube of unit mass at `center` (I = m (a² + a²)/12 with a = 1: 1/6).
fn unit_cube(center: Point, velocity: Vec3, gravity: f64) -> ContactBody {
    ContactBody {
        inverse_mass: 1.0,
        inverse_inertia: Mat3::identity() * 6.0,
        center_of_mass: center,
        velocity,
        angular_velocity: Vec3::zeros(),
        force: Vec3::new(0.0, 0.0, -gravity),
        torque: Vec3::zeros(),
    }
}

/// `k` unit cubes stacked on the ground, four contacts at the corners of each interface;
/// `sliding`: each cube moves at ±0.1 m/s, alternately, so every interface slides.
fn stack_problem(k: usize, sliding: bool, gravity: f64) -> (Vec<ContactBody>, Vec<ContactPoint>) {
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    for i in 0..k {
        let v = match (sliding, i % 2) {
            (false, _) => 0.0,
            (true, 0) => 0.1,
            (true, _) => -0.1,
        };
        let z = i as f64;
        bodies.push(unit_cube(
            Point::new(0.0, 0.0, z + 0.5),
            Vec3::new(v, 0.0, 0.0),
            gravity,
        ));
        let below = i.checked_sub(1);
        for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
            contacts.push(
                ContactPoint::new(Some(i), below, Point::new(x, y, z), Vec3::z())
                    .with_friction(0.5),
            );
        }
    }
    (bodies, contacts)
}

/// A wall three cubes high and `w` wide in running bond (each cube of the upper rows on two
/// below, half overlapping; rows of w, w − 1, w − 2): 20 w − 24 contacts, four per cube on the
/// ground and four per cube on each cube below. Its height stays 3 whatever its width, where a
/// stack's grows with its contacts. `sliding`: rows at ±0.1 m/s, alternately.
fn wall_problem(w: usize, sliding: bool, gravity: f64) -> (Vec<ContactBody>, Vec<ContactPoint>) {
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let mut below: Vec<(usize, f64)> = Vec::new();
    for row in 0..3 {
        let v = match (sliding, row % 2) {
            (false, _) => 0.0,
            (true, 0) => 0.1,
            (true, _) => -0.1,
        };
        let z = row as f64;
        let mut this_row = Vec::new();
        for i in 0..w - row {
            let x = i as f64 + 0.5 * row as f64;
            let index = bodies.len();
            bodies.push(unit_cube(
                Point::new(x, 0.0, z + 0.5),
                Vec3::new(v, 0.0, 0.0),
                gravity,
            ));
            let supports: Vec<(Option<usize>, f64, f64)> = if row == 0 {
                vec![(None, x - 0.5, x + 0.5)]
            } else {
                below
                    .iter()
                    .filter(|&&(_, bx)| (bx - x).abs() < 0.75)
                    .map(|&(b, bx)| (Some(b), (bx - 0.5).max(x - 0.5), (bx + 0.5).min(x + 0.5)))
                    .collect()
            };
            for (b, x0, x1) in supports {
                for (cx, cy) in [(x0, -0.5), (x1, -0.5), (x1, 0.5), (x0, 0.5)] {
                    contacts.push(
                        ContactPoint::new(Some(index), b, Point::new(cx, cy, z), Vec3::z())
                            .with_friction(0.5),
                    );
                }
            }
            this_row.push((index, x));
        }
        below = this_row;
    }
    (bodies, contacts)
}

type Problem = fn(usize, bool, f64) -> (Vec<ContactBody>, Vec<ContactPoint>);

fn lcp_of(problem: Problem, k: usize, sliding: bool, gravity: f64) -> ContactLcp {
    let (bodies, contacts) = problem(k, sliding, gravity);
    let system = ContactSystem::new(&bodies, &contacts, 1e-6).expect("a valid contact problem");
    if sliding {
        system.sliding_friction()
    } else {
        system.frictionless()
    }
}

/// Mean seconds per call of `f`, over at least 0.2 s and 5 calls.
fn time_per_call(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0u32;
    while calls < 5 || start.elapsed() < Duration::from_millis(200) {
        f();
        calls += 1;
    }
    start.elapsed().as_secs_f64() / f64::from(calls)
}

/// The most sweeps projected Gauss–Seidel is given (a row showing it did not converge).
const MAX_SWEEPS: usize = 100_000;

/// Projected Gauss–Seidel on `w = M z + q ≥ 0, z ≥ 0, zᵀw = 0` (Baraff App. C, the
/// frictionless case), over each row's non-zero entries only (a contact couples only with the
/// contacts of its two bodies): sweeps `zᵢ ← max(0, zᵢ − wᵢ/Mᵢᵢ)` from `z = 0` until every
/// `min(zᵢ, wᵢ)` and every negative `wᵢ` is within `tolerance · ‖q‖∞` (at most `MAX_SWEEPS`).
/// Returns the sweeps taken. `rows`: [`sparse_rows`] of the matrix.
fn projected_gauss_seidel(lcp: &ContactLcp, rows: &[Vec<(usize, f64)>], tolerance: f64) -> usize {
    let (m, q) = (&lcp.matrix, &lcp.vector);
    let n = q.len();
    let scale = q.amax().max(f64::MIN_POSITIVE);
    let mut z = vec![0.0; n];
    let w_of = |z: &[f64], i: usize| q[i] + rows[i].iter().map(|&(j, a)| a * z[j]).sum::<f64>();
    for sweep in 1..=MAX_SWEEPS {
        for i in 0..n {
            z[i] = (z[i] - w_of(&z, i) / m[(i, i)]).max(0.0);
        }
        let converged = (0..n).all(|i| {
            let w = w_of(&z, i);
            w >= -tolerance * scale && z[i].min(w).abs() <= tolerance * scale
        });
        if converged {
            return sweep;
        }
    }
    MAX_SWEEPS
}

/// Each row's non-zero entries `(j, Mᵢⱼ)`.
fn sparse_rows(lcp: &ContactLcp) -> Vec<Vec<(usize, f64)>> {
    let m = &lcp.matrix;
    (0..m.nrows())
        .map(|i| {
            (0..m.ncols())
                .filter(|&j| m[(i, j)] != 0.0)
                .map(|j| (j, m[(i, j)]))
                .collect()
        })
        .collect()
}

fn lemke_per_solve() {
    let options = LemkeOptions::default();
    let cases: [(&str, Problem, &[usize]); 2] = [
        ("stack of cubes", stack_problem, &[1, 2, 4, 8, 16, 32, 50]),
        ("wall of cubes 3 high", wall_problem, &[2, 3, 5, 8, 11]),
    ];
    for (name, problem, sizes) in cases {
        for sliding in [false, true] {
            let model = if sliding {
                "sliding friction (ch. 9–10)"
            } else {
                "frictionless (ch. 8)"
            };
            println!("Lemke per solve, {name}, {model}:");
            println!(
                "  {:>8} {:>8} {:>7} {:>12} {:>12} {:>9}  {}",
                "contacts",
                "unknowns",
                "pivots",
                "cold",
                "warm",
                "cold/warm",
                if sliding {
                    ""
                } else {
                    "PGS from z = 0 (App. C): sweeps and time to 1e-6, to 1e-9 of ‖q‖"
                }
            );
            let (mut cold_fit, mut warm_fit) = (Vec::new(), Vec::new());
            for &k in sizes {
                let now = lcp_of(problem, k, sliding, G);
                let next = lcp_of(problem, k, sliding, G * (1.0 + 1e-6));
                let contacts = now.contacts();
                let Ok(Outcome::Solution(solution)) = now.solve(None, &options) else {
                    println!("  {contacts:>8} not solved");
                    continue;
                };
                let basis: Basis = solution.basis.clone();
                match next.solve(Some(&basis), &options) {
                    Ok(Outcome::Solution(s)) if s.start == Start::Warm => {}
                    _ => println!("  {contacts:>8} warm start rejected: 'warm' is a cold run"),
                }
                let cold = time_per_call(|| {
                    std::hint::black_box(now.solve(None, &options)).ok();
                });
                let warm = time_per_call(|| {
                    std::hint::black_box(next.solve(Some(&basis), &options)).ok();
                });
                let n = contacts as f64;
                if contacts >= 16 {
                    cold_fit.push((n, cold));
                    warm_fit.push((n, warm));
                }
                let iterative = if sliding {
                    String::new()
                } else {
                    let rows = sparse_rows(&now);
                    [1e-6, 1e-9]
                        .iter()
                        .map(|&tolerance| {
                            let sweeps = projected_gauss_seidel(&now, &rows, tolerance);
                            let time = time_per_call(|| {
                                std::hint::black_box(projected_gauss_seidel(
                                    &now, &rows, tolerance,
                                ));
                            });
                            format!("{sweeps:>7} sweeps {:>10.1} µs", time * 1e6)
                        })
                        .collect::<Vec<_>>()
                        .join("   ")
                };
                println!(
                    "  {:>8} {:>8} {:>7} {:>9.1} µs {:>9.1} µs {:>9.1}  {iterative}",
                    contacts,
                    now.vector.len(),
                    solution.pivots,
                    cold * 1e6,
                    warm * 1e6,
                    cold / warm
                );
            }
            println!(
                "  fit over 16–200 contacts: cold ∝ n^{:.2}, warm ∝ n^{:.2}\n",
                exponent(&cold_fit),
                exponent(&warm_fit)
            );
        }
    }
}

/// A 0.1 m wooden cube (500 kg/m³, μ = 0.5, e = 0.3) as a scene body, its position written
/// to the micrometre as the shipped stacks' are (so the stack of ten is the shipped scene's to
/// the bit: written from `0.05 + 0.10001 i + 1e-5` unrounded, a few 1e-18 m off, the
/// constraint model stops at 1.1 ms with "no valid contact forces for 36 held contacts").
fn cube_body(name: &str, x: f64, z: f64) -> String {
    format!(
        "\n[[bodies]]\nname = \"{name}\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\ndensity = 500\n\
         position = [{x:.6}, 0, {z:.6}]\n"
    )
}

/// Cube centres of the stack of ten and of the pyramid (each level a hundredth of the
/// envelope above the one below, as the shipped stacks are set down).
fn stack_of_ten() -> Vec<(f64, f64)> {
    (0..10)
        .map(|i| (0.0, 0.05 + 0.10001 * i as f64 + 1e-5))
        .collect()
}

fn pyramid_of_twenty() -> Vec<(f64, f64)> {
    let mut centres = Vec::new();
    for row in 0..5 {
        for i in 0..6 - row {
            // Neighbours in a row 1e-5 m apart too.
            let x = 0.10001 * i as f64 + 0.050005 * row as f64;
            centres.push((x, 0.05 + 0.10001 * row as f64 + 1e-5));
        }
    }
    centres
}

fn scene_text(name: &str, model: &str, centres: &[(f64, f64)]) -> String {
    let mut text = format!(
        "[world]\nname = \"{name}\"\ncontact_model = \"{model}\"\nduration = 5.0\n\
         collision_epsilon = 0.001\n\n[materials.wood]\nfriction = 0.5\nrestitution = 0.3\n\n\
         [[bodies]]\nname = \"ground\"\nmotion = \"fixed\"\nmaterial = \"wood\"\n\
         shape = {{ type = \"halfspace\" }}\n"
    );
    for (i, &(x, z)) in centres.iter().enumerate() {
        text.push_str(&cube_body(&format!("box {}", i + 1), x, z));
    }
    text
}

struct Row {
    engine: String,
    wall: f64,
    top_moved: Option<f64>,
    energy_change: Option<f64>,
    note: String,
}

fn run_impulse(name: &str, model: &str, centres: &[(f64, f64)]) -> Row {
    let text = scene_text(name, model, centres);
    let mut world: World = match impulse::scene::parse(Path::new("bench.toml"), &text) {
        Ok(scene) => scene.world,
        Err(e) => panic!("bench scene: {e}"),
    };
    let top = world
        .body_id(&format!("box {}", centres.len()))
        .expect("top box");
    let start = world.body(top).state().position;
    let energy = world.energy().total();
    // The wall limit stops the run from a watcher thread, through the world's interrupt flag:
    // one advance of 2 ms can take minutes (the penalty model's pyramid took 306 s for one).
    let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let done: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    world.set_interrupt(stop);
    let clock = Instant::now();
    std::thread::spawn(move || {
        while clock.elapsed() < WALL_LIMIT && !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let mut note = String::new();
    for k in 1..=2500 {
        if let Err(e) = world.advance_to(0.002 * k as f64) {
            note = if stop.load(Ordering::Relaxed) {
                format!("gave up at {:.4} s simulated (wall limit); ", world.time())
            } else {
                format!("stopped at {:.4} s: {e}; ", world.time())
            };
            break;
        }
    }
    done.store(true, Ordering::Relaxed);
    let wall = clock.elapsed().as_secs_f64();
    note.push_str(&format!("{} collisions", world.counters().collisions));
    Row {
        engine: format!("impulse, {model}"),
        wall,
        top_moved: Some((world.body(top).state().position - start).norm()),
        energy_change: Some(world.energy().total() - energy),
        note,
    }
}

fn run_rapier(centres: &[(f64, f64)]) -> Row {
    let parameters = IntegrationParameters {
        dt: 1.0 / 240.0,
        ..IntegrationParameters::default()
    };
    let mut world = rapier_world::RapierWorld::new(vector![0.0, 0.0, -G], parameters);
    // The ground as a wide slab (rapier's sweep-and-prune broad phase cannot take a
    // half-space's infinite bounding box: it panics).
    let ground = world
        .bodies
        .insert(RigidBodyBuilder::fixed().translation(vector![0.0, 0.0, -0.5]));
    world.colliders.insert_with_parent(
        ColliderBuilder::cuboid(50.0, 50.0, 0.5)
            .friction(0.5)
            .restitution(0.3),
        ground,
        &mut world.bodies,
    );
    let mut handles = Vec::new();
    for &(x, z) in centres {
        let handle = world.bodies.insert(
            RigidBodyBuilder::dynamic()
                .translation(vector![x, 0.0, z])
                .can_sleep(false),
        );
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(0.05, 0.05, 0.05)
                .density(500.0)
                .friction(0.5)
                .restitution(0.3),
            handle,
            &mut world.bodies,
        );
        handles.push(handle);
    }
    let top = *handles.last().expect("a cube");
    let start = *world.bodies[top].translation();
    let clock = Instant::now();
    for _ in 0..1200 {
        world.step();
    }
    let wall = clock.elapsed().as_secs_f64();
    let end = *world.bodies[top].translation();
    Row {
        engine: "rapier 0.26, 240 Hz".into(),
        wall,
        top_moved: Some((end - start).norm()),
        energy_change: None,
        note: format!(
            "can_sleep(false); top cube ends at x = {:.3}, z = {:.3} m",
            end.x, end.z
        ),
    }
}

fn whole_runs() {
    let cases: [(&str, Vec<(f64, f64)>); 2] = [
        ("stack of 10 cubes", stack_of_ten()),
        ("pyramid of 20 cubes", pyramid_of_twenty()),
    ];
    for (name, centres) in cases {
        println!("{name}, 5 s simulated:");
        println!(
            "  {:<24} {:>10} {:>14} {:>14}  note",
            "engine", "wall (s)", "top moved (m)", "ΔE (J)"
        );
        let show = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3e}"));
        for model in ["impulse", "constraint", "penalty", "rapier"] {
            let row = if model == "rapier" {
                run_rapier(&centres)
            } else {
                run_impulse(name, model, &centres)
            };
            println!(
                "  {:<24} {:>10.3} {:>14} {:>14}  {}",
                row.engine,
                row.wall,
                show(row.top_moved),
                show(row.energy_change),
                row.note
            );
        }
        println!();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    lemke_per_solve();
    whole_runs();
}
