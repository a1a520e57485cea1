"""Train the learned d6 reader (``detector.onnx`` and ``reader.onnx``, see :mod:`vision.dice.net`).

Needs torch, which the run time never does: in a venv with ``pip install torch==2.13.0 onnx
opencv-python-headless`` and this repository on ``PYTHONPATH``::

    python -m tools.dice_training.train_net reader   --data ../shared/data/dice-real --out vision/dice/reader.onnx
    python -m tools.dice_training.train_net detector --data ../shared/data/dice-real --out vision/dice/detector.onnx

Data: the photos of the **dev split only** (``vision.dice.scoring.fold(name) != 0``; fold 0 is held out and
never read here).  ``--folds 2,3,4`` trains on part of the dev split so that fold 1 can calibrate the
thresholds on photos the networks have not seen (what rounds 4 and 5 did; the shipped weights are then trained
on folds 1-4 with the same recipe).  Everything is augmented on the fly: any turn (a die's value does not
depend on it), zoom, shift, colour (channels swapped, gains, blur, noise, low resolution), so the few
hundred photos stand for many more.  Seeds are fixed; a run takes 10-20 minutes per network on 2 cores.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dice import net as N
from vision.dice.scoring import fold

SEED = 4321
#: Torch's threads (two runs side by side on a 2-core machine: PITBOARD_TRAIN_THREADS=1 each).
THREADS = int(os.environ.get("PITBOARD_TRAIN_THREADS", "2"))
#: matteo_ labels a 1 by a box around the pip (measured on its few photos with other faces: 0.23-0.83 of
#: the other dice's face boxes, median 0.44); the reader's crop and the detector's size use 2.4x.
ONE_PIP_TO_FACE = 2.4


def load(data: Path, folds: set[int], every: bool = False) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, image, box centres N x 2, sizes N, values N) for the images of ``folds`` (``every``: all
    images, for a folder of rendered frames that has no held-out split)."""
    rows: dict[str, list[tuple[float, float, float, int]]] = {}
    with (data / "labels.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            x0, y0, x1, y1 = (float(r[k]) for k in ("x_min", "y_min", "x_max", "y_max"))
            rows.setdefault(r["image"], []).append(((x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0),
                                                    int(r["value"])))
    out = []
    for name in sorted(rows):
        if every:
            pass
        elif fold(name) not in folds:
            continue
        elif fold(name) == 0:
            raise SystemExit("fold 0 is the held-out split: never train on it")
        img = cv2.imread(str(data / "images" / name))
        if img is None:
            raise SystemExit(f"cannot read {data / 'images' / name}")
        a = np.array(rows[name], dtype=np.float64)
        if name.startswith("matteo_"):
            # that collection boxes a 1 around its pip, not its face: the face is ~2.4x the pip's box
            a[a[:, 3] == 1, 2] *= ONE_PIP_TO_FACE
        out.append((name, img, a[:, :2], a[:, 2], a[:, 3].astype(np.int64)))
    return out


#: Share of training samples drawn from synthetic renders (tools/dice_training/render.py) instead of photos:
#: flat drawn dice in any colour, size and turn, so the networks also read dice unlike the two photo
#: collections (and the demo's rendered table).  Icon faces (skid, FX dice) are "not a d6 face".
SYNTH_SHARE = 0.25
_PALETTE = [((235, 235, 235), (20, 20, 20)), ((30, 30, 200), (240, 240, 240)), ((40, 40, 40), (240, 240, 240)),
            ((40, 160, 40), (240, 240, 240)), ((200, 90, 30), (250, 250, 250)), ((40, 210, 230), (20, 20, 20)),
            ((120, 40, 120), (240, 240, 240)), ((200, 230, 250), (20, 20, 20))]


def synthetic(rng: np.random.Generator, n: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``n`` rendered tables in the format of :func:`load` (value 0 for an icon face)."""
    from tools.dice_training.render import FX_FACES, SKID_FACES, render_scene

    out = []
    for k in range(n):
        if rng.random() < 0.6:
            body, ink = _PALETTE[int(rng.integers(len(_PALETTE)))]
        else:
            body = tuple(int(v) for v in rng.integers(0, 256, 3))
            ink = (20, 20, 20) if sum(body) > 380 else (240, 240, 240)
        side = int(rng.integers(16, 62))
        faces: list = [int(v) for v in rng.integers(1, 7, int(rng.integers(1, 6)))]
        if rng.random() < 0.15:
            faces[0] = str(rng.choice(SKID_FACES + FX_FACES))
        table = tuple(int(v) for v in rng.integers(20, 240, 3))
        h, w = int(rng.integers(240, 400)), int(rng.integers(300, 480))
        try:
            img, placed = render_scene(faces, rng, size=(h, w), side=side, body=body, ink=ink, table=table,
                                       noise=float(rng.uniform(1, 6)))
        except ValueError:  # too many dice for the table
            continue
        c = np.array([p.center for p in placed], np.float64)
        s = np.array([float(p.side) for p in placed])
        v = np.array([p.face if isinstance(p.face, int) else 0 for p in placed], np.int64)
        out.append((f"synthetic_{k}", img, c, s, v))
    return out


def tray_frames(rng: np.random.Generator, n: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``n`` photo-like tray frames (tools/dice_training/tray.py) in the format of :func:`load`; a die
    whose honest reading is null (leaning, half hidden, moving) has value ``NULL_DIE``.  Their dice's looks
    are drawn with ``TRAY_LOOKS`` (``--tray-looks``)."""
    from tools.dice_training.tray import render_tray

    out = []
    for k in range(n):
        img, dice = render_tray(rng, looks=TRAY_LOOKS)
        if not dice:
            continue
        c = np.array([((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2) for d in dice], np.float64)
        s = np.array([d.side for d in dice], np.float64)
        v = np.array([NULL_DIE if d.value is None else d.value for d in dice], np.int64)
        out.append((f"tray_{k}", img, c, s, v))
    return out


#: ``--tray-dir``: labelled folders of tray frames made otherwise (``tools/dice_training/raytrace.py``: value 0 is
#: a die whose honest reading is null), added to the tray frames.
TRAY_DIRS: list[Path] = []


def tray_folder_frames(dirs: list[Path]) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The frames of ``dirs`` as tray frames (their null dice, value 0 there, as ``NULL_DIE``), named ``tray_...``
    so that the tray rules (``--null-pick``, ``--hard-pick``) take them as trays."""
    out = []
    for i, d in enumerate(dirs):
        for name, img, c, s, v in load(d, set(), every=True):
            out.append((f"tray_dir{i}_{name}", img, c, s, np.where(v == 0, NULL_DIE, v)))
    return out


def all_tray_frames(seed: int, n: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None:
    """``n`` rendered tray frames (:func:`tray_frames`, seeded) and those of ``--tray-dir``; None when neither."""
    frames = (tray_frames(np.random.default_rng(seed), n) if n else []) + tray_folder_frames(TRAY_DIRS)
    return frames or None


#: The value of a die that is a die but whose reading must be null: the reader is taught an even spread
#: over 1..6 for it (under READ_P: reported null, and not "not a die", so it is still reported).
NULL_DIE = -1
#: ``--tray-looks``: each die look's weight in the training trays (``tray.look_shares``); None: the tray
#: renderer's own shares, as the benches' trays are drawn (round 15: marbled and smoky, the looks the shipped set
#: leaves null most often, three times as often).
TRAY_LOOKS: dict[str, float] | None = None
#: Share of training samples drawn from the tray frames (with ``--tray``).
TRAY_SHARE = 0.4
#: ``--null-pick``: the share of the reader's draws from a tray frame that pick one of its dice to read null
#: (leaning, half hidden, moving) when it has one; 0 picks every die equally often (about 1 in 8 of a tray's
#: dice is one).
NULL_PICK = 0.0
#: The tray folders' seeds that choose between networks (92, 93) and measure the shipped one (91, the bench's):
#: never a seed of training trays.
CHOOSING_TRAY_SEEDS = (91, 92, 93)
#: ``--hard-pick``: the share of the reader's draws from a tray frame that pick one of its hard dice (those the
#: shipped reader, run whole on the frame, leaves null, reads wrong, or gives a value where null is honest) when
#: it has one.  Found on the training frames only (their own seeds), never on a choosing or bench folder.
HARD_PICK = 0.0
#: The hard dice of each training tray frame, by its name (filled by :func:`hard_dice`).
_HARD: dict[str, np.ndarray] = {}


def hard_dice(tray: list) -> dict[str, np.ndarray]:
    """Each tray frame's dice that the shipped reader (``vision.dice.read_dice``, detector and readers) does
    not read right: left null or read wrong (a die lying flat), given a value (a die to read null).  A die it
    does not find is not counted: the reader cannot learn to find it."""
    from vision.dice import read_dice
    from vision.dice.scoring import match

    out = {}
    for name, img, c, s, v in tray:
        boxes = [(x - d / 2, y - d / 2, x + d / 2, y + d / 2) for (x, y), d in zip(c, s)]
        got = {i: r.value for r, i in match(boxes, read_dice(img)) if i >= 0}
        bad = [i for i in got if (got[i] is not None) if v[i] == NULL_DIE] + [
            i for i in got if v[i] != NULL_DIE and got[i] != v[i]]
        if bad:
            out[name] = np.array(sorted(bad), np.int64)
    return out


#: With ``--extra`` (a labelled folder of rendered table frames, see vision/synth/dice_frames.py) the
#: synthetic share is this, half renders and half frames.
SYNTH_SHARE_WITH_EXTRA = 0.35


def pick(rng: np.random.Generator, imgs: list, synth: list, extra: list | None = None,
         per_die: bool = False, tray: list | None = None) -> tuple:
    """A training image: a render some of the time, else a photo (``per_die``: a photo chosen in
    proportion to its dice, so each labelled die is drawn equally often — a photo of eight dice is not
    worth a photo of one)."""
    if tray and rng.random() < TRAY_SHARE:
        return tray[rng.integers(len(tray))]
    if synth and rng.random() < (SYNTH_SHARE_WITH_EXTRA if extra else SYNTH_SHARE):
        if extra and rng.random() < 0.5:
            return extra[rng.integers(len(extra))]
        return synth[rng.integers(len(synth))]
    if per_die:
        return imgs[int(np.searchsorted(_cumulative_dice(imgs), rng.random(), side="right"))]
    return imgs[rng.integers(len(imgs))]


_cumulative: list = [None, None]  # [the list of photos, its cumulative share of the dice]


def _cumulative_dice(imgs: list) -> np.ndarray:
    if _cumulative[0] is not imgs:
        n = np.cumsum([len(i[4]) for i in imgs], dtype=np.float64)
        _cumulative[:] = [imgs, n[:-1] / n[-1]]
    return _cumulative[1]


def colour(rng: np.random.Generator, x: np.ndarray, grey: float = 0.1, blur: float = 1.2) -> np.ndarray:
    """Photometric augmentation of one uint8 BGR image (crop or patch): ``grey`` is the share turned to
    grey, ``blur`` the largest blur (sigma).  The reader gets no grey and less blur (see
    ``READER_COLOUR``)."""
    f = x.astype(np.float32)
    if rng.random() < 0.5:
        f = f[..., rng.permutation(3)]
    f = f * rng.uniform(0.8, 1.2, 3).astype(np.float32)
    m = f.mean()
    f = (f - m) * rng.uniform(0.7, 1.3) + m + rng.uniform(-25, 25)
    if grey and rng.random() < grey:
        f[...] = f.mean(axis=-1, keepdims=True)
    if rng.random() < 0.25:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.4, blur))
    if rng.random() < 0.5:
        f = f + rng.normal(0, rng.uniform(0, 6), f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------- reader

#: Mined negatives: detections at least MINE_P (and under MINE_MAX: a sure detection with no label is
#: more likely a die the labels missed) farther than half a die from every label.
MINE_P = 0.15
MINE_MAX = 0.5
#: Share of the reader's negatives taken from the mined ones (when there are any).
MINED_SHARE = 0.4


def mine(imgs: list, detector: Path, complete: bool = False) -> list[tuple[np.ndarray, tuple[float, float], float]]:
    """Hard negatives for the reader: what the detector finds on the training photos that is not a die
    (a tray corner, a shadow, a hand), so the reader learns to say "not a die" to exactly those
    (``complete``: rendered frames, whose labels miss no die, so a sure detection is a negative too)."""
    out = []
    for _name, img, c, s, _v in imgs:
        for d in N.detect(img, MINE_P, weights=detector):
            if (complete or d.score < MINE_MAX) and np.all(np.hypot(*(c - d.center).T) > 0.5 * np.maximum(s, d.size)):
                out.append((img, d.center, d.size))
    return out


#: The reader's photometric augmentation: red pips on a dark translucent die vanish in grey and under a
#: wide blur, and a die whose pips cannot be seen must not be taught with its value (with the detector's
#: augmentation, 10 % grey and blur up to 1.2, the round-4 reader learned to hedge on exactly those dice).
READER_COLOUR = {"grey": 0.0, "blur": 0.9}


def reader_batch(rng: np.random.Generator, imgs: list, n: int, neg: float = 0.3,
                 synth: list | None = None, hard: list | None = None,
                 tray: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops and their labels (0 not a die, 1..6, NULL_DIE: a die to report null)."""
    xs, ys = [], []
    while len(xs) < n:
        name, img, c, s, v = pick(rng, imgs, synth or [], per_die=True, tray=tray)
        i = rng.integers(len(v))
        if NULL_PICK and name.startswith("tray_"):
            nulls = np.flatnonzero(v == NULL_DIE)
            if rng.random() < NULL_PICK and nulls.size:
                i = rng.choice(nulls)  # a die to read null, more often than it lies in trays
        if HARD_PICK and name in _HARD and rng.random() < HARD_PICK:
            i = rng.choice(_HARD[name])  # a die the shipped reader does not read right
        h, w = img.shape[:2]
        if hard and rng.random() < neg * MINED_SHARE:
            img, ctr, size = hard[rng.integers(len(hard))]
            ctr = np.array(ctr) + rng.normal(0, 0.05 * size, 2)
            size = size * rng.uniform(0.9, 1.1)
            label = 0
        elif rng.random() >= neg:
            size = s[i] * rng.uniform(0.85, 1.18)
            ctr = c[i] + rng.normal(0, 0.07 * s[i], 2)
            label = int(v[i])
        else:
            size = s[i] * rng.uniform(0.85, 1.18)
            if rng.random() < 0.6:  # a piece of a die, the gap between two
                a = rng.uniform(0, 2 * math.pi)
                ctr = c[i] + rng.uniform(0.55, 1.1) * s[i] * np.array([math.cos(a), math.sin(a)])
            else:  # anywhere on the table
                ctr = np.array([rng.uniform(0, w), rng.uniform(0, h)])
            if np.any(np.hypot(*(c - ctr).T) < 0.45 * s):
                continue  # landed on a die after all
            label = 0
        crop = N.reader_crop(img, (float(ctr[0]), float(ctr[1])), float(size), float(rng.uniform(0, 360)))
        if rng.random() < SMALL_SHARE:  # a smaller die, seen at lower resolution (not below SMALL_MIN: 2-pixel
            # pips are not a value to teach)
            k = rng.uniform(SMALL_MIN, SMALL_MAX)
            small = cv2.resize(crop, (max(8, int(N.SIZE * k)),) * 2, interpolation=cv2.INTER_AREA)
            crop = cv2.resize(small, (N.SIZE, N.SIZE), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        xs.append(colour(rng, crop, **READER_COLOUR))
        ys.append(label)
    return np.stack(xs), np.array(ys, np.int64)


def soft_targets(y: np.ndarray) -> np.ndarray:
    """Class probabilities: one-hot for 0..6, an even spread over 1..6 for NULL_DIE."""
    t = np.zeros((len(y), N.CLASSES), np.float32)
    known = y >= 0
    t[np.nonzero(known)[0], y[known]] = 1.0
    t[~known, 1:] = 1.0 / (N.CLASSES - 1)
    return t


#: ``--small-min``: the smallest a crop is shrunk to (times its 64 pixels) before being enlarged again, to teach
#: dice seen at lower resolution: 0.5 stands for dice of about 25 pixels (the crop is 1.3 x the die).
SMALL_MIN = 0.5
SMALL_MAX = 0.85  # the largest it is shrunk to
#: ``--small-share``: the share of the reader's crops shrunk so (round 21 tried more, with a lower SMALL_MIN, for
#: photos taken from twice as far: dice of 12-23 px)
SMALL_SHARE = 0.2
READER_WIDTH = 1.0  # --width: every layer of the reader this many times wider (round 10 tried 1.33)


def reader_model():
    from torch import nn

    w = [max(8, int(round(c * READER_WIDTH / 8)) * 8) for c in (24, 48, 80, 144)]

    def cbr(i: int, o: int, s: int = 1, k: int = 3) -> list:
        return [nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(*cbr(3, w[0], 2), *cbr(w[0], w[1]), nn.MaxPool2d(2), *cbr(w[1], w[2]), *cbr(w[2], w[2]),
                         nn.MaxPool2d(2), *cbr(w[2], w[3]), *cbr(w[3], w[3]), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(w[3], N.CLASSES))


def eval_reader_oracle(model, imgs: list) -> dict:
    """Read every labelled die of ``imgs`` at its labelled box (the reader alone, perfect detection)."""
    import torch

    crops, labels = [], []
    for _name, img, c, s, v in imgs:
        for k in range(len(v)):
            crops.append(N.reader_crop(img, (float(c[k, 0]), float(c[k, 1])), float(s[k])))
            labels.append(int(v[k]))
    x = np.stack(crops)
    turns = np.concatenate([np.rot90(x, k, axes=(1, 2)) for k in range(4)])
    with torch.no_grad():
        p = torch.softmax(model(torch.from_numpy(N.reader_input(turns))), 1).numpy()
    p = p.reshape(4, len(x), N.CLASSES).mean(0)
    y = np.array(labels)
    k = p.argmax(1)
    pk = p.max(1)
    out = {"dice": len(y), "acc": round(float((k == y).mean()), 4)}
    for t in (0.5, 0.8, 0.9, 0.95, 0.98):
        sel = pk >= t
        out[f"p{t}"] = (round(float((k[sel] == y[sel]).mean()), 4), round(float(sel.mean()), 4))
    return out


def train_reader(data: Path, out: Path, folds: set[int], epochs: int, per_epoch: int, cal: set[int],
                 mine_with: Path | None = None, trays: int = 0, init: Path | None = None) -> None:
    import torch
    from torch import nn

    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    rng = np.random.default_rng(SEED)
    imgs = load(data, folds)
    calib = load(data, cal) if cal else []
    synth = synthetic(rng, 600)
    tray = all_tray_frames(SEED + 7, trays)
    hard = mine(imgs, mine_with) if mine_with else None
    if hard is not None and tray:
        hard += mine(tray, mine_with, complete=True)
    if HARD_PICK and tray:
        _HARD.update(hard_dice(tray))
        print(f"reader: {sum(len(i) for i in _HARD.values())} hard dice in {len(_HARD)} tray frames",
              file=sys.stderr)
    print(f"reader: {len(imgs)} images, {sum(len(i[4]) for i in imgs)} dice"
          + (f", {len(tray)} tray frames" if tray else "")
          + (f", {len(hard)} mined negatives" if hard is not None else ""), file=sys.stderr)
    model = reader_model()
    if init:
        init_from_onnx(model, init, torch.from_numpy(N.reader_input(np.zeros((2, N.SIZE, N.SIZE, 3), np.uint8) + 90)))
    bs = 128
    opt, sched = _optimiser(model, 1e-3 if init else 4e-3, 5e-4, epochs * (per_epoch // bs))
    lossf = nn.CrossEntropyLoss(label_smoothing=0.02)
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        if init:
            freeze_batch_norm(model)
        tot = 0.0
        for _ in range(per_epoch // bs):
            xb, yb = reader_batch(rng, imgs, bs, synth=synth, hard=hard, tray=tray)
            opt.zero_grad()
            loss = lossf(model(torch.from_numpy(N.reader_input(xb))), torch.from_numpy(soft_targets(yb)))
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item()
        model.eval()
        msg = f"epoch {ep + 1}/{epochs}: loss {tot / (per_epoch // bs):.4f} ({time.time() - t0:.0f} s)"
        if calib and (ep % 4 == 3 or ep == epochs - 1):
            msg += f" calib {eval_reader_oracle(model, calib)}"
        print(msg, file=sys.stderr, flush=True)
    export(model, torch.zeros(1, 3, N.SIZE, N.SIZE), out, ["logits"], {"x": {0: "n"}, "logits": {0: "n"}})


def init_from_onnx(model, path: Path, example) -> None:
    """Start ``model`` from shipped weights: the ONNX export folded each batch norm into its convolution,
    so each Conv (in the order the forward pass runs them) takes the folded weights, and its batch norm
    becomes the identity plus the folded bias (mean 0, variance 1 - eps).  Checked: the model then gives
    the ONNX file's outputs on ``example``."""
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper
    from torch import nn

    g = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs_onnx = [n for n in g.node if n.op_type == "Conv"]
    gemm = [n for n in g.node if n.op_type == "Gemm"]
    order: list = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod)) for m in model.modules()
             if isinstance(m, nn.Conv2d)]
    model.eval()
    with torch.no_grad():
        model(example)
    for h in hooks:
        h.remove()
    if len(order) != len(convs_onnx):
        raise SystemExit(f"{path}: {len(convs_onnx)} convolutions, the model runs {len(order)}: not its weights")
    after = {}  # conv -> the batch norm that follows it
    mods = list(model.modules())
    for k, m in enumerate(mods[:-1]):
        if isinstance(m, nn.Conv2d) and isinstance(mods[k + 1], nn.BatchNorm2d):
            after[m] = mods[k + 1]
    with torch.no_grad():
        for conv, node in zip(order, convs_onnx):
            w = torch.from_numpy(inits[node.input[1]].copy())
            b = torch.from_numpy(inits[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise SystemExit(f"{path}: a convolution of {tuple(w.shape)}, the model's is {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn = after.get(conv)
            if bn is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            else:
                conv.bias.copy_(b)
        lin = [m for m in model.modules() if isinstance(m, nn.Linear)]
        for m, node in zip(lin, gemm):
            m.weight.copy_(torch.from_numpy(inits[node.input[1]].copy()))
            m.bias.copy_(torch.from_numpy(inits[node.input[2]].copy()))
        ours = model(example)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    theirs = sess.run(None, {sess.get_inputs()[0].name: example.numpy()})
    ours = ours if isinstance(ours, tuple) else (ours,)
    err = max(float(np.abs(o.numpy() - t).max()) for o, t in zip(ours, theirs))
    if err > 1e-3:
        raise SystemExit(f"{path}: the model started from it differs from it by {err:.2g}")
    print(f"started from {path} (largest difference {err:.1e})", file=sys.stderr)


def freeze_batch_norm(model) -> None:
    """Fine-tuning: batch norms keep their statistics (the folded ones), only their scale and shift learn."""
    from torch import nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def _optimiser(model, lr: float, decay: float, steps: int) -> tuple:
    """AdamW with a one-cycle learning rate over ``steps`` steps."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=decay)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)


def export(model, dummy, out: Path, names: list[str], axes: dict) -> None:
    import torch

    model.eval()
    torch.onnx.export(model, dummy, str(out), input_names=["x"], output_names=names, dynamic_axes=axes,
                      opset_version=13, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB)", file=sys.stderr)


# -------------------------------------------------------------------------------------------- detector

PATCH = 192


def detector_batch(rng: np.random.Generator, imgs: list, n: int, synth: list | None = None,
                   extra: list | None = None, tray: list | None = None) -> tuple[np.ndarray, ...]:
    """Patches of the half-resolution images with CenterNet targets on the STRIDE grid."""
    g = PATCH // N.STRIDE
    xs = np.zeros((n, PATCH, PATCH, 3), np.uint8)
    heat = np.zeros((n, 1, g, g), np.float32)
    size = np.zeros((n, 1, g, g), np.float32)
    off = np.zeros((n, 2, g, g), np.float32)
    mask = np.zeros((n, 1, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for b in range(n):
        name, img, c, s, v = pick(rng, imgs, synth or [], extra, tray=tray)
        r = N.DETECT_SCALE * math.exp(rng.uniform(math.log(0.7), math.log(1.45)))
        small = cv2.resize(img, None, fx=r, fy=r, interpolation=cv2.INTER_AREA)
        h, w = small.shape[:2]
        cc, ss = c * r, s * r
        # a patch that holds a die most of the time, anywhere otherwise
        if rng.random() < 0.8:
            k = rng.integers(len(v))
            x0 = int(cc[k, 0] - rng.uniform(0.1, 0.9) * PATCH)
            y0 = int(cc[k, 1] - rng.uniform(0.1, 0.9) * PATCH)
        else:
            x0, y0 = int(rng.uniform(-20, max(1, w - PATCH + 20))), int(rng.uniform(-20, max(1, h - PATCH + 20)))
        pad = PATCH
        big = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REFLECT)
        patch = big[y0 + pad:y0 + pad + PATCH, x0 + pad:x0 + pad + PATCH]
        pc = cc - [x0, y0]
        turns = int(rng.integers(4))
        patch = np.rot90(patch, turns)
        for _ in range(turns):  # np.rot90 turns counter-clockwise: (x, y) -> (y, P - 1 - x)
            pc = np.stack([pc[:, 1], PATCH - pc[:, 0]], 1)
        if rng.random() < 0.5:
            patch = patch[:, ::-1]
            pc = np.stack([PATCH - pc[:, 0], pc[:, 1]], 1)
        xs[b] = colour(rng, np.ascontiguousarray(patch))
        for (px, py), sk in zip(pc, ss):
            if not (0 <= px < PATCH and 0 <= py < PATCH):
                continue
            gx, gy = px / N.STRIDE, py / N.STRIDE
            ix, iy = min(g - 1, int(gx)), min(g - 1, int(gy))
            sig = max(0.6, sk / N.STRIDE / 5)
            heat[b, 0] = np.maximum(heat[b, 0], np.exp(-((xx - gx + 0.5) ** 2 + (yy - gy + 0.5) ** 2) / (2 * sig ** 2)))
            heat[b, 0, iy, ix] = 1.0
            size[b, 0, iy, ix] = math.log(sk)
            off[b, :, iy, ix] = (gx - ix - 0.5, gy - iy - 0.5)
            mask[b, 0, iy, ix] = 1.0
    return xs, heat, size, off, mask


def detector_model():
    import torch
    from torch import nn

    def cbr(i: int, o: int, s: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU())

    class Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = cbr(3, 16, 2)
            self.c2 = nn.Sequential(cbr(16, 32, 2), cbr(32, 32))
            self.c3 = nn.Sequential(cbr(32, 64, 2), cbr(64, 64))
            self.c4 = nn.Sequential(cbr(64, 96, 2), cbr(96, 96))
            self.l8, self.t16 = nn.Conv2d(64, 64, 1), nn.Conv2d(96, 64, 1)
            self.m8 = cbr(64, 64)
            self.l4, self.t8 = nn.Conv2d(32, 32, 1), nn.Conv2d(64, 32, 1)
            self.m4 = cbr(32, 32)
            self.heat = nn.Sequential(cbr(32, 32), nn.Conv2d(32, 1, 1))
            self.reg = nn.Conv2d(32, 3, 1)
            nn.init.constant_(self.heat[1].bias, -2.19)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x):
            f4 = self.c2(self.c1(x))
            f8 = self.c3(f4)
            f16 = self.c4(f8)
            p8 = self.m8(self.l8(f8) + self.up(self.t16(f16)))
            p4 = self.m4(self.l4(f4) + self.up(self.t8(p8)))
            r = self.reg(p4)
            return torch.sigmoid(self.heat(p4)), r[:, :1], r[:, 1:]

    return Detector()


def focal(pred, gt):
    import torch

    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pl = torch.log(pred) * (1 - pred) ** 2 * pos
    nl = torch.log(1 - pred) * pred ** 2 * (1 - gt) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    return -(pl.sum() + nl.sum()) / npos


def train_detector(data: Path, out: Path, folds: set[int], epochs: int, per_epoch: int,
                   extra: Path | None = None, trays: int = 0, init: Path | None = None) -> None:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    rng = np.random.default_rng(SEED + 1)
    imgs = load(data, folds)
    synth = synthetic(rng, 600)
    frames = load(extra, set(), every=True) if extra else None
    tray = all_tray_frames(SEED + 8, trays)
    print(f"detector: {len(imgs)} images, {sum(len(i[4]) for i in imgs)} dice", file=sys.stderr)
    model = detector_model()
    if init:
        init_from_onnx(model, init, torch.rand(1, 3, 64, 96))
    bs = 16
    opt, sched = _optimiser(model, 1e-3 if init else 3e-3, 1e-4, epochs * (per_epoch // bs))
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        if init:
            freeze_batch_norm(model)
        tot = np.zeros(3)
        for _ in range(per_epoch // bs):
            xb, hb, sb, ob, mb = (torch.from_numpy(a) for a in detector_batch(rng, imgs, bs, synth, frames, tray))
            heat, size, off = model(torch.from_numpy(N.to_tensor(xb.numpy())))
            npos = mb.sum().clamp(min=1)
            lh = focal(heat, hb)
            ls = (torch.abs(size - sb) * mb).sum() / npos
            lo = (torch.abs(off - ob) * mb).sum() / npos
            loss = lh + 0.5 * ls + lo
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += (lh.item(), ls.item(), lo.item())
        tot /= per_epoch // bs
        print(f"epoch {ep + 1}/{epochs}: heat {tot[0]:.4f} size {tot[1]:.4f} offset {tot[2]:.4f} "
              f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    export(model, torch.zeros(1, 3, 320, 320), out, ["heat", "size", "offset"],
           {"x": {2: "h", 3: "w"}, "heat": {2: "gh", 3: "gw"}, "size": {2: "gh", 3: "gw"},
            "offset": {2: "gh", 3: "gw"}})


def parse_looks(text: str) -> dict[str, float] | None:
    """``"marbled=3,smoky=3"`` as weights for ``tray.look_shares`` (checked there); "" is None."""
    from tools.dice_training.tray import look_shares

    if not text.strip():
        return None
    looks: dict[str, float] = {}
    for part in text.split(","):
        kind, _eq, weight = part.partition("=")
        try:
            looks[kind.strip()] = float(weight)
        except ValueError:  # (no "=" leaves no weight: "" is not a number either)
            raise ValueError(f"{part.strip()!r} is not LOOK=WEIGHT (e.g. marbled=3)") from None
    look_shares(looks)  # an unknown look or a weight not above 0 is named here
    return looks


def main(argv: list[str] | None = None) -> int:
    global SEED, TRAY_SHARE, READER_WIDTH, NULL_PICK, SMALL_MIN, SMALL_SHARE, HARD_PICK, TRAY_LOOKS
    from tools.dice_training.tray import LOOKS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("net", choices=["reader", "detector"])
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--folds", default="1,2,3,4", help="dev folds to train on (never 0)")
    ap.add_argument("--calibrate", default="", help="folds to report the reader's figures on while training")
    ap.add_argument("--epochs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=SEED, help="another seed gives another member of an ensemble")
    ap.add_argument("--per-epoch", type=int, default=0, help="samples per epoch")
    ap.add_argument("--mine-with", type=Path, default=None,
                    help="reader: a detector whose false detections on the training photos become negatives")
    ap.add_argument("--extra", type=Path, default=None,
                    help="detector: a labelled folder of rendered table frames (python -m vision.synth.dice_frames)")
    ap.add_argument("--tray", type=int, default=0, metavar="N",
                    help="N photo-like tray frames (tools/dice_training/tray.py) in the mix, TRAY_SHARE of the samples")
    ap.add_argument("--init", type=Path, default=None, metavar="ONNX",
                    help="fine-tune: start from these shipped weights (batch norms frozen, a lower learning rate)")
    ap.add_argument("--tray-dir", type=Path, action="append", default=[], metavar="DIR",
                    help="a labelled folder of tray frames made otherwise (e.g. tools/dice_training/raytrace.py; "
                         "value 0: read null), added to the tray frames; may be given more than once")
    ap.add_argument("--tray-share", type=float, default=TRAY_SHARE, metavar="F",
                    help=f"share of the samples drawn from the tray frames (default {TRAY_SHARE})")
    ap.add_argument("--width", type=float, default=READER_WIDTH, metavar="F",
                    help="reader only: its layers this many times wider than 24-48-80-144 (default 1; --init needs "
                         "the width the weights were trained at)")
    ap.add_argument("--null-pick", type=float, default=NULL_PICK, metavar="F",
                    help="reader only: this share of its draws from a tray frame pick a die to read null when the "
                         "frame has one (default 0: every die equally often)")
    ap.add_argument("--hard-pick", type=float, default=HARD_PICK, metavar="F",
                    help="reader only: this share of its draws from a tray frame pick a die the shipped reader does "
                         "not read right when the frame has one (default 0)")
    ap.add_argument("--small-min", type=float, default=SMALL_MIN, metavar="F",
                    help=f"reader only: the lowest resolution a crop is taught at, times its own (default {SMALL_MIN})")
    ap.add_argument("--small-share", type=float, default=SMALL_SHARE, metavar="F",
                    help=f"reader only: the share of its crops taught at a lower resolution (default {SMALL_SHARE})")
    ap.add_argument("--tray-looks", default="", metavar="LOOK=W,...",
                    help="the training trays' dice: each look named drawn W times as often (e.g. marbled=3,smoky=3; "
                         "looks: " + ", ".join(LOOKS) + ")")
    a = ap.parse_args(argv)
    try:
        TRAY_LOOKS = parse_looks(a.tray_looks)
    except ValueError as exc:
        ap.error(f"--tray-looks: {exc}")
    if TRAY_LOOKS and not a.tray:
        ap.error("--tray-looks weights the tray frames' looks: give --tray N as well")
    if not 0.0 <= a.null_pick <= 1.0:
        ap.error(f"--null-pick is a share, 0 to 1, not {a.null_pick:g}")
    if not 0.0 < a.small_min <= SMALL_MAX:
        ap.error(f"--small-min is a share of the crop's size above 0 and at most {SMALL_MAX:g} (the largest it is "
                 f"shrunk to), not {a.small_min:g}")
    if not 0.0 <= a.small_share <= 1.0:
        ap.error(f"--small-share is a share, 0 to 1, not {a.small_share:g}")
    if not 0.0 <= a.hard_pick <= 1.0:
        ap.error(f"--hard-pick is a share, 0 to 1, not {a.hard_pick:g}")
    if a.hard_pick and not a.tray:
        ap.error("--hard-pick draws from the tray frames: give --tray N as well")
    trays_seed = a.seed + (7 if a.net == "reader" else 8)  # the seed of the training trays (tray_frames)
    if a.tray and trays_seed in CHOOSING_TRAY_SEEDS:
        ap.error(f"--seed {a.seed} would train on the trays of seed {trays_seed}, which choose and measure the "
                 f"readers ({', '.join(map(str, CHOOSING_TRAY_SEEDS))}): take another seed")
    # the weights are written after the whole training: a folder that does not exist, or a folder given for the
    # file, is found now, not an hour and a half later (a training's 36 epochs were lost to `--out DIR/file` in a
    # folder not made)
    if a.out.is_dir():
        ap.error(f"--out {a.out} is a folder: give the file to write, e.g. {a.out / (a.net + '.onnx')}")
    try:
        a.out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        ap.error(f"--out {a.out}: its folder cannot be made ({exc.strerror}): give a file in a folder you can write")
    if not os.access(a.out.parent, os.W_OK):
        ap.error(f"--out {a.out}: its folder {a.out.parent} cannot be written: give a file in a folder you can write")
    NULL_PICK = a.null_pick
    TRAY_DIRS[:] = a.tray_dir
    HARD_PICK = a.hard_pick
    SMALL_MIN = a.small_min
    SMALL_SHARE = a.small_share
    TRAY_SHARE = a.tray_share
    READER_WIDTH = a.width
    SEED = a.seed
    folds = {int(f) for f in a.folds.split(",") if f}
    cal = {int(f) for f in a.calibrate.split(",") if f}
    if a.net == "reader":
        train_reader(a.data, a.out, folds, a.epochs or 36, a.per_epoch or 12800, cal, a.mine_with, a.tray, a.init)
    else:
        train_detector(a.data, a.out, folds, a.epochs or 20, a.per_epoch or 4800, a.extra, a.tray, a.init)
    return 0


if __name__ == "__main__":
    sys.exit(main())
