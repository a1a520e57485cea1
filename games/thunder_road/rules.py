"""Thunder Road: Vendetta (+ Maximum Chrome) — the rules: start, decide, evolve, prompt.

Sources: ``shared/rules/thunder-road.md`` and the French seed it summarises.  Rule facts the sources do not
give are data in ``data/*.toml`` marked "unknown"; an unknown fact never makes the companion refuse
anything (it cannot refuse on a rule it does not know) and never becomes a number in the code.

The rules live in one module per rule area; this module gathers what the rest of the program uses:

==========================================  ==============================================================
:mod:`games.thunder_road.tables`            the rule tables (``data/*.toml`` and the owner's overrides)
:mod:`games.thunder_road.setup`             the setup checked, the first event, the first state
:mod:`games.thunder_road.turn`              the movement dice, a die to a vehicle, coast, commands, pass,
                                            the Road die
:mod:`games.thunder_road.fire`              the Fire die and the table's ruling on a face not filled in
:mod:`games.thunder_road.movement`          the move report (collisions, Drift), the road scrolling, the
                                            finish line
:mod:`games.thunder_road.bumps`             the bump and direction dice, the larger vehicle's re-roll,
                                            chain bumps
:mod:`games.thunder_road.damage`            damage tokens and Fire spaces
:mod:`games.thunder_road.consequences`      what follows with nobody asking: the Fire die due, the next
                                            turn, the end of the round, the winner
:mod:`games.thunder_road.deciders`          ``decide``: a command's events, then their consequences
:mod:`games.thunder_road.evolve`            ``evolve``: a plain switch on event types (old logs aside)
:mod:`games.thunder_road.prompt`            what the table must do next
:mod:`games.thunder_road.menus`             the button menu (choices in the rules' words, the rolls awaited)
==========================================  ==============================================================

Design choices where the sources are silent (the README lists the commands):

* **Movement report.**  The table moves the model and reports ``move`` with ``occupied``: the spaces
  (counted 1, 2, ... along the path) that held another road vehicle when the mover reached them, and which
  vehicle was there.  The companion applies the collision rule: every occupied space reached is a
  collision, except that a Drift passes the first one — and ending the move on an occupied space collides
  anyway, even when that is the first one [seed].  Each collision stacks two vehicles: a bump to resolve.
  A vehicle met on the way may also be reported before the move, one at a time (``met``: the buttons
  report a move through two or more vehicles so); the move then counts them first.
* **Bumps.**  The table rolls the bump and direction dice and places the models; the companion keeps the
  queue of bumps still to resolve (chain bumps join the front of the queue) and the one re-roll right of
  the larger vehicle's owner.
* **Passing.**  "If you have no such vehicle, you *may* coast": a player with no operable unmoved vehicle
  may decline; ``pass`` then sets their remaining dice aside for the round (otherwise the turn order could
  never move on).  A player whose last die went to a command (a Repair putting a car back in service) has
  no die to assign and passes too.  But a turn spent on a command alone, with nothing left to move, cannot
  coast ("not on a turn in which you coast"): ``pass`` then only ends that turn (``turn_ended``), and the
  dice and coasts left wait for the player's next turn (menu: "End turn").
* **Unknown Fire-die face.**  The roll is recorded and the table rules on it with ``fire_ruling``; the
  prompt tells the owner to fill the face in ``fire_die.toml`` so the question is not asked again.
* **Consequences are events.**  The next turn (``turn_started``), the end of the round (``round_ended``),
  the Fire die due before a burning vehicle moves (``fire_roll_required``) and the winner (``race_won``)
  are recorded by ``decide`` after the command's own event, so replaying a log never re-runs a rule.  Logs
  written before (no ``events`` version in ``game_started``) still fold as they were played.
* **Refusals record nothing.**  A refused command (``assign``, ``coast``, ``command``, ``pass`` included)
  raises :class:`~games.core.Illegal` with the reason; the device shows it to the player whose step it
  was.  ``undo`` takes back the last accepted decision.  A command sent out of order is refused with what
  the table must do first, in the players' words ("Ana has not rolled yet: roll the movement dice first").
"""

from __future__ import annotations

from games.thunder_road.bumps import current_bump, decide_bump, decide_placed, decide_reroll, larger_owner
from games.thunder_road.common import (
    MAX_SPACES,
    dice_words,
    face_of,
    movement_die,
    needs_step,
    nitro_bonus,
    remove_die,
    replace_player,
    replace_vehicle,
    resolve_vehicle,
    turn_player,
    vehicle_words,
    what_first,
)
from games.thunder_road.consequences import CONSEQUENCES, Draft, follow_up
from games.thunder_road.damage import decide_damage, decide_ignite
from games.thunder_road.deciders import DECIDERS, decide
from games.thunder_road.evolve import RETIRED, evolve
from games.thunder_road.fire import decide_fire, decide_fire_ruling, fire_face_label
from games.thunder_road.movement import decide_finish, decide_met, decide_move, decide_scroll
from games.thunder_road.prompt import ANYTIME, command_possible, prompt
from games.thunder_road.setup import DEFAULT_FLEET, initial, normalise, start
from games.thunder_road.state import (
    COAST_SPACES,
    EVENTS_VERSION,
    MAX_COASTS,
    MOVEMENT_DICE,
    Board,
    Bump,
    CommandRule,
    FireEffect,
    FireFace,
    Player,
    Step,
    Tables,
    ThunderRoadState,
    Turn,
    Vehicle,
    VehicleKind,
)
from games.thunder_road.tables import UNKNOWN, load_table, merge_rows, packaged_tables, tables_from
from games.thunder_road.turn import (
    decide_assign,
    decide_coast,
    decide_command,
    decide_pass,
    decide_road,
    decide_roll,
)

# The helpers' names before the split, for code that still reaches them here.
_label = vehicle_words
_dice_words = dice_words
_die = movement_die
_face = face_of
_face_label = fire_face_label
_current_player = turn_player
_current_bump = current_bump
_nitro_bonus = nitro_bonus
_needs_step = needs_step
_replace_vehicle = replace_vehicle
_replace_player = replace_player
_remove_die = remove_die
_command_possible = command_possible
_initial = initial
_merge = merge_rows

__all__ = [
    "ANYTIME", "Board", "Bump", "COAST_SPACES", "CONSEQUENCES", "CommandRule", "DECIDERS",
    "DEFAULT_FLEET", "Draft", "EVENTS_VERSION", "FireEffect", "FireFace", "MAX_COASTS", "MAX_SPACES",
    "MOVEMENT_DICE", "Player", "RETIRED", "Step", "Tables", "ThunderRoadState", "Turn", "UNKNOWN", "Vehicle",
    "VehicleKind", "command_possible", "current_bump", "decide", "decide_assign", "decide_bump",
    "decide_coast", "decide_command", "decide_damage", "decide_finish", "decide_fire", "decide_fire_ruling",
    "decide_ignite", "decide_met", "decide_move", "decide_pass", "decide_placed", "decide_reroll", "decide_road",
    "decide_roll", "decide_scroll", "dice_words", "evolve", "face_of", "fire_face_label",
    "follow_up", "initial", "larger_owner", "load_table", "merge_rows", "movement_die",
    "needs_step", "nitro_bonus", "normalise", "packaged_tables",
    "prompt", "remove_die", "replace_player", "replace_vehicle", "resolve_vehicle", "start",
    "tables_from", "turn_player", "vehicle_words", "what_first",
]
