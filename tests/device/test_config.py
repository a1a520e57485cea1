"""pitboard.toml: the example validates, defaults fill gaps, and every error names file, key and allowed values."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from device.config import (
    ButtonsConfig,
    CameraBackend,
    ConfigError,
    Region,
    load_config,
    parse_config,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "firmware_config" / "pitboard.toml"


def test_example_config_validates_and_matches_the_default_wiring() -> None:
    config = load_config(EXAMPLE)
    assert config.source == "pitboard.toml"
    assert config.game.name == "gaslands"
    assert config.camera.backend is CameraBackend.PICAMERA2
    assert config.camera.dice_region == Region(864, 796, 576, 480)
    assert [(s.player, s.port, s.address) for s in config.screens] == [("Alice", 1, 0x3C), ("Bob", 1, 0x3D)]
    b = config.buttons
    assert (b.next, b.back, b.select, b.ok) == (17, 27, 22, 23)
    assert b.players == (5, 6, 13, 19, 26, 21)
    assert (b.long_press_ms, b.debounce_ms) == (800, 30)
    assert config.store.path == Path("/var/lib/pitboard/games.sqlite")


def test_missing_sections_get_defaults() -> None:
    config = parse_config({})
    assert config.buttons == ButtonsConfig()
    assert config.camera.backend is CameraBackend.NONE
    assert config.screens == ()
    assert config.store.path is None and config.game.setup is None


def _error(doc: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(tomllib.loads(doc), source="pitboard.toml")
    return str(info.value)


SCREENS = """
[[screens]]
player = "A"
address = 0x3C
[[screens]]
player = "B"
address = 0x3D
[[screens]]
player = "C"
address = 0x3E
"""


def test_wrong_screen_address_names_file_key_and_allowed_values() -> None:
    assert _error(SCREENS) == (
        "pitboard.toml: screens[2].address: 0x3E is not an I2C address a 128x64 OLED uses; allowed: 0x3C, 0x3D"
    )


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ('[buttons]\nnext = 2', "pitboard.toml: buttons.next: GPIO2 is SDA of I2C bus 1"),
        ('[buttons]\nnext = 40', "pitboard.toml: buttons.next: GPIO40 is not on the 40-pin header"),
        ('[buttons]\nplayers = [29, 31]', "pitboard.toml: buttons.players[0]: GPIO29 is not on the 40-pin header; allowed: "
                                        "GPIO4..GPIO27 (BCM numbers, not header pin numbers); header pin 29 is GPIO5: write 5"),
        ('[buttons]\nnext = 27', "pitboard.toml: buttons.back: GPIO27 is already used by buttons.next"),
        ('[buttons]\nplayers = [5, 17]', "pitboard.toml: buttons.players[1]: GPIO17 is already used by buttons.next"),
        ('[buttons]\nplayers = ["5"]', "pitboard.toml: buttons.players[0]: must be a BCM GPIO number"),
        ('[buttons]\ndebounce = 30', "pitboard.toml: buttons.debounce: unknown key (did you mean 'debounce_ms'?); allowed: back"),
        ('[buttons]\nnxt = 17', "pitboard.toml: buttons.nxt: unknown key (did you mean 'next'?); allowed: back"),
        ('[[screens]]\nplayer = "A"\naddress = "0x3C"',
         "pitboard.toml: screens[0].address: must be a whole number, not \"0x3C\"; remove the quotes: address = 0x3C"),
        # a bad-input audit: "3C" had no hint
        ('[[screens]]\nplayer = "A"\naddress = "3C"', "pitboard.toml: screens[0].address: must be a whole number, not "
         "\"3C\"; hexadecimal is written 0x, without quotes: address = 0x3C"),
        ('[buttons]\nlong_press_ms = 100', "pitboard.toml: buttons.long_press_ms: 100 is out of range; allowed: 200..5000"),
        ('[buttons]\ndebounce_ms = 150\nlong_press_ms = 250', "pitboard.toml: buttons.debounce_ms: 150 ms is too long"),
        ('[camera]\nbackend = "usb"', "pitboard.toml: camera.backend: \"usb\" is not known; allowed: picamera2, opencv, replay, none"),
        ('[camera]\nbackend = "replay"\ndevice = 0', "pitboard.toml: camera.device: the replay backend needs a folder"),
        ('[camera]\nbackend = "opencv"\ndevice = 99999999999999999999', "pitboard.toml: camera.device: 99999999999999999999 is not usable"),
        ('[camera]\nbackend = "opencv"\ndevice = 256', "pitboard.toml: camera.device: 256 is not usable; allowed: a webcam index (0 to 255"),
        ('[camera]\ndice_region = [0, 0, 10]', "pitboard.toml: camera.dice_region: [0, 0, 10] is not a region"),
        ('[camera]\nwidth = 640\nheight = 480\ndice_region = [600, 0, 100, 100]',
         "pitboard.toml: camera.dice_region: [600, 0, 100, 100] reaches outside the 640x480 frame"),
        ('[[screens]]\naddress = 0x3C', "pitboard.toml: screens[0].player: is missing"),
        ('[[screens]]\nplayer = "A"\ndriver = "ssd1351"', "pitboard.toml: screens[0].driver: \"ssd1351\" is not known; allowed: ssd1306, sh1106, ssd1309"),
        ('[[screens]]\nplayer = "A"\nmux_address = 0x70', "pitboard.toml: screens[0].mux_channel: is missing"),
        ('[[screens]]\nplayer = "A"\nmux_address = 0x60\nmux_channel = 1', "pitboard.toml: screens[0].mux_address: 0x60 is not a TCA9548A address; allowed: 0x70..0x77"),
        ('[[screens]]\nplayer = "A"\nmux_address = 0x70\nmux_channel = 8', "pitboard.toml: screens[0].mux_channel: 8 is out of range; allowed: 0..7"),
        ('[[screens]]\nplayer = "A"\nrotate = 4', "pitboard.toml: screens[0].rotate: 4 is out of range; allowed: 0, 1, 2, 3"),
        ('[[screens]]\nplayer = "A"\n[[screens]]\nplayer = "B"', "pitboard.toml: screens[1].address: i2c-1 0x3C is already screens[0] (A)"),
        ('[[screens]]\nplayer = "A"\n[[screens]]\nplayer = "A"\naddress = 0x3D', "pitboard.toml: screens[1].player: 'A' already has a screen"),
        ('[[screens]]\nplayer = "A"\nport = 3\n[buttons]\nplayers = [5, 24]',
         "pitboard.toml: buttons.players[1]: GPIO24 carries I2C bus 3"),
        ('[game]\nname = "gas lands"', "pitboard.toml: game.name: 'gas lands' is not a game (did you mean 'gaslands'?); "
                                       "known games: gaslands, grand_tour, space_race, thunder_road"),
        # (a maker's audit: "gasland" was told "no game called 'gasland'" by the command, naming neither file nor key)
        ('[game]\nname = "gasland"', "pitboard.toml: game.name: 'gasland' is not a game (did you mean 'gaslands'?)"),
        ('[game]\nname = "chess"', "pitboard.toml: game.name: 'chess' is not a game; known games: gaslands,"),
        ('[vision]\ncalibration = "' + "é" * 200 + '"', "pitboard.toml: vision.calibration: is not a usable file path"),
        ('[store]\npath = "/tmp/a\\u0000b"', "pitboard.toml: store.path: is not a usable file path"),
        ('[vision]\ndice_mm = 25', "pitboard.toml: vision.dice_mm: 25 is out of range; allowed: 12..19 mm (the side of one die)"),
        ('[vision]\ndice_mm = "16"', "pitboard.toml: vision.dice_mm: must be a number from 12 to 19 mm without quotes, not \"16\""),
        # the value as written in the file, not Python's True (an audit)
        ('[vision]\ndice_mm = true', "pitboard.toml: vision.dice_mm: must be a number from 12 to 19 mm without quotes, not true"),
        ('[camera]\nbackend = "usb\\ncam"', "pitboard.toml: camera.backend: \"usb\\ncam\" is not known"),
        ('[camera]\nbackend = ["usb", true]', "pitboard.toml: camera.backend: must be a non-empty text in quotes, not [\"usb\", true]"),
        ('[vision]\ndice_mm = nan', "pitboard.toml: vision.dice_mm: nan is out of range; allowed: 12..19 mm (the side of one die)"),
        ('[screen]\nplayer = "A"', "pitboard.toml: screen: unknown section (did you mean [screens]?); allowed: buttons, "
                                   "camera, game, screens, store, vision"),
        ('[button]\nnext = 17', "pitboard.toml: button: unknown section (did you mean [buttons]?)"),
        # a key of another section is said where it goes, after the near names (an audit; a review: said first,
        # a typo for "player" in [[screens]] was sent to [buttons]); a dice_region written as its corners, said so
        ('[camera]\ndice_mm = 16', "pitboard.toml: camera.dice_mm: unknown key; allowed: backend, device, dice_region, "
                                  "fps, height, reopen_max_s, settle_frames, width; dice_mm is a key of [vision]: if "
                                  "you meant that one, move it there"),
        ('dice_region = [1, 2, 30, 40]\n[camera]\nfps = 5', "pitboard.toml: dice_region: unknown key; allowed: buttons, "
                                                            "camera, game, screens, store, vision, web; dice_region is a "
                                                            "key of [camera]: if you meant that one, move it there"),
        ('[[screens]]\nplayers = "Alice"', "pitboard.toml: screens[0].players: unknown key (did you mean 'player'?); "
                                         "allowed: address, driver, mux_address, mux_channel, player, port, rotate; "
                                         "players is a key of [buttons]: if you meant that one, move it there"),
        ('[camera]\nport = 0', "pitboard.toml: camera.port: unknown key; allowed: backend, device, dice_region, fps, "
                              "height, reopen_max_s, settle_frames, width; port is a key of [[screens]] and of [web]"),
        ('[camera]\nwidth = 1280\nheight = 720\ndice_region = [492, 471, 788, 672]',
         "pitboard.toml: camera.dice_region: [492, 471, 788, 672] reaches outside the 1280x720 frame; allowed: "
         "x + width <= 1280, y + height <= 720 (if [492, 471] and [788, 672] are the box's corners, write [492, 471, "
         "296, 201])"),
    ],
)
def test_errors_name_the_key_and_what_is_allowed(doc: str, expected: str) -> None:
    assert _error(doc).startswith(expected)


def test_screens_behind_a_mux_share_the_address_on_different_channels() -> None:
    doc = "".join(
        f'[[screens]]\nplayer = "P{i}"\nmux_address = 0x70\nmux_channel = {i}\n' for i in range(6)
    )
    config = parse_config(tomllib.loads(doc))
    assert [s.where for s in config.screens][:2] == ["i2c-1 mux 0x70 ch 0 0x3C", "i2c-1 mux 0x70 ch 1 0x3C"]
    assert _error(doc + '[[screens]]\nplayer = "P6"\nmux_address = 0x71\nmux_channel = 0\n').startswith(
        "pitboard.toml: screens: 7 screens; allowed: at most 6"
    )


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "pitboard.toml")
    bad = tmp_path / "mine.toml"
    bad.write_text("[buttons\nnext = 17\n")
    with pytest.raises(ConfigError, match=r"^mine.toml: is not valid TOML"):
        load_config(bad)


@pytest.mark.parametrize("kind, expected", [
    ("binary", "is not UTF-8 text"),
    ("latin-1", "is not UTF-8 text"),
    ("deeply nested", "is nested too deeply to read"),
    ("a folder", "is a folder, not a configuration file"),
])
def test_unreadable_config_files_are_a_clear_message_not_a_traceback(kind: str, expected: str, tmp_path: Path) -> None:
    path = tmp_path / "pitboard.toml"
    if kind == "binary":
        path.write_bytes(bytes(range(256)))
    elif kind == "latin-1":
        path.write_bytes('[[screens]]\nplayer = "Zoë"\n'.encode("latin-1"))
    elif kind == "deeply nested":
        path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    else:
        path.mkdir()
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and expected in message, message
    assert "firmware_config/pitboard.toml" in message or "UTF-8" in message  # and what to do


def test_the_example_names_the_calibration_file_that_pitboard_calibrate_writes() -> None:
    from device.table_files import CALIBRATION_FILE

    config = load_config(EXAMPLE)
    assert config.vision.calibration is not None and config.vision.calibration.name == CALIBRATION_FILE


def test_relative_paths_are_read_from_the_config_folder(tmp_path: Path) -> None:
    path = tmp_path / "pitboard.toml"
    path.write_text('[game]\nsetup = "table.toml"\n[camera]\nbackend = "replay"\ndevice = "frames"\n'
                    '[vision]\ncalibration = "/abs/cal.json"\n')
    config = load_config(path)
    assert config.game.setup == tmp_path / "table.toml"
    assert config.camera.device == str(tmp_path / "frames")
    assert config.vision.calibration == Path("/abs/cal.json")


def test_pins_lists_panel_then_player_buttons() -> None:
    assert ButtonsConfig(players=(5, 6)).pins() == {"next": 17, "back": 27, "select": 22, "ok": 23, "p1": 5, "p2": 6}


@pytest.mark.parametrize("first, second, names", [
    ('player = "Alice"', 'player = "Bob"\nmux_address = 0x70\nmux_channel = 2',
     "screens[1].address: i2c-1 mux 0x70 ch 2 0x3C (Bob) and screens[0] i2c-1 0x3C (Alice) share bus 1"),
    ('player = "Alice"\nmux_address = 0x70\nmux_channel = 0', 'player = "Bob"',
     "screens[1].address: i2c-1 0x3C (Bob) and screens[0] i2c-1 mux 0x70 ch 0 0x3C (Alice) share bus 1"),
    ('player = "Alice"\nmux_address = 0x70\nmux_channel = 0', 'player = "Bob"\nmux_address = 0x71\nmux_channel = 0',
     "screens[1].address: i2c-1 mux 0x71 ch 0 0x3C (Bob) and screens[0] i2c-1 mux 0x70 ch 0 0x3C (Alice)"),
])
def test_screens_that_would_receive_each_others_frames_are_refused_naming_both(
        first: str, second: str, names: str) -> None:
    message = _error(f"[[screens]]\n{first}\n[[screens]]\n{second}\n")
    assert message.startswith(f"pitboard.toml: {names}"), message
    assert "address 0x3C" in message and "SA0" in message


@pytest.mark.parametrize("second", [
    'player = "Bob"\naddress = 0x3D\nmux_address = 0x70\nmux_channel = 2',  # other address
    'player = "Bob"\nport = 3\nmux_address = 0x70\nmux_channel = 2',  # other bus
])
def test_a_direct_and_a_muxed_screen_apart_by_bus_or_address_are_accepted(second: str) -> None:
    config = parse_config(tomllib.loads(f'[[screens]]\nplayer = "Alice"\n[[screens]]\n{second}\n'))
    assert [s.player for s in config.screens] == ["Alice", "Bob"]


@pytest.mark.parametrize("line, expected", [
    # seen: 'pitboard.toml: is not valid TOML: Invalid value (at line 2, column 10)' - not what, not how
    ('player = Alice', ['line 2', "player = Alice", 'player = "Alice"']),
    # seen: 'Cannot overwrite a value (at line 3, column 9)' for a key written twice
    ('player = "Alice"\nplayer = "Bob"', ['line 3', 'player = "Bob"', "twice"]),
    # an audit: an unclosed list was told at the line after it ("line 12 (settle_frames = 3): Unclosed array")
    ('player = "Alice"\nport = [1, 2\naddress = 0x3C', ['line 3 (port = [1, 2): Unclosed array', "closing ] is missing"]),
    # an audit: a lone carriage return was "Expected newline ...", the invisible character not named, the line
    # shown the wrong one (the line count split at it)
    ('player = "Alice"\r\r\naddress = 0x3C', ['line 2: an invisible carriage-return character stands inside the line']),
    # a web audit: a phone's curly quotes inside a list got the general words, which named no quotes
    # a bad-input audit: a number with a unit or a decimal comma got TOML's "Expected newline" alone
    ('player = "Alice"\nport = 1,5', ['line 3 (port = 1,5): a number is written alone', 'a dot for decimals (1.5)',
                                     'several in brackets ([1, 2])']),
    ('player = "Alice"\nrotate = 2 turns', ['line 3 (rotate = 2 turns): a number is written alone: digits only, no '
                                           'unit after it']),
    # a phone review: "Illegal character '\n' (a text whose closing quote is missing)", Python's words first
    ('player = "Alice', ['line 2 (player = "Alice): a text whose closing quote is missing']),
    ('player = "Alice"\nport = [\u201c1\u201d]', ['line 3 (port = [\u201c1\u201d]): \u201c and \u201d are not quotes in TOML',
                                          'write straight quotes: port = ["1"]']),
])
def test_a_toml_mistake_names_the_line_says_what_is_wrong_and_how_to_mend_it(line: str, expected: list[str],
                                                                            tmp_path: Path) -> None:
    path = tmp_path / "pitboard.toml"
    path.write_text(f"[[screens]]\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith("pitboard.toml: is not valid TOML")
    for words in expected:
        assert words in message, message


@pytest.mark.parametrize("edit, expected", [
    # seen: 'good.toml: camera.fps: must be a number, not 'ten'' - which of the 80 lines?
    (("\nfps = 10\n", '\nfps = "ten"\n'), "pitboard.toml: camera.fps (line {n}): must be a number from 0.5 to 120 without quotes, not \"ten\""),
    (("address = 0x3D", "address = 0x3E"), "pitboard.toml: screens[1].address (line {n}): 0x3E is not"),
    (("\nfps = 10\n", "\nfsp = 10\n"), "pitboard.toml: camera.fsp (line {n}): unknown key"),
])
def test_a_wrong_value_in_the_file_names_its_line(edit: tuple[str, str], expected: str, tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    old, new = edit
    assert text.count(old) == 1
    text = text.replace(old, new)
    n = text[: text.index(new.lstrip("\n"))].count("\n") + 1
    path = tmp_path / "pitboard.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(expected.format(n=n)), str(caught.value)


def test_a_byte_that_is_not_utf8_is_named_by_its_line(tmp_path: Path) -> None:
    # seen: 'pitboard.toml: is not UTF-8 text (byte 1843 cannot be read ...)': nobody counts bytes
    path = tmp_path / "pitboard.toml"
    path.write_bytes('[game]\nname = "gaslands"\n\n[[screens]]\nplayer = "Zoë"\n'.encode("latin-1"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "line 5 is not UTF-8 text" in str(caught.value), str(caught.value)


def test_a_list_of_tables_written_with_single_brackets_is_told_the_double_ones() -> None:
    """A bad-input audit: two [screens] where [[screens]] was meant were told "a [table] written twice; merge the
    two into one", which makes one screen of two (and its keys said twice)."""
    import tomllib

    from device.setup_files import toml_mistake

    text = '[[players]]\nname = "A"\n\n[screens]\nplayer = "A"\n\n[screens]\nplayer = "B"\n'
    with pytest.raises(tomllib.TOMLDecodeError) as err:
        tomllib.loads(text)
    said = toml_mistake(err.value, text)
    assert said.startswith("line 7 ([screens]): ") and "is written [[screens]], in double brackets" in said


def test_buttons_at_the_example_wirings_header_pins_are_warned_of() -> None:
    """A bad-input audit: next/back/select/ok = 11/13/15/16, the header pins WIRING.md names for GPIO17/27/22/23,
    were taken as GPIO11/13/15/16 and check said OK for each (GPIO15 is the serial console's RXD); the buttons
    wired as the example would never be read."""
    from gpiozero.pins.mock import MockFactory

    from device.cli_device import probe_buttons
    from device.config import parse_config

    factory = MockFactory()
    try:
        config = parse_config({"buttons": {"next": 11, "back": 13, "select": 15, "ok": 16}}, source="pitboard.toml")
        lines = probe_buttons(config, factory)
        assert (lines[0].status, lines[0].part) == ("WARN", "buttons")
        assert lines[0].detail == ("buttons next/back/select/ok = 11/13/15/16 are the header pins of GPIO17/27/22/23 "
                                   "(the example's wiring): [buttons] takes BCM GPIO numbers; write next = 17, back = "
                                   "27, select = 22, ok = 23")
        assert all(line.part != "buttons" for line in probe_buttons(parse_config({}, source="x"), factory))
    finally:
        factory.reset()
