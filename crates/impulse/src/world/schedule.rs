//! The schedule: the collision heap, each collider's pairs in it, the box periods, and the
//! allowances that let a pair's next check stand through small impulses.

use super::colliders::{FreeMotion, Participants};
use super::event_loop::{Event, EventLoop};
use crate::collision::broad::{FastMap, Pair};
use crate::collision::heap::EventHeap;

/// A collider's heap pairs, in order: a sorted vector (a collider has a few dozen at most;
/// its pairs are added at every check and read in order by the cluster gathers, whose sorts of
/// a hash set's pairs were 5.7 % of a pile's instructions). Read from a checkpoint, the list is
/// put in order again, so a file edited by hand cannot break the binary searches.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(from = "Vec<Pair>")]
pub(super) struct PairSet(Vec<Pair>);

impl serde::Serialize for PairSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl From<Vec<Pair>> for PairSet {
    fn from(mut pairs: Vec<Pair>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        Self(pairs)
    }
}

impl PairSet {
    /// Adds `p` if it is not there yet.
    pub(super) fn insert(&mut self, p: Pair) {
        if let Err(at) = self.0.binary_search(&p) {
            self.0.insert(at, p);
        }
    }

    /// Takes `p` out if it is there.
    pub(super) fn remove(&mut self, p: &Pair) {
        if let Ok(at) = self.0.binary_search(p) {
            self.0.remove(at);
        }
    }

    /// The pairs, in order.
    pub(super) fn iter(&self) -> std::slice::Iter<'_, Pair> {
        self.0.iter()
    }
}

/// A collider in `EventLoop::recheck_moved`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum MovedMark {
    /// Not among the moved.
    #[default]
    Unmoved,
    /// Moved, now in this free motion (`None`: not a free body); its pairs not yet taken.
    Moved(Option<FreeMotion>),
    /// Moved, and its pairs taken.
    Taken,
}

/// When each pair is next checked, and what decides it.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Schedule {
    pub(super) heap: EventHeap<Event>,
    /// The heap pairs of each collider.
    pub(super) pairs_of: Vec<PairSet>,
    /// The pairs whose next check was set with allowances: per side, the body's motion the
    /// allowance is measured from (`None`: any impulse on that side calls for a new check).
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) allowances: FastMap<Pair, [Option<AllowanceBase>; 2]>,
    /// Start of the first box period, and the index of the current one: period k ends at
    /// `period_origin + (k + 1)·box_period`, computed afresh (never accumulated).
    pub(super) period_origin: f64,
    pub(super) period_index: u64,
    /// End of the current box period.
    pub(super) period_end: f64,
    /// Where the current stretch of events began and how many it has had: events that advance
    /// time by next to nothing mean motion too fast to resolve (see `STALL_SPAN`).
    pub(super) stall: (f64, u64),
    /// Scratch for `recheck_moved`'s pairs (kept: a pile rechecks at every impulse).
    pub(super) recheck: Vec<Pair>,
    /// Scratch for `recheck_moved`: per collider, whether it moved and its pairs were taken
    /// (all `Unmoved` between calls).
    #[serde(skip)]
    pub(super) moved_marks: Vec<MovedMark>,
}

impl Schedule {
    pub(super) fn new() -> Self {
        Self {
            heap: EventHeap::new(),
            pairs_of: Vec::new(),
            allowances: FastMap::default(),
            period_origin: 0.0,
            period_index: 0,
            period_end: 0.0,
            // Finite, so that the first event starts a stretch (−∞ would give NaN bounds).
            stall: (f64::MIN, 0),
            recheck: Vec::new(),
            moved_marks: Vec::new(),
        }
    }
}

impl EventLoop {
    /// Sets pair `p`'s next check at `time` (if the pair may collide at all), or takes it out
    /// of the heap while neither side can move.
    pub(super) fn schedule_check(&mut self, p: Pair, time: f64, world: &Participants<'_>) {
        if !self.colliders.eligible(p, world) {
            return;
        }
        // A check set here is one due now; only `check_pair` sets one with allowances.
        self.schedule.allowances.remove(&p);
        self.schedule.pairs_of[p.0].insert(p);
        self.schedule.pairs_of[p.1].insert(p);
        // Neither side can move until an impulse wakes one, which checks it again.
        if self.colliders.still(p.0, world) && self.colliders.still(p.1, world) {
            self.schedule.heap.remove(&Event::Pair(p.0, p.1));
            return;
        }
        self.schedule.heap.set(Event::Pair(p.0, p.1), time);
    }

    /// Sets pair `p`'s next check after its check at `t`: `delay` later (when it could first
    /// come within the allowed distance), and no later than a link's motion bound holds; with
    /// the allowances the check's bounds were widened by.
    pub(super) fn reschedule(
        &mut self,
        p: Pair,
        t: f64,
        delay: f64,
        allowances: [f64; 2],
        world: &Participants<'_>,
    ) {
        let (a, b) = p;
        let next = (t + delay)
            .min(self.colliders.bound_valid_until(a))
            .min(self.colliders.bound_valid_until(b))
            .max(t);
        self.schedule_check(p, next, world);
        if allowances != [0.0; 2] {
            let bases = [(a, allowances[0]), (b, allowances[1])].map(|(c, allowance)| {
                (allowance > 0.0)
                    .then(|| self.allowance_base(c, t, allowance, world))
                    .flatten()
            });
            self.schedule.allowances.insert(p, bases);
        }
    }

    /// The allowance for collider `c`'s velocity changes in a pair's next check, given the
    /// pair's distance at its last check (see "Allowances" below): `ALLOWANCE` times the
    /// microcollision threshold speed for a free body without applied torque in a pair that
    /// was farther apart than `ALLOWANCE_DISTANCE` envelopes; zero otherwise, and zero when
    /// there is no gravity (no microcollisions).
    pub(super) fn allowance(
        &self,
        c: usize,
        previous: Option<f64>,
        world: &Participants<'_>,
    ) -> f64 {
        let settings = world.settings;
        let far = previous.is_some_and(|d| d > ALLOWANCE_DISTANCE * settings.collision_epsilon);
        let free = self.colliders.torque_free(c, world) && !self.colliders.asleep(c, world);
        if !(far && free && settings.microcollisions) {
            return 0.0;
        }
        ALLOWANCE * (2.0 * settings.gravity.norm() * settings.collision_epsilon).sqrt()
    }

    /// Collider `c`'s motion at `t`, which an allowance is measured from (`None` for a link:
    /// only free bodies get allowances).
    pub(super) fn allowance_base(
        &self,
        c: usize,
        t: f64,
        allowance: f64,
        world: &Participants<'_>,
    ) -> Option<AllowanceBase> {
        self.colliders
            .free_motion(c, world)
            .map(|motion| AllowanceBase {
                time: t,
                motion,
                allowance,
            })
    }

    /// Whether pair `q`'s next check still holds after an impulse on its collider `c` at `t`:
    /// it was set with an allowance for `c`, and `c`'s velocities have not left it.
    ///
    /// The check's travel bound charged every point of `c` with `(v₀ + a τ)·d̂ + r ω₀ + s` (eq.
    /// 2.13 plus the allowance `s`). After impulses, the free flight from now on moves them at
    /// most at `(v + a (τ − τ₁))·d̂ + r ω`, with `ω` the new energy bound; that is within the
    /// old bound while `|v − v₀ − a τ₁| + r (ω − ω₀) ≤ s`, and each impulse is tested so.
    /// `now` is `c`'s motion after the impulses (`Colliders::free_motion`).
    pub(super) fn within_allowance(
        &self,
        q: Pair,
        c: usize,
        t: f64,
        now: Option<&FreeMotion>,
    ) -> bool {
        let (Some(bases), Some(now)) = (self.schedule.allowances.get(&q), now) else {
            return false;
        };
        let Some(base) = bases[usize::from(q.0 != c)] else {
            return false;
        };
        // The bound integrated the flight's acceleration: a body that fell asleep (or woke)
        // since has another, and its pairs are checked again.
        let then = &base.motion;
        if now.acceleration != then.acceleration {
            return false;
        }
        let expected = then.velocity + then.acceleration * (t - base.time);
        let linear = (now.velocity - expected).norm();
        let angular = (now.angular_speed - then.angular_speed).max(0.0);
        linear + self.colliders.spin_reach[c] * angular <= base.allowance
    }
}

/// Allowances. An impulse on a body changes its motion, so every pair of the body would be
/// checked again at once, under the new motion (the thesis's rule). A body resting on the
/// floor takes thousands of microcollisions a second, each changing its velocities by about
/// the microcollision threshold speed `√(2 g ε)`, and each would have its every neighbour
/// checked again: a coin lying among seven others had its seven far pairs checked with each
/// of its 25 000 microcollisions. So a pair farther apart than `ALLOWANCE_DISTANCE` envelopes
/// at its last check gets its next check under travel bounds widened by a speed `s` in every
/// direction (`ALLOWANCE` threshold speeds), and an impulse that leaves the body's velocities
/// within `s` of the motion the bound assumed leaves that check where it is
/// ([`EventLoop::within_allowance`]). Near pairs keep the exact bounds, which the resting
/// contacts' scheduling relies on.
pub(super) const ALLOWANCE: f64 = 4.0;
pub(super) const ALLOWANCE_DISTANCE: f64 = 2.0;

/// The motion an allowance is measured from: a free body's motion at the time its pair's check
/// was set.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct AllowanceBase {
    pub(super) time: f64,
    pub(super) motion: FreeMotion,
    pub(super) allowance: f64,
}

#[cfg(test)]
mod pair_set_tests {
    use super::PairSet;

    #[test]
    fn a_pair_set_read_out_of_order_is_put_in_order_and_keeps_one_of_each() {
        // A checkpoint edited by hand: the binary searches of insert and remove need order.
        let mut set = PairSet::from(vec![(3, 7), (1, 2), (3, 7), (0, 9)]);
        assert_eq!(
            set.iter().copied().collect::<Vec<_>>(),
            [(0, 9), (1, 2), (3, 7)]
        );
        set.insert((1, 5));
        set.insert((1, 2));
        set.remove(&(0, 9));
        set.remove(&(4, 4));
        assert_eq!(
            set.iter().copied().collect::<Vec<_>>(),
            [(1, 2), (1, 5), (3, 7)]
        );
    }
}
