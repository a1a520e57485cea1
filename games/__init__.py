"""Pure rules engines, one package per game, over the shared event-sourced core in ``games.core``."""

from __future__ import annotations

import importlib
from typing import Any

#: Game name (as typed on the command line) → module that defines ``GAME``.
REGISTRY: dict[str, str] = {
    "gaslands": "games.gaslands",
    "thunder_road": "games.thunder_road",
    "space_race": "games.space_race",
    "grand_tour": "games.grand_tour",
}


def load_game(name: str) -> Any:
    """The game object registered under ``name`` (raises KeyError with the known names)."""
    if name not in REGISTRY:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(REGISTRY))}")
    return importlib.import_module(REGISTRY[name]).GAME
