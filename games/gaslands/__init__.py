"""Gaslands: Refuelled, as a pure, event-sourced rules engine.  ``GAME`` plugs into :mod:`games.core`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core import Command, Decision, Event, Prompt
from games.core.table_input import Menu
from games.gaslands import log_words, menus, rules
from games.gaslands.chart import TEMPLATES, chart_contradictions, normalise_chart, template_status, vehicle_types
from games.gaslands.state import GaslandsState, PlayerView, Step, TemplateStatus

#: Dice this game reads from the table: name → faces.
DIE_TYPES: dict[str, list[Any]] = {
    # A skid die: SHIFT on three faces, HAZARD, SLIDE and SPIN on one each, no blank.
    "skid": ["SHIFT", "SHIFT", "SHIFT", "HAZARD", "SLIDE", "SPIN"],
    "d6": [1, 2, 3, 4, 5, 6],
}

EXAMPLE_SETUP = """\
# A Gaslands table: players in seating order (clockwise), each with their vehicles.
[scenario]
pole = "Alice"                       # who starts with pole position
pole_passing = "clockwise_each_phase"  # or "clockwise_every_gear_phase", "clockwise_each_round", "never"
skid_dice = "skid"                   # or "d6": plain d6 as skid dice (1 HAZARD, 2 SPIN, 3 SLIDE, 4-6 SHIFT)
push_it = true                       # re-roll skid dice once for a hazard token
flip_check = true                    # after losing control, the d6 flip check (false: the car is only turned)
# The smash attack dice a weight-class difference adds (+) or takes away (-): the rules file gives no numbers,
# so until your rulebook's are here a collision's count says "± weight" and the table adjusts it.
# [scenario.weight_dice]
# heavier_by_1 = 0
# heavier_by_2 = 0
# lighter_by_1 = 0
# lighter_by_2 = 0

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


class Gaslands:
    """The game declaration: start, decide, evolve, prompt, views."""

    name = "gaslands"
    #: each command → the fields it takes (see :class:`games.core.Game`)
    commands = rules.COMMAND_FIELDS

    def start(self, options: Mapping[str, Any]) -> Sequence[Event]:
        events = rules.start(options)
        state = rules.evolve(None, events[0])
        return [*events, *rules.first_offer(state).events]

    def evolve(self, state: GaslandsState | None, event: Event) -> GaslandsState:
        return rules.evolve(state, event)

    def decide(self, state: GaslandsState, command: Command) -> Decision:
        return rules.decide(state, command)

    def prompt(self, state: GaslandsState) -> Prompt:
        return rules.prompt(state)

    def views(self, state: GaslandsState) -> list[PlayerView]:
        return rules.views(state)

    def menu(self, state: GaslandsState) -> Menu:
        return menus.menu(state)

    def state_problem(self, state: GaslandsState) -> str | None:
        """What a state folded from an edited log holds that no play makes (None: nothing): a gear outside 1 to
        the vehicle's max gear, hazard tokens below 0, a hull above the vehicle's own (an audit: hits of -5 gave
        The Brick a hull of 17 of 12, played on without a word)."""
        for v in state.vehicles:
            if not 1 <= v.gear <= v.max_gear:
                return f"{v.name} is in gear {v.gear}, outside 1 to its max gear {v.max_gear}"
            if v.hazards < 0:
                return f"{v.name} has {v.hazards} hazard tokens"
            if not 0 <= v.hull <= v.max_hull:
                return f"{v.name} has hull {v.hull} of {v.max_hull}"
        act = state.activation
        if act is not None and act.template is not None and act.template not in TEMPLATES:
            return f"the active vehicle's template is {act.template!r}, not one of {', '.join(TEMPLATES)}"
        return None

    @staticmethod
    def setup_notes(options: Mapping[str, Any]) -> list[str]:
        """What a table beginning this (valid) setup should know before it plays: its chart's cells that say
        otherwise than the rules where they are certain (:func:`chart_contradictions`)."""
        chart = options.get("chart")
        changed = chart_contradictions(chart if isinstance(chart, Mapping) else None)
        if not changed:
            return []
        return [f"chart: {'; '.join(changed)}. The game plays the setup's chart (a house rule?); if a row was "
                "mistyped, correct it in the setup's [chart] or on the phone's Rule facts page"]

    def timeline_heading(self, state: GaslandsState) -> str:
        """Where the table was before a decision, as the game log (:mod:`device.web.timeline`) heads it: the
        round and the gear phase."""
        return f"Round {state.round} · gear phase {state.phase}"

    def timeline_words(self, event: Event, names: Mapping[str, str] | None = None) -> str | None:
        """An event in the rulebook's words for the game log and the screens' "UNDONE: …", each car by its name
        (``names``: id → name); None where the log's plain reading will do."""
        return log_words.timeline_words(event, names)


GAME = Gaslands()
#: The keys of a setup file's top level.
SETUP_KEYS = rules.SETUP_KEYS

__all__ = [
    "DIE_TYPES", "EXAMPLE_SETUP", "GAME", "SETUP_KEYS", "GaslandsState", "PlayerView", "Step", "TEMPLATES", "TemplateStatus",
    "normalise_chart", "template_status", "vehicle_types",
]
