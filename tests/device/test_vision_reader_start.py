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


def test_the_appliance_counts_a_zone_again_only_when_it_changed_and_afresh_after_teaching() -> None:
    from dataclasses import replace

    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import SceneSpec, render_scene

    spec = SceneSpec(tokens={"p1": 3})
    img, _ = render_scene(spec, np.random.default_rng(14))
    det = {t.id: t.corners_px for t in detect_tags(img)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    reader = VisionReader(calibration=cal, table_config=default_config())
    assert reader.read_table_fresh(img).tokens["p1"] == 3 and reader._counts is None  # the web's: no memo
    assert reader.read_table(img).tokens["p1"] == 3
    assert reader.read_table(img).tokens["p1"] == 3
    assert reader._counts.counted == 4  # the second frame's zones came from the memo
    reader.table_config = replace(reader.table_config, tokens=replace(reader.table_config.tokens))  # taught
    assert reader.read_table(img).tokens["p1"] == 3 and reader._counts.counted == 4  # a new memo: counted afresh
