"""Setup refusals in the owner's words: what play-testers typing setups on a phone were told, and what they
are told now.  Each refusal names what the owner wrote (a player counted from 1, a misspelt key, a name, a
car's name), never the rules' internal counts and ids."""

from __future__ import annotations

from typing import Any

import pytest

from device.setup_files import setup_refused
from games import game_package
from games.core import Illegal, Match


def refusal(game: str, options: dict[str, Any]) -> str:
    with pytest.raises(Illegal) as refused:
        game_package(game).GAME.start(options)
    return refused.value.reason


def gaslands(*players: dict[str, Any]) -> dict[str, Any]:
    return {"players": list(players)}


def car(**more: Any) -> list[dict[str, Any]]:
    return [{"type": "car", **more}]


def road(*players: Any) -> dict[str, Any]:
    return {"players": list(players), "board": {"tiles": 6, "on_board": 3, "final": "6"}}


def test_a_player_with_no_name_is_counted_as_the_owner_counts() -> None:
    """Seen (Gaslands, the first player's name left empty): "players[0] needs a name", counted from 0
    where Thunder Road says "player 3 needs a name".  Every game counts the first player as player 1."""
    said = refusal("gaslands", gaslands({"name": "", "vehicles": car()}, {"name": "Bob", "vehicles": car()}))
    assert said == "setup: player 1 needs a name", said
    said = refusal("gaslands", gaslands({"name": "Ann", "vehicles": car()}, {"name": " ", "vehicles": car()}))
    assert said == "setup: player 2 needs a name", said
    assert refusal("thunder_road", road("Ann", "Bob", {"name": ""})) == "player 3 needs a name"


@pytest.mark.parametrize("game", ["thunder_road", "gaslands"])
def test_a_misspelt_name_key_is_named_before_a_missing_name(game: str) -> None:
    """Seen (Thunder Road, `nmae = "Alice"` in the fifth player's table): "player 5 needs a name (without
    '/')"; Gaslands said "players[4] needs a name".  The unknown key is named first, with the one meant."""
    if game == "thunder_road":
        options = road("Ann", "Bob", "Cy", "Di", {"nmae": "Alice"})
    else:
        options = gaslands(*({"name": n, "vehicles": car()} for n in ("Ann", "Bob", "Cy", "Di")),
                           {"nmae": "Alice", "vehicles": car()})
    said = refusal(game, options)
    assert said.startswith("setup: player 5: unknown key 'nmae' (did you mean 'name'?)"), said
    assert "needs a name" not in said


def test_two_players_of_one_name_are_named() -> None:
    """Seen (Thunder Road, two players called Ana): "two players have the same name": which name?"""
    assert refusal("thunder_road", road("Ana", "Bob", "Ana")) == \
        "two players are called 'Ana'; give each a different name"


@pytest.mark.parametrize(
    "game, options, spelt",
    [
        ("gaslands", gaslands({"name": "Alice", "vehicles": car()}, {"name": "alice ", "vehicles": car()}),
         "'Alice' and 'alice '"),
        ("thunder_road", road("Alice", "Bob", "alice "), "'Alice' and 'alice '"),
        ("grand_tour", {"stages": 2, "teams": ["Red", "blue", "red "]}, "'Red' and 'red '"),
    ],
)
def test_names_apart_only_by_capitals_or_spaces_are_one_player(game: str, options: dict[str, Any],
                                                               spelt: str) -> None:
    """Seen (Gaslands): "Alice" and "alice " were taken as two players (Thunder Road too; Grand Tour, which
    keeps team names lower-case, said "two teams have the same name" without saying which).  At a table
    they are one name: refused, with both spellings."""
    said = refusal(game, options)
    assert f"{spelt} are one name at the table (capitals and spaces aside)" in said, said


def test_a_marker_on_two_cars_names_the_cars_as_the_owner_did() -> None:
    """Seen (Gaslands, two cars given tag 10): "marker 10 is on two vehicles, alice-1 and bob-1": ids the
    owner never wrote.  The cars are named as the setup names them (or as the screens call an unnamed one)."""
    said = refusal("gaslands", gaslands({"name": "Alice", "vehicles": car(name="Rust Bucket", tag=10)},
                                        {"name": "Bob", "vehicles": car(name="The Brick", tag=10)}))
    assert said.startswith("setup: marker 10 is on two vehicles, 'Rust Bucket' (Alice's) and 'The Brick' "
                           "(Bob's): give each car its own tag"), said
    said = refusal("gaslands", gaslands({"name": "Alice", "vehicles": car(tag=10)},
                                        {"name": "Bob", "vehicles": car(tag=10)}))
    assert "marker 10 is on two vehicles, \"Alice's Car\" and \"Bob's Car\"" in said, said
    assert "alice-1" not in said and "bob-1" not in said


def test_space_race_says_it_has_no_players_to_name() -> None:
    """Seen (Space Race, a [[players]] block): "unknown key 'players'; ... this looks like a Gaslands:
    Refuelled setup": it is not; Space Race's two sides, the USSR and the USA, have no names to give."""
    options = {"edition": "deluxe", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    said = refusal("space_race", options)
    assert said == ("setup: Space Race has no players to name: the two sides are the USSR and the USA; "
                    "leave out [[players]]")
    told = setup_refused(None, said, game="space_race", options=options, plays="choose {title}")
    assert "looks like" not in told and "Gaslands" not in told, told


@pytest.mark.parametrize("written, stored", [("Buggy", "buggy"), ("Ice Cream Truck", "ice_cream_truck"),
                                             ("performance-car", "performance_car"), (" tank ", "tank")])
def test_a_gaslands_vehicle_type_in_the_rulebooks_words_is_taken(written: str, stored: str) -> None:
    """A bad-input audit: type = "Buggy" (as the rulebook prints it) was refused with the list of types alone."""
    state = Match.begin(game_package("gaslands").GAME, gaslands({"name": "Ana", "vehicles": [{"type": written}]},
                                                                {"name": "Ben", "vehicles": car()})).state
    assert state.vehicles[0].type == stored


def test_a_misspelt_gaslands_vehicle_type_is_told_the_near_one() -> None:
    said = refusal("gaslands", gaslands({"name": "Ana", "vehicles": [{"type": "bugy"}]},
                                        {"name": "Ben", "vehicles": car()}))
    assert said.startswith("setup: Ana's vehicle 1 has type 'bugy' (did you mean 'buggy'?); types are ambulance")


def test_a_gaslands_vehicle_with_no_type_is_told_to_add_one() -> None:
    """A bad-input audit: the example's type line deleted was refused as "has type None" (Python's word)."""
    said = refusal("gaslands", gaslands({"name": "Ana", "vehicles": [{"tag": 3}]}, {"name": "Ben", "vehicles": car()}))
    assert said.startswith('setup: Ana\'s vehicle 1 has no type: add type = "..." to its [[players.vehicles]]; '
                           "types are ambulance")


def test_a_thunder_road_vehicle_in_the_rulebooks_words_is_taken_and_a_misspelt_one_told_the_near_one() -> None:
    """A bad-input audit: vehicles = ["Big Rig"] or ["smal"] got the known names alone."""
    options = road({"name": "Ana", "vehicles": ["Small", "Big Rig", "large"]}, {"name": "Ben"})
    state = Match.begin(game_package("thunder_road").GAME, options).state
    assert [v.kind for v in state.vehicles if v.owner == "Ana"] == ["small", "big_rig", "large"]
    said = refusal("thunder_road", road({"name": "Ana", "vehicles": ["smal"]}, {"name": "Ben"}))
    assert said == "Ana: unknown vehicle 'smal' (did you mean 'small'?); known vehicles: small, medium, large, " \
        "big_rig, bike"


def test_a_grand_tour_team_name_refused_is_quoted_as_written() -> None:
    """A bad-input audit: teams = ["Red Team", "blue"] was told "team name 'red team'", a name nobody wrote."""
    said = refusal("grand_tour", {"stages": 1, "teams": ["Red Team", "blue"]})
    assert said == "team name 'Red Team': use a short lowercase name (letters, digits, _), e.g. red"
