"""The dice's size in pixels, found before they are read.

Why: the detector and the reader were trained on dice of 16-62 pixels (most 30-50); a camera mounted
lower, bigger dice or a whole 1080p frame changes a die's size in pixels, and the same photo scaled 2x
gave no dice at all, or a "die" for every pip.  So the reader works at one die size, ``TARGET_PX``:

* **Known size** (``die_px``, from a table calibration: px per mm times the dice's side in mm, see
  :func:`die_px_from_mm`): the detector sees the image scaled by ``TARGET_PX / die_px``.
* **Unknown size** (a photo): a cheap scale search.  The detector runs at the image's own size first
  and the reader takes one look at each die the detector is sure of (peak >= ``SURE_P``, size within
  ``BAND``); when it reads every one sure (>= ``CONFIRM_P``), some read 2-6 and their size is near
  ``TARGET_PX`` (the usual case), that is the answer and those looks are reused.  Otherwise the
  detector also runs at 1/2, 1/4, 1/8 of the image (and 2 for small images, or when many detections
  are too small to trust), judged the same way; the level with the most dice read 2-6, less the sure
  detections the reader calls "not a die", gives the dice's size (then more 1s, then the finer level,
  whose size estimate is better).  Why the reader: at a level far too fine the detector finds pips and
  pieces of dice as "dice" (a pip reads 1, a piece "not a die"), and at a level far too coarse it finds
  trays.  The coarse levels cost little (1/4 + 1/16 + 1/64 of one detection at full size), and the
  detections of the chosen level are reused when it is near the scale wanted.

Only the detection is scaled: each die is then read from the full-resolution image (the reader's crop
is resampled to 64x64 either way), so no pixel the camera gave is lost.  Pure functions of images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.dice import net

#: The die side (input pixels) the detector works best at: the median die of the real photos it was
#: trained on (nell_ 39 px, matteo_ 41 px).
TARGET_PX = 40.0
#: Sizes (level pixels) at which the detector's size is trusted for the scale search: inside the range
#: it was trained on, away from its edges.
BAND = (24.0, 80.0)
#: Least detector peak for a die to count in the scale search (higher than DETECT_P: only dice the
#: detector is sure of set the scale).
SURE_P = 0.5
#: Pyramid levels of the search (searched from 1 down).  Level 2 (upscaled) always for images whose upscaled
#: long side is at most UPSCALE_MAX pixels, and for images up to twice that when the detector finds dice
#: too small to trust at level 1 (beyond that, dice small enough to need it are too small to read).
LEVELS = (0.125, 0.25, 0.5, 1.0)
UPSCALE_MAX = 1000
#: A level's short side must be at least this many pixels for the detector to see anything.
MIN_LEVEL_SIDE = 48
#: Detections already made at a level within this factor of the wanted scale are reused.
RESCALE_BEYOND = 1.25
#: Scales of the detection are kept within these (a whole 4K frame of tiny dice is not upscaled further).
MIN_SCALE, MAX_SCALE = 1 / 8, 2.0
#: Dice sides (image pixels) the reader reads well: from 20 px (50 dev nell_ photos scaled down, die side
#: known: 39 px 0.987 of dice read right, 20 px 0.983, 14 px 0.87, 10 px 0.43) up to what the detection still
#: brings down to TARGET_PX (MIN_SCALE: 156 px read 0.983).  ``pitboard check`` warns outside it.
READABLE_PX = (20.0, TARGET_PX / MIN_SCALE)
#: Dice sizes the owner may configure (mm): small 12 mm dice to large 19 mm ones.
DICE_MM = (12.0, 19.0)


def die_px_from_mm(px_per_mm: float, dice_mm: float) -> float:
    """A die's side in image pixels from the table calibration's scale and the dice's size (12-19 mm).
    Raises ``ValueError`` for a size outside that range or a scale that is not positive."""
    if not DICE_MM[0] <= dice_mm <= DICE_MM[1]:
        raise ValueError(f"dice size {dice_mm:g} mm is outside {DICE_MM[0]:g}-{DICE_MM[1]:g} mm; give the side "
                         "of one die in mm (16 mm is the common size)")
    if not px_per_mm > 0 or not math.isfinite(px_per_mm):
        raise ValueError(f"pixels per mm must be a positive number, not {px_per_mm!r}")
    return px_per_mm * dice_mm


class PixelsToMm(Protocol):
    """What :func:`px_per_mm_at` needs of a table calibration (``vision.calibration.Calibration``)."""

    def to_mm(self, pts_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray: ...


def px_per_mm_at(calibration: PixelsToMm, x: float, y: float, height_mm: float = 0.0) -> float:
    """The image's scale (pixels per mm of the table) around picture pixel (x, y): the mean of the two
    axes' local scale, through the calibration's lens and homography.  Dice in a tray beside the mat are
    read at the scale of the nearest table plane; a tray off the calibrated area is only approximately
    right, which the detector's size tolerance (:data:`COMFORT`) absorbs."""
    step = 8.0
    pts = np.array([[x, y], [x + step, y], [x, y + step]], dtype=np.float64)
    mm = np.asarray(calibration.to_mm(pts, height_mm), dtype=np.float64)
    d = float(np.hypot(*(mm[1] - mm[0]))) + float(np.hypot(*(mm[2] - mm[0])))
    if not d > 0 or not math.isfinite(d):
        raise ValueError("the calibration gives no scale at the dice tray (a degenerate calibration); run "
                         "`pitboard calibrate` again")
    return 2 * step / d


def _resized(img: np.ndarray, f: float) -> np.ndarray:
    h, w = img.shape[:2]
    size = (max(1, round(w * f)), max(1, round(h * f)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)


#: Least reader probability (one look) of a value 1..6 for a detection to count as a die in the search.
CONFIRM_P = 0.9
#: Dice this close to TARGET_PX (a factor) are detected at the image's own size: 28-56 px, about the
#: 5th-95th percentile of the real photos' dice (nell_ 30-52 px, matteo_ 20-57 px) the networks were
#: trained on; no need to rescale them.
COMFORT = 1.4


@dataclass(frozen=True)
class ScaleSearch:
    """The outcome of :func:`search`: the dice's side in input pixels (None: no die the reader is sure
    of at any level), the detections made at each level (input pixels), and the reader's first look
    (N x 7 probabilities) at each detection it looked at, by detection: both reused by the reading."""

    die_px: float | None
    levels: dict[float, list[net.Detection]]
    looked: dict[net.Detection, np.ndarray]


def _detect_at(img: np.ndarray, f: float) -> list[net.Detection]:
    """Detections (DETECT_P) of ``img`` seen at scale ``f``, in ``img`` pixels."""
    dets = net.detect(img if f == 1.0 else _resized(img, f))
    if f == 1.0:
        return dets
    return [net.Detection((d.center[0] / f, d.center[1] / f), d.size / f, d.score) for d in dets]


@dataclass(frozen=True)
class _Level:
    f: float
    sizes: list[float]  # input pixels of the dice read with a sure value
    rejected: int  # sure detections the reader calls "not a die's top face"
    valued: tuple[float, ...]  # input pixels of those read 2-6 (a pip seen as a die reads 1)
    looked: int  # sure detections the reader looked at (the sure values, the rejected and the unsure)

    @property
    def ones(self) -> int:
        """Of the dice read with a sure value, those read 1."""
        return len(self.sizes) - len(self.valued)

    @property
    def score(self) -> tuple[int, int, float]:
        """Dice read 2-6 less the rejected, then dice read 1, then the finer level."""
        return (len(self.sizes) - self.ones - self.rejected, self.ones, self.f)


def _level(img: np.ndarray, dets: list[net.Detection], f: float, looked: dict[net.Detection, np.ndarray]) -> _Level:
    """How the reader (one look) judges the detections at level ``f`` that the detector is sure of, at
    a size it knows; "not a die" is p >= 0.5, as ``read_dice`` drops such detections."""
    sure = [d for d in dets if d.score >= SURE_P and BAND[0] <= d.size * f <= BAND[1]]
    if not sure:
        return _Level(f, [], 0, (), 0)
    crops = np.stack([net.reader_crop(img, d.center, d.size) for d in sure])
    p = net.turned_probabilities(net.session(net.READER), crops, turns=(0,))
    if f == 1.0:
        looked.update(zip(sure, p))
    k = np.argmax(p, axis=1)
    ok = (k > 0) & (p.max(axis=1) >= CONFIRM_P)
    return _Level(f, [d.size for d, good in zip(sure, ok) if good], int((p[:, 0] >= 0.5).sum()),
                  tuple(d.size for d, good, v in zip(sure, ok, k) if good and v > 1), len(sure))


def _plainly_right(level: _Level, dets: list[net.Detection]) -> bool:
    """Level 1 needs no search: the reader is sure of every die it looked at (none "not a die", none unsure:
    at 2-3x dice beyond the band are not looked at, and of the pips and pip pairs inside it the reader was
    sure of a few, 2 of 16 in one photo, which set the size to a pip pair's), some read 2-6 (not only 1s:
    pips seen as dice read 1), the size of those is one the networks know well (not the 1s': at 3x a photo's
    pips, read 1, set the size for one real die read 5, and every pip of its dice was a die), and there are
    fewer detections too small to trust than such dice (four tiny dice side by side look like a 4)."""
    med = float(np.median(level.valued)) if level.valued else 0.0
    small = sum(1 for d in dets if d.size < BAND[0])
    # (every one read sure leaves none "not a die": that is p >= 0.5 of no value, a sure value p >= CONFIRM_P of one)
    return (len(level.sizes) == level.looked and len(level.sizes) - level.ones >= 1
            and small < len(level.sizes) and 1 / COMFORT <= med / TARGET_PX <= COMFORT)


def search(img: np.ndarray) -> ScaleSearch:
    """The pyramid search of the module doc."""
    h, w = img.shape[:2]
    levels: dict[float, list[net.Detection]] = {}
    looked: dict[net.Detection, np.ndarray] = {}
    judged: dict[float, _Level] = {}

    def consider(f: float) -> _Level:
        levels[f] = _detect_at(img, f)
        judged[f] = _level(img, levels[f], f, looked)
        return judged[f]

    tiny = 2 * max(h, w) <= UPSCALE_MAX  # a small image: every level is cheap, so none is skipped
    if _plainly_right(consider(1.0), levels[1.0]) and not tiny:
        return ScaleSearch(float(np.median(judged[1.0].sizes)), levels, looked)
    best = -(10 ** 6)
    for f in [f for f in LEVELS if f * min(h, w) >= MIN_LEVEL_SIDE and f < 1.0][::-1]:
        score = consider(f).score[0]
        if score < best and best >= 2:
            break  # fewer dice than at a finer level: coarser still, the dice get too small to see
        best = max(best, score)
    if tiny:
        consider(2.0)  # a small image: upscaling it costs no more than reading a photo
    elif max(h, w) <= 2 * UPSCALE_MAX:
        # dice found at the image's own size but too small for their size to be trusted
        small = sum(1 for d in levels[1.0] if d.size < BAND[0])
        if small and small >= max(0, judged[1.0].score[0]) + judged[1.0].ones:
            consider(2.0)
    found = [lv for lv in judged.values() if lv.sizes]
    if not found:
        return ScaleSearch(None, levels, looked)
    top = max(found, key=lambda lv: lv.score)
    return ScaleSearch(float(np.median(top.sizes)), levels, looked)


def find_die_px(img: np.ndarray) -> float | None:
    """The dice's side in ``img`` pixels by the pyramid search, or None when no level shows a die the
    reader is sure of."""
    return search(img).die_px


def detection_scale(die_px: float | None) -> float:
    """The factor by which the detector should see an image whose dice are ``die_px`` across: 1 when
    unknown or within COMFORT of TARGET_PX, else TARGET_PX / die_px (within MIN_SCALE..MAX_SCALE)."""
    if die_px is None or not die_px > 0 or 1 / COMFORT <= die_px / TARGET_PX <= COMFORT:
        return 1.0
    return min(MAX_SCALE, max(MIN_SCALE, TARGET_PX / die_px))


def detect(img: np.ndarray, die_px: float | None = None) -> tuple[list[net.Detection], dict[net.Detection, np.ndarray]]:
    """The dice in ``img`` (input pixels), detected at the die size the networks know (``die_px`` when
    given, else found by :func:`search`), and the reader's first looks already taken, by detection."""
    levels: dict[float, list[net.Detection]] = {}
    looked: dict[net.Detection, np.ndarray] = {}
    if die_px is None:
        found = search(img)
        die_px, levels, looked = found.die_px, found.levels, found.looked
    f = detection_scale(die_px)
    near = [k for k in levels if 1 / RESCALE_BEYOND <= k / f <= RESCALE_BEYOND]
    if near:
        return levels[min(near, key=lambda k: abs(math.log(k / f)))], looked
    return _detect_at(img, f), looked
