"""Golden images of the Space Race dashboard (pixel for pixel; regenerate with PITBOARD_REGOLD=1)."""

from __future__ import annotations

import dataclasses

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
    "seed_example_usa": (_seed_example, 0, True),
    "usa_last_box": (_usa_done, 0, True),
    "usa_while_ussr_rolls": (lambda: _match(B, a("USSR", die=None)), 0, True),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_golden(name: str, tmp_path: Path) -> None:
    build, seat, blink = STATES[name]
    check_golden(render(build().views()[seat], blink_on=blink), GOLDEN / f"{name}.png", tmp_path)


def test_the_track_is_eight_wide_boxes_with_the_rival_marked() -> None:
    """Eight boxes of 15 px across the bottom rows: yours lit up to your marker, the rival's marker a
    block in its box (dark in a lit box, lit in a dark one) — the 5-px cells before could not be read at
    arm's length."""
    from device.dashboards.space_race import BOX_PITCH, TRACK_TOP
    from golden_images import lit

    m = _seed_example()  # USSR on box 4, USA on box 1
    ussr, usa = (lit(render(v, blink_on=True)) for v in (m.views()[1], m.views()[0]))
    assert BOX_PITCH == 16
    row = TRACK_TOP + 1  # inside the boxes, above the rival's block
    mid = TRACK_TOP + 5  # through the rival's block
    for i in range(8):
        x = i * BOX_PITCH + 7  # the middle of box i + 1
        assert ussr[row, x] == (i < 4) and usa[row, x] == (i < 1)
        assert ussr[mid, x] == ((i < 4) != (i == 0))  # USA's marker: dark in USSR's lit box 1
        assert usa[mid, x] == ((i < 1) != (i == 3))  # USSR's marker: lit in USA's dark box 4
        assert ussr[row, i * BOX_PITCH + BOX_PITCH - 1] == 0  # a dark gap between boxes


def test_the_other_sides_screen_says_whose_die_is_awaited() -> None:
    """An audit: while the USSR rolled for box 1, the USA's screen showed only its own board, the next attempt's
    odds among it, and nothing said the die awaited was the USSR's."""
    m = _match(B, a("USSR", die=None))
    usa, ussr = m.views()
    assert usa.rival_rolls == "USSR rolls for box 1" and ussr.rival_rolls == ""
    assert render(usa, blink_on=True).tobytes() != render(dataclasses.replace(usa, rival_rolls=""), blink_on=True).tobytes()
    assert _match(B).views()[0].rival_rolls == ""  # nobody rolling


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


def test_the_header_codes_the_abilities_by_key_whatever_their_words() -> None:
    """The header's codes (2X HL DIS 8AR) were looked up by the ability's words, so an edition's or an
    owner's own words (``ability_text`` in the track data) fell back to their first three letters."""
    from dataclasses import replace

    view = next(v for v in _seed_example().views() if v.side == "USSR")
    assert view.ability_keys and len(view.ability_keys) == len(view.abilities)
    reworded = replace(view, abilities=tuple(f"house rule {i}" for i, _ in enumerate(view.abilities)))
    assert render(reworded, blink_on=True).tobytes() == render(view, blink_on=True).tobytes()
    no_abilities = replace(view, abilities=(), ability_keys=())
    assert render(no_abilities, blink_on=True).tobytes() != render(view, blink_on=True).tobytes()


def test_all_four_abilities_keep_a_words_space_from_the_sides_name() -> None:
    """An audit: with all four abilities the header read "USSR2X HL DIS 8AR", the codes 2 px after the name."""
    from dataclasses import replace

    import numpy as np

    view = next(v for v in _seed_example().views() if v.side == "USSR")
    keys = ("two_attempts", "opponent_headline_first", "discard_held", "eight_action_rounds")
    header = np.asarray(render(replace(view, ability_keys=keys), blink_on=True), dtype=bool)[:12, :103]
    side = np.asarray(render(replace(view, ability_keys=()), blink_on=True), dtype=bool)[:12, :103]
    name_end = int(np.nonzero(side.any(axis=0))[0].max())
    codes_start = int(np.nonzero(header[:, name_end + 1:].any(axis=0))[0].min()) + name_end + 1
    assert codes_start - name_end > 4, (name_end, codes_start)


def test_the_side_that_reveals_its_headline_first_is_told_on_its_own_screen() -> None:
    """Box 4's ability: "opponent reveals their headline first".  Only its holder's header said HL; the side that
    must act on it (the opponent) was shown nothing, and the turn's reminder went to a note no screen draws."""
    from dataclasses import replace

    m = _match(B, a("USSR"), E, B, a("USSR"), a("USSR"), E, B, a("USSR"), E, B)  # USSR reaches box 4
    views = {v.side: v for v in m.views()}
    assert "opponent_headline_first" in views["USSR"].ability_keys
    assert views["USA"].rival_ability_keys == ("opponent_headline_first",) and views["USSR"].rival_ability_keys == ()
    usa = views["USA"]
    assert render(usa, blink_on=True).tobytes() != render(replace(usa, rival_ability_keys=()), blink_on=True).tobytes()
    _golden("rival_headline_first", render(usa, blink_on=True))


def test_a_side_on_the_last_box_reads_no_more_cards_not_race_over(monkeypatch) -> None:
    """"A player who reached the last box may not play cards to the Space Race for the rest of the game." — an
    audit: USSR's screen said "race over" while USA was still racing.  Only with both sides there is the race
    done; the line says so then."""
    from dataclasses import replace

    import device.dashboards.space_race as sr

    drawn: list[str] = []
    real = sr.fit_text
    monkeypatch.setattr(sr, "fit_text", lambda draw, box, text, **kw: (drawn.append(text), real(draw, box, text, **kw))[1])
    view = _usa_done().views()[0]
    assert view.finished and view.opponent_box < 8
    render(view, blink_on=True)
    render(replace(view, opponent_box=8), blink_on=True)
    assert "last box: no more attempts" in drawn and "both on the last box" in drawn
    assert not any("race over" in t for t in drawn)
