"""The table scene renderer: sizes, determinism, ground truth geometry, and its independence."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.synth import CarSpec, DieSpec, HandSpec, SceneSpec, TemplateSpec, random_scene, render_scene


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_renders_at_the_requested_size_with_json_truth(size):
    spec = SceneSpec(image_size=size, tilt_deg=20.0, cars=[CarSpec("car1", 10, 300.0, 200.0, 45.0)],
                     templates=[TemplateSpec("veer", "left", attach_to="car1")], tokens={"p1": 3},
                     dice=[DieSpec("d6", 4), DieSpec("skid", "hazard")], hands=[HandSpec(600.0, 300.0)])
    img, truth = render_scene(spec, np.random.default_rng(0))
    assert img.shape == (size[1], size[0], 3) and img.dtype == np.uint8
    back = json.loads(json.dumps(truth))
    assert back["tokens"] == {"p1": 3, "p2": 0, "p3": 0, "p4": 0}
    assert [d["face"] for d in back["dice"]] == [4, "hazard"]
    assert back["camera"]["tilt_deg"] == 20.0


def test_same_seed_same_frame():
    spec = random_scene(np.random.default_rng(4))
    a, ta = render_scene(spec, np.random.default_rng(9))
    b, tb = render_scene(spec, np.random.default_rng(9))
    assert np.array_equal(a, b) and ta == tb


def test_template_truth_sits_on_the_car_edge():
    car = CarSpec("car1", 10, 400.0, 220.0, 30.0)
    spec = SceneSpec(cars=[car], templates=[TemplateSpec("long_straight", None, attach_to="car1"),
                                            ])
    _, truth = render_scene(spec, np.random.default_rng(1))
    t = truth["templates"][0]
    a = math.radians(30.0)
    front = np.array([400.0, 220.0]) + 35.0 * np.array([math.cos(a), math.sin(a)])
    assert np.allclose(t["entry_mm"], front) and t["heading_deg"] == pytest.approx(30.0)
    # a 181 mm straight: its centroid lies 90.5 mm ahead of the entry
    assert np.allclose(t["centre_mm"], front + 90.5 * np.array([math.cos(a), math.sin(a)]), atol=0.2)
    spec.templates = [TemplateSpec("turn", "right", attach_to="car1", edge="rear")]
    _, truth = render_scene(spec, np.random.default_rng(1))
    t = truth["templates"][0]
    assert t["edge"] == "rear" and t["heading_deg"] == pytest.approx(210.0)
    assert np.allclose(t["entry_mm"], np.array([400.0, 220.0]) - 35.0 * np.array([math.cos(a), math.sin(a)]))


def test_hand_coverage_and_token_limits_are_reported():
    spec = SceneSpec(cars=[CarSpec("car1", 10, 250.0, 220.0, 0.0)],
                     templates=[TemplateSpec("long_straight", None, attach_to="car1")],
                     hands=[HandSpec(430.0, 215.0, 0.0)])
    _, truth = render_scene(spec, np.random.default_rng(2))
    assert 0.2 < truth["templates"][0]["hand_covered"] < 1.0
    with pytest.raises(ValueError, match="cannot fit 40 tokens"):
        render_scene(SceneSpec(tokens={"p1": 40}), np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown die face"):
        render_scene(SceneSpec(dice=[DieSpec("skid", "boom")]), np.random.default_rng(0))


def test_renderer_shares_no_code_with_the_readers():
    """Only the calibration maths may be shared, so a reader cannot pass by peeking at the renderer."""
    root = Path(__file__).resolve().parents[2] / "vision" / "synth"
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vision."):
                assert node.module in ("vision.calibration",) or node.module.startswith("vision.synth"), \
                    f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("vision.") or alias.name.startswith("vision.synth"), alias.name


def test_random_scenes_are_plausible():
    rng = np.random.default_rng(3)
    for _ in range(5):
        spec = random_scene(rng)
        assert 2 <= len(spec.cars) <= 4
        assert all(0 <= n <= 8 for n in spec.tokens.values())
        assert 0 <= spec.tilt_deg <= 20
        assert all(t.attach_to in {c.id for c in spec.cars} for t in spec.templates if t.attach_to)
