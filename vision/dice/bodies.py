"""Reading a d6 die-first: find the die's body as a square blob against the table, then read its pips
inside it.

Why a second way besides :mod:`vision.dice.pips`: the pip-first reader has to decide from the pips alone
what is a face, which is hard when the dice are small in the picture (a die of 25 pixels has pips of 4-5
pixels and a 5 px gap between pip and edge, where the box-blurred contrast map of the pip reader is
dominated by the die's own edge) and when a pip touches the die's outline.  On a tray mat the die itself
is the easy thing to find (:func:`vision.dice.faces.find_die_blobs`), and once the die is known, its top
face's body colour is known too (the median colour of the blob's middle), so the pips are simply the
round spots inside the blob that are far from that colour.  The value then comes from the same rotation-
free layout test as the pip reader uses (:func:`vision.dice.pips._layout_value`) plus checks that the
pips fill the die the way a d6 layout does (the spread of the pips against the die's side).  Everything
that does not fit exactly gives ``None`` (not read), never a nearby value.

This path adds readings where the pip-first reader found nothing or no value; where both read the same
die and disagree, the die is reported unread (see :func:`vision.dice.read_dice`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.dice.faces import DieBlob
from vision.dice.pips import FaceRead, _layout_value

#: Side of the upright patch a die is cut into, pixels.
N = 48
#: Pips are pixels at least this fraction of the strongest colour difference (body to pip) in the face.
PIP_LEVEL = 0.5
#: Least colour distance (BGR) between body and pips.
MIN_PIP_CONTRAST = 60.0
#: A pip's centre lies within this fraction of the die's side from the die's centre (per axis).
INNER = 0.40
#: Least minor/major axis ratio of a pip.
MIN_ROUND = 0.7
#: Radius of the ring around a pip (in pip radii) that must be body colour.
RING_K = 1.8
#: ... and how close to the body colour (fraction of the body-to-pip contrast) that ring must be.
RING_TOL = 0.1
#: Largest offset (fraction of the side, per axis) of the pips' centre from the blob's centre.
CENTRE_OFF = 0.15


_YY, _XX = np.mgrid[0:N, 0:N]
#: Per patch pixel: distance from the centre in the max norm, as a fraction of the side (0.5 at the edge).
_REL = np.maximum(np.abs(_XX - (N - 1) / 2), np.abs(_YY - (N - 1) / 2)) / N
_CORE = _REL <= INNER


def read_blob(img: np.ndarray, blob: DieBlob) -> FaceRead | None:
    """The d6 value of the die in ``blob``: a FaceRead with a value, or None when it cannot be read."""
    side = blob.side
    a = math.radians(blob.angle)
    ux, uy = math.cos(a), math.sin(a)
    cx, cy = blob.center
    step = side / N
    # patch pixel (i, j) <- image centre + ((i - N/2) * u + (j - N/2) * v) * step, v = u turned 90 degrees
    m = np.float32([[ux * step, -uy * step, cx - (N / 2) * step * (ux - uy)],
                    [uy * step, ux * step, cy - (N / 2) * step * (uy + ux)]])
    patch = cv2.warpAffine(img, m, (N, N), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    rel, core = _REL, _CORE
    body = np.median(patch[core], axis=0)
    dist = np.sqrt(((patch - body) ** 2).sum(axis=2))
    dc = dist[core]
    top = float(np.partition(dc, int(0.99 * (dc.size - 1)))[int(0.99 * (dc.size - 1))])
    if top < MIN_PIP_CONTRAST:
        return None
    mask = ((dist >= PIP_LEVEL * top) & (rel <= 0.46)).astype(np.uint8)
    n, lab, st, cen = cv2.connectedComponentsWithStats(mask, connectivity=8)
    pips = []
    ids: list[int] = []
    for i in range(1, n):
        x, y, w, h, area = st[i]
        px, py = cen[i]
        if area < 4:
            continue
        if max(w, h) > 0.3 * N:
            # larger than a pip: the die's rim, its shaded side or its shadow (ignored), or something on
            # the face itself (glare, a label, another die: the face is not read)
            if float(rel[lab == i].mean()) < 0.36:
                return None
            continue
        if max(abs(px - (N - 1) / 2), abs(py - (N - 1) / 2)) / N > INNER:
            continue  # a spot at the rim: a pip of a side face seen at an angle, not of the top
        pips.append((px, py, area, w, h))
        ids.append(i)
    if not 1 <= len(pips) <= 6:
        return None
    areas = np.array([p[2] for p in pips], dtype=np.float32)
    r = float(math.sqrt(np.median(areas) / math.pi))
    # pips of one die are alike in size and round; a pip's radius is 5-14 % of the die's side
    if areas.max() > 2.5 * areas.min() or not (0.05 * N <= r <= 0.14 * N):
        return None
    for (_, _, area, w, h), i in zip(pips, ids):
        if max(w, h) > 1.8 * min(w, h) or area < 0.55 * w * h:
            return None
        # a top face seen from above has round pips; pips on a side seen at a slant are squashed
        ys, xs = np.nonzero(lab == i)
        ev = np.linalg.eigvalsh(np.cov(np.stack([xs, ys]).astype(np.float64)) + 0.25 * np.eye(2))
        if math.sqrt(ev[0] / ev[1]) < MIN_ROUND:
            return None
    # every pip sits on the top face's body colour: pips of a side face seen at a slant sit on the
    # side's shaded colour, however well they happen to line up with the top face's pips
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    for px, py, _, _, _ in pips:
        xs = np.clip(np.rint(px + RING_K * r * np.cos(ang)).astype(int), 0, N - 1)
        ys = np.clip(np.rint(py + RING_K * r * np.sin(ang)).astype(int), 0, N - 1)
        ring = np.median(patch[ys, xs], axis=0)
        if float(np.linalg.norm(ring - body)) > RING_TOL * top:
            return None
    pts = np.array([(p[0], p[1]) for p in pips], dtype=np.float32)
    c = pts.mean(axis=0)
    # the pips' centre is the top face's centre; the blob's centre is off it by the shadow and the side
    # face that are part of the blob (up to an eighth of the side on the synthetic tables)
    fc = np.array([(N - 1) / 2, (N - 1) / 2])
    if len(pips) == 1:
        value, score = (1, 0.85) if np.abs(c - fc).max() <= CENTRE_OFF * N else (None, 0.0)
    else:
        value, score = _layout_value(pts - c, r)
        if value is not None:
            spread = float(np.linalg.norm(pts - c, axis=1).max()) / N
            # corner pips of a d6 sit 0.3-0.45 of the side from the centre (2, 3, 4, 5, 6 alike)
            if not 0.26 <= spread <= 0.47 or np.abs(c - fc).max() > CENTRE_OFF * N:
                value = None
    if value is None:
        return None
    # back to image coordinates: the centroid of the pips is the centre of the top face
    ix = cx + ((c[0] - N / 2) * ux - (c[1] - N / 2) * uy) * step
    iy = cy + ((c[0] - N / 2) * uy + (c[1] - N / 2) * ux) * step
    return FaceRead(value, (float(ix), float(iy)), side / 2, float(max(0.0, min(1.0, score))), n=len(pips),
                    pip_r=r * step, body=True)
