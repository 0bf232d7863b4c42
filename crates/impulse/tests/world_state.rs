//! `World::save_state` / `World::restore_state` (checkpoint format 4, issue 42): a world read
//! back from its saved state into a world built from the same scene is the saved world, bit
//! for bit, and continues exactly as the original does — same events, same state — on
//! contact-rich, constraint, penalty and hybrid scenes, under both broad phases.
//!
//! The reference is the original world itself: both are advanced through the same times and
//! their whole saved states (every float as its bits, every cache, heap entry and counter)
//! and their collision events must be equal. Nothing is compared with a tolerance.

use std::path::Path;

use impulse::World;
use impulse::scene;

fn scene_text(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The world of scene `file` whose text is `text` (read from the scenes' own directory, so
/// that mesh paths resolve).
fn world_of(file: &str, text: &str) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    scene::parse(&path, text)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .world
}

/// Advances `world` through the frames `from + k · step` up to `to`, returning its events.
fn advance(
    world: &mut World,
    from: f64,
    to: f64,
    step: f64,
) -> Vec<impulse::world::CollisionEvent> {
    let mut events = Vec::new();
    let mut k = 1;
    loop {
        let t = (from + k as f64 * step).min(to);
        world.advance_to(t).expect("the scene runs");
        events.extend(world.take_events());
        if t >= to {
            return events;
        }
        k += 1;
    }
}

/// Runs scene `text` to `checkpoint`, restores its saved state into a fresh world of the same
/// scene, and checks that the restored world saves the very same bytes, then that both run on
/// to `end` with the same events and end in the same state.
fn restored_world_continues_identically(file: &str, text: &str, checkpoint: f64, end: f64) {
    let step = 0.01;
    let mut original = world_of(file, text);
    original.prepare().unwrap();
    advance(&mut original, 0.0, checkpoint, step);
    let saved = original.save_state().expect("the state encodes");

    let mut restored = world_of(file, text);
    restored
        .restore_state(&saved)
        .expect("the state fits its scene");
    assert_eq!(restored.time(), checkpoint, "{file}: restored time");
    assert!(
        restored.save_state().unwrap() == saved,
        "{file}: the restored world saves other bytes than it was read from"
    );
    let heap_events_at_checkpoint = original.counters().heap_events;
    assert!(heap_events_at_checkpoint > 0, "{file}: nothing happened");

    let a = advance(&mut original, checkpoint, end, step);
    let b = advance(&mut restored, checkpoint, end, step);
    assert_eq!(a.len(), b.len(), "{file}: events after the checkpoint");
    for (x, y) in a.iter().zip(&b) {
        // Bits, not `==` (which would call -0.0 and 0.0 equal).
        let bits = |e: &impulse::world::CollisionEvent| {
            format!(
                "{:?} {:?} {:?}",
                e.time.to_bits(),
                e.colliders,
                [e.point.coords, e.normal, e.impulse].map(|v| v.map(f64::to_bits))
            )
        };
        assert_eq!(bits(x), bits(y), "{file}: an event after the checkpoint");
    }
    assert!(
        original.save_state().unwrap() == restored.save_state().unwrap(),
        "{file}: the states at t = {end} differ"
    );
    // The restored world did the work after the checkpoint only; the counts agree.
    assert_eq!(original.counters(), restored.counters(), "{file}: counters");
    assert!(
        original.counters().heap_events > heap_events_at_checkpoint,
        "{file}: no events after the checkpoint"
    );
}

fn round_trip(file: &str, checkpoint: f64, end: f64) {
    restored_world_continues_identically(file, &scene_text(file), checkpoint, end);
}

#[test]
fn restored_dominos_continue_identically() {
    round_trip("scenes/impulse/dominos.toml", 0.3, 0.5);
}

#[test]
fn restored_dominos_under_sweep_and_prune_continue_identically() {
    // The other broad phase, saved by value like the hierarchical hash.
    let file = "scenes/impulse/dominos.toml";
    let text = scene_text(file).replacen(
        "[world]\n",
        "[world]\nbroad_phase = \"sweep_and_prune\"\n",
        1,
    );
    restored_world_continues_identically(file, &text, 0.3, 0.5);
}

#[test]
fn restored_part_sorter_continues_identically() {
    round_trip("scenes/hybrid/part_sorter.toml", 0.3, 0.5);
}

#[test]
fn restored_creature_war_continues_identically() {
    round_trip("scenes/hybrid/creature_war.toml", 0.1, 0.2);
}

#[test]
fn restored_constraint_stack_of_five_continues_identically() {
    round_trip("scenes/constraint/stack_of_five.toml", 0.2, 0.4);
}

#[test]
fn restored_penalty_stack_of_five_continues_identically() {
    round_trip("scenes/penalty/stack_of_five.toml", 0.2, 0.4);
}

#[test]
fn restored_hybrid_triple_pendulum_continues_identically() {
    round_trip("scenes/hybrid/triple_pendulum.toml", 0.3, 0.5);
}

#[test]
fn restored_coins_asleep_continue_identically() {
    // Coins come to rest and fall asleep: islands, stillness and sleep flags are saved.
    round_trip("scenes/impulse/coins.toml", 2.0, 2.5);
}

#[test]
fn a_state_is_refused_by_a_world_of_another_scene() {
    let mut dominos = world_of(
        "scenes/impulse/dominos.toml",
        &scene_text("scenes/impulse/dominos.toml"),
    );
    dominos.advance_to(0.05).unwrap();
    let saved = dominos.save_state().unwrap();
    let file = "scenes/hybrid/part_sorter.toml";
    let mut other = world_of(file, &scene_text(file));
    let error = other.restore_state(&saved).unwrap_err();
    assert!(error.contains("bodies in the checkpoint"), "{error}");
    // Nothing changed: the other world still starts at 0.
    assert_eq!(other.time(), 0.0);
    assert!(other.restore_state(&saved[..saved.len() / 2]).is_err());
}

#[test]
fn a_state_is_refused_when_a_body_is_made_of_other_shapes() {
    // The same scene with the first domino 1 % thicker (0.75 → 0.7575): the mass properties
    // computed from its shape tell, as they would a mesh file changed since.
    let file = "scenes/impulse/dominos.toml";
    let text = scene_text(file);
    let mut dominos = world_of(file, &text);
    dominos.advance_to(0.05).unwrap();
    let saved = dominos.save_state().unwrap();
    let edited = text.replacen("size = [0.75,", "size = [0.7575,", 1);
    assert_ne!(edited, text, "the edit changed the scene");
    let mut other = world_of(file, &edited);
    let error = other.restore_state(&saved).unwrap_err();
    assert!(error.contains("mass properties differ"), "{error}");
}
