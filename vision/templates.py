"""Maneuver templates on the table: which one, where, which hand, against which car's front or rear.

Two ways to know a template, in this order:

1. **By tag.**  A tag stuck on the template names it (id -> template, face) and its pose gives the
   template's pose exactly, through the tag's position on the template (``template_shapes.toml``).
2. **By outline.**  Untagged tinted acrylic is segmented from the rectified (top-down, mm) mat by its
   colour saturation; each blob is compared with the outlines the owner taught
   (``pitboard teach template NAME``), both hands, aligned by centroid and principal axis and then
   polished by a small hill-climb.  A blob that matches no taught outline well enough (intersection
   over union below ``min_iou``) is **not reported**: a template half hidden under a hand gives no
   observation rather than a guess.

Attachment is geometry, not rules: an end of the template (either end - players may put any end
against the car) lying on the midpoint of a car's front or rear edge, pointing away from the car,
within tolerances.  The end that touches the car is the *entry*: the template's heading is the
direction of travel there, and its hand is the side the far end lies on.  Whether that template is
allowed in the car's gear is the rules engine's decision (``games.gaslands``), not vision's.

Coordinates: the table frame of ``vision.calibration`` (mm, y down, headings clockwise in degrees).
Template outlines live in their own frame (entry midpoint at the origin, travel along +u, +v to the
right; right-hand form), described in ``vision/data/template_shapes.toml``.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TEMPLATE_NAMES: tuple[str, ...] = (
    "short_straight", "medium_straight", "long_straight", "gentle", "turn", "hard", "veer", "swerve", "hairpin",
)


DEFAULT_THICKNESS_MM = 3.0  # Gaslands templates are ~3 mm acrylic (an estimate: measure yours)


class ShapeDataError(ValueError):
    """Template shape data (built in, edited or taught) is malformed; the message names the entry."""


@dataclass(frozen=True)
class TemplateShape:
    """A template's outline in its own frame, its far end and where its tag sits (see module doc)."""

    name: str
    outline: np.ndarray  # (N, 2) mm, right-hand form
    straight: bool
    exit: tuple[float, float, float] = (0.0, 0.0, 0.0)  # u, v, heading_deg of the far end
    tag: tuple[float, float, float] | None = None  # u, v, size_mm (face "a"; face "b" mirrors it)
    thickness_mm: float = DEFAULT_THICKNESS_MM  # the acrylic's thickness: its tag lies this far above the mat

    @property
    def tag_height_mm(self) -> float:
        """Height of the upper face's tag above the mat (pass to ``vision.markers.tag_pose``)."""
        return self.thickness_mm

    def area(self) -> float:
        p = self.outline
        return 0.5 * abs(float(np.dot(p[:, 0], np.roll(p[:, 1], 1)) - np.dot(p[:, 1], np.roll(p[:, 0], 1))))


def _shape_from_entry(name: str, d: Mapping[str, Any],
                      thickness_default: float = DEFAULT_THICKNESS_MM) -> TemplateShape:
    if name not in TEMPLATE_NAMES:
        raise ShapeDataError(f"unknown template {name!r}; names are {', '.join(TEMPLATE_NAMES)}")
    try:
        outline = np.array(d["outline"], dtype=np.float64)
        straight = bool(d.get("straight", False))
        ex = tuple(float(v) for v in d.get("exit", (0.0, 0.0, 0.0)))
        tag = d.get("tag")
        tag_t = tuple(float(v) for v in tag) if tag is not None else None
        thickness = float(d.get("thickness_mm", thickness_default))
    except (KeyError, TypeError, ValueError) as exc:
        raise ShapeDataError(f"template {name!r}: outline/exit/tag malformed ({exc!r})") from exc
    if outline.ndim != 2 or outline.shape[1] != 2 or len(outline) < 3:
        raise ShapeDataError(f"template {name!r}: outline needs at least 3 [u, v] points")
    if len(ex) != 3 or (tag_t is not None and len(tag_t) != 3):
        raise ShapeDataError(f"template {name!r}: exit is [u, v, heading_deg] and tag is [u, v, size_mm]")
    if not (0.0 <= thickness <= 20.0):
        raise ShapeDataError(f"template {name!r}: thickness_mm {thickness:g} is out of range; give the acrylic's "
                             "thickness in mm (0-20, about 3 for Gaslands templates)")
    return TemplateShape(name, outline, straight, ex, tag_t, thickness)


def shapes_from_dict(data: Mapping[str, Any]) -> dict[str, TemplateShape]:
    """Parse the ``[templates.NAME]`` tables of a shapes document (parsed TOML).  A top-level
    ``thickness_mm`` is the default for templates that do not give their own."""
    table = data.get("templates")
    if not isinstance(table, Mapping):
        raise ShapeDataError("shape data has no [templates.NAME] tables")
    try:
        thickness = float(data.get("thickness_mm", DEFAULT_THICKNESS_MM))
    except (TypeError, ValueError) as exc:
        raise ShapeDataError(f"shape data: thickness_mm must be a number of millimetres ({exc})") from exc
    return {name: _shape_from_entry(name, entry, thickness) for name, entry in table.items()}


def shapes_from_toml(text: bytes | str) -> dict[str, TemplateShape]:
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        return shapes_from_dict(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise ShapeDataError(f"template shapes are not valid TOML: {exc}") from exc


def builtin_shapes() -> dict[str, TemplateShape]:
    """The shipped (estimated) shapes, read from the package's own data file."""
    from importlib.resources import files

    return shapes_from_toml(files("vision").joinpath("data/template_shapes.toml").read_bytes())


def shapes_to_toml(shapes: Mapping[str, TemplateShape], header: str = "") -> str:
    """Serialise shapes (e.g. taught outlines) in the same format as the shipped file."""
    lines = [f"# {ln}" if ln else "#" for ln in header.splitlines()] + ["schema = 1", ""]
    for name, s in shapes.items():
        lines.append(f"[templates.{name}]")
        lines.append(f"straight = {'true' if s.straight else 'false'}")
        lines.append("exit = [{:.1f}, {:.1f}, {:.1f}]".format(*s.exit))
        if s.tag is not None:
            lines.append("tag = [{:.1f}, {:.1f}, {:.1f}]".format(*s.tag))
        lines.append(f"thickness_mm = {s.thickness_mm:.1f}")
        lines.append("outline = [" + ", ".join(f"[{u:.1f}, {v:.1f}]" for u, v in s.outline) + "]")
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Observations


@dataclass(frozen=True)
class CarObservation:
    """A car seen by its roof tag: centre of its footprint (mm) and heading of its nose (deg)."""

    id: str
    centre_mm: tuple[float, float]
    heading_deg: float
    tag_id: int


@dataclass(frozen=True)
class TemplateObservation:
    """A template on the table.  ``hand`` is ``"left"``/``"right"`` (``None`` for straights);
    ``centre_mm`` is the outline's area centroid; ``heading_deg`` is the direction of travel at the
    entry end (the end against the car, or the shape's own first end when attached to nothing);
    ``edge`` is ``"front"`` or ``"rear"`` (reverse) when ``attached_to`` names a car.  ``source``
    says how it was known (``"tag"`` or ``"outline"``) and ``score`` how well the outline fitted
    (1.0 for tags)."""

    name: str
    hand: str | None
    centre_mm: tuple[float, float]
    heading_deg: float
    attached_to: str | None
    edge: str | None
    source: str
    score: float = 1.0
    tag_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "hand": self.hand,
            "centre_mm": [round(self.centre_mm[0], 1), round(self.centre_mm[1], 1)],
            "heading_deg": round(self.heading_deg, 1), "attached_to": self.attached_to, "edge": self.edge,
            "source": self.source, "score": round(self.score, 3), "tag_id": self.tag_id,
        }


@dataclass(frozen=True)
class Placement:
    """A shape put on the table: its frame's origin (mm), heading (deg) and whether it is mirrored
    (the left-hand form / the piece turned over)."""

    x: float
    y: float
    heading_deg: float
    mirrored: bool

    def world(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2).copy()
        if self.mirrored:
            p[:, 1] = -p[:, 1]
        a = math.radians(self.heading_deg)
        c, s = math.cos(a), math.sin(a)
        return np.column_stack([self.x + c * p[:, 0] - s * p[:, 1], self.y + s * p[:, 0] + c * p[:, 1]])

    def ends(self, shape: TemplateShape) -> list[tuple[np.ndarray, float]]:
        """Both ends as (midpoint mm, direction of travel *into* the template, deg)."""
        a = (np.array([self.x, self.y]), self.heading_deg % 360.0)
        eu, ev, eh = shape.exit
        bp = self.world(np.array([[eu, ev]]))[0]
        bh = (self.heading_deg + (-eh if self.mirrored else eh) + 180.0) % 360.0
        return [a, (bp, bh)]


def _angle_diff(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def polygon_centroid(poly: np.ndarray) -> np.ndarray:
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cr = x * yn - xn * y
    a = cr.sum() / 2.0
    if abs(a) < 1e-9:
        mean: np.ndarray = poly.mean(axis=0)
        return mean
    return np.array([((x + xn) * cr).sum() / (6 * a), ((y + yn) * cr).sum() / (6 * a)])


@dataclass(frozen=True)
class CarGeometry:
    """Footprint of the cars (one size for all; an estimate the owner measures)."""

    length_mm: float = 70.0
    width_mm: float = 32.0
    tag_height_mm: float = 28.0


def car_edges(car: CarObservation, geom: CarGeometry) -> list[tuple[str, np.ndarray, float]]:
    """(edge, midpoint, outward direction deg) for the front and rear edges."""
    a = math.radians(car.heading_deg)
    d = np.array([math.cos(a), math.sin(a)])
    c = np.array(car.centre_mm)
    return [("front", c + d * geom.length_mm / 2, car.heading_deg % 360.0),
            ("rear", c - d * geom.length_mm / 2, (car.heading_deg + 180.0) % 360.0)]


def find_attachment(ends: Sequence[tuple[np.ndarray, float]], cars: Sequence[CarObservation], geom: CarGeometry,
                    max_distance_mm: float, max_angle_deg: float) -> tuple[int, str, str] | None:
    """Best (end index, car id, edge) whose end sits on a car edge midpoint pointing away from the
    car, or None."""
    best = None
    for i, (p, h) in enumerate(ends):
        for car in cars:
            for edge, mid, out in car_edges(car, geom):
                dist = float(np.linalg.norm(p - mid))
                ang = _angle_diff(h, out)
                if dist <= max_distance_mm and ang <= max_angle_deg:
                    score = dist / max_distance_mm + ang / max_angle_deg
                    if best is None or score < best[0]:
                        best = (score, i, car.id, edge)
    return None if best is None else (best[1], best[2], best[3])


def describe(shape: TemplateShape, placement: Placement, cars: Sequence[CarObservation], geom: CarGeometry,
             max_distance_mm: float, max_angle_deg: float, source: str, score: float = 1.0,
             tag_id: int | None = None, alternatives: Sequence[Placement] = ()) -> TemplateObservation:
    """Turn a placed shape into an observation: attachment, entry end, hand, centroid.

    ``alternatives`` are placements that cover the same outline (a symmetric shape fits several
    ways); the one whose end is attached wins."""
    centre = polygon_centroid(placement.world(shape.outline))
    chosen = None
    for pl in (placement, *alternatives):
        ends = pl.ends(shape)
        att = find_attachment(ends, cars, geom, max_distance_mm, max_angle_deg)
        if att is not None:
            chosen = (pl, ends, att)
            break
    if chosen is None:
        ends = placement.ends(shape)
        entry_idx, car_id, edge = 0, None, None
        pl = placement
    else:
        pl, ends, (entry_idx, car_id, edge) = chosen
    entry_p, entry_h = ends[entry_idx]
    other_p = ends[1 - entry_idx][0]
    hand: str | None = None
    if not shape.straight:
        a = math.radians(entry_h)
        lateral = float(np.dot(other_p - entry_p, [-math.sin(a), math.cos(a)]))
        hand = "right" if lateral > 0 else "left"
    return TemplateObservation(shape.name, hand, (float(centre[0]), float(centre[1])), entry_h % 360.0,
                               car_id, edge, source, score, tag_id)


# --------------------------------------------------------------------------------------------------
# By tag


def placement_from_tag(shape: TemplateShape, face: str, tag_centre: tuple[float, float],
                       tag_heading_deg: float) -> Placement:
    """The template's placement given its tag's pose.  The tag's top edge faces +u of the face seen
    from above; face "b" is the mirror image, its tag at the mirrored spot."""
    if shape.tag is None:
        raise ShapeDataError(f"template {shape.name!r} has no tag position in its shape data")
    mirrored = face == "b"
    tu, tv, _ = shape.tag
    if mirrored:
        tv = -tv
    a = math.radians(tag_heading_deg)
    c, s = math.cos(a), math.sin(a)
    ox = tag_centre[0] - (c * tu - s * tv)
    oy = tag_centre[1] - (s * tu + c * tv)
    return Placement(ox, oy, tag_heading_deg % 360.0, mirrored)


# --------------------------------------------------------------------------------------------------
# By outline


@dataclass
class _Variant:
    name: str
    mirrored: bool
    pts: np.ndarray  # outline centred on its centroid, mm
    centroid: np.ndarray  # centroid in the shape frame
    axis: float  # principal axis angle (rad) in the shape frame
    area: float
    aniso: float


def _moments_axis(pts: np.ndarray) -> tuple[float, float]:
    import cv2

    m = cv2.moments(pts.astype(np.float32))
    mu20, mu02, mu11 = m["mu20"], m["mu02"], m["mu11"]
    axis = 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    common = math.sqrt(max(0.0, 4 * mu11 ** 2 + (mu20 - mu02) ** 2))
    l1, l2 = (mu20 + mu02 + common) / 2, (mu20 + mu02 - common) / 2
    return axis, (l1 / l2 if l2 > 1e-9 else 1e9)


#: One fit of a variant to a blob: (iou, variant, centre x px, centre y px, angle rad).
_Fit = tuple[float, _Variant, float, float, float]


@dataclass
class OutlineMatcher:
    """Matches blobs of a top-down mask (``mm_per_px`` mm per pixel) against taught outlines."""

    shapes: Mapping[str, TemplateShape]
    mm_per_px: float = 2.0
    min_iou: float = 0.80
    _variants: list[_Variant] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        for name, s in self.shapes.items():
            for mirrored in ((False,) if s.straight else (False, True)):
                p = s.outline.copy()
                if mirrored:
                    p[:, 1] = -p[:, 1]
                c = polygon_centroid(p)
                axis, aniso = _moments_axis(p)
                self._variants.append(_Variant(name, mirrored, p - c, c, axis, s.area(), aniso))

    def min_area_mm2(self) -> float:
        return min((v.area for v in self._variants), default=1e9)

    def _raster(self, pts_mm: np.ndarray, cx: float, cy: float, ang: float, shape_hw: tuple[int, ...], ox: float,
                oy: float) -> np.ndarray:
        import cv2

        c, s = math.cos(ang), math.sin(ang)
        q = pts_mm @ np.array([[c, s], [-s, c]]) / self.mm_per_px
        q[:, 0] += cx - ox
        q[:, 1] += cy - oy
        out = np.zeros(shape_hw, np.uint8)
        cv2.fillPoly(out, [np.round(q * 16).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=4)
        return out

    def match(self, blob: np.ndarray, ignore: np.ndarray, ox: float, oy: float,
              entry_poses: Sequence[tuple[float, float, float]] = ()) -> list[_Fit] | None:
        """Best (variant, centre px, angle rad, iou) for one blob given as a cropped mask whose
        top-left is at (ox, oy) px of the full mask; ``ignore`` marks pixels that say nothing
        (under a car's body).  ``entry_poses`` (x mm, y mm, heading deg) are car edges next to the
        blob: each shape is also tried with its entry end exactly there, which finds the right fit
        even when a car's body hides part of the template and biases the blob's moments.
        Returns None when nothing reaches ``min_iou``."""
        import cv2

        m = cv2.moments(blob, binaryImage=True)
        if m["m00"] < 10:
            return None
        area_mm2 = m["m00"] * self.mm_per_px ** 2
        bcx, bcy = m["m10"] / m["m00"] + ox, m["m01"] / m["m00"] + oy
        baxis = 0.5 * math.atan2(2 * m["mu11"], m["mu20"] - m["mu02"])
        valid = ignore == 0
        b = blob.astype(bool) & valid

        def iou(v: _Variant, cx: float, cy: float, ang: float) -> float:
            r = self._raster(v.pts, cx, cy, ang, blob.shape, ox, oy).astype(bool) & valid
            inter = np.count_nonzero(r & b)
            union = np.count_nonzero(r | b)
            return inter / union if union else 0.0

        results: list[_Fit] = []
        known = ignore.any()
        for v in self._variants:
            ratio = area_mm2 / v.area
            if ratio < (0.55 if known else 0.72) or ratio > 1.3:
                continue
            if v.aniso < 1.3:
                angles = [math.radians(a) for a in range(0, 360, 10)]
            else:
                angles = [baxis - v.axis, baxis - v.axis + math.pi]
            results.extend((iou(v, bcx, bcy, a), v, bcx, bcy, a) for a in angles)
            for ex, ey, eh in entry_poses:
                a = math.radians(eh)
                c, s_ = math.cos(a), math.sin(a)
                cx = (ex + c * v.centroid[0] - s_ * v.centroid[1]) / self.mm_per_px
                cy = (ey + s_ * v.centroid[0] + c * v.centroid[1]) / self.mm_per_px
                results.append((iou(v, cx, cy, a), v, cx, cy, a))
        if not results:
            return None
        # Polish only the few best coarse fits: the right shape (and its symmetric twins) is almost
        # always among them, and polishing is where the time goes.
        results.sort(key=lambda t: -t[0])
        polished: list[_Fit] = []
        for sc, v, cx, cy, a in results[:4]:
            if sc > self.min_iou - 0.25:
                sc, cx, cy, a = self._polish(iou, v, sc, cx, cy, a)
                polished.append((sc, v, cx, cy, a))
        results = polished
        results.sort(key=lambda t: -t[0])
        if not results:
            return None
        if results[0][0] < self.min_iou:
            return None
        return results

    @staticmethod
    def _polish(iou: Callable[[_Variant, float, float, float], float], v: _Variant, sc: float, cx: float, cy: float,
                a: float) -> tuple[float, float, float, float]:
        steps = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
        scale = 1.0
        for _ in range(14):
            best = None
            for dx, dy, da in steps:
                c = (cx + dx * scale, cy + dy * scale, a + math.radians(1.5 * da * scale))
                s = iou(v, *c)
                if s > sc + 1e-4 and (best is None or s > best[0]):
                    best = (s, *c)
            if best is None:
                if scale < 0.3:
                    break
                scale /= 2
                continue
            sc, cx, cy, a = best
        return sc, cx, cy, a

    def placements(self, results: Sequence[_Fit], tol: float = 0.03) -> list[tuple[_Variant, Placement, float]]:
        """Top result and the others that fit (almost) equally well with the same name: the
        symmetric ways the same piece can be read.  Each as (variant, placement of the shape frame
        in *pixels-to-mm-scaled* table coordinates, iou)."""
        top = results[0]
        out: list[tuple[_Variant, Placement, float]] = []
        for sc, v, cx, cy, a in results:
            if v.name != top[1].name or sc < top[0] - tol:
                continue
            cmm = np.array([cx, cy]) * self.mm_per_px
            # origin of the shape frame: centroid minus rotated shape-frame centroid
            c, s = math.cos(a), math.sin(a)
            cen = v.centroid
            # v.pts already mirrored; the placement mirrors the raw outline itself
            ox = cmm[0] - (c * cen[0] - s * cen[1])
            oy = cmm[1] - (s * cen[0] + c * cen[1])
            out.append((v, Placement(float(ox), float(oy), math.degrees(a) % 360.0, v.mirrored), sc))
        return out
