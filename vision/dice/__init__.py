"""Reading the dice on the table: standard d6 pips, and custom faces the owner has taught.

``read_dice(image)`` reads d6 with two small networks (:mod:`vision.dice.net`): a detector finds every
die, a reader gives each its value or ``None`` (see ``_read_learned`` and the thresholds below).  On the
real photos this finds and reads far more dice than the classical reader (vision/dice/README.md has
the figures), which stays as the reader when the weights are absent (``LEARNED`` off, or no
onnxruntime).

The classical reader reads pips (see :mod:`vision.dice.pips` for the method and why it was chosen), and
reads dice die-first as well: square bodies against the table with their pips inside
(:mod:`vision.dice.bodies`; what makes small dice on a tray mat readable).  Pip-first faces whose body
does not differ from the table around them are dropped (a textured mat's spots that line up like pips).
Then a small CNN checks each proposed die and may veto a reading or fill in one the pips could not give
(see :mod:`vision.dice.verifier` for why and how conservatively; die-first readings it may veto only when
all but certain, see ``BODY_VETO_P``);
``read_dice(image, die="skid", library=lib)`` reads taught faces (see :mod:`vision.dice.faces`).  Both
return :class:`DieReading` values in the input image's pixel coordinates.  A die that is seen but cannot be
read with confidence is returned with ``value=None``; the reader never guesses.

Pure functions of images: no camera, no files, no clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from vision.dice import net, verifier
from vision.dice.bodies import read_blob
from vision.dice.faces import (FaceLibrary, TableContrast, _as_bgr, find_die_blobs_and_contrast,
                               find_die_blobs_border)
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
#: ... for a pip-first 1: a lone spot has no layout to check (the weakest pip evidence, as for
#: BODY_ONE_VETO_P), so it stands only if the network gives it at least even odds (round 3, dev split).
ONE_AGREE_MIN = 0.5
#: a face whose pips fit a d6 layout is dropped as "not a die" only when the network is this sure;
DROP_P = 0.99
#: network probability needed to give a value the pips could not (a null face or a weak pip group);
#: 0.95 before the die-first reading and the table test changed which weak groups reach the network.
FILL_P = 0.96
#: ... and to give a value to a square blob in which no pips were found at all (as before: 0.95).
BLOB_FILL_P = 0.95
#: network probability of another answer needed to turn a die-first reading into None: all but certain
#: (on the synthetic tables the network called clear 5s "4" at up to 0.9985); for a die-first 1 (one
#: spot, no layout to check) a sure network is enough.
BODY_VETO_P = 0.9995
BODY_ONE_VETO_P = 0.9
#: Propose the mat blobs (find_die_blobs) to the verifier instead of the border-colour blobs.
PROPOSE_FROM_MAT_BLOBS = False
#: ... and the mat blobs as well, where no other proposal lies (round 3: dice touching each other or a
#: tray wall are often found by only one of the two blob finders).  The verifier has seen such crops:
#: it was trained on crops at the labelled boxes of whole dice, which is what a mat blob on a die is.
PROPOSE_MAT_BLOBS_TOO = True
#: Read d6 with the learned detector and reader (vision/dice/net.py) when their weights are present;
#: the classical reader below (pips, bodies, verifier) is used when they are not.
LEARNED = True
#: (The least detector peak for a die is ``net.DETECT_P``.)  Least reader probability for a value; below
#: it the die is reported with value None.  Set on the dev photos and rendered validation frames, see
#: vision/dice/README.md.
READ_P = 0.5
#: Reader probability of "not a die's top face" for a detection to be dropped.
NOT_A_DIE_P = 0.5
#: Use the learned verifier when its weights are present (tests switch it off to test the pips alone).
USE_VERIFIER = True
#: Also propose square blobs against the table (dice whose pips were not found) to the verifier.
BLOB_PROPOSALS = True
#: Also read dice die-first: square body against the table, pips inside it (vision/dice/bodies.py).
BODY_READ = True
#: Least median difference from the local table colour on a pip-first face (0: no test).
TABLE_MIN = 9


def _body_reads(img: np.ndarray, faces: list[FaceRead], blobs: list) -> list[FaceRead]:
    """Merge die-first readings (:mod:`vision.dice.bodies`) into the pip-first faces.

    A die body read with a value where the pip reader found no face, only a weak proposal, or a face
    without a value: the body reading is used.  Same value: kept.  Different values: the body reading is
    used (on the synthetic tables every disagreement was a pip the pip-first reader missed; on the real
    photos the two never disagreed).  A blob holding more than one pip-first face, or one whose face is
    off the body's centre (a die seen at a slant), is left to the pip-first reader."""
    out = list(faces)
    for b in blobs:
        x0, y0, x1, y1 = b.box
        inside = [i for i, f in enumerate(out) if x0 <= f.center[0] <= x1 and y0 <= f.center[1] <= y1]
        strong = [i for i in inside if not out[i].weak]
        if len(strong) > 1:
            continue
        bf = read_blob(img, b)
        if bf is None:
            continue
        if strong:
            i = strong[0]
            if math.hypot(out[i].center[0] - bf.center[0], out[i].center[1] - bf.center[1]) > 0.3 * b.side:
                continue  # not the same face: a die seen at a slant (top and side), leave it to the pips
            if out[i].value != bf.value:
                # The pip-first reader's usual mistake is a pip it did not see (a 6 read as a 3); the
                # die-first reading has every pip of the die inside the die's body, in an exact layout.
                out[i] = bf
            else:
                out[i] = replace(out[i], confidence=max(out[i].confidence, bf.confidence), body=True)
            continue
        out = [f for j, f in enumerate(out) if j not in inside]
        out.append(bf)
    # weak proposals on a die read die-first are that die
    read = [f for f in out if f.body]
    return [f for f in out if not (f.weak and any(math.hypot(f.center[0] - r.center[0], f.center[1] - r.center[1])
                                                  < 1.2 * r.half for r in read))]


def _on_table(faces: list[FaceRead], contrast: TableContrast) -> list[FaceRead]:
    """Drop pip-first faces whose "body" does not differ from the table around it: spots of a textured
    mat that happen to line up like pips.  A die's body always differs from the table it lies on (or it
    could not be seen either); dice read die-first are not tested (they were found that way)."""
    out = []
    for f in faces:
        if not f.body and contrast.around(f.center[0], f.center[1], 0.6 * f.half) < TABLE_MIN:
            continue
        out.append(f)
    return out


def _blob_proposals(img: np.ndarray, faces: list[FaceRead], blobs: list | None = None) -> list[FaceRead]:
    """Dice found as square blobs against the table (no pips needed), where no face was found: weak
    proposals that only the verifier can turn into readings."""
    out: list[FaceRead] = []
    for b in (blobs if blobs is not None else find_die_blobs_border(img, min_side=14, max_side=120)):
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
            if k >= 1 and pk >= (FILL_P if f.n > 0 else BLOB_FILL_P):
                out.append(replace(f, value=k, confidence=pk * 0.9, weak=False))
            continue
        if f.body:
            # read die-first: the die's body and every pip in an exact layout were seen.  The network
            # (trained on two photo collections) mistakes such dice from other tables, e.g. a 5 for a 4
            # on the synthetic tables, so here it only decides when it is all but certain.
            # A lone pip is the weakest die-first evidence (no layout to check; a white die on a white
            # tray may be found only in part), so a 1 yields to a sure network.
            if k != f.value and pk >= (BODY_ONE_VETO_P if f.value == 1 else BODY_VETO_P):
                f = replace(f, value=None, confidence=0.0)
            out.append(f)
            continue
        if k == 0 and pk >= (DROP_P if f.value is not None else VETO_P):
            continue  # not a die's top face
        if f.value is not None:
            agree_min = ONE_AGREE_MIN if f.value == 1 else AGREE_MIN
            if (k != f.value and pk >= VETO_P) or float(p[f.value]) < agree_min:
                f = replace(f, value=None, confidence=0.0)
            else:
                f = replace(f, confidence=float(min(f.confidence, 0.5 + 0.5 * float(p[f.value]))))
        elif k >= 1 and pk >= FILL_P:
            f = replace(f, value=k, confidence=pk * 0.9)
        out.append(f)
    return out


def _read_learned(img: np.ndarray) -> list[DieReading]:
    """d6 by the learned detector and reader (:mod:`vision.dice.net`): every detected die is reported;
    with its value when the reader gives that value at least ``READ_P``, with ``None`` otherwise, and
    not at all when the reader says "not a die's top face" at least ``NOT_A_DIE_P``."""
    h, w = img.shape[:2]
    dets = net.detect(img)
    out: list[DieReading] = []
    for d, p in zip(dets, net.read(img, [(d.center, d.size) for d in dets])):
        k = int(np.argmax(p))
        if k == 0 and p[0] >= NOT_A_DIE_P:
            continue
        value = k if k > 0 and p[k] >= READ_P else None
        # a die cut by the image edge may have its centre just outside: keep it on the image
        cx, cy = min(max(d.center[0], 0.0), w - 1.0), min(max(d.center[1], 0.0), h - 1.0)
        r = max(d.size / 2, 1.0)
        box = (max(0, int(cx - r)), max(0, int(cy - r)), min(w, int(math.ceil(cx + r))),
               min(h, int(math.ceil(cy + r))))
        out.append(DieReading(value, box, (cx, cy), float(p[k]) if value is not None else 0.0))
    return out


def read_dice(image: np.ndarray, *, die: str = D6, library: FaceLibrary | None = None) -> list[DieReading]:
    """Every die in a BGR uint8 image.  ``die="d6"`` reads standard pip dice (the learned reader, or the
    classical one without its weights); any other name reads the faces taught for that die in ``library``
    (required then).  Raises ``ValueError`` for an unusable image or an unknown
    die."""
    img = _as_bgr(image)
    h, w = img.shape[:2]
    if h < 16 or w < 16:
        raise ValueError(f"image of {w}x{h} pixels is too small to read dice from")
    out: list[DieReading] = []
    if die == D6 and LEARNED and net.available():
        return _read_learned(img)
    if die == D6:
        use_net = USE_VERIFIER and verifier.available()
        faces = read_faces(img, weak=use_net)
        blobs, contrast = find_die_blobs_and_contrast(img, min_side=14, max_side=120)
        if BODY_READ:
            faces = _body_reads(img, faces, blobs)
        if TABLE_MIN > 0:
            faces = _on_table(faces, contrast)
        if use_net and BLOB_PROPOSALS:
            faces += _blob_proposals(img, faces, blobs if PROPOSE_FROM_MAT_BLOBS else None)
            if PROPOSE_MAT_BLOBS_TOO and not PROPOSE_FROM_MAT_BLOBS:
                faces += _blob_proposals(img, faces, blobs)
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
