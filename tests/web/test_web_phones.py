"""The Phones page: the phones paired since the start, the owner's and the guests', and forgetting one without a
restart.

Every paired phone had the owner's page (a new game, calibrate, teach, rule facts), and a restart of the service
was the only way to forget one, which forgot every phone.  The first phone paired is the owner's, later ones
guests'; an owner's phone changes roles and forgets a phone (a guest who has left, a phone lost at the table): its
next request asks for the code again, the code is renewed, the others stay paired.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import Table, pair_token, paired_client  # noqa: E402

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
    """A phone (its User-Agent) paired with the code, in the role its pairing gives it; its CSRF token."""
    return paired_client(table, owner=False, agent=agent)  # type: ignore[no-any-return]


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
    theirs = handles(page.text)[-1]  # the guest's row: its one form, Forget (the owner's own row has Forget only)
    old_code = table.web.code
    r = mine.post("/phones/forget", data={"csrf": csrf, "phone": theirs}, follow_redirects=False)
    where = r.headers["location"]
    assert r.status_code == 303 and where.startswith("/phones?said=")  # a reload sends nothing again
    # another tab of the same phone opening Phones meanwhile does not take the message (one slot a phone did)
    assert "Forgotten" not in mine.get("/phones", headers=HTML).text
    r = mine.get(where, headers=HTML)
    assert "Forgotten: Android at testclient; the pairing code is a new one now." in r.text
    assert "Android" not in r.text.split("<ul id=phones>")[1]  # gone from the list
    assert "Forgotten" not in mine.get(where, headers=HTML).text  # said once
    # the guest's next request asks for the code again; its presses and rolls are refused
    assert guest.get("/", headers=HTML, follow_redirects=False).headers["location"] == "/pair"
    assert guest.post("/press", data={"csrf": guest_csrf, "button": "ok"}).status_code == 401
    # the code it knew is no longer the code (it would have paired again at once)
    assert table.web.code != old_code
    token = pair_token(guest.get("/pair", headers=HTML).text)
    assert guest.post("/pair", data={"csrf": token, "code": old_code}).status_code == 403
    # this phone stays paired; the same phone forgotten twice is said so
    assert mine.get("/", headers=HTML).status_code == 200
    assert "forgotten already" in mine.post("/phones/forget", data={"csrf": csrf, "phone": theirs}).text


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


def role(page: str) -> list[str]:
    return re.findall(r"an owner&#x27;s phone|a guest&#x27;s phone", page)


def test_the_first_phone_is_the_owners_and_a_guests_phone_is_told_what_it_cannot_do(table: Table) -> None:
    """Everyone at the table sees the code: every phone paired had the owner's page, and a guest's could start
    another game, save a calibration or teach the dice.  The first phone paired is the owner's; later ones are
    guests': they watch, press and type rolls as the table's buttons do, and the owner's pages say why not."""
    owner, _ = phone(table, IPHONE)
    guest, csrf = phone(table, ANDROID)
    assert role(owner.get("/phones", headers=HTML).text) == ["an owner&#x27;s phone", "a guest&#x27;s phone"]
    for path in ("/setup", "/calibrate", "/teach"):
        r = guest.get(path, headers=HTML)
        assert r.status_code == 403 and "Only an owner&#x27;s phone starts a game" in r.text, path
        assert owner.get(path, headers=HTML).status_code == 200, path
    for path, data in (("/setup", {"game": "gaslands", "action": "start", "setup": ""}),
                       ("/rules/chart", {}), ("/teach/undo", {}), ("/calibrate", {"mat": "800x450"})):
        r = guest.post(path, data={"csrf": csrf, **data}, headers={"accept": "*/*"})
        assert r.status_code == 403 and "only an owner's phone" in r.text, path
    # what the buttons do, and reading, stay every phone's
    for path in ("/", "/log", "/rules", "/check", "/phones"):
        assert guest.get(path, headers=HTML).status_code == 200, path
    assert guest.post("/press", data={"csrf": csrf, "button": "select"}).status_code == 200


def test_an_owners_phone_makes_a_guests_an_owners_and_back_never_leaving_none(table: Table) -> None:
    owner, owner_csrf = phone(table, IPHONE)
    guest, guest_csrf = phone(table, ANDROID)
    own, theirs = handles(owner.get("/phones", headers=HTML).text)[0], handles(owner.get("/phones").text)[-2]
    assert "Make it an owner" in owner.get("/phones", headers=HTML).text
    # a guest's phone changes no role and forgets no other phone (it could forget the owner's, then pair as one)
    assert guest.post("/phones/role", data={"csrf": guest_csrf, "phone": theirs, "role": "owner"}).status_code == 403
    r = guest.post("/phones/forget", data={"csrf": guest_csrf, "phone": own})
    assert "forgets only itself" in r.text and len(table.web.ctx.pairing.sessions) == 2
    assert "Make it" not in guest.get("/phones", headers=HTML).text  # and is offered neither
    # the only owner's phone stays one
    r = owner.post("/phones/role", data={"csrf": owner_csrf, "phone": own, "role": "guest"})
    assert "only owner&#x27;s phone" in r.text and 'class=fail id=phones-message' in r.text
    r = owner.post("/phones/role", data={"csrf": owner_csrf, "phone": theirs, "role": "owner"})
    assert "is an owner&#x27;s phone now" in r.text
    assert guest.get("/setup", headers=HTML).status_code == 200
    r = guest.post("/phones/role", data={"csrf": guest_csrf, "phone": own, "role": "guest"})  # two owners: one may go
    assert "a guest&#x27;s phone now" in r.text and owner.get("/setup", headers=HTML).status_code == 403


def test_the_last_owners_phone_forgets_itself_only_when_no_guest_could_take_its_place(table: Table) -> None:
    """With the last owner's phone forgotten the next phone paired is the owner's: a guest's phone, paired
    already, could pair again and be it (a review).  The last owner's phone forgets itself only when it is the only
    phone, or once it has made another an owner's."""
    owner, csrf = phone(table, IPHONE)
    guest, guest_csrf = phone(table, ANDROID)
    own = handles(owner.get("/phones", headers=HTML).text)[0]
    r = owner.post("/phones/forget", data={"csrf": csrf, "phone": own})
    assert "this is the only owner&#x27;s phone" in r.text and owner.get("/setup", headers=HTML).status_code == 200
    # a guest's phone forgetting itself needs no new code (it forgets only itself), and pairs again as a guest's
    code = table.web.code
    (mine,) = [h for h in handles(guest.get("/phones", headers=HTML).text)]
    guest.post("/phones/forget", data={"csrf": guest_csrf, "phone": mine})
    assert table.web.code == code and len(table.web.ctx.pairing.sessions) == 1
    again, _ = phone(table, ANDROID)
    assert again.get("/setup", headers=HTML).status_code == 403
    # alone, the owner's phone forgets itself, and the next phone paired is the owner's
    owner.post("/phones/forget", data={"csrf": csrf, "phone": own})
    assert len(table.web.ctx.pairing.sessions) == 2  # refused while the guest is paired
    theirs = handles(owner.get("/phones", headers=HTML).text)[-1]
    owner.post("/phones/forget", data={"csrf": csrf, "phone": theirs})
    assert owner.post("/phones/forget", data={"csrf": csrf, "phone": own}, follow_redirects=False).status_code == 303
    assert table.web.ctx.pairing.sessions == {}
    later, _ = phone(table, ANDROID)
    assert later.get("/setup", headers=HTML).status_code == 200


def test_a_paired_guest_pairing_again_stays_a_guests_and_the_owners_browser_stays_the_owners(table: Table) -> None:
    """A guest's phone typing the code again is still a guest's; the owner's browser, its session cookie lost
    (a browser closed), is the owner's again by the mark it keeps across pairings (a review: it paired as a
    guest's, and no phone could start a game until a restart)."""
    owner, _ = phone(table, IPHONE)
    guest, _ = phone(table, ANDROID)
    token = pair_token(guest.get("/pair", headers=HTML).text)
    guest.post("/pair", data={"csrf": token, "code": table.web.code})
    assert guest.get("/setup", headers=HTML).status_code == 403
    owner.cookies.delete(SESSION_COOKIE)  # the browser kept its mark, not the session
    token = pair_token(owner.get("/pair", headers=HTML).text)
    owner.post("/pair", data={"csrf": token, "code": table.web.code})
    assert owner.get("/setup", headers=HTML).status_code == 200
    assert sum(s.owner for s in table.web.ctx.pairing.sessions.values()) == 1  # its old session went


def test_a_role_is_owner_or_guest(table: Table) -> None:
    owner, csrf = phone(table, IPHONE)
    phone(table, ANDROID)
    theirs = handles(owner.get("/phones", headers=HTML).text)[-2]
    r = owner.post("/phones/role", data={"csrf": csrf, "phone": theirs, "role": "captain"})
    assert r.status_code == 400 and "owner or guest" in r.text


def test_the_owners_phone_is_never_the_one_forgotten_for_room() -> None:
    """The sessions kept are capped (the oldest forgotten first): the owner's, the oldest, went first."""
    from device.web.security import MAX_SESSIONS, Pairing

    pairing = Pairing(clock=lambda: 0.0)
    first, _ = pairing.pair("10.0.0.1", pairing.code)
    assert first is not None and first.owner
    for i in range(MAX_SESSIONS + 5):
        guest, _ = pairing.pair(f"10.0.1.{i}", pairing.code)
        assert guest is not None and not guest.owner
    assert first.id in pairing.sessions and len(pairing.sessions) == MAX_SESSIONS


def test_a_forgotten_phones_open_live_page_gets_nothing_more(tmp_path: Path) -> None:
    """A forgotten phone's Live page kept its event stream: every screen, and the new pairing code whenever a
    phone asked for it (a review).  The stream ends at once."""
    import threading
    import time

    import httpx

    t = Table(tmp_path, serve=True)
    try:
        def paired(agent: str) -> tuple[httpx.Client, str]:
            client = httpx.Client(base_url=t.web.url, headers={"accept": "text/html", "user-agent": agent})
            token = pair_token(client.get("/pair").text)
            live = client.post("/pair", data={"csrf": token, "code": t.web.code}, follow_redirects=True)
            return client, pair_token(live.text)

        owner, csrf = paired(IPHONE)
        guest, _ = paired(ANDROID)
        got: list[str] = []
        ended = threading.Event()

        def read() -> None:
            with guest.stream("GET", "/events", timeout=10) as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        got.append(line)
            ended.set()

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got, "the guest's stream brought nothing"
        theirs = handles(owner.get("/phones").text)[-2]  # the guest's row: Forget, then Make it an owner's
        owner.post("/phones/forget", data={"csrf": csrf, "phone": theirs})
        assert ended.wait(5), "the forgotten phone's stream went on"  # at once, not at the next update
        assert len(got) == 1
        owner.close()
        guest.close()
    finally:
        t.close()


#: The owner's pages: a new game, calibrating, teaching, the rule facts saved, the phones' roles.
OWNERS = ("/setup", "/rules/", "/teach", "/calibrate", "/phones/role")


def test_every_owners_address_refuses_a_guests_phone_and_no_other_does(table: Table) -> None:
    """Every address of the page, as the server routes them (a new page is sorted into one side or the other
    here): the owner's refuse a guest's phone with why, the others let it through (what it reads, presses and
    rolls are every phone's)."""
    phone(table, IPHONE)
    guest, csrf = phone(table, ANDROID)
    app = create_app(table.web.ctx)
    met: list[bool] = []
    for route in app.routes:
        path = getattr(route, "path", "")
        if path in ("/pair", "/static/{name}") or not path:
            continue
        concrete = (path.replace("{game}", "gaslands").replace("{token}", "x").replace("{gid:int}", "1")
                    .replace("{d:int}", "0").replace("{i:int}", "0").replace("{kind:str}", "jsonl").replace("{name}", "x"))
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            if method == "HEAD":
                continue
            if concrete == "/events":
                continue  # a stream: opened by the browser test and the parts test
            r = guest.request(method, concrete, data={"csrf": csrf} if method == "POST" else None,
                              headers={"accept": "*/*"})
            owners = concrete.startswith(OWNERS)
            assert (r.status_code == 403 and "owner" in r.text) == owners, (method, concrete, r.status_code, r.text[:80])
            met.append(owners)
    assert met.count(True) >= 15 and met.count(False) >= 10, met  # both sides met
    # a page asked for by a browser is told why as a page (the same words)
    r = guest.post("/rules/chart", data={"csrf": csrf}, headers=HTML)
    assert r.status_code == 403 and "id=owner-only" in r.text


def nav(page: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', page.split("</nav>")[0])


def test_a_guests_nav_leaves_out_the_owners_pages_and_its_rule_facts_are_read_not_saved(table: Table) -> None:
    """A guest's phone showed the owner's links (New game, Calibrate, Teach: each tap a refusal) and the rule
    facts' forms with their Save buttons, refused only after the phone had been typed on.  Its nav holds the pages
    it opens; the rule facts are shown (disabled fields) with a line saying who saves them."""
    from device.web import pages

    owner, _ = phone(table, IPHONE)
    guest, _ = phone(table, ANDROID)
    every = [h for h, _ in pages.NAV]
    opens = [h for h in every if guest.get(h, headers=HTML).status_code == 200]
    assert set(every) - set(opens) == pages.OWNER_PAGES  # the nav's owner's pages are the ones refused
    for path in ("/", "/log", "/rules", "/check", "/phones"):
        assert nav(guest.get(path, headers=HTML).text) == opens, path
        assert nav(owner.get(path, headers=HTML).text) == every, path
    assert nav(guest.get("/setup", headers=HTML).text) == opens  # the refusal page too
    moved = guest.get("/teach/confirm", headers=HTML, follow_redirects=False)  # a form's address, opened
    assert moved.status_code == 303 and moved.headers["location"] == "/"
    assert owner.get("/teach/confirm", headers=HTML, follow_redirects=False).headers["location"] == "/teach"
    missing = guest.get("/setup/nothing", headers=HTML)  # no such page under an owner's: sent to one it opens
    assert missing.status_code == 404 and nav(missing.text) == opens and '<p><a href="/">Live</a>' in missing.text
    theirs, mine = guest.get("/rules", headers=HTML).text, owner.get("/rules", headers=HTML).text
    saves = re.compile(r'id="?save-(chart|fire|facts-\w+)')
    assert len(saves.findall(mine)) >= 3 and not saves.findall(theirs)
    assert theirs.count("<fieldset disabled") == len(saves.findall(mine)) == theirs.count("guest-saves")
    assert "Only an owner&#x27;s phone saves these" in theirs and "<fieldset" not in mine
    assert 'id=show-gear' in theirs  # the verdicts' gear is every phone's to choose (a GET)
