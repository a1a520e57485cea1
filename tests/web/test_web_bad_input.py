"""The web page given what a real table types and sends from a phone: uploads the page does not take, bodies
far too large, corners typed off the frame, the same form sent twice, addresses that name nothing, numbers
out of any range, a misspelt die.  Each is refused with a message naming what is wrong and what to do (4xx,
never a 500), and nothing already recorded is touched."""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from web_helpers import Table, paired_client  # noqa: E402

from device.web.hub import CameraShot  # noqa: E402
from device.web.server import MAX_BODY  # noqa: E402

HTML = {"accept": "text/html"}


def logged(table: Table) -> list[tuple[str, int]]:
    """Every table of the game log and its row count, read through a connection of its own."""
    con = sqlite3.connect(f"file:{table.store.path}?mode=ro", uri=True)
    try:
        names = [n for (n,) in con.execute("select name from sqlite_master where type='table' order by name")]
        return [(n, con.execute(f'select count(*) from "{n}"').fetchone()[0]) for n in names]
    finally:
        con.close()


def message(html: str, where: str) -> str:
    m = re.search(rf'id="?{where}"?>(.*?)</p>', html, re.S)
    assert m, html[-800:]
    return m.group(1)


def take_crop(client, token: str, die: str, face: str) -> str:
    """Take the camera's tray crop to teach ``die`` ``face``: the token its confirmation sends."""
    r = client.post("/teach", data={"csrf": token, "die": die, "face": face})
    # a crop of several dice offers no confirmation (taught one die at a time): its token is in the image's
    # address, for a test that sends the confirmation anyway
    return re.search(r'name=token value="([^"]+)"|/teach/crop/([^".]+)\.png', r.text).group(1) or \
        re.search(r'/teach/crop/([^".]+)\.png', r.text).group(1)


def with_camera(table: Table) -> None:
    image = np.zeros((480, 640, 3), np.uint8)
    image[200:260, 300:360] = 255
    table.web.hub.camera = CameraShot(image, 1)


def test_a_photo_uploaded_to_teach_or_calibrate_is_refused_saying_the_camera_is_used(table):
    """An owner's phone sent a photo (a text file, an empty file, a file named ../../etc/passwd) to the teach
    and calibrate pages as a file upload.  Before, the form's fields inside the upload were not read, so the
    phone was told its CSRF token was wrong and to reload and send it again, which never helps."""
    client, token = paired_client(table)
    with_camera(table)
    before = logged(table)
    for path in ("/teach", "/calibrate", "/teach/template"):
        for name, data in (("notes.txt", b"hello"), ("empty.jpg", b""), ("../../etc/passwd", b"\x89PNG")):
            r = client.post(path, data={"csrf": token, "die": "skid", "face": "SHIFT"},
                            files={"image": (name, data, "image/jpeg")}, headers={"x-csrf-token": token})
            assert r.status_code == 415, (path, name, r.text)
            assert "no file uploads" in r.text and "pitboard calibrate IMAGE" in r.text and "CSRF" not in r.text
    assert logged(table) == before
    assert not (table.store.path.parent / "calibration.json").exists()


def test_a_json_body_is_refused_by_its_type_not_as_an_empty_button(table):
    """A script on the owner's phone posted JSON to /press.  Before, its body was read as a form with no
    fields and the answer was "'' is not a button", which says nothing about what was sent wrong."""
    client, token = paired_client(table)
    r = client.post("/press", json={"button": "ok"}, headers={"x-csrf-token": token})
    assert r.status_code == 415 and "application/json" in r.text and "use its form" in r.text
    assert table.web.hub.take_presses(0) == []


def test_a_40_mb_body_is_refused_before_it_is_read_whole(table):
    """A 40 MB photo posted to the calibrate page.  Before, the whole body was read into the Pi's memory and
    only then refused; now a body announced (or streamed) larger than the limit is refused as it comes."""
    client, token = paired_client(table)
    before = logged(table)
    r = client.post("/calibrate", content=b"x" * 10, headers={"x-csrf-token": token,
                                                               "content-length": str(40 * 1024 * 1024)})
    assert r.status_code == 413 and "larger than 64 KB" in r.text

    def chunks():  # no Content-Length (chunked): counted as it comes, refused once past the limit
        for _ in range(4 * MAX_BODY // 65536):
            yield b"y" * 65536

    r = client.post("/calibrate", content=chunks(), headers={"x-csrf-token": token})
    assert r.status_code == 413 and "send less" in r.text
    assert logged(table) == before


def test_corners_typed_off_the_frame_or_not_numbers_are_refused_not_a_500(table):
    """The owner typed the mat's corners as 1e308,1e308 -1e308,1e308 ... (or inf, nan, -3,-3).  Before, the
    first crashed the page with a 500 ("cannot convert float NaN to integer") while drawing the preview, the
    others were told "give exactly four corner points" although four were given."""
    client, token = paired_client(table)
    with_camera(table)
    cases = {"1e308,1e308 -1e308,1e308 -1e308,-1e308 1e308,-1e308": "outside the frame, which is 640×480",
             "-3,-3 -3,-3 -3,-3 -3,-3": "outside the frame",
             "1e309,1e309 1,1 2,2 3,3": "top-left corner (inf,inf) is not a pixel position",
             "10,10 nan,nan 600,400 10,400": "top-right corner (nan,nan) is not a pixel position",
             # the example inside this 640 x 480 frame (it was a 1280 x 720 frame's, off a small one)
             "10;10 600 400": "e.g. 51,53 589,48 595,432 45,437"}
    for points, said in cases.items():
        r = client.post("/calibrate", data={"csrf": token, "mat": "800x450", "points": points})
        assert r.status_code == 400, (points, r.text[-500:])
        assert said in message(r.text, "calibrate-message"), points
    assert not (table.store.path.parent / "calibration.json").exists()
    good = client.post("/calibrate", data={"csrf": token, "mat": "800x450", "points": "10,10 600,10 600,400 10,400"})
    assert good.status_code == 200 and "id=proposal>Calibrated" in good.text


def test_the_same_setup_form_sent_twice_begins_one_game(tmp_path):
    """The owner tapped "Start this game" twice (or reloaded the page the start answered with, which posts
    the form again).  Before, each post began another new game: two games in the log, the first empty."""
    started = []
    t = Table(tmp_path, new_game=lambda game, options: started.append(options) or "a new game begins now")
    try:
        client, token = paired_client(t)
        page = client.get("/setup", headers=HTML).text
        once = re.search(r'name="once" value="([^"]+)"', page).group(1)
        form = {"csrf": token, "once": once, "game": "gaslands", "action": "start", "setup": t.module.EXAMPLE_SETUP}
        first = client.post("/setup", data=form)
        assert first.status_code == 200 and "a new game begins now" in first.text and len(started) == 1
        again = client.post("/setup", data=form)
        assert again.status_code == 409 and len(started) == 1
        assert "sent twice" in message(again.text, "setup-message") and "press Start this game again" in again.text
        fresh = re.search(r'name="once" value="([^"]+)"', again.text).group(1)  # a deliberate second game
        assert fresh != once
        assert client.post("/setup", data={**form, "once": fresh}).status_code == 200 and len(started) == 2
    finally:
        t.close()


def test_a_game_that_does_not_exist_in_the_setup_address_is_named(table):
    """The owner opened /setup?game=chess (a link typed by hand).  Before, the page silently showed the
    current game's form as if chess had been understood."""
    client, _ = paired_client(table)
    r = client.get("/setup?game=chess", headers=HTML)
    assert r.status_code == 404
    said = message(r.text, "setup-message")
    assert "&#x27;chess&#x27; is not a game" in said and "gaslands" in said and "choose one" in said
    r = client.get("/setup?game=../../etc/passwd", headers=HTML)
    assert r.status_code == 404 and "is not a game" in r.text


def test_log_addresses_that_name_nothing_are_404_with_what_there_is(table):
    """Hand-typed log addresses: a step past the game's end, a screen that is not there, events.exe.
    Before, step 99999 was shown as a page of blank screens, the screen answered "list index out of
    range", and events.exe downloaded the CSV as pitboard-game-1.exe."""
    client, _ = paired_client(table)
    before = logged(table)
    gid = table.game_id
    r = client.get(f"/log/{gid}/at/99999", headers=HTML)
    assert r.status_code == 404 and f"game {gid} has steps 0 to 0; there is no step 99999" in r.text
    r = client.get(f"/log/{gid}/at/0/screen/99.png")
    assert r.status_code == 404 and "no screen 99" in r.text and "index" not in r.text
    r = client.get(f"/log/{gid}/events.exe")
    assert r.status_code == 404 and "events.jsonl" in r.text and "attachment" not in r.headers.get(
        "content-disposition", "")
    assert client.get(f"/log/{gid}/events.csv").status_code == 200
    assert logged(table) == before


def test_fire_die_moves_out_of_any_range_are_refused(table):
    """The owner typed moves 99999999999999999999 (or -3) for a Fire die face.  Before, the first was saved
    (a number no TOML reader but Python's takes) and the second was told "moves must be a whole number"."""
    client, token = paired_client(table)
    fire = table.store.path.parent / "thunder_road-fire_die.toml"
    r = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "99999999999999999999"})
    assert r.status_code == 400 and "out of range" in r.text and "1 to 200" in r.text
    r = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "-3"})
    assert r.status_code == 400 and "moves -3 is out of range" in r.text
    assert not fire.exists()
    ok = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "2"})
    assert ok.status_code == 200 and fire.exists()
    # a value the save takes is one the form lets the browser send again (max=12 in the form made a saved 13 block
    # every later Save of the Fire die: a web audit)
    ok = client.post("/rules/fire", data={"csrf": token, "fire1.effect": "moves", "fire1.moves": "13"})
    assert ok.status_code == 200
    page = client.get("/rules", headers=HTML).text
    (field,) = re.findall(r'<input name="fire1.moves"[^>]*>', page)
    assert 'value="13"' in field and "max=200" in field, field


def test_a_page_pasted_into_a_fact_is_not_quoted_back_whole(table):
    """The owner pasted a long text into a number field of the rule facts.  Before, the refusal quoted all
    of it back (5000 characters filling the phone's screen)."""
    client, token = paired_client(table)
    r = client.post("/rules/facts/thunder_road", data={"csrf": token, "vehicle_types.big_rig.damage_slots": "1" * 5000})
    assert r.status_code == 400 and "is not a whole number or unknown" in r.text
    assert len(message(r.text, "facts-thunder_road-message")) < 200


def test_a_misspelt_die_or_face_is_refused_before_it_is_taught(table, tmp_path):
    """The owner, having taught "skid", typed "skdi" for the next face (and "D6" for the pips die).  Before,
    the crop was offered for confirmation without a word and taught as a new die nobody reads; a walkthrough
    then taught "SHFIT" as a skid face, and "banana SHIFT": faces no game's rules ask for."""
    client, token = paired_client(table)
    with_camera(table)
    table.web.ctx.faces_path = tmp_path / "faces.json"
    r = client.post("/teach", data={"csrf": token, "die": "skid", "face": "SHIFT"})
    crop = re.search(r'name=token value="([^"]+)"', r.text).group(1)
    assert "new die" not in r.text  # the library is empty: every die is new
    assert client.post("/teach/confirm", data={"csrf": token, "token": crop}).status_code == 200
    r = client.post("/teach", data={"csrf": token, "die": "skdi", "face": "SPIN"})
    assert r.status_code == 400
    said = message(r.text, "teach-message")
    assert "no game here rolls a die called &#x27;skdi&#x27;: did you mean skid?" in said, said
    r = client.post("/teach", data={"csrf": token, "die": "skid", "face": "SHFIT"})
    assert r.status_code == 400
    said = message(r.text, "teach-message")
    assert "&#x27;SHFIT&#x27; is not a face of the skid die: did you mean SHIFT? its faces are" in said, said
    r = client.post("/teach", data={"csrf": token, "die": "banana", "face": "SHIFT"})
    assert r.status_code == 400 and "no game here rolls a die called" in r.text
    r = client.post("/teach", data={"csrf": token, "die": "fire", "face": "fire2"})
    said = message(r.text, "teach-message")
    assert r.status_code == 200 and "&#x27;fire&#x27; is a new die: the face library knows skid" in said, said
    r = client.post("/teach", data={"csrf": token, "die": "skid", "face": "SPIN"})
    assert "new die" not in r.text
    r = client.post("/teach", data={"csrf": token, "die": "D6", "face": "1"})
    assert r.status_code == 400 and "without teaching" in r.text


def test_a_confirmation_sent_twice_answers_with_what_the_first_did(table, tmp_path):
    """A double tap on 'Add to the face library' (or 'Save this calibration'): the phone shows the answer
    to the second post, which was the red 'that crop is gone (confirmed already, or too old): take it
    again' although the face had just been taught: the owner took it again and taught it twice."""
    client, token = paired_client(table)
    with_camera(table)
    table.web.ctx.faces_path = tmp_path / "faces.json"
    crop = take_crop(client, token, "skid", "SHIFT")
    first = client.post("/teach/confirm", data={"csrf": token, "token": crop})
    assert first.status_code == 200
    said = message(first.text, "teach-message")
    again = client.post("/teach/confirm", data={"csrf": token, "token": crop})
    assert again.status_code == 200 and message(again.text, "teach-message").startswith(said)
    assert "sent twice: done once" in again.text and 'class="ok" id="teach-message"' in again.text
    from device.dice_library_files import load_library

    assert len(load_library(tmp_path / "faces.json").examples["skid"]["SHIFT"]) == 1
    never = client.post("/teach/confirm", data={"csrf": token, "token": "never-given"})
    assert never.status_code == 400 and "take it again" in never.text


def test_a_crop_showing_several_dice_is_not_taught_as_one_face(table, tmp_path):
    """The page's "Add to the face library" taught every die it found in the crop as the face named: with
    no calibration the crop is the whole frame, and an outside audit saw the four corner tags outlined as
    dice, each about to become an example of SHIFT.  `pitboard teach dice` refuses that; the page now does
    too, and the library is left as it was."""
    from device.dice_library_files import load_library

    client, token = paired_client(table)
    image = np.zeros((480, 640, 3), np.uint8)
    for x in (100, 300, 500):  # three light squares on a dark mat: three dice
        image[200:260, x:x + 60] = 255
    table.web.hub.camera = CameraShot(image, 1)
    table.web.ctx.faces_path = tmp_path / "faces.json"
    page = client.post("/teach", data={"csrf": token, "die": "skid", "face": "SHIFT"}).text
    assert "id=confirm" not in page and "one die at a time" in page  # the page offers no confirmation...
    crop = take_crop(client, token, "skid", "SHIFT")
    r = client.post("/teach/confirm", data={"csrf": token, "token": crop})  # ... and refuses one sent anyway
    assert r.status_code == 400
    said = message(r.text, "teach-message")
    assert "not taught" in said and "3 dice seen in the tray where one was expected" in said, said
    assert not (tmp_path / "faces.json").exists()
    with_camera(table)  # one die: taught
    crop = take_crop(client, token, "skid", "SHIFT")
    assert client.post("/teach/confirm", data={"csrf": token, "token": crop}).status_code == 200
    assert len(load_library(tmp_path / "faces.json").examples["skid"]["SHIFT"]) == 1


def test_a_refused_rule_facts_save_shows_what_was_typed(table):
    """Seen: a Thunder Road facts form with one bad value among four: the answer was the message alone, and
    its link back showed the saved values, so all four entries were lost."""
    import html as html_lib

    client, token = paired_client(table)
    r = client.post("/rules/facts/thunder_road", data={"csrf": token, "vehicle_types.big_rig.damage_slots": "three",
                                                       "vehicle_types.bike.damage_slots": "2"})
    assert r.status_code == 400
    page = html_lib.unescape(r.text)
    assert message(r.text, "facts-thunder_road-message").startswith("Not saved:")
    assert 'id="fact-vehicle_types.big_rig.damage_slots" value="three"' in page
    assert 'id="fact-vehicle_types.bike.damage_slots" value="2"' in page


def test_a_damaged_log_still_offers_its_events_from_the_phone(table):
    """A log edited by hand (an event that is not JSON): its Game log page said what is wrong and gave a
    terminal command to export it, but no way to take the events from the phone, though the export works."""
    from games.core import Command

    assert table.app.apply(Command("choose_template", {"template": "turn", "hand": "right"}), source="web").accepted
    con = sqlite3.connect(table.store.path)
    con.execute("UPDATE events SET data = '{oops' WHERE seq = 2")
    con.commit()
    con.close()
    before = logged(table)
    client, _ = paired_client(table)
    gid = table.game_id
    for page in (f"/log/{gid}", f"/log/{gid}/at/1"):
        r = client.get(page, headers=HTML)
        assert "is not valid JSON" in r.text and "the log was edited by hand" in r.text
        link = re.search(r'<p id=damaged-export>.*?<a href="([^"]+)">export JSON lines</a>', r.text)
        assert link and link.group(1) == f"/log/{gid}/events.jsonl", r.text[-600:]
    r = client.get(link.group(1))
    assert r.status_code == 200 and '"data_text": "{oops"' in r.text and '"type": "game_started"' in r.text
    assert logged(table) == before


def test_a_black_frame_is_refused_for_teaching_and_said_so(table, tmp_path):
    """An audit: a black frame (the camera covered, the lights off) on Teach got "no die found in the crop: it
    would be taught as one die filling it", and was offered to confirm: a black square taught as a face."""
    client, token = paired_client(table)
    table.web.hub.camera = CameraShot(np.zeros((480, 640, 3), np.uint8), 1)
    table.web.ctx.faces_path = tmp_path / "faces.json"
    r = client.post("/teach", data={"csrf": token, "die": "skid", "face": "SHIFT"})
    assert r.status_code == 400
    said = message(r.text, "teach-message")
    assert said.startswith("the camera&#x27;s picture of the tray is all black (or all white)"), said
    assert 'name=token value="' not in r.text  # nothing offered to confirm
    assert not (tmp_path / "faces.json").exists()


def test_an_address_with_no_page_answers_with_a_pitboard_page(table):
    """/log/1/at/-1 (a step number typed wrong) was Starlette's bare "Not Found"; the browser's back to a form's
    address (/teach/confirm, which takes only POST) was a bare "Method Not Allowed"."""
    client, _ = paired_client(table)
    gid = table.game_id
    r = client.get(f"/log/{gid}/at/-1", headers=HTML)
    assert r.status_code == 404 and "No such page" in r.text and "the steps of a game are numbered from 0" in r.text
    assert '<a href="/log">Game log</a>' in r.text  # the nav and a way on
    r = client.get("/nowhere", headers=HTML)
    assert r.status_code == 404 and "There is no page at <code>/nowhere</code>" in r.text
    r = client.get("/teach/confirm", headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/teach"
    r = client.get("/calibrate/confirm", headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/calibrate"
    assert client.get("/nowhere", headers={"accept": "image/png"}).text == "not found"
    # a POST to a page that takes none: the page is there (a review: "There is no page at /log")
    r = client.post("/log", data={"csrf": "x"}, headers=HTML)
    assert r.status_code == 405 and r.text == "POST is not taken here" and "GET" in r.headers["allow"]


def test_an_unpaired_browser_learns_nothing_of_the_addresses(table):
    from starlette.testclient import TestClient

    from device.web.server import create_app

    fresh = TestClient(create_app(table.web.ctx))
    r = fresh.get("/nowhere", headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/pair"


def test_no_page_gives_two_elements_one_id_and_a_refused_facts_save_opens_at_its_words(table):
    """The Rule facts page gave a game's heading and its table one id (the save's redirect went to either); a
    refused save's words stood at the top of a long page, the form far below: its action now ends at them."""
    client, _ = paired_client(table)
    for where in ("/", "/log", "/setup", "/rules", "/calibrate", "/teach", "/check", "/phones"):
        text = client.get(where, headers=HTML).text
        ids = re.findall(r'\sid="?([^"\s>]+)', text)
        assert len(ids) == len(set(ids)), (where, sorted({i for i in ids if ids.count(i) > 1}))
    rules = client.get("/rules", headers=HTML).text
    assert 'action="/rules/facts/thunder_road#facts-thunder_road-message"' in rules


def test_a_hand_edited_facts_file_of_the_wrong_shape_is_named_not_a_500(table):
    """A web audit: ``[specialty]`` typed for ``[[specialty]]`` in the Grand Tour facts file made the whole Rule
    facts page a 500 (the Gaslands chart and the Fire die with it), and every Grand Tour setup was refused with
    words that named neither the file nor the slip.  The page names the file and what its table must be."""
    client, token = paired_client(table)
    facts = table.store.path.parent / "grand_tour-facts.toml"  # beside the chart the page saves
    facts.write_text('[specialty]\nid = "1"\nname = "Breakaway"\n', encoding="utf-8")
    r = client.get("/rules", headers=HTML)
    assert r.status_code == 200
    assert "specialty must be a list of cards ([[specialty]], two brackets); saving the facts here writes it anew" \
        in r.text.replace("&#x27;", "'")
    assert facts.read_text(encoding="utf-8").startswith("[specialty]")  # read, not rewritten
    facts.write_text("specialty = 3\n", encoding="utf-8")
    assert client.get("/rules", headers=HTML).status_code == 200


def test_a_facts_form_missing_its_fields_keeps_the_saved_facts(table):
    """A web audit: a facts form sent with none of its fields (cut off on the way, a stale page) wrote a file of
    its header alone and said "Facts saved": every fact the owner had entered was gone.  A form with none is
    refused and the file kept; a form with some keeps the saved values of the others."""
    client, token = paired_client(table)
    facts = table.store.path.parent / "thunder_road-facts.toml"
    r = client.post("/rules/facts/thunder_road", data={"csrf": token, "vehicle_types.big_rig.damage_slots": "3",
                                                       "commands.nitro.adds_moves": "die"})
    assert r.status_code in (200, 303), r.text[-400:]
    saved = facts.read_text(encoding="utf-8")
    assert "damage_slots = 3" in saved and 'adds_moves = "die"' in saved
    r = client.post("/rules/facts/thunder_road", data={"csrf": token})
    assert r.status_code == 400
    assert "the form sent none of them (cut off on the way?); reload the page and save again" in r.text
    assert facts.read_text(encoding="utf-8") == saved
    r = client.post("/rules/facts/thunder_road", data={"csrf": token, "commands.nitro.adds_moves": "2"})
    assert r.status_code in (200, 303), r.text[-400:]
    again = facts.read_text(encoding="utf-8")
    assert "damage_slots = 3" in again and "adds_moves = 2" in again


def test_a_form_cut_short_by_a_lost_connection_is_a_plain_refusal_not_a_traceback():
    """An audit: a POST whose body stopped coming (a phone losing the Wi-Fi mid-upload: Content-Length 5000, a short
    body, the socket closed) wrote ~40 lines of ClientDisconnect traceback into the journal, at every such request."""
    import asyncio

    from starlette.requests import Request

    from device.web.server import BadForm, _form

    messages = [{"type": "http.request", "body": b"code=12", "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict:
        return messages.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/pair", "headers": [
        (b"content-type", b"application/x-www-form-urlencoded"), (b"content-length", b"5000")]}
    with pytest.raises(BadForm, match="the form was cut short") as cut:
        asyncio.run(_form(Request(scope, receive)))
    assert cut.value.status == 400
