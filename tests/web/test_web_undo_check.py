"""A play-tester's phone: BACK that undoes without saying what, a roll held by the phone's own taps from before
it paired again, and a Check page checking another game than the one played (over plain HTTP)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import Table, pair_token, paired_client  # noqa: E402

from device.app import App  # noqa: E402
from device.buttons import PressKind, ScriptedButtons  # noqa: E402
from device.web import pages  # noqa: E402
from device.web.server import SESSION_COOKIE, create_app  # noqa: E402
from games.core import Command  # noqa: E402

HTML = {"accept": "text/html"}


def _table(tmp_path: Path, monkeypatch, game: str):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path, game)
    yield t
    t.close()


@pytest.fixture
def space(tmp_path: Path, monkeypatch):
    yield from _table(tmp_path, monkeypatch, "space_race")


@pytest.fixture
def road(tmp_path: Path, monkeypatch):
    yield from _table(tmp_path, monkeypatch, "thunder_road")


def _asked(page: str, what: str) -> str:
    """The question the live page's BACK asks (the press form's data), as the script reads it."""
    form = page.split('class="press buttons"', 1)[1].split(">", 1)[0]
    marker = f'data-undo-{what}="'
    assert marker in form, form
    return html.unescape(form.split(marker, 1)[1].split('"', 1)[0])


def test_back_on_the_phone_says_what_it_undoes_and_asks_once(space: Table) -> None:
    """Seen: a long BACK on the phone asked "A long BACK undoes the last few decisions at once. Undo them?" (how
    many? which?), and undid three decisions, one a roll typed on the phone; a single BACK undid a Space Race roll
    worth +2 VP with no question.  Now each names the decisions as the screens' "UNDONE: …" says them (a decision
    of the phone or the camera in the log's words: the question said "USA: roll: die 2", the notice after it
    "USA: die rolled: 2, box 1, success yes"), and a BACK answering a question about a game that has moved on
    since is refused."""
    app = space.app
    app.apply(Command("begin_turn"), source="web")
    app.apply(Command("attempt", {"side": "USA", "ops": 3}), source="web")
    app.apply(Command("roll", {"die": 2}), source="web")  # the phone's roll: USA reaches box 1, +2 VP
    space.step()
    client, csrf = paired_client(space)
    # the roll's news stands on every dashboard, the menu put away: BACK there only brings the menu back, and asks
    # nothing
    assert _asked(client.get("/", headers=HTML).text, "back") == ""
    space.buttons.press("select", PressKind.SHORT)
    space.step()
    page = client.get("/", headers=HTML).text
    rolled = "USA rolls 2 for box 1: success"  # (in the rules' words since the log said them so)
    assert _asked(page, "back") == f"Undo {rolled}?"
    assert _asked(page, "long") == ("A long BACK undoes the last 3 decisions, the newest first:\n"
                                    f"1. {rolled}\n2. USA plays a card of 3 Ops on the Space Race\n3. Turn 1 begins\nUndo all 3?")
    assert "A long BACK undoes the last few decisions at once" not in pages.LIVE_JS
    assert "window.confirm(question)" in pages.LIVE_JS and "body.set('undoes', asked)" in pages.LIVE_JS
    key = _asked(page, "key")

    def back(undoes: str, long: bool = False) -> int:
        data = {"csrf": csrf, "button": "back", "undoes": undoes, **({"long": "1"} if long else {})}
        return client.post("/press", data=data, headers={"x-csrf-token": csrf}).status_code

    # the panel recorded another decision while the phone's question was open: its OK must not undo that one
    app.apply(Command("end_turn"), source="button")
    space.step()
    assert back(key) == 409
    space.step()
    assert app.match.undoable == 4  # nothing undone
    now = client.get("/", headers=HTML).text
    assert _asked(now, "back").startswith("Undo ") and _asked(now, "key") != key
    assert back(_asked(now, "key")) == 204  # answered for the game as it is: undone once
    space.step()
    assert app.match.undoable == 3
    # recorded as the phone's: the game log said "[button]" of a phone's presses and undos (a phone review)
    assert (app.history[-1].command.type, app.history[-1].source) == ("undo", "web")
    # the roll is the last decision again: BACK asks about it, and a BACK that only closes a list asks nothing
    again = client.get("/", headers=HTML).text
    assert _asked(again, "back") == f"Undo {rolled}?"
    space.buttons.press("next", PressKind.LONG)  # NEXT (hold): the legend opens, and BACK closes it
    space.step()
    assert app.legend is not None
    legend = client.get("/", headers=HTML).text
    assert _asked(legend, "back") == "" and _asked(legend, "long") == ""
    app.undo(1, now=0.0)  # the roll undone: the screens say it as the phone asked it
    assert f"UNDONE: {rolled}" in [n.text for n in app.notices]


def test_a_phone_paired_again_takes_its_own_taps_back(road: Table) -> None:
    """Seen: a phone that paired again was locked out by its own taps from before: "another phone is entering
    this roll (1 die tapped there): Send it there, or Take back its dice, then enter it here", and Take back there
    did nothing for 60 s.  The same browser's taps are its own; another phone is told when the hold ends."""
    server = create_app(road.web.ctx)  # one page, two phones

    def pair(c: TestClient) -> str:
        page = c.get("/pair", headers=HTML)
        assert c.post("/pair", data={"csrf": pair_token(page.text), "code": road.web.code},
                      follow_redirects=False).status_code == 303
        return pair_token(c.get("/", headers=HTML).text)

    client = TestClient(server)
    csrf = pair(client)

    def dice(c: TestClient, token: str, faces: str, draft: bool = True):
        data = {"csrf": token, "die": "movement", "label": "4 movement dice", "player": "Ana", "faces": faces}
        return c.post("/dice", data={**data, **({"draft": "1"} if draft else {})}, headers={"x-csrf-token": token})

    assert dice(client, csrf, "3").status_code == 204  # one die tapped
    client.cookies.delete(SESSION_COOKIE)  # the phone's browser dropped its session: it pairs again
    csrf = pair(client)
    taken = dice(client, csrf, "")  # its page, loaded anew, empties the pad (Take back of the last die alike)
    assert taken.status_code == 204, taken.text
    assert dice(client, csrf, "5 2").status_code == 204  # and it types the roll again
    # another phone is still kept out while that one is typing, and told when the hold ends by itself
    other = TestClient(server)
    other_csrf = pair(other)
    refused = dice(other, other_csrf, "6")
    assert refused.status_code == 409
    assert "(2 dice tapped there)" in refused.text
    assert "its hold ends by itself in 60 s (a minute after its last tap)" in refused.text
    assert dice(client, csrf, "5 2 1 6", draft=False).status_code == 204  # the re-paired phone sends its roll
    road.step()
    assert road.app.history[-1].command.to_json() == {"type": "roll", "player": "Ana", "dice": [5, 2, 1, 6]}


def test_check_checks_the_game_in_play(tmp_path: Path, monkeypatch) -> None:
    """Seen: the Check page said "OK game gaslands — example setup is a valid table" while a 5-player game
    begun from the page was being played.  It checks the game in play's setup, and names the game and its
    players."""
    import tomllib

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    table = Table(tmp_path)
    try:
        options = tomllib.loads(table.module.EXAMPLE_SETUP)
        for i, name in enumerate(("Cy", "Dee", "Eve")):
            options["players"].append({"name": name, "vehicles": [
                {"id": f"car{i}", "name": f"{name}'s car", "type": "car", "tag": 20 + i}]})
        game_id, match, _ = table.store.open_match(table.module.GAME, options, new=True)
        app = App(table.module, match, buttons=ScriptedButtons(), displays=table.screens, clock=lambda: table.now)
        table.web.attach(app, game_id, options)
        table.app = app
        table.step()
        client, _ = paired_client(table)
        page = html.unescape(client.get("/check", headers=HTML).text)
        assert "example setup" not in page
        assert (f"game gaslands</b><br>game {game_id} in play, 5 players (Alice, Bob, Cy, Dee, Eve): its setup is "
                "a valid table") in page
    finally:
        table.close()


def test_a_setup_file_edited_into_a_refusal_does_not_fail_the_game_in_play() -> None:
    """A review: Check takes the config's setup file for a resumed game; edited since into one the rules refuse,
    it said "FAIL … game 7 in play …: its setup is refused by the rules" over a game that is fine (it goes on from
    its log).  It warns, for the next game."""
    from device.cli_device import _probe_playing
    from device.config import parse_config
    from device.web import Playing

    playing = Playing("gaslands", 7, ("Alice", "Bob"), {"players": [{"name": "Alice"}]})  # no vehicles: refused
    lines = _probe_playing(parse_config({}), playing)
    assert lines[0].status == "WARN", lines
    assert lines[0].detail.startswith("game 7 in play, 2 players (Alice, Bob): it goes on from its log"), lines[0]
    assert "for the next game" in lines[0].detail


def test_the_undo_questions_are_worked_out_again_only_when_the_game_changed(space: Table, monkeypatch) -> None:
    """A review: the questions scan the log and were worked out at every redraw (a blinking alert redraws twice a
    second).  They are again only when the log, the history or where BACK acts has changed."""
    import device.web as web

    calls: list[int] = []
    real = web.undo_questions
    monkeypatch.setattr(web, "undo_questions", lambda app: calls.append(1) or real(app))
    space.web._on_redraw(space.app, {})
    assert calls == []  # worked out already, when the table was first drawn
    assert space.app.apply(Command("begin_turn")).accepted
    for _ in range(3):
        space.web._on_redraw(space.app, {})
    assert len(calls) == 1


def test_a_phone_back_it_asked_about_is_not_asked_again_and_one_it_did_not_ask_is(road: Table) -> None:
    """A review: the App took any phone press carrying its page's key as asked already, though the page asks only
    when it has a question for that BACK. Ana's move, then Ben's turn: a BACK the phone asked "Undo Ana's …?"
    about undoes it at once; the panel's BACK asks on the screen first (one more BACK)."""
    app = road.app
    for player, dice in (("Ana", [1, 3, 4, 6]), ("Ben", [2, 2, 5, 6]), ("Cy", [1, 1, 2, 2])):
        assert app.apply(Command("roll", {"player": player, "dice": dice}), source="web").accepted
    road.step()
    for key in [*(app.plan(("Move a vehicle…", "Small car", "Die 4")) or []), "next"]:  # the die, then "Moved 4"
        road.buttons.press(key)
        road.step()
    assert road.match.state.turn.player == "Ben" and app.chooser() == "Ben"
    undoable = road.match.undoable
    road.buttons.press("back")  # the panel: asked on Ben's screen
    road.step()
    assert road.match.undoable == undoable
    assert any(n.text.startswith("BACK again to undo Ana") for n in app.notices)
    road.buttons.press("select")  # (the question lapses)
    road.step()
    client, csrf = paired_client(road)
    page = client.get("/", headers=HTML).text
    assert _asked(page, "back").startswith("Undo Ana")
    form = page.split('class="press buttons"', 1)[1].split(">", 1)[0]
    seen = html.unescape(form.split('data-press="', 1)[1].split('"', 1)[0])
    # a phone BACK its page did not ask about (no question key with it, as a script's): asked on the screen
    data = {"csrf": csrf, "button": "back", "seen": seen}
    assert client.post("/press", data=data, headers={"x-csrf-token": csrf}).status_code == 204
    road.step()
    assert road.match.undoable == undoable
    assert any(n.text.startswith("BACK again to undo Ana") for n in app.notices)
    road.buttons.press("select")  # (the question lapses)
    road.step()
    page = client.get("/", headers=HTML).text
    data = {"csrf": csrf, "button": "back", "undoes": _asked(page, "key")}
    assert client.post("/press", data=data, headers={"x-csrf-token": csrf}).status_code == 204
    road.step()
    assert road.match.undoable == undoable - 1  # asked on the phone: undone at once


def test_a_check_lines_commands_are_code_and_its_paths_break_after_a_slash_only() -> None:
    """A phone review of the Check page: raw backticks around commands, and a path broken mid-word at 390 px
    ("table_calibration.jso|n")."""
    from device.web.pages import CSS, check_words

    said = check_words("no calibration at /var/lib/pitboard/table_calibration.json: run `pitboard calibrate IMAGE` <now>")
    assert said == ("no calibration at /<wbr>var/<wbr>lib/<wbr>pitboard/<wbr>table_calibration.json: run "
                    "<code>pitboard calibrate IMAGE</code> &lt;now&gt;")
    assert "#check li{margin:0 0 .6em;overflow-wrap:break-word}" in CSS  # (not "anywhere": mid-word)
