//! Same-instant cascades of single responses: the extrapolation of a slowly converging wedge.
//!
//! One contact at a time, an impulse elsewhere on a body can make a neighbouring contact
//! approach, and the responses at one instant become a Gauss–Seidel sweep over the contacts
//! of a cluster (the thesis's loop, §3.5). Round a frictional wedge that sweep converges
//! slowly, by a constant ratio a round; [`extrapolate`] takes the rest of its geometric series
//! at once.

/// Largest factor by which a settled sweep's response is extrapolated (ρ ≤ 0.999).
const MAX_EXTRAPOLATION: f64 = 1000.0;

/// A pair's normal impulses in a settled sweep at one instant: the last, and its ratio to the
/// one before.
#[derive(Clone, Copy, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct WedgeSeries {
    last: f64,
    ratio: f64,
}

/// Aitken's Δ² on a pair's sweep: given its sweep so far and its new response's normal impulse,
/// the factor to apply to that response and the sweep to keep (`None` once extrapolated: the
/// series is taken whole, and a later round starts afresh). When the ratio of successive
/// impulses repeats (to 0.1 %), the factor is the geometric tail `1/(1 − ρ)`, so that this
/// response stands for itself and every later one of the series.
pub(crate) fn extrapolate(sweep: Option<WedgeSeries>, normal: f64) -> (f64, Option<WedgeSeries>) {
    let Some(sweep) = sweep else {
        return (
            1.0,
            Some(WedgeSeries {
                last: normal,
                ratio: f64::NAN,
            }),
        );
    };
    let ratio = normal / sweep.last;
    if ratio > 0.0 && ratio < 1.0 && (ratio - sweep.ratio).abs() < 1e-3 * ratio {
        ((1.0 / (1.0 - ratio)).min(MAX_EXTRAPOLATION), None)
    } else {
        (
            1.0,
            Some(WedgeSeries {
                last: normal,
                ratio,
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrapolating_a_geometric_sweep_takes_its_whole_sum() {
        // Impulses 1, 0.9, 0.81, …: the third repeats the ratio 0.9 and stands for the rest,
        // 0.81 / (1 − 0.9) = 8.1, so the total is the series' sum 1 / (1 − 0.9) = 10.
        let (f1, s1) = extrapolate(None, 1.0);
        let (f2, s2) = extrapolate(s1, 0.9);
        let (f3, s3) = extrapolate(s2, 0.81);
        assert_eq!((f1, f2), (1.0, 1.0));
        assert!(s3.is_none());
        assert!((1.0 + 0.9 + 0.81 * f3 - 10.0).abs() < 1e-12);
        // Not geometric: no extrapolation.
        let (f, s) = extrapolate(
            Some(WedgeSeries {
                last: 1.0,
                ratio: 0.5,
            }),
            0.9,
        );
        assert_eq!(f, 1.0);
        assert!(s.is_some());
        // Growing or sign-changing impulses are never extrapolated.
        assert_eq!(
            extrapolate(
                Some(WedgeSeries {
                    last: 1.0,
                    ratio: 2.0
                }),
                2.0
            )
            .0,
            1.0
        );
        assert_eq!(
            extrapolate(
                Some(WedgeSeries {
                    last: 1.0,
                    ratio: -0.5
                }),
                -0.5
            )
            .0,
            1.0
        );
    }

    #[test]
    fn an_extrapolated_two_contact_sweep_reaches_the_simultaneous_solution() {
        // A wedge: two contacts approaching at a, where an impulse at one drives the body into
        // the other at c per unit (c near 1 when friction feeds the wedge). The simultaneous
        // inelastic impulses solve λ₁ − c λ₂ = a₁, λ₂ − c λ₁ = a₂. Gauss–Seidel answers one
        // contact at a time and its impulses shrink by c² a round: ~4000 rounds to 1e-9 here.
        // With the extrapolation the sweep ends in a few rounds at the same impulses.
        let c: f64 = 0.995;
        let a = [0.3, 0.2];
        let exact = [
            (a[0] + c * a[1]) / (1.0 - c * c),
            (a[1] + c * a[0]) / (1.0 - c * c),
        ];
        let mut lambda = [0.0; 2];
        let mut sweeps = [None, None];
        let mut responses = 0;
        loop {
            let mut moved = false;
            for i in 0..2 {
                let j = 1 - i;
                let approach = a[i] - lambda[i] + c * lambda[j];
                if approach <= 1e-12 * exact[i] {
                    continue;
                }
                let (factor, sweep) = extrapolate(sweeps[i], approach);
                sweeps[i] = sweep;
                lambda[i] += approach * factor;
                responses += 1;
                moved = true;
            }
            if !moved || responses > 10_000 {
                break;
            }
        }
        assert!(responses < 20, "{responses} responses");
        for i in 0..2 {
            assert!(
                (lambda[i] - exact[i]).abs() < 1e-9 * exact[i],
                "{lambda:?} vs {exact:?}"
            );
        }
    }
}
