"""Gaslands' events in the rulebook's words, for the game log on the phone (``device.web.timeline``) and the
screens' "UNDONE: …" lines: "Attack: Rust Bucket on The Brick: rolled 5, 2; evade 3; 1 hit, 0 evaded, 1 taken",
not the event's data ("attack rolled: attacker Rust Bucket, dice [5, 2], …, net 1").  Pure: the event and the
cars' names in, words out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core import Event
from games.gaslands.rules import COLLISION_WORDS as _CRASH  # the kinds of collision as the rulebook names them
#: What a SHIFT result was spent on (1.4).
_SHIFT = {"gear_up": "gear up", "gear_down": "gear down", "discard_hazard": "discard a hazard token",
          "discard": "discarded"}


def _count(n: Any, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _faces(values: Any) -> str:
    return ", ".join(str(v) for v in values) if isinstance(values, (list, tuple)) and values else "none"


def _label(template: Any) -> str:
    return str(template).replace("_", " ").title()


def timeline_words(event: Event, names: Mapping[str, str] | None = None) -> str | None:
    """``event`` in the rulebook's words, each car by its name (``names``: id → name); None where the log's
    plain reading will do (a step entered says its step already; what a decision settled is said in words)."""
    cars = names or {}
    d: Mapping[str, Any] = event.data

    def car(key: str = "vehicle") -> str:
        return car_of(cars, d.get(key))

    def cause() -> str:
        text = str(d.get("cause", ""))
        for by in ("attack by ", "smash by "):  # the attacker's id in the cause: by its name
            if text.startswith(by):
                return by + cars.get(text[len(by):], text[len(by):])
        return text

    t = event.type
    if t == "game_started":
        vehicles = [v for v in d.get("vehicles", []) if isinstance(v, Mapping)]
        players = [str(p) for p in d.get("players", [])]

        def fleet(player: str) -> str:
            mine = [str(v.get("name") or v.get("type", "?")).replace("_", " ") for v in vehicles if v.get("owner") == player]
            return f"{player} ({', '.join(mine)})" if mine else player

        pole = d.get("pole")
        first = f"; pole {players[pole]}" if isinstance(pole, int) and 0 <= pole < len(players) else ""
        return "Gaslands set: " + ", ".join(fleet(p) for p in players) + first
    if t == "gear_phase_started":
        text = f"Round {d.get('round')}, gear phase {d.get('phase')} begins"
        if d.get("skipped") is not None:  # a table's long NEXT passed the rest of a phase over (skip_phase)
            missed = [car_of(cars, v) for v in d.get("passed_over", [])]
            text += f"; phase {d['skipped']} passed" + (f" over {', '.join(missed)}" if missed else "")
        return text
    if t == "turn_passed":  # play goes clockwise, one qualifying vehicle per player at a time
        seat = d.get("seat")
        who = d.get("player") or (f"player {seat + 1}" if isinstance(seat, int) else "the next player")
        return f"{who}'s turn to activate"  # (a log from before the event named its player: the seat, counted from 1)
    if t == "activation_started":
        return f"{car()} activates"
    if t == "activation_ended":
        return f"{car()}'s activation ends"
    if t == "template_chosen":
        placed = [_label(d.get("template"))]
        if d.get("hand") and not str(d.get("template", "")).endswith("_straight"):
            placed.append(str(d["hand"]))
        if d.get("edge") == "rear":
            placed.append("reverse")
        # its cell of the chart where the chart says it ("unknown": an owner's chart left it blank)
        said = [str(d["status"])] if d.get("status") not in (None, "unknown") else []
        said += ["touch-move"] if d.get("touch_move") else []
        return f"{car()}: template {', '.join(placed)}" + (f" ({', '.join(said)})" if said else "")
    if t == "template_refused":
        return (f"{car()}: {_label(d.get('template'))} refused, not permitted in gear {d.get('gear')}; touch-move: "
                f"{d.get('picker')} picks, no skid dice")
    if t == "free_shift_granted":
        return "a trivial template's free SHIFT (touch-move: no skid dice)"
    if t == "skid_rolled":
        return f"{car()}: skid dice {_faces(d.get('faces'))}"
    if t == "skid_dice_pushed":
        # (``reroll``: the positions of the dice re-rolled, not faces; ``faces``: the new faces of those dice)
        again = d.get("reroll")
        n = len(again) if isinstance(again, (list, tuple)) else "?"
        return f"{car()} pushes it: {_count(n, 'skid die', 'skid dice')} re-rolled: {_faces(d.get('faces'))}"
    if t == "shift_spent":
        use = d.get("use")
        spent = f"cancel {d.get('result')}" if use == "cancel" else _SHIFT.get(str(use), str(use))
        return f"{car()}: SHIFT, {spent}"
    if t == "hazards_gained":
        return f"{car()} gains {_count(d.get('count'), 'hazard token')} ({cause()})"
    if t == "hits_taken":
        return f"{car()} takes {_count(d.get('count'), 'hit')} ({cause()})"
    if t in ("attack_rolled", "smash_rolled"):
        crash = f" ({_CRASH.get(str(d.get('kind')), d.get('kind'))})" if t == "smash_rolled" else ""
        hits, net = d.get("hits", 0), d.get("net", 0)
        evaded = hits - net if isinstance(hits, int) and isinstance(net, int) else "?"
        return (f"{'Smash' if t == 'smash_rolled' else 'Attack'}: {car('attacker')} on {car('target')}{crash}: "
                f"rolled {_faces(d.get('dice'))}; evade {_faces(d.get('evade'))}; {_count(hits, 'hit')}, {evaded} "
                f"evaded, {net} taken")
    if t == "collided":
        crash = _CRASH.get(str(d.get("kind")), "collision")
        tokens = _count(d.get("hazards_each"), "hazard token")
        text = f"{car()} and {car('other')}: {crash}, {'both evaded, ' if d.get('both_evaded') else ''}{tokens} each"
        # each car's smash dice on the other, short: the line is an "UNDONE:" banner's pieces too
        smash = [s for s in d.get("smash", []) if isinstance(s, Mapping)]
        if smash:
            weight = " (± weight)" if any(s.get("weight_dice") == "unknown" for s in smash) else ""
            text += "; smash dice " + ", ".join(f"{car_of(cars, s.get('attacker'))} {s.get('dice')}" for s in smash) + weight
        elif "smash" not in d and d.get("smash_dice") is not None:  # a log from before each car's smash attack
            text += f"; smash dice {d['smash_dice']}"
        return text
    if t == "lost_control":
        return f"{car()} loses control: gear 1 (was {d.get('old_gear')}), its hazard tokens removed"
    if t == "wipeout_started":
        return "Wipeout: " + ", ".join(car_of(cars, v) for v in d.get("vehicles", []))
    if t == "flip_checked":
        if d.get("die") is None:
            if int(d.get("old_gear") or 1) > 1:  # only a game played without flip checks ([scenario] flip_check)
                return f"{car()}: turned; no flip check (this game is played without them)"
            return f"{car()}: turned; no flip check in gear {d.get('old_gear')} (no d6 is lower)"
        # as the screens' news says it ("Flipped: Rust Bucket, rolled 2 (gear 4)"): lower than the gear it had flips
        result = "flipped" if d.get("flipped") else "not flipped"
        return f"{car()}: flip check, rolled {d.get('die')} (gear {d.get('old_gear')}): {result}"
    if t == "fire_set":
        return f"{car()} is on fire" if d.get("on", True) else f"{car()}'s fire is out"
    if t == "game_over":
        winner = d.get("winner")
        return f"Game over: {d.get('reason')}" + (f"; {winner} wins" if winner else "")
    return None


def car_of(cars: Mapping[str, str], vid: Any) -> str:
    """A car's name by its id (the id itself when the log names a car the set-up did not)."""
    return cars.get(vid, str(vid)) if isinstance(vid, str) else "?"
