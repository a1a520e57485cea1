"""Custom die faces taught by the owner (skid dice, Thunder Road FX dice, ...), recognised at any rotation.

How it works and why:

* **Finding the dice.**  Custom dice carry printed or engraved icons, not pips, so the pip reader cannot
  propose them.  A die is a compact, roughly square patch that differs from the table around it.  The
  table colour is a *local* median (a tray crop has uneven light, a textured mat, tray walls and road
  markings; one table colour for the whole picture does not do).  Pixels far from it, closed, with small
  holes filled, then each blob opened with a disc sized to that blob (a die touching a wall, a crack or
  a road marking is cut free of it), give blobs; a blob is a die when its minimum-area rectangle is
  nearly square, well filled, solid and not cut by the picture's edge (:func:`find_die_blobs`).  A dark
  die on a dark mat may differ from the mat less than the mat's texture does; its icon still stands out,
  and :func:`icon_blobs` proposes it from the icon and the size of the other dice.
* **Blank blobs.**  A tray's screw hole is as round and dark as a small die at the finder's scale, but one
  colour inside (:func:`face_marking`).  Such a blob is a die only for a die one of whose faces was taught
  from a blank face (the library keeps which examples were, :meth:`FaceLibrary.reads_blank`); for any
  other die it is no die, nor a place to look for one by its icon.
* **Normalising the face.**  Each die is cut out into a small upright grey square patch (the inner part
  of the face, away from the rounded edges), contrast-normalised (zero mean, unit norm) so that die colour
  and lighting level drop out.
* **Matching, at any rotation.**  Every taught patch is turned through a full circle in ROT_STEP steps
  and compared inside the inscribed disc (what stays inside a square at any turn), by normalised
  correlation, with the die's patch cut at a few shifts and scales (a blob's centre and size are only
  approximate: a shadow or a visible side face can be part of it).  So neither the blob's angle nor
  its exact centre needs to be right, and recognition does not depend on the die's rotation.  The nearest
  taught example wins if its score is high enough *and* clearly better than the best example of any
  other face; otherwise the die is reported with ``value=None`` (unsure is reported, never guessed).
  Nearest-neighbour over a handful of examples needs no training run, which is what "the owner shows
  each face a few times" calls for.

The library is plain data: :meth:`FaceLibrary.to_dict` / :meth:`FaceLibrary.from_dict` give a JSON-able
dict (patches as base64 bytes).  Files are handled in ``device/dice_library_files.py``.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

#: Side of a normalised face patch, pixels.
PATCH = 24
#: Fraction of the die's side kept when cutting out the face (drops rounded edges and shading).
INNER = 0.78
#: Minimum correlation with the best example, and minimum lead over the best other face.
MIN_SCORE = 0.55
MIN_MARGIN = 0.12
#: Rotation search step for matching, degrees (a full turn: the blob's own angle is not trusted).
ROT_STEP = 7.5
#: Shifts (patch pixels) and scales (of the blob's side) tried around each blob.
SHIFTS = (-2, -1, 0, 1, 2)
SCALES = (0.9, 0.95, 1.0)
FORMAT_VERSION = 1
#: More "dice" than this in a teaching image is not a roll being taught but a whole table frame (its tokens,
#: tags and print found as dice): the refusal says to cut the picture, not to name eleven faces.
MOST_DICE_TAUGHT = 6
#: Teachings remembered for undo.
MAX_UNDO = 20


@dataclass(frozen=True)
class DieBlob:
    """A die found by colour against the table: rotated rectangle and its axis-aligned box."""

    center: tuple[float, float]
    side: float
    angle: float  # degrees, as cv2.minAreaRect reports it
    box: tuple[int, int, int, int]


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ValueError("image must be a numpy uint8 array (BGR, as OpenCV loads it)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    raise ValueError(f"image must be HxW or HxWx3 (BGR); got shape {image.shape}")


def _background(img: np.ndarray) -> np.ndarray:
    """The table under the dice, estimated as a large local median (a median ignores the dice as long as
    they cover less than half of any window).  Window: about a third of the picture's short side, which
    on a tray crop is two to three dice; computed on a shrunk copy so that its cost does not grow with
    resolution."""
    h, w = img.shape[:2]
    k = 0.35 * min(h, w)
    ds = max(1, int(k // 25))
    ks = max(3, int(k / ds) | 1)
    small = cv2.resize(img, (max(1, w // ds), max(1, h // ds)), interpolation=cv2.INTER_AREA)
    # medianBlur replicates the edge pixels; a tray wall along the edge would then fill half the window
    pad = ks // 2
    sh, sw = small.shape[:2]
    small = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REFLECT_101 if min(sh, sw) > pad
                               else cv2.BORDER_REPLICATE)
    bg = cv2.medianBlur(small, ks)[pad:pad + sh, pad:pad + sw]
    return cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)


#: Least difference (uint8 levels, largest over B, G, R) from the local table colour for a die pixel.
BLOB_CONTRAST = 18
#: Least fill of its minimum-area rectangle and least short/long side ratio for a blob to be a die.
BLOB_FILL = 0.72
BLOB_ASPECT = 0.75
#: Least fraction of a blob's pixels that differ from the table by themselves (before closing).
BLOB_SOLID = 0.75
#: Blobs this close to the picture's edge are cut by it (or are the tray's corner): not read.
EDGE = 1
#: Pictures whose short side is larger are shrunk towards it before looking for blobs.
WORK_SIDE = 320
#: ... but not so far that the smallest die (min_side) is less than this many pixels across.
MIN_WORK_SIDE = 7.0
#: Blobs smaller than this fraction of the median blob side of the picture are not dice.
MIN_REL_SIDE = 0.5
#: ... and, first, blobs smaller than this fraction of the side that half the blobs' area lies above (the side
#: of the dice when mat specks outnumber them: a photo at 4x its size held one die of 397 px and eight
#: square specks of 12-33 px, whose median made every speck a die).  A quarter, not a half: the dev photo
#: with the widest spread of found sizes (nell_IMG_20191208_111228: dice of 20-43 px, two touching as one
#: blob of 76) puts that side at 43 and keeps its 20-px die; something covering most of the area must be
#: over 4x a die's side to drop the dice (and see SPECK_SPREAD).  Checked, not tuned, on the 408 dev photos
#: and the 240 seed-92 trays (with SPECK_SPREAD): the blobs of 5 pictures changed, 7 dropped, none of them
#: inside a labelled die.
MIN_SIDE_OF_AREA = 0.25
#: ... unless the blobs it would drop are alike in size (the largest at most this times the smallest): then they
#: are a set of dice beside one square thing over 4x their side that holds most of the area (a coaster, a
#: card box: 3-4 dice of 28-40 px beside a square of 130-164 px were all dropped), not specks, which differ
#: (12-33 px in the 4x photo).  One such blob alone is dropped (the median rule after it drops it too whenever
#: it is the only other blob: a side under a quarter of the other's is under half their mean).
SPECK_SPREAD = 1.5
#: Least median difference from the mat around an icon for it to be proposed as a die (icon_blobs).
ICON_BODY = 10.0
#: Least spread of the levels inside a blob's face (:func:`face_marking`, at the finder's working scale) for it
#: to be marked (an icon or pips); under it the blob is blank inside: a tray's screw hole, a speck, a plain
#: counter -- or a die's blank face, which only a library taught such a face reads (FaceLibrary.reads_blank).
#: Roundness does not tell a hole from a die (a die of 30 px is nearly round at the working scale).  Chosen
#: (2026-12-07, an outside audit: the nell tray's two screw holes read as SPIN with only SPIN taught) on other
#: data than the tests': copies of a nell tray photo (as taken, 0.5x, 4x, turned, darkened, overexposed, a hand
#: over it): its screw holes spread 1-7 levels, its dice 14-168; 200 renders of skid, FX and pip dice
#: (tools/dice_training/render, seed 9001; the least, 20, a grey die with darker icons on a grey table at
#: 13 px) and 40 tray frames (vision/synth, seed 9002; 55 and up).  12: about midway, in ratio, between 7
#: and 20.
FACE_MARKING = 12.0


def _open_each(mask: np.ndarray, min_side: int) -> np.ndarray:
    """Open every blob with a disc sized to *that* blob: half its largest inscribed radius.  A die that
    touches a road marking, a crack or a tray wall is one blob in the mask; the die's inscribed radius
    (half its side) is much larger than the half-width of the stripe, so the opening keeps the die and
    drops the stripe, at any scale and without knowing the die size in advance.  (Erosion and dilation
    are done as thresholds of distance transforms: their cost does not grow with the disc.)"""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    h, w = mask.shape
    for cnt in contours:
        a = cv2.contourArea(cnt)
        if a < min_side * min_side * 0.6:
            continue
        x, y, bw, bh = cv2.boundingRect(cnt)
        region = mask[y:y + bh, x:x + bw]
        if min(bw, bh) >= BLOB_ASPECT * max(bw, bh) and a >= 0.85 * bw * bh:
            out[y:y + bh, x:x + bw] |= region  # an upright square already: nothing to cut off
            continue
        sub = np.zeros((bh + 2, bw + 2), np.uint8)
        cv2.drawContours(sub, [cnt - [x - 1, y - 1]], -1, 1, thickness=cv2.FILLED)
        sub[1:-1, 1:-1] &= (region > 0).astype(np.uint8)
        d = cv2.distanceTransform(sub, cv2.DIST_L2, 3)
        r = 0.55 * float(d.max())
        if r < 2:
            continue
        core = (d < r).astype(np.uint8)  # zero on the core
        recon = (cv2.distanceTransform(core, cv2.DIST_L2, 3) <= r) & (sub > 0)
        out[y:y + bh, x:x + bw][recon[1:-1, 1:-1]] = 255
    return out


def _square_blob(cnt: np.ndarray, min_side: float, max_side: float, *, aspect: float, fill: float) -> DieBlob | None:
    """The contour as a die body if it is one: big enough, side within bounds, nearly square (short side at
    least ``aspect`` of the long one) and filling at least ``fill`` of its rotated rectangle."""
    area = cv2.contourArea(cnt)
    if area < min_side * min_side * 0.6:
        return None
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
    side = (rw + rh) / 2
    if not (min_side <= side <= max_side) or min(rw, rh) < aspect * max(rw, rh) or area < fill * rw * rh:
        return None
    x, y, bw, bh = cv2.boundingRect(cnt)
    return DieBlob((float(cx), float(cy)), float(side), float(ang), (x, y, x + bw, y + bh))


def find_die_blobs(image: np.ndarray, min_side: int = 12, max_side: int | None = None) -> list[DieBlob]:
    """Square blobs that differ from the table around them (see module doc and
    :func:`find_die_blobs_and_contrast`)."""
    return find_die_blobs_and_contrast(image, min_side, max_side)[0]


@dataclass(frozen=True)
class TableContrast:
    """How much each place of the picture differs from the table around it (largest of B, G, R against
    the local median), kept at the blob finder's working scale ``scale`` (input pixels per map pixel)."""

    dist: np.ndarray
    scale: float
    #: Blobs shaped like a die but blank inside (:data:`FACE_MARKING`), in input pixels, those the size rules
    #: dropped too: a die only for a die taught a blank face, and never a place to look for a die by its icon.
    blank: tuple[DieBlob, ...] = ()

    def is_blank(self, blob: DieBlob) -> bool:
        """Whether ``blob`` (one the finder returned) is blank inside."""
        return any(b.box == blob.box for b in self.blank)

    def around(self, x: float, y: float, r: float) -> float:
        """Median difference in the square of half side ``r`` around (x, y), input pixels."""
        h, w = self.dist.shape
        s = self.scale
        x0, x1 = int(max(0, (x - r) / s)), int(min(w, math.ceil((x + r) / s) + 1))
        y0, y1 = int(max(0, (y - r) / s)), int(min(h, math.ceil((y + r) / s) + 1))
        if x1 <= x0 or y1 <= y0:
            return 0.0
        return float(np.median(self.dist[y0:y1, x0:x1]))


def find_die_blobs_and_contrast(image: np.ndarray, min_side: int = 12,
                                max_side: int | None = None) -> tuple[list[DieBlob], TableContrast]:
    """Square blobs that differ from the table around them, and the contrast map they were found in.

    The table colour is a *local* median (uneven light, textured mats, a dark die on a dark mat all need
    a local reference, a single table colour does not do).  The mask is closed (icons and pips inside a
    die), small holes are filled, then every blob is opened with a disc of about half its own inscribed
    radius: that removes what is thinner than a die (tray walls, printed lines and cracks on the mat, a
    road marking a die lies on) without eating the dice.  A blob is a die when its minimum-area rectangle
    is nearly square, well filled, solid in the raw mask and does not run off the picture (a die cut by
    the picture's edge cannot be read)."""
    img = _as_bgr(image)
    h, w = img.shape[:2]
    if max_side is None:
        max_side = int(0.6 * min(h, w))
    # Work on a shrunk copy when the picture is large and the dice are not small: the mask needs only a
    # few pixels across a die's rim, and the cost is in the per-pixel steps.
    f = max(1.0, min(min(h, w) / WORK_SIDE, min_side / MIN_WORK_SIDE))
    if f > 1.05:
        small = cv2.resize(img, (max(1, round(w / f)), max(1, round(h / f))), interpolation=cv2.INTER_AREA)
        fx, fy = w / small.shape[1], h / small.shape[0]
        found, blank, dist = _find_blobs(small, max(4, int(round(min_side / f))), max_side / f)

        def up(b: DieBlob) -> DieBlob:
            x0, y0, x1, y1 = b.box
            return DieBlob((b.center[0] * fx, b.center[1] * fy), b.side * (fx + fy) / 2, b.angle,
                           (int(x0 * fx), int(y0 * fy), int(math.ceil(x1 * fx)), int(math.ceil(y1 * fy))))

        return [up(b) for b in found], TableContrast(dist, (fx + fy) / 2, tuple(up(b) for b in blank))
    found, blank, dist = _find_blobs(img, min_side, max_side)
    return found, TableContrast(dist, 1.0, tuple(blank))


def _find_blobs(img: np.ndarray, min_side: int, max_side: float) -> tuple[list[DieBlob], list[DieBlob], np.ndarray]:
    """The blobs found in ``img`` (blank ones among them), those blank inside (:data:`FACE_MARKING`, also
    those the size rules drop), and the contrast map."""
    h, w = img.shape[:2]
    blur = cv2.GaussianBlur(img, (5, 5), 0)
    diff = cv2.split(cv2.absdiff(blur, _background(blur)))
    dist = cv2.max(cv2.max(diff[0], diff[1]), diff[2])
    thr = max(BLOB_CONTRAST, 3.0 * float(np.median(dist)))
    _, mask = cv2.threshold(dist, thr, 255, cv2.THRESH_BINARY)
    raw = mask
    kc = max(3, min_side // 4) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc)))
    # fill holes smaller than a die (pips, icons, glare), not the inside of a tray wall's outline
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:
        holes = [c for c, hh in zip(contours, hier[0]) if hh[3] >= 0 and cv2.contourArea(c) < 0.5 * max_side ** 2]
        cv2.drawContours(mask, holes, -1, 255, thickness=cv2.FILLED)
    ko = max(3, int(min_side * 0.55)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko)))
    opened = _open_each(mask, min_side)
    # a blob larger than a die (the area outside the tray, a car's shadow) sets a large opening disc
    # and takes a die that touches it away with it: open what is left over once more on its own
    rest = cv2.subtract(mask, cv2.dilate(opened, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))))
    if cv2.countNonZero(rest) >= min_side * min_side * 0.6:
        mask = cv2.max(opened, _open_each(rest, min_side))
    else:
        mask = opened
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[DieBlob] = []
    for cnt in contours:
        blob = _square_blob(cnt, min_side, max_side, aspect=BLOB_ASPECT, fill=BLOB_FILL)
        if blob is None:
            continue
        x, y, x1, y1 = blob.box
        bw, bh = x1 - x, y1 - y
        if x <= EDGE or y <= EDGE or x + bw >= w - EDGE or y + bh >= h - EDGE:
            continue
        # a die differs from the table almost everywhere on it; closed-up line work (a tray corner, a
        # crack pattern) does not
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [cnt - [x, y]], -1, 1, thickness=cv2.FILLED)
        if float((raw[y:y + bh, x:x + bw] > 0)[inside > 0].mean()) < BLOB_SOLID:
            continue
        out.append(blob)
    blank = [b for b in out if face_marking(img, b) < FACE_MARKING]
    if len(out) >= 2:
        # specks of the mat that happen to be square: much smaller than the dice of the same picture
        sides = np.sort([b.side for b in out])
        area = np.cumsum(sides ** 2)
        bulk = float(sides[int(np.searchsorted(area, area[-1] / 2))])
        cut = MIN_SIDE_OF_AREA * bulk
        small = [x for x in sides if x < cut]  # sorted: the smallest first
        if len(small) < 2 or small[-1] > SPECK_SPREAD * small[0]:  # not alike in size: specks, not a set of dice
            out = [b for b in out if b.side >= cut]
        med = float(np.median([b.side for b in out]))
        out = [b for b in out if b.side >= MIN_REL_SIDE * med]
    return out, blank, dist


def face_marking(image: np.ndarray, blob: DieBlob) -> float:
    """How strongly the face of ``blob`` is marked: the spread (95th less 5th percentile, the largest over B, G,
    R, uint8 levels, after a 3x3 blur against pixel noise) of the image inside the disc of radius 0.35 of the
    blob's side around its centre -- inside the die at any turn, away from its rim and its shadow.  A die's face
    carries an icon or pips that stand out from its body; a hole in a tray, a speck or a plain round counter is
    one colour inside (see FACE_MARKING).  The price: a face marked only near its corners (a "2" of two pips at 0.3
    of the side on each axis) shows little of its marks in the disc and may be taken for blank (45 of 108 renders of
    such faces, a review); taught, it is said to be blank and is then read as the blank face.  Tried and not taken
    (2026-12-07): the 1st and 99th percentiles took 9 of the 108 for blank but let back twice as many of the nell
    tray's holes and specks (readings off its dice 50 -> 111); a disc of 0.42 took in a plain die's rim and shading
    (14 of 107 plain dice marked)."""
    img = _as_bgr(image)
    h, w = img.shape[:2]
    cx, cy = blob.center
    r = 0.35 * blob.side
    x0, x1 = max(0, int(cx - r) - 1), min(w, int(math.ceil(cx + r)) + 2)
    y0, y1 = max(0, int(cy - r) - 1), min(h, int(math.ceil(cy + r)) + 2)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return 0.0
    sub = cv2.GaussianBlur(img[y0:y1, x0:x1], (3, 3), 0)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= max(r, 1.0) ** 2
    px = sub[disc].astype(np.float32)
    if not len(px):
        return 0.0
    lo, hi = np.percentile(px, [5, 95], axis=0)
    return float((hi - lo).max())


def icon_blobs(blobs: list[DieBlob], contrast: TableContrast) -> list[DieBlob]:
    """Dice found by their icon alone.  A dark die on a dark mat can differ from the mat by less than
    the mat's own texture, so its body is not found; its printed icon still stands out.  A compact patch
    of strong contrast, about as large as an icon on the dice found in the same picture, away from them and
    from the blank blobs (``contrast.blank``: a tray's screw hole is no die's icon), whose surroundings
    differ from the mat a little (ICON_BODY), is proposed as a die of the same size.
    Only the face library reads these (rotation and shift are searched when matching, so the icon's
    centre and the other dice's size are all that is needed); with no die found otherwise, none is
    proposed."""
    if not blobs:
        return []
    dist, s = contrast.dist, contrast.scale
    side = float(np.median([b.side for b in blobs])) / s
    noise = float(np.median(dist))
    thr = max(BLOB_CONTRAST, 3.0 * noise)
    strong: np.ndarray = (dist >= thr).astype(np.uint8)
    k = max(3, int(side / 4) | 1)
    strong = cv2.morphologyEx(strong, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, st, cen = cv2.connectedComponentsWithStats(strong, connectivity=8)
    h, w = dist.shape
    out: list[DieBlob] = []
    for i in range(1, n):
        x, y, bw, bh, a = st[i]
        cx, cy = cen[i]
        if not (0.35 * side <= max(bw, bh) <= 1.2 * side) or min(bw, bh) < 0.35 * max(bw, bh):
            continue
        if cx - side / 2 < 1 or cy - side / 2 < 1 or cx + side / 2 > w - 1 or cy + side / 2 > h - 1:
            continue
        if any(math.hypot(cx - b.center[0] / s, cy - b.center[1] / s) < 0.8 * (side + b.side / s) / 2
               for b in (*blobs, *contrast.blank)):
            continue
        r = int(0.4 * side)
        win = dist[int(cy) - r:int(cy) + r + 1, int(cx) - r:int(cx) + r + 1]
        body = win[win < thr]
        if body.size < 0.3 * win.size or float(np.median(body)) < max(ICON_BODY, 2.0 * noise):
            continue
        half = side * s / 2
        out.append(DieBlob((float(cx * s), float(cy * s)), float(side * s), 0.0,
                           (int(cx * s - half), int(cy * s - half), int(cx * s + half), int(cy * s + half))))
    return out


def face_patch(image: np.ndarray, blob: DieBlob) -> np.ndarray:
    """The die's face warped upright into a PATCH x PATCH grey patch (float32, zero mean, unit norm)."""
    img = _as_bgr(image)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    half = blob.side * INNER / 2
    a = math.radians(blob.angle)
    ux, uy = math.cos(a), math.sin(a)
    cx, cy = blob.center
    # source corners: top-left, top-right, bottom-left of the inner square in the die's own frame
    src = np.array([
        [cx - half * ux + half * uy, cy - half * uy - half * ux],
        [cx + half * ux + half * uy, cy + half * uy - half * ux],
        [cx - half * ux - half * uy, cy - half * uy + half * ux],
    ], dtype=np.float32)
    dst = np.array([[0, 0], [PATCH, 0], [0, PATCH]], dtype=np.float32)
    m = cv2.getAffineTransform(src, dst)
    patch = cv2.warpAffine(grey, m, (PATCH, PATCH), flags=cv2.INTER_AREA if blob.side * INNER > PATCH
                           else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _normalise(patch)


def face_patches(image: np.ndarray, blob: DieBlob) -> np.ndarray:
    """:func:`face_patch` cut at SHIFTS x SHIFTS offsets and at SCALES of the blob's side: K x PATCH x
    PATCH.  Matching takes the best of them, which absorbs the blob's error in centre and size."""
    img = _as_bgr(image)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    out = []
    cx, cy = blob.center
    for sc in SCALES:
        step = blob.side * INNER * sc / PATCH  # source pixels per patch pixel
        for dy in SHIFTS:
            for dx in SHIFTS:
                x0, y0 = cx + dx * step - PATCH / 2 * step, cy + dy * step - PATCH / 2 * step
                m = np.array([[step, 0, x0], [0, step, y0]], dtype=np.float32)
                p = cv2.warpAffine(grey, m, (PATCH, PATCH), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
                out.append(_normalise(p))
    return np.array(out, dtype=np.float32)


_YY, _XX = np.mgrid[0:PATCH, 0:PATCH]
#: The disc inside a patch: what stays inside the patch at any rotation.
_DISC = ((_XX - (PATCH - 1) / 2) ** 2 + (_YY - (PATCH - 1) / 2) ** 2) <= (PATCH / 2) ** 2


def _disc_vector(p: np.ndarray) -> np.ndarray:
    """The patch inside its inscribed disc, zero mean, unit norm (a centre, turn or size a pixel off is met by
    the shifts, turns and scales tried, ``SHIFTS`` / ``ROT_STEP`` / ``SCALES``, not by blurring)."""
    v: np.ndarray = p[_DISC].astype(np.float32)
    v = v - v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else v


def _normalise(patch: np.ndarray) -> np.ndarray:
    p = patch.astype(np.float32)
    p -= p.mean()
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-6 else p


def reading_order(blobs: list[DieBlob]) -> list[DieBlob]:
    """Dice in reading order: rows from the top (a die starts a new row when its centre is more than
    half a die below the row's first), left to right in each row."""
    rows: list[list[DieBlob]] = []
    for b in sorted(blobs, key=lambda b: b.center[1]):
        if rows and b.center[1] - rows[-1][0].center[1] <= 0.5 * max(b.side, rows[-1][0].side):
            rows[-1].append(b)
        else:
            rows.append([b])
    return [b for row in rows for b in sorted(row, key=lambda b: b.center[0])]


#: A picture taken as a close crop of one die must show markings: at least this fraction of it must differ
#: from the table colour around it by BLOB_CONTRAST (the finder's own die-pixel contrast).  A bare mat, a
#: blank wall or a speck has none or next to none (0-0.9 % on the probe photo's mat); the least among close
#: crops (1-2 dice wide) of the bundled real photos and of rendered skid and FX dice is 3.6 %.
CLOSE_CROP_MARKED = 0.01


def teachable_blobs(image: np.ndarray) -> tuple[list[DieBlob], list[DieBlob]]:
    """The dice of a teaching picture as the finder sees them against the table, in reading order, and those of
    them blank inside (:data:`FACE_MARKING`).  A blank blob beside a marked die is left out of both: a tray's screw
    holes beside the die taught were counted as dice ("3 dice seen where one was expected") and outlined on the
    phone (a review); a die with nothing printed on it is taught on its own."""
    return _teachable(*find_die_blobs_and_contrast(_as_bgr(image)))


def _teachable(blobs: list[DieBlob], contrast: TableContrast) -> tuple[list[DieBlob], list[DieBlob]]:
    blank = [b for b in blobs if contrast.is_blank(b)]
    if len(blank) < len(blobs):
        blobs, blank = [b for b in blobs if not contrast.is_blank(b)], []
    return reading_order(blobs), blank


def _dice_to_teach(img: np.ndarray) -> tuple[list[DieBlob], bool, frozenset[tuple[int, int, int, int]]]:
    """:func:`dice_to_teach`, whether the picture was taken as a close crop of one die (the finder found
    none against a table), and the boxes of the dice that are blank inside (:data:`FACE_MARKING`)."""
    found, contrast = find_die_blobs_and_contrast(img)
    blobs, blank = _teachable(found, contrast)
    if blobs:
        return blobs, False, frozenset(b.box for b in blank)
    h, w = img.shape[:2]
    if min(h, w) < 8:
        raise ValueError(f"image of {w}x{h} pixels is too small to hold a die face")
    if min(h, w) < 0.75 * max(h, w):
        raise ValueError(f"no die found in the {w}x{h} picture, and it is not a close crop of one die; crop it "
                         "to the dice (--box X,Y,W,H) or show the dice on the tray")
    marked = float((contrast.dist >= BLOB_CONTRAST).mean())
    if marked < CLOSE_CROP_MARKED:
        raise ValueError(f"no die in the {w}x{h} picture: nothing in it stands out from the table (a bare "
                         "mat); check that the box (--box X,Y,W,H) or the config's dice_region holds the die, or "
                         "show the die on the tray")
    s = min(h, w)
    return [DieBlob((w / 2, h / 2), float(s), 0.0, (0, 0, w, h))], True, frozenset()


def dice_to_teach(image: np.ndarray) -> list[DieBlob]:
    """The dice of a teaching image in reading order; a close crop of one die (no die found against a
    table, a nearly square picture with markings on it) is that one die.  Raises ``ValueError`` when there
    is neither: a picture too small, not nearly square, or with nothing standing out from the table (the
    finder cannot tell a die that fills the picture from a mat with a car or a banner on it, so a close
    crop with markings is taken; :func:`plan_teaching` warns about it)."""
    return _dice_to_teach(_as_bgr(image))[0]


def _blank_warning(k: int, n: int, at: str, die: str, face: str, others: list[str]) -> str:
    """What teaching a blank die means, said with the teaching: ``others``, the die's other faces taught blank."""
    said = (f"die {k} of {n} (at {at}) taught as {face} is blank inside (nothing printed on it): {face} is taught "
            f"as a blank face, so anything blank the size of a die (a tray's screw holes too) will be read as {die} "
            f"{face}")
    if others:
        said += (f"; but {', '.join(others)} {'is' if len(others) == 1 else 'are'} taught blank too, and blank faces "
                 "look alike: a blank die then reads as none of them (\"?\"), which holds the roll; take one back")
    return said + "; if the die has an icon or pips, it was not seen: teach it again closer or in better light"


@dataclass(frozen=True)
class TeachingPlan:
    """What one image would add: (face, patch) per die in reading order, and a warning per die whose
    example disagrees with what the library already holds."""

    examples: list[tuple[str, np.ndarray]]
    boxes: list[tuple[int, int, int, int]]
    warnings: list[str]
    #: Per example, whether its die is blank inside (:data:`FACE_MARKING`): pass to :meth:`FaceLibrary.add`.
    blank: tuple[bool, ...] = ()


def plan_teaching(library: "FaceLibrary", die: str, faces: list[str], image: np.ndarray, *,
                  origin: tuple[int, int] = (0, 0)) -> TeachingPlan:
    """Check a teaching image before anything is added.  ``faces``: one face for an image of one die, or
    one face per die in reading order.  Raises ``ValueError`` (nothing added) when the image shows more
    dice than faces were named (a mixed roll must not be taught as one face) or fewer, or no die at all
    (:func:`dice_to_teach`).  A picture taken whole as a close crop of one die is warned about.  ``origin``:
    where ``image`` was cut from a larger picture (its top-left corner there): the warnings say where each die
    lies in that picture."""
    die = _name(die, "die")
    faces = [_name(f, "face") for f in faces]
    img = _as_bgr(image)
    blobs, close_crop, blank_boxes = _dice_to_teach(img)
    if len(blobs) != len(faces):
        if len(faces) == 1 and len(blobs) > MOST_DICE_TAUGHT:
            raise ValueError(f"{len(blobs)} things that may be dice seen where one die was expected: more than anyone "
                             "teaches at once (a whole table frame? tokens, tags and print look like dice); cut the "
                             "picture closer to the die with --box X,Y,WIDTH,HEIGHT and teach one die at a time")
        if len(faces) == 1:
            # where each lies, and --box first: the hint "--faces SPIN,SPIN,SPIN,SPIN" alone, for a photo of one die
            # beside a USB hub and its cables, would have taught the hub as SPIN (a maker's audit)
            at = "; ".join(f"{b.box[0] + origin[0]},{b.box[1] + origin[1]} {b.box[2] - b.box[0]}x{b.box[3] - b.box[1]}"
                           for b in blobs)
            raise ValueError(f"{len(blobs)} dice seen where one was expected (at {at}); teach one die at a time: cut "
                             "the picture to the die with --box X,Y,WIDTH,HEIGHT; or, if all of them are dice, name "
                             "each die's face in reading order (rows from the top, left to right), e.g. --faces "
                             + ",".join([faces[0]] * len(blobs)))
        raise ValueError(f"{len(blobs)} dice seen but {len(faces)} faces named; name one face per die, in reading "
                         "order (rows from the top, left to right)")
    examples = [(f, face_patch(img, b)) for f, b in zip(faces, blobs)]
    warnings = []
    # the die's faces taught blank, before and in this picture (two blank faces cannot be told apart)
    blank_taught = set(library.blank_faces(die)) | {f for f, b in zip(faces, blobs) if b.box in blank_boxes}
    for k, ((f, p), b) in enumerate(zip(examples, blobs), start=1):
        at = f"{int(b.center[0]) + origin[0]},{int(b.center[1]) + origin[1]}"
        why = library.agreement(die, f, p)
        if why is not None:
            warnings.append(f"die {k} of {len(blobs)} (at {at}) taught as {f}: {why}")
        if b.box in blank_boxes:
            warnings.append(_blank_warning(k, len(blobs), at, die, f, sorted(blank_taught - {f})))
    if close_crop:
        h, w = img.shape[:2]
        warnings.append(f"no die found against the table in the {w}x{h} picture, so all of it was taught as one "
                        f"die showing {faces[0]}; if the die does not fill it (a box on the mat, a car or a "
                        "banner), that example is wrong")
    return TeachingPlan(examples, [b.box for b in blobs], warnings, tuple(b.box in blank_boxes for b in blobs))


@dataclass(frozen=True)
class FaceMatch:
    face: str | None
    score: float
    margin: float
    blob: DieBlob


class NewerLibraryError(ValueError):
    """A face library written by a newer Pitboard: not damaged; this one cannot read it."""


class MendableLibraryError(ValueError):
    """A face library whose only fault is a face with no examples (``die``'s ``face``, the first such): dropping
    it loses no example, and the next teaching does (:func:`mended`).  The caller, who knows which command and
    config teach this library, says what to run."""

    def __init__(self, die: str, face: str) -> None:
        super().__init__(f"die {die!r} face {face!r} has no examples (an empty list); {MENDED_BY_TEACHING}")
        self.die, self.face = die, face


#: What the next teaching does to such a library (words for the messages).
MENDED_BY_TEACHING = "the next teaching mends the file: it drops the faces with no examples and keeps every example"


def mended(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``data`` (a face library's JSON) without its faces that have no examples and its teaching records that
    are not [die, face, count >= 1] lists (no example is lost: the first hold none, the second only say what an
    undo takes back), and what was dropped, in words.  Anything else wrong is left for
    :meth:`FaceLibrary.from_dict` to refuse."""
    out = dict(data)
    notes: list[str] = []
    dice = data.get("dice")
    if isinstance(dice, dict):
        out["dice"] = {}
        for die, faces in dice.items():
            if isinstance(faces, dict):
                kept = {}
                for face, pats in faces.items():
                    if isinstance(pats, list) and not pats:
                        notes.append(f"dropped die {die!r} face {face!r}, which had no examples")
                    else:
                        kept[face] = pats
                if not kept:
                    continue
                faces = kept
            out["dice"][die] = faces
    raw_t = data.get("teachings")
    if isinstance(raw_t, list):
        out["teachings"] = []
        for i, t in enumerate(raw_t):
            if teaching_record(t) is None:
                shown = json.dumps(t, allow_nan=True)
                notes.append(f"dropped teaching record {i} ({shown[:60]}{'...' if len(shown) > 60 else ''}), which "
                             "was not a list of [die, face, count of 1 or more]; only an undo reads these records")
            else:
                out["teachings"].append(t)
        _drop_stale_records(out, notes)
    return out, notes


def _drop_stale_records(out: dict[str, Any], notes: list[str]) -> None:
    """Drop the teaching records of ``out`` that no undo could follow: taken back last to first, a record asking
    more examples of a face than are left of it (a face deleted by hand, a count edited to 99) stopped every
    undo at it for good, "no longer holds the 1 example(s) it added", whatever was taught after."""
    dice = out.get("dice")
    if not isinstance(dice, dict):
        return
    left = {(d, f): len(p) for d, faces in dice.items() if isinstance(faces, dict)
            for f, p in faces.items() if isinstance(p, list)}
    kept: list[Any] = []
    for i in range(len(out["teachings"]) - 1, -1, -1):
        t = out["teachings"][i]
        asks = _record_asks(teaching_record(t) or [])
        short = next(((d, f, n) for (d, f), n in asks.items() if left.get((d, f), 0) < n), None)
        if short is None:
            for key, n in asks.items():
                left[key] -= n
            kept.append(t)
        else:
            notes.append(f"dropped teaching record {i}: an undo would take back {short[2]} example(s) of {short[0]} "
                         f"{short[1]} where {left.get(short[:2], 0)} are left (a face deleted or a count edited by "
                         "hand?); no example was removed, and undo now goes on past it")
    out["teachings"] = kept[::-1]


def _record_asks(record: list[tuple[str, str, int]]) -> dict[tuple[str, str], int]:
    """How many examples of each (die, face) a teaching record takes back, a face named twice in it added up."""
    asks: dict[tuple[str, str], int] = {}
    for d, f, n in record:
        asks[(d, f)] = asks.get((d, f), 0) + n
    return asks


def teaching_record(t: object) -> list[tuple[str, str, int]] | None:
    """A teaching record of a face library's JSON (a list of [die, face, count]: what one teaching added), or
    None when it is not one (a count below 1, a text where a list belongs, an empty record)."""
    if not isinstance(t, list) or not t:
        return None
    out = []
    for item in t:
        if not (isinstance(item, list) and len(item) == 3):
            return None
        d, f, n = item
        if not (isinstance(d, str) and isinstance(f, str) and isinstance(n, int) and not isinstance(n, bool)
                and n >= 1):
            return None
        out.append((d, f, n))
    return out


@dataclass
class FaceLibrary:
    """Taught faces: ``examples[die][face]`` is a list of normalised patches (see module doc)."""

    examples: dict[str, dict[str, list[np.ndarray]]] = field(default_factory=dict)
    #: What each teaching added, newest last: ``[(die, face, count), ...]`` per teaching (for undo).
    teachings: list[list[tuple[str, str, int]]] = field(default_factory=list)
    #: ``blank[die][face]``: the numbers of the examples taught from a die blank inside (:data:`FACE_MARKING`).
    blank: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    #: ``_bank`` per die: (the examples' key when it was made, the bank).
    _cache: dict[str, tuple[tuple[str, tuple[tuple[str, int, tuple[int, ...]], ...]], dict[str, np.ndarray]]] = field(
        default_factory=dict, repr=False, compare=False)

    def dice(self) -> list[str]:
        return sorted(self.examples)

    def faces(self, die: str) -> list[str]:
        return sorted(self.examples.get(die, {}))

    def teach(self, die: str, face: str, image: np.ndarray) -> int:
        """Add examples of ``face`` of ``die`` from an image showing one or more dice with that face up
        (or a crop of one die).  Returns how many examples were added.  (The owner's command checks
        first, see :func:`plan_teaching`; this adds without asking.)"""
        die, face = _name(die, "die"), _name(face, "face")
        img = _as_bgr(image)
        blobs, _, blank = _dice_to_teach(img)
        patches = [face_patch(img, b) for b in blobs]
        self.add(die, [(face, p) for p in patches], blank=tuple(b.box in blank for b in blobs))
        return len(patches)

    def add(self, die: str, examples: list[tuple[str, np.ndarray]], *, blank: Sequence[bool] = ()) -> None:
        """Add (face, patch) examples of ``die`` as one teaching (what :meth:`undo` takes back).  ``blank``: per
        example, whether it was taught from a die blank inside (:attr:`TeachingPlan.blank`; none when empty)."""
        die = _name(die, "die")
        if blank and len(blank) != len(examples):
            raise ValueError(f"{len(blank)} blank marks for {len(examples)} examples: one per example")
        counts: dict[str, int] = {}
        for k, (face, patch) in enumerate(examples):
            face = _name(face, "face")
            pats = self.examples.setdefault(die, {}).setdefault(face, [])
            pats.append(patch)
            if blank and blank[k]:
                self.blank.setdefault(die, {}).setdefault(face, set()).add(len(pats) - 1)
            counts[face] = counts.get(face, 0) + 1
        if counts:
            self.teachings.append([(die, f, n) for f, n in counts.items()])
            del self.teachings[:-MAX_UNDO]

    def undo(self, die: str | None = None) -> list[tuple[str, str, int]]:
        """Take back the last teaching (``die``: the last teaching of that die; no later teaching touched its
        faces, so its examples are still the last of each face's): its examples are removed (a face left with
        none is removed, a die left with no face too).  Returns what was removed; raises ``ValueError`` when
        there is nothing to undo or the library no longer holds what that teaching added."""
        if not self.teachings:
            raise ValueError("nothing to undo: no teaching is recorded in this face library")
        at = len(self.teachings) - 1
        if die is not None:
            mine = [k for k, t in enumerate(self.teachings) if any(d == die for d, _, _ in t)]
            if not mine:
                taught = sorted({d for t in self.teachings for d, _, _ in t})
                raise ValueError(f"nothing to undo for {die!r}: no teaching of it is recorded in this face library "
                                 f"({did_you_mean(die, taught)}teachings recorded: {', '.join(taught)})")
            at = mine[-1]
        last = self.teachings[at]
        which = "the last teaching" if die is None else f"the last teaching of {die}"
        if die is not None and any(d != die for d, _, _ in last):
            others = ", ".join(sorted({d for d, _, _ in last if d != die}))
            raise ValueError(f"cannot undo {which}: its record also holds {others} (a record edited by hand?); "
                             "undo without --die, or teach again; nothing was undone")
        for name, face, n in last:
            if n < 1:  # a hand-edited or damaged file: "removed -3 example(s)" took nothing back and said it had
                raise ValueError(f"cannot undo {which}: it says it added {n} example(s) of {name} {face}; "
                                 "its record in the library is damaged, and nothing was undone")
        for (name, face), n in _record_asks(last).items():  # a face named twice in a record: both its counts
            if len(self.examples.get(name, {}).get(face, [])) < n:
                raise ValueError(f"cannot undo {which}: {name} {face} no longer holds the {n} "
                                 "example(s) it added")
        for name, face, n in last:
            pats = self.examples[name][face]
            del pats[len(pats) - n:]
            if not pats:
                del self.examples[name][face]
            if not self.examples[name]:
                del self.examples[name]
        self._prune_blank()
        del self.teachings[at]
        return last

    def blank_faces(self, die: str) -> list[str]:
        """The faces of ``die`` taught from a die blank inside (nothing printed on it)."""
        faces = self.examples.get(die, {})
        return sorted(f for f, idx in self.blank.get(die, {}).items() if any(i < len(faces.get(f, [])) for i in idx))

    def reads_blank(self, die: str) -> bool:
        """Whether a face of ``die`` was taught from a die blank inside: then a blob blank inside is this die
        showing that face (unsure when two faces are blank); otherwise it is no die (a tray's screw hole)."""
        return bool(self.blank_faces(die))

    def _prune_blank(self) -> None:
        """Forget the blank marks of examples no longer held."""
        for die in list(self.blank):
            for face in list(self.blank[die]):
                held = len(self.examples.get(die, {}).get(face, []))
                self.blank[die][face] = {i for i in self.blank[die][face] if i < held}
                if not self.blank[die][face]:
                    del self.blank[die][face]
            if not self.blank[die]:
                del self.blank[die]

    def agreement(self, die: str, face: str, patch: np.ndarray) -> str | None:
        """Why a new example of ``face`` disagrees with what ``die`` already holds (None: it agrees, or
        there is nothing to compare with): it looks more like another taught face, or unlike the face's
        own examples."""
        faces = self.examples.get(die)
        if not faces or not any(faces.values()):
            return None
        q = _disc_vector(patch)[None]
        best = {f: float((q @ vecs.T).max()) for f, vecs in self._bank(die).items() if len(vecs)}
        own = best.get(face)
        others = sorted(((v, f) for f, v in best.items() if f != face), reverse=True)
        if others and others[0][0] >= MIN_SCORE and (own is None or others[0][0] - own >= MIN_MARGIN):
            return (f"it looks like {die} {others[0][1]} (match {others[0][0]:.2f}"
                    + (f", {face} {own:.2f})" if own is not None else ")"))
        if own is not None and own < MIN_SCORE:
            return f"it matches the {len(faces[face])} taught example(s) of {face} poorly ({own:.2f} < {MIN_SCORE})"
        return None

    def forget(self, die: str, face: str | None = None) -> None:
        if die not in self.examples:
            raise KeyError(f"no die called {die!r} in the face library")
        if face is None:
            del self.examples[die]
        else:
            self.examples[die].pop(face, None)
            if not self.examples[die]:
                del self.examples[die]
        self._prune_blank()

    def _bank(self, die: str) -> dict[str, np.ndarray]:
        """Every taught example of ``die`` turned through a full circle in ROT_STEP steps, as disc-masked,
        normalised vectors (cached until the library changes).  An example taught from a blank die is left
        out (its patch is the body's noise, stretched: nothing to match a marked face against; a blank blob
        is read by :meth:`read` without it), so a face taught only blank has none."""
        marks = self.blank.get(die, {})
        key = (die, tuple((f, len(p), tuple(sorted(marks.get(f, ())))) for f, p in sorted(self.examples[die].items())))
        hit = self._cache.get(die)
        if hit is not None and hit[0] == key:
            return hit[1]
        bank: dict[str, np.ndarray] = {}
        c = (PATCH - 1) / 2.0
        for face, pats in self.examples[die].items():
            vecs = []
            for k, ex in enumerate(pats):
                if k in marks.get(face, ()):
                    continue
                for a in np.arange(0.0, 360.0, ROT_STEP):
                    m = cv2.getRotationMatrix2D((c, c), float(a), 1.0)
                    r = cv2.warpAffine(ex.astype(np.float32), m, (PATCH, PATCH), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)
                    vecs.append(_disc_vector(r))
            bank[face] = (np.array(vecs, dtype=np.float32) if vecs
                          else np.zeros((0, int(_DISC.sum())), np.float32))
        self._cache[die] = (key, bank)
        return bank

    def match(self, die: str, patch: np.ndarray, blob: DieBlob) -> FaceMatch:
        """Best face for one die, with its score and its lead over the other faces.  ``patch`` is the die's
        face as :func:`face_patch` cuts it, or (what :meth:`read` passes) a stack of such patches cut at
        a few shifts and scales around the blob (:func:`face_patches`): the blob's centre and size are
        only approximate (a shadow or the die's side face can be part of the blob)."""
        faces = self.examples.get(die)
        if not faces:
            raise KeyError(f"the face library has no die called {die!r}; teach it first")
        empty = sorted(f for f, pats in faces.items() if not pats)
        if empty:
            raise ValueError(f"die {die!r} face {empty[0]!r} has no examples; teach it again or remove it")
        cands = patch[None] if patch.ndim == 2 else patch
        q = np.array([_disc_vector(p) for p in cands], dtype=np.float32)
        best = {face: float((q @ vecs.T).max()) for face, vecs in self._bank(die).items() if len(vecs)}
        if not best:  # every face taught blank: a marked die is none of them
            return FaceMatch(None, 0.0, 0.0, blob)
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        top_face, top = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else -1.0
        margin = top - second
        ok = top >= MIN_SCORE and (len(ranked) == 1 or margin >= MIN_MARGIN)
        return FaceMatch(top_face if ok else None, top, margin, blob)

    def read(self, image: np.ndarray, die: str) -> list[FaceMatch]:
        """Every die found in ``image``, matched against the taught faces of ``die``."""
        if die not in self.examples:
            raise KeyError(f"the face library has no die called {die!r}; teach it first")
        img = _as_bgr(image)
        blobs, contrast = find_die_blobs_and_contrast(img)
        blank_faces = self.blank_faces(die)
        if not blank_faces:
            # a blob blank inside is no die of this one: a tray's screw hole read as SPIN with only SPIN taught,
            # or as a die that cannot be read (holding the roll), before (an outside audit of the nell tray)
            blobs = [b for b in blobs if not contrast.is_blank(b)]
        blank_face = blank_faces[0] if len(blank_faces) == 1 else None  # two blank faces cannot be told apart
        found = [FaceMatch(blank_face, 1.0, 1.0 if blank_face else 0.0, b) if contrast.is_blank(b)
                 else self.match(die, face_patches(img, b), b) for b in blobs]
        # a die proposed by its icon alone is one only when a taught face is read on it: mottled felt gives
        # icon-sized patches too, and each, reported as a die that cannot be read, held the roll (an outside
        # audit: two flat skid dice on a plain tray, told "camera can't read 2 dice" and never taken)
        guessed = [self.match(die, face_patches(img, b), b) for b in icon_blobs(blobs, contrast)]
        return found + [m for m in guessed if m.face is not None]

    # -- (de)serialisation ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        dice: dict[str, dict[str, list[str]]] = {}
        for die, faces in self.examples.items():
            dice[die] = {}
            for face, pats in faces.items():
                dice[die][face] = [base64.b64encode(_to_bytes(p)).decode("ascii") for p in pats]
        out: dict[str, Any] = {"format": "pitboard-faces", "version": FORMAT_VERSION, "patch": PATCH, "dice": dice,
                               "teachings": [[[d, f, n] for d, f, n in t] for t in self.teachings]}
        held = {d: {f: sorted(i for i in idx if i < len(self.examples.get(d, {}).get(f, []))) for f, idx in faces.items()}
                for d, faces in self.blank.items()}
        held = {d: {f: idx for f, idx in faces.items() if idx} for d, faces in held.items()}
        held = {d: faces for d, faces in held.items() if faces}
        if held:  # absent when nothing was taught blank: a file an older Pitboard reads the same
            out["blank"] = held
        return out

    @classmethod
    def from_dict(cls, data: object) -> "FaceLibrary":
        """Inverse of :meth:`to_dict`.  Raises ``ValueError`` saying what is wrong."""
        if not isinstance(data, dict) or data.get("format") != "pitboard-faces":
            raise ValueError("not a Pitboard face library (missing \"format\": \"pitboard-faces\")")
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
            raise NewerLibraryError(f"face library version {version} was written by a newer Pitboard "
                                    f"(this one reads version {FORMAT_VERSION})")
        if version != FORMAT_VERSION:
            raise ValueError(f"face library version {version!r} is not supported "
                             f"(this Pitboard reads version {FORMAT_VERSION})")
        if data.get("patch") != PATCH:
            raise ValueError(f"face library patch size {data.get('patch')!r} does not match {PATCH}")
        dice = data.get("dice")
        if not isinstance(dice, dict):
            raise ValueError("face library has no \"dice\" table")
        lib = cls()
        empty: list[tuple[str, str]] = []  # said once the rest of the file is known to be sound
        for die, faces in dice.items():
            if not isinstance(faces, dict):
                raise ValueError(f"die {die!r}: faces must be a table of face name -> examples")
            for face, pats in faces.items():
                if not isinstance(pats, list):
                    raise ValueError(f"die {die!r} face {face!r}: examples must be a list")
                if not pats:
                    empty.append((str(die), str(face)))
                    continue
                out = []
                for i, s in enumerate(pats):
                    try:
                        raw = base64.b64decode(s, validate=True)
                    except (ValueError, TypeError) as exc:
                        raise ValueError(f"die {die!r} face {face!r} example {i}: not base64") from exc
                    if len(raw) != PATCH * PATCH:
                        raise ValueError(f"die {die!r} face {face!r} example {i}: wrong size")
                    out.append(_normalise(np.frombuffer(raw, dtype=np.uint8).reshape(PATCH, PATCH)))
                lib.examples.setdefault(str(die), {})[str(face)] = out
        lib.blank = _blank_marks(data.get("blank", {}), lib.examples)
        raw_t = data.get("teachings", [])
        if not isinstance(raw_t, list):
            raise ValueError("\"teachings\" must be a list of teachings")
        for t in raw_t:
            record = teaching_record(t)
            if record is not None:  # only an undo reads them; the next teaching drops a bad one and says so
                lib.teachings.append(record)
        if empty:
            die, face = empty[0]
            raise MendableLibraryError(die, face)
        return lib


def _blank_marks(raw: object, examples: dict[str, dict[str, list[np.ndarray]]]) -> dict[str, dict[str, set[int]]]:
    """A library file's ``"blank"`` table (die -> face -> the numbers of its examples taught from a die blank
    inside), checked against the examples read.  Raises ``ValueError`` naming what is wrong."""
    what = "\"blank\" must be a table of die -> face -> example numbers (the examples taught from a blank die)"
    if not isinstance(raw, dict):
        raise ValueError(what)
    out: dict[str, dict[str, set[int]]] = {}
    for die, faces in raw.items():
        if not isinstance(faces, dict):
            raise ValueError(what)
        for face, idx in faces.items():
            if not isinstance(idx, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in idx):
                raise ValueError(f"{what}; die {die!r} face {face!r} has {json.dumps(idx)[:40]}")
            # a mark of an example the file does not hold (a face emptied, examples cut by hand) marks nothing
            held = len(examples.get(str(die), {}).get(str(face), []))
            kept = {i for i in idx if 0 <= i < held}
            if kept:
                out.setdefault(str(die), {})[str(face)] = kept
    return out


def _to_bytes(p: np.ndarray) -> bytes:
    """Store a normalised patch as 8-bit grey (its scale and offset are irrelevant after normalising)."""
    lo, hi = float(p.min()), float(p.max())
    q = np.zeros_like(p) if hi - lo < 1e-9 else (p - lo) / (hi - lo) * 255.0
    return np.clip(np.rint(q), 0, 255).astype(np.uint8).tobytes()


def did_you_mean(name: str, names: Sequence[str]) -> str:
    """"did you mean X? " for the one of ``names`` ``name`` was likely meant as (the same but for case and spaces
    around it, else the closest), "" when none is near."""
    import difflib

    near = [n for n in names if n.lower() == name.strip().lower()] or difflib.get_close_matches(name, list(names), n=1)
    return f"did you mean {near[0]}? " if near else ""


def _name(s: str, what: str) -> str:
    if not isinstance(s, str) or not s.strip():
        raise ValueError(f"{what} name must be a non-empty string")
    return s.strip()
