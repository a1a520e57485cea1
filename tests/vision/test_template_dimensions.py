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
