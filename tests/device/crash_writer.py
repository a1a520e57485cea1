"""A game-log writer that the crash test kills with SIGKILL at random moments.

It resumes the Gaslands game in the log (or starts one), then plays on by following the prompt, and after
every committed decision prints ``<last seq> <sha256 of the state>``: the parent treats what was printed as
"reported committed" and proves it is all there after the kill.
"""

from __future__ import annotations

import hashlib
import sys

from device.cli_games import open_match
from device.store import Store
from games.core import Command

SETUP = {
    "players": [
        {"name": "Ana", "vehicles": [{"type": "buggy"}, {"type": "bike"}]},
        {"name": "Ben", "vehicles": [{"type": "truck"}]},
    ]
}


def digest(state: object) -> str:
    return hashlib.sha256(repr(state).encode()).hexdigest()[:16]


def next_command(match, n: int) -> Command:  # type: ignore[no-untyped-def]
    if n % 7 == 6 and match.undoable:
        return Command("undo")
    p = match.prompt()
    if p.awaits == "vehicle":
        return Command("activate", {"vehicle": p.options[0]})
    if p.awaits == "template":
        return Command("choose_template", {"template": "gentle"})
    if p.awaits == "dice" and p.die == "skid":
        return Command("skid_roll", {"faces": ["HAZARD", "SHIFT"][: p.count]})
    if p.awaits == "dice":
        return Command("flip_check", {"die": 1 + n % 6})
    if p.awaits == "shift":
        return Command("shift", {"use": "gear_up"}) if n % 2 else Command("end_shifts")
    return Command("confirm")


def main(path: str, limit: int) -> None:
    store = Store(path)
    _, match = open_match("gaslands", store, SETUP)
    print(f"{match.records[-1].seq} {digest(match.state)}", flush=True)
    for n in range(limit):
        outcome = match.apply(next_command(match, n))
        if outcome.records:
            print(f"{match.records[-1].seq} {digest(match.state)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
