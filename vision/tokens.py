"""Hazard tokens: how many lie in each player's token zone, reported only when the zone is still.

How a zone is read (each step a pure function of the frame and what was learned at set-up):

1. **White balance from the corner tags.**  The four corner tags are black ink on white paper; the
   brightest pixels of each tag square are that paper.  Every zone is divided by the paper's colour
   (interpolated between the corners), so warm or cool light no longer moves the token colour.
2. **Token colour and bare mat, learned.**  ``TokenLook.colour`` is the token's chromaticity (r, g of
   normalised RGB after white balance) with its spread, taught from a frame with tokens in a zone
   (``pitboard teach tokens``; a golden default until then).  ``TokenLook.mats`` holds each zone's bare
   mat, learned from the calibration frame (or the teach frame's empty zones).  A pixel is token when
   its colour is near the token colour *and* not what the bare mat shows there, so a tan, wooden or
   printed mat is never mistaken for tokens and a token is never lost for being close to a fixed bound.
   A rim pixel (a blend of token and mat) is token when its colour is nearer the token's than the mat's,
   so blur and the camera's chroma subsampling do not grow the tokens; the size a token shows in this
   camera's mask is learned when teaching (``TokenLook.seen_diameter_mm``).  The margin of a zone that
   runs off the mat is ignored.
3. **Covered or unclear.**  Pixels that are neither mat nor token, in patches bigger than a fingertip
   that reach into the zone (a hand, an arm, a sleeve), make the zone "cannot count" (``None``), judged
   against the learned mat and not by a fixed skin colour: per pixel, and by the chroma averaged over
   7 x 7 mm (a dim hand on a dark mat differs little per pixel but everywhere).  ``TokenLook.hand_test``
   (``[tokens] hand_test`` in the table config) turns the test off.  A frame without colour (a grey
   camera mode) is "cannot count" too, never 0.
4. **Counting discs, not blobs.**  Tokens that touch or rest on each other merge into one blob.  The
   blob is explained by discs of one token's size, placed greedily where a disc fits inside the blob and
   covers the most of it not yet explained; a token resting on another leaves a partly visible disc that
   still adds at least ~40 % of a token, so it is counted.  A token lying wholly inside the outline of
   the ones under it adds nothing to the blob: it is seen by its rim, a circle inside the pile across
   which the brightness falls outward (the token's edge, its shadow on the token below), looked for at
   ``RIM_MM_PER_PX`` where the camera shows more than the zone view keeps.  A circle whose rim is seen on
   ``RIM_SEEN`` of its length is a token (and a disc of the fit whose rim is seen stays, even where
   others cover its area); one seen on less but on ``RIM_DOUBT`` or more leaves the zone ``None`` rather
   than a count that may be one short.  No token lies over the mat seen between touching tokens.  Two
   overlapping discs that one disc explains as well are one token (the greedy fit can straddle a token
   ringed by others, at either end of the slot it sits in); a disc the others explain is dropped only if it leaves no more
   than a sliver of the blob, judged pixel by pixel (the thin crescent of a token under another is
   not a sliver), and the zone is ``None`` when that cannot be told (``DROP_LOST``, ``DROP_DOUBT``).  A
   blob the discs do not explain (a token cut by something, a shape no pile of tokens makes) makes the
   zone ``None``.  A disc counts for the zone holding its centre; a centre on the zone's edge makes the
   zone ``None``.

Stillness lives in :class:`TokenCounter`, a small stateful object fed frames: it compares each zone
with the previous frame and only counts a zone after it has been still for ``still_frames`` frames.
No clocks: "still for N frames" is the camera's frame rate's business.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.calibration import Calibration, Zone

#: White paper maps to this grey level after white balance.
WHITE_LEVEL = 200.0
#: A paper white channel at or above this 8-bit level is taken as clipped (``_unclip``).
CLIPPED = 250.0
#: A patch of the zone whose chroma, averaged over 7 x 7 mm, is this far from the learned mat is foreign.
FOREIGN_CHROMA = 0.035
#: Texture: a patch of a learned mat whose brightness varies over 7 x 7 mm by at least this share of its
#: mean (std / mean of the channel sum) has a grain the camera sees, and the same patch showing less than
#: ``TEXTURE_LOST`` of that variation is covered by something smooth -- a hand, a sleeve -- even when its
#: colour and brightness are the mat's (skin on a tan or desert mat).  A grain is a statistic of the
#: patch, not a pixel-by-pixel match, so a mat nudged by a few millimetres keeps it.  Set from the noise
#: (sensor noise alone gives ~0.01 after the zone view's blur), not tuned: on the table bench's tuning
#: seeds (11, 5) every condition's counts stayed the same, and a hand over a zone of a tan mat answered
#: "cannot count" or the exact number in 40 of 40 zones instead of 38 (two counted short: 5 read 0).
TEXTURE_MIN = 0.02
TEXTURE_LOST = 0.4
#: Millimetres per pixel of the rectified zones, and the border around a zone that is looked at (a
#: token whose centre is inside the zone is then seen whole).
ZONE_MM_PER_PX = 1.0
#: A token's diameter in the colour mask over the one that touching tokens' area gives per token
#: (``teach_look``, when no token lies alone).
TOUCHING_AREA_D = 0.975
#: How far that size may stray from ``[tokens] diameter_mm`` and still be taken as agreeing with it.
AREA_AGREES = 0.10
ZONE_MARGIN_MM = 14.0
#: Millimetres per pixel at which the rims of tokens lying on others are looked for: a rim is a line
#: about a millimetre wide and a 1280x720 camera sees the mat at ~1.6 px per mm (a rim test on the
#: zone view itself missed more hidden tokens and saw more rims that are not there).
RIM_MM_PER_PX = 0.5
#: Across a rim the brightness falls outward by at least this share of the tokens' brightness per
#: ``RIM_MM_PER_PX``.  This and the two shares below were chosen on the table bench's tuning seeds (11
#: and 5, every condition): the most stacked tokens found with no token made up in any pile (0.04 made
#: one up on a printed mat, 0.06 missed two stacked ones).
RIM_STEP = 0.05
#: A circle with a rim along this share of it is a token; along RIM_DOUBT or more (but less than
#: RIM_SEEN), the pile cannot be counted: hidden tokens and gaps between touching ones both show such
#: rims, and a lower RIM_SEEN made up tokens, a higher RIM_DOUBT missed them.
RIM_SEEN = 0.4
RIM_DOUBT = 0.35
#: Two discs of the fit less than a radius apart are one token when one disc near their middle leaves
#: less than this share of a token's area of the blob unexplained that the two covered.  On the tuning
#: seeds (11, 5) a token ringed by others, straddled by two discs, lost 0.08-0.11 and two stacked tokens
#: 0.18-0.34.  Discs one to two radii apart are held to DROP_LOST (on the tuning seeds such pairs lost
#: 0.11-0.30, none one token; a slot's two discs, 1.9 radii apart, 0.013 or less, and nothing with the
#: rims seen).  DROP_LOST is a bar without a doubt band: a far pair losing more stays two discs, as before.
MERGE_LOST = 0.15
#: A disc the others explain is dropped when it leaves less than DROP_LOST of a token unexplained, pixel
#: by pixel; up to DROP_DOUBT the pile cannot be counted.  On the tuning seeds the discs rightly dropped
#: left 0-0.076, and 0.132 and 0.164 twice; a token lying under another, showing only a thin crescent,
#: 0.132: the two overlap, so such a pile is "cannot count".
DROP_LOST = 0.1
DROP_DOUBT = 0.2


class TokenLookError(ValueError):
    """Teaching the token look failed; the message says what the frame shows and what to do."""


@dataclass(frozen=True)
class TokenColour:
    """A token's colour after white balance: chromaticity mean (r, g), its covariance (rr, rg, gg) and
    its lightness (channel sum / 3 over white paper's level)."""

    r: float = 0.50
    g: float = 0.43
    cov: tuple[float, float, float] = (0.0016, 0.0, 0.0016)
    lightness: float = 0.85

    def to_dict(self) -> dict[str, Any]:
        return {"r": self.r, "g": self.g, "cov": list(self.cov), "lightness": self.lightness}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "TokenColour":
        c = [float(v) for v in d["cov"]]
        if len(c) != 3:
            raise ValueError("cov must have three numbers (rr, rg, gg)")
        return TokenColour(float(d["r"]), float(d["g"]), (c[0], c[1], c[2]), float(d["lightness"]))


@dataclass(frozen=True)
class TokenLook:
    """What a hazard token and the bare mat look like to this camera.

    ``colour``: the token colour (the golden default until taught); ``diameter_mm``: one round token;
    ``mats``: zone name -> the bare mat of that zone as a white-balanced BGR image (uint8, white paper =
    ``WHITE_LEVEL``) at ``ZONE_MM_PER_PX`` covering the zone and ``ZONE_MARGIN_MM`` around it;
    ``hand_test``: refuse a zone with a hand (or anything else big and foreign) in it.
    ``hue_min``..``val_min`` only keep loose tokens out of the template search (HSV, OpenCV scale)."""

    hue_min: int = 20
    hue_max: int = 38
    sat_min: int = 150
    val_min: int = 90
    diameter_mm: float = 20.0
    colour: TokenColour = TokenColour()
    mats: Mapping[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    hand_test: bool = True
    taught: bool = False
    corner_mm: float = 50.0
    seen_diameter_mm: float | None = None  # as this camera's colour mask shows a token (learned by teaching)
    #: how the teaching that just ran measured ``seen_diameter_mm``: "alone" (tokens lying alone), "area"
    #: (none lay alone: the tokens' area over their count), "area agrees" (that area agrees with
    #: ``diameter_mm``, which stands), "" (not measured); not saved
    size_source: str = field(default="", compare=False)

    @property
    def mask_diameter_mm(self) -> float:
        """A token's diameter in the token mask: the taught one (blur and the camera's chroma subsampling
        widen or narrow what the colour test sees), else the printed ``diameter_mm``."""
        return self.seen_diameter_mm if self.seen_diameter_mm is not None else self.diameter_mm

    @property
    def area_mm2(self) -> float:
        return math.pi * (self.mask_diameter_mm / 2) ** 2


# --------------------------------------------------------------------------------------------------
# Geometry


def rectify_zone(image: np.ndarray, calibration: Calibration, zone: Zone, mm_per_px: float = 1.0,
                 margin_mm: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Top-down crop of a zone (and ``margin_mm`` around it): (image, mask of the zone polygon)."""
    import cv2

    x0, y0, w, h, zone_mask = _zone_grid(zone, mm_per_px, margin_mm)
    if calibration.lens.is_identity():
        shift = np.array([[1 / mm_per_px, 0, -x0 / mm_per_px], [0, 1 / mm_per_px, -y0 / mm_per_px], [0, 0, 1]])
        m = shift @ calibration.px_to_mm
        crop = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:  # a wide lens bends the zone: follow it pixel by pixel (the maps are cached per zone)
        crop = calibration.warp_to_mm(image, mm_per_px, (w, h), (x0, y0))
    return crop, zone_mask.copy()


_GRID_CACHE: dict[tuple[Zone, float, float], tuple[float, float, int, int, np.ndarray]] = {}


def _zone_grid(zone: Zone, mm_per_px: float, margin_mm: float) -> tuple[float, float, int, int, np.ndarray]:
    """(x0, y0 mm, width, height px, mask of the zone polygon) of ``rectify_zone``'s crop: the same in every
    frame (cached; callers get a copy of the mask)."""
    import cv2

    key = (zone, float(mm_per_px), float(margin_mm))
    hit = _GRID_CACHE.get(key)
    if hit is not None:
        return hit
    poly = np.array(zone.polygon, dtype=np.float64)
    x0, y0 = poly.min(axis=0) - margin_mm
    x1, y1 = poly.max(axis=0) + margin_mm
    w = max(1, int(math.ceil((x1 - x0) / mm_per_px)))
    h = max(1, int(math.ceil((y1 - y0) / mm_per_px)))
    mask = np.zeros((h, w), np.uint8)
    q = (poly - [x0, y0]) / mm_per_px
    cv2.fillPoly(mask, [np.round(q * 16).astype(np.int32)], 255, shift=4)
    mask.flags.writeable = False
    if len(_GRID_CACHE) > 256:
        _GRID_CACHE.clear()
    _GRID_CACHE[key] = hit = (float(x0), float(y0), w, h, mask)
    return hit


def _has_colour(image: np.ndarray) -> bool:
    return image is not None and image.ndim == 3 and image.shape[2] == 3


def _corner_zones(calibration: Calibration, corner_mm: float) -> list[Zone]:
    """The squares (TL, TR, BR, BL) in which ``paper_white`` looks for each corner tag's paper."""
    w, h = calibration.mat_mm
    s = corner_mm
    return [Zone("corner", "tokens", ((x - 3, y - 3), (x + s + 3, y - 3), (x + s + 3, y + s + 3), (x - 3, y + s + 3)))
            for x, y in ((0.0, 0.0), (w - s, 0.0), (w - s, h - s), (0.0, h - s))]


def prepare(calibration: Calibration, look: TokenLook) -> None:
    """Build once what counting reuses in every frame: where each token zone's and corner's pixels lie
    in the frame through the lens, the zones' outline distances and their learned bare mats' colour and grain.  Counting builds them on first use
    anyway; the appliance calls this when it loads a calibration, so the first frame read is as quick as
    the rest (a wide lens's maps take tens of milliseconds)."""
    w, h = (int(v) for v in calibration.image_size)
    blank = np.zeros((h, w, 3), np.uint8)
    for z in _corner_zones(calibration, look.corner_mm):
        rectify_zone(blank, calibration, z, 1.0)
    for z in calibration.zones:
        if z.kind != "tokens":
            continue
        _, mask = rectify_zone(blank, calibration, z, ZONE_MM_PER_PX, ZONE_MARGIN_MM)
        _zone_distances(mask > 0)
        _fine_maps(calibration, z)
        ref = look.mats.get(z.name)
        if ref is not None:
            _ref_features(ref)


def paper_white(image: np.ndarray, calibration: Calibration, corner_mm: float = 50.0) -> np.ndarray:
    """BGR of white paper at the four mat corners (rows TL, TR, BR, BL), from the corner tags' white
    cells and margin; a row is NaN where the tag is covered or unreadable (no clear black and white)."""
    out = np.full((4, 3), np.nan)
    for i, z in enumerate(_corner_zones(calibration, corner_mm)):
        crop, _ = rectify_zone(image, calibration, z, 1.0)
        crop = crop.reshape(-1, 3).astype(np.float32)
        grey = (crop[:, 0] + crop[:, 1] + crop[:, 2]) / np.float32(3)  # crop.mean(axis=1), several times faster
        lo, hi = _percentiles(grey, (15, 88))
        if hi < 30 or hi < 1.8 * lo:
            continue  # no black-and-white tag here: covered or lost
        out[i] = _median_rows(crop[grey >= hi])
    out = _unclip(out)
    ok = ~np.isnan(out[:, 0])
    if ok.sum() >= 2:  # a corner whose "paper" has another colour than the others' is under a hand
        ch = out[ok] / out[ok].sum(axis=1, keepdims=True)
        med = np.median(ch, axis=0)
        bad = np.abs(ch - med).max(axis=1) > 0.04
        idx = np.flatnonzero(ok)[bad]
        out[idx] = np.nan
    return out


def _median_rows(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` of an n x 3 array of whole numbers (8-bit pixels as floats): the two middle
    values' mean is exact, so one partition of the columns gives the same numbers at a third of the time."""
    n = a.shape[0]
    h = n // 2
    if n % 2:
        return np.asarray(np.partition(a, h, axis=0)[h], dtype=np.float64)
    part = np.partition(a, (h - 1, h), axis=0)
    mid: np.ndarray = (part[h - 1].astype(np.float64) + part[h]) / 2
    return mid


def _median(a: np.ndarray) -> float:
    """``float(np.median(a))`` of a 1-d array without NaN, by the same steps (a partition at the middle,
    the mean of the two middle values in the array's type) without numpy's general machinery."""
    n = a.size
    if n == 0:
        return math.nan
    h = n // 2
    if n % 2:
        return float(np.partition(a, h)[h])
    part = np.partition(a, (h - 1, h))
    return float(np.mean(part[h - 1:h + 1]))


def _unclip(whites: np.ndarray) -> np.ndarray:
    """Paper whites with a clipped channel rebuilt from the corners where nothing clipped.

    A corner tag's paper in the brightest part of the light often saturates one channel (red under a
    warm lamp): its white then reads too low in that channel, the zones near it are balanced too warm,
    and the mat learned under one light no longer matches under another.  The light's colour is the
    same across the table (its brightness is not: an uneven lamp, a shadow band), so a clipped channel is
    the corner's unclipped channels times the channel ratios of the corners that did not clip.  With no
    unclipped corner the whites are left as they are: a bias the set-up and the game share."""
    seen = ~np.isnan(whites[:, 0])
    clipped = seen[:, None] & (np.nan_to_num(whites) >= CLIPPED)
    clean = seen & ~clipped.any(axis=1)
    if not clipped.any() or not clean.any():
        return whites
    ratio = np.median(whites[clean] / np.maximum(whites[clean].sum(axis=1, keepdims=True), 1.0), axis=0)
    out = whites.copy()
    for i in np.flatnonzero(clipped.any(axis=1)):
        keep = ~clipped[i]
        if not keep.any():
            continue  # every channel clipped: nothing to scale from
        scale = whites[i, keep].sum() / max(float(ratio[keep].sum()), 1e-6)
        out[i, clipped[i]] = np.maximum(whites[i, clipped[i]], scale * ratio[clipped[i]])
    return out


def _percentiles(a: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(a, qs)`` (linear, the same numbers) from one partial sort: a quarter of the time."""
    n = a.size
    at = [q / 100 * (n - 1) for q in qs]
    kth = sorted({k for v in at for k in (int(math.floor(v)), min(int(math.floor(v)) + 1, n - 1))})
    part = np.partition(a, kth)
    out = []
    for v in at:
        f = int(math.floor(v))
        t = v - f
        below, above = part[f], part[min(f + 1, n - 1)]
        lo, hi, d = float(below), float(above), float(above - below)  # the difference in the array's type, as numpy
        out.append(lo + d * t if t < 0.5 else hi - d * (1 - t))  # numpy's own interpolation, step by step
    return out


def white_at(whites: np.ndarray, point_mm: Any, mat_mm: tuple[float, float]) -> np.ndarray | None:
    """Paper white at ``point_mm``: bilinear between the corners that were seen (their mean if some
    are missing); None when no corner was seen."""
    ok = ~np.isnan(whites[:, 0])
    if not ok.any():
        return None
    if ok.all():
        u = min(max(point_mm[0] / mat_mm[0], 0.0), 1.0)
        v = min(max(point_mm[1] / mat_mm[1], 0.0), 1.0)
        wts = np.array([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v])
        return np.asarray(wts @ whites)
    return np.asarray(whites[ok].mean(axis=0))


# --------------------------------------------------------------------------------------------------
# Pixels


@dataclass
class _ZoneView:
    crop: np.ndarray  # white-balanced float32 BGR
    inside: np.ndarray  # bool, the zone polygon
    r: np.ndarray
    g: np.ndarray
    s: np.ndarray  # channel sum
    # the white-balanced luminance at RIM_MM_PER_PX of a box (x, y, w, h) of that grid, made where a pile lies
    fine: Callable[[tuple[int, int, int, int]], np.ndarray]
    on_mat: np.ndarray | None = None  # bool, False where the margin runs off the mat (the table beyond)


_FINE_MAPS: dict[tuple[int, Zone], tuple[Calibration, tuple[np.ndarray, np.ndarray]]] = {}


def _fine_maps(calibration: Calibration, zone: Zone) -> tuple[np.ndarray, np.ndarray]:
    """Where each pixel of the zone (and its margin) at ``RIM_MM_PER_PX`` lies in the frame, following the
    lens (cached: the calibration does not change, and each frame warps only the part around a pile)."""
    hit = _FINE_MAPS.get((id(calibration), zone))
    if hit is not None and hit[0] is calibration:
        return hit[1]
    poly = np.array(zone.polygon, dtype=np.float64)
    x0, y0 = poly.min(axis=0) - ZONE_MARGIN_MM
    x1, y1 = poly.max(axis=0) + ZONE_MARGIN_MM
    w, h = int(math.ceil((x1 - x0) / RIM_MM_PER_PX)), int(math.ceil((y1 - y0) / RIM_MM_PER_PX))
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    px = calibration.to_px(np.stack([x0 + uu.ravel() * RIM_MM_PER_PX, y0 + vv.ravel() * RIM_MM_PER_PX], axis=1))
    maps = (px[:, 0].reshape(h, w).astype(np.float32), px[:, 1].reshape(h, w).astype(np.float32))
    if len(_FINE_MAPS) > 64:  # other calibrations' maps go first: this one's were built by ``prepare``
        for key in [k for k, v in _FINE_MAPS.items() if v[0] is not calibration]:
            del _FINE_MAPS[key]
        if len(_FINE_MAPS) > 64:
            _FINE_MAPS.clear()
    _FINE_MAPS[(id(calibration), zone)] = (calibration, maps)
    return maps


def _features(wb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = wb[..., 0] + wb[..., 1] + wb[..., 2] + np.float32(1.0)  # as wb.sum(axis=2), ten times faster
    return wb[..., 2] / s, wb[..., 1] / s, s


def _view(image: np.ndarray, calibration: Calibration, zone: Zone, white: np.ndarray | None,
          rectified: tuple[np.ndarray, np.ndarray] | None = None) -> _ZoneView:
    """The zone view of a frame; ``rectified``: the frame's ``rectify_zone`` at ``ZONE_MM_PER_PX`` with
    ``ZONE_MARGIN_MM``, when the caller has it already."""
    import cv2

    crop, mask = rectified or rectify_zone(image, calibration, zone, ZONE_MM_PER_PX, ZONE_MARGIN_MM)
    gain = np.ones(3, np.float32) if white is None else (WHITE_LEVEL / np.maximum(white, 8.0)).astype(np.float32)
    # cv2.multiply by a per-channel scalar: numpy's broadcast over 3 channels is 8 times slower (same values)
    crop = cv2.GaussianBlur(cv2.multiply(crop.astype(np.float32), (*gain.tolist(), 0.0)), (3, 3), 0.6)

    def fine(box: tuple[int, int, int, int]) -> np.ndarray:
        x, y, w, h = box
        mx, my = (np.ascontiguousarray(m[y:y + h, x:x + w]) for m in _fine_maps(calibration, zone))
        big = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lum: np.ndarray = cv2.transform(big.astype(np.float32), (gain / 3).reshape(1, 3))
        return lum

    r, g, s = _features(crop)
    return _ZoneView(crop, mask > 0, r, g, s, fine, _on_mat(zone, mask.shape, tuple(calibration.mat_mm)))


_ON_MAT_CACHE: dict[tuple[Zone, tuple[int, int], tuple[float, ...]], np.ndarray | None] = {}


def _on_mat(zone: Zone, shape: tuple[int, ...], mat_mm: tuple[float, ...]) -> np.ndarray | None:
    """Where a zone view (of ``shape``) lies on the mat; None when all of it does.  The margin of a zone
    at the mat's edge shows the table beyond: neither token nor hand (cached: the same in every frame;
    read only)."""
    key = (zone, (int(shape[0]), int(shape[1])), mat_mm)
    if key in _ON_MAT_CACHE:
        return _ON_MAT_CACHE[key]
    poly = np.array(zone.polygon, dtype=np.float64)
    x0, y0 = poly.min(axis=0) - ZONE_MARGIN_MM
    h, w = key[1]
    xs = x0 + (np.arange(w) + 0.5) * ZONE_MM_PER_PX
    ys = y0 + (np.arange(h) + 0.5) * ZONE_MM_PER_PX
    mw, mh = mat_mm
    inside = ((ys >= 1.0) & (ys <= mh - 1.0))[:, None] & ((xs >= 1.0) & (xs <= mw - 1.0))[None, :]
    inside.flags.writeable = False
    on_mat = None if inside.all() else inside
    if len(_ON_MAT_CACHE) > 256:
        _ON_MAT_CACHE.clear()
    _ON_MAT_CACHE[key] = on_mat
    return on_mat


def _token_distance(v: _ZoneView, c: TokenColour) -> np.ndarray:
    """Mahalanobis distance of each pixel's chromaticity from the token colour, the pixel's own noise
    (larger in dark pixels) added to the token's spread."""
    return _token_terms(v, c)[0]


def _token_terms(v: _ZoneView, c: TokenColour) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(``_token_distance``, the pixels' chroma noise (6 / channel sum) ** 2, r - token r, g - token g): the
    parts the token mask uses again.  Float32 throughout, each step the one it always was (in place where a
    temporary is not needed again), so the distance is the same to the last bit."""
    rr, rg, gg = c.cov
    noise = np.divide(6.0, v.s)
    noise *= noise  # (6 / s) ** 2
    a = rr + noise
    a += 0.0004
    b = rg
    d = gg + noise
    d += 0.0004
    dr, dg = v.r - c.r, v.g - c.g
    det = a * d
    det -= b * b
    num = d * dr  # d dr dr - 2 b dr dg + a dg dg, left to right
    num *= dr
    t = (2 * b) * dr
    t *= dg
    num -= t
    np.multiply(a, dg, out=t)
    t *= dg
    num += t
    num /= det
    np.maximum(num, 0.0, out=num)
    return np.sqrt(num, out=num), noise, dr, dg


_MatFeatures = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
_REF_CACHE: dict[int, tuple[np.ndarray, _MatFeatures]] = {}
#: per learned mat: (its channel sum floored at 1, where its grain is seen, the grain below which it is lost)
_REF_MORE: dict[int, tuple[np.ndarray, tuple[float, float], tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}


def _grain(s: np.ndarray) -> np.ndarray:
    """Brightness variation over 7 x 7 px (std / mean of the channel sum ``s``, float32)."""
    import cv2

    m = cv2.blur(s, (7, 7))
    var = cv2.blur(s * s, (7, 7))
    var -= m * m
    np.maximum(var, 0.0, out=var)
    np.sqrt(var, out=var)
    var /= np.maximum(m, 1.0, out=m)
    return np.asarray(var, dtype=np.float32)


def _ref_features(ref: np.ndarray) -> _MatFeatures:
    """Chromaticity, channel sum, squared base tolerance and grain (``_grain``) of a learned bare mat
    (cached: frames come 10+ a second and the mat does not change)."""
    import cv2

    hit = _REF_CACHE.get(id(ref))
    if hit is not None and hit[0] is ref:
        return hit[1]
    f = ref.astype(np.float32)
    rf = cv2.GaussianBlur(f, (5, 5), 1.2)
    r0, g0, s0 = _features(rf)
    grain = _grain(f[..., 0] + f[..., 1] + f[..., 2])
    out = (r0, g0, s0, (0.012 ** 2 + (6.0 / s0) ** 2).astype(np.float32), grain)
    if len(_REF_CACHE) > 64:
        _REF_CACHE.clear()
    _REF_CACHE[id(ref)] = (ref, out)
    return out


def _ref_more(ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the token mask derives from a learned mat's features in every frame, derived once (cached as
    ``_ref_features``): the channel sum floored at 1, where the mat has a grain (``TEXTURE_MIN``) and
    ``TEXTURE_LOST`` times its grain."""
    hit = _REF_MORE.get(id(ref))
    if hit is not None and hit[0] is ref and hit[1] == (TEXTURE_MIN, TEXTURE_LOST):
        return hit[2]
    _, _, s0, _, grain = _ref_features(ref)
    out = (np.maximum(s0, 1.0), grain >= TEXTURE_MIN, TEXTURE_LOST * grain)
    if len(_REF_MORE) > 64:
        _REF_MORE.clear()
    _REF_MORE[id(ref)] = (ref, (TEXTURE_MIN, TEXTURE_LOST), out)  # (the thresholds it was made with)
    return out


def _mat_reference(v: _ZoneView, look: TokenLook, zone: str, d_tok: np.ndarray,
                   noise: np.ndarray | None = None) -> tuple[Any, Any, Any, Any]:
    """(mat r, mat g, mat channel sum, per-pixel chroma tolerance) of the bare mat under this zone view;
    ``noise``: the view's (6 / channel sum) ** 2 when the caller has it."""
    ref = look.mats.get(zone)
    h, w = v.r.shape
    if noise is None:
        noise = (6.0 / v.s) ** 2
    if ref is not None and ref.shape[:2] == (h, w):
        rr0, gg0, ss0, tol0, _ = _ref_features(ref)
        return rr0, gg0, ss0, np.sqrt(tol0 + noise)
    # Not learned: the zone's own commonest colour (most of a zone is bare mat), a wider tolerance.
    bg = d_tok > 4.0
    if np.count_nonzero(bg) < 0.3 * bg.size:
        bg = np.ones_like(bg)
    r0, g0 = float(np.median(v.r[bg])), float(np.median(v.g[bg]))
    spread = float(np.sqrt(np.median((v.r[bg] - r0) ** 2 + (v.g[bg] - g0) ** 2))) * 1.5
    s0 = float(np.median(v.s[bg]))
    tol = np.sqrt(max(spread, 0.012) ** 2 + noise)
    return r0, g0, s0, tol


def token_mask(v: _ZoneView, look: TokenLook, zone: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(token pixels, foreign pixels: neither token nor mat, bare mat pixels: the mat's own colour and
    brightness) of a zone view, uint8 0/255."""
    tok, foreign, bare, _ = _token_masks(v, look, zone)
    return tok, foreign, bare


_ONES5 = np.ones((5, 5), np.uint8)
_ONES7 = np.ones((7, 7), np.uint8)


def _token_masks(v: _ZoneView, look: TokenLook, zone: str) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                     np.ndarray | None]:
    """``token_mask``, and its token pixels opened by 5 x 5 (uint8 0/1; None where the view runs off the
    mat, there the tokens are cut to the mat after it)."""
    import cv2

    d_tok, noise, dr, dg = _token_terms(v, look.colour)
    r0, g0, s0, tol = _mat_reference(v, look, zone, d_tok, noise)
    ref = look.mats.get(zone)
    more = _ref_more(ref) if ref is not None and ref.shape[:2] == v.s.shape else None
    dr0, dg0 = np.asarray(v.r - r0, np.float32), np.asarray(v.g - g0, np.float32)
    to_mat = cv2.magnitude(dr0, dg0)  # chroma distances: cv2.magnitude is np.hypot, several times faster
    d_mat = to_mat / tol
    ratio = v.s / (more[0] if more is not None else np.maximum(s0, 1.0))
    s_tok = look.colour.lightness * 3 * WHITE_LEVEL
    # a rim pixel is a blend of token and mat: it is token when nearer the token's colour than the mat's
    # (the blend's midpoint), so blur and noise do not grow or shrink the tokens
    to_tok = cv2.magnitude(np.asarray(dr, np.float32), np.asarray(dg, np.float32))
    nearer = to_tok < to_mat
    # artwork of almost the token's colour (an orange band on a printed mat): a pixel many times nearer
    # the token's colour than the mat's is token even inside the mat's wide per-pixel tolerance
    np.multiply(to_tok, 3.0, out=to_tok)
    much_nearer = (to_mat > to_tok) & (d_mat > 1.5)
    # on a dark mat (black artwork) chroma is unsteady: a token is told by being far brighter than it
    tok = (d_tok < 3.5) & (v.s > 0.3 * s_tok) & (((d_mat > 2.5) & nearer) | much_nearer | (ratio > 1.6))
    # neither mat nor token: a hand, a sleeve, a car.  Skin can lie near a taught token colour's wide
    # spread, so "not token" is the token test failing, not a second, looser bound
    # ... and a dim, weakly coloured hand (dark skin on a dark mat) differs from the mat by little per
    # pixel but by the same little over its whole area: the chroma difference averaged over 7 x 7 mm
    # (tokens and their blended rims left out of the average, so a token does not smear into a halo)
    # (a hand's skin strays into the token colour pixel by pixel: such specks are no token and must not
    # hollow the average out, so only token-sized pieces are left out)
    solid = cv2.morphologyEx(tok.view(np.uint8), cv2.MORPH_OPEN, _ONES5)
    w = (cv2.dilate(solid, _ONES7) == 0).astype(np.float32)
    wn = cv2.blur(w, (7, 7))
    np.maximum(wn, 1e-3, out=wn)
    dr0 *= w
    dr = cv2.blur(dr0, (7, 7))
    np.divide(dr, wn, out=dr)
    dg0 *= w
    dg = cv2.blur(dg0, (7, 7))
    np.divide(dg, wn, out=dg)
    shifted = (cv2.magnitude(dr, dg) > FOREIGN_CHROMA) & (w > 0)
    not_tok = ~tok
    foreign = (d_mat > 5.0) | (ratio < 0.38) | (ratio > 2.2) | shifted
    if more is not None:  # the mat's grain gone: something smooth over it
        foreign |= more[1] & (_grain(v.s) < more[2])
    foreign &= not_tok
    # the bare mat (seen between touching tokens): nearer the mat's colour than the token's, as the rim
    # rule above, and about as bright as the mat (the dark print on a token is not mat)
    bare = ~nearer & (ratio > 0.7) & (ratio < 1.4) & not_tok
    if v.on_mat is not None:
        tok &= v.on_mat
        foreign &= v.on_mat
        bare &= v.on_mat
    return tok.view(np.uint8) * 255, foreign.view(np.uint8) * 255, bare.view(np.uint8) * 255, \
        (solid if v.on_mat is None else None)


# --------------------------------------------------------------------------------------------------
# Counting


def _disc(radius: float) -> np.ndarray:
    import cv2

    n = int(math.ceil(radius)) * 2 + 1
    k = np.zeros((n, n), np.float32)
    cv2.circle(k, (n // 2, n // 2), int(round(radius)), 1.0, -1)
    return k


@dataclass(frozen=True)
class _Rims:
    """Where the brightness of part of a zone steps: its luminance gradient at ``RIM_MM_PER_PX`` (``scale``
    of its pixels to a zone view pixel, starting at ``origin`` of that grid) and the tokens' brightness,
    against which a step is judged."""

    gx: np.ndarray
    gy: np.ndarray
    origin: tuple[int, int]
    scale: float
    level: float


def _rims(v: _ZoneView, box: tuple[int, int, int, int], level: float, mm_per_px: float) -> _Rims:
    """The rims in ``box`` (x0, y0, x1, y1: zone view pixels) of the zone view ``v``, its tokens' brightness
    ``level``."""
    import cv2

    scale = mm_per_px / RIM_MM_PER_PX
    x0, y0 = max(0, int(box[0] * scale)), max(0, int(box[1] * scale))
    x1, y1 = int(math.ceil(box[2] * scale)), int(math.ceil(box[3] * scale))
    lum = cv2.GaussianBlur(v.fine((x0, y0, x1 - x0, y1 - y0)), (0, 0), 1.0)
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    return _Rims(gx, gy, (x0, y0), scale, level)


_RIM_OFFSETS_MM = (-1.0, -0.5, 0.0, 0.5, 1.0)
_REMAP_ROWS = 32000
_RIM_DIRS = np.stack([np.cos(np.linspace(0, 2 * np.pi, 48, endpoint=False)),
                      np.sin(np.linspace(0, 2 * np.pi, 48, endpoint=False))], axis=1).astype(np.float32)


def _rim_support(rims: _Rims, xs: np.ndarray, ys: np.ndarray, radius: float) -> np.ndarray:
    """For circles of ``radius`` centred at (xs, ys) (zone view pixels): the share of the circle across
    which the brightness falls outward, as it does across the rim of a token lying on top, at the best
    of five radii within a millimetre of ``radius`` (a token's edge is a circle, not a band)."""
    import cv2

    ca, sa = _RIM_DIRS[None, None, :, 0], _RIM_DIRS[None, None, :, 1]
    cx = (xs.astype(np.float32) * rims.scale - rims.origin[0])[None, :, None]
    cy = (ys.astype(np.float32) * rims.scale - rims.origin[1])[None, :, None]
    rr = np.array([radius * rims.scale + d / RIM_MM_PER_PX for d in _RIM_OFFSETS_MM], np.float32)[:, None, None]
    n = len(xs)
    # every radius and every circle in one lookup of each gradient: 5 x n rows of 48 points
    px = (cx + ca * rr).reshape(-1, len(_RIM_DIRS))
    py = (cy + sa * rr).reshape(-1, len(_RIM_DIRS))
    shape = (len(_RIM_OFFSETS_MM), n, len(_RIM_DIRS))

    def look(grad: np.ndarray) -> np.ndarray:
        # OpenCV's remap takes maps of fewer than 32767 rows: a zone-sized blob asks about ~10,000 centres
        return np.concatenate([cv2.remap(grad, px[k:k + _REMAP_ROWS], py[k:k + _REMAP_ROWS], cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE)
                               for k in range(0, len(px), _REMAP_ROWS)]).reshape(shape)

    ax, ay = look(rims.gx), look(rims.gy)
    inward = -(ax * ca + ay * sa)
    along = np.abs(ay * ca - ax * sa)
    seen = (inward > RIM_STEP * rims.level) & (inward > along)
    # the share seen at the best radius: max(count) / 48 is max(count / 48) (a division rounds monotonically),
    # the same float64 as the mean over the circle, without summing booleans as floats
    share: np.ndarray = np.count_nonzero(seen, axis=2).max(axis=0) / float(len(_RIM_DIRS))
    return share


_ELLIPSE7 = np.array([[0, 0, 0, 1, 0, 0, 0], [0, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1],
                      [1, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0, 0]], np.uint8)
_ELLIPSE5 = np.array([[0, 0, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0]], np.uint8)


def _discs_in_blob(blob: np.ndarray, radius: float, rims: _Rims | None = None, max_discs: int = 40,
                   raw: np.ndarray | None = None, bare: np.ndarray | None = None,
                   origin: tuple[int, int] = (0, 0)) -> tuple[list[tuple[float, float]], float] | None:
    """Explain a blob (uint8 0/1) by discs of ``radius`` px: greedy, each disc where one fits inside the
    blob and covers the most of it not yet covered; with ``rims`` (of the zone view the blob lies in at
    ``origin``), also the tokens whose rim is seen inside it (``bare``: where the blob's box shows the
    bare mat).  Returns (centres, unexplained area in discs), or None when no disc fits at all, a rim
    is too faint to tell whether a token lies there, or a disc is neither clearly a token nor clearly
    explained by the others."""
    import cv2

    pad = int(math.ceil(radius)) + 2
    b = cv2.copyMakeBorder(blob, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    raw_b = None if raw is None else cv2.copyMakeBorder(raw.astype(np.uint8), pad, pad, pad, pad,
                                                          cv2.BORDER_CONSTANT, value=0)
    dt = cv2.distanceTransform(b, cv2.DIST_L2, 5)
    cand = dt >= 0.7 * radius
    if not cand.any():
        return None
    kern = _disc(radius * 0.97)
    unit = float(kern.sum())
    # A disc sits where it lies wholly inside the blob: among discs covering as much that is new, the
    # one poking out least (a spot between three touching tokens covers as much, but pokes out).
    resid = b.astype(np.float32)
    gain = cv2.filter2D(resid, -1, kern, borderType=cv2.BORDER_CONSTANT)
    poke = unit - gain
    kr = kern.shape[0] // 2
    pen, outside = 2.0 * poke, ~cand
    centres: list[tuple[float, float]] = []
    score = gain - pen
    score[outside] = -unit * 4
    for _ in range(max_discs):
        j = int(np.argmax(score))
        y, x = divmod(j, score.shape[1])
        if gain[y, x] < 0.22 * unit or poke[y, x] > 0.2 * unit:
            break
        # the centre of the plateau of near-best scores around it (a disc sliding in a slot)
        ys, xs = np.nonzero(score[max(0, y - 2):y + 3, max(0, x - 2):x + 3] >= score[y, x] - 0.01 * unit)
        cy, cx = float(ys.sum()) / len(ys) + max(0, y - 2), float(xs.sum()) / len(xs) + max(0, x - 2)  # means
        centres.append((cx - pad, cy - pad))
        icx, icy = int(round(cx)), int(round(cy))
        # the gain changes only within a disc's reach of the pixels the new disc takes: there it drops by
        # the count of them under the disc.  resid and kern are 0/1, so filter2D's sums are whole counts
        # (exact in float32) and the gain updated so is the gain computed afresh, to the last bit
        ir = int(round(radius))
        y0, y1 = max(0, icy - ir - 1 - kr), min(resid.shape[0], icy + ir + 2 + kr)
        x0, x1 = max(0, icx - ir - 1 - kr), min(resid.shape[1], icx + ir + 2 + kr)
        taken = resid[y0:y1, x0:x1].copy()
        cv2.circle(resid, (icx, icy), ir, 0.0, -1)
        # no disc can cover more than what is left: with less left than a disc must cover, the next look
        # would stop the fit (a pixel to spare for filter2D's rounding), so it is not computed
        if cv2.countNonZero(resid) < 0.22 * unit - 1.0:
            break
        if min(y1 - y0, x1 - x0) >= kern.shape[0] + 2:
            taken -= resid[y0:y1, x0:x1]
            under_taken = cv2.filter2D(taken, -1, kern, borderType=cv2.BORDER_CONSTANT)
            np.subtract(gain[y0:y1, x0:x1], under_taken, out=gain[y0:y1, x0:x1])
        else:  # a sliver (never, a blob is padded): filter2D may take another road there, so ask it afresh
            y0, y1 = max(0, icy - 2 * kr - 2), min(resid.shape[0], icy + 2 * kr + 3)
            x0, x1 = max(0, icx - 2 * kr - 2), min(resid.shape[1], icx + 2 * kr + 3)
            ry0, ry1 = max(0, y0 - kr), min(resid.shape[0], y1 + kr)
            rx0, rx1 = max(0, x0 - kr), min(resid.shape[1], x1 + kr)
            part = cv2.filter2D(resid[ry0:ry1, rx0:rx1], -1, kern, borderType=cv2.BORDER_CONSTANT)
            gain[y0:y1, x0:x1] = part[y0 - ry0:y1 - ry0, x0 - rx0:x1 - rx0]
        # ... and so does the score (gain - pen, very low off the candidates), only there
        win = np.subtract(gain[y0:y1, x0:x1], pen[y0:y1, x0:x1], out=score[y0:y1, x0:x1])
        win[outside[y0:y1, x0:x1]] = -unit * 4

    def uncovered(cs: list[tuple[float, float]], base: np.ndarray | None = None) -> np.ndarray:
        """The blob (``base``: the blob with other discs already taken out) less the discs ``cs``."""
        left = (b if raw_b is None else raw_b).copy() if base is None else base.copy()
        for cx, cy in cs:
            cv2.circle(left, (int(round(cx + pad)), int(round(cy + pad))), int(round(radius)), 0, -1)
        return left

    def unexplained(cs: list[tuple[float, float]], base: np.ndarray | None = None) -> float:
        """What the discs ``cs`` (and those taken out of ``base``) leave of the blob, beyond thin rims
        (blur, the filled gaps between touching tokens) and specks, in tokens.  The gaps that touching
        tokens enclose were filled to keep the blob whole; they are no token's to explain (``raw``: the
        blob before filling)."""
        left = cv2.morphologyEx(uncovered(cs, base), cv2.MORPH_OPEN, _ELLIPSE5)
        return float(cv2.countNonZero(left)) / unit

    def unexplained_one(base: np.ndarray, opened: tuple[np.ndarray, int],
                        c: tuple[float, float]) -> tuple[float, tuple[float, float]]:
        """(``unexplained([c], base)``, c), ``opened``: ``base``'s opening and its pixel count.  The opening
        is redone only where the disc changes it: a 5 x 5 opening reaches 4 px, so beyond 4 px of the disc
        it is ``base``'s own, and within them it is the opening of a window 4 px wider still (the same,
        pixel for pixel: what lies at the window's cut edge reaches no pixel that is kept)."""
        ob, n_ob = opened
        hgt, wid = base.shape
        icx, icy, ir = int(round(c[0] + pad)), int(round(c[1] + pad)), int(round(radius))
        ry0, ry1 = max(0, icy - ir - 4), min(hgt, icy + ir + 5)
        rx0, rx1 = max(0, icx - ir - 4), min(wid, icx + ir + 5)
        if ry0 >= ry1 or rx0 >= rx1:  # the disc lies off the blob's box: nothing changes
            return float(n_ob) / unit, c
        wy0, wy1, wx0, wx1 = max(0, ry0 - 4), min(hgt, ry1 + 4), max(0, rx0 - 4), min(wid, rx1 + 4)
        win = base[wy0:wy1, wx0:wx1].copy()
        cv2.circle(win, (icx - wx0, icy - wy0), ir, 0, -1)
        ow = cv2.morphologyEx(win, cv2.MORPH_OPEN, _ELLIPSE5)
        n = n_ob - cv2.countNonZero(ob[ry0:ry1, rx0:rx1]) \
            + cv2.countNonZero(ow[ry0 - wy0:ry1 - wy0, rx0 - wx0:rx1 - wx0])
        return float(n) / unit, c

    def explained(cs: list[tuple[float, float]], limit: float) -> bool:
        """``unexplained(cs) <= limit``.  An opening only takes pixels away: when what the discs leave is
        within ``limit`` before it, it is after it, and the opening is not needed."""
        left = uncovered(cs)
        if float(cv2.countNonZero(left)) / unit <= limit:
            return True
        return float(cv2.countNonZero(cv2.morphologyEx(left, cv2.MORPH_OPEN, _ELLIPSE5))) / unit <= limit

    unsure = False  # a disc neither clearly a token nor clearly explained by the others

    def bare_left(cs: list[tuple[float, float]]) -> float:
        """Blob pixels no disc of ``cs`` covers (grown by a pixel: the blob's rim), every one of them; the
        gaps touching tokens enclose are no token's."""
        left = (b if raw_b is None else raw_b).copy()
        for cx, cy in cs:
            cv2.circle(left, (int(round(cx + pad)), int(round(cy + pad))), int(round(radius + 1.0)), 0, -1)
        return float(cv2.countNonZero(left))

    def fewest(cs: list[tuple[float, float]], keep: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The fewest of the discs ``cs`` that explain the blob: drop a disc the others already explain
        (greedy can put its first disc on the spot between three touching tokens, then one on each of
        them) unless it is one to ``keep``, or the crescent of a token lying under another would go
        unexplained (counted pixel by pixel: an opening would wipe it out)."""
        nonlocal unsure
        changed = True
        while changed and len(cs) > 1:
            changed = False
            doubt = False
            now = bare_left(cs)
            for k in range(len(cs)):
                if cs[k] in keep:
                    continue
                rest = cs[:k] + cs[k + 1:]
                if explained(rest, 0.12):
                    lost = (bare_left(rest) - now) / unit
                    if lost <= DROP_LOST:
                        cs = rest
                        changed = True
                        break
                    doubt |= lost <= DROP_DOUBT
            unsure |= doubt and not changed
        return cs

    def merged(cs: list[tuple[float, float]], keep: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """Two overlapping discs (less than two radii apart) that one disc near their middle explains as
        well are one token the greedy fit placed twice, on either side of it (a token ringed by others,
        where a disc first fits in the gaps around it: the two may lie nearly two radii apart, at the ends
        of the slot the token sits in; only less than a radius apart was tried, and a render of the same
        pile with 5-6 % of its pixels different counted it twice).  Two touching tokens leave a token's area
        unexplained beside any one disc between them; tokens stacked that closely leave two crescents
        beyond the middle disc (counted pixel by pixel: an opening would wipe out thin ones): up to
        ``MERGE_LOST`` of a token for discs less than a radius apart; farther apart the merge takes away as
        much as dropping a disc and is held to the same bar, ``DROP_LOST`` (a token on another, 1.5 radii
        off, lost 0.13 and was merged into one under ``MERGE_LOST``; the slot's two discs lose
        0.013 or less).  A disc whose rim is seen (``keep``) stays."""
        done = False
        while not done:
            done = True
            now = bare_left(cs)
            for i in range(len(cs)):
                for j in range(i + 1, len(cs)):
                    (ax, ay), (bx, by) = cs[i], cs[j]
                    if cs[i] in keep or cs[j] in keep or math.hypot(ax - bx, ay - by) >= 2 * radius:
                        continue
                    rest = [c for k, c in enumerate(cs) if k not in (i, j)]
                    mx, my = (ax + bx) / 2, (ay + by) / 2
                    # the others' discs are taken out once for the 25 places tried (a disc taken out is
                    # the same pixels in any order)
                    base = uncovered(rest)
                    ob = cv2.morphologyEx(base, cv2.MORPH_OPEN, _ELLIPSE5)
                    opened = (ob, int(cv2.countNonZero(ob)))
                    u, c = min(unexplained_one(base, opened, (mx + dx, my + dy))
                               for dx in (-3.0, -1.5, 0.0, 1.5, 3.0) for dy in (-3.0, -1.5, 0.0, 1.5, 3.0))
                    near = math.hypot(ax - bx, ay - by) < radius
                    if u <= 0.12 and bare_left(rest + [c]) - now <= (MERGE_LOST if near else DROP_LOST) * unit:
                        cs, done = rest + [c], False
                        break
                if not done:
                    break
        return cs

    if rims is None or not centres:
        centres = merged(fewest(centres, []), [])
        return None if unsure else (centres, unexplained(centres))
    # every token's whole disc is inside the pile's outline, so its centre lies deep in the blob
    ys, xs = np.nonzero(dt >= 0.85 * radius)
    xs, ys = xs - pad, ys - pad
    seen = _rim_seen(rims, xs, ys, centres, radius, origin)
    # the discs the others explain go first: a disc set beside a token must not hide that token's rim
    centres = fewest(centres, seen)
    hidden = _hidden_tokens(rims, xs, ys, centres, radius, origin, None if bare is None else (blob > 0) & (bare > 0))
    if hidden is None:
        return None
    # the discs are judged again with the hidden tokens among them: only this verdict's doubt counts
    unsure = False
    centres = merged(fewest(centres + hidden, seen + hidden), seen + hidden)
    return None if unsure else (centres, unexplained(centres))


def _rim_seen(rims: _Rims, xs: np.ndarray, ys: np.ndarray, centres: list[tuple[float, float]], radius: float,
              origin: tuple[int, int]) -> list[tuple[float, float]]:
    """The discs of ``centres`` (blob pixels; (xs, ys): where a token's centre may lie) whose rim is seen:
    tokens even where the others cover their area (one lying on them).  Two discs near each other are
    one token seen twice, whatever their rims say."""
    asked: list[tuple[int, np.ndarray]] = []  # (disc, the indices of its candidate centres)
    if len(xs):  # where each candidate centre is listed (the candidates near a disc are at most 3 x 3 pixels)
        x_lo, y_lo = int(xs.min()), int(ys.min())
        index = np.full((int(ys.max()) - y_lo + 3, int(xs.max()) - x_lo + 3), -1, np.int64)
        index[ys - y_lo + 1, xs - x_lo + 1] = np.arange(len(xs))
    for k, (cx, cy) in enumerate(centres):
        alone = all(math.hypot(cx - ox, cy - oy) > 0.8 * radius for i, (ox, oy) in enumerate(centres) if i != k)
        if not alone or not len(xs):
            continue
        gx, gy = math.floor(cx) - x_lo + 1, math.floor(cy) - y_lo + 1  # the 2 x 2 pixels around (cx, cy) and
        box = index[max(gy - 1, 0):max(gy + 3, 0), max(gx - 1, 0):max(gx + 3, 0)]  # one more each way
        near = np.sort(box[box >= 0])
        near = near[np.hypot(xs[near] - cx, ys[near] - cy) <= 1.0]
        if len(near):
            asked.append((k, near))
    if not asked:
        return []
    # one look at every disc's candidate circles at once
    idx = np.concatenate([near for _, near in asked])
    sup = _rim_support(rims, xs[idx] + origin[0], ys[idx] + origin[1], radius)
    starts = np.cumsum([0] + [len(near) for _, near in asked[:-1]])
    best = np.maximum.reduceat(sup, starts)  # each disc's best candidate (no disc asks about none)
    return [centres[k] for (k, _), b in zip(asked, best) if b >= RIM_SEEN]


def _hidden_tokens(rims: _Rims, xs: np.ndarray, ys: np.ndarray, centres: list[tuple[float, float]], radius: float,
                   origin: tuple[int, int], mat: np.ndarray | None) -> list[tuple[float, float]] | None:
    """Tokens that no disc of ``centres`` explains but whose rim is seen inside the blob (blob pixels;
    (xs, ys): where a token's centre may lie; ``mat``: where the blob shows the bare mat); None when a rim
    is too faint to tell whether a token lies there."""
    import cv2

    d = np.full(len(xs), np.inf)
    for cx, cy in centres:
        d = np.minimum(d, np.hypot(xs - cx, ys - cy))
    far = d > 0.8 * radius
    if not far.any():
        return []
    xs, ys = xs[far], ys[far]
    sup = _rim_support(rims, xs + origin[0], ys + origin[1], radius)
    if mat is not None:
        # the mat seen between the discs (a gap that touching tokens enclose): no token lies over it (more
        # than 2 px of it 1.5 mm inside the circle; blur leaves a few, and 0 or 1 missed stacked tokens
        # on the tuning seeds)
        gap = mat.astype(np.float32)
        for cx, cy in centres:
            cv2.circle(gap, (int(round(cx)), int(round(cy))), int(round(radius)), 0.0, -1)
        if gap.any():
            under = cv2.filter2D(gap, -1, _disc(radius - 1.5), borderType=cv2.BORDER_CONSTANT)[ys, xs]
            sup[under > 2.0] = 0.0
    hidden: list[tuple[float, float]] = []
    for j in np.argsort(-sup, kind="stable"):
        if sup[j] < RIM_DOUBT:
            break
        c = (float(xs[j]), float(ys[j]))
        if any(math.hypot(c[0] - ox, c[1] - oy) <= 0.8 * radius for ox, oy in hidden):
            continue
        if sup[j] < RIM_SEEN:
            return None
        hidden.append(c)
    return hidden


def _clean_mask(tok: np.ndarray, look: TokenLook, mm_per_px: float = ZONE_MM_PER_PX) -> np.ndarray:
    """Token mask without specks, with printed icons and the gaps touching tokens enclose filled."""
    return _clean_masks(tok, look, mm_per_px)[0]


def _clean_masks(tok: np.ndarray, look: TokenLook, mm_per_px: float = ZONE_MM_PER_PX) -> tuple[np.ndarray, np.ndarray]:
    """(the cleaned mask, the mask before closing and filling: what the tokens' colour really covers)"""
    import cv2

    tok = cv2.morphologyEx(tok, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    raw = tok.copy()
    # seal the breaks through which a printed icon's hole opens to the outside
    tok = cv2.morphologyEx(tok, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    unit = look.area_mm2 / mm_per_px ** 2
    contours, hier = cv2.findContours(tok, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:  # fill printed icons and the gaps touching tokens enclose, not a ring's middle
        small = [c for j, c in enumerate(contours) if hier[0][j][3] >= 0 and cv2.contourArea(c) < 0.2 * unit]
        cv2.drawContours(tok, small, -1, 255, thickness=cv2.FILLED)
    return tok, raw


def _prepared_mask(v: _ZoneView, look: TokenLook, zone: str) -> np.ndarray:
    tok, _, _ = token_mask(v, look, zone)
    return _clean_mask(tok, look)


_DIST_CACHE: dict[tuple[tuple[int, ...], bytes], tuple[np.ndarray, np.ndarray]] = {}


def _zone_distances(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distance to the zone's outline from inside, from outside) of a zone view's polygon mask (cached:
    a zone's outline is the same in every frame)."""
    import cv2

    key = (inside.shape, inside.tobytes())
    hit = _DIST_CACHE.get(key)
    if hit is None:
        hit = (cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3),
               cv2.distanceTransform((~inside).astype(np.uint8), cv2.DIST_L2, 3))
        if len(_DIST_CACHE) > 64:
            _DIST_CACHE.clear()
        _DIST_CACHE[key] = hit
    return hit


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """(count, labels, stats) of ``cv2.connectedComponentsWithStats(mask, connectivity=8)``, by OpenCV's
    block-based labelling (BBDT): the same components with the same stats, a third of the time of its
    default on a zone view (0.05 against 0.18 ms).  Its labels may be numbered in another order; what
    counting does with them does not depend on it."""
    import cv2

    n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    return int(n), labels, stats


def count_in_view(v: _ZoneView, look: TokenLook, zone: str, mm_per_px: float = ZONE_MM_PER_PX) -> int | None:
    """Count tokens whose centre lies in the zone; ``None`` when the count cannot be trusted."""
    import cv2

    if not np.isfinite(v.s).all():
        return None
    tok, foreign, bare, solid = _token_masks(v, look, zone)
    if look.hand_test:
        if solid is None:  # (else the mask's own opening: the same pixels, as 0/1)
            solid = cv2.morphologyEx(tok, cv2.MORPH_OPEN, _ONES5)  # no skin specks
        grow = cv2.dilate(solid, _ELLIPSE7)
        f = foreign.copy()
        f[grow > 0] = 0
        f = cv2.morphologyEx(f, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        big: list[int] = []
        if cv2.countNonZero(f) * mm_per_px ** 2 > 150.0:  # else no piece of it is a hand (mostly nothing is)
            n, flab, stats = _components(f)
            big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] * mm_per_px ** 2 > 150.0]
        if big:
            # only what reaches into the zone covers it (a car parked beside the zone does not)
            ins = flab[v.inside]
            if max(int(np.count_nonzero(ins == i)) for i in big) * mm_per_px ** 2 >= 25.0:
                return None
    tok, raw = _clean_masks(tok, look, mm_per_px)
    unit = look.area_mm2 / mm_per_px ** 2
    n, labels, stats = _components(tok)
    # the frame's own token size: lone round tokens measure it (blur, threshold, a slightly wrong diameter)
    radius = look.mask_diameter_mm / 2 / mm_per_px
    lone = []
    for i in range(1, n):
        a = stats[i, cv2.CC_STAT_AREA]
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if 0.7 * unit < a < 1.3 * unit and 0.8 < bw / max(bh, 1) < 1.25 and a / (bw * bh) > 0.68:
            lone.append(math.sqrt(a / math.pi))
    if lone:
        radius = float(np.clip(np.median(lone), 0.8 * radius, 1.15 * radius))
    inside = v.inside
    # a pile (a blob bigger than a token) may hide a token inside its outline: its rim is looked for around
    # it, the brightness steps judged against the tokens' brightness
    piles = n > 1 and stats[1:, cv2.CC_STAT_AREA].max() > 1.3 * unit
    level = _median(v.s[tok > 0]) / 3 if piles else 0.0
    # a token's centre lies 0.85 radius inside its pile, so a rim a millimetre beyond the radius lies within
    # 0.15 radius + 1 mm of the pile; the blur and the gradient reach 2 px further
    reach = int(math.ceil(0.15 * radius + 1.0 / mm_per_px)) + 2
    dist_in, dist_out = _zone_distances(inside)
    edge_px = 2.5 / mm_per_px
    h, w = inside.shape
    total = 0
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < 0.25 * unit:
            continue  # a speck: dust, a glint, far smaller than what shows of any token
        x, y, bw, bh = (int(stats[i, k]) for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                                    cv2.CC_STAT_HEIGHT))
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        # a blob far outside the zone is none of its business
        if not blob[inside[y:y + bh, x:x + bw]].any() and dist_out[y:y + bh, x:x + bw][blob > 0].min() > radius:
            continue
        res: tuple[list[tuple[float, float]], float] | None
        if 0.8 * unit < area < 1.2 * unit and 0.85 < bw / max(bh, 1) < 1.18 and area / (bw * bh) > 0.7 \
                and abs(bw - 2 * radius) < 0.2 * radius:
            # one lone round token: its centre is the blob's
            m = cv2.moments(blob, binaryImage=True)
            res = ([(m["m10"] / m["m00"], m["m01"] / m["m00"])], 0.0)
        else:
            rims = None if area < 1.3 * unit else _rims(v, (x - reach, y - reach, x + bw + reach, y + bh + reach),
                                                         level, mm_per_px)
            res = _discs_in_blob(blob, radius, rims, raw=blob & (raw[y:y + bh, x:x + bw] > 0),
                                 bare=bare[y:y + bh, x:x + bw], origin=(x, y))
        if res is None:
            return None
        centres, unexplained = res
        if unexplained > 0.15 or not centres:
            return None  # a shape no pile of whole tokens makes: cut by something, or not tokens
        for cx, cy in centres:
            px, py = int(round(cx)) + x, int(round(cy)) + y
            px, py = min(max(px, 0), w - 1), min(max(py, 0), h - 1)
            if inside[py, px]:
                if dist_in[py, px] < edge_px:
                    return None  # on the zone's edge: whose token is it?
                total += 1
            elif dist_out[py, px] < edge_px:
                return None
            elif touches and dist_out[py, px] < radius:
                return None
    return total


def zone_whites(image: np.ndarray, calibration: Calibration, look: TokenLook) -> dict[str, np.ndarray | None]:
    whites = paper_white(image, calibration, look.corner_mm)
    out = {}
    for z in calibration.zones:
        c = np.array(z.polygon).mean(axis=0)
        out[z.name] = white_at(whites, c, calibration.mat_mm)
    return out


def count_tokens(image: np.ndarray, calibration: Calibration, look: TokenLook) -> dict[str, int | None]:
    """Count every ``tokens`` zone of the calibration in one frame (no stillness check)."""
    zones = [z for z in calibration.zones if z.kind == "tokens"]
    if not _has_colour(image) or _is_grey(image):
        return {z.name: None for z in zones}
    whites = zone_whites(image, calibration, look)
    out: dict[str, int | None] = {}
    for z in zones:
        out[z.name] = _count_zone(image, calibration, look, z, whites.get(z.name))
    return out


def _is_grey(image: np.ndarray) -> bool:
    """A colour-less frame (a grey camera mode saved as BGR): tokens cannot be told by colour."""
    import cv2

    b, g, r = cv2.split(np.ascontiguousarray(image[::7, ::7]))
    spread = cv2.max(cv2.max(cv2.absdiff(b, g), cv2.absdiff(g, r)), cv2.absdiff(b, r))
    return int(np.count_nonzero(spread >= 4)) < 0.01 * spread.size


def _count_zone(image: np.ndarray, calibration: Calibration, look: TokenLook, zone: Zone,
                white: np.ndarray | None, rectified: tuple[np.ndarray, np.ndarray] | None = None) -> int | None:
    if white is None:
        return None  # no corner tag seen: no white balance, no trustworthy colour
    v = _view(image, calibration, zone, white, rectified)
    return count_in_view(v, look, zone.name)


# --------------------------------------------------------------------------------------------------
# Learning at set-up


def learn_mats(image: np.ndarray, calibration: Calibration, look: TokenLook,
               skip: tuple[str, ...] = ()) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The bare mat of every token zone from a frame (the calibration frame, or the teach frame's empty
    zones): (zone -> white-balanced mat image, zone -> why it was not learned)."""
    if not _has_colour(image) or _is_grey(image):
        return {}, {z.name: "the frame has no colour" for z in calibration.zones if z.kind == "tokens"}
    whites = zone_whites(image, calibration, look)
    mats: dict[str, np.ndarray] = {}
    why: dict[str, str] = {}
    bare = replace(look, mats={})
    for z in calibration.zones:
        if z.kind != "tokens" or z.name in skip:
            continue
        white = whites.get(z.name)
        if white is None:
            why[z.name] = "no corner tag was seen for the white balance"
            continue
        v = _view(image, calibration, z, white)
        # Token-coloured artwork (a printed mat) is mat all the same; only things counted as tokens
        # (round, token-sized) mean the zone was not cleared for the calibration frame.
        if (count_in_view(v, bare, z.name) or 0) > 0:
            why[z.name] = "it is not empty (tokens lie in it)"
            continue
        mats[z.name] = np.clip(v.crop, 0, 255).astype(np.uint8)
    return mats, why


def teach_look(image: np.ndarray, calibration: Calibration, look: TokenLook, zone: str,
               count: int | None = None) -> TokenLook:
    """Learn the token colour (and size) from a frame with tokens lying apart or touching in ``zone``,
    and the bare mat of the other zones; the zone's own mat is the one already learned (the calibration
    frame's) or, without one, what surrounds the tokens.  With ``count``, the new look must read that
    many tokens there.  Raises :class:`TokenLookError` saying what to fix."""
    import cv2

    names = [z.name for z in calibration.zones if z.kind == "tokens"]
    if zone not in names:
        raise TokenLookError(f"zone {zone!r} is not a token zone of the calibration; zones are {', '.join(names)}")
    if not _has_colour(image) or _is_grey(image):
        raise TokenLookError("the frame has no colour (grey); set the camera to colour and take it again")
    z = calibration.zone(zone)
    whites = zone_whites(image, calibration, look)
    white = whites.get(zone)
    if white is None:
        raise TokenLookError("no corner tag is visible for the white balance; uncover the four corner tags")
    v = _view(image, calibration, z, white)
    # Token pixels: what differs from the bare mat (learned, or the zone's commonest colour) in
    # saturated, token-sized patches.
    ref = look.mats.get(zone)
    r0: Any
    g0: Any
    if ref is not None and ref.shape[:2] == v.r.shape:
        rf = cv2.GaussianBlur(ref.astype(np.float32), (5, 5), 1.2)
        r0, g0, _ = _features(rf)
    else:
        r0, g0 = float(np.median(v.r)), float(np.median(v.g))
    diff = np.hypot(v.r - r0, v.g - g0)
    cand = ((diff > 0.05) & v.inside).astype(np.uint8) * 255
    cand = cv2.morphologyEx(cand, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cand, connectivity=8)
    unit = look.area_mm2 / ZONE_MM_PER_PX ** 2
    keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 0.4 * unit]
    if not keep:
        # (an audit: tokens lay on the p1 card, which calibration had not seen and so placed p1 elsewhere)
        raise TokenLookError(f"no tokens found in zone {zone!r}; lay 3-6 tokens flat in it, apart, and take the "
                             f"frame again (tokens on the {zone} card already? then the zone is not where the card "
                             "lies: calibrate again with every card in view)")
    sel = np.isin(labels, keep).astype(np.uint8)
    core = cv2.erode(sel, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))) > 0  # away from the rims
    rr, gg, ss = v.r[core], v.g[core], v.s[core]
    bright = ss > np.percentile(ss, 35)  # printed icons are dark: the token's own colour is the bright part
    rr, gg, ss = rr[bright], gg[bright], ss[bright]
    if len(rr) < 50:
        raise TokenLookError(f"the tokens in zone {zone!r} are too small or too few to learn; lay 3-6 tokens "
                             "flat in it and take the frame again")
    cov = np.cov(np.vstack([rr, gg]))
    colour = TokenColour(float(np.median(rr)), float(np.median(gg)),
                         (float(cov[0, 0]), float(cov[0, 1]), float(cov[1, 1])),
                         float(np.median(ss)) / (3 * WHITE_LEVEL))
    if math.hypot(colour.r - 1 / 3, colour.g - 1 / 3) < 0.03:
        raise TokenLookError("the tokens have almost no colour against white paper; Pitboard tells tokens by "
                             "their colour, use coloured tokens")
    taught = replace(look, colour=colour, taught=True)
    mats, _ = learn_mats(image, calibration, taught, skip=(zone,))
    own = dict(look.mats)
    own.update(mats)
    if zone not in own:
        # the mat under the tokens: this frame, tokens replaced by the surrounding mat
        hole = cv2.dilate(sel, np.ones((7, 7), np.uint8))
        own[zone] = cv2.inpaint(np.clip(v.crop, 0, 255).astype(np.uint8), hole, 5, cv2.INPAINT_TELEA)
    taught = replace(taught, mats=own)
    # how big a token looks in this camera's colour mask: the lone tokens of the frame
    tmask = _prepared_mask(_view(image, calibration, z, white), taught, zone)
    n, _, stats, _ = cv2.connectedComponentsWithStats(tmask, connectivity=8)
    round_blobs = []  # (area in token units, diameter in mm) of each round blob: a token lying alone
    for i in range(1, n):
        a, bw, bh = (int(stats[i, k]) for k in (cv2.CC_STAT_AREA, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
        if 0.85 < bw / max(bh, 1) < 1.18 and a / (bw * bh) > 0.68:
            round_blobs.append((a / unit, 2 * math.sqrt(a / math.pi) * ZONE_MM_PER_PX))
    lone = [d for ratio, d in round_blobs if 0.6 < ratio < 1.5]
    # the sizes to try, best first; the first that reads ``count`` tokens in the frame is kept
    tries: list[TokenLook] = []
    if lone:
        seen = float(np.clip(np.median(lone), 0.85 * look.diameter_mm, 1.2 * look.diameter_mm))
        tries.append(replace(taught, seen_diameter_mm=seen, size_source="alone"))
    elif count is not None:
        diameters = np.array([d for _, d in round_blobs])
        if len(diameters) and np.all(np.abs(diameters - np.median(diameters)) <= 0.15 * np.median(diameters)):
            # tokens lie alone, but none near the configured size: the tokens are smaller or larger than
            # ``diameter_mm`` (15 mm tokens look half a 20 mm token's area).  When the round blobs agree on
            # a size, it is taken, within what any token is; the count of the frame must then come right
            mid = float(np.median(diameters))
            tries.append(replace(taught, size_source="alone",
                                 seen_diameter_mm=float(np.clip(mid, 0.6 * look.diameter_mm, 1.5 * look.diameter_mm))))
        # No token lies alone (they touch): ``count`` tokens cover the mask's area, touching discs do not
        # overlap.  Where tokens touch no mat shows between them, so the blur that trims a lone token's
        # rim in the colour mask trims less there: on the tuning seeds' 144 teach frames the area of
        # tokens that all touch gives 1.05 x the printed size (median; 0.99-1.11) where lone tokens show
        # 1.025 x, hence ``TOUCHING_AREA_D``.  Tokens resting on another make it small.  Only good to
        # ``AREA_AGREES`` (0.97-1.08 x after the correction there), so it is taken only when it says the
        # tokens are another size than ``diameter_mm`` (an outside probe's 23.5 and 16.7 mm tokens:
        # 1.12 and 0.75 x); within it the configured size stands (taken there, ~20.6 mm read 2 piles of
        # 20 mm tokens wrong on seed 11's stacked tables, 0 with 20 mm).
        area = float(np.count_nonzero(tmask)) * ZONE_MM_PER_PX ** 2
        by_area = TOUCHING_AREA_D * 2 * math.sqrt(area / (count * math.pi))
        if area > 0 and abs(by_area / look.diameter_mm - 1) > AREA_AGREES:
            tries.append(replace(taught, size_source="area",
                                 seen_diameter_mm=float(np.clip(by_area, 0.6 * look.diameter_mm, 1.5 * look.diameter_mm))))
            tries.append(taught)  # the configured ``diameter_mm``
        else:
            tries.append(replace(taught, size_source="area agrees" if area > 0 else ""))
    else:
        tries.append(taught)
    if count is None:
        return tries[0]
    got: int | None = None  # what the zone reads, said in the refusal: the first size that reads a number
    for attempt in tries:
        n_read = _count_zone(image, calibration, attempt, z, white)
        if n_read == count:
            return attempt
        if got is None:
            got = n_read
    sizes = ", ".join(f"{d:.0f}" for _, d in sorted(round_blobs, key=lambda x: x[1])[:8])
    size_hint = (f"; tokens lying alone measure {sizes} mm here against {look.diameter_mm:g} mm expected: "
                 "if yours are another size, set [tokens] diameter_mm in the table config"
                 if round_blobs else "")
    raise TokenLookError(f"with the learned colour the zone {zone!r} reads {got if got is not None else 'as unclear'}"
                         f", not {count}; lay the tokens apart, flat and wholly inside the zone, keep hands "
                         f"away and take the frame again{size_hint}")


LOOK_SCHEMA = 1


def look_to_arrays(look: TokenLook) -> dict[str, np.ndarray]:
    """The learned part of a look (token colour, whether it was taught, each zone's bare mat) as named
    arrays, for ``device`` to store (``numpy.savez``, no pickles).  The inverse is ``look_from_arrays``."""
    c = look.colour
    out = {
        "schema": np.array([LOOK_SCHEMA], np.int64),
        "colour": np.array([c.r, c.g, c.cov[0], c.cov[1], c.cov[2], c.lightness], np.float64),
        "taught": np.array([1 if look.taught else 0], np.int64),
        "seen_diameter_mm": np.array([look.seen_diameter_mm if look.seen_diameter_mm is not None else np.nan]),
    }
    for name, mat in look.mats.items():
        out[f"mat:{name}"] = np.ascontiguousarray(mat, dtype=np.uint8)
    return out


def look_from_arrays(arrays: Mapping[str, np.ndarray], base: TokenLook) -> TokenLook:
    """``base`` (the table config's look: diameter, hand test) with the learned colour and mats of
    ``arrays`` (``look_to_arrays``).  Raises ``TokenLookError`` naming what is wrong."""
    try:
        schema = int(np.asarray(arrays["schema"]).ravel()[0])
        col = np.asarray(arrays["colour"], dtype=np.float64).ravel()
        taught = bool(int(np.asarray(arrays["taught"]).ravel()[0]))
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise TokenLookError(f"the token look lacks schema/colour/taught ({exc!r})") from exc
    if schema != LOOK_SCHEMA:
        raise TokenLookError(f"token look schema {schema} is not {LOOK_SCHEMA}")
    if col.shape != (6,) or not np.all(np.isfinite(col)):
        raise TokenLookError("the token colour must be six finite numbers (r, g, cov rr, rg, gg, lightness)")
    if not (0.0 < col[0] < 1.0 and 0.0 < col[1] < 1.0 and col[2] >= 0 and col[4] >= 0 and 0.0 < col[5] < 2.0):
        raise TokenLookError("the token colour is out of range (r, g in 0..1, variances >= 0, lightness 0..2)")
    mats: dict[str, np.ndarray] = {}
    for key, arr in arrays.items():
        if not key.startswith("mat:"):
            continue
        a = np.asarray(arr)
        if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3 or not (8 <= a.shape[0] <= 2000 and 8 <= a.shape[1] <= 2000):
            raise TokenLookError(f"the bare mat of zone {key[4:]!r} is not a colour image (got {a.dtype} {a.shape})")
        mats[key[4:]] = a
    colour = TokenColour(float(col[0]), float(col[1]), (float(col[2]), float(col[3]), float(col[4])), float(col[5]))
    seen = None
    if taught and "seen_diameter_mm" in arrays:
        d = float(np.asarray(arrays["seen_diameter_mm"], dtype=np.float64).ravel()[0])
        if math.isfinite(d):
            if not 0.7 * base.diameter_mm <= d <= 1.3 * base.diameter_mm:
                raise TokenLookError(f"the taught token size {d:.1f} mm does not fit tokens of {base.diameter_mm:g} mm")
            seen = d
    return replace(base, colour=colour if taught else base.colour, taught=taught, mats=mats, seen_diameter_mm=seen)


# --------------------------------------------------------------------------------------------------
# Stillness


@dataclass
class TokenCounter:
    """Counts tokens per zone once the zone has been still for ``still_frames`` consecutive frames.

    ``update(frame)`` returns zone -> count, or ``None`` for a zone that is moving (or uncountable).
    A zone is "still" when the mean absolute grey-level change between frames, in the rectified
    zone (at ``ZONE_MM_PER_PX``), stays below ``motion_threshold``."""

    calibration: Calibration
    look: TokenLook = TokenLook()
    still_frames: int = 3
    motion_threshold: float = 4.0
    _prev: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _still: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    def update(self, frame: np.ndarray) -> dict[str, int | None]:
        import cv2

        out: dict[str, int | None] = {}
        colour = _has_colour(frame) and not _is_grey(frame)
        whites = zone_whites(frame, self.calibration, self.look) if colour else {}
        m = int(round(ZONE_MARGIN_MM / ZONE_MM_PER_PX))
        for z in self.calibration.zones:
            if z.kind != "tokens":
                continue
            # one rectified crop for the stillness test (the zone itself) and the count (with its margin)
            rectified = rectify_zone(frame, self.calibration, z, ZONE_MM_PER_PX, ZONE_MARGIN_MM)
            crop, mask = (a[m:-m, m:-m] for a in rectified)
            grey = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop).astype(np.int16)
            prev = self._prev.get(z.name)
            moving = prev is None or prev.shape != grey.shape or float(
                np.mean(np.abs(grey - prev)[mask > 0])) > self.motion_threshold
            self._prev[z.name] = grey
            self._still[z.name] = 0 if moving else self._still.get(z.name, 0) + 1
            # the first frame counts as one still frame only after a second one agrees
            ready = self._still[z.name] >= self.still_frames - 1 and not moving
            out[z.name] = _count_zone(frame, self.calibration, self.look, z, whites.get(z.name), rectified) \
                if ready and colour else None
        return out

    def zone_state(self) -> Mapping[str, int]:
        """Zone -> number of consecutive still frames seen so far."""
        return dict(self._still)


@dataclass
class CountMemo:
    """Each zone's count as last counted, kept while the zone shows what it showed then.  At the table
    most zones lie untouched for minutes, and counting is most of a frame's time (on a Pi several times
    this machine's): a zone is counted again when more than ``changed_px`` pixels of it (the rectified
    zone with its margin, at ``ZONE_MM_PER_PX``, blurred 3 x 3) moved by more than ``luma_step`` in
    brightness or ``chroma_step`` in either colour channel (YCrCb) since the frame its count came from.
    Colour too: a yellow token on a tan mat is nearly the mat's grey.  One token is ~300 such pixels at
    1 mm a pixel; sensor noise and JPEG move a few.  It is compared with the frame that was counted, not
    the last one, so a slow drift adds up to a recount.  "Cannot count" is never kept: such a zone is
    counted on every frame, as without the memo, so a count that comes clear is not missed.  Use as
    ``read_table``'s ``token_counter``; a new calibration or token look needs a new memo."""

    calibration: Calibration
    look: TokenLook = TokenLook()
    luma_step: int = 25
    chroma_step: int = 12
    changed_px: int = 30
    counted: int = field(default=0, init=False)  # zone counts made (the rest came from the memo)
    _memo: dict[str, tuple[np.ndarray, int]] = field(default_factory=dict, init=False, repr=False)

    def update(self, frame: np.ndarray) -> dict[str, int | None]:
        import cv2

        zones = [z for z in self.calibration.zones if z.kind == "tokens"]
        if not _has_colour(frame) or _is_grey(frame):
            self._memo.clear()
            return {z.name: None for z in zones}
        whites: dict[str, np.ndarray | None] | None = None  # only when a zone is counted again
        steps = (self.luma_step, self.chroma_step, self.chroma_step)
        out: dict[str, int | None] = {}
        for z in zones:
            rectified = rectify_zone(frame, self.calibration, z, ZONE_MM_PER_PX, ZONE_MARGIN_MM)
            ycc = cv2.blur(cv2.cvtColor(rectified[0], cv2.COLOR_BGR2YCrCb), (3, 3))
            hit = self._memo.get(z.name)
            if hit is not None and hit[0].shape == ycc.shape:
                d = cv2.absdiff(ycc, hit[0])
                moved = (d[..., 0] > steps[0]) | (d[..., 1] > steps[1]) | (d[..., 2] > steps[2])
                if int(np.count_nonzero(moved)) <= self.changed_px:
                    out[z.name] = hit[1]
                    continue
            if whites is None:
                whites = zone_whites(frame, self.calibration, self.look)
            n = _count_zone(frame, self.calibration, self.look, z, whites.get(z.name), rectified)
            self.counted += 1
            out[z.name] = n
            if n is None:
                self._memo.pop(z.name, None)
            else:
                self._memo[z.name] = (ycc, n)
        return out


def skin_mask(bgr: np.ndarray) -> np.ndarray:
    """Pixels that look like skin (YCrCb box rule).  Kept for the template search's hand test; the token
    zones judge hands against the learned mat instead (a tan or wooden mat passes this rule)."""
    import cv2

    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycc, (40, 136, 78), (255, 185, 132))
