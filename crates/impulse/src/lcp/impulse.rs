//! Contact impulses: the impulse a Lemke ray stands for (Baraff ch. 13), and simultaneous
//! collision impulses (§4.2, §9.4) that never add energy.

use super::contact::{ContactLcp, ContactSystem};
use super::lemke::{Basis, LcpError, LemkeOptions, Outcome, Ray, Solution, solve_regularized};
use crate::math::Vec3;

/// The valid contact impulse of Baraff §13.1 read off a Lemke ray: `α zʰ`, with `α` the
/// least scale at which a dynamic-friction contact stops sliding (the slip component along
/// its sliding direction reaches zero: in 3-D the thesis's fixed-direction assumption).
#[derive(Clone, Debug, PartialEq)]
pub struct RayImpulse {
    /// The impulse on A at each contact, world.
    pub impulses: Vec<Vec3>,
    /// The scale `α` applied to the ray's direction.
    pub scale: f64,
    /// The dynamic contact whose sliding stops.
    pub stopped: usize,
    /// The relative normal velocity at each contact afterwards (≤ 0 wherever an impulse acts,
    /// by eq. 13-1, when it was 0 before): the collisions to resolve next.
    pub normal_velocities: Vec<f64>,
}

/// The impulse of ch. 13 for a ray of `lcp` (built from `system`): `None` if no
/// dynamic-friction contact slows down along the ray (Thm. 5 guarantees the ray acts at one,
/// not that it slows it; then the caller must fall back, e.g. to a collision solve).
pub fn ray_impulse(system: &ContactSystem, lcp: &ContactLcp, ray: &Ray) -> Option<RayImpulse> {
    let unit = lcp.contact_forces(&ray.direction);
    let before = system.velocities();
    let after = system.velocities_after(&unit);
    let mut best: Option<(f64, usize)> = None;
    for i in 0..system.len() {
        if !lcp.is_dynamic(i) {
            continue;
        }
        let v = before[i];
        let speed = v.y.hypot(v.z);
        if speed == 0.0 {
            continue;
        }
        // Rate of the slip along its own direction per unit of the ray.
        let rate = (v.y * (after[i].y - v.y) + v.z * (after[i].z - v.z)) / speed;
        if rate < 0.0 {
            let alpha = speed / -rate;
            if best.is_none_or(|(a, _)| alpha < a) {
                best = Some((alpha, i));
            }
        }
    }
    let (scale, stopped) = best?;
    let impulses: Vec<Vec3> = unit.iter().map(|p| p * scale).collect();
    // A ray's impulse stops a slide and takes energy out: at each contact it does the work
    // `Pᵢ·(sᵢ + sᵢ⁺)/2`, where the friction opposes the slip it stops and the normal part
    // pushes a contact that was not approaching (sᵢ,N = 0) into one that approaches
    // (sᵢ,N⁺ ≤ 0, eq. 13-1). One that adds energy is not that impulse but rounding: a slip
    // the ray barely changes (a rate of 1e-14), scaled by its reciprocal, gave members of a
    // pyramid 1e12 m/s.
    if system.kinetic_energy_change(&impulses) > 1e-12 * work_terms(system, &impulses) {
        return None;
    }
    let normal_velocities = system
        .velocities_after(&impulses)
        .iter()
        .map(|v| v.x)
        .collect();
    Some(RayImpulse {
        impulses,
        scale,
        stopped,
        normal_velocities,
    })
}

/// Simultaneous collision impulses.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    /// The impulse on A at each contact, world.
    pub impulses: Vec<Vec3>,
    /// The LCP solution they were read from (its basis can warm-start the next solve).
    pub solution: Solution,
    /// The change of kinetic energy (≤ 1e-12 Σ |Pᵢ·sᵢ|: zero up to rounding).
    pub energy_change: f64,
    /// The factor applied to every restitution coefficient: 1, unless Newton's law would have
    /// added energy (possible with several contacts or with friction, Baraff §9.4) or had no
    /// solution, in which case the largest factor (to 2⁻³⁰) that gives a solution adding none.
    pub restitution_scale: f64,
}

/// Why a collision solve gave no impulses.
#[derive(Clone, Debug, PartialEq)]
pub enum CollisionError {
    /// Bad input.
    Input(LcpError),
    /// Lemke ended without a solution (a ray, the pivot limit, or a breakdown).
    Unsolved(Box<Outcome>),
}

impl std::fmt::Display for CollisionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollisionError::Input(e) => write!(f, "collision impulses: {e}"),
            CollisionError::Unsolved(o) => {
                let what = match o.as_ref() {
                    Outcome::Ray(_) => "ended on a ray",
                    Outcome::PivotLimit { .. } => "reached the pivot limit",
                    _ => "broke down numerically",
                };
                write!(f, "collision impulses: Lemke {what}")
            }
        }
    }
}

impl std::error::Error for CollisionError {}

/// [`collide`] with friction, or, where Lemke cannot solve the frictional problem (many
/// redundant contacts: a jam whose regularised retry fails too), without it: the frictionless
/// problem is symmetric positive semi-definite and always has a solution Lemke finds.
/// Each answer without friction adds one to `fallbacks` (the `frictionless_fallbacks` of
/// `summary.json`).
pub(crate) fn collide_or_frictionless(
    system: &ContactSystem,
    options: &LemkeOptions,
    fallbacks: &mut u64,
) -> Result<Collision, CollisionError> {
    collide(system, true, None, options).or_else(|_| {
        let frictionless = collide(system, false, None, options)?;
        *fallbacks += 1;
        Ok(frictionless)
    })
}

/// Collision impulses for every contact of `system` (§4.2, §9.4: Newton's restitution per
/// contact, frictional conditions when `friction`), solved by [`solve_regularized`] (a
/// frictional collision can jam: bodies squeezed between contacts whose friction cones face
/// each other; the solution's `regularization` says when the retry was needed), and kept
/// from adding energy: with restitution
/// 0 the impulses never add energy (`ΔE = Pᵀv⁺ − ½ PᵀWP` with `Pᵀv⁺ ≤ 0` by
/// complementarity), so if Newton's law adds energy, or has no solution (a jam with
/// restitution can have none), the restitution coefficients are scaled down by bisection to
/// the largest factor that gives a solution adding none.
pub fn collide(
    system: &ContactSystem,
    friction: bool,
    warm: Option<&Basis>,
    options: &LemkeOptions,
) -> Result<Collision, CollisionError> {
    let attempt = |scale: f64| -> Result<Collision, CollisionError> {
        let lcp = system.collision(friction, scale);
        let outcome = solve_regularized(&lcp.matrix, &lcp.vector, warm, options)
            .map_err(CollisionError::Input)?;
        match outcome {
            Outcome::Solution(solution) => {
                let impulses = lcp.contact_forces(&solution.z);
                let energy_change = system.kinetic_energy_change(&impulses);
                Ok(Collision {
                    impulses,
                    solution,
                    energy_change,
                    restitution_scale: scale,
                })
            }
            other => Err(CollisionError::Unsolved(Box::new(other))),
        }
    };
    // Rounding allowance for "no energy added": 1e-12 of the work terms Σ |Pᵢ·sᵢ| (rounding
    // in ΔE is ~1e-15 of them; 1e-9 let a jam's large opposing impulses hide a real gain).
    let gains = |c: &Collision| c.energy_change > 1e-12 * work_terms(system, &c.impulses);
    // A restitution is usable if it gives a solution that adds no energy.
    let usable = |scale: f64| -> Result<Option<Collision>, CollisionError> {
        match attempt(scale) {
            Ok(c) if !gains(&c) => Ok(Some(c)),
            Ok(_) | Err(CollisionError::Unsolved(_)) => Ok(None),
            Err(e) => Err(e),
        }
    };
    if let Some(full) = usable(1.0)? {
        return Ok(full);
    }
    let mut safe = attempt(0.0)?;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        match usable(mid)? {
            Some(trial) => {
                lo = mid;
                safe = trial;
            }
            None => hi = mid,
        }
    }
    Ok(safe)
}

/// `Σ |Pᵢ·sᵢ|`: the size of the terms that make up an energy change.
pub(crate) fn work_terms(system: &ContactSystem, impulses: &[Vec3]) -> f64 {
    impulses
        .iter()
        .enumerate()
        .map(|(i, p)| p.dot(&system.relative_velocity(i)).abs())
        .sum()
}
