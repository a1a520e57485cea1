"""The ``pitboard`` command.

Each area of the project registers its own sub-commands from its own module (``device/cli_*.py``), so
that the parts can grow side by side without editing one file.  A registering module exposes::

    def register(groups: dict[str, argparse._SubParsersAction]) -> None

``groups`` holds the top-level sub-parser group under ``"top"`` and the shared verb groups ``"bench"``,
``"teach"``, ``"rules"``, ``"play"``, ``"demo"`` and ``"sim"``.  A handler is set with
``parser.set_defaults(func=handler)``; it receives the parsed ``argparse.Namespace`` and returns an exit
code.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from device.paths import DataFolderError

#: Modules that contribute sub-commands.  A module that is missing is an install fault, reported loudly.
PLUGINS: tuple[str, ...] = (
    "device.cli_games",
    "device.cli_device",
    "device.cli_demo",
    "device.cli_table",
    "device.cli_dice",
    "device.bench_menus",
    "device.bench_inputs",
    "device.web.cli",
)


class UserError(Exception):
    """A mistake the user can fix: printed as one clear message, exit code 2."""


def version() -> str:
    """The installed package's version (``pip install`` / ``./dev`` put it there), or say it is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pitboard")
    except PackageNotFoundError:
        return "unknown (run from the source tree, not installed)"


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for (importlib.metadata reads files)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"pitboard {version()}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """argparse with one change: a value that starts like a negative number is a value, lists too.  The
    argparse of Python 3.11 (the Pi's) took ``--box -5,0,40,40`` for an option and said only "expected one
    argument", where the command itself says what is wrong with a box left of the image.  It sets argparse's
    private ``_negative_number_matcher`` (no public switch exists); a test of ``--box -5,...`` guards it.
    Sub-commands inherit it (argparse makes them of the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pitboard",
        description="Race marshal for tabletop racing games: rules, dice and table vision, OLED dashboards.",
    )
    parser.add_argument("--version", action=_Version)
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {"top": top}
    for verb, help_text in (
        ("rules", "ask the rules engine a question"),
        ("play", "apply a script of commands to a game and print what the rules said"),
        ("bench", "benchmarks that print figures as JSON"),
        ("teach", "teach the camera custom dice faces or template outlines"),
    ):
        p = top.add_parser(verb, help=help_text)
        groups[verb] = p.add_subparsers(dest=f"{verb}_what", metavar="WHAT")
    for name in PLUGINS:
        importlib.import_module(name).register(groups)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the command; a :class:`UserError` propagates (``main`` prints it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    return int(func(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = run(argv)
        # what still sits in stdout's buffer is written here, inside the handlers below: at the exit's flush a
        # full disk was Python's "Exception ignored ... No space left on device" and exit 120 (the emulated Pi)
        sys.stdout.flush()
        return code
    except UserError as exc:
        print(f"pitboard: {exc}", file=sys.stderr)
        return 2
    except DataFolderError as exc:  # any command that reads or writes the owner's files
        print(f"pitboard: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `pitboard log export | head`: the reader has what it wanted
        # Python would complain again while flushing stdout at exit: point it at nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command stopped by SIGPIPE
    except OSError as exc:
        # the output itself could not be written (`pitboard log export > backup.jsonl` on a full SD card): a
        # traceback said nothing of the backup being cut short.  Files the commands write say their own names.
        if exc.filename is not None or exc.errno not in _OUTPUT_FAILURES:
            raise
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # exit's flush would fail again
        except OSError:
            pass
        print(f"pitboard: the output could not be written ({exc.strerror}): what it holds is cut short. Free some "
              "space or write it elsewhere, then run the command again (a game's log keeps every command recorded "
              "before this: `pitboard log list`)", file=sys.stderr)
        return 2


#: Errors of writing the output that a user can act on (the disk or card full, a failing card).
_OUTPUT_FAILURES = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


if __name__ == "__main__":  # pragma: no cover - `python -m device.cli`
    # Run through the importable module, not this ``__main__`` copy: the plug-ins raise
    # ``device.cli.UserError``, which is another class than ``__main__.UserError``.
    from device.cli import main as _main

    sys.exit(_main())
