"""A real table for the web tests: the loop (App) on a temporary game log, scripted buttons, recording
screens, and the web service attached to it (its server started only when asked)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from device.app import App, setup_options
from device.buttons import ScriptedButtons
from device.store import Store
from device.web import WebService
from games import game_package


class Screens:
    """Records the last image shown per player."""

    def __init__(self) -> None:
        self.images: dict[str, Any] = {}

    def show(self, player: str, image: Any) -> bool:
        self.images[player] = image.copy()
        return True


class Table:
    def __init__(self, tmp: Path, game: str = "gaslands", *, serve: bool = False, new_game: Any = None,
                 reader: Any = None, startable: tuple[str, ...] | None = None) -> None:
        self.module = game_package(game)
        self.store = Store(tmp / "game.sqlite")
        self.game_id, self.match, _ = self.store.open_match(self.module.GAME, setup_options(self.module, None))
        self.buttons = ScriptedButtons()
        self.screens = Screens()
        self.now = 0.0
        self.app = App(self.module, self.match, buttons=self.buttons, displays=self.screens, clock=lambda: self.now,
                       reader=reader)
        self.web = WebService(game=game, store_path=self.store.path, host="127.0.0.1", port=0,
                              chart_path=tmp / "chart.toml", new_game=new_game, startable=startable,
                              calibration_path=tmp / "calibration.json")
        self.web.attach(self.app, self.game_id, setup_options(self.module, None))
        self.step()
        if serve:
            self.web.start()

    def step(self, dt: float = 0.01) -> None:
        self.now += dt
        self.app.step(self.now)

    def close(self) -> None:
        self.web.stop()
        self.store.close()


def pair_token(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m, html[:500]
    return m.group(1)


def paired_client(table: Table, *, owner: bool = True, agent: str | None = None) -> tuple[Any, str]:
    """A TestClient paired with the right code, and its CSRF token.  ``owner``: its phone made an owner's (as an
    owner's phone does on the Phones page) when it paired as a guest's; the first phone paired is an owner's.
    ``agent``: the User-Agent its browser sends (what the Phones page names it by)."""
    from starlette.testclient import TestClient

    from device.web.security import SESSION_COOKIE
    from device.web.server import create_app

    client = TestClient(create_app(table.web.ctx), headers={"user-agent": agent} if agent else None)
    page = client.get("/pair", headers={"accept": "text/html"})
    r = client.post("/pair", data={"csrf": pair_token(page.text), "code": table.web.code}, follow_redirects=False)
    assert r.status_code == 303, r.text
    if owner:
        session = table.web.ctx.pairing.session(client.cookies.get(SESSION_COOKIE))
        assert session is not None
        session.owner = True
    live = client.get("/", headers={"accept": "text/html"})
    assert live.status_code == 200
    return client, pair_token(live.text)
