"""Thunder Road under a random table: hypothesis drives mostly-legal and deliberately illegal commands (and
undo) through :class:`games.core.Match` for thousands of steps and checks the invariants after each one:

* no crash: every command is either accepted or refused with a reason (``Illegal`` never escapes);
* coasts never above 2 per vehicle in a round;
* at most one command-board command per player per round, never on a coast turn;
* a die only goes to an operable vehicle not moved this round; a coast only when there is none;
* damage never above a vehicle's slots (where the slot count is known);
* the log replays to the same state (``replay(match.live_events()) == match.state``);
* the same log written the old way (no version, no consequence events) folds to the same state;
* a refused command records nothing: the state and what undo would take back stay as they were;
* undo followed by the same command gives the same state again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from games.core import Command, Event, Match
from games.core.match import replay
from games.thunder_road import GAME
from games.thunder_road.rules import CONSEQUENCES
from games.thunder_road.state import MAX_COASTS, Step, ThunderRoadState
from test_thunder_road_helpers import KNOWN_FIRE, setup

# Small fleets, so that rounds end and coasting (up to its limit) comes up within a few dozen steps.
SETUP = setup(
    ("Ana", ["small"]),
    ("Ben", ["medium", "big_rig"]),
    tiles=6,
    on_board=3,
    fire_die=KNOWN_FIRE,
    vehicle_types={"big_rig": {"damage_slots": 3}},
    commands={"nitro": {"adds_moves": "die"}},
)

COMMAND_TYPES = (
    "roll", "assign", "coast", "command", "pass", "fire", "fire_ruling", "move", "off", "scroll", "finish", "bump",
    "reroll", "placed", "damage", "ignite", "road", "undo", "nonsense",
)
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 9), st.sampled_from(["small", "Ana/small", "Ben/large", "x", "", "6"]),
    st.lists(st.integers(0, 7), max_size=5),
)


class ThunderRoadTable(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.match: Match[ThunderRoadState] = Match.begin(GAME, SETUP)

    # -- helpers ---------------------------------------------------------------------------------------
    @property
    def state(self) -> ThunderRoadState:
        return self.match.state

    def apply(self, obj: dict[str, Any]) -> None:
        before = self.state
        undoable = self.match.undoable
        try:
            command = Command.from_json(obj)
        except Exception as exc:  # pragma: no cover - from_json only raises Illegal
            raise AssertionError(f"from_json crashed on {obj}: {exc!r}") from exc
        outcome = self.match.apply(command)
        assert outcome.accepted or outcome.reason, f"refused without a reason: {obj}"
        if not outcome.accepted:
            assert not outcome.records, f"a refusal recorded events: {obj}"
            assert self.state is before and self.match.undoable == undoable
        for record in outcome.records:
            e = record.event
            if e.type == "command_used":
                if before.tables.command(e.data["command"]).board == "command_board":
                    assert before.player(e.data["player"]).command is None, f"a second command this round: {obj}"
                # "not on a turn in which you coast": the command board's rule (Traction Drive, on the Big Rig's
                # centre section, goes with a coast)
                board = before.tables.command(e.data["command"]).board == "command_board"
                assert before.turn is not None and not (board and before.turn.action == "coast"), \
                    f"a command-board command on a coast turn: {obj}"
            if e.type == "die_assigned":
                v = e.data["vehicle"]
                assert not before.vehicle(v).moved and before.operable(v), f"not an unmoved operable vehicle: {obj}"
            if e.type == "moved":
                # a vehicle off the road is hit by nobody; a Drift passes the first vehicle met, wherever it is now
                assert not [v for v in e.data["collisions"] if before.vehicle(v).eliminated], f"hit a vehicle off the road: {obj}"
                assert before.turn is not None
                met = before.turn.met
                if met and "drift" in before.turn.commands and met[0][0] < e.data["spaces"]:
                    assert e.data["passed"] == met[0][1], f"a Drift passed another than the first met: {obj}"
            if e.type == "coasted":
                assert not before.unmoved(e.data["player"]), f"coasted while a vehicle had to move: {obj}"
                assert before.turn is not None and not [
                    c for c in before.turn.commands if before.tables.command(c).board == "command_board"
                ], f"coasted after a command-board command: {obj}"

    def _vehicle(self, data: st.DataObject, owner: str | None = None) -> str:
        pool = [v.id for v in self.state.vehicles if owner is None or v.owner == owner]
        return data.draw(st.sampled_from(pool))

    def _legal_guess(self, data: st.DataObject) -> dict[str, Any]:
        """A command that fits the prompt, with arguments that are often (not always) legal."""
        s = self.state
        step = s.step
        if step is Step.ROLL:
            waiting = [p.name for p in s.players if s.standing(p.name) and not p.rolled]
            dice = {n: data.draw(st.lists(st.integers(1, 6), min_size=4, max_size=4)) for n in waiting}
            return {"type": "roll", "dice": dice}
        if step is Step.GAME_OVER:
            return {"type": "undo"}
        turn = s.turn
        assert turn is not None
        me = turn.player
        hand = s.player(me).dice or (1,)
        die = data.draw(st.sampled_from(hand))
        short = lambda vid: vid.split("/", 1)[1]  # noqa: E731
        if step is Step.TURN:
            unmoved = [short(v.id) for v in s.unmoved(me)]
            # every vehicle that moved, also those that already coasted twice: the limit must refuse them
            coast = [short(v.id) for v in s.fleet(me) if v.moved]
            choice = data.draw(st.sampled_from(["assign", "assign", "assign", "coast", "command", "pass", "road"]))
            if choice == "assign" and unmoved:
                return {"type": "assign", "vehicle": data.draw(st.sampled_from(unmoved)), "die": die}
            if choice == "coast" and coast:
                return {"type": "coast", "vehicle": data.draw(st.sampled_from(coast)), "die": die}
            if choice == "command":
                name = data.draw(st.sampled_from(["airstrike", "nitro", "drift", "repair", "traction_drive"]))
                return {"type": "command", "name": name, "die": die, "vehicle": short(self._vehicle(data, me))}
            if choice == "road":
                return {"type": "road", "vehicle": short(self._vehicle(data, me)), "face": data.draw(st.integers(1, 3))}
            if choice == "pass" or not unmoved:
                if coast and data.draw(st.integers(0, 3)):
                    return {"type": "coast", "vehicle": data.draw(st.sampled_from(coast)), "die": die}
                return {"type": "pass"}
            return {"type": "assign", "vehicle": data.draw(st.sampled_from(unmoved + ["small"])), "die": die}
        if step is Step.FIRE:
            return {"type": "fire", "face": data.draw(st.sampled_from([f.label for f in s.tables.fire]))}
        if step is Step.FIRE_RULING:
            effect = data.draw(st.sampled_from(["moves", "out", "eliminate", "nothing"]))
            return {"type": "fire_ruling", "effect": effect, "moves": data.draw(st.integers(1, 3))}
        if step is Step.MOVE:
            choice = data.draw(st.sampled_from(["move", "move", "move", "met", "off", "scroll", "finish", "command"]))
            if choice == "off":  # a vehicle on the rear tile, named before the scroll (three or more: the buttons' way)
                others = [v.id for v in s.vehicles if not v.eliminated and v.id != turn.vehicle]
                return {"type": "off", "vehicle": data.draw(st.sampled_from(others or [turn.vehicle]))}
            if choice == "met":  # a vehicle met on the way, reported before the move (the buttons' way)
                others = [v.id for v in s.vehicles if not v.eliminated and v.id != turn.vehicle]
                return {"type": "met", "vehicle": data.draw(st.sampled_from(others or [turn.vehicle])),
                        "at": data.draw(st.integers(1, max(turn.allowance or 1, 1)))}
            if choice == "scroll":
                others = [v.id for v in s.vehicles if not v.eliminated and v.id != turn.vehicle]
                return {"type": "scroll", "eliminated": data.draw(st.lists(st.sampled_from(others), max_size=2, unique=True))}
            if choice == "finish":
                return {"type": "finish"}
            if choice == "command":
                return {"type": "command", "name": data.draw(st.sampled_from(["nitro", "drift", "airstrike"])), "die": die}
            spaces = data.draw(st.integers(0, turn.allowance or 0))
            others = [v.id for v in s.vehicles if not v.eliminated and v.id != turn.vehicle]
            crowded = spaces and others and data.draw(st.integers(0, 2)) == 0  # a third of the moves meet vehicles
            hits = data.draw(st.lists(st.sampled_from(others), max_size=min(2, spaces), unique=True)) if crowded else []
            spots = sorted(data.draw(st.lists(st.integers(1, max(spaces, 1)), min_size=len(hits), max_size=len(hits), unique=True)))
            return {"type": "move", "spaces": spaces, "occupied": [{"at": a, "vehicle": h} for a, h in zip(spots, hits)]}
        bump = s.bumps[0]
        faces = {"bump": data.draw(st.sampled_from(["bump1", "bump2", "bump6"])), "direction": data.draw(st.integers(1, 6))}
        if step is Step.BUMP:
            return {"type": "bump", **faces}
        if data.draw(st.booleans()):
            return {"type": "reroll", **faces}
        onto = data.draw(st.one_of(st.none(), st.sampled_from([v.id for v in s.vehicles if not v.eliminated])))
        return {"type": "placed", "moved": data.draw(st.sampled_from([bump.a, bump.b])), "onto": onto}

    # -- rules -----------------------------------------------------------------------------------------
    @rule(data=st.data())
    def play_along(self, data: st.DataObject) -> None:
        self.apply(self._legal_guess(data))

    @rule(data=st.data())
    def play_along_more(self, data: st.DataObject) -> None:
        for _ in range(6):
            self.apply(self._legal_guess(data))

    @rule(data=st.data())
    def table_event(self, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(["damage", "damage", "ignite"]))
        obj: dict[str, Any] = {"type": kind, "vehicle": self._vehicle(data)}
        if kind == "damage":
            obj["on_fire"] = data.draw(st.booleans())
        self.apply(obj)

    @rule(data=st.data())
    def garbage(self, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(COMMAND_TYPES))
        keys = data.draw(st.lists(st.sampled_from(
            ["player", "vehicle", "die", "dice", "name", "face", "effect", "moves", "spaces", "occupied",
             "eliminated", "bump", "direction", "moved", "onto", "on_fire", "first", "steps"]), max_size=4, unique=True))
        obj = {"type": kind, **{k: data.draw(JUNK) for k in keys}}
        self.apply(obj)

    @precondition(lambda self: self.match.undoable > 0)
    @rule()
    def undo(self) -> None:
        assert self.match.apply(Command("undo")).accepted

    @rule(data=st.data())
    def undo_then_redo_is_the_same(self, data: st.DataObject) -> None:
        obj = self._legal_guess(data)
        if obj["type"] == "undo":
            return
        outcome = self.match.apply(Command.from_json(obj))
        if not outcome.records:
            return
        after = self.state
        assert self.match.apply(Command("undo")).accepted
        again = self.match.apply(Command.from_json(obj))
        assert again.accepted == outcome.accepted and again.reason == outcome.reason
        assert self.state == after

    # -- invariants ------------------------------------------------------------------------------------
    @invariant()
    def coasts_at_most_twice(self) -> None:
        assert all(v.coasts <= MAX_COASTS for v in self.state.vehicles)

    @invariant()
    def damage_within_slots(self) -> None:
        for v in self.state.vehicles:
            slots = self.state.kind_of(v.id).damage_slots
            assert v.damage >= 0 and (slots is None or v.damage <= slots)

    @invariant()
    def dice_are_the_rolled_ones(self) -> None:
        for p in self.state.players:
            assert len(p.dice) <= 4 and all(1 <= d <= 6 for d in p.dice)

    @invariant()
    def log_replays_to_the_state(self) -> None:
        assert replay(GAME, self.match.live_events()) == self.state

    @invariant()
    def the_log_written_the_old_way_replays_to_the_state(self) -> None:
        """Version 1 logs held only the commands' events (and no Nitro size): evolve draws the rest."""
        old = []
        for e in self.match.live_events():
            if e.type == "game_started":
                old.append(Event(e.type, {"options": e.data["options"]}))
            elif e.type not in CONSEQUENCES:
                old.append(Event(e.type, {k: v for k, v in e.data.items() if k != "adds_moves"}))
        folded = replay(GAME, old)
        assert folded.log_version == 1 and replace(folded, log_version=2) == self.state

    @invariant()
    def screens_and_prompt_do_not_crash(self) -> None:
        p = self.match.prompt()
        assert p.text and p.commands
        views = self.match.views()
        assert len(views) == 2
        if self.state.step is Step.GAME_OVER:
            assert self.state.winner is None or not self.state.winner or views[0].winner == self.state.winner


ThunderRoadTable.TestCase.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_thunder_road_random_table = ThunderRoadTable.TestCase
