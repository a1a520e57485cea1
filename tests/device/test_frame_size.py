"""Frames of another size than the calibration's: what the screens say ("table not read: ...").

An audit: the reader's own words, "frame is 1920x1080 but the calibration was made at 1280x720; calibrate at
this resolution", named neither how to calibrate from the appliance nor the other way, the camera's size."""

from __future__ import annotations

import numpy as np
import pytest

from device.camera_input import VisionReader
from vision.calibration import Calibration
from vision.table import default_config

CAL = Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720), mat_mm=(640.0, 360.0))
SAID = ("the camera gives 1920x1080 frames, the calibration is for 1280x720: calibrate again from the phone, or "
        "set [camera] width = 1280, height = 720")


@pytest.mark.parametrize("read", ["read_table", "read_table_fresh"])
def test_a_frame_of_another_size_names_both_sizes_and_both_ways_out(read: str) -> None:
    reader = VisionReader(calibration=CAL, table_config=default_config())
    with pytest.raises(ValueError) as refused:
        getattr(reader, read)(np.zeros((1080, 1920, 3), np.uint8))
    assert str(refused.value) == SAID
    assert getattr(reader, read)(np.zeros((720, 1280, 3), np.uint8)) is not None  # the calibration's size: read


def test_the_screens_say_it_in_those_words(tmp_path) -> None:
    from test_app_camera_dice import road_app_on_still

    from vision.dice import FaceLibrary

    reader = VisionReader(calibration=CAL, table_config=default_config(), faces=FaceLibrary())
    with road_app_on_still(tmp_path, np.zeros((1080, 1920, 3), np.uint8), reader) as (app, clock):
        for _ in range(12):
            clock.now += 0.1
            app.step(clock.now)
        assert [n.text for n in app.notices if n.kind == "vision"] == [f"table not read: {SAID}"]
