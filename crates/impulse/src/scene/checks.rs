//! Checks of the built world: bodies that start interpenetrating, and a collision envelope out
//! of scale with the bodies.

use std::ops::Range;

use crate::world::Collider;
use crate::world::World;

use super::SceneReader;
use super::reader::Table;

impl<'c, 's> SceneReader<'c, 's> {
    /// Bodies that start interpenetrated: deeper than the collision envelope cannot be
    /// simulated (the contact normal and the impulses would be meaningless), so it is an error;
    /// a shallower overlap is resolved by the first collisions and gets a warning.
    pub(super) fn check_overlaps(&self, world: &World, entries: &[(String, Range<usize>, String)]) {
        let epsilon = world.settings().collision_epsilon;
        // Located at a body of the pair (the second if both are bodies), else at the
        // multibodies table.
        let place = |a: Collider, b: Collider| {
            let body = match (a, b) {
                (_, Collider::Body(id)) | (Collider::Body(id), _) => Some(world.body(id).name()),
                _ => None,
            };
            body.and_then(|name| entries.iter().find(|(n, _, _)| n == name))
                .map(|(_, span, key)| (span.clone(), key.clone()))
                .unwrap_or((0..0, "multibodies".to_string()))
        };
        for overlap in world.interpenetrations() {
            let (a, b) = overlap.colliders;
            let (name_a, name_b) = (world.collider_name(a), world.collider_name(b));
            let depth = overlap.depth;
            if depth > epsilon {
                let (span, key) = place(a, b);
                self.ctx.error(
                    &span,
                    &key,
                    format!(
                        "`{name_a}` and `{name_b}` start interpenetrating by {depth:.3e}, deeper than the collision envelope ({epsilon}); move them apart"
                    ),
                );
            } else if depth > 0.01 * epsilon {
                let (span, key) = place(a, b);
                self.ctx.warning(
                    &span,
                    &key,
                    format!(
                        "`{name_a}` and `{name_b}` start interpenetrating by {depth:.3e} (within the collision envelope {epsilon}); the first collisions will push them apart"
                    ),
                );
            }
        }
    }

    /// Warns when the collision envelope is far from the thesis's guidance (2–3 orders of
    /// magnitude below object size, Mirtich §4).
    pub(super) fn warn_about_scale(&self, world: &World, root: &Table<'c, 's>) {
        let Some(size) = world.smallest_dynamic_size() else {
            return;
        };
        let eps = world.settings().collision_epsilon;
        let span = root
            .table("world")
            .and_then(|w| w.get("collision_epsilon").map(|v| v.span()))
            .unwrap_or(0..0);
        if eps >= size {
            // Every body would count as touching whatever lies within its own size, and the
            // microcollision speed √(2 g ε) would exceed any motion (ε = 1e308 ran for ever).
            self.ctx.error(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {} is not smaller than the smallest body (size {}): \
                     aim for 2–3 orders of magnitude below body size",
                    crate::math::readable(eps),
                    crate::math::readable(size)
                ),
            );
        } else if eps > 0.05 * size {
            self.ctx.warning(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {} is large next to the smallest body (size {}); bodies will rest visibly apart. Aim for 2–3 orders of magnitude below body size",
                    crate::math::readable(eps),
                    crate::math::readable(size)
                ),
            );
        } else if eps < 1e-5 * size {
            self.ctx.warning(
                &span,
                "world.collision_epsilon",
                format!(
                    "collision_epsilon = {} is tiny next to the smallest body (size {}): contacts will need very many collision checks. Aim for 2–3 orders of magnitude below body size",
                    crate::math::readable(eps),
                    crate::math::readable(size)
                ),
            );
        }
    }
}
