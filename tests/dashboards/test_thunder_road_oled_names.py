"""The Thunder Road dashboard with a table's long names: nothing a player needs is cut, and the alerts
name vehicles as the rulebook does, not by the rules' ids."""

from __future__ import annotations

from typing import Any

import pytest

import device.dashboards.thunder_road as dash
from device.dashboards.common import text_width
from games.core import Alert
from games.thunder_road.state import PlayerView, VehicleView


def vehicle(vid: str, kind: str, label: str, short: str, **extra: Any) -> VehicleView:
    base: dict[str, Any] = dict(id=vid, kind=kind, label=label, short=short, damage=0, damage_slots=2,
                                minor_damage=False, on_fire=False, out_of_service=False, eliminated=False,
                                moved=False, coasts=0, moving=False)
    return VehicleView(**{**base, **extra})


def view(player: str, turn: str | None, alerts: tuple[Alert, ...] = ()) -> PlayerView:
    fleet = (vehicle(f"{player}/small1", "small", "Small car", "S1"),
             vehicle(f"{player}/small2", "small", "Small car", "S2", damage=2, out_of_service=True),
             vehicle(f"{player}/medium", "medium", "Medium car", "M", on_fire=True))
    return PlayerView(player=player, seat=3, round=12, your_turn=turn == player, turn_player=turn, dice=(1, 3),
                      command=None, vehicles=fleet, step="turn", prompt="", standing=True, alerts=alerts)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[int, int, int, int], str, tuple[int, ...]]]:
    calls: list[tuple[tuple[int, int, int, int], str, tuple[int, ...]]] = []
    real = dash.fit_text

    def spy(draw: Any, box: tuple[int, int, int, int], text: str, **kw: Any) -> int:
        calls.append((box, text, tuple(kw.get("sizes", (12, 11, 10, 9)))))
        return real(draw, box, text, **kw)

    monkeypatch.setattr(dash, "fit_text", spy)
    return calls


@pytest.mark.parametrize("player, turn", [("Dominique", "Benedikt"), ("Dominique", "Dominique2"),
                                          ("Ana", "Benedikt"), ("Benedikt", "Ana")])
def test_whose_turn_is_never_cut_in_the_header(drawn: list[Any], player: str, turn: str) -> None:
    dash.render(view(player, turn), blink_on=True)
    header = [(box, text, sizes) for box, text, sizes in drawn if box[1] == 0]
    texts = [text for _, text, _ in header]
    assert player in texts and f"> {turn}" in texts
    for (x0, _, x1, _), text, sizes in header:
        assert text_width(text, sizes[-1]) <= x1 - x0, (text, x1 - x0)  # fit_text would cut it with "…"


def test_alerts_name_the_vehicle_as_the_rulebook_does(drawn: list[Any]) -> None:
    dash.render(view("Ana", "Ana", (Alert("out_of_service", "Small car 2 is out of service", "Ana"),)),
                blink_on=True)
    assert "Small car 2" in [text for _, text, _ in drawn]
    drawn.clear()
    dash.render(view("Ana", "Ana", (Alert("fire_roll", "roll the Fire die for Medium car", "Ana"),)),
                blink_on=True)
    assert not any("Ana/" in text for _, text, _ in drawn)
    assert any(text.endswith("Medium car") for _, text, _ in drawn)
