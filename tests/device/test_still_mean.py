"""The dice are read in the mean of the still tray's frames, not in its last frame alone.

An audit: the sensor noise of a dim room (sigma ~10-21 grey levels) reads pips into felt: at ~21, 42 wrong values
in 641 dev dice, 5 in the mean of three frames.  The appliance waits for three still frames before reading; they
show the same scene, so their mean is that scene with the noise averaged down (a clean picture reads the same)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from device.camera_input import STILL_MEAN_FRAMES, VisionReader

pytestmark = pytest.mark.slow  # the dice networks read frame after frame: why, in pyproject.toml's markers


def _frames(n: int, sigma: float = 10.0) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(3)
    scene = np.full((120, 160, 3), 120.0)
    scene[40:80, 60:100] = 230.0
    frames = [np.clip(np.rint(scene + rng.normal(0.0, sigma, scene.shape)), 0, 255).astype(np.uint8)
              for _ in range(n)]
    return scene, frames


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    pictures: list[np.ndarray] = []

    def read_dice(image: np.ndarray, **_: Any) -> list[Any]:
        pictures.append(image)
        return []

    monkeypatch.setattr("vision.dice.read_dice", read_dice)
    return pictures


def test_the_dice_are_read_in_the_mean_of_the_still_run(seen: list[np.ndarray]) -> None:
    scene, frames = _frames(4)
    reader = VisionReader(still_frames=3)
    assert [reader.tray_still(f) for f in frames] == [False, False, True, True]
    reader.read_dice(frames[-1], "d6")
    (read,) = seen
    assert read.shape == frames[-1].shape and read.dtype == np.uint8
    expected = np.mean(np.stack(frames[-STILL_MEAN_FRAMES:]).astype(np.float64), axis=0)
    assert np.abs(read.astype(np.float64) - expected).max() <= 0.5 + 1e-9  # the mean, rounded
    noise_one = float(np.std(frames[-1].astype(float) - scene))
    noise_read = float(np.std(read.astype(float) - scene))
    assert noise_read < 0.65 * noise_one  # ~1/sqrt(3)


def test_a_picture_not_of_the_still_run_is_read_as_given(seen: list[np.ndarray]) -> None:
    _scene, frames = _frames(3)
    reader = VisionReader(still_frames=2)
    reader.tray_still(frames[0])
    reader.read_dice(frames[0], "d6")  # the first frame: no still run yet
    for f in frames[1:]:
        reader.tray_still(f)
    other = frames[0].copy()  # a picture another caller reads (the phone's Teach page)
    reader.read_dice(other, "d6")
    assert seen[0] is frames[0] and seen[1] is other
    moved = frames[0].copy()
    moved[:60] = 0  # the dice moved: the run starts again, the frame is read alone
    assert reader.tray_still(moved) is False
    reader.read_dice(moved, "d6")
    assert seen[2] is moved


def test_the_tray_is_read_again_when_a_third_still_frame_comes(seen: list[np.ndarray]) -> None:
    """A review: the tray is first judged still at two frames and the camera kept that reading while it stayed so:
    the mean of three was never read.  A better mean ready is read again."""
    _scene, frames = _frames(4)
    reader = VisionReader()  # judged still at two frames
    assert [reader.tray_still(f) for f in frames[:2]] == [False, True]
    reader.read_dice(frames[1], "d6")
    assert not reader.better_mean_ready()
    reader.tray_still(frames[2])
    assert reader.better_mean_ready()
    reader.read_dice(frames[2], "d6")
    assert not reader.better_mean_ready()
    reader.tray_still(frames[3])
    assert not reader.better_mean_ready()  # three is the most
    assert len(seen) == 2


def test_the_camera_reads_the_still_tray_at_two_frames_and_again_at_three(seen: list[np.ndarray], tmp_path) -> None:
    from test_app_camera_dice import road_app_on_still

    from vision.dice import FaceLibrary

    _scene, frames = _frames(1)
    with road_app_on_still(tmp_path, frames[0], VisionReader(faces=FaceLibrary())) as (app, clock):
        for _ in range(8):
            clock.now += 0.1
            app.step(clock.now)
    assert len(seen) == 2  # the mean of two, then of three; then the same dice, not read again
