"""What the Gaslands menu page says, found by playing a 5-player table through the real loop and looking at
the screens: the footer and title must carry what the player needs at the step, in the rulebook's words."""

from __future__ import annotations

from gaslands_helpers import Table

from games.gaslands.menus import menu


def _labels(table: Table) -> list[str]:
    return [c.label for c in menu(table.state).choices]


def test_own_vehicles_are_offered_without_the_owners_name() -> None:
    """"Dmitri's Ice Cream Truck (gear 1)" did not fit the line and lost its gear ("Dmitri's Ice Cream
    Truck (…"); the owner choosing does not need their own name there."""
    t = Table(("Dmitri", ["bike_with_sidecar", "ice_cream_truck"]), ("Bob", ["truck"]))
    assert _labels(t)[:2] == ["Bike with Sidecar (gear 1)", "Ice Cream Truck (gear 1)"]
    # what the command sends is unchanged
    assert menu(t.state).choices[1].command.args == {"vehicle": "dmitri-2"}
