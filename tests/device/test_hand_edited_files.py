"""A file saved by Windows Notepad (or Excel's "UTF-8" CSV/TXT) starts with a byte order mark and ends its
lines with CRLF.  It is the same text: config, setup and script are read as written, not refused as
"Invalid statement (at line 1, column 1)" (seen on a config and a setup before) or "Unexpected UTF-8 BOM"
(a script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def test_an_empty_calibration_or_face_library_is_called_empty(tmp_path: Path, capsys) -> None:
    """A power cut can leave a file at 0 bytes: "is not valid JSON: Expecting value: line 1 column 1 (char 0);
    fix that line" told the owner nothing. Now: it is empty, and what to do."""
    from device.camera_input import read_calibration_file, read_face_library

    for text in ("", "  \n"):
        calibration = tmp_path / "table_calibration.json"
        calibration.write_text(text)
        _, problem = read_calibration_file(calibration)
        said = problem.message if problem is not None else ""
        assert f"{calibration} is empty" in said and "power cut" in said and "fix that line" not in said, said
        faces = tmp_path / "faces.json"
        faces.write_text(text)
        _, problem = read_face_library(faces)
        said = problem.message if problem is not None else ""
        assert f"{faces} is empty" in said and "Expecting value" not in said, said


def test_a_folder_given_as_a_vision_file_is_never_to_be_removed(tmp_path: Path) -> None:
    """[vision] faces pointing at the data folder (which holds the game log) was told "give the file's path
    (or remove the folder) and move it aside (mv DATA DATA.bad)": the advice would have moved the game log
    away. A folder is named as one, with a file path to give instead."""
    from device.camera_input import read_calibration_file, read_face_library
    from device.token_files import TokenFileError, load_token_look
    from vision.tokens import TokenLook

    data = tmp_path / "data"
    data.mkdir()
    for read, example in ((read_face_library, "faces.json"), (read_calibration_file, "table_calibration.json")):
        _, problem = read(data)
        said = problem.message if problem is not None else ""
        assert "is a folder" in said and f"e.g. {data / example}" in said, said
        assert "remove" not in said and "mv " not in said and "move it aside" not in said, said
    try:
        load_token_look(TokenLook(), data)
    except TokenFileError as exc:
        assert "is a folder" in str(exc) and "remove" not in str(exc), exc
    else:
        raise AssertionError("a folder was read as a token look")


def test_a_folder_given_to_teach_dice_or_a_command_reading_the_calibration_is_not_to_be_moved(tmp_path: Path,
                                                                                                capsys) -> None:
    """Review: `teach dice` (which reads [vision] faces) and the commands loading the calibration said of a
    folder "the library is damaged ... mv DATA DATA.bad" / "move it aside": the data folder and its game log."""
    import pytest

    from device.cli import UserError
    from device.dice_library_files import load_library
    from device.table_files import TableFileError, load_calibration

    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(UserError) as refused:
        load_library(data)
    assert "is a folder, not a face library file" in str(refused.value) and "mv " not in str(refused.value)
    with pytest.raises(TableFileError) as refused_cal:
        load_calibration(data)
    said = str(refused_cal.value)
    assert "is a folder, not a calibration file" in said and "move it aside" not in said, said


def test_a_calibration_cut_short_is_not_told_to_be_fixed_by_hand(tmp_path: Path) -> None:
    """A bad-input audit: a calibration cut short (a card fault) said "is not valid JSON: …; fix that line": only
    `pitboard calibrate` writes it, and nobody mends a line of it."""
    from device.table_files import TableFileError, load_calibration

    calibration = tmp_path / "table_calibration.json"
    calibration.write_text('{"px_to_mm": [[0.5, 0')
    with pytest.raises(TableFileError) as err:
        load_calibration(calibration)
    said = str(err.value)
    assert "fix that line" not in said and "cut short or garbled after Pitboard wrote it" in said
    assert "run `pitboard calibrate` again" in said
