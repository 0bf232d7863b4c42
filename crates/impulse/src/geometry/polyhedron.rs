//! Non-convex polyhedra as unions of convex pieces (Mirtich §2.2.2, eq. 2.1).
//!
//! The closed surface gives exact mass properties; the convex pieces are what collision
//! detection works with. Pieces are either given (each object of an OBJ file is one convex piece)
//! or found automatically by approximate convex decomposition (V-HACD, from `parry3d-f64`).

use std::path::Path;

use super::convex::{ConvexError, ConvexPolyhedron};
use super::mesh::{MeshObject, PolygonMesh};
use super::mesh_io::MeshFileError;
use crate::math::Point;

/// A non-convex solid: its bounding surface and its convex pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyhedron {
    mesh: PolygonMesh,
    pieces: Vec<ConvexPolyhedron>,
}

/// Settings of the automatic convex decomposition (V-HACD).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecompositionSettings {
    /// Voxel grid resolution along the longest axis.
    pub resolution: u32,
    /// Largest concavity allowed in a piece, relative to the solid's size.
    pub concavity: f64,
    /// Most pieces to produce.
    pub max_pieces: u32,
}

impl Default for DecompositionSettings {
    fn default() -> Self {
        Self {
            resolution: 64,
            concavity: 0.01,
            max_pieces: 64,
        }
    }
}

impl Polyhedron {
    /// A solid made of the given convex pieces, which must not overlap. Its surface is the union
    /// of the pieces' surfaces.
    pub fn from_pieces(pieces: Vec<ConvexPolyhedron>) -> Self {
        let mut mesh = PolygonMesh::default();
        for piece in &pieces {
            let part = piece.to_mesh();
            let offset = mesh.vertices.len() as u32;
            mesh.vertices.extend(part.vertices);
            mesh.faces.extend(
                part.faces
                    .into_iter()
                    .map(|f| f.into_iter().map(|i| i + offset).collect()),
            );
        }
        let mesh = PolygonMesh::new(mesh.vertices, mesh.faces);
        Self { mesh, pieces }
    }

    /// A solid whose mesh objects (OBJ `o`/`g` groups) are each one closed convex piece; a mesh
    /// without objects is a single piece. `path` names the file in errors.
    pub fn from_convex_objects(mesh: PolygonMesh, path: &Path) -> Result<Self, MeshFileError> {
        let objects = if mesh.objects.is_empty() {
            vec![MeshObject {
                name: "(whole mesh)".into(),
                faces: 0..mesh.faces.len(),
            }]
        } else {
            mesh.objects.clone()
        };
        let object_error = |object: &MeshObject, message: String| MeshFileError {
            path: path.to_path_buf(),
            line: None,
            face: None,
            message: format!("object `{}` {message}", object.name),
        };
        let mut pieces = Vec::with_capacity(objects.len());
        for object in &objects {
            // Objects may touch each other (sharing vertices), so each is checked on its own.
            let part = mesh.object_mesh(object);
            part.validate_solid()
                .map_err(|defect| MeshFileError::from_defect(path, &part, &defect))?;
            let hull = ConvexPolyhedron::hull_of(&part.vertices)
                .map_err(|error| object_error(object, format!("is not a convex piece: {error}")))?;
            let hull_ratio = hull.volume_integrals().t1 / part.volume_integrals().t1;
            if !(hull_ratio.is_finite() && (hull_ratio - 1.0).abs() <= 1e-6) {
                return Err(object_error(
                    object,
                    format!(
                        "is not convex (its convex hull is {:.3}% larger); make each object one convex piece, or use automatic decomposition",
                        (hull_ratio - 1.0) * 100.0
                    ),
                ));
            }
            pieces.push(hull);
        }
        Ok(Self { mesh, pieces })
    }

    /// A solid split automatically into convex pieces by V-HACD. The mesh must already bound a
    /// solid (see [`PolygonMesh::validate_solid`]); `path` names the file in errors.
    pub fn decompose(
        mesh: PolygonMesh,
        settings: &DecompositionSettings,
        path: &Path,
    ) -> Result<Self, MeshFileError> {
        use parry3d_f64::math::Vector;
        use parry3d_f64::transformation::vhacd::{VHACD, VHACDParameters};
        let failed = |message: String| MeshFileError {
            path: path.to_path_buf(),
            line: None,
            face: None,
            message: format!("automatic convex decomposition failed: {message}"),
        };
        let points: Vec<Vector> = mesh
            .vertices
            .iter()
            .map(|p| Vector::new(p.x, p.y, p.z))
            .collect();
        let triangles: Vec<[u32; 3]> = mesh.triangles().into_iter().map(|(t, _)| t).collect();
        let parameters = VHACDParameters {
            resolution: settings.resolution,
            concavity: settings.concavity,
            max_convex_hulls: settings.max_pieces,
            ..VHACDParameters::default()
        };
        // V-HACD is third-party load-time machinery; a panic inside it on odd input must become
        // an error naming the mesh, not a crash.
        let hulls = std::panic::catch_unwind(|| {
            let decomposition = VHACD::decompose(&parameters, &points, &triangles, true);
            decomposition.compute_exact_convex_hulls(&points, &triangles)
        })
        .map_err(|_| failed("V-HACD stopped on this mesh".into()))?;
        let mut pieces = Vec::with_capacity(hulls.len());
        for (k, (hull_points, _)) in hulls.iter().enumerate() {
            let hull_points: Vec<Point> = hull_points
                .iter()
                .map(|v| Point::new(v.x, v.y, v.z))
                .collect();
            match ConvexPolyhedron::hull_of(&hull_points) {
                Ok(piece) => pieces.push(piece),
                // Slivers with no volume carry no collision geometry worth keeping.
                Err(ConvexError::Flat | ConvexError::TooFewPoints { .. }) => {}
                Err(error) => return Err(failed(format!("piece {}: {error}", k + 1))),
            }
        }
        if pieces.is_empty() {
            return Err(failed("no convex piece with volume was found".into()));
        }
        Ok(Self { mesh, pieces })
    }

    /// The bounding surface.
    pub fn mesh(&self) -> &PolygonMesh {
        &self.mesh
    }

    /// The convex pieces.
    pub fn pieces(&self) -> &[ConvexPolyhedron] {
        &self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::mesh_io::parse_obj;
    use std::path::Path;

    /// An L-shaped solid: two unit-depth boxes, as two OBJ objects.
    fn l_shape_obj() -> String {
        let block = |x0: f64, x1: f64, y0: f64, y1: f64, name: &str, base: usize| {
            let mut s = format!("o {name}\n");
            for z in [0.0, 1.0] {
                for (x, y) in [(x0, y0), (x1, y0), (x1, y1), (x0, y1)] {
                    s.push_str(&format!("v {x} {y} {z}\n"));
                }
            }
            let b = base;
            for f in [
                [1, 4, 3, 2],
                [5, 6, 7, 8],
                [1, 2, 6, 5],
                [3, 4, 8, 7],
                [2, 3, 7, 6],
                [1, 5, 8, 4],
            ] {
                s.push_str(&format!(
                    "f {} {} {} {}\n",
                    f[0] + b,
                    f[1] + b,
                    f[2] + b,
                    f[3] + b
                ));
            }
            s
        };
        block(0.0, 2.0, 0.0, 1.0, "foot", 0) + &block(0.0, 1.0, 1.0, 3.0, "leg", 8)
    }

    #[test]
    fn convex_objects_become_pieces() {
        // The two boxes touch along a face, so their union is not a manifold surface; each
        // object is checked as a solid on its own.
        let mesh = parse_obj(Path::new("l.obj"), &l_shape_obj()).unwrap();
        let solid = Polyhedron::from_convex_objects(mesh, Path::new("l.obj")).unwrap();
        assert_eq!(solid.pieces().len(), 2);
        // Volume 2 + 2 = 4.
        assert!((solid.mesh().volume_integrals().t1 - 4.0).abs() < 1e-13);
    }

    #[test]
    fn non_convex_object_is_rejected() {
        // An L-prism as one closed object: not convex.
        let text = "o ell\nv 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 3 0\nv 0 3 0\n\
                    v 0 0 1\nv 2 0 1\nv 2 1 1\nv 1 1 1\nv 1 3 1\nv 0 3 1\n\
                    f 6 5 4 3 2 1\nf 7 8 9 10 11 12\nf 1 2 8 7\nf 2 3 9 8\nf 3 4 10 9\n\
                    f 4 5 11 10\nf 5 6 12 11\nf 6 1 7 12\n";
        let mesh = parse_obj(Path::new("l.obj"), text).unwrap();
        assert_eq!(mesh.validate_solid(), Ok(()));
        let error = Polyhedron::from_convex_objects(mesh, Path::new("l.obj")).unwrap_err();
        assert!(error.message.contains("is not convex"), "{error}");
    }

    #[test]
    fn automatic_decomposition_covers_the_solid() {
        let text = "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 3 0\nv 0 3 0\n\
                    v 0 0 1\nv 2 0 1\nv 2 1 1\nv 1 1 1\nv 1 3 1\nv 0 3 1\n\
                    f 6 5 4 3 2 1\nf 7 8 9 10 11 12\nf 1 2 8 7\nf 2 3 9 8\nf 3 4 10 9\n\
                    f 4 5 11 10\nf 5 6 12 11\nf 6 1 7 12\n";
        let mesh = parse_obj(Path::new("l.obj"), text).unwrap();
        let solid =
            Polyhedron::decompose(mesh, &DecompositionSettings::default(), Path::new("l.obj"))
                .unwrap();
        assert!(solid.pieces().len() >= 2, "an L needs at least two pieces");
        // Every corner of the L lies in (or on) some piece.
        for corner in [
            Point::new(2.0, 0.0, 0.0),
            Point::new(1.0, 3.0, 1.0),
            Point::new(0.0, 0.0, 0.0),
        ] {
            let inside = solid.pieces().iter().any(|piece| {
                piece
                    .faces()
                    .iter()
                    .all(|f| f.normal.dot(&corner.coords) <= f.offset + 0.05)
            });
            assert!(inside, "corner {corner} is not covered");
        }
    }
}
