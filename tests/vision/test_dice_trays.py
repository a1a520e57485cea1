"""The d6 reader on photo-like dice trays (``tools/dice_training/tray.py``): dark bodies with coloured pips,
translucent, smoky and marbled dice, 20-90 px, lint, walls, warm light, JPEG; and dice whose honest reading
is null (leaning on a wall, half hidden, moving).  Seed 4242 was never trained on (training drew seeds
4328, 4329 and 104) and is not the bench's (91).  Floors are regression guards a little under what the
shipped networks read here on 2026-12-02; the figures themselves come from ``pitboard bench dice`` on the
240-frame bench folder (vision/dice/README.md)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import read_dice
from vision.dice.scoring import Label, Tally

FRAMES = 30
#: Measured with the shipped networks: accuracy 0.913, precision 0.970 (150 dice, 15 to report null, 10
#: of them reported null); 0.913 / 0.977 after the renderer drew side-face pips and SURE_AT_ONE_LOOK 0.95.
ACCURACY_FLOOR = 0.89
PRECISION_FLOOR = 0.95


@pytest.fixture(scope="module")
def read() -> tuple[Tally, int]:
    """The tally of the frames, and how many of their dice are to be reported null."""
    from tools.dice_training.tray import render_tray

    rng = np.random.default_rng(4242)
    t = Tally()
    nulls = 0
    for _ in range(FRAMES):
        img, dice = render_tray(rng)
        labels = [Label(d.box, 0 if d.value is None else d.value) for d in dice]
        nulls += sum(d.value is None for d in dice)
        t.add_image(labels, read_dice(img), 0.0)
    return t, nulls


def test_tray_dice_of_every_look_are_read(read: tuple[Tally, int]) -> None:
    f = read[0].figures()
    assert f["labelled_dice"] >= 100
    assert f["accuracy"] >= ACCURACY_FLOOR, f
    assert f["precision"] >= PRECISION_FLOOR, f
    assert f["false_dice_rate"] <= 0.03, f


def test_dice_to_report_null_are_mostly_reported_null(read: tuple[Tally, int]) -> None:
    """Issue 14: "A leaning, half-hidden or moving die is reported null" (the networks before the tray
    renders gave 13 of 144 such dice null on the bench folder)."""
    tally, nulls = read
    assert nulls >= 10
    assert tally.honest_null >= 0.6 * nulls
