"""`pitboard run`'s appliance built from a config on mock pins, recording screens and a replay camera."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.camera import ReplayBackend
from device.cli import UserError
from device.cli_device import build_appliance
from device.config import parse_config
from device.dashboards import pages


@pytest.fixture()
def factory():
    from gpiozero.pins.mock import MockFactory

    f = MockFactory()
    yield f
    f.reset()


def _config(tmp_path: Path, **extra: object):
    frames = tmp_path / "frames"
    frames.mkdir(exist_ok=True)
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 180, np.uint8))
    doc = {
        "game": {"name": "gaslands"},
        "camera": {"backend": "replay", "device": str(frames), "width": 64, "height": 48},
        "screens": [{"player": "Alice"}, {"player": "Bob", "address": 0x3D}],
        "store": {"path": str(tmp_path / "games.sqlite")},
        "vision": {"faces": str(tmp_path / "faces.json")},
        **extra,
    }
    return parse_config(doc, source="pitboard.toml")


class Clock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


def _sync(edges, n: int) -> None:
    for _ in range(500):  # wait for gpiozero's callback thread (synchronisation, not a timing assertion)
        if edges.qsize() >= n:
            return
        time.sleep(0.002)


def test_the_appliance_runs_on_mock_hardware_and_resumes(tmp_path: Path, factory) -> None:
    clock = Clock()
    logs: list[str] = []
    # The replay backend is passed in unthreaded (run wraps it in a ThreadedBackend): no threads in tests.
    appliance = build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", clock=clock,
                                log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert not appliance.resumed and logs[-1].startswith("started gaslands game 1")
        appliance.app.run(max_iterations=2, idle_s=0)
        assert set(appliance.bank.status()) == {"Alice", "Bob"}
        assert appliance.bank.screen("Alice").bytes_sent > 0  # the first frame went through the luma driver
        assert appliance.camera is not None and appliance.camera.up
        prompt = appliance.app.prompt()

        def press(pin_number: int) -> None:
            pin = factory.pin(pin_number)
            waiting = appliance.buttons.edges.qsize()
            pin.drive_low()
            clock.t += 0.2
            pin.drive_high()
            _sync(appliance.buttons.edges, waiting + 2)
            clock.t += 0.05
            appliance.app.run(max_iterations=1, idle_s=0)

        assert prompt.awaits == "template"  # the example's first player has one car: no vehicle to pick
        press(23)  # OK: the highlighted choice is a list (the Straights): it opens, nothing is sent
        assert appliance.app.history == [] and appliance.app.cursor.trail == ("Straights",)
        press(17)  # NEXT in the open list: its highlighted template is sent
        sent = appliance.app.history[-1]
        assert sent.source == "button" and sent.outcome.accepted
        assert sent.command.to_json() == {"type": "choose_template", "template": "short_straight"}
        assert appliance.app.prompt() != prompt
    finally:
        appliance.close()
    again = build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", clock=clock,
                            log=logs.append, camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert again.resumed and again.game_id == appliance.game_id
        assert again.app.match.state == appliance.app.match.state
    finally:
        again.close()


def test_bad_setups_are_user_errors(tmp_path: Path, factory) -> None:
    with pytest.raises(UserError, match="screens: none configured"):
        build_appliance(parse_config({}), pin_factory=factory, screen_backend="recording")
    # refused where it is written, the config read (ee0608d: the config took any name, the appliance refused it)
    from device.config import ConfigError

    with pytest.raises(ConfigError, match="pitboard.toml: game.name: 'chess' is not a game; known games: gaslands"):
        _config(tmp_path, game={"name": "chess"})
    with pytest.raises(UserError, match="setup file .* does not exist"):
        build_appliance(_config(tmp_path, game={"name": "gaslands", "setup": str(tmp_path / "x.toml")}),
                        pin_factory=factory, screen_backend="recording")
    # a mistyped [store] path: `check` said FAIL, `run` made the folder and began a new game there (the
    # unfinished game in the folder meant was not resumed)
    typo = tmp_path / "nodir" / "x" / "games.sqlite"
    with pytest.raises(UserError, match=r"the folder .*nodir/x does not exist; create it, or correct \[store\] path"):
        build_appliance(_config(tmp_path, store={"path": str(typo)}), pin_factory=factory, screen_backend="recording")
    assert not (tmp_path / "nodir").exists()


def test_a_pin_in_use_is_a_user_error_and_nothing_is_left_claimed(tmp_path: Path, factory) -> None:
    from gpiozero import Button

    holder = Button(22, pin_factory=factory)
    try:
        with pytest.raises(UserError, match="the buttons could not be set up"):
            build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", log=lambda m: None)
    finally:
        holder.close()
    # a run that could not start began no game: the next run resumed it, with the players of the setup it failed
    # with (a bad-input audit renamed a player in between and the old name came back)
    from device.store import Store

    store = Store(tmp_path / "games.sqlite")
    assert store.games() == []
    store.close()
    appliance = build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", log=lambda m: None,
                                camera_backend=ReplayBackend(tmp_path / "frames"))
    assert not appliance.resumed
    appliance.close()


def test_an_unfinished_game_of_an_unknown_kind_is_said_not_skipped(tmp_path: Path, factory) -> None:
    """A bad-input audit: the newest unfinished game in the log was of a kind this Pitboard does not know (a log
    from a newer one, or edited): `run` began a new game of the config's and said nothing of the other."""
    from device.store import Store
    from games.core import Event

    store = Store(tmp_path / "games.sqlite")
    store.begin_game("nosuchgame", [Event("game_started", {})])
    store.close()
    logs: list[str] = []
    appliance = build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", log=logs.append,
                                camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        said = [line for line in logs if "nosuchgame" in line]
        assert said and "a kind this Pitboard does not know" in said[0] and "kept as it is" in said[0], logs
        assert not appliance.resumed
    finally:
        appliance.close()


def test_a_log_that_cannot_be_replayed_is_named_not_the_setup(tmp_path: Path, factory) -> None:
    """A bad-input audit: a game log whose events cannot be replayed stopped `run` with "the game could not start:
    setup: …/games.sqlite: event 40 …", blaming a setup file that was not at fault."""
    import tomllib

    from device.store import Store
    from games import gaslands
    from games.core import Event, Match

    store = Store(tmp_path / "games.sqlite")
    gid = store.new_game("gaslands")
    Match.begin(gaslands.GAME, tomllib.loads(gaslands.EXAMPLE_SETUP), sink=store.sink(gid))
    store.append(gid, 5, [Event("teleported", {"vehicle": "x"})])
    store.close()
    with pytest.raises(UserError) as caught:
        build_appliance(_config(tmp_path), pin_factory=factory, screen_backend="recording", log=lambda m: None)
    said = str(caught.value)
    assert "(teleported) cannot be replayed" in said and "setup" not in said.split("games.sqlite")[0], said


def _a_config_that_does_not_load(tmp_path: Path) -> Path:
    """A pitboard.toml with Alice's screen and a mistake (``backend = none`` unquoted): a reason of several pages."""
    config = tmp_path / "pitboard.toml"
    config.write_text('[game]\nname = "gaslands"\n[camera]\nbackend = none\n[[screens]]\nplayer = "Alice"\n',
                      encoding="utf-8")
    return config


def _a_service_stopped_after(monkeypatch, pages_shown: int) -> list[float]:
    """Run under systemd (``INVOCATION_ID``), stopped (SIGINT) while the ``pages_shown``-th page is up: the waits."""
    from device import cli_device

    waits: list[float] = []

    def sleep(seconds: float) -> bool:
        waits.append(seconds)
        if len(waits) == pages_shown:
            raise KeyboardInterrupt  # systemctl stop: KillSignal=SIGINT
        return True

    monkeypatch.setenv("INVOCATION_ID", "0123")  # what systemd sets for a service
    monkeypatch.setattr(cli_device, "_sleep_true", sleep)
    return waits


def _cameraless(tmp_path: Path, factory, clock, log=lambda m: None):
    """The appliance of ``_config`` with no camera, on recording screens (the loop's own clock: ``clock``)."""
    return build_appliance(_config(tmp_path, camera={"backend": "none"}), pin_factory=factory,
                           screen_backend="recording", clock=clock, log=log)


def _unplug(appliance, player: str) -> None:
    """Pull the screen's cable: every transfer to it fails, now and on each reopen."""
    from device.displays.transport import RecordingSerial

    def dead(_spec: object) -> RecordingSerial:
        return RecordingSerial(fail=True)

    screen = appliance.bank.screen(player)
    screen._serial_factory = dead
    screen.serial.inner.fail = True


def _plug(appliance, player: str) -> None:
    from device.displays.transport import RecordingSerial

    appliance.bank.screen(player)._serial_factory = lambda _spec: RecordingSerial()


def test_a_screen_lost_mid_game_is_told_on_the_other_screens_and_withdrawn_when_it_is_back(
        tmp_path: Path, factory) -> None:
    # Seen before: Bob's screen stopped answering mid-game and only the journal said so; Alice's screen showed
    # nothing, and with Bob the chooser the table waited at a blank screen without knowing why.
    clock = Clock()
    logs: list[str] = []
    appliance = _cameraless(tmp_path, factory, clock, log=logs.append)
    try:
        app = appliance.app
        app.run(max_iterations=2, idle_s=0)
        assert app.notices == []
        _unplug(appliance, "Bob")
        app.notify("info", "anything new on the screens", None)  # the next frame for Bob fails
        for _ in range(3):
            clock.t += 0.5
            app.step()
        shown = [n for n in app.notices if n.kind == "screen"]
        assert len(shown) == 1 and shown[0].player is None and shown[0].until is None
        assert "Bob" in shown[0].text and "wire" in shown[0].text  # whose screen, and what to check
        views = {v.player: v for v in app.screen_views()}
        assert any(a.kind == "screen" for a in views["Alice"].alerts)
        assert any("stopped answering" in line for line in logs)
        _plug(appliance, "Bob")
        for _ in range(40):  # the retries back off: 1, 2, 4 ... s
            clock.t += 1
            app.step()
        assert [n for n in app.notices if n.kind == "screen"] == []
    finally:
        appliance.close()


def test_a_screen_missing_at_start_is_told_on_the_others_and_the_game_goes_on(tmp_path: Path, factory,
                                                                              monkeypatch) -> None:
    import device.displays as displays
    from device.displays.transport import RecordingSerial

    build_bank = displays.build_bank

    def bank_with_bob_unplugged(specs, backend="i2c", **kw):
        kw["serial_factory"] = lambda spec: RecordingSerial(fail=spec.player == "Bob")
        return build_bank(specs, backend, **kw)

    monkeypatch.setattr(displays, "build_bank", bank_with_bob_unplugged)
    clock = Clock()
    appliance = _cameraless(tmp_path, factory, clock)
    try:
        appliance.app.run(max_iterations=2, idle_s=0)
        shown = [n.text for n in appliance.app.notices if n.kind == "screen"]
        assert len(shown) == 1 and "Bob" in shown[0]
        assert appliance.bank.screen("Alice").bytes_sent > 0
    finally:
        appliance.close()


@pytest.fixture
def banks(monkeypatch) -> list:
    """Every screen bank built from now on, on capture devices (the frames each screen was sent)."""
    from device.displays import build_bank

    built: list = []

    def capture_bank(specs, backend="i2c", **kw):
        bank = build_bank(specs, "capture", **kw)
        built.append(bank)
        return bank

    monkeypatch.setattr("device.displays.build_bank", capture_bank)
    return built


@pytest.mark.parametrize("web", [False, True], ids=["run", "run with the page"])
def test_an_appliance_that_cannot_start_says_why_on_every_screen(tmp_path: Path, factory, banks: list,
                                                                 web: bool, capsys) -> None:
    # Seen: `pitboard run` with a setup file that is not TOML exited 2 with the reason in the journal only; the
    # screens stayed dark (or kept the last game's frame), and systemd does not restart on exit 2.  With
    # [web] enabled = true, run's other handler still left them dark.
    from device import cli_device
    from device.cli import main
    from device.dashboards import pages

    setup = tmp_path / "table.toml"
    setup.write_text("[[players]]\nname = Bob\n", encoding="utf-8")
    config = tmp_path / "pitboard.toml"
    config.write_text(f'[game]\nname = "gaslands"\nsetup = "{setup}"\n[camera]\nbackend = "none"\n'
                      '[[screens]]\nplayer = "Alice"\n[[screens]]\nplayer = "Bob"\naddress = 0x3D\n'
                      f'[store]\npath = "{tmp_path / "games.sqlite"}"\n'
                      + ('[web]\nenabled = true\nhost = "127.0.0.1"\nport = 18999\n' if web else ""), encoding="utf-8")
    assert main(["run", "--config", str(config)]) == 2
    assert banks, "no screen was told"
    shown = {p: banks[-1].screen(p).frames[-1].image.tobytes() for p in ("Alice", "Bob")}
    reason = capsys.readouterr().err.removeprefix("pitboard: ").strip()
    shown_pages = cli_device.not_started_pages(reason)
    assert shown == {p: pages.render_text(shown_pages[0]).tobytes() for p in ("Alice", "Bob")}
    words = " ".join(line for page in shown_pages for line in page.lines)
    assert {page.title for page in shown_pages} == {"NOT STARTED"} and "table.toml" in words
    assert "line 2" in words and 'write name = "Bob"; fix that line' in words  # the whole reason, fix and all
    assert str(tmp_path) not in words  # the file's name, not its folders: the screen is small


def test_a_mistyped_configuration_is_told_on_the_screens_it_names(tmp_path: Path, banks: list) -> None:
    # Seen: a pitboard.toml with one line not TOML (backend = none, no quotes) left every screen dark: the
    # configuration that names the screens is the file that did not load.  Its [[screens]] tables are read
    # each on its own.
    from device import cli_device
    from device.cli import main
    from device.dashboards import pages

    config = tmp_path / "pitboard.toml"
    config.write_text('[game]\nname = "gaslands"\n[camera]\nbackend = none\n'
                      '[[screens]]\nplayer = "Alice"\n[[screens]]\nplayer = "Bob"\naddress = 0x3D\n', encoding="utf-8")
    assert main(["run", "--config", str(config)]) == 2
    assert banks and banks[-1].players == ("Alice", "Bob"), "the screens were left dark"
    message = ('pitboard.toml: is not valid TOML: line 4 (backend = none): a text must be in quotes: write backend = '
               '"none"; fix that line, or copy firmware_config/pitboard.toml there and edit it')
    first = cli_device.not_started_pages(message)[0]  # then the process ends: no systemd, no terminal
    assert "line 4" in " ".join(first.lines)
    assert {p: banks[-1].screen(p).frames[-1].image.tobytes() for p in ("Alice", "Bob")} == \
        {p: pages.render_text(first).tobytes() for p in ("Alice", "Bob")}


def test_a_long_reason_not_to_start_is_paged_through_whole_on_the_screens(tmp_path: Path, banks: list,
                                                                           monkeypatch, capsys) -> None:
    # Seen: NOT STARTED kept the start of a reason and "more: pitboard check"; a mistyped backend = none showed
    # the line and the mistake, never the fix (write backend = "none"), which only the journal had.  Under
    # systemd the process now stays up paging the whole reason until it is stopped.
    from device import cli_device
    from device.cli import main
    from device.dashboards import pages

    config = _a_config_that_does_not_load(tmp_path)
    waits = _a_service_stopped_after(monkeypatch, 5)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert 'write backend = "none"' in err and err.count("line 4") == 1  # said once, whole, before the pages
    shown = cli_device.not_started_pages(err.splitlines()[0].removeprefix("pitboard: "))
    assert len(shown) == 3 and [(p.page, p.pages) for p in shown] == [(1, 3), (2, 3), (3, 3)]
    assert 'write backend = "none"' in " ".join(line for page in shown for line in page.lines)
    frames = [f.image.tobytes() for f in banks[-1].screen("Alice").frames]
    images = [pages.render_text(page).tobytes() for page in shown]
    cycle = [images[k % len(images)] for k in range(5)]  # stopped while the fifth is up
    back = [images[0]] if 4 % len(images) else []
    assert frames == [*cycle, *back], "each page in turn, then back to the first when stopped"
    assert waits == [cli_device.NOT_STARTED_PAGE_S] * 5


def test_a_service_that_did_not_start_is_not_held_for_screens_that_do_not_answer(tmp_path: Path, monkeypatch,
                                                                                  capsys) -> None:
    """A bad-input audit: under systemd with no screen answering, a run that did not start printed "the screens
    show it page by page" and stayed up for ever, showing nothing to anybody."""
    from device import cli_device
    from device.cli import main
    from device.displays import build_bank

    def dead_bank(specs, backend="i2c", **kw):
        bank = build_bank(specs, "capture", **kw)
        bank.show = lambda player, image: False  # no screen answers
        return bank

    monkeypatch.setattr("device.displays.build_bank", dead_bank)
    config = _a_config_that_does_not_load(tmp_path)
    monkeypatch.setenv("INVOCATION_ID", "0123")
    monkeypatch.setattr(cli_device, "_sleep_true", lambda s: pytest.fail("held for screens that do not answer"))
    assert main(["run", "--config", str(config)]) == 2
    assert "no screen answers: the reason is only here" in capsys.readouterr().err


def test_a_page_no_screen_took_once_does_not_stop_the_paging(tmp_path: Path, monkeypatch, capsys) -> None:
    """A review: a page missed by every screen once (a moment's I2C error) stopped the paging, and "no screen
    answers" was printed although the first pages had been shown."""
    from device.cli import main
    from device.displays import build_bank

    calls: list[int] = []

    def flaky_bank(specs, backend="i2c", **kw):
        bank = build_bank(specs, "capture", **kw)
        bank.show = lambda player, image: calls.append(1) or len(calls) != 2  # the second page missed
        return bank

    monkeypatch.setattr("device.displays.build_bank", flaky_bank)
    config = _a_config_that_does_not_load(tmp_path)
    waits = _a_service_stopped_after(monkeypatch, 4)
    assert main(["run", "--config", str(config)]) == 2
    assert len(waits) == 4 and "no screen answers" not in capsys.readouterr().err


def test_a_reason_not_to_start_that_fits_one_page_does_not_hold_the_service(tmp_path: Path, banks: list,
                                                                               monkeypatch) -> None:
    from device import cli_device
    from device.cli import main
    from device.config import ConfigError

    monkeypatch.setenv("INVOCATION_ID", "0123")
    monkeypatch.setattr(cli_device, "_sleep_true", lambda s: pytest.fail("held with nothing more to show"))
    monkeypatch.setattr(cli_device, "load_config", lambda path: (_ for _ in ()).throw(ConfigError(path, "camera", "no")))
    config = tmp_path / "pitboard.toml"
    config.write_text('[[screens]]\nplayer = "Alice"\n', encoding="utf-8")
    assert main(["run", "--config", str(config)]) == 2
    assert len(banks[-1].screen("Alice").frames) == 1


def test_the_screens_of_a_damaged_configuration_are_read_each_on_its_own(tmp_path: Path) -> None:
    from device.config import salvage_screens

    path = tmp_path / "pitboard.toml"
    path.write_text('[camera]\nfps = "fast\n'  # the mistake that stops the file loading
                    '[[screens]]\nplayer = "Alice"\ndriver = "sh1106"\n'
                    '[[screens]]\nplayer = Bob\naddress = 0x3D\n'  # damaged itself: left out
                    '[buttons]\nnext = 5\n'  # not a screen's line
                    '[[screens]]\nplayer = "Carol"\naddress = 0x3C\n'  # Alice's place: left out
                    '[[screens]]\nplayer = "Dave"\nport = 3\n', encoding="utf-8")
    assert [(s.player, s.driver, s.port) for s in salvage_screens(path)] == [("Alice", "sh1106", 1), ("Dave", "ssd1306", 3)]
    assert salvage_screens(tmp_path / "missing.toml") == ()
    (tmp_path / "binary.toml").write_bytes(b"\x00\xff[[screens]\x00")
    assert salvage_screens(tmp_path / "binary.toml") == ()


def test_a_screen_for_a_player_not_at_the_table_says_so_on_itself(tmp_path: Path, factory, banks: list) -> None:
    # Seen: [[screens]] player = "Bobb" (the setup says "Bob") left that screen dark all game; the warning was
    # in the journal only, and the table saw a screen that did not work.

    logs: list[str] = []
    config = _config(tmp_path, camera={"backend": "none"})
    config = dataclasses.replace(config, screens=(config.screens[0],
                                                  dataclasses.replace(config.screens[1], player="Bobb")))
    appliance = build_appliance(config, pin_factory=factory, screen_backend="capture", clock=Clock(),
                                log=logs.append)
    try:
        appliance.app.run(max_iterations=3, idle_s=0)
        frames = banks[-1].screen("Bobb").frames
        assert len(frames) == 1, "the screen was left dark"
        assert any("'Bobb', who is not at this table" in m for m in logs)
        from device.cli_device import not_at_table_page

        page = not_at_table_page("Bobb", ["Alice", "Bob"], config.source)
        assert "Bobb" in page.title + " ".join(page.lines) and "Alice, Bob" in " ".join(page.lines)
        from device.dashboards import pages

        assert frames[0].image.tobytes() == pages.render_text(page).tobytes()
    finally:
        appliance.close()


def test_the_chooser_s_menu_goes_to_the_other_screens_while_their_own_is_off(tmp_path: Path, factory) -> None:
    # Seen: with Alice's screen unplugged at her step, her menu was drawn on it only: nobody could see what
    # SELECT and OK would do, and the game could not go on until the cable was found.
    from device.dashboards import pages

    clock = Clock()
    appliance = _cameraless(tmp_path, factory, clock)
    try:
        app = appliance.app
        app.run(max_iterations=2, idle_s=0)
        assert app.chooser() == "Alice"
        views = {v.player: v for v in app.screen_views()}
        assert app.page_for("Bob", views["Bob"], clock.t, True) is None  # Bob sees his dashboard
        _unplug(appliance, "Alice")
        app.notify("info", "anything new on the screens", None)
        for _ in range(3):
            clock.t += 0.5
            app.step()
        views = {v.player: v for v in app.screen_views()}
        assert isinstance(app.page_for("Bob", views["Bob"], clock.t, True), pages.MenuPage)
        _plug(appliance, "Alice")
        for _ in range(40):
            clock.t += 1
            app.step()
        views = {v.player: v for v in app.screen_views()}
        assert app.page_for("Bob", views["Bob"], clock.t, True) is None
    finally:
        appliance.close()


def test_the_menu_of_a_player_with_no_screen_is_on_the_others(tmp_path: Path, factory) -> None:
    config = _config(tmp_path, camera={"backend": "none"})
    config = dataclasses.replace(config, screens=(dataclasses.replace(config.screens[1], address=0x3C),))  # Bob's
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", clock=Clock(),
                                log=lambda m: None)
    try:
        app = appliance.app
        app.run(max_iterations=2, idle_s=0)
        assert app.chooser() == "Alice"
        views = {v.player: v for v in app.screen_views()}
        assert isinstance(app.page_for("Bob", views["Bob"], 50.0, True), pages.MenuPage)
    finally:
        appliance.close()


def test_a_game_that_ends_on_a_full_disk_is_kept_and_the_loop_goes_on(tmp_path: Path, factory) -> None:
    # store.finish (marking the game finished) raised StoreError out of App.apply on a full or read-only
    # disk: `pitboard run` ended in a traceback at the last command of the game.
    from device.store import StoreError
    from games.core import Command

    clock = Clock()
    appliance = _cameraless(tmp_path, factory, clock)
    try:
        def full(game_id: int, finished: bool = True) -> None:
            raise StoreError("the disk holding games.sqlite is full: marking game 1 finished failed. Nothing was "
                             "changed; free some space and try again")

        appliance.store.finish = full
        outcome = appliance.app.apply(Command.from_json({"type": "end_game"}))
        assert outcome.accepted
        assert any("is full" in n.text for n in appliance.app.notices)
        clock.t += 1
        appliance.app.step()
    finally:
        appliance.close()


def test_a_command_the_log_could_not_record_is_in_the_journal_too(tmp_path: Path, factory, caplog) -> None:
    # seen: with the disk full, "NOT RECORDED: ..." was on the sender's screen for a few seconds and nowhere
    # else: the owner reading `journalctl -u pitboard` afterwards found nothing
    import logging

    from device.store import StoreError
    from games.core import Command

    appliance = _cameraless(tmp_path, factory, Clock())
    try:
        def full(*_: object) -> None:
            raise StoreError("the disk holding games.sqlite is full")

        appliance.store.append = full
        with caplog.at_level(logging.WARNING):
            outcome = appliance.app.apply(Command.from_json({"type": "choose_template", "template": "short_straight"}))
        assert not outcome.accepted
        assert any("not recorded" in r.getMessage() and "is full" in r.getMessage() for r in caplog.records)
    finally:
        appliance.close()


def test_a_resumed_game_says_so_on_every_screen_with_when_it_began(tmp_path: Path, factory) -> None:
    # Seen: `pitboard run` resumed last week's unfinished game and said so in the journal only: the table saw
    # a game under way without knowing it was an old one.
    clock = Clock()
    first = _cameraless(tmp_path, factory, clock)
    assert not [n for n in first.app.notices if n.kind == "resumed"]
    first.close()
    again = _cameraless(tmp_path, factory, clock)
    try:
        told = [n for n in again.app.notices if n.kind == "resumed"]
        from datetime import datetime

        created = datetime.fromisoformat(again.store.games()[0].created)
        assert len(told) == 1 and told[0].player is None
        assert told[0].text == f"resumed game {again.game_id} of {created.day} {created.strftime('%b')}", told[0].text
        assert told[0].until is not None and told[0].until - clock.t >= 10  # long enough to be seen at the start
    finally:
        again.close()


def test_buttons_that_cannot_be_set_up_are_said_once_in_words(tmp_path: Path, monkeypatch, capsys) -> None:
    """Seen on a PC: four gpiozero PinFactoryFallback warnings, each with its site-packages path, then the
    error; and each screen that does not answer was printed twice (once bare, by the logging module)."""
    import warnings

    import device.buttons

    class NoPins:
        def __init__(self, *a, **k) -> None:
            warnings.warn("Falling back from lgpio: No module named 'lgpio'", RuntimeWarning, stacklevel=2)
            raise RuntimeError("Unable to load any default pin factory!")

    monkeypatch.setattr(device.buttons, "ButtonPanel", NoPins)
    logs: list[str] = []
    with pytest.raises(UserError) as caught:
        build_appliance(_config(tmp_path), screen_backend="i2c", log=logs.append)
    said = str(caught.value)
    assert "Unable to load any default pin factory!; tried: Falling back from lgpio" in said
    assert "python3-lgpio" in said
    err = capsys.readouterr().err
    assert "warnings.warn" not in err and "PinFactoryFallback" not in err
    answers = [line for line in logs if "does not answer" in line]
    assert len(answers) == 2 and "does not answer" not in err  # Alice's and Bob's, each once, in the journal


@pytest.mark.parametrize("line,advice", [
    ("push_it = True", "write push_it = true"),
    ("push_it = yes", "write push_it = true"),
    ("push_it = No", "write push_it = false"),
    ("first_player = \u201cAna\u201d", 'write first_player = "Ana" with straight quotes'),
    ("name = Bob", 'write name = "Bob"'),
    # a bad-input audit: `fps = = 10` was told to write fps = "= 10"; `address = 0X3C` got TOML's words alone
    ("fps = = 10", "write fps = 10"),
    ("address = 0X3C", "write address = 0x3C"),
])
def test_a_toml_mistake_is_mended_the_way_the_next_check_accepts(line: str, advice: str) -> None:
    """Seen on the phone: `push_it = True` was told to write `push_it = "True"` (then refused as no true or
    false), and a phone keyboard's “Ana” to write `"“Ana”"` (then refused as no player)."""
    import tomllib

    from device.setup_files import toml_mistake

    with pytest.raises(tomllib.TOMLDecodeError) as caught:
        tomllib.loads(line)
    said = toml_mistake(caught.value, line)
    assert said.endswith(advice), said
    fixed = said.split("write ", 1)[1].removesuffix(" with straight quotes")
    tomllib.loads(fixed)  # the advice itself is valid TOML


def test_a_damaged_wal_is_told_on_every_screen_and_its_copy_named(tmp_path: Path, factory) -> None:
    """A bad-input audit: decisions after a damaged frame of the log's -wal file (a failing SD card) were dropped
    without a word, and the file deleted. The appliance keeps a copy, says so in the journal and on the screens."""
    from test_store_wal import crashed, damage

    from device.wal_scan import scan

    db, _ = crashed(tmp_path)
    wal = db.with_name("game.sqlite-wal")
    damage(wal, scan(wal.read_bytes()).frames - 4)
    logs: list[str] = []
    appliance = build_appliance(_config(tmp_path, store={"path": str(db)}), pin_factory=factory,
                                screen_backend="recording", log=logs.append,
                                camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert any(line.startswith("warning: ") and "is damaged: " in line for line in logs), logs
        (notice,) = [n for n in appliance.app.notices if n.kind == "store"]
        assert notice.player is None and "after a damaged part of the log unread" in notice.text
        assert "a copy is kept beside the log (pitboard check names it)" in notice.text
        assert list(db.parent.glob("game.sqlite-wal.damaged-*"))
    finally:
        appliance.close()


def test_a_games_end_undone_marks_it_playing_again_and_a_restart_resumes_it(tmp_path: Path) -> None:
    """A phone audit: a finished game brought back into play by an undo stayed marked finished; the restart
    resumed an older unfinished game of the log, and the game being played was left behind."""
    import tomllib

    import games.gaslands as gaslands
    from device.app import App
    from device.buttons import ScriptedButtons
    from device.store import Store
    from games.core import Command

    store = Store(tmp_path / "g.sqlite")
    older, _, _ = store.open_match(gaslands.GAME, tomllib.loads(gaslands.EXAMPLE_SETUP), new=True)
    game_id, match, _ = store.open_match(gaslands.GAME, tomllib.loads(gaslands.EXAMPLE_SETUP), new=True)
    marks: list[bool] = []

    def on_finished(over: bool) -> None:
        marks.append(over)
        store.finish(game_id, over)

    class Screens:
        def show(self, player, image) -> bool:
            return True

    app = App(gaslands, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.0,
              on_finished=on_finished)
    assert app.apply(Command("end_game", {"winner": "Alice"}), now=0.0).accepted
    assert marks == [True] and store.latest_unfinished("gaslands") == older
    assert app.apply(Command("undo", {"steps": 1}), now=1.0).accepted
    assert marks == [True, False] and store.latest_unfinished("gaslands") == game_id  # resumed, not game 1
    store.close()


def test_a_game_ended_from_the_phone_is_not_resumed_once_the_new_one_is_over(tmp_path: Path, factory) -> None:
    """A review of the phone page: "End the game in progress" and Start left the game at the table unfinished in
    the log; once the new game was played to its end, the next start (a game night later, or after a power cut)
    resumed last week's game mid-turn instead of beginning [game]'s."""
    import tomllib

    import games.gaslands as gaslands
    from device.cli_device import begin_from_page
    from games.core import Command

    config = _config(tmp_path)
    appliance = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None,
                                camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        old = appliance.game_id
        assert appliance.app.apply(Command("choose_template", {"template": "short_straight"})).accepted
        app = begin_from_page(appliance, config, "gaslands", tomllib.loads(gaslands.EXAMPLE_SETUP), log=lambda m: None)
        new = appliance.game_id
        assert new != old and appliance.store.latest_unfinished("gaslands") == new
        assert app.apply(Command("end_game", {"winner": "Alice"})).accepted  # the new game played to its end
        assert appliance.store.newest_unfinished_kind() is None  # nothing left to resume
        states = {g.id: (g.finished, g.ended_unfinished) for g in appliance.store.games()}
        assert states == {old: (True, True), new: (True, False)}
    finally:
        appliance.close()
    again = build_appliance(config, pin_factory=factory, screen_backend="recording", log=lambda m: None,
                            camera_backend=ReplayBackend(tmp_path / "frames"))
    try:
        assert not again.resumed and again.game_id not in (old, new)  # [game] begins: neither comes back
        assert again.app.match.undoable == 0
    finally:
        again.close()
