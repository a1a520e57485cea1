"""Gaslands: Refuelled — the state folded from events, and the per-player views the screens draw.

Everything is frozen: ``evolve`` returns a new state with :func:`dataclasses.replace`, so the match can
keep the state after every decision for free undo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from games.core import Alert, find

#: Hazard tokens at which a vehicle loses control in the wipeout step.
WIPEOUT_AT = 6


class Step(str, Enum):
    """Where the table is.  Values are what the screens and the JSON show."""

    CHOOSE_VEHICLE = "choose vehicle"
    CHOOSE_TEMPLATE = "1.1 choose template"
    TOUCH_MOVE = "1.1 touch-move: left player picks"
    PLACE_TEMPLATE = "1.2 place template"
    SKID_CHECK = "1.3 skid check"
    SHIFTS = "1.4 apply SHIFT results"
    SLIDE = "1.6 resolve slide"
    MOVE = "1.7 move"
    SPIN = "1.8 resolve spin"
    ATTACK = "2 attack step"
    WIPEOUT_FLIP = "3 wipeout: flip check"
    #: lost control while in gear 1: no d6 is lower than 1, so no flip check; the table turns the car
    WIPEOUT_TURN = "3 wipeout: lost control in gear 1"
    WIPEOUT_MOVE = "3 wipeout: flip move"
    GAME_OVER = "game over"


class TemplateStatus(str, Enum):
    """One cell of the permitted-gears chart."""

    TRIVIAL = "trivial"
    PERMITTED = "permitted"
    HAZARDOUS = "hazardous"
    NOT_PERMITTED = "not_permitted"
    UNKNOWN = "unknown"

    @property
    def usable(self) -> bool:
        """An unknown cell never raises an "illegal" flag: the owner has not filled it in yet."""
        return self is not TemplateStatus.NOT_PERMITTED


class SkidFace(str, Enum):
    SHIFT = "SHIFT"
    HAZARD = "HAZARD"
    SLIDE = "SLIDE"
    SPIN = "SPIN"


@dataclass(frozen=True)
class Vehicle:
    id: str
    name: str
    type: str
    owner: str
    max_gear: int
    max_hull: int
    handling: int
    weight: str
    crew: int
    full_throttle: bool = False
    tag: int | None = None
    gear: int = 1
    hazards: int = 0
    hull: int = 0
    on_fire: bool = False
    activated_phase: tuple[int, int] | None = None  # (round, gear phase) of its last activation

    @property
    def wrecked(self) -> bool:
        return self.hull <= 0


@dataclass(frozen=True)
class SmashAttack:
    """A collision's smash attack not rolled yet: ``attacker`` on ``target``, ``dice`` the count its kind and the
    gears give (head-on: both gears; T-bone, sideswipe: the attacker's; tailgate: the difference), with the
    weight classes' dice when the owner's setup gives them (``weight_known``)."""

    attacker: str
    target: str
    kind: str
    dice: int
    weight_known: bool


@dataclass(frozen=True)
class Activation:
    """The active vehicle's activation in progress."""

    vehicle: str
    step: Step
    template: str | None = None
    hand: str | None = None
    edge: str = "front"
    status: TemplateStatus | None = None
    touch_move: bool = False
    refused_template: str | None = None
    skid_results: tuple[SkidFace, ...] = ()
    pushed: bool = False
    free_shifts: int = 0
    shifts_left: int = 0
    cancelled: tuple[SkidFace, ...] = ()
    #: (vehicle, gear it had) of the vehicle losing control now (its flip check or its turn is awaited)
    flipping: tuple[str, int] | None = None
    #: vehicles wrecked during this activation (the screens flash them until it ends)
    wrecks: tuple[str, ...] = ()
    #: the smash attacks of this activation's collisions not rolled yet (each vehicle's on the other)
    smashes: tuple[SmashAttack, ...] = ()

    @property
    def uncancelled(self) -> tuple[SkidFace, ...]:
        """HAZARD, SLIDE and SPIN results still standing after the cancels."""
        left: list[SkidFace] = [r for r in self.skid_results if r is not SkidFace.SHIFT]
        for c in self.cancelled:
            left.remove(c)
        return tuple(left)


@dataclass(frozen=True)
class Settings:
    pole_passing: str = "clockwise_each_phase"
    skid_dice: str = "skid"  # or "d6": the plain-d6 stand-in
    d6_faces: tuple[tuple[int, str], ...] = ((1, "HAZARD"), (2, "SPIN"), (3, "SLIDE"), (4, "SHIFT"), (5, "SHIFT"), (6, "SHIFT"))
    push_it: bool = True
    #: the flip check after losing control ([P]: one secondary source): false for a table whose rulebook has none
    flip_check: bool = True
    #: Smash attack dice added (or, negative, taken away) by weight class: "heavier_by_1" .. "lighter_by_2" →
    #: dice, as the owner's setup gives them ([scenario.weight_dice]); a difference not given is unknown.
    weight_dice: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class GaslandsState:
    players: tuple[str, ...]
    vehicles: tuple[Vehicle, ...]
    chart: tuple[tuple[str, tuple[str, ...]], ...]  # template → status per gear 1..6
    settings: Settings
    pole: int = 0  # seat index holding pole position
    round: int = 1
    phase: int = 1
    turn: int = 0  # seat index whose turn it is to activate
    activation: Activation | None = None
    finished: bool = False
    winner: str | None = None  # the player the table named when it ended the game, if any
    #: what the last decision settled that every player is told (an attack's hits, evaded and hull left)
    news: str = ""

    def vehicle(self, vid: str) -> Vehicle:
        return find(self.vehicles, "id", vid)


# -- views --------------------------------------------------------------------------------------------


def name_for_owner(name: str, owner: str) -> str:
    """A vehicle's name as its owner reads it: "Dmitri's Bike with Sidecar" is "Bike with Sidecar" to Dmitri
    (on his menu and his dashboard the owner's name only pushes the rest off the line)."""
    mine = f"{owner}'s "
    return name[len(mine):] if name.startswith(mine) and len(name) > len(mine) else name


@dataclass(frozen=True)
class VehicleView:
    """One vehicle as the screens show it.  Everything a dashboard needs is here, so that no screen
    re-derives a rule: ``wipeout_at`` is the hazard count at which it loses control in the wipeout step,
    ``activates_this_phase`` says it is activating now or still qualifies in the current gear phase (gear ≥
    phase, not activated yet, not wrecked)."""

    id: str
    name: str
    type: str
    gear: int
    max_gear: int
    hazards: int
    hull: int
    max_hull: int
    on_fire: bool
    wrecked: bool
    activated_this_phase: bool
    active: bool
    activates_this_phase: bool = False
    wipeout_at: int = WIPEOUT_AT
    #: hazard tokens the rules will give it at 1.5 (Gain hazard tokens) for the activation under way: one for
    #: each uncancelled HAZARD, SLIDE and SPIN rolled so far, one for a hazardous template.  A table that lays
    #: them as the dice show them is not "more than the log", and they are not entered twice.
    hazards_due: int = 0


@dataclass(frozen=True)
class PlayerView:
    """What one player's 128×64 screen shows."""

    player: str
    seat: int
    round: int
    gear_phase: int
    has_pole: bool
    #: the table waits for this player now (the prompt's player: the active player, the player on the left
    #: while they pick and place under the touch-move rule, the player who turns a vehicle that lost control)
    your_activation: bool
    vehicles: tuple[VehicleView, ...]
    step: str
    prompt: str
    alerts: tuple[Alert, ...] = field(default_factory=tuple)
    #: the game is over and the table named this player its winner
    winner: str | None = None
    #: the player the table waits for now (the prompt's), whoever's screen this is
    acting: str | None = None
    #: what the last decision settled that every player is told (``GaslandsState.news``)
    news: str = ""
