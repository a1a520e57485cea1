"""An app notice too long for a dashboard's notice box is shown in pieces, in turn, each whole.

An audit: "CAMERA / dice tray not in the picture: [camera] / dice_region [864, 796, 57…" stood on every screen but
the roller's (whose menu footer turns its pieces): the reason and what to do were never shown there."""

from __future__ import annotations

import pytest

from device.dashboards import notice_pieces
from device.dashboards.common import notice_title

LONG = ("dice tray not in the picture: [camera] dice_region [864, 796, 576, 480] runs past the 1280x720 frame the "
        "camera gives (it needs 1440x1276); set it in pitboard.toml (pitboard check names it); enter the dice with "
        "the buttons")


@pytest.mark.parametrize("game", ["gaslands", "thunder_road", "space_race", "grand_tour"])
def test_a_long_notice_is_shown_whole_in_pieces_under_its_title(game: str) -> None:
    pieces = notice_pieces(game, "vision", LONG)
    assert len(pieces) > 1
    words = []
    for i, piece in enumerate(pieces):
        title, rest = notice_title("vision", piece)
        assert title == "CAMERA" and rest != piece  # each piece under the notice's title
        # a piece but the first begins "…", and each but the last ends "…": read alone, it is seen to go on (an
        # audit: a later piece read as a message of its own)
        assert rest.startswith("…") == (i > 0) and rest.endswith("…") == (i < len(pieces) - 1), rest
        words += rest.removeprefix("…").removesuffix("…").split()
    assert words == LONG.split()  # every word, in order, once


def test_each_piece_fits_the_box_it_is_drawn_in() -> None:
    from device.dashboards.common import TEXT_SIZES, _wrap_to_fit
    from device.dashboards.gaslands import BANNER_LINE
    from device.dashboards.space_race import wrap
    from device.dashboards.thunder_road import ALERT_LINES, ALERT_TEXT_WIDTH, _wrap

    for piece in notice_pieces("gaslands", "vision", LONG):  # the banner draws two small lines at most
        assert len(_wrap_to_fit(notice_title("vision", piece)[1], BANNER_LINE, TEXT_SIZES[-1])) <= 2
    for piece in notice_pieces("thunder_road", "vision", LONG):
        assert len(_wrap(notice_title("vision", piece)[1], ALERT_TEXT_WIDTH, 9, 10**6)) <= ALERT_LINES
    for game in ("space_race", "grand_tour"):  # space_race.notice in the box (0, 13, 127, 52): three lines
        for piece in notice_pieces(game, "vision", LONG):
            assert len(wrap(notice_title("vision", piece)[1], 127 - 4, 9)) <= (52 - 13 - 12) // 9


def test_a_short_notice_is_one_piece_as_it_was() -> None:
    for game in ("gaslands", "thunder_road", "space_race", "grand_tour"):
        assert notice_pieces(game, "camera_down", "CAMERA OFF: enter dice with the buttons") == [
            "CAMERA OFF: enter dice with the buttons"]


def test_the_app_turns_the_pieces_on_the_other_players_screens(tmp_path) -> None:
    import numpy as np
    from test_app_camera_dice import road_app_on_still

    from device.app import VisionReader
    from device.config import Region
    from vision.dice import FaceLibrary

    with road_app_on_still(tmp_path, np.zeros((720, 1280, 3), np.uint8), VisionReader(faces=FaceLibrary()),
                           dice_region=Region(864, 796, 576, 480)) as (app, clock):
        seen: list[str] = []
        for _ in range(200):
            clock.now += 0.1
            app.step(clock.now)
            ben = next(v for v in app.screen_views(clock.now) if v.player == "Ben")
            for alert in ben.alerts:
                if alert.kind == "vision" and alert.text not in seen:
                    seen.append(alert.text)
        (said,) = [n.text for n in app.notices if n.kind == "vision"]
        assert seen == notice_pieces("thunder_road", "vision", said) and len(seen) > 2


@pytest.mark.parametrize("game", ["gaslands", "thunder_road"])
def test_a_roll_asked_of_the_player_comes_before_older_news(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit: "Eve's Bike with Sidecar: 3 hits: roll 3 evade dice" stood behind "HEAD-ON CRASH: ..." on Eve's
    screen for 14 s while the evade entry waited for her dice (a roll asked of her had no rank)."""
    import importlib
    from types import SimpleNamespace

    from games.core import Alert

    dash = importlib.import_module(f"device.dashboards.{game}")
    drawn: list[tuple[str, str]] = []
    monkeypatch.setattr(dash, "banner", lambda _d, _box, title, text, **_: drawn.append((title, text)), raising=False)
    monkeypatch.setattr(dash, "fit_text", lambda *_a, **_k: None, raising=False)
    crash = Alert("news", "Head-on collision: Charlotte's Performance Car and The Brick, +2 hazard each", None)
    roll = Alert("roll", "Eve's Bike: 3 hits: roll 3 evade dice", "Eve")
    view = SimpleNamespace(player="Eve", alerts=(crash, roll))
    draw = SimpleNamespace(rectangle=lambda *_a, **_k: None, text=lambda *_a, **_k: None)
    if game == "gaslands":
        dash._alert(draw, view, True)
        assert "ROLL 3 EVADE DICE" in drawn[0][0].upper() + " " + drawn[0][1].upper()
    else:
        texts: list[str] = []
        monkeypatch.setattr(dash, "notice_title", lambda kind, text: texts.append(kind) or ("T", text))
        dash._alert(draw, view, True)
        assert texts[0] == "roll"


def test_a_number_stays_with_the_word_it_counts() -> None:
    """An audit, five players: an attack's news read "…1 evaded: 3…" then "…taken · hull 9", the hits taken split
    from their number across two pieces; every wrap on the screens keeps a bare number with the word after it, as
    it keeps "ON FIRE!" and "rear tile"."""
    from device.dashboards.common import terms
    from device.dashboards.pages import wrap

    assert terms("4 hits, 1 evaded: 3 taken · hull 9") == ["4 hits,", "1 evaded:", "3 taken", "·", "hull 9"]
    assert terms("Dee's car is ON FIRE! at 2") == ["Dee's", "car", "is", "ON FIRE!", "at 2"]
    assert terms("2 rear tile cars") == ["2 rear tile", "cars"]  # a term stays whole behind its number
    # a number ending the text or its clause stays with what it numbers (an audit: "…for Bike" / "3")
    assert terms("roll the Fire die for Bike 3") == ["roll", "the", "Fire", "die", "for", "Bike 3"]
    assert terms("Die 5; Cy: Move") == ["Die 5;", "Cy:", "Move"]
    assert terms("dice 1, 3, 4, 6") == ["dice 1,", "3,", "4,", "6"]  # a list of numbers is not one term (the review)
    assert terms("Road scrolled: lead tile 4, the final tile") == ["Road", "scrolled:", "lead tile 4,", "the",
                                                                   "final", "tile"]
    for width in range(40, 128):
        for line in wrap("Attack: The Brick on Bob's Truck: 4 hits, 1 evaded: 3 taken · hull 9", width=width):
            assert not line.rstrip("…").split()[-1].isdigit() or line.endswith("9"), (width, line)


@pytest.mark.parametrize("since", [0.0, 37.3, 41.9])
def test_each_piece_of_a_news_is_lit_whole_on_the_screens_beat(tmp_path, since: float) -> None:
    """An audit: alerts were lit half a second of each second, and a news piece turned every 2 s from when it was
    posted: a piece of three lines was read in two half-second glimpses, or cut by the turn. Now each piece comes
    as the banner lights and stays lit 1.5 s whole, then dark half a second (the dashboard under it)."""
    from test_app_buttons import Panel

    from device.app import LIT_S, lit
    from device.dashboards import news_pieces

    g = Panel(tmp_path, "space_race")
    text = ("USSR reached box 2 Animal in Space first; gains: two Space Race attempts per turn until the USA "
            "reaches it too")
    g.app.notify("news", text, None, until=since + 30.0, now=since)
    runs: list[tuple[str, float]] = []  # each stretch of one piece lit: (the piece, how long)
    before = (None, False)
    for k in range(int(28.0 / 0.05)):
        now = since + k * 0.05
        usa = next(v for v in g.app.screen_views(now) if v.player == "USA")
        (piece,) = [a.text for a in usa.alerts if a.kind == "news"]
        on = lit(now)
        if before[0] is not None and piece != before[0]:
            assert on and not before[1], f"the piece turned at {now - since:.2f} s while lit or in the dark"
        if on:
            if runs and before[1] and runs[-1][0] == piece:
                runs[-1] = (piece, runs[-1][1] + 0.05)
            else:
                runs.append((piece, 0.05))
        before = (piece, on)
    whole = [p for p, t in runs if t >= LIT_S - 0.06]
    assert set(whole) == set(news_pieces("space_race", text))  # every piece lit whole, at least once
    assert len(set(whole)) > 1
    g.close()


@pytest.mark.parametrize("game", ["gaslands", "thunder_road", "space_race", "grand_tour"])
def test_camera_off_is_shown_over_a_standing_notice_posted_before_it(tmp_path, game: str) -> None:
    """An audit: with "TABLE NOT READ: calibration" standing, the camera unplugged mid-game said CAMERA OFF on no
    screen (the first notice posted was the one shown, on every screen, for as long as it stood); a news passes
    before both, and the standing ones come back after it."""
    from test_app_buttons import Panel

    g = Panel(tmp_path, game)
    app = g.app
    app.notify("files", "TABLE NOT READ: calibration", None, until=None, now=1.0)
    app.notify("camera_down", "CAMERA OFF: enter dice with the buttons", None, until=None, now=5.0)

    def first_app_alert(now: float) -> list[str]:
        return [next(a.kind for a in v.alerts if a.kind in ("files", "camera_down", "news"))
                for v in app.screen_views(now)]

    assert set(first_app_alert(6.0)) == {"camera_down"}
    chooser = app.chooser() or app.turn().views[0].player
    view = next(v for v in app.screen_views(6.0) if v.player == chooser)
    page = app.page_for(chooser, view, 6.0, True)
    assert page is not None and "CAMERA OFF" in page.alert + page.footer
    app.notify("news", "Gear phase 2: pole Bob", None, until=30.0, now=10.0)
    assert set(first_app_alert(11.0)) == {"news"}
    app.withdraw("news")
    assert set(first_app_alert(31.0)) == {"camera_down"}
    g.close()
