"""Custom die faces taught by the owner (skid dice, Thunder Road FX dice, ...), recognised at any rotation.

How it works and why:

* **Finding the dice.**  Custom dice carry printed or engraved icons, not pips, so the pip reader cannot
  propose them.  A die is a compact, roughly square patch that differs from the table around it.  The
  table colour is estimated as the median of the image border (the tray fills the frame and dice are
  rarely on the edge); pixels far from it, closed morphologically, give blobs; a blob is a die when its
  minimum-area rectangle is nearly square and fills its rectangle.
* **Normalising the face.**  The die's minimum-area rectangle gives its rotation modulo 90 degrees, so
  each die is warped upright into a small square patch (the inner part of the face, away from the rounded
  edges).  The remaining ambiguity (which of the four sides is "up") is removed at matching time by
  comparing against all four 90-degree turns of each taught example.  Together this makes recognition
  invariant to any rotation on the table.
* **Matching.**  Patches are grey, contrast-normalised (zero mean, unit norm), so die colour and lighting
  level drop out; the score is the normalised correlation.  The nearest taught example wins if its score
  is high enough *and* clearly better than the best example of any other face; otherwise the die is
  reported with ``value=None`` (unsure is reported, never guessed).  Nearest-neighbour over a handful of
  examples needs no training run, which is what "the owner shows each face a few times" calls for.

The library is plain data: :meth:`FaceLibrary.to_dict` / :meth:`FaceLibrary.from_dict` give a JSON-able
dict (patches as base64 bytes).  Files are handled in ``device/dice_library_files.py``.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

#: Side of a normalised face patch, pixels.
PATCH = 24
#: Fraction of the die's side kept when cutting out the face (drops rounded edges and shading).
INNER = 0.78
#: Minimum correlation with the best example, and minimum lead over the best other face.
MIN_SCORE = 0.55
MIN_MARGIN = 0.08
FORMAT_VERSION = 1


@dataclass(frozen=True)
class DieBlob:
    """A die found by colour against the table: rotated rectangle and its axis-aligned box."""

    center: tuple[float, float]
    side: float
    angle: float  # degrees, as cv2.minAreaRect reports it
    box: tuple[int, int, int, int]


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ValueError("image must be a numpy uint8 array (BGR, as OpenCV loads it)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    raise ValueError(f"image must be HxW or HxWx3 (BGR); got shape {image.shape}")


def find_die_blobs(image: np.ndarray, min_side: int = 12, max_side: int | None = None) -> list[DieBlob]:
    """Square-ish blobs that differ from the table colour (see module doc)."""
    img = _as_bgr(image)
    h, w = img.shape[:2]
    if max_side is None:
        max_side = int(0.6 * min(h, w))
    b = max(2, min(h, w) // 40)
    border = np.concatenate([img[:b].reshape(-1, 3), img[-b:].reshape(-1, 3), img[:, :b].reshape(-1, 3),
                             img[:, -b:].reshape(-1, 3)])
    table = np.median(border, axis=0)
    blur = cv2.GaussianBlur(img, (5, 5), 0)
    diff = cv2.split(cv2.absdiff(blur, np.full_like(blur, table.astype(np.uint8))))
    # largest per-channel difference from the table colour (cheap, and as good as a colour distance here)
    dist = cv2.max(cv2.max(diff[0], diff[1]), diff[2])
    _, mask = cv2.threshold(dist, 32, 255, cv2.THRESH_BINARY)
    k = max(3, min_side // 4) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[DieBlob] = []
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < min_side * min_side * 0.6:
            continue
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
        side = (rw + rh) / 2
        if not (min_side <= side <= max_side) or min(rw, rh) < 0.8 * max(rw, rh):
            continue
        if area < 0.75 * rw * rh:
            continue
        x, y, bw, bh = cv2.boundingRect(cnt)
        out.append(DieBlob((float(cx), float(cy)), float(side), float(ang), (x, y, x + bw, y + bh)))
    return out


def face_patch(image: np.ndarray, blob: DieBlob) -> np.ndarray:
    """The die's face warped upright into a PATCH x PATCH grey patch (float32, zero mean, unit norm)."""
    img = _as_bgr(image)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    half = blob.side * INNER / 2
    a = math.radians(blob.angle)
    ux, uy = math.cos(a), math.sin(a)
    cx, cy = blob.center
    # source corners: top-left, top-right, bottom-left of the inner square in the die's own frame
    src = np.float32([
        [cx - half * ux + half * uy, cy - half * uy - half * ux],
        [cx + half * ux + half * uy, cy + half * uy - half * ux],
        [cx - half * ux - half * uy, cy - half * uy + half * ux],
    ])
    dst = np.float32([[0, 0], [PATCH, 0], [0, PATCH]])
    m = cv2.getAffineTransform(src, dst)
    patch = cv2.warpAffine(grey, m, (PATCH, PATCH), flags=cv2.INTER_AREA if blob.side * INNER > PATCH
                           else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _normalise(patch)


def _normalise(patch: np.ndarray) -> np.ndarray:
    p = patch.astype(np.float32)
    p -= p.mean()
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-6 else p


def _rotations(p: np.ndarray) -> list[np.ndarray]:
    return [np.rot90(p, k) for k in range(4)]


@dataclass(frozen=True)
class FaceMatch:
    face: str | None
    score: float
    margin: float
    blob: DieBlob


@dataclass
class FaceLibrary:
    """Taught faces: ``examples[die][face]`` is a list of normalised patches (see module doc)."""

    examples: dict[str, dict[str, list[np.ndarray]]] = field(default_factory=dict)

    def dice(self) -> list[str]:
        return sorted(self.examples)

    def faces(self, die: str) -> list[str]:
        return sorted(self.examples.get(die, {}))

    def teach(self, die: str, face: str, image: np.ndarray) -> int:
        """Add examples of ``face`` of ``die`` from an image showing one or more dice with that face up
        (or a crop of one die).  Returns how many examples were added."""
        die, face = _name(die, "die"), _name(face, "face")
        img = _as_bgr(image)
        blobs = find_die_blobs(img)
        if not blobs:
            h, w = img.shape[:2]
            if min(h, w) < 8:
                raise ValueError(f"image of {w}x{h} pixels is too small to hold a die face")
            # A crop: the die fills the image, so take its middle.
            s = min(h, w)
            blobs = [DieBlob((w / 2, h / 2), float(s), 0.0, (0, 0, w, h))]
        store = self.examples.setdefault(die, {}).setdefault(face, [])
        for b in blobs:
            store.append(face_patch(img, b))
        return len(blobs)

    def forget(self, die: str, face: str | None = None) -> None:
        if die not in self.examples:
            raise KeyError(f"no die called {die!r} in the face library")
        if face is None:
            del self.examples[die]
        else:
            self.examples[die].pop(face, None)
            if not self.examples[die]:
                del self.examples[die]

    def match(self, die: str, patch: np.ndarray, blob: DieBlob) -> FaceMatch:
        """Best face for one normalised patch, with its score and its lead over the other faces."""
        faces = self.examples.get(die)
        if not faces:
            raise KeyError(f"the face library has no die called {die!r}; teach it first")
        best: dict[str, float] = {}
        for face, pats in faces.items():
            s = -1.0
            for ex in pats:
                for rot in _rotations(ex):
                    s = max(s, float((rot * patch).sum()))
            best[face] = s
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        top_face, top = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else -1.0
        margin = top - second
        ok = top >= MIN_SCORE and (len(ranked) == 1 or margin >= MIN_MARGIN)
        return FaceMatch(top_face if ok else None, top, margin, blob)

    def read(self, image: np.ndarray, die: str) -> list[FaceMatch]:
        """Every die found in ``image``, matched against the taught faces of ``die``."""
        if die not in self.examples:
            raise KeyError(f"the face library has no die called {die!r}; teach it first")
        img = _as_bgr(image)
        return [self.match(die, face_patch(img, b), b) for b in find_die_blobs(img)]

    # -- (de)serialisation ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        dice: dict[str, dict[str, list[str]]] = {}
        for die, faces in self.examples.items():
            dice[die] = {}
            for face, pats in faces.items():
                dice[die][face] = [base64.b64encode(_to_bytes(p)).decode("ascii") for p in pats]
        return {"format": "pitboard-faces", "version": FORMAT_VERSION, "patch": PATCH, "dice": dice}

    @classmethod
    def from_dict(cls, data: object) -> "FaceLibrary":
        """Inverse of :meth:`to_dict`.  Raises ``ValueError`` saying what is wrong."""
        if not isinstance(data, dict) or data.get("format") != "pitboard-faces":
            raise ValueError("not a Pitboard face library (missing \"format\": \"pitboard-faces\")")
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"face library version {data.get('version')!r} is not supported "
                             f"(this Pitboard reads version {FORMAT_VERSION})")
        if data.get("patch") != PATCH:
            raise ValueError(f"face library patch size {data.get('patch')!r} does not match {PATCH}")
        dice = data.get("dice")
        if not isinstance(dice, dict):
            raise ValueError("face library has no \"dice\" table")
        lib = cls()
        for die, faces in dice.items():
            if not isinstance(faces, dict):
                raise ValueError(f"die {die!r}: faces must be a table of face name -> examples")
            for face, pats in faces.items():
                if not isinstance(pats, list):
                    raise ValueError(f"die {die!r} face {face!r}: examples must be a list")
                out = []
                for i, s in enumerate(pats):
                    try:
                        raw = base64.b64decode(s, validate=True)
                    except (ValueError, TypeError) as exc:
                        raise ValueError(f"die {die!r} face {face!r} example {i}: not base64") from exc
                    if len(raw) != PATCH * PATCH:
                        raise ValueError(f"die {die!r} face {face!r} example {i}: wrong size")
                    out.append(_normalise(np.frombuffer(raw, dtype=np.uint8).reshape(PATCH, PATCH)))
                lib.examples.setdefault(str(die), {})[str(face)] = out
        return lib


def _to_bytes(p: np.ndarray) -> bytes:
    """Store a normalised patch as 8-bit grey (its scale and offset are irrelevant after normalising)."""
    lo, hi = float(p.min()), float(p.max())
    q = np.zeros_like(p) if hi - lo < 1e-9 else (p - lo) / (hi - lo) * 255.0
    return np.clip(np.rint(q), 0, 255).astype(np.uint8).tobytes()


def _name(s: str, what: str) -> str:
    if not isinstance(s, str) or not s.strip():
        raise ValueError(f"{what} name must be a non-empty string")
    return s.strip()
