"""Gaslands: Refuelled — one test (or more) per rule sentence of shared/rules/gaslands.md marked [seed] or
[V].  Each docstring quotes the sentence it checks."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from games.core import Alert, Illegal, Match
from games.gaslands import DIE_TYPES, EXAMPLE_SETUP, GAME, TEMPLATES, normalise_chart, template_status, vehicle_types
from games.gaslands.rules import STEP_COMMANDS, WIPEOUT_AT, alerts, out_of_order, smash_dice
from games.gaslands.state import Step, TemplateStatus
from gaslands_helpers import Table, setup

# --------------------------------------------------------------------------------------------------
# Round structure
# --------------------------------------------------------------------------------------------------


def test_six_gear_phases_and_vehicles_with_gear_at_least_n_activate():
    """"A round is six gear phases, 1 → 6. In phase N every vehicle whose current gear ≥ N activates once." [V]"""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.patch("alice-1", gear=3)
    t.patch("bob-1", gear=1)
    activations: list[tuple[int, int, str]] = []
    while t.state.round == 1:
        vid = t.whole_activation(template="gentle")
        activations.append((t.state.round, t.state.phase, vid))
    # Alice's buggy (gear 3) activates in phases 1, 2, 3; Bob's truck (gear 1) only in phase 1.
    who = [vid for _, _, vid in activations]
    assert who.count("alice-1") == 3
    assert who.count("bob-1") == 1
    assert t.state.round == 2 and t.state.phase == 1


def test_phases_where_nobody_qualifies_are_passed():
    """"In phase N every vehicle whose current gear ≥ N activates once." [V] — a phase with nobody in a high
    enough gear is passed straight to the next round."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.whole_activation()
    t.whole_activation()
    assert (t.state.round, t.state.phase) == (2, 1)
    assert "gear_phase_started" in t.types()


def test_pole_position_activates_first_then_clockwise_one_vehicle_each():
    """"The player holding pole position activates first in every gear phase; then play goes clockwise, one
    qualifying vehicle per player at a time." [seed]"""
    t = Table(("Alice", ["buggy", "buggy"]), ("Bob", ["truck"]), ("Cleo", ["car", "car"]), pole="Bob")
    order = []
    # Bob has one vehicle: his activation starts at once; Cleo and Alice have two and must choose.
    order.append(t.active)
    t.whole_activation()
    assert t.step == "choose vehicle" and t.state.players[t.state.turn] == "Cleo"
    t.ok("activate", vehicle="cleo-2")
    order.append(t.whole_activation())
    t.ok("activate", vehicle="alice-1")
    order.append(t.whole_activation())
    # Bob has no vehicle left in this phase: Cleo again, then Alice.
    order.append(t.whole_activation())  # Cleo's last qualifying vehicle starts by itself
    order.append(t.whole_activation())
    assert order == ["bob-1", "cleo-2", "alice-1", "cleo-1", "alice-2"]


def test_pole_passes_clockwise_at_the_end_of_each_gear_phase_by_default():
    """"The scenario decides who starts with pole and when it passes (default: passes clockwise at the end
    of each gear phase)." [seed] [P for the default]"""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), ("Cleo", ["buggy"]), pole="Cleo")
    for vid in ("alice-1", "bob-1", "cleo-1"):
        t.patch(vid, gear=2)
    assert t.state.players[t.state.pole] == "Cleo" and t.active == "cleo-1"
    for _ in range(3):
        t.whole_activation(template="gentle")
    assert t.state.phase == 2
    assert t.state.players[t.state.pole] == "Alice"  # clockwise from Cleo wraps to the first seat
    assert t.active == "alice-1"


def test_pole_passes_over_a_player_whose_vehicles_are_all_wrecked():
    """"The player holding pole position activates first in every gear phase; then play goes clockwise" —
    passed to Bob, whose only buggy is wrecked, pole made Cleo first in two gear phases running and Bob's seat
    held it for nothing.  It goes to the next player still in the race."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), ("Cleo", ["buggy"]), ("Dee", ["buggy"]), pole="Alice")
    for vid in ("alice-1", "cleo-1", "dee-1"):
        t.patch(vid, gear=3)
    t.patch("bob-1", hull=0)  # wrecked
    for _ in range(3):
        t.whole_activation(template="gentle")
    assert t.state.phase == 2
    assert t.state.players[t.state.pole] == "Cleo" and t.active == "cleo-1"
    for _ in range(3):
        t.whole_activation(template="gentle")
    assert t.state.players[t.state.pole] == "Dee" and t.active == "dee-1"  # not Cleo first again


@pytest.mark.parametrize("passing,expected", [("never", "Alice"), ("clockwise_each_round", "Alice")])
def test_pole_passing_is_a_scenario_option(passing, expected):
    """"The scenario decides who starts with pole and when it passes" [seed]"""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), pole_passing=passing)
    t.patch("alice-1", gear=2)
    t.patch("bob-1", gear=2)
    for _ in range(2):
        t.whole_activation(template="gentle")
    assert t.state.phase == 2
    assert t.state.players[t.state.pole] == expected


def test_pole_passing_each_round():
    """"The scenario decides ... when it passes" [seed]: once a round, pole moves at the round's end."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), pole_passing="clockwise_each_round")
    t.whole_activation()
    t.whole_activation()
    assert t.state.round == 2 and t.state.players[t.state.pole] == "Bob"


def test_a_player_activates_their_vehicles_in_any_order():
    """"A player may activate their qualifying vehicles in any order they like." [seed]"""
    for first in ("alice-1", "alice-2"):
        t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
        assert t.step == "choose vehicle"
        t.ok("activate", vehicle=first)
        assert t.active == first


def test_activating_someone_elses_or_a_non_qualifying_vehicle_is_refused():
    """"In phase N every vehicle whose current gear ≥ N activates once." [V]"""
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    assert "Bob's" in t.illegal("activate", vehicle="bob-1")
    t.ok("activate", vehicle="alice-1")
    t.whole_activation()
    t.whole_activation()  # Bob
    assert t.active == "alice-2"  # the one left starts by itself
    t.finish_activation() if t.step != "1.1 choose template" else t.whole_activation()


def test_every_vehicle_starts_in_gear_1_and_never_exceeds_max_gear():
    """"Every vehicle starts the game in gear 1; current gear is 1..6 and never above the vehicle's max
    gear." [seed]"""
    t = Table(("Alice", ["heavy_truck"]), ("Bob", ["buggy"]))
    assert all(v.gear == 1 for v in t.state.vehicles)
    t.patch("alice-1", gear=3)  # the Heavy Truck's max gear
    t.to_skid_check("turn")
    t.ok("skid_roll", faces=["SHIFT"])
    assert "max gear 3" in t.illegal("shift", use="gear_up")


# --------------------------------------------------------------------------------------------------
# Activation: movement, attack, wipeout, in this order
# --------------------------------------------------------------------------------------------------


def test_activation_is_movement_then_attack_then_wipeout():
    """"Activation of the ACTIVE vehicle — three steps, in this order [seed]: 1. Movement step 2. Attack step
    3. Wipeout (lose control) step\""""
    t = Table()
    seen = [t.step]
    t.to_skid_check()
    seen.append(t.step)
    t.ok("skid_roll", faces=["SPIN"])
    seen.append(t.step)
    t.ok("end_shifts")  # declines to push it
    seen.append(t.step)
    t.ok("confirm")
    seen.append(t.step)
    t.ok("confirm")
    seen.append(t.step)
    assert seen == [
        "1.1 choose template", "1.3 skid check", "1.4 apply SHIFT results", "1.7 move", "1.8 resolve spin",
        "2 attack step",
    ]
    t.ok("confirm")
    assert t.active == "bob-1"  # wipeout step checked (nobody at 6) and the activation ended


def test_attack_hits_on_4_plus_six_is_two_hits_evade_sixes_cancel():
    """"Attack step: crew are assigned to weapons, then attacks are made (hits on 4+, a 6 is two hits; the
    target rolls evade dice equal to its current gear, each 6 cancels one hit)." [V] — crew assignment is the
    table's; the companion does the hit arithmetic from the dice."""
    t = Table()
    t.patch("bob-1", gear=2)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    assert t.step == "2 attack step"
    t.ok("attack", target="bob-1", dice=[1, 3, 4, 5, 6], evade=[6, 2])  # 1+1+2 hits, one cancelled
    assert t.v("bob-1").hull == 12 - 3
    # every screen is told in words that cannot be read two ways ("3 hits, 1 evaded" said "2 hits, 1 evaded")
    assert t.state.news == "Attack: Alice's Buggy on Bob's Truck: 4 hits, 1 evaded: 3 taken · hull 9"
    assert "at most 2 evade dice" in t.illegal("attack", target="bob-1", dice=[6], evade=[1, 1, 1])
    t.ok("attack", target="bob-1", dice=[6, 6, 6, 6, 6], evade=[1, 1])
    # not "hull 0"; the evade roll said when it cancelled nothing too (a walkthrough: "10 hits · WRECKED" left it out)
    assert t.v("bob-1").wrecked and t.state.news == ("Attack: Alice's Buggy on Bob's Truck: 10 hits, none evaded · "
                                                     "WRECKED")


def test_hull_lost_one_per_uncancelled_hit_and_wrecked_at_zero():
    """"Hull points are lost one per uncancelled hit; at 0 the vehicle is wrecked." [V]"""
    t = Table(("Alice", ["buggy"]), ("Bob", ["drag_racer"]))
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("hits", vehicle="bob-1", count=3)
    assert t.v("bob-1").hull == 1 and not t.v("bob-1").wrecked
    t.ok("hits", vehicle="bob-1", count=2)
    assert t.v("bob-1").hull == 0 and t.v("bob-1").wrecked
    view = {v.player: v for v in GAME.views(t.state)}["Bob"]
    assert any(a.kind == "wrecked" for a in view.alerts)
    # and every screen: only Bob's said it (an audit)
    assert t.state.news == "Bob's Drag Racer: 2 hits · WRECKED"


def test_a_coming_wipeout_says_when_and_while_a_shift_stands_how_it_may_not_come():
    """"each one with 6 or more hazard tokens loses control. Checked only here [step 3], not at other times" and a
    SHIFT may "discard a hazard token": "WIPEOUT" alone at 1.4, with a SHIFT still to spend, read as done (an
    audit: the second SHIFT discarded a token and there was no wipeout)."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.patch("alice-1", gear=2, hazards=5)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "SHIFT"])
    t.ok("shift", use="gear_up")  # 6 tokens, one SHIFT left
    (coming,) = [a for a in alerts(t.state) if a.kind == "wipeout_coming"]
    assert coming.text == ("WIPEOUT: Alice's Buggy: 6 hazards, loses control in step 3, "
                           "unless SHIFTs discard tokens")
    t.ok("shift", use="discard_hazard")
    assert t.v("alice-1").hazards == 5 and not [a for a in alerts(t.state) if a.kind == "wipeout_coming"]
    t.patch("alice-1", hazards=7)  # no SHIFT left: only when
    assert [a.text for a in alerts(t.state) if a.kind == "wipeout_coming"] == [
        "WIPEOUT: Alice's Buggy: 7 hazards, loses control in step 3"]
    # what 1.5 adds counts: at 6 with [SHIFT, HAZARD] the SHIFT discards a token or cancels the HAZARD, 6 either
    # way; "Push it: take one hazard token and re-roll any of the skid dice": two SHIFTs would bring 7 to 5
    t2 = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t2.patch("alice-1", gear=2, hazards=6)
    t2.to_skid_check("gentle")
    t2.ok("skid_roll", faces=["SHIFT", "HAZARD"])
    assert [a.text for a in alerts(t2.state) if a.kind == "wipeout_coming"] == [
        "WIPEOUT: Alice's Buggy: 6 hazards, loses control in step 3, unless push it rolls SHIFTs"]
    t2.ok("shift", use="cancel", result="HAZARD")  # a SHIFT spent: no push now, and 6 stays 6
    assert [a.text for a in alerts(t2.state) if a.kind == "wipeout_coming"] == [
        "WIPEOUT: Alice's Buggy: 6 hazards, loses control in step 3"]


def test_wipeout_six_hazards_lose_control_only_in_the_wipeout_step():
    """"Wipeout (lose control) step: every player checks every vehicle they control; each one with 6 or more
    hazard tokens loses control. Checked only here, not at other times." [seed] [V]"""
    t = Table()
    t.patch("alice-1", hazards=5, gear=3)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["HAZARD", "SLIDE"])
    t.ok("end_shifts")  # no push: 1.5 gives +2 → 7 tokens, but no wipeout yet
    assert t.v("alice-1").hazards == 7 and t.v("alice-1").gear == 3
    view = {v.player: v for v in GAME.views(t.state)}["Alice"]
    assert any(a.kind == "wipeout_coming" for a in view.alerts)
    t.ok("confirm")  # slide
    t.ok("confirm")  # move
    assert t.v("alice-1").hazards == 7
    t.ok("confirm")  # attack done → wipeout step
    assert t.step == "3 wipeout: flip check"
    assert t.v("alice-1").gear == 1 and t.v("alice-1").hazards == 0


def test_a_table_without_flip_checks_turns_the_car_in_any_gear():
    """"then a **flip check**: roll a d6, if lower than the gear it had, the vehicle takes 2 hits and is moved a
    Medium Straight. … [P for the flip check]" — one secondary source, so a setting, as push it and the d6
    stand-in are: ``[scenario] flip_check = false`` turns the car as in gear 1, with no d6 asked."""
    t = Table(flip_check=False)
    t.patch("alice-1", hazards=6, gear=4)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")  # move
    t.ok("confirm")  # attack done → wipeout step
    # (the step's name, kept as logs have it, is gear 1's; the screens say "3 WIPEOUT turn it")
    assert t.step == Step.WIPEOUT_TURN.value and t.v("alice-1").gear == 1 and t.v("alice-1").hazards == 0
    hull = t.v("alice-1").hull
    assert "played without flip checks" in t.illegal("flip_check", die=1)
    assert "WIPEOUT Alice's Buggy: lost control, now gear 1, tokens cleared;" in GAME.prompt(t.state).text
    t.ok("confirm")
    from games.gaslands.log_words import timeline_words
    (checked,) = [e for e in t.events if e.type == "flip_checked"]
    assert "played without them" in (timeline_words(checked, {}) or "")  # not "no flip check in gear 4 (no d6 …)"
    assert t.v("alice-1").hull == hull and t.step != Step.WIPEOUT_TURN.value  # no 2 hits, no Medium Straight
    assert Table().state.settings.flip_check  # the rules file's flip check, by default


def test_wipeout_checks_every_vehicle_not_only_the_active_one():
    """"every player checks every vehicle they control; each one with 6 or more hazard tokens loses
    control." [seed]"""
    t = Table()
    t.patch("bob-1", hazards=6, gear=2)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    assert t.step == "3 wipeout: flip check"
    assert t.state.activation.flipping == ("bob-1", 2)
    assert t.v("bob-1").gear == 1 and t.v("bob-1").hazards == 0


@pytest.mark.parametrize("die,old_gear,flips", [(2, 3, True), (3, 3, False), (6, 4, False), (1, 2, True)])
def test_lose_control_flip_check(die, old_gear, flips):
    """"Lose control: the vehicle drops to gear 1, the player on the left turns it to face any direction, all
    its hazard tokens are removed; then a flip check: roll a d6, if lower than the gear it had, the vehicle
    takes 2 hits and is moved a Medium Straight." [V for gear/rotation/clear] [P for the flip check]"""
    t = Table()
    t.patch("alice-1", hazards=6, gear=old_gear)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    p = GAME.prompt(t.state)
    assert p.awaits == "dice" and p.die == "d6" and p.count == 1
    assert "Bob turns it" in p.text  # the player on the left
    t.ok("flip_check", die=die)
    # every screen is told how the check went (the flipped car's owner alone read it; a car that did not flip
    # went on with no word)
    if flips:
        assert t.state.news == f"Flipped: Alice's Buggy, rolled {die} (gear {old_gear}): 2 hits · hull 4"
        assert t.v("alice-1").hull == 6 - 2
        assert t.step == "3 wipeout: flip move" and "Medium Straight" in GAME.prompt(t.state).text
        t.ok("confirm")
        assert t.state.news == ""  # told once: the next decision has its own words, or none
    else:
        assert t.state.news == f"No flip: Alice's Buggy, rolled {die} (gear {old_gear})"
        assert t.v("alice-1").hull == 6
    assert t.active == "bob-1"


# --------------------------------------------------------------------------------------------------
# Movement step sub-steps
# --------------------------------------------------------------------------------------------------


def test_movement_substeps_in_order_with_slide_and_spin():
    """"1.1 choose a maneuver template · 1.2 place it · 1.3 skid check · 1.4 apply SHIFT results · 1.5 gain a
    hazard token for each HAZARD, SLIDE and SPIN result · 1.6 resolve a slide (place the Slide template at the
    template's skid-exit notch) · 1.7 move the vehicle to its final position (collision window) · 1.8 resolve
    a spin: pivot up to 90° either way (collision window)." [seed]"""
    t = Table()
    steps = [t.step]
    t.ok("choose_template", template="turn")
    steps.append(t.step)
    t.ok("place_template")
    steps.append(t.step)
    t.ok("skid_roll", faces=["SHIFT", "HAZARD", "SLIDE", "SPIN"])
    steps.append(t.step)
    t.ok("end_shifts")  # SHIFT + trivial free SHIFT discarded
    assert t.v("alice-1").hazards == 3  # 1.5
    for _ in range(3):
        steps.append(t.step)
        t.ok("confirm")
    steps.append(t.step)
    assert steps == [
        "1.1 choose template", "1.2 place template", "1.3 skid check", "1.4 apply SHIFT results",
        "1.6 resolve slide", "1.7 move", "1.8 resolve spin", "2 attack step",
    ]


def test_no_collision_before_1_7():
    """"A vehicle does not actually move before 1.7, so it cannot collide before then." [seed]"""
    t = Table()
    t.ok("choose_template", template="turn")
    not_moved = "Alice's Buggy has not moved yet: collisions come at 1.7 (move)"
    assert t.illegal("collision", vehicle="bob-1") == not_moved
    t.ok("place_template")
    assert t.illegal("collision", vehicle="bob-1") == not_moved
    t.ok("skid_roll", faces=["SPIN"])
    t.ok("end_shifts")
    assert t.step == "1.7 move"
    t.ok("collision", vehicle="bob-1")
    t.ok("confirm")
    assert t.step == "1.8 resolve spin"  # a collision window too
    t.ok("collision", vehicle="bob-1", both_evaded=True)
    assert t.v("alice-1").hazards == 1 + 2 + 1 and t.v("bob-1").hazards == 3


def test_collision_gives_two_hazards_each_or_one_each_if_both_evade():
    """"Hazard tokens also come from: hazardous templates, collisions (+2 to each vehicle involved, +1 each
    if both evaded), terrain, some weapons." [V]"""
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("collision", vehicle="bob-1")
    assert (t.v("alice-1").hazards, t.v("bob-1").hazards) == (2, 2)
    t.ok("collision", vehicle="bob-1", both_evaded=True)
    assert (t.v("alice-1").hazards, t.v("bob-1").hazards) == (3, 3)
    t.ok("gain_hazard", vehicle="alice-1", count=2, cause="terrain")
    assert t.v("alice-1").hazards == 5


def test_hazard_tokens_gained_at_once_have_no_limit_of_six():
    """"Hazard tokens also come from: hazardous templates, collisions (+2 to each vehicle involved, +1 each
    if both evaded), terrain, some weapons." [V] — no limit is set: the camera's "table 8, log 1" asks for 7
    at once, which was refused as "from 1 to 6"."""
    t = Table()
    t.to_skid_check()
    t.ok("gain_hazard", vehicle="bob-1", count=7, cause="counted on the table")
    assert t.v("bob-1").hazards == 7


@pytest.mark.parametrize("kind,expected", [("head_on", 5), ("t_bone", 3), ("sideswipe", 3), ("tailgate", 1)])
def test_smash_attack_dice(kind, expected):
    """"Smash (collision) attack dice: head-on = both gears added; T-bone / sideswipe = attacker's gear;
    tailgate = difference of gears; +/− dice for weight classes." [V] — the log records the dice before the
    weight-class +/− dice, whose amounts the rules file does not give."""
    assert smash_dice(kind, 3, 2) == expected
    t = Table()
    t.patch("alice-1", gear=3)
    t.patch("bob-1", gear=2)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("collision", vehicle="bob-1", kind=kind)
    assert t.events[-1].data["smash_dice"] == expected
    assert t.events[-1].data["weight_dice"] == "unknown"  # a Buggy (light) against a Truck (middle)
    # the other car's owner is told too (a walkthrough: two pips filled in on their screen, nothing said why)
    words = {"head_on": "Head-on", "t_bone": "T-bone", "sideswipe": "Sideswipe", "tailgate": "Tailgate"}[kind]
    assert t.state.news == f"{words} collision: Alice's Buggy and Bob's Truck, +2 hazard each"
    t.ok("collision", vehicle="bob-1", both_evaded=True)
    assert t.state.news == "Collision, evaded: Alice's Buggy and Bob's Truck, +1 hazard each"


def _crashed(kind: str = "head_on", **scenario) -> Table:
    """Alice's Buggy (gear 3) has crashed into Bob's Truck (gear 2) at 1.7."""
    t = Table(**scenario)
    t.patch("alice-1", gear=3)
    t.patch("bob-1", gear=2)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("collision", vehicle="bob-1", kind=kind)
    return t


def test_a_crash_asks_each_cars_smash_attack_on_the_other():
    """"Smash (collision) attack dice: head-on = both gears added; T-bone / sideswipe = attacker's gear;
    tailgate = difference of gears" [V], and an attack "hits on 4+, a 6 is two hits; the target rolls evade dice
    equal to its current gear, each 6 cancels one hit" [V]. A crash used to record its dice and stop there: the
    hits were entered one OK at a time under Hit…, with no evade."""
    t = _crashed("t_bone", weight_dice={"lighter_by_1": 0, "heavier_by_1": 1})
    # T-bone: each car's smash attack is its own gear (the Truck, one class heavier, one die more)
    assert [(s.attacker, s.target, s.dice) for s in t.state.activation.smashes] == [
        ("alice-1", "bob-1", 3), ("bob-1", "alice-1", 3)]
    assert "smash" in GAME.prompt(t.state).commands
    hull = t.v("bob-1").hull
    t.ok("smash", attacker="alice-1", target="bob-1", dice=[6, 4, 1], evade=[6, 2])  # 3 hits, 1 evaded
    assert t.v("bob-1").hull == hull - 2
    assert t.state.news == f"Smash: Alice's Buggy on Bob's Truck: 3 hits, 1 evaded: 2 taken · hull {hull - 2}"
    assert "no smash attack on Bob's Truck waiting" in t.illegal("smash", attacker="alice-1", target="bob-1",
                                                                 dice=[6], evade=[])
    buggy = t.v("alice-1").hull
    t.ok("smash", attacker="bob-1", target="alice-1", dice=[5, 5, 3], evade=[])
    assert t.v("alice-1").hull == buggy - 2
    assert t.state.activation.smashes == ()
    assert "smash" not in GAME.prompt(t.state).commands


def test_the_same_cars_crashing_twice_make_each_crashs_smash_attacks():
    """A head-on and then a T-bone of the same two cars in one step (an audit): rolling one smash attack took the
    other crash's away too. Each is its own, the menu says which ("…, T-bone · 3 dice")."""
    from games.gaslands.menus import menu

    t = _crashed("head_on")
    t.ok("collision", vehicle="bob-1", kind="t_bone")
    smash = next(c for c in menu(t.state).choices if c.label == "Smash attack…")
    assert [c.label for c in smash.children] == [
        "Buggy on Bob's Truck, Head-on · 5 dice", "Bob's Truck on Alice's Buggy, Head-on · 5 dice",
        "Buggy on Bob's Truck, T-bone · 3 dice", "Bob's Truck on Alice's Buggy, T-bone · 2 dice"]
    t.ok("smash", attacker="alice-1", target="bob-1", kind="t_bone", dice=[1], evade=[])
    assert [(s.attacker, s.kind) for s in t.state.activation.smashes] == [
        ("alice-1", "head_on"), ("bob-1", "head_on"), ("bob-1", "t_bone")]
    assert "no smash attack on Bob's Truck (T-bone) waiting" in t.illegal(
        "smash", attacker="alice-1", target="bob-1", kind="t_bone", dice=[1], evade=[])
    t.ok("smash", attacker="alice-1", target="bob-1", dice=[1], evade=[])  # no kind: the first waiting
    assert [(s.attacker, s.kind) for s in t.state.activation.smashes] == [("bob-1", "head_on"), ("bob-1", "t_bone")]


def test_a_car_wrecked_by_the_crash_leaves_nothing_to_hit():
    """Both cars wrecked by a crash's two smash attacks: the step offered hits, hazards and fire that every car,
    a wreck, refused (the random menu games found it); it ends, and with it the game."""
    t = _crashed()
    t.patch("alice-1", hull=1)
    t.patch("bob-1", hull=1)
    t.ok("smash", attacker="alice-1", target="bob-1", dice=[4], evade=[])
    t.ok("smash", attacker="bob-1", target="alice-1", dice=[4], evade=[])
    assert set(GAME.prompt(t.state).commands) == {"confirm", "end_game", "undo"}
    t.ok("confirm")
    assert t.state.finished


def test_a_smash_attack_of_no_dice_is_not_asked():
    """"tailgate = difference of gears": two cars in the same gear have no smash attack to roll (it was asked,
    and an entry of no dice refused); with the weight classes' dice unknown it stays, said "0 ± weight"."""
    t = Table(weight_dice={"lighter_by_1": 0, "heavier_by_1": 0})
    t.patch("alice-1", gear=2)
    t.patch("bob-1", gear=2)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("collision", vehicle="bob-1", kind="tailgate")
    assert t.state.activation.smashes == () and "smash" not in GAME.prompt(t.state).commands
    t = _crashed("tailgate")  # gears 3 and 2: one die each way, ± weight
    assert [s.dice for s in t.state.activation.smashes] == [1, 1]


def test_smash_attacks_are_rolled_at_their_crash():
    """The smash attack belongs to the crash (1.7 or 1.8, "collision window"): a table that moves on has
    not made it, and none waits before a crash of a known kind, nor after a crash both cars evaded."""
    t = _crashed()
    assert "at most 2 evade dice" in t.illegal("smash", attacker="alice-1", target="bob-1", dice=[4],
                                                 evade=[6, 6, 6])
    assert "smash needs dice" in t.illegal("smash", attacker="alice-1", target="bob-1", dice=[], evade=[])
    t.ok("confirm")  # 1.7 done (no SPIN rolled: on to the attack step)
    assert t.step == "2 attack step"
    assert "no smash attack waits" in t.illegal("smash", attacker="alice-1", target="bob-1", dice=[4], evade=[])
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SPIN"])
    t.ok("end_shifts")
    t.ok("collision", vehicle="bob-1", kind="head_on")
    t.ok("confirm")  # 1.7 done: on to 1.8
    assert t.step == "1.8 resolve spin" and t.state.activation.smashes == ()
    t.ok("collision", vehicle="bob-1")  # no kind: no dice to roll
    t.ok("collision", vehicle="bob-1", both_evaded=True, kind="head_on")
    assert t.state.activation.smashes == ()


def test_a_car_wrecked_by_the_crash_still_makes_its_smash_attack():
    """Both cars are in the crash before either takes its hits (docs/RULINGS.md): the Truck wrecked by the
    Buggy's smash attack still makes its own on the Buggy; nobody makes one on a wreck."""
    t = _crashed()
    t.patch("bob-1", hull=1)
    t.ok("smash", attacker="alice-1", target="bob-1", dice=[4], evade=[])
    assert t.v("bob-1").wrecked and t.state.news.endswith("WRECKED")
    t.ok("smash", attacker="bob-1", target="alice-1", dice=[4, 4], evade=[])
    assert t.v("alice-1").hull == t.v("alice-1").max_hull - 2


def test_undo_brings_a_smash_attack_back():
    """Undo is an event: the smash attack undone waits again, and its hits are back on the hull."""
    from games.core import Command

    from gaslands_helpers import match

    m = match()  # (it starts at Alice's Buggy's activation)
    for cmd in (Command("choose_template", {"template": "gentle"}), Command("place_template"),
                Command("skid_roll", {"faces": []}), Command("collision", {"vehicle": "bob-1", "kind": "head_on"}),
                Command("smash", {"attacker": "alice-1", "target": "bob-1", "dice": [6], "evade": []})):
        assert m.apply(cmd).accepted, cmd
    assert [s.attacker for s in m.state.activation.smashes] == ["bob-1"]
    assert m.apply(Command("undo")).accepted
    assert [s.attacker for s in m.state.activation.smashes] == ["alice-1", "bob-1"]
    assert m.state.vehicle("bob-1").hull == m.state.vehicle("bob-1").max_hull


def _crash_labels(t: Table, other: str) -> list[str]:
    from games.gaslands.menus import menu

    crash = next(c for c in menu(t.state).choices if c is not None and c.label == "Collision")
    return [c.label for c in next(c for c in crash.children if c.label == other).children]


def test_the_weight_classes_smash_dice_are_the_owners_data():
    """"+/− dice for weight classes" [V], with no numbers in the rules file: the collision's dice were shown and
    logged as the whole count ("Head-on · 5 dice") for a Buggy hitting a Truck. The owner gives them in
    [scenario.weight_dice]; until then the count says "± weight" and the log "weight_dice: unknown"."""
    def crash(**scenario):
        t = Table(**scenario)
        t.patch("alice-1", gear=3)
        t.patch("bob-1", gear=2)
        t.to_skid_check("gentle")
        t.ok("skid_roll", faces=[])
        return t

    t = crash()
    assert _crash_labels(t, "Bob's Truck")[0] == "Head-on · 5 dice ± weight"
    t = crash(weight_dice={"lighter_by_1": -1, "heavier_by_1": 2})
    assert _crash_labels(t, "Bob's Truck") == ["Head-on · 4 dice", "T-bone · 2 dice", "Sideswipe · 2 dice",
                                               "Tailgate · 0 dice"]  # never below none
    t.ok("collision", vehicle="bob-1", kind="head_on")
    assert (t.events[-1].data["smash_dice"], t.events[-1].data["weight_dice"]) == (4, -1)
    same = Table(("Alice", ["car"]), ("Bob", ["truck"]))  # both middle: no weight dice to give
    same.to_skid_check("gentle")
    same.ok("skid_roll", faces=[])
    assert not any("weight" in label for label in _crash_labels(same, "Bob's Truck"))
    with pytest.raises(Exception, match="heavier_by_3"):
        Table(weight_dice={"heavier_by_3": 1})
    with pytest.raises(Exception, match="weight_dice.lighter_by_1 must be a whole number"):
        Table(weight_dice={"lighter_by_1": "one"})


# --------------------------------------------------------------------------------------------------
# Templates and the chart
# --------------------------------------------------------------------------------------------------


def test_nine_templates_each_left_or_right():
    """"Nine templates: Short Straight, Medium Straight, Long Straight, Gentle, Turn, Hard, Veer, Swerve,
    Hairpin. Each may be used turning left or right (turns rotated 180°, Veer and Swerve flipped)." [seed]
    [V]"""
    assert TEMPLATES == (
        "short_straight", "medium_straight", "long_straight", "gentle", "turn", "hard", "veer", "swerve", "hairpin",
    )
    for hand in ("left", "right"):
        t = Table()
        t.ok("choose_template", template="veer", hand=hand)
        assert t.state.activation.hand == hand
    assert "left or right" in Table().illegal("choose_template", template="veer", hand="up")


def test_turn_row_of_the_chart():
    """"Turn | trivial | permitted | permitted | hazardous | not permitted | not permitted" [seed]"""
    chart = normalise_chart()
    assert [template_status("turn", g, chart).value for g in range(1, 7)] == [
        "trivial", "permitted", "permitted", "hazardous", "not_permitted", "not_permitted",
    ]


def test_gear_5_only_gentle_swerve_long_straight():
    """"in gear 5 only Gentle, Swerve, Long Straight" [seed]"""
    chart = normalise_chart()
    usable = {t for t in TEMPLATES if template_status(t, 5, chart).usable}
    assert usable == {"gentle", "swerve", "long_straight"}


def test_unknown_cells_never_flag():
    """"An unknown cell must never raise an "illegal" flag." (the chart's consequence, from [seed] facts)"""
    chart = normalise_chart()
    assert template_status("hairpin", 2, chart) is TemplateStatus.UNKNOWN
    t = Table()
    t.patch("alice-1", gear=2)
    t.ok("choose_template", template="hairpin")
    assert t.last.refused is None and t.step == "1.2 place template"


def test_owner_chart_override_is_checked_and_used():
    """"the chart ... is data ... that the owner completes once from the icons printed on their own
    templates" — an override fills cells and a bad cell is refused with its place."""
    chart = normalise_chart({"hairpin": ["hazardous", "not_permitted", "unknown", "unknown", "not_permitted", "unknown"]})
    assert template_status("hairpin", 2, chart) is TemplateStatus.NOT_PERMITTED
    with pytest.raises(Illegal, match="hairpin gear 3"):
        normalise_chart({"hairpin": ["trivial", "permitted", "maybe", "unknown", "unknown", "unknown"]})


def test_an_owner_chart_saying_otherwise_than_the_certain_cells_is_said_before_play():
    """"Turn | trivial | permitted | permitted | hazardous | not permitted | not permitted"; "in gear 5 only
    Gentle, Swerve, Long Straight" [seed].  A rules audit: one mistyped [chart] row let a Turn in gear 5 pass with
    skid dice, and sent a Gentle in gear 5 to touch-move, without a word.  The table plays the owner's chart (a
    house rule may be meant), and check says which cells differ; filling unknown cells, or an icon on gear 5's
    plain "permitted", is not said."""
    from games.gaslands.chart import chart_contradictions

    setup = tomllib.loads(EXAMPLE_SETUP)
    assert GAME.setup_notes(setup) == []
    setup["chart"] = {
        "turn": ["trivial", "permitted", "permitted", "permitted", "permitted", "not_permitted"],
        "gentle": ["trivial", "permitted", "unknown", "unknown", "not_permitted", "unknown"],
        "swerve": ["hazardous", "permitted", "permitted", "permitted", "hazardous", "permitted"],
    }
    assert chart_contradictions(setup["chart"]) == [
        "Turn in gear 4: permitted here, hazardous in the rules",
        "Turn in gear 5: permitted here, not permitted in the rules",
        "Gentle in gear 5: not permitted here, permitted in the rules",
    ]
    assert GAME.setup_notes(setup) == [
        "chart: Turn in gear 4: permitted here, hazardous in the rules; Turn in gear 5: permitted here, not permitted "
        "in the rules; Gentle in gear 5: not permitted here, permitted in the rules. The game plays the setup's "
        "chart (a house rule?); if a row was mistyped, correct it in the setup's [chart] or on the phone's Rule "
        "facts page"]
    Match.begin(GAME, setup)  # and it is played as given


def test_trivial_template_gives_one_free_shift():
    """"Under each permitted gear the template shows an icon: trivial (gives one free SHIFT result) or
    hazardous (the vehicle gains one extra hazard token), or nothing." [seed] — the trivial icon."""
    t = Table()
    t.to_skid_check("turn")  # trivial in gear 1
    t.ok("skid_roll", faces=["HAZARD"])
    assert t.state.activation.shifts_left == 1
    t.ok("shift", use="cancel", result="HAZARD")
    assert t.v("alice-1").hazards == 0


def test_hazardous_template_gives_one_hazard_token():
    """"hazardous (the vehicle gains one extra hazard token)" [seed]"""
    t = Table()
    t.patch("alice-1", gear=4)
    t.to_skid_check("turn")  # hazardous in gear 4
    t.ok("skid_roll", faces=[])
    assert t.v("alice-1").hazards == 1


def test_not_permitted_template_is_refused_with_a_reason():
    """"A template may be chosen only if the vehicle's current gear is among its permitted gears." [seed]"""
    t = Table()
    t.patch("alice-1", gear=5)
    d = t.send("choose_template", template="turn")
    assert d.refused and "Turn is not permitted in gear 5" in d.refused


def test_touch_move_left_player_picks_no_skid_dice_icon_still_counts():
    """"If they pick a template that is not permitted, the player on their left chooses and places any
    permitted template for that vehicle; the active vehicle then may not roll skid dice, but must still take
    the trivial / hazardous icon of that template, which the active player resolves." [seed]"""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]), ("Cleo", ["car"]))
    t.patch("alice-1", gear=4)
    d = t.send("choose_template", template="hairpin")  # unknown in gear 4 → allowed, so use a known one
    assert d.refused is None
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]), ("Cleo", ["car"]))
    t.patch("alice-1", gear=5)
    d = t.send("choose_template", template="turn")
    assert d.refused and "Bob (on the left)" in d.refused
    p = GAME.prompt(t.state)
    assert p.player == "Bob" and p.awaits == "template" and "turn" not in p.options
    views = {v.player: v for v in GAME.views(t.state)}
    # Alice's screen says whose pick it is now (an audit: "NOT PERMITTED in gear 5" alone, and she waited)
    assert Alert("illegal_template", "Turn NOT PERMITTED in gear 5. Bob picks for you", "Alice") in views["Alice"].alerts
    assert any(a.kind == "touch_move" for a in views["Bob"].alerts)  # Bob's screen: it is his pick
    assert views["Bob"].your_activation and not views["Alice"].your_activation
    assert not views["Cleo"].alerts
    assert t.illegal("choose_template", template="hard") == (
        "touch-move: you must use a permitted template (Hard is not permitted in gear 5)"
    )
    t.ok("choose_template", template="gentle")
    t.ok("place_template")
    # no skid check: straight to 1.7 (gentle in gear 5 carries no icon)
    assert t.step == "1.7 move"
    assert t.illegal("skid_roll", faces=["SHIFT"]) == "no skid dice this activation (touch-move)"


def test_touch_move_still_takes_the_trivial_icon():
    """"the active vehicle then may not roll skid dice, but must still take the trivial / hazardous icon of
    that template, which the active player resolves." [seed]"""
    options = setup()
    options["chart"] = {"hard": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    t = Table.from_options(options)
    assert t.send("choose_template", template="hard").refused
    t.ok("choose_template", template="turn")  # Bob picks the Turn: trivial in gear 1
    t.ok("place_template")
    p = GAME.prompt(t.state)
    assert t.step == "1.4 apply SHIFT results" and p.player == "Alice" and p.count == 1
    assert t.state.activation.skid_results == ()
    t.ok("shift", use="gear_up")
    assert t.v("alice-1").gear == 2 and t.step == "1.7 move"


def test_touch_move_push_it_at_the_trivial_shift_is_refused_for_the_touch_move():
    """"the active vehicle then may not roll skid dice, but must still take the trivial / hazardous icon of
    that template, which the active player resolves." [seed] — at 1.4, spending the trivial icon's free
    SHIFT, a push it (a skid dice re-roll) is refused with the whole reason: the touch-move rule, not
    merely "no dice"."""
    options = setup()
    options["chart"] = {"hard": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    t = Table.from_options(options)
    assert t.send("choose_template", template="hard").refused
    t.ok("choose_template", template="turn")  # trivial in gear 1
    t.ok("place_template")
    assert t.step == "1.4 apply SHIFT results"
    assert t.illegal("push_it", reroll=[0], faces=["SHIFT"]) == "no skid dice this activation (touch-move)"


def test_touch_move_still_takes_the_hazardous_icon():
    """"must still take the trivial / hazardous icon of that template" [seed]"""
    t = Table()
    t.patch("alice-1", gear=4)
    options = setup()
    options["chart"] = {"hard": ["unknown", "unknown", "unknown", "not_permitted", "not_permitted", "unknown"]}
    t = Table.from_options(options)
    t.patch("alice-1", gear=4)
    assert t.send("choose_template", template="hard").refused
    t.ok("choose_template", template="turn")  # hazardous in gear 4
    t.ok("place_template")
    assert t.v("alice-1").hazards == 1 and t.step == "1.7 move"


def test_touch_move_a_touched_template_must_be_used():
    """"Touch-move rule: once the player touches a permitted template at 1.1 they must use it." [seed] — a
    second pick after a permitted one is refused, and the first stands."""
    t = Table()
    t.ok("choose_template", template="gentle")
    assert t.illegal("choose_template", template="veer") == "touch-move: the Gentle was touched, so it must be used"
    assert t.state.activation.template == "gentle"


def test_touch_move_binds_the_template_not_the_way_it_is_laid():
    """"Each may be used turning left or right (turns rotated 180°, Veer and Swerve flipped)." [seed] [V] and
    "once the player touches a permitted template at 1.1 they must use it" [seed] (the seed: not "swap it for
    another template"); "Reverse: only in gear 1 ... centred on the rear edge instead of the front" [seed] [V].
    An audit: the Turn picked left could not be laid right (refused as touch-move), only undone."""
    from games.gaslands import menus

    t = Table()
    t.ok("choose_template", template="turn", hand="left")
    t.ok("choose_template", template="turn", hand="right")  # the same template, the other way
    assert (t.state.activation.template, t.state.activation.hand) == ("turn", "right")
    t.ok("choose_template", template="turn", hand="right", edge="rear")  # gear 1: reversed
    assert t.state.activation.edge == "rear"
    assert t.illegal("choose_template", template="veer") == "touch-move: the Turn was touched, so it must be used"
    assert t.illegal("choose_template", template="turn", hand="right", edge="rear") == (
        "the Turn, right, reverse is chosen already: place it (1.2)")
    # an audit: no template named, or not a template at all, was refused as a touch-move breach, though nothing
    # else was picked: the touched one is meant, and "banana" is refused for what it is
    assert t.illegal("choose_template", hand="right", edge="rear") == (
        "the Turn, right, reverse is chosen already: place it (1.2)")
    assert t.illegal("choose_template", template="banana").startswith("'banana' is not a maneuver template; ")
    t.ok("choose_template", hand="left", edge="rear")
    assert (t.state.activation.template, t.state.activation.hand) == ("turn", "left")
    t.ok("choose_template", template="turn", hand="right", edge="rear")
    labels = [c.label for c in menus.menu(t.state).choices]
    assert "Left instead" in labels and "Forward instead" in labels
    t.ok("place_template")
    assert t.state.activation.step is Step.SKID_CHECK
    # a straight has no hand, and above gear 1 no other edge: nothing else to lay it as, and its words stay
    g2 = Table()
    g2.patch(g2.state.activation.vehicle, gear=2)
    g2.ok("choose_template", template="short_straight")
    assert "choose_template" not in GAME.prompt(g2.state).commands
    assert g2.illegal("choose_template", template="short_straight", hand="right") == (
        "the Short Straight is chosen already: place it (1.2)")
    assert g2.illegal("choose_template", template="gentle") == "touch-move: the Short Straight was touched, so it must be used"
    assert "reverses only in gear 1" in g2.illegal("choose_template", template="short_straight", edge="rear")


def test_no_pre_measuring_during_another_players_activation():
    """"Players may not pre-measure their next maneuver during another player's activation." [seed] — the
    companion takes a template only at the active vehicle's step 1.1."""
    t = Table()
    t.to_skid_check()
    assert t.illegal("choose_template", template="gentle") == (
        "Alice's Buggy has its Gentle: templates are chosen at 1.1"
    )


def test_reverse_only_in_gear_1_on_the_rear_edge():
    """"Reverse: only in gear 1. Any template permitted in gear 1 may be placed centred on the rear edge
    instead of the front." [seed] [V]"""
    t = Table()
    t.ok("choose_template", template="turn", edge="rear")
    assert "rear edge (reverse)" in GAME.prompt(t.state).text
    t2 = Table()
    t2.patch("alice-1", gear=2)
    assert "reverses only in gear 1" in t2.illegal("choose_template", template="gentle", edge="rear")


def test_a_template_not_permitted_laid_at_the_rear_is_a_touch_move_not_a_reverse_refusal():
    """"If they pick a template that is not permitted, the player on their left chooses and places any
    permitted template for that vehicle; the active vehicle then may not roll skid dice" [seed] — whichever
    edge it was laid against.  A Turn in gear 5 laid at the rear was refused as a reverse, nothing recorded,
    and the player picked again and kept the skid dice."""
    t = Table()
    t.patch("alice-1", gear=5)
    d = t.send("choose_template", template="turn", edge="rear")
    assert d.refused and "Touch-move: Bob (on the left) picks" in d.refused
    assert t.state.activation.touch_move


def test_reversing_vehicles_skid_check_shift_and_collide_as_usual():
    """"Reversing vehicles skid-check, shift and collide as usual. Shifting up out of gear 1 ends the
    possibility to reverse." [seed] [V]"""
    t = Table()
    t.ok("choose_template", template="turn", edge="rear")
    t.ok("place_template")
    assert t.step == "1.3 skid check"
    t.ok("skid_roll", faces=["SHIFT", "SPIN"])
    t.ok("shift", use="gear_up")
    t.ok("shift", use="discard")
    t.ok("confirm")
    t.ok("collision", vehicle="bob-1")
    t.finish_activation()
    t.finish_activation() if t.active == "bob-1" and not t.step.startswith("1.1") else t.whole_activation()
    # Round 2: Alice's buggy is in gear 2 now and cannot reverse any more.
    while t.active != "alice-1":
        t.whole_activation()
    assert t.v("alice-1").gear == 2
    assert "only in gear 1" in t.illegal("choose_template", template="gentle", edge="rear")


def test_full_throttle_long_straight_any_gear_no_icon():
    """"Other facts: the Bike's "Full Throttle" treats the Long Straight as permitted in any gear and never
    trivial or hazardous (so normally it is not permitted in some gear)." [V]"""
    chart = normalise_chart({"long_straight": ["trivial", "hazardous", "not_permitted", "unknown", "permitted", "hazardous"]})
    for gear in range(1, 7):
        assert template_status("long_straight", gear, chart, full_throttle=True) is TemplateStatus.PERMITTED
    assert vehicle_types()["bike"]["full_throttle"] is True


# --------------------------------------------------------------------------------------------------
# Skid check and SHIFT
# --------------------------------------------------------------------------------------------------


def test_skid_check_up_to_handling_dice_zero_allowed():
    """"Roll up to the vehicle's Handling in skid dice (0 is allowed)." [seed] [V]"""
    t = Table(("Alice", ["truck"]), ("Bob", ["buggy"]))  # Handling 2
    t.to_skid_check("gentle")
    p = GAME.prompt(t.state)
    assert p.awaits == "dice" and p.die == "skid" and p.count == 2
    assert "Handling 2" in t.illegal("skid_roll", faces=["SHIFT", "SHIFT", "SHIFT"])
    t.ok("skid_roll", faces=[])


def test_skid_die_faces():
    """"Faces per die: SHIFT ×3, HAZARD ×1, SLIDE ×1, SPIN ×1 (no blank)." [V]"""
    faces = DIE_TYPES["skid"]
    assert sorted(faces) == sorted(["SHIFT"] * 3 + ["HAZARD", "SLIDE", "SPIN"])
    assert len(faces) == 6 and "BLANK" not in faces


def test_plain_d6_stand_in_is_a_setting():
    """"Plain-d6 stand-in used by fan tools: 1 HAZARD, 2 SPIN, 3 SLIDE, 4–6 SHIFT [P] — make it a setting." """
    t = Table(skid_dice="d6")
    t.to_skid_check("gentle")
    assert GAME.prompt(t.state).die == "d6"
    assert "not a d6 face" in t.illegal("skid_roll", faces=["SHIFT"])
    t.ok("skid_roll", faces=[1, 2, 3, 4])
    assert [f.value for f in t.state.activation.skid_results] == ["HAZARD", "SPIN", "SLIDE", "SHIFT"]


def test_push_it_costs_one_hazard_and_rerolls_once():
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." [P]"""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SPIN", "SLIDE", "SHIFT"])
    t.ok("push_it", reroll=[0, 1], faces=["SHIFT", "HAZARD"])
    assert t.v("alice-1").hazards == 1
    assert [f.value for f in t.state.activation.skid_results] == ["SHIFT", "HAZARD", "SHIFT"]
    assert "only once" in t.illegal("push_it", reroll=[1], faces=["SHIFT"])
    t2 = Table(push_it=False)
    t2.to_skid_check("gentle")
    t2.ok("skid_roll", faces=["SPIN", "SHIFT"])
    assert "switched off" in t2.illegal("push_it", reroll=[0], faces=["SHIFT"])


@pytest.mark.parametrize("reroll", [[[1]], [{"a": 1}], [0, 0], [5], ["0"], [True]])
def test_push_it_positions_that_are_no_positions_are_refused_not_a_crash(reroll):
    """A nested list of positions ([[1]]) crashed `play` ("unhashable type: 'list'") and lost the rest of
    the script."""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "HAZARD"])
    assert "push_it needs reroll" in t.illegal("push_it", reroll=reroll, faces=["SHIFT"])


@pytest.mark.parametrize(
    "use,expect_gear,expect_hazards",
    [("gear_up", 3, 2), ("gear_down", 1, 2), ("discard_hazard", 2, 0), ("discard", 2, 1)],
)
def test_each_shift_use(use, expect_gear, expect_hazards):
    """"Each SHIFT may be spent on exactly one of: cancel one rolled HAZARD, SLIDE or SPIN; gear up (+1
    current gear, +1 hazard token); gear down (−1 current gear, +1 hazard token); discard one hazard token
    from this vehicle; discard with no effect." [seed] [V]"""
    t = Table()
    t.patch("alice-1", gear=2, hazards=1)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT"])
    t.ok("shift", use=use)
    assert (t.v("alice-1").gear, t.v("alice-1").hazards) == (expect_gear, expect_hazards)


def test_shift_cancel_removes_a_result_before_1_5():
    """"cancel one rolled HAZARD, SLIDE or SPIN" [seed] — and "1.5 gain a hazard token for each HAZARD,
    SLIDE and SPIN result" counts only the results still standing."""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "SLIDE", "SPIN"])
    assert "no uncancelled HAZARD" in t.illegal("shift", use="cancel", result="HAZARD")
    t.ok("shift", use="cancel", result="SLIDE")
    assert t.v("alice-1").hazards == 1 and t.step == "1.7 move"


def test_shift_bounds():
    """"gear up (+1 current gear ...); gear down (−1 current gear ...); discard one hazard token" — gear
    stays within 1..max gear and there must be a token to discard."""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "SHIFT"])
    assert "cannot gear down" in t.illegal("shift", use="gear_down")
    assert "no hazard token" in t.illegal("shift", use="discard_hazard")
    assert "use" in t.illegal("shift", use="turbo")


def test_several_gear_changes_each_cost_a_hazard():
    """"Several gear changes in one activation are allowed, each +1 hazard." [seed] [V]"""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "SHIFT", "SHIFT"])
    for _ in range(3):
        t.ok("shift", use="gear_up")
    assert (t.v("alice-1").gear, t.v("alice-1").hazards) == (4, 3)


# --------------------------------------------------------------------------------------------------
# Vehicles and On Fire
# --------------------------------------------------------------------------------------------------


VEHICLE_TABLE = {
    "buggy": ("light", 6, 4, 6, 2), "car": ("middle", 10, 3, 5, 2), "performance_car": ("middle", 8, 4, 6, 1),
    "truck": ("middle", 12, 2, 4, 3), "heavy_truck": ("heavy", 14, 2, 3, 4), "bus": ("heavy", 16, 2, 3, 8),
    "drag_racer": ("light", 4, 4, 6, 1), "bike": ("light", 4, 5, 6, 1), "bike_with_sidecar": ("light", 4, 5, 6, 2),
    "ice_cream_truck": ("middle", 10, 2, 4, 2), "gyrocopter": ("middle", 4, 4, 6, 1),
    "ambulance": ("middle", 12, 2, 5, 3), "monster_truck": ("heavy", 10, 3, 4, 2),
    "helicopter": ("heavy", 8, 3, 4, 3), "tank": ("heavy", 20, 4, 3, 3), "war_rig": ("heavy", 26, 2, 4, 5),
}


def test_vehicle_table():
    """"Vehicles (Refuelled) [V unless marked] | Type | Weight | Hull | Handling | Max gear | Crew |\""""
    types = vehicle_types()
    assert set(types) == set(VEHICLE_TABLE)
    for name, (weight, hull, handling, max_gear, crew) in VEHICLE_TABLE.items():
        row = types[name]
        assert (row["weight"], row["hull"], row["handling"], row["max_gear"], row["crew"]) == (
            weight, hull, handling, max_gear, crew,
        ), name


def test_on_fire_is_a_status_set_and_cleared():
    """"Its exact mechanics were not found [?]: track it as a status the dashboard shows and the buttons set
    and clear.\""""
    t = Table()
    t.ok("set_fire", vehicle="bob-1", on=True)
    view = {v.player: v for v in GAME.views(t.state)}["Bob"]
    assert view.vehicles[0].on_fire
    assert "already" in t.illegal("set_fire", vehicle="bob-1", on=True)
    t.ok("set_fire", vehicle="bob-1", on=False)
    assert not t.v("bob-1").on_fire


# --------------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options,message",
    [
        ({"players": [{"name": "Solo", "vehicles": [{"type": "car"}]}]}, "2 to 6 players"),
        (setup(("A", ["car"]), ("B", ["hovercraft"])), "hovercraft"),
        (setup(("A", ["car"]), ("A", ["car"])), "two players are called"),
        ({**setup(), "scenario": {"pole": "Zed"}}, "not a player"),
        ({**setup(), "scenario": {"pole_passing": "sometimes"}}, "pole_passing"),
        # seen: "marker 10 is on two vehicles" / "vehicle id 'rust' is used twice": which ones, and what to do?
        ({"players": [{"name": "A", "vehicles": [{"type": "car", "id": "rust", "tag": 10}]},
                      {"name": "B", "vehicles": [{"type": "car", "id": "brick", "tag": 10}]}]},
         r"marker 10 is on two vehicles, \"A's Car\" and \"B's Car\": give each car its own tag"),
        ({"players": [{"name": "A", "vehicles": [{"type": "car", "id": "rust"}]},
                      {"name": "B", "vehicles": [{"type": "car", "id": "rust"}]}]},
         r"vehicle id 'rust' is used twice \(A's and B's\): give each vehicle its own id, or leave id out"),
    ],
)
def test_bad_setups_are_refused_with_a_reason(options, message):
    with pytest.raises(Illegal, match=message):
        GAME.start(options)


def test_views_show_each_vehicle_and_whose_activation():
    """Views: for each player, each vehicle's gear/max gear, hazard tokens, hull, fire, activated this
    phase; the table's prompt."""
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    views = {v.player: v for v in GAME.views(t.state)}
    assert views["Alice"].your_activation and not views["Bob"].your_activation
    assert views["Alice"].has_pole
    assert [(v.gear, v.max_gear, v.hull) for v in views["Alice"].vehicles] == [(1, 6, 6), (1, 5, 10)]
    assert views["Bob"].prompt == GAME.prompt(t.state).text


# --------------------------------------------------------------------------------------------------
# Edges found in review
# --------------------------------------------------------------------------------------------------


def test_pole_does_not_pass_in_phases_passed_because_nobody_qualified():
    """"passes clockwise at the end of each gear phase" [P] — read as: a gear phase in which somebody
    activated.  Otherwise, with everyone in gear 1, pole would pass six times a round and come back to the
    same player with 2, 3 or 6 players."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]))
    t.whole_activation()
    t.whole_activation()
    assert t.state.round == 2 and t.state.players[t.state.pole] == "Bob" and t.active == "bob-1"
    t.whole_activation()
    t.whole_activation()
    assert t.state.round == 3 and t.state.players[t.state.pole] == "Alice"


def test_pole_can_pass_at_every_gear_phase_for_a_table_that_reads_it_so():
    """"The scenario decides who starts with pole and when it passes (default: passes clockwise at the end
    of each gear phase)." [seed] [P for the default] — the literal reading is a setting: pole passes at the
    end of all six gear phases, those nobody qualified for too (two players in gear 1: six passes a round,
    so Alice keeps it)."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), pole_passing="clockwise_every_gear_phase")
    t.whole_activation()
    t.whole_activation()
    assert t.state.round == 2 and t.state.players[t.state.pole] == "Alice" and t.active == "alice-1"
    t = Table(("Alice", ["buggy"]), ("Bob", ["buggy"]), ("Cleo", ["buggy"]), pole_passing="clockwise_every_gear_phase")
    for _ in range(3):
        t.whole_activation()
    assert t.state.round == 2 and t.state.players[t.state.pole] == "Alice"  # 6 passes round 3 seats
    t.patch("alice-1", gear=2)
    for _ in range(3):
        t.whole_activation(template="gentle")
    assert t.state.phase == 2 and t.state.players[t.state.pole] == "Bob"


def test_a_chart_with_no_template_for_a_gear_is_refused():
    """"A template may be chosen only if the vehicle's current gear is among its permitted gears." [seed] —
    an owner's chart that permits nothing in a gear would leave a vehicle in that gear unable to move and
    the touch-move rule ("the player on their left chooses and places any permitted template") nothing to
    pick: it is refused when the game is set up, naming the gear."""
    rows = {name: ["unknown"] * 5 + ["not_permitted"] for name in TEMPLATES}
    with pytest.raises(Illegal, match="in gear 6 every template is not_permitted"):
        normalise_chart(rows)
    rows["hairpin"] = ["unknown"] * 6
    assert normalise_chart(rows)["hairpin"][5] == "unknown"


def test_skip_phase_passes_over_vehicles_only_when_confirmed():
    """"In phase N every vehicle whose current gear ≥ N activates once." [V] — skipping the rest of a gear
    phase is a table override that names who misses out and needs confirmation."""
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    reason = t.illegal("skip_phase")
    assert "Buggy" in reason and "Car" in reason and "confirm" in reason
    t.ok("skip_phase", confirm=True)
    # "(default: passes clockwise at the end of each gear phase)" [P]: vehicles qualified for the
    # phase the table passed over, so it was a gear phase and pole passed to Bob (docs/RULINGS.md exempts only
    # phases nobody qualified for; it stayed with Alice, who then went first again)
    assert t.state.round == 2 and t.step == "1.1 choose template" and t.state.players[t.state.turn] == "Bob"
    assert t.state.players[t.state.pole] == "Bob"
    assert t.events[0].data["passed_over"] == ["alice-1", "alice-2", "bob-1"]


def test_wrecked_vehicles_do_not_lose_control_collide_or_spin():
    """"Hull points are lost one per uncancelled hit; at 0 the vehicle is wrecked." [V] — a wreck takes no
    further part: no 1.8 spin, no collisions, no wipeout."""
    t = Table(("Alice", ["drag_racer"]), ("Bob", ["truck"]))
    t.patch("bob-1", hazards=7)
    t.to_skid_check()
    t.ok("skid_roll", faces=["SPIN"])
    t.ok("end_shifts")
    t.ok("hits", vehicle="alice-1", count=4)  # wrecked at 1.7
    assert "wrecked" in t.illegal("collision", vehicle="bob-1")
    t.ok("hits", vehicle="bob-1", count=12)
    t.ok("confirm")  # no spin for a wreck, no attack step: straight to the wipeout step
    assert t.state.finished  # both wrecked: nobody is left to lose control or activate


def test_a_vehicle_wrecked_in_its_attack_step_makes_no_more_attacks():
    """"Hull points are lost one per uncancelled hit; at 0 the vehicle is wrecked." [V] — a vehicle wrecked
    during its own attack step (a hit the table records on it) makes no further attack: the prompt stops
    offering the attack and the rules refuse one sent anyway, saying why."""
    t = Table(("Alice", ["drag_racer"]), ("Bob", ["truck"]))
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    assert t.step == "2 attack step"
    t.ok("attack", target="bob-1", dice=[4])
    t.ok("hits", vehicle="alice-1", count=4)
    assert t.v("alice-1").wrecked and "attack" not in GAME.prompt(t.state).commands
    assert t.illegal("attack", target="bob-1", dice=[6, 6]) == "Alice's Drag Racer is wrecked: a wreck makes no attacks"
    assert t.v("bob-1").hull == 12 - 1


def _to_wipeout(vehicle: str, **patch: Any) -> Table:
    """Alice's buggy and Bob's truck; ``vehicle`` patched (6 hazard tokens: it loses control), then Alice's
    activation to its wipeout step (no skid dice, no attack)."""
    t = Table()
    t.patch(vehicle, **patch)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")  # attack step done → wipeout step
    return t


def test_a_vehicle_in_gear_1_loses_control_without_a_flip_check():
    """"Lose control: the vehicle drops to gear 1, the player on the left turns it to face any direction, all
    its hazard tokens are removed; then a flip check: roll a d6, if lower than the gear it had, the vehicle
    takes 2 hits and is moved a Medium Straight." [V for gear/rotation/clear] [P for the flip check] — a
    vehicle already in gear 1 loses control like any other (announced, turned by the player on the left,
    tokens cleared), but no d6 is lower than 1: there is no flip check to roll."""
    t = _to_wipeout("alice-1", hazards=6)
    assert t.step == "3 wipeout: lost control in gear 1"
    assert t.v("alice-1").hazards == 0 and t.v("alice-1").gear == 1 and t.active == "alice-1"
    p = GAME.prompt(t.state)
    assert p.text.startswith(
        "WIPEOUT Alice's Buggy: lost control in gear 1, tokens cleared; Bob turns it to face any direction"
    )
    assert "no flip check" in p.text
    assert (p.player, p.vehicle, p.awaits) == ("Bob", "alice-1", "confirm") and "confirm" in p.commands
    views = {v.player: v for v in GAME.views(t.state)}
    for player in ("Alice", "Bob"):
        assert Alert("lost_control", "LOST CONTROL: Alice's Buggy, Bob turns it") in views[player].alerts
    assert views["Bob"].your_activation and not views["Alice"].your_activation  # Bob turns it
    assert t.illegal("flip_check", die=1) == "no flip check: Alice's Buggy was in gear 1 (no d6 is lower)"
    t.ok("confirm")
    assert t.active == "bob-1"
    assert t.types()[-4:-2] == ["flip_checked", "activation_ended"]
    assert t.events[-4].data == {"vehicle": "alice-1", "die": None, "old_gear": 1, "flipped": False}
    assert not any(a.kind == "lost_control" for v in GAME.views(t.state) for a in v.alerts)


def test_a_wipeout_with_a_flip_check_is_announced_too():
    """"Lose control: the vehicle drops to gear 1, the player on the left turns it to face any direction, all
    its hazard tokens are removed" [V] — every screen flashes LOST CONTROL while the flip check is rolled."""
    t = _to_wipeout("bob-1", hazards=6, gear=3)
    assert t.step == "3 wipeout: flip check"
    views = {v.player: v for v in GAME.views(t.state)}
    lost = Alert("lost_control", "LOST CONTROL: Bob's Truck, Alice turns it")
    assert lost in views["Alice"].alerts and lost in views["Bob"].alerts
    assert GAME.prompt(t.state).player == "Bob"  # Bob rolls his truck's flip check
    assert views["Bob"].your_activation and not views["Alice"].your_activation


def test_the_player_on_the_left_is_told_on_their_own_screen_to_turn_it_while_the_flip_check_is_rolled():
    """"Lose control: the vehicle drops to gear 1, the player on the left turns it to face any direction" [V] —
    the flip check is the owner's step; the turner has none, so their screen says YOU TURN (theirs alone). In
    gear 1 the step to turn it is theirs (its menu says so): no YOU TURN then."""
    t = _to_wipeout("bob-1", hazards=6, gear=3)
    assert t.step == "3 wipeout: flip check"
    views = {v.player: v for v in GAME.views(t.state)}
    you_turn = Alert("you_turn", "YOU TURN Bob's Truck to face any direction", "Alice")
    assert you_turn in views["Alice"].alerts and you_turn not in views["Bob"].alerts
    t.ok("flip_check", die=6)
    assert not any(a.kind == "you_turn" for v in GAME.views(t.state) for a in v.alerts)

    t = _to_wipeout("alice-1", hazards=6)  # gear 1: "3 wipeout: lost control in gear 1", Bob's own step
    assert t.step == "3 wipeout: lost control in gear 1"
    assert not any(a.kind == "you_turn" for v in GAME.views(t.state) for a in v.alerts)


def test_gear_1_and_higher_gear_wipeouts_in_one_step_follow_seating_order():
    """"every player checks every vehicle they control; each one with 6 or more hazard tokens loses
    control." [seed] — a gear-1 loss of control waits for its confirm before the next vehicle's."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.patch("alice-1", hazards=7)  # gear 1
    t.patch("bob-1", hazards=6, gear=2)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    assert t.step == "3 wipeout: lost control in gear 1" and t.v("bob-1").hazards == 6
    t.ok("confirm")
    assert t.step == "3 wipeout: flip check" and t.state.activation.flipping == ("bob-1", 2)
    t.ok("flip_check", die=5)
    assert t.active == "bob-1" and t.step == "1.1 choose template"


def test_a_collision_during_the_flip_move_can_cause_another_wipeout():
    """"every player checks every vehicle they control; each one with 6 or more hazard tokens loses
    control." [seed] — checked again after each loss of control within the same wipeout step."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.patch("alice-1", hazards=6, gear=4)
    t.patch("bob-1", hazards=5)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    t.ok("flip_check", die=1)
    t.ok("collision", vehicle="bob-1")  # during the flip's Medium Straight: Bob goes to 7
    t.ok("confirm")
    assert t.v("bob-1").hazards == 0 and t.v("bob-1").gear == 1  # Bob lost control too


def test_a_flip_move_over_a_wreck_gains_hazards_and_they_are_checked_when_it_ends():
    """"the vehicle takes 2 hits and is moved a Medium Straight" [P]; RULINGS: "a wreck is an obstacle: its
    hazards are entered with gain_hazard" — a flip's Medium Straight can cross a wreck or terrain, so its
    hazards are entered during the flip move (the collision is refused and said to use gain_hazard; before,
    gain_hazard was refused too), and the vehicles are checked for a wipeout again when the move ends."""
    t = Table(("Alice", ["truck"]), ("Bob", ["car"]), ("Cleo", ["buggy"]))
    t.patch("alice-1", gear=4, hazards=6)
    t.patch("cleo-1", hull=0)  # a wreck on the table
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    t.ok("flip_check", die=1)
    assert t.step == "3 wipeout: flip move"
    assert "record its hazards with gain_hazard" in t.illegal("collision", vehicle="cleo-1")
    assert "Hazard token" in [c.label for c in GAME.menu(t.state).choices]
    t.ok("gain_hazard", vehicle="alice-1", count=6, cause="crossed the wreck")
    assert t.v("alice-1").hazards == 6
    t.ok("confirm")  # the move ends: Alice's truck (gear 1 now) is over the line again and loses control
    assert t.step == "3 wipeout: lost control in gear 1" and t.v("alice-1").hazards == 0


def test_a_vehicle_wrecked_by_its_flip_is_not_moved():
    """"the vehicle takes 2 hits and is moved a Medium Straight" [P]; RULINGS: "A wrecked vehicle takes no
    further part: it does not finish its movement" — a flip whose 2 hits wreck the vehicle leaves it where
    it is (before, the table was told to move the wreck, then refused what it hit); the step stays for the
    table to see that and confirm (skipping it, the screens went from the flip's die to the next turn)."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["car"]))
    t.patch("alice-1", gear=4, hazards=6, hull=2)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    t.ok("flip_check", die=1)
    assert t.v("alice-1").wrecked and t.step == "3 wipeout: flip move"
    text = GAME.prompt(t.state).text
    assert "wrecked: it moves no further" in text and "move it a Medium Straight" not in text
    assert GAME.menu(t.state).status == "wrecked: no further move"
    assert "does not move on" in t.illegal("collision", vehicle="bob-1")
    t.ok("confirm")
    assert t.active == "bob-1"


def test_a_vehicle_wrecked_during_its_flip_move_is_not_told_to_move_on():
    """RULINGS: "A wrecked vehicle takes no further part: it does not finish its movement" — hits during a
    flip's move that wreck it: the prompt says it moves no further."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["car"]))
    t.patch("alice-1", gear=4, hazards=6)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    t.ok("flip_check", die=1)
    t.ok("hits", vehicle="alice-1", count=9)
    text = GAME.prompt(t.state).text
    assert "wrecked" in text and "Medium Straight" not in text
    assert GAME.menu(t.state).status == "wrecked: no further move"
    t.ok("confirm")
    assert t.active == "bob-1"


def test_a_vehicle_wrecked_in_its_own_attack_step_is_not_told_to_attack():
    """RULINGS: "A wrecked vehicle takes no further part: it ... makes no attacks" — wrecked by hits at step
    2, its prompt no longer says "attack"."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["car"]))
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("hits", vehicle="alice-1", count=6)
    assert t.step == "2 attack step" and t.v("alice-1").wrecked
    text = GAME.prompt(t.state).text
    assert "no attacks" in text and "assign crew" not in text


def test_end_game_records_the_winner():
    t = Table()
    assert "one of the players" in t.illegal("end_game", winner="Zed")
    t.ok("end_game", winner="Bob")
    assert t.state.finished and t.step == "game over"
    assert "game is over" in t.illegal("choose_template", template="gentle")
    # the prompt (the phone's page, the simulator's line) names the winner, as the screens' bar does; it said
    # "Game over" alone
    assert GAME.prompt(t.state).text == "Game over: Bob wins"
    nobody = Table()
    nobody.ok("end_game")
    assert GAME.prompt(nobody.state).text == "Game over"


@pytest.mark.parametrize(
    "patch,message",
    [
        ({"vehicle_types": {"buggy": {"max_gear": 9}}}, "max_gear must be a whole number from 1 to 6"),
        ({"vehicle_types": {"buggy": {"hull": 0}}}, "hull must be"),
        ({"vehicle_types": {"buggy": {"handling": -2}}}, "handling must be"),
        ({"vehicle_types": {"hover": {"hull": 3}}}, "needs weight"),
        ({"scenario": "fast"}, "scenario must be a table"),
        ({"scenario": {"push_it": "false"}}, "push_it must be true or false"),
        ({"scenario": {"d6_faces": {"x": "SHIFT"}}}, "d6_faces"),
        ({"chart": "all permitted"}, "chart must be a table"),
        ({"chart": {"turn": [["trivial"], "a", "b", "c", "d", "e"]}}, "six entries"),
    ],
)
def test_badly_typed_setups_are_refused_with_their_place(patch, message):
    options = {**setup(), **patch}
    with pytest.raises(Illegal, match=message):
        GAME.start(options)


def test_setup_vehicle_list_and_tag_types_are_checked():
    with pytest.raises(Illegal, match="needs at least one vehicle"):
        GAME.start({"players": [{"name": "A", "vehicles": ["buggy"]}, {"name": "B", "vehicles": [{"type": "car"}]}]})
    options = setup()
    options["players"][0]["vehicles"][0]["tag"] = True
    with pytest.raises(Illegal, match="tag"):
        GAME.start(options)


def test_push_it_offered_only_before_any_shift_is_spent():
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." [P]"""
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SPIN", "SHIFT", "SHIFT"])
    assert "push_it" in GAME.prompt(t.state).commands
    t.ok("shift", use="cancel", result="SPIN")
    assert "push_it" not in GAME.prompt(t.state).commands
    assert "before spending" in t.illegal("push_it", reroll=[0], faces=["SHIFT"])


# --------------------------------------------------------------------------------------------------
# Touch-move: the player on the left chooses and places
# --------------------------------------------------------------------------------------------------


def test_touch_move_the_player_on_the_left_also_places_the_template():
    """"If they pick a template that is not permitted, the player on their left chooses and places any
    permitted template for that vehicle" [seed] (seed 000: «выбрать и разместить») — after Bob's pick, step
    1.2 is Bob's too: the prompt, his screen's activation marker and his alert say so."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]), ("Cleo", ["car"]))
    t.patch("alice-1", gear=5)
    assert t.send("choose_template", template="turn").refused
    t.ok("choose_template", template="long_straight")  # Bob's pick
    assert t.step == "1.2 place template"
    p = GAME.prompt(t.state)
    assert p.player == "Bob" and p.awaits == "confirm" and p.vehicle == "alice-1"
    assert p.text.startswith("Touch-move: Bob places the Long Straight at the front edge of Alice's Buggy")
    views = {v.player: v for v in GAME.views(t.state)}
    assert views["Bob"].your_activation and not views["Alice"].your_activation
    assert Alert("touch_move_place", "YOU PLACE the Long Straight for Alice's Buggy", "Bob") in views["Bob"].alerts
    assert not any(a.kind == "touch_move" for a in views["Bob"].alerts)
    assert Alert("illegal_template", "Turn NOT PERMITTED in gear 5. Bob places for you", "Alice") in views["Alice"].alerts
    assert not views["Cleo"].alerts
    assert t.illegal("skid_roll", faces=[]) == "no skid dice this activation (touch-move)"
    t.ok("place_template")
    # placed: Alice's vehicle moves on, and the screens are hers again
    p = GAME.prompt(t.state)
    assert t.step == "1.7 move" and p.player == "Alice"
    views = {v.player: v for v in GAME.views(t.state)}
    assert views["Alice"].your_activation and not views["Bob"].your_activation
    assert not any(a.kind.startswith("touch_move") for v in views.values() for a in v.alerts)


def test_touch_move_picker_must_pick_a_permitted_template():
    """"If they pick a template that is not permitted, the player on their left chooses and places any
    permitted template for that vehicle" [seed] — the picker's own not-permitted pick is plainly refused."""
    t = Table()
    t.patch("alice-1", gear=5)
    assert t.send("choose_template", template="turn").refused
    reason = t.illegal("choose_template", template="hairpin")
    assert reason == "touch-move: you must use a permitted template (Hairpin is not permitted in gear 5)"
    assert t.illegal("confirm") == "nothing to confirm: Bob picks a permitted template"
    assert t.illegal("place_template") == "Bob picks a permitted template first, then places it"


# --------------------------------------------------------------------------------------------------
# Refusals in the players' words
# --------------------------------------------------------------------------------------------------


def _at_every_step() -> dict[str, Table]:
    """A table standing at each step of the game (and 1.2 of a touch-move activation)."""
    tables: dict[str, Table] = {}
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    tables["choose vehicle"] = t
    tables["1.1 choose template"] = Table()
    t = Table()
    t.patch("alice-1", gear=5)
    t.send("choose_template", template="turn")
    tables["1.1 touch-move: left player picks"] = t
    t = Table()
    t.patch("alice-1", gear=5)
    t.send("choose_template", template="turn")
    t.ok("choose_template", template="gentle")
    tables["touch-move 1.2"] = t
    t = Table()
    t.ok("choose_template", template="gentle")
    tables["1.2 place template"] = t
    t = Table()
    t.to_skid_check()
    tables["1.3 skid check"] = t
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SHIFT", "SLIDE", "SPIN"])
    tables["1.4 apply SHIFT results"] = t
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SLIDE", "SPIN"])
    t.ok("end_shifts")
    tables["1.6 resolve slide"] = t
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SPIN"])
    t.ok("end_shifts")
    tables["1.7 move"] = t
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SPIN"])
    t.ok("end_shifts")
    t.ok("confirm")
    tables["1.8 resolve spin"] = t
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    tables["2 attack step"] = t
    for gear, step in ((3, "3 wipeout: flip check"), (1, "3 wipeout: lost control in gear 1")):
        t = Table()
        t.patch("bob-1", hazards=6, gear=gear)
        t.to_skid_check()
        t.ok("skid_roll", faces=[])
        t.ok("confirm")
        t.ok("confirm")
        tables[step] = t
    t = Table()
    t.patch("bob-1", hazards=6, gear=3)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    t.ok("flip_check", die=1)
    tables["3 wipeout: flip move"] = t
    t = Table()
    t.ok("end_game")
    tables["game over"] = t
    for name, table in tables.items():
        assert table.step == name or name == "touch-move 1.2", (name, table.step)
    return tables


COMMANDS = ("activate", "choose_template", "place_template", "skid_roll", "push_it", "shift", "end_shifts",
            "confirm", "collision", "hits", "attack", "gain_hazard", "flip_check", "skip_phase")


def test_every_out_of_order_command_is_refused_in_words():
    """"A vehicle does not actually move before 1.7, so it cannot collide before then." [seed] — and every
    other command sent at a step it does not belong to is refused with what the player needs to know, short
    enough to read on a 128×64 screen; never the step names and command lists of the machinery."""
    seen = set()
    for name, t in _at_every_step().items():
        step = Step(t.step)
        for kind in COMMANDS:
            if kind in STEP_COMMANDS[step]:
                continue
            reason = t.illegal(kind)
            seen.add(reason)
            assert "not now" not in reason and "{" not in reason and "takes" not in reason, (name, kind, reason)
            assert len(reason) <= 72, (name, kind, reason)
    assert len(seen) >= 25  # one table of many reasons, not one sentence for all


@pytest.mark.parametrize(
    "step,kind,reason",
    [
        ("1.2 place template", "collision", "Alice's Buggy has not moved yet: collisions come at 1.7 (move)"),
        ("1.6 resolve slide", "collision", "Alice's Buggy has not moved yet: collisions come at 1.7 (move)"),
        ("2 attack step", "collision", "Alice's Buggy has stopped: collisions come at 1.7 and 1.8"),
        ("1.3 skid check", "shift", "roll the skid dice first: SHIFTs come from the roll"),
        ("1.7 move", "shift", "no SHIFT to spend now: SHIFTs are spent at 1.4"),
        ("1.7 move", "attack", "attacks come at step 2, after Alice's Buggy moves"),
        ("1.1 choose template", "flip_check", "nobody is wiping out: flip checks come in step 3"),
        ("choose vehicle", "flip_check", "nobody is wiping out: flip checks come in step 3"),
        ("choose vehicle", "place_template", "Alice chooses a vehicle to activate first"),
        ("3 wipeout: flip check", "confirm", "roll the flip check d6 for Bob's Truck first"),
        ("3 wipeout: flip move", "flip_check", "the flip check is done: move Bob's Truck a Medium Straight"),
        ("1.1 choose template", "activate", "Alice's Buggy is activating already: choose its template (1.1)"),
        ("touch-move 1.2", "push_it", "no skid dice this activation (touch-move)"),
        ("touch-move 1.2", "choose_template", "the Gentle, left is chosen already: place it (1.2)"),
    ],
)
def test_refusal_reasons(step, kind, reason):
    """"A vehicle does not actually move before 1.7, so it cannot collide before then." [seed] — and the
    other steps' refusals, each saying what the player needs to know."""
    assert _at_every_step()[step].illegal(kind) == reason


def test_hits_refused_out_of_their_steps_name_the_flip_move_too():
    """"then a flip check: roll a d6, if lower than the gear it had, the vehicle takes 2 hits and is moved a
    Medium Straight." [P for the flip check] — the flipped vehicle's move takes collisions and hits like
    1.7 and 1.8, so a hit refused elsewhere names it among the times hits come."""
    tables = _at_every_step()
    reason = "hits come with collisions (1.7, 1.8, a flip's move) and attacks (2)"
    for step in ("1.2 place template", "1.6 resolve slide", "3 wipeout: flip check"):
        assert tables[step].illegal("hits", vehicle="bob-1", count=1) == reason, step
    tables["3 wipeout: flip move"].ok("hits", vehicle="bob-1", count=1)


def test_the_generic_refusal_names_the_vehicle_and_the_step():
    """A command with no reason of its own at a step gets the table's fallback in words."""
    t = _at_every_step()["1.2 place template"]
    assert out_of_order(t.state, "anything") == "Alice's Buggy is at 1.2 place the template: do that first"
    t = _at_every_step()["3 wipeout: lost control in gear 1"]
    assert out_of_order(t.state, "anything") == "Bob's Truck is at 3 wipeout: turn it: do that first"


def test_a_shift_with_no_shift_left_says_what_can_be_done():
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." [P]"""
    t = Table()
    t.to_skid_check()
    t.ok("skid_roll", faces=["SPIN"])
    assert t.step == "1.4 apply SHIFT results"
    assert t.illegal("shift", use="discard") == "no SHIFT to spend: push it (re-roll for a hazard token) or carry on"


# --------------------------------------------------------------------------------------------------
# Names, views, activate
# --------------------------------------------------------------------------------------------------


def test_vehicles_without_a_name_are_called_after_their_owner_and_type():
    """Two players' buggies are told apart: "Alice's Buggy", "Bob's Buggy", and a second of a kind is
    numbered ("Bob's Buggy 2"); a name from the setup is kept and never given twice."""
    options = setup(("Alice", ["buggy"]), ("Bob", ["buggy", "buggy", "car"]))
    options["players"][1]["vehicles"].append({"type": "buggy", "name": "Bob's Buggy 3"})
    options["players"][1]["vehicles"].append({"type": "buggy"})
    t = Table.from_options(options)
    names = [v.name for v in t.state.vehicles]
    assert names == ["Alice's Buggy", "Bob's Buggy", "Bob's Buggy 2", "Bob's Car", "Bob's Buggy 3", "Bob's Buggy 4"]
    assert [v.name for v in GAME.views(t.state)[1].vehicles] == names[1:]
    assert "Alice's Buggy" in GAME.prompt(t.state).text
    example = Table.from_options(tomllib.loads(EXAMPLE_SETUP))
    assert [v.name for v in example.state.vehicles] == ["Rust Bucket", "The Brick"]


def test_choose_vehicle_prompt_names_the_vehicles():
    """"A player may activate their qualifying vehicles in any order they like." [seed] — the prompt names
    them; its options are the ids the activate command takes."""
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    p = GAME.prompt(t.state)
    assert p.text == "Gear phase 1: Alice, activate one of Alice's Buggy, Alice's Car"
    assert p.options == ("alice-1", "alice-2") and p.player == "Alice"


def test_views_say_which_vehicles_still_activate_and_where_the_wipeout_line_is():
    """"In phase N every vehicle whose current gear ≥ N activates once." [V] and "each one with 6 or more
    hazard tokens loses control" [seed] — the views carry both, so that no screen re-derives a rule."""
    t = Table(("Alice", ["buggy", "car"]), ("Bob", ["truck"]))
    t.patch("alice-2", gear=2)
    t.patch("bob-1", gear=2)

    def flags() -> dict[str, tuple[bool, bool]]:
        return {vv.id: (vv.activates_this_phase, vv.activated_this_phase) for v in GAME.views(t.state)
                for vv in v.vehicles}

    assert flags() == {"alice-1": (True, False), "alice-2": (True, False), "bob-1": (True, False)}
    t.ok("activate", vehicle="alice-1")
    assert flags()["alice-1"] == (True, False)  # activating now
    t.whole_activation()
    assert flags()["alice-1"] == (False, True)
    t.whole_activation()  # Bob
    t.whole_activation()  # Alice's car
    assert (t.state.phase, t.active) == (2, "bob-1")  # pole passed to Bob
    assert flags() == {"alice-1": (False, False), "alice-2": (True, False), "bob-1": (True, False)}
    assert all(vv.wipeout_at == WIPEOUT_AT == 6 for v in GAME.views(t.state) for vv in v.vehicles)
    t.ok("end_game")
    assert not any(vv.activates_this_phase for v in GAME.views(t.state) for vv in v.vehicles)


def test_activate_a_player_with_one_qualifying_vehicle_starts_at_once():
    """"A player may activate their qualifying vehicles in any order they like." [seed] — a player with one
    qualifying vehicle has nothing to choose: its activation starts at once, and an activate sent anyway
    is refused with why.  With two or more, activate must name one."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck", "car"]))
    assert t.active == "alice-1" and t.step == "1.1 choose template"
    assert t.illegal("activate") == "Alice's Buggy is activating already: choose its template (1.1)"
    assert t.illegal("activate", vehicle="alice-1") == "Alice's Buggy is activating already: choose its template (1.1)"
    t.whole_activation()
    assert t.step == "choose vehicle" and GAME.prompt(t.state).player == "Bob"
    assert t.illegal("activate") == "Bob: say which vehicle activates: Bob's Truck (bob-1), Bob's Car (bob-2)"
    t.ok("activate", vehicle="bob-2")
    assert t.active == "bob-2"


def test_a_vehicle_wiping_out_in_its_own_activation_still_activates_this_phase():
    """"Lose control: the vehicle drops to gear 1" [V] — in gear phase 2 it is in gear 1 now, but its
    activation is not over: the view counts it as activating in this phase until the activation ends."""
    t = Table()
    t.patch("alice-1", gear=2)
    t.patch("bob-1", gear=2)
    t.whole_activation()
    t.whole_activation()
    assert (t.state.phase, t.active) == (2, "bob-1")
    t.patch("bob-1", hazards=6)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    t.ok("confirm")
    assert t.step == "3 wipeout: flip check" and t.v("bob-1").gear == 1
    bob = GAME.views(t.state)[1].vehicles[0]
    assert bob.active and bob.activates_this_phase
    t.ok("flip_check", die=6)
    bob = GAME.views(t.state)[1].vehicles[0]
    assert not bob.active and not bob.activates_this_phase and bob.activated_this_phase


def test_hazards_due_at_1_5_are_in_the_views_until_gained():
    """"1.5 gain a hazard token for each HAZARD, SLIDE and SPIN result" and "Hazard tokens also come from:
    hazardous templates" [seed] [V] — the screens and the camera know the tokens 1.5 will give from the skid
    dice's roll on (a table lays them as the dice show them; a long OK then entered them a second time)."""
    from games.gaslands.rules import views

    def due() -> int:
        return next(v.hazards_due for view in views(t.state) for v in view.vehicles if v.id == "alice-1")

    t = Table()
    t.patch("alice-1", gear=4, hazards=1)
    t.ok("choose_template", template="turn")  # hazardous in gear 4
    assert t.step == "1.2 place template" and due() == 1
    t.ok("place_template")
    t.ok("skid_roll", faces=["SHIFT", "SHIFT", "HAZARD", "SLIDE"])
    assert t.step == "1.4 apply SHIFT results" and due() == 3
    t.ok("shift", use="cancel", result="HAZARD")
    assert t.step == "1.4 apply SHIFT results" and due() == 2 and t.v("alice-1").hazards == 1
    t.ok("end_shifts")
    assert t.v("alice-1").hazards == 3 and due() == 0  # gained: in the log now, due no more
    assert all(v.hazards_due == 0 for view in views(t.state) for v in view.vehicles)


def test_confirm_at_1_4_with_no_shift_says_what_can_be_done():
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." [P] —
    a roll with no SHIFT stops at 1.4 for the push; confirm there was refused with "spend the SHIFTs, or
    end them", SHIFTs there were none of."""
    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SPIN"])
    assert t.step == "1.4 apply SHIFT results"
    assert t.illegal("confirm") == "no SHIFT to spend: push it (re-roll for a hazard token) or carry on"
    t2 = Table()
    t2.to_skid_check("gentle")
    t2.ok("skid_roll", faces=["SHIFT", "SPIN"])
    assert t2.illegal("confirm") == "spend the SHIFTs, or end them, to go on"


def test_a_vehicle_wrecked_during_its_move_is_not_told_to_move():
    """"Wrecks. A wrecked vehicle takes no further part: it does not finish its movement" (docs/RULINGS.md) —
    wrecked by hits at 1.7, its prompt still read "1.7 move to the final position (collisions now)" while a
    collision was refused for it."""
    from games.gaslands import GAME

    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=[])
    assert t.step == "1.7 move"
    t.ok("hits", vehicle="alice-1", count=20)
    prompt = GAME.prompt(t.state).text
    assert "wrecked, it moves no further" in prompt and "final position" not in prompt
    assert GAME.menu(t.state).status == "wrecked: no further move"
    assert "wrecked" in t.illegal("collision", vehicle="bob-1")


def test_two_vehicles_with_one_name_are_refused():
    """(review) Names are what the screens, the menus ("Hit › Interceptor · hull 10") and the camera's words
    show: with Alice's and Bob's cars both "Interceptor" the menus listed two alike, and the cursor kept after
    a hit could land on the other one, so the next OK hit the wrong car."""
    options = setup(("Alice", ["car"]), ("Bob", ["car"]))
    for p in options["players"]:
        p["vehicles"][0]["name"] = "Interceptor"
    with pytest.raises(Illegal, match=r"two vehicles are named 'Interceptor' \(Alice's and Bob's\)"):
        GAME.start(options)
    options["players"][1]["vehicles"][0]["name"] = "Interceptor II"
    assert GAME.start(options)


def test_a_new_gear_phase_is_told_on_every_screen_with_who_has_pole():
    """"Each round is divided into six gear phases … pole position passes clockwise" — an audit: a new gear phase
    showed only as "ph1" turning "ph2" on the dashboards, and the pole flag moving. The decision that starts it
    tells every screen which phase and who has pole; phases nobody qualifies for pass unsaid (the one reached is
    told)."""
    t = Table()
    t.patch("alice-1", gear=2)
    t.patch("bob-1", gear=4)

    def activate(chosen: bool = False) -> None:  # a Short Straight, no skid dice, confirmed to the next template
        if not chosen:
            t.ok("choose_template", template="short_straight")
        t.ok("place_template")
        t.ok("skid_roll", faces=[])
        while GAME.prompt(t.state).awaits != "template":
            t.ok("confirm")

    for _ in range(2):  # phase 1: both activate
        activate()
    assert (t.state.round, t.state.phase) == (1, 2)
    assert t.state.news == "Gear phase 2: pole Bob"
    for _ in range(2):  # phase 2: both again; then nobody in gear 3 but Bob's truck, in phase 3 and 4
        activate()
    assert (t.state.round, t.state.phase) == (1, 3)
    assert t.state.news == "Gear phase 3: pole Alice"
    t.ok("choose_template", template="short_straight")
    assert t.state.news == ""
    activate(chosen=True)
    assert t.state.news == "Gear phase 4: pole Bob"
    activate()  # after phase 4 nobody is in gear 5 or 6
    assert (t.state.round, t.state.phase) == (2, 1)
    assert t.state.news == "Round 2 begins: pole Alice"  # not "Gear phase 5 …; Gear phase 6 …" before it


def test_a_new_round_is_told_on_every_screen():
    """"A round is six gear phases" — a walkthrough: no screen showed the round and nothing said a new one
    began (the dashboards say only "ph1"). The decision that starts it tells every screen, with who has pole."""
    t = Table()
    for _ in range(2):  # Alice's Buggy and Bob's Truck, gear 1: phase 1 only, then the round is over
        t.ok("choose_template", template="gentle", hand="left")
        t.ok("place_template")
        t.ok("skid_roll", faces=[])
        while GAME.prompt(t.state).awaits != "template":
            t.ok("confirm")
    assert (t.state.round, t.state.phase) == (2, 1)
    assert t.state.news == "Round 2 begins: pole Bob"
    assert t.events[-1].type == "told"  # said after the round's gear phases and the first activation
    t.ok("choose_template", template="gentle", hand="left")
    assert t.state.news == ""


def test_a_template_is_named_as_the_rulebook_prints_it():
    """"Nine templates: Short Straight, Medium Straight, Long Straight, Gentle, Turn, Hard, Veer, Swerve, Hairpin."
    [seed] — an audit: "Turn" was refused ("'Turn' is not a maneuver template; choose one of short_straight, ...":
    the program's ids, not the printed names)."""
    t = Table()
    t.ok("choose_template", template="Short Straight")
    assert t.state.activation.template == "short_straight"
    t2 = Table()
    assert t2.illegal("choose_template", template="U-turn") == (
        "'U-turn' is not a maneuver template; the templates are Short Straight, Medium Straight, Long Straight, "
        "Gentle, Turn, Hard, Veer, Swerve, Hairpin")
