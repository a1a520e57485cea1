"""Thunder Road — a turn: the round's movement dice, a die to an unmoved vehicle, the coast, the
command board (and the Big Rig's sections), passing, and the Road die.

"On your turn you must assign one unused movement die to an operable road vehicle you have not moved this
round.  If you have no such vehicle, you may instead assign a die to the coast (roue libre) space of a
vehicle you already moved — at most twice per vehicle per round; a coast counts as a move of 1.  Once per
round you may also assign an unused movement die to a command on your command board — but not on a turn in
which you coast." [seed]

Each decider checks one command and returns its own event; what follows from it (the Fire die due, the
next turn, the end of the round) is added by :mod:`games.thunder_road.consequences`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core import Command, Event, Illegal

from games.thunder_road.common import (
    board_command_this_turn,
    dice_words,
    face_of,
    movement_die,
    needs_step,
    own_words,
    nitro_bonus,
    resolve_vehicle,
    turn_player,
    vehicle_words,
)
from games.thunder_road.state import MAX_COASTS, MOVEMENT_DICE, Step, ThunderRoadState, Vehicle


def decide_roll(state: ThunderRoadState, command: Command) -> list[Event]:
    """The round's movement dice, one player's or several players' at once (``first``: who goes first)."""
    if state.step is not Step.ROLL:
        raise Illegal(
            f"every player still in the race has rolled for round {state.round}: the next roll comes when "
            "the round ends"
        )
    first = command.get("first")
    if first is not None:
        if first not in [p.name for p in state.players]:
            raise Illegal(f"first: {first!r} is not a player")
        if not state.standing(first):
            raise Illegal(f"{first} has no vehicle left in the race and cannot go first")
        if any(p.rolled for p in state.players):
            raise Illegal("say who goes first with the first roll of the round")
    if "dice" in command.args and isinstance(command.get("dice"), Mapping):
        per_player = dict(command.get("dice"))
    else:
        who = command.get("player")
        if not isinstance(who, str):
            raise Illegal('say whose dice these are: {"type": "roll", "player": "Ana", "dice": [1, 2, 3, 4]}')
        per_player = {who: command.get("dice")}
    if not per_player:
        raise Illegal("no dice in the roll")
    events = []
    for who, dice in per_player.items():
        try:
            player = state.player(who)
        except KeyError:
            raise Illegal(f"{who!r} is not a player: {', '.join(p.name for p in state.players)}") from None
        if not state.standing(who):
            raise Illegal(f"{who} has no vehicle left in the race: no dice to roll")
        if player.rolled:
            raise Illegal(f"{who} already rolled this round ({dice_words(player.dice)}); undo to correct it")
        if not isinstance(dice, list) or len(dice) != MOVEMENT_DICE:
            raise Illegal(f"{who} rolls {MOVEMENT_DICE} movement dice: give 4 values, e.g. [1, 3, 4, 6]")
        events.append(Event("dice_rolled", {"player": who, "dice": [movement_die(d, "movement die") for d in dice]}))
    if first is not None:
        events[0] = Event("dice_rolled", {**events[0].data, "first": first})
    return events


def _die_for_own_vehicle(state: ThunderRoadState, command: Command, doing: str) -> tuple[str, int, str, Vehicle]:
    """On a turn: whose turn, the die named, and the vehicle named, which must be the player's own
    (``doing`` finishes the refusal: "assign your die to", "coast")."""
    needs_step(state, Step.TURN)
    who = turn_player(state, command)
    die = movement_die(command.get("die"))
    vid = resolve_vehicle(state, command.get("vehicle"), who)
    v = state.vehicle(vid)
    if v.owner != who:
        raise Illegal(f"{vehicle_words(state, vid)} is not yours: {doing} one of your own vehicles")
    return who, die, vid, v


def decide_assign(state: ThunderRoadState, command: Command) -> list[Event]:
    who, die, vid, v = _die_for_own_vehicle(state, command, "assign your die to")
    player = state.player(who)
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {dice_words(player.dice)}")
    if v.eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated")
    if state.out_of_service(vid):
        raise Illegal(
            f"{vehicle_words(state, vid)} is out of service ({v.damage} damage tokens): it cannot move until a "
            "Repair removes a token"
        )
    if v.moved:
        others = own_words(state, state.unmoved(who))
        if others:
            hint = f"assign your die to {others}"
        elif board_command_this_turn(state):  # the hint must not send the player to a refused coast
            hint = "a turn with a command cannot coast: end the turn, and coast on a later one"
        elif v.coasts >= MAX_COASTS:
            hint = f"it has coasted {MAX_COASTS} times this round, the limit"
        else:
            hint = f"coast it instead ({v.coasts} of {MAX_COASTS} coasts used)"
        raise Illegal(f"{vehicle_words(state, vid)} already moved this round: {hint}")
    return [Event("die_assigned", {"player": who, "vehicle": vid, "die": die})]


def decide_coast(state: ThunderRoadState, command: Command) -> list[Event]:
    who, die, vid, v = _die_for_own_vehicle(state, command, "coast")
    unmoved = state.unmoved(who)
    if unmoved:
        names = own_words(state, unmoved)
        raise Illegal(
            f"you still have a vehicle to move ({names}): assign a die to it; coasting is only for when "
            "every operable vehicle has moved"
        )
    assert state.turn is not None
    if board_command_this_turn(state):
        raise Illegal("you used a command this turn: a turn with a command cannot be a coast turn; end the "
                      "turn, and coast on a later one")
    player = state.player(who)
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {dice_words(player.dice)}")
    if v.eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated")
    if not v.moved:  # a coast is for "a vehicle you already moved" [seed]
        why = " and is out of service: a Repair puts it back in service, then a die moves it" \
            if state.out_of_service(vid) else ": assign a die to it"
        raise Illegal(f"{vehicle_words(state, vid)} has not moved this round{why} (a coast is for a vehicle "
                      "that already moved)")
    if state.out_of_service(vid):
        raise Illegal(f"{vehicle_words(state, vid)} is out of service: it cannot coast until a Repair removes a token")
    if v.coasts >= MAX_COASTS:
        raise Illegal(f"{vehicle_words(state, vid)} already coasted twice this round (the limit is 2 per vehicle)")
    return [Event("coasted", {"player": who, "vehicle": vid, "die": die})]


def decide_command(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.TURN, Step.MOVE)
    who = turn_player(state, command)
    turn = state.turn
    assert turn is not None
    name = command.get("name", command.get("command"))
    known = [c.name for c in state.tables.commands]
    if name not in known:
        named = ", ".join(f"{c.label} ({c.name})" for c in state.tables.commands)  # (the printed names; an audit)
        raise Illegal(f"unknown command {name!r}: the commands are {named}")
    rule = state.tables.command(name)
    die = movement_die(command.get("die"))
    player = state.player(who)
    if turn.action == "coast" and rule.board == "command_board":  # a Big Rig section's goes with a coast
        raise Illegal(f"you are coasting this turn: no {rule.label} (a command cannot go with a coast)")
    if rule.board == "command_board" and player.command is not None:
        used = state.tables.command(player.command).label
        raise Illegal(f"you already used a command this round ({used}): one command per round")
    if name in turn.commands:
        raise Illegal(f"{rule.label} is already active this turn")
    if name == "drift" and turn.met:
        # "the vehicle passes through the first space it reaches that holds another road vehicle": a vehicle the
        # table already reported met on this move was reached without it, and stays hit (a rules audit: a Drift
        # taken after the hit turned the bump on the screens into a pass)
        at, vid = turn.met[0]
        raise Illegal(f"{rule.label} passes the first space the vehicle reaches that holds another vehicle, and "
                      f"it already hit {vehicle_words(state, vid)} at space {at}: a Drift is taken before the move")
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {dice_words(player.dice)}")
    if rule.dice is not None and die not in rule.dice:
        raise Illegal(f"{rule.label} takes a die of {dice_words(rule.dice)}, not a {die}")
    if rule.board == "big_rig":
        rigs = [v for v in state.fleet(who) if state.tables.kind(v.kind).cls == "big_rig" and not v.eliminated]
        if not rigs:
            raise Illegal(f"{rule.label} is a Big Rig command: you have no Big Rig in the race")
    if turn.action is None and len(player.dice) == 1 and state.unmoved(who):
        raise Illegal("keep your last die for your move: you still have a vehicle to move this turn")
    data: dict[str, Any] = {"player": who, "command": name, "die": die}
    if name == "nitro":  # the spaces it adds go into the event (None: unknown), so the fold reads no table
        bonus, bonus_known = nitro_bonus(state, die)
        data["adds_moves"] = bonus if bonus_known else None
    if rule.target == "mover" and turn.action is None and not state.unmoved(who):
        raise Illegal(
            f"{rule.label} works on the vehicle you move this turn, and you have none left to move "
            "(a coast turn cannot take a command)"
        )
    if rule.target == "own_vehicle":
        vid = resolve_vehicle(state, command.get("vehicle"), who)
        v = state.vehicle(vid)
        if v.owner != who:
            raise Illegal(f"{rule.label} works on your own vehicles, not on {vehicle_words(state, vid)}")
        if v.eliminated:
            raise Illegal(f"{vehicle_words(state, vid)} has been eliminated")
        if name == "repair" and v.damage == 0:
            raise Illegal(f"{vehicle_words(state, vid)} has no damage token for Repair to remove")
        data["vehicle"] = vid
    return [Event("command_used", data)]


def decide_pass(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.TURN)
    who = turn_player(state, command)
    unmoved = state.unmoved(who)
    # With no unused die left (the last one went to a command, a Repair that put a car back in service)
    # there is no die to assign: the turn can only end.
    if unmoved and state.player(who).dice:
        names = own_words(state, unmoved)
        raise Illegal(f"you must assign a die to a vehicle you have not moved: {names}")
    if command_turn_ends(state, who):
        return [Event("turn_ended", {"player": who})]
    return [Event("passed", {"player": who})]


def command_turn_ends(state: ThunderRoadState, who: str) -> bool:
    """A turn spent on a command alone, with nothing left to move: it cannot be a coast turn ("not on a turn
    in which you coast" [seed]), so it only ends; the player keeps the dice and the coasts left for later
    turns of the round (passing would have put them out of it)."""
    turn = state.turn
    return (turn is not None and turn.player == who and board_command_this_turn(state) and turn.action is None
            and not state.unmoved(who) and bool(state.player(who).dice) and bool(state.coastable(who)))


def decide_road(state: ThunderRoadState, command: Command) -> list[Event]:
    needs_step(state, Step.TURN, Step.MOVE)
    who = turn_player(state, command)
    assert state.turn is not None
    vid = resolve_vehicle(state, command.get("vehicle"), who)
    if state.vehicle(vid).owner != who:
        raise Illegal(f"{vehicle_words(state, vid)} is not yours")
    if state.vehicle(vid).eliminated:
        raise Illegal(f"{vehicle_words(state, vid)} has been eliminated: it is not on the road")
    # "rolled for the moving vehicle" (docs/RULINGS.md): one out of service, while "nothing left to move: pass"
    # stood, was offered the Road die and its roll recorded against it, meaning nothing (an audit)
    moving = state.turn.vehicle
    if moving is not None and vid != moving:
        raise Illegal(f"the Road die is rolled for the vehicle moving now, {vehicle_words(state, moving)}")
    if moving is None and vid not in {v.id for v in (*state.unmoved(who), *state.coastable(who))}:
        why = "is out of service" if state.out_of_service(vid) else "cannot move again this round"
        raise Illegal(f"{vehicle_words(state, vid)} {why}: the Road die is rolled for a vehicle that moves")
    if moving is None and (not state.player(who).dice or command_turn_ends(state, who)):
        # (a review: accepted in a command turn that cannot coast, and with no die left, then dropped at the pass)
        why = "has no movement die left" if not state.player(who).dice else "cannot coast in a command turn"
        raise Illegal(f"{who} {why}: the Road die is rolled for a vehicle that moves this turn")
    if state.kind_of(vid).cls == "big_rig" and "traction_drive" not in state.turn.commands:
        raise Illegal(
            "the Big Rig does not use the Road die unless its Traction Drive command is active this turn"
        )
    face = face_of(state, "road", command.get("face"))
    # (a face as the owner's dice.toml names it: renamed "one", int() of it was a traceback; an audit)
    number = face.isascii() and face.isdigit()  # ("²".isdigit() is True, and int() of it fails; a review)
    return [Event("road_rolled", {"vehicle": vid, "face": int(face) if number else face})]
