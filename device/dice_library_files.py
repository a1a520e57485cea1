"""The owner's face library on disk: ``<data folder>/faces.json``.

The file is the owner's work (every face they showed the camera), so it is treated carefully:

* a missing file is an empty library;
* a file that cannot be read as a face library is **never** overwritten or "repaired": loading raises
  ``UserError`` naming the file, what is wrong, and what to do (move it aside, or restore a copy);
* saving writes a temporary file in the same folder, flushes and fsyncs it, then renames it over the old
  one, so a power cut leaves either the old library or the new one, never half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from device import paths
from vision.dice.faces import FaceLibrary

FILE_NAME = "faces.json"


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def library_path() -> Path:
    return paths.data_dir() / FILE_NAME


def load_library(path: Path | None = None) -> FaceLibrary:
    """The face library at ``path`` (default: the owner's data folder); empty if there is no file yet."""
    path = path or library_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return FaceLibrary()
    except OSError as exc:
        raise _user_error(f"cannot read the face library {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
        return FaceLibrary.from_dict(data)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise _user_error(
            f"the face library {path} is damaged ({exc}). It was left untouched. Move it aside "
            f"(e.g. `mv {path} {path}.bad`) and teach the faces again, or restore a backup copy."
        ) from None


def save_library(library: FaceLibrary, path: Path | None = None) -> Path:
    """Write ``library`` atomically (temporary file + rename).  Returns the path written."""
    path = path or library_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(library.to_dict(), indent=1, sort_keys=True)
    fd, tmp = tempfile.mkstemp(prefix=".faces-", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
