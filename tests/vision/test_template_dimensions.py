"""The one template dimension the rules confirm."""

from __future__ import annotations

import tomllib
from importlib import resources

import numpy as np


def test_long_straight_is_180_to_182_by_35_mm():
    """"Long Straight is 180–182 mm × 35 mm. [V] Other template dimensions: [?]." — the shape data the readers
    and the renderer share holds the confirmed size; the rest are marked as estimates to measure."""
    text = resources.files("vision").joinpath("data", "template_shapes.toml").read_text("utf-8")
    shapes = tomllib.loads(text)["templates"]
    outline = np.array(shapes["long_straight"]["outline"], dtype=float)
    length = outline[:, 0].max() - outline[:, 0].min()
    width = outline[:, 1].max() - outline[:, 1].min()
    assert 180.0 <= length <= 182.0
    assert width == 35.0
    assert "MEASURE YOUR OWN" in text.upper()


def test_templates_are_3_mm_thick_unless_a_shape_says_otherwise():
    """The tag sits on the acrylic's upper face: the shape data gives the thickness the reader passes to
    the tag pose (a top-level default, overridable per template, kept by the outline writer)."""
    import pytest

    from vision.templates import ShapeDataError, builtin_shapes, shapes_from_toml, shapes_to_toml

    shapes = builtin_shapes()
    assert all(s.thickness_mm == 3.0 and s.tag_height_mm == 3.0 for s in shapes.values())
    text = ("thickness_mm = 2.0\n[templates.turn]\noutline = [[0, 0], [10, 0], [10, 10]]\n"
            "[templates.hard]\nthickness_mm = 4.5\noutline = [[0, 0], [10, 0], [10, 10]]\n")
    parsed = shapes_from_toml(text)
    assert parsed["turn"].thickness_mm == 2.0 and parsed["hard"].thickness_mm == 4.5
    assert shapes_from_toml(shapes_to_toml(parsed))["hard"].thickness_mm == 4.5
    with pytest.raises(ShapeDataError, match="hard.*thickness_mm"):
        shapes_from_toml(text.replace("4.5", "-1"))
