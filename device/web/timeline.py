"""A game's log read for people: decisions grouped under where the table was (each game's own words:
Gaslands' round and gear phase, Thunder Road's round and whose turn, the Space Race's turn, the Grand Tour's
stage) and by activation; the state at any past decision (a prefix of the log folded again); exports as JSON
lines and CSV.

Pure: records in, rows out.  The fold is the match's own rule (an ``undone`` event retires the newest live
decision), done here step by step so that the state *before* each decision is known: it says whose step it
was, where the table was (the game's ``timeline_heading``, see :class:`games.core.Game`), and which vehicle
was activating.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from games.core import Event, Record

UNDONE = "undone"


@dataclass
class Entry:
    """One decision of the log as a line of the timeline."""

    decision: int
    seqs: tuple[int, ...]
    round: Any
    phase: Any
    player: str | None
    vehicle: str | None
    step: str
    text: str
    refused: bool = False
    undone: bool = False
    undo_of: tuple[int, ...] = ()
    types: tuple[str, ...] = ()
    #: The car's name ("Rust Bucket") where the log names it; ``vehicle`` stays the setup's id (the CSV's).
    vehicle_name: str | None = None
    #: Where the table was, in the game's words (:func:`heading_of`): the log's heading of the decision.
    heading: str = "Set-up"
    #: ``text`` whole, not cut at 160 characters (the step's own page: a phone audit found a fifth player, and a
    #: fifth team's finish, on no page)
    whole: str = ""

    @property
    def activation(self) -> str:
        who = self.player or "the table"
        return f"{who} · {self.vehicle_name or self.vehicle}" if self.vehicle else who


@dataclass
class Timeline:
    game: str
    entries: list[Entry] = field(default_factory=list)

    def groups(self) -> list[tuple[str, list[tuple[str, list[Entry]]]]]:
        """``[(round heading, [(activation, entries)])]`` in log order."""
        out: list[tuple[str, list[tuple[str, list[Entry]]]]] = []
        for e in self.entries:
            if not out or out[-1][0] != e.heading:
                out.append((e.heading, []))
            acts = out[-1][1]
            if not acts or acts[-1][0] != e.activation:
                acts.append((e.activation, []))
            acts[-1][1].append(e)
        return out


def _decisions(records: Iterable[Record]) -> list[list[Record]]:
    groups: list[list[Record]] = []
    for r in records:
        if groups and groups[-1][0].decision == r.decision:
            groups[-1].append(r)
        else:
            groups.append([r])
    return groups


#: The keys that name whose an event or a command is, the likeliest first.
_SUBJECTS = ("vehicle", "rider", "side", "team", "player")
#: A list read out longer than this is shortened: its records by whom they name, or counted.
_LONG = 60
#: What a game's own words raise on an event or a state an edited or old log left unlike the game's.
_BAD = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _plain(v: Any) -> Any:
    """A state's value as the log reads it: an enum by its value ("racing", not ``Phase.RACING``)."""
    return v.value if isinstance(v, Enum) else v


def _value(v: Any, brief: bool = False, bare: bool = False) -> str:
    """A value in words; ``brief``: a long list of records said by whom they name (an event's data: the
    command a player typed is said whole); ``bare``: a list without its brackets (a screen's words)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "none"
    if isinstance(v, Enum):
        return _value(v.value)
    if isinstance(v, (list, tuple)) and bare:
        return ", ".join(_value(x) for x in v)
    if isinstance(v, (list, tuple)):
        text = "[" + ", ".join(_value(x) for x in v) + "]"
        if brief and len(text) > _LONG and v and all(isinstance(x, Mapping) for x in v):
            # records ("crossed [{bonus yes, place 1, …}, …]"): by whom each names, else how many
            named = [next((x[k] for k in (*_SUBJECTS, "name", "id") if isinstance(x.get(k), str)), None) for x in v]
            if all(named):
                return "[" + ", ".join(_value(n) for n in named) + "]"
            return f"[{len(v)} entries]"
        return text
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str) and _TEAM_RIDER.fullmatch(v):
        team, role = v.split(".")
        return f"{team} {role.capitalize()}"  # "red.rouleur" is red's Rouleur, as the Grand Tour's screens say
    return str(v)


#: A rider's id in the log: ``team.role`` (the Grand Tour's ``rider_label`` shows it as "red Rouleur").
_TEAM_RIDER = re.compile(r"[a-z][a-z0-9_-]*\.[a-z]+")


def vehicle_names(records: Iterable[Record], game: Any = None) -> dict[str, str]:
    """The cars' names by their setup ids ("rust" is "Rust Bucket"), from the events that list the vehicles;
    a game that words its vehicles itself (``game.timeline_vehicle_names(state)``: Thunder Road's "Ana/small" is
    "Ana's small car") says them from the state its first event sets up."""
    names: dict[str, str] = {}
    records = list(records)
    own = getattr(game, "timeline_vehicle_names", None)
    if callable(own) and records:
        try:
            names.update(own(game.evolve(None, records[0].event)))
        except _BAD:
            pass  # an edited or old log's first event: the plain reading below
    for r in records:
        vehicles = r.event.data.get("vehicles") if isinstance(r.event.data, Mapping) else None
        if isinstance(vehicles, list):
            for v in vehicles:
                if isinstance(v, Mapping) and isinstance(v.get("id"), str) and v.get("name"):
                    names.setdefault(v["id"], str(v["name"]))
    return names


def heading_of(game: Any, state: Any) -> str:
    """Where the table was in ``state`` (the state before a decision; None: before the first) as the game log
    heads it: the game's ``timeline_heading`` ("Stage 2 · round 1 at the line"), else the state's stage, round
    and turn numbers ("Round 3"), else "Play"."""
    if state is None:
        return "Set-up"
    hook = getattr(game, "timeline_heading", None)
    if callable(hook):
        try:
            return str(hook(state))
        except _BAD:
            pass
    parts = [f"{key.capitalize()} {v}" for key in ("stage", "round", "turn")
             if isinstance(v := getattr(state, key, None), int) and not isinstance(v, bool)]
    return " · ".join(parts) or "Play"


def _actor(records: Sequence[Record]) -> str | None:
    """Whose decision the events say it was (the side that played a card, the team that kept a card) when the
    prompt named nobody: the first event's side, team or player."""
    for r in records:
        data = r.event.data if isinstance(r.event.data, Mapping) else {}
        who = next((data[k] for k in ("side", "team", "player") if isinstance(data.get(k), str)), None)
        if who:
            return str(who)
    return None


def _short(text: str) -> str:
    """``text`` cut to 160 characters at a word's end (an audit: "Dée (small ca…" cut a word, at 360 px)."""
    if len(text) <= 160:
        return text
    cut = text[:160]  # (the word ending at 159 fits: a space at 159 is where to cut; a review)
    return (cut[:cut.rfind(" ")] if " " in cut[80:] else cut[:159]).rstrip(" ,;:") + "…"


def describe(event: Event, vehicles: Mapping[str, str] | None = None, game: Any = None, *,
             screen: bool = False, whole: bool = False) -> str:
    """One event in words: the game's own (``game.timeline_words``: a set-up in a few words, not its rule
    tables) where it has them, else its type and its data, short (the first event's rule tables are left out,
    long lists of records said by whom they name); keys and values in words ("touch move no", "short
    straight"), a car by its name (``vehicles``: id → name).  ``screen``: a list's values without the log's
    brackets (a banner piece read "HAZARD]").  ``whole``: not cut at 160 characters."""
    cut = (lambda text: text) if whole else _short
    words = getattr(game, "timeline_words", None)
    if callable(words):
        try:
            said_by_game = words(event, vehicles or {})
        except _BAD:
            said_by_game = None
        if said_by_game:
            return cut(str(said_by_game))
    name = event.type.replace("_", " ")
    data = dict(event.data)
    if event.type == "told" and isinstance(data.get("text"), str):  # what a decision settled, in words already
        return cut(data["text"])
    if event.type == "game_started":
        players = data.get("players")
        names = [p.get("name") for p in players if isinstance(p, dict)] if isinstance(players, list) else []
        return f"{name}: {', '.join(str(n) for n in names if n)}" if names else name
    cars = vehicles or {}

    def said(key: str, v: Any) -> str:
        if isinstance(v, str) and ("vehicle" in key or key in ("target", "other", "attacker")) and v in cars:
            return cars[v]
        return _value(v, brief=True, bare=screen and isinstance(v, (list, tuple)) and
                      not any(isinstance(x, Mapping) for x in v)).replace("_", " ")

    # whose it is first ("Rust Bucket: template chosen: …", "blue Sprinteur: rider moved: …"); a value that says
    # nothing left out ("status unknown"); the key the event's name begins with, its value alone and first
    # ("template chosen: gentle, …", not "… template gentle")
    who = next((k for k in _SUBJECTS if k != "team" and isinstance(data.get(k), str)), None)
    subject = said(who, data.pop(who)) if who is not None else ""
    kept = {k: v for k, v in data.items() if not isinstance(v, dict) and v not in (None, "", "unknown", [])}
    head = name.split()[0]
    parts = ([said(head, kept.pop(head))] if head in kept else []) + [
        f"{k.replace('_', ' ')} {said(k, v)}" for k, v in kept.items()]
    text = f"{name}: {', '.join(parts)}" if parts else name
    text = f"{subject}: {text}" if subject else text
    return cut(text)


def command_words(command: Any, who: str | None = None, names: Mapping[str, str] | None = None) -> str:
    """A command as the live page's list says it: its type and values in words, a key the type already
    names left out ("choose template: turn, hand left", not the JSON a player cannot read).  ``who``: whose
    step it was, said first when the command names nobody itself ("USA: roll: die 2", "Alice: skid roll: …");
    a command naming its vehicle, rider, side, team or player says it in its values already.  ``names``: the
    vehicles' names by their ids (:func:`vehicle_names`), said for the ids ("target The Brick", not "target
    bob-1": a phone audit)."""
    data = dict(command.to_json()) if hasattr(command, "to_json") else dict(command)
    if names:
        data = {k: names.get(v, v) if isinstance(v, str) else v for k, v in data.items()}
    kind = str(data.pop("type", "command"))
    prefix = f"{who}: " if who and kind != "undo" and not any(isinstance(data.get(k), str) for k in _SUBJECTS) else ""
    name = kind.replace("_", " ")
    parts = []
    for key, value in data.items():
        words = _value(value).replace("_", " ")
        label = str(key).replace("_", " ")
        parts.append(words if label in name else f"{label} {words}")
    text = prefix + (f"{name}: {', '.join(parts)}" if parts else name)
    return _short(text)


def fold_until(game: Any, records: Sequence[Record], decision: int | None = None) -> Any:
    """The state after ``decision`` (None: after the whole log), folding the prefix as the match does."""
    stack: list[tuple[int, Any]] = []
    for group in _decisions(records):
        if decision is not None and group[0].decision > decision:
            break
        if group[0].event.type == UNDONE:
            for _ in group:
                if len(stack) > 1:
                    stack.pop()
            continue
        state = stack[-1][1] if stack else None
        for r in group:
            state = game.evolve(state, r.event)
        stack.append((group[0].decision, state))
    if not stack:
        raise ValueError("the log holds no events: nothing to replay")
    return stack[-1][1]


def timeline(game: Any, records: Sequence[Record]) -> Timeline:
    """Every decision of the log, with who and where; undone decisions are marked, not dropped."""
    out = Timeline(str(getattr(game, "name", "")))
    stack: list[tuple[int, Any]] = []
    by_decision: dict[int, Entry] = {}
    cars = vehicle_names(records, game)
    for group in _decisions(records):
        d = group[0].decision
        seqs = tuple(r.seq for r in group)
        types = tuple(r.event.type for r in group)
        state = stack[-1][1] if stack else None
        if group[0].event.type == UNDONE:
            targets = tuple(int(r.event.data.get("decision", -1)) for r in group)
            for t in targets:
                if t in by_decision:
                    by_decision[t].undone = True
                if len(stack) > 1:
                    stack.pop()
            prompt = game.prompt(state) if state is not None else None
            plural = "s" if len(targets) > 1 else ""
            out.entries.append(Entry(d, seqs, _plain(getattr(state, "round", None)),
                                     _plain(getattr(state, "phase", None)),
                                     prompt.player if prompt else None, prompt.vehicle if prompt else None,
                                     prompt.step if prompt else "",
                                     f"undo: took back decision{plural} {', '.join(map(str, targets))}",
                                     undo_of=targets, types=types,
                                     vehicle_name=cars.get(prompt.vehicle) if prompt and prompt.vehicle else None,
                                     heading=heading_of(game, state)))
            continue
        prompt = game.prompt(state) if state is not None else None
        new = state
        for r in group:
            new = game.evolve(new, r.event)
        stack.append((d, new))
        refused = any("refused" in t for t in types)
        # whose step: the prompt's player, else whom the events name (the side that played a card to the race)
        player = (prompt.player or _actor(group)) if prompt else None
        wholes = [describe(r.event, cars, game, whole=True) for r in group]  # each event said once, cut for the line
        entry = Entry(d, seqs, _plain(getattr(state, "round", None)) if state is not None else None,
                      _plain(getattr(state, "phase", None)) if state is not None else None,
                      player, prompt.vehicle if prompt else None,
                      prompt.step if prompt else "start", "; ".join(_short(w) for w in wholes),
                      refused=refused, types=types,
                      vehicle_name=cars.get(prompt.vehicle) if prompt and prompt.vehicle else None,
                      heading=heading_of(game, state),
                      whole="; ".join(wholes))
        by_decision[d] = entry
        out.entries.append(entry)
    return out


def _cell(text: str) -> str:
    """A name the table typed, as a spreadsheet cell that stays text: one beginning = + - @ (a player named
    "=HYPERLINK(…)" was a formula when the export was opened: a web audit) gets a leading apostrophe."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(lines: Iterable[str], tl: Timeline | None = None) -> str:
    """The JSON lines of ``Store.export_jsonl`` as CSV: seq, decision, type, recorded, round, gear phase,
    player, vehicle, undone, data (JSON), and the step's heading as the game log's page says it ("Stage 1 ·
    round 1 at the line": the round and gear-phase columns are the state's own numbers, which for the Grand Tour
    and the Space Race read otherwise, a phone audit)."""
    where = {e.decision: e for e in tl.entries} if tl is not None else {}
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["seq", "decision", "type", "recorded", "round", "gear_phase", "player", "vehicle", "undone", "data",
                "heading"])
    for line in lines:
        row = json.loads(line)
        e = where.get(row.get("decision"))
        data = row.get("data")
        w.writerow([row.get("seq"), row.get("decision"), row.get("type"), row.get("recorded"),
                    "" if e is None or e.round is None else e.round, "" if e is None or e.phase is None else e.phase,
                    _cell(e.player or "") if e else "", _cell(e.vehicle or "") if e else "", "yes" if e and e.undone else "",
                    json.dumps(data, sort_keys=True) if data is not None else row.get("data_text", ""),
                    e.heading if e else ""])
    return buf.getvalue()
