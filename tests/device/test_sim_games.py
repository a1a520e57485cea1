"""`pitboard sim GAME` played a few turns with keys only (n NEXT, s SELECT, o OK, digits + Enter = dice),
for every game: the keystrokes come from a string, and the commands the simulator printed are checked."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from device.sim import Sim


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def play(game: str, keys: str, tmp_path: Path) -> tuple[Sim, list[str]]:
    out = io.StringIO()
    sim = Sim(game, out=out, db=tmp_path / f"{game}.sqlite", clock=lambda: 0.0)
    try:
        sim.step()
        sim.feed(keys)
    finally:
        sim.close()
    return sim, [line for line in out.getvalue().splitlines() if line.startswith("[")]


def test_sim_thunder_road_with_keys(tmp_path: Path) -> None:
    keys = (
        "1346\n" "1346\n" "1346\n"  # Ana, Ben and Cy type their movement dice
        "oo"                        # Ana: small <- 1, moved 1
        "ssssssss" "o"              # Ben: SELECT to large <- 1
        "so"                        # moved 1 hit Ana/small
        "25\n"                      # the bump die and the direction die
        "sso" "61\n"                # Ben's large is larger: re-roll, the new dice typed
        "o"                         # the table placed Ben's large car
        "oo"                        # Cy: small <- 1, moved 1
    )
    sim, lines = play("thunder_road", keys, tmp_path)
    assert lines[:3] == [f"[keyboard] {{'type': 'roll', 'player': '{p}', 'dice': [1, 3, 4, 6]}} -> ok"
                         for p in ("Ana", "Ben", "Cy")]
    assert lines[3:] == [
        "[button] {'type': 'assign', 'vehicle': 'small', 'die': 1} -> ok",
        "[button] {'type': 'move', 'spaces': 1} -> ok",
        "[button] {'type': 'assign', 'vehicle': 'large', 'die': 1} -> ok",
        "[button] {'type': 'move', 'spaces': 1, 'occupied': [{'at': 1, 'vehicle': 'Ana/small'}]} -> ok",
        "[keyboard] {'type': 'bump', 'bump': 'bump2', 'direction': 5} -> ok",
        "[keyboard] {'type': 'reroll', 'bump': 'bump6', 'direction': 1} -> ok",
        "[button] {'type': 'placed', 'moved': 'Ben/large'} -> ok",
        "[button] {'type': 'assign', 'vehicle': 'small', 'die': 1} -> ok",
        "[button] {'type': 'move', 'spaces': 1} -> ok",
    ]
    assert sim.app.match.state.turn.player == "Ana"


def test_sim_thunder_road_dice_with_select_and_ok(tmp_path: Path) -> None:
    """The movement dice entered with SELECT (face) / OK (keep) / NEXT (send), no digit keys."""
    # the first SELECT shows face 1; each SELECT moves on from the face kept last
    sim, lines = play("thunder_road", "so" "o" "so" "so" "n", tmp_path)
    assert lines == ["[button] {'type': 'roll', 'player': 'Ana', 'dice': [1, 1, 2, 3]} -> ok"]


def test_sim_gaslands_with_keys(tmp_path: Path) -> None:
    keys = (
        # Alice's only car, the Rust Bucket, is activated by the rules themselves
        "sssssso"  # 1.1 the Turn, right hand ("turn R")
        "n"       # 1.2 placed
        "0"       # 1.3 no skid dice
        "n"       # 1.4 NEXT: end_shifts (the SHIFT a trivial template gives is not spent)
        "so"      # 1.7 +hazard rust (terrain)
        "o"       # the cursor stayed on it: another one
        "n" "n" "n"  # moved, spun, attack step done
    )
    sim, lines = play("gaslands", keys, tmp_path)
    assert lines[:5] == [
        "[button] {'type': 'choose_template', 'hand': 'right', 'template': 'turn'} -> ok",
        "[button] {'type': 'confirm'} -> ok",
        "[keyboard] {'type': 'skid_roll', 'faces': []} -> ok",
        "[button] {'type': 'end_shifts'} -> ok",
        "[button] {'type': 'gain_hazard', 'vehicle': 'rust', 'count': 1, 'cause': 'terrain'} -> ok",
    ]
    assert lines[5] == lines[4]
    assert all(line.endswith("-> ok") for line in lines)
    state = sim.app.match.state
    assert state.vehicle("rust").hazards == 2
    assert state.activation is None or state.activation.vehicle == "brick"  # Bob's turn came


def test_sim_space_race_with_keys(tmp_path: Path) -> None:
    keys = (
        "o"      # begin turn 1
        "o"      # USA attempts with a 2 ops card
        "sso"    # the d6 shows 3: SELECT twice to "3", OK
        "o"      # USSR attempts with 2 ops
        "6\n"    # the d6 typed: 6
        "o"      # end turn
        "o"      # begin turn 2
    )
    sim, lines = play("space_race", keys, tmp_path)
    assert lines == [
        "[button] {'type': 'begin_turn'} -> ok",
        "[button] {'type': 'attempt', 'side': 'USA', 'ops': 2} -> ok",
        "[button] {'type': 'roll', 'die': 3} -> ok",
        "[button] {'type': 'attempt', 'side': 'USSR', 'ops': 2} -> ok",
        "[keyboard] {'type': 'roll', 'die': 6} -> ok",
        "[button] {'type': 'end_turn'} -> ok",
        "[button] {'type': 'begin_turn'} -> ok",
    ]
    assert sim.app.match.state.turn == 2


def test_sim_grand_tour_with_keys(tmp_path: Path) -> None:
    keys = (
        "o"       # red.rouleur crossed, 5 squares past the line
        "so"      # red.sprinteur, 4
        "oooo"    # the rest of the field, 4 each
        "o"       # end the round
        "ooo"     # exhaustion cards counted: 0, 0, 0
    )
    sim, lines = play("grand_tour", keys, tmp_path)
    assert lines[:2] == [
        "[button] {'type': 'cross', 'rider': 'red.rouleur', 'squares': 5} -> ok",
        "[button] {'type': 'cross', 'rider': 'red.sprinteur', 'squares': 4} -> ok",
    ]
    assert "[button] {'type': 'end_round', 'pack': False} -> ok" in lines
    assert [line for line in lines if "exhaustion" in line] == [
        f"[button] {{'type': 'exhaustion', 'rider': '{r}', 'cards': 0}} -> ok"
        for r in ("red.rouleur", "red.sprinteur", "blue.rouleur")
    ]
    assert all(line.endswith("-> ok") for line in lines) and len(lines) == 10
