//! Tests of the adaptive Runge–Kutta integrator: closed forms of the harmonic oscillator, the
//! dense output inside steps, and a step sequence independent of sampling and restarts.

use super::*;

/// Harmonic oscillator ẍ = -x: exact solution x = cos t.
struct Oscillator;
impl OdeSystem for Oscillator {
    fn dimension(&self) -> usize {
        2
    }
    fn derivative(&self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        dydt[0] = y[1];
        dydt[1] = -y[0];
    }
}

#[test]
fn oscillator_matches_closed_form_over_many_periods() {
    let tolerance = Tolerance {
        relative: 1e-12,
        absolute: 1e-14,
        max_step: 1.0,
        ..Tolerance::default()
    };
    let mut rk = AdaptiveRk::new(&Oscillator, 0.0, &[1.0, 0.0], tolerance).unwrap();
    let t_end = 20.0 * std::f64::consts::TAU;
    rk.advance_past(&Oscillator, t_end).unwrap();
    let mut y = [0.0; 2];
    rk.state_at(t_end, &mut y);
    // Closed form x = cos t, v = -sin t; global error after 20 periods stays ~1e-10.
    assert!(
        (y[0] - t_end.cos()).abs() < 1e-9,
        "x error {}",
        y[0] - t_end.cos()
    );
    assert!((y[1] + t_end.sin()).abs() < 1e-9);
}

/// Tight enough that the interpolant is within 1e-8 of the closed form inside every step.
fn sampling_tolerance() -> Tolerance {
    Tolerance {
        relative: 1e-11,
        absolute: 1e-13,
        max_step: 1.0,
        ..Tolerance::default()
    }
}

#[test]
fn dense_output_matches_closed_form_inside_steps() {
    let mut rk = AdaptiveRk::new(&Oscillator, 0.0, &[1.0, 0.0], sampling_tolerance()).unwrap();
    let mut y = [0.0; 2];
    let mut t = 0.0;
    while t < 10.0 {
        t += 0.0137;
        rk.advance_past(&Oscillator, t).unwrap();
        rk.state_at(t, &mut y);
        // The 4th-order interpolant is accurate to about the step tolerance.
        assert!(
            (y[0] - t.cos()).abs() < 1e-8,
            "t={t} err={}",
            y[0] - t.cos()
        );
    }
}

#[test]
fn sampling_does_not_change_the_step_sequence() {
    let tolerance = Tolerance::default();
    let mut sampled = AdaptiveRk::new(&Oscillator, 0.0, &[1.0, 0.0], tolerance).unwrap();
    let mut plain = sampled.clone();
    let mut y = [0.0; 2];
    for k in 1..=1000 {
        let t = k as f64 * 0.01;
        sampled.advance_past(&Oscillator, t).unwrap();
        sampled.state_at(t, &mut y);
    }
    plain.advance_past(&Oscillator, 10.0).unwrap();
    sampled.advance_past(&Oscillator, 10.0).unwrap();
    assert_eq!(plain.time().to_bits(), sampled.time().to_bits());
    assert_eq!(plain.state(), sampled.state());
}

#[test]
fn a_restarted_integrator_steps_exactly_as_a_new_one() {
    // Used first on another system and another start, then restarted: the same steps, to
    // the bit, as a fresh integrator from the same start.
    let mut reused = AdaptiveRk::new(&BlowUp, 0.0, &[0.0], Tolerance::default()).unwrap();
    reused.advance_past(&BlowUp, 0.5).unwrap();
    reused
        .restart(&Oscillator, 1.0, &[0.3, -0.2], Tolerance::default())
        .unwrap();
    let mut fresh = AdaptiveRk::new(&Oscillator, 1.0, &[0.3, -0.2], Tolerance::default()).unwrap();
    for _ in 0..50 {
        reused.step(&Oscillator).unwrap();
        fresh.step(&Oscillator).unwrap();
        assert_eq!(reused.time().to_bits(), fresh.time().to_bits());
        assert_eq!(reused.state(), fresh.state());
    }
    assert_eq!(reused.step_counts(), fresh.step_counts());
}

/// ẏ = 1/(1 - t) blows up at t = 1.
struct BlowUp;
impl OdeSystem for BlowUp {
    fn dimension(&self) -> usize {
        1
    }
    fn derivative(&self, t: f64, _y: &[f64], dydt: &mut [f64]) {
        dydt[0] = 1.0 / (1.0 - t);
    }
}

#[test]
fn the_interpolant_is_built_for_the_last_step_whenever_asked_for() {
    // The interpolation coefficients are built when first asked for. Steps taken without
    // sampling must not leave a stale interpolant: the middle of every third step, sampled
    // through `state_at`, `component_at` and a kept `last_step`, agrees with the closed
    // form x = cos t to the tolerance, and the three agree with each other to the bit.
    let mut rk = AdaptiveRk::new(&Oscillator, 0.0, &[1.0, 0.0], sampling_tolerance()).unwrap();
    let mut y = [0.0; 2];
    let mut kept = [0.0; 2];
    for k in 0..300 {
        rk.step(&Oscillator).unwrap();
        if k % 3 != 0 {
            continue;
        }
        let step = rk.last_step().unwrap();
        let mid = 0.5 * (step.start() + step.end());
        let x = rk.component_at(mid, 0);
        rk.state_at(mid, &mut y);
        step.state_at(mid, &mut kept);
        assert_eq!((x, y), (kept[0], kept));
        assert!((x - mid.cos()).abs() < 1e-8, "t = {mid}: {}", x - mid.cos());
    }
}

#[test]
fn after_a_failed_step_the_state_is_the_last_one_reached() {
    // Stepping into BlowUp's singularity fails after trials that overwrote the stages of
    // the last accepted step: its interior cannot be interpolated any more, and every
    // time in it gives the state at `time()` instead of numbers from other stages.
    let mut rk = AdaptiveRk::new(&BlowUp, 0.0, &[0.0], Tolerance::default()).unwrap();
    let failed = loop {
        if let Err(error) = rk.step(&BlowUp) {
            break error;
        }
    };
    assert!(matches!(failed, IntegrationError::StepSizeUnderflow { .. }));
    let mut y = [f64::NAN];
    rk.state_at(rk.time() * 0.999_999_999, &mut y);
    assert_eq!(y[0], rk.state()[0]);
    assert!(rk.last_step().is_none());
}

#[test]
fn singular_system_reports_an_error_instead_of_looping() {
    let mut rk = AdaptiveRk::new(&BlowUp, 0.0, &[0.0], Tolerance::default()).unwrap();
    let result = rk.advance_past(&BlowUp, 2.0);
    assert!(
        result.is_err(),
        "integrating through a singularity must fail"
    );
}
