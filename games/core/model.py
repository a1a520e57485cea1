"""Domain types shared by every game: commands, events, decisions, prompts and alerts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from games.core.table_input import Menu

S = TypeVar("S")
V = TypeVar("V", covariant=True)


T = TypeVar("T")


def find(items: Iterable[T], attr: str, value: object) -> T:
    """The first of ``items`` whose ``attr`` equals ``value`` (a vehicle by id, a player by name...);
    ``KeyError(value)`` when there is none."""
    for item in items:
        if getattr(item, attr) == value:
            return item
    raise KeyError(value)


class Illegal(Exception):
    """The rules refuse a command.  ``reason`` is shown to the table as it is, so it speaks the game's
    language ("Turn is not permitted in gear 5"), never Python's."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _frozen_json(value: Any) -> Any:
    """A JSON round-trip: proves the payload is plain data and detaches it from the caller's objects."""
    return json.loads(json.dumps(value, sort_keys=True))


@dataclass(frozen=True)
class Command:
    """What somebody at the table asks for: a button press, a camera observation, a script line.

    ``type`` names the move (``choose_template``, ``skid_roll``, ``undo`` ...); ``args`` its parameters.
    """

    type: str
    args: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Command":
        """``{"type": "shift", "use": "gear_up"}`` → ``Command("shift", {"use": "gear_up"})``."""
        if not isinstance(obj, Mapping):
            raise Illegal("a command must be a JSON object with a \"type\"")
        kind = obj.get("type")
        if not isinstance(kind, str) or not kind:
            raise Illegal('a command needs a "type", e.g. {"type": "choose_template", "template": "turn"}')
        return cls(kind, _frozen_json({k: v for k, v in obj.items() if k != "type"}))

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.args}

    def get(self, key: str, default: Any = None) -> Any:
        return self.args.get(key, default)


@dataclass(frozen=True)
class Event:
    """Something that happened, in the past tense (``template_chosen``, ``hazard_gained``).

    ``data`` is plain JSON data so that the event can be stored, exported and replayed as it is.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", _frozen_json(dict(self.data)))

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "data": dict(self.data)}


@dataclass(frozen=True)
class Record:
    """One event as the log holds it: its place in the log and the decision it belongs to.

    A decision is the group of events one command produced; undo retires whole decisions.
    """

    seq: int
    decision: int
    event: Event


@dataclass(frozen=True)
class Decision:
    """What ``decide`` returns.

    ``events`` are appended to the log.  ``refused`` is set when the command itself was refused but the
    refusal has a consequence the rules demand (Gaslands' touch-move rule: a not-permitted template is
    refused, and the player on the left then picks for that vehicle).  A plain refusal with no consequence
    raises :class:`Illegal` instead.
    """

    events: tuple[Event, ...]
    refused: str | None = None


@dataclass(frozen=True)
class Prompt:
    """What the table must do next.

    ``awaits`` names the input: ``"template"``, ``"dice"``, ``"shift"``, ``"confirm"``, ``"choice"`` ...;
    ``die`` and ``count`` say which dice and how many when dice are awaited; ``commands`` lists the command
    types that are legal now, so a button panel or a script knows what it may send.
    """

    text: str
    step: str
    awaits: str
    player: str | None = None
    vehicle: str | None = None
    die: str | None = None
    count: int | None = None
    options: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "step": self.step,
            "awaits": self.awaits,
            "player": self.player,
            "vehicle": self.vehicle,
            "die": self.die,
            "count": self.count,
            "options": list(self.options),
            "commands": list(self.commands),
        }


@dataclass(frozen=True)
class Alert:
    """Something the screens flash: ``kind`` is a stable key (``illegal_template``, ``wipeout_coming``,
    ``wrecked`` ...), ``text`` what a player reads, ``player`` whose screen (None: everybody's)."""

    kind: str
    text: str
    player: str | None = None


class Game(Protocol, Generic[S, V]):
    """A game declared as pure functions.  ``S`` is its state type, ``V`` its per-player view type.

    A game may also declare ``commands``: each command type it decides → the fields that command takes
    (``{"hits": ("vehicle", "count", "cause"), "confirm": ()}``).  With it, a command carrying any other
    field (a misspelt one, usually) is refused before ``decide`` is asked, naming the field and the
    likeliest meant one (:func:`games.core.match.check_fields`); without it, the fields are not checked.

    For the game log a game may also declare ``timeline_heading(state) -> str``, where the table is in its own
    words ("Round 2 · gear phase 3", "Stage 1 · round 2 at the line", "Turn 3"), and ``timeline_words(event,
    names) -> str | None``, an event in its words where the plain reading of the data would not do (the set-up's
    rule tables; Gaslands' attacks and crashes), ``names`` being the vehicles' names by their ids; without them
    the log reads the state's ``round``/``stage``/``turn`` and the event's data.

    A game may declare ``state_problem(state) -> str | None`` too: what a state folded from a log edited by hand
    holds that no play makes (a gear above the vehicle's max), checked with the fields' declared types
    (:func:`games.core.typed.type_problem`) when a log is replayed.

    And ``setup_notes(options) -> list[str]``: for a setup ``start`` takes, what the table should know before it
    plays (a rule fact of the setup still the data file's placeholder), said by ``pitboard check`` and the
    phone's Check as warnings.
    """

    name: str

    def start(self, options: Mapping[str, Any]) -> Sequence[Event]:
        """Validate the table's options and return the events that begin the game (raise Illegal)."""
        ...

    def evolve(self, state: S | None, event: Event) -> S:
        """Fold one event into the state.  ``state`` is None only for the first event."""
        ...

    def decide(self, state: S, command: Command) -> Decision:
        """Check ``command`` against the rules; return the events it causes or raise :class:`Illegal`."""
        ...

    def prompt(self, state: S) -> Prompt:
        ...

    def views(self, state: S) -> Sequence[V]:
        ...

    def menu(self, state: S) -> "Menu":
        """What can be done now with the buttons: a small tree of choices in the rulebook's words, and the
        roll awaited (see :mod:`games.core.table_input`)."""
        ...
