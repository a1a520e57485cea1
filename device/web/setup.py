"""Set-up from the page: a new game's setup checked by the game's own ``start`` (the same messages as
``pitboard play --setup``), and the Gaslands permitted-gears chart edited as a 9 × 6 grid and saved as the
``[chart]`` TOML the rules already read (``pitboard rules gaslands templates --chart FILE``; a setup file's
``[chart]``).  A game begun from the page takes the saved chart unless its setup has a ``[chart]`` of its own;
likewise the Fire die and the other games' facts (:mod:`device.web.facts`); so does a game ``pitboard run`` begins
from ``[game] setup`` (:func:`with_saved_files`).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games import REGISTRY, game_package

CHART_FILE = "gaslands-chart.toml"


def game_names() -> list[str]:
    return list(REGISTRY)


def example_setup(game: str) -> str:
    return str(getattr(game_package(game), "EXAMPLE_SETUP", "") or "")


def check_setup(game: str, text: str, chart_path: Path | None = None) -> tuple[dict[str, Any] | None, str]:
    """``(options, "a valid table: ...")`` or ``(None, what is wrong and what to do)``."""
    from device.setup_files import SetupFileError, _parsed, seated_players, setup_notes, setup_refused
    from games.core import Illegal

    try:  # the same reader and the same words as `pitboard play --setup FILE`, the file being the form
        options = _parsed("the setup", "setup", "correct it and check again", tomllib.loads, text)
    except SetupFileError as exc:
        return None, str(exc)
    if not isinstance(options, dict):
        return None, "the setup must be a TOML table"
    given = options
    saved = with_saved_files(game, options, chart_path) if chart_path is not None else Saved(options)
    options = saved.options
    note = f"; {saved.kept}" if saved.kept else ""
    damaged = "".join(f"; note: {problem}" for problem in saved.problems)
    try:
        events = list(game_package(game).GAME.start(options))
    except Illegal as exc:
        return None, setup_refused(None, exc.reason, game=game, options=given,
                                   plays="choose {title} in the game list and check again")
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return None, setup_refused(None, str(exc))
    try:
        players = seated_players(game_package(game), events)
    except Exception:  # noqa: BLE001 - the names are only for the message; the rules accepted the table
        players = []
    who = f" for {', '.join(players)}" if players else ""
    from device.dashboards.common import name_warnings

    warned = "".join(f"; note: {text}" for _who, text in name_warnings(players))
    warned += "".join(f"; note: {text}" for text in setup_notes(game_package(game), options))
    from device.web.pages import title_of

    return options, f"{title_of(game)}: a valid table{who}{note}{warned}{damaged}"


@dataclass(frozen=True)
class Saved:
    """A setup with what the owner saved from the phone's pages (:func:`with_saved_files`)."""

    options: dict[str, Any]
    read: tuple[Path, ...] = ()  # the saved files the options took something from
    kept: str = ""  # what the setup's own tables keep from the saved facts ("": nothing)
    #: each saved file the game would read but cannot (damaged, or refused by the rules with this setup), and what
    #: the game uses instead
    problems: tuple[str, ...] = ()


def with_saved_files(game: str, options: Mapping[str, Any], chart_path: Path) -> Saved:
    """``options`` with what the owner saved from the phone's pages: the Gaslands chart at ``chart_path``, and
    beside it the Fire die and a game's rule facts (:mod:`device.web.facts`); the setup's own tables win.  A damaged
    file gives nothing and is named (it was dropped without a word, and the game begun on the packaged values while
    Check said "a valid table": an audit); so are saved facts the rules refuse beside this setup (a sheet's saved
    ``start_column`` past the setup's own ``columns``: a review), and the setup is taken as given."""
    from device.web.facts import GAMES, file_name, merged, read_facts, shadowed

    out = dict(options)
    read: list[Path] = []
    problems: list[str] = []
    folder = chart_path.parent
    if game == "gaslands" and "chart" not in out:
        saved, problem = read_chart(chart_path)
        if saved:
            out["chart"], read = saved, [*read, chart_path]
        elif problem:
            problems.append(f"{problem}; until then this game uses the packaged permitted-gears chart")
    if game == "thunder_road" and "fire_die" not in out:
        faces, problem = read_fire(folder / FIRE_FILE)
        if faces:
            out["fire_die"], read = {"faces": faces}, [*read, folder / FIRE_FILE]
        elif problem:
            problems.append(f"{problem}; until then this game uses the packaged Fire die")
    kept = ""
    if game in GAMES:
        facts_path = folder / file_name(game)
        facts, problem = read_facts(facts_path)
        if problem:
            problems.append(f"{problem}; until then this game uses the setup's and the packaged rule facts")
        if facts:
            own = shadowed(out, facts)
            if own:
                kept = (f"the setup's own {', '.join(own)} {'is' if len(own) == 1 else 'are'} used, not the "
                        f"saved facts in {facts_path} (delete those lines from the setup to use the saved ones)")
            taken = merged(out, facts)
            if taken != out:  # something the setup did not set itself
                read.append(facts_path)
            out = taken
    if read:
        refused = _refusal(game, out)
        if refused is not None and _refusal(game, options) is None:
            files = ", ".join(map(str, read))
            return Saved(dict(options), (), "", (*problems, f"what was saved in {files} does not fit this setup "
                                                 f"({refused}); until it is mended on the phone's pages (or set in "
                                                 "the setup) this game uses the setup as it is"))
    return Saved(out, tuple(read), kept, tuple(problems))


def _refusal(game: str, options: Mapping[str, Any]) -> str | None:
    """Why the game's own ``start`` refuses ``options`` (None: it takes them)."""
    from games.core import Illegal

    try:
        list(game_package(game).GAME.start(dict(options)))
    except Illegal as exc:
        return exc.reason
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return str(exc)
    return None


def saved_files_notes(game: str, options: Mapping[str, Any], chart_path: Path | None) -> str:
    """"; note: ..." for each file saved from the page that a game of ``game`` begun with ``options`` would read
    but cannot (:attr:`Saved.problems`)."""
    if chart_path is None:
        return ""
    return "".join(f"; note: {problem}" for problem in with_saved_files(game, options, chart_path).problems)


def read_chart(path: Path) -> tuple[dict[str, list[str]], str]:
    """The owner's saved rows (empty when none) and a problem with the file ("" when none)."""
    if not path.exists():
        return {}, ""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, f"{path} cannot be read ({exc}); saving the chart here writes it anew"
    chart = data.get("chart", data)
    if not isinstance(chart, dict):
        return {}, f"{path}: [chart] must be a table of template = [six statuses]; saving writes it anew"
    return {str(k): list(v) for k, v in chart.items() if isinstance(v, list)}, ""


def chart_view(path: Path, gear: int) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str],
                                                list[tuple[str, str]], str]:
    """The chart as the rules see it (packaged + saved rows), the saved rows, the statuses, the verdict of
    each template in ``gear``, and a problem with the saved file."""
    from games.core import Illegal
    from games.gaslands import TEMPLATES, TemplateStatus, normalise_chart, template_status

    saved, problem = read_chart(path)
    try:
        chart = normalise_chart(saved)
    except Illegal as exc:
        problem = f"{path}: {exc.reason}; the packaged chart is shown"
        chart, saved = normalise_chart(None), {}
    verdicts = [(t, template_status(t, gear, chart).value) for t in TEMPLATES]
    return chart, saved, [s.value for s in TemplateStatus], verdicts, problem


def chart_toml(rows: Mapping[str, list[str]]) -> str:
    from games.gaslands import TEMPLATES

    lines = ["# The owner's permitted-gears chart (Gaslands), gears 1..6, written by the Pitboard web page.",
             "# Read by `pitboard rules gaslands templates --chart FILE`; paste [chart] into a setup file to use it",
             "# there.  Statuses: trivial, permitted, hazardous, not_permitted, unknown.", "", "[chart]"]
    width = max(len(t) for t in TEMPLATES)
    for name in TEMPLATES:
        if name in rows:
            cells = ", ".join(f'"{c}"' for c in rows[name])
            lines.append(f"{name:<{width}} = [{cells}]")
    return "\n".join(lines) + "\n"


def typed_chart(path: Path, form: Mapping[str, str]) -> dict[str, list[str]]:
    """The grid as the form sent it: its cells over the chart saved at ``path`` (the packaged chart with the saved
    rows over it; a saved file the rules refuse: the packaged chart), a cell the form does not send keeping what
    is saved."""
    from games.core import Illegal
    from games.gaslands.chart import TEMPLATES, default_chart, normalise_chart

    try:
        current = normalise_chart(read_chart(path)[0])
    except Illegal:
        current = default_chart()
    return {name: [str(form.get(f"{name}.{g}", current[name][g - 1])) for g in range(1, 7)] for name in TEMPLATES}


def save_chart(path: Path, form: Mapping[str, str]) -> str:
    """The grid's cells (``turn.1`` .. ``hairpin.6``) checked by the rules' own chart check, then written
    atomically: only the rows that differ from the packaged chart.  A cell the form does not send keeps what
    is saved (a cut-off or empty form erased the owner's chart: every missing cell was written "unknown");
    a form with no cell at all is refused."""
    from device.safe_files import write_atomic
    from games.core import Illegal
    from games.gaslands.chart import TEMPLATES, default_chart, normalise_chart

    cells = [f"{name}.{g}" for name in TEMPLATES for g in range(1, 7)]
    if not any(c in form for c in cells):
        raise ValueError("the chart was not saved: the form sent none of its cells (cut off on the way?); "
                         "reload the page and save again")
    rows: dict[str, list[str]] = {}
    packaged = default_chart()
    for name, row in typed_chart(path, form).items():
        if row != packaged[name]:
            rows[name] = row
    try:
        normalise_chart(rows)
    except Illegal as exc:
        raise ValueError(f"the chart was not saved: {exc.reason}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, chart_toml(rows).encode("utf-8"))
    return f"saved {len(rows)} changed row(s) to {path}"


# -- Thunder Road: the Fire die's faces ------------------------------------------------------------------

FIRE_FILE = "thunder_road-fire_die.toml"
#: The most extra spaces a Fire die face may give (the same bound as the other facts' numbers).
MAX_FIRE_MOVES = 200


def read_fire(path: Path) -> tuple[list[dict[str, Any]], str]:
    """The owner's saved Fire die faces (empty when none) and a problem with the file ("" when none)."""
    if not path.exists():
        return [], ""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [], f"{path} cannot be read ({exc}); saving the faces here writes it anew"
    table = data.get("fire_die", data)
    faces = table.get("faces") if isinstance(table, dict) else None
    if not isinstance(faces, list):
        return [], f"{path}: [fire_die] needs faces = a list of {{label, effect, moves}}; saving writes it anew"
    return [dict(f) for f in faces if isinstance(f, dict)], ""


def fire_view(path: Path) -> tuple[list[dict[str, Any]], list[str], str]:
    """The Fire die's faces as the rules read them (the saved ones, else the packaged), the effects, and a
    problem with the saved file."""
    from games.core import Illegal
    from games.thunder_road.state import FireEffect
    from games.thunder_road.tables import _parse_fire, load_table

    saved, problem = read_fire(path)
    faces = saved or [dict(f) for f in load_table("fire_die")["faces"]]
    try:
        _parse_fire({"faces": faces})
    except Illegal as exc:
        problem = f"{path}: {exc.reason}; the packaged faces are shown"
        faces = [dict(f) for f in load_table("fire_die")["faces"]]
    return faces, [e.value for e in FireEffect], problem


def fire_toml(faces: list[dict[str, Any]]) -> str:
    lines = ["# The owner's Fire die (Thunder Road: Vendetta, Maximum Chrome), written by the Pitboard web page.",
             "# The setup file's [fire_die] takes the same rows; a new game takes these (from the page or [game] setup).", "",
             "[fire_die]"]
    for f in faces:
        lines += ["", "[[fire_die.faces]]", f"label = {json.dumps(str(f['label']))}",
                  f"effect = {json.dumps(str(f['effect']))}"]
        if f.get("moves"):
            lines.append(f"moves = {int(f['moves'])}")
    return "\n".join(lines) + "\n"


def save_fire(path: Path, form: Mapping[str, str]) -> str:
    """The faces' effects and moves (``fire1.effect``, ``fire1.moves`` ...) checked by the rules' own
    parser of [fire_die], then written atomically."""
    from device.safe_files import write_atomic
    from games.core import Illegal
    from games.core.fields import show
    from games.thunder_road.tables import _parse_fire

    faces, _effects, _problem = fire_view(path)
    out = []
    for f in faces:
        label = str(f["label"])
        effect = str(form.get(f"{label}.effect", f.get("effect", "unknown")))
        raw = str(form.get(f"{label}.moves", f.get("moves", 0)) or "0").strip()
        try:
            moves = int(raw)
        except ValueError:
            raise ValueError(f"the Fire die was not saved: face {label!r}: moves {show(raw)} is not a whole "
                             f"number; type the extra spaces the face gives, 1 to {MAX_FIRE_MOVES}") from None
        if effect == "moves" and not 0 <= moves <= MAX_FIRE_MOVES:  # 0: the rules say "1 or more"
            raise ValueError(f"the Fire die was not saved: face {label!r}: moves {moves} is out of range; type the "
                             f"extra spaces the face gives, 1 to {MAX_FIRE_MOVES}")
        out.append({"label": label, "effect": effect, "moves": moves if effect == "moves" else 0})
    try:
        _parse_fire({"faces": out})
    except Illegal as exc:
        raise ValueError(f"the Fire die was not saved: {exc.reason}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, fire_toml(out).encode("utf-8"))
    return f"saved the Fire die's {len(out)} faces to {path}"
