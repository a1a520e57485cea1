"""The Space Race dashboard: one side's place on the Twilight Struggle Space Race track.

::

    ┌──────────────────────────────────┐  header: side, its active abilities, turn
    │ USSR        2X HL           T4   │
    │ ██      VP        attempts       │  big: the box reached (of 8), the VP scored from the race,
    │ ██ /8   5           1            │       the Space Race attempts left this turn
    │ next 3+ Ops · 1-3 · 50%          │  the next box: Ops needed, success roll, odds
    │ ▐██▌▐██▌▐██▌▐██▌▐  ▌▐▄▄▌▐  ▌▐  ▌ │  the track: 8 boxes 15 px wide, yours lit up to your marker,
    └──────────────────────────────────┘  the rival's marker a block in its box (dark on a lit box)

Why the track is eight wide boxes across the whole screen: at 5 px a box (the first layout) the boxes and
the rival's 1-px dot could not be told apart at arm's length; at 15 px each box, and a 9×6 block for the
rival, who is ahead and by how much reads at a glance.  The abilities moved to the header to make room.

While this side's die is awaited a lit "ROLL d6" banner flashes over the middle (with the reminder that
the card triggers no event).  The app's messages (a refusal and its reason, camera trouble) flash the
same way.  Abilities are short
codes so they fit: 2X two attempts, HL opponent reveals headline first, DIS discard a held card, 8AR eight
action rounds; the rival's HL shows on this side's header as 1stHL (this side reveals its headline first).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from device.dashboards.common import (OFF, ON, WIDTH, banner, canvas, drawable, fit_text, font, notice_title,
                                      terms, text_width)
from games.core import Alert
from games.space_race.state import Step
from games.space_race.views import SideView

#: each ability's code in the header, by its key (the words are the edition's and the owner's to edit)
ABILITY_CODES = {"two_attempts": "2X", "opponent_headline_first": "HL", "discard_held": "DIS",
                 "eight_action_rounds": "8AR"}
#: the rival's abilities that bind this side, as this side's header says them ("1stHL": reveal yours first)
RIVAL_CODES = {"opponent_headline_first": "1stHL"}


def ability_code(key: str) -> str:
    return ABILITY_CODES.get(key, key[:3].upper())


#: the track as drawn: boxes, the pitch of a box and its height (the bottom rows of the screen)
TRACK_BOXES = 8
BOX_PITCH = WIDTH // TRACK_BOXES
TRACK_TOP = 54


def render(view: SideView, *, blink_on: bool) -> Image.Image:
    image, draw = canvas()
    # header: side, active abilities, turn
    fit_text(draw, (0, 0, 32, 11), view.side, sizes=(12,), stroke=0)
    codes = " ".join([*(ability_code(a) for a in view.ability_keys),
                      *(RIVAL_CODES.get(a, ability_code(a).lower()) for a in view.rival_ability_keys)])
    if codes:
        # a word's space from the side's name at least (all four codes at 10 px began 2 px after it: "USSR2X HL…",
        # an audit)
        left = max(34, min(32, text_width(view.side, 12)) + 5)
        fit_text(draw, (left, 0, 102, 11), codes, sizes=(10, 9, 8), align="center")
    fit_text(draw, (104, 0, WIDTH - 1, 11), f"T{view.turn}" if view.turn else "T-", sizes=(12,), align="right")
    draw.line((0, 12, WIDTH - 1, 12), fill=ON)
    # big numbers
    draw.text((0, 14), str(view.box), fill=ON, font=font(28), stroke_width=1, stroke_fill=ON)
    draw.text((22, 32), "/8", fill=ON, font=font(10))
    draw.text((46, 14), "VP", fill=ON, font=font(9))
    # not bold: at 16-20 px the stroke closes a 5, 6 and 8 alike (24 px and up stay open)
    draw.text((46, 21), str(view.vp), fill=ON, font=font(20))
    # the rulebook's word ("two Space Race attempts per turn"), lower case so that it fits; "TRY" was our own word
    draw.text((WIDTH - 1, 14), "attempts", fill=ON, font=font(9), anchor="ra")
    # between turns no attempt is open: "-" (a 0 read as a turn still going on, its attempts spent)
    between = view.step == Step.BETWEEN_TURNS.value
    draw.text((92, 21), "-" if between else str(view.attempts_left), fill=ON, font=font(20))
    # next attempt
    if view.finished:
        # this side only: "may not play cards to the Space Race for the rest of the game"; the other side may still
        # be racing ("race over" said it was over for both: an audit)
        # ("no more cards" read as a hand with no cards left: a screens walkthrough)
        line = "last box: no more attempts" if view.opponent_box < TRACK_BOXES else "both on the last box"
    elif view.rival_rolls:  # while the other side rolls, this side's next attempt waits: whose die it is
        line = view.rival_rolls
    else:
        # "·" between the figures: a space of one pixel made "1-4 67%" read "1-467%"
        # "2+": "a card whose operations value is ≥ the value printed on that box" ("2 Ops" read as exactly 2)
        line = f"next {view.next_ops}+ Ops · {view.next_roll} · {view.odds_percent}%"
    fit_text(draw, (0, 43, WIDTH - 1, 52), line, sizes=(11, 10, 9))
    track(draw, view.box, view.opponent_box, top=TRACK_TOP)
    if is_status(view.prompt):
        status_line(draw, (0, 54, WIDTH - 1, 63), view.prompt)
    notices = [a for a in view.alerts if a.kind not in RULE_ALERTS and a.player in (None, view.player)]
    if notices:
        notice(draw, (0, 13, WIDTH - 1, 52), notices[0], blink_on=blink_on)  # the app's first (its ranked order)
    elif view.your_die:
        banner(draw, (0, 13, WIDTH - 1, 52), "ROLL d6", f"{view.next_roll} wins, no event", blink_on=blink_on)
    return image


def track(draw: ImageDraw.ImageDraw, box: int, rival: int, *, top: int) -> None:
    """The eight boxes across the screen from ``top`` to the bottom row: this side's boxes lit up to its
    marker, the rival's marker a 9×6 block in its box (dark in a lit box, lit in a dark one)."""
    bottom = top + 9
    for i in range(TRACK_BOXES):
        x0, x1 = i * BOX_PITCH, i * BOX_PITCH + BOX_PITCH - 2
        reached = i < box
        draw.rectangle((x0, top, x1, bottom), outline=ON, fill=ON if reached else OFF)
        if rival == i + 1:
            draw.rectangle((x0 + 3, top + 2, x1 - 3, bottom - 2), fill=OFF if reached else ON)


#: alerts the rules raise (drawn as part of the screen); any other kind is an app notice, flashed.
RULE_ALERTS = ("roll_die", "no_event")


def notice(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], alert: Alert, *, blink_on: bool) -> None:
    """An app notice as a lit box: a short title, then the message wrapped on up to three lines (a
    refusal's reason is the whole point, so it is not cut to one line).  Nothing while ``blink_on`` is off."""
    if not blink_on:
        return
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=ON)
    title, text = notice_title(alert.kind, alert.text)
    fit_text(draw, (x0 + 2, y0 + 1, x1 - 2, y0 + 11), title, sizes=(11,), fill=OFF, align="center", stroke=0)
    lines = wrap(text, x1 - x0 - 4, 9)
    for i, line in enumerate(lines[: max(1, (y1 - y0 - 12) // 9)]):
        draw.text((x0 + 2, y0 + 17 + i * 9), drawable(line), fill=OFF, font=font(9), anchor="lm")


def status_line(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str) -> None:
    """The app's menu/dice-entry line, dark on a lit bar; cut with "…" to what really fits when drawn."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=ON)
    width = x1 - x0 - 2
    size = 10 if text_width(text, 10) <= width else 9
    shown = text
    while shown and text_width(shown, size) > width:
        shown = shown[:-2] + "…"
    draw.text((x0 + 1, (y0 + y1 + 1) // 2), drawable(shown), fill=OFF, font=font(size), anchor="lm")


def wrap(text: str, width: int, size: int) -> list[str]:
    """Greedy word wrap to ``width`` pixels at font ``size`` (as drawn on the 1-bit screen)."""
    lines: list[str] = []
    for word in terms(text):
        if lines and text_width(lines[-1] + " " + word, size) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def is_status(prompt: str) -> bool:
    """The app puts its button-menu or dice-entry line in the prompt; the rules' own prompt is too long
    for this screen and is not drawn."""
    return prompt.startswith("> ") or prompt.startswith("DICE ")
