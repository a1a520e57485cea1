"""A short scripted Thunder Road game for ``pitboard demo thunder_road``.

It walks through the rules the companion enforces: a command (Drift passing the first occupied space),
a collision and its bump with the larger vehicle's re-roll, damage and ON FIRE!, an illegal assignment
(refused with its reason), coasting, a Fire-die roll whose face the owner has not filled in yet (the table
rules on it) and a car put out of service.  Pure data: no I/O.
"""

from __future__ import annotations

from typing import Any

DEMO_SETUP = """\
# Demo table: two players, the base game's three cars each.
first_player = "Ana"

[[players]]
name = "Ana"

[[players]]
name = "Ben"

[board]
tiles = 5
on_board = 3
"""


def demo_script() -> tuple[str, list[dict[str, Any]]]:
    """(setup TOML, commands) of the demo game, in the order the table sends them."""
    commands: list[dict[str, Any]] = [
        # round 1
        {"type": "roll", "dice": {"Ana": [2, 3, 4, 6], "Ben": [1, 3, 5, 5]}},
        {"type": "command", "name": "drift", "die": 3},  # Ana: Drift (3-5) for this turn's move
        {"type": "assign", "vehicle": "small", "die": 4},
        {"type": "move", "spaces": 4, "occupied": [{"at": 2, "vehicle": "Ben/medium"}]},  # drifts past
        {"type": "assign", "vehicle": "large", "die": 5},  # Ben
        {"type": "move", "spaces": 5, "occupied": [{"at": 5, "vehicle": "Ana/small"}]},  # ends on it: bump
        {"type": "bump", "bump": "bump1", "direction": 2},
        {"type": "reroll", "player": "Ben", "bump": "bump4", "direction": 5},  # Ben's large car is larger
        {"type": "placed", "moved": "Ana/small"},
        {"type": "damage", "vehicle": "Ana/small", "on_fire": True},  # an ON FIRE! damage token
        {"type": "assign", "vehicle": "small", "die": 2},  # illegal: the small car already moved
        {"type": "assign", "vehicle": "medium", "die": 2},
        {"type": "move"},
        {"type": "assign", "vehicle": "small", "die": 3},  # Ben
        {"type": "move"},
        {"type": "assign", "vehicle": "large", "die": 6},  # Ana's last die
        {"type": "move"},
        {"type": "assign", "vehicle": "medium", "die": 1},  # Ben
        {"type": "move"},
        {"type": "coast", "vehicle": "small", "die": 5},  # Ben: every car has moved: coast (counts as 1)
        {"type": "move"},
        # round 2
        {"type": "roll", "dice": {"Ana": [1, 4, 5, 6], "Ben": [2, 2, 3, 6]}},
        {"type": "assign", "vehicle": "small", "die": 5},  # Ana's small car is ON FIRE!: Fire die first
        {"type": "fire", "face": "fire3"},  # not filled in yet: the table rules on it
        {"type": "fire_ruling", "effect": "out"},
        {"type": "move"},
        {"type": "damage", "vehicle": "Ben/medium"},
        {"type": "damage", "vehicle": "Ben/medium"},  # two tokens: out of service
        {"type": "assign", "vehicle": "medium", "die": 6},  # refused: out of service
        {"type": "command", "name": "repair", "die": 6, "vehicle": "medium"},  # Repair removes one token
        {"type": "assign", "vehicle": "medium", "die": 2},
        {"type": "move"},
    ]
    return DEMO_SETUP, commands
