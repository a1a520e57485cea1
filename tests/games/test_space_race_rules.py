"""The Space Race rules, one test per rule sentence of shared/rules/space-race.md ([seed] and [V]).

Each docstring quotes the sentence it checks; ``test_space_race_quotes.py`` proves every tagged sentence is
quoted somewhere here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from games.core import Command, Match
from games.space_race import EXAMPLE_SETUP, GAME, NO_EVENT, load_track_data

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "space-race.md"


def new(edition: str | None = None, **extra: Any) -> Match:
    options: dict[str, Any] = {} if edition is None else {"edition": edition}
    options.update(extra)
    return Match.begin(GAME, options)


def run(match: Match, *commands: dict[str, Any]) -> list[tuple[bool, str | None]]:
    return [(o.accepted, o.reason) for o in (match.apply(Command.from_json(c)) for c in commands)]


def ok(match: Match, *commands: dict[str, Any]) -> None:
    for c in commands:
        out = match.apply(Command.from_json(c))
        assert out.accepted, (c, out.reason)


def refused(match: Match, command: dict[str, Any]) -> str:
    out = match.apply(Command.from_json(command))
    assert not out.accepted
    assert out.reason
    return out.reason


BEGIN = {"type": "begin_turn"}
END = {"type": "end_turn"}


def att(side: str, die: int | None = 1, ops: int = 4) -> dict[str, Any]:
    c: dict[str, Any] = {"type": "attempt", "side": side, "ops": ops}
    if die is not None:
        c["die"] = die
    return c


def reach(match: Match, side: str, box: int) -> None:
    """Move ``side`` to ``box`` by successful attempts, one per turn (a 1 succeeds on every box)."""
    while match.state.side(side).box < box:
        if not match.state.in_turn:
            ok(match, BEGIN)
        if match.state.attempts_left(side) == 0:
            ok(match, END, BEGIN)
        ok(match, att(side))


# -- [seed] 6.4.1 ------------------------------------------------------------------------------------------


def test_two_markers_on_an_eight_box_track() -> None:
    """"Two markers (USA, USSR) on an 8-box track." """
    m = new()
    assert [s.name for s in m.state.sides] == ["USA", "USSR"]
    assert all(s.box == 0 for s in m.state.sides)
    assert len(m.state.track) == 8
    assert [v.side for v in m.views()] == ["USA", "USSR"]


def test_card_ops_must_reach_the_box_value() -> None:
    """"To try the next box a player plays a card whose **operations value is ≥ the value printed on that
    box**, then rolls a d6: if the roll is inside the box's range the marker advances one box." """
    m = new()
    reach(m, "USA", 4)  # next: box 5 Lunar Orbit needs 3 ops
    ok(m, END, BEGIN)
    reason = refused(m, att("USA", ops=2))
    # whose card (a refusal is on both screens), in the menu's "Ops" (a walkthrough)
    assert reason == "USA: box 5 Lunar Orbit needs a card of 3 Ops or more; a 2-Ops card cannot try it"
    ok(m, att("USA", ops=3, die=None))  # exactly the printed value is enough
    assert m.prompt().awaits == "dice" and m.prompt().die == "d6" and m.prompt().count == 1


@pytest.mark.parametrize("die, moved", [(1, True), (3, True), (4, False), (6, False)])
def test_roll_inside_the_range_advances_one_box(die: int, moved: bool) -> None:
    """"if the roll is inside the box's range the marker advances one box." (box 1: 1–3)"""
    m = new()
    ok(m, BEGIN, att("USSR", die=None), {"type": "roll", "die": die})
    assert m.state.side("USSR").box == (1 if moved else 0)
    assert m.state.pending is None


# -- [seed] 6.4.2 ------------------------------------------------------------------------------------------


def test_one_card_per_turn() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so." — the plain case: one attempt, then a refusal with its reason; the next turn allows one again."""
    m = new()
    ok(m, BEGIN, att("USA", die=6))
    assert m.state.attempts_left("USA") == 0
    assert "1 of 1" in refused(m, att("USA"))
    ok(m, END, BEGIN)
    assert m.state.attempts_left("USA") == 1


def test_box_two_gives_two_attempts_at_once() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so." — the box-2 ability: reaching box 2 with the turn's one attempt allows a second at once."""
    m = new()
    reach(m, "USSR", 1)
    ok(m, END, BEGIN, att("USSR", die=1))  # reaches box 2 with the first attempt of this turn
    assert m.state.side("USSR").box == 2
    assert m.state.attempts_left("USSR") == 1
    ok(m, att("USSR", die=6))
    assert "2 of 2" in refused(m, att("USSR"))


def test_a_failed_attempt_is_told_on_both_screens_with_the_attempts_left() -> None:
    """"then rolls a d6: if the roll is inside the box's range the marker advances one box" — a failure changes
    nothing on the track, so both screens are told it, and what attempts the side has left: with box 2's two
    attempts a failed first one left the screens as before the card (a screens walkthrough)."""
    m = new()
    reach(m, "USSR", 2)
    ok(m, END, BEGIN, att("USSR", die=6))  # box 3 needs 1-3
    assert m.state.news == "USSR rolls 6 for box 3: failure · 1 attempt left"
    assert {v.player: v.news for v in GAME.views(m.state)} == {"USA": m.state.news, "USSR": m.state.news}
    ok(m, att("USSR", die=5))
    assert m.state.news == "USSR rolls 5 for box 3: failure"
    ok(m, att("USA", die=1))
    assert m.state.news.startswith("USA reached box 1")  # a success: its advance says it


def test_an_event_may_allow_another_attempt() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so." — ``grant_attempt`` is an event that says so; ``event_advance`` an event that advances."""
    m = new()
    ok(m, BEGIN, att("USA", die=6), {"type": "grant_attempt", "side": "USA"})
    assert m.state.attempts_left("USA") == 1
    ok(m, att("USA", die=1))
    assert m.state.side("USA").box == 1
    ok(m, {"type": "event_advance", "side": "USA"})
    assert m.state.side("USA").box == 2


def test_an_event_allows_another_attempt_after_both_of_a_lost_box_2_were_made() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so."  A rules audit: USA made both of box 2's attempts, the USSR reached box 2 (USA's ability cancelled),
    and an event's extra attempt was told "USA may make one more attempt this turn" and refused, spent on the
    attempt the cancelled ability had allowed."""
    m = new()
    reach(m, "USSR", 1)
    reach(m, "USA", 2)
    ok(m, END, BEGIN, att("USA", die=6), att("USA", die=6), att("USSR", die=1))
    assert m.state.attempts_left("USA") == 0
    ok(m, {"type": "grant_attempt", "side": "USA"})
    assert m.state.note == "USA may make one more attempt this turn"
    assert m.state.attempts_left("USA") == 1
    ok(m, att("USA", die=6))
    assert m.state.attempts_left("USA") == 0


def test_an_ability_on_two_boxes_of_an_owners_track_is_held_by_each() -> None:
    """"A special ability belongs only to the first player to reach its box and is cancelled as soon as the
    opponent reaches that box too."  A rules audit: an owner's track with two attempts on boxes 2 and 3; USA
    first at both, the USSR at box 2: only box 2 was looked at, and USA lost the ability it still held at box 3."""
    boxes = [dict(b) for b in load_track_data()["editions"]["deluxe"]["box"]]
    boxes[2] = dict(boxes[2], ability="two_attempts", ability_text="house rule: two attempts")
    m = Match.begin(GAME, {"track": boxes, "edition": "house"})
    ok(m, BEGIN, *[{"type": "event_advance", "side": "USA"}] * 3, *[{"type": "event_advance", "side": "USSR"}] * 2)
    assert m.state.holds("USA", "two_attempts")
    assert [b.number for b in m.state.active_abilities("USA")] == [3]  # box 2's is cancelled
    assert m.state.attempts_left("USA") == 2


def test_an_event_advance_scores_as_an_arrival_unless_the_table_says_no_vp() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so." — an event that advances scores the box as an arrival would; an event whose card scores only the
    last box it moves into is entered with ``vp = false`` for the box it passes (docs/RULINGS.md; a rules
    review: two plain advances scored both boxes), which still counts the arrival for the box's ability."""
    m = new()  # the Deluxe track: box 1 Earth Satellite 2/1 VP, box 2 none (two attempts), box 3 2/0
    ok(m, {"type": "event_advance", "side": "USA", "vp": False})  # box 1 passed on the way: its 2 VP not scored
    assert (m.state.side("USA").box, m.state.side("USA").vp) == (1, 0)
    assert m.state.note == "USA reached box 1 Earth Satellite first: no VP, as the event says"
    ok(m, {"type": "event_advance", "side": "USA"}, {"type": "event_advance", "side": "USA"})  # box 3 last: scored
    assert (m.state.side("USA").box, m.state.side("USA").vp) == (3, 2)
    assert m.state.holds("USA", "two_attempts")  # the arrival counts for the box's ability
    assert "vp=" in refused(m, {"type": "event_advance", "side": "USSR", "vp": "no"})
    ok(m, {"type": "event_advance", "side": "USSR"})  # scored as usual: second to box 1
    assert m.state.side("USSR").vp == 1


def test_no_attempt_left_says_which_rule_limits_it() -> None:
    """"One card per turn for the Space Race — except with the box-2 ability (two attempts) or events that
    say so." "A special ability belongs only to the first player to reach its box and is **cancelled as soon
    as the opponent reaches that box too**." — the refusal of one attempt too many names the rule that
    allows this many: one card per turn, two with box 2, more by an event, or box 2's two attempts lost
    the moment the opponent reached it too."""
    m = new()
    ok(m, BEGIN, att("USA", die=6))
    assert "one card per turn for the Space Race" in refused(m, att("USA"))
    m = new()
    reach(m, "USSR", 1)
    reach(m, "USA", 2)
    ok(m, END, BEGIN, att("USA", die=6), att("USA", die=6))
    said = refused(m, att("USA"))
    assert "2 of 2" in said and "two with box 2 Animal in Space" in said
    ok(m, END, BEGIN, att("USA", die=6), att("USSR", die=1))  # the USSR reaches box 2 too: cancelled at once
    said = refused(m, att("USA"))
    assert "1 of 1" in said and "one card per turn" in said
    assert "USSR reached box 2 Animal in Space too" in said and "cancelled" in said
    ok(m, {"type": "grant_attempt", "side": "USA"}, att("USA", die=6))
    assert "1 more by an event" in refused(m, att("USA"))


def test_attempts_made_before_the_second_was_cancelled_are_not_counted_as_too_many() -> None:
    """Both of box 2's attempts made, then the opponent reaches box 2: the refusal said "made 2 of 1 Space Race
    attempt allowed", a count that cannot be."""
    m = new()
    reach(m, "USSR", 1)
    reach(m, "USA", 2)
    ok(m, END, BEGIN, att("USA", die=6), att("USA", die=6), att("USSR", die=1))
    said = refused(m, att("USA"))
    assert said.startswith("USA has made 2 Space Race attempts this turn; 1 is allowed now (") and "2 of 1" not in said
    assert "USA's two attempts are cancelled" in said


def test_a_card_out_of_the_ops_range_is_refused_in_the_rules_words() -> None:
    """"plays a card whose operations value is ≥ the value printed on that box" — an impossible value is refused
    for what it is; the aside on scoring cards (not in the rules) was added to every value out of range."""
    m = new()
    ok(m, BEGIN)
    assert refused(m, att("USA", ops=5)) == "a card's operations value is 1 to 4, not 5"


# -- [seed] 6.4.3 ------------------------------------------------------------------------------------------


def test_vp_first_and_second_scored_at_once_and_add_up() -> None:
    """"Five boxes carry two VP numbers "first/second": VP to the first player to reach the box and to the
    second. VP are scored at once and add up." """
    m = new()
    assert sum(1 for b in m.state.track if b.vp_first is not None) == 5
    ok(m, BEGIN, att("USSR"))
    assert m.state.side("USSR").vp == 2  # Earth Satellite 2/1, first: scored at once
    ok(m, att("USA"))
    assert m.state.side("USA").vp == 1  # second
    reach(m, "USSR", 3)  # Man in Space 2/0
    assert m.state.side("USSR").vp == 4  # adds up
    reach(m, "USA", 3)
    assert m.state.side("USA").vp == 1  # second to Man in Space: 0
    views = {v.side: v for v in m.views()}
    assert views["USSR"].vp == 4 and views["USA"].vp == 1


# -- [seed] 6.4.4 ------------------------------------------------------------------------------------------


def test_ability_belongs_to_first_and_is_cancelled_when_the_opponent_arrives() -> None:
    """"A special ability belongs only to the first player to reach its box and is **cancelled as soon as
    the opponent reaches that box too**." """
    m = new()
    reach(m, "USSR", 1)
    reach(m, "USA", 2)
    assert m.state.holds("USA", "two_attempts")
    assert not m.state.holds("USSR", "two_attempts")
    ok(m, END, BEGIN, att("USA", die=6))  # USA uses 1 of its 2 attempts
    assert m.state.attempts_left("USA") == 1
    ok(m, att("USSR", die=1))  # the opponent arrives: cancelled at once, even mid-turn
    assert m.state.side("USSR").box == 2
    assert not m.state.holds("USA", "two_attempts")
    assert not m.state.holds("USSR", "two_attempts")
    assert m.state.attempts_left("USA") == 0
    assert {v.side: v.abilities for v in m.views()} == {"USA": (), "USSR": ()}


def test_abilities_take_effect_at_once_and_stack() -> None:
    """"Abilities take effect at once and stack." """
    m = new()
    reach(m, "USA", 8)
    assert [b.number for b in m.state.active_abilities("USA")] == [2, 4, 6, 8]
    ok(m, END)
    assert "USA's box 6: may discard one held card at end of turn" in m.state.note
    ok(m, BEGIN)
    # "the opponent" named: "USA: opponent reveals …" read as the USA's opponent or the reader's (a walkthrough)
    assert "USA's box 4: USSR reveals their headline first" in m.state.note
    assert "USA's box 8: eight action rounds per turn" in m.state.note
    usa = m.views()[0]
    assert usa.abilities == (
        "two Space Race attempts per turn", "opponent reveals their headline first",
        "may discard one held card at end of turn", "eight action rounds per turn",
    )


def test_turn_reminders_speak_the_editions_ability_words() -> None:
    """"Editions differ: the track is data, with the Deluxe track as the default and the seed's naming
    available as an edition." — the reminders at the start and end of a turn are the edition's own ability
    words, not the Deluxe ones: the seed (6.4.4) "Достигнув клетки 6 (Орбитальная Космическая Станция),
    игрок может сбросить свои удержанные карты по окончании хода в отбой" lets the player discard their
    held cards (all of them), where the Deluxe box 6 discards one."""
    m = new("seed")
    reach(m, "USA", 8)
    ok(m, END)
    assert "USA's box 6: may discard held cards at end of turn" in m.state.note
    assert "one held card" not in m.state.note and "a held card" not in m.state.note
    ok(m, BEGIN)
    assert "USA's box 4: sees USSR's headline before choosing" in m.state.note
    assert "USA's box 8: may play eight action rounds per turn" in m.state.note
    reach(m, "USSR", 6)  # the USSR reaches box 6 too: the USA's discard ends, the others go on
    ok(m, END)
    assert "discard" not in m.state.note


def test_seed_worked_example_ussr_reaches_box_4_before_usa_reaches_box_2() -> None:
    """The seed's example (6.4.4): "Игрок СССР достиг клетки 2. Уже со следующего раунда он может сыграть
    еще одну карту космической гонки. Если игрок СССР достиг клетки 4 прежде, чем игрок США достиг клетки
    2, то игрок СССР может сыграть две карты космической гонки за ход и в Заглавной фазе потребовать от
    игрока СССР вскрыть свою выбранную карту." — USSR reaches box 4 before the USA reaches box 2: it has
    two attempts per turn AND the USA reveals its headline first (the seed's second "СССР" is a slip for
    США: the ability is against the opponent)."""
    m = new()
    ok(m, BEGIN, att("USSR"))  # box 1
    ok(m, END, BEGIN, att("USSR"))  # box 2: from now on two attempts ("from the next round")
    assert m.state.attempts_left("USSR") == 1
    ok(m, att("USSR"))  # box 3, same turn
    ok(m, END, BEGIN, att("USSR"), att("USA"))  # USSR box 4, USA box 1 only
    assert m.state.side("USA").box < 2
    assert m.state.holds("USSR", "two_attempts") and m.state.holds("USSR", "opponent_headline_first")
    ok(m, END, BEGIN)
    assert m.state.attempts_left("USSR") == 2 and m.state.attempts_left("USA") == 1
    ussr = m.views()[1]
    assert "opponent reveals their headline first" in ussr.abilities
    assert "two Space Race attempts per turn" in ussr.abilities
    reach(m, "USA", 2)  # now the USA arrives at box 2: only that ability ends
    assert not m.state.holds("USSR", "two_attempts")
    assert m.state.holds("USSR", "opponent_headline_first")


# -- [seed] 6.4.5 / 6.4.6 ----------------------------------------------------------------------------------


def test_a_card_played_to_the_race_triggers_no_event() -> None:
    """"A card played to the Space Race never triggers its event; it is discarded." — the prompt says so
    while the die is awaited, and the screens carry the reminder."""
    m = new()
    ok(m, BEGIN)
    assert NO_EVENT in m.prompt().text
    ok(m, att("USA", die=None))
    assert NO_EVENT in m.prompt().text
    assert any(a.kind == "no_event" and a.text == NO_EVENT for a in m.views()[0].alerts)
    assert "no event" in NO_EVENT and "discard" in NO_EVENT


def test_no_attempts_after_the_last_box() -> None:
    """"A player who reached the last box may not play cards to the Space Race for the rest of the game." """
    m = new()
    reach(m, "USSR", 8)
    ok(m, END, BEGIN)
    assert "last box" in refused(m, att("USSR"))
    assert "last box" in refused(m, {"type": "grant_attempt", "side": "USSR"})
    assert "last box" in refused(m, {"type": "event_advance", "side": "USSR"})
    v = m.views()[1]
    assert v.finished and v.attempts_left == 0 and v.odds_percent is None


# -- [V] the track -----------------------------------------------------------------------------------------


def _rules_table() -> list[list[str]]:
    rows = []
    for line in RULES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows.append(cells)
    return rows


@pytest.mark.skipif(not RULES.exists(), reason="shared rules file not present")
def test_deluxe_track_matches_the_rules_table() -> None:
    """"The track (Deluxe edition names; numbers agree across four independent implementations) [V]":
    every row of the table (Box | Name | Ops needed | Success roll | VP 1st/2nd | Ability) is the packaged
    default edition."""
    m = new()
    rows = _rules_table()
    assert len(rows) == 8
    for box, row in zip(m.state.track, rows):
        number, name, ops, roll, vp, ability = row
        assert box.number == int(number) and box.name == name and box.ops == int(ops)
        assert f"{box.roll_low}–{box.roll_high}" == roll
        assert (vp == "–") if box.vp_first is None else vp == f"{box.vp_first}/{box.vp_second}"
        assert (ability == "–") if box.ability is None else ability == box.ability_text


def test_seed_edition_uses_the_translation_names() -> None:
    """"The seed's translation uses older names for the ability boxes (2 "Animals in Space", 4 "Man in
    Space", 6 "Orbital Space Station", 8 "Moon Base") and quotes "Lunar Orbit 4/2" as its example of a VP
    pair, where the Deluxe track prints 3/1 for Lunar Orbit and 4/2 for Space Shuttle." """
    m = new("seed")
    names = {b.number: b.name for b in m.state.track}
    assert (names[2], names[4], names[6], names[8]) == ("Animals in Space", "Man in Space", "Orbital Space Station", "Moon Base")
    deluxe = new().state.track
    assert [(b.ops, b.roll_low, b.roll_high, b.vp_first, b.vp_second, b.ability) for b in m.state.track] == [
        (b.ops, b.roll_low, b.roll_high, b.vp_first, b.vp_second, b.ability) for b in deluxe
    ]
    assert (deluxe[4].vp_first, deluxe[4].vp_second, deluxe[6].vp_first, deluxe[6].vp_second) == (3, 1, 4, 2)
    # the seed's example "«Lunar Orbit» is marked «4/2»" (6.4.3) names the box of 4/2; the 3/1 box it does not name
    # is not called Lunar Orbit there (one name for two boxes sends a table to the wrong box)
    assert (names[7], m.state.track[6].vp_first, m.state.track[6].vp_second) == ("Lunar Orbit", 4, 2)
    assert names[5] == "Box 5" and list(names.values()).count("Lunar Orbit") == 1
    # a box named only by its number is said once ("USA reached box 5 Box 5 first" was written)
    reach(m, "USA", 5)
    assert m.state.note == "USA reached box 5 first: +3 VP", m.state.note


def test_editions_are_data_deluxe_by_default() -> None:
    """"Editions differ: the track is data, with the Deluxe track as the default and the seed's naming
    available as an edition." — and the owner may pass a whole track of their own."""
    data = load_track_data()
    assert data["default"] == "deluxe" and set(data["editions"]) >= {"deluxe", "seed"}
    assert new().state.edition == "deluxe"
    assert GAME.start(tomllib.loads(EXAMPLE_SETUP))[0].data["edition"] == "deluxe"
    own = [dict(b) for b in data["editions"]["deluxe"]["box"]]
    own[0] = dict(own[0], name="Sputnik", roll=[1, 6])
    m = new(track=own, edition="house")
    assert m.state.edition == "house" and m.state.track[0].name == "Sputnik" and m.state.track[0].odds == 1
    # the first event carries the whole table: replay never depends on the file
    assert len(m.live_events()[0].data["track"]) == 8


# -- refusals ----------------------------------------------------------------------------------------------


def _box(i: int) -> dict[str, Any]:
    return {"number": i, "name": f"Box {i}", "ops": 2, "roll": [1, 3], "vp": [2, 1]}


@pytest.mark.parametrize(
    "options, needle",
    [
        ({"edition": "third"}, "edition"),
        ({"colour": "red"}, "unknown key"),
        ({"track": [{"number": 1}]}, "8 boxes"),
        # seen: a box with no ability written ability = "" was told "ability '' is unknown; use one of ..."
        ({"track": [dict(_box(i), ability="") for i in range(1, 9)]}, r"or leave ability out for none"),
        # seen: vp = ["2", 1] was told what vp must be, not what was written
        ({"track": [dict(_box(i), vp=["2", 1]) for i in range(1, 9)]}, r"not \['2', 1\]"),
    ],
)
def test_bad_setup_is_refused_with_a_reason(options: dict[str, Any], needle: str) -> None:
    from games.core import Illegal

    with pytest.raises(Illegal, match=needle):
        GAME.start(options)


def test_every_refusal_has_a_reason() -> None:
    m = new()
    assert "begin_turn" in refused(m, att("USA"))
    assert "no turn is on" in refused(m, END)
    ok(m, BEGIN)
    assert "still on" in refused(m, BEGIN)
    ok(m, att("USA", die=None, ops=2))  # a card waiting for its die: the way on is the die, not "end_turn first"
    assert "waiting for its die: roll the d6 before the next turn" in refused(m, BEGIN)
    m = new()
    ok(m, BEGIN)
    assert "USA" in refused(m, {"type": "attempt", "side": "UN", "ops": 3})
    assert "1 to 4" in refused(m, att("USA", ops=0))
    assert "ops" in refused(m, {"type": "attempt", "side": "USA"})
    assert "1 to 6" in refused(m, att("USA", die=7))
    assert "no card" in refused(m, {"type": "roll", "die": 3})
    ok(m, att("USA", die=None))
    assert "roll the d6" in refused(m, att("USSR"))
    assert "roll the d6" in refused(m, END)
    assert "unknown command" in refused(m, {"type": "launch"})
    assert m.state.pending is not None and re.search("1 to 6", refused(m, {"type": "roll", "die": 0}))


def test_views_show_box_vp_abilities_attempts_and_odds() -> None:
    m = new()
    ok(m, BEGIN)
    usa = m.views()[0]
    assert (usa.box, usa.vp, usa.abilities, usa.attempts_left) == (0, 0, (), 1)
    assert (usa.next_box, usa.next_ops, usa.next_roll, usa.odds_percent) == (1, 2, "1-3", 50)
    reach(m, "USA", 1)
    usa = m.views()[0]
    assert (usa.box, usa.box_name, usa.vp, usa.odds_percent) == (1, "Earth Satellite", 2, 67)


def test_an_owners_track_with_an_ability_but_no_words_speaks_the_rulebooks() -> None:
    """A rules audit: an owner's [[track]] giving box 2 ``ability = "two_attempts"`` without ``ability_text``
    was taken, and the table read "gains: " (nothing) when a side reached it; the example did not say the
    keys exist.  The packaged Deluxe words stand in."""
    boxes = [dict(b) for b in load_track_data()["editions"]["deluxe"]["box"]]
    for b in boxes:
        b.pop("ability_text", None)
    m = Match.begin(GAME, {"track": boxes})
    assert "ability" in EXAMPLE_SETUP and "ability_text" in EXAMPLE_SETUP
    m.apply(Command("begin_turn"))
    for box in (1, 2):
        out = m.apply(Command("attempt", {"side": "USSR", "ops": 4}))
        assert out.accepted, out.reason
        out = m.apply(Command("roll", {"die": 1}))
        assert out.accepted, out.reason
        if box == 1:
            m.apply(Command("end_turn"))
            m.apply(Command("begin_turn"))
    assert m.state.note.endswith("gains: two Space Race attempts per turn"), m.state.note
    assert "or end the turn" in GAME.prompt(m.state).text


def test_an_ability_gained_or_cancelled_and_the_turns_reminders_are_news_for_both_screens() -> None:
    """"A special ability belongs only to the first player to reach its box and is cancelled as soon as the
    opponent reaches that box too. Abilities take effect at once" — the screens said only "USA die 4: made
    it" while the USSR lost its two attempts: what changes play is the views' ``news`` (every screen is told)."""
    m = new()
    reach(m, "USSR", 1)
    # box 1 has no ability: its name, the arrival and its VP are told all the same (the VP were on the side's own
    # screen alone, once the menu had gone; an ability's news stood on over this box for 12 s)
    assert {v.news for v in m.views()} == {"USSR reached box 1 Earth Satellite first: +2 VP"}
    reach(m, "USSR", 2)
    assert {v.news for v in m.views()} == {"USSR reached box 2 Animal in Space first; USSR gains: two Space Race "
                                           "attempts per turn"}
    ok(m, END)
    assert {v.news for v in m.views()} == {""}
    reach(m, "USA", 2)
    news = m.views()[0].news
    assert news.startswith("USA reached box 2") and \
        news.endswith("; USSR's box 2 ability ends (two Space Race attempts per turn)")
    reach(m, "USA", 6)
    ok(m, END)
    assert m.views()[1].news == "USA's box 6: may discard one held card at end of turn"


def test_the_news_of_an_ability_names_the_sides_and_a_box_that_scores_says_its_0_vp() -> None:
    """"A special ability belongs only to the first player to reach its box and is cancelled as soon as the
    opponent reaches that box too."  A walkthrough read "…opponent reveals their headline first", a piece of the
    USSR's arrival at box 4, on the USA's screen as its own opponent, and "cancels USSR's may discard one held card
    at end of turn" did not parse; "USA reached box 3 Man in Space second" left its VP unsaid."""
    m = new()
    reach(m, "USSR", 4)
    assert m.views()[0].news == ("USSR reached box 4 Man in Earth Orbit first; USSR gains: USA reveals their "
                                 "headline first")
    reach(m, "USSR", 6)
    assert m.views()[0].news.endswith("; USSR gains: may discard one held card at end of turn")
    reach(m, "USA", 3)  # box 3 scores [2, 0]: the second's 0 said
    assert m.views()[0].news == "USA reached box 3 Man in Space second: 0 VP"
    reach(m, "USA", 4)
    assert m.views()[0].news == ("USA reached box 4 Man in Earth Orbit second; USSR's box 4 ability ends (USA "
                                 "reveals their headline first)")
    reach(m, "USA", 6)
    assert m.views()[0].news.endswith("; USSR's box 6 ability ends (may discard one held card at end of turn)")
