"""The appliance's one configuration file (``/etc/pitboard/pitboard.toml`` on the Pi), validated at start.

Why validate everything up front, into frozen dataclasses: a wrong pin or address found at start is a
one-line message the maker fixes at the bench; the same mistake found mid-game is a dead button at the
table.  Every error names the file, the key as a dotted path (``screens[2].address``) and what is allowed,
so the owner never has to read Python to fix it.  Unknown keys are errors too (a typo such as
``debounce_ms`` → ``debounce`` would otherwise be silently ignored).

Missing sections and keys take the built-in defaults of the dataclasses below, which are the quiet ones, not
the values written in ``firmware_config/pitboard.toml``: game ``gaslands`` with its example setup, no camera
(backend ``none``), no screens, the four panel buttons on the default wiring (NEXT=GPIO17, BACK=GPIO27,
SELECT=GPIO22, OK=GPIO23) and no player buttons, the vision files and the game log in the data folder, the
web page off.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

from device.setup_files import toml_mistake

#: I2C addresses a 128x64 SSD1306/SH1106/SSD1309 module answers on (set by its SA0 jumper).
OLED_ADDRESSES: tuple[int, ...] = (0x3C, 0x3D)
#: A TCA9548A's address range (A0..A2 straps).
MUX_ADDRESSES: tuple[int, ...] = tuple(range(0x70, 0x78))
DRIVERS: tuple[str, ...] = ("ssd1306", "sh1106", "ssd1309")
CAMERA_BACKENDS: tuple[str, ...] = ("picamera2", "opencv", "replay", "none")
#: BCM GPIOs on the 40-pin header.  0/1 are the HAT EEPROM bus, 2/3 are I2C bus 1 (the screens).
HEADER_GPIOS: tuple[int, ...] = tuple(range(0, 28))
#: The 40-pin header's physical pin numbers that carry a GPIO, and its BCM number (pins 1-40).
HEADER_PIN_GPIO: dict[int, int] = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24,
                                   19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12,
                                   33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}
#: The example's wiring (firmware_config/pitboard.toml, WIRING.md): each panel button's BCM GPIO.
EXAMPLE_BUTTONS: dict[str, int] = {"next": 17, "back": 27, "select": 22, "ok": 23}


def header_pins_for_gpios(pins: dict[str, int]) -> str | None:
    """What to say when the panel buttons are the example wiring's header pin numbers (next = 11 for pin 11, which
    is GPIO17): valid BCM numbers too, so taken, and the buttons then read pins nothing is wired to (a bad-input
    audit: 11/13/15/16, GPIO15 being the serial console's RXD); None otherwise."""
    meant = {k: EXAMPLE_BUTTONS[k] for k, pin in pins.items()
             if k in EXAMPLE_BUTTONS and HEADER_PIN_GPIO.get(pin) == EXAMPLE_BUTTONS[k]}
    if len(meant) < 2:
        return None
    keys = "/".join(meant)
    return (f"buttons {keys} = {'/'.join(str(pins[k]) for k in meant)} are the header pins of "
            f"GPIO{'/'.join(str(g) for g in meant.values())} (the example's wiring): [buttons] takes BCM GPIO "
            f"numbers; write {', '.join(f'{k} = {g}' for k, g in meant.items())}")


RESERVED_GPIOS: dict[int, str] = {
    0: "GPIO0 is the HAT EEPROM bus (ID_SD)",
    1: "GPIO1 is the HAT EEPROM bus (ID_SC)",
    2: "GPIO2 is SDA of I2C bus 1, which the screens use",
    3: "GPIO3 is SCL of I2C bus 1, which the screens use",
}
#: The i2c-gpio overlay of firmware_config/config.txt makes bus 3 on these pins.
I2C_GPIO_BUS3_PINS: tuple[int, ...] = (24, 25)
MAX_PLAYERS = 6

DEFAULT_PATH = Path("/etc/pitboard/pitboard.toml")


def as_written(value: Any) -> str:
    """``value`` as it stands in a TOML file (``true``, ``"text"``, ``[1, 2]``), for messages that quote what the
    owner wrote: Python's ``True`` and ``None`` are no words of the file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # TOML's basic string escapes are JSON's: a newline stays on its line as \n
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(as_written(v) for v in value) + "]"
    if isinstance(value, dict):
        return "a table {" + ", ".join(f"{k} = {as_written(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "nothing"
    return str(value)


class ConfigError(ValueError):
    """A configuration mistake: ``file: key: what is wrong; allowed: ...``."""

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file = file
        self.key = key
        self.message = message
        super().__init__(f"{file}: {key}: {message}" if key else f"{file}: {message}")


class CameraBackend(str, Enum):
    PICAMERA2 = "picamera2"
    OPENCV = "opencv"
    REPLAY = "replay"
    NONE = "none"


@dataclass(frozen=True)
class Region:
    """A rectangle of the camera frame in full-resolution pixels: ``[x, y, width, height]``."""

    x: int
    y: int
    width: int
    height: int

    def contains(self, x: float, y: float) -> bool:
        """Whether the frame point (x, y) lies inside (the left and top edges in, the others out)."""
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def misfit(self, width: int, height: int) -> str | None:
        """What is wrong with this region in a ``width`` x ``height`` frame (it runs past the frame's
        edge), in words for the owner; None when it fits."""
        if self.x + self.width <= width and self.y + self.height <= height:
            return None
        return (f"[{self.x}, {self.y}, {self.width}, {self.height}] runs past the {width}x{height} frame the "
                f"camera gives (it needs {self.x + self.width}x{self.y + self.height})")


@dataclass(frozen=True)
class GameConfig:
    name: str = "gaslands"
    #: The table's setup (players, vehicles) as TOML; None = the game's EXAMPLE_SETUP.
    setup: Path | None = None


@dataclass(frozen=True)
class CameraConfig:
    backend: CameraBackend = CameraBackend.NONE
    #: opencv: a webcam index (0) or a video file; replay: a folder of frames; unused otherwise.
    device: int | str = 0
    width: int = 2304
    height: int = 1296
    fps: float = 10.0
    #: The dice tray, cropped from the full-resolution frame; None = the whole frame.
    dice_region: Region | None = None
    #: Consecutive identical readings before dice count as settled.
    settle_frames: int = 3
    #: Reopening a failed camera waits 1 s, then doubles up to this many seconds.
    reopen_max_s: float = 30.0


@dataclass(frozen=True)
class ScreenConfig:
    player: str
    driver: str = "ssd1306"
    port: int = 1
    address: int = 0x3C
    mux_address: int | None = None
    mux_channel: int | None = None
    rotate: int = 0

    @property
    def where(self) -> str:
        """``i2c-1 0x3C`` or ``i2c-1 mux 0x70 ch 2 0x3C``: how check and the notices name the screen."""
        return screen_where(self)


def screen_where(screen: Any) -> str:
    """Where a screen (anything with ``port``, ``address``, ``mux_address``, ``mux_channel``) sits on the bus."""
    mux = f" mux 0x{screen.mux_address:02X} ch {screen.mux_channel}" if screen.mux_address is not None else ""
    return f"i2c-{screen.port}{mux} 0x{screen.address:02X}"


@dataclass(frozen=True)
class ButtonsConfig:
    next: int = 17
    back: int = 27
    select: int = 22
    ok: int = 23
    #: Optional one button per player, in seat order.
    players: tuple[int, ...] = ()
    long_press_ms: int = 800
    debounce_ms: int = 30
    #: How many decisions a long press on BACK undoes.
    long_back_undo_steps: int = 3

    def pins(self) -> dict[str, int]:
        """Button name → BCM pin, the four panel buttons first, then ``p1``.. in seat order."""
        out = {"next": self.next, "back": self.back, "select": self.select, "ok": self.ok}
        for i, pin in enumerate(self.players, start=1):
            out[f"p{i}"] = pin
        return out


@dataclass(frozen=True)
class VisionConfig:
    calibration: Path | None = None
    faces: Path | None = None
    #: The side of one die in mm (12-19): with a calibration, the dice's size in pixels is known, so the
    #: reader does not have to search for it.
    dice_mm: float = 16.0
    #: The token colour and bare mats learned at set-up; None = ``table_tokens.npz`` in the data folder.
    tokens: Path | None = None


@dataclass(frozen=True)
class StoreConfig:
    #: The SQLite game log; None = ``games.sqlite`` in the data folder ($PITBOARD_DATA).
    path: Path | None = None


@dataclass(frozen=True)
class WebConfig:
    """The web page on the table's network (watch, set up, teach).  Off until the owner turns it on."""

    enabled: bool = False
    #: The address to listen on: "0.0.0.0" = every network of the Pi (the unit still allows local
    #: networks only); "127.0.0.1" = this machine only.
    host: str = "0.0.0.0"
    port: int = 8080


@dataclass(frozen=True)
class PitboardConfig:
    source: str = "<defaults>"
    game: GameConfig = field(default_factory=GameConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    screens: tuple[ScreenConfig, ...] = ()
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    web: WebConfig = field(default_factory=WebConfig)
    #: The file it was read from, absolute (None: not read from a file).  Not a setting: two configs of the same
    #: settings are equal wherever they were read from.
    path: Path | None = field(default=None, compare=False)

    def config_option(self) -> str | None:
        """The ``--config`` a command offered to the owner must carry to act on this config's files: its path,
        unless it is the default one (which every command reads without it)."""
        if self.path is None or self.path == DEFAULT_PATH:
            return None
        return str(self.path)


# -- loading ------------------------------------------------------------------------------------------


def load_config(path: str | Path) -> PitboardConfig:
    """Read and validate a ``pitboard.toml``; raises :class:`ConfigError` naming the file and key."""
    path = Path(path)
    name = path.name
    fix = "copy firmware_config/pitboard.toml there and edit it"
    from device.safe_files import unreachable

    closed = unreachable(path)
    if closed:
        raise ConfigError(str(path), "", closed)
    if path.is_dir():
        raise ConfigError(str(path), "", f"is a folder, not a configuration file; give the file's path, or {fix}")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(path), "", f"no such file; {fix}") from None
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot be read ({exc.strerror or exc}); give the user running "
                                         "Pitboard read access to it") from None
    try:
        text = raw.decode("utf-8-sig")  # Notepad's byte order mark is no part of the text
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(str(path), "", f"line {line} is not UTF-8 text (a binary or damaged file, or saved in "
                                         f"another encoding: an accented letter?); save it as UTF-8, or {fix}") from None
    if not text.strip():  # all defaults: no screens, no buttons - an appliance that shows nothing, and "OK"
        raise ConfigError(str(path), "", f"is empty ({'0 bytes' if not raw else 'nothing but blanks'}): a crash or a "
                                         f"power cut while it was written can leave it so; {fix}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(name, "", f"is not valid TOML: {toml_mistake(exc, text)}; fix that line, or {fix}") from None
    except RecursionError:
        raise ConfigError(str(path), "", f"is nested too deeply to read (not a Pitboard configuration); {fix}") from None
    except ValueError:  # Python's limit on integer digits: no setting is 4300 digits long
        raise ConfigError(str(path), "", f"holds a number of more than 4300 digits; no setting needs more than a few "
                                         f"- fix that value, or {fix}") from None
    try:
        return replace(parse_config(data, source=name, base=path.parent), path=path.absolute())
    except ConfigError as exc:
        line = key_line(text, exc.key)
        if line is None:
            raise
        raise ConfigError(exc.file, f"{exc.key} (line {line})", exc.message) from None


def salvage_screens(path: str | Path) -> tuple[ScreenConfig, ...]:
    """The ``[[screens]]`` of a configuration that does not load, each read on its own, so that ``pitboard run``
    can show on them why it did not start: a mistyped line elsewhere in the file must not leave the table's
    screens dark.  A screen table that is itself damaged, or repeats an earlier one's player or place, is left
    out; empty when none can be read."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
    except OSError:
        return ()
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if re.match(r"^\s*\[\[\s*screens\s*\]\]", line):
            current = []
            blocks.append(current)
        elif re.match(r"^\s*\[", line):
            current = None  # another table's lines
        elif current is not None:
            current.append(line)
    v = _Validator(path.name, path.parent)
    out: list[ScreenConfig] = []
    for block in blocks:
        try:
            (screen,) = v.screens([tomllib.loads("\n".join(block))], ButtonsConfig())
        except (tomllib.TOMLDecodeError, ConfigError, ValueError, RecursionError):
            continue
        place = (screen.port, screen.mux_address, screen.mux_channel, screen.address)
        if all(s.player != screen.player and (s.port, s.mux_address, s.mux_channel, s.address) != place for s in out):
            out.append(screen)
    return tuple(out)


def key_line(text: str, key: str) -> int | None:
    """The line of ``key`` (``camera.fps``, ``screens[1].address``: the second ``[[screens]]``) in the TOML
    ``text``, or the line of its table's header when the key is not written there (a key that is missing);
    None when it cannot be told (a key written as a dotted key or in an inline table)."""
    m = re.fullmatch(r"([A-Za-z_]+)(?:\[(\d+)\])?(?:\.([A-Za-z_0-9-]+))?", key)
    if m is None:
        return None
    table, index, leaf = m.group(1), m.group(2), m.group(3)
    seen, inside, header = -1, False, None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        h = re.match(r"^\[\[?\s*([A-Za-z_][A-Za-z_0-9.-]*)\s*\]\]?", line)
        if h:
            if h.group(1) == table:
                seen += 1
                inside = index is None or seen == int(index)
                if inside and header is None:
                    header = n
            else:
                inside = False
            continue
        if inside and leaf is not None and re.match(rf"^{re.escape(leaf)}\s*=", line):
            return n
    return header


#: The keys of each section of pitboard.toml (``screens``: of each [[screens]] table).
SECTION_KEYS: dict[str, set[str]] = {
    "game": {"name", "setup"},
    "camera": {"backend", "device", "width", "height", "fps", "dice_region", "settle_frames", "reopen_max_s"},
    "screens": {"player", "driver", "port", "address", "mux_address", "mux_channel", "rotate"},
    "buttons": {"next", "back", "select", "ok", "players", "long_press_ms", "debounce_ms", "long_back_undo_steps"},
    "vision": {"calibration", "faces", "dice_mm", "tokens"},
    "store": {"path"},
    "web": {"enabled", "host", "port"},
}


def parse_config(data: Mapping[str, Any], *, source: str = "pitboard.toml", base: Path | None = None) -> PitboardConfig:
    """Validate an already parsed TOML document.  ``base`` resolves relative paths (the file's folder)."""
    v = _Validator(source, base)
    v.keys(data, "", set(SECTION_KEYS))
    game = v.game(v.table(data, "game"))
    camera = v.camera(v.table(data, "camera"))
    buttons = v.buttons(v.table(data, "buttons"))
    screens = v.screens(data.get("screens", []), buttons)
    vision = v.vision(v.table(data, "vision"))
    store_t = v.table(data, "store")
    v.keys(store_t, "store", SECTION_KEYS["store"])
    store = StoreConfig(path=v.path(store_t, "store", "path"))
    web = v.web(v.table(data, "web"))
    return PitboardConfig(source, game, camera, screens, buttons, vision, store, web)


def _hex(value: int) -> str:
    return f"0x{value:02X}"


class _Validator:
    def __init__(self, source: str, base: Path | None) -> None:
        self.source = source
        self.base = base

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(self.source, key, message)

    # -- shapes -------------------------------------------------------------------------------------
    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table [{key}], not {type(value).__name__}")
        return value

    def keys(self, data: Mapping[str, Any], where: str, allowed: set[str]) -> None:
        import difflib

        for key in data:
            if key not in allowed:
                dotted = f"{where}.{key}" if where else key
                near = difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.75)
                value = data[key]  # (a list of tables is a [[section]]; a list of numbers, a key's value)
                what = "section" if not where and (isinstance(value, Mapping) or (
                    isinstance(value, list) and value and all(isinstance(x, Mapping) for x in value))) else "key"
                meant = f" (did you mean {'[' + near[0] + ']' if what == 'section' else repr(near[0])}?)" if near else ""
                # a key of another section ([camera] dice_mm, dice_region above every section): where it goes, said
                # after the near names (an audit: "unknown key; allowed: ..." sent the owner looking for a typo; a
                # review: said first, [[screens]] players = ... was sent to [buttons], where "player" was meant)
                home = [f"[{name}]" if name != "screens" else "[[screens]]" for name, keys in SECTION_KEYS.items()
                        if key in keys and not where.startswith(name)] if what == "key" else []
                there = (f"; {key} is a key of {' and of '.join(home)}: if you meant that one, move it there"
                         if home else "")
                raise self.fail(dotted, f"unknown {what}{meant}; allowed: {', '.join(sorted(allowed))}{there}")

    def int_(self, data: Mapping[str, Any], where: str, key: str, default: int | None, *, lo: int | None = None,
             hi: int | None = None, allowed_text: str | None = None, as_hex: bool = False) -> int | None:
        dotted = f"{where}.{key}"
        if key not in data:
            return default
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            quoted = ""
            if isinstance(value, str):
                try:
                    int(value.strip(), 0)
                    quoted = f"; remove the quotes: {key} = {value.strip()}"
                except ValueError:  # "3C" for an address: hexadecimal is written 0x3C (an audit: no hint)
                    if as_hex and re.fullmatch(r"[0-9A-Fa-f]{1,2}", value.strip()):
                        quoted = f"; hexadecimal is written 0x, without quotes: {key} = 0x{value.strip()}"
            raise self.fail(dotted, f"must be a whole number, not {as_written(value)}{quoted}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            shown = _hex(value) if as_hex else str(value)
            allowed = allowed_text or f"{lo}..{hi}"
            raise self.fail(dotted, f"{shown} is out of range; allowed: {allowed}")
        return value

    def num(self, data: Mapping[str, Any], where: str, key: str, default: float, *, lo: float, hi: float,
            unit: str = "", meaning: str = "") -> float:
        dotted = f"{where}.{key}"
        if key not in data:
            return default
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):  # (the range too: "16" in quotes is a
            # text, and its fix is the number written bare, within it)
            raise self.fail(dotted, f"must be a number from {lo:g} to {hi:g}{unit} without quotes, not "
                                    f"{as_written(value)}")
        if not lo <= value <= hi:
            raise self.fail(dotted, f"{value} is out of range; allowed: {lo:g}..{hi:g}{unit}{meaning}")
        return float(value)

    def str_(self, data: Mapping[str, Any], where: str, key: str, default: str | None) -> str | None:
        if key not in data:
            return default
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{where}.{key}", f"must be a non-empty text in quotes, not {as_written(value)}")
        return value

    def path(self, data: Mapping[str, Any], where: str, key: str) -> Path | None:
        value = self.str_(data, where, key, None)
        if value is None:
            return None
        p = Path(value).expanduser()
        if not p.is_absolute() and self.base is not None:
            p = self.base / p
        raw = os.fsencode(p)
        if "\x00" in value or len(raw) > 4095 or any(len(os.fsencode(part)) > 255 for part in p.parts):
            raise self.fail(f"{where}.{key}", "is not a usable file path (a NUL character, a folder or file name "
                                              "longer than 255 bytes, or a path over 4095 bytes); give the file's "
                                              "path, e.g. \"/var/lib/pitboard/...\"")
        return p

    def choice(self, data: Mapping[str, Any], where: str, key: str, default: str, allowed: Sequence[str]) -> str:
        value = self.str_(data, where, key, default)
        assert value is not None
        if value not in allowed:
            raise self.fail(f"{where}.{key}", f"{as_written(value)} is not known; allowed: {', '.join(allowed)}")
        return value

    # -- sections -----------------------------------------------------------------------------------
    def game(self, t: Mapping[str, Any]) -> GameConfig:
        self.keys(t, "game", SECTION_KEYS["game"])
        name = self.str_(t, "game", "name", "gaslands")
        assert name is not None
        import difflib

        from games import REGISTRY

        if name not in REGISTRY:
            # the file and the key, and the near name (a maker's audit: "gasland" was told only "no game called
            # 'gasland'" later, by the command, with neither)
            near = difflib.get_close_matches(name, sorted(REGISTRY), n=1, cutoff=0.6)
            raise self.fail("game.name", f"{name!r} is not a game{f' (did you mean {near[0]!r}?)' if near else ''}; "
                                         f"known games: {', '.join(sorted(REGISTRY))}")
        return GameConfig(name=name, setup=self.path(t, "game", "setup"))

    def camera(self, t: Mapping[str, Any]) -> CameraConfig:
        self.keys(t, "camera", SECTION_KEYS["camera"])
        backend = CameraBackend(self.choice(t, "camera", "backend", "none", CAMERA_BACKENDS))
        device: int | str = 0
        if "device" in t:
            raw = t["device"]
            # an index is /dev/videoN: a huge one was taken, then failed in OpenCV's words at every retry
            if isinstance(raw, bool) or not isinstance(raw, (int, str)) or (isinstance(raw, int) and not 0 <= raw <= 255):
                raise self.fail("camera.device", f"{as_written(raw)} is not usable; allowed: a webcam index (0 to 255, as in "
                                                 "/dev/video0) or a path in quotes (video file, or a folder of frames "
                                                 "for replay)")
            device = raw
            if isinstance(raw, str) and self.base is not None and not Path(raw).is_absolute() and not raw.startswith("/dev/"):
                device = str(self.base / raw)
        if backend is CameraBackend.REPLAY and not isinstance(device, str):
            raise self.fail("camera.device", "the replay backend needs a folder of frames in quotes, e.g. device = \"frames/\"")
        width = self.int_(t, "camera", "width", 2304, lo=64, hi=9152)
        height = self.int_(t, "camera", "height", 1296, lo=48, hi=6944)
        assert width is not None and height is not None
        fps = self.num(t, "camera", "fps", 10.0, lo=0.5, hi=120.0)
        region = None
        if "dice_region" in t:
            raw = t["dice_region"]
            if (not isinstance(raw, list) or len(raw) != 4
                    or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in raw)
                    or raw[2] < 16 or raw[3] < 16):
                raise self.fail("camera.dice_region", f"{as_written(raw)} is not a region; allowed: [x, y, width, height] in "
                                                      "pixels of the full frame, width and height 16 or more")
            if raw[0] + raw[2] > width or raw[1] + raw[3] > height:
                x, y, x1, y1 = raw  # two corners written for x, y, width, height: said so (an audit)
                corners = (f" (if [{x}, {y}] and [{x1}, {y1}] are the box's corners, write [{x}, {y}, {x1 - x}, "
                           f"{y1 - y}])") if x < x1 <= width and y < y1 <= height and x1 - x >= 16 and y1 - y >= 16 else ""
                raise self.fail("camera.dice_region", f"{as_written(raw)} reaches outside the {width}x{height} frame; allowed: "
                                                      f"x + width <= {width}, y + height <= {height}{corners}")
            region = Region(*raw)
        settle = self.int_(t, "camera", "settle_frames", 3, lo=1, hi=30)
        assert settle is not None
        reopen = self.num(t, "camera", "reopen_max_s", 30.0, lo=1.0, hi=600.0)
        return CameraConfig(backend, device, width, height, fps, region, settle, reopen)

    def buttons(self, t: Mapping[str, Any]) -> ButtonsConfig:
        self.keys(t, "buttons", SECTION_KEYS["buttons"])
        d = ButtonsConfig()
        pins: dict[str, int] = {}
        for key in ("next", "back", "select", "ok"):
            pins[key] = self.pin(t, "buttons", key, getattr(d, key))
        players: list[int] = []
        if "players" in t:
            raw = t["players"]
            if not isinstance(raw, list) or len(raw) > MAX_PLAYERS:
                raise self.fail("buttons.players", f"must be a list of at most {MAX_PLAYERS} GPIO numbers, e.g. "
                                                   "[5, 6, 13, 19, 26, 21]")
            for i, _ in enumerate(raw):
                players.append(self.pin({str(i): raw[i]}, "buttons.players", str(i), 0, index=True))
        seen: dict[int, str] = {}
        named = [(k, p) for k, p in pins.items()] + [(f"players[{i}]", p) for i, p in enumerate(players)]
        for key, pin in named:
            if pin in seen:
                raise self.fail(f"buttons.{key}", f"GPIO{pin} is already used by buttons.{seen[pin]}; allowed: one "
                                                  "button per GPIO")
            seen[pin] = key
        long_ms = self.int_(t, "buttons", "long_press_ms", d.long_press_ms, lo=200, hi=5000)
        debounce = self.int_(t, "buttons", "debounce_ms", d.debounce_ms, lo=0, hi=200)
        steps = self.int_(t, "buttons", "long_back_undo_steps", d.long_back_undo_steps, lo=1, hi=50)
        assert long_ms is not None and debounce is not None and steps is not None
        if debounce * 2 >= long_ms:
            raise self.fail("buttons.debounce_ms", f"{debounce} ms is too long next to long_press_ms = {long_ms}; "
                                                   "allowed: less than half of long_press_ms")
        return ButtonsConfig(pins["next"], pins["back"], pins["select"], pins["ok"], tuple(players), long_ms,
                             debounce, steps)

    def pin(self, t: Mapping[str, Any], where: str, key: str, default: int, *, index: bool = False) -> int:
        dotted = f"{where}[{key}]" if index else f"{where}.{key}"
        if key not in t:
            return default
        value = t[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(dotted, f"must be a BCM GPIO number such as 17, not {as_written(value)}")
        if value in RESERVED_GPIOS:
            raise self.fail(dotted, f"{RESERVED_GPIOS[value]}; allowed: GPIO4..GPIO27")
        if value not in HEADER_GPIOS:
            pin = HEADER_PIN_GPIO.get(value)
            meant = f"; header pin {value} is GPIO{pin}: write {pin}" if pin is not None and pin not in RESERVED_GPIOS \
                else ""
            raise self.fail(dotted, f"GPIO{value} is not on the 40-pin header; allowed: GPIO4..GPIO27 (BCM numbers, "
                                    f"not header pin numbers){meant}")
        return value

    def screens(self, raw: Any, buttons: ButtonsConfig) -> tuple[ScreenConfig, ...]:
        if not isinstance(raw, list):
            raise self.fail("screens", "must be a list of [[screens]] tables, one per player")
        if len(raw) > MAX_PLAYERS:
            raise self.fail("screens", f"{len(raw)} screens; allowed: at most {MAX_PLAYERS}, one per player")
        out: list[ScreenConfig] = []
        places: dict[tuple[int, int | None, int | None, int], str] = {}
        players: set[str] = set()
        for i, t in enumerate(raw):
            w = f"screens[{i}]"
            if not isinstance(t, Mapping):
                raise self.fail(w, "must be a [[screens]] table")
            self.keys(t, w, SECTION_KEYS["screens"])
            if "player" not in t:
                raise self.fail(f"{w}.player", "is missing; allowed: the player's name as in the game setup, e.g. \"Alice\"")
            player = self.str_(t, w, "player", None)
            assert player is not None
            if player in players:
                raise self.fail(f"{w}.player", f"{player!r} already has a screen; allowed: one screen per player")
            players.add(player)
            driver = self.choice(t, w, "driver", "ssd1306", DRIVERS)
            port = self.int_(t, w, "port", 1, lo=0, hi=31, allowed_text="an I2C bus number 0..31 (/dev/i2c-N)")
            address = self.int_(t, w, "address", 0x3C, as_hex=True)
            assert port is not None and address is not None
            if address not in OLED_ADDRESSES:
                raise self.fail(f"{w}.address", f"{_hex(address)} is not an I2C address a 128x64 OLED uses; allowed: "
                                                f"{', '.join(map(_hex, OLED_ADDRESSES))}")
            mux_address = self.int_(t, w, "mux_address", None, as_hex=True)
            mux_channel = self.int_(t, w, "mux_channel", None, lo=0, hi=7)
            if mux_address is not None and mux_address not in MUX_ADDRESSES:
                raise self.fail(f"{w}.mux_address", f"{_hex(mux_address)} is not a TCA9548A address; allowed: "
                                                    "0x70..0x77")
            if (mux_address is None) != (mux_channel is None):
                missing = "mux_channel" if mux_channel is None else "mux_address"
                raise self.fail(f"{w}.{missing}", "is missing; a screen behind a TCA9548A needs both mux_address "
                                                  "(0x70..0x77) and mux_channel (0..7), a direct screen neither")
            rotate = self.int_(t, w, "rotate", 0, lo=0, hi=3, allowed_text="0, 1, 2, 3 (quarter turns)")
            assert rotate is not None
            place = (port, mux_address, mux_channel, address)
            screen = ScreenConfig(player, driver, port, address, mux_address, mux_channel, rotate)
            if place in places:
                raise self.fail(f"{w}.address", f"{screen.where} is already {places[place]}; allowed: one screen per "
                                                "bus, channel and address")
            places[place] = f"screens[{i}] ({player})"
            self.no_crosstalk(w, screen, out)
            out.append(screen)
        if any(s.port == 3 for s in out):
            for name, pin in buttons.pins().items():
                if pin in I2C_GPIO_BUS3_PINS:
                    key = f"buttons.{name}" if not name.startswith("p") else f"buttons.players[{int(name[1:]) - 1}]"
                    raise self.fail(key, f"GPIO{pin} carries I2C bus 3 (i2c-gpio overlay on GPIO24/25) used by a "
                                         "screen; allowed: any other GPIO")
        return tuple(out)

    def no_crosstalk(self, w: str, screen: ScreenConfig, earlier: list[ScreenConfig]) -> None:
        """Refuse two screens that would receive each other's frames: the same bus and address where one
        is wired directly and the other behind a TCA9548A (or behind two different TCA9548As). A mux
        keeps its last channel open, so a frame for either address reaches both."""
        for j, other in enumerate(earlier):
            if other.port != screen.port or other.address != screen.address:
                continue
            if other.mux_address == screen.mux_address:
                continue  # same mux: different channels are apart (same channel is caught above)
            if screen.mux_address is None or other.mux_address is None:
                why = "the direct screen also sees every frame sent through the multiplexer's open channel"
                fix = ("set the other SA0 jumper address (0x3C/0x3D) on one of them, or put both behind the "
                       "multiplexer")
            else:
                why = "both multiplexers keep their last channel open, so each frame reaches both screens"
                fix = "set the other SA0 jumper address (0x3C/0x3D) on one of them, or use one multiplexer"
            raise self.fail(f"{w}.address", f"{screen.where} ({screen.player}) and screens[{j}] {other.where} "
                                            f"({other.player}) share bus {screen.port} and address "
                                            f"{_hex(screen.address)}: {why}; {fix}")

    def web(self, t: Mapping[str, Any]) -> WebConfig:
        self.keys(t, "web", SECTION_KEYS["web"])
        enabled = t.get("enabled", False)
        if not isinstance(enabled, bool):
            raise self.fail("web.enabled", f"must be true or false (no quotes), not {as_written(enabled)}")
        host = self.str_(t, "web", "host", "0.0.0.0")
        assert host is not None
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise self.fail("web.host", f"{host!r} is not an IP address; allowed: \"0.0.0.0\" (every network of "
                                        "the Pi) or one of its addresses, e.g. \"192.168.1.20\"") from None
        port = self.int_(t, "web", "port", 8080, lo=1024, hi=65535, allowed_text="1024..65535")
        assert port is not None
        return WebConfig(enabled, host, port)

    def vision(self, t: Mapping[str, Any]) -> VisionConfig:
        self.keys(t, "vision", SECTION_KEYS["vision"])
        return VisionConfig(self.path(t, "vision", "calibration"), self.path(t, "vision", "faces"),
                            self.num(t, "vision", "dice_mm", 16.0, lo=12.0, hi=19.0, unit=" mm",
                                     meaning=" (the side of one die)"),
                            self.path(t, "vision", "tokens"))
