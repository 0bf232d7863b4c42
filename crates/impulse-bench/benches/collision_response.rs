//! Frictional collision integration (Mirtich ch. 3): the cost of one collision response, the
//! unit of work of impulse-based contact. Resting and sliding contact are trains of these, so
//! their cost sets the pace of the Table 7.1 scenes (`impulse table`).
//!
//! Run with `cargo bench -p impulse-bench --bench collision_response`. Figures are printed, not
//! asserted.
//!
//! Three batches of 1000 seeded random collisions (random positive-definite K, friction in
//! [0, 1), restitution in [0, 1), Stronge's law): contacts that slide throughout (tangential
//! speed several times the approach), contacts that come to stick during the collision
//! (tangential speed a fraction of the approach, strong friction), and microcollision-like
//! ones (boosted restitution 2–5, slow approach).

mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use impulse::math::{Mat3, Vec3};
use impulse::response::{RestitutionLaw, integrate};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// One collision: K, u₀, μ, e.
type Case = (Mat3, Vec3, f64, f64);

fn batch(seed: u64, tangential: (f64, f64), mu: (f64, f64), e: (f64, f64)) -> Vec<Case> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..1000)
        .map(|_| {
            let a = Mat3::from_fn(|_, _| rng.random_range(-1.0..1.0));
            let k = a * a.transpose() + Mat3::identity() * 0.05;
            let angle = rng.random_range(0.0..std::f64::consts::TAU);
            let speed = rng.random_range(tangential.0..tangential.1);
            let u0 = Vec3::new(speed * angle.cos(), speed * angle.sin(), -1.0);
            (
                k,
                u0,
                rng.random_range(mu.0..mu.1),
                rng.random_range(e.0..e.1),
            )
        })
        .collect()
}

fn collisions(c: &mut Criterion) {
    let batches = [
        ("sliding", batch(1, (3.0, 10.0), (0.05, 0.3), (0.0, 1.0))),
        ("sticking", batch(2, (0.05, 0.5), (0.5, 1.0), (0.0, 1.0))),
        (
            "microcollision",
            batch(3, (0.0, 1.0), (0.1, 0.6), (2.0, 5.0)),
        ),
    ];
    // The work behind the times: integration steps per collision (sticking and rays are
    // closed form, so a batch's steps are its sliding).
    for (name, cases) in &batches {
        let steps: u64 = cases
            .iter()
            .map(|(k, u0, mu, e)| {
                u64::from(integrate(k, u0, *mu, *e, RestitutionLaw::Stronge).steps)
            })
            .sum();
        println!(
            "collision_response/{name}: {:.2} integration steps per collision",
            steps as f64 / cases.len() as f64
        );
    }
    let mut group = c.benchmark_group("collision_response");
    for (name, cases) in &batches {
        group.bench_function(format!("{name}/1000"), |b| {
            b.iter(|| {
                for (k, u0, mu, e) in cases {
                    black_box(integrate(k, u0, *mu, *e, RestitutionLaw::Stronge));
                }
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = collisions
}
criterion_main!(benches);
