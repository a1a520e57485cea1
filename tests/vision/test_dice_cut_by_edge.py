"""A die the picture's edge cuts is read null, never given the value of the half seen (half a 6 is a 3): at the
table, a die lying partly outside ``[camera] dice_region``.  Dev photos of ``../shared/data/dice-real`` (never
the held-out split), each cut at one labelled die; ``vision.dice.CUT_SHARE`` was chosen on another sample of
them (rng 1; this one is rng 7).  Skipped when the shared data is not on this machine."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice import read_dice

REPO = Path(__file__).resolve().parents[2]
DICE = Path(os.environ.get("PITBOARD_SHARED_DATA", REPO.parent / "shared" / "data")) / "dice-real"

pytestmark = pytest.mark.skipif(not (DICE / "labels.csv").is_file(), reason=f"real dice photos not found at {DICE}")


def _cases(n: int = 40) -> list[tuple[str, int, tuple[int, int, int, int]]]:
    import csv

    with (DICE / "labels.csv").open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if zlib.crc32(r["image"].encode()) % 5 != 0]  # dev photos only
    pick = np.random.default_rng(7).choice(len(rows), n, replace=False)
    return [(rows[i]["image"], int(rows[i]["value"]),
             tuple(int(rows[i][k]) for k in ("x_min", "y_min", "x_max", "y_max"))) for i in pick]  # type: ignore[misc]


def _read_at(image: str, box: tuple[int, int, int, int], cut: int) -> list:
    """The readings of the photo cut at column ``cut`` (the part left of it gone) near the labelled die."""
    img = cv2.imread(str(DICE / "images" / image))
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    near = [r for r in read_dice(img[:, cut:]) if abs(r.center[1] - cy) < 0.5 * (y1 - y0) and r.center[0] < x1 - cut]
    return sorted(near, key=lambda r: abs(r.center[1] - cy))


def test_a_die_cut_through_its_middle_is_never_given_a_value() -> None:
    given = []
    for image, value, box in _cases():
        near = _read_at(image, box, (box[0] + box[2]) // 2)
        if near and near[0].value is not None:
            given.append((image, value, near[0].value))
    assert not given, given  # before: 11 of 34 found were given a wrong value (rng 1)


def test_a_die_touching_the_edge_whole_is_still_read() -> None:
    read = wrong = 0
    for image, value, box in _cases():
        near = _read_at(image, box, box[0] + 1)
        read += bool(near) and near[0].value == value
        wrong += bool(near) and near[0].value not in (None, value)
    assert wrong == 0 and read >= 36, (read, wrong)  # of 40; rng 1: 78 of 80


def test_a_speck_at_the_edge_is_dropped_as_a_speck_not_held_as_a_die_not_read(monkeypatch) -> None:
    """A review: the speck rule ran before the cut rule, so a speck-sized detection read 2-6 next to the edge
    escaped it and was then made null: a die the camera cannot read, holding the roll."""
    import numpy as np

    import vision.dice as vd
    from vision.dice import net, scale

    dets = [net.Detection((100.0, 100.0), 40.0, 0.9), net.Detection((160.0, 100.0), 40.0, 0.9),
            net.Detection((295.0, 60.0), 12.0, 0.9)]  # a 12 px speck 5 px from the right edge
    monkeypatch.setattr(scale, "detect", lambda img, die_px=None: (dets, {}))

    def read(img, boxes, first_look=None):
        out = np.zeros((len(boxes), 7))
        for k, (_c, s) in enumerate(boxes):
            out[k, 3 if s > 20 else 4] = 0.99
        return out

    monkeypatch.setattr(net, "read", read)
    got = vd._read_learned(np.full((200, 300, 3), 128, np.uint8))
    assert [r.value for r in got] == [3, 3]
