"""Teaching a die face from the live camera: the tray's crop of the latest frame is taken and kept, shown
with the dice found in it, and only added to the owner's face library once confirmed (the same
``FaceLibrary.teach`` and the same file as ``pitboard teach dice``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device.web.hub import CameraShot
from device.web.waiting import Waiting

#: Crops kept waiting for a confirmation, and for how long.
KEPT = 8
KEPT_S = 600.0

#: One change of the face library at a time from the page (a confirmation and an undo sent together would each
#: read the file, change it and write it back: the second would write over the first).
_CHANGING = threading.Lock()


def tray_crop(shot: CameraShot) -> np.ndarray:
    """The dice tray of the shot's frame (the whole frame without a tray region), as a copy."""
    image = shot.image
    if shot.region is None:
        return np.array(image, copy=True)
    x, y, w, h = shot.region
    return np.array(image[y:y + h, x:x + w], copy=True)


def dice_in(crop: np.ndarray) -> list[Any]:
    """The dice to teach in the crop (a tray's screw holes beside a marked die are not outlined or counted)."""
    from vision.dice.faces import teachable_blobs

    return teachable_blobs(crop)[0]


def drawn(crop: np.ndarray) -> tuple[bytes, int]:
    """The crop as a PNG with each die found outlined, and how many."""
    import cv2

    blobs = dice_in(crop)
    canvas = crop.copy()
    for b in blobs:
        x0, y0, x1, y1 = (int(v) for v in b.box)
        cv2.rectangle(canvas, (x0, y0), (x1, y1), (0, 255, 0), 2)
    ok, buf = cv2.imencode(".png", canvas)
    return (bytes(buf) if ok else b""), len(blobs)


@dataclass
class Pending:
    crop: np.ndarray
    png: bytes
    dice: int
    die: str
    face: str
    at: float


class Crops(Waiting[Pending]):
    """Crops shown and waiting for their confirmation, by random token."""

    def __init__(self) -> None:
        super().__init__(KEPT, KEPT_S)

    def keep(self, crop: np.ndarray, die: str, face: str) -> tuple[str, Pending]:
        png, n = drawn(crop)
        item = Pending(crop, png, n, die, face, time.monotonic())
        return self.put(item), item


def check_names(die: str, face: str) -> str | None:
    """What is wrong with a die or face name typed on the page, or None."""
    die, face = die.strip(), face.strip()
    if not die or not face:
        return "give the die's name (e.g. skid) and the face shown (e.g. SHIFT)"
    if len(die) > 40 or len(face) > 40:
        return "names of dice and faces are at most 40 characters"
    from device.dice_library_files import face_names_problem

    return face_names_problem(die, [face])


def new_die_note(die: str, path: Path | None) -> str:
    """A word when ``die`` is not in the face library yet but others are (a misspelt "skdi" would be taught
    as a die nobody reads), else ""."""
    from device.dice_library_files import library_path, load_library, taught_dice, unrolled_dice_words

    try:
        library = load_library(path or library_path())
    except Exception:  # noqa: BLE001 - a damaged library is told when confirming (teach)
        return ""
    known = library.dice()
    if not known or die.strip() in known:
        return ""
    # a die renamed by hand in the file ("skdi") is never offered: the page itself refuses that name
    taught = taught_dice()
    rolled = [d for d in known if d in taught]
    said = f"{die.strip()!r} is a new die"
    if rolled:
        said += (f": the face library knows {', '.join(rolled)}; if you meant one of those, correct the name and "
                 "take the crop again")
    unrolled = unrolled_dice_words(library)
    return said + (f"; in the face library, {unrolled}" if unrolled else "")


def teach(item: Pending, path: Path | None, config_source: str | None = None,
          use: Callable[[Any], None] | None = None) -> tuple[Any, str]:
    """Add the crop's die to the face library at ``path`` (default the data folder's) and save it
    atomically: ``(library, message)``; ValueError saying what to do when it cannot.  Checked as ``pitboard
    teach dice`` checks (:func:`vision.dice.faces.plan_teaching`): a crop showing more than one die is
    refused (one face is named, a mixed roll must not be taught as it), and an example unlike the face's
    others is warned about."""
    from device.dice_library_files import library_path

    path = path or library_path()
    with _CHANGING:  # (``use``: the appliance is handed the library saved before another change can be)
        library, message = _teach(item, path, config_source)
        _UNDONE.clear()  # (a teaching after an undo may write the very file that undo was sent from)
        if use is not None:
            use(library)
        return library, message


def _teach(item: Pending, path: Path, config_source: str | None) -> tuple[Any, str]:
    from device.dice_library_files import load_library_to_teach, save_library, undo_command
    from vision.dice.faces import dice_to_teach, plan_teaching

    try:
        library, mends = load_library_to_teach(path, config=config_source)
    except Exception as exc:  # a damaged library is never overwritten
        raise ValueError(str(exc)) from None
    try:
        seen = len(dice_to_teach(item.crop))
        if seen != 1:
            raise ValueError(f"{seen} dice seen in the tray where one was expected; leave one die there, with "
                             f"its {item.face} face up, and take the crop again")
        plan = plan_teaching(library, item.die, [item.face], item.crop)
    except ValueError as exc:
        raise ValueError(f"the crop was not taught (the face library is unchanged): {exc}") from None
    library.add(item.die, plan.examples, blank=plan.blank)
    try:
        saved = save_library(library, path)
    except Exception as exc:  # noqa: BLE001 - a save the system refuses (read-only, full): said, not a 500
        raise ValueError(f"the crop was not taught: {exc}") from None
    n = len(library.examples[item.die.strip()][item.face.strip()])
    undo = undo_command(item.die, config_source)
    warned = "".join(f"; warning: {w}: if the die was not showing {item.face}, take it back with the page's "
                     f"Undo the last teaching (or `{undo}`)"
                     for w in plan.warnings)
    mended = "".join(f"; mended: {m}" for m in mends)
    return library, (f"saved {saved}: {item.die} {item.face} now has {n} example(s) (+{len(plan.examples)})"
                     f"{mended}{warned}")


@dataclass(frozen=True)
class LibraryView:
    """What the page shows of the face library: each die's faces with their number of examples, the last
    teaching recorded (what an undo would take back) and the mark the undo form sends back: the SHA-256 of the
    file as shown, so that an undo sent after any change to it (another teaching, from another phone or the
    command line, even one recording the same face) takes back nothing it was not shown."""

    path: Path
    dice: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    last: str = ""
    mark: str = ""
    problem: str = ""


def _mark(path: Path) -> str:
    """The library file's SHA-256 ("" when there is none, or it cannot be read)."""
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _said(record: Any) -> str:
    return ", ".join(f"{die} {face}: {n} example{'' if n == 1 else 's'}" for die, face, n in record)


#: The view last built, by (path, mark, config): a page shown again is not the whole library decoded again
#: (92 ms for 600 examples here, several times that on a Pi).
_VIEWS: dict[tuple[Path, str, str | None], LibraryView] = {}
#: What each recent undo said, by the mark it was sent with: the same form sent twice (a double tap) is
#: answered with the first one's result, not a red "nothing was undone" that invites a third tap.
_UNDONE: dict[tuple[Path, str], str] = {}  # (by library file and mark: two tables' libraries may be alike)


def library_view(path: Path | None, config_source: str | None = None) -> LibraryView:
    """The face library at ``path`` (default the data folder's) as the page shows it; a library that cannot be
    read is shown by its loader's message (nothing is written; its commands name ``config_source``)."""
    from device.dice_library_files import library_path, load_library

    path = path or library_path()
    for _ in range(3):  # the mark is of the file the view was built from: read it before and after
        mark = _mark(path)
        key = (path, mark, config_source)
        if key in _VIEWS:
            return _VIEWS[key]
        try:
            library = load_library(path, config=config_source)
        except Exception as exc:  # noqa: BLE001 - a damaged library is told, never a 500
            return LibraryView(path, problem=str(exc))
        if _mark(path) == mark:
            break
    else:
        return LibraryView(path, problem=f"{path} is being written: reload the page")
    dice = tuple((die, tuple((face, len(library.examples[die][face])) for face in library.faces(die)))
                 for die in library.dice())
    last = _said(library.teachings[-1]) if library.teachings else ""
    view = LibraryView(path, dice, last, mark if library.teachings else "")
    _VIEWS.clear()
    _VIEWS[key] = view
    return view


def undo_last(mark: str, path: Path | None, config_source: str | None = None,
              use: Callable[[Any], None] | None = None) -> str:
    """Take back the last teaching of the face library at ``path``, as ``pitboard teach dice --undo`` does, if the
    file is still the one the page showed (``mark``, :attr:`LibraryView.mark`), and hand the library to ``use``
    (the appliance's reader) before another change can: the message; ValueError saying why nothing was undone.
    A library that needs mending first (a record no undo can follow) is mended and saved, and nothing is
    undone, as the command does."""
    from device.dice_library_files import library_path, load_library_to_teach, save_library

    path = path or library_path()
    with _CHANGING:
        if mark and (path, mark) in _UNDONE:
            return f"{_UNDONE[path, mark]} (sent twice: done once)"
        if not mark or _mark(path) != mark:
            try:
                library, _ = load_library_to_teach(path, config=config_source)
                now = f"its last teaching now is {_said(library.teachings[-1])}" if library.teachings else \
                    "no teaching is recorded in it now"
            except Exception:  # noqa: BLE001 - what it holds now is the page's to show
                now = "look at it below"
            raise ValueError("nothing was undone: the face library changed since the page showed it (another "
                             f"teaching, or an undo); {now}")
        try:
            library, mends = load_library_to_teach(path, config=config_source)
        except Exception as exc:  # a damaged library is never overwritten
            raise ValueError(f"nothing was undone: {exc}") from None
        def saved_and_used() -> Path:
            try:
                saved = save_library(library, path)
            except Exception as exc:  # noqa: BLE001 - a save the system refuses: said, not a 500
                raise ValueError(f"nothing was undone: {exc}") from None
            if use is not None:
                use(library)
            return saved

        if mends:
            return (f"nothing was undone: the face library needed mending first ({'; '.join(mends)}); saved "
                    f"{saved_and_used()}; look at its last teaching below and undo again if you mean to")
        try:
            removed = library.undo()
        except ValueError as exc:
            raise ValueError(f"nothing was undone: {path}: {exc}") from None
        saved = saved_and_used()
        took = "; ".join(f"removed {n} example(s) of {die} {face} "
                         f"({len(library.examples.get(die, {}).get(face, []))} left)" for die, face, n in removed)
        message = f"took back the last teaching: {took}; saved {saved}"
        _UNDONE[path, mark] = message
        while len(_UNDONE) > KEPT:
            _UNDONE.pop(next(iter(_UNDONE)))
    return message


# -- templates: an untagged template's outline, taught from the live camera --------------------------------


def template_names() -> list[str]:
    from vision.templates import TEMPLATE_NAMES

    return list(TEMPLATE_NAMES)


@dataclass
class PendingOutline:
    shape: Any
    png: bytes
    text: str
    at: float


def learn_outline(image: np.ndarray, calibration: Any, name: str) -> tuple[Any, bytes, str]:
    """The outline of template ``name`` in ``image`` (alone, against the front of one tagged car, turning
    right), as ``pitboard teach template`` learns it, and the frame with the learnt outline drawn where it
    lies; ValueError saying what to fix."""
    import cv2

    from device.table_files import TableFileError, load_table_config
    from vision.markers import detect_tags
    from vision.table import read_cars, taught_outline

    if calibration is None:
        raise ValueError("the table is not calibrated yet: calibrate it first (the Calibrate page), then teach "
                         "templates")
    if name not in template_names():
        raise ValueError(f"{name!r} is not a template; templates are {', '.join(template_names())}")
    try:
        config = load_table_config(None)
    except TableFileError as exc:
        raise ValueError(str(exc)) from None
    shape = taught_outline(image, calibration, config, name)
    cars = read_cars(detect_tags(image, config.dictionary), calibration, config)
    canvas = np.ascontiguousarray(image).copy()
    if cars:
        car = cars[0]
        a = np.radians(car.heading_deg)
        d = np.array([np.cos(a), np.sin(a)])
        n = np.array([-d[1], d[0]])
        front = np.array(car.centre_mm) + d * config.cars.length_mm / 2
        mm = front + np.outer(shape.outline[:, 0], d) + np.outer(shape.outline[:, 1], n)
        px = np.round(calibration.to_px(mm)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(canvas, [px], True, (255, 0, 255), 2)
        cx, cy = calibration.to_px(np.array([car.centre_mm], dtype=float))[0]
        cv2.putText(canvas, f"{name} against {car.id}", (int(cx) + 10, int(cy) - 10), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6, (255, 0, 255), 2)
    ok, buf = cv2.imencode(".png", canvas)
    text = f"{name}: outline of {len(shape.outline)} points, {shape.area():.0f} mm²"
    return shape, (bytes(buf) if ok else b""), text


class Outlines(Waiting[PendingOutline]):
    """Outlines shown and waiting for their confirmation, by random token."""

    def __init__(self) -> None:
        super().__init__(KEPT, KEPT_S)

    def keep(self, shape: Any, png: bytes, text: str) -> str:
        return self.put(PendingOutline(shape, png, text, time.monotonic()))


def save_outline(item: PendingOutline) -> str:
    """Add the outline to the owner's ``template_outlines.toml`` (the file ``pitboard teach template``
    writes and the table reader reads); ValueError when it cannot be written."""
    from device.table_files import TableFileError
    from device.table_files import save_outline as save

    try:
        path = save(item.shape)
    except (TableFileError, OSError) as exc:
        raise ValueError(f"the outline was not saved: {exc}") from None
    return f"taught {item.text}; saved to {path}"
