"""Train the face verifier (``verifier.onnx``, see :mod:`vision.dice.verifier`).

Two steps, because torch is only needed for the second and must never be needed at run time:

1. ``python -m vision.dice.train_verifier crops --data ../shared/data/dice-real --out /tmp/crops.npz``
   (project venv).  Runs the classical reader on the **dev split only** (``vision.dice.scoring.is_held_out``
   images are skipped) and cuts a crop around every face it proposes (including the weak proposals and
   the blob proposals that only the verifier may accept): the matched label's value, or class
   0 for a proposal that matches no label.  Adds crops at the labelled boxes of the whole-die collection
   (so faces the reader missed are seen too) and synthetic renders of pip faces in many colours.
   Every crop is repeated at random rotations, zooms and shifts.
2. ``python -m vision.dice.train_verifier train --crops /tmp/crops.npz --out vision/dice/verifier.onnx``
   (a venv with torch, e.g. ``pip install torch==2.13.0 onnx``).  A 4-layer CNN, a few epochs on CPU.

The split, the seeds and the recipe are fixed so the run can be repeated.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

SEED = 1234


def _labels(data: Path) -> dict[str, list[tuple[tuple[int, int, int, int], int]]]:
    out: dict[str, list] = {}
    with (data / "labels.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            box = (int(row["x_min"]), int(row["y_min"]), int(row["x_max"]), int(row["y_max"]))
            out.setdefault(row["image"], []).append((box, int(row["value"])))
    return out


def make_crops(data: Path, out: Path, reps: int = 6) -> None:
    import cv2

    from vision.dice import _blob_proposals
    from vision.dice import verifier as V
    from vision.dice.pips import read_faces
    from vision.dice.render import render_scene
    from vision.dice.scoring import is_held_out

    rng = np.random.default_rng(SEED)
    xs: list[np.ndarray] = []
    ys: list[int] = []

    def add(img: np.ndarray, c: tuple[float, float], half: float, label: int, n: int) -> None:
        for _ in range(n):
            ang = float(rng.uniform(0, 360))
            sc = float(rng.uniform(0.9, 1.12))
            jit = rng.normal(0, (0.12 if label else 0.06) * half, 2)
            xs.append(V.crop(img, (c[0] + jit[0], c[1] + jit[1]), half, ang, sc))
            ys.append(label)

    labels = _labels(data)
    names = [n for n in sorted(labels) if not is_held_out(n)]
    for k, name in enumerate(names):
        img = cv2.imread(str(data / "images" / name))
        labs = labels[name]
        faces = read_faces(img, weak=True)
        for f in faces + _blob_proposals(img, faces):
            hit = [v for (b, v) in labs if b[0] <= f.center[0] <= b[2] and b[1] <= f.center[1] <= b[3]]
            add(img, f.center, f.half, hit[0] if hit else 0, reps)
        if name.startswith("nell_"):  # boxes cover the whole die: a good crop even where the reader failed
            for b, v in labs:
                half = max(b[2] - b[0], b[3] - b[1]) / 2 / 1.1
                add(img, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), half, v, reps // 2)
                # off-centre crops (half a die away) are not a face: teaches "centre on the die"
                off = rng.normal(0, 1, 2)
                off = off / (np.linalg.norm(off) + 1e-6) * half * 1.3
                add(img, ((b[0] + b[2]) / 2 + off[0], (b[1] + b[3]) / 2 + off[1]), half, 0, 1)
        if k % 50 == 0:
            print(f"{k}/{len(names)} images, {len(xs)} crops", file=sys.stderr)
    # synthetic pips in assorted colours
    palette = [((235, 235, 235), (20, 20, 20)), ((30, 30, 200), (240, 240, 240)), ((40, 40, 40), (240, 240, 240)),
               ((40, 160, 40), (240, 240, 240)), ((200, 90, 30), (250, 250, 250)), ((40, 210, 230), (20, 20, 20)),
               ((120, 40, 120), (240, 240, 240))]
    for k in range(120):
        body, ink = palette[k % len(palette)]
        faces = [int(v) for v in rng.integers(1, 7, 3)]
        table = tuple(int(x) for x in rng.integers(120, 230, 3))
        img, placed = render_scene(faces, rng, size=(320, 400), side=int(rng.integers(30, 56)), body=body,
                                   ink=ink, table=table, noise=4.0)
        for p in placed:
            add(img, p.center, p.side / 2, int(p.face), 2)
    x = np.stack(xs)
    y = np.array(ys, dtype=np.int64)
    np.savez_compressed(out, x=x, y=y)
    print(f"{len(y)} crops, per class {np.bincount(y, minlength=7).tolist()} -> {out}", file=sys.stderr)


def train(crops: Path, out: Path, epochs: int = 8) -> None:
    import torch
    from torch import nn

    from vision.dice import verifier as V

    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    d = np.load(crops)
    x = torch.from_numpy(V.normalise(d["x"]))
    y = torch.from_numpy(d["y"])
    n = len(y)
    perm = torch.randperm(n)
    nval = n // 10
    val, tr = perm[:nval], perm[nval:]

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    model = nn.Sequential(*block(3, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2), *block(32, 64),
                          nn.MaxPool2d(2), *block(64, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(64, V.CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * (len(tr) // 128 + 1))
    lossf = nn.CrossEntropyLoss()
    for ep in range(epochs):
        model.train()
        idx = tr[torch.randperm(len(tr))]
        tot = 0.0
        for b in range(0, len(idx), 128):
            j = idx[b:b + 128]
            xb = x[j]
            if torch.rand(1).item() < 0.5:
                xb = torch.flip(xb, dims=[3])  # a mirrored face has the same value
            opt.zero_grad()
            loss = lossf(model(xb), y[j])
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(j)
        model.eval()
        with torch.no_grad():
            pred = model(x[val]).argmax(1)
            acc = float((pred == y[val]).float().mean())
        print(f"epoch {ep + 1}: loss {tot / len(tr):.3f}, val acc {acc:.4f}", file=sys.stderr)
    model.eval()
    dummy = torch.zeros(1, 3, V.SIZE, V.SIZE)
    torch.onnx.export(model, dummy, str(out), input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    c = sub.add_parser("crops")
    c.add_argument("--data", required=True, type=Path)
    c.add_argument("--out", required=True, type=Path)
    c.add_argument("--reps", type=int, default=6)
    t = sub.add_parser("train")
    t.add_argument("--crops", required=True, type=Path)
    t.add_argument("--out", required=True, type=Path)
    t.add_argument("--epochs", type=int, default=8)
    a = ap.parse_args(argv)
    if a.step == "crops":
        make_crops(a.data, a.out, a.reps)
    else:
        train(a.crops, a.out, a.epochs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
