//! Baraff's demonstration scenes rebuilt under constraint-based contact (issue 35, thesis
//! §8.1 and App. D): the chair on four legs, a jack down stairs, dice through a lattice and a
//! leaning plank that collapses, each checked against statics or an energy bound.

mod common;

use common::scenes::{load, parse, shipped, shipped_under};
use impulse::World;
use impulse::math::Vec3;
use impulse::world::Consistency;

/// The shipped scene `relative` with the first `from` in its text replaced by `to`.
fn shipped_with(relative: &str, from: &str, to: &str) -> World {
    let path = shipped(relative);
    let text = std::fs::read_to_string(&path).expect("shipped scene");
    assert!(text.contains(from), "{relative} has no `{from}`");
    match parse(&path, &text.replacen(from, to, 1)) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    }
}

#[test]
fn the_chair_on_four_legs_rests_on_forces_that_carry_its_weight() {
    // scenes/constraint/chair_on_four_legs.toml (Baraff §8.1, digest V4a). Its mass from the
    // parts' volumes at 600 kg/m³: seat 0.4·0.4·0.03, legs 4·0.03²·0.42, ball feet
    // 4·(4/3)π·0.015³ = 6.3686e-3 m³, 3.8211 kg. At rest the floor's forces balance its weight
    // (statics), 1e-9 relative (the bound); each is a push (f_N ≥ 0).
    let mut world = load(&shipped("constraint/chair_on_four_legs.toml")).world;
    let id = world.body_id("chair").expect("the chair");
    let volume = 0.4 * 0.4 * 0.03
        + 4.0 * 0.03 * 0.03 * 0.42
        + 4.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.015f64.powi(3);
    let weight = 600.0 * volume * 9.81;
    let start = world.body(id).state().position;
    world.advance_to(0.5).expect("runs");
    let settled = world.body(id).state().position;
    let report = world.contact_report().expect("poses");
    assert_eq!(report.consistency, Consistency::Consistent);
    assert_eq!(report.contacts.len(), 4, "one contact a foot");
    let forces = report.forces.expect("forces");
    for (i, f) in forces.iter().enumerate() {
        assert!(f.z >= 0.0, "foot {i} pulls: {f}");
    }
    let total: Vec3 = forces.iter().sum();
    assert!(
        (total - Vec3::new(0.0, 0.0, weight)).norm() < 1e-9 * weight,
        "forces sum to {total}, weight {weight} N"
    );
    // It rests: before it is held it falls at most through the 1e-5 m gap it was set down
    // with; after that it stays to rounding over the remaining 1.5 s (measured 7.5e-16 m).
    assert!(
        (settled - start).norm() <= 1e-5,
        "fell {}",
        (settled - start).norm()
    );
    world.advance_to(2.0).expect("runs to the end");
    let after = (world.body(id).state().position - settled).norm();
    assert!(after < 1e-9, "moved {after} m while resting");
}

#[test]
fn the_frictionless_chair_has_several_force_solutions_and_one_motion() {
    // The chair's 4 × 4 contact matrix has rank 3 (§8.1): without friction (4 unknowns, small
    // enough to enumerate) the forces are not unique. With the centre of mass over the middle,
    // the basic solutions are the two diagonal pairs, each leg of the pair carrying half the
    // weight; their accelerations are the same (Cottle), so the report calls the configuration
    // consistent with 2 solutions (an indeterminate one would have different motions, §10.1).
    let mut world = shipped_with(
        "constraint/chair_on_four_legs.toml",
        "friction = 0.4",
        "friction = 0.0",
    );
    world.advance_to(0.5).expect("runs");
    let report = world.contact_report().expect("poses");
    assert_eq!(report.solutions, Some(2));
    assert_eq!(report.consistency, Consistency::Consistent);
    let forces = report.forces.expect("forces");
    let half = 0.5 * forces.iter().map(|f| f.z).sum::<f64>();
    // Lemke's answer is one of the diagonal pairs: two feet at half the weight, two at zero.
    let carrying = forces
        .iter()
        .filter(|f| (f.z - half).abs() < 1e-9 * half)
        .count();
    let idle = forces.iter().filter(|f| f.z.abs() < 1e-9 * half).count();
    assert_eq!((carrying, idle), (2, 2), "forces {forces:?}");
}

#[test]
fn the_jack_tumbles_down_the_stairs_without_gaining_energy() {
    // scenes/constraint/jack_down_stairs.toml: thrown off a 0.40 m landing, the jack must end
    // on the floor past the last step (x > 0.60 m, centre below the lowest tread at 0.08 m).
    // Collisions and contact forces never add energy; the drift correction of held contacts
    // may give back what a landing pressed below the held gap: allowed the jack's weight
    // (0.397 N) lifted 1 µm, over the scene's 1.45 s (measured: the start's energy plus 3e-17 J of rounding). No
    // contact sinks deeper than the envelope ε_c = 0.1 mm.
    let mut world = load(&shipped("constraint/jack_down_stairs.toml")).world;
    let id = world.body_id("jack").expect("the jack");
    let start = world.energy().total();
    let slack = 0.0404352 * 9.81 * 1e-6;
    let mut highest = start;
    for k in 1..=290 {
        world.advance_to(k as f64 * 0.005).expect("runs");
        highest = highest.max(world.energy().total());
    }
    assert!(
        highest <= start + slack,
        "energy rose from {start} J to {highest} J"
    );
    let end = world.body(id).state().position;
    assert!(end.x > 0.6, "ended at x = {} m, not past the stairs", end.x);
    assert!(end.z < 0.08, "ended at z = {} m, not on the floor", end.z);
    let depth = world.max_penetration();
    assert!(depth <= 1e-4, "sank {depth} m");
}

#[test]
fn the_dice_fall_through_the_lattice_without_gaining_energy() {
    // scenes/constraint/dice_through_lattice.toml: three dice dropped from 0.12–0.16 m onto
    // bars whose bottoms are at 0.0575 m. By 0.6 s each must lie wholly below the lattice: its
    // centre lower than 0.0575 m less its circumradius (the hull's farthest vertex,
    // 0.0060787·√3 = 0.010529 m). Energy never rises, within the dice's weight (0.138 N)
    // lifted 1 µm (held contacts' drift correction; measured: rises of rounding only, 2e-18
    // J); no contact deeper than ε_c = 0.1 mm.
    let mut world = load(&shipped("constraint/dice_through_lattice.toml")).world;
    let dice: Vec<_> = ["die 1", "die 2", "die 3"]
        .iter()
        .map(|name| world.body_id(name).expect("a die"))
        .collect();
    let mut energy = world.energy().total();
    let weight: f64 = dice.iter().map(|&d| world.body(d).mass()).sum::<f64>() * 9.81;
    for k in 1..=120 {
        world.advance_to(k as f64 * 0.005).expect("runs");
        let now = world.energy().total();
        assert!(
            now <= energy + weight * 1e-6,
            "energy rose from {energy} J to {now} J at {} s",
            world.time()
        );
        energy = now;
    }
    let below = 0.0575 - 0.0060787 * 3f64.sqrt();
    for &d in &dice {
        let z = world.body(d).state().position.z;
        assert!(z < below, "a die is at z = {z} m, not below the lattice");
    }
    let depth = world.max_penetration();
    assert!(depth <= 1e-4, "sank {depth} m");
}

/// The leaning plank with friction `mu` run for `duration`: its centre's start and end.
fn leaning_plank(mu: f64, duration: f64) -> (Vec3, Vec3) {
    let mut world = shipped_with(
        "constraint/leaning_plank.toml",
        "friction = 0.15",
        &format!("friction = {mu}"),
    );
    let id = world.body_id("plank").expect("the plank");
    let start = world.body(id).state().position;
    world.advance_to(duration).expect("runs");
    (start, world.body(id).state().position)
}

#[test]
fn the_leaning_plank_stands_or_collapses_where_statics_says() {
    // scenes/constraint/leaning_plank.toml: a plank (L = 0.5 m, t = 0.01 m) at 30° from the
    // vertical against a wall, friction μ at floor and wall. Moments about its foot with both
    // contacts at the edge of their cones: it stands iff
    // (L/2 sin θ − t/2 cos θ) ≤ μ L (cos θ + μ sin θ)/(1 + μ²), i.e. μ ≥ μ* = 0.25869.
    // Bracketed within 0.01 either side: at μ = 0.27 it stands (moves less than the 1e-5 m gap
    // it was set down with over 2 s; measured 4.5e-6 m); at μ = 0.25 and at the scene's 0.15
    // it falls flat: its centre ends at t/2 = 0.005 m above the floor (+ the held gap, 1e-5 m;
    // within 1e-4 m), its foot having slid away from the wall.
    let (start, end) = leaning_plank(0.27, 2.0);
    assert!(
        (end - start).norm() < 1e-5,
        "μ = 0.27 moved {} m",
        (end - start).norm()
    );
    for mu in [0.25, 0.15] {
        let (start, end) = leaning_plank(mu, 2.0);
        assert!(
            (end.z - 0.005).abs() < 1e-4,
            "μ = {mu}: centre at z = {} m",
            end.z
        );
        assert!(
            end.x < start.x - 0.05,
            "μ = {mu}: slid only to x = {} m",
            end.x
        );
    }
}

#[test]
fn the_block_drop_under_constraint_contact_runs_through_its_chattering_landing() {
    // scenes/impulse/block_drop.toml (Mirtich §7.1) with contact_model = "constraint". It used
    // to stop at t = 0.2284 s: the upper block's landing on an edge changed the contact mode at
    // every instant, and the group's integrator halved its step to underflow; then a loop held
    // corners beyond the release gap, let them go at the first step and found them again. Now
    // it runs 2 s and comes to rest: kinetic energy below 1e-12 of the energy lost, no energy
    // gained, and the lower block flat on the table at its half height 2.5 cm plus the held gap
    // (ε/100 = 1e-4 cm), to 1e-6 cm.
    let mut world = shipped_under("impulse/block_drop.toml", "constraint");
    let start = world.energy();
    world.advance_to(2.0).expect("runs to the end");
    let end = world.energy();
    let lost = start.total() - end.total();
    assert!(lost > 0.0, "energy rose by {}", -lost);
    assert!(
        end.kinetic < 1e-12 * lost,
        "still moving: {} erg",
        end.kinetic
    );
    let lower = world.body_id("lower block").expect("the lower block");
    let z = world.body(lower).state().position.z;
    assert!((z - 2.5001).abs() < 1e-6, "lower block at z = {z} cm");
    // The upper block overhangs the lower one with its centre of mass over it, so it rests
    // flat on it (statics). It used to end tilted 1.4e-3 rad on two corners with its centre of
    // mass outside them, held by a corner of the two faces put at their closest distance (a
    // plane 0.9 ε below its face), then by 3.6e-7 rad on an edge crossing held on a plane at
    // the edges' normal, 3.8e-3 rad from the faces when the block landed (docs/sources.md);
    // flat faces at rest on each other are parallel (statics), and now it ends flat to 1e-8
    // rad (measured 3.1e-10: a nanometre across its 11 cm diagonal would be 1e-8).
    let upper = world.body_id("upper block").expect("the upper block");
    let (a, b) = (world.body(upper).state(), world.body(lower).state());
    let tilt = (a.orientation * Vec3::z())
        .cross(&(b.orientation * Vec3::z()))
        .norm();
    assert!(tilt < 1e-8, "upper block tilted {tilt} rad on the lower");
    // The contact problem posed afresh from the geometry (`impulse contacts`) holds it with
    // forces that carry its weight, 8·8·4 cm³ · 0.7 g/cm³ · 981 cm/s², to 1e-6 (it used to
    // find 6.5e4 of 1.76e5 dyn: the report's contacts were not the group's).
    let report = world.contact_report().expect("poses");
    let forces = report.forces.expect("forces");
    let on_upper: f64 = report
        .contacts
        .iter()
        .zip(&forces)
        .map(|(c, f)| match (c.a.as_str(), c.b.as_str()) {
            ("upper block", _) => f.z,
            (_, "upper block") => -f.z,
            _ => 0.0,
        })
        .sum();
    let weight = 8.0 * 8.0 * 4.0 * 0.7 * 981.0;
    assert!(
        (on_upper - weight).abs() < 1e-6 * weight,
        "the contacts carry {on_upper} dyn of the upper block's {weight}"
    );
}

#[test]
fn a_stack_of_ten_five_centimetre_cubes_stands_under_constraint_contact() {
    // scenes/constraint/stack_of_ten.toml with 5 cm cubes (each set down 1e-5 m above the one
    // below). It used to stop at t = 5.6 ms: the sticking forces jump as the boxes rock by
    // rounding (lcp::sticking's range cutoff) and no integration step held, then Lemke found
    // no forces for the twelve redundant contacts of the landing. Velocity-level time steps
    // now carry it past those instants and it stands for 2 s: box k (from 0) at its stacked
    // height 0.025 + 0.05 k plus the held gap ε/100 = 1e-5 m per interface, to 1e-6 m, and
    // none moved sideways more than 1e-5 m (measured 1.2e-6 m).
    let path = shipped("constraint/stack_of_ten.toml");
    let text = std::fs::read_to_string(&path).expect("shipped scene");
    let mut k = 0;
    let text: String = text
        .replace("size = [0.1, 0.1, 0.1]", "size = [0.05, 0.05, 0.05]")
        .lines()
        .map(|line| {
            if line.starts_with("position = [0, 0, ") {
                k += 1;
                format!(
                    "position = [0, 0, {}]",
                    0.025 + 0.05 * (k - 1) as f64 + 1e-5 * k as f64
                )
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(k, 10, "ten boxes");
    let mut world = match parse(&path, &text) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    };
    world.advance_to(2.0).expect("stands for 2 s");
    for k in 0..10 {
        let id = world.body_id(&format!("box {}", k + 1)).expect("a box");
        let p = world.body(id).state().position;
        let z = 0.025 + 0.05 * k as f64 + 1e-5 * (k + 1) as f64;
        assert!(
            (p.z - z).abs() < 1e-6,
            "box {} at z = {} m, not {z}",
            k + 1,
            p.z
        );
        assert!(p.x.hypot(p.y) < 1e-5, "box {} moved sideways to {p}", k + 1);
    }
}

#[test]
fn the_part_feeders_caps_neither_sink_through_the_tray_nor_crawl_under_constraint_contact() {
    // Two regressions (issue 35) on scenes/impulse/part_feeder.toml under contact_model =
    // "constraint".
    // 1. It stopped at t = 0.1665 s with cap 2 sunk the whole envelope (0.01 cm) into the
    //    tray. The cap's base pieces met the tray inside the outline of the points the group
    //    already held on it (its rim), and were taken for the held surface found again, so
    //    nothing held them while a collision every 0.45 µs stopped only their approach. A
    //    corner inside the held outline is now the same surface only if it lies no deeper than
    //    the held points (0.1 ε). Deepest overlap to 0.4 s: under a fifth of the envelope
    //    (measured 1.4e-3 cm).
    // 2. From 0.57 s caps 1 and 2 slide slowly on each other and on the tray (78 held
    //    contacts at 0.04–0.3 cm/s, their slip directions turning at up to 2500 rad/s).
    //    Friction held each slip's direction through a step and renewed it after, so the next
    //    step's first stage carried the old direction and the error control shrank the steps
    //    to 2e-7 s: 20 000 group steps for 12 ms, the run stuck before 0.578 s after 10
    //    minutes. Now friction opposes the slip of the instant above four sliding speeds, and
    //    below that the renewed direction's first stage is evaluated again (docs/sources.md,
    //    "A slip that turns"). Budget: 70 000 group steps from 0.4 s to 0.65 s, about twice
    //    the measured 35 737.
    let mut world = shipped_under("impulse/part_feeder.toml", "constraint");
    world.advance_to(0.4).expect("runs past the cap's landing");
    let deepest = world.max_penetration();
    assert!(deepest < 0.2 * 0.01, "overlap {deepest} cm");
    let group_steps = |w: &World| w.counters().constraint.map_or(0, |c| c.steps);
    let before = group_steps(&world);
    world
        .advance_to(0.65)
        .expect("runs past the caps' slow slide");
    let steps = group_steps(&world) - before;
    eprintln!("group steps from 0.4 s to 0.65 s: {steps}");
    assert!(steps <= 70_000, "{steps} group steps from 0.4 s to 0.65 s");
    let deepest = world.max_penetration();
    assert!(deepest < 0.2 * 0.01, "overlap {deepest} cm");
}

#[test]
fn the_pyramid_of_twenty_boxes_lands_and_stands_under_constraint_contact() {
    // scenes/constraint/pyramid_of_twenty.toml: rows of 6, 5, 4, 3 and 2 cubes, each row set
    // down 1e-5 m above the one below. Before large groups were moved by time steps with
    // impulses from projected Gauss–Seidel (`contact::constraint::iterative`) it never left its
    // landing: after two minutes of CPU it was still at t = 1 ms (docs/sources.md). Now its
    // first 0.25 s: the landing merges it into one group past the iterative threshold (the
    // time steps are counted), every cube ends within 5e-5 m of where it was set (measured
    // 6.6e-6 m after 5 s) and slower than 1e-4 m/s, and the landing took
    // energy out (the collisions are inelastic where they would gain).
    let path = shipped("constraint/pyramid_of_twenty.toml");
    let mut world = load(&path).world;
    let names: Vec<String> = (1..=20).map(|k| format!("box {k}")).collect();
    let ids: Vec<_> = names
        .iter()
        .map(|n| world.body_id(n).expect("a box"))
        .collect();
    let starts: Vec<Vec3> = ids
        .iter()
        .map(|&id| world.body(id).state().position)
        .collect();
    let energy = world.energy().total();
    world.advance_to(0.25).expect("runs past its landing");
    let counters = world.counters().constraint.expect("constraint counters");
    assert!(counters.time_steps > 1000, "{counters:?}");
    for ((name, &id), start) in names.iter().zip(&ids).zip(&starts) {
        let s = world.body(id).state();
        let moved = (s.position - start).norm();
        assert!(moved < 5e-5, "{name} moved {moved} m");
        assert!(s.velocity.norm() < 1e-4, "{name} moves at {}", s.velocity);
    }
    let gained = world.energy().total() - energy;
    assert!(gained < 0.0, "gained {gained} J");
}

#[test]
fn the_three_two_one_pyramid_runs_past_its_chattering_landing_under_constraint_contact() {
    // Rows of 3, 2 and 1 of the pyramid's cubes (scenes/constraint/pyramid_of_twenty.toml's
    // first six, each row 1e-5 m above the one below): 28–44 held contacts, below the
    // iterative threshold, so its group flies by Lemke's forces — and at its landing the
    // slow slips' directions turn every step and the flight restarts every 20 µs (it took a
    // minute of CPU for its first 0.12 s; docs/sources.md, "Large groups"). A group that
    // restarts 100 times within 100 time steps is moved by time steps from then on: its
    // first 0.5 s then run (counted time steps), every cube within 2e-5 m of where it was set
    // (measured 1.4e-5 m after 5 s) and slower than 1e-4 m/s at the end.
    let path = shipped("constraint/pyramid_of_twenty.toml");
    let text = std::fs::read_to_string(&path).expect("shipped scene");
    let mut kept = String::new();
    let mut centres = Vec::new();
    for row in 0..3 {
        for i in 0..3 - row {
            centres.push((
                0.10001 * i as f64 + 0.050005 * row as f64,
                0.05 + 0.10001 * row as f64 + 1e-5,
            ));
        }
    }
    let header = text
        .split("[[bodies]]\nname = \"box 1\"")
        .next()
        .expect("a header");
    kept.push_str(header);
    for (k, (x, z)) in centres.iter().enumerate() {
        kept.push_str(&format!(
            "[[bodies]]\nname = \"box {}\"\nmaterial = \"wood\"\n\
             shape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\ndensity = 500\n\
             position = [{x:.6}, 0, {z:.6}]\n\n",
            k + 1
        ));
    }
    let mut world = match parse(&path, &kept) {
        Ok(scene) => scene.world,
        Err(errors) => panic!("{errors:?}"),
    };
    world.advance_to(0.5).expect("runs past its landing");
    let counters = world.counters().constraint.expect("constraint counters");
    assert!(counters.time_steps > 1000, "{counters:?}");
    for (k, &(x, z)) in centres.iter().enumerate() {
        let id = world.body_id(&format!("box {}", k + 1)).expect("a box");
        let s = world.body(id).state();
        let moved = (s.position - Vec3::new(x, 0.0, z)).norm();
        assert!(moved < 2e-5, "box {} moved {moved} m", k + 1);
        assert!(
            s.velocity.norm() < 1e-4,
            "box {} moves at {}",
            k + 1,
            s.velocity
        );
    }
}
