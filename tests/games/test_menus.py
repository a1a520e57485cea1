"""Every game's button menu, on random games played through the menus alone.

The issue's promise, checked at every state reached: the first level holds at most 8 choices; every
command the prompt lists as legal (but ``undo``, which is BACK) is sent by some choice; the cheapest
choice of each is at most 8 presses away; every command a choice sends is accepted by the rules; labels
are words, not code identifiers.
"""

from __future__ import annotations

import random
import re
import tomllib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import game_package
from games.core import Command, Illegal, Match
from games.core.table_input import FIRST_LEVEL_MAX, DiceRequest, cheapest, leaves

from device.bench_menus import GASLANDS_4X2  # the benchmark's 4 players x 2 cars

GAMES = ("gaslands", "thunder_road", "space_race", "grand_tour")
CODE_WORD = re.compile(r"[a-z]+_[a-z]+")  # short_straight, gear_up, big_rig ...



def _setups(game: str) -> list[str]:
    module = game_package(game)
    out = [module.EXAMPLE_SETUP]
    if game == "gaslands":
        out.append(GASLANDS_4X2)
    return out


def _accepted(match: Match[Any], command: Command) -> bool:
    try:
        return match.propose(command).refused is None
    except Illegal:
        return False


def _check(match: Match[Any], module: Any) -> None:
    game = module.GAME
    state = match.state
    menu = game.menu(state)
    prompt = game.prompt(state)
    assert len(menu.choices) <= FIRST_LEVEL_MAX, [c.label for c in menu.choices]
    best = cheapest(menu, dict(getattr(module, "DIE_TYPES", {}) or {}))
    wanted = [c for c in prompt.commands if c != "undo"]
    missing = [c for c in wanted if c not in best]
    assert not missing, f"at '{prompt.step}' no choice sends {missing}"
    assert all(best[c] <= 8 for c in wanted), {c: best[c] for c in wanted}
    for lf in leaves(menu.choices):
        for label in lf.path:
            assert not CODE_WORD.search(label), f"a code word in the label {label!r}"
        if lf.choice.command is not None and lf.choice.recorded_refusal:
            decision = match.propose(lf.choice.command)  # refused, and what follows is recorded
            assert decision.refused and decision.events, f"{' › '.join(lf.path)} is no recorded refusal"
        elif lf.choice.command is not None:
            assert _accepted(match, lf.choice.command), f"{' › '.join(lf.path)} is offered but refused"


def _play_leaf(match: Match[Any], module: Any, rng: random.Random) -> None:
    menu = module.GAME.menu(match.state)
    options = list(leaves(menu.choices))
    calm = [lf for lf in options if not any(w in " ".join(lf.path).lower()
                                            for w in ("end game", "skip", "eliminat", "finish", "off", "fire", "damage"))]
    pool = calm or options
    lf = pool[0] if rng.random() < 0.5 else rng.choice(pool)
    if lf.choice.command is not None:
        outcome = match.apply(lf.choice.command)
        assert outcome.accepted or lf.choice.recorded_refusal, (lf.path, outcome.reason)
        return
    request: Any = lf.choice.dice
    faces_of = dict(getattr(module, "DIE_TYPES", {}) or {})
    for _ in range(3):
        assert isinstance(request, DiceRequest)
        faces = list(request.faces or faces_of.get(request.die, range(1, 7)))
        n = request.count if request.exact else rng.randint(0, min(request.count, 4))
        result = request.command([rng.choice(faces) for _ in range(n)])
        if isinstance(result, DiceRequest):
            request = result
            continue
        if isinstance(result, Command):
            match.apply(result)  # a roll may still be refused (no attack dice): nothing is recorded then
        return


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_menus_hold_their_promise_through_random_games(game: str, seed: int) -> None:
    module = game_package(game)
    rng = random.Random(seed)
    for setup in _setups(game):
        match = Match.begin(module.GAME, tomllib.loads(setup))
        for _ in range(60):
            _check(match, module)
            if not module.GAME.menu(match.state).choices:
                break
            _play_leaf(match, module, rng)
