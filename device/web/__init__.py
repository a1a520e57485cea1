"""The web page on the table's network: watch the screens and the camera, read the game log, set up a
game and fill in rule facts, from a phone.

Off unless turned on (``[web] enabled = true`` for ``pitboard run``; ``pitboard sim GAME --web HOST:PORT``).
:class:`WebService` ties one :class:`device.app.App` to the server: it listens to the loop's redraws and
camera frames (the app's ``redraw_listeners`` and ``frame_listeners``, called on the loop's thread), wraps
the app's button source so the page's presses arrive like the panel's, and shows the pairing code on
player 1's screen.  The server itself (:mod:`device.web.server`) runs in a thread and never blocks the loop.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from device.web.hub import WebButtons, WebHub, png_bytes, snapshot_of, type_dice
from device.web.security import Pairing

__all__ = ["Playing", "WebService", "files_check", "parse_listen", "undo_questions"]

#: How long the pairing code stays on player 1's screen after the pairing page was opened.
CODE_SHOWN_S = 120.0
PAIR_NOTICE = "web_pair"


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``127.0.0.1:8080``, ``0.0.0.0:8080``, ``:8080``) → ``(host, port)``; ValueError saying
    what to type."""
    import ipaddress

    host, sep, port = str(text).rpartition(":")
    if not sep:
        raise ValueError(f"--web {text!r}: give HOST:PORT, e.g. 127.0.0.1:8080 (this machine only) or "
                         "0.0.0.0:8080 (every network)")
    host = host.strip("[]") or "127.0.0.1"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            raise ValueError(f"--web {text!r}: {host!r} is not an IP address; give e.g. 127.0.0.1:8080") from None
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"--web {text!r}: the port {port!r} is not a number; give e.g. 127.0.0.1:8080") from None
    if not (number == 0 or 1024 <= number <= 65535):
        raise ValueError(f"--web {text!r}: the port must be 1024..65535 (or 0: any free port)")
    return host, number


@dataclass(frozen=True)
class Playing:
    """The game at the table as the web service was attached to it: its kind, its number in the log, its
    players in seating order (its screens'), and the setup it was begun or resumed with."""

    game: str
    game_id: int | None
    players: tuple[str, ...]
    options: Mapping[str, Any]
    #: the match's views as they stand (whose tokens lie in which zone: a game begun from the phone, or resumed
    #: with another setup at hand, has no options here, and check said nothing of a player without a token zone)
    views: tuple[Any, ...] = ()

    def words(self) -> str:
        """"game 7 in play, 5 players (Ana, Ben, Cy, Dee, Eve)"."""
        number = f"game {self.game_id}" if self.game_id is not None else f"the {self.game} game"
        n = len(self.players)
        return f"{number} in play, {n} player{'s' if n != 1 else ''} ({', '.join(self.players)})"


def files_check(game: str, setup: Path | None = None, playing: Playing | None = None) -> list[Any]:
    """The ``pitboard check`` lines that need no hardware: the game's setup, the calibration, the face
    library (the bus and pin probes are not run: the running appliance holds them).  ``playing``: the game
    in progress, whose setup is checked (not ``game``'s example or ``setup``: another game may have begun)."""
    from device.cli_device import probe_game, probe_vision_files
    from device.config import GameConfig, PitboardConfig

    config = PitboardConfig(source="pitboard sim", game=GameConfig(playing.game if playing else game, setup))
    return [*probe_game(config, playing=playing), *probe_vision_files(config)]


def undo_questions(app: Any) -> dict[str, str | None]:
    """On the loop's thread: what the phone asks before a BACK that would undo, in the words the screens say
    the decisions in (``App.decision_words``, as "UNDONE: …" says them).  ``back``: the question before a
    BACK (None: BACK only closes a list, a dice entry or the legend, and is sent at once); ``long``: before a
    long BACK (None: nothing to undo); ``key``: what the questions were asked about (a press answering an
    older question is refused)."""
    match = app.match
    undoable = int(match.undoable)
    key = f"{len(match.records)}:{undoable}"
    if app.legend is not None or undoable == 0:  # BACK closes the legend; nothing to undo: asked nothing
        return {"back": None, "long": None, "key": f"{key}:-"}

    def said(steps: int, one_player: bool = False) -> list[str]:
        return app.decision_words(app.undo_plan(steps, one_player=one_player))

    first = said(1) if app.back_undoes else []
    back = f"Undo {first[0]}?" if first else None
    several = said(min(app.long_back_undo_steps, undoable), one_player=True)  # as the held BACK undoes them
    if len(several) == 1:
        long = f"A long BACK undoes the last decision: {several[0]}. Undo it?"
    elif several:
        listed = "\n".join(f"{i}. {w}" for i, w in enumerate(several, 1))
        long = (f"A long BACK undoes the last {len(several)} decisions, the newest first:\n{listed}\n"
                f"Undo all {len(several)}?")
    else:
        long = None
    return {"back": back, "long": long, "key": f"{key}:{'u' if back else 'c'}"}


class WebService:
    """The hub, the pairing, the server, and the app they watch (re-attached after a new game)."""

    def __init__(self, *, game: str, store_path: Path | None, host: str, port: int,
                 chart_path: Path | None = None, new_game: Callable[[str, Mapping[str, Any]], str] | None = None,
                 check: Callable[[Playing | None], Sequence[Any]] | None = None, pairing: Pairing | None = None,
                 faces_path: Path | None = None, calibration_path: Path | None = None,
                 sock: socket.socket | None = None, config_source: str | None = None,
                 startable: tuple[str, ...] | None = None) -> None:
        from device.web.server import WebContext, WebServer

        if chart_path is None:
            from device.paths import data_dir
            from device.web.setup import CHART_FILE

            chart_path = data_dir() / CHART_FILE
        self.hub = WebHub()
        self.pairing = pairing or Pairing()
        self.app: Any = None
        self.game_id: int | None = None
        self._pngs: dict[str, bytes] = {}
        self._version = 0
        #: Shows the pairing code on a screen not at the table when no one at it has one (``pitboard run`` sets
        #: it): returns that screen's player, or None; :attr:`code_screen` is where it was last shown.
        self.code_elsewhere: Callable[[], str | None] | None = None
        self.code_screen: str | None = None
        #: Draws again what that screen showed before the code (once a phone paired), and who else shows the code.
        self.code_restore: Callable[[str], None] | None = None
        self.code_player: str | None = None
        self._last_key: Any = None
        self._undo_asked: tuple[Any, dict[str, str | None]] | None = None  # (what the questions read, them)
        self._shown_until = 0.0
        self.ctx = WebContext(self.hub, game, store_path, chart_path, self.pairing, new_game=new_game,
                              # the setup of the game in play, not the one the host was started with (the
                              # page said "game gaslands: example setup is a valid table" over a 5-player game)
                              check=lambda: (check or self._files_check)(self.playing()),
                              game_id=lambda: self.game_id, in_progress=self.in_progress, startable=startable)
        self.ctx.on_pair_page = lambda: self.hub.call_in_loop(self.show_code)
        self.ctx.code_screen = lambda: self.code_screen or self.code_player
        self.ctx.faces_path = faces_path
        self.ctx.config_source = config_source
        self.ctx.on_library = lambda library: self.hub.call_in_loop(lambda: self._use_library(library))
        self.ctx.calibration_path = calibration_path
        self.ctx.on_calibration = lambda cal: self.hub.call_in_loop(lambda: self._use_calibration(cal))
        self.ctx.on_outlines = lambda: self.hub.call_in_loop(self._use_outlines)
        self.ctx.on_dice = lambda offer, places, draft: self.hub.call_in_loop(
            lambda: self._type_dice(offer, places, draft))
        self.options: Mapping[str, Any] = {}
        self.pairing.on_paired = lambda _session: self.hub.call_in_loop(self.hide_code)
        self.pairing.on_forgotten = lambda _session: self.hub.call_in_loop(self.hide_code)
        self.server = WebServer(self.ctx, host, port, sock=sock)

    @property
    def code(self) -> str:
        return self.pairing.code

    @property
    def url(self) -> str:
        return self.server.url

    # -- the loop's side (called on its thread) -----------------------------------------------------
    def attach(self, app: Any, game_id: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Watch ``app``: its redraws and frames go to the page, the page's presses to its buttons.
        ``options``: the table's setup (its cars' tags name the cars the camera sees once calibrated)."""
        if self.app is not None and self.app is not app:
            self.detach()
        self.app = app
        self.game_id = game_id
        self.options = dict(options or {})
        self.ctx.game = app.game.name
        self._pngs = {}
        if not isinstance(app.buttons, WebButtons):
            app.buttons = WebButtons(app.buttons, self.hub)
        app.redraw_listeners.append(self._on_redraw)
        app.frame_listeners.append(self._on_frame)
        self.show_code()
        app.redraw(app.clock(), force=True)  # every screen once, so the page has them all

    def detach(self) -> None:
        app, self.app = self.app, None
        if app is None:
            return
        for lst, fn in ((app.redraw_listeners, self._on_redraw), (app.frame_listeners, self._on_frame)):
            if fn in lst:
                lst.remove(fn)
        if isinstance(app.buttons, WebButtons):
            app.buttons = app.buttons.inner

    def in_progress(self) -> str | None:
        """The game at the table in words when starting another would leave it unfinished (moves made, not
        over), else None.  Read from the page's thread: the match's state and stack are replaced, never
        changed in place, so a read sees one whole state."""
        app = self.app
        match = getattr(app, "match", None) if app is not None else None
        if match is None or match.undoable == 0 or getattr(match.state, "finished", False):
            return None
        from device.web.pages import title_of

        number = f" (game {self.game_id})" if self.game_id is not None else ""
        moves = match.undoable
        return f"A {title_of(app.game.name)} game{number}, {moves} move{'s' if moves != 1 else ''} in,"

    def _files_check(self, playing: Playing | None) -> list[Any]:
        return files_check(self.ctx.game, playing=playing)

    def playing(self) -> Playing | None:
        """The game in play (read from the page's thread: the match's views of one whole state)."""
        app = self.app
        if app is None:
            return None
        views = tuple(app.match.views())
        players = tuple(dict.fromkeys(str(getattr(v, "player", "") or "") for v in views))
        return Playing(app.game.name, self.game_id, tuple(p for p in players if p), dict(self.options), views)

    def first_player(self) -> str | None:
        """Who shows the pairing code: player 1, or the first player at the table whose screen works (a review:
        with player 1 screenless, the code went to no screen and the pair page asked for player 1's)."""
        views = self.app.turn().views if self.app is not None else ()
        players = [str(getattr(v, "player", "")) for v in views]
        status = getattr(getattr(self.app, "displays", None), "status", None)
        if callable(status) and players:
            from device.displays.bank import working

            shown = set(working(status()))
            return next((p for p in players if p in shown), players[0])
        return players[0] if players else None

    def show_code(self, seconds: float | None = CODE_SHOWN_S) -> None:
        """Player 1's screen (:meth:`first_player`'s) shows the pairing code (for ``seconds``; None: until
        withdrawn); when no one at the table has a screen, :attr:`code_elsewhere` shows it on another."""
        app = self.app
        if app is None:
            return
        if self.code_elsewhere is not None:
            self.code_screen = self.code_elsewhere()
        now = app.clock()
        until = None if seconds is None else now + seconds
        self.code_player = self.first_player()
        app.withdraw(PAIR_NOTICE)  # (shown to another player before: one code notice, on one screen)
        app.notify(PAIR_NOTICE, f"web code {self.code}", self.code_player, until=until, now=now)

    def hide_code(self) -> None:
        if self.app is not None:
            self.app.withdraw(PAIR_NOTICE)
        if self.code_screen is not None and self.code_restore is not None:  # (paired: the code is off that screen)
            self.code_restore(self.code_screen)
            self.code_screen = None

    def _on_redraw(self, app: Any, shown: dict[str, Any]) -> None:
        for player, image in shown.items():
            self._pngs[player] = png_bytes(image)
        players = [str(getattr(v, "player", "")) for v in app.turn().views]
        snap = snapshot_of(app, self._pngs, self._version + 1, players)
        # what the phone asks before a BACK that undoes: worked out again only when what it reads has changed (each
        # question scans the log, and a redraw comes with every blink of an alert)
        asked = (id(app.match), len(app.match.records), int(app.match.undoable), len(app.history), app.legend is None,
                 app.back_undoes)
        if self._undo_asked is None or self._undo_asked[0] != asked:
            self._undo_asked = (asked, undo_questions(app))
        undo = self._undo_asked[1]
        press_key = app.press_key()
        key = (snap.screens, snap.prompt, snap.status, snap.refusal, snap.notices, snap.commands, snap.dice,
               tuple(undo.values()), press_key)
        if key == self._last_key:
            return
        self._last_key = key
        self._version += 1
        self.ctx.undo = undo  # before the snapshot: a page woken by it reads the questions that go with it
        self.ctx.press_key = press_key
        self.hub.publish(snap)

    def _on_frame(self, app: Any, frame: Any) -> None:
        from device.web.camera_view import shot_of

        self.hub.camera = shot_of(app, frame)  # a reference and a few attributes: the image is not copied

    def _use_library(self, library: Any) -> None:
        """A face taught on the page: the loop's reader reads with the new library from now on."""
        reader = getattr(self.app, "reader", None) if self.app is not None else None
        if reader is not None and hasattr(reader, "faces"):
            reader.faces = library
        if self.app is not None and hasattr(self.app, "show_file_problems"):  # a library saved whole: its problem
            self.app.show_file_problems([p for p in self.app.file_problems if p.part != "face library"])  # is over

    def _use_calibration(self, calibration: Any) -> None:
        """A calibration saved on the page: the loop's reader reads the table with it from the next frame."""
        import dataclasses

        reader = getattr(self.app, "reader", None) if self.app is not None else None
        if reader is None or not hasattr(reader, "calibration"):
            return
        if hasattr(reader, "use_calibration"):  # the dice's size at the tray found again with it
            reader.use_calibration(calibration)
        else:
            reader.calibration = calibration
        if getattr(reader, "table_config", None) is None:
            from device.camera_input import car_tags_of
            from device.table_files import TableFileError, load_table_config

            try:
                config = load_table_config(None)
            except TableFileError:
                from vision.table import default_config

                config = default_config()
            tags = car_tags_of(getattr(getattr(self.app, "match", None), "state", None))
            reader.table_config = dataclasses.replace(config, car_tags=tags) if tags else config
        if self.app is not None and hasattr(self.app, "show_file_problems"):  # the calibration's problem is over
            # (an audit: "TABLE NOT READ: calibration" stood on every screen for the rest of the game after a
            # calibration was saved from the phone, while the camera view drew its zones and check said OK)
            self.app.show_file_problems([p for p in self.app.file_problems if p.part != "calibration"])

    def _type_dice(self, offer: Any, places: list[int], draft: bool = False) -> None:
        """A roll typed on the page, entered as the simulator's typed dice are (the same rules, the same log);
        a draft (the dice tapped before Send) is only shown on the roller's screen."""
        if self.app is not None:
            type_dice(self.app, offer, places, self.app.clock(), draft=draft)

    def _use_outlines(self) -> None:
        """A template outline taught on the page: the loop's reader knows it from the next frame."""
        import dataclasses

        reader = getattr(self.app, "reader", None) if self.app is not None else None
        config = getattr(reader, "table_config", None)
        if reader is None or config is None:
            return
        from device.table_files import TableFileError, load_outlines

        try:
            outlines = load_outlines(None)
        except TableFileError:
            return
        reader.table_config = dataclasses.replace(config, outlines={**dict(config.outlines), **outlines})

    # -- the server ---------------------------------------------------------------------------------
    def start(self) -> WebService:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
