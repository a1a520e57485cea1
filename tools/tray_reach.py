"""How often the loop's "a hand or shadow over the tray?" hold (``device.camera_input.reaching_in``) holds a roll
with a hand over the tray, and how often it holds one for nothing (the light changed, the camera nudged, JPEG,
a dim noisy room) — on the development photos of ``../shared/data/dice-real`` (the held-out split,
``crc32(name) % 5 == 0``, is never opened), each read by the dice reader as the loop reads it::

    python -m tools.tray_reach --half report --json

The tray seen bare is the photo with its labelled dice painted out (``cv2.inpaint``); each condition is drawn
over the photo (a hand reaching in from the nearest edge with a fingertip over half a die, a hand beside the
dice, light, a nudge, ...).  The photos are split in two halves: ``choose`` (the thresholds were set on it)
and ``report`` (the README's figures).  Prints one JSON object: per condition, the photos and how many were
held.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dice-real"
Box = tuple[int, int, int, int]
Condition = Callable[[np.ndarray, list[Box], np.random.Generator], np.ndarray]


def held_out(name: str) -> bool:
    return zlib.crc32(name.encode()) % 5 == 0


def dev_photos(data: Path, per_set: int = 60) -> list[tuple[str, list[Box]]]:
    """``per_set`` photos of each collection (nell_, matteo_), drawn with a fixed seed, none held out."""
    boxes: dict[str, list[Box]] = {}
    with (data / "labels.csv").open(newline="", encoding="utf-8-sig") as fh:
        for row in csv.DictReader(fh):
            name = row["image"].strip()
            if not held_out(name):
                boxes.setdefault(name, []).append(
                    (int(row["x_min"]), int(row["y_min"]), int(row["x_max"]), int(row["y_max"])))
    rng = np.random.default_rng(0)
    chosen: list[str] = []
    for prefix in ("nell_", "matteo_"):
        names = sorted(n for n in boxes if n.startswith(prefix))
        chosen += [names[i] for i in sorted(rng.choice(len(names), min(per_set, len(names)), replace=False))]
    return [(n, boxes[n]) for n in chosen]


def side_of(boxes: list[Box]) -> float:
    return float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes]))


def bare_of(img: np.ndarray, boxes: list[Box]) -> np.ndarray:
    """The photo with its dice (and a fifth of a die around each) painted out: the tray seen bare."""
    mask = np.zeros(img.shape[:2], np.uint8)
    for x0, y0, x1, y1 in boxes:
        d = int(0.2 * max(x1 - x0, y1 - y0))
        cv2.rectangle(mask, (x0 - d, y0 - d), (x1 + d, y1 + d), 255, -1)
    return cv2.inpaint(img, mask, 5, cv2.INPAINT_TELEA)


SKIN = ((150, 175, 225), (125, 150, 205), (95, 125, 180), (70, 95, 140), (50, 65, 95))  # BGR, light to dark


def _hand_mask(shape: tuple[int, int], tip: tuple[float, float], direction: float, side: float,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A hand (four fingers, a palm, a thumb, a forearm running off the picture) whose index fingertip is at
    ``tip``, fingers along ``direction``; a finger is about a die wide.  The hand's mask and its nails'."""
    h, w = shape
    mask = np.zeros((h, w), np.float32)
    nails = np.zeros((h, w), np.float32)
    ux, uy = math.cos(direction), math.sin(direction)
    px, py = -uy, ux
    fw = 1.05 * side
    hand = 1 if rng.random() < 0.5 else -1
    base = (tip[0] - ux * 4.2 * side, tip[1] - uy * 4.2 * side)
    for k, (length, off) in enumerate(((4.2, 0.0), (4.6, 1.15), (4.3, 2.3), (3.4, 3.35))):
        bx, by = base[0] + hand * px * off * side, base[1] + hand * py * off * side
        a = direction + hand * float(rng.uniform(-0.08, 0.08)) * k
        ex, ey = bx + math.cos(a) * (length * side - fw / 2), by + math.sin(a) * (length * side - fw / 2)
        cv2.line(mask, (int(bx), int(by)), (int(ex), int(ey)), 1.0, max(1, int(fw)), cv2.LINE_AA)
        cv2.circle(mask, (int(ex), int(ey)), int(fw / 2), 1.0, -1, cv2.LINE_AA)
        nx, ny = ex - math.cos(a) * 0.25 * fw, ey - math.sin(a) * 0.25 * fw
        cv2.ellipse(nails, (int(nx), int(ny)), (int(0.42 * fw), int(0.32 * fw)), math.degrees(a), 0, 360, 1.0, -1)
    pcx, pcy = base[0] + hand * px * 1.7 * side - ux * 2.6 * side, base[1] + hand * py * 1.7 * side - uy * 2.6 * side
    cv2.ellipse(mask, (int(pcx), int(pcy)), (int(3.0 * side), int(2.6 * side)), math.degrees(direction), 0, 360,
                1.0, -1, cv2.LINE_AA)
    cv2.line(mask, (int(pcx), int(pcy)), (int(pcx - ux * 30 * side), int(pcy - uy * 30 * side)), 1.0,
             int(4.2 * side), cv2.LINE_AA)
    ta = direction - hand * 0.9
    tx, ty = pcx - hand * px * 2.2 * side, pcy - hand * py * 2.2 * side
    cv2.line(mask, (int(tx), int(ty)), (int(tx + math.cos(ta) * 3 * side), int(ty + math.sin(ta) * 3 * side)), 1.0,
             int(1.2 * side), cv2.LINE_AA)
    return mask, nails * mask


def _paint_hand(img: np.ndarray, mask: np.ndarray, nails: np.ndarray, side: float,
                rng: np.random.Generator) -> np.ndarray:
    """Skin over ``mask`` (a colour of :data:`SKIN`, rounder-lit, out of focus: nearer the lens), nails, and the
    hand's soft shadow on the table beside it."""
    f = img.astype(np.float32)
    a = float(rng.uniform(0, 2 * math.pi))
    shadow = np.roll(mask, (int(math.sin(a) * 0.8 * side), int(math.cos(a) * 0.8 * side)), (0, 1))
    f *= (1 - 0.45 * cv2.GaussianBlur(shadow, (0, 0), 0.6 * side))[..., None]
    skin = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    round_ = np.clip(cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5) / (0.5 * side), 0, 1)
    paint = skin[None, None, :] * (0.72 + 0.28 * round_)[..., None]
    paint = paint * (1 - nails[..., None]) + np.clip(skin * 1.08 + 30, 0, 255) * nails[..., None]
    paint = cv2.GaussianBlur(paint, (0, 0), 1.2) + rng.normal(0, 3, paint.shape).astype(np.float32)
    m = cv2.GaussianBlur(mask, (0, 0), 1.2)[..., None]
    return np.clip(f * (1 - m) + paint * m + 0.5, 0, 255).astype(np.uint8)


def hand_over_die(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
    """A hand from the picture's nearest edge, its index fingertip over half of one die."""
    h, w = img.shape[:2]
    side = side_of(boxes)
    x0, y0, x1, y1 = boxes[int(rng.integers(len(boxes)))]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    came = min({0.0: w - cx, math.pi: cx, math.pi / 2: h - cy, -math.pi / 2: cy}.items(), key=lambda kv: kv[1])[0]
    direction = came + math.pi + float(rng.uniform(-0.5, 0.5))
    mask, nails = _hand_mask((h, w), (cx + math.cos(direction) * 0.05 * side, cy + math.sin(direction) * 0.05 * side),
                             direction, side, rng)
    return _paint_hand(img, mask, nails, side, rng)


def hand_beside(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray | None:
    """A hand over the tray touching no die (None when none fits)."""
    h, w = img.shape[:2]
    side = side_of(boxes)
    dice = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(dice, (x0, y0), (x1, y1), 1, -1)
    dice = cv2.dilate(dice, np.ones((int(0.6 * side) | 1,) * 2, np.uint8))
    for _ in range(300):
        tip = (float(rng.uniform(0.1, 0.9)) * w, float(rng.uniform(0.1, 0.9)) * h)
        mask, nails = _hand_mask((h, w), tip, float(rng.uniform(0, 2 * math.pi)), side, rng)
        if (mask > 0.05)[dice > 0].any() or mask.mean() < 0.08:
            continue
        return _paint_hand(img, mask, nails, side, rng)
    return None


def gain(b: float, g: float, r: float) -> Condition:
    return lambda img, boxes, rng: np.clip(img * np.array([b, g, r], np.float32), 0, 255).astype(np.uint8)


def _falloff(img: np.ndarray, f: np.ndarray) -> np.ndarray:
    return np.clip(img * f[..., None], 0, 255).astype(np.uint8)


def gradient(low: float) -> Condition:
    """The light falling to ``low`` across the picture, in a random direction."""
    def cond(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
        h, w = img.shape[:2]
        a = float(rng.uniform(0, 2 * math.pi))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        t = (xx - w / 2) * math.cos(a) / w + (yy - h / 2) * math.sin(a) / h + 0.5
        return _falloff(img, 1 - (1 - low) * np.clip(t, 0, 1))
    return cond


def vignette(corner: float) -> Condition:
    def cond(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        return _falloff(img, 1 - (1 - corner) * r2 / 2)
    return cond


def shadow_edge(dark: float) -> Condition:
    """A hard shadow's edge (a blur of 1.5 px) through the picture's middle, at a random angle."""
    def cond(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
        h, w = img.shape[:2]
        a = float(rng.uniform(0, 2 * math.pi))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        inside = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a) > 0).astype(np.float32)
        return _falloff(img, 1 - (1 - dark) * cv2.GaussianBlur(inside, (0, 0), 1.5))
    return cond


def nudge(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
    """The camera (or the tray) moved up to 4 px since the tray was seen bare."""
    dx, dy = (int(v) for v in rng.integers(-4, 5, 2))
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def jpeg(quality: int) -> Condition:
    def cond(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else img
    return cond


def dim_noisy(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
    """A dim room: shot noise of a 1,000-electron well and read noise, then JPEG 60."""
    electrons = rng.poisson(img.astype(np.float32) / 255 * 1000).astype(np.float32) + rng.normal(0, 2, img.shape)
    return jpeg(60)(np.clip(electrons / 1000 * 255, 0, 255).astype(np.uint8), boxes, rng)


def chain(*conds: Condition) -> Condition:
    def cond(img: np.ndarray, boxes: list[Box], rng: np.random.Generator) -> np.ndarray:
        for c in conds:
            img = c(img, boxes, rng)
        return img
    return cond


#: name -> (condition, whether a hold is right: True a hand, False nothing in the tray, None either)
CONDITIONS: dict[str, tuple[Callable[..., np.ndarray | None], bool | None]] = {
    "hand over a die": (hand_over_die, True),
    "hand beside the dice": (hand_beside, True),
    "as seen bare": (lambda img, boxes, rng: img, False),
    "warm light": (gain(0.75, 0.95, 1.15), False),
    "strong warm light": (gain(0.6, 0.9, 1.25), False),
    "cool light": (gain(1.15, 1.0, 0.85), False),
    "light falling to 35% across": (gradient(0.35), False),
    "vignette 35%": (vignette(0.35), False),
    "strong warm light and vignette": (chain(gain(0.6, 0.9, 1.25), vignette(0.35)), False),
    "camera nudged up to 4 px": (nudge, False),
    "JPEG 60": (jpeg(60), False),
    "dim noisy room, JPEG 60": (dim_noisy, False),
    "a shadow's edge through the dice": (shadow_edge(0.4), None),
}


def run(half: str, data: Path = DATA, per_set: int = 60) -> dict[str, Any]:
    from device.camera_input import colour_look, reaching_in
    from vision.dice import read_dice

    photos = dev_photos(data, per_set)
    photos = photos[0::2] if half == "choose" else photos[1::2]
    out: dict[str, Any] = {"half": half, "photos": len(photos), "conditions": {}}
    for name, (cond, hold_right) in CONDITIONS.items():
        held = n = 0
        for photo, boxes in photos:
            assert not held_out(photo)
            img = cv2.imread(str(data / "images" / photo), cv2.IMREAD_COLOR)
            rng = np.random.default_rng(zlib.crc32(f"{name}|{photo}".encode()))
            seen = cond(img, boxes, rng)
            if seen is None:
                continue
            readings = read_dice(seen)
            if not readings:
                continue
            n += 1
            dice = [(r.value, float(r.center[0]), float(r.center[1])) for r in readings]
            side = float(np.median([max(r.box[2] - r.box[0], r.box[3] - r.box[1]) for r in readings]))
            if reaching_in(colour_look(seen), colour_look(bare_of(img, boxes)), dice, seen.shape[:2], side) is not None:
                held += 1
        out["conditions"][name] = {"photos": n, "held": held, "hold is right": hold_right}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tray_reach", description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("choose", "report"), default="report")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", action="store_true", help="(the output is JSON either way)")
    args = parser.parse_args(argv)
    if not (args.data / "labels.csv").is_file():
        print(f"no labels.csv in {args.data}: give --data ../shared/data/dice-real", file=sys.stderr)
        return 2
    print(json.dumps(run(args.half, args.data), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
