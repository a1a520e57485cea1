"""Walking a game's menu with four buttons, and typing dice with them.

The game declares the tree (:mod:`games.core.table_input`); this module only keeps where the player is in
it.  The presses are the ones the protocol counts (:func:`games.core.table_input.leaves`): SELECT = next
choice, long SELECT = previous (both wrap), OK = take it (a branch opens on its own default), BACK = up one
level.  :class:`DiceEntry` is the same for a roll: SELECT / long SELECT cycle the face, OK keeps it, BACK
removes the last one, NEXT sends the roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.core.table_input import Choice, DiceRequest, Menu, choice_name, default_index


@dataclass
class Level:
    """One open list of choices: the branch it belongs to (None at the top) and the cursor."""

    label: str | None
    choices: tuple[Choice, ...]
    cursor: int


class MenuCursor:
    """Where a player is in one menu.  ``path`` is the labels from the top to the highlighted choice."""

    def __init__(self, menu: Menu, *, path: Sequence[str] = ()) -> None:
        self.menu = menu
        self.levels: list[Level] = [Level(None, menu.choices, default_index(menu.choices))]
        if path:
            self.follow(path)

    # -- reading ----------------------------------------------------------------------------------
    @property
    def level(self) -> Level:
        return self.levels[-1]

    @property
    def empty(self) -> bool:
        return not self.levels[0].choices

    @property
    def current(self) -> Choice | None:
        lv = self.level
        return lv.choices[lv.cursor % len(lv.choices)] if lv.choices else None

    @property
    def path(self) -> tuple[str, ...]:
        """The labels of the open branches and of the highlighted choice."""
        out = [lv.label for lv in self.levels if lv.label is not None]
        cur = self.current
        return (*out, cur.label) if cur is not None else tuple(out)

    @property
    def trail(self) -> tuple[str, ...]:
        """The labels of the open branches only (shown as "Template › Gentle")."""
        return tuple(lv.label for lv in self.levels if lv.label is not None)

    # -- moving -----------------------------------------------------------------------------------
    def select(self, *, back: bool = False) -> None:
        lv = self.level
        if lv.choices:
            lv.cursor = (lv.cursor + (-1 if back else 1)) % len(lv.choices)

    def ok(self) -> Choice | None:
        """Take the highlighted choice: a branch opens (None is returned); a leaf or a roll is returned."""
        cur = self.current
        if cur is None:
            return None
        if cur.children:
            self.levels.append(Level(cur.label, cur.children, default_index(cur.children)))
            return None
        return cur

    def back(self) -> bool:
        """Up one level; False at the top level (where BACK is the game's undo)."""
        if len(self.levels) > 1:
            self.levels.pop()
            return True
        return False

    def follow(self, path: Sequence[str]) -> bool:
        """Put the cursor on ``path`` (labels from the top), opening branches on the way, as far as the
        labels still exist in this menu; True when the whole path was found."""
        self.levels = self.levels[:1]
        for depth, label in enumerate(path):
            lv = self.level
            index = next((i for i, c in enumerate(lv.choices) if c.label == label), None)
            if index is None:  # its reading changed ("The Brick · hull 6" after a hit): the same choice
                index = next((i for i, c in enumerate(lv.choices) if choice_name(c.label) == choice_name(label)),
                             None)
            if index is None:
                return False
            lv.cursor = index
            if depth < len(path) - 1:
                if not lv.choices[index].children:
                    return False
                self.ok()
        return True


@dataclass
class DiceEntry:
    """A roll typed with the buttons.  ``faces`` are the faces offered (SELECT cycles them)."""

    request: DiceRequest
    faces: tuple[Any, ...]
    entered: list[Any] = field(default_factory=list)
    cursor: int = 0
    #: The menu path that opened it ("Push it… › Re-roll all"), shown as the page's trail.
    trail: tuple[str, ...] = ()
    #: The rolls entered before this one when one roll asks for another (a bump die, then the direction
    #: die): "bump die 3", shown above this one's dice so the whole roll can be checked before it is sent.
    kept: tuple[str, ...] = ()
    #: How many dice were entered when NEXT was pressed with another count than a roll's ``usual`` one (the
    #: next NEXT at that many sends them); None: not asked.
    unusual_asked: int | None = None

    @property
    def then_another(self) -> bool:
        """NEXT opens another roll rather than sending (the dice entered make a request for more dice)."""
        if not self.ready:
            return False
        try:
            return isinstance(self.request.command(list(self.entered)), DiceRequest)
        except Exception:  # noqa: BLE001 - a roll the request refuses: NEXT says why when pressed
            return False

    @property
    def current(self) -> Any:
        return self.faces[self.cursor % len(self.faces)]

    @property
    def full(self) -> bool:
        return len(self.entered) >= self.request.count

    @property
    def ready(self) -> bool:
        """NEXT may send the roll: all the dice of an exact roll are in (any number up to the most else)."""
        return len(self.entered) == self.request.count if self.request.exact else True

    def select(self, *, back: bool = False) -> None:
        self.cursor = (self.cursor + (-1 if back else 1)) % len(self.faces)

    def keep(self) -> bool:
        """OK: keep the face shown as the next die; False when the roll already has all its dice."""
        if self.full:
            return False
        self.entered.append(self.current)
        return True

    def remove(self) -> bool:
        """BACK: take the last die off; False when there is none (BACK then closes the entry)."""
        if not self.entered:
            return False
        self.entered.pop()
        return True


def faces_of(request: DiceRequest, die_types: dict[str, Sequence[Any]] | None) -> tuple[Any, ...]:
    """The faces a roll offers on the buttons: the request's own, else the die's from the game's
    ``DIE_TYPES`` (each face once: a skid die has SHIFT three times), else a d6."""
    if request.faces:
        return tuple(request.faces)
    faces = list((die_types or {}).get(request.die, range(1, 7)))
    return tuple(dict.fromkeys(faces))


def _labels_now(choices: Sequence[Choice], path: Sequence[str]) -> tuple[str, ...]:
    """``path`` with each label as the menu has it: a label given without its reading ("Turn" for "Turn ·
    trivial", a script's or the demo's path) is the choice of that name when one has it; else left as given."""
    out: list[str] = []
    for label in path:
        match = next((c for c in choices if c.label == label), None)
        if match is None:
            named = [c for c in choices if choice_name(c.label) == label]
            match = named[0] if len(named) == 1 else None
        out.append(match.label if match is not None else label)
        choices = match.children if match is not None else ()
    return tuple(out)


def plan(cursor: MenuCursor, path: Sequence[str], *, reopened: bool = False) -> list[str] | None:
    """The presses that take ``cursor`` (as it is now) to the choice at ``path`` and take it: ``"back"``
    up to the list in common, ``"select"`` / ``"select_long"`` along each list, ``"ok"`` at each level, and
    ``"next"`` where the rest of the way follows defaults (at the top level: the menu's ``advance`` only).
    None when ``path`` is not in the menu.  ``reopened``: the loop reopened the open list by itself, so a
    NEXT before any other press still takes the step's usual way on (:attr:`device.app.App.plan`)."""
    from games.core.table_input import default_chain, route

    top = cursor.levels[0].choices
    if not top:
        return None
    path = _labels_now(top, path)
    advance = cursor.menu.advance
    if (not cursor.trail or reopened) and advance:
        first = next((c for c in top if c.label == advance[0]), None)
        if first is not None and tuple(path) == (first.label, *default_chain(first)):
            return ["next"]
    trail = list(cursor.trail)
    common = 0
    while common < len(trail) and common < len(path) - 1 and trail[common] == path[common]:
        common += 1
    keys = ["back"] * (len(trail) - common)
    choices = cursor.levels[common].choices
    here = cursor.levels[common].cursor % len(choices)
    for depth in range(common, len(path)):
        index = next((i for i, c in enumerate(choices) if c.label == path[depth]), None)
        if index is None:
            return None
        keys += route(here, index, len(choices))
        chosen = choices[index]
        if depth > 0 and tuple(path[depth + 1:]) == default_chain(chosen) and (keys or not reopened):
            return keys + ["next"]
        keys.append("ok")
        choices = chosen.children
        here = default_index(choices) if choices else 0
    return keys
