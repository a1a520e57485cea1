"""Thunder Road: Vendetta (+ Maximum Chrome) — one test (or more) per rule sentence of
shared/rules/thunder-road.md marked [seed] or [V].  Each docstring quotes the sentence it checks (``**``
emphasis dropped); ``test_every_tagged_sentence_is_quoted`` checks the quotes against the rules file."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from games.core import Command, Event, Illegal, Match, Record
from games.core.match import CorruptLog, replay
from games.thunder_road import DIE_TYPES, EXAMPLE_SETUP, GAME
from games.thunder_road.rules import CONSEQUENCES, load_table, normalise
from games.thunder_road.state import Step
from test_thunder_road_helpers import KNOWN_FIRE, Table, setup

RULES_FILE = Path(__file__).resolve().parents[3] / "shared" / "rules" / "thunder-road.md"


# --------------------------------------------------------------------------------------------------
# Players, pieces
# --------------------------------------------------------------------------------------------------


def test_two_to_four_players_five_with_the_expansions():
    """"2–4 players (up to 5 with Big Rig & Final Five)." [V]"""
    with pytest.raises(Illegal, match="^1 player: Thunder Road needs 2 to 4 players"):
        GAME.start(setup("Ana"))
    for n in (2, 3, 4):
        GAME.start(setup(*[f"P{i}" for i in range(n)]))
    with pytest.raises(Illegal, match="5th needs the Maximum Chrome"):
        GAME.start(setup(*[f"P{i}" for i in range(5)]))
    GAME.start(setup("A", "B", "C", "D", ("E", ["big_rig"])))
    GAME.start(setup("A", "B", "C", "D", ("E", ["bike"] * 5)))
    # a sixth player with a Big Rig at the table is told the limit, not to bring a Big Rig (they have one)
    with pytest.raises(Illegal, match="6 players: Thunder Road takes 2 to 4 players, 5 at most with"):
        GAME.start(setup("A", "B", "C", "D", "E", ("F", ["big_rig"])))


def test_each_player_has_three_road_vehicles_and_four_movement_dice():
    """"Each player has 3 road vehicles (small, medium, large car), 4 movement dice, a command board and a
    chopper." [V]"""
    t = Table("Ana", "Ben")
    assert [v.kind for v in t.state.fleet("Ana")] == ["small", "medium", "large"]
    assert t.match.prompt().text == "round 1: Ana, Ben roll 4 movement dice" and t.match.prompt().count == 4
    assert "4 values" in t.no("roll", player="Ana", dice=[1, 2, 3])
    t.ok("roll", player="Ana", dice=[1, 2, 3, 4])
    assert t.match.prompt().text == "round 1: Ben rolls 4 movement dice"  # one player: "rolls" ("Ben roll")
    # the command board: the commands a die can go to
    assert {c.name for c in t.state.tables.commands} >= {"airstrike", "nitro", "drift", "repair"}


def test_fx_dice_faces():
    """"FX dice: Road (faces 1,1,1,2,2,3), Stunt (1,2,2,3,3,4), Shooting (large ×3, medium, small-or-medium,
    any), Slam/bump die (which of the two stacked vehicles moves) and Direction die (six hex directions).\""""
    assert DIE_TYPES["road"] == [1, 1, 1, 2, 2, 3]
    assert DIE_TYPES["stunt"] == [1, 2, 2, 3, 3, 4]
    assert DIE_TYPES["shooting"] == ["large", "large", "large", "medium", "small_or_medium", "any"]
    assert len(DIE_TYPES["direction"]) == 6
    assert DIE_TYPES["movement"] == [1, 2, 3, 4, 5, 6]
    assert "bump" in DIE_TYPES


def test_maximum_chrome_pieces():
    """"Maximum Chrome adds the Fire die and ON FIRE! token, Fire spaces, the Big Rig and the Final Five
    motorbikes." [seed]"""
    assert "fire" in DIE_TYPES
    kinds = {k["class"] for k in load_table("vehicles").values()}
    assert {"big_rig", "bike"} <= kinds
    t = Table("Ana", ("Ben", ["small", "big_rig"]))
    t.ok("ignite", vehicle="Ana/small")  # a Fire space
    assert t.state.vehicle("Ana/small").on_fire
    assert "already ON FIRE" in t.no("ignite", vehicle="Ana/small")


def test_fire_die_faces_are_owner_data():
    """"Fire die faces: [?] (the seed says results can add moves, put the fire out, or eliminate the
    vehicle) → faces are data." — the packaged faces are all unknown; the owner fills them in."""
    faces = load_table("fire_die")["faces"]
    assert faces and all(f["effect"] == "unknown" for f in faces)
    assert DIE_TYPES["fire"] == [f["label"] for f in faces]
    options = normalise(setup(fire_die=KNOWN_FIRE))
    assert options["fire_die"] == KNOWN_FIRE
    with pytest.raises(Illegal, match="effect must be one of"):
        normalise(setup(fire_die={"faces": [{"label": "x", "effect": "explode"}]}))


# --------------------------------------------------------------------------------------------------
# A turn
# --------------------------------------------------------------------------------------------------


def test_must_assign_an_unused_die_to_an_operable_unmoved_vehicle():
    """"On your turn you must assign one unused movement die to an operable road vehicle you have not moved
    this round.\""""
    t = Table("Ana", "Ben")
    t.roll(Ana=[1, 2, 3, 4], Ben=[1, 2, 3, 4])
    assert "no unused 6" in t.no("assign", vehicle="small", die=6)
    assert "you must assign a die" in t.no("pass")
    t.turn("small", 4)
    t.turn("small", 1)  # Ben
    assert "already moved this round" in t.no("assign", vehicle="small", die=2)
    # damage puts Ana's medium car out of service: it is not operable
    t.ok("damage", vehicle="Ana/medium")
    t.ok("damage", vehicle="Ana/medium")
    reason = t.no("assign", vehicle="medium", die=2)
    assert "out of service" in reason
    assert "it is Ana's turn" in t.no("assign", player="Ben", vehicle="medium", die=2)
    t.turn("large", 2)
    assert t.state.vehicle("Ana/large").moved
    assert t.state.player("Ana").dice == (1, 3)


def test_coast_only_without_such_vehicle_twice_per_vehicle_counts_as_one():
    """"If you have no such vehicle, you may instead assign a die to the coast (roue libre) space of a
    vehicle you already moved — at most twice per vehicle per round; a coast counts as a move of 1.\""""
    t = Table(("Ana", ["small", "medium"]), ("Ben", ["small"]))
    t.roll(Ana=[1, 2, 5, 6], Ben=[1, 1, 1, 1])
    assert "coasting is only for when" in t.no("coast", vehicle="small", die=1)
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    t.turn("medium", 2)
    t.ok("coast", vehicle="small", die=1)  # Ben's only car has moved: coast
    assert t.match.prompt().text.startswith("move Ben's small car 1 space")
    assert "at most 1 space " in t.no("move", spaces=2)  # a coast counts as a move of 1
    t.ok("move")
    t.ok("coast", vehicle="small", die=5)  # Ana
    t.ok("move")
    t.ok("coast", vehicle="small", die=1)  # Ben: second coast
    t.ok("move")
    t.ok("coast", vehicle="small", die=6)  # Ana: second coast of her small car
    t.ok("move")
    assert "coasted twice" in t.no("coast", vehicle="small", die=1)  # Ben's third
    assert t.state.vehicle("Ben/small").coasts == 2
    t.ok("pass")  # "may": Ben declines
    assert t.state.step is Step.ROLL and t.state.round == 2
    assert t.state.vehicle("Ben/small").coasts == 0


def test_one_command_per_round_never_on_a_coast_turn():
    """"Once per round you may also assign an unused movement die to a command on your command board — but
    not on a turn in which you coast.\""""
    t = Table(("Ana", ["small"]), ("Ben", ["small"]))
    t.roll(Ana=[1, 2, 3, 6], Ben=[1, 2, 3, 4])
    t.ok("command", name="airstrike", die=6)
    assert "one command per round" in t.no("command", name="nitro", die=1)
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    t.ok("coast", vehicle="small", die=2)  # Ana coasts...
    assert "coasting this turn" in t.no("command", name="airstrike", die=3)  # ...so no command
    t.ok("move")
    t.ok("command", name="airstrike", die=2)  # Ben: a command first...
    assert "cannot be a coast turn" in t.no("coast", vehicle="small", die=3)  # ...then no coast
    t.ok("pass")  # Ben's command turn ends (he keeps his dice for a later turn)
    t.ok("coast", vehicle="small", die=3)  # Ana's last die
    t.ok("move")
    t.ok("pass")  # Ben declines to coast: out for the round
    assert t.state.round == 2  # next round the command is free again
    t.roll(Ana=[1, 2, 3, 6], Ben=[1, 2, 3, 4])
    t.ok("command", name="airstrike", die=6)


def test_a_command_turn_ends_the_turn_not_the_round():
    """"If you have no such vehicle, you may instead assign a die to the coast (roue libre) space of a
    vehicle you already moved — at most twice per vehicle per round ... Once per round you may also assign an
    unused movement die to a command on your command board — but not on a turn in which you coast." — a turn
    spent on a command alone cannot coast, so it only ends: the player keeps the dice and coasts left for
    later turns (before, ending it was a pass that put him out of the round with two coasts unused)."""
    t = Table("Ana", ("Ben", ["small"]))
    t.roll(Ana=[1, 3, 5, 6], Ben=[2, 3, 4, 6])
    t.turn("small", 1)  # Ana
    t.turn("small", 2)  # Ben: his only car has moved
    t.turn("medium", 3)  # Ana
    t.ok("command", name="airstrike", die=4)  # Ben's command
    assert "end the turn, and coast on a later one" in t.no("coast", vehicle="small", die=6)
    assert "a turn with a command cannot coast" in t.no("assign", vehicle="small", die=6)
    assert "end the turn" in t.match.prompt().text
    assert "End turn" in [c.label for c in GAME.menu(t.state).choices if c is not None]
    assert GAME.menu(t.state).status == "Ben · a command turn: no coast"  # the reason, on the screen
    # a move sent now is refused with the way on the menu names ("passes first" read as leaving the round)
    assert t.no("move") == "no vehicle is moving yet: Ben ends the turn first (End turn)"
    t.ok("pass")
    assert not t.state.player("Ben").passed and t.state.player("Ben").dice == (3, 6)
    t.turn("large", 5)  # Ana
    t.ok("coast", vehicle="small", die=3)  # Ben coasts on his next turn
    t.ok("move")
    assert t.state.vehicle("Ben/small").coasts == 1


def test_refusals_do_not_send_a_player_to_a_refused_coast():
    """"you may instead assign a die to the coast (roue libre) space of a vehicle you already moved — at most
    twice per vehicle per round" — a die refused on a car that has coasted twice does not say "coast it
    instead", and an unmoved car out of service is not coasted (it is moved with a die once repaired)."""
    t = Table("Ana", ("Ben", ["small"]))
    t.roll(Ana=[1, 3, 5, 6], Ben=[2, 2, 4, 6])
    for kind, car, die in [("assign", "small", 1), ("assign", "small", 2), ("assign", "medium", 3),
                           ("coast", "small", 2), ("assign", "large", 5), ("coast", "small", 4), ("coast", "small", 6)]:
        t.ok(kind, vehicle=car, die=die)
        t.ok("move", spaces=1)
    reason = t.no("assign", vehicle="small", die=6)
    assert "coast it instead" not in reason and "the limit" in reason
    t2 = Table("Ana", "Ben")
    t2.ok("damage", vehicle="Ana/large")
    t2.ok("damage", vehicle="Ana/large")  # out of service, not moved
    t2.roll(Ana=[1, 3, 5, 6], Ben=[2, 2, 4, 6])
    for car, die in [("small", 1), ("small", 2), ("medium", 3), ("medium", 2)]:
        t2.ok("assign", vehicle=car, die=die)
        t2.ok("move", spaces=1)
    reason = t2.no("coast", vehicle="large", die=5)
    assert "has not moved this round and is out of service" in reason and "Repair" in reason


def test_command_die_limits():
    """"Commands: Airstrike (any die), Nitro (die 1–3, adds movement), Drift (die 3–5), Repair (die 6,
    removes one damage token).\""""
    t = Table("Ana", "Ben")
    t.roll(Ana=[4, 6, 5, 6], Ben=[1, 2, 3, 4])
    assert "Nitro takes a die of 1, 2, 3, not a 4" in t.no("command", name="nitro", die=4)
    assert "Drift takes a die of 3, 4, 5, not a 6" in t.no("command", name="drift", die=6)
    assert "Repair takes a die of 6, not a 5" in t.no("command", name="repair", die=5, vehicle="small")
    assert "no damage token" in t.no("command", name="repair", die=6, vehicle="small")
    t.ok("damage", vehicle="Ana/small")
    t.ok("damage", vehicle="Ana/small")
    t.ok("command", name="repair", die=6, vehicle="small")
    assert t.state.vehicle("Ana/small").damage == 1
    # every screen is told a command (a walkthrough: nobody else learnt of an Airstrike or a car repaired)
    assert t.state.news == "Ana: Repair, Ana's small car 1 damage, back in service"
    t2 = Table("Ana", "Ben")
    t2.roll(Ana=[2, 2, 2, 2], Ben=[1, 2, 3, 4])
    t2.ok("command", name="airstrike", die=2)  # any die
    # its effect is the table's (commands.toml: target "none"): the news says so, and where its hit goes in
    assert t2.state.news == "Ana: Airstrike, the table resolves it; its damage goes in with Damage…"
    t3 = Table("Ana", "Ben")
    t3.roll(Ana=[2, 5, 5, 5], Ben=[1, 2, 3, 4])
    t3.ok("command", name="nitro", die=2)
    assert t3.state.player("Ana").command == "nitro"
    t3.ok("assign", vehicle="small", die=5)
    # Nitro's size is unknown in the packaged data: the reported spaces are not capped
    t3.ok("move", spaces=7)


def test_nitro_adds_movement_when_the_owner_fills_it_in():
    """"Nitro (die 1–3, adds movement)" — with adds_moves = "die" the allowance grows by the die."""
    t = Table("Ana", "Ben", commands={"nitro": {"adds_moves": "die"}})
    t.roll(Ana=[2, 5, 5, 5], Ben=[1, 2, 3, 4])
    t.ok("assign", vehicle="small", die=5)
    t.ok("command", name="nitro", die=2)
    assert "at most 7 spaces" in t.no("move", spaces=8)
    t.ok("move", spaces=7)


@pytest.mark.parametrize(
    ("drift", "occupied", "spaces", "bumps"),
    [
        (True, [2], 4, 0),  # passes the first occupied space
        (True, [4], 4, 1),  # ends on it: hits it even though it was the first
        (True, [2, 3], 4, 1),  # the second occupied space is a collision
        (True, [2, 4], 4, 1),
        (False, [2], 4, 1),  # without Drift the first occupied space is a collision
        (False, [2, 4], 4, 2),
    ],
)
def test_drift_passes_the_first_occupied_space_but_ending_on_one_collides(drift, occupied, spaces, bumps):
    """"Drift (dérapage): the vehicle passes through the first space it reaches that holds another road
    vehicle without hitting it; if it ends its move on an occupied space it hits it anyway (even if that
    would have been its first collision).\""""
    t = Table("Ana", "Ben")
    t.roll(Ana=[4, 3, 1, 1], Ben=[1, 2, 3, 4])
    if drift:
        t.ok("command", name="drift", die=3)
    t.ok("assign", vehicle="small", die=4)
    others = ["Ben/small", "Ben/medium"]
    t.ok("move", spaces=spaces, occupied=[{"at": at, "vehicle": others[i]} for i, at in enumerate(occupied)])
    assert len(t.state.bumps) == bumps
    assert t.state.step is (Step.BUMP if bumps else Step.TURN)


def test_a_drift_is_not_taken_after_the_first_vehicle_met_was_reported_hit():
    """"Drift: the vehicle passes through the first space it reaches that holds another road vehicle without
    hitting it." — a vehicle the table already reported met on this move was reached without a Drift: a rules
    audit took Drift there, and the hit on the screens became a pass, the bump gone."""
    t = Table("Ana", "Ben", "Cy")
    t.roll(Ana=[5, 4, 1, 2], Ben=[1, 2, 3, 4], Cy=[1, 2, 3, 4])
    t.ok("assign", vehicle="small", die=5)
    t.ok("met", vehicle="Ben/large", at=2)
    reason = t.no("command", name="drift", die=4)
    assert reason == ("Drift passes the first space the vehicle reaches that holds another vehicle, and it already "
                      "hit Ben's large car at space 2: a Drift is taken before the move")
    t.ok("move", spaces=5)
    assert [(b.a, b.b) for b in t.state.bumps] == [("Ana/small", "Ben/large")]  # the hit stands


def test_a_vehicle_met_on_the_way_stands_on_one_space():
    """"When two vehicles share a space, roll the bump die and the direction die: they say which vehicle
    moves and where." — a vehicle stands on one space: a move that reports meeting the same vehicle at two
    spaces is refused (it queued two bumps with it, and a Drift passed it and then hit it)."""
    t = Table("Ana", "Ben")
    t.roll(Ana=[4, 3, 1, 1], Ben=[1, 2, 3, 4])
    t.ok("command", name="drift", die=3)
    t.ok("assign", vehicle="small", die=4)
    reason = t.no("move", spaces=4, occupied=[{"at": 2, "vehicle": "Ben/small"}, {"at": 4, "vehicle": "Ben/small"}])
    assert reason == "Ben's small car stands on one space: it cannot be met at space 2 and again at space 4"
    t.ok("move", spaces=4, occupied=[{"at": 2, "vehicle": "Ben/small"}, {"at": 4, "vehicle": "Ben/medium"}])
    assert [(b.a, b.b) for b in t.state.bumps] == [("Ana/small", "Ben/medium")]


def test_big_rig_uses_the_road_die_only_with_traction_drive():
    """"Big Rig: does not use the Road die unless its Traction Drive command (centre section) is active this
    turn.\""""
    t = Table(("Ana", ["small", "big_rig"]), "Ben")
    t.roll(Ana=[3, 4, 5, 6], Ben=[1, 2, 3, 4])
    t.ok("road", vehicle="small", face=2)  # a car uses the Road die
    reason = t.no("road", vehicle="big_rig", face=2)
    assert "Traction Drive" in reason
    t.ok("command", name="traction_drive", die=3)
    assert t.state.news == "Ana: Traction Drive"  # its effect is the companion's to track (not the table's)
    t.ok("road", vehicle="big_rig", face=2)
    assert t.state.road_roll == ("Ana/big_rig", 2)
    # Traction Drive is on the Big Rig, not the command board: the board command is still free this round
    assert t.state.player("Ana").command is None
    t.turn("big_rig", 4)
    t.turn("small", 1)  # Ben
    # a new turn: Traction Drive is no longer active
    assert "Traction Drive" in t.no("road", vehicle="big_rig", face=1)


def test_what_the_road_die_adds_to_a_move_is_unknown_so_it_never_refuses_one():
    """The md lists the Road die's faces ("road ... number faces [V/P]", dice.toml) and "Big Rig: does not use the
    Road die unless its Traction Drive command ... is active this turn", but not what its result does to a move:
    an unknown fact, and an unknown fact never refuses a move (an audit: a Big Rig with Traction Drive, die 3 and
    Road die 3, was refused a move of 6 as "at most 3").  Without a Road die the die's limit stands."""
    t = Table(("Ana", ["small", "big_rig"]), "Ben")
    t.roll(Ana=[3, 4, 5, 6], Ben=[1, 2, 3, 4])
    t.ok("command", name="traction_drive", die=4)
    t.ok("assign", vehicle="big_rig", die=3)
    assert "at most 3 spaces" in t.no("move", spaces=6)  # no Road die rolled for it yet
    t.ok("road", vehicle="big_rig", face=3)
    assert "3+Road die 3 spaces" in t.match.prompt().text  # the face too (the dashboard said "3+Road die" alone)
    assert not GAME.menu(t.state).advance  # NEXT does not record the die's 3 alone
    t.ok("met", vehicle="Ben/small", at=4)  # met beyond the die: the move goes on
    t.ok("move", spaces=6)


def test_a_coast_stays_a_move_of_1_with_a_road_die():
    """"A coast counts as a move of 1" [seed][V]: a Road die rolled for the coasting vehicle changes nothing (a
    review: it lifted the coast's limit)."""
    t = Table(("Ana", ["small", "medium"]), ("Ben", ["small"]))
    t.roll(Ana=[1, 2, 5, 6], Ben=[1, 1, 1, 1])
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    t.turn("medium", 2)
    t.ok("coast", vehicle="small", die=1)  # Ben's only car has moved: coast
    t.ok("road", vehicle="small", face=3)
    assert "at most 1 space" in t.no("move", spaces=4)
    t.ok("move", spaces=1)


def test_a_road_die_face_renamed_by_the_owner_is_recorded_not_a_traceback():
    """dice.toml: "rename a label here and teach it under the new name" (an audit: a Road die face renamed "one"
    was int()-ed: a ValueError out of the rules)."""
    t = Table("Ana", "Ben", dice={"road": {"faces": ["one", "one", "one", "two", "two", "three"]}})
    t.roll(Ana=[1, 2, 3, 4], Ben=[1, 2, 3, 4])
    t.ok("road", vehicle="small", face="one")
    assert t.state.road_roll == ("Ana/small", "one")


def test_traction_drive_goes_with_a_coast_the_command_board_does_not():
    """"Once per round you may also assign an unused movement die to a command on your command board — but not
    on a turn in which you coast." [seed] — a rule of the command board: Traction Drive is on the Big Rig's
    centre section.  It was refused on a coast turn, and a turn with it could not coast."""
    t = Table(("Ana", ["big_rig"]), ("Ben", ["small"]))
    t.roll(Ana=[1, 3, 4, 6], Ben=[1, 2, 3, 4])
    t.turn("big_rig", 4)
    t.turn("small", 1)  # Ben
    t.ok("coast", vehicle="big_rig", die=1)
    t.ok("command", name="traction_drive", die=3)  # on the coast turn
    t2 = Table(("Ana", ["big_rig"]), ("Ben", ["small"]))
    t2.roll(Ana=[1, 3, 4, 6], Ben=[1, 2, 3, 4])
    t2.turn("big_rig", 4)
    t2.turn("small", 1)
    t2.ok("command", name="traction_drive", die=3)
    t2.ok("coast", vehicle="big_rig", die=1)  # Traction Drive first, then the coast
    t3 = Table(("Ana", ["big_rig"]), ("Ben", ["small"]))
    t3.roll(Ana=[1, 3, 4, 6], Ben=[1, 2, 3, 4])
    t3.turn("big_rig", 4)
    t3.turn("small", 1)
    t3.ok("coast", vehicle="big_rig", die=1)
    assert "coasting this turn" in t3.no("command", name="airstrike", die=3)  # the command board's stays refused


def test_traction_drive_needs_a_big_rig():
    """"Big Rig: does not use the Road die unless its Traction Drive command (centre section) is active this
    turn." — a player without a Big Rig has no Traction Drive."""
    t = Table("Ana", "Ben")
    t.roll()
    assert "no Big Rig" in t.no("command", name="traction_drive", die=2)


# --------------------------------------------------------------------------------------------------
# Board scrolling
# --------------------------------------------------------------------------------------------------


def test_leaving_the_front_scrolls_the_road_and_eliminates_the_rear_tile():
    """"When a vehicle leaves the front of the board and the lead tile was not the final tile: remove the
    rear tile (vehicles on it are eliminated [V]), slide the tiles back, draw a new lead tile, seed its
    hazards; a vehicle with moves left carries on onto the new lead tile.\""""
    t = Table("Ana", "Ben", tiles=["a", "b", "c", "d", "e"], on_board=3)
    assert t.state.board.tiles[t.state.board.lead] == "c"
    t.ok("ignite", vehicle="Ben/small")  # burning, it goes out of the race with its fire (a rules audit)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    assert "scroll" in t.match.prompt().commands and "finish" not in t.match.prompt().commands
    assert "not the final tile" in t.no("finish")
    t.ok("scroll", eliminated=["Ben/small"])
    assert t.state.board.tiles[t.state.board.lead] == "d"
    assert t.state.vehicle("Ben/small").eliminated and not t.state.vehicle("Ben/small").on_fire
    assert t.state.step is Step.MOVE  # the vehicle carries on with its moves left
    t.ok("move", spaces=4)


def test_every_scroll_is_told_with_the_tile_that_leads_and_the_final_tile_named():
    """"When a vehicle leaves the front of the board and the lead tile was not the final tile: remove the rear
    tile ... draw a new lead tile" and "Moving onto the finish line of the final tile ends the game": a scroll
    that eliminated nobody was on no screen, and no screen said when the final tile led (the Finish line is
    offered from then on). Every scroll is news, with the tile that leads."""
    t = Table("Ana", "Ben", tiles=["a", "b", "c", "d", "e"], on_board=3)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=[])
    assert t.state.news == "Road scrolled: lead tile d"
    t.ok("scroll", eliminated=[])
    assert t.state.news == "Road scrolled: lead tile e, the final tile"
    assert "finish" in t.match.prompt().commands


def test_three_or_more_vehicles_on_the_rear_tile_are_named_one_at_a_time_then_scrolled_off():
    """"remove the rear tile (vehicles on it are eliminated [V])" — with five players three or more vehicles
    on the rear tile is usual, and the buttons offered at most two (a second scroll moves the road again).
    Each is named with ``off`` (one decision each, undone one at a time); the scroll takes them all."""
    t = Table("Ana", "Ben", "Cy", tiles=["a", "b", "c", "d", "e"], on_board=3)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    assert "off" in t.match.prompt().commands
    t.ok("off", vehicle="Ben/small")
    t.ok("off", vehicle="Cy/small")
    assert "already named" in t.no("off", vehicle="Ben/small")
    assert "leaving the front" in t.no("off", vehicle="Ana/large")
    assert "off with the rear tile at the scroll: Ben's small car, Cy's small car" in t.match.prompt().text
    # the move is reported after the scroll: before it, the names were dropped and the road never scrolled
    assert "scroll the road first" in t.no("move", spaces=4)
    assert "move" not in t.match.prompt().commands and "scroll the road first" in t.match.prompt().text
    t.ok("undo")
    t.ok("off", vehicle="Cy/medium")
    t.ok("off", vehicle="Ben/medium")
    t.ok("scroll", eliminated=["Cy/large"])
    gone = {v.id for v in t.state.vehicles if v.eliminated}
    assert gone == {"Ben/small", "Cy/medium", "Ben/medium", "Cy/large"}
    # every screen is told (an X in the owner's column was all)
    assert t.state.news == ("Ben's small car, Cy's medium car, Ben's medium car, Cy's large car eliminated with the "
                            "rear tile; Road scrolled: lead tile d")  # in the order named, what it took first
    assert t.state.turn.off_rear == () and t.state.board.tiles[t.state.board.lead] == "d"
    assert "eliminated" in t.no("off", vehicle="Ben/small")
    t.ok("scroll", eliminated=[])  # the final tile leads now: nothing more scrolls
    assert "does not scroll any more" in t.no("off", vehicle="Cy/small")


def test_a_vehicle_bumped_off_the_front_scrolls_the_road_before_it_is_placed():
    """"When a vehicle leaves the front of the board and the lead tile was not the final tile: remove the
    rear tile (vehicles on it are eliminated [V]), slide the tiles back, draw a new lead tile, seed its
    hazards" — any vehicle: one the bump dice move forward off the lead tile too (the scroll was refused
    until the bump was placed, and the turn ended with the placing)."""
    t = Table("Ana", "Ben", "Cy", tiles=["a", "b", "c", "d", "e"], on_board=3)
    t.roll()
    _stack(t, "small", "Ben/large")  # a re-roll right: Ben's
    t.ok("bump", bump="bump1", direction=1)
    p = t.match.prompt()
    assert {"placed", "scroll", "off"} <= set(p.commands)
    # the two stacked vehicles are where the bump is, not on the rear tile
    assert "one of the two stacked vehicles" in t.no("scroll", eliminated=["Ben/large"])
    assert "one of the two stacked vehicles" in t.no("off", vehicle="Ana/small")
    t.ok("off", vehicle="Cy/small")
    t.ok("off", vehicle="Cy/medium")
    assert "scroll the road first" in t.no("placed", moved="Ben/large")
    assert "scroll the road first" in t.no("reroll", bump="bump2", direction=2)
    assert "placed" not in t.match.prompt().commands and "scroll the road first" in t.match.prompt().text
    t.ok("scroll", eliminated=["Ben/small"])
    assert {v.id for v in t.state.vehicles if v.eliminated} == {"Cy/small", "Cy/medium", "Ben/small"}
    assert t.state.board.tiles[t.state.board.lead] == "d" and t.state.step is Step.PLACE
    # one scroll for the vehicle the dice moved off: a second would move the road again, and a re-roll after it
    # would re-roll dice the road already moved for (both were accepted)
    assert set(t.match.prompt().commands) & {"scroll", "off", "reroll"} == set()
    assert "new lead tile" in t.match.prompt().text
    assert "has scrolled for this bump" in t.no("scroll", eliminated=[])
    assert "has scrolled for this bump" in t.no("off", vehicle="Cy/large")
    assert "undo the scroll to re-roll" in t.no("reroll", bump="bump2", direction=2)
    assert not [a for v in GAME.views(t.state) for a in v.alerts if a.kind == "reroll"]
    # the new lead tile holds nobody yet: no chain bump (the menu offered one)
    assert "no chain bump" in t.no("placed", moved="Ben/large", onto="Cy/large")
    t.ok("placed", moved="Ben/large")  # on the new lead tile
    assert t.state.bumps == () and t.state.step is Step.TURN
    t = Table("Ana", "Ben", tiles=["a", "b", "c"], on_board=3)  # the final tile leads: nothing more scrolls
    t.roll()
    _stack(t, "small", "Ben/small")
    t.ok("bump", bump="bump1", direction=1)
    assert "scroll" not in t.match.prompt().commands
    assert "does not scroll any more" in t.no("scroll", eliminated=[])


def test_a_vehicle_with_a_bump_still_to_resolve_is_not_on_the_rear_tile():
    """"When a vehicle leaves the front of the board ... remove the rear tile (vehicles on it are eliminated
    [V])" and "Keep resolving bumps, chain bumps included, until every space holds one vehicle." — a review: a
    scroll during the first of two bumps eliminated the vehicle of the second, and the table was then asked to
    roll a bump against a car off the road.  The vehicles where the move went are not on the rear tile."""
    t = Table("Ana", "Ben", "Cy", tiles=["a", "b", "c", "d", "e"], on_board=3)
    t.roll()
    t.ok("assign", vehicle="small", die=4)
    t.ok("move", spaces=4, occupied=[{"at": 2, "vehicle": "Cy/small"}, {"at": 4, "vehicle": "Ben/large"}])
    assert len(t.state.bumps) == 2
    t.ok("bump", bump="bump1", direction=1)
    assert "a bump still to resolve" in t.no("scroll", eliminated=["Ben/large"])
    assert "a bump still to resolve" in t.no("off", vehicle="Ben/large")
    t.ok("scroll", eliminated=["Ben/small"])


def test_eliminated_vehicle_cannot_move():
    """"remove the rear tile (vehicles on it are eliminated [V])" — an eliminated vehicle is off the road."""
    t = Table("Ana", "Ben")
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=["Ben/small"])
    t.ok("move")
    assert "eliminated" in t.no("assign", vehicle="small", die=1)
    view = t.view("Ben")
    assert [v.eliminated for v in view.vehicles] == [True, False, False]


def test_an_eliminated_vehicle_rolls_no_road_die():
    """"remove the rear tile (vehicles on it are eliminated [V])" — an eliminated vehicle is off the road:
    the Road die is not rolled for it (the Road die… menu offered it and the roll was recorded)."""
    t = Table("Ana", "Ben")
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=["Ben/small"])
    t.ok("move")
    assert t.no("road", vehicle="small", face=1) == "Ben's small car has been eliminated: it is not on the road"
    t.ok("road", vehicle="medium", face=1)


def test_the_road_die_is_rolled_for_a_vehicle_that_moves():
    """"On your turn you must assign one unused movement die to an operable road vehicle you have not moved this
    round" [seed], and the Road die is rolled for the moving vehicle (docs/RULINGS.md): an audit saw it offered,
    and recorded, for a car out of service while "nothing left to move: pass" stood."""
    t = Table("Ana", "Ben")
    t.roll()
    t.ok("damage", vehicle="Ana/small")
    t.ok("damage", vehicle="Ana/small")  # two tokens: out of service
    assert t.state.out_of_service("Ana/small")
    assert t.no("road", vehicle="small", face=1) == (
        "Ana's small car is out of service: the Road die is rolled for a vehicle that moves")
    t.ok("assign", vehicle="medium", die=4)
    assert t.no("road", vehicle="large", face=2) == "the Road die is rolled for the vehicle moving now, Ana's medium car"
    t.ok("road", vehicle="medium", face=2)
    assert t.state.road_roll == ("Ana/medium", 2)


def test_no_road_die_in_a_turn_that_moves_nothing():
    """"a coast ... not on a turn in which you coast" [seed] with a command: a command turn with nothing left to move
    only ends, and the Road die rolled in it was accepted, then dropped at the pass (a review)."""
    t = Table(("Ana", ["small"]), ("Ben", ["small"]))
    t.roll(Ana=[1, 2, 5, 6], Ben=[1, 1, 1, 1])
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    t.ok("command", name="airstrike", die=2)
    assert "command turn" in t.match.prompt().text, t.match.prompt().text
    assert t.no("road", vehicle="small", face=1) == (
        "Ana cannot coast in a command turn: the Road die is rolled for a vehicle that moves this turn")


def test_finish_line_of_the_final_tile_wins():
    """"Moving onto the finish line of the final tile ends the game: that player wins." [seed]"""
    t = Table("Ana", "Ben", tiles=4, on_board=3)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=[])
    assert t.state.board.lead_is_final
    assert "does not scroll any more" in t.no("scroll", eliminated=[])
    t.ok("move")
    t.ok("assign", vehicle="large", die=4)  # Ben
    t.ok("finish")
    assert t.state.step is Step.GAME_OVER and t.state.winner == "Ben"
    assert "race is over" in t.no("assign", vehicle="small", die=1)
    assert t.view("Ben").winner == "Ben"
    # how, told on every screen (a screens walkthrough: only the headers said "Ben wins")
    assert {v.news for v in t.match.views()} == {"Ben crossed the finish line and wins"}


def _bump_on_the_final_tile() -> Table:
    t = Table("Ana", "Ben", tiles=4, on_board=3)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=[])
    t.ok("move", spaces=4, occupied=[{"at": 4, "vehicle": "Ben/large"}])
    t.ok("bump", bump="bump1", direction=1)
    assert t.state.step is Step.PLACE and t.state.board.lead_is_final
    return t


def test_a_bump_on_the_final_tile_is_placed_on_it_and_the_refusal_says_so():
    """"Moving onto the finish line of the final tile ends the game: that player wins." [seed] The road does not
    scroll any more: the refusal says to place the bumped vehicle, or to finish with it if the table rules the bump
    over the line a win (an audit: each refusal pointed to the other)."""
    t = _bump_on_the_final_tile()
    said = t.no("scroll", eliminated=[])
    assert said.endswith("place the bumped vehicle on it, or, if the bump took it over the finish line and the table "
                         "rules that a win, finish with that vehicle")
    assert "name the bumped vehicle that went over the finish line: Ana's large car or Ben's large car" in t.no("finish")
    t.ok("placed", moved="Ben/large")
    assert t.state.step is not Step.GAME_OVER


def test_a_bump_over_the_finish_line_wins_where_the_table_rules_so():
    """"Moving onto the finish line of the final tile ends the game: that player wins." [seed] The rules speak of a
    move and say nothing of a bump over the line: the companion refused it in code (a rules audit).  Now the table
    rules, on the buttons one list down, the winner named: the owner of the vehicle the dice took over."""
    from games.core.table_input import leaves

    t = _bump_on_the_final_tile()
    offered = [lf.choice for lf in leaves(GAME.menu(t.state).choices) if lf.choice.command is not None
               and lf.choice.command.type == "finish"]
    assert [c.label for c in offered] == ["Large car: Ana wins", "Ben's Large car: Ben wins"]  # (in Ana's menu)
    assert "not Ana's small car" in t.no("finish", vehicle="Ana/small")
    t.ok("finish", vehicle="Ben/large")
    assert t.state.step is Step.GAME_OVER and t.state.winner == "Ben"
    assert t.state.news == "Ben crossed the finish line and wins"


def test_last_player_standing_wins():
    """"(Also: last player standing wins. [V])\""""
    t = Table(("Ana", ["small"]), ("Ben", ["small", "medium"]))
    t.roll()
    t.ok("assign", vehicle="small", die=4)
    t.ok("scroll", eliminated=["Ben/small", "Ben/medium"])
    assert t.state.step is Step.GAME_OVER and t.state.winner == "Ana"


def test_the_table_rules_a_vehicle_out_of_the_race_between_moves():
    """The sources eliminate a vehicle with the rear tile and by the Fire die only; one that leaves the board
    otherwise (off its side, by the owner's rulebook) could not be entered: it kept its player standing and a die
    had to go to it (a rules audit).  ``eliminate`` rules it out, between moves; "last player standing wins"."""
    t = Table(("Ana", ["small"]), ("Ben", ["small", "medium"]), ("Cy", ["small"]))
    t.ok("roll", player="Ana", dice=[1, 2, 3, 4])
    assert "eliminate" in t.match.prompt().commands
    t.ok("ignite", vehicle="Cy/small")
    t.ok("eliminate", vehicle="Cy/small")  # Cy's last vehicle, before Cy rolled: the roll is complete without Cy
    assert t.state.vehicle("Cy/small").eliminated and not t.state.vehicle("Cy/small").on_fire
    assert t.state.news == "Cy's small car eliminated by the table's ruling" and t.state.step is Step.ROLL
    t.ok("roll", player="Ben", dice=[1, 2, 3, 4])
    assert t.state.step is Step.TURN and t.state.turn.player == "Ana"
    assert "has been eliminated already" in t.no("eliminate", vehicle="Cy/small")
    t.ok("assign", vehicle="small", die=4)  # a move in hand: finished first
    assert "between moves" in t.no("eliminate", vehicle="Ben/small") and "eliminate" not in t.match.prompt().commands
    t.ok("move", spaces=4)
    assert t.state.turn.player == "Ben"
    t.ok("eliminate", vehicle="Ben/small")  # its die is no longer asked for: the medium car's only
    assert t.match.prompt().text == "Ben: assign a die (1, 2, 3, 4) to medium car"
    t.ok("eliminate", vehicle="Ben/medium")
    assert t.state.step is Step.GAME_OVER and t.state.winner == "Ana"


def test_the_buttons_rule_a_vehicle_out_under_damage_between_moves_only():
    from games.core.table_input import leaves
    from games.thunder_road.menus import menu

    t = Table("Ana", "Ben")
    t.roll()
    offered = {lf.path: lf.choice.command for lf in leaves(menu(t.state).choices)}
    out = [path for path in offered if path[-1] == "Out of the race"]
    assert ("Damage…", "Ben's Medium car", "Out of the race") in out and len(out) == 6, out
    assert offered[("Damage…", "Ben's Medium car", "Out of the race")] == Command("eliminate", {"vehicle": "Ben/medium"})
    t.ok("assign", vehicle="small", die=4)  # a move in hand: not offered
    assert not [lf for lf in leaves(menu(t.state).choices) if lf.path[-1] == "Out of the race"]


def test_a_turn_whose_player_is_ruled_out_goes_on_to_the_next():
    t = Table(("Ana", ["small"]), ("Ben", ["small"]), ("Cy", ["small"]))
    t.roll()
    assert t.state.turn.player == "Ana"
    t.ok("eliminate", vehicle="Ana/small")
    assert t.state.turn.player == "Ben" and t.state.step is Step.TURN
    events = [r.event.type for r in t.match.records[-2:]]
    assert events == ["ruled_out", "turn_started"]


# --------------------------------------------------------------------------------------------------
# Bumps
# --------------------------------------------------------------------------------------------------


def _stack(t: Table, mover: str, hit: str) -> None:
    t.ok("assign", vehicle=mover, die=4)
    t.ok("move", spaces=4, occupied=[{"at": 4, "vehicle": hit}])


def test_sharing_a_space_rolls_the_bump_and_direction_dice():
    """"When two vehicles share a space, roll the bump die and the direction die: they say which vehicle
    moves and where.\""""
    t = Table("Ana", "Ben")
    t.roll()
    _stack(t, "small", "Ben/small")
    p = t.match.prompt()
    assert p.step == Step.BUMP.value and p.die == "bump" and p.count == 2
    assert "not a face of the bump die" in t.no("bump", bump="sideways", direction=1)
    assert "not a face of the direction die" in t.no("bump", bump="bump1", direction=7)
    t.ok("bump", bump="bump1", direction=3)
    assert "Ana's small car or Ben's small car" in t.no("placed", moved="Ana/medium")
    t.ok("placed", moved="Ben/small")
    assert t.state.step is Step.TURN and t.state.turn.player == "Ben"


def test_the_larger_vehicles_owner_may_ask_for_one_reroll():
    """"If one vehicle is larger, its owner may ask for one re-roll of both dice.\""""
    t = Table("Ana", "Ben")
    t.roll()
    _stack(t, "small", "Ben/large")
    t.ok("bump", bump="bump1", direction=3)
    assert "Ben (larger vehicle) may re-roll" in t.match.prompt().text
    # the re-roll is in the turn player's (Ana's) menu: Ben's own screen says he may ask for it
    ben = next(v for v in GAME.views(t.state) if v.player == "Ben")
    # with the roll it is about, and the roll told on every screen (a screens walkthrough: Ben saw no die)
    assert [a.text for a in ben.alerts if a.kind == "reroll"] == [
        "bump die bump1 · direction die 3: you may ask for one re-roll of both dice, in Ana's menu"]
    assert {v.news for v in GAME.views(t.state)} == {
        "Bump of Ana's small car and Ben's large car: rolled bump die bump1, direction die 3"}
    assert not [a for v in GAME.views(t.state) if v.player == "Ana" for a in v.alerts if a.kind == "reroll"]
    assert "only Ben" in t.no("reroll", player="Ana", bump="bump2", direction=1)
    t.ok("reroll", player="Ben", bump="bump2", direction=1)
    assert t.state.bumps[0].roll == ("bump2", "1")
    assert t.state.news == "Bump of Ana's small car and Ben's large car: re-rolled bump die bump2, direction die 1"
    assert "already re-rolled once" in t.no("reroll", bump="bump3", direction=1)
    t.ok("placed", moved="Ana/small")
    # same size: no re-roll
    _stack(t, "small", "Ana/small")  # Ben's small car onto Ana's small car
    t.ok("bump", bump="bump1", direction=3)
    assert "same size" in t.no("reroll", bump="bump2", direction=2)


def test_unknown_size_does_not_take_the_reroll_away():
    """"If one vehicle is larger, its owner may ask for one re-roll of both dice." — the Big Rig's size is
    unknown data: the companion does not refuse the re-roll it cannot judge."""
    t = Table("Ana", ("Ben", ["large", "big_rig"]))
    t.roll()
    _stack(t, "large", "Ben/big_rig")
    t.ok("bump", bump="bump1", direction=3)
    # Ben's screen does not state a right the sizes cannot settle (it told a small car's owner she may re-roll
    # against a Big Rig)
    ben = next(v for v in GAME.views(t.state) if v.player == "Ben")
    assert [a.text for a in ben.alerts if a.kind == "reroll"] == [
        "bump die bump1 · direction die 3: if yours is larger: one re-roll of both dice, in Ana's menu"]
    # whole in the dashboard's alert box, in pieces shown in turn (it was cut before it said whose menu holds
    # the re-roll), no word cut
    from device.dashboards.thunder_road import ALERT_LINES, ALERT_TEXT_WIDTH, _wrap, alert_pieces

    long = "bump die bump1 · direction die 3: if yours is larger: one re-roll of both dice, in Christopher's menu"
    pieces = alert_pieces("reroll", long)
    assert len(pieces) > 1 and all(len(_wrap(p, ALERT_TEXT_WIDTH, 9, 99)) <= ALERT_LINES for p in pieces)
    assert " ".join(p.strip("…") for p in pieces).split() == long.split()
    t.ok("reroll", bump="bump2", direction=4)


def test_only_an_owner_of_the_stacked_vehicles_asks_for_the_reroll_when_sizes_are_unknown():
    """"If one vehicle is larger, its owner may ask for one re-roll of both dice." — with the Big Rig's size
    unknown the companion cannot tell which of the two owners that is, so either may ask; a third player,
    who owns neither vehicle, owns no larger vehicle and may not."""
    t = Table("Ana", ("Ben", ["large", "big_rig"]), "Cy")
    t.roll()
    _stack(t, "large", "Ben/big_rig")
    t.ok("bump", bump="bump1", direction=3)
    assert t.no("reroll", player="Cy", bump="bump2", direction=4) == (
        "only Ana or Ben, owners of the stacked vehicles, may ask for the re-roll"
    )
    t.ok("reroll", player="Ana", bump="bump2", direction=4)


def test_two_vehicles_of_one_kind_are_the_same_size_even_when_the_size_is_unknown():
    """"If one vehicle is larger, its owner may ask for one re-roll of both dice." — two Final Five bikes (or
    two Big Rigs) are the same kind: whatever the owner writes for their size, neither is larger, so nobody
    may re-roll, even while the size is still "unknown"."""
    t = Table(("Ana", ["bike", "bike"]), ("Ben", ["bike", "big_rig"]), ("Cy", ["big_rig"]))
    t.roll()
    _stack(t, "bike1", "Ben/bike")
    t.ok("bump", bump="bump1", direction=3)
    assert "reroll" not in t.match.prompt().commands and "re-roll" not in t.match.prompt().text
    assert "same size: neither owner may re-roll" in t.no("reroll", bump="bump2", direction=1)
    t.ok("placed", moved="Ben/bike")
    _stack(t, "big_rig", "Cy/big_rig")  # Ben's Big Rig onto Cy's
    t.ok("bump", bump="bump1", direction=3)
    assert "same size" in t.no("reroll", bump="bump2", direction=1)
    t.ok("placed", moved="Cy/big_rig")
    _stack(t, "big_rig", "Ana/bike1")  # Cy's Big Rig onto a bike: sizes unknown, the right is kept
    t.ok("bump", bump="bump1", direction=3)
    t.ok("reroll", bump="bump2", direction=1)


def test_chain_bumps_until_every_space_holds_one_vehicle():
    """"Keep resolving bumps, chain bumps included, until every space holds one vehicle.\""""
    t = Table("Ana", "Ben")
    t.roll()
    t.ok("assign", vehicle="small", die=4)
    t.ok("move", spaces=4, occupied=[{"at": 2, "vehicle": "Ben/small"}, {"at": 4, "vehicle": "Ben/medium"}])
    assert len(t.state.bumps) == 2 and t.view("Ana").bumps == 2
    t.ok("bump", bump="bump1", direction=1)
    t.ok("placed", moved="Ben/small", onto="Ben/large")  # lands on another: a chain bump
    assert len(t.state.bumps) == 2
    assert (t.state.bumps[0].a, t.state.bumps[0].b) == ("Ben/small", "Ben/large")
    t.ok("bump", bump="bump1", direction=1)
    t.ok("placed", moved="Ben/large")
    assert len(t.state.bumps) == 1
    t.ok("bump", bump="bump1", direction=1)
    t.ok("placed", moved="Ben/medium")
    assert t.state.bumps == () and t.state.step is Step.TURN


def test_a_bumped_vehicle_does_not_land_back_on_the_vehicle_it_shared_the_space_with():
    """"When two vehicles share a space, roll the bump die and the direction die: they say which vehicle
    moves and where." and "Keep resolving bumps, chain bumps included, until every space holds one
    vehicle." — the vehicle the dice move leaves the shared space: landing "onto" the other vehicle of the
    pair is no move and no chain bump (it used to queue the same bump again, the stack never resolving)."""
    t = Table("Ana", "Ben")
    t.roll()
    _stack(t, "small", "Ben/small")
    t.ok("bump", bump="bump1", direction=3)
    reason = t.no("placed", moved="Ana/small", onto="Ben/small")
    assert reason == (
        "the bump moves Ana's small car off the space it shares with Ben's small car: it cannot land on "
        "Ben's small car again"
    )
    assert "cannot land" in t.no("placed", moved="Ben/small", onto="Ana/small")
    t.ok("placed", moved="Ben/small", onto="Ben/large")  # a chain bump onto a third vehicle
    assert [(b.a, b.b) for b in t.state.bumps] == [("Ben/small", "Ben/large")]


# --------------------------------------------------------------------------------------------------
# Damage and fire
# --------------------------------------------------------------------------------------------------


def test_two_damage_tokens_put_a_car_out_of_service():
    """"A car that takes damage draws a damage token face down into a damage slot; a car with two damage
    tokens is out of service (inoperable). [seed]\""""
    t = Table("Ana", "Ben")
    t.ok("damage", vehicle="Ana/small")
    assert not t.state.out_of_service("Ana/small")
    t.ok("damage", vehicle="Ana/small")
    assert t.state.out_of_service("Ana/small")
    assert "both damage slots filled" in t.no("damage", vehicle="Ana/small")
    # told on every screen when it comes; its column says OUT.  The banner stands over its owner's screen on
    # their turn only when it keeps every vehicle they have yet to move still: it flashed over every other
    # player's turn for a round on end, then over the whole of each of its owner's turns, hiding the rest of the
    # dashboard (two screens reviews)
    assert {v.news for v in t.match.views()} == {"Ana's small car out of service"}
    assert not [a for a in t.view("Ana").alerts if a.kind == "out_of_service"]  # nobody's turn yet
    t.roll()
    assert t.state.turn.player == "Ana" and t.state.news == ""
    assert not [a for a in t.view("Ana").alerts if a.kind == "out_of_service"]  # her other cars can move
    assert next(v for v in t.view("Ana").vehicles if v.id == "Ana/small").out_of_service  # the column's OUT
    assert "out of service" in t.no("assign", vehicle="small", die=1)
    for kind in ("medium", "large"):
        t.ok("damage", vehicle=f"Ana/{kind}")
        t.ok("damage", vehicle=f"Ana/{kind}")
    assert [a.text for a in t.view("Ana").alerts if a.kind == "out_of_service"] == [
        "Small car is out of service", "Medium car is out of service", "Large car is out of service"]
    from games.core.table_input import leaves

    assert not [lf for lf in leaves(GAME.menu(t.state).choices) if lf.choice.command is not None
                and lf.choice.command.type == "assign" and lf.choice.command.get("vehicle") == "Ana/small"]


def test_repair_removes_one_damage_token():
    """"(A Repair command removes one. [V])\""""
    t = Table("Ana", "Ben")
    t.ok("damage", vehicle="Ana/small")
    t.ok("damage", vehicle="Ana/small")
    t.roll(Ana=[6, 1, 2, 3], Ben=[1, 2, 3, 4])
    t.ok("command", name="repair", die=6, vehicle="small")
    assert t.state.vehicle("Ana/small").damage == 1
    assert not t.state.out_of_service("Ana/small")
    t.turn("small", 1)  # back in service: it can move


def test_a_repair_with_the_last_die_ends_the_turn_instead_of_locking_it():
    """"On your turn you must assign one unused movement die to an operable road vehicle you have not moved
    this round." and "(A Repair command removes one. [V])" — a player whose last die (a 6) repairs a car
    that was out of service has a car to move again but no die to move it with: the turn is over (pass),
    it does not wait for an assignment that can never come."""
    t = Table(("Ana", ["small", "medium"]), ("Ben", ["small"]))
    t.ok("damage", vehicle="Ana/medium")
    t.ok("damage", vehicle="Ana/medium")  # out of service: Ana has only her small car to move
    t.roll(Ana=[1, 1, 1, 6], Ben=[1, 1, 1, 1])
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    for _ in range(2):  # Ana and Ben coast twice each
        t.ok("coast", vehicle="small", die=1)
        t.ok("move")
        t.ok("coast", vehicle="small", die=1)
        t.ok("move")
    assert t.state.turn.player == "Ana" and t.state.player("Ana").dice == (6,)
    t.ok("command", name="repair", die=6, vehicle="medium")  # her last die: the medium car is back
    assert t.state.unmoved("Ana") and t.state.player("Ana").dice == ()
    p = t.match.prompt()
    assert "pass" in p.commands and "assign" not in p.commands and "no die left" in p.text
    t.ok("pass")
    assert t.state.turn.player == "Ben"
    # with a die left, passing is still refused while a vehicle has to move
    t2 = Table("Ana", "Ben")
    t2.roll()
    assert "you must assign a die" in t2.no("pass")


def test_big_rig_and_bikes_take_minor_damage():
    """"The Big Rig and the Final Five bikes take minor damage: the token fills a slot but has no effect.\""""
    t = Table(("Ana", ["big_rig", "bike", "bike"]), "Ben")
    for _ in range(3):
        t.ok("damage", vehicle="Ana/big_rig")
        t.ok("damage", vehicle="Ana/bike1")
    rig = t.state.vehicle("Ana/big_rig")
    assert rig.damage == 3 and not rig.on_fire
    assert not t.state.out_of_service("Ana/big_rig") and not t.state.out_of_service("Ana/bike1")
    assert t.view("Ana").vehicles[0].damage_slots is None  # unknown: shown as "?"
    t.roll()
    t.turn("big_rig", 1)
    # with the slot count filled in by the owner, the slots bound the tokens
    t2 = Table(("Ana", ["big_rig"]), "Ben", vehicle_types={"big_rig": {"damage_slots": 2}})
    t2.ok("damage", vehicle="Ana/big_rig")
    t2.ok("damage", vehicle="Ana/big_rig")
    assert "both damage slots filled" in t2.no("damage", vehicle="Ana/big_rig")
    assert not t2.state.out_of_service("Ana/big_rig")


def test_whether_an_on_fire_damage_token_burns_a_big_rig_is_the_owners_data():
    """"Le Big Rig et les motos Final Five subissent des dégâts mineurs (remplissent un emplacement, mais n'ont
    aucun effet), tandis qu'un jeton EN FEU ! (provenant de dégâts EN FEU ! ou d'une case Feu) reste sur le
    tableau de bord" [seed] — "whereas" an ON FIRE! token stays: whether it burns a vehicle that takes minor
    damage is not certain, so it is data (``damage_fire``).  It was decided in code: never."""
    from games.core.table_input import leaves
    from games.thunder_road.menus import menu

    t = Table(("Ana", ["big_rig", "bike"]), "Ben")  # shipped: unknown, the table's entry decides
    assert t.state.kind_of("Ana/big_rig").damage_fire is None
    t.ok("damage", vehicle="Ana/big_rig", on_fire=True)
    assert t.state.vehicle("Ana/big_rig").on_fire and t.state.vehicle("Ana/big_rig").damage == 1
    t.ok("damage", vehicle="Ana/bike")
    assert not t.state.vehicle("Ana/bike").on_fire
    offered = {lf.path for lf in leaves(menu(t.state).choices)}
    assert ("Damage…", "Bike", "ON FIRE! token") in offered and ("Damage…", "Bike", "Damage token") in offered
    t2 = Table(("Ana", ["big_rig"]), "Ben", vehicle_types={"big_rig": {"damage_fire": False}})
    t2.ok("damage", vehicle="Ana/big_rig", on_fire=True)
    assert not t2.state.vehicle("Ana/big_rig").on_fire  # the owner's ruling: the token only fills a slot
    t3 = Table("Ana", "Ben")
    t3.ok("damage", vehicle="Ana/small", on_fire=True)
    assert t3.state.vehicle("Ana/small").on_fire  # a car: an ON FIRE! token burns it [seed]


def test_on_fire_stays_and_demands_a_fire_die_roll_before_moving():
    """"An ON FIRE! token (from an ON FIRE! damage token or a Fire space) stays on the dashboard; before
    that vehicle moves, its owner must roll the Fire die: the result may add moves, put the fire out, or
    eliminate the vehicle.\""""
    t = Table("Ana", "Ben", fire_die=KNOWN_FIRE)
    t.ok("damage", vehicle="Ana/small", on_fire=True)
    # every screen is told (a walkthrough: only the owner's column showed the flame)
    assert t.state.news == "Ana's small car is ON FIRE!"
    t.ok("ignite", vehicle="Ana/medium")  # a Fire space
    assert t.state.news == "Ana's medium car is ON FIRE!"
    t.ok("ignite", vehicle="Ana/large")
    t.roll(Ana=[3, 3, 3, 3], Ben=[1, 2, 3, 4])
    assert t.view("Ana").vehicles[0].on_fire  # stays on the dashboard
    t.ok("assign", vehicle="small", die=3)
    p = t.match.prompt()
    assert p.step == Step.FIRE.value and p.die == "fire"
    assert [a.text for a in t.view("Ana").alerts if a.kind == "fire_roll"] == ["roll the Fire die for Small car"]
    with pytest.raises(AssertionError):
        t.ok("move")  # not before the Fire die
    assert "not a Fire die face" in t.no("fire", face="fire1")
    t.ok("fire", face="flare")  # adds 2 moves
    assert t.state.turn.allowance == 5 and t.state.vehicle("Ana/small").on_fire
    assert t.state.news == "Fire die for Ana's small car: flare, +2 moves, still burning"
    t.ok("move", spaces=5)
    t.turn("small", 1)  # Ben
    t.ok("assign", vehicle="medium", die=3)
    t.ok("fire", face="doused")  # puts the fire out
    assert not t.state.vehicle("Ana/medium").on_fire
    assert t.state.news == "Fire die for Ana's medium car: doused, the fire is out"
    t.ok("move")
    t.turn("medium", 2)  # Ben
    t.ok("assign", vehicle="large", die=3)
    t.ok("fire", face="inferno")  # eliminates
    assert t.state.vehicle("Ana/large").eliminated
    assert t.state.news == "Ana's large car eliminated by fire"
    assert t.state.turn.player == "Ben"


def test_a_burning_car_that_coasts_rolls_the_fire_die_and_its_moves_add_to_the_coast():
    """"before that vehicle moves, its owner must roll the Fire die: the result may add moves" and "a coast
    counts as a move of 1": a coast is a move, so a burning car rolls before it and the Fire die's moves add to
    its 1 (docs/RULINGS.md; a rules review asked, as the Road die's unknown result leaves a coast at 1)."""
    t = Table(("Ana", ["small"]), ("Ben", ["small"]), fire_die=KNOWN_FIRE)
    t.roll(Ana=[1, 2, 5, 6], Ben=[1, 1, 1, 1])
    t.turn("small", 1)
    t.turn("small", 1)  # Ben
    t.ok("ignite", vehicle="Ana/small")
    t.ok("coast", vehicle="small", die=2)
    assert t.match.prompt().step == Step.FIRE.value  # rolled before the coast, as before any move
    t.ok("fire", face="flare")  # adds 2 moves
    assert t.state.turn.allowance == 3
    assert "at most 3 spaces" in t.no("move", spaces=4)
    t.ok("move", spaces=3)


def test_unknown_fire_face_asks_the_table():
    """"before that vehicle moves, its owner must roll the Fire die: the result may add moves, put the fire
    out, or eliminate the vehicle." — a face the owner has not filled in: the table rules on this roll."""
    t = Table("Ana", "Ben")  # packaged Fire die: every face unknown
    t.ok("ignite", vehicle="Ana/small")
    t.roll()
    t.ok("assign", vehicle="small", die=2)
    t.ok("fire", face="fire4")
    p = t.match.prompt()
    assert p.step == Step.FIRE_RULING.value and "fire_die.toml" in p.text
    # the other screens are told the table rules on it (only the roller's said so)
    assert t.state.news == "Fire die for Ana's small car: fire4, not filled in: the table rules on it"
    assert "effect" in t.no("fire_ruling", effect="explode")
    assert "moves" in t.no("fire_ruling", effect="moves")
    t.ok("fire_ruling", effect="moves", moves=1)
    assert t.state.turn.allowance == 3 and t.state.step is Step.MOVE
    assert t.state.news == "Fire die for Ana's small car: fire4 ruled, +1 move, still burning"


# --------------------------------------------------------------------------------------------------
# The setup, the log, the alerts
# --------------------------------------------------------------------------------------------------


def test_setup_refusals_explain_what_to_fix():
    with pytest.raises(Illegal, match="on_board"):
        GAME.start({"players": ["A", "B"], "board": {"tiles": 5}})
    with pytest.raises(Illegal, match="final"):
        GAME.start({"players": ["A", "B"], "board": {"tiles": 5, "on_board": 3, "final": "9"}})
    with pytest.raises(Illegal, match="unknown vehicle"):
        GAME.start(setup(("A", ["tank"]), "B"))
    with pytest.raises(Illegal, match="two players are called 'A'"):
        GAME.start(setup("A", "A"))
    with pytest.raises(Illegal, match="first_player"):
        GAME.start({**setup("A", "B"), "first_player": "Zed"})


def test_example_setup_starts_and_who_goes_first():
    import tomllib

    m = Match.begin(GAME, tomllib.loads(EXAMPLE_SETUP))
    m.apply(Command.from_json({"type": "roll", "dice": {"Ana": [1, 2, 3, 4], "Ben": [1, 2, 3, 4], "Cy": [1, 2, 3, 4]}}))
    assert m.state.turn.player == "Ana"
    t = Table("Ana", "Ben", "Cy", first_player="Cy")
    t.roll()
    assert t.state.turn.player == "Cy"
    t2 = Table("Ana", "Ben", "Cy")
    t2.ok("roll", player="Ben", dice=[1, 2, 3, 4], first="Ben")
    t2.ok("roll", dice={"Ana": [1, 2, 3, 4], "Cy": [1, 2, 3, 4]})
    assert t2.state.turn.player == "Ben"
    t2.turn("small", 1)
    assert t2.state.turn.player == "Cy"  # turns go round in seat order


def test_first_event_carries_the_rule_tables_and_replays():
    t = Table("Ana", "Ben")
    first = t.match.live_events()[0]
    assert set(first.data["options"]) >= {"vehicle_types", "commands", "fire_die", "dice", "board", "players"}
    t.roll()
    t.turn("small", 3)
    assert replay(GAME, t.match.live_events()) == t.state


def test_a_refused_assignment_records_nothing_and_undo_takes_back_the_last_accepted_command():
    """"On your turn you must assign one unused movement die to an operable road vehicle you have not moved
    this round." — and "A plain refusal with no consequence raises Illegal instead" (games.core): a refused
    assign is not a decision.  After two refused assigns, one undo takes back the last accepted command."""
    t = Table("Ana", "Ben")
    t.roll()
    t.turn("small", 4)  # Ana
    t.ok("assign", vehicle="small", die=1)  # Ben
    t.ok("move")  # the last accepted command: Ben's move
    records = len(t.match.records)
    assert "already moved this round" in t.no("assign", vehicle="small", die=3)  # Ana
    assert "no unused 6" in t.no("assign", vehicle="large", die=6)
    assert len(t.match.records) == records  # nothing recorded
    assert all(v.alerts == () for v in t.match.views())  # the device's refusal notice shows the reason
    t.ok("undo")
    assert t.state.step is Step.MOVE and t.state.turn.player == "Ben"  # Ben's move is taken back
    t.ok("undo")  # the next undo: Ben's assign
    assert t.state.step is Step.TURN and t.state.turn.player == "Ben" and t.state.player("Ben").dice == (1, 2, 3, 4)


def test_out_of_order_commands_are_refused_in_the_players_words():
    """A command sent out of order says what the table must do first, as the players would say it, never
    the name of an internal step."""
    t = Table("Ana", "Ben", "Cy", fire_die=KNOWN_FIRE)
    words: list[str] = []

    def refused(type: str, **args) -> str:
        reason = t.no(type, **args)
        words.append(reason)
        return reason

    assert refused("assign", vehicle="small", die=1) == "Ana, Ben and Cy have not rolled yet: roll the movement dice first"
    t.ok("roll", player="Ana", dice=[1, 2, 3, 4])
    assert refused("move") == "Ben and Cy have not rolled yet: roll the movement dice first"
    t.ok("roll", dice={"Ben": [1, 2, 3, 4], "Cy": [1, 2, 3, 4]})
    assert refused("roll", player="Ana", dice=[1, 2, 3, 4]).startswith("every player still in the race has rolled for round 1")
    assert refused("move") == "no vehicle is moving yet: Ana assigns a die to a vehicle first"
    t.ok("assign", vehicle="small", die=4)
    assert refused("assign", vehicle="medium", die=3) == "move Ana's small car first: its move is being reported"
    assert refused("pass") == "move Ana's small car first: its move is being reported"
    t.ok("move", occupied=[{"at": 4, "vehicle": "Ben/large"}])
    assert refused("placed", moved="Ben/large") == (
        "resolve the bump first: roll the bump and direction dice for Ana's small car and Ben's large car"
    )
    t.ok("bump", bump="bump1", direction=2)
    assert refused("assign", vehicle="small", die=1) == (
        "place the bumped vehicle first: Ana's small car and Ben's large car share a space"
    )
    t.ok("placed", moved="Ben/large")
    t.ok("ignite", vehicle="Ben/small")
    t.ok("assign", vehicle="small", die=3)  # Ben
    assert refused("move") == "Ben's small car is ON FIRE!: roll the Fire die first"
    t.ok("fire", face="mystery")
    assert refused("move").startswith("rule on the Fire die first: face 'mystery' is not filled in")
    assert not any("not now" in reason or "the table must" in reason or "+" in reason for reason in words)


# -- the automatic consequences are events; old logs still fold ---------------------------------------------


def test_consequences_are_recorded_as_events():
    """"(Also: last player standing wins. [V])" and the turn order are decided when the command is, and
    written to the log as events of their own: replaying the log applies them, it never re-runs a rule."""
    t = Table(("Ana", ["small"]), ("Ben", ["small", "medium"]), fire_die=KNOWN_FIRE)
    assert t.match.live_events()[0].data["events"] == 2

    def new_events(type: str, **args) -> list[str]:
        return [r.event.type for r in t.ok(type, **args).records]

    assert new_events("roll", dice={"Ana": [1, 2, 3, 4], "Ben": [1, 2, 3, 4]}) == ["dice_rolled", "dice_rolled", "turn_started"]
    t.ok("assign", vehicle="small", die=4)
    assert new_events("move") == ["moved", "turn_started"]
    t.turn("small", 1)  # Ben
    assert new_events("pass") == ["passed", "turn_started"]  # Ana passes: Ben again
    t.turn("medium", 2)
    assert new_events("pass") == ["passed", "round_ended"]  # nobody has a die left to use
    assert t.state.round == 2 and t.state.step is Step.ROLL
    t.ok("ignite", vehicle="Ana/small")
    t.roll()
    assert new_events("assign", vehicle="small", die=4) == ["die_assigned", "fire_roll_required"]
    t.ok("fire", face="flare")
    out = t.ok("scroll", eliminated=["Ben/small", "Ben/medium"])
    assert [r.event.to_json() for r in out.records][1:] == [
        {"type": "race_won", "data": {"player": "Ana", "reason": "last_standing"}}
    ]
    assert replay(GAME, t.match.live_events()) == t.state


def _old_log(options: dict) -> list[Event]:
    """The log of ``test_consequences_are_recorded_as_events``' game as the companion wrote it before the
    consequences were events: no version in game_started, no turn_started / round_ended /
    fire_roll_required / race_won, and a refused assignment recorded as assignment_refused."""

    def e(type: str, **data) -> Event:
        return Event(type, data)

    return [
        Event("game_started", {"options": normalise(options)}),
        e("dice_rolled", player="Ana", dice=[1, 2, 3, 4]),
        e("dice_rolled", player="Ben", dice=[1, 2, 3, 4]),
        e("die_assigned", player="Ana", vehicle="Ana/small", die=4),
        e("moved", vehicle="Ana/small", spaces=4, collisions=[], passed=None),
        e("die_assigned", player="Ben", vehicle="Ben/small", die=1),
        e("moved", vehicle="Ben/small", spaces=1, collisions=[], passed=None),
        e("assignment_refused", player="Ana", reason="Ana's small car already moved this round"),
        e("passed", player="Ana"),
        e("die_assigned", player="Ben", vehicle="Ben/medium", die=2),
        e("moved", vehicle="Ben/medium", spaces=2, collisions=[], passed=None),
        e("passed", player="Ben"),
        e("ignited", vehicle="Ana/small"),
        e("dice_rolled", player="Ana", dice=[1, 2, 3, 4]),
        e("dice_rolled", player="Ben", dice=[1, 2, 3, 4]),
        e("die_assigned", player="Ana", vehicle="Ana/small", die=4),
        e("fire_rolled", vehicle="Ana/small", face="flare", effect="moves", moves=2),
        e("board_scrolled", eliminated=["Ben/small", "Ben/medium"], lead="4", rear="1"),
    ]


def test_a_log_written_before_the_consequences_were_events_folds_to_the_same_state():
    """"(Also: last player standing wins. [V])" — in a log written the old way the next turn, the end of the
    round, the Fire die due and the winner were left to evolve: they are still drawn for such a log, and its
    refusals (assignment_refused) fold to nothing, so the old game folds to the state it was played to."""
    options = setup(("Ana", ["small"]), ("Ben", ["small", "medium"]), fire_die=KNOWN_FIRE)
    old = _old_log(options)

    def at(n: int):
        return replay(GAME, old[:n])

    assert at(3).step is Step.TURN and at(3).turn.player == "Ana"  # everyone rolled: Ana's turn
    assert at(5).turn.player == "Ben"  # Ana's move reported: Ben's turn
    assert at(8) == at(7)  # the old refusal: nothing
    # nothing at all, the news of the decision before it included (a review: it cleared it)
    told = replace(at(7), news="Ben's small car out of service")
    assert GAME.evolve(told, old[7]) == told
    assert at(9).turn.player == "Ben"  # Ana passed
    assert at(12).round == 2 and at(12).step is Step.ROLL and at(12).player("Ben").dice == ()
    assert at(16).step is Step.FIRE  # a die went to a burning car: the Fire die first
    final = at(len(old))
    assert final.step is Step.GAME_OVER and final.winner == "Ana"
    assert final.note == "Ana is the last player standing and wins"
    assert final.news.endswith("; Ana is the last player standing and wins")  # after what the decision did
    assert final.log_version == 1

    t = Table(("Ana", ["small"]), ("Ben", ["small", "medium"]), fire_die=KNOWN_FIRE)  # the same game, played now
    t.roll()
    t.turn("small", 4)
    t.turn("small", 1)
    assert "already moved" in t.no("assign", vehicle="small", die=1)
    t.ok("pass")
    t.turn("medium", 2)
    t.ok("pass")
    t.ok("ignite", vehicle="Ana/small")
    t.roll()
    t.ok("assign", vehicle="small", die=4)
    t.ok("fire", face="flare")
    t.ok("scroll", eliminated=["Ben/small", "Ben/medium"])
    assert replace(final, log_version=2) == t.state
    assert [e.type for e in t.match.live_events() if e.type not in CONSEQUENCES] == [
        e.type for e in old if e.type != "assignment_refused"
    ]


def test_an_old_game_goes_on_the_old_way():
    """An old game resumed by this companion keeps writing its log the old way (the consequences implicit),
    so they are neither lost nor applied twice."""
    options = setup(("Ana", ["small"]), ("Ben", ["small", "medium"]), fire_die=KNOWN_FIRE)
    old = _old_log(options)[:12]  # round 1 played, round 2 to roll
    match = Match(GAME, [Record(i + 1, i, e) for i, e in enumerate(old)])
    out = match.apply(Command.from_json({"type": "roll", "dice": {"Ana": [1, 2, 3, 4], "Ben": [5, 5, 5, 5]}}))
    assert [r.event.type for r in out.records] == ["dice_rolled", "dice_rolled"]
    assert match.state.step is Step.TURN and match.state.turn.player == "Ana"
    assert match.apply(Command("assign", {"vehicle": "small", "die": 4})).accepted
    assert match.apply(Command("move")).accepted
    assert match.state.turn.player == "Ben" and match.state.log_version == 1
    assert replay(GAME, match.live_events()) == match.state


def test_a_log_of_a_later_version_is_not_guessed_at():
    """A log whose game_started names an events version this companion does not know is refused as a whole
    (the owner is told which version), never folded with rules of the wrong version."""
    with pytest.raises(CorruptLog, match="version 3"):
        Match(GAME, [Record(1, 0, Event("game_started", {"options": normalise(setup()), "events": 3}))])


def test_dice_read_by_the_camera_become_commands():
    """The roll the menu awaits (``Menu.dice``) turns the faces read into the step's command."""
    t = Table("Ana", "Ben")

    def awaited():
        return GAME.menu(t.state).dice

    def read(faces: list) -> None:
        command = awaited().command(faces)
        assert command is not None
        assert t.match.apply(command).accepted

    t.ok("ignite", vehicle="Ana/small")
    assert awaited().command([1, 2, 3]) is None  # four movement dice, not three
    read([1, 2, 3, 4])
    read([1, 2, 3, 4])
    t.ok("assign", vehicle="small", die=4)
    read(["fire2"])
    t.ok("fire_ruling", effect="nothing")
    t.ok("move", occupied=[{"at": 4, "vehicle": "Ben/small"}])
    read(["bump3", "bump4"])  # typed on the buttons: the 4th face of the second die = direction 4
    assert t.state.bumps[0].roll == ("bump3", "4")
    assert t.state.step is Step.PLACE
    assert awaited() is None  # placing awaits no dice


def test_every_tagged_sentence_is_quoted():
    """Every sentence of thunder-road.md marked [seed] or [V] (or under a [seed] heading) is quoted in a
    docstring of this file, and every quote is faithful to the rules file."""
    if not RULES_FILE.exists():
        pytest.skip("shared/rules/thunder-road.md is not on this machine")

    def norm(text: str) -> str:
        return re.sub(r"\s+", " ", text.replace("*", "")).strip()

    rules = norm(RULES_FILE.read_text("utf-8"))
    module = sys.modules[__name__]
    docs = norm(" ".join(f.__doc__ or "" for n, f in vars(module).items() if n.startswith("test_")))
    sentences = REQUIRED_SENTENCES
    for s in sentences:
        assert norm(s) in rules, f"the rules file changed: {s!r}"
        assert norm(s) in docs, f"no test quotes: {s!r}"
    # and every tagged line of the rules file is covered by one of the required sentences
    for block in _rule_blocks(RULES_FILE.read_text("utf-8")):
        if "[seed]" in block or "[V]" in block:
            assert any(norm(s) in norm(block) for s in sentences), f"tagged rule without a test: {block!r}"


def _rule_blocks(text: str) -> list[str]:
    """The bullets and paragraphs after the first section heading, continuation lines joined.

    A block under a heading tagged [seed] carries the heading's tag (appended), so it counts as tagged."""
    blocks: list[str] = []
    out: list[str] = []
    started, tag = False, ""
    for line in text.splitlines():
        if line.startswith("## "):
            if started:
                out.extend(b + tag for b in blocks if b.strip())
            started, tag, blocks = True, (" [seed]" if "[seed]" in line else ""), [""]
            continue
        if not started:
            continue
        if not line.strip():
            blocks.append("")
        elif line.startswith("- ") or not blocks[-1]:
            blocks.append(line[2:] if line.startswith("- ") else line)
        else:
            blocks[-1] += " " + line.strip()
    out.extend(b + tag for b in blocks if b.strip())
    return out


REQUIRED_SENTENCES = (
    "2–4 players (up to 5 with Big Rig & Final Five).",
    "Each player has 3 road vehicles (small, medium, large car), 4 movement dice, a command board and a chopper.",
    "Maximum Chrome adds the Fire die and ON FIRE! token, Fire spaces, the Big Rig and the Final Five motorbikes.",
    "On your turn you must assign one unused movement die to an operable road vehicle you have not moved this round.",
    "If you have no such vehicle, you may instead assign a die to the coast (roue libre) space of a vehicle you "
    "already moved — at most twice per vehicle per round; a coast counts as a move of 1.",
    "Once per round you may also assign an unused movement die to a command on your command board — but not on a "
    "turn in which you coast.",
    "Commands: Airstrike (any die), Nitro (die 1–3, adds movement), Drift (die 3–5), Repair (die 6, removes one "
    "damage token).",
    "Drift (dérapage): the vehicle passes through the first space it reaches that holds another road vehicle "
    "without hitting it; if it ends its move on an occupied space it hits it anyway (even if that would have "
    "been its first collision).",
    "Big Rig: does not use the Road die unless its Traction Drive command (centre section) is active this turn.",
    "When a vehicle leaves the front of the board and the lead tile was not the final tile: remove the rear tile "
    "(vehicles on it are eliminated [V]), slide the tiles back, draw a new lead tile, seed its hazards; a "
    "vehicle with moves left carries on onto the new lead tile.",
    "Moving onto the finish line of the final tile ends the game: that player wins.",
    "(Also: last player standing wins. [V])",
    "When two vehicles share a space, roll the bump die and the direction die: they say which vehicle moves and "
    "where.",
    "If one vehicle is larger, its owner may ask for one re-roll of both dice.",
    "Keep resolving bumps, chain bumps included, until every space holds one vehicle.",
    "A car that takes damage draws a damage token face down into a damage slot; a car with two damage tokens is "
    "out of service (inoperable).",
    "(A Repair command removes one. [V])",
    "The Big Rig and the Final Five bikes take minor damage: the token fills a slot but has no effect.",
    "An ON FIRE! token (from an ON FIRE! damage token or a Fire space) stays on the dashboard; before that "
    "vehicle moves, its owner must roll the Fire die: the result may add moves, put the fire out, or eliminate "
    "the vehicle.",
)


def test_a_roll_naming_no_player_by_name_is_refused_not_a_crash():
    """Found by the stateful test: a roll whose "player" is not a name (a list, from a bad script line) is
    refused with the expected shape of the command."""
    import tomllib

    from games.core import Command, Match
    from games.thunder_road import EXAMPLE_SETUP, GAME

    match = Match.begin(GAME, tomllib.loads(EXAMPLE_SETUP))
    outcome = match.apply(Command("roll", {"player": ["Ana"], "dice": [1, 2, 3, 4]}))
    assert not outcome.accepted and "whose dice" in (outcome.reason or "")


def test_every_command_declares_its_fields_and_a_misspelt_one_is_refused() -> None:
    """Every command the deciders take declares its fields; a field outside them is refused by the match,
    naming it, instead of being dropped.  Dropped, they changed the game without a word: "on_fier" made
    an ON FIRE! token a plain one, "occupid" a move with no collision, "ontto" a bump landing on an empty
    space, "firts" left the setup's first player to go first."""
    from games.thunder_road.deciders import COMMAND_FIELDS, DECIDERS

    assert GAME.commands is COMMAND_FIELDS and COMMAND_FIELDS.keys() == DECIDERS.keys()
    import tomllib

    match = Match.begin(GAME, tomllib.loads(EXAMPLE_SETUP))
    before = len(match.records)
    outcome = match.apply(Command("roll", {"dice": {"Ana": [1, 2, 3, 4]}, "firts": "Ben"}))
    assert not outcome.accepted and outcome.reason is not None
    assert outcome.reason.startswith("roll: unknown field 'firts' (did you mean 'first'?)")
    assert len(match.records) == before
    outcome = match.apply(Command("damage", {"vehicle": "Ben/small", "on_fier": True}))
    assert outcome.reason is not None and "unknown field 'on_fier' (did you mean 'on_fire'?)" in outcome.reason
    outcome = match.apply(Command("pass", {"now": True}))
    assert outcome.reason == "pass: unknown field 'now'; the fields here are player"
    outcome = match.apply(Command("finish", {"vehicel": "Ben/small"}))
    assert outcome.reason == "finish: unknown field 'vehicel' (did you mean 'vehicle'?); the fields here are vehicle"


def test_a_misspelt_field_of_an_occupied_space_is_named():
    """Each occupied space is {"at": SPACE, "vehicle": ...}: "vehicel" is named, not told as "name the
    vehicle"."""
    t = Table("Ana", "Ben")
    t.roll(Ana=[4, 3, 1, 1], Ben=[1, 2, 3, 4])
    t.ok("assign", vehicle="small", die=4)
    reason = t.no("move", spaces=4, occupied=[{"at": 2, "vehicel": "Ben/small"}])
    assert reason.startswith("an occupied space: unknown field 'vehicel' (did you mean 'vehicle'?)"), reason
    t.ok("move", spaces=4, occupied=[{"at": 2, "vehicle": "Ben/small"}])


def test_the_owners_own_dice_faces_are_the_ones_the_buttons_offer():
    """"The faces are the owner's data" (fire_die.toml: "override this whole table from the setup file:
    [fire_die]") — with the owner's Fire die or bump die in the setup file, the buttons offered the packaged
    faces (fire1..fire6, bump1..bump6) and the game refused every one: a burning vehicle never moved."""
    from device.menus import faces_of
    from games.thunder_road import DIE_TYPES
    from games.thunder_road.menus import menu

    t = Table("Ana", "Ben", fire_die=KNOWN_FIRE)
    t.ok("ignite", vehicle="Ana/small")
    t.roll()
    t.ok("assign", vehicle="small", die=2)
    request = menu(t.state).dice
    assert request is not None and request.die == "fire"
    assert faces_of(request, DIE_TYPES) == ("flare", "doused", "inferno", "smoke", "mystery")
    command = request.command(["doused"])
    t.ok(command.type, **command.args)
    assert not t.state.vehicle("Ana/small").on_fire

    bump = {"faces": ["Mover", "Mover", "Mover", "Other", "Other", "Other"]}
    t = Table("Ana", "Ben", dice={"bump": bump})
    t.roll()
    t.ok("assign", vehicle="small", die=2)
    t.ok("move", spaces=2, occupied=[{"at": 2, "vehicle": "Ben/small"}])
    entry = next(c.dice for c in menu(t.state).choices if c.dice is not None and c.dice.die == "bump")
    assert faces_of(entry, DIE_TYPES) == ("Mover", "Other")  # each face once
    direction = entry.command(["Other"])
    assert faces_of(direction, DIE_TYPES) == (1, 2, 3, 4, 5, 6)
    command = direction.command([4])
    t.ok(command.type, **command.args)


def test_prompts_refusals_and_notes_name_vehicles_in_the_rulebooks_words():
    """The rules' ids ("Ana/bike2", "big_rig") are no word of the rulebook's: the prompt said "assign a die
    (1, 2, 3, 4) to big_rig, bike1, bike2", a refusal "assign your die to big_rig, bike1, bike2", a bump
    "bump Ana/bike2 / Ben/large".  The rulebook's name "Big Rig" stays a name in a sentence ("Cy's big rig"
    lost it); "Small car" is a label, "small car" in a sentence."""
    from games.thunder_road.common import in_sentence

    assert [in_sentence(w) for w in ("Small car", "Big Rig", "Bike", "ATV", "VW bus", "War-Rig", "X")] == \
        ["small car", "Big Rig", "bike", "ATV", "VW bus", "War-Rig", "x"]
    t = Table(("Ana", ["small", "big_rig", "bike", "bike"]), "Ben")
    t.roll()
    t.turn("small", 1)
    assert t.match.prompt().text == "Ben: assign a die (1, 2, 3, 4) to small car, medium car, large car"
    t.turn("small", 1)
    prompt = t.match.prompt().text
    assert prompt == "Ana: assign a die (2, 3, 4) to Big Rig, bike 1, bike 2", prompt
    why = t.no("assign", vehicle="small", die=2)
    assert why.endswith("already moved this round: assign your die to Big Rig, bike 1, bike 2"), why
    why = t.no("pass")
    assert why.endswith("you must assign a die to a vehicle you have not moved: Big Rig, bike 1, bike 2"), why
    for text in (prompt, why):
        assert "_" not in text and "bike1" not in text


def test_refusals_name_vehicles_commands_and_players_as_the_table_does():
    """An audit of the rules' words: "the movement die must be a movement die value from 1 to 6" (said twice);
    "Ben's vehicles are small, medium, large" and "the commands are airstrike, ..., traction_drive" (the program's
    words, where the screens say "Small car" and "Traction Drive"); "it is Ben's turn, not Cy's" of Cy, out of
    the race."""
    t = Table("Ana", "Ben")
    assert t.no("roll", dice={"Ana": [0, 2, 3, 4], "Ben": [1, 2, 3, 4]}) == (
        "the movement die must be a value from 1 to 6 (got 0)")
    t.roll(Ana=[1, 2, 3, 4], Ben=[1, 2, 3, 4])
    assert t.no("assign", vehicle="lorry", die=1) == (
        "Ana has no vehicle 'lorry': Ana's vehicles are Small car (small), Medium car (medium), Large car (large)")
    reason = t.no("command", name="warp", die=1)
    assert reason.startswith("unknown command 'warp': the commands are ") and "Traction Drive (traction_drive)" in reason


def test_a_command_from_a_player_out_of_the_race_says_so():
    """An audit: a command naming a player whose vehicles were all eliminated said "it is Ana's turn, not Cy's"."""
    t = Table("Ana", "Ben", ("Cy", ["small"]), tiles=["a", "b", "c", "d", "e"], on_board=3)
    t.roll()
    t.ok("assign", vehicle="large", die=4)
    t.ok("scroll", eliminated=["Cy/small"])
    assert not t.state.standing("Cy")
    assert t.no("road", player="Cy", vehicle="small", face=1) == "Cy is out of the race; it is Ana's turn"


def test_a_vehicle_met_beyond_the_move_is_refused_as_beyond_it():
    """A vehicle reported met at a space the move does not reach was refused as "met where the move ends" (an
    audit: space 5 of a 2-space move); the space where it ends is reported with the move, as before."""
    t = Table("Ana", "Ben")
    t.roll(Ana=[1, 2, 3, 4], Ben=[1, 2, 3, 4])
    t.ok("assign", vehicle="small", die=2)
    allowance = t.state.turn.allowance
    assert t.no("met", vehicle="Ben/small", at=allowance + 3).endswith(
        f"a vehicle at space {allowance + 3} is beyond the move, not met")
    assert t.no("met", vehicle="Ben/small", at=allowance).endswith("report it with the move (ended on it)")


def test_a_damage_token_is_told_on_every_screen():
    """"A car that takes damage draws a damage token face down into a damage slot; a car with two damage tokens
    is out of service" [seed] — an audit:
    a token that put nothing out of service was said only on the sender's screen ("recorded: Damage… › Ben ›
    Large car"); its owner saw one square fill. Every screen is told the vehicle and its count."""
    t = Table("Ana", "Ben")
    t.ok("damage", vehicle="Ben/large")
    slots = t.state.kind_of("Ben/large").damage_slots
    assert t.state.news == f"Ben's large car: damage 1 of {slots if slots else '?'}"
    t.roll(Ana=[4, 6, 5, 6], Ben=[1, 2, 3, 4])
    assert t.state.news == ""  # told once
