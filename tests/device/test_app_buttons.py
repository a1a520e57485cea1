"""Every game played with the button panel alone: the game's menu offers each legal choice, the buttons walk it.

The real rules of Gaslands and Thunder Road run through :class:`device.app.App` with scripted buttons; the
only commands sent are the ones the buttons make (no camera, no typed script lines).  A choice is named by
its path in the menu ("Hit", "The Brick") and reached with the presses :func:`device.menus.plan` gives.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from device.app import App, Refusal, open_match
from device.buttons import PressKind, ScriptedButtons
from device.dashboards.pages import DicePage, dice_count, text_pages
from device.store import Store
from games import game_package
from games.core import Command
from games.core.table_input import FIRST_LEVEL_MAX, leaves


class Screens:
    def show(self, player: str, image: Any) -> bool:
        return True


def _render(game: str, view: Any, blink: bool) -> Any:
    class Img:
        def tobytes(self) -> bytes:
            return repr((view, blink)).encode()

    return Img()


class Panel:
    """An app around a real game, driven by presses only."""

    def __init__(self, tmp_path: Path, game: str, setup: dict[str, Any] | None = None) -> None:
        self.module = game_package(game)
        options = setup if setup is not None else tomllib.loads(self.module.EXAMPLE_SETUP)
        self.store = Store(tmp_path / f"{game}.sqlite")
        _, self.match, _ = open_match(self.store, self.module, options)
        self.buttons = ScriptedButtons()
        self.app = App(self.module, self.match, buttons=self.buttons, displays=Screens(), clock=lambda: 0.0,
                       render=_render)

    def press(self, *names: str) -> list[dict[str, Any]]:
        """One press per loop iteration; ``select_long`` is a long SELECT."""
        sent = []
        for name in names:
            long = name.endswith("_long")
            self.buttons.press(name.removesuffix("_long"), PressKind.LONG if long else PressKind.SHORT)
            sent += [a.command.to_json() for a in self.app.step()]
        return sent

    @property
    def top(self) -> list[str]:
        """The labels of the menu's first level."""
        return [c.label for c in self.app.menu().choices]

    @property
    def paths(self) -> set[tuple[str, ...]]:
        """Every leaf of the menu (a command or a roll), by its labels from the top."""
        return {lf.path for lf in leaves(self.app.menu().choices)}

    def under(self, *branch: str) -> list[str]:
        """The labels of the list under ``branch``."""
        choices = self.app.menu().choices
        for label in branch:
            choices = next(c for c in choices if c.label == label).children
        return [c.label for c in choices]

    @property
    def highlighted(self) -> tuple[str, ...]:
        assert self.app.cursor is not None
        return self.app.cursor.path

    def go(self, *path: str) -> list[dict[str, Any]]:
        """Walk to ``path`` from where the cursor is and take it (a roll: its dice entry opens)."""
        keys = self.app.plan(path)
        assert keys is not None, f"{path} not offered: {sorted(self.paths)}"
        return self.press(*keys)

    def choose(self, *path: str) -> dict[str, Any]:
        """:meth:`go` to a command; returns the command sent (which must be accepted)."""
        before = len(self.app.history)
        self.go(*path)
        sent = self.app.history[before:]
        assert len(sent) == 1 and sent[0].outcome.accepted, [(a.command, a.outcome) for a in sent]
        return sent[0].command.to_json()

    def type_dice(self, *rolls: list[Any]) -> list[dict[str, Any]]:
        """Dice entered with the buttons: SELECT to each face, OK keeps it, NEXT sends the roll — one list of
        faces per entry (a roll may ask for a second one: a bump die, then the direction die).  The entry
        is opened with NEXT (the step's roll) when none is open."""
        if self.app.entry is None:
            self.press("next")
        before = len(self.app.history)
        for faces in rolls:
            entry = self.app.entry
            assert entry is not None, f"no dice entry is open for {faces}"
            for face in faces:
                assert face in entry.faces, (face, entry.faces)
                while entry.current != face:
                    self.press("select")
                self.press("ok")
            self.press("next")
        return [a.command.to_json() for a in self.app.history[before:] if a.outcome.accepted]

    def top_next(self) -> list[dict[str, Any]]:
        """BACK up to the top level (never as far as an undo), then NEXT: the step's usual choice."""
        while self.app.cursor is not None and self.app.cursor.trail:
            assert self.press("back") == []
        return self.press("next")

    def every_choice_is_legal(self) -> None:
        for lf in leaves(self.app.menu().choices):
            if lf.choice.command is not None and not lf.choice.recorded_refusal:
                assert self.match.propose(lf.choice.command).refused is None, lf.path

    def close(self) -> None:
        self.store.close()


@pytest.fixture(autouse=True)
def _data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))


# -- Gaslands -----------------------------------------------------------------------------------------------


def _to_template_step(g: Panel) -> None:
    if g.match.prompt().awaits == "vehicle":
        g.press("ok")
    assert g.match.prompt().awaits == "template"
    assert g.app.menu().advance == ()  # which template is a decision: NEXT does not guess


def test_gaslands_templates_offer_each_hand_and_the_rear_edge_in_gear_1(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_template_step(g)
    assert "gear 1" in g.match.prompt().text
    # a template's icon in this gear after its name ("trivial (gives one free SHIFT result) or hazardous (the
    # vehicle gains one extra hazard token)"): the shipped chart's Turn is trivial in gear 1, hazardous in gear 4
    assert g.top == ["Straights", "Gentle", "Turn · trivial", "Hard", "Veer", "Swerve", "Hairpin", "Table…"]
    assert len(g.top) <= FIRST_LEVEL_MAX
    assert g.under("Straights") == ["Short", "Medium", "Long", "Short, reverse", "Medium, reverse", "Long, reverse"]
    assert g.under("Gentle") == ["Left", "Right", "Left, reverse", "Right, reverse"]  # reversing is listed last
    # (a path without the icon, as scripts and the demo give it, finds the choice)
    assert g.choose("Turn", "Right, reverse") == {"type": "choose_template", "template": "turn", "hand": "right",
                                                  "edge": "rear"}
    assert g.match.state.activation.hand == "right" and g.match.state.activation.edge == "rear"
    assert g.app.menu().status.startswith("place: Turn, right, reverse · trivial")  # 1.2 says it too
    g.close()


def test_gaslands_a_touched_template_not_permitted_is_recorded_with_the_buttons(tmp_path: Path) -> None:
    """"If they pick a template that is not permitted, the player on their left chooses and places any permitted
    template for that vehicle; the active vehicle then may not roll skid dice."  The buttons listed permitted
    templates only: a table without the camera could not record the pick.  (An owner's chart bars the Hairpin
    in gear 1 here; the shipped chart leaves gear 1 unknown.)"""
    options = tomllib.loads(game_package("gaslands").EXAMPLE_SETUP)
    options["chart"] = {"hairpin": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    g = Panel(tmp_path, "gaslands", options)
    _to_template_step(g)
    assert "Hairpin" not in g.top and len(g.top) <= FIRST_LEVEL_MAX
    assert g.under("Not permitted…") == ["Hairpin"]
    before = len(g.app.history)
    g.go("Not permitted…", "Hairpin")
    sent = g.app.history[before:]
    assert [a.command.to_json() for a in sent] == [{"type": "choose_template", "template": "hairpin"}]
    assert not sent[0].outcome.accepted and "Touch-move: Bob (on the left) picks" in sent[0].outcome.reason
    assert g.app.refusal is not None  # its whole reason on the sender's screen
    assert g.match.state.activation.touch_move and g.match.prompt().player == "Bob"
    assert "Not permitted…" not in g.top  # Bob picks a permitted one
    # undone and picked again: the touch-move is a decision recorded, the undo history (a review: "UNDONE: … ›
    # Not permitted… › Hairpin" stood over it, as a refusal recorded nothing); Alice's, at Bob's step: BACK twice
    assert g.press("back") == [] and g.app.notices[-1].text.startswith("BACK again to undo Alice: 1.1 Template")
    g.press("back")
    # in the menu's words, as Alice took it (an audit: "UNDONE: Rust Bucket: template refused: hairpin, gear 1,
    # picker Bob, reason Hairpin is not permitted in gear 1")
    assert [n.text for n in g.app.notices if n.kind == "undone"] == ["UNDONE: Alice: 1.1 Template › Not permitted… "
                                                                     "› Hairpin"]
    g.go("Not permitted…", "Hairpin")
    assert g.match.state.activation.touch_move and not [n for n in g.app.notices if n.kind == "undone"]
    g.close()


def test_gaslands_the_pickers_press_is_not_spent_on_the_owners_refusal(tmp_path: Path) -> None:
    """A screens walkthrough, five players: the owner's NOT PERMITTED stood on her screen; the picker's first SELECT,
    at his own menu, only put it away, and his SELECT, OK, OK meant for Gentle › Left recorded Short Straight.  A
    refusal read is put away by the next press, which spends it only where the refusal stood over its menu."""
    options = tomllib.loads(game_package("gaslands").EXAMPLE_SETUP)
    options["chart"] = {"hairpin": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    g = Panel(tmp_path, "gaslands", options)
    _to_template_step(g)
    g.go("Not permitted…", "Hairpin")
    assert g.app.refusal is not None and g.app.refusal.player == "Alice" and g.app.chooser() == "Bob"
    g.app.clock = lambda: 60.0  # Alice's reason stood long enough to be read
    at = g.highlighted
    g.press("select")
    assert g.app.refusal is None and g.highlighted != at  # put away, and Bob's cursor moved
    # on the chooser's own screen, the press that puts a read refusal away is not also the menu's; nor on every
    # screen, its player's own missing (drawn over Bob's menu too)
    for whose, screenless in (("Bob", set()), ("Alice", {"Alice"})):
        g.app._screenless = lambda p, none=screenless: p in none  # type: ignore[method-assign]
        g.app.refusal = Refusal(whose, tuple(text_pages("NOT ALLOWED", "not now")), 0.0)
        assert g.app.page_for("Bob", None, 60.0, True) is not None  # drawn on Bob's screen
        at = g.highlighted
        g.press("select")
        assert g.app.refusal is None and g.highlighted == at, whose
    g.close()


def test_gaslands_a_game_alert_too_long_for_its_banner_turns_its_pieces(tmp_path: Path) -> None:
    """A screens audit, five players: the owner's NOT PERMITTED of a touch-move stood as "Hairpin in gear 1.
    Bartholomew picks for y…" for the whole touch-move, its end never shown; the game's own alerts now turn their
    pieces on the alerts' beat, as news does, from when the screen first showed them."""
    from device.app import ALERT_PIECE_S

    options = tomllib.loads(game_package("gaslands").EXAMPLE_SETUP)
    options["chart"] = {"hairpin": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    options["players"][1]["name"] = "Bartholomew"
    g = Panel(tmp_path, "gaslands", options)
    _to_template_step(g)
    g.go("Not permitted…", "Hairpin")
    (whole,) = [a.text for v in g.match.views() if v.player == "Alice" for a in v.alerts if a.kind == "illegal_template"]
    assert whole.endswith("Bartholomew picks for you"), whole

    def shown(now: float) -> str:
        (alice,) = [v for v in g.app.screen_views(now) if v.player == "Alice"]
        return next(a.text for a in alice.alerts if a.kind == "illegal_template")

    pieces = [shown(k * ALERT_PIECE_S) for k in range(4)]
    # cut after the sentence, not before a last word alone ("…you": common.clause_pieces)
    assert pieces[0] == "Hairpin in gear 1.…" and pieces[1] == "…Bartholomew picks for you", pieces
    assert pieces[2:] == pieces[:2]  # and round again while it stands
    g.close()


def test_gaslands_a_camera_roll_undone_is_said_without_the_logs_brackets(tmp_path: Path) -> None:
    """An audit: BACK after the camera's skid dice said "UNDONE: Rust Bucket: skid rolled: faces [SHIFT, SPIN,
    HAZARD]", and one piece of it on a dashboard's banner read "HAZARD]"."""
    g = Panel(tmp_path, "gaslands")
    _to_template_step(g)
    g.choose("Straights", "Short")
    g.press("next")  # 1.2 Template placed
    assert g.match.prompt().awaits == "dice"
    assert g.app.apply(Command("skid_roll", {"faces": ["SHIFT", "SPIN", "HAZARD"]}), source="camera").accepted
    g.press("back")
    undone = [n.text for n in g.app.notices if n.kind == "undone"]
    assert len(undone) == 1 and "[" not in undone[0] and undone[0].endswith("SHIFT, SPIN, HAZARD"), undone
    g.close()


def test_gaslands_dice_of_a_player_with_no_screen_say_whose_on_the_others(tmp_path: Path) -> None:
    """An audit: a player with no screen entered their skid dice on every other screen, which read "Roll skid
    dice 0/5 · skid dice (up to 5)": nobody's name."""
    from types import SimpleNamespace

    g = Panel(tmp_path, "gaslands")
    g.app.displays.status = lambda: {"Bob": SimpleNamespace(state="up")}  # Alice has none
    _to_template_step(g)
    g.choose("Straights", "Short")
    g.press("next")  # 1.2 Template placed
    g.press("next")  # the skid dice entry opens
    assert g.app.entry is not None
    views = {v.player: v for v in g.app.screen_views(0.0)}
    page = g.app.page_for("Bob", views["Bob"], 0.0, True)
    assert page.label.startswith("Alice: ") and "skid dice" in page.label, page
    g.close()


def _to_gear_2_template_step(g: Panel) -> None:
    """Alice's buggy shifts up to gear 2 in phase 1, everybody finishes; phase 2 asks for its template."""
    for _ in range(40):
        p = g.match.prompt()
        if p.awaits == "template" and "gear 2" in p.text:
            return
        if p.awaits == "dice" and p.die == "skid":
            g.type_dice(["SHIFT"] if p.vehicle == "rust" else [])
        elif p.awaits == "shift" and ("Gear up · +1 hazard",) in g.paths:
            g.choose("Gear up · +1 hazard")
        elif p.awaits == "template":
            g.choose("Straights", "Short")
        elif p.awaits == "vehicle":
            g.press("ok")
        else:
            assert g.app.menu().advance, f"no usual way on at {p.text}"
            g.press("next")
    raise AssertionError(f"never reached the gear-2 template step: {g.match.prompt().text}")


def test_gaslands_no_rear_edge_above_gear_1(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_gear_2_template_step(g)
    templates = [p for p in g.paths if p[0] != "Table…"]
    assert templates and not any(p[-1].endswith("reverse") for p in templates)
    assert {("Gentle", "Left"), ("Gentle", "Right")} <= g.paths
    g.every_choice_is_legal()
    g.close()


def _to_move_step(g: Panel) -> None:
    _to_template_step(g)
    g.choose("Straights", "Short")
    assert g.press("next") == [{"type": "place_template"}]  # NEXT: "Template placed", the usual way on
    assert g.type_dice([]) == [{"type": "skid_roll", "faces": []}]  # no skid dice
    for _ in range(5):
        if g.match.prompt().step.startswith("1.7"):
            return
        g.press("next")
    raise AssertionError(g.match.prompt().text)


def test_gaslands_hazards_hits_and_collisions_from_the_menu(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    assert g.top == ["Moved", "Hazard token", "Collision", "Collision, evaded", "Hit", "Table…"]
    rust = lambda: g.match.state.vehicle("rust")  # noqa: E731
    brick = g.match.state.vehicle("brick").hazards
    # the active vehicle first; each line with its tokens, as "Hit" has the hull (an audit: three OKs left the
    # screen as it was, and a player pressed again to see whether the last one counted)
    assert g.under("Hazard token") == [f"Rust Bucket · {rust().hazards} haz", f"The Brick · {brick} haz"]
    assert g.under("Collision") == ["The Brick"]  # not the moving car itself
    g.every_choice_is_legal()
    hull = rust().hull
    assert rust().hazards == 0
    assert g.choose("Hazard token", "Rust Bucket · 0 haz")["type"] == "gain_hazard"
    assert g.highlighted == ("Hazard token", "Rust Bucket · 1 haz")  # the list stays open: OK again adds another
    g.press("ok")
    assert rust().hazards == 2
    assert g.highlighted == ("Hazard token", "Rust Bucket · 2 haz")
    assert [n.text for n in g.app.notices if n.kind == "recorded"] == ["recorded: Hazard token › Rust Bucket · 2 haz"]
    g.choose("Hit", f"Rust Bucket · hull {hull}")
    assert rust().hull == hull - 1
    # the line's reading as it is after the hit, not before it (a walkthrough: a tail "Hit › Red Fury · hull 7"
    # read with the car at 5); undone, no reading at all
    assert [n.text for n in g.app.notices if n.kind == "recorded"] == [f"recorded: Hit › Rust Bucket · hull {hull - 1}"]
    g.press("back", "back")
    assert rust().hull == hull
    assert [n.text for n in g.app.notices if n.kind == "undone"] == ["UNDONE: Alice: 1.7 Move › Hit › Rust Bucket"]
    g.choose("Hit", f"Rust Bucket · hull {hull}")
    brick = g.match.state.vehicle("brick").hazards
    # the kind of collision, with its smash attack dice: head-on both gears, T-bone and sideswipe the mover's
    # gear, tailgate the difference (the buttons recorded no kind, so the dice were never worked out)
    # (before the weight classes' dice, which the example setup does not give: "± weight" says the table adds them)
    gears = rust().gear, g.match.state.vehicle("brick").gear
    assert rust().weight != g.match.state.vehicle("brick").weight
    n = sum(gears)
    assert g.under("Collision", "The Brick") == [f"Head-on · {n} {'die' if n == 1 else 'dice'} ± weight",
                                             f"T-bone · {gears[0]} {'die' if gears[0] == 1 else 'dice'} ± weight",
                                             f"Sideswipe · {gears[0]} {'die' if gears[0] == 1 else 'dice'} ± weight",
                                             f"Tailgate · {abs(gears[0] - gears[1])} dice ± weight"]
    assert g.choose("Collision", "The Brick", f"Head-on · {n} dice ± weight") == {
        "type": "collision", "vehicle": "brick", "both_evaded": False, "kind": "head_on"}
    assert g.match.state.vehicle("brick").hazards == brick + 2
    # a collision is not taken twice running: the line reads the same after it, and one more OK crashed the cars
    # again (a walkthrough: 2 → 4 hazard tokens each). The cursor is on the crash's smash attacks, closed (the
    # first entry, out of sight below "Collision"): OK opens their list
    assert g.highlighted == ("Smash attack…",)
    assert g.press("ok") == [] and g.highlighted == ("Smash attack…", f"Rust Bucket on The Brick · {n} dice")
    assert g.choose("Collision, evaded", "The Brick")["both_evaded"] is True
    assert g.highlighted == ("Collision, evaded",)
    # NEXT opens the head-on crash's smash attacks first; the table that makes none moves on with "Moved"
    assert g.press("next") == [] and g.app.entry is not None and g.app.entry.request.label.startswith("smash dice")
    g.press("back")
    assert g.app.entry is None
    assert g.choose("Moved") == {"type": "confirm"}
    assert g.match.prompt().step.startswith("1.8") or g.match.prompt().step.startswith("2")
    assert not g.match.state.activation.smashes  # not made: the crash is behind
    g.close()


def _to_attack_step(g: Panel) -> None:
    _to_move_step(g)
    for _ in range(3):
        if g.match.prompt().step.startswith("2"):
            return
        g.press("next")
    raise AssertionError(g.match.prompt().text)


def test_gaslands_attack_step_records_hits_on_the_target(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_attack_step(g)
    hull = g.match.state.vehicle("brick").hull
    assert g.top[0] == "Attacks done" and ("Hit", f"The Brick · hull {hull}") in g.paths
    assert not any(p[0].startswith("Collision") for p in g.paths)
    g.choose("Hit", f"The Brick · hull {hull}")
    # each OK is one hit, and the hull points left are on the line (they were on the target owner's dashboard
    # only): the cursor stays on The Brick as its reading changes
    assert g.highlighted == ("Hit", f"The Brick · hull {hull - 1}")
    g.press("ok", "ok")
    assert g.match.state.vehicle("brick").hull == hull - 3
    assert g.highlighted == ("Hit", f"The Brick · hull {hull - 3}")
    g.close()


def test_gaslands_attack_dice_then_the_targets_evade_dice(tmp_path: Path) -> None:
    """A roll that asks for a second one: the attack dice, then the target's evade dice, one command."""
    g = Panel(tmp_path, "gaslands")
    _to_attack_step(g)
    assert g.go("Attack…", "The Brick") == [] and g.app.entry is not None
    assert g.app.entry.request.label == "attack dice"
    sent = g.type_dice([4, 6, 6], [6])
    assert sent == [{"type": "attack", "target": "brick", "dice": [4, 6, 6], "evade": [6]}]
    g.close()


def test_gaslands_fewer_evade_dice_than_the_gear_are_sent_at_a_second_next(tmp_path: Path) -> None:
    """"the target rolls evade dice equal to its current gear": fewer are taken (docs/RULINGS.md: a perk or weapon
    that lowers them is the table's), but a NEXT pressed at 2 of 3 sent 2 (an audit).  It now asks once."""
    from games.core.table_input import DiceRequest

    g = Panel(tmp_path, "gaslands")
    _to_attack_step(g)

    def evade() -> DiceRequest:
        return DiceRequest("d6", 3, "2 hits: evade dice",
                           lambda ev: Command("attack", {"target": "brick", "dice": [4, 5], "evade": list(ev)}),
                           exact=False, usual=3)

    def sent() -> list[int]:
        return [len(a.command.args["evade"]) for a in g.app.history if a.command.type == "attack"]

    g.app.open_entry(evade())
    g.press("ok", "ok", "next")  # two dice, NEXT
    assert sent() == [] and g.app.entry is not None
    said = [n.text for n in g.app.notices if n.kind == "info"]
    assert said == ["NEXT again: send 2 of 3 evade dice"]  # the instruction in the first piece (an audit)
    g.press("back")  # the second die taken back: "send 2" no longer says the dice entered (nor after OK)
    assert not [n for n in g.app.notices if n.kind == "info"]
    g.press("ok", "next")  # two dice again: asked again
    assert [n.text for n in g.app.notices if n.kind == "info"] == ["NEXT again: send 2 of 3 evade dice"]
    g.press("ok")
    assert not [n for n in g.app.notices if n.kind == "info"]
    g.press("next")  # a third die: all of them, sent at once
    assert sent() == [3]
    g.app.open_entry(evade())
    g.press("ok", "next", "next")  # one die, NEXT, NEXT: sent as the table rolled it
    assert sent() == [3, 1]
    # the menu's evade dice are such a roll
    g.go("Attack…", "The Brick")
    g.type_dice([4, 6])
    assert g.app.entry is not None and g.app.entry.request.label == "3 hits: evade dice"
    assert g.app.entry.request.usual == g.match.state.vehicle("brick").gear == 1 and not g.app.entry.request.exact
    g.close()


def test_gaslands_smash_dice_are_counted_against_the_crash_and_a_die_more_is_asked_about(tmp_path: Path) -> None:
    """"T-bone: the active vehicle rolls smash attack dice equal to its current gear": the entry has room for a
    ram's or a perk's dice beyond them, and a walkthrough found its page counting "0/12" and a fourth die of a
    T-bone's 3 sent without a word.  The page counts against the crash's dice; another count is asked for once."""
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    gear = g.match.state.vehicle("rust").gear
    dice = "die" if gear == 1 else "dice"
    g.choose("Collision", "The Brick", f"T-bone · {gear} {dice} ± weight")
    assert g.press("next") == [] and g.app.entry is not None

    def counted() -> str:  # the count in the page's title bar
        page = g.app.page_for("Alice", None, 0.0, True)
        assert isinstance(page, DicePage), page
        return dice_count(len(page.entered), page.count)

    assert counted() == f"0/{gear}"
    for _ in range(gear + 1):  # one die more than the crash gives
        g.press("ok")
    assert counted() == f"{gear + 1}/{gear}"
    before = len(g.app.history)
    g.press("next")
    assert len(g.app.history) == before and g.app.entry is not None  # not sent: asked
    assert [n.text for n in g.app.notices if n.kind == "info"] == [
        f"NEXT again: send {gear + 1} smash dice on The Brick, not the usual {gear}"]
    g.press("back", "next")  # the extra die taken back: the crash's own count, sent at once
    assert g.app.entry is None or g.app.entry.request.label.endswith("evade dice")
    g.close()


def test_gaslands_push_it_with_the_buttons(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_template_step(g)
    g.choose("Straights", "Short")
    g.press("next")
    assert g.type_dice(["SHIFT", "HAZARD", "SLIDE"])[0]["type"] == "skid_roll"
    assert g.under("Push it… · +1 hazard") == ["Re-roll non-SHIFT", "Re-roll all", "Re-roll one HAZARD", "Re-roll one SLIDE"]
    assert g.go("Push it… · +1 hazard", "Re-roll non-SHIFT") == [] and g.app.entry is not None
    assert g.app.entry.request.count == 2  # the 2 non-SHIFT dice
    assert g.type_dice(["SHIFT", "SPIN"]) == [{"type": "push_it", "reroll": [1, 2], "faces": ["SHIFT", "SPIN"]}]
    act = g.match.state.activation
    assert act.pushed and g.match.state.vehicle("rust").hazards == 1
    assert "Push it… · +1 hazard" not in g.top  # once per activation
    g.close()


def test_gaslands_fire_set_and_put_out_from_the_menu(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    assert g.choose("Table…", "Set on fire", "The Brick") == {"type": "set_fire", "vehicle": "brick", "on": True}
    assert g.match.state.vehicle("brick").on_fire
    assert ("Table…", "Set on fire", "The Brick") not in g.paths
    assert g.choose("Table…", "Put out fire", "The Brick") == {"type": "set_fire", "vehicle": "brick", "on": False}
    g.close()


# -- Thunder Road ---------------------------------------------------------------------------------------------


def tr_setup(**extra: Any) -> dict[str, Any]:
    return {"players": [{"name": "Ana"}, {"name": "Ben"}], "board": {"tiles": 5, "on_board": 3}, **extra}


def roll_all(t: Panel, *rolls: list[int]) -> None:
    for dice in rolls:
        assert t.match.prompt().die == "movement" and t.app.menu().dice is not None
        sent = t.type_dice(dice)
        assert sent and sent[0]["type"] == "roll", sent


def test_thunder_road_turn_choices_assign_move_and_only_legal_ones(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    assert t.app.menu().player == "Ana"
    assert t.under("Move a vehicle…", "Small car") == ["Die 1", "Die 3", "Die 4", "Die 6"]
    assert ("Command…", "Nitro", "Die 1") in t.paths and ("Command…", "Nitro", "Die 4") not in t.paths  # Nitro: 1-3
    assert ("Command…", "Drift", "Die 4") in t.paths and ("Command…", "Drift", "Die 6") not in t.paths
    assert "Repair" not in t.under("Command…")  # no damage to repair
    assert "Coast: 1 space…" not in t.top and "Pass" not in t.top  # vehicles still to move
    t.every_choice_is_legal()
    assert t.choose("Move a vehicle…", "Medium car", "Die 4") == {"type": "assign", "vehicle": "Ana/medium", "die": 4}
    assert t.top[0] == "Moved 4" and t.highlighted == ("Moved 4",)
    assert t.press("next") == [{"type": "move", "spaces": 4}]
    assert t.match.state.turn.player == "Ben"
    g = t.match.state
    assert g.vehicle("Ana/medium").moved and g.player("Ana").dice == (1, 3, 6)
    t.close()


def test_thunder_road_three_or_more_off_the_rear_tile_with_the_buttons(tmp_path: Path) -> None:
    """A five-player walkthrough: "Road scrolls…" offered nobody, one vehicle or "Two off…"; with 12 vehicles on
    3 tiles three on the rear one is usual ("remove the rear tile (vehicles on it are eliminated)"), and a second
    scroll would move the road twice. Named one at a time, then the scroll with them all."""
    names = ["Ana", "Ben", "Cy", "Dee"]
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[*({"name": n} for n in names),
                                                          {"name": "Eve", "vehicles": ["medium", "big_rig"]}]))
    roll_all(t, *([[1, 3, 4, 6]] * 5))
    t.choose("Move a vehicle…", "Medium car", "Die 4")
    assert "Three or more off…" in t.under("Road scrolls…")
    assert len(t.under("Road scrolls…")) <= FIRST_LEVEL_MAX
    assert t.choose("Road scrolls…", "Three or more off…", "Ben", "Small car") == {"type": "off", "vehicle": "Ben/small"}
    assert t.under("Road scrolls…")[0] == "Scroll: 1 off"
    assert "off at the scroll: Ben's Small" in t.app.menu().status
    # NEXT is the scroll with them now (it moved on, the road never scrolled and the names were dropped)
    assert t.app.menu().advance == ("Road scrolls…",) and not any(c.startswith("Moved") for c in t.top)
    t.choose("Road scrolls…", "One more off…", "Cy", "Large car")
    t.choose("Road scrolls…", "One more off…", "Eve", "Medium car")
    assert t.choose("Road scrolls…", "Scroll: 3 off") == {"type": "scroll", "eliminated": []}
    gone = sorted(v.id for v in t.match.state.vehicles if v.eliminated)
    assert gone == ["Ben/small", "Cy/large", "Eve/medium"]
    t.close()


def test_a_scroll_of_nobody_is_not_taken_twice_by_one_more_ok(tmp_path: Path) -> None:
    """An audit: after "Road scrolls… › Nobody off the road" the cursor stayed on that line, which read the same;
    two more OKs scrolled the road twice more to the final tile, and no screen changed. The cursor leaves it for
    its branch, closed (a road may scroll twice in a long move: OK opens the list again), and every scroll is news
    (the rules' test)."""
    t = Panel(tmp_path, "thunder_road", tr_setup(board={"tiles": 7, "on_board": 3}))
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Medium car", "Die 4")
    lead = t.match.state.board.lead
    assert t.choose("Road scrolls…", "Nobody off the road") == {"type": "scroll", "eliminated": []}
    assert t.highlighted != ("Road scrolls…", "Nobody off the road")
    t.press("ok")
    assert t.match.state.board.lead == lead + 1, "one OK more did not scroll the road again"
    t.close()


def test_a_vehicle_named_off_the_road_is_not_taken_twice_by_more_oks(tmp_path: Path) -> None:
    """An audit: after "Road scrolls… › Ben › Large car off" the cursor stayed in the list of Ben's vehicles; two more
    OKs opened it and took "Small car off", a second scroll that eliminated Ben's small car. Each vehicle named off
    is taken once, as "Nobody off the road" is: the cursor on the closed branch, where one OK opens the list again
    (a road may scroll twice in a long move) on its first line, "Nobody off the road"."""
    players = [{"name": n} for n in ("Ana", "Ben", "Cy", "Dee")]  # four: the list names each player's vehicles apart
    t = Panel(tmp_path, "thunder_road", tr_setup(players=players, board={"tiles": 7, "on_board": 3}))
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6], [1, 2, 3, 4], [3, 4, 5, 6])
    t.choose("Move a vehicle…", "Medium car", "Die 4")
    lead = t.match.state.board.lead
    assert "Ben ›" in t.under("Road scrolls…") or "Ben" in t.under("Road scrolls…"), t.under("Road scrolls…")
    ben = next(n for n in t.under("Road scrolls…") if n.startswith("Ben"))
    off = "Large car off"
    assert t.choose("Road scrolls…", ben, off) == {"type": "scroll", "eliminated": ["Ben/large"]}
    assert t.highlighted == ("Road scrolls…",), t.highlighted
    gone = {v.id for v in t.match.state.vehicles if v.eliminated}
    assert t.press("ok") == [] and t.match.state.board.lead == lead + 1  # the list opened, nothing taken
    assert t.highlighted == ("Road scrolls…", "Nobody off the road"), t.highlighted
    t.press("ok")
    assert {v.id for v in t.match.state.vehicles if v.eliminated} == gone, "a second OK eliminated another vehicle"
    t.close()


def test_the_first_rolls_count_hint_is_gone_when_the_direction_die_opens(tmp_path: Path) -> None:
    """An audit: one OK too many at the bump die's "1/1" said "all 1 dice are in: NEXT sends them", and the hint stood
    over the direction die's page ("0/1") after NEXT, where NEXT had opened the next die, not sent the roll."""
    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.press("next")  # the bump dice
    entry = t.app.entry
    assert entry is not None
    t.press("ok")  # the face shown, kept
    t.press("ok")  # one more: all are in
    assert any(n.text.startswith("all 1 dice are in") for n in t.app.notices if n.kind == "info")
    t.press("next")
    assert t.app.entry is not None and t.app.entry is not entry  # the direction die
    assert not [n.text for n in t.app.notices if n.kind == "info" and "dice are in" in n.text]
    t.close()


def test_the_answer_to_a_press_shows_over_a_news_of_every_screen(tmp_path: Path) -> None:
    """A walkthrough: NEXT where the step is a decision answers "Choose: SELECT, then OK", but the news of a
    scroll ("… eliminated with the rear tile") held the footer for 12 s: NEXT seemed to do nothing."""
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Medium car", "Die 4")
    t.choose("Road scrolls…", "Ben's Small car off")
    t.press("next")  # Moved 4: Ben's turn, a die to assign (no usual way on)
    assert any(n.kind == "news" for n in t.app.notices)
    t.press("next")
    ben = next(v for v in t.app.screen_views(now=0.0) if v.player == "Ben")
    assert t.app.page_for("Ben", ben, 0.0, True).alert == "Choose: SELECT, then OK"
    t.close()


def test_thunder_road_commands_coast_and_pass_with_the_buttons(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[{"name": "Ana", "vehicles": ["small"]},
                                                         {"name": "Ben", "vehicles": ["small"]}]))
    roll_all(t, [2, 3, 5, 6], [1, 1, 1, 1])
    assert t.choose("Command…", "Nitro", "Die 2") == {"type": "command", "name": "nitro", "die": 2}
    assert "Command…" not in t.top  # one command a round
    t.choose("Move a vehicle…", "Small car", "Die 3")
    # the Nitro's added moves are not filled in: NEXT recorded the die's alone ("Moved 3" under "3+Nitro
    # spaces"); the distance is chosen
    assert t.press("next") == [] and "Choose: SELECT, then OK" in [n.text for n in t.app.notices]
    # nor does OK: the cursor sat on "Moved 3" and OK recorded it (an audit); it is on the list of distances
    assert t.highlighted == ("Moved how far…",) and t.press("ok") == []
    # more than the die first, the nearest first (a list of 12 opened on "Moved 9", the least likely: an audit)
    assert t.highlighted == ("Moved how far…", "Moved 4")
    assert t.under("Moved how far…") == [f"Moved {n}" for n in range(4, 10)] + ["Moved 3 or fewer…"]
    assert t.under("Moved how far…", "Moved 3 or fewer…") == ["Moved 3", "Moved 2", "Moved 1", "Moved 0"]
    assert t.choose("Moved how far…", "Moved 5") == {"type": "move", "spaces": 5}
    t.choose("Move a vehicle…", "Small car", "Die 1")  # Ben
    t.press("next")
    # Ana's only car has moved: coast it (no command on a coast turn) or pass
    assert t.top[:2] == ["Coast: 1 space…", "Pass: out of round"] and "Command…" not in t.top
    assert t.under("Coast: 1 space…", "Small car") == ["Die 5", "Die 6"]
    assert t.choose("Coast: 1 space…", "Small car", "Die 5") == {"type": "coast", "vehicle": "Ana/small", "die": 5}
    assert t.top[0] == "Moved 1"
    t.press("next")
    t.choose("Coast: 1 space…", "Small car", "Die 1")  # Ben
    t.press("next")
    # passing gives up the round's dice left (an audit: "Pass" did not say so, and the dashboard kept the 6)
    assert t.top[:2] == ["Coast: 1 space…", "Pass: out of round"]
    assert t.choose("Pass: out of round") == {"type": "pass"}
    assert t.match.state.player("Ana").passed and t.match.state.player("Ana").dice
    ana = next(v for v in t.match.views() if v.player == "Ana")
    assert ana.passed and ana.standing
    t.close()


def test_thunder_road_pass_alone_says_why(tmp_path: Path) -> None:
    """A walkthrough: a menu of "Pass" alone said only "Cy · dice 4" — that his car had used both its coasts was
    on no line ("at most twice per vehicle per round; a coast counts as a move of 1")."""
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[{"name": "Ana", "vehicles": ["small"]},
                                                         {"name": "Ben", "vehicles": ["small"]}]))
    roll_all(t, [1, 2, 3, 4], [1, 2, 3, 4])
    for verb, die in (("Move a vehicle…", 1), ("Coast: 1 space…", 2), ("Coast: 1 space…", 3)):
        for _ in ("Ana", "Ben"):
            t.choose(verb, "Small car", f"Die {die}")
            t.press("next")
    assert t.match.state.turn.player == "Ana" and t.top[0] == "Pass" and "Coast: 1 space…" not in t.top, t.top
    assert t.app.menu().status == "Ana · no move or coast left"
    t.close()


def test_thunder_road_collision_bump_and_larger_vehicles_reroll(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Small car", "Die 1")
    t.press("next")
    t.choose("Move a vehicle…", "Large car", "Die 2")  # Ben's large car ends its move on Ana's small car
    assert t.choose("Met a vehicle…", "Ana's Small car", "Ended on it") == {
        "type": "move", "spaces": 2, "occupied": [{"at": 2, "vehicle": "Ana/small"}]}
    assert t.match.prompt().die == "bump" and t.app.menu().dice is not None
    assert t.type_dice(["bump2"], [5]) == [{"type": "bump", "bump": "bump2", "direction": 5}]
    assert t.top[:3] == ["Moved Large car", "Moved Ana's Small car", "Re-roll (Ben)"]
    assert "Ana's Small car" not in t.under("Chain bump…", "Large car onto")  # the other stacked car: no chain
    assert t.go("Re-roll (Ben)") == []  # the re-roll opens a dice entry: the dice come first
    assert t.app.entry is not None and t.app.entry.request.die == "bump"
    assert t.type_dice(["bump6"], [1]) == [{"type": "reroll", "bump": "bump6", "direction": 1}]
    assert t.match.state.bumps[0].rerolled and "Re-roll (Ben)" not in t.top  # once per bump
    assert t.choose("Chain bump…", "Ana's Small car onto", "Medium car") == {
        "type": "placed", "moved": "Ana/small", "onto": "Ben/medium"}
    assert t.match.prompt().die == "bump"  # the chain bump is resolved next
    t.close()


def _bens_large_car_on_anas_small_car(tmp_path: Path) -> Panel:
    """Ana's small car moves 1, Ben's large car ends its move of 2 on it: a bump awaits its dice."""
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Small car", "Die 1")
    t.press("next")
    t.choose("Move a vehicle…", "Large car", "Die 2")
    t.choose("Met a vehicle…", "Ana's Small car", "Ended on it")
    return t


def test_a_re_roll_typed_on_the_phone_keeps_its_place_and_says_its_first_die(tmp_path: Path) -> None:
    """A walkthrough: a re-roll's bump die typed on the phone opened the direction die titled with the roll it
    replaced ("bump2 · direction 5") and without "bump die bump6" — the buttons' way keeps both."""
    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.type_dice(["bump2"], [5])
    assert t.go("Re-roll (Ben)") == [] and t.app.entry is not None
    assert t.app.type_faces(["bump6"], 0.0, source="phone") is None  # the bump die: the direction die next
    entry = t.app.entry
    assert entry is not None and entry.trail == ("Re-roll (Ben)",) and entry.kept == ("bump die bump6",)
    t.close()


def test_a_vehicle_bumped_off_the_front_scrolls_the_road_with_the_buttons(tmp_path: Path) -> None:
    """"When a vehicle leaves the front of the board ... remove the rear tile (vehicles on it are eliminated)":
    a bump that moved a vehicle off the lead tile had no "Road scrolls…" on the screen (the scroll was a move's
    only), and placing it ended the turn with the road unscrolled."""
    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.type_dice(["bump2"], [1])
    assert "Road scrolls…" in t.top
    # the two stacked vehicles are not on the rear tile
    assert t.under("Road scrolls…") == ["Nobody off the road", "Ana's Medium car off", "Ana's Large car off",
                                        "Small car off", "Medium car off", "Two off…", "Three or more off…"]
    assert t.choose("Road scrolls…", "Small car off") == {"type": "scroll", "eliminated": ["Ben/small"]}
    assert t.match.state.step.name == "PLACE" and t.top[0].startswith("Moved "), t.top
    # one scroll: no second, no re-roll of the dice the road moved for; the cursor back on placing the vehicle
    assert "Road scrolls…" not in t.top and not any(c.startswith("Re-roll") for c in t.top), t.top
    assert "Chain bump…" not in t.top  # onto the new lead tile, where nobody stands
    assert t.highlighted == (t.top[0],) and "to the new lead tile" in t.app.menu().status
    t.every_choice_is_legal()
    t.close()


def test_after_a_news_the_choosers_own_line_comes_first_whole_then_the_news_whole(tmp_path: Path) -> None:
    """A walkthrough: after a scroll in a bump's placing, the news (three pieces) held Ben's footer and "place on
    the new lead tile" came 16 s later; a Fire die's news hid the roller's own step.  The chooser's line comes
    first, each of its pieces in order, then the news's pieces in a row (a later walkthrough: a piece of each in
    turn read as one sentence, "red Rouleur: all…", "Stage 1 won by red…", "…exhaustion cards"); the rulebook's
    "ON FIRE!" is never split."""
    from device.app import ALERT_PIECE_S
    from device.dashboards import pages

    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.type_dice(["bump2"], [1])
    t.choose("Road scrolls…", "Medium car off")
    news = next(n for n in t.app.notices if n.kind == "news")
    status = pages.footer_pieces(t.app.menu().status)
    told = pages.footer_pieces(news.text)
    assert len(status) >= 2 and status[-1].endswith("lead tile") and len(told) >= 2, (status, told)
    ben = next(v for v in t.app.screen_views(now=news.since) if v.player == "Ben")
    shown = [t.app.page_for("Ben", ben, news.since + k * ALERT_PIECE_S + 0.1, True)
             for k in range(2 * (len(status) + len(told)))]
    cycle = len(status) + len(told)
    assert [p.alert for p in shown[:len(status)]] == [""] * len(status)  # first, and in order
    assert [p.footer for p in shown[:len(status)]] == status
    assert [p.alert for p in shown[len(status):cycle]] == told  # the news's pieces, in a row
    assert [(p.alert, p.footer) for p in shown[cycle:]] == [(p.alert, p.footer) for p in shown[:cycle]]  # again
    assert pages.footer_pieces("Dee's medium car is ON FIRE!") == ["Dee's medium car…", "…is ON FIRE!"]
    assert pages.footer_pieces("Dee's small car eliminated with the rear tile")[-1] == "…with the rear tile"
    t.close()


def test_vehicles_named_off_the_rear_tile_in_a_bump_are_on_the_screen(tmp_path: Path) -> None:
    """A walkthrough: three named off the rear tile for a vehicle the bump dice moved off the front were on no
    line of the screen (the move's status says "off at the scroll: …"; the bump's said "Bump: …" alone)."""
    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.type_dice(["bump2"], [1])
    t.choose("Road scrolls…", "Three or more off…", "Ana's Medium car")
    assert t.app.menu().status == "Bump: Large / Ana's Small · off at the scroll: Ana's Medium"
    assert t.app.menu().advance == ("Road scrolls…",)
    t.close()


def test_thunder_road_fire_ruling_damage_and_road_die(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    assert ("Road die…", "Small car") in t.paths
    assert t.go("Road die…", "Small car") == [] and t.app.entry is not None
    assert t.type_dice([3]) == [{"type": "road", "vehicle": "Ana/small", "face": 3}]
    t.choose("Move a vehicle…", "Small car", "Die 4")
    assert t.choose("Damage…", "Small car", "Fire space") == {"type": "ignite", "vehicle": "Ana/small"}
    assert t.choose("Damage…", "Ben's Large car", "Damage token") == {
        "type": "damage", "vehicle": "Ben/large", "on_fire": False}
    assert t.highlighted == ("Damage…", "Ben's Large car", "Damage token")  # repeatable: the list stays open
    t.press("ok")
    assert t.match.state.out_of_service("Ben/large")
    assert ("Damage…", "Ben's Large car", "Damage token") not in t.paths  # both slots are full
    # die 4 and a Road die 3: what the Road die adds is not known (RULINGS), so NEXT takes no distance on its own
    # (it recorded the die's 4 under "4+Road die spaces"); the table counts the spaces and picks them
    assert t.app.menu().advance == ()
    assert t.choose("Moved how far…", "Moved 7") == {"type": "move", "spaces": 7}
    assert t.match.state.turn.player == "Ben"
    t.choose("Move a vehicle…", "Small car", "Die 2")  # Ben
    t.press("next")
    t.choose("Move a vehicle…", "Medium car", "Die 1")
    t.press("next")
    assert t.match.state.turn.player == "Ben"
    assert "Large car" not in t.under("Move a vehicle…")  # Ben's large car is out of service
    t.close()


def test_thunder_road_unknown_fire_face_is_ruled_with_the_buttons(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Small car", "Die 1")
    t.choose("Damage…", "Medium car", "Fire space")  # the medium car is on a Fire space
    assert t.top_next() == [{"type": "move", "spaces": 1}]
    t.choose("Move a vehicle…", "Small car", "Die 2")  # Ben
    t.press("next")
    t.choose("Move a vehicle…", "Medium car", "Die 3")
    assert t.match.prompt().die == "fire" and t.app.menu().dice is not None
    assert t.type_dice(["fire2"]) == [{"type": "fire", "face": "fire2"}]
    assert t.top[:4] == ["Moves…", "Fire out", "Eliminated", "No effect"] and t.highlighted == ("No effect",)
    assert t.under("Moves…")[:2] == ["1 more space", "2 more spaces"]
    assert t.choose("Moves…", "2 more spaces") == {"type": "fire_ruling", "effect": "moves", "moves": 2}
    assert t.top[0] == "Moved 5"
    t.close()


def test_when_the_choice_just_taken_is_gone_the_cursor_waits_on_its_branch(tmp_path: Path) -> None:
    """The list whose choice was just taken reopened on its first entry: after Hit › Rust Bucket wrecked it,
    that was The Brick, and one more OK hit Bob's car.  Now the cursor waits on the branch (OK reopens it),
    and BACK still goes up rather than undoing."""
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Small car", "Die 1")
    t.choose("Damage…", "Medium car", "Fire space")  # on fire now: no Fire space for it any more
    assert ("Damage…", "Medium car", "Damage token") in t.paths  # but its list is still there
    assert t.app.cursor.path == ("Damage…", "Medium car")  # on the branch, not on its list's first entry
    assert t.press("back") == [] and t.app.cursor.trail == ()  # BACK goes up, it does not undo
    t.close()


def test_a_roll_sent_short_says_how_many_dice_it_takes(tmp_path: Path) -> None:
    """NEXT on a one-die roll with nothing entered said "the Fire die: 1 dice, 0 entered"; a walkthrough: "4
    movement dice: 2 of 4 entered" came in two footer pieces and did not say what to press."""
    g = Panel(tmp_path, "thunder_road")
    g.press("next")  # the round's movement dice: the entry opens
    assert g.app.entry is not None
    g.press("next")  # sent with no die entered
    said = [n.text for n in g.app.notices if n.kind == "info"]
    assert said and said[-1] == "OK keeps 4 more dice", said
    from device.dashboards.pages import footer_pieces

    assert len(footer_pieces(said[-1])) == 1  # one piece: read at a glance
    g.close()


def test_a_die_taken_back_is_not_counted_by_the_notice_of_a_roll_sent_short(tmp_path: Path) -> None:
    """A walkthrough: NEXT with 2 of 4 dice, then BACK — the title said 1/4, the footer still "…, 2 entered"
    until the notice timed out."""
    g = Panel(tmp_path, "thunder_road")
    g.press("next", "ok", "ok", "next")  # two dice kept, sent short
    assert [n.text for n in g.app.notices if n.kind == "info"][-1] == "OK keeps 2 more dice"
    g.press("back")
    assert len(g.app.entry.entered) == 1
    assert not [n for n in g.app.notices if n.kind == "info" and "more dice" in n.text]
    g.close()


def test_a_die_taken_back_ends_the_notice_that_all_dice_are_in(tmp_path: Path) -> None:
    """An audit: a fifth OK said "all 4 dice are in: NEXT sends them"; BACK took a die back and the page read 3/4
    while the footer still said all 4 were in (NEXT then answered "3 of 4 entered")."""
    g = Panel(tmp_path, "thunder_road")
    g.press("next", "ok", "ok", "ok", "ok", "ok")  # four dice kept, and one OK more
    assert [n.text for n in g.app.notices if n.kind == "info"][-1] == "all 4 dice are in: NEXT sends them"
    g.press("back")
    assert len(g.app.entry.entered) == 3
    assert not [n for n in g.app.notices if n.kind == "info" and "are in" in n.text]
    g.close()


def test_an_undone_or_recorded_choice_is_said_with_its_whole_path(tmp_path: Path) -> None:
    """BACK at the top said "UNDONE: Ben: Move › Ana's Small car › Ended on it" without "Met a vehicle…", and a
    car in a player's own list lost its owner ("Medium car › Ended on it" was Cy's): the path's last two words
    were kept, a long notice now turns in pieces on the screens."""
    t = _bens_large_car_on_anas_small_car(tmp_path)
    t.press("back")
    undone = [n.text for n in t.app.notices if n.kind == "undone"]
    assert undone == ["UNDONE: Ben: Move › Met a vehicle… › Ana's Small car › Ended on it"], undone
    t.close()


def test_a_crosser_entered_through_five_or_more_is_not_recorded_without_its_rider(tmp_path: Path) -> None:
    """An audit: a Grand Tour crosser entered as "5+… › 5" was confirmed "recorded: 5+… › 5" for 4 s on every
    screen, without the rider, over the status that named it ("red Sprinteur +5 (1 in)"). The menu went back to
    the riders: wholly another, which says the press was taken."""
    t = Panel(tmp_path, "grand_tour", {"teams": ["red", "blue"], "stages": 2, "specialties": False})
    t.choose("red Sprinteur")
    assert t.app.menu().title == "Squares past the line"
    assert t.choose("5+…", "5") == {"type": "cross", "squares": 5}
    assert not [n for n in t.app.notices if n.kind == "recorded"]
    assert "red Sprinteur +5" in t.app.menu().status, t.app.menu().status
    t.close()


def test_an_exhaustion_count_is_not_recorded_over_the_next_riders(tmp_path: Path) -> None:
    """The review: red Rouleur's count ("0 to 4 cards › 2") was followed by red Sprinteur's, the same lists under
    another title, and "recorded: 0 to 4 cards › 2", without a rider, stood over the status naming the next one."""
    t = Panel(tmp_path, "grand_tour", {"teams": ["red", "blue"], "stages": 2, "specialties": False})
    for rider in ("red Sprinteur", "blue Rouleur", "red Rouleur", "blue Sprinteur"):
        t.choose(rider)
        t.choose("0")
    t.choose("End round", "No pack · own times")
    assert t.app.menu().title == "red Rouleur", t.app.menu().title
    t.choose("0 to 4 cards", "2")
    assert t.app.menu().title == "red Sprinteur"
    assert not [n for n in t.app.notices if n.kind == "recorded"]
    t.close()


def test_a_back_at_a_stages_start_asks_before_it_undoes_the_last_count_and_the_stages_start(tmp_path: Path) -> None:
    """A walkthrough of five teams: one BACK on stage 2's first "Who crossed the line" (anybody's step) undid
    white Sprinteur's exhaustion count, which was white's step, and with it stage 2's start, asking nothing; the
    UNDONE said only the count.  It asks first, as for another player's decision, and names the stage's start."""
    t = Panel(tmp_path, "grand_tour", {"teams": ["red", "blue"], "stages": 2, "specialties": False})
    for rider in ("red Sprinteur", "blue Rouleur", "red Rouleur", "blue Sprinteur"):
        t.choose(rider)
        t.choose("0")
    t.choose("End round", "No pack · own times")
    for rider in ("red Rouleur", "red Sprinteur", "blue Rouleur", "blue Sprinteur"):
        assert t.app.menu().title == rider
        t.choose("0 to 4 cards", "2")
    assert t.match.state.stage == 2 and t.app.chooser() is None
    t.press("back")  # the dashboards show the stage's news: the first BACK brings the menu back
    t.press("back")
    assert t.match.state.stage == 2  # not yet
    said = "blue Sprinteur › 0 to 4 cards › 2 (and stage 2's start)"
    assert [n.text for n in t.app.notices if n.kind == "info"] == [f"BACK again to undo {said}"]
    t.press("back")
    assert t.match.state.stage == 1 and t.app.menu().title == "blue Sprinteur"
    assert [n.text for n in t.app.notices if n.kind == "undone"] == [f"UNDONE: {said}"]
    t.close()


def test_a_roll_recorded_while_the_menu_stays_is_said_with_its_dice(tmp_path: Path) -> None:
    """"recorded: Road die… › Small car" said nothing of the face rolled, which was on no screen."""
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.go("Road die…", "Small car")
    t.type_dice([2])
    recorded = [n.text for n in t.app.notices if n.kind == "recorded"]
    assert recorded == ["recorded: Road die… › Small car: 2"], recorded
    t.close()


def test_a_command_taken_leaves_the_cursor_on_its_branch_not_on_another_command(tmp_path: Path) -> None:
    """Command… › Drift › Die 3 left the cursor in the Command… list on "Airstrike": one more OK opened another
    command.  The choice taken is gone from its list (a command used this turn): back to the branch, as for a
    car a hit took out of its list."""
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[{"name": "Ana", "vehicles": ["small", "big_rig"]},
                                                          {"name": "Ben"}]))
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Command…", "Drift", "Die 3")
    assert "Traction Drive" in t.under("Command…")  # the list is still there, with another command in it
    assert t.app.cursor is not None and t.app.cursor.path == ("Command…",), t.app.cursor.path
    t.close()


def test_a_dice_page_under_a_long_path_says_its_last_choice_readably(tmp_path: Path) -> None:
    """"Another goes first… › Cy first" over the first roll's dice was cut to "Another goes first… › Cy…" at 8 px:
    who goes first was lost.  The title is fitted as the menu's is: the deepest lists that fit, readable."""
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}]))
    t.go("Another goes first…", "Cy first")
    views = {v.player: v for v in t.app.screen_views(0.0)}
    page = t.app.page_for("Ana", views["Ana"], 0.0, True)
    assert page.title == "Cy first" and page.label == "Ana's 4 movement dice"
    t.close()


def test_a_space_race_events_extra_attempt_is_not_granted_twice_by_one_more_ok(tmp_path: Path) -> None:
    """A walkthrough: after "Extra attempt (event) › USSR" the cursor stayed on USSR, the list open and reading the
    same: one more OK granted a second extra attempt. It goes back to the branch, closed."""
    g = Panel(tmp_path, "space_race")
    g.press("ok")  # Begin turn 1
    assert g.choose("Extra attempt (event)", "USSR") == {"type": "grant_attempt", "side": "USSR"}
    assert g.highlighted == ("Extra attempt (event)",)
    assert g.press("ok") == []  # opens the list again: nothing recorded
    assert g.match.state.side("USSR").granted == 1
    g.close()


def test_gaslands_a_crash_then_each_cars_smash_attack_and_the_evade_dice(tmp_path: Path) -> None:
    """After a crash of a known kind NEXT opens the smash attacks: each car's smash dice, then the target's evade
    dice, as an attack's (hits on 4+, a 6 is two hits, each evade 6 cancels one). The crash used to end at
    "Head-on · 3 dice": no dice were asked, and the hits went in one OK at a time under Hit…."""
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    g.choose("Collision", "The Brick", next(x for x in g.under("Collision", "The Brick") if x.startswith("Head-on")))
    brick, rust = (g.match.state.vehicle(v) for v in ("brick", "rust"))
    n = rust.gear + brick.gear
    assert g.top[0] == "Smash attack…" and g.highlighted == ("Smash attack…",)  # the cursor is on it
    assert g.under("Smash attack…") == [f"Rust Bucket on The Brick · {n} dice", f"The Brick on Rust Bucket · {n} dice"]
    assert g.top_next() == [] and g.app.entry is not None  # NEXT: the first smash attack's dice
    assert g.app.entry.request.label == f"smash dice on The Brick ({n} ± weight)"
    # Bob rolls for The Brick's evade dice and its smash attack: told on his own screen while Alice enters them
    sent = g.type_dice([6, 4], [6][:brick.gear])
    assert sent == [{"type": "smash", "attacker": "rust", "target": "brick", "kind": "head_on", "dice": [6, 4],
                     "evade": [6]}]
    assert g.match.state.vehicle("brick").hull == brick.hull - 2  # 3 hits, 1 evaded
    assert g.match.state.news.startswith("Smash: Rust Bucket on The Brick: 3 hits, 1 evaded: 2 taken")
    assert g.under("Smash attack…") == [f"The Brick on Rust Bucket · {n} dice"]
    g.top_next()
    assert g.app.entry is not None and g.app.entry.request.tell == (
        ("Bob", f"The Brick: roll {n} ± weight smash dice"),)
    # NEXT with no die entered: the entry stays open and says what to do (it closed on "these dice make no
    # command: <the step's prompt>")
    assert g.press("next") == [] and g.app.entry is not None
    assert [n.text for n in g.app.notices if n.kind == "info"] == [
        f"smash dice on Rust Bucket ({n} ± weight): no dice entered; OK keeps a die, BACK leaves"]
    assert n == 2 and g.type_dice([1, 2]) == [{"type": "smash", "attacker": "brick", "target": "rust",
                                               "kind": "head_on", "dice": [1, 2], "evade": []}]  # no hit: no evade
    assert "Smash attack…" not in g.top
    assert g.top_next() == [{"type": "confirm"}]  # NEXT is the step's own again
    g.close()


def test_gaslands_end_game_asks_once_more(tmp_path: Path) -> None:
    """Table… › End game › No winner ended the game at its OK, with every screen showing Game over: the ending is
    asked once more ("Yes, end the game"), and BACK leaves it."""
    g = Panel(tmp_path, "gaslands")
    assert g.under("Table…", "End game") == ["No winner", "Alice wins", "Bob wins"]
    assert g.go("Table…", "End game", "No winner") == [] and not g.match.state.finished
    assert g.highlighted == ("Table…", "End game", "No winner", "Yes, end the game")
    g.press("back")
    assert not g.match.state.finished
    assert g.choose("Table…", "End game", "Bob wins", "Yes, end the game") == {"type": "end_game", "winner": "Bob"}
    assert g.match.state.finished and g.match.state.winner == "Bob"
    g.close()


def test_gaslands_a_held_back_undoes_only_the_decisions_of_one_players_step(tmp_path: Path) -> None:
    """An audit, five players: BACK held at the start of Alice's step undid her pick and two of Eve's decisions
    (her "Moved" and "Attacks done") with no question, and Eve was told only in blinking pieces. Held, BACK undoes
    up to three decisions all taken at the same player's step; held again, the player's before."""
    g = Panel(tmp_path, "gaslands")
    first, second = _to_second_players_step(g)
    assert second != first and g.match.undoable >= 4
    _to_template_step(g)
    g.choose("Straights", "Short")
    g.press("next")  # 1.2 Template placed: two decisions at the second player's step
    assert g.match.prompt().player == second and g.match.prompt().awaits == "dice"
    assert g.press("back_long") == [{"type": "undo", "steps": 2}]
    assert g.match.prompt().player == second  # not back into the first player's step
    undone = [n.text for n in g.app.notices if n.kind == "undone"]
    assert len(undone) == 1 and undone[0].count("; ") == 1, undone
    left = g.match.undoable
    # the first player's decisions were never on this step's screen: held again, BACK asks, held once more, undoes
    assert g.press("back_long") == [] and g.match.prompt().player == second
    asked = [n.text for n in g.app.notices if n.kind == "info"]
    assert len(asked) == 1 and asked[0].startswith("hold BACK again to undo ") and asked[0].count("; ") == 2, asked
    assert g.press("back_long") == [{"type": "undo", "steps": min(3, left)}]
    assert g.match.prompt().player == first
    g.close()


def test_gaslands_back_on_a_fresh_step_asks_before_it_undoes_the_player_befores_decision(tmp_path: Path) -> None:
    """An audit (Thunder Road): half a second after Dee's "Moved 4", Ana's screen showed her "Your turn" menu, and
    her BACK undid Dee's move, never on her screen. BACK at the top of a step undoes a decision taken at another
    player's step only when pressed again: the first says what it would undo, on the chooser's screen; any
    other press in between asks again."""
    g = Panel(tmp_path, "gaslands")
    first, second = _to_second_players_step(g)
    undoable = g.match.undoable
    assert g.press("back") == [] and g.match.undoable == undoable
    asked = [n for n in g.app.notices if n.kind == "info"]
    assert len(asked) == 1 and asked[0].player == second and asked[0].text.startswith("BACK again to undo "), asked
    g.press("select")  # something else: the question lapses, and its words with it (a review: they stood on)
    assert not [n for n in g.app.notices if n.kind == "info" and "again to undo" in n.text]
    assert g.press("back") == [] and g.match.undoable == undoable
    assert g.press("back") == [{"type": "undo", "steps": 1}] and g.match.prompt().player == first
    # the first player's own decisions at their own step: undone at once, as before
    assert g.press("back") == [{"type": "undo", "steps": 1}]
    g.close()


def test_a_count_of_the_dice_entered_goes_when_a_die_is_kept(tmp_path: Path) -> None:
    """An audit (Space Race): NEXT with no die entered said "USA d6, box 2: 0 of 1 entered", and after OK kept the
    die ("1/1") the footer still said "0 of…" until the notice timed out."""
    from games.core.table_input import DiceRequest

    g = Panel(tmp_path, "gaslands")
    _to_attack_step(g)
    g.app.open_entry(DiceRequest("d6", 1, "flip check", lambda f: None))
    g.press("next")
    assert [n.text for n in g.app.notices if n.kind == "info"] == ["OK keeps 1 more die"]
    g.press("ok")
    assert not [n for n in g.app.notices if n.kind == "info"]
    g.close()


def test_thunder_road_an_undo_names_whose_turn_it_was(tmp_path: Path) -> None:
    """An audit: every screen read "UNDONE: Dee: Your turn › Move a vehicle… › Small car › Die 4", the title of
    Dee's own page, which on Ana's, Ben's and Cy's screens read as theirs."""
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("Move a vehicle…", "Small car", "Die 4")
    t.press("back")
    undone = [n.text for n in t.app.notices if n.kind == "undone"]
    assert undone == ["UNDONE: Ana's turn › Move a vehicle… › Small car › Die 4"], undone
    t.close()


def test_space_race_a_held_back_asks_when_another_sides_roll_is_among_what_it_undoes(tmp_path: Path) -> None:
    """A held BACK at the USSR's roll undoes its attempt (taken at anybody's step) and, behind it, the USA's roll:
    the newest decision was nobody's, and the USA's roll went with no question. It asks first."""
    t = Panel(tmp_path, "space_race")
    for command in (Command("begin_turn"), Command("attempt", {"side": "USA", "ops": 3}), Command("roll", {"die": 2}),
                    Command("attempt", {"side": "USSR", "ops": 3})):
        assert t.app.apply(command, source="web").accepted
    assert t.app.chooser() == "USSR"
    undoable = t.match.undoable
    assert t.press("back_long") == [] and t.match.undoable == undoable
    asked = [n.text for n in t.app.notices if n.kind == "info"]
    assert len(asked) == 1 and asked[0].startswith("hold BACK again to undo ") and "USA rolls 2" in asked[0], asked
    assert t.press("back_long") == [{"type": "undo", "steps": 3}]
    t.close()


def test_gaslands_back_after_the_game_is_over_asks_before_it_undoes_the_result(tmp_path: Path) -> None:
    """An audit (Grand Tour): at "Tour over" a BACK that only woke an empty menu and a second one undid the last
    round, and with it the winner. Once the game is over, BACK asks first, on every screen."""
    g = Panel(tmp_path, "gaslands")
    assert g.app.apply(Command("end_game", {"winner": "Alice"}), source="web").accepted
    assert g.match.state.finished
    undoable = g.match.undoable
    assert g.press("back") == [] and g.match.undoable == undoable
    asked = [n for n in g.app.notices if n.kind == "info"]
    assert len(asked) == 1 and asked[0].text.startswith("BACK again to undo ") and asked[0].player is None, asked
    assert g.press("back") == [{"type": "undo", "steps": 1}] and not g.match.state.finished
    g.close()


def _to_second_players_step(g: Panel) -> tuple[str, str]:
    first = g.match.prompt().player
    while g.match.prompt().player == first:
        p = g.match.prompt()
        if p.awaits == "vehicle":
            g.press("ok")
        elif p.awaits == "template":
            g.go("Straights", "Short")
        elif p.awaits == "dice":
            g.type_dice([])
        else:
            g.top_next()
    return first, g.match.prompt().player


def test_gaslands_after_a_restart_back_knows_whose_each_decision_was(tmp_path: Path) -> None:
    """A review: after a restart the app knew nobody's decisions, and every BACK asked twice, the chooser's own
    template pick too. Whose step each was is read from the state it was taken in."""
    g = Panel(tmp_path, "gaslands")
    first, second = _to_second_players_step(g)
    _to_template_step(g)
    g.choose("Straights", "Short")
    g.app = App(g.module, g.match, buttons=g.buttons, displays=Screens(), clock=lambda: 0.0, render=_render)
    assert g.press("back") == [{"type": "undo", "steps": 1}]  # the second player's own pick: at once
    assert g.match.prompt().player == second
    assert g.press("back") == []  # the first player's: asked
    assert [n.text for n in g.app.notices if n.kind == "info"][0].startswith("BACK again to undo ")
    assert g.press("back") == [{"type": "undo", "steps": 1}] and g.match.prompt().player == first
    g.close()


def test_gaslands_a_chooser_with_no_screen_reads_the_question_on_every_screen(tmp_path: Path) -> None:
    """A review: the question went to the chooser's screen alone; a chooser with no screen reads their menu on
    every other screen, and the question was drawn nowhere: a second BACK undid with nothing said."""
    from types import SimpleNamespace

    class Bank(Screens):
        def status(self) -> dict[str, Any]:
            return {"Alice": SimpleNamespace(state="up")}  # Bob has no screen

    g = Panel(tmp_path, "gaslands")
    g.app = App(g.module, g.match, buttons=g.buttons, displays=Bank(), clock=lambda: 0.0, render=_render)
    first, second = _to_second_players_step(g)
    assert second == "Bob"
    assert g.press("back") == []
    asked = [n for n in g.app.notices if n.kind == "info" and "again to undo" in n.text]
    assert len(asked) == 1 and asked[0].player is None
    g.close()


def test_the_games_last_news_is_told_again_while_the_game_is_over(tmp_path: Path) -> None:
    """A walkthrough of a Grand Tour's end: the tour's result and why ("red before blue on 5 pts: less time…") was
    told once, for about 12 s, then gone from every screen for good.  Once the game is over its last news comes
    back after the dashboards have stood FINAL_NEWS_AGAIN_S; an undo that reopens the game ends it."""
    from device.app import FINAL_NEWS_AGAIN_S

    t = Panel(tmp_path, "grand_tour", {"teams": ["red", "blue"], "stages": 1, "specialties": False})
    for rider in ("red Sprinteur", "blue Rouleur", "red Rouleur", "blue Sprinteur"):
        t.choose(rider)
        t.choose("0")
    t.choose("End round", "No pack · own times")
    assert t.match.state.finished

    def news() -> list[str]:
        return [n.text for n in t.app.notices if n.kind == "news"]

    told = news()
    assert len(told) == 1 and told[0].startswith("Tour won by red")
    ends = next(n.until for n in t.app.notices if n.kind == "news")
    assert ends is not None
    t.app.step(ends + 1.0)
    assert news() == []  # the dashboards: the points and PLACE
    t.app.step(ends + FINAL_NEWS_AGAIN_S - 1.0)
    assert news() == []
    t.app.step(ends + FINAL_NEWS_AGAIN_S + 1.0)
    assert news() == told  # told again
    t.app.undo(1, ends + FINAL_NEWS_AGAIN_S + 2.0)
    assert not t.match.state.finished and news() == []
    t.app.step(ends + 10 * FINAL_NEWS_AGAIN_S)
    assert news() == []
    t.close()


def test_a_dice_pages_footer_is_the_rolls_not_another_cars_news(tmp_path: Path) -> None:
    """A walkthrough of five players: Ben opened Attack… › Wasp while Silver Bullet's smash on The Brick was news,
    and the dice page's footer showed "…on The Brick: 1 hit ·…" in turn with "OK keep · NEXT send": read under
    "Attack… › Wasp" as this roll's.  The news stays on the menu page and on every dashboard, not the dice page."""
    g = Panel(tmp_path, "gaslands")
    _to_attack_step(g)
    news = "Smash: Silver Bullet on The Brick, a T-bone: 3 hits, 1 evaded: 2 taken · hull 9"
    g.app.notify("news", news, None, until=100.0, now=0.0)
    chooser = g.app.chooser()
    assert chooser is not None
    g.app.menu_shown = True
    menu_alerts = {g.app.page_for(chooser, None, k * 0.5, True).alert for k in range(40)}
    assert any(a for a in menu_alerts)  # the menu page shows the news in turn
    assert g.go("Attack…", "The Brick") == [] and g.app.entry is not None
    # nor what the chooser's last choice recorded ("…on The Brick: smash…" under the next smash attack's dice: the
    # demo's frames)
    g.app.notify("recorded", "recorded: Smash attack… › Rust Bucket on The Brick: smash dice 5 · evade dice 3 6",
                 chooser, until=100.0, now=0.0)
    dice_alerts = {g.app.page_for(chooser, None, k * 0.5, True).alert for k in range(40)}
    assert dice_alerts == {""}
    # and with the view the screens are drawn from, which carries the app's notices as alerts (the demo's frames)
    view = next(v for v in g.app.screen_views(now=0.0) if v.player == chooser)
    assert {g.app.page_for(chooser, view, k * 0.5, True).alert for k in range(40)} == {""}
    other = next(v for v in g.app.screen_views(now=0.0) if v.player != chooser)
    assert any(a.kind == "news" for a in other.alerts)  # the dashboards still tell it
    g.close()
