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

/// An OBJ slab 0.01 × 1 × 1 whose two large faces are cut into `n × n` quads: every triangle
/// of a large face has the same x-range, the case where a sweep along x compared every pair.
fn thin_slab(n: usize) -> String {
    let mut text = String::new();
    let id = |side: usize, j: usize, k: usize| 1 + side * (n + 1) * (n + 1) + j * (n + 1) + k;
    for x in [0.0, 0.01] {
        for j in 0..=n {
            for k in 0..=n {
                text += &format!("v {x} {} {}\n", j as f64 / n as f64, k as f64 / n as f64);
            }
        }
    }
    let quad = |text: &mut String, q: [usize; 4]| {
        *text += &format!("f {} {} {} {}\n", q[0], q[1], q[2], q[3]);
    };
    for j in 0..n {
        for k in 0..n {
            quad(
                &mut text,
                [
                    id(0, j, k),
                    id(0, j, k + 1),
                    id(0, j + 1, k + 1),
                    id(0, j + 1, k),
                ],
            );
            quad(
                &mut text,
                [
                    id(1, j, k),
                    id(1, j + 1, k),
                    id(1, j + 1, k + 1),
                    id(1, j, k + 1),
                ],
            );
        }
        quad(
            &mut text,
            [id(0, j, 0), id(0, j + 1, 0), id(1, j + 1, 0), id(1, j, 0)],
        );
        quad(
            &mut text,
            [id(0, j, n), id(1, j, n), id(1, j + 1, n), id(0, j + 1, n)],
        );
        quad(
            &mut text,
            [id(0, 0, j), id(1, 0, j), id(1, 0, j + 1), id(0, 0, j + 1)],
        );
        quad(
            &mut text,
            [id(0, n, j), id(0, n, j + 1), id(1, n, j + 1), id(1, n, j)],
        );
    }
    text
}

/// The closed-solid validation (self-intersection included) of thin slabs of 2,176, 8,448
/// and 33,280 faces (issue 42, item 3).
fn thin_slab_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("thin_slab_validate_solid");
    for n in [32usize, 64, 128] {
        let text = thin_slab(n);
        let mesh = impulse::geometry::mesh_io::parse_obj(Path::new("slab.obj"), &text)
            .expect("a well-formed OBJ");
        group.throughput(Throughput::Elements(mesh.faces.len() as u64));
        group.bench_function(format!("thin_slab_{}_faces", mesh.faces.len()), |b| {
            b.iter(|| {
                black_box(&mesh)
                    .validate_solid()
                    .expect("a slab is a solid")
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
    targets = convex_mesh_check, thin_slab_check
}
criterion_main!(benches);
