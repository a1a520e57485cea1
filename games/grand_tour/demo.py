"""A short scripted Grand Tour for ``pitboard demo grand_tour``.

Two stages, three teams, specialties on: the specialty deal (2 each, keep 1, give it to a rider), the
rounds in which riders cross the line (squares past the line, a pack, the 1st/2nd bonus, the wrap), a
round nobody crossed (refused with the reason), exhaustion counted between stages (half discarded,
rounded down), the start order of stage 2 (fewest points first) and the final best-time points.  Pure
data: no I/O.
"""

from __future__ import annotations

from typing import Any

DEMO_SETUP = """\
# Demo tour: two stages, three teams, with specialties.
stages = 2
teams = ["red", "blue", "green"]
specialties = true
cooperation = true

[time_track]
columns = 12
start_column = 2
start_row = 0
"""


def _round(*crossed: tuple[str, int], pack: bool = False) -> dict[str, Any]:
    return {"type": "finish_round", "crossed": [{"rider": r, "squares": s} for r, s in crossed], "pack": pack}


COMMANDS: list[dict[str, Any]] = [
    {"type": "deal_specialties", "team": "red", "cards": ["1", "2"]},
    {"type": "deal_specialties", "team": "blue", "cards": ["3", "4"]},
    {"type": "deal_specialties", "team": "green", "cards": ["5", "6"]},
    {"type": "keep_specialty", "team": "red", "card": "2", "rider": "sprinteur"},
    {"type": "keep_specialty", "team": "blue", "card": "3", "rider": "rouleur"},
    {"type": "keep_specialty", "team": "green", "card": "6", "rider": "sprinteur"},
    # stage 1
    _round(),  # refused: the time track moves only after a round in which riders crossed
    _round(("green.sprinteur", 3), ("red.sprinteur", 2)),  # 1st and 2nd: squares + 10 s bonus
    _round(("blue.rouleur", 4), ("red.rouleur", 2), ("green.rouleur", 1), pack=True),  # a pack: all 4 rows
    _round(("blue.sprinteur", 5)),  # 5 squares from the top row: the wrap (one row down, one column left)
    {"type": "exhaustion", "rider": "red.rouleur", "cards": 5},  # keeps 3
    {"type": "exhaustion", "rider": "red.sprinteur", "cards": 2},
    {"type": "exhaustion", "rider": "blue.rouleur", "cards": 0},
    {"type": "exhaustion", "rider": "blue.sprinteur", "cards": 3},
    {"type": "exhaustion", "rider": "green.rouleur", "cards": 1},
    {"type": "exhaustion", "rider": "green.sprinteur", "cards": 4},
    # stage 2: fewest points first at the start line
    _round(("red.rouleur", 5), ("blue.sprinteur", 2)),
    _round(("red.sprinteur", 1), ("green.rouleur", 1), ("green.sprinteur", 0), ("blue.rouleur", 0)),
]


def demo_script() -> tuple[str, list[dict[str, Any]]]:
    """(setup TOML, commands) of the demo tour, in the order the table sends them."""
    return DEMO_SETUP, [dict(c) for c in COMMANDS]
