"""CAR NOT SEEN on the screen of the player laying a template (``CameraInput._car_unseen``): who gets it,
when it comes and goes, and what it says nothing about."""

from __future__ import annotations

from types import SimpleNamespace as t
from typing import Any

from device.camera_input import CameraInput
from device.config import Region
from games.core import Prompt

LYING = [t(name="turn", hand="left", attached_to=None, edge=None)]  # a template attached to no car


def misfit(mm: float = 15.2, centre: tuple[float, float] = (300.0, 200.0)) -> Any:
    return t(tag_id=12, what="car rust", car_id="rust", measured_mm=mm, printed_mm=20.0, centre_px=centre)


class Screens:
    """notify / withdraw as the app does them: one notice per (kind, player)."""

    def __init__(self) -> None:
        self.notices: dict[tuple[str, str | None], str] = {}

    def notify(self, kind: str, text: str, player: str | None, **kw: Any) -> None:
        self.notices[(kind, player)] = text

    def withdraw(self, kind: str) -> None:
        self.notices = {k: v for k, v in self.notices.items() if k[0] != kind}


def prompt(player: str = "Ann") -> Prompt:
    return Prompt("pick a template", "1.1 choose template", "template", player=player, vehicle="rust")


VIEWS = [t(player="Ann", vehicles=[t(id="rust", name="Rust Bucket")])]


def feed(cam: CameraInput, screens: Screens, table: Any, n: int, player: str = "Ann") -> None:
    for _ in range(n):
        cam._car_unseen(table, prompt(player), screens.notify, screens.withdraw, VIEWS, 0.0)


def test_a_size_that_jitters_or_a_reading_that_comes_and_goes_does_not_flicker() -> None:
    cam, screens = CameraInput(reader=None, settle_frames=3), Screens()  # type: ignore[arg-type]
    jitter = [t(cars=[], templates=[], misfits=[misfit(mm)]) for mm in (15.4, 15.6)]
    for k in range(3):
        feed(cam, screens, jitter[k % 2], 1)
    assert screens.notices == {("car_unseen", "Ann"): "car not seen: the tag on Rust Bucket reads 15 mm, not 20"}
    seen = t(cars=[t(id="rust")], templates=[], misfits=[])
    for k in range(8):  # seen one frame in two: the notice stays, its words unchanged
        feed(cam, screens, jitter[k % 2] if k % 2 else seen, 1)
        assert screens.notices == {("car_unseen", "Ann"): "car not seen: the tag on Rust Bucket reads 15 mm, not 20"}
    feed(cam, screens, seen, 2)
    assert screens.notices  # two frames seen: not yet
    feed(cam, screens, seen, 1)
    assert not screens.notices  # three: gone


def test_the_player_laying_the_template_gets_it_and_the_other_loses_it() -> None:
    cam, screens = CameraInput(reader=None, settle_frames=3), Screens()  # type: ignore[arg-type]
    table = t(cars=[], templates=LYING, misfits=[])
    feed(cam, screens, table, 3, "Ann")
    assert screens.notices == {("car_unseen", "Ann"): "car not seen: Is the tag on Rust Bucket covered?"}
    cam.new_prompt()  # touch-move: the same vehicle, the player on its left picks and lays the template
    feed(cam, screens, table, 3, "Ben")
    assert screens.notices == {("car_unseen", "Ben"): "car not seen: Is the tag on Rust Bucket covered?"}


def test_nothing_is_said_of_a_vehicle_without_a_tag_a_die_in_the_tray_or_a_reader_without_cars() -> None:
    reader = t(table_config=t(car_tags={10: "car1", 11: "car2"}))  # "rust" has no tag
    cam, screens = CameraInput(reader=reader, settle_frames=3), Screens()  # type: ignore[arg-type]
    feed(cam, screens, t(cars=[], templates=LYING, misfits=[misfit()]), 5)
    assert not screens.notices
    tray = Region(0, 0, 200, 200)
    cam = CameraInput(reader=None, settle_frames=3, dice_region=tray)  # type: ignore[arg-type]
    feed(cam, screens, t(cars=[], templates=[], misfits=[misfit(centre=(50.0, 60.0))]), 5)  # a die in the tray
    assert not screens.notices
    for odd in (t(templates=LYING), t(cars=None, templates=LYING, misfits=None),
                t(cars=[], templates=None, misfits=[t(car_id="rust", measured_mm=None)])):
        feed(cam, screens, odd, 5)  # a reader that says nothing of cars, or less than vision.table does
        assert not screens.notices
