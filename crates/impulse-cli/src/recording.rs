//! Reading a run directory written by `impulse run`: `summary.json`, `shapes.json`,
//! `trajectory.csv` and (if present) `events.csv`, checked against each other.
//!
//! Every problem — a missing or truncated file, a recording from an incompatible version, an
//! empty run — is an error naming the file and what is wrong with it.

use std::path::{Path, PathBuf};

use impulse::math::{Quat, Vec3, pose};
use impulse::run::events::{EVENTS_HEADER, EventKind};
use impulse::run::shapes::{SHAPES_FORMAT_VERSION, ShapesFile};
use impulse::run::trajectory::TRAJECTORY_HEADER;

/// A recorded run.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The run directory.
    pub dir: PathBuf,
    /// What `summary.json` says about the run.
    pub summary: RunSummary,
    /// Bodies, shapes and mass properties.
    pub shapes: ShapesFile,
    /// Frame times, increasing.
    pub times: Vec<f64>,
    /// Per body (in the order of `shapes.bodies`), one sample per frame.
    pub tracks: Vec<Vec<Sample>>,
    /// Collision events, or `None` when the run has no `events.csv`.
    pub events: Option<Vec<Event>>,
}

/// The parts of `summary.json` that matter here.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// "completed" or "error".
    pub status: String,
    /// Why the run stopped early.
    pub error: Option<String>,
    /// Simulated time reached.
    pub sim_time: f64,
    /// Simulated time requested.
    pub duration: f64,
}

/// One trajectory row: the model frame's pose and the velocities (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Position of the model frame.
    pub position: Vec3,
    /// Orientation of the model frame.
    pub orientation: Quat,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity.
    pub angular_velocity: Vec3,
    /// Whether the body is asleep (at rest, out of the simulation until woken).
    pub asleep: bool,
}

/// One row of `events.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Time.
    pub time: f64,
    /// Collision or microcollision.
    pub kind: EventKind,
    /// Index of body 1 (receives `impulse`).
    pub body_a: usize,
    /// Index of body 2.
    pub body_b: usize,
    /// Contact point.
    pub point: Vec3,
    /// Contact normal, from body 2 toward body 1.
    pub normal: Vec3,
    /// Impulse delivered to body 1.
    pub impulse: Vec3,
}

impl Recording {
    /// Reads and cross-checks the run directory `dir`.
    pub fn load(dir: &Path) -> Result<Self, String> {
        if !dir.exists() {
            return Err(format!(
                "{}: no such run directory (write one with `impulse run SCENE --out {}`)",
                dir.display(),
                dir.display()
            ));
        }
        if !dir.is_dir() {
            return Err(format!(
                "{}: not a directory (expected the output directory of `impulse run`)",
                dir.display()
            ));
        }
        let shapes = read_shapes(&dir.join("shapes.json"))?;
        let summary = read_summary(&dir.join("summary.json"))?;
        let (times, tracks) = read_trajectory(&dir.join("trajectory.csv"), &shapes)?;
        let last = times.last().copied().unwrap_or(0.0);
        if last != summary.sim_time {
            return Err(format!(
                "{}: the trajectory ends at t = {last}, but summary.json says the run reached \
                 t = {}: the file is truncated",
                dir.join("trajectory.csv").display(),
                summary.sim_time
            ));
        }
        let events_path = dir.join("events.csv");
        let events = if events_path.exists() {
            Some(read_events(&events_path, &shapes)?)
        } else {
            None
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            summary,
            shapes,
            times,
            tracks,
            events,
        })
    }

    /// Last recorded time.
    pub fn end_time(&self) -> f64 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The frame interval `[i, i + 1]` holding `t` and the fraction of the way through it
    /// (`t` is clamped to the recording).
    pub fn locate(&self, t: f64) -> (usize, f64) {
        let n = self.times.len();
        if n < 2 || t <= self.times[0] {
            return (0, 0.0);
        }
        if t >= self.times[n - 1] {
            return (n - 2, 1.0);
        }
        // First frame after t; t lies in [times[i], times[i + 1]).
        let i = self.times.partition_point(|&x| x <= t) - 1;
        let span = self.times[i + 1] - self.times[i];
        let f = if span > 0.0 {
            (t - self.times[i]) / span
        } else {
            0.0
        };
        (i, f)
    }

    /// The model-frame pose of body `b` at time `t`, interpolated between frames (positions
    /// linearly, orientations along the shortest arc).
    pub fn pose_at(&self, b: usize, t: f64) -> impulse::math::Pose {
        let track = &self.tracks[b];
        if track.len() == 1 {
            return pose(track[0].position, track[0].orientation);
        }
        let (i, f) = self.locate(t);
        let (s0, s1) = (&track[i], &track[i + 1]);
        let position = s0.position.lerp(&s1.position, f);
        let orientation = s0
            .orientation
            .try_slerp(&s1.orientation, f, 1e-12)
            .unwrap_or(if f < 0.5 {
                s0.orientation
            } else {
                s1.orientation
            });
        pose(position, orientation)
    }

    /// Whether body `b` is asleep at time `t`: as in the last frame at or before `t` (the
    /// viewer page's rule).
    pub fn asleep_at(&self, b: usize, t: f64) -> bool {
        let track = &self.tracks[b];
        let (i, f) = self.locate(t);
        let frame = if f >= 1.0 { i + 1 } else { i };
        track.get(frame).is_some_and(|s| s.asleep)
    }
}

fn read_text(path: &Path, what: &str) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("{}: missing ({what})", path.display()))
        }
        Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
    }
}

fn read_shapes(path: &Path) -> Result<ShapesFile, String> {
    let text = read_text(
        path,
        "every run of this impulse writes it: the directory is not a complete run, or it was \
         recorded by an older impulse; re-run the scene with `impulse run`",
    )?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not valid JSON ({e}); the file is truncated or corrupt",
            path.display()
        )
    })?;
    match value.get("format_version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(SHAPES_FORMAT_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "{}: format_version {v}, but this impulse reads version {SHAPES_FORMAT_VERSION}: \
                 the run was recorded by an incompatible version; re-run the scene with this \
                 impulse, or view it with the impulse that recorded it",
                path.display()
            ));
        }
        None => {
            return Err(format!(
                "{}: no `format_version` number: not a shapes file written by `impulse run`",
                path.display()
            ));
        }
    }
    let shapes: ShapesFile = serde_json::from_value(value).map_err(|e| {
        format!(
            "{}: {e} (expected the shapes.json format, version {SHAPES_FORMAT_VERSION})",
            path.display()
        )
    })?;
    if shapes.bodies.is_empty() {
        return Err(format!(
            "{}: the run has no bodies: there is nothing to show",
            path.display()
        ));
    }
    Ok(shapes)
}

fn read_summary(path: &Path) -> Result<RunSummary, String> {
    let text = read_text(
        path,
        "`impulse run` writes it when the run ends: the run was interrupted, or this is not a \
         run directory",
    )?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not valid JSON ({e}); the file is truncated or corrupt",
            path.display()
        )
    })?;
    let number = |key: &str| {
        value.get(key).and_then(|v| v.as_f64()).ok_or_else(|| {
            format!(
                "{}: expected a number `{key}` (is this a summary written by `impulse run`?)",
                path.display()
            )
        })
    };
    let status = value
        .get("status")
        .and_then(|v| v.as_str())
        .ok_or_else(|| format!("{}: expected a string `status`", path.display()))?
        .to_string();
    Ok(RunSummary {
        error: value
            .get("error")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        status,
        sim_time: number("sim_time")?,
        duration: number("duration")?,
    })
}

/// Splits one CSV line into fields, undoing the quoting of `impulse::run::trajectory`.
fn split_csv(line: &str) -> Result<Vec<String>, &'static str> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => {
                    quoted = false;
                    if !matches!(chars.peek(), None | Some(',')) {
                        return Err("text after a closing quote");
                    }
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                at_start = true;
            }
            _ => {
                field.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err("an unclosed quote");
    }
    fields.push(field);
    Ok(fields)
}

/// The data lines of a CSV file after checking its header. Each item is (line number, fields).
fn csv_rows(
    path: &Path,
    text: &str,
    header: &str,
    columns: usize,
) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut lines = text.lines();
    match lines.next() {
        None => {
            return Err(format!(
                "{}: empty (not even a header): the run was interrupted before it wrote \
                 anything, or the file is truncated",
                path.display()
            ));
        }
        Some(first) if first != header => {
            return Err(format!(
                "{}: the header is `{first}`, expected `{header}`: the file was written by an \
                 incompatible version of impulse, or is not a recording",
                path.display()
            ));
        }
        Some(_) => {}
    }
    if !text.ends_with('\n') {
        return Err(format!(
            "{}: the last line is incomplete (no line break): the file is truncated",
            path.display()
        ));
    }
    let mut rows = Vec::new();
    for (index, line) in lines.enumerate() {
        let number = index + 2;
        let fields = split_csv(line).map_err(|e| format!("{}:{number}: {e}", path.display()))?;
        if fields.len() != columns {
            return Err(format!(
                "{}:{number}: {} fields, expected {columns} (`{header}`): the file is truncated \
                 or corrupt",
                path.display(),
                fields.len()
            ));
        }
        rows.push((number, fields));
    }
    Ok(rows)
}

fn numbers<const N: usize>(
    path: &Path,
    line: usize,
    fields: &[String],
) -> Result<[f64; N], String> {
    let mut out = [0.0; N];
    for (slot, field) in out.iter_mut().zip(fields) {
        *slot = match field.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                return Err(format!(
                    "{}:{line}: `{field}` is not a finite number",
                    path.display()
                ));
            }
        };
    }
    Ok(out)
}

fn read_trajectory(
    path: &Path,
    shapes: &ShapesFile,
) -> Result<(Vec<f64>, Vec<Vec<Sample>>), String> {
    let text = read_text(path, "`impulse run` writes it: this is not a run directory")?;
    let rows = csv_rows(path, &text, TRAJECTORY_HEADER, 16)?;
    if rows.is_empty() {
        return Err(format!(
            "{}: no frames (only the header): the run recorded nothing",
            path.display()
        ));
    }
    let bodies = &shapes.bodies;
    let mut times = Vec::new();
    let mut tracks: Vec<Vec<Sample>> = vec![Vec::new(); bodies.len()];
    for (k, (line, fields)) in rows.iter().enumerate() {
        let b = k % bodies.len();
        let [t] = numbers::<1>(path, *line, &fields[..1])?;
        let v = numbers::<13>(path, *line, &fields[2..15])?;
        let asleep = match fields[15].as_str() {
            "0" => false,
            "1" => true,
            other => {
                return Err(format!(
                    "{}:{line}: asleep is `{other}`, expected 0 or 1",
                    path.display()
                ));
            }
        };
        if fields[1] != bodies[b].name {
            return Err(format!(
                "{}:{line}: body `{}`, expected `{}` (shapes.json lists the bodies in the order \
                 of each frame's rows): the files do not belong to the same run",
                path.display(),
                fields[1],
                bodies[b].name
            ));
        }
        if b == 0 {
            if let Some(&previous) = times.last()
                && t <= previous
            {
                return Err(format!(
                    "{}:{line}: time {t} does not follow the previous frame's {previous}",
                    path.display()
                ));
            }
            times.push(t);
        } else if Some(&t) != times.last() {
            return Err(format!(
                "{}:{line}: time {t} inside the frame at t = {}",
                path.display(),
                times.last().copied().unwrap_or(0.0)
            ));
        }
        let q = nalgebra::Quaternion::new(v[3], v[4], v[5], v[6]);
        if q.norm() <= 0.5 {
            return Err(format!(
                "{}:{line}: the orientation ({}, {}, {}, {}) is not a unit quaternion",
                path.display(),
                v[3],
                v[4],
                v[5],
                v[6]
            ));
        }
        tracks[b].push(Sample {
            position: Vec3::new(v[0], v[1], v[2]),
            orientation: Quat::from_quaternion(q),
            velocity: Vec3::new(v[7], v[8], v[9]),
            angular_velocity: Vec3::new(v[10], v[11], v[12]),
            asleep,
        });
    }
    if rows.len() % bodies.len() != 0 {
        return Err(format!(
            "{}: the last frame (t = {}) has {} of {} bodies: the file is truncated",
            path.display(),
            times.last().copied().unwrap_or(0.0),
            rows.len() % bodies.len(),
            bodies.len()
        ));
    }
    Ok((times, tracks))
}

fn read_events(path: &Path, shapes: &ShapesFile) -> Result<Vec<Event>, String> {
    let text = read_text(path, "`impulse run` writes it when the run starts")?;
    let rows = csv_rows(path, &text, EVENTS_HEADER, 13)?;
    let body = |line: usize, name: &str| {
        shapes
            .bodies
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| {
                format!(
                    "{}:{line}: no body named `{name}` in shapes.json",
                    path.display()
                )
            })
    };
    let mut events = Vec::with_capacity(rows.len());
    for (line, fields) in rows {
        let [time] = numbers::<1>(path, line, &fields[..1])?;
        let kind = EventKind::from_name(&fields[1]).ok_or_else(|| {
            format!(
                "{}:{line}: kind `{}`, expected `collision` or `microcollision`",
                path.display(),
                fields[1]
            )
        })?;
        let v = numbers::<9>(path, line, &fields[4..])?;
        events.push(Event {
            time,
            kind,
            body_a: body(line, &fields[2])?,
            body_b: body(line, &fields[3])?,
            point: Vec3::new(v[0], v[1], v[2]),
            normal: Vec3::new(v[3], v[4], v[5]),
            impulse: Vec3::new(v[6], v[7], v[8]),
        });
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_undo_the_writers_quoting() {
        assert_eq!(split_csv("1,a,2").unwrap(), ["1", "a", "2"]);
        assert_eq!(
            split_csv(r#"0.5,"part, ""A""",3"#).unwrap(),
            ["0.5", r#"part, "A""#, "3"]
        );
        assert_eq!(split_csv("a,,b").unwrap(), ["a", "", "b"]);
        assert!(split_csv(r#"1,"open"#).is_err());
        assert!(split_csv(r#"1,"a"b,2"#).is_err());
    }
}
