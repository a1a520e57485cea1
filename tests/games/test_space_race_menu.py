"""The Space Race's button menus (games.space_race.menus through ``GAME.menu``).

At every state a random race reaches through the menus alone: at most FIRST_LEVEL_MAX first-level choices,
every command type of the prompt (but undo: the BACK button) reachable, every leaf accepted by the rules,
at most 8 presses to any leaf and a median of 4 or fewer, the awaited d6 offered as the default choice.
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from games.core import Command, Illegal, Match
from games.core.table_input import FIRST_LEVEL_MAX, Choice, Menu, find_leaf, leaves
from games.space_race import DIE_TYPES, GAME
from games.space_race.state import SpaceRaceState

MAX_PRESSES = 8
MEDIAN_PRESSES = 4
LABEL_CHARS = 21  # one line of the small font on 128 px


def leaf_commands(menu: Menu) -> list[tuple[tuple[str, ...], Command, int]]:
    """(path, command, presses) for every leaf; a roll gives one command per face of its die."""
    out = []
    for lf in leaves(menu.choices):
        if lf.choice.command is not None:
            out.append((lf.path, lf.choice.command, lf.presses))
        else:
            request = lf.choice.dice
            assert request is not None
            for face in request.faces or DIE_TYPES[request.die]:
                command = request.command([face] * request.count)
                assert command is not None, (lf.path, face)
                out.append((lf.path, command, lf.presses))
    return out


def _lists(choices: tuple[Choice, ...]) -> list[tuple[Choice, ...]]:
    out = [choices]
    for c in choices:
        if c.children:
            out += _lists(c.children)
    return out


def check_menu(state: SpaceRaceState) -> Menu:
    """Every promise of the protocol at one state (see the module docstring)."""
    menu, prompt = GAME.menu(state), GAME.prompt(state)
    assert len(menu.choices) <= FIRST_LEVEL_MAX
    found = leaf_commands(menu)
    for path, command, _ in found:
        try:
            GAME.decide(state, command)
        except Illegal as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"{' > '.join(path)} sends {command.to_json()}, refused: {exc.reason}")
    assert set(prompt.commands) - {"undo"} <= {c.type for _, c, _ in found}, (prompt.commands, menu)
    presses = [lf.presses for lf in leaves(menu.choices)]
    assert max(presses) <= MAX_PRESSES and statistics.median(presses) <= MEDIAN_PRESSES, presses
    for level in _lists(menu.choices):
        assert sum(c.default for c in level) <= 1
        assert len({c.label for c in level}) == len(level)  # a path of labels names one choice
        assert all(len(c.label) <= LABEL_CHARS for c in level)
    assert len(menu.title) <= LABEL_CHARS and len(menu.status) <= LABEL_CHARS
    if prompt.awaits == "dice":
        assert menu.dice is not None and menu.dice.die == "d6" and menu.dice.count == 1
        assert any(c.dice == menu.dice and c.default for c in menu.choices)
    else:
        assert menu.dice is None
    assert menu.player in {None, *(v.player for v in GAME.views(state))}
    return menu


# -- the menus, step by step ---------------------------------------------------------------------------------


def _match(*commands: dict[str, Any]) -> Match:
    m = Match.begin(GAME, {})
    for c in commands:
        assert m.apply(Command.from_json(c)).accepted, c
    return m


def cheapest_press(menu: Menu) -> int:
    return min(lf.presses for lf in leaves(menu.choices))


def labels(menu: Menu) -> list[str]:
    return [" > ".join(lf.path) for lf in leaves(menu.choices)]


def test_between_turns_begin_turn_is_the_default() -> None:
    menu = check_menu(_match().state)
    assert (menu.title, menu.player) == ("Between turns", None)
    assert labels(menu) == ["Begin turn 1", "Event: advance > USA > With box VP", "Event: advance > USA > No VP (card says)",
                            "Event: advance > USSR > With box VP", "Event: advance > USSR > No VP (card says)"]
    assert find_leaf(menu, Command("event_advance", {"side": "USSR", "vp": False})) is not None
    assert find_leaf(menu, Command("begin_turn")).presses == cheapest_press(menu)  # type: ignore[union-attr]


def test_a_turn_offers_each_side_only_the_ops_its_next_box_accepts() -> None:
    m = _match({"type": "begin_turn"})
    for _ in range(4):  # USA to box 4: box 5 needs a 3-ops card
        m.apply(Command("event_advance", {"side": "USA"}))
    menu = check_menu(m.state)
    assert menu.title == "Turn 1" and menu.status == "Attempts USA 2 USSR 1"  # box 2: two attempts
    assert [c.label for c in menu.choices] == [
        "USA attempt · box 5", "USSR attempt · box 1", "End turn", "Extra attempt (event)", "Event: advance"]
    usa, ussr = menu.choices[0], menu.choices[1]
    assert [c.label for c in usa.children] == ["3 Ops", "4 Ops"] and usa.children[0].default
    assert [c.label for c in ussr.children] == ["2 Ops", "3 Ops", "4 Ops"] and ussr.children[0].default
    assert usa.default and not ussr.default  # the side with more attempts left
    menu = check_menu(_match({"type": "begin_turn"}).state)
    assert [c.label for c in menu.choices if c.default] == ["USSR attempt · box 1"]  # equal: the USSR plays first
    ussr_2 = find_leaf(menu, Command("attempt", {"side": "USSR", "ops": 2}))
    assert ussr_2 is not None and ussr_2.presses == cheapest_press(menu)  # the default way


def test_a_side_without_attempts_left_has_no_attempt_and_end_turn_becomes_the_default() -> None:
    m = _match({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 2, "die": 6})
    menu = check_menu(m.state)
    assert not [c.label for c in menu.choices if c.label.startswith("USSR attempt")]
    assert [c.label for c in menu.choices if c.default] == ["USA attempt · box 1"]
    m.apply(Command("attempt", {"side": "USA", "ops": 2, "die": 6}))
    menu = check_menu(m.state)
    assert [c.label for c in menu.choices if c.default] == ["End turn"]
    assert not any("attempt" in c.label and "Extra" not in c.label for c in menu.choices)
    assert menu.advance == ("End turn",)  # NEXT ends the turn (it said "Choose: SELECT, then OK")


def test_after_an_attempt_without_its_die_the_d6_is_awaited_and_the_default() -> None:
    m = _match({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 2})
    menu = check_menu(m.state)
    # the card's event does not happen: said on the roller's screen ("never triggers its event")
    assert (menu.title, menu.player, menu.status) == ("Roll d6 · no event", "USSR", "Box 1: 1-3 succeeds")
    assert menu.dice is not None and menu.dice.label == "USSR d6, box 1"  # whose roll, for which box
    assert [c.label for c in menu.choices] == ["Roll the die"]
    assert menu.dice.command([2]) == Command("roll", {"die": 2})
    assert menu.dice.command([]) is None and menu.dice.command([1, 2]) is None
    out = m.apply(menu.dice.command([2]))  # type: ignore[arg-type]
    assert out.accepted and m.state.side("USSR").box == 1
    assert check_menu(m.state).status == "USSR die 2: success"


def test_a_failed_roll_is_said_on_the_menu_until_the_next_card() -> None:
    """A failed attempt changed nothing a player could see but the tries left: the menu's line now says
    the roll and its verdict until the next card is played."""
    m = _match({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 2})
    m.apply(check_menu(m.state).dice.command([6]))  # type: ignore[union-attr]
    assert m.state.side("USSR").box == 0 and check_menu(m.state).status == "USSR die 6: failure"
    m.apply(Command("attempt", {"side": "USA", "ops": 2}))
    m.apply(Command("roll", {"die": 5}))
    assert check_menu(m.state).status == "USA die 5: failure"
    # an extra attempt (an event) after the verdict: the try it gave is what USA reads next (an audit: never shown)
    m.apply(Command("grant_attempt", {"side": "USA"}))
    assert check_menu(m.state).status == "Attempts USA 1 USSR 0"
    # and an extra attempt for the other side, after the verdict of the side with none left: its count (a
    # walkthrough: "USSR die 4: success" stood over the USA's new attempt)
    m = _match({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 2, "die": 6},
               {"type": "attempt", "side": "USA", "ops": 2, "die": 6})
    assert check_menu(m.state).status == "USA die 6: failure"
    m.apply(Command("grant_attempt", {"side": "USSR"}))
    assert check_menu(m.state).status == "Attempts USA 0 USSR 1"
    m.apply(Command("end_turn"))
    m.apply(Command("begin_turn"))
    assert check_menu(m.state).status.startswith("Attempts USA")


def test_no_event_choice_for_a_side_on_the_last_box() -> None:
    m = _match({"type": "begin_turn"})
    for _ in range(8):
        m.apply(Command("event_advance", {"side": "USA"}))
    menu = check_menu(m.state)
    assert not [c.label for c in menu.choices if c.label.startswith("USA attempt")]
    assert [c.label for c in menu.choices[-1].children] == ["USSR"]
    for _ in range(8):
        m.apply(Command("event_advance", {"side": "USSR"}))
    assert m.state.finished
    menu = check_menu(m.state)
    assert labels(menu) == ["End turn"]  # the race is over; the turns of Twilight Struggle go on
    assert menu.status == "Space Race over" and menu.advance == ("End turn",)
    assert GAME.prompt(m.state).commands == ("end_turn", "undo")


def test_a_whole_race_is_played_through_menu_leaves_only() -> None:
    """The buttons alone take both markers to the last box: at each step the cheapest leaf that moves the
    race on (the default, or a 1 for an awaited die), every command found in the menu, none typed."""
    m = _match()
    for _ in range(400):
        if m.state.finished:
            break
        menu = check_menu(m.state)
        if menu.dice is not None:
            command = menu.dice.command([1])  # a 1 succeeds on every box
        else:
            picks = [(p, c) for p, c, _ in leaf_commands(menu) if c.type == "attempt"]
            picks = picks or [(p, c) for p, c, _ in leaf_commands(menu) if c.type in ("end_turn", "begin_turn")]
            command = picks[0][1]
        assert command is not None
        out = m.apply(command)
        assert out.accepted, out.reason
    assert m.state.finished
    assert all(s.box == 8 for s in m.state.sides)


# -- the property: random races through random leaves --------------------------------------------------------

class SpaceRaceMenuWalk(RuleBasedStateMachine):
    """A random race in which every command is a leaf (or the awaited die) of the menu shown."""

    def __init__(self) -> None:
        super().__init__()
        self.match: Match = Match.begin(GAME, {})

    @rule(data=st.data())
    def take_a_leaf(self, data: st.DataObject) -> None:
        found = leaf_commands(GAME.menu(self.match.state))
        _, command, _ = data.draw(st.sampled_from(found))
        out = self.match.apply(command)
        assert out.accepted, (command, out.reason)

    @rule()
    def back_is_undo(self) -> None:
        self.match.apply(Command("undo"))

    @invariant()
    def the_menu_keeps_its_promises(self) -> None:
        check_menu(self.match.state)


SpaceRaceMenuWalk.TestCase.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSpaceRaceMenuWalk = SpaceRaceMenuWalk.TestCase
