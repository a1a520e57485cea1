"""The main loop, driven step by step: buttons, camera readings and notices → commands → rules → store → screens.

A small toy game stands in for the rules so that these tests pin the loop's behaviour, not Gaslands'
(which has its own tests); one test at the end runs the real Gaslands engine through the loop.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from device.app import App, open_match, setup_options
from device.buttons import ButtonPanel, PressKind, ScriptedButtons
from device.camera import Camera, CameraError
from device.store import Store
from games.core import Alert, Command, Decision, Event, Illegal, Prompt

SKID = ["SHIFT", "SHIFT", "SHIFT", "HAZARD", "SLIDE", "SPIN"]


@dataclass(frozen=True)
class ToyVehicle:
    id: str
    name: str
    hazards: int


@dataclass(frozen=True)
class ToyView:
    player: str
    step: str
    prompt: str
    vehicles: tuple[ToyVehicle, ...]
    alerts: tuple[Alert, ...] = ()


@dataclass(frozen=True)
class ToyState:
    step: str = "pick"
    template: str | None = None
    hazards: int = 0
    phase: int = 1
    rolls: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


class ToyGame:
    """pick a template (hairpin is not permitted) → place it (confirm) → skid roll (≤ 2 dice) → pick ..."""

    name = "toy"

    def start(self, options: Mapping[str, Any]) -> list[Event]:
        return [Event("started", dict(options))]

    def evolve(self, state: ToyState | None, event: Event) -> ToyState:
        if event.type == "started":
            return ToyState()
        assert state is not None
        if event.type == "template_chosen":
            return dataclasses.replace(state, step="place", template=event.data["template"])
        if event.type == "placed":
            return dataclasses.replace(state, step="roll")
        if event.type == "rolled":
            faces = tuple(event.data["faces"])
            return dataclasses.replace(state, step="pick", hazards=state.hazards + faces.count("HAZARD"),
                                       rolls=state.rolls + (faces,))
        if event.type == "hazards_gained":
            return dataclasses.replace(state, hazards=state.hazards + event.data["count"])
        if event.type == "phase_skipped":
            return dataclasses.replace(state, phase=state.phase + 1)
        raise ValueError(event.type)

    def decide(self, state: ToyState, command: Command) -> Decision:
        if state.step == "pick" and command.type == "choose_template":
            t = command.get("template")
            if t == "hairpin":
                raise Illegal("Hairpin is not permitted in gear 1")
            if t not in ("gentle", "turn"):
                raise Illegal(f"no template {t!r}")
            return Decision((Event("template_chosen", {"template": t}),))
        if state.step == "pick" and command.type == "skip_phase":
            return Decision((Event("phase_skipped"),))
        if command.type == "gain_hazard" and state.step == "pick":
            if command.get("vehicle") != "car":
                raise Illegal("no such vehicle")
            return Decision((Event("hazards_gained", {"count": command.get("count", 1)}),))
        if state.step == "place" and command.type == "confirm":
            return Decision((Event("placed"),))
        if state.step == "roll" and command.type == "skid_roll":
            faces = list(command.get("faces", []))
            if len(faces) > 2 or any(f not in SKID for f in faces):
                raise Illegal("roll up to 2 skid dice")
            return Decision((Event("rolled", {"faces": faces}),))
        raise Illegal(f"{command.type} is not possible at {state.step}")

    def prompt(self, state: ToyState) -> Prompt:
        if state.step == "pick":
            return Prompt("Ann: choose a template", "1.1", "template", player="Ann", vehicle="car",
                          options=("gentle", "turn", "hairpin"), commands=("choose_template", "skip_phase", "gain_hazard", "undo"))
        if state.step == "place":
            return Prompt("Ann: place it", "1.2", "confirm", player="Ann", vehicle="car", commands=("confirm", "undo"))
        return Prompt("Ann: skid check", "1.3", "dice", player="Ann", vehicle="car", die="skid", count=2,
                      commands=("skid_roll", "undo"))

    def views(self, state: ToyState) -> list[ToyView]:
        p = self.prompt(state)
        return [
            ToyView("Ann", p.step, p.text, (ToyVehicle("car", "Car", state.hazards),)),
            ToyView("Ben", p.step, p.text, (ToyVehicle("van", "Van", 0),)),
        ]


TOY = SimpleNamespace(GAME=ToyGame(), DIE_TYPES={"skid": SKID}, EXAMPLE_SETUP='players = ["Ann", "Ben"]\n')


class Img:
    def __init__(self, view: Any, blink: bool) -> None:
        self.view, self.blink = view, blink

    def tobytes(self) -> bytes:
        return repr((self.view, self.blink)).encode()


def render(game: str, view: Any, blink: bool) -> Img:
    return Img(view, blink)


class Screens:
    def __init__(self) -> None:
        self.shown: list[tuple[str, Any]] = []

    def show(self, player: str, image: Any) -> bool:
        self.shown.append((player, image))
        return True

    def last(self, player: str) -> Any:
        return [img for p, img in self.shown if p == player][-1].view


@dataclass(frozen=True)
class Reading:
    value: Any
    center: tuple[float, float]


class FakeReader:
    def __init__(self) -> None:
        self.dice: list[Reading] = []
        self.table: Any = None
        self.dice_calls: list[tuple[tuple[int, ...], str]] = []

    def read_dice(self, image: np.ndarray, die: str) -> list[Reading]:
        self.dice_calls.append((image.shape, die))
        return list(self.dice)

    def read_table(self, image: np.ndarray) -> Any:
        return self.table


class Tray:
    """A camera backend that can be unplugged."""

    name = "tray"

    def __init__(self) -> None:
        self.unplugged = False

    def open(self) -> None:
        if self.unplugged:
            raise CameraError("no camera")

    def read(self) -> np.ndarray:
        if self.unplugged:
            raise CameraError("the camera gave no frame")
        return np.zeros((120, 160, 3), np.uint8)

    def close(self) -> None:
        pass


class Rig:
    """An app around the toy game with a fake clock; ``step()`` advances 0.1 s."""

    def __init__(self, tmp_path: Path, *, camera: bool = False, **kw: Any) -> None:
        self.t = 0.0
        self.store = Store(tmp_path / "games.sqlite")
        self.game_id, self.match, _ = open_match(self.store, TOY, {"players": ["Ann", "Ben"]})
        self.buttons = ScriptedButtons()
        self.screens = Screens()
        self.reader = FakeReader()
        self.tray = Tray()
        cam = Camera(self.tray, clock=self.clock, fps=0, reopen_min_s=1.0) if camera else None
        self.app = App(TOY, self.match, buttons=self.buttons, displays=self.screens, clock=self.clock,
                       camera=cam, reader=self.reader if camera else None, render=render, settle_frames=3, **kw)

    def clock(self) -> float:
        return self.t

    def step(self, *presses: str, long: bool = False) -> list[dict[str, Any]]:
        for p in presses:
            self.buttons.press(p, PressKind.LONG if long else PressKind.SHORT)
        self.t += 0.1
        return [a.command.to_json() for a in self.app.step()]

    @property
    def state(self) -> ToyState:
        return self.match.state


def test_buttons_drive_the_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert [c.label for c in rig.app.choices] == ["gentle", "turn"]  # hairpin is refused by the rules: not offered
    assert rig.step("select") == []
    assert rig.step("ok") == [{"type": "choose_template", "template": "turn"}]
    assert rig.step("next") == [{"type": "confirm"}]
    assert rig.state.step == "roll"
    assert rig.step("back") == [{"type": "undo", "steps": 1}]
    assert rig.state.step == "place"


def test_long_back_undoes_several_decisions(tmp_path: Path) -> None:
    rig = Rig(tmp_path, long_back_undo_steps=3)
    rig.step("ok")
    rig.step("next")
    assert rig.step("back", long=True) == [{"type": "undo", "steps": 2}]  # only two decisions to undo
    assert rig.state.step == "pick" and rig.match.undoable == 0
    rig.step("back")
    assert "nothing to undo" in rig.app.notices[-1].text


def test_long_next_skips_the_phase_only_after_ok(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.step("next", long=True) == []
    assert rig.app.status_text() == "SKIP PHASE? OK=yes"
    assert rig.step("ok") == [{"type": "skip_phase", "confirm": True}]
    assert rig.state.phase == 2
    rig.step("next", long=True)
    assert rig.step("back") == []  # BACK cancels the confirmation (and does not undo)
    assert rig.state.phase == 2 and rig.app.notices[-1].text == "skip cancelled"


def test_dice_typed_with_the_buttons(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("ok")
    rig.step("next")
    rig.step("select")  # starts the entry on the first face
    assert rig.app.entry is not None and rig.app.entry.current == "SHIFT"
    rig.step("select")  # faces are offered once each: SHIFT, HAZARD, SLIDE, SPIN
    rig.step("ok")
    assert rig.app.entry.entered == ["HAZARD"]
    rig.step("select")
    rig.step("ok")
    rig.step("ok")  # a third die is refused by the entry itself
    assert rig.app.notices[-1].text == "at most 2 dice"
    assert "DICE 2/2: HAZARD SLIDE" in rig.screens.last("Ann").prompt
    assert rig.screens.last("Ben").prompt == "Ann: skid check"  # the selection is on the acting player's screen
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["HAZARD", "SLIDE"]}]
    assert rig.state.hazards == 1 and rig.app.entry is None


def test_refusal_is_shown_with_the_rules_reason(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.app.apply(Command("choose_template", {"template": "hairpin"}))
    rig.step()
    alerts = rig.screens.last("Ann").alerts
    assert Alert("refused", "Hairpin is not permitted in gear 1", "Ann") in alerts
    assert not rig.screens.last("Ben").alerts  # Ben's screen is not Ann's business
    rig.t += 5
    rig.step()
    assert not rig.screens.last("Ann").alerts  # the notice expired


def test_player_button_acts_only_for_the_acting_player(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.step("p2") == []
    assert rig.app.notices[-1].text == "Ann is to act, not Ben"
    assert rig.step("p1") == [{"type": "choose_template", "template": "gentle"}]


def test_settled_dice_reading_becomes_the_roll_once(tmp_path: Path) -> None:
    from device.config import Region

    rig = Rig(tmp_path, camera=True, dice_region=Region(10, 20, 64, 48))
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading("HAZARD", (5, 40))]
    assert rig.step() == [] and rig.step() == []  # 2 identical readings: not yet settled
    assert rig.step() == [{"type": "skid_roll", "faces": ["SPIN", "HAZARD"]}]
    assert rig.reader.dice_calls[0] == ((48, 64, 3), "skid")  # read from the tray's region
    # Back at the dice step (undo twice... here: pick + place) the same dice lying still are NOT a new roll.
    rig.step("ok")
    rig.step("next")
    for _ in range(5):
        assert rig.step() == []
    rig.reader.dice = []  # tray emptied
    rig.step()
    rig.reader.dice = [Reading("SHIFT", (90, 10))]
    assert [rig.step() for _ in range(3)][-1] == [{"type": "skid_roll", "faces": ["SHIFT"]}]


def test_a_die_the_camera_cannot_read_holds_the_roll(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading(None, (90, 90))]
    assert all(rig.step() == [] for _ in range(5))
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading("SLIDE", (90, 90)), Reading("SLIDE", (150, 90))]
    assert all(rig.step() == [] for _ in range(4))  # 3 dice for a 2-dice roll: a notice, no command
    assert rig.app.notices[-1].text == "3 dice on the tray, at most 2"


def test_template_seen_on_the_active_vehicle_is_chosen_once(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    t = SimpleNamespace
    rig.reader.table = t(templates=[t(name="hairpin", hand="left", attached_to="car", edge="front"),
                                    t(name="turn", hand="left", attached_to="van", edge="front")], tokens={})
    sent = [rig.step() for _ in range(6)]
    assert [c for s in sent for c in s] == [{"type": "choose_template", "template": "hairpin", "hand": "left",
                                            "edge": "front"}]  # refused, and not sent again while it lies there
    assert rig.app.history[-1].outcome.reason == "Hairpin is not permitted in gear 1"
    rig.reader.table = t(templates=[t(name="gentle", hand="right", attached_to="car", edge="front")], tokens={})
    sent = [c for s in (rig.step() for _ in range(3)) for c in s]
    assert sent == [{"type": "choose_template", "template": "gentle", "hand": "right", "edge": "front"}]
    assert rig.state.step == "place"


def test_hazard_count_mismatch_is_an_alert_not_a_command(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 2, "p2": 0, "tray": None})
    records = len(rig.match.records)
    for _ in range(3):
        rig.step()
    assert len(rig.match.records) == records
    alerts = rig.screens.last("Ann").alerts
    assert [a.text for a in alerts if a.kind == "hazard_mismatch"] == ["Car: 2 tokens, log 0 (long OK adds)"]
    assert not rig.screens.last("Ben").alerts
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 0, "p2": 0})
    for _ in range(3):
        rig.step()
    assert not rig.screens.last("Ann").alerts


def test_long_ok_adds_the_extra_tokens_the_camera_counted(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"p1": 3, "p2": 1})  # seat zones; Ben has none logged
    for _ in range(3):
        rig.step()
    assert {(m.zone, m.vehicle, m.table, m.log) for m in rig.app.mismatches} == {("p1", "car", 3, 0), ("p2", "van", 1, 0)}
    sent = rig.step("ok", long=True)
    # van is Ben's and the toy rules refuse it: each vehicle is its own command, each refusal shown
    assert sent == [{"type": "gain_hazard", "vehicle": "car", "count": 3, "cause": "tokens counted on the table"},
                    {"type": "gain_hazard", "vehicle": "van", "count": 1, "cause": "tokens counted on the table"}]
    assert rig.state.hazards == 3
    rig.reader.table = SimpleNamespace(templates=[], tokens={"p1": 3, "p2": 0})
    for _ in range(3):
        rig.step()
    assert rig.app.mismatches == []
    assert rig.step("ok", long=True) == []
    assert rig.app.notices[-1].text == "no extra hazard tokens to add"


def test_camera_down_means_manual_entry_and_a_notice_then_recovery(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step()
    rig.tray.unplugged = True
    rig.step()
    for player in ("Ann", "Ben"):
        assert Alert("camera_down", "CAMERA OFF: dice by hand", None) in rig.screens.last(player).alerts
    assert rig.app.camera_message == "the camera gave no frame"
    rig.step("ok")
    rig.step("next")
    rig.step("select")
    rig.step("ok")
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["SHIFT"]}]
    rig.tray.unplugged = False
    for _ in range(12):  # the reopen backoff is 1 s, then 2 s ...
        rig.step()
    kinds = [a.kind for a in rig.screens.last("Ann").alerts]
    assert "camera_down" not in kinds and "camera_back" in kinds


def test_screens_are_redrawn_only_when_they_change_and_alerts_blink(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step()
    n = len(rig.screens.shown)
    assert n == 2
    rig.step()
    rig.step()
    assert len(rig.screens.shown) == n  # nothing changed (no alerts, so blinking changes nothing)
    rig.step("select")
    assert [p for p, _ in rig.screens.shown[n:]] == ["Ann"]  # only Ann's screen shows the selection
    rig.app.notify("refused", "no", "Ben")
    before = len(rig.screens.shown)
    for _ in range(10):
        rig.step()
    blinks = {img.blink for p, img in rig.screens.shown[before:] if p == "Ben"}
    assert blinks == {True, False}


def test_a_display_bank_draws_only_its_players(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.screens.players = ("Ben",)  # type: ignore[attr-defined]
    rig.step()
    assert {p for p, _ in rig.screens.shown} == {"Ben"}


def test_decisions_are_in_the_store_and_the_game_resumes(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("ok")
    rig.step("next")
    rig.store.close()
    store = Store(tmp_path / "games.sqlite")
    game_id, match, resumed = open_match(store, TOY, None)
    assert resumed and game_id == rig.game_id
    assert match.state == rig.state
    store.finish(game_id)
    new_id, fresh, resumed = open_match(store, TOY, {"players": ["Ann", "Ben"]})
    assert not resumed and new_id != game_id and fresh.state.step == "pick"


def test_gpiozero_mock_panel_into_the_loop(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    rig = Rig(tmp_path)
    panel = ButtonPanel({"next": 17, "back": 27, "select": 22, "ok": 23}, clock=rig.clock, pin_factory=factory)
    rig.app.buttons = panel
    try:
        factory.pin(23).drive_low()
        rig.t += 0.1
        factory.pin(23).drive_high()
        for _ in range(500):  # sync with gpiozero's callback thread (not a timing assertion)
            if panel.edges.qsize() >= 2:
                break
            import time

            time.sleep(0.002)
        assert rig.step() == [{"type": "choose_template", "template": "gentle"}]
    finally:
        panel.close()
        factory.reset()


def test_setup_options_from_file_and_example(tmp_path: Path) -> None:
    assert setup_options(TOY, None) == {"players": ["Ann", "Ben"]}
    f = tmp_path / "table.toml"
    f.write_text('players = ["X"]\n')
    assert setup_options(TOY, f) == {"players": ["X"]}
    with pytest.raises(ValueError, match="does not exist"):
        setup_options(TOY, tmp_path / "none.toml")


@pytest.mark.skipif(importlib.util.find_spec("games.gaslands") is None, reason="Gaslands engine not present")
def test_gaslands_through_the_loop(tmp_path: Path) -> None:
    from games import game_package

    module = game_package("gaslands")
    store = Store(tmp_path / "g.sqlite")
    _, match, _ = open_match(store, module, setup_options(module, None))
    buttons, screens = ScriptedButtons(), Screens()
    app = App(module, match, buttons=buttons, displays=screens, clock=lambda: 0.0, render=render)
    prompt = match.prompt()
    if prompt.awaits == "vehicle":
        buttons.press("ok")
        app.step()
    assert match.prompt().awaits == "template"
    buttons.press("ok")
    app.step()
    assert app.history[-1].command.type == "choose_template" and app.history[-1].outcome.accepted
    buttons.press("next")
    app.step()
    assert match.prompt().awaits == "dice"
    app.type_faces(["SHIFT"])
    assert app.history[-1].outcome.accepted
    assert match.prompt().awaits == "shift"
    assert any(c.label.startswith("gear_up") for c in app.choices)
    store.close()


class StillReader(FakeReader):
    """A reader that watches the tray for motion: dice are read only when it is still, and once per stillness."""

    def __init__(self) -> None:
        super().__init__()
        self.still: list[bool] = []

    def tray_still(self, image: np.ndarray) -> bool:
        return self.still.pop(0) if self.still else True


def test_dice_are_read_only_when_the_tray_is_still_and_once_while_it_stays_still(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    reader = StillReader()
    rig.app.reader = reader
    rig.step("ok")
    reader.dice = [Reading("SLIDE", (50, 50))]
    reader.still = [False, False, False, False]
    rig.step("next")  # the dice prompt begins: this step's frame already goes to the tray watcher
    assert [rig.step() for _ in range(3)] == [[], [], []]
    assert reader.dice_calls == []  # dice in motion are never read
    sent = [c for _ in range(3) for c in rig.step()]
    assert sent == [{"type": "skid_roll", "faces": ["SLIDE"]}]
    assert len(reader.dice_calls) == 1  # read once, then the still tray's reading was reused


def test_a_store_that_cannot_write_is_shown_and_the_game_is_unchanged(tmp_path: Path) -> None:
    from device.store import StoreError

    rig = Rig(tmp_path)

    def broken(decision: int, events: Any) -> Any:
        raise StoreError("could not write to the game log: disk full; nothing of this step was recorded")

    rig.match._sink = broken  # the disk fills up mid-game
    before = rig.state
    assert rig.step("ok") == [{"type": "choose_template", "template": "gentle"}]
    assert rig.state == before
    assert rig.app.history[-1].outcome.reason.startswith("NOT RECORDED: could not write")
    assert rig.app.notices[-1].kind == "refused"


def test_jittering_centres_still_settle_and_a_bumped_tray_is_not_a_new_roll(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    sent = []
    for dx in (0.0, 1.5, -1.0):  # the reader's centre estimate wobbles by a pixel or two
        rig.reader.dice = [Reading("SPIN", (40 + dx, 40)), Reading("SHIFT", (100, 41 - dx))]
        sent += rig.step()
    assert sent == [{"type": "skid_roll", "faces": ["SPIN", "SHIFT"]}]
    rig.step("ok")
    rig.step("next")  # the next dice step; the old dice were nudged 6 px, not rolled
    rig.reader.dice = [Reading("SPIN", (46, 40)), Reading("SHIFT", (100, 47))]
    assert all(rig.step() == [] for _ in range(5))
    rig.reader.dice = [Reading("SPIN", (140, 40)), Reading("SHIFT", (100, 47))]  # one die re-rolled: new roll
    assert [c for _ in range(3) for c in rig.step()] == [{"type": "skid_roll", "faces": ["SPIN", "SHIFT"]}]


def test_a_game_can_say_how_its_dice_become_a_command(tmp_path: Path) -> None:
    """``dice_command(prompt, faces)`` in the game package: used for typed and camera dice alike."""
    rig = Rig(tmp_path, camera=True)
    calls: list[tuple[str, list[Any]]] = []

    def dice_command(prompt: Prompt, faces: list[Any]) -> Command:
        calls.append((prompt.step, faces))
        return Command("skid_roll", {"faces": faces[:1]})

    rig.app.module = SimpleNamespace(**vars(TOY), dice_command=dice_command)
    rig.step("ok")
    rig.step("next")
    rig.step("select")
    rig.step("ok")
    rig.step("ok")
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["SHIFT"]}]
    assert calls == [("1.3", ["SHIFT", "SHIFT"])]
