"""The New game form as an owner with a phone uses it: choosing another game in the list, starting a game
this host does not play."""

from __future__ import annotations

import html as html_lib
import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from web_helpers import Table, paired_client  # noqa: E402

HTML = {"accept": "text/html"}


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path)
    yield t
    t.close()


def said(page: str) -> tuple[str, str]:
    m = re.search(r'<p class="(\w+)" id="setup-message">(.*?)</p>', page, re.S)
    assert m, page[-800:]
    return m.group(1), html_lib.unescape(m.group(2))


def box(page: str) -> str:
    m = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.S)
    assert m
    return html_lib.unescape(m.group(1))


def shown_field(page: str) -> str:
    m = re.search(r'name="shown" value="([^"]*)"', page)
    assert m, "the form does not say which game its text is for"
    return m.group(1)


def test_choosing_another_game_in_the_list_brings_its_example(table):
    """Seen on a phone: New game, choose thunder_road in the list, press Check: 'setup: unknown key
    'scenario'; the keys here are board, ...'. The list changes nothing in the box until Example is
    pressed, and the message did not say so."""
    from games import game_package

    client, token = paired_client(table)
    page = client.get("/setup", headers=HTML).text
    assert shown_field(page) == "gaslands"
    untouched = box(page)
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "shown": "gaslands", "action": "check",
                                    "setup": untouched})
    kind, text = said(r.text)
    assert kind == "fail" and "thunder_road example" in text and "Check" in text
    assert box(r.text).strip() == game_package("thunder_road").EXAMPLE_SETUP.strip()
    assert shown_field(r.text) == "thunder_road"
    # the owner had typed their own gaslands table: it is kept, and the check says what is in the box
    mine = untouched.replace("Alice", "Zoe")
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "shown": "gaslands", "action": "check",
                                    "setup": mine})
    kind, text = said(r.text)
    assert kind == "fail" and "unknown key 'scenario'" in text
    assert "gaslands setup" in text and "Example" in text
    assert box(r.text) == mine


def test_start_from_an_untouched_other_games_example_begins_nothing(tmp_path, monkeypatch):
    started = []
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path, new_game=lambda game, options: started.append(game) or "begun")
    try:
        client, token = paired_client(t)
        untouched = box(client.get("/setup", headers=HTML).text)
        r = client.post("/setup", data={"csrf": token, "game": "space_race", "shown": "gaslands", "action": "start",
                                        "setup": untouched})
        assert said(r.text)[0] == "fail" and started == []
    finally:
        t.close()

