"""The synthetic lens (vision.synth.lens): points and pictures move the same way, and undo exactly."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth.lens import distort_image, distort_points, undistort_points

SIZE = (1920, 1080)


def test_points_round_trip_and_barrel_pulls_corners_inward():
    pts = np.array([[0, 0], [1919, 0], [1919, 1079], [0, 1079], [960, 540], [100, 700], [1500, 60]], float)
    d = distort_points(pts, SIZE, -0.12, 0.02)
    assert np.allclose(undistort_points(d, SIZE, -0.12, 0.02), pts, atol=1e-6)
    # the centre stays, corners move towards it by tens of pixels
    assert np.allclose(d[4], pts[4])
    r0 = np.linalg.norm(pts[:4] - [960, 540], axis=1)
    r1 = np.linalg.norm(d[:4] - [960, 540], axis=1)
    assert np.all(r0 - r1 > 20)


def test_zero_distortion_is_the_identity():
    pts = np.random.default_rng(0).uniform(0, 1000, (20, 2))
    assert np.allclose(distort_points(pts, SIZE, 0.0), pts)
    img = np.random.default_rng(1).integers(0, 255, (108, 192, 3), dtype=np.uint8)
    assert np.array_equal(distort_image(img, 0.0), img)


@pytest.mark.parametrize("k1,k2", [(-0.12, 0.0), (-0.08, -0.03), (0.05, 0.0)])
def test_picture_moves_where_the_points_say(k1, k2):
    """A small bright dot drawn at an ideal position shows up, after distorting the picture, at
    distort_points of that position (to a tenth of a pixel)."""
    h, w = SIZE[1], SIZE[0]
    ideal = np.array([[300.0, 200.0], [1700.0, 900.0], [960.0, 100.0], [150.0, 950.0]])
    img = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    for x, y in ideal:
        img += np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * 3.0 ** 2)).astype(np.float32)
    out = distort_image(img, k1, k2, border="black")
    want = distort_points(ideal, SIZE, k1, k2)
    for (x, y) in want:
        x0, y0 = int(round(x)), int(round(y))
        win = out[y0 - 12:y0 + 13, x0 - 12:x0 + 13]
        gy, gx = np.mgrid[y0 - 12:y0 + 13, x0 - 12:x0 + 13]
        cx, cy = (win * gx).sum() / win.sum(), (win * gy).sum() / win.sum()
        assert abs(cx - x) < 0.15 and abs(cy - y) < 0.15, (k1, k2, (x, y), (cx, cy))


def test_bad_border_is_refused():
    with pytest.raises(ValueError, match="border"):
        distort_image(np.zeros((10, 10), np.uint8), -0.1, border="wrap")
