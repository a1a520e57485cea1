"""``pitboard rules``, ``pitboard play`` and ``pitboard log``: the rules engines from the command line.

``play`` is how the rules are checked from outside: a setup file, a script of commands (one JSON object a
line), a SQLite log.  The setup and the whole script are read and checked first - a line that is not a
command of the game (a field its command does not take included) stops the run with its line number before
the log is opened, so nothing is begun or recorded.  Then each line is decided, committed, and answered
with one JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Iterable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, TextIO

from device.setup_files import SetupFileError, TwiceSaidError, loads_json, read_setup_file, setup_refused
from device.store import NoGameToResume, Store, StoreError
from games import REGISTRY, game_package, load_game
from games.core import Command, Illegal, Match
from games.core.match import check_fields


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, enums and tuples → plain JSON data."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def read_setup(path: Path, game: str = "GAME") -> dict[str, Any]:
    try:
        return read_setup_file(path, fix=f"`pitboard play {game} --example-setup` prints one to start from")
    except SetupFileError as exc:
        raise _user_error(str(exc)) from None


def open_match(game_name: str, store: Store, setup: Mapping[str, Any] | None, *, new: bool = False,
               setup_path: str | Path | None = None) -> tuple[int, Match[Any]]:
    """Resume the latest unfinished game of this kind in the log, or begin one from ``setup`` (read from
    ``setup_path``, which every refusal names); what goes wrong is told as a :class:`device.cli.UserError`."""
    try:
        game_id, match, resumed = store.open_match(load_game(game_name), setup, new=new)
    except Illegal as exc:
        why = setup_refused(setup_path, exc.reason, game=game_name, options=setup,
                            plays="`pitboard play {game}` with the same --setup plays it")
        raise _user_error(why if setup is not None else exc.reason) from None
    except NoGameToResume as exc:
        raise _user_error(str(exc) if new else f"{exc}; give --setup to start one") from None
    except StoreError as exc:
        raise _user_error(str(exc)) from None
    if resumed and setup is not None:
        print(f"pitboard: resuming unfinished {game_name} game {game_id} in {store.path}; the --setup file is "
              "not used (give --new to start another game)", file=sys.stderr)
    others = [g for g in store.games() if not g.finished and g.game != game_name]
    if not resumed and others:  # (a bad-input audit: begun beside them without a word, and `run` takes this one)
        said = ", ".join(f"{g.game} game {g.id}" for g in others)
        print(f"pitboard: began {game_name} game {game_id} in {store.path}; it also holds the unfinished {said}, "
              f"which stay{'s' if len(others) == 1 else ''} there (`pitboard play GAME` resumes a game of its kind; "
              "`pitboard run` resumes the newest unfinished game, this one)", file=sys.stderr)
    return game_id, match


def mark_finished(store: Store, game_id: int, match: Match[Any]) -> None:
    """A game whose state says it is over is not resumed again; one whose end a script undid is, again."""
    store.finish(game_id, bool(getattr(match.state, "finished", False)))


def _bad_line(source: str, number: int, what: str, fix: str = "fix the line") -> Exception:
    """A line of a script that is not a command: nothing of the script has been applied (it is read and
    checked whole before its first command)."""
    return _user_error(f"{source}:{number}: {what}. Nothing of the script was applied (it is checked whole "
                       f"before its first command): {fix} and run it again")


def _numbered(lines: Iterable[str | bytes], source: str) -> Iterable[tuple[int, str]]:
    """Number the lines; bytes are decoded one line at a time, so a line that is not UTF-8 is told by its own
    number."""
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _bad_line(source, number, f"not UTF-8 text (byte {exc.start + 1} of the line)",
                                "save the script as UTF-8") from None
        if number == 1:
            line = line.removeprefix("\ufeff")  # Notepad's byte order mark is no part of the first command
        yield number, line


def read_script(lines: Iterable[str | bytes], source: str, game: Any) -> list[tuple[int, Command]]:
    """Every command of a script with its line number, read and checked before any is applied: a line that
    is not a command of ``game`` - not UTF-8, not a JSON object, a value too long or too deep to read, no
    "type", a type the game does not know, a field its command does not take
    (:func:`games.core.match.check_fields`: the game's own list) - is a :class:`device.cli.UserError`
    naming ``source``, the line and what is wrong."""
    commands: list[tuple[int, Command]] = []
    try:
        for number, line in _numbered(lines, source):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                command = Command.from_json(loads_json(text))
                check_fields(game, command)
            except json.JSONDecodeError as exc:
                raise _bad_line(source, number, f"not a JSON object ({exc.msg})") from None
            except TwiceSaidError as exc:  # (Python kept the last, and recorded it: a bad-input audit)
                raise _bad_line(source, number, str(exc).split("; take out")[0], "take out the one that should not "
                                "be there") from None
            except (ValueError, RecursionError) as exc:  # a number too long to read, nesting too deep
                what = ("nested too deeply" if isinstance(exc, RecursionError)
                        else "a number too long to read (more than 4,300 digits)")
                raise _bad_line(source, number, what) from None
            except Illegal as exc:
                raise _bad_line(source, number, exc.reason) from None
            commands.append((number, command))
    except OSError as exc:
        raise _user_error(f"cannot read the script {source}: {exc.strerror or exc}. Nothing of it was applied") from None
    return commands


def apply_commands(match: Match[Any], commands: Iterable[tuple[int, Command]], out: TextIO, *, as_json: bool) -> None:
    """Apply script commands (from :func:`read_script`); one answer per command."""
    for number, command in commands:
        outcome = match.apply(command)
        prompt = match.prompt()
        if as_json:
            print(json.dumps({
                "command": command.to_json(),
                "accepted": outcome.accepted,
                "reason": outcome.reason,
                "prompt": prompt.to_json(),
            }), file=out)
        else:
            mark = "ok " if outcome.accepted else "NO "
            why = f"  ({outcome.reason})" if outcome.reason else ""
            print(f"{number:4d} {mark}{command.type}{why}\n       → {prompt.text}", file=out)


def apply_lines(match: Match[Any], lines: Iterable[str | bytes], out: TextIO, *, as_json: bool, source: str) -> int:
    """Apply script lines, once all of them read as commands; one answer per command.  Returns an exit code
    (2, with the reason on standard error, when a line is not a command: nothing is applied then)."""
    from device.cli import UserError

    try:
        commands = read_script(lines, source, match.game)
    except UserError as exc:
        print(f"pitboard: {exc}", file=sys.stderr)
        return 2
    apply_commands(match, commands, out, as_json=as_json)
    return 0


def _read_script_arg(path: str, game: str) -> list[tuple[int, Command]]:
    """``--script PATH`` (``-``: standard input) read and checked whole, before the log is opened."""
    if path == "-":
        return read_script(getattr(sys.stdin, "buffer", sys.stdin), path, load_game(game))
    from device.safe_files import unreachable

    closed = unreachable(Path(path))
    if closed:
        raise _user_error(f"the script {path} {closed} (nothing was written to the game log)")
    try:
        script = open(path, "rb")
    except OSError as exc:
        raise _user_error(f"cannot read the script {path}: {exc.strerror or exc}; check the path (nothing was "
                          "written to the game log)") from None
    with script:
        return read_script(script, path, load_game(game))


def _cmd_play(args: argparse.Namespace) -> int:
    if args.example_setup:
        print(_module_attr(args.game, "EXAMPLE_SETUP"))
        return 0
    if not args.db:
        raise _user_error("play needs --db GAME.sqlite (the game log)")
    # every argument is read and checked before the log is opened: a mistake in one begins no game
    setup = read_setup(Path(args.setup), args.game) if args.setup else None
    commands = _read_script_arg(args.script, args.game) if args.script else None
    try:
        with Store(args.db) as store:
            if store.wal_note:
                print(f"warning: {store.wal_note}", file=sys.stderr)
            game_id, match = open_match(args.game, store, setup, new=args.new, setup_path=args.setup)
            if commands is not None:
                try:
                    apply_commands(match, commands, sys.stdout, as_json=args.json)
                finally:
                    mark_finished(store, game_id, match)
            final = {"game_id": game_id, "prompt": match.prompt().to_json(), "views": to_jsonable(match.views())}
            print(json.dumps(final) if args.json else json.dumps(final, indent=2))
    except StoreError as exc:
        raise _user_error(str(exc)) from None
    return 0


def _module_attr(game: str, attr: str) -> Any:
    return getattr(game_package(game), attr)


def _cmd_templates(args: argparse.Namespace) -> int:
    from games.gaslands import TEMPLATES, normalise_chart, template_status, vehicle_types

    types = vehicle_types()
    full_throttle = False
    if args.vehicle:
        if args.vehicle not in types:
            raise _user_error(f"--vehicle {args.vehicle!r} is not a vehicle type; types are {', '.join(sorted(types))}")
        full_throttle = bool(types[args.vehicle].get("full_throttle", False))
    if not 1 <= args.gear <= 6:
        raise _user_error("--gear is 1 to 6")
    try:
        chart = normalise_chart(_read_chart(args.chart) if args.chart else None)
    except Illegal as exc:
        raise _user_error(f"chart file {args.chart}: {exc.reason}") from None
    rows = [
        {"name": t, "status": template_status(t, args.gear, chart, full_throttle=full_throttle).value} for t in TEMPLATES
    ]
    result = {"gear": args.gear, "templates": rows}
    if args.vehicle:
        result["vehicle"] = args.vehicle
    if args.json:
        print(json.dumps(result))
    else:
        for row in rows:
            print(f"{row['name']:16s} {row['status']}")
    return 0


def _read_chart(path: str) -> dict[str, Any]:
    try:
        data = read_setup_file(path, what="chart file",
                               fix="the chart is [chart] with one line per template: NAME = [six statuses]")
    except SetupFileError as exc:
        raise _user_error(str(exc)) from None
    chart = data.get("chart", data)
    if not isinstance(chart, dict):
        raise _user_error(f"chart file {path}: [chart] must be a table of template = [six statuses]")
    return chart


def _cmd_log(args: argparse.Namespace) -> int:
    try:
        with Store(args.db, read_only=True) as store:
            if store.wal_note:
                print(f"warning: {store.wal_note}", file=sys.stderr)
            games = store.games()
            if args.log_what == "list":
                for info in games:
                    print(json.dumps(dataclasses.asdict(info)))
                if not games:  # (an audit: nothing at all was printed, as for a command that failed)
                    print(f"pitboard: {args.db} holds no games yet", file=sys.stderr)
                return 0
            if args.game_id is None:
                if not games:
                    raise _user_error(f"{args.db} holds no games yet; nothing to export")
                game_id = games[-1].id
            elif not -2 ** 63 <= args.game_id < 2 ** 63 or not store.has_game(args.game_id):  # SQLite's whole numbers
                ids = ", ".join(str(g.id) for g in games) or "none"
                raise _user_error(f"{args.db} holds no game {args.game_id} (its games: {ids}); "
                                  f"`pitboard log list --db {args.db}` lists them")
            else:
                game_id = args.game_id
            problems: list[str] = []
            for line in store.export_jsonl(game_id, problems):
                print(line)
    except StoreError as exc:
        raise _user_error(str(exc)) from None
    if problems:
        print(f"pitboard: {args.db}, game {game_id}: {'; '.join(problems)}. Those events were exported as they are "
              "stored (data_text, error); the log was left untouched", file=sys.stderr)
        return 1
    return 0


def register(groups: dict[str, argparse._SubParsersAction]) -> None:
    gas = groups["rules"].add_parser("gaslands", help="Gaslands rules questions")
    gas_sub = gas.add_subparsers(dest="gaslands_what", metavar="WHAT")
    tpl = gas_sub.add_parser("templates", help="which templates a vehicle may pick in a gear")
    tpl.add_argument("--gear", type=int, required=True)
    tpl.add_argument("--vehicle", help="vehicle type (bike applies Full Throttle)")
    tpl.add_argument("--chart", help="the owner's chart file (TOML) laid over the packaged one")
    tpl.add_argument("--json", action="store_true")
    tpl.set_defaults(func=_cmd_templates)

    for name in REGISTRY:
        p = groups["play"].add_parser(name, help=f"play {name} from a script of commands")
        p.add_argument("--setup", help="setup file (TOML); --example-setup prints one")
        p.add_argument("--script", help="commands, one JSON object a line ('-' for stdin)")
        p.add_argument("--db", help="the game log (SQLite); an unfinished game in it is resumed")
        p.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
        p.add_argument("--json", action="store_true")
        p.add_argument("--example-setup", action="store_true")
        p.set_defaults(func=_cmd_play, game=name)

    log = groups["top"].add_parser("log", help="the game log: list games, export one as JSON lines")
    log_sub = log.add_subparsers(dest="log_what", metavar="WHAT", required=True)
    for what in ("list", "export"):
        p = log_sub.add_parser(what)
        p.add_argument("--db", required=True)
        if what == "export":
            p.add_argument("--game-id", type=int, help="the game's number (log list shows them); default the last")
        p.set_defaults(func=_cmd_log)
