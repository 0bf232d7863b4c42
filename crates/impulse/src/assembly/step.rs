//! One instant's constraint forces and the fixed-step RK4 integration of the bodies' 13
//! equations each (kalra.md eq. 22–24 and the §3.3 procedure, with ideal forces).

use crate::math::{Quat, Vec3};

use super::rows::{Row, Side};
use super::solve::{self, Solution};
use super::{Assembly, AssemblyError, BodyState, corners};

/// Residual (relative to the largest right side, or 1) above which dropped rows count as an
/// inconsistent demand rather than rounding or drift.
const INCONSISTENT: f64 = 1e-6;

/// Everything about the constraint forces at one instant.
pub(crate) struct Instant {
    pub rows: Vec<Row>,
    pub owners: Vec<usize>,
    pub solution: Solution,
    pub sides: Vec<Side>,
    /// Applied force and torque per body (gravity excluded).
    pub applied: Vec<(Vec3, Vec3)>,
    /// Constraint force and torque per body.
    pub constraint: Vec<(Vec3, Vec3)>,
}

/// The rates of one body's 13 state variables.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyRate {
    pub velocity: Vec3,
    pub spin: nalgebra::Quaternion<f64>,
    pub force: Vec3,
    pub torque: Vec3,
}

/// The rates of the whole state, with the powers of the applied and the constraint loads.
pub(crate) struct Derivative {
    pub bodies: Vec<BodyRate>,
    pub applied_power: f64,
    pub constraint_power: f64,
}

/// Solves for the constraint forces at time t and the given states.
pub(crate) fn instant(
    asm: &Assembly,
    t: f64,
    states: &[BodyState],
) -> Result<Instant, AssemblyError> {
    let (sides, poses) = asm.frames(states);
    let (rows, owners) = asm.rows_from(&sides, &poses, t);
    let inverse = asm.inverse_masses(states);
    let g = asm.settings.gravity;
    let mut applied: Vec<(Vec3, Vec3)> = asm
        .bodies
        .iter()
        .zip(&sides)
        .map(|(b, s)| {
            let d = &b.desc;
            (
                d.force - s.velocity * d.linear_damping,
                d.torque - s.omega * d.angular_damping,
            )
        })
        .collect();
    for load in &asm.loads {
        load.apply(&mut applied, &sides, &poses, t);
    }
    // Unconstrained accelerations: a = g + F/m, α = I⁻¹(τ + L × ω) (kalra.md eq. 40).
    let free: Vec<(Vec3, Vec3)> = states
        .iter()
        .zip(&applied)
        .zip(&inverse)
        .zip(&sides)
        .map(|(((s, (f, tau)), m), side)| {
            (
                g + f * m.mass,
                m.inertia * (tau + s.angular_momentum.cross(&side.omega)),
            )
        })
        .collect();
    let velocities: Vec<(Vec3, Vec3)> = sides.iter().map(|s| (s.velocity, s.omega)).collect();
    let baumgarte = asm.settings.baumgarte;
    let (k1, k0) = (
        2.0 * baumgarte.damping_ratio * baumgarte.frequency,
        baumgarte.frequency * baumgarte.frequency,
    );
    // J u̇ = −c − 2ζω φ̇ − ω² φ, with u̇ = free + M⁻¹ Jᵀ λ.
    let rhs: Vec<f64> = rows
        .iter()
        .map(|row| {
            let phi_dot = row.velocity(&velocities) + row.phi_t;
            -row.bias - row.velocity(&free) - k1 * phi_dot - k0 * row.phi
        })
        .collect();
    let solution = solve::solve(&rows, &inverse, &rhs);
    let scale = rhs.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    if !solution.dependent.is_empty() && solution.residual > INCONSISTENT * scale {
        let mut joints: Vec<String> = solution
            .dependent
            .iter()
            .map(|&r| asm.joints[owners[r]].name.clone())
            .collect();
        joints.dedup();
        return Err(AssemblyError::Inconsistent {
            time: t,
            joints,
            residual: solution.residual,
        });
    }
    let constraint = solve::body_forces(&rows, &solution.lambda, asm.bodies.len());
    Ok(Instant {
        rows,
        owners,
        solution,
        sides,
        applied,
        constraint,
    })
}

/// The state's rates at time t.
pub(crate) fn derivative(
    asm: &Assembly,
    t: f64,
    states: &[BodyState],
) -> Result<Derivative, AssemblyError> {
    let now = instant(asm, t, states)?;
    let g = asm.settings.gravity;
    let mut applied_power = 0.0;
    let mut constraint_power = 0.0;
    let bodies = asm
        .bodies
        .iter()
        .zip(states)
        .enumerate()
        .map(|(i, (b, s))| {
            let side = &now.sides[i];
            let (fa, ta) = now.applied[i];
            let (fc, tc) = now.constraint[i];
            applied_power += fa.dot(&side.velocity) + ta.dot(&side.omega);
            constraint_power += fc.dot(&side.velocity) + tc.dot(&side.omega);
            // q̇ = ½ (0, ω) q (kalra.md eq. 22).
            let w = nalgebra::Quaternion::from_imag(side.omega);
            BodyRate {
                velocity: side.velocity,
                spin: w * s.orientation.into_inner() * 0.5,
                force: g * b.desc.mass + fa + fc,
                torque: ta + tc,
            }
        })
        .collect();
    Ok(Derivative {
        bodies,
        applied_power,
        constraint_power,
    })
}

/// `state + h · rate`, the quaternion renormalised.
fn moved(states: &[BodyState], d: &Derivative, h: f64) -> Vec<BodyState> {
    states
        .iter()
        .zip(&d.bodies)
        .map(|(s, r)| BodyState {
            position: s.position + r.velocity * h,
            orientation: Quat::new_normalize(s.orientation.into_inner() + r.spin * h),
            momentum: s.momentum + r.force * h,
            angular_momentum: s.angular_momentum + r.torque * h,
        })
        .collect()
}

/// One classical RK4 step to time `end`, then renormalisation, projection and bookkeeping.
pub(crate) fn rk4(asm: &mut Assembly, end: f64) -> Result<(), AssemblyError> {
    let t = asm.time;
    let h = end - t;
    let y = asm.states();
    let k1 = derivative(asm, t, &y)?;
    let k2 = derivative(asm, t + 0.5 * h, &moved(&y, &k1, 0.5 * h))?;
    let k3 = derivative(asm, t + 0.5 * h, &moved(&y, &k2, 0.5 * h))?;
    let k4 = derivative(asm, t + h, &moved(&y, &k3, h))?;
    let w = h / 6.0;
    for (i, body) in asm.bodies.iter_mut().enumerate() {
        let s = &y[i];
        let (a, b, c, d) = (&k1.bodies[i], &k2.bodies[i], &k3.bodies[i], &k4.bodies[i]);
        body.state = BodyState {
            position: s.position + (a.velocity + (b.velocity + c.velocity) * 2.0 + d.velocity) * w,
            orientation: Quat::new_normalize(
                s.orientation.into_inner() + (a.spin + (b.spin + c.spin) * 2.0 + d.spin) * w,
            ),
            momentum: s.momentum + (a.force + (b.force + c.force) * 2.0 + d.force) * w,
            angular_momentum: s.angular_momentum
                + (a.torque + (b.torque + c.torque) * 2.0 + d.torque) * w,
        };
    }
    let power = |f: fn(&Derivative) -> f64| (f(&k1) + 2.0 * f(&k2) + 2.0 * f(&k3) + f(&k4)) * w;
    asm.applied_work += power(|d| d.applied_power);
    asm.constraint_work += power(|d| d.constraint_power);
    asm.time = end;
    asm.steps += 1;
    // A point that passed a polyline's corner moves onto the next segment: positions and
    // velocities are projected onto it whatever the settings, and the kinetic energy the
    // velocity projection takes (the kink's inelastic impulse) is work of the constraints.
    let cornered = asm.settle_joints();
    if asm.settings.projection || cornered {
        asm.project_positions()?;
        let before = if cornered { asm.kinetic_energy() } else { 0.0 };
        asm.project_velocities()?;
        if cornered {
            asm.constraint_work += asm.kinetic_energy() - before;
        }
    }
    asm.settle_joints();
    for b in &asm.bodies {
        let s = &b.state;
        let finite = [s.position, s.momentum, s.angular_momentum]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()))
            && s.orientation.coords.iter().all(|x| x.is_finite());
        if !finite {
            return Err(AssemblyError::NotFinite {
                time: asm.time,
                body: b.desc.name.clone(),
            });
        }
    }
    asm.max_gap = asm.max_gap.max(asm.gap());
    Ok(())
}

/// The pistons in the wrong mode now (firing while moving up, idle while moving down).
fn wrong_modes(asm: &Assembly) -> Vec<usize> {
    let (sides, poses) = asm.frames(&asm.states());
    asm.loads
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.stroke_rate(&sides, &poses)
                .is_some_and(|rate| l.wants_switch(rate))
        })
        .map(|(i, _)| i)
        .collect()
}

/// `value` of the state after one RK4 step from `from` to `from.time + tau`.
fn value_after(
    from: &Assembly,
    tau: f64,
    value: &impl Fn(&Assembly) -> f64,
) -> Result<f64, AssemblyError> {
    let mut trial = from.clone();
    if tau > 0.0 {
        rk4(&mut trial, from.time + tau)?;
    }
    Ok(value(&trial))
}

/// Piston `load`'s stroke rate in `asm`.
fn stroke_rate(asm: &Assembly, load: usize) -> f64 {
    let (sides, poses) = asm.frames(&asm.states());
    asm.loads[load]
        .stroke_rate(&sides, &poses)
        .unwrap_or_default()
}

/// When, within the step from `from` to `end`, `value` of the state crosses zero: the Illinois
/// variant of regula falsi on the value after a step of length τ (each trial a whole RK4 step
/// from the start), to 1e-12 of the step. Returns the time just past the crossing.
fn crossing(
    from: &Assembly,
    end: f64,
    value: impl Fn(&Assembly) -> f64,
) -> Result<f64, AssemblyError> {
    let h = end - from.time;
    let (mut a, mut b) = (0.0, h);
    let (mut fa, mut fb) = (value_after(from, a, &value)?, value_after(from, b, &value)?);
    if fa == 0.0 || fa * fb > 0.0 {
        return Ok(from.time + a);
    }
    let mut side = 0;
    for _ in 0..60 {
        if b - a <= 1e-12 * h {
            break;
        }
        let c = ((a * fb - b * fa) / (fb - fa)).clamp(a, b);
        let fc = value_after(from, c, &value)?;
        if fc == 0.0 {
            return Ok(from.time + c);
        }
        if fc * fb > 0.0 {
            (b, fb) = (c, fc);
            if side == -1 {
                fa *= 0.5;
            }
            side = -1;
        } else {
            (a, fa) = (c, fc);
            if side == 1 {
                fb *= 0.5;
            }
            side = 1;
        }
    }
    Ok(from.time + b)
}

/// One step to `end` with the pistons' switches and the polyline corners located inside it
/// (kalra.md §4.3: the piston force jumps at the top; integrating across the jump would cost
/// RK4 its order; a point carried past a corner would run off the curve along the old
/// segment's line until the step's end, `corners`). A step that ends with a piston in the
/// wrong mode, or a point on another segment, is taken again up to the earliest crossing; a
/// piston is switched there (a corner is passed by that step's own end), and the rest of the
/// step taken. Without either this is [`rk4`]. The step count stays one per grid step.
pub(crate) fn advance(asm: &mut Assembly, end: f64) -> Result<(), AssemblyError> {
    let pistons = asm.loads.iter().any(|l| l.switches());
    if !pistons && !asm.has_polylines() {
        return rk4(asm, end);
    }
    let steps = asm.steps;
    let h = end - asm.time;
    // A few events at most per step (one per piston, twice; a corner per short segment); the
    // bound only guards a loop.
    for _ in 0..4 * (asm.loads.len() + asm.joints.len()) + 4 {
        if end - asm.time <= 1e-12 * h {
            break;
        }
        let saved = asm.clone();
        rk4(asm, end)?;
        let wrong = wrong_modes(asm);
        let corners = corners::passed(&saved, asm);
        if wrong.is_empty() && corners.is_empty() {
            break;
        }
        // The earliest event: a piston's index, or none for a corner.
        let mut first = (end, wrong.first().copied());
        for &i in &wrong {
            let t = crossing(&saved, end, |a| stroke_rate(a, i))?;
            if t < first.0 {
                first = (t, Some(i));
            }
        }
        for &c in &corners {
            let t = crossing(&saved, end, |a| corners::excess(&saved, c, a))?;
            if t < first.0 {
                first = (t, None);
            }
        }
        if first.0 <= saved.time && first.1.is_none() {
            // A corner passed at the step's very start: the step as taken passes it.
            break;
        }
        *asm = saved;
        if first.0 > asm.time {
            rk4(asm, first.0)?;
        }
        if let Some(load) = first.1 {
            asm.loads[load].switch();
            for i in wrong_modes(asm) {
                if i != load {
                    asm.loads[i].switch();
                }
            }
        }
    }
    asm.steps = steps + 1;
    Ok(())
}
