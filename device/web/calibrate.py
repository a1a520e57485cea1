"""Calibrating the table from the live camera: the latest frame is calibrated the way ``pitboard calibrate``
does it (the four corner tags, or four corners typed in pixels), drawn with the mat's corners and every
zone (the dice tray, the token zones), and saved only once the owner confirms what they see.  The saved file
is the one ``pitboard calibrate`` writes and ``pitboard run`` reads; the running loop reads the table with it
from the next frame on.

The maths is ``vision.calibration``'s (pure); this module reads and writes the files and draws the preview.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device.web.waiting import Waiting

#: Proposals kept waiting for a confirmation, and for how long.
KEPT = 4
KEPT_S = 600.0
#: The mat's size when neither the form nor an earlier calibration gives one (``pitboard calibrate``'s).
DEFAULT_MAT_MM = (800.0, 450.0)
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def parse_mat(text: str) -> tuple[float, float]:
    """``"800x450"`` → ``(800.0, 450.0)``; ValueError saying what to type."""
    raw = text.strip().lower().replace("×", "x").replace(" ", "")
    parts = raw.split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        w, h = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"the mat size {text!r} is not WIDTHxHEIGHT in mm, e.g. 800x450") from None
    if not (100 <= w <= 5000 and 100 <= h <= 5000):
        raise ValueError(f"the mat size {text!r}: each side must be 100..5000 mm")
    return w, h


def _example(size: tuple[int, int] | None) -> str:
    """Four corners as they might be typed, inside a frame of ``size`` (a 1280×720 one's when not known): the
    example for a 250×167 frame lay outside it."""
    w, h = size or (1280, 720)
    return " ".join(f"{round(w * fx)},{round(h * fy)}" for fx, fy in ((0.08, 0.11), (0.92, 0.1), (0.93, 0.9),
                                                                     (0.07, 0.91)))


def parse_points(text: str, size: tuple[int, int] | None = None) -> list[tuple[float, float]] | None:
    """Four corners typed as ``"x,y x,y x,y x,y"`` (top-left, top-right, bottom-right, bottom-left) → the
    points; an empty text → None (the corner tags are used); ValueError saying what to type (its example inside
    a frame of ``size``, width × height, when given)."""
    if not text.strip():
        return None
    pairs = text.replace(";", " ").split()
    out = []
    try:
        for p in pairs:
            x, y = p.split(",")
            out.append((float(x), float(y)))
    except ValueError:
        raise ValueError(f"the corners {text!r} are not four 'x,y' pixel pairs (top-left, top-right, "
                         f"bottom-right, bottom-left), e.g. {_example(size)}") from None
    if len(out) != 4:
        raise ValueError(f"{len(out)} corner(s) given: give four 'x,y' pixel pairs (top-left, top-right, "
                         "bottom-right, bottom-left), or leave the field empty to use the corner tags")
    for name, (x, y) in zip(CORNER_NAMES, out, strict=True):
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"the {name} corner ({x:g},{y:g}) is not a pixel position: type the corner's x,y as "
                             f"read off the frame, e.g. {_example(size).split()[0]}")
    return out


def check_in_frame(points: list[tuple[float, float]], size: tuple[int, int]) -> None:
    """ValueError naming the first typed corner that lies outside a ``size`` (width, height) frame."""
    w, h = size
    for name, (x, y) in zip(CORNER_NAMES, points, strict=True):
        if not (0 <= x <= w and 0 <= y <= h):
            raise ValueError(f"the {name} corner ({x:g},{y:g}) is outside the frame, which is {w}×{h} pixels: "
                             f"type pixel positions read off the frame shown (x 0..{w}, y 0..{h})")


def previous_calibration(path: Path | None) -> Any:
    """The calibration saved now (None when there is none or it cannot be read)."""
    from device.table_files import TableFileError, load_calibration

    try:
        return load_calibration(path)
    except (TableFileError, OSError, ValueError):
        return None


def calibrate_frame(image: np.ndarray, *, mat_mm: tuple[float, float] | None, points: list[tuple[float, float]] | None,
                    path: Path | None) -> tuple[Any, str | None]:
    """A calibration of ``image``, as ``pitboard calibrate`` makes it (the zones of the calibration saved
    now are kept when the mat is the same size; the token-zone cards seen place their zones), with a warning
    of cards not seen (None: none); ValueError saying what to do when there is none."""
    from device.table_files import TableFileError, load_table_config
    from vision.calibration import CalibrationError, calibrate_from_points, calibrate_table
    from vision.markers import detect_tags

    previous = previous_calibration(path)
    mat = mat_mm or (previous.mat_mm if previous is not None else DEFAULT_MAT_MM)
    hfov = previous.hfov_deg if previous is not None else 66.0
    zones = previous.zones if previous is not None and tuple(previous.mat_mm) == tuple(mat) else None
    size = (int(image.shape[1]), int(image.shape[0]))
    if points is not None:
        check_in_frame(points, size)
        try:
            return calibrate_from_points(points, mat, size, zones, hfov), None
        except CalibrationError as exc:
            raise ValueError(str(exc)) from None
    try:
        cfg = load_table_config(None)
    except TableFileError as exc:
        raise ValueError(str(exc)) from None
    det = {t.id: t.corners_px for t in detect_tags(image, cfg.dictionary)}
    cal, message, unseen = calibrate_table(det, cfg.corner_layout(mat), size, zones, hfov)  # as `pitboard calibrate`
    if cal is None:
        kept = "; the calibration saved now is kept" if previous is not None else ""
        raise ValueError(f"{(message or 'no calibration').replace(' - no calibration yet', '')}{kept}")
    return cal, unseen


def draw_calibration(image: np.ndarray, cal: Any) -> np.ndarray:
    """A copy of ``image`` with the mat's outline and named corners and every zone drawn on it (BGR), lines and
    names sized to the picture: a phone shows it ~360 px wide (names drawn for 640 px were unreadable on a
    2304-px frame), each name dark-edged to read on any mat."""
    import cv2

    canvas = np.ascontiguousarray(image).copy()
    if canvas.ndim == 2:
        canvas = cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR)
    k = max(1.0, canvas.shape[1] / 400)  # drawn for a 400-px picture, scaled
    line = max(2, round(2 * k))
    font = 0.55 * k

    def label(text: str, x: float, y: float, colour: tuple[int, int, int], centred: bool = False) -> None:
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font, line)
        if centred:  # (a zone's name in its middle: at its corner it ran into the corner's name)
            x, y = x - tw / 2, y + th / 2
        tx = int(min(max(x, 4), canvas.shape[1] - tw - 4))
        ty = int(min(max(y, th + 4), canvas.shape[0] - 6))
        cv2.putText(canvas, text, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), line + max(2, round(2 * k)))
        cv2.putText(canvas, text, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, font, colour, line)

    w, h = cal.mat_mm
    corners = cal.to_px(np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]))
    outline = _polyline(cal, [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)])
    cv2.polylines(canvas, [outline], True, (255, 255, 0), line)
    for name, (x, y) in zip(CORNER_NAMES, corners, strict=True):
        cv2.circle(canvas, (int(x), int(y)), round(7 * k), (0, 0, 255), -1)
        label(name, x + 10 * k, y + 22 * k, (0, 0, 255))
    for zone in cal.zones:
        colour = (0, 255, 0) if zone.kind == "dice_tray" else (0, 200, 255)
        poly = _polyline(cal, list(zone.polygon))
        cv2.polylines(canvas, [poly], True, colour, line)
        (x0, y0), (x1, y1) = poly.reshape(-1, 2).min(axis=0), poly.reshape(-1, 2).max(axis=0)
        label(zone.name, (x0 + x1) / 2, (y0 + y1) / 2, colour, centred=True)
    return canvas


def _polyline(cal: Any, points_mm: list[tuple[float, float]], per_side: int = 12) -> np.ndarray:
    """A polygon on the mat in pixels, each side cut in ``per_side`` pieces (a lens bends straight sides)."""
    pts = []
    n = len(points_mm)
    for i in range(n):
        a, b = np.array(points_mm[i], float), np.array(points_mm[(i + 1) % n], float)
        for t in np.linspace(0.0, 1.0, per_side, endpoint=False):
            pts.append(a + (b - a) * t)
    px = np.asarray(cal.to_px(np.array(pts)), dtype=np.float64)
    out: np.ndarray = np.round(px).astype(np.int32).reshape(-1, 1, 2)
    return out


def summary(cal: Any) -> str:
    from device.camera_input import dice_size_words

    zones = ", ".join(z.name for z in cal.zones) or "none"
    dice = dice_size_words(cal)
    return (f"from {cal.source}: reprojection error {cal.rms_px:.2f} px ({cal.rms_mm:.2f} mm), "
            f"{cal.mm_per_px():.2f} mm/px at the mat centre, mat {cal.mat_mm[0]:g}×{cal.mat_mm[1]:g} mm; "
            f"zones {zones}" + (f"; {dice}" if dice else ""))


def png(image: np.ndarray) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("the preview could not be drawn")
    return bytes(buf)


@dataclass
class Proposal:
    calibration: Any
    png: bytes
    text: str
    at: float


class Proposals(Waiting[Proposal]):
    """Calibrations shown and waiting for their confirmation, by random token."""

    def __init__(self) -> None:
        super().__init__(KEPT, KEPT_S)

    def keep(self, image: np.ndarray, cal: Any, warning: str | None = None) -> tuple[str, Proposal]:
        text = summary(cal) + (f". Warning: {warning}" if warning else "")
        item = Proposal(cal, png(draw_calibration(image, cal)), text, time.monotonic())
        return self.put(item), item


def save(cal: Any, path: Path | None) -> Path:
    """Write the calibration where ``pitboard calibrate`` writes it (atomically); ValueError on failure."""
    from device.table_files import TableFileError, save_calibration

    try:
        return save_calibration(cal, path)
    except (TableFileError, OSError) as exc:
        raise ValueError(f"the calibration was not saved: {exc}") from None
