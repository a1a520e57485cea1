"""Reading a table's setup file (players, vehicles, scenario) for ``play``, ``run`` and ``sim``.

Every way a setup file can be wrong ends in one :class:`SetupFileError` whose message names the file,
says what is wrong and what to do: missing, a folder, unreadable, too large, not UTF-8, not TOML,
nested too deeply, and - once the game's own rules have looked at it - any rule the setup breaks
(``setup file gaslands.toml: Gaslands needs 2 to 6 players ...``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

#: A setup is a page of TOML; anything bigger is not one (and would only cost memory to parse).
MAX_SETUP_BYTES = 256 * 1024


class SetupFileError(ValueError):
    """A setup file cannot be used; the message names it, what is wrong and what to do."""


def read_setup_file(path: str | Path, *, fix: str, what: str = "setup file") -> dict[str, Any]:
    """The parsed TOML of the setup file at ``path``; ``fix`` ends every message ("what to do")."""
    p = Path(path)
    where = f"{what} {p}"
    if p.is_dir():
        raise SetupFileError(f"{where} is a folder, not a {what}; {fix}")
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_SETUP_BYTES + 1)
    except FileNotFoundError:
        raise SetupFileError(f"{where} does not exist; {fix}") from None
    except OSError as exc:
        raise SetupFileError(f"{where} cannot be read ({exc.strerror or exc}); give the user running Pitboard "
                             "read access to it") from None
    if len(raw) > MAX_SETUP_BYTES:
        raise SetupFileError(f"{where} is larger than {MAX_SETUP_BYTES // 1024} KB, far more than one; "
                             f"is it the right file? {fix}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SetupFileError(f"{where}: line {line} is not UTF-8 text (a binary or damaged file, or saved in "
                             "another encoding); save it as UTF-8 TOML") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupFileError(f"{where} is not valid TOML: {exc}; fix that line ({fix})") from None
    except RecursionError:
        raise SetupFileError(f"{where} is nested too deeply to read (not a {what}); {fix}") from None
    except ValueError as exc:  # Python's limit on integer digits (4300): no count in a setup is that long
        raise SetupFileError(f"{where} holds a number of more than 4300 digits ({str(exc).split(':')[0]}); no "
                             f"value in a {what} needs more than a few digits - {fix}") from None


def setup_refused(path: str | Path | None, reason: str) -> str:
    """The message for a setup the rules refused: the file first, then the rules' own words."""
    reason = reason.removeprefix("setup: ")
    if path is None:
        return f"setup: {reason}"
    return f"setup file {path}: {reason}"
