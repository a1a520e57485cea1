"""A car's or template's tag that measures far from its printed size is not used (a die read as a tag,
a sheet printed "fit to page", a wrong size in the config) -- and is named, not dropped without a word:
``read_table`` lists it in ``misfits`` and ``pitboard vision read`` prints why it was not used."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision.calibration import CornerLayout, calibrate_from_markers
from vision.markers import detect_tags
from vision.synth import CarSpec, SceneSpec, TemplateSpec, render_scene
from vision.table import config_from_dict, default_config, default_tables, merge, read_table


def _scene(seed: int = 3):
    spec = SceneSpec(cars=[CarSpec("car1", 10, 300.0, 220.0, 20.0)],
                     templates=[TemplateSpec("turn", "left", attach_to="car1", tagged=True)])
    img, _ = render_scene(spec, np.random.default_rng(seed))
    det = {t.id: t.corners_px for t in detect_tags(img)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    return img, cal


def test_tags_of_their_printed_size_are_used_and_none_is_a_misfit() -> None:
    img, cal = _scene()
    obs = read_table(img, cal, default_config())
    assert [c.id for c in obs.cars] == ["car1"] and [t.attached_to for t in obs.templates] == ["car1"]
    assert obs.misfits == ()


def test_a_car_tag_of_the_wrong_size_is_named_with_its_size() -> None:
    img, cal = _scene()
    cfg = config_from_dict(merge(default_tables(), {"tags": {"car_size_mm": 28.0}}))  # printed at 20 mm
    obs = read_table(img, cal, cfg)
    assert obs.cars == ()
    (m,) = [m for m in obs.misfits if m.tag_id == 10]
    assert m.what == "car car1" and m.car_id == "car1" and m.printed_mm == 28.0 and abs(m.measured_mm - 20.0) < 1.0
    car_px = cal.to_px(np.array([[300.0, 220.0]]))[0]  # the car's centre on the mat, in the frame
    assert np.hypot(*(np.array(m.centre_px) - car_px)) < 40  # its roof tag, seen from above
    assert "tag 10 (car car1) measures 20 mm, not 28 mm" in m.describe()
    assert "a die read as a tag, or the sheet printed at a different size" in m.describe()
    assert obs.to_dict()["misfit_tags"][0]["tag_id"] == 10


def test_vision_read_prints_the_tag_it_did_not_use(tmp_path, monkeypatch, capsys) -> None:
    from device import cli

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    img, _ = _scene()
    cv2.imwrite(str(tmp_path / "play.png"), img)
    assert cli.run(["calibrate", str(tmp_path / "play.png")]) == 0
    conf = tmp_path / "tables.toml"
    conf.write_text("[tags]\ncar_size_mm = 28.0\n")
    calib = str(tmp_path / "data" / "table_calibration.json")
    capsys.readouterr()
    assert cli.run(["vision", "read", str(tmp_path / "play.png"), "--calibration", calib, "--config", str(conf)]) == 0
    out = capsys.readouterr().out
    assert "0 cars" in out and "not used: tag 10 (car car1) measures 20 mm, not 28 mm" in out
    assert cli.run(["vision", "read", str(tmp_path / "play.png"), "--calibration", calib, "--config", str(conf),
                    "--json"]) == 0
    d = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert d["misfit_tags"][0]["what"] == "car car1"
    # a bad image in a batch is named and the others still read (the batch stopped at it: a bad-input audit)
    (tmp_path / "bad.png").write_text("not an image")
    assert cli.run(["vision", "read", str(tmp_path / "bad.png"), str(tmp_path / "play.png"), "--calibration", calib,
                    "--config", str(conf)]) == 2
    out, err = capsys.readouterr()
    assert "bad.png" in err and "1 of 2 images could not be read" in err and "0 cars" in out
    # so is a frame that loads but is not the calibrated camera's size (it stopped the batch the same way)
    cv2.imwrite(str(tmp_path / "half.png"), cv2.resize(img, None, fx=0.5, fy=0.5))
    assert cli.run(["vision", "read", str(tmp_path / "half.png"), str(tmp_path / "play.png"), "--calibration", calib,
                    "--config", str(conf), "--json"]) == 2
    out, err = capsys.readouterr()
    lines = [json.loads(x) for x in out.strip().splitlines()]
    assert lines[0]["image"].endswith("half.png") and "calibration was made at" in lines[0]["error"]
    assert lines[1]["misfit_tags"][0]["what"] == "car car1" and "1 of 2 images could not be read" in err


def test_a_tag_size_of_zero_in_the_config_is_refused_naming_the_key() -> None:
    import pytest

    from vision.table import ConfigError

    for key, section in (("car_size_mm", "tags"), ("corner_size_mm", "tags"), ("diameter_mm", "tokens"),
                         ("length_mm", "cars"), ("width_mm", "cars")):
        with pytest.raises(ConfigError, match=rf"{section}\.{key} must be a size in mm above 0, got 0.0"):
            config_from_dict(merge(default_tables(), {section: {key: 0}}))
    with pytest.raises(ConfigError, match=r"tags\.car_size_mm must be a size in mm above 0, got nan"):
        config_from_dict(merge(default_tables(), {"tags": {"car_size_mm": float("nan")}}))


def test_the_appliance_names_the_misfit_car_tag_on_the_active_players_screen() -> None:
    """What ``read_table`` reports is what the camera's side of the loop reads (not a hand-made double)."""
    from device.camera_input import CameraInput
    from games.core import Prompt

    img, cal = _scene()
    obs = read_table(img, cal, config_from_dict(merge(default_tables(), {"tags": {"car_size_mm": 28.0}})))
    notices: list[tuple[str, str, str | None]] = []
    cam = CameraInput(reader=None, settle_frames=3)  # type: ignore[arg-type]
    prompt = Prompt("Ann · car1: pick a template", "1.1 choose template", "template", player="Ann", vehicle="car1")
    for _ in range(3):
        cam._car_unseen(obs, prompt, lambda kind, text, player, **kw: notices.append((kind, text, player)),
                        lambda kind: None, [], 0.0)
    assert notices == [("car_unseen", "car not seen: the tag on car1 reads 20 mm, not 28", "Ann")]
