"""Thunder Road — the automatic consequences: what the rules make happen after a command, with nobody
asking.

* ``fire_roll_required {vehicle}`` — a die went to a vehicle with ON FIRE!: "before that vehicle moves, its
  owner must roll the Fire die" [seed].
* ``turn_started {player}`` — every player still in the race has rolled, or a turn ended (the move
  reported with no bump, the last bump placed, a pass, a vehicle burnt out): the turn goes to the next
  player in seat order who still has a die to use.
* ``round_ended {round}`` — nobody has a die left to use: the round is over and everyone rolls again.
* ``race_won {player, reason}`` — ``"finish_line"``: "Moving onto the finish line of the final tile ends
  the game: that player wins." [seed]; ``"last_standing"``: "last player standing wins" [V] (checked when
  the road scrolls, when the table rules a vehicle out and when a turn ends).

``decide`` records them as events after the command's own (:func:`follow_up`, on a :class:`Draft` that
folds each event at once, so a later consequence sees the earlier ones), and ``evolve`` only applies them.
Logs written before they were events (version 1, see :data:`~games.thunder_road.state.EVENTS_VERSION`)
hold only the commands' events: ``evolve`` draws the same consequences for those logs from the same
function here, so an old game folds as it was played.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import Decision, Event

from games.thunder_road.state import FireEffect, Player, Step, ThunderRoadState

Fold = Callable[[ThunderRoadState, Event], ThunderRoadState]

#: The consequence events (none of them has consequences of its own).
CONSEQUENCES = ("fire_roll_required", "turn_started", "round_ended", "race_won")


class Draft:
    """Events under construction, each folded at once so that later consequences see its effect."""

    def __init__(self, state: ThunderRoadState, fold: Fold) -> None:
        self.state = state
        self.events: list[Event] = []
        self._fold = fold

    def emit(self, kind: str, /, **data: Any) -> ThunderRoadState:
        return self.add(Event(kind, data))

    def add(self, event: Event) -> ThunderRoadState:
        self.events.append(event)
        self.state = self._fold(self.state, event)
        return self.state

    def done(self) -> Decision:
        return Decision(tuple(self.events))


def follow_up(draft: Draft, event: Event) -> None:
    """Emit on ``draft`` what the rules make follow ``event`` (already folded into ``draft.state``)."""
    t, d = event.type, event.data
    if t in ("die_assigned", "coasted"):
        if draft.state.vehicle(d["vehicle"]).on_fire:
            draft.emit("fire_roll_required", vehicle=d["vehicle"])
    elif t == "dice_rolled":
        s = draft.state
        if all(p.rolled for p in s.players if s.standing(p.name)):
            _next_turn(draft, None)
    elif t in ("passed", "turn_ended"):
        _end_turn(draft)
    elif t == "moved":
        if not d["collisions"]:
            _end_turn(draft)
    elif t == "bump_placed":
        if not draft.state.bumps:
            _end_turn(draft)
    elif t == "fire_rolled":
        if d["effect"] == FireEffect.ELIMINATE.value:
            _end_turn(draft)
    elif t == "board_scrolled":
        _last_standing(draft)
    elif t == "ruled_out":
        _ruled_out(draft)
    elif t == "finished":
        draft.emit("race_won", player=d["player"], reason="finish_line")


def _last_standing(draft: Draft) -> bool:
    """"Last player standing wins" [V]: True when the race is over."""
    s = draft.state
    standing = [p.name for p in s.players if s.standing(p.name)]
    if len(standing) > 1:
        return False
    draft.emit("race_won", player=standing[0] if standing else None, reason="last_standing")
    return True


def _ruled_out(draft: Draft) -> None:
    """A vehicle ruled out between moves: the race may be over; the roll may be complete without its player's dice
    (their last vehicle gone); the turn goes on when its player has nothing left to use a die on."""
    if _last_standing(draft):
        return
    s = draft.state
    if s.step is Step.ROLL:
        if any(p.rolled for p in s.players) and all(p.rolled for p in s.players if s.standing(p.name)):
            _next_turn(draft, None)
    elif s.turn is not None and not s.standing(s.turn.player):
        _next_turn(draft, s.player(s.turn.player).seat)


def _end_turn(draft: Draft) -> None:
    if _last_standing(draft):
        return
    s = draft.state
    _next_turn(draft, s.player(s.turn.player).seat if s.turn else None)


def _has_a_die_to_use(state: ThunderRoadState, p: Player) -> bool:
    return state.standing(p.name) and not p.passed and bool(p.dice)


def _next_turn(draft: Draft, after_seat: int | None) -> None:
    """Hand the turn on in seat order (from the round's first player when ``after_seat`` is None), or end
    the round when nobody has a die left to use."""
    s = draft.state
    n = len(s.players)
    start = s.first if after_seat is None else after_seat + 1
    for i in range(n):
        p = s.players[(start + i) % n]
        if _has_a_die_to_use(s, p):
            draft.emit("turn_started", player=p.name)
            return
    draft.emit("round_ended", round=s.round)
