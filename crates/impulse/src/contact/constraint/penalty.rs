//! The penalty method (Baraff ch. 7, §12.1–12.2): a constraint group's second force law, a
//! spring–damper at each held contact instead of the contact LCP.
//!
//! At each derivative evaluation every held contact whose gap `d` is negative pushes with
//!
//! ```text
//! f_N = max(0, K p + ρ c ṗ),   p = −d (the penetration), ρ = min(1, p / p₀),
//! f_T = −μ f_N s / max(|s|, v_s)   (s the tangential slip at the contact point),
//! ```
//!
//! - **Never pulling** (Baraff §7.2): where the damper would make the force attractive (the
//!   contact opening faster than `K p / c`), the force is zero. The restitution of the clamped
//!   oscillator differs from the textbook `exp(−ζπ/√(1−ζ²))` (which lets the damper pull); the
//!   damping ratio ζ derived from a material's restitution inverts the clamped law exactly
//!   ([`clamped_restitution`]). Baraff's objection stands: near a release the penalty force's
//!   acceleration does not converge as K grows, so releases are decided outside the force law
//!   (the group lets a contact go when its gap opens past the envelope).
//! - **Damping onset**: the damping grows over the first `p₀` of penetration (the world's
//!   `p₀` is a body's static sag, a hundredth of the envelope), so the force is continuous where
//!   a contact starts to push: the jump `c ṗ` of the plain law is a discontinuity the error
//!   control steps over only at a step of (tolerance / jump), below the integrator's least step
//!   for a part landing at a few cm/s in centimetre units. It changes the restitution by the
//!   part of the penetration within `p₀` (for a contact that sinks ≫ `p₀`, little).
//! - **Regularised Coulomb friction**: viscous below the slip speed `v_s`, `μ f_N` above. Its
//!   weakness: nothing sticks; a body below the friction angle creeps at the slip speed at
//!   which the viscous force balances the load, `v_s · (f_T / μ f_N)` (on a slope θ:
//!   `v_s tan θ / μ`).
//! - **Stiffness**: a material's `penalty_stiffness` (N/m per contact point; two given are in
//!   series), else `K = m_eff ω₀²` with `m_eff` the contact's effective mass along its normal
//!   when the group forms and ω₀ [`PenaltyLaw::frequency`] (chosen by the world so a body's
//!   weight sinks it a hundredth of the envelope). `K` and `c = 2 ζ √(K m_eff)` are fixed for
//!   the life of the group, so the spring is conservative.
//!
//! The ODE is stiff: the adaptive integrator's error control shrinks the step to a fraction of
//! `1/√(K/m)` while a contact oscillates, and to its stability limit (a few `1/ω₀`, or
//! `m v_s / μ f_N` for the viscous friction) while it rests.

use super::held::Side;
use super::{GroupModel, Member, motions, side_motion, world_inverse_inertia};
use crate::math::Vec3;

/// How penalty contacts are set up in a world.
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct PenaltyLaw {
    /// Natural frequency ω₀ (rad/s) of a contact whose stiffness no material gives:
    /// `K = m_eff ω₀²`.
    pub(crate) frequency: f64,
    /// Slip speed below which friction is viscous.
    pub(crate) slip_speed: f64,
    /// Penetration over which the damping grows from none to full (0: full at once).
    pub(crate) onset: f64,
}

/// A held contact's spring–damper under the penalty model (unused by the LCP force law).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Spring {
    /// The stiffness the materials give (per contact point), `None`: from the effective mass.
    pub(crate) stiffness: Option<f64>,
    /// The damping ratio ζ.
    pub(crate) damping_ratio: f64,
    /// The stiffness K and damping coefficient c in force, set when the group forms.
    pub(crate) k: f64,
    pub(crate) c: f64,
}

/// The largest damping ratio derived from a restitution: the clamped oscillator's restitution
/// falls to 0 only as ζ → ∞, and the stiffer damping costs steps; at ζ = 2 a contact keeps
/// 4.8 % of its approach speed ([`clamped_restitution`]).
pub(crate) const MAX_DAMPING_RATIO: f64 = 2.0;

/// The restitution of a point mass on a linear spring–damper of damping ratio ζ whose force is
/// never attractive: the separation speed over the approach speed. The contact ends where
/// `K p + c ṗ` reaches zero, i.e. where `p̈ = 0` (free of gravity), and the mass leaves with
/// the speed it has there.
pub(crate) fn clamped_restitution(zeta: f64) -> f64 {
    // Unit ω and approach speed: p̈ + 2ζ ṗ + p = 0, p(0) = 0, ṗ(0) = 1.
    if zeta <= 0.0 {
        1.0
    } else if zeta < 1.0 {
        // p = e^{−at} sin(bt)/b: p̈ = 0 where tan(bt) = 2ab/(a² − b²), bt in (0, π).
        let (a, b) = (zeta, (1.0 - zeta * zeta).sqrt());
        let t = (2.0 * a * b).atan2(a * a - b * b) / b;
        -(-a * t).exp() * (b * (b * t).cos() - a * (b * t).sin()) / b
    } else if zeta == 1.0 {
        // p = t e^{−t}: p̈ = 0 at t = 2, ṗ = −e^{−2}.
        (-2.0f64).exp()
    } else {
        // p = (e^{r₁t} − e^{r₂t})/(r₁ − r₂): p̈ = 0 where e^{(r₁−r₂)t} = r₂²/r₁².
        let root = (zeta * zeta - 1.0).sqrt();
        let (r1, r2) = (-zeta + root, -zeta - root);
        let t = 2.0 * (r2 / r1).ln() / (r1 - r2);
        -(r1 * (r1 * t).exp() - r2 * (r2 * t).exp()) / (r1 - r2)
    }
}

/// The damping ratio whose clamped oscillator has restitution `e` ([`clamped_restitution`] is
/// decreasing in ζ), at most [`MAX_DAMPING_RATIO`].
pub(crate) fn damping_ratio_for(e: f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    if e <= clamped_restitution(MAX_DAMPING_RATIO) {
        return MAX_DAMPING_RATIO;
    }
    let (mut lo, mut hi) = (0.0, MAX_DAMPING_RATIO);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if clamped_restitution(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Sets each contact's K and c at the group state `y` (see the module comment).
pub(super) fn resolve_springs(model: &mut GroupModel, y: &[f64], law: &PenaltyLaw) {
    let at = motions(y, model.members.len());
    for c in &mut model.contacts {
        let k = c.kinematics(&side_motion(&at, c.a), &side_motion(&at, c.b));
        // 1/m_eff = Σ over the moving sides of 1/m + (r × n)·I⁻¹(r × n).
        let mut inverse = 0.0;
        for side in [c.a, c.b] {
            if let Side::Member(i) = side {
                let m: &Member = &model.members[i];
                let s = at[i];
                let rn = (k.point.coords - s.position).cross(&k.normal);
                inverse += m.inverse_mass
                    + rn.dot(&(world_inverse_inertia(&m.principal_inertia, &s) * rn));
            }
        }
        let effective = if inverse > 0.0 { 1.0 / inverse } else { 0.0 };
        let stiffness = c
            .spring
            .stiffness
            .unwrap_or(effective * law.frequency * law.frequency);
        c.spring.k = stiffness;
        c.spring.c = 2.0 * c.spring.damping_ratio * (stiffness * effective).sqrt();
    }
}

/// The penalty forces (on each contact's A, world) at group state `y`.
pub(super) fn forces(model: &GroupModel, law: &PenaltyLaw, y: &[f64]) -> Vec<Vec3> {
    let at = motions(y, model.members.len());
    model
        .contacts
        .iter()
        .map(|c| {
            let (a, b) = (side_motion(&at, c.a), side_motion(&at, c.b));
            let k = c.kinematics(&a, &b);
            if k.gap >= 0.0 {
                return Vec3::zeros();
            }
            // f_N = max(0, K p + c ṗ), p = −d: never pulling (§7.2).
            // The damping grows over the first `onset` of penetration, so that the force starts
            // from zero (a jump of c ṗ where a contact starts to push is a discontinuity in
            // the ODE, which error control can only step over at a step of tolerance / jump).
            let ramp = if law.onset > 0.0 {
                (-k.gap / law.onset).min(1.0)
            } else {
                1.0
            };
            let normal = (-c.spring.k * k.gap - ramp * c.spring.c * k.gap_rate).max(0.0);
            let p = k.point.coords;
            let relative = a.point_velocity(&p) - b.point_velocity(&p);
            let slip = relative - k.normal * k.normal.dot(&relative);
            // Coulomb's bound, reached above the slip speed, viscous below it.
            let friction = -slip * (c.friction * normal / slip.norm().max(law.slip_speed));
            k.normal * normal + friction
        })
        .collect()
}

/// Whether a held contact at gap `gap` has sunk past the release gap (the envelope) under the
/// penalty model: no load the springs are meant for sinks a contact that far (a body's weight
/// sinks it a hundredth of it), so it is not one the springs can hold — a contact point that
/// slid off the face whose plane it is held on (a held plane has no edges) and now reads a
/// false penetration. It is let go, as an opening contact is, and the narrow phase decides
/// afresh what touches (a real overlap that deep stops the run as under every model).
pub(super) fn too_deep(holding: &super::Holding, gap: f64) -> bool {
    holding.penalty.is_some() && gap < -holding.release_gap
}

/// The deepest penetration of the held contacts at group state `y` (0 if none overlaps).
pub(super) fn deepest(model: &GroupModel, y: &[f64]) -> f64 {
    let at = motions(y, model.members.len());
    model
        .contacts
        .iter()
        .map(|c| -c.kinematics(&side_motion(&at, c.a), &side_motion(&at, c.b)).gap)
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests;
