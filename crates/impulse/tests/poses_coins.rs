//! Thick coins dropped by `impulse::poses` (issue 37): the coins of the two aspect ratios of the
//! published three-sided-coin work (`meshes/parts/coin_root8*.obj`, `coin_root3*.obj`) against
//! the non-bouncing closed form of Yong & Mahadevan, and what faceting does to a coin that
//! bounces. The published measurements themselves, and why no test compares with them, are in
//! `docs/poses.md` ("Thick coins: published data").

use std::path::PathBuf;

use impulse::poses::*;

fn shipped(name: &str) -> Part {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../meshes/parts")
        .join(format!("{name}.obj"));
    Part::from_mesh_file(&path).expect("shipped part loads")
}

/// Uniform-orientation drops of `part` with `physics`, on all cores (the result does not
/// depend on their number).
fn drops(part: &Part, trials: usize, physics: DropPhysics) -> DropResults {
    let job = DropJob {
        protocol: Protocol::Uniform,
        trials,
        seed: 7,
        physics,
        ..DropJob::default()
    };
    run_drops(part, &job, Shard::WHOLE, &|| {}).expect("drops run")
}

/// (drops that ended on a side face, drops at rest, drops still moving). A side face's normal
/// is perpendicular to the coin's axis (z); the caps' are along it.
fn sides(part: &Part, results: &DropResults) -> (usize, usize, usize) {
    let (counts, moving, failed) = results.counts(part.faces().len());
    assert_eq!(failed, 0, "a drop stopped with an error");
    let at_rest: usize = counts.iter().sum();
    let side: usize = part
        .faces()
        .iter()
        .zip(&counts)
        .filter(|(f, _)| f.normal.z.abs() < 0.5)
        .map(|(_, c)| c)
        .sum();
    (side, at_rest, moving)
}

/// A coin of thickness h and diameter d that lands without bouncing, the centre of mass
/// deciding the face, ends on its side with probability h/√(h² + d²) (the side band's solid
/// angle from the centre): Yong & Mahadevan, Am. J. Phys. 79, 1195 (2011), arXiv:1008.4559,
/// their non-bouncing limit, whose fair ratio h/d = 1/√8 gives 1/3. (Checked here against the
/// closed form, not against their tosses: their measured table is not in the stored copies of
/// the paper, see docs/poses.md.)
fn side_solid_angle(h_over_d: f64) -> f64 {
    h_over_d / (1.0 + h_over_d * h_over_d).sqrt()
}

#[test]
fn coins_released_without_bouncing_land_on_their_side_as_the_solid_angle_says() {
    // Released touching the table, at rest, with no restitution, from uniform orientations:
    // the non-bouncing toss of Yong & Mahadevan. 2000 drops of each 64-sided coin; the side
    // count's 99 % Wilson interval must hold h/√(h² + d²): 1/3 for h/d = 1/√8, 1/2 for
    // h/d = 1/√3 (measured: 645 and 1003 of 2000). The 64-sided prisms' own quasi-static side
    // shares are 0.3336 and 0.5003; faceting does not matter here (docs/poses.md).
    let physics = DropPhysics {
        height: 0.0,
        speed: 0.0,
        restitution: 0.0,
        ..DropPhysics::default()
    };
    for (name, h_over_d) in [
        ("coin_root8", 1.0 / 8f64.sqrt()),
        ("coin_root3", 1.0 / 3f64.sqrt()),
    ] {
        let part = shipped(name);
        let (side, n, moving) = sides(&part, &drops(&part, 2000, physics.clone()));
        assert_eq!(moving, 0, "{name}: a 64-sided coin released at rest stops");
        let expected = side_solid_angle(h_over_d);
        let (lo, hi) = wilson_interval(side, n, 0.99);
        assert!(
            lo < expected && expected < hi,
            "{name}: {side} of {n} on the side against {expected}"
        );
    }
}

#[test]
fn a_coarsely_faceted_coin_that_bounces_is_caught_on_its_side() {
    // A 64-sided prism cannot roll: a coin that lands on its rim with some speed is stopped by
    // the corners between its side faces and stays up, where a round coin rolls on and falls.
    // Dropped 30 cm with e = 0.5 (μ = 0.3), 600 drops each: the 64-sided √8-coin ends on its
    // side in about a quarter of the drops (measured 148 of 600), the 256-sided one in about a
    // tenth (53 at rest on the side and 7 still rolling at the time limit). Counting every coin
    // still moving as on its side, the fine coin's 99 % Wilson interval lies below the coarse
    // one's: faceting, not chance, makes the difference, and 64 sides are too few for a coin
    // that bounces (docs/poses.md: at this drop 256 sides are still too few for the √8-coin,
    // 512 and 1024 agree; the rolling coins stop on their side given time).
    let physics = DropPhysics {
        height: 30.0,
        restitution: 0.5,
        ..DropPhysics::default()
    };
    let coarse = shipped("coin_root8");
    let (coarse_side, coarse_n, coarse_moving) =
        sides(&coarse, &drops(&coarse, 600, physics.clone()));
    assert_eq!(coarse_moving, 0, "a 64-sided coin stops");
    let fine = shipped("coin_root8_256");
    let (fine_side, fine_n, fine_moving) = sides(&fine, &drops(&fine, 600, physics));
    // A fine coin rolling on a table without rolling resistance may still be moving at the
    // time limit; they must stay few for the comparison to mean anything.
    assert!(fine_moving <= 30, "{fine_moving} of 600 still moving");
    let (coarse_lo, _) = wilson_interval(coarse_side, coarse_n, 0.99);
    let (_, fine_hi) = wilson_interval(fine_side + fine_moving, fine_n + fine_moving, 0.99);
    assert!(
        fine_hi < coarse_lo,
        "64 sides: {coarse_side} of {coarse_n}; 256 sides: {fine_side} of {fine_n}, \
         {fine_moving} moving"
    );
}

#[test]
fn the_coins_quasi_static_side_share_is_the_cylinders() {
    // Eq. 7.1 for the faceted coins against the cylinder's h/√(h² + d²): a prism of n sides
    // inscribed in the circle differs by O(1/n²) (64 sides: 0.3336 against 1/3, 0.5003 against
    // 1/2), within 1e-3 for every shipped √-coin; every face is stable and the shares sum to 1.
    for (name, h_over_d) in [
        ("coin_root8", 1.0 / 8f64.sqrt()),
        ("coin_root8_256", 1.0 / 8f64.sqrt()),
        ("coin_root8_1024", 1.0 / 8f64.sqrt()),
        ("coin_root3", 1.0 / 3f64.sqrt()),
        ("coin_root3_256", 1.0 / 3f64.sqrt()),
        ("coin_root3_1024", 1.0 / 3f64.sqrt()),
    ] {
        let part = shipped(name);
        let qs = QuasiStatic::of(&part);
        assert!((0..part.faces().len()).all(|f| qs.is_stable(f)), "{name}");
        assert!(
            (qs.probability.iter().sum::<f64>() - 1.0).abs() < 1e-12,
            "{name}"
        );
        let side: f64 = part
            .faces()
            .iter()
            .zip(&qs.probability)
            .filter(|(f, _)| f.normal.z.abs() < 0.5)
            .map(|(_, p)| p)
            .sum();
        let expected = side_solid_angle(h_over_d);
        assert!(
            (side - expected).abs() < 1e-3,
            "{name}: {side} against {expected}"
        );
    }
}
