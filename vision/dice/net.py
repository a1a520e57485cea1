"""The learned d6 reader: a small detector finds every die, a small classifier reads each one.

Why (round 4 of ``vision/dice``): the classical pip reader of rounds 1-3 (removed in round 6) was exact
where it saw every pip, but on the real photos it *found* only ~88 % of the dice (marbled, translucent and
dark dice, dice touching each other or a tray wall).  Finding dice is what a learned detector is good at,
so this module is two networks, both tiny, both run through onnxruntime on one CPU thread:

* ``detector.onnx`` — a CenterNet-style fully convolutional net on the image at half resolution: a
  heat map of die centres at 1/8 of the input, plus each die's size and sub-cell offset.  Peaks of the
  heat map (3x3 local maxima above ``DETECT_P``) are the dice.
* ``reader.onnx`` — a 7-layer CNN on a 64x64 crop around each die (side ``CROP_SCALE`` x the die's
  size, cut from the full-resolution image so 5-pixel pips stay visible): class 0 is "not a die's top
  face" (a piece of a die, a shadow, a mat pattern), classes 1..6 are the values.  A crop the reader is
  not sure of at one look is read at four quarter turns and the probabilities averaged (a die's value
  does not depend on its turn, so the mean is steadier than any one look).  ``reader2.onnx``, a second
  reader, is asked where the first is still unsure.

Both are trained by ``tools/dice_training/train_net.py`` on the dev split of ``../shared/data/dice-real`` only.
Nothing here touches a camera, a file other than the weights, or a clock.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

HERE = Path(__file__).parent
DETECTOR = HERE / "detector.onnx"
READER = HERE / "reader.onnx"
#: A second reader, trained the same way from another seed: where the first is unsure (top probability
#: under SECOND_BELOW) the two readers' probabilities are averaged (a pair is surer where both agree and
#: less sure where one errs).  On the dev photos asking it only there gave the same figures as asking it
#: for every die, at a sixth of its cost.
SECOND_READER = HERE / "reader2.onnx"
SECOND_BELOW = 0.9

#: The detector sees the image scaled by this factor (dice of 16-90 input pixels).
DETECT_SCALE = 0.5
#: Its output grid is 1/STRIDE of its input.
STRIDE = 4
#: Least heat-map peak for a detection.  Low on purpose: small dice (10 px at the detector's scale) peak
#: at 0.2-0.6, and the reader drops what is not a die (it was trained on this detector's false
#: detections); at 0.2 the dev photos gave no more false dice than at 0.4 (vision/dice/README.md).
DETECT_P = 0.2
#: Reader crop: SIZE x SIZE pixels covering CROP_SCALE x the die's size.
SIZE = 64
CROP_SCALE = 1.3
CLASSES = 7


@dataclass(frozen=True)
class Detection:
    """A die the detector found: centre and size (side of the labelled box) in input pixels."""

    center: tuple[float, float]
    size: float
    score: float


def detector_input(img: np.ndarray) -> tuple[np.ndarray, float]:
    """The detector's input for a BGR image: 1 x 3 x H x W float32, H and W multiples of 16, and the
    scale from input pixels to detector pixels."""
    h, w = img.shape[:2]
    s = DETECT_SCALE
    small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return to_tensor(pad16(small)), s


def pad16(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    ph, pw = (-h) % 16, (-w) % 16
    if ph or pw:
        img = cv2.copyMakeBorder(img, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return img


def to_tensor(img: np.ndarray) -> np.ndarray:
    """H x W x 3 uint8 (or N x H x W x 3) → float32 in [-1, 1], channels first."""
    x = img.astype(np.float32) * (2.0 / 255.0) - 1.0
    if x.ndim == 3:
        return np.ascontiguousarray(x.transpose(2, 0, 1)[None])
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def decode(heat: np.ndarray, size: np.ndarray, offset: np.ndarray, scale: float,
           threshold: float = DETECT_P) -> list[Detection]:
    """Peaks of one heat map (H x W, probabilities) → detections in input pixels.  ``size`` is the log of
    the die's side in detector pixels, ``offset`` (2 x H x W) the centre's position inside its cell."""
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    out = []
    for y, x in zip(*np.nonzero(peaks)):
        cx = (x + 0.5 + float(offset[0, y, x])) * STRIDE / scale
        cy = (y + 0.5 + float(offset[1, y, x])) * STRIDE / scale
        out.append(Detection((cx, cy), float(np.exp(size[y, x])) / scale, float(heat[y, x])))
    out.sort(key=lambda d: -d.score)
    kept: list[Detection] = []
    for d in out:  # two peaks on one die (a die between cells): keep the stronger
        if all((d.center[0] - k.center[0]) ** 2 + (d.center[1] - k.center[1]) ** 2 > (0.45 * max(d.size, k.size)) ** 2
               for k in kept):
            kept.append(d)
    return kept


def square_crop(img: np.ndarray, center: tuple[float, float], side: float, out: int,
                angle: float = 0.0) -> np.ndarray:
    """An ``out`` x ``out`` crop of the square of ``side`` input pixels around ``center``, turned by
    ``angle`` degrees (edges repeated where the square leaves the image)."""
    m = cv2.getRotationMatrix2D((float(center[0]), float(center[1])), angle, out / max(side, 1e-3))
    m[0, 2] += out / 2 - center[0]
    m[1, 2] += out / 2 - center[1]
    return cv2.warpAffine(img, m, (out, out), flags=cv2.INTER_AREA if side > out else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def reader_crop(img: np.ndarray, center: tuple[float, float], size: float, angle: float = 0.0,
                scale: float = 1.0) -> np.ndarray:
    """The reader's SIZE x SIZE BGR crop of a die at ``center`` with side ``size`` (input pixels),
    optionally turned by ``angle`` degrees and zoomed by ``scale`` (training augmentation)."""
    return square_crop(img, center, CROP_SCALE * size * scale, SIZE, angle)


def reader_input(crops: np.ndarray) -> np.ndarray:
    """N x SIZE x SIZE x 3 uint8 → N x 3 x SIZE x SIZE float32, each crop to zero mean and unit spread
    (die colour and exposure matter less than shape)."""
    x = crops.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


class ModelError(RuntimeError):
    """The d6 reader's weights are missing or cannot be loaded: the message names the file, what is
    wrong and what to do.  There is no fallback reader: a broken install is said, not hidden."""


#: The weights every d6 reading needs (the second reader is asked only for unsure dice, but it is part
#: of the reader as measured, so it is required too).
REQUIRED = (DETECTOR, READER, SECOND_READER)

_sessions: dict[Path, Any] = {}  # onnxruntime.InferenceSession (onnxruntime ships no type hints)
_failures: dict[Path, ModelError] = {}


#: The SHA-256 of each shipped weights file (``sha256sum`` format).  A file changed on the card or in copying
#: (bytes flipped, not cut) still loads and reads every die, wrongly: `pitboard check` said "OK models".
SUMS = HERE / "models.sha256"


def _reinstall(path: Path) -> str:
    return (f"reinstall Pitboard (the file ships in the package), or rebuild it with tools/dice_training "
            f"(see its README) and put it at {path}")


def record_sums_command() -> str:
    """The command that records the shipped weights' sums after they are rebuilt on purpose."""
    import shlex

    names = " ".join(p.name for p in REQUIRED if _in_package(p))
    return f"(cd {shlex.quote(str(HERE))} && sha256sum {names} > {SUMS.name})"


def _in_package(path: Path) -> bool:
    """Whether ``path`` is in the package's weights folder, however it is spelled (``..``, a linked folder; a
    link in the file's own place is checked as the file there).  ``realpath`` never raises (a loop of links)."""
    return os.path.realpath(path.parent) == os.path.realpath(HERE)


def _not_as_shipped(path: Path, data: bytes) -> str | None:
    """What says the weights at ``path`` are not the shipped file (None: they are, or ``path`` is not in the
    package's folder, e.g. a candidate being measured)."""
    if not _in_package(path):
        return None
    try:
        lines = SUMS.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        why = "missing" if isinstance(exc, FileNotFoundError) else "unreadable"
        return (f"the list of the dice models' sums {SUMS} is {why}, so {path.name} cannot be told sound; "
                f"{_reinstall(path)}")
    sums: dict[str, str] = {}
    for line in lines:  # "<sum>  <name>" (or "<sum> *<name>", sha256sum's binary mode)
        parts = line.split(None, 1)
        if len(parts) == 2:
            sums[parts[1].strip().removeprefix("*")] = parts[0].lower()
    want = sums.get(path.name)
    if want is None:
        return f"{SUMS} lists no sum for {path.name}; reinstall Pitboard, or record the sums: `{record_sums_command()}`"
    if hashlib.sha256(data).hexdigest() != want:
        return (f"the dice model {path} is not the file Pitboard shipped (its SHA-256 is not the one {SUMS.name} "
                f"lists): changed on the card or in copying, it would read dice wrongly; {_reinstall(path)}; if you "
                f"rebuilt it on purpose, record the new sums: `{record_sums_command()}`")
    return None


#: Where Linux lists the CPU's instruction sets (:func:`fused_int8_reads_right`).
CPUINFO = Path("/proc/cpuinfo")


def fused_int8_reads_right() -> bool:
    """Whether onnxruntime's fused int8 kernels read the quantised reader as it was measured: on ARM (the Pi) and
    on x86-64 CPUs with VNNI.  An x86-64 CPU without VNNI (AVX2 alone: many PCs) multiplies the u8 activations by
    the s8 weights in pairs summed to 16 bits, which saturate: on such a machine the rendered trays' dice read
    0.873 where 0.913 was measured, and five dice tests failed (a fresh machine, 2026-12-07).  There the quantised
    layers run as written instead, quantise, dequantise and fp32 (``session.disable_quant_qdq``): the same dice,
    at about fp32's speed.  Unknown (no /proc/cpuinfo on an x86 machine): not fused."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    try:
        flags = CPUINFO.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return re.search(r"\b(avx512_vnni|avx_vnni|avxvnni)\b", flags) is not None


def session(path: Path, role: str | None = None) -> Any:
    """A one-thread onnxruntime session for the weights at ``path`` (made once).  Raises
    :class:`ModelError` naming the file when it is missing, onnxruntime cannot load it, or its inputs and
    outputs are not those of its ``role`` ("detector" or "reader"; None: the detector for ``DETECTOR``, else a
    reader)."""
    if path in _sessions:
        return _sessions[path]
    if path in _failures:
        raise _failures[path]
    try:
        if path.is_dir():
            raise ModelError(f"the dice model {path} is a folder, not the file: move that folder away, then "
                             f"{_reinstall(path)}")
        if not path.is_file():
            raise ModelError(f"the dice model {path} is missing; {_reinstall(path)}")
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelError(f"onnxruntime is not installed ({exc}), so the dice model {path} cannot run; "
                             "install Pitboard's dependencies (pip install onnxruntime)") from None
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelError(f"the dice model {path} cannot be read ({exc.strerror or exc}); {_reinstall(path)}") \
                from None
        changed = _not_as_shipped(path, data)
        if changed:
            raise ModelError(changed)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        if not fused_int8_reads_right():  # (an fp32 network has no quantised layer to fuse: no change)
            opts.add_session_config_entry("session.disable_quant_qdq", "1")
        try:
            sess = ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for a damaged or foreign file
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise ModelError(f"the dice model {path} cannot be loaded ({first}); {_reinstall(path)}") from None
        kind = role or ("detector" if path == DETECTOR else "reader")
        wrong = _wrong_network(sess, kind)
        if wrong:
            raise ModelError(f"the dice model {path} loads but is not a dice {kind} ({wrong}); {_reinstall(path)}")
    except ModelError as exc:
        _failures[path] = exc
        raise
    _sessions[path] = sess
    return sess


def _wrong_network(sess: Any, role: str) -> str | None:
    """What in a loaded network's inputs and outputs is not what its role needs (None: it fits).  A file of
    the other network, or another model copied over it, loads without a word; reading with it then failed with
    onnxruntime's "Got: 32 Expected: 64" deep in a reading, or read every die with the wrong network."""
    ins, outs = sess.get_inputs(), sess.get_outputs()

    def fixed(dim: Any, want: int) -> bool:  # a named (symbolic) or unknown size may be anything
        return not isinstance(dim, int) or dim == want

    if len(ins) != 1:
        return f"it has {len(ins)} inputs where a dice network has one image"
    shape = list(ins[0].shape or [None] * 4)  # no shape recorded: nothing to hold against it
    if len(shape) != 4 or not fixed(shape[1], 3):
        return "its input is not one colour image"
    if role == "detector":
        if ins[0].name != "x":
            return f"its input is called {ins[0].name!r}, where the detector's is 'x'"
        if len(outs) != 3:
            return f"it has {len(outs)} outputs where the detector has 3 (heat map, size, offset)"
        return None
    if not (fixed(shape[2], SIZE) and fixed(shape[3], SIZE)):
        return f"its input is {shape[2]}x{shape[3]}, where the reader reads {SIZE}x{SIZE} crops"
    out = list(outs[0].shape or [None] * 2) if len(outs) == 1 else []
    if len(out) != 2 or not fixed(out[1], CLASSES):
        return f"its output is not the reader's {CLASSES} classes (not a die, 1 to 6)"
    return None


def check() -> list[str]:
    """One message per required weights file that is missing or cannot be loaded (empty: all load)."""
    problems = []
    for path in REQUIRED:
        try:
            session(path)
        except ModelError as exc:
            problems.append(str(exc))
    return problems


def load() -> bool:
    """Open every network now, so that the first image read does not pay for it.  Raises
    :class:`ModelError` for the first file that cannot be loaded."""
    for path in REQUIRED:
        session(path)
    return True


def available() -> bool:
    """Every network is present and onnxruntime can run it."""
    return not check()


def detect(img: np.ndarray, threshold: float = DETECT_P, weights: Path | None = None) -> list[Detection]:
    """The dice in a BGR image, strongest first (``weights``: another detector file, for training)."""
    sess = session(weights or DETECTOR, "detector")
    x, s = detector_input(img)
    heat, size, offset = sess.run(None, {"x": x})
    return decode(heat[0, 0], size[0, 0], offset[0], s, threshold)


#: Quarter turns of each crop averaged by the reader.
TTA_TURNS = 4
#: A die the first reader is at least this sure of at one look (no turn) is not looked at again; the
#: others are read at all TTA_TURNS quarter turns.  Most dice are plain, so this saves most of the
#: reader's work (the wider round-5 reader made it worth it): on the calibration fold (networks trained
#: on folds 2-4, read on fold 1) and on the dev photos it gave the same figures as four looks at every
#: die, at 38 % and 42 % of the looks (0.9 and 0.95 saved more and read one more fold-1 die; 0.98 kept
#: a margin).  The round-7 networks, fine-tuned on trays, are less often that sure, so 0.98 sent more
#: dice to four looks; re-chosen for them on the dev photos and a seed-92 tray folder (never the held-out
#: photos or the bench's seed 91): 0.95 gave the same figures as 0.98 on both with 18 % and 12 % fewer
#: crops read (29.3 against 32.5 ms per dev photo); 0.9 lost a dev die.
SURE_AT_ONE_LOOK = 0.95


def read(img: np.ndarray, dets: list[tuple[tuple[float, float], float]],
         first_look: Sequence[np.ndarray | None] | None = None) -> np.ndarray:
    """Class probabilities (N x 7) for dice given as (centre, size).  ``first_look``: the first reader's
    probabilities at turn 0 where they were already taken (the scale search), else None."""
    sess = session(READER)
    if not dets:
        return np.zeros((0, CLASSES), np.float32)
    batch = np.stack([reader_crop(img, c, s) for c, s in dets])
    looks = list(first_look or ())
    known = [k for k, q in enumerate(looks) if q is not None]
    todo = [k for k in range(len(dets)) if k not in set(known)]
    p = np.zeros((len(dets), CLASSES), np.float32)
    if known:
        p[known] = np.stack([q for q in looks if q is not None])
    if todo:
        p[todo] = turned_probabilities(sess, batch[todo], turns=(0,))
    look = p.max(axis=1) < SURE_AT_ONE_LOOK
    if look.any():
        rest = range(1, TTA_TURNS)
        p[look] = (p[look] + len(rest) * turned_probabilities(sess, batch[look], turns=rest)) / TTA_TURNS
    unsure = p.max(axis=1) < SECOND_BELOW
    if unsure.any():
        p[unsure] = (p[unsure] + turned_probabilities(session(SECOND_READER), batch[unsure])) / 2
    return p


def turned_probabilities(sess: Any, batch: np.ndarray, turns: Sequence[int] = range(TTA_TURNS)) -> np.ndarray:
    """A classifier's probabilities (N x classes) for N square crops, each read at the given quarter
    ``turns`` and averaged (a die's value does not depend on its turn, so the mean is steadier than any
    one look)."""
    n = len(batch)
    x = reader_input(np.concatenate([np.rot90(batch, k, axes=(1, 2)) for k in turns]))
    logits: np.ndarray = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    logits = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    p = e / e.sum(axis=1, keepdims=True)
    mean: np.ndarray = p.reshape(len(turns), n, p.shape[1]).mean(axis=0)
    return mean
