"""Golden images of the Space Race dashboard (pixel for pixel; regenerate with PITBOARD_REGOLD=1)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from golden_images import check_golden

from device.dashboards.space_race import render
from games.core import Command, Match
from games.space_race import GAME

GOLDEN = Path(__file__).parent / "golden" / "space_race"


def _match(*commands: dict[str, Any]) -> Match:
    m = Match.begin(GAME, {})
    for c in commands:
        out = m.apply(Command.from_json(c))
        assert out.accepted, (c, out.reason)
    return m


B, E = {"type": "begin_turn"}, {"type": "end_turn"}


def a(side: str, die: int | None = 1, ops: int = 4) -> dict[str, Any]:
    c: dict[str, Any] = {"type": "attempt", "side": side, "ops": ops}
    if die is not None:
        c["die"] = die
    return c


def _seed_example() -> Match:
    return _match(B, a("USSR"), E, B, a("USSR"), a("USSR"), E, B, a("USSR"), a("USA"), E, B)


def _usa_done() -> Match:
    cmds: list[dict[str, Any]] = []
    for _ in range(8):
        cmds += [B, a("USA"), E]
    return _match(*cmds)


STATES = {
    "turn1_usa": (lambda: _match(B), 0, True),
    "ussr_roll_on": (lambda: _match(B, a("USSR"), E, B, a("USSR", die=None)), 1, True),
    "ussr_roll_off": (lambda: _match(B, a("USSR"), E, B, a("USSR", die=None)), 1, False),
    "seed_example_ussr": (_seed_example, 1, True),
    "usa_last_box": (_usa_done, 0, True),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_golden(name: str, tmp_path: Path) -> None:
    build, seat, blink = STATES[name]
    check_golden(render(build().views()[seat], blink_on=blink), GOLDEN / f"{name}.png", tmp_path)


def test_blink_changes_the_roll_banner_only_while_on() -> None:
    m = _match(B, a("USSR", die=None))
    v = m.views()[1]
    assert render(v, blink_on=True).tobytes() != render(v, blink_on=False).tobytes()
    usa = m.views()[0]  # not USA's die: no banner, blink makes no difference
    assert render(usa, blink_on=True).tobytes() == render(usa, blink_on=False).tobytes()


def test_app_status_and_refusal_notice() -> None:
    """The app's button-menu line replaces the bottom line; its refusal notice flashes over the middle."""
    import dataclasses

    from games.core import Alert

    v = _match(B).views()[0]
    menu = dataclasses.replace(v, prompt="> USA 3 ops (2/7) OK")
    assert render(menu, blink_on=True).tobytes() != render(v, blink_on=True).tobytes()
    note = dataclasses.replace(v, alerts=(Alert("refused", "box 1 needs a card of 2 ops or more", "USA"),))
    assert render(note, blink_on=True).tobytes() != render(note, blink_on=False).tobytes()
    assert render(note, blink_on=False).tobytes() == render(v, blink_on=False).tobytes()
    for name, image in (("status_menu_usa", render(menu, blink_on=True)), ("refused_usa_on", render(note, blink_on=True))):
        _golden(name, image)


def _golden(name: str, image: Image.Image) -> None:
    path = GOLDEN / f"{name}.png"
    if os.environ.get("PITBOARD_REGOLD") == "1":
        image.save(path)
    assert path.exists(), f"no golden image {path}; run with PITBOARD_REGOLD=1 to create it, then look at it"
    assert Image.open(path).convert("1").tobytes() == image.tobytes(), f"{name} differs from {path}"
