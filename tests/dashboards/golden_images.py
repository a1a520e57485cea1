"""Golden-image comparison for the dashboards: one rule for every game's layouts.

A layout is compared pixel for pixel (lit or not) with its PNG under ``golden/<game>/``.  With
``PITBOARD_REGOLD=1`` the PNG is (re)written instead — look at it before committing.  A missing PNG fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image


def lit(image: Image.Image) -> np.ndarray:
    """Lit pixels as booleans (exact, and independent of how Pillow compares mode "1" images)."""
    return np.asarray(image.convert("1"), dtype=bool)


def check_golden(image: Image.Image, path: Path, drawn_dir: Path) -> None:
    assert image.mode == "1" and image.size == (128, 64)
    if os.environ.get("PITBOARD_REGOLD") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
        return
    if not path.exists():
        pytest.fail(f"no golden image {path}; look at the layout, then run with PITBOARD_REGOLD=1 to create it")
    expected, actual = lit(Image.open(path)), lit(image)
    if not np.array_equal(expected, actual):
        differ = int((expected != actual).sum()) if expected.shape == actual.shape else "all"
        drawn = drawn_dir / path.name
        image.save(drawn)
        pytest.fail(f"{path.stem}: {differ} pixels differ from {path} (drawn: {drawn}); if the change is intended, "
                    "look at it and regenerate with PITBOARD_REGOLD=1")
