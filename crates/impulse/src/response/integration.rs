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

use super::sticking::{
    cone_share, cross_slope, diverging_ray, nearest_ray, ray_divergence, sliding_vector,
    stick_correction, sticking_direction,
};
use crate::integrate::{AdaptiveRk, OdeSystem, Tolerance};
use crate::math::{Mat3, Vec3};

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

    /// The straight finish of an approach to sticking from the tangential velocity `y[0..2]`:
    /// the impulse direction ξ and the normal impulse until the tangential velocity vanishes,
    /// if a straight line gets it there. It runs along `ray`, the converging ray the direction
    /// has reached (the direction itself where none is near), not the direction: about a ray
    /// that attracts nearby directions strongly, the integrated direction wobbles by the
    /// tolerance over the speed, and a slow approach in that direction would err in
    /// proportion.
    ///
    /// `None` where the line misses the origin by more than the sticking speed: a multibody
    /// link's singular K cannot change the tangential velocity along a direction it cannot
    /// move in, and a contact slowing towards that part of its velocity never sticks.
    fn straight_finish(&self, y: &[f64], ray: f64) -> Option<(Vec3, f64)> {
        let speed = y[0].hypot(y[1]);
        let xi = sliding_vector(self.mu, ray);
        let rate = self.k * xi;
        let closing = -(rate.x * y[0] + rate.y * y[1]) / speed;
        if closing.is_nan() || closing <= 0.0 {
            return None;
        }
        let to_stick = speed / closing;
        let missed = (y[0] + rate.x * to_stick).hypot(y[1] + rate.y * to_stick);
        (missed <= self.sticking_speed).then_some((xi, to_stick))
    }

    /// Integrates the sliding equations in p_z through the phases until the collision is
    /// over, until the contact sticks, or until the approach to sticking has become straight.
    /// Steps are capped so that the tangential speed at most halves per step: sticking is met,
    /// not stepped over. Where a phase ends inside a step, the step's interpolant gives the
    /// point, and the integration goes on from the step's end towards the next phase's goal.
    ///
    /// Why stop at a straight approach: near `u_t = 0` the sliding direction depends on `u_t`
    /// with a sensitivity `μ|K|/|u_t|`, so an explicit integrator's stable step shrinks in
    /// proportion to the speed, and the last eight decades to sticking took ~150 steps. Once
    /// the approach runs along a converging ray (Theorem 16: the only way a sliding contact
    /// comes to rest), its remaining motion is linear and [`Context::straight`] finishes it in
    /// closed form.
    fn slide(&self, state: &State, phases: &mut Phases) -> (State, SlideEnd) {
        let system = ImpulseSystem {
            k: self.k,
            mu: self.mu,
            work_scale: self.work_scale,
            impulse_scale: self.impulse_scale,
        };
        let (scale, impulse_scale) = (self.work_scale, self.impulse_scale);
        let reached = |goal: Goal, y: &[f64], p: f64| match goal {
            Goal::NormalSpeed(v) => y[2] >= v,
            Goal::Work(target) => y[2] > 0.0 && y[3] * scale >= target,
            Goal::Impulse(target) => p >= target,
        };
        // How far the goal is, continuous along the step: what the root finder interpolates.
        let shortfall = |goal: Goal, y: &[f64], p: f64| match goal {
            Goal::NormalSpeed(v) => y[2] - v,
            Goal::Work(target) => y[3] - target / scale,
            Goal::Impulse(target) => p - target,
        };
        let pack = |p: f64, y: &[f64]| State {
            u: Vec3::new(y[0], y[1], y[2]),
            impulse: Vec3::new(y[4] / impulse_scale, y[5] / impulse_scale, p),
            w: y[3] * scale,
            mode: Mode::Slide,
        };
        let Some(mut goal) = phases.goal else {
            return (*state, SlideEnd::Over);
        };
        let y0 = [
            state.u.x,
            state.u.y,
            state.u.z,
            state.w / scale,
            state.impulse.x * impulse_scale,
            state.impulse.y * impulse_scale,
        ];
        // One integrator per thread, restarted for each collision: no allocation per collision.
        let mut rk = Lent(SCRATCH.take());
        let started = match rk.0.as_mut() {
            Some(rk) => rk.restart(&system, state.impulse.z, &y0, self.tolerance),
            None => AdaptiveRk::new(&system, state.impulse.z, &y0, self.tolerance)
                .map(|started| rk.0 = Some(started)),
        };
        let (Ok(()), Some(rk)) = (started, rk.0.as_mut()) else {
            return (*state, SlideEnd::Over);
        };
        // The integrator's first step guess (Hairer's) is cautious, and a sliding contact's
        // phase took three steps growing it tenfold each. The tangential velocity's own rate
        // gives a better one: a step over which it changes by `FIRST_STEP_CHANGE` of itself
        // (sliding collisions 2.2 → 1.65 µs; the accuracy test's largest and 99th-percentile
        // errors unchanged).
        {
            let dy = rk.derivative();
            let speed = state.u.x.hypot(state.u.y);
            let change = dy[0].hypot(dy[1]);
            let gradual = if change > 0.0 {
                FIRST_STEP_CHANGE * speed / change
            } else {
                f64::INFINITY
            };
            let to_goal = match goal {
                Goal::NormalSpeed(v) if dy[2] > 0.0 => (v - state.u.z) / dy[2],
                _ => f64::INFINITY,
            };
            let guess = gradual.min(to_goal);
            if guess > rk.step_size() && guess.is_finite() {
                rk.suggest_step(guess);
            }
        }
        let mut was_straight = false;
        let mut was_on_ray = false;
        let mut y = [0.0; 6];
        let mut previous_speed = f64::INFINITY;
        for _ in 0..MAX_SLIDING_STEPS {
            let p = rk.time();
            y.copy_from_slice(rk.state());
            let speed = (y[0] * y[0] + y[1] * y[1]).sqrt();
            // Approaching sticking, the motion's scale is the tangential speed: the error
            // control's step grows after an accepted step, while the step the error allows
            // shrinks with the speed, and every step near sticking was tried twice. Shrinking
            // the guess with the speed saves those retries (sticking collisions 11.2 → 10.0 µs).
            if speed < previous_speed && previous_speed.is_finite() {
                rk.suggest_step(rk.step_size() * (speed / previous_speed));
            }
            previous_speed = speed;
            if speed < self.sticking_speed {
                return (pack(p, &y), SlideEnd::Stuck);
            }
            let dy = rk.derivative();
            let rate = (y[0] * dy[0] + y[1] * dy[1]) / speed;
            // Turning of the tangential velocity over the rest of the approach (radians), if
            // its rate of turning held: straight at two successive steps ends the integration.
            // Straight enough also when that turning, times the speed, is below the absolute
            // tolerance: finishing in a straight line then errs in the velocity by less than
            // the integration allows, where going on to the sticking speed and correcting
            // there errs by up to the sticking speed (the accuracy test's largest error fell
            // from 9.7e-7 to 4.1e-7 |u₀|, its 99th percentile from 1.2e-7 to 4.3e-8).
            let across = (y[0] * dy[1] - y[1] * dy[0]).abs() / speed;
            // Near a ray that attracts the directions about it (the cross condition's slope
            // f'(θ) < 0), the remaining turning is no more than the present deviation from the
            // ray, across / |f'(θ)|, however slowly the contact then slows: a sliding contact
            // that swung round onto a ray closing at 3e-4 of its speed's usual rate took 1560
            // steps to crawl down it, the integrator's direction wobbling about the ray by the
            // tolerance over the speed (a coin's microcollision). On such a ray to the
            // tolerance, whether it converges or diverges is read on the ray itself (Theorem
            // 14's û · u'), not from the derivative here: where K barely moves the contact
            // along one tangent, the directions about the ray are held by friction along the
            // other, a stiff balance the integrator keeps only to its tolerance, and the
            // derivative's tangential rate is noise of either sign (contacts crawling down such
            // rays took 10⁵ steps).
            let attraction = -cross_slope(self.k, self.mu, y[0] / speed, y[1] / speed);
            let on_ray = across * speed <= self.tolerance.absolute * attraction;
            let straight = on_ray
                || rate < 0.0
                    && (across <= STRAIGHT * -rate
                        || across * speed <= self.tolerance.absolute * -rate);
            // Either finish below runs along the ray nearest the direction reached, found once.
            let (straight_now, ray_now) = (straight && was_straight, on_ray && was_on_ray);
            // (The direction's angle only where a finish is tried: an `atan2` every step was
            // 3 % of the block drop's wall time.)
            let theta = (straight_now || ray_now).then(|| y[1].atan2(y[0]));
            let ray = theta.and_then(|theta| nearest_ray(self.k, self.mu, theta, RAY_REACH));
            if straight_now
                && let Some(theta) = theta
                && let Some((xi, to_stick)) = self.straight_finish(&y, ray.unwrap_or(theta))
            {
                let stuck_at = p + to_stick;
                return (pack(p, &y), SlideEnd::Straight { xi, stuck_at });
            }
            // Likewise a contact that has come onto an attracting diverging ray slides away
            // along it, and goes on to the collision's end in closed form (as after unstable
            // sticking), provided the normal velocity rises along the ray, so that the phases
            // end. A sliding direction that swept round near u_t = 0 spent a quarter of its
            // steps on the ray before.
            if ray_now
                && let Some(ray) = ray
                && ray_divergence(self.k, self.mu, ray) > 0.0
                && (self.k * sliding_vector(self.mu, ray)).z > 0.0
            {
                return (pack(p, &y), SlideEnd::Diverging(ray));
            }
            was_straight = straight;
            was_on_ray = on_ray;
            let to_stick = if rate < 0.0 {
                0.5 * speed / -rate
            } else {
                f64::INFINITY
            };
            let to_end = match goal {
                Goal::Impulse(target) => target - p,
                _ => f64::INFINITY,
            };
            rk.set_max_step(to_stick.min(to_end).max(f64::MIN_POSITIVE));
            self.steps.set(self.steps.get().saturating_add(1));
            if rk.step(&system).is_err() {
                break;
            }
            // Phases ending inside the step: find where on the step's interpolant, each from
            // where the one before ended.
            let mut lo = p;
            while reached(goal, rk.state(), rk.time()) {
                let hi = if let Goal::Impulse(target) = goal
                    && rk.time() == target
                {
                    target // the step was cut to end on the goal
                } else {
                    let before = shortfall(goal, &y, lo);
                    let after = shortfall(goal, rk.state(), rk.time());
                    // The goals read u_z and W_z only (y[2], y[3]), in velocity units: a
                    // point where the goal is met by less than a thousandth of the absolute
                    // tolerance is as good as the crossing.
                    let resolution = match goal {
                        Goal::Impulse(_) => 0.0,
                        _ => 1e-3 * self.tolerance.absolute,
                    };
                    first_crossing(lo, before, rk.time(), after, resolution, |q| {
                        y[2] = rk.component_at(q, 2);
                        y[3] = rk.component_at(q, 3);
                        (reached(goal, &y, q), shortfall(goal, &y, q))
                    })
                };
                rk.state_at(hi, &mut y);
                let mut found = pack(hi, &y);
                if let Goal::NormalSpeed(v) = goal {
                    found.u.z = v;
                }
                match phases.end_phase(&found) {
                    Some(next) => goal = next,
                    None => return (found, SlideEnd::Over),
                }
                lo = hi;
            }
        }
        // Out of steps (a stiff collision matrix, see `Outcome::out_of_steps`): stop sliding
        // here, impulse and velocity change consistent as integrated. Near sticking the rest
        // is closed form; otherwise the collision is unfinished, and the caller is told.
        let last = pack(rk.time(), rk.state());
        let stuck = last.u.x.hypot(last.u.y) < 1e3 * self.sticking_speed;
        if stuck {
            (last, SlideEnd::Stuck)
        } else {
            self.out_of_steps.set(true);
            phases.goal = None;
            (last, SlideEnd::Over)
        }
    }
}

/// Where a goal is first met inside an integration step `[lo, hi]`: the goal is not met at
/// `lo` and met at `hi`; `probe(q)` tells whether it is met at `q` and the shortfall there (a
/// continuous function, crossing zero where the goal is met). Regula falsi with the Illinois
/// modification (Dowell & Jarratt 1971): superlinear, where bisection needs ~50 halvings to
/// reach adjacent numbers. Returns a point where the goal is met, within a few ulps of the
/// crossing or with a shortfall of at most `resolution`.
fn first_crossing(
    mut lo: f64,
    mut g_lo: f64,
    mut hi: f64,
    mut g_hi: f64,
    resolution: f64,
    mut probe: impl FnMut(f64) -> (bool, f64),
) -> f64 {
    // Which end was kept last time (−1 low, +1 high), for the Illinois halving.
    let mut kept = 0;
    for _ in 0..100 {
        if g_hi.abs() <= resolution {
            break;
        }
        let width = hi - lo;
        if width <= 4.0 * f64::EPSILON * hi.abs().max(lo.abs()) {
            break;
        }
        // The secant's zero, kept off the ends (a plain halving when the values do not bracket).
        let mut q = if g_hi != g_lo && g_lo.signum() != g_hi.signum() {
            lo + width * (g_lo / (g_lo - g_hi))
        } else {
            lo + 0.5 * width
        };
        let margin = 1e-3 * width;
        if !(q > lo + margin && q < hi - margin) {
            q = q.clamp(lo + margin, hi - margin);
        }
        if q <= lo || q >= hi {
            break; // down to adjacent numbers
        }
        let (met, g) = probe(q);
        if met {
            hi = q;
            g_hi = g;
            if kept == -1 {
                g_lo *= 0.5;
            }
            kept = -1;
        } else {
            lo = q;
            g_lo = g;
            if kept == 1 {
                g_hi *= 0.5;
            }
            kept = 1;
        }
    }
    hi
}

/// How a stretch of sliding ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SlideEnd {
    /// The collision is over (or integration could not go on).
    Over,
    /// The tangential speed fell below the sticking speed.
    Stuck,
    /// The approach to sticking has become a straight line in the velocity plane: with the
    /// impulse direction ξ, the tangential velocity vanishes at normal impulse `stuck_at`.
    Straight { xi: Vec3, stuck_at: f64 },
    /// The contact has come onto a diverging ray (its direction) that attracts the directions
    /// near it: it slides away along the ray.
    Diverging(f64),
}

/// The approach to sticking counts as straight when the tangential velocity would turn by less
/// than this (radians) before it vanishes: the closed-form finish then errs in the tangential
/// impulse by at most `μ · STRAIGHT` of the remaining normal impulse.
const STRAIGHT: f64 = 1e-6;

/// How far from the direction reached a straight approach's ray may be found (radians).
const RAY_REACH: f64 = 1e-2;

/// How much the tangential velocity may change, relative to itself, over a sliding phase's
/// first step (see `Context::slide`).
const FIRST_STEP_CHANGE: f64 = 0.05;

thread_local! {
    /// The collision integration's integrator, kept between phases and collisions.
    static SCRATCH: std::cell::Cell<Option<AdaptiveRk>> = const { std::cell::Cell::new(None) };
}

/// The thread's integrator while a phase uses it; given back when the phase ends.
struct Lent(Option<AdaptiveRk>);

impl Drop for Lent {
    fn drop(&mut self) {
        SCRATCH.set(self.0.take());
    }
}

/// Bound on the integration steps of one sliding phase.
pub const MAX_SLIDING_STEPS: usize = 100_000;

/// Sliding with p_z as the variable (Theorem 8):
/// y = [u_x, u_y, u_z, W_z / work_scale, p_x · impulse_scale, p_y · impulse_scale].
struct ImpulseSystem<'a> {
    k: &'a Mat3,
    mu: f64,
    work_scale: f64,
    impulse_scale: f64,
}

impl OdeSystem for ImpulseSystem<'_> {
    fn dimension(&self) -> usize {
        6
    }
    fn derivative(&self, _p: f64, y: &[f64], dydt: &mut [f64]) {
        // ξ = (−μ û_t, 1) without trigonometry (Definition 2 with cos θ, sin θ = û_t).
        // (Not `hypot`: its overflow care costs a fifth of a collision here, and velocities are
        // far from overflowing when squared.)
        let speed = (y[0] * y[0] + y[1] * y[1]).sqrt();
        let xi = if speed > 0.0 {
            Vec3::new(-self.mu * y[0] / speed, -self.mu * y[1] / speed, 1.0)
        } else {
            Vec3::new(0.0, 0.0, 1.0)
        };
        let kx = self.k * xi;
        dydt[0] = kx.x;
        dydt[1] = kx.y;
        dydt[2] = kx.z;
        dydt[3] = y[2] / self.work_scale;
        dydt[4] = xi.x * self.impulse_scale;
        dydt[5] = xi.y * self.impulse_scale;
    }
}
