"""Thunder Road — ``prompt``: what the table must do next and the command types legal now (the button
menu is :mod:`games.thunder_road.menus`)."""

from __future__ import annotations

from games.core import Command, Illegal, Prompt

from games.thunder_road.bumps import larger_owner
from games.thunder_road.damage import RULING_STEPS
from games.thunder_road.common import (
    allowance_words,
    board_command_this_turn,
    dice_words,
    met_on_the_way,
    own_words,
    vehicle_words,
)
from games.thunder_road.state import MOVEMENT_DICE, Step, ThunderRoadState
from games.thunder_road.turn import command_turn_ends, decide_command, decide_road

#: Commands the table may send at any step of the race.
ANYTIME = ("damage", "ignite", "undo")


def _also(state: ThunderRoadState) -> tuple[str, ...]:
    """The commands of every step, and a vehicle ruled out of the race (``eliminate``) in the steps its decider
    takes it (``damage.RULING_STEPS``: between moves)."""
    return ANYTIME + (("eliminate",) if state.step in RULING_STEPS else ())


def road_possible(state: ThunderRoadState, who: str) -> bool:
    """Whether the Road die may be rolled now for one of ``who``'s vehicles (:func:`turn.decide_road`: the moving
    one, or before the move one that may move this turn; a Big Rig only with Traction Drive)."""
    faces = state.tables.faces("road")
    if not faces:
        return False
    face = faces[0]
    for v in state.fleet(who):
        try:
            decide_road(state, Command("road", {"vehicle": v.id, "face": face}))
        except Illegal:
            continue
        return True
    return False


def command_possible(state: ThunderRoadState, who: str) -> bool:
    """Whether some command (Nitro, Drift, Repair …) with some unused die is allowed now."""
    p = state.player(who)
    for rule in state.tables.commands:
        for die in set(p.dice):
            targets = [v.id for v in state.fleet(who)] if rule.target == "own_vehicle" else [None]
            for vid in targets:
                args = {"name": rule.name, "die": die, **({"vehicle": vid} if vid else {})}
                try:
                    decide_command(state, Command("command", args))
                except Illegal:
                    continue
                return True
    return False


def meet_another(state: ThunderRoadState) -> bool:
    """Whether the move can still report a vehicle met on the way before another (``met``): two vehicles not
    met yet are on the road besides the mover, and there is room beyond the last one met for one more."""
    turn = state.turn
    if turn is None or turn.vehicle is None or turn.allowance is None:
        return False
    met = {vid for _, vid in turn.met}
    left = [v for v in state.vehicles if v.id != turn.vehicle and not v.eliminated and v.id not in met]
    after = turn.met[-1][0] if turn.met else 0
    return len(left) > 1 and turn.allowance > after + 1


def _named_off(state: ThunderRoadState) -> str:
    """The vehicles named off the rear tile, waiting for the scroll (a move's or a bumped vehicle's): "" if none."""
    assert state.turn is not None
    named = state.turn.off_rear
    if not named:
        return ""
    return f"; off with the rear tile at the scroll: {', '.join(vehicle_words(state, v) for v in named)}: scroll the road first"


def prompt(state: ThunderRoadState) -> Prompt:
    s = state.step
    if s is Step.GAME_OVER:
        text = f"{state.winner} wins!" if state.winner else "the race is over"
        return Prompt(text, s.value, "nothing", player=state.winner, commands=("undo",))
    if s is Step.ROLL:
        waiting = [p.name for p in state.players if state.standing(p.name) and not p.rolled]
        who = waiting[0]
        return Prompt(
            f"round {state.round}: {', '.join(waiting)} roll{'s' if len(waiting) == 1 else ''} {MOVEMENT_DICE} movement dice",
            s.value, "dice", player=who, die="movement", count=MOVEMENT_DICE,
            commands=("roll",) + _also(state),
        )
    turn = state.turn
    assert turn is not None
    who = turn.player
    if s is Step.TURN:
        p = state.player(who)
        unmoved = own_words(state, state.unmoved(who))
        cmds: list[str] = []
        if unmoved and p.dice:
            text = f"{who}: assign a die ({dice_words(p.dice)}) to {unmoved}"
            cmds.append("assign")
        elif unmoved:
            text = f"{who}: no die left to move {unmoved}: pass"
            cmds.append("pass")
        else:
            coast = state.coastable(who)
            if coast and not board_command_this_turn(state):
                text = f"{who}: no vehicle left to move: coast {own_words(state, coast)} or pass"
                cmds.append("coast")
            elif command_turn_ends(state, who):
                text = f"{who}: a command turn cannot coast: end the turn (coast on a later one)"
            else:
                text = f"{who}: nothing left to move: pass"
            cmds.append("pass")
        if command_possible(state, who):
            cmds.append("command")
        if road_possible(state, who):
            cmds.append("road")
        return Prompt(text, s.value, "choice", player=who, commands=tuple(cmds) + _also(state))
    vehicle = turn.vehicle
    if s is Step.FIRE:
        return Prompt(
            f"{vehicle_words(state, vehicle or '')} is ON FIRE!: roll the Fire die before it moves",
            s.value, "dice", player=who, vehicle=vehicle, die="fire", count=1, commands=("fire",) + _also(state),
        )
    if s is Step.FIRE_RULING:
        return Prompt(
            f"Fire die face {turn.fire_face!r} is not filled in: rule on it (moves / out / eliminate / "
            "nothing) and fill it in fire_die.toml",
            s.value, "choice", player=who, vehicle=vehicle, commands=("fire_ruling",) + _also(state),
        )
    if s is Step.MOVE:
        allowance = allowance_words(state)
        extra = " (Drift: pass the first occupied space)" if "drift" in turn.commands else ""
        met = met_on_the_way(state)
        if met:  # reported one at a time so far: the move is reported after them
            extra += "; " + ", ".join(f"drifted past {vehicle_words(state, vid)}" if passed
                                      else f"hit {vehicle_words(state, vid)} at space {at}" for passed, at, vid in met)
        extra += _named_off(state)
        # leaving the front scrolls the road, unless the lead tile is the final one: then it is the finish
        cmds = [] if turn.off_rear else ["move"]  # the move is reported after the scroll with the names
        cmds.append("finish" if state.board.lead_is_final else "scroll")
        if not state.board.lead_is_final:
            cmds.append("off")
        if meet_another(state):
            cmds.insert(1, "met")
        if command_possible(state, who):  # a coast takes none of the command board's, but Traction Drive
            cmds.append("command")
        if road_possible(state, who):
            cmds.append("road")
        return Prompt(
            f"move {vehicle_words(state, vehicle or '')} {allowance} space{'' if allowance == '1' else 's'}{extra}",
            s.value, "move", player=who, vehicle=vehicle, commands=tuple(cmds) + _also(state),
        )
    b = state.bumps[0]
    if s is Step.BUMP:
        return Prompt(
            f"bump {vehicle_words(state, b.a)} / {vehicle_words(state, b.b)}: roll the bump and direction dice ({len(state.bumps)} to resolve)",
            s.value, "dice", player=who, vehicle=b.a, die="bump", count=2, commands=("bump",) + _also(state),
        )
    owner, why = larger_owner(state, b)
    cmds = [] if turn.off_rear else ["placed"]  # placed after the scroll with the vehicles named off
    text = f"place the bumped vehicle ({b.roll[0]}, direction {b.roll[1]})" if b.roll else "place the bumped vehicle"
    if b.scrolled:
        text = "the road scrolled: place the bumped vehicle on the new lead tile"
    elif not b.rerolled and why != "same" and not turn.off_rear:
        cmds.append("reroll")
        text += f"; {owner} (larger vehicle) may re-roll both once" if owner else "; the larger vehicle's owner may re-roll both once"
    text += _named_off(state)
    if not state.board.lead_is_final and not b.scrolled:  # a vehicle the dice move off the front: the road scrolls
        cmds += ["scroll", "off"]
    if state.board.lead_is_final and not turn.off_rear:  # a bump over the final tile's line: the table rules on it
        cmds.append("finish")
    return Prompt(text, s.value, "choice", player=who, vehicle=b.a, commands=tuple(cmds) + _also(state))
