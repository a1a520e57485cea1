"""The web page over plain HTTP (Starlette's TestClient): pairing, the cookie, CSRF, the rate limit, the
live snapshot, the log's timeline, replay and exports, set-up and the chart."""

from __future__ import annotations

import csv
import io
import json

import pytest
from PIL import Image

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from web_helpers import Table, pair_token, paired_client  # noqa: E402

from device.web.security import PER_CLIENT_FAILS  # noqa: E402
from device.web.server import create_app  # noqa: E402

HTML = {"accept": "text/html"}


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    yield t
    t.close()


@pytest.fixture
def starting(tmp_path):
    """A paired phone at a table whose New game records the options it is given instead of beginning a game:
    (the table, the phone's client, its csrf token, the options of each game begun)."""
    started = []
    t = Table(tmp_path, new_game=lambda game, options: started.append(options) or "begun")
    try:
        client, token = paired_client(t)
        yield t, client, token, started
    finally:
        t.close()


def test_unpaired_pages_send_to_pairing_and_data_is_refused(table):
    client = TestClient(create_app(table.web.ctx))
    r = client.get("/", headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/pair"
    for path in ("/events", "/screen/0.png", "/log", "/log/1/events.jsonl", "/static/live.js"):
        assert client.get(path, headers={"accept": "*/*"}).status_code == 401, path
    assert client.post("/press", data={"button": "ok"}).status_code == 401


def test_pairing_sets_an_httponly_samesite_strict_cookie(table):
    client = TestClient(create_app(table.web.ctx))
    page = client.get("/pair", headers=HTML)
    r = client.post("/pair", data={"csrf": pair_token(page.text), "code": table.web.code}, follow_redirects=False)
    assert r.status_code == 303
    cookie = [v for k, v in r.headers.multi_items() if k == "set-cookie" and v.startswith("pitboard_session=")][0]
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    assert client.get("/", headers=HTML).status_code == 200


def test_a_wrong_code_is_refused_with_what_to_do(table):
    client = TestClient(create_app(table.web.ctx))
    token = pair_token(client.get("/pair", headers=HTML).text)
    wrong = "000000" if table.web.code != "000000" else "111111"
    r = client.post("/pair", data={"csrf": token, "code": wrong})
    assert r.status_code == 403
    assert "type the six digits shown on Alice&#x27;s screen" in r.text  # player 1, by name
    assert client.get("/", headers=HTML, follow_redirects=False).status_code == 303


def test_pairing_without_the_forms_token_is_refused(table):
    client = TestClient(create_app(table.web.ctx))
    client.get("/pair", headers=HTML)
    r = client.post("/pair", data={"csrf": "forged", "code": table.web.code})
    assert r.status_code == 403 and "CSRF" in r.text
    other = TestClient(create_app(table.web.ctx))  # no pairing cookie at all
    assert other.post("/pair", data={"csrf": "x", "code": table.web.code}).status_code == 403


def test_pairing_attempts_are_rate_limited_even_for_the_right_code(table):
    client = TestClient(create_app(table.web.ctx))
    token = pair_token(client.get("/pair", headers=HTML).text)
    wrong = "000000" if table.web.code != "000000" else "111111"
    for _ in range(PER_CLIENT_FAILS):
        assert client.post("/pair", data={"csrf": token, "code": wrong}).status_code == 403
    r = client.post("/pair", data={"csrf": token, "code": table.web.code})
    assert r.status_code == 429 and "wait" in r.text


def test_the_code_is_on_player_1s_screen_until_a_browser_pairs(table):
    first = table.web.first_player()
    assert any(n.kind == "web_pair" and n.player == first and table.web.code in n.text for n in table.app.notices)
    paired_client(table)
    table.step()  # the loop takes the code off
    assert not any(n.kind == "web_pair" for n in table.app.notices)


def test_every_post_needs_the_sessions_csrf_token(table):
    client, token = paired_client(table)
    assert client.post("/press", data={"button": "ok"}).status_code == 403
    assert client.post("/press", data={"button": "ok", "csrf": "wrong"}).status_code == 403
    assert client.post("/press", data={"button": "ok"}, headers={"origin": "http://evil.example"}).status_code == 403
    assert client.post("/rules/chart", data={"turn.1": "permitted"}).status_code == 403
    assert client.post("/setup", data={"action": "check", "setup": ""}).status_code == 403
    assert table.app.history == [] and table.web.hub.take_presses(0) == []


def test_a_press_from_the_page_goes_through_the_loop_and_the_mirror_shows_its_pixels(table):
    client, token = paired_client(table)
    before = table.web.hub.snapshot
    r = client.post("/press", data={"button": "ok", "csrf": token}, headers={"x-csrf-token": token})
    assert r.status_code == 204
    table.step()
    after = table.web.hub.snapshot
    assert after.version > before.version and after.status and "Template" in after.status
    player, png = after.screens[0]
    shown = Image.open(io.BytesIO(png))
    assert shown.size == (128, 64)
    assert shown.convert("1").tobytes() == table.screens.images[player].tobytes()
    assert client.get("/screen/0.png").content == png
    assert client.post("/press", data={"button": "jump", "csrf": token}).status_code == 400


def test_a_refusal_is_shown_as_the_last_refusal(table):
    from games.core import Command

    client, token = paired_client(table)
    table.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}))
    table.app.apply(Command("choose_template", {"template": "hairpin", "hand": "left"}))
    table.step()
    snap = table.web.hub.snapshot
    assert snap.refusal and "touch-move" in snap.refusal
    assert "touch-move" in client.get("/", headers=HTML).text


def _play_a_little(table):
    from games.core import Command

    table.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}))
    table.app.apply(Command("place_template"))
    table.app.apply(Command("undo"))
    table.step()


def test_the_timeline_groups_by_round_and_activation_and_marks_undone(table):
    client, _ = paired_client(table)
    _play_a_little(table)
    page = client.get(f"/log/{table.game_id}", headers=HTML).text
    assert "Round 1 · gear phase 1" in page and "Alice · Rust Bucket" in page
    assert "Rust Bucket: template" in page and "(undone)" in page and "undo: took back decision" in page
    assert "game " in client.get("/log", headers=HTML).text


def test_exports_are_the_logs_events(table):
    client, _ = paired_client(table)
    _play_a_little(table)
    jsonl = client.get(f"/log/{table.game_id}/events.jsonl")
    assert jsonl.status_code == 200 and "attachment" in jsonl.headers["content-disposition"]
    lines = jsonl.text.splitlines()
    assert lines == list(table.store.export_jsonl(table.game_id))
    rows = list(csv.DictReader(io.StringIO(client.get(f"/log/{table.game_id}/events.csv").text)))
    assert [int(r["seq"]) for r in rows] == [json.loads(line)["seq"] for line in lines]
    assert any(r["type"] == "template_chosen" and r["player"] == "Alice" for r in rows)
    assert any(r["undone"] == "yes" for r in rows) and any(r["type"] == "undone" for r in rows)
    assert client.get("/log/999/events.csv").status_code == 404


def test_the_dashboards_at_a_past_step_are_replayed_from_the_log(table):
    client, _ = paired_client(table)
    _play_a_little(table)
    r = client.get(f"/log/{table.game_id}/at/1", headers=HTML)
    assert r.status_code == 200 and "Rust Bucket: template" in r.text
    png = client.get(f"/log/{table.game_id}/at/1/screen/0.png")
    assert png.status_code == 200 and Image.open(io.BytesIO(png.content)).size == (128, 64)
    now = client.get(f"/log/{table.game_id}/at/0/screen/0.png").content
    assert now != png.content  # before the template was chosen, Alice's dashboard was different


def test_setup_is_checked_by_the_games_own_rules(table):
    from games.core import Illegal

    client, token = paired_client(table)
    bad = table.module.EXAMPLE_SETUP.replace('type = "', 'type = "spaceship', 1)
    with pytest.raises(Illegal) as exc:
        import tomllib

        table.module.GAME.start(tomllib.loads(bad))
    r = client.post("/setup", data={"csrf": token, "game": "gaslands", "action": "check", "setup": bad})
    assert r.status_code == 400 and pages_text(exc.value.reason) in r.text
    r = client.post("/setup", data={"csrf": token, "game": "gaslands", "action": "check", "setup": "[[players"})
    assert r.status_code == 400 and "not valid TOML" in r.text
    r = client.post("/setup", data={"csrf": token, "game": "gaslands", "action": "check",
                                    "setup": table.module.EXAMPLE_SETUP})
    assert r.status_code == 200 and "Gaslands: Refuelled: a valid table" in r.text


def pages_text(text: str) -> str:
    from device.web.pages import esc

    return esc(text)


def test_the_chart_grid_is_saved_as_the_toml_the_rules_read_and_the_verdict_changes(table, tmp_path):
    from games.gaslands import normalise_chart, template_status

    client, token = paired_client(table)
    page = client.get("/rules?gear=2", headers=HTML).text
    assert 'id="verdict-hard">unknown' in page
    form = {"csrf": token, "gear": "2", "hard.2": "not_permitted"}
    r = client.post("/rules/chart", data=form, follow_redirects=True)
    assert r.status_code == 200 and 'id="verdict-hard">not permitted' in r.text
    import tomllib

    saved = tomllib.loads((tmp_path / "chart.toml").read_text())["chart"]
    assert template_status("hard", 2, normalise_chart(saved)).value == "not_permitted"
    assert list(saved) == ["hard"]
    bad = client.post("/rules/chart", data={"csrf": token, "hard.2": "maybe"})
    assert bad.status_code == 400 and "allowed" in bad.text
    # a second form with one cell keeps the first one's; a form with no cell (cut off) is refused, the file kept
    client.post("/rules/chart", data={"csrf": token, "veer.3": "hazardous"})
    saved = tomllib.loads((tmp_path / "chart.toml").read_text())["chart"]
    assert saved["hard"][1] == "not_permitted" and saved["veer"][2] == "hazardous"
    before = (tmp_path / "chart.toml").read_text()
    empty = client.post("/rules/chart", data={"csrf": token})
    assert empty.status_code == 400 and "none of its cells" in empty.text
    assert (tmp_path / "chart.toml").read_text() == before


def test_a_new_game_from_the_page_takes_the_saved_chart(tmp_path, starting):
    t, client, token, started = starting
    client.post("/rules/chart", data={"csrf": token, "hard.2": "not_permitted"})
    r = client.post("/setup", data={"csrf": token, "game": "gaslands", "action": "start",
                                    "setup": t.module.EXAMPLE_SETUP})
    assert r.status_code == 200 and "begun" in r.text
    assert started[0]["chart"]["hard"][1] == "not_permitted"


@pytest.mark.parametrize("game, name, text, instead", [
    ("gaslands", "chart.toml", '[chart]\nhairpin = ["permitted",\n', "the packaged permitted-gears chart"),
    ("thunder_road", "thunder_road-facts.toml", "damage_slots = 3 3\n", "the setup's and the packaged rule facts"),
    ("thunder_road", "thunder_road-fire_die.toml", "[fire_die\n", "the packaged Fire die"),
])
def test_a_damaged_file_saved_from_the_page_is_named_at_check_and_start(tmp_path, starting, game, name, text, instead):
    """An audit: a chart (or facts, or Fire die) file saved from the phone and since damaged was dropped without a
    word: Check said "a valid table", Start began the game on the packaged values."""
    from games import game_package

    t, client, token, started = starting
    (tmp_path / name).write_text(text, encoding="utf-8")
    example = game_package(game).EXAMPLE_SETUP
    for action in ("check", "start"):
        r = client.post("/setup", data={"csrf": token, "game": game, "action": action, "setup": example,
                                        "replace": "1"})
        said = pages_text(f"note: {tmp_path / name} ")
        assert r.status_code == 200 and said in r.text and pages_text(f"this game uses {instead}") in r.text, \
            (action, r.text[-3000:])
    assert len(started) == 1


def test_the_fire_die_is_saved_as_the_setups_fire_die_and_a_new_game_takes_it(tmp_path, starting):
    import tomllib

    t, client, token, started = starting
    assert 'id="fire-fire1-effect"' in client.get("/rules", headers=HTML).text
    bad = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "0"})
    assert bad.status_code == 400 and "moves = 1 or more" in bad.text
    r = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "2",
                                         "fire2.effect": "out"}, follow_redirects=True)
    assert r.status_code == 200 and "Fire die saved" in r.text
    saved = tomllib.loads((tmp_path / "thunder_road-fire_die.toml").read_text())["fire_die"]["faces"]
    assert saved[0] == {"label": "fire1", "effect": "moves", "moves": 2} and saved[1]["effect"] == "out"
    from games import game_package

    example = game_package("thunder_road").EXAMPLE_SETUP
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "action": "start", "setup": example})
    assert r.status_code == 200 and started[0]["fire_die"]["faces"][0]["effect"] == "moves"


def test_teaching_needs_a_frame_names_and_the_token(table):
    client, token = paired_client(table)
    assert "No camera frame" in client.get("/teach", headers=HTML).text
    assert client.post("/teach", data={"die": "fx", "face": "boom"}).status_code == 403
    r = client.post("/teach", data={"csrf": token, "die": "d6", "face": "1"})
    assert r.status_code == 400 and "without teaching" in r.text
    r = client.post("/teach/confirm", data={"csrf": token, "token": "nope"})
    assert r.status_code == 400 and "take it again" in r.text


def test_the_other_games_unknown_facts_are_saved_as_setup_tables_and_a_new_game_takes_them(tmp_path, starting):
    import tomllib

    from games import game_package

    t, client, token, started = starting
    page = client.get("/rules", headers=HTML).text
    assert 'id="fact-vehicle_types.big_rig.damage_slots" value="unknown"' in page
    assert 'id="card-1-timing"' in page and 'id="fact-time_track.columns" value="20"' in page

    r = client.post("/rules/facts/thunder_road", data={"csrf": token, "vehicle_types.big_rig.damage_slots": "6",
                                                      "commands.nitro.adds_moves": "die",
                                                      "commands.traction_drive.dice": "4, 5 6",
                                                      "vehicle_types.bike.size": "unknown"},
                    follow_redirects=True)
    assert r.status_code == 200 and "Facts saved." in r.text
    assert 'id="fact-vehicle_types.big_rig.damage_slots" value="6"' in r.text
    saved = tomllib.loads((tmp_path / "thunder_road-facts.toml").read_text())
    assert saved == {"vehicle_types": {"big_rig": {"damage_slots": 6}},
                     "commands": {"nitro": {"adds_moves": "die"}, "traction_drive": {"dice": [4, 5, 6]}}}
    example = game_package("thunder_road").EXAMPLE_SETUP
    r = client.post("/setup", data={"csrf": token, "game": "thunder_road", "action": "start", "setup": example})
    assert r.status_code == 200 and started[-1]["vehicle_types"]["big_rig"]["damage_slots"] == 6
    assert started[-1]["commands"]["traction_drive"]["dice"] == [4, 5, 6]
    events = game_package("thunder_road").GAME.start(started[-1])  # the rules read them as they are
    assert events

    bad = client.post("/rules/facts/thunder_road", data={"csrf": token, "commands.traction_drive.dice": "7"})
    assert bad.status_code == 400 and "die values are 1 to 6" in bad.text
    bad = client.post("/rules/facts/thunder_road", data={"csrf": token, "vehicle_types.big_rig.size": "huge"})
    assert bad.status_code == 400 and "not a whole number" in bad.text
    assert client.post("/rules/facts/thunder_road", data={"vehicle_types.big_rig.size": "4"}).status_code == 403

    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "time_track.columns": "24",
                                                    "time_track.start_column": "1", "time_track.start_row": "0",
                                                    "card.1.name": "Breakaway", "card.1.timing": "once_per_stage",
                                                    "card.1.text": "Move 2 extra squares once per stage."},
                    follow_redirects=True)
    assert r.status_code == 200 and "Facts saved." in r.text
    tour = tomllib.loads((tmp_path / "grand_tour-facts.toml").read_text())
    assert tour["time_track"] == {"columns": 24, "start_column": 1, "start_row": 0}
    assert tour["specialty"][0] == {"id": "1", "name": "Breakaway", "timing": "once_per_stage",
                                    "text": "Move 2 extra squares once per stage.", "known": True}
    assert tour["specialty"][1]["known"] is False
    bad = client.post("/rules/facts/grand_tour", data={"csrf": token, "time_track.columns": "24",
                                                      "time_track.start_column": "30"})
    assert bad.status_code == 400 and "start_column" in bad.text  # the rules' own refusal
    example = game_package("grand_tour").EXAMPLE_SETUP
    # a setup giving its own sheet: its values are used, and said to be
    own_sheet = example + "[time_track]\ncolumns = 20\nstart_column = 2\nstart_row = 0\n"
    r = client.post("/setup", data={"csrf": token, "game": "grand_tour", "action": "check", "setup": own_sheet})
    assert pages_text("the setup's own time_track.columns, time_track.start_column, time_track.start_row are "
                      "used, not the saved facts") in r.text
    r = client.post("/setup", data={"csrf": token, "game": "grand_tour", "action": "start", "setup": example})
    assert r.status_code == 200 and started[-1]["specialty"][0]["name"] == "Breakaway"
    assert started[-1]["time_track"]["columns"] == 24  # the example itself takes the saved sheet


def test_whether_a_round_nobody_crosses_costs_a_minute_is_saved_from_the_rule_facts_page(tmp_path, starting):
    """``lose_time_every_round`` is a reading of the seed the owner makes (docs/RULINGS.md): on the phone's Rule facts
    page, beside the time sheet, and kept in the facts file (the packaged tour.toml is replaced by an update)."""
    import tomllib

    from games import game_package

    t, client, token, started = starting
    page = client.get("/rules", headers=HTML).text
    assert '<select name="lose_time_every_round" id="fact-lose_time_every_round">' in page
    assert '<option value="no" selected>' in page
    path = tmp_path / "grand_tour-facts.toml"
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "lose_time_every_round": "no",
                                                    "time_track.columns": "20"}, follow_redirects=True)
    assert r.status_code == 200 and "lose_time_every_round" not in path.read_text()  # the packaged reading
    sheet = {"time_track.columns": "20", "time_track.start_column": "2", "time_track.start_row": "0"}
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "lose_time_every_round": "yes", **sheet},
                    follow_redirects=True)  # the whole form, as a phone sends it
    assert r.status_code == 200 and "Facts saved." in r.text and '<option value="yes" selected>' in r.text
    # the sheet's placeholders are not written: written, a game begun here took them as the printed sheet (a
    # review: its placeholder warnings went silent)
    assert tomllib.loads(path.read_text()) == {"lose_time_every_round": True}
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "lose_time_every_round": "yes", **sheet,
                                                    "time_track.columns": "24"})
    text = path.read_text()
    assert tomllib.loads(text)["time_track"] == {"columns": 24, "start_column": 2, "start_row": 0}  # one sheet
    assert text.index("lose_time_every_round") < text.index("[time_track]")  # top-level, before the tables
    # a hand edit putting it below a table (where TOML reads it as the table's) is named, not a refused game
    path.write_text(text.replace("lose_time_every_round = true\n", "") + "lose_time_every_round = true\n")
    page = client.get("/rules", headers=HTML).text
    assert "is read as part of [time_track] (it stands below it): move it above the first [table]" in page
    path.write_text(text)
    example = game_package("grand_tour").EXAMPLE_SETUP
    r = client.post("/setup", data={"csrf": token, "game": "grand_tour", "action": "start", "setup": example})
    assert r.status_code == 200 and started[-1]["lose_time_every_round"] is True
    (event,) = [e for e in game_package("grand_tour").GAME.start(started[-1]) if e.type == "tour_set"]
    assert event.data["scoring"]["lose_time_every_round"] is True
    bad = client.post("/rules/facts/grand_tour", data={"csrf": token, "lose_time_every_round": "maybe"})
    assert bad.status_code == 400 and "is not yes or no" in bad.text
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "lose_time_every_round": "no"})
    assert tomllib.loads(path.read_text())["lose_time_every_round"] is False  # changed back: kept, as no


def test_whether_the_best_time_points_go_to_teams_is_saved_from_the_rule_facts_page(tmp_path, starting):
    """``time_points_by_team``, the seed's "the player 1st by time spent" read team by team (docs/RULINGS.md; a rules
    audit: the code had decided it rider by rider): on the phone's Rule facts page, kept in the facts file, and a
    new game takes it."""
    import tomllib

    from games import game_package

    t, client, token, started = starting
    page = client.get("/rules", headers=HTML).text
    assert '<select name="time_points_by_team" id="fact-time_points_by_team">' in page
    path = tmp_path / "grand_tour-facts.toml"
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "time_points_by_team": "yes"}, follow_redirects=True)
    assert r.status_code == 200 and "Facts saved." in r.text
    assert tomllib.loads(path.read_text()) == {"time_points_by_team": True}
    example = game_package("grand_tour").EXAMPLE_SETUP
    r = client.post("/setup", data={"csrf": token, "game": "grand_tour", "action": "start", "setup": example})
    assert r.status_code == 200 and started[-1]["time_points_by_team"] is True
    (event,) = [e for e in game_package("grand_tour").GAME.start(started[-1]) if e.type == "tour_set"]
    assert event.data["scoring"]["time_points_by_team"] is True


def test_every_form_of_every_page_is_refused_without_the_csrf_token(table):
    client, token = paired_client(table)
    app = create_app(table.web.ctx)
    posts = sorted({r.path.replace("{game}", "thunder_road") for r in app.routes if "POST" in (r.methods or ())})
    assert len(posts) >= 12 and "/pair" in posts
    for path in posts:
        if path == "/pair":
            continue  # its own double-submit token: test_pairing_without_the_forms_token_is_refused
        r = client.post(path, data={"button": "ok", "token": "x", "setup": "", "game": "gaslands"})
        assert r.status_code == 403 and "CSRF" in r.text, path
        forged = client.post(path, data={"csrf": token}, headers={"origin": "http://evil.example"})
        assert forged.status_code == 403, path
    # and every page's form carries the token
    for page in ("/", "/setup", "/rules", "/teach", "/calibrate", "/phones"):
        html = client.get(page, headers=HTML).text
        assert html.count("<form method=post") + html.count('<form class="press buttons" method="post"') + \
            html.count('<form class="dice" id="dice" method="post"') == html.count(f'name="csrf" value="{token}"'), page


def test_the_grand_tour_example_takes_the_owners_time_track_sheet(tmp_path, starting):
    """RULINGS: the time-track sheet's size is the owner's data.  The example setup repeated the shipped
    placeholders ([time_track] columns = 20 ...), and a setup's own keys come first: a table starting from the
    example (the New game page's, `--example-setup`) played on a 20-column sheet whatever the owner saved."""
    from games import game_package

    t, client, token, started = starting
    r = client.post("/rules/facts/grand_tour", data={"csrf": token, "time_track.columns": "30",
                                                     "time_track.start_column": "5", "time_track.start_row": "1"},
                    follow_redirects=True)
    assert r.status_code == 200 and "Facts saved." in r.text
    example = game_package("grand_tour").EXAMPLE_SETUP
    r = client.post("/setup", data={"csrf": token, "game": "grand_tour", "action": "start", "setup": example})
    assert r.status_code == 200
    track = started[-1]["time_track"]
    assert (track["columns"], track["start_column"], track["start_row"]) == (30, 5, 1)


def test_a_refused_chart_comes_back_as_it_was_sent_with_why(table, tmp_path):
    """A phone audit: every gear-1 cell set to not permitted (and one other change): the answer was a page of the
    message alone, no grid, no way back but the nav's link, which reloaded the saved chart: 54 choices lost."""
    import re

    from games.gaslands import TEMPLATES

    client, token = paired_client(table)
    form = {"csrf": token, **{f"{t}.1": "not_permitted" for t in TEMPLATES}, "veer.3": "hazardous"}
    r = client.post("/rules/chart", data=form)
    assert r.status_code == 400 and "Not saved: " in r.text and "not saved: the chart was not saved" not in r.text
    assert re.search(r'<p class="fail" id="chart-message">Not saved: [^<]*gear 1', r.text)
    for cell, status in (("turn-1", "not_permitted"), ("veer-3", "hazardous")):
        select = re.search(rf'<select name="[a-z_]+\.\d" id="cell-{cell}">(.*?)</select>', r.text).group(1)
        assert re.search(rf'<option[^>]*selected[^>]*>{status}|value="{status}" selected', select), select
    assert not (tmp_path / "chart.toml").exists()
