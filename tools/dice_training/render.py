"""Synthetic dice for tests: pip faces and icon faces of our own design, placed on a table at any angle.

The icons are deliberately simple line drawings (what a printed skid die looks like from 40 cm), and
they are *ours*: this module shares nothing with ``vision/synth`` (the table renderer), so a change in one
cannot make the other's tests pass by accident.  All randomness comes from the ``numpy.random.Generator``
passed in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Skid dice faces, by the rules' names.
SKID_FACES: tuple[str, ...] = ("SHIFT", "HAZARD", "SLIDE", "SPIN")
#: Thunder Road FX dice faces.
FX_FACES: tuple[str, ...] = ("Road", "Stunt", "Shooting", "bump", "Direction", "Fire")

#: Where the pips of each face lie, in steps of the pip spacing from the face centre.
PIP_LAYOUT: dict[int, list[tuple[int, int]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _draw_icon(img: np.ndarray, face: str, ink: tuple[int, int, int], s: int) -> None:
    """Draw ``face``'s icon in the middle of an s x s face image.  Every icon is asymmetric under
    90-degree turns so that rotation invariance is actually exercised."""
    c = s // 2
    u = s / 10.0
    t = max(1, int(round(u * 0.8)))

    def P(x: float, y: float) -> tuple[int, int]:
        return int(round(c + x * u)), int(round(c + y * u))

    if face in ("SHIFT", "Road"):  # gear-stick: H gate with a knob top-left / a road with a dash
        cv2.line(img, P(-3, -3), P(-3, 3), ink, t)
        cv2.line(img, P(3, -3), P(3, 3), ink, t)
        cv2.line(img, P(-3, 0), P(3, 0), ink, t)
        cv2.circle(img, P(-3, -3), int(1.3 * u), ink, -1)
        if face == "Road":
            cv2.rectangle(img, P(0.5, 1.5), P(1.5, 3.5), ink, -1)
    elif face in ("HAZARD", "Fire"):  # warning triangle with a bar / a flame
        pts = np.array([P(0, -3.5), P(3.5, 3), P(-3.5, 3)], np.int32)
        if face == "HAZARD":
            cv2.polylines(img, [pts], True, ink, t)
            cv2.line(img, P(0, -1), P(0, 1), ink, t)
            cv2.circle(img, P(0, 2), max(1, int(0.6 * u)), ink, -1)
        else:
            cv2.fillPoly(img, [pts], ink)
            cv2.circle(img, P(1.5, -2.5), int(1.2 * u), ink, -1)
    elif face in ("SLIDE", "Stunt"):  # wavy skid lines / a ramp
        if face == "SLIDE":
            for k in (-2.5, 0, 2.5):
                xs = np.linspace(-3.5, 3.5, 24)
                pts = np.array([P(x, k + 0.8 * math.sin(x * 1.6)) for x in xs], np.int32)
                cv2.polylines(img, [pts], False, ink, t)
            cv2.circle(img, P(3.2, -3.5), max(1, int(0.7 * u)), ink, -1)
        else:
            pts = np.array([P(-3.5, 3), P(3.5, 3), P(3.5, -2)], np.int32)
            cv2.fillPoly(img, [pts], ink)
    elif face in ("SPIN", "Direction"):  # circular arrow / a straight arrow
        if face == "SPIN":
            cv2.ellipse(img, P(0, 0), (int(3 * u), int(3 * u)), 0, 30, 320, ink, t)
            head = np.array([P(2.6, -1.5), P(4.2, -3.2), P(1.0, -3.6)], np.int32)
            cv2.fillPoly(img, [head], ink)
        else:
            cv2.line(img, P(-3, 2), P(2, -2), ink, t + 1)
            cv2.fillPoly(img, [np.array([P(3.5, -3.5), P(0.5, -3), P(3, -0.5)], np.int32)], ink)
    elif face == "Shooting":  # crosshair, off-centre dot
        cv2.circle(img, P(0, 0), int(3 * u), ink, t)
        cv2.line(img, P(-4, 0), P(4, 0), ink, t)
        cv2.line(img, P(0, -4), P(0, 4), ink, t)
        cv2.circle(img, P(1.5, -1.5), int(0.9 * u), ink, -1)
    elif face == "bump":  # two offset blocks
        cv2.rectangle(img, P(-3.5, -1), P(-0.5, 3), ink, -1)
        cv2.rectangle(img, P(0.5, -3), P(3.5, 1), ink, -1)
    else:
        raise ValueError(f"no icon drawn for face {face!r}; known: {SKID_FACES + FX_FACES}")


def face_image(face: int | str, side: int = 64, body: tuple[int, int, int] = (235, 235, 235),
               ink: tuple[int, int, int] = (20, 20, 20)) -> np.ndarray:
    """One die face seen square-on: pips for 1..6, an icon for a face name.  BGR uint8, side x side."""
    img = np.zeros((side, side, 3), np.uint8)
    img[:] = body
    if isinstance(face, int):
        if face not in PIP_LAYOUT:
            raise ValueError(f"a d6 face is 1..6, not {face}")
        s = side * 0.27
        rr = max(2, int(round(side * 0.085)))
        for gx, gy in PIP_LAYOUT[face]:
            cv2.circle(img, (int(round(side / 2 + gx * s)), int(round(side / 2 + gy * s))), rr, ink, -1,
                       cv2.LINE_AA)
    else:
        _draw_icon(img, face, ink, side)
    return img


@dataclass(frozen=True)
class PlacedDie:
    face: int | str
    center: tuple[float, float]
    angle: float
    side: int


def render_scene(faces: Sequence[int | str], rng: np.random.Generator, *, size: tuple[int, int] = (480, 640),
                 side: int = 56, table: tuple[int, int, int] = (60, 110, 40),
                 body: tuple[int, int, int] = (235, 235, 235), ink: tuple[int, int, int] = (20, 20, 20),
                 noise: float = 3.0) -> tuple[np.ndarray, list[PlacedDie]]:
    """A table (``size`` = rows, cols) with the given faces up, each die at a random position (not
    touching) and random rotation.  Returns the BGR image and where each die went."""
    h, w = size
    img = np.zeros((h, w, 3), np.float32)
    img[:] = table
    placed: list[PlacedDie] = []
    margin = side
    for face in faces:
        for _ in range(200):
            cx = float(rng.uniform(margin, w - margin))
            cy = float(rng.uniform(margin, h - margin))
            if all(math.hypot(cx - p.center[0], cy - p.center[1]) > 1.6 * side for p in placed):
                break
        else:
            raise ValueError("too many dice for the table size")
        angle = float(rng.uniform(0, 360))
        tile = face_image(face, side, body, ink).astype(np.float32)
        # rounded-corner mask, a soft drop shadow, then rotate into place
        mask = np.zeros((side, side), np.float32)
        rad = max(2, side // 8)
        cv2.rectangle(mask, (rad, 0), (side - 1 - rad, side - 1), 1.0, -1)
        cv2.rectangle(mask, (0, rad), (side - 1, side - 1 - rad), 1.0, -1)
        for x, y in ((rad, rad), (side - 1 - rad, rad), (rad, side - 1 - rad), (side - 1 - rad, side - 1 - rad)):
            cv2.circle(mask, (x, y), rad, 1.0, -1)
        m = cv2.getRotationMatrix2D((side / 2, side / 2), angle, 1.0)
        m[0, 2] += cx - side / 2
        m[1, 2] += cy - side / 2
        warped = cv2.warpAffine(tile, m, (w, h), flags=cv2.INTER_LINEAR)
        wmask = cv2.warpAffine(mask, m, (w, h), flags=cv2.INTER_LINEAR)[..., None]
        shadow = cv2.GaussianBlur(np.roll(np.roll(wmask[..., 0], 3, 0), 3, 1), (0, 0), 3)[..., None]
        img = img * (1 - 0.35 * shadow * (1 - wmask))
        img = img * (1 - wmask) + warped * wmask
        placed.append(PlacedDie(face, (cx, cy), angle, side))
    if noise > 0:
        img += rng.normal(0, noise, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8), placed
