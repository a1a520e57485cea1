"""The Grand Tour time track: the seed's marker moves as pure functions.

A cell is stored as one number, ``index = column * rows + row`` (column 0 = left, row 0 = top).  The seed
says a column is one minute and a row ten seconds, so a column holds 60 / 10 = 6 rows and the index is the
rider's time in ten-second steps: ``time = index * 10 s``.  With that numbering:

- "one column right" (a rider who has not crossed) is ``index + rows``;
- "one row up" per square past the line is ``index - 1``; going up past the top of a column lands on the
  bottom of the column to the left, which is exactly the seed's wrap ("one row down and one column left"
  for a rider who went the full 5 squares from any row but the bottom one);
- the bottom-right cell is the largest index, where a marker "stops being tracked"; a move right that would
  leave the sheet stops there too (the sheet has no cell further right);
- the top-left cell is index 0; a move up cannot pass it, and reaching it moves every other marker one
  column right at once (the round's later crossers included; a pack's riders, who all take the time of its
  first, arrive together: the rule follows their crossings, so that it does not part them).

Why one number rather than (column, row): the wrap and the gap to the leader become plain arithmetic, so
the moves cannot disagree with the time the screens show.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeTrack:
    columns: int
    rows: int
    seconds_per_row: int
    start: int  # index of the "start" cell

    @property
    def top_left(self) -> int:
        return 0

    @property
    def bottom_right(self) -> int:
        return self.columns * self.rows - 1

    def cell(self, index: int) -> tuple[int, int]:
        """(column, row) of a cell index."""
        return divmod(index, self.rows)

    def index(self, column: int, row: int) -> int:
        return column * self.rows + row

    def seconds(self, index: int) -> int:
        return index * self.seconds_per_row

    def right(self, index: int, columns: int = 1) -> int:
        return min(index + columns * self.rows, self.bottom_right)

    def up(self, index: int, rows: int) -> int:
        return max(index - rows, self.top_left)


@dataclass(frozen=True)
class Marker:
    rider: str
    index: int
    tracked: bool = True


def move(track: TimeTrack, markers: dict[str, Marker], rider: str, target: int, why: str, log: list[str]) -> bool:
    """Move one marker (in place on the working dict); True when it reached the top-left cell, whose rule
    (every other marker one column right) :func:`finish_round` applies: at once for a rider crossing alone,
    after the pack's crossings for a pack.

    An untracked marker (one that reached the bottom-right cell) never moves again.
    """
    m = markers[rider]
    if not m.tracked or target == m.index:
        return False
    markers[rider] = Marker(rider, target, target != track.bottom_right)
    col, row = track.cell(target)
    log.append(f"{rider} {why} -> col {col} row {row}")
    if target == track.bottom_right:
        log.append(f"{rider} reached the bottom-right cell: no longer tracked")
    if target == track.top_left:
        log.append(f"{rider} reached the top-left cell")
        return True
    return False


def finish_round(
    track: TimeTrack,
    markers: dict[str, Marker],
    still_racing: list[str],
    crossed: list[tuple[str, int]],
    bonus: set[str],
    bonus_rows: int,
    *,
    pack: bool = False,
    rule_by: list[str] | None = None,
) -> list[str]:
    """The end of a round in which riders crossed the line; updates ``markers`` in place, returns the log.

    ``still_racing``: riders that have not crossed (they move one column right).  ``crossed``: (rider, rows
    up) in finishing order, the pack rule and the 5-square limit already applied.  ``bonus``: crossers who
    took 1st or 2nd place of the stage (one more row up each).  ``pack``: the crossers are one pack.
    ``rule_by``: given, each rider whose marker on the top-left cell made the top-left rule apply is appended.

    "When a marker reaches the top-left cell, every other marker moves one column right at once": a rider
    crossing alone who reaches it shifts every other marker at once, the crossers still to move included (a
    rider two squares behind took the winner's time when the rule waited for the round's end).  A pack
    arrives together, "all take the time of the first of them": its crossings are made, then the rule, once
    (applied at the first's arrival it shifted the pack-mates before they moved, a minute behind).
    """
    log: list[str] = []
    for rider in still_racing:
        move(track, markers, rider, track.right(markers[rider].index), "did not cross: one column right", log)

    def top_left_rule(rider: str) -> None:  # moving right never reaches the top-left cell: no rule follows from it
        log.append("top-left rule: every marker not on the top-left cell moves one column right")
        if rule_by is not None:
            rule_by.append(rider)
        for other, m in list(markers.items()):
            if m.index != track.top_left:
                move(track, markers, other, track.right(m.index), "shifted right (top-left rule)", log)

    def on_top_left(rider: str) -> bool:
        return markers[rider].tracked and markers[rider].index == track.top_left

    def up(rider: str, rows: int, why: str) -> bool:
        """Move ``rider`` ``rows`` up; True when it reaches the top-left cell: arrives there, or stands there
        already with rows still to go up.  A marker on that cell has no row above it, and the rule moves the
        others right instead (a rules audit: the tour's leader, winning the next stage from that cell, gained
        nothing and lost its lead to the runner-up's rows; docs/RULINGS.md)."""
        if rows > 0 and on_top_left(rider):
            log.append(f"{rider} is on the top-left cell with {rows} row(s) still to go up")
            return True
        return move(track, markers, rider, track.up(markers[rider].index, rows), why, log)

    reached: str | None = None  # a pack's rider that reached the cell: the rule follows the pack's crossings
    for rider, rows in crossed:
        # a pack's first already on that cell does not arrive with its pack: the others move right before the
        # pack-mates move up (after them, a pack-mate 5 rows behind the tour's leader took the leader's time)
        stood = on_top_left(rider)
        arrived = up(rider, rows, f"crossed: {rows} row(s) up")
        if rider in bonus:
            arrived |= up(rider, bonus_rows, "1st/2nd bonus: 10 s up")
        if arrived and (not pack or stood):
            top_left_rule(rider)
        elif arrived and reached is None:
            reached = rider
    if reached is not None and pack:
        top_left_rule(reached)
    return log
