"""Reading standard d6 pips: propose pips, group them into faces on a die body, check the face's layout.

Why this shape (classical, no learned model at run time):

* A pip is the one part of a die that looks the same on every die: a small round spot that differs from
  the die's body in *some* colour channel (black on white, white on red, yellow on green, red on black).
  So the proposal step works per colour channel (B, G, R) on local contrast (pixel minus a box-blurred
  neighbourhood), in both polarities, and keeps compact, round, filled connected components.  That is
  what makes the reader indifferent to die colour: nothing is learned about "what a die looks like".
* A spot is only a pip if it sits *on* something: the ring just around it must be one uniform colour (the
  die body) that the spot stands out from.  Corners of dark dice on a white tray, glare streaks and wood
  grain fail this test.
* Pips belong to the same face when the straight path between them runs over that same body colour.  The
  seam between two touching dice, the tray between two dice and the edge between a die's top face and its
  shaded side all break the path, so touching dice are separated without assuming any particular size.
* A group is accepted only if its layout is one of the six d6 layouts (1 alone on a body with a boundary
  all round it; 2 and 3 on a line with equal spacing; 4 as a square; 5 as a square with a centre pip; 6 as
  two rows of three), with perspective tolerated by whitening the point cloud before the square test.
  A group that is clearly a die but fits no layout (merged touching dice, a hand over it) is reported
  with ``value=None``: an honest null is better than a guess.

* Every accepted layout is checked once more on its own 3x3 grid of pip positions: where the layout says
  "no pip" the colour must be body, where it says "pip" it must be pip.  A 4 whose two pips the detector
  missed reads as a 2 by layout alone; on the grid it shows four pips and is read as 4 (or refused).
* Faces broken in pieces by a failed path test (marbled bodies) are re-joined when the pieces together
  make a valid layout; groups of pips seen at an angle on a die's *sides* are dropped (a top face seen
  from up to ~30 degrees off vertical has round pips, a side's are foreshortened: smaller, elongated).

The centre reported is the centroid of the face's pips, which is the centre of the top face for every
d6 layout — so it lies on the top face even when the camera sees the sides of the die.

The constants below were set on the dev split of ``../shared/data/dice-real`` (images with
``crc32(name) % 5 != 0``), by looking at classes of failure (not at single images).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

#: Box-blur size for the local-contrast map; about one die at the tray camera's scale.
_BLUR = 17
#: Local-contrast threshold (uint8 levels) for a pixel to count as a pip pixel in a channel.
_CONTRAST = 22
MIN_CONTRAST = 30.0
RING_OK = 0.75
MERGE_CHANNELS = True
THRESHOLDS = (22,)
RING_K = 1.8
PIP_LIKE_MAX = 0.5
_RING_N = 16
FILL = 0.45
PATH_TOL = 26.0
_EXTENT_TOL = 30.0
SIDE_RATIO = 1.15
GRID_CHECK = True
GRID_UPGRADE = True
GRID_PIP = 0.5
ONE_RING_OK = 0.9
ONE_FINITE = 14
ONE_ROUND = 0.7
ONE_MED = 2.5
ONE_OPP = 0.7
RESCUE_PATH = 0.6
#: Pips of a top face seen from up to ~30 degrees off vertical are nearly round; side faces' are not.
MIN_FACE_ROUNDNESS = 0.62
SIDE_GAP = 7.0


@dataclass(frozen=True, eq=False)
class Pip:
    x: float
    y: float
    r: float
    colour: np.ndarray  # BGR of the pip centre (float32[3])
    body: np.ndarray  # median BGR of the ring around the pip (float32[3])
    contrast: float
    ring_ok: float  # fraction of the ring samples that agree with the body colour
    roundness: float  # minor / major axis of the pip's blob
    angle: float  # orientation of the blob's major axis, radians in [0, pi)


def _sample(img: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    xi = np.clip(np.rint(xs).astype(np.int32), 0, w - 1)
    yi = np.clip(np.rint(ys).astype(np.int32), 0, h - 1)
    return img[yi, xi].astype(np.float32)


_ANG = np.linspace(0, 2 * math.pi, _RING_N, endpoint=False)
_COS, _SIN = np.cos(_ANG), np.sin(_ANG)


def find_pips(img: np.ndarray, smooth: np.ndarray | None = None) -> list[Pip]:
    """Pip candidates in a BGR image (see module doc).  ``smooth`` is a lightly blurred copy used for
    colour sampling (computed if not given)."""
    if smooth is None:
        smooth = cv2.GaussianBlur(img, (3, 3), 0)
    raw: list[tuple[float, float, float, float, float]] = []  # x, y, r, roundness, angle
    bg = cv2.blur(img, (_BLUR, _BLUR))
    if MERGE_CHANNELS:
        # strongest local contrast over the three channels, in each polarity: two label passes, not six
        dk, lt = cv2.split(cv2.subtract(bg, img)), cv2.split(cv2.subtract(img, bg))
        masks = [cv2.max(cv2.max(dk[0], dk[1]), dk[2]), cv2.max(cv2.max(lt[0], lt[1]), lt[2])]
    else:
        masks = [m for c, b in zip(cv2.split(img), cv2.split(bg)) for m in (cv2.subtract(b, c), cv2.subtract(c, b))]
    for mask in masks:
        for thr in THRESHOLDS:
            _, m = cv2.threshold(mask, thr, 255, cv2.THRESH_BINARY)
            n, lab, st, cen = cv2.connectedComponentsWithStats(m, connectivity=8)
            if n <= 1:
                continue
            x, y, w, h, a = st[1:, 0], st[1:, 1], st[1:, 2], st[1:, 3], st[1:, 4]
            ok = (a >= 5) & (a <= 500) & (np.maximum(w, h) <= 2.6 * np.minimum(w, h)) & (a >= FILL * w * h)
            for i in np.nonzero(ok)[0]:
                rr = math.sqrt(a[i] / math.pi)
                sub = (lab[y[i]:y[i] + h[i], x[i]:x[i] + w[i]] == i + 1).astype(np.uint8)
                mo = cv2.moments(sub, binaryImage=True)
                mu20, mu02, mu11 = mo["mu20"], mo["mu02"], mo["mu11"]
                common = math.sqrt(max(0.0, (mu20 - mu02) ** 2 + 4 * mu11 * mu11))
                lmax, lmin = (mu20 + mu02 + common) / 2, (mu20 + mu02 - common) / 2
                rnd = math.sqrt(max(lmin, 1e-6) / max(lmax, 1e-6))
                ang = (0.5 * math.atan2(2 * mu11, mu20 - mu02)) % math.pi
                raw.append((float(cen[i + 1][0]), float(cen[i + 1][1]), rr, rnd, ang))
    if not raw:
        return []
    arr = np.array(raw, dtype=np.float32)
    xs, ys, rs = arr[:, 0], arr[:, 1], arr[:, 2]
    rho = np.maximum(RING_K * rs, rs + 2.0)
    ring = _sample(smooth, xs[:, None] + rho[:, None] * _COS, ys[:, None] + rho[:, None] * _SIN)  # N,16,3
    centre = _sample(smooth, xs, ys)
    # Ring samples that look like the pip itself are neighbouring pips (dense 5s and 6s): leave them out
    # of the body colour, but do not let them be the majority.
    to_c = np.linalg.norm(ring - centre[:, None, :], axis=2)
    pip_like = to_c < 0.5 * to_c.max(axis=1, keepdims=True)
    bodyw = np.where(pip_like[..., None], np.nan, ring)
    with np.errstate(all="ignore"):
        body = np.nanmedian(bodyw, axis=1)
    body = np.where(np.isnan(body), np.median(ring, axis=1), body)
    contrast = np.linalg.norm(centre - body, axis=1)
    dev = np.linalg.norm(ring - body[:, None, :], axis=2)
    tol = np.maximum(22.0, 0.35 * contrast)
    n_body = np.maximum(1, (~pip_like).sum(axis=1))
    ring_ok = ((dev < tol[:, None]) & ~pip_like).sum(axis=1) / n_body
    ring_ok = np.where(pip_like.mean(axis=1) > PIP_LIKE_MAX, 0.0, ring_ok)
    good = (contrast >= MIN_CONTRAST) & (ring_ok >= RING_OK)
    idx = np.nonzero(good)[0]
    # Duplicates across channels: keep the strongest candidate of each spot; of two concentric spots of
    # different size (a pip and a halo, or a pip and the dark die around it) keep the smaller.
    order = idx[np.argsort(-(contrast[idx] * ring_ok[idx]))]
    kept: list[int] = []
    for i in order:
        clash = None
        for k, j in enumerate(kept):
            d2 = (xs[i] - xs[j]) ** 2 + (ys[i] - ys[j]) ** 2
            big, small = max(rs[i], rs[j]), min(rs[i], rs[j])
            if d2 <= (0.5 * small + 1.0) ** 2 or (d2 <= (0.9 * big) ** 2 and big <= 1.6 * small):
                clash = k
                break
        if clash is None:
            kept.append(int(i))
        elif rs[i] < rs[kept[clash]] / 1.6:
            kept[clash] = int(i)
    return [
        Pip(float(xs[i]), float(ys[i]), float(rs[i]), centre[i], body[i], float(contrast[i]), float(ring_ok[i]),
            float(arr[i, 3]), float(arr[i, 4]))
        for i in kept
    ]


def _path_on_body(smooth: np.ndarray, a: Pip, b: Pip, pips: list[Pip]) -> float:
    """Fraction of the straight path from ``a`` to ``b`` (outside any pip) whose colour is the body's."""
    dx, dy = b.x - a.x, b.y - a.y
    d = math.hypot(dx, dy)
    n = max(4, int(d / 1.5))
    t = np.linspace(0, 1, n + 2)[1:-1]
    px, py = a.x + dx * t, a.y + dy * t
    keep = np.ones(n, dtype=bool)
    for p in pips:
        if abs(p.x - (a.x + b.x) / 2) > d / 2 + 3 * p.r + 2 or abs(p.y - (a.y + b.y) / 2) > d / 2 + 3 * p.r + 2:
            continue
        keep &= (px - p.x) ** 2 + (py - p.y) ** 2 > (1.5 * p.r + 1.0) ** 2
    if keep.sum() < 2:
        return 1.0
    s = _sample(smooth, px[keep], py[keep])
    body = (a.body + b.body) / 2
    tol = max(PATH_TOL, 0.15 * (a.contrast + b.contrast) / 2)
    return float((np.linalg.norm(s - body, axis=1) < tol).mean())


def group_pips(smooth: np.ndarray, pips: list[Pip]) -> list[list[Pip]]:
    """Union pips that lie on one continuous body of the same colour (see module doc)."""
    n = len(pips)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        a = pips[i]
        for j in range(i + 1, n):
            b = pips[j]
            rm = (a.r + b.r) / 2
            d = math.hypot(a.x - b.x, a.y - b.y)
            if d > 11.0 * rm or d < 2.2 * rm:
                continue
            if max(a.r, b.r) > 1.7 * min(a.r, b.r):
                continue
            if abs(a.roundness - b.roundness) > 0.2:
                continue
            if min(a.roundness, b.roundness) < 0.8:
                dang = abs(a.angle - b.angle) % math.pi
                if min(dang, math.pi - dang) > math.radians(30):
                    continue
            if np.linalg.norm(a.body - b.body) > 45 or np.linalg.norm(a.colour - b.colour) > 70:
                continue
            if _path_on_body(smooth, a, b, pips) < 0.85:
                continue
            parent[find(i)] = find(j)
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(pips[i])
    return list(groups.values())


def _body_extent(smooth: np.ndarray, cx: float, cy: float, body: np.ndarray, tol: float, group: list[Pip],
                 r_max: float) -> np.ndarray:
    """For 16 rays from (cx, cy): distance to the first sample that is no longer body colour (inf if none
    within ``r_max``).  Samples inside the group's pips are skipped."""
    steps = np.arange(1.0, r_max, 1.0, dtype=np.float32)
    px = cx + steps[None, :] * _COS[:, None]
    py = cy + steps[None, :] * _SIN[:, None]
    inside = np.zeros(px.shape, dtype=bool)
    for p in group:
        inside |= (px - p.x) ** 2 + (py - p.y) ** 2 <= (1.6 * p.r + 1.0) ** 2
    s = _sample(smooth, px, py)
    off = (np.linalg.norm(s - body, axis=2) >= tol) & ~inside
    # first off-body sample per ray
    first = np.where(off.any(axis=1), off.argmax(axis=1), -1)
    out = np.full(_RING_N, np.inf, dtype=np.float32)
    hit = first >= 0
    out[hit] = steps[first[hit]]
    return out


def _clean_rings(smooth: np.ndarray, p: Pip, body: np.ndarray, reach: float) -> bool:
    """Rings between the pip and ``reach`` are all body colour (a 1-face has nothing else on it)."""
    for k in (0.45, 0.7):
        rho = max(p.r * 1.8, reach * k)
        ring = _sample(smooth, p.x + rho * _COS, p.y + rho * _SIN)
        if (np.linalg.norm(ring - body, axis=1) < 26.0).mean() < ONE_RING_OK:
            return False
    return True


@dataclass(frozen=True)
class FaceRead:
    value: int | None
    center: tuple[float, float]
    half: float  # estimated half side of the die, pixels
    confidence: float
    weak: bool = False  # a group of pips that failed the die checks: only a proposal for the verifier
    roundness: float = 1.0  # median roundness of the face's pips
    pip_r: float = 0.0  # median pip radius
    n: int = 0  # pips in the face
    body: bool = False  # read die-first (vision/dice/bodies.py): the whole die and all its pips were seen


def _layout_value(pts: np.ndarray, r: float) -> tuple[int | None, float]:
    """Which d6 layout ``pts`` (n x 2, centred) is, with a fit score in 0..1; (None, 0) if none fits."""
    n = len(pts)
    d = np.linalg.norm(pts, axis=1)
    if n == 2:
        sep = 2 * d.mean()
        ok = 5.0 * r <= sep <= 13.0 * r
        return (2, 0.9) if ok else (None, 0.0)
    if n == 3:
        o = np.argsort(d)
        mid, ends = pts[o[0]], pts[o[1:]]
        sep = np.linalg.norm(ends[0] - ends[1])
        straight = np.linalg.norm(mid) / sep
        even = abs(d[o[1]] - d[o[2]]) / sep
        ok = straight < 0.12 and even < 0.15 and 5.0 * r <= sep <= 14.0 * r
        return (3, 0.95 - straight - even) if ok else (None, 0.0)
    # whiten (removes perspective squash and scale) for 4/5/6
    cov = np.cov(pts.T)
    ev, evec = np.linalg.eigh(cov)
    if ev[0] <= 1e-6:
        return None, 0.0
    w = pts @ evec / np.sqrt(ev)
    squash = math.sqrt(ev[0] / ev[1])
    if n == 4:
        dw = np.linalg.norm(w, axis=1)
        spread = dw.std() / dw.mean()
        # in whitened coordinates a square's corners are at 90 degrees
        ang = np.sort(np.arctan2(w[:, 1], w[:, 0]))
        gaps = np.diff(np.concatenate([ang, ang[:1] + 2 * math.pi]))
        gap_err = np.abs(gaps - math.pi / 2).max()
        side = 2 * d.mean() / math.sqrt(2)
        ok = spread < 0.12 and gap_err < 0.35 and squash > 0.55 and 3.0 * r <= side <= 9.0 * r
        return (4, 0.95 - spread - gap_err / 3) if ok else (None, 0.0)
    if n == 5:
        o = np.argsort(d)
        if d[o[0]] > 0.2 * d[o[1:]].mean():
            return None, 0.0
        rest = pts[o[1:]] - pts[o[0]]
        v, s = _layout_value(rest - rest.mean(axis=0), r)
        return (5, s) if v == 4 else (None, 0.0)
    if n == 6:
        # Two columns of three.  Search the direction that splits the pips into two tight groups of three
        # (PCA is useless here: the two spreads are too alike once perspective squashes the face).
        best = None
        for th in np.arange(0, math.pi, math.radians(4)):
            u = pts @ np.array([math.cos(th), math.sin(th)])
            o = np.argsort(u)
            us = u[o]
            gap = us[3] - us[2]
            spread = max(us[2] - us[0], us[5] - us[3])
            q = gap / (spread + 1e-6)
            if best is None or q > best[0]:
                best = (q, th, o, gap)
        q, th, o, gap = best
        if q < 2.0:
            return None, 0.0
        v = pts @ np.array([-math.sin(th), math.cos(th)])
        errs = []
        steps = []
        for grp in (o[:3], o[3:]):
            vs = np.sort(v[grp])
            step = (vs[2] - vs[0]) / 2
            if step <= 0:
                return None, 0.0
            errs.append(abs(vs[1] - (vs[0] + vs[2]) / 2) / step)
            steps.append(step)
        step = float(np.mean(steps))
        even = max(errs)
        ratio = gap / step
        ok = even < 0.3 and 0.8 < ratio < 3.5 and 2.0 * r <= step <= 7.0 * r and min(steps) > 0.6 * max(steps)
        return (6, 0.95 - even / 2) if ok else (None, 0.0)
    return None, 0.0


_PATTERNS: dict[frozenset, int] = {}
for _v, _sets in {
    1: [{(0, 0)}],
    2: [{(-1, -1), (1, 1)}, {(-1, 1), (1, -1)}],
    3: [{(-1, -1), (0, 0), (1, 1)}, {(-1, 1), (0, 0), (1, -1)}],
    4: [{(-1, -1), (1, 1), (-1, 1), (1, -1)}],
    5: [{(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)}],
    6: [{(-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)},
        {(-1, -1), (1, 1), (-1, 1), (1, -1), (0, -1), (0, 1)}],
}.items():
    for _s in _sets:
        _PATTERNS[frozenset(_s)] = _v


def _grid_basis(rel: np.ndarray, value: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Grid step vectors (u, v) of a face whose pips (relative to the face centre) fit layout ``value``:
    pip (i, j) of the 3x3 grid sits at i*u + j*v."""
    d = np.linalg.norm(rel, axis=1)
    if value in (2, 3):
        q = rel[int(np.argmax(d))]  # a corner
        perp = np.array([-q[1], q[0]])
        return (q + perp) / 2, (q - perp) / 2
    if value in (4, 5):
        corners = rel[np.argsort(d)[-4:]]
        q = corners[0]
        ang = [abs(math.atan2(q[0] * c[1] - q[1] * c[0], q @ c)) for c in corners[1:]]
        q2 = corners[1 + int(np.argmin([abs(x - math.pi / 2) for x in ang]))]
        return (q + q2) / 2, (q - q2) / 2
    if value == 6:
        # pair the pips into the two columns by the direction that splits them best (as in the layout test)
        best = None
        for th in np.arange(0, math.pi, math.radians(4)):
            u = rel @ np.array([math.cos(th), math.sin(th)])
            o = np.argsort(u)
            q = (u[o][3] - u[o][2]) / (max(u[o][2] - u[o][0], u[o][5] - u[o][3]) + 1e-6)
            if best is None or q > best[0]:
                best = (q, o)
        o = best[1]
        a_, b_ = rel[o[:3]], rel[o[3:]]
        uvec = (b_.mean(axis=0) - a_.mean(axis=0)) / 2
        # along a column: the end-to-end vector / 2, oriented consistently
        va = a_[np.argsort(a_ @ np.array([-uvec[1], uvec[0]]))]
        vb = b_[np.argsort(b_ @ np.array([-uvec[1], uvec[0]]))]
        vvec = ((va[2] - va[0]) + (vb[2] - vb[0])) / 4
        return uvec, vvec
    return None


def _grid_value(smooth: np.ndarray, c: np.ndarray, u: np.ndarray, v: np.ndarray, g: list[Pip]) -> int | None:
    """Look at all nine pip positions of the face's grid: which hold a pip?  The d6 value if that set is a
    d6 layout, else None.  This catches pips the detector missed (a 4 seen as a 2, a 6 as a 3)."""
    body = np.median(np.array([p.body for p in g]), axis=0)
    pipc = np.median(np.array([p.colour for p in g]), axis=0)
    gap = float(np.linalg.norm(pipc - body))
    if gap < 1e-3:
        return None
    r = float(np.median([p.r for p in g]))
    off = np.array([[0, 0], [0.5, 0], [-0.5, 0], [0, 0.5], [0, -0.5]]) * r
    occupied = set()
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            pos = c + i * u + j * v
            x = np.median(_sample(smooth, pos[0] + off[:, 0], pos[1] + off[:, 1]), axis=0)
            # where the pixel lies between body (0) and pip (1) colour
            t = float((x - body) @ (pipc - body)) / (gap * gap)
            if t > GRID_PIP:
                occupied.add((i, j))
    return _PATTERNS.get(frozenset(occupied))


def _face(smooth: np.ndarray, g: list[Pip]) -> FaceRead | None:
    """Judge one group of pips: None if it is not a die face at all, else the face (value None when the
    group is clearly a die but does not show a readable layout)."""
    pts = np.array([(p.x, p.y) for p in g], dtype=np.float32)
    c = pts.mean(axis=0)
    r = float(np.median([p.r for p in g]))
    body = np.median(np.array([p.body for p in g]), axis=0)
    spread = float(np.linalg.norm(pts - c, axis=1).max()) if len(g) > 1 else 0.0
    ext = _body_extent(smooth, float(c[0]), float(c[1]), body, _EXTENT_TOL, g, r_max=spread + 12 * r + 4)
    finite = ext[np.isfinite(ext)]
    if len(g) == 1:
        # A lone spot is a "1" only if it is round, centred on a die-sized patch of clean body with a
        # boundary all round it (rejects specks, key legends, screw heads, text).
        p0 = g[0]
        if len(finite) < ONE_FINITE or p0.roundness < ONE_ROUND:
            return None
        med = float(np.median(finite))
        if not (ONE_MED * r <= med <= 9.0 * r) or finite.min() < 1.8 * r:
            return None
        e = np.where(np.isfinite(ext), ext, 3 * med)
        opp = np.minimum(e[:8], e[8:]) / np.maximum(e[:8], e[8:])
        if np.median(opp) < ONE_OPP:
            return None
        if not _clean_rings(smooth, p0, body, med):
            return None
        return FaceRead(1, (float(c[0]), float(c[1])), med * 1.1, 0.85)
    if len(finite) < 12:
        return None
    med = float(np.median(finite))
    if np.percentile(finite, 75) < spread + 0.8 * r:
        return None
    half = max(med * 1.1, spread + 2 * r)
    value, score = (None, 0.0) if len(g) > 6 else _layout_value(pts - c, r)
    if value is not None and value >= 2 and GRID_CHECK:
        basis = _grid_basis(pts - c, value)
        seen = _grid_value(smooth, c, basis[0], basis[1], g) if basis is not None else None
        if seen is not None and seen > value and GRID_UPGRADE:
            value, score = seen, 0.75  # pips the detector missed, found where the layout puts them
        elif seen != value:
            value, score = None, 0.0
    return FaceRead(value, (float(c[0]), float(c[1])), half, float(max(0.0, min(1.0, score))))


def _peel(smooth: np.ndarray, g: list[Pip]) -> tuple[FaceRead | None, list[Pip]]:
    """Read a group; if it fits no layout, drop its clearly less round pips (the die's side faces seen at
    an angle) and try again.  Returns the face and the pips it was read from."""
    face = _face(smooth, g)
    if face is None or face.value is not None or len(g) == 1:
        return face, g
    by_round = sorted(g, key=lambda p: -p.roundness)
    for k in range(len(g) - 1, 0, -1):
        if by_round[k - 1].roundness - by_round[k].roundness < 0.12:
            continue
        sub = by_round[:k]
        f2 = _face(smooth, sub)
        if f2 is not None and f2.value is not None:
            return f2, sub
    return face, g


def _conflict(face: FaceRead, g: list[Pip], pips: list[Pip]) -> bool:
    """Another pip like the face's lies on the face but is not part of it: the face is not fully seen
    (or two touching dice share one body)."""
    c = face.center
    r = float(np.median([p.r for p in g]))
    body = np.median(np.array([p.body for p in g]), axis=0)
    rnd = float(np.median([p.roundness for p in g]))
    pts = np.array([(p.x, p.y) for p in g], dtype=np.float32)
    reach = float(np.linalg.norm(pts - np.array(c), axis=1).max()) + 2.0 * r if len(g) > 1 else face.half
    for p in pips:
        if p in g or math.hypot(p.x - c[0], p.y - c[1]) > reach:
            continue
        if (np.linalg.norm(p.body - body) < 45 and min(p.r, r) * 1.7 > max(p.r, r)
                and abs(p.roundness - rnd) < 0.2):
            return True
    return False


def _compatible(a: list[Pip], b: list[Pip]) -> bool:
    ra = float(np.median([p.r for p in a]))
    rb = float(np.median([p.r for p in b]))
    if max(ra, rb) > 1.6 * min(ra, rb):
        return False
    if abs(float(np.median([p.roundness for p in a])) - float(np.median([p.roundness for p in b]))) > 0.2:
        return False
    ca = np.median(np.array([p.colour for p in a]), axis=0)
    cb = np.median(np.array([p.colour for p in b]), axis=0)
    return float(np.linalg.norm(ca - cb)) < 70


def read_faces(img: np.ndarray, *, weak: bool = False) -> list[FaceRead]:
    """All d6 faces in a BGR image (see module doc).  With ``weak=True`` also groups of pips that failed
    the die checks, as ``weak`` proposals (value None) for a verifier to look at."""
    smooth = cv2.GaussianBlur(img, (3, 3), 0)
    pips = find_pips(img, smooth)
    groups = sorted(group_pips(smooth, pips), key=len, reverse=True)
    centres = [np.mean([(p.x, p.y) for p in g], axis=0) for g in groups]
    consumed: set[int] = set()
    cands: list[tuple[FaceRead, float, list[Pip]]] = []
    weak_faces: list[FaceRead] = []
    for gi, g0 in enumerate(groups):
        if gi in consumed:
            continue
        consumed.add(gi)
        face, g = _peel(smooth, g0)
        bad = face is None or face.value is None or _conflict(face, g, pips)
        if bad and len(g0) <= 5:
            # Rescue: the path test can fail on marbled or glossy bodies and leave a face in pieces.
            # Join nearby compatible pieces; accept only if together they make a valid layout.
            r0 = float(np.median([p.r for p in g0]))
            near = [hj for hj in range(len(groups)) if hj not in consumed
                    and float(np.linalg.norm(centres[hj] - centres[gi])) < 10.0 * r0
                    and _compatible(g0, groups[hj])
                    and max(_path_on_body(smooth, a, b, pips) for a in g0 for b in groups[hj]) >= RESCUE_PATH]
            if near:
                union = list(g0) + [p for hj in near for p in groups[hj]]
                if len(union) <= 6:
                    f2 = _face(smooth, union)
                    if f2 is not None and f2.value is not None and not _conflict(f2, union, pips):
                        face, g = f2, union
                        consumed.update(near)
                        bad = False
        if face is None:
            if weak and (len(g0) >= 2 or (g0[0].roundness >= 0.7 and g0[0].contrast >= 50)):
                pts = np.array([(p.x, p.y) for p in g0], dtype=np.float32)
                r0 = float(np.median([p.r for p in g0]))
                weak_faces.append(FaceRead(None, (float(pts[:, 0].mean()), float(pts[:, 1].mean())), 5.5 * r0,
                                           0.0, weak=True, n=len(g0), pip_r=r0))
            continue
        if face.value is not None and _conflict(face, g, pips):
            face = FaceRead(None, face.center, face.half, 0.0)
        r = float(np.median([p.r for p in g]))
        rnd = float(np.median([p.roundness for p in g]))
        face = replace(face, roundness=rnd, pip_r=r, n=len(g))
        cands.append((face, rnd, g))
    # Side faces.  Seen at an angle, a die shows its top face and one or two sides; the sides' pips are
    # foreshortened (smaller, less round).  (1) A face next to clearly rounder pips of the same body colour
    # is a side.  (2) Of two faces whose nearest pips are one face-gap apart on the same body colour, the
    # one with clearly less prominent pips (radius x roundness) is a side of the other's die.
    prom = [float(np.median([p.r for p in g]) * np.median([p.roundness for p in g])) for _, _, g in cands]
    side = [False] * len(cands)
    for i, (f, rnd, g) in enumerate(cands):
        if rnd < MIN_FACE_ROUNDNESS:
            side[i] = True
            continue
        for p in pips:
            if p in g or p.roundness < max(0.7, rnd + 0.15):
                continue
            if math.hypot(p.x - f.center[0], p.y - f.center[1]) < 2.2 * f.half and np.linalg.norm(
                    p.body - g[0].body) < 60:
                side[i] = True
                break
    for i in range(len(cands)):
        gi = cands[i][2]
        ri = float(np.median([p.r for p in gi]))
        for j in range(len(cands)):
            if i == j or prom[j] < SIDE_RATIO * prom[i]:
                continue
            gj = cands[j][2]
            if np.linalg.norm(gi[0].body - gj[0].body) > 60:
                continue
            near = min(math.hypot(a.x - b.x, a.y - b.y) for a in gi for b in gj)
            if near < SIDE_GAP * max(ri, float(np.median([p.r for p in gj]))):
                side[i] = True
                break
    out = [f for (f, _, _), s_ in zip(cands, side) if not s_]
    if weak:
        # proposals not on (or next to) a face already found, one per place
        for w in sorted(weak_faces, key=lambda f: -f.n):
            if all(math.hypot(w.center[0] - f.center[0], w.center[1] - f.center[1]) > 1.2 * max(f.half, w.half)
                   for f in out):
                out.append(w)
    return out
