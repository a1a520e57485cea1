"""Hypothesis drives a Gaslands table with random commands, legal and illegal, for thousands of steps.

Invariants: no crash; every gear within 1..max gear; hazard tokens never negative; exactly one active
vehicle during an activation (none between activations); replaying the live log gives the same state; undo
followed by the same command gives the same state again.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from games.core import Command, Match
from games.core.match import replay
from games.gaslands import GAME, TEMPLATES
from gaslands_helpers import setup

VEHICLE_TYPES = ["buggy", "truck", "bike", "heavy_truck", "performance_car", "car"]
SKID = ["SHIFT", "HAZARD", "SLIDE", "SPIN"]


@st.composite
def commands(draw: st.DrawFn, vehicle_ids: list[str], kind: str | None = None) -> Command:
    """A command of any kind (or of ``kind``), with arguments right or wrong."""
    vid = st.sampled_from(vehicle_ids + ["nobody"])
    if kind is None:
        kind = draw(
            st.sampled_from(
                ["activate", "choose_template", "place_template", "skid_roll", "push_it", "shift", "end_shifts",
                 "confirm", "collision", "hits", "attack", "smash", "gain_hazard", "flip_check", "set_fire",
                 "skip_phase", "bogus"]
            )
        )
    args: dict[str, Any] = {}
    if kind == "activate":
        args = {"vehicle": draw(vid)}
    elif kind == "choose_template":
        args = {"template": draw(st.sampled_from(list(TEMPLATES) + ["u_turn"])),
                "hand": draw(st.sampled_from(["left", "right"])),
                "edge": draw(st.sampled_from(["front", "front", "rear"]))}
    elif kind == "skid_roll":
        args = {"faces": draw(st.lists(st.sampled_from(SKID + ["SHIFT", "SHIFT"]), max_size=6))}
    elif kind == "push_it":
        n = draw(st.integers(1, 3))
        args = {"reroll": list(range(n)), "faces": draw(st.lists(st.sampled_from(SKID), min_size=n, max_size=n))}
    elif kind == "shift":
        args = {"use": draw(st.sampled_from(["cancel", "gear_up", "gear_down", "discard_hazard", "discard", "x"])),
                "result": draw(st.sampled_from(["HAZARD", "SLIDE", "SPIN"]))}
    elif kind == "collision":
        args = {"vehicle": draw(vid), "both_evaded": draw(st.sampled_from([False, False, True]))}
        kind_of = draw(st.sampled_from([None, "head_on", "t_bone", "sideswipe", "tailgate", "rear"]))
        if kind_of is not None:
            args["kind"] = kind_of
    elif kind == "smash":
        args = {"attacker": draw(vid), "target": draw(vid), "dice": draw(st.lists(st.integers(1, 6), max_size=6)),
                "evade": draw(st.lists(st.integers(1, 6), max_size=3))}
    elif kind == "hits":
        args = {"vehicle": draw(vid), "count": draw(st.integers(-1, 4))}
    elif kind == "attack":
        args = {"target": draw(vid), "dice": draw(st.lists(st.integers(1, 6), max_size=4)),
                "evade": draw(st.lists(st.integers(1, 6), max_size=3))}
    elif kind == "gain_hazard":
        args = {"vehicle": draw(vid), "count": draw(st.integers(0, 4))}
    elif kind == "flip_check":
        args = {"die": draw(st.integers(0, 6))}
    elif kind == "set_fire":
        args = {"vehicle": draw(vid), "on": draw(st.booleans())}
    return Command(kind, args)


class GaslandsTable(RuleBasedStateMachine):
    match: Match[Any]
    ids: list[str]

    @initialize(
        players=st.lists(st.lists(st.sampled_from(VEHICLE_TYPES), min_size=1, max_size=2), min_size=2, max_size=4),
        pole=st.integers(0, 3),
        passing=st.sampled_from(["clockwise_each_phase", "clockwise_each_round", "never"]),
    )
    def start(self, players: list[list[str]], pole: int, passing: str) -> None:
        names = ["Ana", "Ben", "Cid", "Dee"][: len(players)]
        options = setup(*zip(names, players), pole=names[pole % len(names)], pole_passing=passing)
        self.match = Match.begin(GAME, options)
        self.ids = [v.id for v in self.match.state.vehicles]
        self.steps = 0

    @rule(data=st.data())
    def send(self, data: st.DataObject) -> None:
        command = data.draw(commands(self.ids))
        self.match.apply(command)
        self.steps += 1

    def send_what_the_prompt_asks(self, data: st.DataObject) -> None:
        """Bias towards progress: pick a command the prompt lists, with plausible arguments."""
        prompt = self.match.prompt()
        kinds = [c for c in prompt.commands if c not in ("undo", "set_fire")]
        kind = data.draw(st.sampled_from(kinds))
        command = data.draw(commands(self.ids, kind) | st.just(Command(kind, {})))
        if kind == "activate" and prompt.options:
            command = Command("activate", {"vehicle": data.draw(st.sampled_from(list(prompt.options)))})
        if kind == "choose_template" and prompt.options and data.draw(st.booleans()):
            command = Command("choose_template", {"template": data.draw(st.sampled_from(list(prompt.options)))})
        if kind == "skid_roll" and prompt.count is not None:
            command = Command("skid_roll", {"faces": data.draw(st.lists(st.sampled_from(SKID), max_size=prompt.count))})
        if kind == "flip_check":
            command = Command("flip_check", {"die": data.draw(st.integers(1, 6))})
        if kind == "smash":  # one of the smash attacks waiting
            from games.gaslands.rules import open_smashes

            s = data.draw(st.sampled_from(list(open_smashes(self.match.state))))
            command = Command("smash", {"attacker": s.attacker, "target": s.target,
                                        "dice": data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=s.dice + 1)),
                                        "evade": data.draw(st.lists(st.integers(1, 6), max_size=1))})
        if kind == "collision" and data.draw(st.booleans()):  # a crash of a known kind with a car that can take it
            others = [v.id for v in self.match.state.vehicles
                      if not v.wrecked and v.id != self.match.state.activation.vehicle]
            if others:
                command = Command("collision", {"vehicle": data.draw(st.sampled_from(others)),
                                                "kind": data.draw(st.sampled_from(["head_on", "t_bone", "tailgate"]))})
        self.match.apply(command)
        self.steps += 1

    @precondition(lambda self: not self.match.state.finished)
    @rule(data=st.data())
    def follow_the_prompt(self, data: st.DataObject) -> None:
        self.send_what_the_prompt_asks(data)

    @precondition(lambda self: not self.match.state.finished)
    @rule(data=st.data())
    def follow_the_prompt_again(self, data: st.DataObject) -> None:
        """The same again: hypothesis picks rules uniformly, and progress needs the prompt's commands."""
        self.send_what_the_prompt_asks(data)

    @precondition(lambda self: self.match.state.activation is not None)
    @rule(count=st.integers(2, 6))
    def pile_hazards_on_the_active_vehicle(self, count: int) -> None:
        """Reach the wipeout step often: terrain hazards on the active vehicle."""
        vid = self.match.state.activation.vehicle
        self.match.apply(Command("gain_hazard", {"vehicle": vid, "count": count}))
        self.steps += 1

    @precondition(lambda self: "collision" in self.match.prompt().commands)
    @rule(data=st.data())
    def crash_of_a_known_kind(self, data: st.DataObject) -> None:
        """A crash whose smash attacks are then asked: a collision window is left after few steps."""
        state = self.match.state
        mover = state.activation.flipping[0] if state.activation.flipping else state.activation.vehicle
        others = [v.id for v in state.vehicles if not v.wrecked and v.id != mover]
        if others:
            self.match.apply(Command("collision", {
                "vehicle": data.draw(st.sampled_from(others)),
                "kind": data.draw(st.sampled_from(["head_on", "t_bone", "sideswipe", "tailgate"]))}))
            self.steps += 1

    @precondition(lambda self: self.match.state.activation is not None and self.match.state.activation.smashes)
    @rule(data=st.data())
    def roll_a_waiting_smash_attack(self, data: st.DataObject) -> None:
        """A crash's smash attacks wait for few steps: rolled here whenever one does."""
        from games.gaslands.rules import open_smashes

        waiting = open_smashes(self.match.state)
        if waiting:
            s = data.draw(st.sampled_from(list(waiting)))
            dice = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=s.dice + 1))
            target = self.match.state.vehicle(s.target)
            evade = data.draw(st.lists(st.integers(1, 6), max_size=target.gear))
            outcome = self.match.apply(Command("smash", {"attacker": s.attacker, "target": s.target, "dice": dice,
                                                         "evade": evade}))
            assert outcome.accepted, outcome.reason
            self.steps += 1

    @rule(data=st.data())
    def undo_then_same_command_gives_same_state(self, data: st.DataObject) -> None:
        command = data.draw(commands(self.ids))
        outcome = self.match.apply(command)
        if not outcome.records:
            return
        after = self.match.state
        assert self.match.apply(Command("undo")).accepted
        assert self.match.apply(command).records
        assert self.match.state == after

    @rule(steps=st.integers(1, 4))
    def undo(self, steps: int) -> None:
        before = self.match.undoable
        outcome = self.match.apply(Command("undo", {"steps": steps}))
        assert outcome.accepted == (before > 0)
        assert self.match.undoable == max(0, before - steps)

    @invariant()
    def gears_hazards_and_one_active_vehicle(self) -> None:
        state = self.match.state
        for v in state.vehicles:
            assert 1 <= v.gear <= v.max_gear, v
            assert v.hazards >= 0, v
            assert 0 <= v.hull <= v.max_hull, v
        active = [vv for view in self.match.views() for vv in view.vehicles if vv.active]
        if state.activation is None:
            assert active == []
        else:
            assert [a.id for a in active] == [state.activation.vehicle]
            assert not state.vehicle(state.activation.vehicle).wrecked or state.activation.step.value >= "1.7"
            # a crash's smash attacks wait only at a collision window, each car's on another
            smashes = state.activation.smashes
            assert all(s.attacker != s.target for s in smashes)
            assert not smashes or state.activation.step.value.startswith(("1.7", "1.8", "3 wipeout: flip move"))

    @invariant()
    def log_replays_to_the_same_state(self) -> None:
        if self.steps % 10 == 0:
            assert replay(GAME, self.match.live_events()) == self.match.state
            # and a fresh match folded from the whole log (undo events included) agrees
            assert Match(GAME, self.match.records).state == self.match.state


TestGaslandsTable = GaslandsTable.TestCase
TestGaslandsTable.settings = settings(
    max_examples=40, stateful_step_count=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
