"""`pitboard sim` fed keystrokes from a string (no tty), and the device commands' handlers."""

from __future__ import annotations

import argparse
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device import cli_device
from device.buttons import KEYMAP
from device.cli import UserError
from device.config import load_config, parse_config
from device.sim import FIRST_FRAME_MARK, KEYS_LINE, KeyDecoder, Sim, TerminalKeys, decode_keys, default_log

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
        # pick a vehicle if asked; OK OK: Straights › Short (NEXT does not guess a template); NEXT: Template
        # placed; then a skid roll of SHIFT, SLIDE typed
        keys = ("o" if sim.app.prompt().awaits == "vehicle" else "") + "oon15\n"
        sim.feed(keys)
    finally:
        sim.close()
    text = out.getvalue()
    lines = _commands(text)
    assert lines == [
        "[button] {'type': 'choose_template', 'template': 'short_straight'} -> ok",
        "[button] {'type': 'place_template'} -> ok",
        "[keyboard] {'type': 'skid_roll', 'faces': ['SHIFT', 'SLIDE']} -> ok",
    ]
    assert "  1.1 Template: Straights (1/8)" in text  # the menu page, in words under the screens
    assert "1.4 spend" in text  # the prompt after the roll
    assert "┌ Alice" in text and "┌ Bob" in text  # both screens drawn as text


def test_sim_next_sends_typed_dice_and_typed_dice_of_a_roll_gone_by_are_dropped(tmp_path: Path) -> None:
    """A maker's audit, four players: dice typed at Alice's skid check, then NEXT ("n"), sent her roll empty;
    the typed dice stood on her screen and went in as Bob's roll at the next Enter.  NEXT sends the typed dice as
    Enter does, and typed dice whose roll went by (an undo, a roll sent another way) are dropped, and said."""
    out = io.StringIO()
    sim = Sim("gaslands", out=out, db=tmp_path / "sim.sqlite", clock=lambda: 0.0)
    try:
        sim.step()
        sim.feed(("o" if sim.app.prompt().awaits == "vehicle" else "") + "oon12n")
        assert _commands(out.getvalue())[-1] == "[keyboard] {'type': 'skid_roll', 'faces': ['SHIFT', 'SHIFT']} -> ok"
        sim.feed("b")  # the roll undone: the skid check is awaited again
        assert sim.app.awaited_roll() is not None, sim.app.prompt().text
        sim.feed("4")
        assert sim.typed == ["HAZARD"]
        sim.feed("b")  # BACK at the top: undoes the template placed; the typed die's roll went by
        assert sim.typed == [] and "typed dice HAZARD dropped: the roll they were typed for went by" in out.getvalue()
        assert not [n for n in sim.app.notices if n.kind == "typing"]
    finally:
        sim.close()


def test_sim_shows_refusals_and_quits_on_q() -> None:
    from device.app import render_page
    from device.dashboards.pages import TextPage

    sim, out = _fresh()
    try:
        sim.feed("b")  # BACK at the top level is undo, and there is nothing to undo yet: the rules refuse
        chooser = sim.app.chooser()
        assert chooser == "Alice"
        view = next(v for v in sim.app.screen_views() if v.player == chooser)
        page = sim.app.page_for(chooser, view, 0.0, True)
        assert isinstance(page, TextPage) and page.title == "NOT ALLOWED"
        assert "nothing to undo" in " ".join(page.lines)  # the reason, on the sender's screen
        assert np.array_equal(np.asarray(sim.bank.frames[chooser]), np.asarray(render_page(page, True)))
        sim.feed("oon")  # the next press clears it: a template (Straights › Short), placed
        assert sim.app.refusal is None
        sim.feed("12345\n")  # five skid dice for a car of Handling 4: no roll, and nothing is sent
        assert sim.app.prompt().step.startswith("1.3")  # still the skid check
        sim.feed("q")
        sim.feed("n")  # ignored after q
        assert sim.quit
    finally:
        sim.close()
    text = out.getvalue()
    lines = _commands(text)
    assert lines[0] == ("[button] {'type': 'undo', 'steps': 1} -> "
                        "REFUSED: nothing to undo: this is the start of the game")
    assert len(lines) == 3 and not any("skid_roll" in line for line in lines)
    assert "! Alice: skid dice (up to 4): 5 dice make no roll" in text


def test_sim_unknown_key_and_digit_out_of_place() -> None:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, clock=lambda: 0.0)
    try:
        sim.feed("x7\u00b2")  # (the key "²", top left of a French keyboard: a digit to str.isdigit, not to int)
    finally:
        sim.close()
    text = out.getvalue()
    assert "key 'x' does nothing (? for help)" in text
    assert "key '\u00b2' does nothing (? for help)" in text
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
    """Pick the vehicle if asked, OK OK the first template, NEXT to place it (the skid check), then r: the
    next tray image."""
    try:
        sim.step()
        if sim.app.prompt().awaits == "vehicle":
            sim.feed("o")
        sim.feed("oon")
        assert sim.app.menu().dice is not None  # the skid check awaits the roll: the camera answers it
        sim.feed("r")
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


def test_sim_command_keeps_its_log_and_resumes(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    assert _run(["sim", "--keys", "soq"]) == 0
    first = capsys.readouterr().out
    log = data_dir / "sim-gaslands.sqlite"
    assert f"game log {log}: game 1 begins" in first
    assert f"game 1 is kept in {log}; `pitboard sim gaslands` resumes it" in first.splitlines()[-1]
    assert _run(["sim", "--keys", "q"]) == 0
    assert f"game log {log}: resumed game 1" in capsys.readouterr().out
    assert _run(["sim", "--new", "--keys", "q"]) == 0
    assert f"game log {log}: game 2 begins" in capsys.readouterr().out
    assert _run(["sim", "--no-log", "--keys", "q"]) == 0
    out = capsys.readouterr().out
    assert "no game log (--no-log)" in out and out.splitlines()[-1] == "the game was not kept (--no-log)"
    with pytest.raises(SystemExit):
        _run(["sim", "--no-log", "--db", "x.sqlite", "--keys", "q"])  # one or the other


def test_pitboard_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from device.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"pitboard {version('pitboard')}\n"


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
                    {"player": "Bob", "mux_address": 0x70, "mux_channel": 3, "address": 0x3D, "driver": "sh1106"}],
        "buttons": {"players": [5, 6]},
    })
    out = io.StringIO()
    factory = MockFactory()
    try:
        rc = cli_device.run_check(config, out=out, pin_factory=factory,
                                  smbus_factory=_buses({(1, None, 0x3C), (1, None, 0x70), (1, 3, 0x3D)}, {1}))
    finally:
        factory.reset()
    text = out.getvalue()
    assert rc == 0, text
    lines = text.splitlines()
    assert "OK    screen Alice (ssd1306, i2c-1 0x3C): answers" in lines
    assert "OK    screen Bob (sh1106, i2c-1 mux 0x70 ch 3 0x3D): answers" in lines
    assert "OK    button NEXT (GPIO17): claimed, reads released" in lines
    assert "OK    button P2 (GPIO6): claimed, reads released" in lines
    assert "OK    camera (replay): gives 64x48 frames" in lines
    assert lines[-1].startswith("all parts OK")  # (and the warnings above counted)


def test_check_reports_each_missing_part_on_its_own_line(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    config = parse_config({
        "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D},
                    {"player": "Cat", "port": 3}, {"player": "Dan", "port": 3, "mux_address": 0x71, "mux_channel": 0, "address": 0x3D}],
        "camera": {"backend": "replay", "device": str(tmp_path / "nothing")},
    })
    factory = MockFactory()
    out = io.StringIO()
    try:
        rc = cli_device.run_check(config, out=out, pin_factory=factory,
                                  smbus_factory=_buses({(1, None, 0x3C)}, {1, 3}))
    finally:
        factory.reset()
    lines = out.getvalue().splitlines()
    assert rc == 1
    assert "OK    screen Alice (ssd1306, i2c-1 0x3C): answers" in lines
    assert any(l.startswith("FAIL  screen Bob (ssd1306, i2c-1 0x3D): nothing answers at 0x3D") for l in lines)
    assert any(l.startswith("FAIL  screen Cat (ssd1306, i2c-3 0x3C): nothing answers at 0x3C") for l in lines)
    assert any(l.startswith("FAIL  screen Dan") and "no TCA9548A answers at 0x71" in l for l in lines)
    assert any(l.startswith("FAIL  camera (replay): replay folder") for l in lines)
    assert lines[-1].startswith("4 part(s) FAILED")
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
    with pytest.raises(UserError, match=r"pitboard.toml: screens\[0\].address \(line 3\): 0x3E is not an I2C address"):
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


# -- keys from a terminal -------------------------------------------------------------------------------


def keys_of(raw: bytes) -> list[str]:
    return list(decode_keys(raw.decode()))


@pytest.mark.parametrize("raw, keys", [
    (b"\x1b[A\x1b[B\x1b[C\x1b[D", ["Up", "Down", "Right", "Left"]),
    (b"\x1bOA\x1bOB\x1bOC\x1bOD", ["Up", "Down", "Right", "Left"]),  # application cursor mode
    (b"\x1b[5~\x1b[6~\x1b[2~\x1b[3~", ["PgUp", "PgDn", "Insert", "Delete"]),
    (b"\x1b[H\x1b[F\x1b[1~\x1b[4~\x1bOH\x1bOF\x1b[7~\x1b[8~", ["Home", "End"] * 4),
    (b"\x1b[1;5A\x1b[1;2B\x1b[1;3C\x1b[5;5~", ["Ctrl+Up", "Shift+Down", "Alt+Right", "Ctrl+PgUp"]),
    (b"\x1bOP\x1bOS\x1b[15~\x1b[24~\x1b[[A\x1b[[E\x1b[1;2P", ["F1", "F4", "F5", "F12", "F1", "F5", "Shift+F1"]),
    (b"\x1b[Z", ["Shift+Tab"]),
    (b"\x1b", ["Esc"]),  # a bare ESC, once the input pauses
    (b"\x1b\x1b[B", ["Esc", "Down"]),
    (b"\x1bq\x1bB", ["Alt+q", "Alt+B"]),
    (b"\x1b[99~\x1b[?1;2c\x1b[1;5X", ["Esc[99~", "Esc[?1;2c", "Esc[1;5X"]),  # unknown: one key each
    (b"\x1b[1;", ["Esc[1;"]),  # cut short: still one key, never "1" and ";"
    (b"\x1b[1\r", ["Esc[1", "Enter"]),  # broken by a control character, which is a key of its own
    (b"\r\n\t\x7f\x08\x04", ["Enter", "Enter", "Tab", "Backspace", "Backspace", "Ctrl+D"]),
    ("só!".encode(), ["s", "ó", "!"]),
])
def test_key_decoder_names_terminal_keys(raw: bytes, keys: list[str]) -> None:
    assert keys_of(raw) == keys


def test_key_decoder_is_incremental_and_no_part_of_a_sequence_is_a_key() -> None:
    decoder = KeyDecoder()
    assert decoder.feed("\x1b") == [] and decoder.pending
    assert decoder.feed("[") == [] and decoder.feed("6") == []
    assert decoder.feed("~") == ["PgDn"] and not decoder.pending
    assert decoder.flush() == []
    sequences = ["\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[5~", "\x1b[6~", "\x1b[1;5A", "\x1b[1;2B",
                 "\x1bOB", "\x1b[15~", "\x1b[[B", "\x1b[H", "\x1b[F", "\x1b[Z", "\x1bOS", "\x1b[200~"]
    for sequence in sequences:
        keys = list(decode_keys(sequence))
        assert len(keys) == 1 and len(keys[0]) > 1, (sequence, keys)
        assert keys[0] not in KEYMAP and not keys[0].isdigit() and keys[0] != "Enter"


def _fresh(**kwargs: Any) -> tuple[Sim, io.StringIO]:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, keep_log=False, clock=lambda: 0.0, **kwargs)
    sim.step()
    if sim.app.prompt().awaits == "vehicle":
        sim.feed("o")
    return sim, out


def test_sim_arrows_move_the_choice_and_never_undo_or_roll() -> None:
    """Down then Enter, PgDn then Enter: once BACK ×3 ("undo 3") and a die of 6.  Now Down and Up are
    SELECT and long SELECT, PgDn and the rest do nothing, and Enter with nothing typed sends nothing."""
    sim, out = _fresh()
    try:
        before = len(sim.app.history)
        sim.feed("\x1b[B\x1b[B\x1b[A")  # Down, Down, Up: one choice on
        sim.feed("\x1b[6~\r\x1b[5~\x1b[H\x1b[F\x1b[D\x1b[C\x1bOP\x1b[1;5B\x1b")
        assert len(sim.app.history) == before  # nothing recorded: no undo, no roll, no choice taken
        sim.feed("o")
        after = (sim.prompt_lines(), [a.command.to_json() for a in sim.app.history])
    finally:
        sim.close()
    text = out.getvalue()
    assert "key PgDn does nothing (? for help)" in text and "key Esc does nothing (? for help)" in text
    assert "Enter sends typed dice, and none are typed" in text
    assert not any("undo" in line for line in _commands(text))
    same, _ = _fresh()
    try:
        same.feed("so")  # SELECT once, OK: the same place
        assert (same.prompt_lines(), [a.command.to_json() for a in same.app.history]) == after
    finally:
        same.close()


def test_sim_backspace_takes_a_typed_die_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.core import Command, DiceRequest, Menu

    sim, out = _fresh()
    sent: list[list[Any]] = []
    skid = DiceRequest("skid", 3, "skid dice", lambda f: Command("skid_roll", {"faces": list(f)}), exact=False)
    try:
        monkeypatch.setattr(sim.app, "menu", lambda: Menu("1.3 Skid check", (), "Alice", "", skid))
        monkeypatch.setattr(sim.app, "entry", None, raising=False)
        monkeypatch.setattr(sim.app, "type_faces", lambda faces, *a, **k: sent.append(list(faces)))
        sim.feed("15\x7f6")  # SHIFT, SLIDE, Backspace, SPIN
        assert sim.typed == ["SHIFT", "SPIN"]
        sim.feed("\x7f\x7f\x7f")
        assert sim.typed == [] and "Backspace takes back a typed die, and none are typed" in out.getvalue()
        sim.feed("46\r\r")
    finally:
        sim.close()
    assert sent == [["HAZARD", "SPIN"]]  # the second Enter had nothing to send


def _frames(text: str) -> list[str]:
    assert text.startswith("\x1b[?1049h\x1b[?25l")  # the alternate screen, once
    assert text.count("\x1b[?1049h") == 1
    return [frame.split("\x1b[J")[0] for frame in text.split("\x1b[H")[1:]]


def test_sim_live_redraws_the_whole_frame_in_place() -> None:
    out = io.StringIO()
    sim = Sim("gaslands", out=out, keep_log=False, live=True, size=lambda: (140, 90), clock=lambda: 0.0)
    try:
        sim.step()
        sim.feed("sx")
        sim.feed("?")
        sim.feed("z")  # closes the help page, does nothing else
    finally:
        sim.close()
    text = out.getvalue()
    assert text.endswith("\x1b[?25h\x1b[?1049l")  # the terminal given back
    frames = _frames(text.removesuffix("\x1b[?25h\x1b[?1049l"))
    assert len(frames) >= 4
    for frame in frames:
        lines = frame.split("\x1b[K\n")
        assert len(lines) <= 90 and all(len(line.removesuffix("\x1b[K")) < 140 for line in lines)
        assert lines[-1].removesuffix("\x1b[K") == KEYS_LINE
    first, help_page, last = frames[0], frames[-2], frames[-1]
    assert "┌ Alice" in first and "┌ Bob" in first
    assert "no game log (--no-log)" in first  # the messages stay in the frame
    assert "SELECT: the next choice" in help_page and "┌ Alice" not in help_page
    assert "┌ Alice" in last and "key 'x' does nothing (? for help)" in last and "key 'z'" not in last
    assert "\x1b[2J" not in text  # redrawn over, not cleared: no flicker


def test_sim_live_fits_the_screens_to_the_terminal() -> None:
    size = [270, 50]
    out = io.StringIO()
    sim = Sim("gaslands", out=out, keep_log=False, live=True, size=lambda: (size[0], size[1]), clock=lambda: 0.0)
    try:
        sim.step()
        wide = sim.frame()
        assert any("┌ Alice" in line and "┌ Bob" in line for line in wide)  # side by side
        size[:] = [200, 50]
        narrow = sim.frame()
        acting = sim.app.prompt().player or "Alice"
        other = "Bob" if acting == "Alice" else "Alice"
        assert len(narrow) <= 50 and any(f"┌ {acting}" in line for line in narrow)
        assert not any(f"┌ {other}" in line for line in narrow)
        assert any(f"too small: {other} not shown" in line for line in narrow)
        assert narrow[-1] == KEYS_LINE
        size[:] = [80, 24]
        tiny = sim.frame()
        assert len(tiny) <= 24 and all(len(line) < 80 for line in tiny) and tiny[-1].startswith("keys:")
        sim.tick()  # the size changed since the last drawing: drawn again
        assert out.getvalue().count("\x1b[H") == 2
    finally:
        sim.close()


def test_sim_keeps_the_game_log_in_the_data_folder(data_dir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    first = Sim("gaslands", out=io.StringIO(), clock=lambda: 0.0)
    try:
        first.step()
        first.feed("so")
        prompt, game_id = first.app.prompt().text, first.game_id
    finally:
        first.close()
    assert first.store.path == data_dir / "sim-gaslands.sqlite" and first.store.path.exists()
    again = Sim("gaslands", out=io.StringIO(), clock=lambda: 0.0)
    try:
        assert again.resumed and again.game_id == game_id and again.app.prompt().text == prompt
        # which one, by its PID, as `play` says it (a maker's audit)
        with pytest.raises(ValueError, match=rf"another `pitboard sim` is playing the game log \S+ \(PID {os.getpid()}\)"):
            Sim("gaslands", out=io.StringIO())
    finally:
        again.close()
    other = Sim("gaslands", out=io.StringIO(), new=True)
    try:
        assert not other.resumed and other.game_id != game_id
    finally:
        other.close()
    scratch = Sim("gaslands", out=io.StringIO(), keep_log=False)
    scratch.close()
    assert not scratch.resumed and not scratch.store.path.exists()
    monkeypatch.delenv("PITBOARD_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_log("thunder_road") == tmp_path / "xdg" / "pitboard" / "sim-thunder_road.sqlite"


def test_terminal_keys_from_a_pty() -> None:
    """The real terminal path: cbreak mode, a sequence read whole, a bare Esc after a pause, idle ticks."""
    import os

    master, slave = os.openpty()
    stream = os.fdopen(slave, "r")
    try:
        with TerminalKeys(stream, tick=0.05, esc_timeout=0.05) as terminal:
            keys = iter(terminal)
            os.write(master, b"\x1b[Bo")
            assert [next(keys), next(keys)] == ["Down", "o"]
            os.write(master, b"\x1b")
            assert next(keys) == "Esc"
            assert next(keys) is None  # nothing typed: a tick
            os.write(master, "é\x1b[6~".encode())
            assert [next(keys), next(keys)] == ["é", "PgDn"]
    finally:
        stream.close()
        os.close(master)


def test_a_choice_that_leaves_its_list_does_not_leave_the_cursor_on_another_car(tmp_path: Path) -> None:
    """Seen: Hit › Rust Bucket, OK until it was wrecked: the list then held only The Brick, highlighted, and
    the next OK took a hull point from Bob's car.  The same with Set on fire: the car set on fire leaves the
    list.  The cursor goes back to the branch instead; OK opens it again."""
    out = io.StringIO()
    sim = Sim("gaslands", out=out, db=tmp_path / "sim.sqlite", clock=lambda: 0.0)
    try:
        sim.step()
        if sim.app.prompt().awaits == "vehicle":
            sim.feed("o")
        assert sim.app.cursor.follow(("Table…", "Set on fire", "Rust Bucket"))
        sim.feed("o")
        assert "{'type': 'set_fire', 'vehicle': 'rust', 'on': True} -> ok" in out.getvalue()
        assert sim.app.cursor.path == ("Table…", "Set on fire")
        # the chooser's screen says what was recorded (the menu stays: nothing else showed the press taken)
        assert [n.text for n in sim.app.notices if n.kind == "recorded"] == ["recorded: Table… › Set on fire › Rust Bucket"]
        sim.feed("o")  # opens the list again: nothing else is set on fire
        assert "'vehicle': 'brick'" not in out.getvalue()
    finally:
        sim.close()
