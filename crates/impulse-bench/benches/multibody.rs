//! Multibody forward dynamics: impulse's articulated-body algorithm against rapier's reduced-
//! coordinate multibodies (`MultibodyJointSet`), on hanging chains of 10, 30 and 100 revolute
//! links.
//!
//! Run with `cargo bench -p impulse-bench --bench multibody`. Figures are printed, not asserted.
//!
//! What is compared: one ABA evaluation (`impulse/aba`) is one derivative of the equations of
//! motion, O(n); one adaptive Dormand–Prince step (`impulse/integrator_step`) costs about six.
//! rapier exposes no forward-dynamics call of its own, so `rapier/step` times one
//! `PhysicsPipeline::step` of the same chain with no colliders: its multibody dynamics (the
//! joint-space mass matrix and its LU factorisation, O(n²)–O(n³)) plus its solver and
//! integration. The ratio printed at the end is rapier step time / ABA evaluation time.

mod common;
#[path = "common/rapier_world.rs"]
mod rapier_world;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use impulse::integrate::{AdaptiveRk, Tolerance};
use impulse::math::{Pose, Quat, Vec3, pose};
use impulse::multibody::{AppliedForces, Joint, JointKind, Link, MultibodyOde, Tree, Workspace};
use rapier_world::RapierWorld;
use rapier3d_f64::prelude::*;

const LINK_LENGTH: f64 = 0.1;
const LINK_MASS: f64 = 0.2;
const SIZES: [usize; 3] = [10, 30, 100];

/// A chain of `n` rods hanging from a revolute joint each (axis y), COM half a link below the
/// joint.
fn impulse_chain(n: usize) -> Tree {
    let half = LINK_LENGTH / 2.0;
    let moments = Vec3::new(
        LINK_MASS * LINK_LENGTH * LINK_LENGTH / 12.0,
        LINK_MASS * LINK_LENGTH * LINK_LENGTH / 12.0,
        1e-4,
    );
    let links = (0..n)
        .map(|i| {
            let predecessor = if i == 0 {
                Pose::identity()
            } else {
                pose(Vec3::new(0.0, 0.0, -half), Quat::identity())
            };
            // Joint axes along y: rotate the joint frame's z onto y.
            let to_y = Quat::from_axis_angle(&Vec3::x_axis(), -std::f64::consts::FRAC_PI_2);
            let joint = Joint::new(
                format!("j{i}"),
                JointKind::Revolute,
                predecessor * pose(Vec3::zeros(), to_y),
                pose(Vec3::new(0.0, 0.0, half), to_y),
            );
            Link::new(format!("l{i}"), i.checked_sub(1), joint, LINK_MASS, moments)
        })
        .collect();
    Tree::new(links).expect("a valid chain")
}

fn chain_state(tree: &Tree) -> (Vec<f64>, Vec<f64>) {
    let q = (0..tree.nq())
        .map(|i| 0.3 * ((i as f64) * 0.7).sin())
        .collect();
    let v = (0..tree.nv())
        .map(|i| 0.5 * ((i as f64) * 1.3).cos())
        .collect();
    (q, v)
}

/// The same chain in rapier: a fixed root body and `n` dynamic bodies joined by multibody
/// revolute joints.
fn rapier_chain(n: usize) -> RapierWorld {
    let mut world = RapierWorld::new(vector![0.0, 0.0, -9.81], IntegrationParameters::default());
    let mut parent = world.bodies.insert(RigidBodyBuilder::fixed());
    let inertia = LINK_MASS * LINK_LENGTH * LINK_LENGTH / 12.0;
    for i in 0..n {
        let body = RigidBodyBuilder::dynamic()
            .translation(vector![0.0, 0.0, -(i as f64 + 0.5) * LINK_LENGTH])
            .additional_mass_properties(MassProperties::new(
                point![0.0, 0.0, 0.0],
                LINK_MASS,
                vector![inertia, inertia, 1e-4],
            ))
            .angular_damping(0.0)
            .linear_damping(0.0)
            // A chain at rest falls asleep, and a sleeping chain's steps cost nothing:
            // keep it awake so that every step does the dynamics.
            .can_sleep(false);
        let child = world.bodies.insert(body);
        let anchor = if i == 0 { 0.0 } else { -LINK_LENGTH / 2.0 };
        let joint = RevoluteJointBuilder::new(Vector::y_axis())
            .local_anchor1(point![0.0, 0.0, anchor])
            .local_anchor2(point![0.0, 0.0, LINK_LENGTH / 2.0]);
        world.multibody_joints.insert(parent, child, joint, true);
        parent = child;
    }
    world
}

/// Mean time of `f` over enough calls to fill `budget`.
fn mean_time(budget: Duration, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < budget {
        for _ in 0..16 {
            f();
        }
        calls += 16;
    }
    start.elapsed().as_secs_f64() / calls as f64
}

fn multibody(c: &mut Criterion) {
    let gravity = Vec3::new(0.0, 0.0, -9.81);
    let mut group = c.benchmark_group("multibody");
    for n in SIZES {
        let tree = impulse_chain(n);
        let (q, v) = chain_state(&tree);
        let tau = vec![0.0; tree.nv()];
        let applied = AppliedForces::zero(tree.nv(), n);
        let mut ws = Workspace::new(n);
        let mut v_dot = vec![0.0; tree.nv()];
        group.bench_function(format!("impulse/aba/{n}_links"), |b| {
            b.iter(|| {
                tree.forward_dynamics(
                    black_box(&q),
                    black_box(&v),
                    &tau,
                    &applied,
                    &gravity,
                    &mut ws,
                    &mut v_dot,
                );
                black_box(&v_dot);
            })
        });
        let system = MultibodyOde::new(&tree, &applied, gravity);
        let mut y0 = q.clone();
        y0.extend_from_slice(&v);
        let start = AdaptiveRk::new(&system, 0.0, &y0, Tolerance::default()).expect("finite start");
        group.bench_function(format!("impulse/integrator_step/{n}_links"), |b| {
            b.iter_batched(
                || start.clone(),
                |mut rk| {
                    rk.step(&system).expect("a regular step");
                    rk
                },
                criterion::BatchSize::SmallInput,
            )
        });
        let mut rapier = rapier_chain(n);
        group.bench_function(format!("rapier/step/{n}_links"), |b| {
            b.iter(|| rapier.step())
        });
    }
    group.finish();

    // Summary: evaluations per second, time per link, and the rapier ratio.
    println!("\nmultibody summary (chains of revolute links, 0.5 s of timing each):");
    println!(
        "{:>6} {:>16} {:>14} {:>16} {:>12}",
        "links", "ABA evals/s", "ns per link", "rapier steps/s", "rapier/ABA"
    );
    for n in SIZES {
        let tree = impulse_chain(n);
        let (q, v) = chain_state(&tree);
        let tau = vec![0.0; tree.nv()];
        let applied = AppliedForces::zero(tree.nv(), n);
        let mut ws = Workspace::new(n);
        let mut v_dot = vec![0.0; tree.nv()];
        let aba = mean_time(Duration::from_millis(500), || {
            tree.forward_dynamics(
                black_box(&q),
                black_box(&v),
                &tau,
                &applied,
                &gravity,
                &mut ws,
                &mut v_dot,
            );
        });
        let mut rapier = rapier_chain(n);
        let step = mean_time(Duration::from_millis(500), || rapier.step());
        println!(
            "{n:>6} {:>16.0} {:>14.1} {:>16.0} {:>12.1}",
            1.0 / aba,
            aba * 1e9 / n as f64,
            1.0 / step,
            step / aba
        );
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = multibody
}
criterion_main!(benches);
