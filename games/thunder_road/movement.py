"""Thunder Road — the move, the road scrolling and the finish line.

The table moves the model and reports ``move`` with ``occupied``: the spaces (counted 1, 2, ... along the
path) that held another road vehicle when the mover reached them, and which vehicle was there.  The
companion applies the collision rule: every occupied space reached is a collision, except that a Drift
passes the first one — and ending the move on an occupied space collides anyway, even when that is the
first one [seed].  Each collision stacks two vehicles: a bump to resolve (:mod:`games.thunder_road.bumps`).
``met`` reports one vehicle met on the way before the move (the buttons enter a move through two or more
vehicles one vehicle at a time); ``move`` counts those first.

"When a vehicle leaves the front of the board and the lead tile was not the final tile: remove the rear
tile (vehicles on it are eliminated), slide the tiles back, draw a new lead tile ...  Moving onto the finish
line of the final tile ends the game: that player wins." [seed]  Any vehicle: one a bump moves forward off
the lead tile scrolls the road too, before it is placed.  The win itself, like the last player
standing after a scroll, is a consequence (:mod:`games.thunder_road.consequences`).
"""

from __future__ import annotations

from collections.abc import Mapping

from games.core import Command, Event, Illegal, fields

from games.thunder_road.common import (
    MAX_SPACES,
    allowance_known,
    needs_step,
    refuse_while_named_off,
    resolve_vehicle,
    vehicle_words,
)
from games.thunder_road.state import Step, ThunderRoadState


def decide_move(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.MOVE)
    turn = state.turn
    assert turn is not None and turn.vehicle is not None and turn.allowance is not None
    mover = turn.vehicle
    refuse_while_named_off(state)
    spaces = command.get("spaces", turn.allowance)
    if isinstance(spaces, bool) or not isinstance(spaces, int) or not 0 <= spaces <= MAX_SPACES:
        raise Illegal("spaces must be how many spaces the vehicle moved (a whole number)")
    if allowance_known(state) and spaces > turn.allowance:
        raise Illegal(
            f"{vehicle_words(state, mover)} may move at most {turn.allowance} space{'' if turn.allowance == 1 else 's'} "
            f"this turn, not {spaces}"
        )
    occupied = command.get("occupied", [])
    if not isinstance(occupied, list):
        raise Illegal('occupied must be a list like [{"at": 3, "vehicle": "Ben/large"}]')
    # the vehicles reported met one at a time (``met``) come first (one since taken off the road, the rear tile
    # removed, is no longer there to hit, but its space was still the first a Drift passed)
    path = list(turn.met)
    if turn.met and spaces < turn.met[-1][0]:
        reached, vid = turn.met[-1]
        raise Illegal(f"{vehicle_words(state, mover)} met {vehicle_words(state, vid)} at space {reached}: it moved "
                      f"at least {reached} space{'' if reached == 1 else 's'}, not {spaces}")
    last = turn.met[-1][0] if turn.met else 0
    for entry in occupied:
        if not isinstance(entry, Mapping):
            raise Illegal('each occupied space is {"at": SPACE, "vehicle": "Ben/large"}')
        fields.only_keys(entry, ("at", "vehicle"), "an occupied space", noun="field")
        at = entry.get("at")
        if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= spaces:
            raise Illegal(f"occupied space at={at!r}: count the spaces of the move from 1 to {spaces}")
        if at <= last:
            raise Illegal("list the occupied spaces in the order the vehicle reached them, each once"
                          + (f" (after space {last}, met already)" if turn.met and at <= turn.met[-1][0] else ""))
        vid = _met_vehicle(state, entry.get("vehicle"), at, path)
        last = at
        path.append((at, vid))
    drift = "drift" in turn.commands
    collisions: list[str] = []
    passed: str | None = None
    for i, (at, vid) in enumerate(path):
        ends_here = at == spaces
        if drift and i == 0 and not ends_here:
            passed = vid  # "passes through the first space it reaches that holds another road vehicle"
            continue
        if not state.vehicle(vid).eliminated:
            collisions.append(vid)  # ending on an occupied space "hits it anyway"
    return [Event("moved", {"vehicle": mover, "spaces": spaces, "collisions": collisions, "passed": passed})]


def _met_vehicle(state: ThunderRoadState, ref: object, at: int, path: list[tuple[int, str]]) -> str:
    """The vehicle ``ref`` met at space ``at`` of the move, after ``path``: on the road, not the mover, not met
    already."""
    assert state.turn is not None
    vid = resolve_vehicle(state, ref)
    if vid == state.turn.vehicle:
        raise Illegal("the moving vehicle cannot be in its own way")
    if state.vehicle(vid).eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated: it is not on the road")
    met = next((where for where, other in path if other == vid), None)
    if met is not None:
        raise Illegal(
            f"{vehicle_words(state, vid)} stands on one space: it cannot be met at space {met} and again at space {at}"
        )
    return vid


def decide_met(state: ThunderRoadState, command: Command) -> list[Event]:
    """One vehicle met on the way, reported before the move (the buttons report a move through two or more
    vehicles so, one at a time): the space it stood on (counted 1, 2, ... along the move) and which vehicle.
    The move itself, reported after, ends beyond it or on the last one met; a vehicle met where the move ends
    is reported with the move (``occupied``)."""
    needs_step(state, Step.MOVE)
    turn = state.turn
    assert turn is not None and turn.vehicle is not None and turn.allowance is not None
    at = command.get("at")
    last = turn.met[-1][0] if turn.met else 0
    if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= MAX_SPACES:
        raise Illegal(f"at={at!r}: the space the vehicle was met on, counted along the move from 1")
    if at <= last:
        _, before = turn.met[-1]
        raise Illegal(f"{vehicle_words(state, before)} was met at space {last}: a vehicle met after it stood "
                      f"further on (space {last + 1} or more)")
    if allowance_known(state) and at > turn.allowance:  # (an audit: space 5 of a 2-space move was "where it ends")
        raise Illegal(f"{vehicle_words(state, turn.vehicle)} moves at most {turn.allowance} space"
                      f"{'' if turn.allowance == 1 else 's'}: a vehicle at space {at} is beyond the move, not met")
    if allowance_known(state) and at == turn.allowance:
        raise Illegal(f"{vehicle_words(state, turn.vehicle)} moves at most {turn.allowance} space"
                      f"{'' if turn.allowance == 1 else 's'}: a vehicle at space {at} is met where the move ends — "
                      "report it with the move (ended on it)")
    vid = _met_vehicle(state, command.get("vehicle"), at, list(turn.met))
    return [Event("vehicle_met", {"vehicle": vid, "at": at, "mover": turn.vehicle})]


def _rear_vehicle(state: ThunderRoadState, ref: object) -> str:
    assert state.turn is not None
    vid = resolve_vehicle(state, ref)
    if state.step is Step.PLACE:  # a bump moved one of the two stacked vehicles off the front
        b = state.bumps[0]
        if vid in (b.a, b.b):
            raise Illegal(f"{vehicle_words(state, vid)} is one of the two stacked vehicles the bump moves: it is "
                          "not on the rear tile")
        if vid in bumped_vehicles(state):  # where the mover went: a bump still to resolve, not the rear tile
            raise Illegal(f"{vehicle_words(state, vid)} has a bump still to resolve where the move went: it is not "
                          "on the rear tile")
    elif vid == state.turn.vehicle:
        raise Illegal(f"{vehicle_words(state, vid)} is the vehicle leaving the front: it is not on the rear tile")
    if state.vehicle(vid).eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} was already eliminated")
    return vid


def bumped_vehicles(state: ThunderRoadState) -> tuple[str, ...]:
    """The mover and every vehicle of a bump still to resolve: where the move went, never on the rear tile a
    scroll removes (one eliminated so would leave a bump against a vehicle off the road)."""
    assert state.turn is not None
    out = [state.turn.vehicle] if state.turn.vehicle else []
    for b in state.bumps:
        out += [b.a, b.b]
    return tuple(dict.fromkeys(out))


def _no_more_scrolls(state: ThunderRoadState) -> None:
    if state.step is Step.PLACE and state.bumps[0].scrolled:
        raise Illegal("the road has scrolled for this bump: place the bumped vehicle on the new lead tile")
    if state.board.lead_is_final:
        # placing a bumped vehicle: on the final tile, or over its line, which the table rules a win or not (the
        # rules do not say; docs/RULINGS.md)
        then = ("place the bumped vehicle on it, or, if the bump took it over the finish line and the table rules "
                "that a win, finish with that vehicle" if state.step is Step.PLACE
                else "a vehicle reaching its finish line wins (finish)")
        raise Illegal(f"the lead tile is the final tile: the road does not scroll any more — {then}")


def decide_off(state: ThunderRoadState, command: Command) -> list[Event]:
    """One vehicle on the rear tile the coming scroll removes ("remove the rear tile (vehicles on it are
    eliminated)"), named before the scroll: the buttons name three or more so, one at a time; the scroll then
    eliminates them with any it lists itself."""
    needs_step(state, Step.MOVE, Step.PLACE)
    assert state.turn is not None
    _no_more_scrolls(state)
    vid = _rear_vehicle(state, command.get("vehicle"))
    if vid in state.turn.off_rear:
        raise Illegal(f"{vehicle_words(state, vid)} is already named as on the rear tile")
    return [Event("rear_named", {"vehicle": vid})]


def decide_scroll(state: ThunderRoadState, command: Command) -> list[Event]:
    """The road scrolls when a vehicle leaves the front: the mover (its move), or a vehicle the bump dice move
    forward off the lead tile ("When a vehicle leaves the front of the board" [seed]: any vehicle); the bumped
    vehicle is then placed on the new lead tile (``placed``)."""
    needs_step(state, Step.MOVE, Step.PLACE)
    assert state.turn is not None
    _no_more_scrolls(state)
    refs = command.get("eliminated", [])
    if not isinstance(refs, list):
        raise Illegal('eliminated must list the vehicles on the rear tile, e.g. ["Ben/small"] (or [])')
    out: list[str] = list(state.turn.off_rear)  # named one at a time before it (``off``)
    for ref in refs:
        vid = _rear_vehicle(state, ref)
        if vid not in out:
            out.append(vid)
    new_lead = state.board.lead + 1
    return [Event("board_scrolled", {"eliminated": out, "lead": state.board.tiles[new_lead], "rear": state.board.tiles[state.board.rear]})]


def decide_finish(state: ThunderRoadState, command: Command) -> list[Event]:
    """"Moving onto the finish line of the final tile ends the game: that player wins." [seed]  The moving vehicle
    (its move); or, placing a bump, one of the two bumped vehicles the dice took over the line, when the table rules
    that a win: the rules speak of a move and say nothing of bumps there, so the companion neither refuses it nor
    offers it as certain (a rules audit: it was refused in code).  Its owner wins."""
    needs_step(state, Step.MOVE, Step.PLACE)
    assert state.turn is not None
    if not state.board.lead_is_final:
        tile = state.board.tiles[state.board.lead]
        raise Illegal(
            f"the lead tile ({tile}) is not the final tile: leaving the front scrolls the road (scroll), it "
            "does not finish the race"
        )
    if state.step is Step.MOVE:
        return [Event("finished", {"player": state.turn.player, "vehicle": state.turn.vehicle})]
    b = state.bumps[0]
    if command.get("vehicle") is None:
        raise Illegal(f"name the bumped vehicle that went over the finish line: {vehicle_words(state, b.a)} or "
                      f"{vehicle_words(state, b.b)} (vehicle)")
    vid = resolve_vehicle(state, command.get("vehicle"))
    if vid not in (b.a, b.b):
        raise Illegal(f"the bump moves one of the two stacked vehicles over the line: {vehicle_words(state, b.a)} or "
                      f"{vehicle_words(state, b.b)}, not {vehicle_words(state, vid)}")
    return [Event("finished", {"player": state.vehicle(vid).owner, "vehicle": vid, "bumped": True})]
