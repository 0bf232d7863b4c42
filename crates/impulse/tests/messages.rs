//! Messages that point at the cause (issue 42): each input below was accepted, or blamed
//! something else, or tripped on rounding.

mod common;

use std::path::Path;

use common::scenes;
use impulse::geometry::Shape;
use impulse::math::{Pose, Vec3};
use impulse::world::SimulationError;
use impulse::{BodyDesc, EnergyBound, World, WorldSettings};

#[test]
fn energy_bound_zero_does_not_trip_on_rounding_in_free_fall() {
    // A ball dropped from z = 0 exchanges potential for kinetic energy exactly in theory; the
    // sum's rounding (3.5e-18 J at t = 0.383 s) stopped the run with "rose by 3.47e-18 J".
    let mut world = World::new(WorldSettings {
        energy_bound: EnergyBound::Gain(0.0),
        ..WorldSettings::default()
    });
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.1 });
    ball.velocity = Vec3::new(0.3, 0.0, 1.0);
    world.add_body(ball).unwrap();
    for k in 1..=600 {
        world
            .advance_to(f64::from(k) / 60.0)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn energy_bound_zero_still_catches_a_real_gain() {
    // The rounding allowance is ulps of the energy, not a loophole: 1 N on 1 kg gains t²/2.
    let mut world = World::new(WorldSettings {
        energy_bound: EnergyBound::Gain(0.0),
        gravity: Vec3::zeros(),
        ..WorldSettings::default()
    });
    let mut ball = BodyDesc::new("ball", Shape::Sphere { radius: 0.1 });
    ball.force = Vec3::new(1.0, 0.0, 0.0);
    world.add_body(ball).unwrap();
    let error = world.advance_to(0.01).unwrap_err();
    assert!(
        matches!(error, SimulationError::EnergyGain { .. }),
        "{error}"
    );
}

#[test]
fn a_huge_box_period_is_blamed_on_the_setting_not_on_a_body() {
    // `box_period = 1e308` stopped the run with "body `b`: its state stopped being finite".
    let mut world = World::new(WorldSettings {
        box_period: 1e308,
        ..WorldSettings::default()
    });
    let mut ball = BodyDesc::new("b", Shape::Sphere { radius: 0.1 });
    ball.pose = Pose::translation(0.0, 0.0, 1.0);
    world.add_body(ball).unwrap();
    let error = world.advance_to(0.1).unwrap_err().to_string();
    assert!(
        error.starts_with("world setting `box_period`") && error.contains("found 1e308"),
        "{error}"
    );
}

#[test]
fn escape_characters_in_scene_strings_are_refused_not_printed_raw() {
    // A name holding ESC [31m recoloured the terminal when `check` or `run` printed it.
    let text = "[[bodies]]\nname = \"b\\u001b[31mred\"\nshape = { type = \"sphere\", radius = 0.1 }\ndensity = 1\n";
    let errors = scenes::errors(Path::new("escape.toml"), text);
    let error = errors
        .iter()
        .find(|e| e.line == 2)
        .unwrap_or_else(|| panic!("{errors:?}"));
    assert!(
        error.message.contains("control characters") && error.message.contains("b\\u{1b}[31mred"),
        "{}",
        error.message
    );
    for e in &errors {
        assert!(!e.to_string().contains('\u{1b}'), "{e}");
    }
}
