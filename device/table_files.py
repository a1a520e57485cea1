"""Files of the table reader: calibration (JSON), the owner's table config and taught outlines (TOML),
images in, tag sheets out.  Everything the pure ``vision`` modules need from disk comes through here.

Where: the owner's data folder (``device.paths.data_dir()``) unless a path is given:
``table_calibration.json``, ``table.toml`` (overrides of ``vision/data/table_defaults.toml``),
``template_shapes.toml`` (edited shapes, replacing the shipped estimates) and
``template_outlines.toml`` (outlines taught with ``pitboard teach template``).
Writes are atomic (temporary file, then rename) so a power cut never leaves half a calibration.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from device.paths import data_dir
from device.safe_files import FileProblem, folder_given, write_atomic
from device.safe_files import read_image as _read_image
from device.setup_files import SetupFileError, read_json_object, read_toml_file
from vision.calibration import Calibration, CalibrationError, Zone, unique_zones
from vision.table import ConfigError, TableConfig, config_from_dict, default_tables, merge
from vision.templates import ShapeDataError, TemplateShape, builtin_shapes, shapes_from_dict, shapes_to_toml

CALIBRATION_FILE = "table_calibration.json"
CONFIG_FILE = "table.toml"
SHAPES_FILE = "template_shapes.toml"
OUTLINES_FILE = "template_outlines.toml"
#: The largest table file read: a calibration or outline file is a few KB; anything far bigger is not one.
MAX_TABLE_FILE_BYTES = 4 * 1024 * 1024


class TableFileError(Exception):
    """A table file is missing or unreadable; the message says which file and what to do."""


class NotCalibrationError(TableFileError):
    """The file named as the calibration is plainly another kind of file (a face library, an image, a token
    look ...): the owner pointed at the wrong file, so nothing may advise moving or replacing it."""


class NewerCalibrationError(TableFileError):
    """The calibration was written by a newer Pitboard (a later schema): not damaged, and never written over."""


def _newer_schema(p: Path) -> int | None:
    """The schema of the calibration at ``p`` when a newer Pitboard wrote it (else None: none there, another
    kind of file, damaged, this Pitboard's)."""
    from vision.calibration import CALIBRATION_SCHEMA

    try:
        schema = json.loads(p.read_text(encoding="utf-8-sig")).get("schema")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return schema if isinstance(schema, int) and not isinstance(schema, bool) and schema > CALIBRATION_SCHEMA else None


#: The first bytes of files an owner might give in place of the calibration, and what to call them.
_MAGIC = ((b"PK\x03\x04", "a NumPy archive (the token look table_tokens.npz is one)"),
          (b"PK\x05\x06", "a NumPy archive (the token look table_tokens.npz is one)"),
          (b"\x93NUMPY", "a NumPy array"), (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
          (b"%PDF", "a PDF (the tag sheet is one)"), (b"SQLite format 3\x00", "an SQLite database (a game log is one)"))


def _head(p: Path, n: int = 64) -> bytes:
    try:
        with p.open("rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def not_a_calibration(p: Path, data: object = None) -> str | None:
    """What the file at ``p`` looks like when it is plainly not a calibration (``data``: its parsed JSON, when
    it parsed); None when it may be a calibration, damaged or of another schema."""
    head = _head(p)
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if data is None:  # it did not parse as JSON
        return _text_not_json(p)
    if not isinstance(data, Mapping) or "schema" in data or "px_to_mm" in data:
        return None
    if data.get("format") == "pitboard-faces":
        return "a face library (the dice faces `pitboard teach dice` keeps)"
    if "zones" in data:
        return "a zones file"
    return "a JSON object with neither schema nor px_to_mm"


def _text_not_json(p: Path) -> str | None:
    """"TOML ..." or "text ..." for a text file that is no JSON at all; None for binary, empty or JSON-like
    text (a calibration cut short or damaged still starts like JSON)."""
    try:
        raw = p.read_bytes()[:MAX_TABLE_FILE_BYTES]
        text = raw.decode("utf-8").lstrip("\ufeff \t\r\n")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        if tomllib.loads(text):
            return "TOML (a setup or the table config)"
    except Exception:  # noqa: BLE001 - any way it is not TOML says only that
        pass
    if text and text[0] not in "{[":  # a calibration is one JSON object: "{" comes first
        return "text that is not JSON"
    return None


def _not_a_calibration_message(p: Path, what: str) -> str:
    return (f"{p} is not a calibration: it looks like {what}; point --calibration or [vision] calibration at the "
            f"calibration file (`pitboard calibrate IMAGE` writes {calibration_path(None)})")


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        write_atomic(path, data)
    except FileProblem as exc:
        raise TableFileError(str(exc)) from exc


def calibration_path(path: str | Path | None = None) -> Path:
    return Path(path) if path else data_dir() / CALIBRATION_FILE


def save_calibration(cal: Calibration, path: str | Path | None = None) -> Path:
    """Write ``cal`` (atomically) after reading it back as ``load_calibration`` will: a calibration that could
    not be loaded (a mat of 1e308 mm, a matrix of NaN) is refused and the file already there is kept."""
    p = calibration_path(path)
    newer = _newer_schema(p)
    if newer is not None:  # (a review: `calibrate` warned "upgrade Pitboard", then wrote over it)
        raise NewerCalibrationError(f"{p} is a calibration of schema {newer}, written by a newer Pitboard: it is not "
                                    "written over; upgrade Pitboard to use it, or give another file name")
    data = cal.to_dict()
    try:
        Calibration.from_dict(json.loads(json.dumps(data)))
    except CalibrationError as exc:
        said = str(exc).removesuffix("; run `pitboard calibrate` again")
        kept = f"; {p} is kept as it was" if p.exists() else ""
        raise TableFileError(f"this calibration could not be loaded again ({said}), so it was not saved{kept}; "
                             "check --mat-mm and the corner points, then calibrate again") from None
    _atomic_write(p, json.dumps(data, indent=2).encode("utf-8"))
    return p


def load_calibration(path: str | Path | None = None) -> Calibration:
    p = calibration_path(path)
    if not p.exists():
        raise TableFileError(f"no calibration at {p}; run `pitboard calibrate IMAGE` with the four corner tags "
                             "in view (or give --calibration FILE)")
    if p.is_dir():
        raise TableFileError(folder_given(p, "calibration", CALIBRATION_FILE))
    again = "move it aside and run `pitboard calibrate` again"
    try:
        # (only `calibrate` writes it: "fix that line" of a file cut short was no advice; a bad-input audit)
        data = read_json_object(p, fix=again, what="calibration file", max_bytes=MAX_TABLE_FILE_BYTES, by_hand=False)
    except SetupFileError as exc:
        what = None if p.is_dir() else not_a_calibration(p)
        if what is not None:  # another kind of file: never advise moving it
            raise NotCalibrationError(_not_a_calibration_message(p, what)) from None
        raise TableFileError(str(exc)) from None
    what = not_a_calibration(p, data)
    if what is not None:
        raise NotCalibrationError(_not_a_calibration_message(p, what))
    try:
        return Calibration.from_dict(data)
    except CalibrationError as exc:
        if "newer Pitboard" in str(exc):  # not damaged: moving it aside and calibrating would lose it
            raise NewerCalibrationError(f"calibration file {p}: {exc}") from exc
        said = str(exc).removesuffix("; run `pitboard calibrate` again")  # said once, below
        raise TableFileError(f"calibration file {p}: {said}; {again}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError) as exc:
        # a hand-edited or foreign JSON object: a field missing or of the wrong shape
        raise TableFileError(f"calibration file {p} is not a Pitboard calibration ({_what_broke(exc)}); "
                             f"{again}") from None


def load_zones(path: str | Path) -> tuple[Zone, ...]:
    """Zones from a TOML or JSON file: a list ``zones`` of {name, kind, polygon}."""
    p = Path(path)
    if not p.exists():
        raise TableFileError(f"zones file {p} does not exist")
    fix = "give a list 'zones' of {name, kind, polygon}"
    try:
        if p.suffix.lower() == ".json":
            data = read_json_object(p, fix=fix, what="zones file", max_bytes=MAX_TABLE_FILE_BYTES)
        else:
            data = read_toml_file(p, fix=fix, what="zones file", max_bytes=MAX_TABLE_FILE_BYTES)
    except SetupFileError as exc:
        raise TableFileError(str(exc)) from None
    try:
        zones = data["zones"]
        if isinstance(zones, list) and not zones:  # (a calibration was saved with no tray and no token zone)
            raise CalibrationError("zones = [] names no zone; list the dice tray and each player's token zone, or "
                                   "leave --zones out for the default ones")
        for n, z in enumerate(zones if isinstance(zones, list) else (), start=1):
            odd = sorted(set(z) - {"name", "kind", "polygon"}) if isinstance(z, dict) else []
            if odd:  # (ignored without a word: a typo's value was lost)
                import difflib

                close = difflib.get_close_matches(str(odd[0]), ["name", "kind", "polygon"], n=1)
                which = f"zone {z['name']!r}" if "name" in z else f"zone {n}"
                raise CalibrationError(f"{which}: unknown key {odd[0]!r}"
                                       f"{f' (did you mean {close[0]!r}?)' if close else ''}; a zone has name, kind "
                                       "and polygon")
        return unique_zones([Zone.from_dict(z) for z in zones])
    except CalibrationError as exc:  # a ValueError: said whole, before the malformed file's words
        raise TableFileError(f"{p}: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError) as exc:
        raise TableFileError(f"zones file {p}: expected a list 'zones' of {{name, kind, polygon}} "
                             f"({_what_broke(exc)})") from None


def _what_broke(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r} field" if exc.args else "a field is missing"
    return str(exc).split("\n")[0][:120] or type(exc).__name__


def _read_toml(p: Path, what: str, fix: str) -> dict:
    try:
        return read_toml_file(p, fix=fix, what=what, max_bytes=MAX_TABLE_FILE_BYTES)
    except SetupFileError as exc:
        raise TableFileError(str(exc)) from None


def _shapes(p: Path, what: str, fix: str) -> dict[str, TemplateShape]:
    data = _read_toml(p, what, fix)  # every way the file cannot be read, named (folder, not UTF-8, nesting, ...)
    try:
        return shapes_from_dict(data)
    except ShapeDataError as exc:
        raise TableFileError(f"{what} {p}: {exc}; {fix}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError) as exc:
        raise TableFileError(f"{what} {p}: {_what_broke(exc)}; {fix}") from None


def load_outlines(path: str | Path | None = None) -> dict[str, TemplateShape]:
    p = Path(path) if path else data_dir() / OUTLINES_FILE
    if not p.exists() and not p.is_symlink():
        return {}
    return _shapes(p, "outlines file", "fix or delete that entry, or move the file aside and teach the "
                   "templates again (`pitboard teach template NAME`)")


def save_outline(shape: TemplateShape, path: str | Path | None = None) -> Path:
    """Add or replace one taught outline, keeping the others."""
    p = Path(path) if path else data_dir() / OUTLINES_FILE
    shapes = load_outlines(p)
    shapes[shape.name] = shape
    header = ("Template outlines taught with `pitboard teach template NAME` (mm, template frame: entry\n"
              "midpoint at the origin, travel along +u, +v to the right).  Delete an entry to forget it.")
    _atomic_write(p, shapes_to_toml(shapes, header).encode("utf-8"))
    return p


#: The sections of pitboard.toml (device.config): a table config holding them is that file, given by mistake.
APPLIANCE_SECTIONS = ("game", "screens", "buttons", "camera", "vision", "store", "web")


def load_table_config(path: str | Path | None = None,
                      outlines: Mapping[str, TemplateShape] | None = None) -> TableConfig:
    """Shipped defaults, overridden by the owner's ``table.toml`` (or ``path``), the owner's edited
    ``template_shapes.toml`` and their taught outlines."""
    data = default_tables()
    p = Path(path) if path else data_dir() / CONFIG_FILE
    if path and not p.exists():
        raise TableFileError(f"table config {p} does not exist")
    # (a line TOML cannot read is told "fix that line (...)": this said "fix that line (fix that key (...) ...)")
    fix = "vision/data/table_defaults.toml shows every key and its default; or move the file aside"
    if p.exists() or p.is_symlink():
        owner = _read_toml(p, "table config", fix)
        appliance = sorted(k for k in owner if k in APPLIANCE_SECTIONS and k not in data)
        if path and appliance:  # the deploy README's --config /etc/pitboard/pitboard.toml, given to calibrate
            raise TableFileError(
                f"{p} is the appliance's configuration (its [{'], ['.join(appliance)}]), not a table config: here "
                "--config takes table.toml (tag ids, sizes of the printed tags and templates); leave --config out. "
                "What this command writes goes to the data folder ($PITBOARD_DATA), where the appliance reads it: "
                "on an installed Pi run it as `sudo -u pitboard PITBOARD_DATA=/var/lib/pitboard pitboard ...`")
        try:
            data = merge(data, owner)
        except ConfigError as exc:
            raise TableFileError(f"table config {p}: {exc}") from exc
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise TableFileError(f"table config {p}: {_what_broke(exc)}; fix that key ({fix})") from None
    shapes_p = data_dir() / SHAPES_FILE
    shapes = builtin_shapes()
    if shapes_p.exists() or shapes_p.is_symlink():
        shapes.update(_shapes(shapes_p, "template shapes file", "fix that value or move the file aside to use "
                                                                "the shipped shapes"))
    try:
        cfg = config_from_dict(data, shapes=shapes, outlines=outlines if outlines is not None else load_outlines())
    except ConfigError as exc:
        raise TableFileError(f"table config {p}: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise TableFileError(f"table config {p}: {_what_broke(exc)}; fix that key ({fix})") from None
    return cfg  # the dictionary, tag ids and sizes were checked by config_from_dict


def read_image(path: str | Path) -> np.ndarray:
    try:
        return _read_image(path)
    except FileProblem as exc:
        raise TableFileError(str(exc)) from exc


def write_sheet(pages, out: str | Path, dpi: int) -> list[Path]:
    """Save tag sheet pages: ``.pdf`` -> one multi-page PDF; ``.png`` -> one PNG per page
    (``NAME.png``, ``NAME-2.png``, ...), each with its DPI recorded so it prints at true size."""
    p = Path(out)
    if p.suffix.lower() not in (".pdf", ".png"):
        raise TableFileError(f"--out {p}: use a .png or .pdf file name")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.suffix.lower() == ".pdf":
            pages[0].save(p, "PDF", resolution=float(dpi), save_all=True, append_images=list(pages[1:]))
            return [p]
        written = []
        for i, page in enumerate(pages):
            q = p if i == 0 else p.with_name(f"{p.stem}-{i + 1}{p.suffix}")
            page.save(q, "PNG", dpi=(dpi, dpi))
            written.append(q)
        return written
    except OSError as exc:  # a read-only card, a full disk, /proc: said in a line, not the writer's traceback
        raise TableFileError(f"cannot write the tag sheet to {p}: {exc.strerror or exc}; give --out a file in "
                             "a folder you can write to") from None
