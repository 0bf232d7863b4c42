//! Compound bodies (issue 41, item 5a): a body's mass properties are the sum of its shapes',
//! which is the union's only when the shapes do not overlap. Two coincident 0.2 m boxes at
//! density 500 weighed 8.0 where the union weighs 4.0; the shipped T-handles counted about 4 %
//! of their mass twice. Overlapping shapes of a body whose mass matters are now refused.

mod common;

use std::path::Path;

use common::scenes;
use impulse::scene;

/// The scene's errors, as messages (none when it loads).
fn errors(text: &str) -> Vec<String> {
    let errors = scenes::errors(Path::new("compound.toml"), text);
    errors.iter().map(ToString::to_string).collect()
}

fn mass_of(text: &str, body: &str) -> f64 {
    let scene = scene::parse(Path::new("compound.toml"), text).expect("a valid scene");
    let id = scene.world.body_id(body).expect("the body");
    scene.world.body(id).mass()
}

/// The case: two coincident boxes. Refused, naming the key, both shapes and the depth
/// (0.2: the boxes overlap through and through).
#[test]
fn coincident_shapes_are_refused_instead_of_weighed_twice() {
    let text = "[[bodies]]\nname = \"twin\"\ndensity = 500\nshapes = [\n  { type = \"box\", size = [0.2, 0.2, 0.2] },\n  { type = \"box\", size = [0.2, 0.2, 0.2] },\n]\n";
    let found = errors(text);
    assert_eq!(found.len(), 1, "{found:?}");
    let message = &found[0];
    assert!(
        message.contains("compound.toml:4:")
            && message.contains("bodies[0].shapes")
            && message.contains("shapes 1 (box) and 2 (box) overlap by 2.000e-1"),
        "{message}"
    );
}

/// Shapes that overlap by a sliver (1e-6 m of 0.1 m boxes) are refused too; shapes that
/// touch (face to face, to rounding) are a compound whose mass is the sum: 2 × 0.1³ × 500 = 1.
#[test]
fn touching_shapes_make_a_compound_and_overlapping_ones_do_not() {
    let pair = |gap: f64| {
        format!(
            "[[bodies]]\nname = \"pair\"\ndensity = 500\nshapes = [\n  {{ type = \"box\", size = [0.1, 0.1, 0.1] }},\n  {{ type = \"box\", size = [0.1, 0.1, 0.1], position = [{:?}, 0, 0] }},\n]\n",
            0.1 + gap
        )
    };
    assert_eq!(errors(&pair(-1e-6)).len(), 1);
    assert!((mass_of(&pair(0.0), "pair") - 1.0).abs() < 1e-12);
    // A ball inside a box is an overlap as well (one shape wholly within the other).
    let nested = "[[bodies]]\nname = \"nested\"\nmass = 1\nshapes = [\n  { type = \"box\", size = [1, 1, 1] },\n  { type = \"sphere\", radius = 0.1 },\n]\n";
    assert_eq!(errors(nested).len(), 1, "{:?}", errors(nested));
    // Links of a multibody are weighed the same way.
    let link = "[[multibodies]]\nname = \"arm\"\n[[multibodies.links]]\nname = \"rod\"\ndensity = 1000\nshapes = [\n  { type = \"capsule\", radius = 0.02, length = 0.4 },\n  { type = \"sphere\", radius = 0.05, position = [0, 0, -0.2] },\n]\n[[multibodies.joints]]\ntype = \"revolute\"\nchild = \"rod\"\naxis = [0, 1, 0]\n";
    let found = errors(link);
    assert!(
        found.len() == 1 && found[0].contains("multibodies[0].links[0].shapes"),
        "{found:?}"
    );
}

/// A fixed body's mass plays no part in the motion: its shapes may overlap (a table's legs
/// sunk into its top).
#[test]
fn a_fixed_body_may_have_overlapping_shapes() {
    let text = "[[bodies]]\nname = \"table\"\nmotion = \"fixed\"\nshapes = [\n  { type = \"box\", size = [1, 1, 0.1] },\n  { type = \"box\", size = [0.1, 0.1, 1], position = [0.4, 0.4, -0.4] },\n]\n";
    assert!(errors(text).is_empty(), "{:?}", errors(text));
}

/// The shipped T-handles now end their shaft on the cross-bar: each weighs the closed form of
/// its two cylinders, ρ π (r₁² L₁ + r₂² L₂) with the shaft 6 mm × 72 mm and the bar 8 mm ×
/// 60 mm of steel at 7850 kg/m³ (0.15862 kg; the overlapping handle weighed 0.16573).
#[test]
fn the_shipped_t_handles_weigh_their_two_cylinders() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/free/dzhanibekov.toml");
    let scene = scene::load(&path).expect("the scene loads");
    let expected =
        7850.0 * std::f64::consts::PI * (0.006f64.powi(2) * 0.072 + 0.008f64.powi(2) * 0.06);
    for name in ["intermediate", "smallest", "largest"] {
        let id = scene.world.body_id(name).unwrap();
        let mass = scene.world.body(id).mass();
        assert!((mass - expected).abs() < 1e-12 * expected, "{name}: {mass}");
    }
}
