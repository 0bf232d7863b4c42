//! Adaptive embedded Runge–Kutta integration of any ODE system `ẏ = f(t, y)`.
//!
//! The thesis integrates with an adaptive RK4 by step doubling (Mirtich §7.4, 11 evaluations a
//! step). We use the Dormand–Prince 5(4) pair instead (Hairer, Nørsett & Wanner, *Solving ODEs
//! I*, §II.5): an embedded error estimate at 6 evaluations a step (first-same-as-last), PI step
//! control, and a continuous 4th-order interpolant over each accepted step ("dense output").
//!
//! Dense output is what lets the simulator sample a trajectory at arbitrary times (output frames,
//! collision checks) *without* cutting the step sequence: the steps depend only on the initial
//! state and the tolerances, so adding an output frame cannot change the physics.
//!
//! The system may project its state back onto a manifold after each accepted step (unit
//! quaternions): [`OdeSystem::project`].
//!
//! [`OdeSystem::project`]: crate::integrate::OdeSystem::project

use std::fmt;

/// A first-order ODE system `ẏ = f(t, y)` of fixed dimension.
pub trait OdeSystem {
    /// Number of state variables.
    fn dimension(&self) -> usize;
    /// Writes `f(t, y)` into `dydt`.
    fn derivative(&self, t: f64, y: &[f64], dydt: &mut [f64]);
    /// Projects an accepted state back onto the system's manifold (e.g. renormalises a
    /// quaternion). Returns true if the state changed.
    fn project(&self, _y: &mut [f64]) -> bool {
        false
    }
}

/// Error-control settings of the adaptive integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Tolerance {
    /// Relative error allowed per step.
    pub relative: f64,
    /// Absolute error allowed per step (in the state's units).
    pub absolute: f64,
    /// Largest step the integrator may take.
    pub max_step: f64,
    /// Smallest step the integrator may take; needing a smaller one is an error (the motion is
    /// too fast or too stiff to integrate, e.g. a spin above ~1e10 rad/s with time in seconds).
    pub min_step: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            relative: 1e-10,
            absolute: 1e-12,
            max_step: 0.1,
            min_step: 1e-12,
        }
    }
}

/// Why an integration could not continue.
#[derive(Clone, Debug, PartialEq)]
pub enum IntegrationError {
    /// The derivative or the state became NaN or infinite.
    NonFinite {
        /// Time at which it happened.
        time: f64,
    },
    /// The step size fell below what `f64` resolves at this time (a stiff or singular system).
    StepSizeUnderflow {
        /// Time at which it happened.
        time: f64,
        /// The step size that was attempted.
        step: f64,
    },
    /// More steps were held at once (from `from` to `time`) than a flight may keep before the
    /// next controller update or frame: a stiff or unstable motion that would fill memory.
    TooManySteps {
        /// Where the held steps start.
        from: f64,
        /// Time reached.
        time: f64,
        /// Steps held.
        steps: usize,
    },
    /// Stopped from outside (Ctrl-C, SIGTERM: see `World::set_interrupt`) at `time`.
    Interrupted {
        /// Time reached.
        time: f64,
    },
    /// A constraint group's contact problem had no valid forces at `time`, again after each
    /// answer by impulses (Lemke could not solve it, or its answer failed its check).
    NoContactForces {
        /// Time at which it happened.
        time: f64,
        /// Contacts the group held.
        contacts: usize,
    },
}

impl fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { time } => write!(f, "state became non-finite at t = {time}"),
            Self::StepSizeUnderflow { time, step } => write!(
                f,
                "step size {step:e} underflowed at t = {time}: the motion is too stiff or singular to integrate"
            ),
            Self::TooManySteps { from, time, steps } => write!(
                f,
                "{steps} integration steps from t = {from} only reached t = {time}: the motion is \
                 too stiff or unstable to integrate (a controller's gains too high for its \
                 `rate`, or joints that fight each other, such as two coaxial revolutes?)"
            ),
            Self::Interrupted { time } => write!(f, "interrupted at t = {time}"),
            Self::NoContactForces { time, contacts } => write!(
                f,
                "no valid contact forces for {contacts} held contacts at t = {time}, even after \
                 answering the configuration by impulses: Lemke's algorithm could not solve its \
                 contact problem (too many redundant contacts for the constraint model; try \
                 `contact_model = \"impulse\"`)"
            ),
        }
    }
}

impl std::error::Error for IntegrationError {}

// Dormand–Prince 5(4) coefficients (Hairer, Nørsett & Wanner, Table II.5.2).
const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const A71: f64 = 35.0 / 384.0;
const A73: f64 = 500.0 / 1113.0;
const A74: f64 = 125.0 / 192.0;
const A75: f64 = -2187.0 / 6784.0;
const A76: f64 = 11.0 / 84.0;
// Error weights: 5th-order minus embedded 4th-order solution.
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;
// Dense-output weights (Hairer's `dopri5`, contd5).
const D1: f64 = -12715105075.0 / 11282082432.0;
const D3: f64 = 87487479700.0 / 32700410799.0;
const D4: f64 = -10690763975.0 / 1880347072.0;
const D5: f64 = 701980252875.0 / 199316789632.0;
const D6: f64 = -1453857185.0 / 822651844.0;
const D7: f64 = 69997945.0 / 29380423.0;

// Step-size controller (Hairer's defaults).
const SAFETY: f64 = 0.9;
const MIN_FACTOR: f64 = 0.2;
const MAX_FACTOR: f64 = 10.0;
const PI_BETA: f64 = 0.04;
/// ln 1e-4: the controller remembers errors of at least 1e-4.
const LOG_MIN_ERROR: f64 = -9.210340371976182;

/// The continuous output of one accepted step, over `[start, end]`.
#[derive(Clone, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct StepInterpolant {
    start: f64,
    step: f64,
    end: f64,
    end_state: Vec<f64>,
    dense: Vec<f64>,
}

impl StepInterpolant {
    /// Start of the step.
    pub fn start(&self) -> f64 {
        self.start
    }

    /// End of the step.
    pub fn end(&self) -> f64 {
        self.end
    }

    /// A step from `(start, y0)` to `(end, y1)` whose states in between are interpolated
    /// linearly (the output of a first-order step).
    pub(crate) fn linear(start: f64, end: f64, y0: &[f64], y1: &[f64]) -> Self {
        // `contd5`'s blocks with only the first two non-zero: y0 + θ (y1 − y0).
        let mut dense = vec![0.0; 5 * y0.len()];
        dense[..y0.len()].copy_from_slice(y0);
        for (d, (a, b)) in dense[y0.len()..2 * y0.len()].iter_mut().zip(y0.iter().zip(y1)) {
            *d = b - a;
        }
        Self {
            start,
            step: end - start,
            end,
            end_state: y1.to_vec(),
            dense,
        }
    }

    /// Writes the state at `t ∈ [start, end]` into `out` (the step's end state from `end` on).
    pub fn state_at(&self, t: f64, out: &mut [f64]) {
        if t >= self.end {
            out.copy_from_slice(&self.end_state);
        } else {
            interpolate(&self.dense, self.start, self.step, t, out);
        }
    }
}

/// Evaluates Hairer's `contd5` interpolant of the step `[start, start + step]` at `t`.
fn interpolate(dense: &[f64], start: f64, step: f64, t: f64, out: &mut [f64]) {
    let n = out.len();
    let theta = (t - start) / step;
    for (i, value) in out.iter_mut().enumerate() {
        *value = interpolate_component(dense, n, i, theta);
    }
}

/// Component `i` of `contd5` at `θ` (the fraction of the step), from its 5 blocks of `n`.
fn interpolate_component(dense: &[f64], n: usize, i: usize, theta: f64) -> f64 {
    let theta1 = 1.0 - theta;
    let r = |k: usize| dense[k * n + i];
    r(0) + theta * (r(1) + theta1 * (r(2) + theta * (r(3) + theta1 * r(4))))
}

/// An adaptive Dormand–Prince 5(4) integrator positioned at the end of its last accepted step,
/// able to interpolate anywhere inside that step.
#[derive(Clone, Debug)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct AdaptiveRk {
    tolerance: Tolerance,
    n: usize,
    /// Time and state at the end of the last accepted step.
    t: f64,
    y: Vec<f64>,
    /// Derivative at `(t, y)` (first-same-as-last).
    f: Vec<f64>,
    /// Step size to try next.
    h: f64,
    /// Controller memory for the PI step control: the last accepted error (at least 1e-4)
    /// to the power `PI_BETA`.
    previous_error_power: f64,
    /// Start time and length of the last accepted step (`h_last = 0` before the first step).
    t_last: f64,
    h_last: f64,
    /// Interpolation coefficients of the last accepted step, 5 blocks of `n`, built when
    /// first asked for (`dense_ready`): a collision integration interpolates in one step of
    /// ten or so, where a phase ends, and building them at every step was 4 % of a pile of
    /// dominos.
    dense: Vec<f64>,
    dense_ready: bool,
    /// A trial has overwritten the stages since the last accepted step, whose interpolant was
    /// not built.
    stages_overwritten: bool,
    /// State and derivative at the start of the last accepted step (for the interpolant).
    start_y: Vec<f64>,
    start_f: Vec<f64>,
    /// Scratch: stage derivatives k2..k7 and a trial state. After an accepted step they hold
    /// its stages and its end state before any projection, until the next step is tried.
    stages: Vec<f64>,
    trial: Vec<f64>,
    steps_accepted: u64,
    steps_rejected: u64,
}

impl AdaptiveRk {
    /// Starts an integration of `system` from `(t0, y0)`.
    pub fn new<S: OdeSystem + ?Sized>(
        system: &S,
        t0: f64,
        y0: &[f64],
        tolerance: Tolerance,
    ) -> Result<Self, IntegrationError> {
        let mut integrator = Self {
            tolerance,
            n: 0,
            t: t0,
            y: Vec::new(),
            f: Vec::new(),
            h: 0.0,
            previous_error_power: 0.0,
            t_last: t0,
            h_last: 0.0,
            dense: Vec::new(),
            dense_ready: false,
            stages_overwritten: false,
            start_y: Vec::new(),
            start_f: Vec::new(),
            stages: Vec::new(),
            trial: Vec::new(),
            steps_accepted: 0,
            steps_rejected: 0,
        };
        integrator.restart(system, t0, y0, tolerance)?;
        Ok(integrator)
    }

    /// Starts afresh from `(t0, y0)` (what [`AdaptiveRk::new`] does), reusing this
    /// integrator's storage (a collision integrates several short phases, and allocating for
    /// each was a few percent of a contact-heavy scene).
    pub fn restart<S: OdeSystem + ?Sized>(
        &mut self,
        system: &S,
        t0: f64,
        y0: &[f64],
        tolerance: Tolerance,
    ) -> Result<(), IntegrationError> {
        let n = system.dimension();
        assert_eq!(y0.len(), n, "state length must match the system dimension");
        self.f.resize(n, 0.0);
        system.derivative(t0, y0, &mut self.f);
        if !all_finite(y0) || !all_finite(&self.f) {
            return Err(IntegrationError::NonFinite { time: t0 });
        }
        self.tolerance = tolerance;
        self.n = n;
        self.t = t0;
        self.y.clear();
        self.y.extend_from_slice(y0);
        self.previous_error_power = (PI_BETA * LOG_MIN_ERROR).exp();
        self.t_last = t0;
        self.h_last = 0.0;
        self.dense.resize(5 * n, 0.0);
        self.dense_ready = false;
        self.stages_overwritten = false;
        self.start_y.resize(n, 0.0);
        self.start_f.resize(n, 0.0);
        self.stages.resize(6 * n, 0.0);
        self.trial.resize(n, 0.0);
        self.steps_accepted = 0;
        self.steps_rejected = 0;
        self.h = self.initial_step(system);
        Ok(())
    }

    /// Time at the end of the last accepted step.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// State at the end of the last accepted step.
    pub fn state(&self) -> &[f64] {
        &self.y
    }

    /// The derivative at the end of the last accepted step (first-same-as-last: already
    /// evaluated, it starts the next step).
    pub fn derivative(&self) -> &[f64] {
        &self.f
    }

    /// Evaluates the derivative at the end of the last accepted step again (the next step's
    /// first stage), after the system changed there without a restart.
    pub fn refresh_derivative<S: OdeSystem + ?Sized>(
        &mut self,
        system: &S,
    ) -> Result<(), IntegrationError> {
        system.derivative(self.t, &self.y, &mut self.f);
        if !all_finite(&self.f) {
            return Err(IntegrationError::NonFinite { time: self.t });
        }
        Ok(())
    }

    /// Caps the size of the steps that follow (e.g. to approach an event without stepping
    /// over it).
    pub fn set_max_step(&mut self, max_step: f64) {
        self.tolerance.max_step = max_step;
    }

    /// The size the next step will try.
    pub fn step_size(&self) -> f64 {
        self.h
    }

    /// Tries `h` as the next step instead of the current guess (when `h` is positive and
    /// finite): a restarted integration of a similar motion (after an impulse, say) resumes at
    /// the step size the last one had reached instead of growing it again from a cautious start.
    pub fn suggest_step(&mut self, h: f64) {
        if h > 0.0 && h.is_finite() {
            self.h = h.min(self.tolerance.max_step);
        }
    }

    /// Accepted and rejected step counts so far.
    pub fn step_counts(&self) -> (u64, u64) {
        (self.steps_accepted, self.steps_rejected)
    }

    /// Takes accepted steps until the last one covers `t` (no step is cut short at `t`).
    pub fn advance_past<S: OdeSystem + ?Sized>(
        &mut self,
        system: &S,
        t: f64,
    ) -> Result<(), IntegrationError> {
        while self.t < t {
            self.step(system)?;
        }
        Ok(())
    }

    /// Writes the state at time `t` into `out`, interpolating inside the last accepted step.
    ///
    /// `t` must lie in `[start of last step, time()]`; before any step, only `t == time()` is
    /// exact (the initial state), and likewise after a step that failed with an error.
    pub fn state_at(&mut self, t: f64, out: &mut [f64]) {
        if self.h_last == 0.0 || t >= self.t {
            out.copy_from_slice(&self.y);
            return;
        }
        self.build_dense();
        interpolate(&self.dense, self.t_last, self.h_last, t, out);
    }

    /// Component `i` of the state at time `t`, as [`AdaptiveRk::state_at`] gives it (for root
    /// finding on one or two components without interpolating them all).
    pub fn component_at(&mut self, t: f64, i: usize) -> f64 {
        if self.h_last == 0.0 || t >= self.t {
            return self.y[i];
        }
        self.build_dense();
        let theta = (t - self.t_last) / self.h_last;
        interpolate_component(&self.dense, self.n, i, theta)
    }

    /// The last accepted step's continuous output, to be kept and sampled after later steps
    /// (`None` before the first step). Sampling it gives exactly what [`AdaptiveRk::state_at`]
    /// gave while it was the last step.
    pub fn last_step(&mut self) -> Option<StepInterpolant> {
        self.build_dense();
        (self.h_last != 0.0).then(|| StepInterpolant {
            start: self.t_last,
            step: self.h_last,
            end: self.t,
            end_state: self.y.clone(),
            dense: self.dense.clone(),
        })
    }

    /// Takes one accepted step, retrying with smaller steps as the error control requires.
    ///
    /// A failed trial overwrites the stages the last step's interpolant is built from: after
    /// an error, that interpolant is gone unless it was built before, and `state_at` gives
    /// the state at `time()` throughout the step.
    pub fn step<S: OdeSystem + ?Sized>(&mut self, system: &S) -> Result<(), IntegrationError> {
        loop {
            let h = self.h.min(self.tolerance.max_step);
            if self.too_small(h) {
                self.forget_unbuilt_interpolant();
                return Err(IntegrationError::StepSizeUnderflow {
                    time: self.t,
                    step: h,
                });
            }
            if !self.dense_ready {
                self.stages_overwritten = true;
            }
            let error = match self.n {
                6 => self.trial_step::<S, 6>(system, h),
                7 => self.trial_step::<S, 7>(system, h),
                _ => self.trial_step::<S, 0>(system, h),
            };
            if !error.is_finite() {
                // Treat a non-finite trial as a failed step; shrink hard and retry.
                self.steps_rejected += 1;
                self.h = h * MIN_FACTOR;
                if self.too_small(self.h) {
                    self.forget_unbuilt_interpolant();
                    return Err(IntegrationError::NonFinite { time: self.t });
                }
                continue;
            }
            // PI step-size control (Hairer's dopri5), with the powers as exponentials of one
            // logarithm per step (two `powf` calls were a tenth of a collision's cost).
            let log_error = error.ln();
            let fac11 = ((0.2 - PI_BETA * 0.75) * log_error).exp();
            if error <= 1.0 {
                let factor = (fac11 / self.previous_error_power / SAFETY)
                    .clamp(1.0 / MAX_FACTOR, 1.0 / MIN_FACTOR);
                self.previous_error_power = (PI_BETA * log_error.max(LOG_MIN_ERROR)).exp();
                match self.n {
                    6 => self.accept::<S, 6>(system, h),
                    7 => self.accept::<S, 7>(system, h),
                    _ => self.accept::<S, 0>(system, h),
                }
                self.h = h / factor;
                self.steps_accepted += 1;
                return Ok(());
            }
            self.steps_rejected += 1;
            self.h = h / (fac11 / SAFETY).min(1.0 / MIN_FACTOR);
        }
    }

    /// After a failed step: the last step's interpolant cannot be built any more if its
    /// stages were overwritten by a trial.
    fn forget_unbuilt_interpolant(&mut self) {
        if self.stages_overwritten {
            self.h_last = 0.0;
        }
    }

    /// True when a step of `h` is below the allowed minimum or no longer moves time forward.
    fn too_small(&self, h: f64) -> bool {
        h < self.tolerance.min_step || h <= 16.0 * f64::EPSILON * self.t.abs()
    }

    /// Computes the stages of a step of size `h` from `(t, y)`; leaves the 5th-order solution in
    /// `trial`, k7 in the last stage block, and returns the scaled error norm.
    ///
    /// `N` is the dimension when it is known at compile time (0: `self.n`): the collision
    /// integration's 6 and a free body's 7 then get loops of fixed length, unrolled and without
    /// bounds checks, doing the same arithmetic in the same order.
    fn trial_step<S: OdeSystem + ?Sized, const N: usize>(&mut self, system: &S, h: f64) -> f64 {
        let n = if N == 0 { self.n } else { N };
        let t = self.t;
        let y = &self.y[..n];
        let k1 = &self.f[..n];
        let (k2, rest) = self.stages.split_at_mut(n);
        let (k3, rest) = rest.split_at_mut(n);
        let (k4, rest) = rest.split_at_mut(n);
        let (k5, rest) = rest.split_at_mut(n);
        let (k6, k7) = rest.split_at_mut(n);
        let k7 = &mut k7[..n];
        let trial = &mut self.trial[..n];

        for i in 0..n {
            trial[i] = y[i] + h * A21 * k1[i];
        }
        system.derivative(t + C2 * h, trial, k2);
        for i in 0..n {
            trial[i] = y[i] + h * (A31 * k1[i] + A32 * k2[i]);
        }
        system.derivative(t + C3 * h, trial, k3);
        for i in 0..n {
            trial[i] = y[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
        }
        system.derivative(t + C4 * h, trial, k4);
        for i in 0..n {
            trial[i] = y[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
        }
        system.derivative(t + C5 * h, trial, k5);
        for i in 0..n {
            trial[i] =
                y[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] + A65 * k5[i]);
        }
        system.derivative(t + h, trial, k6);
        for i in 0..n {
            trial[i] =
                y[i] + h * (A71 * k1[i] + A73 * k3[i] + A74 * k4[i] + A75 * k5[i] + A76 * k6[i]);
        }
        system.derivative(t + h, trial, k7);

        let mut sum = 0.0;
        for i in 0..n {
            let estimate =
                h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i]);
            let scale =
                self.tolerance.absolute + self.tolerance.relative * y[i].abs().max(trial[i].abs());
            let ratio = estimate / scale;
            sum += ratio * ratio;
            if !trial[i].is_finite() || !k7[i].is_finite() {
                return f64::NAN;
            }
        }
        (sum / n as f64).sqrt()
    }

    /// Accepts the trial step of size `h` and moves on, keeping what the step's interpolant
    /// is built from (see [`AdaptiveRk::build_dense`]).
    fn accept<S: OdeSystem + ?Sized, const N: usize>(&mut self, system: &S, h: f64) {
        let n = if N == 0 { self.n } else { N };
        self.t_last = self.t;
        self.h_last = h;
        self.t += h;
        std::mem::swap(&mut self.start_y, &mut self.y);
        std::mem::swap(&mut self.start_f, &mut self.f);
        self.y.copy_from_slice(&self.trial);
        self.dense_ready = false;
        self.stages_overwritten = false;
        if system.project(&mut self.y) {
            system.derivative(self.t, &self.y, &mut self.f);
        } else {
            self.f.copy_from_slice(&self.stages[5 * n..6 * n]);
        }
    }

    /// Builds the last accepted step's interpolation coefficients (Hairer's `contd5`) from its
    /// start, its unprojected end and its stages, if not built yet.
    fn build_dense(&mut self) {
        if self.dense_ready || self.h_last == 0.0 {
            return;
        }
        match self.n {
            6 => self.build_dense_n::<6>(),
            7 => self.build_dense_n::<7>(),
            _ => self.build_dense_n::<0>(),
        }
        self.dense_ready = true;
    }

    fn build_dense_n<const N: usize>(&mut self) {
        let n = if N == 0 { self.n } else { N };
        let h = self.h_last;
        let k1 = &self.start_f[..n];
        // Stage blocks are k2..k7; the dense output does not use k2.
        let (_k2, rest) = self.stages.split_at(n);
        let (k3, rest) = rest.split_at(n);
        let (k4, rest) = rest.split_at(n);
        let (k5, rest) = rest.split_at(n);
        let (k6, k7) = rest.split_at(n);
        let (r1, rest) = self.dense.split_at_mut(n);
        let (r2, rest) = rest.split_at_mut(n);
        let (r3, rest) = rest.split_at_mut(n);
        let (r4, r5) = rest.split_at_mut(n);
        let (k7, r5) = (&k7[..n], &mut r5[..n]);
        let (trial, y) = (&self.trial[..n], &self.start_y[..n]);
        for i in 0..n {
            let difference = trial[i] - y[i];
            let b = h * k1[i] - difference;
            r1[i] = y[i];
            r2[i] = difference;
            r3[i] = b;
            r4[i] = difference - h * k7[i] - b;
            r5[i] =
                h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] + D6 * k6[i] + D7 * k7[i]);
        }
    }

    /// Initial step-size guess (Hairer's `hinit`).
    fn initial_step<S: OdeSystem + ?Sized>(&mut self, system: &S) -> f64 {
        let n = self.n;
        let tol = &self.tolerance;
        let mut dnf = 0.0;
        let mut dny = 0.0;
        for i in 0..n {
            let scale = tol.absolute + tol.relative * self.y[i].abs();
            dnf += (self.f[i] / scale).powi(2);
            dny += (self.y[i] / scale).powi(2);
        }
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
            1e-6
        } else {
            0.01 * (dny / dnf).sqrt()
        };
        h = h.min(tol.max_step);
        // One explicit Euler step to estimate the second derivative.
        for i in 0..n {
            self.trial[i] = self.y[i] + h * self.f[i];
        }
        let (f1, _) = self.stages.split_at_mut(n);
        system.derivative(self.t + h, &self.trial, f1);
        let der2: f64 = f1
            .iter()
            .zip(&self.f)
            .zip(&self.y)
            .map(|((a, b), y)| ((a - b) / (tol.absolute + tol.relative * y.abs())).powi(2))
            .sum();
        let der2 = der2.sqrt() / h;
        let der12 = der2.max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 {
            (h * 1e-3).max(1e-6)
        } else {
            (0.01 / der12).powf(0.2)
        };
        if h1.is_finite() {
            (100.0 * h).min(h1).min(tol.max_step)
        } else {
            h
        }
    }
}

fn all_finite(values: &[f64]) -> bool {
    values.iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests;
