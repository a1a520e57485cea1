"""The scripted demo game (``pitboard demo thunder_road``) and the generic ``pitboard play`` on it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from games.core import Command, Match
from games.core.match import replay
from games.thunder_road import GAME
from games.thunder_road.demo import demo_script

#: Commands of the demo that are meant to be refused (an illegal assignment, an out-of-service car).
DELIBERATELY_REFUSED = 2


def _play() -> tuple[Match, list[bool], list[str]]:
    setup, commands = demo_script()
    match = Match.begin(GAME, tomllib.loads(setup))
    accepted = [match.apply(Command.from_json(c)).accepted for c in commands]
    return match, accepted, [r.event.type for r in match.records]


def test_demo_exercises_the_rules_it_promises():
    match, accepted, events = _play()
    assert accepted.count(False) == DELIBERATELY_REFUSED
    for kind in ("coasted", "command_used", "moved", "bump_rolled", "bump_rerolled", "bump_placed", "damaged",
                 "fire_rolled", "fire_roll_required", "turn_started", "round_ended"):
        assert kind in events, kind
    assert "assignment_refused" not in events  # the refusals recorded nothing
    on_fire = [r for r in match.records if r.event.type == "damaged" and r.event.data["on_fire"]]
    assert on_fire, "an ON FIRE! damage token"
    assert any(r.event.type == "moved" and r.event.data["passed"] for r in match.records), "a Drift past a car"
    assert replay(GAME, match.live_events()) == match.state


def test_demo_script_is_pure():
    assert demo_script() == demo_script()
    setup, commands = demo_script()
    assert isinstance(setup, str) and all(isinstance(c, dict) and "type" in c for c in commands)


def test_pitboard_play_runs_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    cli = pytest.importorskip("device.cli")
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    setup, commands = demo_script()
    (tmp_path / "setup.toml").write_text(setup)
    (tmp_path / "script.jsonl").write_text("\n".join(json.dumps(c) for c in commands))
    code = cli.main(["play", "thunder_road", "--setup", str(tmp_path / "setup.toml"), "--script",
                     str(tmp_path / "script.jsonl"), "--db", str(tmp_path / "game.sqlite"), "--json"])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == len(commands) + 1
    assert sum(not line["accepted"] for line in lines[:-1]) == DELIBERATELY_REFUSED
    assert all(set(line) == {"command", "accepted", "reason", "prompt"} for line in lines[:-1])
    final = lines[-1]
    assert [v["player"] for v in final["views"]] == ["Ana", "Ben"]
