"""ArUco tags on the table: detection, tag poses in millimetres, and the printable tag sheet.

One dictionary serves corners, cars and templates, so a single detector pass per frame finds all of
them; which id means what is configuration (``TableConfig``), never code.  The 4x4 dictionaries are the
default because their big cells survive the ~1.5 px/mm a 720p camera gives over a Gaslands mat.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.calibration import Calibration

_DETECTORS: dict[str, object] = {}


def aruco_dictionary(name: str):
    """OpenCV dictionary from a name such as ``"4X4_100"`` (``DICT_`` prefix optional)."""
    import cv2

    key = name.upper().removeprefix("DICT_")
    const = getattr(cv2.aruco, f"DICT_{key}", None)
    if const is None:
        raise ValueError(f"unknown ArUco dictionary {name!r}; use one like 4X4_100, 5X5_100, 6X6_250")
    return cv2.aruco.getPredefinedDictionary(const)


def _detector(name: str):
    import cv2

    det = _DETECTORS.get(name)
    if det is None:
        params = cv2.aruco.DetectorParameters()
        # Sub-pixel corners: template heading comes from a 25 mm tag, so corner precision is heading
        # precision.  Two threshold windows (3 and 23 px) instead of OpenCV's three cut a third of
        # the time and lost no tag on our synthetic frames; smaller maxima lost tags at the edges.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 3
        params.adaptiveThreshWinSizeStep = 20
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
    return [TagSighting(int(i), np.asarray(c, dtype=np.float64).reshape(4, 2)) for c, i in zip(corners, ids.ravel())]


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
# The printable sheet


@dataclass(frozen=True)
class SheetEntry:
    """One tag to print: id, printed side length (mm, the black square) and a label."""

    id: int
    size_mm: float
    label: str


def marker_sheet_pages(entries: Sequence[SheetEntry], dictionary: str = "4X4_100", dpi: int = 300,
                       page_mm: tuple[float, float] = (210.0, 297.0)):
    """Render the tags onto A4 pages (Pillow images at ``dpi``) so they print at true size.

    Each tag has a white quiet zone of one cell around it and, underneath, its id, label and size in
    mm.  The page header states the DPI and asks for printing at 100 % scale, with a 100 mm ruler to
    check it."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    if dpi < 100 or dpi > 1200:
        raise ValueError(f"dpi {dpi} is out of range; use 150..600 (300 is typical)")
    px = dpi / 25.4
    dic = aruco_dictionary(dictionary)
    pw, ph = int(round(page_mm[0] * px)), int(round(page_mm[1] * px))
    try:
        font = ImageFont.load_default(size=max(10, int(3.2 * px)))
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    margin = 12 * px
    pages = []
    page = draw = None
    x = y = row_h = 0.0

    def new_page():
        nonlocal page, draw, x, y, row_h
        page = Image.new("L", (pw, ph), 255)
        draw = ImageDraw.Draw(page)
        draw.text((margin, margin * 0.5), f"Pitboard tags - ArUco {dictionary} - {dpi} dpi - print at 100% "
                  "(no 'fit to page'); the ruler must measure 100 mm", fill=0, font=font)
        ry = margin * 0.5 + 5 * px
        draw.line([(margin, ry), (margin + 100 * px, ry)], fill=0, width=max(1, int(0.3 * px)))
        for k in range(11):
            xx = margin + k * 10 * px
            draw.line([(xx, ry - 1.5 * px), (xx, ry + 1.5 * px)], fill=0, width=max(1, int(0.3 * px)))
        pages.append(page)
        x, y, row_h = margin, margin + 10 * px, 0.0

    new_page()
    for e in entries:
        side = e.size_mm * px
        bits = dic.markerSize + 2
        quiet = side / bits
        cell_w = side + 2 * quiet
        cell_h = cell_w + 9 * px
        if x + cell_w > pw - margin:
            x, y = margin, y + row_h
            row_h = 0.0
        if y + cell_h > ph - margin:
            new_page()
        img = cv2.aruco.generateImageMarker(dic, int(e.id), int(round(side)), borderBits=1)
        page.paste(Image.fromarray(img), (int(round(x + quiet)), int(round(y + quiet))))
        # thin cut guide around the quiet zone
        draw.rectangle([x, y, x + cell_w, y + cell_w], outline=180)
        draw.text((x + quiet, y + cell_w + 0.8 * px), f"id {e.id}  {e.label}", fill=0, font=font)
        draw.text((x + quiet, y + cell_w + 4.6 * px), f"{e.size_mm:g} mm", fill=0, font=font)
        x += cell_w + 4 * px
        row_h = max(row_h, cell_h + 3 * px)
    return pages
