"""The rules tests see a rules bug as a failure, not as a refusal.

``Match.apply`` refuses a decision whose state it cannot fold, prompt or show ("NOT RECORDED: the game's state
cannot take …"), so that a log an edited event left wrong does not crash the table.  A state the rules made
themselves must never be refused so: here such a refusal fails the test that met it, instead of passing as
one more refusal in a random game."""

from __future__ import annotations

from typing import Any

import pytest

from games.core import match as match_module

CANNOT_TAKE = "NOT RECORDED: the game's state cannot take"


@pytest.fixture(autouse=True)
def _state_bugs_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    original = match_module.Match.apply

    def apply(self: Any, command: Any) -> Any:
        outcome = original(self, command)
        assert not (outcome.reason or "").startswith(CANNOT_TAKE), f"{command}: {outcome.reason}"
        return outcome

    monkeypatch.setattr(match_module.Match, "apply", apply)
