"""The Space Race demo script runs through the rules as its comments say; the awaited die on the menu."""

from __future__ import annotations

import tomllib

from games.core import Command, Match
from games.space_race import GAME
from games.space_race.demo import demo_script


def test_demo_runs_with_its_two_refusals() -> None:
    setup, commands = demo_script()
    m = Match.begin(GAME, tomllib.loads(setup))
    refused = []
    for c in commands:
        out = m.apply(Command.from_json(c))
        if not out.accepted:
            refused.append(out.reason)
    assert len(refused) == 2
    assert "2 of 2" in refused[0] and "needs a card of 2 Ops" in refused[1]
    ussr, usa = m.state.side("USSR"), m.state.side("USA")
    assert (ussr.box, usa.box) == (4, 2)
    assert m.state.holds("USSR", "opponent_headline_first") and not m.state.holds("USSR", "two_attempts")
    assert demo_script() == demo_script()  # pure: the same script every time


def test_the_awaited_die_comes_from_the_menu_and_finished() -> None:
    """Between turns no die is awaited; after an attempt without its die the menu's roll (the camera's
    answer, or the dice entry) makes the ``roll`` command."""
    m = Match.begin(GAME, {})
    assert GAME.menu(m.state).dice is None
    m.apply(Command("begin_turn"))
    m.apply(Command("attempt", {"side": "USA", "ops": 2}))
    request = GAME.menu(m.state).dice
    assert request is not None
    cmd = request.command([3])
    assert cmd == Command("roll", {"die": 3})
    assert m.apply(cmd).accepted and m.state.side("USA").box == 1
    assert not m.state.finished
    for side in ("USA", "USSR"):
        while m.state.side(side).box < 8:
            m.apply(Command("event_advance", {"side": side}))
    assert m.state.finished
