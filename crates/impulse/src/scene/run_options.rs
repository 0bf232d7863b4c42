//! How long a scene runs and how often it is recorded (`world.duration`, `world.output_rate`),
//! and the bound on the frames a run may write. The scene checks it when it is read; the run
//! driver ([`crate::run`]) checks it again for options given otherwise.

use crate::math::readable;

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
}
