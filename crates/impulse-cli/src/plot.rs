//! `impulse plot DIR`: energy over time, collision and microcollision rates, and each body's
//! speed, as SVG and PNG (plotters, with an embedded DejaVu Sans so no system fonts are needed),
//! plus the energies as `energy.csv`.
//!
//! Energies are recomputed from the trajectory and the mass properties in `shapes.json`, for the
//! dynamic bodies (fixed and kinematic ones carry no energy, as in the engine):
//! kinetic `½ m v² + ½ ωᵀ (R I Rᵀ) ω`, with `I` the inertia about the centre of mass along the
//! model axes and `R` the model frame's orientation; potential `−m g · c`, with `c` the centre of
//! mass in the world.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::Args;
use impulse::math::{Mat3, Vec3};
use impulse::run::events::EventKind;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::framing::body_colors;
use crate::raster::Image;
use crate::recording::Recording;

#[derive(Args)]
#[command(after_help = "Examples:
  impulse plot out/tossed_parts
  impulse plot out/dominos --out figures/dominos")]
pub struct PlotArgs {
    /// A run directory written by `impulse run`.
    dir: PathBuf,
    /// Where to write the plots [default: DIR/plots].
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Size of every plot, pixels (SVG user units).
const SIZE: (u32, u32) = (800, 480);
/// Bins of the collision-rate histogram.
const RATE_BINS: usize = 50;

pub fn plot(args: &PlotArgs) -> Result<ExitCode, String> {
    let recording = Recording::load(&args.dir)?;
    let out = args.out.clone().unwrap_or_else(|| args.dir.join("plots"));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let energy = energies(&recording);
    let mut csv = String::from("t,kinetic,potential,total\n");
    let mut number = ryu::Buffer::new();
    for (t, e) in recording.times.iter().zip(&energy) {
        let fields = [*t, e.kinetic, e.potential, e.kinetic + e.potential];
        for (k, value) in fields.into_iter().enumerate() {
            if k > 0 {
                csv.push(',');
            }
            csv.push_str(number.format(value));
        }
        csv.push('\n');
    }
    write(&out.join("energy.csv"), csv.as_bytes())?;
    let charts: [(&str, &dyn Chart); 3] = [
        (
            "energy",
            &EnergyChart {
                recording: &recording,
                energy: &energy,
            },
        ),
        ("collisions", &RateChart(&recording)),
        ("speed", &SpeedChart(&recording)),
    ];
    for (name, chart) in charts {
        save(chart, &out, name)?;
    }
    println!(
        "wrote energy, collisions and speed plots (SVG and PNG) and energy.csv to {}",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Makes the embedded DejaVu Sans the `sans-serif` font of plots and labels.
pub fn register_font() -> Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err("the embedded font cannot be read".into())
    }
}

/// Kinetic and potential energy of the dynamic bodies at one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Energy {
    pub kinetic: f64,
    pub potential: f64,
}

/// Energies at every frame of a recording.
pub fn energies(recording: &Recording) -> Vec<Energy> {
    let g = Vec3::from(recording.shapes.gravity);
    let mut out = vec![
        Energy {
            kinetic: 0.0,
            potential: 0.0,
        };
        recording.times.len()
    ];
    for (body, track) in recording.shapes.bodies.iter().zip(&recording.tracks) {
        if body.motion != "dynamic" {
            continue;
        }
        let inertia = Mat3::from_row_slice(&body.inertia.concat());
        let com = Vec3::from(body.center_of_mass);
        for (energy, s) in out.iter_mut().zip(track) {
            let r = s.orientation.to_rotation_matrix();
            let world_inertia = r.matrix() * inertia * r.matrix().transpose();
            let w = s.angular_velocity;
            energy.kinetic +=
                0.5 * body.mass * s.velocity.norm_squared() + 0.5 * w.dot(&(world_inertia * w));
            energy.potential -= body.mass * g.dot(&(s.position + s.orientation * com));
        }
    }
    out
}

/// A chart that can be drawn on any plotters backend.
trait Chart {
    fn draw_svg(&self, area: &DrawingArea<SVGBackend, Shift>) -> Result<(), String>;
    fn draw_bitmap(&self, area: &DrawingArea<BitMapBackend, Shift>) -> Result<(), String>;
}

/// Implements [`Chart`] for a type with a generic `draw` method.
macro_rules! chart {
    ($ty:ty) => {
        impl Chart for $ty {
            fn draw_svg(&self, area: &DrawingArea<SVGBackend, Shift>) -> Result<(), String> {
                self.draw(area)
            }
            fn draw_bitmap(&self, area: &DrawingArea<BitMapBackend, Shift>) -> Result<(), String> {
                self.draw(area)
            }
        }
    };
}

/// Writes `NAME.svg` and `NAME.png`.
fn save(chart: &dyn Chart, dir: &Path, name: &str) -> Result<(), String> {
    register_font()?;
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        chart.draw_svg(&area)?;
        area.present().map_err(|e| e.to_string())?;
    }
    write(&dir.join(format!("{name}.svg")), svg.as_bytes())?;
    let mut image = Image::filled(SIZE.0, SIZE.1, [255, 255, 255]);
    {
        let area = BitMapBackend::with_buffer(&mut image.rgb, SIZE).into_drawing_area();
        chart.draw_bitmap(&area)?;
        area.present().map_err(|e| e.to_string())?;
    }
    write(&dir.join(format!("{name}.png")), &image.png()?)
}

/// A range around `lo..hi` with a margin, never empty.
fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    let span = hi - lo;
    let margin = if span > 1e-9 * lo.abs().max(hi.abs()) {
        0.05 * span
    } else {
        0.05 * lo.abs().max(1.0)
    };
    lo - margin..hi + margin
}

fn time_range(recording: &Recording) -> std::ops::Range<f64> {
    let (start, end) = (recording.times[0], recording.end_time());
    if end > start {
        start..end
    } else {
        start..start + 1.0
    }
}

/// Short tick labels: plain for moderate numbers, scientific otherwise.
fn tick(v: &f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-3..1e5).contains(&a) {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.2e}")
    }
}

/// Points that can be drawn (a run that blew up may have recorded huge values).
fn finite(points: impl Iterator<Item = (f64, f64)>) -> impl Iterator<Item = (f64, f64)> {
    points.filter(|(x, y)| x.is_finite() && y.is_finite() && y.abs() < 1e300)
}

/// The top of an axis from zero that shows values up to `top` (1 when there are none).
fn headroom(top: f64) -> f64 {
    if top > 0.0 && top < 1e300 {
        top * 1.08
    } else {
        1.0
    }
}

fn rgb([r, g, b]: [u8; 3]) -> RGBColor {
    RGBColor(r, g, b)
}

/// A message in the middle of an empty chart area.
fn note<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, lines: &[&str]) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    let style = ("sans-serif", 16)
        .into_font()
        .color(&RGBColor(90, 90, 90))
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ));
    for (k, line) in lines.iter().enumerate() {
        let y = h as i32 / 2 + (k as i32 - lines.len() as i32 / 2) * 24;
        area.draw_text(line, &style, (w as i32 / 2, y))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The axes every chart here draws on: a number across, a number up.
type Axes<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The plots' one chart style on a white `area`: a caption, time across and `y` up (described
/// by `y_desc`), short tick labels and a light grid.
fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    y_desc: &str,
) -> Result<Axes<'a, DB>, String> {
    let error = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.fill(&WHITE).map_err(error)?;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(error)?;
    chart
        .configure_mesh()
        .x_desc("time")
        .y_desc(y_desc)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .bold_line_style(RGBColor(215, 215, 215))
        .light_line_style(RGBColor(244, 244, 244))
        .max_light_lines(4)
        .draw()
        .map_err(error)?;
    Ok(chart)
}

/// One line of `width` pixels named `name` in the legend.
fn line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Axes<'a, DB>,
    points: impl IntoIterator<Item = (f64, f64)>,
    name: &str,
    color: RGBColor,
    width: u32,
) -> Result<(), String> {
    chart
        .draw_series(LineSeries::new(points, color.stroke_width(width)))
        .map_err(|e| e.to_string())?
        .label(name)
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(width))
        });
    Ok(())
}

/// The legend, in the upper right corner.
fn legend<'a, DB: DrawingBackend + 'a>(chart: &mut Axes<'a, DB>) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| e.to_string())
}

struct EnergyChart<'a> {
    recording: &'a Recording,
    energy: &'a [Energy],
}

impl EnergyChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let times = &self.recording.times;
        let series: [(&str, RGBColor, Vec<f64>); 3] = [
            (
                "kinetic",
                rgb([225, 87, 89]),
                self.energy.iter().map(|e| e.kinetic).collect(),
            ),
            (
                "potential",
                rgb([78, 121, 167]),
                self.energy.iter().map(|e| e.potential).collect(),
            ),
            (
                "total",
                RGBColor(30, 30, 30),
                self.energy
                    .iter()
                    .map(|e| e.kinetic + e.potential)
                    .collect(),
            ),
        ];
        let (lo, hi) = series
            .iter()
            .flat_map(|(_, _, v)| v.iter().copied())
            .filter(|v| v.is_finite() && v.abs() < 1e300)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        let mut chart = axes(
            area,
            &format!(
                "Energy of the dynamic bodies — {}",
                self.recording.shapes.scene
            ),
            time_range(self.recording),
            {
                // Room above the curves for the legend.
                let range = padded(lo, hi);
                range.start..range.end + 0.2 * (range.end - range.start)
            },
            "energy (scene units)",
        )?;
        for (name, color, values) in series {
            let width = if name == "total" { 3 } else { 2 };
            let points = finite(times.iter().copied().zip(values));
            line(&mut chart, points, name, color, width)?;
        }
        legend(&mut chart)
    }
}
chart!(EnergyChart<'_>);

/// The total energy of one scene under several contact models (`impulse compare`).
struct ComparisonChart<'a> {
    title: &'a str,
    series: &'a [(&'a str, &'a [f64], &'a [f64])],
}

impl ComparisonChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let points = || {
            self.series
                .iter()
                .flat_map(|(_, t, e)| t.iter().copied().zip(e.iter().copied()))
                .filter(|(t, e)| t.is_finite() && e.is_finite() && e.abs() < 1e300)
        };
        let (lo, hi) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(v), hi.max(v))
        });
        let end = points().map(|(t, _)| t).fold(0.0, f64::max);
        let range = padded(lo, hi);
        let mut chart = axes(
            area,
            &format!("Total energy under each contact model — {}", self.title),
            0.0..if end > 0.0 { end } else { 1.0 },
            range.start..range.end + 0.2 * (range.end - range.start),
            "energy (scene units)",
        )?;
        let colors = [
            rgb([30, 30, 30]),
            rgb([89, 161, 79]),
            rgb([225, 87, 89]),
            rgb([78, 121, 167]),
        ];
        for (k, (name, times, values)) in self.series.iter().enumerate() {
            let points = finite(times.iter().copied().zip(values.iter().copied()));
            line(&mut chart, points, name, colors[k % colors.len()], 2)?;
        }
        legend(&mut chart)
    }
}
chart!(ComparisonChart<'_>);

/// Writes `energy.svg` and `energy.png` in `dir`: each `(name, times, total energies)` series
/// as one line.
pub(crate) fn energy_comparison(
    dir: &Path,
    title: &str,
    series: &[(&str, &[f64], &[f64])],
) -> Result<(), String> {
    save(&ComparisonChart { title, series }, dir, "energy")
}

struct RateChart<'a>(&'a Recording);

impl RateChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let recording = self.0;
        let range = time_range(recording);
        let width = (range.end - range.start) / RATE_BINS as f64;
        let mut counts = [[0u64; RATE_BINS]; 2];
        let events = recording.events.as_deref().unwrap_or(&[]);
        for e in events {
            let row = match e.kind {
                EventKind::Collision => 0,
                EventKind::Microcollision => 1,
                // Ray impulses (constraint contact) are neither.
                EventKind::Ray => continue,
            };
            let bin = (((e.time - range.start) / width) as usize).min(RATE_BINS - 1);
            counts[row][bin] += 1;
        }
        let top = counts.iter().flatten().copied().max().unwrap_or(0) as f64 / width;
        let mut chart = axes(
            area,
            &format!(
                "Collisions and microcollisions per unit time — {}",
                recording.shapes.scene
            ),
            range.clone(),
            0.0..headroom(top),
            &format!("events per unit time (bins of {})", tick(&width)),
        )?;
        if events.is_empty() {
            let why = if recording.events.is_none() {
                "This run has no events.csv (it was recorded without collision events)."
            } else {
                "events.csv has no rows: no collisions or microcollisions were recorded."
            };
            return note(
                &chart.plotting_area().strip_coord_spec(),
                &["No events to plot.", why],
            );
        }
        for (k, (name, color)) in [
            ("collisions", rgb([225, 87, 89])),
            ("microcollisions", rgb([78, 121, 167])),
        ]
        .into_iter()
        .enumerate()
        {
            // A step line: each bin's rate held across the bin.
            let steps = counts[k].iter().enumerate().flat_map(|(i, &c)| {
                let rate = c as f64 / width;
                let x0 = range.start + i as f64 * width;
                [(x0, rate), (x0 + width, rate)]
            });
            line(&mut chart, steps, name, color, 2)?;
        }
        legend(&mut chart)
    }
}
chart!(RateChart<'_>);

struct SpeedChart<'a>(&'a Recording);

impl SpeedChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let recording = self.0;
        let colors = body_colors(&recording.shapes.bodies);
        let moving: Vec<usize> = (0..recording.shapes.bodies.len())
            .filter(|&b| recording.shapes.bodies[b].motion != "fixed")
            .collect();
        let top = moving
            .iter()
            .flat_map(|&b| recording.tracks[b].iter().map(|s| s.velocity.norm()))
            .filter(|v| *v < 1e300)
            .fold(0.0, f64::max);
        let mut chart = axes(
            area,
            &format!(
                "Speed of each body's centre of mass — {}",
                recording.shapes.scene
            ),
            time_range(recording),
            0.0..headroom(top),
            "speed (scene units)",
        )?;
        if moving.is_empty() {
            return note(
                &chart.plotting_area().strip_coord_spec(),
                &["Every body in this run is fixed: nothing moves."],
            );
        }
        for &b in &moving {
            let color = rgb(colors[b]);
            let points = recording
                .times
                .iter()
                .zip(&recording.tracks[b])
                .map(|(&t, s)| (t, s.velocity.norm()));
            let name = &recording.shapes.bodies[b].name;
            line(&mut chart, finite(points), name, color, 2)?;
        }
        legend(&mut chart)
    }
}
chart!(SpeedChart<'_>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(&0.5), "0.5");
        assert_eq!(tick(&2.0), "2");
        assert_eq!(tick(&0.0), "0");
        assert_eq!(tick(&1.25e6), "1.25e6");
        assert_eq!(tick(&-3.5e-5), "-3.50e-5");
    }

    #[test]
    fn padded_ranges_are_never_empty() {
        assert_eq!(padded(0.0, 10.0), -0.5..10.5);
        let flat = padded(100.0, 100.0);
        assert!(flat.start < 100.0 && flat.end > 100.0);
        assert_eq!(padded(f64::NAN, 1.0), 0.0..1.0);
    }
}
