"""What the live page says of the game, in words a player at the table reads."""

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
    assert event[0]["command"] == "choose template: turn, hand left"
