"""Pure rules engines, one package per game, over the shared event-sourced core in ``games.core``."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

#: Game name (as typed on the command line) → module that defines ``GAME``.
REGISTRY: dict[str, str] = {
    "gaslands": "games.gaslands",
    "thunder_road": "games.thunder_road",
    "space_race": "games.space_race",
    "grand_tour": "games.grand_tour",
}


def game_package(name: str) -> ModuleType:
    """The package of the game registered under ``name`` (its ``GAME``, ``EXAMPLE_SETUP``, views...);
    LookupError naming the known games when there is none."""
    if name not in REGISTRY:
        raise LookupError(f"no game called {name!r}; known games: {', '.join(sorted(REGISTRY))}")
    return importlib.import_module(REGISTRY[name])


def load_game(name: str) -> Any:
    """The game object registered under ``name`` (LookupError naming the known games)."""
    return game_package(name).GAME
