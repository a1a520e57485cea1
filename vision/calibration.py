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

Lens: wide-angle camera modules bend straight lines (barrel distortion), which no homography can
follow; at 1080p a wide lens puts positions 10 mm off.  ``LensModel`` is the radial part of OpenCV's
Brown model (k1, k2; principal point at the image centre, focal length = the image width in pixels, the
same normalisation as ``vision.synth.lens``).  ``calibrate_from_markers`` estimates it together with
the homography from the corner tags' 16 corners and, when seen, the tags of the printed token-zone
cards (``TagCard``: tags at known places on a card whose own position on the mat is unknown), which
add points between the corners.  Every pixel is undistorted before the homography; ``to_px`` distorts
back.  A calibration whose corner residual exceeds 1 mm carries a ``warning`` the CLI prints.

This module is the only code the scene renderer (``vision.synth``) shares with the readers.
Pure functions; (de)serialisation goes through dicts (``to_dict`` / ``from_dict``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CALIBRATION_SCHEMA = 1
WARN_RMS_MM = 1.0  # a corner residual above this is reported (``Calibration.warning``)
#: The largest mat side (mm) a calibration takes: 10 m, far beyond any table.
MAT_MM_MAX = 10000.0
MAX_RMS_MM = 5.0  # ... and above this the calibration is refused
#: The widest zone (mm) a calibration takes: a tray or a token zone is a fraction of it.
ZONE_MM_MAX = 1000.0


class CalibrationError(ValueError):
    """The frame cannot calibrate the table; the message says what is missing and what to do."""


@dataclass(frozen=True)
class Zone:
    """A named polygon on the mat (mm).  ``kind`` is ``"dice_tray"`` or ``"tokens"``."""

    name: str
    kind: str
    polygon: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "polygon": [list(p) for p in self.polygon]}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Zone":
        need = "each zone needs name, kind (dice_tray|tokens) and polygon [[x_mm, y_mm], ...]"
        missing = [k for k in ("name", "kind", "polygon") if k not in d]
        if missing:  # (said "is malformed ('name')" of a zone whose name was misspelt)
            raise CalibrationError(f"zone entry {dict(d)!r} has no {' and no '.join(missing)}; {need}")
        name = str(d["name"])
        raw = d["polygon"]
        try:
            if isinstance(raw, (str, bytes)):
                raise TypeError(raw)
            poly = tuple((float(x), float(y)) for x, y in raw)
        except (TypeError, ValueError) as exc:
            raise CalibrationError(f"zone {name!r}: polygon must be a list of [x_mm, y_mm] points, e.g. [[0, 0], "
                                   f"[140, 0], [140, 120]], got {raw!r}") from exc
        kind = str(d["kind"])
        if kind not in ("dice_tray", "tokens"):
            raise CalibrationError(f"zone {name!r} has kind {kind!r}; use 'dice_tray' or 'tokens'")
        if len(poly) < 3:
            raise CalibrationError(f"zone {name!r} needs at least 3 polygon points, got {len(poly)}")
        if not all(math.isfinite(v) and abs(v) <= MAT_MM_MAX for pt in poly for v in pt):
            raise CalibrationError(f"zone {name!r} has a point that is not a place on the table ({list(poly)!r}); "
                                   f"each point is [x_mm, y_mm] from the mat's top-left corner")
        xs, ys = [pt[0] for pt in poly], [pt[1] for pt in poly]
        if max(max(xs) - min(xs), max(ys) - min(ys)) > ZONE_MM_MAX:
            raise CalibrationError(f"zone {name!r} is {max(xs) - min(xs):g} x {max(ys) - min(ys):g} mm; a dice tray "
                                   f"or a player's token zone is at most {ZONE_MM_MAX:g} mm across: check its points "
                                   "(millimetres, not pixels)")
        return Zone(name, kind, poly)


def unique_zones(zones: Sequence[Zone]) -> tuple[Zone, ...]:
    """``zones``, refused when two share a name (the second would never be counted, or counted as the first)."""
    seen: set[str] = set()
    for z in zones:
        if z.name in seen:
            raise CalibrationError(f"two zones are called {z.name!r}; give each zone its own name")
        seen.add(z.name)
    return tuple(zones)


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


@dataclass(frozen=True)
class LensModel:
    """Radial lens distortion (OpenCV's Brown model, radial terms only).  Normalised coordinates put the
    principal point at the image centre and use the image *width* as focal length::

        x = (u - w/2) / w,  y = (v - h/2) / w,  r^2 = x^2 + y^2,  x_d = x (1 + k1 r^2 + k2 r^4)

    ``k1 < 0`` is barrel distortion (wide lenses).  The identity (0, 0) is what old calibration files
    without a lens mean."""

    k1: float = 0.0
    k2: float = 0.0

    def is_identity(self) -> bool:
        return self.k1 == 0.0 and self.k2 == 0.0

    def distort(self, pts_px: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
        """Ideal (pinhole) pixels -> where the lens puts them."""
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        if self.is_identity():
            return p.copy()
        xy, (cx, cy, f) = _normalise(p, image_size)
        r2 = np.sum(xy * xy, axis=1, keepdims=True)
        d = xy * (1.0 + self.k1 * r2 + self.k2 * r2 * r2)
        out: np.ndarray = d * f + [cx, cy]
        return out

    def undistort(self, pts_px: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
        """Pixels of the real picture -> ideal (pinhole) pixels, in the same pixel frame."""
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        if self.is_identity():
            return p.copy()
        xy, (cx, cy, f) = _normalise(p, image_size)
        out: np.ndarray = _undistort_norm(xy, self.k1, self.k2) * f + [cx, cy]
        return out

    def monotonic_over(self, image_size: tuple[int, int]) -> bool:
        """True when the model maps the whole picture one-to-one (a fit that is not is refused)."""
        w, h = image_size
        r2 = np.linspace(0.0, ((w / 2) ** 2 + (h / 2) ** 2) / float(w) ** 2 * 1.2, 64)
        return bool(np.all(1.0 + 3.0 * self.k1 * r2 + 5.0 * self.k2 * r2 * r2 > 0.05))

    def plausible_over(self, image_size: tuple[int, int]) -> bool:
        """One-to-one over the picture, and moving its corners by less than a factor of 4 either way: a stored
        lens outside that (a hand edit such as k1 = 1e308) would send every reading off the table."""
        w, h = image_size
        r2 = ((w / 2) ** 2 + (h / 2) ** 2) / float(w) ** 2
        with np.errstate(over="ignore", invalid="ignore"):
            factor = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
            return bool(math.isfinite(factor) and 0.25 <= factor <= 4.0 and self.monotonic_over(image_size))

    def to_dict(self) -> dict[str, Any]:
        return {"model": "radial k1 k2, centre = image centre, f = image width", "k1": self.k1, "k2": self.k2}

    @staticmethod
    def from_dict(d: Mapping[str, Any] | None) -> "LensModel":
        if d is None:
            return LensModel()
        if not isinstance(d, Mapping):
            raise CalibrationError(f"lens entry {d!r} is not an object with k1, k2; run `pitboard calibrate` again")
        k1, k2 = float(d.get("k1", 0.0)), float(d.get("k2", 0.0))
        if not (math.isfinite(k1) and math.isfinite(k2)):
            raise CalibrationError("lens k1/k2 must be finite numbers; run `pitboard calibrate` again")
        return LensModel(k1, k2)


def _normalise(p: np.ndarray, image_size: tuple[int, int]) -> tuple[np.ndarray, tuple[float, float, float]]:
    w, h = float(image_size[0]), float(image_size[1])
    return (p - [w / 2.0, h / 2.0]) / w, (w / 2.0, h / 2.0, w)


def _undistort_norm(xy: np.ndarray, k1: float, k2: float) -> np.ndarray:
    """Invert x_d = x (1 + k1 r^2 + k2 r^4) by Newton's method on the radius."""
    rd = np.hypot(xy[:, 0], xy[:, 1])
    ru = rd.copy()
    for _ in range(25):
        r2 = ru * ru
        g = ru * (1.0 + k1 * r2 + k2 * r2 * r2) - rd
        dg = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2
        step = g / np.where(np.abs(dg) < 1e-6, 1e-6, dg)
        ru = ru - step
        if not len(step) or float(np.max(np.abs(step))) < 1e-12:
            break
    scale = np.ones_like(rd)
    nz = rd > 1e-15
    scale[nz] = ru[nz] / rd[nz]
    out: np.ndarray = xy * scale[:, None]
    return out


@dataclass(frozen=True)
class TagCard:
    """A printed card carrying tags at known places in its own frame (mm; origin at the card's top-left
    corner, x right, y down, every tag upright: its top edge towards the card's top) and, optionally,
    the polygon of a zone in the same frame.  Where the card lies on the mat is not known: the camera
    finds it.  ``tags`` holds (id, x, y, side) with (x, y) the top-left corner of the tag's black square."""

    name: str
    tags: tuple[tuple[int, float, float, float], ...]
    zone_polygon: tuple[tuple[float, float], ...] = ()
    zone_kind: str = "tokens"
    size_mm: tuple[float, float] = (150.0, 120.0)

    def tag_corners_mm(self) -> dict[int, np.ndarray]:
        """Tag id -> its 4 corners (TL, TR, BR, BL, the ArUco order) in the card's frame."""
        return {int(i): np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)
                for i, x, y, s in self.tags}

    def ids(self) -> tuple[int, ...]:
        return tuple(int(t[0]) for t in self.tags)


#: The tags of the token-zone cards p1..p6 (a table seats up to six; 30-48 are the templates' tags, so the
#: sixth card's are 50 and 51).
ZONE_CARD_IDS: tuple[tuple[int, int], ...] = ((20, 21), (22, 23), (24, 25), (26, 27), (28, 29), (50, 51))


def token_zone_card(name: str, ids: tuple[int, int], tag_mm: float = 20.0,
                    window_mm: tuple[float, float] = (140.0, 76.0)) -> TagCard:
    """The printed token-zone card: a header band with two tags (left and right) above a framed window;
    the window is the zone where that player's hazard tokens go."""
    ww, wh = window_mm
    edge = 5.0  # paper margin around the window, and the tags' distance from the card's side
    header = edge + tag_mm + edge  # white paper above and below the tags (their quiet zone)
    cw, ch = ww + 2 * edge, header + wh + edge
    tags = ((int(ids[0]), edge, edge, tag_mm), (int(ids[1]), cw - edge - tag_mm, edge, tag_mm))
    x0, y0 = edge, header
    window = ((x0, y0), (x0 + ww, y0), (x0 + ww, y0 + wh), (x0, y0 + wh))
    return TagCard(name, tags, window, "tokens", (cw, ch))


def default_zone_cards(players: int = 4) -> tuple[TagCard, ...]:
    """One token-zone card per player, named like ``default_zones`` (p1, p2, ...): :data:`ZONE_CARD_IDS`."""
    n = max(0, min(int(players), len(ZONE_CARD_IDS)))
    return tuple(token_zone_card(f"p{i + 1}", ZONE_CARD_IDS[i]) for i in range(n))


def _rigid_fit(local: np.ndarray, world: np.ndarray) -> tuple[float, float, float]:
    """Least-squares rotation + translation taking ``local`` onto ``world`` (2-D Procrustes, no scale):
    (tx, ty, angle_rad)."""
    lc, wc = local.mean(axis=0), world.mean(axis=0)
    a, b = local - lc, world - wc
    ang = math.atan2(float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])), float(np.sum(a * b)))
    c, s = math.cos(ang), math.sin(ang)
    t = wc - np.array([[c, -s], [s, c]]) @ lc
    return float(t[0]), float(t[1]), ang


def _rigid_apply(local: np.ndarray, pose: tuple[float, float, float] | np.ndarray) -> np.ndarray:
    """Apply a pose (tx, ty, angle_rad), a tuple from ``_rigid_fit`` or 3 fitted parameters."""
    c, s = math.cos(pose[2]), math.sin(pose[2])
    out: np.ndarray = local @ np.array([[c, s], [-s, c]]) + [pose[0], pose[1]]
    return out


def _card_points(detections: Mapping[int, np.ndarray],
                 cards: Sequence[TagCard]) -> list[tuple[TagCard, np.ndarray, np.ndarray]]:
    """(card, observed px (N, 2), card-frame mm (N, 2)) for every card with at least one tag seen."""
    out: list[tuple[TagCard, np.ndarray, np.ndarray]] = []
    for card in cards:
        local = card.tag_corners_mm()
        seen = [i for i in card.ids() if i in detections]
        if seen:
            out.append((card, np.vstack([np.asarray(detections[i], dtype=np.float64).reshape(4, 2) for i in seen]),
                        np.vstack([local[i] for i in seen])))
    return out


def zones_from_cards(detections: Mapping[int, np.ndarray], calibration: "Calibration",
                     cards: Sequence[TagCard]) -> tuple[Zone, ...]:
    """Zones where the printed cards lie: for every card with a tag in ``detections`` (id -> 4x2 pixel
    corners), its position on the mat from its tags and its zone polygon carried along.  Cards not seen
    give no zone.  Raises ``CalibrationError`` when a card's tags do not fit the card (printed at the
    wrong scale, or cut apart)."""
    zones = []
    for card, px, local in _card_points(detections, cards):
        mm = calibration.to_mm(px)
        pose = _rigid_fit(local, mm)
        err = float(np.sqrt(np.mean(np.sum((_rigid_apply(local, pose) - mm) ** 2, axis=1))))
        if err > 4.0:
            raise CalibrationError(
                f"the tags of token card {card.name!r} are {err:.1f} mm off the card's layout: print the cards at "
                "100 % scale (no 'fit to page'), keep each card in one piece and lay it flat")
        if card.zone_polygon:
            poly = _rigid_apply(np.array(card.zone_polygon, dtype=np.float64), pose)
            zones.append(Zone(card.name, card.zone_kind, tuple((float(x), float(y)) for x, y in poly)))
    return tuple(zones)


def _lm(fun: Callable[[np.ndarray], np.ndarray], p0: np.ndarray, iters: int = 60) -> np.ndarray:
    """Levenberg-Marquardt with a forward-difference Jacobian and Marquardt's diagonal scaling (the
    problems here have 10-30 parameters and ~100 residuals)."""
    p = np.asarray(p0, dtype=np.float64).copy()
    r = fun(p)
    cost = float(r @ r)
    lam = 1e-3
    for _ in range(iters):
        jac = np.empty((len(r), len(p)))
        for j in range(len(p)):
            h = 1e-7 * max(1.0, abs(p[j]))
            q = p.copy()
            q[j] += h
            jac[:, j] = (fun(q) - r) / h
        a = jac.T @ jac
        g = jac.T @ r
        d = np.diag(a).copy() + 1e-12
        improved = False
        for _ in range(12):
            try:
                step = np.linalg.solve(a + lam * np.diag(d), -g)
            except np.linalg.LinAlgError:
                lam *= 10.0
                continue
            rn = fun(p + step)
            cn = float(rn @ rn)
            if np.isfinite(cn) and cn < cost:
                p, r, improved = p + step, rn, True
                done = cost - cn < 1e-12 * max(cost, 1e-12) or float(np.max(np.abs(step))) < 1e-12
                cost = cn
                lam = max(lam / 4.0, 1e-9)
                break
            lam *= 6.0
        if not improved or done:
            break
    return p


_CORNER_OUT = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])  # TL, TR, BR, BL of a tag


def _fit_with_lens(src: np.ndarray, dst: np.ndarray, card_obs: Sequence[tuple[np.ndarray, np.ndarray]],
                   image_size: tuple[int, int], terms: int) -> tuple[np.ndarray, LensModel, float]:
    """Homography (undistorted pixels -> mm) and lens (``terms`` = 1: k1; 2: k1, k2) fitted together to
    the corner tags (``src`` px -> ``dst`` mm) and the card tags (px -> card frame, card pose free).
    Returns (px_to_mm, lens, edge offset mm).

    One more unknown, the tags' edge offset (ink spread, blur and the detector make every black square
    look a fraction of a millimetre larger or smaller), is fitted too: left out, it passes for lens
    distortion (both change the tags' apparent size near the picture's corners)."""
    xy, (cx, cy, f) = _normalise(src, image_size)
    out_src = np.tile(_CORNER_OUT, (len(src) // 4, 1)) / 1000.0
    cards_xy = [(_normalise(px, image_size)[0], local / 1000.0, np.tile(_CORNER_OUT, (len(px) // 4, 1)) / 1000.0)
                for px, local in card_obs]
    h0 = _fit_homography(xy, dst / 1000.0)
    poses0: list[float] = []
    for cxy, local, _ in cards_xy:
        poses0.extend(_rigid_fit(local, apply_h(h0, cxy)))
    p0 = np.concatenate([h0.ravel()[:8], [0.0], np.zeros(terms), np.array(poses0, dtype=np.float64)])

    def unpack(p: np.ndarray) -> tuple[np.ndarray, float, float, float, np.ndarray]:
        hm = np.append(p[:8], 1.0).reshape(3, 3)
        ks = list(p[9:9 + terms]) + [0.0] * (2 - terms)
        return hm, p[8], ks[0], ks[1], p[9 + terms:]

    def residuals(p: np.ndarray) -> np.ndarray:
        hm, grow, k1, k2, poses = unpack(p)
        parts = [(apply_h(hm, _undistort_norm(xy, k1, k2)) - (dst / 1000.0 + grow * out_src)).ravel()]
        for i, (cxy, local, out) in enumerate(cards_xy):
            pose = poses[3 * i:3 * i + 3]
            parts.append((apply_h(hm, _undistort_norm(cxy, k1, k2)) - _rigid_apply(local + grow * out, pose)).ravel())
        # a faint pull towards no distortion, so a lens the points cannot see stays near zero
        parts.append(np.array([k1, k2]) * 5e-4)
        return np.concatenate(parts) * 1000.0

    hm, grow, k1, k2, _ = unpack(_lm(residuals, p0))
    norm = np.array([[1.0 / f, 0.0, -cx / f], [0.0, 1.0 / f, -cy / f], [0.0, 0.0, 1.0]])
    px_to_mm = np.diag([1000.0, 1000.0, 1.0]) @ hm @ norm
    return px_to_mm / px_to_mm[2, 2], LensModel(float(k1), float(k2)), float(grow)


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


#: The horizontal fields of view a calibration takes, in degrees (``pitboard calibrate --hfov``).  The value
#: sets the focal length of the pinhole model the roof tags' height is corrected with (:func:`intrinsics`):
#: a Camera Module 3 is 66, its Wide 102, a fisheye module or M12 lens up to ~160 (the barrel itself is the
#: lens model's work).  Below 20 is a telephoto no camera over a table has; at 180 and beyond the pinhole
#: has no focal length at all.
HFOV_RANGE_DEG = (20.0, 170.0)


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
    out: np.ndarray = hmat / hmat[2, 2]
    return out


@dataclass(frozen=True)
class Calibration:
    """A calibrated table: ``px_to_mm`` homography (from *undistorted* pixels), the image size it belongs
    to, the mat size, the zones, the reprojection error (``rms_mm``: the corner tags' residual), the
    camera's horizontal field of view and its lens (identity for a pinhole, or an old file)."""

    px_to_mm: np.ndarray
    image_size: tuple[int, int]
    mat_mm: tuple[float, float]
    zones: tuple[Zone, ...] = ()
    rms_px: float = 0.0
    rms_mm: float = 0.0
    hfov_deg: float = 66.0
    source: str = "markers"
    lens: LensModel = LensModel()
    _cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def mm_to_px(self) -> np.ndarray:
        if "inv" not in self._cache:
            inv = np.linalg.inv(self.px_to_mm)
            self._cache["inv"] = inv / inv[2, 2]
        out: np.ndarray = self._cache["inv"]
        return out

    @property
    def warning(self) -> str | None:
        """A sentence for the owner when the calibration is usable but not good (corner residual above
        ``WARN_RMS_MM``), else None.  The CLI prints it."""
        if self.rms_mm <= WARN_RMS_MM:
            return None
        return (f"the corner tags fit only to {self.rms_mm:.1f} mm (more than {WARN_RMS_MM:g} mm): positions "
                "will be off by about as much; check the mat size, that each corner tag's black square sits "
                "on its mat corner and lies flat, and lay the token-zone cards on the mat while calibrating "
                "so a wide lens can be measured")

    def undistort_px(self, pts_px: np.ndarray) -> np.ndarray:
        """Picture pixels -> ideal pinhole pixels (the frame ``px_to_mm`` works in)."""
        return self.lens.undistort(pts_px, self.image_size)

    def to_mm(self, pts_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Pixels -> mat millimetres; ``height_mm`` > 0 for points on a plane above the mat (the
        result is the point on the mat directly below)."""
        p = self.undistort_px(pts_px)
        if height_mm == 0.0:
            return apply_h(self.px_to_mm, p)
        return apply_h(self.height_px_to_mm(height_mm), p)

    def to_px(self, pts_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Mat millimetres (on the plane ``height_mm`` above the mat) -> picture pixels."""
        if height_mm == 0.0:
            ideal = apply_h(self.mm_to_px, pts_mm)
        else:
            ideal = apply_h(np.linalg.inv(self.height_px_to_mm(height_mm)), pts_mm)
        return self.lens.distort(ideal, self.image_size)

    def warp_to_mm(self, image: np.ndarray, mm_per_px: float, size_px: tuple[int, int],
                   origin_mm: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """Top-down view of the mat: output pixel (u, v) shows the mat point (x0 + u s, y0 + v s) mm,
        s = ``mm_per_px``.  Follows the lens (a plain perspective warp would be off by the distortion);
        without one it is exactly ``cv2.warpPerspective(image, shift @ px_to_mm, size_px)``."""
        import cv2

        s = float(mm_per_px)
        x0, y0 = float(origin_mm[0]), float(origin_mm[1])
        gw, gh = int(size_px[0]), int(size_px[1])
        if self.lens.is_identity():
            shift = np.array([[1 / s, 0, -x0 / s], [0, 1 / s, -y0 / s], [0, 0, 1.0]])
            return cv2.warpPerspective(image, shift @ self.px_to_mm, (gw, gh), flags=cv2.INTER_LINEAR)
        key = ("warp", round(s, 6), gw, gh, round(x0, 3), round(y0, 3))
        maps = self._cache.get(key)
        if maps is None:
            uu, vv = np.meshgrid(np.arange(gw, dtype=np.float64), np.arange(gh, dtype=np.float64))
            px = self.to_px(np.stack([x0 + uu.ravel() * s, y0 + vv.ravel() * s], axis=1))
            maps = (px[:, 0].reshape(gh, gw).astype(np.float32), px[:, 1].reshape(gh, gw).astype(np.float32))
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = maps
        warped: np.ndarray = cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return warped

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
        pose: tuple[np.ndarray, np.ndarray, np.ndarray] = self._cache["pose"]
        return pose

    def height_px_to_mm(self, height_mm: float) -> np.ndarray:
        """Homography from pixels to mat mm for the plane ``height_mm`` above the mat."""
        key = ("h", round(height_mm, 3))
        if key not in self._cache:
            k, rot, t = self.camera_pose()
            hz = k @ np.stack([rot[:, 0], rot[:, 1], t - height_mm * rot[:, 2]], axis=1)
            inv = np.linalg.inv(hz)
            self._cache[key] = inv / inv[2, 2]
        out: np.ndarray = self._cache[key]
        return out

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
                           self.rms_mm, self.hfov_deg, self.source, self.lens)

    def to_dict(self) -> dict[str, Any]:
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
            "lens": self.lens.to_dict(),
            "warning": self.warning,
        }

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Calibration":
        try:
            schema = int(d.get("schema", 0))
            if schema > CALIBRATION_SCHEMA:  # calibrating again would write over what a newer Pitboard made
                raise CalibrationError(f"calibration schema {schema} was written by a newer Pitboard (this one reads "
                                       f"{CALIBRATION_SCHEMA}); upgrade Pitboard to use it (the file is left as it is)")
            if schema != CALIBRATION_SCHEMA:
                raise CalibrationError(f"calibration schema {d.get('schema')!r} is not {CALIBRATION_SCHEMA}; "
                                       "run `pitboard calibrate` again")
            hmat = np.array(d["px_to_mm"], dtype=np.float64)
            if hmat.shape != (3, 3) or not np.all(np.isfinite(hmat)):
                raise CalibrationError("px_to_mm must be a finite 3x3 matrix; run `pitboard calibrate` again")
            cond = np.linalg.cond(hmat)
            if not np.isfinite(cond) or cond > 1e12:
                # all zeros, or a hand edit that folds the frame onto a line: every reading would be nonsense
                raise CalibrationError("px_to_mm is degenerate (it maps the frame onto a line or a point); "
                                       "run `pitboard calibrate` again")
            size = d["image_size"]
            if (len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in size)
                    or not all(16 <= v <= 20000 for v in size)):
                raise CalibrationError(f"image_size must be two whole numbers of pixels (16-20000), not {size!r}; "
                                       "run `pitboard calibrate` again")
            mat = (float(d["mat_mm"][0]), float(d["mat_mm"][1]))
            if isinstance(d["mat_mm"][0], bool) or isinstance(d["mat_mm"][1], bool) or not all(
                    math.isfinite(v) and 0 < v <= MAT_MM_MAX for v in mat):
                raise CalibrationError(f"mat_mm must be two sizes in mm (0-{MAT_MM_MAX:g}), not {d['mat_mm']!r}; "
                                       "run `pitboard calibrate` again")
            lens = LensModel.from_dict(d.get("lens"))
            if not lens.plausible_over((int(size[0]), int(size[1]))):
                raise CalibrationError(f"lens k1 {lens.k1:g}, k2 {lens.k2:g} would fold or fling the picture "
                                       "(no real lens bends it so); run `pitboard calibrate` again")
            return Calibration(
                px_to_mm=hmat,
                image_size=(int(size[0]), int(size[1])),
                mat_mm=mat,
                zones=unique_zones([Zone.from_dict(z) for z in d.get("zones", [])]),
                rms_px=float(d.get("rms_px", 0.0)),
                rms_mm=float(d.get("rms_mm", 0.0)),
                hfov_deg=_stored_hfov(d.get("hfov_deg", 66.0)),
                source=str(d.get("source", "markers")),
                lens=lens,
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            what = f"the field {exc.args[0]!r} is missing" if isinstance(exc, KeyError) and exc.args else str(exc)
            raise CalibrationError(f"calibration data is incomplete or malformed ({what}); "
                                   "run `pitboard calibrate` again") from exc


def _stored_hfov(value: Any) -> float:
    """A calibration's ``hfov_deg``, refused unless a real lens's (an owner's edit, or a file written
    before ``--hfov`` was checked: the roof tags' heights would be corrected with a nonsense focal length)."""
    low, high = HFOV_RANGE_DEG
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= float(value) <= high:
        raise CalibrationError(f"hfov_deg {value!r} is not a horizontal field of view a camera lens has "
                               f"({low:g} to {high:g} degrees: a Camera Module 3 is 66, the Wide 102); "
                               "run `pitboard calibrate` again")
    return float(value)


LENS_CHOICES = ("auto", "none", "k1", "k1k2")


def calibrate_from_markers(
    detections: Mapping[int, np.ndarray],
    layout: CornerLayout,
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
    cards: Sequence[TagCard] = (),
    lens: str = "auto",
) -> Calibration:
    """Calibrate from detected markers (id -> 4x2 pixel corners in ArUco order).

    All four corner markers are required: three would do mathematically, but a missing corner usually
    means something lies on the mat's edge, and a quietly worse calibration is the wrong default.

    ``lens``: "auto" fits k1 from the corner tags alone and k1, k2 once a card (``cards``, e.g.
    ``default_zone_cards()``) is seen too; "none" is a plain homography; "k1" / "k1k2" force the terms.
    Cards seen also become zones: each card's zone replaces the zone of the same name."""
    if lens not in LENS_CHOICES:
        raise CalibrationError(f"lens {lens!r} is not one of {', '.join(LENS_CHOICES)}")
    ref = layout.marker_corners_mm()
    missing = [i for i in layout.ids if i not in detections]
    if missing:
        seen = sorted(i for i in detections if i in ref)
        raise CalibrationError(
            f"corner markers {missing} not found (seen: {seen or 'none'}); make sure all four corner "
            f"tags (ids {list(layout.ids)}) are visible, flat and not covered, then try again")
    swapped = swapped_corner_tags(layout.ids, [np.asarray(detections[i], dtype=np.float64).reshape(4, 2).mean(axis=0)
                                               for i in layout.ids])
    if swapped is not None:
        raise CalibrationError(swapped)
    src = np.vstack([np.asarray(detections[i], dtype=np.float64).reshape(4, 2) for i in layout.ids])
    dst = np.vstack([ref[i] for i in layout.ids])
    card_obs = [(px, local) for _, px, local in _card_points(detections, cards)]
    terms = {"none": 0, "k1": 1, "k1k2": 2, "auto": 2 if card_obs else 1}[lens]
    cal = _finish(src, dst, image_size, layout.mat_mm, zones, hfov_deg, "markers", card_obs, terms)
    if cards:
        found = zones_from_cards(detections, cal, cards)
        if found:
            names = {z.name for z in found}
            cal = cal.with_zones([z for z in cal.zones if z.name not in names] + list(found))
    return cal


CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def _seen_as_a_mat(pts: Sequence[np.ndarray]) -> bool:
    """Four points (TL, TR, BR, BL) as a camera sees a mat's corners: convex, and not mirrored."""
    for i in range(4):
        a, b = pts[(i + 1) % 4] - pts[i], pts[(i - 1) % 4] - pts[i]
        if a[0] * b[1] - a[1] * b[0] <= 0:
            return False
    return True


def swapped_corner_tags(ids: Sequence[int], centres: Sequence[np.ndarray]) -> str | None:
    """When the corner tags (``ids`` in the order TL, TR, BR, BL, seen at ``centres``) cannot be a mat as a
    camera sees it but two of them exchanged can: which two, and where each goes (None otherwise: the mat
    may be seen turned any way, which is no mistake)."""
    pts = [np.asarray(c, dtype=np.float64) for c in centres]
    if _seen_as_a_mat(pts):
        return None
    fixes = []
    for i in range(4):
        for j in range(i + 1, 4):
            trial = list(pts)
            trial[i], trial[j] = trial[j], trial[i]
            if _seen_as_a_mat(trial):
                # two diagonal tags swapped leave the mat mirrored, which the other diagonal's swap mends too
                # (into the mat turned round): the swap that leaves it most nearly upright is the one made
                top = trial[1] - trial[0]
                fixes.append((abs(math.degrees(math.atan2(top[1], top[0]))), i, j))
    if not fixes:
        return None
    _, i, j = min(fixes)
    return (f"corner tags {ids[i]} and {ids[j]} look swapped: tag {ids[i]} goes on the mat's {CORNER_NAMES[i]} "
            f"corner and tag {ids[j]} on its {CORNER_NAMES[j]} corner (the sheet prints where each goes); exchange "
            "them and try again")


#: How far outside the frame (a share of its width or height) a corner given by hand may lie.
POINT_SLACK = 0.25


def calibrate_from_points(
    points_px: Sequence[Sequence[float]],
    mat_mm: tuple[float, float],
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
) -> Calibration:
    """Calibrate from the four mat corners given by hand (pixels, order TL, TR, BR, BL).  Four points
    fix a homography and nothing more: no lens model."""
    src = np.asarray(points_px, dtype=np.float64)
    if src.shape != (4, 2) or not np.all(np.isfinite(src)):
        raise CalibrationError("give exactly four corner points 'x,y' in the order top-left, top-right, "
                               "bottom-right, bottom-left")
    iw, ih = int(image_size[0]), int(image_size[1])
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    for name, (x, y) in zip(names, src):
        # a corner may lie a little out of view; far outside the frame it is a mistyped value or the wrong frame
        if not (-POINT_SLACK * iw <= x <= (1 + POINT_SLACK) * iw and -POINT_SLACK * ih <= y <= (1 + POINT_SLACK) * ih):
            raise CalibrationError(f"the {name} corner point {x:g},{y:g} lies outside the {iw}x{ih} frame; give the "
                                   "corners in pixels of that frame (or the frame the points were read from)")
    area = 0.5 * abs(np.dot(src[:, 0], np.roll(src[:, 1], 1)) - np.dot(src[:, 1], np.roll(src[:, 0], 1)))
    if area < 100:
        raise CalibrationError("the four corner points enclose almost no area; check their order and values")
    w, h = mat_mm
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    return _finish(src, dst, image_size, mat_mm, zones, hfov_deg, "points")


def _finish(src: np.ndarray, dst: np.ndarray, image_size: tuple[int, int], mat_mm: tuple[float, float],
            zones: Sequence[Zone] | None, hfov_deg: float, source: str,
            card_obs: Sequence[tuple[np.ndarray, np.ndarray]] = (), terms: int = 0) -> Calibration:
    size = (int(image_size[0]), int(image_size[1]))
    lens_model = LensModel()
    hmat = _fit_homography(src, dst)
    if terms > 0:
        h_lens, lens_fit, grow = _fit_with_lens(src, dst, card_obs, size, terms)
        # keep the lens only when it maps the picture one-to-one (a fit that folds it is nonsense)
        if lens_fit.monotonic_over(size) and np.all(np.isfinite(h_lens)) and abs(grow) < 5.0:
            hmat, lens_model = h_lens, lens_fit
            # the residual is what the model leaves unexplained: the fitted edge offset is part of it
            dst = dst + grow * np.tile(_CORNER_OUT, (len(dst) // 4, 1))
    ideal = lens_model.undistort(src, size)
    inv = np.linalg.inv(hmat)
    rms_mm = float(np.sqrt(np.mean(np.sum((apply_h(hmat, ideal) - dst) ** 2, axis=1))))
    rms_px = float(np.sqrt(np.mean(np.sum((lens_model.distort(apply_h(inv, dst), size) - src) ** 2, axis=1))))
    if zones is None:
        zones = default_zones(mat_mm)
    cal = Calibration(hmat, size, (float(mat_mm[0]), float(mat_mm[1])),
                      tuple(zones), rms_px, rms_mm, float(hfov_deg), source, lens_model)
    # A mirrored or wildly skewed mapping means swapped ids or points: refuse it.
    corners = cal.to_px(np.array([[0, 0], [mat_mm[0], 0], [mat_mm[0], mat_mm[1]], [0, mat_mm[1]]]))
    a, b = corners[1] - corners[0], corners[3] - corners[0]
    cross = a[0] * b[1] - a[1] * b[0]
    if cross <= 0:
        raise CalibrationError("the corners come out mirrored: the corner tags (or points) are in the wrong "
                               "order; place ids top-left, top-right, bottom-right, bottom-left")
    # A camera sees a rectangular mat as a convex four-sided shape: a corner folded inward (a typed point
    # off by hundreds of pixels) maps the mat through the horizon, and every position read is nonsense.
    for i, name in enumerate(("top-left", "top-right", "bottom-right", "bottom-left")):
        a, b = corners[(i + 1) % 4] - corners[i], corners[(i - 1) % 4] - corners[i]
        if a[0] * b[1] - a[1] * b[0] <= 0:
            raise CalibrationError(f"the four corners do not make a four-sided shape a camera could see of a mat: "
                                   f"the {name} corner folds inward; check each corner's position (the points in "
                                   "the order top-left, top-right, bottom-right, bottom-left)")
    if rms_mm > MAX_RMS_MM:
        raise CalibrationError(f"corner reprojection error {rms_mm:.1f} mm is too large: the corner tags are "
                               "not where the layout says (mat size wrong, or a tag moved); check and retry")
    return cal


def cards_not_seen(detections: Mapping[int, np.ndarray], calibration: Calibration,
                   cards: Sequence[TagCard]) -> str | None:
    """The token zones of ``calibration`` whose card has no tag in ``detections`` while another card has one, and
    what to do; None when every card was seen, or none (a table using the default places).  An independent audit:
    a card laid away from its default place and missed at calibration (one in ten at 720p) kept its default zone
    without a word; that zone then read 0 in every frame, and `teach tokens` found no tokens on the card."""
    seen = {card.name for card in cards if any(i in detections for i in card.ids())}
    unseen = [z.name for z in calibration.zones if z.kind == "tokens" and z.name not in seen]
    if not seen or not unseen:
        return None
    one = len(unseen) == 1
    return (f"the token-zone card{'' if one else 's'} of {', '.join(unseen)} {'was' if one else 'were'} not seen in "
            f"this frame (those of {', '.join(sorted(seen))} were): {'its zone stays' if one else 'their zones stay'} "
            "where the last calibration or the default places put them; if a card lies elsewhere, calibrate again "
            "with it flat, uncovered and lit, both its tags in view")


def calibrate_table(
    detections: Mapping[int, np.ndarray],
    layout: CornerLayout,
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
    lens: str = "auto",
) -> tuple[Calibration | None, str | None, str | None]:
    """The table calibrated from one frame's tags as the appliance does it, ``pitboard calibrate`` and the phone
    alike: the mat's corners and every token-zone card (a card seen places its zone; the phone's calibration,
    made without the cards, left each zone at its default place).  Returns (calibration or None, why not, the
    cards not seen: :func:`cards_not_seen`)."""
    cards = default_zone_cards(len(ZONE_CARD_IDS))
    cal, message = update_calibration(None, detections, layout, image_size, zones, hfov_deg, cards=cards, lens=lens)
    return cal, message, cards_not_seen(detections, cal, cards) if cal is not None else None


def update_calibration(
    previous: Calibration | None,
    detections: Mapping[int, np.ndarray],
    layout: CornerLayout,
    image_size: tuple[int, int],
    zones: Sequence[Zone] | None = None,
    hfov_deg: float = 66.0,
    cards: Sequence[TagCard] = (),
    lens: str = "auto",
) -> tuple[Calibration | None, str | None]:
    """Try to recalibrate from a new frame.  On failure keep the last good calibration and say why:
    returns (calibration to use, message or None).  Zones of the previous calibration carry over
    when none are given (cards seen in the frame still replace their own zones)."""
    if zones is None and previous is not None:
        zones = previous.zones
    try:
        return calibrate_from_markers(detections, layout, image_size, zones, hfov_deg, cards, lens), None
    except CalibrationError as exc:
        keep = " - keeping the last good calibration" if previous is not None else " - no calibration yet"
        return previous, f"{exc}{keep}"
