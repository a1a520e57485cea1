"""What in a folded state is not of the type its field declares: a count of 1.5, NaN or ``true`` where a whole
number belongs, a number where a name belongs.

Events are written by the rules, which write each field as its type says; a log edited by hand (or by another
tool) can hold anything, and the fold takes it in as it is: an audit gave ``hits_taken`` a count of 1.5, NaN and
``1e400`` and the game played on with a hull of 10.5, or a car wrecked by NaN.  :func:`type_problem` walks the
state's dataclasses and names the first field whose value is not of its declared type, so that the replay is
refused with the field's name; :func:`not_finite` finds a NaN or an infinity in an event's data, which a fold can
turn into a plausible value (a hull of ``max(0, 12 - NaN)`` is 0: wrecked).  Only the plain types are checked (``int``, ``bool``, ``str``, ``float``, each
possibly ``| None``); anything else is walked into, not judged.  Pure.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

#: the plain types checked, by the word a field's annotation names them with: (the types taken, said as)
_PLAIN: dict[str, tuple[tuple[type, ...], str]] = {
    "int": ((int,), "a whole number"), "bool": ((bool,), "true or false"), "str": ((str,), "a text"),
    "float": ((float, int), "a number")}
_fields_of: dict[type, list[tuple[str, str | None, bool]]] = {}


def _declared(cls: type) -> list[tuple[str, str | None, bool]]:
    """(field name, its plain type's word or None, whether None is allowed) for each field of ``cls``."""
    if cls not in _fields_of:
        out = []
        for f in dataclasses.fields(cls):
            words = [w.strip() for w in str(f.type).split("|")]
            rest = [w for w in words if w != "None"]
            out.append((f.name, rest[0] if len(rest) == 1 and rest[0] in _PLAIN else None, "None" in words))
        _fields_of[cls] = out
    return _fields_of[cls]


def type_problem(state: Any, *, checked: set[int] | None = None, max_items: int = 200_000) -> str | None:
    """The first field in ``state`` (a dataclass, walked through its dataclasses, tuples, lists and dicts) whose
    value is not of its declared plain type, in words ("Vehicle.hull is 10.5, not a whole number"), or None.
    ``checked``: the ids of the dataclasses and containers already checked, skipped and added to (the states of a
    replay share the objects no decision changed: each is checked once, while those states are alive)."""
    stack: list[Any] = [state]
    seen = 0
    while stack and seen < max_items:
        item = stack.pop()
        seen += 1
        is_dataclass = dataclasses.is_dataclass(item) and not isinstance(item, type)
        if checked is not None and (is_dataclass or isinstance(item, (tuple, list, dict))):
            if id(item) in checked:
                continue
            checked.add(id(item))
        if is_dataclass:
            for name, plain, optional in _declared(type(item)):
                value = getattr(item, name)
                if value is None:
                    if plain is not None and not optional:
                        return f"{type(item).__name__}.{name} is missing (null)"
                    continue
                if plain is not None:
                    types, want = _PLAIN[plain]
                    wrong = not isinstance(value, types) or (bool not in types and isinstance(value, bool))
                    if not wrong and isinstance(value, float) and not math.isfinite(value):
                        wrong = True
                    if wrong:
                        shown = repr(value) if not isinstance(value, str) else f"{value[:40]!r}"
                        return f"{type(item).__name__}.{name} is {shown[:60]}, not {want}"
                else:
                    stack.append(value)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return None


def not_finite(data: Any) -> str | None:
    """Where in ``data`` (an event's JSON data) a number is NaN or infinite, in words, or None.  JSON has no such
    numbers; Python's reader takes ``NaN`` and ``1e400`` all the same."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"{path or 'its value'} is {item}, not a number a game records"
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(item))
    return None
