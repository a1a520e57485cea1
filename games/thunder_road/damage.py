"""Thunder Road — damage tokens and Fire spaces, recorded whenever they happen; a vehicle the table rules out
of the race between moves.

"A car that takes damage draws a damage token face down into a damage slot; a car with two damage tokens is
out of service (inoperable)." [seed]  "The Big Rig and the Final Five bikes take minor damage: the token
fills a slot but has no effect."
"""

from __future__ import annotations

from games.core import Command, Event, Illegal, fields

from games.thunder_road.common import resolve_vehicle, vehicle_words
from games.thunder_road.state import Step, ThunderRoadState


def decide_damage(state: ThunderRoadState, command: Command) -> list[Event]:
    if state.step is Step.GAME_OVER:
        raise Illegal("the race is over")
    vid = resolve_vehicle(state, command.get("vehicle"))
    v, kind = state.vehicle(vid), state.kind_of(vid)
    if v.eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated")
    on_fire = fields.boolean(command.args, "on_fire", False, command.type)
    if kind.damage_slots is not None and v.damage >= kind.damage_slots:
        raise Illegal(
            f"{vehicle_words(state, vid)} has {_filled(kind.damage_slots)} filled: no slot for another token"
        )
    # Whether an ON FIRE! damage token sets a vehicle that takes minor damage ("fills a slot but has no
    # effect") on fire is not certain in the seed: the kind's damage_fire says (data); unknown, the table's
    # entry decides (the menu offers the ON FIRE! token, and a plain token for a table that rules otherwise).
    return [Event("damaged", {"vehicle": vid, "on_fire": on_fire and kind.damage_fire is not False})]


def decide_ignite(state: ThunderRoadState, command: Command) -> list[Event]:
    if state.step is Step.GAME_OVER:
        raise Illegal("the race is over")
    vid = resolve_vehicle(state, command.get("vehicle"))
    v = state.vehicle(vid)
    if v.eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated")
    if v.on_fire:
        raise Illegal(f"{vehicle_words(state, vid)} is already ON FIRE!")
    return [Event("ignited", {"vehicle": vid})]


#: The steps in which the table may rule a vehicle out of the race: between moves (a move, a Fire die or a bump in
#: hand is finished first: the bump's placing is where a vehicle goes over the board's edge).
RULING_STEPS = (Step.ROLL, Step.TURN)


def decide_eliminate(state: ThunderRoadState, command: Command) -> list[Event]:
    """The table rules a vehicle out of the race.  The sources eliminate a vehicle with the rear tile (the
    scroll) and by the Fire die only; one bumped off the board's side or rear, say, is out by the owner's
    rulebook, which the companion does not guess: without this the vehicle stayed in play, a die had to go to
    it and it kept its player standing (a rules audit)."""
    if state.step is Step.GAME_OVER:
        raise Illegal("the race is over")
    vid = resolve_vehicle(state, command.get("vehicle"))
    if state.vehicle(vid).eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated already")
    if state.step not in RULING_STEPS:
        raise Illegal(f"a vehicle is ruled out of the race between moves: first finish this step "
                      f"({state.step.value}), then rule it out")
    return [Event("ruled_out", {"vehicle": vid})]


def _filled(slots: int) -> str:
    """The filled slots in words: "both damage slots", "its one damage slot", "all 3 damage slots"."""
    if slots == 1:
        return "its one damage slot"
    return f"{'both' if slots == 2 else f'all {slots}'} damage slots"
