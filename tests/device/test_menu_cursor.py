"""Walking a menu with the buttons (device.menus): the cursor, the dice entry, and the press plan."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.core import Command
from games.core.table_input import DiceRequest, Menu, branch, leaf, leaves, roll
from device.menus import DiceEntry, MenuCursor, faces_of, plan


def _menu() -> Menu:
    return Menu("Step", (
        leaf("Done", Command("confirm"), default=True),
        branch("Hazard token", [leaf("Rust", Command("h", {"v": "rust"})), leaf("Brick", Command("h", {"v": "brick"})),
                                leaf("Dog", Command("h", {"v": "dog"}))]),
        branch("Crash", [branch("Brick", [leaf("Evaded", Command("c", {"e": True})),
                                          leaf("Not evaded", Command("c", {"e": False}), default=True)])]),
        roll("Roll", DiceRequest("skid", 2, "skid dice", lambda f: Command("roll", {"f": list(f)}), exact=False)),
    ))


def test_the_cursor_walks_the_tree_as_the_buttons_do() -> None:
    cur = MenuCursor(_menu())
    assert cur.current.label == "Done" and cur.path == ("Done",)
    cur.select()
    assert cur.ok() is None and cur.trail == ("Hazard token",)  # a list opened, on its default (the first)
    cur.select(back=True)
    assert cur.current.label == "Dog"  # long SELECT wraps round backwards
    assert cur.back() and cur.path == ("Hazard token",)  # up one level, the cursor still on the list
    assert not cur.back()  # at the top BACK is the game's undo, not the menu's
    cur.select()
    cur.ok()
    assert cur.current.label == "Brick"
    cur.ok()
    assert cur.current.label == "Not evaded"  # the list's own default


def test_follow_puts_the_cursor_back_where_it_was() -> None:
    cur = MenuCursor(_menu(), path=("Crash", "Brick", "Evaded"))
    assert cur.path == ("Crash", "Brick", "Evaded")
    cur = MenuCursor(_menu())
    assert not cur.follow(("Crash", "Gone"))


def test_a_dice_entry_keeps_faces_removes_them_and_knows_when_it_is_full() -> None:
    request = DiceRequest("skid", 2, "skid dice", lambda f: Command("roll", {"f": list(f)}), exact=False)
    entry = DiceEntry(request, faces_of(request, {"skid": ["SHIFT", "SHIFT", "SHIFT", "HAZARD", "SLIDE", "SPIN"]}))
    assert entry.faces == ("SHIFT", "HAZARD", "SLIDE", "SPIN")  # each face once
    assert entry.ready  # up to two: none is a roll too
    entry.select(back=True)
    assert entry.keep() and entry.entered == ["SPIN"]
    entry.select()
    assert entry.keep() and not entry.keep()  # full at two
    assert entry.remove() and entry.entered == ["SPIN"]
    exact = DiceEntry(DiceRequest("d6", 4, "movement", lambda f: None), faces_of(DiceRequest("d6", 4, "m", lambda f: None), {}))
    assert exact.faces == (1, 2, 3, 4, 5, 6) and not exact.ready


def _press(cur: MenuCursor, keys: list[str]) -> object:
    taken = None
    for k in keys:
        if k == "select":
            cur.select()
        elif k == "select_long":
            cur.select(back=True)
        elif k == "back":
            assert cur.back()
        elif k == "ok":
            taken = cur.ok()
        elif k == "next":
            if not cur.trail:
                cur.levels = MenuCursor(cur.menu).levels
            taken = cur.ok()
            while taken is None:
                taken = cur.ok()
    return taken


@given(st.data())
def test_a_plan_from_anywhere_takes_the_choice_it_names(data: st.DataObject) -> None:
    menu = _menu()
    all_leaves = list(leaves(menu.choices))
    start = data.draw(st.sampled_from(all_leaves))
    target = data.draw(st.sampled_from(all_leaves))
    cur = MenuCursor(menu, path=start.path)
    keys = plan(cur, target.path)
    assert keys is not None
    assert _press(cur, keys) is target.choice
    fresh = plan(MenuCursor(menu), target.path)
    assert fresh is not None and len(fresh) <= target.presses  # from a fresh menu: the counted presses or fewer
