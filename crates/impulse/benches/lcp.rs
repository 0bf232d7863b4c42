//! Lemke's algorithm on contact problems (printed, not asserted): time per solve for 4 … 200
//! contacts, cold (Lemke from the start) and warm (the last step's basis: one linear solve).
//!
//! - `stack`: k boxes stacked, four corner contacts per interface (4k contacts: 4, 8, 16, 32,
//!   64, 128, 200). Each interface's four coplanar contacts make the matrix rank-deficient
//!   (the chair on four legs, Baraff §8.1): every problem is degenerate.
//! - `pyramid`: a 2-D pyramid of R rows, each box on two below, four contacts per touching
//!   pair (4R² contacts: 4, 16, 36, 64, 100, 144, 196).
//!
//! Friction models: `frictionless` (ch. 8, symmetric PSD), `sliding` (every interface slides,
//! ch. 9–10, not symmetric), `static` (§14.2.3's box model as an LCP: 7 unknowns a contact,
//! up to 64 contacts). "warm" solves the problem of the next instant (gravity 1e-6 stronger)
//! from the basis of the last: one LU solve of the basis block and the check.
//!
//! Run with `cargo bench -p impulse --bench lcp`; the pivot counts are printed first.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use impulse::lcp::{Basis, ContactBody, ContactLcp, ContactPoint, ContactSystem, LemkeOptions};
use impulse::lcp::{Outcome, Start};
use impulse::math::{Mat3, Point, Vec3};
use std::hint::black_box;
use std::time::Duration;

const G: f64 = 9.81;

fn cube(center: Point, velocity: Vec3, gravity: f64, push: f64) -> ContactBody {
    // A unit cube of unit mass: I = m (a² + a²)/3 with half-side a = 0.5.
    let inertia = 1.0 / 6.0;
    ContactBody {
        inverse_mass: 1.0,
        inverse_inertia: Mat3::identity() / inertia,
        center_of_mass: center,
        velocity,
        angular_velocity: Vec3::zeros(),
        force: Vec3::new(push, 0.0, -gravity),
        torque: Vec3::zeros(),
    }
}

/// ±0.1 m/s, alternating with `level`.
fn alternate(level: usize) -> f64 {
    if level.is_multiple_of(2) { 0.1 } else { -0.1 }
}

/// Contacts at the corners of the rectangle `[x0, x1] × [-0.5, 0.5]` at height `z`.
fn corners(a: usize, b: Option<usize>, x0: f64, x1: f64, z: f64, mu: f64) -> Vec<ContactPoint> {
    [(x0, -0.5), (x1, -0.5), (x1, 0.5), (x0, 0.5)]
        .iter()
        .map(|&(x, y)| {
            ContactPoint::new(Some(a), b, Point::new(x, y, z), Vec3::z()).with_friction(mu)
        })
        .collect()
}

/// A stack of `k` unit cubes; `sliding`: the boxes move at ±0.1 m/s, alternately, so every
/// interface slides. (With every box faster than the one below, the friction torques add up
/// the stack, the boxes pivot on their front edges, and four boxes at μ = 0.5 are already
/// inconsistent: Lemke ends on a ray, and the oracle finds no basic solution.)
fn stack(
    k: usize,
    sliding: bool,
    gravity: f64,
    push: f64,
) -> (Vec<ContactBody>, Vec<ContactPoint>) {
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    for i in 0..k {
        let v = if sliding { alternate(i) } else { 0.0 };
        let c = Point::new(0.0, 0.0, 0.5 + i as f64);
        bodies.push(cube(c, Vec3::new(v, 0.0, 0.0), gravity, push));
        let below = if i == 0 { None } else { Some(i - 1) };
        contacts.extend(corners(i, below, -0.5, 0.5, i as f64, 0.5));
    }
    (bodies, contacts)
}

/// A 2-D pyramid of `rows` rows of unit cubes, each on two below (half overlaps);
/// `sliding`: rows move at ±0.1 m/s, alternately.
fn pyramid(
    rows: usize,
    sliding: bool,
    gravity: f64,
    push: f64,
) -> (Vec<ContactBody>, Vec<ContactPoint>) {
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let mut below: Vec<usize> = Vec::new();
    for j in 0..rows {
        let mut row = Vec::new();
        for i in 0..rows - j {
            let x = i as f64 + 0.5 * j as f64;
            let v = if sliding { alternate(j) } else { 0.0 };
            let index = bodies.len();
            bodies.push(cube(
                Point::new(x, 0.0, 0.5 + j as f64),
                Vec3::new(v, 0.0, 0.0),
                gravity,
                push,
            ));
            let z = j as f64;
            if j == 0 {
                contacts.extend(corners(index, None, x - 0.5, x + 0.5, z, 0.5));
            } else {
                contacts.extend(corners(index, Some(below[i]), x - 0.5, x, z, 0.5));
                contacts.extend(corners(index, Some(below[i + 1]), x, x + 0.5, z, 0.5));
            }
            row.push(index);
        }
        below = row;
    }
    (bodies, contacts)
}

#[derive(Clone, Copy)]
enum Model {
    Frictionless,
    Sliding,
    Static,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Frictionless => "frictionless",
            Model::Sliding => "sliding",
            Model::Static => "static",
        }
    }

    fn lcp(self, bodies: &[ContactBody], contacts: &[ContactPoint]) -> ContactLcp {
        let system = ContactSystem::new(bodies, contacts, 1e-6).expect("valid scene");
        match self {
            Model::Frictionless => system.frictionless(),
            Model::Sliding => system.sliding_friction(),
            Model::Static => system.static_friction(),
        }
    }
}

type Scene = fn(usize, bool, f64, f64) -> (Vec<ContactBody>, Vec<ContactPoint>);

/// The problem now and at the next instant, and the basis of the solution now.
fn problems(scene: Scene, size: usize, model: Model) -> (ContactLcp, ContactLcp, Basis, usize) {
    let sliding = matches!(model, Model::Sliding);
    let (bodies, contacts) = scene(size, sliding, G, 0.0);
    let now = model.lcp(&bodies, &contacts);
    let (bodies, contacts) = scene(size, sliding, G * (1.0 + 1e-6), 0.0);
    let next = model.lcp(&bodies, &contacts);
    let options = LemkeOptions::default();
    let Ok(Outcome::Solution(s)) = now.solve(None, &options) else {
        panic!("{} {size}: not solved", model.name());
    };
    let pivots = s.pivots;
    // Check the warm start is kept on the next problem (else "warm" would time a cold run).
    let Ok(Outcome::Solution(w)) = next.solve(Some(&s.basis), &options) else {
        panic!("{} {size}: next not solved", model.name());
    };
    assert_eq!(
        w.start,
        Start::Warm,
        "{} {size}: warm start rejected",
        model.name()
    );
    (now, next, s.basis, pivots)
}

fn lemke_bench(c: &mut Criterion) {
    let options = LemkeOptions::default();
    let cases: [(&str, Scene, &[usize], Model); 6] = [
        (
            "stack",
            stack,
            &[1, 2, 4, 8, 16, 32, 50],
            Model::Frictionless,
        ),
        ("stack", stack, &[1, 2, 4, 8, 16, 32, 50], Model::Sliding),
        ("stack", stack, &[1, 2, 4, 8, 16], Model::Static),
        (
            "pyramid",
            pyramid,
            &[1, 2, 3, 4, 5, 6, 7],
            Model::Frictionless,
        ),
        ("pyramid", pyramid, &[1, 2, 3, 4, 5, 6, 7], Model::Sliding),
        ("pyramid", pyramid, &[1, 2, 3, 4], Model::Static),
    ];
    for (scene_name, scene, sizes, model) in cases {
        let mut group = c.benchmark_group(format!("lemke_{scene_name}_{}", model.name()));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        for &size in sizes {
            let (now, next, basis, pivots) = problems(scene, size, model);
            let contacts = now.contacts();
            eprintln!(
                "{scene_name} {}: {contacts} contacts, {} unknowns, {pivots} pivots cold",
                model.name(),
                now.vector.len()
            );
            group.bench_with_input(BenchmarkId::new("cold", contacts), &now, |b, lcp| {
                b.iter(|| black_box(lcp.solve(None, &options)))
            });
            group.bench_with_input(BenchmarkId::new("warm", contacts), &next, |b, lcp| {
                b.iter(|| black_box(lcp.solve(Some(&basis), &options)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, lemke_bench);
criterion_main!(benches);
