"""Dashboards: a player's view drawn as one 128×64 1-bit frame.

``render_view(game, view, blink_on=...)`` imports ``device.dashboards.<game>`` on first use (so the app
only loads the game it plays) and calls its ``render(view, *, blink_on)``.  ``blink_on`` is on for 1.5 s of
every 2 s in the main loop (``device.app.lit``); alerts are drawn only while it is on, which makes them flash.

Views are frozen dataclasses, so the last frames are remembered by ``(game, view, blink_on)``: after a press
usually one or two of six players' views changed, and the others cost a dictionary look-up and a copy.
"""

from __future__ import annotations

import importlib
import re
from collections import OrderedDict
from functools import lru_cache
from types import ModuleType
from typing import Any

from PIL import Image

_GAME_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_modules: dict[str, ModuleType] = {}
_frames: OrderedDict[tuple[str, Any, bool], Image.Image] = OrderedDict()
#: Frames remembered: two blink phases × six players, with room to spare.
CACHE_SIZE = 32


def dashboard(game: str) -> ModuleType:
    """The dashboard module for ``game`` (``device.dashboards.<game>``), imported once."""
    if game in _modules:
        return _modules[game]
    if not isinstance(game, str) or not _GAME_NAME.match(game):
        raise ValueError(f"{game!r} is not a game name; use the game's package name, e.g. 'gaslands'")
    try:
        module = importlib.import_module(f"device.dashboards.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"device.dashboards.{game}":
            raise
        raise ValueError(f"there is no dashboard for game {game!r} (no device/dashboards/{game}.py)") from None
    if not callable(getattr(module, "render", None)):
        raise ValueError(f"device/dashboards/{game}.py has no render(view, *, blink_on) function")
    _modules[game] = module
    return module


def news_pieces(game: str, text: str) -> list[str]:
    """A game's news in the pieces its dashboard shows in turn: the dashboard's own ``news_pieces`` when it has
    one (its banner is not the others' notice box), else :func:`device.dashboards.pages.notice_pieces`."""
    from device.dashboards.pages import notice_pieces

    try:
        own = getattr(dashboard(game), "news_pieces", None)
    except ValueError:
        own = None
    pieces: list[str] = own(text) if callable(own) else notice_pieces(text)
    return pieces


def notice_pieces(game: str, kind: str, text: str) -> list[str]:
    """An app notice (``App.notify``'s ``kind`` and ``text``) in the texts its dashboard shows whole, in turn:
    ``[text]`` when the game's notice box holds it, else its title (``common.NOTICE_TITLES``) over each piece of
    the rest, a piece as many lines as the box holds (the dashboard's own ``notice_pieces`` of the words under
    the title, else ``pages.notice_pieces``).  An audit: "dice tray not in the picture: [camera] dice_region
    [864, 796, 57…" stood cut on every screen but the roller's, the reason and what to do never shown."""
    from device.dashboards.common import notice_title
    from device.dashboards.pages import notice_pieces as box_pieces

    title, rest = notice_title(kind, text)
    try:
        own = getattr(dashboard(game), "notice_pieces", None)
    except ValueError:
        own = None
    pieces: list[str] = own(rest) if callable(own) else box_pieces(rest)
    return [text] if len(pieces) <= 1 else [f"{title}: {piece}" for piece in pieces]


@lru_cache(maxsize=256)
def alert_pieces(game: str, kind: str, text: str) -> tuple[str, ...]:
    """A game's own alert (a view's ``alerts``) in the texts its dashboard's banner shows whole, in turn: the
    dashboard's own ``alert_pieces`` when it has one, else ``(text,)`` (the banner draws it as it comes).  Kept:
    the app asks it for every alert of every screen at each redraw, and the pieces are measured by drawing."""
    try:
        own = getattr(dashboard(game), "alert_pieces", None)
    except ValueError:
        own = None
    pieces = own(kind, text) if callable(own) else [text]
    return tuple(pieces) or (text,)


def clear_cache() -> None:
    """Forget the remembered frames (benchmarks use it to time drawing, not the look-up)."""
    _frames.clear()


def render_view(game: str, view: Any, *, blink_on: bool) -> Image.Image:
    """Draw ``view`` (one player's view of ``game``) as a mode "1" 128×64 image (a new image the caller may
    keep or draw on)."""
    try:
        key: tuple[str, Any, bool] | None = (game, view, bool(blink_on))
        cached = _frames.get(key)  # type: ignore[arg-type]
    except TypeError:  # a view that is not hashable is simply drawn every time
        key, cached = None, None
    if cached is not None:
        _frames.move_to_end(key)  # type: ignore[arg-type]
        return cached.copy()
    image = dashboard(game).render(view, blink_on=blink_on)
    if image.mode != "1" or image.size != (128, 64):
        raise ValueError(f"the {game} dashboard drew a {image.mode} {image.size} image; screens take mode '1' 128x64")
    if key is not None:
        _frames[key] = image.copy()
        while len(_frames) > CACHE_SIZE:
            _frames.popitem(last=False)
    return image
