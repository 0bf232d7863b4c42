//! Assemblies (Kalra): wall time of the paper's three mechanisms against its §6.4 table (HP 730
//! workstation), and the cost of one step against the number of bodies in a chain.
//!
//! `cargo bench -p impulse --bench assembly` prints both tables.

use std::path::PathBuf;
use std::time::Instant;

use impulse::assembly::{Assembly, AssemblyBodyDesc, AssemblySettings, JointDesc, Primitive};
use impulse::math::{Quat, Vec3};

fn scene(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes/assembly")
        .join(name)
}

/// A hanging chain of `n` rods (1 kg, 0.2 m) on ball joints, nailed at one end, released
/// horizontal.
fn chain(n: usize) -> Assembly {
    let l = 0.2;
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    for i in 0..n {
        let from = Vec3::new(i as f64 * l, 0.0, 0.0);
        let mut body = AssemblyBodyDesc::new(
            format!("link{i}"),
            1.0,
            Vec3::new(1e-4, l * l / 12.0, l * l / 12.0),
            from + Vec3::new(l / 2.0, 0.0, 0.0),
        );
        body.orientation = Quat::identity();
        bodies.push(body);
        joints.push(JointDesc {
            name: format!("j{i}"),
            a: i,
            b: i.checked_sub(1),
            primitive: if i == 0 {
                Primitive::FixedPoint { point: from }
            } else {
                Primitive::Spherical { anchor: from }
            },
        });
    }
    Assembly::new(AssemblySettings::default(), bodies, joints).expect("a valid chain")
}

fn main() {
    println!(
        "Kalra §6.4 mechanisms (paper: HP 730, 76 MIPS; here: one core, RK4 at 1 ms with projection)"
    );
    println!(
        "{:<8} {:>6} {:>6} {:>10} {:>12} {:>12} {:>10}",
        "scene", "ODEs", "rows", "simulated", "paper wall", "wall", "speed-up"
    );
    for (file, paper) in [
        ("chain.toml", 166.7),
        ("slider.toml", 63.6),
        ("crank.toml", 234.6),
    ] {
        let mut s = impulse::assembly::scene::load(&scene(file)).expect("the shipped scene loads");
        let start = Instant::now();
        s.assembly
            .advance_to(s.duration)
            .expect("the shipped scene runs");
        let wall = start.elapsed().as_secs_f64();
        println!(
            "{:<8} {:>6} {:>6} {:>9} s {:>10} s {:>10.3} s {:>9.0}×",
            file.trim_end_matches(".toml"),
            s.assembly.ode_count(),
            s.assembly.row_count(),
            s.duration,
            paper,
            wall,
            paper / wall
        );
    }
    println!();
    println!("Cost per step against the number of bodies in a chain (ball joints, 200 steps each)");
    println!(
        "{:>7} {:>6} {:>12} {:>16}",
        "bodies", "rows", "µs / step", "µs / step / body"
    );
    for n in [5, 10, 20, 40, 80, 160, 320] {
        let mut a = chain(n);
        let steps = 200;
        let start = Instant::now();
        a.advance_to(steps as f64 * 1e-3).expect("the chain runs");
        let per_step = start.elapsed().as_secs_f64() / steps as f64 * 1e6;
        println!(
            "{:>7} {:>6} {:>12.1} {:>16.2}",
            n,
            a.row_count(),
            per_step,
            per_step / n as f64
        );
    }
}
