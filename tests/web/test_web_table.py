"""The table's set-up from the page: calibrating from the live camera (corners and zones drawn, saved only
once confirmed, then read by the loop), teaching a template's outline from the live camera, the camera's
frame drawn with the calibration; and ``pitboard run`` serving the page when ``[web] enabled``."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from vision.dice import FaceLibrary  # noqa: E402
from web_helpers import Table, pair_token, paired_client  # noqa: E402

from device.app import VisionReader  # noqa: E402
from device.web.hub import CameraShot  # noqa: E402
from vision.synth import CarSpec, SceneSpec, TemplateSpec, render_scene  # noqa: E402

HTML = {"accept": "text/html"}


def scene(spec: SceneSpec, seed: int = 5) -> np.ndarray:
    image, _truth = render_scene(spec, np.random.default_rng(seed))
    return image


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    t = Table(tmp_path, reader=VisionReader())
    yield t
    t.close()


def show(table: Table, image: np.ndarray, index: int = 1) -> None:
    table.web.hub.camera = CameraShot(image, index, reader=table.app.reader)


def test_calibrating_from_the_live_camera_is_drawn_then_saved_once_confirmed(table, tmp_path):
    client, token = paired_client(table)
    assert "No camera frame" in client.get("/calibrate", headers=HTML).text
    image = scene(SceneSpec(tilt_deg=8.0))
    show(table, image)
    page = client.get("/calibrate", headers=HTML).text
    assert "not calibrated" in page and "1280×720 pixels" in page
    assert client.get("/calibrate/frame.jpg").headers["content-type"] == "image/jpeg"

    r = client.post("/calibrate", data={"csrf": token, "mat": "800x450"})
    assert r.status_code == 200, r.text
    assert "reprojection error" in r.text and "zones" in r.text
    preview_token = re.search(r'name=token value="([^"]+)"', r.text).group(1)
    png = client.get(f"/calibrate/preview/{preview_token}.png")
    drawn = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == image.shape
    red = (drawn[:, :, 2] > 200) & (drawn[:, :, 1] < 60) & (drawn[:, :, 0] < 60)  # the corner dots and names
    assert red.sum() > 200 and not np.array_equal(drawn, image)
    saved = tmp_path / "calibration.json"
    assert not saved.exists()  # nothing is saved before the confirmation
    assert client.post("/calibrate/confirm", data={"token": preview_token}).status_code == 403  # no CSRF token

    r = client.post("/calibrate/confirm", data={"csrf": token, "token": preview_token})
    assert r.status_code == 200 and "saved" in r.text
    from device.table_files import load_calibration

    cal = load_calibration(saved)
    assert cal.mat_mm == (800.0, 450.0) and cal.rms_px < 2.0
    assert table.app.reader.calibration is None
    table.step()  # the loop takes the new calibration on its own thread
    assert table.app.reader.calibration is not None and table.app.reader.table_config is not None
    assert table.app.reader.table_config.car_tags == {10: "rust", 11: "brick"}  # the setup's cars
    assert table.app.reader.read_table(image) is not None  # the table is read now
    again = client.post("/calibrate/confirm", data={"csrf": token, "token": preview_token})  # a double tap
    assert again.status_code == 200 and "saved" in again.text and "sent twice: done once" in again.text
    gone = client.post("/calibrate/confirm", data={"csrf": token, "token": "never-given"})
    assert gone.status_code == 400 and "calibrate again" in gone.text


def test_calibration_refusals_say_what_to_do(table):
    client, token = paired_client(table)
    r = client.post("/calibrate", data={"csrf": token})
    assert r.status_code == 400 and "no camera frame" in r.text
    show(table, np.full((480, 640, 3), 120, np.uint8))
    r = client.post("/calibrate", data={"csrf": token})
    assert r.status_code == 400 and "corner markers" in r.text and "visible" in r.text
    r = client.post("/calibrate", data={"csrf": token, "mat": "big"})
    assert r.status_code == 400 and "WIDTHxHEIGHT" in r.text
    r = client.post("/calibrate", data={"csrf": token, "points": "1,2 3,4"})
    assert r.status_code == 400 and "2 corner(s) given" in r.text
    r = client.post("/calibrate", data={"csrf": token, "points": "40,30 600,35 610,450 30,440", "mat": "800x450"})
    assert r.status_code == 200 and "from points" in r.text  # four corners typed by hand


def test_a_template_outline_is_taught_from_the_live_camera_once_confirmed(table, tmp_path):
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags

    client, token = paired_client(table)
    spec = SceneSpec(cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                     templates=[TemplateSpec("turn", "right", attach_to="car1", tagged=False)], tilt_deg=3.0)
    image = scene(spec, 101)
    show(table, image)
    assert "needs a calibration" in client.get("/teach", headers=HTML).text
    det = {t.id: t.corners_px for t in detect_tags(image)}
    table.app.reader.calibration = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size,
                                                          spec.zone_list())
    page = client.get("/teach", headers=HTML).text
    assert 'id="template"' in page or "id=template" in page

    r = client.post("/teach/template", data={"csrf": token, "template": "turn"})
    assert r.status_code == 200, r.text
    assert "turn: outline of" in r.text
    outline_token = re.search(r'action=/teach/template/confirm>.*?name=token value="([^"]+)"', r.text).group(1)
    drawn = cv2.imdecode(np.frombuffer(client.get(f"/teach/outline/{outline_token}.png").content, np.uint8), 1)
    magenta = (drawn[:, :, 0] > 200) & (drawn[:, :, 1] < 60) & (drawn[:, :, 2] > 200)
    assert magenta.sum() > 200  # the learnt outline drawn where the template lies
    outlines = tmp_path / "data" / "template_outlines.toml"
    assert not outlines.exists()
    r = client.post("/teach/template/confirm", data={"csrf": token, "token": outline_token})
    assert r.status_code == 200 and "taught turn" in r.text
    from device.table_files import load_outlines

    assert "turn" in load_outlines(outlines)
    table.app.reader.table_config = __import__("vision.table", fromlist=["default_config"]).default_config()
    table.step()
    assert "turn" in table.app.reader.table_config.outlines  # the loop reads with it from now on

    bad = client.post("/teach/template", data={"csrf": token, "template": "loop_the_loop"})
    assert bad.status_code == 400 and "is not a template" in bad.text
    show(table, scene(SceneSpec(), 3), 2)  # no car on the mat
    bad = client.post("/teach/template", data={"csrf": token, "template": "turn"})
    assert bad.status_code == 400 and "exactly one tagged car" in bad.text


def test_the_live_camera_frame_shows_the_calibrations_corners_and_zones(table):
    from device.web.camera_view import annotate
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags

    spec = SceneSpec(tokens={"p1": 2})
    image = scene(spec, 8)
    det = {t.id: t.corners_px for t in detect_tags(image)}
    reader = VisionReader(calibration=calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm),
                                                             spec.image_size, spec.zone_list()))
    from vision.table import default_config

    reader.table_config = default_config()
    plain = cv2.imdecode(np.frombuffer(annotate(CameraShot(image, 1)), np.uint8), 1)
    drawn = cv2.imdecode(np.frombuffer(annotate(CameraShot(image, 1, reader=reader)), np.uint8), 1)
    red = (drawn[:, :, 2] > 200) & (drawn[:, :, 1] < 60) & (drawn[:, :, 0] < 60)
    red_before = (plain[:, :, 2] > 200) & (plain[:, :, 1] < 60) & (plain[:, :, 0] < 60)
    assert red.sum() > red_before.sum() + 200  # the four corners, named


# -- pitboard run ---------------------------------------------------------------------------------------


def test_pitboard_run_serves_the_page_when_web_is_enabled(tmp_path, monkeypatch):
    import httpx

    from device.camera import ReplayBackend
    from device.config import WebConfig, load_config, parse_config
    from device.web.cli import _web_enabled

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 180, np.uint8))
    doc = {"game": {"name": "gaslands"},
           "camera": {"backend": "replay", "device": str(frames), "width": 64, "height": 48},
           "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")},
           "vision": {"faces": str(tmp_path / "faces.json")},
           "web": {"enabled": True, "host": "127.0.0.1", "port": 8080}}
    toml = tmp_path / "pitboard.toml"
    toml.write_text('[game]\nname = "gaslands"\n[web]\nenabled = true\nhost = "127.0.0.1"\n')
    assert load_config(toml).web == WebConfig(True, "127.0.0.1", 8080)
    assert _web_enabled(type("Args", (), {"config": str(toml)})()) is True
    config = parse_config(doc, source="pitboard.toml")
    config = dataclasses.replace(config, web=WebConfig(True, "127.0.0.1", 0))  # any free port in the test
    # run with a config of its own (`run --config F`): the commands offered name F whole (the review: the page had
    # the file's name only, and the appliance's face-library problem no --config at all)
    own = tmp_path / "own.toml"
    config = dataclasses.replace(config, path=own)
    (tmp_path / "faces.json").write_text(json.dumps({**FaceLibrary().to_dict(), "dice": {"skid": {"SLIDE": []}}}))
    with _running_with_page(config, camera_backend=ReplayBackend(frames)) as (web, appliance, logs):
        assert web.ctx.config_source == str(own)
        assert any(f"--face SLIDE IMAGE... --config {own}`" in p.message for p in appliance.file_problems)
        assert "web page on http://127.0.0.1:" in logs[0] and "Alice's screen" in logs[0]
        assert any(web.code in text for text in _screen_notices(appliance))
        client, live = _paired(web)
        csrf = re.search(r'name="csrf" value="([^"]+)"', live).group(1)
        assert "Live: Gaslands: Refuelled" in live
        status = web.hub.snapshot.status
        assert client.post("/press", data={"button": "ok"}, headers={"x-csrf-token": csrf}).status_code == 204
        deadline = time.monotonic() + 10
        while web.hub.snapshot.status == status and time.monotonic() < deadline:
            time.sleep(0.01)
        assert web.hub.snapshot.status != status  # the appliance's own loop took the page's press
        assert client.get("/check").status_code == 200
        client.close()
    with pytest.raises(httpx.HTTPError):
        httpx.get(web.url + "pair", timeout=1)


@contextlib.contextmanager
def _running_with_page(config: Any, **build: Any) -> Iterator[tuple[Any, Any, list[str]]]:
    """`pitboard run` with the page, on mock pins and recording screens: the appliance is built, run and closed
    on a thread of its own (its SQLite log belongs to it).  Yields (the page's service, the appliance, what
    `run_with_web` logged); stopped, joined and its pins reset at the end."""
    from gpiozero.pins.mock import MockFactory

    from device.cli_device import build_appliance
    from device.web.cli import run_with_web

    factory = MockFactory()
    stopping = threading.Event()
    services: list[Any] = []
    appliances: list[Any] = []
    logs: list[str] = []

    def run() -> None:
        appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None,
                                    **build)
        appliances.append(appliance)
        run_with_web(config, appliance, stopping.is_set, logs.append, services.append)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    try:
        deadline = time.monotonic() + 20
        while not services and time.monotonic() < deadline:
            time.sleep(0.01)
        (web,) = services
        (appliance,) = appliances
        yield web, appliance, logs
    finally:
        stopping.set()
        runner.join(timeout=20)
        factory.reset()
    assert not runner.is_alive()


def _paired(web: Any) -> tuple[Any, str]:
    """An HTTP client paired with the page's code, and the Live page it was sent to."""
    import httpx

    client = httpx.Client(base_url=web.url, headers=HTML)
    pair_token = re.search(r'value="([^"]+)"', client.get("/pair").text).group(1)
    live = client.post("/pair", data={"csrf": pair_token, "code": web.code}, follow_redirects=True)
    return client, live.text


def _screen_notices(appliance) -> list[str]:
    return [n.text for n in appliance.app.notices]


def test_a_taken_port_is_named_by_its_config_key_and_the_table_plays_on(tmp_path, monkeypatch):
    import socket

    from gpiozero.pins.mock import MockFactory

    from device.camera import ReplayBackend
    from device.cli_device import build_appliance
    from device.config import WebConfig, parse_config
    from device.web.cli import run_with_web

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 180, np.uint8))
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    doc = {"game": {"name": "gaslands"}, "camera": {"backend": "replay", "device": str(frames)},
           "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")}}
    config = dataclasses.replace(parse_config(doc, source="pitboard.toml"), web=WebConfig(True, "127.0.0.1", port))
    factory = MockFactory()
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None,
                                camera_backend=ReplayBackend(frames))
    said: list[str] = []
    try:  # (the table plays on without the page: test_a_web_page_that_cannot_listen_leaves_the_table_playing...)
        try:
            assert run_with_web(config, appliance, lambda: True, log=said.append) == 0
        finally:
            holder.close()
    finally:
        factory.reset()
    assert any(re.search(r"pitboard.toml: \[web\] 127.0.0.1:\d+: the web page could not listen on .*port", line)
               for line in said), said
    from device.store import Store

    with Store(tmp_path / "games.sqlite") as again:  # the appliance was closed: its log is free
        assert again.games()


def test_the_live_camera_frame_marks_a_tag_it_does_not_use_and_says_why():
    """A car tag that measures far from its printed size is crossed out in red on the web page's camera
    frame, with its size: what an owner setting up needs to see (the screens say it during a game)."""
    from dataclasses import replace

    from device.web.camera_view import _draw_table
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import CarSpec
    from vision.table import default_config, read_table

    spec = SceneSpec(cars=[CarSpec("car1", 10, 300.0, 220.0, 20.0)])
    image = scene(spec, 8)
    det = {t.id: t.corners_px for t in detect_tags(image)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    obs = read_table(image, cal, replace(default_config(), car_tag_size_mm=28.0))
    (m,) = obs.misfits
    drawn, plain = image.copy(), image.copy()
    _draw_table(drawn, obs, cal, CameraShot(image, 1))
    _draw_table(plain, replace(obs, misfits=()), cal, CameraShot(image, 1))
    x, y = (int(v) for v in m.centre_px)
    cross = (drawn[:, :, 2] > 230) & (drawn[:, :, 1] < 60) & (drawn[:, :, 0] < 60)
    assert cross[y - 8:y + 9, x - 8:x + 9].sum() > 20  # the cross on the tag
    # the words: white on a box of their own (dark red), which the plain frame does not have.  (Counting
    # every red pixel measured the cross's thickness, which differs between OpenCV 4.11, the Pi's, and 5.)
    def box_red(img: np.ndarray) -> np.ndarray:
        return np.abs(img.astype(int) - (0, 0, 200)).max(axis=2) <= 10

    box = box_red(drawn) & ~box_red(plain)
    rows, cols = np.nonzero(box)
    assert box.sum() > 2000, box.sum()
    inside = drawn[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert (inside.min(axis=2) > 200).sum() > 300  # white letters on it


def test_with_no_screen_to_show_it_the_pairing_code_is_said_in_the_journal(tmp_path, monkeypatch):
    """Seen: `run` with [web] enabled and no screen answering logged "pair with the code shown on Alice's
    screen", and the code was shown nowhere: the page could never be paired.  With her screen answering, the
    code stays off the journal."""
    import dataclasses

    from gpiozero.pins.mock import MockFactory

    from device.camera import ReplayBackend
    from device.cli_device import build_appliance
    from device.config import WebConfig, parse_config
    from device.displays.bank import ScreenState
    from device.web.cli import run_with_web

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 180, np.uint8))
    doc = {"game": {"name": "gaslands"}, "camera": {"backend": "replay", "device": str(frames)},
           "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")}}
    config = dataclasses.replace(parse_config(doc, source="pitboard.toml"), web=WebConfig(True, "127.0.0.1", 0))
    for down in (False, True):
        factory = MockFactory()
        appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None,
                                    camera_backend=ReplayBackend(frames))
        if down:
            monkeypatch.setattr(appliance.bank, "status", lambda real=appliance.bank.status: {
                p: dataclasses.replace(s, state=ScreenState.DOWN) for p, s in real().items()})
        logs: list[str] = []
        services: list = []
        try:
            run_with_web(config, appliance, lambda: True, logs.append, services.append)
        finally:
            factory.reset()
        code = services[0].code
        said = [line for line in logs if code in line]
        assert said == ([f"Alice's screen does not show anything, so the pairing code is said here: {code}"]
                        if down else [])


def test_pitboard_run_begins_any_game_from_the_page_and_resumes_it_after_a_restart(tmp_path, monkeypatch):
    """Under `pitboard run` the set-up page only checked ("starting a game from the page: not wired for this
    host"): a table could not start tonight's game from a phone.  Start this game begins it on the same screens
    and buttons, of any kind, and a restart resumes it (the newest unfinished game), as a power cut would."""
    from gpiozero.pins.mock import MockFactory

    from device.cli_device import build_appliance, probe_store
    from device.config import WebConfig, parse_config
    from games.thunder_road import EXAMPLE_SETUP

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    doc = {"game": {"name": "gaslands"}, "screens": [{"player": "Ana"}, {"player": "Ben", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")}, "vision": {"faces": str(tmp_path / "faces.json")},
           "web": {"enabled": True, "host": "127.0.0.1", "port": 8080}}
    config = dataclasses.replace(parse_config(doc, source="pitboard.toml"), web=WebConfig(True, "127.0.0.1", 0))
    setup = ('first_player = "Ana"\n[[players]]\nname = "Ana"\n[[players]]\nname = "Ben"\n'
             '[board]\ntiles = 5\non_board = 3\n')
    assert "[[players]]" in EXAMPLE_SETUP  # the same form as the example's
    with _running_with_page(config) as (web, appliance, _):
        assert appliance.app.game.name == "gaslands"
        client, _ = _paired(web)
        page = client.get("/setup?game=thunder_road").text
        assert "not wired" not in page and 'id=start' in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        said = client.post("/setup", data={"csrf": csrf, "game": "thunder_road", "shown": "thunder_road",
                                           "setup": setup.replace("\n", "\r\n"), "action": "start"}).text
        assert "a new Thunder Road: Vendetta game begins now" in said, said
        assert "stays in the log" not in said  # nothing was played of the Gaslands game: nothing is left unfinished
        deadline = time.monotonic() + 10
        while appliance.app.game.name != "thunder_road" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert appliance.app.game.name == "thunder_road"
        while "movement dice" not in web.hub.snapshot.prompt and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "Ana" in web.hub.snapshot.prompt  # the page watches the new game
        game_id = appliance.game_id
        client.close()
    # a restart (a power cut) resumes the game begun from the page, though [game] name says gaslands
    probe = probe_store(config)
    assert f"resumes the unfinished thunder_road game {game_id}" in probe.detail, probe
    logs: list[str] = []
    again = build_appliance(config, pin_factory=MockFactory(), screen_backend="recording", log=logs.append)
    try:
        assert again.app.game.name == "thunder_road" and again.resumed and again.game_id == game_id
        assert any("begun from the web page" in line for line in logs)
    finally:
        again.close()


def test_when_no_one_at_the_table_has_a_screen_the_code_is_shown_on_another(tmp_path, monkeypatch):
    """An audit: a game begun from the phone with players who have no [[screens]], resumed after a restart: the
    pair page asked for the code on player 1's screen, which no screen showed (the phones paired before were
    locked out).  The code goes on a screen whose player is not at the table, and the pair page names it."""
    from gpiozero.pins.mock import MockFactory

    from device.cli_device import build_appliance
    from device.config import WebConfig, parse_config
    from device.web.cli import run_with_web
    from device.web.pages import pair_page

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    doc = {"game": {"name": "gaslands"}, "screens": [{"player": "Zed"}, {"player": "Yan", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")}}
    config = dataclasses.replace(parse_config(doc, source="pitboard.toml"), web=WebConfig(True, "127.0.0.1", 0))
    factory = MockFactory()
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    shown: list = []
    monkeypatch.setattr(appliance.bank, "show", lambda player, image, real=appliance.bank.show: (
        shown.append((player, image.copy())), real(player, image))[1])
    logs: list[str] = []
    services: list = []
    seen: dict = {}

    def started(web) -> None:
        services.append(web)
        seen["screen"], seen["images"] = web.code_screen, len(shown)
        seen["page"] = pair_page("t", first="Alice", screen=web.ctx.code_screen())
        web.hide_code()  # a phone paired (the loop's call)

    try:
        run_with_web(config, appliance, lambda: True, logs.append, started)
    finally:
        factory.reset()
    web = services[0]
    assert seen["screen"] == "Zed"
    assert any("pair with the code shown on Zed's screen (not at this table)" in line for line in logs), logs
    assert "Type the six-digit code shown on Zed's screen." in seen["page"]
    code_image = [img for p, img in shown[:seen["images"]] if p == "Zed"][-1]
    assert shown[seen["images"]][0] == "Zed" and shown[seen["images"]][1].tobytes() != code_image.tobytes()
    assert web.code_screen is None  # once paired, Zed's screen says again why it shows no game


def test_the_code_goes_to_the_first_player_at_the_table_whose_screen_works(table):
    """A review: with player 1's screen off (or none), the code went to no screen, and the pair page asked for
    player 1's."""
    from types import SimpleNamespace

    states = {"Alice": "down", "Bob": "ok"}
    table.app.displays.status = lambda: {p: SimpleNamespace(state=SimpleNamespace(value=v)) for p, v in states.items()}
    table.web.show_code()
    (notice,) = [n for n in table.app.notices if n.text.startswith("web code")]
    assert notice.player == "Bob" and table.web.ctx.code_screen() == "Bob"
    # a wrong code's refusal names the screen the code is on, as the page above it does
    from starlette.testclient import TestClient

    from device.web.server import create_app

    client = TestClient(create_app(table.web.ctx))
    wrong = "000000" if table.web.code != "000000" else "111111"
    r = client.post("/pair", data={"csrf": pair_token(client.get("/pair", headers={"accept": "text/html"}).text),
                                   "code": wrong})
    assert r.status_code == 403 and "type the six digits shown on Bob&#x27;s screen" in r.text, r.text
    states["Alice"] = "ok"
    table.web.show_code()
    assert [n.player for n in table.app.notices if n.text.startswith("web code")] == ["Alice"]


def test_an_older_preview_is_not_saved_over_a_calibration_saved_since(table, tmp_path):
    """Two phones on the Calibrate page: Ana's preview drawn first, Ben's drawn and saved after it; Ana's
    confirmation was saved over Ben's without a word to either."""
    ana, ana_csrf = paired_client(table)
    ben, ben_csrf = paired_client(table)
    show(table, scene(SceneSpec(tilt_deg=8.0)))

    def preview(client, csrf: str) -> str:
        r = client.post("/calibrate", data={"csrf": csrf, "mat": "800x450"})
        assert r.status_code == 200, r.text
        return re.search(r'name=token value="([^"]+)"', r.text).group(1)

    older = preview(ana, ana_csrf)
    newer = preview(ben, ben_csrf)
    assert ben.post("/calibrate/confirm", data={"csrf": ben_csrf, "token": newer}).status_code == 200
    saved = (tmp_path / "calibration.json").read_bytes()
    r = ana.post("/calibrate/confirm", data={"csrf": ana_csrf, "token": older})
    assert r.status_code == 409 and "another phone saved a calibration after this preview was drawn" in r.text
    assert (tmp_path / "calibration.json").read_bytes() == saved
    # a preview drawn after the save is saved
    assert ana.post("/calibrate/confirm", data={"csrf": ana_csrf, "token": preview(ana, ana_csrf)}).status_code == 200


def test_two_confirms_at_once_save_one(table, monkeypatch):
    """A review: two phones' confirms arriving together (a slow SD card) were both saved, one over the other,
    the time of the save being set only after it was written."""
    import threading
    import time

    import device.web.calibrate as calibrate

    real = calibrate.save

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(calibrate, "save", slow)
    show(table, scene(SceneSpec(tilt_deg=8.0)))
    phones = [paired_client(table), paired_client(table)]
    tokens = []
    for client, csrf in phones:
        r = client.post("/calibrate", data={"csrf": csrf, "mat": "800x450"})
        tokens.append(re.search(r'name=token value="([^"]+)"', r.text).group(1))
    got: list[int] = []

    def confirm(k: int) -> None:
        client, csrf = phones[k]
        got.append(client.post("/calibrate/confirm", data={"csrf": csrf, "token": tokens[k]}).status_code)

    threads = [threading.Thread(target=confirm, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [200, 409]


def test_a_web_page_that_cannot_listen_leaves_the_table_playing_and_says_why(tmp_path, monkeypatch):
    """A deploy audit: `run` with [web] enabled on a port another program holds (or a host address the network
    has not brought up yet) exited 2, which the service does not restart: no game at the table at all.  The
    table plays on without the page; the journal and every screen say why and what to do."""
    import socket

    from gpiozero.pins.mock import MockFactory

    from device.cli_device import build_appliance
    from device.config import WebConfig, parse_config
    from device.web.cli import run_with_web

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    doc = {"game": {"name": "gaslands"}, "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
           "store": {"path": str(tmp_path / "games.sqlite")}}
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    config = dataclasses.replace(parse_config(doc, source="pitboard.toml"), web=WebConfig(True, "127.0.0.1", port))
    factory = MockFactory()
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None)
    steps: list[int] = []
    logs: list[str] = []
    services: list = []
    shown: list[str] = []
    try:
        def stop() -> bool:  # a few steps of the loop, then what the screens were told
            steps.append(1)
            shown.extend(n.text for n in appliance.app.notices if n.kind == "web_off")
            return len(steps) > 3

        assert run_with_web(config, appliance, stop, logs.append, services.append) == 0
    finally:
        factory.reset()
        taken.close()
    assert services == [None] and len(steps) > 3  # the loop ran: the game is played without the page
    (said,) = [line for line in logs if "web page is off" in line]
    assert f"127.0.0.1:{port}" in said and "free the port or correct [web] host/port, then restart" in said
    assert shown and shown[0].startswith(f"WEB PAGE OFF: 127.0.0.1:{port}: ") and shown[0].endswith("the game goes on")
    assert "Errno" not in shown[0], shown[0]


def test_a_phones_calibration_places_the_zones_on_the_cards_it_sees_and_names_those_it_does_not(
        table, tmp_path, monkeypatch):
    """The phone's calibration read no token-zone card: every zone stayed at its default place wherever its card
    lay, where `pitboard calibrate` moves a zone onto its card (found beside an independent audit of cards missed
    at calibration).  Now as calibrate: p1's card moves p1, and the cards not seen are named on the page."""
    import math

    from vision import markers
    from vision.calibration import apply_h, default_zone_cards

    spec = SceneSpec(tilt_deg=8.0)
    image, truth = render_scene(spec, np.random.default_rng(5))
    card = default_zone_cards(4)[0]
    pose = np.array([420.0, 200.0, math.radians(90.0)])  # far from p1's default place
    c, s = math.cos(pose[2]), math.sin(pose[2])
    sightings = [markers.TagSighting(tid, apply_h(np.array(truth["mm_to_px"]),
                                                  corners @ np.array([[c, s], [-s, c]]) + pose[:2]))
                 for tid, corners in card.tag_corners_mm().items()]
    real = markers.detect_tags
    monkeypatch.setattr(markers, "detect_tags", lambda img, *a, **k: real(img, *a, **k) + sightings)
    show(table, image)
    client, token = paired_client(table)
    r = client.post("/calibrate", data={"csrf": token, "mat": "800x450"})
    assert r.status_code == 200, r.text
    text = " ".join(r.text.split())
    assert "Warning: the token-zone cards of p2, p3, p4 were not seen in this frame (those of p1 were)" in text
    preview_token = re.search(r'name=token value="([^"]+)"', r.text).group(1)
    assert client.post("/calibrate/confirm", data={"csrf": token, "token": preview_token}).status_code == 200
    from device.table_files import load_calibration

    p1 = np.array(load_calibration(tmp_path / "calibration.json").zone("p1").polygon)
    want = np.array(card.zone_polygon) @ np.array([[c, s], [-s, c]]) + pose[:2]
    assert np.abs(p1 - want).max() < 3.0
