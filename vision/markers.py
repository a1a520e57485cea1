"""ArUco tags on the table: detection, tag poses in millimetres, and the printable tag sheet.

One dictionary serves corners, cars and templates, so a single detector pass per frame finds all of
them; which id means what is configuration (``TableConfig``), never code.  The 4x4 dictionaries are the
default because their big cells survive the ~1.5 px/mm a 720p camera gives over a Gaslands mat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.calibration import Calibration, TagCard

if TYPE_CHECKING:  # imported lazily at run time (OpenCV and Pillow load slowly)
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    _Font = ImageFont.ImageFont | ImageFont.FreeTypeFont

_DETECTORS: dict[str, cv2.aruco.ArucoDetector] = {}


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """OpenCV dictionary from a name such as ``"4X4_100"`` (``DICT_`` prefix optional)."""
    import cv2

    key = name.upper().removeprefix("DICT_")
    const = getattr(cv2.aruco, f"DICT_{key}", None)
    if const is None:
        raise ValueError(f"unknown ArUco dictionary {name!r}; use one like 4X4_100, 5X5_100, 6X6_250")
    return cv2.aruco.getPredefinedDictionary(const)


def _detector(name: str) -> cv2.aruco.ArucoDetector:
    import cv2

    det = _DETECTORS.get(name)
    if det is None:
        params = cv2.aruco.DetectorParameters()
        # Sub-pixel corners: template heading comes from a 25 mm tag, so corner precision is heading
        # precision (``refine_edges`` then re-finds them from the tag's edges).  Two threshold windows
        # instead of OpenCV's three (3, 13, 23) cut a third of the time and lost no tag on our synthetic
        # frames; smaller maxima lost tags at the edges.  The windows are
        # 7 and 27 px, not 3 and 23: a 3 px window sees nothing but noise inside a blurred edge.  On the
        # table bench's tuning seeds (11, 5) a 4 px motion blur hid 20 of 297 car and template tags
        # instead of 37 (defocus 8 of 300 instead of 9), no tag was lost in any other condition, and
        # detection took ~2 ms more per 720p frame (5 and 25: 26 hidden, +0.5 ms; 9 and 29: 17, +3.6 ms).
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 3
        params.adaptiveThreshWinSizeMin = 7
        params.adaptiveThreshWinSizeMax = 27
        params.adaptiveThreshWinSizeStep = 20
        # Each bit is read from the middle 40 % of its cell, not OpenCV's 74 %: under motion blur or
        # defocus a cell's edges take the colour of its neighbours.  On the tuning seeds (11, 5) of the
        # table bench it found 49 of 51 templates under a 4 px motion blur instead of 44 of 47 (more
        # car tags found, so more templates counted) and lost none elsewhere.
        params.perspectiveRemoveIgnoredMarginPerCell = 0.3
        # OpenCV's threshold constant (7 grey levels) stays: 14 spent a third less time tracing a textured
        # mat's specks and lost no tag on the tuning seeds (11, 5), but lost one template tag under motion
        # blur and one under defocus on the report seed (found at 7), so the speed is not worth it.
        det = cv2.aruco.ArucoDetector(aruco_dictionary(name), params)
        _DETECTORS[name] = det
    return det


@dataclass(frozen=True)
class TagSighting:
    """One tag seen in a frame: id and its four corners (pixels, ArUco order TL, TR, BR, BL)."""

    id: int
    corners_px: np.ndarray


def detect_tags(image: np.ndarray, dictionary: str = "4X4_100") -> list[TagSighting]:
    """All tags of ``dictionary`` in a BGR or grey image."""
    import cv2

    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector(dictionary).detectMarkers(gray)
    if ids is None:
        return []
    quads = refine_edges(gray, np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2))
    paper = on_paper(gray, quads)
    return [TagSighting(int(i), q) for q, i, ok in zip(quads, ids.ravel(), paper) if ok]


#: A tag is printed on white paper: the margin around its black border is as bright as its white cells.
#: A black die showing five (white pips at the corners and the middle) reads as a 4x4 tag, but what
#: lies around it is the mat, darker than its pips.  On the table bench's tuning seeds (11 and 5, every
#: condition, 4 frames each) the margin of 982 real tags was at least 0.72 of the brightest white cell
#: (motion blur; 0.88 at the 1st percentile) and that of the three dice read as tags at most 0.62 (found
#: with a threshold constant of 14; at 7 one of them is found).
PAPER_MARGIN = 0.67


def _paper_points() -> np.ndarray:
    """Where ``on_paper`` looks, in tag units (0-1 across the tag with its black border): the middles of
    the 4 x 4 inner cells, then 8 points along each side half a cell outside the border."""
    g = (np.arange(4) + 1.5) / 6.0
    cells = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    t, o = np.linspace(0.1, 0.9, 8), -0.5 / 6.0
    ring = np.concatenate([np.stack([t, np.full(8, o)], 1), np.stack([np.full(8, 1 - o), t], 1),
                           np.stack([t, np.full(8, 1 - o)], 1), np.stack([np.full(8, o), t], 1)])
    return np.concatenate([cells, ring])


_PAPER_POINTS = _paper_points()  # the same for every tag of every frame


def on_paper(gray: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """For each tag (n x 4 x 2 corners, ArUco order): whether the ring half a cell outside its black border
    (its median over 32 points) is at least ``PAPER_MARGIN`` as bright as its brightest inner cell."""
    import cv2

    if len(quads) == 0:
        return np.zeros(0, bool)
    u, v = _PAPER_POINTS[:, 0][None, :, None], _PAPER_POINTS[:, 1][None, :, None]
    a, b, c, d = (quads[:, i][:, None, :] for i in range(4))  # TL, TR, BR, BL
    # the bilinear map of the unit square onto the tag: exact on the straight lines of a tag seen in
    # perspective at the ends and near enough (<< a cell) in between for a tag of a few dozen pixels
    pts = (a * (1 - u) * (1 - v) + b * u * (1 - v) + c * u * v + d * (1 - u) * v).astype(np.float32)
    vals = cv2.remap(gray, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    vals = vals.astype(np.float64)
    white = vals[:, :16].max(axis=1)
    margin = np.median(vals[:, 16:], axis=1)
    return np.asarray(margin >= PAPER_MARGIN * np.maximum(white, 1.0))


#: Where along a tag's side its edge is measured (shares of the side): away from the corners, where a
#: blurred corner rounds the edge off.
_EDGE_SPAN = (0.18, 0.82)


def refine_edges(gray: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Tag corners (n x 4 x 2 pixels, ArUco order) re-found as the crossings of the tag's four outer
    edges, each a straight line fitted through 16 points along it: at each, where the brightness rises
    from the black border to the white margin (the centroid of the rise around its halfway crossing).

    A corner found by its neighbourhood alone moves with blur and noise; an edge is seen along its whole
    length (~40 px at 720p) and a symmetric blur (defocus, a nudged camera) leaves the middle of its
    rise in place, so the tag's heading -- the direction of its sides -- is read from many points
    instead of four.  A side that does not show a clean dark-to-light step along most of it (a finger over it, a
    tag cut by the frame) keeps the detector's corners, and so does a tag whose refined corners would
    move more than a tenth of its side."""
    import cv2

    n = len(quads)
    if n == 0:
        return quads
    side = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2)  # n x 4: corner i -> i + 1
    cell = side.mean(axis=1) / 6.0  # a 4x4 tag is 6 cells across with its black border
    k, m = 16, 25  # points along a side, samples across it
    t = np.linspace(*_EDGE_SPAN, k)
    a = quads
    b = np.roll(quads, -1, axis=1)
    d = (b - a) / np.maximum(side[..., None], 1e-6)
    normal = np.stack([d[..., 1], -d[..., 0]], axis=-1)  # outward: the corners run clockwise on screen
    reach = 0.75 * cell  # inside: the black border only; outside: the white margin
    off = np.linspace(-1.0, 1.0, m)[None, None, None, :] * reach[:, None, None, None]  # n,1,1,m
    base = a[:, :, None, :] + (b - a)[:, :, None, :] * t[None, None, :, None]  # n,4,k,2
    pts = base[:, :, :, None, :] + normal[:, :, None, None, :] * off[..., None]  # n,4,k,m,2
    mx = pts[..., 0].reshape(-1, m).astype(np.float32)
    my = pts[..., 1].reshape(-1, m).astype(np.float32)
    prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    prof = prof.reshape(n, 4, k, m)
    half = m // 2
    dark = prof[..., :half - 1].min(axis=-1)
    light = prof[..., half + 2:].max(axis=-1)
    level = (dark + light) / 2
    above = prof >= level[..., None]
    # the step: the last sample below halfway before the first at or above it, scanning outward
    rising = above[..., 1:] & ~above[..., :-1]
    first = np.argmax(rising, axis=-1)  # index j: prof[j] < level <= prof[j + 1]
    j = first[..., None]
    p0 = np.take_along_axis(prof, j, axis=-1)[..., 0]
    p1 = np.take_along_axis(prof, j + 1, axis=-1)[..., 0]
    frac = (level - p0) / np.maximum(p1 - p0, 1e-6)
    step = 2.0 / (m - 1)
    where = (-1.0 + (first + frac) * step) * reach[:, None, None]  # offset along the normal, px
    # The edge is the centroid of the brightness rise within 3 px of the halfway crossing: exact for a
    # pixel-averaged step under linear interpolation, where the halfway crossing itself is off by up to
    # 0.08 px depending on where the edge cuts its pixel (a slope error of ~0.3 degrees on a sharp tag).
    rise = np.clip(np.diff(prof, axis=-1), 0.0, None)
    mids = (-1.0 + (np.arange(m - 1) + 0.5) * step)[None, None, None, :] * reach[:, None, None, None]
    rise = rise * (np.abs(mids - where[..., None]) <= 3.0)
    total = rise.sum(axis=-1)
    where = np.where(total > 0, (rise * mids).sum(axis=-1) / np.maximum(total, 1e-9), where)
    # clean: one crossing only, contrast well above the noise, near the detector's edge
    crossings = np.count_nonzero(above[..., 1:] != above[..., :-1], axis=-1)
    good = (crossings == 1) & rising.any(axis=-1) & (light - dark > 30.0) & (np.abs(where) < 0.5 * reach[:, None, None])
    edge_pts = base + normal[:, :, None, :] * where[..., None]  # n,4,k,2
    # a straight line through each side's good points: their mean and principal direction
    w = good.astype(np.float64)
    cnt = w.sum(axis=-1)  # n,4
    c = (edge_pts * w[..., None]).sum(axis=2) / np.maximum(cnt, 1.0)[..., None]
    r = (edge_pts - c[:, :, None, :]) * w[..., None]
    cov = np.einsum("nekx,neky->nexy", r, edge_pts - c[:, :, None, :])
    _, vecs = np.linalg.eigh(cov)
    u = vecs[..., 1]  # n,4,2: the direction of largest spread
    # corner e + 1 joins side e and side e + 1: c0 + s u0 = c1 + s' u1
    c0, u0, c1, u1 = c, u, np.roll(c, -1, axis=1), np.roll(u, -1, axis=1)
    det = u0[..., 0] * -u1[..., 1] + u1[..., 0] * u0[..., 1]
    rhs = c1 - c0
    s0 = (rhs[..., 0] * -u1[..., 1] + u1[..., 0] * rhs[..., 1]) / np.where(np.abs(det) < 1e-3, 1.0, det)
    q = np.roll(c0 + u0 * s0[..., None], 1, axis=1)  # side e's end is corner e + 1
    ok = (cnt >= 0.6 * k).all(axis=1) & (np.abs(det) >= 1e-3).all(axis=1)
    ok &= np.abs(q - quads).max(axis=(1, 2)) < 0.1 * side.mean(axis=1)
    return np.where(ok[:, None, None], q, quads)


@dataclass(frozen=True)
class TagPose:
    """A tag's pose on the mat: centre (mm), heading of its top edge's outward normal (deg, the
    table's clockwise convention), and its measured side length (mm)."""

    centre_mm: tuple[float, float]
    heading_deg: float
    size_mm: float


def tag_pose(sighting: TagSighting, calibration: Calibration, height_mm: float = 0.0) -> TagPose:
    """Pose of a tag lying flat ``height_mm`` above the mat.  The heading averages the two side edges
    (BL->TL and BR->TR) so corner noise partly cancels."""
    c = calibration.to_mm(sighting.corners_px, height_mm)
    centre = c.mean(axis=0)
    up = (c[0] - c[3]) + (c[1] - c[2])
    right = (c[1] - c[0]) + (c[2] - c[3])
    # Combine "up" with "right" rotated a quarter turn anticlockwise (in table coordinates): both
    # estimate the same direction.
    v = up + np.array([right[1], -right[0]])
    heading = math.degrees(math.atan2(v[1], v[0])) % 360.0
    size = float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))
    return TagPose((float(centre[0]), float(centre[1])), heading, size)


# --------------------------------------------------------------------------------------------------
# The printable set-up: tag sheet and token-zone cards
#
# Every tag is drawn with a cut line around its white quiet zone and, on the cut piece above the tag,
# a strip with an arrow marking the tag's TOP edge and what that edge goes towards.  Labels sit under
# the cut piece, measured with the font so no two overlap and none leaves the page; the layout is
# returned with every box drawn (``SheetLayout.items``) so tests can check exactly that.

PAPER_SIZES: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


class TagKind(Enum):
    """What a printed tag is for: it decides the arrow's wording and the placement instructions."""

    CORNER = "corner"
    CAR = "car"
    TEMPLATE = "template"
    OTHER = "other"


# Printed beside the arrow on the cut piece (short: a car's roof is small) ...
ARROW_TEXT = {
    TagKind.CORNER: "top: mat's top edge",
    TagKind.CAR: "top: car's nose",
    TagKind.TEMPLATE: "top: travel",
    TagKind.OTHER: "top",
}
# ... and spelled out in the label under it.
ARROW_SENTENCE = {
    TagKind.CORNER: "arrow edge towards the mat's top edge",
    TagKind.CAR: "arrow edge = this edge to the car's nose",
    TagKind.TEMPLATE: "arrow edge = this edge to the direction of travel",
    TagKind.OTHER: "",
}


@dataclass(frozen=True)
class SheetEntry:
    """One tag to print: id, printed side length (mm, the black square), a label and what it is for."""

    id: int
    size_mm: float
    label: str
    kind: TagKind = TagKind.OTHER
    note: str = ""  # one more line under the label (e.g. where a corner tag goes)


@dataclass(frozen=True)
class PlacedItem:
    """A box drawn on a page (pixels, x0, y0, x1, y1 exclusive): ``what`` is "tag" (the black square),
    "piece" (the cut piece: quiet zone and arrow strip), "arrow", "label", "header", "ruler", "text"
    or "card"; ``tag_id`` for the parts of one tag."""

    page: int
    what: str
    box: tuple[float, float, float, float]
    tag_id: int | None = None
    text: str = ""


@dataclass
class SheetLayout:
    """Rendered pages (Pillow "L" images at ``dpi``) and every box drawn on them."""

    pages: list[Image.Image]
    items: list[PlacedItem]
    dpi: int
    page_mm: tuple[float, float]


def paper_mm(paper: str | tuple[float, float]) -> tuple[float, float]:
    """Page size in mm from a name ("a4", "letter") or a (width, height) pair."""
    if isinstance(paper, str):
        key = paper.strip().lower()
        if key not in PAPER_SIZES:
            raise ValueError(f"paper {paper!r} is not known; use one of {', '.join(PAPER_SIZES)} or (width, height) mm")
        return PAPER_SIZES[key]
    w, h = float(paper[0]), float(paper[1])
    if not (90.0 <= w <= 1000.0 and 90.0 <= h <= 1000.0):
        raise ValueError(f"paper size {w:g} x {h:g} mm is out of range (90..1000 mm each side)")
    return w, h


def table_sheet_entries(corner_ids: Sequence[int], corner_size_mm: float, car_tags: Mapping[int, str],
                        car_size_mm: float, template_tags: Mapping[int, tuple[str, str]],
                        template_tag_mm: Mapping[str, float]) -> list[SheetEntry]:
    """The entries of the tag sheet for a table config: four corner tags, one per car, one per template
    face (``template_tag_mm``: template name -> its tag's side, 25 mm when missing)."""
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    out = [SheetEntry(int(i), float(corner_size_mm), f"corner {n}", TagKind.CORNER,
                      f"black square's {n} corner on the mat's {n} corner")
           for i, n in zip(corner_ids, names)]
    out += [SheetEntry(int(i), float(car_size_mm), f"car {c}", TagKind.CAR, "centred on the roof")
            for i, c in sorted(car_tags.items())]
    for i, (name, face) in sorted(template_tags.items()):
        side = "upper face" if face == "a" else "underside, back to back with face a"
        out.append(SheetEntry(int(i), float(template_tag_mm.get(name, 25.0)), f"{name} face {face}",
                              TagKind.TEMPLATE, side))
    return out


def _font(px_per_mm: float, mm: float) -> _Font:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=max(8, int(round(mm * px_per_mm))))
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: _Font, max_w: float) -> list[str]:
    """Greedy word wrap by measured width (a single word wider than ``max_w`` keeps its own line)."""
    lines: list[str] = []
    for para in text.split("\n"):
        cur = ""
        for word in para.split():
            trial = f"{cur} {word}".strip()
            if cur and draw.textlength(trial, font=font) > max_w:
                lines.append(cur)
                cur = word
            else:
                cur = trial
        lines.append(cur)
    return lines


def _draw_arrow(draw: ImageDraw.ImageDraw, x0: float, y0: float, x1: float, y1: float, fill: int = 0) -> None:
    """An upward arrow filling the box (x0, y0)-(x1, y1): a triangle head on a shaft."""
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2
    head = min(h * 0.55, w)
    draw.polygon([(cx, y0), (cx + head / 2, y0 + head), (cx - head / 2, y0 + head)], fill=fill)
    sw = max(1.0, head * 0.28)
    draw.rectangle([cx - sw / 2, y0 + head - 1, cx + sw / 2, y1], fill=fill)


class _Pager:
    """Flow layout on pages: header with ruler on every page, boxes placed left to right in rows."""

    def __init__(self, dictionary: str, dpi: int, page_mm: tuple[float, float], title: str, margin_mm: float = 10.0):
        from PIL import Image, ImageDraw

        self._image, self._draw_cls = Image, ImageDraw
        self.px = dpi / 25.4
        self.dpi, self.dictionary, self.title = dpi, dictionary, title
        self.pw, self.ph = int(round(page_mm[0] * self.px)), int(round(page_mm[1] * self.px))
        self.margin = margin_mm * self.px
        self.font = _font(self.px, 3.0)
        self.small = _font(self.px, 2.6)
        self.pages: list[Image.Image] = []
        self.items: list[PlacedItem] = []
        self.page: Any = None
        self.draw: Any = None
        self.x = self.y = self.row_h = 0.0
        self.new_page()

    def text(self, xy: tuple[float, float], text: str, font: _Font, what: str = "text",
             tag_id: int | None = None) -> float:
        """Draw one line at top-left ``xy``; record its box; return its height."""
        x, y = xy
        l, t, r, b = self.draw.textbbox((x, y), text, font=font)
        self.draw.text((x, y), text, fill=0, font=font)
        self.items.append(PlacedItem(len(self.pages) - 1, what, (float(l), float(t), float(r), float(b)), tag_id, text))
        return float(b - y)

    def line_h(self, font: _Font) -> float:
        b = self.draw.textbbox((0, 0), "Ag|", font=font)[3]
        return float(b) * 1.15

    def new_page(self) -> None:
        px = self.px
        self.page = self._image.new("L", (self.pw, self.ph), 255)
        self.draw = self._draw_cls.Draw(self.page)
        self.pages.append(self.page)
        y = self.margin * 0.6
        head = (f"{self.title} - page {len(self.pages)} - ArUco {self.dictionary} - {self.dpi} dpi. Print at 100 % "
                "(no 'fit to page'); the ruler below must measure 100 mm.")
        for ln in _wrap(self.draw, head, self.font, self.pw - 2 * self.margin):
            self.text((self.margin, y), ln, self.font, "header")
            y += self.line_h(self.font)
        ry = y + 2.0 * px
        lw = max(1, int(0.3 * px))
        self.draw.line([(self.margin, ry), (self.margin + 100 * px, ry)], fill=0, width=lw)
        for k in range(11):
            xx = self.margin + k * 10 * px
            self.draw.line([(xx, ry - 1.5 * px), (xx, ry + 1.5 * px)], fill=0, width=lw)
        self.items.append(PlacedItem(len(self.pages) - 1, "ruler",
                                     (self.margin, ry - 1.5 * px, self.margin + 100 * px + lw, ry + 1.5 * px + lw)))
        self.x, self.y, self.row_h = self.margin, ry + 5.0 * px, 0.0

    def place(self, w: float, h: float, gap: float) -> tuple[float, float]:
        """Top-left of the next free w x h box (new row / new page as needed)."""
        if self.x + w > self.pw - self.margin and self.x > self.margin:
            self.x, self.y, self.row_h = self.margin, self.y + self.row_h + gap, 0.0
        if self.y + h > self.ph - self.margin:
            self.new_page()
        if self.x + w > self.pw - self.margin or self.y + h > self.ph - self.margin:
            raise ValueError(f"an item of {w / self.px:.0f} x {h / self.px:.0f} mm does not fit on a "
                             f"{self.pw / self.px:.0f} x {self.ph / self.px:.0f} mm page; use bigger paper or smaller tags")
        pos = (self.x, self.y)
        self.x += w + gap
        self.row_h = max(self.row_h, h)
        return pos

    def newline(self, gap: float) -> None:
        if self.x > self.margin:
            self.x, self.y, self.row_h = self.margin, self.y + self.row_h + gap, 0.0


def _tag_piece(pg: _Pager, dic: cv2.aruco.Dictionary, tag_id: int, side_mm: float, x: float, y: float, arrow_text: str,
               strip_h: float) -> tuple[float, float]:
    """Draw a cut piece at (x, y): arrow strip, quiet zone, tag.  Returns its (w, h) in pixels."""
    import cv2
    from PIL import Image

    px = pg.px
    side = side_mm * px
    quiet = side / (dic.markerSize + 2)
    w = side + 2 * quiet
    h = strip_h + w
    img = cv2.aruco.generateImageMarker(dic, int(tag_id), int(round(side)), borderBits=1)
    tx, ty = int(round(x + quiet)), int(round(y + strip_h + quiet))
    pg.page.paste(Image.fromarray(img), (tx, ty))
    pg.items.append(PlacedItem(len(pg.pages) - 1, "tag", (float(tx), float(ty), float(tx + img.shape[1]),
                                                          float(ty + img.shape[0])), tag_id))
    # arrow towards the tag's top edge, and its words, in the strip above the quiet zone
    ah = strip_h * 0.8
    ax0 = x + quiet
    _draw_arrow(pg.draw, ax0, y + strip_h * 0.1, ax0 + ah * 0.8, y + strip_h * 0.1 + ah)
    pg.items.append(PlacedItem(len(pg.pages) - 1, "arrow", (ax0, y + strip_h * 0.1, ax0 + ah * 0.8,
                                                            y + strip_h * 0.1 + ah), tag_id))
    font = pg.small
    room = w - quiet - ah * 0.8 - 1.0 * px - quiet
    lines = _wrap(pg.draw, arrow_text, font, max(room, 1.0))
    lh = pg.line_h(font)
    ty0 = y + max(0.0, (strip_h - lh * len(lines)) / 2)
    for k, ln in enumerate(lines):
        pg.text((ax0 + ah * 0.8 + 1.0 * px, ty0 + k * lh), ln, font, "arrow_text", tag_id)
    pg.draw.rectangle([x, y, x + w, y + h], outline=150, width=max(1, int(0.15 * px)))
    pg.items.append(PlacedItem(len(pg.pages) - 1, "piece", (x, y, x + w, y + h), tag_id))
    return w, h


def _strip_mm(lines: int) -> float:
    """Height of the arrow strip on a cut piece for ``lines`` lines of its small text."""
    return max(5.0, 3.2 * lines + 1.0)


def marker_sheet_layout(entries: Sequence[SheetEntry], dictionary: str = "4X4_100", dpi: int = 300,
                        paper: str | tuple[float, float] = "a4") -> SheetLayout:
    """Lay out and draw the tag sheet: first page opens with how to place the tags; every tag is a cut
    piece with an arrow to its top edge and what that edge goes towards; its id, label and size are
    underneath.  Nothing overlaps and nothing leaves the page (``SheetLayout.items`` has every box)."""
    if dpi < 100 or dpi > 1200:
        raise ValueError(f"dpi {dpi} is out of range; use 150..600 (300 is typical)")
    page_mm = paper_mm(paper)
    dic = aruco_dictionary(dictionary)
    pg = _Pager(dictionary, dpi, page_mm, "Pitboard tags")
    px = pg.px
    gap = 4.0 * px
    if any(e.kind is TagKind.CORNER for e in entries):
        how = ("How to place them. Cut each tag along its grey line. CORNER TAGS: lay each on its own mat "
               "corner so that the corner of the BLACK SQUARE (not of the white paper around it) sits exactly "
               "on the mat's corner, its arrow pointing to the mat's top edge (the far side in the camera "
               "picture); the white border then hangs over the mat's edge: keep it flat. CARS: centre the tag "
               "on the roof, arrow to the nose. TEMPLATES: face a on the upper face, arrow along the direction "
               "of travel; face b underneath, back to back.")
        for ln in _wrap(pg.draw, how, pg.font, pg.pw - 2 * pg.margin):
            pg.y += pg.text((pg.margin, pg.y), ln, pg.font, "text") * 1.15
        pg.y += gap
    for e in entries:
        if e.size_mm <= 0:
            raise ValueError(f"tag {e.id} has size {e.size_mm} mm; give the black square's side in mm")
        side = e.size_mm * px
        w_piece = side * (1 + 2 / (dic.markerSize + 2))
        arrow = ARROW_TEXT[e.kind]
        room = w_piece - side / (dic.markerSize + 2) * 2 - 5.0 * px
        n_lines = len(_wrap(pg.draw, arrow, pg.small, max(room, 1.0)))
        strip = _strip_mm(n_lines) * px
        label_w = max(w_piece, 38.0 * px)
        label_lines = _wrap(pg.draw, f"id {e.id}: {e.label} ({e.size_mm:g} mm)", pg.font, label_w)
        note = "; ".join(t for t in (ARROW_SENTENCE[e.kind], e.note) if t)
        note_lines = _wrap(pg.draw, note, pg.small, label_w) if note else []
        label_lines += note_lines
        widths = [pg.draw.textlength(ln, font=pg.font if k < len(label_lines) - len(note_lines) else pg.small)
                  for k, ln in enumerate(label_lines)]
        cell_w = max(w_piece, max(widths) if widths else 0.0)
        cell_h = strip + w_piece + 1.0 * px + pg.line_h(pg.font) * len(label_lines)
        x, y = pg.place(cell_w, cell_h, gap)
        _, hp = _tag_piece(pg, dic, e.id, e.size_mm, x, y, arrow, strip)
        ly = y + hp + 1.0 * px
        n_main = len(label_lines) - len(note_lines)
        for k, ln in enumerate(label_lines):
            font = pg.font if k < n_main else pg.small
            ly += pg.text((x, ly), ln, font, "label", e.id) * 1.15
    return SheetLayout(pg.pages, pg.items, dpi, page_mm)


def marker_sheet_pages(entries: Sequence[SheetEntry], dictionary: str = "4X4_100", dpi: int = 300,
                       page_mm: tuple[float, float] | None = None, paper: str = "a4") -> list[Image.Image]:
    """The tag sheet's pages (Pillow images at ``dpi``, true size when printed at 100 %); ``paper`` is
    "a4" or "letter" (``page_mm`` overrides it).  See ``marker_sheet_layout``."""
    return marker_sheet_layout(entries, dictionary, dpi, page_mm if page_mm is not None else paper).pages


# ---- token-zone cards ------------------------------------------------------------------------------


def card_image(card: TagCard, px_per_mm: float, dictionary: str = "4X4_100", title: str = "") -> np.ndarray:
    """The card as a grey picture (uint8, white paper), ``px_per_mm`` pixels per mm, top-left = the
    card's origin: its tags where ``card.tags`` says, a thick frame just outside the zone window and the
    title between the tags.  The printed pages paste this picture; the bench lays it on rendered mats."""
    import cv2
    from PIL import Image, ImageDraw

    dic = aruco_dictionary(dictionary)
    cw, ch = card.size_mm
    w, h = int(round(cw * px_per_mm)), int(round(ch * px_per_mm))
    img = np.full((h, w), 255, np.uint8)
    for tid, x, y, s in card.tags:
        side = int(round(s * px_per_mm))
        m = cv2.aruco.generateImageMarker(dic, int(tid), side, borderBits=1)
        x0, y0 = int(round(x * px_per_mm)), int(round(y * px_per_mm))
        img[y0:y0 + side, x0:x0 + side] = m[: h - y0, : w - x0]
    if card.zone_polygon:
        poly = np.array(card.zone_polygon, dtype=np.float64)
        lw = 1.5  # mm, drawn outside the window so the zone itself stays plain paper
        lo, hi = poly.min(axis=0) - lw, poly.max(axis=0) + lw
        outer = np.round(np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]) * px_per_mm)
        cv2.fillPoly(img, [outer.astype(np.int32)], 0)
        cv2.fillPoly(img, [np.round(poly * px_per_mm).astype(np.int32)], 255)
    if title:
        pil = Image.fromarray(img)
        d = ImageDraw.Draw(pil)
        tags = sorted(card.tags, key=lambda t: t[1])
        x_l = (tags[0][1] + tags[0][3] + 6.0) * px_per_mm if tags else 5 * px_per_mm
        x_r = (tags[-1][1] - 6.0) * px_per_mm if len(tags) > 1 else w - 5 * px_per_mm
        font = _font(px_per_mm, 4.0)
        lines = _wrap(d, title, font, max(x_r - x_l, 1.0))
        lh = d.textbbox((0, 0), "Ag", font=font)[3] * 1.2
        top = (tags[0][2] + tags[0][3] / 2) * px_per_mm - lh * len(lines) / 2 if tags else 5 * px_per_mm
        for k, ln in enumerate(lines):
            tw = d.textlength(ln, font=font)
            d.text(((x_l + x_r - tw) / 2, top + k * lh), ln, fill=0, font=font)
        img = np.asarray(pil).copy()
    return img


def zone_card_layout(cards: Sequence[TagCard], dictionary: str = "4X4_100", dpi: int = 300,
                     paper: str | tuple[float, float] = "a4", player_names: Mapping[str, str] | None = None
                     ) -> SheetLayout:
    """Printable token-zone cards (``vision.calibration.default_zone_cards``): one card per player, cut
    out and laid on the mat where that player's hazard tokens go.  The camera finds each card by its two
    tags at calibration (``zones_from_cards``), so the zone on the table is the card's frame."""
    if dpi < 100 or dpi > 1200:
        raise ValueError(f"dpi {dpi} is out of range; use 150..600 (300 is typical)")
    from PIL import Image

    page_mm = paper_mm(paper)
    pg = _Pager(dictionary, dpi, page_mm, "Pitboard token-zone cards", margin_mm=9.0)
    px = pg.px
    how = ("Cut out each card, lay it flat on the mat where that player keeps hazard tokens (clear of the "
           "corner tags, any turn) and run `pitboard calibrate` with the cards there; tokens are then counted "
           "inside the black frame.")
    for card in cards:
        name = (player_names or {}).get(card.name, card.name)
        ids = ", ".join(str(i) for i in card.ids())
        title = f"{name}: hazard tokens inside the frame"
        pic = card_image(card, px, dictionary, title)
        label = f"card {card.name} (tags {ids}; {card.size_mm[0]:g} x {card.size_mm[1]:g} mm). {how}"
        lines = _wrap(pg.draw, label, pg.small, pic.shape[1])
        lh = pg.line_h(pg.small)
        cell_w = max([pic.shape[1]] + [pg.draw.textlength(ln, font=pg.small) for ln in lines])
        x, y = pg.place(cell_w, pic.shape[0] + 1.0 * px + lh * len(lines), 4.0 * px)
        pg.page.paste(Image.fromarray(pic), (int(round(x)), int(round(y))))
        x1, y1 = x + pic.shape[1], y + pic.shape[0]
        pg.items.append(PlacedItem(len(pg.pages) - 1, "card", (x, y, x1, y1)))
        for tid, tx, ty, s in card.tags:
            pg.items.append(PlacedItem(len(pg.pages) - 1, "tag", (x + tx * px, y + ty * px, x + (tx + s) * px,
                                                                  y + (ty + s) * px), int(tid)))
        pg.draw.rectangle([x, y, x1, y1], outline=150, width=max(1, int(0.15 * px)))
        for k, ln in enumerate(lines):
            pg.text((x, y1 + 1.0 * px + k * lh), ln, pg.small, "label")
        pg.newline(4.0 * px)
    return SheetLayout(pg.pages, pg.items, dpi, page_mm)
