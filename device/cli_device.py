"""``pitboard run``, ``pitboard check``, ``pitboard sim`` and ``pitboard bench device``.

``check`` is a self-test for the maker at the bench: one line per part (``OK``, ``FAIL`` or ``SKIP``, the
part, what was found or what to do), exit 1 if anything failed.  On a PC it says plainly which parts are
missing (no I2C bus, no GPIO) instead of a traceback.  Its probes are injectable so the test suite runs
it against gpiozero's mock pins and a fake bus.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from device.buttons import lgpio_workdir
from device.config import DEFAULT_PATH, ConfigError, PitboardConfig, ScreenConfig, load_config, salvage_screens

if TYPE_CHECKING:
    from device.web.setup import Saved

#: SSD1306 / SH1106 / SSD1309 "no operation" command: a harmless write that the controller must ACK.
OLED_NOP = 0xE3

#: The escapes ``--keys`` understands: a newline (Enter after typed dice), a tab, a backslash.
_KEY_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def keystrokes(text: str) -> str:
    """``--keys`` as typed on a command line: ``\\n`` is Enter (and ``\\t``, ``\\r``, ``\\\\``); any other
    backslash is refused with what it may be, and other characters (é too) are kept as they are."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):  # bytes that were not text in the terminal's encoding
        raise _user_error("--keys: some of the keys are not text in this terminal's encoding (UTF-8 expected)")
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            nxt = text[i + 1:i + 2]
            if nxt not in _KEY_ESCAPES:
                raise _user_error(f"--keys: '{text[i:i + 2]}' is not a key; a backslash goes before n (Enter), t, r "
                                  "or another backslash, e.g. 'on354\\nn'")
            out.append(_KEY_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def register(groups: dict[str, argparse._SubParsersAction]) -> None:
    top = groups["top"]
    p = top.add_parser("run", help="run the appliance: buttons, camera, screens (the systemd unit's command)")
    p.add_argument("--config", default=str(DEFAULT_PATH), help=f"pitboard.toml (default {DEFAULT_PATH})")
    p.set_defaults(func=cmd_run)

    p = top.add_parser("check", help="hardware self-test: each screen, each button, the camera; one line per part")
    p.add_argument("--config", default=str(DEFAULT_PATH), help=f"pitboard.toml (default {DEFAULT_PATH})")
    p.add_argument("--interactive", action="store_true",
                   help="then, with you at the table: each player's name on their screen to confirm, each button "
                        "to press in turn (which GPIO answered), the camera's view saved with the calibration drawn")
    p.add_argument("--camera-out", help="where --interactive saves the camera's view (default: "
                                        "check-camera.png in the data folder)")
    p.add_argument("--button-timeout", type=float, default=20.0,
                   help="seconds --interactive waits for each button (default 20)")
    p.set_defaults(func=cmd_check)

    p = top.add_parser("sim", help="the appliance in the terminal: keys are the buttons, screens drawn as text",
                       description="The appliance in the terminal: the real loop, rules, game log and dashboards; "
                                   "keys are the buttons (? lists them), the screens are drawn as text, redrawn in "
                                   "place at a terminal. The game log is kept and an unfinished game resumed.")
    p.add_argument("game", nargs="?", default="gaslands", help="game to play (default gaslands)")
    p.add_argument("--setup", help="the table's setup TOML (default: the game's example setup); used when a game begins")
    log = p.add_mutually_exclusive_group()
    log.add_argument("--db", help="the game log to keep and resume (default: sim-GAME.sqlite in the data folder, "
                                  "$XDG_DATA_HOME/pitboard or ~/.local/share/pitboard)")
    log.add_argument("--no-log", action="store_true",
                     help="keep no game log: play on a temporary one, deleted at the end")
    p.add_argument("--new", action="store_true", help="begin a new game even if the log holds an unfinished one "
                                                      "(that one stays in the log)")
    p.add_argument("--dice-images", help="folder of dice photos; key r puts the next one on the tray")
    p.add_argument("--keys", help="play these keystrokes and exit (no terminal needed), e.g. 'on354\\nn'")
    p.add_argument("--style", choices=("halfblock", "braille"), default="halfblock",
                   help="how screens are drawn: halfblock (▀▄█, 130 columns a screen, legible in any common "
                        "monospace font; the default) or braille (66 columns, compact, but illegible in many fonts)")
    p.add_argument("--plain", action="store_true",
                   help="at a terminal too, print screens and messages one after another instead of redrawing "
                        "in place")
    p.add_argument("--exit-after-first-frame", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_sim)

    p = groups["bench"].add_parser("device", help="press→frame latency, update bytes, start-up time (JSON)")
    p.add_argument("--runs", type=int, default=3, help="start-up runs to take the median of (default 3)")
    p.add_argument("--json", action="store_true", help="accepted for symmetry with the other benches: JSON is the only output")
    p.set_defaults(func=cmd_bench_device)


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def _load(path: str) -> PitboardConfig:
    try:
        return load_config(path)
    except ConfigError as exc:
        raise _user_error(str(exc)) from None


def read_setup(module: Any, setup: Path | None, source: str = "pitboard.toml") -> dict[str, Any]:
    """The table's options: ``[game] setup`` (:func:`given_setup`: ``ValueError`` when it cannot be used) with
    what the owner saved from the phone's pages (:func:`saved_rule_files`)."""
    return saved_rule_files(module.GAME.name, given_setup(module, setup, source)).options


def given_setup(module: Any, setup: Path | None, source: str = "pitboard.toml") -> dict[str, Any]:
    """The table's options from ``[game] setup`` alone (None: the game's example), or ``ValueError`` naming the
    file, what is wrong with it and what to do (a folder, not UTF-8, nested too deeply, not TOML ...)."""
    from device.app import setup_options

    fix = f"give [game] setup in {source} the path of the table's setup TOML file (or remove the key to play " \
          "the game's example setup)"
    return setup_options(module, setup, fix=fix)


def saved_rule_files(game: str, options: dict[str, Any]) -> Saved:
    """``options`` with the rule facts, the Gaslands chart and the Fire die the owner saved from the phone's
    pages into the data folder, the setup's own tables winning, as a game begun from the phone takes them (an
    audit: a game begun by the appliance from ``[game] setup`` played the packaged \"unknown\" facts the owner had
    filled in), as a :class:`device.web.setup.Saved`.  A data folder that cannot be made or looked into adds
    nothing (``check`` names it)."""
    from device.web.setup import Saved, with_saved_files

    chart = _saved_chart_path()
    try:
        return Saved(options) if chart is None else with_saved_files(game, options, chart)
    except OSError:  # a data folder closed to this user (`check` names it): the packaged facts
        return Saved(options)


def _saved_chart_path() -> Path | None:
    """Where the phone's page saves the Gaslands chart (the other saved files beside it): in the data folder, or
    None when that cannot be made."""
    from device.paths import DataFolderError, data_dir
    from device.web.setup import CHART_FILE

    try:
        return data_dir() / CHART_FILE
    except DataFolderError:
        return None


def _setup_refused(config: PitboardConfig, reason: str, options: Any) -> str:
    """The rules' refusal of ``[game] setup``, naming the file, and the game it looks written for."""
    from device.setup_files import setup_refused

    return setup_refused(config.game.setup, reason, game=config.game.name, options=options,
                         plays=f'[game] name = "{{game}}" in {config.source} plays it')


def read_vision_files(config: PitboardConfig) -> tuple[Any, Any, list[Any]]:
    """``(calibration, face library, problems)`` of ``[vision]``: never raises for a damaged file."""
    from device.camera_input import read_calibration_file, read_face_library

    cal, cal_problem = read_calibration_file(config.vision.calibration)
    lib, faces_problem = read_face_library(config.vision.faces, config.config_option())
    return cal, lib, [p for p in (cal_problem, faces_problem) if p is not None]


# -- check --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckLine:
    status: str  # "OK", "FAIL", "SKIP", "WARN"
    part: str
    detail: str

    def __str__(self) -> str:
        return f"{self.status:<5} {self.part}: {self.detail}"


def probe_screen(screen: ScreenConfig, smbus_factory: Callable[[int], Any]) -> CheckLine:
    """Open the screen's bus, select its mux channel, and write a NOP command the OLED must acknowledge."""
    from device.displays.screens import bus_hint

    part = f"screen {screen.player} ({screen.driver}, {screen.where})"
    dev = f"/dev/i2c-{screen.port}"
    try:
        bus = smbus_factory(screen.port)
    except FileNotFoundError:
        return CheckLine("FAIL", part, f"{dev} does not exist: no I2C bus {screen.port} on this machine; "
                         f"{bus_hint(screen.port, missing=True)}")
    except PermissionError:
        return CheckLine("FAIL", part, f"{dev} is not accessible: {bus_hint(screen.port, missing=False)}")
    except OSError as exc:
        return CheckLine("FAIL", part, f"{dev} cannot be opened ({exc.strerror or exc})")
    try:
        if screen.mux_address is not None:
            try:
                bus.write_byte(screen.mux_address, 1 << int(screen.mux_channel or 0))
            except OSError:
                return CheckLine("FAIL", part, f"no TCA9548A answers at 0x{screen.mux_address:02X} on {dev}: "
                                               "check its wiring, power and A0-A2 straps")
        try:
            bus.write_byte_data(screen.address, 0x00, OLED_NOP)
        except OSError as exc:
            if exc.errno in (errno.EREMOTEIO, errno.ENXIO, errno.EIO, None):
                return CheckLine("FAIL", part, f"nothing answers at 0x{screen.address:02X}: check the wiring, "
                                               "power and the address jumper (i2cdetect -y "
                                               f"{screen.port} lists what is there)")
            return CheckLine("FAIL", part, f"bus error ({exc.strerror or exc})")
        finally:
            if screen.mux_address is not None:
                with contextlib.suppress(OSError):
                    bus.write_byte(screen.mux_address, 0)
    finally:
        with contextlib.suppress(Exception):
            bus.close()
    return CheckLine("OK", part, "answers")


@contextlib.contextmanager
def fallbacks_said() -> Iterator[list[str]]:
    """While pins are claimed, gpiozero's pin-factory fallbacks ("Falling back from lgpio: …", warnings with their
    reasons), recorded in the list yielded; filled when the block ends, an exception in it too (the check's and the
    appliance's words say them: :func:`no_pin_factory`)."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield said
        finally:
            said.extend(str(w.message) for w in caught)


def no_pin_factory(fallbacks: Sequence[str]) -> str:
    """A check's words when gpiozero found no pin factory, with each factory's own reason (gpiozero says them
    as warnings: "Falling back from lgpio: …"; hidden, a Pi 5 whose lgpio could not start said only "install
    python3-lgpio", which was installed)."""
    said = "; ".join(dict.fromkeys(f.strip() for f in fallbacks if f.strip()))
    return ("no GPIO on this machine (gpiozero found no pin factory; on a Pi install python3-lgpio and add the user "
            "to the gpio group)" + (f": {said}" if said else ""))


def probe_buttons(config: PitboardConfig, pin_factory: Any = None) -> list[CheckLine]:
    """Claim each button's pin with the pull-up on, read its level, release it."""
    from device.config import header_pins_for_gpios

    out: list[CheckLine] = []
    mixed = header_pins_for_gpios(config.buttons.pins())
    if mixed:
        out.append(CheckLine("WARN", "buttons", mixed))
    lgpio_workdir()
    try:
        from gpiozero import Button
        from gpiozero.exc import BadPinFactory
    except ImportError:
        return [CheckLine("FAIL", f"button {n.upper()} (GPIO{p})", "gpiozero is not installed")
                for n, p in config.buttons.pins().items()]
    no_gpio: str | None = None
    for name, pin in config.buttons.pins().items():
        part = f"button {name.upper()} (GPIO{pin})"
        if no_gpio is not None:
            out.append(CheckLine("FAIL", part, "no GPIO on this machine (as above)"))
            continue
        try:
            with fallbacks_said() as said:
                button = Button(pin, pull_up=True, pin_factory=pin_factory)
        except BadPinFactory:
            no_gpio = no_pin_factory(said)
            out.append(CheckLine("FAIL", part, no_gpio))
            continue
        except Exception as exc:
            out.append(CheckLine("FAIL", part, f"pin cannot be claimed ({exc}); is another program using it?"))
            continue
        try:
            if button.is_pressed:
                out.append(CheckLine("WARN", part, "claimed, but reads PRESSED with nobody touching it: a stuck "
                                                   "button, or wired to 3V3 instead of GND"))
            else:
                out.append(CheckLine("OK", part, "claimed, reads released"))
        finally:
            button.close()
    return out


def _no_frame_fix(config: PitboardConfig) -> str:
    """What to do about a camera that opened and gave no frame, naming the device [camera] gives."""
    if config.camera.backend.value == "picamera2":
        return ("check the camera's ribbon cable (blue side to the Ethernet port on a Pi 4) and that no other "
                "program uses the camera (rpicam-hello --list-cameras lists it)")
    if config.camera.backend.value == "replay":
        return (f"[camera] device = {config.camera.device!r} in pitboard.toml: does that folder hold the frames to "
                "replay (PNG or JPEG pictures)?")
    return (f"[camera] device = {config.camera.device!r} in pitboard.toml: is it the camera (a webcam's number, "
            "or /dev/videoN from `v4l2-ctl --list-devices`)? check its cable and that no other program uses it")


def probe_camera(config: PitboardConfig, backend: Any = None, *,
                 frames: list[tuple[int, int]] | None = None) -> CheckLine:
    from device.camera import CameraError, backend_from_config, first_frame

    backend = backend if backend is not None else backend_from_config(config.camera)
    if backend is None:
        return CheckLine("SKIP", "camera", 'backend = "none": dice are typed with the buttons')
    part = f"camera ({backend.name})"
    try:
        image, _ = first_frame(backend)
    except CameraError as exc:
        return CheckLine("FAIL", part, str(exc))
    except Exception as exc:
        return CheckLine("FAIL", part, f"failed: {exc}")
    if image is None:  # (an audit: the line named neither the device nor what to do)
        return CheckLine("FAIL", part, f"opened but gave no frame: {_no_frame_fix(config)}")
    h, w = image.shape[:2]
    if frames is not None:
        frames.append((w, h))
    tray = config.camera.dice_region
    misfit = tray.misfit(w, h) if tray is not None else None
    if misfit is not None:
        assert tray is not None
        # (it said "no die is read" of a region partly in the frame, where the dice in that part are read)
        lost = "no die is read" if tray.x + 16 > w or tray.y + 16 > h else "dice beyond the frame's edge are not seen"
        return CheckLine("FAIL", part, f"gives {w}x{h} frames, but [camera] dice_region {misfit}: set dice_region "
                                       f"(and width/height) for this camera; until then {lost}")
    from device.camera_input import read_calibration_file

    try:  # (the calibration alone: the face library, read for its own line, is no matter of the frames' size)
        cal, problem = read_calibration_file(config.vision.calibration)
    except OSError:  # a file this user may not look at: the calibration's own line says so
        cal, problem = None, None
    if cal is not None and problem is None and tuple(cal.image_size) != (w, h):
        # checked for picamera2 against [camera] width/height only: a webcam or a replay folder of frames
        # another size passed, and every frame at the table was refused ("table not read")
        cw, ch = (int(v) for v in cal.image_size)
        where = config.vision.calibration or "the data folder's calibration"
        return CheckLine("FAIL", part, f"gives {w}x{h} frames, but {where} is for {cw}x{ch} frames: the table is not "
                                       "read until they agree; calibrate again from a frame of this camera (`pitboard "
                                       "check --interactive` saves one; or the phone's Calibrate page)")
    return _measured_dice(config, image, cal if problem is None else None, CheckLine("OK", part, f"gives {w}x{h} frames"))


def _measured_dice(config: PitboardConfig, image: Any, cal: Any | None, line: CheckLine) -> CheckLine:
    """``line`` (the camera's, OK) with the size of any dice lying in the frame's dice region, measured by the
    reader's own scale search, beside the size the calibration and ``[vision] dice_mm`` give them: a WARN when
    they are too small to read or far from it (a calibration of another table, a dice_mm far from the dice's)."""
    import cv2

    from device.camera import Frame
    from device.camera_input import dice_px_at_tray, small_dice_advice, tray_region
    from vision.dice import ModelError
    from vision.dice.scale import READABLE_PX, find_die_px

    region = config.camera.dice_region or tray_region(cal)  # (None for no calibration)
    try:
        found = find_die_px(Frame(image, 0.0, 0).crop(region))  # (the camera's own cut of the dice region)
    except (ModelError, cv2.error, ValueError):  # the weights (their own line says what is wrong), or a frame
        return line  # the reader cannot take (a region of a few pixels): no figure
    if found is None:  # no die lies there now: nothing to measure
        return line
    said = f"{line.detail}; dice {'on the dice tray' if region is not None else 'in the frame'} now measure about " \
           f"{found:.0f} px"
    wanted = dice_px_at_tray(cal, region, config.vision.dice_mm)  # (None for no calibration)
    if wanted is not None:
        said += f" ({config.vision.dice_mm:g} mm dice at the calibration's scale: {wanted:.0f} px)"
        # the reader's box is 0.75-1.05 of a die's side (rendered trays and table frames): beyond these, the
        # calibration or dice_mm is not of this table's dice
        if not 0.6 <= found / wanted <= 1.4:
            return CheckLine("WARN", line.part, f"{said}: if [vision] dice_mm is the side of these dice, the "
                                                "calibration is not of this table as it stands: calibrate again")
    # (the reader's box is 0.75-1.05 of the die's side: its 16 px is a die of about 20 px)
    if found < 0.8 * READABLE_PX[0]:
        return CheckLine("WARN", line.part, f"{said}, and {small_dice_advice()}")
    return CheckLine(line.status, line.part, said)


def probe_game(config: PitboardConfig, playing: Any = None) -> list[CheckLine]:
    """The game's setup (FAIL when the rules refuse it), then a WARN for each screen whose player is not at
    the table (a misspelt name: that player sees nothing) and for each player with no screen.  ``playing``:
    the game in progress (:class:`device.web.Playing`, the web page's Check): its setup is checked, and the
    line names it, not ``[game]``'s (another game may have begun from the page)."""
    if playing is not None:
        return _probe_playing(config, playing)
    from device.setup_files import seated_players
    from games import game_package

    part = f"game {config.game.name}"
    try:
        module = game_package(config.game.name)
        given = given_setup(module, config.game.setup, config.source)
    except Exception as exc:
        return [_unless_resumed(config, part, str(exc))]
    saved = saved_rule_files(module.GAME.name, given)
    options = saved.options
    try:
        players = seated_players(module, module.GAME.start(options))
    except Exception as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return [_unless_resumed(config, part, _setup_refused(config, reason, given))]
    source = str(config.game.setup) if config.game.setup else "example setup"
    lines = [CheckLine("OK", part, f"{source} is a valid table" + (
        f", with what was saved on the phone's pages: {', '.join(map(str, saved.read))}" if saved.read else ""))]
    lines += [CheckLine("WARN", part, text) for text in (saved.kept, *saved.problems) if text]
    lines += _setup_notes(module, options, part)
    other = _table_resumed_instead(config, module, options)
    if other is not None:  # run resumes a game begun from another table: its players have the screens
        said, players, views, game_id = other
        return [*lines, CheckLine("WARN", part, said),
                *_table_lines(config, module, {}, players, views, resumed=game_id)]
    return [*lines, *_table_lines(config, module, options, players)]


def _table_resumed_instead(config: PitboardConfig, module: Any,
                           options: Any) -> tuple[str, list[str], Any, int] | None:
    """When ``run`` would resume an unfinished game of this kind begun from another table than the setup at hand:
    (what :func:`setup_not_resumed` says, that game's players, its views, its id), looked at read-only; else None."""
    from device.setup_files import players_of
    from games.core import Match

    store = _log_to_look_at(config)
    if store is None:
        return None
    try:
        game, game_id = _to_resume(store, config)
        if game_id is None or game.name != module.GAME.name:
            return None
        records = store.records(game_id)
        said = setup_not_resumed(config, module, options, records, game_id, store.path)
        if said is None:
            return None
        views = Match(module.GAME, records).views()
        return said, players_of(views), views, int(game_id)
    except Exception:  # noqa: BLE001 - a log that cannot be replayed: its own line says so
        return None
    finally:
        store.close()


def setup_not_resumed(config: PitboardConfig, module: Any, options: Any, records: Sequence[Any], game_id: int,
                      log_path: Path) -> str | None:
    """What ``check`` and ``run`` say when the setup at hand is not the table of the unfinished game ``run``
    resumes (``records``, its log), or None when it is.  An audit: a third friend came, the owner added Carol to the
    setup and a screen for her; check said OK to both, and run resumed the game of two, saying only that Carol's
    screen was for nobody at the table."""
    from device.setup_files import seated_players
    from device.store import starting_events

    try:
        wanted = starting_events(module.GAME, options)
    except Exception:  # noqa: BLE001 - a setup the rules refuse is said on its own
        return None
    begun = [r.event for r in records if r.decision == 0]
    if [e.to_json() for e in begun] == [e.to_json() for e in wanted]:
        return None
    source = str(config.game.setup) if config.game.setup else "the example setup"
    now, then = seated_players(module, wanted), seated_players(module, begun)
    name = module.GAME.name
    what = (f"{source} ({', '.join(now)}) is not the table of the unfinished {name} game {game_id} that run resumes "
            f"({', '.join(then)})" if now != then else
            f"{source} is not the table the unfinished {name} game {game_id} was begun with (the players are, not the "
            "rest of it: vehicles, tiles, riders or rule facts), and run resumes that game as it was begun")
    setup = f" --setup {config.game.setup}" if config.game.setup else ""
    return (f"{what}: a setup begins only a new game. To play it now, end game {game_id} with New game on the "
            f"phone page, or, the service stopped, `pitboard play {name} --new{setup} --db {log_path}` (run then "
            "resumes that one)")


def _setup_notes(module: Any, options: Any, part: str) -> list[CheckLine]:
    """The game's own warnings on a setup it takes (:func:`device.setup_files.setup_notes`), as check's lines."""
    from device.setup_files import setup_notes

    return [CheckLine("WARN", part, note) for note in setup_notes(module, options)]


def _unless_resumed(config: PitboardConfig, part: str, wrong: str) -> CheckLine:
    """A setup ``run`` cannot begin a game from (``wrong`` says why): FAIL, unless the game log holds an unfinished
    game ``run`` resumes without it (WARN, as ``run`` goes on), or this user cannot look at the log to know (the
    service's own folder: WARN with both cases; check said FAIL where run, as the service user, resumed)."""
    from device.paths import game_log
    from device.safe_files import closed_to_user

    resumed = _unfinished_in_log(config)
    if resumed is not None:  # as run does: the game under way needs no setup
        return CheckLine("WARN", part, f"{wrong}; run resumes the unfinished {resumed[0]} game {resumed[1]}, which "
                                       "needs no setup: mend it before the next new game")
    path = game_log(config.store.path)
    try:  # its folder closed to this user, or the file itself (the service's, mode 0640)
        closed = bool(closed_to_user(path)) or (path.is_file() and not os.access(path, os.R_OK))
    except OSError:
        closed = True
    if closed:
        return CheckLine("WARN", part, f"{wrong}; the game log {path} cannot be looked at by this user: run resumes "
                                       "an unfinished game in it without a setup, but refuses to begin a new one "
                                       f"until this is mended; {AS_SERVICE_USER}")
    return CheckLine("FAIL", part, wrong)


def _to_resume(store: Any, config: PitboardConfig) -> tuple[Any, int | None]:
    """(the game, the id of its unfinished game or None) ``run`` resumes from ``store``: the newest unfinished game
    of any kind (one begun from the phone page), else ``[game]``'s."""
    from games import game_package

    package = game_package(config.game.name)
    game = (_resumed_kind(store, package) or package).GAME
    return game, store.latest_unfinished(game.name)


def _log_to_look_at(config: PitboardConfig) -> Any:
    """The game log opened read-only, or None when there is none yet, or it cannot be opened (the game log's own
    line in check says why)."""
    from device.paths import game_log
    from device.store import Store

    try:
        path = game_log(config.store.path)
        if not path.is_file() or path.stat().st_size == 0:
            return None
        return Store(path, read_only=True)
    except Exception:  # noqa: BLE001 - the game log's own line names it
        return None


def _unfinished_in_log(config: PitboardConfig) -> tuple[str, int] | None:
    """(kind, id) of the game ``run`` would resume from the game log, looked at read-only; None when it would
    begin one (or the log cannot be looked at: its own line says why)."""
    store = _log_to_look_at(config)
    if store is None:
        return None
    try:
        game, game_id = _to_resume(store, config)
        return None if game_id is None else (game.name, int(game_id))
    except Exception:  # noqa: BLE001 - as above
        return None
    finally:
        store.close()


def _probe_playing(config: PitboardConfig, playing: Any) -> list[CheckLine]:
    """The game in play: its setup as the rules take it, its players' names and screens."""
    from device.setup_files import seated_players
    from games import game_package

    part = f"game {playing.game}"
    players = list(playing.players)
    try:
        module = game_package(playing.game)
    except LookupError as exc:
        return [CheckLine("FAIL", part, f"{playing.words()}: {exc}")]
    try:
        options: Any = dict(playing.options)
        seated = seated_players(module, module.GAME.start(options)) if options else None
    except Exception as exc:
        # the setup at hand (the config's file, edited since) is refused, but the game in play was begun from one
        # the rules took and goes on from its log: a warning for the next game, not a failure of this one
        reason = getattr(exc, "reason", None) or str(exc)
        return [CheckLine("WARN", part, f"{playing.words()}: it goes on from its log (begun from a setup the rules "
                                        f"took); the setup at hand now is refused by the rules, for the next game: "
                                        f"{reason}"), *_table_lines(config, module, {}, players, playing.views)]
    if seated == players:
        lines = [CheckLine("OK", part, f"{playing.words()}: its setup is a valid table"),
                 *_setup_notes(module, options, part)]
    else:  # resumed with another setup at hand than it was begun with: the log holds its table
        options = {}
        lines = [CheckLine("OK", part, f"{playing.words()}: its table was begun from a setup the rules took "
                                       "(it is in the game log)")]
    return [*lines, *_table_lines(config, module, options, players, playing.views)]


def _table_lines(config: PitboardConfig, module: Any, options: Any, players: list[str],
                 views: Sequence[Any] = (), *, resumed: int | None = None) -> list[CheckLine]:
    """The lines of a table's setup: car tags clashing with the table's, players without a token zone (from
    ``views``, the game in play's, else a game begun from ``options``), screens without a player."""
    lines: list[CheckLine] = []
    if config.camera.backend.value != "none":
        from device.camera_input import car_tag_clashes, car_tag_message, car_tags_from_options, read_table_config

        tags = car_tags_from_options(options, module) if options else {}
        clashes = car_tag_clashes(tags, read_table_config()[0]) if tags else {}
        if clashes:
            lines.append(CheckLine("FAIL", "setup tags", car_tag_message(tags, clashes)))
        if options or views:
            lines += _token_zone_lines(config, module, options, views)
    lines += _names_on_screens(players)
    if not config.screens:
        return lines
    screened = {s.player for s in config.screens}
    for screen in config.screens:
        if screen.player not in players:
            why = ("the player's name in [[screens]] must be spelt as in the game setup" if resumed is None else
                   f"run resumes game {resumed}, begun without them (see the game's line)")
            lines.append(CheckLine("WARN", f"screen {screen.player}", f"{screen.player!r} is not at this table "
                                   f"(players: {', '.join(players)}): {why}"))
    unseen = [p for p in players if p not in screened]
    if unseen and len(unseen) == len(players):
        # (an audit: "the others' screens still show the game" was said when no one at the table had a screen)
        lines.append(CheckLine("WARN", "screens", f"no one at this table has a screen ([[screens]] are for "
                                                  f"{', '.join(sorted(screened))}): the screens show nothing of this "
                                                  "game; the phones' Live page shows every player's screen"))
    elif unseen:
        who = "they have" if len(unseen) > 1 else "that player has"
        lines.append(CheckLine("WARN", "screens", f"no [[screens]] for {', '.join(unseen)}: {who} no screen of "
                                                  "their own (the others' screens show their menus when they "
                                                  "choose; the phones' Live page shows their screen)"))
    return lines


def _token_zone_lines(config: PitboardConfig, module: Any, options: Any, views: Sequence[Any] = ()) -> list[CheckLine]:
    """A WARN for each player whose hazard tokens lie in none of the calibration's token zones (a fifth player on
    a table calibrated with four): the camera never counts theirs (their screen says so once a game).  ``views``:
    the game in play's; none given, those of a game begun from ``options``."""
    from device.camera_input import read_calibration_file, without_token_zone
    from games.core.match import replay

    try:
        cal, _problem = read_calibration_file(config.vision.calibration)
        zones = [z.name for z in getattr(cal, "zones", ()) if z.kind == "tokens"]
        if zones and not views:
            views = module.GAME.views(replay(module.GAME, module.GAME.start(options)))
    except Exception:  # noqa: BLE001 - the calibration's and the game's own lines say what is wrong
        return []
    from vision.calibration import ZONE_CARD_IDS

    def card(seat: int) -> str:  # (cards are printed for p1..p6 only)
        # (with its --out: `pitboard markers --cards 5`, as said, was refused for want of it: a maker's audit)
        return (f"print its token-zone card (`pitboard markers --out markers.pdf --cards {seat}`) and calibrate with it "
                "on the mat" if seat <= len(ZONE_CARD_IDS) else "add a zone for them (`pitboard calibrate IMAGE --zones FILE`)")

    return [CheckLine("WARN", "token zones", f"no token zone for {player} (p{seat}, or named {player}): the camera "
                                             f"does not count {whose} hazard tokens; they are entered with the menu. "
                                             f"The calibration's token zones: {', '.join(zones)}; {card(seat)}")
            for seat, player, whose in without_token_zone(zones, views)]


#: What to do when `check` runs as a user who may not look in the service's data folder (mode 0750).
AS_SERVICE_USER = ("run check as the service user to see it: sudo -u pitboard PITBOARD_DATA=/var/lib/pitboard "
                   "pitboard check --config FILE")


def _not_looked_at(part: str, where: Any, why: str | None = "Permission denied") -> CheckLine:
    """The WARN of a file this user (check run by the login user) may not look at: the service may well read it."""
    return CheckLine("WARN", part, f"{where} cannot be looked at by this user ({why}); {AS_SERVICE_USER}")


def probe_store(config: PitboardConfig) -> CheckLine:
    """The game log ``run`` would resume, looked at read-only as ``pitboard log list`` does (never created,
    never changed): FAIL for what would stop ``run`` - damaged, another program's, not replayable, a folder it
    cannot write in.  A log this user may not look at (the service's own folder, mode 0750) is a WARN."""
    try:
        return _probe_store(config)
    except PermissionError as exc:
        return _not_looked_at("game log", exc.filename or config.store.path, exc.strerror)


def _probe_store(config: PitboardConfig) -> CheckLine:
    from device.paths import game_log
    from device.store import MARKED_READ_ONLY, Store, StoreError, check_not_orphaned, log_path_problem, log_unwritable

    try:
        path = game_log(config.store.path)
    except OSError as exc:
        return CheckLine("FAIL", "game log", str(exc))
    wrong = log_path_problem(path)
    if wrong:  # (it said "none yet (the first game writes it)", and run refused the log as damaged)
        return CheckLine("FAIL", "game log", f"{path} {wrong}")
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        try:
            check_not_orphaned(path)
        except StoreError as exc:
            return CheckLine("FAIL", "game log", str(exc))
        if not path.parent.is_dir():
            return CheckLine("FAIL", "game log", f"{path}: the folder {path.parent} does not exist; create it, or "
                                                 f"correct [store] path in {config.source}")
        if not os.access(path.parent, os.W_OK):
            return CheckLine("FAIL", "game log", f"{path}: the folder {path.parent} {_unwritable(path.parent)}")
        if path.is_file():  # (a log cut to nothing by a card fault or a copy is no new log to its owner)
            return CheckLine("WARN", "game log", f"{path} is empty (0 bytes): run begins a new game in it; if it held "
                                                 "games (a copy cut short, a card fault), put the log back from a "
                                                 "copy first")
        return CheckLine("OK", "game log", f"{path}: none yet (the first game writes it)")
    try:
        store = Store(path, read_only=True)
    except StoreError as exc:
        return CheckLine("FAIL", "game log", str(exc))
    note = store.wal_note
    try:
        store.games()
        game, game_id = _to_resume(store, config)
        if game_id is None:
            detail = f"no unfinished {game.name} game: run begins one"
        else:
            from games.core import Match
            from games.core.match import CorruptLog

            try:
                Match(game, store.records(game_id))
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001 - what open_match would refuse, in its words
                reason = getattr(exc, "reason", None) or (str(exc) if isinstance(exc, CorruptLog) else
                                                          f"{type(exc).__name__}: {exc}")  # (said "CorruptLog: ...")
                raise StoreError(f"{path}: game {game_id} cannot be replayed ({reason}); see it with `pitboard log "
                                 f"export --db {path} --game-id {game_id}`") from None
            detail = f"run resumes the unfinished {game.name} game {game_id}"
    except StoreError as exc:
        return CheckLine("FAIL", "game log", str(exc))
    except LookupError:
        return CheckLine("SKIP", "game log", f"{path}: no game {config.game.name!r} to look for")
    finally:
        store.close()
    how = log_unwritable(path)
    if not os.access(path.parent, os.W_OK) or how not in (None, MARKED_READ_ONLY):
        return CheckLine("FAIL", "game log", f"{path}: run could not record a move: it {_unwritable(path.parent)}")
    if how is not None:
        return CheckLine("FAIL", "game log", f"{path}: run could not record a move: it is {how}; `chmod u+w {path}` "
                                             "to play on")
    if note:
        return CheckLine("WARN", "game log", f"{note}; {detail}")
    kept = sorted(path.parent.glob(f"{path.name}-wal.damaged-*"))
    if kept:  # (run kept it, and its decisions were not played on: said until the maker moves it away)
        return CheckLine("WARN", "game log", f"{path}: {detail}; {', '.join(k.name for k in kept)} beside it holds "
                                             "decisions recorded after a damaged part of its -wal file (kept when "
                                             "the log was opened): keep it until they are saved, then move it away")
    return CheckLine("OK", "game log", f"{path}: {detail}")


def _unwritable(folder: Path) -> str:
    """Why ``folder`` (or a file in it) cannot be written, and what to do: a read-only filesystem is no
    matter of users."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        return ("is on a filesystem mounted read-only; mount it read-write, or correct [store] path to a "
                "writable folder")
    return "cannot be written by this user; give the user running Pitboard write access to it and its folder"


def _names_on_screens(players: list[str]) -> list[CheckLine]:
    """A WARN for each player's name the screens cannot draw or draw alike (``name_warnings``)."""
    from device.dashboards.common import name_warnings

    return [CheckLine("WARN", "players" if who is None else f"player {who}", text)
            for who, text in name_warnings(players)]


def _dice_size_line(config: PitboardConfig, cal: Any) -> CheckLine | None:
    """The dice's side in pixels at the tray as the reader takes it (the calibration's scale there times ``[vision]
    dice_mm``): a WARN outside the sizes it reads well (``vision.dice.scale.READABLE_PX``: a camera mounted high
    gave dice of 10-14 px, and the maker learnt it at the table, from dice not read).  None: no scale there."""
    from device.camera_input import dice_px_at_tray, small_dice_advice, tray_region
    from vision.dice.scale import READABLE_PX

    px = dice_px_at_tray(cal, config.camera.dice_region or tray_region(cal), config.vision.dice_mm)
    if px is None:
        return None
    lo, hi = READABLE_PX
    said = f"{config.vision.dice_mm:g} mm dice ([vision] dice_mm) are {px:.0f} px across at the dice tray"
    if px < lo:
        return CheckLine("WARN", "dice size", f"{said}, and {small_dice_advice()}; if your dice are larger, set "
                                              "dice_mm to their side")
    if px > hi:
        return CheckLine("WARN", "dice size", f"{said}, larger than the reader is made for (up to {hi:.0f} px): mount "
                                              "the camera higher, or ask it for smaller frames ([camera] width and "
                                              "height, then calibrate again)")
    return CheckLine("OK", "dice size", f"{said} (read well from {lo:.0f} to {hi:.0f} px)")


def _default_tray(cal: Any) -> bool:
    """The calibration's tray zone is the default one (``vision.calibration.default_zones``), placed by no one."""
    import numpy as np

    from vision.calibration import default_zones

    tray = next((z for z in cal.zones if z.kind == "dice_tray"), None)
    default = default_zones(tuple(cal.mat_mm))[0]
    return tray is not None and tray.name == default.name and bool(
        np.allclose(np.asarray(tray.polygon, float), np.asarray(default.polygon, float)))


def _dice_region_line(config: PitboardConfig, cal: Any | None) -> CheckLine | None:
    """Where the dice are read, when check has a word to say of it (None: ``[camera] dice_region`` is set and
    agrees with the calibration).  ``cal``: the calibration the appliance will use (None: one configured but
    missing, damaged, or of another size than the frames: an audit found the whole frame read then, and a fifth
    "die" held a roll of four, with no word of it in check).  No region: a WARN naming what is read instead (the calibration's tray zone,
    or the whole frame, where the table's tokens, tags and templates are found as dice that cannot be read: 2-6
    a frame on rendered 1080p tables, each a die the players are asked to enter).  A region apart from the
    calibration's tray zone: a WARN (an audit: a region over a corner tag passed check, and at the table the
    roller was told to lay flat a die that was not there)."""
    from device.camera_input import tray_region

    tray = tray_region(cal) if cal is not None else None
    region = config.camera.dice_region
    if region is not None:
        # (the calibration's default tray zone, bottom centre of the mat, was placed by no one: a region elsewhere
        # is the owner's word; a review: it warned of every tray beside the mat, and no advice could clear it)
        if tray is None or _default_tray(cal):
            return None
        across = max(0, min(region.x + region.width, tray.x + tray.width) - max(region.x, tray.x))
        down = max(0, min(region.y + region.height, tray.y + tray.height) - max(region.y, tray.y))
        if across * down >= 0.5 * min(region.width * region.height, tray.width * tray.height):
            return None  # (a 1-pixel sliver in common was "agreeing": half the smaller box is)
        return CheckLine("WARN", "dice region", f"[camera] dice_region [{region.x}, {region.y}, {region.width}, "
                                                f"{region.height}] lies apart from the calibration's tray zone, "
                                                f"[{tray.x}, {tray.y}, {tray.width}, {tray.height}] (pixels, with a "
                                                "margin): if the dice tray stands in the tray zone, no die is read "
                                                "and other things are taken for dice; set dice_region over the tray "
                                                "(x, y, width, height); if the tray stands where dice_region is, move "
                                                "the tray zone (its zone card, or `pitboard calibrate IMAGE --zones "
                                                "FILE`)")
    if tray is None:
        how = ("the whole frame, where the table's tokens, tags and templates can be taken for dice" if cal is not None
               else "the whole frame (the calibration above cannot be used, so neither can its tray zone), where "
                    "the table's tokens, tags and templates can be taken for dice")
    else:
        how = (f"the calibration's tray zone, [{tray.x}, {tray.y}, {tray.width}, {tray.height}] (pixels, with a "
               "margin): if the dice tray does not stand there, no die is read")
    return CheckLine("WARN", "dice region", f"no [camera] dice_region: the dice are read from {how}; "
                                            "set dice_region = [x, y, width, height], the dice tray in the camera's "
                                            "frame (pixels): the phone page's camera view shows the frame the "
                                            "appliance reads and where it reads the dice; with the appliance "
                                            "stopped, `pitboard check --interactive` saves one at full size")


def probe_vision_files(config: PitboardConfig) -> list[CheckLine]:
    """The calibration and the face library: OK, FAIL (damaged, unreadable, configured but missing: the
    camera reads without them), WARN when the camera is off (they are not used then) or no calibration
    was made yet."""
    from device.dice_library_files import library_path
    from device.paths import data_dir
    from device.safe_files import closed_to_user
    from device.table_files import CALIBRATION_FILE

    # check is run by the login user, the files are the service user's: the appliance may well read them
    for path in (Path(config.vision.calibration or data_dir() / CALIBRATION_FILE),
                 Path(config.vision.faces or library_path())):
        if closed_to_user(path):  # (not a link leading nowhere: said below)
            return [_not_looked_at("calibration, face library", path)]
    cal, lib, problems = read_vision_files(config)
    camera_on = config.camera.backend.value != "none"
    found = {p.part: p for p in problems}
    lines = []
    cal_problem = found.get("calibration")
    cam = config.camera
    used = None  # the calibration the appliance will use (not one of another size than its frames)
    if cal_problem is None and cam.backend.value == "picamera2" and tuple(cal.image_size) != (cam.width, cam.height):
        # the frames the appliance asks for are another size: every frame is refused ("table not read")
        cw, ch = (int(v) for v in cal.image_size)
        where = config.vision.calibration or "the data folder's calibration"
        lines.append(CheckLine("FAIL", "calibration", f"{where} is for {cw}x{ch} frames, but [camera] asks the camera "
                                                      f"for {cam.width}x{cam.height}: the table is not read until they "
                                                      "agree; calibrate again from a frame of the camera's (`pitboard "
                                                      "check --interactive` saves one), or set [camera] width = "
                                                      f"{cw}, height = {ch}"))
    elif cal_problem is None:
        where = config.vision.calibration or "the data folder's calibration"
        lines.append(CheckLine("OK", "calibration", f"{where}: the table is read "
                                                    f"({cal.mat_mm[0]:g}x{cal.mat_mm[1]:g} mm mat)"))
        used = cal
        size_line = _dice_size_line(config, cal)
        if size_line is not None:
            lines.append(size_line)
    else:
        status = "FAIL" if cal_problem.severe and camera_on else "WARN"
        lines.append(CheckLine(status, "calibration", cal_problem.message))
    # (no calibration made yet: a camera over the dice tray alone, its whole frame the tray, is no mistake)
    if camera_on and (used is not None or cal_problem is None or cal_problem.severe):
        region_line = _dice_region_line(config, used)
        if region_line is not None:
            lines.append(region_line)
    faces_problem = found.get("face library")
    if faces_problem is None or not faces_problem.severe:
        from device.dice_library_files import library_path, taught_dice, teach_command

        where = config.vision.faces or library_path()
        taught = sum(len(f) for f in lib.examples.values())
        teach = teach_command("NAME", "FACE", config.config_option())
        # (said "dice are read as plain d6": only pip dice are; a skid die untaught is entered with the buttons)
        untaught = [d for d, faces in taught_dice().items()  # (a die of faces 1-6 is read by its pips untaught)
                    if d not in lib.examples and faces != [str(v) for v in range(1, 7)]]
        left = (f"; not taught: {', '.join(untaught)} dice (the camera reads pip dice only; these are entered with "
                f"the buttons until taught)") if untaught else ""
        # a die taught some of its faces cannot read the others (an audit: "2 taught face(s)" and OK for a skid die
        # taught SHIFT and HAZARD only); "reads them as ?" was not so: a die showing one is read as the taught face
        # it looks most like when it looks like one enough (an audit of the dice commands: SPIN alone taught, every
        # die-like thing read SPIN)
        partly = [f"{d} ({', '.join(f for f in faces if f not in lib.examples[d])})"
                  for d, faces in taught_dice().items() if d in lib.examples
                  and any(f not in lib.examples[d] for f in faces)]
        if partly:
            left += (f"; faces not taught: {'; '.join(partly)}: the camera cannot read them (a die showing one reads "
                     f"\"?\", or as the taught face it looks most like): teach each face (`{teach}`)")
        # a face taught from a die with nothing printed on it makes every blank thing of a die's size that die: said,
        # as the teaching said it (a tray's screw holes were read as SPIN before blank faces were told apart)
        blank_faces = {d: lib.blank_faces(d) for d in lib.dice()}
        blank = [f"{d} {', '.join(fs)}" + (" (blank faces look alike: a blank die reads \"?\", which holds the roll; "
                                           "take one back)" if len(fs) > 1 else "")
                 for d, fs in blank_faces.items() if fs]
        if blank:
            left += (f"; taught blank (nothing printed on the die): {'; '.join(blank)}: anything blank the size of a "
                     "die, a tray's screw holes too, is read as that die")
        detail = f"{taught} taught face(s){left}" if Path(where).exists() else \
            f"none taught yet (no file){left}; `{teach}` or the phone's Teach page writes it"
        if faces_problem is not None:  # read, with a word: a die no game rolls
            lines.append(CheckLine("WARN", "face library", f"{faces_problem.message} ({detail})"))
        elif partly:
            lines.append(CheckLine("WARN", "face library", f"{where}: {detail}"))
        else:
            lines.append(CheckLine("OK", "face library", f"{where}: {detail}"))
    else:
        lines.append(CheckLine("FAIL" if camera_on else "WARN", "face library", faces_problem.message))
    lines.append(_token_look_line(config))
    lines.append(_table_config_line())
    if not camera_on:
        lines = [CheckLine(line.status if line.status != "OK" else "SKIP", line.part,
                           f"{line.detail} (not used: camera backend \"none\")") for line in lines]
    return lines


def _table_config_line() -> CheckLine:
    """The table config the data folder's files make (``table.toml``, edited template shapes, taught outlines):
    WARN when one is damaged (the table is then read with the shipped defaults; the appliance still runs).  An
    audit: a bad table.toml was named by `run` and `vision read`, never by check."""
    from device.camera_input import read_table_config
    from device.paths import data_dir
    from device.table_files import CONFIG_FILE, OUTLINES_FILE, SHAPES_FILE

    from device.safe_files import closed_to_user

    try:
        _cfg, problem = read_table_config()
        # which files were read: looked at inside the try too (a folder this user cannot search was a traceback)
        found = [] if problem is not None else [name for name in (CONFIG_FILE, SHAPES_FILE, OUTLINES_FILE)
                                                if (data_dir() / name).is_file()]
    except PermissionError as exc:
        return _not_looked_at("table config", exc.filename, exc.strerror)
    if problem is not None and closed_to_user(Path(problem.path)):  # check run by the login user
        return _not_looked_at("table config", problem.path)
    if problem is not None:
        return CheckLine("WARN", "table config", problem.message)
    return CheckLine("OK", "table config", f"{data_dir()}: {', '.join(found)} read over the shipped defaults" if found
                     else f"the shipped tags and template shapes (none of {CONFIG_FILE}, {SHAPES_FILE}, {OUTLINES_FILE} "
                          f"in {data_dir()})")


def _token_look_line(config: PitboardConfig) -> CheckLine:
    """``[vision] tokens`` (or the data folder's): the token colour and the bare mats taught at set-up.  WARN when
    missing or damaged: tokens are then counted as golden tokens on an unlearned mat (the appliance still runs)."""
    from device.camera_input import read_token_look
    from device.token_files import tokens_path
    from vision.table import default_config

    base = default_config().tokens
    where = tokens_path(config.vision.tokens)
    try:
        look, problem = read_token_look(base, config.vision.tokens)
    except PermissionError as exc:
        return _not_looked_at("token look", exc.filename, exc.strerror)
    if problem is not None:
        return CheckLine("WARN", "token look", problem.message)
    if not where.exists():
        return CheckLine("OK", "token look", f"{where}: none taught yet (no file): golden tokens, the mat judged "
                                             "from each frame; `pitboard calibrate` and `pitboard teach tokens` write it")
    return CheckLine("OK", "token look", f"{where}: learned at set-up ({len(look.mats)} zone mat(s))")


def run_check(config: PitboardConfig, *, out: TextIO | None = None, pin_factory: Any = None,
              smbus_factory: Callable[[int], Any] | None = None, camera_backend: Any = None) -> int:
    """Print one line per part; 0 when nothing failed, 1 otherwise."""
    out = out if out is not None else sys.stdout
    lines = [CheckLine("OK", "config", f"{config.source}: {len(config.screens)} screen(s), "
                                       f"{len(config.buttons.pins())} button(s), camera {config.camera.backend.value}")]
    lines.extend(probe_game(config))
    lines.append(probe_store(config))
    lines.extend(probe_vision_files(config))
    lines.append(report_models())
    if smbus_factory is None:
        try:
            from smbus2 import SMBus
        except ImportError:
            SMBus = None  # type: ignore[assignment,misc]
        smbus_factory = SMBus
    if not config.screens:
        lines.append(CheckLine("WARN", "screens", "no [[screens]] in the config: nothing will be shown"))
    for screen in config.screens:
        if smbus_factory is None:
            lines.append(CheckLine("FAIL", f"screen {screen.player}", "smbus2 is not installed"))
        else:
            lines.append(probe_screen(screen, smbus_factory))
    lines.extend(probe_buttons(config, pin_factory))
    frames: list[tuple[int, int]] = []
    lines.append(probe_camera(config, camera_backend, frames=frames))
    if frames:
        lines = [_calibration_for_frames(line, config, frames[0]) for line in lines]
    for line in lines:
        out.write(f"{line}\n")
    out.write(check_summary(lines) + "\n")
    return 1 if any(line.status == "FAIL" for line in lines) else 0


def _calibration_for_frames(line: CheckLine, config: PitboardConfig, size: tuple[int, int]) -> CheckLine:
    """The calibration's OK ``line`` as the camera's frames (``size``, w x h) have it: a webcam's or a replay
    folder's frames of another size than the calibration's are all refused at the table, and check said "OK
    calibration: the table is read" above the camera's FAIL (its line could not know the frames)."""
    if line.part != "calibration" or line.status != "OK":
        return line
    from device.camera_input import read_calibration_file

    try:
        cal, problem = read_calibration_file(config.vision.calibration)
    except OSError:
        return line
    if cal is None or problem is not None or tuple(cal.image_size) == size:
        return line
    cw, ch = (int(v) for v in cal.image_size)
    where = config.vision.calibration or "the data folder's calibration"
    return CheckLine("FAIL", "calibration", f"{where} is for {cw}x{ch} frames, but the camera gives {size[0]}x{size[1]}: "
                                            "the table is not read until they agree: calibrate again from a frame "
                                            "of this camera (`pitboard check --interactive` saves one; or the phone's "
                                            "Calibrate page)")


def check_summary(lines: Sequence[CheckLine]) -> str:
    """The last line of a check: FAILs counted, and the WARNs (a warning is no failure, but "all parts OK"
    under a warned misspelt player sent the owner to the table with a player who has no screen)."""
    failed = sum(1 for line in lines if line.status == "FAIL")
    warned = sum(1 for line in lines if line.status == "WARN")
    said = f"{failed} part(s) FAILED" if failed else "all parts OK"
    if warned:
        said += f"; {warned} warning(s) above: read them" if not failed else f", {warned} warning(s)"
    return said


def cmd_check(args: argparse.Namespace) -> int:
    interactive = getattr(args, "interactive", False)
    if interactive and not args.button_timeout > 0:  # also refuses nan
        raise _user_error(f"--button-timeout {args.button_timeout:g}: give a number of seconds above 0, e.g. 20")
    config = _load(args.config)
    status = run_check(config)
    if not interactive:
        return status
    print()
    return max(status, run_interactive_check(
        config, inp=sys.stdin, out=sys.stdout,
        camera_out=Path(args.camera_out) if args.camera_out else None, button_timeout_s=args.button_timeout))


# -- check --interactive ---------------------------------------------------------------------------------


def name_card(player: str, width: int = 128, height: int = 64) -> Any:
    """A 1-bit frame with the player's name as large as fits, framed, for "is this your screen?"."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("1", (width, height))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width - 1, height - 1), outline=1)
    from device.dashboards.common import drawable

    text = drawable(player)[:16]  # as the player's own screens draw the name ("Jörg": Jorg)
    for size in (36, 30, 24, 20, 16, 13, 11):
        font = ImageFont.load_default(size=size)
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        if x1 - x0 <= width - 8 and y1 - y0 <= height - 20:
            break
    draw.text(((width - (x1 - x0)) // 2 - x0, (height - 14 - (y1 - y0)) // 2 - y0), text, font=font, fill=1)
    small = ImageFont.load_default(size=11)
    draw.text((4, height - 14), "pitboard check", font=small, fill=1)
    return image


def _ask(inp: TextIO, out: TextIO, question: str) -> str | None:
    """One answer line (stripped, lower case), or None at the end of the input."""
    out.write(question)
    out.flush()
    line = inp.readline()
    if not line:
        out.write("\n")
        return None
    return line.strip().lower()


def check_screens_interactive(config: PitboardConfig, inp: TextIO, out: TextIO,
                              screen_factory: Callable[[ScreenConfig], Any]) -> list[CheckLine]:
    """Each screen shows its player's name; the person at the table says whether it is in front of them."""
    lines: list[CheckLine] = []
    for screen_cfg in config.screens:
        part = f"screen {screen_cfg.player} ({screen_cfg.where})"
        screen = None
        try:
            screen = screen_factory(screen_cfg)
            screen.open()
            screen.show(name_card(screen_cfg.player))
        except Exception as exc:
            lines.append(CheckLine("FAIL", part, f"cannot show the name ({exc}); run `pitboard check` for the wiring"))
            if screen is not None:
                with contextlib.suppress(Exception):
                    screen.close()
            continue
        answer = _ask(inp, out, f"The screen at {screen_cfg.where} shows \"{screen_cfg.player}\". Is it in front of "
                                f"{screen_cfg.player}'s seat? [y/n] ")
        if answer in ("y", "yes"):
            lines.append(CheckLine("OK", part, "confirmed at the right seat"))
        elif answer is None:
            lines.append(CheckLine("SKIP", part, "no answer (end of input)"))
        else:
            lines.append(CheckLine("FAIL", part, f"not at {screen_cfg.player}'s seat: swap the screens' cables (or "
                                                 "their [[screens]] entries' address/mux_channel) and check again"))
        with contextlib.suppress(Exception):
            screen.close(blank=True)
    return lines


def _seated_count(config: PitboardConfig) -> int | None:
    """How many players the configured setup seats (None: the setup does not start)."""
    from device.setup_files import seated_players
    from games import game_package

    try:
        module = game_package(config.game.name)
        return len(seated_players(module, module.GAME.start(read_setup(module, config.game.setup, config.source))))
    except Exception:  # noqa: BLE001 - the game's own line says what is wrong with it
        return None


def check_buttons_interactive(config: PitboardConfig, out: TextIO, *, pin_factory: Any = None,
                              timeout_s: float = 20.0, poll_s: float = 0.01,
                              clock: Callable[[], float] = time.monotonic,
                              sleep: Callable[[float], None] = time.sleep,
                              on_prompt: Callable[[str, int], None] | None = None,
                              seated: int | None = None) -> list[CheckLine]:
    """Ask for each button in turn and report which GPIO answered (a swapped or wrong wire shows as
    another GPIO). ``on_prompt(name, pin)`` runs after each request (tests press mock pins there).
    ``seated``: the players at the table; a player button beyond them is not asked for (SKIP): six optional
    P buttons in the shipped file, two players, and the owner waited out four timeouts for nothing."""
    lgpio_workdir()
    try:
        from gpiozero import Button
        from gpiozero.exc import BadPinFactory
    except ImportError:
        return [CheckLine("FAIL", "buttons", "gpiozero is not installed")]
    pins = config.buttons.pins()
    claimed: dict[int, Any] = {}
    said: list[str] = []
    try:
        for pin in pins.values():
            with fallbacks_said() as said:
                claimed[pin] = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
    except BadPinFactory:
        return [CheckLine("FAIL", "buttons", no_pin_factory(said))]
    except Exception as exc:
        for b in claimed.values():
            b.close()
        return [CheckLine("FAIL", "buttons", f"a pin cannot be claimed ({exc}); is another program (the "
                                             "service: sudo systemctl stop pitboard) using it?")]
    by_pin = {pin: name for name, pin in pins.items()}
    lines: list[CheckLine] = []
    try:
        stuck = [pin for pin, b in claimed.items() if b.is_pressed]
        for name, pin in pins.items():
            part = f"button {name.upper()} (GPIO{pin})"
            seat = int(name[1:]) if name.startswith("p") and name[1:].isdigit() else None
            if seat is not None and seated is not None and seat > seated:
                lines.append(CheckLine("SKIP", part, f"no player in seat {seat} at this table ({seated} seated): not "
                                                     "asked for; it is used when one is"))
                continue
            if pin in stuck:
                lines.append(CheckLine("FAIL", part, "reads PRESSED before asked: stuck, or wired to 3V3 instead "
                                                     "of GND"))
                continue
            out.write(f"Press {name.upper()} (wired to GPIO{pin}) ... ")
            out.flush()
            if on_prompt is not None:
                on_prompt(name, pin)
            deadline = clock() + timeout_s
            answered: int | None = None
            while answered is None and clock() < deadline:
                answered = next((p for p, b in claimed.items() if p not in stuck and b.is_pressed), None)
                if answered is None:
                    sleep(poll_s)
            if answered is None:
                out.write("nothing\n")
                lines.append(CheckLine("FAIL", part, f"no GPIO answered in {timeout_s:g} s: check the button's wire "
                                                     f"to GPIO{pin} and to GND"))
                continue
            out.write(f"GPIO{answered}\n")
            if answered == pin:
                lines.append(CheckLine("OK", part, f"GPIO{pin} answered"))
            else:
                lines.append(CheckLine("FAIL", part, f"GPIO{answered} answered, which is {by_pin[answered].upper()}'s "
                                                     f"pin: the wires of {name.upper()} and {by_pin[answered].upper()} "
                                                     "are swapped, or pitboard.toml [buttons] has them the wrong way"))
            release = clock() + timeout_s  # wait for the release, so one press is not read twice
            while claimed[answered].is_pressed and clock() < release:
                sleep(poll_s)
    finally:
        for b in claimed.values():
            with contextlib.suppress(Exception):
                b.close()
    return lines


def draw_calibration(image: Any, calibration: Any) -> Any:
    """A copy of a BGR frame with the mat outline, its corners and the zones (name, kind) drawn."""
    import cv2
    import numpy as np

    canvas = image.copy()
    if canvas.ndim == 2:
        canvas = cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR)
    w_mm, h_mm = calibration.mat_mm
    corners = np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], dtype=float)
    px = calibration.to_px(corners)
    cv2.polylines(canvas, [np.round(px).astype(np.int32).reshape(-1, 1, 2)], True, (0, 255, 0), 2, cv2.LINE_AA)
    for (x, y), label in zip(px, ("0,0", f"{w_mm:g},0", f"{w_mm:g},{h_mm:g}", f"0,{h_mm:g}")):
        cv2.circle(canvas, (int(round(x)), int(round(y))), 8, (0, 255, 0), 2, cv2.LINE_AA)
        cv2.putText(canvas, label, (int(x) + 10, int(y) - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 0), 2)
    for zone in calibration.zones:
        poly = calibration.to_px(np.array(zone.polygon, dtype=float))
        colour = (255, 200, 0) if zone.kind == "dice_tray" else (0, 200, 255)
        cv2.polylines(canvas, [np.round(poly).astype(np.int32).reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA)
        x, y = poly.mean(axis=0)
        # the tray zone keeps the template search off the dice; the dice are read from [camera] dice_region
        cv2.putText(canvas, f"{zone.name} ({'tray: no templates' if zone.kind == 'dice_tray' else 'tokens'})",
                    (int(x) - 40, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)
    return canvas


def draw_dice_region(image: Any, region: Any, *, inferred: bool = False) -> tuple[Any, str]:
    """A copy of a frame with where the appliance reads the dice drawn (``[camera] dice_region``; ``inferred``:
    the calibration's tray zone, standing for it when it is not set), and what to say of it."""
    import cv2

    if region is None:
        return image, "dice are read from the whole frame (no [camera] dice_region)"
    canvas = image.copy()
    h, w = canvas.shape[:2]
    x, y, rw, rh = region.x, region.y, region.width, region.height
    cv2.rectangle(canvas, (x, y), (x + rw - 1, y + rh - 1), (255, 0, 255), 3, cv2.LINE_AA)
    said = "the calibration's tray zone" if inferred else "[camera] dice_region"
    cv2.putText(canvas, f"dice read here ({said})", (x + 6, max(20, y - 8)), cv2.FONT_HERSHEY_SIMPLEX,
                0.6, (255, 0, 255), 2, cv2.LINE_AA)
    misfit = region.misfit(w, h)
    if misfit:
        return canvas, f"[camera] dice_region {misfit}"
    return canvas, f"the dice are read inside the magenta box ({said}): the tray must sit in it"


def check_camera_view(config: PitboardConfig, out_path: Path, backend: Any = None) -> CheckLine:
    """One frame from the camera, with the calibration drawn on it when there is one, saved as PNG."""
    import cv2

    from device.camera import backend_from_config, first_frame
    from device.safe_files import write_atomic

    backend = backend if backend is not None else backend_from_config(config.camera)
    if backend is None:
        return CheckLine("SKIP", "camera view", 'backend = "none": no camera to look through')
    try:
        image, _ = first_frame(backend)
    except Exception as exc:
        return CheckLine("FAIL", "camera view", f"no frame ({exc})")
    if image is None:
        return CheckLine("FAIL", "camera view", f"the camera opened but gave no frame: {_no_frame_fix(config)}")
    cal, _lib, _problems = read_vision_files(config)
    note = "nothing drawn: no usable calibration (see the calibration line)"
    misfit = wrong_size = False
    # the frame itself, as the camera gives it: what `pitboard calibrate` and `teach tokens` are given
    frame_path = out_path.with_name(f"{out_path.stem}-frame.png")
    ok, raw = cv2.imencode(".png", image)
    try:
        if ok:
            write_atomic(frame_path, raw.tobytes())
    except OSError as exc:
        return CheckLine("FAIL", "camera view", f"cannot write {frame_path} ({exc.strerror or exc}); give --camera-out "
                                                "a writable place")
    if cal is not None:
        h, w = image.shape[:2]
        if tuple(cal.image_size) != (w, h):
            wrong_size = True
            note = (f"nothing drawn: the calibration is for {cal.image_size[0]}x{cal.image_size[1]} frames, the camera "
                    f"gives {w}x{h}, so the table is not read; calibrate again from this frame: `pitboard calibrate "
                    f"{frame_path}`")
        else:
            seen, misfit = _cars_seen(image, cal, config)
            note = (f"mat corners and {len(cal.zones)} zone(s) drawn: check they sit on the mat's corners and zones"
                    f"; {seen}")
            image = draw_calibration(image, cal)
    from device.camera_input import tray_region

    h, w = image.shape[:2]
    same_size = cal is not None and tuple(cal.image_size) == (w, h)  # (else the box says nothing of the tray)
    image, region_note = draw_dice_region(image, config.camera.dice_region or (tray_region(cal) if same_size else None),
                                          inferred=config.camera.dice_region is None)
    note += f"; {region_note}"
    h, w = image.shape[:2]
    region_off = config.camera.dice_region is not None and config.camera.dice_region.misfit(w, h) is not None
    ok, png = cv2.imencode(".png", image)
    if not ok:
        return CheckLine("FAIL", "camera view", "the frame could not be encoded as PNG")
    try:
        write_atomic(out_path, png.tobytes())
    except OSError as exc:
        return CheckLine("FAIL", "camera view", f"cannot write {out_path} ({exc.strerror or exc}); give --camera-out "
                                                "a writable place")
    status = "FAIL" if wrong_size or region_off else "WARN" if misfit else "OK"
    return CheckLine(status, "camera view", f"saved to {out_path} (the frame alone: {frame_path}); {note}")


def _cars_seen(image: Any, calibration: Any, config: PitboardConfig) -> tuple[str, bool]:
    """(which cars the camera sees in this frame, by the setup's vehicle tags as the appliance names them,
    and every car or template tag it does not use for its size -- a tag sheet printed "fit to page", a
    wrong size in the table config; whether there is such a tag).  A die in the dice tray read as a tag
    is no misprint: the appliance ignores it, and so does this."""
    import dataclasses

    from device.camera_input import car_tags_from_options, read_table_config
    from games import game_package
    from vision.table import read_table

    cfg, _problem = read_table_config()  # a damaged file is the table config line's to report
    try:
        module = game_package(config.game.name)
        tags = car_tags_from_options(read_setup(module, config.game.setup, config.source), module)
    except Exception:  # noqa: BLE001 - a bad setup is the game line's to report: the config's own tags
        tags = {}
    if tags:
        cfg = dataclasses.replace(cfg, car_tags=tags)
    try:
        obs = read_table(image, calibration, cfg)
    except Exception as exc:  # a frame it cannot read: say so, the view is still saved
        return f"the table could not be read ({exc})", False
    tray = config.camera.dice_region
    misfits = [m for m in obs.misfits if tray is None or not tray.contains(*m.centre_px)]
    said = "cars seen: " + (", ".join(sorted(c.id for c in obs.cars)) or "none")
    if misfits:
        said += "; not used: " + "; ".join(m.describe() for m in misfits)
    return said, bool(misfits)


def report_models() -> CheckLine:
    """The dice networks shipped with the package: each one loaded (``vision.dice.check_models``), so a
    missing, truncated or unloadable file - or no onnxruntime - is named with what to do."""
    import vision.dice

    folder = Path(vision.dice.__file__).parent
    models = sorted(folder.glob("*.onnx"))
    listed = ", ".join(f"{m.name} {_size_mb(m)}" for m in models) or "no *.onnx"
    try:
        import onnxruntime
    except ImportError:
        return CheckLine("FAIL", "models", f"{folder}: {listed}; onnxruntime is not installed: dice cannot be "
                                           "read; reinstall Pitboard (deploy/install.sh --reinstall)")
    wrong = vision.dice.check_models()
    if wrong:
        return CheckLine("FAIL", "models", "; ".join(wrong))
    return CheckLine("OK", "models", f"{folder}: {listed}; onnxruntime {onnxruntime.__version__}")


def _size_mb(path: Path) -> str:
    """A model file's size for the listing; a link that loops or leads nowhere has none (check_models says why)."""
    try:
        return f"{path.stat().st_size / 1e6:.1f} MB"
    except OSError:
        return "(unreadable)"


def model_problems() -> list[Any]:
    """The dice networks' faults as start-up problems (severe: the dice are then entered with the
    buttons, and the screens say so), none when every network loads."""
    from device.camera_input import VisionFileProblem

    line = report_models()
    if line.status == "OK":
        return []
    import vision.dice

    return [VisionFileProblem("dice models", Path(vision.dice.__file__).parent, f"{line.detail}. Until then the "
                              "camera does not read dice: enter them with the buttons.", "DICE MODELS BROKEN")]


def run_interactive_check(config: PitboardConfig, *, inp: TextIO, out: TextIO, camera_out: Path | None = None,
                          screen_factory: Callable[[ScreenConfig], Any] | None = None, pin_factory: Any = None,
                          camera_backend: Any = None, button_timeout_s: float = 20.0,
                          on_button_prompt: Callable[[str, int], None] | None = None,
                          clock: Callable[[], float] = time.monotonic,
                          sleep: Callable[[float], None] = time.sleep) -> int:
    """``pitboard check --interactive``: screens confirmed by the players, buttons pressed in turn, the camera's
    view with the calibration saved to a file, and the calibration, face library and models reported.
    0 when nothing failed, 1 otherwise."""
    from device.displays import build_screen
    from device.paths import data_dir

    out.write("Interactive check: answer at the table. Stop the service first (sudo systemctl stop pitboard): "
              "screens, buttons and camera serve one program at a time.\n")
    factory = screen_factory or (lambda cfg: build_screen(cfg, "i2c"))
    lines = check_screens_interactive(config, inp, out, factory)
    lines += check_buttons_interactive(config, out, pin_factory=pin_factory, timeout_s=button_timeout_s,
                                       seated=_seated_count(config),
                                       clock=clock, sleep=sleep, on_prompt=on_button_prompt)
    lines.append(check_camera_view(config, camera_out or data_dir() / "check-camera.png", camera_backend))
    lines.extend(probe_vision_files(config))
    lines.append(report_models())
    out.write("\n")
    for line in lines:
        out.write(f"{line}\n")
    out.write(f"interactive check: {check_summary(lines)}\n")
    return 1 if any(line.status == "FAIL" for line in lines) else 0


# -- run ----------------------------------------------------------------------------------------------


@dataclass
class Appliance:
    """Everything ``pitboard run`` holds, built from the config; :meth:`close` releases it all."""

    app: Any
    store: Any
    game_id: int
    resumed: bool
    buttons: Any
    bank: Any
    camera: Any
    #: What is wrong with the camera's files (calibration, face library): the appliance runs without them.
    file_problems: tuple[Any, ...] = ()

    def close(self) -> None:
        self.buttons.close()
        if self.camera is not None:
            self.camera.close()
        self.bank.close()
        self.store.close()


#: How long "resumed game N of DATE" stays on the screens at the start.
RESUMED_NOTICE_S = 15.0


def build_appliance(config: PitboardConfig, *, pin_factory: Any = None, screen_backend: str = "i2c",
                    clock: Callable[[], float] = time.monotonic, camera_backend: Any = None,
                    log: Callable[[str], None] = lambda m: print(f"pitboard: {m}", file=sys.stderr)) -> Appliance:
    """Game, store (resuming the latest unfinished game), screens, buttons, camera and the loop, from the
    config.  The hardware seams (pin factory, screen backend, camera backend, clock) are parameters so that
    the test suite builds the whole appliance on mock pins and recording screens."""
    from device.app import open_match
    from device.buttons import ButtonPanel
    from device.camera import Camera, ThreadedBackend, backend_from_config
    from device.displays import build_bank
    from device.paths import game_log
    from device.store import Store, StoreError, starting_events
    from games import game_package

    if not config.screens:
        raise _user_error(f"{config.source}: screens: none configured; add one [[screens]] table per player")
    try:
        module = game_package(config.game.name)
    except LookupError as exc:
        raise _user_error(f"{config.source}: game: {exc}") from None
    setup_wrong: str | None = None
    try:
        setup_given = given_setup(module, config.game.setup, config.source)
    except (LookupError, ValueError) as exc:  # said below, unless a game in the log is resumed (it needs none)
        setup_given, setup_wrong = {}, f"{config.source}: game: {exc}"
    saved = saved_rule_files(module.GAME.name, setup_given)
    options: dict[str, Any] | None = saved.options
    given = config.store.path
    from device.safe_files import closed_to_user

    closed = closed_to_user(given) if given is not None else None
    if closed:  # (Path.exists raises in a folder closed to this user)
        raise _user_error(f"the game log {given} {closed} (as [store] path in {config.source})")
    if given is not None and not given.exists() and not given.parent.is_dir():
        # as `check` says: a mistyped folder would begin a new game there, and the unfinished one (in the
        # folder meant) would not be resumed
        raise _user_error(f"{given}: the folder {given.parent} does not exist; create it, or correct [store] path "
                          f"in {config.source}")
    try:
        store = Store(game_log(given))
    except StoreError as exc:
        raise _user_error(str(exc)) from None
    if store.wal_note:
        log(f"warning: {store.wal_note}")
    other = _resumed_kind(store, module, log)
    if other is not None:  # a game begun from the phone page, of another kind than the config's: it goes on
        log(f"resuming the unfinished {other.GAME.name} game (begun from the web page); [game] name "
            f"{config.game.name!r} begins when the log holds no unfinished game")
        module, options = other, None
    if setup_wrong is not None:
        if options is not None and store.would_begin(module.GAME):  # a new game needs it
            store.close()
            raise _user_error(setup_wrong)
        # an owner editing the next game's setup, then a power cut, stranded the game under way (an audit)
        log(f"warning: {setup_wrong}; it is needed only to begin the next new game: the unfinished game in the log "
            "is resumed")
        options = None
    def refused(exc: Exception) -> Exception:
        if isinstance(exc, StoreError):  # the log's game cannot be replayed: the log, not the setup, is named
            return _user_error(f"the game could not start: {exc}")
        reason = getattr(exc, "reason", None) or str(exc)
        # (the setup as given, not with the saved facts: an empty file is said to hold nothing; none for a game of
        # another kind resumed from the log)
        said = _setup_refused(config, reason, setup_given if options is not None else None)
        return _user_error(f"the game could not start: {said}")

    if options is not None and store.would_begin(module.GAME):
        for problem in saved.problems:  # a saved file the new game cannot take: it begins without it, and says so
            log(f"warning: {problem}")
        try:  # a setup the game refuses is said before any hardware is tried (on a PC the buttons fail)
            starting_events(module.GAME, options)
        except Exception as exc:
            store.close()
            raise refused(exc) from None
    # then the screens and buttons, before the game: a panel that cannot be set up must not leave a game begun in
    # the log (the next run resumed it, with the players of the setup it failed with)
    bank = build_bank(config.screens, screen_backend, clock=clock, on_event=lambda e: log(str(e)))
    bank.open()
    fallbacks: list[str] = []
    try:
        with fallbacks_said() as fallbacks:
            buttons = ButtonPanel(config.buttons.pins(), clock=clock, pin_factory=pin_factory,
                                  long_press_ms=config.buttons.long_press_ms, debounce_ms=config.buttons.debounce_ms)
    except Exception as exc:
        bank.close()
        store.close()
        tried = f"; tried: {'; '.join(fallbacks)}" if fallbacks else ""
        raise _user_error(f"the buttons could not be set up ({exc}{tried}); on a Raspberry Pi install "
                          "python3-lgpio; run `pitboard check` to see which part is missing") from None
    try:
        game_id, match, resumed = open_match(store, module, options)
    except Exception as exc:
        buttons.close()
        bank.close()
        store.close()
        raise refused(exc) from None
    if resumed and options is not None:  # the setup at hand was not used: said, with why and what to do
        said = setup_not_resumed(config, module, options, match.records, game_id, store.path)
        if said is not None:
            log(f"warning: {said}")
    _screens_of_strangers(config, bank, match, log)
    for line in fallbacks:  # set up on another pin library than the first: worth a line, not a traceback-like dump
        log(f"buttons: {line}")
    backend = camera_backend
    if backend is None:
        backend = backend_from_config(config.camera)
        if backend is not None:
            backend = ThreadedBackend(backend)  # a blocking frame read must not hold a button press
    camera = None
    if backend is not None:
        camera = Camera(backend, clock=clock, fps=config.camera.fps, reopen_max_s=config.camera.reopen_max_s)
    try:
        app, problems = _game_app(config, module, match, store, game_id, buttons=buttons, bank=bank, camera=camera,
                                  clock=clock, log=log)
    except Exception:
        buttons.close()
        bank.close()
        store.close()
        raise
    for problem in problems:
        log(f"{'warning' if problem.severe else 'note'}: {problem.message}")
    if resumed:
        # an old game under way is not what a table expects when it switches on: say which, and since when
        created = next((g.created for g in store.games() if g.id == game_id), "")
        try:
            began = datetime.fromisoformat(created).strftime(" of %d %b").replace(" of 0", " of ")  # "of 3 Dec"
        except ValueError:
            began = ""
        app.notify("resumed", f"resumed game {game_id}{began}", None, until=clock() + RESUMED_NOTICE_S)
    if store.wal_short:  # what the table played may be short of what it had recorded: said on every screen
        app.notify("store", f"GAME LOG: {store.wal_short}", None, until=clock() + 4 * RESUMED_NOTICE_S)
    log(f"{'resumed' if resumed else 'started'} {module.GAME.name} game {game_id} ({store.path})")
    return Appliance(app, store, game_id, resumed, buttons, bank, camera, tuple(problems))


def _resumed_kind(store: Any, module: Any, log: Callable[[str], None] = lambda m: None) -> Any:
    """The package of the game ``pitboard run`` resumes when it is not ``module``'s: the newest unfinished game
    in the log is of another kind (begun from the phone page, which starts any game).  None: ``module``'s."""
    from games import REGISTRY, game_package

    kind = store.newest_unfinished_kind()
    if kind is None or kind == module.GAME.name:
        return None
    try:
        return game_package(kind)
    except LookupError:  # a kind this Pitboard does not know (a log from a newer one): the config's game
        # said, not skipped in silence: the game stays in the log, untouched
        log(f"note: the newest unfinished game in {store.path} is of a kind this Pitboard does not know ({kind!r}; "
            f"it knows {', '.join(sorted(REGISTRY))}): it is kept as it is, and [game] name "
            f"{module.GAME.name!r} is played (a newer Pitboard may have written it: `pitboard log list`)")
        return None


def _screens_of_strangers(config: PitboardConfig, bank: Any, match: Any, log: Callable[[str], None]) -> None:
    """A screen whose ``[[screens]] player`` is nobody at this game's table: the game never draws on it, so it
    says why on itself, not only in the journal."""
    from device.dashboards import pages

    players = {str(getattr(v, "player", "")) for v in match.views()}
    for stranger in [screen.player for screen in config.screens if screen.player not in players]:
        log(f"warning: a screen for {stranger!r}, who is not at this table (players: {', '.join(sorted(players))})")
        bank.show(stranger, pages.render_text(not_at_table_page(stranger, sorted(players), config.source)))


def _game_app(config: PitboardConfig, module: Any, match: Any, store: Any, game_id: int, *, buttons: Any, bank: Any,
              camera: Any, clock: Callable[[], float], log: Callable[[str], None]) -> tuple[Any, list[Any]]:
    """The loop of one game on the appliance's screens, buttons and camera (at start, and for a game begun from
    the page), with what is wrong with the camera's files: ``(app, problems)``."""
    from device.app import App, VisionReader
    from device.camera_input import car_tags_of

    reader = None
    problems: list[Any] = []
    if camera is not None:
        # A damaged calibration or face library never stops the appliance: it plays without table reading (or
        # with plain d6), says so on the screens and in the journal, and `check` names it.  The cars the camera
        # looks for are this game's (their tags come from its setup).
        reader = VisionReader.from_files(config.vision.calibration, config.vision.faces, car_tags_of(match.state),
                                         problems=problems, dice_mm=config.vision.dice_mm,
                                         dice_region=config.camera.dice_region, tokens=config.vision.tokens,
                                         config_option=config.config_option())
        problems.extend(model_problems())
    # (unset: where the reader's calibration says the dice tray stands, CameraInput.dice_region)
    app = App(module, match, buttons=buttons, displays=bank, clock=clock, camera=camera, reader=reader,
              dice_region=config.camera.dice_region, settle_frames=config.camera.settle_frames,
              long_back_undo_steps=config.buttons.long_back_undo_steps,
              on_finished=lambda over: store.finish(game_id, over), log=log)
    app.show_file_problems(problems)
    return app, problems


def begin_from_page(appliance: Appliance, config: PitboardConfig, game: str, options: Mapping[str, Any], *,
                    log: Callable[[str], None]) -> Any:
    """A new game of ``game`` begun from the phone page's "Start this game", on the same log, screens, buttons
    and camera: the new game's App replaces ``appliance.app`` and is returned.  Called between two runs of the
    loop (:func:`device.web.cli.run_with_web`): begun inside the old loop's step, the presses of that step
    went to the old game.  ``options`` were checked by the page; the game in progress stays in the log, ended
    unfinished (the page's "End the game in progress": it is not resumed at the next start).  The screens are
    the config's: a player without one has the menu on every screen, and a screen whose player is not at this
    table says so (as at start)."""
    from games import game_package

    old = appliance.app
    module = game_package(game)
    game_id, match, _ = appliance.store.open_match(module.GAME, options, new=True)
    _screens_of_strangers(config, appliance.bank, match, log)
    app, _ = _game_app(config, module, match, appliance.store, game_id, buttons=appliance.buttons,
                       bank=appliance.bank, camera=appliance.camera, clock=old.clock, log=log)
    app.follow_camera_of(old)
    # the new game is at the table: the old one is ended (last: a new game that could not be set up leaves the table
    # with the old game, which must not be marked ended meanwhile; a review)
    appliance.store.end_unfinished(appliance.game_id)
    appliance.app, appliance.game_id, appliance.resumed = app, game_id, False
    log(f"started {module.GAME.name} game {game_id} from the web page ({appliance.store.path})")
    return app


def not_at_table_page(player: str, players: list[str], source: str) -> Any:
    """The page a screen keeps whose ``[[screens]] player`` is nobody at the table (a misspelt name)."""
    from device.dashboards import pages

    text = f"{player!r} is not playing: fix [[screens]] player in {source}. Players: {', '.join(players)}"
    lines = pages.wrap(text)
    if len(lines) > pages.BODY_LINES:  # the players' names are the last to go
        lines = [*lines[: pages.BODY_LINES - 1], lines[pages.BODY_LINES - 1].rstrip(",") + "…"]
    return pages.TextPage(f"SCREEN {player}", tuple(lines), 1, 1)


#: How long each page of a NOT STARTED reason stays up before the next (the screens page through it).
NOT_STARTED_PAGE_S = 6.0


def not_started_pages(message: str) -> list[Any]:
    """The pages every screen shows when ``pitboard run`` cannot start: the whole reason, four lines a page (a
    file by its name, without its folders: the screen is small), "NOT STARTED 1/3" on the title."""
    import re

    from device.dashboards import pages

    gist = re.sub(r"(?:/[^\s/:;,()]+)+/([^\s/:;,()]+)", r"\1", message)
    gist = re.sub(r"^[^\s:]+: game: (?=setup file )", "", gist)  # the setup file names itself
    lines = pages.wrap(gist)
    chunks = [tuple(lines[k:k + pages.BODY_LINES]) for k in range(0, len(lines), pages.BODY_LINES)]
    return [pages.TextPage("NOT STARTED", chunk, k + 1, len(chunks)) for k, chunk in enumerate(chunks)]


def show_not_started(config: PitboardConfig, message: str, *, screen_backend: str = "i2c",
                     hold: Callable[[float], bool] | None = None) -> bool:
    """Best effort: ``message`` on every configured screen that answers; the frame stays up after the process
    ends (the screens are not blanked), where the table sees it.  A reason longer than a page is paged through
    while ``hold(NOT_STARTED_PAGE_S)`` returns True (None: the first page is shown, and kept); the screens are
    left on the first page.  The terminal and the journal have it whole.  False: no screen answered (and then
    nothing is held: a service paging for no screen stayed up for ever, showing nothing)."""
    from device import displays
    from device.dashboards import pages

    if not config.screens:
        return False
    try:
        # a screen that does not answer was said when the appliance was built: not again, bare, here
        bank = displays.build_bank(config.screens, screen_backend, on_event=lambda event: None)
        bank.open()
    except Exception:  # noqa: BLE001 - a screen that cannot show it changes nothing: the message is printed
        return False
    images = [pages.render_text(page) for page in not_started_pages(message)]
    shown = 0
    answered = False
    try:
        while True:
            # a page missed by every screen (a moment's I2C error) is no reason to stop: no screen ever answering is
            answered = any([bank.show(player, images[shown]) for player in bank.players]) or answered
            if not answered or hold is None or len(images) == 1 or not hold(NOT_STARTED_PAGE_S):
                break
            shown = (shown + 1) % len(images)
    except KeyboardInterrupt:  # the service is stopped (KillSignal=SIGINT) or Ctrl-C at the terminal
        pass
    except Exception:  # noqa: BLE001 - as above
        pass
    try:
        if shown:
            for player in bank.players:
                bank.show(player, images[0])
        bank.close()
    except Exception:  # noqa: BLE001 - as above
        pass
    return answered


def _not_started(config: PitboardConfig, message: str) -> bool:
    """Say on the screens why ``run`` did not start; True when it was printed here as well.  Under systemd (which sets
    ``INVOCATION_ID``) or at a terminal the process stays up paging a long reason until it is stopped: a frame
    left after exit could show only its first page.  Elsewhere (a script, the tests) it shows the first page
    and returns at once."""
    if (len(not_started_pages(message)) == 1 or not config.screens
            or not (os.environ.get("INVOCATION_ID") or _isatty(sys.stdin))):
        show_not_started(config, message)
        return False
    print(f"pitboard: {message}", file=sys.stderr, flush=True)
    print("pitboard: the screens show it page by page; stop with Ctrl-C (systemctl stop pitboard)",
          file=sys.stderr, flush=True)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop as SIGINT does
    try:
        if not show_not_started(config, message, hold=_sleep_true):
            print("pitboard: no screen answers: the reason is only here (and in the journal)", file=sys.stderr,
                  flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return True


#: What ``run`` exits with once the reason was printed whole before the screens paged through it.
TOLD = "not started (the reason is above)"


def _sleep_true(seconds: float) -> bool:
    time.sleep(seconds)
    return True


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def start_appliance(path: str) -> tuple[PitboardConfig, Appliance]:
    """The configuration at ``path`` and the appliance built from it, for ``pitboard run`` (with or without the
    page).  What stops it is said on the screens as well: exit 2 is not restarted by systemd, and without it
    the screens stay dark, or keep the last game's frame."""
    from device.cli import UserError
    from device.paths import DataFolderError

    try:
        config = load_config(path)
    except ConfigError as exc:
        # the file's own screens, those that can be read: a mistyped line must not leave the table dark
        told = _not_started(PitboardConfig(screens=salvage_screens(path)), str(exc))
        raise _user_error(TOLD if told else str(exc)) from None
    try:
        return config, build_appliance(config)
    except (UserError, DataFolderError) as exc:
        if _not_started(config, str(exc)):
            raise _user_error(TOLD) from None
        raise


def cmd_run(args: argparse.Namespace) -> int:
    _config, appliance = start_appliance(args.config)
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)  # systemd stops the unit with SIGTERM: finish the step, close cleanly
    try:
        appliance.app.run(stop=lambda: stopping)
    except KeyboardInterrupt:
        pass
    finally:
        appliance.close()
    return 0


# -- sim ----------------------------------------------------------------------------------------------


def cmd_sim(args: argparse.Namespace) -> int:
    from device.sim import FIRST_FRAME_MARK, Sim, play_at_terminal, stream_chars
    from device.store import StoreError

    interactive = (args.keys is None and not args.exit_after_first_frame and not args.plain
                   and sys.stdin.isatty() and sys.stdout.isatty())
    try:
        sim = Sim(args.game, setup=args.setup, db=args.db, keep_log=not args.no_log, new=args.new,
                  dice_images=args.dice_images, style=args.style, live=interactive)
    except (LookupError, ValueError, StoreError) as exc:
        raise _user_error(str(exc)) from None
    except OSError as exc:
        raise _user_error(f"the game log could not be opened ({exc}); give another with --db FILE, or play "
                          "without one: --no-log") from None
    except Exception as exc:
        reason = getattr(exc, "reason", None)
        if reason is None:
            raise
        raise _user_error(f"the setup was refused: {reason}") from None
    try:
        sim.step()  # first frame
        if args.exit_after_first_frame:
            print(FIRST_FRAME_MARK, flush=True)
            return 0
        if args.keys is not None:
            sim.feed(keystrokes(args.keys))
        elif interactive:
            play_at_terminal(sim, sys.stdin)
        else:
            print("keys: s SELECT, o OK, b BACK, n NEXT (capitals: long press), digits + Enter: dice, "
                  "? help, q quit", flush=True)
            sim.feed(stream_chars(sys.stdin))
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
    print(sim.log_text(), flush=True)
    return 0


# -- bench --------------------------------------------------------------------------------------------


def measure_startup(runs: int = 3) -> dict[str, Any]:
    """Launch ``pitboard sim --exit-after-first-frame`` as a new process and time it until the first
    screen is drawn (interpreter start, imports, rules, store, dashboards: everything but the hardware)."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    times = []
    for _ in range(max(1, runs)):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "device.cli_device", "sim", "--no-log",
                                 "--exit-after-first-frame"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
        assert proc.stdout is not None
        seen = None
        for line in proc.stdout:
            if line.strip().endswith("PITBOARD-FIRST-FRAME"):
                seen = time.perf_counter() - t0
                break
        proc.communicate(timeout=60)
        if seen is None:
            raise RuntimeError(f"the sim did not draw a first frame (exit {proc.returncode})")
        times.append(seen)
    return {"start_to_first_frame_s": round(statistics.median(times), 3),
            "start_to_first_frame_runs_s": [round(t, 3) for t in times], "start_target_s": 2.0}


def measure_press_to_frame(presses: int = 30) -> dict[str, Any]:
    """Through the real loop: a button event → rules → SQLite store (fsync) → dashboards → a recording
    luma screen (the real driver and diff layer, no bus).  Alternates OK (choose a template: a decision
    is recorded) and BACK (undo it: another decision); the time is until the changed frame was shown.
    Only presses that changed a screen count (all of these do)."""
    import tempfile

    from device.app import App, open_match, setup_options
    from device.buttons import ScriptedButtons
    from device.displays import ScreenSpec, build_bank
    from device.store import Store
    from games import game_package

    module = game_package("gaslands")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.sqlite")
        _, match, _ = open_match(store, module, setup_options(module, None))
        players = [str(getattr(v, "player", "")) for v in match.views()]
        bank = build_bank([ScreenSpec(p) for p in players], "recording")
        bank.open()
        buttons = ScriptedButtons()
        app = App(module, match, buttons=buttons, displays=bank)
        app.step()
        samples = []
        for i in range(presses):
            buttons.press("ok" if i % 2 == 0 else "back")
            drawn = app.frames_drawn
            t0 = time.perf_counter()
            app.step()
            if app.frames_drawn > drawn:
                samples.append((time.perf_counter() - t0) * 1000)
        store.close()
    if not samples:
        raise RuntimeError("no press changed a screen: the benchmark measured nothing")
    return {"app_press_to_frame_ms_median": round(statistics.median(samples), 2),
            "app_press_to_frame_ms_max": round(max(samples), 2), "app_press_to_frame_presses": len(samples),
            "press_to_frame_target_ms": 30}


def cmd_bench_device(args: argparse.Namespace) -> int:
    result: dict[str, Any] = {}
    try:
        from device.bench_device import run_device_bench  # type: ignore[import-not-found]
    except ImportError:
        result["displays_bench"] = "device.bench_device is not installed; only the loop figures below"
    else:
        result.update(run_device_bench())
    result.update(measure_press_to_frame())
    result.update(measure_startup(args.runs))
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m device.cli_device ...``: the ``pitboard`` command with these sub-commands registered even
    where ``device/cli.py`` does not list this module yet (the start-up benchmark launches this)."""
    from device import cli

    if __name__ not in cli.PLUGINS and "device.cli_device" not in cli.PLUGINS:
        cli.PLUGINS = (*cli.PLUGINS, "device.cli_device")
    return cli.main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
