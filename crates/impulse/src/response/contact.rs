//! Responding to one contact: the collision matrix, microcollisions, and the impulse.

use super::integration::{Options, Outcome, RestitutionLaw, integrate, integrate_with};
use crate::math::{Mat3, Vec3, cross_matrix};

/// One body's share of the collision matrix at a contact point `r` from its centre of mass
/// (world frame): `(1/m) 𝟙 − r̃ I⁻¹ r̃` (Mirtich eq. 3.4). Fixed and kinematic bodies give zero.
pub fn body_collision_matrix(inverse_mass: f64, inverse_inertia: &Mat3, r: &Vec3) -> Mat3 {
    let r_cross = cross_matrix(r);
    Mat3::identity() * inverse_mass - r_cross * inverse_inertia * r_cross
}

/// How collisions near rest are handled (Mirtich §3.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Microcollisions {
    /// Approach speeds below this are microcollisions: `√(2 g ε)` (eq. 3.18), the speed gained
    /// by falling through the collision envelope.
    pub threshold_speed: f64,
    /// The collision envelope ε.
    pub epsilon: f64,
    /// Restitution reached at the bottom of the envelope (the thesis uses 5).
    pub max_restitution: f64,
    /// Least normal speed a microcollision leaves the contact separating at (0 for the
    /// thesis's pure reversal and plain boosted restitution). See [`respond`].
    pub rebound_speed: f64,
    /// What the contact's next hop will do to its slip, where it is known; `None` keeps the
    /// thesis's reversal of the tangential velocity. See [`settled_slip`].
    pub settling: Option<Settling>,
}

/// What a microcollision needs to leave a slip that averages zero over the hop after it (see
/// [`settled_slip`]). Both in the collision frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settling {
    /// The contact's relative acceleration in free flight: body a's less body b's, so that
    /// `z < 0` pulls them together.
    pub pull: Vec3,
    /// The relative velocity of the two touching surface points. The impulse's point lies
    /// midway between them, up to ε apart, where a rolling ball's spin shows as slip.
    pub surface_velocity: Vec3,
}

/// What kind of impulse a contact received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub enum ResponseKind {
    /// An ordinary frictional collision.
    Collision,
    /// A microcollision answered by reversing the relative velocity (zero work, Corollary 1),
    /// its normal part raised to the rebound speed if slower.
    Reversal,
    /// A microcollision answered by reversing the normal velocity and the largest fraction of
    /// the tangential one that friction allows.
    PartialReversal,
    /// A microcollision answered by a collision with boosted restitution.
    Boosted,
    /// A microcollision answered together with the other contacts of its cluster
    /// (`contact::gauss_seidel`).
    Simultaneous,
    /// Under constraint-based contact, an impulse along the ray Lemke's algorithm ended on: the
    /// held contacts had no valid forces (Baraff ch. 13, the inconsistent rod).
    Ray,
}

/// The velocity a resting contact is to leave with (collision frame): separating at
/// `separation`, and against the pull of gravity along the contact plane so that it comes back
/// where it left. Relative to its support a body leaving with `u` is at `u τ + ½ a τ²` after
/// `τ` (`a` the relative gravity); with `u_z = s` it returns to the plane at `τ = 2 s / g_n`
/// (`g_n = −a_z`, pressing it on), and `u_t = −a_t s / g_n` brings its tangential drift back
/// to zero there. Friction supplies it while it can (`|a_t| / g_n = tan θ ≤ μ` on a slope of
/// angle θ: static friction's own condition). Nothing when gravity does not press the contact.
pub(crate) fn drift_target(relative_gravity: &Vec3, separation: f64) -> Vec3 {
    let pressing = -relative_gravity.z;
    if pressing > 0.0 {
        let back = -separation / pressing;
        Vec3::new(
            relative_gravity.x * back,
            relative_gravity.y * back,
            separation,
        )
    } else {
        Vec3::new(0.0, 0.0, separation)
    }
}

/// The microcollision that reverses the normal velocity and leaves the tangential velocity
/// `slip` (`−u₀,t`: the thesis's reversal, `p = −2 K⁻¹ u₀`, zero work by Corollary 1), if its
/// impulse lies in the friction cone and (`checked_work`) does no work; its normal part is
/// then raised to the rebound speed when that impulse stays in the cone too.
fn reversal(
    k_inverse: &Mat3,
    u0: &Vec3,
    slip: [f64; 2],
    checked_work: bool,
    mu: f64,
    micro: &Microcollisions,
) -> Option<Outcome> {
    let in_cone = |p: &Vec3| p.x.hypot(p.y) <= mu * p.z;
    let reversed = Vec3::new(slip[0], slip[1], -u0.z);
    let impulse = k_inverse * (reversed - u0);
    if !in_cone(&impulse) || (checked_work && 0.5 * (reversed + u0).dot(&impulse) > 0.0) {
        return None;
    }
    let lifted = Vec3::new(reversed.x, reversed.y, (-u0.z).max(micro.rebound_speed));
    let lift = k_inverse * (lifted - u0);
    let (target, impulse) = if in_cone(&lift) {
        (lifted, lift)
    } else {
        (reversed, impulse)
    };
    Some(Outcome {
        final_velocity: target,
        impulse,
        // Zero for a pure reversal; the rebound's lift otherwise.
        work: 0.5 * (target + u0).dot(&impulse),
        compression_work: -0.5 * u0.dot(&(k_inverse * u0)),
        steps: 0,
        out_of_steps: false,
    })
}

/// The tangential velocity a microcollision leaves so that the contact's slip averages zero
/// over the hop that follows, if the contact's pull in free flight is known and holds the
/// pair together (the slip of the touching surfaces, not of the point midway between them).
///
/// Over a hop of `T = 2 u_n / a_n` (`u_n` the speed the contact leaves at, `a_n` the pull
/// together), the pull `a_t` along the contact changes the slip by `a_t T`; leaving at
/// `−a_t T / 2` it arrives at `+a_t T / 2`, which the thesis's reversal sends back to where it
/// started. The reversal keeps any other slip too, flipping it at every hop for ever (a ball
/// rolling on the floor kept ±3.7 cm/s of slip); this target drops it. Reckoned at the
/// surfaces, it never asks for more kinetic energy than their reversal (`½ uᵀ K⁻¹ u` at most
/// the reversed velocity's): on the segment from the reversal to the target, the farthest
/// point that keeps to that. The bound is on the impulse's work where the impulse acts at the
/// touching surfaces, as it does for a body rolling on a support that impulses do not move
/// (`EventLoop::collide`). Between two free bodies it acts midway across the gap, where a
/// spinning body's slip differs from its surface's by `ω × δ` (δ up to ε/2); each hop's
/// friction impulse `p_t` then does work `p_t · ω × δ` more, which grows with the spin that
/// the hops themselves build up.
fn settled_slip(k_inverse: &Mat3, u0: &Vec3, micro: &Microcollisions) -> Option<[f64; 2]> {
    let Settling {
        pull,
        surface_velocity: surface,
    } = micro.settling?;
    let together = -pull.z;
    if together <= 0.0 || !together.is_finite() {
        return None;
    }
    // In the surfaces' slip: the thesis's reversal, and the target (a resting cluster's
    // contacts leave with the same, `drift_target`).
    let reversed = Vec3::new(-surface.x, -surface.y, -u0.z);
    let drift = drift_target(&pull, (-u0.z).max(micro.rebound_speed));
    let target = Vec3::new(drift.x, drift.y, -u0.z);
    let toward = target - reversed;
    let length = toward.dot(&(k_inverse * toward));
    // |reversed + s toward|² ≤ |reversed|² (metric K⁻¹) for s ∈ [0, −2 reversed·toward / length]
    // (the target itself where it is the reversal).
    let share = if length > 0.0 {
        (-2.0 * reversed.dot(&(k_inverse * toward)) / length).clamp(0.0, 1.0)
    } else {
        1.0
    };
    // Seen at the impulse's point, with the spin across the gap.
    let slip = reversed + toward * share;
    let slip = [slip.x + u0.x - surface.x, slip.y + u0.y - surface.y];
    slip.iter().all(|s| s.is_finite()).then_some(slip)
}

/// The largest `λ ∈ [0, 1)` for which the impulse reversing the normal velocity and `λ` of the
/// tangential one, `p(λ) = K⁻¹ ((−λ u_x, −λ u_y, −u_z) − u₀)`, lies in the friction cone, if
/// any. `p` is affine in `λ`, so the cone condition `|p_t|² ≤ μ² p_z²` is a quadratic.
fn most_reversal(k_inverse: &Mat3, u0: &Vec3, mu: f64) -> Option<f64> {
    let p0 = k_inverse * Vec3::new(-u0.x, -u0.y, -2.0 * u0.z);
    let d = k_inverse * Vec3::new(-u0.x, -u0.y, 0.0);
    let mu2 = mu * mu;
    let a = d.x * d.x + d.y * d.y - mu2 * d.z * d.z;
    let b = 2.0 * (p0.x * d.x + p0.y * d.y - mu2 * p0.z * d.z);
    let c = p0.x * p0.x + p0.y * p0.y - mu2 * p0.z * p0.z;
    let inside = |lambda: f64| {
        let p = p0 + d * lambda;
        p.z > 0.0 && p.x * p.x + p.y * p.y <= mu2 * p.z * p.z
    };
    let mut candidates = [f64::NAN; 3];
    let discriminant = b * b - 4.0 * a * c;
    if discriminant >= 0.0 {
        let q = -0.5 * (b + b.signum() * discriminant.sqrt());
        if q != 0.0 {
            candidates[0] = c / q;
        }
        if a != 0.0 {
            candidates[1] = q / a;
        }
    }
    candidates[2] = 0.0;
    candidates
        .into_iter()
        .filter(|l| l.is_finite() && *l >= 0.0 && *l < 1.0)
        .map(|l| l * (1.0 - 1e-9))
        .filter(|&l| inside(l))
        .fold(None, |best: Option<f64>, l| {
            Some(best.map_or(l, |b| b.max(l)))
        })
}

/// The impulse for a contact with collision matrix `k` (collision frame), approaching relative
/// velocity `u0` (u0.z < 0), friction `mu`, restitution `e`, at `distance` (within the envelope).
pub fn respond(
    k: &Mat3,
    u0: &Vec3,
    mu: f64,
    e: f64,
    law: RestitutionLaw,
    distance: f64,
    micro: Option<&Microcollisions>,
) -> (Outcome, ResponseKind) {
    if let Some(micro) = micro
        && -u0.z < micro.threshold_speed
    {
        // Type 2: reverse the whole relative velocity, if friction can supply that impulse.
        // A singular K (a multibody link) can make the reversal impossible; its near-inverse
        // then gives an impulse that does not produce it, and the residual tells.
        //
        // The thesis's reversal keeps |u_z|, so a body that has settled into the envelope
        // keeps its tiny approach speed and the next microcollision follows after 2|u_z|/g:
        // a resting rattleback was hit 130 000 times a second at |u_z| ≈ 0.006 cm/s, vibrating
        // with an amplitude of 1e-8 cm instead of the thesis's "~ε". Leaving at least the
        // rebound speed restores that vibration (a rise of (rebound/threshold)² ε) and spaces
        // the microcollisions by ~2 rebound/g.
        // The choice between the two types is the thesis's (the pure reversal's impulse in
        // the cone), so that the rebound's larger normal impulse does not widen the cone and
        // reverse sliding contacts the thesis would integrate; the lift is added when its
        // impulse stays in the cone too.
        if let Some(k_inverse) = k.try_inverse() {
            let full = -2.0 * (k_inverse * u0);
            let reverses = (k * full + 2.0 * u0).norm() <= 1e-9 * u0.norm();
            // The reversal, leaving the slip that averages zero over the next hop where the
            // pull is known (`settled_slip`), else the thesis's reversed slip.
            if reverses
                && let Some(slip) = settled_slip(&k_inverse, u0, micro)
                && let Some(outcome) = reversal(&k_inverse, u0, slip, false, mu, micro)
            {
                return (outcome, ResponseKind::Reversal);
            }
            if reverses
                && let Some(outcome) = reversal(&k_inverse, u0, [-u0.x, -u0.y], true, mu, micro)
            {
                return (outcome, ResponseKind::Reversal);
            }
            // Partial reversal: the normal velocity reversed, and as much of the tangential
            // one as friction allows (stuck at λ = 0), if that does no work. The thesis goes
            // straight to the boosted collision, which at a box's corner ends stuck: no kick
            // back up a slope, twice the creep (docs/sources.md, "Partial reversal").
            if reverses
                && let Some(lambda) = most_reversal(&k_inverse, u0, mu)
                && let Some(outcome) =
                    reversal(&k_inverse, u0, [-lambda * u0.x, -lambda * u0.y], true, mu, micro)
            {
                return (outcome, ResponseKind::PartialReversal);
            }
        }
        // Type 1: a collision whose restitution grows with depth into the envelope, from e at
        // its surface to e_max at the bottom, with zero slope at the surface. Like the
        // reversal, it leaves the contact separating at least at the rebound speed: near the
        // surface the boosted restitution of a sliding contact's tiny approach is a tinier
        // separation, and the next microcollision followed at once (a dragging body took
        // 4e5 a second). Restitution simply goes on, under the same friction law, until then.
        let depth = (micro.epsilon - distance).clamp(0.0, micro.epsilon) / micro.epsilon;
        let boosted = e + (micro.max_restitution - e).max(0.0) * depth * depth;
        let separating = Options {
            min_separation: micro.rebound_speed,
            ..Options::default()
        };
        let outcome = integrate_with(k, u0, mu, boosted, law, separating);
        return (outcome, ResponseKind::Boosted);
    }
    (integrate(k, u0, mu, e, law), ResponseKind::Collision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_on_ground_matrix_is_v4() {
        // Digest V4: solid sphere m = 1, R = 1, I = 0.4, contact at r = (0, 0, −1):
        // K = diag(3.5, 3.5, 1).
        let k = body_collision_matrix(1.0, &(Mat3::identity() / 0.4), &Vec3::new(0.0, 0.0, -1.0));
        assert!((k - Mat3::from_diagonal(&Vec3::new(3.5, 3.5, 1.0))).norm() < 1e-14);
    }

    /// A microcollision at half the envelope's depth, e = 0.3, Stronge's law.
    fn micro_response(
        k: &Mat3,
        u0: &Vec3,
        mu: f64,
        micro: &Microcollisions,
    ) -> (Outcome, ResponseKind) {
        respond(k, u0, mu, 0.3, RestitutionLaw::Stronge, 0.0005, Some(micro))
    }

    fn micro(rebound_speed: f64) -> Microcollisions {
        Microcollisions {
            threshold_speed: 0.1,
            epsilon: 0.001,
            max_restitution: 5.0,
            rebound_speed,
            settling: None,
        }
    }

    /// `micro(rebound)` with a contact pulled by `pull`, its surfaces moving at `surface`.
    fn settling(rebound: f64, pull: Vec3, surface: Vec3) -> Microcollisions {
        Microcollisions {
            settling: Some(Settling {
                pull,
                surface_velocity: surface,
            }),
            ..micro(rebound)
        }
    }

    #[test]
    fn settled_slip_undoes_the_hops_pull_and_drops_other_slip() {
        // Ball on the ground, K = diag(3.5, 3.5, 1) (V4). Closed forms below follow from the
        // hop: leaving at u_n against a pull a_n it is back after T = 2 u_n / a_n.
        let k_inverse = Mat3::from_diagonal(&Vec3::new(1.0 / 3.5, 1.0 / 3.5, 1.0));
        let g = 9.81;
        let theta = 20f64.to_radians();
        let slope = Vec3::new(g * theta.sin(), 0.0, -g * theta.cos());
        // 1. Steady hopping on a slope: arriving at +a_t T/2 (u_n = 0.1), it leaves at −a_t T/2,
        //    the thesis's reversal exactly.
        let half = slope.x * 0.1 / (g * theta.cos());
        let u0 = Vec3::new(half, 0.0, -0.1);
        let slip = settled_slip(&k_inverse, &u0, &settling(0.0, slope, u0)).unwrap();
        assert!((slip[0] + half).abs() < 1e-15 && slip[1] == 0.0, "{slip:?}");
        // 2. On the level, a slipping ball leaves without slip, not with its slip reversed.
        let level = Vec3::new(0.0, 0.0, -g);
        let u0 = Vec3::new(0.03, -0.01, -0.1);
        let slip = settled_slip(&k_inverse, &u0, &settling(0.0, level, u0)).unwrap();
        assert_eq!(slip, [0.0, 0.0]);
        // 3. ... taken at its surface: spin across the gap shows as 2 mm/s more slip at the
        //    impulse's point, which it keeps.
        let surface = u0 - Vec3::new(0.002, 0.0, 0.0);
        let slip = settled_slip(&k_inverse, &u0, &settling(0.0, level, surface)).unwrap();
        assert!((slip[0] - 0.002).abs() < 1e-15 && slip[1] == 0.0, "{slip:?}");
        // 4. A pull that would ask for more than the reversal's energy gets no more: rebound
        //    1 m/s (a hop ten times its approach's), the target −a_t T/2 = −tan 20° = −0.364
        //    m/s. Arriving at −0.05 m/s (up the slope), the segment from the reversal (+0.05)
        //    towards it keeps ½ uᵀ K⁻¹ u within the reversal's as far as −0.05: the slip is
        //    kept, not reversed. Arriving at +0.05 (down), every step from the reversal
        //    (−0.05) towards −0.364 costs energy: the reversal.
        let energy = |u: &Vec3| 0.5 * u.dot(&(k_inverse * u));
        for arriving in [-0.05, 0.05] {
            let u0 = Vec3::new(arriving, 0.0, -0.1);
            let slip = settled_slip(&k_inverse, &u0, &settling(1.0, slope, u0)).unwrap();
            assert!((slip[0] + 0.05).abs() < 1e-12 && slip[1] == 0.0, "{arriving}: {slip:?}");
            let left = Vec3::new(slip[0], slip[1], 0.1);
            assert!(energy(&left) <= energy(&-u0) * (1.0 + 1e-12), "{arriving}: {slip:?}");
        }
        // 5. Nothing pressing the contact: the thesis's reversal (no settled slip).
        let apart = Vec3::new(0.0, 0.0, g);
        let u0 = Vec3::new(0.03, 0.0, -0.1);
        assert!(settled_slip(&k_inverse, &u0, &settling(0.0, apart, u0)).is_none());
    }

    #[test]
    fn partial_reversal_reverses_as_much_as_friction_allows() {
        // Ball on the ground, K = diag(3.5, 3.5, 1) (V4), u0 = (0.05, 0, −0.02), μ = 0.5. The
        // full reversal needs p = (−2·0.05/3.5, 0, 0.04): |p_t|/p_z = 0.71 > μ. Reversing λ of
        // the tangential velocity needs p_x = −(1 + λ)·0.05/3.5 at p_z = 0.04, on the cone's
        // edge at λ = 0.4: u_f = (−0.02, 0, 0.02), p = (−0.02, 0, 0.04), work
        // ½ (0.03, 0, 0)·p = −3e-4.
        let k = Mat3::from_diagonal(&Vec3::new(3.5, 3.5, 1.0));
        let u0 = Vec3::new(0.05, 0.0, -0.02);
        let (out, kind) = micro_response(&k, &u0, 0.5, &micro(0.0));
        assert_eq!(kind, ResponseKind::PartialReversal);
        assert!(
            (out.final_velocity - Vec3::new(-0.02, 0.0, 0.02)).norm() < 1e-10,
            "{out:?}"
        );
        assert!(
            (out.impulse - Vec3::new(-0.02, 0.0, 0.04)).norm() < 1e-10,
            "{out:?}"
        );
        assert!((out.work + 3e-4).abs() < 1e-12, "{out:?}");
    }

    #[test]
    fn partial_reversals_stay_in_the_cone_do_no_work_and_are_the_largest() {
        // Random collision matrices and slow approaches: every partial reversal's impulse is
        // in the friction cone and gives K p = u_f − u0, its final tangential velocity is −λ
        // times the initial with λ ∈ [0, 1), it does no positive work (rebound 0), and a
        // reversal of λ + 1e-6 would need an impulse outside the cone.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let mut seen = 0;
        for _ in 0..20_000 {
            let a = Mat3::from_fn(|_, _| rng.random_range(-1.0..1.0));
            let k = a * a.transpose() + Mat3::identity() * 0.05;
            let u0 = Vec3::new(
                rng.random_range(-0.05..0.05),
                rng.random_range(-0.05..0.05),
                rng.random_range(-0.05..-0.001),
            );
            let mu = rng.random_range(0.05..1.0);
            let (out, kind) = micro_response(&k, &u0, mu, &micro(0.0));
            if kind != ResponseKind::PartialReversal {
                continue;
            }
            seen += 1;
            let p = out.impulse;
            assert!(
                p.z > 0.0 && p.x.hypot(p.y) <= mu * p.z * (1.0 + 1e-9),
                "{out:?}"
            );
            assert!(
                (k * p - (out.final_velocity - u0)).norm() < 1e-12,
                "{out:?}"
            );
            assert!((out.final_velocity.z + u0.z).abs() < 1e-15);
            let lambda = out.final_velocity.xy().norm() / u0.xy().norm();
            assert!((0.0..1.0).contains(&lambda));
            let along = out.final_velocity.xy() + u0.xy() * lambda;
            assert!(along.norm() < 1e-12 * u0.norm(), "not −λ u0_t: {out:?}");
            assert!(out.work <= 0.0, "{out:?}");
            let more = lambda + 1e-6;
            let wider =
                k.try_inverse().unwrap() * (Vec3::new(-more * u0.x, -more * u0.y, -u0.z) - u0);
            assert!(
                wider.x.hypot(wider.y) > mu * wider.z,
                "λ = {lambda} was not the largest"
            );
        }
        assert!(seen > 1000, "{seen} partial reversals");
    }

    #[test]
    fn reversal_does_no_work_and_reverses_the_velocity() {
        // Digest V6: p_r = −2 K⁻¹ u0 gives u_f = −u0 and W = 0.
        let k = Mat3::from_diagonal(&Vec3::new(3.5, 3.5, 1.0));
        let u0 = Vec3::new(0.01, 0.0, -0.02);
        let micro = Microcollisions {
            threshold_speed: 0.1,
            epsilon: 0.001,
            max_restitution: 5.0,
            rebound_speed: 0.0,
            settling: None,
        };
        let (out, kind) = micro_response(&k, &u0, 0.5, &micro);
        assert_eq!(kind, ResponseKind::Reversal);
        assert!((out.final_velocity + u0).norm() < 1e-15);
        assert!((k * out.impulse - (out.final_velocity - u0)).norm() < 1e-15);
        let w = 0.5
            * (out.final_velocity + u0)
                .dot(&(k.try_inverse().unwrap() * (out.final_velocity - u0)));
        assert!(w.abs() < 1e-18);
        // Outside the friction cone (μ small): a boosted collision instead, with e grown by
        // (δ/ε)² = ¼ of the way to e_max.
        let (out, kind) = micro_response(&k, &u0, 0.05, &micro);
        assert_eq!(kind, ResponseKind::Boosted);
        let e = 0.3 + (5.0 - 0.3) * 0.25;
        // Sliding throughout (K diagonal): p_z = (1 + e) |u_z0| / K33.
        assert!((out.impulse.z - (1.0 + e) * 0.02).abs() < 1e-9, "{out:?}");
    }

    #[test]
    fn boosted_microcollision_leaves_at_the_rebound_speed() {
        // As in the test above with μ = 0.05 (boosted, e = 1.475), but a rebound speed of
        // 0.05: Stronge's law alone would leave u_z = e·0.02 = 0.0295, so restitution goes on
        // to u_z = 0.05. K = diag(3.5, 3.5, 1): the contact slides, and its tangential speed
        // 0.01 falls by 3.5 μ = 0.175 per unit normal impulse, so it sticks (stably: K is
        // diagonal) at p_z = 0.0571, before the total p_z = (0.05 + 0.02) / K₃₃ = 0.07. So
        // p = (−0.01/3.5, 0, 0.07), u_f = (0, 0, 0.05), the impulse inside the cone.
        let k = Mat3::from_diagonal(&Vec3::new(3.5, 3.5, 1.0));
        let u0 = Vec3::new(0.01, 0.0, -0.02);
        let micro = Microcollisions {
            threshold_speed: 0.1,
            epsilon: 0.001,
            max_restitution: 5.0,
            rebound_speed: 0.05,
            settling: None,
        };
        let (out, kind) = micro_response(&k, &u0, 0.05, &micro);
        assert_eq!(kind, ResponseKind::Boosted);
        assert!(
            (out.final_velocity - Vec3::new(0.0, 0.0, 0.05)).norm() < 1e-9,
            "{out:?}"
        );
        assert!(
            (out.impulse - Vec3::new(-0.01 / 3.5, 0.0, 0.07)).norm() < 1e-9,
            "{out:?}"
        );
        assert!(out.impulse.x.hypot(out.impulse.y) <= 0.05 * out.impulse.z);
        // A rebound below what Stronge's law leaves changes nothing.
        let slow = Microcollisions {
            rebound_speed: 0.01,
            settling: None,
            ..micro
        };
        let run = |m: &Microcollisions| micro_response(&k, &u0, 0.05, m).0;
        let floor = run(&slow);
        let none = run(&Microcollisions {
            rebound_speed: 0.0,
            settling: None,
            ..micro
        });
        assert_eq!(floor, none);
        assert!(
            (floor.final_velocity.z - 1.475 * 0.02).abs() < 1e-9,
            "{floor:?}"
        );
    }
}
