//! `events.csv`: one row per collision or microcollision (Mirtich §3, §4).
//!
//! Each row gives the time, the kind, the two bodies, the contact point, the contact normal and
//! the impulse, following the thesis's collision-frame convention: the normal points from
//! `body_b` toward `body_a`, and the impulse is the one `body_b` delivers to `body_a` (`body_b`
//! receives its negative).

use std::io::{self, Write};

use super::trajectory::csv_field;
use crate::multibody::MultibodyId;
use crate::response::ResponseKind;
use crate::world::{Collider, CollisionEvent, World};

/// The events file's header.
pub const EVENTS_HEADER: &str = "t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jx,jy,jz";

/// Whether an event is a collision or a microcollision (Mirtich §4.2: one of the trains of
/// small impulses that model resting and rolling contact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A collision.
    Collision,
    /// A microcollision.
    Microcollision,
    /// A ray impulse: under constraint-based contact, the impulse that answers held contacts
    /// with no valid forces (Baraff ch. 13).
    Ray,
}

impl EventKind {
    /// The kind of a response: reversals, boosted collisions and the contacts of a simultaneous
    /// cluster solve are microcollisions.
    pub fn of(kind: ResponseKind) -> Self {
        match kind {
            ResponseKind::Collision => Self::Collision,
            ResponseKind::Reversal
            | ResponseKind::PartialReversal
            | ResponseKind::Boosted
            | ResponseKind::Simultaneous => Self::Microcollision,
            ResponseKind::Ray => Self::Ray,
        }
    }

    /// The name written in `events.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Collision => "collision",
            Self::Microcollision => "microcollision",
            Self::Ray => "ray",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "collision" => Some(Self::Collision),
            "microcollision" => Some(Self::Microcollision),
            "ray" => Some(Self::Ray),
            _ => None,
        }
    }
}

/// Writes collision events as CSV rows under [`EVENTS_HEADER`].
pub struct EventWriter<W: Write> {
    out: W,
    /// CSV-ready names of the bodies, and of each multibody's links (`multibody/link`).
    names: Vec<String>,
    link_names: Vec<Vec<String>>,
    collisions: u64,
    microcollisions: u64,
    /// Which kinds get a row, by `EventKind as usize`.
    rows_of: [bool; 3],
}

impl<W: Write> EventWriter<W> {
    /// Starts an events file for the bodies of `world`, writing the header.
    pub fn new(mut out: W, world: &World) -> io::Result<Self> {
        writeln!(out, "{EVENTS_HEADER}")?;
        Ok(Self::resume(out, world, (0, 0)))
    }

    /// Continues an events file that already holds its header and `counts` (collisions,
    /// microcollisions) rows (a resumed run, [`super::checkpoint`]).
    pub fn resume(out: W, world: &World, counts: (u64, u64)) -> Self {
        Self {
            out,
            names: world.bodies().iter().map(|b| csv_field(b.name())).collect(),
            link_names: world
                .multibodies()
                .iter()
                .enumerate()
                .map(|(m, mb)| {
                    (0..mb.tree().links().len())
                        .map(|l| csv_field(&world.collider_name(Collider::Link(MultibodyId(m), l))))
                        .collect()
                })
                .collect(),
            collisions: counts.0,
            microcollisions: counts.1,
            rows_of: [true; 3],
        }
    }

    /// Writes rows for events of the kinds in `kinds` only (every kind by default); the others
    /// are counted and not formatted at all (a pile's millions of microcollisions cost a tenth
    /// of its run when formatted only to be dropped).
    pub fn keeping(mut self, kinds: &[EventKind]) -> Self {
        self.rows_of = [false; 3];
        for &kind in kinds {
            self.rows_of[kind as usize] = true;
        }
        self
    }

    /// Writes one event (if its kind is kept, see [`EventWriter::keeping`]) and counts it.
    /// Numbers are written in the shortest form that reads back exactly.
    pub fn write(&mut self, event: &CollisionEvent) -> io::Result<()> {
        let kind = EventKind::of(event.kind);
        if self.rows_of[kind as usize] {
            self.write_row(event, kind)?;
        }
        match kind {
            EventKind::Collision => self.collisions += 1,
            EventKind::Microcollision => self.microcollisions += 1,
            // The world counts the answers these rows belong to (`ray_impulses`).
            EventKind::Ray => {}
        }
        Ok(())
    }

    /// Writes the row of an event of `kind`.
    fn write_row(&mut self, event: &CollisionEvent, kind: EventKind) -> io::Result<()> {
        let name = |c: Collider| {
            let found = match c {
                Collider::Body(id) => self.names.get(id.0),
                Collider::Link(m, l) => self.link_names.get(m.0).and_then(|links| links.get(l)),
            };
            found.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("collision event names {c:?}, which the world did not have"),
                )
            })
        };
        let (a, b) = (name(event.colliders.0)?, name(event.colliders.1)?);
        let mut number = ryu::Buffer::new();
        let mut line = String::with_capacity(256);
        line.push_str(number.format(event.time));
        for field in [kind.name(), a.as_str(), b.as_str()] {
            line.push(',');
            line.push_str(field);
        }
        for v in [&event.point.coords, &event.normal, &event.impulse] {
            for value in [v.x, v.y, v.z] {
                line.push(',');
                line.push_str(number.format(value));
            }
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    /// Events given so far, written or not: (collisions, microcollisions).
    pub fn counts(&self) -> (u64, u64) {
        (self.collisions, self.microcollisions)
    }

    /// Flushes buffered rows to the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::BodyId;
    use crate::math::{Point, Vec3};
    use crate::run::tests::two_body_world;

    #[test]
    fn events_are_written_under_the_header() {
        let world = two_body_world();
        let mut out = Vec::new();
        let mut writer = EventWriter::new(&mut out, &world).unwrap();
        writer
            .write(&CollisionEvent {
                time: 0.25,
                kind: ResponseKind::Reversal,
                colliders: (Collider::Body(BodyId(1)), Collider::Body(BodyId(0))),
                point: Point::new(0.5, 0.0, 0.0),
                normal: Vec3::z(),
                impulse: Vec3::new(0.1, 0.0, 2.0),
            })
            .unwrap();
        assert_eq!(writer.counts(), (0, 1));
        let bad = CollisionEvent {
            time: 0.3,
            kind: ResponseKind::Collision,
            colliders: (Collider::Body(BodyId(7)), Collider::Body(BodyId(0))),
            point: Point::origin(),
            normal: Vec3::z(),
            impulse: Vec3::zeros(),
        };
        assert!(writer.write(&bad).is_err());
        drop(writer);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "{EVENTS_HEADER}\n0.25,microcollision,\"part, \"\"A\"\"\",ground,0.5,0.0,0.0,0.0,0.0,1.0,0.1,0.0,2.0\n"
            )
        );
    }

    #[test]
    fn only_the_kinds_kept_get_rows_and_every_event_is_counted() {
        // `impulse run --events collisions` (and `none`): the rows left out are not formatted,
        // and the counts a checkpoint resumes from still count them.
        let world = two_body_world();
        let event = |time: f64, kind: ResponseKind| CollisionEvent {
            time,
            kind,
            colliders: (Collider::Body(BodyId(1)), Collider::Body(BodyId(0))),
            point: Point::origin(),
            normal: Vec3::z(),
            impulse: Vec3::new(0.0, 0.0, 1.0),
        };
        let mut out = Vec::new();
        let mut writer = EventWriter::new(&mut out, &world)
            .unwrap()
            .keeping(&[EventKind::Collision, EventKind::Ray]);
        for (time, kind) in [
            (0.25, ResponseKind::Reversal),
            (0.5, ResponseKind::Collision),
            (0.75, ResponseKind::Simultaneous),
            (1.0, ResponseKind::Ray),
        ] {
            writer.write(&event(time, kind)).unwrap();
        }
        assert_eq!(writer.counts(), (1, 2));
        drop(writer);
        let text = String::from_utf8(out).unwrap();
        let kinds: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|row| row.split(',').nth(1))
            .collect();
        assert_eq!(kinds, ["collision", "ray"], "{text}");
        let mut writer = EventWriter::new(Vec::new(), &world).unwrap().keeping(&[]);
        writer.write(&event(0.5, ResponseKind::Collision)).unwrap();
        assert_eq!(writer.counts(), (1, 0));
        assert_eq!(writer.out, format!("{EVENTS_HEADER}\n").into_bytes());
    }

    #[test]
    fn a_ray_impulse_is_its_own_kind_of_row() {
        // Constraint contact's ray impulses (Baraff ch. 13) are neither collisions nor
        // microcollisions: their rows say "ray", and the name reads back.
        let world = two_body_world();
        let mut out = Vec::new();
        let mut writer = EventWriter::new(&mut out, &world).unwrap();
        writer
            .write(&CollisionEvent {
                time: 0.5,
                kind: ResponseKind::Ray,
                colliders: (Collider::Body(BodyId(1)), Collider::Body(BodyId(0))),
                point: Point::origin(),
                normal: Vec3::z(),
                impulse: Vec3::new(0.25, 0.0, 0.5),
            })
            .unwrap();
        assert_eq!(writer.counts(), (0, 0));
        drop(writer);
        let text = String::from_utf8(out).unwrap();
        let row = text.lines().nth(1).unwrap();
        assert!(row.starts_with("0.5,ray,"), "{row}");
        assert_eq!(EventKind::from_name("ray"), Some(EventKind::Ray));
        assert_eq!(EventKind::of(ResponseKind::Ray).name(), "ray");
    }
}
