//! Swept boxes and the broad phase: each moving collider's box over the current box period
//! (ballistic flights in closed form, Fig. 2.13; links from their envelope), candidate pairs
//! found by the broad phase entering the heap, and the propagation of a change of motion to
//! every other pair of the colliders it moved.

use super::SimulationError;
use super::colliders::{FreeMotion, Participants};
use super::envelopes::Renewal;
use super::event_loop::{Event, EventLoop};
use super::schedule::MovedMark::{Moved, Taken, Unmoved};
use crate::collision::broad::{BroadPhase, Pair};

impl EventLoop {
    /// Whether pair `p` is a broad-phase candidate (a half-space pairs with everything).
    pub(super) fn is_candidate(&self, p: Pair) -> bool {
        self.colliders.unbounded[p.0] || self.colliders.unbounded[p.1] || self.broad.is_candidate(p)
    }

    /// Renews collider `c`'s box in the broad phase (if it has a bounded part): swept from `t`
    /// to the period's end under its motion now.
    pub(super) fn renew_box(
        &mut self,
        c: usize,
        t: f64,
        world: &Participants<'_>,
    ) -> Result<(), SimulationError> {
        if self.colliders.bounded(c) {
            let aabb = self
                .colliders
                .swept_box(c, t, self.schedule.period_end, world)?;
            self.broad.set(c, aabb);
        }
        Ok(())
    }

    /// A new box period at `t`: every moving collider's box swept over it, every multibody's
    /// envelope renewed, new candidate pairs checked now, then islands that have stayed still
    /// put to sleep.
    pub(super) fn refresh_boxes(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        self.counters.box_refreshes += 1;
        self.schedule.period_index += 1;
        self.schedule.period_end = self.schedule.period_origin
            + (self.schedule.period_index + 1) as f64 * world.settings.box_period;
        for c in 0..self.colliders.len() {
            // (Links and held bodies are bounded by their envelopes, renewed below.)
            if self.colliders.moves(c, world)
                && self.colliders.bounded(c)
                && !self.colliders.is_link(c)
                && self.colliders.held_by(c).is_none()
            {
                self.colliders.sample(c, t, world)?;
                let aabb = self
                    .colliders
                    .swept_box(c, t, self.schedule.period_end, world)?;
                self.broad.set(c, aabb);
            }
        }
        for m in 0..self.colliders.link_colliders.len() {
            self.renew_envelope(m, t, Renewal::Period, world)?;
        }
        for g in world.groups.indices() {
            self.renew_group(g, t, world)?;
        }
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for p in changes.added {
            if !self.schedule.heap.contains(&Event::Pair(p.0, p.1)) {
                self.schedule_check(p, t, world);
            }
        }
        if world.settings.sleep.enabled {
            self.put_still_islands_to_sleep(t, world)?;
        }
        self.schedule
            .heap
            .set(Event::BoxRefresh, self.schedule.period_end);
        Ok(())
    }

    /// After `moved` colliders changed their motion at `t` (boxes already set): pairs new to
    /// the broad phase are scheduled, and every heap pair of the moved colliders but `except`
    /// is checked again now.
    pub(super) fn recheck_moved(
        &mut self,
        moved: &[usize],
        except: Option<Pair>,
        t: f64,
        world: &Participants<'_>,
    ) {
        let changes = self.broad.update();
        self.counters.broad_phase_pairs += changes.added.len() as u64;
        for q in changes.added {
            self.schedule_check(q, t, world);
        }
        // Each pair once, from the first of its colliders in `moved` (an impact moves a whole
        // pile: sorting its pairs to drop the repeats was 1 % of a pit's instructions), checked
        // again if either side that moved is beyond its allowance. The order of the checks
        // set does not matter: the heap orders its events by time, then key.
        let mut recheck = std::mem::take(&mut self.schedule.recheck);
        let mut marks = std::mem::take(&mut self.schedule.moved_marks);
        marks.resize(self.colliders.len(), Unmoved);
        for &c in moved {
            marks[c] = Moved(self.colliders.free_motion(c, world));
        }
        for &c in moved {
            let Moved(now) = marks[c] else {
                continue; // listed twice
            };
            for &q in self.schedule.pairs_of[c].iter() {
                let other = if q.0 == c { q.1 } else { q.0 };
                if Some(q) == except || matches!(marks[other], Taken) {
                    continue;
                }
                let beyond = |side: usize, now: Option<FreeMotion>| {
                    !self.within_allowance(q, side, t, now.as_ref())
                };
                if beyond(c, now) || matches!(marks[other], Moved(then) if beyond(other, then)) {
                    recheck.push(q);
                }
            }
            marks[c] = Taken;
        }
        for &c in moved {
            marks[c] = Unmoved;
        }
        self.schedule.moved_marks = marks;
        for &q in &recheck {
            self.schedule_check(q, t, world);
        }
        recheck.clear();
        self.schedule.recheck = recheck;
    }

    /// Collider `c` took an impulse at `t`: a free body's box is renewed; a link's whole
    /// multibody gets a new envelope and boxes. Every collider whose motion changed is added
    /// to `changed`, for `recheck_moved`.
    pub(super) fn renew_motion(
        &mut self,
        c: usize,
        t: f64,
        world: &mut Participants<'_>,
        changed: &mut Vec<usize>,
    ) -> Result<(), SimulationError> {
        if let Some(held) = self.colliders.held_by(c) {
            self.renew_group(held.group, t, world)?;
            if let Some(group) = world.groups.get(held.group) {
                changed.extend(group.model.members.iter().map(|m| m.collider));
            }
            return Ok(());
        }
        match self.colliders.multibody(c) {
            None => {
                if self.colliders.dynamic(c, world) {
                    self.renew_box(c, t, world)?;
                    changed.push(c);
                }
            }
            Some(m) => {
                self.renew_envelope(m, t, Renewal::Impulse, world)?;
                changed.extend(self.colliders.link_colliders[m].iter().copied());
            }
        }
        Ok(())
    }
}
