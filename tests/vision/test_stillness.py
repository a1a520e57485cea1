"""Stillness on a synthetic frame stream: moving dice give no report, settled dice one report within
200 ms at 15 fps, and the same roll is reported once."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import read_dice
from tools.dice_training.render import render_scene
from vision.stillness import SettledRollReader, StillnessDetector

FPS = 15.0


def _stream(rng: np.random.Generator, faces, moving: int, still: int, noise: float = 2.0):
    """``moving`` frames of dice at new places each frame, then ``still`` frames of one settled scene
    (with fresh sensor noise on every frame)."""
    frames = []
    for _ in range(moving):
        img, _ = render_scene(faces, rng, size=(240, 320), side=40, noise=noise)
        frames.append(img)
    settled, placed = render_scene(faces, rng, size=(240, 320), side=40, noise=0)
    for _ in range(still):
        n = rng.normal(0, noise, settled.shape)
        frames.append(np.clip(settled + n, 0, 255).astype(np.uint8))
    return frames, placed


def test_detector_needs_n_identical_frames() -> None:
    det = StillnessDetector(frames_required=3)
    a = np.zeros((40, 40), np.uint8)
    b = a.copy()
    b[10:30, 10:30] = 200
    assert [det.update(f) for f in (a, b, b, b, b, a, a, a)] == [False, False, False, True, True, False,
                                                                     False, True]
    with pytest.raises(ValueError):
        StillnessDetector(frames_required=1)


def test_moving_dice_are_never_reported() -> None:
    rng = np.random.default_rng(1)
    frames, _ = _stream(rng, [3, 5], moving=20, still=0)
    calls = []
    reader = SettledRollReader(lambda img: calls.append(1) or read_dice(img), frames_required=3)
    assert all(reader.feed(f) is None for f in frames)
    assert calls == []  # the reader is not even run while the dice move


def test_settled_roll_reported_once_within_200_ms() -> None:
    rng = np.random.default_rng(2)
    frames, placed = _stream(rng, [2, 6, 4], moving=8, still=12)
    reader = SettledRollReader(read_dice, frames_required=3)
    reports = [(i, r) for i, f in enumerate(frames) if (r := reader.feed(f, timestamp=i / FPS)) is not None]
    assert len(reports) == 1
    index, readings = reports[0]
    rest = 8  # first frame showing the settled dice
    assert (index - rest) / FPS <= 0.200
    assert sorted(r.value for r in readings) == [2, 4, 6]
    assert reader.last_roll is not None and reader.last_roll.frame_index == index


def test_same_roll_after_a_hand_passes_is_not_reported_again_but_a_new_roll_is() -> None:
    rng = np.random.default_rng(3)
    frames, _ = _stream(rng, [1, 5], moving=3, still=6)
    settled = frames[-1]
    hand = settled.copy()
    hand[:, :80] = (150, 170, 200)  # an arm over part of the tray (dice stay where they were)
    new_frames, _ = _stream(rng, [3, 3], moving=3, still=6)
    stream = frames + [hand, hand, hand, hand] + [settled] * 6 + new_frames
    reader = SettledRollReader(read_dice, frames_required=3)
    reports = [r for f in stream if (r := reader.feed(f)) is not None]
    values = [sorted(x.value for x in r) for r in reports]
    assert values[0] == [1, 5]
    assert values[-1] == [3, 3]
    assert [1, 5] not in values[1:]


def test_zone_coordinates_come_back_in_frame_coordinates() -> None:
    rng = np.random.default_rng(4)
    scene, placed = render_scene([4], rng, size=(200, 200), side=44, noise=0)
    frame = np.full((400, 500, 3), 90, np.uint8)
    frame[150:350, 250:450] = scene
    reader = SettledRollReader(read_dice, frames_required=2, zone=(250, 150, 450, 350))
    out = [reader.feed(frame) for _ in range(3)]
    got = [r for r in out if r is not None]
    assert len(got) == 1
    (r,) = got[0]
    assert r.value == 4
    assert abs(r.center[0] - (placed[0].center[0] + 250)) < 3
    assert abs(r.center[1] - (placed[0].center[1] + 150)) < 3
