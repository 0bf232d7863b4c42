//! The pile scenes of `shared/peer-scenes.md` (a: ball pit, g: pyramid, h: ten-cube stack,
//! and the deep pits of N balls or cubes for the scaling curve), as body centres that both
//! engines of `benches/piles.rs` are built from, the measures read from the final centres, and
//! the least-squares exponent of a cost against a size.

/// Ball radius and cube side in every pile scene (m).
pub const BALL_RADIUS: f64 = 0.05;
/// Side of every cube (m).
pub const CUBE_SIDE: f64 = 0.1;
/// The pit's interior is `x, y ∈ [−PIT_HALF, PIT_HALF]` (m).
pub const PIT_HALF: f64 = 0.5;
/// Thickness and height of the pit's walls (m).
pub const PIT_WALL: (f64, f64) = (0.1, 3.0);

/// Centres of the pit's first `n` bodies: 9 × 9 per layer, pitch 0.105 m, layer `k` at
/// z = 0.1 + 0.105 k, shifted by (0.02 s, 0.01 s) with s = +1 on odd layers and −1 on even
/// ones (peer scene a); body `n` is layer `n / 81`, row `i = (n % 81) / 9`, column `j = n % 9`.
/// The same grid holds the 0.1 m cubes of the cube pits (5 mm apart).
pub fn pit_centres(n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|b| {
            let (k, i, j) = (b / 81, (b % 81) / 9, b % 9);
            let s = if k % 2 == 1 { 1.0 } else { -1.0 };
            [
                -0.42 + 0.105 * i as f64 + 0.02 * s,
                -0.42 + 0.105 * j as f64 + 0.01 * s,
                0.1 + 0.105 * k as f64,
            ]
        })
        .collect()
}

/// Centres of a pyramid of 0.1 m cubes on a base of `base`: row k has `base − k` cubes at
/// x = (j − (base − k − 1)/2) · 0.101, z = 0.05 + 0.1 k (peer scene g, base 20: 210 cubes),
/// row by row from the bottom, so the last is the top cube.
pub fn pyramid_centres(base: usize) -> Vec<[f64; 3]> {
    let mut centres = Vec::new();
    for k in 0..base {
        let row = base - k;
        for j in 0..row {
            let x = (j as f64 - (row as f64 - 1.0) / 2.0) * 0.101;
            centres.push([x, 0.0, 0.05 + 0.1 * k as f64]);
        }
    }
    centres
}

/// Centres of `count` 0.1 m cubes stacked exactly touching on the ground, z = 0.05 + 0.1 k
/// (peer scene h with ten), bottom first.
pub fn stack_centres(count: usize) -> Vec<[f64; 3]> {
    (0..count)
        .map(|k| [0.0, 0.0, 0.05 + 0.1 * k as f64])
        .collect()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// How many ball centres are inside the pit: within its interior in x and y, above the ground.
pub fn balls_inside_pit(centres: &[[f64; 3]]) -> usize {
    centres
        .iter()
        .filter(|c| c[0].abs() < PIT_HALF && c[1].abs() < PIT_HALF && c[2] > 0.0)
        .count()
}

/// The deepest overlap of balls of `BALL_RADIUS` with each other, the ground (z = 0) and the
/// pit's walls (|x|, |y| = `PIT_HALF`); 0 where nothing overlaps. All pairs: O(n²).
pub fn deepest_ball_penetration(centres: &[[f64; 3]]) -> f64 {
    let r = BALL_RADIUS;
    let mut deepest = 0.0f64;
    for (a, &c) in centres.iter().enumerate() {
        deepest = deepest
            .max(r - c[2])
            .max(r - (PIT_HALF - c[0].abs()))
            .max(r - (PIT_HALF - c[1].abs()));
        for &d in &centres[a + 1..] {
            deepest = deepest.max(2.0 * r - distance(c, d));
        }
    }
    deepest
}

/// The largest distance any body's centre ended from where it started.
pub fn largest_displacement(start: &[[f64; 3]], end: &[[f64; 3]]) -> f64 {
    start
        .iter()
        .zip(end)
        .map(|(&a, &b)| distance(a, b))
        .fold(0.0, f64::max)
}

/// The exponent p of the least-squares fit `cost = c · size^p` to `(size, cost)` points: the
/// slope of the line through `(ln size, ln cost)`. NaN with fewer than two distinct sizes.
pub fn exponent(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points.iter().map(|&(n, t)| (n.ln(), t.ln())).collect();
    let m = logs.len() as f64;
    let (sx, sy) = logs
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / m, sy / m);
    let num: f64 = logs.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = logs.iter().map(|&(x, _)| (x - mx) * (x - mx)).sum();
    num / den
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exact power law c · N^1.5 over the bench's N series fits 1.5 (to rounding: 1e-12).
    #[test]
    fn exponent_of_an_exact_power_law() {
        let points: Vec<(f64, f64)> = [25.0, 50.0, 100.0, 200.0, 400.0, 800.0]
            .iter()
            .map(|&n: &f64| (n, 3.7e-4 * n.powf(1.5)))
            .collect();
        assert!((exponent(&points) - 1.5).abs() < 1e-12);
        // N^2 through ln N = 0, L, 2L with the middle cost 10 % high: that point sits at the
        // mean of ln N, so it weighs nothing in the slope Σ(x − x̄)(y − ȳ)/Σ(x − x̄)², which
        // stays (4L² − 0)/(2L²) = 2.
        let noisy = [(1.0, 1.0), (2.0, 4.0 * 1.1), (4.0, 16.0)];
        assert!((exponent(&noisy) - 2.0).abs() < 1e-12);
        assert!(exponent(&[(10.0, 1.0)]).is_nan());
    }

    /// Peer scene a: 500 balls; the first at layer 0 (s = −1): (−0.44, −0.43, 0.1); the last
    /// (499 = 6 · 81 + 13: layer 6, s = −1, row 1, column 4): (−0.335, −0.01, 0.73); one on an
    /// odd layer (81: layer 1, s = +1, row 0, column 0): (−0.40, −0.41, 0.205). Hand
    /// arithmetic from the formulas, to 1e-12 m.
    #[test]
    fn pit_grid_follows_peer_scene_a() {
        let c = pit_centres(500);
        assert_eq!(c.len(), 500);
        let near = |a: [f64; 3], b: [f64; 3]| distance(a, b) < 1e-12;
        assert!(near(c[0], [-0.44, -0.43, 0.1]));
        assert!(near(c[499], [-0.335, -0.01, 0.73]));
        assert!(near(c[81], [-0.40, -0.41, 0.205]));
        // Every ball starts inside, clear of the walls, the ground and each other.
        assert_eq!(balls_inside_pit(&c), 500);
        assert_eq!(deepest_ball_penetration(&c), 0.0);
        // Fewest gap: 0.105 − 0.1 between neighbours in a layer, and 0.06 − 0.05 = 0.01 to
        // a wall (|x| ≤ 0.44).
        let largest_x = c.iter().map(|c| c[0].abs()).fold(0.0, f64::max);
        assert!((largest_x - 0.44).abs() < 1e-12);
    }

    /// Peer scene g: base 20 gives 20 + 19 + … + 1 = 210 cubes; the bottom row from
    /// x = −9.5 · 0.101 = −0.9595 m, the top cube at x = 0, z = 0.05 + 0.1 · 19 = 1.95 m.
    #[test]
    fn pyramid_follows_peer_scene_g() {
        let c = pyramid_centres(20);
        assert_eq!(c.len(), 210);
        assert!((c[0][0] + 0.9595).abs() < 1e-12 && (c[0][2] - 0.05).abs() < 1e-12);
        assert!((c[19][0] - 0.9595).abs() < 1e-12);
        let top = c[209];
        assert!(top[0].abs() < 1e-12 && (top[2] - 1.95).abs() < 1e-12);
        // Neighbours in a row are 1 mm apart: x differs by 0.101.
        assert!((c[1][0] - c[0][0] - 0.101).abs() < 1e-12);
        assert_eq!(largest_displacement(&c, &c), 0.0);
    }

    /// Peer scene h: ten cubes, the top at 0.05 + 0.9 = 0.95 m, each touching the one below.
    #[test]
    fn stack_follows_peer_scene_h() {
        let c = stack_centres(10);
        assert_eq!(c.len(), 10);
        assert!((c[9][2] - 0.95).abs() < 1e-12);
        for pair in c.windows(2) {
            assert!((pair[1][2] - pair[0][2] - CUBE_SIDE).abs() < 1e-12);
        }
    }

    /// Two balls 0.09 m apart overlap 0.01; a ball at z = 0.04 sinks 0.01 into the ground;
    /// one at x = 0.47 reaches 0.02 into the wall; the deepest of these is read.
    #[test]
    fn penetration_reads_pairs_ground_and_walls() {
        let pair = [[0.0, 0.0, 0.2], [0.09, 0.0, 0.2]];
        assert!((deepest_ball_penetration(&pair) - 0.01).abs() < 1e-12);
        assert!((deepest_ball_penetration(&[[0.0, 0.0, 0.04]]) - 0.01).abs() < 1e-12);
        assert!((deepest_ball_penetration(&[[0.47, 0.0, 0.2]]) - 0.02).abs() < 1e-12);
        assert_eq!(balls_inside_pit(&[[0.6, 0.0, 0.2], [0.0, 0.0, 0.2]]), 1);
    }
}
