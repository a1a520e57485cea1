"""Thunder Road — what every rule area uses: naming vehicles and dice in the players' words, reading the
values a command gives, checking whose turn it is, and refusing a command sent out of order with what the
table must do first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from games.core import Command, Illegal

from games.thunder_road.state import Step, ThunderRoadState

MAX_SPACES = 40  # a sanity bound on a typed number of spaces, not a rule


# -- the state, changed one vehicle or player at a time ---------------------------------------------------


def met_on_the_way(state: ThunderRoadState) -> list[tuple[bool, int, str]]:
    """The vehicles reported met so far this move (``met``), as the rule treats them: (passed by the Drift, the
    space, the vehicle).  A Drift passes the first occupied space; one since taken off the road is left out."""
    turn = state.turn
    if turn is None:
        return []
    drift = "drift" in turn.commands
    return [(i == 0 and drift, at, vid) for i, (at, vid) in enumerate(turn.met) if not state.vehicle(vid).eliminated]


def board_command_this_turn(state: ThunderRoadState) -> bool:
    """Whether a command of the command board was used this turn: "not on a turn in which you coast" [seed]
    is a rule of those (a Big Rig section's, Traction Drive, goes with a coast)."""
    turn = state.turn
    return turn is not None and any(state.tables.command(name).board == "command_board" for name in turn.commands)


def replace_vehicle(state: ThunderRoadState, vid: str, **changes: Any) -> ThunderRoadState:
    return replace(state, vehicles=tuple(replace(v, **changes) if v.id == vid else v for v in state.vehicles))


def replace_player(state: ThunderRoadState, name: str, **changes: Any) -> ThunderRoadState:
    return replace(state, players=tuple(replace(p, **changes) if p.name == name else p for p in state.players))


def remove_die(dice: tuple[int, ...], value: int) -> tuple[int, ...]:
    """The unused dice once one die of ``value`` went to a vehicle or a command."""
    out = list(dice)
    out.remove(value)
    return tuple(out)


# -- words ------------------------------------------------------------------------------------------------


def vehicle_words(state: ThunderRoadState, vid: str) -> str:
    """``"Ana/small"`` → ``"Ana's small car"`` (``"Eve's bike 2"`` for the second of several bikes, as the
    screens' menus number them; the id's ``"bike2"`` read "bike2", and "small car1" on a refusal)."""
    return f"{state.vehicle(vid).owner}'s {in_sentence(own_label(state, vid))}"


def own_words(state: ThunderRoadState, vehicles: Sequence[Any]) -> str:
    """One player's vehicles in a sentence for them: "small car, bike 1, bike 2" (not the ids' "small,
    bike1, bike2")."""
    return ", ".join(in_sentence(own_label(state, v.id)) for v in vehicles)


def in_sentence(label: str) -> str:
    """A vehicle's label inside a sentence: "Small car" → "small car", but the rules' name "Big Rig" stays
    "Big Rig" (it read "Cy's big rig"): a label whose later words are capitalised is a name, and so is a first
    word not written as a capital and small letters (an owner's "ATV", "VW bus" or "War-Rig")."""
    words = label.split()
    if not words or any(w[:1].isupper() for w in words[1:]):
        return label
    first = words[0]
    if not (first[:1].isupper() and (len(first) == 1 or first[1:].isalpha() and first[1:].islower())):
        return label
    return label[:1].lower() + label[1:]


def own_label(state: ThunderRoadState, vid: str) -> str:
    """A vehicle as its owner's screen names it: "Small car", "Small car 2" for the second of two (the
    rules' id "Ana/small2" is no word of the rulebook's)."""
    v = state.vehicle(vid)
    number = vid.split("/", 1)[1][len(v.kind):]
    label = state.tables.kind(v.kind).label
    return f"{label} {number}" if number else label


def dice_words(dice: Sequence[int]) -> str:
    return ", ".join(str(d) for d in sorted(dice)) if dice else "none"


def _names(names: Sequence[str]) -> str:
    """``["Ana", "Ben", "Cy"]`` → ``"Ana, Ben and Cy"``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# -- reading a command --------------------------------------------------------------------------------------


def resolve_vehicle(state: ThunderRoadState, ref: Any, owner: str | None = None) -> str:
    """``"Ana/small"`` or, for ``owner``'s own vehicles, ``"small"`` → the vehicle id (or Illegal)."""
    if not isinstance(ref, str) or not ref:
        raise Illegal('name the vehicle, e.g. "vehicle": "small" (your own) or "Ana/small"')
    vid = ref if "/" in ref or owner is None else f"{owner}/{ref}"
    try:
        state.vehicle(vid)
    except KeyError:
        if owner is not None:  # by the name the screens give, the command's word after (an audit: "small, ...")
            mine = ", ".join(f"{state.kind_of(v.id).label} ({v.id.split('/', 1)[1]})" for v in state.fleet(owner))
            raise Illegal(f"{owner} has no vehicle {ref!r}: {owner}'s vehicles are {mine}") from None
        everyone = ", ".join(v.id for v in state.vehicles)
        raise Illegal(f"no vehicle {ref!r}: the vehicles are {everyone}") from None
    return vid


def movement_die(value: Any, what: str = "die") -> int:
    """A movement die's value, 1 to 6 (or Illegal)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        # (it read "the movement die must be a movement die value from 1 to 6": said twice; an audit)
        raise Illegal(f"the {what} must be a value from 1 to 6 (got {value!r})")
    return value


def face_of(state: ThunderRoadState, die: str, value: Any) -> str:
    """``value`` as a face of the FX die ``die`` (Road, bump, direction ...), or Illegal."""
    faces = state.tables.faces(die)
    names = [str(f) for f in dict.fromkeys(faces)]
    if str(value) not in names:
        raise Illegal(f"{value!r} is not a face of the {die} die: its faces are {', '.join(names)}")
    return str(value)


def allowance_known(state: ThunderRoadState) -> bool:
    """Whether the moving vehicle's allowance is known: not when a Nitro of unknown size is in play, nor once a
    Road die was rolled for it this turn (the rules say what its faces are, not what they do to a move: an
    unknown fact never refuses a move; an audit found a move of die + Road die refused as over the die)."""
    turn = state.turn
    return turn is not None and turn.allowance_known and not _road_die_in_move(state)


def _road_die_in_move(state: ThunderRoadState) -> bool:
    """A Road die was rolled this turn for the vehicle moving now, and it is not coasting ("A coast counts as a
    move of 1" [seed][V], Road die or not: a review)."""
    turn = state.turn
    return (turn is not None and turn.action != "coast" and state.road_roll is not None
            and state.road_roll[0] == turn.vehicle)


def allowance_words(state: ThunderRoadState) -> str:
    """The moving vehicle's allowance as the prompt and the menu's status line say it: "4", "4+Nitro" (a Nitro of
    unknown size), "3+Road die 2" (a Road die rolled for it, and its face: the dashboard said "3+Road die" alone, the
    face on the menu's status line only; an audit), "?" before it is set."""
    turn = state.turn
    n = "?" if turn is None or turn.allowance is None else str(turn.allowance)
    if turn is not None and not turn.allowance_known:
        return n + "+Nitro"
    return n + (f"+Road die {state.road_roll[1]}" if _road_die_in_move(state) and state.road_roll else "")


def allowance_line(state: ThunderRoadState) -> str:
    """How far the moving vehicle goes, and how: "4 spaces", "1 space · coast", "4+Nitro spaces · Drift" (the
    menu's status line and the mover's dashboard say it)."""
    turn = state.turn
    assert turn is not None and turn.vehicle is not None
    allowance = allowance_words(state)
    parts = [f"{allowance} space{'' if allowance == '1' else 's'}"]
    if turn.action == "coast":
        parts.append("coast")
    if "drift" in turn.commands:
        parts.append("Drift")
    return " · ".join(parts)


def turn_player(state: ThunderRoadState, command: Command) -> str:
    """The player whose turn it is; a command naming another player is refused."""
    assert state.turn is not None
    who = command.get("player", state.turn.player)
    if who != state.turn.player:
        out = next((p for p in state.players if p.name == who and not state.standing(p.name)), None)
        if out is not None:  # (an audit: "it is Ben's turn, not Cy's" of Cy, who was out of the race)
            raise Illegal(f"{who} is out of the race; it is {state.turn.player}'s turn")
        raise Illegal(f"it is {state.turn.player}'s turn, not {who}'s")
    return str(who)


def nitro_bonus(state: ThunderRoadState, die: int) -> tuple[int, bool]:
    """(spaces Nitro adds, whether that is known); ``die`` is the die assigned to Nitro."""
    rule = state.tables.command("nitro") if any(c.name == "nitro" for c in state.tables.commands) else None
    if rule is None or rule.adds_moves is None:
        return 0, False
    if rule.adds_moves == "die":
        return die, True
    return int(rule.adds_moves), True


# -- out of order -----------------------------------------------------------------------------------------


def needs_step(state: ThunderRoadState, *steps: Step) -> None:
    """Refuse a command the table sent out of order: the reason says what must happen first."""
    if state.step not in steps:
        raise Illegal(what_first(state))


def refuse_while_named_off(state: ThunderRoadState) -> None:
    """Vehicles named off the rear tile (``off``) wait for the scroll that removes it: a move, a bumped
    vehicle's placing or re-roll reported before it would drop them, and the road would never scroll."""
    assert state.turn is not None
    named = state.turn.off_rear
    if named:
        words = ", ".join(vehicle_words(state, v) for v in named)
        raise Illegal(f"{words} {'is' if len(named) == 1 else 'are'} named off the rear tile: scroll the road first "
                      f"(Road scrolls… › Scroll: {len(named)} off), or undo the naming")


def what_first(state: ThunderRoadState) -> str:
    """What the table must do before anything else, in the players' words ("Ana has not rolled yet: roll
    the movement dice first")."""
    s = state.step
    if s is Step.GAME_OVER:
        return f"the race is over: {state.winner or 'nobody'} won"
    if s is Step.ROLL:
        waiting = [p.name for p in state.players if state.standing(p.name) and not p.rolled]
        has = "has" if len(waiting) == 1 else "have"
        return f"{_names(waiting)} {has} not rolled yet: roll the movement dice first"
    turn = state.turn
    assert turn is not None
    who = turn.player
    if s is Step.TURN:
        if not state.player(who).dice:
            return f"no vehicle is moving yet: {who} has no die left and passes first"
        if state.unmoved(who):
            return f"no vehicle is moving yet: {who} assigns a die to a vehicle first"
        if state.coastable(who):
            if not board_command_this_turn(state):
                return f"no vehicle is moving yet: {who} coasts a vehicle or passes first"
            # a turn spent on a command alone only ends (turn.command_turn_ends): the menu says "End turn", and
            # "passes first" read as leaving the round (an audit)
            return f"no vehicle is moving yet: {who} ends the turn first (End turn)"
        return f"no vehicle is moving yet: {who} passes first"
    assert turn.vehicle is not None
    mover = vehicle_words(state, turn.vehicle)
    if s is Step.FIRE:
        return f"{mover} is ON FIRE!: roll the Fire die first"
    if s is Step.FIRE_RULING:
        return f"rule on the Fire die first: face {turn.fire_face!r} is not filled in (moves, out, eliminate or nothing)"
    if s is Step.MOVE:
        return f"move {mover} first: its move is being reported"
    b = state.bumps[0]
    pair = f"{vehicle_words(state, b.a)} and {vehicle_words(state, b.b)}"
    if s is Step.BUMP:
        return f"resolve the bump first: roll the bump and direction dice for {pair}"
    return f"place the bumped vehicle first: {pair} share a space"
