"""Thunder Road: Vendetta (+ Maximum Chrome), as a pure, event-sourced rules engine.

``GAME`` plugs into :mod:`games.core`; the command vocabulary is in the README.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core import Command, Decision, Event, Menu, Prompt
from games.thunder_road import rules, setup
from games.thunder_road.deciders import COMMAND_FIELDS
from games.thunder_road.state import PlayerView, Step, ThunderRoadState, VehicleView
from games.thunder_road.views import timeline_heading, timeline_vehicle_names, timeline_words
from games.thunder_road.views import views as _views


def _die_types() -> dict[str, list[Any]]:
    """Dice the camera and the buttons read, name → faces, from the packaged data (the Fire die's faces
    are the owner's labels from fire_die.toml)."""
    dice = {name: list(row["faces"]) for name, row in rules.load_table("dice").items()}
    dice["fire"] = [row["label"] for row in rules.load_table("fire_die")["faces"]]
    return dice


#: Dice this game reads from the table: name → faces.
DIE_TYPES: dict[str, list[Any]] = _die_types()

EXAMPLE_SETUP = """\
# A Thunder Road: Vendetta table.  Players in seating order (turns go round in this order).
first_player = "Ana"        # who goes first in round 1 (a roll command can name another for a round)

[[players]]
name = "Ana"                # vehicles default to ["small", "medium", "large"]

[[players]]
name = "Ben"

[[players]]
name = "Cy"
vehicles = ["small", "medium", "large", "big_rig"]   # Maximum Chrome: the Big Rig

[board]
tiles = 6                   # road tiles in the deck (or a list of their names, in the order laid)
on_board = 3                # tiles on the table at once: the rear one goes when the road scrolls
final = "6"                 # the final tile (default: the last one)

# Owner overrides of the rule tables (games/thunder_road/data/*.toml), for example:
# [vehicle_types.big_rig]
# damage_slots = 3
# [commands.nitro]
# adds_moves = "die"
"""


class ThunderRoad:
    """The game declaration: start, decide, evolve, prompt, views."""

    name = "thunder_road"
    commands = COMMAND_FIELDS

    def start(self, options: Mapping[str, Any]) -> Sequence[Event]:
        return rules.start(options)

    def evolve(self, state: ThunderRoadState | None, event: Event) -> ThunderRoadState:
        return rules.evolve(state, event)

    def decide(self, state: ThunderRoadState, command: Command) -> Decision:
        return rules.decide(state, command)

    def prompt(self, state: ThunderRoadState) -> Prompt:
        return rules.prompt(state)

    def views(self, state: ThunderRoadState) -> list[PlayerView]:
        return _views(state)

    def menu(self, state: ThunderRoadState) -> Menu:
        from games.thunder_road.menus import menu

        return menu(state)

    def state_problem(self, state: ThunderRoadState) -> str | None:
        """What a state folded from an edited log holds that no play makes (None: nothing): damage tokens or
        coasts below 0."""
        for v in state.vehicles:
            if v.damage < 0 or v.coasts < 0:
                return f"{v.id} has {v.damage} damage tokens and {v.coasts} coasts"
        return None

    # -- the game log's words (the phone's timeline, :mod:`device.web.timeline`) ---------------------------
    def timeline_heading(self, state: ThunderRoadState) -> str:
        """Where the table was before a decision, as the game log heads it: the round and whose turn."""
        return timeline_heading(state)

    def timeline_words(self, event: Event, names: Mapping[str, str] | None = None) -> str | None:
        """An event in the game's words for the game log (None: the log's plain reading will do); ``names``:
        each vehicle's words by its id (:meth:`timeline_vehicle_names`)."""
        return timeline_words(event, names)

    def timeline_vehicle_names(self, state: ThunderRoadState) -> dict[str, str]:
        """Each vehicle's id → its words for the game log ("Ana/small" → "Ana's small car")."""
        return timeline_vehicle_names(state)


GAME = ThunderRoad()
#: The keys of a setup file's top level.
SETUP_KEYS = setup.SETUP_KEYS

__all__ = [
    "DIE_TYPES", "EXAMPLE_SETUP", "GAME", "SETUP_KEYS", "PlayerView", "Step",
    "ThunderRoadState", "VehicleView",
]
