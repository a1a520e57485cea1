"""Dice read by the camera through the loop, for games that name their pip dice themselves."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from device.app import App, VisionReader, open_match
from device.buttons import ScriptedButtons
from device.camera import Camera, StillBackend
from device.store import Store
from games import game_package
from vision.dice import FaceLibrary
from tools.dice_training.render import render_scene

pytestmark = pytest.mark.slow  # the dice networks read frame after frame: why, in pyproject.toml's markers


class Screens:
    def show(self, player: str, image: Any) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def road_app_on_still(tmp_path: Path, image: Any, reader: Any, **kwargs: Any) -> Iterator[tuple[App, Clock]]:
    """Thunder Road's example table with a camera giving ``image`` every frame, on a clock the test moves:
    ``(app, clock)``; ``kwargs`` go to the App (``dice_region``...; ``settle_frames`` is 3)."""
    module = game_package("thunder_road")
    with Store(tmp_path / "tr.sqlite") as store:
        _, match, _ = open_match(store, module, tomllib.loads(module.EXAMPLE_SETUP))
        clock = Clock()
        yield App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=clock,
                  camera=Camera(StillBackend(image), clock=clock, fps=10), reader=reader,
                  **{"settle_frames": 3, **kwargs}), clock


def test_thunder_road_movement_dice_are_read_as_pip_dice(tmp_path: Path) -> None:
    """"FX dice ... Road, Stunt, Shooting ..." are taught faces; the four movement dice are ordinary d6: the
    camera reads their pips although the game calls them "movement", and the roll goes to the rules."""
    module = game_package("thunder_road")
    with Store(tmp_path / "tr.sqlite") as store:
        _, match, _ = open_match(store, module, tomllib.loads(module.EXAMPLE_SETUP))
        prompt = match.prompt()
        assert prompt.awaits == "dice" and prompt.die == "movement" and prompt.count == 4
        faces = [3, 5, 1, 6]
        image, _ = render_scene(faces, np.random.default_rng(4))
        clock = Clock()
        app = App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=clock,
                  camera=Camera(StillBackend(image), clock=clock, fps=10),
                  reader=VisionReader(faces=FaceLibrary()), settle_frames=3)
        assert app.vision is not None
        assert app.vision.vision_die("movement") == "d6" and app.vision.vision_die("fire") == "fire"
        for _ in range(20):
            clock.now += 0.1
            app.step(clock.now)
            if app.history:
                break
        assert app.history, f"no roll was read (prompt: {app.prompt().text})"
        applied = app.history[0]
        assert applied.source == "camera" and applied.outcome.accepted, applied
        assert applied.command.type == "roll" and applied.command.args["player"] == prompt.player
        assert sorted(applied.command.args["dice"]) == sorted(faces)


def test_a_calibrated_appliance_tells_the_reader_the_dice_size(tmp_path: Path, monkeypatch) -> None:
    """Issue 14, item 1: "With a calibration it knows px per mm and the dice size (configurable, 12-19 mm)"."""
    import vision.dice as vd
    from device.config import Region
    from device.table_files import save_calibration
    from vision.calibration import Calibration

    cal_path = save_calibration(Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720),
                                            mat_mm=(640.0, 360.0)), tmp_path / "cal.json")
    problems: list[Any] = []
    reader = VisionReader.from_files(cal_path, None, problems=problems, dice_mm=18.0,
                                     dice_region=Region(1000, 400, 200, 200))
    assert reader.die_px == pytest.approx(2.0 * 18.0)  # 2 px per mm at the tray, 18 mm dice
    seen: list[float | None] = []
    monkeypatch.setattr(vd, "read_dice", lambda image, *, die, library, die_px: seen.append(die_px) or [])
    reader.read_dice(np.zeros((200, 200, 3), np.uint8), "d6")
    assert seen == [pytest.approx(36.0)]
    # without a calibration the reader is not told: it finds the dice's size itself
    assert VisionReader.from_files(None, None, problems=[], dice_mm=18.0).die_px is None


def test_the_appliance_reads_the_table_with_the_owners_files(tmp_path: Path, monkeypatch) -> None:
    """Outlines taught with `pitboard teach template` and the owner's table.toml reach the running reader;
    a damaged table.toml or a configured token file that is missing is said (not severe) and the shipped
    defaults are used."""
    from device.table_files import save_calibration, save_outline
    from vision.calibration import Calibration
    from vision.templates import builtin_shapes

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path))
    cal_path = save_calibration(Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720),
                                            mat_mm=(640.0, 360.0)), tmp_path / "cal.json")
    shape = builtin_shapes()["gentle"]
    save_outline(shape)
    problems: list[Any] = []
    reader = VisionReader.from_files(cal_path, None, problems=problems)
    assert "gentle" in reader.table_config.outlines and problems == []

    (tmp_path / "table.toml").write_text("[tags\n", encoding="utf-8")
    missing = tmp_path / "nowhere" / "tokens.npz"
    reader = VisionReader.from_files(cal_path, None, problems=problems, tokens=missing)
    assert reader.table_config is not None and reader.calibration is not None  # the table is still read
    parts = {p.part: p for p in problems}
    assert not parts["table config"].severe and "table.toml" in parts["table config"].message
    assert not parts["token look"].severe and str(missing) in parts["token look"].message


def test_a_roll_the_menu_opened_is_read_by_the_camera(tmp_path: Path) -> None:
    """"A camera above the table reads the dice that players roll": it read only the step's own roll (skid dice,
    a flip check), and a Gaslands attack's dice and the target's evade dice, opened from the menu, were entered
    with the buttons while the camera watched them. Such an entry (not the step's own roll, which the camera reads
    with no entry open) with no die entered yet now takes the roll the camera reads, and goes on as NEXT does
    (the evade dice next); a die entered by hand leaves it to the hand."""
    from device.buttons import PressKind

    module = game_package("gaslands")
    with Store(tmp_path / "g.sqlite") as store:
        _, match, _ = open_match(store, module, tomllib.loads(module.EXAMPLE_SETUP))
        clock = Clock()
        empty = np.zeros((480, 640, 3), np.uint8)
        empty[:] = (60, 110, 40)
        backend = StillBackend(empty)
        buttons = ScriptedButtons()
        app = App(module, match, buttons=buttons, displays=Screens(), clock=clock,
                  camera=Camera(backend, clock=clock, fps=10), reader=VisionReader(faces=FaceLibrary()),
                  settle_frames=3)

        def run(frames: int = 15) -> None:
            for _ in range(frames):
                clock.now += 0.1
                app.step(clock.now)

        def press(*keys: str) -> None:
            for key in keys:
                buttons.press(key, PressKind.SHORT)
                clock.now += 0.1
                app.step(clock.now)

        for command in ({"type": "choose_template", "template": "short_straight"}, {"type": "place_template"},
                        {"type": "skid_roll", "faces": []}, {"type": "confirm"}):
            from games.core import Command

            assert app.apply(Command.from_json(command), now=clock.now).accepted
        assert match.prompt().step.startswith("2")
        run()  # the empty tray seen
        press(*app.plan(("Attack…", "The Brick")))
        assert app.entry is not None and app.entry.request.label == "attack dice"
        backend.show(render_scene([6, 4, 2], np.random.default_rng(3))[0])
        run()
        assert app.entry is not None and app.entry.request.label == "3 hits: evade dice"  # the attack dice read
        assert sorted(app.entry.kept[0].split()[2:]) == ["2", "4", "6"]  # shown on the evade page
        backend.show(empty)
        run()
        assert match.state.vehicle("brick").gear == 1  # one evade die
        backend.show(render_scene([6], np.random.default_rng(5))[0])
        run()
        attack = [a for a in app.history if a.command.type == "attack"]
        assert len(attack) == 1 and attack[0].source == "camera", [(a.command, a.source) for a in app.history]
        assert sorted(attack[0].command.args["dice"]) == [2, 4, 6] and attack[0].command.args["evade"] == [6]
        assert app.entry is None and match.state.vehicle("brick").hull == match.state.vehicle("brick").max_hull - 2
        # a die entered by hand: the camera leaves the roll to the hand
        backend.show(empty)
        run()
        press(*app.plan(("Attack…", "The Brick")))
        assert app.entry is not None and app.entry.request.label == "attack dice"
        press("ok")
        backend.show(render_scene([5, 5], np.random.default_rng(7))[0])
        run()
        assert app.entry is not None and app.entry.request.label == "attack dice" and len(app.entry.entered) == 1
