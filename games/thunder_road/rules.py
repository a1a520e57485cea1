"""Thunder Road: Vendetta (+ Maximum Chrome) — the rules: start, decide, evolve, prompt.

Sources: ``shared/rules/thunder-road.md`` and the French seed it summarises.  Rule facts the sources do not
give are data in ``data/*.toml`` marked "unknown"; an unknown fact never makes the companion refuse
anything (it cannot refuse on a rule it does not know) and never becomes a number in this file.

Design choices where the sources are silent (the README lists the commands):

* **Movement report.**  The table moves the model and reports ``move`` with ``occupied``: the spaces
  (counted 1, 2, ... along the path) that held another road vehicle when the mover reached them, and which
  vehicle was there.  The companion applies the collision rule: every occupied space reached is a
  collision, except that a Drift passes the first one — and ending the move on an occupied space collides
  anyway, even when that is the first one [seed].  Each collision stacks two vehicles: a bump to resolve.
* **Bumps.**  The table rolls the bump and direction dice and places the models; the companion keeps the
  queue of bumps still to resolve (chain bumps join the front of the queue) and the one re-roll right of
  the larger vehicle's owner.
* **Passing.**  "If you have no such vehicle, you *may* coast": a player with no operable unmoved vehicle
  may decline; ``pass`` then sets their remaining dice aside for the round (otherwise the turn order could
  never move on).
* **Unknown Fire-die face.**  The roll is recorded and the table rules on it with ``fire_ruling``; the
  prompt tells the owner to fill the face in ``fire_die.toml`` so the question is not asked again.
* **Illegal assignment alert.**  A refused ``assign``/``coast``/``command``/``pass`` during a turn is
  recorded as an ``assignment_refused`` event (a refusal with a consequence, as Gaslands' touch-move): the
  refused player's screen flashes the reason until the next accepted command.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

from games.core import Command, Decision, Event, Illegal, Prompt

from games.thunder_road.state import (
    COAST_SPACES,
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

UNKNOWN = "unknown"
MAX_SPACES = 40  # a sanity bound on a typed number of spaces, not a rule


# -- rule tables ------------------------------------------------------------------------------------


def load_table(name: str) -> dict[str, Any]:
    """A data file of this package, parsed (``vehicles``, ``dice``, ``fire_die``, ``commands``)."""
    text = resources.files("games.thunder_road").joinpath("data", f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def _merge(base: Mapping[str, Any], override: Any, what: str) -> dict[str, Any]:
    """The owner's override table merged row by row into the packaged one."""
    if override is None:
        return {k: dict(v) if isinstance(v, Mapping) else v for k, v in base.items()}
    if not isinstance(override, Mapping):
        raise Illegal(f"[{what}] in the setup must be a table of rows, e.g. [{what}.NAME]")
    merged = {k: dict(v) if isinstance(v, Mapping) else v for k, v in base.items()}
    for key, row in override.items():
        if isinstance(row, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **row}
        else:
            merged[key] = row
    return merged


def _int_or_unknown(value: Any, where: str, *, none_word: str = UNKNOWN) -> int | None:
    if value == none_word:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Illegal(f'{where} must be a whole number of 0 or more, or "{none_word}" (got {value!r})')
    return value


def _parse_kinds(table: Mapping[str, Any]) -> tuple[VehicleKind, ...]:
    kinds = []
    for name, row in table.items():
        if not isinstance(row, Mapping):
            raise Illegal(f"vehicle type {name!r} must be a table with label, size, damage_slots ...")
        where = f"vehicle type {name!r}"
        cls = row.get("class", "car")
        if cls not in ("car", "big_rig", "bike"):
            raise Illegal(f'{where}: class must be "car", "big_rig" or "bike" (got {cls!r})')
        kinds.append(
            VehicleKind(
                name=name,
                label=str(row.get("label", name)),
                short=str(row.get("short", name[:1].upper()))[:2],
                cls=cls,
                size=_int_or_unknown(row.get("size", UNKNOWN), f"{where}: size"),
                damage_slots=_int_or_unknown(row.get("damage_slots", UNKNOWN), f"{where}: damage_slots"),
                out_of_service_at=_int_or_unknown(
                    row.get("out_of_service_at", "none"), f"{where}: out_of_service_at", none_word="none"
                ),
                minor_damage=bool(row.get("minor_damage", False)),
            )
        )
    return tuple(kinds)


def _parse_commands(table: Mapping[str, Any]) -> tuple[CommandRule, ...]:
    rules = []
    for name, row in table.items():
        if not isinstance(row, Mapping):
            raise Illegal(f"command {name!r} must be a table with label, dice, board, target")
        dice = row.get("dice", UNKNOWN)
        if dice != UNKNOWN:
            if not isinstance(dice, list) or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
                raise Illegal(f'command {name!r}: dice must be a list of die values 1-6 or "unknown"')
            dice = tuple(dice)
        else:
            dice = None
        board = row.get("board", "command_board")
        if board not in ("command_board", "big_rig"):
            raise Illegal(f'command {name!r}: board must be "command_board" or "big_rig"')
        target = row.get("target", "none")
        if target not in ("mover", "own_vehicle", "none"):
            raise Illegal(f'command {name!r}: target must be "mover", "own_vehicle" or "none"')
        adds = row.get("adds_moves")
        if adds == UNKNOWN:
            adds = None
        elif adds is not None and adds != "die" and (isinstance(adds, bool) or not isinstance(adds, int)):
            raise Illegal(f'command {name!r}: adds_moves must be "die", a number or "unknown"')
        rules.append(CommandRule(name, str(row.get("label", name)), dice, board, target, adds))
    return tuple(rules)


def _parse_fire(table: Mapping[str, Any]) -> tuple[FireFace, ...]:
    faces = table.get("faces")
    if not isinstance(faces, list) or not faces:
        raise Illegal("[fire_die] needs faces = a list of {label, effect, moves}")
    out = []
    for i, row in enumerate(faces, 1):
        if not isinstance(row, Mapping) or not isinstance(row.get("label"), str) or not row["label"]:
            raise Illegal(f"Fire die face {i} needs a label")
        try:
            effect = FireEffect(row.get("effect", UNKNOWN))
        except ValueError:
            raise Illegal(
                f"Fire die face {row['label']!r}: effect must be one of "
                + ", ".join(e.value for e in FireEffect)
            ) from None
        moves = row.get("moves", 0)
        if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
            raise Illegal(f"Fire die face {row['label']!r}: moves must be a whole number")
        if effect is FireEffect.MOVES and moves < 1:
            raise Illegal(f"Fire die face {row['label']!r}: effect \"moves\" needs moves = 1 or more")
        out.append(FireFace(row["label"], effect, moves))
    labels = [f.label for f in out]
    if len(set(labels)) != len(labels):
        raise Illegal("the Fire die face labels must differ from each other")
    return tuple(out)


def _parse_dice(table: Mapping[str, Any]) -> tuple[tuple[str, tuple[int | str, ...]], ...]:
    out = []
    for name, row in table.items():
        faces = row.get("faces") if isinstance(row, Mapping) else None
        if not isinstance(faces, list) or not faces:
            raise Illegal(f"die {name!r} needs faces = [...]")
        out.append((name, tuple(faces)))
    return tuple(out)


def packaged_tables() -> dict[str, Any]:
    return {
        "vehicle_types": load_table("vehicles"),
        "commands": load_table("commands"),
        "fire_die": load_table("fire_die"),
        "dice": load_table("dice"),
    }


def tables_from(options: Mapping[str, Any]) -> Tables:
    return Tables(
        kinds=_parse_kinds(options["vehicle_types"]),
        commands=_parse_commands(options["commands"]),
        fire=_parse_fire(options["fire_die"]),
        dice=_parse_dice(options["dice"]),
    )


# -- start ----------------------------------------------------------------------------------------------

DEFAULT_FLEET = ("small", "medium", "large")


def normalise(options: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the table's setup and return it complete (rule tables included), or raise Illegal."""
    if not isinstance(options, Mapping):
        raise Illegal("the setup must be a TOML table")
    base = packaged_tables()
    merged = {
        "vehicle_types": _merge(base["vehicle_types"], options.get("vehicle_types"), "vehicle_types"),
        "commands": _merge(base["commands"], options.get("commands"), "commands"),
        "dice": _merge(base["dice"], options.get("dice"), "dice"),
        "fire_die": dict(options["fire_die"]) if isinstance(options.get("fire_die"), Mapping) else base["fire_die"],
    }
    tables = tables_from(merged)
    kind_names = [k.name for k in tables.kinds]

    raw_players = options.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        raise Illegal('the setup needs players: [[players]] name = "Ana" (2 to 5 players)')
    players = []
    for i, row in enumerate(raw_players, 1):
        if isinstance(row, str):
            row = {"name": row}
        if not isinstance(row, Mapping):
            raise Illegal(f"player {i}: write [[players]] name = \"...\" (and optionally vehicles = [...])")
        name = row.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise Illegal(f"player {i} needs a name (without '/')")
        fleet = row.get("vehicles", list(DEFAULT_FLEET))
        if not isinstance(fleet, list) or not fleet:
            raise Illegal(f"{name}: vehicles must be a list such as [\"small\", \"medium\", \"large\"]")
        for kind in fleet:
            if kind not in kind_names:
                raise Illegal(f"{name}: unknown vehicle {kind!r}; known vehicles: {', '.join(kind_names)}")
        players.append({"name": name.strip(), "vehicles": list(fleet)})
    names = [p["name"] for p in players]
    if len(set(names)) != len(names):
        raise Illegal("two players have the same name: give each player a different name")
    expansion = any(tables.kind(k).cls in ("big_rig", "bike") for p in players for k in p["vehicles"])
    if len(players) < 2:
        raise Illegal("Thunder Road needs 2 to 4 players (5 with the Big Rig and the Final Five)")
    if len(players) > 5 or (len(players) == 5 and not expansion):
        raise Illegal(
            f"{len(players)} players: the base game takes 2 to 4 players; a 5th needs the Maximum Chrome "
            "Big Rig or Final Five (give a player vehicles = [..., \"big_rig\"] or bikes)"
        )
    first = options.get("first_player", names[0])
    if first not in names:
        raise Illegal(f"first_player {first!r} is not one of the players: {', '.join(names)}")

    board = options.get("board")
    if not isinstance(board, Mapping):
        raise Illegal('the setup needs [board] tiles = 6 (or a list of tile names), on_board = N, final = "..."')
    tiles = board.get("tiles")
    if isinstance(tiles, int) and not isinstance(tiles, bool):
        tiles = [str(i) for i in range(1, tiles + 1)]
    if not isinstance(tiles, list) or not tiles or not all(isinstance(t, (str, int)) for t in tiles):
        raise Illegal("[board] tiles must be the number of road tiles or the list of their names")
    tiles = [str(t) for t in tiles]
    if len(set(tiles)) != len(tiles):
        raise Illegal("[board] tiles: two tiles have the same name")
    on_board = board.get("on_board")
    if isinstance(on_board, bool) or not isinstance(on_board, int) or not 1 <= on_board <= len(tiles):
        raise Illegal(f"[board] on_board must say how many tiles lie on the table at once (1 to {len(tiles)})")
    final = str(board.get("final", tiles[-1]))
    if final not in tiles:
        raise Illegal(f"[board] final {final!r} is not one of the tiles: {', '.join(tiles)}")
    if tiles.index(final) < on_board - 1:
        raise Illegal(f"[board] the final tile {final!r} would be behind the lead tile at the start")
    return {
        "players": players,
        "first_player": first,
        "board": {"tiles": tiles, "on_board": on_board, "final": final},
        **merged,
    }


def start(options: Mapping[str, Any]) -> list[Event]:
    return [Event("game_started", {"options": normalise(options)})]


def _initial(options: Mapping[str, Any]) -> ThunderRoadState:
    tables = tables_from(options)
    players, vehicles = [], []
    for seat, row in enumerate(options["players"]):
        players.append(Player(row["name"], seat))
        counts: dict[str, int] = {}
        for kind in row["vehicles"]:
            counts[kind] = counts.get(kind, 0) + 1
        seen: dict[str, int] = {}
        for kind in row["vehicles"]:
            seen[kind] = seen.get(kind, 0) + 1
            suffix = str(seen[kind]) if counts[kind] > 1 else ""
            vehicles.append(Vehicle(f"{row['name']}/{kind}{suffix}", row["name"], kind))
    b = options["board"]
    board = Board(tuple(b["tiles"]), b["on_board"], b["tiles"].index(b["final"]), b["on_board"] - 1)
    names = [p.name for p in players]
    return ThunderRoadState(
        players=tuple(players),
        vehicles=tuple(vehicles),
        tables=tables,
        board=board,
        first=names.index(options["first_player"]),
        note="game started: roll the movement dice",
    )


# -- helpers ----------------------------------------------------------------------------------------------


def _replace_vehicle(state: ThunderRoadState, vid: str, **changes: Any) -> ThunderRoadState:
    return replace(state, vehicles=tuple(replace(v, **changes) if v.id == vid else v for v in state.vehicles))


def _replace_player(state: ThunderRoadState, name: str, **changes: Any) -> ThunderRoadState:
    return replace(state, players=tuple(replace(p, **changes) if p.name == name else p for p in state.players))


def _remove_die(dice: tuple[int, ...], value: int) -> tuple[int, ...]:
    out = list(dice)
    out.remove(value)
    return tuple(out)


def _label(state: ThunderRoadState, vid: str) -> str:
    v = state.vehicle(vid)
    return f"{v.owner}'s {state.tables.kind(v.kind).label.lower()}{vid.split('/', 1)[1][len(v.kind):]}"


def resolve_vehicle(state: ThunderRoadState, ref: Any, owner: str | None = None) -> str:
    """``"Ana/small"`` or, for ``owner``'s own vehicles, ``"small"`` → the vehicle id (or Illegal)."""
    if not isinstance(ref, str) or not ref:
        raise Illegal('name the vehicle, e.g. "vehicle": "small" (your own) or "Ana/small"')
    vid = ref if "/" in ref or owner is None else f"{owner}/{ref}"
    try:
        state.vehicle(vid)
    except KeyError:
        if owner is not None:
            mine = ", ".join(v.id.split("/", 1)[1] for v in state.fleet(owner))
            raise Illegal(f"{owner} has no vehicle {ref!r}: {owner}'s vehicles are {mine}") from None
        everyone = ", ".join(v.id for v in state.vehicles)
        raise Illegal(f"no vehicle {ref!r}: the vehicles are {everyone}") from None
    return vid


def _die(value: Any, what: str = "die") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise Illegal(f"the {what} must be a movement die value from 1 to 6 (got {value!r})")
    return value


def _dice_words(dice: Sequence[int]) -> str:
    return ", ".join(str(d) for d in sorted(dice)) if dice else "none"


def _face(state: ThunderRoadState, die: str, value: Any) -> str:
    faces = state.tables.faces(die)
    names = [str(f) for f in dict.fromkeys(faces)]
    if str(value) not in names:
        raise Illegal(f"{value!r} is not a face of the {die} die: its faces are {', '.join(names)}")
    return str(value)


def _needs_step(state: ThunderRoadState, *steps: Step) -> None:
    if state.step not in steps:
        raise Illegal(f"not now: the table must {state.step.value} ({prompt(state).text})")


def _current_player(state: ThunderRoadState, command: Command) -> str:
    assert state.turn is not None
    who = command.get("player", state.turn.player)
    if who != state.turn.player:
        raise Illegal(f"it is {state.turn.player}'s turn, not {who}'s")
    return who


def _nitro_bonus(state: ThunderRoadState, die: int) -> tuple[int, bool]:
    """(spaces Nitro adds, whether that is known); ``die`` is the die assigned to Nitro."""
    rule = state.tables.command("nitro") if any(c.name == "nitro" for c in state.tables.commands) else None
    if rule is None or rule.adds_moves is None:
        return 0, False
    if rule.adds_moves == "die":
        return die, True
    return int(rule.adds_moves), True


# -- decide -------------------------------------------------------------------------------------------------


def _decide_roll(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.ROLL)
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
            raise Illegal(f"{who} already rolled this round ({_dice_words(player.dice)}); undo to correct it")
        if not isinstance(dice, list) or len(dice) != MOVEMENT_DICE:
            raise Illegal(f"{who} rolls {MOVEMENT_DICE} movement dice: give 4 values, e.g. [1, 3, 4, 6]")
        events.append(Event("dice_rolled", {"player": who, "dice": [_die(d, "movement die") for d in dice]}))
    if first is not None:
        events[0] = Event("dice_rolled", {**events[0].data, "first": first})
    return events


def _die_for_own_vehicle(state: ThunderRoadState, command: Command, doing: str) -> tuple[str, int, str, Any]:
    """On a turn: whose turn, the die named, and the vehicle named, which must be the player's own
    (``doing`` finishes the refusal: "assign your die to", "coast")."""
    _needs_step(state, Step.TURN)
    who = _current_player(state, command)
    die = _die(command.get("die"))
    vid = resolve_vehicle(state, command.get("vehicle"), who)
    v = state.vehicle(vid)
    if v.owner != who:
        raise Illegal(f"{_label(state, vid)} is not yours: {doing} one of your own vehicles")
    return who, die, vid, v


def _decide_assign(state: ThunderRoadState, command: Command) -> list[Event]:
    who, die, vid, v = _die_for_own_vehicle(state, command, "assign your die to")
    player = state.player(who)
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {_dice_words(player.dice)}")
    if v.eliminated:
        raise Illegal(f"{_label(state, vid)} has been eliminated")
    if state.out_of_service(vid):
        raise Illegal(
            f"{_label(state, vid)} is out of service ({v.damage} damage tokens): it cannot move until a "
            "Repair removes a token"
        )
    if v.moved:
        others = [x.id.split("/", 1)[1] for x in state.unmoved(who)]
        hint = (
            f"assign your die to {', '.join(others)}" if others else f"coast it instead ({v.coasts} of 2 coasts used)"
        )
        raise Illegal(f"{_label(state, vid)} already moved this round: {hint}")
    return [Event("die_assigned", {"player": who, "vehicle": vid, "die": die})]


def _decide_coast(state: ThunderRoadState, command: Command) -> list[Event]:
    who, die, vid, v = _die_for_own_vehicle(state, command, "coast")
    unmoved = state.unmoved(who)
    if unmoved:
        names = ", ".join(x.id.split("/", 1)[1] for x in unmoved)
        raise Illegal(
            f"you still have a vehicle to move ({names}): assign a die to it; coasting is only for when "
            "every operable vehicle has moved"
        )
    assert state.turn is not None
    if state.turn.commands:
        raise Illegal("you used a command this turn: a turn with a command cannot be a coast turn")
    player = state.player(who)
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {_dice_words(player.dice)}")
    if v.eliminated:
        raise Illegal(f"{_label(state, vid)} has been eliminated")
    if state.out_of_service(vid):
        raise Illegal(f"{_label(state, vid)} is out of service: it cannot coast until a Repair removes a token")
    if v.coasts >= MAX_COASTS:
        raise Illegal(f"{_label(state, vid)} already coasted twice this round (the limit is 2 per vehicle)")
    return [Event("coasted", {"player": who, "vehicle": vid, "die": die})]


def _decide_command(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.TURN, Step.MOVE)
    who = _current_player(state, command)
    turn = state.turn
    assert turn is not None
    name = command.get("name", command.get("command"))
    known = [c.name for c in state.tables.commands]
    if name not in known:
        raise Illegal(f"unknown command {name!r}: the commands are {', '.join(known)}")
    rule = state.tables.command(name)
    die = _die(command.get("die"))
    player = state.player(who)
    if turn.action == "coast":
        raise Illegal(f"you are coasting this turn: no {rule.label} (a command cannot go with a coast)")
    if rule.board == "command_board" and player.command is not None:
        used = state.tables.command(player.command).label
        raise Illegal(f"you already used a command this round ({used}): one command per round")
    if name in turn.commands:
        raise Illegal(f"{rule.label} is already active this turn")
    if die not in player.dice:
        raise Illegal(f"you have no unused {die}: your unused dice are {_dice_words(player.dice)}")
    if rule.dice is not None and die not in rule.dice:
        raise Illegal(f"{rule.label} takes a die of {_dice_words(rule.dice)}, not a {die}")
    if rule.board == "big_rig":
        rigs = [v for v in state.fleet(who) if state.tables.kind(v.kind).cls == "big_rig" and not v.eliminated]
        if not rigs:
            raise Illegal(f"{rule.label} is a Big Rig command: you have no Big Rig in the race")
    if turn.action is None and len(player.dice) == 1 and state.unmoved(who):
        raise Illegal("keep your last die for your move: you still have a vehicle to move this turn")
    data: dict[str, Any] = {"player": who, "command": name, "die": die}
    if rule.target == "mover" and turn.action is None and not state.unmoved(who):
        raise Illegal(
            f"{rule.label} works on the vehicle you move this turn, and you have none left to move "
            "(a coast turn cannot take a command)"
        )
    if rule.target == "own_vehicle":
        vid = resolve_vehicle(state, command.get("vehicle"), who)
        v = state.vehicle(vid)
        if v.owner != who:
            raise Illegal(f"{rule.label} works on your own vehicles, not on {_label(state, vid)}")
        if v.eliminated:
            raise Illegal(f"{_label(state, vid)} has been eliminated")
        if name == "repair" and v.damage == 0:
            raise Illegal(f"{_label(state, vid)} has no damage token for Repair to remove")
        data["vehicle"] = vid
    return [Event("command_used", data)]


def _decide_pass(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.TURN)
    who = _current_player(state, command)
    unmoved = state.unmoved(who)
    if unmoved:
        names = ", ".join(x.id.split("/", 1)[1] for x in unmoved)
        raise Illegal(f"you must assign a die to a vehicle you have not moved: {names}")
    return [Event("passed", {"player": who})]


def _decide_fire(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.FIRE)
    assert state.turn is not None and state.turn.vehicle is not None
    face = _face_label(state, command.get("face"))
    f = state.tables.fire_face(face)
    return [Event("fire_rolled", {"vehicle": state.turn.vehicle, "face": face, "effect": f.effect.value, "moves": f.moves})]


def _face_label(state: ThunderRoadState, value: Any) -> str:
    labels = [f.label for f in state.tables.fire]
    if str(value) not in labels:
        raise Illegal(f"{value!r} is not a Fire die face: its faces are {', '.join(labels)}")
    return str(value)


def _decide_fire_ruling(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.FIRE_RULING)
    assert state.turn is not None
    effect = command.get("effect")
    allowed = [e.value for e in FireEffect if e is not FireEffect.UNKNOWN]
    if effect not in allowed:
        raise Illegal(f"rule on the Fire die with effect = one of {', '.join(allowed)}")
    moves = command.get("moves", 0)
    if effect == "moves":
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= MAX_SPACES:
            raise Illegal('effect "moves" needs moves = how many extra spaces (1 or more)')
    else:
        moves = 0
    return [
        Event(
            "fire_rolled",
            {"vehicle": state.turn.vehicle, "face": state.turn.fire_face, "effect": effect, "moves": moves, "ruled": True},
        )
    ]


def _decide_move(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.MOVE)
    turn = state.turn
    assert turn is not None and turn.vehicle is not None and turn.allowance is not None
    mover = turn.vehicle
    spaces = command.get("spaces", turn.allowance)
    if isinstance(spaces, bool) or not isinstance(spaces, int) or not 0 <= spaces <= MAX_SPACES:
        raise Illegal("spaces must be how many spaces the vehicle moved (a whole number)")
    if turn.allowance_known and spaces > turn.allowance:
        raise Illegal(
            f"{_label(state, mover)} may move at most {turn.allowance} space{'' if turn.allowance == 1 else 's'} "
            f"this turn, not {spaces}"
        )
    occupied = command.get("occupied", [])
    if not isinstance(occupied, list):
        raise Illegal('occupied must be a list like [{"at": 3, "vehicle": "Ben/large"}]')
    last = 0
    path: list[tuple[int, str]] = []
    for entry in occupied:
        if not isinstance(entry, Mapping):
            raise Illegal('each occupied space is {"at": SPACE, "vehicle": "Ben/large"}')
        at = entry.get("at")
        if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= spaces:
            raise Illegal(f"occupied space at={at!r}: count the spaces of the move from 1 to {spaces}")
        if at <= last:
            raise Illegal("list the occupied spaces in the order the vehicle reached them, each once")
        vid = resolve_vehicle(state, entry.get("vehicle"))
        if vid == mover:
            raise Illegal("the moving vehicle cannot be in its own way")
        if state.vehicle(vid).eliminated:
            raise Illegal(f"{_label(state, vid)} has been eliminated: it is not on the road")
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
        collisions.append(vid)  # ending on an occupied space "hits it anyway"
    return [Event("moved", {"vehicle": mover, "spaces": spaces, "collisions": collisions, "passed": passed})]


def _decide_scroll(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.MOVE)
    assert state.turn is not None
    if state.board.lead_is_final:
        raise Illegal(
            "the lead tile is the final tile: the road does not scroll any more — a vehicle reaching its "
            "finish line wins (finish)"
        )
    refs = command.get("eliminated", [])
    if not isinstance(refs, list):
        raise Illegal('eliminated must list the vehicles on the rear tile, e.g. ["Ben/small"] (or [])')
    out: list[str] = []
    for ref in refs:
        vid = resolve_vehicle(state, ref)
        if vid == state.turn.vehicle:
            raise Illegal(f"{_label(state, vid)} is the vehicle leaving the front: it is not on the rear tile")
        if state.vehicle(vid).eliminated:
            raise Illegal(f"{_label(state, vid)} was already eliminated")
        if vid not in out:
            out.append(vid)
    new_lead = state.board.lead + 1
    return [Event("board_scrolled", {"eliminated": out, "lead": state.board.tiles[new_lead], "rear": state.board.tiles[state.board.rear]})]


def _decide_finish(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.MOVE)
    assert state.turn is not None
    if not state.board.lead_is_final:
        tile = state.board.tiles[state.board.lead]
        raise Illegal(
            f"the lead tile ({tile}) is not the final tile: leaving the front scrolls the road (scroll), it "
            "does not finish the race"
        )
    return [Event("finished", {"player": state.turn.player, "vehicle": state.turn.vehicle})]


def _current_bump(state: ThunderRoadState) -> Bump:
    return state.bumps[0]


def _decide_bump(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.BUMP)
    bump = _face(state, "bump", command.get("bump"))
    direction = _face(state, "direction", command.get("direction"))
    return [Event("bump_rolled", {"bump": bump, "direction": direction})]


def larger_owner(state: ThunderRoadState, bump: Bump) -> tuple[str | None, str]:
    """(owner of the larger vehicle or None, why).  Unknown sizes do not take the right away."""
    ka, kb = state.kind_of(bump.a), state.kind_of(bump.b)
    if ka.size is None or kb.size is None:
        return None, "unknown"
    if ka.size == kb.size:
        return None, "same"
    bigger = bump.a if ka.size > kb.size else bump.b
    return state.vehicle(bigger).owner, "known"


def _decide_reroll(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.PLACE)
    b = _current_bump(state)
    if b.rerolled:
        raise Illegal("this bump was already re-rolled once: place the vehicle as the dice say")
    owner, why = larger_owner(state, b)
    if why == "same":
        raise Illegal(
            f"{_label(state, b.a)} and {_label(state, b.b)} are the same size: neither owner may re-roll"
        )
    who = command.get("player")
    if owner is not None and who is not None and who != owner:
        raise Illegal(f"only {owner}, owner of the larger vehicle, may ask for the re-roll")
    bump = _face(state, "bump", command.get("bump"))
    direction = _face(state, "direction", command.get("direction"))
    return [Event("bump_rerolled", {"bump": bump, "direction": direction})]


def _decide_placed(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.PLACE)
    b = _current_bump(state)
    moved = resolve_vehicle(state, command.get("moved"))
    if moved not in (b.a, b.b):
        raise Illegal(f"the bump moves one of the two stacked vehicles: {b.a} or {b.b}")
    onto = command.get("onto")
    data: dict[str, Any] = {"moved": moved, "onto": None}
    if onto is not None:
        target = resolve_vehicle(state, onto)
        if target == moved:
            raise Illegal("a vehicle cannot land on itself")
        if state.vehicle(target).eliminated:
            raise Illegal(f"{_label(state, target)} has been eliminated: it is not on the road")
        data["onto"] = target
    return [Event("bump_placed", data)]


def _decide_damage(state: ThunderRoadState, command: Command) -> list[Event]:
    if state.step is Step.GAME_OVER:
        raise Illegal("the race is over")
    vid = resolve_vehicle(state, command.get("vehicle"))
    v, kind = state.vehicle(vid), state.kind_of(vid)
    if v.eliminated:
        raise Illegal(f"{_label(state, vid)} has been eliminated")
    on_fire = command.get("on_fire", False)
    if not isinstance(on_fire, bool):
        raise Illegal("on_fire is true when the damage token drawn is ON FIRE!, else false")
    if kind.damage_slots is not None and v.damage >= kind.damage_slots:
        raise Illegal(
            f"{_label(state, vid)} has all {kind.damage_slots} damage slots filled: no slot for another token"
        )
    # Minor damage "fills a slot but has no effect" [seed]: an ON FIRE! token drawn by a Big Rig or a
    # bike fills a slot like any other and does not set it on fire.
    return [Event("damaged", {"vehicle": vid, "on_fire": on_fire and not kind.minor_damage})]


def _decide_ignite(state: ThunderRoadState, command: Command) -> list[Event]:
    if state.step is Step.GAME_OVER:
        raise Illegal("the race is over")
    vid = resolve_vehicle(state, command.get("vehicle"))
    v = state.vehicle(vid)
    if v.eliminated:
        raise Illegal(f"{_label(state, vid)} has been eliminated")
    if v.on_fire:
        raise Illegal(f"{_label(state, vid)} is already ON FIRE!")
    return [Event("ignited", {"vehicle": vid})]


def _decide_road(state: ThunderRoadState, command: Command) -> list[Event]:
    _needs_step(state, Step.TURN, Step.MOVE)
    who = _current_player(state, command)
    assert state.turn is not None
    vid = resolve_vehicle(state, command.get("vehicle"), who)
    if state.vehicle(vid).owner != who:
        raise Illegal(f"{_label(state, vid)} is not yours")
    if state.kind_of(vid).cls == "big_rig" and "traction_drive" not in state.turn.commands:
        raise Illegal(
            "the Big Rig does not use the Road die unless its Traction Drive command is active this turn"
        )
    face = _face(state, "road", command.get("face"))
    return [Event("road_rolled", {"vehicle": vid, "face": int(face)})]


DECIDERS: dict[str, Callable[[ThunderRoadState, Command], list[Event]]] = {
    "roll": _decide_roll,
    "assign": _decide_assign,
    "coast": _decide_coast,
    "command": _decide_command,
    "pass": _decide_pass,
    "fire": _decide_fire,
    "fire_ruling": _decide_fire_ruling,
    "move": _decide_move,
    "scroll": _decide_scroll,
    "finish": _decide_finish,
    "bump": _decide_bump,
    "reroll": _decide_reroll,
    "placed": _decide_placed,
    "damage": _decide_damage,
    "ignite": _decide_ignite,
    "road": _decide_road,
}

#: Commands whose refusal during a turn is an "illegal assignment" the player's screen flashes.
ASSIGNMENTS = ("assign", "coast", "command", "pass")


def decide(state: ThunderRoadState, command: Command) -> Decision:
    if state.step is Step.GAME_OVER:
        raise Illegal(f"the race is over: {state.winner or 'nobody'} won")
    handler = DECIDERS.get(command.type)
    if handler is None:
        raise Illegal(f"unknown command {command.type!r}: the commands are {', '.join(DECIDERS)}, undo")
    try:
        return Decision(tuple(handler(state, command)))
    except Illegal as exc:
        if command.type not in ASSIGNMENTS or state.turn is None:
            raise
        who = command.get("player", state.turn.player)
        if who not in [p.name for p in state.players]:
            raise
        return Decision((Event("assignment_refused", {"player": who, "reason": exc.reason}),), refused=exc.reason)


# -- evolve -----------------------------------------------------------------------------------------------


def _check_last_standing(state: ThunderRoadState) -> ThunderRoadState:
    """"Last player standing wins" [V]."""
    standing = [p.name for p in state.players if state.standing(p.name)]
    if len(standing) <= 1:
        winner = standing[0] if standing else None
        return replace(
            state, step=Step.GAME_OVER, winner=winner, turn=None, bumps=(),
            note=f"{winner} is the last player standing and wins" if winner else "no player is left standing",
        )
    return state


def _eligible(state: ThunderRoadState, p: Player) -> bool:
    return state.standing(p.name) and not p.passed and bool(p.dice)


def _next_turn(state: ThunderRoadState, after_seat: int | None) -> ThunderRoadState:
    """Hand the turn on in seat order, or end the round when nobody has a die to use."""
    n = len(state.players)
    start = state.first if after_seat is None else after_seat + 1
    for i in range(n):
        p = state.players[(start + i) % n]
        if _eligible(state, p):
            return replace(state, step=Step.TURN, turn=Turn(p.name), bumps=(), road_roll=None)
    # the round is over: everyone rolls again
    players = tuple(replace(p, dice=(), rolled=False, command=None, passed=False) for p in state.players)
    vehicles = tuple(replace(v, moved=False, coasts=0) for v in state.vehicles)
    return replace(
        state, players=players, vehicles=vehicles, round=state.round + 1, step=Step.ROLL, turn=None,
        bumps=(), road_roll=None,
    )


def _end_turn(state: ThunderRoadState) -> ThunderRoadState:
    state = _check_last_standing(state)
    if state.step is Step.GAME_OVER:
        return state
    seat = state.player(state.turn.player).seat if state.turn else None
    return _next_turn(state, seat)


def _after_assignment(state: ThunderRoadState, vid: str) -> ThunderRoadState:
    """A die went to a vehicle: a burning vehicle rolls the Fire die before it moves."""
    if state.vehicle(vid).on_fire:
        return replace(state, step=Step.FIRE)
    return replace(state, step=Step.MOVE)


def evolve(state: ThunderRoadState | None, event: Event) -> ThunderRoadState:
    d = event.data
    if event.type == "game_started":
        return _initial(d["options"])
    if state is None:
        raise ValueError(f"the log must begin with game_started, not {event.type}")
    if event.type != "assignment_refused":
        state = replace(state, refusal=None)
    t = event.type

    if t == "dice_rolled":
        state = _replace_player(state, d["player"], dice=tuple(d["dice"]), rolled=True)
        if "first" in d:
            state = replace(state, first=state.player(d["first"]).seat)
        state = replace(state, note=f"{d['player']} rolled {_dice_words(d['dice'])}")
        if all(p.rolled for p in state.players if state.standing(p.name)):
            state = _next_turn(state, None)
        return state

    if t == "die_assigned":
        p = state.player(d["player"])
        state = _replace_player(state, p.name, dice=_remove_die(p.dice, d["die"]))
        state = _replace_vehicle(state, d["vehicle"], moved=True)
        turn = state.turn
        assert turn is not None
        state = replace(
            state,
            turn=replace(turn, action="move", vehicle=d["vehicle"], die=d["die"], allowance=d["die"] + turn.bonus),
            note=f"{_label(state, d['vehicle'])} moves {d['die']}",
        )
        return _after_assignment(state, d["vehicle"])

    if t == "coasted":
        p = state.player(d["player"])
        v = state.vehicle(d["vehicle"])
        state = _replace_player(state, p.name, dice=_remove_die(p.dice, d["die"]))
        state = _replace_vehicle(state, v.id, coasts=v.coasts + 1)
        assert state.turn is not None
        state = replace(
            state,
            turn=replace(state.turn, action="coast", vehicle=v.id, die=d["die"], allowance=COAST_SPACES),
            note=f"{_label(state, v.id)} coasts 1 ({v.coasts + 1}/2)",
        )
        return _after_assignment(state, v.id)

    if t == "command_used":
        p = state.player(d["player"])
        rule = state.tables.command(d["command"])
        state = _replace_player(state, p.name, dice=_remove_die(p.dice, d["die"]))
        if rule.board == "command_board":
            state = _replace_player(state, p.name, command=rule.name)
        turn = state.turn
        assert turn is not None
        turn = replace(turn, commands=turn.commands + (rule.name,))
        if rule.name == "nitro":
            bonus, known = _nitro_bonus(state, d["die"])
            turn = replace(
                turn,
                bonus=turn.bonus + bonus,
                allowance=None if turn.allowance is None else turn.allowance + bonus,
                allowance_known=turn.allowance_known and known,
            )
        note = f"{p.name}: {rule.label} ({d['die']})"
        if "vehicle" in d and rule.name == "repair":
            v = state.vehicle(d["vehicle"])
            state = _replace_vehicle(state, v.id, damage=v.damage - 1)
            note = f"{_label(state, v.id)} repaired: {v.damage - 1} damage"
        return replace(state, turn=turn, note=note)

    if t == "passed":
        state = _replace_player(state, d["player"], passed=True)
        return _end_turn(replace(state, note=f"{d['player']} passes for the rest of the round"))

    if t == "fire_rolled":
        vid = d["vehicle"]
        effect = FireEffect(d["effect"])
        turn = state.turn
        assert turn is not None
        if effect is FireEffect.UNKNOWN:
            return replace(
                state, step=Step.FIRE_RULING, turn=replace(turn, fire_face=d["face"]),
                note=f"Fire die: {d['face']} is not filled in",
            )
        turn = replace(turn, fire_face=None)
        if effect is FireEffect.ELIMINATE:
            state = _replace_vehicle(state, vid, eliminated=True, on_fire=False)
            return _end_turn(replace(state, turn=turn, note=f"{_label(state, vid)} burns out: eliminated"))
        if effect is FireEffect.OUT:
            state = _replace_vehicle(state, vid, on_fire=False)
            return replace(state, step=Step.MOVE, turn=turn, note=f"{_label(state, vid)}: the fire is out")
        if effect is FireEffect.MOVES:
            turn = replace(turn, allowance=(turn.allowance or 0) + d["moves"])
            return replace(state, step=Step.MOVE, turn=turn, note=f"Fire die: +{d['moves']} moves")
        return replace(state, step=Step.MOVE, turn=turn, note="Fire die: no effect, still burning")

    if t == "moved":
        turn = state.turn
        assert turn is not None
        bumps = tuple(Bump(d["vehicle"], hit) for hit in d["collisions"])
        note = f"{_label(state, d['vehicle'])} moved {d['spaces']}"
        if d.get("passed"):
            note += f", drifted past {d['passed']}"
        if bumps:
            return replace(state, step=Step.BUMP, bumps=bumps, note=note + f": {len(bumps)} bump(s)")
        return _end_turn(replace(state, note=note))

    if t == "board_scrolled":
        for vid in d["eliminated"]:
            state = _replace_vehicle(state, vid, eliminated=True)
        board = replace(state.board, lead=state.board.lead + 1)
        gone = ", ".join(d["eliminated"]) or "nobody"
        state = replace(state, board=board, note=f"road scrolled: tile {d['lead']} leads; eliminated: {gone}")
        return _check_last_standing(state)

    if t == "finished":
        return replace(
            state, step=Step.GAME_OVER, winner=d["player"], turn=None, bumps=(),
            note=f"{d['player']} crossed the finish line and wins",
        )

    if t == "bump_rolled":
        b = state.bumps[0]
        return replace(
            state, step=Step.PLACE, bumps=(replace(b, roll=(d["bump"], d["direction"])),) + state.bumps[1:],
            note=f"bump: {d['bump']}, direction {d['direction']}",
        )

    if t == "bump_rerolled":
        b = state.bumps[0]
        return replace(
            state, bumps=(replace(b, roll=(d["bump"], d["direction"]), rerolled=True),) + state.bumps[1:],
            note=f"re-roll: {d['bump']}, direction {d['direction']}",
        )

    if t == "bump_placed":
        rest = state.bumps[1:]
        if d["onto"] is not None:
            rest = (Bump(d["moved"], d["onto"]),) + rest  # a chain bump is resolved next
        state = replace(state, bumps=rest, note=f"{d['moved']} placed" + (f" on {d['onto']}: chain bump" if d["onto"] else ""))
        if rest:
            return replace(state, step=Step.BUMP)
        return _end_turn(state)

    if t == "damaged":
        v = state.vehicle(d["vehicle"])
        state = _replace_vehicle(state, v.id, damage=v.damage + 1, on_fire=v.on_fire or d["on_fire"])
        note = f"{_label(state, v.id)} damaged ({v.damage + 1})" + (" ON FIRE!" if d["on_fire"] else "")
        if state.out_of_service(v.id):
            note += ": out of service"
        return replace(state, note=note)

    if t == "ignited":
        state = _replace_vehicle(state, d["vehicle"], on_fire=True)
        return replace(state, note=f"{_label(state, d['vehicle'])} is ON FIRE!")

    if t == "road_rolled":
        return replace(state, road_roll=(d["vehicle"], d["face"]), note=f"Road die: {d['face']}")

    if t == "assignment_refused":
        return replace(state, refusal=(d["player"], d["reason"]))

    raise ValueError(f"unknown event {t!r}")


# -- prompt ---------------------------------------------------------------------------------------------

ANYTIME = ("damage", "ignite", "undo")


def _command_possible(state: ThunderRoadState, who: str) -> bool:
    """Whether a command could still be taken this turn (board command unused, or a Big Rig section)."""
    p = state.player(who)
    if not p.dice:
        return False
    if p.command is None:
        return True
    has_rig = any(state.tables.kind(v.kind).cls == "big_rig" and not v.eliminated for v in state.fleet(who))
    return has_rig and any(c.board == "big_rig" for c in state.tables.commands)


# -- button choices ---------------------------------------------------------------------------------
#
# Every choice a table can make at a prompt is spelled out in ``prompt.options`` — one short phrase per
# legal command — so that the button panel can offer them with SELECT/OK (``option_command`` turns a
# phrase back into the command) and a script writer sees what is possible.  Only choices the rules accept
# now are listed: each one is tried on the deciders (pure, no events kept), so the list can never drift
# from the rules.  The order is how often a table needs them: the turn's own move first, then commands,
# then the Road die and the damage a table records as it happens.
#
#   "small <- 4"            assign the 4 to your small car      "coast medium <- 2"   coast the medium car
#   "Nitro <- 3"            the Nitro command with the 3        "Repair small <- 6"   Repair on your small car
#   "pass"                  set your remaining dice aside       "road die small"      type a Road-die roll
#   "moved 4"               the move, no vehicle in the way     "moved 4 hit Ben/large"  ended on Ben's large
#   "moved 4 drift Ben/large"  Drift passed Ben's large car     "scroll" / "scroll out Ben/small"  "finish"
#   "moves 2" / "out" / "eliminate" / "nothing"                 a ruling on an unknown Fire-die face
#   "Ana/small"             the bumped vehicle placed           "Ana/small onto Ben/large"  a chain bump
#   "re-roll"               type the re-rolled bump dice        "damage Ben/large" / "damage Ben/large fire"
#   "ignite Ben/large"      a Fire space

ARROW = "<-"


def _short(vid: str) -> str:
    return vid.split("/", 1)[1]


def _command_word(name: str) -> str:
    """``traction_drive`` → ``Traction Drive``: capitalised words tell a command from a vehicle."""
    return " ".join(w.capitalize() for w in name.split("_"))


def _legal(state: ThunderRoadState, kind: str, **args: Any) -> bool:
    try:
        DECIDERS[kind](state, Command(kind, args))
    except Illegal:
        return False
    return True


def _command_options(state: ThunderRoadState, who: str) -> list[str]:
    out = []
    dice = sorted(set(state.player(who).dice))
    for rule in state.tables.commands:
        for d in dice:
            if rule.target == "own_vehicle":
                out += [
                    f"{_command_word(rule.name)} {_short(v.id)} {ARROW} {d}"
                    for v in state.fleet(who)
                    if _legal(state, "command", name=rule.name, die=d, vehicle=v.id)
                ]
            elif _legal(state, "command", name=rule.name, die=d):
                out.append(f"{_command_word(rule.name)} {ARROW} {d}")
    return out


def _road_options(state: ThunderRoadState, who: str) -> list[str]:
    face = state.tables.faces("road")[0]
    return [f"road die {_short(v.id)}" for v in state.fleet(who) if _legal(state, "road", vehicle=v.id, face=face)]


def _damage_options(state: ThunderRoadState, first: Sequence[str]) -> list[str]:
    ids = list(dict.fromkeys([*first, *(v.id for v in state.vehicles)]))
    ids = [vid for vid in ids if not state.vehicle(vid).eliminated]
    out = [f"damage {vid}" for vid in ids if _legal(state, "damage", vehicle=vid)]
    out += [
        f"damage {vid} fire" for vid in ids
        if not state.kind_of(vid).minor_damage and not state.vehicle(vid).on_fire and _legal(state, "damage", vehicle=vid)
    ]
    out += [f"ignite {vid}" for vid in ids if _legal(state, "ignite", vehicle=vid)]
    return out


def turn_options(state: ThunderRoadState) -> tuple[str, ...]:
    """A turn's choices: a die to an unmoved vehicle; else coasts and pass; commands; the Road die; and
    damage after an Airstrike (the table resolves it and records the damage it did)."""
    assert state.turn is not None
    who = state.turn.player
    dice = sorted(set(state.player(who).dice))
    out = [
        f"{_short(v.id)} {ARROW} {d}" for v in state.unmoved(who) for d in dice
        if _legal(state, "assign", vehicle=v.id, die=d)
    ]
    if not out:
        out += [
            f"coast {_short(v.id)} {ARROW} {d}" for v in state.coastable(who) for d in dice
            if _legal(state, "coast", vehicle=v.id, die=d)
        ]
        if _legal(state, "pass"):
            out.append("pass")
    out += _command_options(state, who)
    out += _road_options(state, who)
    if "airstrike" in state.turn.commands:
        out += _damage_options(state, ())
    return tuple(out)


def move_options(state: ThunderRoadState) -> tuple[str, ...]:
    """The move's report: the full allowance first, then a collision at its end (or a Drift past the first
    vehicle), the road scrolling or the finish, a shorter move, commands, the Road die, damage."""
    turn = state.turn
    assert turn is not None and turn.vehicle is not None and turn.allowance is not None
    mover, a = turn.vehicle, turn.allowance
    others = [v.id for v in state.vehicles if v.id != mover and not v.eliminated]
    out = [f"moved {a}"]
    if a >= 1:
        out += [f"moved {a} hit {o}" for o in others]
    if "drift" in turn.commands and a >= 2:
        out += [f"moved {a} drift {o}" for o in others]
    if _legal(state, "finish"):
        out.append("finish")
    if _legal(state, "scroll", eliminated=[]):
        out.append("scroll")
        out += [f"scroll out {o}" for o in others if _legal(state, "scroll", eliminated=[o])]
    top = a if turn.allowance_known else a + MOVEMENT_DICE + 2  # an unknown Nitro bonus: a few more offered
    out += [f"moved {n}" for n in range(top, -1, -1) if n != a]
    out += _command_options(state, turn.player) if turn.action == "move" else []
    out += _road_options(state, turn.player)
    out += _damage_options(state, (mover,))
    return tuple(out)


def place_options(state: ThunderRoadState) -> tuple[str, ...]:
    """Which of the two stacked vehicles the table moved (and onto which vehicle, for a chain bump); the
    larger vehicle's re-roll; damage."""
    b = state.bumps[0]
    out = [b.a, b.b]
    owner, why = larger_owner(state, b)
    if not b.rerolled and why != "same":
        out.append("re-roll")
    others = [v.id for v in state.vehicles if not v.eliminated]
    out += [f"{m} onto {o}" for m in (b.a, b.b) for o in others if o not in (b.a, b.b)]
    out += _damage_options(state, (b.a, b.b))
    return tuple(out)


def option_command(prompt_now: Prompt, option: str) -> Command:
    """The command a button choice (one of ``prompt_now.options``) stands for — the hook ``device.app``
    calls.  A choice that needs dice first ("re-roll", "road die small") gives the command without its
    faces; :func:`option_dice` says which dice to type, and :func:`dice_command` completes it."""
    words = str(option).split()
    if not words:
        raise ValueError("an empty choice")
    if ARROW in words:
        i = words.index(ARROW)
        die, head = int(words[i + 1]), words[:i]
        if head[0] == "coast":
            return Command("coast", {"vehicle": head[1], "die": die})
        if head[0][:1].isupper():
            name = "_".join(w.lower() for w in head if w[:1].isupper())
            args: dict[str, Any] = {"name": name, "die": die}
            rest = [w for w in head if not w[:1].isupper()]
            if rest:
                args["vehicle"] = rest[0]
            return Command("command", args)
        return Command("assign", {"vehicle": head[0], "die": die})
    first = words[0]
    if first == "moved":
        spaces = int(words[1])
        move: dict[str, Any] = {"spaces": spaces}
        if len(words) == 4:
            move["occupied"] = [{"at": spaces if words[2] == "hit" else 1, "vehicle": words[3]}]
        return Command("move", move)
    if first == "scroll":
        return Command("scroll", {"eliminated": words[2:3]})
    if first == "moves":
        return Command("fire_ruling", {"effect": "moves", "moves": int(words[1])})
    if first in ("out", "eliminate", "nothing") and len(words) == 1:
        return Command("fire_ruling", {"effect": first})
    if first == "re-roll":
        return Command("reroll")
    if first == "road":
        return Command("road", {"vehicle": words[-1]})
    if first == "damage":
        return Command("damage", {"vehicle": words[1], "on_fire": words[-1] == "fire"})
    if first == "ignite":
        return Command("ignite", {"vehicle": words[1]})
    if "/" in first:
        placed: dict[str, Any] = {"moved": first}
        if len(words) == 3 and words[1] == "onto":
            placed["onto"] = words[2]
        return Command("placed", placed)
    return Command(first)  # "pass", "finish"


def option_dice(prompt_now: Prompt, option: str) -> Prompt | None:
    """For a choice that needs dice ("re-roll", "road die small"): the prompt the dice entry answers (its
    ``die``, ``count`` and ``vehicle``), handed back to :func:`dice_command` with the faces; else None."""
    words = str(option).split()
    if words == ["re-roll"]:
        return replace(prompt_now, text="re-roll the bump and direction dice", awaits="dice", die="bump", count=2)
    if words[:2] == ["road", "die"] and len(words) == 3:
        return replace(prompt_now, text=f"Road die for {words[2]}", awaits="dice", die="road", count=1, vehicle=words[2])
    return None


def prompt(state: ThunderRoadState) -> Prompt:
    s = state.step
    if s is Step.GAME_OVER:
        text = f"{state.winner} wins!" if state.winner else "the race is over"
        return Prompt(text, s.value, "nothing", player=state.winner, commands=("undo",))
    if s is Step.ROLL:
        waiting = [p.name for p in state.players if state.standing(p.name) and not p.rolled]
        who = waiting[0]
        return Prompt(
            f"round {state.round}: {', '.join(waiting)} roll {MOVEMENT_DICE} movement dice",
            s.value, "dice", player=who, die="movement", count=MOVEMENT_DICE, commands=("roll",) + ANYTIME,
        )
    turn = state.turn
    assert turn is not None
    who = turn.player
    if s is Step.TURN:
        p = state.player(who)
        unmoved = [v.id.split("/", 1)[1] for v in state.unmoved(who)]
        cmds: list[str] = []
        if unmoved:
            text = f"{who}: assign a die ({_dice_words(p.dice)}) to {', '.join(unmoved)}"
            cmds.append("assign")
        else:
            coast = [v.id.split("/", 1)[1] for v in state.coastable(who)]
            if coast and not turn.commands:
                text = f"{who}: no vehicle left to move: coast {', '.join(coast)} or pass"
                cmds.append("coast")
            else:
                text = f"{who}: nothing left to move: pass"
            cmds.append("pass")
        if _command_possible(state, who):
            cmds.append("command")
        cmds.append("road")
        return Prompt(text, s.value, "choice", player=who, options=turn_options(state), commands=tuple(cmds) + ANYTIME)
    vehicle = turn.vehicle
    if s is Step.FIRE:
        return Prompt(
            f"{_label(state, vehicle)} is ON FIRE!: roll the Fire die before it moves",
            s.value, "dice", player=who, vehicle=vehicle, die="fire", count=1, commands=("fire",) + ANYTIME,
        )
    if s is Step.FIRE_RULING:
        return Prompt(
            f"Fire die face {turn.fire_face!r} is not filled in: rule on it (moves / out / eliminate / "
            "nothing) and fill it in fire_die.toml",
            s.value, "choice", player=who, vehicle=vehicle,
            options=tuple(f"moves {n}" for n in range(1, 7)) + ("out", "eliminate", "nothing"),
            commands=("fire_ruling",) + ANYTIME,
        )
    if s is Step.MOVE:
        allowance = f"{turn.allowance}" + ("" if turn.allowance_known else "+Nitro")
        extra = " (Drift: pass the first occupied space)" if "drift" in turn.commands else ""
        cmds = ["move", "scroll", "finish"]
        if turn.action == "move" and _command_possible(state, who):
            cmds.append("command")
        cmds.append("road")
        return Prompt(
            f"move {_label(state, vehicle)} {allowance} space{'' if allowance == '1' else 's'}{extra}",
            s.value, "move", player=who, vehicle=vehicle, options=move_options(state), commands=tuple(cmds) + ANYTIME,
        )
    b = state.bumps[0]
    if s is Step.BUMP:
        return Prompt(
            f"bump {b.a} / {b.b}: roll the bump and direction dice ({len(state.bumps)} to resolve)",
            s.value, "dice", player=who, vehicle=b.a, die="bump", count=2, commands=("bump",) + ANYTIME,
        )
    owner, why = larger_owner(state, b)
    cmds = ["placed"]
    text = f"place the bumped vehicle ({b.roll[0]}, direction {b.roll[1]})" if b.roll else "place the bumped vehicle"
    if not b.rerolled and why != "same":
        cmds.append("reroll")
        text += f"; {owner} (larger vehicle) may re-roll both once" if owner else "; the larger vehicle's owner may re-roll both once"
    return Prompt(text, s.value, "choice", player=who, vehicle=b.a, options=place_options(state), commands=tuple(cmds) + ANYTIME)


def dice_command(prompt_now: Prompt, faces: Sequence[Any]) -> Command | None:
    """The command that dice read by the camera (or typed on the buttons) make for ``prompt_now``
    (the hook ``device.app`` calls for a game whose dice commands are its own).

    ``faces`` are the faces in the order the prompt asks: 4 movement dice for the player named in the
    prompt; one Fire-die face; the bump die then the direction die.  The entry offers the faces of the
    prompt's ``die`` only, so a direction typed as the bump die's N-th face is read as direction N.
    None when the prompt awaits no dice or the count is wrong (the caller keeps reading).
    """
    if prompt_now.die is None or prompt_now.count is None or len(faces) != prompt_now.count:
        return None
    if prompt_now.die == "movement":
        return Command("roll", {"player": prompt_now.player, "dice": list(faces)})
    if prompt_now.die == "fire":
        return Command("fire", {"face": faces[0]})
    if prompt_now.die == "road":  # a Road-die choice (option_dice): the vehicle rides in the prompt
        return Command("road", {"vehicle": prompt_now.vehicle, "face": faces[0]})
    if prompt_now.die == "bump":
        direction = faces[1]
        bump_faces = [str(f) for f in load_table("dice")["bump"]["faces"]]
        directions = load_table("dice")["direction"]["faces"]
        if str(direction) in bump_faces and len(directions) == len(bump_faces):
            direction = directions[bump_faces.index(str(direction))]
        kind = "reroll" if prompt_now.step == Step.PLACE.value else "bump"  # the "re-roll" choice's entry
        return Command(kind, {"bump": faces[0], "direction": direction})
    return None
