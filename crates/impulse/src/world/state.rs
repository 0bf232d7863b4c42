//! A world's whole state as bytes, and back (the checkpoints of `impulse run`, format version 7).
//!
//! [`World::save_state`] writes the world with `postcard` (floats as their IEEE bits, so they
//! read back exactly): time, every body's state, flight (and its integrator's steps), sleep and
//! hold flags; every multibody's coordinates, flight, steps kept for sampling, held forces,
//! workspace and its controllers' own state; the event loop whole — the collision heap, each
//! collider's heap pairs and allowances, the broad phase (boxes, cells, candidate pairs), the
//! narrow phase's closest-feature caches (V-Clip features, GJK simplices), same-instant
//! contacts, wedge extrapolations, the free floor's rest ceilings, cluster settlements and
//! warm starts, stillness, contacts and islands for sleep, multibody envelopes, counters; the
//! constraint groups (members, held contacts with their modes and springs, flights, Lemke's
//! last basis); what controllers see of each other; the energy bound's base. The world has no
//! random number generator.
//!
//! What it leaves out is what the scene gives: the bodies' shapes, the multibodies' trees,
//! the collider table's collision models (all geometry), the type of each controller, and
//! the interrupt flag. [`World::restore_state`] reads the state into a world built from the
//! same scene, which lends those. Nothing is recomputed: the restored world is the saved one,
//! bit for bit, and continues as it would have.

use super::World;
use super::colliders::Colliders;

impl World {
    /// The world's state as bytes (see the module comment for what they hold).
    pub fn save_state(&self) -> Result<Vec<u8>, String> {
        postcard::to_stdvec(self).map_err(|e| format!("cannot encode the world's state: {e}"))
    }

    /// Replaces this world — one built from the scene the state was saved from — with the
    /// saved world of `bytes`, lending it the geometry, trees and controller types that the
    /// bytes do not hold. Refused, and nothing changed, if the bytes do not decode or do not
    /// fit this world (other bodies, multibodies, controllers, or shapes whose mass
    /// properties or sizes differ: a mesh file changed since).
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut saved: World = postcard::from_bytes(bytes)
            .map_err(|e| format!("the world's state does not decode: {e}"))?;
        if saved.bodies.len() != self.bodies.len() {
            return Err(format!(
                "{} bodies in the checkpoint, {} in the scene",
                saved.bodies.len(),
                self.bodies.len()
            ));
        }
        for (body, built) in saved.bodies.iter_mut().zip(&self.bodies) {
            if body.name() != built.name() {
                return Err(format!(
                    "body `{}` of the checkpoint is `{}` in the scene",
                    body.name(),
                    built.name()
                ));
            }
            // The scene text is the same (its hash is checked); the mass properties come from
            // the shapes, so they tell a mesh file changed since.
            let bits = |b: &crate::dynamics::RigidBody| postcard::to_stdvec(b.mass_properties());
            if bits(body).ok() != bits(built).ok() {
                return Err(format!(
                    "body `{}`: its mass properties differ from the checkpoint's (a mesh file \
                     changed since?)",
                    body.name()
                ));
            }
            body.adopt_shapes(built);
        }
        if saved.multibodies.len() != self.multibodies.len() {
            return Err(format!(
                "{} multibodies in the checkpoint, {} in the scene",
                saved.multibodies.len(),
                self.multibodies.len()
            ));
        }
        for (multibody, built) in saved.multibodies.iter_mut().zip(&self.multibodies) {
            if multibody.name() != built.name() {
                return Err(format!(
                    "multibody `{}` of the checkpoint is `{}` in the scene",
                    multibody.name(),
                    built.name()
                ));
            }
            multibody.adopt_scene_parts(built)?;
            let tree = multibody.tree();
            if (tree.nq(), tree.nv()) != (multibody.q().len(), multibody.v().len()) {
                return Err(format!(
                    "multibody `{}` has other coordinates in the scene",
                    multibody.name()
                ));
            }
        }
        // The collision models come from the shapes; the table was built from the same bodies
        // (in the same order) when the loop started, so its sizes must agree with them.
        if saved.collisions.started() {
            let built = Colliders::new(&saved.bodies, &saved.multibodies);
            let table = &mut saved.collisions.colliders;
            let reach_bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            if built.len() != table.len() || reach_bits(&built.reach) != reach_bits(&table.reach) {
                return Err(
                    "the colliders' sizes differ from the checkpoint's (a mesh file changed \
                     since?)"
                        .to_string(),
                );
            }
            table.models = built.models;
        }
        saved.interrupt = self.interrupt;
        for g in saved.groups.indices() {
            if let Some(group) = saved.groups.get_mut(g) {
                group.interrupt = self.interrupt;
            }
        }
        *self = saved;
        Ok(())
    }
}
