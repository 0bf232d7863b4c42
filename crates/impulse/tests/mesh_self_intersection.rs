//! The mesh self-intersection check on meshes whose triangles share x-ranges (issue 42, item 3:
//! the check swept along x, so a wall in the y–z plane compared every pair of its triangles).
//! The grid that replaced the sweep is compared pair for pair with all pairs in
//! `geometry::box_pairs`; here it must still find a real crossing and accept good meshes.
//! Its cost is printed by `cargo bench -p impulse --bench mesh_check`.

use std::path::Path;

use impulse::geometry::MeshDefect;
use impulse::geometry::mesh_io::parse_obj;

/// An OBJ slab `x ∈ [x0, x0 + 0.01]`, `y ∈ [y0, y0 + 1]`, `z ∈ [y0, y0 + 1]`, its two large faces
/// cut into `n × n` quads (outward windings), starting its vertex numbers after `first`.
fn thin_slab(n: usize, x0: f64, y0: f64, first: usize) -> (String, usize) {
    let mut text = String::new();
    let id =
        |side: usize, j: usize, k: usize| first + 1 + side * (n + 1) * (n + 1) + j * (n + 1) + k;
    for x in [x0, x0 + 0.01] {
        for j in 0..=n {
            for k in 0..=n {
                text += &format!(
                    "v {x} {} {}\n",
                    y0 + j as f64 / n as f64,
                    y0 + k as f64 / n as f64
                );
            }
        }
    }
    let (f, b) = (0, 1);
    for j in 0..n {
        for k in 0..n {
            text += &format!(
                "f {} {} {} {}\n",
                id(f, j, k),
                id(f, j, k + 1),
                id(f, j + 1, k + 1),
                id(f, j + 1, k)
            );
            text += &format!(
                "f {} {} {} {}\n",
                id(b, j, k),
                id(b, j + 1, k),
                id(b, j + 1, k + 1),
                id(b, j, k + 1)
            );
        }
    }
    for j in 0..n {
        text += &format!(
            "f {} {} {} {}\n",
            id(f, j, 0),
            id(f, j + 1, 0),
            id(b, j + 1, 0),
            id(b, j, 0)
        );
        text += &format!(
            "f {} {} {} {}\n",
            id(f, j, n),
            id(b, j, n),
            id(b, j + 1, n),
            id(f, j + 1, n)
        );
    }
    for k in 0..n {
        text += &format!(
            "f {} {} {} {}\n",
            id(f, 0, k),
            id(b, 0, k),
            id(b, 0, k + 1),
            id(f, 0, k + 1)
        );
        text += &format!(
            "f {} {} {} {}\n",
            id(f, n, k),
            id(f, n, k + 1),
            id(b, n, k + 1),
            id(b, n, k)
        );
    }
    (text, first + 2 * (n + 1) * (n + 1))
}

#[test]
fn a_finely_cut_thin_slab_is_a_valid_solid() {
    // 2 × 64² + 4 × 64 = 8,448 faces, all of the front (back) ones at x = 0 (0.01).
    let (text, _) = thin_slab(64, 0.0, 0.0, 0);
    let mesh = parse_obj(Path::new("slab.obj"), &text).expect("a well-formed OBJ");
    assert_eq!(mesh.validate_solid(), Ok(()));
    // Volume 0.01 × 1 × 1, to rounding.
    assert!((mesh.volume_integrals().t1 - 0.01).abs() < 1e-12);
}

#[test]
fn two_overlapping_thin_slabs_self_intersect() {
    // The second slab is moved half a thickness along x and 0.53 along y and z: its front face
    // (x = 0.005, y from 0.53 to 1.53) passes through the first slab's end face at y = 1
    // (x from 0 to 0.01), away from either's edges.
    let (first, count) = thin_slab(16, 0.0, 0.0, 0);
    let (second, _) = thin_slab(16, 0.005, 0.53, count);
    let mesh = parse_obj(Path::new("slabs.obj"), &(first + &second)).expect("a well-formed OBJ");
    assert!(
        matches!(
            mesh.validate_solid(),
            Err(MeshDefect::SelfIntersection { .. })
        ),
        "{:?}",
        mesh.validate_solid()
    );
}

#[test]
fn the_shipped_meshes_are_still_accepted() {
    // Every OBJ under meshes/ (the parts, the bracket, the insulator cap…) bounds a solid:
    // `impulse check` accepted each of them with the sweep before.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../meshes");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("parts")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "obj") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mesh = parse_obj(&file, &text).unwrap();
        assert_eq!(mesh.validate_solids(), Ok(()), "{}", file.display());
    }
}
