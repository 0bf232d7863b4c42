//! A small software rasterizer: a perspective camera, triangles with a z-buffer, Lambert shading,
//! supersampling, and PNG output. Deterministic: the same triangles give the same bytes.

use std::path::Path;

use impulse::math::Vec3;

/// A perspective camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Where the camera is.
    pub eye: Vec3,
    /// The point at the centre of the picture.
    pub target: Vec3,
    /// The world direction that points up in the picture (need not be perpendicular to the view).
    pub up: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f64,
    /// Nothing nearer than this (along the view direction) is drawn.
    pub near: f64,
}

impl Camera {
    /// Right, up and forward unit vectors of the picture.
    fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let forward = (self.target - self.eye).normalize();
        let mut right = forward.cross(&self.up);
        if right.norm() < 1e-9 {
            // Looking straight along `up`: any sideways direction will do.
            right = forward.cross(&if forward.x.abs() < 0.9 {
                Vec3::x()
            } else {
                Vec3::y()
            });
        }
        let right = right.normalize();
        (right, right.cross(&forward), forward)
    }

    /// View coordinates of a world point: (right, up, depth along the view direction).
    pub fn view_of(&self, p: &Vec3) -> Vec3 {
        let (right, up, forward) = self.basis();
        let d = p - self.eye;
        Vec3::new(d.dot(&right), d.dot(&up), d.dot(&forward))
    }

    /// Where a point in view coordinates lands in a `width` × `height` picture: pixel
    /// coordinates with x to the right and y down, pixel `(i, j)` covering `[i, i+1) × [j, j+1)`.
    fn view_to_pixel(&self, v: &Vec3, width: f64, height: f64) -> (f64, f64) {
        let s = 1.0 / (0.5 * self.fov_y).tan();
        let aspect = width / height;
        let x = v.x * s / (v.z * aspect);
        let y = v.y * s / v.z;
        ((x + 1.0) * 0.5 * width, (1.0 - y) * 0.5 * height)
    }

    /// Pixel coordinates of a world point in front of the camera (`None` behind the near plane).
    #[cfg(test)]
    pub fn project(&self, p: &Vec3, width: u32, height: u32) -> Option<(f64, f64)> {
        let v = self.view_of(p);
        (v.z >= self.near).then(|| self.view_to_pixel(&v, f64::from(width), f64::from(height)))
    }
}

/// How a triangle is coloured (before shading).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Paint {
    /// One colour (linear 0–1 RGB).
    Solid([f64; 3]),
    /// A checkerboard on a plane: squares of side `cell` along `u` and `v` from `origin`.
    Checker {
        light: [f64; 3],
        dark: [f64; 3],
        cell: f64,
        origin: Vec3,
        u: Vec3,
        v: Vec3,
    },
}

/// A triangle corner: world position and unit normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// World position.
    pub position: Vec3,
    /// World unit normal.
    pub normal: Vec3,
}

/// A picture being drawn: colours and depths, at `scale` samples per output pixel along each
/// axis (averaged down by [`Canvas::finish`]).
pub struct Canvas {
    width: usize,
    height: usize,
    scale: usize,
    camera: Camera,
    light: Vec3,
    color: Vec<[f64; 3]>,
    depth: Vec<f64>,
}

/// Light that reaches every surface.
const AMBIENT: f64 = 0.35;
/// Light from the lamp, on a surface facing it.
const DIFFUSE: f64 = 0.75;

impl Canvas {
    /// A `width` × `height` picture seen by `camera`, filled with `background`, with `scale`²
    /// samples per pixel.
    pub fn new(width: u32, height: u32, scale: u32, camera: Camera, background: [f64; 3]) -> Self {
        let scale = scale.max(1) as usize;
        let (w, h) = (width as usize * scale, height as usize * scale);
        // The lamp is over the viewer's left shoulder.
        let (right, up, forward) = camera.basis();
        let light = (up * 0.8 - right * 0.45 - forward * 0.6).normalize();
        Self {
            width: w,
            height: h,
            scale,
            camera,
            light,
            color: vec![background; w * h],
            depth: vec![f64::INFINITY; w * h],
        }
    }

    /// Draws a triangle whose corners are counter-clockwise seen from its front. Triangles seen
    /// from behind are skipped (all our solids are closed), and parts nearer than the camera's
    /// near plane are cut away.
    pub fn triangle(&mut self, corners: [Vertex; 3], paint: &Paint) {
        let [a, b, c] = corners;
        let face = (b.position - a.position).cross(&(c.position - a.position));
        if face.dot(&(self.camera.eye - a.position)) <= 0.0 {
            return;
        }
        let view = corners.map(|v| (v, self.camera.view_of(&v.position)));
        let near = self.camera.near;
        // Clip against the near plane (Sutherland–Hodgman); attributes are affine in view space.
        let mut polygon: Vec<(Vertex, Vec3)> = Vec::with_capacity(4);
        for k in 0..3 {
            let (p, q) = (view[k], view[(k + 1) % 3]);
            let (p_in, q_in) = (p.1.z >= near, q.1.z >= near);
            if p_in {
                polygon.push(p);
            }
            if p_in != q_in {
                let f = (near - p.1.z) / (q.1.z - p.1.z);
                let lerp = |x: &Vec3, y: &Vec3| x + (y - x) * f;
                polygon.push((
                    Vertex {
                        position: lerp(&p.0.position, &q.0.position),
                        normal: lerp(&p.0.normal, &q.0.normal),
                    },
                    lerp(&p.1, &q.1),
                ));
            }
        }
        for k in 1..polygon.len().saturating_sub(1) {
            self.fill([polygon[0], polygon[k], polygon[k + 1]], paint);
        }
    }

    /// Scan-converts a triangle that lies in front of the near plane.
    fn fill(&mut self, corners: [(Vertex, Vec3); 3], paint: &Paint) {
        let (w, h) = (self.width as f64, self.height as f64);
        let screen = corners.map(|(_, v)| self.camera.view_to_pixel(&v, w, h));
        let [(x0, y0), (x1, y1), (x2, y2)] = screen;
        let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
        if area == 0.0 || !area.is_finite() {
            return;
        }
        let min_x = x0.min(x1).min(x2).floor().max(0.0) as usize;
        let min_y = y0.min(y1).min(y2).floor().max(0.0) as usize;
        let max_x = (x0.max(x1).max(x2).ceil().min(w) as usize).min(self.width);
        let max_y = (y0.max(y1).max(y2).ceil().min(h) as usize).min(self.height);
        let inverse_depth = corners.map(|(_, v)| 1.0 / v.z);
        for j in min_y..max_y {
            let py = j as f64 + 0.5;
            for i in min_x..max_x {
                let px = i as f64 + 0.5;
                // Barycentric coordinates from edge functions.
                let b0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area;
                let b1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area;
                let b2 = 1.0 - b0 - b1;
                if b0 < 0.0 || b1 < 0.0 || b2 < 0.0 {
                    continue;
                }
                // Perspective-correct weights.
                let weights = [
                    b0 * inverse_depth[0],
                    b1 * inverse_depth[1],
                    b2 * inverse_depth[2],
                ];
                let sum = weights[0] + weights[1] + weights[2];
                let depth = 1.0 / sum;
                let index = j * self.width + i;
                if depth >= self.depth[index] {
                    continue;
                }
                let mix = |f: fn(&Vertex) -> Vec3| {
                    (f(&corners[0].0) * weights[0]
                        + f(&corners[1].0) * weights[1]
                        + f(&corners[2].0) * weights[2])
                        / sum
                };
                let normal = mix(|v| v.normal);
                let base = match paint {
                    Paint::Solid(color) => *color,
                    Paint::Checker {
                        light,
                        dark,
                        cell,
                        origin,
                        u,
                        v,
                    } => {
                        let p = mix(|v| v.position) - origin;
                        let parity = (p.dot(u) / cell).floor() + (p.dot(v) / cell).floor();
                        if parity.rem_euclid(2.0) < 1.0 {
                            *light
                        } else {
                            *dark
                        }
                    }
                };
                let lambert = normal.normalize().dot(&self.light).max(0.0);
                let shade = AMBIENT + DIFFUSE * lambert;
                self.depth[index] = depth;
                self.color[index] = base.map(|c| c * shade);
            }
        }
    }

    /// The picture: samples averaged down to output pixels, as 8-bit RGB.
    pub fn finish(&self) -> Image {
        let s = self.scale;
        let (width, height) = (self.width / s, self.height / s);
        let mut rgb = Vec::with_capacity(width * height * 3);
        let n = (s * s) as f64;
        for j in 0..height {
            for i in 0..width {
                let mut sum = [0.0; 3];
                for dy in 0..s {
                    for dx in 0..s {
                        let c = self.color[(j * s + dy) * self.width + i * s + dx];
                        for k in 0..3 {
                            sum[k] += c[k];
                        }
                    }
                }
                rgb.extend(sum.map(|c| ((c / n).clamp(0.0, 1.0) * 255.0).round() as u8));
            }
        }
        Image {
            width: width as u32,
            height: height as u32,
            rgb,
        }
    }
}

/// An 8-bit RGB picture, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Red, green, blue for each pixel.
    pub rgb: Vec<u8>,
}

impl Image {
    /// A picture of one colour.
    pub fn filled(width: u32, height: u32, color: [u8; 3]) -> Self {
        Self {
            width,
            height,
            rgb: color.repeat(width as usize * height as usize),
        }
    }

    /// The colour of pixel `(x, y)`.
    #[cfg(test)]
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = (y as usize * self.width as usize + x as usize) * 3;
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }

    /// Copies `other` into this picture with its top-left corner at `(x, y)`.
    pub fn paste(&mut self, other: &Image, x: u32, y: u32) {
        let row = other.width as usize * 3;
        for j in 0..other.height as usize {
            let target = ((y as usize + j) * self.width as usize + x as usize) * 3;
            self.rgb[target..target + row].copy_from_slice(&other.rgb[j * row..(j + 1) * row]);
        }
    }

    /// The picture as PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| format!("cannot encode the picture: {e}"))?;
        writer
            .write_image_data(&self.rgb)
            .map_err(|e| format!("cannot encode the picture: {e}"))?;
        writer
            .finish()
            .map_err(|e| format!("cannot encode the picture: {e}"))?;
        Ok(bytes)
    }

    /// Writes the picture as a PNG file.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.png()?)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> Camera {
        Camera {
            eye: Vec3::new(0.0, -10.0, 0.0),
            target: Vec3::zeros(),
            up: Vec3::z(),
            fov_y: 60f64.to_radians(),
            near: 0.1,
        }
    }

    #[test]
    fn projection_matches_the_pinhole_model() {
        // By hand: the point (2, 0, 1) is 2 right, 1 up and 10 ahead of the camera; with
        // s = 1/tan 30° = √3 and a 200 × 100 picture (aspect 2), x_ndc = 2√3/(10·2) and
        // y_ndc = √3/10, so pixel x = (1 + 0.1√3)·100 and y = (1 − 0.1√3)·50.
        let (x, y) = camera()
            .project(&Vec3::new(2.0, 0.0, 1.0), 200, 100)
            .unwrap();
        let r3 = 3f64.sqrt();
        assert!((x - (1.0 + 0.1 * r3) * 100.0).abs() < 1e-12, "{x}");
        assert!((y - (1.0 - 0.1 * r3) * 50.0).abs() < 1e-12, "{y}");
        assert_eq!(
            camera().project(&Vec3::new(0.0, -11.0, 0.0), 200, 100),
            None
        );
    }

    #[test]
    fn a_triangle_covers_the_pixels_its_corners_project_around() {
        // A square facing the camera, 2 wide, centred on (2, 0, 1): its centre lands at the pixel
        // computed above, and its half-width 1 covers √3/(10·2)·100 ≈ 8.66 pixels either side.
        let cam = camera();
        let mut canvas = Canvas::new(200, 100, 1, cam, [0.0; 3]);
        let normal = -Vec3::y();
        let corner = |x: f64, z: f64| Vertex {
            position: Vec3::new(2.0 + x, 0.0, 1.0 + z),
            normal,
        };
        let paint = Paint::Solid([1.0, 1.0, 1.0]);
        // Counter-clockwise seen from the camera (at −y).
        canvas.triangle(
            [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0)],
            &paint,
        );
        canvas.triangle(
            [corner(-1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)],
            &paint,
        );
        let image = canvas.finish();
        let lit = |x: u32, y: u32| image.pixel(x, y) != [0, 0, 0];
        let (cx, cy) = (117, 41); // floor of (117.32, 41.34)
        assert!(lit(cx, cy));
        assert!(lit(cx + 8, cy) && lit(cx - 8, cy));
        assert!(!lit(cx + 10, cy) && !lit(cx - 10, cy));
        // Seen from behind, nothing is drawn.
        let mut canvas = Canvas::new(200, 100, 1, cam, [0.0; 3]);
        canvas.triangle(
            [corner(-1.0, -1.0), corner(1.0, 1.0), corner(1.0, -1.0)],
            &paint,
        );
        assert!(canvas.finish().rgb.iter().all(|&c| c == 0));
    }

    #[test]
    fn nearer_surfaces_hide_farther_ones_and_the_near_plane_cuts() {
        let cam = camera();
        let mut canvas = Canvas::new(100, 100, 1, cam, [0.0; 3]);
        let quad = |y: f64, color: [f64; 3], canvas: &mut Canvas| {
            let v = |x: f64, z: f64| Vertex {
                position: Vec3::new(x, y, z),
                normal: -Vec3::y(),
            };
            let paint = Paint::Solid(color);
            canvas.triangle([v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0)], &paint);
            canvas.triangle([v(-1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)], &paint);
        };
        // Far red drawn after near green: green stays in front.
        quad(-2.0, [0.0, 1.0, 0.0], &mut canvas);
        quad(2.0, [1.0, 0.0, 0.0], &mut canvas);
        let p = canvas.finish().pixel(50, 50);
        assert!(p[1] > 0 && p[0] == 0, "{p:?}");
        // A floor running from behind the camera to far ahead is cut at the near plane, not
        // dropped or smeared: the bottom row of the picture sees it.
        let mut canvas = Canvas::new(100, 100, 1, cam, [0.0; 3]);
        let v = |x: f64, y: f64| Vertex {
            position: Vec3::new(x, y, -1.0),
            normal: Vec3::z(),
        };
        let paint = Paint::Solid([1.0, 1.0, 1.0]);
        canvas.triangle([v(-5.0, -20.0), v(5.0, -20.0), v(5.0, 20.0)], &paint);
        canvas.triangle([v(-5.0, -20.0), v(5.0, 20.0), v(-5.0, 20.0)], &paint);
        let image = canvas.finish();
        assert_ne!(image.pixel(50, 99), [0, 0, 0]);
        // The floor is below the eye: the top half shows the background.
        assert_eq!(image.pixel(50, 10), [0, 0, 0]);
    }

    #[test]
    fn png_output_is_deterministic() {
        let mut image = Image::filled(4, 3, [10, 20, 30]);
        image.paste(&Image::filled(2, 2, [255, 0, 0]), 1, 1);
        assert_eq!(image.pixel(2, 2), [255, 0, 0]);
        assert_eq!(image.pixel(0, 0), [10, 20, 30]);
        assert_eq!(image.png().unwrap(), image.png().unwrap());
    }
}
