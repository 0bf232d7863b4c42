//! The broad phase of an assembly among solids (issue 36): sweep and prune over boxes around
//! the solids leaves out only pairs the narrow phase would have found apart, so a run with it is
//! the same run, bit for bit, with fewer narrow-phase queries.

use impulse::assembly::solids::AssemblyWithSolids;

fn box_kicker() -> AssemblyWithSolids {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes/assembly/box_kicker.toml");
    impulse::assembly::scene::load(&path)
        .unwrap()
        .with_solids()
        .unwrap()
}

/// Every body's state as exact bits, and every contact answered.
fn fingerprint(sim: &AssemblyWithSolids) -> (Vec<u64>, String) {
    let mut bits = Vec::new();
    for b in sim.assembly.bodies() {
        let pose = b.pose();
        let numbers = pose
            .translation
            .vector
            .iter()
            .chain(pose.rotation.coords.iter())
            .chain(b.velocity().iter())
            .chain(b.angular_velocity().iter())
            .copied()
            .collect::<Vec<f64>>();
        bits.extend(numbers.iter().map(|x| x.to_bits()));
    }
    (bits, format!("{:?}", sim.hits))
}

/// The shipped box kicker over its whole 2.5 s with and without the broad phase: the same
/// states (bit for bit) and the same contacts (every field), and fewer narrow-phase queries
/// with it.
#[test]
fn the_box_kicker_runs_the_same_with_and_without_the_broad_phase() {
    let mut with = box_kicker();
    let mut without = box_kicker();
    without.broad_phase = false;
    for k in 1..=25 {
        let t = k as f64 * 0.1;
        with.advance_to(t).unwrap();
        without.advance_to(t).unwrap();
        assert_eq!(
            fingerprint(&with),
            fingerprint(&without),
            "differ by t = {t}"
        );
    }
    println!(
        "{} contacts; narrow-phase queries {} with the broad phase, {} without",
        with.hits.len(),
        with.narrow_queries(),
        without.narrow_queries()
    );
    assert!(with.narrow_queries() < without.narrow_queries());
}
