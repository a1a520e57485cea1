"""Thunder Road — the Fire die (Maximum Chrome).

"An ON FIRE! token (from an ON FIRE! damage token or a Fire space) stays on the dashboard; before that
vehicle moves, its owner must roll the Fire die: the result may add moves, put the fire out, or eliminate
the vehicle." [seed]  The faces are the owner's data (``fire_die.toml``); a face not filled in yet is
recorded as rolled, and the table rules on it (``fire_ruling``).
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Event, Illegal

from games.thunder_road.common import MAX_SPACES, needs_step
from games.thunder_road.state import FireEffect, Step, ThunderRoadState


def decide_fire(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.FIRE)
    assert state.turn is not None and state.turn.vehicle is not None
    face = fire_face_label(state, command.get("face"))
    f = state.tables.fire_face(face)
    return [Event("fire_rolled", {"vehicle": state.turn.vehicle, "face": face, "effect": f.effect.value, "moves": f.moves})]


def fire_face_label(state: ThunderRoadState, value: Any) -> str:
    labels = [f.label for f in state.tables.fire]
    if str(value) not in labels:
        raise Illegal(f"{value!r} is not a Fire die face: its faces are {', '.join(labels)}")
    return str(value)


def decide_fire_ruling(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.FIRE_RULING)
    assert state.turn is not None
    effect = command.get("effect")
    allowed = [e.value for e in FireEffect if e is not FireEffect.UNKNOWN]
    if effect not in allowed:
        raise Illegal(f"rule on the Fire die with effect = one of {', '.join(allowed)}")
    moves = command.get("moves", 0)
    if effect == "moves":
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= MAX_SPACES:
            raise Illegal('effect "moves" needs moves = how many extra spaces (1 or more)')
    else:
        moves = 0
    return [
        Event(
            "fire_rolled",
            {"vehicle": state.turn.vehicle, "face": state.turn.fire_face, "effect": effect, "moves": moves, "ruled": True},
        )
    ]
