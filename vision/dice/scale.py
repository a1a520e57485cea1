"""Die size normalisation (work in progress)."""
from __future__ import annotations
from collections.abc import Callable
import numpy as np


def read_at_die_scale(img: np.ndarray, read: Callable, die_px: float | None) -> list:
    return read(img)
