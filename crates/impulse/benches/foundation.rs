//! Foundation benchmarks: polyhedral mass properties and free-body motion (a tumbling
//! asymmetric box integrated; a flight started and sampled 0.3 ms later, as between a resting
//! body's microcollisions, for that box and for a symmetric top in closed form).
//!
//! Run with `cargo bench -p impulse --bench foundation`. Figures are printed, not asserted.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impulse::BodyState;
use impulse::dynamics::{BodyDesc, FreeFlight, MassSpec};
use impulse::geometry::{Shape, tessellate};
use impulse::integrate::Tolerance;
use impulse::math::{Quat, Vec3};
use impulse::{World, WorldSettings};
use std::hint::black_box;

/// Mirtich Table 6.2: all ten volume integrals of the level-6 geodesic sphere (20480 faces). The
/// thesis took 350 ms on a 200 MHz R4400; the target here is under 2 ms.
fn mass_properties(c: &mut Criterion) {
    let mut group = c.benchmark_group("mass_properties");
    for level in [4u32, 5, 6] {
        let mesh = tessellate::geodesic_sphere(level);
        group.throughput(Throughput::Elements(mesh.faces.len() as u64));
        group.bench_function(format!("geodesic_sphere_{}_faces", mesh.faces.len()), |b| {
            b.iter(|| black_box(&mesh).volume_integrals().mass_properties(1.0))
        });
    }
    group.finish();
}

/// Free flight of a tumbling asymmetric box: throughput in integrator steps per second.
fn free_body(c: &mut Criterion) {
    let make = || {
        let mut world = World::new(WorldSettings::default());
        let mut desc = BodyDesc::new(
            "tumbler",
            Shape::Box {
                half_extents: Vec3::new(0.5, 1.0, 1.5),
            },
        );
        desc.mass = MassSpec::Mass(1.0);
        desc.angular_velocity = Vec3::new(1.3, -2.1, 0.7);
        world.add_body(desc).unwrap();
        world
    };
    // Steps taken for 10 s of tumbling (deterministic), to report steps per second.
    let mut probe = make();
    probe.advance_to(10.0).unwrap();
    let steps = probe.counters()["integrator_steps"];
    let mut group = c.benchmark_group("free_body");
    group.throughput(Throughput::Elements(steps));
    group.bench_function(format!("tumbling_box_10s_{steps}_steps"), |b| {
        b.iter_batched(
            make,
            |mut world| {
                world.advance_to(10.0).unwrap();
                world
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// One flight as a resting body flies it between microcollisions: started after an impulse and
/// sampled 0.3 ms later. Principal moments of a 1 × 2 × 3 box (integrated) and of a 1 × 1 × 3
/// one (a symmetric top, in closed form), unit mass.
fn short_flights(c: &mut Criterion) {
    let state = BodyState {
        position: Vec3::new(0.0, 0.0, 1.0),
        orientation: Quat::from_scaled_axis(Vec3::new(0.2, -0.1, 0.4)),
        velocity: Vec3::new(0.01, 0.0, 0.02),
        angular_velocity: Vec3::new(0.3, -0.2, 0.1),
    };
    let box_moments =
        |x: f64, y: f64, z: f64| Vec3::new(y * y + z * z, x * x + z * z, x * x + y * y) / 12.0;
    let mut group = c.benchmark_group("flight_started_and_sampled_after_0.3ms");
    for (name, moments) in [
        ("asymmetric_box", box_moments(1.0, 2.0, 3.0)),
        ("symmetric_top", box_moments(1.0, 1.0, 3.0)),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut flight = FreeFlight::new(
                    0.0,
                    &state,
                    moments,
                    Vec3::new(0.0, 0.0, -9.81),
                    Vec3::zeros(),
                    Tolerance::default(),
                )
                .unwrap();
                black_box(flight.state_at(3e-4).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .measurement_time(std::time::Duration::from_secs(3))
        .warm_up_time(std::time::Duration::from_secs(1));
    targets = mass_properties, free_body, short_flights
}
criterion_main!(benches);
