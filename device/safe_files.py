"""Writing and reading the owner's files without harming anything else on the disk.

Two rules every file Pitboard writes or reads from a user follows:

* **Writes are atomic and private.** The new content goes to a fresh temporary file created with
  ``O_EXCL`` in the target's folder (never a fixed ``NAME.tmp`` that another program, or a symlink left
  there, could own), is flushed and fsynced, then renamed over the target.  A rename replaces a symlink
  at the target itself; it never writes through it into the file the link points at.
* **Images are checked before they are decoded.** A PNG header can claim 65535 x 65535 pixels (16 GB
  decoded) in a few hundred bytes; the size is read from the header first and anything larger than a
  camera could deliver is refused with a message naming the file.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import shlex
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

#: The largest image any command decodes: 8192 x 8192 (a 64 MP sensor; the Pi's cameras give 12 MP).
MAX_IMAGE_PIXELS = 8192 * 8192
#: The largest image file read at all.
MAX_IMAGE_BYTES = 200 * 1024 * 1024


class FileProblem(Exception):
    """A file cannot be written or read; the message names the file, what is wrong and what to do."""


def unreachable(path: Path) -> str | None:
    """Why ``path`` cannot be looked at (a folder on its way the user may not enter: ``Path.exists`` and
    ``is_dir`` raise then, where a missing file only says False; a symbolic link that leads nowhere, or back to
    itself: "does not exist" and "give the user read access" were said of those; a named pipe, a socket or a
    device, which a read waits on for ever: check, play and dice read hung without a word, an audit), or None."""
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return (f"is a symbolic link to {target}, which does not exist: point the link at the file, or put the "
                    "file in its place")
        return None
    except PermissionError as exc:
        return (f"cannot be reached ({exc.strerror or exc}: a folder on its way is closed to this user); "
                "give the user running Pitboard access to it, or copy the file somewhere it can read")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return ("is a symbolic link that leads back to itself (a loop of links): point the link at the file, "
                    "or put the file in its place")
        return None  # a name too long ...: the checks that follow say it
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return ("is not a file but a named pipe, a socket or a device (reading it could wait for ever): give the "
                "path of a file")
    return None


def closed_to_user(path: Path) -> str | None:
    """:func:`unreachable`'s words when a folder on ``path``'s way is closed to this user (``Path.exists`` raises
    there), else None: a link leading nowhere is not this (a log or file not made yet is made there)."""
    why = unreachable(path)
    return why if why is not None and why.startswith("cannot be reached") else None


def folder_given(path: Path, what: str, name: str) -> str:
    """What to say of a folder given where a ``what`` file is read: give a file's path (``name`` in it as the
    example).  Never "move it aside" or "remove it": it may be the data folder, with the game log in it."""
    return f"{path} is a folder, not a {what} file: give a file's path (e.g. {path / name})"


def write_atomic(path: str | Path, data: bytes, *, mode: int = 0o644) -> Path:
    """Replace ``path`` with ``data`` atomically: O_EXCL temporary file, fsync, rename.

    A symlink at ``path`` is replaced by a regular file (the file it pointed at is untouched).  A
    folder at ``path`` is refused, and so is a file made read-only (no write permission for anyone: an owner's
    "do not change this", which an atomic rename would have ignored).  A file replaced keeps its mode (``mode``
    is a new file's).  Returns the path written.
    """
    p = Path(path)
    if p.is_dir() and not p.is_symlink():
        raise FileProblem(f"{p} is a folder; give a file name (for example {p / 'out'})")
    try:
        st = None if p.is_symlink() else p.stat()
    except OSError:
        st = None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise FileProblem(f"cannot write {p}: it is not a file (a device, a pipe or a socket); nothing was changed "
                              "(give the path of a file)")
        if not st.st_mode & 0o222:
            raise FileProblem(f"cannot write {p}: it is read-only (mode {st.st_mode & 0o777:04o}); nothing was changed "
                              f"(make it writable to change it: `chmod u+w {shlex.quote(str(p))}`)")
        mode = st.st_mode & 0o777  # its permissions, never a setuid or sticky bit
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
    except OSError as exc:
        raise FileProblem(f"cannot write {p}: {exc.strerror or exc}; nothing was changed"
                          f"{_write_advice(exc, p) or '; choose a folder you can write to'}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if st is not None and st.st_gid != os.getegid():  # a library shared through its group stays the group's
            try:
                os.chown(tmp, -1, st.st_gid)
            except OSError:
                pass
        os.replace(tmp, p)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileProblem(f"cannot write {p}: {exc.strerror or exc}; nothing was changed{_write_advice(exc, p)}") \
            from exc
    return p


def _write_advice(exc: OSError, p: Path) -> str:
    """What to do when replacing ``p`` failed with ``exc`` (empty when there is nothing better to say)."""
    if exc.errno == errno.EROFS:
        return " (the card or disk is mounted read-only: mount it writable, or choose another place)"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return " (the disk is full: free some space, then do it again)"
    if exc.errno in (errno.EPERM, errno.EACCES):
        return (f" (the file or {p.parent} may not be changed by this user: give the user running Pitboard write "
                "access, or choose a folder it can write to; a file made immutable shows an 'i' in `lsattr`, undone "
                "with `chattr -i`)")
    return ""


def image_size(path: str | Path) -> tuple[int, int] | int | None:
    """(width, height) from the file's header without decoding it, or None when Pillow cannot tell.  A picture
    so large that Pillow's guard refuses to open it: its pixel count alone (0 when Pillow's words do not say)."""
    from PIL import Image

    import warnings

    try:
        with warnings.catch_warnings():  # a big image: Pillow's warning names its own file; the size is told here
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                return int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError as exc:
        # Pillow's own guard fired on the header (its limit is a global other threads rely on: left as it is);
        # its words hold the pixel count, all that is told
        m = re.search(r"\((\d+) pixels\)", str(exc))
        return int(m.group(1)) if m else 0
    except Exception:  # noqa: BLE001 - any unreadable header: let the decoder give its own verdict
        return None


#: The ISO base media file brands of HEIF pictures (HEIC, an iPhone's photos) and AVIF, from the ``ftyp`` box.
HEIF_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"})
#: Formats that may be animations.  Not MPO: a phone's JPEG carries a second picture (a depth map, a preview)
#: after its photo, and the photo is the first.
_PAGED = frozenset({"GIF", "PNG", "WEBP"})
#: A TIFF's pages looked at (each an IFD read, not decoded).
MAX_TIFF_PAGES = 64


def several_pictures(path: str | Path) -> str | None:
    """What makes the file more than one picture ("3 pages", "an animation"), from Pillow without decoding
    them; None when it holds one or Pillow cannot tell.  A TIFF's reduced-resolution pages (a preview, a
    thumbnail: NewSubfileType bit 0) are not pictures of their own; an animation is told by its second frame
    alone (counting a GIF's frames reads the whole file: 2 s for a million-frame GIF of 23 MB)."""
    from PIL import Image

    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(path) as im:
                if im.format == "TIFF":
                    pages = 0
                    for k in range(min(int(getattr(im, "n_frames", 1)), MAX_TIFF_PAGES)):
                        im.seek(k)
                        pages += not int(im.tag_v2.get(254, 0)) & 1  # full resolution
                    return f"{pages} pages" if pages > 1 else None
                if im.format in _PAGED and getattr(im, "is_animated", False):
                    return "an animation"
                return None
    except Exception:  # noqa: BLE001 - any unreadable header: the decoder gives its own verdict
        return None


def _jpeg_cut_short(data: np.ndarray) -> bool:
    """A JPEG that stops before its end-of-image marker.  Its segments are walked from the start (an EXIF
    thumbnail lies inside one and is skipped whole); after a start-of-scan the compressed data runs to the
    next marker (a 0xFF inside it is followed by 0x00 or a restart marker).  What follows the end-of-image
    marker (a phone's trailer, a second picture) is not looked at."""
    raw = data.tobytes()
    if not raw.startswith(b"\xff\xd8"):
        return False
    i, n = 2, len(raw)
    while i + 1 < n:
        if raw[i] != 0xFF:
            return False  # not a marker where one must be: leave the verdict to the decoder
        marker = raw[i + 1]
        if marker == 0xD9:
            return False  # end of image
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            i += 2
            continue
        if i + 3 >= n:
            return True
        i += 2 + int.from_bytes(raw[i + 2:i + 4], "big")
        if marker == 0xDA:  # start of scan: compressed data up to the next marker
            while True:
                i = raw.find(b"\xff", i)
                if i < 0 or i + 1 >= n:
                    return True
                if raw[i + 1] == 0x00 or 0xD0 <= raw[i + 1] <= 0xD7:
                    i += 2
                    continue
                break
    return True


@contextmanager
def opencv_quiet() -> Iterator[None]:
    """OpenCV's own log lines silenced for the ``with`` block (its error line would come before Pitboard's
    words for the same problem).  OpenCV 5 has ``cv2.utils.logging``; OpenCV 4 — the Pi's lock file pins
    4.11 — has only ``cv2.getLogLevel``/``cv2.setLogLevel``: every image read on the Pi failed with
    "module 'cv2.utils' has no attribute 'logging'".  Neither: the lines are not silenced."""
    import cv2

    log = getattr(getattr(cv2, "utils", None), "logging", None)
    get = getattr(log, "getLogLevel", None) or getattr(cv2, "getLogLevel", None)
    put = getattr(log, "setLogLevel", None) or getattr(cv2, "setLogLevel", None)
    if get is None or put is None:
        yield
        return
    level = get()
    put(getattr(log, "LOG_LEVEL_SILENT", 0))  # 0 is SILENT in OpenCV's LogLevel
    try:
        yield
    finally:
        put(level)


def read_image(path: str | Path, *, what: str = "image") -> np.ndarray:
    """A BGR image from ``path``, refusing files that are missing, not images, or too large to decode."""
    import cv2

    p = Path(path)
    closed = unreachable(p)
    if closed:
        raise FileProblem(f"{what} {p} {closed}")
    if not p.exists():
        # the shell passes a pattern that matched nothing as it is ("shots/*/x.jpg"); "dice [1].jpg" is a name
        pattern = any(c in part for part in p.parts for c in "*?[")
        raise FileProblem(f"{what} {p} does not exist" + (" (if it was a pattern, it matched no file)" if pattern
                                                          else ""))
    if p.is_dir():
        raise FileProblem(f"{what} {p} is a folder; give an image file (PNG, JPEG, BMP, TIFF or WebP)")
    try:
        n_bytes = p.stat().st_size
    except OSError as exc:
        raise FileProblem(f"cannot read {what} {p}: {exc.strerror or exc}") from exc
    if n_bytes > MAX_IMAGE_BYTES:
        raise FileProblem(f"{what} {p} is {n_bytes // (1024 * 1024)} MB; Pitboard reads images up to "
                          f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB (a camera frame is a few MB)")
    found = image_size(p)
    size = found if isinstance(found, tuple) else None
    shown = None
    if isinstance(found, int) and (found > MAX_IMAGE_PIXELS or not found):  # past Pillow's own guard
        shown = f"{found / 1e6:.0f} megapixels" if found else "too large for Pillow even to open"
    elif size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        shown = f"{size[0]} x {size[1]} pixels ({size[0] * size[1] / 1e6:.0f} megapixels)"
    if shown:
        raise FileProblem(f"{what} {p} is {shown}; Pitboard reads images up to "
                          f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels - scale it down or use a camera frame")
    several = several_pictures(p)
    if several:  # OpenCV decodes the first page or frame alone: the others' dice were never mentioned
        raise FileProblem(f"{what} {p} holds several pictures ({several}); Pitboard reads one picture a file: save "
                          "the one you mean as a file of its own (PNG or JPEG)")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        raise FileProblem(f"cannot read {what} {p}: {exc.strerror or exc}") from exc
    try:  # OpenCV's "[ERROR:0@0.2] ... Assertion failed" came before the words below, which say it
        with opencv_quiet():
            img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except (cv2.error, MemoryError):
        img = None
    if img is not None and _jpeg_cut_short(data):
        img = None  # libjpeg fills what is missing with grey and says nothing: half a photo is no photo
    if data[:4].tobytes() in (b"II*\x00", b"MM\x00*"):
        _refuse_float_tiff(data, p, what)
    if img is None:
        if data.size == 0:
            raise FileProblem(f"{what} {p} is empty (0 bytes); take or copy it again")
        brand = data[8:12].tobytes() if data[4:8].tobytes() == b"ftyp" else b""
        if brand in HEIF_BRANDS:  # an iPhone's own format: common, and this OpenCV does not decode it (Pillow may
            # read its header, so it is told before "damaged")
            raise FileProblem(f"{what} {p} is a HEIC/HEIF or AVIF picture (an iPhone's own format), which this "
                              "install cannot decode: export it as JPEG (or set the iPhone's Settings > Camera > "
                              "Formats to Most Compatible)")
        if data[:4].tobytes() == b"GIF8":  # whole, but a GIF (the Pi's OpenCV 4.11 decodes none): not "damaged"
            raise FileProblem(f"{p} is a GIF, not an image Pitboard can read (a PNG, JPEG, BMP, TIFF or WebP "
                              "picture is): save it as PNG")
        if size is not None:  # the header says an image: its picture data is what is broken
            raise FileProblem(f"{what} {p} says it is a {size[0]} x {size[1]} image, but its picture cannot be "
                              "decoded: the file is damaged or cut short (copied before it was whole?); take or "
                              "copy it again")
        raise FileProblem(f"{p} is not an image Pitboard can read (a PNG, JPEG, BMP, TIFF or WebP picture is)")
    if _may_have_alpha(data):
        img = _on_grey(img, data, p, what)
    return img


def _refuse_float_tiff(data: np.ndarray, p: Path, what: str) -> None:
    """A TIFF of floating-point samples is refused, named so (an audit: "damaged, copy it again", or "not an
    image"; the Pi's OpenCV 4.11 decodes a colour one, 0.0-1.0 read as a black picture)."""
    import cv2

    try:
        with opencv_quiet():
            raw = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    except (cv2.error, MemoryError):
        raw = None
    if raw is not None and raw.dtype.kind == "f":
        raise FileProblem(f"{what} {p} is a TIFF of {raw.dtype.itemsize * 8}-bit floating-point samples (a "
                          "scientific or HDR export), not a photo's: save it with 8 or 16 bits a channel, as PNG, "
                          "JPEG or TIFF")


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: What a transparent part of an image is seen as: a neutral grey, neither a white die nor a black one.
TRANSPARENT_AS = 128


def _may_have_alpha(data: np.ndarray) -> bool:
    """The file says it may carry transparency: a PNG with an alpha channel or a tRNS chunk before its picture
    data, a WebP with alpha (VP8X's flag, or lossless), any TIFF.  Only these are decoded a second time, with it."""
    head, kind = data[:32].tobytes(), _turnable_kind(data)
    if kind == "png":
        return len(head) > 25 and head[25] in (4, 6) or _png_trns(data) is not None
    if kind == "webp":
        return head[12:16] == b"VP8L" or (head[12:16] == b"VP8X" and len(head) > 20 and bool(head[20] & 0x10))
    return head[:4] in (b"II*\x00", b"MM\x00*")


def _png_trns(data: np.ndarray) -> bytes | None:
    """A PNG's tRNS chunk (a palette's or one colour's transparency) among its chunks before its picture data,
    however long the text chunks before it; None when it has none."""
    pos, n = 8, int(data.size)
    for _ in range(10_000):  # a real PNG has a handful before IDAT; a file of millions of empty chunks is not read on
        if pos + 8 > n:
            return None
        length = int.from_bytes(data[pos:pos + 4].tobytes(), "big")
        kind = data[pos + 4:pos + 8].tobytes()
        if kind == b"tRNS":
            return data[pos + 8:pos + 8 + length].tobytes()
        if kind in (b"IDAT", b"IEND"):
            return None
        pos += 12 + length
    return None


def _grey_key(data: np.ndarray) -> int | None:
    """The one grey a grey PNG (8 or 16 bits) makes transparent by its tRNS chunk (OpenCV decodes such a picture
    to one channel and drops it), else None."""
    head = data[:26].tobytes()
    if _turnable_kind(data) != "png" or len(head) < 26 or head[25] != 0 or head[24] not in (8, 16):
        return None
    trns = _png_trns(data)
    return int.from_bytes(trns[:2], "big") if trns is not None and len(trns) >= 2 else None


def _on_grey(img: np.ndarray, data: np.ndarray, p: Path, what: str) -> np.ndarray:
    """``img`` (OpenCV's colour decoding, which drops the alpha channel) with its transparent parts shown on
    grey.  The colour under a transparent pixel is whatever the program that saved it left there (a fully
    transparent picture was read as a die showing 1); a picture with nothing visible is refused."""
    import cv2

    try:
        with opencv_quiet():
            full = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    except (cv2.error, MemoryError):
        return img
    if full is None or full.dtype.kind != "u":
        return img
    top = 255 if full.dtype == np.uint8 else 65535  # 8 or 16 bits
    if full.ndim == 2 and (key := _grey_key(data)) is not None:  # one grey, and the grey it makes transparent
        alpha = np.where(full == key, 0, top).astype(full.dtype)
        stored = np.repeat(full[:, :, None], 3, axis=2) if full.dtype == np.uint8 else None
    elif full.ndim == 3 and full.shape[2] == 4:
        alpha = full[:, :, 3]
        stored = full[:, :, :3] if full.dtype == np.uint8 else None
    else:
        return img
    if not alpha.any():  # whichever way the picture is turned
        raise FileProblem(f"{what} {p} is fully transparent: there is no picture in it to read; save it again "
                          "without transparency (or take the photo again)")
    if (alpha == top).all():
        return img
    try:
        turned = _turned_as(alpha, img, stored, data, _exif_orientation(p, data))
        if turned is None:
            return img
        turned = np.ascontiguousarray(turned)  # a copy of the alpha alone: the full decoding is let go
        del full, alpha, stored
        for r in range(0, img.shape[0], 256):  # a band of rows at a time: a float copy of 67 MP is gigabytes
            a = turned[r:r + 256, :, None].astype(np.float32) / top
            img[r:r + 256] = np.clip(img[r:r + 256] * a + TRANSPARENT_AS * (1 - a) + 0.5, 0, 255).astype(np.uint8)
    except MemoryError:
        raise FileProblem(f"{what} {p} is too large to read with its transparency on this machine; save it smaller "
                          "or without transparency") from None
    return img


#: How a picture stored with each EXIF orientation (1-8) is shown: OpenCV's colour decoding turns it so, its
#: decoding with the alpha does not.
_SHOWN: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: np.rot90(a, 2).swapaxes(0, 1),
    8: lambda a: np.rot90(a, 1),
}


def _exif_orientation(p: Path, data: np.ndarray) -> int:
    """The EXIF orientation by which OpenCV's colour decoding turned the picture and its decoding with the alpha
    did not (1: as stored; also when the file has none, it cannot be read, or this OpenCV does not turn its kind).
    A TIFF's alpha is turned by OpenCV's decoding too: 1.  Read from the EXIF block Pillow finds while opening
    the file, without decoding the picture (a 24 MP PNG decoded again only to learn it has no EXIF)."""
    kind = _turnable_kind(data)
    if kind is None or not _opencv_turns(kind):
        return 1
    try:
        from PIL import Image

        with Image.open(p) as im:
            raw = im.info.get("exif")
            if not raw:
                return 1
            exif = Image.Exif()
            exif.load(raw)
            value = exif.get(0x0112, 1)
    except Exception:  # noqa: BLE001 - any failure to read EXIF is "as stored"
        return 1
    return value if value in _SHOWN else 1


def _turnable_kind(data: np.ndarray) -> str | None:
    """"png" or "webp" (formats whose alpha OpenCV decodes unturned, and whose headers the alpha checks read),
    from the file's first bytes; else None."""
    head = data[:16].tobytes()
    if head[:8] == PNG_SIGNATURE:
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


@functools.lru_cache(maxsize=None)
def _opencv_turns(kind: str) -> bool:
    """Whether this OpenCV turns a picture of ``kind`` by its EXIF orientation (versions differ): a 2x2 picture
    saved turned 180 degrees is decoded and looked at, once per kind."""
    import io

    import cv2
    from PIL import Image

    try:
        exif = Image.Exif()
        exif[0x0112] = 3
        buf = io.BytesIO()
        Image.fromarray(np.array([[[0, 0, 0], [255, 255, 255]]] * 2, np.uint8)).save(
            buf, format=kind.upper(), exif=exif.tobytes(), **({"lossless": True} if kind == "webp" else {}))
        with opencv_quiet():
            shown = cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_COLOR)
    except Exception:  # noqa: BLE001 - a Pillow or OpenCV without this format: nothing to turn by
        return False
    return shown is not None and int(shown[0, 0, 0]) > 128  # the white column is shown on the left


def _turned_as(alpha: np.ndarray, img: np.ndarray, stored: np.ndarray | None, data: np.ndarray,
               orientation: int) -> np.ndarray | None:
    """``alpha`` (as stored) turned as OpenCV's colour decoding turned the picture: the EXIF ``orientation``'s
    turn when the ``stored`` colours (8-bit BGR, unturned; None: decoded here) so turned are ``img`` (a picture
    symmetric in its colours but not in its alpha takes the EXIF's word), else whichever turn makes them
    ``img``; None when none does."""
    import cv2

    if stored is None:  # 16 bits: the colours as OpenCV reduces them to 8, unturned
        try:
            with opencv_quiet():
                stored = cv2.imdecode(data, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
        except cv2.error:
            return None
        if stored is None:
            return None
    for o in [orientation, *(k for k in _SHOWN if k != orientation)]:
        look = _SHOWN[o](stored)
        if look.shape == img.shape and np.array_equal(look, img):
            return _SHOWN[o](alpha)
    return None


class ImageBatch:
    """The images of a batch command (``dice read``, ``vision read``), read one at a time: an image that
    cannot be read is named on stderr (and, with ``json_lines``, as a JSON line with its error) and the
    others are still read — a batch stopped at its first bad file, or a traceback, told nothing of the rest.
    :meth:`finish` says how many could not be read and gives the exit code (2 when any could not)."""

    def __init__(self, paths: Sequence[str | Path], read: Callable[[str | Path], np.ndarray],
                 problems: tuple[type[Exception], ...] = (FileProblem,), *, json_lines: bool = False) -> None:
        self.paths, self._read, self._problems, self._json = list(paths), read, problems, json_lines
        self.unread = 0

    def __iter__(self) -> Iterator[tuple[str | Path, np.ndarray]]:
        for path in self.paths:
            try:
                img = self._read(path)
            except self._problems as exc:  # its message names the file already
                self._tell(path, str(exc))
                continue
            yield path, img

    def unreadable(self, path: str | Path, reason: str) -> None:
        """An image that loaded but cannot be read (too small, not the calibrated frame's size): named like a
        file that could not be loaded, and the batch goes on."""
        self._tell(path, f"{path}: {reason}")

    def _tell(self, path: str | Path, message: str) -> None:
        self.unread += 1
        print(f"pitboard: {message}", file=sys.stderr)
        if self._json:
            print(json.dumps({"image": str(path), "error": message}))

    def finish(self) -> int:
        if not self.unread:
            return 0
        print(f"pitboard: {self.unread} of {len(self.paths)} images could not be read (named above)", file=sys.stderr)
        return 2
