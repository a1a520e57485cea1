"""Gaslands: Refuelled — the rules engine.

The round: six gear phases; in phase N every vehicle whose current gear is N or more activates once; the
player with pole position activates first, then play goes clockwise one qualifying vehicle per player at a
time; a player picks any order among their own vehicles.  An activation is the movement step (sub-steps
1.1–1.8), the attack step and the wipeout step.  A command sent at a step it does not belong to is refused
with a reason in the players' words, from one table (:data:`REFUSALS`, command × step).

Design: ``decide`` never changes state.  It builds the events a command causes by folding them one by one
onto a scratch copy (:class:`_Draft`), so that the automatic consequences (gaining hazard tokens at 1.5,
skipping a step with nothing to resolve, the next activation, the next gear phase) are themselves events in
the log, and replaying the log never needs to re-run rules.  ``evolve`` is a plain switch on event types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from games.core import Alert, Command, Decision, Event, Illegal, Prompt, fields
from games.gaslands.chart import TEMPLATES, check_template, normalise_chart, template_status, vehicle_types
from games.gaslands.state import (
    WIPEOUT_AT,
    Activation,
    GaslandsState,
    PlayerView,
    Settings,
    SkidFace,
    SmashAttack,
    Step,
    TemplateStatus,
    Vehicle,
    VehicleView,
)

POLE_PASSING = ("clockwise_each_phase", "clockwise_every_gear_phase", "clockwise_each_round", "never")
SHIFT_USES = ("cancel", "gear_up", "gear_down", "discard_hazard", "discard")
HANDS = ("left", "right")
EDGES = ("front", "rear")


def _label(template: str) -> str:
    return template.replace("_", " ").title()


def is_straight(template: str | None) -> bool:
    """Whether a template is a straight: it has no hand (every other "may be used turning left or right")."""
    return (template or "").endswith("_straight")


def placed_words(act: Activation) -> str:
    """The template chosen as it is placed: "Gentle, left", "Medium Straight, reverse" (the screens said only
    "the Gentle", which hand and which edge being the prompt's alone)."""
    words = [_label(act.template or "")]
    if act.hand and not is_straight(act.template):
        words.append(act.hand)
    if act.edge == "rear":
        words.append("reverse")
    return ", ".join(words)


# =====================================================================================================
# start
# =====================================================================================================


WEIGHTS = ("light", "middle", "heavy")
DEFAULT_D6_FACES = {"1": "HAZARD", "2": "SPIN", "3": "SLIDE", "4": "SHIFT", "5": "SHIFT", "6": "SHIFT"}


SETUP_KEYS = ("players", "vehicle_types", "scenario", "chart")
SCENARIO_KEYS = ("pole", "pole_passing", "skid_dice", "d6_faces", "push_it", "flip_check", "weight_dice")
#: ``[scenario.weight_dice]``: the smash attack dice a weight-class difference adds (the rules file: "+/− dice for
#: weight classes" [V], with no numbers): the owner gives them; a difference not given stays unknown.
WEIGHT_DICE_KEYS = ("heavier_by_1", "heavier_by_2", "lighter_by_1", "lighter_by_2")
PLAYER_KEYS = ("name", "vehicles")
VEHICLE_KEYS = ("id", "name", "type", "tag")
VEHICLE_TYPE_KEYS = ("label", "weight", "hull", "handling", "max_gear", "crew", "full_throttle")


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Illegal(f"setup: {where} must be a table ([{where}] with key = value lines; got {fields.show(value)})")
    return value


def _whole(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        if value is None:
            raise Illegal(f"setup: {where} is missing: give a whole number from {low} to {high}")
        raise Illegal(f"setup: {where} must be a whole number from {low} to {high}, not {fields.show(value)}")
    return value


def _vehicle_stats(name: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """One vehicle type's row, checked: a bad owner override is refused with its place, not guessed."""
    where = f"vehicle_types.{name}"
    for key in ("weight", "hull", "handling", "max_gear", "crew"):
        if key not in row:
            raise Illegal(f"setup: {where} needs {key}")
    at = f"setup: [{where}]"
    weight = fields.choice(row, "weight", WEIGHTS, at)
    full_throttle = fields.boolean(row, "full_throttle", False, at)
    return {
        "label": fields.text(row, "label", at, name, max_len=40),
        "weight": weight,
        "hull": _whole(row["hull"], f"{where}.hull", 1, 99),
        "handling": _whole(row["handling"], f"{where}.handling", 0, 12),
        "max_gear": _whole(row["max_gear"], f"{where}.max_gear", 1, 6),
        "crew": _whole(row["crew"], f"{where}.crew", 0, 20),
        "full_throttle": full_throttle,
    }


def _name_unnamed(unnamed: list[tuple[dict[str, Any], str]], taken: set[str]) -> None:
    """A vehicle the setup gives no name is called after its owner and type ("Bob's Buggy"), numbered
    from the second of a kind ("Bob's Buggy 2"), so that two players' buggies are told apart on every
    screen and in every prompt.  A name the setup gives to another vehicle is never reused."""
    for vehicle, label in unnamed:
        base = f"{vehicle['owner']}'s {label}"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base} {n}"
        vehicle["name"] = name
        taken.add(name)


def start(options: Mapping[str, Any]) -> list[Event]:
    """Check the table's setup and record it whole (vehicle stats and chart included) in the first event."""
    options = _table(options, "setup")
    fields.plain(options, "setup")
    fields.only_keys(options, SETUP_KEYS, "setup")
    players_opt = options.get("players")
    if not isinstance(players_opt, list) or not 2 <= len(players_opt) <= 6:
        counted = f" ({len(players_opt)} given)" if isinstance(players_opt, list) else ""
        raise Illegal(f"setup: Gaslands needs 2 to 6 players{counted}, listed in seating order (clockwise) as "
                      "[[players]]")
    types: dict[str, Mapping[str, Any]] = dict(vehicle_types())
    for name, row in _table(options.get("vehicle_types"), "vehicle_types").items():
        row = _table(row, f"vehicle_types.{name}")
        fields.only_keys(row, VEHICLE_TYPE_KEYS, f"setup: [vehicle_types.{name}]")
        types[name] = {**types.get(name, {}), **row}
        _vehicle_stats(name, types[name])  # an owner's row is checked even if no vehicle uses it yet
    players: list[str] = []
    vehicles: list[dict[str, Any]] = []
    unnamed: list[tuple[dict[str, Any], str]] = []  # (vehicle, its type's label) of vehicles with no name
    seen_ids: dict[str, str] = {}  # vehicle id -> its owner
    tagged: list[dict[str, Any]] = []  # the vehicles carrying a marker, checked once all are named
    for i, p in enumerate(players_opt, 1):  # counted as the owner counts: the first player is player 1
        given = p.get("name") if isinstance(p, Mapping) else None
        named_well = isinstance(given, str) and given.strip() and len(given) <= 40  # (a long name is not quoted)
        if isinstance(p, Mapping):  # first: a misspelt `name` is named, not told as a missing name
            fields.only_keys(p, PLAYER_KEYS, f"setup: [[players]] {given}" if named_well else f"setup: player {i}")
        if given is not None and not isinstance(given, str):  # (name = 42 was "needs a name")
            raise Illegal(f"setup: player {i}'s name must be a text in quotes (got {fields.show(given)}): name = "
                          f"\"{given}\"")
        if not isinstance(given, str) or not given.strip():
            raise Illegal(f"setup: player {i} needs a name")
        name = given
        fields.text(p, "name", "setup: [[players]]", max_len=40)
        fields.distinct_names([*players, name], "setup: ", "player")
        players.append(name)
        vs = p.get("vehicles")
        if not isinstance(vs, list) or not vs or not all(isinstance(v, Mapping) for v in vs):
            raise Illegal(f"setup: {name} needs at least one vehicle ([[players.vehicles]] with a type)")
        if len(vs) > 20:
            raise Illegal(f"setup: {name} has {len(vs)} vehicles; a player fields at most 20")
        for j, v in enumerate(vs):
            at = f"setup: {name}'s [[players.vehicles]] {j + 1}"
            fields.only_keys(v, VEHICLE_KEYS, at)
            for key in ("id", "name"):
                if v.get(key) is not None:
                    fields.text(v, key, at, max_len=40)
            vtype = fields.as_named(v.get("type"), types)  # "Buggy", "Ice Cream Truck": the rulebook's own words
            if v.get("type") is None:  # ("has type None": Python's word for a line left out, an audit)
                raise Illegal(f'setup: {name}\'s vehicle {j + 1} has no type: add type = "..." to its '
                              f"[[players.vehicles]]; types are {', '.join(sorted(types))}")
            if not isinstance(vtype, str) or vtype not in types:
                near = fields.did_you_mean(vtype, types) if isinstance(vtype, str) else ""
                raise Illegal(f"setup: {name}'s vehicle {j + 1} has type {vtype!r}{near}; types are "
                              f"{', '.join(sorted(types))}")
            stats = _vehicle_stats(vtype, types[vtype])
            vid = str(v.get("id") or f"{name.lower().replace(' ', '-')}-{j + 1}")
            if vid in seen_ids:
                raise Illegal(f"setup: vehicle id {vid!r} is used twice ({seen_ids[vid]}'s and {name}'s): give each "
                              "vehicle its own id, or leave id out")
            seen_ids[vid] = name
            tag = v.get("tag")
            if tag is not None:
                tag = _whole(tag, f"{vid}.tag (a marker id)", 0, 9999)
            vehicles.append(
                {
                    "id": vid,
                    "name": str(v["name"]) if v.get("name") else "",
                    "type": vtype,
                    "owner": name,
                    "tag": tag,
                    "max_gear": stats["max_gear"],
                    "max_hull": stats["hull"],
                    "handling": stats["handling"],
                    "weight": stats["weight"],
                    "crew": stats["crew"],
                    "full_throttle": stats["full_throttle"],
                }
            )
            if not vehicles[-1]["name"]:
                unnamed.append((vehicles[-1], stats["label"]))
            if tag is not None:
                tagged.append(vehicles[-1])
    owner_named = {id(v) for v in tagged if v["name"]}  # "Rust Bucket" (Alice's); else "Alice's Buggy"
    _name_unnamed(unnamed, {v["name"] for v in vehicles if v["name"]})
    seen_tags: dict[int, str] = {}  # marker id -> the vehicle carrying it, in the owner's words
    for v in tagged:  # by the names the owner gave, never the internal ids ("alice-1")
        said = f"{v['name']!r} ({v['owner']}'s)" if id(v) in owner_named else repr(v["name"])
        if v["tag"] in seen_tags:
            raise Illegal(f"setup: marker {v['tag']} is on two vehicles, {seen_tags[v['tag']]} and {said}: give each "
                          "car its own tag (`pitboard markers` prints them)")
        seen_tags[v["tag"]] = said
    named: dict[str, str] = {}
    for v in vehicles:  # the screens, the menus and the camera's words name vehicles by name, never by id
        if v["name"] in named:
            raise Illegal(f"setup: two vehicles are named {v['name']!r} ({named[v['name']]}'s and {v['owner']}'s): give "
                          "each vehicle a different name, or leave name out")
        named[v["name"]] = v["owner"]
    scenario = _table(options.get("scenario"), "scenario")
    fields.only_keys(scenario, SCENARIO_KEYS, "setup: [scenario]")
    pole = scenario.get("pole", players[0])
    if not isinstance(pole, str) or pole not in players:
        raise Illegal(f"setup: [scenario] pole is {fields.show(pole)}, who is not a player ({', '.join(players)})")
    passing = fields.choice(scenario, "pole_passing", POLE_PASSING, "setup: [scenario]", "clockwise_each_phase")
    skid = scenario.get("skid_dice", "skid")
    if not isinstance(skid, str) or skid not in ("skid", "d6"):
        raise Illegal('setup: scenario.skid_dice must be "skid" (Gaslands skid dice) or "d6" (plain-d6 stand-in)'
                      f" (got {fields.show(skid)})")
    d6_faces = _table(scenario.get("d6_faces", DEFAULT_D6_FACES), "scenario.d6_faces")
    if sorted(str(k) for k in d6_faces) != ["1", "2", "3", "4", "5", "6"] or not all(
        isinstance(f, str) and f in SkidFace.__members__ for f in d6_faces.values()
    ):
        raise Illegal("setup: scenario.d6_faces must map each of 1..6 to SHIFT, HAZARD, SLIDE or SPIN")
    push_it = fields.boolean(scenario, "push_it", True, "setup: [scenario]")
    flip_check = fields.boolean(scenario, "flip_check", True, "setup: [scenario]")
    weight_opt = _table(scenario.get("weight_dice"), "scenario.weight_dice")
    fields.only_keys(weight_opt, WEIGHT_DICE_KEYS, "setup: [scenario.weight_dice]")
    weight_dice = {k: _whole(v, f"scenario.weight_dice.{k}", -12, 12) for k, v in weight_opt.items()}
    chart = options.get("chart")
    return [
        Event(
            "game_started",
            {
                "players": players,
                "vehicles": vehicles,
                "chart": normalise_chart(_table(chart, "chart") if chart is not None else None),
                "pole": players.index(pole),
                "settings": {
                    "pole_passing": passing,
                    "skid_dice": skid,
                    "d6_faces": {str(k): v for k, v in d6_faces.items()},
                    "push_it": push_it,
                    "flip_check": flip_check,
                    "weight_dice": weight_dice,
                },
            },
        )
    ]


# =====================================================================================================
# evolve
# =====================================================================================================


def _set_vehicle(state: GaslandsState, vid: str, **changes: Any) -> GaslandsState:
    return replace(state, vehicles=tuple(replace(v, **changes) if v.id == vid else v for v in state.vehicles))


def _act(state: GaslandsState, **changes: Any) -> GaslandsState:
    """The activation changed; a smash attack not rolled in its collision's step is not made (the table moved on)."""
    assert state.activation is not None
    if "step" in changes and changes["step"] is not state.activation.step:
        changes.setdefault("smashes", ())
    return replace(state, activation=replace(state.activation, **changes))


def _hit_news(target: Vehicle, hits: int, net: int) -> str:
    """"The Brick: 3 hits, 1 evaded: 2 taken · hull 7", not "2 hits, 1 evaded" (read as one of the two evaded); a
    wreck said so."""
    left = max(0, target.hull - net)
    return (f"{target.name}: no hit" if not hits else
            f"{target.name}: {hits} hit{'' if hits == 1 else 's'}"
            # (none evaded said too: "2 hits · WRECKED" left the evade roll on no screen, a walkthrough)
            + (f", {hits - net} evaded: {net} taken" if hits > net else ", none evaded")
            + (" · WRECKED" if net and left == 0 else f" · hull {left}"))


def _rolled_hits(data: Mapping[str, Any]) -> bool:
    """A ``hits_taken`` of a rolled attack or smash attack, whose own news says the hits (and any wreck)."""
    return str(data.get("cause", "")).startswith(("attack by", "smash by"))


def evolve(state: GaslandsState | None, event: Event) -> GaslandsState:
    d = event.data
    t = event.type
    if state is not None and state.news and not (t == "hits_taken" and _rolled_hits(d)):
        state = replace(state, news="")  # told once: an attack's news stands through the hits it gives
    if t in ("attack_rolled", "smash_rolled"):
        target = state.vehicle(d["target"]) if state is not None else None
        if state is None or target is None:
            raise ValueError(f"{t} before game_started")
        said = _hit_news(target, d["hits"], d["net"])
        if t == "attack_rolled":  # whose attack it was, as a smash says (an audit, five players: "NOTE Dmitri's
            # Ice Cream Truck: 2 hits" named neither the attack nor the attacker)
            return replace(state, news=f"Attack: {state.vehicle(d['attacker']).name} on {said}")
        # "Smash: Rust Bucket on The Brick: 3 hits…": whose smash it was (both cars of a crash make one)
        act = state.activation
        assert act is not None
        made = next((i for i, s in enumerate(act.smashes) if (s.attacker, s.target, s.kind) ==
                     (d["attacker"], d["target"], d["kind"])), None)  # the one made (the same cars may crash twice)
        smashes = act.smashes if made is None else act.smashes[:made] + act.smashes[made + 1:]
        return replace(_act(state, smashes=smashes),
                       news=f"Smash: {state.vehicle(d['attacker']).name} on {said}")
    if t == "game_started":
        s = d["settings"]
        settings = Settings(
            pole_passing=s["pole_passing"],
            skid_dice=s["skid_dice"],
            d6_faces=tuple(sorted((int(k), v) for k, v in s["d6_faces"].items())),
            push_it=s["push_it"],
            flip_check=s.get("flip_check", True),  # logs from before it: the rules file's flip check
            weight_dice=tuple(sorted(s.get("weight_dice", {}).items())),  # logs from before it: all unknown
        )
        vehicles = tuple(
            Vehicle(
                id=v["id"], name=v["name"], type=v["type"], owner=v["owner"], max_gear=v["max_gear"],
                max_hull=v["max_hull"], handling=v["handling"], weight=v["weight"], crew=v["crew"],
                full_throttle=v["full_throttle"], tag=v["tag"], gear=1, hazards=0, hull=v["max_hull"],
            )
            for v in d["vehicles"]
        )
        chart = tuple((k, tuple(row)) for k, row in d["chart"].items())
        return GaslandsState(
            players=tuple(d["players"]), vehicles=vehicles, chart=chart, settings=settings,
            pole=d["pole"], turn=d["pole"],
        )
    assert state is not None, "the first event must be game_started"
    if t == "gear_phase_started":
        return replace(state, round=d["round"], phase=d["phase"], pole=d["pole"], turn=d["turn"], activation=None)
    if t == "turn_passed":
        return replace(state, turn=d["seat"])
    if t == "activation_started":
        return replace(
            state,
            turn=state.players.index(state.vehicle(d["vehicle"]).owner),
            activation=Activation(vehicle=d["vehicle"], step=Step.CHOOSE_TEMPLATE),
        )
    if t == "step_entered":
        return _act(state, step=Step(d["step"]))
    if t == "template_refused":
        return _act(state, step=Step.TOUCH_MOVE, touch_move=True, refused_template=d["template"])
    if t == "template_chosen":
        return _act(
            state, template=d["template"], hand=d["hand"], edge=d["edge"], status=TemplateStatus(d["status"]),
            step=Step.PLACE_TEMPLATE,
            free_shifts=1 if d["status"] == TemplateStatus.TRIVIAL.value else 0,
        )
    if t == "skid_rolled":
        faces = tuple(SkidFace(f) for f in d["faces"])
        act = state.activation
        assert act is not None
        shifts = sum(1 for f in faces if f is SkidFace.SHIFT) + act.free_shifts
        return _act(state, skid_results=faces, shifts_left=shifts)
    if t == "free_shift_granted":
        act = state.activation
        assert act is not None
        return _act(state, shifts_left=act.free_shifts)
    if t == "skid_dice_pushed":
        act = state.activation
        assert act is not None
        rerolled = list(act.skid_results)
        for i, f in zip(d["reroll"], d["faces"]):
            rerolled[i] = SkidFace(f)
        shifts = sum(1 for f in rerolled if f is SkidFace.SHIFT) + act.free_shifts
        return _act(state, skid_results=tuple(rerolled), shifts_left=shifts, pushed=True)
    if t == "shift_spent":
        act = state.activation
        assert act is not None
        s2 = _act(state, shifts_left=act.shifts_left - 1)
        use = d["use"]
        v = state.vehicle(act.vehicle)
        if use == "cancel":
            return _act(s2, cancelled=act.cancelled + (SkidFace(d["result"]),))
        if use == "gear_up":
            return _set_vehicle(s2, v.id, gear=v.gear + 1, hazards=v.hazards + 1)
        if use == "gear_down":
            return _set_vehicle(s2, v.id, gear=v.gear - 1, hazards=v.hazards + 1)
        if use == "discard_hazard":
            return _set_vehicle(s2, v.id, hazards=v.hazards - 1)
        return s2
    if t == "hazards_gained":
        v = state.vehicle(d["vehicle"])
        return _set_vehicle(state, v.id, hazards=v.hazards + d["count"])
    if t == "collided":
        s2 = state
        for vid in (d["vehicle"], d["other"]):
            v = s2.vehicle(vid)
            s2 = _set_vehicle(s2, vid, hazards=v.hazards + d["hazards_each"])
        # the other car's owner is told too (they saw two pips fill in; the kind and dice were the mover's alone);
        # "what: details", the banner's title and its small lines
        what = ("Collision, evaded" if d["both_evaded"] else
                f"{COLLISION_WORDS.get(d['kind'], d['kind'])} collision" if d.get("kind") else "Collision")
        s2 = replace(s2, news=f"{what}: {state.vehicle(d['vehicle']).name} and {state.vehicle(d['other']).name}, "
                              f"+{d['hazards_each']} hazard each")
        if "smash" in d and s2.activation is not None:  # (logs from before the smash attacks were asked: none open)
            opened = tuple(SmashAttack(s["attacker"], s["target"], d["kind"], s["dice"], s["weight_dice"] != "unknown")
                           for s in d["smash"])
            s2 = _act(s2, smashes=s2.activation.smashes + opened)
        return s2
    if t == "told":  # what the decision settled, said last (its events' own words would be cleared by the next)
        return replace(state, news=d["text"])
    if t == "hits_taken":
        v = state.vehicle(d["vehicle"])
        s2 = _set_vehicle(state, v.id, hull=max(0, v.hull - d["count"]))
        if s2.vehicle(v.id).wrecked and state.activation is not None:
            s2 = _act(s2, wrecks=state.activation.wrecks + (v.id,))
        if s2.vehicle(v.id).wrecked and not _rolled_hits(d):
            # every screen is told (an attack's news says it already): hits entered with the menu wrecked a car
            # and only its owner's screen said so (an audit)
            n = d["count"]
            s2 = replace(s2, news=f"{v.name}: {n} hit{'' if n == 1 else 's'} · WRECKED")
        return s2
    if t == "wipeout_started":
        return _act(state, step=Step.WIPEOUT_FLIP)
    if t == "lost_control":
        s2 = _set_vehicle(state, d["vehicle"], gear=1, hazards=0)
        return _act(s2, step=Step.WIPEOUT_FLIP, flipping=(d["vehicle"], d["old_gear"]))
    if t == "flip_checked":
        act = state.activation
        assert act is not None
        return _act(state, flipping=act.flipping if d["flipped"] else None)
    if t == "fire_set":
        return _set_vehicle(state, d["vehicle"], on_fire=d["on"])
    if t == "activation_ended":
        v = state.vehicle(d["vehicle"])
        return replace(_set_vehicle(state, v.id, activated_phase=(state.round, state.phase)), activation=None)
    if t == "game_over":
        return replace(state, finished=True, activation=None, winner=d.get("winner"))
    raise ValueError(f"unknown Gaslands event {t!r}")


# =====================================================================================================
# decide
# =====================================================================================================


class _Draft:
    """Events under construction, each folded at once so later rules see its effect."""

    def __init__(self, state: GaslandsState) -> None:
        self.state = state
        self.events: list[Event] = []
        self.refused: str | None = None
        self.said: list[str] = []  # what every screen is told of this decision, after its consequences

    def emit(self, kind: str, /, **data: Any) -> GaslandsState:
        event = Event(kind, data)
        self.events.append(event)
        self.state = evolve(self.state, event)
        return self.state

    def tell(self, text: str) -> None:
        """Say ``text`` on every screen once the decision's events are in: said by the event that settles it,
        it was cleared by the events that follow from it (a flip's hits, the next activation)."""
        self.said.append(text)

    def done(self, refused: str | None = None) -> Decision:
        if self.said:
            self.emit("told", text="; ".join(self.said))
        return Decision(tuple(self.events), refused)


def qualifying(state: GaslandsState, seat: int) -> list[Vehicle]:
    """The seat's vehicles that still activate in this gear phase: current gear ≥ phase, not yet
    activated this phase, not wrecked."""
    player = state.players[seat]
    return [
        v
        for v in state.vehicles
        if v.owner == player and not v.wrecked and v.gear >= state.phase
        and v.activated_phase != (state.round, state.phase)
    ]


def _left_of(state: GaslandsState, seat: int) -> int:
    """The player on a player's left: the next seat clockwise."""
    return (seat + 1) % len(state.players)


def _pole_to(state: GaslandsState) -> int:
    """Where pole passes: to the left, over any player whose vehicles are all wrecked (out of the race, they
    would hold pole for nothing, and the player after them would go first twice running)."""
    n = len(state.players)
    for k in range(1, n + 1):
        seat = (state.pole + k) % n
        if any(v.owner == state.players[seat] and not v.wrecked for v in state.vehicles):
            return seat
    return _left_of(state, state.pole)


def _next_phase(draft: _Draft, **extra: Any) -> None:
    """End the current gear phase and start the next (phase 6 → the next round's phase 1).

    Pole passing: with ``clockwise_each_phase`` pole passes at the end of a gear phase in which somebody
    activated or qualified (a phase the table passed over with ``skip_phase``); a phase passed because
    nobody qualified does not move it (otherwise, with everyone in low gears, pole would go round the table
    several times a round and, with 2, 3 or 6 players, come back to the same player every round).  ``clockwise_every_gear_phase`` is the literal reading, for a table that
    plays it so: pole passes at the end of all six gear phases, those nobody qualified for too.  With
    ``clockwise_each_round`` it passes when the round ends.  Clockwise: to the next player still in the race
    (:func:`_pole_to`)."""
    s = draft.state
    end_of_round = s.phase == 6
    # a phase the table passed over with vehicles still to activate (skip_phase) was a phase all the same
    had_activations = any(v.activated_phase == (s.round, s.phase) for v in s.vehicles) or bool(extra.get("passed_over"))
    passing = s.settings.pole_passing
    pole = s.pole
    if (passing == "clockwise_each_phase" and had_activations) or passing == "clockwise_every_gear_phase" or (
            passing == "clockwise_each_round" and end_of_round):
        pole = _pole_to(s)
    rnd, phase = (s.round + 1, 1) if end_of_round else (s.round, s.phase + 1)
    draft.emit("gear_phase_started", round=rnd, phase=phase, pole=pole, turn=pole, **extra)
    # phases nobody qualifies for pass in the same decision: the table is told the one it is in, not each
    draft.said = [said for said in draft.said if not said.startswith("Gear phase ")]
    if end_of_round:  # no screen showed the round, and nothing said a new one began
        draft.tell(f"Round {rnd} begins: pole {s.players[pole]}")
    else:  # a dashboard's "ph1" turned "ph2", and the pole flag moved, with no word on any screen (an audit)
        draft.tell(f"Gear phase {phase}: pole {s.players[pole]}")


def _advance(draft: _Draft, after_seat: int | None) -> None:
    """Find who activates next: the next seat clockwise with a qualifying vehicle (the same seat last);
    when nobody qualifies the gear phase ends, and phases where nobody qualifies are passed.
    A seat with exactly one qualifying vehicle starts its activation at once."""
    if all(v.wrecked for v in draft.state.vehicles):
        draft.emit("game_over", reason="every vehicle is wrecked")
        return
    n = len(draft.state.players)
    if after_seat is not None:
        for k in range(1, n + 1):
            seat = (after_seat + k) % n
            if qualifying(draft.state, seat):
                _offer(draft, seat)
                return
        _next_phase(draft)
    for _ in range(13):
        state = draft.state
        for k in range(n):
            seat = (state.pole + k) % n
            if qualifying(state, seat):
                _offer(draft, seat)
                return
        _next_phase(draft)
    raise AssertionError("no vehicle qualifies in any gear phase although some are not wrecked")


def _offer(draft: _Draft, seat: int) -> None:
    if draft.state.turn != seat:
        # the player by name too, for the log ("Bob's turn"); its seat is what the state keeps
        draft.emit("turn_passed", seat=seat, player=draft.state.players[seat])
    options = qualifying(draft.state, seat)
    if len(options) == 1:
        draft.emit("activation_started", vehicle=options[0].id)


def _after_template(draft: _Draft) -> None:
    """After 1.2: the skid check, unless the touch-move rule forbids it (then the icon still counts)."""
    act = draft.state.activation
    assert act is not None
    if act.touch_move:
        if act.free_shifts:
            draft.emit("free_shift_granted")
            draft.emit("step_entered", step=Step.SHIFTS.value)
        else:
            _gain_hazards(draft)
    else:
        draft.emit("step_entered", step=Step.SKID_CHECK.value)


def _can_push(state: GaslandsState) -> bool:
    """Push it: once per activation, with skid dice rolled, before any SHIFT is spent."""
    act = state.activation
    assert act is not None
    return (
        state.settings.push_it and not act.pushed and not act.touch_move and bool(act.skid_results)
        and act.shifts_left == sum(1 for f in act.skid_results if f is SkidFace.SHIFT) + act.free_shifts
        and not act.cancelled
    )


def _shifts_open(state: GaslandsState) -> bool:
    act = state.activation
    assert act is not None
    return act.shifts_left > 0 or (_can_push(state) and bool(act.uncancelled))


def _gain_hazards(draft: _Draft) -> None:
    """1.5: one hazard token for each uncancelled HAZARD, SLIDE and SPIN, and one for a hazardous icon.
    Then on to 1.6 (slide), 1.7 (move)."""
    act = draft.state.activation
    assert act is not None
    results = len(act.uncancelled)
    if results:
        draft.emit("hazards_gained", vehicle=act.vehicle, count=results, cause="skid check")
    if act.status is TemplateStatus.HAZARDOUS:
        draft.emit("hazards_gained", vehicle=act.vehicle, count=1, cause=f"hazardous {_label(act.template or '')}")
    if SkidFace.SLIDE in act.uncancelled:
        draft.emit("step_entered", step=Step.SLIDE.value)
    else:
        draft.emit("step_entered", step=Step.MOVE.value)


def _losing_control(state: GaslandsState) -> list[str]:
    """Vehicles with 6 or more hazard tokens, not wrecked, in seating order from the active player."""
    act = state.activation
    assert act is not None
    seat = state.players.index(state.vehicle(act.vehicle).owner)
    order = [state.players[(seat + k) % len(state.players)] for k in range(len(state.players))]
    return [v.id for p in order for v in state.vehicles if v.owner == p and not v.wrecked and v.hazards >= WIPEOUT_AT]


def _next_wipeout(draft: _Draft) -> None:
    """Lose control, one vehicle at a time.  Re-checked after each one: a collision during a flip's
    Medium Straight can push another vehicle over the line within the same wipeout step."""
    losing = _losing_control(draft.state)
    if losing:
        vid = losing[0]
        old_gear = draft.state.vehicle(vid).gear
        draft.emit("lost_control", vehicle=vid, old_gear=old_gear)
        # a d6 is never lower than 1: no flip check in gear 1, nor at a table playing without ([scenario]
        # flip_check = false); the table turns the car, then confirms
        if old_gear <= 1 or not draft.state.settings.flip_check:
            draft.emit("step_entered", step=Step.WIPEOUT_TURN.value)
        return
    vid = draft.state.activation.vehicle  # type: ignore[union-attr]
    draft.emit("activation_ended", vehicle=vid)
    _advance(draft, draft.state.players.index(draft.state.vehicle(vid).owner))


def _start_wipeout(draft: _Draft) -> None:
    """3: every player checks every vehicle they control; each with 6 or more hazard tokens loses control."""
    losing = _losing_control(draft.state)
    if losing:
        draft.emit("wipeout_started", vehicles=losing)
    _next_wipeout(draft)


def _need(cmd: Command, key: str, kind: type | tuple[type, ...]) -> Any:
    value = cmd.get(key)
    if value is None or not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise Illegal(f"{cmd.type} needs {key!r}")
    return value


def _named_ids(vehicles: Any) -> str:
    """Vehicles as a refusal lists them: by name, their command ids after ("Alice's Buggy (alice-1)"; an audit: the
    ids alone, where every screen names vehicles by name)."""
    return ", ".join(f"{v.name} ({v.id})" for v in vehicles)


def template_id(template: Any) -> Any:
    """A template as the rulebook prints it ("Short Straight", "Turn") as its id ("short_straight"); anything else
    as given (the chart's check names what it is not)."""
    if isinstance(template, str):
        key = template.strip().lower().replace(" ", "_").replace("-", "_")
        if key in TEMPLATES:
            return key
    return template


def _other_vehicle(state: GaslandsState, cmd: Command, key: str = "vehicle") -> Vehicle:
    vid = _need(cmd, key, str)
    try:
        return state.vehicle(vid)
    except KeyError:
        raise Illegal(f"there is no vehicle {vid!r}; vehicles are {_named_ids(state.vehicles)}") from None


def _faces(state: GaslandsState, raw: Any, what: str) -> list[str]:
    if not isinstance(raw, list):
        raise Illegal(f"{what} needs a list of faces")
    out = []
    d6 = dict(state.settings.d6_faces)
    for f in raw:
        if state.settings.skid_dice == "d6":
            if isinstance(f, bool) or not isinstance(f, int) or f not in d6:
                raise Illegal(f"{what}: {f!r} is not a d6 face 1-6 (this table rolls plain d6 as skid dice)")
            out.append(d6[f])
        else:
            if not isinstance(f, str) or f.upper() not in SkidFace.__members__:
                raise Illegal(f"{what}: {f!r} is not a skid die face; faces are SHIFT, HAZARD, SLIDE, SPIN")
            out.append(f.upper())
    return out


def _d6(cmd: Command, key: str) -> list[int]:
    raw = cmd.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in raw):
        raise Illegal(f"{cmd.type}: {key} must be a list of d6 results 1-6")
    return list(raw)


#: Which commands each step takes (besides set_fire and undo, always open).
STEP_COMMANDS: dict[Step, tuple[str, ...]] = {
    Step.CHOOSE_VEHICLE: ("activate", "skip_phase"),
    Step.CHOOSE_TEMPLATE: ("choose_template", "gain_hazard"),
    Step.TOUCH_MOVE: ("choose_template", "gain_hazard"),
    # (choose_template at 1.2: the same template turned the other way, or reversed; another is touch-move)
    Step.PLACE_TEMPLATE: ("place_template", "choose_template", "confirm", "gain_hazard"),
    Step.SKID_CHECK: ("skid_roll", "gain_hazard"),
    Step.SHIFTS: ("shift", "end_shifts", "push_it", "gain_hazard"),
    Step.SLIDE: ("confirm", "gain_hazard"),
    Step.MOVE: ("confirm", "collision", "hits", "gain_hazard"),
    Step.SPIN: ("confirm", "collision", "hits", "gain_hazard"),
    Step.ATTACK: ("attack", "hits", "confirm", "gain_hazard"),
    Step.WIPEOUT_FLIP: ("flip_check",),
    Step.WIPEOUT_TURN: ("confirm",),
    # a flip's Medium Straight can cross a wreck or terrain: hazards, as in 1.7 (re-checked when it ends)
    Step.WIPEOUT_MOVE: ("confirm", "collision", "hits", "gain_hazard"),
    Step.GAME_OVER: (),
}

def step_commands(state: GaslandsState) -> tuple[str, ...]:
    """The commands the current step takes (:data:`STEP_COMMANDS`): at 1.2, choose_template only while the template
    picked can be laid another way (a turn's other hand; in gear 1, the other edge)."""
    step = current_step(state)
    commands = STEP_COMMANDS[step]
    act = state.activation
    if step is Step.PLACE_TEMPLATE and act is not None:
        if is_straight(act.template) and state.vehicle(act.vehicle).gear != 1:
            commands = tuple(c for c in commands if c != "choose_template")
    return commands


#: What the table does at each step, in a few words (refusals name it: "Rust Bucket is at 1.2 place the
#: template: do that first").
STEP_TASKS: dict[Step, str] = {
    Step.CHOOSE_VEHICLE: "choose a vehicle",
    Step.CHOOSE_TEMPLATE: "1.1 choose a template",
    Step.TOUCH_MOVE: "1.1 the touch-move pick",
    Step.PLACE_TEMPLATE: "1.2 place the template",
    Step.SKID_CHECK: "1.3 skid check",
    Step.SHIFTS: "1.4 spend SHIFTs",
    Step.SLIDE: "1.6 slide",
    Step.MOVE: "1.7 move",
    Step.SPIN: "1.8 spin",
    Step.ATTACK: "2 attack",
    Step.WIPEOUT_FLIP: "3 wipeout: flip check",
    Step.WIPEOUT_TURN: "3 wipeout: turn it",
    Step.WIPEOUT_MOVE: "3 wipeout: flip move",
    Step.GAME_OVER: "game over",
}

#: Wildcards of :data:`REFUSALS`: any command, any step; and "this activation is under the touch-move rule".
ANY = "*"
TOUCH_MOVED = "touch-move"
NO_SHIFT = "1.4 with no SHIFT to spend"  # no SHIFT rolled (or all spent): push it or carry on
NO_FLIP_CHECK = "3 wipeout, played without flip checks"  # [scenario] flip_check = false

_BEFORE_MOVE = (Step.CHOOSE_TEMPLATE, Step.TOUCH_MOVE, Step.PLACE_TEMPLATE, Step.SKID_CHECK, Step.SHIFTS, Step.SLIDE)
_BEFORE_ATTACK = (*_BEFORE_MOVE, Step.MOVE, Step.SPIN)
_WIPEOUT = (Step.WIPEOUT_FLIP, Step.WIPEOUT_TURN, Step.WIPEOUT_MOVE)

#: Why a command is refused at a step it does not belong to, in the player's words: (command, step) →
#: reason.  Looked up most specific first (see :func:`out_of_order`): (command, TOUCH_MOVED) in a
#: touch-move activation, (command, step), (ANY, step), (command, ANY), then (ANY, ANY).  The reasons are
#: formatted with ``name`` (the active vehicle), ``who`` (the vehicle the step is about: the one wiping
#: out in step 3), ``player`` (whose turn it is), ``picker`` (the touch-move picker), ``template`` and
#: ``task`` (:data:`STEP_TASKS`).  Each stays short: a 128×64 screen pages it.
REFUSALS: dict[tuple[str, Step | str], str] = {
    (ANY, Step.CHOOSE_VEHICLE): "{player} chooses a vehicle to activate first",
    (ANY, ANY): "{who} is at {task}: do that first",
    ("activate", Step.CHOOSE_TEMPLATE): "{name} is activating already: choose its template (1.1)",
    ("activate", ANY): "{name} is activating: finish its activation first",
    ("skip_phase", ANY): "{name} is activating: finish that first, then pass the phase",
    ("choose_template", Step.PLACE_TEMPLATE): "touch-move: the {template} was touched, so it must be used",
    ("choose_template", ANY): "{name} has its {template}: templates are chosen at 1.1",
    ("place_template", Step.CHOOSE_TEMPLATE): "choose a template first (1.1), then place it",
    ("place_template", Step.TOUCH_MOVE): "{picker} picks a permitted template first, then places it",
    ("place_template", ANY): "the {template} is placed already: 1.2 is over",
    ("skid_roll", TOUCH_MOVED): "no skid dice this activation (touch-move)",
    ("skid_roll", Step.CHOOSE_TEMPLATE): "choose and place a template first: the skid check is 1.3",
    ("skid_roll", Step.PLACE_TEMPLATE): "place the {template} first (1.2), then roll",
    ("skid_roll", ANY): "{name} has had its skid check: 1.3 is over",
    ("push_it", TOUCH_MOVED): "no skid dice this activation (touch-move)",
    ("push_it", Step.SKID_CHECK): "roll the skid dice first, then you may push it",
    ("push_it", ANY): "push it comes right after the skid roll, before any SHIFT",
    ("shift", Step.SKID_CHECK): "roll the skid dice first: SHIFTs come from the roll",
    ("shift", ANY): "no SHIFT to spend now: SHIFTs are spent at 1.4",
    ("end_shifts", ANY): "no SHIFTs to end now: SHIFTs are spent at 1.4",
    ("confirm", Step.CHOOSE_TEMPLATE): "nothing to confirm: choose a template for {name} (1.1)",
    ("confirm", Step.TOUCH_MOVE): "nothing to confirm: {picker} picks a permitted template",
    ("confirm", Step.SKID_CHECK): "roll the skid dice to go on (0 dice is a roll)",
    ("confirm", NO_SHIFT): "no SHIFT to spend: push it (re-roll for a hazard token) or carry on",
    ("confirm", Step.SHIFTS): "spend the SHIFTs, or end them, to go on",
    ("confirm", Step.WIPEOUT_FLIP): "roll the flip check d6 for {who} first",
    **{("collision", s): "{name} has not moved yet: collisions come at 1.7 (move)" for s in _BEFORE_MOVE},
    ("collision", Step.ATTACK): "{name} has stopped: collisions come at 1.7 and 1.8",
    ("collision", Step.WIPEOUT_FLIP): "roll the flip check first: a flipped car collides as it moves",
    ("collision", ANY): "collisions come at 1.7, 1.8 and a flip's move",
    ("hits", ANY): "hits come with collisions (1.7, 1.8, a flip's move) and attacks (2)",
    **{("attack", s): "attacks come at step 2, after {name} moves" for s in _BEFORE_ATTACK},
    ("attack", ANY): "the attack step is over for {name}",
    ("gain_hazard", Step.CHOOSE_VEHICLE): "hazards come during an activation: {player} chooses a vehicle first",
    **{("gain_hazard", s): "{who} is wiping out: finish step 3 first" for s in (Step.WIPEOUT_FLIP, Step.WIPEOUT_TURN)},
    ("flip_check", Step.CHOOSE_VEHICLE): "nobody is wiping out: flip checks come in step 3",
    ("flip_check", Step.WIPEOUT_TURN): "no flip check: {who} was in gear 1 (no d6 is lower)",
    ("flip_check", NO_FLIP_CHECK): "no flip check: this game is played without flip checks (its setup)",
    ("flip_check", Step.WIPEOUT_MOVE): "the flip check is done: move {who} a Medium Straight",
    ("flip_check", ANY): "nobody is wiping out: flip checks come in step 3",
}


def out_of_order(state: GaslandsState, command: str) -> str:
    """The reason ``command`` is refused at the table's current step (:data:`REFUSALS`)."""
    step = current_step(state)
    act = state.activation
    keys: list[tuple[str, Step | str]] = []
    if act is not None and act.touch_move:
        keys.append((command, TOUCH_MOVED))
    if act is not None and step is Step.SHIFTS and act.shifts_left == 0:
        keys.append((command, NO_SHIFT))
    if step is Step.WIPEOUT_TURN and not state.settings.flip_check:
        keys.append((command, NO_FLIP_CHECK))
    keys += [(command, step), (ANY, step), (command, ANY), (ANY, ANY)]
    reason = next(REFUSALS[k] for k in keys if k in REFUSALS)
    name = who = picker = template = ""
    if act is not None:
        name = who = state.vehicle(act.vehicle).name
        if act.flipping is not None and step in _WIPEOUT:
            who = state.vehicle(act.flipping[0]).name
        picker = _touch_move_picker(state)
        template = _label(act.template or "") or "template"
    return reason.format(
        name=name, who=who, player=state.players[state.turn], picker=picker, template=template,
        task=STEP_TASKS[step],
    )


def current_step(state: GaslandsState) -> Step:
    if state.finished:
        return Step.GAME_OVER
    if state.activation is None:
        return Step.CHOOSE_VEHICLE
    return state.activation.step


def decide(state: GaslandsState, cmd: Command) -> Decision:
    fields.plain(cmd.args, cmd.type)
    step = current_step(state)
    draft = _Draft(state)
    if cmd.type == "end_game":
        if state.finished:
            raise Illegal("the game is over")
        _end_game(draft, cmd)
        return draft.done()
    if cmd.type == "smash":  # in the step of the crash it follows (1.7, 1.8, a flip's move): checked by _smash
        if state.finished:
            raise Illegal("the game is over")
        _smash(draft, cmd)
        return draft.done()
    if cmd.type == "set_fire":
        if state.finished:
            raise Illegal("the game is over")
        v = _other_vehicle(state, cmd)
        if v.wrecked:
            raise Illegal(f"{v.name} is wrecked")
        on = fields.boolean(cmd.args, "on", True, "set_fire")
        if v.on_fire == on:
            raise Illegal(f"{v.name} is {'already' if on else 'not'} on fire")
        draft.emit("fire_set", vehicle=v.id, on=on)
        return draft.done()
    allowed = STEP_COMMANDS[step]  # (the prompt lists step_commands; the same refusal words either way: a review)
    if cmd.type not in allowed:
        if step is Step.GAME_OVER:
            raise Illegal("the game is over")
        known = {*COMMAND_FIELDS, "undo"}
        if cmd.type not in known:
            raise Illegal(f"unknown command {cmd.type!r}; Gaslands commands are {', '.join(sorted(known))}")
        raise Illegal(out_of_order(state, cmd.type))
    handler = _HANDLERS[cmd.type]
    handler(draft, cmd)
    return draft.done(draft.refused)


def _activate(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    options = qualifying(state, state.turn)
    player = state.players[state.turn]
    vid = cmd.get("vehicle")
    if vid is None:
        if len(options) != 1:
            raise Illegal(f"{player}: say which vehicle activates: {_named_ids(options)}")
        vid = options[0].id
    v = _other_vehicle(state, Command("activate", {"vehicle": vid}))  # same checks and messages
    if v.owner != player:
        raise Illegal(f"it is {player}'s turn to activate a vehicle; {v.name} is {v.owner}'s")
    if v not in options:
        if v.wrecked:
            raise Illegal(f"{v.name} is wrecked")
        if v.gear < state.phase:
            raise Illegal(f"{v.name} is in gear {v.gear}: it does not activate in gear phase {state.phase}")
        raise Illegal(f"{v.name} has already activated in this gear phase")
    draft.emit("activation_started", vehicle=v.id)


def _choose_template(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    act = state.activation
    assert act is not None
    v = state.vehicle(act.vehicle)
    if act.step is Step.PLACE_TEMPLATE:  # no template named: the one touched, laid another way
        raw = cmd.get("template")
        _turn_template(draft, cmd, act.template if raw is None else template_id(raw))
        return
    template = template_id(_need(cmd, "template", str))
    hand, edge = _laid(cmd, "left", "front")
    status = template_status(template, v.gear, dict(state.chart), full_throttle=v.full_throttle)
    # a template not permitted in this gear is a touch-move whichever edge it was laid against (checked
    # first: a Turn in gear 5 picked to reverse was refused as a reverse, and the player picked again, skid
    # dice and all); a permitted one laid at the rear above gear 1 is refused as a reverse (RULINGS)
    if not status.usable:
        reason = f"{_label(template)} is not permitted in gear {v.gear}"
        if act.touch_move:
            raise Illegal(f"touch-move: you must use a permitted template ({reason})")
        picker = state.players[_left_of(state, state.players.index(v.owner))]
        draft.emit("template_refused", vehicle=v.id, template=template, gear=v.gear, picker=picker, reason=reason)
        draft.refused = (
            f"{reason}. Touch-move: {picker} (on the left) picks a permitted template for {v.name}; "
            "no skid dice this activation"
        )
        return
    _reverse_in_gear_1(v, edge)
    draft.emit(
        "template_chosen", vehicle=v.id, template=template, hand=hand, edge=edge, status=status.value,
        touch_move=act.touch_move,
    )


def _laid(cmd: Command, hand: str, edge: str) -> tuple[str, str]:
    """The hand and edge ``cmd`` lays its template with (``hand`` and ``edge`` when it names none)."""
    hand, edge = cmd.get("hand", hand), cmd.get("edge", edge)
    if hand not in HANDS:
        raise Illegal("hand must be left or right")
    if edge not in EDGES:
        raise Illegal("edge must be front, or rear to reverse")
    return hand, edge


def _reverse_in_gear_1(v: Vehicle, edge: str) -> None:
    """"Reverse: only in gear 1." [seed] [V]"""
    if edge == "rear" and v.gear != 1:
        raise Illegal(f"{v.name} is in gear {v.gear}: a vehicle reverses only in gear 1")


def _turn_template(draft: _Draft, cmd: Command, template: Any) -> None:
    """1.2, the template chosen: "Each may be used turning left or right (turns rotated 180°, Veer and Swerve
    flipped)", and in gear 1 placed "centred on the rear edge instead of the front"; the touch-move rule binds the
    template ("they must use it"; the seed: not "swap it for another template"), not the way it is laid (an
    audit: the other hand was refused as touch-move, and only undo got out of it)."""
    state = draft.state
    act = state.activation
    assert act is not None and act.template is not None and act.status is not None
    v = state.vehicle(act.vehicle)
    if template != act.template:
        check_template(template)  # ("banana" was refused as a touch-move breach: no template was picked)
        raise Illegal(f"touch-move: the {_label(act.template)} was touched, so it must be used")
    hand, edge = _laid(cmd, act.hand or "left", act.edge)
    _reverse_in_gear_1(v, edge)
    if edge == act.edge and (hand == act.hand or is_straight(template)):
        raise Illegal(f"the {placed_words(act)} is chosen already: place it (1.2)")
    draft.emit("template_chosen", vehicle=v.id, template=template, hand=hand, edge=edge, status=act.status.value,
               touch_move=act.touch_move)


def _place_template(draft: _Draft, cmd: Command) -> None:
    _after_template(draft)


def _skid_roll(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    act = state.activation
    assert act is not None
    v = state.vehicle(act.vehicle)
    faces = _faces(state, cmd.get("faces"), "skid_roll")
    if len(faces) > v.handling:
        raise Illegal(f"{v.name} has Handling {v.handling}: roll at most {v.handling} skid dice (you sent {len(faces)})")
    draft.emit("skid_rolled", vehicle=v.id, faces=faces)
    if _shifts_open(draft.state):
        draft.emit("step_entered", step=Step.SHIFTS.value)
    else:
        _gain_hazards(draft)


def _push_it(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    act = state.activation
    assert act is not None
    if act.touch_move:  # the same words as at the steps that take no push_it (REFUSALS)
        raise Illegal(REFUSALS[("push_it", TOUCH_MOVED)])
    if not state.settings.push_it:
        raise Illegal("push it (re-roll for a hazard token) is switched off at this table")
    if not act.skid_results:
        raise Illegal("there are no skid dice to re-roll")
    if act.pushed:
        raise Illegal("skid dice can be re-rolled only once per activation")
    if act.cancelled or act.shifts_left != sum(1 for f in act.skid_results if f is SkidFace.SHIFT) + act.free_shifts:
        raise Illegal("re-roll before spending any SHIFT")
    reroll = cmd.get("reroll")
    # the positions checked before they are put in a set: a nested list ([[1]]) was unhashable, a crash
    if not isinstance(reroll, list) or not reroll or not all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(act.skid_results) for i in reroll
    ) or len(set(reroll)) != len(reroll):
        raise Illegal(f"push_it needs reroll: the positions (0..{len(act.skid_results) - 1}) of the dice re-rolled")
    faces = _faces(state, cmd.get("faces"), "push_it")
    if len(faces) != len(reroll):
        raise Illegal(f"push_it: {len(reroll)} dice re-rolled but {len(faces)} faces given")
    draft.emit("hazards_gained", vehicle=act.vehicle, count=1, cause="push it")
    draft.emit("skid_dice_pushed", vehicle=act.vehicle, reroll=reroll, faces=faces)
    if not _shifts_open(draft.state):
        _gain_hazards(draft)


def _shift(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    act = state.activation
    assert act is not None
    v = state.vehicle(act.vehicle)
    if act.shifts_left <= 0:
        raise Illegal("no SHIFT to spend: push it (re-roll for a hazard token) or carry on")
    use = cmd.get("use")
    if use not in SHIFT_USES:
        raise Illegal(f"shift needs use: one of {', '.join(SHIFT_USES)}")
    data: dict[str, Any] = {"vehicle": v.id, "use": use}
    if use == "cancel":
        result = str(cmd.get("result", "")).upper()
        if result not in ("HAZARD", "SLIDE", "SPIN"):
            raise Illegal("cancel needs result: HAZARD, SLIDE or SPIN")
        if SkidFace(result) not in act.uncancelled:
            raise Illegal(f"there is no uncancelled {result} result to cancel")
        data["result"] = result
    elif use == "gear_up" and v.gear >= v.max_gear:
        raise Illegal(f"{v.name} is already in its max gear {v.max_gear}")
    elif use == "gear_down" and v.gear <= 1:
        raise Illegal(f"{v.name} is in gear 1: it cannot gear down")
    elif use == "discard_hazard" and v.hazards <= 0:
        raise Illegal(f"{v.name} has no hazard token to discard")
    draft.emit("shift_spent", **data)
    if draft.state.activation and draft.state.activation.shifts_left == 0:
        _gain_hazards(draft)


def _end_shifts(draft: _Draft, cmd: Command) -> None:
    act = draft.state.activation
    assert act is not None
    for _ in range(act.shifts_left):
        draft.emit("shift_spent", vehicle=act.vehicle, use="discard")
    _gain_hazards(draft)


def _confirm(draft: _Draft, cmd: Command) -> None:
    act = draft.state.activation
    assert act is not None
    step = act.step
    if step is Step.PLACE_TEMPLATE:
        _after_template(draft)
    elif step is Step.SLIDE:
        draft.emit("step_entered", step=Step.MOVE.value)
    elif step is Step.MOVE:
        if SkidFace.SPIN in act.uncancelled and not draft.state.vehicle(act.vehicle).wrecked:
            draft.emit("step_entered", step=Step.SPIN.value)
        else:
            _to_attack(draft)
    elif step is Step.SPIN:
        _to_attack(draft)
    elif step is Step.ATTACK:
        _start_wipeout(draft)
    elif step is Step.WIPEOUT_TURN:
        _turned(draft)
    elif step is Step.WIPEOUT_MOVE:
        _next_wipeout(draft)


def _turned(draft: _Draft) -> None:
    """A vehicle that lost control in gear 1 (or at a table without flip checks) has been turned: it has no flip
    check (no d6 is lower than the gear it had), which the log records as a flip check with no die; then the next
    wipeout, if any."""
    act = draft.state.activation
    assert act is not None and act.flipping is not None
    vid, old_gear = act.flipping
    draft.emit("flip_checked", vehicle=vid, die=None, old_gear=old_gear, flipped=False)
    _next_wipeout(draft)


def _to_attack(draft: _Draft) -> None:
    act = draft.state.activation
    assert act is not None
    if draft.state.vehicle(act.vehicle).wrecked:
        _start_wipeout(draft)  # a wrecked vehicle makes no attacks
    else:
        draft.emit("step_entered", step=Step.ATTACK.value)


def _collision(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    act = state.activation
    assert act is not None
    mover = act.flipping[0] if act.step is Step.WIPEOUT_MOVE and act.flipping else act.vehicle
    if state.vehicle(mover).wrecked:
        raise Illegal(f"{state.vehicle(mover).name} is wrecked: it does not move on")
    other = _other_vehicle(state, cmd)
    if other.id == mover:
        raise Illegal("a vehicle cannot collide with itself")
    if other.wrecked:
        raise Illegal(f"{other.name} is a wreck: a wreck is an obstacle, record its hazards with gain_hazard")
    both = fields.boolean(cmd.args, "both_evaded", False, "collision")
    kind = cmd.get("kind")
    data: dict[str, Any] = {"vehicle": mover, "other": other.id, "both_evaded": both, "hazards_each": 1 if both else 2}
    if kind is not None:
        if kind not in SMASH_KINDS:
            raise Illegal(f"collision kind is one of {', '.join(SMASH_KINDS)}")
        data["kind"] = kind
        dice, weight = smash_attack(state, kind, state.vehicle(mover), other)
        data["smash_dice"] = dice
        data["weight_dice"] = "unknown" if weight is None else weight
        if not both:  # each car's smash attack on the other, to be rolled (:func:`_smash`); none of no dice (a
            # tailgate in the same gear), unless the weight classes' dice are unknown and may give some
            data["smash"] = [
                {"attacker": a.id, "target": t.id, "dice": n, "weight_dice": "unknown" if w is None else w}
                for a, t in ((state.vehicle(mover), other), (other, state.vehicle(mover)))
                for n, w in (smash_attack(state, kind, a, t),)
                if n > 0 or w is None
            ]
    draft.emit("collided", **data)


def open_smashes(state: GaslandsState) -> tuple[SmashAttack, ...]:
    """The smash attacks the table may roll now: this activation's collisions' not yet rolled, on a car not
    wrecked (a car wrecked by the other's smash attack of the same crash still makes its own: docs/RULINGS.md)."""
    act = state.activation
    if act is None or state.finished:
        return ()
    return tuple(s for s in act.smashes if not state.vehicle(s.target).wrecked)


def _smash(draft: _Draft, cmd: Command) -> None:
    """A collision's smash attack, rolled: hits on 4+, a 6 is two hits, each evade die of 6 cancels one (as an
    attack's); the dice are the table's to count (a ram or a perk adds some), the screen says the usual count."""
    state = draft.state
    attacker = _other_vehicle(state, cmd, "attacker")
    target = _other_vehicle(state, cmd, "target")
    act = state.activation
    waiting = act.smashes if act is not None else ()
    if not waiting:
        raise Illegal("no smash attack waits: they are rolled at their crash, recorded with its kind "
                      "(Collision › the car › Head-on…)")
    kind = cmd.get("kind")  # which crash, when the same cars crashed twice in the step (else the first)
    if kind is not None and kind not in SMASH_KINDS:
        raise Illegal(f"kind is one of {', '.join(SMASH_KINDS)}: the crash whose smash attack this is")
    mine = [s for s in waiting if (s.attacker, s.target) == (attacker.id, target.id) and kind in (None, s.kind)]
    if not mine:
        named = "; ".join(f"{state.vehicle(s.attacker).name} on {state.vehicle(s.target).name}" for s in waiting)
        crash = f" ({COLLISION_WORDS[kind]})" if kind is not None else ""
        raise Illegal(f"{attacker.name} has no smash attack on {target.name}{crash} waiting (waiting: {named})")
    dice, evade, hits, net = _rolled(cmd, target, "smash")
    kind = mine[0].kind
    draft.emit("smash_rolled", attacker=attacker.id, target=target.id, kind=kind, dice=dice, evade=evade, hits=hits,
               net=net)
    if net:
        draft.emit("hits_taken", vehicle=target.id, count=net, cause=f"smash by {attacker.id}")


#: The most hazard tokens one ``gain_hazard`` adds.  The rules set no limit (a vehicle may hold more than
#: the 6 that wipe it out); the camera asks for what the table shows beyond the log, which can be 7 or more
#: after tokens went unrecorded.  The bound only refuses a mistyped count.
MAX_HAZARDS_GAINED = 30
SMASH_KINDS = ("head_on", "t_bone", "sideswipe", "tailgate")
#: The kinds of collision as the rulebook names them.
COLLISION_WORDS = {"head_on": "Head-on", "t_bone": "T-bone", "sideswipe": "Sideswipe", "tailgate": "Tailgate"}


def smash_dice(kind: str, mover_gear: int, other_gear: int) -> int:
    """Smash attack dice before weight-class modifiers: head-on = both gears added; T-bone and sideswipe =
    the attacker's gear (``mover_gear``: the car whose smash attack it is); tailgate = the difference of the
    gears.  The weight classes' +/- dice are the owner's data (:func:`smash_attack`)."""
    if kind == "head_on":
        return mover_gear + other_gear
    if kind in ("t_bone", "sideswipe"):
        return mover_gear
    return abs(mover_gear - other_gear)


def weight_dice(state: GaslandsState, mover: Vehicle, other: Vehicle) -> int | None:
    """The smash attack dice the mover's weight class adds against ``other``'s (negative: takes away); 0 for one
    class; None when the owner has not given the number for this difference (``[scenario.weight_dice]``)."""
    diff = WEIGHTS.index(mover.weight) - WEIGHTS.index(other.weight)
    if diff == 0:
        return 0
    key = f"heavier_by_{diff}" if diff > 0 else f"lighter_by_{-diff}"
    return dict(state.settings.weight_dice).get(key)


def smash_attack(state: GaslandsState, kind: str, mover: Vehicle, other: Vehicle) -> tuple[int, int | None]:
    """(the mover's smash attack dice, the weight classes' part of them or None when unknown): with the weight
    dice known, the whole count (never below 0); unknown, the count before them, which the table adjusts."""
    base = smash_dice(kind, mover.gear, other.gear)
    weight = weight_dice(state, mover, other)
    return (base if weight is None else max(0, base + weight)), weight


def _hits(draft: _Draft, cmd: Command) -> None:
    state = draft.state
    v = _other_vehicle(state, cmd)
    count = fields.whole(cmd.args, "count", 1, 99, "hits")
    if v.wrecked:
        raise Illegal(f"{v.name} is already wrecked")
    draft.emit("hits_taken", vehicle=v.id, count=count, cause=str(cmd.get("cause", "hits")))


def _attack(draft: _Draft, cmd: Command) -> None:
    """Hits on 4+, a 6 is two hits; the target rolls evade dice equal to its current gear, each 6 cancels one."""
    state = draft.state
    act = state.activation
    assert act is not None
    attacker = state.vehicle(act.vehicle)
    if attacker.wrecked:  # wrecked by a hit in its own attack step: a wreck takes no further part
        raise Illegal(f"{attacker.name} is wrecked: a wreck makes no attacks")
    target = _other_vehicle(state, cmd, "target")
    if target.id == act.vehicle:
        raise Illegal("a vehicle does not attack itself")
    dice, evade, hits, net = _rolled(cmd, target, "attack")
    # the roll and what it did, for every screen (the hits came off the target's hull and nothing said how many)
    draft.emit("attack_rolled", attacker=act.vehicle, target=target.id, dice=dice, evade=evade, hits=hits, net=net)
    if net:
        draft.emit("hits_taken", vehicle=target.id, count=net, cause=f"attack by {act.vehicle}")


def _rolled(cmd: Command, target: Vehicle, what: str) -> tuple[list[int], list[int], int, int]:
    """An attack's (or a smash attack's) roll on ``target``: (its dice, the evade dice, hits, hits taken): "hits on
    4+, a 6 is two hits; the target rolls evade dice equal to its current gear, each 6 cancels one hit"."""
    if target.wrecked:
        raise Illegal(f"{target.name} is already wrecked")
    dice = _d6(cmd, "dice")
    if not dice:
        raise Illegal(f"{what} needs dice: the {what} dice rolled")
    evade = _d6(cmd, "evade")
    if len(evade) > target.gear:
        raise Illegal(f"{target.name} is in gear {target.gear}: it rolls at most {target.gear} evade dice")
    hits = attack_hits(dice)
    return dice, evade, hits, max(0, hits - sum(1 for d in evade if d == 6))


def attack_hits(dice: Sequence[int]) -> int:
    """Hits of an attack roll: each die of 4+ hits, a 6 hits twice."""
    return sum(2 if d == 6 else 1 for d in dice if d >= 4)


def _gain_hazard(draft: _Draft, cmd: Command) -> None:
    v = _other_vehicle(draft.state, cmd)
    count = fields.whole(cmd.args, "count", 1, MAX_HAZARDS_GAINED, "gain_hazard", 1)
    if v.wrecked:
        raise Illegal(f"{v.name} is wrecked")
    draft.emit("hazards_gained", vehicle=v.id, count=count, cause=str(cmd.get("cause", "hazard")))


def _flip_check(draft: _Draft, cmd: Command) -> None:
    """Flip check: roll a d6; lower than the gear it had → 2 hits and moved a Medium Straight."""
    act = draft.state.activation
    assert act is not None and act.flipping is not None
    die = cmd.get("die")
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
        raise Illegal("flip_check needs die: the d6 result 1-6")
    vid, old_gear = act.flipping
    flipped = die < old_gear
    draft.emit("flip_checked", vehicle=vid, die=die, old_gear=old_gear, flipped=flipped)
    name = draft.state.vehicle(vid).name
    if flipped:
        if not draft.state.vehicle(vid).wrecked:
            draft.emit("hits_taken", vehicle=vid, count=2, cause="flip")
        # wrecked by those hits, it is not moved (a wreck takes no further part), but the step stays for the
        # table to see it and confirm: the prompt and the menu say "wrecked: no further move"
        draft.emit("step_entered", step=Step.WIPEOUT_MOVE.value)
        after = "WRECKED" if draft.state.vehicle(vid).wrecked else f"hull {draft.state.vehicle(vid).hull}"
        told = f"Flipped: {name}, rolled {die} (gear {old_gear}): 2 hits · {after}"
    else:
        _next_wipeout(draft)
        told = f"No flip: {name}, rolled {die} (gear {old_gear})"
    # every screen is told (the flipped car's owner alone read "2 hits + Medium Straight"; a car that did not flip
    # went on with no word)
    draft.said.insert(0, told)  # before a new round it led to


def _skip_phase(draft: _Draft, cmd: Command) -> None:
    """A table override (long NEXT, confirmed): pass the rest of the gear phase.  The rules give every
    qualifying vehicle its activation, so when some would miss theirs the command must say
    ``confirm: true``; the vehicles passed over are named in the log."""
    state = draft.state
    missing = [v.id for seat in range(len(state.players)) for v in qualifying(state, seat)]
    if missing and not fields.boolean(cmd.args, "confirm", False, "skip_phase"):
        names = ", ".join(state.vehicle(v).name for v in missing)
        raise Illegal(f"{names} still activate in gear phase {state.phase}: confirm to pass them over")
    _next_phase(draft, skipped=state.phase, passed_over=missing)
    _advance(draft, None)


def _end_game(draft: _Draft, cmd: Command) -> None:
    """The scenario's end (its victory condition is the table's to judge): the log records who won."""
    winner = cmd.get("winner")
    if winner is not None and (not isinstance(winner, str) or winner not in draft.state.players):
        raise Illegal(f"winner must be one of the players: {', '.join(draft.state.players)}")
    draft.emit("game_over", reason="ended by the table", winner=winner)


#: Every Gaslands command → the fields it takes (the README's vocabulary; ``undo`` is the core's).  A
#: command with any other field is refused, naming it (:func:`games.core.match.check_fields`).
COMMAND_FIELDS: dict[str, tuple[str, ...]] = {
    "activate": ("vehicle",),
    "choose_template": ("template", "hand", "edge"),
    "place_template": (),
    "skid_roll": ("faces",),
    "push_it": ("reroll", "faces"),
    "shift": ("use", "result"),
    "end_shifts": (),
    "confirm": (),
    "collision": ("vehicle", "both_evaded", "kind"),
    "hits": ("vehicle", "count", "cause"),
    "attack": ("target", "dice", "evade"),
    "smash": ("attacker", "target", "kind", "dice", "evade"),
    "gain_hazard": ("vehicle", "count", "cause"),
    "flip_check": ("die",),
    "skip_phase": ("confirm",),
    "end_game": ("winner",),
    "set_fire": ("vehicle", "on"),
}

_HANDLERS = {
    "activate": _activate,
    "choose_template": _choose_template,
    "place_template": _place_template,
    "skid_roll": _skid_roll,
    "push_it": _push_it,
    "shift": _shift,
    "end_shifts": _end_shifts,
    "confirm": _confirm,
    "collision": _collision,
    "hits": _hits,
    "attack": _attack,
    "smash": _smash,
    "gain_hazard": _gain_hazard,
    "flip_check": _flip_check,
    "skip_phase": _skip_phase,
    "end_game": _end_game,
}


# =====================================================================================================
# prompt and views
# =====================================================================================================


def prompt(state: GaslandsState) -> Prompt:
    step = current_step(state)
    commands = step_commands(state) + (() if step is Step.GAME_OVER else ("set_fire", "end_game", "undo"))
    if step is Step.SHIFTS:
        act0 = state.activation
        assert act0 is not None
        can_push = _can_push(state)
        commands = tuple(
            c for c in commands if not (c == "push_it" and not can_push) and not (c == "shift" and not act0.shifts_left)
        )
    if step is Step.PLACE_TEMPLATE:
        # confirm is accepted at 1.2 as another word for place_template (scripts use both); listed once
        commands = tuple(c for c in commands if c != "confirm")
    if state.activation is not None:
        # attacks and collisions need a mover that is not a wreck and another vehicle that is not one either
        act1 = state.activation
        mover = act1.flipping[0] if step is Step.WIPEOUT_MOVE and act1.flipping else act1.vehicle
        if state.vehicle(mover).wrecked or not any(not v.wrecked and v.id != mover for v in state.vehicles):
            commands = tuple(c for c in commands if c not in ("attack", "collision"))
    if open_smashes(state):
        commands = (*commands, "smash")
    if all(v.wrecked for v in state.vehicles):
        # every car wrecked in this activation (a crash's two smash attacks, hits): nothing is left to hit, set
        # on fire or give hazards (attacks and collisions went above); the game ends when the activation does
        commands = tuple(c for c in commands if c not in ("hits", "gain_hazard", "set_fire"))
    if step is Step.GAME_OVER:
        # the winner the table named, in words on the phone's page and the simulator's line as on the screens
        text = f"Game over: {state.winner} wins" if state.winner else "Game over"
        return Prompt(text, step.value, "nothing", commands=("undo",))
    if step is Step.CHOOSE_VEHICLE:
        player = state.players[state.turn]
        choosing = qualifying(state, state.turn)
        options = tuple(v.id for v in choosing)
        return Prompt(
            f"Gear phase {state.phase}: {player}, activate one of {', '.join(v.name for v in choosing)}",
            step.value, "vehicle", player=player, options=options, commands=commands,
        )
    act = state.activation
    assert act is not None
    v = state.vehicle(act.vehicle)
    who = f"{v.owner} · {v.name} (gear {v.gear})"
    base = dict(step=step.value, player=v.owner, vehicle=v.id, commands=commands)
    if step is Step.CHOOSE_TEMPLATE:
        usable = tuple(
            t for t in TEMPLATES if template_status(t, v.gear, dict(state.chart), full_throttle=v.full_throttle).usable
        )
        return Prompt(f"{who}: 1.1 choose a maneuver template", awaits="template", options=usable, **base)
    if step is Step.TOUCH_MOVE:
        picker = _touch_move_picker(state)
        usable = tuple(
            t for t in TEMPLATES if template_status(t, v.gear, dict(state.chart), full_throttle=v.full_throttle).usable
        )
        return Prompt(
            f"{_label(act.refused_template or '')} not permitted in gear {v.gear}: {picker} picks a permitted "
            f"template for {v.name} (no skid dice)",
            awaits="template", options=usable, **{**base, "player": picker},
        )
    if step is Step.PLACE_TEMPLATE:
        where = "rear edge (reverse)" if act.edge == "rear" else "front edge"
        if act.touch_move:  # the player on the left chooses *and places* the template
            picker = _touch_move_picker(state)
            return Prompt(
                f"Touch-move: {picker} places the {_label(act.template or '')} at the {where} of {v.name} "
                "(1.2; no skid dice)",
                awaits="confirm", **{**base, "player": picker},
            )
        return Prompt(f"{who}: 1.2 place the {_label(act.template or '')} at the {where}", awaits="confirm", **base)
    if step is Step.SKID_CHECK:
        die = "d6" if state.settings.skid_dice == "d6" else "skid"
        return Prompt(
            f"{who}: 1.3 skid check, roll up to {v.handling} skid dice", awaits="dice", die=die, count=v.handling, **base
        )
    if step is Step.SHIFTS:
        standing = ", ".join(f.value for f in act.uncancelled) or "none"
        if not act.shifts_left:
            return Prompt(
                f"{who}: 1.4 no SHIFT rolled ({standing}): push it (re-roll for a hazard token) or carry on",
                awaits="shift", options=("push_it", "end_shifts"), count=0, **base,
            )
        return Prompt(
            f"{who}: 1.4 spend {act.shifts_left} SHIFT (results standing: {standing})",
            awaits="shift", options=SHIFT_USES, count=act.shifts_left, **base,
        )
    if step is Step.SLIDE:
        return Prompt(f"{who}: 1.6 place the Slide template at the skid-exit notch", awaits="confirm", **base)
    if step in (Step.MOVE, Step.SPIN) and v.wrecked:  # wrecked by a hit during its move (docs/RULINGS.md)
        return Prompt(f"{who}: wrecked, it moves no further: confirm to go on", awaits="confirm", **base)
    if step is Step.MOVE:
        return Prompt(f"{who}: 1.7 move to the final position (collisions now)", awaits="confirm", **base)
    if step is Step.SPIN:
        return Prompt(f"{who}: 1.8 spin up to 90° either way (collisions now)", awaits="confirm", **base)
    if step is Step.ATTACK:
        if v.wrecked:  # wrecked by a hit in its own attack step
            return Prompt(f"{who}: wrecked, it makes no attacks: confirm to end step 2", awaits="confirm", **base)
        return Prompt(f"{who}: 2 attack step: assign crew, attack, then confirm", awaits="confirm", **base)
    if step is Step.WIPEOUT_TURN:
        assert act.flipping is not None
        fv = state.vehicle(act.flipping[0])
        left = _turner(state, fv)
        where = ("lost control in gear 1, tokens cleared" if act.flipping[1] <= 1
                 else "lost control, now gear 1, tokens cleared")  # (played without flip checks: any gear)
        return Prompt(
            f"WIPEOUT {fv.name}: {where}; {left} turns it to face any direction (no flip check), then confirm",
            awaits="confirm", **{**base, "vehicle": fv.id, "player": left},
        )
    if step is Step.WIPEOUT_FLIP:
        assert act.flipping is not None
        fv = state.vehicle(act.flipping[0])
        left = _turner(state, fv)
        return Prompt(
            f"WIPEOUT {fv.name}: now gear 1, tokens cleared; {left} turns it to face any direction. "
            f"Flip check: roll a d6 (below {act.flipping[1]} flips)",
            awaits="dice", die="d6", count=1, **{**base, "vehicle": fv.id, "player": fv.owner},
        )
    assert step is Step.WIPEOUT_MOVE and act.flipping is not None
    fv = state.vehicle(act.flipping[0])
    if fv.wrecked:  # wrecked by the flip's 2 hits or a hit during its move: it goes no further
        return Prompt(f"{fv.name} flipped and is wrecked: it moves no further; confirm", awaits="confirm",
                      **{**base, "vehicle": fv.id, "player": fv.owner})
    return Prompt(f"{fv.name} flipped: 2 hits, move it a Medium Straight", awaits="confirm",
                  **{**base, "vehicle": fv.id, "player": fv.owner})


def alerts(state: GaslandsState) -> list[Alert]:
    """What the screens flash now: the touch-move (NOT PERMITTED for the active player; YOU PICK, then
    YOU PLACE, for the player on the left), a vehicle losing control (everybody's screen, in step 3; YOU TURN
    on the screen of the player on the owner's left while the owner rolls the flip check), a coming wipeout
    (6+ hazard tokens) and a wreck."""
    out: list[Alert] = []
    act = state.activation
    if act is not None and act.touch_move and act.step in (Step.TOUCH_MOVE, Step.PLACE_TEMPLATE):
        v = state.vehicle(act.vehicle)
        picker = _touch_move_picker(state)
        # the owner is told who now picks (or places) for their car: "NOT PERMITTED in gear 5" alone left them
        # waiting for a menu that had gone to their left (an audit, five players)
        does = "picks" if act.step is Step.TOUCH_MOVE else "places"
        out.append(Alert("illegal_template",
                         f"{_label(act.refused_template or '')} NOT PERMITTED in gear {v.gear}. {picker} {does} for you", v.owner))
        if act.step is Step.TOUCH_MOVE:
            out.append(Alert("touch_move", f"YOU PICK for {v.name}", picker))
        else:
            out.append(Alert("touch_move_place", f"YOU PLACE the {placed_words(act)} for {v.name}", picker))
    if act is not None and act.flipping is not None and act.step in (Step.WIPEOUT_FLIP, Step.WIPEOUT_TURN):
        fv = state.vehicle(act.flipping[0])
        turner = _turner(state, fv)
        if act.step is Step.WIPEOUT_FLIP and turner != fv.owner:
            # the turner has no step of their own while the owner rolls the flip check: told on their own screen
            # (in gear 1 the step to turn it is theirs, its menu says so)
            out.append(Alert("you_turn", f"YOU TURN {fv.name} to face any direction", turner))
        out.append(Alert("lost_control", f"LOST CONTROL: {fv.name}, {turner} turns it"))
    for v in state.vehicles:
        if v.wrecked:
            if act is not None and v.id in act.wrecks:
                out.append(Alert("wrecked", f"{v.name} WRECKED", v.owner))
        elif v.hazards >= WIPEOUT_AT:
            # when it happens ("checked only [in step 3], not at other times"), and, while this vehicle's SHIFTs
            # stand at 1.4, how it may not: "WIPEOUT" alone read as done when a SHIFT could discard a token (an
            # audit).  Only when the SHIFTs can bring it under 6 with what 1.5 adds (a token for each result still
            # standing, one for a hazardous icon): each SHIFT discards a token or cancels a result, one either way
            # (a review: 6 tokens and [SHIFT, HAZARD] was told "unless" and wiped out whatever was spent)
            unless = ""
            if act is not None and act.vehicle == v.id and act.step is Step.SHIFTS:
                icon = int(act.status is TemplateStatus.HAZARDOUS)
                if act.shifts_left > 0 and v.hazards + len(act.uncancelled) + icon - act.shifts_left < WIPEOUT_AT:
                    unless = ", unless SHIFTs discard tokens"
                elif _can_push(state) and (v.hazards + 1 + icon - len(act.skid_results) - act.free_shifts
                                           < WIPEOUT_AT):
                    # push it: a token, then at best every die re-rolled a SHIFT (a review: 6 tokens and
                    # [SHIFT, HAZARD], pushed, gave 2 SHIFTs for 7 tokens: 5)
                    unless = ", unless push it rolls SHIFTs"
            out.append(Alert("wipeout_coming", f"WIPEOUT: {v.name}: {v.hazards} hazards, loses control in step 3{unless}",
                             v.owner))
    return out


def _touch_move_picker(state: GaslandsState) -> str:
    """The player on the active player's left, who picks and places under the touch-move rule."""
    act = state.activation
    assert act is not None
    return state.players[_left_of(state, state.players.index(state.vehicle(act.vehicle).owner))]


def _turner(state: GaslandsState, v: Vehicle) -> str:
    """The player on the left of a vehicle's owner, who turns it when it loses control."""
    return state.players[_left_of(state, state.players.index(v.owner))]


def hazards_due(state: GaslandsState) -> int:
    """Hazard tokens 1.5 will give the active vehicle: each uncancelled HAZARD, SLIDE and SPIN rolled, and one
    for a hazardous template (as :func:`_gain_hazards` counts them); 0 outside 1.2-1.4, once they are gained."""
    act = state.activation
    if act is None or current_step(state) not in (Step.PLACE_TEMPLATE, Step.SKID_CHECK, Step.SHIFTS):
        return 0
    return len(act.uncancelled) + (1 if act.status is TemplateStatus.HAZARDOUS else 0)


def views(state: GaslandsState) -> list[PlayerView]:
    """Each player's screen.  ``your_activation`` marks the player the step is waiting for, the prompt's
    player: the active player, but the player on the left while they pick and place a touch-move template,
    the owner of a vehicle whose flip check is rolled, the player who turns a vehicle that lost control."""
    step = current_step(state)
    act = state.activation
    p = prompt(state)
    all_alerts = alerts(state)
    # activating now, or still to activate in this gear phase
    activates = set() if state.finished else {v.id for seat in range(len(state.players)) for v in qualifying(state, seat)}
    if act is not None:
        activates.add(act.vehicle)
    due = hazards_due(state)
    out = []
    for seat, player in enumerate(state.players):
        vehicles = tuple(
            VehicleView(
                id=v.id, name=v.name, type=v.type, gear=v.gear, max_gear=v.max_gear, hazards=v.hazards, hull=v.hull,
                max_hull=v.max_hull, on_fire=v.on_fire, wrecked=v.wrecked,
                activated_this_phase=v.activated_phase == (state.round, state.phase),
                active=act is not None and act.vehicle == v.id,
                activates_this_phase=v.id in activates, wipeout_at=WIPEOUT_AT,
                hazards_due=due if act is not None and act.vehicle == v.id else 0,
            )
            for v in state.vehicles
            if v.owner == player
        )
        out.append(
            PlayerView(
                player=player, seat=seat, round=state.round, gear_phase=state.phase, has_pole=seat == state.pole,
                your_activation=p.player == player, vehicles=vehicles, step=step.value, prompt=p.text,
                alerts=tuple(a for a in all_alerts if a.player in (None, player)), winner=state.winner,
                acting=p.player, news=state.news,
            )
        )
    return out


def first_offer(state: GaslandsState) -> Decision:
    """The events that follow game_started: pole's first activation offer."""
    draft = _Draft(state)
    _advance(draft, None)
    return draft.done()
