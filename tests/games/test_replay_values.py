"""A log edited by hand with a value no play makes is refused when it is replayed, naming what is wrong.

An audit: `hits_taken` given a count of -5, 1.5, NaN or 1e400 was replayed without a word, and the game played on
with The Brick at hull 17 of 12, or 10.5, or wrecked by NaN; a template "warp" stood as the one chosen."""

from __future__ import annotations

import dataclasses
import math
import tomllib

import pytest

import games.gaslands as gaslands
import games.thunder_road as thunder_road
from games.core import Match
from games.core.match import CorruptLog
from games.core.model import Event, Record
from games.core.typed import type_problem
from gaslands_helpers import Table, setup


def _edited(records: list[Record], kind: str, **data: object) -> list[Record]:
    out = []
    for r in records:
        if r.event.type == kind:
            r = dataclasses.replace(r, event=Event(kind, {**r.event.data, **data}))
        out.append(r)
    return out


def _gaslands_with_hits(*counts: int) -> list[Record]:
    """The log of Bob's Truck (hull 12) hit at Alice's move step, ``counts`` hits at a time (2: one hit of 2)."""
    options = setup(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t = Table(options=options)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    for count in counts or (2,):
        t.ok("hits", vehicle="bob-1", count=count)
    start = list(gaslands.GAME.start(options))
    return [Record(k + 1, 0, e) for k, e in enumerate(start)] + [
        Record(len(start) + k + 1, k + 1, e) for k, e in enumerate(t.events)]


@pytest.mark.parametrize("count, said", [(1.5, "Vehicle.hull is 10.5, not a whole number"),
                                         (math.nan, "count is nan, not a number"), (math.inf, "count is inf, not a number"),
                                         (-5, "has hull 17 of 12")])
def test_an_edited_hit_count_is_refused_naming_the_field(count: object, said: str) -> None:
    records = _gaslands_with_hits()
    assert Match(gaslands.GAME, records).state.vehicle("bob-1").hull == 10  # as played: replayed
    with pytest.raises(CorruptLog, match="cannot be (shown|replayed)") as refused:
        Match(gaslands.GAME, _edited(records, "hits_taken", count=count))
    assert said in str(refused.value), str(refused.value)


def test_an_edited_template_is_refused() -> None:
    options = setup(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t = Table(options=options)
    t.ok("choose_template", template="gentle", hand="left")
    start = list(gaslands.GAME.start(options))
    records = [Record(k + 1, 0, e) for k, e in enumerate(start)] + [
        Record(len(start) + k + 1, k + 1, e) for k, e in enumerate(t.events)]
    kind = next(e.type for e in t.events if e.data.get("template") == "gentle")
    with pytest.raises(CorruptLog, match="template is 'warp'"):
        Match(gaslands.GAME, _edited(records, kind, template="warp"))


def test_thunder_road_damage_below_zero_is_a_state_no_play_makes() -> None:
    m = Match.begin(thunder_road.GAME, tomllib.loads(thunder_road.EXAMPLE_SETUP))
    v = m.state.vehicles[0]
    bad = dataclasses.replace(m.state, vehicles=(dataclasses.replace(v, damage=-3), *m.state.vehicles[1:]))
    assert "-3 damage tokens" in (thunder_road.GAME.state_problem(bad) or "")


def test_every_game_state_as_played_has_its_declared_types() -> None:
    for game in (gaslands, thunder_road):
        m = Match.begin(game.GAME, tomllib.loads(game.EXAMPLE_SETUP))
        assert type_problem(m.state) is None and game.GAME.state_problem(m.state) is None


def test_a_bad_value_behind_a_later_decision_is_refused_too() -> None:
    """A review: the first hit edited to 1.5 and a later hit of 11 (hull 0 at the end): the replay was taken,
    and one undo brought back a hull of 10.5 to play on."""
    records = _gaslands_with_hits(2, 11)
    first = next(r.seq for r in records if r.event.type == "hits_taken")
    edited = [dataclasses.replace(r, event=Event("hits_taken", {**r.event.data, "count": 1.5})) if r.seq == first
              else r for r in records]
    assert Match(gaslands.GAME, records).state.vehicle("bob-1").hull == 0
    with pytest.raises(CorruptLog, match=r"after decision \d+ .*hull is 10\.5"):
        Match(gaslands.GAME, edited)
