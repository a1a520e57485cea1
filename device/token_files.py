"""The owner's learned token look on disk: ``table_tokens.npz`` in the data folder.

It holds what ``vision.tokens`` learned at set-up: the hazard tokens' colour (``pitboard teach tokens``)
and the bare mat under every token zone (``pitboard calibrate``).  A NumPy ``.npz`` of plain arrays
(``vision.tokens.look_to_arrays``), read with ``allow_pickle=False``: a damaged or foreign file is
refused with its name and what to do, never executed.  Writes are atomic.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import numpy as np

from device.paths import data_dir
from device.safe_files import FileProblem, folder_given, write_atomic
from vision.tokens import TokenLook, TokenLookError, look_from_arrays, look_to_arrays

TOKENS_FILE = "table_tokens.npz"
MAX_BYTES = 50 * 1024 * 1024  # a few zones of ~170 x 150 px mats: tens of kB; anything huge is not ours


class TokenFileError(Exception):
    """The token look file cannot be read or written; the message names the file and what to do."""


class NotATokenFile(TokenFileError):
    """The file named as the token look is another kind of file (text, an image, someone's archive): not
    ours to write over, unlike a damaged token look."""


#: What to do about a file that is not a token look at all (text, an image, another Pitboard file).
FOREIGN = ("it is not overwritten: move it aside, or name another file ([vision] tokens in the config, or "
           "`teach tokens --out FILE`), then run `pitboard teach tokens` again")

#: How a token look file starts: it is a zip archive (NumPy ``.npz``); an empty archive starts PK 5 6.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _not_a_look(p: Path) -> str | None:
    """What the file at ``p`` is when it is plainly not a NumPy archive (None: it may be a token look)."""
    with p.open("rb") as fh:
        head = fh.read(64)
    if not head or head.startswith(_ZIP_MAGIC):
        return None  # empty (a damaged look) or an archive: np.load and the schema check judge it
    if head.startswith(b"\x93NUMPY"):
        return "a single NumPy array, not the archive `pitboard calibrate` and `pitboard teach tokens` write"
    if head.startswith((b"\x89PNG", b"\xff\xd8\xff")):
        return "an image, not the archive `pitboard calibrate` and `pitboard teach tokens` write"
    if head.startswith(b"SQLite format 3\x00"):  # its header is ASCII: it was called "text"
        return "an SQLite database (a game log is one), not the archive `pitboard calibrate` and `pitboard teach " \
               "tokens` write"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not a multi-byte character cut by the 64 bytes
            return "not a NumPy archive"
    return "text, not the NumPy archive `pitboard calibrate` and `pitboard teach tokens` write"


def _first_line(exc: BaseException) -> str:
    return str(exc).split("\n")[0][:160] or type(exc).__name__


#: What to do about a damaged token look (``pitboard calibrate`` itself sets it aside and starts a new one).
REDO = "run `pitboard calibrate IMAGE` and `pitboard teach tokens` again (or remove the file)"


def tokens_path(path: str | Path | None = None) -> Path:
    return Path(path) if path else data_dir() / TOKENS_FILE


def load_token_look(base: TokenLook, path: str | Path | None = None) -> TokenLook:
    """``base`` with what was learned at set-up; ``base`` itself when nothing was learned yet (no file)."""
    p = tokens_path(path)
    if not p.exists():
        return base
    if p.is_dir():
        raise TokenFileError(folder_given(p, "token look", TOKENS_FILE))
    try:
        if p.stat().st_size > MAX_BYTES:
            raise TokenFileError(f"{p} is too large to be a token look file; {REDO}")
        other = _not_a_look(p)
        if other is not None:  # another file named as the token look: it is not ours to remove or redo
            raise NotATokenFile(f"{p} is not a token look file ({other}); {FOREIGN}")
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except TokenFileError:
        raise
    except OSError as exc:
        raise TokenFileError(f"cannot read {p} ({exc.strerror or exc}); {REDO}") from exc
    except Exception as exc:  # noqa: BLE001 - whatever the archive's readers raise, the file is damaged: a byte
        # changed inside its data escaped as zlib.error or NotImplementedError ("zip file version 11.9"), a
        # traceback that stopped `run` and `check` (a bad-input audit)
        raise TokenFileError(f"{p} is not a token look file ({_first_line(exc)}); {REDO}") from exc
    if "schema" not in arrays:  # a NumPy archive, but not one Pitboard wrote
        raise NotATokenFile(f"{p} is not a token look file (a NumPy archive without the token look's schema); "
                             f"{FOREIGN}")
    try:
        return look_from_arrays(arrays, base)
    except TokenLookError as exc:
        raise TokenFileError(f"{p}: {exc}; {REDO}") from exc


def keep_aside(path: str | Path | None = None) -> Path:
    """Move a damaged token look out of the way before a new one is written in its place, as
    ``<name>.damaged`` (``.damaged-2``, … beside earlier ones): calibrate replaced it, and with it mats and a
    colour that a few changed bytes had not touched (a bad-input audit).  Raises TokenFileError when it
    cannot be moved (the file is then not written over either)."""
    p = tokens_path(path)
    kept, n = p.with_name(f"{p.name}.damaged"), 1
    while kept.exists():
        n += 1
        kept = p.with_name(f"{p.name}.damaged-{n}")
    try:
        p.rename(kept)
    except OSError as exc:
        raise TokenFileError(f"{p} could not be moved aside to {kept.name} ({exc.strerror or exc}): give write "
                             "access to its folder, or move it yourself") from exc
    return kept


def save_token_look(look: TokenLook, path: str | Path | None = None) -> Path:
    p = tokens_path(path)
    buf = io.BytesIO()
    np.savez_compressed(buf, **look_to_arrays(look))
    try:
        return write_atomic(p, buf.getvalue())
    except FileProblem as exc:
        raise TokenFileError(str(exc)) from exc


def with_mats(look: TokenLook, mats: dict[str, np.ndarray]) -> TokenLook:
    """The look with the bare mats of a new calibration frame (zones not learned this time are dropped:
    they belong to the old calibration's geometry)."""
    return replace(look, mats=dict(mats))
