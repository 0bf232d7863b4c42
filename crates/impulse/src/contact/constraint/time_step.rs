//! A velocity-level time step of a constraint group: where the contact mode changes faster than
//! the integrator can follow, the group is carried over one short step by the impulses that
//! hold its contacts, instead of by forces.
//!
//! Baraff's loop restarts the integrator at every change of contact mode (§8.2). Where the
//! mode chatters — a box landing on an edge, its corners' forces passing between redundant
//! bases at every instant — no step of any size holds one mode, and the adaptive integrator
//! halves its step until it underflows. What the forces would do over a short step `h` is
//! then found as one impulse problem (the time-stepping scheme of Stewart & Trinkle, and of
//! Anitescu & Potra, built from the same contact LCP as the collisions of §4.2):
//!
//! 1. the free motion over `h`: `v* = v + h m⁻¹ F`, `ω* = ω + h I⁻¹ (τ − ω × I ω)`;
//! 2. the impulses of a perfectly inelastic, frictional collision at every held contact that
//!    is touching or would close within the step (`v_N⁺ ≥ 0 ⟂ P_N ≥ 0`, static friction in
//!    velocities, eq. 9-9/9-10), which never add energy (frictionless where Lemke cannot
//!    solve the frictional problem);
//! 3. positions from the new velocities: `x⁺ = x + h v⁺`, `q⁺ = exp(h ω⁺ / 2) q`.
//!
//! The step is first order. A group of a few bodies takes it only where the integrator cannot go
//! on, with Lemke's impulses, after which the flight starts afresh from Lemke's basis at the
//! step's end; a large group takes every step this way, with impulses from projected
//! Gauss–Seidel (`iterative`).

use super::*;

/// The length of a time step (s): short beside a group's motion (a 1 m/s body moves 0.1 mm),
/// long beside the instants at which the contact mode chatters.
pub(super) const TIME_STEP: f64 = 1e-4;

/// What finds a time step's impulses.
pub(super) enum StepImpulses<'a> {
    /// Lemke's algorithm (`collide_or_frictionless`); an answer without friction adds one to
    /// the count.
    Lemke { fallbacks: &'a mut u64 },
    /// Projected Gauss–Seidel (a large group, see `iterative`), warm-started from each held
    /// contact's impulse of the last step, which it replaces (zero where a contact took none).
    Sweeps { last: &'a mut Vec<Vec3> },
}

/// The state a group reaches from `(t, y)` after one time step of `h`, with the problem
/// `problem` poses at `y` (its bodies and points) and the impulses found by `solver`.
pub(super) fn time_step(
    model: &GroupModel,
    (mut bodies, points): (Vec<LcpBody>, Vec<LcpPoint>),
    y: &[f64],
    h: f64,
    t: f64,
    solver: StepImpulses<'_>,
) -> Result<Vec<f64>, IntegrationError> {
    // 1. The free motion over the step.
    for body in &mut bodies {
        let (acceleration, angular) = body.free_acceleration();
        body.velocity += acceleration * h;
        body.angular_velocity += angular * h;
    }
    // 2. The contacts that touch or would close within the step, stopped inelastically.
    let motions = motions(y, model.members.len());
    let (held, touching): (Vec<usize>, Vec<LcpPoint>) = points
        .into_iter()
        .zip(&model.contacts)
        .enumerate()
        .filter_map(|(i, (mut point, contact))| {
            let k = contact.kinematics(&side_motion(&motions, contact.a), &side_motion(&motions, contact.b));
            let closing = k.gap - model.holding.gap + h * k.gap_rate.min(0.0);
            (closing <= model.holding.gap).then(|| {
                point.restitution = 0.0;
                point.bias = 0.0;
                point.slip_damping = 0.0;
                point.sliding = None;
                point.slip_direction = None;
                (i, point)
            })
        })
        .unzip();
    match solver {
        StepImpulses::Lemke { fallbacks } => {
            if !touching.is_empty() {
                let system = ContactSystem::new(&bodies, &touching, model.holding.sliding_speed)
                    .map_err(|_| IntegrationError::NonFinite { time: t })?;
                // Without friction where Lemke cannot solve the frictional problem: the step
                // then slides for `h`.
                let options = LemkeOptions::default();
                let collision = collide_or_frictionless(&system, &options, fallbacks)
                    .map_err(|_| IntegrationError::NoContactForces {
                        time: t,
                        contacts: touching.len(),
                    })?;
                crate::lcp::contact::apply_impulses(&mut bodies, &touching, &collision.impulses);
            }
        }
        StepImpulses::Sweeps { last } => {
            last.resize(model.contacts.len(), Vec3::zeros());
            let start: Vec<Vec3> = held.iter().map(|&i| last[i]).collect();
            let targets = vec![0.0; touching.len()];
            let found = iterative::impulses(
                &mut bodies,
                &touching,
                &start,
                &targets,
                model.holding.sliding_speed,
            );
            last.iter_mut().for_each(|p| *p = Vec3::zeros());
            for (&i, p) in held.iter().zip(found) {
                last[i] = p;
            }
        }
    }
    // 3. Positions and orientations from the new velocities.
    let mut next = y.to_vec();
    for (k, body) in bodies.iter().enumerate() {
        let base = PER_MEMBER * k;
        let s = state_of(y, k);
        let position = s.position + body.velocity * h;
        let orientation = crate::math::Quat::from_scaled_axis(body.angular_velocity * h) * s.orientation;
        let q = orientation.quaternion();
        next[base..base + 3].copy_from_slice(position.as_slice());
        next[base + 3..base + 7].copy_from_slice(&[q.w, q.i, q.j, q.k]);
        next[base + 7..base + 10].copy_from_slice(body.velocity.as_slice());
        next[base + 10..base + 13].copy_from_slice(body.angular_velocity.as_slice());
    }
    if next.iter().any(|x| !x.is_finite()) {
        return Err(IntegrationError::NonFinite { time: t });
    }
    Ok(next)
}
