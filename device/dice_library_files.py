"""The owner's face library on disk: ``<data folder>/faces.json``.

The file is the owner's work (every face they showed the camera), so it is treated carefully:

* a missing file is an empty library;
* a file that cannot be read as a face library is **never** overwritten or "repaired": loading raises
  ``UserError`` naming the file, what is wrong, and what to do (move it aside, or restore a copy);
* saving writes a temporary file in the same folder, flushes and fsyncs it, then renames it over the old
  one, so a power cut leaves either the old library or the new one, never half a file;
* a face with no examples is a damaged library (named with the die and the face), not a crash at the
  first reading; it and a teaching record that is not [die, face, count of 1 or more] (which only an undo
  reads, never the reading) are the faults that can be dropped without losing an example, so the next
  teaching or undo (:func:`load_library_to_teach`) mends them and says so, where any other damage still
  stops teaching with the file untouched.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from device import paths
from device.safe_files import FileProblem, folder_given, write_atomic
from device.setup_files import SetupFileError, read_json_object
from vision.dice.faces import FaceLibrary, MendableLibraryError, NewerLibraryError, did_you_mean, mended

FILE_NAME = "faces.json"
#: A library of many taught faces is a few MB of small crops; far more is not a face library.
MAX_LIBRARY_BYTES = 64 * 1024 * 1024


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def library_path() -> Path:
    return paths.data_dir() / FILE_NAME


def load_library(path: Path | None = None, *, config: str | None = None) -> FaceLibrary:
    """The face library at ``path`` (default: the owner's data folder); empty if there is no file yet.
    ``config``: the config file given to the command that reads it, for the command its messages offer."""
    return _load(path or library_path(), mend=False, config=config)[0]


def load_library_to_teach(path: Path | None = None, *, config: str | None = None) -> tuple[FaceLibrary, list[str]]:
    """The face library to add to (or undo from), and what was mended: a face with no examples and a teaching
    record that is not [die, face, count of 1 or more] are dropped (no example is lost) and the caller saves
    the mended library.  Any other damage raises ``UserError`` as :func:`load_library` does."""
    return _load(path or library_path(), mend=True, config=config)


def _load(path: Path, *, mend: bool, config: str | None = None) -> tuple[FaceLibrary, list[str]]:
    if not path.exists() and not path.is_symlink():
        return FaceLibrary(), []
    if path.is_dir():
        raise _user_error(folder_given(path, "face library", FILE_NAME))
    fix = f"it was left untouched: {redo_words(path, config)}"
    try:
        data = read_json_object(path, fix=fix, what="face library", max_bytes=MAX_LIBRARY_BYTES, by_hand=False)
    except SetupFileError as exc:
        raise _user_error(str(exc)) from None
    notes: list[str] = []
    if mend:
        data, notes = mended(data)
    try:
        library = FaceLibrary.from_dict(data)
    except NewerLibraryError as exc:  # not damaged: never advise teaching it again
        raise _user_error(f"the face library {path}: {exc}; it was left untouched. Upgrade Pitboard to use it") \
            from None
    except MendableLibraryError as exc:  # moving it aside would throw every other example away
        raise _user_error(f"the face library {path}: {mend_words(exc, config)}; it was left untouched") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError, RecursionError) as exc:
        raise _user_error(f"the face library {path} is damaged ({str(exc).strip(chr(39))[:200]}); {fix}.") from None
    unknown = unknown_name_words(library)
    if unknown:
        raise _user_error(f"the face library {path} {unknown}; it was left untouched")
    misnamed = misnamed_dice_words(library) if mend else None
    if misnamed:  # a teaching would drop the undo records of the die's examples, as naming a face no longer there
        raise _user_error(f"the face library {path} {misnamed}; it was left untouched")
    return library, notes


def teach_command(die: str, face: str = "FACE", config: str | None = None) -> str:
    """The command that teaches ``die``'s ``face`` into the library of ``config`` (None: the default config's, else
    the data folder's): without the config given to the command that offers it, it taught another file."""
    config_option = f" --config {shlex.quote(config)}" if config else ""
    return f"pitboard teach dice --die {shlex.quote(die.strip())} --face {shlex.quote(face)} IMAGE...{config_option}"


def redo_words(path: Path, config: str | None = None) -> str:
    """What to do with a damaged library at ``path``: move it aside (the command quoted for a shell) and teach the
    faces again (with ``config``), or restore a backup.  Both loaders (the commands and the appliance) say it."""
    moved = f"mv {shlex.quote(str(path))} {shlex.quote(str(path) + '.bad')}"
    return (f"move it aside (`{moved}`) and teach the faces again (`{teach_command('NAME', 'FACE', config)}` for "
            "each), or restore a backup copy")


def mend_words(exc: MendableLibraryError, config: str | None = None) -> str:
    """What is wrong with a library the next teaching mends, and a teaching that does (with ``config``)."""
    return f"{exc} (e.g. teach that face again: `{teach_command(exc.die, exc.face, config)}`)"


def undo_command(die: str | None = None, config: str | None = None) -> str:
    """The command that takes back ``die``'s last teaching (None: the last teaching) from the library of
    ``config`` (None: the default config's, else the data folder's).  Without the config the appliance runs
    with, `--undo` would take back the last teaching of another file."""
    die_option = f" --die {shlex.quote(die.strip())}" if die else ""
    config_option = f" --config {shlex.quote(config)}" if config else ""
    return f"pitboard teach dice --undo{die_option}{config_option}"


def save_library(library: FaceLibrary, path: Path | None = None) -> Path:
    """Write ``library`` atomically (:func:`device.safe_files.write_atomic`).  Returns the path written.  A library
    that is a symbolic link is written where the link leads: replaced by a file of its own, the link's target (a
    library shared by two tables) stopped receiving what was taught, without a word."""
    path = path or library_path()
    text = json.dumps(library.to_dict(), indent=1, sort_keys=True)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        write_atomic(target, text.encode("utf-8"))
    except FileProblem as exc:
        raise _user_error(str(exc)) from None
    return path


#: Dice read as pips, never taught (their faces are numbers the reader counts).
PIP_DICE = ("d6",)
PIP_REFUSAL = "d6 pips are read without teaching; teach custom dice under their own name (e.g. skid)"


def unknown_name_words(library: FaceLibrary) -> str | None:
    """What is wrong with a library holding, for a die a game rolls, a face name the games do not know, and what
    to do; None when there is none.  A face mistyped in the file by hand was read off the dice as it stands
    ("SLDE"), a value no rule asks for.  A die no game rolls is left alone: no rule ever asks the camera for it."""
    taught = taught_dice()
    for die in library.dice():
        if die in taught:
            problem = face_names_problem(die, library.faces(die))
            if problem:
                return (f"holds a face the games do not know ({problem}): a die showing it would be read so; "
                        "correct the name in the file, or restore a backup copy")
    return None


def unrolled_dice_words(library: FaceLibrary) -> str | None:
    """The dice of ``library`` no game here rolls (a die renamed by hand, "skdi"), with the near name: the camera
    is never asked for them, so the game's own die goes untaught without a word.  None when there are none."""
    rolled = list(taught_dice())
    said = []
    for die in library.dice():
        if die not in rolled:
            near = did_you_mean(die, rolled).strip()
            said.append(f"{die!r}" + (f" ({near})" if near else ""))
    if not said:
        return None
    return (f"no game rolls the die{'s' if len(said) > 1 else ''} {', '.join(said)}: the camera never reads "
            f"{'them' if len(said) > 1 else 'it'}; rename it in the file to the game's die, or teach that die")


def misnamed_dice_words(library: FaceLibrary) -> str | None:
    """The dice of ``library`` no game rolls whose name is near a game's die ("skidd" for skid: renamed or mistyped
    by hand), and what to do; None when there are none.  Teaching refuses them as it refuses a mistyped face: it
    took the game's die as untaught, and dropped the undo records of the examples under the near name (a
    bad-input audit).  A die with no near name ("banana") is left alone, as :func:`unrolled_dice_words` says."""
    rolled = list(taught_dice())
    near = {die: did_you_mean(die, rolled).strip() for die in library.dice() if die not in rolled}
    said = [f"{die!r} ({words})" for die, words in near.items() if words]
    if not said:
        return None
    return (f"holds {'dice' if len(said) > 1 else 'a die'} no game rolls, named near a game's die: "
            f"{', '.join(said)}; rename {'them' if len(said) > 1 else 'it'} in the file to the game's die")


def taught_dice() -> dict[str, list[str]]:
    """The dice a game rolls that are taught (not read by their pips), with their faces: :func:`game_dice` less
    the pip dice."""
    return {d: f for d, f in game_dice().items() if d not in PIP_DICE}


def game_dice() -> dict[str, list[str]]:
    """Every die a game here rolls, by its name, with its faces' labels as the games' data names them (each once,
    in the data's order): what the camera is taught under."""
    from games import REGISTRY, game_package

    out: dict[str, list[str]] = {}
    for name in REGISTRY:
        for die, faces in (getattr(game_package(name), "DIE_TYPES", {}) or {}).items():
            known = out.setdefault(str(die), [])
            for face in map(str, faces):
                if face not in known:
                    known.append(face)
    return out


def face_names_problem(die: str, faces: list[str]) -> str | None:
    """What is wrong with teaching ``faces`` of ``die``, or None: a die no game rolls, or a face its die does not
    have ("SHFIT" was taught as a skid face the rules never ask for, and the camera would read it).  The faces'
    names come from the games' data (a table that renames a face there teaches it under the new name)."""
    # the names as they would be stored: exactly (a "skid " with its space is taught as a die nobody reads)
    dice = taught_dice()
    if die.strip().lower() in PIP_DICE:
        return PIP_REFUSAL
    if die not in dice:
        return (f"no game here rolls a die called {die!r}: {did_you_mean(die, list(dice))}the dice the games roll "
                f"are {', '.join(dice)}")
    for face in faces:
        if face not in dice[die]:
            return (f"{face!r} is not a face of the {die} die: {did_you_mean(face, dice[die])}its faces are "
                    f"{', '.join(dice[die])}")
    return None
