"""Hypothesis stateful test of the Grand Tour: random tours (rounds, packs, exhaustion counts, bad input
and undo) keep the invariants: every marker on the sheet, an untracked marker sits on the bottom-right
cell, tour points only grow (undo aside), replaying the live events gives the state, and undo then the
same command gives the same state."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from games.core import Command, Match
from games.core.match import replay
from games.grand_tour import GAME


class GrandTourMachine(RuleBasedStateMachine):
    match: Match

    @initialize(teams=st.integers(2, 4), stages=st.integers(1, 3), columns=st.integers(2, 8),
                start_row=st.integers(0, 5), specialties=st.booleans())
    def setup(self, teams: int, stages: int, columns: int, start_row: int, specialties: bool) -> None:
        names = ["red", "blue", "green", "black"][:teams]
        # (a start on the bottom-right cell is refused at set-up: the row above it, in a sheet of two columns)
        start_row = min(start_row, 4) if columns // 2 == columns - 1 else start_row
        self.match = Match.begin(GAME, {"stages": stages, "teams": names, "specialties": specialties,
                                        "time_track": {"columns": columns, "start_column": columns // 2,
                                                       "start_row": start_row}})
        self.points = {n: 0 for n in names}

    def _apply(self, command: dict[str, Any]) -> None:
        before = self.match.state
        out = self.match.apply(Command.from_json(command))
        if not out.accepted:
            assert out.reason
            assert self.match.state is before
            return
        after = self.match.state
        assert self.match.apply(Command("undo")).accepted
        assert self.match.state == before
        assert self.match.apply(Command.from_json(command)).accepted
        assert self.match.state == after

    @rule(data=st.data())
    def specialties(self, data: st.DataObject) -> None:
        st_ = self.match.state
        team = data.draw(st.sampled_from([t.name for t in st_.teams]))
        t = st_.team(team)
        if not t.dealt:
            free = [c.id for c in st_.cards if all(c.id not in x.dealt for x in st_.teams)]
            cards = data.draw(st.lists(st.sampled_from(free or ["1"]), min_size=2, max_size=2, unique=True)) if len(free) > 1 else ["1", "2"]
            self._apply({"type": "deal_specialties", "team": team, "cards": cards})
        else:
            card = data.draw(st.sampled_from(list(t.dealt)))
            self._apply({"type": "keep_specialty", "team": team, "card": card,
                         "rider": data.draw(st.sampled_from(["rouleur", "sprinteur"]))})

    @rule(data=st.data(), pack=st.booleans())
    def finish_round(self, data: st.DataObject, pack: bool) -> None:
        racing = [r.id for r in self.match.state.riders if not r.crossed]
        crossers = data.draw(st.lists(st.sampled_from(racing or ["red.rouleur"]), max_size=len(racing) or 1, unique=True))
        squares = sorted(data.draw(st.lists(st.integers(0, 7), min_size=len(crossers), max_size=len(crossers))), reverse=True)
        self._apply({"type": "finish_round", "pack": pack,
                     "crossed": [{"rider": r, "squares": s} for r, s in zip(crossers, squares)]})

    @rule(data=st.data(), how=st.sampled_from(["both", "rider", "squares"]))
    def cross(self, data: st.DataObject, how: str) -> None:
        """A crosser at once, or named first (``cross {rider}``) and its squares after (``cross {squares}``)."""
        racing = [r.id for r in self.match.state.riders if not r.crossed] or ["red.rouleur"]
        command: dict[str, Any] = {"type": "cross"}
        if how != "squares":
            command["rider"] = data.draw(st.sampled_from(racing))
        if how != "rider":
            command["squares"] = data.draw(st.integers(0, 7))
        self._apply(command)

    @rule(pack=st.booleans())
    def end_round(self, pack: bool) -> None:
        self._apply({"type": "end_round", "pack": pack})

    @rule(data=st.data(), cards=st.integers(-1, 12))
    def exhaustion(self, data: st.DataObject, cards: int) -> None:
        rider = data.draw(st.sampled_from([r.id for r in self.match.state.riders]))
        self._apply({"type": "exhaustion", "rider": rider, "cards": cards})

    @rule()
    def undo(self) -> None:
        if self.match.apply(Command("undo")).accepted:
            self.points = {t.name: t.points for t in self.match.state.teams}

    @invariant()
    def markers_on_the_sheet(self) -> None:
        st_ = self.match.state
        for r in st_.riders:
            assert 0 <= r.index <= st_.track.bottom_right
            if not r.tracked:
                assert r.index == st_.track.bottom_right
            if r.keep is not None:
                assert r.keep == r.exhaustion - r.exhaustion // 2

    @invariant()
    def a_named_crosser_is_racing(self) -> None:
        st_ = self.match.state
        if st_.crossing is not None:
            assert st_.phase.value == "racing" and not st_.rider(st_.crossing).crossed
            assert st_.crossing not in [rid for rid, _ in st_.open_round]

    @invariant()
    def points_only_grow(self) -> None:
        for t in self.match.state.teams:
            assert t.points >= self.points[t.name]
            self.points[t.name] = t.points

    @invariant()
    def replay_equals_state(self) -> None:
        assert replay(GAME, self.match.live_events()) == self.match.state

    @invariant()
    def views_one_per_team(self) -> None:
        views = self.match.views()
        assert [v.team for v in views] == [t.name for t in self.match.state.teams]
        assert min(r.gap_seconds for v in views for r in v.riders) == 0


GrandTourMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestGrandTourStateful = GrandTourMachine.TestCase
