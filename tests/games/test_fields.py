"""games.core.fields: one checker of setup and command fields for every game (types, ranges, unknown keys).

Each test quotes the finding of the outside reliability run it answers."""

from __future__ import annotations

import tomllib
from typing import Any

import re

import pytest

from games.core import Command, Illegal, Match, fields
from games.gaslands import EXAMPLE_SETUP as GASLANDS_SETUP
from games.gaslands import GAME as GASLANDS
from games.grand_tour import EXAMPLE_SETUP as GRAND_TOUR_SETUP
from games.grand_tour import GAME as GRAND_TOUR
from games.space_race import GAME as SPACE_RACE
from games.thunder_road import EXAMPLE_SETUP as THUNDER_ROAD_SETUP
from games.thunder_road import GAME as THUNDER_ROAD

HUGE = 10**4400 - 1  # more digits than Python will print (4,300)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def refusal(game: Any, options: Any) -> str:
    with pytest.raises(Illegal) as err:
        game.start(options)
    return err.value.reason


def command_refusal(match: Match, command: dict[str, Any]) -> str:
    out = match.apply(Command(command["type"], {k: v for k, v in command.items() if k != "type"}))
    assert not out.accepted and out.reason
    return out.reason


# -- the helpers ------------------------------------------------------------------------------------------


def test_boolean_refuses_text_booleans_with_key_and_expected_type():
    assert fields.boolean({"on": False}, "on", True, "set_fire") is False
    assert fields.boolean({}, "on", True, "set_fire") is True
    for text in ("false", "no", "0", "true"):
        with pytest.raises(Illegal, match=r"set_fire: on must be true or false \(got '.*', text\)"):
            fields.boolean({"on": text}, "on", True, "set_fire")
    with pytest.raises(Illegal, match="must be true or false"):
        fields.boolean({"on": 1}, "on", True, "set_fire")


def test_whole_checks_type_and_range():
    assert fields.whole({"n": 3}, "n", 1, 5, "setup") == 3
    with pytest.raises(Illegal, match=r"setup: \[board\] tiles must be a whole number from 1 to 100 \(got 0\)"):
        fields.whole({"tiles": 0}, "tiles", 1, 100, "setup: [board]")
    with pytest.raises(Illegal, match=r"\(got true\)"):  # the file's word, not Python's True
        fields.whole({"n": True}, "n", 0, 5, "x")
    assert fields.show(None) == "nothing" and fields.show(False) == "false"
    with pytest.raises(Illegal, match="is required"):
        fields.whole({}, "n", 0, 5, "x")
    with pytest.raises(Illegal, match="about 4400 digits"):
        fields.whole({"n": HUGE}, "n", 0, 5, "x")


def test_text_and_choice():
    assert fields.text({"a": "x"}, "a", "w") == "x"
    with pytest.raises(Illegal, match=r"edition must be a text .*\(got \['deluxe'\]\)"):
        fields.text({"edition": ["deluxe"]}, "edition", "setup")
    assert fields.choice({"w": "light"}, "w", ("light", "heavy"), "w") == "light"
    with pytest.raises(Illegal, match="did you mean 'heavy'"):
        fields.choice({"w": "haevy"}, "w", ("light", "heavy"), "setup: [x]")
    with pytest.raises(Illegal, match="one of light, heavy"):
        fields.choice({"w": ["light"]}, "w", ("light", "heavy"), "setup: [x]")


def test_only_keys_names_the_known_keys_and_the_likeliest():
    fields.only_keys({"pole": "A"}, ("pole", "push_it"), "setup: [scenario]")
    with pytest.raises(Illegal) as err:
        fields.only_keys({"scenaro": {}}, ("players", "scenario", "chart"), "setup")
    assert "'scenaro'" in err.value.reason and "did you mean 'scenario'" in err.value.reason
    assert "chart, players, scenario" in err.value.reason


def test_show_never_fails():
    assert "digits" in fields.show(HUGE)
    assert fields.show([HUGE])  # nested huge number
    assert fields.show(nested(100_000))
    assert len(fields.show("x" * 10_000)) < 100


def test_plain_refuses_deep_nesting_huge_numbers_and_long_texts_without_recursion():
    fields.plain({"a": [1, 2, {"b": "c"}]}, "setup")
    with pytest.raises(Illegal, match="nested more than"):
        fields.plain({"a": nested(100_000)}, "setup")
    with pytest.raises(Illegal, match="no count in a game is that large"):
        fields.plain({"die": HUGE}, "roll")
    with pytest.raises(Illegal, match="characters"):
        fields.plain({"name": "x" * 100_000}, "setup")
    with pytest.raises(Illegal, match="finite"):
        fields.plain({"x": float("nan")}, "setup")


# -- finding 5: text booleans, misspelt keys ---------------------------------------------------------------


def test_finding_5_text_booleans_are_refused_in_every_game():
    """5. "Text booleans count as true: `specialties = "false"`, `peloton = "no"`, `"pack": "false"`." """
    gt = tomllib.loads(GRAND_TOUR_SETUP)
    assert "specialties must be true or false" in refusal(GRAND_TOUR, {**gt, "specialties": "false"})
    assert "peloton must be true or false" in refusal(GRAND_TOUR, {**gt, "peloton": "no"})
    assert "cooperation must be true or false" in refusal(GRAND_TOUR, {**gt, "cooperation": "yes"})
    gl = tomllib.loads(GASLANDS_SETUP)
    reason = refusal(GASLANDS, {**gl, "scenario": {**gl["scenario"], "push_it": "false"}})
    assert "setup: [scenario] push_it must be true or false (got 'false', text)" in reason


def test_finding_5_pack_false_as_text_is_refused():
    """5. "`"pack": "false"`" counted as true; now refused with the key and the expected type."""
    m = Match.begin(GRAND_TOUR, tomllib.loads(GRAND_TOUR_SETUP))
    assert m.apply(Command("cross", {"rider": "red.sprinteur", "squares": 2})).accepted
    assert "pack must be true or false" in command_refusal(m, {"type": "end_round", "pack": "false"})
    reason = command_refusal(m, {"type": "finish_round", "crossed": [], "pack": "false"})
    assert reason  # refused (a round is being entered crosser by crosser)
    assert m.apply(Command("end_round", {"pack": False})).accepted


def test_finding_5_command_booleans_in_gaslands_and_thunder_road():
    m = Match.begin(GASLANDS, tomllib.loads(GASLANDS_SETUP))
    assert "set_fire: on must be true or false (got 'no', text)" in command_refusal(
        m, {"type": "set_fire", "vehicle": "rust", "on": "no"})
    tr = Match.begin(THUNDER_ROAD, tomllib.loads(THUNDER_ROAD_SETUP))
    assert "on_fire must be true or false" in command_refusal(
        tr, {"type": "damage", "vehicle": "Ana/small", "on_fire": "false"})


@pytest.mark.parametrize(
    "game,setup",
    [(GASLANDS, GASLANDS_SETUP), (THUNDER_ROAD, THUNDER_ROAD_SETUP), (GRAND_TOUR, GRAND_TOUR_SETUP)],
)
def test_finding_5_misspelt_top_level_keys_are_refused_in_every_game(game, setup):
    """5. "today Gaslands and Thunder Road silently drop misspelt keys (`[scenaro] pole = "Bob"`), Space
    Race and Grand Tour refuse them." """
    options = {**tomllib.loads(setup), "scenaro": {"pole": "Bob"}}
    reason = refusal(game, options)
    assert "unknown key 'scenaro'" in reason and "the keys here are" in reason
    assert "unknown key 'editon'" in refusal(SPACE_RACE, {"editon": "deluxe"})


def test_finding_5_misspelt_keys_inside_gaslands_tables():
    gl = tomllib.loads(GASLANDS_SETUP)
    reason = refusal(GASLANDS, {**gl, "scenario": {"pole": "Bob", "pole_pasing": "never"}})
    assert "setup: [scenario]: unknown key 'pole_pasing' (did you mean 'pole_passing'?)" in reason
    gl["players"][0]["vehicles"][0]["tpye"] = "car"
    assert "did you mean 'type'" in refusal(GASLANDS, gl)


def test_finding_5_misspelt_keys_inside_thunder_road_tables():
    tr = tomllib.loads(THUNDER_ROAD_SETUP)
    assert "did you mean 'on_board'" in refusal(THUNDER_ROAD, {**tr, "board": {**tr["board"], "onboard": 3}})
    tr["players"][0]["vehicle"] = ["small"]
    assert "did you mean 'vehicles'" in refusal(THUNDER_ROAD, tr)


def test_finding_5_a_wrong_type_is_refused_with_the_key_and_the_expected_type():
    gl = tomllib.loads(GASLANDS_SETUP)
    reason = refusal(GASLANDS, {**gl, "scenario": {"pole_passing": ["never"]}})
    assert "pole_passing must be one of" in reason and "got ['never']" in reason


# -- finding 7: bounds on every count ---------------------------------------------------------------------


@pytest.mark.parametrize("tiles", [100_000_000, 1_000_000, 101, 0, -3])
def test_finding_7_thunder_road_tiles_are_bounded(tiles):
    """7. "Thunder Road `tiles` has no upper bound (`100000000` → MemoryError after 11 s; `1000000` writes
    a 10 MB first event)." """
    tr = tomllib.loads(THUNDER_ROAD_SETUP)
    tr["board"] = {"tiles": tiles, "on_board": 3}
    assert "tiles must be a whole number from 1 to 100" in refusal(THUNDER_ROAD, tr)


def test_finding_7_other_counts_are_bounded():
    tr = tomllib.loads(THUNDER_ROAD_SETUP)
    tr["board"] = {"tiles": [str(i) for i in range(500)], "on_board": 3}
    assert "at most 100" in refusal(THUNDER_ROAD, tr)
    tr = tomllib.loads(THUNDER_ROAD_SETUP)
    tr["players"][0]["vehicles"] = ["small"] * 1000
    assert "1 to 9 vehicles" in refusal(THUNDER_ROAD, tr)
    gl = tomllib.loads(GASLANDS_SETUP)
    gl["players"][0]["vehicles"] = [{"type": "buggy"}] * 50
    assert "at most 20" in refusal(GASLANDS, gl)
    m = Match.begin(GASLANDS, tomllib.loads(GASLANDS_SETUP))
    reason = command_refusal(m, {"type": "gain_hazard", "vehicle": "rust", "count": 10**9})
    assert "gain_hazard: count must be a whole number from 1 to 30 (got 1000000000)" in reason


# -- finding 9: clear refusals, never tracebacks ----------------------------------------------------------


def test_finding_9_space_race_edition_as_a_list_is_refused():
    """9. "`edition = [...]` in a Space Race setup" must be a clear refusal."""
    reason = refusal(SPACE_RACE, {"edition": ["deluxe"]})
    assert "setup: edition must be an edition name" in reason and "['deluxe']" in reason


def test_finding_9_gaslands_chart_as_a_string_is_refused():
    """9. "`chart` as a string" must be a clear refusal."""
    assert "chart must be a table" in refusal(GASLANDS, {**tomllib.loads(GASLANDS_SETUP), "chart": "all permitted"})


@pytest.mark.parametrize(
    "game,command",
    [
        (SPACE_RACE, {"type": "begin_turn", "note": HUGE}),
        (GRAND_TOUR, {"type": "exhaustion", "rider": "red.sprinteur", "cards": HUGE}),
        (GASLANDS, {"type": "gain_hazard", "vehicle": "rust", "count": HUGE}),
        (THUNDER_ROAD, {"type": "roll", "player": "Ana", "dice": [HUGE, 1, 2, 3]}),
    ],
)
def test_finding_9_an_integer_of_more_than_4300_digits_in_a_command_is_refused(game, command):
    """9. "an integer of more than 4,300 digits in a script line" must be a clear refusal (Illegal with a
    reason), never a traceback."""
    setups = {GASLANDS: GASLANDS_SETUP, THUNDER_ROAD: THUNDER_ROAD_SETUP, GRAND_TOUR: GRAND_TOUR_SETUP}
    m = Match.begin(game, tomllib.loads(setups[game]) if game in setups else {})
    assert "no count in a game is that large" in command_refusal(m, command)


@pytest.mark.parametrize(
    "game,setup",
    [(GASLANDS, GASLANDS_SETUP), (THUNDER_ROAD, THUNDER_ROAD_SETUP), (GRAND_TOUR, GRAND_TOUR_SETUP), (SPACE_RACE, "")],
)
def test_finding_9_deeply_nested_and_huge_values_in_a_setup_are_refused(game, setup):
    """9. "... deeply nested values too." """
    base = tomllib.loads(setup)
    first = next(iter(base), "edition")
    assert "nested more than" in refusal(game, {**base, first: nested(50_000)})
    assert "no count in a game is that large" in refusal(game, {**base, first: HUGE})


@pytest.mark.parametrize("game", [GASLANDS, THUNDER_ROAD, GRAND_TOUR, SPACE_RACE])
def test_finding_9_deeply_nested_command_arguments_are_refused(game):
    setups = {GASLANDS: GASLANDS_SETUP, THUNDER_ROAD: THUNDER_ROAD_SETUP, GRAND_TOUR: GRAND_TOUR_SETUP}
    m = Match.begin(game, tomllib.loads(setups[game]) if game in setups else {})
    assert "nested more than" in command_refusal(m, {"type": "undo_not", "x": nested(50_000)})


@pytest.mark.parametrize("game", [GASLANDS, THUNDER_ROAD])
def test_a_player_name_far_too_long_is_not_quoted_back_whole(game):
    """A 200-character name (a paste gone wrong) was quoted whole twice in the refusal, 326 characters on a
    phone and pages of an OLED; it is named by its place and shown cut."""
    setups = {GASLANDS: GASLANDS_SETUP, THUNDER_ROAD: THUNDER_ROAD_SETUP}
    base = tomllib.loads(setups[game])
    base["players"][0]["name"] = "A" * 200
    said = refusal(game, base)
    assert said.startswith("setup: [[players]] name must be a text of 1 to 40 characters") and len(said) < 160, said


@pytest.mark.parametrize("name", ["gaslands", "thunder_road", "space_race", "grand_tour"])
def test_each_game_names_the_keys_its_setup_takes(name: str) -> None:
    """``SETUP_KEYS`` (which the device reads to say "this looks like a Thunder Road setup") is what the
    game's ``start`` takes: a key beyond it is refused with that list, and its example uses only those."""
    from games import game_package

    pkg = game_package(name)
    example = tomllib.loads(pkg.EXAMPLE_SETUP)
    assert set(example) <= set(pkg.SETUP_KEYS)
    with pytest.raises(Illegal) as refused:
        pkg.GAME.start({**example, "zz_not_a_key": 1})
    assert refused.value.reason.endswith(f"the keys here are {', '.join(sorted(pkg.SETUP_KEYS))}")


def test_a_text_too_long_says_how_long_it_is() -> None:
    """An audit: a 49-character player's name was told "must be a text of 1 to 40 characters, in quotes (got
    'Maximilian-Alexan...', text)": quoted, a text, and its length never said."""
    import pytest

    from games.core import Illegal
    from games.core import fields

    with pytest.raises(Illegal) as refused:
        fields.text({"name": "x" * 49}, "name", "[[players]]", max_len=40)
    assert str(refused.value).endswith("; it is 49 characters long")
    with pytest.raises(Illegal) as refused:
        fields.text({"name": "  "}, "name", "[[players]]", max_len=40)
    assert "characters long" not in str(refused.value)


def test_too_many_gaslands_players_says_how_many_were_given() -> None:
    """Rulebook: a Gaslands game seats 2 to 6 players; seven were told "needs 2 to 6 players" without the 7."""
    import pytest

    from games.core import Illegal
    from games.gaslands import rules

    with pytest.raises(Illegal, match=r"needs 2 to 6 players \(7 given\)"):
        rules.start({"players": [{"name": f"P{i}"} for i in range(7)]})


@pytest.mark.parametrize(("name", "code"), [("Bo\nb", "U+000A"), ("Bob\u0007", "U+0007"), ("Alice\u200b", "U+200B")])
@pytest.mark.parametrize("game", ["gaslands", "thunder_road"])  # (the Grand Tour's teams are a-z, 0-9 and _)
def test_a_name_with_an_invisible_or_control_character_is_refused(game: str, name: str, code: str) -> None:
    """A bad-input audit: "Bo\\nb", "Bob\\a" and "Alice\\u200b" (a zero-width space) were taken as players;
    "Alice\\u200b" was another player than "Alice", and both drew as "Alice" on the screens."""
    import tomllib

    from games import game_package

    module = game_package(game)
    options = tomllib.loads(module.EXAMPLE_SETUP)
    options["players"][1]["name"] = name
    with pytest.raises(Illegal, match=re.escape(f"holds an invisible or control character ({code})")):
        module.GAME.start(options)


@pytest.mark.parametrize("game", ["gaslands", "thunder_road"])
def test_a_name_written_as_a_number_is_told_to_be_quoted(game: str) -> None:
    """A bad-input audit: name = 42 was "player 2 needs a name", though one was given, unquoted."""
    from games import game_package

    module = game_package(game)
    options = tomllib.loads(module.EXAMPLE_SETUP)
    options["players"][1]["name"] = 42
    with pytest.raises(Illegal, match=re.escape("player 2's name must be a text in quotes (got 42): name = \"42\"")):
        module.GAME.start(options)
