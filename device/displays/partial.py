"""Send only what changed: the 1-bit frame is packed into controller pages and diffed with the last frame
that reached the screen.

SSD1306/SSD1309 RAM is 8 pages of 8 rows × 128 columns; one data byte is one column of one page (bit 0 =
top row).  luma leaves the controller in horizontal addressing mode, so after ``COLUMNADDR c0 c1`` and
``PAGEADDR p0 p1`` the data bytes fill that rectangle page by page: an update is a few windows, each costing
6 command bytes plus its area.  The windows are chosen by a tiny dynamic programme over the changed pages
(merge neighbouring pages into one window when that is cheaper than paying the 6 bytes again).

SH1106 has no window: each page is addressed on its own (``0xB0|page``, low and high column nibble) and its
RAM is 132 columns wide with the visible 128 starting at column 2.  An update there is one
``page + column`` command (3 bytes) and the changed column run of each changed page.

Anything that goes wrong on the bus makes the last frame unknown, so the next update is a full frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
from PIL import Image

SSD1306_COLUMNADDR = 0x21
SSD1306_PAGEADDR = 0x22
SH1106_SETPAGE = 0xB0
SH1106_LOWCOLUMN = 0x00
SH1106_HIGHCOLUMN = 0x10


class Addressing(str, Enum):
    """How the controller is told where data goes."""

    WINDOW = "window"  # SSD1306, SSD1309: column/page window + horizontal auto-increment
    PAGE = "page"  # SH1106: page + column per page


@dataclass(frozen=True)
class Window:
    """Pages ``p0..p1`` and columns ``c0..c1`` (inclusive) of the frame."""

    p0: int
    p1: int
    c0: int
    c1: int

    @property
    def area(self) -> int:
        return (self.p1 - self.p0 + 1) * (self.c1 - self.c0 + 1)


def pack_pages(image: Image.Image) -> np.ndarray:
    """A mode "1" image (height a multiple of 8) → ``uint8[pages, width]``, bit r of a byte = row 8p+r."""
    if image.mode != "1":
        raise ValueError(f"screens take mode '1' images (1 bit per pixel), got mode {image.mode!r}")
    w, h = image.size
    if h % 8:
        raise ValueError(f"image height {h} is not a whole number of 8-row pages")
    bits = np.asarray(image, dtype=bool).reshape(h // 8, 8, w).transpose(0, 2, 1)
    return np.packbits(bits, axis=-1, bitorder="little")[..., 0]


def changed_runs(old: np.ndarray, new: np.ndarray) -> dict[int, tuple[int, int]]:
    """Page → (first, last) changed column."""
    out: dict[int, tuple[int, int]] = {}
    diff = old != new
    for page in np.flatnonzero(diff.any(axis=1)):
        cols = np.flatnonzero(diff[page])
        out[int(page)] = (int(cols[0]), int(cols[-1]))
    return out


def plan_windows(runs: dict[int, tuple[int, int]], *, command_cost: int = 6) -> list[Window]:
    """The cheapest cover of the changed runs by windows over consecutive changed pages.

    ``best[k]`` is the cheapest cover of the first ``k`` changed pages; the last window covers changed pages
    ``j..k-1`` (and the unchanged pages between them, which are resent unchanged).
    """
    pages = sorted(runs)
    n = len(pages)
    none: list[Window] = []
    best: list[tuple[int, list[Window]]] = [(0, none)] + [(1 << 30, none)] * n
    for k in range(1, n + 1):
        lo, hi = 1 << 30, -1
        for j in range(k - 1, -1, -1):
            lo = min(lo, runs[pages[j]][0])
            hi = max(hi, runs[pages[j]][1])
            w = Window(pages[j], pages[k - 1], lo, hi)
            cost = best[j][0] + command_cost + w.area
            if cost < best[k][0]:
                best[k] = (cost, best[j][1] + [w])
    return best[n][1]


class PartialUpdater:
    """Drives a luma device (its ``command``/``data`` and ``preprocess``) with only the changed bytes.

    ``display(image)`` is luma's call shape: the image is in the caller's orientation and is rotated by the
    device's own ``preprocess``.  ``column_offset`` is where visible column 0 sits in controller RAM (2 on
    SH1106 modules, 0 on SSD1306).
    """

    def __init__(self, device: Any, addressing: Addressing, *, column_offset: int = 0) -> None:
        self.device = device
        self.addressing = addressing
        self.column_offset = column_offset
        self._last: np.ndarray | None = None

    def invalidate(self) -> None:
        """Forget what the controller shows: the next ``display`` sends the whole frame."""
        self._last = None

    @property
    def last_frame(self) -> np.ndarray | None:
        return None if self._last is None else self._last.copy()

    def display(self, image: Image.Image) -> list[Window]:
        """Send what differs from the last frame; returns the windows sent (empty: nothing changed)."""
        if image.size != tuple(self.device.size):
            raise ValueError(
                f"image is {image.size[0]}x{image.size[1]} but this screen takes "
                f"{self.device.size[0]}x{self.device.size[1]} (rotate 1 and 3 turn 128x64 into 64x128)"
            )
        if image.mode != "1":
            image = image.convert("1")
        frame = pack_pages(self.device.preprocess(image))
        if self._last is None or self._last.shape != frame.shape:
            pages, width = frame.shape
            windows = [Window(0, pages - 1, 0, width - 1)]
        elif self.addressing is Addressing.WINDOW:
            windows = plan_windows(changed_runs(self._last, frame))
        else:
            windows = [Window(p, p, c0, c1) for p, (c0, c1) in sorted(changed_runs(self._last, frame).items())]
        self._last = None  # unknown until every transfer went through
        self._send(frame, windows)
        self._last = frame
        return windows

    def _send(self, frame: np.ndarray, windows: Sequence[Window]) -> None:
        dev = self.device
        for w in windows:
            block = frame[w.p0 : w.p1 + 1, w.c0 : w.c1 + 1]
            if self.addressing is Addressing.WINDOW:
                dev.command(
                    SSD1306_COLUMNADDR, w.c0 + self.column_offset, w.c1 + self.column_offset,
                    SSD1306_PAGEADDR, w.p0, w.p1,
                )
                dev.data(block.tobytes())
            else:
                col = w.c0 + self.column_offset
                for i, page in enumerate(range(w.p0, w.p1 + 1)):
                    dev.command(SH1106_SETPAGE | page, SH1106_LOWCOLUMN | (col & 0x0F), SH1106_HIGHCOLUMN | (col >> 4))
                    dev.data(block[i].tobytes())
