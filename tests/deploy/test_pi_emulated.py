"""deploy/pi-emulated's own parts that run in seconds: its options, its scripts' hygiene, and the reduction
of `vision read` / `dice read` output that decides "same results on arm64 as on x86-64".

The full run (an arm64 root under qemu, tens of minutes, root and the network) is not a test: it is run
by hand before a release, and its summary line is recorded in deploy/README.md.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
SCRIPT = DEPLOY / "pi-emulated"


def load_data_module():
    spec = importlib.util.spec_from_file_location("pi_emulated_data", DEPLOY / "pi_emulated_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script", ["pi-emulated", "lock", "service-booted"])
def test_scripts_are_shellcheck_clean_and_strict(script: str) -> None:
    path = DEPLOY / script
    text = path.read_text()
    assert text.startswith("#!/usr/bin/env bash\n") and "set -Eeuo pipefail" in text
    assert path.stat().st_mode & 0o111
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (apt-get install shellcheck)")
    proc = subprocess.run([shellcheck, "--shell=bash", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_help_names_the_steps_and_options_and_the_cache_is_outside_the_repository() -> None:
    proc = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    for word in ("install", "offline", "check", "demo", "tests", "vision, dice", "--rebuild", "--skip-tests",
                 "--keep", "--cpu MODEL", "cortex-a72", "mmdebstrap qemu-user-static binfmt-support",
                 "/var/cache/pitboard-pi-emulated"):
        assert word in proc.stdout, word


def test_an_unknown_option_is_named_before_anything_is_done() -> None:
    proc = subprocess.run(["bash", str(SCRIPT), "--fast"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "unknown option '--fast'" in proc.stderr


def test_the_options_reach_the_snapshots_run(tmp_path: Path) -> None:
    """The script runs again from a snapshot of the checkout; its options were shifted away before that run, so
    `--skip-tests` ran the tests all the same (found running it, 2026-12-04).  Here the snapshot's run says its
    options, then stops where mmdebstrap is looked for (a PATH without it)."""
    import os

    if os.geteuid() != 0:
        pytest.skip("the script needs root before it takes its snapshot")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "tar", "mktemp", "rm", "date", "dirname", "id", "env"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    proc = subprocess.run(["bash", str(SCRIPT), "--skip-tests", "--keep"], capture_output=True, text=True,
                          timeout=120, env={"PATH": str(bin_dir), "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "options: rebuild=0 skip-tests=1 keep=1 cpu=cortex-a72" in proc.stdout, proc.stdout
    assert "mmdebstrap is missing" in proc.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("pitboard-pi-emulated.")]  # snapshot removed


def fake_qemu_path(tmp_path: Path) -> Path:
    """A PATH of the tools the script needs before mmdebstrap, and a qemu-aarch64-static that lists qemu 7.2's
    models as the real one does (``-cpu help``)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "tar", "mktemp", "rm", "date", "dirname", "id", "env", "tr", "grep", "tail"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    # one model at a time, as a program writing line by line: a reader that stops at the model it wants
    # (grep -q) then closes the pipe before the list ends (under pipefail that failed the real qemu's check)
    qemu = bin_dir / "qemu-aarch64-static"
    qemu.write_text("#!/bin/bash\necho 'Available CPUs:'\n"
                    "for m in a64fx cortex-a53 cortex-a72 cortex-a76 max; do echo \"  $m\"; read -rt 0.1 <> <(:); done\n")
    qemu.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("cpu", ["cortex-a76", "max"])
def test_another_cpu_known_to_qemu_is_taken(tmp_path: Path, cpu: str) -> None:
    """qemu-user's own default CPU is "max", which runs code a Pi 4's Cortex-A72 would stop at with an illegal
    instruction: the emulated Pi is a Pi 4 unless --cpu names another model, which reaches the snapshot's run."""
    import os

    if os.geteuid() != 0:
        pytest.skip("the script needs root before it takes its snapshot")
    proc = subprocess.run(["bash", str(SCRIPT), "--cpu", cpu], capture_output=True, text=True, timeout=120,
                          env={"PATH": str(fake_qemu_path(tmp_path)), "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"cpu={cpu}" in proc.stdout and "mmdebstrap is missing" in proc.stderr


def test_a_cpu_qemu_does_not_know_is_refused_naming_its_models(tmp_path: Path) -> None:
    import os

    if os.geteuid() != 0:
        pytest.skip("the script needs root before it checks the CPU")
    proc = subprocess.run(["bash", str(SCRIPT), "--cpu", "cortex-a7"], capture_output=True, text=True, timeout=120,
                          env={"PATH": str(fake_qemu_path(tmp_path)), "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "qemu does not know the CPU 'cortex-a7'" in proc.stderr
    assert "cortex-a72 cortex-a76 max" in proc.stderr and "(cortex-a72 is a Pi 4's)" in proc.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("pitboard-pi-emulated.")]  # no snapshot taken
    proc = subprocess.run(["bash", str(SCRIPT), "--cpu"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--cpu needs a model" in proc.stderr


def test_documented_with_its_last_result() -> None:
    readme = (DEPLOY / "README.md").read_text()
    assert "deploy/pi-emulated" in readme
    assert "RESULT_PLACEHOLDER" not in readme
    assert "pi-emulated (bookworm arm64 under qemu" in readme  # the summary line of a real run


VISION = {"image": "/x/table_2.png", "seconds": 0.41, "cars": [
    {"id": "car2", "x_mm": 520.1234, "y_mm": 260.2, "heading": 0.3}, {"id": "car1", "x_mm": 250.0}],
    "templates": [{"name": "hairpin", "hand": "left", "attached_to": "car2", "edge": "front", "x_mm": 3.3}],
    "tokens": {"p1": 3, "p2": 1}}
DICE = {"image": "/y/tray_0.png", "seconds": 2.5, "dice": [{"value": 4, "x": 10.2}, {"value": 2, "x": 50.9}]}


def summarise(tmp_path: Path, rows: list[dict]) -> list[dict]:
    data = load_data_module()
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "not json: a log line\n")
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert data.summary(path) == 0
    return json.loads(buf.getvalue())


def test_summary_keeps_what_must_be_equal_and_drops_timings_and_positions(tmp_path: Path) -> None:
    here = summarise(tmp_path, [VISION, DICE])
    moved = json.loads(json.dumps([VISION, DICE]))
    moved[0]["seconds"], moved[0]["cars"][0]["x_mm"], moved[1]["dice"][0]["x"] = 9.9, 521.0, 11.0
    moved[0]["image"], moved[1]["image"] = "/other/table_2.png", "/other/tray_0.png"  # another machine's folder
    assert summarise(tmp_path, moved) == here
    assert here == [
        {"image": "table_2.png", "cars": ["car1", "car2"], "templates": ["hairpin/left/car2/front"],
         "tokens": {"p1": 3, "p2": 1}},
        {"image": "tray_0.png", "dice": ["2", "4"]},
    ]


@pytest.mark.parametrize("change", ["die", "token", "template", "car"])
def test_summary_differs_when_a_result_differs(tmp_path: Path, change: str) -> None:
    other = json.loads(json.dumps([VISION, DICE]))
    if change == "die":
        other[1]["dice"][0]["value"] = 5
    elif change == "token":
        other[0]["tokens"]["p1"] = 2
    elif change == "template":
        other[0]["templates"][0]["hand"] = "right"
    else:
        other[0]["cars"].pop()
    assert summarise(tmp_path, other) != summarise(tmp_path, [VISION, DICE])


def test_real_photos_are_from_the_dev_split_only_and_spread_over_it(tmp_path: Path) -> None:
    """The emulated Pi reads 24 real photos beside the rendered trays; the held-out fold is never one of them."""
    from vision.dice.scoring import is_held_out

    data = load_data_module()
    images = tmp_path / "images"
    images.mkdir()
    names = [f"photo_{k}.jpg" for k in range(200)] + ["notes.txt"]
    for name in names:
        (images / name).write_bytes(b"")
    picked = data.real_photos(tmp_path)
    dev = sorted(n for n in names if n.endswith(".jpg") and not is_held_out(n))
    assert len(picked) == data.REAL_PHOTOS == 24
    assert [p.name for p in picked] == sorted(p.name for p in picked)
    assert not [p for p in picked if is_held_out(p.name)]
    assert picked[0].name == dev[0] and picked[-1].name == dev[-1]  # spread from the first to the last
    assert len({p.name for p in picked}) == 24
    assert [p.name for p in data.real_photos(tmp_path, count=500)] == dev  # fewer than asked: all of them


def test_the_dice_step_reads_the_real_photos_too() -> None:
    """The first run with real photos read only the rendered trays: its glob was *.png and the photos are .jpg
    (found running it, 2026-12-06: "12 images, 32 dice" with 24 photos beside them)."""
    import fnmatch
    import re

    found = re.search(r'dice read --json "\$d"/dice/images/(\S+) ', SCRIPT.read_text())
    assert found is not None
    for name in ("real_matteo_dice_1.jpg", "real_nell_IMG_1.JPG", "tray_000.png"):
        assert fnmatch.fnmatch(name, found.group(1)), (name, found.group(1))
