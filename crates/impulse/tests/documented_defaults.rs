//! Defaults in the code agree with the documented ones (issue 41, item 12: the code's
//! `MicrocollisionClusters::default()` was sequential while the docs, the scene reader and
//! `WorldSettings::default()` said simultaneous).

use impulse::{MicrocollisionClusters, WorldSettings};

#[test]
fn the_cluster_default_is_the_documented_simultaneous_one_everywhere() {
    assert_eq!(
        MicrocollisionClusters::default(),
        MicrocollisionClusters::Simultaneous
    );
    assert_eq!(
        WorldSettings::default().microcollision_clusters,
        MicrocollisionClusters::default()
    );
    // docs/scene-format.md's row for the key names the same default.
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md"),
    )
    .unwrap();
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `microcollision_clusters` |"))
        .expect("the key is documented");
    assert!(row.contains("| `\"simultaneous\"` |"), "{row}");
}
