//! `impulse render DIR`: pictures of a recorded run without a browser — one frame at a time, or
//! a contact sheet of several — drawn by the software rasterizer in [`crate::raster`].
//!
//! The camera looks at the centre of a region — by default the one the moving bodies occupy at
//! the time drawn; with `--frame run` the one they occupy over the whole run, the viewer page's
//! starting camera, shared by every picture of the run; with `--follow BODY` a region around
//! that body — from the direction given by azimuth and elevation, with a 35° vertical field of
//! view, at the distance where the sphere around that region just fits the picture.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use impulse::math::{Pose, Vec3};
use plotters::prelude::*;

use crate::framing::{Bounds, around_body, body_colors, bounds, bounds_at};
use crate::raster::{Camera, Canvas, Image, Paint, Vertex};
use crate::recording::Recording;
use crate::solids::{TriMesh, tessellate};

/// Vertical field of view, degrees (as the viewer page's).
pub const FOV_Y_DEGREES: f64 = 35.0;
/// How far a sleeping body's colour is taken towards white (as the viewer page's).
const SLEEP_PALENESS: f64 = 0.6;

/// Background colour (as the viewer page's), 8-bit sRGB.
const BACKGROUND: [u8; 3] = [42, 47, 55];
/// Samples per pixel along each axis (anti-aliasing).
const SUPERSAMPLE: u32 = 2;

#[derive(Args)]
#[command(after_help = "Examples:
  impulse render out/dzhanibekov --time 4
  impulse render out/see_saw --sheet 6 --follow \"ball 1\"
  impulse render out/dominos --center 0,0,5 --zoom 2 --elevation 60
  impulse render out/rover --sheet 4 --frame run")]
pub struct RenderArgs {
    /// A run directory written by `impulse run`.
    dir: PathBuf,
    /// The time to draw [default: the end of the run].
    #[arg(long, conflicts_with = "sheet", allow_negative_numbers = true)]
    time: Option<f64>,
    /// Draw a contact sheet of N evenly spaced times, from the start to the end of the run.
    #[arg(long, value_name = "N")]
    sheet: Option<u32>,
    /// The PNG file to write [default: DIR/frame.png, or DIR/sheet.png with --sheet].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Width of the picture (of each frame of a sheet), pixels.
    #[arg(long, default_value_t = 960)]
    width: u32,
    /// Height of the picture (of each frame of a sheet), pixels.
    #[arg(long, default_value_t = 540)]
    height: u32,
    /// Frames per row of a contact sheet [default: about the square root of N].
    #[arg(long, requires = "sheet")]
    columns: Option<u32>,
    /// Direction of the camera from the scene's centre, degrees about +z from +x.
    #[arg(long, default_value_t = -60.0, allow_negative_numbers = true)]
    azimuth: f64,
    /// Height of the camera above the scene's centre, degrees above the x–y plane.
    #[arg(long, default_value_t = 25.0, allow_negative_numbers = true)]
    elevation: f64,
    /// Magnification: 2 brings the camera twice as close as the distance that fits the scene.
    #[arg(long, default_value_t = 1.0)]
    zoom: f64,
    /// What to fit in the picture: the moving bodies where they are at the time drawn (`now`),
    /// or wherever they go over the whole run (`run`: one camera for every picture of the run,
    /// the viewer page's starting camera).
    #[arg(long, value_enum, default_value_t = Frame::Now)]
    frame: Frame,
    /// Look at this point (x,y,z) instead of the framed region's centre; the distance still
    /// fits the region (use --zoom to come closer).
    #[arg(long, value_name = "X,Y,Z", allow_negative_numbers = true, value_parser = point, conflicts_with = "follow")]
    center: Option<Vec3>,
    /// Keep this body (its name, or `multibody/link`) in the middle of every picture, framed
    /// with its surroundings (three times its size).
    #[arg(long, value_name = "BODY")]
    follow: Option<String>,
}

/// What `impulse render` fits in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Frame {
    /// The moving bodies at the time drawn.
    Now,
    /// The moving bodies over the whole run.
    Run,
}

/// `x,y,z` as a point.
fn point(text: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let numbers: Vec<f64> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    match numbers[..] {
        [x, y, z] if parts.len() == 3 && numbers.iter().all(|v| v.is_finite()) => {
            Ok(Vec3::new(x, y, z))
        }
        _ => Err(format!(
            "expected three numbers x,y,z (e.g. 0,0,0.5), got `{text}`"
        )),
    }
}

pub fn render(args: &RenderArgs) -> Result<ExitCode, String> {
    for (name, value) in [("width", args.width), ("height", args.height)] {
        if !(16..=8192).contains(&value) {
            return Err(format!(
                "--{name} must be from 16 to 8192 pixels, got {value}"
            ));
        }
    }
    for (name, value) in [("azimuth", args.azimuth), ("elevation", args.elevation)] {
        if !value.is_finite() {
            return Err(format!("--{name} must be a finite number of degrees"));
        }
    }
    if !(args.zoom.is_finite() && args.zoom > 0.0) {
        return Err(format!(
            "--zoom must be a positive number, got {}",
            args.zoom
        ));
    }
    if !(-90.0..=90.0).contains(&args.elevation) {
        return Err(format!(
            "--elevation must be from -90 to 90 degrees, got {}",
            args.elevation
        ));
    }
    if let Some(n) = args.sheet {
        if !(1..=100).contains(&n) {
            return Err(format!("--sheet must be from 1 to 100 frames, got {n}"));
        }
        sheet_pixels(n, sheet_columns(n, args.columns), args.width, args.height)?;
    }
    let recording = Recording::load(&args.dir)?;
    let view = View {
        azimuth: args.azimuth,
        elevation: args.elevation,
        zoom: args.zoom,
    };
    let framing = match &args.follow {
        Some(name) => {
            let names: Vec<&str> = recording
                .shapes
                .bodies
                .iter()
                .map(|b| b.name.as_str())
                .collect();
            match names.iter().position(|n| n == name) {
                Some(b) => Framing::Follow(b),
                None => {
                    return Err(format!(
                        "--follow {name}: no such body in {} (its bodies: {})",
                        args.dir.display(),
                        names.join(", ")
                    ));
                }
            }
        }
        None => match args.frame {
            Frame::Now => Framing::Now,
            Frame::Run => Framing::Run(bounds(&recording)?),
        },
    };
    let scene = SceneView::new(&recording, view, framing, args.center)?;
    let (start, end) = (recording.times[0], recording.end_time());
    let (image, default_name) = match args.sheet {
        Some(n) => {
            let columns = sheet_columns(n, args.columns);
            let times: Vec<f64> = (0..n)
                .map(|i| {
                    if n == 1 {
                        start
                    } else {
                        start + (end - start) * f64::from(i) / f64::from(n - 1)
                    }
                })
                .collect();
            let sheet = scene.sheet(&times, columns, args.width, args.height)?;
            (sheet, "sheet.png")
        }
        None => {
            let t = args.time.unwrap_or(end);
            if !(t.is_finite() && t >= start && t <= end) {
                return Err(format!(
                    "--time {t} is outside the recording, which runs from t = {start} to {end}"
                ));
            }
            (scene.frame(t, args.width, args.height)?, "frame.png")
        }
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.dir.join(default_name));
    image.save(&out)?;
    println!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Where the camera looks from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Direction from the scene's centre, degrees about +z from +x.
    pub azimuth: f64,
    /// Degrees above the x–y plane.
    pub elevation: f64,
    /// Magnification (1: the scene's sphere just fits).
    pub zoom: f64,
}

/// The most pixels a contact sheet may have: as many as the largest single picture
/// (8192 × 8192, 256 MiB as RGBA). `--sheet 100 --columns 100 --width 8192 --height 8192`
/// asked for 20 GB (issue 42).
const MAX_SHEET_PIXELS: u64 = 8192 * 8192;

/// Frames per row of a sheet of `n`: as asked (at most `n`), else about √n.
fn sheet_columns(n: u32, asked: Option<u32>) -> u32 {
    asked
        .unwrap_or_else(|| (f64::from(n).sqrt().ceil()) as u32)
        .clamp(1, n)
}

/// The size of a sheet of `n` frames of `width` × `height`, `columns` to a row, 4 pixels
/// apart; an error if it exceeds [`MAX_SHEET_PIXELS`].
fn sheet_pixels(n: u32, columns: u32, width: u32, height: u32) -> Result<(u64, u64), String> {
    let rows = u64::from(n.div_ceil(columns));
    let columns = u64::from(columns);
    let gap = 4;
    let w = columns * u64::from(width) + (columns - 1) * gap;
    let h = rows * u64::from(height) + (rows - 1) * gap;
    if w * h > MAX_SHEET_PIXELS {
        return Err(format!(
            "a sheet of {n} frames of {width} × {height} pixels, {columns} to a row, would be \
             {w} × {h} pixels, more than the {MAX_SHEET_PIXELS} (8192²) a picture may have: \
             give a smaller --width/--height, fewer frames or a different --columns"
        ));
    }
    Ok((w, h))
}

/// The camera for a `width` × `height` picture. With the command's default view (azimuth −60°,
/// elevation 25°, zoom 1) it is the viewer page's starting camera.
pub fn camera(bounds: &Bounds, view: View, width: u32, height: u32) -> Camera {
    let (az, el) = (view.azimuth.to_radians(), view.elevation.to_radians());
    let direction = Vec3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
    let half = (0.5 * FOV_Y_DEGREES).to_radians();
    let aspect = f64::from(width) / f64::from(height);
    // The narrower of the two half-angles must hold the sphere around the scene.
    let half_min = half.min((half.tan() * aspect).atan());
    let distance = bounds.radius / half_min.sin() / view.zoom;
    Camera {
        eye: bounds.center + direction * distance,
        target: bounds.center,
        up: Vec3::z(),
        fov_y: 2.0 * half,
        near: 0.01 * distance,
    }
}

/// Which region a picture fits.
pub enum Framing {
    /// The moving bodies at the time drawn.
    Now,
    /// This region (the moving bodies over the whole run).
    Run(Bounds),
    /// Around this body (index), at the time drawn.
    Follow(usize),
}

/// A recording made ready to draw: each body's shapes tessellated once.
pub struct SceneView<'a> {
    recording: &'a Recording,
    framing: Framing,
    /// A point to look at instead of the framed region's centre.
    center: Option<Vec3>,
    view: View,
    bodies: Vec<Drawn>,
}

/// A body ready to draw.
struct Drawn {
    color: [f64; 3],
    /// Each shape's pose in the model frame, and its mesh (`None` for a half-space).
    shapes: Vec<(Pose, Option<TriMesh>)>,
}

fn linear(c: [u8; 3]) -> [f64; 3] {
    c.map(|x| f64::from(x) / 255.0)
}

impl<'a> SceneView<'a> {
    pub fn new(
        recording: &'a Recording,
        view: View,
        framing: Framing,
        center: Option<Vec3>,
    ) -> Result<Self, String> {
        let colors = body_colors(&recording.shapes.bodies);
        let bodies = recording
            .shapes
            .bodies
            .iter()
            .zip(colors)
            .map(|(body, color)| {
                let shapes = body
                    .shapes
                    .iter()
                    .map(|s| (s.pose(), tessellate(&s.geometry)))
                    .collect();
                Drawn {
                    color: linear(color),
                    shapes,
                }
            })
            .collect();
        Ok(Self {
            recording,
            framing,
            center,
            view,
            bodies,
        })
    }

    /// The region a picture at time `t` fits, looked at from its centre or the given point.
    fn bounds(&self, t: f64) -> Result<Bounds, String> {
        let mut region = match &self.framing {
            Framing::Now => bounds_at(self.recording, t)?,
            Framing::Run(region) => *region,
            Framing::Follow(b) => around_body(self.recording, *b, t),
        };
        if let Some(center) = self.center {
            region.center = center;
        }
        Ok(region)
    }

    /// The picture at time `t`, labelled with the time.
    pub fn frame(&self, t: f64, width: u32, height: u32) -> Result<Image, String> {
        let region = self.bounds(t)?;
        let camera = camera(&region, self.view, width, height);
        let mut canvas = Canvas::new(width, height, SUPERSAMPLE, camera, linear(BACKGROUND));
        for (b, body) in self.bodies.iter().enumerate() {
            let body_pose = self.recording.pose_at(b, t);
            // Sleeping bodies pale, as on the viewer page.
            let paint = if self.recording.asleep_at(b, t) {
                body.color.map(|c| c + SLEEP_PALENESS * (1.0 - c))
            } else {
                body.color
            };
            for (shape_pose, mesh) in &body.shapes {
                let pose = body_pose * shape_pose;
                match mesh {
                    Some(mesh) => draw_mesh(&mut canvas, mesh, &pose, &Paint::Solid(paint)),
                    None => draw_ground(&mut canvas, &region, &pose, body.color),
                }
            }
        }
        let mut image = canvas.finish();
        label(
            &mut image,
            &format!("t = {}", clock(t, self.recording.end_time())),
        )?;
        Ok(image)
    }

    /// Frames at `times`, `columns` to a row, `width` × `height` each.
    pub fn sheet(
        &self,
        times: &[f64],
        columns: u32,
        width: u32,
        height: u32,
    ) -> Result<Image, String> {
        let rows = (times.len() as u32).div_ceil(columns);
        let gap = 4;
        let mut sheet = Image::filled(
            columns * width + (columns - 1) * gap,
            rows * height + (rows - 1) * gap,
            [16, 18, 21],
        );
        for (k, &t) in times.iter().enumerate() {
            let (col, row) = (k as u32 % columns, k as u32 / columns);
            let frame = self.frame(t, width, height)?;
            sheet.paste(&frame, col * (width + gap), row * (height + gap));
        }
        Ok(sheet)
    }
}

/// A square of the half-space's plane (z = 0 of `pose`) under the framed region, eight region
/// radii across, as a checkerboard.
fn draw_ground(canvas: &mut Canvas, region: &Bounds, pose: &Pose, color: [f64; 3]) {
    let r = region.radius;
    let local = pose.inverse_transform_point(&region.center.into());
    let (cx, cy) = (local.x, local.y);
    let corner = |x: f64, y: f64| Vertex {
        position: (pose * impulse::math::Point::new(cx + x, cy + y, 0.0)).coords,
        normal: pose.rotation * Vec3::z(),
    };
    let size = 4.0 * r;
    let paint = Paint::Checker {
        light: color,
        dark: color.map(|c| c * 0.8),
        cell: nice_length(r / 4.0),
        origin: pose.translation.vector,
        u: pose.rotation * Vec3::x(),
        v: pose.rotation * Vec3::y(),
    };
    // In strips, so that the part behind the camera is cut cleanly.
    let n = 8;
    let step = 2.0 * size / f64::from(n);
    for i in 0..n {
        for j in 0..n {
            let (x0, y0) = (-size + step * f64::from(i), -size + step * f64::from(j));
            let (x1, y1) = (x0 + step, y0 + step);
            let [a, b, c, d] = [
                corner(x0, y0),
                corner(x1, y0),
                corner(x1, y1),
                corner(x0, y1),
            ];
            canvas.triangle([a, b, c], &paint);
            canvas.triangle([a, c, d], &paint);
        }
    }
}

fn draw_mesh(canvas: &mut Canvas, mesh: &TriMesh, pose: &Pose, paint: &Paint) {
    let corners: Vec<Vertex> = mesh
        .positions
        .iter()
        .zip(&mesh.normals)
        .map(|(p, n)| Vertex {
            position: pose.transform_vector(p) + pose.translation.vector,
            normal: pose.rotation * n,
        })
        .collect();
    for &[a, b, c] in &mesh.triangles {
        canvas.triangle(
            [
                corners[a as usize],
                corners[b as usize],
                corners[c as usize],
            ],
            paint,
        );
    }
}

/// 1, 2 or 5 times a power of ten, near `x`.
fn nice_length(x: f64) -> f64 {
    let power = 10f64.powf(x.log10().floor());
    let m = x / power;
    power
        * if m < 1.5 {
            1.0
        } else if m < 3.5 {
            2.0
        } else if m < 7.5 {
            5.0
        } else {
            10.0
        }
}

/// `t` with enough decimals to tell frames of a run ending at `end` apart.
pub fn clock(t: f64, end: f64) -> String {
    let decimals = if end > 0.0 {
        (3.0 - end.log10().floor()).clamp(2.0, 9.0) as usize
    } else {
        3
    };
    format!("{t:.decimals$}")
}

/// Writes `text` in the top-left corner.
fn label(image: &mut Image, text: &str) -> Result<(), String> {
    crate::plot::register_font()?;
    let (w, h) = (image.width, image.height);
    let size = (f64::from(h) / 22.0).clamp(12.0, 28.0);
    let root = BitMapBackend::with_buffer(&mut image.rgb, (w, h)).into_drawing_area();
    let style = ("sans-serif", size)
        .into_font()
        .color(&RGBColor(235, 235, 235));
    root.draw_text(text, &style, ((size * 0.6) as i32, (size * 0.5) as i32))
        .map_err(|e| format!("cannot draw the time label: {e}"))?;
    root.present()
        .map_err(|e| format!("cannot draw the time label: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scene_sphere_just_fits_the_narrower_field_of_view() {
        let bounds = Bounds {
            center: Vec3::new(1.0, 2.0, 3.0),
            radius: 2.0,
        };
        // Square picture: the sphere's tangent cone has half-angle 17.5°, so its distance is
        // r / sin 17.5°. Looking along −y from azimuth −90°, elevation 0.
        let side = View {
            azimuth: -90.0,
            elevation: 0.0,
            zoom: 1.0,
        };
        let cam = camera(&bounds, side, 100, 100);
        let d = 2.0 / 17.5f64.to_radians().sin();
        assert!((cam.eye - Vec3::new(1.0, 2.0 - d, 3.0)).norm() < 1e-12);
        // Portrait picture: the horizontal half-angle atan(tan 17.5° · 0.5) is the narrower.
        let narrow = camera(&bounds, side, 50, 100);
        let half = (17.5f64.to_radians().tan() * 0.5).atan();
        assert!(((narrow.eye - bounds.center).norm() - 2.0 / half.sin()).abs() < 1e-12);
        // Zoom 2: half the distance.
        let near = camera(&bounds, View { zoom: 2.0, ..side }, 100, 100);
        assert!(((near.eye - bounds.center).norm() - 0.5 * d).abs() < 1e-12);
    }

    #[test]
    fn nice_lengths_and_clocks() {
        assert_eq!(nice_length(0.3), 0.2);
        assert_eq!(nice_length(7.0), 5.0);
        assert_eq!(nice_length(80.0), 100.0);
        assert_eq!(clock(0.5, 1.0), "0.500");
        assert_eq!(clock(12.25, 20.0), "12.25");
        assert_eq!(clock(0.00125, 0.004), "0.001250");
    }
}
