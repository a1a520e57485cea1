"""What the camera tells the loop: settled dice rolls, a template laid against the active vehicle, hazard
tokens counted in their zones.  Game-agnostic: the game's menu says which roll is awaited
(``Menu.dice``) and how a seen template or extra tokens become its commands (``Menu.template``,
``Menu.hazards``).

* **Dice.**  When a roll is awaited, the reading of the dice tray (its region of the full frame) is used
  once it has been the same for ``settle_frames`` frames and the dice are not the ones already used (a
  die that has not moved is not a new roll).  A die it cannot read, a hand over the tray, dice still
  tumbling, a die across the tray's edge (is it the roll's?): nothing is sent.  A roll entered by hand
  (buttons, phone, keyboard) uses the dice lying in the tray too, seen or not
  (:meth:`CameraInput.roll_entered`).  The used dice are forgotten only when the tray
  is seen empty, looking as it did around them (a black, white or covered picture is no empty tray).
* **Templates.**  When the menu takes a template, the one the camera sees attached to the active vehicle
  is sent the same way (once per vehicle and template).  When that vehicle's car is not seen, its
  player's screen says why: its tag measures the wrong size, or a template lies attached to no car.
* **Hazard tokens.**  Counts are compared with the log; a mismatch is a notice on the screens, never a
  command: the log is the truth and a person decides (long OK adds the extra tokens).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from games.core import Command, Prompt
from games.core.table_input import DiceRequest, Menu

from device.camera import Frame
from device.config import Region


class TableReader(Protocol):
    """What the loop asks of vision (``VisionReader`` wraps ``vision.dice`` and ``vision.table``)."""

    def read_dice(self, image: Any, die: str) -> list[Any]:
        """Readings with ``.value`` (None: a die it cannot read) and ``.center`` (x, y)."""
        ...

    def read_table(self, image: Any) -> Any:
        """An object with ``.templates`` (``name, hand, attached_to, edge``) and ``.tokens`` (zone → count);
        ``.cars`` (``id``) and ``.misfits`` (``car_id, measured_mm, printed_mm, centre_px``) where it sees cars."""
        ...


@dataclass(frozen=True)
class Mismatch:
    """Hazard tokens the camera counted in a zone that differ from the log."""

    zone: str
    player: str | None
    vehicle: str | None  # the one vehicle the zone is for (None: a zone shared by several vehicles)
    name: str
    table: int
    log: int
    removed: int = 0  # of the table's tokens, those the rules took off (to go, not to add)
    due: int = 0  # tokens the rules add soon (Gaslands 1.5): laid already, they are not to add

    @property
    def extra(self) -> int:
        """Tokens on the table that nothing will enter (a long OK's to add): none the rules took off."""
        return 0 if self.removed else max(0, self.table - self.log - self.due)


def cant_read_words(readings: Sequence[Any], request: DiceRequest) -> str:
    """What the roller is told of dice lying still with one the camera cannot read: what it reads, in reading
    order (rows from the top), "?" where it cannot, and what to do ("camera: 3 3 ? 2 - can't read 1 die: lay
    it flat, or use the buttons")."""
    ordered = sorted(readings, key=lambda r: (float(r.center[1]), float(r.center[0])))
    shown = " ".join("?" if r.value is None else str(request.name_of(plain(r.value))) for r in ordered)
    edge = sum(1 for r in readings if isinstance(r, EdgeDie))
    bad = sum(1 for r in readings if r.value is None) - edge
    parts = []
    if edge:  # lying across the tray's edge: is it the roll's?
        dice = "a die" if edge == 1 else f"{edge} dice"
        parts.append(f"{dice} on the tray's edge: move {'it' if edge == 1 else 'them'} in")
    if bad:
        which = "the die" if len(readings) == 1 else f"{bad} {'die' if bad == 1 else 'dice'}"
        read = [r for r in readings if r.value is not None]  # (their size, when some were read: an unread speck
        # or fingernail of 12 px beside dice of 48 blamed the camera, a review)
        small = small_in_picture(read or [r for r in readings if r.value is None and not isinstance(r, EdgeDie)])
        if small is not None:  # the camera to blame, not the die (the reader's box: ~0.85 of a die's side)
            parts.append(f"can't read {which}: too small in the picture (mount the camera lower)")
        else:
            parts.append(f"can't read {which}: lay {'it' if bad == 1 else 'them'} flat")
    return f"camera: {shown} - {'; '.join(parts)}, or use the buttons"


#: The reader's box around a die against the die's side (0.75-1.05, median 0.85, on rendered trays and frames).
BOX_OF_SIDE = 0.85


def small_in_picture(dice: Sequence[Any]) -> float | None:
    """The median side (px, from the reader's boxes: ~13 px for dice of 10) of ``dice`` when they are too small
    in the picture to read well (``vision.dice.scale.READABLE_PX``: 14 px read 0.87, 10 px 0.43), else None (or
    no boxes)."""
    from vision.dice.scale import READABLE_PX

    box = box_side(dice)
    if box is None:
        return None
    side = box / BOX_OF_SIDE
    return side if side < READABLE_PX[0] else None


def box_side(dice: Sequence[Any]) -> float | None:
    """The median side (px, the longer of its box's two) of the reader's boxes around ``dice``; None when none
    has a box."""
    import statistics

    sides = [max(b[2] - b[0], b[3] - b[1]) for b in (getattr(r, "box", None) for r in dice) if b is not None]
    return float(statistics.median(sides)) if sides else None


def count_words(seen: int, request: DiceRequest) -> str:
    """What the roller is told of a tray holding more dice than the roll has, or fewer than a roll of so many:
    "5 dice on the tray, 4 wanted: take 1 off"; "at most 4 wanted" for a roll of up to 4.  (The roll's label,
    "(4 movement dice)", made it four pieces of the footer where the menu's title names the roll already.)"""
    dice = f"{seen} {'die' if seen == 1 else 'dice'} on the tray"
    if seen > request.count:
        wanted = f"{request.count} wanted" if request.exact else f"at most {request.count} wanted"
        return f"{dice}, {wanted}: take {seen - request.count} off"
    return f"{dice}, {request.count} wanted: add {request.count - seen}, or use the buttons"


@dataclass
class Settle:
    """The same value ``need`` times in a row (``same`` decides what "the same" is)."""

    need: int
    last: Any = None
    count: int = 0
    same: Callable[[Any, Any], bool] = lambda a, b: a == b

    def feed(self, value: Any) -> bool:
        if self.last is not None and self.same(value, self.last):
            self.count += 1
        else:
            self.last, self.count = value, 1
        return self.count >= self.need

    def reset(self) -> None:
        self.last, self.count = None, 0


def _takes(fn: Callable[..., Any], name: str) -> bool:
    """Whether ``fn`` takes a keyword ``name`` (a reader of the tests may take less than VisionReader)."""
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def edge_margin(region: Region, die_px: float | None) -> int:
    """Pixels read around the dice tray's region on each side: a die's side (a die whose centre lies on the
    region's edge reaches at most 0.71 of it beyond), or a tenth of the region's shorter side when the dice's
    size is not known (no calibration); at least 8."""
    if die_px is not None and die_px > 0:
        return max(8, int(round(die_px)))
    return max(8, int(round(0.1 * min(region.width, region.height))))


#: The least share of a die's box inside the tray's region for a die centred outside it to be a die on the
#: tray's edge (less: something beside the tray, not a die of the roll); for one the camera cannot read (a
#: cocked die; or a token, a tag beside the tray), half.
EDGE_SHARE = 0.25
EDGE_SHARE_UNREAD = 0.5


def in_tray(readings: Sequence[Any], dx: int, dy: int, size: tuple[int, int]) -> list[Any]:
    """``readings`` of the picture read around the tray (:meth:`CameraInput._read_crop`) in the tray crop's
    pixels (shifted by the region's corner ``dx``, ``dy``; ``size`` its (h, w)): a die whose centre lies in
    the tray is the tray's; a die centred outside but lying at least :data:`EDGE_SHARE` in it (read with a
    value; :data:`EDGE_SHARE_UNREAD` not) lies across the tray's edge and is the tray's unread
    (:class:`EdgeDie`, at its own centre: the roller is told to move it); anything else lies beside the tray.
    Readings that are no dataclass are given as :class:`TrayDie`."""
    import dataclasses as dc

    h, w = size
    out: list[Any] = []
    for r in readings:
        cx, cy = float(r.center[0]) - dx, float(r.center[1]) - dy
        box = getattr(r, "box", None)
        if box is not None:
            box = (int(box[0]) - dx, int(box[1]) - dy, int(box[2]) - dx, int(box[3]) - dy)
        if 0 <= cx < w and 0 <= cy < h:
            moved = {"center": (cx, cy)} if box is None else {"center": (cx, cy), "box": box}
            if dc.is_dataclass(r) and not isinstance(r, type):
                out.append(dc.replace(r, **moved))
            else:  # (a reader's own kind of reading: its centre must move all the same)
                out.append(TrayDie(r.value, box, (cx, cy), float(getattr(r, "confidence", None) or 0.0)))
            continue
        if box is None:  # (a reader that gives centres only: beside the tray)
            continue
        area = max(1, (box[2] - box[0]) * (box[3] - box[1]))
        inside = max(0, min(box[2], w) - max(box[0], 0)) * max(0, min(box[3], h) - max(box[1], 0))
        if inside >= (EDGE_SHARE if r.value is not None else EDGE_SHARE_UNREAD) * area:
            out.append(EdgeDie(None, box, (cx, cy), 0.0))
    return out


@dataclass(frozen=True)
class TrayDie:
    """A die of the tray read by a reader whose readings are no dataclass, in the tray crop's pixels."""

    value: Any
    box: tuple[int, int, int, int] | None
    center: tuple[float, float]
    confidence: float


@dataclass(frozen=True)
class EdgeDie:
    """A die lying across the dice tray's edge: not read (is it the roll's?); its box and centre in the tray
    crop's pixels (past its edge: a die of the last roll nudged across it is still matched to where it lay)."""

    value: None
    box: tuple[int, int, int, int]
    center: tuple[float, float]
    confidence: float


#: Two readings of a die are the same die if its centre moved less than this (pixels of the tray crop).
SAME_DIE_PX = 12.0
#: A token zone the camera has not been able to count for this long (seconds) is said to be so on its
#: player's screen; a hand passing over it for less keeps its last count and says nothing.
UNCLEAR_S = 6.0
#: How long a player whose hazard tokens lie in no token zone is told so (seconds), once a game (or again when
#: the table's zones change): the camera never counts them, and nothing else on their screen would say so.
NO_ZONE_WORDS_S = 15.0
#: A die whose face is not known: one the camera could not read, or one a roll entered by hand used.
ANY_FACE = "?"


def same_dice(a: Sequence[tuple[Any, float, float]], b: Sequence[tuple[Any, float, float]],
              tol: float = SAME_DIE_PX, *, any_face: bool = False) -> bool:
    """The same dice showing the same faces in (nearly) the same places — centre estimates jitter by a
    pixel or two between frames, and a bumped tray moves dice a little without rolling them.  With
    ``any_face``, a die of face :data:`ANY_FACE` matches any face in its place (a cocked die laid flat)."""
    return len(a) == len(b) and among_dice(a, b, tol, any_face=any_face)


def among_dice(a: Sequence[tuple[Any, float, float]], b: Sequence[tuple[Any, float, float]],
               tol: float = SAME_DIE_PX, *, any_face: bool = False) -> bool:
    """Every die of ``a`` is one of ``b`` (a distinct one each), as :func:`same_dice` judges it: some of the last
    roll's dice taken off, none thrown."""
    return len(a) <= len(b) and dice_kept(a, b, tol, any_face=any_face) == len(a)


def dice_kept(a: Sequence[tuple[Any, float, float]], b: Sequence[tuple[Any, float, float]],
              tol: float = SAME_DIE_PX, *, any_face: bool = False) -> int:
    """How many dice of ``a`` are dice of ``b`` lying where they lay (a distinct one each)."""
    left = list(b)
    kept = 0
    for value, x, y in a:
        for k, (v2, x2, y2) in enumerate(left):
            faces = value == v2 or (any_face and ANY_FACE in (value, v2))
            if faces and abs(x - x2) <= tol and abs(y - y2) <= tol:
                del left[k]
                kept += 1
                break
    return kept


#: The tray's look, compared where no die lay: a small grey picture of it (cells of the tray crop).
TRAY_LOOK = (48, 36)
#: Grey levels a cell of the tray's look may change by and still be the same tray (light flicker, noise,
#: JPEG); a share of cells beyond it that makes it another picture (a hand, a black or white frame).
TRAY_LOOK_LEVELS = 28
TRAY_LOOK_SHARE = 0.1
#: A look whose cells all lie within this many grey levels, near black or near white, shows nothing (a lens
#: covered, the light out, a lamp shining in): an evenly lit felt tray is as even, but not as dark or bright.
BLANK_LEVELS = 6
BLANK_DARK = 24
BLANK_BRIGHT = 232


def blank_look(look: Any) -> bool:
    """A tray's look (:func:`tray_look`) that shows nothing: even, and black or white."""
    lo, hi = int(look.min()), int(look.max())
    return hi - lo < BLANK_LEVELS and (hi < BLANK_DARK or lo > BLANK_BRIGHT)


def tray_look(tray: Any) -> Any:
    """The tray's look (:data:`TRAY_LOOK`): grey, mean over each cell, whatever the crop's size."""
    import cv2
    import numpy as np

    grey = tray if tray.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(tray), cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, TRAY_LOOK, interpolation=cv2.INTER_AREA).astype(np.int16)


def looks_the_same(look: Any, before: Any, dice: Sequence[tuple[Any, float, float]], size: tuple[int, int]) -> bool:
    """Whether the tray's look ``look`` is ``before``'s away from where ``dice`` lay (tray pixels of a crop
    of ``size`` (h, w)): the dice gone and the rest as it was, not a black, white or covered picture."""
    import numpy as np

    r = max(2, int(round(0.08 * TRAY_LOOK[0])))  # about a die and its shadow, in cells
    keep = _cells_apart(dice, size, r, r)
    if not keep.any():
        return False
    changed = np.abs(look - before)[keep] > TRAY_LOOK_LEVELS
    return float(changed.mean()) <= TRAY_LOOK_SHARE


def colour_look(tray: Any) -> Any:
    """The tray's look in colour (:data:`TRAY_LOOK` cells, BGR means, float32): a hand on a wooden tray is
    nearly its grey, not its colour."""
    import cv2
    import numpy as np

    img = tray if tray.ndim == 3 else cv2.cvtColor(np.ascontiguousarray(tray), cv2.COLOR_GRAY2BGR)
    return cv2.resize(np.ascontiguousarray(img[..., :3]), TRAY_LOOK, interpolation=cv2.INTER_AREA).astype(np.float32)


#: Something reaching into the tray: a cell of its colour look this much brighter or darker than when the tray
#: was last seen bare (in any colour, log ratio, after the picture's own change of light is taken out) ...
REACH_LOG = 0.2
#: ... in one piece, at least two cells wide, that touches the look's edge (a hand, an arm, a sleeve: they come
#: from beyond the tray), covering at least this share of the look, and at most :data:`REACH_MOST` of what is
#: compared (more: the light or the camera changed, not something in the tray).
REACH_SHARE = 0.03
REACH_MOST = 0.6
#: Seconds a still tray with something reaching in is held; then a piece away from the dice is taken into the
#: tray's look (a lamp moved, a shadow that stays, a sleeve at its edge) and the dice are read, while one reaching
#: a die holds for as long as it stays (:class:`BareTray`).  So long, too, the empty tray must look otherwise
#: for its new look to be taken.
REACH_HOLD_S = 5.0
#: Seconds at most a still roll is held so, a piece reaching a die too (a look gone stale, which nothing else
#: mends while dice lie there: a review); then it is taken into the tray's look.
REACH_MOST_S = 20.0
REACH_WORDS = "camera: a hand or shadow over the tray? Dice read once it is clear, or use the buttons"
#: Seconds the words stay after the last frame that held the roll (posted again at each: they go soon after).
REACH_WORDS_S = 1.0


def _away_from_dice(dice: Sequence[tuple[Any, float, float]], size: tuple[int, int], side: float) -> Any:
    """Cells of the tray's look away from ``dice`` (tray pixels of a crop of ``size`` (h, w)), dice of ``side``
    pixels: a die and its shadow (three quarters of its side from its centre) left out."""
    import math

    h, w = size
    cw, ch = TRAY_LOOK
    rx, ry = (max(1, math.ceil(0.75 * side / (n / cells))) for n, cells in ((max(w, 1), cw), (max(h, 1), ch)))
    return _cells_apart(dice, size, rx, ry)


def _cells_apart(dice: Sequence[tuple[Any, float, float]], size: tuple[int, int], rx: int, ry: int) -> Any:
    """Cells of the tray's look (:data:`TRAY_LOOK`) farther than ``rx`` across and ``ry`` down from each of
    ``dice`` (tray pixels of a crop of ``size`` (h, w))."""
    import numpy as np

    h, w = size
    cw, ch = TRAY_LOOK
    keep = np.ones((ch, cw), bool)
    for _v, x, y in dice:
        cx, cy = int(x / max(w, 1) * cw), int(y / max(h, 1) * ch)
        keep[max(0, cy - ry):cy + ry + 1, max(0, cx - rx):cx + rx + 1] = False
    return keep


def reaching_in(look: Any, bare: Any, dice: Sequence[tuple[Any, float, float]], size: tuple[int, int],
                side: float) -> Any | None:
    """What reaches into the tray since it was seen bare: the cells (a bool array of :data:`TRAY_LOOK`'s shape)
    of the piece of :func:`colour_look` ``look`` that differs from ``bare`` (the tray seen empty) away from
    ``dice`` (their side ``side`` pixels) by :data:`REACH_LOG`, touches the look's edge and covers
    :data:`REACH_SHARE` of it; None when nothing does (or when all of it changed: the light, the camera)."""
    import cv2
    import numpy as np

    keep = _away_from_dice(dice, size, side)
    if not keep.any():
        return None
    ratio = np.log((look + 8.0) / (bare + 8.0))
    # the picture's own change of light, each colour: a smooth surface (a lamp moved, a cloud, the camera's
    # exposure), fitted again and again to the cells that follow it (a hand pulls the first fit)
    ch, cw = keep.shape
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    xx, yy = xx / cw - 0.5, yy / ch - 0.5
    basis = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], axis=-1)
    # (begun on the cells near the median change: a fit to all of them bent round a hand at the edge)
    fit = keep & (np.abs(ratio - np.median(ratio[keep], axis=0)).max(axis=2) <= REACH_LOG)
    for _ in range(3):
        if fit.sum() < 12:
            return None
        b = basis[fit].astype(np.float64)  # (the normal equations, 6x6: lstsq took 3.5-24 ms threaded)
        coef = np.linalg.solve(b.T @ b + 1e-9 * np.eye(b.shape[1]), b.T @ ratio[fit].astype(np.float64))
        resid = ratio - (basis @ coef).astype(np.float32)
        fit = keep & (np.abs(resid).max(axis=2) <= REACH_LOG)
    surface = ratio - resid  # the light's change, each cell
    # a cell is changed when it is unlike the bare look there, and unlike any mix of it with a cell beside it:
    # the tray nudged by the throw (or the camera) moves its rim and walls by part of a cell, a cell then showing
    # its own bare colour mixed with its neighbour's (an audit: a 4-px nudge held 11 of 34 rolls).  (Any colour
    # between the neighbours', channel by channel, let a brown hand over a green wall beside orange felt pass.)
    seen = (look + 8.0) * np.exp(-np.clip(surface, -5.0, 5.0))  # the light's change taken out (a fit may run wild
    # far from the cells it was fitted to)
    own = bare.astype(np.float32) + 8.0
    padded = cv2.copyMakeBorder(own, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    unlike = np.abs(np.log(seen / own)).max(axis=2)
    for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2), (0, 0), (0, 2), (2, 0), (2, 2)):
        step = padded[dy:dy + ch, dx:dx + cw] - own
        t = np.clip(((seen - own) * step).sum(axis=2) / ((step * step).sum(axis=2) + 1e-6), 0.0, 1.0)
        mix = own + t[..., None] * step
        unlike = np.minimum(unlike, np.abs(np.log(seen / mix)).max(axis=2))
    changed = (unlike > REACH_LOG) & keep
    if changed.sum() > REACH_MOST * keep.sum():
        return None
    # a wall's edge moved a little (the tray bumped) changes a line of cells: at least two cells wide
    # (the cells of some 2x2 block all changed; OpenCV's opening with a 2x2 kernel shifted the piece a cell down
    # and right, and beyond the look counted as changed: a line along the edge stood)
    two = np.ones((2, 2), np.uint8)
    changed = cv2.dilate(cv2.erode(changed.astype(np.uint8), two, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT,
                                   borderValue=0), two, anchor=(1, 1), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    edge = set(np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))) - {0}
    best = max(edge, key=lambda i: stats[i, cv2.CC_STAT_AREA], default=None)
    if best is None or stats[best, cv2.CC_STAT_AREA] < REACH_SHARE * ch * cw:
        return None
    return labels == best


def _near_dice(piece: Any, dice: Sequence[tuple[Any, float, float]], size: tuple[int, int], side: float) -> bool:
    """Whether the cells ``piece`` reach a die (the cells around it that :func:`reaching_in` leaves out)."""
    import cv2
    import numpy as np

    grown = cv2.dilate(piece.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return bool((grown & ~_away_from_dice(dice, size, side)).any())


@dataclass
class BareTray:
    """The dice tray's colour look (:func:`colour_look`) when last seen empty, and what reaches into it since
    (:func:`reaching_in`): a hand held still over the dice, a shadow's edge through them.

    * Seen empty again: its look, unless something reaches in since (a hand resting over the empty tray was
      taken for the tray: a review), which is taken only after :data:`REACH_HOLD_S` (a lamp moved).
    * Dice lying still with something reaching in: :meth:`holds` says to hold the roll; after
      :data:`REACH_HOLD_S` still, a piece away from the dice is taken into the look (the cells away from the
      dice only: a review found the dice of the roll taken with it holding the next roll), while a piece
      reaching a die holds up to :data:`REACH_MOST_S` (a finger over half a die read wrong 14 times of 15).
    * What differs only from a look taken so, and not from the one before it (the shadow gone), is nothing.
    * ``key`` (the region and the frame size): the look of another place or camera is forgotten."""

    look: Any = None
    before: Any = None
    key: Any = None
    since: float | None = None  # something reaching in over dice lying still, since
    empty_since: float | None = None  # the tray seen empty unlike its look, since

    def forget(self) -> None:
        self.look = self.before = self.key = None
        self.since = self.empty_since = None

    def _piece(self, look: Any, dice: Sequence[tuple[Any, float, float]], size: tuple[int, int],
               side: float) -> Any | None:
        piece = reaching_in(look, self.look, dice, size, side)
        if piece is not None and self.before is not None and reaching_in(look, self.before, dice, size, side) is None:
            return None
        return piece

    def seen_empty(self, look: Any, key: Any, size: tuple[int, int], now: float) -> None:
        """The tray seen empty, still: its look is ``look`` unless something reaches in (then after a while)."""
        self.since = None
        if self.key != key or self.look is None:
            self.look, self.before, self.key, self.empty_since = look, None, key, None
            return
        if self._piece(look, (), size, 1.0) is None:
            self.look, self.before, self.empty_since = look, None, None
            return
        if self.empty_since is None:
            self.empty_since = now
        elif now - self.empty_since >= REACH_HOLD_S:  # (the look before it kept: should this go, nothing is)
            self.look, self.before, self.empty_since = look, self.look, None

    def holds(self, look: Any, key: Any, dice: Sequence[tuple[Any, float, float]], size: tuple[int, int],
              side: float, now: float) -> bool:
        """Whether dice lying still at ``dice`` (side ``side`` px) are held: something reaches in since."""
        self.empty_since = None
        if self.look is None or self.key != key:
            self.since = None
            return False
        piece = self._piece(look, dice, size, side)
        if piece is None:
            self.since = None
            return False
        if self.since is None:
            self.since = now
        held = now - self.since
        if held < REACH_HOLD_S or (held < REACH_MOST_S and _near_dice(piece, dice, size, side)):
            return True
        import numpy as np

        away = _away_from_dice(dice, size, side)[..., None]
        self.look, self.before, self.since = np.where(away, look, self.look), self.look, None
        return False


def plain(value: Any) -> Any:
    """A face as the rules take it: enum members by value, numpy ints as int."""
    value = getattr(value, "value", value)
    if hasattr(value, "item"):
        value = value.item()
    return value


#: apply(command, source=..., now=...), notify(kind, text, player, until=..., now=...) and withdraw(kind)
#: of the loop.
Apply = Callable[..., Any]
Notify = Callable[..., Any]
Withdraw = Callable[[str], Any]


class CameraInput:
    """The camera's side of the loop: call :meth:`on_frame` with each new frame."""

    def __init__(self, reader: TableReader, *, die_types: Mapping[str, Sequence[Any]] | None = None,
                 dice_region: Region | None = None, settle_frames: int = 3, table_every: int = 5) -> None:
        self.reader = reader
        self.die_types = dict(die_types or {})
        #: ``[camera] dice_region`` as configured (None: the calibration's tray zone, :attr:`dice_region`)
        self.region_set = dice_region
        self.frame_size: tuple[int, int] | None = None  # (w, h) of the latest frame
        self._tray_zone: tuple[Any, Region | None] | None = None  # (the calibration, its tray_region)
        self.table_every = max(1, table_every)
        self.dice = Settle(settle_frames, same=same_dice)
        self.used_dice: tuple[tuple[Any, float, float], ...] | None = None  # the dice already used
        self.used_any = False  # a roll entered by hand with no dice seen: the next dice seen are its
        self.used_size: tuple[int, int] = (0, 0)  # the tray crop (h, w) the used dice were seen in
        self.used_look: Any = None  # the tray's look then (:func:`tray_look`)
        self.used_told: Any = None  # the used dice the roller was told about (once a step)
        self.empty = Settle(settle_frames)  # the tray seen empty, looking as it did around the used dice
        #: the dice on the tray at the last read: () seen empty, None not known (no read yet, the camera off,
        #: a blank picture)
        self.last_seen: tuple[tuple[Any, float, float], ...] | None = None
        self.last_look: Any = None
        self.last_size: tuple[int, int] = (0, 0)
        self.template = Settle(settle_frames)
        self.template_words = Settle(settle_frames)  # why a template seen is not taken (two, another car's)
        self.template_words_shown: Any = None
        self.templates_before: set[Any] | None = None  # other cars' templates lying there when the step began
        self.unseen = Settle(settle_frames)  # why the active vehicle's car is not seen (its key)
        self.unseen_shown: Any = None  # the key of the reason on the screens
        self.unseen_misses = 0  # frames since with no reason
        self.sent_templates: dict[str, tuple[Any, ...]] = {}
        self.tokens = Settle(settle_frames)
        self.settled_counts: dict[str, int] = {}  # zone -> its count at the last settled reading
        self.settled_log: dict[str, tuple[int, int]] = {}  # zone -> the log's (hazards, due) then
        self.uncounted: set[str] = set()  # zones the camera could not count in the latest reading
        self.unclear_since: dict[str, float] = {}  # zone -> when the camera last could count it, not since
        self.unclear: tuple[tuple[str, str | None], ...] = ()  # (label, player) of zones not counted for UNCLEAR_S
        self.logged_before: dict[str, int] = {}  # zone -> the log's count at the last settled reading
        self.removed: dict[str, int] = {}  # zone -> tokens the rules took off since, still lying there
        self.tray_readings: list[Any] | None = None
        self.bare = BareTray()  # the tray's look when last seen empty: what reaches in since
        self.seen_die_px: float | None = None  # the side of the dice read last (px): the margin without calibration
        self._tray_now: Any = None  # the tray crop of the frame being read (its colour look made when needed)
        self._fresh = True  # the dice of that frame were read afresh (not the still run's readings kept)
        self.unreadable = Settle(settle_frames, same=same_dice)  # dice lying still with a die not read
        self.unreadable_for: DiceRequest | None = None  # the roll they were read for (the step's, as the menu has it)
        self.cant_read_shown = False  # the "camera can't read" notice is up
        self.mismatches: list[Mismatch] = []
        self.frames_seen = 0
        self.told_no_zone: set[tuple[str, frozenset[str]]] = set()  # (player, the zones then) told no zone is theirs

    @property
    def dice_region(self) -> Region | None:
        """Where the dice are read: ``[camera] dice_region``; unset, the reader's calibration's tray zone
        (:func:`tray_region`) — followed when the table is calibrated again from the phone — while the frames are
        the calibration's size (at another size its box says nothing of where the tray is); else the whole
        frame."""
        if self.region_set is not None:
            return self.region_set
        cal = getattr(self.reader, "calibration", None)
        if cal is None or (self.frame_size is not None and tuple(cal.image_size) != self.frame_size):
            return None
        if self._tray_zone is None or self._tray_zone[0] is not cal:
            self._tray_zone = (cal, tray_region(cal))
        return self._tray_zone[1]

    def new_prompt(self) -> None:
        self.template.reset()
        self.templates_before = None
        self.unseen.reset()  # a new step may be another player's: their notice settles afresh
        self.tray_readings = None
        self.unreadable.reset()  # a die still not read at a new roll is told to that roll's roller
        self.used_told = None
        self.bare.since = self.bare.empty_since = None

    def roll_entered(self, withdraw: Withdraw) -> None:
        """A roll was entered by hand (buttons, phone, keyboard): the dice lying in the tray are used too —
        those seen last, any faces (a cocked die then laid flat is the same die); none seen (the camera was
        off, or the roll was typed before they settled): the next dice the camera sees are this roll's.
        The camera's words on the dice ("can't read", "roll again") are over: the roll they were about is in."""
        # every word of the camera's on the roll (can't read, a hand over the dice, "tray holds the last roll: roll
        # again": it stood on after the roll was entered, no roll awaited, a screens audit)
        withdraw("dice")
        self.cant_read_shown = False
        withdraw("tray_count")
        self.unreadable.reset()
        self.dice.reset()
        self.empty.reset()
        self.bare.since = self.bare.empty_since = None
        if self.last_seen:
            self.used_dice = tuple((ANY_FACE, x, y) for _v, x, y in self.last_seen)
            self.used_look, self.used_size, self.used_any = self.last_look, self.last_size, False
        elif self.last_seen is None:  # not known: the next dice seen are this roll's
            self.used_dice, self.used_look, self.used_any = None, None, True
        else:  # the tray seen empty: the roll was rolled elsewhere, and the next dice are a new roll
            self.used_dice, self.used_look, self.used_any = None, None, False

    def log_rewound(self, views: Sequence[Any]) -> None:
        """An undo: counts the log lost are no tokens the rules took off (an undone gain is to be added
        again, not taken off the table): the log's counts after it are the new "before".  Tokens a wipeout
        took off stay to go (an unrelated undo does not make them addable; undoing the wipeout itself puts
        them back in the log, which clears them at the next reading)."""
        self.logged_before = {zone: entry.hazards for zone, entry in logged_hazards(views).items()}

    def template_step_started(self, vehicle: str | None) -> None:
        """A vehicle's activation begins (a template step entered from one that took none, not by an undo):
        what was sent for it before is over, even a template laid early for this one."""
        if vehicle is not None:
            self.sent_templates.pop(vehicle, None)

    def camera_down(self) -> None:
        self.mismatches = []
        self.tokens.reset()
        self.settled_counts, self.settled_log, self.unclear_since, self.unclear = {}, {}, {}, ()
        self.uncounted = set()
        self.last_seen = None  # what lies on the tray meanwhile is not known
        self.bare.forget()  # (the camera may come back mounted otherwise)
        self.seen_die_px = None

    # -- frames -----------------------------------------------------------------------------------
    def on_frame(self, frame: Frame, prompt: Prompt, menu: Menu, *, typing: bool, views: Sequence[Any],
                 apply: Apply, notify: Notify, withdraw: Withdraw, now: float,
                 entry: DiceRequest | None = None, fill: Callable[[list[Any]], None] | None = None) -> None:
        """``typing``: dice are being entered by hand, ``entry`` their roll (the step's, or one a menu choice
        opened: attack dice, a re-roll).  ``fill``: the entry is open with no die entered yet, and a roll the
        camera reads goes into it (``fill(values)``: the entry sends it, or asks its next roll, as NEXT does)."""
        self.frames_seen += 1
        h, w = frame.image.shape[:2]
        self.frame_size = (w, h)
        if self.region_set is not None:  # partly outside the picture: its dice there are never seen (wholly
            # outside, a roll awaited says so: _tray); told from the first frame, not only at the first roll
            misfit = self.region_set.misfit(w, h)
            if misfit is not None and min(frame.crop(self.region_set).shape[:2]) >= 16:
                notify("dice_region", f"dice tray partly outside the picture: [camera] dice_region {misfit}; set "
                                      "it in pitboard.toml (pitboard check names it)", None, now=now)
        if menu.dice is not None and not typing:
            self._dice(frame, prompt, menu.dice, apply, notify, withdraw, now)
        elif typing and entry is not None and fill is not None:
            # a roll a menu choice opened (attack, smash, evade dice): only the step's own were read, and a
            # Gaslands table entered every attack die with the buttons while the camera watched them
            self._dice(frame, prompt, entry, apply, notify, withdraw, now, fill=fill)
        elif typing and (entry or menu.dice) is not None:  # the tray is still watched, nothing is sent, so that
            self._tray(frame, entry or menu.dice, notify, now)  # the dice the typed roll used are known
        wants_template = menu.template is not None  # at 1.2 (placing) the table is read as at other steps
        if wants_template or self.frames_seen % self.table_every == 0:
            try:
                table = self.reader.read_table(frame.image)
            except Exception as exc:  # a frame vision cannot read (calibration lost ...) is no command
                self.withdraw_unseen(withdraw)  # it says nothing of cars now
                notify("vision", f"table not read: {exc}", None, now=now)
                return
            if table is None:
                self.withdraw_unseen(withdraw)
                return
            if menu.template is not None:
                self._template(table, prompt, menu, apply, notify, withdraw, views, now)
            elif menu.placing is not None:  # 1.2: the template picked is the one to place (touch-move)
                self._car_unseen(table, prompt, notify, withdraw, views, now)
                self._template_words(table, laid_against(table, prompt.vehicle), prompt.vehicle, prompt, notify,
                                     withdraw, views, now, placing=menu.placing)
            elif self.unseen_shown is not None or self.template_words_shown is not None:
                self.withdraw_unseen(withdraw)
            self._tokens(table, views, notify, withdraw, now, takes=menu.hazards is not None,
                         chooser=chooser_of(menu, prompt))

    def vision_die(self, die: str) -> str:
        """The die as the camera should read it.  A die the owner taught is read by its taught faces; a
        game's own name for plain pip dice (Thunder Road's movement dice: faces 1-6) is read as a d6."""
        library = getattr(self.reader, "faces", None)  # a vision.dice.FaceLibrary when the reader has one
        taught = callable(getattr(library, "dice", None)) and die in library.dice()
        if die != "d6" and not taught and list(self.die_types.get(die, ())) == [1, 2, 3, 4, 5, 6]:
            return "d6"
        return die

    def _tray(self, frame: Frame, request: DiceRequest, notify: Notify, now: float) -> tuple[list[Any], Any] | None:
        """The dice on the tray now (None: not read: the tray is not in the picture, or moving, or vision
        failed) and the tray's look; :attr:`last_seen` follows it (None when the picture shows nothing)."""
        region = self.dice_region
        tray = frame.crop(region)
        if region is not None and min(tray.shape[:2]) < 16:  # a config for another camera
            h, w = frame.image.shape[:2]
            notify("vision", f"dice tray not in the picture: [camera] dice_region "
                   f"{region.misfit(w, h) or 'is empty'}; set it in pitboard.toml "
                   "(pitboard check names it); enter the dice with the buttons", None, now=now)
            return None
        margin = self._margin(region) if region is not None else 0
        seen, (dx, dy) = self._read_crop(frame, region, margin)  # the tray and a margin: a die at its edge is seen whole
        still_fn = getattr(self.reader, "tray_still", None)
        inner = (dx, dy, dx + tray.shape[1], dy + tray.shape[0]) if region is not None else None
        try:
            if still_fn is None:
                still = None
            elif inner is not None and _takes(still_fn, "inner"):
                still = still_fn(seen, inner=inner)  # judged on the tray alone, read with its margin
            else:
                still = still_fn(seen)
        except Exception as exc:  # noqa: BLE001 - a tray vision cannot judge is no reason to stop the game
            notify("vision", f"dice not read: {exc}", None, now=now)
            return None
        if still is False:  # dice rolling, a hand over the tray: nothing is read
            self.bare.since = self.bare.empty_since = None
            self.dice.reset()
            self.unreadable.reset()  # (nor is what lay there before the buttons' start: the dice are being moved)
            self.tray_readings = None
            return None
        die = self.vision_die(request.die)
        if self.untaught(die):  # nothing can be read of them (the roller is told so: _dice)
            self.last_seen = None
            return None
        better = getattr(self.reader, "better_mean_ready", None)
        if still and self.tray_readings is not None and not (better is not None and better()):
            readings = self.tray_readings  # still since the last read: the same dice, no need to read again
            self._fresh = False
        else:
            self._fresh = True
            try:
                readings = list(self.reader.read_dice(seen, die))
            except Exception as exc:
                notify("vision", f"dice not read: {exc}", None, now=now)
                return None
            sides = [max(b[2] - b[0], b[3] - b[1]) for b in (getattr(r, "box", None) for r in readings
                                                             if r.value is not None) if b is not None]
            if sides:
                self.seen_die_px = float(sorted(sides)[len(sides) // 2]) / BOX_OF_SIDE
            if region is not None:
                readings = in_tray(readings, dx, dy, tray.shape[:2])
            # read again at the next frame when these dice want a wider margin than they were read with
            grown = region is not None and self._margin(region) > margin
            self.tray_readings = readings if still and not grown else None
        look = tray_look(tray)
        self.last_size = tray.shape[:2]
        self.last_look = look
        self._tray_now = tray
        if readings:
            self.last_seen = tuple((ANY_FACE if r.value is None else plain(r.value), float(r.center[0]),
                                    float(r.center[1])) for r in readings)
        else:  # seen empty; or a black or white picture (a lens covered, a lamp in it): nothing of the dice
            self.last_seen = None if blank_look(look) else ()
            if self.last_seen == ():
                self.used_any = False  # a typed roll's dice not seen, then the tray seen empty: they are gone
        return readings, look

    def _margin(self, region: Region) -> int:
        """:func:`edge_margin` for the dice's size: the calibration's, else the dice read last (a tenth of the
        region cut a die of 53 px lying across the edge of a 360-px region: read a 3 centred inside, an audit)."""
        seen = None if self.seen_die_px is None else min(self.seen_die_px, 0.25 * min(region.width, region.height))
        return edge_margin(region, getattr(self.reader, "die_px", None) or seen)  # (one odd box: a quarter at most)

    def _read_crop(self, frame: Frame, region: Region | None, m: int) -> tuple[Any, tuple[int, int]]:
        """The picture the dice are read in: the tray's region and ``m`` pixels around it (:meth:`_margin`),
        inside the frame, and the region's corner in it.  (The region's own crop cut a die lying across its edge: of 50 dev
        photos' dice cut in half, 32 were not found and 17 read null: a roll of up to Handling was taken one die
        short, or the roller told to lay a flat die flat.)"""
        if region is None:
            return frame.image, (0, 0)
        h, w = frame.image.shape[:2]
        x0, y0 = max(0, min(region.x, w) - m), max(0, min(region.y, h) - m)
        x1, y1 = min(w, region.x + region.width + m), min(h, region.y + region.height + m)
        return frame.image[y0:y1, x0:x1], (min(region.x, w) - x0, min(region.y, h) - y0)

    def read_beside_unreadable(self, request: DiceRequest) -> tuple[Any, ...]:
        """The faces the camera reads (rows from the top) of dice lying still with one it cannot read, while the
        roller is told so: a roll typed with the buttons starts from them.  () otherwise."""
        if (not self.cant_read_shown or not self.last_seen or self.unreadable.count < self.unreadable.need
                or request is not self.unreadable_for):  # (Ben's dice opened while Ana's lay there: hers, not his)
            return ()
        ordered = sorted(self.last_seen, key=lambda d: (d[2], d[1]))
        return tuple(v for v, _x, _y in ordered if v != ANY_FACE)

    def untaught(self, die: str) -> bool:
        """``die`` (as :meth:`vision_die` names it) is a taught die the reader's face library does not hold: the
        camera cannot read it (no library at all: none).  A reader with no face library (a test's) is not judged."""
        if die == "d6" or not hasattr(self.reader, "faces"):
            return False
        library = self.reader.faces
        if library is None:
            return True
        return callable(getattr(library, "dice", None)) and die not in library.dice()

    def _dice(self, frame: Frame, prompt: Prompt, request: DiceRequest, apply: Apply, notify: Notify,
              withdraw: Withdraw, now: float, fill: Callable[[list[Any]], None] | None = None) -> None:
        die = self.vision_die(request.die)
        if self.untaught(die):  # the reader's own words ("the face library has no die called 'skid' (taught
            # dice: none yet)") stood cut short on every screen, saying nothing of what to do
            notify("dice", f"camera not taught the {die} dice: enter them with the buttons (teach them on the "
                           "phone's Teach page)", prompt.player, now=now)
            self.cant_read_shown = True  # taken off once a roll is entered (it stood 10 s over the next step)
            return
        got = self._tray(frame, request, notify, now)
        if got is None:
            return
        readings, look = got
        h, w = self.last_size
        if not readings:
            self.dice.reset()
            # (once a still run while it agrees: ~2 ms a frame on x86-64 every frame between rolls, a review)
            if not blank_look(look) and (self._fresh or self.bare.empty_since is not None or self.bare.look is None):
                self.bare.seen_empty(colour_look(self._tray_now), self._bare_key(), (h, w), now)
            # the tray was emptied (the next dice are a new roll) only when it is seen so, looking as it did
            # around the used dice: a black, white or covered picture shows no dice either
            if self.used_dice is not None and (
                    self.used_look is None or looks_the_same(look, self.used_look, self._used_here(h, w), (h, w))):
                if self.empty.feed(True):
                    self.used_dice, self.used_look = None, None
            else:
                self.empty.reset()
            return
        self.empty.reset()
        if any(r.value is None for r in readings):
            self.dice.reset()  # a die it cannot read (a hand, dice still tumbling): wait
            seen = self.last_seen or ()
            if self.used_dice is not None and among_dice(seen, self._used_here(h, w), any_face=True):
                # the last roll's dice, a cocked one among them, still lying there: that roll is in; it is
                # not this roller's to lay flat
                self._tell_used(seen, prompt, notify, now)
                return
            if self._reaching(readings, prompt, notify, now):  # (a fingernail is proposed as a die)
                return
            if self.unreadable.feed(seen):
                # lying still and still not read (cocked, face down, a die not taught): said for as long as they
                # lie so (said once, it went after a few seconds and the roll waited without a word), with the
                # dice it did read, in reading order, the one it cannot read as "?"
                self.cant_read_shown = True  # until a roll is in (the next step's roller may be another)
                self.unreadable_for = request
                notify("dice", cant_read_words(readings, request), prompt.player, now=now)
            return
        self.unreadable.reset()
        dice = tuple((plain(r.value), float(r.center[0]), float(r.center[1]))
                     for r in sorted(readings, key=lambda r: (r.center[1], r.center[0])))
        if not self.dice.feed(dice):
            return
        if self.used_any:  # a roll entered by hand, its dice not seen then: these are its dice
            self.used_any = False
            self._use(dice, look, (h, w))
        kept = dice_kept(dice, self._used_here(h, w), any_face=True) if self.used_dice is not None else 0
        if kept and (kept == len(dice) or (kept >= 2 and 2 * kept >= len(dice))):
            # the dice already used lie where they were: all, or some (the others taken off), or most of a roll
            # with a die added ("3 dice on the tray, 4 wanted: add 1" for three of the last roll's made a roll of
            # three old dice and a new one): not a new roll (their look follows the light).  One die of a new
            # roll may fall where an old one lay by chance (the tray not seen empty between); half of them hardly
            assert self.used_dice is not None
            if len(dice) == len(self.used_dice):
                self._use(dice, look, (h, w))
            self._tell_used(dice, prompt, notify, now)
            return
        if self._reaching(readings, prompt, notify, now):  # a die under a finger, or hidden by it
            return
        values = [d[0] for d in dice]
        if len(values) > request.count or (request.exact and len(values) < request.count):
            # told for as long as they lie so: too many, or too few for a roll of so many (a die still in the
            # hand, or one the camera does not see: off the tray, under its rim)
            notify("tray_count", count_words(len(values), request), prompt.player, now=now)
            return
        withdraw("tray_count")  # (its own kind: as "info" it took the place of the roller's answers to presses)
        self._use(dice, look, (h, w))
        self.dice.reset()
        said = " ".join(str(request.name_of(v)) for v in values) or "no dice"
        if fill is not None:  # into the open entry, which shows the dice and sends them as NEXT would
            self.cant_read_shown = False
            notify("dice", f"camera: {said}", prompt.player, now=now)
            fill(values)
            return
        result = request.command(values)
        if isinstance(result, Command):
            outcome = apply(result, source="camera", now=now)
            if getattr(outcome, "accepted", False):
                self.cant_read_shown = False  # replaced by what was read
                # what the camera read, on the roller's screen: an accepted roll otherwise only moves the
                # menu on (a Space Race die that failed changed nothing else a player could see)
                notify("dice", f"camera: {said}", prompt.player, now=now)  # short: one footer line, not three
                # pieces that outlast the step; and whose roll it was taken as, on the other screens too (Thunder
                # Road's roll goes to the first player still to roll: Ben's dice thrown first were Ana's, and
                # only her screen said so)
                if prompt.player is not None:
                    notify("dice_taken", f"camera: {prompt.player} {said}", None, now=now)

    def _bare_key(self) -> Any:
        return (self.dice_region, self.frame_size, self.last_size)

    def _reaching(self, readings: Sequence[Any], prompt: Prompt, notify: Notify, now: float) -> bool:
        """Something reaches into the still tray since it was seen empty (:class:`BareTray`): a hand over the
        dice (a die under a finger was read wrong 14 times of the 15 it was given a value, the audit of the dev
        photos) or a shadow's edge through them.  The roller is told for as long as it holds (the words go a
        second after); False when nothing reaches in, or the tray was never seen empty here."""
        if self.bare.look is None or self._tray_now is None:
            return False
        side = box_side(readings)
        if side is None:
            side = getattr(self.reader, "die_px", None)
        if not side:
            return False
        # around the dice read (a die not read may be a fingernail: left out, the hand is hidden with it and the
        # roller told "lay them flat", an audit)
        dice = [(None, float(r.center[0]), float(r.center[1])) for r in readings if r.value is not None]
        if not self.bare.holds(colour_look(self._tray_now), self._bare_key(), dice, self.last_size, float(side), now):
            return False
        self.cant_read_shown = True  # (taken off when the roll is entered by hand)
        notify("dice", REACH_WORDS, prompt.player, until=now + REACH_WORDS_S, now=now)
        return True

    def _tell_used(self, dice: Any, prompt: Prompt, notify: Notify, now: float) -> None:
        if self.used_told is None:
            self.used_told = dice
            notify("dice", "tray holds the last roll: roll again", prompt.player, now=now)

    def _use(self, dice: tuple[tuple[Any, float, float], ...], look: Any, size: tuple[int, int]) -> None:
        self.used_dice, self.used_look, self.used_size = dice, look, size
        self.empty.reset()

    def _used_here(self, h: int, w: int) -> tuple[tuple[Any, float, float], ...]:
        """The used dice in the tray crop's pixels now (a camera back at another size: scaled)."""
        assert self.used_dice is not None
        uh, uw = self.used_size
        if (uh, uw) in ((h, w), (0, 0)):
            return self.used_dice
        return tuple((v, x * w / uw, y * h / uh) for v, x, y in self.used_dice)

    def _template(self, table: Any, prompt: Prompt, menu: Menu, apply: Apply, notify: Notify, withdraw: Withdraw,
                  views: Sequence[Any], now: float) -> None:
        assert menu.template is not None
        vehicle = prompt.vehicle
        # What was sent for the other vehicles is over: their next activation is a new pick, even of the same
        # template (kept, it let a Hairpin laid again in gear 5 go unflagged).
        for other in [v for v in self.sent_templates if v != vehicle]:
            del self.sent_templates[other]
        self._car_unseen(table, prompt, notify, withdraw, views, now)
        seen = laid_against(table, vehicle)
        self._template_words(table, seen, vehicle, prompt, notify, withdraw, views, now)
        if len(seen) != 1:
            self.template.reset()
            return
        t = seen[0]
        key = (t.name, getattr(t, "hand", None), getattr(t, "edge", None))
        if not self.template.feed(key):
            return
        if vehicle is not None and self.sent_templates.get(vehicle) == key:
            return  # already sent (and perhaps refused: the touch-move picker must change it)
        if vehicle is not None:
            self.sent_templates[vehicle] = key
        apply(menu.template(*key), source="camera", now=now)

    def _template_words(self, table: Any, seen: Sequence[Any], vehicle: str | None, prompt: Prompt, notify: Notify,
                        withdraw: Withdraw, views: Sequence[Any], now: float, *, placing: str | None = None) -> None:
        """What stops the camera taking a template, on the screen of the player laying it once it has held for
        ``settle_frames`` reads: two templates against the active car, or one against another car only; and
        while the template ``placing`` is placed (1.2), another against the active car."""
        why: tuple[Any, str] | None = None
        if len(seen) == 1 and placing is not None and getattr(seen[0], "name", None) != placing:
            laid = template_label(getattr(seen[0], "name", None))
            why = ((vehicle, "placing", laid),
                   f"the {laid} lies at {vehicle_name(views, vehicle)}: the {template_label(placing)} was "
                   "picked (touch-move: use it)")
        elif len(seen) >= 2:
            why = ((vehicle, "two"),
                   f"{len(seen)} templates at {vehicle_name(views, vehicle)}: take away all but the one to use")
        elif not seen:
            others = [t for t in getattr(table, "templates", ()) or ()
                      if getattr(t, "attached_to", None) not in (None, vehicle)]
            lying = {(getattr(t, "name", None), t.attached_to) for t in others}
            if self.templates_before is None:  # left from another car's move before this step: not this pick
                self.templates_before = lying
            others = [t for t in others if (getattr(t, "name", None), t.attached_to) not in self.templates_before]
            if len(others) == 1:
                t = others[0]
                label = template_label(getattr(t, "name", None))
                why = ((vehicle, "other", t.attached_to),
                       f"the {label} lies against {vehicle_name(views, t.attached_to)}, not "
                       f"{vehicle_name(views, vehicle)}")
        if why is None:
            self.template_words.reset()
            if self.template_words_shown is not None:
                withdraw("template_seen")
                self.template_words_shown = None
            return
        key, text = why
        if key != self.template_words_shown and self.template_words.feed(key):
            withdraw("template_seen")
            notify("template_seen", text, prompt.player, until=None, now=now)
            self.template_words_shown = key

    def _car_unseen(self, table: Any, prompt: Prompt, notify: Notify, withdraw: Withdraw, views: Sequence[Any],
                    now: float) -> None:
        """While a template is awaited and the active vehicle's car is not seen, say why on the screen of
        the player laying the template once it has been so for ``settle_frames`` frames: its tag seen but
        of the wrong size (a sheet printed "fit to page"; not a die in the dice tray), or a template lying
        there attached to no car (the car's tag covered).  A vehicle with no tag in the table config is
        never seen, so nothing is said of it; the notice goes after ``settle_frames`` frames without a
        reason, so a reading that comes and goes does not make it flicker."""
        why = self._unseen_reason(table, prompt, views)
        if why is None:
            self.unseen.reset()
            if self.unseen_shown is not None:
                self.unseen_misses += 1
                if self.unseen_misses >= self.unseen.need:
                    self.withdraw_unseen(withdraw)
            return
        key, text = why
        self.unseen_misses = 0
        if key == self.unseen_shown:
            return  # shown already: its words stay (a size jittering by a millimetre does not redraw it)
        if self.unseen.feed(key):
            withdraw("car_unseen")  # another player's, or another reason's
            notify("car_unseen", text, prompt.player, until=None, now=now)
            self.unseen_shown = key

    def withdraw_unseen(self, withdraw: Withdraw) -> None:
        """The template step is over (or the camera says nothing of cars now): its words go."""
        self.unseen.reset()
        self.unseen_shown, self.unseen_misses = None, 0
        withdraw("car_unseen")
        self.template_words.reset()
        self.template_words_shown = None
        withdraw("template_seen")

    def _unseen_reason(self, table: Any, prompt: Prompt, views: Sequence[Any]) -> tuple[Any, str] | None:
        """(a key that stays the same while the reason does, the words for the screen) or None."""
        vehicle = prompt.vehicle
        cars = getattr(table, "cars", None)
        if vehicle is None or cars is None:
            return None  # a reader that says nothing of cars
        if vehicle in {getattr(c, "id", None) for c in cars}:
            return None
        tags = getattr(getattr(self.reader, "table_config", None), "car_tags", None)
        if isinstance(tags, Mapping) and vehicle not in tags.values():
            return None  # the vehicle has no tag: the camera is not asked to see it
        name = vehicle_name(views, vehicle)
        for m in getattr(table, "misfits", None) or ():
            if getattr(m, "car_id", None) != vehicle or self._in_dice_tray(getattr(m, "centre_px", None)):
                continue
            measured, printed = getattr(m, "measured_mm", None), getattr(m, "printed_mm", None)
            if isinstance(measured, (int, float)) and isinstance(printed, (int, float)):
                return ((prompt.player, vehicle, "size", getattr(m, "tag_id", None)),
                        f"car not seen: the tag on {name} reads {measured:.0f} mm, not {printed:.0f}")
        if any(getattr(t, "attached_to", "") is None for t in getattr(table, "templates", None) or ()):
            return (prompt.player, vehicle, "covered"), f"car not seen: Is the tag on {name} covered?"
        return None

    def _in_dice_tray(self, centre_px: Any) -> bool:
        region = self.dice_region
        return region is not None and centre_px is not None and region.contains(*centre_px)

    def _tokens(self, table: Any, views: Sequence[Any], notify: Notify, withdraw: Withdraw, now: float, *,
                takes: bool = True, chooser: str | None = None) -> None:
        """``takes``: the step takes hazard tokens now (a long OK adds them), ``chooser`` whose step it is: the
        "(hold OK)" hint is theirs alone, and only then."""
        tokens = {str(z): n for z, n in (getattr(table, "tokens", None) or {}).items()}
        logged = logged_hazards(views)
        self._say_no_zone(tokens, views, notify, now)
        for zone, n in tokens.items():
            if n is None:
                self.unclear_since.setdefault(zone, now)
            else:
                self.unclear_since.pop(zone, None)
        long_unclear = sorted(z for z, t in self.unclear_since.items() if z in logged and now - t >= UNCLEAR_S)
        unclear = tuple((logged[z].label, logged[z].player) for z in long_unclear)
        self.uncounted = {z for z, n in tokens.items() if n is None}

        def kept(z: str) -> bool:
            """A zone not counted now (a hand over it, a moment's glare) keeps its last count, and its words, for
            UNCLEAR_S, then it is said to be not counted; and only while the log says of it what it said then
            (1.5 gave tokens, an undo took some: the old count says nothing of the new log)."""
            now_log = (logged[z].hazards, logged[z].due) if z in logged else None
            return z in self.settled_counts and z not in long_unclear and self.settled_log.get(z) == now_log

        counted = tuple(sorted((z, n if n is not None else self.settled_counts[z]) for z, n in tokens.items()
                               if n is not None or kept(z)))
        if not counted or not self.tokens.feed(counted):
            stale = [m for m in self.mismatches if m.zone in self.uncounted and not kept(m.zone)]
            if unclear != self.unclear or stale:  # said at once, settled or not; a zone not kept has no count now
                self.unclear = unclear
                self.mismatches = [m for m in self.mismatches if m not in stale]
                self.post_mismatches(notify, withdraw, now, takes=takes, chooser=chooser)
            return
        self.unclear = unclear
        self.settled_counts = dict(counted)
        self.settled_log = {z: (logged[z].hazards, logged[z].due) for z, _ in counted if z in logged}
        self.mismatches = []
        fresh: list[Mismatch] = []
        for zone, n in counted:
            if zone in logged:
                player, name, expected, vehicle, due = logged[zone]
                before = self.logged_before.get(zone)
                if before is not None and expected < before:
                    # the rules took tokens off (a wipeout, a SHIFT spent on one): those lying there are to go
                    self.removed[zone] = self.removed.get(zone, 0) + before - expected
                if n <= expected:
                    self.removed.pop(zone, None)
                self.logged_before[zone] = expected
                if not expected <= n <= expected + due:  # tokens laid as the skid dice showed them: not extra
                    fresh.append(Mismatch(zone, player, vehicle, name, n, expected, self.removed.get(zone, 0), due))
        self.mismatches = fresh
        self.post_mismatches(notify, withdraw, now, takes=takes, chooser=chooser)

    def _say_no_zone(self, zones: Mapping[str, Any], views: Sequence[Any], notify: Notify, now: float) -> None:
        """A player some of whose vehicles' hazard tokens have no token zone (a fifth player on a table calibrated
        with four zones or zone cards) is told so on their screen: the camera counts the others' and never theirs.
        Said once a game, and again when the table's zones change; nothing when the table has no token zones."""
        names = frozenset(zones)
        for seat, player, whose in without_token_zone(names, views):
            if (player, names) in self.told_no_zone:
                continue
            self.told_no_zone.add((player, names))
            text = (f"HAZARDS: the camera does not count {whose} hazard tokens (no token zone p{seat} on the table): "
                    "enter them with the menu")
            # every piece seen at least once, where it turns slowest: a chooser's footer, every other 2 s turn (a
            # review: a long list of vehicle names outlasted 15 s)
            from device.dashboards.pages import footer_pieces

            notify("token_zone", text, player, until=now + max(NO_ZONE_WORDS_S, 4.0 * len(footer_pieces(text))),
                   now=now)

    def post_mismatches(self, notify: Notify, withdraw: Withdraw, now: float, *, takes: bool,
                        chooser: str | None) -> None:
        """The counts that differ from the log, on their players' screens; posted again at each new step,
        whose chooser and hazard hook decide the "(hold OK)" hint."""
        withdraw("hazard_mismatch")
        for m in self.mismatches:
            # a screen's footer line, a piece at a time: "Alice: 2 hazard tokens seen, log 3" (+ how to add them)
            due = f" + {m.due} to gain" if m.due else ""
            if m.table > m.log + m.due and m.removed:
                n = m.table - m.log - m.due
                text = f"{m.name}: take {n} hazard token{'' if n == 1 else 's'} off (log {m.log}{due})"
            else:
                mine = takes and m.vehicle is not None and m.extra > 0 and chooser in (None, m.player)
                # fewer seen: a token not taken, or one lying on another, which the camera sees as one (an
                # independent audit: up to 4 mm apart, always one; the players can tell which, it cannot)
                fewer = ": missing, or one on another?" if m.table < m.log else ""
                text = (f"{m.name}: {m.table} hazard token{'' if m.table == 1 else 's'} seen, log {m.log}{due}"
                        f"{fewer}{' (hold OK)' if mine else ''}")
            notify("hazard_mismatch", text, m.player, until=None, now=now)
        for label, player in self.unclear:
            notify("hazard_mismatch", f"{label}: hazard tokens not counted: is their zone covered?", player,
                   until=None, now=now)

    def extra_hazards(self, menu: Menu, views: Sequence[Any] | None = None, chooser: str | None = None) -> list[Command]:
        """Long OK: the table's extra hazard tokens as the game's commands (None of them when the game
        takes no hazard tokens now).  Fewer tokens on the table than in the log is never "fixed" this
        way: tokens are removed by rules (a SHIFT, a wipeout), so that is for BACK or the rules; nor are
        tokens the rules took off and still lying there (added again, a wipeout came twice).  With the
        ``views`` of now, the log's counts are taken as they are now (a token entered with the menu since
        the table was read is not added twice).  With the ``chooser``, only their zones: one player's long OK
        does not enter another's tokens, which they may not have seen."""
        if menu.hazards is None:
            return []
        logged = logged_hazards(views) if views is not None else {}
        out = []
        for m in self.mismatches:
            if chooser is not None and m.player not in (None, chooser):
                continue
            if m.zone in self.uncounted:  # a hand over it now: its count is an old one
                continue
            # tokens the rules add at 1.5 and already laid are theirs to add, not the long OK's (twice, else)
            log = logged[m.zone].hazards + logged[m.zone].due if m.zone in logged else m.log + m.due
            if m.vehicle is not None and m.table > log and not m.removed:
                out.append(menu.hazards(m.vehicle, m.table - log))
        return out


def laid_against(table: Any, vehicle: str | None) -> list[Any]:
    """The templates the camera sees attached to ``vehicle``."""
    return [t for t in getattr(table, "templates", ()) if getattr(t, "attached_to", None) == vehicle]


def template_label(name: Any) -> str:
    """A template as printed on it (``medium_straight`` → ``Medium Straight``)."""
    return str(name).replace("_", " ").title() if name else "template"


def vehicle_name(views: Sequence[Any], vehicle: Any) -> str:
    """A vehicle as the screens call it (its name in the views; its id when none names it)."""
    return next((str(getattr(v, "name", vehicle)) for view in views for v in getattr(view, "vehicles", ())
                 if getattr(v, "id", None) == vehicle), str(vehicle))


def chooser_of(menu: Menu, prompt: Prompt) -> str | None:
    """Whose step it is: the menu's player, else the prompt's (None: anybody)."""
    return menu.player if menu.player is not None else prompt.player


class Logged(NamedTuple):
    """A token zone as the log has it."""

    player: str | None
    label: str
    hazards: int  # hazard tokens in the log
    vehicle: str | None  # the one vehicle the zone is for (None: a zone shared by several vehicles)
    due: int = 0  # tokens the rules will add soon (Gaslands 1.5): on the table already is not "more"


def without_token_zone(zones: Iterable[str], views: Sequence[Any]) -> list[tuple[int, str, str]]:
    """(seat, player, whose tokens: "Eve's" or "Brick's") of each player some of whose vehicles' hazard tokens lie
    in none of the token ``zones`` (named by seat p1.., player or vehicle id, as :func:`logged_hazards` reads
    them).  None when there are no zones: then the camera counts nobody's."""
    names = set(zones)
    if not names:
        return []
    out = []
    for seat, view in enumerate(views, start=1):
        player = getattr(view, "player", None)
        vehicles = [v for v in getattr(view, "vehicles", ()) if hasattr(v, "hazards")]
        if player is None or not vehicles or {str(player), f"p{seat}"} & names:
            continue
        bare = [str(getattr(v, "name", v.id)) for v in vehicles if str(v.id) not in names]
        if bare:
            out.append((seat, str(player), f"{player}'s" if len(bare) == len(vehicles) else ", ".join(bare) + "'s"))
    return out


def logged_hazards(views: Sequence[Any]) -> dict[str, Logged]:
    """Zone name → what the log says of it.  A zone may be named after a vehicle (its id), a player (name)
    or a seat (``p1``..): a player's zone holds all their vehicles' tokens."""
    out: dict[str, Logged] = {}
    for seat, view in enumerate(views, start=1):
        player = getattr(view, "player", None)
        total = due = 0
        ids = []
        for v in getattr(view, "vehicles", ()):
            if not hasattr(v, "hazards"):
                continue
            mine = int(getattr(v, "hazards_due", 0) or 0)
            total += int(v.hazards)
            due += mine
            ids.append(str(v.id))
            out[str(v.id)] = Logged(player, str(getattr(v, "name", v.id)), int(v.hazards), str(v.id), mine)
        only = ids[0] if len(ids) == 1 else None
        if player is not None and ids:  # a game without hazard tokens (Thunder Road) has no token zones
            out.setdefault(str(player), Logged(player, str(player), total, only, due))
            out.setdefault(f"p{seat}", Logged(player, str(player), total, only, due))
    return out


#: The most frames of a still run whose mean the dice are read in.  An audit: the sensor noise of a dim room
#: reads pips into felt; on 80 dev photos with noise of sigma 10 grey levels one frame read 0.9874 of the dice
#: right, the mean of three 0.9906 (at sigma ~21, 42 wrong values in 641 dice, the tray is never judged still:
#: nothing is read there).  Frames of a still tray are the same scene, so a clean picture reads the same.  The
#: tray is first judged still at two frames (their mean is read), and read again at three.
STILL_MEAN_FRAMES = 3


class VisionReader:
    """:class:`TableReader` over ``vision.dice.read_dice``, ``vision.stillness`` and ``vision.table.read_table``.

    The tray is watched with a cheap :class:`vision.stillness.StillnessDetector` on every frame, and the
    (dearer) dice reader runs only once the tray is still — dice in motion are never read.  Without a
    calibration there is no table reading (templates and tokens are then entered with the buttons); dice
    are read all the same.
    """

    def __init__(self, *, calibration: Any = None, table_config: Any = None, faces: Any = None,
                 still_frames: int = 2, die_px: float | None = None, dice_mm: float = 16.0,
                 dice_region: Region | None = None) -> None:
        self.calibration = calibration
        self.table_config = table_config
        self.faces = faces
        #: The side of a die in the tray's pixels when the calibration gives it (None: the reader finds it).
        self.die_px = die_px
        #: ``[vision] dice_mm`` and ``[camera] dice_region``: what the die's size is found from again when the
        #: table is calibrated anew (:meth:`use_calibration`)
        self.dice_mm, self.dice_region = dice_mm, dice_region
        from vision.stillness import StillnessDetector

        self._tray = StillnessDetector(max(2, still_frames))
        self._recent: list[Any] = []  # the latest trays given to tray_still (the still run's, for still_mean)
        self._mean_of = 0  # how many frames the last read's mean took
        self._counts: Any = None  # the token counts' memo (vision.tokens.CountMemo), made at the first read
        self._counts_lock = threading.Lock()
        if calibration is not None and table_config is not None:
            from vision.tokens import prepare

            try:  # the lens maps, once: the first frame is no slower
                prepare(calibration, table_config.tokens)
            except Exception:  # noqa: BLE001 - a damaged zone: the frame read names it ("table not read")
                pass  # and the appliance starts all the same

    def use_calibration(self, calibration: Any) -> None:
        """Read the table with ``calibration`` (None: none), the dice's size at the tray found with it: at the start
        (:meth:`from_files`) and for one made while the appliance runs (the phone's Calibrate page; a review of
        the phone page: a camera knocked or raised and calibrated again, the dice were still looked for at the
        old size until a restart)."""
        self.calibration = calibration
        self.die_px = dice_px_at_tray(calibration, self.dice_region or tray_region(calibration), self.dice_mm)

    def tray_still(self, image: Any, inner: tuple[int, int, int, int] | None = None) -> bool:
        """Whether the tray in ``image`` has been still for the frames asked; ``inner`` (x0, y0, x1, y1): the part
        of ``image`` judged (the tray, where ``image`` has a margin around it: a hand moving beside the tray
        held a still roll, an audit)."""
        still = bool(self._tray.update(image, inner))
        self._recent = [*self._recent, image][-STILL_MEAN_FRAMES:]
        return still

    def read_dice(self, image: Any, die: str) -> list[Any]:
        """The dice in ``image``; when it is the last tray judged still (:meth:`tray_still`), the dice are read in
        the mean of the frames of that still run (up to STILL_MEAN_FRAMES): the same scene, with the sensor's
        noise averaged down."""
        from vision.dice import read_dice

        return list(read_dice(self.still_mean(image), die=die, library=self.faces, die_px=self.die_px))

    def better_mean_ready(self) -> bool:
        """The still run has more frames than the last read's mean took (up to STILL_MEAN_FRAMES): reading again
        reads a mean of more of them (a review: the tray is first judged still at two frames, and the readings
        were then kept while it stayed so: the mean of three was never read)."""
        return self._mean_of < min(self._tray.still_frames, len(self._recent), STILL_MEAN_FRAMES)

    def still_mean(self, image: Any) -> Any:
        """``image``, or the mean of it and the frames before it that showed the same still scene."""
        import numpy as np

        run = min(self._tray.still_frames, len(self._recent))
        if run < 2 or not self._recent or self._recent[-1] is not image:  # (another caller's picture: as given)
            return image
        self._mean_of = run
        frames = self._recent[-run:]
        if any(f.shape != image.shape for f in frames):
            return image
        # (in whole numbers: float32 took ~250 ms and 116 MB on a whole 2304x1296 frame, the tray with no region;
        # a review) the sum of at most STILL_MEAN_FRAMES uint8 frames fits in uint16, rounded half up
        total = frames[0].astype(np.uint16)
        for f in frames[1:]:
            total += f
        return ((total + run // 2) // run).astype(np.uint8)

    def read_table(self, image: Any) -> Any:
        """Cars, templates and token counts in a frame; a token zone is counted again only when it has
        changed since it was last counted (``vision.tokens.CountMemo``: most zones lie untouched)."""
        if self.calibration is None:
            return None
        from vision.table import read_table
        from vision.tokens import CountMemo

        with self._counts_lock:  # the loop's thread; another thread reads with read_table_fresh
            calibration, config = self.calibration, self.table_config  # one of each for this frame
            _fits_calibration(image, calibration)
            memo = self._counts
            if memo is None or memo.calibration is not calibration or memo.look is not config.tokens:
                memo = self._counts = CountMemo(calibration, config.tokens)  # recalibrated or taught: afresh
            return read_table(image, calibration, config, token_counter=memo)

    def read_table_fresh(self, image: Any) -> Any:
        """``read_table`` with every zone counted on this frame and the memo left alone: a pure function of
        the image, for a reader on another thread (the web page's camera view)."""
        if self.calibration is None:
            return None
        from vision.table import read_table

        calibration = self.calibration
        _fits_calibration(image, calibration)
        return read_table(image, calibration, self.table_config)

    @classmethod
    def from_files(cls, calibration: Any | None, faces: Any | None, car_tags: Mapping[int, str] | None = None,
                   *, problems: list["VisionFileProblem"] | None = None, dice_mm: float = 16.0,
                   dice_region: Region | None = None, tokens: Any | None = None,
                   config_option: str | None = None) -> "VisionReader":
        """Load the owner's calibration (``[vision] calibration``, default the data folder's
        ``table_calibration.json``) and face library (``[vision] faces``, default the data folder's).

        With a ``problems`` list, a damaged, unreadable or (configured but) missing file never stops the
        caller: it is appended there as a :class:`VisionFileProblem` and the reader goes on without it
        (no table reading; dice read as plain d6).  Without one, the first problem raises ``UserError``."""
        cal, cal_problem = read_calibration_file(calibration)
        lib, faces_problem = read_face_library(faces, config_option)
        found = [p for p in (cal_problem, faces_problem) if p is not None]
        if problems is None:
            severe = [p for p in found if p.severe]
            if severe:
                from device.cli import UserError

                raise UserError(severe[0].message)
        else:
            problems.extend(found)
        cfg = None
        if cal is not None:
            cfg, cfg_problem = read_table_config()
            if car_tags:
                clashes = car_tag_clashes(car_tags, cfg)
                if clashes:  # those cars go unseen rather than a corner or a template read as a car
                    problem = VisionFileProblem("setup tags", None, car_tag_message(car_tags, clashes),
                                                "CAR TAG CLASH")
                    if problems is None:
                        from device.cli import UserError

                        raise UserError(problem.message)
                    problems.append(problem)
                cfg = dataclasses.replace(cfg, car_tags={t: v for t, v in car_tags.items() if t not in clashes})
            look, look_problem = read_token_look(cfg.tokens, tokens)
            cfg = dataclasses.replace(cfg, tokens=look)
            for problem in (cfg_problem, look_problem):
                if problem is not None and problems is not None:
                    problems.append(problem)
        reader = cls(calibration=cal, table_config=cfg, faces=lib, dice_mm=dice_mm, dice_region=dice_region)
        reader.use_calibration(cal)  # the dice's size at the tray, as a calibration made later sets it
        return reader


@dataclass(frozen=True)
class VisionFileProblem:
    """What is wrong with one of the camera's files: ``short`` fits a screen line, ``message`` names the
    file, what is wrong and what to do (for the journal and ``pitboard check``).  ``severe`` False: not
    wrong, only worth saying (e.g. no calibration yet at the default place)."""

    part: str  # "calibration", "face library" or "token look"
    path: Any  # pathlib.Path
    message: str
    short: str
    severe: bool = True


def _read_json_file(path: Any, what: str, name: str, redo: str) -> tuple[Any, str | None]:
    """``(data, None)`` or ``(None, what is wrong and what to do)`` for a JSON file expected to be there
    (``name``: its usual file name)."""
    from device.safe_files import unreachable

    closed = unreachable(path)
    if closed:
        return None, f"{path} {closed}"
    if path.is_dir():
        if path.name == name:  # a folder in the file's own place
            return None, f"{path} is a folder where the {what} file belongs: rename that folder, then {redo}"
        from device.safe_files import folder_given

        return None, f"{folder_given(path, what, name)}, in pitboard.toml [vision]"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, f"{path} does not exist; {redo}, or correct the path in pitboard.toml [vision]"
    except OSError as exc:
        return None, (f"{path} cannot be read ({exc.strerror or exc}); give the user running Pitboard read "
                      "access to it")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, f"{path} is not a {what} (not UTF-8 text: a binary or damaged file); {redo}"
    if not text.strip():
        return None, (f"{path} is empty ({'0 bytes' if not raw else 'nothing but blanks'}): a crash or a power cut "
                      f"while it was being written can leave it so; {redo}")
    from device.setup_files import TwiceSaidError, loads_json

    try:
        return loads_json(text), None
    except TwiceSaidError as exc:
        return None, f"{path}: {exc}, or {redo}"
    except json.JSONDecodeError as exc:
        return None, f"{path} is not valid JSON ({exc}); {redo}"
    except RecursionError:
        return None, f"{path} is not a {what} (nested too deeply to read); {redo}"


def read_calibration_file(path: Any | None) -> tuple[Any, VisionFileProblem | None]:
    """The table calibration at ``path`` (None: ``<data folder>/table_calibration.json``), or None and the
    problem.  A configured file that is missing is a problem; the default one missing only a note."""
    from pathlib import Path

    from device.paths import data_dir
    from device.table_files import CALIBRATION_FILE, not_a_calibration
    from vision.calibration import Calibration, CalibrationError

    configured = path is not None
    p = Path(path) if configured else data_dir() / CALIBRATION_FILE
    # the file [vision] names: calibrate writes there only when told (its default is the data folder of the
    # user running it, not the appliance's)
    out = f" --out {p}" if configured else ""
    redo = f"run `pitboard calibrate IMAGE{out}` with the four corner tags in view to write it"
    if configured:
        redo += f" (on an installed Pi: `sudo -u pitboard pitboard calibrate IMAGE{out}`)"
    short = "TABLE NOT READ: calibration"
    from device.safe_files import unreachable

    closed = unreachable(p)
    if closed:  # Path.exists raises in a folder closed to this user
        return None, VisionFileProblem("calibration", p, f"the calibration {p} {closed}. Until then the table is not "
                                       "read: templates and tokens are entered with the buttons.", short)
    if configured and not p.exists() and p.name == "calibration.json" and (p.parent / CALIBRATION_FILE).is_file():
        # the name before table_calibration.json: an /etc/pitboard/pitboard.toml from then is never rewritten
        return None, VisionFileProblem("calibration", p, f"the calibration {p} does not exist, but "
                                       f"{p.parent / CALIBRATION_FILE} beside it does (calibrate writes that name): "
                                       f"change [vision] calibration in pitboard.toml to {p.parent / CALIBRATION_FILE}. "
                                       "Until then the table is not read: templates and tokens are entered with "
                                       "the buttons.", short)
    if not configured and not p.exists():
        return None, VisionFileProblem("calibration", p, f"no calibration at {p} yet: the table is not read "
                                       "(templates and tokens are entered with the buttons); run `pitboard "
                                       "calibrate IMAGE` to write it", short, severe=False)
    data, wrong = _read_json_file(p, "calibration", CALIBRATION_FILE, redo)
    other = None if p.is_dir() else not_a_calibration(p, data if wrong is None else None)
    if other is not None:  # another kind of file given as the calibration: say so, and never "write it again"
        wrong = f"{p} is not a calibration: it looks like {other}; point [vision] calibration at the calibration file"
    elif wrong is None:
        if not isinstance(data, dict):
            wrong = (f"{p} is not a calibration (a JSON {type(data).__name__}, not an object with px_to_mm, "
                     f"image_size, mat_mm); {redo}")
        else:
            try:
                return Calibration.from_dict(data), None
            except CalibrationError as exc:
                wrong = f"{p}: {exc}"
                if "pitboard calibrate" not in wrong and "newer Pitboard" not in wrong:  # (newer: never write over it)
                    wrong += f"; {redo}"
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
                wrong = f"{p} is not a usable calibration ({exc!r}); {redo}"
    return None, VisionFileProblem("calibration", p, f"the calibration {wrong}. Until then the table is not "
                                   "read: templates and tokens are entered with the buttons.", short)


#: The share of the calibration's tray zone's size added on each side when it stands for ``[camera] dice_region``
#: (a zone drawn a little small must not cut the dice lying at its edge).
TRAY_MARGIN = 0.1


def _fits_calibration(image: Any, calibration: Any) -> None:
    """Raises ``ValueError`` in the appliance's words when the camera's frame is not the calibration's size (the
    reader's own, "calibrate at this resolution", named neither how nor the other way: the camera's size)."""
    h, w = image.shape[:2]
    cw, ch = (int(v) for v in calibration.image_size)
    if (w, h) != (cw, ch):
        raise ValueError(f"the camera gives {w}x{h} frames, the calibration is for {cw}x{ch}: calibrate again from the "
                         f"phone, or set [camera] width = {cw}, height = {ch}")


def tray_region(calibration: Any | None) -> Region | None:
    """Where the dice are read when ``[camera] dice_region`` is not set: the calibration's ``tray`` zone (the
    owner named where the dice tray stands when calibrating), its box in picture pixels widened by
    :data:`TRAY_MARGIN` on each side, inside the frame.  None without a calibration or a tray zone.  (The
    whole frame was read: the table's hazard tokens, tag cells and mat cracks came back as dice the camera cannot
    read, ~7 a 1280x720 frame on a rendered table, and every roll was held.)"""
    if calibration is None:
        return None
    import math

    import numpy as np

    zones = [z for z in getattr(calibration, "zones", ()) if z.kind == "dice_tray"]  # (a --zones FILE may name
    zones.sort(key=lambda z: z.name != "tray")  # its tray otherwise: "tray" first, then any dice tray zone)
    if not zones:
        return None
    try:
        pts = calibration.to_px(np.array(zones[0].polygon, dtype=float))
    except (ValueError, AttributeError):
        return None
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    mx, my = TRAY_MARGIN * (x1 - x0), TRAY_MARGIN * (y1 - y0)
    w, h = (int(v) for v in calibration.image_size)
    left, top = max(0, math.floor(x0 - mx)), max(0, math.floor(y0 - my))
    right, bottom = min(w, math.ceil(x1 + mx)), min(h, math.ceil(y1 + my))
    if right - left < 16 or bottom - top < 16:  # off the picture: the whole frame, as before
        return None
    return Region(int(left), int(top), int(right - left), int(bottom - top))


def dice_px_at_tray(calibration: Any | None, region: Region | None, dice_mm: float) -> float | None:
    """The side of a die (``dice_mm``, ``[vision] dice_mm``) in pixels at the dice tray: the calibration's
    scale at the centre of the dice region (of the frame without one).  None without a calibration or
    when it gives no scale there: the reader then finds the dice's size itself."""
    if calibration is None:
        return None
    from vision.dice.scale import die_px_from_mm, px_per_mm_at

    if region is not None:
        cx, cy = region.x + region.width / 2, region.y + region.height / 2
    else:
        cx, cy = calibration.image_size[0] / 2, calibration.image_size[1] / 2
    try:
        return die_px_from_mm(px_per_mm_at(calibration, cx, cy), dice_mm)
    except ValueError:
        return None


def dice_size_words(calibration: Any, dice_mm: float = 16.0) -> str | None:
    """What a calibration makes of the dice (``dice_mm``) at its tray zone (the frame's middle without one), for
    ``pitboard calibrate`` and the phone's Calibrate page: "a 16 mm die is 38 px at the tray", with what to do
    when that is under the size the reader reads well (an audit: a calibration at 640x360 said "1.49 mm/px" and
    nothing of dice of 11 px).  None: the calibration gives no scale there."""
    from vision.dice.scale import READABLE_PX

    px = dice_px_at_tray(calibration, tray_region(calibration), dice_mm)
    if px is None:
        return None
    said = f"a {dice_mm:g} mm die is {px:.0f} px at the tray"
    return f"{said}, and {small_dice_advice()}" if px < READABLE_PX[0] else said


def small_dice_advice() -> str:
    """What to do about dice too small in the picture to read well (``vision.dice.scale.READABLE_PX``), as
    ``pitboard calibrate`` and ``pitboard check`` say it."""
    from vision.dice.scale import READABLE_PX

    return (f"dice under {READABLE_PX[0]:.0f} px are often not read: mount the camera lower, or ask it for larger "
            "frames ([camera] width and height, then calibrate again)")


def read_table_config() -> tuple[Any, VisionFileProblem | None]:
    """The table config the owner's files make (``table.toml``, edited template shapes, outlines taught
    with ``pitboard teach template``, all in the data folder) over the shipped defaults; a damaged one:
    the shipped defaults and a (not severe) problem naming the file."""
    from pathlib import Path

    from device.paths import data_dir
    from device.safe_files import closed_to_user
    from device.table_files import TableFileError, load_table_config
    from vision.table import default_config

    try:
        return load_table_config(), None
    except TableFileError as exc:
        return default_config(), VisionFileProblem(
            "table config", data_dir(), f"{exc}. Until then the table is read with the shipped template "
            "shapes and tag numbers (taught outlines are not used).", "TABLE FILE BAD", severe=False)
    except PermissionError as exc:  # a folder on its way closed to this user: Path.exists raises there
        where = Path(exc.filename or data_dir())
        closed = closed_to_user(where) or f"cannot be reached ({exc.strerror or exc})"
        return default_config(), VisionFileProblem(
            "table config", where, f"the table config {where} {closed}. Until then the table is read with the "
            "shipped template shapes and tag numbers.", "TABLE FILE BAD", severe=False)


def read_token_look(base: Any, path: Any | None = None) -> tuple[Any, VisionFileProblem | None]:
    """``base`` with the token colour and bare mats learned at set-up (``<data folder>/table_tokens.npz``,
    written by ``pitboard calibrate`` and ``pitboard teach tokens``).  No file: ``base`` (golden tokens, the
    mat judged from each frame).  A damaged file: ``base`` and a (not severe) problem saying what to do."""
    from device.safe_files import unreachable
    from device.token_files import TokenFileError, load_token_look, tokens_path

    closed = unreachable(tokens_path(path))
    if closed:  # Path.exists raises in a folder closed to this user
        return base, VisionFileProblem("token look", tokens_path(path), f"the token look {tokens_path(path)} {closed}. "
                                       "Until then tokens are counted as golden tokens on an unlearned mat.",
                                       "TOKENS FILE BAD", severe=False)
    if path is not None and not tokens_path(path).exists():
        return base, VisionFileProblem("token look", tokens_path(path), f"the token look {path} named in "
                                       "[vision] tokens does not exist: run `pitboard calibrate IMAGE` and "
                                       "`pitboard teach tokens`, or fix the path. Until then tokens are counted "
                                       "as golden tokens on an unlearned mat.", "TOKENS FILE MISSING",
                                       severe=False)
    try:
        return load_token_look(base, path), None
    except TokenFileError as exc:
        return base, VisionFileProblem("token look", tokens_path(path), f"{exc}. Until then tokens are counted "
                                       "as golden tokens on an unlearned mat.", "TOKENS FILE BAD", severe=False)


def read_face_library(path: Any | None, config_option: str | None = None) -> tuple[Any, VisionFileProblem | None]:
    """The face library at ``path`` (None: ``<data folder>/faces.json``); a missing file is an empty
    library (nothing taught yet).  Damaged: an empty library (plain d6) and the problem; the file is never
    touched.  ``config_option``: the ``--config`` the teaching it offers must carry (the appliance's config,
    when not the default: :meth:`PitboardConfig.config_option`)."""
    from pathlib import Path

    from device.dice_library_files import (FILE_NAME, library_path, mend_words, redo_words, unknown_name_words,
                                           unrolled_dice_words)
    from vision.dice.faces import FaceLibrary, MendableLibraryError, NewerLibraryError

    from device.safe_files import unreachable

    p = Path(path) if path is not None else library_path()
    if not unreachable(p) and not p.exists() and not p.is_symlink():  # (exists raises in a folder closed to us:
        return FaceLibrary(), None  # _read_json_file says so)
    redo = redo_words(p, config_option)
    data, wrong = _read_json_file(p, "face library", FILE_NAME, redo)
    if wrong is None:
        try:
            library = FaceLibrary.from_dict(data)
            unknown = unknown_name_words(library)
            if unknown is None:
                unrolled = unrolled_dice_words(library)  # read, but worth a word: the game's die goes untaught
                return library, (None if unrolled is None else VisionFileProblem(
                    "face library", p, f"the face library {p}: {unrolled}", "FACES: A DIE NO GAME ROLLS",
                    severe=False))
            wrong = f"{p} {unknown}; it was left untouched"
        except NewerLibraryError as exc:  # not damaged: teaching again would throw the owner's work away
            wrong = f"{p}: {exc}; it was left untouched; upgrade Pitboard to use it"
        except MendableLibraryError as exc:  # moving it aside would throw every other example away
            wrong = f"{p}: {mend_words(exc, config_option)}; it was left untouched"
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError, IndexError) as exc:
            wrong = f"{p} is damaged ({exc}); it was left untouched; {redo}"
    return FaceLibrary(), VisionFileProblem("face library", p, f"the face library {wrong}. Until then dice are "
                                            "read as plain d6 (taught faces are not recognised).",
                                            "FACES FILE BAD: plain d6")


def files_notice(problems: Sequence[VisionFileProblem]) -> str | None:
    """One short screen line (at most 28 characters) for the severe problems, None if there are none."""
    parts = {p.part for p in problems if p.severe}
    if not parts:
        return None
    if parts == {"calibration", "face library"}:
        return "BAD FILES: calibration+faces"
    if len(parts) > 1:
        short = {"calibration": "calib", "face library": "faces", "dice models": "models"}
        return "BAD: " + "+".join(short.get(p, p) for p in sorted(parts))[:23]
    return next(p.short for p in problems if p.severe)


def car_tag_clashes(car_tags: Mapping[int, str], config: Any) -> dict[int, str]:
    """Each setup car tag the camera cannot take as that car's, with why, by tag id: a tag outside the table's
    dictionary, or one with another job (a corner tag, a template's, a token-zone card's).  The table config
    refuses the same in its own tag list; a setup's ``tag = 0`` would otherwise have the camera take a
    corner for a car (and the car never seen)."""
    from vision.calibration import ZONE_CARD_IDS
    from vision.table import _dictionary_size

    try:
        size = _dictionary_size(config.dictionary)
    except Exception:  # noqa: BLE001 - an unknown dictionary is the table config's to report
        size = None
    cards = {i: f"token-zone card p{k + 1}'s" for k, ids in enumerate(ZONE_CARD_IDS) for i in ids}
    out: dict[int, str] = {}
    for tag in car_tags:
        if size is not None and not 0 <= tag < size:
            out[tag] = f"not a tag of the table's {config.dictionary} set (0 to {size - 1})"
        elif tag in config.corner_ids:
            out[tag] = "a corner tag's"
        elif tag in config.template_tags:
            name, face = config.template_tags[tag]
            out[tag] = f"the {name} template's (face {face})"
        elif tag in cards:
            out[tag] = cards[tag]
    return out


def car_tag_message(car_tags: Mapping[int, str], clashes: Mapping[int, str]) -> str:
    """The words for :func:`car_tag_clashes`: which car, which tag, why, and what to do."""
    said = "; ".join(f"{car_tags[t]} has tag {t}, {why}" for t, why in sorted(clashes.items()))
    return (f"the setup's car tags cannot be read: {said}. Give each car a tag of its own (the tag sheet, "
            "`pitboard markers`, prints the car tags); until then those cars are not seen by the camera")


def car_tags_of(state: Any) -> dict[int, str]:
    """Tag id → vehicle id of a game's state (its vehicles' ``tag``, as the rules took them from the setup,
    with the ids the rules gave vehicles the setup left without one)."""
    out: dict[int, str] = {}
    for v in getattr(state, "vehicles", ()) or ():
        tag = getattr(v, "tag", None)
        if isinstance(tag, int) and not isinstance(tag, bool):
            out[tag] = str(v.id)
    return out


def car_tags_from_options(options: Mapping[str, Any], module: Any) -> dict[int, str]:
    """Tag id → vehicle id from a setup (``[[players.vehicles]] tag = 10``): how the camera names cars.  The
    setup is started by the game's rules (``module``), so a vehicle without an ``id`` keeps its tag under the
    id the rules give it (read from the setup's own text, such a tag was dropped and the car never seen)."""
    from games.core import Match

    try:
        return car_tags_of(Match.begin(module.GAME, dict(options)).state)
    except Exception:  # noqa: BLE001 - a setup the rules refuse is the game line's to report
        return {}
