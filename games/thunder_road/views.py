"""Per-player views: what each player's 128x64 screen shows, derived from the state only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core import Alert, Event

from games.thunder_road.bumps import larger_owner, reroll_owners
from games.thunder_road.common import allowance_line, in_sentence, own_label, vehicle_words
from games.thunder_road.prompt import prompt
from games.thunder_road.state import PlayerView, Step, ThunderRoadState, VehicleView


def _alerts(state: ThunderRoadState, name: str) -> tuple[Alert, ...]:
    alerts: list[Alert] = []
    turn = state.turn
    if state.step in (Step.FIRE, Step.FIRE_RULING) and turn is not None and turn.player == name and turn.vehicle:
        what = "roll the Fire die" if state.step is Step.FIRE else "the table rules on the Fire die"
        alerts.append(Alert("fire_roll", f"{what} for {own_label(state, turn.vehicle)}", name))
    if state.step is Step.PLACE and state.bumps and turn is not None and turn.player != name:
        # the re-roll is in the turn player's menu: an owner who may ask for it sees so on their own screen
        if name in reroll_owners(state, state.bumps[0]):
            # in the rule's words ("its owner may ask for one re-roll of both dice"), whole in the alert box's three
            # lines ("… you may re-roll the bump dice once: Re-…" lost whose menu holds it); sizes the owner has not
            # filled in: either owner may ask, "if one vehicle is larger"
            known = larger_owner(state, state.bumps[0])[0] is not None
            right = "you may ask for one" if known else "if yours is larger: one"
            # with the roll it is about: the owner deciding on a re-roll saw no bump die, no direction (only the
            # mover's title bar had them: a screens walkthrough); in pieces where it is long (the dashboard's)
            bump, direction = state.bumps[0].roll or ("?", "?")
            alerts.append(Alert("reroll", f"bump die {bump} · direction die {direction}: {right} re-roll of both "
                                          f"dice, in {turn.player}'s menu", name))
    # a standing state its column says ("OUT"), and the news told when it came: flashed over its owner's screen on
    # their turn only when it keeps every vehicle they have yet to move still (nothing else to assign a die to).
    # Flashed for the whole of each of their turns, it hid the rest of the dashboard, a Big Rig's FIRE among it,
    # three quarters of the time (a screens walkthrough)
    if state.step is Step.TURN and turn is not None and turn.player == name and not state.unmoved(name):
        for v in state.fleet(name):
            if state.out_of_service(v.id) and not v.moved:
                alerts.append(Alert("out_of_service", f"{own_label(state, v.id)} is out of service", name))
    return tuple(alerts)


def views(state: ThunderRoadState) -> list[PlayerView]:
    text = prompt(state).text
    turn_player = state.turn.player if state.turn else None
    moving = state.turn.vehicle if state.turn else None
    bumped = {v for b in state.bumps for v in (b.a, b.b)}
    out = []
    active = [state.tables.command(name) for name in state.turn.commands] if state.turn else []
    to_roll = () if state.turn else tuple(p.name for p in state.players if state.standing(p.name) and not p.rolled)
    allowance = allowance_line(state) if state.step is Step.MOVE and moving is not None else ""
    for p in state.players:
        vehicles = []
        for v in state.fleet(p.name):
            kind = state.tables.kind(v.kind)
            mine = turn_player == p.name
            sections = tuple(rule.label for rule in active if mine and rule.board == kind.cls)
            vehicles.append(
                VehicleView(
                    id=v.id,
                    kind=v.kind,
                    label=kind.label,
                    short=kind.short + v.id.split("/", 1)[1][len(v.kind):],
                    damage=v.damage,
                    damage_slots=kind.damage_slots,
                    minor_damage=kind.minor_damage,
                    on_fire=v.on_fire,
                    out_of_service=state.out_of_service(v.id),
                    eliminated=v.eliminated,
                    moved=v.moved,
                    coasts=v.coasts,
                    moving=v.id == moving,
                    bumped=v.id in bumped,
                    sections=sections,
                )
            )
        out.append(
            PlayerView(
                player=p.name,
                seat=p.seat,
                round=state.round,
                your_turn=turn_player == p.name,
                turn_player=turn_player,
                dice=tuple(sorted(p.dice)),
                command=state.tables.command(p.command).label if p.command else None,
                vehicles=tuple(vehicles),
                step=state.step.value,
                prompt=text,
                standing=state.standing(p.name),
                bumps=len(state.bumps),
                winner=state.winner,
                alerts=_alerts(state, p.name),
                news=state.news,
                to_roll=to_roll,
                passed=p.passed,
                allowance=allowance if turn_player == p.name else "",
            )
        )
    return out


# -- the game log's words (device/web/timeline.py) ------------------------------------------------------


def timeline_heading(state: ThunderRoadState) -> str:
    """Where the table was, as the game log heads its decisions: the round, and whose turn it was."""
    return f"Round {state.round}" + (f" · {state.turn.player}'s turn" if state.turn is not None else "")


#: What a Fire-die face did, in words (``FireEffect``; "moves" says how many).
_FIRE_WORDS = {"out": "the fire is out", "eliminate": "eliminated", "nothing": "no effect",
               "unknown": "a face fire_die.toml does not say: the table rules on it"}


def timeline_vehicle_names(state: ThunderRoadState) -> dict[str, str]:
    """Each vehicle's id → its words ("Ana/small" → "Ana's small car"), for the game log."""
    return {v.id: vehicle_words(state, v.id) for v in state.vehicles}


def timeline_words(event: Event, names: Mapping[str, str] | None = None) -> str | None:
    """The game's set-up in a few words (who drives what, the road, who goes first: not the rule tables the
    first event carries), and a turn's moves, coasts, damage and fire in the rules' words, each vehicle as its
    owner's ("Ana's small car": ``names``, id → words); None where the log's plain reading will do."""
    cars = names or {}
    d: Mapping[str, Any] = event.data

    def named(vid: Any) -> str:
        return cars.get(vid, vid) if isinstance(vid, str) else "?"

    def car(key: str = "vehicle") -> str:  # the vehicle the event names under ``key``
        return named(d.get(key))

    t = event.type
    if t == "dice_rolled":
        return f"{d.get('player')}: movement dice " + ", ".join(str(x) for x in d.get("dice", []))
    if t == "die_assigned":
        return f"{car()}: movement die {d.get('die')}"
    if t == "coasted":
        return f"{car()} coasts (die {d.get('die')} on its coast space): a move of 1"
    if t == "command_used":
        return f"{d.get('player')}: {str(d.get('command', '?')).replace('_', ' ').capitalize()} command, die {d.get('die')}"
    if t == "moved":
        n = d.get("spaces")
        text = f"{car()} moves {n} space{'' if n == 1 else 's'}"
        if d.get("passed"):
            text += f", drifting past {car('passed')}"
        hits = [named(v) for v in d.get("collisions", []) if isinstance(v, str)]
        return text + (f"; hits {', '.join(hits)}" if hits else "")
    if t == "vehicle_met":
        return f"{car('mover')} meets {car()} at space {d.get('at')}"
    if t == "damaged":
        return f"{car()} takes a damage token" + (": ON FIRE!" if d.get("on_fire") else "")
    if t == "ignited":
        return f"{car()}: ON FIRE!"
    if t == "ruled_out":
        return f"{car()} is out of the race (the table's ruling)"
    if t == "fire_roll_required":
        return f"{car()} is ON FIRE!: roll the Fire die before it moves"
    if t in ("bump_rolled", "bump_rerolled"):  # the bump die's faces are the owner's labels (dice.toml)
        again = " again" if t == "bump_rerolled" else ""
        return f"Bump: rolled{again} bump die {d.get('bump')}, direction die {d.get('direction')}"
    if t == "bump_placed":
        onto = f", landing on {car('onto')}: a chain bump" if d.get("onto") else ""
        return f"Bump: {car('moved')} moved{onto}"
    if t == "fire_rolled":
        moves = d.get("moves") or 0
        said = _FIRE_WORDS.get(str(d.get("effect")), str(d.get("effect")))
        if d.get("effect") == "moves":
            said = f"{moves} more space{'' if moves == 1 else 's'}"
        return f"{car()}: Fire die {d.get('face')}: {said}" + (" (the table's ruling)" if d.get("ruled") else "")
    if t == "finished":
        return f"{car()} crosses the finish line"
    if t == "rear_named":
        return f"{car()} is on the rear tile"
    if t != "game_started":
        return None
    options = d["options"]
    kinds = options.get("vehicle_types", {})

    def label(kind: str) -> str:
        row = kinds.get(kind)
        return in_sentence(str(row["label"])) if isinstance(row, Mapping) and row.get("label") else kind.replace("_", " ")

    players = [f"{p['name']} ({', '.join(label(str(k)) for k in p['vehicles'])})" for p in options["players"]]
    words = [", ".join(players)]
    tiles = options.get("board", {}).get("tiles")
    if isinstance(tiles, list):
        words.append(f"a road of {len(tiles)} tiles")
    if options.get("first_player"):
        words.append(f"{options['first_player']} first")
    return "Thunder Road set: " + "; ".join(words)
