"""Stand-ins for the camera's edges in the loop's tests: a dice reading, and a camera that can be unplugged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from device.camera import CameraError


@dataclass(frozen=True)
class Reading:
    """One die as a reader reports it: ``value`` (None: seen, not read) at ``center`` (x, y)."""

    value: Any
    center: tuple[float, float]


class UnpluggableTray:
    """A camera backend showing ``image``; ``unplugged`` makes it fail as a pulled cable does."""

    name = "tray"

    def __init__(self, image: np.ndarray | None = None) -> None:
        self.image = image if image is not None else np.zeros((120, 160, 3), np.uint8)
        self.unplugged = False

    def open(self) -> None:
        if self.unplugged:
            raise CameraError("no camera")

    def read(self) -> np.ndarray:
        if self.unplugged:
            raise CameraError("the camera gave no frame (unplugged)")
        return self.image

    def close(self) -> None:
        pass
