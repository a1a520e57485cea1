"""Where Pitboard keeps the owner's files (face libraries, calibration, game logs) on this machine."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The owner's data folder: ``$PITBOARD_DATA``, else ``$XDG_DATA_HOME/pitboard``, else
    ``~/.local/share/pitboard``.  On the Pi the systemd unit sets ``PITBOARD_DATA=/var/lib/pitboard``.
    The folder is created on first use."""
    env = os.environ.get("PITBOARD_DATA")
    if env:
        path = Path(env)
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "pitboard"
    path.mkdir(parents=True, exist_ok=True)
    return path
