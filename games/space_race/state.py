"""Twilight Struggle Space Race: the state folded from events.

The state keeps only what the log says happened (where each marker is, who reached which box first, how
many attempts each side used this turn); everything the rules derive from it (which abilities are active,
how many attempts are left) is a property, so it can never drift from the markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from games.core import find

SIDES: tuple[str, str] = ("USA", "USSR")

#: the ability keys the track data may use (shared/rules/space-race.md, the table's last column)
ABILITIES: tuple[str, ...] = ("two_attempts", "opponent_headline_first", "discard_held", "eight_action_rounds")
#: the abilities the table is reminded of when a turn begins (the headline, the action rounds) and when it
#: ends (the discard); the words are the track's ``ability_text``, so each edition speaks its own rule
AT_TURN_START: tuple[str, ...] = ("opponent_headline_first", "eight_action_rounds")
AT_TURN_END: tuple[str, ...] = ("discard_held",)
#: the abilities that bind the other side (it must act on them), so its screen shows them too
BINDS_OPPONENT: tuple[str, ...] = ("opponent_headline_first",)


class Step(str, Enum):
    """Where the table is.  Values are what the screens and the JSON show."""

    BETWEEN_TURNS = "between turns"
    TURN = "turn"
    AWAIT_DIE = "roll the d6"


@dataclass(frozen=True)
class Box:
    """One box of the track: the marker moves INTO it on a success."""

    number: int
    name: str
    ops: int
    roll_low: int
    roll_high: int
    vp_first: int | None = None
    vp_second: int | None = None
    ability: str | None = None
    ability_text: str = ""

    def succeeds(self, die: int) -> bool:
        return self.roll_low <= die <= self.roll_high

    @property
    def odds(self) -> Fraction:
        """The chance that one d6 lands inside the success range."""
        return Fraction(self.roll_high - self.roll_low + 1, 6)

    @property
    def label(self) -> str:
        """How the screens name the box: "box 5 Lunar Orbit"; "box 5" for a box whose name is only its number (the
        seed edition's unnamed boxes: "box 5 Box 5" was written)."""
        return f"box {self.number}" if self.name.strip().lower() == f"box {self.number}" else \
            f"box {self.number} {self.name}"

    @property
    def roll_text(self) -> str:
        return f"{self.roll_low}-{self.roll_high}" if self.roll_high != self.roll_low else str(self.roll_low)


@dataclass(frozen=True)
class Side:
    name: str
    box: int = 0  # 0 = not on the track yet; 8 = the last box
    vp: int = 0  # VP scored from the Space Race
    used: int = 0  # attempts made this turn
    granted: int = 0  # extra attempts this turn given by events


@dataclass(frozen=True)
class Pending:
    """A card played to the race whose die is awaited."""

    side: str
    ops: int


@dataclass(frozen=True)
class SpaceRaceState:
    edition: str
    track: tuple[Box, ...]
    sides: tuple[Side, Side]
    #: (box number, side) for each box in the order it was first reached
    first_arrivals: tuple[tuple[int, str], ...] = ()
    turn: int = 0
    in_turn: bool = False
    pending: Pending | None = None
    note: str = ""
    #: what the last event settled that both sides are told (a box reached, an ability gained or cancelled, an
    #: ability to act on now the turn begins or ends); "" after any other event
    news: str = ""
    #: the last attempt's roll until the next card, turn or extra attempt: (side, die, success)
    last_roll: tuple[str, int, bool] | None = None

    # -- lookups ------------------------------------------------------------------------------------------
    def side(self, name: str) -> Side:
        return find(self.sides, "name", name)

    def opponent(self, name: str) -> Side:
        return self.sides[1] if self.sides[0].name == name else self.sides[0]

    def box(self, number: int) -> Box:
        return self.track[number - 1]

    @property
    def last_box(self) -> int:
        return len(self.track)

    def next_box(self, name: str) -> Box | None:
        """The box ``name`` would try next, None once it stands on the last box."""
        at = self.side(name).box
        return self.track[at] if at < self.last_box else None

    def first_to(self, number: int) -> str | None:
        for box, side in self.first_arrivals:
            if box == number:
                return side
        return None

    @property
    def finished(self) -> bool:
        """Both markers on the last box: the race has nothing left to track (the device marks the game
        finished; the rest of Twilight Struggle goes on at the table)."""
        return all(s.box >= self.last_box for s in self.sides)

    # -- derived rules ------------------------------------------------------------------------------------
    def holds(self, name: str, ability: str) -> bool:
        """An ability belongs to the first player to reach its box, until the opponent reaches it too.  Each box
        that carries it counts (an owner's track may put one on two boxes: only the first was looked at, and a side
        that still held the later box lost it with the earlier one; a rules audit)."""
        return any(box.ability == ability and self.holds_box(name, box) for box in self.track)

    def holds_box(self, name: str, box: Box) -> bool:
        """Whether ``name`` holds ``box``'s ability: first there, and the opponent not there yet."""
        return self.first_to(box.number) == name and self.opponent(name).box < box.number

    def active_abilities(self, name: str) -> tuple[Box, ...]:
        return tuple(b for b in self.track if b.ability and self.holds_box(name, b))

    def reminders(self, abilities: tuple[str, ...]) -> list[str]:
        """"USA's box 6: <the box's ability_text>" for each active ability among ``abilities``, in track order;
        "the opponent" named (:meth:`ability_words`)."""
        return [f"{s}'s box {b.number}: {self.ability_words(s, b)}" for b in self.track for s in SIDES
                if b.ability in abilities and self.holds_box(s, b)]

    @staticmethod
    def ability_words(holder: str, box: Box) -> str:
        """``box``'s ability as it binds the table while ``holder`` holds it, "the opponent" named ("USA reveals
        their headline first": "USSR: opponent reveals …" read as the USSR's opponent or the reader's, and
        "USSR: USA reveals …" as addressed to the USSR; a walkthrough read "…opponent reveals their headline
        first", a piece of the news of the box's arrival, as the reader's opponent)."""
        other = next(o for o in SIDES if o != holder)
        text = box.ability_text or box.ability or ""
        return text.replace("the opponent's", f"{other}'s").replace("opponent's", f"{other}'s").replace(
            "opponent", other)

    def base_allowance(self, name: str) -> int:
        """Attempts allowed this turn before any an event grants: one, two with the box-2 ability."""
        return 2 if self.holds(name, "two_attempts") else 1

    def allowance(self, name: str) -> int:
        """Attempts allowed this turn: one, two with the box-2 ability, plus any an event granted."""
        return self.base_allowance(name) + self.side(name).granted

    def attempts_left(self, name: str) -> int:
        if not self.in_turn or self.next_box(name) is None:
            return 0
        return max(0, self.allowance(name) - self.side(name).used)
