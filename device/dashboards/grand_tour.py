"""The Grand Tour dashboard: one team's tour sheet on a 0.96" 128×64 OLED.

::

    ┌──────────────────────────────────┐  header: team, stage n/N
    │ RED                    St 2/3    │
    │ ██ pts        START              │  big: tour points; the team's place at the start line of the
    │ ██            2                  │       next stage ("-" for stage 1: free); at the end PLACE: the
    │                                  │       team's place in the final classification
    │ R +1:20 4th   keep 3             │  one line per rider: time gap to the leader and place on time
    │ S lead        keep -             │  ("lead" for the leader, "x" once no longer tracked) and
    │                                  │  exhaustion cards kept
    └──────────────────────────────────┘

A rider holding a specialty card (the optional rule) shows the card's name in place of the cards kept while a
stage is raced ("R +1:20   Breakaway"); before stage 1 the header of a team still to be dealt its specialties, or
to keep one, flashes, as it does between stages for the team whose rider's exhaustion cards are counted now
(the menu asks one rider at a time, in seat order), and each rider still to count shows "count";
at the end the winners' screens flash "WINNER" and the others' headers say who won ("black won").  The app's
messages (a refusal and its reason) flash over the middle, and the app's menu line ("> red Sprinteur (2/8)
OK") takes the bottom line: the points and START then share one smaller line, so both riders' lines stay.
"""

from __future__ import annotations

from PIL import Image

from device.dashboards.common import ON, WIDTH, banner, canvas, fit_text, font, text_width
from device.dashboards.space_race import is_status, notice, status_line
from games.grand_tour.views import RiderView, TeamView, ordinal

ROLE_LETTER = {"rouleur": "R", "sprinteur": "S"}


def _gap(rider: RiderView) -> str:
    """The time gap to the leader and the rider's place on time ("+1:40 4th"; "lead"; "x" once not tracked)."""
    if rider.gap_seconds == 0 and rider.tracked:
        return "lead"
    return f"{'' if rider.tracked else 'x '}{rider.gap} {ordinal(rider.time_place)}"


def _keep(rider: RiderView, view: TeamView) -> str:
    """The rider line's right-hand words: while a stage is raced, the specialty card the rider holds (only the 12 s
    news of its keeping named it: a screens review), else the exhaustion cards kept; between stages the cards kept,
    or "count" while they are still to be counted."""
    if view.phase == "racing" and rider.specialty:
        return rider.specialty  # (from stage 2 on the cards kept stand too: the card went under "keep 3", a review)
    if rider.keep is not None:
        return f"keep {rider.keep}"
    if view.phase == "between stages":
        return "count"
    return rider.specialty or ""


def render(view: TeamView, *, blink_on: bool) -> Image.Image:
    image, draw = canvas()
    # the team's own step outside the racing: counting exhaustion cards, or being dealt or keeping a specialty
    # (the latter's screen showed nothing once the menu's page had gone: a screens review)
    asked = any(a.kind in RULE_ALERTS for a in view.alerts)
    header_lit = asked and blink_on
    if header_lit:
        draw.rectangle((0, 0, WIDTH - 1, 11), fill=ON)
    right = "END" if view.phase == "tour over" else f"St {view.stage}/{view.stages}"
    if view.phase == "tour over" and view.winners and not view.winner:
        # who won, on every screen: the winners' alone flashed WINNER and nothing named them on the others'
        right = f"{' & '.join(view.winners)} won"
    # the team's name takes what the stage number leaves (a 12-letter name the setup allows was cut at 74 px:
    # "INEOS_GREN…")
    ink = 0 if header_lit else ON
    if view.winners and not view.winner:
        # "RED  black won": the two share the line at one size when both fit whole; else the winner alone (who
        # won matters more at the end than whose screen it is, and "PELO…" beside "ineos_grenad w…" said neither)
        team, room = view.team.upper(), WIDTH - 3
        size = next((z for z in (12, 11, 10, 9) if text_width(team, z) + 6 + text_width(right, z) <= room), None)
        if size is None:
            fit_text(draw, (1, 0, WIDTH - 2, 11), right, sizes=(12, 11, 10, 9), fill=ink, align="center")
        else:
            fit_text(draw, (1, 0, 1 + text_width(team, size), 11), team, sizes=(size,), fill=ink)
            fit_text(draw, (WIDTH - 2 - text_width(right, size), 0, WIDTH - 2, 11), right, sizes=(size,), fill=ink,
                     align="right")
    else:
        right_size = 12 if text_width(right, 12) <= WIDTH - 78 else 11  # as fit_text below draws it
        team_right = max(74, WIDTH - 2 - text_width(right, right_size) - 4)
        fit_text(draw, (1, 0, team_right, 11), view.team.upper(), sizes=(12, 11, 10, 9), fill=ink)
        fit_text(draw, (76, 0, WIDTH - 2, 11), right, sizes=(12, 11), align="right", fill=ink)
    draw.line((0, 12, WIDTH - 1, 12), fill=ON)
    # the app's menu line takes the bottom line: the points and the start line then share one line so that both
    # riders' lines stay (the counting team lost its second rider's time gap under "> red Sprinteur (2/8)")
    menu_line = is_status(view.prompt)
    place = view.phase == "tour over"  # the final classification: the team's place, not a next start line
    start = str(view.rank) if place else (str(view.start_position) if view.start_position else "-")
    if menu_line:
        draw.text((0, 13), str(view.points), fill=ON, font=font(18))
        draw.text((text_width(str(view.points), 18) + 3, 17), "pts", fill=ON, font=font(10))
        draw.text((74, 17), "PLACE" if place else "START", fill=ON, font=font(9))
        if start == "-":  # at 18 px the dash sat on START's baseline and read "START _"
            draw.text((108, 17), start, fill=ON, font=font(10))
        else:
            draw.text((108, 13), start, fill=ON, font=font(18))
    else:
        draw.text((0, 13), str(view.points), fill=ON, font=font(24), stroke_width=1, stroke_fill=ON)
        draw.text((44, 16), "pts", fill=ON, font=font(10))
        draw.text((74, 14), "PLACE" if place else "START", fill=ON, font=font(9))
        # not bold: at 16-20 px the stroke closes a 5, 6 and 8 alike ("START 5" read 6); 24 px and up stay open
        draw.text((74, 22), start, fill=ON, font=font(18))
    top = 32 if menu_line else 42
    for i, rider in enumerate(view.riders[:2]):
        y = top + i * 11
        fit_text(draw, (0, y, 10, y + 9), ROLE_LETTER.get(rider.role, "?"), sizes=(11,))
        gap, keep = _gap(rider), _keep(rider, view)
        # a card's name takes what the time gap leaves (not less than the usual column from x 76)
        split = min(76, 12 + text_width(gap, 11) + 5) if rider.specialty and keep == rider.specialty else 76
        fit_text(draw, (12, y, split - 2, y + 9), gap, sizes=(11, 10, 9))
        fit_text(draw, (split, y, WIDTH - 1, y + 9), keep, sizes=(11, 10, 9), align="right")
    if is_status(view.prompt):
        status_line(draw, (0, 53, WIDTH - 1, 63), view.prompt)
    notices = [a for a in view.alerts if a.kind not in RULE_ALERTS and a.player in (None, view.player)]
    if notices:
        notice(draw, (0, 13, WIDTH - 1, 52), notices[0], blink_on=blink_on)  # the app's first (its ranked order)
    elif view.winner:  # over the points, clear of the riders' lines (the menu line moves them up to y 32)
        banner(draw, (0, 13, WIDTH - 1, 31 if menu_line else 40), "WINNER", blink_on=blink_on)
    return image


RULE_ALERTS = ("enter_exhaustion", "choose_specialty")
