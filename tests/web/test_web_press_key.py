"""A phone's OK, BACK or NEXT acts on the screen its page showed, or not at all.

An audit at 360 px: a double tap on the phone's NEXT at "1.7 Move: Moved" recorded "Moved" and then "Attacks
done" (the attack step skipped: the screen answers in milliseconds on the table's network, so the second tap
landed on the next step), and two phones' NEXT at once recorded two decisions."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from web_helpers import paired_client  # noqa: E402


def test_a_second_press_aimed_at_the_same_screen_is_not_taken(table):
    """Two presses queued with the key of one screen (two phones at once, or a double tap's second sent before
    the first was taken): the first acts, the second is refused on the screens, nothing more is decided."""
    table.step()
    app, hub = table.app, table.web.hub
    seen = app.press_key()
    hub.press("ok", seen=seen)
    hub.press("ok", seen=seen)
    table.step()
    assert app.refusal is not None
    assert app.refusal.pages[0].title == "PRESS NOT TAKEN"
    said = " ".join(" ".join(p.lines) for p in app.refusal.pages)
    assert "the screen changed before the phone's press arrived; look, then press again" in said
    assert app.press_key() != seen


def test_the_cursor_moved_by_select_or_a_timer_does_not_make_a_press_stale(table):
    """A review: the key held the cursor within a list, the menu's return to the dashboard and a refusal's pages:
    the phone's own SELECT then OK was refused before its page heard of the move, and a NEXT sent as the menu
    went back to the dashboard (20 s idle) was refused, though it would have done the same."""
    table.step()
    app = table.app
    seen = app.press_key()
    from device.buttons import ButtonEvent, PressKind

    app.on_button(ButtonEvent("select", PressKind.SHORT, table.now), table.now)
    app.on_button(ButtonEvent("select", PressKind.SHORT, table.now), table.now)
    assert app.press_key() == seen  # the cursor moved within the list
    app.menu_shown = not app.menu_shown
    assert app.press_key() == seen  # the menu went back to the dashboard (or came back)


def test_a_double_tap_whose_first_only_brought_the_menu_back_does_not_choose(table):
    """A review: after a news (Space Race, Grand Tour) every screen shows its dashboard, and the phones mirror it.
    A phone's OK there only brings the menu back, and the key did not change: a double tap's second OK, sent
    before the page showed that menu, chose on it.  Likewise for an OK that put away a refusal read."""
    from device.app import NOTICE_S, Refusal
    from device.buttons import ButtonEvent, PressKind
    from device.dashboards import pages

    table.step()
    app = table.app
    app.menu_shown = False  # (as a news leaves it)
    seen = app.press_key()
    app.on_button(ButtonEvent("ok", PressKind.SHORT, table.now, seen=seen), table.now)
    assert app.menu_shown and app.refusal is None  # the first OK: the menu back, nothing chosen
    assert app.press_key() != seen
    app.on_button(ButtonEvent("ok", PressKind.SHORT, table.now, seen=seen), table.now)
    assert not app.history  # the second chose nothing
    assert app.refusal is not None and app.refusal.pages[0].title == "PRESS NOT TAKEN"

    later = table.now + NOTICE_S + 1  # a refusal read
    app.refusal = Refusal(None, tuple(pages.text_pages("NOT ALLOWED", "not now")), table.now)
    seen = app.press_key()
    app.on_button(ButtonEvent("ok", PressKind.SHORT, later, seen=seen), later)
    assert app.refusal is None and not app.history  # put away, nothing chosen
    app.on_button(ButtonEvent("ok", PressKind.SHORT, later, seen=seen), later)
    assert not app.history and app.refusal is not None and app.refusal.pages[0].title == "PRESS NOT TAKEN"


def test_the_page_carries_the_key_and_a_stale_one_is_answered_at_once(table):
    client, token = paired_client(table)
    table.step()
    key = table.web.ctx.press_key
    assert key == table.app.press_key()
    page = client.get("/", headers={"accept": "text/html"}).text
    assert f'data-press="{key}"' in page
    r = client.post("/press", data={"csrf": token, "button": "next", "seen": "0123456789ab"},
                    headers={"x-csrf-token": token})
    assert r.status_code == 409
    assert r.text == "the screen changed before this press arrived; look, then press again"
    r = client.post("/press", data={"csrf": token, "button": "ok", "seen": key}, headers={"x-csrf-token": token})
    assert r.status_code == 204
    shown = table.app.menu_shown
    table.step()
    assert table.app.refusal is None  # taken: the first OK brings the menu back, or opens a list
    assert table.app.menu_shown or not shown
    # SELECT only moves the cursor: it carries no key and is never refused for one
    r = client.post("/press", data={"csrf": token, "button": "select", "seen": "0123456789ab"},
                    headers={"x-csrf-token": token})
    assert r.status_code == 204


def test_a_seats_button_is_held_to_the_screen_seen_as_ok_is(table):
    """A web audit: /press took p1-p6 (a seat's button: its player's OK) without the key of the screen seen, so a
    double tap's second, or a press sent after another phone's, chose on a screen nobody had looked at."""
    client, token = paired_client(table)
    table.step()
    key = table.web.ctx.press_key
    r = client.post("/press", data={"csrf": token, "button": "p1", "seen": "0123456789ab"},
                    headers={"x-csrf-token": token})
    assert r.status_code == 409
    assert r.text == "the screen changed before this press arrived; look, then press again"
    table.step()
    assert table.app.press_key() == key and not table.app.history  # nothing was chosen
    r = client.post("/press", data={"csrf": token, "button": "p1", "seen": key}, headers={"x-csrf-token": token})
    assert r.status_code == 204


def test_a_calibration_saved_from_the_phone_ends_the_table_not_read_notice(table):
    """An audit: after a calibration was saved on the Calibrate page, "TABLE NOT READ: calibration" stood on every
    screen for the rest of the game, while the camera view drew the new zones and check said OK."""
    import numpy as np

    from device.camera_input import VisionFileProblem, VisionReader
    from vision.calibration import Calibration

    app = table.app
    if getattr(app, "reader", None) is None:
        app.reader = VisionReader()
    missing = VisionFileProblem("calibration", "/nowhere/table_calibration.json", "no calibration yet",
                                "TABLE NOT READ: calibration")
    app.show_file_problems([missing])
    assert [n.text for n in app.notices if n.kind == "files"] == ["TABLE NOT READ: calibration"]
    table.web._use_calibration(Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720),
                                           mat_mm=(640.0, 360.0)))
    assert not [n for n in app.notices if n.kind == "files"] and app.file_problems == []


def test_the_live_page_shows_the_screen_of_a_player_with_none(table):
    """An audit: a game begun from the phone with players who have no [[screens]]: the Live page showed no
    dashboard at all (no gear, hazards or hull), only the prompt line."""
    table.app.displays.players = {"Alice"}  # a bank with a screen for Alice only
    table.screens.images.clear()
    table.web._pngs.clear()  # (as drawn first: the mirror's frames of the bank's players only)
    table.app.redraw(table.now, force=True)
    shown = [p for p, _png in table.web.hub.snapshot.screens]
    assert shown == ["Alice", "Bob"]  # Bob's screen on the phones
    assert list(table.screens.images) == ["Alice"]  # and sent to no screen of the table's


def test_a_calibration_saved_from_the_phone_sets_the_dice_size_it_gives(table):
    """A review of the phone page: the camera knocked or raised and calibrated again from the phone, the table was
    read with the new calibration but the dice were still looked for at the old calibration's size (fixed at
    start) until a restart."""
    import numpy as np

    from device.camera_input import VisionReader, dice_px_at_tray, tray_region
    from vision.calibration import Calibration

    old = Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720), mat_mm=(640.0, 360.0))
    table.app.reader = VisionReader(calibration=old, die_px=dice_px_at_tray(old, tray_region(old), 16.0),
                                    dice_mm=16.0)
    assert round(table.app.reader.die_px) == 32  # 2 px a mm
    lower = Calibration(px_to_mm=np.diag([0.25, 0.25, 1.0]), image_size=(1280, 720), mat_mm=(320.0, 180.0))
    table.web._use_calibration(lower)  # the camera lower: 4 px a mm
    assert table.app.reader.calibration is lower
    assert round(table.app.reader.die_px) == 64
