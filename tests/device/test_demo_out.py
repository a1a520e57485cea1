"""``pitboard demo --out DIR`` empties DIR first.  The brief: bad input gets a clear message naming what is
wrong and what to do, "and nothing that was already recorded is lost" -- a folder holding anything the demo
did not write (notes, a game log of a real evening, the folder you stand in) is refused, untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.cli import main
from device.demo import DemoOutError, _fresh


def test_a_folder_holding_the_owners_files_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("lap times")
    (out / "sim.sqlite").write_bytes(b"SQLite format 3\x00")
    assert main(["demo", "space_race", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds files the demo did not write (notes.txt, sim.sqlite)" in err and "new or empty folder" in err
    assert (out / "notes.txt").read_text() == "lap times" and (out / "sim.sqlite").exists()


def test_the_folder_you_are_in_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("x")
    for out in (Path("."), tmp_path, tmp_path.parent):
        with pytest.raises(DemoOutError, match="the folder you are in"):
            _fresh(out)
    assert (tmp_path / "keep.txt").exists()


def test_a_file_given_as_the_folder_is_named(tmp_path: Path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(DemoOutError, match="is a file, not a folder"):
        _fresh(f)
    assert f.read_text() == "x"


def test_a_previous_demos_folder_is_emptied_and_a_new_one_made(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    (out / "frames").mkdir(parents=True)
    for name in ("Alice.gif", "Bob.gif", "events.jsonl", "game.sqlite", "game.sqlite-wal", "frames/f001.jpg"):
        (out / name).write_text("old")
    _fresh(out)
    assert out.is_dir() and list(out.iterdir()) == []
    _fresh(tmp_path / "new" / "deeper")
    assert (tmp_path / "new" / "deeper").is_dir()


def test_a_frames_folder_holding_other_things_is_not_the_demos(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    (out / "frames").mkdir(parents=True)
    (out / "frames" / "holiday.png").write_text("x")
    with pytest.raises(DemoOutError, match="frames"):
        _fresh(out)
