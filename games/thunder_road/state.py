"""Thunder Road: Vendetta (+ Maximum Chrome) — the state folded from events, and the per-player views.

Everything is frozen: ``evolve`` returns a new state built with :func:`dataclasses.replace`, so the match
keeps the state after every decision and undo is free.

What the companion tracks and what the table keeps
--------------------------------------------------
The table moves the models on the hex tiles; the companion does not hold a map of the road.  It holds
what the rules count and what players forget: which movement dice are still unused, which vehicles have
moved or coasted this round, who used their once-per-round command, damage tokens and ON FIRE!, which
tile is the lead tile, how many bumps are still to resolve and who holds the bump re-roll right.  The
table reports what the models did (``move`` with the occupied spaces the vehicle reached, ``scroll`` with
the vehicles on the rear tile, ``placed`` after a bump) and the companion applies the rules to that
report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from games.core import Alert, find

#: "Each player has ... 4 movement dice" [V].
MOVEMENT_DICE = 4
#: "at most twice per vehicle per round" [seed].
MAX_COASTS = 2
#: "a coast counts as a move of 1" [V].
COAST_SPACES = 1
#: The version of the event log a game is written in, from ``game_started``'s ``events`` field: 1 (logs
#: written before the field existed) left the automatic consequences — the next turn, the end of the round,
#: the Fire-die roll due before a burning vehicle moves, the last player standing — to ``evolve``; from 2
#: ``decide`` records each of them as an event of its own.
EVENTS_VERSION = 2


class Step(str, Enum):
    """Where the table is.  Values are what the screens and the JSON show."""

    ROLL = "roll movement dice"
    TURN = "assign a die"
    FIRE = "roll the Fire die"
    FIRE_RULING = "rule on the Fire die"
    MOVE = "move the vehicle"
    BUMP = "roll bump + direction"
    PLACE = "place the bumped vehicle"
    GAME_OVER = "game over"


class FireEffect(str, Enum):
    """What a Fire-die face does (fire_die.toml)."""

    MOVES = "moves"
    OUT = "out"
    ELIMINATE = "eliminate"
    NOTHING = "nothing"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class VehicleKind:
    """One row of vehicles.toml.  ``None`` means "unknown" (or "none" for ``out_of_service_at``)."""

    name: str
    label: str
    short: str
    cls: str
    size: int | None
    damage_slots: int | None
    out_of_service_at: int | None
    minor_damage: bool
    #: an ON FIRE! damage token sets it on fire: True, False, or None (unknown: the table's entry decides)
    damage_fire: bool | None = True


@dataclass(frozen=True)
class CommandRule:
    """One row of commands.toml.  ``dice`` None: unknown, any die accepted."""

    name: str
    label: str
    dice: tuple[int, ...] | None
    board: str
    target: str
    adds_moves: str | int | None = None  # "die", a number, or None (unknown / not a movement command)


@dataclass(frozen=True)
class FireFace:
    label: str
    effect: FireEffect
    moves: int = 0


@dataclass(frozen=True)
class Vehicle:
    id: str  # "Ana/small"
    owner: str
    kind: str
    damage: int = 0
    on_fire: bool = False
    eliminated: bool = False
    moved: bool = False  # moved with a die this round
    coasts: int = 0  # coasts this round


@dataclass(frozen=True)
class Player:
    name: str
    seat: int
    dice: tuple[int, ...] = ()  # unused movement dice this round
    rolled: bool = False
    command: str | None = None  # command-board command used this round
    passed: bool = False  # no vehicle to move and declined to coast: out of this round


@dataclass(frozen=True)
class Turn:
    """The turn in progress."""

    player: str
    action: str | None = None  # "move" | "coast" once a die went to a vehicle
    vehicle: str | None = None
    die: int | None = None
    allowance: int | None = None  # spaces allowed (die or 1 for a coast, + Fire-die moves, + Nitro)
    allowance_known: bool = True  # False when a Nitro of unknown size is in play
    bonus: int = 0  # spaces added by a command before the die went to the vehicle (Nitro)
    commands: tuple[str, ...] = ()  # commands used this turn (command board and Big Rig sections)
    fire_face: str | None = None  # the Fire-die face awaiting a table ruling
    #: (space, vehicle) met on the way so far, reported one at a time (``met``) before the move itself
    met: tuple[tuple[int, str], ...] = ()
    #: vehicles named one at a time (``off``) as on the rear tile the next scroll removes (three and more)
    off_rear: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bump:
    """Two vehicles stacked on one space, to be resolved with the bump and direction dice."""

    a: str  # the vehicle that arrived
    b: str  # the vehicle that was there
    roll: tuple[str, str] | None = None  # (bump face, direction face) of the standing roll
    rerolled: bool = False
    scrolled: bool = False  # the dice moved a vehicle off the front and the road scrolled: it is placed next


@dataclass(frozen=True)
class Board:
    tiles: tuple[str, ...]  # the road deck in the order it is laid
    on_board: int  # tiles on the table at once
    final: int  # index of the final tile in ``tiles``
    lead: int  # index of the lead tile (the front of the road)

    @property
    def lead_is_final(self) -> bool:
        return self.lead >= self.final

    @property
    def rear(self) -> int:
        return self.lead - self.on_board + 1


@dataclass(frozen=True)
class Tables:
    """The rule tables the game was started with (from the first event: replay never reads files)."""

    kinds: tuple[VehicleKind, ...]
    commands: tuple[CommandRule, ...]
    fire: tuple[FireFace, ...]
    dice: tuple[tuple[str, tuple[int | str, ...]], ...]

    def kind(self, name: str) -> VehicleKind:
        return find(self.kinds, "name", name)

    def command(self, name: str) -> CommandRule:
        return find(self.commands, "name", name)

    def fire_face(self, label: str) -> FireFace:
        return find(self.fire, "label", label)

    def faces(self, die: str) -> tuple[int | str, ...]:
        for name, faces in self.dice:
            if name == die:
                return faces
        raise KeyError(die)


@dataclass(frozen=True)
class ThunderRoadState:
    players: tuple[Player, ...]
    vehicles: tuple[Vehicle, ...]
    tables: Tables
    board: Board
    first: int  # seat that goes first this round
    round: int = 1
    step: Step = Step.ROLL
    turn: Turn | None = None
    bumps: tuple[Bump, ...] = ()
    winner: str | None = None
    road_roll: tuple[str, int | str] | None = None  # (vehicle, face) of the last Road die roll this turn
    note: str = ""  # what just happened, in words
    #: what the last command settled that every player is told (a vehicle eliminated or out of service)
    news: str = ""
    log_version: int = EVENTS_VERSION  # how the log of this game records consequences (see EVENTS_VERSION)

    @property
    def finished(self) -> bool:
        """The race is over (a finish line crossed, or the last player standing): the log is closed."""
        return self.step is Step.GAME_OVER

    # -- lookups --------------------------------------------------------------------------------------
    def vehicle(self, vid: str) -> Vehicle:
        return find(self.vehicles, "id", vid)

    def player(self, name: str) -> Player:
        return find(self.players, "name", name)

    def kind_of(self, vid: str) -> VehicleKind:
        return self.tables.kind(self.vehicle(vid).kind)

    def fleet(self, name: str) -> tuple[Vehicle, ...]:
        return tuple(v for v in self.vehicles if v.owner == name)

    # -- rule predicates --------------------------------------------------------------------------------
    def out_of_service(self, vid: str) -> bool:
        """"A car with two damage tokens is out of service (inoperable)" [seed]."""
        v = self.vehicle(vid)
        limit = self.kind_of(vid).out_of_service_at
        return not v.eliminated and limit is not None and v.damage >= limit

    def operable(self, vid: str) -> bool:
        return not self.vehicle(vid).eliminated and not self.out_of_service(vid)

    def standing(self, name: str) -> bool:
        """A player stays in the game while any of their road vehicles is not eliminated."""
        return any(not v.eliminated for v in self.fleet(name))

    def unmoved(self, name: str) -> tuple[Vehicle, ...]:
        """Operable road vehicles the player has not moved this round (the ones a die *must* go to)."""
        return tuple(v for v in self.fleet(name) if not v.moved and self.operable(v.id))

    def coastable(self, name: str) -> tuple[Vehicle, ...]:
        return tuple(
            v for v in self.fleet(name) if v.moved and v.coasts < MAX_COASTS and self.operable(v.id)
        )


# -- views --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VehicleView:
    id: str
    kind: str
    label: str
    short: str
    damage: int
    damage_slots: int | None  # None: unknown
    minor_damage: bool
    on_fire: bool
    out_of_service: bool
    eliminated: bool
    moved: bool
    coasts: int
    moving: bool  # the vehicle moving this turn
    bumped: bool = False  # in a bump still to resolve (stacked on one space with another)
    #: its own section commands active this turn ("Traction Drive" on a Big Rig), by label: not the command
    #: board's, whose footer said "no cmd" while the rig's Traction Drive let it use the Road die
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayerView:
    """What one player's 128x64 screen shows."""

    player: str
    seat: int
    round: int
    your_turn: bool
    turn_player: str | None
    dice: tuple[int, ...]
    command: str | None  # label of the command-board command used this round
    vehicles: tuple[VehicleView, ...]
    step: str
    prompt: str
    standing: bool
    bumps: int = 0
    winner: str | None = None
    alerts: tuple[Alert, ...] = field(default_factory=tuple)
    news: str = ""  # ``ThunderRoadState.news``
    #: players still in the race who have not rolled their movement dice this round (no turn yet): a player
    #: who had rolled read "roll dice" in their header until the last one did
    to_roll: tuple[str, ...] = ()
    #: passed this round (no vehicle to move, declined to coast): out of the round, its dice left unused
    passed: bool = False
    #: while this player's vehicle moves: how far and how ("4 spaces · Drift"; ``common.allowance_line``), which
    #: the menu's status line said only until the menu's page went (a screens review); else ""
    allowance: str = ""
