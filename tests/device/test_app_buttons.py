"""Every game played with the button panel alone: the SELECT menu offers each legal choice, OK sends it.

The real rules of Gaslands and Thunder Road run through :class:`device.app.App` with scripted buttons; the
only commands sent are the ones the buttons make (no camera, no typed script lines).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from device.app import App, open_match
from device.buttons import PressKind, ScriptedButtons
from device.store import Store
from games import game_package


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

    def press(self, *names: str, long: bool = False) -> list[dict[str, Any]]:
        sent = []
        for name in names:
            self.buttons.press(name, PressKind.LONG if long else PressKind.SHORT)
            sent += [a.command.to_json() for a in self.app.step()]
        return sent

    @property
    def labels(self) -> list[str]:
        return [c.label for c in self.app.choices]

    def choose(self, label: str) -> dict[str, Any]:
        """SELECT until ``label`` is under the cursor, then OK; returns the command sent (accepted)."""
        assert label in self.labels, f"{label!r} not offered: {self.labels}"
        while self.labels[self.app.cursor % len(self.labels)] != label:
            self.press("select")
        before = len(self.app.history)
        self.press("ok")
        sent = self.app.history[before:]
        assert len(sent) == 1 and sent[0].outcome.accepted, [(a.command, a.outcome) for a in sent]
        return sent[0].command.to_json()

    def type_dice(self, faces: list[Any]) -> list[dict[str, Any]]:
        """A dice entry with the buttons: SELECT to each face, OK keeps it, NEXT sends the roll."""
        entry = self.app.entry
        if entry is None:
            self.press("select")  # the first SELECT opens the entry on the first face
            entry = self.app.entry
        assert entry is not None
        for face in faces:
            while entry.current != face:
                self.press("select")
            self.press("ok")
        before = len(self.app.history)
        self.press("next")
        return [a.command.to_json() for a in self.app.history[before:] if a.outcome.accepted]

    def every_choice_is_legal(self) -> None:
        for c in self.app.choices:
            if c.dice is None:
                assert self.match.propose(c.command).refused is None, c

    def close(self) -> None:
        self.store.close()


@pytest.fixture(autouse=True)
def _data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))


# -- Gaslands -----------------------------------------------------------------------------------------------


def test_gaslands_templates_offer_each_hand_and_the_rear_edge_in_gear_1(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    if g.match.prompt().awaits == "vehicle":
        g.press("ok")
    assert g.match.prompt().awaits == "template" and "gear 1" in g.match.prompt().text
    labels = g.labels
    assert labels[:5] == ["short_straight", "medium_straight", "long_straight", "gentle L", "gentle R"]
    assert {"turn L", "turn R", "turn L rear", "turn R rear", "short_straight rear"} <= set(labels)
    first_rear = next(i for i, l in enumerate(labels) if l.endswith("rear"))
    assert all(l.endswith("rear") for l in labels[first_rear:])  # reversing is listed last
    assert g.choose("turn R rear") == {"type": "choose_template", "template": "turn", "hand": "right", "edge": "rear"}
    assert g.match.state.activation.hand == "right" and g.match.state.activation.edge == "rear"
    g.close()


def _to_gear_2_template_step(g: Panel) -> None:
    """Alice's buggy shifts up to gear 2 in phase 1, everybody finishes; phase 2 asks for its template."""
    for _ in range(40):
        p = g.match.prompt()
        if p.awaits == "template" and "gear 2" in p.text:
            return
        if p.awaits == "vehicle":
            g.press("ok")
        elif p.awaits == "template":
            g.press("ok")
        elif p.awaits == "dice" and p.die == "skid":
            g.type_dice(["SHIFT"] if p.vehicle == "rust" else [])
        elif p.awaits == "shift" and "gear_up" in g.labels:
            g.choose("gear_up")
        else:
            g.press("next")
    raise AssertionError(f"never reached the gear-2 template step: {g.match.prompt().text}")


def test_gaslands_no_rear_edge_above_gear_1(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_gear_2_template_step(g)
    assert g.labels and not any(l.endswith("rear") for l in g.labels)
    assert "gentle L" in g.labels and "gentle R" in g.labels
    g.every_choice_is_legal()
    g.close()


def _to_move_step(g: Panel) -> None:
    if g.match.prompt().awaits == "vehicle":
        g.press("ok")
    g.press("ok", "next")  # the first template, placed
    g.type_dice([])  # no skid dice
    for _ in range(5):
        if g.match.prompt().step.startswith("1.7"):
            return
        g.press("next")
    raise AssertionError(g.match.prompt().text)


def test_gaslands_hazards_hits_and_collisions_from_the_menu(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    assert g.labels == ["confirm", "+hazard rust", "+hit rust", "crash brick", "crash brick evaded", "+hit brick",
                        "+hazard brick", "set fire rust", "set fire brick"]
    g.every_choice_is_legal()
    rust = lambda: g.match.state.vehicle("rust")  # noqa: E731
    hull = rust().hull
    assert g.choose("+hazard rust")["type"] == "gain_hazard"
    assert g.labels[g.app.cursor] == "+hazard rust"  # the cursor stays: OK again adds another
    g.press("ok")
    assert rust().hazards == 2
    g.choose("+hit rust")
    assert rust().hull == hull - 1
    brick = g.match.state.vehicle("brick").hazards
    assert g.choose("crash brick") == {"type": "collision", "vehicle": "brick", "both_evaded": False}
    assert g.match.state.vehicle("brick").hazards == brick + 2
    g.app.cursor = 0
    assert g.press("ok") == [{"type": "confirm"}]  # the first entry: OK still confirms the step
    assert g.match.prompt().step.startswith("1.8") or g.match.prompt().step.startswith("2")
    g.close()


def test_gaslands_attack_step_records_hits_on_the_target(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    for _ in range(3):
        if g.match.prompt().step.startswith("2"):
            break
        g.press("next")
    assert g.match.prompt().step.startswith("2")
    assert g.labels[0] == "confirm" and "+hit brick" in g.labels and "crash brick" not in g.labels
    hull = g.match.state.vehicle("brick").hull
    g.choose("+hit brick")
    g.press("ok", "ok")
    assert g.match.state.vehicle("brick").hull == hull - 3
    g.close()


# -- Thunder Road ---------------------------------------------------------------------------------------------


def tr_setup(**extra: Any) -> dict[str, Any]:
    return {"players": [{"name": "Ana"}, {"name": "Ben"}], "board": {"tiles": 5, "on_board": 3}, **extra}


def roll_all(t: Panel, *rolls: list[int]) -> None:
    for dice in rolls:
        assert t.match.prompt().die == "movement"
        sent = t.type_dice(dice)
        assert sent and sent[0]["type"] == "roll", sent


def test_thunder_road_turn_choices_assign_move_and_only_legal_ones(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    labels = t.labels
    assert labels[:4] == ["small <- 1", "small <- 3", "small <- 4", "small <- 6"]
    assert "Nitro <- 1" in labels and "Nitro <- 4" not in labels  # Nitro takes 1-3
    assert "Drift <- 4" in labels and "Drift <- 6" not in labels
    assert not any(l.startswith("Repair") for l in labels)  # no damage to repair
    assert not any(l.startswith("coast") for l in labels) and "pass" not in labels  # vehicles still to move
    t.every_choice_is_legal()
    assert t.choose("medium <- 4") == {"type": "assign", "vehicle": "medium", "die": 4}
    assert t.labels[0] == "moved 4"
    assert t.choose("moved 4") == {"type": "move", "spaces": 4}
    assert t.match.state.turn.player == "Ben"
    g = t.match.state
    assert g.vehicle("Ana/medium").moved and g.player("Ana").dice == (1, 3, 6)
    t.close()


def test_thunder_road_commands_coast_and_pass_with_the_buttons(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup(players=[{"name": "Ana", "vehicles": ["small"]},
                                                         {"name": "Ben", "vehicles": ["small"]}]))
    roll_all(t, [2, 3, 5, 6], [1, 1, 1, 1])
    assert t.choose("Nitro <- 2") == {"type": "command", "name": "nitro", "die": 2}
    assert not any(l.startswith(("Nitro", "Drift", "Airstrike")) for l in t.labels)  # one command a round
    t.choose("small <- 3")
    t.choose("moved 3")
    t.choose("small <- 1")  # Ben
    t.choose("moved 1")
    # Ana's only car has moved: coast it (no command on a coast turn) or pass
    assert t.labels[:3] == ["coast small <- 5", "coast small <- 6", "pass"]
    assert t.choose("coast small <- 5") == {"type": "coast", "vehicle": "small", "die": 5}
    assert t.labels[0] == "moved 1"
    t.choose("moved 1")
    t.choose("coast small <- 1")  # Ben
    t.choose("moved 1")
    assert t.choose("pass") == {"type": "pass"}
    assert t.match.state.player("Ana").passed
    t.close()


def test_thunder_road_collision_bump_and_larger_vehicles_reroll(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("small <- 1")
    t.choose("moved 1")
    t.choose("large <- 2")  # Ben's large car ends its move on Ana's small car
    assert t.choose("moved 2 hit Ana/small") == {"type": "move", "spaces": 2,
                                                 "occupied": [{"at": 2, "vehicle": "Ana/small"}]}
    assert t.match.prompt().die == "bump"
    assert t.type_dice(["bump2", "bump5"]) == [{"type": "bump", "bump": "bump2", "direction": 5}]
    assert t.labels[:3] == ["Ben/large", "Ana/small", "re-roll"]
    assert "Ben/large onto Ana/small" not in t.labels  # landing on the other stacked vehicle is no chain
    while t.labels[t.app.cursor] != "re-roll":
        t.press("select")
    assert t.press("ok") == []  # the re-roll opens a dice entry: the dice come first
    assert t.app.entry is not None and t.app.entry.die == "bump"
    assert t.type_dice(["bump6", "bump1"]) == [{"type": "reroll", "bump": "bump6", "direction": 1}]
    assert t.match.state.bumps[0].rerolled and "re-roll" not in t.labels  # once per bump
    assert t.choose("Ana/small onto Ben/medium") == {"type": "placed", "moved": "Ana/small", "onto": "Ben/medium"}
    assert t.match.prompt().die == "bump"  # the chain bump is resolved next
    t.close()


def test_thunder_road_fire_ruling_damage_and_road_die(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    assert "road die small" in t.labels
    while t.labels[t.app.cursor] != "road die small":
        t.press("select")
    t.press("ok")
    assert t.type_dice([3]) == [{"type": "road", "vehicle": "small", "face": 3}]
    t.choose("small <- 4")
    assert t.choose("ignite Ana/small") == {"type": "ignite", "vehicle": "Ana/small"}
    assert t.choose("damage Ben/large") == {"type": "damage", "vehicle": "Ben/large", "on_fire": False}
    assert t.labels[t.app.cursor] == "damage Ben/large"  # repeatable: the cursor stays
    t.press("ok")
    assert t.match.state.out_of_service("Ben/large")
    assert "damage Ben/large" not in t.labels  # both slots are full
    t.choose("moved 4")
    t.choose("small <- 2")  # Ben
    t.choose("moved 2")
    t.choose("medium <- 1")
    t.choose("moved 1")
    assert t.match.state.turn.player == "Ben"
    assert t.labels[0] == "medium <- 2"
    assert not any(l.startswith("large") for l in t.labels)  # Ben's large car is out of service
    t.close()


def test_thunder_road_unknown_fire_face_is_ruled_with_the_buttons(tmp_path: Path) -> None:
    t = Panel(tmp_path, "thunder_road", tr_setup())
    roll_all(t, [1, 3, 4, 6], [2, 2, 5, 6])
    t.choose("small <- 1")
    t.choose("ignite Ana/medium")  # the small car's move crossed a Fire space... the medium car is on one
    t.choose("moved 1")
    t.choose("small <- 2")  # Ben
    t.choose("moved 2")
    t.choose("medium <- 3")
    assert t.match.prompt().die == "fire"
    assert t.type_dice(["fire2"]) == [{"type": "fire", "face": "fire2"}]
    assert t.labels[:2] == ["moves 1", "moves 2"] and {"out", "eliminate", "nothing"} <= set(t.labels)
    assert t.choose("moves 2") == {"type": "fire_ruling", "effect": "moves", "moves": 2}
    assert t.labels[0] == "moved 5"
    t.close()


def test_gaslands_push_it_with_the_buttons(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    if g.match.prompt().awaits == "vehicle":
        g.press("ok")
    g.press("ok", "next")
    assert g.type_dice(["SHIFT", "HAZARD", "SLIDE"])[0]["type"] == "skid_roll"
    assert g.labels[-2:] == ["push it", "push it all"]
    while g.labels[g.app.cursor] != "push it":
        g.press("select")
    assert g.press("ok") == [] and g.app.entry is not None and g.app.entry.count == 2  # the 2 non-SHIFT dice
    assert g.type_dice(["SHIFT", "SPIN"]) == [{"type": "push_it", "reroll": [1, 2], "faces": ["SHIFT", "SPIN"]}]
    act = g.match.state.activation
    assert act.pushed and g.match.state.vehicle("rust").hazards == 1
    assert not any(l.startswith("push it") for l in g.labels)  # once per activation
    g.close()


def test_gaslands_fire_set_and_put_out_from_the_menu(tmp_path: Path) -> None:
    g = Panel(tmp_path, "gaslands")
    _to_move_step(g)
    assert g.choose("set fire brick") == {"type": "set_fire", "vehicle": "brick", "on": True}
    assert g.match.state.vehicle("brick").on_fire
    assert "set fire brick" not in g.labels
    assert g.choose("fire out brick") == {"type": "set_fire", "vehicle": "brick", "on": False}
    g.close()
