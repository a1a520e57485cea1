"""Values an owner typed or files an owner pointed at that were taken without a word, or refused with a
message naming the wrong thing (a bad-input probe of ``pitboard calibrate``, the table config, the token
look, the calibration and the Space Race setup).  Each is now refused naming the file or option, the key
and what is allowed, in one message (exit 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from device import cli
from device.table_files import TableFileError, load_calibration, load_table_config
from device.token_files import TokenFileError, load_token_look
from games.core import Illegal
from games.space_race.rules import SpaceRaceGame, load_track_data
from vision.tokens import TokenLook


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture(scope="module")
def frame(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered table frame with the four corner tags in view: one good calibration image."""
    import cv2

    from vision.synth import SceneSpec, render_scene

    img, _ = render_scene(SceneSpec(), np.random.default_rng(1))
    path = tmp_path_factory.mktemp("frame") / "good.png"
    cv2.imwrite(str(path), img)
    return path


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``pitboard ARGV`` as the shell runs it: the exit code and what it printed to stderr."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse refusing an option
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


# -- 1. pitboard calibrate --hfov --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["500", "-5", "0", "nan", "180"])
def test_calibrate_refuses_a_field_of_view_no_lens_has(value: str, tmp_path: Path, frame: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """An owner typed `pitboard calibrate --hfov 500` (or -5): it exited 0 and stored "hfov_deg": 500.0."""
    out = tmp_path / "cal.json"
    code, err = _main(["calibrate", str(frame), "--hfov", value, "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert "--hfov" in err and "20 to 170" in err and "Traceback" not in err, err


def test_calibrate_takes_the_wide_lenses_the_project_supports(tmp_path: Path, frame: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An owner with a Camera Module 3 Wide (102 degrees) or a fisheye lens gives --hfov: it is kept."""
    out = tmp_path / "cal.json"
    for hfov in ("102", "160"):
        code, err = _main(["calibrate", str(frame), "--hfov", hfov, "--out", str(out)], capsys)
        assert code == 0, err
        assert json.loads(out.read_text())["hfov_deg"] == float(hfov)


# -- 2. pitboard calibrate --out FOLDER ----------------------------------------------------------------------


def test_calibrate_out_a_folder_is_one_clear_message(tmp_path: Path, frame: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """An owner gave `--out /tmp/x` with /tmp/x a folder: a two-part traceback ending TableFileError."""
    folder = tmp_path / "x"
    folder.mkdir()
    code, err = _main(["calibrate", str(frame), "--out", str(folder)], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.strip() == (f"pitboard: --out {folder} is a folder; give the calibration a file name (for example "
                           f"--out {folder / 'table_calibration.json'})")
    assert list(folder.iterdir()) == []


def test_calibrate_never_writes_over_a_file_that_is_not_a_calibration(tmp_path: Path, frame: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An owner gave `--out faces.json` (their face library) by mistake: calibrate would have replaced it."""
    faces = tmp_path / "faces.json"
    faces.write_text(json.dumps({"format": "pitboard-faces", "version": 1, "dice": {}}))
    before = faces.read_bytes()
    code, err = _main(["calibrate", str(frame), "--out", str(faces)], capsys)
    assert code == 2 and "face library" in err and "give --out another file name" in err, err
    assert faces.read_bytes() == before


# -- 3. the table config --------------------------------------------------------------------------------------


def test_a_table_config_line_toml_cannot_read_gets_one_piece_of_advice(tmp_path: Path) -> None:
    """A bad-input audit: "fix that line (fix that key (vision/data/table_defaults.toml ...) or move the file
    aside)", nested and saying two things to fix."""
    path = tmp_path / "table.toml"
    path.write_text("[attachment]\nmax_distance_mm = = 5\n")
    with pytest.raises(TableFileError) as caught:
        load_table_config(path)
    assert str(caught.value) == (f"table config {path} is not valid TOML: line 2 (max_distance_mm = = 5): one = too "
                                 "many: write max_distance_mm = 5; fix that line (vision/data/table_defaults.toml "
                                 "shows every key and its default; or move the file aside)")


@pytest.mark.parametrize("toml, says", [
    ("[attachment]\nmax_distance_mm = -5\n",
     "attachment.max_distance_mm must be a distance in mm above 0, got -5.0"),
    ("[attachment]\nmax_angle_deg = 0\n", "attachment.max_angle_deg must be an angle in degrees above 0"),
    ('[tags.cars]\n5000 = "rust"\n', "tags.cars key '5000' must be a tag id, a whole number from 0 to 99 (the "
                                      "4X4_100 dictionary has 100 tags)"),
    ('[tags.cars]\n-1 = "rust"\n', "tags.cars key '-1' must be a tag id, a whole number from 0 to 99"),
    ('[tags.cars]\nten = "rust"\n', "tags.cars key 'ten' must be a tag id, a whole number from 0 to 99"),
    ("[tags.cars]\n10 = 5\n", "tags.cars.10 must be the car's id as text in quotes, got 5"),
    ('[tags.templates]\n5000 = ["gentle", "a"]\n', "tags.templates key '5000' must be a tag id"),
    ("[tags]\ncorners = [0, 1, 2, 500]\n", "tags.corners must list four tag ids, whole numbers from 0 to 99"),
    ("schema = 2\n", "schema must be 1 (the table config this Pitboard reads), got 2"),
])
def test_table_config_refuses_what_no_table_has(toml: str, says: str, tmp_path: Path) -> None:
    """An owner's table.toml with a negative attachment distance, a tag id the dictionary does not have
    (5000, -1), a car id that is not text or an unknown schema was taken silently; `ten` as a tag id said
    only "invalid literal for int() with base 10: 'ten'"."""
    path = tmp_path / "table.toml"
    path.write_text(toml)
    with pytest.raises(TableFileError) as caught:
        load_table_config(path)
    message = str(caught.value)
    assert message.startswith(f"table config {path}: {says}"), message
    assert "invalid literal" not in message


def test_tag_ids_follow_the_configured_dictionary(tmp_path: Path) -> None:
    """An owner on the 6X6_250 dictionary numbers a car 200: that tag exists there, so it is taken."""
    path = tmp_path / "table.toml"
    path.write_text('[tags]\ndictionary = "6X6_250"\n[tags.cars]\n200 = "rust"\n')
    assert load_table_config(path).car_tags == {200: "rust"}
    path.write_text('[tags]\ndictionary = "6X6_250"\n[tags.cars]\n250 = "rust"\n')
    with pytest.raises(TableFileError, match="from 0 to 249 \\(the 6X6_250 dictionary has 250 tags\\)"):
        load_table_config(path)


def test_markers_with_a_tag_the_dictionary_lacks_is_a_message(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An owner ran `pitboard markers` with [tags.cars] 5000 = "rust": an OpenCV assertion traceback."""
    path = tmp_path / "table.toml"
    path.write_text('[tags.cars]\n5000 = "rust"\n')
    code, err = _main(["markers", "--out", str(tmp_path / "sheet.png"), "--config", str(path)], capsys)
    assert code == 2 and "Traceback" not in err and str(path) in err and "tags.cars key '5000'" in err, err


def test_markers_to_a_place_that_cannot_be_written_is_a_message(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`pitboard markers --out` on a read-only card (or /proc) ended in the writer's OSError traceback."""
    code, err = _main(["markers", "--out", "/proc/pitboard-sheet.png"], capsys)
    assert code == 2 and "Traceback" not in err and "cannot write the tag sheet to /proc/pitboard-sheet.png" in err
    assert "give --out a file in a folder you can write to" in err


# -- 4. Space Race [[track]] ------------------------------------------------------------------------------------


def test_space_race_own_track_names_the_track_tables_the_owner_writes() -> None:
    """An owner wrote 7 [[track]] tables: the refusal asked for "8 [[box]] tables", a key they never wrote."""
    boxes = load_track_data()["editions"]["deluxe"]["box"][:7]
    with pytest.raises(Illegal) as caught:
        SpaceRaceGame().start({"track": boxes})
    message = str(caught.value)
    assert "write 8 [[track]] tables, one per box (7 given)" in message and "[[box]]" not in message, message


# -- 5. a text file as the token look ----------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"hello tokens\nline 2\n", b"\x89PNG\r\n\x1a\n....", b"\x93NUMPY\x01\x00"])
def test_a_file_that_is_not_a_token_look_is_named_so(content: bytes, tmp_path: Path) -> None:
    """An owner gave a text file as [vision] tokens: numpy's "...load it unsafely using the allow_pickle=
    keyword..." was printed (and a lone .npy array was a TypeError)."""
    path = tmp_path / "tokens.txt"
    path.write_bytes(content)
    with pytest.raises(TokenFileError) as caught:
        load_token_look(TokenLook(), path)
    message = str(caught.value)
    assert message.startswith(f"{path} is not a token look file (")
    # what to do, and not in a circle: `teach tokens` itself refuses to write over it (a bad-input audit)
    assert message.endswith("); it is not overwritten: move it aside, or name another file ([vision] tokens in the "
                            "config, or `teach tokens --out FILE`), then run `pitboard teach tokens` again"), message
    assert "allow_pickle" not in message and "remove the file" not in message
    assert path.read_bytes() == content


def test_a_numpy_archive_that_is_not_a_token_look_is_not_ours_to_remove(tmp_path: Path) -> None:
    """An owner gave some other .npz as [vision] tokens: it was called a damaged look, "remove the file"."""
    path = tmp_path / "other.npz"
    np.savez(path, a=np.zeros(3))
    with pytest.raises(TokenFileError, match=r"without the token look's schema\); it is not overwritten: move it "
                                             r"aside, or name another file .*then run `pitboard teach tokens` again$"):
        load_token_look(TokenLook(), path)


# -- 6. another Pitboard file as the calibration --------------------------------------------------------------------


def test_a_face_library_given_as_the_calibration_is_named_and_not_to_be_moved(tmp_path: Path) -> None:
    """An owner gave their face library as --calibration: "calibration schema None is not 1; run calibrate
    again; move it aside and run calibrate again" - advice to move their face library aside."""
    faces = tmp_path / "faces.json"
    faces.write_text(json.dumps({"format": "pitboard-faces", "version": 1, "dice": {}}))
    with pytest.raises(TableFileError) as caught:
        load_calibration(faces)
    message = str(caught.value)
    assert message.startswith(f"{faces} is not a calibration: it looks like a face library"), message
    assert "point --calibration or [vision] calibration at the calibration file" in message
    assert "move it aside" not in message and "schema None" not in message


@pytest.mark.parametrize("name, content, looks", [
    ("table_tokens.npz", None, "a NumPy archive"),
    ("frame.png", b"\x89PNG\r\n\x1a\n....", "a PNG image"),
    ("setup.toml", b'[[players]]\nname = "Ana"\n', "TOML"),
    ("notes.txt", b"my table notes\n", "text that is not JSON"),
])
def test_other_files_given_as_the_calibration_are_never_to_be_moved(name: str, content: bytes | None, looks: str,
                                                                    tmp_path: Path) -> None:
    """An owner pointed --calibration at the token look, a frame, a setup or a note: each was answered "move
    it aside and run `pitboard calibrate` again"."""
    path = tmp_path / name
    if content is None:
        np.savez(path, a=np.zeros(3))
    else:
        path.write_bytes(content)
    with pytest.raises(TableFileError) as caught:
        load_calibration(path)
    message = str(caught.value)
    assert message.startswith(f"{path} is not a calibration: it looks like {looks}") and "move it" not in message


def test_a_damaged_calibration_is_still_to_be_written_again(tmp_path: Path) -> None:
    """A calibration cut short or of another schema is still one: moving it aside and calibrating again
    stays the advice (said once, not twice)."""
    cut = tmp_path / "cut.json"
    cut.write_text('{"schema": 1, "px_to_mm": [[1, 0')
    with pytest.raises(TableFileError, match="move it aside and run `pitboard calibrate` again"):
        load_calibration(cut)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": 0, "px_to_mm": [[1, 0, 0]] * 3}))
    with pytest.raises(TableFileError) as caught:
        load_calibration(other)
    assert str(caught.value) == (f"calibration file {other}: calibration schema 0 is not 1; move it aside and run "
                                 "`pitboard calibrate` again")


def test_a_calibration_from_a_newer_pitboard_is_not_to_be_written_over(tmp_path: Path) -> None:
    """An audit: schema 99 was told "run `pitboard calibrate` again", which writes over what a newer Pitboard
    made (the game log of a newer schema says "upgrade Pitboard")."""
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema": 99, "px_to_mm": [[1, 0, 0]] * 3}))
    with pytest.raises(TableFileError) as caught:
        load_calibration(newer)
    said = str(caught.value)
    assert "written by a newer Pitboard" in said and "upgrade Pitboard" in said and "calibrate" not in said, said
    from device.camera_input import read_calibration_file

    cal, problem = read_calibration_file(newer)
    assert cal is None and "upgrade Pitboard" in problem.message and "pitboard calibrate" not in problem.message, \
        problem.message


def test_the_appliance_names_a_face_library_given_as_its_calibration(tmp_path: Path) -> None:
    """An owner set [vision] calibration to their face library: `pitboard run`/`check` said "calibration schema
    None is not 1; run `pitboard calibrate` again"."""
    from device.camera_input import read_calibration_file

    faces = tmp_path / "faces.json"
    faces.write_text(json.dumps({"format": "pitboard-faces", "version": 1, "dice": {}}))
    cal, problem = read_calibration_file(faces)
    assert cal is None and problem is not None
    assert f"{faces} is not a calibration: it looks like a face library" in problem.message
    assert "point [vision] calibration at the calibration file" in problem.message
    assert "schema None" not in problem.message and "pitboard calibrate" not in problem.message


@pytest.mark.parametrize("content", [b"lap times: 1:02, 0:58\n", b"\x89PNG\r\n\x1a\n...."])
def test_calibration_never_writes_its_mats_over_a_file_that_is_not_a_token_look(content: bytes, tmp_path: Path) -> None:
    """`pitboard calibrate IMG --tokens notes.txt`: calibration learns the bare mat and saves it with the token
    look, replacing a damaged look file -- and so it replaced the owner's notes.  A file that is not a token
    look is left as it was, and calibration says the mat was not learned."""
    from device.cli_tokens import learn_mats_at_calibration
    from vision.table import default_config

    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    written, said = learn_mats_at_calibration(np.zeros((8, 8, 3), np.uint8), None, default_config(), path)
    assert written is None and path.read_bytes() == content
    assert said.startswith(f"the bare mat was not learned: {path} is not a token look file (")
    assert said.endswith("(give --tokens a token look file, or a new file name)")


def test_calibration_sets_a_damaged_token_look_aside_rather_than_writing_over_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad-input audit: `pitboard calibrate IMG --tokens t.npz` with a damaged look replaced it (its mats and
    colour, which a few changed bytes had not touched, gone) and advised running calibrate again.  It is kept as
    ``t.npz.damaged`` (then ``.damaged-2``), named, and a new look holds this frame's mats."""
    from device.cli_tokens import learn_mats_at_calibration
    from device.token_files import load_token_look
    from vision import tokens
    from vision.table import default_config

    monkeypatch.setattr(tokens, "learn_mats", lambda img, cal, look: (
        {"p1": np.random.default_rng(1).integers(0, 255, (20, 30, 3), np.uint8)}, {}))
    path = tmp_path / "t.npz"
    damaged = b"PK\x03\x04" + bytes(range(256)) * 4  # an archive's start, its data spoiled
    for kept in ("t.npz.damaged", "t.npz.damaged-2"):
        path.write_bytes(damaged)
        written, said = learn_mats_at_calibration(np.zeros((8, 8, 3), np.uint8), None, default_config(), path)
        assert written == path and (tmp_path / kept).read_bytes() == damaged
        assert said.endswith(f"; it is kept as {tmp_path / kept})") and "the old token look could not be read: " in said
        assert "run `pitboard calibrate" not in said
        load_token_look(default_config().tokens, path)  # the new look reads


@pytest.mark.parametrize("stored", [500.0, -5, "66", None])
def test_a_stored_field_of_view_no_lens_has_is_refused_and_calibrate_replaces_it(
        stored: object, tmp_path: Path, frame: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A calibration holding "hfov_deg": 500 (an owner's edit, or written before --hfov was checked) was read
    as it was: the roof tags' heights were corrected with a nonsense focal length, and the web page's
    calibrate reused the value.  It is now a damaged calibration, named; `calibrate` again replaces it, saying
    that nothing of it is carried over."""
    from device.camera_input import read_calibration_file
    from vision.calibration import Calibration, CalibrationError

    out = tmp_path / "cal.json"
    code, err = _main(["calibrate", str(frame), "--out", str(out), "--mat-mm", "600x400"], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    data["hfov_deg"] = stored
    out.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=r"hfov_deg .* is not a horizontal field of view a camera lens has"):
        Calibration.from_dict(data)
    cal, problem = read_calibration_file(str(out))
    assert cal is None and problem is not None and str(out) in problem.message and "20 to 170" in problem.message
    code, err = _main(["calibrate", str(frame), "--out", str(out)], capsys)
    assert code == 0, err
    assert "cannot be read" in err and "hfov_deg" in err and "give --mat-mm" in err and "move it aside" not in err
    assert json.loads(out.read_text())["hfov_deg"] == 66.0


def test_vision_read_refuses_a_token_look_that_is_not_there(tmp_path: Path, frame: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`vision read --tokens FILE` with a mistyped FILE (or a link to nothing) read the default token look without
    a word; `--calibration FILE` not there is refused, and so is this (found by bench inputs' token-look kind)."""
    assert _main(["calibrate", str(frame), "--out", str(tmp_path / "cal.json")], capsys)[0] == 0
    for given in (tmp_path / "tokns.npz", tmp_path / "link.npz"):
        if given.name == "link.npz":
            given.symlink_to(tmp_path / "nowhere.npz")
        code, err = _main(["vision", "read", "--calibration", str(tmp_path / "cal.json"), "--tokens", str(given),
                           str(frame)], capsys)
        assert code == 2 and f"--tokens {given}" in err and "does not exist" in err, err
    assert "a link that leads nowhere" in err


def test_calibrate_names_the_token_zone_cards_it_did_not_see(tmp_path: Path, frame: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An independent audit: a card missed at calibration kept its default zone without a word (which then read 0
    in every frame, the card lying elsewhere).  With p1's card seen and the others not, calibrate names them."""
    import cv2

    from vision import markers
    from vision.calibration import default_zone_cards

    img = cv2.imread(str(frame))
    corners = {t.id: t.corners_px for t in markers.detect_tags(img)}
    assert _main(["calibrate", str(frame), "--out", str(tmp_path / "plain.json")], capsys)[1] == ""  # no card: quiet
    card = default_zone_cards(4)[0]
    # p1's card drawn where the corner tag 0 lies, by the frame's own mm -> px (from the corner tags' sizes)
    from vision.calibration import CornerLayout, calibrate_from_markers

    cal = calibrate_from_markers(corners, CornerLayout(), (img.shape[1], img.shape[0]))
    at = np.array([300.0, 150.0])
    sightings = [markers.TagSighting(tid, cal.to_px(c + at)) for tid, c in card.tag_corners_mm().items()]
    real = markers.detect_tags
    monkeypatch.setattr(markers, "detect_tags", lambda image, *a, **k: real(image, *a, **k) + sightings)
    code, err = _main(["calibrate", str(frame), "--out", str(tmp_path / "cal.json")], capsys)
    assert code == 0 and "warning: the token-zone cards of p2, p3, p4 were not seen in this frame (those of p1 " \
        "were)" in err, err
