"""What the live page says of the game, in words a player at the table reads."""

from __future__ import annotations

import html as html_lib
import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from web_helpers import paired_client  # noqa: E402

HTML = {"accept": "text/html"}


def test_the_last_commands_are_in_words_not_json(table):
    """Seen on the live page after choosing Short Straight: '[button] {"type": "choose_template",
    "template": "short_straight"}' under Last commands."""
    from games.core import Command

    client, _ = paired_client(table)
    table.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}))
    table.app.apply(Command("choose_template", {"template": "hairpin", "hand": "left"}))
    table.step()
    page = client.get("/", headers=HTML).text
    listed = html_lib.unescape(re.search(r"<ul id=commands>(.*?)</ul>", page, re.S).group(1))
    assert '"type"' not in listed and "{" not in listed
    assert "choose template: turn, hand left" in listed
    assert "choose template: hairpin, hand left — refused: " in listed
    event = table.web.hub.snapshot.to_json()["commands"]
    assert event[0]["command"] == "Alice: choose template: turn, hand left"  # whose step it was


def test_a_rider_is_named_as_the_grand_tours_screens_name_it():
    """Seen under Last commands and in the game log: "exhaustion: rider red.rouleur" (the log's id)."""
    from device.web.timeline import command_words, describe
    from games.core import Event

    assert command_words({"type": "exhaustion", "rider": "red.rouleur", "cards": 5}) == \
        "exhaustion: rider red Rouleur, cards 5"
    assert describe(Event("rider_moved", {"rider": "blue.sprinteur", "squares": 4})) == \
        "blue Sprinteur: rider moved: squares 4"
    assert command_words({"type": "x", "value": 1.5, "file": "a.toml1"}) == "x: value 1.5, file a.toml1"


def test_the_games_are_called_by_their_names_not_their_ids(table):
    """Seen at 390 px: 'Live: thunder_road', 'Live: grand_tour' as the page's heading, 'thunder_road' in the
    game log and the New game list: the program's ids, not the names on the boxes."""
    client, _ = paired_client(table)
    assert "<h1>Live: Gaslands: Refuelled</h1>" in client.get("/", headers=HTML).text
    setup = client.get("/setup", headers=HTML).text
    assert '<option value="thunder_road">Thunder Road: Vendetta</option>' in setup
    assert '<option value="gaslands" selected>Gaslands: Refuelled</option>' in setup
    assert "<br>Gaslands: Refuelled</td>" in client.get("/log", headers=HTML).text
    assert f"<h1>Game {table.game_id}: Gaslands: Refuelled</h1>" in client.get(f"/log/{table.game_id}",
                                                                               headers=HTML).text


def test_the_chart_and_the_teach_page_use_the_rulebooks_words(table):
    """Seen on /rules and /teach at 390 px: rows 'short_straight', 'medium_straight', cells 'not_permitted',
    a template list of 'short_straight' ...: the file's keys. The rulebook says Short Straight, not
    permitted. The forms still send the keys."""
    client, _ = paired_client(table)
    rules = client.get("/rules", headers=HTML).text
    assert "<th>Short Straight</th>" in rules and "short_straight<" not in rules
    assert '<option value="not_permitted">not permitted</option>' in rules
    assert 'name="short_straight.1"' in rules  # the form's field names are the chart's keys
    assert '<option value="once_per_stage">once per stage</option>' in rules
    verdicts = re.search(r"<table id=verdicts>(.*?)</table>", rules, re.S).group(1)
    assert "<td>Medium Straight</td>" in verdicts and "_" not in re.sub(r'id="[^"]*"|class="[^"]*"', "", verdicts)
    from device.web.pages import template_section

    teach = template_section("x", ["short_straight", "hairpin"], frame=1, calibrated=True)
    assert '<option value="short_straight">Short Straight</option>' in teach


def test_the_pairing_page_names_the_screen_the_code_is_on(table):
    """Seen on a phone: 'Type the six-digit code shown on player 1's screen (the terminal prints it under
    pitboard sim)': nobody at the table is called player 1, and at the table there is no terminal."""
    from starlette.testclient import TestClient

    from device.web.server import create_app

    page = TestClient(create_app(table.web.ctx)).get("/pair", headers=HTML).text
    assert "shown on Alice's screen" in html_lib.unescape(page)
    assert "the terminal prints it under" not in page


def test_the_timeline_names_the_cars_as_their_owners_do(table):
    """Seen on /log/5 at 390 px: 'Alice · rust' as the heading of Alice's activation and 'template chosen:
    edge front, hand left, status unknown, template short_straight, touch_move no, vehicle rust': the
    setup's ids and the file's keys. The table calls that car Rust Bucket."""
    from games.core import Command

    client, _ = paired_client(table)
    table.app.apply(Command("choose_template", {"template": "short_straight", "hand": "left"}))
    table.step()
    page = html_lib.unescape(client.get(f"/log/{table.game_id}", headers=HTML).text)
    assert "<h3>Alice · Rust Bucket</h3>" in page and "Alice · rust<" not in page
    # the car first, the template in the rulebook's words (a straight has no hand), nothing that says nothing
    # ("status unknown": this table's chart leaves the cell blank)
    assert "Rust Bucket: template Short Straight<" in page
    assert "short_straight" not in page and "status unknown" not in page


def test_a_refusal_is_shown_until_a_command_is_taken(table):
    """Seen on the live page: after a refused template, the red 'Last refusal: touch-move: ...' stayed at
    the top while the game went on (template placed, dice rolled), as if each new step were refused too.
    The OLED shows a refusal until the next press; the page now until a command is taken (the list of last
    commands keeps it)."""
    from games.core import Command

    client, _ = paired_client(table)
    table.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}))
    table.app.apply(Command("choose_template", {"template": "hairpin", "hand": "left"}))
    table.step()
    assert "touch-move" in (table.web.hub.snapshot.refusal or "")
    table.app.apply(Command("place_template"))
    table.step()
    assert table.web.hub.snapshot.refusal is None
    page = client.get("/", headers=HTML).text
    assert "Last refusal" not in page and "refused: touch-move" in html_lib.unescape(page)


def test_the_replays_step_links_have_no_stray_separator(table):
    """Seen on /log/5/at/0 at 390 px: '· timeline · step 1 ▶', a separator before nothing; the last step
    ended in one after nothing."""
    from games.core import Command

    client, _ = paired_client(table)
    table.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}))
    table.step()
    first = client.get(f"/log/{table.game_id}/at/0", headers=HTML).text
    last = client.get(f"/log/{table.game_id}/at/1", headers=HTML).text
    for page in (first, last):
        links = re.search(r"<main><h1>[^<]*</h1><p>(.*?)</p>", page, re.S).group(1)
        assert not links.startswith("·") and not links.rstrip().endswith("·"), links


def test_the_page_has_every_press_the_panel_has(table):
    """The panel's OK held adds the hazard tokens the camera counted beyond the log (README: 'OK ... hold:
    add the hazard tokens the camera counted'); the page offered SELECT, BACK and NEXT held, not OK held."""
    client, token = paired_client(table)
    page = client.get("/", headers=HTML).text
    for value in ("select", "ok", "back", "next", "select:long", "ok:long", "back:long", "next:long"):
        assert f'value="{value}"' in page, value
    sent = []
    table.web.hub.press = lambda button, long=False, seen=None, asked=False: sent.append((button, long))
    r = client.post("/press", data={"csrf": token, "button": "ok:long"}, follow_redirects=False)
    assert r.status_code == 303
    assert sent == [("ok", True)]


def test_a_choice_taken_on_the_buttons_is_listed_in_the_menus_words(table):
    """Seen on the live page after a player took Straights › Short and then undid it on the buttons: "choose
    template: short straight" and "undo: steps 1" under Last commands, where every OLED had said "UNDONE: …
    › Straights › Short". A button's choice is listed as the screens said it."""
    from device.buttons import PressKind

    client, _ = paired_client(table)
    for key in table.app.plan(("Straights", "Short")):
        table.buttons.press(key.removesuffix("_long"), PressKind.LONG if key.endswith("_long") else PressKind.SHORT)
        table.step(0.3)
    assert table.app.history and table.app.history[-1].outcome.accepted
    table.buttons.press("back", PressKind.SHORT)
    table.step(0.3)
    undone = next(n.text for n in table.app.notices if n.kind == "undone")
    table.step(0.3)
    listed = html_lib.unescape(re.search(r"<ul id=commands>(.*?)</ul>", client.get("/", headers=HTML).text,
                                         re.S).group(1))
    assert "choose template" not in listed and "undo: steps" not in listed, listed
    assert f"[button] {undone}" in listed and "Straights › Short</li>" in listed, listed


def test_a_long_line_of_the_game_log_is_cut_at_a_words_end():
    """An audit at 360 px: the set-up line of a five-player Thunder Road game read "Dée (small ca…"."""
    from device.web.timeline import _short

    text = "setup: " + ", ".join(f"Dée (small car Rust Bucket {i}, gear 1)" for i in range(8))
    cut = _short(text)
    assert len(cut) <= 160 and cut.endswith("gear…") and text.startswith(cut[:-1])
    assert _short("a" * 200) == "a" * 159 + "…"  # one long word: cut where it must be
    assert _short("short") == "short"
    fits = "x" * 100 + " " + "y" * 58 + " zz" * 10  # the word of y ends at 159: it stays
    assert _short(fits) == "x" * 100 + " " + "y" * 58 + "…"


def test_last_commands_name_the_cars_not_their_ids(tmp_path):
    """A phone audit: "Alice: attack: target bob-1, dice [5, 2], evade [3]" under Last commands, where the game log
    and the undo question said "Rust Bucket on The Brick"."""
    from device.web.timeline import command_words

    names = {"rust": "Rust Bucket", "brick": "The Brick"}
    assert command_words({"type": "smash", "attacker": "rust", "target": "brick", "kind": "t_bone"}, "Alice", names) \
        == "Alice: smash: attacker Rust Bucket, target The Brick, kind t bone"
    from games.core import Command
    from web_helpers import Table

    table = Table(tmp_path, "gaslands")
    try:
        target = table.app.match.state.vehicles[1]
        outcome = table.app.apply(Command("set_fire", {"vehicle": target.id, "on": True}), source="web")
        assert outcome.accepted or outcome.reason
        said = table.app.words_of(table.app.history[-1])
        assert target.name in said and f"vehicle {target.id}," not in said, said
    finally:
        table.close()
