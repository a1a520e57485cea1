"""Shared dashboard helpers: fitting text, bars, pips, banners and the 5×7 number font."""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw
import pytest

from device.dashboards.common import (
    banner,
    bar,
    canvas,
    fit_text,
    flag,
    font,
    pips,
    pixel_text,
    pixel_text_width,
    text_width,
    triangle,
)


def lit(image, box=None) -> int:
    a = np.asarray(image, dtype=bool)
    if box:
        x0, y0, x1, y1 = box
        a = a[y0 : y1 + 1, x0 : x1 + 1]
    return int(a.sum())


def test_canvas_is_blank_128x64_one_bit():
    image, _ = canvas()
    assert image.mode == "1" and image.size == (128, 64) and lit(image) == 0


def test_fit_text_shrinks_then_cuts_and_stays_in_its_box():
    image, draw = canvas()
    assert fit_text(draw, (0, 0, 127, 11), "short", sizes=(12, 9)) == 12
    assert fit_text(draw, (0, 20, 40, 31), "a rather long line of text", sizes=(12, 9)) == 9
    assert lit(image, (42, 20, 127, 31)) == 0  # nothing past the box
    assert lit(image, (0, 20, 40, 31)) > 0


def test_text_width_grows_with_size():
    assert text_width("gear", 9) < text_width("gear", 14)


def test_bar_fills_in_proportion():
    def filled(value, maximum):
        image, draw = canvas()
        bar(draw, (0, 0, 101, 9), value, maximum)
        return lit(image, (2, 2, 99, 7))

    assert filled(0, 10) == 0
    assert filled(5, 10) == pytest.approx(filled(10, 10) / 2, rel=0.05)
    assert filled(20, 10) == filled(10, 10)  # clamped
    assert filled(3, 0) == 0


def test_pips_fill_count_and_ring_the_rest():
    image, draw = canvas()
    end = pips(draw, 0, 0, 2, slots=6, pitch=10, diameter=8)
    assert end == 60
    full = lit(image, (0, 0, 7, 7))
    ring = lit(image, (50, 0, 57, 7))
    assert 0 < ring < full
    image, draw = canvas()
    assert pips(draw, 0, 0, 8, slots=6) == 80  # beyond the slots is drawn too


def test_banner_only_when_blink_on():
    image, draw = canvas()
    banner(draw, (0, 10, 127, 50), "WIPEOUT!", "Rust Bucket", blink_on=False)
    assert lit(image) == 0
    banner(draw, (0, 10, 127, 50), "WIPEOUT!", "Rust Bucket", blink_on=True)
    assert lit(image, (0, 10, 127, 50)) > 0.6 * 128 * 41  # a lit box with dark words
    assert lit(image, (0, 0, 127, 9)) == 0


def test_a_banner_reason_too_long_for_one_line_is_wrapped_not_cut():
    """The brief: every refusal's whole reason is visible on the player's screen ("LOST CONTROL: Alice's
    Buggy, Bob turns it" lost "turns it" to an ellipsis)."""
    from device.dashboards.common import TEXT_SIZES, _wrap_to_fit

    reason = "Alice's Buggy, Bob turns it"
    assert text_width(reason, TEXT_SIZES[-1]) > 122  # too long for the banner's one small line
    lines = _wrap_to_fit(reason, 122, TEXT_SIZES[-1])
    assert len(lines) == 2 and " ".join(lines) == reason
    assert all(text_width(line, TEXT_SIZES[-1]) <= 122 for line in lines)
    image, draw = canvas()
    banner(draw, (0, 12, 127, 52), "LOST CONTROL", reason, blink_on=True)
    dark_rows = [y for y in range(12, 53) if (~np.asarray(image, dtype=bool)[y, 3:125]).any()]
    bands = 1 + sum(1 for a, b in zip(dark_rows, dark_rows[1:]) if b > a + 1)
    assert bands == 3  # the title and two lines of reason


def test_pixel_font_digits_are_distinct_and_refuse_letters():
    glyphs = set()
    for d in "0123456789":
        image, draw = canvas()
        assert pixel_text(draw, (0, 0), d, scale=2) == 10
        glyphs.add(image.tobytes())
    assert len(glyphs) == 10
    assert pixel_text_width("26/26") == 29
    _, draw = canvas()
    with pytest.raises(ValueError, match="digits"):
        pixel_text(draw, (0, 0), "x")


def test_icons_draw_inside_their_cells():
    image, draw = canvas()
    flag(draw, 10, 10)
    triangle(draw, 30, 10, 10)
    assert lit(image, (10, 10, 16, 18)) > 0 and lit(image, (30, 10, 35, 19)) > 0
    assert lit(image) == lit(image, (10, 10, 16, 18)) + lit(image, (30, 10, 35, 19))


def _ink(text: str, size: int) -> np.ndarray:
    from PIL import Image, ImageDraw

    from device.dashboards.common import font

    image = Image.new("1", (12 * size, 3 * size), 0)
    ImageDraw.Draw(image).text((size, size), text, font=font(size), fill=1)
    a = np.asarray(image, dtype=bool)
    ys, xs = np.nonzero(a)
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


@pytest.mark.parametrize("size", [8, 9, 10, 11, 12, 13])
def test_the_fonts_6_and_9_are_not_drawn_as_8(size: int) -> None:
    """Pillow's bundled font, drawn without antialiasing on a 1-bit screen, closes a 6 and a 9 into an 8
    below 14 px: Thunder Road's dice "1 3 4 6" read "1 3 4 8", "1/6" read "1/8", "d6" "d8".  A 6 keeps its
    right side open above its middle, a 9 its left side below; an 8 has both closed."""
    from numpy.lib.stride_tricks import sliding_window_view

    six, nine, eight = _ink("6", size), _ink("9", size), _ink("8", size)
    h = six.shape[0]
    assert not six[1: h // 2, -1].any() and not nine[h // 2 + 1: h - 1, 0].any()
    assert eight[1: h // 2, -1].any() and eight[h // 2 + 1: h - 1, 0].any()
    line = _ink("d6 1/6 9", size)  # the same glyphs inside a line of text
    for glyph, times in ((six, 2), (nine, 1)):
        windows = sliding_window_view(line, glyph.shape)
        assert int((windows == glyph).all(axis=(2, 3)).sum()) == times


@pytest.mark.parametrize("size", [7, 8, 9, 10, 12])
def test_an_exclamation_mark_keeps_its_dot_apart_and_an_i_beside_it_stays_whole(size: int) -> None:
    """Thunder Road's "ON FIRE!" read "ON FIREI" below 10 px: the bundled font's "!" is a solid stroke there,
    its dot touching its stem, the same stroke as an "I".  The "!" is drawn with a gap above its dot; an
    "I" or an "l" in the same text is left whole."""
    line = _ink("ON FIRE!", size)
    bang = line[:, -1]  # the "!" is the line's last column of ink
    assert bang[0] and bang[-1] and not bang.all(), "the dot apart from the stem"
    line = _ink("I! Il!", size)

    def parted(c: int) -> bool:  # a dark row between the column's first and last lit rows
        rows = np.nonzero(line[:, c])[0]
        return len(rows) > 0 and not line[rows[0]:rows[-1] + 1, c].all()

    assert not parted(0) and parted(line.shape[1] - 1), "the first 'I' whole, the last '!' parted"
    assert sum(parted(c) for c in range(line.shape[1])) == 2, "the two '!' parted, the 'I's and the 'l' whole"
    # a stroked (bold) text is left as the font draws it: no dark pixel punched beside its widened "!"
    from device.dashboards.common import font
    from PIL import Image, ImageDraw, ImageFont

    stroked = []
    for f in (font(size), ImageFont.load_default(size=size)):
        image = Image.new("1", (6 * size, 2 * size), 0)
        ImageDraw.Draw(image).text((2, 2), "GO!", font=f, fill=1, stroke_width=1, stroke_fill=1)
        stroked.append(np.asarray(image))
    assert (stroked[0] == stroked[1]).all()


@pytest.mark.parametrize("size", [9, 10, 11])
@pytest.mark.parametrize("word", ["Attack", "Truck", "hull", "box"])
def test_a_colon_keeps_apart_from_the_letter_before_it(word: str, size: int) -> None:
    """The bundled font's ":" has no dark column before it: on the screens "Attack: The Brick" read "Attack The
    Brick", the colon's two dots joining the k's arms (the same after l, x, t, 2, 3 ...).  It is drawn one
    column on, in its own width, with a dark column on each side."""
    from PIL import Image, ImageDraw

    from device.dashboards.common import font

    f = font(size)
    image = Image.new("1", (12 * size, 3 * size), 0)
    ImageDraw.Draw(image).text((size, size), f"{word}: 2", font=f, fill=1)
    a = np.asarray(image, dtype=bool)
    solo = Image.new("1", (12 * size, 3 * size), 0)
    ImageDraw.Draw(solo).text((size, size), word, font=f, fill=1)
    word_right = int(np.nonzero(np.asarray(solo, dtype=bool).any(axis=0))[0].max())
    cols = a.any(axis=0)
    after = cols[word_right + 1:]
    first_dark = int(np.argmin(after))
    colon = word_right + 1 + first_dark + int(np.argmax(after[first_dark:]))  # the next ink after a dark column
    dots = np.nonzero(a[:, colon])[0]
    assert len(dots) == 2 and dots[1] - dots[0] > 1, f"{word}: the colon's two dots stand alone after the word"
    assert not a[:, colon - 1].any() and not a[:, colon + 1].any()


@pytest.mark.parametrize("size", [9, 10, 11])
@pytest.mark.parametrize("anchor", ["lm", "mm", "rm"])
@pytest.mark.parametrize("mark", [")", ",", "+", ":"])
def test_a_bracket_after_a_digit_keeps_a_dark_column_from_it(size: int, anchor: str, mark: str) -> None:
    """A screens audit: at 9 and 10 px the bundled font draws ")" into the digit before it, "rolled 1 (gear 2):" read
    "(gear 2]:" and "9)" a blot; a walkthrough: "lead tile 4, the final tile" read "lead tile 4 the final tile", the
    comma on the 4's stem, "4+Nitro" a 4 run into the "+", and "die 5: if" the colon's top dot on the 5.  A dark
    column stands between every digit and its ")", ",", "+" or ":", the text otherwise drawn as before, at the place
    its anchor says (a time's colon, "+1:20", is left as the font draws it)."""
    from PIL import Image, ImageDraw

    from device.dashboards.common import font

    f = font(size)
    for digit in "0123456789":
        image = Image.new("1", (12 * size, 3 * size), 0)
        ImageDraw.Draw(image).text((6 * size, size), f"(gear {digit}{mark}", font=f, fill=1, anchor=anchor)
        a = np.asarray(image, dtype=bool)
        solo = Image.new("1", (12 * size, 3 * size), 0)
        ImageDraw.Draw(solo).text((6 * size, size), f"(gear {digit}", font=f, fill=1, anchor=anchor)
        b = np.asarray(solo, dtype=bool)
        cols_a, cols_b = np.nonzero(a.any(axis=0))[0], np.nonzero(b.any(axis=0))[0]
        if anchor == "lm":  # the text up to the digit is where it was
            assert (a[:, :cols_b.max() + 1] == b[:, :cols_b.max() + 1]).all(), digit
        gaps = [c for c in range(cols_a.min(), cols_a.max()) if not a[:, c].any()]
        assert gaps and gaps[-1] > cols_a.max() - 7, f"{digit}{mark}: no dark column before it"
        assert cols_a.max() - cols_a.min() <= cols_b.max() - cols_b.min() + 8  # one column more at most, and the mark


@pytest.mark.parametrize("size", [9, 10, 11])
def test_a_times_colon_is_left_between_its_digits(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The colon parted from a digit before it ("die 5: if") is not a time's: "+1:20" on the Grand Tour's
    dashboards is drawn as the font draws it."""
    from PIL import Image, ImageDraw

    from device.dashboards.common import font

    f = font(size)

    def drawn(text: str) -> bytes:
        image = Image.new("1", (8 * size, 2 * size), 0)
        ImageDraw.Draw(image).text((1, size), text, font=f, fill=1, anchor="lm")
        return image.tobytes()

    times = ("+1:20", "12:05 leader")
    parted = [drawn(t) for t in times]
    if getattr(f, "parted", False):
        monkeypatch.setattr(f, "parted", False)
    assert parted == [drawn(t) for t in times]


@pytest.mark.parametrize("size", [9, 10, 11, 12])
def test_a_menu_paths_arrow_is_a_chevron_not_a_stroke(size: int) -> None:
    """An audit: at 9 px the bundled font's "›" is a straight stroke, and "UNDONE: Cy: Move › Road die… ›
    Big Rig: 2" read "Move ı Road die… ı Big Rig". The arrow has a point to its right at every size; an "l"
    or an "I" in the same text stays a stroke."""
    arrow = _ink("›", size)
    assert arrow.shape[1] >= 2 and arrow[arrow.shape[0] // 2, -1] and not arrow[0, -1], "a point to the right"
    line = _ink("l › I", size)
    cols = [c for c in range(line.shape[1]) if line[:, c].any()]
    assert line[:, cols[0]].sum() >= size // 2 and line[:, cols[-1]].sum() >= size // 2  # the l and the I whole


@pytest.mark.parametrize("size", [9, 10, 11])
@pytest.mark.parametrize("align", ["left", "center", "right"])
@pytest.mark.parametrize("text", ["Stage 2 won by red", "blue Sprinteur keeps 4 of 8 cards", "Truck 3 hits · hull 4",
                                  "keeps 0 of 0 exhaustion cards", "SPIN · gear 1 · 0 haz", "Rust Bucket · gear 5 · 4 haz",
                                  "Turn is not permitted in gear 5", "1-4 wins, no event", "USA 3 ops", "at top undo"])
def test_two_words_are_farther_apart_than_two_letters(text: str, align: str, size: int) -> None:
    """Two audits: at 9 px "Stage 2 won by red" read "Stage 2won by red" and "keeps 4 of 8" "keeps 4of 8": the
    font's 2 px space came down to one dark column in a long line, where two letters can have two. At 10 and 11 px
    too (the sizes most boxes try first): "Rust Bucket · gear5", "1-4wins", "USA3 ops", "attop undo". Every
    space between two words is at least three dark columns; no two letters are."""
    from PIL import Image, ImageDraw

    from device.dashboards.common import fit_text, text_width

    image = Image.new("1", (240, 20), 0)
    box = (20, 2, 219, 14)  # as the screens draw it: in a box, anchored left, centred or right
    fit_text(ImageDraw.Draw(image), box, text, sizes=(size,), align=align)
    line = np.asarray(image, dtype=bool)
    xs = np.nonzero(line.any(axis=0))[0]
    dark = ~line.any(axis=0)[xs.min():xs.max() + 1]
    # where it is drawn: at the box's left, around its middle, at its right, as wide as measured (text_width is
    # measured from the pen's start: less the dark columns before the first glyph's ink, a "1"'s 2 px at 11 px)
    alone = Image.new("1", (400, 20), 0)
    ImageDraw.Draw(alone).text((0, 0), text, fill=1, font=font(size))
    lead = alone.getbbox()[0]
    assert abs(xs.max() - xs.min() + 1 - (text_width(text, size) - lead)) <= 1
    middle = (xs.min() + xs.max()) / 2
    assert {"left": xs.min() - lead - box[0] <= 1, "center": abs(middle - (box[0] + box[2]) / 2) <= 2,
            "right": box[2] - xs.max() <= 2}[align], (xs.min(), xs.max())  # (the font leaves 2 px there too)
    runs, n = [], 0
    for d in dark:
        if d:
            n += 1
        elif n:
            runs.append(n)
            n = 0
    assert sum(r >= 3 for r in runs) == text.count(" "), runs


def test_a_path_too_long_for_a_line_is_split_after_a_folder():
    """Seen on NOT STARTED: "firmware_config/pitboar" / "d.toml"; a path is read by its folders."""
    from device.dashboards.pages import WIDTH, wrap

    lines = wrap("or copy firmware_config/pitboard.toml there")
    assert "firmware_config/" in lines and "pitboard.toml there" in lines
    lines = wrap("x" * 60)  # no folder to split after: cut where the line is full, nothing lost
    assert "".join(lines) == "x" * 60 and len(lines) > 1 and all(text_width(ln, 10) <= WIDTH - 2 for ln in lines)


def test_a_banners_waiting_count_keeps_clear_of_its_title():
    """"+1" (one more alert behind this one) was drawn over the title's last letters: the Gaslands news
    "THE BRICK: 1 HIT ·" lost its end under it on Bob's screen in the demo (phase 2)."""
    box = (0, 12, 127, 52)
    title, reason = "THE BRICK: 1 HIT", "HULL 11"
    more = "+1"
    mark_x = box[2] - 1 - pixel_text_width(more)
    image, draw = canvas()
    banner(draw, box, title, reason, blink_on=True)
    dark = ~np.asarray(image, dtype=bool)
    assert dark[box[1]:box[1] + 10, mark_x - 1:box[2]].any(), "the long title reaches the corner by itself"
    image, draw = canvas()
    banner(draw, box, title, reason, blink_on=True, more=more)
    with_more = ~np.asarray(image, dtype=bool)
    marker, _ = canvas()
    pixel_text(ImageDraw.Draw(marker), (mark_x, box[1] + 2), more)
    marker_px = np.asarray(marker, dtype=bool)
    # in the corner there is the "+1" and nothing of the title; the whole title is still there (not cut
    # to "THE BRICK: 1 H…" to stay centred)
    corner = with_more[box[1]:box[1] + 10, mark_x - 1:box[2]]
    assert (corner == marker_px[box[1]:box[1] + 10, mark_x - 1:box[2]]).all()
    cols = np.flatnonzero(with_more[box[1] + 1:box[1] + 16, :mark_x - 1].any(axis=0))
    assert len(cols) and cols[-1] - cols[0] + 1 >= text_width(title, 12) - 2
    # a title with room to spare stays centred beside the marker
    image, draw = canvas()
    banner(draw, box, "WIPEOUT!", "Rust Bucket", blink_on=True, more=more)
    cols = np.flatnonzero((~np.asarray(image, dtype=bool))[box[1] + 1:box[1] + 16, :mark_x - 1].any(axis=0))
    assert abs((cols[0] - box[0]) - (box[2] - cols[-1])) <= 3


def test_a_split_title_beside_the_waiting_count_keeps_its_first_fact_whole():
    """Bob's screen in the demo: "THE BRICK: 1" over "HIT · HULL 11" beside the "+1": the title was split for
    the narrower, centred room although the room beside the marker holds "THE BRICK: 1 HIT"."""
    box = (0, 12, 127, 52)
    image, draw = canvas()
    banner(draw, box, "THE BRICK: 1 HIT · HULL 11", blink_on=True, more="+1")
    dark = ~np.asarray(image, dtype=bool)
    mark_x = box[2] - 1 - pixel_text_width("+1")
    cols = np.flatnonzero(dark[box[1] + 1:box[1] + 16, :mark_x - 1].any(axis=0))
    assert cols[-1] - cols[0] + 1 >= text_width("THE BRICK: 1 HIT", 12) - 2


def test_a_long_banner_title_breaks_between_its_facts_without_the_dot():
    """A news title too long for one line ("THE BRICK: 1 HIT · HULL 11") was split at its last space that
    fits, leaving "THE BRICK: 1 HIT ·" over "HULL 11": it breaks at the " · " and drops it."""
    from device.dashboards.common import _split_to_fit

    assert _split_to_fit("THE BRICK: 1 HIT · HULL 11", 122, 12) == ("THE BRICK: 1 HIT", "HULL 11")
    # an early dot whose rest would not fit the small lines below: the split that fits, as before (review)
    title = "BOB · THE BRICK TAKES 3 HITS AND IS NOW ON FIRE HULL 2"
    head, rest = _split_to_fit(title, 122, 12)
    assert head != "BOB" and f"{head} {rest}" == title
    head, rest = _split_to_fit("DICE MODELS BROKEN: ENTER DICE WITH THE BUTTONS", 122, 12)  # no dot: as before
    assert (head, rest) == ("DICE MODELS", "BROKEN: ENTER DICE WITH THE BUTTONS")


@pytest.mark.parametrize("size", [9, 10, 11])
def test_a_middle_dot_is_not_a_hyphen(size: int) -> None:
    """An audit: at 9 px the bundled font's "·" is two pixels side by side, its "-": "Rust Bucket · gear 4 · 9 haz"
    read "Rust Bucket - gear 4 - 9 haz" and a list of dice "6 4 · 6" "6 4 -6". The dot is narrower than the hyphen
    at every size the screens' small text uses, and a "-" in the same text stays as the font draws it."""
    dot, dash = _ink("·", size), _ink("-", size)
    assert dot.sum() < dash.sum() and dot.shape[1] < dash.shape[1]
    both = _ink("- ·", size)  # one row high: the hyphen's pixels, a gap, the dot's
    assert both.shape[0] == 1 and both.sum() == dash.sum() + dot.sum()
    assert (both[0, :dash.shape[1]] == dash[0]).all()
