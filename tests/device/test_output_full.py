"""The output of a command cannot be written (a backup export on a full SD card): a clear message, not a
traceback, and a failing exit status (a bad-input audit: ``pitboard log export --db ok.sqlite > /dev/full``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from device.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _a_game_log(tmp_path: Path) -> Path:
    """A Space Race log of one turn begun: a small export."""
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "begin_turn"}\n', encoding="utf-8")
    setup = tmp_path / "setup.toml"
    setup.write_text('edition = "deluxe"\n', encoding="utf-8")
    db = tmp_path / "g.sqlite"
    assert main(["play", "space_race", "--setup", str(setup), "--script", str(script), "--db", str(db)]) == 0
    return db


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_disk_under_the_output_is_told_without_a_traceback(tmp_path: Path) -> None:
    db = _a_game_log(tmp_path)
    before = db.read_bytes()
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "device.cli", "log", "export", "--db", str(db)], cwd=ROOT,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert "the output could not be written (No space left on device): what it holds is cut short" in done.stderr
    assert db.read_bytes() == before  # the log itself is untouched


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_output_held_in_stdouts_buffer_until_exit_is_told_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """On the emulated Pi (deploy/pi-emulated) the export above exited 120 with Python's "Exception ignored ...
    No space left on device": the whole small export sat in stdout's buffer until the exit's flush, outside the
    handler that words it.  Here stdout's buffer holds it all the same way."""
    db = _a_game_log(tmp_path)
    capsys.readouterr()
    full = open("/dev/full", "w", buffering=1 << 20)  # noqa: SIM115 (closed below, after main has run)
    monkeypatch.setattr(sys, "stdout", full)
    try:
        code = main(["log", "export", "--db", str(db)])
    finally:
        monkeypatch.undo()
        try:
            full.close()
        except OSError:
            pass  # the unfixed case: the data was still waiting
    assert code == 2
    assert "the output could not be written (No space left on device)" in capsys.readouterr().err
