"""The Python package `impulse` (crates/impulse-py) against the `impulse` program.

The package runs the engine through the same library calls as `impulse run`, so its numbers
must be the program's, bit for bit: every test here that compares with the program asserts
exact equality (bytes, or float64 values read back from the shortest-round-trip CSV).
"""

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import impulse  # the package: pip install ./crates/impulse-py

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "scenes"

# Shipped scenes and how long to run them: free bodies, impulse contact with resting stacks,
# a multibody (link rows), a body name with a comma (quoted CSV field) is in tossed_parts.
PARITY = [
    ("impulse/block_drop.toml", 0.8, 100.0),
    ("free/dzhanibekov.toml", 2.0, 60.0),
    ("multibody/pendulum.toml", 1.0, 100.0),
    ("impulse/coins.toml", 0.5, 100.0),
]


def cli_run(impulse_bin, scene, out, duration, fps):
    run = subprocess.run(
        [impulse_bin, "run", str(scene), "--out", str(out), "--quiet",
         "--duration", repr(duration), "--fps", repr(fps)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    return (out / "trajectory.csv").read_bytes(), json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("scene,duration,fps", PARITY)
def test_run_gives_the_programs_trajectory_bytes(impulse_bin, tmp_path, scene, duration, fps):
    path = SCENES / scene
    cli_csv, cli_summary = cli_run(impulse_bin, path, tmp_path, duration, fps)
    result = impulse.load(str(path)).run(duration, fps, csv=True)
    # The same bytes as trajectory.csv.
    assert result["csv"] == cli_csv
    # The arrays are the file's numbers exactly (shortest round-trip text reads back exactly).
    rows = list(csv.DictReader(io.StringIO(cli_csv.decode())))
    for column in ["t", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]:
        expected = np.array([float(r[column]) for r in rows])
        assert np.array_equal(result[column], expected), column
    assert result["body"] == [r["body"] for r in rows]
    assert np.array_equal(result["asleep"], np.array([r["asleep"] == "1" for r in rows]))
    # By frame: (F, N, 3) and (F, N, 4), row-major as the file.
    frames, n = len(result["frames"]), len(result["names"])
    assert frames * n == len(rows)
    assert result["positions"].shape == (frames, n, 3)
    assert result["quaternions"].shape == (frames, n, 4)
    assert np.array_equal(result["positions"].reshape(-1, 3)[:, 0], result["x"])
    assert np.array_equal(result["quaternions"].reshape(-1, 4)[:, 3], result["qz"])
    # The summary is summary.json's, but for the wall time.
    summary = result["summary"]
    for s in (summary, cli_summary):
        s.pop("wall_time_s")
        s.pop("scene_file")
    assert summary == cli_summary


def test_step_and_advance_to_match_run(tmp_path):
    """Stepping to the frame times by hand gives the run's states (the run only samples)."""
    scene = str(SCENES / "impulse/block_drop.toml")
    result = impulse.load(scene).run(0.3, 100.0)
    world = impulse.load(scene)
    for k, t in enumerate(result["frames"]):
        world.advance_to(float(t))
        n = len(world.body_names)
        assert np.array_equal(world.positions, result["positions"][k, :n])
        assert np.array_equal(world.quaternions, result["quaternions"][k, :n])
        assert np.array_equal(world.velocities, result["velocities"][k, :n])
        assert np.array_equal(world.angular_velocities, result["angular_velocities"][k, :n])
    assert world.time == 0.3
    world.step(0.01)
    assert abs(world.time - 0.31) < 1e-15


def test_arrays_have_the_documented_shapes_and_dtypes():
    world = impulse.load(str(SCENES / "impulse/block_drop.toml"))
    n = len(world.body_names)
    assert n == 3
    for name, width in [("positions", 3), ("quaternions", 4), ("velocities", 3),
                        ("angular_velocities", 3)]:
        array = getattr(world, name)
        assert array.shape == (n, width), name
        assert array.dtype == np.float64, name
    assert world.asleep.shape == (n,) and world.asleep.dtype == np.bool_
    assert world.masses.shape == (n,)
    # Blocks of 10 × 10 × 5 cm and 8 × 8 × 4 cm at 0.7 g/cm³: 350 g and 179.2 g (scene
    # comment), to rounding.
    assert abs(world.masses[1] - 350.0) < 1e-9
    assert abs(world.masses[2] - 179.2) < 1e-9
    assert world.gravity.tolist() == [0.0, 0.0, -981.0]
    # Unit quaternions.
    assert np.allclose(np.linalg.norm(world.quaternions, axis=1), 1.0, atol=1e-15)
    result = world.run(0.1, 50.0)
    assert result["t"].dtype == np.float64 and result["asleep"].dtype == np.bool_
    assert result["frames"].tolist() == [0.0, 0.02, 0.04, 0.06, 0.08, 0.1]


def test_a_state_written_reads_back():
    world = impulse.load(str(SCENES / "impulse/block_drop.toml"))
    world.advance_to(0.05)
    p, q = world.positions, world.quaternions
    v, w = world.velocities, world.angular_velocities
    # Move the upper block (row 2) up 5 cm, turn it 90° about z, give it new velocities.
    p2, q2, v2, w2 = p.copy(), q.copy(), v.copy(), w.copy()
    p2[2] += [0.0, 0.0, 5.0]
    q2[2] = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]
    v2[2] = [1.0, -2.0, 3.0]
    w2[2] = [0.5, 0.25, -1.0]
    world.set_states(positions=p2, quaternions=q2, velocities=v2, angular_velocities=w2)
    # Read back: the model pose goes through the body frame and back, so equal to rounding
    # (1e-12 cm on 20 cm, 1e-15 on unit quaternions); velocities are stored as given.
    assert np.allclose(world.positions, p2, rtol=0, atol=1e-12)
    assert np.allclose(world.quaternions, q2, rtol=0, atol=1e-15)
    assert np.array_equal(world.velocities, v2)
    assert np.array_equal(world.angular_velocities, w2)
    # Untouched rows (the fixed table included) are left exactly as they were.
    assert np.array_equal(world.positions[:2], p[:2])
    # The block then flies from its new state: after 10 ms its centre-of-mass velocity is
    # v − g t along z (free flight: nothing is within reach).
    world.advance_to(0.06)
    assert np.allclose(world.velocities[2], [1.0, -2.0, 3.0 - 981.0 * 0.01], rtol=0, atol=1e-9)
    # One body by name.
    world.set_state("upper block", velocity=[0.0, 0.0, 0.0])
    assert np.array_equal(world.velocities[2], [0.0, 0.0, 0.0])


def test_bad_states_raise():
    world = impulse.load(str(SCENES / "impulse/block_drop.toml"))
    with pytest.raises(ValueError, match=r"shape \(3, 3\)"):
        world.set_states(positions=np.zeros((2, 3)))
    p = world.positions
    p[0, 2] += 1.0  # the fixed table
    with pytest.raises(ValueError, match="fixed or kinematic"):
        world.set_states(positions=p)
    with pytest.raises(ValueError, match="length 1"):
        world.set_state(1, quaternion=[2.0, 0.0, 0.0, 0.0])
    with pytest.raises(KeyError, match="no body named `nobody`"):
        world.set_state("nobody", velocity=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="dt must be a positive number"):
        world.step(-1.0)
    with pytest.raises(TypeError):
        world.set_states(positions="not an array")


def test_a_bad_scene_raises_the_programs_message(impulse_bin, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[world]\ngravty = 1\n[[bodies]]\nname = "b"\nshape = "sphere"\n')
    run = subprocess.run([impulse_bin, "run", str(bad), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert run.returncode != 0
    with pytest.raises(impulse.SceneError) as error:
        impulse.load(str(bad))
    message = str(error.value)
    assert "bad.toml:2:1: error: `world.gravty`: unknown key `gravty`; did you mean `gravity`?" in message
    # Every line of the exception is a line the program printed.
    for line in message.splitlines():
        assert line in run.stderr.splitlines(), line
    # The same scene as text names `<string>`.
    with pytest.raises(impulse.SceneError, match=r"<string>:2:1: error: `world.gravty`"):
        impulse.load(bad.read_text())
    with pytest.raises(impulse.SceneError, match="cannot read the scene file"):
        impulse.load(str(tmp_path / "missing.toml"))


def test_overrides_change_the_scene():
    scene = str(SCENES / "impulse/block_drop.toml")
    world = impulse.load(scene, {"world.gravity": [0, 0, -162], "bodies.upper block.position": [1, 0.5, 20]})
    assert world.gravity.tolist() == [0.0, 0.0, -162.0]
    assert world.positions[2].tolist() == [1.0, 0.5, 20.0]
    # numpy values are scene values too.
    world = impulse.load(scene, {"world.gravity": np.array([0.0, 0.0, -162.0]),
                                 "materials.wood.friction": np.float32(0.25),
                                 "world.output_rate": np.int64(50)})
    assert world.gravity.tolist() == [0.0, 0.0, -162.0]
    assert world.output_rate == 50.0
    with pytest.raises(TypeError, match="not a scene value"):
        impulse.load(scene, {"world.gravity": object()})
    # The overridden text keeps every other line where it was.
    text = impulse.apply_overrides(scene, {"materials.wood.friction": 0.2})
    original = Path(scene).read_text().splitlines()
    changed = text.splitlines()
    assert len(changed) == len(original)
    assert [i for i, (a, b) in enumerate(zip(original, changed)) if a != b] == [
        original.index("friction = 0.4")
    ]
    with pytest.raises(impulse.OverrideError, match=r"unknown override key `materials.steel.friction`: the scene's top level|`materials` has no `steel`"):
        impulse.load(scene, {"materials.steel.friction": 0.2})
    with pytest.raises(impulse.OverrideError, match=r"unknown override key `world.gravty`.*did you mean `gravity`"):
        impulse.load(scene, {"world.gravty": 1})
    with pytest.raises(impulse.OverrideError, match="no element named `middle block`"):
        impulse.load(scene, {"bodies.middle block.density": 1})


def test_counters_and_energy_are_the_summarys():
    scene = str(SCENES / "impulse/block_drop.toml")
    result = impulse.load(scene).run(0.4, 100.0)
    world = impulse.load(scene)
    world.advance_to(0.4)
    counters = world.counters()
    summary = result["summary"]
    for name, value in counters.items():
        assert summary["counters"][name] == value, name
    assert counters["collisions"] > 0
    energy = world.energy()
    assert energy["total"] == summary["energy"]["final"]
    assert energy["total"] == energy["kinetic"] + energy["potential"]


def test_mass_properties_of_a_mesh(impulse_bin):
    mesh = ROOT / "meshes" / "l_bracket.obj"
    props = impulse.mass_properties(str(mesh), density=2.0)
    cli = json.loads(subprocess.run([impulse_bin, "mass", str(mesh), "--density", "2", "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    for key in ["volume", "mass"]:
        assert props[key] == cli[key]
    for key in ["center_of_mass", "inertia", "principal_moments", "principal_axes"]:
        assert np.array_equal(props[key], np.array(cli[key])), key
    assert props["inertia"].shape == (3, 3)
    with pytest.raises(impulse.ImpulseError):
        impulse.mass_properties(str(ROOT / "meshes" / "missing.obj"))


def test_poses_is_the_programs_drops_json(impulse_bin, tmp_path):
    part = ROOT / "meshes" / "tetrahedron.obj"
    subprocess.run([impulse_bin, "poses", str(part), "--trials", "24", "--burn-in", "4",
                    "--out", str(tmp_path), "--no-pictures", "--quiet"],
                   capture_output=True, text=True, check=True)
    result = impulse.poses(str(part), trials=24, burn_in=4)
    assert result["text"] == (tmp_path / "drops.json").read_text()
    assert sum(result["counts"]) + result["moving"] + result["failed"] == 24
    probabilities = impulse.pose_probabilities(str(part))
    assert len(probabilities["quasi_static"]) == probabilities["faces"] == len(result["counts"])
    assert abs(sum(probabilities["quasi_static"]) - 1.0) < 1e-12


def test_poses_with_spin_is_the_programs_drops_json(impulse_bin, tmp_path):
    # `spin=` is `--spin`: every drop released at 15 rad/s about its own random axis, recorded
    # in the file; the same bytes as the program's.
    part = ROOT / "meshes" / "tetrahedron.obj"
    subprocess.run([impulse_bin, "poses", str(part), "--trials", "12", "--burn-in", "4",
                    "--spin", "15", "--out", str(tmp_path), "--no-pictures", "--quiet"],
                   capture_output=True, text=True, check=True)
    result = impulse.poses(str(part), trials=12, burn_in=4, spin=15.0)
    assert result["text"] == (tmp_path / "drops.json").read_text()
    assert result["job"]["spin"] == 15.0
    for drop in result["drops"]:
        assert abs(np.linalg.norm(drop["angular_velocity"]) - 15.0) < 1e-12
    with pytest.raises(ValueError, match="spin"):
        impulse.poses(str(part), trials=4, spin=-1.0)


def test_link_states_are_the_trajectorys_link_rows():
    scene = str(SCENES / "multibody/pendulum.toml")
    result = impulse.load(scene).run(0.5, 100.0)
    world = impulse.load(scene)
    world.advance_to(0.5)
    n, m = len(world.body_names), len(world.link_names)
    assert m >= 1 and result["names"][n:] == world.link_names
    assert world.link_positions.shape == (m, 3) and world.link_quaternions.shape == (m, 4)
    assert np.array_equal(world.link_positions, result["positions"][-1, n:])
    assert np.array_equal(world.link_quaternions, result["quaternions"][-1, n:])
    assert np.array_equal(world.link_velocities, result["velocities"][-1, n:])
    assert np.array_equal(world.link_angular_velocities, result["angular_velocities"][-1, n:])
    name = world.link_names[0].split("/")[0]
    # The joint coordinates are the summary's, joint after joint.
    joints = [mb for mb in result["summary"]["multibodies"] if mb["name"] == name][0]["joints"]
    q = [x for joint in joints for x in joint["position"]]
    v = [x for joint in joints for x in joint["velocity"]]
    assert world.joint_positions(name).tolist() == q
    assert world.joint_velocities(name).tolist() == v
    world.set_joint_velocities(name, np.zeros(len(v)))
    assert world.joint_velocities(name).tolist() == [0.0] * len(v)
    with pytest.raises(ValueError, match="one finite value per velocity coordinate"):
        world.set_joint_velocities(name, [0.0] * (len(v) + 1))
    with pytest.raises(KeyError, match="no multibody named"):
        world.joint_velocities("nothing")
