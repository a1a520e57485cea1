"""Scripted commands as button presses: which menu choices, taken one after another, have exactly the
effect of a command from a script.

Scripts (the demos, ``pitboard play``) write commands in the rules' shorthand — an attempt with its die,
every player's roll at once, a round's crossers in one ``finish_round``.  A table enters the same with the
buttons, a choice at a time.  :func:`button_route` finds those choices: first by the events they record
(the same events, in order), else by the state they reach, using choices of the command's own type or
carrying only values the command names.  The demos press them and the menu benchmark counts them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from games.core import Command, Event, Illegal
from games.core.table_input import DiceRequest, Leaf, Menu, leaves

#: One step of a route: the choice, and the faces of each roll it opens (a roll may ask for a second).
Step = tuple[Leaf, list[list[Any]]]


def _candidates(command: Command) -> Iterator[list[Any]]:
    """Face lists a scripted command may carry: its list arguments, and its scalar arguments alone or in
    pairs (a bump and its direction) — tried against a roll leaf until one makes the command."""
    scalars = [v for v in command.args.values() if not isinstance(v, (list, dict))]
    for v in command.args.values():
        if isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v):
            yield list(v)
    for a in scalars:
        yield [a]
        for b in scalars:
            yield [a, b]
    if isinstance(command.args.get("dice"), dict):  # {"Ana": [..], ...}: one roll per player
        for v in command.args["dice"].values():
            yield list(v)


def _effects(game: Any, state: Any, command: Command) -> list[Any] | None:
    try:
        decision = game.decide(state, command)
    except Illegal:
        return None
    return None if decision.refused is not None else [e.to_json() for e in decision.events]


def _options(menu: Menu, target: Command, die_types: dict[str, Sequence[Any]]
             ) -> Iterator[tuple[Leaf, list[list[Any]], Command]]:
    """Each leaf of the menu with the command it sends; a roll leaf once per way its faces can be taken
    from the target command's own values."""
    pool = list(_candidates(target))
    for lf in leaves(menu.choices):
        if lf.choice.command is not None:
            yield lf, [], lf.choice.command
            continue
        request = lf.choice.dice
        assert request is not None
        for first in pool:
            result: Any = request.command(first)
            if isinstance(result, Command):
                yield lf, [first], result
            elif isinstance(result, DiceRequest):
                for second in pool:
                    final = result.command(second)
                    if isinstance(final, Command):
                        yield lf, [first, second], final


def button_route(module: Any, state: Any, command: Command, die_types: dict[str, Sequence[Any]],
                 depth: int = 6) -> list[Step] | None:
    """Menu choices that, taken one after another, record exactly the events ``command`` records — a
    scripted shorthand ("attempt with its die", "every player's roll at once") played with the buttons."""
    game = module.GAME
    target = _effects(game, state, command)
    if target is None:
        return None

    def search(st: Any, done: list[Any], left: int) -> list[Step] | None:
        if done == target:
            return []
        if left == 0:
            return None
        for lf, rolls, cmd in _options(game.menu(st), command, die_types):
            effects = _effects(game, st, cmd)
            if not effects or target[:len(done) + len(effects)] != done + effects:
                continue
            nxt = st
            for e in effects:
                nxt = game.evolve(nxt, Event(e["type"], e["data"]))
            rest = search(nxt, done + effects, left - 1)
            if rest is not None:
                return [(lf, rolls), *rest]
        return None

    found = search(state, [], depth)
    if found is not None:
        return found
    return _same_state_route(module, state, command, die_types)


def _fold(game: Any, state: Any, command: Command) -> Any:
    try:
        decision = game.decide(state, command)
    except Illegal:
        return None
    if decision.refused is not None:
        return None
    for e in decision.events:
        state = game.evolve(state, e)
    return state


def _values(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return {w for v in obj.values() for w in _values(v)}
    if isinstance(obj, list):
        return {w for v in obj for w in _values(v)}
    return {json.dumps(obj)}


def _within(cmd: Command, words: set[str]) -> bool:
    """Every value the command carries is one the scripted command names (a rider, a count, a flag)."""
    return _values(dict(cmd.args)) <= words


def _same_state_route(module: Any, state: Any, command: Command, die_types: dict[str, Sequence[Any]],
                      depth: int = 10) -> list[Step] | None:
    """Choices that, one after another, reach the state the command reaches: of the command's own type
    (a script dealing two cards at once; the buttons deal one at a time) or carrying only values the
    command names (a round's crossers entered one by one, then "End round")."""
    game = module.GAME
    words = _values(dict(command.args))
    goal = _fold(game, state, command)
    if goal is None:
        return None

    def search(st: Any, left: int) -> list[Step] | None:
        if st == goal:
            return []
        if left == 0:
            return None
        for lf, rolls, cmd in _options(game.menu(st), command, die_types):
            if cmd.type != command.type and not _within(cmd, words):
                continue
            nxt = _fold(game, st, cmd)
            if nxt is None:
                continue
            rest = search(nxt, left - 1)
            if rest is not None:
                return [(lf, rolls), *rest]
        return None

    return search(state, depth)


def find_same(menu: Menu, lf: Leaf) -> Leaf:
    """The leaf at the same path in ``menu`` (the app's own menu object)."""
    for other in leaves(menu.choices):
        if other.path == lf.path:
            return other
    raise RuntimeError(f"{' › '.join(lf.path)} is no longer in the menu")
