"""A file saved by Windows Notepad (or Excel's "UTF-8" CSV/TXT) starts with a byte order mark and ends its
lines with CRLF.  It is the same text: config, setup and script are read as written, not refused as
"Invalid statement (at line 1, column 1)" (seen on a config and a setup before) or "Unexpected UTF-8 BOM"
(a script)."""

from __future__ import annotations

import json
from pathlib import Path

from device.cli import main
from device.cli_device import read_setup
from device.config import load_config
from games import game_package

BOM = b"\xef\xbb\xbf"
EXAMPLE = Path(__file__).resolve().parents[2] / "firmware_config" / "pitboard.toml"


def _as_notepad(text: str) -> bytes:
    return BOM + text.replace("\n", "\r\n").encode("utf-8")


def test_a_config_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "pitboard.toml"
    path.write_bytes(_as_notepad(EXAMPLE.read_text(encoding="utf-8")))
    assert load_config(path) == load_config(EXAMPLE)


def test_a_setup_and_a_script_with_a_byte_order_mark_are_played(tmp_path: Path, capsys) -> None:
    module = game_package("gaslands")
    setup = tmp_path / "table.toml"
    setup.write_bytes(_as_notepad(module.EXAMPLE_SETUP))
    script = tmp_path / "night.jsonl"
    script.write_bytes(_as_notepad(json.dumps({"type": "choose_template", "template": "short_straight"}) + "\n"))
    code = main(["play", "gaslands", "--setup", str(setup), "--script", str(script), "--db",
                 str(tmp_path / "g.sqlite"), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out.splitlines()[0])["accepted"] is True
    # and the appliance's own reading of [game] setup (pitboard run, pitboard check)
    assert read_setup(module, setup) == read_setup(module, None)


def test_a_calibration_and_a_face_library_opened_in_notepad_are_read(tmp_path: Path) -> None:
    import numpy as np

    from device.camera_input import read_calibration_file, read_face_library
    from vision.calibration import Calibration
    from vision.dice.faces import FaceLibrary

    calibration = tmp_path / "table_calibration.json"
    cal = Calibration(px_to_mm=np.eye(3), image_size=(64, 48), mat_mm=(800.0, 450.0))
    calibration.write_bytes(_as_notepad(json.dumps(cal.to_dict(), indent=2)))
    read, problem = read_calibration_file(calibration)
    assert problem is None and read is not None
    faces = tmp_path / "faces.json"
    faces.write_bytes(_as_notepad(json.dumps(FaceLibrary().to_dict())))
    _, problem = read_face_library(faces)
    assert problem is None


def test_a_setup_with_a_text_not_in_quotes_says_so_at_play_and_at_run(tmp_path: Path, capsys) -> None:
    # seen: 'setup file table.toml is not valid TOML: Invalid value (at line 17, column 8)'
    module = game_package("gaslands")
    setup = tmp_path / "table.toml"
    setup.write_text(module.EXAMPLE_SETUP.replace('name = "Bob"', "name = Bob"), encoding="utf-8")
    script = tmp_path / "night.jsonl"
    script.write_text("", encoding="utf-8")
    code = main(["play", "gaslands", "--setup", str(setup), "--script", str(script), "--db",
                 str(tmp_path / "g.sqlite")])
    assert code != 0
    err = capsys.readouterr().err
    assert "name = Bob" in err and 'name = "Bob"' in err and str(setup) in err, err
    try:
        read_setup(module, setup)
    except ValueError as exc:
        assert 'name = "Bob"' in str(exc) and str(setup) in str(exc), exc
    else:
        raise AssertionError("a setup that is not TOML was read")
