//! Piles against rapier (issue 40): `cargo bench -p impulse-bench --bench piles`.
//!
//! The pile scenes of `shared/peer-scenes.md`, built from the centres of
//! `impulse_bench::piles`, run in impulse and rapier side by side in one run:
//!
//! 1. **Peer scenes** a (ball pit: 500 balls r = 0.05 m dropped into a 1 m box, 5 s),
//!    g (pyramid: base 20, 210 cubes of 0.1 m, 1 mm apart sideways, 5 s) and h (ten 0.1 m cubes
//!    stacked touching, 10 s); density 1000, friction 0.5, restitution 0. One row per engine:
//!    impulse under `contact_model = "impulse"`, `"constraint"`, `"penalty"` and
//!    `"switching"` (scene text, every other key at its default), and rapier at its defaults
//!    (1/60 s, 4 iterations, sleep allowed; the ground a 100 m slab, since its broad phase
//!    takes no half-space), and rapier
//!    again at 240 Hz (the step `benches/peers.rs` and `constraint.rs` use). Each row:
//!    simulated time reached, wall time of the step calls only, its ratio to rapier's (per
//!    simulated second), and the scene's measures — pit: balls whose centre is inside the box,
//!    deepest overlap (ball–ball, ball–ground, ball–wall); pyramid: the largest distance any
//!    cube moved, the top cube's height error; stack: how far the top moved, its height error
//!    against the touching height 0.95 m. An impulse run stops at its first error ("stopped at
//!    t: error") or when its wall time passes `PILES_LIMIT` seconds (default 60: "gave up at
//!    t"; a watchdog sets the world's interrupt flag, so the world stops mid-step), and is
//!    measured where it stood.
//! 2. **Scaling**: deep pits (the drop grid of scene a continued upward, 81 a layer, in the same
//!    box) of N = 25, 50, 100, 200, 400, 800 balls, and of 0.1 m cubes on the same grid, for
//!    2 s: wall time per simulated second of impulse (default contact model, and
//!    `"constraint"`) and rapier, and the exponent p of the least-squares fit wall ∝ N^p over
//!    the runs that reached 2 s. A run is capped at `PILES_SCALE_LIMIT` seconds of wall time
//!    (default 15) and reports what it reached; after an engine's run is capped or stops, its
//!    larger N are not run. `PILES_MAX_N` (default 800) ends the series early;
//!    `PILES_SKIP_PEERS` (set to anything) runs the scaling part alone.
//!
//! Times are wall clock on a shared machine: absolute figures swing by up to 2×, ratios from
//! one run hold.
//!
//! Measured 2026-11-27 (2 shared cores, one thread; default limits; whole
//! bench 283 s):
//!
//! | scene | impulse | constraint | penalty | rapier 60 Hz | rapier 240 Hz |
//! |---|---|---|---|---|---|
//! | a. pit, 5 s | stops at 0.178 s (same-instant cascade), 1.73 s wall, 98× | gave up at 0.182 s, 3320× | gave up at 0.190 s, 3191× | 0.497 s; 500 inside, 4.62 mm | 1.67 s; 3.79 mm |
//! | g. pyramid, 5 s | 11.15 s wall, 26×; largest move 24 mm, top +19.0 mm | gave up at 0.000 s | stopped at 0.0007 s ("move too fast") | 0.423 s; collapses (top −1.90 m) | 0.824 s; largest move 57 mm, top −51 mm |
//! | h. stack, 10 s | 0.087 s, 9.7×; top moved 20 mm, +14.6 mm | 2.79 s, 311×; top moved 0.10 mm, +0.10 mm | 1.17 s, 130×; top moved 1.0 mm, −1.0 mm | 0.009 s; falls (top −0.90 m) | 0.023 s; top moved 112 mm, −41 mm |
//!
//! Scaling (wall per simulated second, deep pits, 2 s): balls — impulse 0.0035, 0.0076,
//! 0.166 s at N = 25, 50, 100, N = 200 stops at 0.218 s: N^2.78; constraint N = 100 capped
//! at 0.408 s; rapier 0.0015 … 0.133 s over 25 … 800: N^1.36. Cubes — impulse 0.0065 …
//! 3.00 s over 25 … 200, N = 400 stops at 0.108 s: N^2.84; constraint N = 100 capped at
//! 0.104 s; rapier 0.0032 … 0.399 s over 25 … 800: N^1.45.
//!
//! Measured 2026-11-28 after same-instant cascades became impact solves (other jobs shared
//! the cores for part of the run, so walls are high; docs/sources.md, "Impacts into a pile
//! solved together"): pit under impulses reaches 0.924 s (was 0.178 s) and stops where a
//! bottom ball has sunk through the envelope under the pile; pyramid 5 s, largest move
//! 17.0 mm, top +16.7 mm; deep ball pit N = 200 reaches 1.49 s in its 15 s cap (stopped at
//! 0.218 s), cube pit N = 200 0.41 s.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use impulse::World;
use impulse_bench::piles::{self, BALL_RADIUS, CUBE_SIDE, PIT_HALF, PIT_WALL};
use rapier3d_f64::prelude::*;

#[path = "common/rapier_world.rs"]
mod rapier_world;

/// Friction and restitution of every body (peer scenes a, g, h).
const FRICTION: f64 = 0.5;
const DENSITY: f64 = 1000.0;

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Ball,
    Cube,
}

/// One scene: its bodies' shape and starting centres, whether it is in the pit, how long.
struct Scene {
    name: String,
    shape: Shape,
    centres: Vec<[f64; 3]>,
    pit: bool,
    duration: f64,
}

/// Where a run got to.
struct Run {
    reached: f64,
    /// Wall time of the step calls only (s).
    wall: f64,
    /// "" when it ran to the end.
    note: String,
    centres: Vec<[f64; 3]>,
}

impl Run {
    fn completed(&self) -> bool {
        self.note.is_empty()
    }

    fn wall_per_simulated_second(&self) -> f64 {
        self.wall / self.reached
    }
}

/// Seconds from an environment variable, or `default`.
fn env_or(name: &str, default: f64) -> f64 {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            eprintln!("{name} = {text:?} is not a number; using {default}");
            default
        }),
        Err(_) => default,
    }
}

/// The pit's four walls: (centre, full size) — the x walls span the corners.
fn pit_walls() -> [([f64; 3], [f64; 3]); 4] {
    let (t, h) = PIT_WALL;
    let (c, z) = (PIT_HALF + t / 2.0, h / 2.0);
    let long = 2.0 * (PIT_HALF + t);
    let short = 2.0 * PIT_HALF;
    [
        ([c, 0.0, z], [t, long, h]),
        ([-c, 0.0, z], [t, long, h]),
        ([0.0, c, z], [short, t, h]),
        ([0.0, -c, z], [short, t, h]),
    ]
}

/// The scene as impulse's scene text; `model` None leaves the contact model at its default.
/// Positions are written in Rust's shortest round-trip form, so impulse starts from the very
/// same numbers as rapier.
fn scene_text(scene: &Scene, model: Option<&str>) -> String {
    let mut text = format!("[world]\nname = \"{}\"\n", scene.name);
    if let Some(model) = model {
        text.push_str(&format!("contact_model = \"{model}\"\n"));
    }
    text.push_str(&format!(
        "duration = {:?}\n\n[materials.pile]\nfriction = {FRICTION:?}\nrestitution = 0.0\n\n\
         [[bodies]]\nname = \"ground\"\nmotion = \"fixed\"\nmaterial = \"pile\"\n\
         shape = {{ type = \"halfspace\" }}\n",
        scene.duration
    ));
    if scene.pit {
        for (i, (c, size)) in pit_walls().iter().enumerate() {
            text.push_str(&format!(
                "\n[[bodies]]\nname = \"wall {i}\"\nmotion = \"fixed\"\nmaterial = \"pile\"\n\
                 shape = {{ type = \"box\", size = {size:?} }}\nposition = {c:?}\n"
            ));
        }
    }
    let shape = match scene.shape {
        Shape::Ball => format!("{{ type = \"sphere\", radius = {BALL_RADIUS:?} }}"),
        Shape::Cube => format!("{{ type = \"box\", size = {:?} }}", [CUBE_SIDE; 3]),
    };
    for (i, c) in scene.centres.iter().enumerate() {
        text.push_str(&format!(
            "\n[[bodies]]\nname = \"b{i}\"\nmaterial = \"pile\"\nshape = {shape}\n\
             density = {DENSITY:?}\nposition = {c:?}\n"
        ));
    }
    text
}

/// Set by the watchdog of [`run_impulse`] when a run's wall limit has passed: the world stops
/// between events and integration steps ([`World::set_interrupt`]), so one long stretch of a
/// few milliseconds simulated cannot hold the bench.
static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Runs the scene in impulse under `model` until its end, its first error, or `limit` of wall
/// time (a watchdog thread that only sleeps; the wall time reported is the step calls').
fn run_impulse(scene: &Scene, model: Option<&str>, limit: Duration) -> Run {
    let text = scene_text(scene, model);
    let mut world: World = match impulse::scene::parse(Path::new("piles.toml"), &text) {
        Ok(parsed) => parsed.world,
        Err(e) => panic!("bench scene {}: {e}", scene.name),
    };
    let ids: Vec<_> = (0..scene.centres.len())
        .map(|i| world.body_id(&format!("b{i}")).expect("a pile body"))
        .collect();
    INTERRUPT.store(false, Ordering::SeqCst);
    world.set_interrupt(&INTERRUPT);
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
            INTERRUPT.store(true, Ordering::SeqCst);
        }
    });
    let mut wall = Duration::ZERO;
    let mut note = String::new();
    let steps = (scene.duration / 0.002).round() as usize;
    for k in 1..=steps {
        let clock = Instant::now();
        let result = world.advance_to(0.002 * k as f64);
        wall += clock.elapsed();
        drop(world.take_events());
        if INTERRUPT.load(Ordering::SeqCst) && (result.is_err() || k < steps) {
            note = format!(
                "gave up at {:.3} s (wall limit {:.0} s)",
                world.time(),
                limit.as_secs_f64()
            );
            break;
        }
        if let Err(e) = result {
            note = format!("stopped at {:.3} s: {e}", world.time());
            break;
        }
    }
    drop(done);
    watchdog.join().expect("the watchdog thread");
    let centres = ids
        .iter()
        .map(|&id| {
            let p = world.body(id).state().position;
            [p.x, p.y, p.z]
        })
        .collect();
    Run {
        reached: world.time(),
        wall: wall.as_secs_f64(),
        note,
        centres,
    }
}

/// Runs the scene in rapier at its default settings, but for a time step of `1/hz` s when
/// given one.
fn run_rapier(scene: &Scene, hz: Option<f64>) -> Run {
    let mut parameters = IntegrationParameters::default();
    if let Some(hz) = hz {
        parameters.dt = 1.0 / hz;
    }
    let dt = parameters.dt;
    let mut world = rapier_world::RapierWorld::new(vector![0.0, 0.0, -9.81], parameters);
    let fixed = |world: &mut rapier_world::RapierWorld, c: [f64; 3], half: [f64; 3]| {
        let body = world
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(vector![c[0], c[1], c[2]]));
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(half[0], half[1], half[2])
                .friction(FRICTION)
                .restitution(0.0),
            body,
            &mut world.bodies,
        );
    };
    fixed(&mut world, [0.0, 0.0, -0.5], [50.0, 50.0, 0.5]);
    if scene.pit {
        for (c, size) in pit_walls() {
            fixed(&mut world, c, size.map(|s| s / 2.0));
        }
    }
    let handles: Vec<RigidBodyHandle> = scene
        .centres
        .iter()
        .map(|c| {
            let body = world
                .bodies
                .insert(RigidBodyBuilder::dynamic().translation(vector![c[0], c[1], c[2]]));
            let collider = match scene.shape {
                Shape::Ball => ColliderBuilder::ball(BALL_RADIUS),
                Shape::Cube => {
                    ColliderBuilder::cuboid(CUBE_SIDE / 2.0, CUBE_SIDE / 2.0, CUBE_SIDE / 2.0)
                }
            };
            world.colliders.insert_with_parent(
                collider
                    .density(DENSITY)
                    .friction(FRICTION)
                    .restitution(0.0),
                body,
                &mut world.bodies,
            );
            body
        })
        .collect();
    let steps = (scene.duration / dt).round() as usize;
    let clock = Instant::now();
    for _ in 0..steps {
        world.step();
    }
    let wall = clock.elapsed().as_secs_f64();
    let centres = handles
        .iter()
        .map(|&h| {
            let p = world.bodies[h].translation();
            [p.x, p.y, p.z]
        })
        .collect();
    Run {
        reached: steps as f64 * dt,
        wall,
        note: String::new(),
        centres,
    }
}

/// The measures of peer scenes a, g and h, read from a run's last centres.
fn measures(scene: &Scene, run: &Run) -> String {
    let end = &run.centres;
    if scene.pit {
        format!(
            "{:>3} of {} inside, deepest overlap {:.2} mm",
            piles::balls_inside_pit(end),
            end.len(),
            1e3 * piles::deepest_ball_penetration(end)
        )
    } else {
        let (top_start, top_end) = (scene.centres[end.len() - 1], end[end.len() - 1]);
        let top_moved = piles::largest_displacement(&[top_start], &[top_end]);
        format!(
            "largest move {:.3e} m, top moved {:.3e} m, top height error {:+.2} mm",
            piles::largest_displacement(&scene.centres, end),
            top_moved,
            1e3 * (top_end[2] - top_start[2])
        )
    }
}

fn peer_scenes(limit: Duration) {
    let scenes = [
        Scene {
            name: "a. ball pit, 500 balls".into(),
            shape: Shape::Ball,
            centres: piles::pit_centres(500),
            pit: true,
            duration: 5.0,
        },
        Scene {
            name: "g. pyramid, base 20 (210 cubes)".into(),
            shape: Shape::Cube,
            centres: piles::pyramid_centres(20),
            pit: false,
            duration: 5.0,
        },
        Scene {
            name: "h. ten-cube stack".into(),
            shape: Shape::Cube,
            centres: piles::stack_centres(10),
            pit: false,
            duration: 10.0,
        },
    ];
    for scene in &scenes {
        println!("{}, {} s:", scene.name, scene.duration);
        println!(
            "  {:<20} {:>9} {:>10} {:>9}  measures; note",
            "engine", "reached", "wall (s)", "×rapier"
        );
        let rapier = run_rapier(scene, None);
        for model in ["impulse", "constraint", "penalty", "switching"] {
            let run = run_impulse(scene, Some(model), limit);
            let ratio = run.wall_per_simulated_second() / rapier.wall_per_simulated_second();
            println!(
                "  {:<20} {:>7.3} s {:>10.3} {:>9.1}  {}{}{}",
                format!("impulse, {model}"),
                run.reached,
                run.wall,
                ratio,
                measures(scene, &run),
                if run.completed() { "" } else { "; " },
                run.note
            );
        }
        println!(
            "  {:<20} {:>7.3} s {:>10.3} {:>9.1}  {}",
            "rapier 0.26, default",
            rapier.reached,
            rapier.wall,
            1.0,
            measures(scene, &rapier)
        );
        let fine = run_rapier(scene, Some(240.0));
        println!(
            "  {:<20} {:>7.3} s {:>10.3} {:>9.1}  {}",
            "rapier 0.26, 240 Hz",
            fine.reached,
            fine.wall,
            fine.wall_per_simulated_second() / rapier.wall_per_simulated_second(),
            measures(scene, &fine)
        );
        println!();
    }
}

fn scaling(limit: Duration, max_n: usize) {
    let series: Vec<usize> = [25, 50, 100, 200, 400, 800]
        .into_iter()
        .filter(|&n| n <= max_n)
        .collect();
    let engines: [(&str, Option<Option<&str>>); 3] = [
        ("impulse, default", Some(None)),
        ("impulse, constraint", Some(Some("constraint"))),
        ("rapier 0.26", None),
    ];
    for shape in [Shape::Ball, Shape::Cube] {
        let what = if shape == Shape::Ball {
            "balls"
        } else {
            "cubes"
        };
        println!(
            "Scaling: deep pits of N {what} (peer scene a's grid and box), 2 s; wall time per \
             simulated second (s):"
        );
        print!("  {:>5}", "N");
        for (name, _) in &engines {
            print!(" {name:>32}");
        }
        println!();
        let mut fits: Vec<Vec<(f64, f64)>> = vec![Vec::new(); engines.len()];
        let mut stopped = vec![false; engines.len()];
        for &n in &series {
            let scene = Scene {
                name: format!("deep pit of {n} {what}"),
                shape,
                centres: piles::pit_centres(n),
                pit: true,
                duration: 2.0,
            };
            print!("  {n:>5}");
            for (e, (_, model)) in engines.iter().enumerate() {
                if stopped[e] {
                    print!(" {:>32}", "not run (smaller N capped)");
                    continue;
                }
                let run = match model {
                    Some(model) => run_impulse(&scene, *model, limit),
                    None => run_rapier(&scene, None),
                };
                let cell = if run.completed() {
                    fits[e].push((n as f64, run.wall_per_simulated_second()));
                    format!("{:.4}", run.wall_per_simulated_second())
                } else {
                    stopped[e] = true;
                    let why = if run.note.starts_with("gave up") {
                        "capped"
                    } else {
                        "error"
                    };
                    format!(
                        "{:.4} ({why} at {:.3} s)",
                        run.wall_per_simulated_second(),
                        run.reached
                    )
                };
                print!(" {cell:>32}");
            }
            println!();
        }
        print!("  {:>5}", "p");
        for fit in &fits {
            let cell = if fit.len() >= 2 {
                format!(
                    "N^{:.2} over {}–{}",
                    piles::exponent(fit),
                    fit[0].0,
                    fit[fit.len() - 1].0
                )
            } else {
                "— (fewer than 2 runs)".to_string()
            };
            print!(" {cell:>32}");
        }
        println!("\n");
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let started = Instant::now();
    let limit = Duration::from_secs_f64(env_or("PILES_LIMIT", 60.0));
    let scale_limit = Duration::from_secs_f64(env_or("PILES_SCALE_LIMIT", 15.0));
    let max_n = env_or("PILES_MAX_N", 800.0) as usize;
    println!(
        "Piles against rapier (issue 40); impulse runs capped at PILES_LIMIT = {:.0} s, scaling \
         runs at PILES_SCALE_LIMIT = {:.0} s of wall time; PILES_MAX_N = {max_n}.\n",
        limit.as_secs_f64(),
        scale_limit.as_secs_f64()
    );
    if std::env::var("PILES_SKIP_PEERS").is_err() {
        peer_scenes(limit);
    }
    scaling(scale_limit, max_n);
    println!(
        "One thread; wall times of the step calls only. Whole bench: {:.0} s.",
        started.elapsed().as_secs_f64()
    );
}
