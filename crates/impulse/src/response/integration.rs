//! Integrating a frictional collision (Mirtich §3.3).
//!
//! All quantities are in the collision frame: `u` is the relative velocity of the contact
//! points (body 1 minus body 2, `u_z < 0` approaching), `K` the collision matrix, `p` the impulse
//! on body 1. During the collision `du/dp_z = K ξ(θ)` while sliding in direction θ (Theorem 8),
//! and the normal impulse does work `dW_z/dp_z = u_z` (Theorem 12).
//!
//! Compression ends when `u_z = 0`, with normal work `W_c`. Stronge's law (the thesis) ends
//! restitution when `W_z = (1 − e²) W_c`; Poisson's law (Mirtich & Canny 1994) when
//! `p_z = (1 + e) p_mc`.
//!
//! The thesis integrates compression with `u_z` as the variable and restitution with `W_z` (eqs.
//! 3.8–3.9), since each phase's end is known in its own variable. That is valid only while `u_z`
//! rises monotonically with `p_z`, and it need not: when friction is strong and `K₃₃` small,
//! `k_z·ξ(θ)` turns negative as the sliding direction θ rotates, mid-compression (Theorem 17
//! promises monotonicity only eventually). We therefore integrate in `p_z`, which always increases,
//! and find each phase's end by root finding on the integrator's continuous output. The phases
//! share their equations of motion, so one integration runs through all of them and only its goal
//! changes where one ends (restarting it at each phase's end cost a sixth of a microcollision).
//! While the contact slides the equations are integrated numerically; once the tangential velocity
//! vanishes it sticks if friction can hold it (Theorem 9) and otherwise slides away along the
//! unique diverging ray (Theorem 16), both in closed form (eqs. 3.13–3.14).
//!
//! The impulse vector is integrated along with the velocity (`dp/dp_z = ξ`), not recovered as
//! `K⁻¹ (u_f − u_0)`: a multibody link's K can be singular (a pendulum bob cannot move
//! sideways), and then only the integrated impulse is meaningful.

mod sliding;

use super::sticking::{
    cone_share, diverging_ray, sliding_vector, stick_correction, sticking_direction,
};
use crate::integrate::Tolerance;
use crate::math::{Mat3, Vec3};
use sliding::SlideEnd;

/// How the normal impulse ends a collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub enum RestitutionLaw {
    /// Stronge's energetic law: normal work in restitution is `−e²` that of compression (the
    /// thesis; never gains energy).
    #[default]
    Stronge,
    /// Poisson's law: restitution impulse is `e` times the compression impulse (the 1994 paper;
    /// may gain energy with friction).
    Poisson,
}

/// What a collision did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Relative contact velocity after the collision (collision frame).
    pub final_velocity: Vec3,
    /// Impulse on body 1 (collision frame), with `K p = u_f − u_0`.
    pub impulse: Vec3,
    /// Work of the impulse, equal to the change of the bodies' kinetic energy (Theorem 11):
    /// `½ (u_f + u_0)ᵀ p`.
    pub work: f64,
    /// Work of the normal impulse during compression, `W_c`.
    pub compression_work: f64,
    /// Integration steps the sliding took (0 when the collision was closed form throughout).
    pub steps: u32,
    /// The sliding ran out of steps ([`MAX_SLIDING_STEPS`]) before the collision ended: the
    /// impulse is where the integration stopped, not the collision's. A stiff collision
    /// matrix does it (a link of 0.1 kg on a base of 1e13 kg: the tangential velocity along
    /// the light direction turns a million times faster than the collision proceeds).
    pub out_of_steps: bool,
}

/// How the contact slides.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Slide,
    Stick,
    /// Sliding in the constant direction β (a diverging ray).
    Ray(f64),
}

/// Integrates a collision with collision matrix `k`, initial relative velocity `u0` (u0.z < 0),
/// friction `mu` and restitution `e` (Stronge allows `e > 1`: microcollisions inject energy).
pub fn integrate(k: &Mat3, u0: &Vec3, mu: f64, e: f64, law: RestitutionLaw) -> Outcome {
    integrate_with(k, u0, mu, e, law, Options::default())
}

/// Bound on the integration steps of one sliding phase.
pub const MAX_SLIDING_STEPS: usize = 100_000;

/// The error the collision integration allows per step, relative to the collision's speed
/// `|u₀|` (see `Context::new`).
pub const TOLERANCE: f64 = 1e-8;

/// How [`integrate_with`] differs from [`integrate`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Restitution goes on until the contact separates at least this fast (a
    /// microcollision's rebound speed, §3.5 with our floor; see `contact::respond`); the extra
    /// restitution impulse obeys the same friction law. 0 by default.
    pub min_separation: f64,
    /// Every component is held to `tolerance · |u₀|` per step: [`TOLERANCE`] by default,
    /// e.g. 1e-13 for a reference solution.
    pub tolerance: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            min_separation: 0.0,
            tolerance: TOLERANCE,
        }
    }
}

/// [`integrate`] with a floor on the separating speed or another tolerance.
pub fn integrate_with(
    k: &Mat3,
    u0: &Vec3,
    mu: f64,
    e: f64,
    law: RestitutionLaw,
    options: Options,
) -> Outcome {
    let Options {
        min_separation,
        tolerance,
    } = options;
    let context = Context::new(k, mu, u0, tolerance);
    let start = State {
        u: *u0,
        impulse: Vec3::zeros(),
        w: 0.0,
        mode: context.initial_mode(u0),
    };
    let mut phases = Phases::new(law, e, min_separation);
    let end = context.advance(start, &mut phases);
    let (final_velocity, impulse) = (end.u, end.impulse);
    let work = 0.5 * (final_velocity + u0).dot(&impulse);
    Outcome {
        final_velocity,
        impulse,
        work,
        compression_work: phases.compression_work,
        steps: context.steps.get(),
        out_of_steps: context.out_of_steps.get(),
    }
}

/// The phases of a collision, in order: compression until `u_z = 0`; restitution until the
/// law's end; and, with a floor on the separating speed, on until the contact separates that
/// fast. All three follow the same equations of motion, so one integration runs through them
/// and only its goal changes where a phase ends.
struct Phases {
    law: RestitutionLaw,
    e: f64,
    min_separation: f64,
    /// The current phase's goal; `None` once the collision is over.
    goal: Option<Goal>,
    stage: Stage,
    /// `W_c`, once compression has ended.
    compression_work: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Compression,
    Restitution,
    Floor,
}

impl Phases {
    fn new(law: RestitutionLaw, e: f64, min_separation: f64) -> Self {
        Self {
            law,
            e,
            min_separation,
            goal: Some(Goal::NormalSpeed(0.0)),
            stage: Stage::Compression,
            compression_work: 0.0,
        }
    }

    /// The current phase has ended at `state`: the next phase's goal, or `None` when the
    /// collision is over. A phase whose goal `state` already meets is skipped.
    fn end_phase(&mut self, state: &State) -> Option<Goal> {
        if self.stage == Stage::Compression {
            self.compression_work = state.w;
            self.stage = Stage::Restitution;
            let goal = match self.law {
                RestitutionLaw::Stronge => Goal::Work((1.0 - self.e * self.e) * state.w),
                RestitutionLaw::Poisson => Goal::Impulse((1.0 + self.e) * state.impulse.z),
            };
            let done = match goal {
                Goal::Work(target) => state.w >= target,
                Goal::Impulse(target) => state.impulse.z >= target,
                Goal::NormalSpeed(_) => true,
            };
            if !done {
                self.goal = Some(goal);
                return self.goal;
            }
        }
        self.goal = if self.stage == Stage::Restitution && state.u.z < self.min_separation {
            self.stage = Stage::Floor;
            Some(Goal::NormalSpeed(self.min_separation))
        } else {
            None
        };
        self.goal
    }
}

/// Where a phase ends.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// The normal velocity reaches this value: 0 at maximum compression.
    NormalSpeed(f64),
    /// Stronge: the normal work reaches this value (with u_z > 0).
    Work(f64),
    /// Poisson: the normal impulse reaches this value.
    Impulse(f64),
}

/// The collision's progress: relative velocity, impulse (its `z` the normal impulse, the
/// integration variable), normal work, sliding mode.
#[derive(Clone, Copy, Debug)]
struct State {
    u: Vec3,
    impulse: Vec3,
    w: f64,
    mode: Mode,
}

struct Context<'a> {
    k: &'a Mat3,
    mu: f64,
    /// Impulse per unit normal impulse while stuck (eq. 3.6).
    stuck: Vec3,
    stable: bool,
    /// The diverging ray's direction when sticking is unstable, found when first needed (a
    /// polynomial's roots: most collisions never stick).
    diverging: std::cell::OnceCell<Option<f64>>,
    /// Tangential speed below which the contact counts as stuck.
    sticking_speed: f64,
    /// The integrated work is `W_z / work_scale` and the tangential impulse `p_t · |K|`, in
    /// velocity units like the other components, so that one absolute tolerance suits them all.
    work_scale: f64,
    impulse_scale: f64,
    tolerance: Tolerance,
    /// Integration steps taken so far.
    steps: std::cell::Cell<u32>,
    /// A sliding phase ran out of steps.
    out_of_steps: std::cell::Cell<bool>,
}

impl<'a> Context<'a> {
    fn new(k: &'a Mat3, mu: f64, u0: &Vec3, tolerance: f64) -> Self {
        let stuck = sticking_direction(k);
        let stable = stuck.x * stuck.x + stuck.y * stuck.y <= mu * mu; // Theorem 9
        let speed = u0.norm().max(f64::MIN_POSITIVE);
        let impulse_scale = k.norm().max(f64::MIN_POSITIVE);
        let work_scale = (speed / impulse_scale).max(f64::MIN_POSITIVE);
        // Every component (all in velocity units) is held to `tolerance` (1e-8 by default) of
        // the collision's speed |u₀|, the larger ones to that of themselves. A component
        // passing near zero needs no more: its error enters the result through K as a
        // velocity error of the same size. Over 3000 random collisions the final velocity is
        // within 4.1e-7 |u₀| of a 1e-13 integration, 99 % within 4.3e-8
        // (`tests/collision_response.rs`). Holding small components to 1e-10 |u₀| instead
        // took 1.3–1.6× the steps, ~20 % of the wall time of contact-heavy scenes.
        let absolute = tolerance * speed;
        Self {
            k,
            mu,
            stuck,
            stable,
            diverging: std::cell::OnceCell::new(),
            // Near u_t = 0 the sliding direction turns ever faster, and the error control
            // holds u_t only to about the absolute tolerance: below that the integration would
            // chatter about zero. Sticking is declared two orders of magnitude above it.
            sticking_speed: 100.0 * absolute,
            work_scale,
            impulse_scale,
            tolerance: Tolerance {
                relative: tolerance,
                absolute,
                max_step: f64::INFINITY,
                min_step: 0.0,
            },
            steps: std::cell::Cell::new(0),
            out_of_steps: std::cell::Cell::new(false),
        }
    }

    /// The mode once the tangential velocity has vanished.
    fn stuck_mode(&self) -> Mode {
        if self.stable {
            return Mode::Stick;
        }
        match *self
            .diverging
            .get_or_init(|| diverging_ray(self.k, self.mu))
        {
            Some(beta) => Mode::Ray(beta),
            // Unstable without a diverging ray can only be rounding at the boundary: stick.
            None => Mode::Stick,
        }
    }

    fn initial_mode(&self, u0: &Vec3) -> Mode {
        if u0.x.hypot(u0.y) < self.sticking_speed {
            self.stuck_mode()
        } else {
            Mode::Slide
        }
    }

    /// Runs the collision through its phases, sliding numerically and sticking or following
    /// a ray in closed form.
    fn advance(&self, mut state: State, phases: &mut Phases) -> State {
        while let Some(goal) = phases.goal {
            let (direction, rate) = match state.mode {
                // Stuck: the impulse keeps u_t = 0, so du/dp_z = (0, 0, 1/K⁻¹₃₃) (eq. 3.6).
                Mode::Stick => (self.stuck, Vec3::new(0.0, 0.0, (self.k * self.stuck).z)),
                // On a ray: du/dp_z = K ξ(β), constant.
                Mode::Ray(beta) => {
                    let xi = sliding_vector(self.mu, beta);
                    (xi, self.k * xi)
                }
                Mode::Slide => {
                    let (next, end) = self.slide(&state, phases);
                    state = next;
                    match end {
                        SlideEnd::Over => return state,
                        SlideEnd::Diverging(ray) => {
                            state.mode = Mode::Ray(ray);
                            continue;
                        }
                        SlideEnd::Stuck => {}
                        SlideEnd::Straight { xi, stuck_at } => {
                            // The rest of the approach to sticking is a straight line in the
                            // velocity plane (see `straight_finish`): slide on until the
                            // tangential velocity vanishes, ending the phases that end before.
                            let rate = self.k * xi;
                            while let Some(goal) = phases.goal {
                                let limit = stuck_at - state.impulse.z;
                                let (next, reached) = self.straight(&state, xi, rate, goal, limit);
                                state = next;
                                if !reached {
                                    break;
                                }
                                phases.end_phase(&state);
                            }
                            if phases.goal.is_none() {
                                return state;
                            }
                        }
                    }
                    // Stuck at a speed just above zero: the impulse that takes it to zero, as
                    // far as friction can supply it (see `cone_share`).
                    let correction = stick_correction(self.k, (state.u.x, state.u.y));
                    let share = cone_share(
                        (state.impulse.x, state.impulse.y),
                        state.impulse.z,
                        (correction.x, correction.y),
                        self.mu,
                    );
                    if share == 1.0 {
                        // All of it: u_t is zero by construction, and is set so exactly.
                        state.impulse.x += correction.x;
                        state.impulse.y += correction.y;
                        state.u = Vec3::new(0.0, 0.0, state.u.z + correction.z);
                    } else {
                        let partial = Vec3::new(share * correction.x, share * correction.y, 0.0);
                        state.impulse += partial;
                        state.u += self.k * partial;
                    }
                    state.mode = self.stuck_mode();
                    continue;
                }
            };
            state = self
                .straight(&state, direction, rate, goal, f64::INFINITY)
                .0;
            phases.end_phase(&state);
        }
        state
    }

    /// Advances with a constant impulse direction (`dp/dp_z = direction`, `du/dp_z = rate`) by
    /// at most `limit` in p_z, stopping at the goal if it comes first. u is linear in p_z and
    /// W_z quadratic (Observation 1), so the goal is solved for directly. Returns the state and
    /// whether the goal was reached. With no limit, a goal this motion cannot reach ends the
    /// phase where it is.
    fn straight(
        &self,
        state: &State,
        direction: Vec3,
        rate: Vec3,
        goal: Goal,
        limit: f64,
    ) -> (State, bool) {
        let to_goal = match goal {
            Goal::NormalSpeed(v) if rate.z > 0.0 => Some(((v - state.u.z) / rate.z).max(0.0)),
            Goal::NormalSpeed(_) => None,
            Goal::Impulse(target) => Some((target - state.impulse.z).max(0.0)),
            Goal::Work(target) => {
                // ½ r Δp² + u_z Δp = target − W, written without cancellation.
                let need = (target - state.w).max(0.0);
                let root = (state.u.z * state.u.z + 2.0 * rate.z * need)
                    .max(0.0)
                    .sqrt();
                (state.u.z + root > 0.0).then(|| 2.0 * need / (state.u.z + root))
            }
        };
        let to_goal = to_goal.unwrap_or(if limit.is_finite() {
            f64::INFINITY
        } else {
            0.0
        });
        let reached = to_goal <= limit;
        let dp = to_goal.min(limit);
        let u = state.u + rate * dp;
        let w = state.w + 0.5 * (state.u.z + u.z) * dp;
        let u = match goal {
            Goal::NormalSpeed(v) if reached => Vec3::new(u.x, u.y, v),
            _ => u,
        };
        let next = State {
            u,
            impulse: state.impulse + direction * dp,
            w,
            mode: state.mode,
        };
        (next, reached)
    }
}
