"""The Gaslands dashboard: golden images for each layout state (pixel for pixel; regenerate with
PITBOARD_REGOLD=1 and look at them), plus behaviour that does not need a picture."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from golden_images import check_golden, lit

from device.dashboards import render_view
from device.dashboards.gaslands import featured, render, short_step
from games.core import Alert
from games.gaslands.state import PlayerView, Step, VehicleView

GOLDEN = Path(__file__).parent / "golden" / "gaslands"


def vehicle(**kw) -> VehicleView:
    base = dict(id="rust", name="Rust Bucket", type="buggy", gear=3, max_gear=6, hazards=2, hull=5, max_hull=6,
                on_fire=False, wrecked=False, activated_this_phase=False, active=True, activates_this_phase=True,
                wipeout_at=6)
    base.update(kw)
    return VehicleView(**base)


def view(*vehicles: VehicleView, **kw) -> PlayerView:
    base = dict(player="Alice", seat=0, round=1, gear_phase=3, has_pole=True, your_activation=True,
                vehicles=vehicles or (vehicle(),), step=Step.SKID_CHECK.value,
                prompt="Alice · Rust Bucket (gear 3): 1.3 skid check, roll up to 4 skid dice")
    base.update(kw)
    return PlayerView(**base)


ILLEGAL = Alert("illegal_template", "Hairpin NOT PERMITTED in gear 5. Bob picks for you")
WIPEOUT = Alert("wipeout_coming", "WIPEOUT: Rust Bucket: 7 hazards, loses control in step 3", "Alice")
WRECK = Alert("wrecked", "Rust Bucket WRECKED", "Alice")
LOST = Alert("lost_control", "LOST CONTROL: Alice's Buggy, Bob turns it")

STATES: dict[str, tuple[PlayerView, bool]] = {
    "your_activation": (view(), True),
    "waiting": (view(vehicle(active=False, gear=2, hazards=0), your_activation=False, has_pole=False,
                     step=Step.CHOOSE_VEHICLE.value, gear_phase=1), True),
    "hazards_at_wipeout_line": (view(vehicle(hazards=6)), False),
    "hazards_beyond_line": (view(vehicle(hazards=8)), False),
    "hazards_far_beyond": (view(vehicle(hazards=11)), False),
    "on_fire_and_done": (view(vehicle(on_fire=True, activated_this_phase=True, activates_this_phase=False,
                                      active=False, hull=2),
                              your_activation=False, step=Step.SHIFTS.value), True),
    "big_hull": (view(vehicle(name="The Long Haul War Rig", type="war_rig", gear=4, max_gear=4, hull=26,
                              max_hull=26, hazards=1)), True),
    "illegal_template_blink_on": (view(vehicle(gear=5), alerts=(ILLEGAL,), step=Step.TOUCH_MOVE.value), True),
    "illegal_template_blink_off": (view(vehicle(gear=5), alerts=(ILLEGAL,), step=Step.TOUCH_MOVE.value), False),
    "touch_move_picker_blink_on": (view(vehicle(active=False), player="Bob", has_pole=False,
                                        alerts=(Alert("touch_move", "YOU PICK for Rust Bucket", "Bob"),),
                                        step=Step.TOUCH_MOVE.value), True),
    "touch_move_place_blink_on": (view(vehicle(id="brick", name="The Brick", active=False), player="Bob",
                                       has_pole=False, step=Step.PLACE_TEMPLATE.value,
                                       alerts=(Alert("touch_move_place", "YOU PLACE the Long Straight", "Bob"),)),
                                  True),
    "wipeout_coming_blink_on": (view(vehicle(hazards=7), alerts=(WIPEOUT,), step=Step.ATTACK.value), True),
    "lost_control_in_gear_1_blink_on": (view(vehicle(name="Alice's Buggy", gear=1, hazards=0), alerts=(LOST,),
                                             step=Step.WIPEOUT_TURN.value, your_activation=False), True),
    "lost_control_in_gear_1_blink_off": (view(vehicle(name="Alice's Buggy", gear=1, hazards=0), alerts=(LOST,),
                                              step=Step.WIPEOUT_TURN.value, your_activation=False), False),
    "wrecked_blink_on": (view(vehicle(hull=0, wrecked=True), alerts=(WRECK,), step=Step.MOVE.value), True),
    "wrecked_blink_off": (view(vehicle(hull=0, wrecked=True), alerts=(WRECK,), step=Step.MOVE.value), False),
    "two_alerts_blink_on": (view(vehicle(hazards=7), alerts=(ILLEGAL, WIPEOUT)), True),
    "car_not_seen_blink_on": (view(alerts=(Alert("car_unseen", "car not seen: the tag on Rust Bucket reads 15 mm, not 20",
                                                 "Alice"),), step=Step.CHOOSE_TEMPLATE.value), True),
    "own_vehicles_named_by_type": (view(vehicle(name="Alice's Buggy"),
                                        vehicle(id="c", name="Alice's Car", gear=2, active=False),
                                        vehicle(id="b2", name="Alice's Buggy 2", gear=1, active=False)), True),
    "three_vehicles": (view(vehicle(), vehicle(id="b", name="Brick", gear=2, hazards=6, active=False),
                            vehicle(id="z", name="Zed", gear=1, hull=0, wrecked=True, active=False),
                            step=Step.TOUCH_MOVE.value), True),
    "six_vehicles": (view(*(vehicle(id=f"v{i}", name=n, gear=1 + i % 6, active=i == 2, on_fire=i == 4)
                            for i, n in enumerate(["Ace", "Bolt", "Crash", "Dart", "Echo", "Fury"]))), True),
    "no_vehicles": (view(vehicles=(), your_activation=False), True),
    "game_over": (view(vehicle(active=False), your_activation=False, step=Step.GAME_OVER.value), True),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_golden(name, tmp_path):
    v, blink = STATES[name]
    check_golden(render_view("gaslands", v, blink_on=blink), GOLDEN / f"{name}.png", tmp_path)


def test_every_golden_file_belongs_to_a_state():
    assert {p.stem for p in GOLDEN.glob("*.png")} <= set(STATES)


def test_alerts_flash_and_hide_when_blink_is_off():
    with_alert = view(alerts=(ILLEGAL,))
    on, off = render(with_alert, blink_on=True), render(with_alert, blink_on=False)
    assert (lit(on) != lit(off)).sum() > 500
    assert np.array_equal(lit(off), lit(render(view(), blink_on=True)))


def test_other_players_alerts_are_not_shown():
    theirs = view(alerts=(Alert("wrecked", "Brick WRECKED", "Bob"),))
    assert np.array_equal(lit(render(theirs, blink_on=True)), lit(render(view(), blink_on=True)))


def test_each_hazard_changes_the_picture_including_beyond_the_line():
    pictures = [lit(render(view(vehicle(hazards=h)), blink_on=False)) for h in range(0, 10)]
    for a, b in zip(pictures, pictures[1:]):
        assert (a != b).any()


def test_your_activation_marker_lights_the_header():
    mine, theirs = render(view(), blink_on=True), render(view(your_activation=False), blink_on=True)
    assert lit(mine)[:12].mean() > 0.5 > lit(theirs)[:12].mean()


def test_featured_vehicle_is_active_else_next_to_activate():
    a = vehicle(id="a", active=False, activated_this_phase=True, activates_this_phase=False)
    b = vehicle(id="b", active=False, gear=1, activates_this_phase=False)  # does not activate in phase 3
    c = vehicle(id="c", active=False, gear=4)
    assert featured(view(a, b, c)).id == "c"
    assert featured(view(a, b, replace(c, active=True))).id == "c"
    assert featured(view(a, replace(b, active=True), c)).id == "b"
    wrecked = vehicle(id="w", wrecked=True, active=False, activates_this_phase=False)
    assert featured(view(wrecked, replace(a, activated_this_phase=False, gear=1))).id == "a"
    assert featured(view(vehicles=())) is None


def test_the_dashboard_takes_the_rules_from_the_view():
    """Which vehicle still activates and where the wipeout line lies come with the view: the screen
    follows them and derives neither (a vehicle in a high gear that the view says does not activate is
    not featured; a line at 5 tokens is drawn at 5)."""
    import device.dashboards.gaslands as dash

    assert not hasattr(dash, "WIPEOUT_AT")
    done = vehicle(id="d", active=False, gear=6, activates_this_phase=False)
    waiting = vehicle(id="w", active=False, gear=1, activates_this_phase=True)
    assert featured(view(done, waiting, gear_phase=1)).id == "w"
    at_five = render(view(vehicle(hazards=5, wipeout_at=5)), blink_on=False)
    at_six = render(view(vehicle(hazards=5, wipeout_at=6)), blink_on=False)
    assert (lit(at_five) != lit(at_six)).any()
    chip = (slice(13, 22), slice(107, 128))  # the first chip: lit at the view's wipeout line
    over = render(view(vehicle(), vehicle(id="b", hazards=5, wipeout_at=5, active=False)), blink_on=False)
    under = render(view(vehicle(), vehicle(id="b", hazards=5, wipeout_at=6, active=False)), blink_on=False)
    assert lit(over)[chip].mean() > 0.5 > lit(under)[chip].mean()


def test_every_rules_step_has_a_short_form_that_fits():
    from device.dashboards.common import text_width

    for step in Step:
        assert text_width(short_step(step.value), 9) <= 128, step


def test_dispatcher_remembers_frames_but_hands_out_copies():
    v = view(vehicle(hazards=4))
    a = render_view("gaslands", v, blink_on=True)
    a.putpixel((0, 0), 1 - a.getpixel((0, 0)))  # the caller draws on its frame
    b = render_view("gaslands", v, blink_on=True)
    assert np.array_equal(lit(b), lit(render(v, blink_on=True)))
    assert not np.array_equal(lit(render_view("gaslands", replace(v, gear_phase=4), blink_on=True)), lit(b))


def test_dispatcher_refuses_unknown_games_clearly():
    with pytest.raises(ValueError, match="no dashboard for game 'chess'"):
        render_view("chess", view(), blink_on=True)
    with pytest.raises(ValueError, match="not a game name"):
        render_view("../etc", view(), blink_on=True)


def test_views_from_the_real_rules_engine_render():
    gaslands = pytest.importorskip("games.gaslands")
    from games.core import Command, Match

    match = Match.begin(gaslands.GAME, tomllib.loads(gaslands.EXAMPLE_SETUP))
    if "activate" in match.prompt().commands:  # a single qualifying vehicle may be activated for you
        assert match.apply(Command.from_json({"type": "activate"})).accepted
    for _ in range(6):
        assert match.apply(Command.from_json({"type": "gain_hazard", "vehicle": "rust"})).accepted
    alice = match.views()[0]
    assert any(a.kind == "wipeout_coming" for a in alice.alerts)
    on, off = render_view("gaslands", alice, blink_on=True), render_view("gaslands", alice, blink_on=False)
    assert (lit(on) != lit(off)).any()
    for v in match.views():
        assert render_view("gaslands", v, blink_on=True).size == (128, 64)


def test_a_long_alert_title_is_split_onto_two_lines_not_cut() -> None:
    """A start-up notice ("DICE MODELS BROKEN", "TABLE NOT READ: CALIBRATION") is read whole on the screen:
    the banner puts what does not fit on its small second line instead of ending it with "…"."""
    from device.dashboards.common import _split_to_fit, text_width

    width = 128 - 1 - 6
    assert _split_to_fit("WIPEOUT!", width, 12) == ("WIPEOUT!", "")
    head, tail = _split_to_fit("DICE MODELS BROKEN", width, 12)
    assert (head, tail) == ("DICE MODELS", "BROKEN") and text_width(head, 12) <= width
    assert _split_to_fit("TABLE NOT READ: CALIBRATION", width, 12) == ("TABLE NOT READ:", "CALIBRATION")
    assert _split_to_fit("X" * 40, width, 12) == ("X" * 40, "")  # no space: cut with "…" as before


def test_the_header_names_an_own_vehicle_without_its_owners_name() -> None:
    """A vehicle the setup left unnamed is "Dmitri's Bike with Sidecar"; on Dmitri's own screen the header
    said "Dmitri's Bike with Si…", the type cut off.  There it is "Bike with Sidecar", whole."""
    own = render(view(vehicle(name="Dmitri's Bike with Sidecar"), player="Dmitri"), blink_on=True)
    plain = render(view(vehicle(name="Bike with Sidecar"), player="Dmitri"), blink_on=True)
    assert own.tobytes() == plain.tobytes()


@pytest.mark.parametrize("name", ["Monster Truck", "War Rig", "Mad Max"])
def test_a_wide_initial_is_drawn_on_its_chip(name: str) -> None:
    """A chip's initial had 7 px at size 10: an M or a W is 8-9 px wide and was cut to nothing, leaving
    only the gear ("  1"), so the player could not tell which vehicle it was."""
    v = view(vehicle(), vehicle(id="m", name=name, gear=1, active=False, activates_this_phase=False))
    image = np.array(render(v, blink_on=True), dtype=bool)
    from device.dashboards.gaslands import CHIPS_X, MIDDLE_TOP

    initial = image[MIDDLE_TOP:MIDDLE_TOP + 9, CHIPS_X:CHIPS_X + 11]
    assert initial.sum() >= 10, f"no initial drawn for {name!r}"


def test_a_notice_beginning_with_its_title_is_that_title_over_the_rest(monkeypatch) -> None:
    """"NOT RECORDED: the disk is full: free some space, then try again" was drawn in capitals as the
    banner's title and cut at "THEN TRY…": the what-to-do was lost.  A notice that begins with its title
    is drawn as that title over the rest; one without (a camera reading) is still its words in capitals."""
    import device.dashboards.gaslands as gl

    drawn: list[tuple[str, str]] = []
    monkeypatch.setattr(gl, "banner", lambda draw, box, title, text, **kw: drawn.append((title, text)))
    full = "NOT RECORDED: the disk is full: free some space, then try again"
    render(view(alerts=(Alert("not_recorded", full, None),)), blink_on=True)
    render(view(alerts=(Alert("camera_down", "CAMERA OFF: enter dice with the buttons", None),)), blink_on=True)
    render(view(alerts=(Alert("dice", "camera: SPIN HAZARD", "Alice"),)), blink_on=True)
    assert drawn == [("NOT RECORDED", "the disk is full: free some space, then try again"),
                     ("CAMERA OFF", "enter dice with the buttons"), ("CAMERA: SPIN HAZARD", "")]


def test_two_vehicles_with_one_initial_have_chips_that_read_apart() -> None:
    """Seen: Alice's Buggy and Alice's Buggy 2 (or a Bike beside a Buggy) were both the chip "B": she could not
    tell which chip was which vehicle's gear.  A shared initial takes the number or the second letter."""
    from device.dashboards.gaslands import CHIPS_X, MIDDLE_TOP, chip_marks

    idle = dict(active=False, activates_this_phase=False)
    vs = (vehicle(id="car", name="Alice's Car"), vehicle(id="b1", name="Alice's Buggy", gear=2, **idle),
          vehicle(id="b2", name="Alice's Buggy 2", gear=2, **idle), vehicle(id="bk", name="Alice's Bike", gear=2, **idle),
          vehicle(id="rb", name="Rust Bucket", gear=2, **idle))
    assert chip_marks(view(*vs)) == {"car": "C", "b1": "Bu", "b2": "B2", "bk": "Bi", "rb": "R"}
    assert chip_marks(view(vehicle(id="x", name="Bus"), vehicle(id="y", name="Buggy"))) == {"x": "B1", "y": "B2"}
    assert chip_marks(view(vehicle(id="x", name="Car"), vehicle(id="y", name="Truck"))) == {"x": "C", "y": "T"}
    image = np.array(render(view(*vs), blink_on=True), dtype=bool)
    chips = [image[MIDDLE_TOP + k * 10:MIDDLE_TOP + k * 10 + 9, CHIPS_X:] for k in range(3)]  # Bu, B2, Bi: gear 2
    assert len({c.tobytes() for c in chips}) == 3, "two chips are drawn alike"


def test_a_chip_keeps_its_mark_whichever_vehicle_is_drawn_big() -> None:
    from device.dashboards.gaslands import chip_marks

    idle = dict(active=False, activates_this_phase=False)
    one = view(vehicle(id="b1", name="Buggy"), vehicle(id="b2", name="Buggy 2", **idle))
    other = view(vehicle(id="b1", name="Buggy", **idle), vehicle(id="b2", name="Buggy 2"))
    assert chip_marks(one) == chip_marks(other) == {"b1": "Bu", "b2": "B2"}


def test_the_winner_the_table_names_is_on_every_screen_at_game_over() -> None:
    """`end_game` with a winner left every screen at "GAME OVER": nobody at the table saw who won."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "games"))
    from gaslands_helpers import Table

    from games.gaslands.rules import views

    t = Table(("Alice", ["car"]), ("Bob", ["buggy"]), ("Dmitri", ["bike"]), pole="Alice")
    t.ok("end_game", winner="Dmitri")
    shown = {v.player: v for v in views(t.state)}
    assert {p: v.winner for p, v in shown.items()} == {"Alice": "Dmitri", "Bob": "Dmitri", "Dmitri": "Dmitri"}
    mine, theirs = render(shown["Dmitri"], blink_on=True), render(shown["Alice"], blink_on=True)
    header = (0, 0, 128, 12)
    assert np.array(mine.crop(header), dtype=bool).sum() > 0.6 * 128 * 12  # lit: YOU WIN!
    assert np.array(theirs.crop(header), dtype=bool).sum() < 0.4 * 128 * 12
    # the big vehicle's name, which the header held, is in the footer ("Dmitri wins" over a big "1 /6" said nothing
    # of whose numbers they were: a walkthrough of five players); on its owner's screen, its type alone
    from device.dashboards.gaslands import featured, footer_text

    alice = shown["Alice"]
    assert featured(alice).name == "Alice's Car" and footer_text(alice, featured(alice)) == "Car · GAME OVER"
    assert footer_text(alice) == "GAME OVER"
    t2 = Table(("Alice", ["car"]), ("Bob", ["buggy"]), pole="Alice")
    t2.ok("end_game")  # no winner named: the screens say GAME OVER only
    assert all(v.winner is None for v in views(t2.state))


@pytest.mark.parametrize("hazards", [7, 8, 9, 12, 16, 20])
def test_tokens_past_the_wipeout_line_stay_left_of_the_chips(hazards: int) -> None:
    """Seen with two vehicles and 7 tokens: the "+1" past the wipeout line ran into the chips and read "+"."""
    from device.dashboards.gaslands import CHIPS_X, MIDDLE_TOP

    idle = dict(active=False, activates_this_phase=False)

    def drawn(n: int) -> np.ndarray:
        image = render(view(vehicle(hazards=n), vehicle(id="b", name="Alice's Bike", gear=2, **idle)), blink_on=True)
        return np.array(image, dtype=bool)[MIDDLE_TOP:MIDDLE_TOP + 11]

    full, at_the_line = drawn(hazards), drawn(6)
    assert (full[:, :CHIPS_X - 2] & ~at_the_line[:, :CHIPS_X - 2]).sum() >= 6, "nothing drawn past the wipeout line"
    assert np.array_equal(full[:, CHIPS_X - 2:], at_the_line[:, CHIPS_X - 2:]), "drawn over the chips"


def test_the_others_screens_say_whose_step_it_is() -> None:
    """Bob's footer read "1.1 pick template" while Charlotte picked: it did not say who the table waited for
    (Thunder Road's says "> Ana")."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "games"))
    from gaslands_helpers import Table

    from device.dashboards.gaslands import footer_text
    from games.gaslands.rules import views

    t = Table(("Alice", ["car"]), ("Bob", ["buggy"]), ("Charlotte", ["bike"]), pole="Charlotte")
    shown = {v.player: footer_text(v) for v in views(t.state)}
    assert shown["Charlotte"] == "1.1 pick template"  # her own: the lit header says it is hers
    assert shown["Bob"] == "Charlo… · 1.1 pick template" and shown["Alice"] == shown["Bob"]
    # a step too long beside the name keeps its first words, not its number alone ("Alice · 3" for a wipeout)
    from dataclasses import replace

    wipeout = replace(next(v for v in views(t.state) if v.player == "Bob"), step="3 wipeout: flip check")
    # its cut marked ("Ben · 3 WIPEOUT flip" read as the flip made: a walkthrough), the name cut first
    assert footer_text(wipeout) == "Charlot… · 3 WIPEOUT flip…"
    assert footer_text(replace(wipeout, acting="Ben")) == "Ben · 3 WIPEOUT flip…"
    # a long name is cut before the step is: "Bartholomew · pick a", "Bartholomew · 1.1 left" (a screens audit)
    long = replace(wipeout, acting="Bartholomew")
    assert footer_text(replace(long, step="choose vehicle")) == "Bartholo… · pick a vehicle"
    assert footer_text(replace(long, step="1.1 touch-move: left player picks")).endswith("… · 1.1 left player picks")
    assert footer_text(long) == "Barthol… · 3 WIPEOUT flip…"  # not whole beside even "Bart…": its first words


def test_done_beside_a_fire_is_not_cut_with_two_vehicles() -> None:
    """Seen: "ON FIRE d…" with two vehicles: "done" (activated this gear phase) lost to the fire box."""
    import device.dashboards.gaslands as gl
    from device.dashboards.common import text_width

    drawn: dict[str, tuple[int, int, int, int]] = {}
    original = gl.fit_text

    def spy(draw, box, text, **kw):
        drawn[text] = box
        return original(draw, box, text, **kw)

    idle = dict(active=False, activates_this_phase=False)
    v = view(vehicle(on_fire=True, activated_this_phase=True, **idle), vehicle(id="b", name="Alice's Bike", **idle))
    gl.fit_text = spy
    try:
        render(v, blink_on=True)
    finally:
        gl.fit_text = original
    assert "FIRE" in drawn and "done" in drawn
    x0, _, x1, _ = drawn["done"]
    assert text_width("done", 10) <= x1 - x0, "done is cut"


def test_the_games_news_is_a_title_over_its_details_each_piece_whole(monkeypatch) -> None:
    """A collision's news in capitals was one title cut on the banner's third line ("RUST BUCKET CRASHED INTO THE
    BRICK (HEAD-ON · 2 SMAS…"), and a long one's second piece ("Cream Truck, +1 hazard each") was drawn as a
    title of its own. News is "what: details": the title on every piece, the details two lines at a time."""
    import device.dashboards.gaslands as gl

    text = "Collision, evaded: Charlotte's Performance Car and Dmitri's Ice Cream Truck, +1 hazard each"
    pieces = gl.news_pieces(text)
    assert len(pieces) == 2 and all(p.startswith("Collision, evaded: ") for p in pieces)
    assert [p.removeprefix("Collision, evaded: ") for p in pieces] == [
        "Charlotte's Performance Car…", "…and Dmitri's Ice Cream Truck, +1 hazard each"]  # "…": it goes on; not
    # cut after "and", which leads into the next piece (common.LEADING_WORDS)
    assert gl.news_pieces("Round 2 begins: pole Bob") == ["Round 2 begins: pole Bob"]
    drawn: list[tuple[str, str]] = []
    monkeypatch.setattr(gl, "banner", lambda draw, box, title, text, **kw: drawn.append((title, text)))
    for piece in pieces:
        render(view(alerts=(Alert("news", piece, None),)), blink_on=True)
    assert drawn == [("COLLISION, EVADED", pieces[0].removeprefix("Collision, evaded: ")),
                     ("COLLISION, EVADED", pieces[1].removeprefix("Collision, evaded: "))]


@pytest.mark.parametrize("text", [
    "Head-on collision: Alice's Buggy and Charlotte's Car, +2 hazard each",
    "Collision, evaded: Charlotte's Performance Car and Dmitri's Ice Cream Truck, +1 hazard each",
    "Flipped: Charlotte's Performance Car, rolled 2 (gear 3): 2 hits · WRECKED",
    "Dmitri's Ice Cream Truck: no hit",
    "Charlotte's Performance Car: 3 hits, 1 evaded: 2 taken · hull 4",
])
def test_every_piece_of_a_news_is_drawn_whole(text: str) -> None:
    """A review: news lines were wrapped 1 px wider than the banner draws them ("Charlotte's Car, +2 hazard…",
    "each" alone on a piece), and an attack's head, a long car name, was cut as a one-line title ("DMITRI'S ICE
    CR…"). Every piece, drawn by the real banner, is whole."""
    import device.dashboards.common as common
    import device.dashboards.gaslands as gl

    drawn: list[tuple[str, bool]] = []
    real = common.fit_text

    def spy(draw, box, t, **kw):  # (text, drawn whole?)
        size = real(draw, box, t, **kw)
        drawn.append((t, common.text_width(t, size) <= box[2] - box[0]))
        return size

    try:
        common.fit_text = spy
        for piece in gl.news_pieces(text):
            drawn.clear()
            render(view(alerts=(Alert("news", piece, None),)), blink_on=True)
            banner_texts = [(t, whole) for t, whole in drawn if t.upper() == t or t in piece]
            assert banner_texts and all(whole for _, whole in banner_texts), (piece, drawn)
    finally:
        common.fit_text = real


@pytest.mark.parametrize("told", [Alert("news", "Rust Bucket: 2 hits · hull 4", None),
                                  Alert("undone", "UNDONE: Bob: 2 Attack step › Attack… › Rust Bucket", None)])
def test_what_a_decision_settled_comes_before_a_standing_alert(told: Alert, monkeypatch) -> None:
    """An audit, five players: with WIPEOUT! standing on Dmitri's screen (his car's 6th hazard token, until step 3),
    Bob's attack on that car was "NOTE …: 2 hits · hull 4" on every screen but his, where it waited as "+1"; an
    UNDONE the same. The news and the undo are shown first while they are told; the standing alert comes back."""
    import device.dashboards.gaslands as gl

    drawn: list[tuple[str, str, str]] = []
    monkeypatch.setattr(gl, "banner", lambda _d, _box, title, text, **kw: drawn.append((title, text, kw["more"])))
    render(view(vehicle(hazards=6), your_activation=False, alerts=(WIPEOUT, told)), blink_on=True)
    render(view(vehicle(hazards=6), your_activation=False, alerts=(WIPEOUT,)), blink_on=True)
    assert drawn[0][0] != "WIPEOUT!" and drawn[0][2] == "+1"
    assert told.text.endswith(drawn[0][1])
    assert drawn[1][:2] == ("WIPEOUT!", "Rust Bucket: 7 hazards, loses control in step 3")


def test_a_roll_asked_of_a_player_is_titled_by_whose_it_is(monkeypatch) -> None:
    """A screens walkthrough: "SILVER BULLET: 3" over "HITS: ROLL 1 EVADE DIE", all in capitals, read as a reading.
    A roll asked of this player is titled by whose roll it is, what to roll under it, as the game's news is."""
    import device.dashboards.gaslands as gl

    drawn: list[tuple[str, str]] = []
    monkeypatch.setattr(gl, "banner", lambda _d, _box, title, text, **kw: drawn.append((title, text)))
    roll = Alert("roll", "Silver Bullet: 3 hits: roll 1 evade die", "Alice")
    render(view(vehicle(), your_activation=False, alerts=(roll,)), blink_on=True)
    assert drawn == [("SILVER BULLET", "3 hits: roll 1 evade die")]


def test_the_turners_you_turn_comes_before_older_news(monkeypatch) -> None:
    """"the player on the left turns it to face any direction" [V]. An audit, five players: while Cleo rolled
    the flip check, Dan's screen showed the attack's news for 10 s with "+1" behind it, and LOST CONTROL, Dan
    turns it, only after; entered sooner, the flip die ended it unseen. A thing this player must do now comes
    first, as a roll asked of them does; the news waits behind it."""
    import device.dashboards.gaslands as gl

    drawn: list[tuple[str, str, str]] = []
    monkeypatch.setattr(gl, "banner", lambda _d, _box, title, text, **kw: drawn.append((title, text, kw["more"])))
    you_turn = Alert("you_turn", "YOU TURN Rust Bucket to face any direction", "Alice")
    news = Alert("news", "Attack: Rust Bucket on Leviathan: 7 hits", None)
    lost = Alert("lost_control", "LOST CONTROL: Rust Bucket, Alice turns it")
    render(view(vehicle(), your_activation=False, alerts=(news, lost, you_turn)), blink_on=True)
    render(view(vehicle(), your_activation=False, alerts=(news, lost)), blink_on=True)
    assert drawn[0] == ("YOU TURN", "Rust Bucket to face any direction", "+2")
    assert drawn[1][0] == "ATTACK"  # on the others' screens the news still comes before LOST CONTROL


def test_a_second_vehicles_hazards_and_hull_are_on_its_chip() -> None:
    """An audit, five players: Alice's other car (flipped, hull 4/6) was a chip "R 1", its hazard tokens and hull
    on no screen and no button. With one or two other vehicles each chip shows them (dots, a bar) under its gear;
    with more, the chips stay one line (initial and gear)."""
    from device.dashboards.gaslands import CHIPS_X

    def chip_column(*others: VehicleView) -> bytes:
        image = render(view(vehicle(), *others), blink_on=False)
        return image.crop((CHIPS_X, 0, 128, 54)).tobytes()

    car = vehicle(id="car", name="Car", active=False, activates_this_phase=False)
    assert chip_column(replace(car, hazards=2)) != chip_column(replace(car, hazards=4))
    assert chip_column(replace(car, hull=6)) != chip_column(replace(car, hull=3))
    more = [vehicle(id=f"v{i}", name=f"Van {i}", active=False, activates_this_phase=False) for i in range(3)]
    assert chip_column(replace(car, hazards=2), *more) == chip_column(replace(car, hazards=4), *more)
