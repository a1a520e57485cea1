"""The Space Race on the buttons: ``menu(state)`` says what the table can do now (games.core.table_input).

::

    between turns   Begin turn 4 (default) · Event: advance → USA / USSR → With box VP / No VP (card says)
    during a turn   USA attempt → 2 Ops / 3 Ops / 4 Ops · USSR attempt → ... · End turn
                    · Extra attempt (event) → USA / USSR · Event: advance → USA / USSR → …
    a die awaited   Roll the die (the d6; the camera answers it as well)

Why an attempt is side → Ops and not one long list ("USSR 3 ops", "USA 2 ops" ...): the side is what the
table knows first, and only the card values the next box accepts are offered (box 5 needs 3 Ops: 3 Ops and
4 Ops).  The die is never part of the attempt's leaf: it is rolled after the card is played and the camera
reads it, so the menu that follows an attempt awaits it (``Menu.dice``) and offers it as its default.

Every leaf is checked against the rules (``keep_legal`` through ``GAME.decide``): a side with no attempt
left this turn, or on the last box, has no attempt in the menu.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games.core import Command
from games.core.table_input import accepted_by, Choice, DiceRequest, Menu, branch, keep_legal, leaf, roll
from games.space_race.rules import GAME, MAX_OPS
from games.space_race.state import SIDES, SpaceRaceState

ROLL_LABEL = "Roll the die"


def _legal(state: SpaceRaceState) -> Callable[[Command], bool]:
    return accepted_by(GAME.decide, state)


def _roll_command(faces: Sequence[Any]) -> Command | None:
    """One d6 → ``roll {die}`` (the rules check the face); any other count of dice makes no command."""
    return Command("roll", {"die": faces[0]}) if len(faces) == 1 else None


def die_request(side: str | None = None, box: int | None = None) -> DiceRequest:
    """The d6 of an attempt, as the camera and the dice entry answer it; labelled with whose attempt and
    for which box when known ("USA d6, box 3")."""
    label = f"{side} d6, box {box}" if side is not None and box is not None else "d6"
    return DiceRequest(die="d6", count=1, label=label, build=_roll_command)


def _sides(kind: str) -> list[Choice]:
    # taken, the cursor does not stay on the side: one more OK granted a second extra attempt (a walkthrough)
    return [leaf(s, Command(kind, {"side": s}), once=True) for s in SIDES]


def _advances() -> list[Choice | None]:
    """An event's advance, each side, scored as usual (the default) or with no VP: the table's entry for an
    event that says it scores only the last box it moves into (a box it passes on the way); which events do is
    the card's text, not this file's."""
    return [branch(s, [leaf("With box VP", Command("event_advance", {"side": s}), default=True, once=True),
                       leaf("No VP (card says)", Command("event_advance", {"side": s, "vp": False}), once=True)])
            for s in SIDES]


def _likeliest_attempt(state: SpaceRaceState) -> str | None:
    """The side whose attempt is likeliest next: the one with more attempts left this turn; on equal terms
    the USSR, who plays first in each action round."""
    able = [s for s in SIDES if state.attempts_left(s) > 0]
    if not able:
        return None
    return max(reversed(able), key=lambda s: state.attempts_left(s))


def menu(state: SpaceRaceState) -> Menu:
    legal = _legal(state)
    boxes = f"Boxes: USA {state.side('USA').box} USSR {state.side('USSR').box}"
    if state.pending is not None:
        nxt = state.next_box(state.pending.side)
        assert nxt is not None
        request = die_request(state.pending.side, nxt.number)
        # the title says the card's event does not happen ("A card played to the Space Race never triggers its
        # event"): the roller's screen said it nowhere, the idle dashboard alone did
        return Menu(title="Roll d6 · no event", choices=(roll(ROLL_LABEL, request, default=True),), advance=(ROLL_LABEL,),
                    player=state.pending.side, status=f"Box {nxt.number}: {nxt.roll_text} succeeds", dice=request)
    if not state.in_turn:
        choices = keep_legal([
            leaf(f"Begin turn {state.turn + 1}", Command("begin_turn"), default=True),
            branch("Event: advance", _advances()),
        ], legal)
        return Menu(title="Between turns", choices=choices, status=boxes).with_advance(f"Begin turn {state.turn + 1}")
    likely = _likeliest_attempt(state)
    attempts = []
    for side in SIDES:
        nxt = state.next_box(side)
        need = nxt.ops if nxt is not None else MAX_OPS
        # the box the attempt is for: the list offers only the cards it takes ("2 Ops" missing, a walkthrough
        # found nothing saying why while the menu covered the dashboard's "next 3+ Ops")
        attempts.append(branch(f"{side} attempt{'' if nxt is None else f' · box {nxt.number}'}", [
            leaf(f"{ops} Ops", Command("attempt", {"side": side, "ops": ops}), default=ops == need)
            for ops in range(1, MAX_OPS + 1)
        ], default=side == likely))
    choices = keep_legal([
        *attempts,
        leaf("End turn", Command("end_turn"), default=likely is None),
        branch("Extra attempt (event)", _sides("grant_attempt")),
        branch("Event: advance", _advances()),
    ], legal)
    # "attempts", the rulebook's word ("two Space Race attempts per turn"; "Tries" was our own)
    status = f"Attempts USA {state.attempts_left('USA')} USSR {state.attempts_left('USSR')}"
    # the roll's verdict, until the next card or extra attempt (a failure changes nothing else; the box is on the
    # dashboard), while the side that rolled has no attempt left: an extra attempt (event) or box 2's second attempt
    # was on no screen while the verdict stood (an audit)
    if state.last_roll is not None and state.attempts_left(state.last_roll[0]) == 0:
        side, die, success = state.last_roll
        status = f"{side} die {die}: {'success' if success else 'failure'}"  # (the game log's words too)
    if all(state.next_box(s) is None for s in SIDES):  # the menu said nothing of it: only the idle dashboard
        status = "Space Race over"
    menu = Menu(title=f"Turn {state.turn}", choices=choices, status=status)
    # no attempt is left to either side: ending the turn is the step's usual way on (NEXT said "Choose")
    return menu.with_advance("End turn") if likely is None else menu
