"""Gaslands with the buttons: what a player can do at each step, as a short menu in the rulebook's words.

Built from the commands the step takes (``rules.prompt(state).commands``), so a new step is covered by
the same pieces.  Every leaf is checked against the rules before it is offered (:func:`keep_legal`); the
first level never holds more than eight choices:

* choose vehicle — the qualifying vehicles; Table…
* 1.1 template — Straights… (Short / Medium / Long), Gentle…, Turn…, Hard…, Veer…, Swerve…, Hairpin…
  (each: Left / Right, and "reverse" in gear 1); Table…
* 1.2 — Template placed; Hazard token…; Table…          1.3 — Roll skid dice; Hazard token…; Table…
* 1.4 — Gear up · +1 hazard, Gear down · +1 hazard, Cancel…, Discard a hazard token, Discard… (All SHIFTs left: NEXT), Push it…,
  Hazard token…, Table…
* 1.6 / 1.7 / 1.8 / flip move — Done; Hazard token…; Collision… (vehicle › Head-on / T-bone / Sideswipe / Tailgate, with its smash dice); Collision, evaded…; Hit…; Table…
  After a crash of a known kind, first: Smash attack… (each car's on the other: its smash dice, then the target's
  evade dice), what NEXT opens until both are rolled or the table moves on
* 2 attack — Attacks done; Attack… (target, then the attack dice and the evade dice); Hit…; Hazard…; Table…
* 3 wipeout — Roll the flip check
* Table… — Set on fire…, Put out fire…, Skip rest of phase, End game… (No winner / Ana wins, each › Yes, end the game)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from games.core import Command
from games.core.table_input import (FIRST_LEVEL_MAX, READING_SEP, Choice, DiceRequest, Menu, accepted_by, branch, keep_legal, leaf,
                                    roll)
from games.gaslands import rules
from games.gaslands.chart import TEMPLATES, template_status
from games.gaslands.state import GaslandsState, SkidFace, SmashAttack, Step, TemplateStatus, Vehicle, name_for_owner

#: How the step is named at the top of the menu (a 128-pixel line).
TITLES: dict[str, str] = {
    Step.CHOOSE_VEHICLE.value: "Activate a vehicle",
    Step.CHOOSE_TEMPLATE.value: "1.1 Template",
    Step.TOUCH_MOVE.value: "1.1 Touch-move pick",
    Step.PLACE_TEMPLATE.value: "1.2 Place template",
    Step.SKID_CHECK.value: "1.3 Skid check",
    Step.SHIFTS.value: "1.4 SHIFT results",
    Step.SLIDE.value: "1.6 Slide",
    Step.MOVE.value: "1.7 Move",
    Step.SPIN.value: "1.8 Spin",
    Step.ATTACK.value: "2 Attack step",
    Step.WIPEOUT_FLIP.value: "3 Wipeout",
    Step.WIPEOUT_MOVE.value: "3 Flip move",
    Step.WIPEOUT_TURN.value: "3 Wipeout",
}

#: What "done" means at a step that ends with a confirmation.
DONE_WORDS: dict[str, str] = {
    Step.SLIDE.value: "Slide placed",
    Step.MOVE.value: "Moved",
    Step.SPIN.value: "Spun",
    Step.ATTACK.value: "Attacks done",
    Step.WIPEOUT_MOVE.value: "Flip move done",
    Step.WIPEOUT_TURN.value: "Turned it",
}

STRAIGHTS = ("short_straight", "medium_straight", "long_straight")
#: Attack dice entered at most (weapons roll a few dice; the rules count hits on 4+).
MAX_ATTACK_DICE = 12


def template_name(template: str) -> str:
    """``medium_straight`` → ``Medium Straight``: the template's name as printed."""
    return template.replace("_", " ").title()


def own_name(v: Vehicle) -> str:
    """A vehicle's name for its owner (the owner's name pushed the gear off the line: "Dmitri's Ice Cream
    Truck (…")."""
    return name_for_owner(v.name, v.owner)


def _counted(results: Sequence[str]) -> str:
    """Skid results as few characters as a footer line needs: "HAZARD 2 SPIN"."""
    counts = dict.fromkeys(results, 0)
    for r in results:
        counts[r] += 1
    return " ".join(r if n == 1 else f"{n} {r}" for r, n in counts.items())


#: A menu footer holds about this many characters at its smallest size.
FOOTER_CHARS = 28


def vehicle_status(v: Vehicle) -> str:
    """The footer's "Rust Bucket · gear 3 · 2 haz" (and "· ON FIRE": only the dashboard said so, not the menu
    its owner reads during the activation); a name too long for the line goes after the numbers ("Big Momma
    Juggernaut · g…" hid the gear and the tokens each OK of "Hazard token" added)."""
    numbers = f"gear {v.gear} · {v.hazards} haz" + (" · ON FIRE" if v.on_fire else "")  # fire: the menu hid it
    whole = f"{v.name} · {numbers}"
    return whole if len(whole) <= FOOTER_CHARS else f"{numbers} · {v.name}"


def _shift_status(v: Vehicle, standing: Sequence[str]) -> str:
    """The 1.4 footer: the results still standing first (what the SHIFTs may cancel; also the camera's
    reading of the skid dice, which nothing else shows), then gear and hazard tokens as far as they fit."""
    if not standing:
        return vehicle_status(v)  # nothing to cancel: no Cancel… either
    results = _counted(standing)
    for text in (f"{results} · gear {v.gear} · {v.hazards} haz", f"{results} · {v.hazards} haz"):
        if len(text) <= FOOTER_CHARS:
            return text
    return results


def _legal(state: GaslandsState) -> Callable[[Command], bool]:
    return accepted_by(rules.decide, state)


def _order(state: GaslandsState, first: str | None) -> list[Vehicle]:
    """Vehicles not wrecked, ``first`` (the active one) first, then round the table from its owner."""
    alive = [v for v in state.vehicles if not v.wrecked]
    if first is None:
        return alive
    owner = state.vehicle(first).owner
    seat = state.players.index(owner)
    seats = {p: (state.players.index(p) - seat) % len(state.players) for p in state.players}
    return sorted(alive, key=lambda v: (v.id != first, seats[v.owner]))


def _cars(label: str, cars: Sequence[Vehicle], make: Callable[[Vehicle], Command] | None = None,
          reading: Callable[[Vehicle], str] | None = None, *,
          then: Callable[[Vehicle], Sequence[Choice | None]] | None = None, once: bool = False) -> Choice | None:
    """``label`` › each car (the active one first, then round the table); with more than a list holds (5 players
    × 2 cars made "Hazard token" ten long), the first stays on top and the rest go one list per player.
    ``reading``: what each OK changes, after the car's name ("The Brick · hull 7"; the cursor follows the name).
    ``then``: each car opens these choices (instead of sending ``make``'s command); ``once``: a car's line is not
    taken twice running (``Choice.once``)."""
    def item(v: Vehicle, shown: str) -> Choice | None:
        if then is not None:
            return branch(shown, then(v))
        assert make is not None
        return leaf(f"{shown}{READING_SEP}{reading(v)}" if reading is not None else shown, make(v), once=once)

    if len(cars) <= FIRST_LEVEL_MAX:
        return branch(label, [item(v, v.name) for v in cars])
    head, rest = cars[0], cars[1:]
    owners = list(dict.fromkeys(v.owner for v in rest))
    return branch(label, [item(head, head.name),
                          *(branch(owner, [item(v, own_name(v)) for v in rest if v.owner == owner])
                            for owner in owners)])


def _smash(state: GaslandsState, mover: Vehicle, other: Vehicle) -> list[Choice | None]:
    """A collision's kind, with the smash attack dice it gives (the buttons recorded no kind, so the dice were
    never worked out): the weight classes' +/- dice included when the owner's setup gives them; when it does not
    and the weights differ, "± weight" says the table adjusts the count (it read as the whole count)."""
    out: list[Choice | None] = []
    for kind in rules.SMASH_KINDS:
        n, weight = rules.smash_attack(state, kind, mover, other)
        out.append(leaf(f"{rules.COLLISION_WORDS[kind]}{READING_SEP}{n} {'die' if n == 1 else 'dice'}"
                        + (" ± weight" if weight is None else ""),
                        Command("collision", {"vehicle": other.id, "both_evaded": False, "kind": kind}), once=True))
    return out


def _table(state: GaslandsState, commands: Sequence[str], cars: Sequence[Vehicle], extra: Sequence[Choice | None] = ()
           ) -> Choice | None:
    """What a table may record at any time: fire, passing the rest of a gear phase, the end of the game."""
    burning = [v for v in cars if v.on_fire]
    cool = [v for v in cars if not v.on_fire]
    kids: list[Choice | None] = list(extra)
    if "set_fire" in commands:
        kids.append(_cars("Set on fire", cool, lambda v: Command("set_fire", {"vehicle": v.id, "on": True})))
        kids.append(_cars("Put out fire", burning, lambda v: Command("set_fire", {"vehicle": v.id, "on": False})))
    if "skip_phase" in commands:
        kids.append(leaf("Skip rest of phase", Command("skip_phase", {"confirm": True})))
    if "end_game" in commands:
        # each asked once more: the second OK of "End game › No winner" ended the game where the table meant to
        # look (undo brings it back, but every screen showed Game over meanwhile)
        def ending(label: str, cmd: Command) -> Choice | None:
            return branch(label, [leaf("Yes, end the game", cmd)])  # (the page's title names the ending)

        kids.append(branch("End game", [ending("No winner", Command("end_game")),
                                        *(ending(f"{p} wins", Command("end_game", {"winner": p})) for p in state.players)]))
    return branch("Table…", kids)


#: A template's icon under the vehicle's gear, said after its name: "trivial (gives one free SHIFT result) or
#: hazardous (the vehicle gains one extra hazard token)" — the chart is the owner's, the screen the only place a
#: player reads it (a walkthrough: "Turn" read the same in gear 1, trivial, and gear 4, hazardous)
ICON_WORDS = {TemplateStatus.TRIVIAL: "trivial", TemplateStatus.HAZARDOUS: "hazardous"}


def _icon(status: TemplateStatus | None) -> str:
    return f"{READING_SEP}{ICON_WORDS[status]}" if status in ICON_WORDS else ""


def _templates(state: GaslandsState, v: Vehicle) -> list[Choice | None]:
    chart = dict(state.chart)
    status = {t: template_status(t, v.gear, chart, full_throttle=v.full_throttle) for t in TEMPLATES}
    usable = [t for t in TEMPLATES if status[t].usable]
    edges = ("front", "rear") if v.gear == 1 else ("front",)

    def variants(t: str, straight: bool) -> list[Choice]:
        out = []
        for edge in edges:
            hands = (None,) if straight else ("left", "right")
            for hand in hands:
                args: dict[str, Any] = {"template": t}
                words = [template_name(t).split()[0] if straight else (hand or "").title()]
                if hand is not None:
                    args["hand"] = hand
                if edge == "rear":
                    args["edge"] = "rear"
                    words.append("reverse")
                out.append(leaf(", ".join(words) + (_icon(status[t]) if straight else ""),
                                Command("choose_template", args)))
        return out

    only = len(usable) == 1
    straights = sorted((c for t in STRAIGHTS if t in usable for c in variants(t, True)),
                       key=lambda c: c.label.endswith("reverse"))  # forwards first: reversing is rare
    out: list[Choice | None] = []
    if straights:
        out.append(branch("Straights", straights, default=only))
    for t in usable:
        if t not in STRAIGHTS:
            out.append(branch(template_name(t) + _icon(status[t]), variants(t, False), default=only))
    return out


def _shifts(state: GaslandsState, v: Vehicle, commands: Sequence[str]) -> list[Choice | None]:
    act = state.activation
    assert act is not None
    out: list[Choice | None] = []
    if "shift" in commands:
        standing = list(dict.fromkeys(f.value for f in act.uncancelled))
        out += [
            branch("Cancel…", [leaf(f"Cancel {r}", Command("shift", {"use": "cancel", "result": r})) for r in standing],
                   default=bool(standing)),
            # with their price, as Push it… has it: "gear up (+1 current gear, +1 hazard token)" (an audit: the
            # list said nothing of the token)
            leaf(GEAR_UP, Command("shift", {"use": "gear_up"}), default=not standing),
            leaf(GEAR_DOWN, Command("shift", {"use": "gear_down"})),
            leaf("Discard a hazard token", Command("shift", {"use": "discard_hazard"})),  # the rulebook's words
            branch("Discard…", [leaf("This SHIFT", Command("shift", {"use": "discard"})),
                                leaf("All SHIFTs left", Command("end_shifts"), default=True)]),
        ]
    elif "end_shifts" in commands:
        out.append(leaf("Carry on", Command("end_shifts"), default=True))
    if "push_it" in commands:
        # its price on the line: "take one hazard token to re-roll any number of skid dice once" (the list said
        # which dice, never the token a walkthrough saw appear)
        out.append(branch(f"{PUSH_IT}{READING_SEP}+1 hazard", _push_it(state)))
    return out


def _skid_die(state: GaslandsState) -> tuple[str, tuple[tuple[Any, str], ...]]:
    if state.settings.skid_dice == "d6":
        return "d6", tuple(state.settings.d6_faces)
    return "skid", ()


PUSH_IT = "Push it…"
GEAR_UP, GEAR_DOWN = f"Gear up{READING_SEP}+1 hazard", f"Gear down{READING_SEP}+1 hazard"


def _push_it(state: GaslandsState) -> list[Choice | None]:
    """Push it: a hazard token to "re-roll any number of skid dice" — the dice that are not SHIFT, all of them,
    one die of a result (keep a HAZARD, re-roll the SPIN), or "Re-roll some…" two or more of the non-SHIFT
    results.  A SHIFT is re-rolled only with all the dice: a mix of a SHIFT and a hazard result is not offered
    (nobody throws a SHIFT away to keep a HAZARD); the phone and the sim take any positions."""
    act = state.activation
    assert act is not None
    die, names = _skid_die(state)
    results = list(act.skid_results)
    not_shift = [i for i, f in enumerate(results) if f is not SkidFace.SHIFT]
    ones = [(f"Re-roll one {f.value}", [results.index(f)]) for f in dict.fromkeys(results) if f is not SkidFace.SHIFT]
    def reroll(label: str, positions: list[int]) -> Choice:
        def build(faces: Sequence[Any], positions: list[int] = positions) -> Command:
            return Command("push_it", {"reroll": positions, "faces": list(faces)})

        # the entry names the dice it re-rolls, where they fit its line ("3 skid dice" did not say which)
        said = _reroll_words(results, positions)
        words = f"re-roll {said}" if len(said) <= 16 else f"re-roll {len(positions)} skid dice"
        return roll(label, DiceRequest(die, len(positions), words, build, face_names=names))

    out: list[Choice | None] = []
    for label, positions in (("Re-roll non-SHIFT", not_shift), ("Re-roll all", list(range(len(results)))), *ones):
        if not positions or (label == "Re-roll all" and positions == not_shift) or (
                label.startswith("Re-roll one") and positions == not_shift):
            continue
        out.append(reroll(label, positions))
    # "any number": two or more of the results but not all of them (keep the HAZARD, re-roll SPIN and SLIDE)
    some = _sub_rolls(results, not_shift)
    if some:
        by_size: dict[int, list[Choice]] = {}
        for positions in some:
            by_size.setdefault(len(positions), []).append(reroll(_reroll_words(results, positions), positions))
        flat = [c for size in sorted(by_size) for c in by_size[size]]
        if len(flat) <= FIRST_LEVEL_MAX:
            out.append(branch("Re-roll some…", flat))
        else:  # a Bike's five dice: a list per number of dice, each within the eight a list holds
            out.append(branch("Re-roll some…", [branch(f"{size} dice", by_size[size]) for size in sorted(by_size)]))
    return out


def _sub_rolls(results: Sequence[SkidFace], not_shift: Sequence[int]) -> list[list[int]]:
    """The ways to re-roll two or more of the non-SHIFT results but not all of them, each once (HAZARD and
    SPIN is one way whichever HAZARD): positions of the first dice of each result."""
    from itertools import product

    counts: dict[SkidFace, list[int]] = {}
    for i in not_shift:
        counts.setdefault(results[i], []).append(i)
    kinds = list(counts)
    out = []
    for taken in product(*(range(len(counts[k]) + 1) for k in kinds)):
        n = sum(taken)
        if 2 <= n < len(not_shift):
            out.append(sorted(i for k, t in zip(kinds, taken) for i in counts[k][:t]))
    return out


def _reroll_words(results: Sequence[SkidFace], positions: Sequence[int]) -> str:
    """"HAZARD + SPIN", "2 HAZARD + SLIDE": the results a choice re-rolls."""
    seen: dict[str, int] = {}
    for i in positions:
        seen[results[i].value] = seen.get(results[i].value, 0) + 1
    return " + ".join(f"{n} {face}" if n > 1 else face for face, n in seen.items())


def _evade(entering: str | None, target: Vehicle, dice: Sequence[Any],
           make: Callable[[list[Any], list[Any]], Command], *, named: bool = False) -> DiceRequest | Command:
    """After an attack's (or a smash attack's) dice, the target's evade dice (at most its gear), ``make(dice,
    evade)`` the command; with no hit, the command at once (the target was told "0 hits: roll 1 evade die").
    The hits are on the evade dice page (the attack dice themselves are no longer shown).  An attack's page
    title names the target; a smash attack's ("Rust Bucket on The B…") is cut before it: ``named`` puts the
    target in the label ("3 hits on The Brick: evade dice", in turns when long)."""
    hits = rules.attack_hits([int(d) for d in dice])
    if not hits:
        return make(list(dice), [])
    said = f"{hits} hit{'' if hits == 1 else 's'}"
    # the target's owner rolls them, the player at the buttons enters them: told on the owner's own screen
    tell = () if target.owner == entering else (
        (target.owner, f"{target.name}: {said}: roll {target.gear} evade {'die' if target.gear == 1 else 'dice'}"),)
    label = f"{said} on {target.name}: evade dice" if named else f"{said}: evade dice"
    return DiceRequest("d6", target.gear, label, lambda ev: make(list(dice), list(ev)),
                       exact=False, tell=tell, usual=target.gear)


def _attack(state: GaslandsState, attacker: str, cars: Sequence[Vehicle]) -> Choice | None:
    """Attack: the target, then the attack dice, then the target's evade dice (at most its gear)."""
    owner = state.vehicle(attacker).owner

    def request(target: Vehicle) -> DiceRequest:
        def make(dice: list[Any], evade: list[Any]) -> Command:
            return Command("attack", {"target": target.id, "dice": dice, "evade": evade})

        return DiceRequest("d6", MAX_ATTACK_DICE, "attack dice",
                           lambda dice: _evade(owner, target, dice, make) if dice else None, exact=False)

    targets = [v for v in cars if v.id != attacker]
    return branch("Attack…", [roll(v.name, request(v)) for v in targets])


#: The first level's entry for a crash's smash attacks (NEXT opens it while one waits).
SMASH = "Smash attack…"


def _smashes(state: GaslandsState, entering: str | None) -> Choice | None:
    """A crash's smash attacks, each car's on the other ("Rust Bucket on The Brick · 5 dice"): the smash dice
    (the count the crash's kind gives; more for a ram or a perk, which are the table's), then the target's evade
    dice.  The car's owner, when another player enters them, is told to roll them on their own screen."""

    def request(s: SmashAttack) -> Choice:
        a, t = state.vehicle(s.attacker), state.vehicle(s.target)
        count = f"{s.dice}{'' if s.weight_known else ' ± weight'}"

        def make(dice: list[Any], evade: list[Any]) -> Command:
            return Command("smash", {"attacker": a.id, "target": t.id, "kind": s.kind, "dice": dice, "evade": evade})

        # its target named only when the car has more than one smash attack waiting (the line was cut at 9 px)
        on = f" at {t.name}" if sum(o.attacker == a.id for o in waiting) > 1 else ""
        dice_word = "die" if (s.dice, s.weight_known) == (1, True) else "dice"  # ("roll 1 smash dice": a walkthrough)
        tell = () if a.owner == entering else ((a.owner, f"{a.name}: roll {count} smash {dice_word}{on}"),)
        # (room for a ram's or a perk's dice beyond a head-on's 12)
        dice = DiceRequest("d6", max(MAX_ATTACK_DICE, s.dice + 6), f"smash dice on {t.name} ({count})",
                           lambda rolled: _evade(entering, t, rolled, make, named=True) if rolled else None,
                           exact=False, tell=tell, usual=s.dice)
        # two crashes of the same cars in one step: each line says its kind
        twice = sum((o.attacker, o.target) == (s.attacker, s.target) for o in waiting) > 1
        return roll(f"{own_name(a) if a.owner == entering else a.name} on {t.name}"
                    f"{', ' + rules.COLLISION_WORDS[s.kind] if twice else ''}{READING_SEP}"
                    f"{s.dice} {'die' if s.dice == 1 else 'dice'}", dice)

    waiting = rules.open_smashes(state)
    return branch(SMASH, [request(s) for s in waiting])


def menu(state: GaslandsState) -> Menu:
    p = rules.prompt(state)
    commands = p.commands
    step = p.step
    title = TITLES.get(step, step)
    if state.finished:
        return Menu("Game over", (), None, "")
    act = state.activation
    active = state.vehicle(p.vehicle) if p.vehicle is not None else None
    cars = _order(state, p.vehicle)
    status = f"Gear phase {state.phase} · round {state.round}"
    if active is not None:
        status = vehicle_status(active)
    if step == Step.SHIFTS.value and act is not None and active is not None:
        # the SHIFTs to spend and the results they may cancel: the footer said only "gear 1 · 0 haz", so a
        # roll read by the camera was never shown and the player had to remember what stood
        left = act.shifts_left
        title = f"1.4 Spend {left} SHIFT{'s' if left > 1 else ''}" if left else "1.4 No SHIFT to spend"  # ("left"
        # when none was rolled)
        status = _shift_status(active, [f.value for f in act.uncancelled])
        if left and act.free_shifts:
            # where a SHIFT no die showed came from: "1.4 Spend 1 SHIFT" after no skid dice (touch-move) and "Spend 4"
            # after three rolled were not explained on any screen (an audit, five players)
            status += f" · {act.free_shifts} free SHIFT: trivial"
    if step == Step.PLACE_TEMPLATE.value and act is not None and act.template is not None:
        # which template, hand and edge (the title says only 1.2), and its icon in this gear
        status = f"place: {rules.placed_words(act)}{_icon(act.status)}"
    if step == Step.WIPEOUT_TURN.value and act is not None and act.flipping is not None:
        title = f"3 Turn {state.vehicle(act.flipping[0]).name}"  # the turner's menu said only "3 Wipeout"
    # the flip check's odds and what a flip does, which only the log's prompt said ("flip check d6", "Flip
    # move done" on the roller's screen)
    flip_below = act.flipping[1] if act is not None and act.flipping is not None else None
    if step == Step.WIPEOUT_FLIP.value and flip_below is not None:
        status = f"d6 below {flip_below} flips"
    if step == Step.WIPEOUT_MOVE.value and act is not None and act.flipping is not None:
        # wrecked by a hit during the move: a wreck goes no further (docs/RULINGS.md)
        status = "wrecked: no further move" if state.vehicle(act.flipping[0]).wrecked else "2 hits + Medium Straight"
    # what the step asks, in the rules' words: the screens said only "1.6 Slide" / "Slide placed" (the log's prompt
    # had the notch and the 90°)
    if step == Step.SLIDE.value and active is not None:
        status = f"Slide template at the skid-exit notch · {status}"
    if step == Step.SPIN.value and active is not None:
        status = f"pivot up to 90° either way · {status}"
    if step in (Step.MOVE.value, Step.SPIN.value) and active is not None and active.wrecked:
        status = "wrecked: no further move"  # the prompt said "move to the final position" to a wreck
    # each OK is one token: the count is on the line, as "Hit" has the hull (an audit: three OKs left the screen
    # as it was, and a player pressed again to see whether the last one counted)
    hazard = _cars("Hazard token", cars, lambda v: Command("gain_hazard", {"vehicle": v.id, "count": 1,
                                                                          "cause": "table"}),
                   lambda v: f"{v.hazards} haz")
    collisions = "collision" in commands
    choices: list[Choice | None] = []
    dice: DiceRequest | None = None
    table_extra: list[Choice | None] = []
    if "activate" in commands:
        # with its hazard tokens: a screen shows one vehicle's, and the owner choosing which to activate could
        # not see how near the others were to a wipeout (an audit at a table of three vehicles each)
        choices += [leaf(f"{own_name(v)} (gear {v.gear}{f', {v.hazards} haz' if v.hazards else ''})",
                         Command("activate", {"vehicle": v.id}))
                    for v in rules.qualifying(state, state.turn)]
    if "choose_template" in commands and active is not None and step != Step.PLACE_TEMPLATE.value:
        choices += _templates(state, active)
        if step == Step.CHOOSE_TEMPLATE.value:
            choices.append(_touched(state, active))  # under "Table…" when the first level has no room
        if step == Step.TOUCH_MOVE.value and active is not None:
            title = f"Pick for {active.name}"
    if "place_template" in commands:
        choices.append(leaf("Template placed", Command("place_template"), default=True))
        if act is not None and act.template is not None:
            choices += _turned(act, active)  # the same template laid the other way (never another: touch-move)
    if "skid_roll" in commands and active is not None:
        die, names = _skid_die(state)
        dice = DiceRequest(die, active.handling, f"skid dice (up to {active.handling})",
                           lambda faces: Command("skid_roll", {"faces": list(faces)}), exact=False, face_names=names)
        choices.append(roll("Roll skid dice", dice, default=True))
    if act is not None and {"shift", "end_shifts", "push_it"} & set(commands) and active is not None:
        choices += _shifts(state, active, commands)
    if "flip_check" in commands:
        label = f"d6, below {flip_below} flips" if flip_below is not None else "flip check d6"
        dice = DiceRequest("d6", 1, label, lambda faces: Command("flip_check", {"die": faces[0]}))
        choices.append(roll("Roll the flip check", dice, default=True))
    if "confirm" in commands and "place_template" not in commands:
        choices.append(leaf(DONE_WORDS.get(step, "Done"), Command("confirm"), default=True))
    if "smash" in commands:  # first: the crash just recorded (NEXT opens it)
        choices.insert(0, _smashes(state, p.player))
    if "attack" in commands and act is not None:
        choices.append(_attack(state, act.vehicle, cars))
    if "gain_hazard" in commands:
        if collisions or "attack" in commands or "skid_roll" in commands or "place_template" in commands:
            choices.append(hazard)
        else:
            table_extra.append(hazard)
    if collisions:
        mover = act.flipping[0] if act is not None and act.flipping and step == Step.WIPEOUT_MOVE.value else p.vehicle
        others = [v for v in cars if v.id != mover]
        choices.append(_cars("Collision", others, then=lambda v: _smash(state, state.vehicle(mover), v) if mover is not None else []))
        choices.append(_cars("Collision, evaded", others, lambda v: Command("collision", {"vehicle": v.id, "both_evaded": True}),
                             once=True))
    if "hits" in commands:
        # each OK is one hit: the hull points left are on the line, as the target's owner's dashboard has them
        choices.append(_cars("Hit", cars, lambda v: Command("hits", {"vehicle": v.id, "count": 1}),
                             lambda v: f"hull {v.hull}"))
    choices.append(_table(state, commands, cars, table_extra))
    # (at 1.2 the camera takes no template: what it sees laid is checked against the one picked, as before)
    template = _seen_template if "choose_template" in commands and step != Step.PLACE_TEMPLATE.value else None
    hazards = _counted_hazards if "gain_hazard" in commands else None
    kept = keep_legal(choices, _legal(state))
    if len(kept) > FIRST_LEVEL_MAX:
        kept = _touched_under_table(kept)
    placing = act.template if step == Step.PLACE_TEMPLATE.value and act is not None else None
    menu = Menu(title, kept, p.player, status, dice, template, hazards, placing)
    return menu.with_advance(_usual(step, commands))


def _turned(act: Any, active: Any) -> list[Choice | None]:
    """1.2's other ways to lay the template picked (the status line names it: "place: Turn, left"): turning the
    other way ("Each may be used turning left or right"), "Right instead"; in gear 1 at the other edge, "Reverse
    instead" / "Forward instead"; each checked by the rules like every leaf."""
    t = act.template
    out: list[Choice | None] = []
    if not rules.is_straight(t):
        other = "right" if act.hand == "left" else "left"
        out.append(leaf(f"{other.capitalize()} instead", Command("choose_template",
                                                                   {"template": t, "hand": other, "edge": act.edge})))
    if active is not None and active.gear == 1:
        edge = "front" if act.edge == "rear" else "rear"
        out.append(leaf("Forward instead" if edge == "front" else "Reverse instead",
                        Command("choose_template", {"template": t, "hand": act.hand or "left", "edge": edge})))
    return out


def _touched_under_table(kept: tuple[Choice, ...]) -> tuple[Choice, ...]:
    """The first level with "Not permitted…" moved to the top of "Table…"."""
    touched = [c for c in kept if c.label == TOUCHED]
    rest = [c for c in kept if c.label != TOUCHED]
    if not touched or not rest or rest[-1].label != "Table…":
        return kept
    table = rest[-1]
    return (*rest[:-1], Choice(table.label, children=(*touched, *table.children), default=table.default))


#: the 1.1 branch for a template that is not permitted but was touched (the touch-move rule)
TOUCHED = "Not permitted…"


def _touched(state: GaslandsState, v: Vehicle) -> Choice | None:
    """1.1's touch-move from the buttons: "If they pick a template that is not permitted, the player on their left
    chooses and places any permitted template for that vehicle; the active vehicle then may not roll skid dice."
    Only the camera could record such a pick; the menu listed the permitted templates alone, so a table without
    it rolled the skid dice the rule takes away.  The templates the chart does not permit in this gear."""
    chart = dict(state.chart)
    barred = [t for t in TEMPLATES if not template_status(t, v.gear, chart, full_throttle=v.full_throttle).usable]
    return branch(TOUCHED, [leaf(template_name(t), Command("choose_template", {"template": t}), recorded_refusal=True)
                            for t in barred])


def _usual(step: str, commands: Sequence[str]) -> str | None:
    """What NEXT does at this step: the usual way on ("Moved", "Roll skid dice", done with SHIFTs) —
    nothing where the step is a decision (which vehicle, which template)."""
    if "smash" in commands:
        return SMASH
    if "place_template" in commands:
        return "Template placed"
    if "skid_roll" in commands:
        return "Roll skid dice"
    if "flip_check" in commands:
        return "Roll the flip check"
    if "shift" in commands:
        return "Discard…"  # its default: all the SHIFTs left
    if "end_shifts" in commands:
        return "Carry on"
    if "confirm" in commands:
        return DONE_WORDS.get(step, "Done")
    return None


def _seen_template(template: str, hand: str | None, edge: str | None) -> Command:
    args: dict[str, Any] = {"template": template}
    if hand is not None:
        args["hand"] = hand
    if edge is not None:
        args["edge"] = edge
    return Command("choose_template", args)


def _counted_hazards(vehicle: str, more: int) -> Command:
    return Command("gain_hazard", {"vehicle": vehicle, "count": more, "cause": "tokens counted on the table"})
