"""Per-player views: what each player's 128x64 screen shows, derived from the state only."""

from __future__ import annotations

from collections.abc import Mapping

from games.core import Alert, Event

from games.thunder_road.bumps import larger_owner, reroll_owners
from games.thunder_road.common import in_sentence, own_label
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
            alerts.append(Alert("reroll", f"{right} re-roll of both dice, in {turn.player}'s menu", name))
    # a standing state its column says ("OUT"): flashed over the owner's screen while it is their turn, when it
    # keeps the car still (it flashed for a round on end over the other players' turns); the news told when it
    # came
    for v in state.fleet(name):
        if state.out_of_service(v.id) and turn is not None and turn.player == name:
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
            )
        )
    return out


# -- the game log's words (device/web/timeline.py) ------------------------------------------------------


def timeline_heading(state: ThunderRoadState) -> str:
    """Where the table was, as the game log heads its decisions: the round, and whose turn it was."""
    return f"Round {state.round}" + (f" · {state.turn.player}'s turn" if state.turn is not None else "")


def timeline_words(event: Event) -> str | None:
    """The game's set-up in a few words (who drives what, the road, who goes first: not the rule tables the
    first event carries); None for any other event."""
    if event.type != "game_started":
        return None
    options = event.data["options"]
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
