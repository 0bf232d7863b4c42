//! Running a world for a duration while writing output frames.
//!
//! The driver only *samples* the world: it asks [`World::advance_to`] for each frame time in
//! turn and records what it finds. Frame times are `k / rate` computed afresh each time (never
//! accumulated), and the last frame lands exactly on the requested duration.

use std::io::{self, Write};
use std::time::Instant;

use crate::math::readable;
use crate::output::{
    EnergySummary, Summary, TrajectoryWriter, body_summaries, multibody_summaries,
};
use crate::record::EventWriter;
use crate::scene::Scene;
use crate::world::{SimulationError, World};

/// How long to run and how often to record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Simulated time to reach.
    pub duration: f64,
    /// Output frames per unit of simulated time.
    pub frame_rate: f64,
}

/// Most output frames a run may write: at 60 frames a second, 46 hours of simulated time.
/// (One body's trajectory alone is then about a gigabyte of CSV.)
pub const MAX_FRAMES: f64 = 1e7;

impl RunOptions {
    /// Checks that the run records a bounded number of frames ([`MAX_FRAMES`]); the message
    /// says how many it would write.
    pub fn check(&self) -> Result<(), String> {
        let frames = self.duration * self.frame_rate;
        if frames.is_finite() && frames <= MAX_FRAMES {
            Ok(())
        } else {
            Err(format!(
                "{} time units at {} frames per unit would write {} output frames; at most \
                 {MAX_FRAMES:e} are allowed (lower the output rate)",
                readable(self.duration),
                readable(self.frame_rate),
                readable(frames.round())
            ))
        }
    }
}

/// The frame times of a run: `0, 1/rate, 2/rate, …` up to the duration, whose own frame is
/// always the last.
pub fn frame_times(options: &RunOptions) -> Vec<f64> {
    let RunOptions {
        duration,
        frame_rate,
    } = *options;
    let steps = (duration * frame_rate * (1.0 + 1e-12)).floor() as u64;
    let mut times: Vec<f64> = (0..=steps).map(|k| k as f64 / frame_rate).collect();
    match times.last_mut() {
        Some(last) if (duration - *last).abs() <= 1e-9 * duration.max(1.0) => *last = duration,
        _ => times.push(duration),
    }
    times
}

/// How a run ended.
#[derive(Debug)]
pub struct RunOutcome {
    /// What goes into `summary.json`.
    pub summary: Summary,
    /// The simulation error that stopped the run early, if any (output up to it is kept).
    pub error: Option<SimulationError>,
}

/// Where a run's records go: the trajectory and the collision events.
pub struct Recorders<'a, W: Write, E: Write> {
    /// One row per body per frame.
    pub trajectory: &'a mut TrajectoryWriter<W>,
    /// One row per collision impulse.
    pub events: &'a mut EventWriter<E>,
}

/// Runs `world` for `options.duration`, writing every frame and every collision event, and
/// calling `progress(t)` after each frame. A simulation error stops the run but still returns
/// a summary (and the records hold everything before the error); only output failures are
/// `Err`.
pub fn run<W: Write, E: Write>(
    scene_name: &str,
    scene_file: &str,
    world: &mut World,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
) -> io::Result<RunOutcome> {
    // The frame list is built up front: refuse one too long to hold.
    options
        .check()
        .map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
    let started = Instant::now();
    let initial_energy = world.energy();
    let mut error = None;
    for t in frame_times(options) {
        let advanced = world.advance_to(t);
        for event in world.take_events() {
            records.events.write(&event)?;
        }
        if let Err(e) = advanced {
            error = Some(e);
            break;
        }
        records.trajectory.write_frame(world)?;
        progress(t);
    }
    records.trajectory.flush()?;
    records.events.flush()?;
    let trajectory = &records.trajectory;
    let mut counters: std::collections::BTreeMap<String, u64> = world
        .counters()
        .entries()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    counters.insert("output_frames".into(), trajectory.frames());
    let summary = Summary {
        scene: scene_name.to_string(),
        scene_file: scene_file.to_string(),
        status: if error.is_some() {
            "error"
        } else {
            "completed"
        },
        error: error.as_ref().map(ToString::to_string),
        sim_time: world.time(),
        duration: options.duration,
        wall_time_s: started.elapsed().as_secs_f64(),
        energy: EnergySummary::new(initial_energy, world.energy()),
        counters,
        max_penetration: world.max_penetration(),
        bodies: body_summaries(world),
        multibodies: multibody_summaries(world),
    };
    Ok(RunOutcome { summary, error })
}

/// Runs a loaded scene.
pub fn run_scene<W: Write, E: Write>(
    scene: &mut Scene,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
) -> io::Result<RunOutcome> {
    let file = scene.path.display().to_string();
    run(
        &scene.name,
        &file,
        &mut scene.world,
        options,
        records,
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_write_at_most_max_frames() {
        let at = |duration: f64, frame_rate: f64| RunOptions {
            duration,
            frame_rate,
        };
        assert!(at(3600.0, 1000.0).check().is_ok()); // 3.6e6 frames
        assert!(at(1e4, 1000.0).check().is_ok()); // exactly 1e7
        assert!(at(1e4, 1000.5).check().is_err());
        let message = at(0.8, 1e308).check().unwrap_err();
        assert!(message.contains("at most 1e7"), "{message}");
        assert!(at(1.0, f64::INFINITY).check().is_err());
    }

    #[test]
    fn frames_end_exactly_at_the_duration() {
        let times = frame_times(&RunOptions {
            duration: 1.0,
            frame_rate: 60.0,
        });
        assert_eq!(times.len(), 61);
        assert_eq!(times[0], 0.0);
        assert_eq!(*times.last().unwrap(), 1.0);
        let times = frame_times(&RunOptions {
            duration: 0.25,
            frame_rate: 10.0,
        });
        assert_eq!(times, vec![0.0, 0.1, 0.2, 0.25]);
        let times = frame_times(&RunOptions {
            duration: 0.1,
            frame_rate: 30.0,
        });
        assert_eq!(times.len(), 4);
        assert_eq!(*times.last().unwrap(), 0.1);
    }
}
