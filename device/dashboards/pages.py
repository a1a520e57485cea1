"""The pages every game shares on a player's 128×64 screen: the menu, the dice being entered, a paged text
(a refusal's whole reason, a legend page).  They replace the dashboard on the screen of the player who
is choosing; everybody else keeps their dashboard.

Menu page::

    ┌──────────────────────────────┐  title bar (lit): the step, or the path "1.1 Template › Gentle",
    │1.1 Template › Gentle      2/4│  and the highlighted choice's place in its list
    │  Left                        │  the choice before
    │▌ Right                      ▐│  the highlighted choice (lit bar); "›" = opens a list
    │  Left, reverse               │  the choice after
    │Rust Bucket · gear 1 · 0 haz  │  the facts the chooser needs (or a flashing alert)
    └──────────────────────────────┘

Text is never cut: a line that does not fit is shrunk, and a text longer than a page is split into pages
(``wrap`` / ``paginate``), each marked "1/3"; an alert longer than the footer line is shown a piece at a
time (``footer_pieces``: the app turns them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from device.dashboards.common import (GOES_ON, OFF, ON, WIDTH, canvas, clause_pieces, drawable, font, kept_pieces,
                                      marked, pieced, pixel_drawable, pixel_text, pixel_text_width, terms, text_width)


def fit_text(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, *,
             sizes: tuple[int, ...] = (12, 11, 10, 9), fill: int = ON, align: str = "left") -> int:
    """``text`` on one line in ``box``, at the largest of ``sizes`` whose ink fits (the smallest, cut
    with "…", when none does).  Returns the size used."""
    x0, y0, x1, y1 = box
    width = x1 - x0
    size = next((s for s in sizes if text_width(text, s) <= width), sizes[-1])
    shown = text
    while shown and text_width(shown, size) > width:
        shown = shown[:-2] + "…" if len(shown) > 1 else ""
    ink = text_width(shown, size)
    x = {"left": x0, "center": (x0 + x1 + 1 - ink) // 2, "right": x1 - ink}[align]
    draw.text((x, (y0 + y1 + 1) // 2), drawable(shown), fill=fill, font=font(size), anchor="lm")
    return size

TITLE = (0, 0, WIDTH - 1, 11)
#: Lines of body text a page holds (font 10 at 12-pixel pitch under the title bar).
BODY_LINES = 4
BODY_SIZE = 10
LINE_PITCH = 13
#: The legend's text: the body size (at 9 px a 1-bit screen loses spaces and colons), four lines a page.
LEGEND_SIZE, LEGEND_PITCH, LEGEND_LINES = BODY_SIZE, LINE_PITCH, BODY_LINES
BRANCH_MARK = " ›"
DICE_MARK = ""  # a roll says so in its label ("Roll skid dice")


def _right_width(right: str) -> int:
    """The width of a title bar's right-hand text: a count ("0/4", "10/11") in the pixel font, as the bundled
    font's 0 runs into its slash ("Q/4"); other words at 10 px."""
    return pixel_text_width(right) if pixel_drawable(right) else text_width(right, 10)


def _title_right(right: str) -> int:
    """Where a title bar's own text ends beside ``right`` (its box is from x 1 to this)."""
    return WIDTH - 2 - (_right_width(right) + 4 if right else 0)


#: The smallest size a title bar's path is chosen at: at 8 px the font's t reads as l ("1.1 Templale ›
#: Slraighls"), so a path is shortened before it would shrink that far.
TITLE_MIN_SIZE = 9

#: The sizes a title bar's own text is drawn at.
TITLE_SIZES = (10, TITLE_MIN_SIZE)


def title_pieces(text: str, right: str = "") -> list[str]:
    """``[text]`` when the title bar shows it whole beside ``right`` at its smallest size; else its pieces, each
    filling the bar at that size and marked "…" where it goes on ("Pick for Charlotte's…", "…Performance Car"),
    shown in turn as a footer's are: a long title's middle is read too."""
    return _one_line_pieces(text, _title_right(right) - 1, size=TITLE_SIZES[-1], even=False)


def _title(draw: ImageDraw.ImageDraw, text: str, right: str = "", turn: int = 0) -> None:
    """The lit title bar: ``text`` at the left, ``right`` (a count) at the right; a text too long for it in
    pieces, ``turn`` choosing the one shown (:func:`title_pieces`)."""
    draw.rectangle(TITLE, fill=ON)
    x1 = WIDTH - 2
    if right and pixel_drawable(right):
        pixel_text(draw, (x1 - _right_width(right) + 1, 2), right, fill=OFF)
    elif right:
        fit_text(draw, (x1 - _right_width(right) - 1, 0, x1, 11), right, sizes=(10,), fill=OFF, align="right")
    pieces = title_pieces(text, right)
    fit_text(draw, (1, 0, _title_right(right), 11), pieces[turn % len(pieces)],
             sizes=TITLE_SIZES if len(pieces) == 1 else TITLE_SIZES[-1:], fill=OFF)


def fitting_path(title: str, trail: Sequence[str], right: str) -> str:
    """The title bar's path: "1.1 Template › Gentle" when it fits beside ``right`` ("2/4") at
    ``TITLE_MIN_SIZE``; else the step's number and the lists opened ("1.1 › Straights"); else the step's
    number and the deepest lists that fit ("1.1 … Large car"); else the lists opened without the step;
    else the deepest that fit."""
    room = _title_right(right) - 2  # beside the count as _title draws it (in the pixel font: wider than at 10 px)
    candidates = [" › ".join((title, *trail))] if trail else [title]
    number = title.split(" ", 1)[0]
    if trail and number[:1].isdigit() and number != title:
        candidates.append(" › ".join((number, *trail)))
        candidates += [f"{number} … " + " › ".join(trail[k:]) for k in range(1, len(trail))]
    candidates += [" › ".join(trail[k:]) for k in range(len(trail))]
    for text in candidates:
        if text_width(text, TITLE_MIN_SIZE) <= room:
            return text
    return trail[-1] if trail else title


def wrap(text: str, *, width: int = WIDTH - 2, size: int = BODY_SIZE) -> list[str]:
    """``text`` in lines that fit ``width`` pixels at ``size``; a word longer than a line is split (after a "/"
    in it when there is one: a file's path); a rulebook term of ``KEEP_TOGETHER`` stays on one line."""
    lines: list[str] = []
    for paragraph in str(text).split("\n"):
        line = ""
        for word in terms(paragraph):
            trial = f"{line} {word}" if line else word
            if text_width(trial, size) <= width:
                line = trial
                continue
            if line:
                lines.append(line)
            while text_width(word, size) > width:  # a very long word: cut it where it fills the line
                cut = len(word)
                while cut > 1 and text_width(word[:cut], size) > width:
                    cut -= 1
                slash = word.rfind("/", 0, cut)  # a path splits after one of its folders where it can
                cut = slash + 1 if slash > 0 else cut
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return [ln for ln in lines if ln] or [""]


def paginate(text: str, *, lines_per_page: int = BODY_LINES) -> list[list[str]]:
    lines = wrap(text)
    return [lines[i:i + lines_per_page] for i in range(0, len(lines), lines_per_page)]


@dataclass(frozen=True)
class MenuPage:
    """What the menu page shows (plain data, so that equal pages are not redrawn)."""

    title: str
    entries: tuple[tuple[str, str], ...]  # (label, kind) of the open list; kind: "leaf", "branch", "dice"
    cursor: int
    footer: str = ""
    alert: str = ""
    #: odd: the highlighted label, too long for its line, shows its end ("…Performance Car") instead of its
    #: start; and a title too long for its bar shows its piece ``turn``; the app turns it every ``LABEL_TURN_S`` (see
    #: :func:`menu_page_turns`) so that a long name is read whole
    turn: int = 0


#: A highlighted label too long for its line shows its start, then its end, this long each.
LABEL_TURN_S = 1.5
#: The sizes a highlighted menu line is drawn at (largest first).
HIGHLIGHT_SIZES = (12, 11, 10, 9)  # not 8: the font draws t, f and l alike there
_HIGHLIGHT_BOX = (3, WIDTH - 3)


def label_is_cut(label: str, kind: str) -> bool:
    """Whether a highlighted menu line cannot show ``label`` whole, even at its smallest size."""
    return text_width(label + _mark(kind), HIGHLIGHT_SIZES[-1]) > _HIGHLIGHT_BOX[1] - _HIGHLIGHT_BOX[0]


def menu_count(cursor: int, n: int) -> str:
    """The title bar's count of a menu page: "2/5", the highlighted choice of the open list of ``n``."""
    return f"{cursor % n + 1}/{n}" if n else ""


def dice_count(entered: int, count: int) -> str:
    """The title bar's count of a dice page: "2/4", the dice entered of those asked."""
    return f"{entered}/{count}"


def _count(page: MenuPage) -> str:
    return menu_count(page.cursor, len(page.entries))


def menu_page_turns(page: MenuPage) -> int:
    """How many turns show both ends of a highlighted label too long for its line and every piece of a title too
    long for its bar (1: all of it at once)."""
    label = page.entries[page.cursor] if page.entries else None
    return math.lcm(2 if label is not None and label_is_cut(*label) else 1, len(title_pieces(page.title, _count(page))))


def _tail(text: str, size: int, width: int) -> str:
    """The longest end of ``text`` that fits ``width`` after "…"."""
    for k in range(len(text)):
        shown = "…" + text[k:].lstrip()
        if text_width(shown, size) <= width:
            return shown
    return "…"


@dataclass(frozen=True)
class DicePage:
    title: str
    label: str
    entered: tuple[str, ...]
    count: int
    exact: bool
    current: str
    ready: bool
    alert: str = ""
    #: the rolls entered before this one in the same entry ("bump die 3"), shown before its dice
    kept: str = ""
    #: this roll's dice ("evade dice"), named before them after ``kept``: "attack dice 6 4 · 6" read as one roll
    name: str = ""
    #: NEXT opens the next roll of the entry rather than sending it
    then_another: bool = False
    #: which piece of a dice line too long for its line is shown (``dice_line_pieces``): they take turns
    turn: int = 0


@dataclass(frozen=True)
class TextPage:
    title: str
    lines: tuple[str, ...]
    page: int
    pages: int
    size: int = BODY_SIZE  # the legend is read up close, at 9 px: five lines a page


def _mark(kind: str) -> str:
    return BRANCH_MARK if kind == "branch" else DICE_MARK if kind == "dice" else ""


#: The footer line's alert: its box's width and the smallest size it is drawn at.
FOOTER_WIDTH, FOOTER_MIN_SIZE = WIDTH - 3, 9


def footer_pieces(alert: str) -> list[str]:
    """An alert too long for the footer line, in pieces that each fit it at the body size (shown in turn,
    so that no word of it is cut off; the smallest size is cramped on a 1-bit screen: "Rusl Buckel"), each
    but the last ending "…" (a piece read alone is seen to go on: "camera: SHIFT HAZARD" looked like a whole
    roll of three); ``[alert]`` when it fits the line."""
    return _one_line_pieces(alert, FOOTER_WIDTH)


def _one_line_pieces(text: str, width: int, *, size: int = BODY_SIZE, even: bool = True) -> list[str]:
    """``[text]`` when it fits one line of ``width`` at the smallest size (9 px); else :func:`common.marked` pieces
    of one line each at ``size`` (the body size; a title bar's at its smallest), with room for "…" at both ends (the
    letters' gap too): a piece of one line may carry both marks."""
    if text_width(text, FOOTER_MIN_SIZE) <= width:
        return [text]
    return list(_line_pieces(text, width, size, even))


@lru_cache(maxsize=512)
def _line_pieces(text: str, width: int, size: int, even: bool) -> tuple[str, ...]:
    """:func:`_one_line_pieces` of a text too long for one line: as many pieces as a greedy wrap takes, cut where
    the words pause (``common.clause_pieces``) when ``even``; greedily for a title bar's path, whose "›" parts
    read in order (cut for evenness, "21 to 40 cards…" / "…› 26 to 30 cards": a review).  Kept, as the app asks
    at every redraw."""
    inner = width - 2 * text_width(GOES_ON, size) - 2
    rows = wrap(text, width=inner, size=size)
    parts = clause_pieces(text, inner, size, 1, len(rows), lambda t, w: wrap(t, width=w, size=size)) if even else None
    return tuple(marked(parts if parts is not None else rows))


def unpieced(pieces: Sequence[str]) -> str:
    """The text :func:`footer_pieces` cut into ``pieces``."""
    return " ".join(p.removeprefix(GOES_ON).removesuffix(GOES_ON) for p in pieces)


def _footer(draw: ImageDraw.ImageDraw, text: str, alert: str, blink_on: bool) -> None:
    box = (0, 53, WIDTH - 1, 63)
    if alert:
        if blink_on:
            draw.rectangle(box, fill=ON)
            fit_text(draw, (1, 53, WIDTH - 2, 63), alert, sizes=(10, 9, FOOTER_MIN_SIZE), fill=OFF)
        else:
            fit_text(draw, (1, 53, WIDTH - 2, 63), alert, sizes=(10, 9, FOOTER_MIN_SIZE))
        return
    if text:
        draw.line((0, 52, WIDTH - 1, 52), fill=ON)
        fit_text(draw, (1, 53, WIDTH - 2, 63), text, sizes=(10, FOOTER_MIN_SIZE))


#: A dashboard's notice box: its text's width and size, and the lines it holds under its title.
NOTICE_TEXT_WIDTH, NOTICE_SIZE, NOTICE_LINES = WIDTH - 5, 9, 3


@kept_pieces
def notice_pieces(text: str) -> list[str]:
    """``text`` in pieces that each fill at most a dashboard notice box's lines (shown in turn: "USSR reached
    box 2 Animal in Space first; gains: two Space Race" lost "attempts per turn"), :func:`common.marked` with
    "…" where the text goes on."""
    return pieced(text, lambda t, width: wrap(t, width=width, size=NOTICE_SIZE), NOTICE_TEXT_WIDTH, NOTICE_SIZE,
                  NOTICE_LINES)


def render_menu(page: MenuPage, *, blink_on: bool = True) -> Image.Image:
    image, draw = canvas()
    n = len(page.entries)
    _title(draw, page.title, _count(page), page.turn)
    if not n:
        fit_text(draw, (2, 25, WIDTH - 2, 37), "nothing to choose", sizes=(10,))
    else:
        rows = ((-1, 13, 23), (0, 26, 38), (1, 41, 51)) if n > 2 else ((0, 15, 27), (1, 30, 42)) if n == 2 else ((0, 22, 34),)
        for offset, y0, y1 in rows:
            i = (page.cursor + offset) % n if n > 2 else offset
            if n <= 2:
                highlighted = i == page.cursor
            else:
                highlighted = offset == 0
            label, kind = page.entries[i]
            text = label + _mark(kind)
            if highlighted:
                draw.rectangle((0, y0, WIDTH - 1, y1), fill=ON)
                x0, x1 = _HIGHLIGHT_BOX
                if page.turn % 2 and label_is_cut(label, kind):
                    text = _tail(text, 9, x1 - x0)
                fit_text(draw, (x0, y0, x1, y1), text, sizes=HIGHLIGHT_SIZES, fill=OFF)
            else:
                fit_text(draw, (6, y0, WIDTH - 3, y1), text, sizes=(10, 9))
    _footer(draw, page.footer, page.alert, blink_on)
    return image


#: The dice line's box: its width.
DICE_LINE_WIDTH = WIDTH - 3


def dice_line(page: DicePage) -> str:
    """The dice entered so far, after the entry's earlier roll when it has one, each roll by its name ("attack
    dice 6 4 · evade dice 6")."""
    if not page.kept:
        return " ".join(page.entered) if page.entered else "no dice yet"
    if not page.entered:  # the title's "0/1" says none yet: "bump die bump1 · direction die: none yet" took three
        return page.kept  # pieces, the first die's face on screen a third of the time (an audit)
    return f"{page.kept} · {page.name + ' ' if page.name else ''}{' '.join(page.entered)}"


def line_pieces(line: str) -> list[str]:
    """A line of the dice page whole when it fits at 9 px; else in pieces that fit at the body size, shown in
    turn, each but the last ending "…" and each but the first beginning "…" (as the footer's)."""
    return _one_line_pieces(line, DICE_LINE_WIDTH)


def dice_line_pieces(page: DicePage) -> list[str]:
    """The dice line in pieces (:func:`line_pieces`), so that every die is read before NEXT sends them ("SHIFT
    HAZARD SPIN SHIFT…" hid the fifth; at 8 px a 1-bit screen draws "attack" "allack")."""
    return line_pieces(dice_line(page))


def label_pieces(page: DicePage) -> list[str]:
    """The label in pieces (:func:`line_pieces`): "3 hits on Dmitri's Ice Cream Truck: evade dice" was cut, and
    with it whose evade dice they are.  Before any die is entered it has the dice line's row too
    (:func:`label_lines`): two lines at a time, as a scroll moves them (the second line of one piece is the first
    of the next, so that "Car (2 ± weight)" is never read alone), each piece's two joined by a newline."""
    lines = label_lines(page)
    if lines:
        return ["\n".join(lines[i:i + 2]) for i in range(max(1, len(lines) - 1))]
    return line_pieces(page.label)


def label_lines(page: DicePage) -> list[str]:
    """The label's lines at 9 px, shown two at a time in the label's and the dice line's rows, when it is too long
    for one and no die of the entry is there to show yet (the title's "0/4" says none): "3 hits on Dmitri's Ice
    Cream Truck: evade dice" was read in three pieces of one line beside "no dice yet" (a screens audit), and "smash
    dice on Charlotte's Performance Car (2 ± weight)" in four, cut mid-word ("…otte's Performance…"); now in two
    pieces of two lines, cut between words (a word wider than the screen where :func:`wrap` cuts it).  Empty when
    the label fits its own line."""
    return [] if page.kept or page.entered else list(_label_wrap(page.label))


@lru_cache(maxsize=64)
def _label_wrap(label: str) -> tuple[str, ...]:
    """:func:`label_lines` of ``label`` (empty when it fits one line): kept, as the app asks it of every dice page
    at each redraw three times (its turns, its label's pieces, its drawing) and it is measured by drawing."""
    if text_width(label, FOOTER_MIN_SIZE) <= DICE_LINE_WIDTH:
        return ()
    return tuple(wrap(label, width=DICE_LINE_WIDTH, size=FOOTER_MIN_SIZE))


def dice_page_turns(page: DicePage) -> int:
    """How many turns show every piece of both lines and of the title (each goes round on its own)."""
    return math.lcm(len(label_pieces(page)), len(dice_line_pieces(page)), len(title_pieces(page.title, _limit(page))))


def _limit(page: DicePage) -> str:
    return dice_count(len(page.entered), page.count)


def render_dice(page: DicePage, *, blink_on: bool = True) -> Image.Image:
    image, draw = canvas()
    _title(draw, page.title, _limit(page), page.turn)
    lines = label_lines(page)
    if lines:
        size = 10 if all(text_width(line, 10) <= WIDTH - 3 for line in lines) else 9  # one size for them all
        pieces = label_pieces(page)
        first, second = pieces[page.turn % len(pieces)].split("\n")
        fit_text(draw, (1, 12, WIDTH - 2, 23), first, sizes=(size,))
        fit_text(draw, (1, 24, WIDTH - 2, 34), second, sizes=(size,))
    else:
        labels = label_pieces(page)
        fit_text(draw, (1, 12, WIDTH - 2, 23), labels[page.turn % len(labels)], sizes=(10, 9))
        pieces = dice_line_pieces(page)
        fit_text(draw, (1, 24, WIDTH - 2, 34), pieces[page.turn % len(pieces)], sizes=(10, 9))
    draw.rectangle((0, 36, WIDTH - 1, 50), fill=ON)
    fit_text(draw, (3, 36, WIDTH - 3, 50), f"‹ {page.current} ›", sizes=(13, 12, 11, 10), fill=OFF, align="center")
    hint = ("OK keep · NEXT next die" if page.then_another else "OK keep · NEXT send") if page.ready \
        else "SEL face · OK keep"
    _footer(draw, hint, page.alert, blink_on)
    return image


def render_text(page: TextPage, *, blink_on: bool = True) -> Image.Image:
    image, draw = canvas()
    _title(draw, page.title, f"{page.page}/{page.pages}" if page.pages > 1 else "")
    f = font(page.size)
    pitch, rows = (LINE_PITCH, BODY_LINES) if page.size >= BODY_SIZE else (LEGEND_PITCH, LEGEND_LINES)
    for k, line in enumerate(page.lines[:rows]):
        draw.text((1, 13 + k * pitch), drawable(line), fill=ON, font=f)
    return image


def text_pages(title: str, text: str) -> list[TextPage]:
    """``text`` under ``title`` as whole pages (never cut)."""
    chunks = paginate(text)
    return [TextPage(title, tuple(lines), i + 1, len(chunks)) for i, lines in enumerate(chunks)]


def legend_pages(game: str, legend: Sequence[tuple[str, str]]) -> list[TextPage]:
    """A dashboard's legend — (symbol, what it means) pairs — as pages titled "Legend"; an entry is never
    split over two pages unless it is longer than a page."""
    chunks: list[list[str]] = [[]]
    for symbol, meaning in legend:
        lines = wrap(f"{symbol}: {meaning}", size=LEGEND_SIZE)
        if chunks[-1] and len(chunks[-1]) + len(lines) > LEGEND_LINES:
            chunks.append([])
        for line in lines:
            if len(chunks[-1]) == LEGEND_LINES:
                chunks.append([])
            chunks[-1].append(line)
    names = {"gaslands": "Gaslands", "thunder_road": "Thunder Road", "space_race": "Space Race",
             "grand_tour": "Grand Tour"}
    title = f"Legend · {names.get(game, game)}"
    if len(title_pieces(title, f"{len(chunks)}/{len(chunks)}")) > 1:  # (beside the widest page count)
        title = "Legend"  # ten pages or more: "Legend · Thunder R…" was cut beside "10/11"
    return [TextPage(title, tuple(c), i + 1, len(chunks), LEGEND_SIZE) for i, c in enumerate(chunks)]
