//! Looking at runs: what `impulse run` records for it (`shapes.json`, `events.csv`), and
//! `impulse view`, `render` and `plot` — including every kind of bad run directory.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("viewing/{name}"))
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Runs a scene into a fresh directory named `name`.
fn run(scene: &str, name: &str, extra: &[&str]) -> PathBuf {
    let out = scratch(name);
    let mut args = vec!["run", scene, "--out", path(&out), "--quiet"];
    args.extend_from_slice(extra);
    succeeds(&args);
    out
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// RGB pixels of a PNG file, with its size.
fn pixels(file: &Path) -> (u32, u32, Vec<u8>) {
    let bytes = std::fs::read(file).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

#[test]
fn run_records_every_shape_and_an_events_file() {
    let out = run("scenes/free/tossed_parts.toml", "records", &[]);
    let shapes = json(&out.join("shapes.json"));
    let summary = json(&out.join("summary.json"));
    assert_eq!(shapes["format_version"], 1);
    assert_eq!(shapes["scene"], "tossed parts");
    assert_eq!(shapes["gravity"], serde_json::json!([0.0, 0.0, -981.0]));
    let bodies = shapes["bodies"].as_array().unwrap();
    let summaries = summary["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 9);
    for (body, final_state) in bodies.iter().zip(summaries) {
        // The same bodies, in the same order, with the same masses as the summary.
        assert_eq!(body["name"], final_state["name"]);
        assert_eq!(body["motion"], final_state["motion"]);
        assert_eq!(body["mass"], final_state["mass"]);
    }
    let kinds: Vec<Vec<&str>> = bodies
        .iter()
        .map(|b| {
            b["shapes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["type"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            vec!["halfspace"],
            vec!["sphere"],
            vec!["capsule"],
            vec!["ellipsoid"],
            vec!["convex"],
            vec!["sphere", "sphere", "cylinder"],
            vec!["mesh"],
            vec!["mesh"],
            vec!["ellipsoid"],
        ]
    );
    // The scene's own parameters come back: the pill's length, the dumbbell's bar turned 90°
    // about y (quaternion (cos 45°, 0, sin 45°, 0)) and its second ball 3 along x.
    assert_eq!(bodies[2]["shapes"][0]["length"], 2.0);
    let bar = &bodies[5]["shapes"][2];
    assert_eq!(bar["height"], 4.0); // ends on the balls (issue 41, item 5a)
    let q: Vec<f64> = bar["orientation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert!((q[0] - h).abs() < 1e-15 && (q[2] - h).abs() < 1e-15 && q[1] == 0.0 && q[3] == 0.0);
    assert_eq!(
        bodies[5]["shapes"][1]["position"],
        serde_json::json!([3.0, 0.0, 0.0])
    );
    // Meshes carry their surfaces: every face refers to a vertex that exists.
    let cap = &bodies[6]["shapes"][0];
    let vertices = cap["vertices"].as_array().unwrap().len() as u64;
    assert!(vertices > 8);
    for face in cap["faces"].as_array().unwrap() {
        let face = face.as_array().unwrap();
        assert!(face.len() >= 3);
        assert!(face.iter().all(|i| i.as_u64().unwrap() < vertices));
    }
    // No collisions exist yet: the events file is its header alone.
    assert_eq!(
        std::fs::read_to_string(out.join("events.csv")).unwrap(),
        "t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jx,jy,jz\n"
    );
}

#[test]
fn view_writes_one_self_contained_page() {
    let out = run("scenes/free/kinematic.toml", "view", &["--duration", "0.5"]);
    let stdout = text(&succeeds(&["view", path(&out)]).stdout);
    assert!(stdout.contains("view.html"), "{stdout}");
    let page = std::fs::read_to_string(out.join("view.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Nothing is fetched: no external scripts, styles or images.
    for outside in ["<script src", "<link", "<img", "import "] {
        assert!(!page.contains(outside), "the page contains `{outside}`");
    }
    assert!(page.contains("window.impulseViewer"));
    assert!(page.contains("\"scene\":\"prescribed motion\""));
    // three.js itself is inside (its revision string).
    assert!(page.contains("\"187\""));
    // The same run gives the same page, byte for byte.
    let again = scratch("view_again.html");
    succeeds(&["view", path(&out), "--out", path(&again)]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), page);
}

#[test]
fn view_serves_the_page_on_localhost() {
    let out = run(
        "scenes/free/kinematic.toml",
        "serve",
        &["--duration", "0.2"],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args(["view", path(&out), "--serve", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let address = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("serving http://")
                .and_then(|rest| rest.split('/').next())
                .map(str::to_string)
        })
        .expect("the server announces its address");
    let get = |target: &str| {
        let mut stream = TcpStream::connect(&address).unwrap();
        write!(stream, "GET {target} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    };
    let page = get("/");
    let missing = get("/missing.js");
    let _ = child.kill();
    let _ = child.wait();
    let file = std::fs::read_to_string(out.join("view.html")).unwrap();
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{}", &page[..40]);
    assert!(page.ends_with(&file), "the served page is the written one");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
}

#[test]
fn a_slow_client_does_not_hold_the_viewer_server() {
    // One client sending a byte every few seconds held the single-threaded server (issue 42);
    // a request line of any length was read; any Host was answered (DNS rebinding).
    let out = run(
        "scenes/free/kinematic.toml",
        "serve_slow",
        &["--duration", "0.2"],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args(["view", path(&out), "--serve", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let address = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("serving http://")
                .and_then(|rest| rest.split('/').next())
                .map(str::to_string)
        })
        .expect("the server announces its address");
    let mut slow = TcpStream::connect(&address).unwrap();
    slow.write_all(b"G").unwrap();
    let ask = |request: String| {
        let mut stream = TcpStream::connect(&address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response
    };
    let started = std::time::Instant::now();
    let page = ask(format!("GET / HTTP/1.1\r\nHost: {address}\r\n\r\n"));
    let waited = started.elapsed();
    let rebound = ask("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_string());
    let long = ask(format!("GET /{} HTTP/1.1\r\n", "a".repeat(17 * 1024)));
    let _ = child.kill();
    let _ = child.wait();
    drop(slow);
    assert!(
        page.starts_with("HTTP/1.1 200 OK\r\n"),
        "{}",
        &page[..page.len().min(40)]
    );
    assert!(waited.as_secs_f64() < 2.0, "served after {waited:?}");
    assert!(rebound.starts_with("HTTP/1.1 421"), "{rebound}");
    assert!(
        long.starts_with("HTTP/1.1 431"),
        "{}",
        &long[..long.len().min(40)]
    );
}

/// Background of rendered pictures.
const BACKGROUND: [u8; 3] = [42, 47, 55];

/// Renders run `dir` at time `t` to `dir/name`, 200 × 200 pixels, seen from −y (azimuth −90°,
/// elevation 0: x to the right, z up), framing the whole run (the viewer page's camera), and
/// returns the picture's size and pixels.
fn side_view(dir: &Path, t: &str, name: &str) -> (u32, u32, Vec<u8>) {
    let file = dir.join(name);
    succeeds(&[
        "render",
        path(dir),
        "--frame",
        "run",
        "--time",
        t,
        "--azimuth=-90",
        "--elevation",
        "0",
        "--width",
        "200",
        "--height",
        "200",
        "--out",
        path(&file),
    ]);
    pixels(&file)
}

#[test]
fn render_puts_the_body_where_the_projection_says() {
    let out = run(
        "crates/impulse-cli/tests/data/moving_ball.toml",
        "render",
        &[],
    );
    // Where the ball must appear. The camera (see `impulse render --help` and render.rs) looks
    // at the centre of the box the ball sweeps, x ∈ [−1.25, 1.25], y, z ∈ [−0.25, 0.25], whose
    // half-diagonal is R = √(1.25² + 2 · 0.25²); from azimuth −90°, elevation 0 it sits on the −y
    // axis at d = R / sin 17.5° (a square picture with a 35° field of view), looking along +y
    // with x to the right. A point at x, depth d lands at pixel column
    // (1 + x / (d tan 17.5°)) · 100 in a 200-pixel picture, on the middle row.
    let r = (1.25f64 * 1.25 + 2.0 * 0.25 * 0.25).sqrt();
    let half = 17.5f64.to_radians();
    let d = r / half.sin();
    let column = |x: f64| (1.0 + x / (d * half.tan())) * 100.0;
    // The ball's radius 0.25 spans 0.25 / (d tan 17.5°) · 100 ≈ 18 pixels.
    let radius = 0.25 / (d * half.tan()) * 100.0;
    assert!((column(1.0) - 173.4).abs() < 0.1 && (radius - 18.3).abs() < 0.1);
    for (t, x) in [("0", -1.0), ("0.5", 0.0), ("1", 1.0)] {
        let (w, h, rgb) = side_view(&out, t, &format!("ball_{t}.png"));
        assert_eq!((w, h), (200, 200));
        let at = |x: f64, y: f64| {
            let i = (y as usize * 200 + x as usize) * 3;
            [rgb[i], rgb[i + 1], rgb[i + 2]]
        };
        let ball = |x: f64, y: f64| {
            let p = at(x, y);
            // The first moving body's blue (78, 121, 167), lit or in shade (× 0.35 … 1.1),
            // against the background's grey (42, 47, 55).
            p != BACKGROUND && i32::from(p[2]) > i32::from(p[0]) + 20
        };
        let (cx, cy) = (column(x), 100.0);
        // Inside the disc (two thirds of the radius) the ball; beyond 1.4 radii the background.
        for (dx, dy) in [
            (0.0, 0.0),
            (12.0, 0.0),
            (-12.0, 0.0),
            (0.0, 12.0),
            (0.0, -12.0),
        ] {
            assert!(
                ball(cx + dx, cy + dy),
                "t = {t}: no ball at ({cx} + {dx}, {cy} + {dy})"
            );
        }
        for (dx, dy) in [(26.0, 0.0), (-26.0, 0.0), (0.0, 26.0), (0.0, -26.0)] {
            assert_eq!(
                at(cx + dx, cy + dy),
                BACKGROUND,
                "t = {t}: something at ({cx} + {dx}, {cy} + {dy})"
            );
        }
    }
}

#[test]
fn render_frames_the_moving_bodies_not_the_fixed_surroundings() {
    // The same gliding ball, alone and with a 20 × 20 × 2 block fixed 50 units below it. Framed
    // on everything, the block would pull the camera's centre 26 units down and put the ball
    // out of the picture; framed on what moves, the block lies outside the field of view (the
    // picture spans ±1.4 units at the ball's depth) and the two pictures are the same.
    let alone = run(
        "crates/impulse-cli/tests/data/moving_ball.toml",
        "framing_alone",
        &[],
    );
    let above = run(
        "crates/impulse-cli/tests/data/moving_ball_above_block.toml",
        "framing_above_block",
        &[],
    );
    let (with_block, without) = (
        side_view(&above, "0.5", "side.png"),
        side_view(&alone, "0.5", "side.png"),
    );
    assert_eq!(with_block.0, 200);
    assert!(with_block == without, "the fixed block moved the camera");
    // A run in which nothing bounded moves is framed on its fixed bodies: the block fills the
    // middle of a top view.
    let still = scratch("framing_still");
    std::fs::create_dir_all(&still).unwrap();
    let scene = still.join("block.toml");
    std::fs::write(
        &scene,
        "[world]\nduration = 0.1\n\n[[bodies]]\nname = \"block\"\nmotion = \"fixed\"\n\
         shape = { type = \"box\", size = [20, 20, 2] }\nposition = [0, 0, -50]\n",
    )
    .unwrap();
    let out = run(path(&scene), "framing_still_run", &[]);
    let file = out.join("top.png");
    succeeds(&[
        "render",
        path(&out),
        "--elevation",
        "90",
        "--width",
        "100",
        "--height",
        "100",
        "--out",
        path(&file),
    ]);
    let (_, _, rgb) = pixels(&file);
    let middle = (50 * 100 + 50) * 3;
    assert_ne!(
        &rgb[middle..middle + 3],
        &BACKGROUND,
        "no block in the middle"
    );
}

#[test]
fn render_is_deterministic_and_sheets_tile_frames() {
    let out = run(
        "scenes/free/dzhanibekov.toml",
        "sheet",
        &["--duration", "2"],
    );
    let [a, b] = ["a.png", "b.png"].map(|name| out.join(name));
    for file in [&a, &b] {
        succeeds(&["render", path(&out), "--time", "1.5", "--out", path(file)]);
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (w, h, _) = pixels(&a);
    assert_eq!((w, h), (960, 540));
    // Four frames of 100 × 80, two to a row, with 4-pixel gaps.
    let sheet = out.join("sheet.png");
    succeeds(&[
        "render",
        path(&out),
        "--sheet",
        "4",
        "--columns",
        "2",
        "--width",
        "100",
        "--height",
        "80",
        "--out",
        path(&sheet),
    ]);
    let (w, h, _) = pixels(&sheet);
    assert_eq!((w, h), (204, 164));
    // Without --out: DIR/frame.png (the end of the run) and DIR/sheet.png.
    succeeds(&["render", path(&out), "--width", "64", "--height", "48"]);
    assert_eq!(pixels(&out.join("frame.png")).0, 64);
}

#[test]
fn render_rejects_bad_options_clearly() {
    let out = run(
        "crates/impulse-cli/tests/data/moving_ball.toml",
        "render_bad",
        &[],
    );
    for (args, message) in [
        (
            vec!["--time", "2"],
            "--time 2 is outside the recording, which runs from t = 0 to 1",
        ),
        (vec!["--time", "-1"], "outside the recording"),
        (vec!["--width", "5"], "--width must be from 16 to 8192"),
        (vec!["--sheet", "0"], "--sheet must be from 1 to 100"),
        // It attempted a 20 GB allocation (issue 42).
        (
            vec![
                "--sheet",
                "100",
                "--columns",
                "100",
                "--width",
                "8192",
                "--height",
                "8192",
            ],
            "would be 819596 × 8192 pixels, more than the 67108864 (8192²) a picture may have",
        ),
        (
            vec!["--sheet", "4", "--width", "8192", "--height", "8192"],
            "would be 16388 × 16388 pixels",
        ),
        (vec!["--zoom", "0"], "--zoom must be a positive number"),
        (
            vec!["--elevation", "95"],
            "--elevation must be from -90 to 90",
        ),
    ] {
        let mut all = vec!["render", path(&out)];
        all.extend(args);
        let result = impulse(&all);
        assert_eq!(result.status.code(), Some(1), "{all:?}");
        let stderr = text(&result.stderr);
        assert!(stderr.contains(message), "{all:?}: {stderr}");
    }
}

#[test]
fn plot_energy_agrees_with_the_engine() {
    let out = run("scenes/free/tossed_parts.toml", "plot", &[]);
    succeeds(&["plot", path(&out)]);
    let plots = out.join("plots");
    for name in ["energy", "collisions", "speed"] {
        let svg = std::fs::read_to_string(plots.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}.svg");
        let (w, h, _) = pixels(&plots.join(format!("{name}.png")));
        assert_eq!((w, h), (800, 480));
    }
    // The recomputed energies (from the trajectory and shapes.json) against the engine's own
    // (summary.json): the same quantity by two routes, to rounding.
    let csv = std::fs::read_to_string(plots.join("energy.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("t,kinetic,potential,total"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 101);
    let energy = &json(&out.join("summary.json"))["energy"];
    let close = |a: f64, b: f64| ((a - b) / b).abs() < 1e-12;
    let (first, last) = (&rows[0], &rows[100]);
    assert!(close(first[3], energy["initial"].as_f64().unwrap()));
    assert!(close(last[3], energy["final"].as_f64().unwrap()));
    assert!(close(first[1], energy["initial_kinetic"].as_f64().unwrap()));
    assert!(close(last[1], energy["final_kinetic"].as_f64().unwrap()));
    // Free flight: the total stays put to the integrator's tolerance at every frame.
    for row in &rows {
        assert!(close(row[3], first[3]) || ((row[3] - first[3]) / first[3]).abs() < 1e-9);
    }
    // No events today: the rate plot says so rather than showing an empty frame.
    let rates = std::fs::read_to_string(plots.join("collisions.svg")).unwrap();
    assert!(rates.contains("no collisions or microcollisions were recorded"));
    let speeds = std::fs::read_to_string(plots.join("speed.svg")).unwrap();
    assert!(speeds.contains("weighted disc") && !speeds.contains(">floor<"));
}

/// A fresh copy of a good run directory, to break.
fn copy_of(good: &Path, name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(good).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    dir
}

fn edit(file: &Path, change: impl FnOnce(String) -> String) {
    let contents = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, change(contents)).unwrap();
}

#[test]
fn bad_run_directories_get_clear_errors_from_every_command() {
    let good = run(
        "scenes/free/tossed_parts.toml",
        "good",
        &["--duration", "0.1"],
    );
    type Break = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Break, &str)> = vec![
        (
            "missing",
            Box::new(|dir| std::fs::remove_dir_all(dir).unwrap()),
            "no such run directory",
        ),
        (
            "no_shapes",
            Box::new(|dir| std::fs::remove_file(dir.join("shapes.json")).unwrap()),
            "shapes.json: missing",
        ),
        (
            "no_summary",
            Box::new(|dir| std::fs::remove_file(dir.join("summary.json")).unwrap()),
            "summary.json: missing (`impulse run` writes it when the run ends",
        ),
        (
            "newer_format",
            Box::new(|dir| {
                edit(&dir.join("shapes.json"), |s| {
                    s.replace("\"format_version\":1", "\"format_version\":2")
                })
            }),
            "format_version 2, but this impulse reads version 1",
        ),
        (
            "truncated_shapes",
            Box::new(|dir| edit(&dir.join("shapes.json"), |s| s[..s.len() / 2].to_string())),
            "shapes.json: not valid JSON",
        ),
        (
            "cut_mid_line",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    s[..s.len() - 10].to_string()
                })
            }),
            "trajectory.csv: the last line is incomplete (no line break): the file is truncated",
        ),
        (
            "cut_mid_frame",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    let lines: Vec<&str> = s.lines().collect();
                    lines[..lines.len() - 4].join("\n") + "\n"
                })
            }),
            "the last frame (t = 0.1) has 5 of 9 bodies: the file is truncated",
        ),
        (
            "cut_frames",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    let lines: Vec<&str> = s.lines().collect();
                    lines[..lines.len() - 9].join("\n") + "\n"
                })
            }),
            "the trajectory ends at t = 0.09, but summary.json says the run reached t = 0.1",
        ),
        (
            "empty_run",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    s.lines().next().unwrap().to_string() + "\n"
                })
            }),
            "trajectory.csv: no frames (only the header): the run recorded nothing",
        ),
        (
            "empty_file",
            Box::new(|dir| std::fs::write(dir.join("trajectory.csv"), "").unwrap()),
            "trajectory.csv: empty (not even a header)",
        ),
        (
            "old_trajectory",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    s.replacen("t,body,", "time,body,", 1)
                })
            }),
            "trajectory.csv: the header is `time,body,x",
        ),
        (
            "bad_asleep_flag",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
                    let end = lines[3].len();
                    lines[3].replace_range(end - 2.., ",yes");
                    lines.join("\n") + "\n"
                })
            }),
            "trajectory.csv:4: asleep is `yes`, expected 0 or 1",
        ),
        (
            "foreign_bodies",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    s.replace(",egg,", ",spoon,")
                })
            }),
            "trajectory.csv:5: body `spoon`, expected `egg`",
        ),
        (
            "bad_number",
            Box::new(|dir| {
                edit(&dir.join("trajectory.csv"), |s| {
                    s.replacen(",ball,0.0,", ",ball,zero,", 1)
                })
            }),
            "trajectory.csv:3: `zero` is not a finite number",
        ),
        (
            "bad_events",
            Box::new(|dir| {
                edit(&dir.join("events.csv"), |s| {
                    s + "0.05,collision,ball,nobody,0,0,0,0,0,1,0,0,1\n"
                })
            }),
            "events.csv:2: no body named `nobody` in shapes.json",
        ),
        (
            "bad_event_kind",
            Box::new(|dir| {
                edit(&dir.join("events.csv"), |s| {
                    s + "0.05,bump,ball,floor,0,0,0,0,0,1,0,0,1\n"
                })
            }),
            "events.csv:2: kind `bump`, expected `collision` or `microcollision`",
        ),
    ];
    for (name, break_it, message) in cases {
        let dir = copy_of(&good, name);
        break_it(&dir);
        for command in ["view", "render", "plot"] {
            let result = impulse(&[command, path(&dir)]);
            let stderr = text(&result.stderr);
            assert_eq!(result.status.code(), Some(1), "{command} {name}: {stderr}");
            assert!(
                stderr.contains(message) && stderr.contains(name),
                "{command} {name}: expected `{message}` naming the directory, got: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
        // Nothing was written from a bad recording.
        assert!(!dir.join("view.html").exists() && !dir.join("plots").exists());
    }
}

#[test]
fn a_run_without_events_csv_is_still_shown() {
    let good = run(
        "scenes/free/tossed_parts.toml",
        "events_source",
        &["--duration", "0.1"],
    );
    let dir = copy_of(&good, "no_events");
    std::fs::remove_file(dir.join("events.csv")).unwrap();
    succeeds(&["view", path(&dir)]);
    let page = std::fs::read_to_string(dir.join("view.html")).unwrap();
    assert!(page.contains("\"events\":null"));
    succeeds(&["plot", path(&dir)]);
    let rates = std::fs::read_to_string(dir.join("plots/collisions.svg")).unwrap();
    assert!(rates.contains("This run has no events.csv"));
}

#[test]
fn a_run_too_far_out_to_frame_is_refused() {
    // runaway.toml overflows f64 positions; its recording reaches ~1.7e308.
    let out = scratch("runaway");
    let result = impulse(&[
        "run",
        "crates/impulse-cli/tests/data/runaway.toml",
        "--out",
        path(&out),
        "--quiet",
    ]);
    assert_eq!(result.status.code(), Some(1));
    for command in ["view", "render"] {
        let result = impulse(&[command, path(&out)]);
        assert_eq!(result.status.code(), Some(1));
        let stderr = text(&result.stderr);
        assert!(stderr.contains("too far to draw"), "{command}: {stderr}");
    }
}

/// Sleeping bodies are drawn pale in rendered frames, as on the viewer page: the block drop's
/// blocks fall asleep together at about 0.73 s (the trajectory's `asleep` column turns to 1),
/// and a frame just after draws them paler (every channel at least as bright) than one just
/// before, where they lie in the same place.
#[test]
fn render_draws_sleeping_bodies_pale() {
    let out = run(
        "scenes/impulse/block_drop.toml",
        "sleeping",
        &["--duration", "1"],
    );
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert!(trajectory.starts_with("t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,asleep\n"));
    let asleep_from: f64 = trajectory
        .lines()
        .skip(1)
        .find(|row| row.ends_with(",1"))
        .and_then(|row| row.split(',').next())
        .and_then(|t| t.parse().ok())
        .expect("the blocks fall asleep within 1 s");
    assert!(
        (0.5..0.9).contains(&asleep_from),
        "asleep from {asleep_from}"
    );
    // Once asleep, a block stays asleep to the end and its velocities are exactly zero.
    let after: Vec<&str> = trajectory
        .lines()
        .skip(1)
        .filter(|row| row.contains("block,"))
        .filter(|row| row.split(',').next().unwrap().parse::<f64>().unwrap() >= asleep_from)
        .collect();
    assert!(after.len() >= 2 * 10, "{} rows", after.len());
    for row in &after {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields[15], "1", "{row}");
        assert!(
            fields[9..15]
                .iter()
                .all(|v| v.parse::<f64>().unwrap() == 0.0),
            "{row}"
        );
    }
    let frame = |t: f64, name: &str| {
        let file = out.join(name);
        succeeds(&[
            "render",
            path(&out),
            "--time",
            &t.to_string(),
            "--frame",
            "run",
            "--zoom",
            "2.5",
            "--out",
            path(&file),
        ]);
        pixels(&file).2
    };
    let awake = frame(asleep_from - 0.05, "awake.png");
    let asleep = frame(asleep_from + 0.05, "asleep.png");
    let (mut changed, mut darker) = (0, 0);
    for (a, b) in awake.chunks(3).zip(asleep.chunks(3)) {
        if a != b {
            changed += 1;
            if a.iter().zip(b).any(|(x, y)| y < x) {
                darker += 1;
            }
        }
    }
    assert!(changed > 5000, "only {changed} pixels changed");
    // A few pixels at the blocks' edges may shift with the last 0.05 s of settling.
    assert!(
        darker * 50 < changed,
        "{darker} of {changed} changed pixels got darker"
    );
}

/// Issue 41, item 8: `render` framed the region the bodies sweep over the whole run, so a body
/// that ends up far away (the see-saw's marbles roll 7 m) made every picture a checkerboard with
/// a speck. Two balls of radius 0.25 side by side, one flying off at 50 units a second: at t = 0
/// the default picture frames the two where they are (they fill a tenth of it and more), the
/// whole run's framing (`--frame run`, 50 units wide) leaves them a speck; `--follow` keeps the
/// flier in the middle at t = 1, and `--center` looks at a given point.
#[test]
fn render_frames_the_bodies_where_they_are_at_the_time_drawn() {
    let dir = scratch("framing_now");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("parting.toml");
    std::fs::write(
        &scene,
        "[world]\ngravity = [0, 0, 0]\nduration = 1\noutput_rate = 10\n\
         [[bodies]]\nname = \"stay\"\nshape = { type = \"sphere\", radius = 0.25 }\ndensity = 1000\n\
         [[bodies]]\nname = \"away\"\nshape = { type = \"sphere\", radius = 0.25 }\ndensity = 1000\n\
         position = [0.6, 0, 0]\nvelocity = [50, 0, 0]\n",
    )
    .unwrap();
    let out = run(path(&scene), "framing_now_run", &[]);
    let picture = |name: &str, extra: &[&str]| {
        let file = out.join(name);
        let mut args = vec![
            "render",
            path(&out),
            "--azimuth=-90",
            "--elevation",
            "0",
            "--width",
            "200",
            "--height",
            "200",
            "--out",
            path(&file),
        ];
        args.extend_from_slice(extra);
        succeeds(&args);
        pixels(&file).2
    };
    let covered =
        |rgb: &[u8]| rgb.chunks(3).filter(|p| *p != BACKGROUND).count() as f64 / (200.0 * 200.0);
    let now = covered(&picture("now.png", &["--time", "0"]));
    let run_wide = covered(&picture("run.png", &["--time", "0", "--frame", "run"]));
    assert!(now > 0.1, "framed now, the balls cover {now}");
    assert!(
        run_wide < 0.01,
        "framed on the run, the balls cover {run_wide}"
    );
    // The middle pixel: the first moving body is blue (78, 121, 167), the second orange
    // (242, 142, 43), lit or in shade.
    let middle = |rgb: &[u8]| {
        let i = (100 * 200 + 100) * 3;
        [rgb[i], rgb[i + 1], rgb[i + 2]]
    };
    let followed = middle(&picture("follow.png", &["--time", "1", "--follow", "away"]));
    assert!(
        followed != BACKGROUND && i32::from(followed[0]) > i32::from(followed[2]) + 20,
        "not the orange flier in the middle: {followed:?}"
    );
    let centred = middle(&picture(
        "center.png",
        &["--time", "1", "--center", "0,0,0", "--zoom", "20"],
    ));
    assert!(
        centred != BACKGROUND && i32::from(centred[2]) > i32::from(centred[0]) + 20,
        "not the blue ball in the middle: {centred:?}"
    );
    // A body that is not there, and a point that is not one, are clear errors.
    let missing = impulse(&["render", path(&out), "--follow", "nobody"]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = text(&missing.stderr);
    assert!(
        stderr.contains("--follow nobody") && stderr.contains("stay, away"),
        "{stderr}"
    );
    let bad = impulse(&["render", path(&out), "--center", "1,2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("three numbers"),
        "{}",
        text(&bad.stderr)
    );
}
