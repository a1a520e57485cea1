"""Barrel (radial) lens distortion for rendered frames: what a wide-angle camera module does to a picture.

The model is OpenCV's Brown model restricted to its radial terms, with the principal point at the image
centre and the focal length equal to the image *width* in pixels (so the coefficients do not depend on the
resolution or on any field-of-view guess)::

    x = (u - w/2) / w,  y = (v - h/2) / w,  r^2 = x^2 + y^2
    x_d = x * (1 + k1 r^2 + k2 r^4)      (same for y)

``k1 < 0`` is barrel distortion (a wide lens), ``k1 > 0`` pincushion.  For a 1920x1080 frame the image
corners sit at r = 0.57, so ``k1 = -0.10`` moves a corner by about 3 % of its distance from the centre
(about 35 px).  ``vision.calibration.LensModel`` uses the same normalisation, so the k1, k2 it estimates
can be compared with the ones given here.

Pure functions of arrays: no files, no clocks, no randomness.
"""

from __future__ import annotations

import cv2
import numpy as np


def _norm(image_size: tuple[int, int]) -> tuple[float, float, float]:
    w, h = int(image_size[0]), int(image_size[1])
    if w <= 0 or h <= 0:
        raise ValueError(f"image_size {image_size!r} must be positive (width, height) in pixels")
    return w / 2.0, h / 2.0, float(w)


def distort_points(pts_px: np.ndarray, image_size: tuple[int, int], k1: float, k2: float = 0.0) -> np.ndarray:
    """Where ideal (pinhole) pixel positions land in the distorted picture.  (N, 2) -> (N, 2) float64."""
    cx, cy, f = _norm(image_size)
    p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    x, y = (p[:, 0] - cx) / f, (p[:, 1] - cy) / f
    r2 = x * x + y * y
    s = 1.0 + k1 * r2 + k2 * r2 * r2
    return np.stack([x * s * f + cx, y * s * f + cy], axis=1)


def undistort_points(pts_px: np.ndarray, image_size: tuple[int, int], k1: float, k2: float = 0.0,
                     iterations: int = 30) -> np.ndarray:
    """Inverse of :func:`distort_points` (Newton on the radius; exact to ~1e-9 px for any lens where the
    mapping stays monotonic over the picture)."""
    cx, cy, f = _norm(image_size)
    p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    x, y = (p[:, 0] - cx) / f, (p[:, 1] - cy) / f
    rd = np.hypot(x, y)
    ru = rd.copy()
    for _ in range(iterations):
        r2 = ru * ru
        g = ru * (1.0 + k1 * r2 + k2 * r2 * r2) - rd
        dg = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2
        step = g / np.where(np.abs(dg) < 1e-9, 1e-9, dg)
        ru = ru - step
        if np.max(np.abs(step), initial=0.0) < 1e-13:
            break
    scale = np.where(rd > 1e-15, ru / np.where(rd > 1e-15, rd, 1.0), 1.0)
    return np.stack([x * scale * f + cx, y * scale * f + cy], axis=1)


def distort_image(image: np.ndarray, k1: float, k2: float = 0.0, border: str = "replicate") -> np.ndarray:
    """The picture a lens with (k1, k2) would have taken of the ideal pinhole ``image`` (same size).

    Each output pixel looks up the ideal position it came from.  With barrel distortion (k1 < 0) the
    output's corners come from *outside* the ideal picture: ``border`` says what fills them
    ("replicate" the edge pixels, or "black").  A renderer that wants real content there renders a
    slightly larger ideal frame first."""
    if border not in ("replicate", "black"):
        raise ValueError(f"border {border!r} is not one of 'replicate', 'black'")
    h, w = image.shape[:2]
    if k1 == 0.0 and k2 == 0.0:
        return image.copy()
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    src = undistort_points(np.stack([uu.ravel(), vv.ravel()], axis=1), (w, h), k1, k2)
    map_x = src[:, 0].reshape(h, w).astype(np.float32)
    map_y = src[:, 1].reshape(h, w).astype(np.float32)
    mode = cv2.BORDER_REPLICATE if border == "replicate" else cv2.BORDER_CONSTANT
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=mode, borderValue=0)
