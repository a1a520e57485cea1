"""The main loop, driven step by step: buttons, camera readings and notices → commands → rules → store → screens.

A small toy game stands in for the rules so that these tests pin the loop's behaviour, not Gaslands'
(which has its own tests); the loop knows the toy only through its menu (``GAME.menu(state)``, built with
:mod:`games.core.table_input`).  One test at the end runs the real Gaslands engine through the loop.
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
from PIL import Image

from device.app import ALERT_PIECE_S, MENU_IDLE_S, REFUSAL_PAGE_S, REFUSAL_STANDS_S, App, open_match, plain_render, render_page, setup_options
from device.buttons import ButtonPanel, PressKind, ScriptedButtons
from device.camera import Camera
from device.dashboards import pages
from device.menus import plan
from device.store import Store
from games.core import Alert, Command, Decision, Event, Illegal, Prompt
from games.core.table_input import DiceRequest, Menu, branch, keep_legal, leaf, leaves, roll

from camera_doubles import Reading, UnpluggableTray

SKID = ["SHIFT", "SHIFT", "SHIFT", "HAZARD", "SLIDE", "SPIN"]
#: Long enough to take more than one page of a 128×64 screen.
HAIRPIN = ("Hairpin is not permitted in gear 1. Touch-move: Ben (on the left) picks a permitted template for "
           "the Car; no skid dice this activation")


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


def _seen_template(template: str, hand: str | None, edge: str | None) -> Command:
    args: dict[str, Any] = {"template": template}
    if hand is not None:
        args["hand"] = hand
    if edge is not None:
        args["edge"] = edge
    return Command("choose_template", args)


def _counted_hazards(vehicle: str, more: int) -> Command:
    return Command("gain_hazard", {"vehicle": vehicle, "count": more, "cause": "tokens counted on the table"})


def skid_dice() -> DiceRequest:
    return DiceRequest("skid", 2, "skid dice", lambda faces: Command("skid_roll", {"faces": list(faces)}), exact=False)


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
                raise Illegal(HAIRPIN)
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

    def menu(self, state: ToyState) -> Menu:
        def legal(command: Command) -> bool:
            try:
                return self.decide(state, command).refused is None
            except Illegal:
                return False

        status = f"Car · {state.hazards} haz"
        if state.step == "pick":
            choices = keep_legal([
                leaf("Gentle", Command("choose_template", {"template": "gentle"}), default=True),
                leaf("Turn", Command("choose_template", {"template": "turn"})),
                leaf("Hairpin", Command("choose_template", {"template": "hairpin"})),  # refused: not offered
                branch("Hazard token", [leaf("Car", Command("gain_hazard", {"vehicle": "car", "count": 1}))]),
                branch("Table…", [leaf("Skip rest of phase", Command("skip_phase", {"confirm": True}))]),
            ], legal)
            # which template is a decision: no usual way on for NEXT (Menu.advance is empty)
            return Menu("1.1 Template", choices, "Ann", status, template=_seen_template, hazards=_counted_hazards)
        if state.step == "place":
            return Menu("1.2 Place", (leaf("Placed", Command("confirm"), default=True),), "Ann", status,
                        advance=("Placed",))
        dice = skid_dice()
        return Menu("1.3 Skid check", (roll("Roll skid dice", dice, default=True),), "Ann", status, dice,
                    advance=("Roll skid dice",))

    def views(self, state: ToyState) -> list[ToyView]:
        p = self.prompt(state)
        return [
            ToyView("Ann", p.step, p.text, (ToyVehicle("car", "Car", state.hazards),)),
            ToyView("Ben", p.step, p.text, (ToyVehicle("van", "Van", 0),)),
        ]


class AnybodysToy(ToyGame):
    """The toy with nobody named to choose: anybody at the table may."""

    def prompt(self, state: ToyState) -> Prompt:
        return dataclasses.replace(super().prompt(state), player=None)

    def menu(self, state: ToyState) -> Menu:
        return dataclasses.replace(super().menu(state), player=None)


TOY = SimpleNamespace(GAME=ToyGame(), DIE_TYPES={"skid": SKID}, EXAMPLE_SETUP='players = ["Ann", "Ben"]\n')
ANYBODYS_TOY = SimpleNamespace(GAME=AnybodysToy(), DIE_TYPES={"skid": SKID})


class Img:
    """A dashboard as the stub renderer draws it: the view it was drawn from."""

    def __init__(self, view: Any, blink: bool) -> None:
        self.view, self.blink = view, blink

    def tobytes(self) -> bytes:
        return repr((self.view, self.blink)).encode()


def render(game: str, view: Any, blink: bool) -> Img:
    return Img(view, blink)


class Screens:
    """A recording display: every image shown, per player."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, Any]] = []

    def show(self, player: str, image: Any) -> bool:
        self.shown.append((player, image))
        return True

    def image(self, player: str) -> Any:
        return [img for p, img in self.shown if p == player][-1]

    def last(self, player: str) -> Any:
        """The view of the dashboard ``player``'s screen shows now (it must be showing one)."""
        img = self.image(player)
        assert isinstance(img, Img), f"{player}'s screen shows a page, not the dashboard"
        return img.view

    def shows_page(self, player: str) -> bool:
        return isinstance(self.image(player), Image.Image)


def same_image(a: Any, b: Image.Image) -> bool:
    return isinstance(a, Image.Image) and a.size == b.size and a.tobytes() == b.tobytes()


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


class Rig:
    """An app around the toy game with a fake clock; ``step()`` advances 0.1 s."""

    def __init__(self, tmp_path: Path, *, camera: bool = False, reader: FakeReader | None = None,
                 module: Any = TOY, renderer: Any = render, **kw: Any) -> None:
        self.t = 0.0
        self.store = Store(tmp_path / "games.sqlite")
        self.game_id, self.match, _ = open_match(self.store, module, {"players": ["Ann", "Ben"]})
        self.buttons = ScriptedButtons()
        self.screens = Screens()
        self.reader = reader or FakeReader()
        self.tray = UnpluggableTray()
        cam = Camera(self.tray, clock=self.clock, fps=0, reopen_min_s=1.0) if camera else None
        self.app = App(module, self.match, buttons=self.buttons, displays=self.screens, clock=self.clock,
                       camera=cam, reader=self.reader if camera else None, render=renderer, settle_frames=3, **kw)

    def clock(self) -> float:
        return self.t

    def step(self, *presses: str, long: bool = False) -> list[dict[str, Any]]:
        """Press the buttons (all in one iteration of the loop), step once; the commands sent."""
        for p in presses:
            self.buttons.press(p, PressKind.LONG if long else PressKind.SHORT)
        self.t += 0.1
        return [a.command.to_json() for a in self.app.step()]

    def press(self, *presses: str) -> list[dict[str, Any]]:
        """One press per iteration; ``select_long`` is a long SELECT (as :func:`device.menus.plan` names it)."""
        sent = []
        for p in presses:
            long = p.endswith("_long")
            sent += self.step(p.removesuffix("_long"), long=long)
        return sent

    def choose(self, *path: str) -> list[dict[str, Any]]:
        keys = self.app.plan(path)
        assert keys is not None, f"{path} is not in the menu"
        return self.press(*keys)

    @property
    def state(self) -> ToyState:
        return self.match.state

    @property
    def labels(self) -> list[str]:
        """The labels of the list the cursor is in."""
        assert self.app.cursor is not None
        return [c.label for c in self.app.cursor.level.choices]

    @property
    def path(self) -> tuple[str, ...]:
        assert self.app.cursor is not None
        return self.app.cursor.path

    def page(self, player: str) -> Any:
        """The page the loop would put on ``player``'s screen now (None: the dashboard)."""
        views = {v.player: v for v in self.app.screen_views()}
        return self.app.page_for(player, views[player], self.t, True)


# -- buttons and the menu ----------------------------------------------------------------------------------


def test_buttons_drive_the_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.labels == ["Gentle", "Turn", "Hazard token", "Table…"]  # hairpin is refused by the rules: not offered
    assert rig.step("select") == []
    assert rig.step("ok") == [{"type": "choose_template", "template": "turn"}]
    assert rig.step("next") == [{"type": "confirm"}]
    assert rig.state.step == "roll"
    assert rig.step("back") == [{"type": "undo", "steps": 1}]
    assert rig.state.step == "place"


def test_select_long_select_ok_and_back_walk_the_lists(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.path == ("Gentle",)  # the menu's default
    rig.step("select")
    assert rig.path == ("Turn",)
    rig.step("select", long=True)
    rig.step("select", long=True)
    assert rig.path == ("Table…",)  # long SELECT goes back, wrapping round
    rig.step("select")
    assert rig.path == ("Gentle",)  # SELECT wraps round forwards
    rig.step("select", long=True)
    assert rig.step("ok") == []  # a list opens: nothing is sent
    assert rig.path == ("Table…", "Skip rest of phase")
    assert rig.page("Ann").title == "1.1 Template › Table…"
    assert rig.app.status_text() == "1.1 Template › Table…: Skip rest of phase (1/1)"
    assert rig.step("back") == []  # up one list, no undo
    assert rig.path == ("Table…",) and rig.match.undoable == 0
    assert rig.step("ok") == [] and rig.step("ok") == [{"type": "skip_phase", "confirm": True}]
    assert rig.state.phase == 2


def test_skip_phase_is_a_menu_choice(tmp_path: Path) -> None:
    """Skip rest of phase once took a long NEXT and an OK to confirm; it is a choice under "Table…" now."""
    rig = Rig(tmp_path)
    assert plan(rig.app.cursor, ("Table…", "Skip rest of phase")) == ["select_long", "ok", "next"]
    assert rig.choose("Table…", "Skip rest of phase") == [{"type": "skip_phase", "confirm": True}]
    assert rig.state.phase == 2 and rig.app.legend is None


def test_next_takes_the_usual_way_on_wherever_the_cursor_is(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("select")  # on "Turn"
    assert rig.step("next") == []  # which template is a decision: NEXT does not guess
    assert rig.app.notices[-1].text == "Choose: SELECT, then OK"
    assert rig.path == ("Turn",) and rig.state.step == "pick"
    rig.step("ok")
    assert rig.step("next") == [{"type": "confirm"}]  # Menu.advance: "Placed"
    assert rig.step("next") == [] and rig.app.entry is not None  # the default is a roll: its entry opens
    assert rig.step("next") == [{"type": "skid_roll", "faces": []}]  # up to 2 dice: none is a roll too


def test_next_in_an_open_list_takes_the_highlighted_choice(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.press("select_long", "select_long", "ok")  # Hazard token… opens on Car
    assert rig.path == ("Hazard token", "Car")
    assert rig.step("next") == [{"type": "gain_hazard", "vehicle": "car", "count": 1}]
    assert rig.state.hazards == 1


def test_long_back_undoes_several_decisions(tmp_path: Path) -> None:
    rig = Rig(tmp_path, long_back_undo_steps=3)
    rig.step("ok")
    rig.step("next")
    assert rig.step("back", long=True) == [{"type": "undo", "steps": 2}]  # only two decisions to undo
    assert rig.state.step == "pick" and rig.match.undoable == 0
    assert rig.step("back") == [{"type": "undo", "steps": 1}]
    assert not rig.app.history[-1].outcome.accepted
    assert "nothing to undo" in " ".join(line for p in rig.app.refusal.pages for line in p.lines)
    assert rig.screens.shows_page("Ann") and same_image(rig.screens.image("Ann"), pages.render_text(rig.app.refusal.pages[0]))


def test_after_back_the_cursor_is_where_it_was_at_that_prompt(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("select")
    assert rig.step("ok") == [{"type": "choose_template", "template": "turn"}]
    rig.step("next")
    assert rig.state.step == "roll"
    rig.step("back")  # undo the placing
    assert rig.state.step == "place" and rig.path == ("Placed",)
    rig.step("back")  # undo the template
    assert rig.state.step == "pick"
    assert rig.path == ("Turn",)  # not the default (Gentle): where Ann was when she chose
    assert rig.step("ok") == [{"type": "choose_template", "template": "turn"}]


def test_after_a_command_at_the_same_step_the_same_list_reopens(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.choose("Hazard token", "Car") == [{"type": "gain_hazard", "vehicle": "car", "count": 1}]
    assert rig.path == ("Hazard token", "Car")  # one more hazard token: OK again
    assert rig.step("ok") == [{"type": "gain_hazard", "vehicle": "car", "count": 1}]
    assert rig.state.hazards == 2
    rig.step("back")
    assert rig.path == ("Hazard token",) and rig.match.undoable == 2


def test_back_at_the_top_says_on_every_screen_what_it_undid(tmp_path: Path) -> None:
    """BACK at the top undoes the last decision. It said nothing, and the footer still read "recorded: Attack… ›
    Widowmaker" over a wreck that was gone: every screen now says what was undone, in the words it was taken
    in (the menu's path; a camera's or phone's command in the log's words), and "recorded" goes with it."""
    rig = Rig(tmp_path)
    rig.choose("Hazard token", "Car")
    rig.step("ok")  # a second token
    assert [n.text for n in rig.app.notices if n.kind == "recorded"] == ["recorded: Hazard token › Car"]
    rig.step("back")  # up to the top: no undo yet
    assert rig.state.hazards == 2 and not [n for n in rig.app.notices if n.kind == "undone"]
    assert rig.step("back") == [{"type": "undo", "steps": 1}]
    assert rig.state.hazards == 1
    assert [n.text for n in rig.app.notices if n.kind in ("undone", "recorded")] == ["UNDONE: Ann: 1.1 Template › Hazard token › Car"]
    said = "UNDONE: Ann: 1.1 Template › Hazard token › Car"
    assert rig.page("Ann").alert == pages.footer_pieces(said)[0]  # the chooser's menu page, a piece at a time
    assert any(a.text == "UNDONE: Ann: 1.1 Template › Hazard token › Car" for a in rig.screens.last("Ben").alerts)  # and the others'
    # a decision the camera took, undone with a long BACK together with the token before it
    assert rig.app.apply(Command("choose_template", {"template": "turn"}), source="camera", now=rig.t).accepted
    rig.step("back", long=True)
    undone = [n.text for n in rig.app.notices if n.kind == "undone"]
    assert undone == ["UNDONE: template chosen: turn; Ann: 1.1 Template › Hazard token › Car"], undone


def test_a_recorded_notice_goes_when_a_newer_choice_is_taken(tmp_path: Path) -> None:
    """Gaslands 1.4: "recorded: Cancel… › Cancel HAZARD" stayed in the footer through three gear changes taken
    at the top of the menu (which post no notice), hiding the gear the footer shows."""
    rig = Rig(tmp_path)
    rig.choose("Hazard token", "Car")
    assert [n.text for n in rig.app.notices if n.kind == "recorded"] == ["recorded: Hazard token › Car"]
    rig.step("back")
    assert rig.choose("Turn") == [{"type": "choose_template", "template": "turn"}]
    assert not [n for n in rig.app.notices if n.kind == "recorded"]
    assert rig.page("Ann").alert == ""


def test_dice_typed_with_the_buttons(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("ok")
    rig.step("next")
    assert rig.app.menu().dice is not None and rig.path == ("Roll skid dice",)
    rig.step("ok")  # the roll opens the dice entry on the first face
    assert rig.app.entry is not None and rig.app.entry.current == "SHIFT"
    rig.step("select")  # faces are offered once each: SHIFT, HAZARD, SLIDE, SPIN
    rig.step("ok")
    assert rig.app.entry.entered == ["HAZARD"]
    rig.step("select")
    rig.step("ok")
    rig.step("ok")  # a third die is refused by the entry itself
    assert rig.app.notices[-1].text == "all 2 dice are in: NEXT sends them" and rig.app.entry.entered == ["HAZARD", "SLIDE"]
    assert rig.app.status_text() == "skid dice: HAZARD SLIDE | face SLIDE"
    assert rig.screens.last("Ben").prompt == "Ann: skid check"  # the entry is on the chooser's screen only
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["HAZARD", "SLIDE"]}]
    assert rig.state.hazards == 1 and rig.app.entry is None
    # the hint was about the dice step: it does not stay on into the next one
    assert not [n for n in rig.app.notices if n.text.startswith("all 2 dice are in")]


def test_back_in_the_dice_entry_removes_a_die_then_closes_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.press("ok", "next", "next", "select_long", "ok")  # the entry, SPIN kept
    assert rig.app.entry.entered == ["SPIN"]
    assert rig.step("back") == [] and rig.app.entry.entered == []
    assert rig.step("back") == [] and rig.app.entry is None  # closed: nothing undone
    assert rig.state.step == "roll" and rig.path == ("Roll skid dice",)


def test_the_dice_entry_is_on_the_chooser_screen_and_next_sends_the_roll(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.press("ok", "next", "next")
    expected = pages.DicePage(title="Roll skid dice", label="skid dice", entered=(), count=2, exact=False,
                              current="SHIFT", ready=True, name="skid dice")
    assert rig.page("Ann") == expected
    assert same_image(rig.screens.image("Ann"), pages.render_dice(expected))
    assert isinstance(rig.screens.image("Ben"), Img)
    rig.press("select", "ok", "select_long")
    shown = dataclasses.replace(expected, entered=("HAZARD",), current="SHIFT")
    assert rig.page("Ann") == shown and same_image(rig.screens.image("Ann"), pages.render_dice(shown))
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["HAZARD"]}]
    assert rig.page("Ann").title == "1.1 Template"  # the next step's menu


def test_player_button_acts_only_for_the_chooser(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.step("p2") == []
    assert rig.app.notices[-1].text == "Ann is choosing now, not Ben" and rig.app.notices[-1].player == "Ben"
    assert rig.step("p1") == [{"type": "choose_template", "template": "gentle"}]


# -- what the screens show ---------------------------------------------------------------------------------


def test_the_menu_page_is_on_the_chooser_screen_only(tmp_path: Path) -> None:
    rig = Rig(tmp_path, renderer=plain_render)
    rig.step()
    views = {v.player: v for v in rig.app.screen_views()}
    expected = pages.MenuPage("1.1 Template", (("Gentle", "leaf"), ("Turn", "leaf"), ("Hazard token", "branch"),
                                               ("Table…", "branch")), 0, "Car · 0 haz")
    assert rig.page("Ann") == expected and rig.page("Ben") is None
    ann, ben = rig.screens.image("Ann"), rig.screens.image("Ben")
    assert same_image(ann, pages.render_menu(expected))
    assert not same_image(ann, plain_render("toy", views["Ann"], True))  # not Ann's dashboard
    assert same_image(ben, plain_render("toy", views["Ben"], True))  # Ben keeps his dashboard
    rig.step("select")
    assert rig.page("Ann").cursor == 1 and same_image(rig.screens.image("Ann"), pages.render_menu(rig.page("Ann")))


def test_a_menu_for_anybody_is_on_every_screen(tmp_path: Path) -> None:
    rig = Rig(tmp_path, module=ANYBODYS_TOY)
    rig.step()
    assert rig.screens.shows_page("Ann") and rig.screens.shows_page("Ben")
    assert rig.step("p2") == [{"type": "choose_template", "template": "gentle"}]  # anybody's button takes it


def test_idle_shows_the_dashboard_and_a_press_only_wakes_the_menu(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step("select")
    assert rig.screens.shows_page("Ann") and rig.path == ("Turn",)
    rig.t += MENU_IDLE_S + 1
    rig.step()
    assert rig.screens.last("Ann").player == "Ann" and rig.app.status_text() is None  # the dashboard is back
    assert rig.step("select") == [] and rig.path == ("Turn",)  # only wakes the menu: the cursor did not move
    assert rig.screens.shows_page("Ann")
    rig.t += MENU_IDLE_S + 1
    rig.step()
    assert rig.step("ok") == [] and rig.screens.shows_page("Ann")  # OK too only wakes it
    assert rig.step("ok") == [{"type": "choose_template", "template": "turn"}]
    assert rig.screens.shows_page("Ann")  # a new step shows its menu


def test_back_on_the_dashboard_only_wakes_the_menu_and_undoes_nothing(tmp_path: Path) -> None:
    """An audit (Thunder Road, 4 players): BACK pressed on an idle dashboard undid the player before's move, a
    decision the presser could not see ("UNDONE: Ana: Move › Moved 3" on every screen).  The first BACK only
    brings the menu back; the next, with the menu in view, undoes; a held BACK is a deliberate undo."""
    rig = Rig(tmp_path)
    rig.step("ok", "ok")  # a decision to undo
    decided = rig.app.match.undoable
    assert decided >= 1 and rig.app.back_undoes
    rig.t += MENU_IDLE_S + 1
    rig.step()
    assert not rig.app.menu_shown and not rig.app.back_undoes  # the phone asks nothing of a BACK that only wakes
    assert rig.step("back") == [] and rig.app.match.undoable == decided and rig.app.menu_shown
    assert rig.screens.shows_page("Ann")
    rig.step("back")
    assert rig.app.match.undoable == decided - 1  # in view, BACK at the top undoes


def test_refusal_is_shown_with_the_rules_reason(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step()
    rig.app.apply(Command("choose_template", {"template": "hairpin"}))
    rig.step()
    refusal = rig.app.refusal
    assert refusal is not None and refusal.player == "Ann"
    assert " ".join(line for p in refusal.pages for line in p.lines) == HAIRPIN  # the whole reason
    assert same_image(rig.screens.image("Ann"), pages.render_text(refusal.pages[0]))
    # under the rulebook's words, as the banner says them (an audit: NOT ALLOWED over "not permitted")
    assert {p.title for p in refusal.pages} == {"NOT PERMITTED"}


def test_a_long_refusal_is_paged_and_the_next_press_clears_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.step()
    rig.app.apply(Command("choose_template", {"template": "hairpin"}))
    rig.step()
    first, second = rig.app.refusal.pages[:2]
    assert (first.title, first.page, first.pages) == ("NOT PERMITTED", 1, len(rig.app.refusal.pages)) and first.pages >= 2
    assert same_image(rig.screens.image("Ann"), pages.render_text(first))
    rig.t += REFUSAL_PAGE_S
    rig.step()
    assert same_image(rig.screens.image("Ann"), pages.render_text(second))  # the next page, in time
    # it stands until a press: a refusal of 4 s was gone before a player laying a template looked up (a review)
    rig.t += REFUSAL_PAGE_S * (first.pages - 1) + 25.0
    rig.step()
    assert rig.app.refusal is not None
    k = int((rig.t - rig.app.refusal.since) / REFUSAL_PAGE_S) % first.pages
    assert same_image(rig.screens.image("Ann"), pages.render_text(rig.app.refusal.pages[k]))  # the pages again
    rig.t = rig.app.refusal.since + REFUSAL_PAGE_S * first.pages * 4  # whole rounds later: the first page
    rig.step()
    assert same_image(rig.screens.image("Ann"), pages.render_text(first))
    # the same page is not drawn again at every pass of the loop (a review: every screen's view and picture made
    # ~100 times a second for as long as a refusal stood, a core of a Pi)
    made: list[Any] = []
    views = rig.app.screen_views
    rig.app.screen_views = lambda now=None: made.append(now) or views(now)  # type: ignore[method-assign]
    rig.app.redraw(rig.t)
    made.clear()
    rig.app.redraw(rig.t)
    assert made == []
    rig.app.screen_views = views  # type: ignore[method-assign]
    # read: the next press puts it away, and only that (the menu it hid comes back; its highlighted choice is not
    # taken by the OK that meant "seen")
    assert rig.step("ok") == [] and rig.app.refusal is None
    assert same_image(rig.screens.image("Ann"), pages.render_menu(rig.page("Ann")))
    # with no press at all, a minute gives the screen back
    rig.app.apply(Command("choose_template", {"template": "hairpin"}))
    rig.step()
    assert rig.app.refusal is not None
    rig.t += REFUSAL_STANDS_S + 0.5
    rig.step()
    assert rig.app.refusal is None and rig.page("Ann") is None  # the dashboard (the menu idle too)


def test_the_legend_opens_on_long_next_and_pages_with_select(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    legend = rig.app.legend_pages()
    assert len(legend) >= 2 and all(p.title == "Legend · toy" for p in legend)
    rig.step()
    ben_before = rig.screens.image("Ben")
    assert rig.step("next", long=True) == []
    assert rig.app.legend == 0 and rig.app.status_text() == "legend page 1"
    assert same_image(rig.screens.image("Ann"), pages.render_text(legend[0]))  # the chooser's, who opened it
    # not everybody's: every dashboard was covered until a press, the camera's news going by unseen (a review)
    assert isinstance(rig.screens.image("Ben"), Img)  # Ben's dashboard, as before
    assert rig.screens.image("Ben").tobytes() == ben_before.tobytes()
    rig.step("select")
    assert same_image(rig.screens.image("Ann"), pages.render_text(legend[1]))
    rig.step("select", long=True)
    assert rig.app.legend == 0
    for _ in legend:
        rig.step("select")
    assert rig.app.legend is None and rig.page("Ann").title == "1.1 Template"  # past the last page: closed
    rig.step("next", long=True)
    assert rig.step("ok") == [] and rig.app.legend is None  # any other button closes it, and only closes it
    assert rig.state.step == "pick"
    rig.step("next", long=True)
    rig.t += MENU_IDLE_S + 1  # read, or forgotten: it closes as the menu does
    rig.step()
    assert rig.app.legend is None and not same_image(rig.screens.image("Ann"), pages.render_text(legend[0]))
    assert not rig.screens.shows_page("Ann")


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
    for _ in range(20):  # a beat: lit 1.5 s, then dark
        rig.step()
    blinks = {img.blink for p, img in rig.screens.shown[before:] if p == "Ben"}
    assert blinks == {True, False}


def test_a_display_bank_draws_only_its_players(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.screens.players = ("Ben",)  # type: ignore[attr-defined]
    rig.step()
    assert {p for p, _ in rig.screens.shown} == {"Ben"}


# -- the camera ------------------------------------------------------------------------------------------


def test_settled_dice_reading_becomes_the_roll_once(tmp_path: Path) -> None:
    from device.config import Region

    rig = Rig(tmp_path, camera=True, dice_region=Region(10, 20, 64, 48))
    rig.step("ok")
    rig.step("next")
    # (read in the region and 8 px around it: the reader's pixels are 8 px right and down of the region's)
    rig.reader.dice = [Reading("SPIN", (38, 38)), Reading("HAZARD", (13, 48))]
    assert rig.step() == [] and rig.step() == []  # 2 identical readings: not yet settled
    assert rig.step() == [{"type": "skid_roll", "faces": ["SPIN", "HAZARD"]}]
    assert rig.app.history[-1].source == "camera"
    # what the camera read is on the roller's screen, not only in the log
    assert [(n.text, n.player) for n in rig.app.notices if n.kind == "dice"] == [
        ("camera: SPIN HAZARD", "Ann")]
    assert rig.reader.dice_calls[0] == ((64, 80, 3), "skid")  # read from the tray's region and its margin
    # At the next dice step the same dice lying still are NOT a new roll.
    rig.step("ok")
    rig.step("next")
    for _ in range(5):
        assert rig.step() == []
    rig.reader.dice = []  # tray emptied
    rig.step()
    rig.reader.dice = [Reading("SHIFT", (60, 18))]
    assert [rig.step() for _ in range(3)][-1] == [{"type": "skid_roll", "faces": ["SHIFT"]}]


def test_dice_are_not_read_while_they_are_typed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.press("ok", "next", "next")  # the dice entry is open
    rig.reader.dice = [Reading("SPIN", (30, 30))]
    assert all(rig.step() == [] for _ in range(5))
    assert rig.app.entry is not None


def test_a_die_the_camera_cannot_read_holds_the_roll(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading(None, (90, 90))]
    assert all(rig.step() == [] for _ in range(5))
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading("SLIDE", (90, 90)), Reading("SLIDE", (150, 90))]
    assert all(rig.step() == [] for _ in range(4))  # 3 dice for a 2-dice roll: a notice, no command
    assert rig.app.notices[-1].text == "3 dice on the tray, at most 2 wanted: take 1 off"  # a roll of up to 2
    assert rig.app.notices[-1].player == "Ann"



def test_a_die_the_camera_cannot_read_is_told_to_the_roller_once_it_lies_still(tmp_path: Path) -> None:
    # Seen: a cocked die (or one the camera has not been taught) held the roll without a word: the roller's
    # screen kept "Roll skid dice" and the table waited for a reading that never came.
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading(None, (90, 90))]
    rig.step()  # one frame: the die may still be tumbling, nothing is said
    assert not [n for n in rig.app.notices if "can't read" in n.text]
    for _ in range(4):
        assert rig.step() == []
    told = [n for n in rig.app.notices if "can't read" in n.text]
    assert len(told) == 1 and told[0].player == "Ann"
    # what it reads ("?" the die it cannot), what is wrong, what to do
    assert told[0].text == "camera: SPIN ? - can't read 1 die: lay it flat, or use the buttons"
    since = told[0].since
    for _ in range(60):  # 30 s on, the die still there: still said (said once, it went after a few seconds, the
        rig.t += 0.4  # roll waiting without a word), from when it was first said: its footer pieces go on turning
        rig.step()
    still = [n for n in rig.app.notices if "can't read" in n.text]
    assert len(still) == 1 and still[0].since == since and still[0].until > rig.t
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading("SLIDE", (90, 90))]
    sent = [c for _ in range(4) for c in rig.step()]
    assert sent == [{"type": "skid_roll", "faces": ["SPIN", "SLIDE"]}]


def test_a_die_still_not_read_at_the_next_roll_is_told_again(tmp_path: Path) -> None:
    # Seen: the notice was said once for dice lying in one place; the roller entered that roll with the
    # buttons, and at the next skid check the same cocked die still held the tray without a word.  Those
    # dice are the roll entered (the camera does not take them again): the roller is told so, and to roll.
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")
    rig.step("next")
    rig.reader.dice = [Reading("SPIN", (30, 30)), Reading(None, (90, 90))]
    for _ in range(5):
        rig.step()
    assert len([n for n in rig.app.notices if "can't read" in n.text]) == 1
    rig.app.type_faces(["SPIN"], rig.t, source="button")  # the roll entered with the buttons
    rig.app.apply(Command("choose_template", {"template": "turn"}))
    rig.app.apply(Command("confirm"))  # the next skid check: a new roll
    rig.t += 30  # the first notice is over
    for _ in range(5):
        rig.step()
    told = [n for n in rig.app.notices if n.kind == "dice"]
    assert [(n.text, n.player) for n in told] == [("tray holds the last roll: roll again", "Ann")]
    assert told[0].since > 30

def test_template_seen_on_the_active_vehicle_is_chosen_once(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    t = SimpleNamespace
    rig.reader.table = t(templates=[t(name="hairpin", hand="left", attached_to="car", edge="front"),
                                    t(name="turn", hand="left", attached_to="van", edge="front")], tokens={})
    sent = [rig.step() for _ in range(6)]
    assert [c for s in sent for c in s] == [{"type": "choose_template", "template": "hairpin", "hand": "left",
                                            "edge": "front"}]  # refused, and not sent again while it lies there
    assert rig.app.history[-1].outcome.reason == HAIRPIN
    assert rig.app.refusal is not None and rig.app.refusal.player == "Ann"  # shown to the chooser
    rig.reader.table = t(templates=[t(name="gentle", hand="right", attached_to="car", edge="front")], tokens={})
    sent = [c for s in (rig.step() for _ in range(3)) for c in s]
    assert sent == [{"type": "choose_template", "template": "gentle", "hand": "right", "edge": "front"}]
    assert rig.state.step == "place" and rig.app.refusal is None  # an accepted command clears the refusal


def test_templates_are_not_read_where_the_menu_takes_none(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    rig.step("ok")  # 1.2: the menu has no template hook
    t = SimpleNamespace
    rig.reader.table = t(templates=[t(name="turn", hand="left", attached_to="car", edge="front")], tokens={})
    assert all(rig.step() == [] for _ in range(6))
    assert rig.state.step == "place"


def test_the_active_cars_tag_of_the_wrong_size_is_named_on_its_players_screen(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    t = SimpleNamespace
    lying = [t(name="turn", hand="left", attached_to=None, edge=None)]  # laid, but against no car seen
    rig.reader.table = t(cars=[], templates=lying, tokens={},
                         misfits=[t(tag_id=12, what="car car", car_id="car", measured_mm=15.2, printed_mm=20.0,
                                    centre_px=(300.0, 200.0))])
    for _ in range(2):
        assert rig.step() == [] and not rig.app.notices  # not before it has held for 3 frames
    assert rig.step() == []
    text = "car not seen: the tag on Car reads 15 mm, not 20"  # the vehicle as the screens name it
    ann, ben = rig.app.screen_views()
    assert [a.text for a in ann.alerts if a.kind == "car_unseen"] == [text]
    assert not [a for a in ben.alerts if a.kind == "car_unseen"]  # the active player's screen only
    # on the menu page the footer line holds it a piece at a time, from its first: every word shown in turn
    assert rig.page("Ann").alert == pages.footer_pieces(text)[0]
    shown: list[str] = []
    for _ in range(100):
        piece = rig.page("Ann").alert
        if not shown or shown[-1] != piece:
            shown.append(piece)
        rig.step()
    from device.dashboards.common import text_width

    pieces = pages.footer_pieces(text)
    assert len(pieces) > 1 and pages.unpieced(pieces) == text  # nothing of it left out
    assert all(text_width(p, pages.BODY_SIZE) <= pages.FOOTER_WIDTH for p in pieces)  # none cut, none cramped
    # each shown, then the footer's own line (the notice stands until its cause goes), and round again
    assert set(shown) == {*pieces, ""} and len(shown) > len(pieces) + 1
    # its tag hidden instead: the template lies there, attached to no car
    rig.reader.table = t(cars=[], templates=lying, tokens={}, misfits=[])
    for _ in range(3):
        rig.step()
    assert [a.text for a in rig.app.screen_views()[0].alerts if a.kind == "car_unseen"] == [
        "car not seen: Is the tag on Car covered?"]
    rig.reader.table = t(cars=[t(id="car")], templates=[t(name="gentle", hand="right", attached_to="car",
                                                          edge="front")], tokens={}, misfits=[])
    sent = [c for s in (rig.step() for _ in range(3)) for c in s]
    assert sent == [{"type": "choose_template", "template": "gentle", "hand": "right", "edge": "front"}]
    assert not [a for a in rig.app.screen_views()[0].alerts if a.kind == "car_unseen"]  # seen: the notice goes


def test_car_not_seen_goes_as_soon_as_the_step_takes_no_template(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=50)  # the table is read again only at the template step
    t = SimpleNamespace
    rig.reader.table = t(cars=[], templates=[t(name="turn", hand="left", attached_to=None, edge=None)],
                         tokens={}, misfits=[])
    for _ in range(3):
        rig.step()
    assert [n.kind for n in rig.app.notices] == ["car_unseen"]
    rig.step("ok")  # the template is chosen by hand: the next step (placing it) takes no template
    assert rig.state.step == "place" and not rig.app.notices


def test_car_not_seen_goes_with_the_camera(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True)
    t = SimpleNamespace
    rig.reader.table = t(cars=[], templates=[t(name="turn", hand="left", attached_to=None, edge=None)],
                         tokens={}, misfits=[])
    for _ in range(3):
        rig.step()
    assert [n.kind for n in rig.app.notices] == ["car_unseen"]
    rig.tray.unplugged = True
    rig.step()
    assert [n.kind for n in rig.app.notices] == ["camera_down"]  # the camera sees no car now: nothing to say


def test_hazard_count_mismatch_is_an_alert_not_a_command(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 2, "p2": 0, "tray": None})
    records = len(rig.match.records)
    for _ in range(3):
        rig.step()
    assert len(rig.match.records) == records
    text = "Car: 2 hazard tokens seen, log 0 (hold OK)"
    ann, ben = rig.app.screen_views()
    assert [a.text for a in ann.alerts if a.kind == "hazard_mismatch"] == [text]
    assert text.startswith(rig.page("Ann").alert.removesuffix("…")) and rig.page("Ann").alert  # on the menu page
    # over her dashboard, a piece at a time ("…": it goes on)
    assert rig.app._alert_text("Ann", ann)[0] == text  # once (the notice is among the view's alerts too)
    assert not ben.alerts and not rig.screens.last("Ben").alerts
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 0, "p2": 0})
    for _ in range(3):
        rig.step()
    assert not rig.app.screen_views()[0].alerts and rig.page("Ann").alert == ""


def test_a_player_with_no_token_zone_is_told_on_their_own_screen(tmp_path: Path) -> None:
    """The camera counts Ann's tokens (her car's zone) and never Ben's: Ben is told, on his screen, for a while."""
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 0})
    for _ in range(3):
        rig.step()
    text = "HAZARDS: the camera does not count Ben's hazard tokens (no token zone p2 on the table): enter them with the menu"
    assert [(n.kind, n.player, n.text) for n in rig.app.notices] == [("token_zone", "Ben", text)]
    pieces = []
    for _ in range(140):  # on Ben's screen, a piece at a time, each under its title; never on Ann's
        rig.step()
        assert rig.page("Ann").alert == ""  # her menu page (her step)
        pieces += [a.text for a in rig.screens.last("Ben").alerts if a.text not in pieces]
    assert len(pieces) > 1 and pieces[0].endswith("…") and pieces[1].startswith("HAZARDS: …")  # it goes on
    assert pages.unpieced([p.removeprefix("HAZARDS: ") for p in pieces]) == text.removeprefix("HAZARDS: ")
    for _ in range(120):  # 26 s later: gone (each piece was seen), and not said again at every read of the table
        rig.step()
    assert not rig.app.screen_views()[1].alerts


def test_a_hazard_count_read_again_and_again_pages_through_all_its_words(tmp_path: Path) -> None:
    """Posted again (withdrawn and posted whole) at every read of the table, every half second, the count's
    footer began again each time: over 12 s only "Car: 2 hazard tokens" was seen, never "seen, log 0 (hold
    OK)".  A standing notice posted again in the same words keeps its start."""
    rig = Rig(tmp_path, camera=True)  # the table read every fifth frame, as at the table
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 2, "p2": 0})
    seen = set()
    for _ in range(120):
        rig.step()
        seen.add(rig.page("Ann").alert)
    assert {"Car: 2 hazard tokens…", "…seen, log 0 (hold OK)"} <= seen


def test_long_ok_adds_the_extra_tokens_the_camera_counted(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"p1": 3, "p2": 1})  # seat zones; Ben has none logged
    for _ in range(3):
        rig.step()
    assert {(m.zone, m.vehicle, m.table, m.log) for m in rig.app.mismatches} == {("p1", "car", 3, 0), ("p2", "van", 1, 0)}
    sent = rig.step("ok", long=True)
    # Ann's long OK enters Ann's zone: Ben's van's token is Ben's to see and to enter (it was entered too)
    assert sent == [{"type": "gain_hazard", "vehicle": "car", "count": 3, "cause": "tokens counted on the table"}]
    assert rig.state.hazards == 3 and rig.app.refusal is None
    rig.reader.table = SimpleNamespace(templates=[], tokens={"p1": 3, "p2": 0})
    for _ in range(3):
        rig.step()
    assert rig.app.mismatches == []
    assert rig.step("ok", long=True) == []
    assert rig.app.notices[-1].text == "no extra hazard tokens to add"


def test_long_ok_adds_no_tokens_where_the_menu_takes_none(tmp_path: Path) -> None:
    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.step("ok")  # 1.2: the menu has no hazards hook
    rig.reader.table = SimpleNamespace(templates=[], tokens={"p1": 2})
    for _ in range(3):
        rig.step()
    assert rig.app.mismatches
    assert rig.step("ok", long=True) == []
    assert "hazard tokens are added during an activation" in [n.text for n in rig.app.notices if n.kind == "info"]


def test_camera_down_means_manual_entry_and_a_notice_then_recovery(tmp_path: Path) -> None:
    journal: list[str] = []
    rig = Rig(tmp_path, camera=True, log=journal.append)
    rig.step()
    rig.tray.unplugged = True
    rig.step()
    down = Alert("camera_down", "CAMERA OFF: enter dice with the buttons", None)
    assert down in rig.screens.last("Ben").alerts
    # Ann's menu page says it too, in its footer line a piece at a time (it was cut to "CAMERA OFF: enter
    # dice wi…" before)
    pieces = pages.footer_pieces(down.text)
    assert rig.page("Ann").alert in pieces and pages.unpieced(pieces) == down.text
    assert rig.app.camera_message == "the camera gave no frame (unplugged)"
    rig.step("ok")
    rig.step("next")
    rig.step("next")  # the roll's dice entry
    rig.step("ok")
    assert rig.step("next") == [{"type": "skid_roll", "faces": ["SHIFT"]}]
    rig.tray.unplugged = False
    for _ in range(12):  # the reopen backoff is 1 s, then 2 s ...
        rig.step()
    kinds = [a.kind for a in rig.screens.last("Ben").alerts]
    assert "camera_down" not in kinds and "camera_back" in kinds
    # the journal says why it was lost (the screens only "CAMERA OFF"; the cause stayed in camera_message)
    assert journal[0].startswith("camera lost: the camera gave no frame (unplugged);") and journal[-1] == "camera back"


class StillReader(FakeReader):
    """A reader that watches the tray for motion: dice are read only when it is still, and once per stillness."""

    def __init__(self) -> None:
        super().__init__()
        self.still: list[bool] = []

    def tray_still(self, image: np.ndarray) -> bool:
        return self.still.pop(0) if self.still else True


def test_dice_are_read_only_when_the_tray_is_still_and_once_while_it_stays_still(tmp_path: Path) -> None:
    reader = StillReader()
    rig = Rig(tmp_path, camera=True, reader=reader)
    rig.step("ok")
    reader.dice = [Reading("SLIDE", (50, 50))]
    reader.still = [False, False, False, False]
    rig.step("next")  # the dice prompt begins: this step's frame already goes to the tray watcher
    assert [rig.step() for _ in range(3)] == [[], [], []]
    assert reader.dice_calls == []  # dice in motion are never read
    sent = [c for _ in range(3) for c in rig.step()]
    assert sent == [{"type": "skid_roll", "faces": ["SLIDE"]}]
    assert len(reader.dice_calls) == 1  # read once, then the still tray's reading was reused


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


# -- the store ---------------------------------------------------------------------------------------------


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


def test_a_store_that_cannot_write_is_shown_and_the_game_is_unchanged(tmp_path: Path) -> None:
    from device.store import StoreError

    rig = Rig(tmp_path)

    def broken(decision: int, events: Any) -> Any:
        raise StoreError("could not write to the game log: disk full; nothing of this step was recorded")

    sink = rig.match._sink
    rig.match._sink = broken  # the disk fills up mid-game
    before = rig.state
    assert rig.step("ok") == [{"type": "choose_template", "template": "gentle"}]
    assert rig.state == before
    assert rig.app.history[-1].outcome.reason.startswith("NOT RECORDED: could not write")
    refusal = rig.app.refusal
    assert refusal is not None and refusal.player == "Ann" and refusal.pages[0].title == "NOT RECORDED"
    assert " ".join(line for p in refusal.pages for line in p.lines).startswith("could not write to the game log")
    assert same_image(rig.screens.image("Ann"), pages.render_text(refusal.pages[0]))
    # every screen says it until a step is recorded again (the sender's refusal goes in seconds)
    assert [n.player for n in rig.app.notices if n.kind == "not_recorded"] == [None]
    rig.match._sink = sink
    assert rig.step("ok") == [{"type": "choose_template", "template": "gentle"}]
    assert rig.state != before and not [n for n in rig.app.notices if n.kind == "not_recorded"]


def test_a_full_disk_is_said_in_a_few_words_on_the_screens_and_whole_in_the_journal(tmp_path: Path, caplog) -> None:
    """The players' screen showed the whole of the store's message: "the disk holding
    /var/lib/pitboard/games.sqlite is full (database or disk is full): recording this step failed. Nothing
    was changed; free some space and try again", four pages on the sender's screen only."""
    from device.store import StoreError

    rig = Rig(tmp_path)
    whole = ("the disk holding /var/lib/pitboard/games.sqlite is full (database or disk is full): recording this "
             "step failed. Nothing was changed; free some space and try again")

    def full(decision: int, events: Any) -> Any:
        raise StoreError(whole, short="the disk is full: free some space, then try again")

    rig.match._sink = full
    with caplog.at_level("WARNING", logger="pitboard.app"):
        rig.step("ok")
    refusal = rig.app.refusal
    assert refusal is not None and len(refusal.pages) == 1
    assert " ".join(refusal.pages[0].lines) == "the disk is full: free some space, then try again"
    assert [n.text for n in rig.app.notices] == ["NOT RECORDED: the disk is full: free some space, then try again"]
    assert any(whole in r.getMessage() for r in caplog.records)


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


def test_render_page_draws_each_kind_of_page() -> None:
    menu = pages.MenuPage("T", (("A", "leaf"),), 0)
    dice = pages.DicePage("T", "d6", (), 1, True, "1", False)
    text = pages.text_pages("T", "words")[0]
    assert same_image(render_page(menu, True), pages.render_menu(menu))
    assert same_image(render_page(dice, True), pages.render_dice(dice))
    assert same_image(render_page(text, True), pages.render_text(text))


@pytest.mark.skipif(importlib.util.find_spec("games.gaslands") is None, reason="Gaslands engine not present")
def test_gaslands_through_the_loop(tmp_path: Path) -> None:
    from games import game_package

    module = game_package("gaslands")
    store = Store(tmp_path / "g.sqlite")
    _, match, _ = open_match(store, module, setup_options(module, None))
    buttons, screens = ScriptedButtons(), Screens()
    app = App(module, match, buttons=buttons, displays=screens, clock=lambda: 0.0, render=render)
    if match.prompt().awaits == "vehicle":
        buttons.press("ok")
        app.step()
    assert match.prompt().awaits == "template" and app.menu().advance == ()  # a decision: NEXT does not guess
    buttons.press("ok")  # the Straights open ...
    app.step()
    buttons.press("ok")  # ... on the Short one
    app.step()
    assert app.history[-1].command.type == "choose_template" and app.history[-1].outcome.accepted
    buttons.press("next")  # Template placed
    app.step()
    assert match.prompt().awaits == "dice" and app.menu().dice is not None
    app.type_faces(["SHIFT"])
    assert app.history[-1].outcome.accepted
    assert match.prompt().awaits == "shift"
    paths = {lf.path for lf in leaves(app.menu().choices)}
    assert ("Gear up · +1 hazard",) in paths
    assert app.chooser() is not None and screens.shows_page(app.chooser())
    store.close()


def test_a_standing_alert_of_the_game_lets_the_footer_line_take_its_turn(tmp_path: Path, monkeypatch) -> None:
    """A game's alert stands as long as its cause (a Fire die to roll, exhaustion cards to count): it took
    the menu page's footer for the whole step, so the line under it (the vehicle's gear and hazards, the
    rider whose cards are counted) was never seen.  The alert and the line now take turns."""
    rig = Rig(tmp_path)
    rig.press("ok")  # the menu is shown
    status = rig.page("Ann").footer
    assert status
    monkeypatch.setattr(rig.app, "_alert_text", lambda player, view: ("roll the Fire die for Small car", 0.0, True))
    seen = set()
    for k in range(8):
        rig.t = 100.0 + k * ALERT_PIECE_S
        page = rig.page("Ann")
        seen.add(page.alert)
        assert page.footer == status
    # in pieces at 9 px and up (8 px read "lhe Fire"), not cut after "for" (common.LEADING_WORDS)
    assert seen == {"roll the Fire die…", "…for Small car", ""}
    # a notice posted for a while keeps the footer until it goes
    monkeypatch.setattr(rig.app, "_alert_text", lambda player, view: ("camera: SPIN", 99.0, False))
    for t in (100.0, 102.0, 104.0):
        rig.t = t
        assert rig.page("Ann").alert == "camera: SPIN"


def test_a_notice_standing_until_its_cause_goes_lets_the_footer_line_take_its_turn(tmp_path: Path) -> None:
    """CAMERA OFF, a hazard count that differs from the log, a car the camera cannot see, a damaged
    file: notices that stand until their cause goes held the chooser's footer for the rest of the game,
    so the line under it (the vehicle's gear and hazards) was never seen again.  They take turns now."""
    rig = Rig(tmp_path)
    rig.press("ok")  # the menu is shown
    status = rig.page("Ann").footer
    rig.app.notify("camera_down", "CAMERA OFF: enter dice with the buttons", None, until=None, now=rig.t)
    seen = set()
    start = rig.t
    for k in range(8):
        rig.t = start + k * ALERT_PIECE_S
        page = rig.page("Ann")
        seen.add(page.alert)
        assert page.footer == status
    assert seen == {"CAMERA OFF: enter…", "…dice with the buttons", ""}  # the footer's pieces, then its line


def test_a_plan_made_while_the_dashboard_shows_counts_the_press_that_brings_the_menu_back(tmp_path: Path) -> None:
    """After MENU_IDLE_S without a press the chooser's screen shows the dashboard again, and the first
    SELECT or OK only brings the menu back: a plan made then landed one choice off."""
    rig = Rig(tmp_path)
    rig.t += MENU_IDLE_S + 1
    rig.step()
    assert not rig.app.menu_shown
    leaf = rig.app.menu().choices[1]
    keys = rig.app.plan((leaf.label,))
    assert keys is not None and keys[0] == "select"
    sent = rig.press(*keys)
    assert sent and sent[-1] == leaf.command.to_json()


def test_a_plan_that_begins_with_a_held_select_counts_the_wake_up_press_too(tmp_path: Path, monkeypatch) -> None:
    """An audit: a plan whose first key was a held SELECT, made while the dashboard showed, had its held SELECT
    swallowed by the wake-up and landed a level off (another car's damage recorded)."""
    import device.app as app_module

    rig = Rig(tmp_path)
    rig.t += MENU_IDLE_S + 1
    rig.step()
    monkeypatch.setattr(app_module, "plan", lambda cursor, path, reopened=False: ["select_long", "ok"])
    assert rig.app.plan(("anything",)) == ["select", "select_long", "ok"]
    monkeypatch.setattr(app_module, "plan", lambda cursor, path, reopened=False: ["back", "ok"])
    assert rig.app.plan(("anything",)) == ["select", "back", "ok"]



def test_a_roll_that_asks_for_another_keeps_the_first_in_view_and_says_next_goes_on(tmp_path: Path) -> None:
    """Seen (Thunder Road's bump: the bump die, then the direction die): the hint said "NEXT send" where NEXT
    opened the direction die, and then the bump die kept was nowhere on the screen, so the roll could not be
    checked before it was sent."""
    rig = Rig(tmp_path)
    rig.step()
    second = DiceRequest("d6", 1, "the direction die", lambda d: Command("confirm", {"direction": d[0]}))
    rig.app.open_entry(DiceRequest("d6", 1, "the bump die", lambda b: second), trail=("Roll bump dice",))
    rig.press("select", "select", "ok")  # a 3 kept
    page = rig.page("Ann")
    assert page.ready and page.then_another and page.kept == ""
    assert same_image(rig.screens.image("Ann"), pages.render_dice(page))
    rig.step("next")
    page = rig.page("Ann")
    assert page.label == "the direction die" and page.kept == "bump die 3" and not page.then_another
    rig.press("ok")
    assert not rig.page("Ann").then_another  # the last roll: NEXT sends


def test_a_long_alert_of_the_game_begins_with_its_first_piece(tmp_path: Path, monkeypatch) -> None:
    """Seen: the Fire die's "roll the Fire die for Large car" first showed as "car": the game's own alerts
    were paged from time 0, so a long one began wherever the clock happened to be."""
    rig = Rig(tmp_path)
    rig.press("ok")  # the menu is shown
    text = "a long alert of the game: roll the Fire die for Large car, then move it"
    pieces = pages.footer_pieces(text)
    assert len(pieces) >= 3
    for start in (37.3, 100.0 + ALERT_PIECE_S * 1.5):
        monkeypatch.setattr(rig.app, "_alert_text", lambda player, view, t=f"{text} ({start})": (t, 0.0, True))
        rig.t = start
        first = rig.page("Ann").alert
        assert first == pages.footer_pieces(f"{text} ({start})")[0], (start, first)


def test_a_long_ok_leaves_the_words_of_a_zone_not_counted(tmp_path: Path) -> None:
    """(from review) A long OK withdrew every hazard notice, "not counted" too, and with no zone countable
    they came back only at the next step."""
    from device.camera_input import UNCLEAR_S

    rig = Rig(tmp_path, camera=True, table_every=1)
    rig.reader.table = SimpleNamespace(templates=[], tokens={"car": 2, "p2": None})
    for _ in range(int(UNCLEAR_S / 0.1) + 5):
        rig.step()
    words = "Ben: hazard tokens not counted: is their zone covered?"
    assert words in [n.text for n in rig.app.notices]
    rig.app.accept_table_hazards(rig.clock())  # Ann's long OK: her 2 tokens entered
    assert rig.state.hazards == 2
    assert words in [n.text for n in rig.app.notices]  # at once, not at the next reading (or step)


def test_a_command_sent_for_another_player_is_refused_on_that_players_screen(tmp_path: Path) -> None:
    """An audit (Thunder Road, from a phone): Ben's die assigned during Ana's turn was refused on Ana's screen,
    "it is Ana's turn, not Ben's", and Ben's screen said nothing.  The refusal goes to the player the command
    names when that player is at the table; a command naming nobody is refused on the screen of whose step it was."""
    from games import game_package

    module = game_package("thunder_road")
    setup = {"players": [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}], "board": {"tiles": 5, "on_board": 3}}
    _, match, _ = open_match(Store(tmp_path / "g.sqlite"), module, setup)
    app = App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.1)
    app.step(0.1)
    for player, dice in (("Ana", [1, 3, 4, 6]), ("Ben", [2, 2, 5, 6]), ("Cy", [1, 1, 2, 2])):
        assert app.apply(Command("roll", {"player": player, "dice": dice}), source="web").accepted
    out = app.apply(Command("assign", {"player": "Ben", "vehicle": "small", "die": 2}), source="web")
    assert not out.accepted and "it is Ana's turn, not Ben's" in (out.reason or "")
    assert app.refusal is not None and app.refusal.player == "Ben"
    out = app.apply(Command("assign", {"player": "Zed", "vehicle": "small", "die": 2}), source="web")
    assert not out.accepted and app.refusal is not None and app.refusal.player == "Ana"  # Zed is at no seat


def test_a_refusal_for_a_player_with_no_screen_is_drawn_on_the_screens_there_are(tmp_path: Path) -> None:
    """A review of the OLEDs: a refusal goes to the player it concerns ("PRESS NOT TAKEN" to the step before's
    chooser, a phone's command to the player it names), and a player with no [[screens]] who was not the chooser
    had it drawn on no screen at all."""
    from types import SimpleNamespace

    from device.app import Refusal

    class AnnsScreenOnly(Screens):
        def status(self) -> dict[str, Any]:
            return {"Ann": SimpleNamespace(state="up")}

    rig = Rig(tmp_path)
    rig.screens = rig.app.displays = AnnsScreenOnly()
    rig.step()
    assert rig.app.chooser() == "Ann"
    said = pages.text_pages("PRESS NOT TAKEN", "the camera moved the game on while the button was down; look, "
                                               "then press again")
    rig.app.refusal = Refusal("Ben", tuple(said), rig.t)  # Ben: no screen of his own, and not choosing now
    rig.app.redraw(rig.t, force=True)
    assert same_image(rig.screens.image("Ann"), pages.render_text(said[0]))
