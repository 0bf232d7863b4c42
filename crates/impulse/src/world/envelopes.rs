//! Multibody envelopes (hybrid simulation, Mirtich ch. 5): each multibody with colliding
//! links integrates ahead and bounds its links' motion over an interval (its *envelope*);
//! pair checks are never set past its end, where a `Horizon` event renews it.

use super::SimulationError;
use super::colliders::Participants;
use super::event_loop::{Event, EventLoop};

/// How far ahead each multibody's next envelope reaches, and when its links last took an
/// impulse (see [`Renewal`]).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Envelopes {
    pub(super) spans: Vec<f64>,
    pub(super) last_impulses: Vec<f64>,
}

impl EventLoop {
    /// Moves multibody `m` to `t`, bounds its links' motion until the period's end, its next
    /// controller update or the end of its span (which sets the next `Horizon`), and gives its
    /// links their new boxes. The broad phase is updated by the caller.
    pub(super) fn renew_envelope(
        &mut self,
        m: usize,
        t: f64,
        cause: Renewal,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        if self.colliders.link_colliders[m].is_empty() {
            return Ok(());
        }
        let longest = world.settings.box_period;
        let span = &mut self.envelopes.spans[m];
        match cause {
            Renewal::Period => {}
            Renewal::Expired => *span = (2.0 * *span).min(longest),
            Renewal::Impulse => {
                let since = t - self.envelopes.last_impulses[m];
                self.envelopes.last_impulses[m] = t;
                *span = (2.0 * since).clamp(1e-4 * longest, longest);
            }
        }
        let until = self.schedule.period_end.min(t + *span);
        world.advance_multibody(m, t)?;
        let multibody = &mut world.multibodies[m];
        let envelope =
            multibody
                .motion_envelope(until)
                .map_err(|error| SimulationError::Multibody {
                    multibody: multibody.name().to_string(),
                    error,
                })?;
        let end = envelope.end;
        self.colliders.envelopes[m] = Some(envelope);
        if end < self.schedule.period_end {
            // The span's end, a controller update or a failing integration before the
            // period's end.
            self.schedule.heap.set(Event::Horizon(m), end.max(t));
        } else {
            self.schedule.heap.remove(&Event::Horizon(m));
        }
        for k in 0..self.colliders.link_colliders[m].len() {
            let c = self.colliders.link_colliders[m][k];
            self.renew_box(c, t, world)?;
        }
        Ok(())
    }

    /// The motion of multibody `m` changed at `t` (a controller update, the end of its
    /// envelope, or an impulse): new envelope and boxes, and every heap pair of its links is
    /// checked again now.
    pub(super) fn renew_multibody(
        &mut self,
        m: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.renew_envelope(m, t, Renewal::Expired, world)?;
        let links = self.colliders.link_colliders[m].clone();
        self.recheck_moved(&links, None, t, world);
        Ok(())
    }
}

/// Why a multibody's envelope is renewed, which sets how far ahead the next one reaches. Each
/// impulse on a link discards the integration ahead, so a multibody under a train of
/// microcollisions is bounded only about twice as far ahead as its last impulse was ago; one
/// left alone doubles its span at each renewal, up to the box period.
#[derive(Clone, Copy, Debug)]
pub(super) enum Renewal {
    /// A new box period: the span is kept.
    Period,
    /// The envelope ran out (its span, or a controller update): the span doubles.
    Expired,
    /// An impulse on one of its links: twice the time since the previous one.
    Impulse,
}
