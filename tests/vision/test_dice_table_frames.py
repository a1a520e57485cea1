"""The dice reader on whole table frames, the way the demo and the device use it: the camera's view of a
game table (rendered by ``vision.synth``), calibrated from the corner tags, the dice tray cut out, and
``read_dice`` called on that crop -- for standard d6 and for skid dice taught from a few other frames.

The synth is used by this test only; the reader must not import it (checked below).  Frames are random
(fixed seeds): 1280x720 and 1920x1080, camera up to 10 degrees off vertical, one to five dice of any colour
the synth draws, anywhere in the tray at any rotation.  A frame counts as read when the readings match
the dice exactly (every die found with its value, nothing else reported).  No reading may ever carry a
wrong value: a die read with another value, or a value reported where there is no die.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import calibrate_from_markers
from vision.dice import FaceLibrary, read_dice
from vision.markers import detect_tags
from vision.synth.dice_frames import SIZES, tray_frame
from vision.synth.scene import SKID_FACES, DieSpec, SceneSpec
from vision.table import default_config


def _tray_by_tags(img: np.ndarray, spec: SceneSpec) -> tuple[int, int, int, int]:
    """The tray's box the way the device finds it: calibrated from the corner tags."""
    cfg = default_config()
    tags = detect_tags(img, cfg.dictionary)
    cal = calibrate_from_markers({t.id: t.corners_px for t in tags}, cfg.corner_layout(spec.mat_mm), spec.image_size)
    pts = cal.to_px(np.array(cal.zone("tray").polygon, float))
    x0, y0 = np.maximum(pts.min(axis=0).astype(int), 0)
    x1, y1 = pts.max(axis=0).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


def _tray_frame(rng: np.random.Generator, size: tuple[int, int], dice: list[DieSpec]):
    """A rendered table frame, calibrated from its corner tags; the tray crop and the dice as (face, centre
    in crop pixels, side in crop pixels)."""
    return tray_frame(rng, size, dice, _tray_by_tags)
HELD_OUT_FRAMES = 16  # per kind (d6, skid), half at each size


def _score(readings, placed) -> tuple[bool, list[str]]:
    """(frame read exactly, list of wrong values)."""
    wrong: list[str] = []
    used: set[int] = set()
    exact = len(readings) == len(placed)
    for face, (x, y), side in placed:
        near = [i for i, r in enumerate(readings) if i not in used
                and math.hypot(r.center[0] - x, r.center[1] - y) < 0.5 * side]
        if not near:
            exact = False
            continue
        i = min(near, key=lambda k: math.hypot(readings[k].center[0] - x, readings[k].center[1] - y))
        used.add(i)
        v = readings[i].value
        if v is None:
            exact = False
        elif v != face:
            wrong.append(f"{face} read as {v}")
            exact = False
    for i, r in enumerate(readings):
        if i not in used and r.value is not None:
            wrong.append(f"a {r.value} where there is no die, at {r.center}")
    return exact, wrong


def _random_dice(rng: np.random.Generator, kind: str) -> list[DieSpec]:
    n = int(rng.integers(1, 6))
    if kind == "d6":
        return [DieSpec("d6", int(v)) for v in rng.integers(1, 7, n)]
    return [DieSpec("skid", str(rng.choice(SKID_FACES))) for _ in range(n)]


@pytest.fixture(scope="module")
def skid_library() -> FaceLibrary:
    """Skid faces taught the way the owner does it: a few frames, each with dice all showing one face."""
    rng = np.random.default_rng(2024)
    lib = FaceLibrary()
    for face in SKID_FACES:
        for size in SIZES:
            crop, placed = _tray_frame(rng, size, [DieSpec("skid", face) for _ in range(3)])
            assert lib.teach("skid", face, crop) == len(placed)
    return lib


@pytest.mark.parametrize("kind", ["d6", "skid"])
def test_dice_in_the_tray_of_table_frames(kind: str, skid_library: FaceLibrary) -> None:
    rng = np.random.default_rng(31 if kind == "d6" else 57)
    exact = 0
    wrong: list[str] = []
    failed: list[str] = []
    for k in range(HELD_OUT_FRAMES):
        size = SIZES[k % 2]
        crop, placed = _tray_frame(rng, size, _random_dice(rng, kind))
        readings = read_dice(crop) if kind == "d6" else read_dice(crop, die="skid", library=skid_library)
        ok, bad = _score(readings, placed)
        exact += ok
        wrong += [f"frame {k} ({size[0]}x{size[1]}): {b}" for b in bad]
        if not ok:
            failed.append(f"frame {k}: dice {[p[0] for p in placed]}, read {[r.value for r in readings]}")
    assert not wrong, wrong
    assert exact >= 0.95 * HELD_OUT_FRAMES, failed


def test_the_reader_does_not_use_the_synth() -> None:
    root = Path(__file__).resolve().parents[2] / "vision" / "dice"
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.startswith("vision.synth") for n in names), (path.name, names)
