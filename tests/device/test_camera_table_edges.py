"""The camera and the buttons at a real table's edges, found by driving the loop through them.

The dice lying in the tray after a roll are that roll's: the camera must not record them again as the next
player's (the camera unplugged mid-roll, a roll typed with the buttons, a black or covered picture: before,
each of these recorded the dice left in the tray as the next player's roll, with nobody touching them).
A press whose finger went down before the camera moved the game on is not taken on the new step."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from device.app import App, open_match
from device.buttons import ButtonEvent, PressKind, ScriptedButtons
from device.camera import Camera
from device.store import Store
from games import game_package

from camera_doubles import Reading, UnpluggableTray

#: the tray as the camera sees it: felt with a wall and a shadow (a picture with something in it)
TRAY = np.full((240, 320, 3), (40, 110, 60), np.uint8)
TRAY[:, :30] = (90, 90, 100)
TRAY[200:, :] = (25, 70, 40)


class Reader:
    """Dice as the test lays them: ``dice`` while the tray shows the felt, none on a blank picture."""

    def __init__(self) -> None:
        self.dice: list[Reading] = []

    def read_dice(self, image: np.ndarray, die: str) -> list[Reading]:
        return list(self.dice) if int(image.max()) - int(image.min()) > 20 else []

    def read_table(self, image: np.ndarray) -> None:
        return None


class Screens:
    def show(self, player: str, image: Any) -> bool:
        return True


class Table:
    def __init__(self, tmp: Path) -> None:
        module = game_package("thunder_road")
        self.store = Store(tmp / "tr.sqlite")
        _, match, _ = open_match(self.store, module, tomllib.loads(module.EXAMPLE_SETUP))
        self.now = 0.0
        self.tray, self.reader = UnpluggableTray(TRAY.copy()), Reader()
        self.app = App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: self.now,
                       camera=Camera(self.tray, clock=lambda: self.now, fps=10), reader=self.reader,
                       settle_frames=3)

    def frames(self, n: int) -> list[dict[str, Any]]:
        sent = []
        for _ in range(n):
            self.now += 0.1
            sent += [a.command.to_json() for a in self.app.step(self.now)]
        return sent

    def lay(self, *dice: tuple[Any, float, float]) -> None:
        self.reader.dice = [Reading(v, (x, y)) for v, x, y in dice]

    def told(self, player: str) -> list[str]:
        return [n.text for n in self.app.notices if n.kind == "dice" and n.player == player]

    def close(self) -> None:
        self.app.camera.close() if hasattr(self.app.camera, "close") else None
        self.store.close()


ANAS = ((3, 40.0, 50.0), (5, 90.0, 60.0), (1, 150.0, 80.0), (6, 220.0, 120.0))


def test_a_roll_typed_while_the_camera_was_off_is_not_read_again_as_the_next_players(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        assert t.app.prompt().player == "Ana"
        t.tray.unplugged = True
        t.frames(3)
        assert any(n.kind == "camera_down" for n in t.app.notices)
        t.app.type_faces([3, 5, 1, 6], t.now, source="button")  # Ana enters her roll by hand
        assert t.app.prompt().player == "Ben"
        t.lay(*ANAS)  # her dice, in the tray all along
        t.tray.unplugged = False
        for _ in range(100):  # the camera is tried again by itself
            assert t.frames(1) == []  # before: roll Ben [1, 3, 5, 6]
            if not any(n.kind == "camera_down" for n in t.app.notices):
                break
        assert t.frames(5) == []
        assert t.told("Ben") == ["tray holds the last roll: roll again"]  # said on his screen, once
        assert t.frames(50) == []
        t.lay((2, 60.0, 140.0), (2, 120.0, 30.0), (4, 200.0, 60.0), (6, 260.0, 150.0))  # Ben rolls
        assert t.frames(5) == [{"type": "roll", "player": "Ben", "dice": [2, 4, 2, 6]}]
    finally:
        t.close()


def test_a_die_laid_flat_after_its_roll_was_typed_is_not_the_next_roll(tmp_path: Path) -> None:
    """A cocked die the camera could not read; Ana typed her roll; the die laid flat then reads, a few pixels
    from where it lay: the same dice.  The camera's "can't read" line goes once the roll is in."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (None, 150.0, 80.0), (6, 220.0, 120.0))
        assert t.frames(6) == []
        assert t.told("Ana") == ["camera: 3 5 ? 6 - can't read 1 die: lay it flat, or use the buttons"]
        t.app.type_faces([3, 5, 1, 6], t.now, source="button")
        assert t.told("Ana") == []
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (1, 153.0, 84.0), (6, 220.0, 120.0))
        assert t.frames(20) == []
    finally:
        t.close()


def test_a_blank_or_covered_picture_is_no_empty_tray(tmp_path: Path) -> None:
    """The used dice were forgotten on any frame with no dice: two black frames (a lens covered, the light
    switched) and the same dice were recorded again.  An empty tray that looks as it did is a new start."""
    t = Table(tmp_path)
    try:
        t.lay(*ANAS)
        assert t.frames(4) == [{"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}]
        for blank in (np.zeros_like(TRAY), np.full_like(TRAY, 255)):
            t.tray.image = blank
            t.frames(8)
            t.tray.image = TRAY.copy()
            assert t.frames(10) == [], "the dice left in the tray were recorded again"
        t.lay()  # Ana takes her dice: the tray, empty, looks as it did
        t.frames(4)
        t.lay(*ANAS)  # Ben's dice land where hers lay, the same faces: a new roll all the same
        assert t.frames(4) == [{"type": "roll", "player": "Ben", "dice": [3, 5, 1, 6]}]
    finally:
        t.close()


def test_dice_typed_with_the_entry_open_are_still_watched(tmp_path: Path) -> None:
    """While the dice are entered with the buttons nothing the camera sees is sent, but it still sees them:
    rolled after the entry was opened, they are the typed roll's, not Ben's."""
    t = Table(tmp_path)
    try:
        assert t.frames(4) == []  # the tray seen empty
        t.app.open_entry(t.app.menu().dice)
        assert t.app.entry is not None
        t.lay(*ANAS)  # rolled once the entry was open
        assert t.frames(6) == []
        assert t.app.vision is not None and t.app.vision.last_seen == ANAS  # watched, not sent
        t.app.type_faces([3, 5, 1, 6], t.now, source="button")
        assert t.app.prompt().player == "Ben"
        assert t.frames(20) == []
    finally:
        t.close()


def test_a_press_begun_before_the_camera_moved_the_step_on_is_not_taken(tmp_path: Path) -> None:
    """Ana held OK on her dice while the camera read them: on release the OK landed on Ben's step (in
    Gaslands it placed a template, NEXT threw away SHIFTs).  A press says when it began; one that began
    before the step moved on is dropped, and the chooser is told to press again."""
    t = Table(tmp_path)
    try:
        down = t.now + 0.05
        t.lay(*ANAS)
        assert t.frames(4) == [{"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}]  # read while held
        moved = t.app.turn().menu
        t.app.on_button(ButtonEvent("ok", PressKind.SHORT, t.now, began=down), t.now)
        assert t.app.turn().menu is moved and t.app.entry is None  # nothing chosen on Ben's step
        # said to Ana, whose step it was and whose finger it most likely was (Ben has not pressed anything), on a
        # page of its own
        refusal = t.app.refusal
        assert refusal is not None and refusal.player == "Ana" and refusal.pages[0].title == "PRESS NOT TAKEN"
        assert " ".join(line for p in refusal.pages for line in p.lines) == (
            "the camera moved the game on while the button was down; look, then press again")
        t.app.on_button(ButtonEvent("ok", PressKind.SHORT, t.now + 0.3, began=t.now + 0.1), t.now + 0.3)
        assert t.app.entry is not None and t.app.entry.request.label == "4 movement dice"  # begun on Ben's step: taken
        assert t.app.cursor is not None and t.app.cursor.path == ("Ben's dice",)
    finally:
        t.close()


def test_a_roll_typed_then_taken_away_does_not_swallow_the_next_one(tmp_path: Path) -> None:
    """(Found in review.)  The camera off, Ana types her roll and takes her dice; the camera back on an empty
    tray: Ben's roll must be his, not taken for Ana's unseen dice ("roll again")."""
    t = Table(tmp_path)
    try:
        t.tray.unplugged = True
        t.frames(3)
        t.app.type_faces([3, 5, 1, 6], t.now, source="button")
        t.tray.unplugged = False
        for _ in range(100):
            t.frames(1)
            if not any(n.kind == "camera_down" for n in t.app.notices):
                break
        assert t.frames(5) == []  # the tray, empty
        t.lay((2, 60.0, 140.0), (2, 120.0, 30.0), (4, 200.0, 60.0), (6, 260.0, 150.0))
        assert t.frames(5) == [{"type": "roll", "player": "Ben", "dice": [2, 4, 2, 6]}]
    finally:
        t.close()


def test_an_evenly_lit_empty_tray_is_seen_empty_not_blank(tmp_path: Path) -> None:
    """(Found in review.)  A dice region inside plain felt under even light looks as even as a black picture:
    it was taken for "nothing seen", and Ana's roll typed on the phone (rolled off the tray) then swallowed
    Ben's roll.  Only an even picture that is also black or white shows nothing."""
    felt = np.full((240, 320, 3), (40, 110, 60), np.uint8)
    felt = np.clip(felt + np.linspace(0, 4, 320)[None, :, None], 0, 255).astype(np.uint8)
    t = Table(tmp_path)
    try:
        t.reader.read_dice = lambda image, die: list(t.reader.dice)  # type: ignore[method-assign]
        t.tray.image = felt
        assert t.frames(5) == [] and t.app.vision is not None and t.app.vision.last_seen == ()
        t.app.type_faces([3, 5, 1, 6], t.now, source="web")
        assert t.frames(5) == []
        t.lay(*ANAS)
        assert t.frames(5) == [{"type": "roll", "player": "Ben", "dice": [3, 5, 1, 6]}]
    finally:
        t.close()


def test_the_next_roller_is_not_told_to_lay_flat_the_last_rolls_cocked_die(tmp_path: Path) -> None:
    """(Found in review.)  Ana's cocked die, her roll typed, the dice left: Ben was told "camera can't read 1
    die: lay it flat", about dice whose roll is in."""
    t = Table(tmp_path)
    try:
        t.lay((3, 40.0, 50.0), (5, 90.0, 60.0), (None, 150.0, 80.0), (6, 220.0, 120.0))
        t.frames(6)
        t.app.type_faces([3, 5, 1, 6], t.now, source="button")
        assert t.frames(10) == []
        assert t.told("Ben") == ["tray holds the last roll: roll again"]
    finally:
        t.close()
