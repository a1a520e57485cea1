"""What the Gaslands menu page says, found by playing a 5-player table through the real loop and looking at
the screens: the footer and title must carry what the player needs at the step, in the rulebook's words."""

from __future__ import annotations

from gaslands_helpers import Table

from games.gaslands.menus import menu


def _labels(table: Table) -> list[str]:
    return [c.label for c in menu(table.state).choices]


def test_own_vehicles_are_offered_without_the_owners_name() -> None:
    """"Dmitri's Ice Cream Truck (gear 1)" did not fit the line and lost its gear ("Dmitri's Ice Cream
    Truck (…"); the owner choosing does not need their own name there."""
    t = Table(("Dmitri", ["bike_with_sidecar", "ice_cream_truck"]), ("Bob", ["truck"]))
    assert _labels(t)[:2] == ["Bike with Sidecar (gear 1)", "Ice Cream Truck (gear 1)"]
    # what the command sends is unchanged
    assert menu(t.state).choices[1].command.args == {"vehicle": "dmitri-2"}


def test_the_vehicles_to_activate_are_offered_with_their_hazard_tokens() -> None:
    """"every player checks every vehicle they control; each one with 6 or more hazard tokens loses control":
    the owner's screen shows one vehicle's tokens; the list to activate from now shows each one's."""
    t = Table(("Dmitri", ["bike_with_sidecar", "ice_cream_truck"]), ("Bob", ["truck"]))
    t.patch("dmitri-2", hazards=4)
    assert _labels(t)[:2] == ["Bike with Sidecar (gear 1)", "Ice Cream Truck (gear 1, 4 haz)"]


def _to_shifts(faces: list[str]) -> Table:
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    assert t.step == "1.1 choose template"  # Alice's only vehicle activates at once
    t.ok("choose_template", template="medium_straight")
    t.ok("place_template")
    t.ok("skid_roll", faces=faces)
    return t


def test_the_shift_step_says_how_many_shifts_and_which_results_stand() -> None:
    """"Roll up to the vehicle's Handling in skid dice ... Each SHIFT may be spent on exactly one of: cancel
    one rolled HAZARD, SLIDE or SPIN ...".  The 1.4 page said "1.4 SHIFT results" over "Rust Bucket · gear
    1 · 0 haz": neither the SHIFTs to spend nor the results standing, and a roll read by the camera was
    shown nowhere at all."""
    t = _to_shifts(["SHIFT", "SHIFT", "HAZARD", "SPIN"])
    m = menu(t.state)
    assert m.title == "1.4 Spend 2 SHIFTs"
    assert m.status.startswith("HAZARD SPIN") and "gear 1" in m.status and "free" not in m.status
    t.ok("shift", use="cancel", result="SPIN")
    m = menu(t.state)
    assert m.title == "1.4 Spend 1 SHIFT" and m.status.startswith("HAZARD ·")


def test_a_free_shift_of_a_trivial_icon_is_said_where_it_is_spent() -> None:
    """"the template shows an icon: trivial (gives one free SHIFT result)" — "1.4 Spend 4 SHIFTs" after three
    SHIFTs rolled (and "Spend 1 SHIFT" after no skid dice) said nowhere where the other came from (an audit, five
    players)."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    t.ok("choose_template", template="turn", hand="left")  # trivial in gear 1
    t.ok("place_template")
    t.ok("skid_roll", faces=["SHIFT", "SPIN"])
    m = menu(t.state)
    assert m.title == "1.4 Spend 2 SHIFTs" and m.status.endswith(" · 1 free SHIFT: trivial")
    t.ok("shift", use="cancel", result="SPIN")
    t.ok("shift", use="gear_up")
    assert "free" not in menu(t.state).status  # all spent


def test_repeated_results_are_counted_to_fit_the_footer() -> None:
    t = _to_shifts(["SHIFT", "SPIN", "SPIN", "HAZARD"])
    status = menu(t.state).status
    assert status.startswith("2 SPIN HAZARD") and len(status) <= 28


def test_no_shift_rolled_is_said() -> None:
    t = _to_shifts(["HAZARD", "SLIDE"])
    m = menu(t.state)
    assert m.title == "1.4 No SHIFT to spend" and m.status.startswith("HAZARD SLIDE")  # (it said "left": none was)


def test_the_turners_menu_names_the_vehicle_that_lost_control() -> None:
    """"Lose control: the vehicle drops to gear 1, the player on the left turns it to face any direction".
    The turner's menu said only "3 Wipeout" over "Turned it"; which vehicle was in a footer alert that
    turned a piece at a time."""
    t = Table(("Alice", ["buggy"]), ("Bob", ["truck"]))
    assert t.step == "1.1 choose template"  # Alice's only vehicle activates at once
    t.ok("choose_template", template="medium_straight")
    t.ok("place_template")
    t.ok("gain_hazard", vehicle="alice-1", count=6, cause="table")
    t.ok("skid_roll", faces=[])
    for _ in range(6):
        if t.step.startswith("3"):
            break
        t.ok("end_shifts") if t.step.startswith("1.4") else t.ok("confirm")
    assert t.step == "3 wipeout: lost control in gear 1", t.step
    m = menu(t.state)
    assert m.title == "3 Turn Alice's Buggy" and m.player == "Bob"


def test_the_evade_dice_page_says_the_hits_to_evade() -> None:
    """"Attack step: ... attacks are made (hits on 4+, a 6 is two hits; the target rolls evade dice equal to
    its current gear, each 6 cancels one hit)." [V] — once the attack dice were in, the page asked for "evade
    dice" without showing what they were for; it now says the hits they may cancel."""
    t = Table()
    t.patch("bob-1", gear=2)
    t.to_skid_check()
    t.ok("skid_roll", faces=[])
    t.ok("confirm")
    attack = next(c for c in menu(t.state).choices if c.label == "Attack…")
    target = attack.children[0]
    evade = target.dice.command([1, 3, 4, 5, 6])
    assert evade.label.startswith("4 hits: ") and evade.label.endswith(" evade dice")
    assert target.dice.command([4]).label.startswith("1 hit: ")


def test_a_touched_template_that_is_not_permitted_can_be_recorded_from_the_buttons() -> None:
    """"If they pick a template that is not permitted, the player on their left chooses and places any permitted
    template for that vehicle; the active vehicle then may not roll skid dice."  The 1.1 menu listed only the
    permitted templates, so a table without the camera could not record the pick, and rolled the skid dice the
    rule takes away."""
    from dataclasses import replace

    from games.core.table_input import FIRST_LEVEL_MAX, leaves
    from games.gaslands.state import Step

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    t.state = replace(t.state, vehicles=tuple(replace(v, gear=5) if v.id == "a-1" else v for v in t.state.vehicles))
    m = menu(t.state)
    touched = {lf.choice.label: lf.choice for lf in leaves(m.choices) if lf.path[0] == "Not permitted…"}
    assert "Turn" in touched and "Gentle" not in touched  # gear 5: Gentle is permitted, Turn is not
    d = t.send("choose_template", **touched["Turn"].command.args)
    assert d.refused and "Touch-move: B (on the left) picks" in d.refused
    assert t.state.activation.step is Step.TOUCH_MOVE and t.state.activation.touch_move
    assert not any(lf.path[0] == "Not permitted…" for lf in leaves(menu(t.state).choices))  # B's pick
    for gear in range(1, 7):  # never more than the first level holds: then it waits under "Table…"
        t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
        t.state = replace(t.state, vehicles=tuple(replace(v, gear=gear, max_gear=6) if v.id == "a-1" else v
                                                  for v in t.state.vehicles))
        assert len(menu(t.state).choices) <= FIRST_LEVEL_MAX


def test_with_no_room_on_the_first_level_the_touched_templates_wait_under_table() -> None:
    from dataclasses import replace

    from games.core.table_input import FIRST_LEVEL_MAX, leaves

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")  # gear 1; an owner's chart bars the Short Straight only
    chart = tuple((name, ("not_permitted",) + row[1:]) if name == "short_straight" else (name, row)
                  for name, row in t.state.chart)
    m = menu(replace(t.state, chart=chart))
    assert len(m.choices) <= FIRST_LEVEL_MAX and m.choices[-1].label == "Table…"
    assert [lf.path for lf in leaves(m.choices) if lf.choice.recorded_refusal] == \
        [("Table…", "Not permitted…", "Short Straight")]


def test_a_long_vehicle_name_does_not_push_the_gear_and_tokens_off_the_footer() -> None:
    """Seen: "Big Momma Juggernaut · g…" at 1.2 › Hazard token: each OK added a token and the footer showed no
    change.  The numbers come first when the whole does not fit."""
    from games.gaslands.menus import FOOTER_CHARS, vehicle_status

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    short, = [v for v in t.state.vehicles if v.id == "a-1"]
    assert vehicle_status(short) == f"{short.name} · gear 1 · 0 haz"
    from dataclasses import replace

    long = replace(short, name="Big Momma Juggernaut", hazards=3)
    said = vehicle_status(long)
    assert said.startswith("gear 1 · 3 haz") and said[:FOOTER_CHARS].count("haz") == 1


def test_the_flip_check_says_its_odds_and_what_a_flip_does_on_the_rollers_screen() -> None:
    """"a flip check: roll a d6, if lower than the gear it had, the vehicle takes 2 hits and is moved a Medium
    Straight" — the roller's screen said "flip check d6" and "Flip move done"; only the log said "below 3"."""
    from games.gaslands.state import Step

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    t.patch("a-1", gear=3, hazards=6)
    t.ok("choose_template", template="short_straight")
    t.ok("place_template")
    t.ok("skid_roll", faces=[])
    while t.state.activation.step is not Step.WIPEOUT_FLIP:
        t.ok("confirm")
    m = menu(t.state)
    assert m.status == "d6 below 3 flips" and m.dice.label == "d6, below 3 flips"
    t.ok("flip_check", die=1)
    assert menu(t.state).status == "2 hits + Medium Straight"


def test_a_burning_vehicle_says_so_on_its_owners_menu() -> None:
    """Through Alice's whole activation her menu's footer read "Rust Bucket · gear 3 · 7 haz": ON FIRE showed
    only on the dashboard, which her screen does not show while she chooses."""
    from dataclasses import replace

    from games.gaslands.menus import vehicle_status

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    car, = [v for v in t.state.vehicles if v.id == "a-1"]
    from games.gaslands.menus import FOOTER_CHARS

    for name in ("Rust", "Big Momma Juggernaut"):
        said = vehicle_status(replace(car, name=name, on_fire=True))
        assert "gear 1 · 0 haz · ON FIRE" in said[:FOOTER_CHARS] and name in said
    assert "FIRE" not in vehicle_status(car)


def test_the_template_to_place_is_named_with_its_hand_and_edge() -> None:
    """"YOU PLACE the Gentle" (and the 1.2 screen's "Place template") left out which hand and which edge were
    picked: a left Gentle placed right is another move."""
    from games.gaslands.rules import views

    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    t.ok("choose_template", template="gentle", hand="left", edge="rear")
    assert menu(t.state).status == "place: Gentle, left, reverse"
    t = Table(("A", ["car"]), ("B", ["buggy"]), pole="A")
    t.patch("a-1", gear=5)
    assert t.send("choose_template", template="turn").refused  # touch-move: B picks and places
    t.ok("choose_template", template="gentle", hand="right")
    placing = [a.text for v in views(t.state) for a in v.alerts if a.kind == "touch_move_place"]
    car = t.state.vehicle("a-1").name
    assert placing == [f"YOU PLACE the Gentle, right for {car}"]


def test_with_five_players_of_two_cars_a_list_of_cars_stays_within_eight() -> None:
    """"at most eight choices a list": 5 players × 2 cars made "Hazard token" (and Collision, Hit…) ten long."""
    from games.core.table_input import FIRST_LEVEL_MAX, leaves

    t = Table(*((p, ["car", "buggy"]) for p in ("A", "B", "C", "D", "E")), pole="A")
    t.ok("activate", vehicle="a-2")
    t.ok("choose_template", template="short_straight")
    m = menu(t.state)
    hazard = next(c for c in m.choices if c.label == "Hazard token")
    assert len(hazard.children) <= FIRST_LEVEL_MAX
    first = hazard.children[0]
    assert first.command is not None and first.command.args["vehicle"] == t.state.activation.vehicle  # on top
    assert [c.label for c in hazard.children[1:]] == ["A", "B", "C", "D", "E"]
    cars = {lf.choice.command.args["vehicle"] for lf in leaves((hazard,))}
    assert cars == {v.id for v in t.state.vehicles}  # every car still reachable


def test_push_it_on_the_buttons_re_rolls_one_die_of_a_result_too() -> None:
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." [P] —
    the buttons offered the non-SHIFT dice or all of them: a player keeping the HAZARD and re-rolling the SPIN
    could not say so."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from gaslands_helpers import Table

    from games.gaslands import GAME

    t = Table()
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "HAZARD", "SPIN"])
    push = next(c for c in GAME.menu(t.state).choices if c.label == "Push it… · +1 hazard")
    assert [c.label for c in push.children] == ["Re-roll non-SHIFT", "Re-roll all", "Re-roll one HAZARD",
                                                "Re-roll one SPIN"]
    roll = next(c for c in push.children if c.label == "Re-roll one SPIN").dice
    assert roll is not None and roll.count == 1
    command = roll.command(["SHIFT"])
    assert command.to_json() == {"type": "push_it", "reroll": [2], "faces": ["SHIFT"]}
    t.ok(command.type, **command.args)
    assert [f.value for f in t.state.activation.skid_results] == ["SHIFT", "HAZARD", "SHIFT"]


def test_push_it_offers_any_number_of_the_skid_dice() -> None:
    """"Optional re-roll ("push it"): take one hazard token to re-roll any number of skid dice once." The
    buttons offered the non-SHIFT dice, all, or one die of a result: keeping the HAZARD and re-rolling the SPIN
    and the SLIDE could not be said. "Re-roll some…" holds every two or more (not all) of the results, and
    each entry names the dice it re-rolls (it said "3 skid dice")."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from gaslands_helpers import Table

    from games.core.table_input import FIRST_LEVEL_MAX
    from games.gaslands import GAME

    t = Table(("Eve", ["buggy"]), ("Bob", ["car"]))
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["HAZARD", "SPIN", "SLIDE", "SHIFT"])
    push = next(c for c in GAME.menu(t.state).choices if c.label == "Push it… · +1 hazard")
    some = next(c for c in push.children if c.label == "Re-roll some…")
    assert [c.label for c in some.children] == ["SPIN + SLIDE", "HAZARD + SLIDE", "HAZARD + SPIN"]
    roll = next(c for c in some.children if c.label == "SPIN + SLIDE").dice
    assert roll is not None and roll.label == "re-roll SPIN + SLIDE" and roll.count == 2
    assert roll.command(["SHIFT", "HAZARD"]).to_json() == {"type": "push_it", "reroll": [1, 2],
                                                            "faces": ["SHIFT", "HAZARD"]}
    t.ok("push_it", reroll=[1, 2], faces=["SHIFT", "HAZARD"])
    assert [f.value for f in t.state.activation.skid_results] == ["HAZARD", "SHIFT", "HAZARD", "SHIFT"]
    # a Bike's five dice, two results twice: a list per number of dice, none over eight
    b = Table(("Eve", ["bike"]), ("Bob", ["car"]))
    b.to_skid_check("gentle")
    b.ok("skid_roll", faces=["HAZARD", "HAZARD", "SPIN", "SPIN", "SLIDE"])
    push = next(c for c in GAME.menu(b.state).choices if c.label == "Push it… · +1 hazard")
    some = next(c for c in push.children if c.label == "Re-roll some…")
    assert [c.label for c in some.children] == ["2 dice", "3 dice", "4 dice"]
    assert all(len(c.children) <= FIRST_LEVEL_MAX for c in some.children)
    assert "2 HAZARD + SPIN" in [c.label for c in some.children[1].children]


def test_a_templates_icon_in_the_vehicles_gear_is_said_after_its_name() -> None:
    """"Under each permitted gear the template shows an icon: trivial (gives one free SHIFT result) or hazardous
    (the vehicle gains one extra hazard token)" — a walkthrough: "Turn" read the same in gear 1 and in gear 4, and
    a hazard token came from a Hard with nothing saying why. The chart is the owner's; the list says its icon."""
    from gaslands_helpers import setup

    options = setup(("Alice", ["buggy"]), ("Bob", ["truck"]))
    options["chart"] = {"short_straight": ["trivial", "permitted", "hazardous", "permitted", "permitted", "permitted"]}
    t = Table(options=options)
    t.patch("alice-1", gear=3)
    labels = _labels(t)
    assert "Turn" in labels and "Turn · trivial" not in labels  # permitted in gear 3: no icon
    straights = next(c for c in menu(t.state).choices if c.label == "Straights")
    assert [c.label for c in straights.children][0] == "Short · hazardous"
    t.patch("alice-1", gear=4)
    assert "Turn · hazardous" in _labels(t)
    t.ok("choose_template", template="turn", hand="left")
    assert menu(t.state).status.startswith("place: Turn, left · hazardous")


def test_the_slide_and_spin_steps_say_what_to_do() -> None:
    """"1.6 resolve a slide (place the Slide template at the template's skid-exit notch) ... 1.8 resolve a spin:
    pivot up to 90° either way".  The screens said only "1.6 Slide" over "Slide placed" and "1.8 Spin" over
    "Spun": the words were in the log's prompt alone (a game-night audit)."""
    t = _to_shifts(["SLIDE", "SPIN"])
    t.ok("end_shifts")
    assert t.step == "1.6 resolve slide"
    m = menu(t.state)
    assert m.title == "1.6 Slide" and m.status.startswith("Slide template at the skid-exit notch · "), m.status
    t.ok("confirm")
    t.ok("confirm")
    assert t.step == "1.8 resolve spin"
    m = menu(t.state)
    assert m.title == "1.8 Spin" and m.status.startswith("pivot up to 90° either way · "), m.status


def test_a_gear_change_shows_its_hazard_token_in_the_list() -> None:
    """"gear up (+1 current gear, +1 hazard token); gear down (−1 current gear, +1 hazard token)".  The list said
    "Gear up" and "Gear down" while "Push it… · +1 hazard" showed its price (a game-night audit)."""
    from games.core.table_input import leaves

    t = _to_shifts(["SHIFT", "SHIFT"])
    labels = [leaf.path[-1] for leaf in leaves(menu(t.state).choices)]
    assert "Gear up · +1 hazard" in labels, labels
    vid = t.state.activation.vehicle
    before = t.v(vid).hazards
    t.ok("shift", use="gear_up")
    assert t.v(vid).hazards == before + 1
    labels = [leaf.path[-1] for leaf in leaves(menu(t.state).choices)]
    assert "Gear down · +1 hazard" in labels, labels  # (in gear 2 now)
