"""Dice in the tray of rendered table frames: the tray cut out (from the renderer's ground truth, or by a
function the caller gives, e.g. calibration from the corner tags), with where each die went.  Used by the tests of the dice reader, and written out
as a labelled folder (the format of ``../shared/data/dice-real``) to train the learned d6 reader on
dice the way the demo's table shows them::

    python -m vision.synth.dice_frames --out /tmp/dice-frames --frames 300 --seed 777

(the tests use other seeds).  The reader itself never imports this package.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vision.synth.scene import CarSpec, DieSpec, SceneSpec, render_scene

SIZES = ((1280, 720), (1920, 1080))
#: Side of a die on the table, mm (what the synth draws).
DIE_MM = 16.0

#: Where the tray lies in a frame: (image, spec) -> (x0, y0, x1, y1) pixels.  The default takes it from
#: the renderer's own ground truth; the tests pass one that calibrates from the corner tags the way the
#: device does (the synth may not import the readers).
TrayBox = Callable[[np.ndarray, SceneSpec], tuple[int, int, int, int]]


def _tray_from_truth(truth: dict[str, Any]) -> np.ndarray:
    tray = next(z for z in truth["zones"] if z["kind"] == "dice_tray")
    hm = np.array(truth["mm_to_px"])
    p = np.c_[np.array(tray["polygon"], float), np.ones(len(tray["polygon"]))] @ hm.T
    xy: np.ndarray = p[:, :2] / p[:, 2:]
    return xy


def tray_frame(rng: np.random.Generator, size: tuple[int, int], dice: list[DieSpec],
               tray_box: TrayBox | None = None) -> tuple[np.ndarray, list[tuple[int | str, tuple[float, float], float]]]:
    """A rendered table frame cut to its dice tray; returns the crop and the dice as (face, centre in crop
    pixels, side in crop pixels)."""
    spec = SceneSpec(image_size=size, cars=[CarSpec("a", 10, 150.0, 170.0, 0.0)], dice=dice,
                     tilt_deg=float(rng.uniform(0.0, 10.0)), tilt_azimuth_deg=float(rng.uniform(0.0, 360.0)))
    img, truth = render_scene(spec, rng)
    if tray_box is not None:
        x0, y0, x1, y1 = tray_box(img, spec)
    else:
        pts = _tray_from_truth(truth)
        x0, y0 = np.maximum(pts.min(axis=0).astype(int), 0)
        x1, y1 = pts.max(axis=0).astype(int)
    return img[y0:y1, x0:x1], placed_dice(truth, (x0, y0))


def placed_dice(truth: dict[str, Any], origin: tuple[float, float] = (0.0, 0.0)) -> list[tuple[Any, tuple[float, float], float]]:
    """Each die of a rendered scene's ``truth``: (face, centre, side), in pixels of a crop whose top-left corner
    is ``origin`` in the picture."""
    hm = np.array(truth["mm_to_px"])
    placed = []
    for d in truth["dice"]:
        p = hm @ np.array([*d["centre_mm"], 1.0])
        q = hm @ np.array([d["centre_mm"][0] + DIE_MM, d["centre_mm"][1], 1.0])
        c = p[:2] / p[2]
        side = float(np.linalg.norm(q[:2] / q[2] - c))
        placed.append((d["face"], (float(c[0] - origin[0]), float(c[1] - origin[1])), side))
    return placed


def write_folder(out: Path, frames: int, seed: int) -> int:
    """``frames`` tray crops with 1-5 d6 each, as ``out/images/*.png`` + ``out/labels.csv``."""
    import cv2

    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    rows = ["image,x_min,y_min,x_max,y_max,value"]
    for k in range(frames):
        dice = [DieSpec("d6", int(v)) for v in rng.integers(1, 7, int(rng.integers(1, 6)))]
        crop, placed = tray_frame(rng, SIZES[k % 2], dice)
        name = f"synth_{seed}_{k:04d}.png"
        cv2.imwrite(str(out / "images" / name), crop)
        for face, (cx, cy), side in placed:
            r = side / 2
            rows.append(f"{name},{int(cx - r)},{int(cy - r)},{int(cx + r)},{int(cy + r)},{face}")
    (out / "labels.csv").write_text("\n".join(rows) + "\n")
    return len(rows) - 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--seed", type=int, default=777)
    a = ap.parse_args(argv)
    n = write_folder(a.out, a.frames, a.seed)
    print(f"{a.frames} frames, {n} dice -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
