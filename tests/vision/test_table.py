"""Reading the table: cars, tagged and untagged templates, attachment, reverse, hands, tokens."""

from __future__ import annotations

import json
import math
import re

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.calibration import CornerLayout, calibrate_from_markers
from vision.markers import detect_tags
from vision.synth import CarSpec, DieSpec, HandSpec, SceneSpec, TemplateSpec, render_scene
from vision.table import ConfigError, config_from_dict, default_config, default_tables, merge, read_table, taught_outline
from vision.tokens import TokenCounter

TAUGHT = ("turn", "hard", "veer", "swerve", "long_straight", "short_straight", "gentle", "hairpin",
          "medium_straight")


def _hdiff(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _render(spec: SceneSpec, seed: int):
    img, truth = render_scene(spec, np.random.default_rng(seed))
    det = {t.id: t.corners_px for t in detect_tags(img)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    return img, truth, cal


@pytest.fixture(scope="module")
def outlines():
    """The owner teaches each template once: alone, against the front of one tagged car."""
    cfg = default_config()
    out = {}
    for i, name in enumerate(TAUGHT):
        spec = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                         templates=[TemplateSpec(name, "right", attach_to="car1", tagged=False)], tilt_deg=3.0)
        img, _, cal = _render(spec, 100 + i)
        out[name] = taught_outline(img, cal, cfg, name)
    return out


@pytest.fixture(scope="module")
def cfg(outlines):
    return default_config(outlines)


def test_tagged_template_against_the_front(cfg):
    spec = SceneSpec(tilt_deg=15.0, tilt_azimuth_deg=200.0,
                     cars=[CarSpec("car1", 10, 300.0, 220.0, 20.0), CarSpec("car2", 11, 600.0, 170.0, 250.0)],
                     templates=[TemplateSpec("turn", "left", attach_to="car1", tagged=True)])
    img, truth, cal = _render(spec, 1)
    obs = read_table(img, cal, cfg)
    assert {c.id for c in obs.cars} == {"car1", "car2"}
    (t,) = obs.templates
    tt = truth["templates"][0]
    assert (t.name, t.hand, t.attached_to, t.edge, t.source) == ("turn", "left", "car1", "front", "tag")
    assert np.hypot(*(np.array(t.centre_mm) - tt["centre_mm"])) < 2.0
    assert _hdiff(t.heading_deg, tt["heading_deg"]) < 1.5


def test_reverse_template_against_the_rear_edge_in_gear_1(cfg):
    """Reverse: any template permitted in gear 1 placed centred on the REAR edge.  Vision reports
    edge "rear", the car, and the direction of travel (backwards)."""
    spec = SceneSpec(tilt_deg=10.0, cars=[CarSpec("car1", 10, 420.0, 220.0, 90.0)],
                     templates=[TemplateSpec("short_straight", None, attach_to="car1", edge="rear", tagged=True),
                                ])
    img, truth, cal = _render(spec, 2)
    (t,) = read_table(img, cal, cfg).templates
    assert (t.name, t.attached_to, t.edge) == ("short_straight", "car1", "rear")
    assert _hdiff(t.heading_deg, 270.0) < 2.0  # car faces 90 deg; it reverses towards 270
    # the same, untagged and curving: the hand is read in the direction of travel
    spec.templates = [TemplateSpec("gentle", "right", attach_to="car1", edge="rear", tagged=False)]
    img, truth, cal = _render(spec, 3)
    (t,) = read_table(img, cal, cfg).templates
    assert (t.name, t.hand, t.attached_to, t.edge, t.source) == ("gentle", "right", "car1", "rear", "outline")


def test_not_permitted_pick_is_flagged_through_the_rules_engine(cfg):
    rules = pytest.importorskip("games.gaslands.rules", reason="the Gaslands rules engine is not importable yet")
    if not hasattr(rules, "template_status"):
        pytest.skip("games.gaslands.rules.template_status(template, gear, vehicle_type, chart) not provided yet")
    chart_mod = pytest.importorskip("games.gaslands.chart")
    spec = SceneSpec(cars=[CarSpec("car1", 10, 300.0, 220.0, 0.0)],
                     templates=[TemplateSpec("turn", "right", attach_to="car1", tagged=True)])
    img, _, cal = _render(spec, 4)
    (t,) = read_table(img, cal, cfg).templates
    assert (t.name, t.attached_to, t.edge) == ("turn", "car1", "front")
    chart = chart_mod.default_chart()
    import inspect

    takes_vehicle = "vehicle_type" in inspect.signature(rules.template_status).parameters

    def status(name: str, gear: int) -> str:
        v = rules.template_status(name, gear, "car", chart) if takes_vehicle else rules.template_status(name, gear, chart)
        return str(getattr(v, "value", v))

    assert status(t.name, 5) == "not_permitted"  # Turn in gear 5: not permitted [seed]
    assert status(t.name, 1) != "not_permitted"


def test_template_half_under_a_hand_is_not_guessed(cfg):
    """Untagged and half covered: no report (or, if one is made, an honest one).  Tagged with the
    tag in view: reported by its tag, correctly."""
    car = CarSpec("car1", 10, 250.0, 220.0, 0.0)
    for seed, tagged in ((5, False), (6, True)):
        spec = SceneSpec(cars=[car], templates=[TemplateSpec("long_straight", None, attach_to="car1", tagged=tagged)],
                         hands=[HandSpec(430.0, 215.0, 0.0, 1.0)], tilt_deg=8.0)
        img, truth, cal = _render(spec, seed)
        assert truth["templates"][0]["hand_covered"] > 0.25
        obs = read_table(img, cal, cfg)
        for t in obs.templates:
            assert t.name == "long_straight" and t.attached_to == "car1"
            assert np.hypot(*(np.array(t.centre_mm) - truth["templates"][0]["centre_mm"])) < 3.0
        if tagged:
            assert len(obs.templates) == 1 and obs.templates[0].source == "tag"


def test_untagged_templates_by_taught_outline(cfg):
    spec = SceneSpec(tilt_deg=12.0, tilt_azimuth_deg=300.0,
                     cars=[CarSpec("car1", 10, 200.0, 200.0, 10.0), CarSpec("car2", 11, 560.0, 260.0, 160.0)],
                     templates=[TemplateSpec("swerve", "left", attach_to="car1", tagged=False),
                                TemplateSpec("hard", "right", attach_to="car2", tagged=False)])
    img, truth, cal = _render(spec, 7)
    obs = read_table(img, cal, cfg)
    got = sorted((t.name, t.hand, t.attached_to, t.edge, t.source) for t in obs.templates)
    assert got == [("hard", "right", "car2", "front", "outline"), ("swerve", "left", "car1", "front", "outline")]
    for t in obs.templates:
        tt = next(x for x in truth["templates"] if x["name"] == t.name)
        assert np.hypot(*(np.array(t.centre_mm) - tt["centre_mm"])) < 4.0
        assert _hdiff(t.heading_deg, tt["heading_deg"]) < 4.0


def test_no_template_reported_where_none_lies(cfg):
    for seed in (8, 9, 10):
        rng = np.random.default_rng(seed)
        spec = SceneSpec(tilt_deg=float(rng.uniform(0, 20)), tilt_azimuth_deg=float(rng.uniform(0, 360)),
                         cars=[CarSpec("car1", 10, 200.0, 200.0, float(rng.uniform(0, 360))),
                               CarSpec("car2", 11, 420.0, 240.0, float(rng.uniform(0, 360))),
                               CarSpec("car3", 12, 620.0, 200.0, float(rng.uniform(0, 360)))],
                         tokens={"p1": 5, "p2": 3}, dice=[DieSpec("d6", 6), DieSpec("skid", "spin")],
                         hands=[HandSpec(float(rng.uniform(150, 650)), float(rng.uniform(150, 300)),
                                         float(rng.uniform(0, 360)))])
        img, _, cal = _render(spec, seed)
        assert read_table(img, cal, cfg).templates == ()


def test_touching_tokens_are_counted_exactly(cfg):
    spec = SceneSpec(tilt_deg=14.0, tilt_azimuth_deg=120.0, tokens={"p1": 8, "p2": 6, "p3": 1, "p4": 0})
    for seed in (11, 12):
        img, truth, cal = _render(spec, seed)
        assert read_table(img, cal, cfg).tokens == {"p1": 8, "p2": 6, "p3": 1, "p4": 0}


def test_tokens_under_a_hand_are_not_counted(cfg):
    spec = SceneSpec(tokens={"p1": 4, "p2": 2}, hands=[HandSpec(140.0, 380.0, 250.0)])
    img, truth, cal = _render(spec, 13)
    assert truth["token_zone_covered"]["p1"] > 0
    tokens = read_table(img, cal, cfg).tokens
    assert tokens["p1"] is None and tokens["p2"] == 2


def test_token_counter_waits_for_a_still_zone(cfg):
    spec = SceneSpec(tokens={"p1": 3, "p2": 5})
    img, _, cal = _render(spec, 14)
    moved = SceneSpec(tokens={"p1": 4, "p2": 5})
    img2, _, _ = _render(moved, 15)
    counter = TokenCounter(cal, cfg.tokens, still_frames=3)
    assert counter.update(img) == {"p1": None, "p2": None, "p3": None, "p4": None}
    assert counter.update(img)["p1"] is None  # still for one frame only
    assert counter.update(img)["p1"] == 3
    assert counter.update(img2)["p1"] is None  # the whole picture changed: nothing is still
    obs = read_table(img2, cal, cfg, token_counter=counter)
    assert obs.tokens["p1"] is None
    assert read_table(img2, cal, cfg, token_counter=counter).tokens["p1"] == 4


def test_wrong_frame_size_is_refused(cfg):
    spec = SceneSpec()
    img, _, cal = _render(spec, 16)
    with pytest.raises(ValueError, match="calibrate at this resolution"):
        read_table(cv2.resize(img, (640, 360)), cal, cfg)


def test_config_overrides_are_checked():
    base = default_tables()
    with pytest.raises(ConfigError, match="unknown table config key 'tokens.colour'"):
        merge(base, {"tokens": {"colour": "red"}})
    # where it was meant (a bad-input audit: a top-level car_size_mm was "unknown" with no word of [tags])
    with pytest.raises(ConfigError, match=r"unknown table config key 'car_size_mm' \(it belongs under \[tags\]\)"):
        merge(base, {"car_size_mm": 20.0})
    with pytest.raises(ConfigError, match=r"'tags.car_size' \(did you mean 'tags.car_size_mm'\?\)"):
        merge(base, {"tags": {"car_size": 20.0}})
    mine = merge(base, {"tags": {"cars": {"20": "interceptor"}}, "cars": {"length_mm": 75.0}})
    cfg = config_from_dict(mine)
    assert cfg.car_tags == {20: "interceptor"} and cfg.cars.length_mm == 75.0
    # a value of the wrong kind names its key (an audit: "table config is malformed (could not convert string to
    # float: 'big')", "float() argument must be a string or a real number, not 'list'")
    for over, said in [({"tags": {"car_size_mm": "big"}}, "tags.car_size_mm must be a number, got 'big'"),
                       ({"tags": {"car_size_mm": [20]}}, "tags.car_size_mm must be a number, got [20]"),
                       ({"tokens": {"hue_min": 20.5}}, "tokens.hue_min must be a whole number, got 20.5"),
                       ({"templates_look": {"min_iou": True}}, "templates_look.min_iou must be a number, got True")]:
        with pytest.raises(ConfigError, match=re.escape(said)):
            config_from_dict(merge(base, over))
    with pytest.raises(ConfigError, match="more than one thing"):
        config_from_dict(merge(base, {"tags": {"cars": {"30": "oops"}}}))


# --------------------------------------------------------------------------------------------------
# Commands


def _run(argv):
    """The command line, with a UserError raised rather than printed."""
    from device import cli

    return cli.run(argv)


def test_markers_sheet_prints_at_true_size(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    assert _run(["markers", "--out", str(tmp_path / "tags.png"), "--dpi", "200"]) == 0
    page = Image.open(tmp_path / "tags.png")
    assert page.size == (round(210 / 25.4 * 200), round(297 / 25.4 * 200))
    assert round(page.info["dpi"][0]) == 200
    # the corner tag on the page is 50 mm wide at 200 dpi, and decodes
    arr = np.array(page.convert("L"))
    found = detect_tags(cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR))
    corner = next(t for t in found if t.id == 0)
    side_px = np.linalg.norm(corner.corners_px[1] - corner.corners_px[0])
    assert abs(side_px / (200 / 25.4) - 50.0) < 1.0
    assert {0, 1, 2, 3, 10} <= {t.id for t in found}
    assert _run(["markers", "--out", str(tmp_path / "tags.pdf")]) == 0
    assert (tmp_path / "tags.pdf").read_bytes()[:4] == b"%PDF"


def test_vision_read_and_teach_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    teach = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                      templates=[TemplateSpec("hairpin", "right", attach_to="car1", tagged=False)])
    img, _, _ = _render(teach, 17)
    cv2.imwrite(str(tmp_path / "teach.png"), img)
    assert _run(["calibrate", str(tmp_path / "teach.png")]) == 0
    assert _run(["teach", "template", "hairpin", "--image", str(tmp_path / "teach.png")]) == 0
    assert "[templates.hairpin]" in (tmp_path / "data" / "template_outlines.toml").read_text()
    play = SceneSpec(cars=[CarSpec("car2", 11, 300.0, 240.0, 180.0)],
                     templates=[TemplateSpec("hairpin", "left", attach_to="car2", tagged=False)], tokens={"p2": 2})
    img2, _, _ = _render(play, 18)
    cv2.imwrite(str(tmp_path / "play.png"), img2)
    capsys.readouterr()
    assert _run(["vision", "read", str(tmp_path / "play.png"), "--calibration",
                 str(tmp_path / "data" / "table_calibration.json"), "--json"]) == 0
    said = capsys.readouterr()
    out = json.loads(said.out.strip().splitlines()[-1])
    assert out["cars"][0]["id"] == "car2" and out["ms"] > 0
    # no colour taught: golden tokens are assumed, and the owner is told so (tokens of another colour would
    # read null in every zone with no why)
    assert "token colour was never taught" in said.err and "pitboard teach tokens" in out["warnings"][0]
    (t,) = out["templates"]
    assert (t["name"], t["hand"], t["attached_to"], t["edge"]) == ("hairpin", "left", "car2", "front")
    assert out["tokens"]["p2"] == 2
    from device.cli import UserError

    empty, _, _ = _render(SceneSpec(), 19)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    with pytest.raises(UserError, match="exactly one tagged car"):
        _run(["teach", "template", "turn", "--image", str(tmp_path / "empty.png")])


def test_bench_table_prints_the_figures(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    from device.cli_table import run_bench

    res = run_bench(2, 5, sizes=((1280, 720),))
    for key in ("tagged", "untagged", "false_templates", "tokens", "ms_per_frame", "peak_rss_mb"):
        assert key in res
    assert res["ms_per_frame"]["1280x720"]["frames"] == 2
    assert math.isfinite(res["peak_rss_mb"])


def test_owner_files_override_the_defaults(tmp_path, monkeypatch):
    from device import table_files as tf

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path))
    (tmp_path / "table.toml").write_text('[tags.cars]\n21 = "war_rig"\n[tokens]\ndiameter_mm = 25.0\n')
    cfg = tf.load_table_config()
    assert cfg.car_tags == {21: "war_rig"} and cfg.tokens.diameter_mm == 25.0 and cfg.outlines == {}
    (tmp_path / "table.toml").write_text('[tokens]\ndiameter = 25.0\n')
    with pytest.raises(tf.TableFileError, match="unknown table config key 'tokens.diameter'"):
        tf.load_table_config()
    with pytest.raises(tf.TableFileError, match="no calibration"):
        tf.load_calibration()


@pytest.mark.parametrize("name", ["gentle", "turn", "medium_straight"])
def test_a_template_taught_with_its_tag_on_keeps_its_whole_outline(name):
    """`teach template gentle` on a tagged Gentle (the sheet says to stick tags on templates) saved 1,790
    mm^2 of its 4,111: the tag's paper, across the narrow acrylic, cut it in two and the larger half was
    taught, after which no untagged Gentle was ever read.  The tag and its paper are part of the template."""
    import cv2

    cfg = default_config()
    areas = {}
    for tagged in (False, True):
        spec = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                         templates=[TemplateSpec(name, "right", attach_to="car1", tagged=tagged)], tilt_deg=3.0)
        img, _, cal = _render(spec, 100)
        areas[tagged] = cv2.contourArea(taught_outline(img, cal, cfg, name).outline.astype(np.float32))
    shipped = cv2.contourArea(cfg.shapes[name].outline.astype(np.float32))
    assert abs(areas[False] / shipped - 1) < 0.03
    assert abs(areas[True] / shipped - 1) < 0.04, (areas, shipped)


def test_teaching_a_template_on_a_frame_of_another_size_says_so(cfg):
    """Seen on the Teach page: a frame of another size than the calibration's was answered "teaching needs exactly
    one tagged car on the mat, found 0" with the car in plain view. It names the two sizes."""
    import cv2

    spec = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                     templates=[TemplateSpec("gentle", "right", attach_to="car1", tagged=False)])
    img, _, cal = _render(spec, 7)
    smaller = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2))
    with pytest.raises(ValueError, match=r"the frame is 640x360 but the table was calibrated on 1280x720 frames"):
        taught_outline(smaller, cal, cfg, "gentle")
