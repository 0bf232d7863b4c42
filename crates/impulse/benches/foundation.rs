//! Foundation benchmarks: polyhedral mass properties and free-body motion.
//!
//! Run with `cargo bench -p impulse --bench foundation`. Figures are printed, not asserted.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impulse::dynamics::{BodyDesc, MassSpec};
use impulse::geometry::{Shape, tessellate};
use impulse::math::Vec3;
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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .measurement_time(std::time::Duration::from_secs(3))
        .warm_up_time(std::time::Duration::from_secs(1));
    targets = mass_properties, free_body
}
criterion_main!(benches);
