"""The web page's parts on their own: the log's fold and timeline, the listen address, the pairing's rate
limit, the camera's annotated frame, the event stream on a real server, the command line wiring."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")

from web_helpers import Table, paired_client  # noqa: E402

from device.web import parse_listen  # noqa: E402
from device.web.hub import CameraShot  # noqa: E402
from device.web.security import GLOBAL_FAILS, PER_CLIENT_FAILS, WINDOW_S, Pairing  # noqa: E402
from device.web.timeline import describe, export_csv, fold_until, timeline  # noqa: E402
from games.core import Command, Match  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _session():
    from device.app import setup_options
    from games import game_package

    module = game_package("gaslands")
    match = Match.begin(module.GAME, setup_options(module, None))
    for c in (Command("choose_template", {"template": "turn", "hand": "left"}), Command("place_template"),
              Command("undo"), Command("place_template"), Command("skid_roll", {"faces": ["SHIFT"]})):
        match.apply(c)
    return module, match


def test_folding_a_prefix_of_the_log_gives_the_state_the_match_had():
    module, match = _session()
    assert fold_until(module.GAME, match.records) == match.state
    first = [r for r in match.records if r.decision <= 1]
    assert fold_until(module.GAME, match.records, 1) == Match(module.GAME, first).state
    with pytest.raises(ValueError, match="no events"):
        fold_until(module.GAME, [])


def test_the_timeline_says_who_and_where_and_marks_the_undone_decision():
    module, match = _session()
    tl = timeline(module.GAME, match.records)
    undone = [e for e in tl.entries if e.undone]
    assert len(undone) == 1 and "step entered" in undone[0].text
    assert any(e.undo_of == (undone[0].decision,) for e in tl.entries)
    heads = [h for h, _ in tl.groups()]
    assert heads[0] == "Set-up" and heads[1] == "Round 1 · gear phase 1"
    assert all(e.player == "Alice" for e in tl.entries[1:])
    lines = [json.dumps({"seq": r.seq, "decision": r.decision, "type": r.event.type, "recorded": "t",
                         "data": dict(r.event.data)}) for r in match.records]
    csv_text = export_csv(lines, tl)
    assert csv_text.splitlines()[0].startswith("seq,decision,type,recorded,round,gear_phase,player")
    assert len(csv_text.strip().splitlines()) == len(match.records) + 1
    # the page's heading of each step beside the state's own numbers (a phone audit: the Grand Tour's CSV said round
    # 0 where the page said "Stage 1 · round 1 at the line")
    assert csv_text.splitlines()[0].endswith(",heading") and "Round 1 · gear phase 1" in csv_text
    # a name typed as a formula stays text in a spreadsheet (a web audit: "=HYPERLINK(…)" exported as it was)
    import csv
    import dataclasses
    import io

    tl.entries[:] = [dataclasses.replace(e, player="=HYPERLINK(\"x\")", vehicle="@car") for e in tl.entries]
    rows = list(csv.reader(io.StringIO(export_csv(lines, tl))))
    assert {(r[6], r[7]) for r in rows[1:]} == {("'=HYPERLINK(\"x\")", "'@car")}


def test_describe_leaves_the_rule_tables_out_of_the_first_event():
    module, match = _session()
    text = describe(match.records[0].event)
    assert text.startswith("game started") and "chart" not in text and len(text) < 160


@pytest.mark.parametrize("text, expected", [("127.0.0.1:8080", ("127.0.0.1", 8080)), (":9000", ("127.0.0.1", 9000)),
                                            ("0.0.0.0:8080", ("0.0.0.0", 8080)), ("[::1]:8080", ("::1", 8080))])
def test_listen_addresses(text, expected):
    assert parse_listen(text) == expected


@pytest.mark.parametrize("text, says", [("8080", "HOST:PORT"), ("pi.local:8080", "not an IP address"),
                                        ("127.0.0.1:http", "not a number"), ("127.0.0.1:80", "1024..65535")])
def test_bad_listen_addresses_say_what_to_type(text, says):
    with pytest.raises(ValueError, match=says):
        parse_listen(text)


def test_the_rate_limit_is_per_address_and_overall_and_passes():
    now = [0.0]
    p = Pairing(code="123456", clock=lambda: now[0])
    for _ in range(PER_CLIENT_FAILS):
        assert p.pair("10.0.0.2", "000000")[0] is None
    assert "wait" in p.pair("10.0.0.2", "123456")[1]
    assert p.pair("10.0.0.3", "123456")[0] is not None  # another address is not held back
    now[0] += WINDOW_S + 1
    assert p.pair("10.0.0.2", "123456")[0] is not None
    for i in range(GLOBAL_FAILS):
        p.pair(f"10.1.0.{i}", "000000")
    assert "wait" in p.pair("10.9.9.9", "123456")[1]


def test_sessions_and_csrf_tokens_are_random_and_checked():
    p = Pairing(code="123456")
    a, _ = p.pair("x", "123456")
    b, _ = p.pair("x", " 123 456 ")
    assert a and b and a.id != b.id and a.csrf != b.csrf
    assert p.session(a.id) is a and p.session("forged") is None and p.session(None) is None
    assert Pairing.csrf_ok(a, a.csrf) and not Pairing.csrf_ok(a, b.csrf) and not Pairing.csrf_ok(a, None)


def test_the_camera_frame_is_drawn_with_what_vision_read(tmp_path):
    import cv2

    from device.web.camera_view import CameraView, annotate

    image = np.full((240, 320, 3), 90, np.uint8)
    shot = CameraShot(image, 7, dice=((5, (20, 30, 60, 70)), ("SHIFT", (100, 30, 140, 70))), region=(10, 20, 200, 100))
    jpeg = annotate(shot)
    drawn = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == image.shape
    green = (drawn[:, :, 1] > 200) & (drawn[:, :, 0] < 80) & (drawn[:, :, 2] < 80)
    assert green.sum() > 100  # the dice boxes and values
    assert CameraView().jpeg(None) is None

    t = Table(tmp_path)
    try:
        client, _ = paired_client(t)
        assert client.get("/camera.jpg").status_code == 404
        page = client.get("/", headers={"accept": "text/html"}).text
        assert 'id="camera" alt="the camera\'s latest frame" hidden' in page
        t.web.hub.camera = shot
        r = client.get("/camera.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        assert 'src="/camera.jpg?f=7"' in client.get("/", headers={"accept": "text/html"}).text
    finally:
        t.close()


def test_the_event_stream_of_a_real_server_brings_the_press(tmp_path):
    import httpx

    t = Table(tmp_path, serve=True)
    try:
        client = httpx.Client(base_url=t.web.url, headers={"accept": "text/html"})
        token = re.search(r'value="([^"]+)"', client.get("/pair").text).group(1)
        live = client.post("/pair", data={"csrf": token, "code": t.web.code}, follow_redirects=True)
        csrf = re.search(r'name="csrf" value="([^"]+)"', live.text).group(1)
        got: list[dict] = []

        def read() -> None:
            with client.stream("GET", "/events", timeout=10) as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        got.append(json.loads(line[6:]))
                        if len(got) == 2:
                            return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client.post("/press", data={"button": "ok"}, headers={"x-csrf-token": csrf}).status_code == 204
        t.step()  # the loop's next iteration takes the press
        reader.join(timeout=5)
        assert len(got) == 2 and got[1]["version"] > got[0]["version"]
        assert got[1]["status"] != got[0]["status"] and got[1]["screens"][0]["player"] == "Alice"
        client.close()
    finally:
        t.close()


def test_web_is_off_unless_asked_for(tmp_path):
    from device.config import WebConfig, load_config
    from device.web.cli import _before, _web_enabled

    assert WebConfig().enabled is False
    cfg = tmp_path / "pitboard.toml"
    cfg.write_text('[game]\nname = "gaslands"\n')
    assert load_config(cfg).web.enabled is False
    assert _web_enabled(type("A", (), {"config": str(cfg)})()) is False
    calls = []
    handler = _before(lambda a: calls.append("original") or 0, lambda a: calls.append("web") or 0,
                      lambda a: getattr(a, "web", None))
    handler(type("A", (), {"web": None})())
    handler(type("A", (), {"web": "127.0.0.1:8080"})())
    assert calls == ["original", "web"]


def test_pitboard_sim_web_prints_the_address_and_the_code_and_serves(tmp_path):
    import httpx

    env = dict(os.environ, PITBOARD_DATA=str(tmp_path), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "device.cli", "sim", "gaslands", "--no-log", "--web", "127.0.0.1:0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = ""
        deadline = time.monotonic() + 60
        while "web page:" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
        m = re.search(r"web page: (http://\S+) \(pairing code (\d{6}), also on Alice's screen\)", line)
        assert m, line
        r = httpx.get(m.group(1) + "pair", headers={"accept": "text/html"})
        assert r.status_code == 200 and "Pair this browser" in r.text
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out
    assert "the game was not kept" in out


def test_the_sim_with_web_keeps_quiet_screens_off_a_pipe(tmp_path):
    from device.sim import Sim

    out = io.StringIO()
    sim = Sim("gaslands", db=tmp_path / "s.sqlite", out=out, web="127.0.0.1:0")
    try:
        sim.step()
        assert "web page: http://127.0.0.1:" in out.getvalue()
        assert any(n.kind == "web_pair" for n in sim.app.notices)
    finally:
        sim.close()
    assert sim.web is None


def test_a_new_game_from_the_page_begins_in_the_sim_on_its_loop(tmp_path):
    import tomllib

    from device.sim import Sim

    sim = Sim("gaslands", db=tmp_path / "s.sqlite", out=io.StringIO(), web="127.0.0.1:0")
    try:
        sim.step()
        first = sim.game_id
        options = tomllib.loads(sim.module.EXAMPLE_SETUP)
        with pytest.raises(ValueError, match="quit it"):  # said on the page as a refusal
            sim._web_new_game("space_race", options)
        said = sim._web_new_game("gaslands", options)
        # nothing was played of the game at the table: nothing is left unfinished to say so of
        assert "begins now" in said and "stays in the log" not in said, said
        assert sim.game_id == first  # nothing happens off the loop's thread
        sim.step()
        assert sim.game_id == first + 1 and sim.web.app is sim.app and sim.web.game_id == sim.game_id
        assert any(n.kind == "web_pair" for n in sim.app.notices)
    finally:
        sim.close()


def test_a_bad_listen_address_leaves_no_log_open(tmp_path):
    from device.sim import Sim

    with pytest.raises(ValueError, match="HOST:PORT"):
        Sim("gaslands", db=tmp_path / "s.sqlite", out=io.StringIO(), web="8080")
    Sim("gaslands", db=tmp_path / "s.sqlite", out=io.StringIO()).close()  # the log is free again


def test_the_sims_web_port_is_held_from_its_check_to_the_page(tmp_path, monkeypatch):
    """`--web` was bound to test it, let go, and bound again by the server after the log was opened: a
    program taking the port in between was told after the game began.  Now the socket checked is the one
    served on: nothing else can bind the port meanwhile, and the page answers on it."""
    import socket
    import urllib.request

    import device.sim as sim_module
    from device.sim import Sim

    seen = {}
    checked = sim_module.check_listen

    def check_then_race(listen):
        sock = checked(listen)
        port = sock.getsockname()[1]
        seen["port"] = port
        with socket.socket() as rival:  # another program, between the check and the log
            rival.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            with pytest.raises(OSError):
                rival.bind(("127.0.0.1", port))
        return sock

    monkeypatch.setattr(sim_module, "check_listen", check_then_race)
    sim = Sim("gaslands", db=tmp_path / "s.sqlite", out=io.StringIO(), web="127.0.0.1:0")
    try:
        assert sim.web.server.port == seen["port"]
        with urllib.request.urlopen(f"http://127.0.0.1:{seen['port']}/", timeout=5) as page:
            assert page.status == 200
    finally:
        sim.close()
    with socket.socket() as again:  # closed with the sim
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", seen["port"]))


def test_the_page_address_of_an_ipv6_socket_is_bracketed():
    """The sim names the address it bound; on a Pi "localhost" may bind ::1, and "http://::1:8080/" is no
    address a browser takes."""
    from device.web.server import WebServer

    for host, url in (("::1", "http://[::1]:8080/"), ("::", "http://[::1]:8080/"), ("0.0.0.0", "http://127.0.0.1:8080/"),
                      ("192.168.1.20", "http://192.168.1.20:8080/")):
        server = WebServer.__new__(WebServer)
        server.host, server.port = host, 8080
        assert server.url == url


def test_a_refused_setup_lets_the_web_port_go(tmp_path):
    import socket

    from device.setup_files import SetupFileError
    from device.sim import Sim

    setup = tmp_path / "bad.toml"
    setup.write_text('players = ["Ana"]\n', encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SetupFileError):
        Sim("gaslands", setup=setup, db=tmp_path / "s.sqlite", out=io.StringIO(), web=f"127.0.0.1:{port}")
    with socket.socket() as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))
        again.listen()


def test_pitboard_bench_web_measures_a_press_reaching_the_page_within_250_ms():
    from device.web.bench import run_web_bench

    figures = run_web_bench(presses=8)
    assert figures["press_to_update_presses"] == 8
    assert figures["press_to_update_ms_median"] < 250 and figures["press_to_update_ms_p95"] < 250
    assert 0 < figures["page_weight_bytes"] < 64 * 1024  # a phone on a busy table's Wi-Fi
    assert figures["web_memory_on_top_kb"] > 0 and figures["rss_appliance_kb"] > figures["web_memory_on_top_kb"]


def test_a_wrong_pairing_code_is_told_as_it_is() -> None:
    """Seen: "12345 is six digits" for a code one digit short, and "651450651450 is six digits" for the code
    typed twice (the form refilled it after Back)."""
    from device.web.security import Pairing

    p = Pairing(code="651450")
    cases = {"12345": "12345: 5 digits, not six;", "651450651450": "651450651450: 12 digits, not six;",
             "65145x": "65145x: not six digits;", "": "nothing typed;", "123456": "123456: not the code;"}
    for typed, said in cases.items():
        session, message = p.pair(f"client-{typed}", typed)
        assert session is None and message.startswith(said), message
    assert p.pair("other", " 651 450 ")[0] is not None  # spaces are no mistake
    # a phone set to Arabic or a full-width keyboard types the same code in its own digits (a web audit)
    assert p.pair("arabic", "\u0666\u0665\u0661\u0664\u0665\u0660")[0] is not None
    assert p.pair("wide", "\uff16\uff15\uff11\uff14\uff15\uff10")[0] is not None
    assert p.pair("arabic-wrong", "\u0661\u0662\u0663\u0664\u0665\u0666")[1].startswith("123456: not the code;")
