"""The appliance prepares the token zones' lens maps when it loads a calibration (``vision.tokens.prepare``);
a damaged zone must not stop it from starting: the frame read names the problem, as before."""

from __future__ import annotations

import numpy as np

from device.camera_input import VisionReader
from vision.calibration import Calibration, Zone
from vision.table import default_config


def test_a_zone_with_a_point_at_nan_does_not_stop_the_reader_from_starting() -> None:
    h = np.array([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 1.0]])
    zone = Zone("p1", "tokens", ((10.0, 10.0), (60.0, float("nan")), (60.0, 60.0)))
    cal = Calibration(h, (1280, 720), (640.0, 360.0), (zone,))
    reader = VisionReader(calibration=cal, table_config=default_config())  # raised here before the guard
    assert reader.calibration is cal
