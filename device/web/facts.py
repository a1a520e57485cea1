"""Editors for the rule facts the sources leave ``unknown``, beside the Gaslands chart and the Fire die
(:mod:`device.web.setup`): Thunder Road's Big Rig and bike (size, damage slots), Nitro's extra spaces and
the dice Traction Drive takes; the Grand Tour's time-track sheet, whether a round nobody crosses costs a minute
(``lose_time_every_round``, a setup's top-level key), whether the best-time points go to teams
(``time_points_by_team``, the same) and its nine specialty cards.

Each game's filled-in facts are saved as ``<game>-facts.toml`` in the data folder, in the very shape of the
setup file's own tables (``[vehicle_types.big_rig]``, ``[commands.nitro]``, ``[time_track]``,
``[[specialty]]``), so the rules read them unchanged: a game begun from the page, or by ``pitboard run`` from
``[game] setup``, takes them (a setup's own tables win), and they can be pasted into a setup file.  Before
anything is written, the example setup with the new facts is started by the game's own ``start``: a fact the
rules refuse is never saved.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UNKNOWN = "unknown"
TIMINGS = ("unknown", "once_per_stage", "permanent")
#: The games with facts edited here (the Gaslands chart and the Fire die have their own editors).
GAMES = ("thunder_road", "grand_tour")


@dataclass(frozen=True)
class Fact:
    """One value in a setup table: ``path`` = (table, row, key) or (table, key)."""

    path: tuple[str, ...]
    label: str
    kind: str  # "count": a whole number or unknown; "dice": die values 1-6 or unknown; "adds": die/number/unknown;
    #            "yes/no": true or false (a reading of the rules, never unknown: the packaged one until changed)
    hint: str

    @property
    def field(self) -> str:
        return ".".join(self.path)


FACTS: dict[str, tuple[Fact, ...]] = {
    "thunder_road": (
        Fact(("vehicle_types", "big_rig", "size"), "Big Rig: size", "count", "larger than the large car (3)?"),
        Fact(("vehicle_types", "big_rig", "damage_slots"), "Big Rig: damage slots", "count",
             "count the slots on your Big Rig dashboard"),
        Fact(("vehicle_types", "bike", "size"), "Bike: size", "count", "from the Final Five rules"),
        Fact(("vehicle_types", "bike", "damage_slots"), "Bike: damage slots", "count",
             "count the slots on a Final Five bike card"),
        Fact(("commands", "nitro", "adds_moves"), "Nitro: spaces added", "adds",
             '"die" (the die\'s value), a number, or unknown'),
        Fact(("commands", "traction_drive", "dice"), "Traction Drive: dice it takes", "dice",
             "die values, e.g. 4 5 6, or unknown"),
    ),
    "grand_tour": (
        Fact(("time_track", "columns"), "Time sheet: columns", "count", "count the columns of your printed sheet"),
        Fact(("time_track", "start_column"), "Time sheet: start column", "count", "0 = the leftmost column"),
        Fact(("time_track", "start_row"), "Time sheet: start row", "count", "0 = the top row"),
        Fact(("lose_time_every_round",), "A round nobody crosses costs a minute", "yes/no",
             "yes or no: once a stage has crossers, do riders still racing lose a minute in a round nobody crosses?"),
        Fact(("time_points_by_team",), "Best-time points go to teams", "yes/no",
             "yes: 3, 2, 1 to teams, each at its best rider's time; no: rider by rider (a team may take 3 and 2)"),
    ),
}


#: Every fact by its dotted field name.
FACTS_BY_PATH: dict[str, Fact] = {f.field: f for facts in FACTS.values() for f in facts}


def file_name(game: str) -> str:
    return f"{game}-facts.toml"


def packaged(game: str) -> dict[str, Any]:
    """The game's packaged tables, in the setup's shape, for the facts edited here."""
    if game == "thunder_road":
        from games.thunder_road.tables import load_table

        return {"vehicle_types": load_table("vehicles"), "commands": load_table("commands")}
    if game == "grand_tour":
        from games.grand_tour.rules import load_specialty_data, load_tour_data

        data = load_tour_data()
        return {"time_track": dict(data["time_track"]), "specialty": load_specialty_data(),
                "lose_time_every_round": data.get("lose_time_every_round", False),
                "time_points_by_team": data.get("time_points_by_team", False)}
    raise ValueError(f"{game!r} has no facts edited here; games are {', '.join(GAMES)}")


#: The tables a facts file may hold, and their shape: "rows" a table of tables ([vehicle_types.big_rig]), "table"
#: one table ([time_track]), "cards" a list of tables ([[specialty]]).
SHAPES = {"vehicle_types": "rows", "commands": "rows", "time_track": "table", "specialty": "cards",
          "lose_time_every_round": "yes/no", "time_points_by_team": "yes/no"}
_SHAPE_WORDS = {"rows": "a table of tables ([{key}.NAME])", "table": "a table ([{key}])",
                "cards": "a list of cards ([[{key}]], two brackets)", "yes/no": "true or false ({key} = true)"}


def read_facts(path: Path) -> tuple[dict[str, Any], str]:
    """The saved facts (empty when none) and a problem with the file ("" when none).  A file of the wrong shape (a
    hand edit: ``[specialty]`` for ``[[specialty]]``) is a problem named here, not a 500 on the Rule facts page and
    a refusal of every Grand Tour setup that named neither the file nor the line (a web audit)."""
    if not path.exists():
        return {}, ""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, f"{path} cannot be read ({exc}); saving the facts here writes it anew"
    for key, value in data.items():
        shape = SHAPES.get(key)
        if shape is None:
            return {}, (f"{path}: [{key}] is not a table of rule facts ({', '.join(SHAPES)}); saving the facts here "
                        "writes it anew")
        fits = (isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()) if shape == "rows" else
                isinstance(value, dict) if shape == "table" else
                isinstance(value, bool) if shape == "yes/no" else
                isinstance(value, list) and all(isinstance(c, dict) for c in value))
        if not fits:
            return {}, (f"{path}: {key} must be {_SHAPE_WORDS[shape].format(key=key)}; saving the facts here writes "
                        "it anew")
        lost = [k for k in (value if shape == "table" else {}) if SHAPES.get(k) == "yes/no"]
        if lost:  # a top-level key written under a table (after it) is the table's own in TOML
            return {}, (f"{path}: {lost[0]} is read as part of [{key}] (it stands below it): move it above the first "
                        "[table]; saving the facts here writes it there")
    return data, ""


def merged(options: Mapping[str, Any], facts: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the saved ``facts`` laid under it: the setup's own rows and keys win."""
    out = dict(options)
    for key, value in facts.items():
        mine = out.get(key)
        if mine is None:
            out[key] = value
        elif isinstance(mine, Mapping) and isinstance(value, Mapping):
            rows = dict(value)
            for row, cells in mine.items():
                if isinstance(cells, Mapping) and isinstance(rows.get(row), Mapping):
                    rows[row] = {**rows[row], **cells}
                else:
                    rows[row] = cells
            out[key] = rows
    return out


def shadowed(options: Mapping[str, Any], facts: Mapping[str, Any]) -> list[str]:
    """The saved facts a setup sets itself (its own values are used for those): dotted names."""
    out = []
    for key, value in facts.items():
        mine = options.get(key)
        if mine is None:
            continue
        if isinstance(mine, Mapping) and isinstance(value, Mapping):
            for row, cells in value.items():
                if row not in mine:
                    continue
                if isinstance(cells, Mapping) and isinstance(mine[row], Mapping):
                    out += [f"{key}.{row}.{k}" for k in cells if k in mine[row]]
                else:
                    out.append(f"{key}.{row}")
        else:
            out.append(key)
    return out


def _get(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = data
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """``value`` at ``path`` in ``data``, the tables on the way made as needed (:func:`_get`'s twin)."""
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def current(game: str, path: Path) -> tuple[list[tuple[Fact, str]], list[dict[str, Any]], str]:
    """Each fact with its value as text (the saved one, else the packaged), the specialty cards (Grand Tour),
    and a problem with the saved file."""
    saved, problem = read_facts(path)
    base = packaged(game)
    values = []
    for fact in FACTS[game]:
        value = _get(saved, fact.path)
        if value is None:
            value = _get(base, fact.path)
        values.append((fact, show(value)))
    cards: list[dict[str, Any]] = []
    if game == "grand_tour":
        cards = [dict(c) for c in (saved.get("specialty") or base["specialty"])]
    return values, cards, problem


def show(value: Any) -> str:
    if value is None:
        return UNKNOWN
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def parse(fact: Fact, text: str) -> Any:
    """The typed text as the setup's value; ValueError saying what to type (quoting it cut: a pasted page is
    not quoted back whole)."""
    from games.core.fields import show

    raw = text.strip()
    if fact.kind == "yes/no":
        words = {"yes": True, "true": True, "no": False, "false": False}
        if raw.lower() not in words:
            raise ValueError(f"{fact.label}: {show(raw)} is not yes or no")
        return words[raw.lower()]
    if raw == "" or raw.lower() == UNKNOWN:
        return UNKNOWN
    if fact.kind == "adds" and raw.lower() == "die":
        return "die"
    if fact.kind == "dice":
        try:
            values = [int(v) for v in raw.replace(",", " ").split()]
        except ValueError:
            raise ValueError(f"{fact.label}: {show(raw)} is not die values (e.g. 4 5 6) or unknown") from None
        if not values or not all(1 <= v <= 6 for v in values):
            raise ValueError(f"{fact.label}: die values are 1 to 6 (got {show(raw)})")
        return sorted(set(values))
    try:
        number = int(raw)
    except ValueError:
        what = '"die", a whole number or unknown' if fact.kind == "adds" else "a whole number or unknown"
        raise ValueError(f"{fact.label}: {show(raw)} is not {what}") from None
    if number < 0 or number > 200:
        raise ValueError(f"{fact.label}: {show(number)} is out of range (0 to 200)")
    return number


def as_typed(game: str, path: Path, form: Mapping[str, str]) -> tuple[list[tuple[Fact, str]], list[dict[str, Any]]]:
    """The facts and cards as the form had them typed (a refused save shows them again to be mended, not the
    saved ones, which lost every entry of the form)."""
    values, cards, _ = current(game, path)
    values = [(fact, str(form.get(fact.field, value))) for fact, value in values]
    cards = [{**c, **{k: str(form[f"card.{c['id']}.{k}"]) for k in ("name", "timing", "text")
                      if f"card.{c['id']}.{k}" in form}} for c in cards]
    return values, cards


def facts_from_form(game: str, form: Mapping[str, str], saved: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The setup tables the form fills in: only the facts not left unknown, and (Grand Tour) the cards.  A fact or
    a card's field the form does not send keeps its ``saved`` value (a web audit: a cut-off form wrote a file of
    its header alone, every saved fact erased, and said "Facts saved"); a form with none of them is refused."""
    saved = saved or {}
    out: dict[str, Any] = {}
    base = packaged(game)
    if not any(fact.field in form for fact in FACTS[game]) and not any(k.startswith("card.") for k in form):
        raise ValueError("the facts were not saved: the form sent none of them (cut off on the way?); reload the "
                         "page and save again")
    for fact in FACTS[game]:
        if fact.field not in form:
            kept = _get(saved, fact.path)
            if kept is not None:
                _put(out, fact.path, kept)
            continue
        value = parse(fact, form[fact.field])
        if value == UNKNOWN and _get(base, fact.path) in (UNKNOWN, None):
            continue  # still unknown: nothing to say
        if _unchanged(fact, form, base, saved):
            # the packaged value, never changed: nothing to write (the form sends every field: a save of one fact
            # wrote the time sheet's placeholders, and a game begun from the page took them as the printed sheet,
            # its placeholder warnings silenced; a review)
            continue
        if fact.path[0] == "time_track" and value == UNKNOWN:
            raise ValueError(f"{fact.label}: give a whole number (the sheet needs one; the packaged value is "
                             f"{show(_get(base, fact.path))})")
        _put(out, fact.path, value)
    if game == "grand_tour":
        cards = []
        changed = False
        mine = {str(c.get("id")): c for c in saved.get("specialty", ()) if isinstance(c, Mapping)}
        for packed in base["specialty"]:
            card = {**packed, **mine.get(str(packed["id"]), {})}  # the saved card's fields over the packaged ones
            cid = str(card["id"])
            name = form.get(f"card.{cid}.name", str(card.get("name", ""))).strip() or str(card.get("name", ""))
            timing = form.get(f"card.{cid}.timing", str(card.get("timing", UNKNOWN))).strip()
            if timing not in TIMINGS:
                raise ValueError(f"specialty card {cid}: timing {timing!r} is not one of {', '.join(TIMINGS)}")
            text = form.get(f"card.{cid}.text", str(card.get("text", ""))).strip()
            known = timing != UNKNOWN and bool(text) and not text.startswith("[?]")
            new = {"id": card["id"], "name": name, "timing": timing, "text": text, "known": known}
            changed |= any(new[k] != packed.get(k) for k in ("name", "timing", "text"))
            cards.append(new)
        if changed:
            out["specialty"] = cards
    return out


def _unchanged(fact: Fact, form: Mapping[str, str], base: Mapping[str, Any], saved: Mapping[str, Any]) -> bool:
    """Whether ``fact`` is left as packaged with the facts it goes with: the time sheet's three are one sheet (a
    setup giving all three is the printed sheet), written together once any of them is changed or saved."""
    group = [f for f in FACTS_BY_PATH.values() if f.path[0] == fact.path[0]] if fact.path[0] == "time_track" else [fact]
    for f in group:
        if _get(saved, f.path) is not None:
            return False
        if f.field in form:
            try:
                if parse(f, form[f.field]) != _get(base, f.path):
                    return False
            except ValueError:
                return False  # (refused with its reason where the field itself is read)
    return True


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string


def facts_toml(game: str, facts: Mapping[str, Any]) -> str:
    """The facts as the setup's own tables, with a header saying where they come from."""
    lines = [f"# The owner's rule facts for {game}, written by the Pitboard web page (only what was filled in).",
             "# The same tables as a setup file: a game begun from the page, or by `pitboard run` from [game] setup,",
             "# takes them (the setup's own rows win).", ""]
    plain = [f"{k} = {_toml_value(v)}" for k, v in facts.items() if not isinstance(v, (Mapping, list))]
    if plain:  # top-level keys before any table (after one they would be read as its own)
        lines += [*plain, ""]
    for table, rows in facts.items():
        if table == "specialty":
            continue
        if isinstance(rows, Mapping) and all(isinstance(v, Mapping) for v in rows.values()):
            for row, cells in rows.items():
                lines.append(f"[{table}.{row}]")
                lines += [f"{k} = {_toml_value(v)}" for k, v in cells.items()]
                lines.append("")
        elif isinstance(rows, Mapping):
            lines.append(f"[{table}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in rows.items()]
            lines.append("")
    for card in facts.get("specialty", ()):
        lines.append("[[specialty]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in card.items()]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def check_facts(game: str, facts: Mapping[str, Any]) -> None:
    """Start the game's example setup with ``facts``: ValueError with the rules' refusal."""
    from games import game_package
    from games.core import Illegal

    module = game_package(game)
    options = merged(facts, tomllib.loads(str(getattr(module, "EXAMPLE_SETUP", "") or "")))  # the facts win
    try:
        module.GAME.start(options)
    except Illegal as exc:
        raise ValueError(f"the facts were not saved: {exc.reason}") from None
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"the facts were not saved: {exc}") from None


def save_facts(game: str, path: Path, form: Mapping[str, str]) -> str:
    """Check the form's facts with the game's own rules, then write them atomically."""
    from device.safe_files import write_atomic

    if game not in GAMES:
        raise ValueError(f"{game!r} has no facts edited here; games are {', '.join(GAMES)}")
    saved, problem = read_facts(path)  # (a damaged file: the form's facts are written anew, as the page says)
    facts = facts_from_form(game, form, {} if problem else saved)
    check_facts(game, facts)
    text = facts_toml(game, facts)
    if tomllib.loads(text) != facts:  # what is read back is what was checked
        raise ValueError("the facts were not saved: they could not be written as TOML exactly")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    return f"saved {path}"
