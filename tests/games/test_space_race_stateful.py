"""Hypothesis stateful test of the Space Race: random command sequences (good and bad, undo included)
keep the invariants: markers within 0..8, VP only grows (undo aside), replaying the live events gives the
state, undo then the same command gives the same state, attempts never exceed the allowance."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from games.core import Command, Match
from games.core.match import replay
from games.space_race import GAME

SIDE = st.sampled_from(["USA", "USSR"])


class SpaceRaceMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.match: Match = Match.begin(GAME, {})
        self.vp = {"USA": 0, "USSR": 0}

    def _apply(self, command: dict[str, Any]) -> bool:
        before = self.match.state
        out = self.match.apply(Command.from_json(command))
        if not out.accepted:
            assert out.reason, command
            assert self.match.state is before
            return False
        # undo then the same command gives the same state
        after = self.match.state
        assert self.match.apply(Command("undo")).accepted
        assert self.match.state == before
        assert self.match.apply(Command.from_json(command)).accepted
        assert self.match.state == after
        return True

    @rule()
    def begin(self) -> None:
        self._apply({"type": "begin_turn"})

    @rule()
    def end(self) -> None:
        self._apply({"type": "end_turn"})

    @rule(side=SIDE, ops=st.integers(0, 5), die=st.one_of(st.none(), st.integers(0, 7)))
    def attempt(self, side: str, ops: int, die: int | None) -> None:
        c: dict[str, Any] = {"type": "attempt", "side": side, "ops": ops}
        if die is not None:
            c["die"] = die
        self._apply(c)

    @rule(die=st.integers(0, 7))
    def roll(self, die: int) -> None:
        self._apply({"type": "roll", "die": die})

    @rule(side=SIDE)
    def grant(self, side: str) -> None:
        self._apply({"type": "grant_attempt", "side": side})

    @rule(side=SIDE)
    def advance(self, side: str) -> None:
        self._apply({"type": "event_advance", "side": side})

    @rule()
    def undo(self) -> None:
        if self.match.apply(Command("undo")).accepted:
            self.vp = {s.name: s.vp for s in self.match.state.sides}

    @invariant()
    def markers_on_the_track(self) -> None:
        for s in self.match.state.sides:
            assert 0 <= s.box <= 8

    @invariant()
    def vp_only_grows(self) -> None:
        for s in self.match.state.sides:
            assert s.vp >= self.vp[s.name]
            self.vp[s.name] = s.vp

    @invariant()
    def replay_equals_state(self) -> None:
        assert replay(GAME, self.match.live_events()) == self.match.state

    @invariant()
    def attempts_within_allowance(self) -> None:
        st_ = self.match.state
        for s in st_.sides:
            assert 0 <= st_.attempts_left(s.name) <= st_.allowance(s.name)
            assert s.used <= st_.allowance(s.name) + 1  # +1: a just-cancelled box-2 ability mid-turn

    @invariant()
    def views_render_plain_data(self) -> None:
        views = self.match.views()
        assert [v.side for v in views] == ["USA", "USSR"]


SpaceRaceMachine.TestCase.settings = settings(
    max_examples=80, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSpaceRaceStateful = SpaceRaceMachine.TestCase
