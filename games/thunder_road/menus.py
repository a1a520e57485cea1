"""Thunder Road with the buttons: what a player can do at each step, as a short menu in the rules' words.

* roll — Roll movement dice (the player whose dice are awaited; the others' rolls after it); Damage…
* turn — Move a vehicle… (vehicle → die) or Coast… (vehicle → die) / Pass; Command… (command → die
  → vehicle for Repair); Road die… (vehicle → the Road-die roll); Damage…
* Fire die — Roll the Fire die; ruling on a face not filled in: Moves… / Fire out / Eliminated / No effect
* move — Moved N (the allowance); Met a vehicle… (who → where: at the end, or passed at space k);
  Other distance…; Road scrolls…; Finish line; Command…; Road die…; Damage…  With the allowance not known (a
  Nitro of unknown size, a Road die): Moved how far… (every distance) first, no Moved N.
* bump — Roll bump dice; place — which vehicle was moved (or Chain bump… onto which), Re-roll (larger)
* Damage… — the vehicle (the ones in play first, then by player when there are many) → Damage token
  (the usual one: NEXT takes it) / ON FIRE! token / Fire space

Vehicles are named as a player says them: "Small car" for your own, "Ben's Large car" for another's.
Every leaf is checked against the rules before it is offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games.core import Command
from games.core.table_input import (
    FIRST_LEVEL_MAX, READING_SEP, Choice, DiceRequest, Menu, accepted_by, branch, keep_legal, leaf, roll,
)
from games.thunder_road import rules
from games.thunder_road.bumps import reroll_owners
from games.thunder_road.common import allowance_known, allowance_line, met_on_the_way, own_label
from games.thunder_road.movement import bumped_vehicles
from games.thunder_road.prompt import meet_another
from games.thunder_road.state import MOVEMENT_DICE, Step, ThunderRoadState, Vehicle
from games.thunder_road.turn import command_turn_ends

#: A flat list of vehicles holds at most this many; more are grouped by player.
FLAT_VEHICLES = 6
#: Distances offered by "Moved how far…" beyond the die when the allowance is not known (a Nitro of unknown size, a
#: Road die rolled: ``common.allowance_known``).
UNKNOWN_EXTRA = MOVEMENT_DICE + 2
#: The coast's branch: a die assigned to a vehicle already moved, which moves it 1 space.
COAST = "Coast: 1 space…"

TITLES: dict[str, str] = {
    Step.ROLL.value: "Roll",
    Step.TURN.value: "Your turn",
    Step.FIRE.value: "ON FIRE!",
    Step.FIRE_RULING.value: "Fire die ruling",
    Step.MOVE.value: "Move",
    Step.BUMP.value: "Bump",
    Step.PLACE.value: "Place bumped",
    Step.GAME_OVER.value: "Race over",
}


def vehicle_name(state: ThunderRoadState, vid: str, viewer: str | None = None) -> str:
    """"Small car" to its owner, "Ben's Small car" to anybody else; "Bike 2" when a fleet has several."""
    name, owner = own_label(state, vid), state.vehicle(vid).owner
    return name if viewer == owner else f"{owner}'s {name}"


def _short_name(state: ThunderRoadState, vid: str, viewer: str | None = None) -> str:
    """"Ana's Large" for a status line, where "Ana's Large car / Cy's Big Rig" would not fit ("Large" for
    the viewer's own)."""
    return vehicle_name(state, vid, viewer).removesuffix(" car")


def _moving_status(state: ThunderRoadState, who: str) -> str:
    """The menu's status line while a vehicle moves: the vehicle, its allowance as the prompt says it
    ("4+Nitro spaces": Nitro's spaces are not known; "1 space"), and a coast or a Drift, which change how
    it moves ("Small car 2 · 2 spaces · Drift")."""
    turn = state.turn
    assert turn is not None and turn.vehicle is not None
    allowance = allowance_line(state)
    parts = [vehicle_name(state, turn.vehicle, who), allowance]
    # the vehicles reported met before the move: "drifted past Ben's Medium", "hit Cy's Large at 3"
    parts += [f"drifted past {_short_name(state, vid, who)}" if passed else f"hit {_short_name(state, vid, who)} at {at}"
              for passed, at, vid in met_on_the_way(state)]
    if state.road_roll is not None and state.road_roll[0] == turn.vehicle and "+Road die" not in allowance:
        parts.append(f"Road die {state.road_roll[1]}")  # the face entered, on the screen (a coast's: not in its 1)
    if turn.off_rear:  # named as on the rear tile the scroll removes
        parts.append("off at the scroll: " + ", ".join(_short_name(state, vid, who) for vid in turn.off_rear))
    return " · ".join(parts)


def _legal(state: ThunderRoadState) -> Callable[[Command], bool]:
    return accepted_by(rules.decide, state)


def _road_command(vid: str) -> Callable[[Sequence[int | str]], Command]:
    """The Road die's command for vehicle ``vid`` once its face is entered."""
    return lambda faces: Command("road", {"vehicle": vid, "face": faces[0]})


def _chain_bump_leaf(moved: str) -> Callable[[Vehicle, str], Choice | None]:
    """"``moved`` was placed onto this vehicle" (a chain bump), one leaf per vehicle it may land on."""
    return lambda v, name: leaf(name, Command("placed", {"moved": moved, "onto": v.id}))


def _by_player(state: ThunderRoadState, vehicles: Sequence[Vehicle], viewer: str | None,
               make: Callable[[Vehicle, str], Choice | None], first: Sequence[str] = (), *,
               grouped: bool = False) -> list[Choice | None]:
    """Choices for ``vehicles``: the ``first`` ones (the mover, the bumped pair) at the top, then the rest —
    flat while they are few (unless ``grouped``), else one list per player starting with ``viewer``.  ``make`` gets the vehicle
    and the name to show: "Ben's Large car" in a flat list, "Large car" in Ben's own list (its title names
    him already, and "Dominique's Medium car" would only fit the line in the smallest, unreadable size)."""
    ids = {v.id for v in vehicles}
    head = [state.vehicle(vid) for vid in dict.fromkeys(first) if vid in ids]
    rest = [v for v in vehicles if v not in head]
    if not grouped and len(head) + len(rest) <= FLAT_VEHICLES:
        return [make(v, vehicle_name(state, v.id, viewer)) for v in (*head, *rest)]
    seats = [p.name for p in state.players]
    start = seats.index(viewer) if viewer in seats else 0
    order = seats[start:] + seats[:start]
    out: list[Choice | None] = [make(v, vehicle_name(state, v.id, viewer)) for v in head]
    for name in order:
        mine = [v for v in rest if v.owner == name]
        if mine:
            label = "Your vehicles" if name == viewer else name
            out.append(branch(label, [make(v, vehicle_name(state, v.id, v.owner)) for v in mine]))
    return out


def _damage(state: ThunderRoadState, viewer: str | None, first: Sequence[str], *, rule_out: bool) -> Choice | None:
    """Damage… → the vehicle (the ones in play first, then by player) → a damage token (the usual: NEXT
    takes it), a damage token showing ON FIRE!, a Fire space entered, or (``rule_out``: between moves) out of
    the race by the table's ruling (off the board's side, say, as the owner's rulebook has it)."""
    alive = [v for v in state.vehicles if not v.eliminated]

    def kinds(v: Vehicle, name: str) -> Choice | None:
        can_burn = state.kind_of(v.id).damage_fire is not False and not v.on_fire
        return branch(name, [
            leaf("Damage token", Command("damage", {"vehicle": v.id, "on_fire": False}), default=True),
            leaf("ON FIRE! token", Command("damage", {"vehicle": v.id, "on_fire": True})) if can_burn else None,
            leaf("Fire space", Command("ignite", {"vehicle": v.id})) if not v.on_fire else None,
            leaf("Out of the race", Command("eliminate", {"vehicle": v.id})) if rule_out else None,
        ])

    return branch("Damage…", _by_player(state, alive, viewer, kinds, first))


def _commands(state: ThunderRoadState, who: str) -> Choice | None:
    """Command… → the command (Nitro, Drift, Repair …) → the die → (Repair: the vehicle)."""
    dice = sorted(set(state.player(who).dice))
    out: list[Choice | None] = []
    for rule in state.tables.commands:
        if rule.target == "own_vehicle":
            kids = [branch(f"Die {d}", [leaf(vehicle_name(state, v.id, who),
                                             Command("command", {"name": rule.name, "die": d, "vehicle": v.id}))
                                        for v in state.fleet(who)]) for d in dice]
        else:
            kids = [leaf(f"Die {d}", Command("command", {"name": rule.name, "die": d})) for d in dice]
        out.append(branch(rule.label, kids))
    return branch("Command…", out)


def _road_die(state: ThunderRoadState, who: str) -> Choice | None:
    faces = state.tables.faces("road")
    kids = []
    for v in state.fleet(who):
        if not _legal(state)(Command("road", {"vehicle": v.id, "face": faces[0]})):
            continue
        request = DiceRequest("road", 1, f"Road die for {vehicle_name(state, v.id, who)}",
                              _road_command(v.id), faces=_faces(state, "road"))
        rolled = f"{READING_SEP}rolled {state.road_roll[1]}" if state.road_roll and state.road_roll[0] == v.id else ""
        kids.append(roll(vehicle_name(state, v.id, who) + rolled, request))
    return branch("Road die…", kids)


def _assign(state: ThunderRoadState, who: str, kind: str, vehicles: Sequence[Vehicle], label: str,
            default: bool) -> Choice | None:
    dice = sorted(set(state.player(who).dice))
    return branch(label, [
        branch(vehicle_name(state, v.id, who), [leaf(f"Die {d}", Command(kind, {"vehicle": v.id, "die": d}))
                                                 for d in dice])
        for v in vehicles
    ], default=default)


def _faces(state: ThunderRoadState, die: str) -> tuple[int | str, ...]:
    """The faces a die offers on the buttons: this game's own, the setup file's overrides included (the
    packaged names were offered, and every one refused, with an owner's [fire_die] or [dice.bump])."""
    faces = [f.label for f in state.tables.fire] if die == "fire" else state.tables.faces(die)
    return tuple(dict.fromkeys(faces))


def _movement_roll(state: ThunderRoadState, player: str, first: str | None = None) -> DiceRequest:
    """``player``'s movement dice (``first``: who goes first this round, said with the round's first roll)."""
    # the page's title says whose dice ("Benedikt's dice"): the label repeated the name and shrank to 8 px
    said = {} if first is None else {"first": first}
    # under "Another goes first… › Cy first" the page's title names who goes first: the label says whose dice
    label = f"{MOVEMENT_DICE} movement dice" if first is None else f"{player}'s {MOVEMENT_DICE} movement dice"
    return DiceRequest("movement", MOVEMENT_DICE, label,
                       lambda faces: Command("roll", {"player": player, "dice": list(faces), **said}),
                       faces=_faces(state, "movement"))


def _bump_roll(state: ThunderRoadState, kind: str) -> DiceRequest:
    """The bump die and the direction die as the camera reads them: one roll of two dice, both read with
    the bump die's faces (a direction die read as the bump die's N-th face is direction N)."""
    bump_faces = [str(f) for f in state.tables.faces("bump")]
    directions = list(state.tables.faces("direction"))

    def build(faces: Sequence[Any]) -> Command:
        direction = faces[1]
        if str(direction) in bump_faces and len(directions) == len(bump_faces):
            direction = directions[bump_faces.index(str(direction))]  # the second die typed as a bump face
        return Command(kind, {"bump": faces[0], "direction": direction})

    return DiceRequest("bump", 2, "the bump die, then the direction die", build, faces=_faces(state, "bump"))


def _bump_entry(state: ThunderRoadState, kind: str) -> DiceRequest:
    """The same roll on the buttons: the bump die, then the direction die with its own faces."""
    directions = _faces(state, "direction")
    return DiceRequest("bump", 1, "the bump die", lambda b: DiceRequest(
        "direction", 1, "the direction die", lambda d: Command(kind, {"bump": b[0], "direction": d[0]}),
        faces=directions), faces=_faces(state, "bump"))


def _met(state: ThunderRoadState, who: str, mover: str, allowance: int, drift: bool,
         top: int | None = None) -> Choice | None:
    """Met a vehicle… → which vehicle → where: ending on it, or hitting it at space k on the way (both a bump:
    "the vehicle passes through the first space it reaches that holds another road vehicle without hitting it"
    only with Drift, which "Drifted past it" says).  A move through two or more vehicles: "Then met another…"
    → where this one stood reports it alone (``met``), and the menu comes back for the next one or the move;
    the vehicles met so far are on the status line, and each later one stood further on.  ``top``: the furthest
    space the move may reach when its allowance is not known (a Nitro of unknown size: "Ended on it" recorded the
    die's spaces alone, and a vehicle ended on beyond them could not be entered: an audit), as "Moved how far…"
    offers: "Ended on it at space k" up to it."""
    top = allowance if top is None else top
    turn = state.turn
    assert turn is not None
    met = turn.met
    after = met[-1][0] if met else 0  # a vehicle met next stood beyond the last one met
    passing = drift and not met  # Drift passes the first occupied space only
    others = [v for v in state.vehicles if v.id != mover and not v.eliminated and v.id not in {vid for _, vid in met}]

    def where(v: Vehicle, name: str) -> Choice | None:
        def move(at: int, spaces: int = allowance) -> Command:
            return Command("move", {"spaces": spaces, "occupied": [{"at": at, "vehicle": v.id}]})

        def met_at(at: int) -> Command:
            return Command("met", {"vehicle": v.id, "at": at})

        spots: list[Choice | None] = [leaf("Ended on it", move(allowance), default=True)]
        # beyond the die, with the allowance not known: the move ended on it there
        spots += [leaf(f"Ended on it at space {k}", move(k, k)) for k in range(max(allowance, after) + 1, top + 1)]
        then: list[Choice | None] = []
        if passing and allowance > after + 1:  # the first vehicle met on the way is passed, wherever it stood
            # (a move of 1 meets it only where it ends, and "if it ends its move on an occupied space it hits it
            # anyway")
            spots.append(leaf("Drifted past it", move(after + 1)))
            then.append(leaf("Drifted past it", met_at(after + 1)))
        elif not passing:
            spots += [leaf(f"Hit it at space {k}", move(k)) for k in range(after + 1, allowance)]
            then += [leaf(f"Hit it at space {k}", met_at(k)) for k in range(after + 1, allowance)]
        if meet_another(state):  # another vehicle is still there to meet beyond it (the prompt's own rule)
            spots.append(branch("Then met another…", then))
        return branch(name, spots)

    return branch("Met a vehicle…", _by_player(state, others, who, where))


def _move(state: ThunderRoadState, commands: Sequence[str]) -> list[Choice | None]:
    turn = state.turn
    assert turn is not None and turn.vehicle is not None and turn.allowance is not None
    who, mover, a = turn.player, turn.vehicle, turn.allowance
    known = allowance_known(state)
    met = _met(state, who, mover, a, "drift" in turn.commands, a if known else a + UNKNOWN_EXTRA) if a >= 1 else None
    out: list[Choice | None]
    if known:
        out = [leaf(f"Moved {a}", Command("move", {"spaces": a}), default=True), met,
               branch("Other distance…", [leaf(f"Moved {n}", Command("move", {"spaces": n}))
                                          for n in range(a, -1, -1) if n != a])]
    else:
        # what a Nitro of unknown size or a Road die adds is not known: the cursor sat on "Moved 4", the die alone,
        # and OK recorded it under "4+Nitro spaces" (an audit); the table counts the spaces and picks them
        # more than the die first, the nearest first (the list of 12 opened on "Moved 11", the least likely; an audit),
        # the die's own and fewer below them: each list within eight
        out = [branch("Moved how far…", [
            *(leaf(f"Moved {n}", Command("move", {"spaces": n})) for n in range(a + 1, a + UNKNOWN_EXTRA + 1)),
            branch(f"Moved {a} or fewer…", [leaf(f"Moved {n}", Command("move", {"spaces": n}))
                                             for n in range(a, -1, -1)])]), met]
    if "scroll" in commands:
        out.append(_road_scrolls(state, who, (mover,)))
    if "finish" in commands:
        out.append(leaf("Finish line", Command("finish")))
    return out


def _road_scrolls(state: ThunderRoadState, who: str, leaving: tuple[str, ...]) -> Choice | None:
    """The road scrolls: a vehicle left the front (``leaving``: the mover, or the two stacked vehicles a bump
    moves) and the vehicles on the rear tile are eliminated with it."""
    turn = state.turn
    assert turn is not None
    others = [v for v in state.vehicles if not v.eliminated and v.id not in leaving]

    def two_off(first: Vehicle, name: str) -> Choice | None:
        # "remove the rear tile (vehicles on it are eliminated)": two on it were one scroll each, the
        # second recorded as one more tile removed.  Each pair once: the second is seated after the first.
        rest = others[others.index(first) + 1:]
        if not rest:
            return None
        # the second in its owner's list, named as its owner names it, even when few are left ("Dominique's
        # Medium car" with the list's arrow overran the line)
        return branch(name, _by_player(state, rest, who, lambda v, second: leaf(
            second, Command("scroll", {"eliminated": [first.id, v.id]}), once=True), grouped=True))

    def named_off(v: Vehicle, name: str) -> Choice:
        return leaf(name, Command("off", {"vehicle": v.id}), once=True)

    pending = turn.off_rear
    if pending:
        # three or more on the rear tile, named one at a time: the scroll with them, or one more
        rest = [v for v in others if v.id not in pending]
        return branch("Road scrolls…", [
            leaf(f"Scroll: {len(pending)} off", Command("scroll", {"eliminated": []}), default=True, once=True),
            branch("One more off…", _by_player(state, rest, who, named_off)) if rest else None,
        ])
    # "remove the rear tile (vehicles on it are eliminated)": with five players three or more on it is usual,
    # and the list stopped at two (a second scroll would move the road twice)
    return branch("Road scrolls…", [
        # (taken once: the line reads the same after it, and a second OK scrolled the road again; a vehicle named
        # off as well: two OKs more scrolled the road again and eliminated the list's next vehicle, an audit)
        leaf("Nobody off the road", Command("scroll", {"eliminated": []}), default=True, once=True),
        *_by_player(state, others, who, lambda v, name: leaf(f"{name} off", Command("scroll", {"eliminated": [v.id]}),
                                                             once=True),
                    grouped=len(others) > FIRST_LEVEL_MAX - 3),  # a list holds eight
        branch("Two off…", _by_player(state, others, who, two_off)) if len(others) >= 2 else None,
        branch("Three or more off…", _by_player(state, others, who, named_off)) if len(others) >= 3 else None,
    ])


def menu(state: ThunderRoadState) -> Menu:
    p = rules.prompt(state)
    commands = p.commands
    step = state.step
    title = TITLES.get(step.value, step.value)
    turn = state.turn
    if step is Step.FIRE_RULING and turn is not None:
        title = f"Fire die {turn.fire_face}: rule"  # the face read is shown, not only the terminal's prompt
    elif step is Step.PLACE and state.bumps and state.bumps[0].roll:
        roll_ = state.bumps[0].roll  # what the bump die and the direction die said: the table places by it
        # each face with its die, as the dice entry keeps them ("bump die bump6"): a face the owner renamed
        # ("Front") read alone beside "direction 3" (a screens review); a long title turns on its bar
        title = f"bump die {roll_[0]} · direction {roll_[1]}"
    if step is Step.GAME_OVER:
        return Menu(title, (), p.player, p.text)
    who = p.player
    dice: DiceRequest | None = None
    choices: list[Choice | None] = []
    first: list[str] = []
    status = ""
    pass_words = "Pass"
    if step is Step.ROLL:
        waiting = [pl.name for pl in state.players if state.standing(pl.name) and not pl.rolled]
        dice = _movement_roll(state, waiting[0])
        choices.append(roll(f"{waiting[0]}'s dice", dice, default=True))
        choices += [roll(f"{name}'s dice", _movement_roll(state, name)) for name in waiting[1:]]
        # the first player still in the race from the round's first seat: the first turn goes there (a screens
        # walkthrough: "Roll, first: Ana" with Ana out of the race, and Dominique moved first)
        seats = len(state.players)
        first_name = next((pl.name for i in range(seats) if state.standing(
            (pl := state.players[(state.first + i) % seats]).name)), state.players[state.first].name)
        status = f"round {state.round}: {len(waiting)} to roll"
        # the title has room; the status line had not ("… · Ana first" at 9 px); the name last, where a title too long
        # for its bar is cut: "Roll: <a long name> first" lost "first", and nothing else said who goes first (a review)
        title = f"{title}, first: {first_name}"
        if not any(pl.rolled for pl in state.players):
            # who goes first is said with the round's first roll (``roll {first}``): the buttons could not say it,
            # so a table passing the first turn round the table was stuck with the setup's first player
            choices.append(branch("Another goes first…", [
                roll(f"{pl.name} first", _movement_roll(state, waiting[0], first=pl.name))
                for pl in state.players if pl.name != first_name and state.standing(pl.name)]))
    elif turn is not None:
        who = turn.player
        # after a command alone the turn only ends ("End turn"): the player is not out of the round
        command_turn = step is Step.TURN and command_turn_ends(state, who)
        pass_words = "End turn" if command_turn else "Pass"
        dice_left = " ".join(str(d) for d in sorted(state.player(who).dice)) or "none"
        status = f"{who} · dice {dice_left}"
        if turn.vehicle is not None:
            first.append(turn.vehicle)
            status = _moving_status(state, who)
        if step is Step.TURN:
            if command_turn:  # why "End turn" is the way on, and no Coast is offered
                status = f"{who} · a command turn: no coast"
            elif "pass" in commands and "assign" not in commands and "coast" not in commands:
                # why Pass is all there is (a walkthrough: the line said only the dice, a Large car's two coasts
                # used and a Small car out of service were nowhere)
                status = f"{who} · no move or coast left"
            if "assign" in commands:
                choices.append(_assign(state, who, "assign", state.unmoved(who), "Move a vehicle…", True))
            if "coast" in commands:
                # "a coast counts as a move of 1": "Coast 1…", beside the dashboard's two coast rings, read as the
                # first coast (a screens review)
                choices.append(_assign(state, who, "coast", state.coastable(who), COAST, True))
            if "pass" in commands:
                if "coast" in commands:
                    # passing gives up the dice left for the round (the player is out of it): "Pass" beside
                    # "Coast…" did not say so, and the 6 kept on the dashboard looked like a die to play
                    pass_words = "Pass: out of round"
                choices.append(leaf(pass_words, Command("pass"), default="coast" not in commands))
        elif step is Step.FIRE:
            dice = DiceRequest("fire", 1, "the Fire die", lambda f: Command("fire", {"face": f[0]}),
                               faces=_faces(state, "fire"))
            choices.append(roll("Roll the Fire die", dice, default=True))
        elif step is Step.FIRE_RULING:
            choices += [
                branch("Moves…", [leaf(f"{n} more space{'s' if n > 1 else ''}",
                                       Command("fire_ruling", {"effect": "moves", "moves": n})) for n in range(1, 7)]),
                leaf("Fire out", Command("fire_ruling", {"effect": "out"})),
                leaf("Eliminated", Command("fire_ruling", {"effect": "eliminate"})),
                leaf("No effect", Command("fire_ruling", {"effect": "nothing"}), default=True),
            ]
        elif step is Step.MOVE:
            choices += _move(state, commands)
        elif step in (Step.BUMP, Step.PLACE):
            b = state.bumps[0]
            first += [b.a, b.b]
            status = f"Bump: {_short_name(state, b.a, who)} / {_short_name(state, b.b, who)}"
            if turn is not None and turn.off_rear:  # named as on the rear tile the scroll removes
                status += " · off at the scroll: " + ", ".join(_short_name(state, vid, who) for vid in turn.off_rear)
            if b.scrolled:
                status += " · to the new lead tile"
            if step is Step.BUMP:
                dice = _bump_roll(state, "bump")
                choices.append(roll("Roll bump dice", _bump_entry(state, "bump"), default=True))
            else:
                choices += [leaf(f"Moved {vehicle_name(state, vid, who)}", Command("placed", {"moved": vid}),
                                 default=k == 0) for k, vid in enumerate((b.a, b.b))]
                if "reroll" in commands:
                    # whose right it is, on the screen of whoever holds the menu (the larger vehicle's owner;
                    # either owner while the sizes are unknown)
                    owners = reroll_owners(state, b)
                    choices.append(roll(f"Re-roll ({' or '.join(owners)})", _bump_entry(state, "reroll")))
                # after a scroll the vehicle goes onto the new lead tile, where nobody stands: no chain bump
                others = [] if b.scrolled else [v for v in state.vehicles if not v.eliminated and v.id not in (b.a, b.b)]
                choices.append(branch("Chain bump…", [
                    branch(f"{vehicle_name(state, vid, who)} onto", _by_player(
                        state, others, who, _chain_bump_leaf(vid)))
                    for vid in (b.a, b.b)]))
                if "scroll" in commands:  # the dice moved one off the front: the road scrolls before it is placed
                    choices.append(_road_scrolls(state, who, bumped_vehicles(state)))
                if "finish" in commands:
                    # the rules do not say whether a bump over the final tile's line wins: the table rules, one
                    # list down, the winner named (docs/RULINGS.md)
                    choices.append(branch("Over the finish line…", [
                        leaf(f"{vehicle_name(state, vid, who)}: {state.vehicle(vid).owner} wins",
                             Command("finish", {"vehicle": vid})) for vid in (b.a, b.b)]))
        if "command" in commands:
            choices.append(_commands(state, who))
        if "road" in commands:
            choices.append(_road_die(state, who))
    if "damage" in commands or "ignite" in commands:
        choices.append(_damage(state, who, first, rule_out="eliminate" in commands))
    usual = {Step.FIRE: "Roll the Fire die", Step.BUMP: "Roll bump dice"}.get(step)
    if step is Step.ROLL:
        usual = choices[0].label if choices and choices[0] is not None else None
    elif step is Step.MOVE and turn is not None:
        # vehicles named off the rear tile: the scroll with them is the way on (NEXT moved on without it)
        # a Nitro whose added moves are not filled in: the distance is the player's to choose (NEXT recorded the
        # die's alone, "Moved 3", under a line that said "3+Nitro spaces")
        usual = "Road scrolls…" if turn.off_rear else f"Moved {turn.allowance}" if allowance_known(state) else None
    elif step is Step.PLACE and turn is not None and turn.off_rear:
        usual = "Road scrolls…"
    elif step is Step.TURN and "pass" in commands and "coast" not in commands:
        usual = pass_words  # nothing left to move and nothing to coast: passing (ending a command turn) is the way on
    return Menu(title, keep_legal(choices, _legal(state)), who, status, dice).with_advance(usual)
