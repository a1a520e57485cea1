"""The scripted Gaslands round the demo plays: one full round, pure data.

Alice's Buggy climbs the gears and piles up hazard tokens; in gear phase 3 she reaches for a Turn in
gear 5 (not permitted: the touch-move rule hands the pick to Bob), and in phase 4 a spin on top of a gear
change takes her past the wipeout line: she loses control and flips.  Every skid check is a roll of real
dice faces, so the camera demo can render and read them.
"""

from __future__ import annotations

from typing import Any

SETUP = """\
[scenario]
pole = "Alice"
pole_passing = "clockwise_each_phase"

[[players]]
name = "Alice"
[[players.vehicles]]
id = "rust"
name = "Rust Bucket"
type = "buggy"
tag = 10

[[players]]
name = "Bob"
[[players.vehicles]]
id = "brick"
name = "The Brick"
type = "truck"
tag = 11
"""

COMMANDS: list[dict[str, Any]] = [
    # gear phase 1 — Alice has pole
    {"type": "choose_template", "template": "turn", "hand": "left"},
    {"type": "place_template"},
    {"type": "skid_roll", "faces": ["SHIFT", "SHIFT", "HAZARD"]},
    {"type": "shift", "use": "gear_up"},
    {"type": "shift", "use": "gear_up"},
    {"type": "shift", "use": "cancel", "result": "HAZARD"},  # the Turn's free SHIFT
    {"type": "confirm"},  # 1.7 move
    {"type": "attack", "target": "brick", "dice": [5, 2], "evade": [3]},
    {"type": "confirm"},  # attack step done
    {"type": "choose_template", "template": "gentle", "hand": "right"},
    {"type": "place_template"},
    {"type": "skid_roll", "faces": ["SHIFT", "SPIN"]},
    {"type": "shift", "use": "gear_up"},
    {"type": "confirm"},  # 1.7 move
    {"type": "confirm"},  # 1.8 spin
    {"type": "confirm"},  # attack step
    # gear phase 2 — pole passed to Bob
    {"type": "choose_template", "template": "gentle", "hand": "left"},
    {"type": "place_template"},
    {"type": "skid_roll", "faces": ["HAZARD", "SHIFT"]},
    {"type": "shift", "use": "discard_hazard"},
    {"type": "confirm"},
    {"type": "confirm"},
    {"type": "choose_template", "template": "gentle", "hand": "left"},
    {"type": "place_template"},
    {"type": "skid_roll", "faces": ["SHIFT", "SHIFT", "HAZARD"]},
    {"type": "shift", "use": "gear_up"},
    {"type": "shift", "use": "gear_up"},
    {"type": "confirm"},
    {"type": "confirm"},
    # gear phase 3 — Alice alone, in gear 5: reaches for a Turn
    {"type": "choose_template", "template": "turn", "hand": "left"},
    {"type": "choose_template", "template": "long_straight"},  # Bob, on her left, picks for her
    {"type": "place_template"},
    {"type": "confirm"},  # 1.7 move: no skid dice under the touch-move rule
    {"type": "confirm"},  # attack step
    # gear phase 4 — a gear change and a spin take her past the wipeout line
    {"type": "choose_template", "template": "gentle", "hand": "right"},
    {"type": "place_template"},
    {"type": "skid_roll", "faces": ["SPIN", "SHIFT"]},
    {"type": "shift", "use": "gear_down"},
    {"type": "confirm"},  # 1.7 move
    {"type": "confirm"},  # 1.8 spin
    {"type": "confirm"},  # attack step → wipeout step
    {"type": "flip_check", "die": 2},
    # the flip's Medium Straight T-bones The Brick: +2 hazards each, then each car's smash attack on the other
    # (its own gear in dice), the target's evade dice after it
    {"type": "collision", "vehicle": "brick", "both_evaded": False, "kind": "t_bone"},
    {"type": "smash", "attacker": "rust", "target": "brick", "kind": "t_bone", "dice": [5], "evade": [3, 6]},
    {"type": "smash", "attacker": "brick", "target": "rust", "kind": "t_bone", "dice": [6, 4], "evade": [2]},
    {"type": "confirm"},  # moved a Medium Straight
]


def demo_script() -> tuple[str, list[dict[str, Any]]]:
    return SETUP, [dict(c) for c in COMMANDS]
