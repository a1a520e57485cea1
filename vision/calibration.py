"""The table plane: pixel <-> millimetre mapping from four corner markers (or four given points).

Frame of the table (used everywhere in Pitboard's vision): origin at the mat's top-left corner as
seen in the camera picture, x to the right, y *down* the picture, millimetres.  Because y points
down, a heading measured with ``atan2(dy, dx)`` grows clockwise as seen from the camera; headings are
reported in degrees in [0, 360).

Why a homography and not a full camera calibration: the mat is a plane, and a plane-to-image
mapping is exactly a 3x3 homography, which four markers determine with plenty of redundancy (16
corner points).  Objects *above* the mat (a car's roof tag, ~3 cm up) need the camera pose; we get it
by decomposing the homography with an assumed horizontal field of view (a property of the camera
module the owner states once, 66 deg for a Raspberry Pi Camera Module 3), which is far more robust
than estimating the focal length from a nearly top-down view (where it is unobservable).

This module is the only code the scene renderer (``vision.synth``) shares with the readers.
Pure functions; (de)serialisation goes through dicts (``to_dict`` / ``from_dict``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

CALIBRATION_SCHEMA = 1


class CalibrationError(ValueError):
    """The frame cannot calibrate the table; the message says what is missing and what to do."""


@dataclass(frozen=True)
class Zone:
    """A named polygon on the mat (mm).  ``kind`` is ``"dice_tray"`` or ``"tokens"``."""

    name: str
    kind: str
    polygon: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "polygon": [list(p) for p in self.polygon]}

    @staticmethod
    def from_dict(d: Mapping) -> "Zone":
        try:
            poly = tuple((float(x), float(y)) for x, y in d["polygon"])
            kind = str(d["kind"])
            name = str(d["name"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"zone entry {dict(d)!r} is malformed ({exc}); each zone needs "
                                   "name, kind (dice_tray|tokens) and polygon [[x_mm, y_mm], ...]") from exc
        if kind not in ("dice_tray", "tokens"):
            raise CalibrationError(f"zone {name!r} has kind {kind!r}; use 'dice_tray' or 'tokens'")
        if len(poly) < 3:
            raise CalibrationError(f"zone {name!r} needs at least 3 polygon points, got {len(poly)}")
        return Zone(name, kind, poly)


@dataclass(frozen=True)
class CornerLayout:
    """Where the four corner markers sit on the mat.

    Each marker is square, ``size_mm`` wide, its outer corner on the mat corner and its top edge
    parallel to the mat's top edge (the printed sheet says so).  ``ids`` are in the order
    top-left, top-right, bottom-right, bottom-left."""

    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    size_mm: float = 50.0
    mat_mm: tuple[float, float] = (800.0, 450.0)

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """Marker id -> its 4 corners (TL, TR, BR, BL in ArUco order) in mm."""
        w, h = self.mat_mm
        s = self.size_mm
        origins = [(0.0, 0.0), (w - s, 0.0), (w - s, h - s), (0.0, h - s)]
        out = {}
        for mid, (x, y) in zip(self.ids, origins):
            out[mid] = np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)
        return out


def default_zones(mat_mm: tuple[float, float], players: int = 4) -> tuple[Zone, ...]:
    """A dice tray centred on the bottom edge and one hazard-token zone per player along the edges,
    clear of the corner markers.  Owners usually edit these in their calibration file."""
    w, h = mat_mm
    zones = [Zone("tray", "dice_tray", ((w / 2 - 90, h - 130), (w / 2 + 90, h - 130),
                                         (w / 2 + 90, h - 10), (w / 2 - 90, h - 10)))]
    spots = [(70, h - 130), (w - 210, h - 130), (70, 10), (w - 210, 10)]
    for i in range(max(0, min(players, 4))):
        x, y = spots[i]
        zones.append(Zone(f"p{i + 1}", "tokens", ((x, y), (x + 140, y), (x + 140, y + 120), (x, y + 120))))
    return tuple(zones)


def intrinsics(image_size: tuple[int, int], hfov_deg: float) -> np.ndarray:
    """Pinhole camera matrix for square pixels, principal point at the image centre."""
    w, h = image_size
    f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    return np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])


def apply_h(hmat: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to an (N, 2) array of points."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.hstack([p, np.ones((len(p), 1))]) @ np.asarray(hmat, dtype=np.float64).T
    return q[:, :2] / q[:, 2:3]


def _fit_homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Normalised DLT (least squares over all points); no RANSAC because every point is a marker
    corner whose identity is certain."""
    import cv2

    hmat, _ = cv2.findHomography(src.astype(np.float64), dst.astype(np.float64), 0)
    if hmat is None:
        raise CalibrationError("the marker corners are degenerate (all in a line?); check the four "
                               "corner markers are at the mat's corners")
    return hmat / hmat[2, 2]


@dataclass(frozen=True)
class Calibration:
    """A calibrated table: ``px_to_mm`` homography, the image size it belongs to, the mat size, the
    zones, the reprojection error and the camera's horizontal field of view."""

    px_to_mm: np.ndarray
    image_size: tuple[int, int]
    mat_mm: tuple[float, float]
    zones: tuple[Zone, ...] = ()
    rms_px: float = 0.0
    rms_mm: float = 0.0
    hfov_deg: float = 66.0
    source: str = "markers"
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def mm_to_px(self) -> np.ndarray:
        if "inv" not in self._cache:
            inv = np.linalg.inv(self.px_to_mm)
            self._cache["inv"] = inv / inv[2, 2]
        return self._cache["inv"]

    def to_mm(self, pts_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Pixels -> mat millimetres; ``height_mm`` > 0 for points on a plane above the mat (the
        result is the point on the mat directly below)."""
        if height_mm == 0.0:
            return apply_h(self.px_to_mm, pts_px)
        return apply_h(self.height_px_to_mm(height_mm), pts_px)

    def to_px(self, pts_mm: np.ndarray) -> np.ndarray:
        return apply_h(self.mm_to_px, pts_mm)

    def camera_pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(K, R, t) with x_cam = R @ X_world + t, world Z pointing *into* the mat (so a point
        ``h`` mm above the mat has Z = -h).  Derived from the homography and ``hfov_deg``."""
        if "pose" not in self._cache:
            k = intrinsics(self.image_size, self.hfov_deg)
            b = np.linalg.inv(k) @ self.mm_to_px
            lam = 1.0 / np.linalg.norm(b[:, 0])
            if b[2, 2] * lam < 0:
                lam = -lam
            r1, r2, t = b[:, 0] * lam, b[:, 1] * lam, b[:, 2] * lam
            r3 = np.cross(r1, r2)
            rot = np.stack([r1, r2, r3], axis=1)
            u, _, vt = np.linalg.svd(rot)  # nearest rotation
            rot = u @ vt
            self._cache["pose"] = (k, rot, t)
        return self._cache["pose"]

    def height_px_to_mm(self, height_mm: float) -> np.ndarray:
        """Homography from pixels to mat mm for the plane ``height_mm`` above the mat."""
        key = ("h", round(height_mm, 3))
        if key not in self._cache:
            k, rot, t = self.camera_pose()
            hz = k @ np.stack([rot[:, 0], rot[:, 1], t - height_mm * rot[:, 2]], axis=1)
            inv = np.linalg.inv(hz)
            self._cache[key] = inv / inv[2, 2]
        return self._cache[key]

    def mm_per_px(self) -> float:
        """Typical scale at the mat centre (mm per pixel)."""
        w, h = self.mat_mm
        c = self.to_px(np.array([[w / 2, h / 2], [w / 2 + 10, h / 2]]))
        return 10.0 / float(np.linalg.norm(c[1] - c[0]))

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    def with_zones(self, zones: Sequence[Zone]) -> "Calibration":
        return Calibration(self.px_to_mm, self.image_size, self.mat_mm, tuple(zones), self.rms_px,
                           self.rms_mm, self.hfov_deg, self.source)

    def to_dict(self) -> dict:
        return {
            "schema": CALIBRATION_SCHEMA,
            "px_to_mm": [[float(v) for v in row] for row in self.px_to_mm],
            "image_size": list(self.image_size),
            "mat_mm": list(self.mat_mm),
            "zones": [z.to_dict() for z in self.zones],
            "rms_px": self.rms_px,
            "rms_mm": self.rms_mm,
            "hfov_deg": self.hfov_deg,
            "source": self.source,
        }

    @staticmethod
    def from_dict(d: Mapping) -> "Calibration":
        try:
            if int(d.get("schema", 0)) != CALIBRATION_SCHEMA:
                raise CalibrationError(f"calibration schema {d.get('schema')!r} is not {CALIBRATION_SCHEMA}; "
                                       "run `pitboard calibrate` again")
            hmat = np.array(d["px_to_mm"], dtype=np.float64)
            if hmat.shape != (3, 3) or not np.all(np.isfinite(hmat)):
                raise CalibrationError("px_to_mm must be a finite 3x3 matrix; run `pitboard calibrate` again")
            return Calibration(
                px_to_mm=hmat,
                image_size=(int(d["image_size"][0]), int(d["image_size"][1])),
                mat_mm=(float(d["mat_mm"][0]), float(d["mat_mm"][1])),
                zones=tuple(Zone.from_dict(z) for z in d.get("zones", [])),
                rms_px=float(d.get("rms_px", 0.0)),
                rms_mm=float(d.get("rms_mm", 0.0)),
                hfov_deg=float(d.get("hfov_deg", 66.0)),
                source=str(d.get("source", "markers")),
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"calibration data is incomplete or malformed ({exc!r}); "
                                   "run `pitboard calibrate` again") from exc


def calibrate_from_markers(
    detections: Mapping[int, np.ndarray],
    layout: CornerLayout,
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
) -> Calibration:
    """Calibrate from detected markers (id -> 4x2 pixel corners in ArUco order).

    All four corner markers are required: three would do mathematically, but a missing corner usually
    means something lies on the mat's edge, and a quietly worse calibration is the wrong default."""
    ref = layout.marker_corners_mm()
    missing = [i for i in layout.ids if i not in detections]
    if missing:
        seen = sorted(i for i in detections if i in ref)
        raise CalibrationError(
            f"corner markers {missing} not found (seen: {seen or 'none'}); make sure all four corner "
            f"tags (ids {list(layout.ids)}) are visible, flat and not covered, then try again")
    src = np.vstack([np.asarray(detections[i], dtype=np.float64).reshape(4, 2) for i in layout.ids])
    dst = np.vstack([ref[i] for i in layout.ids])
    return _finish(src, dst, image_size, layout.mat_mm, zones, hfov_deg, "markers")


def calibrate_from_points(
    points_px: Sequence[Sequence[float]],
    mat_mm: tuple[float, float],
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
) -> Calibration:
    """Calibrate from the four mat corners given by hand (pixels, order TL, TR, BR, BL)."""
    src = np.asarray(points_px, dtype=np.float64)
    if src.shape != (4, 2) or not np.all(np.isfinite(src)):
        raise CalibrationError("give exactly four corner points 'x,y' in the order top-left, top-right, "
                               "bottom-right, bottom-left")
    area = 0.5 * abs(np.dot(src[:, 0], np.roll(src[:, 1], 1)) - np.dot(src[:, 1], np.roll(src[:, 0], 1)))
    if area < 100:
        raise CalibrationError("the four corner points enclose almost no area; check their order and values")
    w, h = mat_mm
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    return _finish(src, dst, image_size, mat_mm, zones, hfov_deg, "points")


def _finish(src, dst, image_size, mat_mm, zones, hfov_deg, source) -> Calibration:
    hmat = _fit_homography(src, dst)
    inv = np.linalg.inv(hmat)
    rms_mm = float(np.sqrt(np.mean(np.sum((apply_h(hmat, src) - dst) ** 2, axis=1))))
    rms_px = float(np.sqrt(np.mean(np.sum((apply_h(inv, dst) - src) ** 2, axis=1))))
    if zones is None:
        zones = default_zones(mat_mm)
    cal = Calibration(hmat, (int(image_size[0]), int(image_size[1])), (float(mat_mm[0]), float(mat_mm[1])),
                      tuple(zones), rms_px, rms_mm, float(hfov_deg), source)
    # A mirrored or wildly skewed mapping means swapped ids or points: refuse it.
    corners = cal.to_px(np.array([[0, 0], [mat_mm[0], 0], [mat_mm[0], mat_mm[1]], [0, mat_mm[1]]]))
    a, b = corners[1] - corners[0], corners[3] - corners[0]
    cross = a[0] * b[1] - a[1] * b[0]
    if cross <= 0:
        raise CalibrationError("the corners come out mirrored: the corner tags (or points) are in the wrong "
                               "order; place ids top-left, top-right, bottom-right, bottom-left")
    if rms_mm > 5.0:
        raise CalibrationError(f"corner reprojection error {rms_mm:.1f} mm is too large: the corner tags are "
                               "not where the layout says (mat size wrong, or a tag moved); check and retry")
    return cal


def update_calibration(
    previous: Calibration | None,
    detections: Mapping[int, np.ndarray],
    layout: CornerLayout,
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
) -> tuple[Calibration | None, str | None]:
    """Try to recalibrate from a new frame.  On failure keep the last good calibration and say why:
    returns (calibration to use, message or None).  Zones of the previous calibration carry over
    when none are given."""
    if zones is None and previous is not None:
        zones = previous.zones
    try:
        return calibrate_from_markers(detections, layout, image_size, zones, hfov_deg), None
    except CalibrationError as exc:
        keep = " - keeping the last good calibration" if previous is not None else " - no calibration yet"
        return previous, f"{exc}{keep}"
