"""Thunder Road — the rule tables: the packaged data files (``data/*.toml``) merged with the owner's
overrides from the setup, and parsed into :class:`~games.thunder_road.state.Tables`.

A fact the sources do not give is ``"unknown"`` in the data; it parses to ``None`` and never makes the
companion refuse anything.  A key none of these tables reads (a misspelt one, usually: ``damage_slot``) is
refused when a game is set up, in the data files and in the setup's override tables alike, and so is an
override row the data does not have (``[commands.nitroo]``): the owner's fact would otherwise be silently
dropped (:func:`check_packaged`, :func:`check_overrides`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any

from games.core import Illegal, fields

from games.thunder_road.state import CommandRule, FireEffect, FireFace, Tables, VehicleKind

UNKNOWN = "unknown"

#: the keys each row of a rule table may hold (what the parsers below read), by table
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "vehicle_types": ("label", "short", "class", "size", "damage_slots", "out_of_service_at", "minor_damage",
                      "damage_fire"),
    "commands": ("label", "dice", "board", "target", "adds_moves"),
    "dice": ("faces",),
}
#: the keys of the [fire_die] table and of each of its faces
FIRE_DIE_KEYS = ("faces",)
FIRE_FACE_KEYS = ("label", "effect", "moves")
#: The most spaces an owner's command or Fire die face may add to a move: a bound on a typing slip (-99, 600),
#: not a rule (the road is a few tiles long).
MAX_ADDED_MOVES = 20
#: the data file of each table
DATA_FILES = {"vehicle_types": "vehicles", "commands": "commands", "dice": "dice", "fire_die": "fire_die"}


def load_table(name: str) -> dict[str, Any]:
    """A data file of this package, parsed (``vehicles``, ``dice``, ``fire_die``, ``commands``)."""
    text = resources.files("games.thunder_road").joinpath("data", f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def merge_rows(base: Mapping[str, Any], override: Any, what: str) -> dict[str, Any]:
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


def _check_fire_keys(table: Mapping[str, Any], where: str) -> None:
    fields.only_keys(table, FIRE_DIE_KEYS, where)
    faces = table.get("faces")
    for i, face in enumerate(faces if isinstance(faces, list) else [], 1):
        if isinstance(face, Mapping):
            label = face.get("label")
            name = label if isinstance(label, str) and label else str(i)
            fields.only_keys(face, FIRE_FACE_KEYS, f"{where} face {fields.show(name)}")


def check_packaged(base: Mapping[str, Any]) -> None:
    """Refuse a key of the data files that no table reads (``damage_slot`` for ``damage_slots``), naming the
    file and the row.  The data says which rows there are: a row of its own is never refused."""
    for what, keys in ROW_KEYS.items():
        for name, row in base[what].items():
            if isinstance(row, Mapping):
                fields.only_keys(row, keys, f"games/thunder_road/data/{DATA_FILES[what]}.toml: [{name}]")
    _check_fire_keys(base["fire_die"], "games/thunder_road/data/fire_die.toml")


def check_overrides(base: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Refuse what an owner's override table in the setup would silently drop: a row the data does not have
    (``[commands.nitroo]``, ``[vehicle_types.bigrig]``) or a key no table reads (``[vehicle_types.big_rig]
    damage_slot``), with the likeliest meant name and all the known ones (:func:`games.core.fields.only_keys`).
    """
    for what, keys in ROW_KEYS.items():
        override = options.get(what)
        if override is None:
            continue
        fields.only_keys(fields.table(override, f"setup: [{what}]"), base[what], f"setup: [{what}]")
        for name, row in override.items():
            where = f"setup: [{what}.{name}]"
            fields.only_keys(fields.table(row, where, required=True), keys, where)
    if options.get("fire_die") is not None:
        _check_fire_keys(fields.table(options["fire_die"], "setup: [fire_die]"), "setup: [fire_die]")


def _int_or_unknown(value: Any, where: str, *, none_word: str = UNKNOWN, least: int = 0) -> int | None:
    if value == none_word:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise Illegal(f'{where} must be a whole number of {least} or more, or "{none_word}" (got {value!r})')
    return value


def _bool_or_unknown(value: Any, where: str) -> bool | None:
    if value == UNKNOWN:
        return None
    if not isinstance(value, bool):
        raise Illegal(f'{where} must be true, false or "{UNKNOWN}" (got {value!r})')
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
        slots = _int_or_unknown(row.get("damage_slots", UNKNOWN), f"{where}: damage_slots", least=1)
        out_at = _int_or_unknown(row.get("out_of_service_at", "none"), f"{where}: out_of_service_at",
                                 none_word="none", least=1)
        if slots is not None and out_at is not None and out_at > slots:
            raise Illegal(f"{where}: out_of_service_at = {out_at} is more damage tokens than its damage_slots = "
                          f"{slots} hold, so it could never go out of service: lower out_of_service_at, raise "
                          f'damage_slots, or write out_of_service_at = "none"')
        kinds.append(
            VehicleKind(
                name=name,
                label=str(row.get("label", name)),
                short=str(row.get("short", name[:1].upper()))[:2],
                cls=cls,
                size=_int_or_unknown(row.get("size", UNKNOWN), f"{where}: size"),
                # a dashboard with no slot could take no damage token, and a vehicle out of service at 0 tokens
                # would start the race out: both are slips of the file, not rules
                damage_slots=slots,
                out_of_service_at=out_at,
                minor_damage=bool(row.get("minor_damage", False)),
                damage_fire=_bool_or_unknown(row.get("damage_fire", not row.get("minor_damage", False)),
                                             f"{where}: damage_fire"),
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
        elif adds is not None and adds != "die" and (isinstance(adds, bool) or not isinstance(adds, int)
                                                     or not 0 <= adds <= MAX_ADDED_MOVES):
            raise Illegal(f'command {name!r}: adds_moves must be "die", a number of spaces 0-{MAX_ADDED_MOVES} '
                          f'or "unknown", not {adds!r}')
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
        if isinstance(moves, bool) or not isinstance(moves, int) or not 0 <= moves <= MAX_ADDED_MOVES:
            raise Illegal(f"Fire die face {row['label']!r}: moves must be a whole number of spaces 0-{MAX_ADDED_MOVES}, "
                          f"not {moves!r}")
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
