"""The ray-traced evaluation frames (tools/dice_training/raytrace.py, outside the installed packages): the same
seed writes the same bytes, frame k alone is frame k of a run, and the labels are what the bench reads."""

from __future__ import annotations

import csv
import json
from pathlib import Path

SEED = 3
SMALL = ["--seed", str(SEED), "--size", "640x480", "--quiet"]  # small frames: the test takes a few seconds


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_seed_renders_the_same_labelled_frames_twice(tmp_path: Path) -> None:
    from device.cli_dice import load_labels
    from tools.dice_training.raytrace import main

    a, b, alone = tmp_path / "a", tmp_path / "b", tmp_path / "alone"
    assert main(["--out", str(a), "--frames", "2", *SMALL]) == 0
    assert main(["--out", str(b), "--frames", "2", *SMALL]) == 0
    files = _files(a)
    assert files == _files(b)
    names = [f"rt{SEED}_0000.jpg", f"rt{SEED}_0001.jpg"]
    assert sorted(files) == ["images/" + n for n in names] + ["labels.csv", "metadata.json"]
    # frame 1 drawn on its own is frame 1 of the run (its generator is (seed, 1)'s alone)
    assert main(["--out", str(alone), "--start", "1", "--frames", "1", *SMALL]) == 0
    assert (alone / "images" / names[1]).read_bytes() == files["images/" + names[1]]

    with (a / "labels.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["image", "x_min", "y_min", "x_max", "y_max", "value"]
    rows = rows[1:]
    assert rows, "two frames without a die: pick another SEED"
    meta = json.loads((a / "metadata.json").read_text())
    assert meta["seed"] == SEED and [f["image"] for f in meta["frames"]] == names
    dice = [(f["image"], d) for f in meta["frames"] for d in f["dice"]]
    assert len(dice) == len(rows)  # one metadata entry per label row, in the same order
    for row, (image, d) in zip(rows, dice):
        name, x0, y0, x1, y1, value = row[0], *map(int, row[1:])
        assert (name, [x0, y0, x1, y1], value) == (image, d["box"], d["value"])
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        assert 0 <= value <= 6
        assert value == (d["top_value"] if d["kind"] in ("flat", "near_rim") else 0)
    for f in meta["frames"]:
        assert (f["width"], f["height"]) == (640, 480)
    # the bench's own loader reads the folder as written
    labels = load_labels(a)
    assert sum(len(v) for v in labels.values()) == len(rows)
