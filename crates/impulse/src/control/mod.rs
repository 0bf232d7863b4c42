//! Controllers (Mirtich §5.4): sampled control laws that read a multibody's state at their own
//! rate and hold their output until the next update (zero-order hold).
//!
//! This layer sits on top of `multibody`: a multibody calls its controllers through the seam
//! it defines ([`Controller`], [`Commands`], [`Observations`], in
//! [`crate::multibody::controller`]) and schedules them itself; the laws here implement that
//! seam, and `multibody` knows none of them.
//!
//! - [`JointPid`]: PD and PID on one joint coordinate.
//! - [`PosePd`]: PD on a link's pose, through a sequence of goals, possibly in the frame of
//!   another multibody.
//! - [`demo`]: the thesis's demonstration controllers (the creature war's rover and bugs, the
//!   wine bottle's hop), kept apart from the engine's laws.
//!
//! [`Controller`]: crate::multibody::Controller
//! [`Commands`]: crate::multibody::Commands
//! [`Observations`]: crate::multibody::Observations

pub mod demo;
mod pid;
mod pose;
mod targets;

pub use pid::JointPid;
pub use pose::{Arrival, PoseGoal, PosePd, pose_pd_wrench};
pub use targets::{JointTarget, resolve_coordinate};
