"""Names and words the screens' font cannot draw.  The brief: "every reading must be visible on the
player's OLED".  Pillow's bundled font, the screens' only font, has ASCII and a few signs: "Jörg", "Søren"
or "José" showed a box for a letter, and so did the "—" of a Thunder Road refusal.  Each character the
font lacks is drawn as its substitute or the letter without its accent (``device.dashboards.common.
drawable``), or "?" when nothing is near (a Chinese name, an emoji)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.dashboards.common import drawable, has_glyph
from device.dashboards.thunder_road import render
from games.core import Alert, Command, Match
from games.thunder_road import GAME


@pytest.mark.parametrize(("name", "shown"), [
    ("Jörg", "Jorg"), ("Søren", "Soren"), ("José", "Jose"), ("Łukasz", "Lukasz"), ("Straße", "Strasse"),
    ("Ægir", "AEgir"), ("Núria", "Nuria"), ("Çağla", "Cagla"), ("Bob 🚗", "Bob ?"), ("李", "?"),
    ("the road does not scroll any more — a vehicle", "the road does not scroll any more - a vehicle"),
    ("Gear phase 3 · round 1 › Gentle…", "Gear phase 3 · round 1 › Gentle…"),  # signs the font has stay
    ("Ana", "Ana"), ("Jo\u0308rg", "Jorg"),  # the accent apart from its letter (decomposed, as macOS saves)
])
def test_what_the_font_lacks_is_drawn_as_its_nearest(name: str, shown: str) -> None:
    assert drawable(name) == shown


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_every_character_drawn_is_one_the_font_has(text: str) -> None:
    out = drawable(text)
    assert all(has_glyph(c) or c < " " for c in out)
    assert drawable(out) == out


def _screen(players: list[str], who: str, alert: str | None = None) -> Any:
    match = Match.begin(GAME, {"players": [{"name": p} for p in players], "board": {"tiles": 5, "on_board": 3}})
    match.apply(Command.from_json({"type": "roll", "dice": {players[0]: [1, 3, 4, 6], players[1]: [2, 2, 5, 6]}}))
    view = next(v for v in match.views() if v.player == who)
    if alert is not None:
        from dataclasses import replace

        view = replace(view, alerts=(Alert("refused", alert),))
    return np.asarray(render(view, blink_on=True), dtype=bool)


def test_a_players_screen_shows_jorg_as_jorg_not_a_box() -> None:
    """The header with the player's name and whose turn it is: "Jörg" drawn as "Jorg", pixel for pixel."""
    assert np.array_equal(_screen(["Jörg", "Ben"], "Jörg"), _screen(["Jorg", "Ben"], "Jorg"))
    assert np.array_equal(_screen(["Ana", "Søren"], "Søren"), _screen(["Ana", "Soren"], "Soren"))


def test_a_refusal_with_a_dash_is_drawn_with_a_hyphen() -> None:
    said = "the lead tile is the final tile: the road does not scroll any more — a vehicle reaching its finish line wins"
    plain = said.replace("—", "-")
    assert np.array_equal(_screen(["Ana", "Ben"], "Ana", said), _screen(["Ana", "Ben"], "Ana", plain))


def test_the_web_pages_setup_check_notes_names_the_screens_cannot_draw() -> None:
    """The phone's "Check" of a setup says so before the game begins, as `pitboard check` does."""
    from device.web.setup import check_setup

    text = "".join(f'[[players]]\nname = "{n}"\n[[players.vehicles]]\ntype = "car"\n' for n in ("李", "Ana"))
    options, message = check_setup("gaslands", text)
    assert options is not None and message.startswith("Gaslands: Refuelled: a valid table for 李, Ana")
    assert "note: the screens draw '李' as '?'" in message
    _, plain = check_setup("gaslands", text.replace("李", "Li"))
    assert "note:" not in plain
