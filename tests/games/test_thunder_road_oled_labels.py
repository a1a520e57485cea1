"""Thunder Road's button menu as a player reads it on a 128x64 screen: with five players and nineteen
vehicles every choice must stay readable (not shrunk to the smallest size, not cut), and what the dice
said must be on the screen, not only in the terminal's prompt line."""

from __future__ import annotations

from typing import Any

from device.dashboards.common import text_width
from games.core import Command
from games.core import Match
from games.core.table_input import Choice, leaves
from games.thunder_road import GAME
from games.thunder_road.menus import menu

#: the menu line's room for the highlighted choice (pages.render_menu: x 3..WIDTH-3) and a readable size
LINE, READABLE = 122, 10

FIVE = {"first_player": "Ana", "players": [
    {"name": "Ana", "vehicles": ["small", "medium", "large", "big_rig"]},
    {"name": "Benedikt", "vehicles": ["small", "small", "medium", "large"]},
    {"name": "Cy", "vehicles": ["small", "medium", "large", "bike"]},
    {"name": "Dominique", "vehicles": ["small", "medium", "large", "bike"]},
    {"name": "Eve", "vehicles": ["small", "medium", "large"]}],
    "board": {"tiles": 5, "on_board": 3}}


def match(setup: dict[str, Any] = FIVE) -> Match[Any]:
    return Match.begin(GAME, setup)


def ok(m: Match[Any], kind: str, **args: Any) -> None:
    outcome = m.apply(Command(kind, args))
    assert outcome.accepted, outcome.reason


def rolled(m: Match[Any]) -> Match[Any]:
    for name, dice in [("Ana", [1, 3, 4, 6]), ("Benedikt", [2, 2, 5, 6]), ("Cy", [3, 3, 4, 5]),
                       ("Dominique", [1, 2, 3, 6]), ("Eve", [1, 4, 5, 6])]:
        ok(m, "roll", player=name, dice=dice)
    return m


def under(choices: tuple[Choice, ...], *path: str) -> list[str]:
    for label in path:
        choices = next(c for c in choices if c.label == label).children
    return [c.label for c in choices]


def test_a_players_own_list_names_the_vehicles_without_the_player_again() -> None:
    m = rolled(match())
    m_ = menu(m.state)
    assert under(m_.choices, "Damage…", "Dominique") == ["Small car", "Medium car", "Large car", "Bike"]
    assert under(m_.choices, "Damage…", "Benedikt") == ["Small car 1", "Small car 2", "Medium car", "Large car"]
    ok(m, "assign", vehicle="Ana/large", die=4)
    m_ = menu(m.state)
    assert under(m_.choices, "Met a vehicle…", "Dominique") == ["Small car", "Medium car", "Large car", "Bike"]
    assert "Medium car off" in under(m_.choices, "Road scrolls…", "Dominique")
    for lf in leaves(m_.choices):  # every list of a 19-vehicle table reads at a readable size
        for label in lf.path:
            assert text_width(label + " ›", READABLE) <= LINE, lf.path


def test_the_dice_read_and_the_allowance_are_on_the_menu_page() -> None:
    m = rolled(match())
    assert menu(match().state).dice.label == "4 movement dice"  # type: ignore[union-attr]  # title: whose
    ok(m, "command", name="nitro", die=1)
    ok(m, "assign", vehicle="Ana/big_rig", die=4)
    assert menu(m.state).status == "Big Rig · 4+Nitro spaces"  # as the prompt says: Nitro's spaces unknown
    ok(m, "move", spaces=4)
    ok(m, "command", name="drift", die=5)
    ok(m, "assign", vehicle="Benedikt/small2", die=2)
    assert menu(m.state).status == "Small car 2 · 2 spaces · Drift"  # Drift changes how it moves
    ok(m, "move", spaces=2)
    ok(m, "assign", vehicle="Cy/large", die=3)
    ok(m, "move", spaces=3, occupied=[{"at": 3, "vehicle": "Dominique/small"}])
    assert menu(m.state).status == "Bump: Large / Dominique's Small"  # Cy's own: no name; it fits
    ok(m, "bump", bump="bump2", direction=5)
    # the dice say where: the table places by them (each face with its die: a renamed face read alone)
    assert menu(m.state).title == "bump die bump2 · direction 5"
    ok(m, "placed", moved="Dominique/small")
    ok(m, "damage", vehicle="Dominique/medium", on_fire=True)
    ok(m, "assign", vehicle="Dominique/medium", die=3)
    ok(m, "fire", face="fire3")
    assert menu(m.state).title == "Fire die fire3: rule"  # the face read, not filled in: the table rules
    ok(m, "fire_ruling", effect="nothing")
    ok(m, "move", spaces=3)


def test_a_coast_of_one_space_says_so() -> None:
    m = match({"players": [{"name": "Ana", "vehicles": ["small"]}, {"name": "Ben", "vehicles": ["small"]}],
               "board": {"tiles": 5, "on_board": 3}})
    ok(m, "roll", player="Ana", dice=[2, 3, 5, 6])
    ok(m, "roll", player="Ben", dice=[1, 1, 1, 1])
    ok(m, "assign", vehicle="Ana/small", die=3)
    ok(m, "move", spaces=3)
    ok(m, "assign", vehicle="Ben/small", die=1)
    ok(m, "move", spaces=1)
    ok(m, "coast", vehicle="Ana/small", die=5)
    assert menu(m.state).status == "Small car · 1 space · coast"  # not "1 spaces"
    assert all(text_width(t, 8) <= 125 for t in ("Small car 2 · 2 spaces · Drift", "Big Rig · 4+Nitro spaces"))


def test_a_vehicle_met_on_the_way_is_hit_unless_the_mover_drifts() -> None:
    """"Drift: the vehicle passes through the first space it reaches that holds another road vehicle without
    hitting it."  Without Drift every such space is a hit; the menu said "Passed at space 1" and recorded a bump."""
    m = rolled(match())
    ok(m, "assign", vehicle="Ana/large", die=4)
    spots = under(menu(m.state).choices, "Met a vehicle…", "Dominique", "Bike")
    assert spots == ["Ended on it", "Hit it at space 1", "Hit it at space 2", "Hit it at space 3", "Then met another…"]
    leaf = next(c for c in next(c for c in next(c for c in menu(m.state).choices if c.label == "Met a vehicle…")
                                .children if c.label == "Dominique").children if c.label == "Bike")
    hit = next(c for c in leaf.children if c.label == "Hit it at space 2")
    ok(m, hit.command.type, **hit.command.args)
    assert m.state.bumps, "a vehicle hit on the way is a bump"


def test_a_drifting_vehicle_is_offered_to_drift_past_the_one_it_meets() -> None:
    m = match({"first_player": "Ana", "players": [{"name": "Ana"}, {"name": "Ben"}], "board": {"tiles": 5, "on_board": 3}})
    ok(m, "roll", player="Ana", dice=[4, 3, 1, 1])
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "command", name="drift", die=3)
    ok(m, "assign", vehicle="Ana/small", die=4)
    assert under(menu(m.state).choices, "Met a vehicle…", "Ben's Small car") == ["Ended on it", "Drifted past it",
                                                                               "Then met another…"]


def test_a_one_space_drift_is_not_offered_to_drift_past() -> None:
    """"if it *ends* its move on an occupied space it hits it anyway": a move of 1 meets a vehicle only where
    it ends, so "Drifted past it" (which sent the same move as "Ended on it" and recorded a bump) is not
    offered."""
    m = match({"first_player": "Ana", "players": [{"name": "Ana"}, {"name": "Ben"}], "board": {"tiles": 5, "on_board": 3}})
    ok(m, "roll", player="Ana", dice=[1, 3, 5, 6])
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "command", name="drift", die=3)
    ok(m, "assign", vehicle="Ana/small", die=1)
    assert under(menu(m.state).choices, "Met a vehicle…", "Ben's Small car") == ["Ended on it"]


def test_two_vehicles_on_the_rear_tile_go_off_in_one_scroll() -> None:
    """"remove the rear tile (vehicles on it are eliminated)" — the buttons took one vehicle off a scroll: a
    second on the same tile could only go in as another scroll, recording a second tile removed. "Two off…"
    names both (the phone and the sim take any number)."""
    m = rolled(match())
    ok(m, "assign", vehicle="Ana/large", die=4)
    m_ = menu(m.state)
    assert "Large car off" not in under(m_.choices, "Road scrolls…", "Your vehicles")  # the mover leaves the front
    second = under(m_.choices, "Road scrolls…", "Two off…", "Cy", "Small car", "Dominique")
    assert "Medium car" in second
    path = ("Road scrolls…", "Two off…", "Cy", "Small car", "Dominique", "Medium car")
    lf = next(lf for lf in leaves(m_.choices) if lf.path == path)
    assert lf.choice.command == Command("scroll", {"eliminated": ["Cy/small", "Dominique/medium"]})
    pairs = [tuple(sorted(x.choice.command.args["eliminated"])) for x in leaves(m_.choices)
             if x.path[:2] == ("Road scrolls…", "Two off…")]
    n = sum(1 for v in m.state.vehicles if not v.eliminated) - 1  # besides the mover
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2  # each pair once
    tiles = m.state.board.rear
    ok(m, "scroll", **lf.choice.command.args)
    assert {v.id for v in m.state.vehicles if v.eliminated} == {"Dominique/medium", "Cy/small"}
    assert m.state.board.rear == tiles + 1  # one tile removed


def choose(m: Match[Any], *path: str) -> None:
    """Send the command at the end of ``path`` in the menu as it stands."""
    choices = menu(m.state).choices
    for label in path:
        chosen = next(c for c in choices if c.label == label)
        choices = chosen.children
    assert chosen.command is not None, path
    ok(m, chosen.command.type, **chosen.command.args)


def traffic(*, drift: bool = False, ben: tuple[str, ...] = ("small",)) -> Match[Any]:
    """Ana's Large car moving 4 (with Drift) through Ben's and Cy's cars."""
    m = match({"first_player": "Ana", "players": [{"name": "Ana", "vehicles": ["large"]},
                                                  {"name": "Ben", "vehicles": list(ben)},
                                                  {"name": "Cy", "vehicles": ["medium"]}], "board": {"tiles": 5, "on_board": 3}})
    ok(m, "roll", player="Ana", dice=[4, 3, 1, 1])
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "roll", player="Cy", dice=[1, 2, 3, 4])
    if drift:
        ok(m, "command", name="drift", die=3)
    ok(m, "assign", vehicle="Ana/large", die=4)
    return m


def test_a_move_through_two_vehicles_is_entered_on_the_buttons() -> None:
    """"the vehicle passes through the first space it reaches that holds another road vehicle without hitting
    it (even if that would have been its first collision)": a move meets more than one vehicle.  The buttons
    offered one vehicle per move: hitting Ben's car and ending on Cy's could not be entered."""
    m = traffic()
    assert under(menu(m.state).choices, "Met a vehicle…", "Ben's Small car", "Then met another…") == [
        "Hit it at space 1", "Hit it at space 2", "Hit it at space 3"]
    choose(m, "Met a vehicle…", "Ben's Small car", "Then met another…", "Hit it at space 2")
    assert m.state.step.value == "move the vehicle" and not m.state.bumps  # nothing resolved before the move is whole
    status = menu(m.state).status
    assert status.endswith("hit Ben's Small at 2"), status  # what was entered so far, on the screen
    # Ben's car is not met twice; Cy's stood further on
    assert under(menu(m.state).choices, "Met a vehicle…") == ["Cy's Medium car"]
    assert under(menu(m.state).choices, "Met a vehicle…", "Cy's Medium car") == ["Ended on it", "Hit it at space 3"]
    choose(m, "Met a vehicle…", "Cy's Medium car", "Ended on it")
    assert [(b.a, b.b) for b in m.state.bumps] == [("Ana/large", "Ben/small"), ("Ana/large", "Cy/medium")]


def test_a_drift_passes_the_first_vehicle_and_hits_the_next() -> None:
    m = traffic(drift=True)
    choose(m, "Met a vehicle…", "Ben's Small car", "Then met another…", "Drifted past it")
    # only the first occupied space is passed: the next vehicle is hit, wherever it stood
    assert under(menu(m.state).choices, "Met a vehicle…", "Cy's Medium car") == [
        "Ended on it", "Hit it at space 2", "Hit it at space 3"]
    choose(m, "Met a vehicle…", "Cy's Medium car", "Hit it at space 3")
    assert [(b.a, b.b) for b in m.state.bumps] == [("Ana/large", "Cy/medium")]
    moved = [e for e in m.live_events() if e.type == "moved"][-1]
    assert moved.data["passed"] == "Ben/small" and moved.data["spaces"] == 4


def test_vehicles_met_one_at_a_time_are_checked_as_a_move_is() -> None:
    m = traffic()

    def refused(kind: str, **args: Any) -> str:
        outcome = m.apply(Command(kind, args))
        assert not outcome.accepted
        return str(outcome.reason)

    assert "report it with the move" in refused("met", vehicle="Ben/small", at=4)  # where it ends: the move
    assert "own way" in refused("met", vehicle="Ana/large", at=1)
    ok(m, "met", vehicle="Ben/small", at=2)
    assert "further on" in refused("met", vehicle="Cy/medium", at=2)
    assert "met at space 2 and again" in refused("met", vehicle="Ben/small", at=3)
    assert "at least 2 spaces, not 1" in refused("move", spaces=1)
    assert "met already" in refused("move", spaces=4, occupied=[{"at": 1, "vehicle": "Cy/medium"}])
    assert "hit Ben's small car at space 2" in m.prompt().text
    ok(m, "undo")  # undo takes the vehicle met back: the move is as before
    ok(m, "move", spaces=4)
    assert not m.state.bumps


def test_who_goes_first_in_a_round_is_said_on_the_buttons() -> None:
    """``roll {first}``: who goes first this round, said with the round's first roll (default: as last round).
    The buttons could not say it: a table passing the first turn round the table was stuck with Ana."""
    m = match({"first_player": "Ana", "players": [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}],
               "board": {"tiles": 5, "on_board": 3}})
    assert menu(m.state).title == "Roll, first: Ana"  # the name last: a title too long for its bar is cut at its end
    assert under(menu(m.state).choices, "Another goes first…") == ["Ben first", "Cy first"]
    entry = next(c for c in next(c for c in menu(m.state).choices if c.label == "Another goes first…").children
                 if c.label == "Cy first")
    assert entry.dice is not None and entry.dice.count == 4
    assert entry.dice.label == "Ana's 4 movement dice"  # the page's title says "… › Cy first": whose dice these are
    command = entry.dice.command([1, 2, 3, 4])
    assert isinstance(command, Command)
    ok(m, command.type, **command.args)
    assert menu(m.state).title == "Roll, first: Cy"
    assert "Another goes first…" not in [c.label for c in menu(m.state).choices]  # said with the first roll only
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "roll", player="Cy", dice=[1, 2, 3, 4])
    assert m.state.turn is not None and m.state.turn.player == "Cy"


def test_the_roll_names_who_goes_first_still_in_the_race() -> None:
    """A screens walkthrough: Ana ruled out of the race, the round's roll said "Roll, first: Ana" and Ben moved
    first (the turn goes to the next player still in the race from the round's first seat)."""
    m = match({"first_player": "Ana", "players": [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}],
               "board": {"tiles": 5, "on_board": 3}})
    for kind in ("small", "medium", "large"):
        ok(m, "eliminate", vehicle=f"Ana/{kind}")
    assert menu(m.state).title == "Roll, first: Ben"
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "roll", player="Cy", dice=[1, 2, 3, 4])
    assert m.state.turn is not None and m.state.turn.player == "Ben"


def test_who_goes_first_keeps_its_word_on_the_title_bar_with_a_long_name() -> None:
    """A review of the OLEDs: "Roll: <name> first" with a long name was cut at the bar's end, "first" lost, and
    nothing else on the page said who goes first.  The name comes last: cut, it is still "first: Bartholom…"."""
    from device.dashboards import pages

    name = "Bartholomew-Maximilian"
    m = match({"first_player": name, "players": [{"name": name}, {"name": "Ben"}], "board": {"tiles": 5, "on_board": 3}})
    shown = pages.fitting_path(menu(m.state).title, (), "1/3")
    room = pages._title_right("1/3") - 2
    assert shown.startswith("Roll, first: Bartholom")
    assert pages.text_width(shown, pages.TITLE_MIN_SIZE) > room  # drawn cut at its end: "first:" stays in sight


def test_traction_drive_is_offered_on_the_buttons_after_a_coast_and_the_road_die_is_shown() -> None:
    """Traction Drive goes with a coast (the coast rule is the command board's), but after Coast: 1 space… the move
    menu had no Command…: only BACK got out.  And the Road die's face was on no screen."""
    m = match({"first_player": "Ana", "players": [{"name": "Ana", "vehicles": ["medium", "big_rig"]},
                                                  {"name": "Ben", "vehicles": ["small"]}], "board": {"tiles": 5, "on_board": 3}})
    ok(m, "roll", player="Ana", dice=[1, 3, 4, 6])
    ok(m, "roll", player="Ben", dice=[1, 2, 3, 4])
    ok(m, "assign", vehicle="Ana/medium", die=4)
    ok(m, "move", spaces=4)
    ok(m, "assign", vehicle="Ben/small", die=1)
    ok(m, "move", spaces=1)
    ok(m, "assign", vehicle="Ana/big_rig", die=6)
    ok(m, "move", spaces=6)
    ok(m, "coast", vehicle="Ben/small", die=2)
    ok(m, "move", spaces=1)
    ok(m, "coast", vehicle="Ana/big_rig", die=1)
    assert under(menu(m.state).choices, "Command…") == ["Traction Drive"]
    ok(m, "command", name="traction_drive", die=3)
    assert "Big Rig" in under(menu(m.state).choices, "Road die…")
    ok(m, "road", vehicle="Ana/big_rig", face=2)
    assert menu(m.state).status.endswith("Road die 2")
    assert "Big Rig · rolled 2" in under(menu(m.state).choices, "Road die…")


def test_a_drift_past_is_said_so_not_as_a_hit_at_a_space_nobody_entered() -> None:
    m = traffic(drift=True)
    choose(m, "Met a vehicle…", "Ben's Small car", "Then met another…", "Drifted past it")
    assert menu(m.state).status.endswith("drifted past Ben's Small"), menu(m.state).status
    assert m.prompt().text.endswith("drifted past Ben's small car")


def test_a_drift_still_passes_the_first_vehicle_met_when_a_scroll_took_it_off_the_road() -> None:
    """Review: a scroll that took the vehicle drifted past off the road made the next one the first met, passed
    instead of hit, while the prompt said "hit Cy's medium car at space 2"."""
    m = traffic(drift=True, ben=("small", "medium"))
    ok(m, "met", vehicle="Ben/small", at=1)
    ok(m, "met", vehicle="Cy/medium", at=2)
    ok(m, "scroll", eliminated=["Ben/small"])
    ok(m, "move", spaces=4)
    moved = [e for e in m.live_events() if e.type == "moved"][-1]
    assert moved.data["passed"] == "Ben/small" and moved.data["collisions"] == ["Cy/medium"]


def test_a_vehicle_met_beyond_the_die_is_offered_when_nitro_s_spaces_are_unknown() -> None:
    """A screen audit: with "4+Nitro spaces" (the Nitro's added spaces not filled in), Met a vehicle… › Ended on
    it recorded a move of 4, the die alone, and a car the move ended on at space 5 or 6 could not be entered,
    where "Other distance…" offers moves up to the die and more.  "Ended on it at space k" reaches as far."""
    from games.thunder_road.menus import UNKNOWN_EXTRA

    def spots(m: Match[Any]) -> tuple[Choice, ...]:
        choices = menu(m.state).choices
        for label in ("Met a vehicle…", "Benedikt", "Medium car"):
            choices = next(c for c in choices if c.label == label).children
        return choices

    m = rolled(match())
    ok(m, "command", name="nitro", die=1)
    ok(m, "assign", vehicle="Ana/big_rig", die=4)
    labels = [c.label for c in spots(m)]
    assert labels[0] == "Ended on it" and [f"Hit it at space {k}" for k in (1, 2, 3)] == \
        [s for s in labels if s.startswith("Hit it")]
    assert [s for s in labels if s.startswith("Ended on it at space")] == \
        [f"Ended on it at space {k}" for k in range(5, 4 + UNKNOWN_EXTRA + 1)]
    six = next(c for c in spots(m) if c.label == "Ended on it at space 6")
    assert six.command is not None and six.command.args["spaces"] == 6 and m.apply(six.command).accepted
    m2 = rolled(match())
    ok(m2, "assign", vehicle="Ana/big_rig", die=4)  # no Nitro: the die is the move, as before
    assert not any(c.label.startswith("Ended on it at space") for c in spots(m2))
