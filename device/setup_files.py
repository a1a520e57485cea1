"""Reading a table's setup file (players, vehicles, scenario) for ``play``, ``run`` and ``sim``.

Every way a setup file can be wrong ends in one :class:`SetupFileError` whose message names the file,
says what is wrong and what to do: missing, a folder, unreadable, too large, not UTF-8, not TOML,
nested too deeply, and - once the game's own rules have looked at it - any rule the setup breaks
(``setup file gaslands.toml: Gaslands needs 2 to 6 players ...``).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

#: A setup is a page of TOML; anything bigger is not one (and would only cost memory to parse).
MAX_SETUP_BYTES = 256 * 1024


class SetupFileError(ValueError):
    """A setup file cannot be used; the message names it, what is wrong and what to do."""


def read_text_file(path: str | Path, *, fix: str, what: str = "setup file",
                   max_bytes: int = MAX_SETUP_BYTES) -> str:
    """The UTF-8 text of the file at ``path``, or :class:`SetupFileError` naming the file and what is wrong
    (missing, a folder, unreadable, larger than ``max_bytes``, not UTF-8 - with its line); ``fix`` ends
    every message ("what to do")."""
    from device.safe_files import unreachable

    p = Path(path)
    where = f"{what} {p}"
    closed = unreachable(p)
    if closed:
        raise SetupFileError(f"{where} {closed}")
    if p.is_dir():
        raise SetupFileError(f"{where} is a folder, not a {what}; {fix}")
    try:
        with p.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise SetupFileError(f"{where} does not exist; {fix}") from None
    except OSError as exc:
        raise SetupFileError(f"{where} cannot be read ({exc.strerror or exc}); give the user running Pitboard "
                             "read access to it") from None
    if len(raw) > max_bytes:
        size = f"{max_bytes // (1024 * 1024)} MB" if max_bytes >= 1024 * 1024 else f"{max_bytes // 1024} KB"
        raise SetupFileError(f"{where} is larger than {size}, far more than one; is it the right file? {fix}")
    try:
        return raw.decode("utf-8-sig")  # Notepad's byte order mark is no part of the text
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SetupFileError(f"{where}: line {line} is not UTF-8 text (a binary or damaged file, or saved in "
                             f"another encoding); {fix}") from None


#: tomllib's words for the mistakes people make by hand, and what they mean.
_TOML_MEANINGS = (
    ("Cannot overwrite a value", "a key given a value twice; keep one of them"),
    ("twice", "a [table] written twice; merge the two into one"),
    ("Invalid value", "a value that is not a number, true/false, a [list] or a \"text\" in quotes"),
    ("Illegal character '\\n'", "a text whose closing quote is missing"),
    ("Unclosed array", "a list [ ... ] whose closing ] is missing"),
)


def _without_comment(line: str) -> str:
    """``line`` without its trailing ``# comment`` (a # inside a quoted text stays)."""
    for m in re.finditer(r"\s#", line):
        if line[: m.start()].count('"') % 2 == 0 and line[: m.start()].count("'") % 2 == 0:
            return line[: m.start()].rstrip()
    return line


def _cut(text: str) -> str:
    """``text`` as a message quotes it: at most 60 characters."""
    return text if len(text) <= 60 else text[:57] + "..."


def toml_mistake(exc: Exception, text: str) -> str:
    """``exc`` (a :class:`tomllib.TOMLDecodeError`) in the owner's words: the line as written, what is wrong
    and, for a text not in quotes, the line mended (``line 17 (name = Bob): ... write name = "Bob"``)."""
    said = str(exc)
    at = re.search(r"\s*\(at line (\d+), column \d+\)$", said)
    what = said[: at.start()] if at else re.sub(r"\s*\(at end of document\)$", "", said)
    meaning = next((m for words, m in _TOML_MEANINGS if words in what), None)
    twice = re.fullmatch(r"Cannot declare \((.*)\) twice", what)
    if twice:  # [screens] for [[screens]] (one of several) was told to "merge the two into one" (a bad-input audit)
        name = ".".join(part.strip().strip("'\"") for part in twice.group(1).split(",") if part.strip())
        meaning = (f"[{name}] is written twice: one of several (each player's screen, each player) is written "
                   f"[[{name}]], in double brackets, each time; one table said twice: merge the two into one")
    # (tomllib's "Illegal character '\n'" is Python's way of saying the line ended: the meaning alone, a phone review)
    told = meaning if meaning and what.startswith("Illegal character '\\n'") else f"{what} ({meaning})" if meaning \
        else what
    if at is None:
        return f"at the end of the file: {told}"
    number = int(at.group(1))
    lines = text.split("\n")  # (as TOML counts lines: splitlines also split at a lone carriage return)
    raw = lines[number - 1] if number <= len(lines) else ""
    if "\r" in raw.removesuffix("\r") and what.startswith("Expected newline"):
        # (an audit: "line 12 (settle_frames = 3): Expected newline ..." did not name the invisible character)
        return (f"line {number}: an invisible carriage-return character stands inside the line (some editors "
                "leave one): save the file again with plain line ends, or delete the line's end and press Enter")
    if what == "Unclosed array":  # TOML notices at the next line: the list is on a line before it (an audit)
        opened = next((k for k in range(number - 1, 0, -1) if "[" in _without_comment(lines[k - 1]).split("=", 1)[-1]
                       and "]" not in _without_comment(lines[k - 1]).split("=", 1)[-1]), None)
        if opened is not None:
            number, raw = opened, lines[opened - 1]
    line = raw.strip()
    if not line:
        return f"line {number}: {told}"
    code = _without_comment(line)
    shown = _cut(code)
    bare = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*=\s*([^\"'\[{#\s][^#]*?)\s*(#.*)?", line)
    curly = "\u201c\u201d\u2018\u2019"  # a phone keyboard's “smart” quotes
    if what == "Invalid value" and (bare.group(2)[:1] in curly if bare else any(c in code for c in curly)):
        # they are no quotes to TOML: the advice must not wrap them in more; inside a list or a table on one line
        # (teams = [“red”, “blue”]) the line mended (a web audit: the general words named no quotes; an iPhone)
        mended = (f"{bare.group(1)} = \"{bare.group(2).strip(curly)}\" with straight quotes" if bare else
                  "straight quotes: " + _cut(code.translate({ord(c): '"' for c in "\u201c\u201d"}
                                                            | {ord(c): "'" for c in "\u2018\u2019"})))
        return f"line {number} ({shown}): “ and ” are not quotes in TOML (a phone keyboard types them): write {mended}"
    if bare and bare.group(2)[:1] == "=" and what == "Invalid value":  # `fps = = 10`: not a text to quote (an audit)
        return f"line {number} ({shown}): one = too many: write {bare.group(1)} = {bare.group(2).lstrip('= ')}"
    if bare and re.match(r"[+-]?[0-9]", bare.group(2)) and what.startswith("Expected newline"):
        key, value = bare.group(1), bare.group(2).strip()
        if re.fullmatch(r"0[XOB][0-9A-Fa-f_]+", value):  # `address = 0X3C` (an audit: TOML's words alone)
            return (f"line {number} ({shown}): a hexadecimal number is written with a small x: write {key} = "
                    f"{value[0]}{value[1].lower()}{value[2:]}")
        listed = ", several in brackets ([1, 2])" if "," in value else ""
        return (f"line {number} ({shown}): a number is written alone: digits only, no unit after it, a dot for "
                f"decimals (1.5), hexadecimal as 0x3C{listed}")
    if what == "Invalid value" and bare:
        key, value = bare.group(1), bare.group(2)
        if value.lower() in ("true", "false", "yes", "no", "on", "off"):  # a yes/no: TOML's own words
            word = "true" if value.lower() in ("true", "yes", "on") else "false"
            return f"line {number} ({shown}): yes/no is written true or false, in small letters: write {key} = {word}"
        return f"line {number} ({shown}): a text must be in quotes: write {key} = \"{value}\""
    return f"line {number} ({shown}): {told}"


class TwiceSaidError(ValueError):
    """A JSON object names one key twice: a reader keeps the second and silently drops the first."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            others = sorted({k for k, _ in pairs if k != key})
            beside = f", beside {', '.join(map(repr, others[:3]))}{' ...' if len(others) > 3 else ''}" if others else ""
            raise TwiceSaidError(f"the key {key!r} appears twice in one object {{...}}{beside} (read so, the second "
                                 "would silently replace the first); take out the one that should not be there")
        out[key] = value
    return out


def loads_json(text: str) -> Any:
    """``json.loads``, refusing an object that names a key twice (:class:`TwiceSaidError`): Python keeps the
    last, so a face pasted twice by hand lost the examples of the first, and the next save made it for good."""
    return json.loads(text, object_pairs_hook=_once_each)


def _parsed(where: str, what: str, fix: str, parse: Any, text: str, *, by_hand: bool = True) -> Any:
    try:
        return parse(text)
    except TwiceSaidError as exc:
        raise SetupFileError(f"{where}: {exc}; {fix}") from None
    except RecursionError:
        raise SetupFileError(f"{where} is nested too deeply to read (not a {what}); {fix}") from None
    except ValueError as exc:  # JSON and TOML syntax errors are ValueErrors, as is the 4300-digit limit
        if "4300" in str(exc) or "int_max_str_digits" in str(exc):
            raise SetupFileError(f"{where} holds a number of more than 4300 digits; no value in a {what} needs "
                                 f"more than a few digits - {fix}") from None
        if parse is tomllib.loads:
            raise SetupFileError(f"{where} is not valid TOML: {toml_mistake(exc, text)}; fix that line ({fix})") from None
        if not by_hand:  # a file only Pitboard writes: nobody fixes a line of it
            raise SetupFileError(f"{where} is not valid JSON ({exc}): it was cut short or garbled after Pitboard "
                                 f"wrote it; {fix}") from None
        raise SetupFileError(f"{where} is not valid JSON: {exc}; fix that line ({fix})") from None


def read_toml_file(path: str | Path, *, fix: str, what: str = "setup file",
                   max_bytes: int = MAX_SETUP_BYTES) -> dict[str, Any]:
    """The parsed TOML of the file at ``path``; every fault is a :class:`SetupFileError` naming the file."""
    text = read_text_file(path, fix=fix, what=what, max_bytes=max_bytes)
    return _parsed(f"{what} {path}", what, fix, tomllib.loads, text)  # type: ignore[no-any-return]


def read_json_object(path: str | Path, *, fix: str, what: str, max_bytes: int = MAX_SETUP_BYTES,
                     by_hand: bool = True) -> dict[str, Any]:
    """The parsed JSON object (``{...}``) in the file at ``path``; anything else (a list, a number, broken
    JSON, ...) is a :class:`SetupFileError` naming the file.  ``by_hand``: an owner may edit the file (broken
    JSON says "fix that line"); False for a file only Pitboard writes (a face library of encoded crops)."""
    text = read_text_file(path, fix=fix, what=what, max_bytes=max_bytes)
    if not text.strip():  # "Expecting value: line 1 column 1 ...; fix that line" told an owner nothing
        size = "0 bytes" if not text else "nothing but blanks"
        raise SetupFileError(f"{what} {path} is empty ({size}): a crash or a power cut while it was being written "
                             f"can leave it so; {fix}")
    data = _parsed(f"{what} {path}", what, fix, loads_json, text, by_hand=by_hand)
    if not isinstance(data, dict):
        raise SetupFileError(f"{what} {path} holds a JSON {type(data).__name__ if data is not None else 'null'}, "
                             f"not an object {{...}}; {fix}")
    return data


def read_setup_file(path: str | Path, *, fix: str, what: str = "setup file") -> dict[str, Any]:
    """The parsed TOML of the setup file at ``path``; ``fix`` ends every message ("what to do")."""
    return read_toml_file(path, fix=fix, what=what)


def setup_refused(path: str | Path | None, reason: str, *, game: str | None = None, options: Any = None,
                  plays: str = "") -> str:
    """The message for a setup the rules refused: the file first, then the rules' own words.  With the
    ``game`` it was given to and its ``options``: when its keys are another game's (a Thunder Road setup
    given to Gaslands), that is said too, and ``plays`` (``{game}``, ``{title}``: the other game's) says how to
    play it."""
    reason = reason.removeprefix("setup: ")
    if path is not None and options == {}:  # (an audit: an empty file was told only "needs 2 to 6 players")
        reason = f"holds nothing (empty, or only comments: a crash or a copy cut short can leave it so); {reason}"
    other = another_games_setup(game, options) if game is not None else None
    if game is not None and other is not None:
        from device.web.pages import title_of

        name, keys = other
        said = " and ".join(keys) if len(keys) <= 2 else ", ".join(keys[:-1]) + " and " + keys[-1]
        reason += (f"; this looks like a {title_of(name)} setup ({said} {'is its key' if len(keys) == 1 else 'are its keys'}, "
                   f"not {title_of(game)}'s)")
        if plays:
            reason += ": " + plays.format(game=name, title=title_of(name))
    if path is None:
        return f"setup: {reason}"
    return f"setup file {path}: {reason}"


def another_games_setup(game: str, options: Any) -> tuple[str, list[str]] | None:
    """The other game a setup refused by ``game`` was written for, and the keys that say so: its top-level
    keys that ``game`` does not take and that game does (the most of them; None when no game has one).  A key
    two other games take (``players``: Gaslands' and Thunder Road's) names neither: a ``[[players]]`` block
    given to Space Race is not "a Gaslands setup"."""
    from games import REGISTRY, game_package

    if not isinstance(options, dict) or game not in REGISTRY:
        return None
    own = set(game_package(game).SETUP_KEYS)
    others = {name: set(game_package(name).SETUP_KEYS) for name in REGISTRY if name != game}
    strange = [k for k in options if isinstance(k, str) and k not in own
               and sum(k in keys for keys in others.values()) == 1]
    best: tuple[str, list[str]] | None = None
    for name in REGISTRY:
        if name == game:
            continue
        theirs = [k for k in strange if k in others[name]]
        if theirs and (best is None or len(theirs) > len(best[1])):
            best = (name, theirs)
    return best


def setup_notes(module: Any, options: Any) -> list[str]:
    """The game's own warnings on a setup its rules took (``GAME.setup_notes``, when it declares them: a rule fact
    of the setup still a placeholder), for ``pitboard check`` and the phone's Check."""
    notes = getattr(module.GAME, "setup_notes", None)
    return list(notes(options)) if notes is not None and options else []


def seated_players(module: Any, events: Any) -> list[str]:
    """The players of a game begun with ``events`` (its ``start``), in seating order, as their screens name
    them: the views of the folded game."""
    from games.core.match import replay

    return players_of(module.GAME.views(replay(module.GAME, events)))


def players_of(views: Any) -> list[str]:
    """The players of a game's ``views``, in seating order, as their screens name them."""
    return [p for p in dict.fromkeys(str(getattr(v, "player", "") or "") for v in views) if p]
