"""A Ray address nothing answers at: a prompt `impulse.RayUnreachableError` naming the address
and what to do, before anything runs — not `ray.init`'s minutes of retries.

Kept apart from test_sweeps.py: the probe is skipped when Ray is already initialised in the
process (the sweep then uses that cluster), which the sweep tests' fixture does.
"""

import importlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import impulse
sweep_module = importlib.import_module("impulse.sweep")

ROOT = Path(__file__).resolve().parents[2]
BLOCK_DROP = str(ROOT / "scenes" / "impulse" / "block_drop.toml")


def free_port():
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def no_ray_yet():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process")
    yield ray
    assert not ray.is_initialized(), "the probe let ray.init run"


def test_an_address_nothing_listens_at_raises_at_once(no_ray_yet):
    address = f"127.0.0.1:{free_port()}"
    started = time.perf_counter()
    with pytest.raises(impulse.RayUnreachableError) as error:
        impulse.sweep(base=BLOCK_DROP, variants=[{}], duration=0.05, backend="ray",
                      address=address)
    elapsed = time.perf_counter() - started
    # A refused connection fails at once (ray.init would retry it for minutes): well under
    # the probe's 5 s timeout.
    assert elapsed < 5.0, elapsed
    message = str(error.value)
    assert address in message and "the address argument" in message
    assert "ray start --head" in message and "backend='local'" in message
    assert error.value.address == address
    # Also a ConnectionError, for code that catches those.
    assert isinstance(error.value, ConnectionError)


def test_ray_address_from_the_environment_and_ray_client_addresses(no_ray_yet, monkeypatch):
    port = free_port()
    monkeypatch.setenv("RAY_ADDRESS", f"ray://127.0.0.1:{port}")
    started = time.perf_counter()
    with pytest.raises(impulse.RayUnreachableError, match="RAY_ADDRESS") as error:
        impulse.sweep_poses(str(ROOT / "meshes" / "tetrahedron.obj"), shards=2, trials=4,
                            backend="ray")
    assert time.perf_counter() - started < 5.0
    assert f"127.0.0.1:{port}" in str(error.value)


def test_a_host_that_does_not_answer_times_out_after_the_probe_timeout(no_ray_yet, monkeypatch):
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): never routed, so a connection either fails at once
    # (no route) or hangs until the probe's timeout, here 0.5 s.
    monkeypatch.setattr(sweep_module, "RAY_PROBE_TIMEOUT", 0.5)
    started = time.perf_counter()
    with pytest.raises(impulse.RayUnreachableError, match="192.0.2.1:6379"):
        impulse.sweep(base=BLOCK_DROP, variants=[{}], duration=0.05, backend="ray",
                      address="192.0.2.1")
    assert time.perf_counter() - started < 3.0


def test_a_bad_port_is_named():
    with pytest.raises(impulse.RayUnreachableError, match="no valid port"):
        sweep_module._probe_ray("localhost:sixty", "the address argument")


def test_the_sweep_command_reports_an_unreachable_address(tmp_path):
    pytest.importorskip("ray")
    address = f"127.0.0.1:{free_port()}"
    spec = tmp_path / "spec.toml"
    spec.write_text(f'base = "{BLOCK_DROP}"\nduration = 0.05\naddress = "{address}"\n'
                    '[grid]\n"materials.wood.friction" = [0.2]\n')
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "impulse", "sweep", str(spec), "--backend", "ray",
                          "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, env={**os.environ, "RAY_ADDRESS": ""})
    assert time.perf_counter() - started < 20.0
    assert run.returncode == 1, run.stderr
    assert f"cannot reach the Ray cluster at '{address}'" in run.stderr
    assert not (tmp_path / "out" / "results.json").exists()
