"""Photo-like dice trays seen from above, in far more variety than the two photo collections: what issue 14
asks the d6 networks to read (and to refuse).

Not :mod:`tools.dice_training.render` (flat drawn faces, for the tests of custom faces) and not
:mod:`vision.synth` (the demo's table).  Each die is a rounded cube drawn 4x oversampled and shrunk, so pips
and edges are anti-aliased the way a lens blurs them:

* bodies: opaque in any colour; dark bodies with coloured pips (blue with red, black with red, green with
  yellow...); translucent and smoky (the felt shows through, a specular glint); marbled and pearl swirls;
* pips: any size (0.055-0.13 of the side) and spacing (0.21-0.31), recessed (a dark rim) or flat, a big or
  red single pip on some 1s;
* the side faces a camera off the die's axis sees (up to a quarter of the side), with their pips (faces a
  real die has beside its top), shading across the top face, a soft shadow;
* sides 20-90 px; dice apart or touching; felt (green, blue, red, black, grey, tan, purple) with lint specks
  and fibres, or wood; tray walls on some sides; uneven, warm or cool light; sensor noise, defocus, JPEG
  45-95;
* dice whose honest reading is **null**: leaning on a tray wall (top face foreshortened, a big side face),
  half hidden under the tray rim, or moving (motion blur).  They are labelled value 0 in ``labels.csv``
  (``pitboard bench dice`` scores a null reading of them as right and any value as wrong).

Write a labelled folder in the format of ``../shared/data/dice-real``::

    python -m tools.dice_training.tray --out /tmp/tray-test --frames 240 --seed 91

Training draws its frames with other seeds (``train_net.py --tray N``).  ``--by-kind`` reads the trays
with the shipped reader and prints the outcomes by look, size and why a die should read null.  All randomness comes from the
``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tools.dice_training.render import PIP_LAYOUT as _PIPS

#: Oversampling of a die's own canvas (drawn at K x, shrunk with area averaging).
K = 4

BGR = tuple[float, float, float]


@dataclass(frozen=True)
class TrayDie:
    """One die in a rendered tray: ``value`` None when the honest reading is null (leaning, half hidden,
    moving); ``box`` is the labelled box (x0, y0, x1, y1) around its visible top face."""

    value: int | None
    center: tuple[float, float]
    side: float
    box: tuple[int, int, int, int]
    why_null: str = ""
    look: str = ""  # the body: opaque, dark_coloured, translucent, smoky, marbled, pearl


# ------------------------------------------------------------------------------------------ colours

_FELT: list[BGR] = [(40, 110, 30), (30, 90, 20), (120, 60, 20), (90, 40, 10), (30, 30, 140), (25, 25, 25),
                    (60, 60, 60), (110, 110, 110), (120, 160, 185), (90, 40, 90), (50, 70, 40), (140, 90, 40)]
_WOOD: list[BGR] = [(60, 110, 165), (40, 80, 125), (90, 150, 200), (30, 55, 90)]


def _bright(c: BGR) -> float:
    return 0.11 * c[0] + 0.59 * c[1] + 0.3 * c[2]


def _any_colour(rng: np.random.Generator, lo: int = 0, hi: int = 256) -> BGR:
    v = rng.integers(lo, hi, 3)
    return (float(v[0]), float(v[1]), float(v[2]))


#: Each look's share of the dice drawn (opaque listed twice: its share is the two together, 0.36).
KINDS = ("opaque", "opaque", "dark_coloured", "translucent", "smoky", "marbled", "pearl")
KIND_SHARES = (0.24, 0.12, 0.2, 0.14, 0.1, 0.12, 0.08)
LOOKS = tuple(dict.fromkeys(KINDS))


def look_shares(looks: dict[str, float] | None) -> list[float]:
    """:data:`KIND_SHARES` with each look's share multiplied by ``looks[kind]`` (training draws the looks it
    misses more often: ``train_net.py --tray-looks marbled=3``), summing to 1.  Raises ValueError naming an
    unknown look or a weight that is not a positive number."""
    looks = looks or {}
    for kind, weight in looks.items():
        if kind not in LOOKS:
            raise ValueError(f"no die look {kind!r}: the looks are {', '.join(LOOKS)}")
        if not (weight > 0 and math.isfinite(weight)):
            raise ValueError(f"the look {kind!r} is weighted {weight}: give a number above 0")
    shares = [share * looks.get(kind, 1.0) for kind, share in zip(KINDS, KIND_SHARES)]
    return [share / sum(shares) for share in shares]


def _scheme(rng: np.random.Generator, shares: list[float] | None = None) -> dict:
    """A die's look: body, pip colour, kind (opaque, translucent, marbled), pip geometry (``shares``: each
    of :data:`KINDS`' share, :func:`look_shares`; None draws the renderer's own, the benches' trays)."""
    kind = str(rng.choice(list(KINDS), p=list(KIND_SHARES) if shares is None else shares))
    second: BGR | None = None
    alpha = 1.0
    if kind == "opaque":
        body = [(235, 235, 235), (20, 20, 20), (30, 30, 190), (160, 60, 20), (40, 140, 40), (40, 200, 230),
                (130, 40, 130), (30, 120, 230), (200, 200, 150)][int(rng.integers(9))] if rng.random() < 0.6 \
            else _any_colour(rng)
        if rng.random() < 0.75:
            pip: BGR = (15, 15, 15) if _bright(body) > 120 else (240, 240, 240)
        else:
            pip = _any_colour(rng)
            if abs(_bright(pip) - _bright(body)) < 60:
                pip = (15, 15, 15) if _bright(body) > 120 else (240, 240, 240)
    elif kind == "dark_coloured":
        body = [(90, 30, 10), (20, 20, 20), (30, 60, 20), (70, 20, 60), (60, 40, 30), (20, 20, 90)][int(rng.integers(6))]
        pip = [(40, 40, 210), (30, 200, 230), (240, 240, 240), (60, 200, 60), (200, 150, 40), (180, 60, 220)][
            int(rng.integers(6))]
        body = tuple(float(np.clip(v * rng.uniform(0.7, 1.4), 0, 255)) for v in body)  # type: ignore[assignment]
    elif kind in ("translucent", "smoky"):
        body = _any_colour(rng, 40, 240) if kind == "translucent" else tuple(
            float(v) for v in rng.uniform(25, 80) * np.array([1.0, rng.uniform(0.9, 1.1), rng.uniform(0.9, 1.2)]))
        alpha = float(rng.uniform(0.35, 0.7) if kind == "translucent" else rng.uniform(0.6, 0.85))
        pip = [(40, 40, 200), (240, 240, 240), (20, 20, 20), (30, 190, 230)][int(rng.integers(4))]
        if kind == "smoky" and rng.random() < 0.6:
            pip = (30, 30, float(rng.uniform(150, 220)))
    else:  # marbled / pearl: two colours in swirls
        body = _any_colour(rng)
        if kind == "marbled":
            second = _any_colour(rng)
        else:
            second = tuple(float(np.clip(v + rng.uniform(-45, 45), 0, 255)) for v in body)  # type: ignore[assignment]
        pip = [(240, 240, 240), (15, 15, 15), (40, 180, 220), (40, 40, 200)][int(rng.integers(4))]
        mean = (_bright(body) + _bright(second)) / 2  # type: ignore[arg-type]
        if abs(_bright(pip) - mean) < 70:
            pip = (15, 15, 15) if mean > 120 else (240, 240, 240)
    return {
        "kind": kind, "body": body, "second": second, "alpha": alpha, "pip": pip,
        "pip_r": float(rng.uniform(0.055, 0.13)), "spacing": float(rng.uniform(0.21, 0.31)),
        "recessed": bool(rng.random() < 0.6), "round": float(rng.uniform(0.1, 0.28)),
        "big_one": bool(rng.random() < 0.3), "red_one": bool(rng.random() < 0.2),
        "shine": float(rng.uniform(0.0, 0.5)) if kind in ("translucent", "smoky", "opaque", "pearl") else 0.0,
    }


# ----------------------------------------------------------------------------------------- the table

def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: float) -> np.ndarray:
    """Smooth noise in -1..1 with features about ``cells`` px apart."""
    gh, gw = max(2, int(h / cells) + 2), max(2, int(w / cells) + 2)
    g = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _table(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """The tray's floor: wood (15 % of the time) or felt with lint."""
    if rng.random() < 0.15:
        base = np.array(_WOOD[int(rng.integers(len(_WOOD)))], np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang) + 25 * _smooth_noise(rng, h, w, 120)
        grain = 0.5 + 0.5 * np.sin(u / rng.uniform(3, 9)) * (0.6 + 0.4 * _smooth_noise(rng, h, w, 60))
        img = base * (0.8 + 0.3 * grain[..., None])
    else:
        base = np.array(_FELT[int(rng.integers(len(_FELT)))], np.float32) * rng.uniform(0.75, 1.25)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        img *= (1 + 0.08 * _smooth_noise(rng, h, w, rng.uniform(20, 80)))[..., None]
        img += rng.normal(0, rng.uniform(2, 7), (h, w, 1)).astype(np.float32)  # the felt's fibres
        # lint: light specks (some the size of a pip) and short fibres
        for _ in range(int(rng.integers(0, 30))):
            col = np.array(_any_colour(rng, 150, 256), np.float32) if rng.random() < 0.5 else np.full(3, rng.uniform(170, 250))
            x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            if rng.random() < 0.5:
                r = float(rng.uniform(0.6, 3.5))
                cv2.circle(img, (int(x * 16), int(y * 16)), int(r * 16), col.tolist(), -1, cv2.LINE_8, 4)
            else:
                n = int(rng.integers(3, 7))
                pts = np.cumsum(rng.normal(0, rng.uniform(1.5, 4), (n, 2)), 0) + [x, y]
                cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], False, col.tolist(),
                              int(rng.integers(1, 3)), cv2.LINE_8, 4)
    return img


def _walls(rng: np.random.Generator, h: int, w: int) -> list[tuple[str, int]]:
    """Tray walls: (side, width px) on some sides of the frame."""
    out = []
    for side in ("top", "bottom", "left", "right"):
        if rng.random() < 0.45:
            out.append((side, int(rng.uniform(0.04, 0.12) * min(h, w))))
    return out


def _wall(side: str, t: int, h: int, w: int) -> tuple[slice, slice]:
    """The rows and columns a wall of width ``t`` covers on ``side`` of an h x w frame."""
    return {"top": (slice(0, t), slice(0, w)), "bottom": (slice(h - t, h), slice(0, w)),
            "left": (slice(0, h), slice(0, t)), "right": (slice(0, h), slice(w - t, w))}[side]


def _floor_mask(h: int, w: int, walls: list[tuple[str, int]]) -> np.ndarray:
    m = np.ones((h, w), bool)
    for side, t in walls:
        m[_wall(side, t, h, w)] = False
    return m


def _draw_walls(rng: np.random.Generator, img: np.ndarray, walls: list[tuple[str, int]]) -> None:
    h, w = img.shape[:2]
    col = np.array(_any_colour(rng, 20, 200), np.float32)
    for side, t in walls:
        ramp = np.linspace(1.25, 0.6, t, dtype=np.float32)  # lit rim to the shaded foot of the wall
        if side in ("bottom", "right"):
            ramp = ramp[::-1]
        across = ramp[:, None, None] if side in ("top", "bottom") else ramp[None, :, None]
        img[_wall(side, t, h, w)] = col * across


# ---------------------------------------------------------------------------------------------- a die

def _rounded_square(c: float, half: float, rad: float) -> np.ndarray:
    """Polygon (N x 2) of a rounded square centred at (c, c)."""
    pts = []
    for cx, cy, a0 in ((half - rad, half - rad, 0), (-half + rad, half - rad, 90), (-half + rad, -half + rad, 180),
                       (half - rad, -half + rad, 270)):
        for a in np.linspace(a0, a0 + 90, 6):
            pts.append((c + cx + rad * math.cos(math.radians(a)), c + cy + rad * math.sin(math.radians(a))))
    return np.array(pts, np.float32)


def _die_tile(rng: np.random.Generator, value: int, side: float, sch: dict, lift: tuple[float, float],
              squash: float, behind: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A die drawn on its own canvas (K x oversampled, then shrunk): (colour, coverage 0..1, top-face mask).
    ``lift``: where the top face sits relative to the base, in sides (the side faces show in between);
    ``squash``: the top face's foreshortening (1 flat; < 1 a leaning die); ``behind`` the table under it."""
    n = behind.shape[0]
    S = side * K
    N = n * K
    c = N / 2
    top_poly = _rounded_square(c, S / 2, sch["round"] * S)
    top_poly[:, 1] = c + (top_poly[:, 1] - c) * squash
    top_poly += np.array(lift, np.float32) * S
    base_poly = _rounded_square(c, S / 2, sch["round"] * S)
    hull = cv2.convexHull(np.concatenate([top_poly, base_poly]).astype(np.float32)).reshape(-1, 2)
    body = np.array(sch["body"], np.float32)
    # the body's colour field: plain or swirls
    if sch["second"] is not None:
        yy, xx = np.mgrid[0:N, 0:N].astype(np.float32) / S
        warp = 1.8 * _smooth_noise(rng, N, N, S * 0.5)
        t = 0.5 + 0.5 * np.sin(rng.uniform(3, 7) * (xx * rng.uniform(-1, 1) + yy) + 3 * warp)
        field = body * (1 - t[..., None]) + np.array(sch["second"], np.float32) * t[..., None]
    else:
        field = np.broadcast_to(body, (N, N, 3)).astype(np.float32)
    big_behind = cv2.resize(behind, (N, N), interpolation=cv2.INTER_LINEAR)
    col = np.zeros((N, N, 3), np.float32)
    hull_m = np.zeros((N, N), np.float32)
    cv2.fillPoly(hull_m, [np.round(hull).astype(np.int32)], 1.0)
    top_m = np.zeros((N, N), np.float32)
    cv2.fillPoly(top_m, [np.round(top_poly).astype(np.int32)], 1.0)
    # side faces darker, top face lit across by a gradient
    shade_dir = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:N, 0:N].astype(np.float32)
    grad = ((xx - c) * math.cos(shade_dir) + (yy - c) * math.sin(shade_dir)) / S
    light = (1.0 + rng.uniform(0.05, 0.2) * grad)[..., None]
    sides = field * rng.uniform(0.5, 0.75)
    col[:] = sides
    col = col * (1 - top_m[..., None]) + field * light * top_m[..., None]
    # the rounded edge of the top face: darker rim
    rim = cv2.GaussianBlur(top_m, (0, 0), max(1.0, 0.05 * S))
    col *= (0.75 + 0.25 * np.clip(rim * 2 - 0.4, 0, 1))[..., None] * top_m[..., None] + (1 - top_m[..., None])
    # pips on the top face
    pip_r = sch["pip_r"] * S
    if value == 1 and sch["big_one"]:
        pip_r = rng.uniform(0.12, 0.19) * S
    pip_col = (40.0, 40.0, 200.0) if value == 1 and sch["red_one"] else sch["pip"]
    sp = sch["spacing"] * S
    ang = rng.uniform(-4, 4)  # a slightly crooked print
    for gx, gy in _PIPS[value]:
        a = math.radians(ang)
        px = c + lift[0] * S + (gx * math.cos(a) - gy * math.sin(a)) * sp
        py = c + lift[1] * S + (gx * math.sin(a) + gy * math.cos(a)) * sp * squash
        axes = (int(pip_r), max(1, int(pip_r * squash)))
        if sch["recessed"]:
            shadow = tuple(float(v) * 0.45 for v in pip_col)
            cv2.ellipse(col, (int(px), int(py)), (axes[0] + max(1, int(0.12 * pip_r)), axes[1] + 1), 0, 0, 360,
                        shadow, -1)
            cv2.ellipse(col, (int(px + 0.12 * pip_r), int(py + 0.12 * pip_r)), axes, 0, 0, 360, pip_col, -1)
        else:
            cv2.ellipse(col, (int(px), int(py)), axes, 0, 0, 360, pip_col, -1)
    _side_pips(col, hull_m * (1 - top_m), value, sch, S, c, lift, squash, ang, pip_r, sides / np.maximum(field, 1))
    # translucency: the table shows through the body (not through the pips)
    if sch["alpha"] < 1.0:
        pip_m = np.zeros((N, N), np.float32)
        diff = np.abs(col - field * light).sum(-1)
        pip_m[(diff > 40) & (top_m > 0)] = 1.0
        see = sch["alpha"] * hull_m * (1 - pip_m)
        tinted = big_behind * (0.55 + 0.45 * np.array(sch["body"], np.float32) / 255.0)
        col = col * (1 - see[..., None]) + (0.55 * tinted + 0.45 * col) * see[..., None]
    if sch["shine"] > 0:  # a specular glint
        gx, gy = rng.uniform(-0.3, 0.3, 2) * S + c
        glint = np.exp(-(((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (rng.uniform(0.05, 0.15) * S) ** 2)))
        col += (255 - col) * (sch["shine"] * glint * top_m)[..., None]
    out = cv2.resize(col, (n, n), interpolation=cv2.INTER_AREA)
    cov = cv2.resize(hull_m, (n, n), interpolation=cv2.INTER_AREA)
    top = cv2.resize(top_m, (n, n), interpolation=cv2.INTER_AREA)
    return out, cov, top


def _side_values(value: int, turn: int) -> tuple[int, int]:
    """The values on the two side faces a camera sees of a die showing ``value``: one face of each
    opposite pair that is not the top and bottom (pairs sum to 7), chosen by ``turn`` (0..3)."""
    around = [u for u in range(1, 7) if u not in (value, 7 - value)]
    first = (around[0], 7 - around[0])
    second = tuple(u for u in around if u not in first)
    return first[turn & 1], second[(turn >> 1) & 1]


#: A side face narrower than this (in sides) is drawn without pips: they would be slivers.
SIDE_PIPS_FROM = 0.1


def _side_pips(col: np.ndarray, side_m: np.ndarray, value: int, sch: dict, S: float, c: float,
               lift: tuple[float, float], squash: float, ang: float, pip_r: float, shade: np.ndarray) -> None:
    """Pips on the side faces the camera sees between the base and the top face (a real die has them;
    a leaning die shows a big one), foreshortened to the face's visible width and as dark as the side.
    Drawn in place on ``col`` where ``side_m`` (the hull less the top face) is set.  No randomness: the
    values follow from the top value and the print's angle, so frames of the same seed keep every other
    pixel."""
    lx, ly = lift[0] * S, lift[1] * S
    half = S / 2
    faces = []  # (visible width, foreshortened in y (else in x), corners from the base's edge to the top's)
    up = ly + (1 - squash) * half  # the band above the top face (base edge at c - half)
    down = -ly + (1 - squash) * half
    tx0, tx1 = c + lx - half, c + lx + half
    if up > 0:
        faces.append((up, True, [(c - half, c - half), (c + half, c - half), (tx1, c + ly - squash * half),
                           (tx0, c + ly - squash * half)]))
    elif down > 0:
        faces.append((down, True, [(tx0, c + ly + squash * half), (tx1, c + ly + squash * half), (c + half, c + half),
                             (c - half, c + half)]))
    ty0, ty1 = c + ly - squash * half, c + ly + squash * half
    if lx > 0:
        faces.append((lx, False, [(c - half, c - half), (tx0, ty0), (tx0, ty1), (c - half, c + half)]))
    elif lx < 0:
        faces.append((-lx, False, [(tx1, ty0), (c + half, c - half), (c + half, c + half), (tx1, ty1)]))
    values = _side_values(value, int(ang) & 3)
    unit = np.float32([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    layer = np.zeros(col.shape[:2], np.float32)
    for (width, flat_y, quad), v in zip(faces, values):
        if width < SIDE_PIPS_FROM * S:
            continue
        h = cv2.getPerspectiveTransform(unit, np.float32(quad))
        a = math.radians(ang)
        pts = np.float32([[(gx * math.cos(a) - gy * math.sin(a)) * sch["spacing"],
                           (gx * math.sin(a) + gy * math.cos(a)) * sch["spacing"]] for gx, gy in _PIPS[v]])
        along = min(1.0, width / S)
        for px, py in cv2.perspectiveTransform(pts[None], h)[0]:
            axes = (int(pip_r), max(1, int(pip_r * along))) if flat_y else (max(1, int(pip_r * along)), int(pip_r))
            cv2.ellipse(layer, (int(px), int(py)), axes, 0, 0, 360, 1.0, -1)
    m = (layer * side_m)[..., None]
    pip = np.array(sch["pip"], np.float32) * shade
    col[:] = col * (1 - m) + pip * m


# -------------------------------------------------------------------------------------------- a frame

def render_tray(rng: np.random.Generator, *, size: tuple[int, int] | None = None, dice: int | None = None,
                side: float | None = None, null_share: float = 0.12,
                looks: dict[str, float] | None = None) -> tuple[np.ndarray, list[TrayDie]]:
    """One tray frame (BGR uint8, ``size`` = rows, cols) and its dice (``looks``: see :func:`look_shares`)."""
    S = float(side if side is not None else math.exp(rng.uniform(math.log(20), math.log(90))))
    n = int(dice if dice is not None else rng.integers(1, 9))
    if size is None:
        area = n * (S * rng.uniform(2.2, 4.5)) ** 2 + (4 * S) ** 2
        aspect = rng.uniform(0.7, 1.5)
        h = int(np.clip(math.sqrt(area / aspect), 3 * S, 1080))
        w = int(np.clip(h * aspect, 3 * S, 1440))
    else:
        h, w = size
    img = _table(rng, h, w)
    walls = _walls(rng, h, w)
    floor = _floor_mask(h, w, walls)
    shares = None if looks is None else look_shares(looks)  # (once a frame, not once a die)
    sch = _scheme(rng, shares) if rng.random() < 0.5 else None  # half the frames: one set of dice
    light_dir = rng.uniform(0, 2 * math.pi)
    out: list[TrayDie] = []
    placed: list[tuple[float, float, float]] = []
    for _k in range(n):
        s = S * rng.uniform(0.9, 1.1)
        why = ""
        r = rng.random()
        if r < null_share * 0.4 and walls:
            why = "leaning"
        elif r < null_share * 0.7 and walls:
            why = "half hidden"
        elif r < null_share:
            why = "moving"
        for _ in range(100):
            if placed and rng.random() < 0.3 and not why:  # touching the last die
                px, py, ps = placed[-1]
                a = rng.uniform(0, 2 * math.pi)
                d = (ps + s) / 2 * rng.uniform(1.02, 1.15) * (1 + 0.35 * abs(math.sin(2 * a)))
                cx, cy = px + d * math.cos(a), py + d * math.sin(a)
            elif why in ("leaning", "half hidden"):
                wside, t = walls[int(rng.integers(len(walls)))]
                off = (t + 0.55 * s) if why == "leaning" else (t + rng.uniform(-0.15, 0.2) * s)
                along = rng.uniform(s, (w if wside in ("top", "bottom") else h) - s)
                cx, cy = {"top": (along, off), "bottom": (along, h - off), "left": (off, along),
                          "right": (w - off, along)}[wside]
            else:
                cx, cy = rng.uniform(0.8 * s, w - 0.8 * s), rng.uniform(0.8 * s, h - 0.8 * s)
            if not (0 <= cx < w and 0 <= cy < h):
                continue
            if why != "half hidden" and not floor[int(cy), int(cx)]:
                continue
            if why == "" and not all(floor[int(np.clip(cy + dy, 0, h - 1)), int(np.clip(cx + dx, 0, w - 1))]
                                     for dx in (-0.75 * s, 0.75 * s) for dy in (-0.75 * s, 0.75 * s)):
                continue
            if all(math.hypot(cx - qx, cy - qy) > (qs + s) / 2 for qx, qy, qs in placed):
                break
        else:
            continue
        value = int(rng.integers(1, 7))
        sc = sch if sch is not None else _scheme(rng, shares)
        # the side faces a camera sees, from the frame's centre outward; a leaning die shows a big one
        vx, vy = (cx - w / 2) / max(w, h), (cy - h / 2) / max(w, h)
        lift = (float(vx * rng.uniform(0.1, 0.45)), float(vy * rng.uniform(0.1, 0.45)))
        squash = 1.0
        angle = float(rng.uniform(0, 360))
        if why == "leaning":
            squash = float(rng.uniform(0.45, 0.72))
            lift = (0.0, float(rng.uniform(0.3, 0.5)))
        tile_n = int(math.ceil(s * 2.2)) | 1
        x0, y0 = int(round(cx - tile_n / 2)), int(round(cy - tile_n / 2))
        behind = _cut(img, x0, y0, tile_n)
        # draw upright (lift / squash in the die's own frame), then turn into place
        col, cov, top = _die_tile(rng, value, s, sc, lift, squash, behind)
        m = cv2.getRotationMatrix2D((tile_n / 2, tile_n / 2), angle, 1.0)
        col = cv2.warpAffine(col, m, (tile_n, tile_n), flags=cv2.INTER_LINEAR)
        cov = cv2.warpAffine(cov, m, (tile_n, tile_n), flags=cv2.INTER_LINEAR)
        top = cv2.warpAffine(top, m, (tile_n, tile_n), flags=cv2.INTER_LINEAR)
        if why == "moving":
            L = int(max(3, s * rng.uniform(0.35, 0.9)))
            kern = np.zeros((L, L), np.float32)
            kern[L // 2] = 1.0 / L
            kern = cv2.warpAffine(kern, cv2.getRotationMatrix2D((L / 2, L / 2), rng.uniform(0, 180), 1.0), (L, L))
            kern /= max(kern.sum(), 1e-6)
            col = cv2.filter2D(col * cov[..., None], -1, kern)
            cov = cv2.filter2D(cov, -1, kern)
            col = col / np.maximum(cov[..., None], 1e-3)
        # soft shadow on the table, away from the light
        sh = cv2.GaussianBlur(cov, (0, 0), max(1.0, 0.12 * s))
        dx, dy = (int(round(-math.cos(light_dir) * 0.12 * s)), int(round(-math.sin(light_dir) * 0.12 * s)))
        sh = np.roll(np.roll(sh, dy, 0), dx, 1)
        _blend(img, x0, y0, None, sh * rng.uniform(0.25, 0.55), darken=True)
        _blend(img, x0, y0, col, cov)
        ys, xs = np.nonzero(top > 0.5)
        if len(xs) == 0:
            continue
        box = [x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1, y0 + int(ys.max()) + 1]
        if why:
            ys2, xs2 = np.nonzero(cov > 0.5)
            box = [x0 + int(xs2.min()), y0 + int(ys2.min()), x0 + int(xs2.max()) + 1, y0 + int(ys2.max()) + 1]
        placed.append((cx, cy, s))
        out.append(TrayDie(None if why else value, (float(cx), float(cy)), float(s),
                           (max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])), why, sc["kind"]))
    _draw_walls(rng, img, walls)
    # a half-hidden die: its box is what the wall leaves of it; too little left is no die at all
    kept = []
    for d in out:
        if d.why_null == "half hidden":
            x0, y0, x1, y1 = d.box
            vis = floor[y0:y1, x0:x1]
            if vis.mean() < 0.3 or vis.mean() > 0.75:
                continue  # nearly all hidden (not a die anyone sees) or nearly all visible (not "half")
            ys, xs = np.nonzero(vis)
            d = TrayDie(None, d.center, d.side, (x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1,
                                                  y0 + int(ys.max()) + 1), d.why_null, d.look)
        kept.append(d)
    _camera(rng, img)
    ok, enc = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
    frame = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return frame, kept


def _cut(img: np.ndarray, x0: int, y0: int, n: int) -> np.ndarray:
    pad = cv2.copyMakeBorder(img, n, n, n, n, cv2.BORDER_REFLECT)
    return pad[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n].copy()


def _blend(img: np.ndarray, x0: int, y0: int, col: np.ndarray | None, a: np.ndarray, darken: bool = False) -> None:
    h, w = img.shape[:2]
    n = a.shape[0]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + n), min(h, y0 + n)
    if xa >= xb or ya >= yb:
        return
    sa = a[ya - y0:yb - y0, xa - x0:xb - x0, None]
    region = img[ya:yb, xa:xb]
    if darken:
        region *= 1 - sa
    else:
        assert col is not None
        region[:] = region * (1 - sa) + col[ya - y0:yb - y0, xa - x0:xb - x0] * sa


def _camera(rng: np.random.Generator, img: np.ndarray) -> None:
    """Light and lens, in place: uneven light, a colour cast, defocus, noise."""
    h, w = img.shape[:2]
    field = 1 + rng.uniform(0.1, 0.4) * _smooth_noise(rng, h, w, max(h, w) / rng.uniform(1, 3))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    vig = 1 - rng.uniform(0, 0.35) * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 2
    img *= (field * vig)[..., None] * rng.uniform(0.75, 1.25)
    cast = rng.random()
    if cast < 0.3:  # warm: tungsten
        img *= np.array([rng.uniform(0.62, 0.85), rng.uniform(0.9, 1.0), rng.uniform(1.0, 1.15)], np.float32)
    elif cast < 0.45:  # cool
        img *= np.array([rng.uniform(1.05, 1.2), 1.0, rng.uniform(0.8, 0.95)], np.float32)
    if rng.random() < 0.35:
        img[:] = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    img += rng.normal(0, rng.uniform(0.5, 6), img.shape).astype(np.float32)


# ----------------------------------------------------------------------------------------- the folder

def write_folder(out: Path, frames: int, seed: int) -> dict:
    """``frames`` tray frames with ``labels.csv`` (value 0 = the honest reading is null)."""
    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    counts = {"frames": 0, "dice": 0, "null_dice": 0}
    with (out / "labels.csv").open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["image", "x_min", "y_min", "x_max", "y_max", "value"])
        for k in range(frames):
            img, dice = render_tray(rng)
            name = f"tray_{seed}_{k:04d}.jpg"
            cv2.imwrite(str(out / "images" / name), img, [cv2.IMWRITE_JPEG_QUALITY, 97])
            for d in dice:
                wr.writerow([name, *d.box, 0 if d.value is None else d.value])
                counts["null_dice"] += d.value is None
            counts["dice"] += len(dice)
            counts["frames"] += 1
    return counts


def _outcome(die: TrayDie, got: object) -> str:
    if got == "missed":
        return "not found"
    if die.value is None:
        return "right" if got is None else "given a value"
    return "right" if got == die.value else ("null" if got is None else "wrong")


def outcomes_by_kind(frames: int, seed: int) -> dict[str, dict[str, int]]:
    """The shipped d6 reader on ``frames`` trays of ``seed``, each die's outcome (right, wrong, null, not
    found, given a value) counted by what it is: lying flat or why it should read null, its look (flat dice),
    its size.  Frames are read as rendered (the bench reads the folder's copies, re-saved at JPEG 97, and
    matches the same way, so totals differ by a die or two)."""
    from vision.dice import read_dice
    from vision.dice.scoring import match

    rng = np.random.default_rng(seed)
    out: dict[str, dict[str, int]] = {}
    for _ in range(frames):
        img, dice = render_tray(rng)
        got: dict[int, object] = {i: r.value for r, i in match([d.box for d in dice], read_dice(img)) if i >= 0}
        for i, d in enumerate(dice):
            res = _outcome(d, got.get(i, "missed"))
            keys = ["all", "null: " + d.why_null] if d.value is None else [
                "all", "flat", "flat, look: " + d.look,
                "flat, px: " + ("20-30" if d.side < 30 else "30-65" if d.side < 65 else "65-90")]
            for k in keys:
                out.setdefault(k, {}).setdefault(res, 0)
                out[k][res] += 1
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="write a labelled folder of trays here")
    ap.add_argument("--by-kind", action="store_true",
                    help="instead, read the trays with the shipped reader and print each kind's outcomes (JSON)")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--seed", type=int, default=91)
    a = ap.parse_args(argv)
    if a.by_kind:
        import json

        print(json.dumps(outcomes_by_kind(a.frames, a.seed), indent=1))
    elif a.out is None:
        ap.error("give --out DIR (a folder of trays) or --by-kind")
    else:
        print(write_folder(a.out, a.frames, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
