"""A die lying across the dice tray's edge (``[camera] dice_region`` drawn a little small, a die rolled against
the tray's rim): read whole when its centre is in the tray, held with words when it is not.  (The region's own
crop cut such a die: it was not found, and a roll of up to Handling skid dice was taken a die short.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from device.app import VisionReader
from device.camera_input import EdgeDie, cant_read_words, edge_margin, in_tray
from device.config import Region
from games.core.table_input import DiceRequest
from tests.device.test_app_camera_dice import road_app_on_still
from tools.dice_training.render import render_scene
from vision.dice import DieReading, FaceLibrary

pytestmark = pytest.mark.slow  # the dice networks read frame after frame: why, in pyproject.toml's markers


def _tray() -> np.ndarray:
    """Four dice, 3 5 1 6; the 3 at x ~554 (its box x 525-583), the others left of x 515."""
    image, placed = render_scene([3, 5, 1, 6], np.random.default_rng(4))
    assert [p.face for p in placed] == [3, 5, 1, 6] and 550 < placed[0].center[0] < 558
    return image


def _run(app, clock, frames: int = 20) -> None:
    for _ in range(frames):
        clock.now += 0.1
        app.step(clock.now)
        if app.history:
            return


def test_a_die_centred_in_the_tray_but_cut_by_its_edge_is_read_whole(tmp_path: Path) -> None:
    """The region's right edge at x 560 cuts the 3 (centre 554): read in the region alone, it was not found
    ("3 dice on the tray, 4 wanted")."""
    with road_app_on_still(tmp_path, _tray(), VisionReader(faces=FaceLibrary()),
                           dice_region=Region(0, 0, 560, 480)) as (app, clock):
        _run(app, clock)
        assert app.history, [n.text for n in app.notices]
        assert sorted(app.history[0].command.args["dice"]) == [1, 3, 5, 6]


def test_a_die_across_the_trays_edge_holds_the_roll_and_says_so(tmp_path: Path) -> None:
    """The region's edge at x 545: the 3's centre lies outside, a third of it inside.  Is it the roll's?  The
    roller is told to move it in (it was dropped: a roll of three dice)."""
    with road_app_on_still(tmp_path, _tray(), VisionReader(faces=FaceLibrary()),
                           dice_region=Region(0, 0, 545, 480)) as (app, clock):
        roller = app.prompt().player
        _run(app, clock)
        assert not app.history
        said = [(n.text, n.player) for n in app.notices if n.kind == "dice"]
        assert said == [("camera: 1 ? 5 6 - a die on the tray's edge: move it in, or use the buttons", roller)]


def _reading(value: object, box: tuple[int, int, int, int]) -> DieReading:
    return DieReading(value, box, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), 0.9)  # type: ignore[arg-type]


def test_in_tray_keeps_the_trays_dice_in_its_pixels_and_drops_what_lies_beside() -> None:
    # read in a picture 10 px wider on each side than the 100 x 80 tray
    inside = _reading(4, (20, 20, 40, 40))
    across = _reading(2, (95, 30, 115, 50))  # centre x 105 - 10 = 95 of 100: inside, cut by the edge
    edge = _reading(5, (102, 30, 122, 50))  # centre 102 of 100: outside; 8 of its 20 px inside (40%)
    beside = _reading(6, (107, 30, 127, 50))  # 3 of 20 px inside (15%): beside the tray
    unread = _reading(None, (104, 60, 124, 80))  # not read, 6 of 20 px inside: a token beside the tray
    cocked = _reading(None, (100, 60, 120, 80))  # not read, half of it inside: a cocked die on the edge
    got = in_tray([inside, across, edge, beside, unread, cocked], 10, 10, (80, 100))
    assert [(r.value, r.center) for r in got] == [(4, (20.0, 20.0)), (2, (95.0, 30.0)), (None, (102.0, 30.0)),
                                                  (None, (100.0, 60.0))]
    assert got[0].box == (10, 10, 30, 30) and isinstance(got[2], EdgeDie) and isinstance(got[3], EdgeDie)


def test_in_tray_moves_a_readers_own_kind_of_reading_too() -> None:
    from collections import namedtuple

    Own = namedtuple("Own", "value box center")
    got = in_tray([Own(3, (20, 20, 40, 40), (30.0, 30.0))], 10, 10, (80, 100))
    assert [(r.value, r.box, r.center) for r in got] == [(3, (10, 10, 30, 30), (20.0, 20.0))]


@pytest.mark.parametrize(("die_px", "region", "margin"), [
    (40.0, Region(0, 0, 300, 200), 40),  # a die's side: a die centred on the edge is whole in it
    (None, Region(0, 0, 300, 200), 20),  # no calibration: a tenth of the shorter side
    (3.0, Region(0, 0, 30, 20), 8)])  # at least 8
def test_edge_margin(die_px: float | None, region: Region, margin: int) -> None:
    assert edge_margin(region, die_px) == margin


def test_the_words_name_dice_on_the_edge_apart_from_dice_not_read() -> None:
    request = DiceRequest(die="d6", count=3, label="skid dice", build=lambda v: None, exact=False)  # type: ignore[arg-type]
    got = cant_read_words([_reading(3, (0, 0, 40, 40)), EdgeDie(None, (50, 0, 90, 40), (59.0, 20.0), 0.0),
                           _reading(None, (0, 50, 40, 90))], request)
    assert got == "camera: 3 ? ? - a die on the tray's edge: move it in; can't read 1 die: lay it flat, or use the buttons"


def test_dice_too_small_in_the_picture_blame_the_camera_not_the_die() -> None:
    """Dice of ~12 px (a camera high over the table, no calibration to warn of it) read null: the roller was told
    to "lay it flat", the die blamed; now the size is said and what to do about it."""
    request = DiceRequest(die="d6", count=3, label="movement dice", build=lambda v: None)  # type: ignore[arg-type]
    tiny = [_reading(None, (0, 0, 10, 10)), _reading(4, (30, 0, 40, 10)), _reading(None, (0, 30, 10, 40))]
    assert cant_read_words(tiny, request) == (
        "camera: ? 4 ? - can't read 2 dice: too small in the picture (mount the camera lower), or use the buttons")
    flat = [_reading(None, (0, 0, 40, 40)), _reading(4, (60, 0, 100, 40))]
    assert cant_read_words(flat, request) == "camera: ? 4 - can't read 1 die: lay it flat, or use the buttons"
    # a speck (or a fingernail) of 12 px beside dice of 48 read: the camera is near enough (a review)
    speck = [_reading(3, (0, 0, 48, 48)), _reading(5, (60, 0, 108, 48)), _reading(None, (0, 60, 12, 72))]
    assert cant_read_words(speck, request) == "camera: 3 5 ? - can't read 1 die: lay it flat, or use the buttons"


def test_a_camera_too_high_is_said_on_the_rollers_screen(tmp_path: Path) -> None:
    """Dice of 10 px, no calibration: some of four found (two with round 11's first reader, three with round
    19's), none read, each said "?" with why."""
    image, _ = render_scene([3, 5, 1, 6], np.random.default_rng(4), side=10)
    with road_app_on_still(tmp_path, image, VisionReader(faces=FaceLibrary())) as (app, clock):
        roller = app.prompt().player
        _run(app, clock)
        assert not app.history
        said = [(n.text, n.player) for n in app.notices if n.kind == "dice"]
        assert said in ([(f"camera: {' '.join('?' * n)} - can't read {n} dice: too small in the picture (mount the "
                          "camera lower), or use the buttons", roller)] for n in (2, 3, 4)), said


def test_without_a_calibration_the_margin_follows_the_dice_read() -> None:
    """An audit: a tenth of a 360-px region (36 px) cut a die of 53 px lying across its edge, read as a 3 centred
    inside.  With no calibration the margin is the side of the dice read last; wider than the margin a read
    was made with, they are read again at the next frame."""
    from device.camera_input import BOX_OF_SIDE, CameraInput

    class Reader:
        die_px = None

    camera = CameraInput(Reader())  # type: ignore[arg-type]
    region = Region(0, 0, 480, 360)
    assert camera._margin(region) == 36
    camera.seen_die_px = 45 / BOX_OF_SIDE
    assert camera._margin(region) == 53
    Reader.die_px = 40.0  # a calibration's size comes first
    assert camera._margin(region) == 40


def test_dice_wanting_a_wider_margin_are_read_again() -> None:
    """Without a calibration the first read is made with a tenth of the region; dice read larger than that are
    read again at the next frame with a margin of their size (kept while the tray stays still: never)."""
    from device.camera import Frame
    from device.camera_input import CameraInput

    class Reader:
        die_px = None

        def __init__(self) -> None:
            self.shapes: list[tuple[int, ...]] = []

        def tray_still(self, image: np.ndarray) -> bool:
            return True

        def read_dice(self, image: np.ndarray, die: str) -> list[DieReading]:
            self.shapes.append(image.shape[:2])
            return [_reading(4, (100, 100, 160, 160))]

    reader = Reader()
    camera = CameraInput(reader, dice_region=Region(200, 100, 500, 400))  # type: ignore[arg-type]
    request = DiceRequest(die="d6", count=1, label="movement dice", build=lambda v: None)  # type: ignore[arg-type]
    frame = Frame(np.zeros((720, 1280, 3), np.uint8), 0.0, 0)
    for _ in range(3):
        camera._tray(frame, request, lambda *a, **k: None, 0.0)
    # a tenth of 400 (40 px), then the die's 60-px box / 0.85 (71 px; a quarter of the region at most), then kept
    assert reader.shapes == [(480, 580), (542, 642)]
