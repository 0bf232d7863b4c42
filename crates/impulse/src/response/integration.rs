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
//! The thesis integrates compression with `u_z` as the variable and restitution with `W_z`
//! (eqs. 3.8–3.9), since each phase's end is known in its own variable. That is valid only
//! while `u_z` rises monotonically with `p_z`, and it need not: when friction is strong and
//! `K₃₃` small, `k_z·ξ(θ)` turns negative as the sliding direction θ rotates, mid-compression
//! (Theorem 17 promises monotonicity only eventually). We therefore integrate in `p_z`, which
//! always increases, and find each phase's end by bisection on the integrator's continuous
//! output. While the contact slides the equations are integrated numerically; once the
//! tangential velocity vanishes it sticks if friction can hold it (Theorem 9) and otherwise
//! slides away along the unique diverging ray (Theorem 16), both in closed form
//! (eqs. 3.13–3.14).
//!
//! The impulse vector is integrated along with the velocity (`dp/dp_z = ξ`), not recovered as
//! `K⁻¹ (u_f − u_0)`: a multibody link's K can be singular (a pendulum bob cannot move
//! sideways), and then only the integrated impulse is meaningful.

use super::sticking::{diverging_ray, sliding_vector, stick_correction, sticking_direction};
use crate::integrate::{AdaptiveRk, OdeSystem, Tolerance};
use crate::math::{Mat3, Vec3};

/// How the normal impulse ends a collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
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
    let context = Context::new(k, mu, u0);
    let start = State {
        u: *u0,
        impulse: Vec3::zeros(),
        w: 0.0,
        mode: context.initial_mode(u0),
    };
    // Compression: until u_z = 0.
    let compressed = context.advance(start, Goal::NormalRest);
    let compression_work = compressed.w;
    let goal = match law {
        RestitutionLaw::Stronge => Goal::Work((1.0 - e * e) * compression_work),
        RestitutionLaw::Poisson => Goal::Impulse((1.0 + e) * compressed.impulse.z),
    };
    let done = match goal {
        Goal::Work(target) => compressed.w >= target,
        Goal::Impulse(target) => compressed.impulse.z >= target,
        Goal::NormalRest => true,
    };
    let end = if done {
        compressed
    } else {
        context.advance(compressed, goal)
    };
    let (final_velocity, impulse) = (end.u, end.impulse);
    let work = 0.5 * (final_velocity + u0).dot(&impulse);
    Outcome {
        final_velocity,
        impulse,
        work,
        compression_work,
    }
}

/// Where a phase ends.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// Maximum compression: u_z = 0.
    NormalRest,
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
    diverging: Option<f64>,
    /// Tangential speed below which the contact counts as stuck.
    sticking_speed: f64,
    /// The integrated work is `W_z / work_scale` and the tangential impulse `p_t · |K|`, in
    /// velocity units like the other components, so that one absolute tolerance suits them all.
    work_scale: f64,
    impulse_scale: f64,
    tolerance: Tolerance,
}

impl<'a> Context<'a> {
    fn new(k: &'a Mat3, mu: f64, u0: &Vec3) -> Self {
        let stuck = sticking_direction(k);
        let stable = stuck.x * stuck.x + stuck.y * stuck.y <= mu * mu; // Theorem 9
        let speed = u0.norm().max(f64::MIN_POSITIVE);
        let impulse_scale = k.norm().max(f64::MIN_POSITIVE);
        let work_scale = (speed / impulse_scale).max(f64::MIN_POSITIVE);
        // Near u_t = 0 the sliding direction turns ever faster, and the error control holds
        // u_t only to about the absolute tolerance: below that the integration would chatter
        // about zero. Sticking is declared four orders of magnitude above it.
        let absolute = 1e-12 * speed;
        Self {
            k,
            mu,
            stuck,
            stable,
            diverging: if stable { None } else { diverging_ray(k, mu) },
            sticking_speed: 1e4 * absolute,
            work_scale,
            impulse_scale,
            tolerance: Tolerance {
                relative: 1e-10,
                absolute,
                max_step: f64::INFINITY,
                min_step: 0.0,
            },
        }
    }

    /// The mode once the tangential velocity has vanished.
    fn stuck_mode(&self) -> Mode {
        match (self.stable, self.diverging) {
            (false, Some(beta)) => Mode::Ray(beta),
            // Unstable without a diverging ray can only be rounding at the boundary: stick.
            _ => Mode::Stick,
        }
    }

    fn initial_mode(&self, u0: &Vec3) -> Mode {
        if u0.x.hypot(u0.y) < self.sticking_speed {
            self.stuck_mode()
        } else {
            Mode::Slide
        }
    }

    /// Advances the collision until `goal`, sliding numerically and sticking or following a ray
    /// in closed form.
    fn advance(&self, mut state: State, goal: Goal) -> State {
        loop {
            let (direction, rate) = match state.mode {
                // Stuck: the impulse keeps u_t = 0, so du/dp_z = (0, 0, 1/K⁻¹₃₃) (eq. 3.6).
                Mode::Stick => (self.stuck, Vec3::new(0.0, 0.0, (self.k * self.stuck).z)),
                // On a ray: du/dp_z = K ξ(β), constant.
                Mode::Ray(beta) => {
                    let xi = sliding_vector(self.mu, beta);
                    (xi, self.k * xi)
                }
                Mode::Slide => {
                    let (next, stuck) = self.slide(&state, goal);
                    state = next;
                    if !stuck {
                        return state;
                    }
                    // Stuck at a speed just above zero: the impulse that takes it to zero.
                    let correction = stick_correction(self.k, (state.u.x, state.u.y));
                    state.impulse.x += correction.x;
                    state.impulse.y += correction.y;
                    state.u = Vec3::new(0.0, 0.0, state.u.z + correction.z);
                    state.mode = self.stuck_mode();
                    continue;
                }
            };
            // u is linear in p_z, W_z quadratic (Observation 1): solve for the goal directly.
            let dp = match goal {
                Goal::NormalRest if rate.z > 0.0 => (-state.u.z / rate.z).max(0.0),
                Goal::NormalRest => 0.0,
                Goal::Impulse(target) => (target - state.impulse.z).max(0.0),
                Goal::Work(target) => {
                    // ½ r Δp² + u_z Δp = target − W, written without cancellation.
                    let need = (target - state.w).max(0.0);
                    let root = (state.u.z * state.u.z + 2.0 * rate.z * need)
                        .max(0.0)
                        .sqrt();
                    if state.u.z + root > 0.0 {
                        2.0 * need / (state.u.z + root)
                    } else {
                        0.0
                    }
                }
            };
            let u = state.u + rate * dp;
            let w = state.w + 0.5 * (state.u.z + u.z) * dp;
            let u = match goal {
                Goal::NormalRest => Vec3::new(u.x, u.y, 0.0),
                _ => u,
            };
            return State {
                u,
                impulse: state.impulse + direction * dp,
                w,
                mode: state.mode,
            };
        }
    }

    /// Integrates the sliding equations in p_z until `goal` or until the contact sticks.
    /// Steps are capped so that the tangential speed at most halves per step: sticking is met,
    /// not stepped over. Returns the new state and whether the contact stuck.
    fn slide(&self, state: &State, goal: Goal) -> (State, bool) {
        let system = ImpulseSystem {
            k: self.k,
            mu: self.mu,
            work_scale: self.work_scale,
            impulse_scale: self.impulse_scale,
        };
        let (scale, impulse_scale) = (self.work_scale, self.impulse_scale);
        let reached = |y: &[f64], p: f64| match goal {
            Goal::NormalRest => y[2] >= 0.0,
            Goal::Work(target) => y[2] > 0.0 && y[3] * scale >= target,
            Goal::Impulse(target) => p >= target,
        };
        let end = match goal {
            Goal::Impulse(target) => target,
            _ => f64::INFINITY,
        };
        let pack = |p: f64, y: &[f64]| State {
            u: Vec3::new(y[0], y[1], y[2]),
            impulse: Vec3::new(y[4] / impulse_scale, y[5] / impulse_scale, p),
            w: y[3] * scale,
            mode: Mode::Slide,
        };
        let y0 = [
            state.u.x,
            state.u.y,
            state.u.z,
            state.w / scale,
            state.impulse.x * impulse_scale,
            state.impulse.y * impulse_scale,
        ];
        let Ok(mut rk) = AdaptiveRk::new(&system, state.impulse.z, &y0, self.tolerance) else {
            return (*state, false);
        };
        let mut y = [0.0; 6];
        let mut dy = [0.0; 6];
        for _ in 0..MAX_SLIDING_STEPS {
            let p = rk.time();
            y.copy_from_slice(rk.state());
            let speed = y[0].hypot(y[1]);
            if speed < self.sticking_speed {
                return (pack(p, &y), true);
            }
            system.derivative(p, &y, &mut dy);
            let rate = (y[0] * dy[0] + y[1] * dy[1]) / speed;
            let to_stick = if rate < 0.0 {
                0.5 * speed / -rate
            } else {
                f64::INFINITY
            };
            rk.set_max_step(to_stick.min(end - p).max(f64::MIN_POSITIVE));
            if rk.step(&system).is_err() {
                break;
            }
            // The goal met inside the step: find where on the step's interpolant.
            if reached(rk.state(), rk.time()) {
                let (mut lo, mut hi) = (p, rk.time());
                for _ in 0..100 {
                    let mid = 0.5 * (lo + hi);
                    if mid <= lo || mid >= hi {
                        break; // the interval is down to adjacent numbers
                    }
                    rk.state_at(mid, &mut y);
                    if reached(&y, mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                rk.state_at(hi, &mut y);
                let mut found = pack(hi, &y);
                if let Goal::NormalRest = goal {
                    found.u.z = 0.0;
                }
                return (found, false);
            }
        }
        // Out of steps (not seen in practice): stop sliding here, impulse and velocity change
        // consistent as integrated.
        let last = pack(rk.time(), rk.state());
        (last, last.u.x.hypot(last.u.y) < 1e3 * self.sticking_speed)
    }
}

/// Bound on the integration steps of one sliding phase.
const MAX_SLIDING_STEPS: usize = 100_000;

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
        let speed = y[0].hypot(y[1]);
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
