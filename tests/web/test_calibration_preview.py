"""The Calibrate page's preview: the names drawn on it read at phone width (a 2304-px frame shown ~360 px wide
made names drawn for a 640-px picture ~2 px tall)."""

from __future__ import annotations

import numpy as np

from device.web.calibrate import draw_calibration
from vision.calibration import Calibration, Zone


def _calibration(width: int, height: int) -> Calibration:
    """A mat of 900 x 500 mm filling the frame; one token zone p1 of 200 x 150 mm in its middle."""
    scale = np.diag([900 / width, 500 / height, 1.0])
    zone = Zone("p1", "tokens", ((350.0, 175.0), (550.0, 175.0), (550.0, 325.0), (350.0, 325.0)))
    return Calibration(px_to_mm=scale, image_size=(width, height), mat_mm=(900.0, 500.0), zones=(zone,))


def _name_height(width: int, height: int) -> float:
    """The drawn height of the zone's name, as a share of the frame's width."""
    drawn = draw_calibration(np.zeros((height, width, 3), np.uint8), _calibration(width, height))
    x0, x1 = int(width * 350 / 900) + 8, int(width * 550 / 900) - 8  # inside the zone's outline
    y0, y1 = int(height * 175 / 500) + 8, int(height * 325 / 500) - 8
    name = np.all(drawn[y0:y1, x0:x1] == (0, 200, 255), axis=2)
    rows = np.nonzero(name.any(axis=1))[0]
    assert rows.size, "the zone's name is not drawn inside it"
    return float(rows[-1] - rows[0] + 1) / width


def test_zone_names_keep_their_size_against_the_frame() -> None:
    small, large = _name_height(640, 360), _name_height(2304, 1296)
    assert large >= 0.012  # at 360 px wide on the phone: 4.3 px or more
    assert abs(large - small) <= 0.3 * small  # the same share of the frame, whatever its size
