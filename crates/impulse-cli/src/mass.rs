//! `impulse mass FILE`: mass properties of a mesh.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use impulse::geometry::read_solid_mesh;
use impulse::math::{Mat3, Vec3};
use serde_json::{Map, Value, json};

#[derive(Args)]
#[command(after_help = "Examples:
  impulse mass meshes/l_bracket.obj
  impulse mass part.stl --density 7.85 --json
  impulse mass meshes/tetrahedron.obj --integrals")]
pub struct MassArgs {
    /// The mesh (.obj or .stl): a closed, consistently oriented surface.
    file: PathBuf,
    /// Uniform density (mass per unit volume).
    #[arg(long, default_value_t = 1.0)]
    density: f64,
    /// Also print the ten volume integrals T1, Tx, Ty, Tz, Tx², Ty², Tz², Txy, Tyz, Tzx.
    #[arg(long)]
    integrals: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Shortest round-trip form of a number, with -0 shown as 0.
fn number(x: f64) -> String {
    let mut buffer = ryu::Buffer::new();
    buffer.format(x + 0.0).to_string()
}

fn rows(m: &Mat3) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]])
}

fn vector(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

pub fn mass(args: &MassArgs) -> Result<ExitCode, String> {
    if !(args.density.is_finite() && args.density > 0.0) {
        return Err(format!(
            "--density must be a positive number, got {}",
            args.density
        ));
    }
    let mesh = read_solid_mesh(&args.file).map_err(|e| e.to_string())?;
    let integrals = mesh.volume_integrals();
    let props = integrals.mass_properties(args.density);
    let (moments, axes) = props.principal();
    let axes = axes.to_rotation_matrix().into_inner();
    let axis = |k: usize| vector(&axes.column(k).into_owned());
    let mut report = Map::new();
    report.insert("file".into(), json!(args.file.display().to_string()));
    report.insert("vertices".into(), json!(mesh.vertices.len()));
    report.insert("faces".into(), json!(mesh.faces.len()));
    report.insert("density".into(), json!(args.density));
    report.insert("volume".into(), json!(props.volume));
    report.insert("mass".into(), json!(props.mass));
    report.insert(
        "center_of_mass".into(),
        json!(vector(&props.center_of_mass.coords)),
    );
    report.insert("inertia".into(), json!(rows(&props.inertia)));
    report.insert("principal_moments".into(), json!(vector(&moments)));
    report.insert("principal_axes".into(), json!([axis(0), axis(1), axis(2)]));
    if args.integrals {
        let named: Map<String, Value> = integrals
            .named()
            .iter()
            .map(|(name, value)| (name.to_string(), json!(value)))
            .collect();
        report.insert("integrals".into(), Value::Object(named));
    }
    if args.json {
        let text = serde_json::to_string_pretty(&Value::Object(report))
            .map_err(|e| format!("cannot format JSON: {e}"))?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let c = props.center_of_mass;
    let n = number;
    println!("mesh              {}", args.file.display());
    let objects = match mesh.objects.len() {
        0 => String::new(),
        k => format!(", {k} objects"),
    };
    println!(
        "size              {} vertices, {} faces{objects}",
        mesh.vertices.len(),
        mesh.faces.len()
    );
    println!("density           {}", n(args.density));
    println!("volume            {}", n(props.volume));
    println!("mass              {}", n(props.mass));
    println!("centre of mass    ({}, {}, {})", n(c.x), n(c.y), n(c.z));
    println!("inertia about the centre of mass, mesh axes:");
    for row in rows(&props.inertia) {
        println!("    {:>24} {:>24} {:>24}", n(row[0]), n(row[1]), n(row[2]));
    }
    println!("principal moments and axes:");
    for k in 0..3 {
        let a = axis(k).map(|c| c + 0.0);
        println!(
            "    {:>24}  along ({:.9}, {:.9}, {:.9})",
            n(moments[k]),
            a[0],
            a[1],
            a[2]
        );
    }
    if args.integrals {
        println!("volume integrals (Mirtich eq. 6.1):");
        for (name, value) in integrals.named() {
            println!("    {name:<4} {}", n(value));
        }
    }
    Ok(ExitCode::SUCCESS)
}
