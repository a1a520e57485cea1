"""The camera's latest frame with what vision read drawn on it: dice and their values, templates and the
chart's verdict for the active vehicle's gear, hazard-token counts per zone, the mat's corners and zones.

Drawn on the web's thread, only when a page asks and at most :data:`MIN_INTERVAL_S` apart, so a phone
watching costs the loop nothing.  The dice are the loop's own reading (taken on its thread when the
frame was handled); the table is read again here from the same frame with the loop's reader's
``read_table_fresh``, a pure function of the image and the calibration (its count memo is the loop's).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from device.web.hub import CameraShot

#: Widest JPEG sent to a phone.
MAX_WIDTH = 960
MIN_INTERVAL_S = 0.5


def shot_of(app: Any, frame: Any) -> CameraShot:
    """What the loop knows of ``frame`` (on the loop's thread)."""
    vision = getattr(app, "vision", None)
    region = getattr(vision, "dice_region", None) if vision is not None else None
    ox, oy = (region.x, region.y) if region is not None else (0, 0)
    dice = []
    for r in (getattr(vision, "tray_readings", None) or ()) if vision is not None else ():
        box = getattr(r, "box", None)
        b = (int(box[0]) + ox, int(box[1]) + oy, int(box[2]) + ox, int(box[3]) + oy) if box is not None else None
        dice.append((getattr(r, "value", None), b))
    gear = chart = None
    try:
        state = app.match.state
        vehicle = app.prompt().vehicle
        for v in getattr(state, "vehicles", ()):
            if getattr(v, "id", None) == vehicle:
                gear = getattr(v, "gear", None)
        chart = dict(getattr(state, "chart", ()) or ()) or None
    except Exception:
        pass
    reg = (region.x, region.y, region.width, region.height) if region is not None else None
    return CameraShot(frame.image, frame.index, tuple(dice), reg, getattr(app, "reader", None), gear, chart,
                      time.monotonic())


class CameraView:
    """JPEG of the newest shot, annotated, cached per frame."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: tuple[int, bytes] | None = None
        self._at = 0.0

    def jpeg(self, shot: CameraShot | None) -> bytes | None:
        if shot is None:
            return None
        with self._lock:
            if self._done is not None and (self._done[0] == shot.index or time.monotonic() - self._at < MIN_INTERVAL_S):
                return self._done[1]
            data = annotate(shot)
            self._done = (shot.index, data)
            self._at = time.monotonic()
            return data


def annotate(shot: CameraShot) -> bytes:
    import cv2

    canvas = np.ascontiguousarray(shot.image).copy()
    if canvas.ndim == 2:
        canvas = cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR)
    if shot.region is not None:
        x, y, w, h = shot.region
        cv2.rectangle(canvas, (x, y), (x + w, y + h), (255, 255, 0), 2)
    for value, box in shot.dice:
        if box is None:
            continue
        x0, y0, x1, y1 = box
        cv2.rectangle(canvas, (x0, y0), (x1, y1), (0, 255, 0), 2)
        cv2.putText(canvas, str(value), (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 0), 2)
    reader = shot.reader
    calibration = getattr(reader, "calibration", None)
    if reader is not None and calibration is not None:
        from device.web.calibrate import draw_calibration

        try:
            canvas = draw_calibration(canvas, calibration)  # the mat's corners and the zones, as calibrated
        except Exception:  # a calibration of another resolution: the frame is shown as it is
            pass
        try:
            read = getattr(reader, "read_table_fresh", None) or reader.read_table  # not the loop's memo
            table = read(shot.image)
        except Exception:
            table = None
        if table is not None:
            _draw_table(canvas, table, calibration, shot)
    h, w = canvas.shape[:2]
    if w > MAX_WIDTH:
        canvas = cv2.resize(canvas, (MAX_WIDTH, int(h * MAX_WIDTH / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return bytes(buf) if ok else b""


def _verdict(name: str, shot: CameraShot) -> str:
    if shot.gear is None or not shot.chart:
        return ""
    try:
        from games.gaslands import template_status

        return f" [{template_status(name, int(shot.gear), shot.chart).value} in gear {shot.gear}]"
    except Exception:
        return ""


def _draw_table(canvas: np.ndarray, table: Any, calibration: Any, shot: CameraShot) -> None:
    import cv2

    for car in getattr(table, "cars", ()):
        x, y = calibration.to_px(np.array([car.centre_mm], dtype=float))[0]
        cv2.circle(canvas, (int(x), int(y)), 6, (0, 255, 255), 2)
        cv2.putText(canvas, str(car.id), (int(x) + 8, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2)
    for t in getattr(table, "templates", ()):
        x, y = calibration.to_px(np.array([t.centre_mm], dtype=float))[0]
        label = f"{t.name} {t.hand or ''} -> {t.attached_to or '?'}{_verdict(t.name, shot)}"
        cv2.putText(canvas, label, (int(x) - 60, int(y) - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 80, 255), 2)
    for m in getattr(table, "misfits", None) or ():  # seen, not used: a misprinted tag or a die read as one
        try:
            x, y = (int(round(v)) for v in m.centre_px)
            label = f"tag {m.tag_id} ({m.what}): {m.measured_mm:.0f} mm, not {m.printed_mm:.0f} - not used"
        except (AttributeError, TypeError, ValueError):
            continue
        cv2.drawMarker(canvas, (x, y), (0, 0, 255), cv2.MARKER_TILTED_CROSS, 24, 3)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 2)
        h_img, w_img = canvas.shape[:2]  # below the car, on a box of its own, kept inside the frame
        x0 = min(max(3, x - 60), max(3, w_img - tw - 4))
        y0 = y + 40 if y + 45 < h_img else max(th + 4, y - 40)
        cv2.rectangle(canvas, (x0 - 3, y0 - th - 4), (x0 + tw + 3, y0 + 5), (0, 0, 200), -1)
        cv2.putText(canvas, label, (x0, y0), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 2)
    for zone, count in (getattr(table, "tokens", None) or {}).items():
        try:
            z = calibration.zone(zone)
            x, y = calibration.to_px(np.array([z.polygon[0]], dtype=float))[0]
        except Exception:
            continue
        cv2.putText(canvas, f"{count} tokens", (int(x) + 4, int(y) + 40), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (0, 200, 255), 2)
