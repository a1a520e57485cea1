"""deploy/service-booted's own parts that run in seconds: its options and what it asks for before anything is built
(its hygiene, shellcheck and strict mode, with deploy/pi-emulated's in test_pi_emulated.py).

The full run (a Debian root booted with systemd-nspawn, a few minutes, root and the network) is not a test: it
is run by hand, and its summary line is recorded in deploy/README.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "service-booted"


def test_help_names_every_step_and_what_it_needs() -> None:
    proc = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    for word in ("install", "boot", "running", "web", "store", "dice", "stop", "resume", "--rebuild", "--keep",
                 "GPIOZERO_PIN_FACTORY=mock", "mmdebstrap systemd-container", "/var/cache/pitboard-service-booted"):
        assert word in proc.stdout, word


def test_an_unknown_option_is_named_before_anything_is_done() -> None:
    proc = subprocess.run(["bash", str(SCRIPT), "--fast"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "unknown option '--fast'" in proc.stderr


def test_what_is_missing_is_named_before_anything_is_built(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        proc = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2 and "needs root" in proc.stderr
        return
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "id", "sed"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    env = {"PATH": str(bin_dir), "PITBOARD_BOOTED_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == 2 and "mmdebstrap is missing: apt-get install mmdebstrap systemd-container" in proc.stderr
    (bin_dir / "mmdebstrap").symlink_to(bin_dir / "id")  # present, as far as `command -v` can tell
    proc = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == 2 and "systemd-nspawn is missing: apt-get install systemd-container" in proc.stderr
    assert not (tmp_path / "cache").exists()  # nothing made


def test_a_cache_inside_the_repository_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the script needs root before it looks at the cache")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "id", "sed"):
        (bin_dir / tool).symlink_to(shutil.which(tool))  # type: ignore[arg-type]
    for tool in ("mmdebstrap", "systemd-nspawn"):
        (bin_dir / tool).symlink_to(bin_dir / "id")
    env = {"PATH": str(bin_dir), "PITBOARD_BOOTED_CACHE": str(REPO / "cache")}
    proc = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == 2 and "is inside the repository" in proc.stderr
    assert not (REPO / "cache").exists()


def test_documented_with_its_last_result() -> None:
    readme = (REPO / "deploy" / "README.md").read_text()
    assert "deploy/service-booted" in readme
    assert "service-booted (bookworm " in readme  # the summary line of a real run
