"""``pitboard bench menus``: the reachability and press figures, on small scenarios."""

from __future__ import annotations

import tomllib

from games import game_package
from games.core import Command, Match
from games.core.table_input import DiceRequest, Menu, branch, leaf, roll

from device.bench_menus import Figures, measure, play
from device.scripted import button_route


def test_a_listed_command_no_choice_sends_is_counted_unreachable() -> None:
    menu = Menu("Step", (
        leaf("Done", Command("confirm"), default=True),
        branch("Hit", [leaf("Rust", Command("hits", {"vehicle": "rust"})), leaf("Brick", Command("hits", {"vehicle": "brick"}))]),
        roll("Roll", DiceRequest("d6", 1, "d6", lambda f: Command("flip_check", {"die": f[0]}))),
    ))
    fig = Figures()
    measure(menu, ("confirm", "hits", "flip_check", "attack", "undo"), {}, fig, "toy")
    out = fig.as_json()
    assert out["unreachable"] == 1 and out["unreachable_examples"] == ["attack at toy"]
    # confirm: OK; hits: SELECT, OK, OK (the list's default); a roll: two SELECTs back round or one, OK; undo: BACK
    assert sorted(fig.presses) == [1, 1, 2, 3]
    assert out["presses_max"] == 3 and out["first_level_max"] == 3 and out["deepest_leaf_max"] == 4


def test_the_space_race_demo_is_played_with_the_buttons_alone() -> None:
    demo = __import__("games.space_race.demo", fromlist=["demo_script"])
    setup, script = demo.demo_script()
    fig = play("space_race", setup, script).as_json()
    assert fig["unreachable"] == 0 and fig["first_level_max"] <= 8 and fig["presses_max"] <= 8
    # every accepted command of the script went in through the buttons; only its deliberate mistakes did not
    assert all(not x["accepted"] for x in fig["script"]["not_offered"])
    assert fig["script"]["sent_by_buttons"] == 16


def test_a_round_entered_at_once_is_found_as_the_crossers_one_by_one() -> None:
    module = game_package("grand_tour")
    match = Match.begin(module.GAME, tomllib.loads(module.EXAMPLE_SETUP))
    shorthand = Command("finish_round", {"crossed": [{"rider": "red.rouleur", "squares": 2},
                                                     {"rider": "blue.sprinteur", "squares": 1}], "pack": False})
    steps = button_route(module, match.state, shorthand, {})
    assert steps is not None
    sent = [lf.choice.command for lf, _ in steps]
    for command in sent:
        assert match.apply(command).accepted
    assert [c.type for c in sent].count("cross") == 4 and sent[-1].type == "end_round"
