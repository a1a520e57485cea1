"""Hazard tokens: how many lie in each player's token zone, reported only when the zone is still.

Counting is by *area*, not by blob: tokens that touch merge into one blob, but a blob of n touching
round tokens covers n token areas.  The zone is rectified to 1 px per mm first, so a token covers the
same number of pixels wherever it lies and however the camera is tilted.  Printed icons on a token are
filled in (outer contours), so only the token's outline matters.  A blob whose area is not close to a
whole number of tokens (a token half outside the zone, two tokens stacked askew, a finger) makes the
count ``None`` - an honest "cannot count" - and so does skin in the zone.

Stillness lives in :class:`TokenCounter`, a small stateful object fed frames: it compares each zone
with the previous frame and only counts a zone after it has been still for ``still_frames`` frames.
No clocks: "still for N frames" is the camera's frame rate's business.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from vision.calibration import Calibration, Zone


@dataclass(frozen=True)
class TokenLook:
    """Colour (OpenCV HSV: hue 0..179, saturation/value 0..255) and size of one hazard token."""

    hue_min: int = 20
    hue_max: int = 38
    sat_min: int = 150
    val_min: int = 90
    diameter_mm: float = 20.0

    @property
    def area_mm2(self) -> float:
        return math.pi * (self.diameter_mm / 2) ** 2


def rectify_zone(image: np.ndarray, calibration: Calibration, zone: Zone, mm_per_px: float = 1.0):
    """Top-down crop of a zone: (BGR image, mask of the zone polygon), ``mm_per_px`` mm per pixel."""
    import cv2

    poly = np.array(zone.polygon, dtype=np.float64)
    x0, y0 = poly.min(axis=0)
    x1, y1 = poly.max(axis=0)
    w = max(1, int(math.ceil((x1 - x0) / mm_per_px)))
    h = max(1, int(math.ceil((y1 - y0) / mm_per_px)))
    shift = np.array([[1 / mm_per_px, 0, -x0 / mm_per_px], [0, 1 / mm_per_px, -y0 / mm_per_px], [0, 0, 1]])
    m = shift @ calibration.px_to_mm
    crop = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)
    mask = np.zeros((h, w), np.uint8)
    q = (poly - [x0, y0]) / mm_per_px
    cv2.fillPoly(mask, [np.round(q * 16).astype(np.int32)], 255, shift=4)
    return crop, mask


def skin_mask(bgr: np.ndarray) -> np.ndarray:
    """Pixels that look like skin (YCrCb box rule); used to refuse counting a zone under a hand."""
    import cv2

    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycc, (40, 136, 78), (255, 185, 132))


def count_in_crop(crop: np.ndarray, mask: np.ndarray, look: TokenLook, mm_per_px: float = 1.0,
                  max_skin_fraction: float = 0.01, tolerance: float = 0.35) -> int | None:
    """Count tokens in a rectified zone crop; ``None`` when the count cannot be trusted."""
    import cv2

    inside = mask > 0
    n_inside = int(np.count_nonzero(inside))
    if n_inside == 0:
        return None
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    tok = cv2.inRange(hsv, (look.hue_min, look.sat_min, look.val_min), (look.hue_max, 255, 255))
    # Skin, away from the tokens' own anti-aliased rims (yellow over grey passes for skin there), in
    # patches at least a fingertip big.
    skin = skin_mask(crop)
    skin[cv2.dilate(tok, np.ones((7, 7), np.uint8)) > 0] = 0
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    if np.count_nonzero(skin[inside]) > max(max_skin_fraction * n_inside, 60.0 / mm_per_px ** 2):
        return None
    tok = cv2.morphologyEx(tok, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Seal the one-pixel breaks through which a printed icon's hole opens to the outside.
    tok = cv2.morphologyEx(tok, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    unit = look.area_mm2 / (mm_per_px ** 2)
    # Fill holes smaller than a fifth of a token (a printed icon; the tiny gap three touching tokens
    # enclose) but not the mat a ring of tokens encloses.
    contours, hier = cv2.findContours(tok, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    filled = tok.copy()
    if hier is not None:
        small = [c for j, c in enumerate(contours) if hier[0][j][3] >= 0 and cv2.contourArea(c) < 0.2 * unit]
        cv2.drawContours(filled, small, -1, 255, thickness=cv2.FILLED)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(filled, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(float)
    # The frame's own unit: lone tokens (about one token big and round) measure it, which absorbs
    # blur, threshold and a slightly wrong configured diameter.
    singles = []
    for i in range(1, n):
        k = areas[i - 1] / unit
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if 0.75 < k < 1.3 and 0.8 < w / max(h, 1) < 1.25 and areas[i - 1] / (w * h) > 0.68:
            singles.append(areas[i - 1])
    # Without a lone token to measure, try the configured size as is and with the thin rim that
    # blur and the sealing step add around touching tokens (~7 % here); keep the better fit.
    units = [float(np.median(singles))] if singles else [unit, unit * 1.07]
    comps = []
    for i in range(1, n):
        area = areas[i - 1]
        if area < 0.3 * unit:
            continue  # speck: dust, a glint; far smaller than any token
        # a token cut by the zone edge: its count belongs to whichever side holds most of it
        frac_in = np.count_nonzero((labels == i) & inside) / area
        if frac_in < 0.5:
            continue
        if 0.05 < frac_in < 0.95:
            return None
        comps.append(area)
    best: tuple[float, int] | None = None
    for u in units:
        ks = [a / u for a in comps]
        rs = [int(round(k)) for k in ks]
        worst = max((abs(k - r) for k, r in zip(ks, rs)), default=0.0)
        if any(r == 0 for r in rs):
            continue
        if best is None or worst < best[0]:
            best = (worst, sum(rs))
    if best is None or best[0] > tolerance:
        return None
    return best[1]


def count_tokens(image: np.ndarray, calibration: Calibration, look: TokenLook) -> dict[str, int | None]:
    """Count every ``tokens`` zone of the calibration in one frame (no stillness check)."""
    out: dict[str, int | None] = {}
    for z in calibration.zones:
        if z.kind != "tokens":
            continue
        crop, mask = rectify_zone(image, calibration, z)
        out[z.name] = count_in_crop(crop, mask, look)
    return out


@dataclass
class TokenCounter:
    """Counts tokens per zone once the zone has been still for ``still_frames`` consecutive frames.

    ``update(frame)`` returns zone -> count, or ``None`` for a zone that is moving (or uncountable).
    A zone is "still" when the mean absolute grey-level change between frames, in the rectified
    zone, stays below ``motion_threshold``."""

    calibration: Calibration
    look: TokenLook = TokenLook()
    still_frames: int = 3
    motion_threshold: float = 4.0
    _prev: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _still: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    def update(self, frame: np.ndarray) -> dict[str, int | None]:
        import cv2

        out: dict[str, int | None] = {}
        for z in self.calibration.zones:
            if z.kind != "tokens":
                continue
            crop, mask = rectify_zone(frame, self.calibration, z)
            grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.int16)
            prev = self._prev.get(z.name)
            moving = prev is None or prev.shape != grey.shape or float(
                np.mean(np.abs(grey - prev)[mask > 0])) > self.motion_threshold
            self._prev[z.name] = grey
            self._still[z.name] = 0 if moving else self._still.get(z.name, 0) + 1
            # the first frame counts as one still frame only after a second one agrees
            out[z.name] = count_in_crop(crop, mask, self.look) if self._still[z.name] >= self.still_frames - 1 \
                and not moving else None
        return out

    def zone_state(self) -> Mapping[str, int]:
        """Zone -> number of consecutive still frames seen so far."""
        return dict(self._still)
