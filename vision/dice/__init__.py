"""Reading the dice on the table: standard d6 pips, and custom faces the owner has taught.

``read_dice(image)`` reads pips (see :mod:`vision.dice.pips` for the method and why it was chosen),
then a small CNN checks each proposed die and may veto a reading or fill in one the pips could not give
(see :mod:`vision.dice.verifier` for why and how conservatively);
``read_dice(image, die="skid", library=lib)`` reads taught faces (see :mod:`vision.dice.faces`).  Both
return :class:`DieReading` values in the input image's pixel coordinates.  A die that is seen but cannot be
read with confidence is returned with ``value=None``; the reader never guesses.

Pure functions of images: no camera, no files, no clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from vision.dice import verifier
from vision.dice.faces import FaceLibrary, _as_bgr, find_die_blobs
from vision.dice.pips import FaceRead, read_faces

__all__ = ["DieReading", "FaceLibrary", "read_dice", "D6"]

#: Name of the standard pip die.
D6 = "d6"


@dataclass(frozen=True)
class DieReading:
    """One die as the camera read it.

    ``value``: 1..6 for a d6, the face name for a taught die, ``None`` when the die is seen but not read.
    ``box``: (x0, y0, x1, y1) around the die, input pixels.  ``center``: the centre of the face that is up.
    ``confidence``: 0..1, how well the face fits (0 when ``value`` is None).
    """

    value: int | str | None
    box: tuple[int, int, int, int]
    center: tuple[float, float]
    confidence: float

    def to_json(self) -> dict:
        return {"value": self.value, "box": list(self.box), "center": [round(self.center[0], 1),
                round(self.center[1], 1)], "confidence": round(self.confidence, 3)}


# How the verifier may act (set on the dev split; see vision/dice/verifier.py for the reasoning):
#: network probability of another answer needed to turn a pip reading into None;
VETO_P = 0.8
#: least network probability of the pips' own value for the reading to stand;
AGREE_MIN = 0.05
#: a face whose pips fit a d6 layout is dropped as "not a die" only when the network is this sure;
DROP_P = 0.99
#: network probability needed to give a value the pips could not (a null face or a weak proposal).
FILL_P = 0.95
#: Use the learned verifier when its weights are present (tests switch it off to test the pips alone).
USE_VERIFIER = True
#: Also propose square blobs against the table (dice whose pips were not found) to the verifier.
BLOB_PROPOSALS = True


def _blob_proposals(img: np.ndarray, faces: list[FaceRead]) -> list[FaceRead]:
    """Dice found as square blobs against the table (no pips needed), where no face was found: weak
    proposals that only the verifier can turn into readings."""
    out: list[FaceRead] = []
    for b in find_die_blobs(img, min_side=14, max_side=120):
        if all(math.hypot(b.center[0] - f.center[0], b.center[1] - f.center[1]) > max(f.half, b.side / 2)
               for f in faces + out):
            out.append(FaceRead(None, b.center, b.side / 2, 0.0, weak=True))
    return out


def _verified(img: np.ndarray, faces: list[FaceRead]) -> list[FaceRead]:
    """Combine pip reading and the verifier conservatively (see :mod:`vision.dice.verifier`)."""
    if not USE_VERIFIER or not faces:
        return faces
    probs = verifier.probabilities(img, [(f.center, f.half) for f in faces])
    if probs is None:
        return faces
    out: list[FaceRead] = []
    for f, p in zip(faces, probs):
        k = int(np.argmax(p))
        pk = float(p[k])
        if f.weak:
            # pips that failed the die checks: reported only if the network is sure of the value
            if k >= 1 and pk >= FILL_P:
                out.append(replace(f, value=k, confidence=pk * 0.9, weak=False))
            continue
        if k == 0 and pk >= (DROP_P if f.value is not None else VETO_P):
            continue  # not a die's top face
        if f.value is not None:
            if (k != f.value and pk >= VETO_P) or float(p[f.value]) < AGREE_MIN:
                f = replace(f, value=None, confidence=0.0)
            else:
                f = replace(f, confidence=float(min(f.confidence, 0.5 + 0.5 * float(p[f.value]))))
        elif k >= 1 and pk >= FILL_P:
            f = replace(f, value=k, confidence=pk * 0.9)
        out.append(f)
    return out


def read_dice(image: np.ndarray, *, die: str = D6, library: FaceLibrary | None = None) -> list[DieReading]:
    """Every die in a BGR uint8 image.  ``die="d6"`` reads pips; any other name reads the faces taught for
    that die in ``library`` (required then).  Raises ``ValueError`` for an unusable image or an unknown
    die."""
    img = _as_bgr(image)
    h, w = img.shape[:2]
    if h < 16 or w < 16:
        raise ValueError(f"image of {w}x{h} pixels is too small to read dice from")
    out: list[DieReading] = []
    if die == D6:
        use_net = USE_VERIFIER and verifier.available()
        faces = read_faces(img, weak=use_net)
        if use_net and BLOB_PROPOSALS:
            faces += _blob_proposals(img, faces)
        for f in _verified(img, faces):
            cx, cy = f.center
            box = (max(0, int(round(cx - f.half))), max(0, int(round(cy - f.half))),
                   min(w, int(round(cx + f.half))), min(h, int(round(cy + f.half))))
            out.append(DieReading(f.value, box, (cx, cy), f.confidence if f.value is not None else 0.0))
        return out
    if library is None:
        raise ValueError(f"die {die!r} is a custom die: pass the face library that was taught its faces")
    if die not in library.examples:
        known = ", ".join(library.dice()) or "none yet"
        raise ValueError(f"the face library has no die called {die!r} (taught dice: {known})")
    for m in library.read(img, die):
        conf = max(0.0, min(1.0, m.score)) if m.face is not None else 0.0
        out.append(DieReading(m.face, m.blob.box, m.blob.center, conf))
    return out
