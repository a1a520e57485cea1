"""Helpers for Gaslands tests: a table whose state the test can put anywhere, and commands to send.

:class:`Table` drives the pure functions (``decide`` then ``evolve``) directly, so a test can start a
vehicle in gear 5 with 4 hazard tokens (``table.patch``) without playing the turns that would get it there.
The full match machinery (store, undo, replay) is tested through :class:`games.core.Match` elsewhere.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from games.core import Command, Decision, Event, Illegal, Match
from games.gaslands import GAME
from games.gaslands.state import GaslandsState, Vehicle


def setup(*players: tuple[str, list[str]], **scenario: Any) -> dict[str, Any]:
    """``setup(("Alice", ["buggy"]), ("Bob", ["truck", "car"]), pole="Bob")``; vehicle ids are
    ``<player-lower>-<n>``."""
    if not players:
        players = (("Alice", ["buggy"]), ("Bob", ["truck"]))
    return {
        "scenario": scenario,
        "players": [{"name": name, "vehicles": [{"type": t} for t in types]} for name, types in players],
    }


def match(*players: tuple[str, list[str]], **scenario: Any) -> Match[Any]:
    return Match.begin(GAME, setup(*players, **scenario))


class Table:
    def __init__(self, *players: tuple[str, list[str]], options: dict[str, Any] | None = None, **scenario: Any) -> None:
        state: GaslandsState | None = None
        for event in GAME.start(options if options is not None else setup(*players, **scenario)):
            state = GAME.evolve(state, event)
        assert state is not None
        self.state: GaslandsState = state
        self.events: list[Event] = []
        self.last: Decision | None = None

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> "Table":
        return cls(options=options)

    # -- sending commands ----------------------------------------------------------------------
    def send(self, kind: str, /, **args: Any) -> Decision:
        decision = GAME.decide(self.state, Command(kind, args))
        for event in decision.events:
            self.state = GAME.evolve(self.state, event)
        self.events.extend(decision.events)
        self.last = decision
        return decision

    def ok(self, kind: str, /, **args: Any) -> Decision:
        decision = self.send(kind, **args)
        assert decision.refused is None, f"{kind} {args}: {decision.refused}"
        return decision

    def illegal(self, kind: str, /, **args: Any) -> str:
        before = self.state
        try:
            self.send(kind, **args)
        except Illegal as exc:
            assert self.state == before
            return exc.reason
        raise AssertionError(f"{kind} {args} was accepted")

    # -- reading -------------------------------------------------------------------------------
    def v(self, vid: str) -> Vehicle:
        return self.state.vehicle(vid)

    @property
    def step(self) -> str:
        from games.gaslands.rules import current_step

        return current_step(self.state).value

    @property
    def active(self) -> str | None:
        return self.state.activation.vehicle if self.state.activation else None

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    # -- arranging -----------------------------------------------------------------------------
    def patch(self, vid: str, **changes: Any) -> None:
        """Put a vehicle in a given gear / hazards / hull, as if earlier turns had got it there."""
        self.state = replace(
            self.state, vehicles=tuple(replace(v, **changes) if v.id == vid else v for v in self.state.vehicles)
        )

    def to_skid_check(self, template: str = "gentle", **args: Any) -> None:
        self.ok("choose_template", template=template, **args)
        self.ok("place_template")

    def finish_activation(self) -> None:
        """From wherever the activation stands, with no further dice: spend nothing, confirm steps."""
        ended = self.types().count("activation_ended")
        for _ in range(20):
            if self.types().count("activation_ended") > ended or self.state.finished:
                return
            step = self.step
            if step.startswith("1.1"):
                raise AssertionError("activation is at 1.1")
            if step.startswith("1.2"):
                self.ok("place_template")
            elif step.startswith("1.3"):
                self.ok("skid_roll", faces=[])
            elif step.startswith("1.4"):
                self.ok("end_shifts")
            elif step.startswith("3 wipeout: flip check"):
                self.ok("flip_check", die=6)
            else:
                self.ok("confirm")
        raise AssertionError("activation did not end")

    def whole_activation(self, template: str = "gentle", faces: list[str] | None = None) -> str:
        vid = self.active
        assert vid is not None
        self.to_skid_check(template)
        self.ok("skid_roll", faces=faces or [])
        self.finish_activation()
        return vid
