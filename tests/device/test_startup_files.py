"""Damaged or missing files at start: the appliance still starts and plays, says on every screen which file
is wrong, logs what is wrong and what to do, and ``pitboard check`` names the file."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest

from device import cli_device
from device.camera import ReplayBackend
from device.camera_input import files_notice, read_calibration_file, read_face_library
from device.cli import UserError
from device.cli_device import build_appliance, run_check
from device.config import parse_config
from device.table_files import CALIBRATION_FILE, save_calibration
from vision.calibration import Calibration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def factory():
    from gpiozero.pins.mock import MockFactory

    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def _config(tmp_path: Path, *, calibration: Path | None = None, faces: Path | None = None, **extra: object):
    frames = tmp_path / "frames"
    frames.mkdir(exist_ok=True)
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 180, np.uint8))
    vision = {"faces": str(faces or tmp_path / "faces.json")}
    if calibration is not None:
        vision["calibration"] = str(calibration)
    doc = {
        "game": {"name": "gaslands"},
        "camera": {"backend": "replay", "device": str(frames), "width": 64, "height": 48},
        "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
        "store": {"path": str(tmp_path / "games.sqlite")},
        "vision": vision,
        **extra,
    }
    return parse_config(doc, source="pitboard.toml")


class Clock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


def _deep_json(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


def _valid_calibration() -> Calibration:
    return Calibration(px_to_mm=np.eye(3), image_size=(64, 48), mat_mm=(800.0, 450.0))


DAMAGED_CALIBRATIONS = {
    "broken JSON": (lambda p: p.write_text('{"schema": 1, "px_to_mm": [[1, 0', encoding="utf-8"), "not valid JSON"),
    "binary": (lambda p: p.write_bytes(bytes(range(256)) * 4), "not UTF-8"),
    "a JSON list": (lambda p: p.write_text("[1, 2, 3]", encoding="utf-8"), "a JSON list"),
    "wrong schema": (lambda p: p.write_text(json.dumps({"schema": 0, "px_to_mm": [[1, 0, 0]] * 3}),
                                            encoding="utf-8"), "schema 0"),
    "incomplete": (lambda p: p.write_text(json.dumps({**_valid_calibration().to_dict(), "px_to_mm": "x"}),
                                          encoding="utf-8"), "calibrat"),
    "a folder": (lambda p: p.mkdir(), "is a folder"),
    "deeply nested": (lambda p: p.write_text(_deep_json(), encoding="utf-8"), "nested too deeply"),
}


def _press(appliance, factory, clock: Clock, pin_number: int) -> None:
    pin = factory.pin(pin_number)
    edges = appliance.buttons.edges
    waiting = edges.qsize()
    pin.drive_low()
    clock.t += 0.2
    pin.drive_high()
    for _ in range(500):  # gpiozero's callback thread (synchronisation, not a timing assertion)
        if edges.qsize() >= waiting + 2:
            break
        time.sleep(0.002)
    clock.t += 0.05
    appliance.app.run(max_iterations=1, idle_s=0)


def _plays(appliance, factory, clock: Clock) -> None:
    """The game goes on with the buttons: OK opens the Straights, NEXT sends a template, accepted."""
    appliance.app.run(max_iterations=2, idle_s=0)
    _press(appliance, factory, clock, 23)
    _press(appliance, factory, clock, 17)
    sent = appliance.app.history[-1]
    assert sent.source == "button" and sent.outcome.accepted


def _screen_alerts(appliance) -> dict[str, list[str]]:
    return {str(v.player): [a.text for a in v.alerts] for v in appliance.app.screen_views()}


def _check(config) -> tuple[int, list[str]]:
    from gpiozero.pins.mock import MockFactory

    out = io.StringIO()
    f = MockFactory()
    try:
        rc = run_check(config, out=out, pin_factory=f, smbus_factory=lambda port: (_ for _ in ()).throw(
            FileNotFoundError()), camera_backend=ReplayBackend(config.camera.device))
    finally:
        f.reset()
    assert "Traceback" not in out.getvalue()
    return rc, out.getvalue().splitlines()


@pytest.mark.parametrize("kind", list(DAMAGED_CALIBRATIONS))
def test_a_damaged_calibration_never_stops_the_appliance(kind: str, tmp_path: Path, factory) -> None:
    damage, what = DAMAGED_CALIBRATIONS[kind]
    cal = tmp_path / "table_calibration.json"
    damage(cal)
    config = _config(tmp_path, calibration=cal)
    clock, logs = Clock(), []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=clock,
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert appliance.app.reader is None or appliance.app.reader.calibration is None
        assert [p.part for p in appliance.file_problems] == ["calibration"]
        warning = next(m for m in logs if m.startswith("warning:"))
        assert str(cal) in warning and what in warning and "pitboard calibrate" in warning, warning
        assert logs[-1].startswith("started gaslands game 1")
        alerts = _screen_alerts(appliance)
        assert set(alerts) == {"Alice", "Bob"}
        assert all("TABLE NOT READ: calibration" in texts for texts in alerts.values()), alerts
        _plays(appliance, factory, clock)
        assert "TABLE NOT READ: calibration" in _screen_alerts(appliance)["Alice"]  # until withdrawn
    finally:
        appliance.close()
    rc, lines = _check(config)
    line = next(line for line in lines if " calibration:" in line)
    assert line.startswith("FAIL") and str(cal) in line and what in line, line
    assert rc == 1


def test_check_looks_at_the_token_look_too(tmp_path: Path, monkeypatch) -> None:
    """`check` said nothing of [vision] tokens: pointed at a face library by mistake, no line at all, while the
    appliance counted tokens as golden ones on an unlearned mat."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    faces = tmp_path / "faces.json"
    faces.write_text('{"format": "pitboard-faces"}', encoding="utf-8")
    import dataclasses

    plain = _config(tmp_path)
    config = dataclasses.replace(plain, vision=dataclasses.replace(plain.vision, tokens=str(faces)))
    _, lines = _check(config)
    line = next((line for line in lines if " token look:" in line), None)
    assert line is not None and line.startswith("WARN") and str(faces) in line and "not a token look" in line, lines
    config = plain
    _, lines = _check(config)
    assert any(" token look:" in line and "none taught yet" in line for line in lines), lines


def test_a_configured_calibration_that_is_missing_is_reported(tmp_path: Path, factory) -> None:
    cal = tmp_path / "calibration.json"  # the old name of the shipped config: never written by calibrate
    config = _config(tmp_path, calibration=cal)
    logs: list[str] = []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert any(str(cal) in m and "does not exist" in m for m in logs), logs
        assert appliance.app.notices[-1].kind == "files"
        assert appliance.app.notices[-1].text == "TABLE NOT READ: calibration"
    finally:
        appliance.close()
    rc, lines = _check(config)
    assert any(l.startswith("FAIL  calibration:") and f"{cal} does not exist" in l for l in lines), lines


def test_a_good_calibration_is_read_and_nothing_is_said(tmp_path: Path, factory, data_folder: Path) -> None:
    saved = save_calibration(_valid_calibration())  # where `pitboard calibrate` writes it
    assert saved == data_folder / CALIBRATION_FILE
    config = _config(tmp_path)  # no [vision] calibration: the data folder's is used
    logs: list[str] = []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert appliance.app.reader.calibration is not None
        assert not appliance.file_problems and not [n for n in appliance.app.notices if n.kind == "files"]
    finally:
        appliance.close()
    rc, lines = _check(config)
    assert any(l.startswith("OK    calibration:") for l in lines), lines
    assert any(l.startswith("OK    face library:") and "none taught yet" in l for l in lines), lines


def test_no_calibration_yet_at_the_default_place_is_a_note_not_a_notice(tmp_path: Path, factory) -> None:
    logs: list[str] = []
    appliance = build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert any(m.startswith("note: no calibration at") for m in logs), logs
        assert not [n for n in appliance.app.notices if n.kind == "files"]
    finally:
        appliance.close()
    rc, lines = _check(_config(tmp_path))
    assert any(l.startswith("WARN  calibration: no calibration at") for l in lines), lines


@pytest.mark.parametrize("kind", ["broken JSON", "binary", "a JSON list", "a folder", "deeply nested"])
def test_a_damaged_face_library_means_plain_d6_and_a_notice(kind: str, tmp_path: Path, factory) -> None:
    faces = tmp_path / "faces.json"
    DAMAGED_CALIBRATIONS[kind][0](faces)
    config = _config(tmp_path, faces=faces)
    clock, logs = Clock(), []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=clock,
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert appliance.app.reader.faces.examples == {}  # an empty library: dice read as plain d6
        warning = next(m for m in logs if m.startswith("warning:"))
        assert str(faces) in warning and "teach" in warning and "plain d6" in warning, warning
        assert all("FACES FILE BAD: plain d6" in t for t in _screen_alerts(appliance).values())
        _plays(appliance, factory, clock)
    finally:
        appliance.close()
    assert faces.is_dir() or faces.exists()  # the owner's file is left untouched
    rc, lines = _check(config)
    assert any(l.startswith("FAIL  face library:") and str(faces) in l for l in lines), lines


def test_both_files_damaged_fit_one_screen_line(tmp_path: Path) -> None:
    cal, faces = tmp_path / "cal.json", tmp_path / "faces.json"
    cal.write_text("[]", encoding="utf-8")
    faces.write_text("{", encoding="utf-8")
    problems = [read_calibration_file(cal)[1], read_face_library(faces)[1]]
    text = files_notice(problems)
    assert text == "BAD FILES: calibration+faces" and len(text) <= 28
    assert all(len(p.short) <= 28 for p in problems)


def test_a_face_library_from_a_newer_pitboard_is_not_called_damaged(tmp_path: Path) -> None:
    """Seen: a faces.json with "version": 2 was "damaged: move it aside and teach the faces again", advice that
    throws the owner's work away; the game log says "upgrade Pitboard" for the same case."""
    import json

    from device.dice_library_files import load_library
    from vision.dice.faces import FaceLibrary

    faces = tmp_path / "faces.json"
    data = FaceLibrary().to_dict()
    faces.write_text(json.dumps({**data, "version": data["version"] + 1}), encoding="utf-8")
    before = faces.read_bytes()
    _, problem = read_face_library(faces)
    assert problem is not None and "written by a newer Pitboard" in problem.message
    assert "upgrade Pitboard" in problem.message and "teach the faces again" not in problem.message
    with pytest.raises(UserError, match="newer Pitboard") as caught:
        load_library(faces)
    assert "teach the faces again" not in str(caught.value)
    assert faces.read_bytes() == before
    faces.write_text(json.dumps({**data, "version": "two"}), encoding="utf-8")  # that one is damaged
    assert "teach the faces again" in read_face_library(faces)[1].message


def test_a_face_library_the_next_teaching_mends_is_not_told_to_be_moved_aside(tmp_path: Path) -> None:
    """A face with no examples in a library of others: the appliance said "move it aside and teach the faces
    again", which throws every other face away; the next teaching drops the empty face and keeps the rest."""
    import json

    from vision.dice.faces import FaceLibrary

    faces = tmp_path / "faces.json"
    faces.write_text(json.dumps({**FaceLibrary().to_dict(), "dice": {"skid": {"SLIDE": []}}}), encoding="utf-8")
    before = faces.read_bytes()
    _, problem = read_face_library(faces)
    assert problem is not None and "face 'SLIDE' has no examples" in problem.message
    assert "the next teaching" in problem.message and "teach the faces again" not in problem.message
    assert faces.read_bytes() == before


def test_the_teaching_offered_by_check_carries_the_config_it_was_given(tmp_path: Path, monkeypatch) -> None:
    """The review: `pitboard check --config F` (and `run --config F`) with F's own face library offered
    `pitboard teach dice --die skid --face SLIDE IMAGE...`, which teaches the default library; F's stayed broken."""
    from device.config import load_config
    from vision.dice.faces import FaceLibrary

    monkeypatch.setattr("device.config.DEFAULT_PATH", tmp_path / "absent.toml")
    faces = tmp_path / "own-faces.json"
    faces.write_text(json.dumps({**FaceLibrary().to_dict(), "dice": {"skid": {"SLIDE": []}}}), encoding="utf-8")
    cfg = tmp_path / "own.toml"
    cfg.write_text(f'[camera]\nbackend = "none"\n[vision]\nfaces = "{faces}"\n', encoding="utf-8")
    config = load_config(cfg)
    assert config.config_option() == str(cfg)
    from gpiozero.pins.mock import MockFactory

    out, f = io.StringIO(), MockFactory()
    try:
        run_check(config, out=out, pin_factory=f, smbus_factory=lambda port: (_ for _ in ()).throw(FileNotFoundError()))
    finally:
        f.reset()
    said = out.getvalue()
    assert f"`pitboard teach dice --die skid --face SLIDE IMAGE... --config {cfg}`" in said, said
    # and the appliance's problem (the journal, the phone), as `pitboard run --config F` builds its reader
    from device.camera_input import VisionReader

    problems: list = []
    VisionReader.from_files(None, faces, problems=problems, config_option=config.config_option())
    assert any(f"--config {cfg}`" in p.message for p in problems)
    # a damaged library (not one the next teaching mends): moved aside (quoted) and taught again into F's too
    damaged = tmp_path / "my faces.json"
    damaged.write_text('{"version": "two"}', encoding="utf-8")
    _, problem = read_face_library(damaged, config.config_option())
    assert f"`pitboard teach dice --die NAME --face FACE IMAGE... --config {cfg}` for each" in problem.message
    # and check's word for a library not taught yet names F's too
    from device.cli_device import probe_vision_files

    fresh = tmp_path / "fresh.toml"
    fresh.write_text(f'[camera]\nbackend = "none"\n[vision]\nfaces = "{tmp_path / "none-yet.json"}"\n')
    (none_yet,) = [line for line in probe_vision_files(load_config(fresh)) if line.part == "face library"]
    assert f"`pitboard teach dice --die NAME --face FACE IMAGE... --config {fresh}` or the phone's Teach page " \
        "writes it" in none_yet.detail
    # what is not taught is named, and what that means at the table (it said "dice are read as plain d6": only pip
    # dice are; an untaught skid die is entered with the buttons)
    assert ("none taught yet (no file); not taught: skid, road, stunt, shooting, bump, fire dice (the camera reads pip dice only; these "
            "are entered with the buttons until taught)") in none_yet.detail, none_yet.detail
    assert f"`mv '{damaged}' '{damaged}.bad'`" in problem.message
    # a relative --config is offered whole (an ssh shell in another folder is where the owner types it), and the
    # file it came from is no setting: the same settings read from elsewhere are the same config
    monkeypatch.chdir(tmp_path)
    assert load_config("own.toml").config_option() == str(cfg)
    assert load_config("own.toml") == parse_config(tomllib.loads(cfg.read_text()), source="own.toml", base=tmp_path)
    # the default config needs no --config: the command offered has none
    monkeypatch.setattr("device.config.DEFAULT_PATH", cfg)
    assert load_config(cfg).config_option() is None


def test_check_warns_when_a_read_table_has_no_dice_region(tmp_path: Path) -> None:
    """The audit: with the table calibrated and no [camera] dice_region the dice are read from the whole frame,
    where hazard tokens were found as dice that cannot be read (2-6 a frame on rendered 1080p tables).  `check`
    said nothing of it."""
    from device.cli_device import probe_vision_files

    cal = tmp_path / "cal.json"
    save_calibration(_valid_calibration(), cal)
    lines = probe_vision_files(_config(tmp_path, calibration=cal))
    (warn,) = [line for line in lines if line.part == "dice region"]
    assert warn.status == "WARN" and "dice_region = [x, y, width, height]" in warn.detail and "tokens" in warn.detail
    with_region = _config(tmp_path, calibration=cal, camera={"backend": "replay", "device": str(tmp_path / "frames"),
                                                             "width": 64, "height": 48, "dice_region": [0, 0, 32, 24]})
    assert not [line for line in probe_vision_files(with_region) if line.part == "dice region"]
    # no table read (no calibration): the whole frame is the tray, nothing to warn of
    assert not [line for line in probe_vision_files(_config(tmp_path)) if line.part == "dice region"]
    # no camera (dice typed with the buttons): nothing is read at all (the review: a WARN that said "not used")
    no_camera = _config(tmp_path, calibration=cal, camera={"backend": "none"})
    assert not [line for line in probe_vision_files(no_camera) if line.part == "dice region"]


def test_from_files_without_a_problems_list_raises_a_user_error(tmp_path: Path) -> None:
    from device.camera_input import VisionReader

    cal = tmp_path / "cal.json"
    cal.write_text("[]", encoding="utf-8")
    with pytest.raises(UserError, match="is not a calibration"):
        VisionReader.from_files(cal, None)


def test_the_camera_off_leaves_the_files_alone_at_run_and_check_only_warns(tmp_path: Path, factory) -> None:
    cal = tmp_path / "cal.json"
    cal.write_text("{", encoding="utf-8")
    config = _config(tmp_path, calibration=cal, camera={"backend": "none"})
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=lambda m: None)
    try:
        assert appliance.camera is None and not appliance.file_problems
    finally:
        appliance.close()
    out = io.StringIO()
    from gpiozero.pins.mock import MockFactory

    f = MockFactory()
    try:
        run_check(config, out=out, pin_factory=f, smbus_factory=lambda port: (_ for _ in ()).throw(FileNotFoundError()))
    finally:
        f.reset()
    lines_text = out.getvalue().splitlines()
    assert any(l.startswith("WARN  calibration:") and 'not used: camera backend "none"' in l for l in lines_text)


def test_a_bad_setup_does_not_strand_the_game_under_way(tmp_path: Path, factory) -> None:
    """An audit: the owner edits the next game's setup (a quote left open), then a power cut: `pitboard run`
    refused to start, and the unfinished game in the log was stranded.  It needs no setup: it is resumed, the
    setup's fault said in the journal (and a new game still refuses it)."""
    setup = tmp_path / "setup.toml"
    config = _config(tmp_path, game={"name": "space_race"}, screens=[{"player": "USA"}, {"player": "USSR",
                                                                                          "address": 0x3D}])
    first = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    game_id = first.game_id
    first.close()
    factory.reset()
    setup.write_text('edition = "deluxe\n', encoding="utf-8")
    config = _config(tmp_path, game={"name": "space_race", "setup": str(setup)},
                     screens=[{"player": "USA"}, {"player": "USSR", "address": 0x3D}])
    logs: list[str] = []
    again = build_appliance(config, pin_factory=factory, screen_backend="recording", log=logs.append)
    try:
        assert again.resumed and again.game_id == game_id
        said = [m for m in logs if m.startswith("warning:") and str(setup) in m]
        assert said and "needed only to begin the next new game" in said[0], logs
    finally:
        again.close()
    factory.reset()
    line = next(l for l in _check(config)[1] if l.startswith(("FAIL  game space_race", "WARN  game space_race")))
    assert line.startswith("WARN") and f"run resumes the unfinished space_race game {game_id}" in line, line
    # a setup the rules refuse (valid TOML) is needed no more than one that does not parse: run resumes
    setup.write_text('edition = "gold"\n', encoding="utf-8")
    line = next(l for l in _check(config)[1] if l.startswith(("FAIL  game space_race", "WARN  game space_race")))
    assert line.startswith("WARN") and f"run resumes the unfinished space_race game {game_id}" in line, line
    assert "gold" in line, line
    setup.write_text('edition = "deluxe\n', encoding="utf-8")
    # check run by a login user who may not look at the service's game log: run may resume, check cannot tell
    service = tmp_path / "service"  # the service's folder (mode 0750), its log in it
    closed = _config(tmp_path, game={"name": "space_race", "setup": str(setup)}, store={"path": str(service / "g.sqlite")},
                     screens=[{"player": "USA"}, {"player": "USSR", "address": 0x3D}])
    with pytest.MonkeyPatch.context() as mp:
        _closed_folder(mp, service)
        line = next(l for l in _check(closed)[1] if l.startswith(("FAIL  game space_race", "WARN  game space_race")))
    assert line.startswith("WARN") and "cannot be looked at by this user: run resumes an unfinished game" in line, line
    with pytest.MonkeyPatch.context() as mp:  # the folder open, the log file itself not readable by this user
        real = os.access
        mp.setattr(os, "access", lambda p, mode, *a, **k: False if str(p).endswith("games.sqlite") else real(p, mode))
        mp.setattr(cli_device, "_unfinished_in_log", lambda config: None)  # (as Store cannot open it then)
        line = next(l for l in _check(config)[1] if l.startswith(("FAIL  game space_race", "WARN  game space_race")))
    assert line.startswith("WARN") and "cannot be looked at by this user: run resumes an unfinished game" in line, line
    from device.store import Store

    with Store(tmp_path / "games.sqlite") as store:
        store.finish(game_id)
    with pytest.raises(UserError, match="not valid TOML"):
        build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    assert any(l.startswith("FAIL  game space_race") for l in _check(config)[1])


@pytest.mark.parametrize("kind", ["a folder", "binary", "deeply nested", "missing"])
def test_a_bad_setup_path_is_a_clear_message_at_run_and_in_check(kind: str, tmp_path: Path, factory) -> None:
    setup = tmp_path / "setup.toml"
    expected = {"a folder": "is a folder", "binary": "not UTF-8", "deeply nested": "nested too deeply",
                "missing": "does not exist"}[kind]
    if kind == "a folder":
        setup.mkdir()
    elif kind == "binary":
        setup.write_bytes(b"\xff\xfe\x00game")
    elif kind == "deeply nested":
        setup.write_text("a = " + _deep_json(), encoding="utf-8")
    config = _config(tmp_path, game={"name": "gaslands", "setup": str(setup)})
    with pytest.raises(UserError) as caught:
        build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    message = str(caught.value)
    assert f"setup file {setup}" in message and expected in message, message
    rc, lines = _check(config)
    line = next(l for l in lines if l.startswith("FAIL  game gaslands:"))
    assert str(setup) in line and expected in line, line


def test_the_shipped_config_names_the_file_calibrate_writes() -> None:
    doc = tomllib.loads((ROOT / "firmware_config" / "pitboard.toml").read_text(encoding="utf-8"))
    assert Path(doc["vision"]["calibration"]).name == CALIBRATION_FILE
    assert Path(doc["vision"]["faces"]).name == "faces.json"
    mentions = [p for p in (ROOT / "firmware_config").iterdir() if p.is_file() and p.suffix in (".toml", ".md")]
    mentions += [ROOT / "deploy" / "README.md"]
    for p in mentions:
        assert "/calibration.json" not in p.read_text(encoding="utf-8").replace("`calibration.json`", ""), p


def test_cmd_run_with_a_damaged_calibration_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pitboard run`` itself: the appliance is built and the loop runs (stopped at once here)."""
    cal = tmp_path / "table_calibration.json"
    cal.write_bytes(b"\x00\x01binary")
    config = _config(tmp_path, calibration=cal)
    built = []

    def fake_build(cfg):
        from gpiozero.pins.mock import MockFactory

        appliance = build_appliance(cfg, pin_factory=MockFactory(), screen_backend="recording", log=lambda m: None,
                                    camera_backend=ReplayBackend(tmp_path / "frames"))
        appliance.app.run = lambda stop: built.append(stop())
        return appliance

    monkeypatch.setattr(cli_device.signal, "signal", lambda *a: None)  # keep pytest's own SIGTERM handler
    monkeypatch.setattr(cli_device, "load_config", lambda path: config)
    monkeypatch.setattr(cli_device, "build_appliance", fake_build)
    import argparse

    assert cli_device.cmd_run(argparse.Namespace(config="x")) == 0
    assert built == [False]


def test_broken_dice_models_are_named_at_start_and_by_check(tmp_path: Path, factory, monkeypatch) -> None:
    """Issue 14, item 3: "a missing or unloadable model is a clear error at start (and `pitboard check`
    names it), not a silent fallback"."""
    import vision.dice as vd

    monkeypatch.setattr(vd, "check_models", lambda: ["vision/dice/reader.onnx cannot be loaded (truncated); "
                                                     "reinstall Pitboard"])
    config = _config(tmp_path)
    clock, logs = Clock(), []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=clock,
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        warning = next(m for m in logs if "reader.onnx" in m)
        assert warning.startswith("warning:") and "enter them with the buttons" in warning
        assert all("BAD" in t or "DICE MODELS BROKEN" in t for t in _screen_alerts(appliance).values())
        _plays(appliance, factory, clock)
    finally:
        appliance.close()
    rc, lines = _check(config)
    assert rc == 1 and any(l.startswith("FAIL  models:") and "reader.onnx cannot be loaded" in l for l in lines)


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_check_names_a_game_log_that_run_would_refuse_and_leaves_it_as_it_was(tmp_path: Path, factory) -> None:
    # Seen: a damaged games.sqlite stopped `pitboard run` ("is not a Pitboard game log or is damaged"), and
    # `pitboard check`, the self-test the owner is sent to, said nothing about the game log at all.
    config = _config(tmp_path)
    rc, lines = _check(config)
    assert any(l.startswith("OK    game log:") and "none yet" in l for l in lines), lines
    assert not (tmp_path / "games.sqlite").exists()  # looking made no file
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=lambda m: None, camera_backend=ReplayBackend(tmp_path / "frames"))
    appliance.close()
    rc, lines = _check(config)
    assert any(l.startswith("OK    game log:") and "unfinished gaslands game 1" in l for l in lines), lines
    log = tmp_path / "games.sqlite"
    with open(log, "r+b") as fh:
        fh.seek(8200)  # inside the events' page
        fh.write(b"garbage!" * 3)
    before = _digest(log)
    rc, lines = _check(config)
    bad = [l for l in lines if l.startswith("FAIL  game log:")]
    assert rc == 1 and len(bad) == 1 and "damaged" in bad[0] and str(log) in bad[0], lines
    assert _digest(log) == before


@pytest.mark.parametrize("argv", [
    ["teach", "dice", "--die", "skid", "--face", "SPIN", "IMAGE"],
    ["vision", "read", "IMAGE"],
    ["calibrate", "IMAGE"],
    ["check", "--config", "CONFIG"],
])
def test_a_data_folder_that_cannot_be_made_is_named_not_a_traceback(argv: list[str], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # Seen: PITBOARD_DATA on a read-only card (or under a file) ended `teach dice`, `vision read`, `calibrate`
    # and `check` in "NotADirectoryError: [Errno 20] Not a directory: '/.../data'" and a traceback.
    from device.cli import main

    in_the_way = tmp_path / "afile"
    in_the_way.write_text("")
    monkeypatch.setenv("PITBOARD_DATA", str(in_the_way / "data"))
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.full((48, 64, 3), 180, np.uint8))
    config = tmp_path / "pitboard.toml"
    config.write_text('[camera]\nbackend = "none"\n', encoding="utf-8")
    argv = [str(image) if a == "IMAGE" else str(config) if a == "CONFIG" else a for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert f"the data folder {in_the_way / 'data'} cannot be made" in err and "PITBOARD_DATA" in err, err
    assert in_the_way.read_text() == ""


def test_check_run_by_a_user_who_may_not_look_in_the_data_folder_says_so(tmp_path: Path, monkeypatch) -> None:
    # The quick start runs `pitboard check` as the login user; /var/lib/pitboard is the service user's (0750):
    # looking at the game log there raised PermissionError out of Path.exists
    log = tmp_path / "private" / "games.sqlite"
    config = _config(tmp_path, store={"path": str(log)})
    real_stat = Path.stat

    def stat(self: Path, *a, **k):
        if str(self).startswith(str(log.parent)):
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *a, **k)

    monkeypatch.setattr(Path, "stat", stat)
    lines = [line for line in _check(config)[1] if "game log" in line]
    assert len(lines) == 1 and lines[0].startswith("WARN  game log:") and "sudo -u pitboard" in lines[0], lines
    # the calibration and face library in that folder too (they raised out of Path.is_dir)
    config = _config(tmp_path, calibration=log.parent / "table_calibration.json", faces=log.parent / "faces.json")
    lines = [line for line in _check(config)[1] if "calibration" in line]
    assert len(lines) == 1 and lines[0].startswith("WARN  calibration, face library:"), lines


def test_a_missing_configured_calibration_says_where_calibrate_must_write_it(tmp_path: Path) -> None:
    """check said "run `pitboard calibrate IMAGE` ... to write it again": calibrate writes into the data folder
    of the user running it, not the file [vision] names, so check went on failing.  The command now names
    the file (--out), and a pitboard.toml from before, naming calibration.json, is told the new name."""
    from device.table_files import CALIBRATION_FILE

    configured = tmp_path / "var" / "table_calibration.json"
    configured.parent.mkdir()
    _, problem = read_calibration_file(configured)
    assert problem is not None and f"{configured} does not exist" in problem.message
    assert f"run `pitboard calibrate IMAGE --out {configured}`" in problem.message and "again" not in problem.message
    old = tmp_path / "var" / "calibration.json"
    configured.write_text(json.dumps(Calibration(px_to_mm=np.eye(3), image_size=(640, 480),
                                                 mat_mm=(640.0, 480.0)).to_dict()))
    _, problem = read_calibration_file(old)
    assert problem is not None and CALIBRATION_FILE == configured.name
    assert (f"the calibration {old} does not exist, but {configured} beside it does (calibrate writes that name): "
            f"change [vision] calibration in pitboard.toml to {configured}") in problem.message


def test_the_appliance_config_given_as_a_table_config_is_named(tmp_path: Path, capsys) -> None:
    """The deploy README said to give calibrate `--config /etc/pitboard/pitboard.toml`: "unknown table
    config key 'game'".  There --config is the table config; the refusal says which file it was given."""
    from device.cli import main

    shipped = Path(__file__).resolve().parents[2] / "firmware_config" / "pitboard.toml"
    for argv in (["calibrate", str(tmp_path / "frame.png"), "--config", str(shipped)],
                 ["markers", "--out", str(tmp_path / "m.pdf"), "--config", str(shipped)]):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and f"{shipped} is the appliance's configuration (its [buttons]" in err
        assert "here --config takes table.toml" in err and "sudo -u pitboard PITBOARD_DATA=/var/lib/pitboard" in err
    assert not (tmp_path / "m.pdf").exists()


def test_check_warns_of_a_taught_die_no_game_rolls(tmp_path: Path, factory) -> None:
    """A review: a die renamed by hand in faces.json ('skdi') passed `check` as "OK face library: 1 taught
    face(s)"; the game's skid then went untaught without a word.  A WARN names it with the near name."""
    from vision.dice.faces import PATCH, FaceLibrary

    faces = tmp_path / "faces.json"
    lib = FaceLibrary()
    lib.add("skdi", [("SHIFT", np.zeros((PATCH, PATCH), np.float32))])
    faces.write_text(json.dumps(lib.to_dict()), encoding="utf-8")
    config = _config(tmp_path, faces=faces)
    lines = [line for line in _check(config)[1] if "face library" in line]
    assert len(lines) == 1 and lines[0].startswith("WARN  face library:"), lines
    assert "no game rolls the die 'skdi' (did you mean skid?): the camera never reads it" in lines[0], lines
    # and the appliance's journal says it at start (a note: the library is read, the screens carry no alarm)
    logs: list[str] = []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert appliance.app.reader.faces.dice() == ["skdi"]
        assert any(m.startswith("note:") and "no game rolls the die 'skdi'" in m for m in logs), logs
        assert not any("FACES" in " ".join(t) for t in _screen_alerts(appliance).values())
    finally:
        appliance.close()


def test_a_face_library_taught_whole_on_the_page_takes_the_notice_away(tmp_path: Path, factory) -> None:
    """An audit: the appliance started with a damaged faces.json, the owner mended it and taught a face on the
    phone's page; the reader held the new library, but every screen still said "FACES FILE BAD: plain d6"."""
    from types import SimpleNamespace

    from device.web import WebService
    from vision.dice.faces import PATCH, FaceLibrary

    faces = tmp_path / "faces.json"
    faces.write_text('{"format": "pitboard-faces", "format": 1}', encoding="utf-8")
    config = _config(tmp_path, faces=faces)
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=lambda m: None, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert all("FACES FILE BAD: plain d6" in t for t in _screen_alerts(appliance).values())
        library = FaceLibrary()
        library.add("skid", [("SHIFT", np.zeros((PATCH, PATCH), np.float32))])
        WebService._use_library(SimpleNamespace(app=appliance.app), library)  # what the page calls once saved
        assert appliance.app.reader.faces is library
        assert not any("FACES FILE BAD" in " ".join(t) for t in _screen_alerts(appliance).values())
    finally:
        appliance.close()


def _closed_folder(monkeypatch, folder: Path) -> None:
    """A folder the user running Pitboard may not enter (root passes every permission here: a stand-in for the
    kernel refuses to look into it, as Path.stat is refused there)."""
    real_stat = Path.stat

    def stat(self: Path, *a, **k):
        if str(self).startswith(str(folder) + "/"):
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *a, **k)

    monkeypatch.setattr(Path, "stat", stat)


def test_run_with_its_files_in_a_folder_closed_to_it_plays_on_and_says_so(tmp_path: Path, factory,
                                                                          monkeypatch) -> None:
    """An audit: [vision] faces, tokens or calibration in a folder the service user may not enter stopped
    `pitboard run` with a PermissionError traceback (Path.exists raises there); under systemd it restarted and
    crashed again, the screens dark.  A file that cannot be read is told and the game goes on without it."""
    closed = tmp_path / "private"
    config = _config(tmp_path, calibration=closed / "table_calibration.json", faces=closed / "faces.json")
    config = dataclasses.replace(config, vision=dataclasses.replace(config.vision, tokens=closed / "tokens.npz"))
    _closed_folder(monkeypatch, closed)
    clock, logs = Clock(), []
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=clock,
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        warnings = [m for m in logs if m.startswith(("warning:", "note:"))]
        for name in ("table_calibration.json", "faces.json"):  # (no calibration: the token look is not read)
            said = [w for w in warnings if str(closed / name) in w]
            assert said and "cannot be reached (Permission denied" in said[0] and "give the user running" in said[0], \
                (name, warnings)
        _plays(appliance, factory, clock)
    finally:
        appliance.close()
    from device.camera_input import read_token_look

    base = object()
    look, problem = read_token_look(base, closed / "tokens.npz")
    assert look is base and problem is not None and "cannot be reached (Permission denied" in problem.message


def test_a_game_log_in_a_folder_closed_to_it_is_refused_in_words(tmp_path: Path, factory, monkeypatch) -> None:
    closed = tmp_path / "private"
    config = _config(tmp_path, store={"path": str(closed / "games.sqlite")})
    _closed_folder(monkeypatch, closed)
    with pytest.raises(UserError) as caught:
        build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    message = str(caught.value)
    assert str(closed / "games.sqlite") in message and "cannot be reached (Permission denied" in message, message


def test_check_names_a_damaged_table_config(tmp_path: Path, monkeypatch) -> None:
    """An audit: car_size_mm = "big" in the data folder's table.toml was named by `run` and `vision read`, and
    every line of check said OK."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    config = _config(tmp_path)
    line = next(l for l in _check(config)[1] if "table config" in l)
    assert line.startswith("OK    table config:") and "shipped" in line and "none of table.toml" in line, line
    (data / "table.toml").write_text("[cars]\nlength_mm = 75\n", encoding="utf-8")
    line = next(l for l in _check(config)[1] if "table config" in l)
    assert line.startswith("OK    table config:") and "table.toml read over the shipped" in line, line
    (data / "table.toml").write_text('[tags]\ncar_size_mm = "big"\n', encoding="utf-8")
    line = next(l for l in _check(config)[1] if "table config" in l)
    assert line.startswith("WARN  table config:") and "tags.car_size_mm must be a number" in line, line
    (data / "table.toml").unlink()
    # a data folder this user cannot look into: said as a WARN (check as the login user), not a PermissionError
    # traceback out of the setup's car tags, which read the table config too
    _closed_folder(monkeypatch, data)
    outside = _config(tmp_path, calibration=tmp_path / "cal.json")  # (a calibration in it is the line said first)
    line = next((l for l in _check(outside)[1] if "table config" in l), None)
    assert line is not None and line.startswith("WARN  table config:") and str(data) in line, line
    assert "cannot be looked at by this user" in line and "sudo -u pitboard" in line, line
    lines = _check(config)[1]
    assert any(l.startswith("WARN") and str(data) in l and "cannot be looked at" in l for l in lines), lines
    from device.camera_input import read_table_config

    _cfg, problem = read_table_config()
    assert problem is not None and "cannot be reached" in problem.message and not problem.severe, problem


def test_check_warns_of_a_player_whose_tokens_have_no_zone(tmp_path: Path) -> None:
    """An audit: a 5-player Gaslands setup and a calibration with the default four token zones: check said "OK
    calibration ... the table is read", and player 5's tokens were never counted."""
    from vision.calibration import default_zones

    cal = tmp_path / "cal.json"
    calibration = dataclasses.replace(_valid_calibration(), zones=default_zones((800.0, 450.0)))
    save_calibration(calibration, cal)
    seats = "".join(f'[[players]]\nname = "{p}"\n[[players.vehicles]]\nid = "{p.lower()}"\ntype = "buggy"\n\n'
                    for p in ("Ann", "Ben", "Cy", "Dee", "Eve"))
    setup = tmp_path / "setup.toml"
    setup.write_text('[scenario]\npole = "Ann"\n\n' + seats, encoding="utf-8")
    config = _config(tmp_path, calibration=cal, game={"name": "gaslands", "setup": str(setup)},
                     screens=[{"player": p, "port": k} for k, p in enumerate(("Ann", "Ben", "Cy", "Dee", "Eve"), 1)])
    lines = [l for l in _check(config)[1] if "token zones" in l]
    assert len(lines) == 1 and lines[0].startswith("WARN  token zones: no token zone for Eve (p5"), lines
    assert "`pitboard markers --out markers.pdf --cards 5`" in lines[0]  # a command that runs as given
    setup.write_text('[scenario]\npole = "Ann"\n\n' + seats.split("[[players]]\nname = \"Eve\"")[0], encoding="utf-8")
    assert not [l for l in _check(config)[1] if "token zones" in l]
    # the phone's Check of a game in play begun from the phone's set-up (no options at hand): its views say whose
    # tokens lie where (check said nothing of Eve's)
    from device.cli_device import probe_game
    from device.web import Playing
    from games.core.match import replay
    from games.gaslands import GAME

    options = tomllib.loads('[scenario]\npole = "Ann"\n\n' + seats)
    views = tuple(GAME.views(replay(GAME, GAME.start(options))))
    playing = Playing("gaslands", 4, ("Ann", "Ben", "Cy", "Dee", "Eve"), {}, views)
    lines = [str(l) for l in probe_game(config, playing=playing) if l.part == "token zones"]
    assert len(lines) == 1 and "no token zone for Eve (p5" in lines[0], lines
