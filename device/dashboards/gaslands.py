"""The Gaslands dashboard: one player's vehicle(s) on a 0.96" 128×64 OLED.

Read at arm's length, so the layout is a few big things in fixed places::

    ┌──────────────────────────────────┐   header: ▶ = your activation (whole bar lit), vehicle name,
    │▶ Rust Bucket          ⚑ ph 3     │           ⚑ = pole position, ph = gear phase
    │ ███   ○ ○ ○ ○ ○ ○ ┃ ●●            │   big current gear with /max gear;  hazard pips: rings up to the
    │ █ █ /6 ████████ 7/10              │   wipeout line (the view's wipeout_at), then the tokens past it;
    │ ███   FIRE   done                 │   ON FIRE tag, "done" = already activated this gear phase
    │ 1.3 skid check                    │   the step, short
    └──────────────────────────────────┘

A player with several vehicles sees the *featured* one big (the active one, else the next to activate)
and the others as chips in a right-hand column: initial + gear, inverted at the wipeout line, crossed out
when wrecked; with one or two others, each chip also shows its hazard tokens as dots and its hull as a bar.  Alerts (not-permitted template, the touch-move pick and placing, a coming wipeout, a loss of
control, a wreck) cover the middle as a lit banner while ``blink_on``, so they flash over the normal picture.

The screen knows no rule: the wipeout line and which vehicles still activate in this gear phase come with
the view (``VehicleView.wipeout_at``, ``VehicleView.activates_this_phase``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from device.dashboards.common import (
    HEIGHT,
    OFF,
    ON,
    TEXT_SIZES,
    WIDTH,
    banner,
    bar,
    canvas,
    fit_text,
    flag,
    font,
    kept_pieces,
    notice_title,
    pieced,
    pips,
    pixel_text,
    pixel_text_width,
    text_width,
    triangle,
    winner_bar,
)
from games.gaslands.state import PlayerView, VehicleView, name_for_owner

#: Alert kinds → the banner's big word, and which wins when several stand (lower first).
ALERT_TITLES = {"wrecked": "WRECKED", "lost_control": "LOST CONTROL", "you_turn": "YOU TURN",
                "wipeout_coming": "WIPEOUT!", "illegal_template": "NOT PERMITTED", "touch_move": "YOU PICK",
                "touch_move_place": "YOU PLACE", "car_unseen": "CAR NOT SEEN"}
#: Which alert the banner shows first (the others are "+N").  A roll asked of this player now ("3 hits: roll 3 evade
#: dice") before all: behind a crash's news it stood unseen for 14 s while the evade entry waited (an audit).  Then
#: what a decision settled and what was undone, for the while they are told: behind a standing alert of the game
#: (WIPEOUT! stands from the 6th hazard token to step 3) the owner never read their own car's "2 hits · hull 4",
#: nor an UNDONE every other screen showed (an audit, five players); the standing alert comes back after them.
#: YOU TURN (a car that lost control, turned by this player while its owner rolls the flip check) is a thing to do
#: now as a roll is: behind the attack's news it waited 10 s as "+1", and the flip die entered sooner ended it
#: unseen (an audit, five players).
ALERT_ORDER = ("roll", "you_turn", "news", "undone", "wrecked", "lost_control", "wipeout_coming", "illegal_template",
               "touch_move", "touch_move_place", "car_unseen")

#: The rules' step names are for the log; the screen has ~20 characters.
SHORT_STEPS = {
    "choose vehicle": "pick a vehicle",
    "1.1 choose template": "1.1 pick template",
    "1.1 touch-move: left player picks": "1.1 left player picks",
    "1.2 place template": "1.2 place template",
    "1.3 skid check": "1.3 skid check",
    "1.4 apply SHIFT results": "1.4 spend SHIFTs",
    "1.6 resolve slide": "1.6 slide",
    "1.7 move": "1.7 move",
    "1.8 resolve spin": "1.8 spin",
    "2 attack step": "2 attack",
    "3 wipeout: flip check": "3 WIPEOUT flip check",
    "3 wipeout: lost control in gear 1": "3 WIPEOUT turn it",
    "3 wipeout: flip move": "3 WIPEOUT flip move",
    "game over": "GAME OVER",
}

HEADER = (0, 0, WIDTH - 1, 11)
MIDDLE_TOP, MIDDLE_BOTTOM = 13, 52
FOOTER = (0, 54, WIDTH - 1, HEIGHT - 1)


@dataclass(frozen=True)
class _Geometry:
    """Where the middle band's parts go; the multi-vehicle layout gives up width to the chips."""

    gear_size: int
    gear_x: int
    right_x: int  # left edge of the pips / hull / tags block
    right_end: int  # right edge of that block
    pip_pitch: int
    pip_d: int


SINGLE = _Geometry(gear_size=44, gear_x=1, right_x=47, right_end=WIDTH - 1, pip_pitch=10, pip_d=8)
MULTI = _Geometry(gear_size=40, gear_x=0, right_x=40, right_end=104, pip_pitch=9, pip_d=7)
CHIPS_X = 107
MAX_CHIPS = 4


def featured(view: PlayerView) -> VehicleView | None:
    """The vehicle drawn big: the active one, else the next that activates this gear phase, else the
    first still running, else the first."""
    vs = view.vehicles
    if not vs:
        return None
    for test in (
        lambda v: v.active,
        lambda v: v.activates_this_phase,
        lambda v: not v.wrecked,
    ):
        for v in vs:
            if test(v):
                return v
    return vs[0]


def short_step(step: str) -> str:
    return SHORT_STEPS.get(step, step)


def render(view: PlayerView, *, blink_on: bool) -> Image.Image:
    """Draw ``view``.  ``blink_on`` shows the alert banner (alternate it to make alerts flash)."""
    image, draw = canvas()
    main = featured(view)
    others = [v for v in view.vehicles if v is not main]
    geo = MULTI if others else SINGLE

    _header(draw, view, main)
    if main is None:
        fit_text(draw, (2, MIDDLE_TOP, WIDTH - 3, MIDDLE_BOTTOM), "no vehicles", sizes=(14, 12))
    elif main.wrecked:
        _wrecked(draw, main, geo)
    else:
        _gear(draw, main, geo)
        _hazards(draw, main, geo)
        _hull(draw, main, geo)
        _tags(draw, main, geo)
    if others:
        _chips(draw, view, others)
    _footer(draw, view, main)
    _alert(draw, view, blink_on)
    return image


# -- parts ----------------------------------------------------------------------------------------------


def _header(draw: ImageDraw.ImageDraw, view: PlayerView, main: VehicleView | None) -> None:
    if view.winner is not None:  # the game is over: who won, on every screen (lit on the winner's)
        winner_bar(draw, view.winner, view.player, HEADER[3])
        return
    ink = ON
    if view.your_activation:
        draw.rectangle(HEADER, fill=ON)
        ink = OFF
        triangle(draw, 1, 1, 10, fill=ink)
    right = WIDTH - 1
    phase = f"ph{view.gear_phase}"
    fit_text(draw, (right - 23, 0, right, 11), phase, sizes=(11,), fill=ink, align="right")
    right -= 24
    if view.has_pole:
        flag(draw, right - 7, 1, fill=ink)
        right -= 10
    left = 9 if view.your_activation else 1
    # on its owner's screen a vehicle named "Dmitri's Bike with Sidecar" is "Bike with Sidecar": the owner's
    # name took half the header and cut the type off ("Dmitri's Bike with Si…")
    name = _own_name(view, main) if main is not None else view.player
    fit_text(draw, (left, 0, right - 1, 11), name, sizes=(11, 10, 9), fill=ink)


def _gear(draw: ImageDraw.ImageDraw, v: VehicleView, geo: _Geometry) -> None:
    baseline = MIDDLE_BOTTOM - 1
    digits = str(v.gear)
    f = font(geo.gear_size)
    draw.text((geo.gear_x + 1, baseline), digits, font=f, fill=ON, anchor="ls", stroke_width=1, stroke_fill=ON)
    x = geo.gear_x + 1 + int(f.getbbox(digits, anchor="ls", stroke_width=1)[2]) + 2
    pixel_text(draw, (x, baseline - 6), f"/{v.max_gear}")


def _hazards(draw: ImageDraw.ImageDraw, v: VehicleView, geo: _Geometry) -> None:
    """Rings up to the wipeout line (filled = tokens), the line, then what lies beyond it."""
    y = MIDDLE_TOP + 2
    x = geo.right_x
    line = v.wipeout_at
    over = v.hazards - line
    pitch = geo.pip_pitch
    if over > 0:  # the rings close up a little when what lies beyond the line would not fit ("+1" was cut to "+")
        while pitch > geo.pip_d + 1 and x + line * pitch + 4 + _beyond_width(over, geo) - 1 > geo.right_end:
            pitch -= 1
    end = pips(draw, x, y, min(v.hazards, line), slots=line, pitch=pitch, diameter=geo.pip_d)
    line_x = end
    draw.rectangle((line_x, MIDDLE_TOP - 1, line_x + 1, y + geo.pip_d + 1), fill=ON)
    if over <= 0:
        return
    room = geo.right_end - (line_x + 4) + 1
    if over * (geo.pip_d + 1) <= room:
        pips(draw, line_x + 4, y, over, pitch=geo.pip_d + 1, diameter=geo.pip_d)
    else:
        text = f"+{over}" if pixel_text_width(f"+{over}") < room else str(over)  # "+10" loses its "+" first
        pixel_text(draw, (line_x + 4, y + (geo.pip_d - 7) // 2), text)


def _beyond_width(over: int, geo: _Geometry) -> int:
    """What the tokens past the wipeout line take: their pips while up to two fit, else "+N" (or "N")."""
    return min(over * (geo.pip_d + 1), pixel_text_width(f"+{over}" if over < 10 else str(over)) + 1)


def _hull(draw: ImageDraw.ImageDraw, v: VehicleView, geo: _Geometry) -> None:
    top = MIDDLE_TOP + 15
    label = f"{v.hull}/{v.max_hull}"
    w = pixel_text_width(label)
    bar(draw, (geo.right_x, top, geo.right_end - w - 4, top + 8), v.hull, v.max_hull)
    pixel_text(draw, (geo.right_end - w, top + 1), label)  # a pixel further right cut the last digit's edge


def _tags(draw: ImageDraw.ImageDraw, v: VehicleView, geo: _Geometry) -> None:
    top, bottom = MIDDLE_TOP + 27, MIDDLE_BOTTOM
    x = geo.right_x
    done = v.activated_this_phase and not v.active
    if v.on_fire:
        # beside "done" in the narrow (several vehicles) layout, ON FIRE cut "done" to "d…": FIRE then
        w, word = 44, "ON FIRE"
        if done and x + w + 4 + text_width("done", 10) > geo.right_end:
            w, word = 28, "FIRE"
        draw.rounded_rectangle((x, top, x + w, bottom), radius=2, fill=ON)
        fit_text(draw, (x + 2, top, x + w - 2, bottom), word, sizes=(11, 10), fill=OFF, align="center")
        x += w + 4
    if done:
        fit_text(draw, (x, top, geo.right_end, bottom), "done", sizes=(11, 10), align="right" if v.on_fire else "left")


def _wrecked(draw: ImageDraw.ImageDraw, v: VehicleView, geo: _Geometry) -> None:
    right = geo.right_end
    draw.rectangle((1, MIDDLE_TOP + 2, right - 1, MIDDLE_BOTTOM - 2), outline=ON)
    draw.line((1, MIDDLE_TOP + 2, right - 1, MIDDLE_BOTTOM - 2), fill=ON)
    draw.line((1, MIDDLE_BOTTOM - 2, right - 1, MIDDLE_TOP + 2), fill=ON)
    mid = (MIDDLE_TOP + MIDDLE_BOTTOM) // 2
    draw.rectangle((12, mid - 8, right - 12, mid + 8), fill=OFF)
    fit_text(draw, (13, mid - 8, right - 13, mid + 8), "WRECKED", sizes=(16, 14, 12), align="center")


def _own_name(view: PlayerView, v: VehicleView) -> str:
    """A vehicle's name on its owner's screen: "Alice's Car" is just "Car" there (a chip's initial must
    tell Alice's Buggy from Alice's Car)."""
    return name_for_owner(v.name, view.player) or v.id


def chip_marks(view: PlayerView) -> dict[str, str]:
    """Each of the player's vehicles' mark on a chip, by id: its initial ("Buggy" B), and where two share one,
    the initial and its number or second letter ("Buggy" B, "Buggy 2" B2, "Bike" Bi), so that no two chips
    read alike.  Taken over all the player's vehicles, so a vehicle keeps its mark whichever one is drawn big."""
    names = {v.id: _own_name(view, v) for v in view.vehicles}
    initial = {i: (n[:1] or "?").upper() for i, n in names.items()}
    marks: dict[str, str] = {}
    for i, n in names.items():
        if sum(1 for j in initial.values() if j == initial[i]) == 1:
            marks[i] = initial[i]
            continue
        last = n.rsplit(" ", 1)[-1]
        marks[i] = initial[i] + (last if " " in n and last.isdigit() else n[1:2].lower())
    for i in names:  # still alike ("Bus", "Buggy"): the initial and the place among its kind
        alike = [j for j in names if marks[j] == marks[i]]
        if len(alike) > 1:
            for k, j in enumerate(alike, 1):
                marks[j] = f"{initial[j]}{k}"
    return marks


#: Other vehicles up to this many get tall chips: under the mark and gear, a dot per hazard token up to the
#: wipeout line and a hull bar (an audit, five players: a second car's hazards and hull were on no screen).
TALL_CHIPS = 2


def _chips(draw: ImageDraw.ImageDraw, view: PlayerView, others: Sequence[VehicleView]) -> None:
    """The other vehicles: mark (:func:`chip_marks`) + gear, 10 px high each, in the right-hand column; with one
    or two, each 20 px high with its hazard tokens (dots) and hull (a bar) under that (:func:`_chip_state`)."""
    marks = chip_marks(view)
    tall = len(others) <= TALL_CHIPS
    two = any(len(marks.get(v.id, "")) > 1 for v in others)
    room, gap = (2, 3) if two else (0, 0)
    for y in range(MIDDLE_TOP - 1, MIDDLE_BOTTOM + 1, 2):
        draw.point((CHIPS_X - 2, y), fill=ON)
    shown = list(others[:MAX_CHIPS])
    extra = len(others) - len(shown)
    if extra:
        shown = shown[: MAX_CHIPS - 1]
        extra = len(others) - len(shown)
    for i, v in enumerate(shown):
        top = MIDDLE_TOP + i * (20 if tall else 10)
        box = (CHIPS_X, top, WIDTH - 1, top + 8)
        ink = ON
        if v.hazards >= v.wipeout_at and not v.wrecked:
            draw.rectangle(box, fill=ON)
            ink = OFF
        # 9 px for the initial: a wide letter (M, W) did not fit 7 px at size 10 and was cut to nothing; marks of
        # two (B2) take 12 px, and every gear moves to the right edge, apart from them
        fit_text(draw, (box[0] + 1, top, box[0] + 10 + room, top + 8), marks.get(v.id, "?"), sizes=(10, 9, 8, 7),
                 fill=ink)
        pixel_text(draw, (box[0] + 12 + gap, top + 1), str(v.gear)[-1], fill=ink)
        if tall and not v.wrecked:
            _chip_state(draw, v, top + 11)
        if v.wrecked:
            draw.line((box[0], box[3], box[2], box[1]), fill=ON)
        if v.on_fire:
            draw.line((box[0] + 1, box[3] + 1, box[2] - 1, box[3] + 1), fill=ON)
    if extra:
        top = MIDDLE_TOP + len(shown) * 10
        fit_text(draw, (CHIPS_X, top, WIDTH - 1, top + 8), f"+{extra}", sizes=(10, 9), align="center")


def _chip_state(draw: ImageDraw.ImageDraw, v: VehicleView, y: int) -> None:
    """Under a tall chip's mark: a 2 px dot per hazard token, a 1 px one per free place up to the wipeout line (6:
    18 px), then a 3 px hull bar filled as the hull points left."""
    x0, x1 = CHIPS_X + 1, WIDTH - 2
    for k in range(max(1, min(v.wipeout_at, 6))):
        x = x0 + k * 3
        if k < v.hazards:
            draw.rectangle((x, y, x + 1, y + 1), fill=ON)
        else:
            draw.point((x, y + 1), fill=ON)
    draw.rectangle((x0, y + 4, x1, y + 6), outline=ON)
    inner = x1 - x0 - 1
    filled = round(inner * max(0, v.hull) / v.max_hull) if v.max_hull > 0 else 0
    if filled:
        draw.line((x0 + 1, y + 5, x0 + filled, y + 5), fill=ON)


def _footer(draw: ImageDraw.ImageDraw, view: PlayerView, main: VehicleView | None = None) -> None:
    for x in range(0, WIDTH, 2):
        draw.point((x, FOOTER[1] - 1), fill=ON)
    fit_text(draw, (FOOTER[0], FOOTER[1], FOOTER[2], FOOTER[3]), footer_text(view, main), sizes=(11, 10, 9))


def footer_text(view: PlayerView, main: VehicleView | None = None) -> str:
    """The table's step; on the others' screens, whose it is ("Alice · 1.1 pick template", or as many of the
    step's first words as fit, "Alice · 3 WIPEOUT flip…"): "1.1 pick template" alone did not say who the table
    waits for, and the step's number alone ("Alice · 3") said nothing of a wipeout.  The game won, the big
    vehicle ``main``'s name, which the header held ("Rust Bucket · GAME OVER")."""
    step = short_step(view.step)
    if view.winner is not None and main is not None:
        # the header says who won: "Cy wins" over a big "3 /6" said nothing of whose numbers they were (a
        # walkthrough of five players)
        name = _own_name(view, main)
        both = f"{name} · {step}"
        return both if text_width(both, 9) <= FOOTER[2] - FOOTER[0] else name
    who = view.acting
    if who is None or who == view.player:  # nobody is waited for at game over
        return step
    width = FOOTER[2] - FOOTER[0]
    # the step whole beside the name, cut to no fewer than its first four letters: "Bartholomew · pick a" and
    # "Bartholomew · 1.1 left" (of "left player picks", read as "Bartholomew left") cut the step mid-phrase (a
    # screens audit); "Bartho… · pick a vehicle" says both.  Else the step's first words, "…" where words are left
    # out ("Ben · 3 WIPEOUT flip" read as the flip made: a screens walkthrough), the name cut first there too
    words = step.split()
    for k in range(len(words), 0, -1):
        said = step if k == len(words) else f"{' '.join(words[:k])}…"
        for n in range(len(who), min(len(who), 4) - 1, -1):  # (a name of three letters or fewer: whole only)
            shown = f"{who if n == len(who) else who[:n].rstrip() + '…'} · {said}"
            if text_width(shown, 9) <= width:
                return shown
    return f"{who} · {step}"


def news_pieces(text: str) -> list[str]:
    """The game's news ("what: details") in pieces this screen's banner holds whole, shown in turn: the title
    on each, the details two small lines at a time ("Collision, evaded: Charlotte's Performance Car and Dmitri's
    Ice Cream Truck, +1 hazard each" was cut after "Ice", and its second piece drawn as a title)."""
    head = _news_title(text)
    if head is None:  # no title of its own fits: under NOTE, as the other games' screens say news
        head, rest = NEWS_TITLE, text
    else:
        rest = text[len(head) + 2:]
    return [f"{head}: {piece}" for piece in notice_pieces(rest)] if rest.split() else [text]


@kept_pieces
def notice_pieces(text: str) -> list[str]:
    """An app notice's words under its title in pieces the banner holds whole (two small lines each), for
    ``device.dashboards.notice_pieces``: a notice of one piece is drawn as before (its words in capitals), more
    pieces carry "…" where the words go on (``common.pieced``)."""
    from device.dashboards.pages import wrap

    return pieced(text, lambda t, width: wrap(t, width=width, size=TEXT_SIZES[-1]), BANNER_LINE, TEXT_SIZES[-1], 2)


#: The title of a news whose own words before ": " do not fit the title line (NOTICE_TITLES' for news).
NEWS_TITLE = "NOTE"


#: The width of a banner's small lines (``banner``: its box less 3 px a side).
BANNER_LINE = WIDTH - 1 - 6


def _news_title(text: str) -> str | None:
    """The words before the first ": " of a news ("Head-on collision", "Red Fury"), when they fit the banner's title
    line at its smallest size; else None (a long car's name cut as a title: "DMITRI'S ICE CR…")."""
    if ": " not in text:
        return None
    head = text.split(": ", 1)[0]
    return head if text_width(head.upper(), 12) <= BANNER_LINE else None


def _alert(draw: ImageDraw.ImageDraw, view: PlayerView, blink_on: bool) -> None:
    mine = [a for a in view.alerts if a.player in (None, view.player)]
    if not mine:
        return
    rank = {k: i for i, k in enumerate(ALERT_ORDER)}
    mine.sort(key=lambda a: rank.get(a.kind, len(ALERT_ORDER)))
    top = mine[0]
    if top.kind in ALERT_TITLES:
        title = ALERT_TITLES[top.kind]
        text = _without(top.text, title)
    else:
        # an app notice is its words in capitals, or, when it begins with its title ("NOT RECORDED: the disk
        # is full: ..."), the title over the rest: in capitals all of it was cut at the banner's end
        title, text = notice_title(top.kind, top.text)
        # (a roll to make too: "SILVER BULLET: 3" over "HITS: ROLL 1 EVADE DIE" read as a reading; a walkthrough)
        head = _news_title(top.text) if top.kind in ("news", "roll") else None
        if text == top.text and head is not None:
            # the game's news is "what: details" ("Head-on collision: Rust Bucket and The Brick, +2 hazard each"):
            # in capitals all of it was one title, cut at the banner's third line
            title, text = head.upper(), top.text[len(head) + 2:]
        elif text == top.text:
            title, text = top.text.upper(), ""
    box = (0, MIDDLE_TOP - 1, WIDTH - 1, MIDDLE_BOTTOM)
    banner(draw, box, title, text, blink_on=blink_on, more=f"+{len(mine) - 1}" if len(mine) > 1 else "")


def alert_pieces(kind: str, text: str) -> list[str]:
    """A game alert whose words under its big word do not fit the banner's two small lines, in pieces shown in
    turn (``device.dashboards.alert_pieces``; the app turns them on the alerts' beat): the owner's NOT PERMITTED
    of a touch-move stood as "Hairpin in gear 1. Bartholomew picks for y…" for the whole touch-move, its end
    never shown (a screens audit).  ``[text]`` when it fits, or for a kind without a big word."""
    if kind not in ALERT_TITLES:
        return [text]
    pieces = notice_pieces(_without(text, ALERT_TITLES[kind]))
    return pieces if len(pieces) > 1 else [text]


def _without(text: str, title: str) -> str:
    """The alert's text minus the banner's big word ("Hairpin NOT PERMITTED in gear 5" → "Hairpin in gear 5")."""
    words = title.strip("!").strip()
    cut = re.sub(re.escape(words), " ", text, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", cut).strip(" ,:;-")
