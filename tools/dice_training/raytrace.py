"""Photo-like frames of d6 dice in a tray seen from above, ray-traced from a 3D scene: an evaluation tool, to
measure the d6 reader on frames unlike the ones it was trained on.

Built independently of :mod:`tools.dice_training.tray` (which draws each die as a flat 2D tile, oversampled,
and is mixed into training) and of :mod:`tools.dice_training.render`; no frame of this renderer has been
trained on.  Geometry is in millimetres, the table plane is z = 0, z up:

* camera: a pinhole 450-700 mm above the table, horizontal field of view 60-95 deg, barrel distortion
  (k1 < 0), a few degrees of tilt, any roll; each pixel's ray comes from undistorting its coordinates;
* background: each pixel's ray meets the table, whose texture (felt with fibres, lint and hairs, or wood
  grain with planks) is a procedural raster sampled there; tray walls and an overhanging rim are boxes hit
  analytically, and hide what is under them;
* light: one or two spherical area lights (inverse-square falloff, a colour temperature) and a hemispherical
  ambient; soft shadows of the dice and walls (light-projected hulls blurred by the penumbra), contact
  occlusion under each die;
* dice: rounded cubes sphere-traced per pixel (2-3x supersampled); pips are dimples (exact ray/sphere hits)
  painted and darkened by depth; opaque, marbled (3D noise swirls) and translucent bodies (the refracted
  ray crosses the body, tinted by its path length, shows the mat and the back face's pips); glossy
  reflection of the lights;
* sometimes a blurred skin-coloured "hand" from an edge (kept off the dice); defocus, vignetting, auto
  exposure, a filmic shoulder, shot/read/chroma noise, sometimes sharpening, JPEG 60-95.

Where its frames look unlike real photos (judge a figure on them with this in mind): the dice are clean
CG -- perfect cubes, no scratches, dust, moulding seams or worn paint; gloss gives crisp, bright highlight
lines along every rounded edge; pips are smaller than on most dice in the real photos (radius
0.045-0.095 of the side, a big 1 on some; spaced 0.21-0.29); the marble is a procedural two-colour swirl, not
a real dice plastic; the hand is a smooth blob; the dark felts (black, tan, burgundy) are noisier and more
textured than a camera shows them.  Frame sizes are 1280x720, 1920x1080 or 640x480; the labelled boxes are
about 18-90 px across.

Labels: ``labels.csv`` (``image,x_min,y_min,x_max,y_max,value``, the format of ``../shared/data/dice-real``):
the box is the die's visible pixels (its traced coverage, occluders taken into account), the value its top
face.  **Value 0 = the honest reading is null**: a die stacked on another or under one, leaning (15-35 deg)
on a tray wall or on another die, partly under the tray's rim, or lying flat with a quarter or more of its
top face or a fifth of any top pip hidden (by another die, a wall or the rim).  A die placed under the rim
whose top face (97 %) and pips (95 %) stay in view after all keeps its value (``kind`` "near_rim").

``metadata.json`` has each frame's camera, surface, lights and camera effects, and per die (one entry per
label row, in the same order) its box, value, top face, placement (``kind``), material, size, tilt, how much
of it and of its top face is visible, and its pip geometry.

    python -m tools.dice_training.raytrace --out /tmp/raytrace7 --frames 150 --seed 7
    ./dev pitboard bench dice --data /tmp/raytrace7 --json

Frame k is drawn from ``numpy.random.default_rng([seed, k])`` alone (no global random state, no clock), so
the same command writes the same bytes and any frame can be rendered on its own (``--start``).  ``--size
WxH`` fixes the frame size (the tests' small frames).  About 0.3-4 s a frame on one core.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

F32 = np.float32
Arr = NDArray[Any]
Rng = np.random.Generator

# --------------------------------------------------------------------------------------------- colour


def srgb_to_lin(c: ArrayLike) -> Arr:
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_LUT_X = np.linspace(0, 1, 16384)
_LUT = np.where(_LUT_X <= 0.0031308, 12.92 * _LUT_X, 1.055 * np.power(_LUT_X, 1 / 2.4) - 0.055).astype(np.float32)


def lin_to_srgb(x: Arr) -> Arr:
    return _LUT[(np.clip(x, 0, 1) * 16383 + 0.5).astype(np.int32)]


def kelvin_rgb(k: float) -> Arr:
    """Linear RGB of a black body (Tanner Helland fit), normalised to green = 1."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    rgb = srgb_to_lin(np.clip([r, g, b], 0, 255) / 255.0)
    return rgb / rgb[1]


# ---------------------------------------------------------------------------------------------- noise


class Noise3:
    """Hashed-lattice value noise in 3D, vectorised over points."""

    def __init__(self, rng: Rng) -> None:
        self.tab = rng.random(4096).astype(F32) * 2 - 1

    def _h(self, ix: Arr, iy: Arr, iz: Arr) -> Arr:
        h = (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791)
        return self.tab[h & 4095]

    def __call__(self, p: ArrayLike) -> Any:
        p = np.asarray(p, dtype=np.float64)
        fl = np.floor(p)
        f = (p - fl).astype(F32)
        i = fl.astype(np.int64)
        u = f * f * (3 - 2 * f)
        x, y, z = i[:, 0], i[:, 1], i[:, 2]
        ux, uy, uz = u[:, 0], u[:, 1], u[:, 2]
        out = 0.0
        for dx in (0, 1):
            wx = ux if dx else 1 - ux
            for dy in (0, 1):
                wy = uy if dy else 1 - uy
                for dz in (0, 1):
                    wz = uz if dz else 1 - uz
                    out = out + wx * wy * wz * self._h(x + dx, y + dy, z + dz)
        return out

    def fbm(self, p: ArrayLike, octaves: int = 4, lac: float = 2.03, gain: float = 0.5) -> Any:
        amp, tot, norm = 1.0, 0.0, 0.0
        p = np.asarray(p, dtype=np.float64)
        for o in range(octaves):
            tot = tot + amp * self(p * (lac ** o) + o * 17.3)
            norm += amp
            amp *= gain
        return tot / norm


def big_blur(img: Arr, sigma: float) -> Arr:
    """Gaussian blur; large sigmas are done on a shrunken copy (shadows, hand), visually the same."""
    if sigma <= 4:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    f = sigma / 2.0
    h, w = img.shape[:2]
    sw, sh = max(2, int(round(w / f))), max(2, int(round(h / f)))
    small = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 2.0)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def raster_noise(rng: Rng, shape: tuple[int, int], cell: float) -> Arr:
    """Smooth noise on a raster, features ~cell pixels, values ~N(0,1)-ish."""
    h, w = shape
    gh, gw = int(h / cell) + 4, int(w / cell) + 4
    g = rng.standard_normal((gh, gw)).astype(F32)
    big = cv2.resize(g, (int(gw * cell), int(gh * cell)), interpolation=cv2.INTER_CUBIC)
    oy, ox = int(rng.integers(0, max(1, big.shape[0] - h))), int(rng.integers(0, max(1, big.shape[1] - w)))
    out = big[oy:oy + h, ox:ox + w]
    if out.shape != (h, w):
        out = cv2.resize(big, (w, h))
    return out


def fbm_raster(rng: Rng, shape: tuple[int, int], cell: float, octaves: int = 4, gain: float = 0.55) -> Arr:
    tot = np.zeros(shape, F32)
    amp, norm = 1.0, 0.0
    for o in range(octaves):
        c = cell / (2 ** o)
        if c < 1.0:
            break
        tot += amp * raster_noise(rng, shape, c)
        norm += amp
        amp *= gain
    return tot / norm


# --------------------------------------------------------------------------------------------- camera


def rot_axis(axis: ArrayLike, ang: float) -> Arr:
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    x, y, z = axis
    c, s = math.cos(ang), math.sin(ang)
    C = 1 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


class Camera:
    def __init__(self, W: int, H: int, hfov_deg: float, k1: float, k2: float, pos: ArrayLike, R: Arr,
                 pp_jitter: ArrayLike = (0.0, 0.0)) -> None:
        self.W, self.H = W, H
        self.fx = (W / 2) / math.tan(math.radians(hfov_deg) / 2)
        self.fy = self.fx
        jx, jy = np.asarray(pp_jitter, float)
        self.cx = W / 2 - 0.5 + jx
        self.cy = H / 2 - 0.5 + jy
        self.k1, self.k2 = k1, k2
        self.C = np.asarray(pos, float)
        self.R = R  # world_from_cam (columns: cam x, y, z in world)
        # radius (undistorted) beyond which r(1+k1 r^2+k2 r^4) stops increasing: clamp there
        rr = np.linspace(0, 4, 4001)
        d = 1 + 3 * k1 * rr ** 2 + 5 * k2 * rr ** 4
        bad = np.nonzero(d <= 0.05)[0]
        self.rmax = rr[bad[0]] if len(bad) else 4.0

    def rays(self, u: Arr, v: Arr) -> Arr:
        """Pixel coords (any shape) -> unit world directions (..., 3) float32."""
        xd = ((u - self.cx) / self.fx).astype(F32)
        yd = ((v - self.cy) / self.fy).astype(F32)
        xu, yu = xd.copy(), yd.copy()
        for _ in range(10):
            r2 = np.minimum(xu * xu + yu * yu, self.rmax ** 2)
            f = 1 + self.k1 * r2 + self.k2 * r2 * r2
            xu, yu = xd / f, yd / f
        d = np.stack([xu, yu, np.ones_like(xu)], -1) @ self.R.T.astype(F32)
        d /= np.linalg.norm(d, axis=-1, keepdims=True)
        return d.astype(F32)

    def project(self, P: ArrayLike) -> tuple[Arr, Arr]:
        """World points (N,3) -> pixel (N,2), depth (N,)."""
        P = np.atleast_2d(np.asarray(P, float))
        pc = (P - self.C) @ self.R
        z = np.maximum(pc[:, 2], 1e-6)
        xu, yu = pc[:, 0] / z, pc[:, 1] / z
        r = np.sqrt(xu * xu + yu * yu)
        rc = np.minimum(r, self.rmax)
        fc = 1 + self.k1 * rc ** 2 + self.k2 * rc ** 4
        # linear continuation beyond rmax (keeps projection monotonic)
        rd = np.where(r <= self.rmax, r * fc, self.rmax * fc + (r - self.rmax) * 0.05)
        s = np.where(r > 1e-9, rd / np.maximum(r, 1e-9), 1.0)
        return np.stack([self.fx * xu * s + self.cx, self.fy * yu * s + self.cy], -1), pc[:, 2]

    def px_per_mm_at(self, P: ArrayLike) -> float:
        uv, z = self.project(np.asarray(P, float)[None])
        uv2, _ = self.project(np.asarray(P, float)[None] + np.array([[1.0, 0, 0]]))
        return float(np.linalg.norm(uv2 - uv))


# ---------------------------------------------------------------------------------------------- dice

# local face axes: index 0..5 = +x,-x,+y,-y,+z,-z ; right-handed die: 1,2,3 counter-clockwise at a corner
FACE_NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
FACE_VALUES = [1, 6, 2, 5, 3, 4]
FACE_TANG = {0: ([0, 1, 0], [0, 0, 1]), 1: ([0, 1, 0], [0, 0, 1]), 2: ([0, 0, 1], [1, 0, 0]),
             3: ([0, 0, 1], [1, 0, 0]), 4: ([1, 0, 0], [0, 1, 0]), 5: ([1, 0, 0], [0, 1, 0])}
PIP_PATTERNS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
                4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)],
                6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}

MATERIALS = {
    # name: (body sRGB, pip sRGB, kind)   kind: opaque | translucent | marble
    "white": ((0.93, 0.93, 0.91), (0.05, 0.05, 0.05), "opaque"),
    "ivory": ((0.92, 0.87, 0.74), (0.06, 0.05, 0.05), "opaque"),
    "black": ((0.07, 0.07, 0.075), (0.93, 0.93, 0.9), "opaque"),
    "red": ((0.80, 0.10, 0.09), (0.95, 0.95, 0.93), "opaque"),
    "blue": ((0.10, 0.28, 0.72), (0.95, 0.95, 0.93), "opaque"),
    "green": ((0.10, 0.58, 0.25), (0.95, 0.95, 0.93), "opaque"),
    "darkblue_redpip": ((0.05, 0.08, 0.30), (0.85, 0.10, 0.10), "opaque"),
    "smoky_redpip": ((0.42, 0.40, 0.38), (0.85, 0.10, 0.09), "translucent"),
    "smoky_whitepip": ((0.42, 0.40, 0.38), (0.95, 0.95, 0.93), "translucent"),
    "clear_red": ((0.85, 0.20, 0.18), (0.95, 0.95, 0.93), "translucent"),
    "marble_green": ((0.10, 0.45, 0.20), (0.95, 0.93, 0.85), "marble", (0.02, 0.06, 0.03)),
    "marble_blue": ((0.12, 0.28, 0.70), (0.95, 0.95, 0.95), "marble", (0.40, 0.62, 0.85)),
    "marble_red": ((0.70, 0.08, 0.06), (0.90, 0.80, 0.35), "marble", (0.08, 0.02, 0.02)),
    "marble_purple": ((0.40, 0.15, 0.55), (0.92, 0.78, 0.3), "marble", (0.62, 0.45, 0.72)),
}
MAT_WEIGHTS = {"white": 3, "ivory": 1.5, "black": 2, "red": 2, "blue": 1.5, "green": 1.5, "darkblue_redpip": 1,
               "smoky_redpip": 1, "smoky_whitepip": 1, "clear_red": 0.6, "marble_green": 0.7,
               "marble_blue": 0.7, "marble_red": 0.7, "marble_purple": 0.5}


class Die:
    def __init__(self, rng: Rng, size: float, material: str, up_face: int, yaw: float) -> None:
        self.s = size
        self.h = size / 2
        self.rr = size * rng.uniform(0.05, 0.16)
        self.material = material
        m = MATERIALS[material]
        self.body = srgb_to_lin(m[0]) * rng.uniform(0.9, 1.05)
        self.pipc = srgb_to_lin(m[1])
        self.kind = m[2]
        self.vein = srgb_to_lin(m[3]) if len(m) > 3 else None
        self.f0 = rng.uniform(0.035, 0.06)
        self.rough = rng.uniform(0.045, 0.09) if rng.random() < 0.7 else rng.uniform(0.08, 0.18)
        # pip geometry (fractions of the side)
        self.spacing = rng.uniform(0.21, 0.29)
        self.pip_r = rng.uniform(0.055, 0.095)
        lim = 0.5 - 0.7 * self.rr / size - self.spacing
        self.pip_r = float(min(self.pip_r, max(0.045, lim), 0.45 * self.spacing))
        self.depth = self.pip_r * rng.uniform(0.35, 0.8)
        self.painted = True
        big_one = rng.random() < 0.2
        red_one = material in ("white", "ivory") and rng.random() < 0.25
        # build pips
        centres, normals, radii, faces, colours = [], [], [], [], []
        for fi in range(6):
            val = FACE_VALUES[fi]
            n = FACE_NORMALS[fi]
            a, b = (np.array(t, float) for t in FACE_TANG[fi])
            if rng.random() < 0.5:
                a, b = b, a
            for (pa, pb) in PIP_PATTERNS[val]:
                c = n * self.h + (a * pa + b * pb) * self.spacing * size
                r = self.pip_r * size
                col = self.pipc
                if val == 1 and big_one:
                    r = min(r * rng.uniform(1.4, 1.9), 0.3 * size)
                if val == 1 and red_one:
                    col = srgb_to_lin((0.8, 0.08, 0.08))
                centres.append(c)
                normals.append(n)
                radii.append(r)
                faces.append(fi)
                colours.append(col)
        self.pc = np.array(centres)
        self.pn = np.array(normals)
        self.pr = np.array(radii)
        self.pf = np.array(faces)
        self.pcol = np.array(colours)
        dep = np.minimum(self.depth * size, 0.8 * self.pr)
        self.pR = (self.pr ** 2 + dep ** 2) / (2 * dep)  # dimple sphere radius
        self.psc = self.pc + self.pn * (self.pR - dep)[:, None]  # sphere centres (outside the face)
        self.pdep = dep
        # orientation: up_face (index) to +z, then yaw
        n = FACE_NORMALS[up_face]
        z = np.array([0, 0, 1.0])
        if np.allclose(n, z):
            R0 = np.eye(3)
        elif np.allclose(n, -z):
            R0 = rot_axis([1, 0, 0], math.pi)
        else:
            ax = np.cross(n, z)
            R0 = rot_axis(ax, math.acos(np.clip(n @ z, -1, 1)))
        self.R = rot_axis(z, yaw) @ R0
        self.c = np.zeros(3)
        self.top_value = FACE_VALUES[up_face]
        self.tilt = 0.0
        self.kind_place = "flat"
        self.touching = False

    def rest_z(self) -> float:
        """Centre height that puts the lowest point of the rounded box on z=0."""
        return (self.h - self.rr) * np.abs(self.R[2, :]).sum() + self.rr

    def extent(self, direction: ArrayLike) -> float:
        d = np.asarray(direction, float)
        return (self.h - self.rr) * np.abs(self.R.T @ d).sum() + self.rr

    def extent_sharp(self, direction: ArrayLike) -> float:
        return self.h * np.abs(self.R.T @ np.asarray(direction, float)).sum()

    def corners(self) -> Arr:
        c = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float) * self.h
        return c @ self.R.T + self.c

    def edge_points(self, n: int = 4) -> Arr:
        t = np.linspace(-1, 1, n + 1)
        pts = []
        for a in range(3):
            for s1 in (-1, 1):
                for s2 in (-1, 1):
                    p = np.zeros((len(t), 3))
                    p[:, a] = t
                    o = [i for i in range(3) if i != a]
                    p[:, o[0]] = s1
                    p[:, o[1]] = s2
                    pts.append(p)
        return np.concatenate(pts) * self.h @ self.R.T + self.c

    def top_face_index(self) -> int:
        return int(np.argmax(FACE_NORMALS @ self.R[2, :]))

    def obb(self) -> tuple[Arr, Arr, Arr]:
        return self.c, self.R, np.array([self.h] * 3)


def yaw_of(R: Arr) -> float:
    i = int(np.argmin(np.abs(R[2, :])))
    return math.atan2(R[1, i], R[0, i])


def obb_overlap(c1: Arr, R1: Arr, e1: Arr, c2: Arr, R2: Arr, e2: Arr, margin: float = 0.0) -> bool:
    """Separating-axis test for two oriented boxes (centres, world_from_local, half extents)."""
    axes = [R1[:, i] for i in range(3)] + [R2[:, i] for i in range(3)]
    for i in range(3):
        for j in range(3):
            a = np.cross(R1[:, i], R2[:, j])
            if np.linalg.norm(a) > 1e-6:
                axes.append(a / np.linalg.norm(a))
    d = c2 - c1
    for a in axes:
        r1 = np.abs(R1.T @ a) @ e1
        r2 = np.abs(R2.T @ a) @ e2
        if abs(d @ a) > r1 + r2 + margin:
            return False
    return True


def sdf_round_box(p: Arr, h: float, rr: float) -> Arr:
    q = np.abs(p) - (h - rr)
    qp = np.maximum(q, 0)
    return np.sqrt((qp * qp).sum(-1)) + np.minimum(q.max(-1), 0) - rr


def slab(o: Arr, d: Arr, bmin: Arr, bmax: Arr) -> tuple[Arr, Arr, Arr]:
    """Ray/box: o (3,) or (N,3), d (N,3) -> tmin, tmax, axis of entry."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / np.where(np.abs(d) < 1e-12, 1e-12, d)
        t1 = (bmin - o) * inv
        t2 = (bmax - o) * inv
    tlo = np.minimum(t1, t2)
    thi = np.maximum(t1, t2)
    tmin = tlo.max(-1)
    tmax = thi.min(-1)
    ax = tlo.argmax(-1)
    return tmin, tmax, ax


# ------------------------------------------------------------------------------------------------ scene


class Light:
    def __init__(self, pos: ArrayLike, radius: float, rgb: ArrayLike, power: float) -> None:
        self.pos = np.asarray(pos, float)
        self.radius = radius
        self.rgb = np.asarray(rgb, float)
        self.power = power


def shade_direct(P: Arr, N: Arr, lights: list[Light], shadow: list[Arr] | None = None) -> Arr:
    """Irradiance (N,3) at points P (N,3) with normals N (N,3) from the lights (+ optional per-light
    shadow factor list)."""
    E = np.zeros(P.shape, F32)
    for li, L in enumerate(lights):
        v = L.pos[None].astype(F32) - P
        dist2 = (v * v).sum(-1)
        dist = np.sqrt(dist2)
        l = v / dist[:, None]
        ndl = (N * l).sum(-1)
        w = 0.15  # area light wrap
        ndl = np.clip((ndl + w) / (1 + w), 0, None)
        e = L.power * ndl / dist2
        if shadow is not None:
            e = e * shadow[li]
        E += e[:, None] * L.rgb[None].astype(F32)
    return E


def spec_term(P: Arr, N: Arr, V: Arr, lights: list[Light], rough: float, f0: float) -> Arr:
    """Glossy reflection of the (spherical area) lights: a lobe around the mirror direction whose width is
    the light's angular radius widened by the surface roughness, scaled so the reflected energy matches a
    Fresnel-weighted mirror (a flat face either glares or not; rounded edges always catch a thin line)."""
    S = np.zeros(P.shape, F32)
    ndv = np.clip((N * V).sum(-1), 0, 1)
    F = f0 + (1 - f0) * (1 - ndv) ** 5
    r = 2 * ndv[:, None] * N - V
    for L in lights:
        v = L.pos[None].astype(F32) - P
        dist2 = (v * v).sum(-1)
        dist = np.sqrt(dist2)
        l = v / dist[:, None]
        cosa = np.clip((r * l).sum(-1), -1, 1)
        alpha2 = np.arccos(cosa) ** 2
        beta2 = (L.radius / dist) ** 2
        w2 = beta2 + rough ** 2
        ndl = (N * l).sum(-1) > 0
        s = F * (L.power / dist2) * np.exp(-alpha2 / w2) / w2 * ndl
        S += s[:, None] * L.rgb[None].astype(F32)
    return S


def aniso_noise(rng: Rng, shape: tuple[int, int], cell_u: float, cell_v: float) -> Arr:
    """Noise on a raster with features cell_u pixels along columns (x) and cell_v along rows (y)."""
    h, w = shape
    gh, gw = int(h / cell_v) + 4, int(w / cell_u) + 4
    g = rng.standard_normal((gh, gw)).astype(F32)
    big = cv2.resize(g, (int(gw * cell_u), int(gh * cell_v)), interpolation=cv2.INTER_CUBIC)
    return big[:h, :w]


def make_felt(rng: Rng, shape: tuple[int, int], mm_per_px: float, base: ArrayLike) -> Arr:
    h, w = shape
    px = 1.0 / mm_per_px
    lum = 1 + 0.10 * fbm_raster(rng, shape, 180 * px, 3) + 0.05 * raster_noise(rng, shape, 12 * px)
    lum += 0.04 * raster_noise(rng, shape, max(1.2, 2.5 * px))
    # fibres: white noise smeared along a few directions
    fib = np.zeros(shape, F32)
    n0 = rng.standard_normal(shape).astype(F32)
    L = max(3, int(2.0 * px)) | 1
    for ang in rng.uniform(0, 180, 3):
        k = np.zeros((L, L), F32)
        c = L // 2
        dx, dy = math.cos(math.radians(ang)), math.sin(math.radians(ang))
        for t in np.linspace(-c, c, 2 * L):
            k[int(round(c + dy * t)), int(round(c + dx * t))] = 1
        k /= k.sum()
        fib += cv2.filter2D(n0, -1, k)
    amp = rng.uniform(0.05, 0.12)
    lum += amp * fib / max(1e-6, fib.std())
    img = np.clip(lum, 0.2, 2.0)[..., None] * np.asarray(base, F32)[None, None]
    # slight hue variation
    img *= (1 + 0.04 * raster_noise(rng, shape, 60 * px))[..., None] * np.array([1, 1, 1], F32)
    # lint specks and hairs
    nspeck = int(rng.integers(10, 120) * (h * w * mm_per_px ** 2) / 2.5e5)
    for _ in range(nspeck):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = max(1, int(rng.uniform(0.15, 0.7) * px))
        tone = rng.choice(["light", "dark", "col"], p=[0.6, 0.25, 0.15])
        if tone == "light":
            col = np.full(3, rng.uniform(0.3, 0.8))
        elif tone == "dark":
            col = np.asarray(base) * 0.3
        else:
            col = srgb_to_lin(rng.uniform(0.2, 0.9, 3))
        cv2.circle(img, (x, y), r, tuple(float(c) for c in col), -1, lineType=cv2.LINE_AA)
    nhair = int(rng.integers(2, 30) * (h * w * mm_per_px ** 2) / 2.5e5)
    for _ in range(nhair):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, 2 * math.pi)
        pts = []
        for _ in range(int(rng.integers(4, 12))):
            pts.append((int(x), int(y)))
            ang += rng.normal(0, 0.5)
            st = rng.uniform(0.4, 1.2) * px
            x += math.cos(ang) * st
            y += math.sin(ang) * st
        col = np.full(3, rng.uniform(0.25, 0.7)) if rng.random() < 0.7 else np.asarray(base) * 0.4
        cv2.polylines(img, [np.array(pts, np.int32)], False, tuple(float(c) for c in col), 1, cv2.LINE_AA)
    return img


def make_wood(rng: Rng, shape: tuple[int, int], mm_per_px: float, light_col: ArrayLike, dark_col: ArrayLike,
              along_x: bool = True) -> Arr:
    h, w = shape
    px = 1.0 / mm_per_px
    if not along_x:
        h, w = w, h
    v = np.arange(h, dtype=F32)[:, None] / px  # across the grain, mm
    warp = rng.uniform(6, 20) * aniso_noise(rng, (h, w), 350 * px, 90 * px) \
        + rng.uniform(0.5, 2.0) * aniso_noise(rng, (h, w), 90 * px, 25 * px)
    plank_w = rng.uniform(80, 200)
    plank = np.floor(v / plank_w)
    phase = (np.sin(plank * 12.9898 + 3.1) * 43758.5453) % 1.0
    spacing = rng.uniform(1.8, 5.5) * (1 + 0.25 * aniso_noise(rng, (h, w), 400 * px, 60 * px))
    ph = (v + warp + phase * 500) / spacing
    line = (0.5 + 0.5 * np.cos(2 * math.pi * ph)) ** rng.uniform(5, 16)
    band = 0.5 + 0.5 * np.cos(2 * math.pi * ph / rng.uniform(4, 9))
    streak = aniso_noise(rng, (h, w), 30 * px, max(1.0, 0.4 * px))
    t = np.clip(0.25 + rng.uniform(0.25, 0.5) * line + 0.15 * band + 0.08 * streak + 0.25 * (phase - 0.5)
                + 0.1 * aniso_noise(rng, (h, w), 300 * px, 150 * px), 0, 1)
    img = np.asarray(light_col, F32)[None, None] * (1 - t[..., None]) + np.asarray(dark_col, F32)[None, None] * t[..., None]
    if rng.random() < 0.6:
        seam = np.abs(v - plank * plank_w) < 0.5
        img[np.broadcast_to(seam, (h, w))] *= 0.5
    img *= (1 + 0.025 * raster_noise(rng, (h, w), max(1.2, 1.5 * px)))[..., None]
    if not along_x:
        img = np.ascontiguousarray(img.transpose(1, 0, 2))
    return img


FELTS = {"green": (0.03, 0.16, 0.06), "blue": (0.02, 0.06, 0.2), "red": (0.3, 0.025, 0.025),
         "black": (0.018, 0.018, 0.02), "grey": (0.14, 0.14, 0.14), "tan": (0.38, 0.27, 0.15),
         "purple": (0.09, 0.03, 0.14), "burgundy": (0.16, 0.012, 0.03), "lightgrey": (0.42, 0.41, 0.38)}
WOODS = [((0.55, 0.38, 0.22), (0.30, 0.17, 0.08)), ((0.75, 0.6, 0.42), (0.55, 0.4, 0.24)),
         ((0.30, 0.16, 0.07), (0.13, 0.06, 0.03)), ((0.7, 0.62, 0.5), (0.5, 0.42, 0.32))]


# ---------------------------------------------------------------------------------------------- frame


def sample_camera(rng: Rng, size: tuple[int, int] | None = None) -> tuple[Camera, float, dict[str, Any]]:
    """The camera of a frame, the dice's side in mm and the camera's metadata.  ``size`` (W, H) replaces the
    drawn frame size (the draw is still made, so the other draws stay in step)."""
    W, H = [(1280, 720), (1920, 1080), (640, 480)][rng.choice(3, p=[0.45, 0.25, 0.30])]
    if size is not None:
        W, H = size
    for _ in range(500):
        hfov = rng.uniform(60, 95)
        height = rng.uniform(450, 700)
        size = rng.uniform(12, 19)
        fx = (W / 2) / math.tan(math.radians(hfov) / 2)
        px = size * fx / height
        lo, hi = (15, 80) if W == 640 else (17, 80)
        if lo <= px <= hi and (px < 45 or rng.random() < 0.5):
            break
    k1 = -rng.uniform(0.01, 0.11)
    k2 = rng.uniform(0, 0.01)
    tilt = math.radians(rng.uniform(0, 7) if rng.random() < 0.6 else 0.0)
    roll = math.radians(rng.uniform(-20, 20) + (90 * rng.integers(-1, 2) if rng.random() < 0.25 else 0))
    R = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], float)  # cam x=+X, y=-Y, z=-Z
    R = rot_axis([0, 0, 1], roll) @ R
    R = rot_axis([math.cos(rng.uniform(0, 6.3)), math.sin(rng.uniform(0, 6.3)), 0], tilt) @ R
    pos = np.array([0.0, 0.0, height])
    cam = Camera(W, H, hfov, k1, k2, pos, R, pp_jitter=rng.normal(0, 0.01 * W, 2))
    return cam, size, dict(width=W, height=H, hfov=round(hfov, 1), cam_height_mm=round(height, 1),
                           k1=round(k1, 3), k2=round(k2, 4), tilt_deg=round(math.degrees(tilt), 1),
                           roll_deg=round(math.degrees(roll), 1))


def _pip_at(points: Arr, d: Any) -> Arr:
    """For each point on die ``d``'s surface (its own frame), the pip it lies in (-1: none): the face is the axis
    the point lies furthest along, a pip the disc of its radius around its centre in that face's plane."""
    fa = np.argmax(np.abs(points), 1)
    face = fa * 2 + (np.take_along_axis(points, fa[:, None], 1)[:, 0] < 0)
    in_pip = np.full(len(points), -1, np.int32)
    for k in range(len(d.pc)):
        m = face == d.pf[k]
        if not m.any():
            continue
        rel = points - d.pc[k]
        inpl = rel - (rel @ d.pn[k])[:, None] * d.pn[k][None]
        in_pip[m & ((inpl * inpl).sum(1) < d.pr[k] ** 2)] = k
    return in_pip


def render_frame(rng: Rng, name: str, size: tuple[int, int] | None = None) -> tuple[bytes, dict[str, Any]]:
    """One frame drawn from ``rng``: its JPEG bytes and its metadata (``meta["dice"]``: one entry per labelled
    die, in label order, with its ``box`` and ``value``).  ``size`` (W, H) fixes the frame size."""
    cam, size0, cam_meta = sample_camera(rng, size)
    W, H = cam.W, cam.H
    meta = {"image": name, **cam_meta}
    noise3 = Noise3(rng)

    # ---- per-pixel rays and table hits
    uu, vv = np.meshgrid(np.arange(W, dtype=F32), np.arange(H, dtype=F32))
    D = cam.rays(uu, vv)  # H,W,3
    tpl = (-cam.C[2] / D[..., 2]).astype(F32)
    X = (cam.C[0] + tpl * D[..., 0]).astype(F32)
    Y = (cam.C[1] + tpl * D[..., 1]).astype(F32)
    xmin, xmax, ymin, ymax = float(X.min()), float(X.max()), float(Y.min()), float(Y.max())

    # ---- scene layout: tray / mat / bare table
    scene = rng.choice(["tray", "mat", "table"], p=[0.6, 0.22, 0.18])
    meta["surface"] = str(scene)
    walls, lips = [], []
    tray = None
    hw = 0.0
    if scene == "tray":
        # inner rect placed so some walls are in view
        span_x, span_y = xmax - xmin, ymax - ymin
        iw = rng.uniform(0.55, 1.3) * span_x
        ih = rng.uniform(0.55, 1.3) * span_y
        ox = rng.uniform(-0.35, 0.35) * span_x
        oy = rng.uniform(-0.35, 0.35) * span_y
        x0, x1 = ox - iw / 2, ox + iw / 2
        y0, y1 = oy - ih / 2, oy + ih / 2
        # keep the middle of the view inside the tray
        x0, x1 = min(x0, -0.15 * span_x), max(x1, 0.15 * span_x)
        y0, y1 = min(y0, -0.15 * span_y), max(y1, 0.15 * span_y)
        tw = rng.uniform(8, 22)
        hw = rng.uniform(22, 48)
        has_lip = rng.random() < 0.45 and hw > 30
        lip = rng.uniform(8, 14) if has_lip else 0.0
        lt = rng.uniform(3, 6)
        tray = (x0, x1, y0, y1)
        walls = [((x0 - tw, y0 - tw, 0), (x0, y1 + tw, hw)), ((x1, y0 - tw, 0), (x1 + tw, y1 + tw, hw)),
                 ((x0, y0 - tw, 0), (x1, y0, hw)), ((x0, y1, 0), (x1, y1 + tw, hw))]
        if has_lip:
            lips = [((x0, y0, hw - lt), (x0 + lip, y1, hw)), ((x1 - lip, y0, hw - lt), (x1, y1, hw)),
                    ((x0, y0, hw - lt), (x1, y0 + lip, hw)), ((x0, y1 - lip, hw - lt), (x1, y1, hw))]
        meta.update(tray_wall_mm=round(hw, 1), tray_lip_mm=round(lip, 1))
    elif scene == "mat":
        span_x, span_y = xmax - xmin, ymax - ymin
        tray = (-rng.uniform(0.3, 0.8) * span_x, rng.uniform(0.3, 0.8) * span_x,
                -rng.uniform(0.3, 0.8) * span_y, rng.uniform(0.3, 0.8) * span_y)
    boxes_all = walls + lips

    # ---- textures
    mmpp = cam.C[2] / cam.fx / 1.15
    rx0, ry0 = xmin - 5, ymin - 5
    rw = int((xmax - xmin + 10) / mmpp) + 2
    rh = int((ymax - ymin + 10) / mmpp) + 2
    scale_down = max(1.0, math.sqrt(rw * rh / 3e6))
    mmpp *= scale_down
    rw, rh = int((xmax - xmin + 10) / mmpp) + 2, int((ymax - ymin + 10) / mmpp) + 2
    felt_name = str(rng.choice(list(FELTS)))
    wood = WOODS[rng.integers(len(WOODS))]
    outside = rng.choice(["wood", "white", "grey"], p=[0.6, 0.25, 0.15])
    if scene == "table":
        floor_tex = make_wood(rng, (rh, rw), mmpp, srgb_to_lin(wood[0]), srgb_to_lin(wood[1]), rng.random() < 0.5)
        out_tex = floor_tex
        meta["floor"] = "wood"
    else:
        fb = np.asarray(FELTS[felt_name]) * rng.uniform(0.8, 1.2)
        floor_tex = make_felt(rng, (rh, rw), mmpp, fb)
        meta["floor"] = "felt_" + felt_name
        if outside == "wood":
            out_tex = make_wood(rng, (rh, rw), mmpp, srgb_to_lin(wood[0]), srgb_to_lin(wood[1]), rng.random() < 0.5)
        else:
            base = 0.75 if outside == "white" else 0.25
            out_tex = np.repeat(((1 + 0.03 * raster_noise(rng, (rh, rw), 30 / mmpp)) * base)[..., None], 3, -1)
    mapx = ((X - rx0) / mmpp).astype(F32)
    mapy = ((Y - ry0) / mmpp).astype(F32)
    albedo = cv2.remap(floor_tex, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if tray is not None:
        inside = (X > tray[0]) & (X < tray[1]) & (Y > tray[2]) & (Y < tray[3])
        if not inside.all():
            o = cv2.remap(out_tex, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            albedo = np.where(inside[..., None], albedo, o)
    else:
        inside = np.ones((H, W), bool)

    # ---- lights
    temp_kind = rng.choice(["warm", "neutral", "cool"], p=[0.4, 0.3, 0.3])
    lights = []
    nl = 1 if rng.random() < 0.6 else 2
    for i in range(nl):
        K = {"warm": rng.uniform(2700, 3500), "neutral": rng.uniform(3800, 5000), "cool": rng.uniform(5600, 7500)}[temp_kind]
        Lz = rng.uniform(500, 2000)
        rad = rng.uniform(0.12, 1.0) * Lz
        ang = rng.uniform(0, 2 * math.pi)
        pos = (rad * math.cos(ang), rad * math.sin(ang), Lz)
        power = Lz ** 2 * (1.0 if i == 0 else rng.uniform(0.3, 0.8))
        lights.append(Light(pos, rng.uniform(15, 200), kelvin_rgb(K), power))
        meta.setdefault("lights", []).append({"pos": [round(p) for p in pos], "kelvin": round(K), "radius": round(lights[-1].radius)})
    meta["light_temp"] = str(temp_kind)
    meta["n_lights"] = nl
    amb_col = kelvin_rgb(min(9000.0, float(np.mean([m_['kelvin'] for m_ in meta['lights']])) * rng.uniform(0.95, 1.6))) * rng.uniform(0.12, 0.45)

    # ---- dice placement
    n_dice = int(rng.choice(np.arange(1, 9), p=[0.1, 0.14, 0.16, 0.16, 0.14, 0.12, 0.1, 0.08]))
    set_mat = str(rng.choice(list(MATERIALS), p=np.array(list(MAT_WEIGHTS.values())) / sum(MAT_WEIGHTS.values())))
    mixed = rng.random() < 0.55
    dice: list[Die] = []
    wall_obbs = [(np.array([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2]), np.eye(3),
                  np.array([(b[0] - a[0]) / 2, (b[1] - a[1]) / 2, (b[2] - a[2]) / 2])) for a, b in walls]
    lip_obbs = [(np.array([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2]), np.eye(3),
                 np.array([(b[0] - a[0]) / 2, (b[1] - a[1]) / 2, (b[2] - a[2]) / 2])) for a, b in lips]

    def new_die():
        mat = set_mat if not mixed else str(rng.choice(list(MATERIALS), p=np.array(list(MAT_WEIGHTS.values())) / sum(MAT_WEIGHTS.values())))
        s = size0 * (rng.uniform(0.88, 1.12) if mixed else 1.0)
        s = float(np.clip(s, 12, 19))
        return Die(rng, s, mat, int(rng.integers(6)), rng.uniform(0, 2 * math.pi))

    def collides(d, ignore=(), margin=0.0):
        for o in dice:
            if o in ignore:
                continue
            if np.linalg.norm(o.c - d.c) < (o.s + d.s) * 0.9 and obb_overlap(o.c, o.R, np.full(3, o.h), d.c, d.R, np.full(3, d.h), margin):
                return True
        for (c, R, e) in wall_obbs + lip_obbs:
            if obb_overlap(c, R, e, d.c, d.R, np.full(3, d.h), margin):
                return True
        return False

    def in_view(d, margin_px=2):
        uv, _ = cam.project(d.corners())
        return (uv[:, 0].min() > margin_px and uv[:, 1].min() > margin_px and uv[:, 0].max() < W - margin_px
                and uv[:, 1].max() < H - margin_px)

    def on_floor(d, slack=0.0):
        if tray is None or scene != "tray":
            return True
        cx, cy = d.c[0], d.c[1]
        return tray[0] - slack < cx < tray[1] + slack and tray[2] - slack < cy < tray[3] + slack

    def random_spot(d):
        u, v = rng.uniform(0.04 * W, 0.96 * W), rng.uniform(0.05 * H, 0.95 * H)
        ray = cam.rays(np.array([u], F32), np.array([v], F32))[0]
        zc = d.rest_z()
        t = (zc - cam.C[2]) / ray[2]
        d.c = cam.C + t * ray

    def slide_until_free(d, start, direction, lo=0.0, hi=40.0, ignore=()):
        """Move d from start along direction to the least distance with no collision."""
        d.c = start + direction * hi
        if collides(d, ignore):
            return False
        for _ in range(18):
            mid = (lo + hi) / 2
            d.c = start + direction * mid
            if collides(d, ignore):
                lo = mid
            else:
                hi = mid
        d.c = start + direction * hi
        return True

    wall_defs = []  # (inner plane coordinate, axis, sign toward wall)
    if tray is not None and scene == "tray":
        wall_defs = [(tray[0], 0, -1), (tray[1], 0, 1), (tray[2], 1, -1), (tray[3], 1, 1)]

    # points along each wall's inner foot that the camera sees (where leaning / rim-hidden dice can go)
    wall_seen = []
    for (pos, axis, sgn) in wall_defs:
        t = np.linspace(tray[2 - 2 * axis], tray[3 - 2 * axis], 300)
        pts = np.zeros((300, 3))
        pts[:, axis] = pos
        pts[:, 1 - axis] = t
        uv, _ = cam.project(pts)
        m = (uv[:, 0] > 0.06 * W) & (uv[:, 0] < 0.94 * W) & (uv[:, 1] > 0.06 * H) & (uv[:, 1] < 0.94 * H)
        if m.sum() > 5:
            wall_seen.append(((pos, axis, sgn), pts[m]))

    def wall_spot(d, pts, axis):
        p = pts[int(rng.integers(len(pts)))]
        d.c = np.array([p[0], p[1], d.rest_z()])

    attempts = 0
    while len(dice) < n_dice and attempts < 400:
        attempts += 1
        d = new_die()
        r = rng.random()
        kind = "flat"
        if r < 0.045 and wall_seen:
            kind = "lean_wall"
        elif r < 0.085 and lips and wall_seen:
            kind = "under_rim"
        elif r < 0.11 and dice:
            kind = "lean_die"
        elif r < 0.125 and len(dice) < n_dice - 1:
            kind = "stack"
        elif r < 0.45 and dice:
            kind = "touch"
        ok = False
        if kind == "flat":
            random_spot(d)
            ok = on_floor(d, -d.h) and not collides(d, margin=0.5) and in_view(d)
        elif kind == "touch":
            nb = dice[int(rng.integers(len(dice)))]
            if nb.kind_place != "flat":
                continue
            ang = rng.uniform(0, 2 * math.pi)
            if rng.random() < 0.5:  # aligned with neighbour
                d.R = rot_axis([0, 0, 1], yaw_of(nb.R) - yaw_of(d.R) + rng.normal(0, 0.08)) @ d.R
            start = nb.c.copy()
            start[2] = d.rest_z()
            dirv = np.array([math.cos(ang), math.sin(ang), 0])
            ok = slide_until_free(d, start, dirv, 0, 40) and on_floor(d, -d.h) and in_view(d)
            if ok:
                d.c = d.c + dirv * rng.uniform(0.0, 0.6)
                ok = not collides(d)
                d.touching = nb.touching = True
        elif kind == "lean_wall":
            (pos, axis, sgn), wpts = wall_seen[int(rng.integers(len(wall_seen)))]
            tilt = math.radians(rng.uniform(15, 35))
            nw = np.zeros(3)
            nw[axis] = sgn
            up = int(rng.integers(6))
            d = Die(rng, d.s, d.material, up, math.atan2(nw[1], nw[0]) + rng.normal(0, 0.25))
            hax = np.cross([0, 0, 1.0], nw)  # horizontal axis parallel to the wall
            d.R = rot_axis(hax, tilt) @ d.R  # top moves toward the wall
            wall_spot(d, wpts, axis)
            d.c[axis] = pos - sgn * (d.extent_sharp(nw) + 0.1)
            d.tilt = math.degrees(tilt)
            ok = not collides(d) and in_view(d) and on_floor(d)
        elif kind == "under_rim":
            (pos, axis, sgn), wpts = wall_seen[int(rng.integers(len(wall_seen)))]
            lipw = lips[0][1][0] - lips[0][0][0]
            wall_spot(d, wpts, axis)
            nw = np.zeros(3)
            nw[axis] = sgn
            ext = d.extent_sharp(nw)
            covered = rng.uniform(0.3, 0.7) * 2 * ext
            d.c[axis] = pos - sgn * (lipw - covered + ext)
            d.c[axis] = sgn * min(sgn * d.c[axis], sgn * (pos - sgn * (ext + 0.2)))
            ok = not collides(d) and on_floor(d)
            if ok:
                uv, _ = cam.project(d.c[None])
                ok = 0 < uv[0, 0] < W and 0 < uv[0, 1] < H
        elif kind == "lean_die":
            nb = dice[int(rng.integers(len(dice)))]
            if nb.kind_place != "flat":
                continue
            ang = rng.uniform(0, 2 * math.pi)
            dirv = np.array([math.cos(ang), math.sin(ang), 0])  # from nb to d
            tilt = math.radians(rng.uniform(15, 35))
            d = Die(rng, d.s, d.material, int(rng.integers(6)), ang + rng.normal(0, 0.2))
            hax = np.cross([0, 0, 1.0], -dirv)
            d.R = rot_axis(hax, tilt) @ d.R  # top leans toward nb
            start = nb.c.copy()
            start[2] = d.rest_z()
            ok = slide_until_free(d, start, dirv, 0, 40) and on_floor(d, -d.h) and in_view(d)
            d.tilt = math.degrees(tilt)
            if ok:
                d.touching = nb.touching = True
        elif kind == "stack":
            random_spot(d)
            if not (on_floor(d, -d.h) and not collides(d, margin=0.5) and in_view(d)):
                continue
            top = new_die()
            top.s = min(top.s, d.s * 1.05)
            top = Die(rng, top.s, top.material, int(rng.integers(6)), rng.uniform(0, 2 * math.pi))
            off = rng.uniform(0.2, 0.42) * d.s
            ang = rng.uniform(0, 2 * math.pi)
            top.c = d.c + np.array([off * math.cos(ang), off * math.sin(ang), d.h + top.h + 0.05])
            d.kind_place = "stack_bottom"
            top.kind_place = "stack_top"
            if collides(top, ignore=(d,)) or not in_view(top):
                continue
            dice.append(d)
            dice.append(top)
            continue
        if ok:
            if kind in ("lean_wall", "under_rim", "lean_die"):
                d.kind_place = kind
            dice.append(d)
    for i, d in enumerate(dice):
        d.id = i

    # ---- hit buffers for walls (full frame)
    t_wall = np.full((H, W), np.inf, F32)
    n_wall = np.zeros((H, W, 3), F32)
    wall_id = np.full((H, W), -1, np.int16)

    def box_edge_points(a, b):
        xs = np.linspace(a[0], b[0], 9)
        ys = np.linspace(a[1], b[1], 9)
        zs = np.array([a[2], b[2]])
        g = np.stack(np.meshgrid(xs, ys, zs), -1).reshape(-1, 3)
        return g

    Cf = cam.C.astype(F32)
    for bi, (a, b) in enumerate(boxes_all):
        uv, z = cam.project(box_edge_points(a, b))
        u0, v0 = int(max(0, uv[:, 0].min() - 12)), int(max(0, uv[:, 1].min() - 12))
        u1, v1 = int(min(W, uv[:, 0].max() + 12)), int(min(H, uv[:, 1].max() + 12))
        if u1 <= u0 or v1 <= v0:
            continue
        Dr = D[v0:v1, u0:u1].reshape(-1, 3)
        tmin, tmax, ax = slab(Cf, Dr, np.array(a, F32), np.array(b, F32))
        hit = (tmax >= tmin) & (tmin > 0)
        tcur = t_wall[v0:v1, u0:u1].reshape(-1)
        upd = hit & (tmin < tcur)
        tcur[upd] = tmin[upd]
        t_wall[v0:v1, u0:u1] = tcur.reshape(v1 - v0, u1 - u0)
        nn = np.zeros_like(Dr)
        idx = np.nonzero(upd)[0]
        nn[idx, ax[idx]] = -np.sign(Dr[idx, ax[idx]])
        nsub = n_wall[v0:v1, u0:u1].reshape(-1, 3)
        nsub[upd] = nn[upd]
        n_wall[v0:v1, u0:u1] = nsub.reshape(v1 - v0, u1 - u0, 3)
        wid = wall_id[v0:v1, u0:u1].reshape(-1)
        wid[upd] = bi
        wall_id[v0:v1, u0:u1] = wid.reshape(v1 - v0, u1 - u0)
    is_wall = np.isfinite(t_wall)

    # ---- shadows on the floor (per light), contact occlusion
    shadow = [np.zeros((H, W), F32) for _ in lights]
    ao = np.zeros((H, W), F32)

    def fill_soft(mask, poly, sigma, strength, mode="max"):
        poly = np.asarray(poly, F32)
        if not np.isfinite(poly).all():
            return
        pad = int(3 * sigma + 3)
        x0, y0 = int(max(0, poly[:, 0].min() - pad)), int(max(0, poly[:, 1].min() - pad))
        x1, y1 = int(min(W, poly[:, 0].max() + pad)), int(min(H, poly[:, 1].max() + pad))
        if x1 <= x0 or y1 <= y0:
            return
        sub = np.zeros((y1 - y0, x1 - x0), F32)
        hull = cv2.convexHull(((poly - [x0, y0]) * 4).astype(np.int32))
        cv2.fillConvexPoly(sub, hull, 1.0, lineType=cv2.LINE_AA, shift=2)
        if sigma > 0.3:
            sub = big_blur(sub, sigma)
        region = mask[y0:y1, x0:x1]
        np.maximum(region, sub * strength, out=region)

    for d in dice:
        ppmm = cam.px_per_mm_at(d.c * [1, 1, 0])
        corners = d.corners()
        trans = 0.45 if d.kind == "translucent" else 0.92
        for li, L in enumerate(lights):
            k = L.pos[2] / np.maximum(L.pos[2] - corners[:, 2], 1e-3)
            proj = L.pos + (corners - L.pos) * k[:, None]
            proj[:, 2] = 0
            uv, _ = cam.project(np.concatenate([proj, corners * [1, 1, 0]]))
            sig = max(0.4, L.radius * d.s / L.pos[2] * ppmm * 0.5)
            fill_soft(shadow[li], uv, sig, trans)
        foot = d.corners()
        foot = foot[foot[:, 2] < d.s * 0.3] * [1, 1, 0]
        if len(foot) >= 3:
            uv, _ = cam.project(foot)
            fill_soft(ao, uv, max(0.6, 0.12 * d.s * ppmm), 0.65)
    for (a, b) in walls:
        for li, L in enumerate(lights):
            tops = box_edge_points(a, b)
            k = L.pos[2] / np.maximum(L.pos[2] - tops[:, 2], 1e-3)
            proj = L.pos + (tops - L.pos) * k[:, None]
            proj[:, 2] = 0
            ppmm = cam.px_per_mm_at(np.array([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, 0]))
            uv, _ = cam.project(np.concatenate([proj, tops * [1, 1, 0]]))
            fill_soft(shadow[li], uv, max(0.5, L.radius * hw / L.pos[2] * ppmm * 0.5), 0.85)

    # ---- shade the background
    # direct light and gloss on the plane vary smoothly: computed on a 1/4 grid, shadows applied at full res
    st = 4
    Xs, Ys = X[::st, ::st], Y[::st, ::st]
    hs, ws = Xs.shape
    Ps = np.stack([Xs, Ys, np.zeros_like(Xs)], -1).reshape(-1, 3)
    Ns = np.zeros_like(Ps)
    Ns[:, 2] = 1
    E = np.zeros((H, W, 3), F32)
    for li, L in enumerate(lights):
        e = shade_direct(Ps, Ns, [L]).reshape(hs, ws, 3)
        e = cv2.resize(e, (W, H), interpolation=cv2.INTER_LINEAR)
        E += e * (1 - shadow[li])[..., None]
    E = E.reshape(-1, 3) * (1 - 0.35 * ao.reshape(-1))[:, None]
    amb = amb_col[None].astype(F32) * (1 - 0.7 * ao.reshape(-1))[:, None]
    if tray is not None and scene == "tray":
        dwall = np.minimum.reduce([np.abs(X - tray[0]), np.abs(X - tray[1]), np.abs(Y - tray[2]), np.abs(Y - tray[3])])
        amb = amb * (1 - 0.5 * np.exp(-dwall / (0.4 * hw))).reshape(-1)[:, None]
    col = albedo.reshape(-1, 3) * (E + amb)
    if scene == "table" or (tray is not None and not inside.all() and outside == "wood"):
        gloss = np.ones(H * W, F32) if scene == "table" else (~inside).reshape(-1).astype(F32)
        Vs = -D[::st, ::st].reshape(-1, 3)
        sp = spec_term(Ps, Ns, Vs, lights, rng.uniform(0.25, 0.5), rng.uniform(0.015, 0.03)).reshape(hs, ws, 3)
        sp = cv2.resize(sp, (W, H), interpolation=cv2.INTER_LINEAR).reshape(-1, 3)
        col += gloss[:, None] * sp * (1 - 0.8 * np.max(shadow, 0).reshape(-1))[:, None]
    bg = col.reshape(H, W, 3)
    # walls
    if is_wall.any():
        wall_kind = rng.choice(["wood", "black", "grey", "white", "felt"], p=[0.35, 0.25, 0.15, 0.1, 0.15])
        meta["wall"] = str(wall_kind)
        idx = np.nonzero(is_wall.reshape(-1))[0]
        Dw = D.reshape(-1, 3)[idx]
        Pw = Cf + t_wall.reshape(-1)[idx, None] * Dw
        Nw = n_wall.reshape(-1, 3)[idx]
        if wall_kind == "wood":
            q = Pw * np.array([0.02, 0.02, 0.3], F32)
            q = np.where(np.abs(Nw[:, :1]) > 0.5, Pw[:, [1, 0, 2]] * [0.01, 0.3, 0.3], Pw * [0.01, 0.3, 0.3])
            g = 0.5 + 0.5 * np.sin(noise3.fbm(q, 3) * 12)
            wc = srgb_to_lin(wood[0]) * (1 - g[:, None] * 0.5) + srgb_to_lin(wood[1]) * g[:, None] * 0.5
        else:
            base = {"black": 0.025, "grey": 0.3, "white": 0.7, "felt": None}[wall_kind]
            basec = np.full(3, base) if base is not None else np.asarray(FELTS[felt_name]) * 0.9
            wc = basec[None] * (1 + 0.08 * noise3.fbm(Pw * 0.2, 3))[:, None]
        Ew = shade_direct(Pw.astype(F32), Nw, lights)
        ambw = amb_col[None] * (0.55 + 0.45 * Nw[:, 2:3]) * np.clip(0.5 + Pw[:, 2:3] / (2 * hw + 1e-6), 0, 1)
        cw = wc * (Ew + ambw)
        if wall_kind in ("black", "white", "grey"):
            cw += spec_term(Pw.astype(F32), Nw, -Dw, lights, 0.3, 0.04)
        bgf = bg.reshape(-1, 3)
        bgf[idx] = cw
        bg = bgf.reshape(H, W, 3)
    bg_clean = bg.copy()
    frame = bg.copy()

    # ---- dice: projected bboxes, groups, march
    dboxes = []
    for d in dice:
        uv, _ = cam.project(d.edge_points(4))
        dboxes.append([int(max(0, math.floor(uv[:, 0].min()) - 3)), int(max(0, math.floor(uv[:, 1].min()) - 3)),
                       int(min(W, math.ceil(uv[:, 0].max()) + 4)), int(min(H, math.ceil(uv[:, 1].max()) + 4))])
    parent = list(range(len(dice)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(dice)):
        for j in range(i + 1, len(dice)):
            a, b = dboxes[i], dboxes[j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(dice)):
        groups.setdefault(find(i), []).append(i)

    cover = {}  # die id -> (x0, y0, coverage array)
    stats = {}
    for g in groups.values():
        x0 = min(dboxes[i][0] for i in g)
        y0 = min(dboxes[i][1] for i in g)
        x1 = max(dboxes[i][2] for i in g)
        y1 = max(dboxes[i][3] for i in g)
        side = max(dboxes[i][2] - dboxes[i][0] for i in g)
        ss = 3 if side < 34 else 2
        xs = x0 + (np.arange((x1 - x0) * ss, dtype=F32) + 0.5) / ss - 0.5
        ys = y0 + (np.arange((y1 - y0) * ss, dtype=F32) + 0.5) / ss - 0.5
        su, sv = np.meshgrid(xs, ys)
        Dr = cam.rays(su, sv).reshape(-1, 3)
        M = len(Dr)
        tbest = np.full(M, np.inf, F32)
        who = np.full(M, -1, np.int32)
        own = {}
        # walls (occluders)
        tw_ = np.full(M, np.inf, F32)
        for (a, b) in boxes_all:
            tmin, tmax, _ = slab(Cf, Dr, np.array(a, F32), np.array(b, F32))
            hit = (tmax >= tmin) & (tmin > 0)
            tw_ = np.where(hit & (tmin < tw_), tmin, tw_)
        hits = {}
        for i in g:
            d = dice[i]
            Rl = d.R.astype(F32)
            ol = ((cam.C - d.c) @ d.R).astype(F32)
            dl = Dr @ Rl
            tmin, tmax, _ = slab(ol, dl, np.full(3, -d.h, F32), np.full(3, d.h, F32))
            act = np.nonzero(tmax >= np.maximum(tmin, 0))[0]
            t = np.maximum(tmin[act], 0).astype(F32)
            thit = np.full(M, np.inf, F32)
            eps = 0.0015 * d.s
            ids = act
            tt = t
            tend = tmax[act]
            for _ in range(64):
                if len(ids) == 0:
                    break
                p = ol + tt[:, None] * dl[ids]
                dist = sdf_round_box(p, d.h, d.rr)
                done = dist < eps
                thit[ids[done]] = tt[done]
                tt = tt + dist
                keep = (~done) & (tt <= tend + eps)
                tt, ids, tend = tt[keep], ids[keep], tend[keep]
            own[i] = np.isfinite(thit)
            hits[i] = thit
            better = thit < tbest
            tbest = np.where(better, thit, tbest)
            who = np.where(better, i, who)
        vis = np.isfinite(tbest) & (tbest < tw_)
        who = np.where(vis, who, -1)
        # shade visible samples
        colbuf = cv2.resize(bg_clean[y0:y1, x0:x1], ((x1 - x0) * ss, (y1 - y0) * ss), interpolation=cv2.INTER_NEAREST).reshape(-1, 3).copy()
        for i in g:
            d = dice[i]
            sel = np.nonzero(who == i)[0]
            topf = d.top_face_index()
            # unoccluded: own hits; top-face samples
            ol = ((cam.C - d.c) @ d.R)
            thit_own = hits[i]
            idx_own = np.nonzero(np.isfinite(thit_own))[0]
            pl_own = ol + thit_own[idx_own, None] * (Dr[idx_own] @ d.R.astype(F32))
            fo = np.argmax(np.abs(pl_own), 1) * 2 + (np.take_along_axis(pl_own, np.argmax(np.abs(pl_own), 1)[:, None], 1)[:, 0] < 0)
            top_own = int((fo == topf).sum())
            vis_set = set(sel.tolist())
            top_vis = int(sum(1 for k, f in zip(idx_own.tolist(), fo.tolist()) if f == topf and k in vis_set))
            # per top-face pip: own vs visible samples (a pip hidden makes the honest reading null)
            pip_min = 1.0
            for k in np.nonzero(d.pf == topf)[0]:
                rel = pl_own - d.pc[k]
                inpl = rel - (rel @ d.pn[k])[:, None] * d.pn[k][None]
                mk = (fo == topf) & ((inpl * inpl).sum(1) < d.pr[k] ** 2)
                no = int(mk.sum())
                if no:
                    nv = int(sum(1 for kk in idx_own[mk].tolist() if kk in vis_set))
                    pip_min = min(pip_min, nv / no)
            stats[i] = dict(own=len(idx_own), vis=len(sel), top_own=top_own, top_vis=top_vis, ss=ss, pip_min=pip_min)
            if len(sel) == 0:
                cover[i] = (x0, y0, np.zeros((y1 - y0, x1 - x0), F32))
                continue
            dl = (Dr[sel] @ d.R).astype(F32)
            pl = (ol + thit_own[sel, None] * dl).astype(F32)
            # normal of the rounded box
            q = np.abs(pl) - (d.h - d.rr)
            qp = np.maximum(q, 0)
            nl_ = np.sign(pl) * qp
            nrm = np.linalg.norm(nl_, axis=1, keepdims=True)
            fallback = nrm[:, 0] < 1e-6
            ax = np.argmax(q, 1)
            nl_[fallback] = 0
            nl_[fallback, ax[fallback]] = np.sign(pl[fallback, ax[fallback]])
            nl_ = nl_ / np.maximum(np.linalg.norm(nl_, axis=1, keepdims=True), 1e-9)
            # dimples
            in_pip = _pip_at(pl, d)
            pp = np.nonzero(in_pip >= 0)[0]
            pipdepth = np.zeros(len(sel), F32)
            if len(pp):
                kk = in_pip[pp]
                sc = d.psc[kk]
                Rs = d.pR[kk]
                oc = ol[None] - sc
                b = (oc * dl[pp]).sum(1)
                c2 = (oc * oc).sum(1) - Rs ** 2
                disc = np.maximum(b * b - c2, 0)
                tf = -b + np.sqrt(disc)
                p2 = ol[None] + tf[:, None] * dl[pp]
                pl[pp] = p2
                nl_[pp] = (sc - p2) / Rs[:, None]
                fn = d.pn[kk]
                pipdepth[pp] = np.clip((d.h - (p2 * fn).sum(1)) / d.pdep[kk], 0, 1)
            Pw = (d.c + pl @ d.R.T).astype(F32)
            Nw = (nl_ @ d.R.T).astype(F32)
            V = -Dr[sel]
            # albedo
            alb = np.repeat(d.body[None].astype(F32), len(sel), 0)
            if d.kind == "marble":
                q3 = pl / d.s * 2.2 + d.id * 7.1
                # soft blotchy swirl of two colours (real marbled dice), not thin contrasting lines
                t3 = 0.5 + 0.5 * np.sin(3.0 * (q3 @ np.array([0.6, 0.3, 0.75])) + 4.5 * noise3.fbm(q3 * 1.1, 4))
                vmix = 0.7 * np.clip((t3 - 0.35) / 0.4, 0, 1) ** 1.5
                alb = alb * (1 - vmix[:, None]) + d.vein[None] * vmix[:, None]
            ao_d = (0.55 + 0.45 * np.clip(Pw[:, 2] / (0.6 * d.s), 0, 1))[:, None]
            if len(pp):
                if d.painted:
                    alb[pp] = d.pcol[in_pip[pp]]
                else:
                    alb[pp] = alb[pp] * 0.55
                ao_d[pp] *= (1 - 0.45 * pipdepth[pp])[:, None]
            Ed = shade_direct(Pw, Nw, lights)
            ambd = amb_col[None].astype(F32) * (0.5 + 0.5 * Nw[:, 2:3])
            ndv = np.clip((Nw * V).sum(1), 0, 1)
            fres = 0.04 + 0.96 * (1 - ndv) ** 5
            refl = V - 2 * (V * Nw).sum(1, keepdims=True) * Nw
            refl = -refl
            env = amb_col[None] * (1.5 * np.clip(refl[:, 2:3], 0, 1) + 0.2)
            if d.kind == "translucent":
                # refract into the body, exit through the box, see the mat behind
                eta = 1 / 1.5
                cosi = np.clip(-(nl_ * dl).sum(1), 0, 1)
                k_ = 1 - eta ** 2 * (1 - cosi ** 2)
                dt = eta * dl + (eta * cosi - np.sqrt(np.maximum(k_, 0)))[:, None] * nl_
                dt /= np.linalg.norm(dt, axis=1, keepdims=True)
                tmn, tmx, _ = slab(pl, dt, np.full(3, -d.h, F32), np.full(3, d.h, F32))
                Lp = np.clip(tmx, 0, 2 * d.s)
                ex = pl + Lp[:, None] * dt
                Ew_ = d.c + ex @ d.R.T
                Dw = Dr[sel]
                s_ = np.maximum(-Ew_[:, 2] / np.minimum(Dw[:, 2], -1e-3), 0)
                T = Ew_ + s_[:, None] * Dw
                uvT, _ = cam.project(T)
                mx = uvT[:, 0].astype(F32).reshape(-1, 1)
                my = uvT[:, 1].astype(F32).reshape(-1, 1)
                behind = cv2.remap(bg_clean, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT).reshape(-1, 3)
                tint = np.clip(d.body, 0.02, 1) ** (Lp / d.s * 1.3)[:, None]
                trans_c = behind * tint * 0.85
                # back-face pips seen through the body
                back = (_pip_at(ex, d) >= 0).astype(F32)
                trans_c = trans_c * (1 - 0.4 * back[:, None]) + back[:, None] * 0.4 * d.pipc[None] * tint * (Ed + ambd) * 0.35
                scatter = d.body[None] * (Ed + ambd) * 0.18
                c = trans_c * (1 - fres[:, None]) + scatter
                if len(pp):
                    c[pp] = (alb[pp] * (Ed[pp] + ambd[pp]) * ao_d[pp])
            else:
                c = alb * (Ed + ambd) * ao_d
            c = c + spec_term(Pw, Nw, V, lights, d.rough, d.f0) + fres[:, None] * env
            colbuf[sel] = c
            cov = np.zeros(M, F32)
            cov[sel] = 1
            cov = cov.reshape((y1 - y0), ss, (x1 - x0), ss).mean((1, 3))
            cover[i] = (x0, y0, cov)
        anyc = (who >= 0).astype(F32).reshape((y1 - y0), ss, (x1 - x0), ss).mean((1, 3))
        cb = colbuf.reshape((y1 - y0), ss, (x1 - x0), ss, 3).mean((1, 3))
        # where no die: keep the (already rendered) background
        reg = frame[y0:y1, x0:x1]
        frame[y0:y1, x0:x1] = np.where(anyc[..., None] > 0, cb, reg)

    # ---- labels
    dice_meta = []
    for d in dice:
        x0, y0, cov = cover[d.id]
        ys_, xs_ = np.nonzero(cov >= 0.3)
        st = stats[d.id]
        vis_frac = st["vis"] / max(1, st["own"])
        top_frac = st["top_vis"] / max(1, st["top_own"])
        if len(xs_) == 0:
            continue
        box = [int(x0 + xs_.min()), int(y0 + ys_.min()), int(x0 + xs_.max() + 1), int(y0 + ys_.max() + 1)]
        kind = d.kind_place
        pip_min = st["pip_min"]
        if kind == "flat" and (top_frac < 0.75 or pip_min < 0.8):
            kind = "top_occluded"
        if kind == "under_rim" and top_frac >= 0.97 and pip_min >= 0.95:
            kind = "near_rim"  # rim did not reach the top face after all: readable
        value = d.top_value if kind in ("flat", "near_rim") else 0
        cxp, cyp = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        rn = math.hypot(cxp - cam.cx, cyp - cam.cy) / math.hypot(W / 2, H / 2)
        dice_meta.append(dict(box=box, value=int(value), top_value=int(d.top_value), kind=kind,
                              material=d.material, mat_kind=d.kind, size_mm=round(d.s, 1),
                              side_px=int(max(box[2] - box[0], box[3] - box[1])), r_norm=round(rn, 3),
                              touching=bool(d.touching), tilt_deg=round(d.tilt, 1), vis_frac=round(vis_frac, 3),
                              top_vis_frac=round(top_frac, 3), top_pip_min_vis=round(pip_min, 3), pip_r=round(d.pip_r, 3), spacing=round(d.spacing, 3),
                              round_frac=round(d.rr / d.s, 3)))

    # ---- hand blob from an edge, off the dice
    meta["hand"] = False
    if rng.random() < 0.2:
        for _try in range(6):
            edge = int(rng.integers(4))
            hm = np.zeros((H, W), np.uint8)
            scale = min(W, H) * rng.uniform(0.18, 0.32)
            along = rng.uniform(0.2, 0.8)
            if edge == 0:
                base, inward = (along * W, -0.15 * scale), (0, 1)
            elif edge == 1:
                base, inward = (along * W, H + 0.15 * scale), (0, -1)
            elif edge == 2:
                base, inward = (-0.15 * scale, along * H), (1, 0)
            else:
                base, inward = (W + 0.15 * scale, along * H), (-1, 0)
            ang = math.atan2(inward[1], inward[0]) + rng.normal(0, 0.35)
            dx, dy = math.cos(ang), math.sin(ang)
            cxh, cyh = base[0] + dx * scale * 0.2, base[1] + dy * scale * 0.2
            cv2.ellipse(hm, (int(cxh), int(cyh)), (int(scale * 0.6), int(scale * 0.45)), math.degrees(ang), 0, 360, 255, -1)
            nf = int(rng.integers(1, 5))
            for f in range(nf):
                off = (f - (nf - 1) / 2) * scale * 0.22
                fx0 = cxh - dy * off + dx * scale * 0.4
                fy0 = cyh + dx * off + dy * scale * 0.4
                ln = scale * rng.uniform(0.4, 0.75)
                fa = ang + rng.normal(0, 0.15)
                cv2.line(hm, (int(fx0), int(fy0)), (int(fx0 + math.cos(fa) * ln), int(fy0 + math.sin(fa) * ln)), 255,
                         int(scale * 0.17))
            blur = rng.uniform(6, 18) * W / 1280
            reach = cv2.dilate(hm, np.ones((3, 3), np.uint8), iterations=int(2 * blur) + 4) > 0
            if any(reach[b[1]:b[3], b[0]:b[2]].any() for b in (dm["box"] for dm in dice_meta)):
                continue
            m = big_blur(hm.astype(F32) / 255, blur)
            dt = cv2.distanceTransform(hm, cv2.DIST_L2, 5)
            shade = big_blur(np.sqrt(dt / max(1.0, dt.max())), blur)
            skin = srgb_to_lin(np.array([0.85, 0.62, 0.5]) * rng.uniform(0.55, 1.05))
            irr = np.median(E[::97], 0) + amb_col
            hand_c = (skin * irr)[None, None].astype(F32) * (0.45 + 0.8 * shade[..., None])
            shift = (int(rng.normal(0, 0.1) * scale), int(rng.normal(0.15, 0.1) * scale))
            shm = np.roll(np.roll(big_blur(hm.astype(F32) / 255, blur * 2.5), shift[1], 0), shift[0], 1)
            frame *= (1 - 0.45 * shm)[..., None]
            frame = frame * (1 - m[..., None]) + hand_c * m[..., None]
            meta["hand"] = True
            break

    # ---- camera: defocus, vignetting, exposure, tone, noise, jpeg
    blur = rng.uniform(0.3, 1.1) * (W / 1280) ** 0.5
    meta["defocus_px"] = round(blur, 2)
    frame = cv2.GaussianBlur(frame.astype(F32), (0, 0), blur)
    rr2 = ((uu - cam.cx) ** 2 + (vv - cam.cy) ** 2) / (cam.fx ** 2)
    vig = (1 / (1 + rr2)) ** rng.uniform(0.8, 2.0)
    frame *= vig[..., None]
    wb_fix = np.mean([L.rgb for L in lights], 0)
    corr = 1 / (wb_fix ** rng.uniform(0.5, 0.9))
    frame *= (corr / corr[1])[None, None].astype(F32)
    lum = frame @ np.array([0.2126, 0.7152, 0.0722], F32)
    key = rng.uniform(0.13, 0.26)
    expo = key / max(1e-4, float(np.exp(np.mean(np.log(lum[::4, ::4] + 1e-4)))))
    # highlight protection (matrix metering): the dice's bright parts are kept from clipping hard
    dl = [lum[b[1]:b[3], b[0]:b[2]].reshape(-1) for b in (dm["box"] for dm in dice_meta)]
    if dl:
        p90 = float(np.percentile(np.concatenate(dl), 90))
        expo = min(expo, rng.uniform(0.8, 1.8) / max(p90, 1e-4))
    frame *= expo
    meta["exposure"] = round(expo, 3)
    wp = rng.uniform(1.2, 2.5)
    frame = frame * (1 + frame / wp ** 2) / (1 + frame)
    # sensor noise in linear
    shot = rng.uniform(0.0004, 0.004)
    read = rng.uniform(0.001, 0.006)
    sig = np.sqrt(np.clip(frame, 0, None) * shot + read ** 2)
    frame += sig * rng.standard_normal(frame.shape).astype(F32)
    cn = cv2.resize(rng.standard_normal((H // 4 + 1, W // 4 + 1, 3)).astype(F32), (W, H)) * read * 1.5
    frame += cn
    meta["noise"] = round(math.sqrt(shot), 4)
    out = lin_to_srgb(frame)
    sat = rng.uniform(0.9, 1.2)
    g = out.mean(-1, keepdims=True)
    out = np.clip(g + (out - g) * sat, 0, 1)
    img = (out[..., ::-1] * 255 + rng.uniform(0, 1, out.shape)).clip(0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = cv2.addWeighted(img, 1.5, bl, -0.5, 0)
        meta["sharpened"] = True
    q = int(rng.integers(60, 96))
    meta["jpeg_q"] = q
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    meta["dice"] = dice_meta
    return enc.tobytes(), meta


def write_folder(out: Path, frames: int, seed: int, start: int = 0, size: tuple[int, int] | None = None,
                 verbose: bool = False) -> dict[str, int]:
    """Frames ``start`` .. ``start + frames - 1`` of ``seed`` into ``out``: ``images/rt{seed}_{k:04d}.jpg``,
    ``labels.csv`` (value 0 = the honest reading is null) and ``metadata.json`` (per frame, per die).  Frame k
    is drawn from ``numpy.random.default_rng([seed, k])`` alone, so any frame can be rendered on its own."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    rows: list[list[object]] = []
    metas: list[dict[str, Any]] = []
    for k in range(start, start + frames):
        name = f"rt{seed}_{k:04d}.jpg"
        data, meta = render_frame(np.random.default_rng([seed, k]), name, size)
        (out / "images" / name).write_bytes(data)
        rows.extend([name, *dm["box"], dm["value"]] for dm in meta["dice"])
        metas.append(meta)
        if verbose:
            print(f"{name} {meta['width']}x{meta['height']} dice={len(meta['dice'])}", file=sys.stderr, flush=True)
    with (out / "labels.csv").open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["image", "x_min", "y_min", "x_max", "y_max", "value"])
        wr.writerows(rows)
    (out / "metadata.json").write_text(json.dumps({"seed": seed, "frames": metas}, indent=1))
    return {"frames": len(metas), "dice": len(rows), "null_dice": sum(1 for r in rows if r[-1] == 0)}


def _size(text: str) -> tuple[int, int]:
    w, h = text.lower().split("x")
    return int(w), int(h)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="write a labelled folder of frames here")
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", type=int, default=0, help="index of the first frame (frame k depends on (seed, k) only)")
    ap.add_argument("--size", type=_size, default=None, metavar="WxH",
                    help="every frame this size (default: drawn, 1280x720, 1920x1080 or 640x480)")
    ap.add_argument("--quiet", action="store_true", help="no line per frame on stderr")
    a = ap.parse_args(argv)
    print(write_folder(a.out, a.frames, a.seed, a.start, a.size, verbose=not a.quiet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
