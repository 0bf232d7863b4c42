//! Checks of a scene that would load and then fail or stall when run, reported by `check` with
//! the key that causes them (issue 42): settings that only go wrong together (a box period
//! whose fall under gravity overflows), gravity so strong against the collision envelope that
//! resting contact would take microcollisions beyond count, and a body whose energy is not a
//! number (a point mass of 1e308 passed `check`, and the run blamed the energy's rise).

use std::ops::Range;

use crate::math::readable;
use crate::world::World;

use super::SceneReader;
use super::reader::Table;

/// Most microcollisions one resting contact may need over a run: at ~1e6 a second of wall
/// time, a couple of minutes for that contact alone. A run needing more makes no visible
/// progress (gravity 1e15 m/s² against a 1 mm envelope: one every 1.4 ns).
pub const MAX_RESTING_MICROCOLLISIONS: f64 = 1e8;

impl<'c, 's> SceneReader<'c, 's> {
    pub(super) fn check_run(
        &self,
        world: &World,
        root: &Table<'c, 's>,
        duration: f64,
        entries: &[(String, Range<usize>, String)],
    ) {
        let world_key = |key: &str| {
            let span = root
                .table("world")
                .and_then(|w| w.get(key).map(|v| v.span()))
                .unwrap_or(0..0);
            (span, format!("world.{key}"))
        };
        let settings = world.settings();
        if let Err(error) = settings.check() {
            let (span, key) = world_key(error.setting);
            self.ctx.error(&span, &key, error.to_string());
            return;
        }
        let gravity = settings.gravity.norm();
        let epsilon = settings.collision_epsilon;
        let has_dynamic =
            world.bodies().iter().any(|b| b.is_dynamic()) || !world.multibodies().is_empty();
        if settings.microcollisions && gravity > 0.0 && epsilon > 0.0 && has_dynamic {
            // A body resting in the envelope falls through it in √(2ε/g) and is thrown back
            // (§3.5): its microcollisions come about that often.
            let period = (2.0 * epsilon / gravity).sqrt();
            let count = duration / period;
            if count > MAX_RESTING_MICROCOLLISIONS {
                let (span, key) = world_key("gravity");
                self.ctx.error(
                    &span,
                    &key,
                    format!(
                        "gravity of {} is too strong for the collision envelope ({}): a body \
                         resting on another would take a microcollision every √(2ε/g) = {} \
                         time units, {} times over the run's {} (at most {} allowed); lower \
                         gravity, raise `collision_epsilon` or shorten the run",
                        readable(gravity),
                        readable(epsilon),
                        readable(period),
                        readable(count.round()),
                        readable(duration),
                        readable(MAX_RESTING_MICROCOLLISIONS)
                    ),
                );
            }
        }
        // Each body's energy, and their sum, must be numbers for the energy bound and the
        // summary: name the body whose mass, speed or height is beyond f64.
        let mut total = 0.0;
        for (body, (name, span, key)) in world.bodies().iter().zip(entries) {
            if !body.is_dynamic() || body.name() != name {
                continue;
            }
            let kinetic = body.kinetic_energy();
            let potential = body.potential_energy(&settings.gravity);
            total += kinetic + potential;
            if !(kinetic + potential).is_finite() || !total.is_finite() {
                self.ctx.error(
                    span,
                    key,
                    format!(
                        "body `{name}`: its energy is too large to compute (mass {}, kinetic {}, \
                         potential {}): check its mass, density, point masses, speed and height",
                        readable(body.mass()),
                        readable(kinetic),
                        readable(potential)
                    ),
                );
                return;
            }
        }
    }
}
