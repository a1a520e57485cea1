"""Flamme Rouge — the Grand Tour variant (a series of linked stages), as a Pitboard game.

``GAME`` is driven by ``games.core.Match``; ``EXAMPLE_SETUP`` is a valid setup file.  The table enters
results with buttons (no dice are read), so ``DIE_TYPES`` is empty.
"""

from games.grand_tour.rules import (
    GAME,
    SETUP_KEYS,
    GrandTourGame,
    load_specialty_data,
    load_tour_data,
    start_order,
    tour_winners,
)
from games.grand_tour.menus import menu
from games.grand_tour.state import ROLES, GrandTourState, Phase, Rider, Team
from games.grand_tour.timetrack import Marker, TimeTrack
from games.grand_tour.views import RiderView, TeamView, clock

EXAMPLE_SETUP = """\
# Flamme Rouge Grand Tour: a tour of linked stages.
stages = 3
teams = ["red", "blue", "green"]   # 2-4 teams; 5-6 with the Peloton expansion (peloton = true)
specialties = false                # the optional specialty cards (deal 2, keep 1)
cooperation = true                 # table talk and alliances allowed (nothing to enforce)
# lose_time_every_round = true     # a round nobody crosses, after the stage's first crossers, costs the riders
#                                  # still racing a minute too (shipped false in tour.toml: the rule as written)
# time_points_by_team = true       # the best-time points after the last stage go 3, 2, 1 to teams, each at its
#                                  # best rider's time (shipped false: rider by rider, as the stage points)

# Your printed time-track sheet (the seed does not give its size) is the owner's data: the Rule facts page
# or games/grand_tour/data/tour.toml.  To give another sheet for this tour only, take the # off these lines:
# [time_track]
# columns = 20
# start_column = 2
# start_row = 0
"""

DIE_TYPES: dict[str, list[int]] = {}

__all__ = [
    "DIE_TYPES", "EXAMPLE_SETUP", "GAME", "ROLES", "SETUP_KEYS", "GrandTourGame", "GrandTourState", "Marker", "Phase", "Rider",
    "RiderView", "Team", "TeamView", "TimeTrack", "clock", "load_specialty_data", "load_tour_data", "menu",
    "start_order",
    "tour_winners",
]
