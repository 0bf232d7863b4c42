//! Square cuboidal dice dropped by `impulse::poses` against a published table of measured
//! landing frequencies (issue 37).
//!
//! **The data.** "97.16 Probability analysis for rolls of a square cuboidal die", *The
//! Mathematical Gazette* 97 (March 2013), U.S. Naval Academy (DTIC AD1016860), Table 1, which
//! it takes from an article of over 30 years before (its reference [1]): fifteen dice cut from
//! one steel bar, two opposite faces squares of side y and four rectangles y × x, each rolled N
//! times by students; p is the fraction of rolls that ended with a square face up. Read from
//! the stored transcription at studylib.net/doc/11118377. The rolls' surface, height and
//! throw are not stated there.
//!
//! **The protocol, fixed before any comparison was run.** A die with y = 2 cm (the thesis's
//! part scale; the steel dice's size is not given) and x = (x/y)·y, uniform density, dropped
//! by the engine's default protocol — the thesis's 12 cm, 5 cm/s, μ = e = 0.3 — from uniformly
//! random orientations (a rolled die's orientation when it first strikes is unrelated to how
//! it was held). Protocol A: no spin (the default). Protocol B: `--spin 20` rad/s about a
//! random axis (about three turns a second, a hand roll's order). Nothing was tuned after
//! seeing the comparison; what it showed is in `docs/poses.md` ("Square cuboidal dice").

use impulse::geometry::tessellate::box_mesh;
use impulse::math::Point;
use impulse::poses::*;

/// Table 1 of the Gazette note: (x/y, p, N).
const MEASURED: [(f64, f64, usize); 15] = [
    (0.47, 0.916, 332),
    (0.63, 0.738, 840),
    (0.75, 0.548, 799),
    (0.81, 0.496, 740),
    (0.93, 0.399, 516),
    (0.97, 0.385, 530),
    (1.16, 0.148, 1011),
    (1.23, 0.154, 532),
    (1.44, 0.052, 654),
    (1.55, 0.040, 606),
    (1.60, 0.017, 702),
    (1.71, 0.031, 609),
    (1.87, 0.009, 680),
    (2.12, 0.007, 275),
    (2.65, 0.006, 503),
];

/// Side of the square faces, cm.
const SQUARE: f64 = 2.0;

/// The die of ratio x/y: square faces normal to z.
fn die(ratio: f64) -> Part {
    let (y, x) = (SQUARE, SQUARE * ratio);
    let mesh = box_mesh(
        Point::new(-y / 2.0, -y / 2.0, -x / 2.0),
        Point::new(y / 2.0, y / 2.0, x / 2.0),
    );
    let mass = mesh.volume_integrals().mass_properties(7.85);
    Part::new(format!("die_{ratio}"), "test".into(), mesh, mass).expect("a die is a part")
}

/// Quasi-static share of the two square faces: each subtends Ω = 4 atan(ab / (h√(h² + a² +
/// b²))) from the centre (a rectangle of half-sides a, b at distance h; digest V16), so
/// p = 2Ω / 4π.
fn quasi_static_square(ratio: f64) -> f64 {
    let (a, h) = (SQUARE / 2.0, SQUARE * ratio / 2.0);
    let omega = 4.0 * (a * a / (h * (h * h + 2.0 * a * a).sqrt())).atan();
    2.0 * omega / (4.0 * std::f64::consts::PI)
}

/// (drops at rest on a square face, drops at rest) of `trials` uniform drops with `spin`.
fn drop_die(ratio: f64, trials: usize, spin: f64, seed: u64) -> (usize, usize) {
    let part = die(ratio);
    let mut job = DropJob {
        protocol: Protocol::Uniform,
        trials,
        seed,
        ..DropJob::default()
    };
    job.physics.spin = spin;
    let results = run_drops(&part, &job, Shard::WHOLE, &|| {}).expect("drops run");
    let (counts, moving, failed) = results.counts(part.faces().len());
    assert_eq!((moving, failed), (0, 0), "x/y = {ratio}");
    let square: usize = part
        .faces()
        .iter()
        .zip(&counts)
        .filter(|(f, _)| f.normal.z.abs() > 0.999)
        .map(|(_, c)| c)
        .sum();
    (square, counts.iter().sum())
}

/// One die's comparison: (simulated share, measured share, z of their difference).
fn compare(ratio: f64, p: f64, n: usize, spin: f64) -> (f64, f64, f64) {
    let (k, rested) = drop_die(ratio, n, spin, 3);
    let q = k as f64 / rested as f64;
    let se = (p * (1.0 - p) / n as f64 + q * (1.0 - q) / rested as f64).sqrt();
    (q, p, if se > 0.0 { (q - p) / se } else { 0.0 })
}

#[test]
fn square_cuboid_dice_against_the_measured_table() {
    // Protocol A (the defaults, no spin; fixed before the comparison, see the module
    // documentation), every die dropped as many times as it was rolled (N), seed 3. What the
    // comparison showed, asserted so that a change of the engine that moves it is noticed:
    // - the dynamic method follows the measured curve three times more closely than the
    //   quasi-static solid angle (mean |p − p_meas| over the 15 dice 0.043 against 0.131;
    //   asserted: below half of it);
    // - but it does NOT agree within the sampling error everywhere: 7 of the 15 dice lie
    //   within |z| < 3.29 (99.9 %, two-sided) of the measurement; the flat dice (x/y ≤ 0.63)
    //   land on a square face less often than measured (0.825 against 0.916, 0.630 against
    //   0.738) and the long ones (1.44 ≤ x/y ≤ 1.87) more often (0.100 against 0.017 at 1.60):
    //   the measured rolls favour the lower centre of mass more strongly than these drops do.
    //   Asserted: at least 6 dice within |z| < 3.29, and the sign of the difference on the
    //   flat and the long dice. Protocol B (20 rad/s of spin) gives 10 of 15 and 0.035; the
    //   table of both is in docs/poses.md ("Square cuboidal dice").
    let (mut dynamic, mut quasi_static) = (0.0, 0.0);
    let mut within = 0;
    for &(ratio, p, n) in &MEASURED {
        let (q, p, z) = compare(ratio, p, n, 0.0);
        dynamic += (q - p).abs() / MEASURED.len() as f64;
        quasi_static += (quasi_static_square(ratio) - p).abs() / MEASURED.len() as f64;
        if z.abs() < 3.29 {
            within += 1;
        }
        if ratio <= 0.63 {
            assert!(q < p, "x/y = {ratio}: {q} against {p}");
        }
        if (1.44..=1.87).contains(&ratio) {
            assert!(q > p, "x/y = {ratio}: {q} against {p}");
        }
    }
    assert!(
        dynamic < 0.5 * quasi_static,
        "dynamic {dynamic}, quasi-static {quasi_static}"
    );
    assert!(within >= 6, "{within} of 15 within 99.9 %");
}

/// The comparison at the measured N of every die, under both protocols, printed as a table:
/// `cargo test -p impulse --test poses_dice -- --ignored --nocapture` (about 10 000 drops a
/// protocol).
#[test]
#[ignore = "prints the full table (about 10 000 drops a protocol); the checked comparison is the test above"]
fn print_the_square_cuboid_table() {
    for (name, spin) in [("A (no spin)", 0.0), ("B (20 rad/s)", 20.0)] {
        println!("protocol {name}");
        println!(
            "{:>5} {:>7} {:>5} {:>17} {:>7} {:>17} {:>6} {:>7}",
            "x/y", "p meas", "N", "95% (Wilson)", "p sim", "95% (Wilson)", "z", "QS"
        );
        let (mut e_sim, mut e_qs, mut weight) = (0.0, 0.0, 0.0);
        for &(ratio, p, n) in &MEASURED {
            let (k, rested) = drop_die(ratio, n, spin, 3);
            let q = k as f64 / rested as f64;
            let measured = (p * n as f64).round() as usize;
            let (ml, mh) = wilson_interval(measured, n, 0.95);
            let (sl, sh) = wilson_interval(k, rested, 0.95);
            let se = (p * (1.0 - p) / n as f64 + q * (1.0 - q) / rested as f64).sqrt();
            let z = if se > 0.0 { (q - p) / se } else { 0.0 };
            let qs = quasi_static_square(ratio);
            e_sim += (q - p).abs();
            e_qs += (qs - p).abs();
            weight += 1.0;
            println!(
                "{ratio:>5.2} {p:>7.3} {n:>5} {ml:>8.3}–{mh:<8.3} {q:>7.3} {sl:>8.3}–{sh:<8.3} {z:>6.2} {qs:>7.3}"
            );
        }
        println!(
            "mean |p sim − p meas| {:.4}, mean |p QS − p meas| {:.4}",
            e_sim / weight,
            e_qs / weight
        );
    }
}
