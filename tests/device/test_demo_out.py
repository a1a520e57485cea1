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
    assert main(["demo", "space_race", "--out", str(out)]) == 0  # its game.sqlite and events.jsonl
    (out / "frames").mkdir()
    for name in ("Alice.gif", "frames/f001.jpg"):
        (out / name).write_text("old")
    _fresh(out)
    assert out.is_dir() and list(out.iterdir()) == []
    _fresh(tmp_path / "new" / "deeper")
    assert (tmp_path / "new" / "deeper").is_dir()


def test_a_demo_log_played_on_is_the_owners_and_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A demo's game.sqlite an owner then played a game of their own in (``--db out/demo/game.sqlite``) or
    carried the demo's game on in is not the demo's to delete: the next demo refuses, the log untouched."""
    out = tmp_path / "demo"
    assert main(["demo", "space_race", "--out", str(out)]) == 0
    setup = tmp_path / "setup.toml"
    setup.write_text('[[players]]\nname = "A"\n[[players.vehicles]]\ntype = "buggy"\n'
                     '[[players]]\nname = "B"\n[[players.vehicles]]\ntype = "car"\n')
    script = tmp_path / "moves.jsonl"
    script.write_text('{"type": "choose_template", "template": "gentle"}\n')
    log = out / "game.sqlite"
    assert main(["play", "gaslands", "--new", "--setup", str(setup), "--script", str(script), "--db", str(log)]) == 0
    before = log.read_bytes()
    capsys.readouterr()
    assert main(["demo", "space_race", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds files the demo did not write (game.sqlite" in err and "played on with --db" in err, err
    assert log.read_bytes() == before and (out / "events.jsonl").exists()
    # a demo log whose own game was carried on past the demo's events
    other = tmp_path / "demo2"
    assert main(["demo", "space_race", "--out", str(other)]) == 0
    lines = (other / "events.jsonl").read_text().splitlines()
    (other / "events.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # the log now holds one event more
    with pytest.raises(DemoOutError, match="game.sqlite"):
        _fresh(other)
    assert (other / "game.sqlite").exists()
    (other / "events.jsonl").unlink()  # a demo cut short before its export: one game, the demo's
    _fresh(other)
    assert list(other.iterdir()) == []


def test_a_frames_folder_holding_other_things_is_not_the_demos(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    (out / "frames").mkdir(parents=True)
    (out / "frames" / "holiday.png").write_text("x")
    with pytest.raises(DemoOutError, match="frames"):
        _fresh(out)


def test_a_demo_stopped_before_its_game_was_written_is_emptied(tmp_path: Path) -> None:
    """Review: Ctrl-C before the demo's first game left a 0-byte game.sqlite, and the next `./dev demo` refused
    the folder as one "played on with --db?"; nothing is in it to keep. A -wal beside it with games is kept."""
    out = tmp_path / "demo"
    out.mkdir()
    (out / "game.sqlite").write_bytes(b"")
    (out / "Alice.gif").write_bytes(b"GIF89a")
    _fresh(out)
    assert list(out.iterdir()) == []
    (out / "game.sqlite").write_bytes(b"")
    (out / "game.sqlite-wal").write_bytes(b"frames of a game")
    with pytest.raises(DemoOutError, match="game.sqlite"):
        _fresh(out)
    assert (out / "game.sqlite-wal").read_bytes() == b"frames of a game"
