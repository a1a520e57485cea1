"""`pitboard sim GAME` played a few turns with keys only, for every game: the keystrokes go through the real
loop as a string, and the commands the simulator printed are checked.

Keys: s SELECT, S long SELECT, o OK, b BACK, n NEXT; digits + Enter type a whole roll.  A choice is reached
the way a player reaches it: the presses from where the cursor is (:func:`device.menus.plan`) to the choice
that sends the wanted command (:func:`games.core.table_input.find_leaf`).  Before the press that takes it, the
chooser's screen — the menu page the simulator drew into its output, and the line it prints under the
screens — shows that choice highlighted.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from device.app import render_page
from device.dashboards.pages import DicePage, MenuPage
from device.displays.render import compose_terminal
from device.sim import Sim
from games.core import Command
from games.core.table_input import find_leaf, route

#: The sim's key for each press :func:`device.menus.plan` names.
KEYS = {"select": "s", "select_long": "S", "ok": "o", "back": "b", "next": "n"}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


class Table:
    """One simulator session fed keystrokes; ``out`` is everything it printed."""

    def __init__(self, game: str, tmp_path: Path) -> None:
        self.out = io.StringIO()
        self.sim = Sim(game, out=self.out, db=tmp_path / f"{game}.sqlite", clock=lambda: 0.0)
        self.sim.step()

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc: object) -> None:
        self.sim.close()

    @property
    def lines(self) -> list[str]:
        """The commands the simulator printed."""
        return [line for line in self.out.getvalue().splitlines() if line.startswith("[")]

    def feed(self, keys: str) -> None:
        self.sim.feed(keys)

    def keys_to(self, command: Command) -> tuple[str, tuple[str, ...]]:
        """The keys from the cursor to the choice that sends ``command``, and that choice's path."""
        app = self.sim.app
        leaf = find_leaf(app.menu(), command)
        assert leaf is not None, f"{command.to_json()} is not in the menu {app.menu().title!r}"
        presses = app.plan(leaf.path)
        assert presses, (leaf.path, app.cursor.path if app.cursor else None)
        return "".join(KEYS[p] for p in presses), leaf.path

    def choose(self, command: Command) -> str:
        """Walk to the choice that sends ``command`` and take it; returns the keys pressed.  Just before the
        last press the chooser's screen shows the choice (or, for a NEXT, the list it is taken from)."""
        keys, path = self.keys_to(command)
        self.feed(keys[:-1])
        if keys == "n" and not self.sim.app.menu_shown:
            pass  # NEXT takes the step's usual way on from the dashboard too (a news standing there)
        elif keys == "n" and (not self.sim.app.cursor.trail or self.sim.app._reopened):
            assert isinstance(self.screen(), MenuPage)  # NEXT takes the step's usual way on, wherever the cursor
        else:
            self.shows_choice(path)
        before = len(self.sim.app.history)
        self.feed(keys[-1])
        sent = self.sim.app.history[before:]
        assert [(a.command, a.outcome.accepted) for a in sent] == [(command, True)], sent
        return keys

    def open_roll(self, *path: str) -> str:
        """Walk to the roll at ``path`` and open its dice entry; returns the keys pressed."""
        presses = self.sim.app.plan(path)
        assert presses is not None, f"{path} is not in the menu {self.sim.app.menu().title!r}"
        keys = "".join(KEYS[p] for p in presses)
        self.feed(keys[:-1])
        self.shows_choice(path)
        self.feed(keys[-1])
        assert self.sim.app.entry is not None
        return keys

    def enter_dice(self, *faces: Any) -> str:
        """The faces into the open dice entry with the buttons (SELECT to each, OK keeps it), then NEXT;
        the dice page shows the roll before it is sent.  Returns the keys pressed."""
        pressed = ""
        entry = self.sim.app.entry
        assert entry is not None
        for face in faces:
            steps = route(entry.cursor % len(entry.faces), entry.faces.index(face), len(entry.faces))
            keys = "".join(KEYS[p] for p in steps) + "o"
            self.feed(keys)
            pressed += keys
        page = self.screen()
        assert isinstance(page, DicePage) and page.entered == tuple(map(str, faces)) and page.ready, page
        self.feed("n")
        return pressed + "n"

    def screen(self, player: str | None = None) -> Any:
        """The page on ``player``'s screen (default: the chooser's; the first player's when anybody
        chooses), checked to be what the simulator drew last for that screen."""
        app = self.sim.app
        player = player or app.chooser() or self.sim.bank.players[0]
        view = next(v for v in app.screen_views() if v.player == player)
        page = app.page_for(player, view, 0.0, True)  # the sim's clock stands at 0: alerts blink on
        assert page is not None, f"{player}'s screen shows the dashboard"
        drawn = compose_terminal({player: render_page(page, True)}, style="halfblock", columns=1)
        text = self.out.getvalue()
        at = text.rindex(drawn.split("\n", 1)[0])  # the last drawing of this player's screen
        assert text[at:at + len(drawn)] == drawn, f"{player}'s screen was last drawn as another page than {page}"
        return page

    def shows_choice(self, path: tuple[str, ...]) -> None:
        """The chooser's screen is the menu page with the next label of ``path`` highlighted, and the line the
        simulator prints under the screens names it with the lists open above it."""
        cursor = self.sim.app.cursor
        assert cursor is not None
        depth = len(cursor.trail)
        assert cursor.trail == path[:depth], (cursor.trail, path)
        page = self.screen()
        assert isinstance(page, MenuPage), page
        label = page.entries[page.cursor][0]
        assert label == path[depth], (label, path)
        said = self.out.getvalue().splitlines()
        status = said[max(i for i, line in enumerate(said) if line.startswith("> ")) + 1]
        where = " › ".join((cursor.menu.title, *path[:depth]))
        assert status == f"  {where}: {label} ({page.cursor + 1}/{len(page.entries)})", status


def ok(*commands: dict[str, Any], source: str = "button") -> list[str]:
    return [f"[{source}] {c} -> ok" for c in commands]


def test_sim_thunder_road_with_keys(tmp_path: Path) -> None:
    with Table("thunder_road", tmp_path) as t:
        t.feed("1346\n" "1346\n" "1346\n")  # Ana, Ben and Cy type their movement dice
        # Ana: her small car on the 1 (NEXT: Move a vehicle… › Small car › Die 1), moved 1
        assert t.choose(Command("assign", {"vehicle": "Ana/small", "die": 1})) == "on"  # Move a vehicle…, NEXT
        assert t.choose(Command("move", {"spaces": 1})) == "n"
        # Ben: Move a vehicle… › Large car (long SELECT back to it) › Die 1
        assert t.choose(Command("assign", {"vehicle": "Ben/large", "die": 1})) == "oSn"
        # met Ana's small car: Met a vehicle… › Ana › Ana's Small car › Ended on it (the menus send full ids)
        t.choose(Command("move", {"spaces": 1, "occupied": [{"at": 1, "vehicle": "Ana/small"}]}))
        t.feed("25\n")  # the bump die and the direction die, typed
        # Ben's large car is the larger: he re-rolls, the bump die then the direction die on the buttons
        assert t.open_roll("Re-roll (Ben)") == "sso"
        t.enter_dice("bump6")
        t.enter_dice(1)
        t.choose(Command("placed", {"moved": "Ben/large"}))  # the table placed Ben's large car
        t.choose(Command("assign", {"vehicle": "Cy/small", "die": 1}))  # Cy: small <- 1, moved 1
        t.choose(Command("move", {"spaces": 1}))
        lines, state = t.lines, t.sim.app.match.state
    assert lines[:3] == ok(*({"type": "roll", "player": p, "dice": [1, 3, 4, 6]} for p in ("Ana", "Ben", "Cy")),
                           source="keyboard")
    assert lines[3:] == [
        *ok({"type": "assign", "vehicle": "Ana/small", "die": 1}, {"type": "move", "spaces": 1},
            {"type": "assign", "vehicle": "Ben/large", "die": 1},
            {"type": "move", "spaces": 1, "occupied": [{"at": 1, "vehicle": "Ana/small"}]}),
        *ok({"type": "bump", "bump": "bump2", "direction": 5}, source="keyboard"),
        *ok({"type": "reroll", "bump": "bump6", "direction": 1}, {"type": "placed", "moved": "Ben/large"},
            {"type": "assign", "vehicle": "Cy/small", "die": 1}, {"type": "move", "spaces": 1}),
    ]
    assert state.turn.player == "Ana"


def test_sim_thunder_road_dice_with_select_and_ok(tmp_path: Path) -> None:
    """The movement dice entered with SELECT (face) / OK (keep) / NEXT (send), no digit keys."""
    with Table("thunder_road", tmp_path) as t:
        assert t.open_roll("Ana's dice") == "n"  # NEXT: the step's roll opens its entry
        # the entry starts on face 1; each SELECT moves on from the face kept last
        assert t.enter_dice(1, 1, 2, 3) == "o" "o" "so" "so" "n"
        lines = t.lines
    assert lines == ok({"type": "roll", "player": "Ana", "dice": [1, 1, 2, 3]})


def test_sim_types_the_dice_of_an_entry_opened_in_the_menu(tmp_path: Path) -> None:
    """Digits go to the dice entry a choice opened (Thunder Road's "Re-roll (Ben)": the bump die, then the
    direction die), not only to the roll the step awaits."""
    with Table("thunder_road", tmp_path) as t:
        t.feed("1346\n" "1346\n" "1346\n")
        t.choose(Command("assign", {"vehicle": "Ana/small", "die": 1}))
        t.choose(Command("move", {"spaces": 1}))
        t.choose(Command("assign", {"vehicle": "Ben/large", "die": 1}))
        t.choose(Command("move", {"spaces": 1, "occupied": [{"at": 1, "vehicle": "Ana/small"}]}))
        t.feed("25\n")
        t.open_roll("Re-roll (Ben)")
        t.feed("6\n" "1\n")  # the bump die, then the direction die
        text, lines = t.out.getvalue(), t.lines
    assert "no dice are awaited now" not in text
    assert lines[-1] == "[keyboard] {'type': 'reroll', 'bump': 'bump6', 'direction': 1} -> ok"


def test_sim_gaslands_with_keys(tmp_path: Path) -> None:
    rust_hazard = Command("gain_hazard", {"vehicle": "rust", "count": 1, "cause": "table"})
    with Table("gaslands", tmp_path) as t:
        # Alice's only car, the Rust Bucket, is activated by the rules themselves
        assert t.choose(Command("choose_template", {"template": "turn", "hand": "right"})) == "ssosn"  # Turn › Right
        assert t.choose(Command("place_template")) == "n"  # 1.2 Template placed
        t.feed("0")  # 1.3 no skid dice
        # 1.4: the SHIFT a trivial template gives is not spent: Discard… › All SHIFTs left
        assert t.choose(Command("end_shifts")) == "n"  # NEXT at 1.4: done with the SHIFTs (Discard… › All left)
        assert t.choose(rust_hazard) == "son"  # 1.7 Hazard token › Rust Bucket
        assert t.choose(rust_hazard) == "o"  # the list reopened on it: OK again (NEXT stays the step's way on)
        assert t.choose(Command("confirm")) == "n"  # "Moved": NEXT is the step's way on in a list reopened for it
        assert t.choose(Command("confirm")) == "n"  # 2 Attacks done
        lines, state = t.lines, t.sim.app.match.state
    assert lines == ok(
        {"type": "choose_template", "template": "turn", "hand": "right"},
        {"type": "place_template"},
    ) + ok({"type": "skid_roll", "faces": []}, source="keyboard") + ok(
        {"type": "end_shifts"},
        rust_hazard.to_json(),
        rust_hazard.to_json(),
        {"type": "confirm"},
        {"type": "confirm"},
    )
    assert state.vehicle("rust").hazards == 2
    assert state.activation is not None and state.activation.vehicle == "brick"  # Bob's turn came


def test_sim_space_race_with_keys(tmp_path: Path) -> None:
    with Table("space_race", tmp_path) as t:
        assert t.choose(Command("begin_turn")) == "n"
        # the cursor starts on the USSR (who plays first); long SELECT back to the USA, 2 Ops
        assert t.choose(Command("attempt", {"side": "USA", "ops": 2})) == "Son"
        assert t.open_roll("Roll the die") == "n"
        assert t.enter_dice(3) == "sso" "n"  # the d6 shows 3: SELECT twice to "3", OK, NEXT sends it
        # the USA's success is news on both dashboards: SELECT brings the menu back, then USSR attempt, NEXT: 2 Ops
        assert t.choose(Command("attempt", {"side": "USSR", "ops": 2})) == "son"
        t.feed("6\n")  # the d6 typed: 6
        assert t.choose(Command("end_turn")) == "n"  # no attempt left: NEXT ends the turn
        assert t.choose(Command("begin_turn")) == "n"
        lines, state = t.lines, t.sim.app.match.state
    assert lines == [
        *ok({"type": "begin_turn"}, {"type": "attempt", "side": "USA", "ops": 2}, {"type": "roll", "die": 3},
            {"type": "attempt", "side": "USSR", "ops": 2}),
        *ok({"type": "roll", "die": 6}, source="keyboard"),
        *ok({"type": "end_turn"}, {"type": "begin_turn"}),
    ]
    assert state.turn == 2


def test_sim_grand_tour_with_keys(tmp_path: Path) -> None:
    field = ("red.rouleur", "red.sprinteur", "blue.rouleur", "blue.sprinteur", "green.rouleur", "green.sprinteur")
    with Table("grand_tour", tmp_path) as t:
        # a crosser is named first, then the squares past the line (the cursor starts on 2)
        assert t.choose(Command("cross", {"rider": "red.rouleur"})) == "o"
        assert t.choose(Command("cross", {"squares": 5})) == "ssson"  # "5+…", NEXT takes its 5
        for rider in field[1:]:  # the rest of the field, 4 squares each
            assert t.choose(Command("cross", {"rider": rider})) == "so"  # past "End round" to the next rider
            t.choose(Command("cross", {"squares": 4}))
        assert t.choose(Command("end_round", {"pack": False})) == "osn"  # End round › No pack
        for rider in field[:3]:  # exhaustion cards counted: 0, 0, 0
            t.choose(Command("exhaustion", {"rider": rider, "cards": 0}))
        lines = t.lines
    assert lines[:4] == ok({"type": "cross", "rider": "red.rouleur"}, {"type": "cross", "squares": 5},
                           {"type": "cross", "rider": "red.sprinteur"}, {"type": "cross", "squares": 4})
    assert lines[12:] == ok({"type": "end_round", "pack": False},
                            *({"type": "exhaustion", "rider": r, "cards": 0} for r in field[:3]))
    assert len(lines) == 16


def test_sim_shows_each_typed_die_on_the_rollers_screen(tmp_path: Path) -> None:
    """The brief: "every die being entered ... must be visible on the player's OLED; the terminal line of the
    simulator is not a screen."  Each digit typed goes to the roller's screen before Enter (as the phone's
    pad does); Backspace takes it back there too, and once the roll is sent the line goes."""
    with Table("thunder_road", tmp_path) as t:
        app, bank = t.sim.app, t.sim.bank
        roller = app.prompt().player
        assert roller == "Ana"
        before = bank.frames[roller].tobytes()

        def typing() -> list[tuple[str, str | None]]:
            return [(n.text, n.player) for n in app.notices if n.kind == "typing"]

        t.feed("13")
        assert typing() == [("1 3 (2 of 4) typed on the keyboard", "Ana")]
        assert bank.frames["Ana"].tobytes() != before, "Ana's screen does not show the dice typed"
        t.feed("\x7f")
        assert typing() == [("1 (1 of 4) typed on the keyboard", "Ana")]
        t.feed("\x7f")
        assert typing() == []  # nothing typed: nothing said
        t.feed("1346\n")
        assert typing() == []  # sent: the roll itself is what the screens show now
        assert t.lines[-1] == "[keyboard] {'type': 'roll', 'player': 'Ana', 'dice': [1, 3, 4, 6]} -> ok"
