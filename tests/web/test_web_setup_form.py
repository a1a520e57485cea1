"""The New game form as an owner with a phone uses it: choosing another game in the list, starting a game
this host does not play."""

from __future__ import annotations

import html as html_lib
import io
import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from games.core import Command  # noqa: E402
from web_helpers import Table, paired_client  # noqa: E402

HTML = {"accept": "text/html"}


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
    assert kind == "fail" and "Thunder Road: Vendetta example" in text and "Check" in text
    assert box(r.text).strip() == game_package("thunder_road").EXAMPLE_SETUP.strip()
    assert shown_field(r.text) == "thunder_road"
    # as a browser sends the box: its lines ended CRLF (the untouched example was never recognised on a phone)
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "shown": "gaslands", "action": "check",
                                    "setup": untouched.replace("\n", "\r\n")})
    assert "Thunder Road: Vendetta example" in said(r.text)[1]
    # the owner had typed their own gaslands table: it is kept, and the check says what is in the box
    mine = untouched.replace("Alice", "Zoe")
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "shown": "gaslands", "action": "check",
                                    "setup": mine})
    kind, text = said(r.text)
    assert kind == "fail" and "unknown key 'scenario'" in text
    assert "Gaslands: Refuelled setup" in text and "Example" in text
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


def test_a_game_the_host_cannot_start_is_said_as_a_refusal(tmp_path, monkeypatch):
    """Seen in `pitboard sim gaslands --web`: New game, thunder_road, Example, Start this game answered in
    green (the class of success) 'this sim plays gaslands: quit it and start ...', and the form's token
    was spent as if a game had begun."""
    from device.sim import Sim

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    sim = Sim("gaslands", db=tmp_path / "sim.sqlite", out=io.StringIO())
    try:
        with pytest.raises(ValueError, match="this sim plays Gaslands: Refuelled"):
            sim._web_new_game("thunder_road", {})
    finally:
        sim.close()

    def new_game(game, options):
        raise ValueError(f"this sim plays gaslands: quit it and start `pitboard sim {game} --web ...`")

    (tmp_path / "t").mkdir()
    t = Table(tmp_path / "t", new_game=new_game)
    try:
        client, token = paired_client(t)
        from games import game_package

        example = game_package("thunder_road").EXAMPLE_SETUP
        form = {"csrf": token, "once": "abc", "game": "thunder_road", "shown": "thunder_road", "action": "start",
                "setup": example}
        r = client.post("/setup", data=form)
        assert r.status_code == 400
        kind, text = said(r.text)
        assert kind == "fail" and "this sim plays gaslands" in text
        again = client.post("/setup", data=form)  # not 'sent twice': nothing had begun
        assert again.status_code == 400 and "sent twice" not in said(again.text)[1]
    finally:
        t.close()


def test_a_host_that_plays_one_game_offers_start_for_it_alone(tmp_path, monkeypatch):
    """A phone review of `pitboard sim gaslands --web`: New game offered all four games, and Space Race's Check
    said "a valid table for USA, USSR" before Start was refused ("this sim plays Gaslands: Refuelled").  The
    other games' forms say so in place of Start."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path, new_game=lambda game, options: "a new gaslands game begins now", startable=("gaslands",))
    try:
        client, _ = paired_client(t)
        other = html_lib.unescape(client.get("/setup?game=space_race").text)
        assert 'id=start>' not in other and ("this sim plays Gaslands: Refuelled: to play Twilight Struggle Space Race, "
                                              "quit it and start <code>pitboard sim space_race --web …</code>") in other
        own = client.get("/setup?game=gaslands").text
        assert "id=start>Start this game" in own and "id=no-start" not in own
    finally:
        t.close()


def test_a_game_begun_from_the_page_leads_to_the_live_page(tmp_path, monkeypatch):
    """After 'Start this game' the phone stayed on the form with 'a new gaslands game begins now': the owner
    scrolled up for the nav (and the form, pressed again, says 'sent twice'). The answer links to Live;
    a mere check does not."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path, new_game=lambda game, options: "a new gaslands game begins now")
    try:
        client, token = paired_client(t)
        form = {"csrf": token, "game": "gaslands", "setup": t.module.EXAMPLE_SETUP}
        checked = client.post("/setup", data={**form, "action": "check"}).text
        assert 'id="to-live"' not in checked
        begun = client.post("/setup", data={**form, "action": "start"}).text
        assert re.search(r'id="setup-message">[^<]*begins now.*?<a href="/" id="to-live">', begun, re.S)
    finally:
        t.close()


def test_a_checked_setup_is_shown_by_a_page_that_back_and_reload_can_ask_again(table):
    """Seen on a phone: Check, then Back (or a reload) asked "Confirm form resubmission": the result was the
    answer to a POST.  The check now answers with a redirect to a page that shows the result."""
    client, csrf = paired_client(table)
    text = box(client.get("/setup", headers=HTML).text) + "\n# our table, checked\n"
    r = client.post("/setup", data={"csrf": csrf, "game": "gaslands", "setup": text, "action": "check"},
                    headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/setup?checked=")
    for _ in range(2):  # and again, as Back or a reload asks for it
        page = client.get(r.headers["location"], headers=HTML)
        assert page.status_code == 200
        kind, message = said(page.text)
        assert kind == "ok" and message.startswith("Gaslands: Refuelled: a valid table for Alice")
        assert box(page.text) == text  # the table as it was checked, not the example
    assert "# our table" not in box(client.get("/setup?checked=unknown", headers=HTML).text)  # an old link: the example


def test_starting_a_game_over_one_being_played_asks_first(tmp_path, monkeypatch):
    """Seen: one tap on Start this game (beside Check) left the game at the table unfinished, with no word
    to anybody; the page had no way back to it.  With moves made, the page says which game is being played
    and starts the new one only with 'End the game in progress' ticked."""
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    started = []
    t = Table(tmp_path, new_game=lambda game, options: started.append(game) or "a new game begins now")
    try:
        client, token = paired_client(t)
        form = {"csrf": token, "game": "gaslands", "setup": t.module.EXAMPLE_SETUP, "action": "start"}
        assert t.web.in_progress() is None  # nothing played yet: nothing to lose
        t.match.apply(Command("choose_template", {"template": "gentle", "hand": "left"}))
        assert "1 move in" in t.web.in_progress()
        page = client.get("/setup", headers=HTML).text
        assert 'id=playing' in page and "End the game in progress" in page
        refused = client.post("/setup", data=form)
        assert refused.status_code == 409 and not started
        kind, message = said(refused.text)
        assert kind == "fail" and "is being played" in message and "End the game in progress" in message
        assert box(refused.text).strip() == t.module.EXAMPLE_SETUP.strip()  # the typing is kept
        # the box to tick is above the 22em text box, on the phone's screen with the message asking for it
        assert refused.text.index("id=replace") < refused.text.index("<textarea")
        # a mistake in the setup with the box ticked: refused, and the box stays ticked (it was cleared, and
        # the owner had to find it again)
        bad = t.module.EXAMPLE_SETUP.replace('type = "', 'type = "spaceship', 1)
        mistake = client.post("/setup", data={**form, "setup": bad, "replace": "1"})
        assert mistake.status_code == 400 and not started and "id=replace checked" in mistake.text
        assert "id=replace checked" not in client.post("/setup", data={**form, "setup": bad}).text
        begun = client.post("/setup", data={**form, "replace": "1"})
        assert begun.status_code == 200 and started == ["gaslands"]
    finally:
        t.close()


@pytest.mark.parametrize("game", ["gaslands", "thunder_road", "space_race", "grand_tour"])
def test_the_held_ok_says_camera_tokens_only_where_the_camera_counts_them(game):
    """Seen: "OK (hold): camera's tokens" on the Space Race and Grand Tour pages, which have no hazard tokens
    (a tap answered "no extra hazard tokens to add")."""
    from device.web.hub import EMPTY
    from device.web.pages import live_page

    page = html_lib.unescape(live_page(EMPTY, "t", camera=None, game=game))
    assert ("OK (hold): camera's tokens" in page) == (game == "gaslands")
    assert "BACK (hold): undo several" in page


def test_a_crop_of_several_dice_offers_no_confirm_that_would_be_refused():
    """Seen: the Teach page said "put dice of one kind on the tray"; the crop said "4 dice found ... each one
    becomes an example once you confirm"; Confirm then refused "4 dice seen where one was expected"."""
    from device.web.pages import teach_page

    many = html_lib.unescape(teach_page("t", frame=1, die="skid", face="SHIFT", token="k", dice=4))
    assert "id=confirm" not in many and "one die at a time" in many and "becomes an example" not in many
    one = html_lib.unescape(teach_page("t", frame=1, die="skid", face="SHIFT", token="k", dice=1))
    assert "id=confirm" in one and "It becomes an example of" in one
    start = html_lib.unescape(teach_page("t", frame=1))
    assert "Put one die on the tray" in start and "dice of one kind" not in start


def test_the_game_log_list_says_which_game_is_played_and_when_games_began():
    """Seen at 360 px: the start read "2026-12-03T21:45:51.668+00:…" (cut), and a game left behind by a new
    one read "playing" like the new one."""
    from types import SimpleNamespace

    from device.web.pages import games_page

    games = [SimpleNamespace(id=1, game="gaslands", created="2026-12-03T21:45:51.668+00:00", finished=False, events=9,
                             ended_unfinished=False),
             SimpleNamespace(id=2, game="gaslands", created="2026-12-03T22:01:02.000+00:00", finished=False, events=3,
                             ended_unfinished=False),
             SimpleNamespace(id=3, game="space_race", created="2026-12-03T22:05:00+00:00", finished=True, events=40,
                             ended_unfinished=False)]
    page = games_page(games, "x.sqlite")
    rows = re.findall(r"<tr><td><a href=\"/log/(\d)\">game \d</a><br>(.*?)</td><td>(.*?)<br>(.*?)<br>(\d+) events</td>",
                      page)
    assert rows == [("3", "Twilight Struggle Space Race", "finished", "2026-12-03 22:05 UTC", "40"),
                    ("2", "Gaslands: Refuelled", "playing", "2026-12-03 22:01 UTC", "3"),
                    ("1", "Gaslands: Refuelled", "left unfinished", "2026-12-03 21:45 UTC", "9")]
    # an audit: one game of each kind read "playing" (four at once); only the one at the table is
    games.append(SimpleNamespace(id=4, game="thunder_road", created="2026-12-03T22:10:00+00:00", finished=False,
                                 events=2, ended_unfinished=False))
    states = re.findall(r'<a href="/log/(\d)">game \d</a><br>[^<]*</td><td>([a-z ]+)<br>', games_page(games, "x", 2))
    assert states == [("4", "left unfinished"), ("3", "finished"), ("2", "playing"), ("1", "left unfinished")]
    states = re.findall(r'<a href="/log/(\d)">game \d</a><br>[^<]*</td><td>([a-z ]+)<br>', games_page(games, "x"))
    assert [s for g, s in states if s == "playing"] == ["playing"] and ("4", "playing") in states
    # one ended from the phone ("End the game in progress"): said so, not "finished" (it was not played out)
    games.append(SimpleNamespace(id=5, game="gaslands", created="2026-12-03T22:20:00+00:00", finished=True,
                                 events=7, ended_unfinished=True))
    states = re.findall(r'<a href="/log/(\d)">game \d</a><br>[^<]*</td><td>([a-z ]+)<br>', games_page(games, "x"))
    assert states[0] == ("5", "ended unfinished") and ("3", "finished") in states


def test_a_setup_pasted_under_the_wrong_game_is_named(table):
    """A Thunder Road table pasted into the box with Gaslands chosen: "unknown key 'first_player' (did you mean
    'players'?)" sent the owner renaming keys.  The page says whose setup it is and what to choose."""
    from games import game_package

    client, token = paired_client(table)
    road = game_package("thunder_road").EXAMPLE_SETUP.replace("Ana", "Zoe")
    r = client.post("/setup", data={"csrf": token, "game": "gaslands", "shown": "gaslands", "action": "check",
                                    "setup": road})
    kind, text = said(r.text)
    assert kind == "fail" and "unknown key 'first_player'" in text
    assert ("this looks like a Thunder Road: Vendetta setup (first_player and board are its keys, not Gaslands: "
            "Refuelled's): choose Thunder Road: Vendetta in the game list and check again") in text
    assert box(r.text) == road  # what was pasted is kept


def test_a_start_from_a_page_drawn_before_another_game_began_is_refused_naming_it(tmp_path, monkeypatch):
    """An audit: two phones pressed Start 0.1 s apart, both with "End the game in progress" ticked: Thunder Road
    (game 3) began and was at once replaced by the Grand Tour, while the first phone was told its game began; and
    a game with no moves yet was replaced by a second phone's Start without a word.  The form carries the page's
    count of games begun as it was drawn; a Start after another phone's was taken is refused, naming that game,
    and a second press, from the page drawn again, starts.  The game at the table changes later, on the loop's
    thread (a review: counted by it, two Starts before the loop's next step both began): here it never does."""
    from games import game_package

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    begun: list[str] = []

    def new_game(game, options):
        begun.append(game)  # queued for the loop, as `pitboard run` and the sim do: the table's game is unchanged
        return f"a new {game} game begins now"

    t = Table(tmp_path, new_game=new_game)
    try:
        client, token = paired_client(t)
        page_a = client.get("/setup", headers=HTML).text
        page_b = client.get("/setup", headers=HTML).text
        drawn = re.search(r'name="table" value="([^"]+)"', page_a).group(1)
        assert drawn == re.search(r'name="table" value="([^"]+)"', page_b).group(1)
        form = {"csrf": token, "game": "thunder_road", "shown": "thunder_road", "action": "start", "replace": "1",
                "setup": game_package("thunder_road").EXAMPLE_SETUP, "table": drawn}
        r = client.post("/setup", data={**form, "once": "phone-a"})
        assert r.status_code == 200 and begun == ["thunder_road"]
        mine = re.search(r'name="table" value="([^"]+)"', r.text).group(1)
        r = client.post("/setup", data={**form, "game": "gaslands", "shown": "gaslands", "once": "phone-b",
                                        "setup": t.module.EXAMPLE_SETUP})  # phone B's page was drawn before A's Start
        assert r.status_code == 409 and begun == ["thunder_road"]
        kind, text = said(r.text)
        assert kind == "fail" and text == ("A Thunder Road: Vendetta game was started from another phone since this "
                                           "page was drawn: press Start this game again to start this one in its place")
        again = re.search(r'name="table" value="([^"]+)"', r.text).group(1)
        r = client.post("/setup", data={**form, "game": "gaslands", "shown": "gaslands", "once": "phone-b2",
                                        "setup": t.module.EXAMPLE_SETUP, "table": again})
        assert r.status_code == 200 and begun == ["thunder_road", "gaslands"]
        r = client.post("/setup", data={**form, "once": "phone-a2", "table": mine})  # A's page is stale now too
        assert r.status_code == 409
    finally:
        t.close()


def test_the_box_is_said_to_hold_the_other_games_setup_only_when_it_does(table):
    """An audit: Thunder Road chosen in the list on a page drawn for Space Race, a Thunder Road setup typed with
    a mistake: "(the box still holds the Twilight Struggle Space Race setup; ... press Example, which replaces
    what is in the box)": untrue, and Example would have wiped the typing."""
    from games import game_package

    client, token = paired_client(table)
    tr = game_package("thunder_road").EXAMPLE_SETUP
    sr = game_package("space_race").EXAMPLE_SETUP
    form = {"csrf": token, "game": "thunder_road", "shown": "space_race", "action": "check"}
    typed = tr.replace("[[players]]", 'tiles = "six"\n[[players]]', 1)
    r = client.post("/setup", data={**form, "setup": typed})
    assert r.status_code == 400 and "still holds" not in r.text
    r = client.post("/setup", data={**form, "setup": sr + "\n# kept\n"})
    assert r.status_code == 400 and "the box still holds the Twilight Struggle Space Race setup" in r.text


def test_the_set_up_page_says_what_each_games_set_up_holds():
    """A phone audit: every game's page began "Players in seating order (clockwise), their vehicles, the scenario";
    followed for the Space Race, the setup was refused ("has no players to name"), and the Grand Tour takes teams."""
    from device.web.pages import setup_page

    games = ["gaslands", "thunder_road", "space_race", "grand_tour"]
    said = {g: setup_page(g, games, "", "token") for g in games}
    assert "their vehicles, the scenario" in said["gaslands"]
    assert "no names" in said["space_race"] and "Players in seating" not in said["space_race"]
    assert "The teams" in said["grand_tour"] and "vehicles" not in said["grand_tour"].split("<form")[0]
    assert "who goes first" in said["thunder_road"]
