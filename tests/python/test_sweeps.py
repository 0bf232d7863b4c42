"""Sweeps (`impulse.sweep`, `impulse.sweep_poses`) on a process pool and on a local Ray
cluster: the gathered result must equal the same job in one process exactly (== on the
summaries and the trajectories' SHA-256, and the merged pose file's bytes), also when a
worker is killed mid-sweep and its task is run again."""

import os
from pathlib import Path

import pytest

import impulse

ROOT = Path(__file__).resolve().parents[2]
BLOCK_DROP = str(ROOT / "scenes" / "impulse" / "block_drop.toml")
TETRAHEDRON = str(ROOT / "meshes" / "tetrahedron.obj")

# 8 variants of the block drop: 2 gravities × 2 frictions × 2 drop heights.
GRID = {
    "world.gravity": [[0, 0, -981], [0, 0, -500]],
    "materials.wood.friction": [0.2, 0.6],
    "bodies.upper block.position": [[1, 0.5, 16], [1, 0.5, 12]],
}
RUN = dict(duration=0.3, fps=50.0)
POSE_JOB = dict(trials=16, burn_in=2, seed=7)


@pytest.fixture(scope="module")
def serial():
    """The reference: every variant run in this process, one after the other."""
    return impulse.sweep(base=BLOCK_DROP, grid=GRID, backend="serial", **RUN)


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_the_grid_has_eight_distinct_variants(serial):
    assert len(serial) == 8
    assert len({row["trajectory_sha256"] for row in serial}) == 8
    assert all(row["summary"]["status"] == "completed" for row in serial)
    # Each variant is the scene loaded with its overrides, run on its own.
    row = serial[5]
    world = impulse.load(BLOCK_DROP, row["overrides"])
    alone = world.run(RUN["duration"], RUN["fps"])["summary"]
    alone.pop("wall_time_s")
    assert alone == row["summary"]
    assert row["overrides"] == {"world.gravity": [0, 0, -500], "materials.wood.friction": 0.2,
                                "bodies.upper block.position": [1, 0.5, 12]}


def strip(rows):
    return [{k: v for k, v in row.items() if k != "wall_time_s"} for row in rows]


def test_local_pool_equals_one_process(serial):
    local = impulse.sweep(base=BLOCK_DROP, grid=GRID, backend="local", workers=2, **RUN)
    assert strip(local) == strip(serial)


def test_ray_equals_one_process(serial, ray_cluster):
    on_ray = impulse.sweep(base=BLOCK_DROP, grid=GRID, backend="ray", **RUN)
    assert strip(on_ray) == strip(serial)


def test_a_killed_ray_task_is_retried_with_the_same_result(serial, ray_cluster, tmp_path):
    marker = tmp_path / "killed"
    victim = serial[3]["name"]
    # The kill is armed in the workers' environment (Ray: the tasks' runtime_env).
    on_ray = impulse.sweep(
        base=BLOCK_DROP, grid=GRID, backend="ray", retries=2, **RUN,
        env={"IMPULSE_TEST_KILL_ONCE": f"{marker}:{victim}"},
    )
    assert marker.exists(), "the worker running the victim task was not killed"
    assert strip(on_ray) == strip(serial)


def test_a_killed_local_worker_is_retried_with_the_same_result(serial, tmp_path):
    marker = tmp_path / "killed"
    env = {"IMPULSE_TEST_KILL_ONCE": f"{marker}:{serial[6]['name']}"}
    local = impulse.sweep(base=BLOCK_DROP, grid=GRID, backend="local", workers=2, env=env, **RUN)
    assert marker.exists()
    assert strip(local) == strip(serial)


def test_a_task_killed_on_every_attempt_is_reported_by_name(serial, tmp_path):
    # retries=0: the one attempt dies, and the sweep fails naming the task.
    env = {"IMPULSE_TEST_KILL_ONCE": f"{tmp_path / 'k'}:{serial[1]['name']}"}
    with pytest.raises(impulse.SweepError) as error:
        impulse.sweep(base=BLOCK_DROP, grid=GRID, backend="local", workers=2, retries=0,
                      env=env, **RUN)
    assert serial[1]["name"] in error.value.failures
    assert "died" in error.value.failures[serial[1]["name"]]


def test_a_failing_scene_is_reported_by_name(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[world]\ngravty = 1\n")
    with pytest.raises(impulse.SweepError) as error:
        impulse.sweep([BLOCK_DROP, str(bad)], backend="serial", **RUN)
    assert list(error.value.failures) == [str(bad)]
    assert "unknown key `gravty`" in error.value.failures[str(bad)]
    assert list(error.value.completed) == [BLOCK_DROP]


def test_unknown_override_keys_are_refused_before_anything_runs():
    with pytest.raises(impulse.OverrideError, match="unknown override key `materials.steel.friction`"):
        impulse.sweep(base=BLOCK_DROP, grid={"materials.steel.friction": [0.2, 0.4]})


def test_a_sharded_pose_job_equals_one_process(ray_cluster):
    whole = impulse.poses(TETRAHEDRON, chains=4, threads=1, **POSE_JOB)
    local = impulse.sweep_poses(TETRAHEDRON, shards=4, backend="local", workers=2, **POSE_JOB)
    on_ray = impulse.sweep_poses(TETRAHEDRON, shards=4, backend="ray", **POSE_JOB)
    assert local["text"] == whole["text"]
    assert on_ray["text"] == whole["text"]
    assert sum(whole["counts"]) + whole["moving"] + whole["failed"] == POSE_JOB["trials"]


def test_the_command_line_sweep_writes_the_same_rows(impulse_bin, serial, tmp_path):
    """`impulse sweep SPEC.toml` (through `python3 -m impulse sweep`) gives the rows of
    `impulse.sweep` with the same grid."""
    import json
    import subprocess
    import sys

    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'base = "{BLOCK_DROP}"\nduration = {RUN["duration"]}\nfps = {RUN["fps"]}\n'
        "[grid]\n"
        '"world.gravity" = [[0, 0, -981], [0, 0, -500]]\n'
        '"materials.wood.friction" = [0.2, 0.6]\n'
        '"bodies.upper block.position" = [[1, 0.5, 16], [1, 0.5, 12]]\n'
    )
    out = tmp_path / "out"
    run = subprocess.run(
        [impulse_bin, "sweep", str(spec), "--backend", "serial", "--out", str(out), "--quiet"],
        capture_output=True, text=True, env={**os.environ, "IMPULSE_PYTHON": sys.executable},
    )
    assert run.returncode == 0, run.stderr
    rows = json.loads((out / "results.json").read_text())
    assert strip(rows) == strip(serial)
    table = (out / "table.csv").read_text().splitlines()
    assert len(table) == 1 + 8
    # A spec with an unknown key fails with a message naming it.
    spec.write_text(f'base = "{BLOCK_DROP}"\nbogus = 1\n')
    run = subprocess.run([impulse_bin, "sweep", str(spec)], capture_output=True, text=True,
                         env={**os.environ, "IMPULSE_PYTHON": sys.executable})
    assert run.returncode != 0
    assert "unknown key `bogus`" in run.stderr
