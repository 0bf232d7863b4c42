//! Reading meshes from Wavefront OBJ and STL (ASCII or binary) files.
//!
//! OBJ is read by a small parser of our own rather than a general-purpose crate: it keeps polygon
//! faces as they are (the mass-property algorithm takes polygons), accepts negative (relative)
//! indices, and can name the *line* of every problem. STL goes through `stl_io`. Exactly
//! coincident vertex positions are merged, so a triangle soup still forms a connected surface.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::mesh::{FaceSource, MeshDefect, MeshObject, PolygonMesh};
use crate::math::Point;

/// A problem with a mesh file, located as precisely as the format allows.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshFileError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based face (facet) number, when the problem is about one face.
    pub face: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MeshFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        match self.face {
            Some(face) => write!(f, ": face {face} {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

impl std::error::Error for MeshFileError {}

impl MeshFileError {
    fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            face: None,
            message: message.into(),
        }
    }

    /// Locates a [`MeshDefect`] of `mesh` (read from `path`) at its face and line.
    pub fn from_defect(path: &Path, mesh: &PolygonMesh, defect: &MeshDefect) -> Self {
        let source = defect.face().and_then(|f| mesh.face_sources.get(f));
        let described = defect.describe(|index| face_number(mesh, index));
        let message = match (source, defect) {
            (Some(_), _) | (None, MeshDefect::NonFiniteVertex { .. } | MeshDefect::Empty) => {
                described
            }
            (None, _) => format!("the mesh {described}"),
        };
        Self {
            path: path.to_path_buf(),
            line: source.and_then(|s| s.line),
            face: source.map(|s| s.number),
            message,
        }
    }
}

fn face_number(mesh: &PolygonMesh, face: usize) -> usize {
    mesh.face_sources.get(face).map_or(face + 1, |s| s.number)
}

/// Reads a mesh from an `.obj` or `.stl` file (chosen by extension, case-insensitive). The mesh
/// is returned as read; call [`PolygonMesh::validate_solid`] to check it bounds a solid.
pub fn read_mesh(path: &Path) -> Result<PolygonMesh, MeshFileError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let bytes = crate::input_file::read_bounded(path, "the mesh file", crate::MAX_INPUT_BYTES)
        .map_err(|message| MeshFileError::new(path, None, message))?;
    match extension.as_deref() {
        Some("obj") => {
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| MeshFileError::new(path, None, format!("is not UTF-8 text: {e}")))?;
            parse_obj(path, text)
        }
        Some("stl") => parse_stl(path, &bytes),
        _ => Err(MeshFileError::new(
            path,
            None,
            "unknown mesh format: expected a file ending in .obj or .stl",
        )),
    }
}

/// Reads a mesh and checks it bounds a solid (or that each of its objects does; see
/// [`PolygonMesh::validate_solids`]).
pub fn read_solid_mesh(path: &Path) -> Result<PolygonMesh, MeshFileError> {
    let mesh = read_mesh(path)?;
    mesh.validate_solids()
        .map_err(|(defect, object)| match object {
            Some(index) => {
                let part = mesh.object_mesh(&mesh.objects[index]);
                MeshFileError::from_defect(path, &part, &defect)
            }
            None => MeshFileError::from_defect(path, &mesh, &defect),
        })?;
    Ok(mesh)
}

/// Merges exactly coincident positions; returns the index of `p` among the merged vertices.
#[derive(Default)]
struct Welder {
    vertices: Vec<Point>,
    index: HashMap<[u64; 3], u32>,
}

impl Welder {
    fn insert(&mut self, p: Point) -> u32 {
        // +0.0 and -0.0 are the same position.
        let key = [p.x, p.y, p.z].map(|c| (c + 0.0).to_bits());
        *self.index.entry(key).or_insert_with(|| {
            self.vertices.push(p);
            (self.vertices.len() - 1) as u32
        })
    }
}

/// The 0-based vertex an OBJ face index names among the `count` vertices read so far: `1..=count`
/// from the first, `-1..=-count` back from the last; `None` for anything else. Computed without
/// negating or adding in `i64` (`-i64::MIN` overflows: issue 42's one panic).
fn obj_vertex(index: i64, count: usize) -> Option<usize> {
    let magnitude = usize::try_from(index.unsigned_abs()).ok()?;
    if index == 0 || magnitude > count {
        None
    } else if index > 0 {
        Some(magnitude - 1)
    } else {
        Some(count - magnitude)
    }
}

/// Parses Wavefront OBJ text: `v`, `f`, `o` and `g` are used; texture, normal, smoothing and
/// material statements are skipped; elements that cannot bound a solid are rejected.
pub fn parse_obj(path: &Path, text: &str) -> Result<PolygonMesh, MeshFileError> {
    let mut positions: Vec<u32> = Vec::new(); // OBJ vertex number - 1 → welded index
    let mut welder = Welder::default();
    let mut faces = Vec::new();
    let mut face_sources = Vec::new();
    let mut objects: Vec<MeshObject> = Vec::new();
    let mut open_object: Option<(String, usize)> = None;
    let close = |open: &mut Option<(String, usize)>, objects: &mut Vec<MeshObject>, end: usize| {
        if let Some((name, start)) = open.take()
            && end > start
        {
            objects.push(MeshObject {
                name,
                faces: start..end,
            });
        }
    };

    for (number, raw) in text.lines().enumerate() {
        let line = number + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        let mut tokens = content.split_whitespace();
        let Some(keyword) = tokens.next() else {
            continue;
        };
        let error = |message: String| MeshFileError::new(path, Some(line), message);
        match keyword {
            "v" => {
                let mut coordinates = [0.0; 3];
                for (axis, value) in coordinates.iter_mut().enumerate() {
                    let token = tokens.next().ok_or_else(|| {
                        error(format!("vertex has {axis} coordinates; expected `v x y z`"))
                    })?;
                    *value = token.parse::<f64>().map_err(|_| {
                        error(format!("vertex coordinate `{token}` is not a number"))
                    })?;
                    if !value.is_finite() {
                        return Err(error(format!("vertex coordinate `{token}` is not finite")));
                    }
                }
                positions.push(welder.insert(Point::from(coordinates)));
            }
            "f" => {
                let mut loop_ = Vec::new();
                for token in tokens {
                    let index_text = token.split('/').next().unwrap_or("");
                    let index: i64 = index_text.parse().map_err(|_| {
                        error(format!("face vertex `{token}` is not a vertex index"))
                    })?;
                    let count = positions.len();
                    let Some(resolved) = obj_vertex(index, count) else {
                        return Err(error(format!(
                            "face refers to vertex {index}, but only {count} vertices are defined above this line"
                        )));
                    };
                    loop_.push(positions[resolved]);
                }
                if loop_.len() < 3 {
                    return Err(error(format!(
                        "face has {} vertices; a face needs at least 3",
                        loop_.len()
                    )));
                }
                faces.push(loop_);
                face_sources.push(FaceSource {
                    number: faces.len(),
                    line: Some(line),
                });
            }
            "o" | "g" => {
                close(&mut open_object, &mut objects, faces.len());
                let name = tokens.collect::<Vec<_>>().join(" ");
                open_object = Some((name, faces.len()));
            }
            "vt" | "vn" | "vp" | "s" | "usemtl" | "mtllib" => {}
            "l" | "p" => {
                return Err(error(format!(
                    "`{keyword}` elements (lines, points) cannot bound a solid; only faces (`f`) can"
                )));
            }
            "curv" | "curv2" | "surf" | "cstype" | "deg" | "bmat" | "step" | "parm" | "trim"
            | "hole" | "scrv" | "sp" | "end" | "con" => {
                return Err(error(format!(
                    "free-form geometry (`{keyword}`) is not supported; export the model as polygons"
                )));
            }
            other => {
                return Err(error(format!("unknown OBJ statement `{other}`")));
            }
        }
    }
    close(&mut open_object, &mut objects, faces.len());
    Ok(PolygonMesh {
        vertices: welder.vertices,
        faces,
        objects,
        face_sources,
    })
}

/// Parses an STL file (ASCII or binary).
pub fn parse_stl(path: &Path, bytes: &[u8]) -> Result<PolygonMesh, MeshFileError> {
    let mut cursor = std::io::Cursor::new(bytes);
    let indexed = stl_io::read_stl(&mut cursor)
        .map_err(|e| MeshFileError::new(path, None, format!("is not a valid STL file: {e}")))?;
    let mut welder = Welder::default();
    let remap: Vec<u32> = indexed
        .vertices
        .iter()
        .map(|v| welder.insert(Point::new(v.0[0] as f64, v.0[1] as f64, v.0[2] as f64)))
        .collect();
    let mut faces = Vec::with_capacity(indexed.faces.len());
    for (k, triangle) in indexed.faces.iter().enumerate() {
        let mut loop_ = Vec::with_capacity(3);
        for &v in &triangle.vertices {
            let index = remap.get(v).copied().ok_or_else(|| MeshFileError {
                path: path.to_path_buf(),
                line: None,
                face: Some(k + 1),
                message: "refers to a vertex that does not exist".into(),
            })?;
            loop_.push(index);
        }
        faces.push(loop_);
    }
    let face_sources = (1..=faces.len())
        .map(|number| FaceSource { number, line: None })
        .collect();
    Ok(PolygonMesh {
        vertices: welder.vertices,
        faces,
        objects: Vec::new(),
        face_sources,
    })
}

/// Writes a mesh as OBJ text (one `o` per object when it has objects).
pub fn to_obj(mesh: &PolygonMesh) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for v in &mesh.vertices {
        let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
    }
    let write_face = |out: &mut String, face: &[u32]| {
        out.push('f');
        for i in face {
            let _ = write!(out, " {}", i + 1);
        }
        out.push('\n');
    };
    if mesh.objects.is_empty() {
        for face in &mesh.faces {
            write_face(&mut out, face);
        }
    } else {
        for object in &mesh.objects {
            let _ = writeln!(out, "o {}", object.name);
            for face in &mesh.faces[object.faces.clone()] {
                write_face(&mut out, face);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TETRA: &str =
        "# tetrahedron\nv 0 0 0\nv 5 0 0\nv 0 4 0\nv 0 0 3\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

    #[test]
    fn obj_tetrahedron_reads_and_validates() {
        let mesh = parse_obj(Path::new("t.obj"), TETRA).unwrap();
        assert_eq!(mesh.vertices.len(), 4);
        assert_eq!(mesh.faces.len(), 4);
        assert_eq!(mesh.validate_solid(), Ok(()));
        assert!((mesh.volume_integrals().t1 - 10.0).abs() < 1e-13);
    }

    #[test]
    fn obj_negative_indices_and_slashes() {
        let text = "v 0 0 0\nv 5 0 0\nv 0 4 0\nv 0 0 3\nvt 0 0\nf -4/1 -2/1 -3/1\nf 1//1 2//1 4//1\nf 1 4 3\nf 2 3 4\n";
        let mesh = parse_obj(Path::new("t.obj"), text).unwrap();
        assert_eq!(mesh.faces[0], vec![0, 2, 1]);
        assert_eq!(mesh.validate_solid(), Ok(()));
    }

    #[test]
    fn obj_errors_name_the_line() {
        let error = parse_obj(Path::new("bad.obj"), "v 0 0 0\nv 1 0 zero\n").unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.to_string().starts_with("bad.obj:2: "), "{error}");
        let error = parse_obj(Path::new("bad.obj"), "v 0 0 0\nf 1 2 3\n").unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("only 1 vertices"), "{error}");
        let error = parse_obj(Path::new("bad.obj"), "bogus 1 2\n").unwrap_err();
        assert!(error.message.contains("unknown OBJ statement"));
    }

    #[test]
    fn obj_face_index_i64_min_is_an_error_not_an_overflow() {
        // `-i64::MIN` overflowed and indexed out of bounds: `mass`, `check` and `run` exited
        // with a panic (issue 42). Every extreme index is now an error naming the line.
        for index in [i64::MIN, i64::MIN + 1, i64::MAX, 0, -4, 4] {
            let text = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 {index}\n");
            let error = parse_obj(Path::new("bad.obj"), &text).unwrap_err();
            assert_eq!(error.line, Some(4), "{index}");
            assert!(
                error.message.contains(&format!("vertex {index}")),
                "{error}"
            );
        }
        // The edges of the range still resolve: 1 and 3 forwards, -1 and -3 backwards.
        assert_eq!(obj_vertex(1, 3), Some(0));
        assert_eq!(obj_vertex(3, 3), Some(2));
        assert_eq!(obj_vertex(-1, 3), Some(2));
        assert_eq!(obj_vertex(-3, 3), Some(0));
        assert_eq!(obj_vertex(i64::MIN, 3), None);
        // |i64::MIN| = 2⁶³ is a valid backward index among 2⁶³ vertices: the first one.
        assert_eq!(obj_vertex(i64::MIN, 1 << 63), Some(0));
    }

    #[test]
    fn a_mesh_file_that_is_a_fifo_is_refused_without_blocking() {
        // A scene pointing at a FIFO hung `check` in the read (issue 42).
        let dir = std::env::temp_dir().join(format!("impulse-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("part.obj");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let error = read_mesh(&fifo).unwrap_err();
            assert!(error.message.contains("named pipe"), "{error}");
        } else {
            panic!("mkfifo is needed for this test");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn obj_defect_is_located_at_its_face_line() {
        // Drop the last face: open mesh. The defect names a face and that face's line.
        let text = "v 0 0 0\nv 5 0 0\nv 0 4 0\nv 0 0 3\nf 1 3 2\nf 1 2 4\nf 1 4 3\n";
        let mesh = parse_obj(Path::new("open.obj"), text).unwrap();
        let defect = mesh.validate_solid().unwrap_err();
        let error = MeshFileError::from_defect(Path::new("open.obj"), &mesh, &defect);
        assert!(error.face.is_some() && error.line.is_some(), "{error}");
        assert!(error.to_string().contains("open"), "{error}");
    }

    #[test]
    fn obj_objects_split_faces() {
        let text = format!(
            "o first\n{TETRA}o second\nv 10 0 0\nv 15 0 0\nv 10 4 0\nv 10 0 3\nf -4 -2 -3\nf -4 -3 -1\nf -4 -1 -2\nf -3 -2 -1\n"
        );
        let mesh = parse_obj(Path::new("two.obj"), &text).unwrap();
        assert_eq!(mesh.objects.len(), 2);
        assert_eq!(mesh.objects[1].faces, 4..8);
        let second = mesh.object_mesh(&mesh.objects[1]);
        assert_eq!(second.vertices.len(), 4);
        assert_eq!(second.validate_solid(), Ok(()));
    }

    #[test]
    fn obj_round_trip() {
        let mesh = parse_obj(Path::new("t.obj"), TETRA).unwrap();
        let again = parse_obj(Path::new("t.obj"), &to_obj(&mesh)).unwrap();
        assert_eq!(mesh.vertices, again.vertices);
        assert_eq!(mesh.faces, again.faces);
    }

    #[test]
    fn stl_ascii_and_binary_agree() {
        let triangles = [
            [[0.0f32, 0., 0.], [0., 4., 0.], [5., 0., 0.]],
            [[0., 0., 0.], [5., 0., 0.], [0., 0., 3.]],
            [[0., 0., 0.], [0., 0., 3.], [0., 4., 0.]],
            [[5., 0., 0.], [0., 4., 0.], [0., 0., 3.]],
        ];
        let mut ascii = String::from("solid t\n");
        for t in &triangles {
            ascii.push_str("facet normal 0 0 0\nouter loop\n");
            for v in t {
                ascii.push_str(&format!("vertex {} {} {}\n", v[0], v[1], v[2]));
            }
            ascii.push_str("endloop\nendfacet\n");
        }
        ascii.push_str("endsolid t\n");
        let mut binary = vec![0u8; 80];
        binary.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
        for t in &triangles {
            binary.extend_from_slice(&[0u8; 12]);
            for v in t {
                for c in v {
                    binary.extend_from_slice(&c.to_le_bytes());
                }
            }
            binary.extend_from_slice(&[0u8; 2]);
        }
        let a = parse_stl(Path::new("a.stl"), ascii.as_bytes()).unwrap();
        let b = parse_stl(Path::new("b.stl"), &binary).unwrap();
        for mesh in [&a, &b] {
            assert_eq!(mesh.vertices.len(), 4);
            assert_eq!(mesh.validate_solid(), Ok(()));
            assert!((mesh.volume_integrals().t1 - 10.0).abs() < 1e-12);
        }
        // A truncated binary file is an error, not a panic.
        let truncated = &binary[..binary.len() - 20];
        assert!(parse_stl(Path::new("c.stl"), truncated).is_err());
        assert!(parse_stl(Path::new("d.stl"), b"garbage").is_err());
    }
}
