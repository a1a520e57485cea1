"""Drawing helpers every dashboard shares (128×64, mode "1", white = lit).

Kept deliberately small and stable — other games' dashboards use it:

``canvas()``, ``font(size)``, ``text_width(text, size)``, ``fit_text(draw, box, text, ...)``,
``bar(draw, box, value, maximum)``, ``pips(draw, x, y, count, ...)``, ``banner(draw, box, title, text,
blink_on=...)``, ``flag(draw, x, y)``, ``triangle(draw, x, y, h)``.

Fonts are Pillow's bundled default (``load_default(size)``), so rendering is the same on every machine with
this Pillow, which the golden-image tests rely on.  Glyphs are drawn without antialiasing on a 1-bit image;
big numbers use a 1-pixel stroke so they stay bold enough at arm's length.  Small numbers are drawn with
:func:`pixel_text`, a 5×7 pixel font, or in text whose 6 and 9 :func:`font` redraws: the bundled font's 6, 8
and 9 merge below 14 px on a 1-bit screen.  Below 10 px its "!" is a solid stroke (an "I"); :func:`font`
parts its dot from its stem wherever a text has one, draws a 9 px "›" as a chevron and a 9 px "·" as a dot (not
its "-"), moves a ":" off the letter it touches, widens a 9-11 px space narrower than :data:`WORD_GAP`, and keeps
a dark column between a digit and the ")" after it where the font runs them together.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    import numpy as np

WIDTH, HEIGHT = 128, 64
ON, OFF = 1, 0


def canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A blank (all dark) 128×64 mode "1" image and a drawer on it."""
    image = Image.new("1", (WIDTH, HEIGHT), OFF)
    return image, ImageDraw.Draw(image)


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels (cached), its 6 and 9 redrawn where a 1-bit screen makes
    them an 8 (:data:`CLEARER_DIGITS`)."""
    base = ImageFont.load_default(size=size)
    fixes = _clearer_digits(base, size) if isinstance(base, ImageFont.FreeTypeFont) else {}
    redraws: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
    colon = None
    if isinstance(base, ImageFont.FreeTypeFont):
        if (bang := _clearer_bang(base)) is not None:
            redraws["!"] = bang
        if (arrow := _clearer_arrow(base)) is not None:
            redraws["›"] = arrow
        if (dot := _clearer_dot(base)) is not None:
            redraws["·"] = dot
        colon = _colon(base)
    spaced = WORD_GAP.get(size, 0) if isinstance(base, ImageFont.FreeTypeFont) else 0
    parted = isinstance(base, ImageFont.FreeTypeFont) and _bracket_touches(base)
    if not fixes and not redraws and colon is None and not spaced and not parted:
        return base
    clear = _ClearDigitsFont.__new__(_ClearDigitsFont)
    clear.__dict__.update(base.__dict__)
    clear.fixes = fixes
    clear.redraws = redraws
    clear.colon = colon
    clear.spaced = spaced
    clear.parted = parted
    return clear


#: The fewest dark columns between two words, by size: at 9 px the bundled font's space is 2 px and, with the
#: pen's fractions in a long line, the gap between two words came down to 1 px, narrower than some between two
#: letters (up to 2): "Stage 2won by red", "keeps 4of 8", "Truck3 hits" (two audits).  At 10 and 11 px, the
#: sizes most boxes try first, it came down to 2, as wide as between two letters: "Rust Bucket · gear5",
#: "1-4wins".  A space narrower than this is widened to it; the others are left as the font draws them.  (From
#: 12 px the font leaves 3 or more; a "1" beside a letter has 3 at 10-12 px, its own bearings.)
WORD_GAP = {9: 3, 10: 3, 11: 3}


def _glyph_ink(base: ImageFont.FreeTypeFont, ch: str) -> "np.ndarray | None":
    """``ch``'s ink as the font draws it on a 1-bit screen, cropped to itself (None where Pillow's
    internals are not the ones known here)."""
    import numpy as np

    try:
        core, _ = ImageFont.FreeTypeFont.getmask2(base, ch, "1")
        ink = np.asarray(Image.Image()._new(core)) > 0
    except Exception:  # noqa: BLE001 - another Pillow's internals: its own glyphs, as they are
        return None
    if not ink.any():
        return None
    ys, xs = np.nonzero(ink)
    return ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _clearer_bang(base: ImageFont.FreeTypeFont) -> "tuple[np.ndarray, np.ndarray, int] | None":
    """The bundled font's "!" below 10 px is a solid stroke, its dot touching its stem: "ON FIRE!" read
    "ON FIREI" on Thunder Road's screens.  Where the font draws "!" without a gap, the screens draw it with
    its next-to-last row dark: (as drawn, as the screens draw it, its left bearing in pixels).  An "I" or an
    "l" is the same stroke, so the redraw is made only where the text has a "!" (see ``getmask2``)."""
    ink = _glyph_ink(base, "!")
    if ink is None or ink.shape[0] < 4 or not ink.any(axis=1).all():
        return None  # too small to part, or a font that already leaves the gap
    clearer = ink.copy()
    clearer[-2, :] = False
    left = int(base.getbbox("!", mode="1")[0])
    return ink, clearer, left


def _clearer_arrow(base: ImageFont.FreeTypeFont) -> "tuple[np.ndarray, np.ndarray, int] | None":
    """The bundled font's "›" at 9 px is a straight stroke three pixels high: a menu path on the screens
    ("UNDONE: Cy: Move › Road die… › Big Rig: 2") read "Move ı Road die… ı Big Rig".  Where the font draws it
    so, with a dark column after it in its own width, the screens draw a small chevron in the same two columns:
    (as drawn with the dark column after it, as the screens draw it, its left bearing in pixels)."""
    import numpy as np

    ink = _glyph_ink(base, "›")
    if ink is None or ink.shape[1] != 1 or not ink.all() or ink.shape[0] != 3:
        return None  # already a chevron (10 px and up), or another font's
    left = int(base.getbbox("›", mode="1")[0])
    if base.getlength("›", mode="1") - left < 2:
        return None
    drawn = np.zeros((3, 2), dtype=bool)
    drawn[:, 0] = True
    return drawn, _rows("#. .# #."), left


def _clearer_dot(base: ImageFont.FreeTypeFont) -> "tuple[np.ndarray, np.ndarray, int] | None":
    """The bundled font's "·" at 9 px is two pixels side by side, the very "-" of the same size: "Rust Bucket ·
    gear 4 · 9 haz" read "Rust Bucket - gear 4 - 9 haz", and a list of dice "6 4 · 6" read "6 4 -6" (an audit).
    Where the font draws it as its "-", the screens draw one pixel of it, a dot as at 10 and 11 px: (as drawn,
    as the screens draw it, its left bearing in pixels)."""
    import numpy as np

    ink = _glyph_ink(base, "·")
    if ink is None or ink.shape != (1, 2) or not ink.all():
        return None  # a dot already (10 px and up), or another font's
    dash = _glyph_ink(base, "-")
    if dash is None or dash.shape != ink.shape:
        return None  # not mistaken for the font's "-"
    left = int(base.getbbox("·", mode="1")[0])
    return ink, np.array([[True, False]]), left


def _colon(base: ImageFont.FreeTypeFont) -> "tuple[np.ndarray, int] | None":
    """The bundled font's ":" is two one-pixel dots with no room of its own before them: after a letter whose
    ink reaches its edge (k, l, x, t, 2, 3 ...) the dots join it, and "Attack: The Brick" read "Attack The
    Brick" (a longer arm of the k) on the screens below 12 px.  Where the ":" is one column of ink with a
    dark column after it within its own width, the screens move it into that column when it touches the
    letter before it: (its ink as drawn, its left bearing in pixels)."""
    ink = _glyph_ink(base, ":")
    if ink is None or ink.shape[1] != 1 or ink.all():
        return None
    left = int(base.getbbox(":", mode="1")[0])
    if base.getlength(":", mode="1") - left < 2:
        return None  # no dark column of its own to move into
    return ink, left


#: A digit before ")", ",", "+" or ":", where the font draws them touching (:func:`_bracket_touches`): the screens
#: keep a dark column between them (:meth:`_ClearDigitsFont.getmask2`).  (The comma: "lead tile 4, the final tile"
#: read "lead tile 4 the final tile", its comma on the 4's stem; the plus: "4+Nitro" a "4" run into the "+", a
#: screens walkthrough; the colon: "direction die 5: if" its top dot on the 5.  Not a time's colon, "+1:20", whose
#: digits hold it.)
_DIGIT_BRACKET = re.compile(r"(?<=[0-9])(?:[),+]|:(?![0-9]))")


def _bracket_touches(base: ImageFont.FreeTypeFont) -> bool:
    """Whether the bundled font draws some digit and the ")", ",", "+" or ":" after it with no dark column between them: at
    9 and 10 px the bracket runs into the digit on a 1-bit screen, "(gear 2):" read "(gear 2]:" and "9)" a blot (a
    screens audit), and so do a comma and a plus (:data:`_DIGIT_BRACKET`).  (A digit's own ink has no dark column
    inside it.)"""
    for digit in "0123456789":
        for mark in "),+:":
            ink = _glyph_ink(base, digit + mark)
            if ink is not None and ink.any(axis=0).all():
                return True
    return False


def _rows(text: str) -> "np.ndarray":
    import numpy as np

    return np.array([[c == "#" for c in row] for row in text.split()], dtype=bool)


#: The bundled font's 6 and 9 below 14 px, drawn without antialiasing, close into an 8: "1/6" read "1/8",
#: "6 hazards" (a wipeout) "8 hazards", "d6" "d8".  Each glyph as Pillow draws it on a 1-bit screen (ink
#: only) and as the screens draw it instead: the 6 open at its top right, the 9 at its bottom left.  A
#: glyph is redrawn only where the font draws exactly the first (another Pillow's font is left alone).
CLEARER_DIGITS: dict[tuple[int, ...], dict[str, tuple[str, str]]] = {
    (8,): {"6": (".### ###. #..# #..# .##.", ".##. #... ###. #..# .##."),
           "9": ("###. #..# .### #..# .##.", ".##. #..# .### ...# .##.")},
    (9,): {"6": (".### ###. #..# #..# #..# .##.", "..## .#.. ###. #..# #..# .##."),
           "9": (".##. #..# #..# .### #..# .##.", ".##. #..# #..# .### ...# .##.")},
    (10, 11): {"6": (".###. .#..# #...# ####. #...# #...# #...# .###.",
                     "..##. .#... #.... ####. #...# #...# #...# .###."),
               "9": (".###. #...# #...# #...# .#### #...# #..#. .###.",
                     ".###. #...# #...# #...# .#### ....# ...#. .##..")},
    (12, 13): {"6": ("..###. .#..## #....# #.###. ##..## #....# #....# ##..## .####.",
                     "..###. .#.... #..... #.###. ##..## #....# #....# ##..## .####."),
               "9": (".####. ##..## #....# #....# ##..## .###.# #....# ##..#. .###..",
                     ".####. ##..## #....# #....# ##..## .###.# .....# ....#. .###..")},
}


def _clearer_digits(base: ImageFont.FreeTypeFont, size: int) -> dict[str, tuple["np.ndarray", "np.ndarray"]]:
    out = {}
    for sizes, glyphs in CLEARER_DIGITS.items():
        if size not in sizes:
            continue
        for ch, (drawn, clearer) in glyphs.items():
            ink = _glyph_ink(base, ch)
            if ink is None:
                continue
            want, new = _rows(drawn), _rows(clearer)
            if ink.shape == want.shape == new.shape and (ink == want).all():
                out[ch] = (want, new)
    return out


@lru_cache(maxsize=1)
def _getmask2_signature() -> Any:
    import inspect

    return inspect.signature(ImageFont.FreeTypeFont.getmask2)


def _stroke_and_anchor(f: ImageFont.FreeTypeFont, text: Any, mode: str, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> tuple[float, str]:
    """The stroke width and the anchor a ``getmask2`` call asks for, given by keyword or (as ImageDraw.text does)
    by place (anchor "la", left and ascender, when not given; "?" when the call is not one known here)."""
    try:
        bound = _getmask2_signature().bind(f, text, mode, *args, **kwargs)
    except TypeError:
        return 0, "?"
    return float(bound.arguments.get("stroke_width") or 0), bound.arguments.get("anchor") or "la"


class _ClearDigitsFont(ImageFont.FreeTypeFont):
    """The bundled font with its 6 and 9 redrawn in every text mask it makes (see :data:`CLEARER_DIGITS`), its
    "!" parted from its dot where the font draws them touching (:func:`_clearer_bang`), its "›" a chevron where
    it is a stroke (:func:`_clearer_arrow`), and its ":" kept apart from the letter before it (:func:`_colon`)."""

    fixes: dict[str, tuple["np.ndarray", "np.ndarray"]]
    #: a glyph redrawn where it is in a text: (as the font draws it, as the screens do, its left bearing)
    redraws: "dict[str, tuple[np.ndarray, np.ndarray, int]]"
    colon: "tuple[np.ndarray, int] | None" = None
    spaced: int = 0  # the fewest dark columns between two words (WORD_GAP)
    parted: bool = False  # a digit and the ")", ",", "+" or ":" after it drawn touching: a dark column put between

    def getmask2(self, text: "str | bytes", mode: str = "", *args: Any, **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        import numpy as np
        from numpy.lib.stride_tricks import sliding_window_view

        shown = str(text)
        if self.parted and mode == "1" and "\n" not in shown and (at := _DIGIT_BRACKET.search(shown)) is not None:
            stroke, anchor = _stroke_and_anchor(self, text, mode, args, kwargs)
            if not stroke and len(anchor) == 2 and anchor[0] in "lmr":
                return self._parted_at(shown, at.start(), mode, anchor, args, kwargs)
        core, offset = super().getmask2(text, mode, *args, **kwargs)
        wanted = [self.fixes[ch] for ch in self.fixes if ch in shown]
        # (not in a stroked text: the stroke widens the "!" and the ":" out of the shapes looked for; nor in
        # text of several lines, whose x is not the line's)
        stroke, anchor = _stroke_and_anchor(self, text, mode, args, kwargs)
        plain = "\n" not in shown and not stroke
        redrawn = [(i, self.redraws[ch]) for i, ch in enumerate(shown) if ch in self.redraws] if plain else []
        colons = [i for i, ch in enumerate(shown) if ch == ":"] if plain and self.colon is not None else []
        spaces = [i for i, ch in enumerate(shown) if ch == " " and i and shown[i - 1] != " "] \
            if self.spaced and plain and anchor[:1] in ("l", "m", "r") else []
        if mode != "1" or not (wanted or redrawn or colons or spaces) or getattr(core, "mode", "L") != "L":
            return core, offset
        mask = np.asarray(Image.Image()._new(core)).copy()
        origin = self.getbbox(shown, mode="1")[0]  # the mask's first column, in the text's own x

        # a space narrower than WORD_GAP dark columns between two words is widened to it, the columns added where
        # the word before it ends
        lit = (mask > 0).any(axis=0)
        added: list[int] = []
        space = self.getlength(" ", mode="1")
        for i in spaces:
            a = self.getlength(shown[:i], mode="1") - origin
            b = a + space
            dark = [c for c in range(int(a) - 1, int(b) + 2) if 0 < c < len(lit) and not lit[c]]
            if not dark:
                continue  # (a space a glyph reaches over)
            start = end = min(dark, key=lambda c: abs(c - (a + b) / 2))
            while start > 0 and not lit[start - 1]:
                start -= 1
            while end + 1 < len(lit) and not lit[end + 1]:
                end += 1
            if start > 0 and end + 1 < len(lit):  # between two words' ink
                added += [start] * max(0, self.spaced - (end - start + 1))
        if added:
            mask = np.insert(mask, added, 0, axis=1)
            # the text as wide as the columns added: its middle or its right end stays where the anchor puts it
            offset = (offset[0] - {"m": len(added) // 2, "r": len(added)}.get(anchor[:1], 0), offset[1])
        ink = mask > 0
        for drawn, clearer in wanted:
            h, w = drawn.shape
            if ink.shape[0] < h or ink.shape[1] < w:
                continue
            windows = sliding_window_view(ink, (h, w))
            for y, x in zip(*np.nonzero((windows == drawn).all(axis=(2, 3)))):
                mask[y:y + h, x:x + w] = np.where(clearer, 255, 0)

        shapes: dict[int, tuple[Any, Any]] = {}  # each glyph's shape looked for once in the text, not per glyph

        def found(i: int, drawn: "np.ndarray", left: int) -> tuple[int, int] | None:
            """Where the glyph at ``shown[i]``, drawn so, lies in the mask: only a shape within a pixel of
            where it starts is it (not an "I" beside a "!")."""
            h, w = drawn.shape
            if ink.shape[0] < h or ink.shape[1] < w:
                return None
            if id(drawn) not in shapes:
                shapes[id(drawn)] = np.nonzero((sliding_window_view(ink, (h, w)) == drawn).all(axis=(2, 3)))
            hits = shapes[id(drawn)]
            x_at = round(self.getlength(shown[:i], mode="1") + left - origin)
            x_at += sum(1 for c in added if c <= x_at)  # the dark columns a narrow space was given before it
            near = [(abs(int(x) - x_at), int(y), int(x)) for y, x in zip(*hits) if abs(int(x) - x_at) <= 1]
            return min(near)[1:] if near else None

        for i, (drawn, clearer, left) in redrawn:
            if (at := found(i, drawn, left)) is not None:
                y, x = at
                mask[y:y + drawn.shape[0], x:x + drawn.shape[1]] = np.where(clearer, 255, 0)
        if self.colon is not None:
            drawn, left = self.colon
            h = drawn.shape[0]
            dots = np.nonzero(drawn[:, 0])[0]
            for i in colons:
                if (at := found(i, drawn, left)) is None:
                    continue
                y, x = at
                touches = x > 0 and ink[y + dots, x - 1].any()
                # the column after it, and the one after that, dark the colon's whole height: it moves apart
                # from the letter before it without touching the next
                room = x + 1 < ink.shape[1] and not ink[y:y + h, x + 1:x + 3].any()
                if touches and room:
                    mask[y + dots, x] = 0
                    mask[y + dots, x + 1] = 255
        return Image.fromarray(mask, "L").im, offset

    def _parted_at(self, shown: str, i: int, mode: str, anchor: str, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> tuple[Any, tuple[int, int]]:
        """The mask of ``shown`` drawn as two texts, up to the ")" at ``i`` and from it, with one dark column between
        the digit's ink and the bracket's (each part drawn by :meth:`getmask2`, so every other fix applies in it)."""
        import numpy as np

        bound = _getmask2_signature().bind(self, shown, mode, *args, **kwargs).arguments
        rest = {k: v for k, v in bound.items() if k not in ("self", "text", "mode", "args", "kwargs")}
        rest.update(bound.get("kwargs", {}))
        rest["anchor"] = "l" + anchor[1]
        parts = []
        for piece in (shown[:i], shown[i:]):
            core, (ox, oy) = self.getmask2(piece, mode, **rest)
            parts.append((np.asarray(Image.Image()._new(core)), ox, oy))
        (a, ax, ay), (b, bx, by) = parts
        natural = round(self.getlength(shown[:i], mode="1")) + bx
        a_end = ax + max((int(c) for c in np.nonzero((a > 0).any(axis=0))[0]), default=-1)
        b_first = int(np.argmax((b > 0).any(axis=0))) if b.size and (b > 0).any() else 0
        bx_at = max(natural, a_end + 2 - b_first)  # the bracket's first ink one dark column after the digit's last
        top = min(ay, by)
        height = max(ay + a.shape[0], by + b.shape[0]) - top
        width = max(ax + a.shape[1], bx_at + b.shape[1]) - ax
        out = np.zeros((max(height, 1), max(width, 1)), np.uint8)
        out[ay - top:ay - top + a.shape[0], 0:a.shape[1]] = a
        right = out[by - top:by - top + b.shape[0], bx_at - ax:bx_at - ax + b.shape[1]]
        np.maximum(right, b, out=right)
        advance = self.getlength(shown, mode="1") + (bx_at - natural)
        shift = {"m": round(advance / 2), "r": round(advance)}.get(anchor[0], 0)
        return Image.fromarray(out, "L").im, (ax - shift, top)


#: What the screens draw for a character their font lacks.  Pillow's bundled font has ASCII and a few
#: signs (· › ‹ ° …): "Jörg", "Søren" or "José" came out with a box for a letter, and a refusal's "—" too.
#: Accented letters lose their accent (by Unicode decomposition); these have none to lose.
SUBSTITUTES: dict[str, str] = {
    "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ħ": "h", "Ħ": "H",
    "ŧ": "t", "Ŧ": "T", "ŋ": "n", "Ŋ": "N", "ĸ": "k", "—": "-", "–": "-", "‐": "-", "‑": "-", "−": "-",
    "×": "x", "→": ">", "←": "<", "⇒": ">", "•": "·", "«": "<<", "»": ">>", "\u00a0": " ", "\u2009": " ",
    "\u202f": " ", "✓": "v", "✔": "v", "✗": "x", "✘": "x",
}
#: A character the font lacks and no substitute covers (a Chinese name, an emoji) is drawn as this.
UNDRAWABLE = "?"


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Whether the screens' font draws ``ch`` itself, not its "missing glyph" box."""
    if ch in "\n\t ":
        return True
    f = font(12)
    return _mask(f, ch) != _mask(f, "\U0010fffd")


def _mask(f: ImageFont.FreeTypeFont | ImageFont.ImageFont, ch: str) -> tuple[tuple[int, int], bytes]:
    m = f.getmask(ch, mode="1")
    return m.size, bytes(m)


@lru_cache(maxsize=4096)
def drawable(text: str) -> str:
    """``text`` as the screens can draw it: each character the font lacks becomes its substitute, or the
    letter without its accent, or ``?`` ("Jörg" → "Jorg", "Søren" → "Soren", "a — b" → "a - b").  Every
    text drawn on a screen passes through here, so what is measured is what is drawn."""
    if text.isascii() and text.isprintable():
        return text
    import unicodedata

    out = []
    for ch in text:
        if has_glyph(ch):
            out.append(ch)
        elif ch in SUBSTITUTES:
            out.append(SUBSTITUTES[ch])
        elif unicodedata.combining(ch):
            continue  # an accent typed apart from its letter ("Jo\u0308rg", as some keyboards save it)
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            out.append(base if base and base != ch and all(has_glyph(c) for c in base) else UNDRAWABLE)
    return "".join(out)


def name_warnings(names: list[str]) -> list[tuple[str | None, str]]:
    """What a table should know before play about its players' names on the screens, as ``(the player or
    None, what)``: a name with a character the font cannot draw ("李" is drawn "?"), and two names drawn
    alike ("Jörg", "Jorg")."""
    out: list[tuple[str | None, str]] = [
        (name, f"the screens draw {name!r} as {drawable(name)!r}: their font has Latin letters, digits and "
               "common signs only; give the name in Latin letters in the game setup")
        for name in names if UNDRAWABLE in drawable(name) and UNDRAWABLE not in name]
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(drawable(name).casefold(), name)
        if other != name:
            out.append((None, f"{other!r} and {name!r} look the same on the screens ({drawable(name)!r}): give "
                              "one of them another name"))
    return out


@lru_cache(maxsize=4096)
def text_width(text: str, size: int, *, stroke: int = 0) -> int:
    """The width ``text`` really takes on a 1-bit screen: Pillow draws unhinted glyphs wider in mode "1"
    than ``getbbox`` says (120 px measured, 131 drawn), so the ink is measured."""
    text = drawable(text)
    if not text:
        return 0
    image = Image.new("1", (8 * size * len(text) + 8 + 4 * stroke, size * 2 + 4 + 4 * stroke), 0)
    ImageDraw.Draw(image).text((stroke, stroke), text, fill=1, font=font(size), stroke_width=stroke,
                               stroke_fill=1 if stroke else None)
    box = image.getbbox()  # the ink's right edge as drawn from x = 0: what must fit in a box
    return 0 if box is None else box[2] - stroke


def _ellipsize(text: str, size: int, width: int, stroke: int) -> str:
    if text_width(text, size, stroke=stroke) <= width:
        return text
    while text and text_width(text + "…", size, stroke=stroke) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def fit_text(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    text: str,
    *,
    sizes: tuple[int, ...] = (12, 11, 10, 9),
    fill: int = ON,
    align: str = "left",
    stroke: int = 0,
) -> int:
    """Draw ``text`` on one line inside ``box`` (x0, y0, x1, y1 inclusive), vertically centred.

    Tries each size in ``sizes`` (largest first); if even the last is too wide the text is cut with "…".
    Returns the size used.
    """
    x0, y0, x1, y1 = box
    width = x1 - x0  # one pixel spare: 1-bit rasterising can run a pixel past the measured box
    size = sizes[-1]
    for s in sizes:
        if text_width(text, s, stroke=stroke) <= width:
            size = s
            break
    shown = _ellipsize(text, size, width, stroke)
    anchor = {"left": "lm", "center": "mm", "right": "rm"}[align]
    x = {"left": x0, "center": (x0 + x1 + 1) // 2, "right": x1}[align]
    y = (y0 + y1 + 1) // 2
    draw.text((x, y), drawable(shown), fill=fill, font=font(size), anchor=anchor, stroke_width=stroke,
              stroke_fill=fill if stroke else None)
    return size


def bar(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], value: int, maximum: int) -> None:
    """An outlined bar filled in proportion ``value / maximum`` (clamped), with a 1-pixel gap inside."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, outline=ON, fill=OFF)
    if maximum <= 0 or value <= 0:
        return
    inner = x1 - x0 - 3
    filled = max(1, round(inner * min(value, maximum) / maximum))
    draw.rectangle((x0 + 2, y0 + 2, x0 + 1 + filled, y1 - 2), fill=ON)


def pips(
    draw: ImageDraw.ImageDraw, x: int, y: int, count: int, *, slots: int = 0, pitch: int = 10, diameter: int = 8
) -> int:
    """A row of round pips from (x, y): ``count`` filled, the rest of ``slots`` as empty rings.

    Returns the x just after the last pip drawn.
    """
    n = max(count, slots)
    for i in range(n):
        left = x + i * pitch
        box = (left, y, left + diameter - 1, y + diameter - 1)
        if i < count:
            draw.ellipse(box, fill=ON, outline=ON)
        else:
            draw.ellipse(box, fill=OFF, outline=ON)
    return x + n * pitch


def winner_bar(draw: ImageDraw.ImageDraw, winner: str, player: str, bottom: int = 11) -> None:
    """The top bar at game over: "YOU WIN!" lit on the winner's screen, "Ana wins" on the others'."""
    won = winner == player
    if won:
        draw.rectangle((0, 0, WIDTH - 1, bottom), fill=ON)
    fit_text(draw, (2, 0, WIDTH - 3, bottom), "YOU WIN!" if won else f"{winner} wins", sizes=(11, 10, 9),
             fill=OFF if won else ON, align="center")


def banner(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    title: str,
    text: str = "",
    *,
    blink_on: bool,
    title_sizes: tuple[int, ...] = (16, 14, 12),
    more: str = "",
) -> None:
    """A flashing alert: when ``blink_on`` a lit box with dark ``title`` (big) and ``text`` (small) over
    whatever is under ``box``; when off, nothing is drawn, so the screen underneath shows through.
    ``more`` ("+1": alerts waiting behind this one) is drawn small in the top right corner, and the title
    keeps clear of it (it was drawn over the title's last letters)."""
    if not blink_on:
        return
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=ON)
    tx0, tx1 = x0 + 3, x1 - 3
    if more:  # the title keeps clear of the marker: centred (giving up its width on both sides) when it fits so
        side = pixel_text_width(more) + 2
        tx1 -= side
        # the head as the room beside the marker splits it ("THE BRICK: 1 HIT", not the centred room's shorter
        # "THE BRICK: 1" over "HIT · HULL 11"), centred only when that head fits centred
        head = title if text else _split_to_fit(title, tx1 - tx0, title_sizes[-1])[0]
        if text_width(head, title_sizes[-1]) <= tx1 - tx0 - side:
            tx0 += side
    if not text:
        title, text = _split_to_fit(title, tx1 - tx0, title_sizes[-1])
    lines = _wrap_to_fit(text, x1 - x0 - 6, TEXT_SIZES[-1]) if text else []
    if more:
        pixel_text(draw, (x1 - 1 - pixel_text_width(more), y0 + 2), more, fill=OFF)
    if len(lines) == 2 and y1 - y0 >= 36:  # a reason too long for one line: two, under a smaller title
        mid = y0 + (y1 - y0) * 2 // 5
        fit_text(draw, (tx0, y0 + 1, tx1, mid), title, sizes=title_sizes[1:] or title_sizes, fill=OFF,
                 align="center")
        half = mid + (y1 - mid) // 2
        fit_text(draw, (x0 + 3, mid + 1, x1 - 3, half), lines[0], sizes=TEXT_SIZES[1:], fill=OFF, align="center")
        fit_text(draw, (x0 + 3, half + 1, x1 - 3, y1 - 1), lines[1], sizes=TEXT_SIZES[1:], fill=OFF, align="center")
    elif text:
        mid = y0 + (y1 - y0) * 3 // 5
        fit_text(draw, (tx0, y0 + 1, tx1, mid), title, sizes=title_sizes, fill=OFF, align="center")
        fit_text(draw, (x0 + 3, mid + 1, x1 - 3, y1 - 1), text, sizes=TEXT_SIZES, fill=OFF, align="center")
    else:
        fit_text(draw, (tx0, y0 + 1, tx1, y1 - 1), title, sizes=title_sizes, fill=OFF, align="center")


#: Sizes of a banner's small line (largest first).
TEXT_SIZES = (11, 10, 9)


def _wrap_to_fit(text: str, width: int, size: int) -> list[str]:
    """``[text]`` when it fits one line of ``width`` at ``size``; else two lines split at the space that
    best balances them, both fitting when any split does (the reason is never cut while two lines hold
    it; beyond that the second line is cut with "…" by :func:`fit_text`)."""
    if text_width(text, size) <= width:
        return [text]
    cuts = [i for i, ch in enumerate(text) if ch == " "]
    if not cuts:
        return [text]
    fits = [i for i in cuts if text_width(text[:i], size) <= width and text_width(text[i + 1:], size) <= width]
    if fits:  # the most even pair
        pick = min(fits, key=lambda i: abs(text_width(text[:i], size) - text_width(text[i + 1:], size)))
    else:  # the longest first line that fits; the rest is cut
        heads = [i for i in cuts if text_width(text[:i], size) <= width]
        pick = max(heads) if heads else cuts[0]
    return [text[:pick], text[pick + 1:]]


def _split_to_fit(title: str, width: int, size: int) -> tuple[str, str]:
    """A banner title too wide for one line at ``size`` is not cut ("DICE MODELS BRO…"): it is split at the
    last space that leaves a head which fits, the rest going to the small line below.  ``(title, "")``
    when it fits, or when no split helps."""
    if text_width(title, size) <= width:
        return title, ""
    cuts = [i for i, ch in enumerate(title) if ch == " " and text_width(title[:i].rstrip(" ·"), size) <= width]
    if not cuts:
        return title, ""
    # at a " · " between two facts when one fits ("THE BRICK: 1 HIT" over "HULL 11") and what follows it still
    # fits the small lines below (an early dot pushed all the rest there, to be cut), and the dot is dropped: it
    # separates what now lies on two lines ("THE BRICK: 1 HIT ·" over "HULL 11")
    def rest_fits(i: int) -> bool:
        lines = _wrap_to_fit(title[i + 1:].lstrip(" ·"), width, TEXT_SIZES[-1])
        return len(lines) <= 2 and all(text_width(line, TEXT_SIZES[-1]) <= width for line in lines)

    dots = [i for i in cuts if title.startswith(" · ", i) and rest_fits(i)]
    cut = (dots or cuts)[-1]
    return title[:cut].rstrip(" ·"), title[cut + 1:].lstrip(" ·")


def flag(draw: ImageDraw.ImageDraw, x: int, y: int, *, fill: int = ON) -> None:
    """A 7×9 chequered-flag icon with its top-left at (x, y) (pole position)."""
    draw.line((x, y, x, y + 8), fill=fill)
    draw.rectangle((x + 1, y, x + 6, y + 4), outline=fill)
    draw.rectangle((x + 1, y, x + 3, y + 2), fill=fill)
    draw.rectangle((x + 4, y + 2, x + 6, y + 4), fill=fill)


def triangle(draw: ImageDraw.ImageDraw, x: int, y: int, h: int, *, fill: int = ON) -> None:
    """A right-pointing solid triangle ``h`` pixels high with its top-left at (x, y): "this is you"."""
    draw.polygon([(x, y), (x + h // 2, y + h // 2), (x, y + h - 1)], fill=fill)


# A 5×7 pixel font for numbers: each glyph is 7 rows of 5 bits (bit 4 = leftmost column).
_GLYPHS: dict[str, tuple[int, ...]] = {
    "0": (0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110),
    "1": (0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110),
    "2": (0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111),
    "3": (0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110),
    "4": (0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010),
    "5": (0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110),
    "6": (0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110),
    "7": (0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000),
    "8": (0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110),
    "9": (0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100),
    "/": (0b00001, 0b00010, 0b00010, 0b00100, 0b01000, 0b01000, 0b10000),
    "+": (0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000),
    "-": (0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000),
    " ": (0, 0, 0, 0, 0, 0, 0),
}


def pixel_drawable(text: str) -> bool:
    """Whether :func:`pixel_text` draws every character of ``text`` (digits, "/", "+", "-", space)."""
    return all(ch in _GLYPHS for ch in text)


def pixel_text_width(text: str, scale: int = 1) -> int:
    """Width in pixels of ``text`` in the 5×7 pixel font (1 column between glyphs)."""
    return max(0, len(text) * 6 - 1) * scale


def pixel_text(
    draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, *, scale: int = 1, fill: int = ON
) -> int:
    """Draw digits, "/", "+" and "-" in the 5×7 pixel font, top-left at ``xy``, each pixel ``scale``×``scale``.
    Returns the width drawn.  Other characters are refused (this font is only for numbers)."""
    x0, y0 = xy
    for i, ch in enumerate(text):
        rows = _GLYPHS.get(ch)
        if rows is None:
            raise ValueError(f"pixel_text draws digits / + - and space only, not {ch!r}")
        gx = x0 + i * 6 * scale
        for r, bits in enumerate(rows):
            for c in range(5):
                if bits & (0b10000 >> c):
                    draw.rectangle(
                        (gx + c * scale, y0 + r * scale, gx + (c + 1) * scale - 1, y0 + (r + 1) * scale - 1), fill=fill
                    )
    return pixel_text_width(text, scale)


#: The banner title of each notice the app posts (``App.notify`` kinds; refusals are "refused"), for the
#: dashboards that title a notice apart from its text.  An unknown kind is its words in capitals.
NOTICE_TITLES = {"refused": "REFUSED", "camera_down": "CAMERA OFF", "camera_back": "CAMERA OK", "dice": "DICE",
                 "typing": "DICE", "dice_taken": "DICE", "tray_count": "DICE TRAY", "dice_region": "DICE TRAY",
                 "vision": "CAMERA", "info": "INFO", "car_unseen": "CAR NOT SEEN",
                 "template_seen": "TEMPLATE", "hazard_mismatch": "HAZARDS", "token_zone": "HAZARDS",
                 "files": "FILES", "screen": "SCREEN OFF", "store": "GAME LOG", "resumed": "RESUMED",
                 "not_recorded": "NOT RECORDED", "recorded": "RECORDED", "undone": "UNDONE", "roll": "ROLL", "news": "NOTE",
                 "not_started": "NOT STARTED", "web_off": "WEB PAGE OFF"}


def notice_title(kind: str, text: str) -> tuple[str, str]:
    """(the banner title of a notice of ``kind``, its text without the title it may begin with: "CAMERA OFF:
    enter dice with the buttons" under CAMERA OFF is "enter dice with the buttons")."""
    title = NOTICE_TITLES.get(kind, kind.replace("_", " ").upper())
    if text.upper().startswith(title + ":"):
        text = text[len(title) + 1:].strip()
    return title, text


#: The mark a piece shown in turn carries where the text goes on: after a piece but the last, before a piece but the
#: first.
GOES_ON = "…"


def marked(parts: Sequence[str]) -> list[str]:
    """``parts`` of one text shown in turn, each but the last ending "…" and each but the first beginning "…": a
    piece read alone is seen to go on ("camera: SHIFT HAZARD" looked like a whole roll of three; "evaded: 3 taken ·
    hull 9", the tail of another car's news, was read as Cy's own)."""
    last = len(parts) - 1
    return [(GOES_ON if i else "") + part + (GOES_ON if i < last else "") for i, part in enumerate(parts)]


def kept_pieces(pieces_of: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """``pieces_of`` remembered for the last texts asked (a box's :func:`pieced`: the app asks for every notice of
    every screen at each redraw, and each cut is measured by drawing, ~3 ms a width on a PC); a new list each call."""
    kept = lru_cache(maxsize=512)(lambda text: tuple(pieces_of(text)))

    def cut(text: str) -> list[str]:
        return list(kept(text))

    cut.__doc__, cut.__name__ = pieces_of.__doc__, pieces_of.__name__
    return cut


def pieced(text: str, wrap_text: Callable[[str, int], list[str]], width: int, size: int, lines: int) -> list[str]:
    """``text`` in pieces of at most ``lines`` lines of ``width`` px at ``size`` (``wrap_text(text, width)`` wraps
    as the box draws), shown in turn and :func:`marked`: ``[text]`` when one piece holds it.  Every line is wrapped
    with room for one "…" (a piece's first line may begin with one, its last end with one), so that a box drawing
    a piece again at ``width`` needs no more lines than planned.  As few pieces as the lines take, cut where the
    words pause (:func:`clause_pieces`)."""
    whole = wrap_text(text, width)
    if len(whole) <= lines:
        return [" ".join(whole)] if whole else [text]
    inner = width - text_width(GOES_ON, size) - 1
    rows = wrap_text(text, inner)
    count = -(-len(rows) // lines)
    parts = clause_pieces(text, inner, size, lines, count, wrap_text)
    return marked(parts if parts is not None else [" ".join(rows[i:i + lines]) for i in range(0, len(rows), lines)])


#: How much a piece shown in turn is worth ending where the words pause, against the evenness of the pieces (the
#: cost is the sum of each piece's empty share, squared, times EVEN_WEIGHT): after a sentence or clause (";", ".",
#: "!", "?"), a list's "·" or a ",".  Cut greedily, the pieces ended anywhere, the last often one word ("…Sprinteur",
#: "…turn"; a screens audit).  After a label's ":" only as LABEL_END (a piece "WIPEOUT:…" alone said nothing: a review).
CLAUSE_ENDS: tuple[tuple[str, float], ...] = ((";.!?", 0.16), ("·", 0.1), (",", 0.06))
EVEN_WEIGHT = 0.5
#: After a label's ":" that is not all of its piece ("tray holds the last roll:…" / "…roll again"): a small pause.
LABEL_END = 0.06
#: A piece ending in a little word that leads into the next ("…eliminated with the…" / "…rear tile") costs this.
LEADING_WORDS = frozenset("a an the of to on in at by for from into with and or its their his her".split())
LEADING_COST = 0.1
#: A cut inside a name costs this: between two capitalised words ("Rust…" / "…Bucket"), after a possessive
#: ("Ben's…" / "…medium car"), before the noun a size or colour names ("medium…" / "…car", "Fire…" / "…die");
#: half of it between a lowercase word and a capitalised one ("2nd green…" / "…Sprinteur").  A review counted the
#: names split by the evenness alone: more than a greedy cut split in the notice boxes.
NAME_COST = 0.2
NAME_NOUNS = frozenset("car cars rig die dice tile token tokens card cards".split())
#: Words a number after them belongs to ("box 4", "gear 2", "Stage 3"): no cut between them.
NUMBERED = frozenset("box gear stage round tile die step hull bike turn space column row phase".split())


def _cut_cost(before: str, after: str, in_brackets: bool) -> float:
    """What a cut between the terms ``before`` and ``after`` costs (negative: a pause worth cutting at); inside
    brackets ("(gear…" / "…1):") as much as inside a name."""
    last, first = before.split()[-1], after.split()[0]
    bare = last.rstrip(",.;:!?")
    cost = LEADING_COST if bare.lower() in LEADING_WORDS and bare == last else 0.0
    if in_brackets:
        cost += NAME_COST
    elif bare == last and last[:1].isalpha():  # no pause after it: inside a name, or a word from its number?
        numbered = first[:1] == "+" or first[:1].isdigit() and last.lower() in NUMBERED
        if last.endswith(("'s", "s'")) or first.rstrip(",.;:!?").lower() in NAME_NOUNS or numbered:
            cost += NAME_COST  # ("box…" / "…4 Man in Earth Orbit", "green…" / "…+4"; not "car…" / "…1 space")
        elif first[:1].isupper() and not first.isupper():  # (a die's faces are no name: "SHIFT…" / "…HAZARD")
            cost += NAME_COST if last[:1].isupper() and not last.isupper() else NAME_COST / 2
    return cost - next((bonus for marks, bonus in CLAUSE_ENDS if last[-1] in marks or last == "-" and "." in marks),
                       0.0)


def clause_pieces(text: str, width: int, size: int, lines: int, count: int,
                  wrap_text: Callable[[str, int], list[str]]) -> list[str] | None:
    """``text`` cut into ``count`` pieces that each wrap (``wrap_text(piece, width)``, as the box draws) into at
    most ``lines`` lines of ``width`` px at ``size``, ending where the words pause (:data:`CLAUSE_ENDS`) and as even
    as they can be; None when there is no such cut (a word wider than a line, a text of paragraphs, or lines
    measured otherwise than planned): the caller keeps its greedy one.  The lines are planned from each term's
    width and each pair's gap (the screens' font draws a line as the sum of them), then drawn to check."""
    units = terms(text) if "\n" not in text else []
    m = len(units)
    if m < count or count < 1:
        return None
    ws = [text_width(u, size) for u in units]
    if max(ws) > width:
        return None
    gaps = [text_width(f"{units[k]} {units[k + 1]}", size) - ws[k] - ws[k + 1] for k in range(m - 1)]
    at_w, at_g = [0], [0]
    for w in ws:
        at_w.append(at_w[-1] + w)
    for g in gaps:
        at_g.append(at_g[-1] + g)

    def span(i: int, j: int) -> int:  # units i..j-1 on one line
        return at_w[j] - at_w[i] + at_g[j - 1] - at_g[i]

    fits = [[False] * (m + 1) for _ in range(m + 1)]  # fits[i][j]: units i..j-1 wrap into `lines` lines
    for i in range(m):
        rows, start = 1, i
        for j in range(i + 1, m + 1):
            if span(start, j) > width:
                rows, start = rows + 1, j - 1
            if rows > lines:
                break
            fits[i][j] = True

    depth = [0]  # brackets open before unit j
    for u in units:
        depth.append(depth[-1] + u.count("(") - u.count(")"))
    room = lines * width
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(count + 1)]
    back = [[0] * (m + 1) for _ in range(count + 1)]
    best[0][0] = 0.0
    for k in range(1, count + 1):
        for j in range(1, m + 1):
            for i in range(j):
                if best[k - 1][i] == inf or not fits[i][j]:
                    continue
                cost = (best[k - 1][i] + EVEN_WEIGHT * ((room - span(i, j)) / room) ** 2
                        + (_cut_cost(units[j - 1], units[j], depth[j] > 0) if j < m else 0.0)
                        - (LABEL_END if j < m and j - i > 1 and units[j - 1].endswith(":") else 0.0))
                if cost < best[k][j]:
                    best[k][j], back[k][j] = cost, i
    if best[count][m] == inf:
        return None
    cuts, j = [m], m
    for k in range(count, 0, -1):
        j = back[k][j]
        cuts.append(j)
    cuts.reverse()
    parts = [" ".join(units[a:b]) for a, b in zip(cuts, cuts[1:])]
    return parts if all(len(wrap_text(p, width)) <= lines for p in parts) else None


#: The rulebook's terms never split across two lines or pieces ("Dee's medium car is ON" / "FIRE!", "eliminated
#: with the rear" / "tile").
KEEP_TOGETHER = (("ON", "FIRE!"), ("rear", "tile"), ("lead", "tile"))


def terms(paragraph: str) -> list[str]:
    """``paragraph``'s words, a term of ``KEEP_TOGETHER`` as one, a bare number with the word it counts ("3
    taken", "1 free": an audit read "1 evaded: 3…" then "…taken · hull 9"), and a number ending the text or its
    clause with the word it numbers ("Bike 3", "Die 5;"): what every wrap on the screens splits."""
    words = paragraph.split()

    def term_at(i: int) -> int:
        """How many words the term at ``i`` is: a KEEP_TOGETHER term's, else one."""
        # (a piece's "…" stuck to a word is no part of it: "ON" / "FIRE!…" was drawn on two lines; a review)
        term = next((t for t in KEEP_TOGETHER if tuple(w.strip(GOES_ON).rstrip(",.;:") for w in words[i:i + len(t)])
                     == t), None)
        return len(term) if term else 1

    out: list[str] = []
    i = 0
    while i < len(words):
        n = term_at(i)
        bare = words[i].rstrip(",.;:!")
        if n == 1 and words[i].isdigit() and i + 1 < len(words):
            n += term_at(i + 1)  # the number with the whole term it counts ("2 rear tile" kept one)
        elif (n == 1 and bare.isdigit() and out and not out[-1].split()[-1].rstrip(",.;:!").isdigit()
              and (i + 1 == len(words) or bare != words[i])):
            # a number that ends the text or its clause names what is before it ("the Fire die for Bike" / "3"
            # left the bike's number alone on a line; "Die" / "5; Cy: …"); not another number: a list of them
            # ("dice 1, 3, 4, 6") is not one term
            out[-1] += f" {words[i]}"
            i += 1
            continue
        out.append(" ".join(words[i:i + n]))
        i += n
    return out
