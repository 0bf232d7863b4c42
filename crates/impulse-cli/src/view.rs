//! `impulse view DIR`: one self-contained HTML page that plays back a recorded run.
//!
//! The page inlines everything it needs — three.js (`assets/vendor/three`), the viewer's script
//! and style (`assets/viewer.*`) and the recording as JSON — so it works offline, straight from
//! the file. `--serve` also serves it on localhost.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use crate::framing::{body_colors, bounds};
use crate::recording::Recording;

const TEMPLATE: &str = include_str!("../assets/viewer.html");
const STYLE: &str = include_str!("../assets/viewer.css");
const VIEWER: &str = include_str!("../assets/viewer.js");
const THREE: &str = include_str!("../assets/vendor/three/three.min.js");

#[derive(Args)]
#[command(after_help = "Examples:
  impulse view out/dzhanibekov
  impulse view out/creature_war --max-events 100000
  impulse view out/dominos --serve 8080")]
pub struct ViewArgs {
    /// A run directory written by `impulse run`.
    dir: PathBuf,
    /// The page to write [default: DIR/view.html].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also serve the page at http://127.0.0.1:PORT/ until interrupted (PORT 8000 if not
    /// given; 0 for any free port).
    #[arg(long, value_name = "PORT", num_args = 0..=1, default_missing_value = "8000")]
    serve: Option<u16>,
    /// Most collision events to put in the page: beyond it, all collisions and an even share
    /// of the microcollisions (every k-th) are kept, so that a long run's page stays small
    /// (the creature war's 546 067 events made a 126 MB page).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EVENTS)]
    max_events: usize,
}

/// The default of `--max-events`: 20 000 events are about 3 MB of the page.
pub const DEFAULT_MAX_EVENTS: usize = 20_000;

pub fn view(args: &ViewArgs) -> Result<ExitCode, String> {
    let recording = Recording::load(&args.dir)?;
    let html = page(&recording, args.max_events)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.dir.join("view.html"));
    std::fs::write(&out, &html).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let shown = shown_events(&recording, args.max_events);
    let size = html.len() as f64 / 1e6;
    match &shown.note {
        Some(note) => println!(
            "wrote {} ({size:.1} MB; {note}; open it in a browser)",
            out.display()
        ),
        None => println!(
            "wrote {} ({size:.1} MB; open it in a browser)",
            out.display()
        ),
    }
    if let Some(port) = args.serve {
        crate::serve::serve(&html, port)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The page for a recording, with at most `max_events` of its collision events.
pub fn page(recording: &Recording, max_events: usize) -> Result<String, String> {
    // `<` never occurs outside strings in JSON, so escaping it keeps `</script>` out of the page.
    let data = data(recording, max_events)?
        .to_string()
        .replace('<', "\\u003c");
    Ok(fill(
        TEMPLATE,
        &[
            ("@TITLE@", &escape_html(&recording.shapes.scene)),
            ("@STYLE@", STYLE),
            ("@DATA@", &data),
            ("@THREE@", THREE),
            ("@VIEWER@", VIEWER),
        ],
    ))
}

/// The events a page shows: their indices in the recording, and what was left out (`None`
/// when nothing was).
struct Shown {
    indices: Vec<usize>,
    note: Option<String>,
}

/// At most `budget` events: all of them if they fit; else every collision (or every k-th when
/// the collisions alone do not fit) and every k-th microcollision, so that what is shown is
/// spread over the whole run.
fn shown_events(recording: &Recording, budget: usize) -> Shown {
    let Some(events) = &recording.events else {
        return Shown {
            indices: Vec::new(),
            note: None,
        };
    };
    if events.len() <= budget {
        return Shown {
            indices: (0..events.len()).collect(),
            note: None,
        };
    }
    let is_collision = |e: &crate::recording::Event| e.kind.name() == "collision";
    let collisions = events.iter().filter(|e| is_collision(e)).count();
    let micro = events.len() - collisions;
    // Every `k`-th of `n` keeps at most `room`.
    let every = |n: usize, room: usize| {
        if room == 0 {
            usize::MAX
        } else {
            n.div_ceil(room)
        }
    };
    let (every_collision, every_micro) = if collisions >= budget {
        (every(collisions, budget), usize::MAX)
    } else {
        (1, every(micro, budget - collisions))
    };
    let (mut seen_collisions, mut seen_micro) = (0, 0);
    let mut indices = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let (seen, step) = if is_collision(e) {
            (&mut seen_collisions, every_collision)
        } else {
            (&mut seen_micro, every_micro)
        };
        if *seen % step == 0 {
            indices.push(i);
        }
        *seen += 1;
    }
    let which = |n: usize, step: usize, what: &str| match step {
        1 => format!("all {n} {what}s"),
        usize::MAX => format!("no {what}s"),
        k => format!("every {} of {n} {what}s", ordinal(k)),
    };
    let note = format!(
        "shows {} of {} events: {} and {} (--max-events N shows more)",
        indices.len(),
        events.len(),
        which(collisions, every_collision, "collision"),
        which(micro, every_micro, "microcollision"),
    );
    Shown {
        indices,
        note: Some(note),
    }
}

/// 2nd, 3rd, 11th, 21st, …
fn ordinal(k: usize) -> String {
    let suffix = match (k % 10, k % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{k}{suffix}")
}

/// The recording as the page's script reads it (see `assets/viewer.js`).
fn data(recording: &Recording, max_events: usize) -> Result<Value, String> {
    let colors = body_colors(&recording.shapes.bodies);
    let bodies: Vec<Value> = recording
        .shapes
        .bodies
        .iter()
        .zip(&colors)
        .map(|(body, [r, g, b])| {
            json!({
                "name": body.name,
                "motion": body.motion,
                "color": format!("#{r:02x}{g:02x}{b:02x}"),
                "shapes": body.shapes,
            })
        })
        .collect();
    let poses: Vec<Vec<f64>> = recording
        .tracks
        .iter()
        .map(|track| {
            track
                .iter()
                .flat_map(|s| {
                    let q = s.orientation.quaternion();
                    [s.position.x, s.position.y, s.position.z, q.w, q.i, q.j, q.k]
                })
                .collect()
        })
        .collect();
    // Per body, the frames it sleeps through as half-open ranges [first, end).
    let asleep: Vec<Vec<[usize; 2]>> = recording
        .tracks
        .iter()
        .map(|track| {
            let mut ranges: Vec<[usize; 2]> = Vec::new();
            for (i, s) in track.iter().enumerate() {
                match ranges.last_mut() {
                    Some(range) if s.asleep && range[1] == i => range[1] = i + 1,
                    _ if s.asleep => ranges.push([i, i + 1]),
                    _ => {}
                }
            }
            ranges
        })
        .collect();
    let shown = shown_events(recording, max_events);
    let events = recording.events.as_ref().map(|events| {
        shown
            .indices
            .iter()
            .map(|&i| &events[i])
            .map(|e| {
                json!({
                    "t": e.time,
                    "kind": e.kind.name(),
                    "a": e.body_a,
                    "b": e.body_b,
                    "p": [e.point.x, e.point.y, e.point.z],
                    "n": [e.normal.x, e.normal.y, e.normal.z],
                    "j": [e.impulse.x, e.impulse.y, e.impulse.z],
                })
            })
            .collect::<Vec<_>>()
    });
    let b = bounds(recording)?;
    Ok(json!({
        "scene": recording.shapes.scene,
        "status": recording.summary.status,
        "error": recording.summary.error,
        "sim_time": recording.summary.sim_time,
        "duration": recording.summary.duration,
        "bounds": { "center": [b.center.x, b.center.y, b.center.z], "radius": b.radius },
        "bodies": bodies,
        "times": recording.times,
        "poses": poses,
        "asleep": asleep,
        "events": events,
        "events_recorded": recording.events.as_ref().map(Vec::len),
        "events_note": shown.note,
    }))
}

/// Replaces each marker, in order, by its text; markers are looked for in the template only
/// (never in text already inserted).
fn fill(template: &str, parts: &[(&str, &str)]) -> String {
    let size = template.len() + parts.iter().map(|(_, text)| text.len()).sum::<usize>();
    let mut out = String::with_capacity(size);
    let mut rest = template;
    for (marker, text) in parts {
        match rest.find(marker) {
            Some(at) => {
                out.push_str(&rest[..at]);
                out.push_str(text);
                rest = &rest[at + marker.len()..];
            }
            None => unreachable!("the page template has every marker, in order: {marker}"),
        }
    }
    out.push_str(rest);
    out
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_right() {
        let words: Vec<String> = [2, 3, 4, 11, 12, 13, 21, 22, 47, 101].map(ordinal).to_vec();
        assert_eq!(
            words,
            [
                "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "47th", "101st"
            ]
        );
    }

    #[test]
    fn markers_are_filled_once_and_only_in_the_template() {
        let out = fill("a @X@ b @Y@ c", &[("@X@", "@Y@"), ("@Y@", "y")]);
        assert_eq!(out, "a @Y@ b y c");
    }

    #[test]
    fn inlined_scripts_cannot_close_their_script_element() {
        for (name, text) in [("three.min.js", THREE), ("viewer.js", VIEWER)] {
            assert!(
                !text.to_ascii_lowercase().contains("</script"),
                "{name} contains `</script`"
            );
        }
        for marker in ["@TITLE@", "@STYLE@", "@DATA@", "@THREE@", "@VIEWER@"] {
            assert_eq!(TEMPLATE.matches(marker).count(), 1, "{marker}");
        }
    }
}
