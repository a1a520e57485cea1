"""One checker of setup tables and command arguments, shared by every game.

A setup (TOML) or a command (JSON) is plain data typed by somebody at the table, so every field is checked
for its type, its range and its name before a game reads it, and a wrong one is refused with
:class:`~games.core.Illegal` naming the place, the key, what is expected and what was given::

    setup: [scenario] pole must be the name of a player (got 'Bob')
    setup: [scenaro] is not a setup key (did you mean [scenario]?); the keys are chart, players, scenario ...
    set_fire: on must be true or false (got 'false')

``where`` is the place of the table: ``"setup"`` (the top of a setup), ``"setup: [scenario]"`` (a table of
it) or a command's type (``"set_fire"``).  A text ``"false"`` is never a boolean; ``true`` is never a number.

:func:`plain` checks a whole value at once (nesting depth, size, numbers too long to print), so that a
deeply nested or enormous value is refused with a reason instead of failing in Python.
"""

from __future__ import annotations

import difflib
import math
import reprlib
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from games.core.model import Illegal

__all__ = [
    "MAX_DEPTH", "MAX_ITEMS", "MAX_TEXT", "boolean", "choice", "distinct_names", "kind", "number_list", "only_keys",
    "plain", "show", "table", "text", "whole",
]

#: the deepest nesting a setup or command may have (a setup is a few tables of tables of lists)
MAX_DEPTH = 12
#: the most values a setup or command may hold in all (a large setup holds a few hundred)
MAX_ITEMS = 20_000
#: the longest text a field may hold
MAX_TEXT = 2_000
#: whole numbers beyond this many bits (about 90 digits) are refused as numbers no table uses
MAX_BITS = 300

_MISSING: Any = object()

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlist = _repr.maxtuple = _repr.maxdict = 6


def kind(value: Any) -> str:
    """The type of ``value`` in the words of a TOML/JSON writer: "text", "whole number", "table" ..."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "whole number"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "table"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def show(value: Any) -> str:
    """``value`` for a refusal: short, and never failing (huge numbers, deep nesting, long text); in the
    setup file's words: nothing given is "nothing", not Python's ``None``, and a true/false is
    ``true``/``false`` as TOML and JSON write it, not ``True``."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        digits = int((value.bit_length() - 1) * math.log10(2)) + 1
        return f"a whole number of about {digits} digits"
    try:
        return _repr.repr(value)
    except (ValueError, RecursionError, TypeError):
        return f"a {kind(value)}"


def _at(where: str, key: str) -> str:
    """``setup: [scenario]`` + ``pole`` → ``setup: [scenario] pole``; ``set_fire`` + ``on`` → ``set_fire: on``."""
    return f"{where} {key}" if where.endswith("]") else f"{where}: {key}"


def _refuse(where: str, key: str, expected: str, value: Any, hint: str = "") -> Illegal:
    got = "nothing" if value is _MISSING else f"{show(value)}, {kind(value)}" if isinstance(value, str) else show(value)
    return Illegal(f"{_at(where, key)} must be {expected} (got {got}){hint}")


def _get(source: Mapping[str, Any], key: str, default: Any, where: str, expected: str) -> Any:
    if not isinstance(source, Mapping):
        raise Illegal(f"{where} must be a table of key = value lines (got {show(source)})")
    if key in source and source[key] is not None:
        return source[key]
    if default is _MISSING:
        raise _refuse(where, key, expected, _MISSING, "; it is required")
    return default


def table(value: Any, where: str, *, required: bool = False) -> Mapping[str, Any]:
    """``value`` as a table (None: an empty one, unless ``required``)."""
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise Illegal(f"{where} must be a table (key = value lines; got {show(value)}, {kind(value)})")
    return value


def as_named(value: Any, names: Iterable[str]) -> Any:
    """The one of ``names`` (``ice_cream_truck``) that ``value`` writes in other letters or spacing ("Ice Cream
    Truck", "ice-cream truck", as a rulebook prints it), else ``value`` as it is (a bad-input audit: "Buggy"
    was refused with the list of types)."""
    if not isinstance(value, str):
        return value
    spelt = " ".join(value.lower().replace("_", " ").replace("-", " ").split())
    return next((name for name in names if name.replace("_", " ") == spelt), value)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'steps'?)`` when one of ``known`` is near ``name`` (a misspelling), else ``""``."""
    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def only_keys(source: Mapping[str, Any], allowed: Iterable[str], where: str, *, noun: str = "key") -> None:
    """Refuse a key of ``source`` that is not in ``allowed`` (a misspelt one, usually), naming the
    likeliest meant key and all the known ones.  ``noun`` is what a key is called here (a command's are
    "field"s: ``undo: unknown field 'step' (did you mean 'steps'?); the fields here are steps``)."""
    allowed = sorted(allowed)
    for key in source:
        if key in allowed:
            continue
        name = str(key)
        known = f"the {noun}s here are {', '.join(allowed)}" if allowed else f"it takes no {noun}s"
        raise Illegal(f"{where}: unknown {noun} {show(name)}{did_you_mean(name, allowed)}; {known}")


def distinct_names(names: Iterable[str], where: str, noun: str) -> None:
    """Refuse two of ``names`` that are one name at the table: the same once capitals and surrounding spaces
    are set aside ("Alice", "alice ").  Named as written: ``two players are called 'Ana'`` or, spelt apart,
    ``'Alice' and 'alice ' are one name at the table``.  ``where`` starts the message (``"setup: "`` or ``""``)."""
    seen: dict[str, str] = {}
    for name in names:
        hidden = next((ch for ch in name if unicodedata.category(ch).startswith("C")), None)
        if hidden is not None:  # a line break, a bell, a zero-width space: "Alice\u200b" drew as "Alice?" and was
            # another player than "Alice" (a bad-input audit)
            raise Illegal(f"{where}the {noun} name {name!r} holds an invisible or control character "
                          f"(U+{ord(hidden):04X}); write the name with letters, digits, spaces and signs only")
        key = name.strip().casefold()
        if key not in seen:
            seen[key] = name
            continue
        first = seen[key]
        if first == name:
            raise Illegal(f"{where}two {noun}s are called {name!r}; give each a different name")
        raise Illegal(f"{where}{first!r} and {name!r} are one name at the table (capitals and spaces aside); "
                      f"give each {noun} a different name")


def boolean(source: Mapping[str, Any], key: str, default: Any, where: str) -> bool:
    """``source[key]`` as true or false; the texts "false", "no", "0" are refused, not taken as true."""
    value = _get(source, key, default, where, "true or false")
    if not isinstance(value, bool):
        raise _refuse(where, key, "true or false", value, " (write it without quotes: true or false)"
                      if isinstance(value, str) else "")
    return value


def whole(source: Mapping[str, Any], key: str, low: int, high: int, where: str, default: Any = _MISSING) -> int:
    """``source[key]`` as a whole number from ``low`` to ``high``."""
    expected = f"a whole number from {low} to {high}"
    value = _get(source, key, default, where, expected)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _refuse(where, key, expected, value)
    return value


def text(
    source: Mapping[str, Any], key: str, where: str, default: Any = _MISSING, *, what: str = "a text",
    max_len: int = MAX_TEXT, empty: bool = False,
) -> str:
    """``source[key]`` as a text of at most ``max_len`` characters (not blank, unless ``empty``)."""
    expected = f"{what} of {0 if empty else 1} to {max_len} characters, in quotes"
    value = _get(source, key, default, where, expected)
    if not isinstance(value, str) or not (empty or value.strip()) or len(value) > max_len:
        # (an audit: a 49-character name was told "must be a text of 1 to 40 characters, in quotes", which it was
        # in all but its length, never said)
        long = isinstance(value, str) and len(value) > max_len
        raise _refuse(where, key, expected, value, f"; it is {len(value)} characters long" if long else "")
    return value


def choice(source: Mapping[str, Any], key: str, options: Iterable[Any], where: str, default: Any = _MISSING) -> Any:
    """``source[key]`` as one of ``options``, suggesting the nearest when it is misspelt."""
    options = list(options)
    expected = "one of " + ", ".join(str(o) for o in options)
    value = _get(source, key, default, where, expected)
    if isinstance(value, (Mapping, list)) or isinstance(value, bool) != any(isinstance(o, bool) for o in options) \
            or value not in options:
        hint = did_you_mean(value, (str(o) for o in options)) if isinstance(value, str) else ""
        raise _refuse(where, key, expected, value, hint)
    return value


def number_list(
    source: Mapping[str, Any], key: str, low: int, high: int, where: str, default: Any = _MISSING, *,
    max_len: int = 100,
) -> list[int]:
    """``source[key]`` as a list of at most ``max_len`` whole numbers from ``low`` to ``high``."""
    expected = f"a list of at most {max_len} whole numbers from {low} to {high}"
    value = _get(source, key, default, where, expected)
    if not isinstance(value, list) or len(value) > max_len or not all(
        isinstance(x, int) and not isinstance(x, bool) and low <= x <= high for x in value
    ):
        raise _refuse(where, key, expected, value)
    return list(value)


def plain(value: Any, where: str, *, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> None:
    """Refuse a value that is not plain data of a sane shape: nested deeper than ``max_depth``, holding more
    than ``max_items`` values, a text longer than :data:`MAX_TEXT` or a whole number too long to be any
    count.  Walks without recursion, so a value nested a million deep is refused, not a crash."""
    count = 0
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        item, depth, path = stack.pop()
        count += 1
        if count > max_items:
            raise Illegal(f"{where}: too many values (more than {max_items}); a setup or command is a short list")
        if depth > max_depth:
            raise Illegal(f"{where}: {path or 'a value'} is nested more than {max_depth} deep; no field nests so deep")
        if isinstance(item, Mapping):
            for k, v in item.items():
                if not isinstance(k, str):
                    raise Illegal(f"{where}: key {show(k)} must be a text")
                if len(k) > 200:
                    raise Illegal(f"{where}: key {show(k)} is too long")
                stack.append((v, depth + 1, f"{path}.{k}" if path else k))
        elif isinstance(item, (list, tuple)):
            for i, v in enumerate(item):
                stack.append((v, depth + 1, f"{path}[{i}]"))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_BITS:
                raise Illegal(f"{where}: {path or 'the value'} is {show(item)}; no count in a game is that large")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise Illegal(f"{where}: {path or 'the value'} is {item}; give a finite number")
        elif isinstance(item, str):
            if len(item) > MAX_TEXT:
                raise Illegal(f"{where}: {path or 'the value'} is a text of {len(item)} characters; at most {MAX_TEXT}")
        else:
            raise Illegal(f"{where}: {path or 'the value'} is a {kind(item)}; only texts, numbers, true/false, "
                          "lists and tables are allowed")
