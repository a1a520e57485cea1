"""Where Pitboard keeps the owner's files (face libraries, calibration, game logs) on this machine."""

from __future__ import annotations

import os
from pathlib import Path


class DataFolderError(OSError):
    """The data folder cannot be made: the message names it, says why and what to do (every command that
    reads or writes the owner's files prints it instead of a traceback)."""


def data_dir() -> Path:
    """The owner's data folder: ``$PITBOARD_DATA``, else ``$XDG_DATA_HOME/pitboard``, else
    ``~/.local/share/pitboard``.  On the Pi the systemd unit sets ``PITBOARD_DATA=/var/lib/pitboard``.
    The folder is created on first use; when it cannot be, :class:`DataFolderError`."""
    env = os.environ.get("PITBOARD_DATA")
    if env:
        path = Path(env)
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "pitboard"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = "PITBOARD_DATA" if env else "PITBOARD_DATA (or XDG_DATA_HOME)"
        raise DataFolderError(
            f"the data folder {path} cannot be made ({exc.strerror or exc}"
            f"{': a file stands in its way' if isinstance(exc, (FileExistsError, NotADirectoryError)) else ''}); "
            f"set {where} to a folder this user can write, or make that one writable (the Pi's service uses "
            "/var/lib/pitboard, which deploy/install.sh makes)") from None
    return path


def game_log(configured: Path | None) -> Path:
    """The SQLite game log: ``[store] path`` when the config gives one, else ``games.sqlite`` in the data folder
    (made only then: :func:`data_dir`)."""
    return configured or data_dir() / "games.sqlite"
