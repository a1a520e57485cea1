"""Test data for ``deploy/pi-emulated``: make it once, then read it on each machine and compare.

``make OUT [REAL]`` renders synthetic table frames (cars, templates, tokens, dice) and dice-tray crops from
                 fixed seeds into ``OUT/table/*.png`` and ``OUT/dice/*.png`` (run on the PC); with ``REAL``
                 (a folder like ``../shared/data/dice-real``) it adds 24 of its real photos, from the dev
                 split only (never the held-out fold), so the networks' arm64 kernels read real dice too.
``summary FILE`` reduces the JSON lines of ``pitboard dice read --json`` / ``vision read --json`` to
                 what must be equal on every machine (dice values, template names/hands/cars/edges, car
                 ids, token counts), dropping timings and sub-pixel positions; prints one JSON line.

Not part of the installed package: it imports ``vision.synth`` from the repository checkout.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any


#: How many real photos ``make`` adds to the dice images: evenly spaced over the dev split's sorted names.
REAL_PHOTOS = 24


def real_photos(real: Path, count: int = REAL_PHOTOS) -> list[Path]:
    """``count`` photos of ``real/images`` from the dev split (fold 0 is held out: never read here)."""
    from vision.dice.scoring import is_held_out

    dev = sorted(p for p in (real / "images").iterdir()
                 if p.suffix.lower() in {".jpg", ".jpeg", ".png"} and not is_held_out(p.name))
    if len(dev) <= count:
        return dev
    return [dev[round(k * (len(dev) - 1) / (count - 1))] for k in range(count)]


def make(out: Path, real: Path | None = None) -> int:
    import cv2
    import numpy as np

    from vision.synth import CarSpec, DieSpec, SceneSpec, TemplateSpec, render_scene
    from vision.synth.dice_frames import write_folder

    (out / "table").mkdir(parents=True, exist_ok=True)
    scenes = [
        SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)]),  # the calibration frame
        SceneSpec(cars=[CarSpec("car2", 11, 300.0, 240.0, 180.0)],
                  templates=[TemplateSpec("hairpin", "left", attach_to="car2")], tokens={"p2": 2}),
        SceneSpec(cars=[CarSpec("car1", 10, 250.0, 200.0, 90.0), CarSpec("car2", 11, 520.0, 260.0, 0.0)],
                  tokens={"p1": 3, "p2": 1}, dice=[DieSpec("d6", 4), DieSpec("d6", 2)]),
        SceneSpec(cars=[CarSpec("car1", 10, 400.0, 220.0, 45.0)],
                  templates=[TemplateSpec("gentle", "right", attach_to="car1")], tokens={"p1": 5}),
    ]
    for k, spec in enumerate(scenes):
        img, _truth = render_scene(spec, np.random.default_rng(100 + k))
        cv2.imwrite(str(out / "table" / f"table_{k}.png"), img)
    dice = write_folder(out / "dice", frames=12, seed=4242)
    photos = real_photos(real) if real is not None and (real / "images").is_dir() else []
    for photo in photos:
        shutil.copyfile(photo, out / "dice" / "images" / f"real_{photo.name}")
    print(f"{len(scenes)} table frames, 12 dice trays ({dice} dice), {len(photos)} real dev photos -> {out}",
          file=sys.stderr)
    return 0


def _summary(obj: dict[str, Any]) -> dict[str, Any]:
    if "dice" in obj and "cars" not in obj:  # dice read
        dice = obj.get("dice") or []
        return {"image": Path(str(obj.get("image", ""))).name,
                "dice": sorted(str(d.get("value", d.get("face"))) for d in dice if isinstance(d, dict)),
                **({"error": obj["error"]} if "error" in obj else {})}
    keep: dict[str, Any] = {"image": Path(str(obj.get("image", ""))).name}
    keep["cars"] = sorted(str(c.get("id")) for c in obj.get("cars") or [])
    keep["templates"] = sorted(
        "/".join(str(t.get(k)) for k in ("name", "hand", "attached_to", "edge")) for t in obj.get("templates") or [])
    keep["tokens"] = obj.get("tokens")
    for k in ("dice", "error"):
        if k in obj:
            keep[k] = obj[k] if k == "error" else sorted(str(d.get("value", d)) if isinstance(d, dict) else str(d)
                                                         for d in obj[k] or [])
    return keep


def summary(path: Path) -> int:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(_summary(json.loads(line)))
    print(json.dumps(rows, sort_keys=True))
    return 0


def main(argv: list[str]) -> int:
    if len(argv) in (2, 3) and argv[0] == "make":
        return make(Path(argv[1]), Path(argv[2]) if len(argv) == 3 else None)
    if len(argv) == 2 and argv[0] == "summary":
        return summary(Path(argv[1]))
    print("usage: pi_emulated_data.py make OUT [REAL] | summary FILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
