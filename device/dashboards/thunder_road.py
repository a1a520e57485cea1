"""The Thunder Road: Vendetta dashboard: one player's road vehicles on a 0.96" 128x64 OLED.

Read at arm's length, so one column per vehicle, each with the same few things in fixed places::

    +----------------------------------+   header: lit bar = your turn ("YOUR TURN"), else whose turn;
    |> ANA   YOUR TURN           R2    |           R = round; before the turns "roll dice", or "Ben to roll"
    |  S      M      L      R          |   big letter per vehicle (lit box = the one moving now)
    |  ##     #.     ..     ##?        |   damage slots: filled = token; "?" = slot count unknown
    |  v oo   v o.   . ..              |   v = moved this round, two rings = coasts used (of 2)
    | ON FIRE!      OUT    Traction    |   the ON FIRE! token ("FIRE", "F!" in narrow columns); OUT = out
    | Nitro              dice 1 3 5    |   of service; X = eliminated; Traction = a Big Rig section's command
    +----------------------------------+   active this turn.  Footer: the command used this round, the
                                                   unused dice (while a bump waits: "bump M" to its owners, else
                                                   "bumps 1"); while your vehicle moves, how far in place of the
                                                   command ("4 spaces · Drift")

Alerts (Fire-die roll required, a car out of service, and the app's notices such as a refusal with its
reason) cover the middle as a lit banner while ``blink_on``, so they flash over the columns; the most urgent
one wins.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from device.dashboards.common import (HEIGHT, OFF, ON, WIDTH, canvas, fit_text, kept_pieces, notice_title, pieced,
                                      pixel_text, pixel_text_width, terms, text_width, triangle, winner_bar)
from games.thunder_road.state import PlayerView, VehicleView

#: Alert kinds → banner title; the first standing in this order is shown.
ALERT_TITLES = {"fire_roll": "ROLL FIRE DIE", "out_of_service": "OUT OF SERVICE", "reroll": "RE-ROLL?"}
#: The app's notices (``"*"``: any kind not named; an undo and a move not recorded first) come before OUT OF
#: SERVICE, which stands as long as a car is out of service (turns on end, and its column says OUT): under it
#: its owner never saw "UNDONE: …", "recorded: …", RESUMED or the game's news meant for every screen.
ALERT_ORDER = ("fire_roll", "reroll", "roll", "not_recorded", "undone", "*", "out_of_service")

HEADER_BOTTOM = 11
MIDDLE_TOP, MIDDLE_BOTTOM = 13, 52
FOOTER_TOP = 54


def render(view: PlayerView, *, blink_on: bool) -> Image.Image:
    """Draw ``view`` as a mode "1" 128x64 image (white = lit)."""
    image, draw = canvas()
    _header(draw, view)
    if view.vehicles:
        width = WIDTH // len(view.vehicles)
        letters = _letter_size(view.vehicles, width)
        for i, v in enumerate(view.vehicles):
            _column(draw, v, i * width, width, letters)
    _footer(draw, view)
    _alert(draw, view, blink_on)
    return image


YOUR_TURN = "YOUR TURN"


#: The least room (px) for a screen's own name, cut ("Ma…"), in a header that names the one player awaited.
OWN_NAME_CUT_PX = 24


def _header(draw: ImageDraw.ImageDraw, view: PlayerView) -> None:
    rnd = f"R{view.round}"
    if view.winner is not None:
        winner_bar(draw, view.winner, view.player, HEADER_BOTTOM)
        return
    if view.your_turn:
        draw.rectangle((0, 0, WIDTH - 1, HEADER_BOTTOM), fill=ON)
        triangle(draw, 2, 2, 8, fill=OFF)
        if text_width(view.player, 9) > 48 - 8 and _long_name_lit(draw, view.player, rnd):
            return
        fit_text(draw, (8, 0, 48, HEADER_BOTTOM), view.player, sizes=(11, 10, 9), fill=OFF)
        fit_text(draw, (50, 0, WIDTH - 20, HEADER_BOTTOM), YOUR_TURN, sizes=(11, 10, 9, 8), fill=OFF, align="center")
        fit_text(draw, (WIDTH - 20, 0, WIDTH - 2, HEADER_BOTTOM), rnd, sizes=(11, 10), fill=OFF, align="right")
        return
    turn = f"> {view.turn_player}" if view.turn_player else "roll dice"
    if not view.turn_player and view.to_roll and view.player not in view.to_roll:  # rolled: the others are awaited
        # the one awaited by name where it fits whole ("Maximilian to…" read as a name); two spaces after a count:
        # at 11 px the font's one space ran "4 to roll" into "4to roll"
        # (in the usual box where it fits, else in boxes of the names' own widths, _long_names: "Ben to roll", 49 px
        # at 9 px, read "1 to roll" though the whole header had room: an audit)
        named = f"{view.to_roll[0]} to roll"
        fits = text_width(view.player, 9) + 4 + text_width(named, 9) <= WIDTH - 3
        room = WIDTH - 3 - 4 - text_width(named, 9)  # for this screen's own name, cut, beside the one awaited
        if len(view.to_roll) == 1 and not fits and view.standing and room >= OWN_NAME_CUT_PX:
            # whose roll is awaited, whole: this screen's owner knows their own name (an audit: "Maximilian  1 to
            # roll" said neither who was awaited nor why the table waited)
            fit_text(draw, (1, 0, 1 + room, HEADER_BOTTOM), view.player, sizes=(9,))
            fit_text(draw, (WIDTH - 2 - text_width(named, 9), 0, WIDTH - 2, HEADER_BOTTOM), named, sizes=(9,),
                     align="right")
            draw.line((0, HEADER_BOTTOM + 1, WIDTH - 1, HEADER_BOTTOM + 1), fill=ON)
            return
        turn = named if len(view.to_roll) == 1 and fits else f"{len(view.to_roll)}  to roll"
    if not view.standing:
        turn = "out of race"
    if text_width(view.player, 11) <= 57 and text_width(turn, 9) <= 46:  # the usual boxes hold both
        fit_text(draw, (1, 0, 58, HEADER_BOTTOM), view.player, sizes=(11, 10, 9))
        fit_text(draw, (60, 0, WIDTH - 22, HEADER_BOTTOM), turn, sizes=(11, 10, 9), align="center")
        fit_text(draw, (WIDTH - 20, 0, WIDTH - 2, HEADER_BOTTOM), rnd, sizes=(11, 10), align="right")
    else:
        _long_names(draw, view.player, turn, rnd)
    draw.line((0, HEADER_BOTTOM + 1, WIDTH - 1, HEADER_BOTTOM + 1), fill=ON)


def _long_name_lit(draw: ImageDraw.ImageDraw, player: str, rnd: str) -> bool:
    """The lit header of a name too long for its usual 40 px: the name whole where it and YOUR TURN fit at one
    size (an audit: "Benedi… YOUR TURN" with room to spare), the round giving way before the name is cut, as in
    the unlit header.  False where even that does not fit (the usual boxes then, the name cut)."""
    for right in (WIDTH - 20, WIDTH - 2):
        size = next((z for z in (11, 10, 9) if 8 + text_width(player, z) + 4 + text_width(YOUR_TURN, z) <= right), None)
        if size is None:
            continue
        name_right = 8 + text_width(player, size)
        fit_text(draw, (8, 0, name_right, HEADER_BOTTOM), player, sizes=(size,), fill=OFF)
        fit_text(draw, (name_right + 4, 0, right, HEADER_BOTTOM), YOUR_TURN, sizes=(size,), fill=OFF, align="center")
        if right < WIDTH - 2:
            fit_text(draw, (right, 0, WIDTH - 2, HEADER_BOTTOM), rnd, sizes=(11, 10), fill=OFF, align="right")
        return True
    return False


def _long_names(draw: ImageDraw.ImageDraw, player: str, turn: str, rnd: str) -> None:
    """A header whose names do not fit the usual boxes ("Dominique" waiting for "> Benedikt" came out
    "> Bened…"): the boxes take the names' own widths, at one size for both; the round gives way before a
    name is cut (the turn player's lit header still shows it)."""
    for with_round, size in ((True, 11), (True, 10), (False, 11), (False, 10), (True, 9), (False, 9)):
        need = text_width(player, size) + 4 + text_width(turn, size) + (4 + text_width(rnd, size) if with_round else 0)
        if need <= WIDTH - 3:
            break
    x = 1 + text_width(player, size) + 1
    fit_text(draw, (1, 0, x, HEADER_BOTTOM), player, sizes=(size,))
    right = WIDTH - 2
    if with_round:
        right -= text_width(rnd, size) + 4
        fit_text(draw, (right + 3, 0, WIDTH - 2, HEADER_BOTTOM), rnd, sizes=(size,), align="right")
    fit_text(draw, (x + 3, 0, right, HEADER_BOTTOM), turn, sizes=(size,), align="right")


#: The sizes a column's letter is drawn at (down to 8 px in the narrowest columns: nine vehicles lost their letters,
#: B1 … B9, to "…"; a screens review).
LETTER_SIZES = (12, 11, 10, 9, 8)


def _letter_size(vehicles: tuple[VehicleView, ...], width: int) -> int:
    """One size for every column's letter: the largest at which the widest fits its box ("B1" beside "B9" at
    another size read as a different kind of vehicle)."""
    room = width - 3  # the letter box: x + 1 to x + width - 2
    return next((z for z in LETTER_SIZES if all(text_width(v.short, z) <= room for v in vehicles)), LETTER_SIZES[-1])


def _column(draw: ImageDraw.ImageDraw, v: VehicleView, x: int, w: int, size: int) -> None:
    x0, x1 = x + 1, x + w - 2
    # the vehicle's letter, boxed and lit while it is the one moving
    letter_box = (x0, MIDDLE_TOP, x1, MIDDLE_TOP + 11)
    if v.moving:
        draw.rectangle(letter_box, fill=ON)
    fit_text(draw, letter_box, v.short, sizes=(size,), fill=OFF if v.moving else ON, align="center", stroke=0)
    if v.eliminated:
        draw.line((x0 + 2, MIDDLE_TOP + 14, x1 - 2, MIDDLE_BOTTOM), fill=ON, width=2)
        draw.line((x1 - 2, MIDDLE_TOP + 14, x0 + 2, MIDDLE_BOTTOM), fill=ON, width=2)
        return
    _slots(draw, v, x0, x1, MIDDLE_TOP + 13)
    _moves(draw, v, x0, x1, MIDDLE_TOP + 21)
    tag_box = (x0, MIDDLE_BOTTOM - 10, x1, MIDDLE_BOTTOM)
    if v.on_fire:
        draw.rectangle(tag_box, fill=ON)
        # on fire and out of service at once: both (an audit: FIRE alone hid OUT, a car that can no longer act),
        # joined by "+" ("FIRE OUT" read as the Fire die's "Fire out", the fire put out)
        # the token's name where the column holds it ("FIRE" was not the rulebook's word: a screens review)
        words = ("FIRE+OUT", "F!+OUT", "F!+O", "F!O") if v.out_of_service else ("ON FIRE!", "FIRE", "F!")
        word = next((w for w in words if text_width(w, 8) <= x1 - x0 - 2), words[-1])
        fit_text(draw, (x0 + 1, tag_box[1] + 1, x1 - 1, tag_box[3] - 1), word, sizes=(10, 9, 8), fill=OFF, align="center")
    elif v.out_of_service:
        draw.rectangle(tag_box, outline=ON)
        fit_text(draw, (x0 + 1, tag_box[1] + 1, x1 - 1, tag_box[3] - 1), "OUT", sizes=(10, 9, 8), align="center")
    elif v.sections:
        # a Big Rig section's command active this turn, in its card's words ("Traction Drive"; "Traction" in a
        # narrow column): the footer's "no cmd" is the command board's, still free
        room = x1 - x0 - 1
        # the whole label, its first word, then its initials ("TD", in the legend) in a column of four or more
        words = [w for s in v.sections for w in (s, s.split()[0], "".join(p[0] for p in s.split()).upper())]
        word = next((w for w in words if text_width(w, 8) <= room), words[-1])
        fit_text(draw, (x0, tag_box[1] + 1, x1, tag_box[3] - 1), word, sizes=(10, 9, 8), align="center")


def _slots(draw: ImageDraw.ImageDraw, v: VehicleView, x0: int, x1: int, y: int) -> None:
    """Damage slots as 7x7 squares, filled for a token; unknown slot count: the tokens then "?"."""
    size, pitch = 7, 9
    known = v.damage_slots is not None
    n = v.damage_slots if known else v.damage
    room = (x1 - x0 + 1 - (0 if known else 6)) // pitch
    if not known and n > max(room, 1):
        # more tokens than squares fit before the "?": 2, 3 and 4 tokens on a Big Rig (its slots unknown) drew the
        # same two squares (an audit); the count alone ("3?": a square before it read as one more, "■4?" as 5)
        fit_text(draw, (x0 + 1, y - 1, x1 - 1, y + size), f"{v.damage}?", sizes=(10, 9))
        return
    shown = min(n, max(room, 1))
    for i in range(shown):
        left = x0 + 1 + i * pitch
        box = (left, y, left + size - 1, y + size - 1)
        if i < v.damage:
            draw.rectangle(box, fill=ON)
            if v.minor_damage:  # minor damage: a slot filled with no effect, drawn hollowed
                draw.point((left + 3, y + 3), fill=OFF)
        else:
            draw.rectangle(box, outline=ON)
    if not known:
        fit_text(draw, (x0 + 1 + shown * pitch, y - 1, x1, y + size), "?", sizes=(10, 9))
    elif n > shown:
        fit_text(draw, (x0 + 1 + shown * pitch - 2, y - 1, x1, y + size), f"{v.damage}", sizes=(9,))


def _moves(draw: ImageDraw.ImageDraw, v: VehicleView, x0: int, x1: int, y: int) -> None:
    """A tick when the vehicle has moved this round, then the coasts used as filled rings (2 rings), smaller in
    narrower columns (five and six vehicles).  Where two rings do not fit (seven and eight vehicles: the second
    ran into the next column, a screens review; rings of 3 px could not be told filled from empty), the coasts
    used as a digit after the tick; with nine, that digit in place of the tick (a vehicle that coasted has moved)."""
    narrow = x1 - x0 < 24  # five or more vehicles: smaller rings so both coasts still show
    d, pitch = (4, 5) if narrow else (6, 7)
    rings = pitch + d <= x1 - x0 - 8
    digit_after = not rings and x0 + 9 + pixel_text_width("2") - 1 <= x1
    if not rings and not digit_after and v.coasts:
        pixel_text(draw, (x0 + 1, y), str(v.coasts))
    elif v.moved:
        draw.line((x0 + 1, y + 3, x0 + 3, y + 6), fill=ON, width=2)
        draw.line((x0 + 3, y + 6, x0 + 7, y), fill=ON, width=2)
    else:
        draw.rectangle((x0 + 1, y + 1, x0 + 6, y + 6), outline=ON)
    if not rings:
        if digit_after and v.coasts:
            pixel_text(draw, (x0 + 9, y), str(v.coasts))
        return
    for i in range(2):
        left = x0 + 9 + i * pitch
        box = (left, y + 1, left + d - 1, y + d)
        draw.ellipse(box, fill=ON if i < v.coasts else OFF, outline=ON)


def _footer(draw: ImageDraw.ImageDraw, view: PlayerView) -> None:
    draw.line((0, FOOTER_TOP - 1, WIDTH - 1, FOOTER_TOP - 1), fill=ON)
    if view.winner is not None or view.step == "game over":
        # the dice left read as dice still to play, and "no cmd" as a command still to use (a screens walkthrough)
        fit_text(draw, (1, FOOTER_TOP, WIDTH - 2, HEIGHT - 1), "race over", sizes=(10, 9), align="center")
        return
    # a player out of the race has no dice to use (their last roll stayed on the line)
    dice = " ".join(str(d) for d in view.dice) if view.dice and view.standing else "-"
    if view.passed and view.standing:
        dice = "passed"  # out of the round: the dice left are not played (they read as a die still to play)
    if view.bumps:
        # whose vehicles (their columns above) the bump dice are for: an owner saw "bumps 1", not that it was theirs
        mine = " ".join(v.short for v in view.vehicles if v.bumped)
        dice = f"bump {mine}" if mine else f"bumps {view.bumps}"
    if view.allowance:
        # the vehicle moving now: how far and how, in the room the dice leave (the menu's status line said it, but
        # its page goes after 20 s idle, while a player counts the spaces: a screens review); without the word
        # "spaces" where the whole does not fit ("3+Road die · Drift": the cut lost "Drift", a review)
        right = WIDTH - 2 - text_width(dice, 10) - 5
        words = view.allowance
        if text_width(words, 9) > right - 1:
            words = words.replace(" spaces", "").replace(" space", "")
        fit_text(draw, (1, FOOTER_TOP, right, HEIGHT - 1), words, sizes=(10, 9))
        fit_text(draw, (right + 3, FOOTER_TOP, WIDTH - 2, HEIGHT - 1), dice, sizes=(10, 9), align="right")
        return
    command = view.command or "no cmd"
    fit_text(draw, (1, FOOTER_TOP, 58, HEIGHT - 1), command, sizes=(10, 9))
    fit_text(draw, (60, FOOTER_TOP, WIDTH - 2, HEIGHT - 1), dice, sizes=(10, 9), align="right")


def _alert(draw: ImageDraw.ImageDraw, view: PlayerView, blink_on: bool) -> None:
    if not view.alerts:
        return
    ranked = sorted(view.alerts, key=lambda a: ALERT_ORDER.index(a.kind if a.kind in ALERT_ORDER else "*"))
    alert = ranked[0]
    # the game's own alerts by their titles; the app's notices ("camera_down") by theirs, not their ids
    title, text = (ALERT_TITLES[alert.kind], alert.text) if alert.kind in ALERT_TITLES else notice_title(alert.kind,
                                                                                                        alert.text)
    if alert.kind == "out_of_service":
        text = text.replace(" is out of service", "")  # the title says it
    if not blink_on:
        return
    draw.rectangle((0, MIDDLE_TOP, WIDTH - 1, MIDDLE_BOTTOM), fill=ON)
    right = WIDTH - 3
    if len(ranked) > 1:  # others wait behind this one: said in the corner, the title keeping clear of it
        more = f"+{len(ranked) - 1}"
        pixel_text(draw, (WIDTH - 2 - pixel_text_width(more), MIDDLE_TOP + 2), more, fill=OFF)
        right -= pixel_text_width(more) + 2
    fit_text(draw, (2, MIDDLE_TOP, right, MIDDLE_TOP + 12), title, sizes=(13, 12, 11), fill=OFF, align="center")
    lines = _wrap(text, ALERT_TEXT_WIDTH, 9, ALERT_LINES)
    for i, line in enumerate(lines):
        top = MIDDLE_TOP + 13 + i * 9
        fit_text(draw, (3, top, WIDTH - 4, top + 8), line, sizes=(9,), fill=OFF, align="center")


#: The alert box's text: its lines' width (centred, clear of the box's edges) and how many it holds.
ALERT_TEXT_WIDTH, ALERT_LINES = WIDTH - 16, 3


@kept_pieces
def news_pieces(text: str) -> list[str]:
    """The game's news in pieces this screen's alert box holds whole, shown in turn: the pages' notice box is
    wider, and its pieces lost a word here ("… eliminated with the r…" then "tile": "rear" never shown); "…" where
    the words go on (``common.pieced``)."""
    return pieced(text, lambda t, width: _wrap(t, width, 9, 10**6), ALERT_TEXT_WIDTH, 9, ALERT_LINES)


def alert_pieces(kind: str, text: str) -> list[str]:
    """A game alert too long for the banner's three lines, in pieces shown in turn (``device.dashboards.alert_pieces``;
    the app turns them on the alerts' beat): a re-roll's alert with its bump die and direction.  ``[text]`` when it
    fits."""
    if kind not in ALERT_TITLES:
        return [text]
    pieces = news_pieces(text)
    return pieces if len(pieces) > 1 else [text]


def notice_pieces(text: str) -> list[str]:
    """An app notice's words under its title in pieces this screen's alert box holds whole (its news's)."""
    return news_pieces(text)


def _wrap(text: str, width: int, size: int, max_lines: int) -> list[str]:
    """Greedy word wrap into at most ``max_lines`` lines (the last is cut with "…" by fit_text)."""
    lines: list[str] = []
    current = ""
    for word in terms(text):
        trial = f"{current} {word}".strip()
        if current and text_width(trial, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [" ".join(lines[max_lines - 1:])]
    return lines
