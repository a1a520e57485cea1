"""Calibration of the table plane: from corner tags, from hand-given points, failures, persistence."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.calibration import (
    Calibration, CalibrationError, CornerLayout, apply_h, calibrate_from_markers, calibrate_from_points,
    update_calibration,
)
from vision.markers import detect_tags, tag_pose
from vision.synth import CarSpec, SceneSpec, render_scene


def _detections(img):
    return {t.id: t.corners_px for t in detect_tags(img)}


@pytest.fixture(scope="module")
def tilted():
    spec = SceneSpec(tilt_deg=18.0, tilt_azimuth_deg=40.0, yaw_deg=4.0,
                     cars=[CarSpec("car1", 10, 150.0, 200.0, 30.0), CarSpec("car2", 11, 650.0, 230.0, 200.0)])
    img, truth = render_scene(spec, np.random.default_rng(11))
    return spec, img, truth


def test_calibrates_from_corner_tags_to_within_a_millimetre(tilted):
    spec, img, truth = tilted
    cal = calibrate_from_markers(_detections(img), CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    assert cal.rms_px < 1.0 and cal.rms_mm < 1.0
    true_mm_to_px = np.array(truth["mm_to_px"])
    probe = np.array([[100.0, 100.0], [400.0, 225.0], [700.0, 380.0], [20.0, 430.0]])
    err = np.linalg.norm(cal.to_mm(apply_h(true_mm_to_px, probe)) - probe, axis=1)
    assert err.max() < 1.0, err


def test_roof_tags_are_read_on_their_own_plane(tilted):
    """A car's roof tag stands 28 mm up: with an 18 deg tilt, reading it on the mat plane is off by
    several millimetres; the height-aware mapping puts the car where it is."""
    spec, img, truth = tilted
    cal = calibrate_from_markers(_detections(img), CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    tags = {t.id: t for t in detect_tags(img)}
    for car in truth["cars"]:
        flat = tag_pose(tags[car["tag_id"]], cal, 0.0)
        high = tag_pose(tags[car["tag_id"]], cal, 28.0)
        err_flat = np.hypot(*(np.array(flat.centre_mm) - car["centre_mm"]))
        err_high = np.hypot(*(np.array(high.centre_mm) - car["centre_mm"]))
        assert err_high < 1.5, err_high
        assert err_flat > 2 * err_high


def test_missing_corner_is_named_and_last_good_calibration_is_kept(tilted):
    spec, img, _ = tilted
    good = calibrate_from_markers(_detections(img), CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    hidden = SceneSpec(show_corners=(True, True, False, True))
    img2, _ = render_scene(hidden, np.random.default_rng(3))
    with pytest.raises(CalibrationError, match=r"corner markers \[2\] not found"):
        calibrate_from_markers(_detections(img2), CornerLayout(mat_mm=hidden.mat_mm), hidden.image_size)
    kept, msg = update_calibration(good, _detections(img2), CornerLayout(mat_mm=hidden.mat_mm), hidden.image_size)
    assert kept is good
    assert "keeping the last good calibration" in msg and "[2]" in msg
    none, msg = update_calibration(None, {}, CornerLayout(), (1280, 720))
    assert none is None and "no calibration yet" in msg


def test_four_points_by_hand(tilted):
    spec, _, truth = tilted
    w, h = spec.mat_mm
    corners_px = apply_h(np.array(truth["mm_to_px"]), np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    cal = calibrate_from_points(corners_px, spec.mat_mm, spec.image_size)
    assert cal.source == "points" and cal.rms_mm < 1e-3
    mid = cal.to_mm(apply_h(np.array(truth["mm_to_px"]), np.array([[w / 2, h / 2]])))[0]
    assert np.allclose(mid, [w / 2, h / 2], atol=0.01)
    with pytest.raises(CalibrationError, match="mirrored"):
        calibrate_from_points(corners_px[[1, 0, 3, 2]], spec.mat_mm, spec.image_size)
    with pytest.raises(CalibrationError, match="exactly four"):
        calibrate_from_points(corners_px[:3], spec.mat_mm, spec.image_size)
    # a corner typed far off, folding the shape inward, was accepted (rms 0: four points fit any homography)
    for folded, corner in (([(0, 0), (640, 0), (320, 1), (320, 480)], "bottom-right"),
                           ([(100, 100), (500, 100), (300, 120), (120, 400)], "bottom-right"),
                           ([(0, 0), (640, 0), (600, 400), (330, 60)], "bottom-left")):
        with pytest.raises(CalibrationError, match=f"the {corner} corner folds inward"):
            calibrate_from_points(folded, (800.0, 450.0), (640, 480))
    # seen: points for a 1280x720 frame given with a 1x1 image were accepted and saved over a good calibration
    with pytest.raises(CalibrationError, match="top-left corner point 10,10 lies outside the 1x1 frame"):
        calibrate_from_points([(10, 10), (1270, 10), (1270, 710), (10, 710)], (800.0, 450.0), (1, 1))
    with pytest.raises(CalibrationError, match="bottom-right corner point 99999,710 lies outside the 1280x720"):
        calibrate_from_points([(10, 10), (1270, 10), (99999, 710), (10, 710)], (800.0, 450.0), (1280, 720))
    calibrate_from_points([(-40, 10), (1300, 10), (1270, 730), (10, 710)], (800.0, 450.0), (1280, 720))  # a bit out


def test_round_trip_and_malformed_data(tilted):
    spec, img, _ = tilted
    cal = calibrate_from_markers(_detections(img), CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    back = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
    assert np.allclose(back.px_to_mm, cal.px_to_mm) and back.zones == cal.zones
    with pytest.raises(CalibrationError, match="calibrate"):
        Calibration.from_dict({"schema": 1, "px_to_mm": [[1, 0], [0, 1]], "image_size": [1, 1], "mat_mm": [1, 1]})
    with pytest.raises(CalibrationError, match="schema"):
        Calibration.from_dict({"schema": 99})
    good = cal.to_dict()
    for key, value, says in (("image_size", [True, 720], "image_size must be two whole numbers"),
                             ("image_size", [1280.5, 720], "image_size must be two whole numbers"),
                             ("image_size", [1280], "image_size must be two whole numbers"),
                             ("mat_mm", [0, 900], "mat_mm must be two sizes"),
                             ("mat_mm", [float("inf"), 900], "mat_mm must be two sizes"),
                             # seen: an all-zero matrix passed `pitboard check` and read nonsense with rc 0
                             ("px_to_mm", [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "px_to_mm is degenerate"),
                             ("px_to_mm", [[1, 2, 0], [2, 4, 0], [0, 0, 1]], "px_to_mm is degenerate")):
        with pytest.raises(CalibrationError, match=says):
            Calibration.from_dict({**good, key: value})
    import warnings

    with warnings.catch_warnings():  # seen: numpy's overflow warning printed, then a read with rc 0
        warnings.simplefilter("error")
        for lens in ({"k1": 1e308, "k2": 0.0}, {"k1": -50.0, "k2": 0.0}, {"k1": 0.0, "k2": 1e300}):
            with pytest.raises(CalibrationError, match="would fold or fling the picture"):
                Calibration.from_dict({**good, "lens": lens})
    missing = {k: v for k, v in good.items() if k != "px_to_mm"}
    with pytest.raises(CalibrationError, match="the field 'px_to_mm' is missing") as caught:
        Calibration.from_dict(missing)
    assert "KeyError" not in str(caught.value)


def _run(argv):
    """The command line, with a UserError raised rather than printed."""
    from device import cli

    return cli.run(argv)


def test_calibrate_command_saves_and_keeps_last_good(tmp_path, monkeypatch, capsys, tilted):
    from device.cli import UserError

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    _, img, _ = tilted
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), img)
    assert _run(["calibrate", str(good), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    saved = tmp_path / "data" / "table_calibration.json"
    assert out["saved"] == str(saved) and out["rms_mm"] < 1.0
    before = saved.read_text()
    bad = tmp_path / "bad.png"
    cv2.imwrite(str(bad), np.full((720, 1280, 3), 90, np.uint8))
    with pytest.raises(UserError, match="not found.*last good calibration .* is kept"):
        _run(["calibrate", str(bad)])
    assert saved.read_text() == before
    with pytest.raises(UserError, match="does not exist"):
        _run(["calibrate", str(tmp_path / "nope.png")])


@pytest.mark.parametrize("mat", ["99999999x450", "1e308x450", "infx450", "nanx450", "0.1x450"])
def test_a_mat_size_no_calibration_could_load_is_refused_and_the_good_file_kept(tmp_path, monkeypatch, capsys, mat):
    """Seen: `calibrate --mat-mm 99999999x450` said "saved" and wrote over a good calibration a file that
    every later command refused (mat_mm must be 0-10000), and 1e308 or inf one with a NaN matrix."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((720, 1280, 3), 128, np.uint8))
    points = "100,80 1180,80 1180,660 100,660"
    assert _run(["calibrate", str(grey), "--points", points, "--mat-mm", "800x450"]) == 0
    saved = tmp_path / "data" / "table_calibration.json"
    before = saved.read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        _run(["calibrate", str(grey), "--points", points, "--mat-mm", mat])
    assert "each side is a size in mm from 1 to 10000" in capsys.readouterr().err
    assert saved.read_text() == before


def test_a_calibration_that_would_not_load_again_is_not_saved(tmp_path):
    """The last guard: whatever made it, a calibration `load_calibration` would refuse is not written, and
    the file already there is kept."""
    from dataclasses import replace

    from device import table_files as tf

    cal = calibrate_from_points([(100, 80), (1180, 80), (1180, 660), (100, 660)], (800.0, 450.0), (1280, 720))
    path = tmp_path / "cal.json"
    tf.save_calibration(cal, path)
    before = path.read_text()
    with pytest.raises(tf.TableFileError, match=r"not saved; .*cal.json is kept as it was"):
        tf.save_calibration(replace(cal, mat_mm=(1e308, 450.0)), path)
    assert path.read_text() == before
    assert tf.load_calibration(path).mat_mm == (800.0, 450.0)


@pytest.mark.parametrize(("a", "b"), [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)])
def test_two_corner_tags_swapped_are_named(tilted, a, b):
    """Tags 2 and 3 laid on each other's corners: "the bottom-right corner folds inward ... (the points in the
    order ...)", about points the owner never typed.  Which two tags, and where each goes, is said."""
    spec, img, _ = tilted
    det = _detections(img)
    det[a], det[b] = det[b], det[a]
    with pytest.raises(CalibrationError) as refused:
        calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    lo, hi = min(a, b), max(a, b)
    assert str(refused.value) == (f"corner tags {lo} and {hi} look swapped: tag {lo} goes on the mat's {names[lo]} "
                                  f"corner and tag {hi} on its {names[hi]} corner (the sheet prints where each goes); "
                                  "exchange them and try again")


def test_a_mat_seen_turned_round_is_no_swap(tilted):
    """A camera mounted the other way round sees the tags turned, not swapped: it calibrates."""
    spec, img, _ = tilted
    turned = cv2.rotate(img, cv2.ROTATE_180)
    cal = calibrate_from_markers(_detections(turned), CornerLayout(mat_mm=spec.mat_mm), spec.image_size)
    assert cal.rms_mm < 1.0


@pytest.mark.parametrize("polygon, said", [
    ("[[0, 0], [nan, 0], [100, 100]]", "not a place on the table"),
    ("[[0, 0], [inf, 0], [100, 100]]", "not a place on the table"),
    ("[[0, 0], [1e9, 0], [1e9, 1e9]]", "not a place on the table"),
    ("[[0, 0], [5000, 0], [5000, 3000]]", "at most 1000 mm across"),
])
def test_a_zone_no_table_has_is_refused_and_the_good_calibration_kept(tmp_path, monkeypatch, polygon, said):
    """Seen: a zones file with a NaN point replaced a good calibration by one holding NaN and then crashed
    (``cannot convert float NaN to integer``); one 1e9 mm wide asked for 888 PiB."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((720, 1280, 3), 128, np.uint8))
    points = "100,80 1180,80 1180,660 100,660"
    assert _run(["calibrate", str(grey), "--points", points]) == 0
    saved = tmp_path / "data" / "table_calibration.json"
    before = saved.read_text()
    zones = tmp_path / "zones.toml"
    zones.write_text(f'[[zones]]\nname = "p1"\nkind = "tokens"\npolygon = {polygon}\n')
    from device.cli import UserError

    with pytest.raises(UserError) as refused:
        _run(["calibrate", str(grey), "--points", points, "--zones", str(zones)])
    err = str(refused.value)
    assert said in err and "zone 'p1'" in err and str(zones) in err, err
    assert saved.read_text() == before
    # the same zone written into a calibration file by hand is refused when the file is read
    data = json.loads(before)
    data["zones"] = [{"name": "p1", "kind": "tokens", "polygon": json.loads(polygon.replace("nan", "NaN")
                                                                                 .replace("inf", "Infinity"))}]
    with pytest.raises(CalibrationError, match=said):
        Calibration.from_dict(data)


def test_two_zones_with_one_name_are_refused(tmp_path):
    from device import table_files as tf

    zones = tmp_path / "zones.toml"
    zones.write_text('[[zones]]\nname = "p1"\nkind = "tokens"\npolygon = [[0, 0], [100, 0], [100, 100]]\n'
                     '[[zones]]\nname = "p1"\nkind = "tokens"\npolygon = [[200, 0], [300, 0], [300, 100]]\n')
    with pytest.raises(tf.TableFileError, match="two zones are called 'p1'"):
        tf.load_zones(zones)


def test_calibrate_says_how_large_a_die_is_at_the_tray(tmp_path, monkeypatch, capsys):
    """An audit: a calibration from a 640x360 frame said "1.49 mm/px at the mat centre" and nothing of dice that
    came out ~11 px, under what the reader reads well (20 px); the maker learnt it at the table."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((360, 640, 3), 128, np.uint8))
    assert _run(["calibrate", str(small), "--points", "50,40 590,40 590,330 50,330", "--mat-mm", "800x450"]) == 0
    said = capsys.readouterr().out
    assert "dice: a 16 mm die is 11 px at the tray, and dice under 20 px are often not read: mount the camera lower" \
        in said
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), np.full((1080, 1920, 3), 128, np.uint8))
    assert _run(["calibrate", str(big), "--points", "100,80 1820,80 1820,1000 100,1000", "--mat-mm", "800x450",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 33 <= out["die_px_16mm"] <= 35  # 1720 px for 800 mm: 2.15 px a mm


@pytest.mark.parametrize("text, said", [
    ("zones = []\n", "zones = [] names no zone"),
    ('[[zones]]\nname = "p1"\nkind = "tokens"\ncolour = "red"\npolygon = [[0, 0], [100, 0], [100, 100]]\n',
     "zone 'p1': unknown key 'colour'"),
    ('[[zones]]\nnmae = "p1"\nkind = "tokens"\npolygon = [[0, 0], [100, 0], [100, 100]]\n',
     "zone 1: unknown key 'nmae' (did you mean 'name'?)"),
    ('[[zones]]\nname = "p1"\nkind = "tokens"\npolygon = "square"\n',
     "zone 'p1': polygon must be a list of [x_mm, y_mm] points"),
])
def test_a_zones_file_names_what_is_wrong_with_it(tmp_path, text: str, said: str) -> None:
    """An audit: zones = [] saved a calibration with no tray zone (and check said "the table is read"); an unknown
    key was ignored; a misspelt name said "is malformed ('name')"; polygon = "square" "not enough values to
    unpack"."""
    from device import table_files as tf

    zones = tmp_path / "zones.toml"
    zones.write_text(text, encoding="utf-8")
    with pytest.raises(tf.TableFileError) as caught:
        tf.load_zones(zones)
    assert said in str(caught.value) and str(zones) in str(caught.value), str(caught.value)
    if "nmae" in text:  # the same zone in a calibration file: Zone.from_dict names the missing key
        from vision.calibration import Zone

        with pytest.raises(CalibrationError, match="has no name; each zone needs name, kind"):
            Zone.from_dict({"nmae": "p1", "kind": "tokens", "polygon": [[0, 0], [100, 0], [100, 100]]})


def test_a_calibration_from_a_newer_pitboard_is_never_written_over(tmp_path, monkeypatch):
    """A review: `calibrate` warned "written by a newer Pitboard ... upgrade Pitboard to use it (the file is left
    as it is)", then wrote over it with this Pitboard's schema (so did the phone's Calibrate page)."""
    from device import table_files as tf
    from device.cli import UserError

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((720, 1280, 3), 128, np.uint8))
    newer = tmp_path / "cal.json"
    newer.write_text(json.dumps({"schema": 7, "px_to_mm": [[1, 0, 0]] * 3}))
    before = newer.read_text()
    with pytest.raises(UserError) as refused:
        _run(["calibrate", str(grey), "--points", "100,80 1180,80 1180,660 100,660", "--out", str(newer)])
    assert "newer Pitboard" in str(refused.value) and "give --out another file name" in str(refused.value)
    with pytest.raises(tf.NewerCalibrationError, match="it is not written over"):
        tf.save_calibration(Calibration(px_to_mm=np.eye(3), image_size=(64, 48), mat_mm=(800.0, 450.0)), newer)
    assert newer.read_text() == before
