"""``pitboard sim``: the appliance in a terminal — keys are the buttons, the screens are drawn as text.

It is the real loop (:class:`device.app.App`), the real rules, the real store and the real dashboards;
only the edges of the box are swapped: :class:`device.buttons.KeyboardButtons` for the gpiozero panel,
terminal screens for the OLEDs, and for the camera either nothing (dice typed) or a folder of dice images
shown one per ``r`` key (``--dice-images``), read by ``vision.dice`` exactly as frames from the tray.

Keys (upper case = a long press):

    s  or Down    SELECT: the next choice (on a die: its next face)
    S  or Up      long SELECT: the previous choice
    o             OK: take the choice (one that needs dice opens their entry), or keep the die face
    b             BACK: up a menu level; at the top level, undo the last decision
    B             long BACK: undo several decisions
    n             NEXT: the step's "done" (with dice entered or typed: send them)
    N             long NEXT: the legend page explaining the dashboard symbols
    ! @ # $ % ^   the player buttons p1..p6 (shift + 1..6)
    1-6           type a die: the face at that position of the die (skid: 1-3 SHIFT 4 HAZARD 5 SLIDE 6 SPIN)
    Enter or .    send the typed dice as the roll; Backspace takes the last typed die back
    0             roll no dice
    r             put the next image of --dice-images on the tray
    ?             this help                 q   quit
    Other keys (Esc, Left, Right, PgUp, PgDn, Home, F1 ...) do nothing.

The keys come from any iterable of characters (:meth:`Sim.feed`), so a test drives the simulator with a
string and no tty; :class:`KeyDecoder` turns a terminal's escape sequences into named keys first, so the
characters of ``ESC [ B`` (Down) are never read as ESC, ``[`` and ``B`` (= long BACK).  At a terminal
(:func:`play_at_terminal`) keys are read one at a time without Enter and the screens are redrawn in place
(the terminal's alternate screen, as ``less`` or ``htop`` do); into a pipe or a file everything is
printed one after another, so a transcript can be read.

The game log is kept between runs (``sim-GAME.sqlite`` in the data folder: ``$PITBOARD_DATA``, else
``$XDG_DATA_HOME/pitboard``, else ``~/.local/share/pitboard``) and an unfinished game is resumed;
``new=True`` starts another, ``keep_log=False`` plays on a temporary log deleted at the end.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from device.app import App, VisionReader, setup_options
from device.buttons import KeyboardButtons
from device.camera import FRAME_SUFFIXES, Camera, StillBackend
from device.setup_files import SetupFileError, read_setup_file, setup_refused
from device.store import Store
from games import game_package
from games.core import Illegal

HELP = __doc__.split("Keys (upper case = a long press):", 1)[1].split("The keys come", 1)[0]
FIRST_FRAME_MARK = "PITBOARD-FIRST-FRAME"
#: The one line of keys under the screens at a terminal.
KEYS_LINE = ("keys: s/↓ next choice  S/↑ previous  o OK  b BACK  B undo several  n NEXT  N legend  "
             "1-6 Enter: dice  ? help  q quit")

# -- keys ---------------------------------------------------------------------------------------------

ESC = "\x1b"
#: ``ESC [ <params> <final>`` and ``ESC O <final>`` finals that name a key.
_CSI_FINALS = {"A": "Up", "B": "Down", "C": "Right", "D": "Left", "E": "Begin", "F": "End", "H": "Home",
               "P": "F1", "Q": "F2", "R": "F3", "S": "F4", "Z": "Shift+Tab"}
_SS3_FINALS = {**_CSI_FINALS, "M": "Enter", "j": "*", "k": "+", "m": "-", "o": "/"}
#: ``ESC [ <n> ~`` keys (VT220 / xterm / rxvt / the Linux console).
_TILDE = {1: "Home", 2: "Insert", 3: "Delete", 4: "End", 5: "PgUp", 6: "PgDn", 7: "Home", 8: "End",
          11: "F1", 12: "F2", 13: "F3", 14: "F4", 15: "F5", 17: "F6", 18: "F7", 19: "F8", 20: "F9",
          21: "F10", 23: "F11", 24: "F12", 25: "F13", 26: "F14", 28: "F15", 29: "F16", 31: "F17",
          32: "F18", 33: "F19", 34: "F20", 200: "Paste", 201: "Paste end"}
#: xterm's modifier parameter (``ESC [ 1 ; 5 A`` = Ctrl+Up).
_MODIFIERS = {2: "Shift", 3: "Alt", 4: "Shift+Alt", 5: "Ctrl", 6: "Ctrl+Shift", 7: "Ctrl+Alt",
              8: "Ctrl+Shift+Alt"}
_CONTROLS = {"\r": "Enter", "\n": "Enter", "\t": "Tab", "\x7f": "Backspace", "\x08": "Backspace",
             "\x00": "Ctrl+Space", ESC: "Esc"}


def _control_name(ch: str) -> str:
    """A character as a key: itself when printable, else a name (``Enter``, ``Ctrl+D``, ``Backspace``)."""
    if ch in _CONTROLS:
        return _CONTROLS[ch]
    if ord(ch) < 0x20:
        return f"Ctrl+{chr(ord(ch) + 0x40)}"
    if 0x80 <= ord(ch) < 0xA0:
        return f"C1-{ord(ch):02X}"
    return ch


def _csi_name(params: str, final: str) -> str:
    if params[:1] in ("?", "<", ">", "="):  # private sequences (replies, mouse reports): no key
        return f"Esc[{params}{final}"
    fields = params.split(";")
    try:
        numbers = [int(f) if f else 1 for f in fields]
    except ValueError:
        return f"Esc[{params}{final}"
    if final == "~":
        base = _TILDE.get(numbers[0])
    elif final in _CSI_FINALS and (params == "" or numbers[0] == 1):
        base = _CSI_FINALS[final]
    else:
        base = None
    if base is None:
        return f"Esc[{params}{final}"
    modifier = _MODIFIERS.get(numbers[1]) if len(numbers) > 1 and numbers[1] != 1 else None
    return f"{modifier}+{base}" if modifier else base


class KeyDecoder:
    """Characters in, keys out: one decoded key per printable character, and a name for everything else.

    Escape sequences are recognised whole — CSI (``ESC [`` parameters, final byte: arrows, Home/End,
    ``ESC [ 5 ~`` PgUp, ``ESC [ 1 ; 5 A`` Ctrl+Up, F-keys), SS3 (``ESC O A``: arrows in application mode,
    ``ESC O P``: F1) and the Linux console's ``ESC [ [ A`` (F1) — and become names such as ``"Down"`` or
    ``"PgDn"``; an unknown or broken one becomes a name beginning ``Esc[``, never its parts.  ``ESC``
    followed by any other character is that character with Alt (``"Alt+q"``); a bare ``ESC`` is ``"Esc"``
    once the input pauses (:meth:`flush`: at a terminal after a few milliseconds with nothing more, in a
    string at its end).  Control characters become names (``"Enter"``, ``"Backspace"``, ``"Tab"``,
    ``"Ctrl+D"``).  So a key of one character is always a printable one that was typed as itself.

    Pure: no clock and no I/O; the caller decides when the input paused.
    """

    def __init__(self) -> None:
        self._seq = ""

    @property
    def pending(self) -> bool:
        """Whether an escape sequence has begun and waits for more (or for :meth:`flush`)."""
        return bool(self._seq)

    def feed(self, ch: str) -> list[str]:
        seq = self._seq
        if not seq:
            if ch == ESC:
                self._seq = ESC
                return []
            return [_control_name(ch)]
        if len(seq) == 1:  # ESC then ...
            if ch in "[O":
                self._seq = seq + ch
                return []
            if ch == ESC:  # ESC ESC: the first was a bare Esc; the second may begin a sequence
                return ["Esc"]
            self._seq = ""
            return [f"Alt+{_control_name(ch)}"]
        if seq[1] == "O":  # SS3: one final character
            self._seq = ""
            if ch in _SS3_FINALS:
                return [_SS3_FINALS[ch]]
            if " " <= ch <= "~":
                return [f"EscO{ch}"]
            return ["EscO", *self.feed(ch)]
        if seq == ESC + "[" and ch == "[":  # the Linux console's F1..F5: ESC [ [ A..E
            self._seq = seq + ch
            return []
        if seq.startswith(ESC + "[["):
            self._seq = ""
            if "A" <= ch <= "E":
                return [f"F{ord(ch) - ord('A') + 1}"]
            return [f"Esc[[{ch}"] if " " <= ch <= "~" else ["Esc[[", *self.feed(ch)]
        if "\x20" <= ch <= "\x3f":  # parameter and intermediate bytes
            if len(seq) >= 32:  # runaway: not a key sequence
                self._seq = ""
                return [f"Esc[{seq[2:]}…"]
            self._seq = seq + ch
            return []
        self._seq = ""
        if "\x40" <= ch <= "\x7e":  # the final byte
            return [_csi_name(seq[2:], ch)]
        return [f"Esc[{seq[2:]}", *self.feed(ch)]  # broken by a control character: that is a key of its own

    def flush(self) -> list[str]:
        """The input paused: a bare ESC is the key Esc; an unfinished sequence is dropped as one key."""
        seq, self._seq = self._seq, ""
        if not seq:
            return []
        if seq == ESC:
            return ["Esc"]
        return [seq.replace(ESC, "Esc", 1)]


def decode_keys(chars: Iterable[str]) -> Iterator[str]:
    """All the keys in ``chars`` (a string, or characters as they come); the end of ``chars`` is a pause."""
    decoder = KeyDecoder()
    for ch in chars:
        yield from decoder.feed(ch)
    yield from decoder.flush()


def describe_key(key: str) -> str:
    return repr(key) if len(key) == 1 else key


# -- the arguments, checked before the log is opened -------------------------------------------------


def read_sim_setup(module: Any, setup: str | Path | None) -> dict[str, Any]:
    """The table's options: the setup file (every fault a :class:`SetupFileError` naming it, as ``play``
    says it), or the game's example setup when none is given."""
    if setup is None:
        return setup_options(module, None)
    name = module.GAME.name
    return read_setup_file(setup, fix=f"`pitboard play {name} --example-setup` prints one to start from")


def check_listen(listen: str) -> socket.socket:
    """``--web HOST:PORT`` bound: the socket the web page will serve on, so that nothing can take the port
    between this check and the server's start.  A ValueError says what to type when the address is not
    one this machine can listen on."""
    from device.web import parse_listen

    host, port = parse_listen(listen)
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ValueError(f"--web {listen!r}: cannot listen on {host}:{port} ({exc.strerror or exc}); give another, "
                         "e.g. 127.0.0.1:8080") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
        sock.listen()  # held from here: a second server's bind now fails, SO_REUSEADDR or not
    except OSError as exc:
        sock.close()
        raise ValueError(f"--web {listen!r}: cannot listen on {host}:{port} ({exc.strerror or exc}); is the port "
                         "taken, or the address not this machine's? give another, e.g. 127.0.0.1:8080") from None
    return sock


# -- the log ------------------------------------------------------------------------------------------


def default_log(game: str) -> Path:
    """Where ``pitboard sim GAME`` keeps its game log unless told otherwise."""
    from device.paths import data_dir

    return data_dir() / f"sim-{game}.sqlite"


def _lock(path: Path) -> int | None:
    """Hold an exclusive advisory lock on ``path`` (created empty if missing) so that a second simulator
    does not play the same game at the same time.  ``flock`` locks do not touch SQLite's own (POSIX) locks;
    the descriptor is closed only after the store, so SQLite's locks are never dropped by it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows
        return None
    from device.store import log_path_problem

    wrong = log_path_problem(path)
    if wrong:  # (opened here first, it was "[Errno 40] Too many levels of symbolic links")
        raise ValueError(f"the game log {path} {wrong}")
    if path.is_dir():
        return None  # the store says what is wrong
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        # which one, by the store's lock note, as `play` says it (a maker's audit: no PID, where the README said one)
        from device.store import lock_holder

        raise ValueError(f"another `pitboard sim` is playing the game log {path}{lock_holder(path)}; finish that one "
                         "first, or play apart with --db OTHER.sqlite or --no-log") from None
    return fd


# -- screens ------------------------------------------------------------------------------------------


class TerminalBank:
    """The simulator's screens: the latest frame per player, drawn as text on demand."""

    def __init__(self, players: Iterable[str], style: str = "halfblock") -> None:
        self.players = tuple(players)
        self.style = style
        self.frames: dict[str, Any] = {}
        self.shown = 0

    def show(self, player: str, image: Any) -> bool:
        self.frames[player] = image.copy()
        self.shown += 1
        return True

    def text(self, width: int | None = None, players: Iterable[str] | None = None) -> str:
        """The screens (of ``players``, default all) framed and titled; with ``width`` as many side by side
        as fit in it."""
        wanted = self.players if players is None else tuple(players)
        frames = {p: self.frames[p] for p in wanted if p in self.frames}
        if not frames:
            return ""
        from device.displays.render import compose_terminal

        if width is None:
            return compose_terminal(frames, style=self.style, columns=2 if self.style == "braille" else 1)
        return compose_terminal(frames, style=self.style, columns=len(frames), width=width)

    def fit(self, width: int, height: int, first: str | None = None) -> tuple[list[str], list[str]]:
        """Lines of the screens that fit ``width`` × ``height``, and the players left out.  Screens are
        shown whole, row by row of the layout, the row with ``first`` (the player to act) before the
        others; when not even one row fits, its top is shown."""
        drawn = [p for p in self.players if p in self.frames]
        lines = self.text(width).split("\n") if drawn else []
        if len(lines) <= height:
            return lines, []
        box = len(self.text(width, drawn[:1]).split("\n", 1)[0])  # one framed screen's width
        per_row = max(1, (len(lines[0]) + 1) // (box + 1))
        rows = [drawn[i : i + per_row] for i in range(0, len(drawn), per_row)]
        order = sorted(rows, key=lambda row: first not in row)
        shown: list[str] = []
        used = 0
        for row in order:
            size = len(self.text(width, row).split("\n"))
            if used + size <= height:
                shown += row
                used += size
        if not shown:
            return self.text(width, order[0]).split("\n")[: max(0, height)], [p for p in drawn if p not in order[0]]
        shown = [p for p in drawn if p in shown]
        return self.text(width, shown).split("\n"), [p for p in drawn if p not in shown]


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"


class Sim:
    """One simulator session; :meth:`feed` takes keystrokes, :attr:`out` gets the screens and messages.

    ``live``: redraw the whole frame in place (screens, the last messages, the prompt, the keys) on the
    terminal ``out`` is; otherwise print screens and messages one after another (pipes, tests).  ``size``
    gives the terminal's ``(columns, lines)`` (default: asked of the terminal each time, so a resized
    window is filled).
    """

    def __init__(self, game: str = "gaslands", *, setup: str | Path | None = None, db: str | Path | None = None,
                 keep_log: bool = True, new: bool = False, dice_images: str | Path | None = None,
                 out: TextIO | None = None, style: str = "halfblock", live: bool = False,
                 clock: Callable[[], float] = time.monotonic, reader: Any = None,
                 size: Callable[[], tuple[int, int]] | None = None, web: str | None = None) -> None:
        self.module = game_package(game)
        self.game = self.module.GAME.name
        # Every argument is checked before the log is touched: a mistake in one begins no game, writes nothing.
        self.options = read_sim_setup(self.module, setup)
        self.out = out if out is not None else sys.stdout
        self.live = live
        self.size = size
        self.clock = clock
        self._messages: deque[str] = deque(maxlen=200)
        self._dirty = False
        self._drawn_size: tuple[int, int] | None = None
        self._entered = False
        self._help = False
        self.images: list[Path] = []
        if dice_images is not None:  # checked before the log is opened: a mistake here leaves no trace
            folder = Path(dice_images)
            if not folder.is_dir():
                raise ValueError(f"--dice-images {folder} is not a folder of dice photos")
            self.images = sorted(p for p in folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)
            if not self.images:
                raise ValueError(f"--dice-images {folder} holds no images ({', '.join(FRAME_SUFFIXES)})")
            if reader is None:
                try:
                    from vision.dice import read_dice  # type: ignore[attr-defined]  # noqa: F401
                except ImportError as exc:
                    raise ValueError(f"--dice-images needs vision.dice.read_dice, which is not installed ({exc})") from None
                reader = VisionReader()

        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        # bound now (before the log is opened: a taken port begins no game) and served on as it is
        self._listener: socket.socket | None = check_listen(web) if web is not None else None
        self.kept = keep_log
        self.custom_db = db is not None
        self.setup_given = setup is not None
        self.setup_path = Path(setup) if setup is not None else None
        if not keep_log:
            self._tmp = tempfile.TemporaryDirectory(prefix="pitboard-sim-")
            path = Path(self._tmp.name) / "sim.sqlite"
        else:
            path = Path(db) if db is not None else default_log(self.game)
        if new or not keep_log or not path.is_file() or path.stat().st_size == 0:  # the setup begins the game
            self._check_setup()
        self._lock_fd = _lock(path) if keep_log else None
        try:
            self.store = Store(path)
            if self.store.wal_note:
                print(f"warning: {self.store.wal_note}", file=sys.stderr)
            try:
                self.game_id, match, self.resumed = self.store.open_match(self.module.GAME, self.options, new=new)
            except Illegal as exc:
                raise SetupFileError(self._refused(exc.reason)) from None
        except BaseException:
            if getattr(self, "store", None) is not None:
                self.store.close()
            self._release()
            raise
        self.finished = False

        self.keys = KeyboardButtons(players=len(match.views()))
        players = [str(getattr(v, "player", "")) for v in match.views()]
        self.bank = TerminalBank(players, style)
        self.tray: StillBackend | None = None
        camera = None
        if self.images:
            self.tray = StillBackend(np.full((480, 640, 3), 200, np.uint8))  # an empty tray until `r`
            camera = Camera(self.tray, clock=clock, fps=0)
        self._camera, self._reader = camera, reader
        self.app = App(self.module, match, buttons=self.keys, displays=self.bank, clock=clock, camera=camera,
                       reader=reader, on_finished=self._finished)
        self.decoder = KeyDecoder()
        self.next_image = 0
        self.typed: list[int] = []
        #: the roll the typed dice are for (the decisions recorded, the roll awaited): once either changes they
        #: are no longer its (a maker's audit: typed at Alice's skid check, NEXT sent her roll empty and the
        #: typed dice, still on her screen, went in as Bob's roll at the next Enter)
        self._typed_for: tuple[int, Any] | None = None
        self.quit = False
        self._said = 0
        self._last_state: Any = None
        self.web: Any = None
        #: Printed (not live) output draws the screens whenever they change; serving the web page, the page
        #: shows them and only the messages and the prompt are printed.
        self.print_screens = True
        self.note(self.log_text(start=True))
        if self._listener is not None:
            self.start_web(self._listener)

    def _refused(self, reason: str) -> str:
        return setup_refused(self.setup_path, reason, game=self.game, options=self.options,
                             plays=f"`pitboard sim {{game}} --setup {self.setup_path}` plays it")

    def _check_setup(self) -> None:
        """The setup as the game would begin from it: a refusal names the file (and leaves no log behind)."""
        try:
            self.module.GAME.start(self.options)
        except Illegal as exc:
            self._release()
            raise SetupFileError(self._refused(exc.reason)) from None

    # -- the web page (--web HOST:PORT) -----------------------------------------------------------
    def start_web(self, listen: str | socket.socket) -> None:
        """Serve the web page beside this game (:mod:`device.web`) on ``HOST:PORT`` or a bound socket, and
        say where, with the pairing code."""
        from device.web import WebService, files_check

        sock: socket.socket | None = None
        try:
            sock = check_listen(listen) if isinstance(listen, str) else listen
            self._listener = None  # the server's now: it closes it when it stops
            host, port = sock.getsockname()[:2]
            self.web = WebService(game=self.game, store_path=self.store.path, host=host, port=port, sock=sock,
                                  new_game=self._web_new_game, startable=(self.game,),
                                  check=lambda playing: files_check(self.game, self.setup_path, playing)).start()
        except BaseException:
            if sock is not None:
                sock.close()  # a server that did not start leaves it open
            self.close()
            raise
        self.web.attach(self.app, self.game_id, self.options)
        first = self.web.first_player() or "player 1"
        self.note(f"web page: {self.web.url} (pairing code {self.web.code}, also on {first}'s screen)")

    def _web_new_game(self, game: str, options: Any) -> str:
        """The page's "Start this game": begun on the loop's thread at its next step."""
        if game != self.game:  # a refusal (ValueError): the page says it as one, and nothing begins
            from device.web.pages import title_of

            raise ValueError(f"this sim plays {title_of(self.game)}: quit it and start `pitboard sim {game} --web ...` "
                             f"to play {title_of(game)}")
        assert self.web is not None
        playing = self.web.in_progress()  # nothing played, or the game over: nothing is left unfinished
        self.web.hub.call_in_loop(lambda: self.begin(options))
        from device.web.pages import game_begins

        return game_begins(game, playing)

    def begin(self, options: Any) -> None:
        """Begin a new game of this kind with ``options`` on the same log, screens redrawn for its players."""
        game_id, match, _ = self.store.open_match(self.module.GAME, options, new=True)
        ended, self.game_id, self.options, self.resumed, self.finished = self.game_id, game_id, options, False, False
        players = [str(getattr(v, "player", "")) for v in match.views()]
        self.keys.players = len(players)
        self.bank = TerminalBank(players, self.bank.style)
        buttons = self.app.buttons
        self.app = App(self.module, match, buttons=self.keys, displays=self.bank, clock=self.clock,
                       camera=self._camera, reader=self._reader, on_finished=self._finished)
        self.store.end_unfinished(ended)  # "End the game in progress": not resumed by the next sim
        self._said = 0
        if self.web is not None:
            self.web.attach(self.app, game_id, options)
        else:
            self.app.buttons = buttons
        self.note(f"game {game_id} begins (from the web page)")
        self._dirty = True

    def serve(self, keys: Iterable[str] | None = None, *, tick: float = 0.02,
              stop: Callable[[], bool] | None = None) -> None:
        """With the web page and no terminal: run the loop every ``tick`` seconds until ``q`` or ``stop()``;
        keys typed into standard input (read on a helper thread) are handled as they come."""
        import queue
        import threading

        self.print_screens = False
        typed: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        if keys is not None:
            def read() -> None:
                for ch in keys:
                    typed.put(ch)

            threading.Thread(target=read, name="pitboard-sim-keys", daemon=True).start()
        while not self.quit and not (stop is not None and stop()):
            chars = []
            while True:
                try:
                    ch = typed.get_nowait()
                except queue.Empty:
                    break
                if ch is not None:
                    chars.append(ch)
            if chars:
                self.feed(chars)
            else:
                self.tick()
            time.sleep(tick)

    def _finished(self, over: bool) -> None:
        self.finished = over
        self.store.finish(self.game_id, over)

    def _release(self) -> None:
        if getattr(self, "_listener", None) is not None:
            self._listener.close()  # type: ignore[union-attr]
            self._listener = None
        if getattr(self, "_lock_fd", None) is not None:
            os.close(self._lock_fd)  # type: ignore[arg-type]
            self._lock_fd = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def log_text(self, *, start: bool = False) -> str:
        """Where this game is kept (said at the start and at the end)."""
        if not self.kept:
            return "no game log (--no-log): this game is gone when the sim ends" if start else \
                "the game was not kept (--no-log)"
        again = f"pitboard sim {self.game}" + (f" --db {self.store.path}" if self.custom_db else "")
        if start:
            if self.resumed:
                return (f"game log {self.store.path}: resumed game {self.game_id} as it was left, with the table "
                        f"it began with (--new starts another{' from --setup' if self.setup_given else ''})")
            return f"game log {self.store.path}: game {self.game_id} begins; it is kept, and `{again}` resumes it"
        if self.finished:
            return (f"game {self.game_id} is over; its log is in {self.store.path} "
                    f"(`pitboard log export --db {self.store.path} --game-id {self.game_id}`)")
        return f"game {self.game_id} is kept in {self.store.path}; `{again}` resumes it"

    # -- input ------------------------------------------------------------------------------------
    def feed(self, chars: Iterable[str]) -> None:
        """Handle keystrokes given as characters (escape sequences decoded), one step of the loop per key.
        The end of ``chars`` counts as a pause in typing: a lone ESC at the end is the key Esc."""
        for ch in chars:
            for key in self.decoder.feed(ch):
                if self.quit:
                    return
                self.key(key)
        for key in self.decoder.flush():
            if self.quit:
                return
            self.key(key)

    def key(self, key: str) -> None:
        """Handle one decoded key (a printable character, or a name from :class:`KeyDecoder`)."""
        if self.quit:
            return
        if self._help:  # any key closes the help page, and does only that
            self._help = False
            self._dirty = True
            self.refresh()
            return
        if key in ("q", "Ctrl+D"):
            self.quit = True
            return
        if key == "?":
            if self.live:
                self._help = True
                self._dirty = True
                self.refresh()
            else:
                self.out.write(HELP + "\n")
            return
        if len(key) == 1 and key.isascii() and key.isdigit() and key != "0":  # (not "²", a key of its own)
            self.type_digit(int(key))
        elif key == "0":
            self.typed = []
            self.send_typed()
        elif key in ("Enter", ".") or key == "n" and self.typed:
            if self.typed:
                self.send_typed()
            else:
                self.note("Enter sends typed dice, and none are typed (type 1-6 first; o is OK)")
        elif key == "Backspace":
            if self.typed:
                self.typed.pop()
                self._say_typed()
            else:
                self.note("Backspace takes back a typed die, and none are typed (b is BACK)")
        elif key == "r":
            self.roll_image()
        elif key in (" ", "Tab"):
            pass
        else:
            self.keys.push([key])
        self.step()

    def type_digit(self, digit: int) -> None:
        """A digit types the face at that place of the die being entered: the open dice entry's (a roll a
        menu choice opened: a bump re-roll, a Road die) or else the roll the step awaits."""
        request = self.app.awaited_roll()
        if request is None:
            self.note("no dice are awaited now")
            return
        faces = list(request.faces) or list(self.app.die_types.get(request.die, range(1, 7)))
        if digit > len(faces):
            self.note(f"a {request.die} die has {len(faces)} faces: type 1-{len(faces)}")
            return
        self.typed.append(faces[digit - 1])
        self._typed_for = self._roll_now()
        self._say_typed()

    def _roll_now(self) -> tuple[int, Any]:
        """The roll being typed: how many decisions the game holds, and the roll awaited."""
        return len(self.app.match.records), self.app.awaited_roll()

    def _typed_outlived(self) -> None:
        """Typed dice whose roll went by (sent from the buttons, the camera or a phone, or undone) are dropped,
        and the table told."""
        if self.typed and self._roll_now() != self._typed_for:
            dropped, self.typed = self.typed, []
            self.app.show_typing([], who="keyboard")
            self.note(f"typed dice {' '.join(map(str, dropped))} dropped: the roll they were typed for went by")

    def _say_typed(self) -> None:
        self.app.show_typing(self.typed, who="keyboard")  # the roller's screen, where the table reads it
        if self.live:
            self._dirty = True  # shown under the prompt
        else:
            self.note(f"typed: {' '.join(map(str, self.typed)) or '-'} (Enter sends)")

    def send_typed(self) -> None:
        faces, self.typed = self.typed, []
        self.app.show_typing([], who="keyboard")
        self.app.type_faces(faces)

    def roll_image(self) -> None:
        if self.tray is None:
            self.note("no --dice-images folder: type the dice instead (digits, then Enter)")
            return
        from device.safe_files import FileProblem, read_image

        path = self.images[self.next_image % len(self.images)]
        self.next_image += 1
        try:
            image = read_image(path, what="tray image")
        except FileProblem as exc:
            self.note(str(exc))
            return
        self.tray.show(image)
        self.note(f"tray: {path.name}")
        for _ in range(getattr(self.app, "settle_frames", 3) + 2):  # the same frame until the tray counts as settled
            self.step()

    def tick(self) -> None:
        """Nothing typed for a while: run the loop once (blinking alerts, notices that expire, the camera)
        and fill the terminal again if it was resized."""
        if self.live and self._size() != self._drawn_size:
            self._dirty = True
        self.step()

    # -- output -----------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        """A message: printed at once, or kept for the message lines of the live frame."""
        if self.live:
            self._messages.append(text)
            self._dirty = True
        else:
            self.out.write(text + "\n")

    def _state(self) -> Any:
        status = getattr(self.app, "status_text", None)
        notices = getattr(self.app, "notices", ())
        return (status() if callable(status) else None, tuple(notices), self.app.prompt().text)

    def step(self) -> None:
        before = self.bank.shown
        self.app.step()
        self._typed_outlived()
        for applied in self.app.history[self._said:]:
            c = applied.command.to_json()
            verdict = "ok" if applied.outcome.accepted else f"REFUSED: {applied.outcome.reason}"
            self.note(f"[{applied.source}] {c} -> {verdict}")
        self._said = len(self.app.history)
        for other in self.keys.unhandled():
            self.note(f"key {describe_key(other)} does nothing (? for help)")
        state = self._state()
        if self.live:
            if self.bank.shown != before or state != self._last_state:
                self._dirty = True
            self.refresh()
        elif self.bank.shown != before and self.print_screens:
            self.draw()
        elif state != self._last_state:
            self.say()
        self._last_state = state

    def prompt_lines(self) -> list[str]:
        prompt = self.app.prompt()
        status_text = getattr(self.app, "status_text", None)
        status = status_text() if callable(status_text) else None
        lines = [f"> {prompt.text}"]
        if status:
            lines.append(f"  {status}")
        for notice in getattr(self.app, "notices", ()):
            who = f"{notice.player}: " if getattr(notice, "player", None) else ""
            lines.append(f"  ! {who}{getattr(notice, 'text', notice)}")
        if self.live and self.typed:
            lines.append(f"  typed: {' '.join(map(str, self.typed))}  (Enter sends, Backspace takes one back)")
        return lines

    def draw(self) -> None:
        if self.live:
            self._dirty = True
            self.refresh()
            return
        width = self._size()[0] if _isatty(self.out) else None
        self.out.write(self.bank.text(width) + "\n")
        self.say()

    def say(self) -> None:
        for line in self.prompt_lines():
            self.out.write(line + "\n")
        self.out.flush()

    def _size(self) -> tuple[int, int]:
        if self.size is not None:
            return self.size()
        try:
            size = os.get_terminal_size(self.out.fileno())
        except (AttributeError, OSError, ValueError):
            size = shutil.get_terminal_size()
        return size.columns, size.lines

    def frame(self) -> list[str]:
        """The live frame: the screens (as many side by side as fit), the last messages, the prompt and
        the keys, cut to the terminal's size.  When the screens are too big for it, the prompt stays and
        a line says what to do."""
        cols, rows = self._size()
        tail = [*self.prompt_lines(), KEYS_LINE]
        if self._help:
            body = ["Keys (upper case = a long press); any key closes this page:", *HELP.strip("\n").splitlines()]
        else:
            screens, hidden = self.bank.fit(cols, rows - len(tail) - 3, self.app.prompt().player)
            if hidden or len(screens) > rows - len(tail) - 2:
                what = f"{' and '.join(hidden)} not shown" if hidden else "screens cut"
                tail.insert(0, f"(terminal {cols}x{rows} too small: {what}; enlarge it, shrink the font (Ctrl+-) "
                               "or use --style braille)")
            room = max(1, rows - len(screens) - len(tail) - 1)
            body = [*screens, "", *list(self._messages)[-room:]]
        lines = [_clip(line, cols - 1) for line in [*body, *tail]]
        return lines[-rows:] if len(lines) > rows else lines

    def refresh(self) -> None:
        """Live: redraw the frame in place if anything changed."""
        if not self.live or not self._dirty:
            return
        self._dirty = False
        lines = self.frame()
        self._drawn_size = self._size()
        head = "" if self._entered else "\x1b[?1049h\x1b[?25l"  # the alternate screen, the cursor hidden
        self._entered = True
        self.out.write(head + "\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[K\x1b[J")
        self.out.flush()

    def leave_screen(self) -> None:
        """Give the terminal back as it was (the normal screen, the cursor shown); :meth:`refresh` comes back."""
        if self._entered:
            self.out.write("\x1b[?25h\x1b[?1049l")
            self.out.flush()
            self._entered = False
            self._dirty = True

    def close(self) -> None:
        if getattr(self, "web", None) is not None:
            with contextlib.suppress(Exception):
                self.web.stop()
            self.web = None
        self.leave_screen()
        with contextlib.suppress(Exception):
            self.store.close()
        self._release()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# -- at a terminal ------------------------------------------------------------------------------------


class TerminalKeys:
    """Decoded keys from a terminal: cbreak mode (each key at once, not echoed; Ctrl-C still interrupts),
    escape sequences whole (a bare Esc once nothing follows within ``esc_timeout``), and ``None`` after
    ``tick`` seconds with nothing typed, so the caller can run the loop.  Ends at end of input."""

    def __init__(self, stream: TextIO, *, tick: float = 0.25, esc_timeout: float = 0.05) -> None:
        self.fd = stream.fileno()
        self.tick = tick
        self.esc_timeout = esc_timeout
        self._saved: Any = None

    def __enter__(self) -> "TerminalKeys":
        self.cbreak()
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()

    def cbreak(self) -> None:
        import termios
        import tty

        if self._saved is None:
            self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)

    def restore(self) -> None:
        import termios

        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def __iter__(self) -> Iterator[str | None]:
        decoder = KeyDecoder()
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            ready, _, _ = select.select([self.fd], [], [], self.esc_timeout if decoder.pending else self.tick)
            if not ready:
                keys = decoder.flush()
                yield from keys if keys else [None]
                continue
            try:
                data = os.read(self.fd, 1024)
            except OSError:  # EIO: the terminal went away (a closed window, a pty's other end)
                data = b""
            if not data:
                yield from decoder.flush()
                return
            for ch in text.decode(data):
                yield from decoder.feed(ch)


def play_at_terminal(sim: Sim, stream: TextIO, *, tick: float = 0.25) -> None:
    """Play from the keyboard until ``q`` (or Ctrl-D, or end of input), redrawing in place.  Ctrl-Z
    suspends: the terminal is given back as it was and taken again on ``fg``."""
    stop = False

    def on_stop(*_: Any) -> None:  # only a flag: the draw it may interrupt must not be re-entered
        nonlocal stop
        stop = True

    with TerminalKeys(stream, tick=tick) as keys:
        previous = signal.signal(signal.SIGTSTP, on_stop) if hasattr(signal, "SIGTSTP") else None
        try:
            for key in keys:
                if stop:
                    stop = False
                    sim.leave_screen()
                    keys.restore()
                    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
                    os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until `fg`
                    signal.signal(signal.SIGTSTP, on_stop)
                    keys.cbreak()
                    sim.refresh()
                if key is None:
                    sim.tick()
                else:
                    sim.key(key)
                if sim.quit:
                    return
        finally:
            if previous is not None:
                signal.signal(signal.SIGTSTP, previous)


def stream_chars(stream: TextIO) -> Iterator[str]:
    """The characters of a pipe or a file, as they come."""
    while True:
        ch = stream.read(1)
        if not ch:
            return
        yield ch
