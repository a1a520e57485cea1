"""A match: one game's log and the state folded from it.

The log holds every event ever accepted, undone ones included; the state is the fold of the *live*
decisions.  An ``undone`` event retires the newest live decision.  To make undo O(1) the match keeps the
state after each live decision on a stack, so undo is a pop and replay is a single pass.

Persistence is injected: :meth:`Match.apply` hands the new events to ``sink`` (the SQLite store on the
device) and only folds them once ``sink`` has returned the stored records.  Nobody sees the effect of an
event that was not committed first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from games.core import fields
from games.core.model import Command, Decision, Event, Game, Illegal, Prompt, Record
from games.core.typed import not_finite, type_problem

S = TypeVar("S")

UNDONE = "undone"
UNDO = "undo"
#: The fields of ``undo``, the one command the core decides for every game.
UNDO_FIELDS = ("steps",)


def check_fields(game: Any, command: Command) -> None:
    """Refuse a command type the game does not know, or a field ``command`` does not take, naming it and
    the likeliest meant one (``undo: unknown field 'step' (did you mean 'steps'?); the fields here are
    steps``; ``unknown command 'asign' (did you mean 'assign'?)``, or the list of commands when none is near).  The fields are
    the game's own declaration, ``game.commands`` (command type → the fields it takes; see
    :class:`games.core.Game`), and :data:`UNDO_FIELDS` for undo.  A game that declares none is left to its
    ``decide``, which names an unknown command."""
    declared: Mapping[str, Sequence[str]] | None = (
        {UNDO: UNDO_FIELDS} if command.type == UNDO else getattr(game, "commands", None))
    if declared is None:
        return
    fields.plain(command.args, command.type)  # a huge or deeply nested value is told as that first
    if command.type not in declared:
        known = sorted({*declared, UNDO})
        near = fields.did_you_mean(command.type, known)
        # the likeliest meant command alone fits a player's screen; a list of all (Thunder Road has 17)
        # takes three pages of it, so it is given only when no command is near
        raise Illegal(f"unknown command {fields.show(command.type)}"
                      + (near if near else f"; the commands are {', '.join(known)}"))
    fields.only_keys(command.args, declared[command.type], command.type, noun="field")


#: ``sink(decision, events) -> records``: persist the events of one decision, return them as stored.
Sink = Callable[[int, Sequence[Event]], Sequence[Record]]


class CorruptLog(Exception):
    """The log cannot be folded (an undo with nothing to undo, a gap in the sequence, an event the game
    refuses to fold).  Raised with the offending sequence number so the owner can find it."""


#: What a fold, a prompt or the views raise on a state an edited or damaged event left wrong (a player's name
#: that is not at the table, a number written as words).
_BAD_STATE = (KeyError, ValueError, TypeError, AttributeError, IndexError, Illegal)


def _fault(exc: BaseException) -> str:
    """What an event held wrong, in words: a ``KeyError`` said only "'turn'"."""
    if isinstance(exc, Illegal):
        return exc.reason
    if isinstance(exc, KeyError):
        return f"{exc.args[0]!r} is missing, or is not a name this game knows" if exc.args else "a field is missing"
    if isinstance(exc, ValueError) and str(exc):  # its words say it ("unknown Gaslands event 'teleported'"): no
        return str(exc)  # Python class name before them (a bad-input audit)
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class Outcome:
    """What happened to one command: accepted (events recorded) or refused with a reason.  A refusal can
    still record events (a consequence the rules demand, see :class:`games.core.Decision`)."""

    accepted: bool
    reason: str | None
    records: tuple[Record, ...]


class Match(Generic[S]):
    def __init__(self, game: Game[S, Any], records: Iterable[Record] = (), *, sink: Sink | None = None) -> None:
        self.game = game
        self.records: list[Record] = []
        self._stack: list[tuple[int, S]] = []
        self._sink = sink
        #: (state, its prompt, its views) as last shown by the checks below: the newest state's, read again by
        #: whoever shows the game next (the loop, after every press), is not computed twice
        self._shown: tuple[S, Prompt, Sequence[Any]] | None = None
        group: list[Record] = []
        for record in records:
            if group and record.decision != group[0].decision:
                self._fold(group)
                group = []
            group.append(record)
        if group:
            self._fold(group)
        problem = getattr(self.game, "state_problem", None)
        checked: set[int] = set()  # (the stacked states share what no decision changed: checked once)
        for decision, state in self._stack:
            # a value no play makes (a hull of 10.5, or 17 of 12, played on: an audit), in any live decision's
            # state: one undo would bring back a state before the newest (a review)
            wrong = type_problem(state, checked=checked) or (problem(state) if problem is not None else None)
            if wrong is not None:
                seq = next((r.seq for r in reversed(self.records) if r.decision == decision), None)
                raise CorruptLog(f"the game as its events leave it after decision {decision} (up to event {seq}) "
                                 f"cannot be shown: {wrong}")
        if self._stack and self.records:
            # the events folded, but a state an edited event left wrong may still break the prompt or the views
            # (a turn given to a player not at the table): said here, naming the last event, not as a crash of
            # whatever shows the game first
            last = self.records[-1]
            try:
                self._show(self.state)
            except _BAD_STATE as exc:
                raise CorruptLog(f"the game as its events leave it (up to event {last.seq}, {last.event.type}) cannot "
                                 f"be shown: {_fault(exc)}") from exc

    # -- starting ---------------------------------------------------------------------------------
    @classmethod
    def begin(cls, game: Game[S, Any], options: Mapping[str, Any], *, sink: Sink | None = None) -> "Match[S]":
        """Start a new game: ``game.start(options)`` is decision 0 (raises Illegal for bad options)."""
        match: Match[S] = cls(game, sink=sink)
        match._record(0, list(game.start(options)))
        return match

    # -- reading ----------------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return bool(self._stack)

    @property
    def state(self) -> S:
        if not self._stack:
            raise CorruptLog("the game log is empty: the game was never started")
        return self._stack[-1][1]

    @property
    def undoable(self) -> int:
        """How many decisions undo can still retire (the start of the game is not one of them)."""
        return max(0, len(self._stack) - 1)

    def state_before(self, decision: int) -> S | None:
        """The state a live decision was taken in (None: not a live decision, or the game's start)."""
        for k, (d, _) in enumerate(self._stack):
            if d == decision:
                return self._stack[k - 1][1] if k else None
        return None

    def undo_targets(self, steps: int = 1) -> list[tuple[int, list[Event]]]:
        """The decisions an undo of ``steps`` would retire, the newest first: (decision, its events)."""
        targets = [decision for decision, _ in self._stack[::-1][: min(steps, self.undoable)]]
        return [(d, [r.event for r in self.records if r.decision == d]) for d in targets]

    def prompt(self) -> Prompt:
        state = self.state
        return self._shown[1] if self._shown is not None and self._shown[0] is state else self.game.prompt(state)

    def views(self) -> Sequence[Any]:
        state = self.state
        return self._shown[2] if self._shown is not None and self._shown[0] is state else self.game.views(state)

    def live_events(self) -> list[Event]:
        """The events of the live decisions in order: folding them from scratch gives :attr:`state`."""
        live = {decision for decision, _ in self._stack}
        return [r.event for r in self.records if r.decision in live]

    # -- deciding ---------------------------------------------------------------------------------
    def propose(self, command: Command) -> Decision:
        """Ask the rules; nothing is recorded.  Raises :class:`Illegal` (a field the command does not take
        included: :func:`check_fields`)."""
        check_fields(self.game, command)
        if command.type == UNDO:
            steps = command.get("steps", 1)
            if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
                raise Illegal("undo takes a whole number of steps, 1 or more")
            if self.undoable == 0:
                raise Illegal("nothing to undo: this is the start of the game")
            targets = [decision for decision, _ in self._stack[::-1][: min(steps, self.undoable)]]
            return Decision(tuple(Event(UNDONE, {"decision": d}) for d in targets))
        return self.game.decide(self.state, command)

    def apply(self, command: Command) -> Outcome:
        """Decide, persist through the sink, then fold.  Illegal commands record nothing."""
        try:
            decision = self.propose(command)
        except Illegal as exc:
            return Outcome(False, exc.reason, ())
        records: tuple[Record, ...] = ()
        if decision.events:
            try:
                folded = self._check_takes(list(decision.events))
            except CorruptLog as exc:  # nothing written: the table is told why
                return Outcome(False, f"NOT RECORDED: {exc}", ())
            records = tuple(self._record(self._next_decision(), list(decision.events), folded))
        return Outcome(decision.refused is None, decision.refused, records)

    # -- internals --------------------------------------------------------------------------------
    def _next_decision(self) -> int:
        return (self.records[-1].decision + 1) if self.records else 0

    def _check_takes(self, events: list[Event]) -> S | None:
        """Fold ``events`` before they are written, and show the state they leave: an event this state cannot
        take (an edited event earlier in the log left it wrong) raises :class:`CorruptLog`, rather than being
        written and then left unfolded, a log every later start fails on.  Returns the folded state (None for an
        undo, which folds nothing), which the fold after writing takes as it is."""
        if not self._stack or not events or events[0].type == UNDONE:
            return None
        state = self._stack[-1][1]
        event = events[0]
        try:
            for event in events:
                state = self.game.evolve(state, event)
            self._show(state)  # ... and the state it leaves can be shown: the game goes on from it
        except _BAD_STATE as exc:
            raise CorruptLog(f"the game's state cannot take {event.type} ({_fault(exc)}); nothing was "
                             "written: an event earlier in the log may have been edited or damaged") from exc
        return state

    def _show(self, state: S) -> None:
        """The prompt and the views of ``state`` (raising what they raise), kept for :meth:`prompt` and
        :meth:`views` while it is the newest state."""
        self._shown = (state, self.game.prompt(state), self.game.views(state))

    def _record(self, decision: int, events: list[Event], folded: S | None = None) -> Sequence[Record]:
        if self._sink is not None:
            records = list(self._sink(decision, events))
        else:
            start = self.records[-1].seq + 1 if self.records else 1
            records = [Record(start + i, decision, e) for i, e in enumerate(events)]
        self._fold(records, folded)
        return records

    def _fold(self, group: Sequence[Record], folded: S | None = None) -> None:
        """Fold the events of one decision (all undo events, or all game events); ``folded``: the state they
        leave, folded already (:meth:`_check_takes`)."""
        expected = self.records[-1].seq + 1 if self.records else group[0].seq
        for offset, record in enumerate(group):
            if record.seq != expected + offset:
                raise CorruptLog(f"event {record.seq}: the log jumps from {expected + offset - 1} to {record.seq}")
        if group[0].event.type == UNDONE:
            for record in group:
                target = record.event.data.get("decision")
                if len(self._stack) < 2 or self._stack[-1][0] != target:
                    raise CorruptLog(f"event {record.seq}: undoes decision {target}, which is not the newest live one")
                self._stack.pop()
                self.records.append(record)
            return
        if folded is not None:
            self.records.extend(group)
            self._stack.append((group[0].decision, folded))
            return
        state: S | None = self._stack[-1][1] if self._stack else None
        for record in group:
            odd = not_finite(record.event.data)
            if odd is not None:  # (NaN hits wrecked a car: an audit)
                raise CorruptLog(f"event {record.seq} ({record.event.type}) cannot be replayed: {odd}")
            try:
                state = self.game.evolve(state, record.event)
            except _BAD_STATE as exc:
                raise CorruptLog(f"event {record.seq} ({record.event.type}) cannot be replayed: {_fault(exc)}") from exc
            self.records.append(record)
        assert state is not None
        self._stack.append((group[0].decision, state))


def replay(game: Game[S, Any], events: Iterable[Event]) -> S:
    """Fold events from scratch (no undo handling): used to prove that the log gives the same state."""
    state: S | None = None
    for event in events:
        state = game.evolve(state, event)
    if state is None:
        raise CorruptLog("no events to replay")
    return state
