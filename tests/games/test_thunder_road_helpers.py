"""Helpers for the Thunder Road tests (no tests here): a table driven through :class:`games.core.Match`."""

from __future__ import annotations

from typing import Any

from games.core import Command, Match, Outcome
from games.thunder_road import GAME
from games.thunder_road.state import ThunderRoadState

KNOWN_FIRE = {
    "faces": [
        {"label": "flare", "effect": "moves", "moves": 2},
        {"label": "doused", "effect": "out"},
        {"label": "inferno", "effect": "eliminate"},
        {"label": "smoke", "effect": "nothing"},
        {"label": "mystery", "effect": "unknown"},
    ]
}


def setup(*players: Any, tiles: Any = 5, on_board: int = 3, **extra: Any) -> dict[str, Any]:
    """``setup("Ana", ("Ben", ["small", "big_rig"]))``: players by name, or (name, vehicles)."""
    rows = []
    for p in players or ("Ana", "Ben"):
        if isinstance(p, tuple):
            rows.append({"name": p[0], "vehicles": list(p[1])})
        else:
            rows.append({"name": p})
    return {"players": rows, "board": {"tiles": tiles, "on_board": on_board}, **extra}


class Table:
    """A match plus terse commands.  ``ok`` asserts acceptance, ``no`` asserts refusal and returns why."""

    def __init__(self, *players: Any, **kwargs: Any) -> None:
        self.match: Match[ThunderRoadState] = Match.begin(GAME, setup(*players, **kwargs))

    @property
    def state(self) -> ThunderRoadState:
        return self.match.state

    def send(self, type: str, **args: Any) -> Outcome:
        return self.match.apply(Command.from_json({"type": type, **args}))

    def ok(self, type: str, **args: Any) -> Outcome:
        out = self.send(type, **args)
        assert out.accepted, f"{type} {args} refused: {out.reason}"
        return out

    def no(self, type: str, **args: Any) -> str:
        out = self.send(type, **args)
        assert not out.accepted, f"{type} {args} was accepted"
        assert out.reason
        return out.reason

    def roll(self, **dice: list[int]) -> None:
        if not dice:
            dice = {p.name: [1, 2, 3, 4] for p in self.state.players if self.state.standing(p.name)}
        self.ok("roll", dice=dice)

    def turn(self, vehicle: str, die: int, **move: Any) -> None:
        """Assign ``die`` to ``vehicle`` (the current player's) and report a plain move."""
        self.ok("assign", vehicle=vehicle, die=die)
        self.ok("move", **move)

    def view(self, name: str) -> Any:
        return next(v for v in self.match.views() if v.player == name)
