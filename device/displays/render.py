"""Looking at screens without hardware: an OLED-like enlargement (PNG / animated GIF) and terminal text.

The GIF is what the demo hands to a person, so it should read like the real thing: lit pixels are small
square dots in the panel's colour with a dark gap between them, on a near-black glass inside a bezel, with
the player's name underneath.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: Colours of the enlarged panel (a common white-blue SSD1306 module).
LIT = (178, 226, 255)
GLOW = (22, 32, 40)  # the gap between lit neighbours: a faint glow, as on the glass
GLASS = (10, 12, 16)
BEZEL = (38, 40, 46)
LABEL = (200, 200, 200)


def oled_look(image: Image.Image, *, scale: int = 4, label: str | None = None) -> Image.Image:
    """A mode "1" frame enlarged ``scale`` times into an RGB picture of the panel."""
    if scale < 2:
        raise ValueError("scale must be 2 or more: the OLED look needs a gap between pixels")
    bits = np.asarray(image.convert("1"), dtype=bool)
    h, w = bits.shape
    dot = np.zeros((scale, scale), dtype=bool)
    dot[: scale - 1, : scale - 1] = True
    lit = np.kron(bits, dot)
    glow = np.kron(bits, ~dot)
    rgb = np.empty((h * scale, w * scale, 3), dtype=np.uint8)
    rgb[:] = GLASS
    rgb[glow] = GLOW
    rgb[lit] = LIT
    panel = Image.fromarray(rgb, "RGB")
    pad = 3 * scale
    label_h = 5 * scale if label else 0
    out = Image.new("RGB", (panel.width + 2 * pad, panel.height + 2 * pad + label_h), BEZEL)
    out.paste(panel, (pad, pad))
    if label:
        draw = ImageDraw.Draw(out)
        font = ImageFont.load_default(size=3 * scale)
        draw.text((out.width // 2, panel.height + 2 * pad + label_h // 2 - scale // 2), label, fill=LABEL,
                  font=font, anchor="mm")
    return out


def write_png(path: Any, image: Image.Image, *, scale: int = 4, label: str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    oled_look(image, scale=scale, label=label).save(path)
    return path


def write_gif(
    path: Any, frames: Sequence[Any], *, scale: int = 4, label: str | None = None, last_ms: int = 2000,
    min_ms: int = 40,
) -> Path:
    """An animated GIF of captured frames (objects with ``image`` and ``at`` seconds).  Each frame lasts
    until the next one was shown (at least ``min_ms``); the last one ``last_ms``.  Loops forever."""
    if not frames:
        raise ValueError(f"no frames were shown on this screen, so there is nothing to write to {path}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pictures = [oled_look(f.image, scale=scale, label=label) for f in frames]
    durations = [max(min_ms, int(round((b.at - a.at) * 1000))) for a, b in zip(frames, frames[1:])] + [last_ms]
    palette = [p.quantize(colors=16, method=Image.Quantize.MEDIANCUT) for p in pictures]
    palette[0].save(path, save_all=True, append_images=palette[1:], duration=durations, loop=0, disposal=1)
    return path


# -- terminal ---------------------------------------------------------------------------------------------

_HALF = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
# braille dot bits by (row, column) in a 2×4 cell
_BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def to_halfblocks(image: Image.Image) -> str:
    """One character per 1×2 pixels: a 128×64 screen is 128 columns × 32 lines."""
    bits = np.asarray(image.convert("1"), dtype=bool)
    if bits.shape[0] % 2:
        bits = np.vstack([bits, np.zeros((1, bits.shape[1]), dtype=bool)])
    lines = []
    for y in range(0, bits.shape[0], 2):
        top, bottom = bits[y], bits[y + 1]
        lines.append("".join(_HALF[(bool(t), bool(b))] for t, b in zip(top, bottom)))
    return "\n".join(lines)


def to_braille(image: Image.Image) -> str:
    """One braille character per 2×4 pixels: a 128×64 screen is 64 columns × 16 lines."""
    bits = np.asarray(image.convert("1"), dtype=bool)
    h, w = bits.shape
    bits = np.pad(bits, ((0, (-h) % 4), (0, (-w) % 2)))
    h, w = bits.shape
    codes = np.zeros((h // 4, w // 2), dtype=np.int32)
    for r in range(4):
        for c in range(2):
            codes |= bits[r::4, c::2].astype(np.int32) * _BRAILLE_BITS[r][c]
    return "\n".join("".join(chr(0x2800 + int(v)) for v in row) for row in codes)


def to_text(image: Image.Image, style: str = "braille") -> str:
    if style == "braille":
        return to_braille(image)
    if style in ("halfblock", "halfblocks"):
        return to_halfblocks(image)
    raise ValueError(f"terminal style {style!r} is unknown; allowed: braille, halfblock")


def compose_terminal(frames: Mapping[str, Image.Image], *, style: str = "braille", columns: int = 2,
                     width: int | None = None) -> str:
    """Several players' screens side by side, each framed and titled, ``columns`` per row; with ``width``
    (the terminal's columns) as many per row as fit in it, at most ``columns`` and at least one.

    ``style``: ``"halfblock"`` (▀▄█, one character per 1×2 pixels: a 128×64 screen is 128×32 characters,
    legible in any common monospace font) or ``"braille"`` (2×4 pixels a character: 64×16, compact, but
    many terminal fonts draw braille dots too small or unevenly spaced to read)."""
    boxes = []
    for player, image in frames.items():
        body = to_text(image, style).split("\n")
        inner = max(len(line) for line in body)
        title = f" {player} "[:inner]
        top = "┌" + title + "─" * (inner - len(title)) + "┐"
        boxes.append([top] + ["│" + line.ljust(inner) + "│" for line in body] + ["└" + "─" * inner + "┘"])
    columns = max(1, columns)
    if width is not None and boxes:
        box = max(len(b[0]) for b in boxes)
        columns = max(1, min(columns, (width + 1) // (box + 1)))
    rows = []
    for i in range(0, len(boxes), columns):
        group = boxes[i : i + columns]
        height = max(len(b) for b in group)
        for line in range(height):
            rows.append(" ".join(b[line] if line < len(b) else " " * len(b[0]) for b in group))
    return "\n".join(rows)
