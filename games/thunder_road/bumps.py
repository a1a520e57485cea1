"""Thunder Road — bumps (chocs).

"When two vehicles share a space, roll the bump die and the direction die: they say which vehicle moves and
where.  If one vehicle is larger, its owner may ask for one re-roll of both dice.  Keep resolving bumps,
chain bumps included, until every space holds one vehicle." [seed]  The table rolls and places the models;
the companion keeps the queue of bumps still to resolve (a chain bump joins the front) and the one re-roll
right of the larger vehicle's owner.  Unknown sizes do not take that right away.  A vehicle the dice move
forward off the lead tile leaves the front: the road scrolls (``scroll``, :mod:`games.thunder_road.movement`)
before it is placed.
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Event, Illegal

from games.thunder_road.common import face_of, needs_step, refuse_while_named_off, resolve_vehicle, vehicle_words
from games.thunder_road.state import Bump, Step, ThunderRoadState


def current_bump(state: ThunderRoadState) -> Bump:
    return state.bumps[0]


def decide_bump(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.BUMP)
    bump = face_of(state, "bump", command.get("bump"))
    direction = face_of(state, "direction", command.get("direction"))
    return [Event("bump_rolled", {"bump": bump, "direction": direction})]


def larger_owner(state: ThunderRoadState, bump: Bump) -> tuple[str | None, str]:
    """(owner of the larger vehicle or None, why).  Unknown sizes do not take the right away; two vehicles
    of one kind (two bikes, two Big Rigs) are the same size whatever that size is."""
    ka, kb = state.kind_of(bump.a), state.kind_of(bump.b)
    if ka.name == kb.name:
        return None, "same"
    if ka.size is None or kb.size is None:
        return None, "unknown"
    if ka.size == kb.size:
        return None, "same"
    bigger = bump.a if ka.size > kb.size else bump.b
    return state.vehicle(bigger).owner, "known"


def pair_owners(state: ThunderRoadState, bump: Bump) -> list[str]:
    """The owners of the two stacked vehicles (one name when one player owns both): while the sizes are
    unknown, either may ask for the re-roll."""
    return list(dict.fromkeys(state.vehicle(vid).owner for vid in (bump.a, bump.b)))


def reroll_owners(state: ThunderRoadState, bump: Bump) -> list[str]:
    """Who may still ask for the bump's one re-roll: the larger vehicle's owner, either owner while the sizes
    are unknown, nobody for vehicles of one size or a bump re-rolled already."""
    owner, why = larger_owner(state, bump)
    if bump.rerolled or bump.scrolled or why == "same" or (state.turn is not None and state.turn.off_rear):
        return []
    return [owner] if owner else pair_owners(state, bump)


def decide_reroll(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.PLACE)
    refuse_while_named_off(state)
    b = current_bump(state)
    if b.rerolled:
        raise Illegal("this bump was already re-rolled once: place the vehicle as the dice say")
    if b.scrolled:
        raise Illegal("the road has scrolled as these dice said: place the bumped vehicle on the new lead tile "
                      "(undo the scroll to re-roll)")
    owner, why = larger_owner(state, b)
    if why == "same":
        raise Illegal(
            f"{vehicle_words(state, b.a)} and {vehicle_words(state, b.b)} are the same size: neither owner may re-roll"
        )
    who = command.get("player")
    if owner is not None and who is not None and who != owner:
        raise Illegal(f"only {owner}, owner of the larger vehicle, may ask for the re-roll")
    owners = pair_owners(state, b)
    if owner is None and who is not None and who not in owners:  # sizes unknown: either owner, nobody else
        plural = "s" if len(owners) > 1 else ""
        raise Illegal(f"only {' or '.join(owners)}, owner{plural} of the stacked vehicles, may ask for the re-roll")
    bump = face_of(state, "bump", command.get("bump"))
    direction = face_of(state, "direction", command.get("direction"))
    return [Event("bump_rerolled", {"bump": bump, "direction": direction})]


def decide_placed(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.PLACE)
    b = current_bump(state)
    refuse_while_named_off(state)  # named for the scroll of a vehicle bumped off the front
    moved = resolve_vehicle(state, command.get("moved"))
    if moved not in (b.a, b.b):
        raise Illegal(f"the bump moves one of the two stacked vehicles: {vehicle_words(state, b.a)} or "
                      f"{vehicle_words(state, b.b)}")
    onto = command.get("onto")
    data: dict[str, Any] = {"moved": moved, "onto": None}
    if onto is not None and b.scrolled:
        raise Illegal(f"the road scrolled for this bump: {vehicle_words(state, moved)} goes onto the new lead tile, "
                      "where no vehicle stands yet (no chain bump)")
    if onto is not None:
        target = resolve_vehicle(state, onto)
        if target == moved:
            raise Illegal("a vehicle cannot land on itself")
        if target in (b.a, b.b):  # the other vehicle of the pair: the dice move the vehicle off their space
            mw, tw = vehicle_words(state, moved), vehicle_words(state, target)
            raise Illegal(f"the bump moves {mw} off the space it shares with {tw}: it cannot land on {tw} again")
        if state.vehicle(target).eliminated:
            raise Illegal(f"{vehicle_words(state, target)} has been eliminated: it is not on the road")
        data["onto"] = target
    return [Event("bump_placed", data)]
