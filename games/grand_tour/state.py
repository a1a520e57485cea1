"""Flamme Rouge Grand Tour: the state folded from events.

Frozen dataclasses throughout; ``evolve`` builds new ones with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from games.core import find
from games.grand_tour.timetrack import TimeTrack

ROLES: tuple[str, str] = ("rouleur", "sprinteur")


class Phase(str, Enum):
    SPECIALTIES = "specialties"
    RACING = "racing"
    BETWEEN_STAGES = "between stages"
    FINISHED = "tour over"


#: Specialty cards dealt to each team before stage 1 (it keeps one).
SPECIALTIES_DEALT = 2


@dataclass(frozen=True)
class Specialty:
    id: str
    name: str
    timing: str
    text: str
    known: bool


@dataclass(frozen=True)
class Rider:
    id: str  # "<team>.<role>"
    team: str
    role: str
    index: int  # time-track cell, see games.grand_tour.timetrack
    tracked: bool = True
    crossed: bool = False  # crossed the line in the current stage
    specialty: str | None = None
    exhaustion: int | None = None  # exhaustion cards held at the end of the last stage
    keep: int | None = None  # of which kept for the next stage (half discarded, rounded down)


@dataclass(frozen=True)
class Team:
    name: str
    points: int = 0
    dealt: tuple[str, ...] = ()
    kept: str | None = None


@dataclass(frozen=True)
class Scoring:
    stage_points: tuple[int, ...]
    final_time_points: tuple[int, ...]
    bonus_places: int
    bonus_rows: int
    max_squares: int
    #: a round in which nobody crosses moves the riders still racing too, once the stage has crossers (tour.toml)
    lose_time_every_round: bool = False
    #: the best-time points after the last stage go team by team, at each team's best rider (tour.toml)
    time_points_by_team: bool = False


@dataclass(frozen=True)
class GrandTourState:
    stages: int
    track: TimeTrack
    scoring: Scoring
    specialties_on: bool
    cooperation: bool
    cards: tuple[Specialty, ...]
    teams: tuple[Team, ...]
    riders: tuple[Rider, ...]
    phase: Phase
    stage: int = 1
    round: int = 0  # rounds entered at the line in this stage (with crossers; with none: lose_time_every_round)
    order: tuple[str, ...] = ()  # finishing order of the current stage so far
    #: crossers of the round being entered with the buttons (rider, squares), in finishing order
    open_round: tuple[tuple[str, int], ...] = ()
    #: the rider named as the next crosser whose squares past the line are awaited (buttons: rider, then squares)
    crossing: str | None = None
    results: tuple[tuple[str, ...], ...] = ()  # finishing order of each finished stage
    start_order: tuple[str, ...] = ()  # teams, first to place at the start line first
    time_ranking: tuple[str, ...] = ()
    winners: tuple[str, ...] = ()
    note: str = ""
    #: what the last event decided that every team must be told (a stage's points, the cards a rider keeps,
    #: the tour's winner), in the rulebook's words; "" after any other event
    news: str = ""
    #: whether the time sheet's columns and start cell are the table's own (False: the data file's placeholders)
    sheet_known: bool = True

    def team(self, name: str) -> Team:
        return find(self.teams, "name", name)

    def rider(self, rid: str) -> Rider:
        return find(self.riders, "id", rid)

    def card(self, cid: str) -> Specialty:
        return find(self.cards, "id", cid)

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def leader_index(self) -> int:
        return min(r.index for r in self.riders)

    @property
    def specialty_team(self) -> Team | None:
        """The team the specialties phase serves now: each team is dealt its cards in turn, then each keeps one in
        turn (None outside that phase, or once every team has kept its card)."""
        if self.phase is not Phase.SPECIALTIES:
            return None
        return (next((t for t in self.teams if len(t.dealt) < SPECIALTIES_DEALT), None)
                or next((t for t in self.teams if t.kept is None), None))

    def last_stage_place(self, rid: str) -> int | None:
        """1-based place of the rider in the last finished stage (None before any)."""
        if not self.results:
            return None
        return self.results[-1].index(rid) + 1

    def tie_keys(self) -> tuple[dict[str, int], dict[str, int]]:
        """Each rider's time-track index and last-stage place (after every rider when none yet), for
        :func:`best_rider`."""
        unplaced = len(self.riders) + 1
        return ({r.id: r.index for r in self.riders},
                {r.id: self.last_stage_place(r.id) or unplaced for r in self.riders})


def rider_label(rid: str) -> str:
    """``"red.sprinteur"`` → ``"red Sprinteur"`` (the rulebook's names for the riders)."""
    team, _, role = rid.partition(".")
    return f"{team} {role.capitalize()}" if role else rid


def best_rider(team: str, index: Mapping[str, int], place: Mapping[str, int]) -> tuple[int, int]:
    """The team's best rider by the seed's tie rule between riders, as (time-track index, last-stage place): less
    time, then the better place in the last stage.  (One rider's pair: the least time and the best place of two
    different riders made a team better than either rider.)"""
    return min((index[r], place[r]) for r in index if r.split(".")[0] == team)
