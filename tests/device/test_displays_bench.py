"""The screen benchmark's byte figures (deterministic: bytes, not time) and the shape of its report."""

from __future__ import annotations

import pytest

from device.bench_device import full_frame_bytes, measure_press_to_frame, measure_update_bytes, run_device_bench

pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")


def test_full_frames_are_what_luma_sends():
    full = full_frame_bytes("ssd1306")
    assert (full["bytes"], full["transfers"]) == (6 + 1024, 2)
    assert full["i2c_ms_at_400khz"] == round((1030 + 4) * 9 / 400, 3)
    assert full_frame_bytes("sh1106")["bytes"] == 8 * (3 + 128)


def test_a_hazard_added_sends_at_most_a_quarter_of_a_frame():
    result = measure_update_bytes()
    assert result["hazard_added_ratio_ok"] and result["hazard_added_ratio"] <= 0.25
    for driver in ("ssd1306", "sh1106"):
        row = result[f"update_bytes_{driver}"]
        assert 0 < row["hazard_added"]["bytes"] < row["full_frame"]["bytes"]


def test_press_to_frame_report_names_what_it_timed():
    result = measure_press_to_frame(presses=4)
    assert result["press_to_frame_presses"] == 4
    assert set(result["press_to_frame_stage_ms_median"]) == {"apply", "views", "render", "send"}
    assert "recording serial" in result["press_to_frame_mode"]


def test_run_device_bench_is_json():
    import json

    json.dumps(run_device_bench(presses=2))
