"""The Phones page: the phones paired since the start, and forgetting one without a restart.

Every paired phone has the owner's page (a new game, calibrate, teach, rule facts); a restart of the service was
the only way to forget one, and it forgot every phone.  A guest who has left, or a phone lost at the table, is
now forgotten from any paired phone: its next request asks for the code again, the others stay paired.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import Table, pair_token  # noqa: E402

from device.web.security import SESSION_COOKIE, device_of  # noqa: E402
from device.web.server import create_app  # noqa: E402

HTML = {"accept": "text/html"}
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = Table(tmp_path)
    yield t
    t.close()


def phone(table: Table, agent: str) -> tuple[TestClient, str]:
    """A phone (its User-Agent) paired with the code; its CSRF token."""
    client = TestClient(create_app(table.web.ctx), headers={"user-agent": agent})
    r = client.post("/pair", data={"csrf": pair_token(client.get("/pair", headers=HTML).text),
                                   "code": table.web.code}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return client, pair_token(client.get("/", headers=HTML).text)


def handles(page: str) -> list[str]:
    return re.findall(r'name=phone value="([^"]+)"', page)


def test_a_phone_forgets_another_which_must_pair_again(table: Table) -> None:
    mine, csrf = phone(table, IPHONE)
    guest, guest_csrf = phone(table, ANDROID)
    page = mine.get("/phones", headers=HTML)
    assert page.status_code == 200
    assert "iPhone at testclient" in page.text and "(this phone)" in page.text and "Android at testclient" in page.text
    # the list's own phone first; the cookie's secret is in no page (a handle names each phone in the forms)
    assert page.text.index("iPhone") < page.text.index("Android")
    for secret in (mine.cookies.get(SESSION_COOKIE), guest.cookies.get(SESSION_COOKIE)):
        assert secret and secret not in page.text
    theirs = handles(page.text)[1]
    r = mine.post("/phones/forget", data={"csrf": csrf, "phone": theirs})
    assert r.status_code == 200 and "Forgotten: Android at testclient." in r.text
    assert "Android" not in r.text.split("Forgotten:")[1].split("</p>")[1]  # gone from the list
    # the guest's next request asks for the code again; its presses and rolls are refused
    assert guest.get("/", headers=HTML, follow_redirects=False).headers["location"] == "/pair"
    assert guest.post("/press", data={"csrf": guest_csrf, "button": "ok"}).status_code == 401
    # this phone stays paired; the same phone forgotten twice is said so
    assert mine.get("/", headers=HTML).status_code == 200
    again = mine.post("/phones/forget", data={"csrf": csrf, "phone": theirs})
    assert "forgotten already" in again.text


def test_a_phone_forgets_itself_and_is_sent_to_the_pairing_page(table: Table) -> None:
    mine, csrf = phone(table, IPHONE)
    (own,) = handles(mine.get("/phones", headers=HTML).text)
    r = mine.post("/phones/forget", data={"csrf": csrf, "phone": own}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/pair"
    assert mine.get("/", headers=HTML, follow_redirects=False).headers["location"] == "/pair"
    assert table.web.ctx.pairing.sessions == {}


def test_forgetting_needs_the_pages_csrf_token_and_a_paired_phone(table: Table) -> None:
    mine, csrf = phone(table, IPHONE)
    guest, _ = phone(table, ANDROID)
    theirs = handles(mine.get("/phones", headers=HTML).text)[1]
    assert mine.post("/phones/forget", data={"phone": theirs}).status_code == 403  # no token: another site's form
    stranger = TestClient(create_app(table.web.ctx))
    assert stranger.post("/phones/forget", data={"phone": theirs}).status_code == 401
    assert len(table.web.ctx.pairing.sessions) == 2


def test_each_phone_is_named_by_what_its_browser_says_it_is() -> None:
    assert device_of(IPHONE) == "iPhone" and device_of(ANDROID) == "Android"
    assert device_of("curl/8.0") == "a browser" and device_of("") == "a browser"
