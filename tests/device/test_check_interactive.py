"""``pitboard check --interactive`` through its seams: luma's recording screens, gpiozero's mock pins, a still
camera, and scripted answers on stdin."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from device.cli_device import (
    check_buttons_interactive,
    draw_calibration,
    name_card,
    run_interactive_check,
)
from device.config import parse_config
from device.displays import RecordingSerial, build_screen

CONFIG = """
[[screens]]
player = "Alice"
address = 0x3C
[[screens]]
player = "Bob"
address = 0x3D
[buttons]
next = 17
back = 27
select = 22
ok = 23
players = [5, 6]
[camera]
backend = "none"
"""


def config(text: str = CONFIG):
    return parse_config(tomllib.loads(text))


class Screens:
    """Screens on recording serials; remembers what each showed."""

    def __init__(self, dead: str | None = None) -> None:
        self.screens: dict[str, object] = {}
        self.serials: dict[str, RecordingSerial] = {}
        self.shown: dict[str, list] = {}
        self.dead = dead

    def __call__(self, cfg):
        if cfg.player == self.dead:
            raise OSError(121, "Remote I/O error")
        serial = self.serials[cfg.player] = RecordingSerial()
        screen = build_screen(cfg, "recording", serial_factory=lambda _spec: serial)
        shown = self.shown[cfg.player] = []
        real_show = screen.show

        def show(image, *args, **kwargs):
            shown.append(image.copy())
            return real_show(image, *args, **kwargs)

        screen.show = show
        self.screens[cfg.player] = screen
        return screen


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.t += dt


def press(factory: MockFactory, pin: int) -> None:
    """Press and release a button the way a finger does (the pin is pulled up; pressed = low)."""
    p = factory.pin(pin)
    p.drive_low()


def test_name_card_shows_the_name_large() -> None:
    card = name_card("Alice")
    assert card.mode == "1" and card.size == (128, 64)
    lit = np.asarray(card, dtype=bool)
    assert lit[8:48, 8:120].sum() > 150  # the name, big, in the middle


def test_screens_buttons_and_report_all_ok(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    factory = MockFactory()
    clock = FakeClock()
    screens = Screens()
    answers = io.StringIO("y\nyes\n")
    out = io.StringIO()
    pressed: list[int] = []

    def on_prompt(name: str, pin: int) -> None:
        for p in pressed:
            factory.pin(p).drive_high()  # the last finger is off
        press(factory, pin)
        pressed.append(pin)

    status = run_interactive_check(config(), inp=answers, out=out, screen_factory=screens, pin_factory=factory,
                                   camera_out=tmp_path / "view.png", on_button_prompt=on_prompt,
                                   clock=clock, sleep=clock.sleep, button_timeout_s=5)
    text = out.getvalue()
    assert status == 0, text
    assert 'shows "Alice"' in text and 'shows "Bob"' in text
    assert "OK    screen Alice (i2c-1 0x3C): confirmed at the right seat" in text
    for name, pin in [("NEXT", 17), ("BACK", 27), ("SELECT", 22), ("OK", 23), ("P1", 5), ("P2", 6)]:
        assert f"Press {name} (wired to GPIO{pin}) ... GPIO{pin}" in text
        assert f"OK    button {name} (GPIO{pin}): GPIO{pin} answered" in text
    assert "SKIP  camera view" in text  # backend "none"
    assert "calibration" in text and "face library" in text
    assert "OK    models:" in text and "detector.onnx" in text and "onnxruntime" in text
    assert text.rstrip().splitlines()[-1].startswith("interactive check: all parts OK")
    # each screen was given its own player's name card, and its bytes went over that screen's bus
    for player in ("Alice", "Bob"):
        assert [np.asarray(im).tolist() for im in screens.shown[player]] == [np.asarray(name_card(player)).tolist()]
        lit = int(np.asarray(name_card(player), dtype=bool).sum())
        sent_bits = sum(bin(b).count("1") for t in screens.serials[player].transfers if t.kind == "data"
                        for b in t.payload)
        assert sent_bits >= lit
        assert screens.screens[player].serial is None  # closed (blanked) afterwards


def test_a_screen_at_the_wrong_seat_and_a_dead_screen_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    factory = MockFactory()
    clock = FakeClock()
    out = io.StringIO()
    status = run_interactive_check(config(), inp=io.StringIO("n\n"), out=out, screen_factory=Screens(dead="Bob"),
                                   pin_factory=factory, camera_out=tmp_path / "v.png",
                                   clock=clock, sleep=clock.sleep, button_timeout_s=1)
    text = out.getvalue()
    assert status == 1
    assert "FAIL  screen Alice (i2c-1 0x3C): not at Alice's seat: swap the screens' cables" in text
    assert "FAIL  screen Bob (i2c-1 0x3D): cannot show the name" in text
    # nobody pressed anything: each button times out, naming its GPIO
    assert "FAIL  button NEXT (GPIO17): no GPIO answered in 1 s: check the button's wire to GPIO17" in text


def test_swapped_wires_report_which_gpio_answered() -> None:
    factory = MockFactory()
    clock = FakeClock()
    out = io.StringIO()
    swapped = {17: 27, 27: 17}  # NEXT's button is wired to BACK's pin and the other way round

    def on_prompt(name: str, pin: int) -> None:
        for p in (17, 27, 22, 23, 5, 6):
            factory.pin(p).drive_high()
        press(factory, swapped.get(pin, pin))

    lines = check_buttons_interactive(config(), out, pin_factory=factory, timeout_s=2, clock=clock,
                                      sleep=clock.sleep, on_prompt=on_prompt)
    got = {ln.part: (ln.status, ln.detail) for ln in lines}
    assert got["button NEXT (GPIO17)"][0] == "FAIL"
    assert got["button NEXT (GPIO17)"][1].startswith("GPIO27 answered, which is BACK's pin: the wires of NEXT and BACK")
    assert got["button BACK (GPIO27)"][1].startswith("GPIO17 answered, which is NEXT's pin")
    assert got["button SELECT (GPIO22)"] == ("OK", "GPIO22 answered")


def test_a_stuck_button_is_named_before_asking() -> None:
    from gpiozero.pins.mock import MockPin

    class StuckPin(MockPin):  # shorted to GND: the pull-up cannot lift it
        def _set_pull(self, value: str) -> None:
            self._pull = value
            self.drive_low()

    factory = MockFactory()
    factory.pin(23, pin_class=StuckPin)
    clock = FakeClock()
    lines = check_buttons_interactive(config(), io.StringIO(), pin_factory=factory, timeout_s=0.05, clock=clock,
                                      sleep=clock.sleep)
    ok_line = next(ln for ln in lines if ln.part == "button OK (GPIO23)")
    assert ok_line.status == "FAIL" and "stuck" in ok_line.detail


def _calibrated_frame(tmp_path: Path):
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import CarSpec, SceneSpec, render_scene

    spec = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)])
    img, _ = render_scene(spec, np.random.default_rng(3))
    det = {t.id: t.corners_px for t in detect_tags(img)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    return img, cal


def test_camera_view_is_saved_with_corners_and_zones_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from device.camera import StillBackend

    img, cal = _calibrated_frame(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "table_calibration.json").write_text(json.dumps(cal.to_dict()))
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    text = CONFIG.replace('backend = "none"', 'backend = "opencv"')
    out = io.StringIO()
    view = tmp_path / "view.png"
    clock = FakeClock()  # nobody presses: each button times out on this clock, not the wall's
    run_interactive_check(config(text), inp=io.StringIO("y\ny\n"), out=out, screen_factory=Screens(),
                          pin_factory=MockFactory(), camera_out=view, camera_backend=StillBackend(img),
                          clock=clock, sleep=clock.sleep, button_timeout_s=0.01)
    frame = tmp_path / "view-frame.png"
    assert f"OK    camera view: saved to {view} (the frame alone: {frame}); mat corners and" in out.getvalue()
    assert "cars seen: rust" in out.getvalue()  # by the example setup's vehicle tags, as the appliance names them
    assert np.array_equal(cv2.imread(str(frame)), img)  # the frame as the camera gave it, for calibrate
    saved = cv2.imread(str(view))
    assert saved.shape == img.shape
    from device.camera_input import tray_region
    from device.cli_device import draw_dice_region

    # where the dice are read too: no [camera] dice_region, so the calibration's tray zone (with its margin)
    expected, said = draw_dice_region(draw_calibration(img, cal), tray_region(cal), inferred=True)
    assert np.array_equal(saved, expected)
    assert "the dice are read inside the magenta box (the calibration's tray zone)" in out.getvalue() and said
    # the drawing is there: the mat's corner (0,0) in pixels is painted green
    x, y = np.round(cal.to_px(np.array([[0.0, 0.0]]))[0]).astype(int)
    ring = saved[y - 10:y + 11, x - 10:x + 11].reshape(-1, 3)
    assert any((p == (0, 255, 0)).all() for p in ring)
    assert "OK    calibration:" in out.getvalue()


def test_camera_view_without_calibration_says_nothing_was_drawn(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from device.camera import StillBackend

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    text = CONFIG.replace('backend = "none"', 'backend = "opencv"')
    out = io.StringIO()
    view = tmp_path / "view.png"
    clock = FakeClock()  # nobody presses: each button times out on this clock, not the wall's
    run_interactive_check(config(text), inp=io.StringIO(""), out=out, screen_factory=Screens(),
                          pin_factory=MockFactory(), camera_out=view,
                          camera_backend=StillBackend(np.full((120, 160, 3), 90, np.uint8)),
                          clock=clock, sleep=clock.sleep, button_timeout_s=0.01)
    text_out = out.getvalue()
    assert "nothing drawn: no usable calibration" in text_out
    assert view.exists()
    assert "SKIP  screen Alice" in text_out  # end of input: no answer, not a failure


def test_cli_flag_runs_the_interactive_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`pitboard check --interactive` on a PC: the plain check, then the interactive part; screens and
    GPIO missing are failures with a reason, never a traceback."""
    from gpiozero import Device

    from device import cli

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    monkeypatch.setattr("sys.stdin", io.StringIO("y\ny\n"))
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    # gpiozero keeps the default factory it makes (here: mock) for the whole process; put it back after,
    # or later tests that expect "no GPIO on this machine" would find mock pins.
    monkeypatch.setattr(Device, "pin_factory", None)
    cfg = tmp_path / "pitboard.toml"
    cfg.write_text(CONFIG)
    status = cli.run(["check", "--config", str(cfg), "--interactive", "--camera-out", str(tmp_path / "v.png"),
                      "--button-timeout", "0.05"])
    text = capsys.readouterr().out
    assert status == 1
    assert "Interactive check" in text and "Press NEXT (wired to GPIO17)" in text
    assert "interactive check:" in text


@pytest.mark.parametrize("value", ["0", "-3", "nan"])
def test_a_button_timeout_that_is_not_a_positive_number_is_refused_first(tmp_path: Path, value: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from device import cli

    cfg = tmp_path / "pitboard.toml"
    cfg.write_text(CONFIG)
    with pytest.raises(cli.UserError, match=r"--button-timeout .*: give a number of seconds above 0"):
        cli.run(["check", "--config", str(cfg), "--interactive", "--button-timeout", value])
    assert capsys.readouterr().out == ""  # refused before the plain check printed anything


def test_camera_view_names_a_car_tag_it_does_not_use_for_its_size(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from device.camera import StillBackend
    from device.cli_device import check_camera_view

    img, cal = _calibrated_frame(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "table_calibration.json").write_text(json.dumps(cal.to_dict()))
    (data / "table.toml").write_text("[tags]\ncar_size_mm = 28.0\n")  # the sheet was printed at 20 mm
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    line = check_camera_view(config(CONFIG.replace('backend = "none"', 'backend = "opencv"')),
                             tmp_path / "view.png", backend=StillBackend(img))
    assert line.status == "WARN" and "cars seen: none" in line.detail
    assert "not used: tag 10 (car rust) measures 20 mm, not 28 mm" in line.detail


def test_camera_view_says_nothing_of_a_tag_in_the_dice_tray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A die in the tray read as a tag is no misprint: the appliance ignores it, and so does the check."""
    import json

    from device.camera import StillBackend
    from device.cli_device import check_camera_view

    img, cal = _calibrated_frame(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "table_calibration.json").write_text(json.dumps(cal.to_dict()))
    (data / "table.toml").write_text("[tags]\ncar_size_mm = 28.0\n")
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    h, w = img.shape[:2]
    text = CONFIG.replace('backend = "none"', f'backend = "opencv"\ndice_region = [0, 0, {w}, {h}]')
    line = check_camera_view(config(text), tmp_path / "view.png", backend=StillBackend(img))
    assert line.status == "OK" and "not used" not in line.detail


def test_a_calibration_of_another_frame_size_fails_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibrated from a full-size still (rpicam-still's default) while the appliance asks the camera for
    1280x720: check said OK twice and the appliance read no frame of the table all evening.  Plain check
    compares with [camera]'s size; --interactive with the frame, which it saves for calibrate."""
    import json

    from device.camera import StillBackend
    from device.cli_device import probe_vision_files

    img, cal = _calibrated_frame(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "table_calibration.json").write_text(json.dumps(cal.to_dict()))
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    w, h = (int(v) for v in cal.image_size)
    asks = CONFIG.replace('backend = "none"', 'backend = "picamera2"\nwidth = 2304\nheight = 1296')
    line = probe_vision_files(config(asks))[0]
    assert line.status == "FAIL" and line.part == "calibration"
    assert f"is for {w}x{h} frames, but [camera] asks the camera for 2304x1296" in line.detail
    assert f"set [camera] width = {w}, height = {h}" in line.detail
    same = CONFIG.replace('backend = "none"', f'backend = "picamera2"\nwidth = {w}\nheight = {h}')
    assert probe_vision_files(config(same))[0].status == "OK"
    out = io.StringIO()
    view = tmp_path / "view.png"
    big = cv2.resize(img, (w * 2, h * 2))
    clock = FakeClock()
    run_interactive_check(config(CONFIG.replace('backend = "none"', 'backend = "opencv"')), inp=io.StringIO("y\ny\n"),
                          out=out, screen_factory=Screens(), pin_factory=MockFactory(), camera_out=view,
                          camera_backend=StillBackend(big), clock=clock, sleep=clock.sleep, button_timeout_s=0.01)
    frame = tmp_path / "view-frame.png"
    assert (f"FAIL  camera view: saved to {view} (the frame alone: {frame}); nothing drawn: the calibration is for "
            f"{w}x{h} frames, the camera gives {w * 2}x{h * 2}, so the table is not read; calibrate again from this "
            f"frame: `pitboard calibrate {frame}`") in out.getvalue()


def test_player_buttons_beyond_the_seated_players_are_not_asked_for() -> None:
    """The shipped file wires six optional player buttons; with the example's two players the owner waited
    out four 20-second timeouts and read four FAILs.  A button for an empty seat is SKIPped, not asked for."""
    factory = MockFactory()
    clock = FakeClock()
    asked: list[str] = []

    def on_prompt(name: str, pin: int) -> None:
        asked.append(name)
        for p in (17, 27, 22, 23, 5, 6, 13, 19):
            factory.pin(p).drive_high()
        press(factory, pin)

    six = config(CONFIG.replace("players = [5, 6]", "players = [5, 6, 13, 19]"))
    lines = check_buttons_interactive(six, io.StringIO(), pin_factory=factory, timeout_s=2, clock=clock,
                                      sleep=clock.sleep, on_prompt=on_prompt, seated=2)
    got = {ln.part: (ln.status, ln.detail) for ln in lines}
    assert asked == ["next", "back", "select", "ok", "p1", "p2"]
    assert got["button P2 (GPIO6)"] == ("OK", "GPIO6 answered")
    assert got["button P3 (GPIO13)"] == ("SKIP", "no player in seat 3 at this table (2 seated): not asked for; it is "
                                                 "used when one is")
    assert got["button P4 (GPIO19)"][0] == "SKIP"


def test_the_camera_view_shows_where_the_dice_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The view drew the calibration's "tray (dice)" zone, but the dice are read from [camera] dice_region,
    which it never drew: a tray set where the picture showed it gave no dice read.  The region is drawn."""
    from device.camera import StillBackend
    from device.cli_device import check_camera_view

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    img = np.full((240, 320, 3), 90, np.uint8)
    text = CONFIG.replace('backend = "none"', 'backend = "opencv"\nwidth = 320\nheight = 240\n'
                                                'dice_region = [200, 120, 100, 100]')
    view = tmp_path / "view.png"
    line = check_camera_view(config(text), view, StillBackend(img))
    assert "the dice are read inside the magenta box ([camera] dice_region): the tray must sit in it" in line.detail
    saved = cv2.imread(str(view))
    assert (saved[120, 250] == (255, 0, 255)).all() and (saved[170, 250] == 90).all()  # its edge, not its inside
    line = check_camera_view(config(CONFIG.replace('backend = "none"', 'backend = "opencv"')), view, StillBackend(img))
    assert "dice are read from the whole frame (no [camera] dice_region)" in line.detail


def test_a_dice_region_off_the_cameras_frame_fails_the_camera_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Found in review.)  The view said where the region runs past the frame but its line stayed OK."""
    from device.camera import StillBackend
    from device.cli_device import check_camera_view

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    text = CONFIG.replace('backend = "none"', 'backend = "opencv"\nwidth = 640\nheight = 480\n'
                                                'dice_region = [500, 400, 100, 60]')
    line = check_camera_view(config(text), tmp_path / "view.png", StillBackend(np.full((240, 320, 3), 90, np.uint8)))
    assert line.status == "FAIL" and "[camera] dice_region [500, 400, 100, 60] runs past the 320x240 frame" in line.detail


def test_a_die_taught_some_of_its_faces_is_a_warning_naming_the_others(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad-input audit: a skid die taught SHIFT and HAZARD only was "OK face library: 2 taught face(s)"; its
    SLIDE and SPIN are read as "?" at the table."""
    import numpy as np

    from device.cli_device import probe_vision_files
    from device.dice_library_files import save_library
    from vision.dice import FaceLibrary

    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("PITBOARD_DATA", str(data))
    lib = FaceLibrary()
    rng = np.random.default_rng(1)
    patch = rng.normal(size=(24, 24)).astype(np.float32)  # as face_patch makes them: zero mean, unit norm
    patch = (patch - patch.mean()) / np.linalg.norm(patch - patch.mean())
    lib.add("skid", [("SHIFT", patch), ("HAZARD", patch)])
    save_library(lib)
    camera_on = config(CONFIG.replace('backend = "none"', 'backend = "picamera2"'))
    (line,) = [ln for ln in probe_vision_files(camera_on) if ln.part == "face library"]
    assert line.status == "WARN" and "faces not taught: skid (SLIDE, SPIN)" in line.detail, line
    # not "the camera reads them as ?": a die showing one may read as the taught face it looks most like (an audit of
    # the dice commands: with SPIN alone taught, every die-like thing read SPIN)
    assert "the camera cannot read them (a die showing one reads \"?\", or as the taught face it looks most like)" \
        in line.detail, line
    lib.add("skid", [("SLIDE", patch), ("SPIN", patch)])
    save_library(lib)
    (line,) = [ln for ln in probe_vision_files(camera_on) if ln.part == "face library"]
    assert line.status == "OK" and "faces not taught" not in line.detail and "blank" not in line.detail, line
    # a face taught from a die with nothing printed on it is said: anything blank of a die's size reads as it
    lib.add("skid", [("SPIN", patch)], blank=(True,))
    save_library(lib)
    (line,) = [ln for ln in probe_vision_files(camera_on) if ln.part == "face library"]
    assert "taught blank (nothing printed on the die): skid SPIN: anything blank the size of a die, a tray's screw " \
        "holes too, is read as that die" in line.detail, line
    # two faces taught blank cannot be told apart: a blank die reads "?" (unsure), which holds the roll
    lib.add("skid", [("SLIDE", patch)], blank=(True,))
    save_library(lib)
    (line,) = [ln for ln in probe_vision_files(camera_on) if ln.part == "face library"]
    assert "skid SLIDE, SPIN (blank faces look alike: a blank die reads \"?\", which holds the roll; take one back)" \
        in line.detail, line
