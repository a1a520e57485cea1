"""Thunder Road — ``decide``: a command checked by the decider of its rule area, its event, then the
consequences the rules draw from it.

A command the rules refuse raises :class:`~games.core.Illegal` with the reason, and nothing is recorded:
``undo`` always takes back the last accepted decision.
"""

from __future__ import annotations

from collections.abc import Callable

from games.core import Command, Decision, Event, Illegal, fields

from games.thunder_road.bumps import decide_bump, decide_placed, decide_reroll
from games.thunder_road.consequences import Draft, follow_up
from games.thunder_road.damage import decide_damage, decide_eliminate, decide_ignite
from games.thunder_road.evolve import evolve
from games.thunder_road.fire import decide_fire, decide_fire_ruling
from games.thunder_road.movement import decide_finish, decide_met, decide_move, decide_off, decide_scroll
from games.thunder_road.state import Step, ThunderRoadState
from games.thunder_road.turn import (
    decide_assign,
    decide_coast,
    decide_command,
    decide_pass,
    decide_road,
    decide_roll,
)

#: Command type → the decider that checks it and returns the command's own events (no consequences).
DECIDERS: dict[str, Callable[[ThunderRoadState, Command], list[Event]]] = {
    "roll": decide_roll,
    "assign": decide_assign,
    "coast": decide_coast,
    "command": decide_command,
    "pass": decide_pass,
    "fire": decide_fire,
    "fire_ruling": decide_fire_ruling,
    "met": decide_met,
    "move": decide_move,
    "off": decide_off,
    "scroll": decide_scroll,
    "finish": decide_finish,
    "bump": decide_bump,
    "reroll": decide_reroll,
    "placed": decide_placed,
    "damage": decide_damage,
    "ignite": decide_ignite,
    "eliminate": decide_eliminate,
    "road": decide_road,
}


#: Command type → the fields it takes, as the deciders read them; any other field is refused, naming it
#: (:func:`games.core.match.check_fields`).  Dropped, a misspelt field changed the game without a
#: word: ``"on_fier"`` made an ON FIRE! token a plain one, ``"occupid"`` a move without its collision.
#: ``player`` is optional wherever it appears (the player whose turn it is, checked); ``command``'s
#: ``command`` is the older spelling of its ``name``.
COMMAND_FIELDS: dict[str, tuple[str, ...]] = {
    "roll": ("player", "dice", "first"),
    "assign": ("player", "vehicle", "die"),
    "coast": ("player", "vehicle", "die"),
    "command": ("player", "name", "command", "die", "vehicle"),
    "pass": ("player",),
    "fire": ("face",),
    "fire_ruling": ("effect", "moves"),
    "met": ("vehicle", "at"),
    "move": ("spaces", "occupied"),
    "off": ("vehicle",),
    "scroll": ("eliminated",),
    "finish": ("vehicle",),
    "bump": ("bump", "direction"),
    "reroll": ("player", "bump", "direction"),
    "placed": ("moved", "onto"),
    "damage": ("vehicle", "on_fire"),
    "ignite": ("vehicle",),
    "eliminate": ("vehicle",),
    "road": ("player", "vehicle", "face"),
}


def decide(state: ThunderRoadState, command: Command) -> Decision:
    """The events ``command`` causes: its own, each followed by its consequences; or :class:`Illegal`.

    A game whose log is version 1 goes on in version 1: its consequences stay implicit (``evolve`` draws
    them for that log), so they are not recorded twice."""
    fields.plain(command.args, command.type)
    if state.step is Step.GAME_OVER:
        raise Illegal(f"the race is over: {state.winner or 'nobody'} won")
    handler = DECIDERS.get(command.type)
    if handler is None:
        raise Illegal(f"unknown command {command.type!r}: the commands are {', '.join(DECIDERS)}, undo")
    draft = Draft(state, evolve)
    for event in handler(state, command):
        draft.add(event)
        if state.log_version >= 2:
            follow_up(draft, event)
    return draft.done()
