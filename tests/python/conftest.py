import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def impulse_bin():
    """The `impulse` program: $IMPULSE_BIN, else built with the test profile (the build
    `cargo test --workspace` already made, so after it this is a no-op)."""
    if os.environ.get("IMPULSE_BIN"):
        return os.environ["IMPULSE_BIN"]
    subprocess.run(
        ["cargo", "build", "--quiet", "--profile", "test", "-p", "impulse-cli"],
        cwd=ROOT,
        check=True,
    )
    return str(ROOT / "target" / "debug" / "impulse")
