"""Scoring dice readings against labelled boxes (the rules of ``pitboard bench dice``), and the dev /
held-out split of a labelled folder.

Matching rule (from the issue): a reported die matches a labelled one when its centre lies inside the
labelled box.  Each label is matched at most once: when a centre lies in several boxes the nearest box
centre wins, and a second report landing in an already matched box is counted as a *duplicate* (neither
correct nor a false die, but it does count against precision if it carries a value).

Split: an image is held out when ``crc32(file name) % 5 == 0`` (about 20 %).  A hash of the name, not a
random draw, so the split is the same on every machine and for files added later.

A label of value 0 is a die whose honest reading is **null** (leaning on a tray wall, half hidden, moving:
``tools/dice_training/tray.py`` writes them): a null reading of it counts as correct, any value as wrong.
The photo collections have no such labels.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from vision.dice import DieReading


@dataclass(frozen=True)
class Label:
    box: tuple[int, int, int, int]
    value: int  # 1..6, or 0: the honest reading is null


def fold(name: str) -> int:
    """0..4 from a hash of the file name; fold 0 is the held-out split."""
    return zlib.crc32(name.encode("utf-8")) % 5


def is_held_out(name: str) -> bool:
    return fold(name) == 0


#: What :func:`match` says of a reading that lies in no labelled box, or only in boxes already matched.
FALSE_DIE, DUPLICATE = -1, -2


def match(boxes: Sequence[tuple[int, int, int, int]], readings: Iterable[DieReading]) -> list[tuple[DieReading, int]]:
    """Each reading with the index of the box it reads by the module's matching rule, or ``FALSE_DIE`` /
    ``DUPLICATE``."""
    used: set[int] = set()
    out: list[tuple[DieReading, int]] = []
    for r in readings:
        cx, cy = r.center
        inside = [i for i, b in enumerate(boxes) if b[0] <= cx <= b[2] and b[1] <= cy <= b[3]]
        free = [i for i in inside if i not in used]
        if not inside or not free:
            out.append((r, FALSE_DIE if not inside else DUPLICATE))
            continue
        i = min(free, key=lambda k: (cx - (boxes[k][0] + boxes[k][2]) / 2) ** 2
                + (cy - (boxes[k][1] + boxes[k][3]) / 2) ** 2)
        used.add(i)
        out.append((r, i))
    return out


@dataclass
class Tally:
    images: int = 0
    labelled: int = 0
    correct: int = 0
    wrong: int = 0
    unreadable: int = 0  # matched a label 1..6, value None
    honest_null: int = 0  # matched a label 0 (leaning, hidden, moving), value None: counted correct
    matched: int = 0
    false_dice: int = 0
    duplicates: int = 0
    reported_with_value: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    peak_bytes: int = 0
    #: Labelled dice whose box's longer side is under this many pixels are also counted apart (0: not), so a
    #: bench says how many dice were too small to read well and how the others read.
    floor_px: float = 0.0
    under_floor: int = 0
    under_floor_correct: int = 0

    def add_image(self, labels: Sequence[Label], readings: Iterable[DieReading], ms: float, peak_bytes: int = 0,
                  cpu_ms: float | None = None) -> None:
        self.images += 1
        self.labelled += len(labels)
        self.ms.append(ms)
        if cpu_ms is not None:
            self.cpu_ms.append(cpu_ms)
        self.peak_bytes = max(self.peak_bytes, peak_bytes)
        right: set[int] = set()
        for r, i in match([lab.box for lab in labels], readings):
            if r.value is not None:
                self.reported_with_value += 1
            if i == FALSE_DIE:
                self.false_dice += 1
                continue
            if i == DUPLICATE:
                self.duplicates += 1
                continue
            self.matched += 1
            if r.value is None and labels[i].value == 0:
                self.honest_null += 1
                self.correct += 1
                right.add(i)
            elif r.value is None:
                self.unreadable += 1
            elif r.value == labels[i].value:
                self.correct += 1
                right.add(i)
            else:
                self.wrong += 1
        small = [i for i, lab in enumerate(labels)
                 if max(lab.box[2] - lab.box[0], lab.box[3] - lab.box[1]) < self.floor_px]
        self.under_floor += len(small)
        self.under_floor_correct += len(right.intersection(small))

    def figures(self) -> dict[str, Any]:
        ms = np.array(self.ms) if self.ms else np.zeros(1)
        lab = max(1, self.labelled)
        return {
            "images": self.images,
            "labelled_dice": self.labelled,
            "accuracy": round(self.correct / lab, 4),
            "precision": round((self.correct - self.honest_null) / max(1, self.reported_with_value), 4),
            "recall": round(self.matched / lab, 4),
            "correct": self.correct,
            "wrong": self.wrong,
            "unreadable": self.unreadable,
            **({"honest_null": self.honest_null} if self.honest_null else {}),
            "false_dice": self.false_dice,
            "false_dice_rate": round(self.false_dice / lab, 4),
            "duplicates": self.duplicates,
            "median_ms": round(float(np.median(ms)), 2),
            "p95_ms": round(float(np.percentile(ms, 95)), 2),
            "peak_memory_mb": round(self.peak_bytes / 1e6, 2),
            **({"median_cpu_ms": round(float(np.median(self.cpu_ms)), 2),
                "p95_cpu_ms": round(float(np.percentile(self.cpu_ms, 95)), 2)} if self.cpu_ms else {}),
            **({"size_floor": self.size_floor()} if self.floor_px else {}),
        }

    def size_floor(self) -> dict[str, Any]:
        """The dice under ``floor_px`` (their labelled box's longer side) and the accuracy of each side of it: a
        scale whose dice are mostly under the floor reads worse because they are too small, not because of it."""
        over = self.labelled - self.under_floor
        return {"floor_px": self.floor_px, "dice_under": self.under_floor,
                "accuracy_under": round(self.under_floor_correct / self.under_floor, 4) if self.under_floor else None,
                "accuracy_at_least": round((self.correct - self.under_floor_correct) / over, 4) if over else None}
