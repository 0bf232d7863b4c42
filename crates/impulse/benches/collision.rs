//! Collision-detection benchmarks (printed, not asserted):
//!
//! - closest features of two ~1000-vertex polyhedra, one turning 1° per query about an axis
//!   (the setting of Mirtich Fig. 2.5): warm-started V-Clip, cold V-Clip, parry's distance, GJK;
//! - two coins touching rim to rim, one rocking 0.01° per query: coherent GJK against the
//!   certified Newton solution on the rims (`collision::cylinders`);
//! - broad phases updating 10,000 slowly moving boxes, against brute force.
//!
//! Run with `cargo bench -p impulse --bench collision`.

use criterion::{Criterion, criterion_group, criterion_main};
use impulse::collision::broad::{BroadPhase, HierarchicalHash, SweepAndPrune, brute_force};
use impulse::collision::gjk::{GjkSettings, gjk};
use impulse::collision::vclip::{Feature, closest_features};
use impulse::geometry::{Aabb, ConvexPolyhedron};
use impulse::math::{Point, Pose, Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::hint::black_box;

/// A convex polyhedron with about `n` vertices: random points on an ellipsoid.
fn polyhedron(n: usize, seed: u64) -> ConvexPolyhedron {
    let mut rng = Pcg64::seed_from_u64(seed);
    let points: Vec<Point> = (0..n)
        .map(|_| {
            let d = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
            .normalize();
            Point::new(d.x * 1.0, d.y * 0.8, d.z * 0.6)
        })
        .collect();
    ConvexPolyhedron::from_points(&points).expect("points on an ellipsoid")
}

fn closest_features_bench(c: &mut Criterion) {
    let a = polyhedron(1000, 1);
    let b = polyhedron(1000, 2);
    eprintln!(
        "polyhedra: {} and {} vertices",
        a.vertices().len(),
        b.vertices().len()
    );
    let pose_a = Pose::identity();
    // b beside a, turning 1° per query about an axis through its centre.
    let step = Quat::from_scaled_axis(Vec3::new(0.3, 1.0, 0.2).normalize() * 1f64.to_radians());
    let poses: Vec<Pose> = (0..360)
        .scan(Quat::identity(), |q, _| {
            *q = step * *q;
            Some(Pose::from_parts(Vec3::new(2.3, 0.1, 0.0).into(), *q))
        })
        .collect();
    let mut group = c.benchmark_group("closest_features_1000_vertices");
    group.bench_function("vclip_coherent", |bench| {
        let mut k = 0;
        let mut cache: Option<(Feature, Feature)> = None;
        bench.iter(|| {
            k = (k + 1) % poses.len();
            let r = closest_features(&a, &pose_a, &b, &poses[k], cache, 10_000).unwrap();
            cache = Some(r.features());
            black_box(r)
        })
    });
    group.bench_function("vclip_cold", |bench| {
        let mut k = 0;
        bench.iter(|| {
            k = (k + 1) % poses.len();
            black_box(closest_features(&a, &pose_a, &b, &poses[k], None, 10_000).unwrap())
        })
    });
    group.bench_function("gjk_coherent", |bench| {
        let mut k = 0;
        let mut direction = Vec3::x();
        bench.iter(|| {
            k = (k + 1) % poses.len();
            let pose_b = poses[k];
            let sa = |d: &Vec3| a.support(d);
            let sb = |d: &Vec3| pose_b * b.support(&(pose_b.rotation.inverse() * d));
            let r = gjk(&sa, &sb, &direction, &GjkSettings::default());
            if let impulse::collision::gjk::GjkResult::Separated { direction: d, .. } = r {
                direction = d;
            }
            black_box(r)
        })
    });
    // parry on the same pair (its own convex polyhedron built from our hull's triangles).
    let to_parry = |p: &ConvexPolyhedron| {
        use parry3d_f64::math::Vector;
        let mesh = p.to_mesh();
        let points: Vec<Vector> = mesh
            .vertices
            .iter()
            .map(|v| Vector::new(v.x, v.y, v.z))
            .collect();
        let triangles: Vec<[u32; 3]> = mesh.triangles().into_iter().map(|(t, _)| t).collect();
        parry3d_f64::shape::ConvexPolyhedron::from_convex_mesh(points, &triangles)
            .expect("a closed convex mesh")
    };
    let (pa, pb) = (to_parry(&a), to_parry(&b));
    let parry_poses: Vec<parry3d_f64::math::Pose> = poses
        .iter()
        .map(|p| {
            let q = p.rotation.quaternion();
            let t = p.translation.vector;
            parry3d_f64::math::Pose::from_parts(
                parry3d_f64::math::Vector::new(t.x, t.y, t.z),
                parry3d_f64::math::Rot3::from_xyzw(q.i, q.j, q.k, q.w),
            )
        })
        .collect();
    let identity = parry3d_f64::math::Pose::IDENTITY;
    group.bench_function("parry_distance", |bench| {
        let mut k = 0;
        bench.iter(|| {
            k = (k + 1) % parry_poses.len();
            black_box(parry3d_f64::query::distance(&identity, &pa, &parry_poses[k], &pb).unwrap())
        })
    });
    group.finish();
}

/// Rim-on-rim contact of two US quarters 0.001 cm apart, the upper rocking 0.01° per query:
/// what the coins scene's tilted coins ask of the narrow phase.
fn coin_rims_bench(c: &mut Criterion) {
    use impulse::collision::Convex;
    use impulse::collision::cylinders::{PlacedCylinder, curved_contact};
    let (radius, half_height) = (1.213, 0.0875);
    let coin = Convex::Cylinder {
        radius,
        half_height,
    };
    let lower = Pose::from_parts(
        Vec3::zeros().into(),
        Quat::from_scaled_axis(Vec3::new(-0.6, 0.0, 0.3)),
    );
    // The rim–rim pair of `collision::cylinders`' tests, moved to 0.001 cm apart along the
    // line of closest approach (0.3172 cm at the start).
    let tilt = Vec3::new(0.5, 0.1, 0.0);
    let start = Pose::from_parts(
        Vec3::new(0.3, 2.2, 0.4).into(),
        Quat::from_scaled_axis(tilt),
    );
    let coin = &coin;
    let support =
        |pose: Pose| move |d: &Vec3| pose * coin.core_support(&(pose.rotation.inverse() * d));
    let (distance, normal) = match gjk(
        &support(start),
        &support(lower),
        &Vec3::y(),
        &GjkSettings::default(),
    ) {
        impulse::collision::gjk::GjkResult::Separated {
            distance,
            direction,
            ..
        } => (distance, direction),
        impulse::collision::gjk::GjkResult::Intersecting(_) => unreachable!("the coins are apart"),
    };
    let centre = Vec3::new(0.3, 2.2, 0.4) - normal * (distance - 1e-3);
    let poses: Vec<Pose> = (0..64)
        .map(|k| {
            let rock = (k as f64 * 0.1).sin() * 0.32f64.to_radians();
            Pose::from_parts(
                centre.into(),
                Quat::from_scaled_axis(Vec3::new(0.0, 0.0, rock)) * Quat::from_scaled_axis(tilt),
            )
        })
        .collect();
    let mut group = c.benchmark_group("coin_rims_0.001_apart");
    group.bench_function("gjk_coherent", |bench| {
        let mut k = 0;
        let mut direction = normal;
        bench.iter(|| {
            k = (k + 1) % poses.len();
            let r = gjk(
                &support(poses[k]),
                &support(lower),
                &direction,
                &GjkSettings::default(),
            );
            if let impulse::collision::gjk::GjkResult::Separated { direction: d, .. } = r {
                direction = d;
            }
            black_box(r)
        })
    });
    group.bench_function("newton_certified", |bench| {
        let mut k = 0;
        let mut direction = normal;
        let below = PlacedCylinder::new(&lower, radius, half_height);
        bench.iter(|| {
            k = (k + 1) % poses.len();
            let above = PlacedCylinder::new(&poses[k], radius, half_height);
            let r = curved_contact(
                &above,
                &below,
                &direction,
                GjkSettings::default().relative_tolerance,
            )
            .expect("rim on rim, certified");
            direction = r.3;
            black_box(r)
        })
    });
    group.finish();
}

/// Runs SAP, the hash and brute force over pre-computed frames of boxes.
fn compare_broad_phases(c: &mut Criterion, name: &str, frames: &[Vec<Aabb>]) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    let mut run = |label: &str, mut broad: Box<dyn BroadPhase>| {
        for (i, b) in frames[0].iter().enumerate() {
            broad.set(i, *b);
        }
        broad.update();
        group.bench_function(label, |bench| {
            let mut k = 0;
            bench.iter(|| {
                k = (k + 1) % frames.len();
                for (i, b) in frames[k].iter().enumerate() {
                    broad.set(i, *b);
                }
                black_box(broad.update())
            })
        });
    };
    run("sweep_and_prune", Box::new(SweepAndPrune::new()));
    run("hierarchical_hash", Box::new(HierarchicalHash::new()));
    group.bench_function("brute_force", |bench| {
        let mut k = 0;
        bench.iter(|| {
            k = (k + 1) % frames.len();
            let boxes: Vec<Option<Aabb>> = frames[k].iter().map(|b| Some(*b)).collect();
            black_box(brute_force(&boxes))
        })
    });
    group.finish();
}

/// 10,000 dice settling on a floor (Mirtich Fig. 2.18, the sweep's bad case): their z extents
/// all overlap and jitter as they bounce by less than their size.
fn clustered_bench(c: &mut Criterion) {
    let n = 10_000;
    let mut rng = Pcg64::seed_from_u64(4);
    let centres: Vec<Vec3> = (0..n)
        .map(|_| {
            Vec3::new(
                rng.random_range(0.0..200.0),
                rng.random_range(0.0..200.0),
                0.5,
            )
        })
        .collect();
    let phases: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..6.3)).collect();
    let frames: Vec<Vec<Aabb>> = (0..64)
        .map(|frame| {
            (0..n)
                .map(|i| {
                    let bounce = 0.05 * (0.7 * frame as f64 + phases[i]).sin().abs();
                    let c = centres[i] + Vec3::new(0.0, 0.0, bounce);
                    Aabb {
                        min: Point::from(c - Vec3::repeat(0.5)),
                        max: Point::from(c + Vec3::repeat(0.5)),
                    }
                })
                .collect()
        })
        .collect();
    compare_broad_phases(c, "broad_phase_10000_dice_on_a_floor", &frames);
}

fn broad_phase_bench(c: &mut Criterion) {
    // 10,000 boxes of sizes 0.1–1 in a 100-unit cube, moving 1% of their size per frame.
    let n = 10_000;
    let mut rng = Pcg64::seed_from_u64(3);
    let centres: Vec<Vec3> = (0..n)
        .map(|_| {
            Vec3::new(
                rng.random_range(0.0..100.0),
                rng.random_range(0.0..100.0),
                rng.random_range(0.0..100.0),
            )
        })
        .collect();
    let halves: Vec<f64> = (0..n).map(|_| rng.random_range(0.05..0.5)).collect();
    let velocities: Vec<Vec3> = (0..n)
        .map(|i| {
            Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            ) * halves[i]
                * 0.02
        })
        .collect();
    let boxes_at = |frame: usize| -> Vec<Aabb> {
        (0..n)
            .map(|i| {
                let c = centres[i] + velocities[i] * frame as f64;
                Aabb {
                    min: Point::from(c - Vec3::repeat(halves[i])),
                    max: Point::from(c + Vec3::repeat(halves[i])),
                }
            })
            .collect()
    };
    let frames: Vec<Vec<Aabb>> = (0..64).map(boxes_at).collect();
    compare_broad_phases(c, "broad_phase_10000_moving_boxes", &frames);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .measurement_time(std::time::Duration::from_secs(3))
        .warm_up_time(std::time::Duration::from_secs(1));
    targets = closest_features_bench, coin_rims_bench, broad_phase_bench, clustered_bench
}
criterion_main!(benches);
