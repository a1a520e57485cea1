"""Twilight Struggle — the Space Race track (rules 6.4), as a Pitboard game.

``GAME`` is driven by ``games.core.Match``; ``EXAMPLE_SETUP`` is a valid setup file; ``DIE_TYPES`` the dice
the camera reads for it (one d6 per attempt).
"""

from games.space_race.rules import GAME, SETUP_KEYS, SpaceRaceGame, load_track_data
from games.space_race.menus import menu
from games.space_race.state import SIDES, Box, Side, SpaceRaceState, Step
from games.space_race.views import NO_EVENT, SideView

EXAMPLE_SETUP = """\
# Twilight Struggle Space Race: choose the track edition printed on your board.
#   "deluxe" (default): Deluxe edition names.  "seed": the names of the owner's Russian rules translation.
# Or give your own track as 8 [[track]] tables (number, name, ops, roll = [low, high], vp = [first, second];
# a box with a special ability adds ability = "two_attempts", "opponent_headline_first", "discard_held" or
# "eight_action_rounds", and ability_text = its words on your board).
edition = "deluxe"
"""

DIE_TYPES: dict[str, list[int]] = {"d6": [1, 2, 3, 4, 5, 6]}

__all__ = [
    "DIE_TYPES", "EXAMPLE_SETUP", "GAME", "NO_EVENT", "SETUP_KEYS", "SIDES", "Box", "Side", "SideView", "SpaceRaceGame",
    "SpaceRaceState", "Step", "load_track_data", "menu",
]
