"""A short scripted Space Race for ``pitboard demo space_race``.

It walks through the seed's worked example (USSR reaches box 4 before the USA reaches box 2: two attempts
per turn, and the USA reveals its headline first), a die awaited from the camera, a refused card too weak
for its box, a refused third attempt, and the USA catching up to box 2 (which cancels the USSR's
two-attempt ability).  Pure data: no I/O.
"""

from __future__ import annotations

from typing import Any

DEMO_SETUP = """\
# Demo: the Deluxe track.
edition = "deluxe"
"""

COMMANDS: list[dict[str, Any]] = [
    {"type": "begin_turn"},  # turn 1
    {"type": "attempt", "side": "USSR", "ops": 2, "die": 2},  # box 1 Earth Satellite, first: 2 VP
    {"type": "attempt", "side": "USA", "ops": 3},  # die awaited: the camera (or a typed value) gives it
    {"type": "roll", "die": 5},  # box 1 needs 1-3: failure
    {"type": "end_turn"},
    {"type": "begin_turn"},  # turn 2
    {"type": "attempt", "side": "USSR", "ops": 2, "die": 4},  # box 2 Animal in Space: two attempts now
    {"type": "attempt", "side": "USSR", "ops": 3, "die": 1},  # second attempt the same turn: box 3, 2 VP
    {"type": "attempt", "side": "USSR", "ops": 2, "die": 1},  # refused: 2 of 2 attempts made
    {"type": "attempt", "side": "USA", "ops": 2, "die": 3},  # USA box 1, second: 1 VP
    {"type": "end_turn"},
    {"type": "begin_turn"},  # turn 3
    {"type": "attempt", "side": "USSR", "ops": 1, "die": 1},  # refused: box 4 needs a 2-ops card
    {"type": "attempt", "side": "USSR", "ops": 4, "die": 4},  # box 4 before the USA reached box 2
    {"type": "end_turn"},
    {"type": "begin_turn"},  # turn 4: the USA reveals its headline first
    {"type": "attempt", "side": "USA", "ops": 2, "die": 2},  # USA box 2: the USSR's two attempts end
    {"type": "end_turn"},
]


def demo_script() -> tuple[str, list[dict[str, Any]]]:
    """(setup TOML, commands) of the demo game, in the order the table sends them."""
    return DEMO_SETUP, [dict(c) for c in COMMANDS]
