"""Thunder Road: Vendetta — the owner's override tables of a setup file.  A misspelt key or table is refused
with the section, the key, the likeliest meant key and the keys there are (the words of Gaslands'
``unknown key 'hul' (did you mean 'hull'?)``), instead of being dropped without a word.  Each docstring
quotes the README sentence it checks; ``test_the_quoted_readme_sentences_stand_in_the_readme`` keeps the
quotes faithful."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from games.core import Illegal, Match
from games.thunder_road import EXAMPLE_SETUP, GAME
from games.thunder_road import tables as tr_tables
from games.thunder_road.demo import DEMO_SETUP
from games.thunder_road.rules import normalise
from games.thunder_road.state import ThunderRoadState
from test_thunder_road_helpers import KNOWN_FIRE, Table, setup

README = Path(__file__).resolve().parents[2] / "README.md"

OVERRIDE = (
    'Rule facts the sources do not give are "unknown" in games/thunder_road/data/*.toml (Big Rig and bike '
    "damage slots and size, the Fire-die faces, Nitro's extra spaces, Traction Drive's dice); fill them in there "
    'or override them in the setup ([vehicle_types.big_rig] damage_slots = 3, [commands.nitro] adds_moves = '
    '"die", [fire_die] faces = [...]).'
)
NEVER_REFUSED = "An unknown fact never causes a refusal."

#: a valid Thunder Road setup file with room for the override tables under test
BASE = """\
first_player = "Ana"

[[players]]
name = "Ana"

[[players]]
name = "Ben"
vehicles = ["small", "big_rig"]

[board]
tiles = 5
on_board = 3
"""


def _refusal(extra: str) -> str:
    with pytest.raises(Illegal) as err:
        GAME.start(tomllib.loads(BASE + extra))
    return err.value.reason


def test_a_misspelt_vehicle_type_key_is_refused_naming_the_meant_key():
    """"fill them in there or override them in the setup ([vehicle_types.big_rig] damage_slots = 3, ...)" —
    ``damage_slot = 3`` was dropped without a word (the view kept "damage_slots": null); now refused."""
    reason = _refusal("[vehicle_types.big_rig]\ndamage_slot = 3\n")
    assert reason == (
        "setup: [vehicle_types.big_rig]: unknown key 'damage_slot' (did you mean 'damage_slots'?); the keys "
        "here are class, damage_fire, damage_slots, label, minor_damage, out_of_service_at, short, size"
    )


def test_a_key_no_command_has_is_refused_naming_the_meant_key():
    """"override them in the setup (... [commands.nitro] adds_moves = "die", ...)" — ``add_moves`` is no
    key of a command: refused with the one meant."""
    reason = _refusal('[commands.nitro]\nadd_moves = "die"\n')
    assert reason == (
        "setup: [commands.nitro]: unknown key 'add_moves' (did you mean 'adds_moves'?); the keys here are "
        "adds_moves, board, dice, label, target"
    )


@pytest.mark.parametrize("value", ["-99", "600", "2.5", "true"])
def test_added_moves_out_of_range_are_refused(value: str) -> None:
    """"override them in the setup (... [commands.nitro] adds_moves = "die", ...)" — ``adds_moves = -99`` was
    taken: Nitro would have moved a car back 99 spaces. A number of spaces is 0-20 (a typing slip's bound)."""
    assert _refusal(f"[commands.nitro]\nadds_moves = {value}\n").startswith(
        'command \'nitro\': adds_moves must be "die", a number of spaces 0-20 or "unknown"')
    faces = f'[fire_die]\nfaces = [{{label = "Boost", effect = "moves", moves = {value}}}]\n'
    assert "moves must be a whole number of spaces 0-20" in _refusal(faces)


@pytest.mark.parametrize(("extra", "expected"), [
    ("damage_slots = 0\n",
     "vehicle type 'big_rig': damage_slots must be a whole number of 1 or more, or \"unknown\" (got 0)"),
    ("out_of_service_at = 0\n",
     "vehicle type 'big_rig': out_of_service_at must be a whole number of 1 or more, or \"none\" (got 0)"),
    ("damage_slots = 2\nout_of_service_at = 3\n",
     "vehicle type 'big_rig': out_of_service_at = 3 is more damage tokens than its damage_slots = 2 hold, so it "
     "could never go out of service: lower out_of_service_at, raise damage_slots, or write out_of_service_at = "
     "\"none\""),
])
def test_a_dashboard_that_could_hold_no_damage_is_refused(extra: str, expected: str) -> None:
    """"damage_slots: how many damage tokens the vehicle's dashboard holds" (vehicles.toml) — a dashboard of 0
    slots would refuse every damage token, and out of service at 0 tokens would start the car out; both were
    taken as facts. A size of 0 stays a rank (smaller than the small car's 1)."""
    assert _refusal("[vehicle_types.big_rig]\n" + extra) == expected
    GAME.start(tomllib.loads(BASE + "[vehicle_types.big_rig]\nsize = 0\ndamage_slots = 1\n"))


def test_the_last_free_slot_of_a_one_slot_dashboard_is_named_in_words():
    """"damage_slots: how many damage tokens the vehicle's dashboard holds" — one slot reads "its one damage
    slot", not "all 1 damage slots"."""
    t = Table("Ana", ("Ben", ["small", "big_rig"]), vehicle_types={"big_rig": {"damage_slots": 1}})
    t.ok("damage", vehicle="Ben/big_rig")
    assert t.no("damage", vehicle="Ben/big_rig").endswith("has its one damage slot filled: no slot for another token")


def test_a_command_the_game_does_not_have_is_refused():
    """"override them in the setup (... [commands.nitro] adds_moves = "die", ...)" — ``[commands.nitroo]``
    overrides no command: refused, with or without keys in it."""
    expected = (
        "setup: [commands]: unknown key 'nitroo' (did you mean 'nitro'?); the keys here are airstrike, drift, "
        "nitro, repair, traction_drive"
    )
    assert _refusal('[commands.nitroo]\nadds_moves = "die"\n') == expected
    assert _refusal("[commands.nitroo]\n") == expected


def test_a_vehicle_type_the_game_does_not_have_is_refused_listing_the_types():
    """"override them in the setup ([vehicle_types.big_rig] damage_slots = 3, ...)" — ``[vehicle_types.bigrig]``
    overrides no vehicle type: refused with the meant one; with no near match, with the list of types."""
    assert _refusal("[vehicle_types.bigrig]\ndamage_slots = 3\n") == (
        "setup: [vehicle_types]: unknown key 'bigrig' (did you mean 'big_rig'?); the keys here are big_rig, "
        "bike, large, medium, small"
    )
    assert _refusal("[vehicle_types.tank]\nsize = 9\n") == (
        "setup: [vehicle_types]: unknown key 'tank'; the keys here are big_rig, bike, large, medium, small"
    )
    assert _refusal("[commands.teleport]\n") == (
        "setup: [commands]: unknown key 'teleport'; the keys here are airstrike, drift, nitro, repair, "
        "traction_drive"
    )


def test_the_other_override_tables_refuse_misspelt_keys_too():
    """"override them in the setup (... [fire_die] faces = [...])" — the dice and the Fire die are override
    tables too: a misspelt die, key or face key is refused the same way."""
    assert _refusal('[dice.bumpp]\nfaces = ["a", "b"]\n') == (
        "setup: [dice]: unknown key 'bumpp' (did you mean 'bump'?); the keys here are bump, direction, "
        "movement, road, shooting, stunt"
    )
    assert _refusal('[dice.bump]\nface = ["a", "b"]\n') == (
        "setup: [dice.bump]: unknown key 'face' (did you mean 'faces'?); the keys here are faces"
    )
    assert _refusal("[fire_die]\nface = []\n") == (
        "setup: [fire_die]: unknown key 'face' (did you mean 'faces'?); the keys here are faces"
    )
    assert _refusal('[[fire_die.faces]]\nlabel = "flare"\neffect = "moves"\nmove = 2\n') == (
        "setup: [fire_die] face 'flare': unknown key 'move' (did you mean 'moves'?); the keys here are effect, "
        "label, moves"
    )
    assert _refusal("[vehicle_types]\nbig_rig = 3\n") == (
        "setup: [vehicle_types.big_rig] must be a table (key = value lines; got 3, whole number)"
    )


def test_a_misspelt_key_in_the_data_files_is_refused_naming_the_file(monkeypatch: pytest.MonkeyPatch):
    """"Rule facts the sources do not give are "unknown" in games/thunder_road/data/*.toml ...; fill them in
    there" — a fact filled in there under a misspelt key is refused, naming the file and the row."""
    load = tr_tables.load_table

    def misspelt(name: str) -> dict[str, Any]:
        table = load(name)
        if name == "vehicles":
            table["big_rig"]["damage_slot"] = 3
        return table

    monkeypatch.setattr(tr_tables, "load_table", misspelt)
    with pytest.raises(Illegal) as err:
        GAME.start(tomllib.loads(BASE))
    assert err.value.reason.startswith(
        "games/thunder_road/data/vehicles.toml: [big_rig]: unknown key 'damage_slot' (did you mean 'damage_slots'?)"
    )


def test_a_valid_override_still_fills_in_the_fact():
    """"override them in the setup ([vehicle_types.big_rig] damage_slots = 3, [commands.nitro] adds_moves =
    "die", [fire_die] faces = [...])" and "An unknown fact never causes a refusal." — the README's own
    overrides are taken, and a fact left "unknown" is accepted."""
    text = BASE + '[vehicle_types.big_rig]\ndamage_slots = 3\nsize = "unknown"\n[commands.nitro]\nadds_moves = "die"\n'
    options = normalise(tomllib.loads(text))
    assert options["vehicle_types"]["big_rig"]["damage_slots"] == 3
    assert options["commands"]["nitro"]["adds_moves"] == "die"
    match: Match[ThunderRoadState] = Match.begin(GAME, tomllib.loads(text))
    assert match.state.tables.kind("big_rig").damage_slots == 3
    assert match.state.tables.kind("big_rig").size is None
    assert match.state.tables.command("nitro").adds_moves == "die"
    assert normalise(setup(fire_die=KNOWN_FIRE))["fire_die"] == KNOWN_FIRE
    assert normalise(setup(dice={"bump": {"faces": ["left", "right"]}}))["dice"]["bump"]["faces"] == ["left", "right"]


def test_the_bundled_setups_still_start():
    """"fill them in there or override them in the setup" — the packaged data, the example setup (its
    override lines uncommented) and the demo setup all start."""
    uncommented = re.sub(r"(?m)^# (\[|damage_slots|adds_moves)", r"\1", EXAMPLE_SETUP)
    for text in (EXAMPLE_SETUP, DEMO_SETUP, uncommented):
        assert GAME.start(tomllib.loads(text))
    overrides = tomllib.loads(uncommented)
    assert overrides["vehicle_types"] == {"big_rig": {"damage_slots": 3}}
    assert overrides["commands"] == {"nitro": {"adds_moves": "die"}}
    # what the web page saves as <game>-facts.toml: every fact it edits
    facts = {"vehicle_types": {"big_rig": {"size": 4, "damage_slots": 6}, "bike": {"size": 0, "damage_slots": 1}},
             "commands": {"nitro": {"adds_moves": 2}, "traction_drive": {"dice": [4, 5, 6]}}}
    assert GAME.start({**tomllib.loads(EXAMPLE_SETUP), **facts})


def test_the_quoted_readme_sentences_stand_in_the_readme():
    """The sentences these tests quote are the README's, word for word (backticks aside)."""
    if not README.exists():
        pytest.skip("README.md is not beside the tests")
    text = re.sub(r"\s+", " ", README.read_text("utf-8").replace("`", ""))
    for sentence in (OVERRIDE, NEVER_REFUSED):
        assert sentence in text, sentence
