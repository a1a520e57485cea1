"""The game log (/log/N) and the live page's Last commands read in each game's own words, not Gaslands' and not
the program's: found by a play-tester reading a Grand Tour and a Space Race on a phone."""

from __future__ import annotations

import importlib
import tomllib

import pytest

from device.web.timeline import timeline
from games import game_package
from games.core import Command, Match


def _demo(game: str) -> tuple[object, Match]:
    """A real match of ``game`` played through its demo script (the refused commands are refused here too)."""
    module = game_package(game)
    setup, commands = importlib.import_module(f"games.{game}.demo").demo_script()
    match = Match.begin(module.GAME, tomllib.loads(setup))
    for c in commands:
        match.apply(Command.from_json(c))
    return module, match


def _all_words(tl) -> str:
    return " ".join([h for h, _ in tl.groups()] + [w for _, acts in tl.groups() for w, _ in acts]
                    + [e.text for e in tl.entries])


def test_grand_tour_headings_say_the_stage_not_a_gear_phase():
    """Seen on the Grand Tour's log: "Round 0 · gear phase Phase.RACING" (a Gaslands term and the program's
    name for the phase), and "Round 3 · gear phase Phase.BETWEEN_STAGES" over the exhaustion counts."""
    module, match = _demo("grand_tour")
    heads = [h for h, _ in timeline(module.GAME, match.records).groups()]
    assert heads[:6] == ["Set-up", "Before stage 1 · specialties", "Stage 1 · round 1 at the line",
                         "Stage 1 · round 2 at the line", "Stage 1 · round 3 at the line", "After stage 1 · exhaustion cards"]
    assert "Stage 2 · round 1 at the line" in heads
    assert not [h for h in heads if "gear phase" in h or "Phase." in h]
    # each game heads its own log: Gaslands' reads as it did ("Round 1 · gear phase 2")
    gaslands, played = _demo("gaslands")
    assert [h for h, _ in timeline(gaslands.GAME, played.records).groups()][:3] == [
        "Set-up", "Round 1 · gear phase 1", "Round 1 · gear phase 2"]


def test_grand_tour_set_up_and_rounds_read_as_the_rulebook_says_them():
    """Seen on the Grand Tour's log: "tour set: cards [{id 1, known no, …" and "round finished: 1, crossed
    [{bonus yes, place 1, …}], log [red.sprinteur did not cross: … -> col 3 row 0": the events' data."""
    module, match = _demo("grand_tour")
    tl = timeline(module.GAME, match.records)
    assert tl.entries[0].text == "Grand Tour set: 3 teams (red, blue, green), 2 stages, specialties, cooperation allowed"
    first_round = next(e.text for e in tl.entries if "round 1 at the line" in e.text)
    assert first_round == "round 1 at the line: 1st green Sprinteur +3 (10 s bonus), 2nd red Sprinteur +2 (10 s bonus)"
    stage = next(e.text for e in tl.entries if "stage 1 finished" in e.text)
    assert "stage 1 finished: points green 3, red 2, blue 1; order green Sprinteur, red Sprinteur" in stage
    words = _all_words(tl)
    # specialties and the exhaustion carried over, as the rules say them (they read "specialties dealt: cards [1,
    # 2], team red" and "exhaustion noted: cards 5, discard 2, keep 3")
    for said in ("red is dealt specialty cards 1 and 2", "red Sprinteur keeps specialty card 2, discards 1",
                 "red Rouleur: 5 exhaustion cards, discards 2, keeps 3 for the next stage", "stage 2 starts"):
        assert said in words, said
    for program in ("{", "[", "->", "col ", "red.sprinteur", "Phase.", "None", "known no", "exhaustion noted",
                    "specialties dealt"):
        assert program not in words, program


def test_space_race_turns_are_headed_by_the_turn_and_name_the_side():
    """Seen on the Space Race's log: every turn listed under "Set-up" (the track has no round), each attempt
    under "the table"."""
    module, match = _demo("space_race")
    tl = timeline(module.GAME, match.records)
    groups = tl.groups()
    assert [h for h, _ in groups] == ["Set-up", "Turn 1", "Turn 2", "Turn 3", "Turn 4"]
    turn1 = dict(groups[1][1][:3])
    assert [w for w, _ in groups[1][1]] == ["the table", "USSR", "USA", "the table"]
    # each in the rules' words (it read "USA: die rolled: 5, box 1, success no": the event's data)
    assert turn1["USSR"][0].text == ("USSR plays a card of 2 Ops on the Space Race; USSR rolls 2 for box 1: success; "
                                     "USSR reaches box 1, first: 2 VP")
    assert [e.text for e in turn1["USA"]] == ["USA plays a card of 3 Ops on the Space Race",
                                              "USA rolls 5 for box 1: failure"]


def test_space_race_set_up_in_a_few_words():
    """Seen on the Space Race's log, its first line: "race set: edition deluxe, track [{ability None, …" (the
    track's table, with the program's None)."""
    module, match = _demo("space_race")
    tl = timeline(module.GAME, match.records)
    assert tl.entries[0].text == "Space Race set: Deluxe edition, 8 boxes (Earth Satellite to Space Station)"
    assert "None" not in _all_words(tl) and "{" not in _all_words(tl)


def test_thunder_road_headings_say_whose_turn_and_the_set_up_who_drives_what():
    """Seen on Thunder Road's log: one heading "Round 1" over both players' turns, and a first line "game
    started" that said nothing of the game."""
    module, match = _demo("thunder_road")
    tl = timeline(module.GAME, match.records)
    heads = [h for h, _ in tl.groups()]
    assert heads[:4] == ["Set-up", "Round 1", "Round 1 · Ana's turn", "Round 1 · Ben's turn"]
    assert tl.entries[0].text == ("Thunder Road set: Ana (small car, medium car, large car), Ben (small car, "
                                  "medium car, large car); a road of 5 tiles; Ana first")


def test_thunder_road_log_names_each_vehicle_as_its_owner_does_and_says_moves_and_fire():
    """Seen on Thunder Road's log: "Ana/small: moved: passed Ben/medium, spaces 4", "bump placed: moved
    Ana/small", "fire rolled: face fire3, moves 0": the rules' ids and the events' data."""
    module, match = _demo("thunder_road")
    said = " | ".join(e.text for e in timeline(module.GAME, match.records).entries)
    for words in ("Ana: movement dice 2, 3, 4, 6", "Ana: Drift command, die 3", "Ana's small car: movement die 4",
                  "Ana's small car moves 4 spaces, drifting past Ben's medium car",
                  "Ana's small car takes a damage token: ON FIRE!",
                  "Ben's small car coasts (die 5 on its coast space): a move of 1",
                  "Bump: Ana's small car moved",
                  "Ana's small car: Fire die fire3: a face fire_die.toml does not say: the table rules on it"):
        assert words in said, words
    for program in ("Ana/", "Ben/", "[", "{", "None", "dice rolled", "fire rolled"):
        assert program not in said, program


@pytest.fixture
def space_table(tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from web_helpers import Table

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    (tmp_path / "space").mkdir()
    t = Table(tmp_path / "space", "space_race")  # its own log: the Gaslands table's is in tmp_path
    yield t
    t.close()


def test_last_commands_name_whose_step_it_was(table, space_table):
    """Seen under Last commands: "[web] skid roll: faces [HAZARD, SLIDE]" (whose skid dice?) and "[web] roll:
    die 2" (which side rolled?)."""
    space = space_table.app
    space.apply(Command("begin_turn"), source="web")
    space.apply(Command("attempt", {"side": "USA", "ops": 3}), source="web")
    space.apply(Command("roll", {"die": 2}), source="web")
    said = [space.words_of(a) for a in space.history]
    assert said == ["begin turn", "attempt: side USA, ops 3", "USA: roll: die 2"]

    app = table.app
    app.apply(Command("choose_template", {"template": "turn", "hand": "left"}), source="web")
    app.apply(Command("place_template"), source="web")
    app.apply(Command("skid_roll", {"faces": ["HAZARD", "SLIDE"]}), source="web")
    assert app.words_of(app.history[-1]).startswith("Alice: skid roll: faces [HAZARD, SLIDE]")
    table.step()
    listed = [c for _s, c, _a, _r in table.web.hub.snapshot.commands]
    assert any(c.startswith("Alice: skid roll: faces [HAZARD, SLIDE]") for c in listed)


def test_an_event_on_a_screen_says_its_lists_without_brackets_and_names_as_they_are() -> None:
    """A review: UNDONE's words dropped every bracket, a car's name's too ("Rust [2]"); only the log's list
    brackets go (a banner piece read "HAZARD]")."""
    from device.web.timeline import describe
    from games.core import Event

    event = Event("skid_rolled", {"vehicle": "r2", "faces": ["SHIFT", "SPIN", "HAZARD"]})
    assert describe(event, {"r2": "Rust [2]"}, screen=True) == "Rust [2]: skid rolled: faces SHIFT, SPIN, HAZARD"
    assert describe(event, {"r2": "Rust [2]"}) == "Rust [2]: skid rolled: faces [SHIFT, SPIN, HAZARD]"


def test_gaslands_log_says_attacks_crashes_and_smash_attacks_in_the_rulebooks_words():
    """Seen on the Gaslands log: "Rust Bucket: collided: both evaded no, hazards each 2, kind t bone, other The
    Brick, smash [2 entries], smash dice 1", "hits taken: cause smash by brick" (the set-up's id) and "game
    started" for the set-up: the events' data. Gaslands now says its events as the rulebook does, each car by
    its name."""
    module, match = _demo("gaslands")
    tl = timeline(module.GAME, match.records)
    said = " | ".join(e.text for e in tl.entries)  # (a decision's events are one entry, joined by "; ")
    assert said.startswith("Gaslands set: Alice (Rust Bucket), Bob (The Brick); pole Alice; Rust Bucket activates")
    for words in (
        "Attack: Rust Bucket on The Brick: rolled 5, 2; evade 3; 1 hit, 0 evaded, 1 taken",
        "The Brick takes 1 hit (attack by Rust Bucket)",
        "Rust Bucket: Turn refused, not permitted in gear 5; touch-move: Bob picks, no skid dice",
        "Rust Bucket and The Brick: T-bone, 2 hazard tokens each; smash dice Rust Bucket 1, The Brick 2 (± weight)",
        "Smash: Rust Bucket on The Brick (T-bone): rolled 5; evade 3, 6; 1 hit, 1 evaded, 0 taken",
        "Smash: The Brick on Rust Bucket (T-bone): rolled 6, 4; evade 2; 3 hits, 0 evaded, 3 taken",
        "Rust Bucket takes 3 hits (smash by The Brick)",
        "Rust Bucket loses control: gear 1 (was 4), its hazard tokens removed",
        "Rust Bucket: flip check, rolled 2 (gear 4): flipped",
        "Bob's turn to activate; The Brick activates",  # (it read "turn passed: seat 1")
    ):
        assert words in said, words
    words = _all_words(tl)
    for program in ("{", "[", "_", "entries", " by rust", " by brick", "status unknown", "None", "game started",
                    "seat"):
        assert program not in words, program


def test_gaslands_words_for_a_car_the_set_up_did_not_name_and_a_game_ended_by_the_table() -> None:
    """The words take the cars' names from the log; a car it does not name is said by its id, not dropped."""
    from games.core import Event
    from games.gaslands.log_words import timeline_words

    assert timeline_words(Event("hits_taken", {"vehicle": "x9", "count": 2, "cause": "smash by rust"}),
                          {"rust": "Rust Bucket"}) == "x9 takes 2 hits (smash by Rust Bucket)"
    # a log from before the turn's event named its player: the seat, counted as the owner counts
    assert timeline_words(Event("turn_passed", {"seat": 1})) == "player 2's turn to activate"
    assert timeline_words(Event("game_over", {"reason": "ended by the table", "winner": "Ana"})) == \
        "Game over: ended by the table; Ana wins"
    assert timeline_words(Event("fire_set", {"vehicle": "rust", "on": False}), {"rust": "Rust Bucket"}) == \
        "Rust Bucket's fire is out"
    assert timeline_words(Event("flip_checked", {"vehicle": "rust", "die": None, "old_gear": 1, "flipped": False}),
                          {"rust": "Rust Bucket"}) == "Rust Bucket: turned; no flip check in gear 1 (no d6 is lower)"
    # a push re-rolls dice at positions (0 and 2), not of faces 0 and 2
    assert timeline_words(Event("skid_dice_pushed", {"vehicle": "rust", "reroll": [0, 2], "faces": ["SHIFT", "SPIN"]}),
                          {"rust": "Rust Bucket"}) == "Rust Bucket pushes it: 2 skid dice re-rolled: SHIFT, SPIN"
    # a phase passed over names the cars that missed their activation (a review: the words had dropped them)
    assert timeline_words(Event("gear_phase_started", {"round": 1, "phase": 4, "pole": 0, "turn": 0, "skipped": 3,
                                                       "passed_over": ["rust"]}), {"rust": "Rust Bucket"}) == \
        "Round 1, gear phase 4 begins; phase 3 passed over Rust Bucket"
    # a crash in a log from before each car's smash attack was listed keeps its smash dice
    assert timeline_words(Event("collided", {"vehicle": "rust", "other": "brick", "both_evaded": False, "hazards_each": 2,
                                             "kind": "head_on", "smash_dice": 6, "weight_dice": 0}),
                          {"rust": "Rust Bucket", "brick": "The Brick"}) == \
        "Rust Bucket and The Brick: Head-on, 2 hazard tokens each; smash dice 6"
    assert timeline_words(Event("step_entered", {"step": "1.3 skid check"})) is None  # said by the log's reading


def test_a_steps_own_page_says_a_long_entry_whole(tmp_path):
    """A phone audit: a five-player Thunder Road's set-up and a five-team stage's finishing order were cut at 160
    characters on the timeline and on the step's own page: the fifth player, and the fifth team's finish, were on
    no page."""
    import tomllib

    import games.thunder_road as thunder_road
    from device.web.pages import replay_page
    from device.web.timeline import timeline
    from games.core import Match

    options = tomllib.loads(thunder_road.EXAMPLE_SETUP)
    options["players"] = [{"name": n, "vehicles": ["small", "medium", "large"]}
                          for n in ("Anastasia", "Benedikt", "Cyprian", "Dorothea")] + [
        {"name": "Evangeline", "vehicles": ["small", "medium", "large", "big_rig"]}]
    options["first_player"] = "Anastasia"
    m = Match.begin(thunder_road.GAME, options)
    entry = timeline(thunder_road.GAME, m.records).entries[0]
    assert "Evangeline" not in entry.text and entry.text.endswith("…")  # the timeline's line stays short
    assert "Evangeline" in entry.whole
    assert "Evangeline" in replay_page(1, 0, entry, ["Anastasia"], 3)
