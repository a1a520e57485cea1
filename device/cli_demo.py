"""``pitboard demo [GAME]``: the README's main job (see :mod:`device.demo`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from games import REGISTRY


def _cmd_demo(args: argparse.Namespace) -> int:
    from device.cli import UserError
    from device.demo import DemoFailure, DemoOutError, run_demo

    try:
        summary = run_demo(args.game, Path(args.out), seed=args.seed, skid_dice="d6" if args.d6_skid else "skid")
    except DemoFailure as exc:
        print(f"pitboard demo: the pipeline did not do what the script expected: {exc}")
        return 1
    except DemoOutError as exc:
        raise UserError(str(exc)) from None
    print(json.dumps(summary, indent=2))
    frames = ", the annotated camera frames in frames/" if summary.get("frames") else ""
    print(f"In {args.out}/: one GIF per player screen{frames}, the event log (events.jsonl) and the game log "
          "(game.sqlite)")
    return 0


def register(groups: dict[str, argparse._SubParsersAction]) -> None:
    p = groups["top"].add_parser("demo", help="a scripted table session on bundled data, no hardware needed")
    p.add_argument("game", nargs="?", default="gaslands", choices=sorted(REGISTRY))
    p.add_argument("--out", default="out/demo", help="folder for the GIFs, frames and log (emptied first; "
                   "a folder holding anything else is refused)")
    p.add_argument("--seed", type=int, default=7, help="the synthetic camera's noise seed")
    p.add_argument("--d6-skid", action="store_true", help="Gaslands: plain d6 as skid dice (the stand-in)")
    p.set_defaults(func=_cmd_demo)
