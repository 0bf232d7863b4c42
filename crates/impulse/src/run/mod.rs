//! Running a world for a duration, and everything a run writes.
//!
//! The driver ([`run`], [`run_scene`]) only *samples* the world: it asks [`World::advance_to`]
//! for each frame time in turn and records what it finds. Frame times are `k / rate` computed
//! afresh each time (never accumulated), and the last frame lands exactly on the requested
//! duration. What a run writes, one module per file (formats in `docs/recording.md`):
//!
//! - [`trajectory`]: `trajectory.csv`, every body's state at every frame;
//! - [`events`]: `events.csv`, one row per collision or microcollision;
//! - [`summary`]: `summary.json`, how the run ended;
//! - [`shapes`]: `shapes.json`, every body's shapes and mass properties, for looking at the run.
//!
//! The run depends on the scene (it runs a loaded [`Scene`], for [`RunOptions`] it asks), never
//! the reverse.

pub mod checkpoint;
pub mod events;
pub mod shapes;
pub mod summary;
pub mod trajectory;

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::dynamics::MotionType;
use crate::math::Vec3;
use crate::scene::{RunOptions, Scene};
use crate::world::{SimulationError, World};
use checkpoint::Checkpointing;
use events::EventWriter;
use summary::{EnergySummary, Summary, body_summaries, multibody_summaries};
use trajectory::TrajectoryWriter;

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
    /// Heap events this call processed: a resumed run's are those after its checkpoint only
    /// (the summary's `heap_events` counts the whole run).
    pub heap_events_run: u64,
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
    let never = AtomicBool::new(false);
    run_until(
        scene_name, scene_file, world, options, records, progress, &never,
    )
}

/// [`run`], stopping after the frame at which `stop` is found set (a signal handler sets it):
/// the records then end with that frame and the summary's status is `"interrupted"`.
pub fn run_until<W: Write, E: Write>(
    scene_name: &str,
    scene_file: &str,
    world: &mut World,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
    stop: &AtomicBool,
) -> io::Result<RunOutcome> {
    let (mut resumed, mut save) = (
        |_: &World| Ok(()),
        |_: usize, _: &World, _: (u64, u64), _: crate::world::Energy| Ok(()),
    );
    let mut none = Checkpointing {
        resume_after: None,
        initial_energy: None,
        every: None,
        resumed: &mut resumed,
        save: &mut save,
    };
    run_checkpointed(
        scene_name, scene_file, world, options, records, progress, stop, &mut none,
    )
}

/// [`run_until`] with checkpoints ([`checkpoint`]): a resumed run is given its world restored
/// at the checkpoint's frame, skips the frames up to it (the records hold them), and continues
/// as the interrupted run would have.
#[allow(clippy::too_many_arguments)]
pub fn run_checkpointed<W: Write, E: Write>(
    scene_name: &str,
    scene_file: &str,
    world: &mut World,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
    stop: &AtomicBool,
    checkpoints: &mut Checkpointing<'_>,
) -> io::Result<RunOutcome> {
    // The frame list is built up front: refuse one too long to hold.
    options
        .check()
        .map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
    let started = Instant::now();
    let initial_energy = checkpoints.initial_energy.unwrap_or_else(|| world.energy());
    // The events this call processes (a resumed run: only those after its checkpoint).
    let heap_events_before = world.counters().heap_events;
    let mut error = None;
    let mut interrupted = false;
    // The first frame is the state the scene gave, written before the events at t = 0 (a body
    // starting in contact would otherwise show its state after the first microcollisions):
    // issue 41, item 4. A run failing at t = 0 keeps it.
    let replay = checkpoints.resume_after;
    match world.prepare() {
        Ok(()) if replay.is_some() => {}
        Ok(()) => {
            records.trajectory.write_frame(world)?;
            progress(world.time());
        }
        Err(e) => error = Some(e),
    }
    let frames = if error.is_some() {
        Vec::new()
    } else {
        frame_times(options)
    };
    let mut previous = 0.0;
    let mut reached = false;
    for (k, t) in frames.iter().copied().enumerate() {
        if let Some(last) = replay.filter(|&last| k <= last) {
            // Up to the checkpoint: the records hold this part of the run, and the world was
            // restored at its end.
            if k == last {
                if world.time().to_bits() != t.to_bits() {
                    return Err(io::Error::other(format!(
                        "the restored world is at t = {}, not at the checkpoint's frame \
                         (t = {t})",
                        world.time()
                    )));
                }
                reached = true;
                (checkpoints.resumed)(world)?;
                progress(t);
            }
            previous = t;
            continue;
        }
        let advanced = world.advance_to(t);
        for event in world.take_events() {
            records.events.write(&event)?;
        }
        if let Err(SimulationError::Interrupted { .. }) = advanced {
            // Stopped from outside between two frames: the records end with the last one.
            interrupted = true;
            break;
        }
        if let Err(e) = advanced {
            // The energy is checked once everything is at `t`: that state is a whole frame,
            // the last one computed (issue 42).
            if k > 0 && matches!(e, SimulationError::EnergyGain { .. }) && world.time() == t {
                records.trajectory.write_frame(world)?;
                progress(t);
            }
            error = Some(e);
            break;
        }
        if k > 0 {
            records.trajectory.write_frame(world)?;
            progress(t);
        }
        let last = k + 1 == frames.len();
        let stopping = stop.load(Ordering::Relaxed);
        let interrupted_here = stopping && checkpoints.every.is_some();
        // Frame 0 too when interrupted there: its events are written by now.
        if !last && (checkpoints.due(previous, t) || interrupted_here) {
            records.trajectory.flush()?;
            records.events.flush()?;
            (checkpoints.save)(k, world, records.events.counts(), initial_energy)?;
        }
        previous = t;
        if stopping {
            interrupted = true;
            break;
        }
    }
    if replay.is_some() && !reached {
        return Err(io::Error::other(
            "the run ends before the checkpoint's frame",
        ));
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
        } else if interrupted {
            "interrupted"
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
    Ok(RunOutcome {
        summary,
        error,
        heap_events_run: world
            .counters()
            .heap_events
            .saturating_sub(heap_events_before),
    })
}

/// Runs a loaded scene.
pub fn run_scene<W: Write, E: Write>(
    scene: &mut Scene,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
) -> io::Result<RunOutcome> {
    run_scene_until(scene, options, records, progress, &AtomicBool::new(false))
}

/// Runs a loaded scene until it ends or `stop` is set ([`run_until`]).
pub fn run_scene_until<W: Write, E: Write>(
    scene: &mut Scene,
    options: &RunOptions,
    records: &mut Recorders<'_, W, E>,
    progress: &mut dyn FnMut(f64),
    stop: &AtomicBool,
) -> io::Result<RunOutcome> {
    let file = scene.path.display().to_string();
    run_until(
        &scene.name,
        &file,
        &mut scene.world,
        options,
        records,
        progress,
        stop,
    )
}

/// A motion type's name in the records.
fn motion_name(motion: &MotionType) -> &'static str {
    match motion {
        MotionType::Dynamic => "dynamic",
        MotionType::Fixed => "fixed",
        MotionType::Kinematic(_) => "kinematic",
    }
}

fn array3(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::BodyDesc;
    use crate::dynamics::MassSpec;
    use crate::geometry::Shape;

    /// A fixed ground and a box named with a comma and quotes, its shape placed off its origin.
    pub(crate) fn two_body_world() -> World {
        let mut world = World::new(Default::default());
        let mut ground = BodyDesc::new("ground", Shape::HalfSpace);
        ground.motion = MotionType::Fixed;
        world.add_body(ground).unwrap();
        let mut part = BodyDesc::new(
            "part, \"A\"",
            Shape::Box {
                half_extents: Vec3::new(0.5, 1.0, 1.5),
            },
        );
        part.mass = MassSpec::Mass(6.0);
        part.shapes[0].pose = crate::math::pose(Vec3::new(1.0, 2.0, 3.0), Default::default());
        world.add_body(part).unwrap();
        world
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
