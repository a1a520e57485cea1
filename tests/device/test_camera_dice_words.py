"""What the roller's screen says of the dice the camera sees and cannot take (an outside audit of the player's
OLED, 2026-12-05): a tray of too many or too few dice, a die it cannot read, a die it was never taught.  Every
word is on the roller's menu page, a footer piece at a time, for as long as the dice lie so."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from device.dashboards import pages
from device.camera_input import count_words
from games.core.table_input import DiceRequest

from test_app import Rig
from test_camera_table_edges import Table

from camera_doubles import Reading


def footer_shown(page_of, step, frames: int) -> list[str]:
    """The footer pieces a screen showed over ``frames`` frames, each change once."""
    shown: list[str] = []
    for _ in range(frames):
        piece = page_of().alert
        if not shown or shown[-1] != piece:
            shown.append(piece)
        step()
    return shown


def test_five_dice_for_four_are_told_whole_while_they_lie_there(tmp_path: Path) -> None:
    """Seen: "5 dice on the tray, 4" stood on Ana's footer for as long as the dice lay there, the rest ("wanted
    (4 movement dice): take 1 off") never shown: the camera posts it at every frame, and each post began its
    pieces again.  (Its words are shorter now; the turning is checked on the can't-read line below too.)"""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (1, 150.0, 80.0), (6, 220.0, 120.0), (2, 260.0, 160.0))
        assert t.frames(4) == []
        text = "5 dice on the tray, 4 wanted: take 1 off"
        assert [n.text for n in t.app.notices if n.player == "Ana"] == [text]
        views = {v.player: v for v in t.app.screen_views()}
        pieces = pages.footer_pieces(text)
        assert len(pieces) > 1
        shown = footer_shown(lambda: t.app.page_for("Ana", views["Ana"], t.now, True), lambda: t.frames(1), 150)
        assert set(pieces) <= set(shown), shown  # every piece, in turn, while the dice lie there
    finally:
        t.close()


def test_too_few_dice_for_a_roll_of_four_are_told_not_waited_on_in_silence(tmp_path: Path) -> None:
    """Seen: three dice lying still for a roll of four: nothing on any screen, ever (a die still in a hand, or
    off the tray, or one the camera does not see)."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (6, 220.0, 120.0))
        assert t.frames(30) == []
        told = [n for n in t.app.notices if n.player == "Ana"]
        assert [n.text for n in told] == ["3 dice on the tray, 4 wanted: add 1, or use the buttons"]
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (1, 150.0, 80.0), (6, 220.0, 120.0))  # the fourth die
        assert t.frames(5) == [{"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}]
        assert t.told("Ana") == ["camera: 3 5 1 6"]
    finally:
        t.close()


def test_whose_roll_the_camera_took_is_on_every_screen(tmp_path: Path) -> None:
    """Seen: Thunder Road's camera roll goes to the first player still to roll, and only that player's screen said
    "camera: 3 4 5 6": Ben's dice, thrown first, were recorded as Ana's with nothing on Ben's screen."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (1, 150.0, 80.0), (6, 220.0, 120.0))
        assert t.frames(5) == [{"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}]
        views = {v.player: v for v in t.app.screen_views()}
        assert "camera: Ana 3 5 1 6" in [a.text for a in views["Ben"].alerts]
        ben_page = t.app.page_for("Ben", views["Ben"], t.now, True)
        assert ben_page.alert == "camera: Ana 3 5 1 6"  # his roll next: his menu page says whose was taken
        ana = [a.text for a in views["Ana"].alerts if a.text.startswith("camera")]
        assert ana[0] == "camera: 3 5 1 6"  # her own first
    finally:
        t.close()


def test_a_roll_of_up_to_n_dice_says_at_most(tmp_path: Path) -> None:
    """"5 dice on the tray, 4 wanted (skid dice (up to 4))": a skid roll takes 0 to Handling dice."""
    up_to = DiceRequest("skid", 4, "skid dice (up to 4)", lambda faces: None, exact=False)
    assert count_words(5, up_to) == "5 dice on the tray, at most 4 wanted: take 1 off"
    exact = DiceRequest("bump", 2, "the bump die, then the direction die", lambda faces: None)
    assert count_words(1, exact) == "1 die on the tray, 2 wanted: add 1, or use the buttons"


def test_a_die_the_camera_cannot_read_is_told_with_the_dice_it_reads(tmp_path: Path) -> None:
    """Seen: "camera can't read 1 die" without the dice it did read (3 3 2), nor which die it meant."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (None, 90.0, 60.0), (3, 150.0, 80.0), (2, 220.0, 120.0))
        assert t.frames(6) == []
        assert t.told("Ana") == ["camera: 3 ? 3 2 - can't read 1 die: lay it flat, or use the buttons"]
        assert t.frames(200) == []  # 20 s on: still said
        assert t.told("Ana") == ["camera: 3 ? 3 2 - can't read 1 die: lay it flat, or use the buttons"]
    finally:
        t.close()


class FacesReader:
    """A reader with a face library slot, as the appliance's: ``faces`` None, nothing taught."""

    def __init__(self) -> None:
        self.faces = None
        self.read: list[str] = []

    def read_dice(self, image: np.ndarray, die: str) -> list[Reading]:
        self.read.append(die)
        raise ValueError(f"die {die!r} is a custom die: pass the face library that was taught its faces")

    def read_table(self, image: np.ndarray) -> None:
        return None


def test_skid_dice_never_taught_are_said_so_with_what_to_do(tmp_path: Path) -> None:
    """Seen: with no face library yet (what `pitboard run` has before the first teaching), Alice's footer stood on
    "dice not read: the face" and Bob's screen on "DICE NOT READ: THE FACE LIBRARY HAS NO DIE CALLED 'SKID'
    (TAUGHT…", cut short: the reader's own words, and nothing to do."""
    reader = FacesReader()
    rig = Rig(tmp_path, camera=True, reader=reader)  # type: ignore[arg-type]
    rig.step("ok")
    rig.step("next")  # the skid roll awaited
    assert all(rig.step() == [] for _ in range(5))
    text = "camera not taught the skid dice: enter them with the buttons (teach them on the phone's Teach page)"
    assert [(n.text, n.player) for n in rig.app.notices if n.kind in ("dice", "vision")] == [(text, "Ann")]
    assert reader.read == []  # nothing asked of a reader that cannot read them
    shown = footer_shown(lambda: rig.page("Ann"), rig.step, 120)
    assert set(pages.footer_pieces(text)) <= set(shown), shown


def test_the_buttons_start_from_the_dice_the_camera_reads(tmp_path: Path) -> None:
    """Seen: "camera can't read 1 die: ... or use the buttons", and the buttons' dice entry opened at "no dice
    yet": every die entered again, the ones the camera read too."""
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")  # the skid roll awaited (up to 2 dice)
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading(None, (90, 90))]
    assert all(rig.step() == [] for _ in range(5))
    assert [n.text for n in rig.app.notices if n.kind == "dice"] == [
        "camera: SPIN ? - can't read 1 die: lay it flat, or use the buttons"]
    rig.step("next")  # "Roll skid dice": the dice entry
    entry = rig.app.entry
    assert entry is not None and entry.entered == ["SPIN"]  # the die it read; the roller adds the other
    page = rig.page("Ann")
    assert pages.dice_line(page) == "SPIN"
    assert rig.step("ok") == []  # the face shown kept as the second die
    second = rig.app.entry.entered[1]
    sent = rig.step("next")
    assert sent == [{"type": "skid_roll", "faces": ["SPIN", second]}]


def test_the_buttons_start_empty_when_the_camera_reads_every_die_or_none(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading(None, (30, 30))]  # one die, not read: nothing to start from
    assert all(rig.step() == [] for _ in range(5))
    rig.step("next")
    assert rig.app.entry is not None and rig.app.entry.entered == []


# -- a review of the above (2026-12-05) ----------------------------------------------------------------------


def test_another_players_roll_does_not_start_from_the_dice_read_for_the_roller(tmp_path: Path) -> None:
    """Ana's dice lying with one cocked; "Ben's dice" opened from the menu started from Ana's 3 5 6, and one die
    more recorded them as Ben's roll."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (None, 150.0, 80.0), (6, 220.0, 120.0))
        assert t.frames(6) == []
        menu = t.app.menu()
        ben = next(c for c in menu.choices if c is not None and c.label == "Ben's dice")
        t.app._choose(ben, (ben.label,), t.now)
        assert t.app.entry is not None and t.app.entry.entered == []
        t.app.entry = None  # BACK out of it
        ana = next(c for c in menu.choices if c is not None and c.label == "Ana's dice")
        t.app._choose(ana, (ana.label,), t.now)
        assert t.app.entry.entered == [3, 5, 6]  # hers: the roll the camera was reading
    finally:
        t.close()


def test_the_last_rolls_dice_partly_taken_off_are_not_a_roll_to_add_to(tmp_path: Path) -> None:
    """Ana's four dice read; one taken off, three left: Ben was told "3 dice on the tray, 4 wanted: add 1", and
    one die added made a roll of three of Ana's dice and his one."""
    from test_camera_table_edges import ANAS

    t = Table(tmp_path)
    try:
        t.lay(*ANAS)
        assert t.frames(5) == [{"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}]
        t.lay(*ANAS[:3])
        assert t.frames(10) == []
        assert t.told("Ben") == ["tray holds the last roll: roll again"]
        assert not [n for n in t.app.notices if n.player == "Ben" and "wanted" in n.text]
        t.lay(*ANAS[:3], (2, 260.0, 160.0))
        assert t.frames(10) == []  # three old dice and a new one: no roll of Ben's
        # Ben enters his roll with the buttons: "roll again" is over (a screens audit: it stood on, no roll awaited)
        from games.core import Command

        entered = t.app.apply(Command("roll", {"player": "Ben", "dice": [1, 2, 4, 6]}), source="buttons", now=t.now)
        assert entered.accepted
        t.app._rolled_by_hand(entered)
        assert t.told("Ben") == []
    finally:
        t.close()


def test_the_trays_count_does_not_take_the_place_of_the_rollers_answers(tmp_path: Path) -> None:
    """The count was posted as "info", the kind of the answer to the roller's own press: her long OK's answer
    lasted one frame, and "info" comes first on her footer, over news and UNDONE."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (6, 220.0, 120.0))
        assert t.frames(6) == []
        t.app.notify("info", "an answer to Ana's press", "Ana", now=t.now)
        t.frames(3)
        kinds = {n.kind: n.text for n in t.app.notices if n.player == "Ana"}
        assert kinds["info"] == "an answer to Ana's press" and "add 1" in kinds["tray_count"]
    finally:
        t.close()


def test_what_lay_before_a_hand_moved_the_dice_is_not_what_the_buttons_start_from(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        still = {"now": True}
        t.reader.tray_still = lambda image: still["now"]  # type: ignore[attr-defined]
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (None, 150.0, 80.0), (6, 220.0, 120.0))
        assert t.frames(6) == []
        still["now"] = False  # a hand scoops the dice up
        t.lay()
        t.frames(5)
        ana = t.app.menu().choices[0]
        t.app._choose(ana, (ana.label,), t.now)
        assert t.app.entry is not None and t.app.entry.entered == []
    finally:
        t.close()


def test_untaught_dice_are_no_longer_told_once_the_roll_is_entered(tmp_path: Path) -> None:
    reader = FacesReader()
    rig = Rig(tmp_path, camera=True, reader=reader)  # type: ignore[arg-type]
    rig.step("ok")
    rig.step("next")
    for _ in range(5):
        rig.step()
    assert [n.kind for n in rig.app.notices if "not taught" in n.text] == ["dice"]
    rig.app.type_faces(["SPIN"], rig.t, source="button")  # entered with the buttons, as it said
    rig.step()
    assert not [n for n in rig.app.notices if "not taught" in n.text]  # not 10 s more over the next step


def test_a_notice_posted_again_keeps_its_place_behind_later_ones(tmp_path: Path) -> None:
    """A review: re-posted at every frame, a camera notice was moved last each time, and the Grand Tour's and
    Space Race's dashboards draw the newest notice: a refusal posted meanwhile was hidden within half a second."""
    rig = Rig(tmp_path)
    rig.app.notify("tray_count", "3 dice on the tray, 4 wanted: add 1, or use the buttons", "Ann", now=rig.t)
    rig.app.notify("refused", "NOT NOW: roll the dice first", None, now=rig.t)
    rig.app._dirty = False
    rig.app.notify("tray_count", "3 dice on the tray, 4 wanted: add 1, or use the buttons", "Ann", now=rig.t + 0.1)
    assert [n.kind for n in rig.app.notices][-2:] == ["tray_count", "refused"]
    assert not rig.app._dirty  # nothing changed on a screen: nothing redrawn


def test_a_space_race_die_read_by_the_camera_is_shown_before_the_news_it_made(tmp_path: Path) -> None:
    """A review of the OLEDs: the roll was applied first, its news posted ("USA reached box 1 Earth Satellite first:
    +2 VP", 12 s), then "camera: 1" (4 s) behind it, and the screens show the first notice: the die's value was on
    no screen (the news does not say it, nor the tries line).  The reading now comes first, then the news."""
    import tomllib

    from camera_doubles import UnpluggableTray
    from device.app import App, open_match
    from device.buttons import ScriptedButtons
    from device.camera import Camera
    from device.store import Store
    from games import game_package
    from games.core import Command

    from test_camera_table_edges import TRAY, Reader, Screens

    module = game_package("space_race")
    store = Store(tmp_path / "sr.sqlite")
    _, match, _ = open_match(store, module, tomllib.loads(getattr(module, "EXAMPLE_SETUP", "")))
    now = [0.0]
    reader = Reader()
    app = App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: now[0],
              camera=Camera(UnpluggableTray(TRAY.copy()), clock=lambda: now[0], fps=10), reader=reader,
              settle_frames=3)
    try:
        assert app.apply(Command("begin_turn")).accepted and app.apply(Command("attempt", {"side": "USA", "ops": 4})).accepted
        reader.dice = [Reading(1, (60.0, 60.0))]
        sent = []
        for _ in range(8):
            now[0] += 0.1
            sent += [a.command.to_json() for a in app.step(now[0])]
        assert sent == [{"type": "roll", "die": 1}]
        assert any(n.kind == "news" and "reached box 1" in n.text for n in app.notices)  # the news it made
        usa = next(v for v in app.screen_views() if getattr(v, "player", None) == "USA")
        assert usa.alerts[0].text == "camera: 1"  # what the USA screen shows first: the die
        everyone = next(v for v in app.screen_views() if getattr(v, "player", None) == "USSR")
        assert everyone.alerts[0].text == "camera: USA 1"  # and whose roll it was, on the other screen
    finally:
        store.close()
