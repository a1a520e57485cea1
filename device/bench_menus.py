"""``pitboard bench menus``: how far each command is from the buttons, measured by playing with them.

For each game it plays scripted sessions through the real loop (:class:`device.app.App`) with button
presses only — the demo script, and for Gaslands a round of 4 players × 2 cars and for Thunder Road a
round of 5 players with the Big Rig and bikes (played by a seeded chooser that takes menu leaves and
dice) — and at every prompt met it measures the game's menu:

* ``first_level_max`` — the most choices on a menu's first level;
* ``presses_max`` / ``presses_median`` — presses from the fresh prompt to each command type the prompt
  lists as legal (its cheapest leaf: SELECT / long SELECT to it, OK at each level; for a roll, the
  presses that open its dice entry — typing the faces is data entry, counted apart);
* ``unreachable`` — command types the prompt lists as legal that no leaf of the menu sends (``undo`` is
  BACK: one press, always);
* ``deepest_leaf_max`` / ``leaves_over_8`` — the same count over every concrete leaf (which vehicle,
  which die): the far corners of the menus;
* ``script`` — how many scripted commands were sent by pressing the buttons, and how many scripted
  commands the buttons do not offer (refused ones, such as a not-permitted template the camera saw, are
  sent as the camera would send them and listed).

Every command the presses send is checked against the script: a press plan that sent something else
is an error, not a figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games import game_package
from games.core import Command, Match
from games.core.table_input import Leaf, Menu, cheapest, leaves

from device.app import App
from device.buttons import ButtonEvent, PressKind
from device.scripted import button_route, find_same

KEYS = {"select": ("select", False), "select_long": ("select", True), "ok": ("ok", False), "back": ("back", False),
        "next": ("next", False)}

GASLANDS_4X2 = """\
[scenario]
pole = "Ann"
[[players]]
name = "Ann"
vehicles = [{id = "a1", type = "buggy"}, {id = "a2", type = "car"}]
[[players]]
name = "Bea"
vehicles = [{id = "b1", type = "truck"}, {id = "b2", type = "performance_car"}]
[[players]]
name = "Cal"
vehicles = [{id = "c1", type = "car"}, {id = "c2", type = "buggy"}]
[[players]]
name = "Dev"
vehicles = [{id = "d1", type = "bike"}, {id = "d2", type = "war_rig"}]
"""

THUNDER_ROAD_5 = """\
first_player = "Ana"
[[players]]
name = "Ana"
[[players]]
name = "Ben"
[[players]]
name = "Cy"
vehicles = ["small", "medium", "large", "big_rig"]
[[players]]
name = "Dee"
[[players]]
name = "Eve"
vehicles = ["bike", "bike", "bike", "bike", "bike"]
[board]
tiles = 6
on_board = 3
"""


class _Quiet:
    """Buttons that never press (the bench presses through :meth:`App.on_button`) and screens that keep
    nothing: only the loop's decisions are measured here."""

    players: tuple[str, ...] = ()

    def poll(self, now: float) -> list[Any]:
        return []

    def wait(self, timeout: float) -> None:
        return None

    def show(self, player: str, image: Any) -> bool:
        return True


@dataclass
class Figures:
    prompts: int = 0
    first_level_max: int = 0
    presses: list[int] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    deepest: int = 0
    leaves_over_8: int = 0
    leaves: int = 0
    sent_by_buttons: int = 0
    dice_presses: int = 0
    not_offered: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "first_level_max": self.first_level_max,
            "presses_max": max(self.presses, default=0),
            "presses_median": statistics.median(self.presses) if self.presses else 0,
            "unreachable": len(self.unreachable),
            "unreachable_examples": sorted(set(self.unreachable))[:10],
            "deepest_leaf_max": self.deepest,
            "leaves": self.leaves,
            "leaves_over_8": self.leaves_over_8,
            "script": {"sent_by_buttons": self.sent_by_buttons, "dice_entry_presses": self.dice_presses,
                       "not_offered": self.not_offered},
        }


def measure(menu: Menu, commands: Sequence[str], die_types: dict[str, Sequence[Any]], fig: Figures,
            where: str) -> None:
    fig.prompts += 1
    fig.first_level_max = max(fig.first_level_max, len(menu.choices))
    for lf in leaves(menu.choices):
        fig.leaves += 1
        fig.deepest = max(fig.deepest, lf.presses)
        fig.leaves_over_8 += lf.presses > 8
    best = cheapest(menu, die_types)
    for kind in commands:
        if kind == "undo":
            fig.presses.append(1)  # BACK
            continue
        if kind in best:
            fig.presses.append(best[kind])
        else:
            fig.unreachable.append(f"{kind} at {where}")


class Player:
    """Presses buttons on an :class:`App` and counts them."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.t = 0.0
        self.count = 0

    def press(self, name: str, long: bool = False) -> None:
        self.t += 0.2
        self.count += 1
        self.app.on_button(ButtonEvent(name, PressKind.LONG if long else PressKind.SHORT, self.t), self.t)

    def keys(self, keys: Sequence[str]) -> None:
        for k in keys:
            self.press(*KEYS[k])

    def go(self, lf: Leaf) -> None:
        """Press from where the cursor is now to ``lf`` and take it."""
        assert self.app.cursor is not None
        if self.app.refusal is not None:  # a reason standing on the screen: a press puts it away first (once it has
            self.press("select")          # stood long enough to be read, that is all the press does)
        keys = self.app.plan(lf.path)
        if keys is None:
            raise RuntimeError(f"{' › '.join(lf.path)} is not in the menu")
        self.keys(keys)

    def type_dice(self, faces: Sequence[Any]) -> int:
        """Enter ``faces`` in the open dice entry (SELECT to each face, OK), then NEXT; the presses."""
        entry = self.app.entry
        assert entry is not None
        before = self.count
        for face in faces:
            target = list(entry.faces).index(face)
            n = len(entry.faces)
            d = (target - entry.cursor) % n
            for _ in range(d if d <= n - d else n - d):
                self.press("select", long=d > n - d)
            self.press("ok")
        self.press("next")
        return self.count - before


def play(game: str, setup: str, script: Sequence[dict[str, Any]] | None, *, seed: int = 1,
         rounds: int = 1, max_commands: int = 400) -> Figures:
    """Play ``script`` (or, without one, ``rounds`` rounds chosen by a seeded chooser) with the buttons."""
    module = game_package(game)
    match = Match.begin(module.GAME, tomllib.loads(setup))
    quiet = _Quiet()
    app = App(module, match, buttons=quiet, displays=quiet, clock=lambda: 0.0)
    player = Player(app)
    die_types = dict(getattr(module, "DIE_TYPES", {}) or {})
    fig = Figures()
    rng = random.Random(seed)
    start_round = getattr(match.state, "round", 0)
    steps = list(script) if script is not None else []
    for n in range(max_commands if script is None else len(steps)):
        state = match.state
        if getattr(state, "finished", False) or getattr(state, "step", None) == "game over":
            break
        if script is None and getattr(state, "round", 0) >= start_round + rounds:
            break
        prompt = app.prompt()
        menu = app.menu()
        measure(menu, prompt.commands, die_types, fig, f"{game} '{prompt.step}'")
        if script is not None:
            _send_scripted(app, player, menu, Command.from_json(steps[n]), die_types, fig)
        else:
            _send_random(app, player, menu, die_types, rng, fig)
    return fig


def _send_scripted(app: App, player: Player, menu: Menu, command: Command, die_types: dict[str, Sequence[Any]],
                   fig: Figures) -> None:
    before = len(app.history)
    route_ = button_route(app.module, app.match.state, command, die_types)
    if route_ is None:
        outcome = app.apply(command, source="camera")
        fig.not_offered.append({"command": command.to_json(), "accepted": outcome.accepted,
                                "reason": outcome.reason})
        return
    for lf, rolls in route_:
        fresh = find_same(app.menu(), lf)
        player.go(fresh)
        for faces in rolls:
            fig.dice_presses += player.type_dice(faces)
        sent = app.history[before:]
        if not sent or not sent[-1].outcome.accepted:
            got = [(a.command.to_json(), a.outcome.reason) for a in sent]
            raise RuntimeError(f"the presses for {command.to_json()} sent {got}")
    fig.sent_by_buttons += 1


def _send_random(app: App, player: Player, menu: Menu, die_types: dict[str, Sequence[Any]], rng: random.Random,
                 fig: Figures) -> None:
    """A seeded table: mostly the default, sometimes another leaf; rolls get random faces."""
    options = list(leaves(menu.choices))
    if not options:
        raise RuntimeError(f"no choice at '{app.prompt().text}'")
    quiet = [lf for lf in options if not _rare(lf)]
    pool = quiet or options
    pick = min(pool, key=lambda lf: lf.presses) if rng.random() < 0.6 else rng.choice(pool)
    before = len(app.history)
    player.go(pick)
    request = pick.choice.dice
    while request is not None and app.entry is not None:
        faces_all = list(app.entry.faces)
        k = request.count if request.exact else rng.randint(0 if request.count > 1 else 1, min(request.count, 4))
        fig.dice_presses += player.type_dice([rng.choice(faces_all) for _ in range(k)])
        request = app.entry.request if app.entry is not None else None
    sent = app.history[before:]
    if sent and sent[-1].outcome.accepted:
        fig.sent_by_buttons += 1


def _rare(lf: Leaf) -> bool:
    """Leaves the seeded table avoids: ending the game, passing a phase, damage and fire, collisions, a touched
    template that is not permitted."""
    words = " ".join(lf.path).lower()
    return any(w in words for w in ("end game", "skip", "damage", "fire", "eliminated", "off", "table…",
                                    "crash", "hit", "finish", "scroll", "not permitted"))


def sessions() -> dict[str, list[tuple[str, str, list[dict[str, Any]] | None]]]:
    """Per game: (name, setup, script or None for a seeded round)."""
    out: dict[str, list[tuple[str, str, list[dict[str, Any]] | None]]] = {}
    for game in ("gaslands", "thunder_road", "space_race", "grand_tour"):
        demo = __import__(f"games.{game}.demo", fromlist=["demo_script"])
        setup, script = demo.demo_script()
        out[game] = [("demo", setup, list(script))]
    out["gaslands"].append(("4 players x 2 cars, one round", GASLANDS_4X2, None))
    out["thunder_road"].append(("5 players, Big Rig and bikes, one round", THUNDER_ROAD_5, None))
    return out


def run(seed: int = 1) -> dict[str, Any]:
    result: dict[str, Any] = {"targets": {"first_level_max": 8, "presses_max": 8, "presses_median": 4,
                                          "unreachable": 0}}
    for game, runs in sessions().items():
        total = Figures()
        per: dict[str, Any] = {}
        for name, setup, script in runs:
            fig = play(game, setup, script, seed=seed)
            per[name] = fig.as_json()
            total.prompts += fig.prompts
            total.first_level_max = max(total.first_level_max, fig.first_level_max)
            total.presses += fig.presses
            total.unreachable += fig.unreachable
            total.deepest = max(total.deepest, fig.deepest)
            total.leaves += fig.leaves
            total.leaves_over_8 += fig.leaves_over_8
            total.sent_by_buttons += fig.sent_by_buttons
            total.dice_presses += fig.dice_presses
            total.not_offered += fig.not_offered
        result[game] = {**total.as_json(), "sessions": per}
    return result


def cmd_bench_menus(args: argparse.Namespace) -> int:
    print(json.dumps(run(seed=args.seed), indent=2))
    return 0


def register(groups: dict[str, Any]) -> None:
    p = groups["bench"].add_parser("menus", help="presses from each prompt to each legal command, played "
                                                 "with the buttons (JSON)")
    p.add_argument("--seed", type=int, default=1, help="the seeded table's choices in the generated rounds")
    p.add_argument("--json", action="store_true", help="accepted for symmetry: JSON is the only output")
    p.set_defaults(func=cmd_bench_menus)
