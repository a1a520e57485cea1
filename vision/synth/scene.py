"""Render a synthetic frame of a Gaslands table with its ground truth.

The renderer draws the mat top-down on a fine canvas (flat things: mat texture, corner tags, acrylic
templates, tokens, dice, shadows), warps it through a pinhole camera tilted up to 20 degrees, then draws
the things that stand up (cars as boxes with a roof tag, hands hovering above the mat) straight into
the picture through the same camera, and finally applies uneven light, slight blur and sensor noise.

It shares nothing with the readers except ``vision.calibration`` (camera intrinsics) and the *data*
of the template shapes and default tag ids: its geometry, drawing and ground truth are its own code,
so a reader cannot pass by peeking at the renderer.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import cv2
import numpy as np

from vision.calibration import Zone, default_zones, intrinsics

SKID_FACES = ("shift", "hazard", "slide", "spin")
#: Mat surfaces the renderer draws: printed asphalt (the default), an oak table, a tan desert print, a
#: printed play mat with coloured artwork, green/blue cloth, grey felt.
MAT_STYLES = ("asphalt", "wood", "tan", "printed", "cloth", "felt")


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads(files("vision").joinpath(f"data/{name}").read_text("utf-8"))


_SHAPES_CACHE: dict[str, dict[str, Any]] = {}


def template_outlines() -> dict[str, dict[str, Any]]:
    """Template shape data (outline, straight flag, tag spot) read from the package data file."""
    if not _SHAPES_CACHE:
        for name, d in _data("template_shapes.toml")["templates"].items():
            _SHAPES_CACHE[name] = {"outline": np.array(d["outline"], float), "straight": bool(d["straight"]),
                                   "tag": tuple(d["tag"])}
    return _SHAPES_CACHE


def default_template_tag(name: str, face: str) -> int:
    """The default tag id for a template face, from the shipped tag mapping."""
    for k, v in _data("table_defaults.toml")["tags"]["templates"].items():
        if v[0] == name and v[1] == face:
            return int(k)
    raise KeyError((name, face))


@dataclass
class CarSpec:
    """A car at a pose on the mat: centre (mm), nose heading (deg, clockwise from +x)."""

    id: str
    tag_id: int
    x: float
    y: float
    heading_deg: float
    colour: tuple[int, int, int] | None = None
    length_mm: float = 70.0
    width_mm: float = 32.0
    height_mm: float = 28.0
    tag_mm: float = 20.0


@dataclass
class TemplateSpec:
    """A template against a car's ``edge`` (front, or rear when reversing), or at a free entry pose
    (x, y, heading) when ``attach_to`` is None.  ``hand`` left/right (ignored for straights).
    ``tagged`` templates carry the tag of the face that is up (right hand: face a, left: face b)."""

    name: str
    hand: str | None = "right"
    attach_to: str | None = None
    edge: str = "front"
    x: float = 0.0
    y: float = 0.0
    heading_deg: float = 0.0
    tagged: bool = True
    tag_id: int | None = None
    colour: tuple[int, int, int] | None = None
    jitter_mm: float = 0.0
    jitter_deg: float = 0.0


@dataclass
class DieSpec:
    """A die in the tray: ``kind`` "d6" (face 1..6) or "skid" (shift/hazard/slide/spin).  Position
    (mm) None = placed automatically in the dice tray."""

    kind: str
    face: int | str
    x: float | None = None
    y: float | None = None
    rotation_deg: float | None = None


@dataclass
class HandSpec:
    """A hand hovering ``height_mm`` above the mat, palm centre at (x, y) mm, fingers pointing along
    ``heading_deg``."""

    x: float
    y: float
    heading_deg: float = 270.0
    scale: float = 1.0
    height_mm: float = 40.0
    arm: bool = False  # a forearm rising from the wrist back towards the table edge
    sleeve: tuple[int, int, int] | None = None  # BGR of a sleeve over the forearm (None: bare skin)


@dataclass
class SceneSpec:
    """Everything in one frame.  Zones default to ``vision.calibration.default_zones``."""

    image_size: tuple[int, int] = (1280, 720)
    mat_mm: tuple[float, float] = (800.0, 450.0)
    cars: list[CarSpec] = field(default_factory=list)
    templates: list[TemplateSpec] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)
    dice: list[DieSpec] = field(default_factory=list)
    hands: list[HandSpec] = field(default_factory=list)
    zones: tuple[Zone, ...] | None = None
    corner_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    corner_mm: float = 50.0
    show_corners: tuple[bool, bool, bool, bool] = (True, True, True, True)
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 0.0
    yaw_deg: float = 0.0
    hfov_deg: float = 66.0
    light: float = 0.2  # strength of uneven light (0 = even)
    noise: float = 2.5  # sensor noise sigma, grey levels
    blur: float = 0.6  # Gaussian blur sigma, pixels
    token_rgb: tuple[int, int, int] = (235, 200, 30)
    dictionary: str = "4X4_100"
    # --- what real tables bring (defaults: the plain synthetic table above) ---
    mat: str = "asphalt"  # one of MAT_STYLES
    mat_seed: int | None = None  # the same table in every frame (None: drawn from the frame's rng)
    light_rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)  # colour of the light (R, G, B gains)
    light_seed: int | None = None  # fixes the uneven light's pattern (None: from the frame's rng)
    shadow_band: float = 0.0  # depth of a soft shadow band across the picture (0 = none, 0.5 = half light)
    token_stacked: float = 0.0  # share of the tokens that rest on another token (both partly visible)
    token_mm: float = 20.0  # a token's diameter
    template_thickness_mm: float = 3.0  # tagged templates' tags lie on the acrylic, this far above the mat
    motion_blur_px: float = 0.0  # length of a straight motion blur
    defocus_px: float = 0.0  # radius of a disc (defocus) blur
    jpeg_quality: int | None = None  # compress and decompress at this JPEG quality
    lens_k1: float = 0.0  # barrel distortion (needs vision.synth.lens); 0 = a perfect pinhole

    def zone_list(self) -> tuple[Zone, ...]:
        return self.zones if self.zones is not None else default_zones(self.mat_mm)


# --------------------------------------------------------------------------------------------------
# Camera


@dataclass
class _Camera:
    k: np.ndarray
    r: np.ndarray
    t: np.ndarray

    def project(self, pts3: np.ndarray) -> np.ndarray:
        cam = pts3 @ self.r.T + self.t
        p = cam @ self.k.T
        out: np.ndarray = p[:, :2] / p[:, 2:3]
        return out

    def plane_h(self) -> np.ndarray:
        """mm on the mat -> image px."""
        h = self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], self.t])
        out: np.ndarray = h / h[2, 2]
        return out


def _rot(axis: np.ndarray | Sequence[float], ang: float) -> np.ndarray:
    rot: np.ndarray = cv2.Rodrigues((np.asarray(axis, float) / np.linalg.norm(axis) * ang).reshape(3, 1))[0]
    return rot


def _camera(spec: SceneSpec) -> _Camera:
    w, h = spec.image_size
    k = intrinsics((w, h), spec.hfov_deg)
    yaw = _rot([0, 0, 1], math.radians(spec.yaw_deg))
    az = math.radians(spec.tilt_azimuth_deg)
    tilt = _rot([math.cos(az), math.sin(az), 0.0], math.radians(spec.tilt_deg)) if spec.tilt_deg else np.eye(3)
    r_cw = tilt @ yaw  # columns: camera axes in world
    mw, mh = spec.mat_mm
    centre = np.array([mw / 2, mh / 2, 0.0])
    corners = np.array([[-25, -25, 0], [mw + 25, -25, 0], [mw + 25, mh + 25, 0], [-25, mh + 25, 0]], float)
    dist = 1000.0
    for _ in range(6):
        c = centre - dist * r_cw[:, 2]
        r = r_cw.T
        cam = _Camera(k, r, -r @ c)
        p = cam.project(corners)
        # shift so the mat is centred, by how much the picture must shrink
        ext_x = max(abs(p[:, 0] - w / 2).max() / (w / 2 * 0.97), 1e-6)
        ext_y = max(abs(p[:, 1] - h / 2).max() / (h / 2 * 0.97), 1e-6)
        dist *= max(ext_x, ext_y)
    c = centre - dist * r_cw[:, 2]
    r = r_cw.T
    return _Camera(k, r, -r @ c)


# --------------------------------------------------------------------------------------------------
# Drawing helpers (canvas = top-down, ``ppm`` px per mm, origin offset ``off`` mm)


class _Canvas:
    def __init__(self, spec: SceneSpec, ppm: float, margin: float = 80.0):
        self.ppm, self.off = ppm, margin
        mw, mh = spec.mat_mm
        self.w = int((mw + 2 * margin) * ppm)
        self.h = int((mh + 2 * margin) * ppm)
        self.img = np.zeros((self.h, self.w, 3), np.float32)

    def px(self, pts_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(pts_mm, float) + self.off) * self.ppm

    def fill(self, pts_mm: np.ndarray, colour: Sequence[float] | np.ndarray, alpha: float = 1.0) -> None:
        p = self.px(pts_mm)
        x0, y0 = np.floor(p.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.w), min(y1, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        m = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(m, [np.round((p - [x0, y0]) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        roi = self.img[y0:y1, x0:x1]
        a = (m * alpha)[..., None]
        roi[:] = roi * (1 - a) + np.array(colour, np.float32) * a

    def paste(self, src: np.ndarray, centre_mm: Sequence[float] | np.ndarray, size_mm: float,
              heading_deg: float) -> None:
        """Paste a square image (BGR float) of side ``size_mm`` centred at ``centre_mm``, its top
        edge facing ``heading_deg``."""
        n = src.shape[0]
        a = math.radians(heading_deg)
        up = np.array([math.cos(a), math.sin(a)])
        right = np.array([-math.sin(a), math.cos(a)])
        k = size_mm / n * self.ppm
        c = self.px(np.array([centre_mm]))[0]
        # src px (i, j) -> canvas: c + (i - n/2) * k * right - (j - n/2) * k * up
        m = np.array([[k * right[0], -k * up[0], 0.0], [k * right[1], -k * up[1], 0.0]])
        m[:, 2] = c - m[:, :2] @ np.array([(n - 1) / 2, (n - 1) / 2])
        corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], float) @ m[:, :2].T + m[:, 2]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        m2 = m.copy()
        m2[:, 2] -= [x0, y0]
        warped = cv2.warpAffine(src, m2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.ones((n, n), np.float32), m2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        roi = self.img[y0:y1, x0:x1]
        roi[:] = roi * (1 - mask[..., None]) + warped * mask[..., None]


def _marker(dictionary: str, tag_id: int, cell_px: int = 8) -> np.ndarray:
    """Tag with its white quiet zone, as float BGR (square)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, "DICT_" + dictionary))
    bits = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, int(tag_id), bits * cell_px, borderBits=1)
    img = cv2.copyMakeBorder(img, cell_px, cell_px, cell_px, cell_px, cv2.BORDER_CONSTANT, value=255)
    paper = img.astype(np.float32) * 0.92 + 8
    return cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR)


def _marker_quiet_factor(dictionary: str) -> float:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, "DICT_" + dictionary))
    bits = d.markerSize + 2
    return (bits + 2) / bits


def _transform(outline: np.ndarray, x: float, y: float, heading_deg: float, mirrored: bool) -> np.ndarray:
    p = outline.copy()
    if mirrored:
        p[:, 1] = -p[:, 1]
    a = math.radians(heading_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out: np.ndarray = p @ rot.T + [x, y]
    return out


def _area_centroid(poly: np.ndarray) -> tuple[float, float]:
    x, y = poly[:, 0], poly[:, 1]
    x2, y2 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y2 - x2 * y
    a = cross.sum() / 2
    return float(((x + x2) * cross).sum() / (6 * a)), float(((y + y2) * cross).sum() / (6 * a))


def _draw_mat(cv: _Canvas, spec: SceneSpec, rng: np.random.Generator) -> None:
    h, w = cv.img.shape[:2]
    # table around the mat: wood
    wood = np.array([60, 95, 140], np.float32) * rng.uniform(0.8, 1.1)
    cv.img[:] = wood
    grain = cv2.resize(rng.normal(0, 1, (max(2, h // 40), 8)).astype(np.float32), (w, h))
    cv.img += grain[..., None] * 8
    mw, mh = spec.mat_mm
    x0, y0 = cv.px(np.array([[0, 0]]))[0].astype(int)
    x1, y1 = cv.px(np.array([[mw, mh]]))[0].astype(int)
    if spec.mat != "asphalt":
        if spec.mat not in MAT_STYLES:
            raise ValueError(f"unknown mat {spec.mat!r}; mats are {', '.join(MAT_STYLES)}")
        cv.img[y0:y1, x0:x1] = _styled_mat(spec.mat, x1 - x0, y1 - y0, cv.ppm, rng)
        return
    base = rng.uniform(70, 120)
    tint = rng.uniform(-6, 6, 3)
    lo = cv2.resize(rng.normal(0, 1, (12, 20)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    mid = cv2.resize(rng.normal(0, 1, (h // 12, w // 12)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    hi = rng.normal(0, 1, (h, w)).astype(np.float32)
    tex = base + 10 * lo + 7 * mid + 9 * hi
    mat = np.stack([tex + tint[0], tex + tint[1], tex + tint[2]], axis=-1)
    cv.img[y0:y1, x0:x1] = mat[y0:y1, x0:x1]
    # road markings and cracks
    for _ in range(rng.integers(2, 5)):
        yy = rng.uniform(60, mh - 60)
        xs = np.arange(rng.uniform(0, 40), mw, 70.0)
        for xa in xs:
            cv.fill(np.array([[xa, yy - 2], [xa + 35, yy - 2], [xa + 35, yy + 2], [xa, yy + 2]]),
                    (200, 205, 210), rng.uniform(0.3, 0.6))
    for _ in range(rng.integers(4, 10)):
        p = rng.uniform([0, 0], [mw, mh])
        pts = [p]
        for _ in range(6):
            p = p + rng.normal(0, 12, 2)
            pts.append(p)
        cv2.polylines(cv.img, [np.round(cv.px(np.array(pts))).astype(np.int32)], False,
                      (base * 0.55,) * 3, max(1, int(cv.ppm * 0.8)), cv2.LINE_AA)


def _noise_field(rng: np.random.Generator, w: int, h: int, cells: tuple[int, int]) -> np.ndarray:
    return cv2.resize(rng.normal(0, 1, (max(2, cells[1]), max(2, cells[0]))).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_CUBIC)


def _styled_mat(style: str, w: int, h: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A ``w`` x ``h`` px (BGR float) mat surface of ``style`` at ``ppm`` px per mm."""
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    if style == "wood":  # oak planks: grain along x, a seam every 90-140 mm, planks of slightly other tone
        base = np.array([70, 120, 175], np.float32) * rng.uniform(0.8, 1.1)
        yy = np.arange(h, dtype=np.float32)[:, None] / ppm
        warp = _noise_field(rng, w, h, (6, 30)) * 3.0
        grain = np.sin((yy + warp) * rng.uniform(1.2, 2.2)) * 0.5 + 0.5 * _noise_field(rng, w, h, (8, h // 6))
        tex = 1.0 + 0.07 * grain + 0.02 * fine
        img = tex[..., None] * base
        plank = rng.uniform(90, 140)
        for y in np.arange(rng.uniform(0, plank), h / ppm, plank):
            img[int((y - plank) * ppm) if y > plank else 0:int(y * ppm)] *= rng.uniform(0.9, 1.08)
            img[int(y * ppm):int(y * ppm) + max(1, int(ppm * 0.8))] *= 0.55
        wood: np.ndarray = img
        return wood
    if style == "tan":  # desert print: sand tones in soft blotches, fine grain
        base = np.array([135, 178, 212], np.float32) * rng.uniform(0.85, 1.08)
        blot = _noise_field(rng, w, h, (10, 6))
        tex = 1.0 + 0.06 * blot + 0.05 * _noise_field(rng, w, h, (w // 8, h // 8)) + 0.03 * fine
        img = tex[..., None] * base
        img[..., 0] *= 1.0 - 0.05 * blot  # darker patches are a little redder
        tan: np.ndarray = img
        return tan
    if style == "cloth":  # green or blue baize: weave noise
        base = np.array(rng.choice([(60, 120, 45), (125, 75, 35), (70, 60, 120)]), np.float32)
        tex = 1.0 + 0.05 * _noise_field(rng, w, h, (14, 8)) + 0.05 * fine
        weave = (np.sin(np.arange(w, dtype=np.float32) * 2.4)[None, :] * np.sin(
            np.arange(h, dtype=np.float32) * 2.4)[:, None]) * 0.025
        cloth: np.ndarray = (tex + weave)[..., None] * base
        return cloth
    if style == "felt":  # grey felt / dark asphalt print: almost no chroma, fine fibres
        base = np.full(3, rng.uniform(80, 150), np.float32) + rng.uniform(-4, 4, 3).astype(np.float32)
        tex = 1.0 + 0.05 * _noise_field(rng, w, h, (12, 8)) + 0.06 * fine
        felt: np.ndarray = tex[..., None] * base
        return felt
    # printed play mat: a ground colour with big artwork (road bands, kerbs, dunes, lettering)
    ground = np.array(rng.choice([(120, 150, 165), (90, 110, 95), (70, 70, 75), (150, 160, 175)]), np.float32)
    img = (1.0 + 0.04 * _noise_field(rng, w, h, (12, 8)) + 0.03 * fine)[..., None] * ground
    palette = [(40, 40, 200), (230, 230, 230), (30, 30, 30), (60, 150, 200), (50, 120, 60), (170, 110, 60),
               (90, 170, 215), (140, 60, 140)]
    for _ in range(int(rng.integers(10, 20))):
        col = tuple(float(v) for v in palette[int(rng.integers(len(palette)))])
        kind = rng.integers(3)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        if kind == 0:
            cv2.circle(img, c, int(rng.uniform(15, 90) * ppm), col, -1, cv2.LINE_AA)
        elif kind == 1:
            a = rng.uniform(0, np.pi)
            d = np.array([math.cos(a), math.sin(a)]) * w
            cv2.line(img, tuple(int(v) for v in c - d), tuple(int(v) for v in c + d), col,
                     int(rng.uniform(4, 40) * ppm), cv2.LINE_AA)
        else:
            ink = np.zeros((h, w), np.uint8)
            cv2.putText(ink, "GASLANDS"[: int(rng.integers(3, 9))], c, cv2.FONT_HERSHEY_SIMPLEX,
                        rng.uniform(0.8, 2.0) * ppm, 255, max(1, int(ppm * 2)), cv2.LINE_AA)
            a_ = ink.astype(np.float32)[..., None] / 255.0
            img[:] = img * (1 - a_) + np.array(col, np.float32) * a_
    return img


def _draw_token(cv: _Canvas, centre: np.ndarray, diameter: float, rgb: Sequence[float], rng: np.random.Generator,
                raised: bool = False) -> None:
    r = diameter / 2
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    disc = np.column_stack([np.cos(ang), np.sin(ang)]) * r + centre
    bgr = np.array(rgb[::-1], np.float32) * rng.uniform(0.92, 1.05)
    if raised:  # resting on another token, ~2 mm up: a darker shadow on the token below, a visible edge
        cv.fill(disc + [1.2, 1.4], (20, 20, 20), 0.55)
        cv.fill(disc, tuple(float(v) * 0.62 for v in bgr))
        disc = np.column_stack([np.cos(ang), np.sin(ang)]) * (r - 0.5) + centre
    else:
        cv.fill(disc + [0.8, 0.8], (25, 25, 25), 0.35)  # contact shadow
    cv.fill(disc, bgr)
    rot = rng.uniform(0, 2 * np.pi)
    tri = np.array([[math.cos(rot + k * 2 * math.pi / 3), math.sin(rot + k * 2 * math.pi / 3)] for k in range(3)])
    cv.fill(tri * r * 0.62 + centre, (30, 30, 30))
    cv.fill(tri * r * 0.40 + centre, bgr)
    bar = np.array([[-0.6, -2.2], [0.6, -2.2], [0.6, 1.0], [-0.6, 1.0]]) + centre
    cv.fill(bar, (30, 30, 30))


def _place_tokens(zone: Zone, n: int, diameter: float, rng: np.random.Generator) -> list[np.ndarray]:
    poly = np.array(zone.polygon)
    lo, hi = poly.min(axis=0) + diameter / 2 + 2, poly.max(axis=0) - diameter / 2 - 2
    placed: list[np.ndarray] = []
    for _ in range(4000):
        if len(placed) == n:
            break
        if placed and rng.random() < 0.6:
            a = rng.uniform(0, 2 * np.pi)
            c = placed[rng.integers(len(placed))] + np.array([math.cos(a), math.sin(a)]) * (diameter + rng.uniform(0.0, 0.5))
        else:
            c = rng.uniform(lo, hi)
        if np.any(c < lo) or np.any(c > hi):
            continue
        if cv2.pointPolygonTest(poly.astype(np.float32), (float(c[0]), float(c[1])), True) < diameter / 2 + 1:
            continue
        if any(np.linalg.norm(c - p) < diameter - 0.05 for p in placed):
            continue
        placed.append(c)
    if len(placed) < n:
        raise ValueError(f"cannot fit {n} tokens of {diameter} mm in zone {zone.name!r}")
    return placed


def _place_on_top(zone: Zone, below: list[np.ndarray], n: int, diameter: float,
                  rng: np.random.Generator) -> list[np.ndarray]:
    """``n`` tokens resting partly on the tokens ``below``: each centre 0.45-0.85 diameters from the token
    it rests on, and every token keeps at least 45 % of its disc in view (a pile a camera can count)."""
    if n == 0:
        return []
    poly = np.array(zone.polygon)
    r = diameter / 2
    step = 0.5
    lo = poly.min(axis=0) - r
    gw, gh = (np.ceil((poly.max(axis=0) - poly.min(axis=0) + 2 * r) / step)).astype(int)
    yy, xx = np.mgrid[0:gh, 0:gw]
    pts = np.stack([xx * step + lo[0], yy * step + lo[1]], axis=-1)

    def disc(c: np.ndarray) -> np.ndarray:
        inside: np.ndarray = np.sum((pts - c) ** 2, axis=-1) <= r * r
        return inside

    def visible_ok(cs: list[np.ndarray]) -> bool:
        cover = np.zeros((gh, gw), bool)
        for c in reversed(cs):  # the last one lies on top
            d = disc(c)
            if np.count_nonzero(d & ~cover) < 0.45 * np.count_nonzero(d):
                return False
            cover |= d
        return True

    top: list[np.ndarray] = []
    for _ in range(400 * n):
        if len(top) == n:
            break
        base = (below + top)[int(rng.integers(len(below) + len(top)))]
        a = rng.uniform(0, 2 * np.pi)
        c = base + np.array([math.cos(a), math.sin(a)]) * diameter * rng.uniform(0.45, 0.85)
        if cv2.pointPolygonTest(poly.astype(np.float32), (float(c[0]), float(c[1])), True) < r + 1:
            continue
        if any(np.linalg.norm(c - p) < 0.45 * diameter for p in below + top):
            continue
        if visible_ok(below + top + [c]):
            top.append(c)
    if len(top) < n:
        raise ValueError(f"cannot rest {n} tokens on the others in zone {zone.name!r}")
    return top


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
         5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _die_face(kind: str, face: int | str, body: Sequence[float], ink: Sequence[float], n: int = 96) -> np.ndarray:
    img = np.zeros((n, n, 3), np.float32)
    img[:] = body
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), tuple(float(v) * 0.8 for v in body), 3)
    c = n // 2
    ink = tuple(float(v) for v in ink)
    if kind == "d6":
        for dx, dy in _PIPS[int(face)]:
            cv2.circle(img, (c + dx * n // 4, c + dy * n // 4), n // 11, ink, -1, cv2.LINE_AA)
    elif face == "shift":  # two stacked chevrons: change gear
        for dy in (-14, 8):
            pts = np.array([[c - 24, c + dy + 12], [c, c + dy - 10], [c + 24, c + dy + 12]], np.int32)
            cv2.polylines(img, [pts], False, ink, 7, cv2.LINE_AA)
    elif face == "hazard":  # warning triangle with a bar
        pts = np.array([[c, c - 32], [c + 34, c + 26], [c - 34, c + 26]], np.int32)
        cv2.polylines(img, [pts], True, ink, 6, cv2.LINE_AA)
        cv2.line(img, (c, c - 12), (c, c + 8), ink, 6, cv2.LINE_AA)
        cv2.circle(img, (c, c + 17), 4, ink, -1, cv2.LINE_AA)
    elif face == "slide":  # a sideways arrow over skid lines
        cv2.arrowedLine(img, (c - 30, c - 10), (c + 30, c - 10), ink, 7, cv2.LINE_AA, tipLength=0.35)
        for dx in (-22, -6, 10):
            cv2.line(img, (c + dx, c + 12), (c + dx + 12, c + 26), ink, 4, cv2.LINE_AA)
    elif face == "spin":  # circular arrow
        cv2.ellipse(img, (c, c), (26, 26), 0, 40, 330, ink, 7, cv2.LINE_AA)
        tip = (c + int(26 * math.cos(math.radians(40))), c + int(26 * math.sin(math.radians(40))))
        cv2.fillConvexPoly(img, np.array([tip, (tip[0] + 16, tip[1] - 2), (tip[0] + 2, tip[1] - 18)], np.int32), ink)
    else:
        raise ValueError(f"unknown die face {face!r} for {kind}")
    return img


def _draw_raised_tag(img: np.ndarray, mk: np.ndarray, centre: Sequence[float] | np.ndarray, side: float,
                     heading_deg: float, height_mm: float, cam: _Camera) -> None:
    """Warp a square tag image into the picture, lying ``height_mm`` above the mat, its top edge facing
    ``heading_deg``."""
    h_img, w_img = img.shape[:2]
    a = math.radians(heading_deg)
    d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    ctr = np.asarray(centre, float)
    corners = [ctr + d * side / 2 - n * side / 2, ctr + d * side / 2 + n * side / 2,
               ctr - d * side / 2 + n * side / 2, ctr - d * side / 2 - n * side / 2]
    dst = cam.project(np.array([[p[0], p[1], -height_mm] for p in corners]))
    m = mk.shape[0]
    # pixel centres sit on integers: the marker picture spans -0.5 .. m - 0.5
    src = np.array([[0, 0], [m, 0], [m, m], [0, m]], np.float32) - 0.5
    hm = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w_img), min(y1, h_img)
    if x1 > x0 and y1 > y0:
        sh_ = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ hm
        warped = cv2.warpPerspective(mk, sh_, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.ones((m, m), np.float32), sh_, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        roi = img[y0:y1, x0:x1]
        roi[:] = roi * (1 - mask[..., None]) + warped * mask[..., None]


def _arm_polygon(hs: HandSpec) -> np.ndarray:
    """The forearm as a 3-D quad (mm, z up negative): from the wrist back 260 mm, rising 150 mm."""
    s = hs.scale
    a = math.radians(hs.heading_deg)
    d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.array([hs.x, hs.y])
    wrist, elbow = c - d * 30 * s, c - d * 290 * s
    pts = [(wrist + n * 30 * s, hs.height_mm), (elbow + n * 40 * s, hs.height_mm + 150),
           (elbow - n * 40 * s, hs.height_mm + 150), (wrist - n * 30 * s, hs.height_mm)]
    return np.array([[p[0], p[1], -z] for p, z in pts])


def _hand_polygons(hs: HandSpec) -> list[np.ndarray]:
    """Palm, four fingers and a thumb as polygons (mm, on the hand's own plane)."""
    s = hs.scale
    parts: list[tuple[tuple[float, float], tuple[float, float], float]] = [((0, 0), (42 * s, 38 * s), 0.0)]
    for i, off in enumerate((-27, -9, 9, 26)):
        ln = (58, 66, 62, 48)[i] * s
        parts.append(((38 * s + ln / 2 - 8, off * s), (ln / 2, 8.5 * s), 0.0))
    parts.append(((10 * s, 44 * s), (30 * s, 10 * s), 50.0))
    out: list[np.ndarray] = []
    a = math.radians(hs.heading_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    for (cx, cy), (ax, ay), ang in parts:
        # ellipse2Poly returns an (N, 2) int32 array (the stub says a sequence of points)
        ring = np.asarray(cv2.ellipse2Poly((0, 0), (int(ax * 10), int(ay * 10)), int(ang), 0, 360, 10))
        poly = ring.astype(float) / 10
        poly += [cx, cy]
        out.append(poly @ rot.T + [hs.x, hs.y])
    return out


def _distort(img: np.ndarray, spec: SceneSpec) -> np.ndarray:
    """Barrel distortion of a finished picture through ``vision.synth.lens`` (written separately)."""
    try:
        from vision.synth import lens
    except ImportError as exc:
        raise ValueError("lens_k1 needs vision/synth/lens.py (the barrel-distortion model); it is not there") from exc
    return lens.distort_image(img, spec.lens_k1)


# --------------------------------------------------------------------------------------------------


def render_scene(spec: SceneSpec, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any]]:
    """Render ``spec``; returns (BGR uint8 image, ground-truth dict, JSON-ready)."""
    w_img, h_img = spec.image_size
    cam = _camera(spec)
    h_plane = cam.plane_h()
    # canvas resolution: about twice the picture's own px/mm, so the warp only ever shrinks
    mw, mh = spec.mat_mm
    p = cam.project(np.array([[mw / 2, mh / 2, 0], [mw / 2 + 100, mh / 2, 0]], float))
    out_ppm = float(np.linalg.norm(p[1] - p[0])) / 100
    ppm = max(2.0, min(4.0, 2.0 * out_ppm))
    cv = _Canvas(spec, ppm)
    _draw_mat(cv, spec, np.random.default_rng(spec.mat_seed) if spec.mat_seed is not None else rng)
    zones = spec.zone_list()
    cars = {c.id: c for c in spec.cars}
    truth: dict[str, Any] = {"image_size": [w_img, h_img], "mat_mm": list(spec.mat_mm), "zones":
                             [z.to_dict() for z in zones]}

    # zone outlines printed on the mat (a thin line, like a player board)
    for z in zones:
        poly = np.array(z.polygon)
        cv2.polylines(cv.img, [np.round(cv.px(poly)).astype(np.int32)], True, (170, 170, 165), max(1, int(ppm)),
                      cv2.LINE_AA)

    # corner tags
    q = _marker_quiet_factor(spec.dictionary)
    s = spec.corner_mm
    for i, (mid, show) in enumerate(zip(spec.corner_ids, spec.show_corners)):
        if not show:
            continue
        x = 0.0 if i in (0, 3) else mw - s
        y = 0.0 if i in (0, 1) else mh - s
        cv.paste(_marker(spec.dictionary, mid), (x + s / 2, y + s / 2), s * q, 270.0)

    # shadows of cars (soft, on the mat)
    for c in spec.cars:
        a = math.radians(c.heading_deg)
        d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        ctr = np.array([c.x, c.y]) + [2.5, 3.5]
        foot = np.array([ctr + d * c.length_mm / 2 + n * c.width_mm / 2, ctr + d * c.length_mm / 2 - n * c.width_mm / 2,
                         ctr - d * c.length_mm / 2 - n * c.width_mm / 2, ctr - d * c.length_mm / 2 + n * c.width_mm / 2])
        cv.fill(foot, (10, 10, 10), 0.35)

    # templates
    shapes = template_outlines()
    t_truth = []
    palette = [(200, 90, 40), (60, 170, 60), (50, 60, 200), (170, 60, 160), (190, 170, 40), (40, 130, 230)]
    world_polys = []
    raised: list[tuple[int, np.ndarray, float, float]] = []
    for t in spec.templates:
        sh = shapes[t.name]
        hand = None if sh["straight"] else (t.hand or "right")
        mirrored = hand == "left"
        if t.attach_to is not None:
            car = cars[t.attach_to]
            a = math.radians(car.heading_deg)
            d = np.array([math.cos(a), math.sin(a)])
            if t.edge == "front":
                ex, ey = np.array([car.x, car.y]) + d * car.length_mm / 2
                heading = car.heading_deg
            elif t.edge == "rear":
                ex, ey = np.array([car.x, car.y]) - d * car.length_mm / 2
                heading = car.heading_deg + 180.0
            else:
                raise ValueError(f"edge must be front or rear, got {t.edge!r}")
        else:
            ex, ey, heading = t.x, t.y, t.heading_deg
        if t.jitter_mm:
            ex, ey = np.array([ex, ey]) + rng.normal(0, t.jitter_mm, 2)
        if t.jitter_deg:
            heading += float(rng.normal(0, t.jitter_deg))
        heading %= 360.0
        poly = _transform(sh["outline"], ex, ey, heading, mirrored)
        world_polys.append(poly)
        colour = t.colour or palette[int(rng.integers(len(palette)))]
        # acrylic: faint shadow, tinted body, bright edge
        cv.fill(poly + [1.2, 1.6], (15, 15, 15), 0.18)
        cv.fill(poly, colour, rng.uniform(0.5, 0.62))
        edge_col = tuple(min(255.0, v * 0.6 + 110) for v in colour)
        cv2.polylines(cv.img, [np.round(cv.px(poly)).astype(np.int32)], True, edge_col, max(1, int(ppm * 0.9)),
                      cv2.LINE_AA)
        # printed gear strip: six boxes across the template near the entry end
        for gi in range(6):
            v0 = -12 + gi * 4
            box = _transform(np.array([[8.0, v0 + 0.5], [12.0, v0 + 0.5], [12.0, v0 + 3.5], [8.0, v0 + 3.5]]),
                             ex, ey, heading, False)
            cv.fill(box, (235, 235, 235), 0.85)
            if gi % 2 == 0:
                dot = _transform(np.array([[9.5, v0 + 1.5], [10.5, v0 + 1.5], [10.5, v0 + 2.5], [9.5, v0 + 2.5]]),
                                 ex, ey, heading, False)
                cv.fill(dot, (20, 20, 20))
        tag_id = None
        if t.tagged:
            face = "b" if mirrored else "a"
            tag_id = t.tag_id if t.tag_id is not None else default_template_tag(t.name, face)
            tu, tv, tsize = sh["tag"]
            tc = _transform(np.array([[tu, tv]]), ex, ey, heading, mirrored)[0]
            if spec.template_thickness_mm > 0:  # on top of the acrylic: drawn through the camera below
                raised.append((tag_id, tc, tsize * q, heading))
            else:
                cv.paste(_marker(spec.dictionary, tag_id), tc, tsize * q, heading)
        t_truth.append({"name": t.name, "hand": hand, "centre_mm": list(_area_centroid(poly)),
                        "heading_deg": heading, "entry_mm": [float(ex), float(ey)], "attached_to": t.attach_to,
                        "edge": t.edge if t.attach_to is not None else None, "tagged": t.tagged, "tag_id": tag_id})

    # tokens
    tok_truth = {}
    for z in zones:
        if z.kind != "tokens":
            continue
        n_tok = int(spec.tokens.get(z.name, 0))
        n_up = int(round(n_tok * spec.token_stacked)) if n_tok > 1 else 0
        n_up = max(0, min(n_up, n_tok - 1))
        flat = _place_tokens(z, n_tok - n_up, spec.token_mm, rng)
        for pos in flat:
            _draw_token(cv, pos, spec.token_mm, spec.token_rgb, rng)
        for pos in _place_on_top(z, flat, n_up, spec.token_mm, rng):
            _draw_token(cv, pos, spec.token_mm, spec.token_rgb, rng, raised=True)
        tok_truth[z.name] = n_tok

    # dice in the tray
    tray = next((z for z in zones if z.kind == "dice_tray"), None)
    dice_truth = []
    placed: list[np.ndarray] = []
    for dspec in spec.dice:
        size = 16.0
        if dspec.x is None or dspec.y is None:
            if tray is None:
                raise ValueError("dice without positions need a dice_tray zone")
            tp = np.array(tray.polygon)
            lo, hi = tp.min(axis=0) + 14, tp.max(axis=0) - 14
            for _ in range(500):
                dc = rng.uniform(lo, hi)
                if all(np.linalg.norm(dc - o) > size * 1.6 for o in placed):
                    break
            else:
                raise ValueError("cannot fit the dice in the tray")
        else:
            dc = np.array([dspec.x, dspec.y], float)
        placed.append(dc)
        rot = dspec.rotation_deg if dspec.rotation_deg is not None else float(rng.uniform(0, 360))
        if dspec.kind == "d6":
            body, ink = rng.choice([(235, 235, 235), (40, 40, 160), (30, 30, 30), (60, 140, 40)]), None
            body = tuple(float(v) for v in body)
            ink = (20, 20, 20) if sum(body) > 400 else (240, 240, 240)
        else:
            body, ink = (40, 40, 40), (60, 200, 240)
        img = _die_face(dspec.kind, dspec.face, body, ink)
        sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * size / 2 @ np.array(
            [[math.cos(math.radians(rot)), math.sin(math.radians(rot))],
             [-math.sin(math.radians(rot)), math.cos(math.radians(rot))]])
        cv.fill(sq + dc + [2.5, 3.0], (10, 10, 10), 0.45)
        cv.fill(sq + dc + [0.9, 1.2], tuple(float(v) * 0.6 for v in body))
        cv.paste(img, dc, size, rot + 270.0)
        dice_truth.append({"kind": dspec.kind, "face": dspec.face, "centre_mm": [float(dc[0]), float(dc[1])],
                           "rotation_deg": rot % 360.0})

    # hand shadows on the mat
    for hs in spec.hands:
        for poly in _hand_polygons(hs):
            cv.fill(poly + [hs.height_mm * 0.25, hs.height_mm * 0.35], (10, 10, 10), 0.3)
        if hs.arm:
            arm = _arm_polygon(hs)
            cv.fill(arm[:, :2] - arm[:, 2:3] * np.array([0.25, 0.35]), (10, 10, 10), 0.25)

    # --- warp to the camera picture ---
    a_can = np.array([[1 / ppm, 0, -cv.off], [0, 1 / ppm, -cv.off], [0, 0, 1.0]])
    shrink = ppm / out_ppm
    src = cv2.GaussianBlur(cv.img, (0, 0), 0.45 * shrink) if shrink > 1.3 else cv.img
    img = cv2.warpPerspective(src, h_plane @ a_can, (w_img, h_img), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(40, 50, 60))

    # --- tags on thick templates: on the acrylic's top face ---
    for tag_id, tc, side, heading in raised:
        _draw_raised_tag(img, _marker(spec.dictionary, tag_id), tc, side, heading, spec.template_thickness_mm, cam)

    # --- cars: boxes standing on the mat, roof tag ---
    car_truth = []
    order = sorted(spec.cars, key=lambda c: -np.linalg.norm(cam.t + cam.r @ np.array([c.x, c.y, 0.0])))
    for c in order:
        a = math.radians(c.heading_deg)
        d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        ctr = np.array([c.x, c.y])
        base = [ctr + d * c.length_mm / 2 + n * c.width_mm / 2, ctr + d * c.length_mm / 2 - n * c.width_mm / 2,
                ctr - d * c.length_mm / 2 - n * c.width_mm / 2, ctr - d * c.length_mm / 2 + n * c.width_mm / 2]
        pts3 = np.array([[p[0], p[1], z] for z in (0.0, -c.height_mm) for p in base])
        pp = cam.project(pts3)
        car_col = np.array(c.colour if c.colour else rng.choice([(40, 40, 190), (180, 90, 30), (30, 150, 40),
                                                                  (160, 160, 160), (30, 30, 30), (150, 30, 130)]),
                           float)
        hull = cv2.convexHull(pp.astype(np.float32))
        cv2.fillConvexPoly(img, np.round(hull.reshape(-1, 2) * 16).astype(np.int32), tuple(car_col * 0.55),
                           cv2.LINE_AA, shift=4)
        roof = pp[4:]
        cv2.fillConvexPoly(img, np.round(roof * 16).astype(np.int32), tuple(car_col), cv2.LINE_AA, shift=4)
        # windscreen band near the nose
        ws = np.array([[p[0], p[1], -c.height_mm] for p in (ctr + d * (c.length_mm / 2 - 3) + n * (c.width_mm / 2 - 3),
                                                            ctr + d * (c.length_mm / 2 - 3) - n * (c.width_mm / 2 - 3),
                                                            ctr + d * (c.length_mm / 2 - 12) - n * (c.width_mm / 2 - 3),
                                                            ctr + d * (c.length_mm / 2 - 12) + n * (c.width_mm / 2 - 3))])
        cv2.fillConvexPoly(img, np.round(cam.project(ws) * 16).astype(np.int32), (70, 60, 50), cv2.LINE_AA, shift=4)
        # roof tag (with quiet zone), its top edge towards the nose
        _draw_raised_tag(img, _marker(spec.dictionary, c.tag_id), ctr, c.tag_mm * q, c.heading_deg,
                         c.height_mm + 0.2, cam)
        car_truth.append({"id": c.id, "tag_id": c.tag_id, "centre_mm": [c.x, c.y], "heading_deg": c.heading_deg % 360.0})
    truth["cars"] = sorted(car_truth, key=lambda t: t["id"])

    # --- hands, hovering: drawn in the picture; occlusion measured in the picture ---
    hand_mask = np.zeros((h_img, w_img), np.uint8)
    for hs in spec.hands:
        skin = np.array([rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 225)]) * rng.uniform(0.45, 1.0)
        if hs.arm:
            pp = cam.project(_arm_polygon(hs))
            col = np.array(hs.sleeve, float) if hs.sleeve is not None else skin * 0.95
            pts = np.round(pp * 16).astype(np.int32)
            cv2.fillPoly(img, [pts], tuple(float(v) for v in col), cv2.LINE_AA, shift=4)
            cv2.fillPoly(hand_mask, [pts], 1, shift=4)
        for i, poly in enumerate(_hand_polygons(hs)):
            pp = cam.project(np.column_stack([poly, np.full(len(poly), -hs.height_mm)]))
            col = skin * (0.92 if i else 1.0)
            pts = np.round(pp * 16).astype(np.int32)
            cv2.fillPoly(img, [pts], tuple(float(v) for v in col), cv2.LINE_AA, shift=4)
            cv2.fillPoly(hand_mask, [pts], 1, shift=4)

    def covered(poly_mm: np.ndarray) -> float:
        pp = cam.project(np.column_stack([poly_mm, np.zeros(len(poly_mm))]))
        m = np.zeros((h_img, w_img), np.uint8)
        cv2.fillPoly(m, [np.round(pp * 16).astype(np.int32)], 1, shift=4)
        tot = np.count_nonzero(m)
        return float(np.count_nonzero(m & hand_mask) / tot) if tot else 1.0

    for tt, poly in zip(t_truth, world_polys):
        tt["hand_covered"] = covered(poly) if spec.hands else 0.0
    truth["templates"] = t_truth
    truth["tokens"] = tok_truth
    truth["token_zone_covered"] = {z.name: (covered(np.array(z.polygon)) if spec.hands else 0.0)
                                   for z in zones if z.kind == "tokens"}
    truth["dice"] = dice_truth
    truth["hands"] = [{"x": hs.x, "y": hs.y, "heading_deg": hs.heading_deg} for hs in spec.hands]

    # --- light, blur, noise ---
    lrng = np.random.default_rng(spec.light_seed) if spec.light_seed is not None else rng
    yy, xx = np.mgrid[0:h_img, 0:w_img].astype(np.float32)
    ga = lrng.uniform(0, 2 * np.pi)
    grad = (np.cos(ga) * (xx / w_img - 0.5) + np.sin(ga) * (yy / h_img - 0.5))
    lx, ly = lrng.uniform(0.2, 0.8) * w_img, lrng.uniform(0.2, 0.8) * h_img
    spot = np.exp(-(((xx - lx) / w_img) ** 2 + ((yy - ly) / h_img) ** 2) * 3)
    gain = 1.0 + spec.light * (1.2 * grad + 0.8 * (spot - 0.5))
    if spec.shadow_band > 0:  # a person or a lamp arm between the light and the table: a soft band
        ba = rng.uniform(0, np.pi)
        across = np.cos(ba) * (xx - rng.uniform(0.25, 0.75) * w_img) + np.sin(ba) * (yy - rng.uniform(0.25, 0.75) * h_img)
        half, soft = rng.uniform(0.05, 0.14) * w_img, rng.uniform(0.01, 0.04) * w_img
        band = np.clip((half - np.abs(across)) / soft + 0.5, 0.0, 1.0)
        gain = gain * (1.0 - spec.shadow_band * band)
    img = img * gain[..., None]
    if spec.light_rgb != (1.0, 1.0, 1.0):
        img = img * np.array(spec.light_rgb[::-1], np.float32)
    if spec.motion_blur_px > 0:
        n_k = max(3, int(math.ceil(spec.motion_blur_px)) | 1)
        k = np.zeros((n_k, n_k), np.float32)
        a = rng.uniform(0, np.pi)
        k_mid = (n_k - 1) / 2
        d = np.array([math.cos(a), math.sin(a)]) * spec.motion_blur_px / 2
        cv2.line(k, (int(round(k_mid - d[0])), int(round(k_mid - d[1]))),
                 (int(round(k_mid + d[0])), int(round(k_mid + d[1]))), 1.0, 1, cv2.LINE_AA)
        img = cv2.filter2D(img, -1, k / k.sum())
    if spec.defocus_px > 0:
        n_k = int(math.ceil(spec.defocus_px)) * 2 + 1
        k = np.zeros((n_k, n_k), np.float32)
        cv2.circle(k, (n_k // 2, n_k // 2), int(round(spec.defocus_px)), 1.0, -1, cv2.LINE_AA)
        img = cv2.filter2D(img, -1, k / k.sum())
    if spec.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), spec.blur)
    if spec.noise > 0:
        img = img + rng.normal(0, spec.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if spec.lens_k1:
        out, truth["lens_k1"] = _distort(out, spec), spec.lens_k1
    if spec.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(spec.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth["camera"] = {"hfov_deg": spec.hfov_deg, "tilt_deg": spec.tilt_deg, "K": cam.k.tolist(),
                       "R": cam.r.tolist(), "t": cam.t.tolist()}
    truth["mm_to_px"] = h_plane.tolist()
    return out, truth
