"""`pitboard sim` fed keystrokes from a string (no tty), and the device commands' handlers."""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device import cli_device
from device.cli import UserError
from device.config import load_config, parse_config
from device.sim import FIRST_FRAME_MARK, Sim

EXAMPLE = Path(__file__).resolve().parents[2] / "firmware_config" / "pitboard.toml"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def _commands(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("[")]


def test_sim_plays_gaslands_from_keystrokes(tmp_path: Path) -> None:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, db=tmp_path / "sim.sqlite", clock=lambda: 0.0)
    try:
        sim.step()
        # pick a vehicle if asked, choose the first template, place it, type a skid roll of SHIFT, SLIDE
        keys = ("o" if sim.app.prompt().awaits == "vehicle" else "") + "on15\n"
        sim.feed(keys)
    finally:
        sim.close()
    text = out.getvalue()
    lines = _commands(text)
    assert any("'choose_template'" in line and line.endswith("-> ok") for line in lines)
    assert "[keyboard] {'type': 'skid_roll', 'faces': ['SHIFT', 'SLIDE']} -> ok" in lines
    assert "1.4 spend" in text  # the prompt after the roll
    assert "┌ Alice" in text and "┌ Bob" in text  # both screens drawn as text


def test_sim_shows_refusals_and_quits_on_q(tmp_path: Path) -> None:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, clock=lambda: 0.0)
    try:
        sim.step()
        if sim.app.prompt().awaits == "vehicle":
            sim.feed("o")
        sim.feed("on")
        sim.feed("1234\n")  # four dice typed; the rules decide whether that many are allowed
        sim.feed("q")
        sim.feed("n")  # ignored after q
        assert sim.quit
    finally:
        sim.close()
    roll = [line for line in _commands(out.getvalue()) if "skid_roll" in line]
    assert len(roll) == 1 and ("-> ok" in roll[0] or "REFUSED" in roll[0])


def test_sim_unknown_key_and_digit_out_of_place() -> None:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, clock=lambda: 0.0)
    try:
        sim.feed("x7")
    finally:
        sim.close()
    text = out.getvalue()
    assert "key 'x' does nothing (? for help)" in text
    assert "no dice are awaited now" in text or "has 6 faces" in text


@dataclass(frozen=True)
class Reading:
    value: Any
    center: tuple[float, float]


class GreyReader:
    """Reads the skid faces from the photo's grey level (the test photos are made that way)."""

    faces = {50: ["SPIN"], 100: ["SHIFT", "HAZARD"]}

    def read_dice(self, image: np.ndarray, die: str) -> list[Reading]:
        grey = int(image[0, 0, 0])
        return [Reading(v, (20.0 + 40 * i, 20.0)) for i, v in enumerate(self.faces.get(grey, []))]

    def read_table(self, image: np.ndarray) -> None:
        return None


def roll_the_tray(sim: Sim) -> None:
    """Pick the vehicle if asked, OK the first template, NEXT to the skid check, then r: the next tray image."""
    try:
        sim.step()
        if sim.app.prompt().awaits == "vehicle":
            sim.feed("o")
        sim.feed("onr")
    finally:
        sim.close()


def test_sim_reads_dice_from_image_files(tmp_path: Path) -> None:
    folder = tmp_path / "rolls"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((40, 60, 3), 100, np.uint8))
    out = io.StringIO()
    sim = Sim("gaslands", out=out, dice_images=folder, reader=GreyReader(), clock=lambda: 0.0)
    roll_the_tray(sim)
    assert "[camera] {'type': 'skid_roll', 'faces': ['SHIFT', 'HAZARD']} -> ok" in _commands(out.getvalue())


def test_sim_dice_images_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a folder"):
        Sim("gaslands", dice_images=tmp_path / "none")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no images"):
        Sim("gaslands", dice_images=tmp_path / "empty")
    with pytest.raises(LookupError, match="no game called 'chess'"):
        Sim("chess")


# -- the command handlers -------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitboard")
    top = parser.add_subparsers(dest="command")
    bench = top.add_parser("bench").add_subparsers(dest="bench_what")
    cli_device.register({"top": top, "bench": bench})
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.func(args))


def test_sim_command_with_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["sim", "--keys", "?q"]) == 0
    out = capsys.readouterr().out
    assert "NEXT" in out and "┌ Alice" in out
    assert _run(["sim", "--exit-after-first-frame"]) == 0
    assert FIRST_FRAME_MARK in capsys.readouterr().out


def test_sim_command_unknown_game_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no game called 'chess'"):
        _run(["sim", "chess", "--keys", "q"])


class FakeBus:
    """smbus2.SMBus stand-in: devices present at (port, address), a mux that routes channels."""

    def __init__(self, port: int, present: set[tuple[int, int | None, int]]) -> None:
        self.port, self.present, self.channel = port, present, None
        self.writes: list[tuple[int, tuple[int, ...]]] = []

    def write_byte(self, addr: int, value: int) -> None:
        if (self.port, None, addr) not in self.present:
            raise OSError(121, "Remote I/O error")
        self.channel = value.bit_length() - 1 if value else None
        self.writes.append((addr, (value,)))

    def write_byte_data(self, addr: int, reg: int, value: int) -> None:
        if (self.port, self.channel, addr) not in self.present:
            raise OSError(121, "Remote I/O error")
        self.writes.append((addr, (reg, value)))

    def close(self) -> None:
        pass


def _buses(present: set[tuple[int, int | None, int]], ports: set[int]) -> Any:
    def open_bus(port: int) -> FakeBus:
        if port not in ports:
            raise FileNotFoundError(f"/dev/i2c-{port}")
        return FakeBus(port, present)

    return open_bus


def test_check_all_parts_ok_with_mock_pins_and_a_fake_bus(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f.png"), np.zeros((48, 64, 3), np.uint8))
    config = parse_config({
        "camera": {"backend": "replay", "device": str(frames)},
        "screens": [{"player": "Alice", "address": 0x3C},
                    {"player": "Bob", "mux_address": 0x70, "mux_channel": 3, "driver": "sh1106"}],
        "buttons": {"players": [5, 6]},
    })
    out = io.StringIO()
    factory = MockFactory()
    try:
        rc = cli_device.run_check(config, out=out, pin_factory=factory,
                                  smbus_factory=_buses({(1, None, 0x3C), (1, None, 0x70), (1, 3, 0x3C)}, {1}))
    finally:
        factory.reset()
    text = out.getvalue()
    assert rc == 0, text
    lines = text.splitlines()
    assert "OK    screen Alice (ssd1306, i2c-1 0x3C): answers" in lines
    assert "OK    screen Bob (sh1106, i2c-1 mux 0x70 ch 3 0x3C): answers" in lines
    assert "OK    button NEXT (GPIO17): claimed, reads released" in lines
    assert "OK    button P2 (GPIO6): claimed, reads released" in lines
    assert "OK    camera (replay): gives 64x48 frames" in lines
    assert lines[-1] == "all parts OK"


def test_check_reports_each_missing_part_on_its_own_line(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    config = parse_config({
        "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D},
                    {"player": "Cat", "port": 3}, {"player": "Dan", "mux_address": 0x71, "mux_channel": 0}],
        "camera": {"backend": "replay", "device": str(tmp_path / "nothing")},
    })
    factory = MockFactory()
    out = io.StringIO()
    try:
        rc = cli_device.run_check(config, out=out, pin_factory=factory,
                                  smbus_factory=_buses({(1, None, 0x3C)}, {1}))
    finally:
        factory.reset()
    lines = out.getvalue().splitlines()
    assert rc == 1
    assert "OK    screen Alice (ssd1306, i2c-1 0x3C): answers" in lines
    assert any(l.startswith("FAIL  screen Bob (ssd1306, i2c-1 0x3D): nothing answers at 0x3D") for l in lines)
    assert any(l.startswith("FAIL  screen Cat (ssd1306, i2c-3 0x3C): /dev/i2c-3 does not exist") for l in lines)
    assert any(l.startswith("FAIL  screen Dan") and "no TCA9548A answers at 0x71" in l for l in lines)
    assert any(l.startswith("FAIL  camera (replay): replay folder") for l in lines)
    assert lines[-1] == "4 part(s) FAILED"
    assert "Traceback" not in out.getvalue()


def test_check_on_a_pc_without_gpio_or_i2c(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The real probes on this machine: no /dev/i2c-1, no pin factory, no picamera2 → clear FAIL lines."""
    from pathlib import Path as P

    if P("/dev/i2c-1").exists():
        pytest.skip("this machine has an I2C bus")
    rc = _run(["check", "--config", str(EXAMPLE)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAIL  screen Alice (ssd1306, i2c-1 0x3C): /dev/i2c-1 does not exist" in out
    assert "FAIL  button NEXT (GPIO17):" in out
    assert "FAIL  camera (picamera2):" in out
    assert "OK    config: pitboard.toml" in out


def test_check_with_a_bad_config_is_a_user_error(tmp_path: Path) -> None:
    bad = tmp_path / "pitboard.toml"
    bad.write_text("[[screens]]\nplayer = 'A'\naddress = 0x3E\n")
    with pytest.raises(UserError, match=r"pitboard.toml: screens\[0\].address: 0x3E is not an I2C address"):
        _run(["check", "--config", str(bad)])


def test_run_refuses_a_config_without_screens(tmp_path: Path) -> None:
    cfg = tmp_path / "pitboard.toml"
    cfg.write_text("[game]\nname = 'gaslands'\n")
    with pytest.raises(UserError, match="screens: none configured"):
        _run(["run", "--config", str(cfg)])


def test_example_config_loads_for_the_commands() -> None:
    assert load_config(EXAMPLE).screens[0].player == "Alice"


REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice-real" / "images" / "nell_IMG_20191208_112600.jpg"


@pytest.mark.skipif(not REAL.exists(), reason="the shared real-dice photos are not on this machine")
def test_sim_reads_a_real_d6_photo_through_vision(tmp_path: Path) -> None:
    """The real pipeline: a photo of one d6 showing 3 → vision.dice → the plain-d6 skid roll [3]."""
    import games.gaslands as gaslands

    setup = tmp_path / "table.toml"
    setup.write_text(gaslands.EXAMPLE_SETUP.replace('skid_dice = "skid"', 'skid_dice = "d6"'))
    folder = tmp_path / "rolls"
    folder.mkdir()
    (folder / REAL.name).write_bytes(REAL.read_bytes())
    out = io.StringIO()
    sim = Sim("gaslands", setup=setup, dice_images=folder, out=out, clock=lambda: 0.0)
    roll_the_tray(sim)
    assert "[camera] {'type': 'skid_roll', 'faces': [3]} -> ok" in _commands(out.getvalue())
