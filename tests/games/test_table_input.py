"""The table-input protocol (games.core.table_input): the press arithmetic, pruning and look-ups."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core import Command
from games.core.table_input import (
    Choice,
    DiceRequest,
    Menu,
    branch,
    default_index,
    find_leaf,
    keep_legal,
    leaf,
    leaves,
    moves,
    roll,
    route,
)


def _menu() -> Menu:
    return Menu("1.1 Template", (
        branch("Straights", [leaf("Short", Command("t", {"n": "short"})), leaf("Long", Command("t", {"n": "long"}))]),
        branch("Gentle", [leaf("Left", Command("t", {"n": "gentle", "h": "l"})),
                          leaf("Right", Command("t", {"n": "gentle", "h": "r"}))], default=True),
        leaf("Done", Command("confirm")),
        roll("Roll", DiceRequest("d6", 2, "two d6", lambda f: Command("roll", {"dice": list(f)}))),
    ))


def test_a_choice_is_exactly_one_thing() -> None:
    with pytest.raises(ValueError):
        Choice("nothing")
    with pytest.raises(ValueError):
        Choice("both", command=Command("a"), children=(leaf("x", Command("b")),))


def test_presses_count_select_both_ways_and_an_ok_per_level() -> None:
    menu = _menu()
    got = {lf.path: lf.keys for lf in leaves(menu.choices)}
    # the cursor starts on the default (Gentle, index 1); Straights is one long SELECT back
    assert got[("Straights", "Short")] == ("select_long", "ok", "ok")
    assert got[("Straights", "Long")] == ("select_long", "ok", "select", "ok")
    assert got[("Gentle", "Left")] == ("ok", "ok")  # no advance named: NEXT does not guess at the top
    advanced = {lf.path: lf.keys for lf in leaves(menu.choices, advance=("Gentle",))}
    assert advanced[("Gentle", "Left")] == ("next",)  # NEXT: the advance, and its list's default
    assert got[("Gentle", "Right")] == ("ok", "select", "ok")
    assert got[("Done",)] == ("select", "ok")
    assert got[("Roll",)] == ("select", "select", "ok")  # or two long SELECTs: the same count


@given(st.integers(1, 30), st.data())
def test_route_is_the_shorter_way_round(n: int, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, n - 1))
    target = data.draw(st.integers(0, n - 1))
    keys = route(start, target, n)
    assert len(keys) == moves(start, target, n) <= n // 2
    pos = start
    for k in keys:
        pos = (pos + (1 if k == "select" else -1)) % n
    assert pos == target


def test_keep_legal_prunes_leaves_and_empty_branches_but_keeps_rolls() -> None:
    menu = _menu()
    kept = keep_legal(menu.choices, lambda c: c.get("n") != "gentle" and c.type != "confirm")
    assert [c.label for c in kept] == ["Straights", "Roll"]
    assert default_index(kept) == 0  # the default went with the pruned branch: the first choice


def test_find_leaf_and_a_roll_builds_its_command() -> None:
    menu = _menu()
    lf = find_leaf(menu, Command("t", {"n": "long"}))
    assert lf is not None and lf.path == ("Straights", "Long")
    assert find_leaf(menu, Command("nope")) is None
    request = menu.choices[3].dice
    assert request is not None
    assert request.command([3, 4]) == Command("roll", {"dice": [3, 4]})
    assert request.command([3]) is None  # an exact roll of two wants two dice
    up_to = DiceRequest("skid", 3, "skid dice", lambda f: Command("skid", {"faces": list(f)}), exact=False)
    assert up_to.command([]) == Command("skid", {"faces": []}) and up_to.command([1, 2, 3, 4]) is None


def test_face_names_show_what_a_stand_in_die_means() -> None:
    r = DiceRequest("d6", 1, "skid", lambda f: None, face_names=((1, "HAZARD"),))
    assert r.name_of(1) == "1 HAZARD" and r.name_of(4) == "4"
