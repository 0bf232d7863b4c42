//! `trajectory.csv`: the state of every body at every output frame.
//!
//! Trajectory rows give, per output frame and body, the pose of the body's *model frame* (the
//! frame its shapes and meshes are given in, as placed by the scene's `position` and
//! `orientation`), and the velocity of its centre of mass and its angular velocity, all in world
//! coordinates, and whether the body is asleep (`1`: it has come to rest with its island and is
//! out of the simulation until something wakes it, see [`crate::Sleep`]; its velocities are
//! then exactly zero). Numbers are written in the shortest form that reads back to the same
//! `f64`, so a trajectory is exact and runs can be compared byte for byte.

use std::io::{self, Write};

use crate::world::World;

/// The trajectory file's header.
pub const TRAJECTORY_HEADER: &str = "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,asleep";

/// Writes trajectory rows as CSV.
pub struct TrajectoryWriter<W: Write> {
    out: W,
    frames: u64,
}

impl<W: Write> TrajectoryWriter<W> {
    /// Starts a trajectory, writing the header.
    pub fn new(mut out: W) -> io::Result<Self> {
        writeln!(out, "{TRAJECTORY_HEADER}")?;
        Ok(Self { out, frames: 0 })
    }

    /// Continues a trajectory that already holds its header and `frames` frames (a resumed
    /// run, [`super::checkpoint`]).
    pub fn resume(out: W, frames: u64) -> Self {
        Self { out, frames }
    }

    /// Writes one row per body for the world's current time.
    pub fn write_frame(&mut self, world: &World) -> io::Result<()> {
        // `ryu` gives the shortest representation that parses back to the same value.
        let mut number = ryu::Buffer::new();
        let mut line = String::with_capacity(256);
        for body in world.bodies() {
            let model = body.model_pose();
            let p = model.translation.vector;
            let q = model.rotation.quaternion();
            let (v, w) = (body.state().velocity, body.state().angular_velocity);
            line.clear();
            line.push_str(number.format(world.time()));
            line.push(',');
            line.push_str(&csv_field(body.name()));
            for value in [
                p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
            ] {
                line.push(',');
                line.push_str(number.format(value));
            }
            line.push_str(if body.is_asleep() { ",1\n" } else { ",0\n" });
            self.out.write_all(line.as_bytes())?;
        }
        // Multibody links, one row each, named `multibody/link`.
        for mb in world.multibodies() {
            for (i, link) in mb.tree().links().iter().enumerate() {
                let model = mb.link_model_pose(i);
                let p = model.translation.vector;
                let q = model.rotation.quaternion();
                let (v, w) = mb.link_velocity(i);
                line.clear();
                line.push_str(number.format(world.time()));
                line.push(',');
                line.push_str(&csv_field(&format!("{}/{}", mb.name(), link.name)));
                for value in [
                    p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z,
                ] {
                    line.push(',');
                    line.push_str(number.format(value));
                }
                // Links do not sleep.
                line.push_str(",0\n");
                self.out.write_all(line.as_bytes())?;
            }
        }
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The underlying writer, with everything written so far.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Flushes buffered rows to the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A CSV field, quoted when it contains a comma, quote or line break.
pub(super) fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
