"""``pitboard bench inputs``: damaged files fed to every ``pitboard`` command that reads a file.

For each kind of file a command reads (the appliance config, each game's setup, each game's command
script, a game log, the table calibration, the table config, template outlines, the face library, the token
look, a dice chart, camera images) a good file is made, then damaged in seeded ways: cut short, bytes flipped,
binary, not UTF-8, a byte-order mark, nested thousands deep, integers of thousands of digits, a value of
the wrong type, a folder or a dangling link in its place ...  Each damaged file is given to the command
that reads it, in this process, and the outcome is judged the way a user meets it:

* **no traceback**: the command returns an exit code (argparse's own ``SystemExit`` counts as one);
* **bounded time**: it ends within ``limit_s`` (an alarm turns a hang into a finding);
* **the file is named**: a refusal (exit code other than 0) names the damaged file on stderr;
* **nothing changed**: every file that existed before (the damaged one, the good ones beside it) has the
  same bytes after;
* **refused, not swallowed**: damage that cannot leave a valid file (a folder, binary noise, deep nesting,
  not UTF-8) must be refused (exit code other than 0).

The same generator drives ``tests/device/test_bad_inputs.py``; this command prints its figures as JSON.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import importlib
import io
import json
import os
import random
import re
import signal
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GAMES = ("gaslands", "thunder_road", "space_race", "grand_tour")


@dataclass(frozen=True)
class BadInput:
    """One damaged file and the command that reads it."""

    kind: str
    damage: str
    path: Path
    argv: tuple[str, ...]
    #: The damage leaves no valid file: the command must refuse it.
    must_refuse: bool
    data_dir: Path


@dataclass
class Outcome:
    case: BadInput
    code: int | None
    seconds: float
    stderr: str
    traceback: str | None = None
    changed: list[str] = field(default_factory=list)

    stdout: str = ""

    @property
    def names_file(self) -> bool:
        return self.case.path.name in self.stderr or self.case.path.name in self.stdout

    def problems(self) -> list[str]:
        out = []
        if self.traceback is not None:
            out.append(f"traceback: {self.traceback.strip().splitlines()[-1]}")
        if self.changed:
            out.append(f"changed: {', '.join(self.changed)}")
        if self.code not in (None, 0) and self.traceback is None and not self.names_file:
            out.append(f"refusal does not name {self.case.path.name}: {self.stderr.strip()[-300:]!r}")
        if self.case.must_refuse and self.code == 0:
            out.append("accepted although no valid file can be left")
        return out


# -- damage ---------------------------------------------------------------------------------------------

Damage = Callable[[bytes, random.Random], "bytes | str"]  # str: a special ("folder", "dangling-link")

#: (name, must be refused, damage).
TEXT_DAMAGE: list[tuple[str, bool, Damage]] = [
    ("empty", False, lambda b, r: b""),
    ("cut-in-half", False, lambda b, r: b[: len(b) // 2]),
    ("cut-random", False, lambda b, r: b[: r.randrange(1, max(2, len(b)))]),
    ("flip-1", False, lambda b, r: _flip(b, r, 1)),
    ("flip-8", False, lambda b, r: _flip(b, r, 8)),
    ("flip-64", False, lambda b, r: _flip(b, r, 64)),
    ("binary", True, lambda b, r: bytes(r.randrange(256) for _ in range(2048)) + b"\xff\xfe\x00"),
    ("not-utf8", True, lambda b, r: _insert(b, r, b"\xff\xfe\xc3\x28")),
    ("nul-bytes", False, lambda b, r: _insert(b, r, b"\x00\x00\x00")),
    ("bom", False, lambda b, r: b"\xef\xbb\xbf" + b),
    ("crlf", False, lambda b, r: b.replace(b"\n", b"\r\n")),
    ("twice", False, lambda b, r: b + b"\n" + b),
    ("huge-line", False, lambda b, r: b + b"\n# " + b"x" * 300_000 + b"\n"),
    ("folder", True, lambda b, r: "folder"),
    ("dangling-link", True, lambda b, r: "dangling-link"),
]
TOML_DAMAGE: list[tuple[str, bool, Damage]] = [
    ("deep-nesting", True, lambda b, r: b + b"\nzz_deep = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    ("huge-int", False, lambda b, r: _toml_value(b, r, "1" + "7" * 5000)),
    ("value-true", False, lambda b, r: _toml_value(b, r, "true")),
    ("value-false-text", False, lambda b, r: _toml_value(b, r, '"false"')),
    ("value-list", False, lambda b, r: _toml_value(b, r, "[1, [2], {a = 3}]")),
    ("value-table", False, lambda b, r: _toml_value(b, r, "{ x = 1 }")),
    ("value-negative", False, lambda b, r: _toml_value(b, r, "-99999999999")),
    ("value-huge-float", False, lambda b, r: _toml_value(b, r, "1e308")),
    ("value-nan", False, lambda b, r: _toml_value(b, r, "nan")),
    ("value-inf", False, lambda b, r: _toml_value(b, r, "inf")),
    ("value-empty-text", False, lambda b, r: _toml_value(b, r, '""')),
    ("value-long-text", False, lambda b, r: _toml_value(b, r, '"' + "é" * 20000 + '"')),
    ("value-date", False, lambda b, r: _toml_value(b, r, "1979-05-27T07:32:00Z")),
    ("misspelt-key", False, lambda b, r: _toml_misspell(b, r)),
]
JSON_DAMAGE: list[tuple[str, bool, Damage]] = [
    ("deep-nesting", True, lambda b, r: b"[" * 100_000 + b"]" * 100_000),
    ("json-list", False, lambda b, r: b"[" + b + b"]"),
    ("json-null", False, lambda b, r: b"null"),
    ("json-number", False, lambda b, r: b"1" + b"9" * 5000),
    ("json-nan", False, lambda b, r: _json_leaf(b, r, float("nan"))),
    ("json-inf", False, lambda b, r: _json_leaf(b, r, float("inf"))),
    ("json-text", False, lambda b, r: _json_leaf(b, r, "false")),
    ("json-list-leaf", False, lambda b, r: _json_leaf(b, r, [1, [2, [3]]])),
    ("json-object-leaf", False, lambda b, r: _json_leaf(b, r, {"x": None})),
    ("json-negative", False, lambda b, r: _json_leaf(b, r, -10**30)),
    ("json-bool", False, lambda b, r: _json_leaf(b, r, True)),
    ("json-drop-key", False, lambda b, r: _json_drop(b, r)),
]
SCRIPT_DAMAGE: list[tuple[str, bool, Damage]] = [
    ("line-not-json", False, lambda b, r: _line(b, r, b"{type: roll")),
    ("line-list", False, lambda b, r: _line(b, r, b"[1, 2, 3]")),
    ("line-huge-int", False, lambda b, r: _line(b, r, b'{"type": "roll", "dice": [' + b"9" * 5000 + b"]}")),
    ("line-deep", False, lambda b, r: _line(b, r, b"[" * 100_000 + b"]" * 100_000)),
    ("line-unknown-type", False, lambda b, r: _line(b, r, b'{"type": "teleport"}')),
    ("line-no-type", False, lambda b, r: _line(b, r, b'{"dice": [1]}')),
    ("line-bad-utf8", False, lambda b, r: _line(b, r, b'{"type": "\xff\xfe"}')),
    ("line-nan", False, lambda b, r: _line(b, r, b'{"type": "roll", "dice": [NaN]}')),
    ("line-huge", False, lambda b, r: _line(b, r, b'{"type": "' + b"x" * 200_000 + b'"}')),
]
#: A binary archive (the token look, a NumPy .npz): its text damages mean nothing, its bytes flipped at random
#: mean much (one byte changed inside its compressed data escaped as zlib.error: a bad-input audit).
ARCHIVE_DAMAGE: list[tuple[str, bool, Damage]] = [
    *[d for d in TEXT_DAMAGE if d[0] in ("empty", "cut-in-half", "cut-random", "binary", "folder", "dangling-link")],
    *[(f"flip-{n}{k}", False, lambda b, r, n=n: _flip(b, r, n)) for n in (1, 2, 4) for k in "abcdef"],
    ("flip-64", False, lambda b, r: _flip(b, r, 64)),
]
IMAGE_DAMAGE: list[tuple[str, bool, Damage]] = [
    ("empty", True, lambda b, r: b""),
    ("cut-in-half", False, lambda b, r: b[: len(b) // 2]),
    ("cut-header", True, lambda b, r: b[:40]),
    ("flip-32", False, lambda b, r: _flip(b, r, 32, skip=64)),
    ("text", True, lambda b, r: b"this is not an image\n" * 20),
    ("png-65535", True, lambda b, r: _png_header(65535, 65535)),
    ("png-20000", True, lambda b, r: _png_header(20000, 20000)),
    ("png-1x1", False, lambda b, r: _png_pixels(1, 1, 1)),
    ("png-grey", False, lambda b, r: _png_pixels(640, 480, 1)),
    ("png-rgba", False, lambda b, r: _png_pixels(320, 240, 4)),
    ("folder", True, lambda b, r: "folder"),
    ("dangling-link", True, lambda b, r: "dangling-link"),
]


def _flip(b: bytes, r: random.Random, n: int, skip: int = 0) -> bytes:
    a = bytearray(b)
    for _ in range(n if len(a) > skip else 0):
        i = r.randrange(skip, len(a))
        a[i] ^= 1 << r.randrange(8)
    return bytes(a)


def _insert(b: bytes, r: random.Random, what: bytes) -> bytes:
    i = r.randrange(0, len(b) + 1)
    return b[:i] + what + b[i:]


_TOML_VALUE = re.compile(rb"(?m)^(\s*[A-Za-z_][\w-]*\s*=\s*)(.+)$")


def _toml_value(b: bytes, r: random.Random, value: str) -> bytes:
    matches = list(_TOML_VALUE.finditer(b))
    if not matches:
        return b + b"\nextra = " + value.encode() + b"\n"
    m = r.choice(matches)
    return b[: m.start(2)] + value.encode("utf-8") + b[m.end(2):]


def _toml_misspell(b: bytes, r: random.Random) -> bytes:
    matches = list(_TOML_VALUE.finditer(b))
    if not matches:
        return b + b"\nunknwon = 1\n"
    m = r.choice(matches)
    key = m.group(1)
    name = key.strip().rstrip(b"=").strip()
    return b[: m.start(1)] + key.replace(name, name + b"x", 1) + b[m.end(1):]


def _json_paths(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path + (k,)
            yield from _json_paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:20]):
            yield path + (i,)
            yield from _json_paths(v, path + (i,))


def _json_leaf(b: bytes, r: random.Random, value: Any, *, drop: bool = False) -> bytes:
    obj = json.loads(b)
    paths = list(_json_paths(obj))
    if not paths:
        return json.dumps(value).encode()
    path = r.choice(paths)
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return json.dumps(obj).encode()


def _json_drop(b: bytes, r: random.Random) -> bytes:
    return _json_leaf(b, r, None, drop=True)


def _line(b: bytes, r: random.Random, line: bytes) -> bytes:
    lines = b.splitlines()
    i = r.randrange(0, len(lines) + 1)
    return b"\n".join(lines[:i] + [line] + lines[i:]) + b"\n"


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png_header(w: int, h: int) -> bytes:
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr)
            + _png_chunk(b"IDAT", zlib.compress(b"\x00" * 4096)) + _png_chunk(b"IEND", b""))


def _png_pixels(w: int, h: int, channels: int) -> bytes:
    import cv2
    import numpy as np

    img = np.full((h, w, channels) if channels > 1 else (h, w), 128, np.uint8)
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return buf.tobytes()


# -- good files -----------------------------------------------------------------------------------------


def _good_files(root: Path) -> dict[str, Path]:
    """Every kind of file the commands read, valid, under ``root/good``; returns kind -> path."""
    import cv2
    import numpy as np

    from device.config import load_config  # noqa: F401 - the shipped config must load
    from vision.calibration import calibrate_from_points

    good = root / "good"
    good.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    shipped = Path(__file__).resolve().parent.parent / "firmware_config" / "pitboard.toml"
    out["config"] = good / "pitboard.toml"
    out["config"].write_bytes(shipped.read_bytes())
    for g in GAMES:
        setup_text, commands = importlib.import_module(f"games.{g}.demo").demo_script()
        out[f"setup:{g}"] = good / f"{g}-setup.toml"
        out[f"setup:{g}"].write_text(setup_text)
        out[f"script:{g}"] = good / f"{g}-script.jsonl"
        out[f"script:{g}"].write_text("".join(json.dumps(c) + "\n" for c in commands[:12]))
    frame = np.full((720, 1280, 3), (70, 90, 60), np.uint8)
    out["image:png"] = good / "frame.png"
    cv2.imwrite(str(out["image:png"]), frame)
    photo = sorted((Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dice-real" / "images").glob("*.jpg"))
    out["image:jpeg"] = good / "tray.jpg"
    if photo:
        out["image:jpeg"].write_bytes(photo[0].read_bytes())
    else:
        cv2.imwrite(str(out["image:jpeg"]), frame[:480, :640])
    cal = calibrate_from_points([(100, 80), (1180, 80), (1180, 660), (100, 660)], (800.0, 450.0), (1280, 720))
    out["calibration"] = good / "table_calibration.json"
    out["calibration"].write_text(json.dumps(cal.to_dict(), indent=1))
    out["table-config"] = good / "table.toml"
    out["table-config"].write_text((Path(__file__).resolve().parent.parent / "vision" / "data" / "table_defaults.toml").read_text())
    from vision.dice import faces as faces_mod

    patch = int(getattr(faces_mod, "PATCH", 32))
    rng = np.random.default_rng(0)
    enc = [base64.b64encode(rng.integers(0, 255, patch * patch, dtype=np.uint8).tobytes()).decode() for _ in range(2)]
    out["faces"] = good / "faces.json"
    out["faces"].write_text(json.dumps({"format": "pitboard-faces", "version": getattr(faces_mod, "FORMAT_VERSION", 1),
                                        "patch": patch, "dice": {"skid": {"SHIFT": enc[:1], "HAZARD": enc[1:]}}}))
    out["chart"] = good / "chart.toml"
    out["chart"].write_text('[chart]\n"Short Straight" = ["trivial", "trivial", "trivial", "trivial", "trivial", "trivial"]\n')
    from dataclasses import replace

    from device.token_files import save_token_look
    from vision.tokens import TokenLook

    mat = rng.integers(0, 255, (40, 60, 3), dtype=np.uint8)
    out["tokens"] = save_token_look(replace(TokenLook(), mats={"p1": mat}, taught=True), good / "table_tokens.npz")
    out["outlines"] = good / "template_outlines.toml"
    out["outlines"].write_text((Path(__file__).resolve().parent.parent / "vision" / "data" / "template_shapes.toml").read_text())
    return out


def _argv(kind: str, path: Path, good: dict[str, Path], case_dir: Path, i: int) -> tuple[str, ...]:
    """The command that reads a file of ``kind`` at ``path`` (the other files: the good ones)."""
    new_db = str(case_dir / "new" / "log.sqlite")
    if kind == "config":
        return ("check", "--config", str(path))
    if kind.startswith("setup:"):
        return ("play", kind[6:], "--setup", str(path), "--db", new_db, "--new")
    if kind.startswith("script:"):
        g = kind[7:]
        return ("play", g, "--setup", str(good[f"setup:{g}"]), "--db", new_db, "--new", "--script", str(path))
    if kind == "log":
        return (("log", "list", "--db", str(path)), ("log", "export", "--db", str(path)))[i % 2]
    if kind == "calibration":
        return ("vision", "read", "--calibration", str(path), str(good["image:png"]))
    if kind == "table-config":
        return ("vision", "read", "--calibration", str(good["calibration"]), "--config", str(path), str(good["image:png"]))
    if kind == "outlines":
        return ("vision", "read", "--calibration", str(good["calibration"]), str(good["image:png"]))
    if kind == "faces":
        return ("dice", "read", "--die", "skid", str(good["image:jpeg"]))
    if kind == "chart":
        return ("rules", "gaslands", "templates", "--gear", "2", "--chart", str(path))
    if kind == "tokens":
        return ("vision", "read", "--calibration", str(good["calibration"]), "--tokens", str(path),
                str(good["image:png"]))
    if kind.startswith("image:"):
        return (("dice", "read", str(path)),
                ("vision", "read", "--calibration", str(good["calibration"]), str(path)))[i % 2]
    raise ValueError(kind)


def _damages(kind: str) -> list[tuple[str, bool, Damage]]:
    if kind.startswith("image:"):
        return IMAGE_DAMAGE
    if kind in ("calibration", "faces"):
        return TEXT_DAMAGE + JSON_DAMAGE
    if kind.startswith("script:"):
        return TEXT_DAMAGE + SCRIPT_DAMAGE
    if kind == "log":
        return [d for d in TEXT_DAMAGE if d[0] not in ("crlf", "bom", "huge-line", "twice")]
    if kind == "tokens":
        return ARCHIVE_DAMAGE
    return TEXT_DAMAGE + TOML_DAMAGE


def _good_log(root: Path, good: dict[str, Path]) -> Path:
    from device.cli_games import apply_lines, open_match
    from device.store import Store

    path = root / "good" / "games.sqlite"
    setup_text, commands = importlib.import_module("games.gaslands.demo").demo_script()
    import tomllib

    with Store(path) as store:
        _, match = open_match("gaslands", store, tomllib.loads(setup_text))
        apply_lines(match, [json.dumps(c) for c in commands[:10]], io.StringIO(), as_json=True, source="demo")
    return path


def bad_inputs(root: Path, seed: int = 0) -> Iterator[BadInput]:
    """The damaged inputs, each in a folder of its own under ``root`` (made here)."""
    import shutil

    good = _good_files(root)
    good["log"] = _good_log(root, good)
    rng = random.Random(seed)
    n = 0
    for kind, src in good.items():
        data = src.read_bytes()
        randomised = [d for d in _damages(kind) if re.match(r"(cut-random|flip|value|json-|line-|misspelt)", d[0])]
        for name, must_refuse, damage in _damages(kind) + [(f"{d[0]}-again", d[1], d[2]) for d in randomised]:
            if name == "dangling-link" and kind in ("faces", "outlines"):
                must_refuse = False  # a link to nothing in the data folder is a file not there yet
            n += 1
            case_dir = root / f"{n:04d}-{kind.replace(':', '-')}-{name}"
            case_dir.mkdir()
            data_dir = case_dir / "data"
            data_dir.mkdir()
            target = (data_dir if kind in ("faces", "outlines") else case_dir) / src.name
            try:
                result = damage(data, rng)
            except (ValueError, TypeError):  # a JSON damage of a file that is not JSON: skip
                shutil.rmtree(case_dir)
                continue
            if result == "folder":
                target.mkdir()
            elif result == "dangling-link":
                target.symlink_to(case_dir / "no-such-file")
            else:
                assert isinstance(result, bytes)
                target.write_bytes(result)
            yield BadInput(kind, name, target, _argv(kind, target, good, case_dir, n), must_refuse, data_dir)


# -- running --------------------------------------------------------------------------------------------


class _Hang(Exception):
    pass


def _hashes(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def run_one(case: BadInput, root: Path, *, limit_s: float = 20.0) -> Outcome:
    """Run the case's command in this process; never raises (a traceback is a finding)."""
    from device import cli

    before = _hashes(root)
    err, out = io.StringIO(), io.StringIO()
    code: int | None = None
    tb: str | None = None
    old_env = os.environ.get("PITBOARD_DATA")
    os.environ["PITBOARD_DATA"] = str(case.data_dir)
    old_handler = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(_Hang()))
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = cli.main(list(case.argv))
            except SystemExit as exc:  # argparse's own refusals
                code = exc.code if isinstance(exc.code, int) else 2
    except _Hang:
        tb = f"hang: still running after {limit_s:g} s"
    except BaseException:  # noqa: BLE001 - any escape is what this bench counts
        tb = traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_env is None:
            os.environ.pop("PITBOARD_DATA", None)
        else:
            os.environ["PITBOARD_DATA"] = old_env
    seconds = time.perf_counter() - t0
    after = _hashes(root)
    changed = sorted(k for k, v in before.items() if after.get(k) != v)
    return Outcome(case, code, seconds, err.getvalue(), tb, changed, out.getvalue())


def summarise(outcomes: list[Outcome]) -> dict[str, Any]:
    per_kind: dict[str, Counter[str]] = {}
    for o in outcomes:
        c = per_kind.setdefault(o.case.kind, Counter())
        c["inputs"] += 1
        c["refused"] += int(o.code not in (0, None))
        c["tracebacks"] += int(o.traceback is not None)
        c["files_changed"] += int(bool(o.changed))
        c["unnamed_refusals"] += int(o.code not in (0, None) and o.traceback is None and not o.names_file)
        c["silently_accepted"] += int(o.case.must_refuse and o.code == 0)
    total: Counter[str] = Counter()
    for c in per_kind.values():
        total.update(c)
    seconds = sorted(o.seconds for o in outcomes)
    return {
        "inputs": len(outcomes),
        **{k: total[k] for k in ("refused", "tracebacks", "files_changed", "unnamed_refusals", "silently_accepted")},
        "slowest_s": round(seconds[-1], 2) if seconds else None,
        "median_s": round(seconds[len(seconds) // 2], 3) if seconds else None,
        "per_kind": {k: dict(v) for k, v in sorted(per_kind.items())},
        "problems": [f"{o.case.kind}/{o.case.damage}: {p}" for o in outcomes for p in o.problems()][:40],
    }


def cmd_bench(args: argparse.Namespace) -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pitboard-bad-inputs-") as tmp:
        root = Path(tmp)
        outcomes = [run_one(case, root) for case in bad_inputs(root, args.seed)]
    print(json.dumps(summarise(outcomes), indent=None if args.json else 2))
    return 0


def register(groups: dict) -> None:
    p = groups["bench"].add_parser("inputs", help="damaged files fed to every command that reads one (JSON figures)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one line of JSON")
    p.set_defaults(func=cmd_bench)
