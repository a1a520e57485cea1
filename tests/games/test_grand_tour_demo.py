"""The Grand Tour demo script runs through the rules as its comments say; time-track unit cases."""

from __future__ import annotations

import tomllib

from games.core import Command, Match
from games.grand_tour import GAME, TimeTrack
from games.grand_tour.demo import demo_script


def test_demo_runs_to_the_end_of_the_tour() -> None:
    setup, commands = demo_script()
    m = Match.begin(GAME, tomllib.loads(setup))
    refused = [out.reason for out in (m.apply(Command.from_json(c)) for c in commands) if not out.accepted]
    assert len(refused) == 1 and "nobody crossed" in refused[0]
    assert m.state.finished and m.state.winners
    crossed = [e for e in m.live_events() if e.type == "round_finished"]
    # the wrap: blue.sprinteur from (4,0) five rows up lands one row down, one column left
    assert m.state.track.cell(crossed[2].data["cells"]["blue.sprinteur"][0]) == (3, 1)
    assert demo_script() == demo_script()


def test_time_track_arithmetic() -> None:
    t = TimeTrack(columns=4, rows=6, seconds_per_row=10, start=6)
    assert t.cell(t.bottom_right) == (3, 5) and t.top_left == 0
    assert t.up(t.index(0, 1), 3) == t.top_left  # cannot pass the top-left cell
    assert t.right(t.index(3, 0)) == t.bottom_right  # no cell further right: stops at the bottom-right
    assert t.up(t.index(2, 0), 5) == t.index(1, 1)
    assert t.seconds(t.index(1, 3)) == 90
