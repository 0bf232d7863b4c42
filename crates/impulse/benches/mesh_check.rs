//! What `impulse check` costs on a finely tessellated convex mesh (issue 42: a 319k-face mesh
//! took 87 s, its hull tested every vertex against every face and quickhull cleared a
//! faces-long flag vector for every point it added): geodesic spheres of 20,480, 81,920 and
//! 327,680 faces taken as one convex piece (closed-solid validation, hull, convexity and
//! volume checks), as `pieces = "convex"` does.
//!
//! Run with `cargo bench -p impulse --bench mesh_check`. Figures are printed, not asserted.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impulse::geometry::polyhedron::Polyhedron;
use impulse::geometry::tessellate;

fn convex_mesh_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("convex_mesh_check");
    for level in [6u32, 7, 8] {
        let mesh = tessellate::geodesic_sphere(level);
        group.throughput(Throughput::Elements(mesh.faces.len() as u64));
        group.bench_function(format!("geodesic_sphere_{}_faces", mesh.faces.len()), |b| {
            b.iter(|| {
                Polyhedron::from_convex_objects(black_box(mesh.clone()), Path::new("sphere.obj"))
                    .expect("a sphere is convex")
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(std::time::Duration::from_secs(5))
        .warm_up_time(std::time::Duration::from_secs(1));
    targets = convex_mesh_check
}
criterion_main!(benches);
