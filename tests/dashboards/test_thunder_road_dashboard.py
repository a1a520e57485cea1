"""The Thunder Road dashboard: golden images for several game states (pixel for pixel; regenerate with
PITBOARD_REGOLD=1 and look at them), plus behaviour that does not need a picture.

The states are reached by playing commands through the real rules, so a golden image shows what a table
would actually see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from golden_images import check_golden, lit
import numpy as np
from PIL import Image

from device.dashboards.thunder_road import render
from games.core import Alert, Command, Illegal, Match
from games.thunder_road import GAME
from games.thunder_road.demo import demo_script
from games.thunder_road.state import PlayerView

GOLDEN = Path(__file__).parent / "golden" / "thunder_road"


def _table(players: list[Any], *commands: dict[str, Any], **extra: Any) -> Match[Any]:
    rows = [p if isinstance(p, dict) else {"name": p} for p in players]
    match = Match.begin(GAME, {"players": rows, "board": {"tiles": 5, "on_board": 3}, **extra})
    for c in commands:
        match.apply(Command.from_json(c))
    return match


def _view(match: Match[Any], name: str) -> PlayerView:
    return next(v for v in match.views() if v.player == name)


ROLL = {"type": "roll", "dice": {"Ana": [1, 3, 4, 6], "Ben": [2, 2, 5, 6]}}


def your_turn() -> PlayerView:
    return _view(_table(["Ana", "Ben"], ROLL), "Ana")


def waiting_with_damage_moves_and_command() -> PlayerView:
    m = _table(
        ["Ana", "Ben"], ROLL,
        {"type": "command", "name": "drift", "die": 4},
        {"type": "assign", "vehicle": "small", "die": 3},
        {"type": "move"},
        {"type": "damage", "vehicle": "Ana/large"},
    )
    return _view(m, "Ana")


def moving_with_drift() -> PlayerView:
    """Ana's small car moves 3 with Drift: her footer says how far and how, as the menu's status line did."""
    m = _table(["Ana", "Ben"], ROLL, {"type": "command", "name": "drift", "die": 4},
               {"type": "assign", "vehicle": "small", "die": 3})
    return _view(m, "Ana")


def coasting_and_on_fire() -> PlayerView:
    m = _table(
        [{"name": "Ana", "vehicles": ["small", "medium"]}, "Ben"],
        ROLL,
        {"type": "ignite", "vehicle": "Ana/medium"},
        {"type": "assign", "vehicle": "small", "die": 1}, {"type": "move"},
        {"type": "assign", "vehicle": "small", "die": 2}, {"type": "move"},
        {"type": "assign", "vehicle": "medium", "die": 3}, {"type": "fire", "face": "fire1"},
        {"type": "fire_ruling", "effect": "nothing"}, {"type": "move"},
        {"type": "assign", "vehicle": "medium", "die": 2}, {"type": "move"},
        {"type": "coast", "vehicle": "small", "die": 4}, {"type": "move"},
    )
    return _view(m, "Ana")


def fire_roll() -> PlayerView:
    m = _table(["Ana", "Ben"], {"type": "damage", "vehicle": "Ana/small", "on_fire": True}, ROLL,
               {"type": "assign", "vehicle": "small", "die": 4})
    return _view(m, "Ana")


def refused_assignment() -> PlayerView:
    """A refused assign records nothing and leaves no alert in the game's view: the device loop's refusal
    notice (an app alert added to the view) is what flashes the reason."""
    m = _table(["Ana", "Ben"], ROLL, {"type": "assign", "vehicle": "small", "die": 5})
    return _view(m, "Ana")


def with_refusal_notice(view: PlayerView) -> PlayerView:
    """The view as the device loop hands it over after a refusal: its notice added as an alert."""
    return replace(view, alerts=view.alerts + (Alert("refused", "you have no unused 5", view.player),))


def out_of_service() -> PlayerView:
    """Its owner's turn with no other vehicle to move: the banner stands then (on other players' turns, and on
    one of theirs with another vehicle to move, the column's OUT says it)."""
    m = _table([{"name": "Ana", "vehicles": ["medium"]}, "Ben"], {"type": "damage", "vehicle": "Ana/medium"},
               {"type": "damage", "vehicle": "Ana/medium"}, ROLL)
    return _view(m, "Ana")


def big_rig_and_bikes() -> PlayerView:
    m = _table(
        ["Ana", {"name": "Ben", "vehicles": ["big_rig", "bike", "bike", "bike", "bike", "bike"]}],
        {"type": "damage", "vehicle": "Ben/big_rig"}, {"type": "damage", "vehicle": "Ben/bike2"},
        {"type": "ignite", "vehicle": "Ben/bike3"}, ROLL, {"type": "assign", "vehicle": "small", "die": 1},
        {"type": "move", "spaces": 1, "occupied": [{"at": 1, "vehicle": "Ben/bike1"}]},
    )
    return _view(m, "Ben")


def big_rig_traction_drive() -> PlayerView:
    m = _table([{"name": "Ana", "vehicles": ["small", "big_rig"]}, "Ben"], ROLL,
               {"type": "command", "name": "traction_drive", "die": 3})
    return _view(m, "Ana")


def eliminated_and_winner() -> PlayerView:
    m = _table(
        ["Ana", {"name": "Ben", "vehicles": ["small", "large"]}], ROLL,
        {"type": "assign", "vehicle": "large", "die": 6},
        {"type": "scroll", "eliminated": ["Ben/small"]}, {"type": "move"},
        {"type": "assign", "vehicle": "large", "die": 6},
        {"type": "scroll", "eliminated": ["Ana/small", "Ana/medium"]},
        {"type": "finish"},
    )
    return _view(m, "Ben")


def demo_end() -> PlayerView:
    setup, commands = demo_script()
    import tomllib

    m = Match.begin(GAME, tomllib.loads(setup))
    for c in commands:
        m.apply(Command.from_json(c))
    return _view(m, "Ana")


STATES: dict[str, tuple[Callable[[], PlayerView], bool]] = {
    "your_turn": (your_turn, True),
    "waiting_damage_command": (waiting_with_damage_moves_and_command, True),
    "moving_with_drift": (moving_with_drift, True),
    "coasting_on_fire": (coasting_and_on_fire, True),
    "fire_roll_blink_on": (fire_roll, True),
    "fire_roll_blink_off": (fire_roll, False),
    "out_of_service_blink_on": (out_of_service, True),
    "out_of_service_blink_off": (out_of_service, False),
    "big_rig_and_bikes": (big_rig_and_bikes, True),
    "big_rig_traction_drive": (big_rig_traction_drive, True),
    "eliminated_and_winner": (eliminated_and_winner, True),
    "demo_end": (demo_end, True),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_golden(name: str, tmp_path: Path) -> None:
    build, blink = STATES[name]
    check_golden(render(build(), blink_on=blink), GOLDEN / f"{name}.png", tmp_path)


def _differ(a: Image.Image, b: Image.Image) -> bool:
    return not np.array_equal(lit(a), lit(b))


def test_every_golden_file_belongs_to_a_state() -> None:
    stray = {p.stem for p in GOLDEN.glob("*.png")} - set(STATES)
    assert not stray, f"golden images with no state: {sorted(stray)}"


def test_views_say_what_the_screen_needs() -> None:
    v = waiting_with_damage_moves_and_command()
    small, medium, large = v.vehicles
    assert small.moved and not medium.moved and large.damage == 1 and large.damage_slots == 2
    assert v.command == "Drift" and v.turn_player == "Ben" and not v.your_turn
    assert coasting_and_on_fire().vehicles[0].coasts == 1
    assert coasting_and_on_fire().vehicles[1].on_fire
    assert [a.kind for a in fire_roll().alerts] == ["fire_roll"]
    assert refused_assignment().alerts == ()
    assert [a.kind for a in out_of_service().alerts] == ["out_of_service"]


def test_a_big_rigs_traction_drive_is_shown_on_its_column_while_it_is_active() -> None:
    """"Big Rig: does not use the Road die unless its Traction Drive command (centre section) is active this
    turn."  Its owner's footer said "no cmd" (the command board's, still free) and nothing said the rig's
    Traction Drive was on: the Road die's menu offered it with no word why."""
    view = big_rig_traction_drive()
    small, rig = view.vehicles
    assert rig.sections == ("Traction Drive",) and small.sections == () and view.command is None
    image = lit(render(view, blink_on=True))
    before = lit(render(your_turn_with_rig(), blink_on=True))
    tag = (slice(42, 53), slice(64, 128))  # the rig's column, under its moves
    assert image[tag].any() and not before[tag].any()
    assert (image[:, :64] == before[:, :64]).all(), "the small car's column is as it was"
    # on Ben's turn it is no longer active (the rule's "this turn")
    m = _table([{"name": "Ana", "vehicles": ["small", "big_rig"]}, "Ben"], ROLL,
               {"type": "command", "name": "traction_drive", "die": 3},
               {"type": "assign", "vehicle": "big_rig", "die": 4}, {"type": "move"})
    assert all(v.sections == () for view in m.views() for v in view.vehicles)


def test_traction_drive_in_a_narrow_column_is_its_initials_not_a_cut_word() -> None:
    """A Big Rig with bikes (four columns of 32 px): "Traction" did not fit and the tag came out "Tr…"."""
    from PIL import ImageDraw

    from device.dashboards.common import fit_text
    from device.dashboards.thunder_road import MIDDLE_BOTTOM

    m = _table([{"name": "Ana", "vehicles": ["big_rig", "bike", "bike", "bike"]}, "Ben"], ROLL,
               {"type": "command", "name": "traction_drive", "die": 3})
    view = _view(m, "Ana")
    assert view.vehicles[0].sections == ("Traction Drive",)
    drawn = lit(render(view, blink_on=True))
    tag = (slice(MIDDLE_BOTTOM - 9, MIDDLE_BOTTOM), slice(1, 30))
    want = Image.new("1", (128, 64))
    fit_text(ImageDraw.Draw(want), (1, MIDDLE_BOTTOM - 9, 30, MIDDLE_BOTTOM - 1), "TD", sizes=(10, 9, 8), align="center")
    assert (drawn[tag] == lit(want)[tag]).all(), "the rig's tag reads TD"


def test_a_player_who_has_rolled_reads_who_is_still_to_roll_not_roll_dice() -> None:
    """All players roll their movement dice before the turns: Ana, who had rolled, still read "roll dice" in
    her header while the table waited for Ben."""
    m = _table(["Ana", "Ben", "Cy"], {"type": "roll", "player": "Ana", "dice": [1, 3, 4, 6]})
    assert _view(m, "Ana").to_roll == ("Ben", "Cy")

    def header(view: PlayerView) -> np.ndarray:
        return lit(render(view, blink_on=True))[:12]

    ana, ben = _view(m, "Ana"), _view(m, "Ben")
    assert not (header(ana)[:, 60:] == header(replace(ana, to_roll=ana.to_roll + ("Ana",)))[:, 60:]).all()
    assert (header(ben) == header(replace(ben, to_roll=()))).all(), "Ben has still to roll: 'roll dice'"
    m.apply(Command.from_json({"type": "roll", "player": "Ben", "dice": [2, 2, 5, 6]}))
    assert _view(m, "Ana").to_roll == ("Cy",)
    m.apply(Command.from_json({"type": "roll", "player": "Cy", "dice": [1, 1, 2, 2]}))
    assert all(v.to_roll == () for v in m.views()) and _view(m, "Ana").turn_player is not None


def your_turn_with_rig() -> PlayerView:
    return _view(_table([{"name": "Ana", "vehicles": ["small", "big_rig"]}, "Ben"], ROLL), "Ana")


def test_alerts_flash_and_quiet_screens_do_not() -> None:
    for name, view in (("fire_roll", fire_roll()), ("out_of_service", out_of_service()),
                       ("refusal notice", with_refusal_notice(refused_assignment()))):
        on, off = render(view, blink_on=True), render(view, blink_on=False)
        assert _differ(on, off), name
    calm = your_turn()
    assert not _differ(render(calm, blink_on=True), render(calm, blink_on=False))


def test_your_turn_lights_the_header() -> None:
    lit = render(your_turn(), blink_on=True)
    waiting = render(_view(_table(["Ana", "Ben"], ROLL), "Ben"), blink_on=True)
    lit_header = sum(lit.getpixel((x, 1)) > 0 for x in range(128))
    dark_header = sum(waiting.getpixel((x, 1)) > 0 for x in range(128))
    assert lit_header > 100 and dark_header < 40


def test_the_device_registry_finds_the_dashboard() -> None:
    from device.dashboards import render_view

    image = render_view("thunder_road", your_turn(), blink_on=True)
    assert image.size == (128, 64)


def test_the_apps_notices_are_titled_in_words_not_by_their_ids(monkeypatch) -> None:
    """Thunder Road titled an app notice by its id: "CAMERA_DOWN" over "CAMERA OFF: enter dice with the
    buttons", "HAZARD_MISMATCH", "SCREEN".  Every kind the app posts has a title in words, said once."""
    import re

    import device.dashboards.thunder_road as tr
    from device.dashboards.common import NOTICE_TITLES

    source = "\n".join(p.read_text() for p in Path("device").rglob("*.py"))
    posted = set(re.findall(r'notify\(\s*"([a-z_]+)"', source))
    assert posted and posted <= set(NOTICE_TITLES), posted - set(NOTICE_TITLES)
    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, text, **kw: (drawn.append(text), real(draw, box, text, **kw))[1])
    view = replace(your_turn(), alerts=(Alert("camera_down", "CAMERA OFF: enter dice with the buttons", None),))
    render(view, blink_on=True)
    assert "CAMERA OFF" in drawn and "CAMERA_DOWN" not in drawn
    assert any(t.startswith("enter dice") for t in drawn) and not any(t.startswith("CAMERA OFF:") for t in drawn)


def test_an_undo_shows_over_a_standing_out_of_service_and_a_waiting_alert_is_counted() -> None:
    """OUT OF SERVICE stands as long as a car is out of service: under it its owner never saw "UNDONE: …" meant
    for every screen (a walkthrough: Ben's car out of service, the scroll undone), and nothing said another alert
    waited behind the one shown."""
    view = out_of_service()
    undone = replace(view, alerts=view.alerts + (Alert("undone", "UNDONE: Ana: Move › Road scrolls… › Nobody off", None),))
    shown = render(undone, blink_on=True)
    assert shown.tobytes() != render(view, blink_on=True).tobytes()
    text = "UNDONE: Ana: Move › Road scrolls… › Nobody off"
    # the title drawn is UNDONE's: the same as beside any other waiting alert (a refusal, ranked after it)
    beside_other = replace(view, alerts=(Alert("undone", text, None), Alert("refused", "no", "Ben")))
    title_rows = (0, 14, 127, 26)
    assert not _differ(shown.crop(title_rows), render(beside_other, blink_on=True).crop(title_rows))
    alone = replace(view, alerts=(Alert("undone", text, None),))
    corner = (110, 14, 127, 22)
    assert _differ(shown.crop(corner), render(alone, blink_on=True).crop(corner))  # "+1": one more waits


@pytest.mark.parametrize("kind, text", [("info", "RESUMED: Ana's turn"), ("news", "Round 3: Ben first"),
                                        ("recorded", "recorded: Ana: Move › Die 2"),
                                        ("camera_down", "CAMERA OFF: enter dice with the buttons")])
def test_every_app_notice_shows_over_a_standing_out_of_service(kind: str, text: str, monkeypatch) -> None:
    """Only the undo and NOT RECORDED came before OUT OF SERVICE: a resumed game's RESUMED, the round's news and
    "recorded: …" (each for a few seconds) were never seen by a player whose car stood out of service, turns on
    end. The column's "OUT" still says it; the banner counts it ("+1")."""
    import device.dashboards.thunder_road as tr

    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, t, **kw: (drawn.append(t), real(draw, box, t, **kw))[1])
    view = out_of_service()
    render(replace(view, alerts=view.alerts + (Alert(kind, text, None),)), blink_on=True)
    assert "OUT OF SERVICE" not in drawn
    words = " ".join(drawn)
    assert all(w.strip(":") in words for w in text.split()[1:3]), (text, drawn)


def test_a_bumped_vehicles_owner_reads_that_the_bump_is_theirs(monkeypatch) -> None:
    """"When two vehicles share a space, roll the bump die and the direction die: they say which vehicle moves and
    where" (rules/thunder-road.md, Bumps): both owners wait on those dice. Every screen said "bumps 1"; the owner of the vehicle that was there did not read that one of
    the two was theirs (a walkthrough)."""
    import device.dashboards.thunder_road as tr

    m = _table(["Ana", "Ben"], ROLL, {"type": "assign", "vehicle": "small", "die": 1},
               {"type": "move", "spaces": 1, "occupied": [{"at": 1, "vehicle": "Ben/medium"}]})
    ben, ana = _view(m, "Ben"), _view(m, "Ana")
    assert ben.bumps == 1 and [v.short for v in ben.vehicles if v.bumped] == ["M"]
    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, t, **kw: (drawn.append(t), real(draw, box, t, **kw))[1])
    render(ben, blink_on=False)
    assert "bump M" in drawn
    drawn.clear()
    render(ana, blink_on=False)
    assert "bump S" in drawn
    m.apply(Command.from_json({"type": "undo"}))
    assert not any(v.bumped for v in _view(m, "Ben").vehicles)


def test_a_player_out_of_the_race_shows_no_dice(monkeypatch) -> None:
    """A walkthrough: Dee's last vehicle burnt out, her header said "out of race" and her footer still "1 2 5",
    dice she can no longer use."""
    import device.dashboards.thunder_road as tr

    view = replace(your_turn(), standing=False, your_turn=False, turn_player="Ben")
    assert view.dice
    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, t, **kw: (drawn.append(t), real(draw, box, t, **kw))[1])
    render(view, blink_on=False)
    assert "out of race" in drawn and "-" in drawn and " ".join(str(d) for d in view.dice) not in drawn


@pytest.mark.parametrize("name", ["Benedikt", "Dominique", "Maximilian"])
def test_the_lit_header_shows_the_players_whole_name_beside_your_turn(monkeypatch, name: str) -> None:
    """An audit: "Benedi… YOUR TURN R1": the lit header cut its own player's name in a 40 px box with room
    beside YOUR TURN. The name is whole; the round gives way first, as in the unlit header."""
    import device.dashboards.thunder_road as tr
    from device.dashboards.common import text_width

    drawn: list[tuple[str, bool]] = []
    real = tr.fit_text

    def spy(draw, box, t, **kw):
        size = real(draw, box, t, **kw)
        drawn.append((t, text_width(t, size) <= box[2] - box[0]))  # as fit_text measures: whole, not cut
        return size

    monkeypatch.setattr(tr, "fit_text", spy)
    render(replace(your_turn(), player=name), blink_on=False)
    assert (name, True) in drawn and ("YOUR TURN", True) in drawn, drawn


def test_a_player_who_passed_reads_passed_not_the_dice_left(monkeypatch) -> None:
    """An audit: Dee passed with a 6 left ("no such vehicle: you may instead coast"; she chose not to) and is out
    of the round; her footer still read "6", as Ben's did with a turn to come."""
    import device.dashboards.thunder_road as tr

    view = replace(your_turn(), your_turn=False, turn_player="Ben", passed=True)
    assert view.dice and view.standing
    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, t, **kw: (drawn.append(t), real(draw, box, t, **kw))[1])
    render(view, blink_on=False)
    assert "passed" in drawn and " ".join(str(d) for d in view.dice) not in drawn


def test_a_car_on_fire_and_out_of_service_shows_both() -> None:
    """An audit (4 players): a car both ON FIRE! and out of service showed FIRE alone in its column; OUT, a car
    that can no longer act, was on no screen once the news had gone (the banner only on its owner's turn)."""
    from PIL import ImageDraw

    from device.dashboards.common import OFF, ON, fit_text
    from device.dashboards.thunder_road import MIDDLE_BOTTOM

    view = _view(_table([{"name": "Ana", "vehicles": ["small", "medium"]}, "Ben"], ROLL), "Ana")
    small = view.vehicles[0]
    both = replace(view, vehicles=(replace(small, on_fire=True, out_of_service=True), *view.vehicles[1:]))
    fire = replace(view, vehicles=(replace(small, on_fire=True), *view.vehicles[1:]))
    x0, x1 = 1, 62  # the first of two 64 px columns
    want = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(want)
    draw.rectangle((x0, MIDDLE_BOTTOM - 10, x1, MIDDLE_BOTTOM), fill=ON)
    fit_text(draw, (x0 + 1, MIDDLE_BOTTOM - 9, x1 - 1, MIDDLE_BOTTOM - 1), "FIRE+OUT", sizes=(10, 9, 8), fill=OFF,
             align="center")
    tag = (slice(MIDDLE_BOTTOM - 10, MIDDLE_BOTTOM + 1), slice(x0, x1 + 1))
    drawn = lit(render(both, blink_on=True))
    assert (drawn[tag] == lit(want)[tag]).all(), "the tag reads FIRE+OUT (not the Fire die's 'Fire out')"
    assert not (drawn[tag] == lit(render(fire, blink_on=True))[tag]).all()


def test_the_one_player_still_to_roll_is_named_where_the_header_has_room(monkeypatch) -> None:
    """An audit: Ana, who had rolled, read "1 to roll" while the table waited for Ben: "Ben to roll" is 49 px at
    9 px and the usual box 46, though the header had room (the legend promises "Ben to roll").  A name too long
    for the whole header beside the screen's own name has that name cut instead ("Maximilian  1 to roll" said
    neither whom the table waited for nor why: a screens audit); only when even a cut name leaves no room is the
    one awaited counted, never cut ("Maximilian to…" read as a name)."""
    import device.dashboards.thunder_road as tr

    drawn: list[str] = []
    real = tr.fit_text
    monkeypatch.setattr(tr, "fit_text", lambda draw, box, text, **kw: (drawn.append(text), real(draw, box, text, **kw))[1])
    for names, said in ((("Ana", "Ben", "Cy"), "Ben to roll"), (("Dominique", "Maximilian", "Cy"), "Maximilian to roll"),
                        (("Bartholomew", "Maximilianus Ferdinand", "Cy"), "1  to roll")):
        m = _table(list(names), {"type": "roll", "player": names[0], "dice": [1, 3, 4, 6]},
                   {"type": "roll", "player": names[2], "dice": [1, 3, 4, 6]})
        drawn.clear()
        render(_view(m, names[0]), blink_on=True)
        assert said in drawn, drawn


def test_a_big_rigs_damage_tokens_are_counted_past_the_squares_that_fit() -> None:
    """An audit: a Big Rig's slots are not known (the rules file does not give them), and its 2, 3 and 4 damage
    tokens drew the same two squares and "?" in a narrow column. Past the squares that fit, the count is
    written."""
    view = big_rig_and_bikes()
    rig = next(v for v in view.vehicles if v.id == "Ben/big_rig")
    assert rig.damage_slots is None

    def drawn(damage: int) -> bytes:
        vehicles = tuple(replace(v, damage=damage) if v.id == rig.id else v for v in view.vehicles)
        return render(replace(view, vehicles=vehicles), blink_on=False).tobytes()

    pictures = [drawn(n) for n in range(1, 6)]
    assert len(set(pictures)) == 5


def test_the_mover_s_footer_says_how_far_the_vehicle_moves() -> None:
    """"A vehicle moves as many spaces as the die assigned to it" and Drift changes how: the menu's status line
    said "Small car · 3 spaces · Drift", but its page goes after 20 s idle, and a player counting spaces looked
    up to YOUR TURN and a lit S.  The mover's footer says it while the vehicle moves (the other players' and,
    once moved, the mover's own show the command and the dice again)."""
    moving = moving_with_drift()
    assert moving.allowance == "3 spaces · Drift" and moving.step == "move the vehicle"
    others = _view(_table(["Ana", "Ben"], ROLL, {"type": "command", "name": "drift", "die": 4},
                          {"type": "assign", "vehicle": "small", "die": 3}), "Ben")
    assert others.allowance == ""
    assert waiting_with_damage_moves_and_command().allowance == ""  # moved: the turn went on
    footer = (slice(54, 64), slice(0, 128))
    drawn = lit(render(moving, blink_on=True))[footer]
    assert not np.array_equal(drawn, lit(render(replace(moving, allowance=""), blink_on=True))[footer])


def test_a_long_allowance_keeps_its_drift_in_the_footer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Road die and a Drift at once, "3+Road die spaces · Drift", did not fit beside the dice: the cut lost
    "Drift", the one word that changes how the car moves (a review).  The footer drops "spaces" instead."""
    import device.dashboards.thunder_road as tr

    drawn: list[str] = []
    fit = tr.fit_text

    def spy(draw: Any, box: tuple[int, int, int, int], text: str, **kw: Any) -> int:
        drawn.append(text)
        return fit(draw, box, text, **kw)

    monkeypatch.setattr(tr, "fit_text", spy)
    view = replace(moving_with_drift(), allowance="3+Road die 2 spaces · Drift", dice=(1, 3, 6))
    render(view, blink_on=True)
    assert "3+Road die 2 · Drift" in drawn
    drawn.clear()
    render(replace(view, allowance="3 spaces · Drift"), blink_on=True)
    assert "3 spaces · Drift" in drawn  # the whole where it fits


@pytest.mark.parametrize("fleet", [6, 7, 8, 9])
def test_coasts_stay_in_their_column_in_a_large_fleet(fleet: int) -> None:
    """A setup takes up to 9 vehicles a player (three cars, the Big Rig, the Final Five); from seven on, the
    second coast ring ran into the next column's tick, and at nine the letters were cut to nothing (a screens
    review).  Every column's moves row keeps to its own box, its coasts show in it, and its letter is drawn."""
    m = _table(["Ana", {"name": "Ben", "vehicles": ["bike"] * fleet}])
    view = _view(m, "Ben")
    coasted = tuple(replace(v, moved=True, coasts=2) for v in view.vehicles)
    drawn = lit(render(replace(view, vehicles=coasted), blink_on=True))
    plain = lit(render(replace(view, vehicles=tuple(replace(v, moved=True) for v in view.vehicles)), blink_on=True))
    width = 128 // fleet
    band = slice(13 + 21, 13 + 21 + 8)  # the moves row (MIDDLE_TOP + 21)
    for i in range(fleet):
        gutter = [x for x in (i * width + width - 1, i * width + width) if x < 128]
        assert not drawn[band, gutter].any(), (fleet, i)
        own = slice(i * width, i * width + width - 1)
        assert not np.array_equal(drawn[band, own], plain[band, own]), (fleet, i)  # its coasts are seen
        assert drawn[13:25, own].sum() >= 10, (fleet, i)  # its letter ("B9"), not a lone "…"
    with pytest.raises(Illegal, match="1 to 9 vehicles"):
        Match.begin(GAME, {"players": [{"name": "Ana"}, {"name": "Ben", "vehicles": ["bike"] * 10}]})
