"""A small learned check on each face the pip reader found: "is this the top face of a die, and which?"

Why: the classical reader (``vision.dice.pips``) is exact when it sees every pip, but on marbled,
translucent and glossy dice it sometimes misses a pip or links pips of two dice.  Its answer then is
either ``None`` (it knows) or, rarely, a wrong value (it does not know).  A tiny CNN looking at the
whole die crop is good at exactly the things pip-by-pip logic is bad at (a faint pip under glare, the
shape of the die), and bad at what the logic is good at (exact geometry).  So the two are combined
conservatively:

* classical value and network agree → reported;
* classical value, network sure (≥ 0.8) of a different value or of "not a die face", or giving the
  classical value almost no chance (< 0.05) → reported as ``None``, never replaced by the network's
  guess; dropped only if the network is all but certain (≥ 0.99) that it is not a die;
* classical ``None``, network very sure (≥ 0.95) of a value → the network's value;
* weak proposals (pip groups that failed the layout checks, square blobs against the table with no pips
  found) → reported only when the network is that sure of a value, otherwise not at all.

The network (``verifier.onnx``, ~0.3 MB) runs through onnxruntime on one thread; it is trained by
``vision/dice/train_verifier.py`` on the dev split of the real photos only (held-out images never seen)
plus synthetic renders.  If the weights file or onnxruntime is missing, the reader runs without it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.dice.net import reader_input, session, square_crop, turned_probabilities

#: Side of the network's input crop, pixels.
SIZE = 32
#: Crop side as a multiple of the face's estimated half side.
CROP_SCALE = 2.4
WEIGHTS = Path(__file__).with_name("verifier.onnx")
#: Class 0 is "not the top face of a die"; classes 1..6 are the values.
CLASSES = 7
#: Test-time turns averaged per crop.
TTA_TURNS = 1


def crop(img: np.ndarray, center: tuple[float, float], half: float, angle: float = 0.0,
         scale: float = 1.0) -> np.ndarray:
    """The network's input for a face at ``center`` with half side ``half``: a SIZE x SIZE BGR crop,
    optionally turned by ``angle`` degrees and zoomed by ``scale`` (used for training augmentation)."""
    return square_crop(img, center, CROP_SCALE * half * scale, SIZE, angle)


#: N x SIZE x SIZE x 3 uint8 → N x 3 x SIZE x SIZE float32, each crop to zero mean and unit spread.
normalise = reader_input


def available() -> bool:
    return session(WEIGHTS) is not None


def probabilities(img: np.ndarray, faces: list[tuple[tuple[float, float], float]]) -> np.ndarray | None:
    """Class probabilities (N x 7) for faces given as (center, half); None when the network is not
    available."""
    sess = session(WEIGHTS)
    if sess is None or not faces:
        return None
    return turned_probabilities(sess, np.stack([crop(img, c, h) for c, h in faces]), range(TTA_TURNS))

