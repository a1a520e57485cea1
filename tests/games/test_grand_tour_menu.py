"""The Grand Tour's button menus (games.grand_tour.menus through ``GAME.menu``).

At every state a random tour reaches through the menus alone (2 to 6 teams, specialties on or off): at
most FIRST_LEVEL_MAX first-level choices, every command type of the prompt (but undo: the BACK button)
reachable, every leaf accepted by the rules, at most 8 presses to any leaf and a median of 4 or fewer.
"""

from __future__ import annotations

import itertools
import statistics

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from games.core import Command, Illegal, Match
from games.core.table_input import FIRST_LEVEL_MAX, Choice, Menu, find_leaf, leaves
from games.grand_tour import GAME, GrandTourState
from games.grand_tour.menus import BUTTON_MAX_EXHAUSTION
from games.grand_tour.state import rider_label

MAX_PRESSES = 8
MEDIAN_PRESSES = 4
LABEL_CHARS = 21  # one line of the small font on 128 px (team names here are short)
TEAMS = ["red", "blue", "green", "black", "white", "pink"]


def _lists(choices: tuple[Choice, ...]) -> list[tuple[Choice, ...]]:
    out = [choices]
    for c in choices:
        if c.children:
            out += _lists(c.children)
    return out


def check_menu(state: GrandTourState) -> Menu:
    """Every promise of the protocol at one state (see the module docstring)."""
    menu, prompt = GAME.menu(state), GAME.prompt(state)
    assert menu.dice is None  # nothing is rolled in the Grand Tour
    assert len(menu.choices) <= FIRST_LEVEL_MAX
    found = list(leaves(menu.choices))
    for lf in found:
        assert lf.choice.command is not None
        try:
            GAME.decide(state, lf.choice.command)
        except Illegal as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"{' > '.join(lf.path)} sends {lf.choice.command.to_json()}, refused: {exc.reason}")
    assert set(prompt.commands) - {"undo"} <= {lf.choice.command.type for lf in found}, (prompt, menu)  # type: ignore[union-attr]
    if found:
        presses = [lf.presses for lf in found]
        # 41 exhaustion counts (a deck carrying its exhaustion over stages holds more than 20): the fifth entry,
        # "21 to 40 cards…", costs 15-20 the wrap that kept the list's median at 4; the median is 5 there, knowingly
        exhaustion = any(lf.choice.command.type == "exhaustion" for lf in found)  # type: ignore[union-attr]
        median = MEDIAN_PRESSES + 1 if exhaustion else MEDIAN_PRESSES
        assert max(presses) <= MAX_PRESSES and statistics.median(presses) <= median, presses
    else:
        assert state.finished and prompt.commands == ("undo",)
    for level in _lists(menu.choices):
        assert sum(c.default for c in level) <= 1
        assert len({c.label for c in level}) == len(level)  # a path of labels names one choice
        assert all(len(c.label) <= LABEL_CHARS for c in level)
    # (an exhaustion count's status names its rider, "yellow Sprinteur: all exhaustion cards" (an audit), and the
    # crossers' lists every crosser entered this round (a walkthrough): both turn in pieces on the footer, as
    # Thunder Road's do; so does the stage's count with "if none crossed: enter nothing", a walkthrough)
    assert len(menu.title) <= LABEL_CHARS
    nothing = " · if none crossed: enter nothing"
    assert (len(menu.status) <= LABEL_CHARS or menu.status.endswith(": all exhaustion cards")
            or menu.status.endswith(nothing) and len(menu.status.removesuffix(nothing)) <= LABEL_CHARS
            or menu.status == f"{len(state.open_round)} in: " + ", ".join(
                f"{rider_label(r)} +{n}" for r, n in state.open_round)), menu.status
    assert menu.player == prompt.player
    assert menu.player in {None, *(v.player for v in GAME.views(state))}
    return menu


def new(teams: int = 3, stages: int = 2, specialties: bool = False) -> Match:
    return Match.begin(GAME, {"stages": stages, "teams": TEAMS[:teams], "specialties": specialties,
                              "peloton": teams > 4, "time_track": {"columns": 12, "start_column": 2, "start_row": 0}})


def take(m: Match, *path: str) -> None:
    """Follow labels from the top of the menu to a leaf and send it."""
    choices = GAME.menu(m.state).choices
    for label in path:
        choice = next(c for c in choices if c.label == label)
        choices = choice.children
    assert choice.command is not None, path
    out = m.apply(choice.command)
    assert out.accepted, (path, out.reason)


def cheapest_press(menu: Menu) -> int:
    return min(lf.presses for lf in leaves(menu.choices))


def labels(menu: Menu) -> list[str]:
    return [" > ".join(lf.path) for lf in leaves(menu.choices)]


# -- the menus, step by step ---------------------------------------------------------------------------------


def test_specialties_deal_one_card_at_a_time_then_keep_one_for_a_rider() -> None:
    m = new(teams=2, specialties=True)
    menu = check_menu(m.state)
    assert (menu.title, menu.player, menu.status) == ("Deal specialties", "red", "red: card 1 of 2")
    assert [c.label for c in menu.choices] == [f"Specialty {i}" for i in range(1, 8)] + ["More cards"]
    assert [c.label for c in menu.choices[-1].children] == ["Specialty 8", "Specialty 9"]
    take(m, "More cards", "Specialty 9")
    take(m, "Specialty 2")
    assert m.state.team("red").dealt == ("9", "2")
    menu = check_menu(m.state)
    assert menu.player == "blue" and "Specialty 9" not in labels(menu) and len(menu.choices) == 7
    take(m, "Specialty 1")
    take(m, "Specialty 3")
    menu = check_menu(m.state)
    assert (menu.title, menu.player) == ("Keep a specialty", "red")
    assert labels(menu) == ["Keep Specialty 9 > Rouleur", "Keep Specialty 9 > Sprinteur",
                            "Keep Specialty 2 > Rouleur", "Keep Specialty 2 > Sprinteur"]
    take(m, "Keep Specialty 2", "Sprinteur")
    take(m, "Keep Specialty 1", "Rouleur")
    assert m.state.rider("red.sprinteur").specialty == "2" and m.state.phase.value == "racing"


def test_a_crosser_is_named_then_its_squares_follow() -> None:
    m = new(teams=3)
    menu = check_menu(m.state)
    assert menu.title == "Who crossed the line" and menu.player is None
    assert labels(menu) == [f"{t} {r}" for t in TEAMS[:3] for r in ("Rouleur", "Sprinteur")]
    take(m, "blue Sprinteur")
    menu = check_menu(m.state)
    assert (menu.title, menu.status) == ("Squares past the line", "blue Sprinteur")
    # past 5 each says it counts as 5 ("up to 5 squares": a walkthrough read "5+… › 6" as six rows)
    assert labels(menu) == ["0", "1", "2", "3", "4", "5+… > 5", "5+… > 6 · counts 5", "5+… > 7 · counts 5",
                            "5+… > 8+ · counts 5"]
    assert find_leaf(menu, Command("cross", {"squares": 2})).presses == cheapest_press(menu)  # type: ignore[union-attr]
    assert GAME.prompt(m.state).awaits == "squares"
    take(m, "3")
    menu = check_menu(m.state)
    assert [c.label for c in menu.choices if c.default] == ["End round"]  # one crosser: no pack to tell
    assert "blue Sprinteur" not in labels(menu) and menu.status == "1 in: blue Sprinteur +3"  # whose +3
    take(m, "red Rouleur")
    menu = check_menu(m.state)
    # a rider moved later may go farther; past 5 each says it counts as 5 ("up to 5 squares"); the square blue's
    # Sprinteur holds says this rider finishes behind them there (the first to reach a square holds its right
    # lane; entered in another order, the places and the 10-second bonus went to the wrong rider unsaid)
    assert labels(menu) == ["0", "1", "2", "3 · behind blue", "4", "5+… > 5", "5+… > 6 · counts 5",
                            "5+… > 7 · counts 5", "5+… > 8+ · counts 5"]
    assert [c.label for c in menu.choices if c.default] == ["3 · behind blue"]
    take(m, "3 · behind blue")
    menu = check_menu(m.state)
    # every crosser entered so far, in the order they crossed (a walkthrough: only the last was on a screen, and
    # "blue Sprinteur +5 (2 in)" too long for a line lost the count)
    assert menu.status == "2 in: blue Sprinteur +3, red Rouleur +3"
    end = next(c for c in menu.choices if c.label == "End round")
    # each says what it means ("…in one unbroken chain, they all get the same time as the first")
    assert end.default and [(c.label, c.default) for c in end.children] == [("Pack · all 1st's time", True),
                                                                            ("No pack · own times", False)]
    take(m, "End round", "Pack · all 1st's time")
    assert m.state.order == ("blue.sprinteur", "red.rouleur") and m.state.open_round == ()


def test_five_or_more_squares_count_as_five_but_order_the_crossers() -> None:
    """"riders who crossed move one row up per square they travelled past the line (up to 5 squares)": 5, 6,
    7 and 8+ move the marker alike, but with crossers taken in any order the farther one finishes ahead
    (entered as 5+ both, the first entered was put ahead of the rider moved later who went farther)."""
    m = new(teams=2)
    take(m, "red Rouleur")
    take(m, "5+…", "5")
    take(m, "blue Rouleur")
    assert labels(check_menu(m.state))[-4:] == ["5+… > 5 · behind red", "5+… > 6 · counts 5",
                                                "5+… > 7 · counts 5", "5+… > 8+ · counts 5"]
    take(m, "5+…", "7 · counts 5")
    assert m.state.open_round == (("blue.rouleur", 7), ("red.rouleur", 5))


def test_six_teams_fold_some_teams_to_fit_the_first_level() -> None:
    m = new(teams=6)
    menu = check_menu(m.state)
    assert len(menu.choices) == FIRST_LEVEL_MAX and len(labels(menu)) == 12
    folded = [c for c in menu.choices if c.children]
    assert folded and all([k.label for k in c.children] == ["Rouleur", "Sprinteur"] for c in folded)
    team_order = [c.label.split()[0] for c in menu.choices]
    assert sorted(set(team_order), key=team_order.index) == TEAMS  # seating order kept


def test_exhaustion_cards_in_groups_of_five_for_the_rider_the_prompt_names() -> None:
    """The buttons stopped at 20, and a deck carrying its exhaustion over stages holds more ("decks get more
    tired as the tour goes on"; 12 a stage: 12, 18, 21): up to 40 now, within eight presses."""
    m = new(teams=2, stages=2)
    m.apply(Command("finish_round", {"crossed": [{"rider": r.id, "squares": 0} for r in m.state.riders]}))
    menu = check_menu(m.state)
    prompt = GAME.prompt(m.state)
    # "count exhaustion cards of red Rouleur (half are discarded, rounded down)": whose, and what is counted
    assert (menu.title, menu.status, menu.player) == ("red Rouleur", "red Rouleur: all exhaustion cards", "red")
    assert "red Rouleur" in prompt.text and prompt.player == "red"  # its name, not the id "red.rouleur"
    assert [c.label for c in menu.choices] == ["0 to 4 cards", "5 to 9 cards", "10 to 14 cards", "15 to 20 cards",
                                               "21 to 40 cards…"]
    assert menu.choices[0].default and menu.choices[0].children[2].default  # 2 cards
    found = {lf.choice.command.get("cards"): lf.presses for lf in leaves(menu.choices)}  # type: ignore[union-attr]
    assert sorted(found) == list(range(BUTTON_MAX_EXHAUSTION + 1)) and found[2] == min(found.values())
    assert max(found.values()) <= 8
    take(m, "5 to 9 cards", "7")
    assert m.state.rider("red.rouleur").keep == 4  # 7 held: 3 discarded
    # the rider on the status line too: once a group is open the title is the group's, and the news of the
    # rider counted before ("red Rouleur keeps…") takes turns with it on the footer (an audit)
    assert check_menu(m.state).status == "red Sprinteur: all exhaustion cards"
    assert check_menu(m.state).title == "red Sprinteur"


def test_the_tour_over_menu_is_empty() -> None:
    m = new(teams=2, stages=1)
    m.apply(Command("finish_round", {"crossed": [{"rider": r.id, "squares": 0} for r in m.state.riders]}))
    menu = check_menu(m.state)
    assert m.state.finished and menu.choices == () and menu.title == "Tour over"


def test_every_racing_field_of_four_teams_keeps_the_press_limits() -> None:
    """Every set of riders still racing (four teams), with 0, 1 and 2 crossers in the round."""
    riders = [f"{t}.{r}" for t in TEAMS[:4] for r in ("rouleur", "sprinteur")]
    for n in range(1, len(riders) + 1):
        for racing in itertools.combinations(riders, n):
            m = new(teams=4)
            gone = [r for r in riders if r not in racing]
            if gone:
                m.apply(Command("finish_round", {"crossed": [{"rider": r, "squares": 0} for r in gone]}))
            for rid in racing[:2]:
                check_menu(m.state)
                assert m.apply(Command("cross", {"rider": rid})).accepted
                check_menu(m.state)
                assert m.apply(Command("cross", {"squares": 0})).accepted
            check_menu(m.state)


def test_a_whole_tour_is_played_through_menu_leaves_only() -> None:
    """Specialties, three stages, exhaustion: every command is the menu's default leaf (OK, OK ...)."""
    m = new(teams=4, stages=3, specialties=True)
    for _ in range(500):
        if m.state.finished:
            break
        menu = check_menu(m.state)
        best = min(leaves(menu.choices), key=lambda lf: lf.presses)  # the defaults all the way down
        out = m.apply(best.choice.command)  # type: ignore[arg-type]
        assert out.accepted, out.reason
    assert m.state.finished and m.state.winners


# -- the property: random tours through random leaves --------------------------------------------------------


class GrandTourMenuWalk(RuleBasedStateMachine):
    """A random tour in which every command is a leaf of the menu shown (BACK = undo now and then)."""

    match: Match

    @initialize(teams=st.integers(2, 6), stages=st.integers(1, 3), specialties=st.booleans())
    def setup(self, teams: int, stages: int, specialties: bool) -> None:
        self.match = new(teams=teams, stages=stages, specialties=specialties and teams <= 4)

    @rule(data=st.data())
    def take_a_leaf(self, data: st.DataObject) -> None:
        found = list(leaves(GAME.menu(self.match.state).choices))
        if not found:
            return
        lf = data.draw(st.sampled_from(found))
        out = self.match.apply(lf.choice.command)  # type: ignore[arg-type]
        assert out.accepted, (lf.path, out.reason)

    @rule()
    def back_is_undo(self) -> None:
        self.match.apply(Command("undo"))

    @invariant()
    def the_menu_keeps_its_promises(self) -> None:
        check_menu(self.match.state)


GrandTourMenuWalk.TestCase.settings = settings(
    max_examples=60, stateful_step_count=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestGrandTourMenuWalk = GrandTourMenuWalk.TestCase
