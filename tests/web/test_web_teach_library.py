"""The Teach page's face library: what it holds (each die's faces and their examples) and an undo of the last
teaching from the phone.  Issue 14 (item 4): "`teach dice --undo` removes the last teaching"; before, the page
quoted that command after a doubtful example, and an owner with only a phone had no way to take it back, nor
to see what the library held without the Check page."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from web_helpers import Table, paired_client  # noqa: E402

from device.dice_library_files import load_library  # noqa: E402
from device.web.hub import CameraShot  # noqa: E402


def with_camera(table: Table) -> None:
    image = np.zeros((480, 640, 3), np.uint8)
    image[200:260, 300:360] = 255
    table.web.hub.camera = CameraShot(image, 1)


def teach(client, token: str, die: str, face: str) -> str:
    r = client.post("/teach", data={"csrf": token, "die": die, "face": face})
    crop = re.search(r'name=token value="([^"]+)"', r.text).group(1)
    r = client.post("/teach/confirm", data={"csrf": token, "token": crop})
    assert r.status_code == 200, r.text
    return r.text


def said(html: str, where: str = "library-message") -> str:
    m = re.search(rf'id="?{where}"?>(.*?)</', html, re.S)
    assert m, html[-1500:]
    return m.group(1)


def undo_mark(page: str) -> str:
    """The undo form's mark, as a browser sends it (unescaped)."""
    return html.unescape(re.search(r'name=last value="([^"]*)"', page).group(1))


@pytest.fixture
def faces(table: Table, tmp_path: Path) -> Path:
    path = tmp_path / "faces.json"
    table.web.ctx.faces_path = path
    return path


def test_the_page_shows_each_dies_faces_and_the_last_teaching(table, faces):
    client, token = paired_client(table)
    with_camera(table)
    page = client.get("/teach").text
    assert "No face taught yet." in page and str(faces) in page and "id=undo" not in page
    teach(client, token, "skid", "SHIFT")
    teach(client, token, "skid", "SHIFT")
    page = teach(client, token, "skid", "HAZARD")
    table_ = re.search(r"<table id=library-faces>(.*?)</table>", page, re.S).group(1)
    assert "<tr><th>skid</th><td>HAZARD 1, SHIFT 2</td></tr>" in table_, table_
    assert said(page, "library-last") == "skid HAZARD: 1 example"
    assert "id=undo" in page
    # the camera's die is a plain white square: taught as a blank face, kept so in the file, and the owner told
    assert "taught as HAZARD is blank inside (nothing printed on it)" in html.unescape(page)
    assert load_library(faces).blank_faces("skid") == ["HAZARD", "SHIFT"]


def test_undo_takes_back_the_last_teaching_and_the_appliance_reads_without_it(table, faces):
    """As `pitboard teach dice --undo`: the last teaching's examples are removed, the file saved, and the
    loop's reader is given the library (a face taken back must not go on being read)."""
    client, token = paired_client(table)
    with_camera(table)
    given = []
    table.web.ctx.on_library = given.append
    teach(client, token, "skid", "SHIFT")
    page = teach(client, token, "skid", "HAZARD")
    given.clear()
    r = client.post("/teach/undo", data={"csrf": token, "last": undo_mark(page)})
    assert r.status_code == 200
    words = said(r.text)
    assert "took back the last teaching: removed 1 example(s) of skid HAZARD (0 left)" in words, words
    assert 'class="ok" id="library-message"' in r.text
    library = load_library(faces)
    assert library.faces("skid") == ["SHIFT"] and len(library.teachings) == 1
    assert len(given) == 1 and given[0].faces("skid") == ["SHIFT"]
    assert said(r.text, "library-last") == "skid SHIFT: 1 example"


def test_an_undo_sent_twice_takes_back_one_teaching_and_says_so(table, faces):
    """A double tap on 'Undo the last teaching' sends the form twice: the second must not take back the
    teaching before it, which the owner never saw named, and the phone (which shows the second answer) must
    not show a red "nothing was undone" that invites a third tap (a review)."""
    client, token = paired_client(table)
    with_camera(table)
    teach(client, token, "skid", "SHIFT")
    page = teach(client, token, "skid", "HAZARD")
    mark = undo_mark(page)
    first = client.post("/teach/undo", data={"csrf": token, "last": mark})
    assert first.status_code == 200
    before = faces.read_bytes()
    again = client.post("/teach/undo", data={"csrf": token, "last": mark})
    assert again.status_code == 200 and 'class="ok" id="library-message"' in again.text
    assert said(again.text) == said(first.text) + " (sent twice: done once)"
    assert faces.read_bytes() == before and load_library(faces).faces("skid") == ["SHIFT"]


def test_an_undo_after_another_teaching_takes_back_nothing(table, faces):
    """The page was open on one phone while a face was taught from another (or the command line): the undo
    it shows would take back a teaching other than the one named."""
    client, token = paired_client(table)
    with_camera(table)
    page = teach(client, token, "skid", "SHIFT")
    mark = undo_mark(page)
    teach(client, token, "skid", "HAZARD")
    r = client.post("/teach/undo", data={"csrf": token, "last": mark})
    assert r.status_code == 400
    assert said(r.text).startswith("nothing was undone: the face library changed since the page showed it")
    assert "its last teaching now is skid HAZARD: 1 example" in said(r.text)
    assert load_library(faces).faces("skid") == ["HAZARD", "SHIFT"]
    forged = client.post("/teach/undo", data={"csrf": token, "last": ""})  # no mark: nothing named, nothing undone
    assert forged.status_code == 400 and load_library(faces).faces("skid") == ["HAZARD", "SHIFT"]


def test_an_undo_after_another_teaching_of_the_same_face_takes_back_nothing(table, faces):
    """A review: the mark was the number of teachings and the last record; the library keeps its last 20
    teachings, and a face taught again from another phone records the same [skid, SHIFT, 1]: the page's undo
    took back the newer example it had never shown."""
    from vision.dice.faces import MAX_UNDO

    client, token = paired_client(table)
    with_camera(table)
    for _ in range(MAX_UNDO):
        page = teach(client, token, "skid", "SHIFT")
    mark = undo_mark(page)
    teach(client, token, "skid", "SHIFT")  # from another phone: the same record, the count held at 20
    held = load_library(faces)
    r = client.post("/teach/undo", data={"csrf": token, "last": mark})
    assert r.status_code == 400 and "changed since the page showed it" in said(r.text)
    assert len(load_library(faces).examples["skid"]["SHIFT"]) == len(held.examples["skid"]["SHIFT"]) == MAX_UNDO + 1


def test_a_damaged_librarys_words_name_the_config_the_appliance_runs_with(table, faces, tmp_path):
    cfg = tmp_path / "table.toml"
    table.web.ctx.config_source = str(cfg)
    faces.write_text("{not json")
    client, _token = paired_client(table)
    problem = said(client.get("/teach").text, "library-problem")
    assert f"--config {cfg}" in html.unescape(problem), problem


def test_a_damaged_library_is_shown_as_the_loader_says_and_never_written(table, faces):
    client, token = paired_client(table)
    faces.write_text('{"format": "pitboard-faces", "version": 1, "patch": 24, "dice": {"skid": {"SHIFT": "x"}}')
    before = faces.read_bytes()
    page = client.get("/teach")
    assert page.status_code == 200
    problem = said(page.text, "library-problem")
    assert "face library" in problem and "move it aside" in problem, problem
    assert "id=undo" not in page.text
    r = client.post("/teach/undo", data={"csrf": token, "last": '1:[["skid","SHIFT",1]]'})
    assert r.status_code == 400 and said(r.text).startswith("nothing was undone: ")
    assert faces.read_bytes() == before


def test_a_record_no_undo_can_follow_is_mended_first_and_nothing_is_undone(table, faces):
    """As the command: a teaching record whose face was deleted by hand is dropped (no example removed), the
    library saved, and the owner shown the teaching an undo would now take back before any is."""
    client, token = paired_client(table)
    with_camera(table)
    teach(client, token, "skid", "SHIFT")
    data = json.loads(faces.read_text())
    data["teachings"].insert(0, [["skid", "SPIN", 2]])  # SPIN's examples deleted by hand, its record left
    faces.write_text(json.dumps(data))
    page = client.get("/teach").text
    r = client.post("/teach/undo", data={"csrf": token, "last": undo_mark(page)})
    assert r.status_code == 200
    words = said(r.text)
    assert words.startswith("nothing was undone: the face library needed mending first (dropped teaching record"), words
    library = load_library(faces)
    assert library.faces("skid") == ["SHIFT"] and len(library.teachings) == 1


def test_an_undo_on_another_library_alike_to_one_undone_is_not_taken_for_a_double_tap(table, faces, tmp_path):
    """The sent-twice memory was keyed by the file's SHA-256 alone: a second table's library holding the same
    bytes (the same faces taught the same way) answered "sent twice: done once" and took nothing back."""
    client, token = paired_client(table)
    with_camera(table)
    page = teach(client, token, "skid", "SHIFT")
    other = tmp_path / "other-faces.json"
    other.write_bytes(faces.read_bytes())
    mark = undo_mark(page)
    assert client.post("/teach/undo", data={"csrf": token, "last": mark}).status_code == 200
    table.web.ctx.faces_path = other
    r = client.post("/teach/undo", data={"csrf": token, "last": mark})
    assert r.status_code == 200 and "sent twice" not in said(r.text), said(r.text)
    assert load_library(other).dice() == []
